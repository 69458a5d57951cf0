"""Polynomial approximation and the polynomial-of-inner-product gradient oracle."""

import numpy as np
import pytest
from numpy.polynomial import Polynomial
from scipy.special import comb

from sklearn_ldp.aggregation import (
    PolynomialGradientOracle,
    approximation_error,
    bernstein_approximation,
    bernstein_product_terms,
    chebyshev_approximation,
    monomial_product_terms,
    polynomial_approximation,
    product_estimate,
    product_terms_copies,
)


def smoothed_hinge_derivative(t, beta=0.5):
    margin = 0.5 - t
    return -0.5 * (1.0 + margin / np.hypot(margin, beta))


# -- approximation ---------------------------------------------------------


def test_bernstein_matches_the_bernstein_sum():
    lo, hi, d = -1.5, 1.5, 5
    coef = bernstein_approximation(np.cos, d, (lo, hi))
    t = np.linspace(lo, hi, 7)
    s = (t - lo) / (hi - lo)
    nodes = lo + (hi - lo) * np.arange(d + 1) / d
    direct = sum(
        np.cos(nodes[k]) * comb(d, k) * s**k * (1 - s) ** (d - k) for k in range(d + 1)
    )
    np.testing.assert_allclose(Polynomial(coef)(t), direct, atol=1e-12)


def test_chebyshev_is_exact_on_polynomials_and_converges():
    cubic = Polynomial([0.3, -1.0, 0.5, 2.0])
    np.testing.assert_allclose(chebyshev_approximation(cubic, 3, (-2, 2)), cubic.coef)
    np.testing.assert_allclose(
        chebyshev_approximation(cubic, 5, (-2, 2))[4:], 0, atol=1e-12
    )
    errors = [
        approximation_error(
            smoothed_hinge_derivative,
            polynomial_approximation(smoothed_hinge_derivative, d, (-1, 1), method),
            (-1, 1),
        )
        for method in ("chebyshev", "bernstein")
        for d in (2, 8)
    ]
    assert errors[1] < errors[0] and errors[3] < errors[2]
    # Chebyshev converges much faster than Bernstein (O(1/d)).
    assert errors[1] < errors[3]
    with pytest.raises(ValueError, match="method"):
        polynomial_approximation(np.cos, 2, (-1, 1), "taylor")
    with pytest.raises(ValueError, match="interval"):
        bernstein_approximation(np.cos, 2, (1, 1))


def test_bernstein_product_terms_are_the_bernstein_polynomial():
    interval, d = (-1.4, 1.4), 4
    terms = bernstein_product_terms(smoothed_hinge_derivative, d, interval)
    assert product_terms_copies(terms) == d * (d + 1)  # the printed layout
    a = np.linspace(-1.4, 1.4, 9)
    clean = np.repeat(a[:, None], d * (d + 1), axis=1)
    coef = bernstein_approximation(smoothed_hinge_derivative, d, interval)
    np.testing.assert_allclose(product_estimate(clean, terms), Polynomial(coef)(a))
    mono = monomial_product_terms([1.0, 2.0, 3.0])
    assert product_terms_copies(mono) == 3
    with pytest.raises(ValueError, match="need 3 copies"):
        product_estimate(np.ones((2, 2)), mono)


# -- the oracle ------------------------------------------------------------


def make_clean(n_records=4, n_features=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_records, n_features))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(
        1.0, 2.0, (n_records, 1)
    )
    s = np.where(rng.uniform(size=n_records) < 0.5, -1.0, 1.0)
    return X, s


def exact_gradient(w, X, s, coef, fit_intercept):
    Z = np.hstack([X, np.ones((len(X), 1))]) if fit_intercept else X
    a = s * (Z @ w)
    return Polynomial(coef)(a)[:, None] * s[:, None] * Z


