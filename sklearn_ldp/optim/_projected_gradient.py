"""Accelerated projected gradient (FISTA) on a full-batch gradient field.

Used on the average of all users' unbiased LDP oracles: once the reports are
collected that average is a fixed function of ``w``, so iterating on it is
free post-processing. The averaged oracle is an unbiased estimate of the
gradient but, because the estimates of ``P(a)`` and of the direction come
from different noisy copies, it need not be the gradient of any function.
Nesterov momentum is therefore restarted whenever it points against the
current step (the gradient-mapping restart of O'Donoghue and Candes 2015),
which keeps the method monotone-like on such fields and is the standard
FISTA on a convex objective otherwise.
"""

import numpy as np


def accelerated_projected_gradient(
    gradient, w0, *, step, projection, max_iter=100, tol=1e-6
):
    """Minimize with projected Nesterov steps ``w <- P(v - step * g(v))``.

    Parameters
    ----------
    gradient : callable
        ``gradient(w) -> ndarray`` (the full-batch oracle).
    w0 : ndarray
        Feasible starting point.
    step : float
        Step size, ``1 / L`` for an ``L``-smooth objective.
    projection : callable
        Euclidean projection onto the feasible set.
    max_iter : int, default=100
    tol : float, default=1e-6
        Stop when ``||w_{k+1} - w_k|| <= tol * max(1, ||w_k||)``.

    Returns
    -------
    w : ndarray
    n_iter : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import accelerated_projected_gradient, project_l2_ball
    >>> target = np.array([3.0, 0.0])
    >>> w, _ = accelerated_projected_gradient(
    ...     lambda w: w - target, np.zeros(2), step=1.0,
    ...     projection=lambda w: project_l2_ball(w, 1.0))
    >>> w.round(6).tolist()
    [1.0, 0.0]
    """
    if step <= 0:
        raise ValueError(f"step must be > 0, got {step!r}.")
    w = projection(np.asarray(w0, dtype=float))
    v, momentum = w.copy(), 1.0
    n_iter = 0
    for iteration in range(1, int(max_iter) + 1):
        n_iter = iteration
        w_next = projection(v - step * gradient(v))
        change = w_next - w
        # Restart when the momentum direction disagrees with the gradient step.
        if np.dot(v - w_next, change) > 0:
            momentum = 1.0
        momentum_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * momentum**2))
        v = w_next + ((momentum - 1.0) / momentum_next) * change
        momentum = momentum_next
        w = w_next
        if np.linalg.norm(change) <= tol * max(1.0, np.linalg.norm(w)):
            break
    return w, n_iter
