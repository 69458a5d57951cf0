"""Report-only model selection: debiased fold moments, held-out risks, the choice."""

import numpy as np
import pytest

from sklearn_ldp.aggregation import (
    Candidate,
    FoldedMoments,
    constant_model,
    cross_validate,
    directional_signal_test,
    least_squares_path,
    refit_threshold,
    scaled_margin_risk,
    select_candidate,
    signal_test,
    squared_risk,
)
from sklearn_ldp.optim import minimize_quadratic_on_ball


def _reports(n, sigma_x, sigma_t, seed=0, signal=True):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3)) / np.sqrt(3)
    y = X @ [1.0, -0.5, 0.0] + 0.2 if signal else rng.uniform(-0.5, 0.5, n)
    Z = X + sigma_x * rng.standard_normal(X.shape)
    T = y + sigma_t * rng.standard_normal(n)
    return X, y, Z, T


def test_fold_moments_are_debiased_and_add_up():
    X, y, Z, T = _reports(200_000, 2.0, 1.0)
    folded = FoldedMoments(
        Z, T, sigma_x=2.0, sigma_t=1.0, random_state=np.random.default_rng(1)
    )
    assert folded.counts.sum() == 200_000 and np.ptp(folded.counts) <= 1
    moments = folded.moments(np.arange(folded.n_folds))
    clean = np.hstack([X, np.ones((len(X), 1))])
    # Entrywise standard error of the debiased Gram: about sigma^2 sqrt(2 / n).
    tol = 5 * 4.0 * np.sqrt(2.0 / len(X))
    np.testing.assert_allclose(moments.gram, clean.T @ clean / len(X), atol=tol)
    np.testing.assert_allclose(
        moments.cross[:, 0], clean.T @ y / len(X), atol=5 * 2.0 * 1.1 / np.sqrt(len(X))
    )
    np.testing.assert_allclose(moments.square, [np.mean(y**2)], atol=5 * 1.5 / 447)
    # The union of the other folds is the complement of one fold.
    rest = folded.moments(exclude=0)
    assert rest.n == len(X) - folded.counts[0]


def test_held_out_squared_risk_is_unbiased():
    X, y, Z, T = _reports(100_000, 1.0, 1.0)
    W = np.array([[0.8], [-0.4], [0.1], [0.2]])
    clean = np.mean((y - (X @ W[:3, 0] + W[3, 0])) ** 2)
    estimates = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        Zs = X + rng.standard_normal(X.shape)
        Ts = y + rng.standard_normal(len(y))
        folded = FoldedMoments(Zs, Ts, sigma_x=1.0, sigma_t=1.0, random_state=rng)
        estimates.append(squared_risk(folded.moments([0]), W))
    estimates = np.array(estimates)
    assert abs(estimates.mean() - clean) < 4 * estimates.std(ddof=1) / np.sqrt(20)


def test_scaled_margin_risk_is_scale_free_and_refuses_inverted_scorers():
    X, y, Z, T = _reports(50_000, 0.5, 0.5)
    labels = np.sign(y)
    Ts = labels + 0.5 * np.random.default_rng(3).standard_normal(len(y))
    folded = FoldedMoments(
        Z, Ts, sigma_x=0.5, sigma_t=0.5, random_state=np.random.default_rng(0)
    )
    train, held = folded.moments(exclude=0), folded.moments([0])
    W = np.array([[1.0], [-0.5], [0.0], [0.2]])
    risk = scaled_margin_risk(held, W, train, label_square=1.0)
    assert risk == pytest.approx(scaled_margin_risk(held, 7.0 * W, train, 1.0))
    assert risk < 1.0
    assert scaled_margin_risk(held, -W, train, label_square=1.0) == 1.0


def test_selection_prefers_the_model_unless_a_fallback_is_clearly_better():
    X, y, Z, T = _reports(100_000, 0.5, 0.5)
    folded = FoldedMoments(
        Z, T, sigma_x=0.5, sigma_t=0.5, random_state=np.random.default_rng(0)
    )
    good = Candidate(
        "least_squares", lambda m: least_squares_path(m, [1e-3])[0], {"alpha": 1e-3}
    )
    constant = Candidate("constant", constant_model, {})
    scores = cross_validate(folded, [constant, good], squared_risk)
    chosen, results = select_candidate(scores, [constant, good])
    assert chosen == 1 and results["selected"].tolist() == [False, True]
    assert results["mean_risk"][1] < results["mean_risk"][0]
    # Without signal the preferred constant stays.
    X, y, Z, T = _reports(100_000, 0.5, 0.5, signal=False)
    folded = FoldedMoments(
        Z, T, sigma_x=0.5, sigma_t=0.5, random_state=np.random.default_rng(0)
    )
    scores = cross_validate(folded, [constant, good], squared_risk)
    assert select_candidate(scores, [constant, good])[0] == 0


