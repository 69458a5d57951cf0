"""Classification losses: margin losses of a binary label, and the multinomial loss.

A margin loss is a function ``f(t)`` of the margin ``t = y s`` (``y`` in
{-1, +1}, ``s`` a score). As a datafit of scores ``s = x^T W`` (``W`` of
shape ``(n_features, n_outputs)``) the per-example gradient with respect to
``W`` is ``x d^T`` with ``d = dloss/ds`` (one entry per output), so
``||grad|| = ||x|| ||d||`` (Frobenius). Each datafit states

- ``derivative_bound(row_norm, coef_norm)``: ``sup ||d||``, so that
  ``G = derivative_bound * R`` bounds every per-example gradient when rows
  have ``||x|| <= R``;
- ``derivative_range(row_norm, coef_norm)``: ``sup ||d(s) - d(s')||`` for one
  target, so that ``grad f_i(w) - grad f_i(w')`` (the variance-reduced term
  of SVRG) is bounded by ``derivative_range * R``;
- ``curvature``: ``sup ||d^2 loss/ds^2||`` (operator norm), so that
  ``curvature * R^2`` bounds the smoothness of each ``f_i``; for a margin
  loss it is ``sup |f''|``.

``'squared_hinge'`` has an unbounded derivative, so its bounds need a public
bound on the margin, ``|t| <= R * coef_norm`` (the solver projects the
weights on the l2 ball of radius ``coef_norm``).
"""

import numpy as np
from scipy.special import expit, log_expit, logsumexp, softmax

from ._base import Loss, check_positive


class MarginLoss(Loss):
    """A loss ``f(y s)`` of the margin of a binary label; see the module docstring.

    Subclasses implement ``_value_margin(t)``, ``_derivative_margin(t)`` and
    ``derivative_bound``, and set ``name`` and ``curvature``.
    """

    kind = "margin"

    def margin_value(self, t):
        """``f(t)``, elementwise."""
        return self._value_margin(np.asarray(t, dtype=float))

    def margin_derivative(self, t):
        """``f'(t)``, elementwise (a subgradient where ``f`` has a kink)."""
        return self._derivative_margin(np.asarray(t, dtype=float))

    def encode(self, class_indices, n_classes):
        """Targets of the datafit: class 1 is +1, class 0 is -1."""
        if n_classes != 2:
            raise ValueError(f"loss={self.name!r} is binary; got {n_classes} classes.")
        return np.where(np.asarray(class_indices) == 1, 1.0, -1.0)

    def n_outputs(self, n_classes):
        return 1

    def value(self, scores, targets):
        """Per-example loss, shape ``(n,)``."""
        return self._value_margin(scores[:, 0] * targets)

    def derivative(self, scores, targets):
        """``dloss/dscores``, shape ``(n, 1)``."""
        return (targets * self._derivative_margin(scores[:, 0] * targets))[:, None]

    def derivative_range(self, row_norm, coef_norm=None):
        # d = t f'(m) and f' has one sign for every loss here, so two values
        # for the same target differ by at most sup |f'|.
        return self.derivative_bound(row_norm, coef_norm)


class LogisticLoss(MarginLoss):
    """``log(1 + exp(-t))``: ``|f'| <= 1``, ``f'' <= 1/4``."""

    name = "logistic"
    curvature = 0.25

    def _value_margin(self, margins):
        return -log_expit(margins)

    def _derivative_margin(self, margins):
        return -expit(-margins)

    def derivative_bound(self, row_norm, coef_norm=None):
        return 1.0


class HingeLoss(MarginLoss):
    """``max(0, 1 - t)``: ``|f'| <= 1``; its derivative jumps at ``t = 1``."""

    name = "hinge"

    def _value_margin(self, margins):
        return np.maximum(0.0, 1.0 - margins)

    def _derivative_margin(self, margins):
        return np.where(margins < 1.0, -1.0, 0.0)

    def derivative_bound(self, row_norm, coef_norm=None):
        return 1.0


class SquaredHingeLoss(MarginLoss):
    """``max(0, 1 - t)^2``: ``|f'| <= 2 (1 + R coef_norm)``, ``f'' <= 2``."""

    name = "squared_hinge"
    curvature = 2.0

    def _value_margin(self, margins):
        return np.maximum(0.0, 1.0 - margins) ** 2

    def _derivative_margin(self, margins):
        return -2.0 * np.maximum(0.0, 1.0 - margins)

    def derivative_bound(self, row_norm, coef_norm=None):
        if coef_norm is None:
            raise ValueError(
                "loss='squared_hinge' has an unbounded gradient unless the "
                "weights are bounded: set coef_norm (a public radius)."
            )
        return 2.0 * (1.0 + row_norm * coef_norm)


class ModifiedHuberLoss(MarginLoss):
    """``-4 t`` for ``t < -1``, else ``max(0, 1 - t)^2``: ``|f'| <= 4``, ``f'' <= 2``.

    The classification Huber loss of Zhang (2004), as
    ``SGDClassifier(loss='modified_huber')``; ``'huber'`` is the regression
    Huber loss of a residual.
    """

    name = "modified_huber"
    curvature = 2.0

    def _value_margin(self, margins):
        return np.where(
            margins < -1.0, -4.0 * margins, np.maximum(0.0, 1.0 - margins) ** 2
        )

    def _derivative_margin(self, margins):
        return np.where(margins < -1.0, -4.0, -2.0 * np.maximum(0.0, 1.0 - margins))

    def derivative_bound(self, row_norm, coef_norm=None):
        return 4.0


