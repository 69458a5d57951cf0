"""Stochastic intermediate gradient method (SIGM), seed 001 Appendix C, Algorithm 9.

Dvurechensky and Gasnikov (2016) for a ``(gamma, L, sigma)`` stochastic
oracle on a convex set ``C`` with ``||w*|| <= R``, prox-function
``d(x) = ||x||^2 / 2`` (so every argmin below is a Euclidean projection onto
``C``). With order ``p >= 1`` and the printed parameters

    alpha_i = (1/a) ((i + p) / p)^(p - 1),   a = 2^((p - 1) / 2)
    beta_i  = L + (b sigma / R) (i + p + 1)^((2p - 1) / 2),
              b = 2^((5 - 2p) / 4) p^((1 - 2p) / 2)
    B_i     = a alpha_i^2,   A_k = sum_{i <= k} alpha_i,   eta_k = alpha_{k+1} / B_{k+1}

the iteration is (Algorithm 9, lines 2-13)

    x_0 = argmin_C d = 0;  y_0 = P_C(-alpha_0 G(x_0) / beta_0)
    z_k = P_C(-sum_{i <= k} alpha_i G(x_i) / beta_k)
    x_{k+1} = eta_k z_k + (1 - eta_k) y_k
    xhat_{k+1} = P_C(z_k - alpha_{k+1} G(x_{k+1}) / beta_k)
    w_{k+1} = eta_k xhat_{k+1} + (1 - eta_k) y_k
    y_{k+1} = (1 - B_{k+1} / A_{k+1}) y_k + (B_{k+1} / A_{k+1}) w_{k+1}

and it returns ``y_T``; ``E f(y_T) - f* = O(L R^2 / T^p + sigma R / sqrt(T) +
T^(p-1) gamma)`` (Lemma 47). With the paper's ``p = 1`` (Lemma 16):
``alpha = B = eta = 1``, ``x_{k+1} = z_k`` and ``y`` is the running average of
the ``xhat``: projected dual averaging with steps ``1 / beta_k`` growing like
``sqrt(k)``, plus iterate averaging. Line 12 prints ``eta`` without its index;
it is ``eta_k`` (as in the source paper).

:func:`sigm_one_pass` runs it as a single pass over a population of users
in disjoint random mini-batches (the paper samples one user per step; a
permutation uses each user's report once, a valid stochastic oracle with
variance ``sigma^2 / b`` for batches of ``b`` users), or in consecutive
mini-batches in the users' order (``shuffle=False``: a server reading a
report stream once; the same guarantee for exchangeable users).
"""

from functools import partial

import numpy as np


def sigm_parameters(n_steps, *, smoothness, sigma, radius, order=1):
    """The sequences ``alpha_i, beta_i, B_i, A_i`` for ``i = 0..n_steps`` (Appendix C)."""
    p = float(order)
    if p < 1:
        raise ValueError(f"order must be >= 1, got {order!r}.")
    a = 2.0 ** ((p - 1.0) / 2.0)
    b = 2.0 ** ((5.0 - 2.0 * p) / 4.0) * p ** ((1.0 - 2.0 * p) / 2.0)
    i = np.arange(n_steps + 1, dtype=float)
    alpha = ((i + p) / p) ** (p - 1.0) / a
    beta = smoothness + (b * sigma / radius) * (i + p + 1.0) ** ((2.0 * p - 1.0) / 2.0)
    big_b = a * alpha**2
    big_a = np.cumsum(alpha)
    return alpha, beta, big_b, big_a


