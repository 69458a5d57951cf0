"""A quadratic on an l2 ball, exactly (the trust-region subproblem)."""

import numpy as np
from scipy.optimize import brentq


def minimize_quadratic_on_ball(A, b, radius):
    """Global minimizer of ``w^T A w / 2 - b^T w`` over ``||w|| <= radius``.

    ``A`` is symmetric, not necessarily positive semi-definite. The KKT
    conditions of the trust-region subproblem (Moré and Sorensen 1983):
    ``(A + mu I) w = b`` with ``A + mu I`` PSD, ``mu >= 0`` and ``mu
    (||w|| - radius) = 0``. One eigen-decomposition of ``A``; ``mu`` is the
    root of the decreasing ``||w(mu)|| - radius`` (scipy's ``brentq``). In
    the hard case (``b`` orthogonal to the lowest eigenvector of an
    indefinite ``A``) the lowest eigenvector is added to reach the sphere.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import minimize_quadratic_on_ball
    >>> np.round(minimize_quadratic_on_ball(np.eye(2), np.array([1.0, 0.0]), 5.0), 6)
    array([1., 0.])
    >>> np.round(minimize_quadratic_on_ball(np.eye(2), np.array([3.0, 4.0]), 1.0), 6)
    array([0.6, 0.8])
    """
    A = 0.5 * (np.asarray(A, dtype=np.float64) + np.asarray(A, dtype=np.float64).T)
    b = np.asarray(b, dtype=np.float64)
    radius = float(radius)
    eigvals, eigvecs = np.linalg.eigh(A)
    beta = eigvecs.T @ b
    scale = max(np.max(np.abs(eigvals)), 1e-300)
    floor = max(0.0, -eigvals[0])
    tiny = 1e-12 * scale

    def norm(mu):
        denominator = eigvals + mu
        return np.sqrt(np.sum((beta / denominator) ** 2))

    if eigvals[0] > tiny and norm(0.0) <= radius:
        return eigvecs @ (beta / eigvals)
    low = floor + tiny
    if norm(low) <= radius:  # hard case (or b ~ 0): the sphere along v_min
        keep = eigvals + floor > tiny
        w = np.zeros_like(beta)
        w[keep] = beta[keep] / (eigvals[keep] + floor)
        missing = radius**2 - np.sum(w**2)
        w[0] += np.sqrt(max(missing, 0.0))
        return eigvecs @ w
    high = floor + np.linalg.norm(b) / radius + scale
    mu = brentq(lambda mu: norm(mu) - radius, low, high, xtol=1e-14 * high)
    return eigvecs @ (beta / (eigvals + mu))
