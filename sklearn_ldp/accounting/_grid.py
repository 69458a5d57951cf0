"""Budget rules of the grid and vector protocols and of their one-value releases.

Each rule turns the per-user epsilon into what one release runs with:

- :func:`full_grid_epsilon`: a user who releases all ``G`` grid values of the
  local Bernstein mechanism spends ``epsilon / G`` on each (basic
  composition);
- :func:`full_vector_epsilon`: a user who releases all ``d`` entries of an
  LDP-AVG vector spends ``epsilon / d`` on each (basic composition), and
  :func:`full_vector_laplace_scale` is the Laplace scale that gives an entry
  of range ``b``;
- :func:`bassily_smith_epsilon`: the internal budget of the 1-bit
  Bassily-Smith protocol that makes it epsilon-LDP;
- :func:`genprot_base_epsilon`: the base Laplace budget of GenProt, from
  the tight bound :func:`genprot_epsilon` or from the printed theorem, and
  :func:`genprot_provided_epsilon`, the guarantee of what is actually
  sampled (64-bit coins, float probabilities).

Every function is pure and depends on public parameters only.
"""

from numbers import Integral

import numpy as np

from ..utils import check_bound, check_epsilon
from ._discrete import design_epsilon, relative_error_epsilon

GENPROT_CALIBRATIONS = ("tight", "paper")
#: Unit roundoff of float64.
_UNIT_ROUNDOFF = 2.0**-53
#: Largest ``eps0 |v - bot|`` GenProt runs with: ``p_t <= e^c / 2 = 1 - 2^-32``
#: (``c <= ln 2`` keeps ``p_t <= 1``; the margin keeps ``1 - p_t``, whose
#: relative float error the guarantee pays for, away from 0).
_GENPROT_MAX_EXPONENT = float(np.log(2.0 - 2.0**-31))


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


def full_vector_epsilon(epsilon, n_coordinates):
    """Budget of each of the ``d = n_coordinates`` entries a user releases: ``epsilon / d``.

    Seed 001's LDP-AVG run on a whole vector (Algorithms 6 and 7): ``d``
    releases of Lemma 3 at ``epsilon / d`` each compose to epsilon.

    Examples
    --------
    >>> from sklearn_ldp.accounting import full_vector_epsilon
    >>> full_vector_epsilon(1.0, 5)
    0.2
    """
    epsilon = check_epsilon(epsilon)
    return epsilon / _check_count(n_coordinates, "n_coordinates")


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


def genprot_sampling_error(eps0, n_candidates, bot_distance=0.5):
    """Largest relative error of GenProt's implemented index probabilities.

    The client computes ``p_t = exp(eps0 d_t) / 2`` in float64 (``d_t`` is
    exact: every number is on the lattice), within ``16 u`` relative (a
    product and numpy's ``exp``, a few ulp each), and draws its bit with a
    64-bit threshold, within ``2^-64``; with ``c = eps0 bot_distance``,
    ``p_t in [e^-c / 2, e^c / 2]``, so both ``P[b_t = 1]`` and
    ``P[b_t = 0]`` are within relative

        r_b = max(16 u + 2^-64 / (e^-c / 2), (16 u e^c / 2 + 2^-64) / (1 - e^c / 2)).

    The index is uniform among the set bits from one 64-bit word, each
    choice within ``2^-64`` of ``1 / m`` (relative ``T 2^-64``). Every
    term of ``P[g = t]`` is a product of ``T`` bit probabilities and one
    choice, so ``P[g = t]`` is within ``r = (1 + r_b)^T (1 + T 2^-64) - 1``
    of the ideal (relative, both ways).

    Returns
    -------
    relative_error : float
        ``inf`` when ``e^c / 2 >= 1`` (a bit that must be 1 in the ideal
        protocol).
    """
    c = float(eps0) * float(bot_distance)
    low, high = 0.5 * np.exp(-c), 0.5 * np.exp(c)
    if high >= 1.0:
        return np.inf
    roundoff = 16.0 * _UNIT_ROUNDOFF
    per_bit = max(
        roundoff + 2.0**-64 / low, (roundoff * high + 2.0**-64) / (1.0 - high)
    )
    T = int(n_candidates)
    return float(np.expm1(T * np.log1p(per_bit) + np.log1p(T * 2.0**-64)))


def genprot_provided_epsilon(eps0, n_candidates, calibration="tight"):
    """The guarantee GenProt provides as implemented, for a base budget ``eps0``.

    The ideal bound (:func:`genprot_epsilon` for ``'tight'``, Theorem 46's
    ``10 eps0`` for ``'paper'``) plus what sampling with float
    probabilities and 64-bit coins costs (:func:`genprot_sampling_error`,
    :func:`~sklearn_ldp.accounting.relative_error_epsilon`): about
    ``1e-13``, and below ``1e-3`` at the cap of ``eps0``.

    Examples
    --------
    >>> from sklearn_ldp.accounting import genprot_provided_epsilon
    >>> round(genprot_provided_epsilon(0.5, 32), 9)
    1.0
    """
    if calibration == "paper":
        ideal, bot_distance = 10.0 * eps0, 1.0
    else:
        ideal, bot_distance = genprot_epsilon(eps0, n_candidates), 0.5
    return relative_error_epsilon(
        ideal, genprot_sampling_error(eps0, n_candidates, bot_distance)
    )


def _calibrate_tight(epsilon, n_candidates):
    """Largest ``eps0 <= cap`` with ``genprot_provided_epsilon(eps0, T) <= epsilon``."""
    cap = 2.0 * _GENPROT_MAX_EXPONENT
    if genprot_provided_epsilon(cap, n_candidates) <= epsilon:
        return cap
    lo, hi = 0.0, cap
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if genprot_provided_epsilon(mid, n_candidates) <= epsilon:
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
        ``'tight'``: the largest ``eps0 <= 2 ln(2 - 2^-31)`` (just below
        ``2 ln 2``) with :func:`genprot_provided_epsilon` at most epsilon
        (bisection); a request above the cap is served at the cap, whose
        guarantee is smaller. ``'paper'``: ``eps0 = epsilon / 10`` (Theorem
        46 of seed 001, from Bun, Nelson and Stemmer; needs ``eps0 <= 1/4``,
        i.e. ``epsilon <= 2.5``), lowered by the sampling cost (relative
        ``1e-14``).

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
        design, _ = design_epsilon(
            epsilon,
            lambda e: genprot_provided_epsilon(e / 10.0, n_candidates, "paper"),
        )
        return design / 10.0
    return float(_calibrate_tight(epsilon, n_candidates))
