"""Calibration of Gaussian noise on a public lattice: the guarantee of what is sampled.

A client releases ``x' + g J`` per coordinate, where ``g`` is a power of two
(the lattice granularity), ``x'`` is the clipped value put on ``g Z`` by
unbiased randomized rounding, and ``J`` is drawn by a 64-bit integer sampler
whose law is within total variation ``eta`` of ``round(W)``, ``W ~ N(0,
s^2)`` (``s`` the noise scale in lattice cells; ``rounded_gaussian`` in
:mod:`sklearn_ldp.randomizers`). The guarantee follows in three steps.

1. **Lattice noise is post-processing.** For ``x'`` on ``g Z``,
   ``x' + g round(W)`` is exactly ``round_g(x' + g W)``: the continuous
   Gaussian mechanism with standard deviation ``g s``, then a public map.
2. **Rounding widens the sensitivity.** Randomized rounding moves each
   coordinate by less than ``g`` for every outcome of its coins, so a
   ``d``-dimensional part moves by less than ``g sqrt(d)`` in l2. Couple the
   coins of two records (the same 64-bit words): every outcome gives
   rounded records at l2 distance below ``Delta + 2 g sqrt(d)``, and a
   mixture, with the same weights, of pairs of (epsilon, delta)-close
   distributions is (epsilon, delta)-close. So the noise is calibrated for
   the widened sensitivity ``Delta' = Delta (1 + 2^-40) + 2 g sqrt(d)`` (the
   ``2^-40`` absorbs the float error of clipping). A part whose values are
   already on the lattice (``+-1`` or one-hot labels with ``g <= 1``) is not
   rounded and keeps ``Delta``.
3. **What is sampled.** If the ideal mechanism ``M`` is (epsilon,
   delta_design)-DP and the implemented ``M~`` satisfies ``TV(M~(r),
   M(r)) <= tau`` for every record ``r`` (``tau`` = the sum of ``eta`` over
   the user's noisy numbers: total variation is subadditive over
   independent coordinates), then for every event ``S``

       P[M~(a) in S] <= P[M(a) in S] + tau
                     <= e^eps P[M(b) in S] + delta_design + tau
                     <= e^eps P[M~(b) in S] + delta_design + (1 + e^eps) tau,

   so ``M~`` is (epsilon, delta_design + (1 + e^eps) tau)-DP. The noise is
   calibrated at ``delta_design = delta - slack``, ``slack = (1 + e^eps)
   tau``, and the stated ``(epsilon, delta)`` is what is provided. (The
   rounding coins need no slack: step 2 holds for every outcome of the
   implemented coins.) ``tau`` is about ``1e-13`` per user, so this works up
   to ``epsilon`` near ``ln(delta / (2 tau))`` (about 17 at ``delta =
   1e-5``). Beyond, no sampler of finite precision can certify the
   requested pair (its noise is bounded, and at very large epsilon the
   supports of two records' reports do not even overlap): the noise is
   calibrated at ``delta`` and the weaker guarantee ``(epsilon, min(1,
   delta + slack))`` is stated, with a
   :class:`~sklearn_ldp.exceptions.PrivacyLeakWarning`. Such epsilons only
   serve to simulate near-noiseless reports.

The lattice is chosen per part from the continuous calibration ``sigma``:
``g = 2^floor(log2(sigma / c))`` (the rule of
:func:`~sklearn_ldp.randomizers.lattice_granularity`, restated here because
accounting sits below the randomizers), with ``c`` cells per standard
deviation: at least :data:`LATTICE_CELLS`, raised up to
:data:`MAX_LATTICE_CELLS` so that the widening ``2 g sqrt(d)`` stays below
``Delta / 256`` (:data:`ROUNDING_SHARE`). The noise standard deviation then
grows by less than ``1/256`` over the continuous mechanism's, unless the
cap binds (``2 sqrt(d) sigma / Delta > 64``: many coordinates at small
epsilon), where the growth is ``2 sqrt(d) sigma / (Delta c)``.

The released noise has variance ``g^2 (s^2 + 1/12)`` exactly (Sheppard's
correction): this, ``sigma`` of :class:`LatticeGaussian`, is what a server
subtracts. The randomized rounding of the input adds at most ``g^2 / 4`` per
coordinate (``g^2 f (1 - f)`` for a fractional part ``f``, data-dependent,
below ``1.5e-8`` of the noise variance); it is left in the data, like any
other data-dependent term, and not corrected.

References
----------
Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential
Privacy", NeurIPS 2020 (rounding the input to the lattice and widening the
sensitivity); Balle and Wang, ICML 2018 (the analytic calibration).
"""

