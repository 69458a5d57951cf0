"""Ridge on debiased statistics and its report-only cross-validated risk."""

import numpy as np
from numpy.testing import assert_allclose

from sklearn_ldp.aggregation import SufficientStatistics, debiased_cv_risk, solve_ridge
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
