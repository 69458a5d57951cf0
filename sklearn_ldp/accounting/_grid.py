"""Budget rules of the grid and vector protocols and of their one-value releases.

Each rule turns the per-user epsilon into what one release runs with:

- :func:`full_grid_epsilon`: a user who releases all ``G`` grid values of the
  local Bernstein mechanism spends ``epsilon / G`` on each (basic
  composition);
- :func:`full_vector_laplace_scale`: a user who releases all ``d`` entries
  of an LDP-AVG vector adds ``Lap(d b / epsilon)`` to each (l1 sensitivity
  at most ``d b``);
- :func:`bassily_smith_epsilon`: the internal budget of the 1-bit
  Bassily-Smith protocol that makes it epsilon-LDP;
- :func:`genprot_base_epsilon`: the base Laplace budget of GenProt, from
  the tight bound :func:`genprot_epsilon` or from the printed theorem.

Every function is pure and depends on public parameters only.
"""

from numbers import Integral

import numpy as np

from ..utils import check_bound, check_epsilon

GENPROT_CALIBRATIONS = ("tight", "paper")


def _check_count(value, name):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
    return int(value)


def full_grid_epsilon(epsilon, n_grid):
    """Budget of each of the ``n_grid`` values a user releases: ``epsilon / n_grid``.

    Seed 001's Algorithm 2: every user releases its normalized loss (range
    1) at every grid point through the Laplace mechanism; ``n_grid``
    releases of ``epsilon / n_grid`` compose to epsilon.

    Examples
    --------
    >>> from sklearn_ldp.accounting import full_grid_epsilon
    >>> full_grid_epsilon(2.0, 25)
    0.08
    """
    epsilon = check_epsilon(epsilon)
    return epsilon / _check_count(n_grid, "n_grid")


def full_vector_laplace_scale(epsilon, n_coordinates, entry_range):
    """Per-entry Laplace scale ``d b / epsilon`` of a user releasing a whole vector.

    Entry ``j`` ranges over an interval of width at most ``b =
    entry_range``, so the ``d = n_coordinates`` entries have l1 sensitivity
    at most ``d b`` and ``Lap(d b / epsilon)`` on each is epsilon-LDP
    (equivalently ``d`` releases at ``epsilon / d`` each).

    Examples
    --------
    >>> from sklearn_ldp.accounting import full_vector_laplace_scale
    >>> full_vector_laplace_scale(1.0, 5, 2.0)
    10.0
    """
    epsilon = check_epsilon(epsilon)
    n_coordinates = _check_count(n_coordinates, "n_coordinates")
    entry_range = check_bound(entry_range, name="entry_range")
    return n_coordinates * entry_range / epsilon


def bassily_smith_epsilon(epsilon):
    """Internal budget ``eps0 = ln(2 - e^-epsilon)`` of the 1-bit Bassily-Smith protocol.

    The protocol with internal parameter ``eps0`` is exactly
    ``-ln(2 - e^eps0)``-LDP (the bit 0 has likelihood ratio up to
    ``1 / (2 - e^eps0)``; see
    :class:`~sklearn_ldp.randomizers.BassilySmithMechanism`); solving for
    epsilon gives ``eps0``, below ``ln 2`` for every epsilon.

    Examples
    --------
    >>> from sklearn_ldp.accounting import bassily_smith_epsilon
    >>> round(bassily_smith_epsilon(0.5), 4)
    0.3318
    """
    epsilon = check_epsilon(epsilon)
    return float(np.log(2.0 - np.exp(-epsilon)))


def genprot_epsilon(eps0, n_candidates, bot_distance=0.5):
    """The tight guarantee of GenProt over the Laplace mechanism.

    ``ln(e^(2 eps0) + tail(T))``, derived in
    :mod:`sklearn_ldp.randomizers._genprot`.

    Parameters
    ----------
    eps0 : float
        Base budget: ``v + Lap(1 / eps0)`` for ``v in [0, 1]``.
    n_candidates : int
        ``T``, the number of public strings per user.
    bot_distance : float, default=0.5
        Largest ``|v - bot|``.

    Returns
    -------
    epsilon : float

    Examples
    --------
    >>> from sklearn_ldp.accounting import genprot_epsilon
    >>> round(genprot_epsilon(0.5, 32), 4)
    1.0
    """
    c = eps0 * bot_distance
    low, high = 0.5 * np.exp(-c), 0.5 * np.exp(c)
    T = int(n_candidates)
    tail = (1.0 - low) ** T * (1.0 + (T - 1) * high) / (T * low)
    return float(np.log(np.exp(2.0 * eps0) + tail))


def _calibrate_tight(epsilon, n_candidates):
    """Largest ``eps0 <= 2 ln 2`` with ``genprot_epsilon(eps0, T) <= epsilon``."""
    cap = 2.0 * np.log(2.0) * (1.0 - 1e-12)
    if genprot_epsilon(cap, n_candidates) <= epsilon:
        return cap
    lo, hi = 0.0, cap
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if genprot_epsilon(mid, n_candidates) <= epsilon:
            lo = mid
        else:
            hi = mid
    if lo == 0.0:
        raise ValueError(
            f"epsilon = {epsilon!r} is too small for GenProt with n_candidates = "
            f"{n_candidates}: the empty-set term alone exceeds it; use more candidates."
        )
    return lo


def genprot_base_epsilon(epsilon, n_candidates, calibration="tight"):
    """Base Laplace budget ``eps0`` of GenProt for a target epsilon.

    Parameters
    ----------
    epsilon : float
        The guarantee asked for.
    n_candidates : int
        ``T``, public strings per user.
    calibration : {'tight', 'paper'}, default='tight'
        ``'tight'``: the largest ``eps0 <= 2 ln 2`` with
        :func:`genprot_epsilon` at most epsilon (bisection); a request
        above the cap is served at the cap, whose guarantee is smaller.
        ``'paper'``: ``eps0 = epsilon / 10`` (Theorem 46 of seed 001, from
        Bun, Nelson and Stemmer; needs ``eps0 <= 1/4``, i.e.
        ``epsilon <= 2.5``).

    Returns
    -------
    eps0 : float

    Examples
    --------
    >>> from sklearn_ldp.accounting import genprot_base_epsilon
    >>> round(genprot_base_epsilon(1.0, 32), 3)
    0.5
    >>> round(genprot_base_epsilon(1.0, 32, calibration="paper"), 3)
    0.1
    """
    epsilon = check_epsilon(epsilon)
    n_candidates = _check_count(n_candidates, "n_candidates")
    if calibration not in GENPROT_CALIBRATIONS:
        raise ValueError(
            f"calibration must be one of {GENPROT_CALIBRATIONS}, got {calibration!r}."
        )
    if calibration == "paper":
        if epsilon > 2.5:
            raise ValueError(
                "Theorem 46 (calibration='paper') holds for a base budget "
                f"eps0 = epsilon / 10 <= 1/4, i.e. epsilon <= 2.5; got {epsilon}. "
                "Use calibration='tight'."
            )
        return epsilon / 10.0
    return float(_calibrate_tight(epsilon, n_candidates))
