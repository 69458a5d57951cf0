"""Ridge on debiased statistics and its report-only cross-validated risk."""

import numpy as np
from numpy.testing import assert_allclose

from sklearn_ldp.aggregation import (
    Candidate,
    FoldedMoments,
    Moments,
    SufficientStatistics,
    cross_validate,
    debiased_cv_risk,
    solve_ridge,
    squared_risk,
)
from sklearn_ldp.aggregation._ridge import (
    centred_moments,
    centred_ridge,
    held_out_shrinkage,
    james_stein_ridge,
    paired_risk_variance,
    preferred_model,
)
from sklearn_ldp.aggregation._selection import signal_statistic
from sklearn_ldp.randomizers import (
    FOURIER_FEATURE_NORM,
    GaussianRecordRandomizer,
    RandomFourierFeatures,
)


def nonlinear_data(n, d=2, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1.5, 1.5, size=(n, d))
    y = np.sin(2.0 * X[:, 0]) * np.cos(X[:, 1]) + 0.1 * rng.standard_normal(n)
    return X, np.clip(y, -1.0, 1.0)


def test_solve_ridge_is_the_penalized_least_squares_solution():
    rng = np.random.RandomState(0)
    A = rng.standard_normal((40, 3))
    quadratic, linear = A.T @ A / 40, A.T @ rng.standard_normal(40) / 40
    w = solve_ridge(quadratic, linear, 0.5)
    assert_allclose((quadratic + 0.5 * np.eye(3)) @ w, linear, atol=1e-12)
    assert_allclose(quadratic, A.T @ A / 40)  # the input is left untouched


def test_cv_risk_is_unbiased_for_clean_held_out_loss():
    # Fold statistics of clean data plus noise: the risk estimate averaged
    # over independent noise draws matches the clean held-out loss of the
    # same (noise-dependent) models only in expectation, so compare with
    # the noise-free computation on clean statistics at sigma = 0 and a
    # large alpha (stable w); tolerance 4 standard errors of the mean.
    n, m, R = 400, 4, 300
    X, y = nonlinear_data(n, d=2, seed=6)
    rand = GaussianRecordRandomizer(
        2,
        epsilon=20.0,
        delta=1e-5,
        data_norm=None,
        y_bound=1.0,
        feature_map=RandomFourierFeatures(2, m, seed=0),
        feature_norm=FOURIER_FEATURE_NORM,
    )
    phi, target = rand.features(X), rand.targets(y)
    folds_clean = [SufficientStatistics(m) for _ in range(5)]
    for k, fold in enumerate(folds_clean):
        fold.update(phi[k::5], target[k::5])
    sq_clean = np.array([target[k::5] @ target[k::5] for k in range(5)])
    alphas = np.array([1.0, 10.0])
    clean, _ = debiased_cv_risk(folds_clean, sq_clean, 0.0, 0.0, alphas)
    rng = np.random.RandomState(0)
    estimates, errors = [], []
    for _ in range(R):
        Z = phi + rand.sigma_x * rng.standard_normal(phi.shape)
        v = target + rand.sigma_y * rng.standard_normal(n)
        folds = [SufficientStatistics(m) for _ in range(5)]
        for k, fold in enumerate(folds):
            fold.update(Z[k::5], v[k::5])
        sq = np.array([v[k::5] @ v[k::5] for k in range(5)])
        risk, std_error = debiased_cv_risk(
            folds, sq, rand.sigma_x, rand.sigma_y, alphas
        )
        estimates.append(risk)
        errors.append(std_error)
    estimates = np.array(estimates)
    # With alpha >= 1 the models barely move with the training noise, so the
    # mean estimate is close to the clean held-out loss.
    assert_allclose(
        estimates.mean(axis=0),
        clean,
        atol=4 * estimates.std(axis=0).max() / np.sqrt(R) + 0.02 * clean.max(),
    )
    # The stated standard error is of the right size (within a factor 2).
    ratio = np.mean(errors, axis=0) / estimates.std(axis=0)
    assert np.all((ratio > 0.5) & (ratio < 2.0)), ratio


def test_cv_risk_is_nan_when_no_fold_can_be_held_out():
    folds = [SufficientStatistics(2) for _ in range(3)]
    folds[0].update(np.ones((4, 2)), np.ones(4))
    risk, std_error = debiased_cv_risk(folds, np.array([4.0, 0, 0]), 1.0, 1.0, [1.0])
    assert np.isnan(risk).all() and np.isnan(std_error).all()


def _gaussian_reports(n, sigma_x, sigma_t, seed):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, 3)) @ np.array(
        [[0.5, 0.1, 0.0], [0.0, 0.4, 0.2], [0.0, 0.0, 0.3]]
    ) + np.array([0.2, -0.1, 0.0])
    w = np.array([0.8, -0.5, 0.3])
    y = X @ w + 0.1 + 0.2 * rng.standard_normal(n)
    Z = X + sigma_x * rng.standard_normal(X.shape)
    v = y + sigma_t * rng.standard_normal(n)
    return Z, v, np.append(w, 0.1)[:, None]


