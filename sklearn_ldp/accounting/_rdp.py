"""Renyi DP of the (Poisson-subsampled) Gaussian mechanism.

For the sampled Gaussian mechanism (each record joins a step independently
with probability ``q``; the sum of the clipped contributions gets
``N(0, (z * Delta)^2 I)``), Mironov, Talwar and Zhang (2019, section 3.3)
give, for integer orders ``alpha >= 2``,

    A_alpha = sum_{k=0}^{alpha} C(alpha, k) (1 - q)^(alpha - k) q^k
              exp((k^2 - k) / (2 z^2)),
    RDP(alpha) = ln(A_alpha) / (alpha - 1).

This bound holds for the add/remove-one relation. Under replace-one a record
can change two sampled contributions; the estimators that use it account for
that by doubling the sensitivity they pass in (``z`` relative to ``2 Delta``)
or by documenting the relation; see each estimator. RDP composes additively
over steps; conversion to (epsilon, delta) uses the bound of Canonne, Kamath
and Steinke (2020, Prop. 12), as ``dp_accounting`` does. Only integer orders
are used here (a valid bound; fractional orders could tighten it slightly).
"""

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln, logsumexp

from ..utils import check_bound, check_delta, check_epsilon

DEFAULT_RDP_ORDERS = np.concatenate(
    [np.arange(2, 65), [72, 80, 96, 112, 128, 160, 192, 256, 320, 384, 512, 768, 1024]]
).astype(float)


def _check_n_steps(n_steps):
    if int(n_steps) != n_steps or n_steps < 1:
        raise ValueError(f"n_steps must be an integer >= 1, got {n_steps!r}.")
    return int(n_steps)


def _check_orders(orders):
    orders = np.atleast_1d(np.asarray(orders, dtype=float))
    if np.any(orders < 2) or np.any(orders != np.round(orders)):
        raise ValueError("RDP orders must be integers >= 2.")
    return orders


def rdp_gaussian(noise_multiplier, orders=DEFAULT_RDP_ORDERS):
    """RDP of one Gaussian release with std ``noise_multiplier * Delta``.

    ``RDP(alpha) = alpha / (2 z^2)``.

    Examples
    --------
    >>> from sklearn_ldp.accounting import rdp_gaussian
    >>> rdp_gaussian(1.0, orders=[2, 4]).tolist()
    [1.0, 2.0]
    """
    z = check_bound(noise_multiplier, name="noise_multiplier")
    orders = _check_orders(orders)
    return orders / (2.0 * z**2)


def rdp_subsampled_gaussian(
    sampling_rate, noise_multiplier, steps=1, orders=DEFAULT_RDP_ORDERS
):
    """RDP of ``steps`` Poisson-subsampled Gaussian releases.

    Parameters
    ----------
    sampling_rate : float
        Probability ``q`` in ``(0, 1]`` that a record joins a step.
    noise_multiplier : float
        Noise std divided by the l2-sensitivity of one record's contribution.
    steps : int, default=1
        Number of composed steps.
    orders : array-like of int, default=DEFAULT_RDP_ORDERS
        Renyi orders (integers >= 2).

    Returns
    -------
    rdp : ndarray of shape (n_orders,)

    Examples
    --------
    >>> from sklearn_ldp.accounting import rdp_subsampled_gaussian
    >>> rdp_subsampled_gaussian(1.0, 2.0, orders=[2]).tolist()
    [0.25]
    """
    q = float(sampling_rate)
    if not 0.0 < q <= 1.0:
        raise ValueError(f"sampling_rate must be in (0, 1], got {sampling_rate!r}.")
    z = check_bound(noise_multiplier, name="noise_multiplier")
    if int(steps) != steps or steps < 0:
        raise ValueError(f"steps must be a non-negative integer, got {steps!r}.")
    orders = _check_orders(orders)
    if q == 1.0:
        return steps * orders / (2.0 * z**2)
    rdp = np.empty_like(orders)
    log_q, log_1mq = np.log(q), np.log1p(-q)
    for idx, alpha in enumerate(orders):
        k = np.arange(int(alpha) + 1, dtype=float)
        log_binom = gammaln(alpha + 1) - gammaln(k + 1) - gammaln(alpha - k + 1)
        terms = (
            log_binom + k * log_q + (alpha - k) * log_1mq + (k * k - k) / (2.0 * z**2)
        )
        rdp[idx] = logsumexp(terms) / (alpha - 1.0)
    return steps * rdp


