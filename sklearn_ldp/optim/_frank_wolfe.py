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
    output : {'random', 'last'}
        ``x_R`` with ``R`` uniform on the ``T`` iterates the steps produce
        (drawn before the run), or the last iterate.
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
    chosen = rng.randint(1, n_steps + 1) if output == "random" else n_steps
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