class SmoothedHingeLoss(MarginLoss):
    """``f_beta(t) = (1/2 - t + sqrt((1/2 - t)^2 + beta^2)) / 2``, ``beta = smoothing``.

    Smooth and convex, within ``beta / 2`` of ``max(0, 1/2 - t)``;
    ``f_beta'`` lies in ``[-1, 0]`` and ``f_beta'' = beta^2 / (2 ((1/2 -
    t)^2 + beta^2)^(3/2)) <= 1 / (2 beta)``.

    Notes
    -----
    Wang, Gaboardi, Smith and Xu, JMLR 21 (2020), Lemma 28 (which states the
    looser ``f_beta'' <= 1 / beta``).
    """

    name = "smoothed_hinge"

    def __init__(self, smoothing=0.5):
        self.smoothing = check_positive(smoothing, "smoothing")

    def get_params(self):
        return {"smoothing": self.smoothing}

    @property
    def curvature(self):
        return 1.0 / (2.0 * self.smoothing)

    def _value_margin(self, margins):
        gap = 0.5 - margins
        return 0.5 * (gap + np.hypot(gap, self.smoothing))

    def _derivative_margin(self, margins):
        gap = 0.5 - margins
        return -0.5 * (1.0 + gap / np.hypot(gap, self.smoothing))

    def derivative_bound(self, row_norm, coef_norm=None):
        return 1.0


class SigmoidLoss(MarginLoss):
    """``1 / (1 + exp(t))`` (non-convex).

    ``f'(t) = -sigma(t) sigma(-t)``, so ``|f'| <= 1/4``; ``|f''|`` peaks at
    ``1 / (6 sqrt(3))``.

    Notes
    -----
    The loss of seed 004's non-convex experiment.
    """

    name = "sigmoid"
    convex = False
    curvature = 1.0 / (6.0 * np.sqrt(3.0))

    def _value_margin(self, margins):
        return expit(-margins)

    def _derivative_margin(self, margins):
        return -expit(margins) * expit(-margins)

    def derivative_bound(self, row_norm, coef_norm=None):
        return 0.25


class DerivativeMarginLoss(MarginLoss):
    """A convex margin loss known by its derivative ``f'`` only (a user's callable).

    Only ``margin_derivative`` is available; ``curvature`` is the Lipschitz
    constant of ``f'`` when the user gives one.

    Parameters
    ----------
    derivative : callable
        Vectorized ``f'``.
    curvature : float or None, default=None
        Bound on ``f''`` (None: unknown).
    """

    name = "callable"

    def __init__(self, derivative, curvature=None):
        if not callable(derivative):
            raise ValueError(f"derivative must be callable, got {derivative!r}.")
        self._derivative = derivative
        self.curvature = None if curvature is None else float(curvature)

    def get_params(self):
        return {"derivative": self._derivative, "curvature": self.curvature}

    def margin_derivative(self, t):
        return self._derivative(t)

    def _derivative_margin(self, margins):
        return self._derivative(margins)

    def _value_margin(self, margins):
        raise ValueError("This loss is known by its derivative only.")

    def derivative_bound(self, row_norm, coef_norm=None):
        raise ValueError("This loss is known by its derivative only: no bound.")


class MultinomialLoss(Loss):
    """Softmax cross-entropy ``logsumexp(s) - s_y``.

    ``d = softmax(s) - e_y``: ``||d|| <= sqrt(2)`` (two points of the simplex
    are at most ``sqrt(2)`` apart, and ``d(s) - d(s') = p - p'`` likewise);
    the Hessian ``diag(p) - p p^T`` has norm ``<= 1/2``.
    """

    name = "multinomial"
    kind = "multiclass"
    curvature = 0.5

    def encode(self, class_indices, n_classes):
        return np.asarray(class_indices, dtype=np.intp)

    def n_outputs(self, n_classes):
        return n_classes

    def value(self, scores, targets):
        picked = np.take_along_axis(scores, targets[:, None], axis=1)[:, 0]
        return logsumexp(scores, axis=1) - picked

    def derivative(self, scores, targets):
        d = softmax(scores, axis=1)
        d[np.arange(targets.shape[0]), targets] -= 1.0
        return d

    def derivative_bound(self, row_norm, coef_norm=None):
        return np.sqrt(2.0)

    def derivative_range(self, row_norm, coef_norm=None):
        return np.sqrt(2.0)


def check_convex_derivative(derivative, interval, n_points=1001):
    """Refuse a loss derivative that is not finite and non-decreasing on the interval."""
    grid = np.linspace(*interval, n_points)
    values = np.asarray(derivative(grid), dtype=float)
    if values.shape != grid.shape or not np.all(np.isfinite(values)):
        raise ValueError(
            "The loss derivative must be a vectorized function returning finite "
            f"values of the same shape; got shape {values.shape} on a grid of "
            f"{grid.shape}."
        )
    if np.any(np.diff(values) < -1e-12 * max(1.0, np.abs(values).max())):
        raise ValueError(
            "The loss derivative decreases on the reachable interval "
            f"[{interval[0]:.3g}, {interval[1]:.3g}]: the loss is not convex."
        )
