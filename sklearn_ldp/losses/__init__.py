"""The one loss registry: margin, multiclass and residual losses.

Every loss has a ``name``, a ``kind`` (``'margin'``, ``'multiclass'`` or
``'residual'``: what it is a function of, and so how it is called), whether
it is ``convex`` and its ``curvature`` (the smoothness constant solvers
need); see :class:`Loss`. ``get_loss(name, **params)`` makes one from
``LOSSES``. Pure numpy and scipy: a user's device may evaluate a loss (the
Bernstein protocol releases loss values), so this room sits at the bottom
of the package, next to ``accounting`` and ``utils``.
"""

from ._base import KINDS, Loss
from ._classification import (
    DerivativeMarginLoss,
    HingeLoss,
    LogisticLoss,
    MarginLoss,
    ModifiedHuberLoss,
    MultinomialLoss,
    SigmoidLoss,
    SmoothedHingeLoss,
    SquaredHingeLoss,
    check_convex_derivative,
)
from ._registry import (
    LOSSES,
    difference_bound,
    get_loss,
    gradient_bound,
    per_example_gradients,
    smoothness,
)
from ._regression import AbsoluteLoss, HuberLoss, ResidualLoss, SquaredLoss

__all__ = [
    "KINDS",
    "LOSSES",
    "AbsoluteLoss",
    "DerivativeMarginLoss",
    "HingeLoss",
    "HuberLoss",
    "LogisticLoss",
    "Loss",
    "MarginLoss",
    "ModifiedHuberLoss",
    "MultinomialLoss",
    "ResidualLoss",
    "SigmoidLoss",
    "SmoothedHingeLoss",
    "SquaredHingeLoss",
    "SquaredLoss",
    "check_convex_derivative",
    "difference_bound",
    "get_loss",
    "gradient_bound",
    "per_example_gradients",
    "smoothness",
]
