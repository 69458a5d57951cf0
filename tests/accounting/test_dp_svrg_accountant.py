"""The DP-SVRG / DP-GD run accountant against dp_accounting and first principles."""

import dp_accounting as dpa
import numpy as np
import pytest
from dp_accounting import rdp as dpa_rdp
from scipy.special import logsumexp

from sklearn_ldp.accounting import (
    DEFAULT_RDP_ORDERS,
    calibrate_dp_gd,
    calibrate_dp_svrg,
    dp_svrg_rdp,
    dp_svrg_snapshot_multipliers,
    rdp_subsampled_gaussian,
    rdp_to_epsilon,
    zcdp_from_epsilon,
    zcdp_to_epsilon,
)


def svrg_event(noise_multiplier, sampling_rate, snapshot_multipliers, n_inner_steps):
    inner = dpa.PoissonSampledDpEvent(
        sampling_rate, dpa.GaussianDpEvent(noise_multiplier)
    )
    snapshots = [dpa.GaussianDpEvent(float(z)) for z in snapshot_multipliers]
    return dpa.ComposedDpEvent(
        [dpa.SelfComposedDpEvent(inner, int(n_inner_steps)), *snapshots]
    )


def dpa_epsilon(event, delta):
    accountant = dpa_rdp.RdpAccountant(orders=list(DEFAULT_RDP_ORDERS))
    accountant.compose(event)
    return accountant.get_epsilon(delta)


@pytest.mark.parametrize(
    "epsilon, delta, rate, lengths",
    [
        (1.0, 1e-5, 0.01, [100] * 5),  # DP-SVRG
        (0.1, 1e-6, 0.002, [50, 100, 200, 400]),  # DP-SVRG++ doubling
        (2.0, 1e-5, 1.0, [3, 3]),  # full batch inner steps
    ],
)
def test_svrg_epsilon_matches_dp_accounting(epsilon, delta, rate, lengths):
    noise = calibrate_dp_svrg(epsilon, delta, rate, lengths)
    event = svrg_event(
        noise.noise_multiplier,
        noise.sampling_rate,
        noise.snapshot_noise_multipliers,
        noise.n_inner_steps,
    )
    reference = dpa_epsilon(event, delta)
    assert reference == pytest.approx(noise.epsilon, rel=1e-9)
    assert reference <= epsilon * (1 + 1e-9)


@pytest.mark.parametrize("rate, lengths", [(0.01, [100] * 5), (0.05, [10, 20, 40])])
def test_svrg_calibration_is_the_smallest_noise(rate, lengths):
    epsilon, delta = 0.5, 1e-5
    z = calibrate_dp_svrg(epsilon, delta, rate, lengths).noise_multiplier

    def eps_at(multiplier):
        return rdp_to_epsilon(dp_svrg_rdp(multiplier, rate, lengths), delta)[0]

    assert eps_at(z) <= epsilon
    # 1e-6 relative less noise already breaks the target: the bisection
    # stopped at the boundary, not at some comfortable over-estimate.
    assert eps_at(z * (1 - 1e-6)) > epsilon
    # and independently: dp_accounting agrees the slightly smaller z fails.
    smaller = z * (1 - 1e-6)
    event = svrg_event(
        smaller,
        rate,
        dp_svrg_snapshot_multipliers(smaller, rate, lengths),
        sum(lengths),
    )
    assert dpa_epsilon(event, delta) > epsilon


def test_snapshot_noise_matches_averaged_inner_noise():
    # z_mu,s 2G/n must equal the std of the mean of m_s inner noises,
    # z 2G / (q n sqrt(m_s)), when H = G.
    n, G, z, q, lengths = 10_000, 1.0, 1.3, 0.02, np.array([5, 50, 500])
    snapshot_std = dp_svrg_snapshot_multipliers(z, q, lengths) * 2 * G / n
    averaged_inner_std = z * 2 * G / (q * n) / np.sqrt(lengths)
    np.testing.assert_allclose(snapshot_std, averaged_inner_std, rtol=1e-12)


def test_svrg_rdp_is_inner_plus_snapshots():
    z, q, lengths = 1.7, 0.03, [10, 20]
    inner = rdp_subsampled_gaussian(q, z, 30)
    snapshots = sum(
        DEFAULT_RDP_ORDERS / (2 * zs**2)
        for zs in dp_svrg_snapshot_multipliers(z, q, lengths)
    )
    np.testing.assert_allclose(dp_svrg_rdp(z, q, lengths), inner + snapshots)


@pytest.mark.parametrize("epsilon, n_steps", [(0.1, 10), (1.0, 100), (5.0, 3)])
def test_gd_rdp_matches_dp_accounting_and_is_minimal(epsilon, n_steps):
    delta = 1e-5
    noise = calibrate_dp_gd(epsilon, delta, n_steps)
    event = dpa.SelfComposedDpEvent(
        dpa.GaussianDpEvent(noise.noise_multiplier), n_steps
    )
    assert dpa_epsilon(event, delta) == pytest.approx(noise.epsilon, rel=1e-9)
    assert noise.epsilon <= epsilon
    smaller = dpa.SelfComposedDpEvent(
        dpa.GaussianDpEvent(noise.noise_multiplier * (1 - 1e-6)), n_steps
    )
    assert dpa_epsilon(smaller, delta) > epsilon