def rdp_to_epsilon(rdp, delta, orders=DEFAULT_RDP_ORDERS):
    """Convert an RDP curve to ``epsilon`` at ``delta``.

    Uses ``epsilon = rdp + ln(1 - 1/alpha) - ln(delta alpha) / (alpha - 1)``
    (Canonne, Kamath, Steinke 2020, Prop. 12), minimized over the orders.

    Returns
    -------
    epsilon : float
    order : float
        The order attaining the minimum.

    Examples
    --------
    >>> from sklearn_ldp.accounting import rdp_gaussian, rdp_to_epsilon
    >>> eps, order = rdp_to_epsilon(rdp_gaussian(5.0), 1e-5)
    >>> round(eps, 3)
    0.795
    """
    delta = check_delta(delta, allow_zero=False)
    orders = _check_orders(orders)
    rdp = np.asarray(rdp, dtype=float)
    if rdp.shape != orders.shape:
        raise ValueError("rdp and orders must have the same shape.")
    eps = rdp + np.log1p(-1.0 / orders) - np.log(delta * orders) / (orders - 1.0)
    best = int(np.argmin(eps))
    return float(max(eps[best], 0.0)), float(orders[best])


def rdp_epsilon_floor(delta, orders=DEFAULT_RDP_ORDERS):
    """The smallest epsilon :func:`rdp_to_epsilon` can return at ``delta``.

    The conversion adds ``ln(1 - 1/alpha) - ln(delta alpha) / (alpha - 1)``
    to the RDP of each order, so a mechanism with RDP 0 (infinite noise)
    still converts to the minimum of that term over the orders (at least 0).
    A target at or below it cannot be calibrated with these orders.

    Examples
    --------
    >>> from sklearn_ldp.accounting import rdp_epsilon_floor
    >>> round(rdp_epsilon_floor(1e-5), 4)
    0.0035
    """
    return rdp_to_epsilon(np.zeros(_check_orders(orders).shape), delta, orders)[0]


def calibrate_noise_multiplier(epsilon, delta, rdp_of, *, lo=1e-2, hi=1e3):
    """Smallest noise multiplier ``z`` with ``rdp_to_epsilon(rdp_of(z)) <= epsilon``.

    Parameters
    ----------
    epsilon, delta : float
        Target guarantee.
    rdp_of : callable
        ``rdp_of(z) -> ndarray`` over ``DEFAULT_RDP_ORDERS``, the RDP curve of
        the whole run at noise multiplier ``z`` (decreasing in ``z``).
    lo, hi : float
        Initial bracket (widened if needed).

    Returns
    -------
    noise_multiplier : float
        Meets the target (the upper end of the final bracket).

    Examples
    --------
    >>> from sklearn_ldp.accounting import (
    ...     calibrate_noise_multiplier, rdp_subsampled_gaussian)
    >>> z = calibrate_noise_multiplier(
    ...     1.0, 1e-5, lambda z: rdp_subsampled_gaussian(0.01, z, steps=1000))
    >>> round(z, 2)
    1.51
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    floor = rdp_epsilon_floor(delta)
    if epsilon <= floor:
        # Even infinite noise (RDP 0 at every order) converts to ``floor``:
        # no noise multiplier reaches the target, so say so instead of
        # widening the bracket until ``z`` overflows.
        raise ValueError(
            f"epsilon = {epsilon!r} is below what the RDP accountant can certify at "
            f"delta = {delta!r}: with Renyi orders up to {int(DEFAULT_RDP_ORDERS[-1])} "
            f"the usable range is epsilon > {floor:.3g} (the conversion's floor "
            "ln(1 - 1/alpha) - ln(delta alpha) / (alpha - 1)). Use a larger epsilon "
            "or delta."
        )

    def excess(log_z):
        return rdp_to_epsilon(rdp_of(np.exp(log_z)), delta)[0] - epsilon

    log_lo, log_hi = np.log(lo), np.log(hi)
    while excess(log_hi) > 0:
        log_hi += np.log(10.0)
        if log_hi > np.log(1e100):
            raise ValueError(
                f"epsilon = {epsilon!r} at delta = {delta!r} needs a noise multiplier "
                f"above 1e100: the usable range is epsilon > {floor:.3g} by a margin "
                "(the run's RDP must fit under epsilon minus the conversion's floor). "
                "Use a larger epsilon or delta."
            )
    while excess(log_lo) <= 0 and log_lo > np.log(1e-8):
        log_lo -= np.log(10.0)
    z = float(np.exp(brentq(excess, log_lo, log_hi, xtol=1e-12, rtol=1e-10)))
    while excess(np.log(z)) > 0:
        z *= 1.0 + 1e-9
    return z


def _calibrate_and_spend(epsilon, delta, rdp_of):
    """:func:`calibrate_noise_multiplier` and the epsilon it certifies at ``delta``."""
    z = calibrate_noise_multiplier(epsilon, delta, rdp_of)
    return z, rdp_to_epsilon(rdp_of(z), delta)[0]
