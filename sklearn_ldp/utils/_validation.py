"""Validation of privacy parameters and public bounds.

These raise clear errors for values a privacy guarantee cannot be built on.
They are used by the randomizers (which users may call directly, outside an
estimator) and by the accountants.
"""

from numbers import Real

import numpy as np


def check_epsilon(epsilon, *, name="epsilon"):
    """Return ``epsilon`` as a float after checking ``0 < epsilon < inf``."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real | np.number):
        raise TypeError(f"{name} must be a real number, got {epsilon!r}.")
    epsilon = float(epsilon)
    if not np.isfinite(epsilon) or epsilon <= 0:
        raise ValueError(
            f"{name} must be a finite number > 0, got {epsilon!r}. "
            "epsilon = 0 would mean no information can be released at all."
        )
    return epsilon


def check_delta(delta, *, name="delta", allow_zero=True):
    """Return ``delta`` as a float after checking ``0 <= delta < 1``.

    With ``allow_zero=False`` (mechanisms that cannot be pure DP, such as the
    Gaussian mechanism) ``delta`` must be ``> 0``.
    """
    if isinstance(delta, bool) or not isinstance(delta, Real | np.number):
        raise TypeError(f"{name} must be a real number, got {delta!r}.")
    delta = float(delta)
    if not (0.0 <= delta < 1.0) or not np.isfinite(delta):
        raise ValueError(f"{name} must be in [0, 1), got {delta!r}.")
    if not allow_zero and delta == 0.0:
        raise ValueError(
            f"{name} must be > 0 for a Gaussian mechanism (it cannot give pure "
            "epsilon-DP); use a Laplace-type mechanism for delta = 0."
        )
    return delta


def check_bound(bound, *, name="bound"):
    """Return a public bound as a float after checking ``0 < bound < inf``."""
    if isinstance(bound, bool) or not isinstance(bound, Real | np.number):
        raise TypeError(f"{name} must be a real number, got {bound!r}.")
    bound = float(bound)
    if not np.isfinite(bound) or bound <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {bound!r}.")
    return bound


def check_finite_array(values, *, name="X", ndim=None):
    """Return ``values`` as a float64 array, refusing NaN, inf and wrong ``ndim``."""
    array = np.asarray(values, dtype=np.float64)
    if ndim is not None and array.ndim != ndim:
        raise ValueError(
            f"{name} must be a {ndim}-dimensional array, got shape {array.shape}."
        )
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinity.")
    return array