import math
import warnings
from typing import NamedTuple

import numpy as np
from scipy.special import ndtr

from ..exceptions import PrivacyLeakWarning
from ..utils import check_delta, check_epsilon
from ._gaussian import gaussian_sigma, joint_gaussian_sigmas

#: Fewest lattice points per noise standard deviation.
LATTICE_CELLS = 4096
#: Most lattice points per standard deviation the widening rule may ask for
#: (the sampler's table has about ``20 c`` entries).
MAX_LATTICE_CELLS = 16384
#: Target of the rounding widening, relative to the sensitivity.
ROUNDING_SHARE = 2.0**-8
#: Standard deviations of noise the sampler keeps on each side.
NOISE_TAIL = 10.0
#: Relative widening that absorbs the float error of clipping.
_CLIP_ROUNDOFF = 2.0**-40
#: Beyond this, e^epsilon overflows a float.
_LARGEST_EXPONENT = 700.0


class LatticeGaussian(NamedTuple):
    """Calibration of a Gaussian release on a lattice, per part.

    Attributes
    ----------
    granularity : ndarray of shape (k,)
        Lattice step ``g`` of each part (a power of two).
    scale : ndarray of shape (k,)
        Noise standard deviation in lattice cells (the sampler's ``scale``).
    sigma : ndarray of shape (k,)
        Standard deviation of the released noise, ``g sqrt(scale^2 + 1/12)``
        (what a server debiases with).
    sensitivity : ndarray of shape (k,)
        l2-sensitivity the noise is calibrated for (widened by the rounding).
    rounded : ndarray of bool, shape (k,)
        Whether the part's values are put on the lattice by randomized rounding.
    tv_bound : ndarray of shape (k,)
        Bound on the total variation of one implemented noisy number to the
        ideal rounded Gaussian, assumed by the accounting.
    epsilon, delta : float
        The guarantee provided for the record: ``delta`` as requested, unless
        epsilon is beyond what the sampler can certify (see the module
        docstring).
    delta_design : float
        ``delta`` of the ideal mechanism the noise is calibrated for.
    slack : float
        ``(1 + e^epsilon) tau``, ``tau`` the sum of ``tv_bound`` over the
        record's noisy numbers; ``delta_design + slack <= delta`` (the
        provided one).
    certified : bool
        Whether the provided ``(epsilon, delta)`` is the requested one.
    """

    granularity: np.ndarray
    scale: np.ndarray
    sigma: np.ndarray
    sensitivity: np.ndarray
    rounded: np.ndarray
    tv_bound: np.ndarray
    epsilon: float
    delta: float
    delta_design: float
    slack: float
    certified: bool


def rounded_gaussian_tv_bound(scale, *, tail=NOISE_TAIL):
    """Total variation of the 64-bit rounded Gaussian sampler to ``round(W)``.

    An upper bound, for every scale up to ``scale``, of the ``tv_bound`` of
    :func:`~sklearn_ldp.randomizers.rounded_gaussian`: ``(2K + 1) 2^-63 +
    2^-48 + 4 Phi(-tail)``, ``K = ceil(tail scale)`` (weights rounded to 64
    bits, float error of each probability, dropped tails; ``(K + 1/2) /
    scale >= tail``).

    Examples
    --------
    >>> from sklearn_ldp.accounting import rounded_gaussian_tv_bound
    >>> float(f"{rounded_gaussian_tv_bound(4096.0):.3g}")
    1.24e-14
    """
    half_width = np.ceil(tail * np.asarray(scale, dtype=np.float64))
    return (2.0 * half_width + 1.0) * 2.0**-63 + 2.0**-48 + 4.0 * ndtr(-tail)


def lattice_gaussian_sigma(scale, granularity):
    """Standard deviation of ``g round(W)``, ``W ~ N(0, scale^2)``: ``g sqrt(scale^2 + 1/12)``."""
    scale = np.asarray(scale, dtype=np.float64)
    return granularity * np.sqrt(scale * scale + 1.0 / 12.0)


