"""Risks the benchmarks measure, written out in numpy.

The benchmarks measure an estimator with their own arithmetic, never with
the library's internals: a margin loss ``f`` applied to ``s (<w, x> + b)``,
``s = 2 y - 1`` for labels ``y`` in ``{0, 1}``, on users clipped to their
public l2 bound as they clip before reporting. The derivatives feed
:func:`benchmarks._baselines.ball_minimum`.
"""

import numpy as np
from scipy.special import expit, log_expit

from sklearn_ldp.randomizers import clip_l2


def logistic(margins):
    """``log(1 + exp(-m))``."""
    return -log_expit(margins)


def logistic_derivative(margins):
    return -expit(-np.asarray(margins))


def hinge(margins):
    """``max(0, 1 - m)``."""
    return np.maximum(0.0, 1.0 - np.asarray(margins, dtype=float))


def squared_hinge(margins):
    """``max(0, 1 - m)^2``."""
    return hinge(margins) ** 2


def squared_hinge_derivative(margins):
    return -2.0 * hinge(margins)


def modified_huber(margins):
    """``-4 m`` below ``m = -1``, ``max(0, 1 - m)^2`` above (Zhang, 2004; the
    loss of ``SGDClassifier(loss='modified_huber')``)."""
    margins = np.asarray(margins, dtype=float)
    return np.where(margins < -1.0, -4.0 * margins, squared_hinge(margins))


def modified_huber_derivative(margins):
    margins = np.asarray(margins, dtype=float)
    return np.where(margins < -1.0, -4.0, squared_hinge_derivative(margins))


def smoothed_hinge(margins, smoothing):
    """``(1/2 - m + sqrt((1/2 - m)^2 + beta^2)) / 2``: convex, smooth, within
    ``beta / 2`` of ``max(0, 1/2 - m)`` (the loss of ``HingeLDPClassifier``)."""
    gap = 0.5 - np.asarray(margins, dtype=float)
    return 0.5 * (gap + np.hypot(gap, smoothing))


def smoothed_hinge_derivative(margins, smoothing):
    gap = 0.5 - np.asarray(margins, dtype=float)
    return -0.5 * (1.0 + gap / np.hypot(gap, smoothing))


def margin_risk(loss, coef, intercept, X, y, *, data_norm=1.0):
    """Empirical risk ``mean loss(s (<w, x> + b))`` of a binary linear model.

    ``coef`` and ``intercept`` are in the units of ``X`` (as fitted), ``y``
    holds labels in ``{0, 1}`` and ``X`` is clipped to ``data_norm``.
    """
    scores = clip_l2(X, data_norm) @ np.atleast_2d(coef).T + np.ravel(intercept)
    signs = 2.0 * np.asarray(y, dtype=float) - 1.0
    return float(np.mean(loss(signs * scores[:, 0])))
