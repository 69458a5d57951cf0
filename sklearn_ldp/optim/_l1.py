"""The l1 ball: exact Euclidean projection (Duchi et al., ICML 2008), least squares over it."""

import numpy as np

from ._fista import fista_quadratic


def project_l1_ball(v, radius=1.0):
    """Euclidean projection of ``v`` onto ``{w : ||w||_1 <= radius}``.

    The sort-based algorithm of Duchi, Shalev-Shwartz, Singer and Chandra
    (2008, Figure 1), exact and ``O(d log d)``. The projection of a point
    outside the ball is the soft-thresholding ``sign(v) max(|v| - theta, 0)``
    whose threshold ``theta > 0`` puts it on the sphere: with ``u`` the
    magnitudes sorted in decreasing order and ``rho`` the largest ``j`` with
    ``u_j > (sum_{i<=j} u_i - radius) / j``, ``theta = (sum_{i<=rho} u_i -
    radius) / rho``.

    Parameters
    ----------
    v : array-like of shape (d,)
        The point to project.
    radius : float, default=1.0
        Radius of the ball, ``> 0``.

    Returns
    -------
    w : ndarray of shape (d,)
        The nearest point of the ball (a copy of ``v`` if it is inside).

    Examples
    --------
    >>> from sklearn_ldp.optim import project_l1_ball
    >>> project_l1_ball([3.0, -1.0, 0.5], radius=2.0).tolist()
    [2.0, -0.0, 0.0]
    >>> project_l1_ball([0.5, -0.25], radius=1.0).tolist()
    [0.5, -0.25]
    """
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 1:
        raise ValueError(f"v must be 1-dimensional, got shape {v.shape}.")
    radius = float(radius)
    if not np.isfinite(radius) or radius <= 0:
        raise ValueError(f"radius must be a finite number > 0, got {radius!r}.")
    if not np.all(np.isfinite(v)):
        raise ValueError("v contains NaN or infinity.")
    magnitudes = np.abs(v)
    if magnitudes.sum() <= radius:
        return v.copy()
    w = np.sign(v) * np.maximum(magnitudes - _l1_threshold(magnitudes, radius), 0.0)
    # Large entries with a small radius leave the sphere by rounding (the
    # threshold is the difference of large numbers): pull the result back in.
    total = np.abs(w).sum()
    if total > radius:
        w *= radius / total
    return w


def _l1_threshold(magnitudes, radius):
    """The soft threshold ``theta`` of the projection of ``|v|`` (outside the ball)."""
    sorted_desc = np.sort(magnitudes)[::-1]
    cumulative = np.cumsum(sorted_desc) - radius
    ranks = np.arange(1, sorted_desc.size + 1)
    rho = np.flatnonzero(sorted_desc * ranks > cumulative)[-1]
    return cumulative[rho] / (rho + 1.0)


def l1_constrained_least_squares(
    linear,
    radius,
    start,
    *,
    quadratic=None,
    components=None,
    max_iter=1000,
    tol=1e-6,
):
    """``min_w 1/2 (C w)^T Q (C w) - b^T C w`` over ``||w||_1 <= radius``, by FISTA.

    ``C`` (``components``, ``(m, d)``, dense or sparse) maps the
    ``d``-dimensional ``w`` to the space of the statistics; ``Q``
    (``quadratic``, ``(m, m)`` PSD) and ``b`` (``linear``, ``(m,)``) are
    the quadratic and linear terms there. None stands for the identity, so
    ``quadratic=None`` gives ``1/2 ||C w - b||^2`` up to a constant.

    Parameters
    ----------
    linear : ndarray of shape (m,)
    radius : float
    start : ndarray of shape (d,)
        Starting point (projected first).
    quadratic : ndarray of shape (m, m) or None, default=None
    components : ndarray or sparse matrix of shape (m, d), or None, default=None
    max_iter : int, default=1000
    tol : float, default=1e-6

    Returns
    -------
    w : ndarray of shape (d,)
    n_iter : int
    converged : bool

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import l1_constrained_least_squares
    >>> w, _, converged = l1_constrained_least_squares(
    ...     np.array([2.0, 0.5]), 1.0, np.zeros(2))
    >>> np.round(w, 6).tolist(), converged
    ([1.0, 0.0], True)
    """

    def matvec(w):
        projected = w if components is None else components @ w
        if quadratic is not None:
            projected = quadratic @ projected
        return projected if components is None else components.T @ projected

    gradient_linear = linear if components is None else components.T @ linear
    return fista_quadratic(
        matvec,
        np.asarray(gradient_linear, dtype=np.float64).ravel(),
        lambda w: project_l1_ball(w, radius),
        start,
        max_iter=max_iter,
        tol=tol,
    )
