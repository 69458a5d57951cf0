"""Smooth queries and kernel density (seed 001 Algorithm 7): coefficients, KDE, contract.

The users' randomizer and its privacy audits are in
``tests/randomizers/test_trigonometric.py``.
"""

import numpy as np
import pytest
from sklearn.neighbors import KernelDensity

from sklearn_ldp import KernelDensityLDP
from sklearn_ldp._kde import auto_degree
from sklearn_ldp.aggregation import moment_tensor, trigonometric_coefficients
from sklearn_ldp.randomizers import TrigonometricRandomizer, chebyshev_tensor_basis


def clipped_normal(n, p, scale=0.35, seed=0):
    rng = np.random.RandomState(seed)
    return np.clip(rng.normal(0.1, scale, size=(n, p)), -1, 1)


# --- trigonometric coefficients -----------------------------------------------


def test_coefficients_of_a_chebyshev_product_are_exact():
    # T_2(x) T_3(y) = (2x^2 - 1)(4y^3 - 3y).
    coef = trigonometric_coefficients(
        lambda x: (2 * x[:, 0] ** 2 - 1) * (4 * x[:, 1] ** 3 - 3 * x[:, 1]), 5, 2
    )
    expected = np.zeros((5, 5))
    expected[2, 3] = 1.0
    np.testing.assert_allclose(coef, expected, atol=1e-13)


@pytest.mark.parametrize("p", [1, 2, 3])
def test_coefficients_reproduce_a_smooth_function_integral_against_the_data(p):
    # f(x) = exp(x_0 / 2) cos(x_1) ... is entire: its Chebyshev series converges
    # geometrically, so 14 terms per axis leave an error far below 1e-9.
    X = clipped_normal(5000, p)

    def f(points):
        return np.exp(0.5 * points[:, 0]) * np.prod(np.cos(points[:, 1:]), axis=1)

    coef = trigonometric_coefficients(f, 14, p)
    moments = chebyshev_tensor_basis(X, 14).mean(axis=0)
    assert np.sum(coef.reshape(-1) * moments) == pytest.approx(np.mean(f(X)), abs=1e-9)


def test_coefficients_on_a_box_and_validation():
    lower, upper = np.array([2.0, -5.0]), np.array([4.0, 5.0])
    coef = trigonometric_coefficients(
        lambda x: x[:, 0] + x[:, 1], 3, 2, lower=lower, upper=upper
    )
    # x0 = 3 + u0, x1 = 5 u1.
    assert coef[0, 0] == pytest.approx(3.0)
    assert coef[1, 0] == pytest.approx(1.0)
    assert coef[0, 1] == pytest.approx(5.0)
    with pytest.raises(ValueError, match="one value per point"):
        trigonometric_coefficients(lambda x: x, 3, 2)
    with pytest.raises(ValueError, match="n_nodes"):
        trigonometric_coefficients(lambda x: x[:, 0], 8, 1, n_nodes=4)
    with pytest.raises(ValueError, match="grid"):
        trigonometric_coefficients(lambda x: x[:, 0], 40, 5)


# --- the density estimator ------------------------------------------------------


def noise_free_fit(kde, X):
    """``kde`` fitted on the users' exact vectors (the unit basis, before noise).

    No epsilon makes 64-bit lattice noise negligible (a pure mechanism's
    smallest probability must stay above ``2^-64``), so the server's exact
    answers are tested on noise-free reports; they pass its validation only
    where they are on the lattice, so the moments are set directly.
    """
    kde.fit(X[:50])
    randomizer = kde.make_randomizer(X.shape[1])
    units = randomizer._unit_vector(randomizer._prepare(X))
    kde.moments_ = moment_tensor(
        units.mean(axis=0), randomizer.degree, randomizer.n_features
    )
    return kde


@pytest.mark.parametrize("p", [1, 2])
def test_exact_moments_approach_sklearn_kernel_density_as_t_grows(p):
    X = clipped_normal(4000, p)
    queries = np.random.RandomState(1).uniform(-1, 1, size=(100, p))
    reference = np.exp(KernelDensity(bandwidth=0.2).fit(X).score_samples(queries))
    errors = []
    for degree in [6, 12, 24]:
        kde = noise_free_fit(
            KernelDensityLDP(
                bandwidth=0.2, degree=degree, mechanism="full_vector", random_state=0
            ),
            X,
        )
        errors.append(np.max(np.abs(kde.density(queries) - reference)))
    assert errors[0] > errors[1] > errors[2]
    # Gaussian of width 0.2 on [-1, 1]: coefficients fall like exp(-(0.2 k)^2 / 2)
    # per axis; at t = 24 the truncation is below 1e-4 of the peak density.
    assert errors[2] < 1e-4 * reference.max()


