"""Regression losses: functions of the residual ``r = y - s`` of a numeric target."""

import numpy as np

from ._base import Loss, check_positive


class ResidualLoss(Loss):
    """A loss ``l(r)`` of the residual; ``value`` and ``derivative`` are elementwise.

    Subclasses implement ``value(residual)`` and ``derivative(residual)``
    for arrays of any shape, and set ``name`` and ``curvature``.
    """

    kind = "residual"


class SquaredLoss(ResidualLoss):
    """``r^2``: ``l' = 2 r``, ``l'' = 2``."""

    name = "squared"
    curvature = 2.0

    def value(self, residual):
        return np.asarray(residual, dtype=float) ** 2

    def derivative(self, residual):
        return 2.0 * np.asarray(residual, dtype=float)


class AbsoluteLoss(ResidualLoss):
    """``|r|``: ``l' = sign(r)``; its derivative jumps at 0."""

    name = "absolute"

    def value(self, residual):
        return np.abs(np.asarray(residual, dtype=float))

    def derivative(self, residual):
        return np.sign(np.asarray(residual, dtype=float))


class HuberLoss(ResidualLoss):
    """``r^2 / 2`` for ``|r| <= delta``, else ``delta (|r| - delta / 2)``: ``l'' <= 1``.

    Parameters
    ----------
    delta : float, default=1.0
        Where the loss turns from quadratic to linear.

    Examples
    --------
    >>> from sklearn_ldp.losses import get_loss
    >>> get_loss("huber", delta=1.0).value([0.5, -3.0]).tolist()
    [0.125, 2.5]
    """

    name = "huber"
    curvature = 1.0

    def __init__(self, delta=1.0):
        self.delta = check_positive(delta, "delta")

    def get_params(self):
        return {"delta": self.delta}

    def value(self, residual):
        residual = np.asarray(residual, dtype=float)
        abs_residual = np.abs(residual)
        return np.where(
            abs_residual <= self.delta,
            0.5 * residual**2,
            self.delta * (abs_residual - 0.5 * self.delta),
        )

    def derivative(self, residual):
        return np.clip(np.asarray(residual, dtype=float), -self.delta, self.delta)
