"""Accounting of the exponential mechanism (bounded range -> zCDP) and its calibration."""

import numpy as np
import pytest
from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon
from scipy.special import log_softmax

from sklearn_ldp.accounting import (
    DEFAULT_RDP_ORDERS,
    advanced_composition_epsilon,
    calibrate_exponential_selections,
    exponential_mechanism_rdp,
    exponential_mechanism_zcdp,
    rdp_to_epsilon,
    zcdp_to_epsilon,
)


def renyi_divergence(log_p, log_q, order):
    """Exact D_alpha(P || Q) of two categorical distributions (in logs)."""
    terms = order * log_p + (1.0 - order) * log_q
    return np.log(np.exp(terms - terms.max()).sum()) / (order - 1.0) + terms.max() / (
        order - 1.0
    )


def exponential_mechanism(scores, epsilon, sensitivity):
    return log_softmax(epsilon * scores / (2.0 * sensitivity))


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 2.0])
def test_bounded_range_rdp_bound_holds_exactly(epsilon):
    # Neighbouring score vectors: every score moves by at most the
    # sensitivity, in any direction (random signs, and the extreme
    # "half up, half down" shift). The exact Renyi divergence of the two
    # output distributions must stay below min(alpha eps^2 / 8, eps).
    rng = np.random.RandomState(0)
    sensitivity = 0.3
    orders = np.array([1.5, 2.0, 4.0, 16.0, 64.0, 256.0])
    bound = exponential_mechanism_rdp(epsilon, 1, orders=orders)
    for trial in range(200):
        m = rng.randint(2, 30)
        scores = rng.standard_normal(m) * rng.choice([0.1, 1.0, 10.0])
        if trial % 2:
            shift = rng.uniform(-1.0, 1.0, m)
        else:
            shift = np.where(np.arange(m) < m // 2, 1.0, -1.0)
        neighbour = scores + sensitivity * shift
        log_p = exponential_mechanism(scores, epsilon, sensitivity)
        log_q = exponential_mechanism(neighbour, epsilon, sensitivity)
        for order, limit in zip(orders, bound, strict=True):
            assert renyi_divergence(log_p, log_q, order) <= limit * (1 + 1e-9)
            assert renyi_divergence(log_q, log_p, order) <= limit * (1 + 1e-9)


def test_bounded_range_constant_is_nearly_attained():
    # Two candidates whose scores move apart by the full range: the RDP of
    # order 2 approaches eps^2 / 4 (= alpha eps^2 / 8), so the constant 1/8
    # cannot be improved for this mechanism; the pure-DP route (eps^2 / 2
    # zCDP) would be 4 times looser.
    epsilon, sensitivity = 0.01, 1.0
    log_p = exponential_mechanism(np.array([1.0, 0.0]), epsilon, sensitivity)
    log_q = exponential_mechanism(np.array([0.0, 1.0]), epsilon, sensitivity)
    ratio = renyi_divergence(log_p, log_q, 2.0) / (2.0 * epsilon**2 / 8.0)
    assert 0.99 < ratio <= 1.0 + 1e-9


def test_rdp_curve_and_conversion_match_dp_accounting():
    curve = exponential_mechanism_rdp(0.1, steps=50)
    np.testing.assert_allclose(
        curve, 50 * np.minimum(DEFAULT_RDP_ORDERS * 0.01 / 8, 0.1)
    )
    ours = rdp_to_epsilon(curve, 1e-5)[0]
    theirs = compute_epsilon(list(DEFAULT_RDP_ORDERS), list(curve), 1e-5)[0]
    assert ours == pytest.approx(theirs, rel=1e-12)


def test_zcdp_and_advanced_composition_closed_forms():
    assert exponential_mechanism_zcdp(0.4) == pytest.approx(0.02)
    eps0, k, delta = 0.05, 30, 1e-4
    expected = np.sqrt(2 * k * np.log(1 / delta)) * eps0 + k * eps0 * (np.exp(eps0) - 1)
    assert advanced_composition_epsilon(eps0, k, delta) == pytest.approx(expected)


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 2.0, 5.0])
@pytest.mark.parametrize("n_steps", [1, 20, 400])
def test_calibration_meets_the_target(epsilon, n_steps):
    delta = 1e-3
    rdp = calibrate_exponential_selections(epsilon, delta, n_steps)
    assert rdp.epsilon <= epsilon * (1 + 1e-9)
    assert rdp.epsilon == pytest.approx(epsilon, rel=1e-6)
    # re-certified from scratch
    curve = exponential_mechanism_rdp(rdp.step_epsilon, n_steps)
    assert compute_epsilon(list(DEFAULT_RDP_ORDERS), list(curve), delta)[0] <= (
        epsilon * (1 + 1e-9)
    )
    paper = calibrate_exponential_selections(epsilon, delta, n_steps, "paper")
    assert paper.step_epsilon == pytest.approx(
        epsilon / np.sqrt(8 * n_steps * np.log(1 / delta))
    )
    assert paper.epsilon <= epsilon
    # the zCDP route alone already certifies the printed split
    rho = n_steps * exponential_mechanism_zcdp(paper.step_epsilon)
    assert zcdp_to_epsilon(rho, delta) <= epsilon
    assert rdp.step_epsilon > paper.step_epsilon


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_steps"):
        calibrate_exponential_selections(1.0, 1e-5, 0)
    with pytest.raises(ValueError, match="method"):
        calibrate_exponential_selections(1.0, 1e-5, 10, method="basic")
    with pytest.raises(ValueError, match="epsilon"):
        calibrate_exponential_selections(0.0, 1e-5, 10)
    with pytest.raises(ValueError, match="delta"):
        calibrate_exponential_selections(1.0, 0.0, 10)
    with pytest.raises(ValueError, match="steps"):
        exponential_mechanism_rdp(1.0, steps=-1)