def test_fission_copies_are_independent_with_the_right_variance():
    # One clean record, many reports: the estimates U (d copies) and V (direction)
    # must be independent with Var(<w, x_k>) = (d + 1) sigma^2 ||w||^2.
    n, d, sigma = 200_000, 3, 0.7
    rng = np.random.RandomState(1)
    x = np.array([0.6, -0.3]) + sigma * rng.standard_normal((n, 2))
    oracle = PolynomialGradientOracle(
        x, coef=np.ones(d + 1), sigma_x=sigma, random_state=0
    )
    w = np.array([0.8, 0.6])
    U, V = oracle.estimates(w, slice(None), random_state=2)
    assert U.shape == (n, d) and V.shape == (n, 2)
    joint = np.hstack([U, V])
    cov = np.cov(joint, rowvar=False)
    expected = (d + 1) * sigma**2 * np.eye(d + 2)
    expected[:d, :d] *= w @ w
    # Sample covariances: sd about sqrt(2 / n) * var < 0.5% of the variances.
    np.testing.assert_allclose(cov, expected, atol=0.02 * (d + 1) * sigma**2)
    np.testing.assert_allclose(U.mean(axis=0), w @ [0.6, -0.3], atol=0.02)
    # Independence, not just no correlation: products are unbiased.
    assert np.mean(U[:, 0] * U[:, 1] * U[:, 2]) == pytest.approx(
        (w @ [0.6, -0.3]) ** 3, abs=0.03
    )


@pytest.mark.parametrize(
    "mode, fit_intercept", [("fission", True), ("fission", False), ("product", True)]
)
def test_oracle_is_unbiased_for_the_polynomial_gradient(mode, fit_intercept):
    # Monte Carlo over the users' noise and the server's fission: the average of
    # the oracle over R independent reports of each record estimates its exact
    # polynomial gradient; the tolerance is 5 standard errors per coordinate.
    X, s = make_clean()
    coef = np.array([-0.7, 0.5, 0.3, -0.2])
    d = len(coef) - 1
    reps, sigma = 40_000, 0.5
    rng = np.random.RandomState(3)
    record = np.repeat(np.arange(len(X)), reps)
    if mode == "fission":
        x = X[record] + sigma * rng.standard_normal((len(record), X.shape[1]))
        y = s[record] + sigma * rng.standard_normal(len(record))
        oracle = PolynomialGradientOracle(
            x,
            y,
            coef=coef,
            sigma_x=sigma,
            sigma_y=sigma,
            fit_intercept=fit_intercept,
            random_state=0,
        )
    else:
        n_copies = d * (d + 1) // 2 + 1
        x = X[record][:, None, :] + sigma * rng.standard_normal(
            (len(record), n_copies, X.shape[1])
        )
        y = s[record][:, None] + sigma * rng.standard_normal((len(record), n_copies))
        oracle = PolynomialGradientOracle(
            x, y, mode="product", coef=coef, fit_intercept=fit_intercept, random_state=0
        )
    w = np.array([0.5, -0.4, 0.3, 0.2])[: X.shape[1] + fit_intercept]
    values = oracle.per_user(w, slice(None), random_state=4).reshape(len(X), reps, -1)
    means = values.mean(axis=1)
    stderr = values.std(axis=1) / np.sqrt(reps)
    exact = exact_gradient(w, X, s, coef, fit_intercept)
    assert np.all(np.abs(means - exact) <= 5 * stderr + 1e-12), (means, exact, stderr)


