"""Run-level accountant of DP-SVRG / DP-SVRG++ and DP-GD (central DP).

Neighbouring relation: **replace-one** (two data sets of the same public size
``n`` differing in one record), as in the papers. Per-example gradients are
bounded by ``G`` and per-example SVRG differences
``grad f_i(w) - grad f_i(w~)`` by ``H`` (both public, from the clipping
bound; see :mod:`sklearn_ldp.losses`). Noise multipliers below are
std / (replace-one l2-sensitivity) of the released quantity.

- **Full-gradient snapshot** (every SVRG epoch, every GD step): the mean
  gradient ``1/n sum_i grad f_i(w~)`` changes by at most ``2G/n`` when one
  record is replaced; released with std ``z_mu * 2G/n``. Gaussian
  mechanism: ``RDP(a) = a / (2 z_mu^2)`` (equivalently ``rho = 1/(2 z_mu^2)``
  zCDP).
- **Inner SVRG step**: each record joins the batch independently with
  probability ``q`` (Poisson sampling); the batch sum of the differences gets
  std ``z * 2H``. We account it with the add/remove-one RDP bound of the
  Poisson-subsampled Gaussian (Mironov, Talwar and Zhang 2019) at sensitivity
  ``2H``. Why this covers replace-one: with the other rows' contribution
  ``c`` fixed, replacing record ``r`` by ``r'`` turns
  ``(1-q) N(c, s^2) + q N(c + a, s^2)`` into the same mixture with ``b``,
  ``||a||, ||b|| <= H``; the pair is dominated by the add/remove pair at
  sensitivity ``||a - b|| <= 2H`` (its privacy-loss tail grows at rate
  ``2H/s^2`` against ``||a - b||/s^2`` for the replace pair). This
  domination is checked numerically (quadrature over every angle between
  ``a`` and ``b``) in ``tests/accounting/test_dp_svrg_accountant.py``; it is
  also what ``dp_accounting`` computes for a ``PoissonSampledDpEvent`` whose
  noise multiplier is taken relative to ``2H``.

The steps are composed adaptively (each step's input depends on earlier
releases only), RDP adds up, and the total is converted with
:func:`rdp_to_epsilon`. One free noise multiplier ``z`` (inner steps) is
calibrated by bisection; the snapshot multiplier of epoch ``s`` is tied to
it by ``z_mu,s = z / (q sqrt(m_s))``: the snapshot noise on the mean gradient
(``2G z_mu,s / n``) then equals the noise of the *average* of the epoch's
``m_s`` inner steps (``2H z / (q n sqrt(m_s))`` when ``H = G``), so the
persistent error of the epoch and the averaged fresh error are of the same
size. Summed over epochs, the snapshots cost
``a q^2 T / (2 z^2)`` with ``T = sum_s m_s``.

DP-GD (seed 002 Alg. 4, seed 004 Alg. 1) composes ``T`` full-batch Gaussian
releases with multiplier ``z``: RDP ``T a / (2 z^2)``, or, paper-faithful,
zCDP ``rho = T / (2 z^2)`` with ``epsilon = rho + 2 sqrt(rho ln(1/delta))``
solved for ``rho`` (seed 004 prints ``sigma^2 = 2 L^2 T / (n^2 rho^2)``; the
square on ``rho`` is a typo: ``sigma^2 = T Delta^2 / (2 rho)`` with
``Delta = 2L/n``).
"""

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..utils import check_delta, check_epsilon
from ._rdp import (
    DEFAULT_RDP_ORDERS,
    _calibrate_and_spend,
    _check_n_steps,
    rdp_gaussian,
    rdp_subsampled_gaussian,
)
from ._zcdp import zcdp_from_epsilon, zcdp_to_epsilon


