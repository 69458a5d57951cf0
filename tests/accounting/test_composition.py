"""zCDP and RDP accounting, checked against closed forms and dp_accounting."""

import dp_accounting
import numpy as np
import pytest

from sklearn_ldp.accounting import (
    DEFAULT_RDP_ORDERS,
    calibrate_noise_multiplier,
    gaussian_zcdp,
    rdp_gaussian,
    rdp_subsampled_gaussian,
    rdp_to_epsilon,
    zcdp_from_epsilon,
    zcdp_to_epsilon,
)

ORDERS = list(DEFAULT_RDP_ORDERS)


def dp_accounting_epsilon(event, count, delta):
    accountant = dp_accounting.rdp.RdpAccountant(orders=ORDERS)
    accountant.compose(event, count)
    return accountant.get_epsilon(delta)


@pytest.mark.parametrize("q", [0.001, 0.01, 0.1, 0.5])
@pytest.mark.parametrize("z", [0.7, 1.0, 2.0, 5.0])
def test_subsampled_gaussian_matches_dp_accounting(q, z):
    steps, delta = 500, 1e-5
    ours, _ = rdp_to_epsilon(rdp_subsampled_gaussian(q, z, steps), delta)
    theirs = dp_accounting_epsilon(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)),
        steps,
        delta,
    )
    assert ours == pytest.approx(theirs, rel=1e-9)


def test_full_batch_is_the_plain_gaussian_closed_form():
    np.testing.assert_allclose(
        rdp_subsampled_gaussian(1.0, 3.0, steps=7, orders=[2, 10]),
        7 * np.array([2, 10]) / 18,
    )
    np.testing.assert_allclose(
        rdp_gaussian(3.0, orders=[2, 10]), np.array([2, 10]) / 18
    )


def test_subsampling_amplifies():
    assert np.all(rdp_subsampled_gaussian(0.01, 1.0) < rdp_gaussian(1.0))


def test_calibrated_noise_is_the_smallest_that_meets_the_target():
    q, steps, epsilon, delta = 0.02, 2000, 1.0, 1e-5

    def rdp_of(z):
        return rdp_subsampled_gaussian(q, z, steps)

    z = calibrate_noise_multiplier(epsilon, delta, rdp_of)
    assert rdp_to_epsilon(rdp_of(z), delta)[0] <= epsilon
    assert rdp_to_epsilon(rdp_of(z * (1 - 1e-4)), delta)[0] > epsilon
    theirs = dp_accounting_epsilon(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)),
        steps,
        delta,
    )
    assert theirs == pytest.approx(epsilon, rel=1e-6)


def test_zcdp_closed_forms():
    assert gaussian_zcdp(2.0, 4.0) == pytest.approx(2.0)
    rho, delta = 0.05, 1e-6
    eps = zcdp_to_epsilon(rho, delta)
    assert eps == pytest.approx(rho + 2 * np.sqrt(rho * np.log(1 / delta)))
    assert zcdp_from_epsilon(eps, delta) == pytest.approx(rho, rel=1e-12)


def test_zcdp_conversion_is_valid_against_the_exact_gaussian():
    """rho-zCDP -> (eps, delta) must never promise more than the exact Gaussian gives."""
    from sklearn_ldp.accounting import analytic_gaussian_delta

    for sigma in [0.5, 1.0, 3.0, 10.0]:
        rho = gaussian_zcdp(sigma, 1.0)
        eps = zcdp_to_epsilon(rho, 1e-5)
        assert analytic_gaussian_delta(sigma, eps, 1.0) <= 1e-5


def test_zcdp_composition_matches_dp_accounting_gaussian_rdp():
    # T full-batch Gaussian steps: zCDP rho = T / (2 z^2) is the RDP slope.
    z, steps = 4.0, 50
    rho = steps * gaussian_zcdp(z, 1.0)
    accountant = dp_accounting.rdp.RdpAccountant(orders=ORDERS)
    accountant.compose(dp_accounting.GaussianDpEvent(z), steps)
    # RDP conversion with many orders is at least as tight as the zCDP formula.
    assert accountant.get_epsilon(1e-5) <= zcdp_to_epsilon(rho, 1e-5) + 1e-9


def test_bad_inputs():
    with pytest.raises(ValueError):
        rdp_subsampled_gaussian(0.0, 1.0)
    with pytest.raises(ValueError):
        rdp_subsampled_gaussian(0.1, 1.0, orders=[1.5])
    with pytest.raises(ValueError):
        rdp_to_epsilon(np.ones(3), 1e-5, orders=[2, 3])
    with pytest.raises(ValueError):
        zcdp_to_epsilon(-1.0, 1e-5)


def test_advanced_composition_of_a_huge_epsilon_is_vacuous_not_an_overflow():
    import warnings

    from sklearn_ldp.accounting import (
        advanced_composition_epsilon,
        calibrate_exponential_selections,
    )

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert advanced_composition_epsilon(1e6, 10, 1e-5) == np.inf
        # The paper calibration then certifies by the other bounds.
        paper = calibrate_exponential_selections(1e9, 1e-5, 100, method="paper")
    assert np.isfinite(paper.epsilon) and paper.epsilon <= 1e9
    assert paper.step_epsilon == 1e9 / 100  # Lemma 1 fails there: epsilon / T
