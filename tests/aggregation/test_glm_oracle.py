"""The label-linear oracle of margin losses (seed 003 Alg. 5-6, seed 001 Alg. 4-5):
Chebyshev rates, unbiasedness of every multiplier, the bias of the printed draws."""

import numpy as np
import pytest
from numpy.polynomial import Polynomial
from scipy.special import expit

from sklearn_ldp.aggregation import (
    GLMGradientOracle,
    PolynomialGradientOracle,
    SmoothedQuantileDerivative,
    bernstein_product_terms,
    chebyshev_approximation,
    fission_feature_copies,
    fission_linear_multiplier,
    fission_smoothed_quantile_multiplier,
    linear_label_parts,
    power_copies_multiplier,
    product_copies_multiplier,
    product_estimate,
)
from sklearn_ldp.losses import get_loss

LOGISTIC = get_loss("logistic").margin_derivative


def _sigmoid_derivative_polynomials(k_max):
    """sigma^(k) as a polynomial in sigma: P_0 = s, P_{k+1} = P_k'(s) s (1 - s)."""
    s = Polynomial([0.0, 1.0])
    polys = [s]
    for _ in range(k_max):
        polys.append(polys[-1].deriv() * s * (1 - s))
    return polys


@pytest.mark.parametrize("r", [1.0, 2.0 * np.sqrt(2.0)])
def test_chebyshev_error_meets_lemma_8_rate(r):
    # Lemma 8 (seed 003) is Trefethen, ATAP Thm 7.2, for f(u) = h2'(r u) on
    # [-1, 1]: if f^(k) has total variation V_k, the degree-p Chebyshev
    # interpolant errs by at most 4 V_k / (pi k (p - k)^k) for every k < p.
    # V_k = int |f^(k+1)| = r^(k+1) int |sigma^(k+1)(r u)| du, computed here
    # on a fine grid from the exact polynomial-in-sigma form of sigma^(k).
    polys = _sigmoid_derivative_polynomials(12)
    u = np.linspace(-1, 1, 200_001)
    sig = expit(r * u)
    variation = [
        r ** (k + 1) * np.trapezoid(np.abs(polys[k + 1](sig)), u) for k in range(11)
    ]
    h2_prime, _ = linear_label_parts(LOGISTIC)
    errors = []
    for p in (2, 4, 6, 8, 10, 12):
        coef = chebyshev_approximation(h2_prime, p, (-r, r))
        t = r * u[::10]
        error = np.max(np.abs(Polynomial(coef)(t) - h2_prime(t)))
        bound = min(
            4 * variation[k] / (np.pi * k * (p - k) ** k) for k in range(1, min(p, 11))
        )
        assert error <= bound
        errors.append(error)
    # Geometric convergence: each +2 in degree divides the error by a factor.
    ratios = np.array(errors[1:]) / np.array(errors[:-1])
    assert np.all(ratios < 0.6)


# -- unbiased oracles -------------------------------------------------------


def _replicated_oracle(x_clean, label, sigma_x, sigma_y, degree, multiplier, n, seed):
    """n noisy reports of the same record (improved mode) and its oracle."""
    rng = np.random.RandomState(seed)
    x = x_clean + sigma_x * rng.standard_normal((n, x_clean.size))
    labels = (label + sigma_y * rng.standard_normal(n))[:, None]
    copies = fission_feature_copies(x, degree, sigma_x, True, rng)
    return GLMGradientOracle(copies, labels, multiplier, rng)


def _check_mean(values, target):
    # Mean of n iid per-user values: 5 standard errors (from the sample sd).
    mean = values.mean(axis=0)
    sd = values.std(axis=0) / np.sqrt(values.shape[0])
    assert np.all(np.abs(mean - target) <= 5 * sd + 1e-12), (mean, target, sd)


@pytest.mark.parametrize("label", [-1.0, 1.0])
def test_fission_oracle_is_unbiased(label):
    x_clean, w = np.array([0.5, -0.3]), np.array([0.8, 0.4, -0.2])
    z = np.append(x_clean, 1.0)
    r = 1.0 * np.sqrt(2)
    h2p, h1p = linear_label_parts(LOGISTIC)
    coef2, coef1 = (chebyshev_approximation(h, 3, (-r, r)) for h in (h2p, h1p))
    oracle = _replicated_oracle(
        x_clean, label, 0.4, 0.5, 3, fission_linear_multiplier(coef2, coef1), 400_000, 0
    )
    multipliers, direction = oracle.values(w[:, None], slice(None), 1)
    a = z @ w
    target = (Polynomial(coef2)(a) - label * Polynomial(coef1)(a)) * z
    _check_mean(multipliers[:, :1] * direction, target)