@dataclass(frozen=True)
class DPRunNoise:
    """Calibrated noise of one DP-SVRG / DP-GD run.

    Attributes
    ----------
    noise_multiplier : float
        Inner-step multiplier ``z`` (SVRG) or per-step multiplier (GD).
    snapshot_noise_multipliers : ndarray
        One multiplier per epoch's full-gradient release (SVRG); empty for GD.
    sampling_rate : float
        Poisson rate ``q`` of the inner steps (1.0 for GD).
    n_inner_steps : int
        Total subsampled steps (SVRG) or full-batch steps (GD).
    epsilon : float
        The epsilon the accountant certifies at ``delta`` (``<=`` the target).
    delta : float
    """

    noise_multiplier: float
    snapshot_noise_multipliers: np.ndarray
    sampling_rate: float
    n_inner_steps: int
    epsilon: float
    delta: float


def _check_rate(sampling_rate):
    q = float(sampling_rate)
    if not 0.0 < q <= 1.0:
        raise ValueError(f"sampling_rate must be in (0, 1], got {sampling_rate!r}.")
    return q


def _check_lengths(epoch_lengths):
    lengths = np.asarray(epoch_lengths)
    if lengths.ndim != 1 or lengths.size == 0 or np.any(lengths < 1):
        raise ValueError("epoch_lengths must be a non-empty list of integers >= 1.")
    return lengths.astype(np.int64)


def dp_svrg_snapshot_multipliers(noise_multiplier, sampling_rate, epoch_lengths):
    """Snapshot multipliers ``z / (q sqrt(m_s))`` tied to the inner one.

    Examples
    --------
    >>> from sklearn_ldp.accounting import dp_svrg_snapshot_multipliers
    >>> dp_svrg_snapshot_multipliers(1.0, 0.25, [4, 16]).tolist()
    [2.0, 1.0]
    """
    q = _check_rate(sampling_rate)
    lengths = _check_lengths(epoch_lengths)
    return float(noise_multiplier) / (q * np.sqrt(lengths))


def dp_svrg_rdp(
    noise_multiplier, sampling_rate, epoch_lengths, orders=DEFAULT_RDP_ORDERS
):
    """RDP curve of a whole DP-SVRG / DP-SVRG++ run (replace-one).

    ``T`` Poisson-subsampled Gaussian steps at multiplier ``z`` plus one
    Gaussian snapshot per epoch at :func:`dp_svrg_snapshot_multipliers`.

    Examples
    --------
    >>> from sklearn_ldp.accounting import dp_svrg_rdp, rdp_to_epsilon
    >>> rdp = dp_svrg_rdp(2.0, 0.01, [100] * 5)
    >>> round(rdp_to_epsilon(rdp, 1e-5)[0], 3)
    0.653
    """
    q = _check_rate(sampling_rate)
    lengths = _check_lengths(epoch_lengths)
    rdp = rdp_subsampled_gaussian(q, noise_multiplier, int(lengths.sum()), orders)
    for z_snapshot in dp_svrg_snapshot_multipliers(noise_multiplier, q, lengths):
        rdp = rdp + rdp_gaussian(z_snapshot, orders)
    return rdp


@lru_cache(maxsize=256)
def _calibrate_svrg_cached(epsilon, delta, sampling_rate, lengths):
    def rdp_of(z):
        return dp_svrg_rdp(z, sampling_rate, lengths)

    return _calibrate_and_spend(epsilon, delta, rdp_of)


