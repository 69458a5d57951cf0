"""Gaussian calibration: exactness of the analytic mechanism, classic formula, joint calibration."""

import dp_accounting
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from sklearn_ldp.accounting import (
    analytic_gaussian_delta,
    analytic_gaussian_epsilon,
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_sigma,
    joint_gaussian_sigmas,
)


def profile_by_integration(sigma, epsilon, sensitivity):
    """delta(eps) = E_{P}[(1 - e^{eps - L})_+], L the privacy loss, by quadrature."""
    x = np.linspace(-40 * sigma, 40 * sigma + sensitivity, 400_001)
    p = norm.pdf(x, loc=sensitivity, scale=sigma)
    q = norm.pdf(x, loc=0.0, scale=sigma)
    integrand = np.maximum(p - np.exp(epsilon) * q, 0.0)
    return np.trapezoid(integrand, x)


@pytest.mark.parametrize(
    "sigma, epsilon", [(0.5, 1.0), (1.0, 0.5), (2.0, 2.0), (0.3, 8.0)]
)
def test_analytic_delta_matches_numerical_integration(sigma, epsilon):
    assert analytic_gaussian_delta(sigma, epsilon, 1.0) == pytest.approx(
        profile_by_integration(sigma, epsilon, 1.0), rel=1e-4, abs=1e-12
    )


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 2.0, 4.0, 8.0, 20.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-9])
def test_analytic_sigma_is_tight_and_valid(epsilon, delta):
    sigma = analytic_gaussian_sigma(epsilon, delta, sensitivity=2.0)
    assert analytic_gaussian_delta(sigma, epsilon, 2.0) <= delta
    # One part in 10^6 less noise already violates the target: the smallest sigma.
    assert analytic_gaussian_delta(sigma * (1 - 1e-6), epsilon, 2.0) > delta


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0])
@pytest.mark.parametrize("delta", [1e-4, 1e-6])
def test_analytic_sigma_agrees_with_dp_accounting_pld(epsilon, delta):
    sigma = analytic_gaussian_sigma(epsilon, delta, sensitivity=1.0)
    accountant = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
    accountant.compose(dp_accounting.GaussianDpEvent(sigma))
    # PLD discretization is pessimistic by a small amount.
    assert accountant.get_delta(epsilon) == pytest.approx(delta, rel=0.02)


def test_epsilon_is_inverse_of_sigma():
    for epsilon in [0.3, 1.0, 3.0]:
        sigma = analytic_gaussian_sigma(epsilon, 1e-6)
        assert analytic_gaussian_epsilon(sigma, 1e-6) == pytest.approx(
            epsilon, rel=1e-8
        )


def test_classic_formula_and_its_repair_at_large_epsilon():
    delta = 1e-5
    assert classic_gaussian_sigma(0.5, delta) == pytest.approx(
        np.sqrt(2 * np.log(1.25 / delta)) / 0.5
    )
    # Below eps = 1 the classic formula is valid and looser than the analytic one.
    assert gaussian_sigma(0.5, delta, method="classic") == classic_gaussian_sigma(
        0.5, delta
    )
    # At large eps the printed formula under-noises: it violates the guarantee ...
    printed = classic_gaussian_sigma(20.0, delta)
    assert analytic_gaussian_delta(printed, 20.0) > delta
    # ... so 'classic' mode is raised to the analytic value.
    assert gaussian_sigma(20.0, delta, method="classic") == analytic_gaussian_sigma(
        20.0, delta
    )


@settings(max_examples=30, deadline=None)
@given(
    st.floats(0.05, 10.0),
    st.lists(st.floats(0.1, 5.0), min_size=1, max_size=5),
    st.lists(st.floats(0.1, 5.0), min_size=5, max_size=5),
)
def test_joint_calibration_is_one_gaussian_mechanism(epsilon, sensitivities, weights):
    delta = 1e-5
    weights = weights[: len(sensitivities)]
    sigmas = joint_gaussian_sigmas(epsilon, delta, sensitivities, weights)
    # The unit-noise mechanism's sensitivity, checked against the exact profile.
    total = np.sqrt(np.sum((np.asarray(sensitivities) / sigmas) ** 2))
    assert analytic_gaussian_delta(1.0, epsilon, total) <= delta * (1 + 1e-9)
    assert analytic_gaussian_delta(1.0, epsilon, total * (1 + 1e-6)) > delta
    np.testing.assert_allclose(sigmas / np.asarray(weights), sigmas[0] / weights[0])


def test_joint_calibration_beats_basic_composition():
    k, delta = 8, 1e-5
    joint = joint_gaussian_sigmas(1.0, delta, [2.0] * k)[0]
    single = analytic_gaussian_sigma(1.0, delta, 2.0)
    basic = analytic_gaussian_sigma(1.0 / k, delta / k, 2.0)
    assert joint == pytest.approx(np.sqrt(k) * single)
    assert joint < basic / 2


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"epsilon": 0.0, "delta": 1e-5}, ValueError),
        ({"epsilon": -1.0, "delta": 1e-5}, ValueError),
        ({"epsilon": np.inf, "delta": 1e-5}, ValueError),
        ({"epsilon": 1.0, "delta": 0.0}, ValueError),
        ({"epsilon": 1.0, "delta": 1.0}, ValueError),
        ({"epsilon": 1.0, "delta": -0.1}, ValueError),
        ({"epsilon": "1", "delta": 1e-5}, TypeError),
    ],
)
def test_bad_privacy_parameters_are_refused(kwargs, error):
    with pytest.raises(error):
        analytic_gaussian_sigma(**kwargs)
