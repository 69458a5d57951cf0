"""The quantile representation of a convex loss derivative and its smoothing
(seed 001, Lemma 32 and the proof of Theorem 34)."""

import numpy as np
import pytest

from sklearn_ldp.aggregation import (
    SmoothedQuantileDerivative,
    derivative_quantile_table,
    smoothed_step_derivative,
)
from sklearn_ldp.losses import get_loss

LOGISTIC = get_loss("logistic").margin_derivative
HINGE = get_loss("hinge").margin_derivative
SQUARED_HINGE = get_loss("squared_hinge").margin_derivative


def test_quantile_representation_and_smoothing():
    interval = (-2.0, 2.0)
    t = np.linspace(*interval, 401)
    # f'(t) = f'(lo) + D P(s < t), s ~ Q, for the logistic loss.
    q, s = derivative_quantile_table(LOGISTIC, interval)
    f_lo, f_hi = LOGISTIC(-2.0), LOGISTIC(2.0)
    cdf = np.interp(t, s, q)
    np.testing.assert_allclose(f_lo + (f_hi - f_lo) * cdf, LOGISTIC(t), atol=1e-6)
    # Hinge: Q is the point mass at the kink; squared hinge: uniform on [lo, 1].
    _, s_hinge = derivative_quantile_table(HINGE, interval)
    np.testing.assert_allclose(s_hinge[1:-1], 1.0, atol=1e-12)
    q_sq, s_sq = derivative_quantile_table(SQUARED_HINGE, interval)
    np.testing.assert_allclose(s_sq[:-1], -2.0 + 3.0 * q_sq[:-1], atol=1e-9)
    # The smoothed derivative: within D * beta of f in value (integrated),
    # and F_beta'' <= D / (4 beta).
    beta = 0.25
    smooth = SmoothedQuantileDerivative(HINGE, interval, beta)
    values = np.concatenate([[0.0], np.cumsum(np.diff(t) * smooth(t)[1:])])
    exact = np.maximum(0, 1 - t) - np.maximum(0, 1 - t[0])
    gap = values - exact
    assert np.ptp(gap) <= 2 * smooth.spread * beta
    assert np.max(np.diff(smooth(t)) / np.diff(t)) <= smooth.smoothness * 1.001


def test_samples_of_q_follow_the_quantile_table():
    smooth = SmoothedQuantileDerivative(LOGISTIC, (-2.0, 2.0), 0.5)
    draws = smooth.sample(200_000, np.random.default_rng(0))
    assert draws.min() >= -2.0 and draws.max() <= 2.0
    # P(s < t) = (f'(t) - f'(lo)) / D: binomial proportion, 5 standard errors.
    for t in (-1.0, 0.0, 1.5):
        target = (LOGISTIC(t) - smooth.f_lo) / smooth.spread
        sd = np.sqrt(target * (1 - target) / draws.size)
        assert np.mean(draws < t) == pytest.approx(target, abs=5 * sd)


def test_smoothed_step_derivative():
    u = np.linspace(-5, 5, 1001)
    step = smoothed_step_derivative(u, 0.5)
    assert np.all((step > 0) & (step < 1)) and np.all(np.diff(step) > 0)
    assert smoothed_step_derivative(0.0, 0.5) == 0.5
    # h_beta'' <= 1 / (2 beta).
    assert np.max(np.gradient(step, u)) <= 1 / (2 * 0.5) + 1e-6
