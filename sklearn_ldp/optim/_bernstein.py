"""Minimizer of a tensor-product Bernstein polynomial over the unit cube.

The server of the local Bernstein mechanism (seed 001, Algorithms 2-3)
minimizes the iterated Bernstein polynomial of the noisy grid risk; the
polynomial and its gradient come from :mod:`sklearn_ldp.aggregation`.
"""

import numpy as np
from scipy.optimize import minimize

from ..aggregation import (
    apply_along_axes,
    bernstein_operator_matrix,
    evaluate_bernstein,
    project_psd,
)

#: Starting points of L-BFGS-B (the best grid points).
N_STARTS = 5


def minimize_bernstein(coef, n_starts=N_STARTS):
    """Minimize a tensor-product Bernstein polynomial over ``[0, 1]^q``.

    L-BFGS-B with the closed-form gradient, started from the ``n_starts``
    grid points where the polynomial is smallest (its values on the grid are
    ``M`` applied along every axis); returns the best point and value.
    The best point is then polished by Newton steps on its free
    coordinates (:func:`_newton_polish`): L-BFGS-B stops when the value
    stalls, which fixes a minimizer only to about ``sqrt(machine epsilon)``;
    solving for a zero gradient fixes it to rounding, so coefficients that
    differ only by the order of their floating-point sums (a streamed fit
    and an in-memory one) give the same minimizer to ~1e-13.

    Parameters
    ----------
    coef : ndarray of shape (k + 1,)^q
        Coefficients of the polynomial
        (:func:`~sklearn_ldp.aggregation.bernstein_coefficients`).
    n_starts : int, default=5

    Returns
    -------
    t : ndarray of shape (q,)
        The best point found, in ``[0, 1]^q``.
    value : float

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import minimize_bernstein
    >>> coef = np.array([1.0, -1.0, 1.0])  # 1 - 4 t (1 - t): minimum 0 at t = 1/2
    >>> t, value = minimize_bernstein(coef)
    >>> t.round(6).tolist(), round(value, 9)
    ([0.5], 0.0)
    """
    coef = np.asarray(coef, dtype=float)
    degree, q = coef.shape[0] - 1, coef.ndim
    on_grid = apply_along_axes(bernstein_operator_matrix(degree), coef).reshape(-1)
    n_starts = min(n_starts, on_grid.size)
    starts = np.argpartition(on_grid, n_starts - 1)[:n_starts]
    multi = np.stack(np.unravel_index(starts, coef.shape), axis=-1) / degree

    def objective(t):
        value, grad = evaluate_bernstein(coef, t[None, :], gradient=True)
        return float(value[0]), grad[0]

    best_t, best_value = None, np.inf
    for start in multi:
        result = minimize(
            objective,
            start,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * q,
            options={"ftol": 1e-15, "gtol": 1e-12},
        )
        value = float(result.fun)
        if value < best_value:
            best_t, best_value = np.clip(result.x, 0.0, 1.0), value

    def gradient(t):
        return evaluate_bernstein(coef, t[None, :], gradient=True)[1][0]

    def hessian(t):
        # Differences of the closed-form gradient, one column per axis:
        # central inside, one-sided within a step of a face (the basis
        # clips its argument to [0, 1]).
        step = 1e-5
        columns = []
        for j in range(q):
            up, down = t.copy(), t.copy()
            up[j], down[j] = min(t[j] + step, 1.0), max(t[j] - step, 0.0)
            columns.append((gradient(up) - gradient(down)) / (up[j] - down[j]))
        hess = np.stack(columns, axis=1)
        return 0.5 * (hess + hess.T)

    zeros, ones = np.zeros(q), np.ones(q)
    polished = _newton_polish(best_t, gradient, hessian, zeros, ones)
    if polished is not best_t:
        best_value = float(evaluate_bernstein(coef, polished[None, :])[0])
    return polished, best_value


def _newton_polish(theta, gradient, hessian, lower, upper, *, max_steps=4):
    """Newton steps toward a zero gradient on the coordinates strictly inside the box.

    Coordinates at a bound stay there (L-BFGS-B left them where the
    gradient points outward); a step is taken only while the Hessian of the
    free coordinates is positive definite, the step stays inside the box
    and the free gradient shrinks. Returns ``theta`` itself when no step
    is taken.
    """
    # Margin: a free coordinate within 1e-12 of a bound is not moved (the
    # Hessian differences there would step outside [0, 1]).
    free = (theta > lower + 1e-12) & (theta < upper - 1e-12)
    if not free.any():
        return theta
    current, grad = theta, gradient(theta)[free]
    for _ in range(max_steps):
        if not np.all(np.isfinite(grad)) or not np.any(grad):
            break
        hess = hessian(current)[np.ix_(free, free)]
        try:
            factor = np.linalg.cholesky(hess)
        except np.linalg.LinAlgError:
            break
        step = np.linalg.solve(factor.T, np.linalg.solve(factor, grad))
        candidate = current.copy()
        candidate[free] -= step
        if np.any(candidate < lower) or np.any(candidate > upper):
            break
        new_grad = gradient(candidate)[free]
        if not np.linalg.norm(new_grad) < np.linalg.norm(grad):
            break
        current, grad = candidate, new_grad
    return current


def minimize_box_quadratic(quadratic, linear, lower, upper):
    """Minimize ``theta^T Q theta - 2 r^T theta`` over the box ``[lower, upper]``.

    ``Q`` is first projected onto the PSD cone (an unbiased estimate of a
    second-moment matrix can have negative eigenvalues), so the problem is
    convex; L-BFGS-B from the clipped unconstrained (least-norm) solution.

    Parameters
    ----------
    quadratic : ndarray of shape (q, q)
    linear : ndarray of shape (q,)
    lower, upper : ndarray of shape (q,)

    Returns
    -------
    theta : ndarray of shape (q,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import minimize_box_quadratic
    >>> minimize_box_quadratic(np.eye(2), np.array([0.5, 3.0]), -np.ones(2),
    ...                        np.ones(2)).round(6).tolist()
    [0.5, 1.0]
    """
    quadratic = project_psd(np.asarray(quadratic, dtype=float))
    linear = np.asarray(linear, dtype=float)
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    start = np.clip(np.linalg.pinv(quadratic) @ linear, lower, upper)

    def objective(theta):
        grad = quadratic @ theta - linear
        return float(theta @ (grad - linear)), 2.0 * grad

    result = minimize(
        objective,
        start,
        jac=True,
        method="L-BFGS-B",
        bounds=list(zip(lower, upper, strict=True)),
        options={"ftol": 1e-15, "gtol": 1e-12},
    )
    best = np.clip(result.x, lower, upper)
    best = best if objective(best)[0] <= objective(start)[0] else start
    # Newton on the free coordinates (exact for a quadratic): the minimizer
    # to rounding, not to L-BFGS-B's stopping rule.
    return _newton_polish(
        best, lambda theta: objective(theta)[1], lambda theta: 2.0 * quadratic, lower, upper
    )