def test_smoothed_quantile_oracle_is_unbiased_for_the_expectation_over_q():
    x_clean, w, label = np.array([0.6, 0.1]), np.array([0.5, -0.7, 0.3]), -1.0
    z = np.append(x_clean, 1.0)
    r = np.sqrt(2)
    smooth = SmoothedQuantileDerivative(LOGISTIC, (-r, r), 0.5)
    coef = chebyshev_approximation(smooth.step, 3, (-r, r))
    oracle = _replicated_oracle(
        x_clean,
        label,
        0.3,
        0.3,
        3,
        fission_smoothed_quantile_multiplier(coef, smooth),
        400_000,
        1,
    )
    multipliers, direction = oracle.values(w[:, None], slice(None), 2)
    # Target: y E_s[f'(lo) + D P((y a - s) / 2)] z, E_s by quadrature over Q.
    t = label * (z @ w)
    poly = Polynomial(coef)((t - smooth._nodes) / 2).mean()
    target = label * (smooth.f_lo + smooth.spread * poly) * z
    _check_mean(multipliers[:, :1] * direction, target)


def test_printed_product_oracles_are_unbiased():
    x_clean, w, label = np.array([0.6, 0.1]), np.array([0.5, -0.7, 0.3]), 1.0
    z = np.append(x_clean, 1.0)
    r, degree, n = np.sqrt(2), 2, 300_000
    rng = np.random.RandomState(3)
    h2p, h1p = linear_label_parts(LOGISTIC)
    coef2, coef1 = (chebyshev_approximation(h, degree, (-r, r)) for h in (h2p, h1p))
    a = z @ w
    smooth = SmoothedQuantileDerivative(LOGISTIC, (-r, r), 0.5)
    terms = bernstein_product_terms(smooth.step, degree, (-r, r))
    poly = sum(
        weight
        * np.prod(
            [(o + sl * (label * a - smooth._nodes) / 2) ** c for o, sl, c in f], axis=0
        )
        for weight, f in terms
    ).mean()
    cases = [
        # 'power_copies' (seed 003 Alg. 6): 1 + p(p+1)/2 feature copies, p + 1 labels.
        (
            1 + degree * (degree + 1) // 2,
            degree + 1,
            power_copies_multiplier(coef2, coef1),
            Polynomial(coef2)(a) - label * Polynomial(coef1)(a),
        ),
        # 'product_copies' (seed 001 Alg. 5, typo fixed, one s per user): 1 + d(d+1).
        (
            1 + degree * (degree + 1),
            1 + degree * (degree + 1),
            product_copies_multiplier(terms, smooth),
            label * (smooth.f_lo + smooth.spread * poly),
        ),
    ]
    for n_x, n_y, multiplier, target_scalar in cases:
        x = x_clean + 0.3 * rng.standard_normal((n, n_x, 2))
        labels = (label + 0.3 * rng.standard_normal((n, n_y)))[..., None]
        copies = PolynomialGradientOracle(
            x, mode="product", coef=[0.0], fit_intercept=True
        )
        oracle = GLMGradientOracle(copies, labels, multiplier, rng)
        multipliers, direction = oracle.values(w[:, None], slice(None), 4)
        _check_mean(multipliers[:, :1] * direction, target_scalar * z)


def test_printed_fresh_s_per_factor_is_biased():
    # Seed 001 Alg. 5 line 12 draws one s_k per factor; the proof of Theorem
    # 34 needs E_s P((t - s) / 2) with a single s. With independent s_k the
    # expectation is P((t - E s) / 2) instead. Noise-free Monte Carlo over s.
    r, t, degree = np.sqrt(2), 0.4, 3
    smooth = SmoothedQuantileDerivative(LOGISTIC, (-r, r), 0.5)
    terms = bernstein_product_terms(smooth.step, degree, (-r, r))
    rng = np.random.default_rng(0)
    n = 200_000
    k = degree * (degree + 1)  # one column per factor of the Bernstein terms
    single = smooth.sample(n, rng)[:, None] * np.ones((1, k))
    fresh = smooth.sample(n * k, rng).reshape(n, k)
    target = product_estimate(
        (t - smooth._nodes[:, None]) / 2 * np.ones((1, k)), terms
    ).mean()
    est_single = product_estimate((t - single) / 2, terms)
    est_fresh = product_estimate((t - fresh) / 2, terms)
    se = est_fresh.std() / np.sqrt(n)
    assert abs(est_single.mean() - target) <= 5 * est_single.std() / np.sqrt(n)
    assert abs(est_fresh.mean() - target) > 10 * se
