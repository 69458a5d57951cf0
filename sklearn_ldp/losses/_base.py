"""The interface every loss of the registry follows."""

#: The kinds of loss, by the argument the loss is a function of.
KINDS = ("margin", "multiclass", "residual")


class Loss:
    """A loss of the registry: its name, its kind and the constants solvers need.

    ``kind`` says what the loss is a function of, and so how it is called:

    - ``'margin'``: a function ``f(t)`` of the margin ``t = y s`` of a binary
      label ``y`` in {-1, +1} and a score ``s``: ``margin_value(t)``,
      ``margin_derivative(t)``; as a datafit of scores, ``value(scores,
      targets)`` and ``derivative(scores, targets)`` (scores of shape
      ``(n, 1)``, targets from ``encode``);
    - ``'multiclass'``: a datafit of one score per class, ``value(scores,
      targets)`` and ``derivative(scores, targets)`` (targets: class indices);
    - ``'residual'``: a function of the residual ``r = y - s`` of a numeric
      target: ``value(residual)`` and ``derivative(residual)``, elementwise
      on arrays of any shape.

    ``curvature`` bounds the second derivative in the loss's argument (the
    operator norm of the Hessian in the scores for ``'multiclass'``), so it
    is the smoothness constant of the loss; ``None`` when the derivative is
    not Lipschitz (hinge, absolute). ``convex`` is False for the non-convex
    losses (sigmoid).
    """

    name = None
    kind = None
    convex = True
    curvature = None

    def get_params(self):
        """The loss's parameters (``get_loss(name, **params)`` rebuilds it)."""
        return {}

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params})"


def check_positive(value, name):
    """A finite positive float, or a ValueError naming the parameter."""
    value = float(value)
    if not (value > 0.0 and value < float("inf")):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}.")
    return value
