"""GaussianCopiesRandomizer: the printed multi-copy reports (seed 003 Alg. 5, seed 001
Alg. 4-5): layout, calibration, and the privacy audit against a broken twin."""

import numpy as np
import pytest

from sklearn_ldp.accounting import (
    gaussian_sigma,
    lattice_copies,
    product_copies_budgets,
)
from sklearn_ldp.randomizers import (
    GaussianCopiesRandomizer,
    Reports,
    clip_l2,
    encode_labels,
    on_lattice,
)
from sklearn_ldp.utils import audit_randomizer


def _report_means(rand, record_a, record_b):
    """The two records\' mean reports (for the Gaussian audit statistic)."""
    means = [
        np.concatenate(
            [
                np.tile(
                    clip_l2(np.array([r[0]], float), rand.data_norm)[0],
                    rand.n_feature_copies,
                ),
                np.tile(
                    np.ravel(encode_labels(np.array([r[1]]), rand.classes)),
                    rand.n_label_copies,
                ),
            ]
        )
        for r in (record_a, record_b)
    ]
    return means


RECORDS = {
    2: (([50.0, 0.0], 0), ([-50.0, 0.0], 1)),
    3: (([50.0, 0.0], 0), ([-50.0, 0.0], 2)),
}


@pytest.mark.parametrize(
    "protocol, degree, n_classes, epsilon",
    [
        ("power_copies", 2, 2, 1.0),
        ("power_copies", 1, 3, 4.0),
        ("product_copies", 1, 3, 1.0),
        ("product_copies", 1, 2, 1.0),
        ("product_copies", 2, 2, 4.0),
    ],
)
def test_randomizer_passes_the_audit(
    protocol, degree, n_classes, epsilon, likelihood_ratio_statistic
):
    rand = GaussianCopiesRandomizer(
        2,
        epsilon=epsilon,
        delta=1e-5,
        degree=degree,
        protocol=protocol,
        classes=np.arange(n_classes),
    )
    a, b = RECORDS[n_classes]
    stat = likelihood_ratio_statistic(
        _report_means(rand, a, b), rand.sigma_x, rand.sigma_y, len(a[0])
    )
    result = audit_randomizer(rand, a, b, statistic=stat, n_draws=100_000)
    assert result.passed, result


@pytest.mark.parametrize(
    "protocol, n_classes",
    [("power_copies", 2), ("power_copies", 3), ("product_copies", 2)],
)
def test_audit_rejects_randomizer_without_composition(
    protocol, n_classes, likelihood_ratio_statistic
):
    # A plausible bug: every copy calibrated to the full (eps, delta), as if
    # it were the only release (degree 2: 7 releases for 'power_copies', 14
    # for 'product_copies'); the true epsilon is several times larger.
    rand = GaussianCopiesRandomizer(
        2,
        epsilon=1.0,
        delta=1e-5,
        degree=2,
        protocol=protocol,
        classes=np.arange(n_classes),
    )
    sens_y = 2.0 if n_classes == 2 else np.sqrt(2.0)
    rand.sigma_x[:] = gaussian_sigma(1.0, 1e-5, 2.0, "classic")
    rand.sigma_y[:] = gaussian_sigma(1.0, 1e-5, sens_y, "classic")
    a, b = RECORDS[n_classes]
    stat = likelihood_ratio_statistic(
        _report_means(rand, a, b), rand.sigma_x, rand.sigma_y, len(a[0])
    )
    assert not audit_randomizer(rand, a, b, statistic=stat, n_draws=100_000).passed


def test_product_copies_report_layout_and_clipping_multiclass():
    rand = GaussianCopiesRandomizer(
        3,
        epsilon=1.0,
        delta=1e-5,
        degree=2,
        protocol="product_copies",
        data_norm=2.0,
        classes=["a", "b", "c"],
    )
    reports = rand.randomize(
        np.array([[10.0, 0.0, 0.0]] * 30_000), np.array(["a", "b", "c"] * 10_000), 0
    )
    assert reports["x"].shape == (30_000, 7, 3) and reports["y"].shape == (30_000, 7, 3)
    # Clipped to data_norm = 2 and one-hot labels; 5 standard errors.
    assert abs(reports["x"][:, 0, 0].mean() - 2.0) < 5 * rand.sigma_x[0] / np.sqrt(
        30_000
    )
    onehot = reports["y"][:, 2].reshape(-1, 3, 3).mean(axis=0)
    np.testing.assert_allclose(onehot, np.eye(3), atol=5 * rand.sigma_y[2] / 100)