def test_printed_bernstein_product_oracle_is_unbiased():
    X, s = make_clean(n_records=2)
    interval, d = (-1.0, 1.0), 2
    terms = bernstein_product_terms(smoothed_hinge_derivative, d, interval)
    coef = bernstein_approximation(smoothed_hinge_derivative, d, interval)
    reps, sigma, n_copies = 100_000, 0.4, d * (d + 1) + 1
    rng = np.random.RandomState(5)
    record = np.repeat(np.arange(len(X)), reps)
    x = X[record][:, None, :] + sigma * rng.standard_normal((len(record), n_copies, 3))
    y = s[record][:, None] + sigma * rng.standard_normal((len(record), n_copies))
    oracle = PolynomialGradientOracle(x, y, mode="product", terms=terms)
    w = np.array([0.6, -0.5, 0.4])
    values = oracle.per_user(w, slice(None)).reshape(len(X), reps, -1)
    stderr = values.std(axis=1) / np.sqrt(reps)
    exact = exact_gradient(w, X, s, coef, False)
    assert np.all(np.abs(values.mean(axis=1) - exact) <= 5 * stderr)


def test_mean_is_a_fixed_field_and_matches_the_chunks():
    rng = np.random.RandomState(6)
    x = rng.standard_normal((5_000, 3))
    y = rng.standard_normal(5_000)
    oracle = PolynomialGradientOracle(
        x, y, coef=[0.1, 0.2, 0.3], sigma_x=1.0, sigma_y=1.0, random_state=0
    )
    oracle_small = PolynomialGradientOracle(
        x, y, coef=[0.1, 0.2, 0.3], sigma_x=1.0, sigma_y=1.0, random_state=0
    )
    w = np.array([0.3, 0.1, -0.2])
    np.testing.assert_array_equal(oracle.mean(w), oracle.mean(w))
    np.testing.assert_array_equal(oracle.mean(w), oracle_small.mean(w))
    mean, second = oracle.mean(w, return_second_moment=True)
    values = oracle.per_user(
        w, slice(None), np.random.default_rng(oracle._chunk_seeds[0])
    )
    np.testing.assert_allclose(mean, values.mean(axis=0))
    assert second == pytest.approx(np.mean(np.sum(values**2, axis=1)))


def test_bad_oracle_configuration_is_refused():
    x = np.zeros((4, 2))
    with pytest.raises(ValueError, match="sigma_x"):
        PolynomialGradientOracle(x, coef=[1.0])
    with pytest.raises(ValueError, match="mode"):
        PolynomialGradientOracle(x, coef=[1.0], sigma_x=1.0, mode="magic")
    with pytest.raises(ValueError, match="needs 4 copies"):
        PolynomialGradientOracle(np.zeros((4, 3, 2)), mode="product", coef=[1, 1, 1])
    with pytest.raises(ValueError, match="dimensions"):
        PolynomialGradientOracle(x, mode="product", coef=[1.0])


def test_server_memory_does_not_grow_with_the_degree():
    # The fission oracle stores the reports plus one direction copy, whatever d.
    rng = np.random.RandomState(0)
    x, y = rng.standard_normal((1_000, 3)), rng.standard_normal(1_000)
    for degree in (1, 6):
        oracle = PolynomialGradientOracle(
            x, y, coef=np.ones(degree + 1), sigma_x=1.0, sigma_y=1.0
        )
        stored = [v for v in vars(oracle).values() if isinstance(v, np.ndarray)]
        # x, y, and the split: x_dir, y_dir, y_bar (plus a few constants).
        assert sum(v.size for v in stored) <= 2 * x.size + 3 * y.size + 50


def test_second_moment_and_batch_are_the_per_user_values():
    rng = np.random.RandomState(7)
    x, y = rng.standard_normal((300, 2)), rng.standard_normal(300)
    oracle = PolynomialGradientOracle(
        x, y, coef=[0.2, -0.4], sigma_x=1.0, sigma_y=1.0, random_state=0
    )
    assert oracle.param_shape == (2,)
    w, users = np.array([0.5, -0.5]), np.arange(0, 300, 3)
    values = oracle.per_user(w, users, np.random.default_rng(1))
    assert oracle.second_moment(w, users, np.random.default_rng(1)) == pytest.approx(
        np.mean(np.sum(values**2, axis=1))
    )
    np.testing.assert_allclose(
        oracle.batch(w, users, np.random.default_rng(1)), values.mean(axis=0)
    )
