"""DP proximal mirror descent and DP accelerated mirror descent over a ball.

DP-PMD is seed 004's Alg. 3 (Wang and Xu, AAAI 2019); DP-AccMD is seed 002's
Alg. 3 (Wang, Ye and Xu, NeurIPS 2017). Both release one noisy mean gradient
``grad F(x) + N(0, noise_std^2 I)`` per iteration (a Gaussian mechanism);
the rest is post-processing. The problem is ``min_{W in C} F(W) + lam
||W_P||_1`` with ``C`` the l1 or l2 ball of radius ``R`` over all entries of
``W`` (shape ``(d, k)``) and ``P`` the penalized rows.

**Distance-generating functions.** For the l2 ball the DGF is Euclidean and
the steps are proximal-gradient steps (:func:`prox_elastic_net` with
``l1_ratio=1``), so DP-PMD on the l2 ball *is* DP-PGD (seed 004 Alg. 1) on
that ball. For the l1 ball we write ``W = R (u+ - u-)`` with ``u = (u+, u-,
u0)`` on the simplex of dimension ``2 d k + 1`` (``u0`` is slack mass at the
centre): the image of the simplex is exactly the l1 ball. The DGF is the
negative entropy of ``u``, 1-strongly convex w.r.t. ``||.||_1`` (Pinsker), so
with the Minkowski norm of ``C``, ``||W||_C = ||W||_1 / R <= ||u||_1``. The
objective in ``u`` is ``F(R (u+ - u-)) + lam R sum_{j in P} (u+_j + u-_j)``:
its minimum over the simplex equals the minimum of the original problem
(mass that cancels in ``u+ - u-`` can move to ``u0``, which only lowers the
linear penalty), and being linear the penalty enters the entropic proximal
step exactly. Its gradient is ``R (g, -g, 0) + lam R (1_P, 1_P, 0)`` and its
smoothness w.r.t. ``||.||_1`` is at most ``L R^2`` (``||R (du+ - du-)||_2 <=
R ||du||_1`` and ``||R (g - g', g' - g)||_inf <= R L ||dW||_2``), the
``L ||C||_2^2`` of both papers. The entropic proximal step is the
exponentiated-gradient update ``u <- u exp(-gamma grad) / Z`` (done in logs).
"""

import numpy as np
from scipy.special import logsumexp

from ._dp_svrg import _noisy_mean_gradient, prox_elastic_net
from ._l1 import project_l1_ball


def prox_l1_ball(V, l1_thresholds, radius):
    """``argmin_{||U||_1 <= radius} 1/2 ||U - V||^2 + sum_j a_j |U_j|``.

    Soft-thresholding by ``a_j`` followed by the projection on the l1 ball:
    the KKT conditions give ``U_j = sign(V_j) max(|V_j| - a_j - theta, 0)``
    with one multiplier ``theta >= 0``, which is the l1 projection of the
    soft-thresholded point.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import prox_l1_ball
    >>> prox_l1_ball(np.array([3.0, -1.0, 0.2]), 0.5, 2.0).tolist()
    [2.0, -0.0, 0.0]
    """
    V = np.asarray(V, dtype=float)
    shrunk = np.sign(V) * np.maximum(np.abs(V) - l1_thresholds, 0.0)
    return project_l1_ball(shrunk.ravel(), radius).reshape(V.shape)


def _euclidean_prox(V, step, l1_penalty, penalized, constraint, radius):
    if constraint == "l2":
        return prox_elastic_net(V, step, l1_penalty, 1.0, penalized, radius)
    thresholds = step * l1_penalty * penalized.astype(float)[:, None]
    return prox_l1_ball(V, thresholds, radius)


def gradient_mapping(W, gradient, step, l1_penalty, penalized, constraint, radius):
    """The generalized projected gradient ``(W - W+) / step`` (seed 004, eq. (2)).

    ``W+ = argmin_{U in C} <gradient, U> + ||U - W||^2 / (2 step) + lam
    ||U_P||_1``. Equals the gradient when ``C`` is the whole space and
    ``lam = 0``; zero exactly at the stationary points of the constrained,
    regularized problem.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import gradient_mapping
    >>> W, g = np.zeros((2, 1)), np.array([[0.3], [-2.0]])
    >>> gradient_mapping(W, g, 1.0, 0.0, np.ones(2, bool), "l2", 10.0).ravel()
    array([ 0.3, -2. ])
    """
    W_plus = _euclidean_prox(
        W - step * gradient, step, l1_penalty, penalized, constraint, radius
    )
    return (W - W_plus) / step


class _SimplexGeometry:
    """The l1 ball of radius ``R`` as the image of the ``2m + 1`` simplex."""

    def __init__(self, shape, radius, l1_penalty, penalized):
        self.shape = shape
        self.size = int(np.prod(shape))
        self.radius = radius
        mask = np.repeat(penalized.astype(float), shape[1])
        self.penalty = l1_penalty * radius * np.concatenate([mask, mask, [0.0]])

    def uniform_log(self):
        return np.full(2 * self.size + 1, -np.log(2 * self.size + 1))

    def weights(self, u):
        m = self.size
        return (self.radius * (u[:m] - u[m : 2 * m])).reshape(self.shape)

    def gradient(self, W_gradient):
        flat = self.radius * W_gradient.ravel()
        return np.concatenate([flat, -flat, [0.0]]) + self.penalty


def _entropic_step(log_u, direction, step):
    log_u = log_u - step * direction
    return log_u - logsumexp(log_u)