def test_gd_paper_zcdp_calibration():
    # Seed 004 Alg. 1 with the typo fixed: sigma^2 = 2 L^2 T / (n^2 rho), i.e.
    # z = sigma / (2L/n) = sqrt(T / (2 rho)); T steps of rho_t = 1/(2 z^2).
    epsilon, delta, T, L, n = 0.5, 1e-3, 40, 1.0, 1000
    noise = calibrate_dp_gd(epsilon, delta, T, method="zcdp")
    rho = zcdp_from_epsilon(epsilon, delta)
    sigma_paper = np.sqrt(2 * L**2 * T / (n**2 * rho))
    assert noise.noise_multiplier * 2 * L / n == pytest.approx(sigma_paper, rel=1e-12)
    assert zcdp_to_epsilon(T / (2 * noise.noise_multiplier**2), delta) == (
        pytest.approx(epsilon, rel=1e-9)
    )
    # The zCDP conversion is looser than RDP: the same noise certifies less
    # epsilon with dp_accounting, so the paper mode is private too.
    event = dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(noise.noise_multiplier), T)
    assert dpa_epsilon(event, delta) < epsilon
    assert calibrate_dp_gd(epsilon, delta, T).noise_multiplier < noise.noise_multiplier


def _replace_one_renyi(a, b, q, order, half_width=11.0, n_grid=701):
    """D_order((1-q)N(0,I)+qN(a,I) || (1-q)N(0,I)+qN(b,I)) in 2-D by quadrature."""
    grid = np.linspace(-half_width, half_width, n_grid)
    points = np.stack(np.meshgrid(grid, grid, indexing="ij"), axis=-1)
    log_normal = -0.5 * (points**2).sum(-1) - np.log(2 * np.pi)

    def log_ratio(c):  # log of the mixture density over N(0, I)
        return np.logaddexp(np.log1p(-q), np.log(q) + points @ c - c @ c / 2)

    cell = np.log((grid[1] - grid[0]) ** 2)
    integrand = log_normal + order * log_ratio(a) + (1 - order) * log_ratio(b)
    return (logsumexp(integrand) + cell) / (order - 1)


@pytest.mark.parametrize("q, z", [(0.05, 0.8), (0.3, 1.5)])
def test_doubled_sensitivity_covers_replace_one(q, z):
    # The accountant charges a Poisson-sampled sum under replace-one as the
    # add/remove sampled Gaussian at sensitivity 2H. Check that this bounds
    # the exact Renyi divergence of the replace-one pair for every angle
    # between the two records' contributions a, b (||a|| = ||b|| = H, and
    # ||b|| < H), in both directions (the sweep over angles is symmetric).
    H = 1.0 / (2 * z)  # unit noise std, so the multiplier at 2H is z
    orders = [2, 4, 8]
    bound = rdp_subsampled_gaussian(q, z, orders=orders)
    a = np.array([H, 0.0])
    for norm_b in (H, 0.5 * H):
        for angle in np.linspace(0, np.pi, 7):
            b = norm_b * np.array([np.cos(angle), np.sin(angle)])
            exact = [_replace_one_renyi(a, b, q, order) for order in orders]
            assert np.all(np.array(exact) <= bound * (1 + 1e-6)), (angle, exact)


def test_quadrature_is_accurate_on_a_known_case():
    # q = 1: two Gaussians, D_a = a ||a - b||^2 / 2 exactly; keeps the
    # quadrature of the domination test honest.
    a, b = np.array([0.4, 0.0]), np.array([-0.4, 0.0])
    value = _replace_one_renyi(a, b, 1.0 - 1e-12, 4)
    assert value == pytest.approx(4 * 0.8**2 / 2, rel=1e-6)


def test_bad_inputs():
    with pytest.raises(ValueError, match="sampling_rate"):
        calibrate_dp_svrg(1.0, 1e-5, 0.0, [10])
    with pytest.raises(ValueError, match="epoch_lengths"):
        calibrate_dp_svrg(1.0, 1e-5, 0.1, [])
    with pytest.raises(ValueError, match="epsilon"):
        calibrate_dp_svrg(-1.0, 1e-5, 0.1, [10])
    with pytest.raises(ValueError, match="delta"):
        calibrate_dp_gd(1.0, 0.0, 10)
    with pytest.raises(ValueError, match="n_steps"):
        calibrate_dp_gd(1.0, 1e-5, 0)
    with pytest.raises(ValueError, match="method"):
        calibrate_dp_gd(1.0, 1e-5, 10, method="advanced")


def test_epsilon_below_the_conversion_floor_is_a_clear_value_error():
    from sklearn_ldp.accounting import calibrate_exponential_selections
    from sklearn_ldp.accounting._rdp import rdp_epsilon_floor

    # RDP 0 at every order (infinite noise) still converts to this floor.
    orders = DEFAULT_RDP_ORDERS
    floor = float(
        max(0.0, np.min(np.log1p(-1 / orders) - np.log(1e-5 * orders) / (orders - 1)))
    )
    assert rdp_epsilon_floor(1e-5) == pytest.approx(floor, rel=1e-12)
    assert rdp_epsilon_floor(1e-5) == rdp_to_epsilon(np.zeros(orders.size), 1e-5)[0]
    for calibrate in (
        lambda eps: calibrate_dp_gd(eps, 1e-5, 100),
        lambda eps: calibrate_dp_svrg(eps, 1e-5, 0.01, [100] * 5),
        lambda eps: calibrate_exponential_selections(eps, 1e-5, 100),
    ):
        for epsilon in (1e-9, 1e-3, floor):
            with pytest.raises(ValueError, match=rf"epsilon = {epsilon!r}.*range"):
                calibrate(epsilon)
        assert calibrate(2 * floor).epsilon <= 2 * floor
        assert calibrate(1e9).epsilon <= 1e9
