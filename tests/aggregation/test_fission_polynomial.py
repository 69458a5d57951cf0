"""Gaussian fission and the elementary-symmetric polynomial estimator, by Monte Carlo."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import comb

from sklearn_ldp.aggregation import (
    SufficientStatistics,
    elementary_symmetric,
    fission_matrix,
    gaussian_fission,
    project_psd,
    unbiased_polynomial,
)


@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_fission_matrix_gives_independent_copies(k):
    mixing = fission_matrix(k)
    # Cov(N_j, N_j') / sigma^2 = 1 + (mixing mixing^T)[j, j'] must be k * identity.
    np.testing.assert_allclose(1.0 + mixing @ mixing.T, k * np.eye(k), atol=1e-12)


def test_fission_copies_are_independent_with_k_times_the_variance():
    n, k, sigma, x = 400_000, 4, 1.5, 0.7
    rng = np.random.RandomState(0)
    reports = x + sigma * rng.standard_normal(n)
    copies = gaussian_fission(reports, sigma, k, random_state=1)
    assert copies.shape == (k, n)
    # Means within 5 standard errors; variances within 2% (rel. sd ~ 0.2%).
    assert np.all(np.abs(copies.mean(axis=1) - x) < 5 * np.sqrt(k * sigma**2 / n))
    np.testing.assert_allclose(copies.var(axis=1), k * sigma**2, rtol=0.02)
    # Correlations: sd 1/sqrt(n) = 0.0016; 5 sd = 0.008.
    corr = np.corrcoef(copies)
    assert np.max(np.abs(corr - np.eye(k))) < 0.008
    # The copies average back to the report exactly (no information is created).
    np.testing.assert_allclose(copies.mean(axis=0), reports, atol=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=1, max_size=8))
def test_elementary_symmetric_matches_polynomial_roots(values):
    # prod (1 + u t) has coefficients e_j; numpy.poly gives prod (t - r) with roots r = -u.
    expected = np.poly(-np.asarray(values))
    np.testing.assert_allclose(
        elementary_symmetric(np.asarray([values]))[0], expected, rtol=1e-9, atol=1e-9
    )


def test_expectation_of_elementary_symmetric():
    a, d, n = 0.6, 4, 300_000
    U = a + 0.8 * np.random.RandomState(0).standard_normal((n, d))
    E = elementary_symmetric(U)
    for j in range(d + 1):
        target = comb(d, j) * a**j
        # e_j is a sum of C(d, j) products of j independent N(a, 0.64): bounded variance.
        sd = np.sqrt(E[:, j].var() / n)
        assert abs(E[:, j].mean() - target) < 5 * sd + 1e-12


def test_unbiased_polynomial_of_a_noisy_inner_product():
    rng = np.random.RandomState(1)
    n, p, d, sigma = 200_000, 3, 3, 0.5
    w = np.array([0.5, -0.3, 0.2])
    x = np.array([0.4, 0.1, -0.6])
    a = w @ x
    coef = np.array([0.2, -1.0, 0.5, 0.7])
    copies = x + sigma * rng.standard_normal((n, d, p))
    estimate = unbiased_polynomial(copies @ w, coef)
    exact = np.polynomial.polynomial.polyval(a, coef)
    assert abs(estimate.mean() - exact) < 5 * estimate.std() / np.sqrt(n)
    # The plug-in estimator P(u_1) is biased (E[u^2] = a^2 + var): the test can tell.
    plug_in = np.polynomial.polynomial.polyval(copies[:, 0] @ w, coef)
    assert abs(plug_in.mean() - exact) > 5 * plug_in.std() / np.sqrt(n)


def test_unbiased_polynomial_needs_enough_copies():
    with pytest.raises(ValueError, match="independent"):
        unbiased_polynomial(np.zeros((3, 2)), [1.0, 1.0, 1.0, 1.0])


def test_sufficient_statistics_debiasing_and_chunking():
    rng = np.random.RandomState(0)
    n, m, sigma = 200_000, 3, 2.0
    phi = rng.uniform(-1, 1, size=(n, m)) / np.sqrt(m)
    Z = phi + sigma * rng.standard_normal((n, m))
    stats = SufficientStatistics(m)
    stats.update(Z[:1000], np.ones(1000), chunk_size=97)
    stats.update(Z[1000:], np.ones(n - 1000), chunk_size=50_000)
    np.testing.assert_allclose(stats.gram, Z.T @ Z, rtol=1e-10)
    np.testing.assert_allclose(stats.moment, Z.sum(axis=0), rtol=1e-10)
    debiased = stats.debiased_gram(sigma, project=False) / n
    clean = phi.T @ phi / n
    # Each entry of Z^T Z / n - sigma^2 I has sd <= sqrt(E z^4 / n) ~ sigma^2 sqrt(3 / n).
    assert np.max(np.abs(debiased - clean)) < 5 * sigma**2 * np.sqrt(3 / n)


def test_project_psd():
    rng = np.random.RandomState(0)
    A = rng.standard_normal((5, 5))
    A = A + A.T
    P = project_psd(A)
    assert np.linalg.eigvalsh(P).min() > -1e-10
    psd = A @ A.T
    np.testing.assert_allclose(project_psd(psd), psd, atol=1e-10)