def calibrate_dp_svrg(epsilon, delta, sampling_rate, epoch_lengths):
    """Smallest inner multiplier meeting ``(epsilon, delta)`` for the whole run.

    Parameters
    ----------
    epsilon, delta : float
        Target guarantee (replace-one).
    sampling_rate : float
        Poisson rate ``q`` of the inner steps.
    epoch_lengths : sequence of int
        Inner steps of each epoch (``[m] * S`` for DP-SVRG,
        ``[m0, 2 m0, 4 m0, ...]`` for DP-SVRG++).

    Returns
    -------
    noise : DPRunNoise

    Examples
    --------
    >>> from sklearn_ldp.accounting import calibrate_dp_svrg
    >>> noise = calibrate_dp_svrg(1.0, 1e-5, 0.01, [100] * 5)
    >>> round(noise.noise_multiplier, 3), noise.epsilon <= 1.0
    (1.426, True)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    q = _check_rate(sampling_rate)
    lengths = tuple(int(m) for m in _check_lengths(epoch_lengths))
    z, spent = _calibrate_svrg_cached(epsilon, delta, q, lengths)
    return DPRunNoise(
        noise_multiplier=z,
        snapshot_noise_multipliers=dp_svrg_snapshot_multipliers(z, q, lengths),
        sampling_rate=q,
        n_inner_steps=int(sum(lengths)),
        epsilon=spent,
        delta=delta,
    )


def calibrate_dp_gd(epsilon, delta, n_steps, method="rdp"):
    """Per-step multiplier of ``n_steps`` full-batch Gaussian gradient releases.

    ``method='rdp'`` bisects the RDP accountant (tight); ``'zcdp'`` is the
    paper-faithful closed form of seed 004 Alg. 1 (typo fixed):
    ``rho = zcdp_from_epsilon(epsilon, delta)``, ``z = sqrt(T / (2 rho))``.

    Examples
    --------
    >>> from sklearn_ldp.accounting import calibrate_dp_gd
    >>> rdp = calibrate_dp_gd(1.0, 1e-5, 100)
    >>> zcdp = calibrate_dp_gd(1.0, 1e-5, 100, method="zcdp")
    >>> rdp.noise_multiplier < zcdp.noise_multiplier
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    n_steps = _check_n_steps(n_steps)
    if method == "rdp":
        z, spent = _calibrate_gd_cached(epsilon, delta, n_steps)
    elif method == "zcdp":
        rho = zcdp_from_epsilon(epsilon, delta)
        z = float(np.sqrt(n_steps / (2.0 * rho)))
        spent = zcdp_to_epsilon(n_steps / (2.0 * z**2), delta)
    else:
        raise ValueError(f"method must be 'rdp' or 'zcdp', got {method!r}.")
    return DPRunNoise(
        noise_multiplier=z,
        snapshot_noise_multipliers=np.empty(0),
        sampling_rate=1.0,
        n_inner_steps=n_steps,
        epsilon=spent,
        delta=delta,
    )


@lru_cache(maxsize=256)
def _calibrate_gd_cached(epsilon, delta, n_steps):
    def rdp_of(z):
        return n_steps * rdp_gaussian(z)

    return _calibrate_and_spend(epsilon, delta, rdp_of)


#: Constants of :func:`auto_svrg_schedule` (see its docstring for their role).
AUTO_SVRG_EPOCHS = 4
AUTO_SVRG_MAX_INNER_STEPS = 10_000
AUTO_SVRG_REGULARIZATION = 0.3
AUTO_SVRG_CONTRACTION = 1.0


@dataclass(frozen=True)
class SVRGSchedule:
    """Regularization and iteration counts chosen by :func:`auto_svrg_schedule`.

    Attributes
    ----------
    alpha : float
        l2 regularization strength.
    alpha_privacy : float
        The privacy/bias balancing term (before the optimisation floor).
    alpha_floor : float
        Smallest strength ``inner_steps_cap`` steps can resolve.
    n_epochs : int
    inner_steps : int
        Inner steps of every epoch.
    step : float
        Step size ``1 / (2 (L + alpha))``.
    """

    alpha: float
    alpha_privacy: float
    alpha_floor: float
    n_epochs: int
    inner_steps: int
    step: float


