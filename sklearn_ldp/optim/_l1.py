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


def project_l1_balls(V, radii):
    """Row ``k`` of ``V`` projected onto the l1 ball of radius ``radii[k]``.

    :func:`project_l1_ball` for a stack of points, vectorized over rows:
    the same sort-based threshold (Duchi et al. 2008) per row, the same
    pull-back when rounding leaves the sphere.

    Parameters
    ----------
    V : ndarray of shape (n_points, d)
    radii : ndarray of shape (n_points,)
        Radii, finite and ``> 0``.

    Returns
    -------
    W : ndarray of shape (n_points, d)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import project_l1_balls
    >>> project_l1_balls(np.array([[3.0, -1.0, 0.5], [0.5, -0.25, 0.0]]),
    ...                  np.array([2.0, 1.0])).tolist()
    [[2.0, -0.0, 0.0], [0.5, -0.25, 0.0]]
    """
    V = np.asarray(V, dtype=np.float64)
    radii = np.asarray(radii, dtype=np.float64)
    magnitudes = np.abs(V)
    outside = magnitudes.sum(axis=1) > radii
    W = V.copy()
    if not outside.any():
        return W
    mags, r = magnitudes[outside], radii[outside]
    sorted_desc = -np.sort(-mags, axis=1)
    cumulative = np.cumsum(sorted_desc, axis=1) - r[:, None]
    ranks = np.arange(1, mags.shape[1] + 1)
    active = sorted_desc * ranks > cumulative
    # The largest j with the condition (the first entry always satisfies it).
    rho = mags.shape[1] - 1 - np.argmax(active[:, ::-1], axis=1)
    rows = np.arange(mags.shape[0])
    theta = cumulative[rows, rho] / (rho + 1.0)
    shrunk = np.sign(V[outside]) * np.maximum(mags - theta[:, None], 0.0)
    total = np.abs(shrunk).sum(axis=1)
    over = total > r
    shrunk[over] *= (r[over] / total[over])[:, None]
    W[outside] = shrunk
    return W


def l1_constrained_least_squares_batch(
    quadratics, linears, radii, *, max_iter=1000, tol=1e-6
):
    """:func:`l1_constrained_least_squares` for a stack of small problems at once.

    Problem ``k``: ``min_w 1/2 w^T Q_k w - b_k^T w`` over ``||w||_1 <=
    r_k``, from ``w = 0``, by the iteration of
    :func:`~sklearn_ldp.optim.fista_quadratic` (step ``1 / L_k`` with
    ``L_k`` the largest eigenvalue of ``Q_k``, computed densely, the
    backtracking guard, the gradient restart, the same stopping rule), run
    on every unfinished problem in lockstep with numpy operations on the
    stack: a few dozen iterations cost what a few dozen single-problem
    iterations cost, not their number times the count of problems (the
    sparse regressor's report-only choice solves 90 problems of a few
    dozen coefficients). Each problem follows its own iterates, so the
    result is that of the single-problem solver up to floating-point
    rounding of the products.

    Parameters
    ----------
    quadratics : ndarray of shape (n_problems, d, d)
        Symmetric positive semi-definite ``Q_k`` (the largest eigenvalue
        is computed from the lower triangle).
    linears : ndarray of shape (n_problems, d)
    radii : ndarray of shape (n_problems,)
    max_iter : int, default=1000
    tol : float, default=1e-6

    Returns
    -------
    W : ndarray of shape (n_problems, d)
    n_iter : ndarray of shape (n_problems,)
    converged : ndarray of shape (n_problems,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import l1_constrained_least_squares_batch
    >>> Q = np.stack([np.eye(2), np.diag([1.0, 2.0])])
    >>> W, n_iter, converged = l1_constrained_least_squares_batch(
    ...     Q, np.array([[2.0, 0.5], [0.2, 0.1]]), np.array([1.0, 1.0]))
    >>> np.round(W, 6).tolist(), converged.tolist()
    ([[1.0, 0.0], [0.2, 0.05]], [True, True])
    """
    H = np.asarray(quadratics, dtype=np.float64)
    b = np.asarray(linears, dtype=np.float64)
    radii = np.asarray(radii, dtype=np.float64)
    K, d = b.shape
    top = np.linalg.eigvalsh(H)[:, -1]  # (reads the lower triangles)
    step = np.where(top > 0, top, 1.0)  # a zero Hessian takes unit steps
    x = np.zeros((K, d))
    hx = np.zeros((K, d))
    y, hy, t = x.copy(), hx.copy(), np.ones(K)
    n_iter = np.zeros(K, dtype=np.int64)
    converged = np.zeros(K, dtype=bool)
    live = np.arange(K)
    while live.size and n_iter[live[0]] < max_iter:
        n_iter[live] += 1
        Hl, bl, rl = H[live], b[live], radii[live]
        yl, hyl, L = y[live], hy[live], step[live]
        p = project_l1_balls(yl - (hyl - bl) / L[:, None], rl)
        hp = np.einsum("kij,kj->ki", Hl, p)
        move = p - yl
        curvature = np.einsum("ki,ki->k", move, hp - hyl)
        fail = curvature > L * np.einsum("ki,ki->k", move, move) * (1.0 + 1e-10)
        while fail.any():  # backtracking guard, as fista_quadratic
            L[fail] *= 2.0
            f = np.flatnonzero(fail)
            p[f] = project_l1_balls(yl[f] - (hyl[f] - bl[f]) / L[f, None], rl[f])
            hp[f] = np.einsum("kij,kj->ki", Hl[f], p[f])
            move[f] = p[f] - yl[f]
            curv = np.einsum("ki,ki->k", move[f], hp[f] - hyl[f])
            fail[f] = curv > L[f] * np.einsum("ki,ki->k", move[f], move[f]) * (
                1.0 + 1e-10
            )
        step[live] = L
        change = p - x[live]
        tl = np.where(np.einsum("ki,ki->k", move, change) > 0.0, 1.0, t[live])
        t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * tl * tl))
        beta = ((tl - 1.0) / t_next)[:, None]
        y[live] = p + beta * change
        hy[live] = (1.0 + beta) * hp - beta * hx[live]
        x[live], hx[live], t[live] = p, hp, t_next
        done = np.linalg.norm(change, axis=1) <= tol * np.maximum(
            1.0, np.linalg.norm(p, axis=1)
        )
        converged[live[done]] = True
        live = live[~done]
    return x, n_iter, converged
