"""DP Frank-Wolfe over an l1 or l2 ball (Wang and Xu, AAAI 2019, Alg. 2 and 4).

Plain-array numerics on the weight matrix ``W`` of shape ``(d, k)``; the
constraint ``C`` is the ball of radius ``radius`` in the l1 or l2 norm of all
``d k`` entries (so ``C`` is centrally symmetric, as both algorithms need).
Each iteration touches the data once:

- DP-FW-L2 (Alg. 2, ``oracle='gaussian'``): release the mean gradient plus
  ``N(0, noise_std^2 I)`` (a Gaussian mechanism) and call the linear
  minimization oracle on it;
- DP-FW-L1 (Alg. 4, ``oracle='exponential'``, l1 ball only): pick one of
  the ``2 d k`` vertices ``+-radius e_j`` with the exponential mechanism on
  the score ``u(v) = -<v, grad F(W)>``, by Gumbel-max sampling.

Then ``W <- (1 - gamma_t) W + gamma_t v_t``. Everything after the release is
post-processing.
"""

import numpy as np
from scipy.integrate import quad
from scipy.special import erf, gammaln

from ._dp_svrg import _noisy_mean_gradient


def linear_minimization_oracle(gradient, constraint, radius):
    """``argmin_{v in C} <v, gradient>`` for the l1 or l2 ball of ``radius``.

    l2: ``-radius g / ||g||``; l1: ``-radius sign(g_j) e_j`` at the largest
    ``|g_j|`` (a vertex).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import linear_minimization_oracle
    >>> linear_minimization_oracle(np.array([0.5, -2.0]), "l1", 3.0).tolist()
    [0.0, 3.0]
    >>> linear_minimization_oracle(np.array([3.0, 4.0]), "l2", 1.0).tolist()
    [-0.6, -0.8]
    """
    gradient = np.asarray(gradient, dtype=float)
    vertex = np.zeros_like(gradient)
    if constraint == "l2":
        norm = np.linalg.norm(gradient)
        return vertex if norm == 0 else -radius * gradient / norm
    if constraint != "l1":
        raise ValueError(f"constraint must be 'l1' or 'l2', got {constraint!r}.")
    j = np.unravel_index(np.argmax(np.abs(gradient)), gradient.shape)
    vertex[j] = -radius * np.sign(gradient[j])
    return vertex


def frank_wolfe_gap(W, gradient, constraint, radius):
    """``max_{v in C} <-gradient, v - W>`` = ``radius ||g||_* + <g, W>``.

    The dual norm ``||g||_*`` is l2 for the l2 ball and l-infinity for the l1
    ball. Zero exactly at the stationary points of ``F`` over ``C``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import frank_wolfe_gap
    >>> frank_wolfe_gap(np.array([1.0, 0.0]), np.array([-1.0, 0.0]), "l1", 1.0)
    0.0
    """
    gradient = np.asarray(gradient, dtype=float)
    dual = np.linalg.norm(gradient) if constraint == "l2" else np.abs(gradient).max()
    return float(radius * dual + np.sum(gradient * W))


def exponential_vertex(gradient, radius, step_epsilon, sensitivity, rng):
    """A vertex ``+-radius e_j`` of the l1 ball by the exponential mechanism.

    Score ``u(v) = -<v, gradient>`` (``-radius s g_j`` for ``v = s radius
    e_j``), sampled with probability ``proportional to exp(step_epsilon u /
    (2 sensitivity))`` by the Gumbel-max trick (exact; one Gumbel draw per
    vertex). ``sensitivity`` must bound ``|u(D, v) - u(D', v)|`` for
    neighbouring data sets, every vertex: ``radius * sup ||grad F_D -
    grad F_D'||_inf``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import exponential_vertex
    >>> g = np.array([0.0, 5.0, 0.0])
    >>> exponential_vertex(g, 1.0, 100.0, 0.01, np.random.RandomState(0)).tolist()
    [0.0, -1.0, 0.0]
    """
    flat = np.asarray(gradient, dtype=float).ravel()
    scale = step_epsilon / (2.0 * sensitivity)
    # candidates: +radius e_j (score -radius g_j), then -radius e_j (+radius g_j)
    logits = scale * radius * np.concatenate([-flat, flat])
    choice = int(np.argmax(logits + rng.gumbel(size=logits.size)))
    vertex = np.zeros(flat.size)
    vertex[choice % flat.size] = radius if choice < flat.size else -radius
    return vertex.reshape(np.shape(gradient))


def gaussian_width(constraint, radius, dimension):
    """``G_C = E sup_{v in C} <g, v>``, ``g ~ N(0, I_p)``, for the l1 or l2 ball.

    l2 ball: ``radius E||g||_2 = radius sqrt(2) Gamma((p + 1) / 2) /
    Gamma(p / 2)``; l1 ball: ``radius E||g||_inf = radius int_0^inf
    (1 - (2 Phi(t) - 1)^p) dt`` (numerical quadrature). Seed 004's
    Definition 8; it enters the printed step of DP-FW-L2.

    Examples
    --------
    >>> from sklearn_ldp.optim import gaussian_width
    >>> round(gaussian_width("l2", 1.0, 1), 4), round(gaussian_width("l1", 1.0, 1), 4)
    (0.7979, 0.7979)
    """
    p = int(dimension)
    if p < 1:
        raise ValueError(f"dimension must be >= 1, got {dimension!r}.")
    if constraint == "l2":
        return float(
            radius * np.sqrt(2.0) * np.exp(gammaln((p + 1) / 2) - gammaln(p / 2))
        )
    if constraint != "l1":
        raise ValueError(f"constraint must be 'l1' or 'l2', got {constraint!r}.")

    def tail(t):
        return -np.expm1(p * np.log(erf(t / np.sqrt(2.0)))) if t > 0 else 1.0

    value, _ = quad(tail, 0.0, 40.0, limit=200)
    return float(radius * value)