def sigm(oracle, dim, *, n_steps, smoothness, sigma, radius, projection, order=1):
    """Run Algorithm 9 for ``n_steps`` steps; ``n_steps + 1`` oracle calls.

    Parameters
    ----------
    oracle : callable
        ``oracle(w, k) -> ndarray of shape (dim,)``: the stochastic gradient
        at ``w`` from the ``k``-th sample (``k = 0..n_steps``). For one pass
        over the users, call ``k`` uses the ``k``-th disjoint batch.
    dim : int
    n_steps : int
        ``T >= 0``.
    smoothness : float
        ``L`` of the objective (the oracle's ``beta``).
    sigma : float
        Standard deviation bound of the oracle, ``E ||G - g||^2 <= sigma^2``.
    radius : float
        ``R >= ||w*||``; the feasible set is inside the ball of radius ``R``.
    projection : callable
        Euclidean projection onto ``C``.
    order : float, default=1
        ``p`` (the paper uses ``p = 1``).

    Returns
    -------
    w : ndarray of shape (dim,)
        ``y_T``.

    Examples
    --------
    Minimize ``||w - c||^2 / 2`` over the unit ball from noisy gradients:

    >>> import numpy as np
    >>> from sklearn_ldp.optim import sigm, project_l2_ball
    >>> rng = np.random.RandomState(0)
    >>> c = np.array([0.5, 0.0])
    >>> w = sigm(lambda w, k: w - c + 0.1 * rng.standard_normal(2), 2,
    ...          n_steps=2000, smoothness=1.0, sigma=0.15, radius=1.0,
    ...          projection=lambda v: project_l2_ball(v, 1.0))
    >>> np.round(w, 1).tolist()
    [0.5, 0.0]
    """
    n_steps = int(n_steps)
    if n_steps < 0:
        raise ValueError(f"n_steps must be >= 0, got {n_steps!r}.")
    if smoothness < 0 or sigma < 0 or radius <= 0:
        raise ValueError("smoothness and sigma must be >= 0 and radius > 0.")
    if smoothness == 0 and sigma == 0:
        raise ValueError("smoothness and sigma cannot both be 0 (infinite steps).")
    alpha, beta, big_b, big_a = sigm_parameters(
        n_steps, smoothness=smoothness, sigma=sigma, radius=radius, order=order
    )
    x = projection(np.zeros(dim))
    gradient = np.asarray(oracle(x, 0), dtype=float)
    weighted_sum = alpha[0] * gradient
    # <G_i, x - x_i> terms: only sum alpha_i G_i matters for the argmin.
    y = projection(x - alpha[0] * gradient / beta[0])
    for k in range(n_steps):
        eta = alpha[k + 1] / big_b[k + 1]
        z = projection(-weighted_sum / beta[k])
        x = eta * z + (1.0 - eta) * y
        gradient = np.asarray(oracle(x, k + 1), dtype=float)
        weighted_sum = weighted_sum + alpha[k + 1] * gradient
        x_hat = projection(z - alpha[k + 1] * gradient / beta[k])
        w = eta * x_hat + (1.0 - eta) * y
        share = big_b[k + 1] / big_a[k + 1]
        y = (1.0 - share) * y + share * w
    return y


def sigm_one_pass(
    batch_gradient,
    dim,
    *,
    n_users,
    max_steps,
    smoothness,
    user_second_moment,
    radius,
    projection,
    rng,
    shuffle=True,
):
    """One pass of SIGM over ``n_users`` users in ``n_steps + 1`` mini-batches.

    Parameters
    ----------
    batch_gradient : callable
        ``batch_gradient(w, indices) -> ndarray of shape (dim,)``: the
        average of the users' stochastic gradients at ``w`` over ``indices``.
    dim : int
    n_users : int
    max_steps : int
        ``n_steps = min(max_steps, n_users - 1)``, so every batch has a user.
    smoothness : float
        ``L`` of the objective.
    user_second_moment : float
        Bound (or estimate) of ``E ||G_i||^2`` for one user's gradient; the
        oracle's ``sigma`` is its square root over the smallest batch size.
    radius : float
        ``R >= ||w*||``.
    projection : callable
        Euclidean projection onto the feasible set.
    rng : RandomState
        Draws the permutation of the users.
    shuffle : bool, default=True
        Random disjoint batches. False: consecutive ranges of users in
        order (a server reading a stream once: the batches are drawn
        without looking at the data, so with exchangeable users each step
        still gets fresh users, each user used once).

    Returns
    -------
    w : ndarray of shape (dim,)
    n_steps : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import project_l2_ball, sigm_one_pass
    >>> rng = np.random.RandomState(0)
    >>> targets = np.array([0.5, 0.0]) + 0.1 * rng.standard_normal((5000, 2))
    >>> w, n_steps = sigm_one_pass(
    ...     lambda w, users: w - targets[users].mean(axis=0), 2, n_users=5000,
    ...     max_steps=500, smoothness=1.0, user_second_moment=0.02, radius=1.0,
    ...     projection=lambda v: project_l2_ball(v, 1.0), rng=rng)
    >>> np.round(w, 1).tolist(), n_steps
    ([0.5, 0.0], 500)
    """
    n_steps = min(int(max_steps), int(n_users) - 1)
    users = rng.permutation(n_users) if shuffle else np.arange(n_users)
    batches = np.array_split(users, n_steps + 1)
    sigma = np.sqrt(float(user_second_moment) / min(len(b) for b in batches))
    w = sigm(
        partial(_batch_step, batch_gradient, batches),
        dim,
        n_steps=n_steps,
        smoothness=smoothness,
        sigma=sigma,
        radius=radius,
        projection=projection,
    )
    return w, n_steps


def _batch_step(batch_gradient, batches, w, k):
    return batch_gradient(w, batches[k])