def test_paired_risk_variance_is_the_variance_of_a_reports_difference():
    # Gaussian records and noise: the formula (Isserlis) is exact, so it
    # matches the sample variance of (v - s)^2 - (v - s')^2 over the same
    # reports. That variance's relative standard error is sqrt((kurtosis -
    # 1) / n) < sqrt(20 / 4e5) = 0.7% (a product of Gaussians has kurtosis
    # below 21): rtol 5% is more than 7 of them.
    n = 400_000
    Z, v, w = _gaussian_reports(n, sigma_x=1.5, sigma_t=1.0, seed=0)
    folded = FoldedMoments(Z, v, sigma_x=1.5, sigma_t=1.0, n_folds=2)
    W, W_other = 0.5 * w, w + np.array([[0.2], [0.0], [-0.3], [0.05]])
    features = np.hstack([Z, np.ones((n, 1))])
    difference = (v - features @ W[:, 0]) ** 2 - (v - features @ W_other[:, 0]) ** 2
    expected = paired_risk_variance(folded.moments(), W, W_other, 1.5, 1.0)
    assert_allclose(expected, difference.var(), rtol=0.05)


def _scores(folded, Ws):
    candidates = [Candidate("model", None, {}) for _ in Ws]
    fitted = {}
    scores = cross_validate(
        folded, candidates, squared_risk, lambda c, k: Ws[c], fitted=fitted
    )
    return scores, fitted


def test_preferred_model_keeps_the_first_unless_the_reports_see_it_lose():
    Z, v, w = _gaussian_reports(50_000, sigma_x=2.0, sigma_t=1.5, seed=3)
    folded = FoldedMoments(Z, v, sigma_x=2.0, sigma_t=1.5)
    # Clean risks 0.05^2 Var(w^T x) = 0.0004 apart (0.95 w against w), below
    # the noise of the held-out difference (standard error 0.0028 here; on
    # these reports the first is 0.0032 worse): the preferred first model is
    # kept, by two standard errors, not by one, nor by the lowest risk.
    close = [0.95 * w, w]
    scores, fitted = _scores(folded, close)
    assert scores[0].mean() > scores[1].mean()
    assert preferred_model(folded, scores, fitted) == 0
    assert preferred_model(folded, scores, fitted, n_standard_errors=1.0) == 1
    assert preferred_model(folded, scores, fitted, n_standard_errors=0.0) == 1
    # The intercept-only model first: worse by Var(w^T x) = 0.15, which the
    # reports see (about 50 standard errors); the lowest risk is chosen.
    far = [np.array([[0.0], [0.0], [0.0], [0.1]]), w]
    scores, fitted = _scores(folded, far)
    assert preferred_model(folded, scores, fitted) == 1


def test_james_stein_ridge_scales_the_ridge_model_by_the_positive_part_factor():
    Z, v, _ = _gaussian_reports(5_000, sigma_x=2.0, sigma_t=1.5, seed=5)
    moments = FoldedMoments(Z, v, sigma_x=2.0, sigma_t=1.5).moments()
    ridge = centred_ridge(moments, 0.3)
    shrunk = james_stein_ridge(moments, 0.3, sigma_x=2.0, sigma_t=1.5)
    statistic = signal_statistic(centred_moments(moments), 2.0, 1.5)
    factor = max(0.0, 1.0 - (3 - 2) / statistic)
    assert 0.0 < factor < 1.0
    assert_allclose(shrunk[:3], factor * ridge[:3], rtol=1e-12)
    # The intercept is refitted: the model predicts the mean of y at the mean of x.
    mean_x, mean_y = moments.gram[:3, 3], moments.cross[3, 0]
    assert_allclose(mean_x @ shrunk[:3, 0] + shrunk[3, 0], mean_y, rtol=1e-12)
    # A cross moment whose statistic is below d - 2 = 1 (y centred, so the
    # statistic scales with its square): the intercept-only model.
    cross = moments.cross.copy()
    cross[3] = 0.0
    centred = Moments(moments.gram, cross, moments.square, moments.n)
    statistic = signal_statistic(centred_moments(centred), 2.0, 1.5)
    cross[:3] *= np.sqrt(0.5 / statistic)
    weak = Moments(moments.gram, cross, moments.square, moments.n)
    assert_allclose(signal_statistic(centred_moments(weak), 2.0, 1.5), 0.5)
    W = james_stein_ridge(weak, 0.3, sigma_x=2.0, sigma_t=1.5)
    assert np.all(W == 0.0)


