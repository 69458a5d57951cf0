"""Pilot estimates of a gradient oracle's noise, for step sizes and degree choice.

The polynomial oracles' variance depends on ``w`` and on the report noise;
the server estimates it from the reports themselves (post-processing, no
privacy cost): the mean squared norm of the per-user oracle at a *pilot
point* on a subset of users. An oracle here has ``n_users``,
``param_shape``, ``mean(w)`` and ``second_moment(w, indices, rng)``
(:class:`~sklearn_ldp.aggregation.PolynomialGradientOracle`,
:class:`~sklearn_ldp.aggregation.GLMGradientOracle`).
"""

import numpy as np

#: Candidate degrees of ``degree='auto'``.
AUTO_DEGREES = tuple(range(1, 7))
#: Users on which the server estimates an oracle's second moment.
PILOT_USERS = 20_000


def pilot_point(gradient_at_zero, radius):
    """Each column of ``-gradient_at_zero`` rescaled to the sphere of radius ``radius``.

    The mean oracle at 0 is an unbiased estimate of the risk's gradient at
    0, so this is a plausible point of the solver's path; the oracle's
    variance grows with ``||w||``, so the sphere is the pessimistic case. A
    zero column is replaced by a constant direction.

    Parameters
    ----------
    gradient_at_zero : ndarray of shape (dim,) or (dim, n_outputs)
    radius : float

    Returns
    -------
    w : ndarray of the same shape

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import pilot_point
    >>> pilot_point(np.array([[3.0, 0.0], [4.0, 0.0]]), 2.0).round(3).tolist()
    [[-1.2, 1.414], [-1.6, 1.414]]
    """
    gradient = -np.array(gradient_at_zero, dtype=float)
    columns = gradient.reshape(gradient.shape[0], -1)
    norms = np.linalg.norm(columns, axis=0)
    columns[:, norms == 0] = 1.0
    columns *= radius / np.linalg.norm(columns, axis=0)
    return columns.reshape(gradient.shape)


def pilot_users(n_users, rng):
    """Sorted indices of ``min(n_users, PILOT_USERS)`` users drawn without replacement."""
    n = min(n_users, PILOT_USERS)
    return np.sort(rng.choice(n_users, size=n, replace=False))


def pilot_second_moment(oracle, radius, rng):
    """The oracle's mean squared norm per user at the pilot point of radius ``radius``."""
    pilot = pilot_point(oracle.mean(np.zeros(oracle.param_shape)), radius)
    return oracle.second_moment(pilot, pilot_users(oracle.n_users, rng), rng)


def select_degree(make_oracle, degrees, *, radius, rng):
    """The degree minimizing (approximation error)^2 + oracle variance / n.

    Parameters
    ----------
    make_oracle : callable
        ``make_oracle(degree) -> (oracle, bias)``: the oracle of that degree
        and the sup-norm error of its polynomial in the gradient, per output.
    degrees : sequence of int
        Candidates, in order (ties keep the first).
    radius : float
        Radius of the pilot point (the solver's ball).
    rng : RandomState
        Server randomness.

    Returns
    -------
    degree : int

    Notes
    -----
    The pilot point and the pilot users are those of the first candidate,
    so every degree is scored at the same ``w`` on the same users. The score
    of an oracle with ``k`` outputs is ``k bias^2 + second_moment / n``.
    """
    best, best_score, pilot, users = None, np.inf, None, None
    for degree in degrees:
        oracle, bias = make_oracle(degree)
        if pilot is None:
            pilot = pilot_point(oracle.mean(np.zeros(oracle.param_shape)), radius)
            users = pilot_users(oracle.n_users, rng)
        n_outputs = int(np.prod(oracle.param_shape[1:]))
        variance = oracle.second_moment(pilot, users, rng) / oracle.n_users
        score = n_outputs * bias**2 + variance
        if score < best_score:
            best, best_score = degree, score
    return best
