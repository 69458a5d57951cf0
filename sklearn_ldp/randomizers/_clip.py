"""Clipping to public bounds: the first step of every local randomizer.

Clipping happens on the user's device before any noise is added; it uses only
the public bound, so it costs no privacy, and it is what makes the
sensitivity of the release equal to the declared bound.
"""

import numpy as np

from ..utils import row_norms


def clip_l2(X, bound):
    """Scale each row of ``X`` into the l2 ball of radius ``bound``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import clip_l2
    >>> clip_l2(np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0).round(2).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    >>> clip_l2(np.array([[3e200, 4e200]]), 1.0).round(2).tolist()
    [[0.6, 0.8]]
    """
    X = np.asarray(X, dtype=np.float64)
    # Exact norms (scaled by the largest entry: squaring 1e200 overflows, and
    # a row of norm inf would be mapped to zero instead of to the boundary).
    # Rows inside the ball get the factor bound / bound = 1 exactly: unchanged.
    norms = row_norms(X)[..., None]
    return X * (bound / np.maximum(norms, bound))


def clip_interval(values, lower, upper):
    """Clip values to ``[lower, upper]``.

    Examples
    --------
    >>> from sklearn_ldp.randomizers import clip_interval
    >>> clip_interval([-5.0, 0.5, 5.0], -1.0, 1.0).tolist()
    [-1.0, 0.5, 1.0]
    """
    return np.clip(np.asarray(values, dtype=np.float64), lower, upper)