def test_changing_the_bandwidth_needs_no_new_reports(monkeypatch):
    X = clipped_normal(20_000, 2)
    est = KernelDensityLDP(epsilon=2.0, bandwidth=0.2, degree=10)
    reports = est.make_randomizer(2).randomize(X, random_state=0)
    est.fit_reports(reports)
    moments = est.moments_.copy()
    at_02 = est.score_samples(X[:50])

    def no_more_reports(*args, **kwargs):
        raise AssertionError("a new collection was started")

    monkeypatch.setattr(TrigonometricRandomizer, "randomize", no_more_reports)
    est.set_params(bandwidth=0.4)
    at_04 = est.score_samples(X[:50])
    assert not np.allclose(at_02, at_04)
    np.testing.assert_array_equal(est.moments_, moments)
    # Same answer as a server that had bandwidth 0.4 from the start.
    other = KernelDensityLDP(epsilon=2.0, bandwidth=0.4, degree=10).fit_reports(reports)
    np.testing.assert_allclose(other.score_samples(X[:50]), at_04)
    est.set_params(bandwidth="scott")
    assert np.all(np.isfinite(est.score_samples(X[:5])))


def test_query_matches_the_empirical_mean_of_a_smooth_function():
    X = clipped_normal(5000, 2)
    kde = noise_free_fit(
        KernelDensityLDP(degree=16, mechanism="full_vector", random_state=0), X
    )

    def f(points):
        return np.sin(points[:, 0]) + points[:, 1] ** 2

    assert kde.query(f) == pytest.approx(np.mean(f(X)), abs=1e-8)
    with pytest.raises(TypeError, match="callable"):
        kde.query(3.0)


def test_moment_noise_matches_the_predicted_variance():
    n, p, epsilon = 100_000, 1, 1.0
    X = clipped_normal(n, p, seed=4)
    kde = KernelDensityLDP(epsilon=epsilon, degree=8, random_state=0).fit(X)
    randomizer = kde.make_randomizer(p)
    exact = chebyshev_tensor_basis(X, 8).mean(axis=0)[1:]
    # Piecewise variance at |u| <= 1 plus the partition's sampling variance
    # (an entry in [-1, 1]: at most 1 per user, d / n for the group mean).
    sd = np.sqrt(
        randomizer.noise_variance(n, unit_variance=1.0) + randomizer.n_coordinates / n
    )
    z = (kde.moments_.reshape(-1)[1:] - exact) / sd
    assert np.max(np.abs(z)) < 4.5  # 7 entries; false alarm ~ 5e-5
    assert np.std(z) > 0.2


def test_score_is_the_sum_of_floored_log_densities():
    X = clipped_normal(2000, 1)
    kde = KernelDensityLDP(epsilon=0.5, bandwidth=0.05, degree=8, random_state=0).fit(X)
    samples = kde.score_samples(X[:100])
    assert kde.score(X[:100]) == pytest.approx(samples.sum())
    # The floor is density_floor / volume (box [-1, 1]: 1e-3 / 2).
    assert samples.min() >= np.log(1e-3 / 2) - 1e-12


def test_auto_degree_and_contract():
    assert auto_degree(1_000_000, 1) == 16
    assert auto_degree(50_000, 2) == 16
    assert auto_degree(50_000, 3) == 10
    assert auto_degree(20, 10) == 2
    kde = KernelDensityLDP(random_state=0).fit(clipped_normal(5000, 2))
    assert kde.degree_ == auto_degree(5000, 2) == 10
    with pytest.raises(ValueError, match="n_users"):
        KernelDensityLDP().make_randomizer(2)
    reports = (
        KernelDensityLDP(degree=5)
        .make_randomizer(2)
        .randomize(clipped_normal(300, 2), random_state=0)
    )
    # degree='auto' takes the degree the users were told; a fixed one must match.
    assert KernelDensityLDP().fit_reports(reports).degree_ == 5
    with pytest.raises(ValueError, match="degree"):
        KernelDensityLDP(degree=6).fit_reports(reports)
    with pytest.raises(ValueError, match="bounds"):
        KernelDensityLDP(bounds=(1.0, -1.0)).fit(clipped_normal(100, 1))


def test_records_are_clipped_to_the_public_box():
    kde = KernelDensityLDP(
        epsilon=1e9,
        degree=6,
        bounds=(0.0, 2.0),
        mechanism="full_vector",
        random_state=0,
    )
    far = kde.fit(np.full((10, 1), 100.0)).moments_
    edge = kde.fit(np.full((10, 1), 2.0)).moments_
    np.testing.assert_allclose(far, edge, atol=1e-6)
