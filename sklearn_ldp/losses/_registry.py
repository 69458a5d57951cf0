"""The one loss registry, and the bounds of a datafit that DP solvers need."""

import inspect

from ._classification import (
    HingeLoss,
    LogisticLoss,
    ModifiedHuberLoss,
    MultinomialLoss,
    SigmoidLoss,
    SmoothedHingeLoss,
    SquaredHingeLoss,
)
from ._regression import AbsoluteLoss, HuberLoss, SquaredLoss

#: Every named loss, by name (``get_loss(name, **params)`` makes one).
LOSSES = {
    loss.name: loss
    for loss in (
        LogisticLoss,
        HingeLoss,
        SquaredHingeLoss,
        ModifiedHuberLoss,
        SmoothedHingeLoss,
        SigmoidLoss,
        MultinomialLoss,
        SquaredLoss,
        AbsoluteLoss,
        HuberLoss,
    )
}


def get_loss(name, **params):
    """The loss called ``name`` (a key of ``LOSSES``), with its parameters.

    Parameters
    ----------
    name : str
        ``'logistic'``, ``'hinge'``, ``'squared_hinge'``, ``'modified_huber'``,
        ``'smoothed_hinge'`` (``smoothing``), ``'sigmoid'`` (margin losses);
        ``'multinomial'`` (multiclass); ``'squared'``, ``'absolute'``,
        ``'huber'`` (``delta``; residual losses).
    **params
        The loss's parameters.

    Returns
    -------
    loss : Loss

    Examples
    --------
    >>> from sklearn_ldp.losses import get_loss
    >>> loss = get_loss("huber", delta=1.0)
    >>> loss.name, loss.kind, loss.value([0.5, 2.0]).tolist()
    ('huber', 'residual', [0.125, 1.5])
    >>> get_loss("logistic").kind
    'margin'
    """
    try:
        cls = LOSSES[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"Unknown loss {name!r}; use one of {sorted(LOSSES)}."
        ) from None
    accepted = set(inspect.signature(cls).parameters)
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise ValueError(
            f"loss {name!r} has no parameter {unknown}; its parameters are "
            f"{sorted(accepted)}."
        )
    return cls(**params)


def _check_datafit(loss):
    if loss.kind not in ("margin", "multiclass"):
        raise ValueError(
            f"loss={loss.name!r} is a {loss.kind} loss, not a classification datafit."
        )


def gradient_bound(loss, row_norm, coef_norm=None):
    """``G``: bound on every per-example gradient norm when ``||x|| <= row_norm``.

    Examples
    --------
    >>> from sklearn_ldp.losses import get_loss, gradient_bound
    >>> gradient_bound(get_loss("logistic"), 2.0)
    2.0
    >>> round(gradient_bound(get_loss("multinomial"), 1.0), 4)
    1.4142
    """
    _check_datafit(loss)
    return float(loss.derivative_bound(row_norm, coef_norm) * row_norm)


def difference_bound(loss, row_norm, coef_norm=None):
    """Bound on ``||grad f_i(w) - grad f_i(w')||`` for one example, any ``w, w'``."""
    _check_datafit(loss)
    return float(loss.derivative_range(row_norm, coef_norm) * row_norm)


def smoothness(loss, row_norm):
    """Bound on the smoothness constant of each ``f_i`` when ``||x|| <= row_norm``."""
    _check_datafit(loss)
    if loss.curvature is None:
        raise ValueError(
            f"loss={loss.name!r} has no Lipschitz derivative: it is not smooth."
        )
    return float(loss.curvature * row_norm**2)


def per_example_gradients(loss, X, W, targets):
    """Per-example gradients, shape ``(n, n_features, n_outputs)``.

    For tests and small data only (memory ``n * n_features * n_outputs``); the
    solvers use ``X.T @ loss.derivative(X @ W, targets)`` for sums.
    """
    d = loss.derivative(X @ W, targets)
    return X[:, :, None] * d[:, None, :]
