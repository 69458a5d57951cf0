"""Calibration of the Gaussian mechanism.

The analytic Gaussian mechanism (Balle and Wang, ICML 2018, Theorem 8): adding
``N(0, sigma^2 I)`` to a function of l2-sensitivity ``Delta`` is
(epsilon, delta)-DP if and only if

    Phi(Delta / (2 sigma) - epsilon sigma / Delta)
      - e^epsilon Phi(-Delta / (2 sigma) - epsilon sigma / Delta) <= delta.

The left side is the exact privacy profile ``delta(epsilon)`` of the
mechanism; it decreases in ``sigma``, so the smallest valid ``sigma`` is found
by a bracketed root search. The classic formula
``sigma = Delta sqrt(2 ln(1.25 / delta)) / epsilon`` (Dwork and Roth,
Theorem A.1) is only proven for ``epsilon < 1`` and is what the papers print.
"""

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtr

from ..utils import check_bound, check_delta, check_epsilon


def analytic_gaussian_delta(sigma, epsilon, sensitivity=1.0):
    """Exact ``delta`` of the Gaussian mechanism at ``epsilon``.

    Parameters
    ----------
    sigma : float
        Standard deviation of the noise (per coordinate).
    epsilon : float
        Privacy loss at which the profile is evaluated, ``>= 0``.
    sensitivity : float, default=1.0
        l2-sensitivity ``Delta`` of the released function.

    Returns
    -------
    delta : float
        The smallest ``delta`` for which the mechanism is (epsilon, delta)-DP.

    Examples
    --------
    >>> from sklearn_ldp.accounting import analytic_gaussian_delta
    >>> round(analytic_gaussian_delta(1.0, 1.0), 4)
    0.1269
    """
    ratio = float(sensitivity) / float(sigma)
    a = ratio / 2.0 - epsilon / ratio
    b = -ratio / 2.0 - epsilon / ratio
    # e^eps Phi(b) in log space: e^eps overflows long before the product does.
    return float(max(ndtr(a) - np.exp(epsilon + log_ndtr(b)), 0.0))


def analytic_gaussian_sigma(epsilon, delta, sensitivity=1.0):
    """Smallest ``sigma`` for which the Gaussian mechanism is (epsilon, delta)-DP.

    Valid for every ``epsilon > 0`` and ``0 < delta < 1`` (Balle and Wang,
    2018). The returned value satisfies the condition (it is the upper end of
    the final bracket, nudged up if rounding put it below).

    Parameters
    ----------
    epsilon : float
        Target epsilon, ``> 0``.
    delta : float
        Target delta, in ``(0, 1)``.
    sensitivity : float, default=1.0
        l2-sensitivity of the released function.

    Returns
    -------
    sigma : float

    Examples
    --------
    >>> from sklearn_ldp.accounting import analytic_gaussian_sigma
    >>> round(analytic_gaussian_sigma(1.0, 1e-5), 3)
    3.73
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    sensitivity = check_bound(sensitivity, name="sensitivity")

    def excess(log_sigma):
        return analytic_gaussian_delta(np.exp(log_sigma), epsilon, 1.0) - delta

    lo, hi = -20.0, 0.0
    while excess(hi) > 0:
        hi += 5.0
    if excess(lo) <= 0:  # pragma: no cover - delta this large needs no noise
        return float(np.exp(lo) * sensitivity)
    log_sigma = brentq(excess, lo, hi, xtol=1e-14, rtol=1e-14)
    sigma = float(np.exp(log_sigma))
    while analytic_gaussian_delta(sigma, epsilon, 1.0) > delta:
        sigma *= 1.0 + 1e-12
    return sigma * sensitivity


def analytic_gaussian_epsilon(sigma, delta, sensitivity=1.0):
    """Smallest ``epsilon`` for which ``N(0, sigma^2)`` noise is (epsilon, delta)-DP.

    Inverse of :func:`analytic_gaussian_sigma` in ``epsilon``; used to state
    the guarantee a given noise level actually provides.

    Examples
    --------
    >>> from sklearn_ldp.accounting import analytic_gaussian_epsilon
    >>> round(analytic_gaussian_epsilon(3.73, 1e-5), 2)
    1.0
    """
    delta = check_delta(delta, allow_zero=False)
    sigma = check_bound(sigma, name="sigma")
    sensitivity = check_bound(sensitivity, name="sensitivity")
    if analytic_gaussian_delta(sigma, 0.0, sensitivity) <= delta:
        return 0.0
    hi = 1.0
    while analytic_gaussian_delta(sigma, hi, sensitivity) > delta:
        hi *= 2.0
    eps = brentq(
        lambda e: analytic_gaussian_delta(sigma, e, sensitivity) - delta,
        0.0,
        hi,
        xtol=1e-14,
        rtol=1e-14,
    )
    while analytic_gaussian_delta(sigma, eps, sensitivity) > delta:
        eps *= 1.0 + 1e-12
    return float(eps)


def classic_gaussian_sigma(epsilon, delta, sensitivity=1.0):
    """The papers' formula ``Delta sqrt(2 ln(1.25 / delta)) / epsilon``.

    It is a proven bound only for ``epsilon < 1``; for larger ``epsilon`` it
    can under-noise. Use :func:`gaussian_sigma` with ``method='classic'`` for
    a value that is always valid.

    Examples
    --------
    >>> from sklearn_ldp.accounting import classic_gaussian_sigma
    >>> round(classic_gaussian_sigma(0.5, 1e-5), 3)
    9.689
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    sensitivity = check_bound(sensitivity, name="sensitivity")
    return float(sensitivity * np.sqrt(2.0 * np.log(1.25 / delta)) / epsilon)


