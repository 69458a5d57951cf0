"""Minimize over l2 balls with an unbiased gradient oracle built from reports.

The LDP linear classifiers have, for any model ``W``, an unbiased estimate
of the risk's gradient from the users' reports (an *oracle*: ``mean(W)``
over all users, ``batch(W, indices, rng)`` over some, ``n_users`` and
``param_shape``, ``(dim,)`` or ``(dim, n_outputs)``). Each column of ``W``
(one class) is constrained to the l2 ball of radius ``radius``. Two solvers:
accelerated projected gradient on the full-batch field (free
post-processing of the reports) and one pass of SIGM over the users.
"""

from functools import partial

import numpy as np

from ._projected_gradient import accelerated_projected_gradient
from ._sigm import sigm_one_pass

SOLVERS = ("gd", "sigm")


def project_columns_l2(W, radius):
    """Project each column of ``W`` (``W`` itself when 1-D) on the l2 ball of radius ``radius``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import project_columns_l2
    >>> project_columns_l2(np.array([[3.0, 0.1], [4.0, 0.0]]), 1.0).tolist()
    [[0.6, 0.1], [0.8, 0.0]]
    """
    W = np.asarray(W, dtype=float)
    norms = np.linalg.norm(W, axis=0)
    return W * np.minimum(1.0, radius / np.maximum(norms, 1e-300))


def minimize_on_ball(
    oracle,
    *,
    solver,
    smoothness,
    radius,
    max_iter,
    rng,
    user_second_moment=None,
    l2_penalty=None,
):
    """Minimize with an unbiased gradient oracle, each column of ``W`` in an l2 ball.

    Parameters
    ----------
    oracle : object
        ``mean(W)``, ``batch(W, indices, rng)``, ``n_users`` and
        ``param_shape`` (module docstring).
    solver : {'gd', 'sigm'}
        ``'gd'``: :func:`accelerated_projected_gradient` on ``oracle.mean``
        from 0, ``max_iter`` iterations at most. ``'sigm'``:
        :func:`sigm_one_pass` in ``max_iter + 1`` mini-batches (random
        ones, or consecutive users in order for an oracle with
        ``sequential = True``, which reads a report stream once).
    smoothness : float
        ``L`` of the objective (the step of ``'gd'`` is ``1 / L``).
    radius : float
        Radius of each column's ball.
    max_iter : int
    rng : RandomState
        Server randomness (``'sigm'``: the batches and the oracle's draws).
    user_second_moment : float, default=None
        ``E ||G_i||^2`` of one user's oracle (required by ``'sigm'``).
    l2_penalty : ndarray or None, default=None
        Broadcastable to ``param_shape``: adds ``l2_penalty * W`` to the
        gradient (the penalty ``sum l2_penalty W^2 / 2``).

    Returns
    -------
    W : ndarray of shape ``oracle.param_shape``
    n_iter : int
    """
    shape = tuple(oracle.param_shape)
    dim = int(np.prod(shape))
    projection = partial(_flat_projection, shape, radius)
    if solver == "gd":
        w, n_iter = accelerated_projected_gradient(
            partial(_mean_gradient, oracle, shape, l2_penalty),
            np.zeros(dim),
            step=1.0 / smoothness,
            projection=projection,
            max_iter=max_iter,
        )
    elif solver == "sigm":
        if user_second_moment is None:
            raise ValueError("solver='sigm' needs the oracle's user_second_moment.")
        n_columns = dim // shape[0]
        w, n_iter = sigm_one_pass(
            partial(_batch_gradient, oracle, shape, l2_penalty, rng),
            dim,
            n_users=oracle.n_users,
            max_steps=max_iter,
            smoothness=smoothness,
            user_second_moment=user_second_moment,
            radius=radius * np.sqrt(n_columns),
            projection=projection,
            rng=rng,
            # A streamed oracle reads its users in stream order, once.
            shuffle=not getattr(oracle, "sequential", False),
        )
    else:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}.")
    return w.reshape(shape), n_iter


def _penalized(gradient, W, l2_penalty):
    return gradient if l2_penalty is None else gradient + l2_penalty * W


def _mean_gradient(oracle, shape, l2_penalty, w):
    W = w.reshape(shape)
    return _penalized(oracle.mean(W), W, l2_penalty).ravel()


def _batch_gradient(oracle, shape, l2_penalty, rng, w, indices):
    W = w.reshape(shape)
    return _penalized(oracle.batch(W, indices, rng), W, l2_penalty).ravel()


def _flat_projection(shape, radius, w):
    return project_columns_l2(w.reshape(shape), radius).ravel()