@pytest.mark.parametrize("signal", [True, False])
def test_signal_test_calibration(signal):
    # Under no correlation the p-values are roughly uniform: few below 0.05.
    p_values = []
    for seed in range(40):
        X, y, Z, T = _reports(20_000, 1.0, 1.0, seed=seed, signal=signal)
        folded = FoldedMoments(
            Z, T, sigma_x=1.0, sigma_t=1.0, random_state=np.random.default_rng(seed)
        )
        p_values.append(signal_test(folded.moments([0, 1, 2, 3, 4]), 1.0, 1.0))
    p_values = np.array(p_values)
    if signal:
        assert np.all(p_values < 1e-6)
    else:
        # Binomial(40, 0.05): P(more than 8 rejections) < 1e-3.
        assert np.sum(p_values < 0.05) <= 8


def test_quadratic_on_ball_matches_the_kkt_conditions():
    rng = np.random.default_rng(0)
    for _ in range(20):
        B = rng.standard_normal((5, 5))
        A = B @ B.T - 2.0 * np.eye(5)  # indefinite half the time
        b = rng.standard_normal(5)
        w = minimize_quadratic_on_ball(A, b, 1.0)
        assert np.linalg.norm(w) <= 1.0 + 1e-9
        # Global optimality against random feasible points.
        value = 0.5 * w @ A @ w - b @ w
        points = rng.standard_normal((2000, 5))
        points /= np.maximum(1.0, np.linalg.norm(points, axis=1, keepdims=True))
        others = 0.5 * np.einsum("ij,jk,ik->i", points, A, points) - points @ b
        assert value <= others.min() + 1e-9


def _unbalanced_reports(n, sigma_x, seed=0):
    # 80% of class +1; the classes differ along the first feature only.
    rng = np.random.default_rng(seed)
    labels = np.where(rng.uniform(size=n) < 0.8, 1.0, -1.0)
    X = rng.uniform(-0.3, 0.3, size=(n, 3))
    X[:, 0] = 0.25 * labels + 0.1 * rng.standard_normal(n)
    Z = X + sigma_x * rng.standard_normal(X.shape)
    return X, labels, Z


def test_refit_threshold_is_the_discriminant_along_the_direction():
    n, sigma_x = 400_000, 1.0
    X, labels, Z = _unbalanced_reports(n, sigma_x)
    folded = FoldedMoments(Z, labels, sigma_x=sigma_x, sigma_t=0.0, n_folds=1)
    moments = folded.moments([0])
    # A shrunk model: the right direction, an intercept fitted to the class
    # balance, so it predicts the majority class for every user.
    W = np.array([[0.2], [0.0], [0.0], [0.6]])
    assert np.all(X @ W[:3, 0] + W[3, 0] > 0)
    refit = refit_threshold(moments, W, sigma_x=sigma_x)
    np.testing.assert_array_equal(refit[:3], W[:3])  # the slope is kept
    # The clean linear discriminant along s = w^T x (||w|| = 0.2 here).
    s = X @ W[:3, 0]
    positive = labels > 0
    p = positive.mean()
    means = s[positive].mean(), s[~positive].mean()
    gap, midpoint = means[0] - means[1], 0.5 * (means[0] + means[1])
    within = p * s[positive].var() + (1 - p) * s[~positive].var()
    log_odds = np.log(p / (1 - p))
    discriminant = midpoint - within * log_odds / gap
    # Debiased moments of n reports: E[s] and the class means are known to
    # about sigma_x ||w|| / sqrt(n), Var(s) to about sigma_x^2 ||w||^2
    # sqrt(2 / n), which moves the plug-in threshold by log_odds / gap times
    # that; four of these standard deviations.
    norm = np.linalg.norm(W[:3, 0])
    first = sigma_x * norm / np.sqrt(n)
    second = sigma_x**2 * norm**2 * np.sqrt(2.0 / n) * log_odds / gap
    tol = 4.0 * np.hypot(first, second)
    plug_in = refit_threshold(moments, W)  # sigma_x = 0: no confidence bound
    assert -plug_in[3, 0] == pytest.approx(discriminant, abs=tol)
    # The lower confidence bound on the within-class variance only moves
    # the threshold from the discriminant's toward the midpoint (here up:
    # the intercept falls), never past it.
    assert refit[3, 0] <= plug_in[3, 0]
    assert -refit[3, 0] <= midpoint + 4.0 * first
    accuracy = np.mean(np.sign(s + refit[3, 0]) == labels)
    assert accuracy > 0.95  # the majority rate is 0.8


