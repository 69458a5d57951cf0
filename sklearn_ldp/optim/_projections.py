"""Euclidean projections onto the constraint sets of the solvers."""

import numpy as np


def project_l2_ball(w, radius):
    """Project ``w`` onto the l2 ball ``{v : ||v|| <= radius}``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import project_l2_ball
    >>> project_l2_ball(np.array([3.0, 4.0]), 1.0).tolist()
    [0.6, 0.8]
    """
    w = np.asarray(w, dtype=float)
    norm = float(np.linalg.norm(w))
    if norm <= radius:
        return w.copy()
    return w * (radius / norm)