def dp_pmd_entropic(
    X,
    targets,
    loss,
    *,
    n_outputs,
    radius,
    l1_penalty,
    penalized,
    n_steps,
    step,
    noise_std,
    output,
    rng,
    callback=None,
):
    """DP-PMD (seed 004 Alg. 3) on the l1 ball with the entropic DGF.

    Starts at the centre (uniform ``u``, ``W = 0``); each step releases the
    noisy mean gradient at ``W(u_k)`` and takes the exponentiated-gradient
    proximal step ``u_{k+1} = u_k exp(-step grad_u) / Z``. ``step`` is in the
    geometry of ``u`` (seed 004 Thm. 5: ``1 / (2 L R^2)``). ``output='random'``
    returns one of the ``T`` iterates the steps produce, chosen uniformly in
    advance; ``'last'`` the final one. ``callback(W, n_gradient_evaluations)``
    after every step.

    Returns
    -------
    W : ndarray of shape (n_features, n_outputs)
    """
    n = X.shape[0]
    geometry = _SimplexGeometry((X.shape[1], n_outputs), radius, l1_penalty, penalized)
    chosen = rng.randint(1, n_steps + 1) if output == "random" else n_steps
    log_u = geometry.uniform_log()
    W = geometry.weights(np.exp(log_u))
    kept = W
    for t in range(1, n_steps + 1):
        gradient, _ = _noisy_mean_gradient(loss, X, targets, W, noise_std, rng)
        log_u = _entropic_step(log_u, geometry.gradient(gradient), step)
        W = geometry.weights(np.exp(log_u))
        if t == chosen:
            kept = W
        if callback is not None:
            callback(W, t * n)
    return kept


def simplex_l1_gradient_step(x, direction, smoothness):
    """``argmin_{y in simplex} <direction, y - x> + smoothness/2 ||y - x||_1^2``.

    Exact: for a moved mass ``delta`` (so ``||y - x||_1 = 2 delta``) the best
    move takes mass from the coordinates of largest ``direction`` first and
    gives it all to the smallest one; the remaining one-dimensional problem
    is convex piecewise quadratic, minimized at the first breakpoint where
    the marginal gain ``direction_donor - direction_min`` falls below
    ``4 smoothness delta``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import simplex_l1_gradient_step
    >>> simplex_l1_gradient_step(np.array([0.5, 0.5]), np.array([1.0, 0.0]), 1.0)
    array([0.25, 0.75])
    """
    target = int(np.argmin(direction))
    order = np.argsort(-direction, kind="stable")
    gains = direction[order] - direction[target]
    masses = x[order]
    ends = np.cumsum(masses)
    starts = ends - masses
    stationary = gains / (4.0 * smoothness)
    # first segment whose stationary point falls before its end
    k = int(np.flatnonzero(stationary <= ends)[0])
    delta = max(starts[k], stationary[k])
    removed = np.clip(delta - starts, 0.0, masses)
    y = x.copy()
    y[order] -= removed
    y[target] += delta
    return np.maximum(y, 0.0)


def dp_accmd(
    X,
    targets,
    loss,
    *,
    n_outputs,
    constraint,
    radius,
    l1_penalty,
    penalized,
    n_steps,
    smoothness,
    noise_std,
    rng,
    callback=None,
):
    """DP-AccMD (seed 002 Alg. 3): linear coupling of gradient and mirror steps.

    Allen-Zhu and Orecchia's AGM (ITCS 2017) with one noisy mean gradient per
    iteration, used by both steps (the release is the only data access):
    ``alpha_{k+1} = (k + 2) / (2 M)``, ``tau_k = 2 / (k + 2)``,
    ``x = tau z + (1 - tau) y``; ``y <-`` gradient step from ``x`` in the
    norm of the geometry (``M / 2 ||y - x||^2`` term); ``z <-`` mirror step
    from ``z`` with weight ``alpha_{k+1}``. ``M`` is the smoothness in that
    norm: ``L`` (l2 ball, Euclidean) or ``L R^2`` (l1 ball, entropic on the
    simplex). Returns ``y_T``. Convex losses only (the analysis is convex).
    ``callback(y, n_gradient_evaluations)`` after every step.

    Returns
    -------
    W : ndarray of shape (n_features, n_outputs)
    """
    n, d = X.shape
    if constraint == "l2":
        y = z = np.zeros((d, n_outputs))
    else:
        geometry = _SimplexGeometry((d, n_outputs), radius, l1_penalty, penalized)
        log_z = geometry.uniform_log()
        y_u = np.exp(log_z)
        z_u = y_u.copy()
        y = geometry.weights(y_u)
    for k in range(n_steps):
        alpha = (k + 2.0) / (2.0 * smoothness)
        tau = 2.0 / (k + 2.0)
        if constraint == "l2":
            x = tau * z + (1.0 - tau) * y
        else:
            x_u = tau * z_u + (1.0 - tau) * y_u
            x = geometry.weights(x_u)
        gradient, _ = _noisy_mean_gradient(loss, X, targets, x, noise_std, rng)
        if constraint == "l2":
            y = _euclidean_prox(
                x - gradient / smoothness,
                1.0 / smoothness,
                l1_penalty,
                penalized,
                "l2",
                radius,
            )
            z = _euclidean_prox(
                z - alpha * gradient, alpha, l1_penalty, penalized, "l2", radius
            )
        else:
            direction = geometry.gradient(gradient)
            y_u = simplex_l1_gradient_step(x_u, direction, smoothness)
            log_z = _entropic_step(log_z, direction, alpha)
            z_u = np.exp(log_z)
            y = geometry.weights(y_u)
        if callback is not None:
            callback(y, (k + 1) * n)
    return y