def test_product_copies_report_binary():
    rand = GaussianCopiesRandomizer(
        3,
        epsilon=1.0,
        delta=1e-5,
        degree=2,
        protocol="product_copies",
        data_norm=2.0,
        classes=["a", "b"],
    )
    assert rand.n_feature_copies == rand.n_label_copies == 7
    x_budgets, _ = product_copies_budgets(1.0, 1e-5, 2)
    eps_copy, delta_release = x_budgets[1]
    # On the lattice: the classic formula for the sensitivity widened by the
    # rounding, at delta minus the sampler's slack; at this copy's budget
    # (eps / 18) the cap on cells per sigma binds, widening by about 1.4%.
    assert rand.sigma_x[1] == lattice_copies(x_budgets, 4.0, 3)[1].sigma[0]
    continuous = gaussian_sigma(eps_copy, delta_release, 4.0, "classic")
    assert continuous < rand.sigma_x[1] < 1.02 * continuous
    assert rand.sigma_y[0] == pytest.approx(rand.sigma_y[1] / 3)
    X = np.array([[10.0, 0.0, 0.0]] * 50_000)
    reports = rand.randomize(X, np.array(["a", "b"] * 25_000), random_state=0)
    assert reports["x"].shape == (50_000, 7, 3) and reports["y"].shape == (50_000, 7)
    assert reports.as_matrix().shape[1] == 7 * 4  # (d(d+1)+1)(p+1) per user
    # Clipped to data_norm, +-1 labels; 5 standard errors.
    sd = rand.sigma_x[0] / np.sqrt(50_000)
    assert abs(reports["x"][:, 0, 0].mean() - 2.0) < 5 * sd
    labels = reports["y"][:, 3].reshape(-1, 2).mean(axis=0)
    np.testing.assert_allclose(
        labels, [-1, 1], atol=5 * rand.sigma_y[3] / np.sqrt(25_000)
    )


def test_power_copies_layout_and_configuration():
    rand = GaussianCopiesRandomizer(
        2, epsilon=1.0, delta=1e-5, degree=3, protocol="power_copies"
    )
    # 1 + p (p+1) / 2 feature copies and p + 1 label copies.
    assert (rand.n_feature_copies, rand.n_label_copies) == (7, 4)
    config = rand.get_config()
    assert config["protocol"] == "power_copies" and config["degree"] == 3
    assert config["classes"] == [-1, 1] and len(config["sigma_x"]) == 7


def test_bad_configuration_is_refused():
    with pytest.raises(ValueError, match="degree"):
        GaussianCopiesRandomizer(
            2, epsilon=1.0, delta=1e-5, degree=0, protocol="power_copies"
        )
    with pytest.raises(ValueError, match="protocol"):
        GaussianCopiesRandomizer(2, epsilon=1.0, delta=1e-5, degree=1, protocol="x")
    with pytest.raises(ValueError, match="distinct labels"):
        GaussianCopiesRandomizer(
            2,
            epsilon=1.0,
            delta=1e-5,
            degree=1,
            protocol="product_copies",
            classes=[1, 1],
        )
    with pytest.raises(ValueError, match="delta"):
        GaussianCopiesRandomizer(
            2, epsilon=1.0, delta=0.0, degree=1, protocol="product_copies"
        )


@pytest.mark.parametrize("protocol", ["power_copies", "product_copies"])
@pytest.mark.parametrize("classes", [None, ["a", "b", "c"]])
def test_every_copy_lies_on_its_own_lattice_inside_the_stated_support(
    protocol, classes
):
    rand = GaussianCopiesRandomizer(
        3, epsilon=1.0, delta=1e-5, degree=2, protocol=protocol, classes=classes
    )
    config = rand.get_config()
    assert (
        config["granularity"]
        == rand.granularity
        == min(min(config["granularity_x"]), min(config["granularity_y"]))
    )
    labels = rand.classes[np.arange(2000) % len(rand.classes)]
    X = 3.0 * np.random.RandomState(0).standard_normal((2000, 3))
    reports = rand.randomize(X, labels, random_state=0)
    assert np.all(on_lattice(reports.as_matrix(), rand.granularity))
    for j, step in enumerate(rand.granularity_x):
        assert np.all(on_lattice(reports["x"][:, j], step))
    for j, step in enumerate(rand.granularity_y):
        assert np.all(on_lattice(reports["y"][:, j], step))
    valid, reasons = rand.validate_reports(reports)
    assert valid.all() and reasons == {}
    # A value on the finest lattice but off its own copy's is refused.
    coarse = int(np.argmax(rand.granularity_y))
    assert rand.granularity_y[coarse] > rand.granularity
    x, y = reports["x"].copy(), reports["y"].copy()
    y[0, coarse] += rand.granularity
    x[1, 0, 0] = 1e12
    tampered = Reports({"x": x, "y": y}, reports.config)
    valid, reasons = rand.validate_reports(tampered)
    assert valid[2:].all() and not valid[:2].any()
    assert reasons == {"off the lattice": 1, "outside the support": 1}
