"""Per-group means of the partition protocols, and the server estimates built on them."""

import numpy as np
import pytest

from sklearn_ldp.aggregation import (
    estimate_grid_risk,
    estimate_vector_mean,
    group_means,
)
from sklearn_ldp.randomizers import (
    BernsteinLossRandomizer,
    MarginalRandomizer,
    Reports,
)


def test_group_means_fill_and_counts():
    means, counts = group_means([2, 0, 2, 2], [1.0, 4.0, 3.0, 5.0], 4, fill=9.0)
    np.testing.assert_allclose(means, [4.0, 9.0, 3.0, 9.0])
    np.testing.assert_array_equal(counts, [1, 0, 3, 0])


@pytest.mark.parametrize(
    "groups", [[0, 1, 3], [0, -1, 1], [0, 1], [0, 1.5, 2], [[0, 1, 2]]]
)
def test_group_means_refuse_groups_outside_the_partition(groups):
    with pytest.raises(ValueError, match="groups"):
        group_means(groups, [1.0, 2.0, 3.0], 3, fill=0.0)


def test_group_means_refuse_non_finite_estimates():
    with pytest.raises(ValueError, match="NaN|infinity"):
        group_means([0, 1], [1.0, np.inf], 2, fill=0.0)


def test_grid_estimate_reads_every_mechanism_report_layout():
    X = np.random.RandomState(0).uniform(-1, 1, size=(400, 1))
    y = 0.5 * X[:, 0]
    for mechanism in ["full_grid", "piecewise", "bassily_smith", "genprot"]:
        rand = BernsteinLossRandomizer(1, epsilon=1.0, degree=2, mechanism=mechanism)
        reports = rand.randomize(X, y, random_state=0)
        values, counts = estimate_grid_risk(rand, reports)
        assert values.shape == counts.shape == (rand.n_grid,)
        assert counts.sum() == (400 * rand.n_grid if mechanism == "full_grid" else 400)
    forged = Reports({**reports.fields, "group": reports["group"] + 9}, reports.config)
    with pytest.raises(ValueError, match="groups"):
        estimate_grid_risk(rand, forged)


def test_vector_mean_of_an_exact_full_vector_and_a_forged_shape():
    X = (np.random.RandomState(0).uniform(size=(300, 3)) < 0.5).astype(float)
    rand = MarginalRandomizer(3, epsilon=1.0, k=2, mechanism="full_vector")
    # Noise-free reports (the unit entries are bits, on every lattice): no
    # epsilon makes 64-bit discrete Laplace noise negligible.
    units = rand._unit_vector(rand._prepare(X))
    reports = Reports({"vector": units}, rand.get_config())
    assert rand.validate_reports(reports)[0].all()
    mean, counts = estimate_vector_mean(rand, reports)
    exact = units.mean(axis=0) * rand.coordinate_scale
    np.testing.assert_allclose(mean, exact, atol=1e-6)
    assert np.all(counts == 300)
    forged = Reports({"vector": reports["vector"][:, :2]}, reports.config)
    with pytest.raises(ValueError, match="shape"):
        estimate_vector_mean(rand, forged)
