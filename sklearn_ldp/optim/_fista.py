"""FISTA for a convex quadratic over a convex set (Beck and Teboulle, 2009)."""

import numpy as np
from scipy.sparse.linalg import ArpackError, LinearOperator, eigsh


def fista_quadratic(
    matvec, linear, project, x0, *, lipschitz=None, max_iter=1000, tol=1e-6
):
    """Minimize ``f(x) = 1/2 x^T H x - linear^T x`` over a closed convex set.

    Accelerated projected gradient (FISTA) with the gradient adaptive restart
    of O'Donoghue and Candes (2015) and a backtracking guard on the step:
    since ``f`` is quadratic, the descent condition
    ``f(p) <= f(y) + <grad f(y), p - y> + L/2 ||p - y||^2`` reads
    ``(p - y)^T H (p - y) <= L ||p - y||^2``, checked with the products
    ``H p`` the iteration needs anyway (``H y`` is a linear combination of
    them), so an underestimated ``L`` is doubled instead of diverging.

    Parameters
    ----------
    matvec : callable
        ``matvec(x) = H x`` for a symmetric positive semi-definite ``H``.
    linear : ndarray of shape (d,)
        The linear term.
    project : callable
        Euclidean projection onto the feasible set.
    x0 : ndarray of shape (d,)
        Starting point (projected first).
    lipschitz : float or None, default=None
        An estimate of the largest eigenvalue of ``H`` (the gradient's
        Lipschitz constant); computed by Lanczos when None.
    max_iter : int, default=1000
    tol : float, default=1e-6
        Stop when ``||x_k - x_{k-1}|| <= tol * max(1, ||x_k||)``.

    Returns
    -------
    x : ndarray of shape (d,)
    n_iter : int
    converged : bool

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import fista_quadratic, project_l1_ball
    >>> H = np.diag([1.0, 2.0])
    >>> x, n_iter, converged = fista_quadratic(
    ...     lambda x: H @ x, np.array([2.0, 0.0]),
    ...     lambda x: project_l1_ball(x, 1.0), np.zeros(2))
    >>> np.round(x, 6).tolist(), converged
    ([1.0, 0.0], True)
    """
    linear = np.asarray(linear, dtype=np.float64)
    if lipschitz is None:
        lipschitz = largest_eigenvalue(matvec, linear.shape[0])
    # A zero Hessian (linear objective) takes unit steps.
    step_lipschitz = float(lipschitz) if lipschitz > 0 else 1.0
    x = project(np.asarray(x0, dtype=np.float64))
    hx = matvec(x)
    y, hy, t = x, hx, 1.0
    converged = False
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        while True:
            p = project(y - (hy - linear) / step_lipschitz)
            hp = matvec(p)
            move = p - y
            curvature = move @ (hp - hy)
            if curvature <= step_lipschitz * (move @ move) * (1.0 + 1e-10):
                break
            step_lipschitz *= 2.0
        change = p - x
        if move @ change > 0.0:
            # The momentum points uphill: restart it.
            t = 1.0
        t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        beta = (t - 1.0) / t_next
        y = p + beta * change
        hy = (1.0 + beta) * hp - beta * hx
        x, hx, t = p, hp, t_next
        if np.linalg.norm(change) <= tol * max(1.0, np.linalg.norm(x)):
            converged = True
            break
    return x, n_iter, converged


#: Largest dimension whose top eigenvalue is computed densely.
DENSE_EIGEN_MAX = 64


def largest_eigenvalue(matvec, dimension, *, tol=1e-3, random_state=0):
    """Largest eigenvalue of a symmetric PSD operator, by Lanczos (``eigsh``).

    Small problems (``dimension <= DENSE_EIGEN_MAX``) use the dense matrix,
    built from ``dimension`` products: cheaper than ARPACK's iterations and
    its call overhead there (the sparse regressor's model selection solves
    30 problems of a few dozen coefficients).
    """
    if dimension <= DENSE_EIGEN_MAX:
        dense = np.column_stack([matvec(e) for e in np.eye(dimension)])
        return float(np.linalg.eigvalsh(0.5 * (dense + dense.T))[-1])
    operator = LinearOperator((dimension, dimension), matvec=matvec, dtype=np.float64)
    start = np.random.RandomState(random_state).standard_normal(dimension)
    try:
        value = eigsh(
            operator, k=1, which="LA", tol=tol, v0=start, return_eigenvectors=False
        )[0]
    except ArpackError:
        # A Rayleigh quotient is a lower bound; the backtracking of FISTA
        # doubles it if needed.
        value = np.linalg.norm(matvec(start)) / np.linalg.norm(start)
    return float(max(value, 0.0))