def auto_svrg_schedule(
    n_samples,
    n_weights,
    epsilon,
    delta,
    *,
    gradient_bound,
    data_norm,
    smoothness,
    batch_size,
    n_epochs=AUTO_SVRG_EPOCHS,
    max_inner_steps=AUTO_SVRG_MAX_INNER_STEPS,
    regularization=AUTO_SVRG_REGULARIZATION,
    contraction=AUTO_SVRG_CONTRACTION,
):
    """DP-SVRG's regularization and inner-loop length from public quantities.

    Every argument is public (the number of rows and of weights, the
    budget, the clipping bound and the constants derived from it), so the
    choice is post-processing of nothing: it costs no privacy and the
    accountant charges the run it produces like any other.

    **Regularization.** One Gaussian release of the mean gradient at the
    budget has per-coordinate std ``sigma_1 = 2 G z_1 / n`` with
    ``z_1 = 1 / sqrt(2 rho)`` and ``rho`` the zCDP level of ``(epsilon,
    delta)`` (:func:`zcdp_from_epsilon`); the calibrated run pays a constant
    factor over it. For an ``alpha``-strongly convex objective perturbed at
    that scale, the excess risk is about ``p sigma_1^2 / alpha`` (``p``
    weights) while the regularization costs ``alpha ||w*||^2 / 2``: the
    balance is ``alpha ~ sqrt(p) sigma_1 / ||w*||``. ``||w*||`` is not
    public; weights scale as ``1 / data_norm`` (a margin of a few logits on a
    row at the bound), so ``alpha_privacy = c sqrt(p) sigma_1 data_norm``
    with ``c = regularization`` (0.3: measured on the breast cancer and
    digits populations of ``benchmarks/bench_dp_svrg.py``). It shrinks like
    ``sqrt(p log(1/delta)) / (n epsilon)``.

    **Iterations.** Prox-SVRG contracts the distance to the optimum by a
    constant factor per epoch when ``m eta alpha >= nu`` (``eta`` the step,
    ``nu = contraction``): ``m = ceil(nu / (eta alpha))`` inner steps per
    epoch, at least one expected pass ``ceil(n / batch_size)``, at most
    ``max_inner_steps`` (the compute budget). A strength below
    ``alpha_floor = nu / (eta_0 max_inner_steps)`` could not be resolved by
    that many steps (it would only let the noise drift along flat
    directions), so ``alpha = max(alpha_privacy, alpha_floor)``. The number
    of epochs is fixed (4): each extra epoch adds a snapshot release, the
    noise of the last snapshot persists in the output, and its std grows
    like the square root of the number of epochs.

    Hence ``alpha`` decreases and ``m`` increases with ``n`` and
    ``epsilon`` until the compute cap; ``alpha`` grows with ``p``.

    Parameters
    ----------
    n_samples, n_weights : int
        Rows ``n`` and weights ``p`` (features, intercept, outputs).
    epsilon, delta : float
        The budget of the run.
    gradient_bound : float
        ``G``, bound on every per-example gradient norm.
    data_norm : float
        Public bound on ``||x||`` (without the intercept column).
    smoothness : float
        ``L``, smoothness bound of each per-example loss.
    batch_size : int
        Expected inner batch size.
    n_epochs, max_inner_steps : int
    regularization, contraction : float
        The constants ``c`` and ``nu`` above.

    Returns
    -------
    schedule : SVRGSchedule

    Examples
    --------
    >>> from sklearn_ldp.accounting._dp_svrg import auto_svrg_schedule
    >>> small = auto_svrg_schedule(10_000, 31, 1.0, 1e-7, gradient_bound=1.4,
    ...     data_norm=1.0, smoothness=0.5, batch_size=256)
    >>> large = auto_svrg_schedule(100_000, 31, 1.0, 1e-7, gradient_bound=1.4,
    ...     data_norm=1.0, smoothness=0.5, batch_size=256)
    >>> large.alpha < small.alpha, large.inner_steps > small.inner_steps
    (True, True)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    z_one_shot = 1.0 / np.sqrt(2.0 * zcdp_from_epsilon(epsilon, delta))
    sigma_one_shot = 2.0 * gradient_bound * z_one_shot / n_samples
    alpha_privacy = regularization * np.sqrt(n_weights) * sigma_one_shot * data_norm
    alpha_floor = contraction * 2.0 * smoothness / max_inner_steps
    alpha = max(alpha_privacy, alpha_floor)
    step = 0.5 / (smoothness + alpha)
    one_pass = -(-n_samples // batch_size)
    converge = int(np.ceil(contraction / (step * alpha)))
    inner_steps = max(one_pass, min(max_inner_steps, converge))
    return SVRGSchedule(
        alpha=float(alpha),
        alpha_privacy=float(alpha_privacy),
        alpha_floor=float(alpha_floor),
        n_epochs=int(n_epochs),
        inner_steps=int(inner_steps),
        step=float(step),
    )


#: Constants of :func:`auto_gd_schedule` (see its docstring for their role).
AUTO_GD_NOISE_BALANCE = 0.06
AUTO_GD_REGULARIZATION = 0.1
AUTO_GD_STEPS_PER_SQRT_HORIZON = 8.0
AUTO_GD_MIN_STEPS_PER_SQRT_HORIZON = 5.0
#: Longest horizon, in units of ``1 / (p data_norm^2)``: the implicit ridge is
#: never weaker than ``p data_norm^2 / AUTO_GD_MAX_HORIZON``.
AUTO_GD_MAX_HORIZON = 1e6
AUTO_GD_MIN_STEPS = 20
AUTO_GD_MAX_WORK = 4e9
AUTO_GD_MAX_STEPS = 10_000
#: Subsample sizes :func:`auto_gd_subsample` tries: ``n / 2^k``, ``k <= 12``,
#: at least this many rows.
AUTO_GD_SUBSAMPLE_HALVINGS = 12
AUTO_GD_MIN_SUBSAMPLE = 1_000


def amplify_by_subsampling(epsilon, delta, sample_size, population_size):
    """The guarantee of an ``(epsilon, delta)``-DP run on a random subset.

    A mechanism that is ``(epsilon, delta)``-DP (replace-one) on datasets of
    ``m = sample_size`` rows, run on ``m`` rows drawn uniformly *without
    replacement* from ``n = population_size`` (the draw kept secret), is
    ``(log(1 + q (e^epsilon - 1)), q delta)``-DP (replace-one) on the ``n``
    rows, ``q = m / n`` (Balle, Barthe, Gaboardi 2018, "Privacy
    amplification by subsampling: tight analyses via couplings and
    divergences", Theorem 9 and Table 1, substitution relation). The record
    that differs is in the subset with probability ``q``; when it is not,
    both outputs have the same distribution. The bound is attained (see
    ``tests/accounting/test_dp_svrg_subsample.py``).

    Examples
    --------
    >>> from sklearn_ldp.accounting import amplify_by_subsampling
    >>> epsilon, delta = amplify_by_subsampling(2.0, 1e-6, 1_000, 100_000)
    >>> round(epsilon, 4), delta
    (0.0619, 1e-08)
    """
    epsilon = check_epsilon(epsilon)
    q = _sampling_fraction(sample_size, population_size)
    return _log_mix(epsilon, q), q * float(delta)


def subsampled_budget(epsilon, delta, sample_size, population_size):
    """The budget a run on a random subset may spend: the inverse of
    :func:`amplify_by_subsampling`, ``(log(1 + (e^epsilon - 1) / q), delta /
    q)``, so that the whole is ``(epsilon, delta)``-DP (replace-one)."""
    epsilon = check_epsilon(epsilon)
    q = _sampling_fraction(sample_size, population_size)
    return _log_mix(epsilon, 1.0 / q), float(delta) / q


def _log_mix(epsilon, factor):
    """``log(1 + factor (e^epsilon - 1))`` without overflow for large epsilon
    (``epsilon + log(e^-epsilon + factor (1 - e^-epsilon))`` there)."""
    if epsilon < 30.0:
        return float(np.log1p(factor * np.expm1(epsilon)))
    return float(epsilon + np.log(np.exp(-epsilon) - factor * np.expm1(-epsilon)))


def _sampling_fraction(sample_size, population_size):
    if not 1 <= sample_size <= population_size:
        raise ValueError(
            f"sample_size must be in [1, population_size = {population_size}], "
            f"got {sample_size}."
        )
    return sample_size / population_size


def auto_gd_subsample(n_samples, n_weights, epsilon, delta, **schedule_params):
    """The subsample of rows :func:`auto_gd_schedule` runs on best, from public inputs.

    When the compute cap binds on all ``n`` rows, the run on all of them
    resolves a shorter horizon than its noise allows (it is more regularized
    than the balance asks, the accuracy stalls as ``n`` grows). A run on a
    uniformly random subset of ``m`` rows at the budget of
    :func:`subsampled_budget` (larger ``epsilon``, so less noise per row, and
    ``m p`` work per step) is ``(epsilon, delta)``-DP on the ``n`` rows
    (:func:`amplify_by_subsampling`). The sizes ``n / 2^k`` are tried from
    the largest; the one whose schedule reaches the longest horizon (the
    weakest implicit regularization the noise and the cap allow) is kept,
    all ``n`` rows when the cap does not bind. (Measured alternatives, not
    kept, at n = 1e6 before the longest horizon ``max_horizon`` of
    :func:`auto_gd_schedule`: holding a subset's schedule at the full
    ``steps_per_sqrt_horizon`` gained 0.003 on breast cancer at epsilon 4
    and lost 0.006 on digits at epsilon 4 and 8, seed 0; a four times
    larger ``max_work`` moved breast cancer at epsilon 8 from 0.9834 to
    0.9842 and digits not at all, seed 0. Forcing the subset size, seeds 0
    to 2: digits is best on 125,000 rows, 0.8899 at epsilon 8, against
    0.8811 on 62,500 and 0.871 on 250,000.)

    Returns
    -------
    sample_size : int
    epsilon, delta : float
        The budget of the run on the subset.
    schedule : GDSchedule
    """
    best = None
    for k in range(AUTO_GD_SUBSAMPLE_HALVINGS + 1):
        m = n_samples if k == 0 else int(n_samples // 2**k)
        if k > 0 and m < AUTO_GD_MIN_SUBSAMPLE:
            break
        eps_m, delta_m = subsampled_budget(epsilon, delta, m, n_samples)
        if delta_m >= 1.0 or not np.isfinite(eps_m):
            break
        schedule = auto_gd_schedule(m, n_weights, eps_m, delta_m, **schedule_params)
        if best is None or schedule.horizon > best[3].horizon * (1.0 + 1e-9):
            best = (m, eps_m, delta_m, schedule)
        if not schedule.capped:
            # Smaller subsets have less data and, as m epsilon_m grows with
            # m, more noise relative to it: their horizons are shorter.
            break
    return best


@dataclass(frozen=True)
class GDSchedule:
    """Horizon, momentum and step count chosen by :func:`auto_gd_schedule`.

    Attributes
    ----------
    alpha : float
        l2 regularization strength.
    horizon : float
        ``1 / lambda``: the smallest curvature the run resolves is
        ``1 / horizon`` (the implicit regularization of stopping early).
    momentum : float
        Heavy-ball coefficient ``beta``.
    n_steps : int
        Full-batch steps (each one Gaussian release).
    step : float
        Step size ``1 / (L + alpha)``.
    capped : bool
        Whether the compute cap shortened the run.
    """

    alpha: float
    horizon: float
    momentum: float
    n_steps: int
    step: float
    capped: bool


def auto_gd_schedule(
    n_samples,
    n_weights,
    epsilon,
    delta,
    *,
    gradient_bound,
    data_norm,
    smoothness,
    noise_balance=AUTO_GD_NOISE_BALANCE,
    regularization=AUTO_GD_REGULARIZATION,
    steps_per_sqrt_horizon=AUTO_GD_STEPS_PER_SQRT_HORIZON,
    min_steps=AUTO_GD_MIN_STEPS,
    max_work=AUTO_GD_MAX_WORK,
    max_steps=AUTO_GD_MAX_STEPS,
    min_steps_per_sqrt_horizon=AUTO_GD_MIN_STEPS_PER_SQRT_HORIZON,
    max_horizon=AUTO_GD_MAX_HORIZON,
):
    """Noisy heavy-ball DP-GD's horizon, momentum and steps from public quantities.

    Every argument is public (rows, weights, budget, clipping constants):
    the choice costs no privacy, and :func:`calibrate_dp_gd` charges the
    ``n_steps`` Gaussian releases it produces.

    **Noise against progress.** ``T`` full-batch releases calibrated by RDP
    have per-coordinate std ``sigma = z(T) 2G/n`` with ``z(T) ~ sqrt(T / (2
    rho))``, i.e. ``sigma ~ sqrt(T) sigma_1`` where ``sigma_1 = 2 G / (n
    sqrt(2 rho))`` is one release at the whole budget (``rho`` the zCDP level
    of ``(epsilon, delta)``). Gradient descent with step ``eta`` run for a
    horizon ``H = eta T`` fits the directions of curvature above ``1/H``
    (early stopping acts as a ridge of strength ``1/H``); along the flatter
    directions the noise is not pulled back and random-walks to std ``eta
    sigma sqrt(T) = H sigma_1``, independent of how the horizon is split into
    steps. The noise in the weights (``sqrt(p) H sigma_1`` over ``p``
    weights) balanced against the bias of the implicit ridge (``1/H`` times
    ``||w*||``, with ``||w*||`` of order ``1 / data_norm``) gives
    ``H = 1 / (c sqrt(p) sigma_1 data_norm)`` (``c = noise_balance``, 0.06,
    measured on the breast cancer and digits populations of
    ``benchmarks/bench_dp_svrg.py``). ``H`` grows like ``n epsilon /
    sqrt(p log(1/delta))``: the more data and budget, the weaker the
    implicit regularization, up to the non-private model.

    **Longest horizon.** ``H <= max_horizon / (p data_norm^2)`` (``1e6``):
    at large ``n epsilon`` the balance asks for horizons of ``10^5`` and more
    (the noise no longer limits them), which the logistic loss, much flatter
    at its optimum than ``L`` says, does not resolve in the steps the
    compute cap allows (too few steps per ``sqrt(H / eta)``), and the run
    lands below the non-private accuracy. With the cap the run
    stops at an implicit ridge of ``p data_norm^2 / 1e6`` (about ``3e-5``
    at ``p = 31``), which it resolves in about 1,000 steps. Measured on the
    spot-check draws (``benchmarks/spot_checks.py dp-svrg-large``, seeds 0
    to 2): breast cancer at ``n = 10^6``, epsilon 8 went from 0.9836 (a
    horizon of ``1.3e5`` on 125,000 rows, capped at 1,032 steps) to 0.9875
    (``3.2e4``, 1,017 steps; the non-private ``LogisticRegression(C=1)``:
    0.9876); the former run without any noise gave 0.9842 (seed 0), so the
    loss was optimization, not privacy. The cap binds only when ``n epsilon`` is
    large (not at ``n = 10^4`` on those populations, where the noise sets
    a shorter horizon); its ``p`` makes the ridge grow with the number of
    weights, as the variance of the fit does.

    **Fewer steps for the same horizon.** Heavy-ball momentum ``beta = (1 -
    sqrt(eta / H))^2`` (the optimal choice for condition number ``H / eta``)
    resolves curvature ``1/H`` in about ``sqrt(H / eta)`` steps instead of
    ``H / eta``: ``T = ceil(k sqrt(H / eta))`` (``k =
    steps_per_sqrt_horizon``, 8: the logistic loss is flatter at its
    optimum than its bound ``L`` says, and 4 left the breast cancer
    population at n = 1e5 0.005 short of the non-private accuracy), at
    least ``min_steps``. The noise it lets through the flat directions is
    again of order ``H sigma_1``; the output is the average of the second
    half of the iterates (:func:`~sklearn_ldp.optim.dp_gd`,
    ``output='tail'``), which averages out what momentum adds along the
    steep directions.

    **Compute cap.** Each step costs ``n p`` multiply-adds; ``T <=
    min(max_steps, max_work / (n p))`` (at least ``min_steps``; the step cap
    matters only for tiny ``n`` at huge ``epsilon``). When the cap binds,
    the steps per ``sqrt(H / eta)`` may drop to ``k_min =
    min_steps_per_sqrt_horizon`` (5; with 4, :func:`auto_gd_subsample`
    preferred 250,000 breast cancer rows at 4 steps per ``sqrt(H / eta)``,
    0.984 at ``n = 10^6``, epsilon 8, to 125,000 rows at 8, 0.9875); below
    that the horizon shrinks to
    what the capped run resolves, ``H = eta (T / k_min)^2``, and the run is
    more regularized (and less noisy) than the balance asks: at n = 1e6
    the rule alone trades accuracy for time, and :func:`auto_gd_subsample`
    runs it on a random subset at an amplified budget instead.

    A small explicit ridge, ``alpha = regularization / H``, keeps the
    directions of zero curvature from drifting.

    Parameters
    ----------
    n_samples, n_weights : int
        Rows ``n`` and weights ``p`` (features, intercept, outputs).
    epsilon, delta : float
        The budget of the run.
    gradient_bound : float
        ``G``, bound on every per-example gradient norm.
    data_norm : float
        Public bound on ``||x||`` (without the intercept column).
    smoothness : float
        ``L``, smoothness bound of each per-example loss.
    noise_balance, regularization, steps_per_sqrt_horizon : float
    min_steps, max_steps : int
    max_work, min_steps_per_sqrt_horizon, max_horizon : float
        The constants ``c``, the ridge ratio, ``k``, the step floor, the
        compute caps, ``k_min`` and the longest horizon above.

    Returns
    -------
    schedule : GDSchedule

    Examples
    --------
    >>> from sklearn_ldp.accounting._dp_svrg import auto_gd_schedule
    >>> small = auto_gd_schedule(10_000, 31, 1.0, 1e-7, gradient_bound=1.4,
    ...     data_norm=1.0, smoothness=0.5)
    >>> more = auto_gd_schedule(10_000, 31, 4.0, 1e-7, gradient_bound=1.4,
    ...     data_norm=1.0, smoothness=0.5)
    >>> more.horizon > small.horizon, more.n_steps > small.n_steps
    (True, True)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    sigma_one_shot = (
        2.0
        * gradient_bound
        / (n_samples * np.sqrt(2.0 * zcdp_from_epsilon(epsilon, delta)))
    )
    horizon = 1.0 / (noise_balance * np.sqrt(n_weights) * sigma_one_shot * data_norm)
    horizon = min(horizon, max_horizon / (n_weights * data_norm**2))
    step = 1.0 / smoothness
    wanted = int(np.ceil(steps_per_sqrt_horizon * np.sqrt(horizon / step)))
    cap = max(min_steps, min(max_steps, int(max_work // (n_samples * n_weights))))
    n_steps = min(max(min_steps, wanted), cap)
    capped = wanted > cap
    if capped:
        horizon = min(horizon, step * (n_steps / min_steps_per_sqrt_horizon) ** 2)
    alpha = regularization / horizon
    step = 1.0 / (smoothness + alpha)
    momentum = max(0.0, 1.0 - np.sqrt(step / horizon)) ** 2
    return GDSchedule(
        alpha=float(alpha),
        horizon=float(horizon),
        momentum=float(momentum),
        n_steps=int(n_steps),
        step=float(step),
        capped=bool(capped),
    )