def paper_frank_wolfe_step(
    oracle,
    *,
    radius,
    n_steps,
    constraint="l1",
    dimension=1,
    n_samples=1,
    epsilon=1.0,
    delta=1e-5,
):
    """The constant step seed 004 prints for DP-FW-L1 or DP-FW-L2, capped at 1.

    - DP-FW-L1 (``oracle='exponential'``, Theorem 6): ``gamma =
      sqrt(2 / (T ||C||_2^2))`` with ``||C||_2 = radius`` (the l1 ball's
      largest l2 norm).
    - DP-FW-L2 (``oracle='gaussian'``, Theorem 4): ``gamma = ((||C||_2^2 +
      G_C^2) ln(1/delta))^(1/4) / (||C||_2 sqrt(n epsilon))`` with the
      ``O(.)`` constant taken as 1 and ``||C||_2 = radius`` on both balls;
      ``G_C`` is :func:`gaussian_width` of the ball in the ``dimension``
      weights. The print has ``||C||_2 + G_C^2`` under the fourth root of
      the step but ``||C||_2^2 + G_C^2`` in ``T`` and in the bound (6); the
      squared form is the one consistent in units and is used.

    A Frank-Wolfe step is a convex combination, so a printed value above 1
    (small ``T radius^2``, outside the theorems' regime) is capped at 1.

    Examples
    --------
    >>> from sklearn_ldp.optim import paper_frank_wolfe_step
    >>> round(paper_frank_wolfe_step("exponential", radius=1.0, n_steps=50), 4)
    0.2
    """
    radius, T = float(radius), int(n_steps)
    if oracle == "exponential":
        step = np.sqrt(2.0 / (T * radius**2))
    elif oracle == "gaussian":
        width = gaussian_width(constraint, radius, dimension)
        step = ((radius**2 + width**2) * np.log(1.0 / delta)) ** 0.25 / (
            radius * np.sqrt(n_samples * epsilon)
        )
    else:
        raise ValueError(f"oracle must be 'gaussian' or 'exponential', got {oracle!r}.")
    return float(min(1.0, step))


def dp_frank_wolfe(
    X,
    targets,
    loss,
    *,
    W0,
    constraint,
    radius,
    n_steps,
    step,
    oracle,
    output,
    rng,
    noise_std=None,
    step_epsilon=None,
    score_sensitivity=None,
    callback=None,
):
    """DP-FW-L2 (seed 004 Alg. 2) or DP-FW-L1 (Alg. 4).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Rows clipped to the public bound (intercept column included).
    targets : ndarray of shape (n,)
        Encoded targets (see ``loss.encode``).
    loss : loss object
    W0 : ndarray of shape (d, k)
        Initial point, in ``C`` (public).
    constraint : {'l1', 'l2'}
    radius : float
    n_steps : int
        ``T``: number of releases.
    step : float or 'harmonic'
        Constant ``gamma`` (non-convex analysis, seed 004) or ``'harmonic'``
        for ``gamma_t = 2 / (t + 2)`` (the convex Frank-Wolfe schedule).
    oracle : {'gaussian', 'exponential'}
        Gaussian noise on the gradient + exact LMO (Alg. 2), or the
        exponential mechanism over the vertices of the l1 ball (Alg. 4).
    output : {'random', 'random_with_start', 'last'}
        ``'random'``: ``R`` uniform on the ``T`` iterates the steps produce
        (``x_2..x_{T+1}``); ``'random_with_start'``: ``x_R`` with ``R``
        uniform on ``{1..T}``, ``x_1 = W0`` included and ``x_{T+1}`` left
        out, as printed in seed 004 (Alg. 2 and 4, last line); ``'last'``:
        ``x_{T+1}``. ``R`` is drawn from ``rng`` before the run.
    rng : numpy.random.RandomState
    noise_std : float
        Std of the Gaussian noise on the mean gradient (``'gaussian'``).
    step_epsilon, score_sensitivity : float
        Per-step epsilon and score sensitivity (``'exponential'``).
    callback : callable or None
        ``callback(W, n_gradient_evaluations)`` after every step.

    Returns
    -------
    W : ndarray of shape (d, k)
    """
    if oracle == "exponential" and constraint != "l1":
        raise ValueError("The exponential-mechanism oracle needs the l1 ball.")
    n = X.shape[0]
    # ``chosen``: how many steps the returned iterate has taken.
    if output == "random":
        chosen = rng.randint(1, n_steps + 1)
    elif output == "random_with_start":
        chosen = rng.randint(0, n_steps)
    elif output == "last":
        chosen = n_steps
    else:
        raise ValueError(
            f"output must be 'random', 'random_with_start' or 'last', got {output!r}."
        )
    W = np.array(W0, dtype=float)
    kept = W
    for t in range(1, n_steps + 1):
        if oracle == "gaussian":
            gradient, _ = _noisy_mean_gradient(loss, X, targets, W, noise_std, rng)
            vertex = linear_minimization_oracle(gradient, constraint, radius)
        else:
            gradient = X.T @ loss.derivative(X @ W, targets) / n
            vertex = exponential_vertex(
                gradient, radius, step_epsilon, score_sensitivity, rng
            )
        gamma = 2.0 / (t + 1.0) if step == "harmonic" else step
        W = (1.0 - gamma) * W + gamma * vertex
        if t == chosen:
            kept = W
        if callback is not None:
            callback(W, t * n)
    return kept
