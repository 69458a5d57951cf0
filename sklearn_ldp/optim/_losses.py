"""Losses of linear classifiers, with the public constants DP solvers need.

A loss is a function of the scores ``s = x^T W`` (``W`` of shape
``(n_features, n_outputs)``) and a target. The per-example gradient with
respect to ``W`` is ``x d^T`` where ``d = dloss/ds`` has one entry per output,
so ``||grad|| = ||x|| ||d||`` (Frobenius). Each loss states

- ``derivative_bound``: ``sup ||d||``, so that ``G = derivative_bound * R``
  bounds every per-example gradient when rows have ``||x|| <= R``;
- ``derivative_range``: ``sup ||d(s) - d(s')||`` for one target, so that
  ``grad f_i(w) - grad f_i(w')`` (the variance-reduced term of SVRG) is
  bounded by ``derivative_range * R``;
- ``curvature``: ``sup ||d^2 loss/ds^2||`` (operator norm), so that
  ``curvature * R^2`` bounds the smoothness of each ``f_i``.

Binary losses take targets in {-1, +1} and one output (margin
``m = t s``); ``'multinomial'`` takes class indices and one output per class.
``'squared_hinge'`` has an unbounded derivative, so its bounds need a public
bound on the margin, ``|m| <= R * coef_norm`` (the solver projects the
weights on the l2 ball of radius ``coef_norm``).
"""

import numpy as np
from scipy.special import expit, log_expit, logsumexp, softmax


class _BinaryLoss:
    n_outputs_per_class = None
    convex = True

    def encode(self, class_indices, n_classes):
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
        # d = t l'(m) and l' has one sign for every loss here, so two values
        # for the same target differ by at most sup |l'|.
        return self.derivative_bound(row_norm, coef_norm)


class LogisticLoss(_BinaryLoss):
    """``log(1 + exp(-m))``: ``|l'| <= 1``, ``l'' <= 1/4``."""

    name = "logistic"

    def _value_margin(self, margins):
        return -log_expit(margins)

    def _derivative_margin(self, margins):
        return -expit(-margins)

    def derivative_bound(self, row_norm, coef_norm=None):
        return 1.0

    curvature = 0.25


class SquaredHingeLoss(_BinaryLoss):
    """``max(0, 1 - m)^2``: ``|l'| <= 2 (1 + R coef_norm)``, ``l'' <= 2``."""

    name = "squared_hinge"

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

    curvature = 2.0


class SigmoidLoss(_BinaryLoss):
    """``1 / (1 + exp(m))`` (non-convex; seed 004's experiment).

    ``l'(m) = -sigma(m) sigma(-m)``, so ``|l'| <= 1/4``; ``|l''|`` peaks at
    ``1 / (6 sqrt(3))``.
    """

    name = "sigmoid"
    convex = False

    def _value_margin(self, margins):
        return expit(-margins)

    def _derivative_margin(self, margins):
        return -expit(margins) * expit(-margins)

    def derivative_bound(self, row_norm, coef_norm=None):
        return 0.25

    curvature = 1.0 / (6.0 * np.sqrt(3.0))


class MultinomialLoss:
    """Softmax cross-entropy ``logsumexp(s) - s_y``.

    ``d = softmax(s) - e_y``: ``||d|| <= sqrt(2)`` (two points of the simplex
    are at most ``sqrt(2)`` apart, and ``d(s) - d(s') = p - p'`` likewise);
    the Hessian ``diag(p) - p p^T`` has norm ``<= 1/2``.
    """

    name = "multinomial"
    convex = True
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


LOSSES = {
    "logistic": LogisticLoss,
    "squared_hinge": SquaredHingeLoss,
    "sigmoid": SigmoidLoss,
    "multinomial": MultinomialLoss,
}


def get_loss(name):
    """The loss object called ``name`` (see ``LOSSES``)."""
    try:
        return LOSSES[name]()
    except KeyError:
        raise ValueError(
            f"Unknown loss {name!r}; use one of {sorted(LOSSES)}."
        ) from None


def gradient_bound(loss, row_norm, coef_norm=None):
    """``G``: bound on every per-example gradient norm when ``||x|| <= row_norm``.

    Examples
    --------
    >>> from sklearn_ldp.optim import gradient_bound, get_loss
    >>> gradient_bound(get_loss("logistic"), 2.0)
    2.0
    >>> round(gradient_bound(get_loss("multinomial"), 1.0), 4)
    1.4142
    """
    return float(loss.derivative_bound(row_norm, coef_norm) * row_norm)


def difference_bound(loss, row_norm, coef_norm=None):
    """Bound on ``||grad f_i(w) - grad f_i(w')||`` for one example, any ``w, w'``."""
    return float(loss.derivative_range(row_norm, coef_norm) * row_norm)


def smoothness(loss, row_norm):
    """Bound on the smoothness constant of each ``f_i`` when ``||x|| <= row_norm``."""
    return float(loss.curvature * row_norm**2)


def per_example_gradients(loss, X, W, targets):
    """Per-example gradients, shape ``(n, n_features, n_outputs)``.

    For tests and small data only (memory ``n * n_features * n_outputs``); the
    solvers use ``X.T @ loss.derivative(X @ W, targets)`` for sums.
    """
    d = loss.derivative(X @ W, targets)
    return X[:, :, None] * d[:, None, :]