def lattice_gaussian_scale(sigma, granularity):
    """Inverse of :func:`lattice_gaussian_sigma`: the scale, in cells, of noise of std ``sigma``."""
    cells = np.asarray(sigma, dtype=np.float64) / granularity
    return np.sqrt(cells * cells - 1.0 / 12.0)


def _released_sigma(scale, granularity):
    """The std to publish for ``scale``: recovering the scale from it never gives less."""
    sigma = float(lattice_gaussian_sigma(scale, granularity))
    while lattice_gaussian_scale(sigma, granularity) < scale:
        sigma = float(np.nextafter(sigma, np.inf))
    return sigma


def _continuous_sigmas(epsilon, delta, sensitivities, weights, method):
    if method == "analytic":
        return joint_gaussian_sigmas(epsilon, delta, sensitivities, weights)
    return np.array([gaussian_sigma(epsilon, delta, sensitivities[0], "classic")])


def _on_lattice(steps, granularity):
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = steps / granularity
    return (steps > 0) & (ratio == np.rint(ratio))


def lattice_gaussian(
    epsilon,
    delta,
    sensitivities,
    dimensions,
    *,
    weights=None,
    input_steps=None,
    method="analytic",
):
    """Calibrate a Gaussian release of ``k`` parts of one record on their lattices.

    The record's parts (features, target, ...) get independent rounded
    Gaussian noise of standard deviations ``sigma_j``, each on its own
    lattice ``g_j Z``; together they are (epsilon, delta)-DP for what the
    client actually samples (see the module docstring: sensitivities widened
    by the rounding, ``delta`` reduced by the sampler's slack). With
    ``method='analytic'`` the parts are one Gaussian mechanism (Balle and
    Wang 2018) with ``sigma_j / weights[j]`` equal across parts, as
    :func:`~sklearn_ldp.accounting.joint_gaussian_sigmas`; with
    ``'classic'`` (one part only) the papers' formula, raised to the
    analytic value where it would under-noise.

    Parameters
    ----------
    epsilon, delta : float
        Guarantee of the release.
    sensitivities : array-like of shape (k,)
        l2-sensitivity of each part before rounding (``2 * bound`` for a
        vector clipped to a ball, under replacement of the record).
    dimensions : array-like of int, shape (k,)
        Number of noisy numbers of each part.
    weights : array-like of shape (k,), default=None
        Relative noise scales (``'analytic'`` only); all ones by default.
    input_steps : array-like of shape (k,), default=None
        A public step every value of the part is a multiple of (``1`` for
        ``+-1`` or one-hot labels), or ``0`` for arbitrary reals. A part
        whose step is a multiple of its lattice step needs no rounding.
    method : {'analytic', 'classic'}, default='analytic'

    Returns
    -------
    calibration : LatticeGaussian

    Examples
    --------
    >>> from sklearn_ldp.accounting import analytic_gaussian_sigma, lattice_gaussian
    >>> cal = lattice_gaussian(1.0, 1e-5, [2.0], [5])
    >>> float(cal.granularity[0]) == 2.0**-10, float(cal.slack) < 1e-12
    (True, True)
    >>> round(float(cal.sigma[0] / analytic_gaussian_sigma(1.0, 1e-5, 2.0)), 4)
    1.0022
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    sensitivities = np.asarray(sensitivities, dtype=np.float64)
    dimensions = np.asarray(dimensions)
    k = sensitivities.size
    if (
        sensitivities.shape != (k,)
        or k == 0
        or dimensions.shape != (k,)
        or not np.all(np.isfinite(sensitivities) & (sensitivities > 0))
        or not np.all((dimensions == np.rint(dimensions)) & (dimensions >= 1))
    ):
        raise ValueError(
            "sensitivities (finite, > 0) and dimensions (integers >= 1) must be "
            f"1-d of one length, got {sensitivities!r} and {dimensions!r}."
        )
    dimensions = dimensions.astype(np.float64)
    weights = np.ones(k) if weights is None else np.asarray(weights, dtype=np.float64)
    steps = np.zeros(k) if input_steps is None else np.asarray(input_steps, float)
    if weights.shape != (k,) or steps.shape != (k,) or np.any(steps < 0):
        raise ValueError("weights and input_steps must have one entry per part.")
    if method not in ("analytic", "classic") or (method == "classic" and k != 1):
        raise ValueError(
            f"method must be 'analytic', or 'classic' for one part; got {method!r} "
            f"for {k} parts."
        )

    continuous = _continuous_sigmas(epsilon, delta, sensitivities, weights, method)
    # Cells per standard deviation: enough that 2 g sqrt(d) <= share * Delta.
    wanted = 2.0 * np.sqrt(dimensions) * continuous / (ROUNDING_SHARE * sensitivities)
    cells = np.where(
        steps > 0, LATTICE_CELLS, np.clip(wanted, LATTICE_CELLS, MAX_LATTICE_CELLS)
    )
    granularity = 2.0 ** np.floor(np.log2(continuous / cells))
    rounded = ~_on_lattice(steps, granularity)
    widened = np.where(
        rounded,
        sensitivities * (1.0 + _CLIP_ROUNDOFF)
        + 2.0 * granularity * np.sqrt(dimensions),
        sensitivities,
    )

    # delta_design >= delta / 2: a calibration at delta / 2 bounds the scale,
    # hence the sampler's table and its total variation, from above (smaller
    # slacks are paid from delta, larger ones state a weaker guarantee).
    scale_bound = _continuous_sigmas(epsilon, delta / 2.0, widened, weights, method)
    tv_bound = rounded_gaussian_tv_bound(scale_bound / granularity)
    growth = math.exp(epsilon) if epsilon < _LARGEST_EXPONENT else math.inf
    slack = float((1.0 + growth) * np.sum(dimensions * tv_bound))
    if slack <= delta / 2.0:
        delta_design = float(delta - slack)
        while delta_design + slack > delta:
            delta_design = float(np.nextafter(delta_design, 0.0))
        provided = delta
    else:
        delta_design = delta
        provided = min(1.0, delta + slack)
        warnings.warn(
            f"epsilon={epsilon:g} is beyond what the 64-bit noise sampler can "
            f"certify at delta={delta:g}: its distance to the ideal noise, times "
            f"1 + e^epsilon, costs {slack:.3g}. The release is only "
            f"({epsilon:g}, {provided:.3g})-DP.",
            PrivacyLeakWarning,
            stacklevel=3,
        )
    design = _continuous_sigmas(epsilon, delta_design, widened, weights, method)
    scale = design / granularity
    sigma = np.array(
        [_released_sigma(s, g) for s, g in zip(scale, granularity, strict=True)]
    )
    return LatticeGaussian(
        granularity=granularity,
        scale=lattice_gaussian_scale(sigma, granularity),
        sigma=sigma,
        sensitivity=widened,
        rounded=rounded,
        tv_bound=tv_bound,
        epsilon=epsilon,
        delta=provided,
        delta_design=delta_design,
        slack=slack,
        certified=provided == delta,
    )


def lattice_copies(budgets, sensitivity, dimension, *, input_step=0.0):
    """Calibrate independent copies of one part, each at its own budget, on lattices.

    Copy ``j`` is a Gaussian release of the part at ``budgets[j] = (eps_j,
    delta_j)`` with the classic formula (raised to the analytic value where
    it would under-noise), as printed for the multi-copy protocols, on its
    own lattice with its own rounding (so that products of copies stay
    unbiased); by basic composition the copies spend the sum of the budgets.

    Parameters
    ----------
    budgets : sequence of (epsilon, delta)
    sensitivity : float
        l2-sensitivity of the part before rounding.
    dimension : int
        Numbers per copy.
    input_step : float, default=0.0
        As ``input_steps`` of :func:`lattice_gaussian`.

    Returns
    -------
    calibrations : list of LatticeGaussian
        One single-part calibration per copy.

    Examples
    --------
    >>> from sklearn_ldp.accounting import lattice_copies, power_copies_budgets
    >>> x_budgets, _ = power_copies_budgets(1.0, 1e-5, degree=2)
    >>> copies = lattice_copies(x_budgets, 2.0, 3)
    >>> len(copies), all(c.delta_design + c.slack <= c.delta for c in copies)
    (4, True)
    """
    return [
        lattice_gaussian(
            eps,
            delta,
            [sensitivity],
            [dimension],
            input_steps=[input_step],
            method="classic",
        )
        for eps, delta in budgets
    ]