def test_james_stein_ridge_loses_less_than_ridge_when_y_ignores_x():
    """Five features, ``y`` independent of ``x``: every model's excess clean
    risk is ``w^T Cov(x) w``. James-Stein's factor is below 1 (and 0 when
    the statistic is below ``d - 2``, about 30% of the draws), so its mean
    excess risk over 60 draws is below the ridge's by more than 3 standard
    errors of the paired difference."""
    rng = np.random.RandomState(11)
    n, d, sigma_x, sigma_t = 20_000, 5, 3.0, 2.0
    covariance = np.eye(d) / 3.0  # x ~ U[-1, 1]^5
    excess = []
    for _ in range(60):
        X = rng.uniform(-1, 1, (n, d))
        y = rng.uniform(-1, 1, n)
        Z = X + sigma_x * rng.standard_normal(X.shape)
        v = y + sigma_t * rng.standard_normal(n)
        moments = FoldedMoments(Z, v, sigma_x=sigma_x, sigma_t=sigma_t).moments()
        alpha = sigma_x**2 * np.sqrt(d / n)
        ridge = centred_ridge(moments, alpha)[:d, 0]
        shrunk = james_stein_ridge(
            moments, alpha, sigma_x=sigma_x, sigma_t=sigma_t
        )[:d, 0]
        excess.append([ridge @ covariance @ ridge, shrunk @ covariance @ shrunk])
    excess = np.array(excess)
    difference = excess[:, 0] - excess[:, 1]
    assert np.all(difference >= 0.0)
    assert difference.mean() > 3 * difference.std(ddof=1) / np.sqrt(len(difference))
    # Zero in about 30% of the draws: Binomial(60, 0.3) is above 6 with
    # probability 0.999.
    assert np.sum(excess[:, 1] == 0.0) > 6


def _fold_ridge(folded, alpha):
    return lambda k: centred_ridge(folded.moments(exclude=k), alpha)


def test_held_out_shrinkage_is_about_1_with_a_strong_signal():
    """Fold models close to the truth: ``C = V`` up to their overfitting
    (``d / n``), so the factor ``(C^ / V^) (1 - 1 / z^2)``, ``z = C^ / s``,
    is at least ``(1 - 4 / z) (1 - 1 / z^2) > 1 - 5 / z`` unless ``C^`` is
    4 of its standard errors ``s`` below ``C`` (probability 3e-5)."""
    Z, v, _ = _gaussian_reports(20_000, sigma_x=0.5, sigma_t=0.5, seed=3)
    folded = FoldedMoments(Z, v, sigma_x=0.5, sigma_t=0.5)
    factor, statistic = held_out_shrinkage(folded, _fold_ridge(folded, 1e-6))
    assert statistic > 20.0  # a strong signal, in units of its noise
    assert 1.0 - 5.0 / statistic < factor <= 1.0


def test_held_out_shrinkage_keeps_a_model_at_most_once_in_six_when_y_ignores_x():
    """``y`` independent of ``x``: ``z = C^ / s`` has standard deviation 1
    (the docstring's variance, each pair of folds counted twice; without
    the 2 it is 1.39), so the factor, positive when ``z > 1``, is positive
    in about ``P(Z > 1) = 0.159`` of the draws or fewer (``C^`` is a
    U-statistic, skewed: its median is below 0). Over 200 draws: the
    standard deviation of ``z`` within 0.2 (4 standard errors, ``sqrt(1 /
    400)``) of 1, the share of positive factors below 0.159 plus 4 binomial
    standard errors (0.026)."""
    rng = np.random.RandomState(4)
    n, d, sigma_x, sigma_t = 5_000, 3, 1.0, 1.0
    factors, statistics = [], []
    for _ in range(200):
        X = rng.uniform(-1, 1, (n, d))
        y = rng.uniform(-1, 1, n)
        Z = X + sigma_x * rng.standard_normal(X.shape)
        v = y + sigma_t * rng.standard_normal(n)
        folded = FoldedMoments(Z, v, sigma_x=sigma_x, sigma_t=sigma_t)
        alpha = sigma_x**2 * np.sqrt(d / n)
        factor, statistic = held_out_shrinkage(folded, _fold_ridge(folded, alpha))
        factors.append(factor)
        statistics.append(statistic)
    factors, statistics = np.array(factors), np.array(statistics)
    assert np.all((factors >= 0.0) & (factors <= 1.0))
    assert np.all((factors > 0.0) == (statistics > 1.0))
    assert abs(statistics.std(ddof=1) - 1.0) < 0.2
    assert np.mean(factors > 0.0) < 0.159 + 4 * np.sqrt(0.159 * 0.841 / 200)


def test_held_out_shrinkage_without_a_held_out_fold_is_0():
    Z, v, _ = _gaussian_reports(100, sigma_x=0.5, sigma_t=0.5, seed=0)
    folded = FoldedMoments(Z, v, sigma_x=0.5, sigma_t=0.5)
    assert held_out_shrinkage(folded, lambda k: None) == (0.0, 0.0)
