"""GLMLDPClassifier (seed 003 Alg. 5-6, seed 001 Alg. 5): approximation, oracle,
privacy, faithfulness, utility."""

import copy

import numpy as np
import pytest
from numpy.polynomial import Polynomial, chebyshev
from scipy.special import expit
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from sklearn_ldp import GLMLDPClassifier
from sklearn_ldp._glm import (
    LOSSES,
    GLMCopiesRandomizer,
    GLMGradientOracle,
    Lemma32Smoothing,
    _fission_copies,
    fission_lemma32_multiplier,
    fission_linear_multiplier,
    glm_risk,
    lemma32_quantile_table,
    linear_label_parts,
    paper_budgets,
    seed001_product_multiplier,
    seed003_product_multiplier,
)
from sklearn_ldp.accounting import gaussian_sigma
from sklearn_ldp.aggregation import (
    PolynomialGradientOracle,
    bernstein_product_terms,
    chebyshev_approximation,
    product_estimate,
)
from sklearn_ldp.randomizers import GaussianRecordRandomizer
from sklearn_ldp.utils import audit_randomizer, check_noise_random_state

LOGISTIC = LOSSES["logistic"]


def make_data(n, seed=0, n_classes=2):
    """Gaussian classes with correlated features, clipped to the unit ball.

    The data stream is distinct from RandomState(seed), which the estimators
    use for the users' noise (else the noise would replay the data's normals).
    """
    rng = np.random.RandomState([seed, 2024])
    labels = rng.randint(n_classes, size=n)
    angles = 2 * np.pi * np.arange(n_classes) / n_classes
    centers = 0.4 * np.column_stack([np.cos(angles), np.sin(angles)])
    X = centers[labels] + rng.standard_normal((n, 2)) @ np.array(
        [[0.25, 0.0], [0.15, 0.1]]
    )
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, labels


# -- approximation ---------------------------------------------------------


def test_chebyshev_coefficients_match_chebinterpolate():
    X, y = make_data(500)
    clf = GLMLDPClassifier(epsilon=1e6, degree=7, coef_norm=2.0, random_state=0)
    clf.fit(X, y)
    r = 2.0 * np.sqrt(2.0)  # coef_norm * ||(x, 1)||_max
    h2_prime, _ = linear_label_parts(LOGISTIC.derivative)
    # numpy on [-1, 1], then t = r u: the coefficient of t^j is that of u^j / r^j.
    in_u = chebyshev.cheb2poly(chebyshev.chebinterpolate(lambda u: h2_prime(r * u), 7))
    np.testing.assert_allclose(clf.poly_coef_[0], in_u / r ** np.arange(8), atol=1e-12)
    # h1'(a) = 1/2 for the logistic loss (seed 003, Section 4.1).
    np.testing.assert_allclose(clf.poly_coef_[1], [0.5] + [0.0] * 7, atol=1e-12)
    grid = np.linspace(-r, r, 2001)
    err = np.max(np.abs(Polynomial(clf.poly_coef_[0])(grid) - h2_prime(grid)))
    assert clf.approximation_error_ == pytest.approx(err)


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
    h2_prime, _ = linear_label_parts(LOGISTIC.derivative)
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


def test_lemma_32_representation_and_smoothing():
    interval = (-2.0, 2.0)
    t = np.linspace(*interval, 401)
    # f'(t) = f'(lo) + D P(s < t), s ~ Q, for the logistic loss.
    q, s = lemma32_quantile_table(LOGISTIC.derivative, interval)
    f_lo, f_hi = LOGISTIC.derivative(-2.0), LOGISTIC.derivative(2.0)
    cdf = np.interp(t, s, q)
    np.testing.assert_allclose(
        f_lo + (f_hi - f_lo) * cdf, LOGISTIC.derivative(t), atol=1e-6
    )
    # Hinge: Q is the point mass at the kink; squared hinge: uniform on [lo, 1].
    _, s_hinge = lemma32_quantile_table(LOSSES["hinge"].derivative, interval)
    np.testing.assert_allclose(s_hinge[1:-1], 1.0, atol=1e-12)
    q_sq, s_sq = lemma32_quantile_table(LOSSES["squared_hinge"].derivative, interval)
    np.testing.assert_allclose(s_sq[:-1], -2.0 + 3.0 * q_sq[:-1], atol=1e-9)
    # The smoothed derivative: within D * beta of f in value (integrated),
    # and F_beta'' <= D / (4 beta).
    beta = 0.25
    smooth = Lemma32Smoothing(LOSSES["hinge"].derivative, interval, beta)
    values = np.concatenate([[0.0], np.cumsum(np.diff(t) * smooth(t)[1:])])
    exact = np.maximum(0, 1 - t) - np.maximum(0, 1 - t[0])
    gap = values - exact
    assert np.ptp(gap) <= 2 * smooth.spread * beta
    assert np.max(np.diff(smooth(t)) / np.diff(t)) <= smooth.smoothness * 1.001


