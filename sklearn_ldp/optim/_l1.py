"""Exact Euclidean projection onto the l1 ball (Duchi et al., ICML 2008)."""

import numpy as np


def project_l1_ball(v, radius=1.0):
    """Euclidean projection of ``v`` onto ``{w : ||w||_1 <= radius}``.

    The sort-based algorithm of Duchi, Shalev-Shwartz, Singer and Chandra
    (2008, Figure 1), exact and ``O(d log d)``. The projection of a point
    outside the ball is the soft-thresholding ``sign(v) max(|v| - theta, 0)``
    whose threshold ``theta > 0`` puts it on the sphere: with ``u`` the
    magnitudes sorted in decreasing order and ``rho`` the largest ``j`` with
    ``u_j > (sum_{i<=j} u_i - radius) / j``, ``theta = (sum_{i<=rho} u_i -
    radius) / rho``.

    Parameters
    ----------
    v : array-like of shape (d,)
        The point to project.
    radius : float, default=1.0
        Radius of the ball, ``> 0``.

    Returns
    -------
    w : ndarray of shape (d,)
        The nearest point of the ball (a copy of ``v`` if it is inside).

    Examples
    --------
    >>> from sklearn_ldp.optim import project_l1_ball
    >>> project_l1_ball([3.0, -1.0, 0.5], radius=2.0).tolist()
    [2.0, -0.0, 0.0]
    >>> project_l1_ball([0.5, -0.25], radius=1.0).tolist()
    [0.5, -0.25]
    """
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 1:
        raise ValueError(f"v must be 1-dimensional, got shape {v.shape}.")
    radius = float(radius)
    if not np.isfinite(radius) or radius <= 0:
        raise ValueError(f"radius must be a finite number > 0, got {radius!r}.")
    if not np.all(np.isfinite(v)):
        raise ValueError("v contains NaN or infinity.")
    magnitudes = np.abs(v)
    if magnitudes.sum() <= radius:
        return v.copy()
    return np.sign(v) * np.maximum(magnitudes - _l1_threshold(magnitudes, radius), 0.0)


def _l1_threshold(magnitudes, radius):
    """The soft threshold ``theta`` of the projection of ``|v|`` (outside the ball)."""
    sorted_desc = np.sort(magnitudes)[::-1]
    cumulative = np.cumsum(sorted_desc) - radius
    ranks = np.arange(1, sorted_desc.size + 1)
    rho = np.flatnonzero(sorted_desc * ranks > cumulative)[-1]
    return cumulative[rho] / (rho + 1.0)