def test_refit_threshold_from_held_out_fits():
    X, labels, Z = _unbalanced_reports(100_000, 0.5)
    folded = FoldedMoments(
        Z, labels, sigma_x=0.5, sigma_t=0.0, random_state=np.random.default_rng(0)
    )
    everything = folded.moments()
    W = np.array([[0.2], [0.05], [0.0], [0.6]])
    # One pair of all reports with the scorer itself: the in-sample refit.
    np.testing.assert_allclose(
        refit_threshold(everything, W, 0.5, held_out=[(everything, W)]),
        refit_threshold(everything, W, 0.5),
    )
    # The held-out statistics are taken along each fit's unit direction:
    # the fits' scales do not matter, the final scorer's is kept.
    fits = [W + 0.01 * k for k in range(folded.n_folds)]
    held_out = [(folded.moments([k]), fits[k]) for k in range(folded.n_folds)]
    rescaled = [(moments, 3.0 * fit) for moments, fit in held_out]
    refit = refit_threshold(everything, W, 0.5, held_out=held_out)
    np.testing.assert_allclose(
        refit, refit_threshold(everything, W, 0.5, held_out=rescaled)
    )
    np.testing.assert_allclose(
        refit_threshold(everything, 2.0 * W, 0.5, held_out=held_out)[3],
        2.0 * refit[3],
    )
    # Fits inverted on their held-out folds: the scorer is left as it is.
    inverted = [(moments, -fit) for moments, fit in held_out]
    np.testing.assert_array_equal(
        refit_threshold(everything, W, 0.5, held_out=inverted), W
    )


def test_refit_threshold_leaves_inverted_empty_and_multioutput_scorers():
    X, labels, Z = _unbalanced_reports(100_000, 0.5)
    folded = FoldedMoments(Z, labels, sigma_x=0.5, sigma_t=0.0, n_folds=1)
    moments = folded.moments([0])
    inverted = np.array([[-0.2], [0.0], [0.0], [0.6]])
    np.testing.assert_array_equal(refit_threshold(moments, inverted, 0.5), inverted)
    empty = np.array([[0.0], [0.0], [0.0], [0.6]])
    np.testing.assert_array_equal(refit_threshold(moments, empty, 0.5), empty)
    two = np.hstack([inverted, -inverted])
    np.testing.assert_array_equal(refit_threshold(moments, two, 0.5), two)


def test_directional_signal_test_is_calibrated_under_no_signal():
    # The 5 held-out fold terms share reports (each fold is in the other
    # folds' fits): taken as independent, the statistic's variance was half
    # its value and the test rejected in 10.0% of these draws at level 0.05
    # and 15.7% at level 0.1 (3.0% and 7.8% with the factor 2). Calibrated,
    # the rejections are at most Binomial(draws, level): at most 3 standard
    # errors above the level (one-sided: the rule keeps the intercept-only
    # model unless the test rejects; the self-normalized statistic is
    # conservative when the fitted direction has few effective dimensions).
    draws, n, d, sigma = 600, 2000, 20, 1.0
    ridge = 2.0 * sigma**2 * np.sqrt(d / n)  # the GLM's penalty
    p_values = []
    for seed in range(draws):
        rng = np.random.default_rng(seed)
        X = rng.uniform(-1, 1, size=(n, d)) / np.sqrt(d)
        labels = rng.choice([-1.0, 1.0], size=n)
        folded = FoldedMoments(
            X + sigma * rng.standard_normal(X.shape),
            labels + sigma * rng.standard_normal(n),
            sigma_x=sigma,
            sigma_t=sigma,
        )
        p_values.append(
            directional_signal_test(folded, lambda m: least_squares_path(m, [ridge])[0])
        )
    for level in (0.05, 0.1):
        rate = np.mean(np.array(p_values) < level)
        assert rate <= level + 3.0 * np.sqrt(level * (1.0 - level) / draws)