# -- unbiased oracle -------------------------------------------------------


def _replicated_oracle(x_clean, label, sigma_x, sigma_y, degree, multiplier, n, seed):
    """n noisy reports of the same record (improved mode) and its oracle."""
    rng = np.random.RandomState(seed)
    x = x_clean + sigma_x * rng.standard_normal((n, x_clean.size))
    labels = (label + sigma_y * rng.standard_normal(n))[:, None]
    copies = _fission_copies(x, degree, sigma_x, True, rng)
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
    h2p, h1p = linear_label_parts(LOGISTIC.derivative)
    coef2, coef1 = (chebyshev_approximation(h, 3, (-r, r)) for h in (h2p, h1p))
    oracle = _replicated_oracle(
        x_clean, label, 0.4, 0.5, 3, fission_linear_multiplier(coef2, coef1), 400_000, 0
    )
    multipliers, direction = oracle.values(w[:, None], slice(None), 1)
    a = z @ w
    target = (Polynomial(coef2)(a) - label * Polynomial(coef1)(a)) * z
    _check_mean(multipliers[:, :1] * direction, target)


def test_lemma32_oracle_is_unbiased_for_the_expectation_over_q():
    x_clean, w, label = np.array([0.6, 0.1]), np.array([0.5, -0.7, 0.3]), -1.0
    z = np.append(x_clean, 1.0)
    r = np.sqrt(2)
    smooth = Lemma32Smoothing(LOGISTIC.derivative, (-r, r), 0.5)
    coef = chebyshev_approximation(smooth.step, 3, (-r, r))
    oracle = _replicated_oracle(
        x_clean,
        label,
        0.3,
        0.3,
        3,
        fission_lemma32_multiplier(coef, smooth),
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
    h2p, h1p = linear_label_parts(LOGISTIC.derivative)
    coef2, coef1 = (chebyshev_approximation(h, degree, (-r, r)) for h in (h2p, h1p))
    a = z @ w
    smooth = Lemma32Smoothing(LOGISTIC.derivative, (-r, r), 0.5)
    terms = bernstein_product_terms(smooth.step, degree, (-r, r))
    poly = sum(
        weight
        * np.prod(
            [(o + sl * (label * a - smooth._nodes) / 2) ** c for o, sl, c in f], axis=0
        )
        for weight, f in terms
    ).mean()
    cases = [
        # seed 003 Alg. 6: 1 + p(p+1)/2 feature copies, p + 1 label copies.
        (
            1 + degree * (degree + 1) // 2,
            degree + 1,
            seed003_product_multiplier(coef2, coef1),
            Polynomial(coef2)(a) - label * Polynomial(coef1)(a),
        ),
        # seed 001 Alg. 5 (typo fixed, one s per user): 1 + d(d+1) copies.
        (
            1 + degree * (degree + 1),
            1 + degree * (degree + 1),
            seed001_product_multiplier(terms, smooth),
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
    smooth = Lemma32Smoothing(LOGISTIC.derivative, (-r, r), 0.5)
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


# -- privacy ---------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["seed003", "seed001"])
@pytest.mark.parametrize("degree", [1, 3])
def test_paper_budgets_compose_to_epsilon_delta(protocol, degree):
    x_budgets, y_budgets = paper_budgets(2.0, 1e-5, degree, protocol)
    budgets = x_budgets + y_budgets
    assert sum(e for e, _ in budgets) == pytest.approx(2.0)
    assert sum(d for _, d in budgets) == pytest.approx(1e-5)
    if protocol == "seed003":  # as printed
        assert x_budgets[0] == (0.5, 0.25e-5)
        assert len(x_budgets) == 1 + degree * (degree + 1) // 2
        assert y_budgets[0][0] == pytest.approx(2.0 / (4 * (degree + 1)))
    else:  # printed proportions, scaled down by 3
        assert x_budgets[0][0] / x_budgets[1][0] == pytest.approx(
            degree * (degree + 1) / 2
        )


def _likelihood_ratio_statistic(rand, record_a, record_b):
    """Optimal statistic for independent Gaussian releases: sum of diff / sigma^2 * report."""
    noiseless = copy.copy(rand)
    for name in ("sigma_x", "sigma_y"):
        setattr(noiseless, name, np.zeros_like(np.atleast_1d(getattr(rand, name))))
    means = [
        noiseless.randomize(np.array([r[0]], float), np.array([r[1]]), 0).as_matrix()[0]
        for r in (record_a, record_b)
    ]
    n_features, width = len(record_a[0]), means[0].size
    sigma_x = np.repeat(np.atleast_1d(rand.sigma_x), n_features)
    sigma_y = np.repeat(
        np.atleast_1d(rand.sigma_y), (width - sigma_x.size) // np.size(rand.sigma_y)
    )
    variance = np.concatenate([sigma_x, sigma_y]) ** 2
    direction = (means[0] - means[1]) / variance
    return lambda matrix: matrix @ direction


RECORDS = {
    2: (([50.0, 0.0], 0), ([-50.0, 0.0], 1)),
    3: (([50.0, 0.0], 0), ([-50.0, 0.0], 2)),
}


@pytest.mark.parametrize("n_classes", [2, 3])
def test_default_randomizer_is_one_joint_report_and_passes_the_audit(n_classes):
    rand = GLMLDPClassifier(epsilon=2.0).make_randomizer(
        2, classes=np.arange(n_classes)
    )
    assert isinstance(rand, GaussianRecordRandomizer)
    assert "degree" not in rand.get_config()  # the degree is a server-side choice
    a, b = RECORDS[n_classes]
    stat = _likelihood_ratio_statistic(rand, a, b)
    assert audit_randomizer(rand, a, b, statistic=stat, n_draws=100_000).passed
    rand.sigma_x /= 2.0  # broken: noise too small by 2
    rand.sigma_y /= 2.0
    stat = _likelihood_ratio_statistic(rand, a, b)
    assert not audit_randomizer(rand, a, b, statistic=stat, n_draws=100_000).passed


@pytest.mark.parametrize(
    "protocol, degree, n_classes, epsilon",
    [("seed003", 2, 2, 1.0), ("seed003", 1, 3, 4.0), ("seed001", 1, 3, 1.0)],
)
def test_paper_randomizer_passes_the_audit(protocol, degree, n_classes, epsilon):
    rand = GLMCopiesRandomizer(
        2,
        epsilon=epsilon,
        delta=1e-5,
        degree=degree,
        protocol=protocol,
        classes=np.arange(n_classes),
    )
    a, b = RECORDS[n_classes]
    stat = _likelihood_ratio_statistic(rand, a, b)
    assert audit_randomizer(rand, a, b, statistic=stat, n_draws=100_000).passed


@pytest.mark.parametrize("n_classes", [2, 3])
def test_audit_rejects_paper_randomizer_without_composition(n_classes):
    # A plausible bug: every copy calibrated to the full (eps, delta), as if
    # it were the only release (seed 003, p = 2: 7 releases).
    rand = GLMCopiesRandomizer(
        2,
        epsilon=1.0,
        delta=1e-5,
        degree=2,
        protocol="seed003",
        classes=np.arange(n_classes),
    )
    sens_y = 2.0 if n_classes == 2 else np.sqrt(2.0)
    rand.sigma_x[:] = gaussian_sigma(1.0, 1e-5, 2.0, "classic")
    rand.sigma_y[:] = gaussian_sigma(1.0, 1e-5, sens_y, "classic")
    a, b = RECORDS[n_classes]
    stat = _likelihood_ratio_statistic(rand, a, b)
    assert not audit_randomizer(rand, a, b, statistic=stat, n_draws=100_000).passed


def test_paper_report_layout_and_clipping():
    rand = GLMCopiesRandomizer(
        3,
        epsilon=1.0,
        delta=1e-5,
        degree=2,
        protocol="seed001",
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


# -- faithfulness ----------------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
def test_huge_epsilon_matches_logistic_regression(n_classes):
    X, y = make_data(3_000, n_classes=n_classes)
    alpha = 0.02
    clf = GLMLDPClassifier(
        epsilon=1e8,
        degree=16,
        coef_norm=4.0,
        alpha=alpha,
        max_iter=2000,
        random_state=0,
    ).fit(X, y)
    # LogisticRegression minimizes sum loss + ||w||^2 / (2 C): C = 1 / (alpha n).
    # Multiclass: one binary problem per class (one-vs-rest).
    ref_coef, ref_intercept = [], []
    for c in range(n_classes) if n_classes > 2 else [1]:
        lr = LogisticRegression(C=1.0 / (alpha * len(X)), tol=1e-10, max_iter=10_000)
        lr.fit(X, (y == c).astype(int))
        ref_coef.append(lr.coef_[0])
        ref_intercept.append(lr.intercept_[0])
    assert (
        np.linalg.norm(np.column_stack([ref_coef, ref_intercept]), axis=1).max() < 4.0
    )
    # Fixed point of the polynomial field vs the minimizer: alpha-strong
    # convexity gives ||w - w*|| <= err * ||z||_max / alpha (err = 1.5e-4 at
    # degree 16 on [-4 sqrt 2, 4 sqrt 2]: tol = 0.012), plus the solver's
    # tolerance (1e-6 relative) and the noise at eps = 1e8 (1e-3 covers both).
    tol = clf.approximation_error_ * np.sqrt(2) / alpha + 1e-3
    np.testing.assert_allclose(clf.coef_, ref_coef, atol=tol)
    np.testing.assert_allclose(clf.intercept_, ref_intercept, atol=tol)


def test_huge_epsilon_paper_and_lemma32_modes_minimize_their_losses():
    X, y = make_data(3_000)
    s = 2.0 * y - 1.0
    reference = GLMLDPClassifier(epsilon=1e8, degree=8, max_iter=500, random_state=0)
    w_ref = np.append(reference.fit(X, y).coef_, reference.intercept_)
    for params in [
        {"calibration": "paper", "degree": 3},
        {"calibration": "paper", "approximation": "bernstein", "degree": 3},
    ]:
        clf = GLMLDPClassifier(epsilon=1e8, max_iter=500, random_state=0, **params)
        clf.fit(X, y)
        # Within the approximation error of the logistic minimizer (same
        # argument as above with the curvature of the logistic risk).
        assert (
            glm_risk(clf.coef_, clf.intercept_, X, s)
            - glm_risk(w_ref[:2], w_ref[2:], X, s)
            <= 2 * clf.approximation_error_ * np.sqrt(2) * 2
        )
    # Lemma 32 with a fresh s per user: minimizes the smoothed loss F_beta,
    # within D beta of the logistic loss: compare risks.
    clf = GLMLDPClassifier(
        epsilon=1e8,
        approximation="lemma32",
        degree=6,
        smoothing=0.1,
        max_iter=500,
        random_state=0,
    ).fit(X, y)
    excess = glm_risk(clf.coef_, clf.intercept_, X, s) - glm_risk(
        w_ref[:2], w_ref[2:], X, s
    )
    assert excess <= 2 * 0.1 + clf.approximation_error_ * np.sqrt(2) * 2


def test_accuracy_rises_with_n_and_epsilon():
    # Excess test logistic risk, mean of 3 seeds. At degree 1 the oracle's
    # noise variance scales like sigma^4 / n with sigma ~ 1 / eps: eps 1 -> 8
    # at n = 50k, or n 2k -> 50k at eps = 8, divide it by > 25.
    X_test, y_test = make_data(20_000, seed=100)
    s_test = 2.0 * y_test - 1.0
    best = GLMLDPClassifier(epsilon=1e8, random_state=0).fit(X_test, y_test)
    best_risk = glm_risk(best.coef_, best.intercept_, X_test, s_test)

    def excess(n, epsilon):
        values = []
        for seed in range(3):
            X, y = make_data(n, seed)
            clf = GLMLDPClassifier(epsilon=epsilon, random_state=seed).fit(X, y)
            values.append(
                glm_risk(clf.coef_, clf.intercept_, X_test, s_test) - best_risk
            )
        return np.mean(values)

    small_n, small_eps, good = (
        excess(2_000, 8.0),
        excess(50_000, 1.0),
        excess(50_000, 8.0),
    )
    assert good < 0.5 * small_n and good < 0.5 * small_eps


# -- contract and input ----------------------------------------------------


def test_fit_is_randomize_then_fit_reports_multiclass():
    X, y = make_data(3_000, n_classes=3)
    labels = np.array(["a", "b", "c"])[y]
    est = GLMLDPClassifier(epsilon=1e5, degree=2, random_state=0).fit(X, labels)
    reports = est.make_randomizer(2, classes=["a", "b", "c"]).randomize(
        X, labels, check_noise_random_state(0)
    )
    server = clone(est).fit_reports(reports)
    np.testing.assert_allclose(server.coef_, est.coef_, atol=1e-3)
    np.testing.assert_array_equal(clone(est).fit_reports(reports).coef_, server.coef_)
    assert est.coef_.shape == (3, 2) and est.intercept_.shape == (3,)
    assert list(est.classes_) == ["a", "b", "c"] and est.score(X, labels) > 0.8
    proba = est.predict_proba(X[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(
        est.classes_[proba.argmax(axis=1)], est.predict(X[:5])
    )


def test_callable_loss_equals_builtin_and_proba_only_for_logistic():
    X, y = make_data(2_000)
    builtin = GLMLDPClassifier(epsilon=2.0, degree=2, random_state=0).fit(X, y)
    custom = GLMLDPClassifier(
        epsilon=2.0,
        degree=2,
        loss=LOGISTIC.derivative,
        derivative_lipschitz=0.25,
        random_state=0,
    ).fit(X, y)
    np.testing.assert_array_equal(custom.coef_, builtin.coef_)
    assert not hasattr(custom, "predict_proba")
    assert not hasattr(GLMLDPClassifier(loss="hinge"), "predict_proba")
    for loss in ("hinge", "squared_hinge", "huber"):
        clf = GLMLDPClassifier(epsilon=1e6, loss=loss, degree=4, random_state=0)
        assert clf.fit(X, y).score(X, y) > 0.85
    assert GLMLDPClassifier(loss="hinge").fit(X, y).smoothing_ == 0.5


def test_bad_input_is_refused():
    X, y = make_data(100)
    with pytest.raises(ValueError, match="smoothing must be a positive number"):
        GLMLDPClassifier(approximation="lemma32", smoothing=None).fit(X, y)
    with pytest.raises(ValueError, match="not convex"):
        GLMLDPClassifier(loss=lambda t: -np.asarray(t), derivative_lipschitz=1.0).fit(
            X, y
        )
    with pytest.raises(ValueError, match="derivative_lipschitz"):
        GLMLDPClassifier(loss=LOGISTIC.derivative, smoothing=None).fit(X, y)
    with pytest.raises(ValueError, match="degree='auto' needs calibration='analytic'"):
        GLMLDPClassifier(calibration="paper", degree="auto").fit(X, y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        GLMLDPClassifier().fit(np.full((4, 2), np.nan), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="epsilon"):
        GLMLDPClassifier(epsilon=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="delta"):
        GLMLDPClassifier(delta=1.0).fit(X, y)
    with pytest.raises(ValueError, match="degree"):
        GLMCopiesRandomizer(2, epsilon=1.0, delta=1e-5, degree=0, protocol="seed003")
    with pytest.raises(ValueError, match="protocol"):
        GLMCopiesRandomizer(2, epsilon=1.0, delta=1e-5, degree=1, protocol="x")
    reports = (
        GLMLDPClassifier(calibration="paper", degree=2)
        .make_randomizer(2, classes=[0, 1])
        .randomize(X, y, random_state=0)
    )
    with pytest.raises(ValueError, match="degree"):
        GLMLDPClassifier(calibration="paper", degree=1).fit_reports(reports)


def test_auto_degree_depends_on_the_noise():
    X, y = make_data(20_000)
    low = GLMLDPClassifier(epsilon=0.5, degree="auto", random_state=0).fit(X, y)
    high = GLMLDPClassifier(epsilon=1e6, degree="auto", random_state=0).fit(X, y)
    assert low.degree_ == 1
    assert high.degree_ == 6
