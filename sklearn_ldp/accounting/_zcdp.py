"""Zero-concentrated DP (Bun and Steinke, 2016).

A Gaussian mechanism with l2-sensitivity ``Delta`` and std ``sigma`` is
``rho``-zCDP with ``rho = Delta^2 / (2 sigma^2)``; zCDP composes by adding
``rho``; ``rho``-zCDP implies (epsilon, delta)-DP with
``epsilon = rho + 2 sqrt(rho ln(1 / delta))`` (their Proposition 1.3, the
conversion seed 004 uses).
"""

import numpy as np

from ..utils import check_bound, check_delta, check_epsilon


def gaussian_zcdp(sigma, sensitivity=1.0):
    """``rho`` of one Gaussian release: ``Delta^2 / (2 sigma^2)``.

    Examples
    --------
    >>> from sklearn_ldp.accounting import gaussian_zcdp
    >>> gaussian_zcdp(2.0, sensitivity=1.0)
    0.125
    """
    sigma = check_bound(sigma, name="sigma")
    sensitivity = check_bound(sensitivity, name="sensitivity")
    return sensitivity**2 / (2.0 * sigma**2)


def zcdp_to_epsilon(rho, delta):
    """``epsilon = rho + 2 sqrt(rho ln(1/delta))`` for ``rho``-zCDP.

    Examples
    --------
    >>> from sklearn_ldp.accounting import zcdp_to_epsilon
    >>> round(zcdp_to_epsilon(0.01, 1e-5), 4)
    0.6886
    """
    if not np.isfinite(rho) or rho < 0:
        raise ValueError(f"rho must be finite and >= 0, got {rho!r}.")
    delta = check_delta(delta, allow_zero=False)
    return float(rho + 2.0 * np.sqrt(rho * np.log(1.0 / delta)))


def zcdp_from_epsilon(epsilon, delta):
    """Largest ``rho`` whose conversion gives at most ``(epsilon, delta)``.

    Solves ``rho + 2 sqrt(rho L) = epsilon`` with ``L = ln(1/delta)``:
    ``sqrt(rho) = sqrt(L + epsilon) - sqrt(L)``.

    Examples
    --------
    >>> from sklearn_ldp.accounting import zcdp_from_epsilon, zcdp_to_epsilon
    >>> rho = zcdp_from_epsilon(1.0, 1e-5)
    >>> round(zcdp_to_epsilon(rho, 1e-5), 12)
    1.0
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    log_inv = np.log(1.0 / delta)
    # (sqrt(L + eps) - sqrt(L))^2 written as eps^2 / (sqrt(L + eps) + sqrt(L))^2
    # to avoid cancellation when eps << L.
    return float(epsilon**2 / (np.sqrt(log_inv + epsilon) + np.sqrt(log_inv)) ** 2)
