"""The guarantee of what a client actually samples, with 64-bit probabilities.

A lattice mechanism draws every value from 64-bit words (see
:mod:`sklearn_ldp.randomizers._sampling`), so each implemented probability
differs from the ideal one by a known amount. These rules turn that amount
into the epsilon the implemented mechanism provides, and choose the design
epsilon so that what is provided never exceeds what was asked:

- :func:`relative_error_epsilon`: a pure mechanism whose every implemented
  probability is within relative error ``r`` of an ideal epsilon-DP one is
  ``(epsilon + ln((1 + r) / (1 - r)))``-DP;
- :func:`probability_ratio_epsilon`: ``ln`` of the largest ratio of two
  implemented probabilities given as exact integers, rounded up;
- :func:`coin_epsilon`: the exact guarantee of a binary report whose
  implemented ``P[1]`` lies between two thresholds of a 64-bit coin
  (:meth:`~sklearn_ldp.randomizers.NoiseSource.bernoulli`) or of a 53-bit
  one (:meth:`~sklearn_ldp.randomizers.NoiseSource.coins`) for every input;
- :func:`design_epsilon`: the largest design epsilon whose implemented
  guarantee stays within the requested one (or, when the 64-bit resolution
  costs more than a fixed fraction of epsilon, the largest epsilon where it
  does not).

Every function is pure and depends on public parameters only.
"""

import math

from ..utils import check_epsilon

#: Largest share of epsilon the 64-bit resolution may cost before a
#: mechanism is run at a smaller epsilon (see :func:`design_epsilon`).
MAX_RESOLUTION_SLACK = 0.01


def relative_error_epsilon(epsilon, max_relative_error):
    """``epsilon + ln((1 + r) / (1 - r))``: the guarantee of an approximated pure mechanism.

    If an ideal mechanism is epsilon-DP and every implemented output
    probability satisfies ``|p_impl(o | x) / p(o | x) - 1| <= r`` (for every
    input ``x`` and output ``o``; an event is a sum of outputs, so the bound
    carries over to events), then for two inputs

        p_impl(o | x) <= (1 + r) p(o | x) <= (1 + r) e^epsilon p(o | x')
                      <= (1 + r) / (1 - r) e^epsilon p_impl(o | x').

    The rounding of an input to the lattice is a mixture of such laws over
    inputs of the public interval, so it keeps the same bound.

    Examples
    --------
    >>> from sklearn_ldp.accounting import relative_error_epsilon
    >>> relative_error_epsilon(1.0, 0.0)
    1.0
    >>> round(relative_error_epsilon(1.0, 1e-3) - 1.0, 8)
    0.002
    """
    r = float(max_relative_error)
    if not r < 1.0:
        return math.inf
    return float(epsilon) + math.log1p(2.0 * r / (1.0 - r))


def probability_ratio_epsilon(largest, smallest):
    """``ln(largest / smallest)`` for two exact integers, rounded up.

    The largest ratio of two implemented probabilities, each an integer
    multiple of a common unit (``2^-64``, ``2^-128``), is the epsilon a pure
    mechanism provides.

    Examples
    --------
    >>> from sklearn_ldp.accounting import probability_ratio_epsilon
    >>> round(probability_ratio_epsilon(2**65, 2**64), 12)
    0.693147180560
    """
    largest, smallest = int(largest), int(smallest)
    if smallest <= 0:
        return math.inf
    ratio = largest / smallest  # int / int: correctly rounded
    # ratio carries a relative error <= 2^-53, log adds <= 1 ulp: round up.
    return math.nextafter(math.log(ratio) + 2.0**-52, math.inf)


def _threshold(prob, bits=64):
    """The integer threshold ``ceil(prob * 2**bits)`` of a ``bits``-bit coin."""
    prob = min(max(float(prob), 0.0), 1.0)
    return math.ceil(math.ldexp(prob, bits))  # exact: a float times a power of two


def coin_epsilon(low, high, *, bits=64):
    """Exact guarantee of a bit whose probability lies in ``[low, high]`` for every input.

    A ``bits``-bit coin returns True with probability exactly ``ceil(p
    2^bits) / 2^bits``: ``NoiseSource.bernoulli(p)`` (``bits=64``: the word
    is below ``ceil(p 2^64)``) and ``NoiseSource.coins(p)`` (``bits=53``:
    ``uniform() < p``, the uniform a multiple of ``2^-53``). A mechanism
    that clips ``p`` to ``[low, high]`` has implemented ``P[1]`` in ``[A,
    B] / 2^bits`` with ``A = ceil(low 2^bits)``, ``B = ceil(high 2^bits)``,
    and is ``ln max(B / A, (2^bits - A) / (2^bits - B))``-DP (infinite when a
    probability is 0). The ratios are exact integer ratios; the logarithm is
    rounded up.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.accounting import coin_epsilon
    >>> e = 1.0
    >>> round(coin_epsilon(1 / (1 + np.exp(e)), 1 / (1 + np.exp(-e))), 12)
    1.0
    >>> round(coin_epsilon(1 / (1 + np.exp(e)), 1 / (1 + np.exp(-e)), bits=53), 12)
    1.0
    """
    if bits not in (53, 64):
        raise ValueError(f"bits must be 53 or 64 (the coins sampled), got {bits!r}.")
    a, b = _threshold(low, bits), _threshold(high, bits)
    full = 2**bits
    if a <= 0 or b >= full:
        return math.inf
    return max(
        probability_ratio_epsilon(b, a), probability_ratio_epsilon(full - a, full - b)
    )


def design_epsilon(epsilon, implemented, *, max_slack=MAX_RESOLUTION_SLACK):
    """Design epsilon whose implemented guarantee does not exceed ``epsilon``.

    Parameters
    ----------
    epsilon : float
        The guarantee asked for.
    implemented : callable
        ``implemented(design) -> float``: the guarantee of what is sampled
        when the mechanism is designed at ``design`` (at least ``design``,
        increasing).
    max_slack : float, default=0.01
        When the resolution costs more than this share of epsilon
        (``implemented(e) - e > max_slack e``), which happens only at very
        large epsilon where the smallest probability approaches
        ``2^-64``, the mechanism runs at the largest epsilon where it does
        not.

    Returns
    -------
    design : float
        The epsilon to calibrate the ideal mechanism with.
    provided : float
        The guarantee stated: ``epsilon`` itself (``implemented(design) <=
        epsilon``), or ``implemented(design) < epsilon`` when capped.

    Examples
    --------
    >>> from sklearn_ldp.accounting import design_epsilon
    >>> design, provided = design_epsilon(1.0, lambda e: e * (1 + 1e-9))
    >>> provided, design < 1.0
    (1.0, True)
    """
    epsilon = check_epsilon(epsilon)

    def acceptable(design):
        try:
            return implemented(design) - design <= max_slack * design
        except OverflowError:  # exp(design) overflows: far beyond 64-bit resolution
            return False

    capped = not acceptable(epsilon)
    design = epsilon
    if capped:
        low, high = 0.0, epsilon
        while high - low > 1e-6 * high:
            middle = 0.5 * (low + high)
            if acceptable(middle):
                low = middle
            else:
                high = middle
        if low == 0.0:
            raise ValueError(f"No epsilon up to {epsilon!r} is implementable.")
        design = low
    for _ in range(60):
        excess = implemented(design) - epsilon
        if excess <= 0:
            break
        design = math.nextafter(design - excess, 0.0)
    else:  # pragma: no cover - implemented() grows faster than linearly
        raise RuntimeError("design_epsilon did not converge.")
    return design, float(implemented(design)) if capped else epsilon