def gaussian_sigma(epsilon, delta, sensitivity=1.0, method="analytic"):
    """Noise scale of an (epsilon, delta)-DP Gaussian mechanism.

    Parameters
    ----------
    epsilon, delta : float
        Target guarantee.
    sensitivity : float, default=1.0
        l2-sensitivity.
    method : {'analytic', 'classic'}, default='analytic'
        ``'analytic'``: the exact smallest ``sigma``. ``'classic'``: the
        papers' formula, raised to the analytic value where the formula would
        under-noise (large ``epsilon``), so that the guarantee always holds.

    Returns
    -------
    sigma : float

    Examples
    --------
    >>> from sklearn_ldp.accounting import gaussian_sigma
    >>> gaussian_sigma(0.5, 1e-5, method="classic") > gaussian_sigma(0.5, 1e-5)
    True
    """
    analytic = analytic_gaussian_sigma(epsilon, delta, sensitivity)
    if method == "analytic":
        return analytic
    if method == "classic":
        return float(max(classic_gaussian_sigma(epsilon, delta, sensitivity), analytic))
    raise ValueError(f"method must be 'analytic' or 'classic', got {method!r}.")


def joint_gaussian_sigmas(epsilon, delta, sensitivities, weights=None):
    """Jointly calibrate several Gaussian releases of one record.

    Releasing ``f_j(r) + sigma_j g_j`` for ``j = 1..k`` with independent
    standard normal ``g_j`` is one Gaussian mechanism with unit noise applied
    to ``(f_1 / sigma_1, ..., f_k / sigma_k)``, whose l2-sensitivity is
    ``S = sqrt(sum_j (Delta_j / sigma_j)^2)``. It is (epsilon, delta)-DP iff
    ``S <= 1 / s1`` where ``s1`` is the analytic sigma for sensitivity 1.
    With ``sigma_j = scale * weights[j]`` this gives
    ``scale = s1 * sqrt(sum_j (Delta_j / weights[j])^2)``.

    Parameters
    ----------
    epsilon, delta : float
        Total guarantee for the record.
    sensitivities : array-like of shape (k,)
        l2-sensitivity ``Delta_j`` of each release (for example ``2 * data_norm``
        for a clipped vector under replacement of the record).
    weights : array-like of shape (k,), default=None
        Public relative noise scales (all ones by default).

    Returns
    -------
    sigmas : ndarray of shape (k,)
        The per-release standard deviations.

    Examples
    --------
    For ``k`` equal copies each gets ``sqrt(k)`` times the single-release std:

    >>> from sklearn_ldp.accounting import analytic_gaussian_sigma, joint_gaussian_sigmas
    >>> s = joint_gaussian_sigmas(1.0, 1e-5, [2.0] * 4)
    >>> round(float(s[0] / analytic_gaussian_sigma(1.0, 1e-5, 2.0)), 6)
    2.0
    """
    sensitivities = np.asarray(sensitivities, dtype=float)
    if sensitivities.ndim != 1 or sensitivities.size == 0:
        raise ValueError("sensitivities must be a non-empty 1-d array.")
    if np.any(sensitivities < 0) or not np.all(np.isfinite(sensitivities)):
        raise ValueError("sensitivities must be finite and >= 0.")
    weights = (
        np.ones_like(sensitivities)
        if weights is None
        else np.asarray(weights, dtype=float)
    )
    if weights.shape != sensitivities.shape or np.any(weights <= 0):
        raise ValueError("weights must be > 0 and have the shape of sensitivities.")
    total = np.sqrt(np.sum((sensitivities / weights) ** 2))
    scale = analytic_gaussian_sigma(epsilon, delta, 1.0) * total
    return scale * weights
