"""Scalar LDP mean mechanisms for a value in a public interval, on public lattices.

Each mechanism releases one value ``v in [lower, upper]`` (clipped first) and
gives the server an unbiased estimate of it. Applied to an array, every entry
is a separate release: a user who releases ``m`` entries with one mechanism
spends ``m`` times its epsilon under basic composition.

``randomize`` runs on the client; ``estimate`` runs on the server and maps
reports to unbiased estimates of the values; ``variance(v)`` is the exact
variance of that estimate for a true value ``v``, for what is sampled.

Every number a report carries is an exact multiple of the mechanism's
``granularity`` (a power of two) inside ``report_support()``, and is drawn
from 64-bit words of a :class:`~sklearn_ldp.randomizers.NoiseSource`: the
operating system's CSPRNG when ``random_state`` is None. Continuous noise
added in floating point leaks the input through its low bits (Mironov 2012);
a lattice report does not: every report in the support has positive
probability under every input, with implemented likelihood ratios at most
``e^epsilon``.

Accounting of what is sampled. Each implemented probability is an integer
multiple of ``2^-64`` (or a product of two; ``2^-53`` for Duchi's coin), so
it differs from the ideal one by a known relative error ``r``; the ideal
mechanism is run at a design epsilon a little below the requested one so
that the implemented guarantee
(:func:`~sklearn_ldp.accounting.relative_error_epsilon`,
:func:`~sklearn_ldp.accounting.coin_epsilon`) is at most the requested
epsilon (:func:`~sklearn_ldp.accounting.design_epsilon`). ``epsilon`` is
the guarantee stated: the requested one, or, at very large epsilon where
the 64-bit resolution would cost more than 1% of it, the smaller epsilon
actually provided.

Inputs are put on the lattice by unbiased randomized rounding
(``g floor(x / g) + g Bernoulli(frac(x / g))``; the piecewise mechanism
rounds its window's position the same way). The coin is
:meth:`~sklearn_ldp.randomizers.NoiseSource.rounding_coins`, of probability
``ceil(frac 2^53) / 2^53``: the rounding is unbiased up to ``2^-53 g``, and
the variances below use that probability. The output law is then a
mixture, over a set of lattice inputs (or windows), of laws whose
probabilities are within ``e^epsilon`` of each other for every pair of the
set; whatever the input-dependent weights, ``P(o | x) <= max_a P(o | a) <=
e^epsilon min_a P(o | a) <= e^epsilon P(o | x')``. So the rounding costs no
privacy, and its coins need no accounting.

Speed. ``randomize`` runs in blocks of ``SCALAR_BLOCK`` values whose
temporaries stay in the processor's cache; the words of each whole-array
draw (every value's rounding coin, then every value's noise, ...) are read
block by block through :meth:`~sklearn_ldp.randomizers.NoiseSource.segments`,
so a seeded release is the same as the whole-array definition's.
"""

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..accounting import (
    bassily_smith_epsilon,
    coin_epsilon,
    design_epsilon,
    probability_ratio_epsilon,
    relative_error_epsilon,
)
from ..utils import check_epsilon, check_finite_array
from ._base import FieldSupport
from ._clip import clip_interval
from ._sampling import (
    IntegerSampler,
    check_client_random_state,
    coin_thresholds,
    discrete_laplace,
    lattice_granularity,
)

#: Fewest lattice points per noise scale (Laplace scale, piecewise window).
LATTICE_CELLS = 1024
#: Points per Laplace scale (``c`` to ``2 c``) when the scale exceeds 2048
#: (``g`` stays at most 1) or bounds off the lattice ask for a finer one; the
#: sampler's table has about ``42 c`` entries (up to 1.4 million, built once
#: per configuration in about a second).
MAX_LATTICE_CELLS = 2**14
#: Mass of the ideal Laplace noise beyond the public window reports are
#: clamped to (the clamping bias is below ``LAPLACE_TAIL`` Laplace scales).
LAPLACE_TAIL = 1e-9
#: Largest tail allowed at large epsilon, where a thinner one would make the
#: smallest probability too small for 64-bit weights.
LAPLACE_MAX_TAIL = 1e-6
#: Share of epsilon the 64-bit resolution of the Laplace sampler may cost
#: before the tail is widened.
RESOLUTION_SHARE = 1e-3
#: Largest Laplace sampler table (entries) a mechanism may build.
MAX_LAPLACE_ENTRIES = 2**21
#: Above this epsilon per value the design search starts here: the 64-bit
#: resolution caps the Laplace mechanism near epsilon 20 anyway (and
#: ``exp(epsilon)`` would overflow far above it).
LAPLACE_SEARCH_EPSILON = 64.0
#: Mass of Bassily-Smith's public ``z`` beyond its window.
PUBLIC_TAIL = 1e-12
#: Values per block of a randomizer's arithmetic (128 KiB per temporary: the
#: temporaries stay in the processor's cache).
SCALAR_BLOCK = 2**14
#: Relative error of ``0.5 exp(a)`` computed in float64 (the argument
#: rounding, ``|a| u``, plus numpy's ``exp``, within 1 ulp), with margin.
_PROBABILITY_ROUNDOFF = 8 * 2.0**-53


def _round_in_place(scaled, source):
    """``floor(scaled)`` plus a coin of the fraction ``f`` (``scaled`` is overwritten).

    The coin is :meth:`NoiseSource.rounding_coins` (one word per value,
    ``uniform() < f``): True with probability ``ceil(f 2^53) / 2^53``
    (:func:`_coin_probability`), so ``E[result] = scaled`` up to ``2^-53``.
    """
    base = np.floor(scaled)
    scaled -= base  # the fraction, exact
    base += source.rounding_coins(scaled)
    return base


def _coin_probability(scaled):
    """Probability that :func:`_round_in_place` rounds ``scaled`` up: ``ceil(f 2^53) / 2^53``."""
    return np.ceil((scaled - np.floor(scaled)) * 2.0**53) * 2.0**-53


def _blocks(size):
    """Slices of ``SCALAR_BLOCK`` consecutive values covering ``range(size)``."""
    return [
        slice(start, start + SCALAR_BLOCK) for start in range(0, size, SCALAR_BLOCK)
    ]


def _uniform_below(words, counts):
    """``floor(w n / 2^64)`` for words ``w`` and ``counts`` ``n < 2^31``: ``NoiseSource.integers``.

    Exact in 64-bit integers (``words`` is overwritten); returned as floats.
    """
    low = words & np.uint64(0xFFFFFFFF)
    low *= counts
    low >>= np.uint64(32)
    words >>= np.uint64(32)
    words *= counts
    words += low
    words >>= np.uint64(32)
    return words.astype(np.float64)


class _IntervalMechanism:
    """Common handling of the public interval ``[lower, upper]``."""

    delta = 0.0

    def __init__(self, epsilon, lower=-1.0, upper=1.0):
        self.epsilon = check_epsilon(epsilon)
        lower, upper = float(lower), float(upper)
        if not (np.isfinite(lower) and np.isfinite(upper) and lower < upper):
            raise ValueError(
                f"Need finite lower < upper, got lower={lower!r}, upper={upper!r}."
            )
        self.lower, self.upper = lower, upper

    @property
    def guarantee(self):
        return f"each released value is {self.epsilon:.6g}-LDP"

    def _clip(self, values):
        return clip_interval(
            check_finite_array(values, name="values"), self.lower, self.upper
        )

    def _to_unit(self, values):
        """Clip to the interval and map to [-1, 1]."""
        values = self._clip(values)
        return (2.0 * values - self.lower - self.upper) / (self.upper - self.lower)

    def _unit_block(self, values):
        """:meth:`_to_unit` of already validated values, in one new array (same floats)."""
        t = np.clip(values, self.lower, self.upper)
        t *= 2.0
        t -= self.lower
        t -= self.upper
        t /= self.upper - self.lower
        return t

    def _from_unit(self, t):
        return 0.5 * (self.upper + self.lower) + 0.5 * (self.upper - self.lower) * t

    def _unit_scale2(self):
        return (0.5 * (self.upper - self.lower)) ** 2


def _check_shape(shape):
    return (int(shape),) if np.ndim(shape) == 0 else tuple(int(v) for v in shape)


# --------------------------------------------------------------------- Laplace


@dataclass(frozen=True)
class _LaplaceDesign:
    granularity: float
    low: int  # lattice index of the lowest rounded input
    high: int  # ... and of the highest
    margin: int  # reports are clamped to [low - margin, high + margin]
    sampler: IntegerSampler
    shift: np.ndarray  # E[report] / g - a for lattice inputs a = low..high
    spread: np.ndarray  # Var[report] / g^2 for the same inputs
    design_epsilon: float
    epsilon: float  # provided


def _laplace_granularity(scale, lower, upper):
    """The lattice step: about ``LATTICE_CELLS`` points per Laplace scale.

    At most the largest power of two within the interval's width, so that
    rounding onto lattice points inside ``[g floor(lower / g), g ceil(upper /
    g)]`` widens the interval by less than one step on each side (at most
    0.2% when there are ``LATTICE_CELLS`` points across it). The sampler's
    table then has about ``2 (span + 22 scale / g)`` entries: above
    ``MAX_LAPLACE_ENTRIES`` (epsilon below about ``1e-4`` on a unit interval)
    the mechanism refuses the epsilon instead of building it.
    """
    width = upper - lower
    g = lattice_granularity(scale, cells=LATTICE_CELLS)
    g = min(g, 2.0 ** math.floor(math.log2(width)))
    if math.fmod(lower, g) or math.fmod(upper, g):
        finer = 2.0 ** math.floor(math.log2(width / LATTICE_CELLS))
        g = min(g, max(finer, lattice_granularity(scale, cells=MAX_LATTICE_CELLS)))
    entries = 2.0 * (width / g + 22.0 * scale / g)
    if entries > MAX_LAPLACE_ENTRIES:
        # With the coarsest step 2^floor(log2(width)) >= width / 2, the table
        # has about 4 + 88 / epsilon entries.
        smallest = 88.0 / (MAX_LAPLACE_ENTRIES - 4)
        raise ValueError(
            f"LaplaceMechanism on a lattice: epsilon = {width / scale:.3g} per value "
            f"on [{lower:g}, {upper:g}] needs a sampler table of {entries:.3g} "
            f"entries (at most {MAX_LAPLACE_ENTRIES:.3g}); it supports epsilon >= "
            f"{smallest:.2g} per value (for a full grid or vector: fewer values "
            "per user or a larger epsilon)."
        )
    return g


@lru_cache(maxsize=128)
def _laplace_design(epsilon, lower, upper):
    epsilon = min(epsilon, LAPLACE_SEARCH_EPSILON)
    g = _laplace_granularity((upper - lower) / epsilon, lower, upper)
    low, high = math.floor(lower / g), math.ceil(upper / g)
    span = high - low
    built = {}

    def build(design):
        if design not in built:
            decay = design / span
            p = math.exp(-decay)
            # The smallest probability is about decay / 2 e^-design tail:
            # widen the tail (up to LAPLACE_MAX_TAIL) where 2^-64 relative to
            # it would cost more than RESOLUTION_SHARE of epsilon.
            needed = 4.0 * 2.0**-64 * math.exp(design) / (decay * RESOLUTION_SHARE)
            tail = min(LAPLACE_MAX_TAIL, max(LAPLACE_TAIL, needed / design))
            # P[J > margin] = p^(margin + 1) / (1 + p) <= tail.
            margin = max(1, math.ceil(math.log(tail * (1 + p)) / -decay) - 1)
            built[design] = discrete_laplace(decay, span + margin), margin
        return built[design]

    def implemented(design):
        return relative_error_epsilon(design, build(design)[0].max_relative_error)

    design, provided = design_epsilon(epsilon, implemented)
    sampler, margin = build(design)
    shift, spread = _clamped_moments(sampler, span, margin)
    return _LaplaceDesign(
        g, low, high, margin, sampler, shift, spread, design, provided
    )


def _clamped_moments(sampler, span, margin):
    """Mean shift and variance of ``clamp(a + J, -margin, span + margin) - a``, a = 0..span.

    From prefix sums of the implemented probabilities of ``J`` (its law is
    known exactly: integer weights over ``2^64``).
    """
    p = sampler.probabilities()
    m = (p.size - 1) // 2
    j = np.arange(-m, m + 1, dtype=np.float64)
    prefix = [np.concatenate([[0.0], np.cumsum(p * j**k)]) for k in range(3)]
    a = np.arange(span + 1)
    below, above = -margin - a, span + margin - a  # the window's ends, in J
    first, last = below + m, above + m  # their positions in p
    p_below = prefix[0][first + 1]
    p_above = 1.0 - prefix[0][last]
    moments = [
        below**k * p_below
        + (prefix[k][last] - prefix[k][first + 1])
        + above**k * p_above
        for k in (1, 2)
    ]
    return moments[0], moments[1] - moments[0] ** 2


class LaplaceMechanism(_IntervalMechanism):
    """Laplace mechanism on ``[lower, upper]``, on a lattice: ``v + Lap((upper - lower) / eps)``.

    The clipped value is rounded to the lattice ``g Z`` by unbiased
    randomized rounding, to ``a g`` with ``a`` in ``[L, U] = [floor(lower /
    g), ceil(upper / g)]``; the report is ``g clamp(a + J, L - M, U + M)``
    with ``J`` two-sided geometric, ``P(J = j) ∝ exp(-t |j|)``, ``t =
    epsilon_d / (U - L)``, drawn by
    :func:`~sklearn_ldp.randomizers.discrete_laplace` (half-width ``U - L +
    M``, so the clamp of the sampler never binds inside the window).

    Guarantee: epsilon-LDP per released value. For two lattice inputs
    ``a, a'`` in ``[L, U]`` the ideal ``a + J`` has probabilities in ratio
    at most ``exp(t |a - a'|) <= e^epsilon_d``; clamping to the public window
    is post-processing; the 64-bit sampler's probabilities are within
    relative error ``r`` of the ideal (clamped) ones, so the implemented
    mechanism is ``epsilon_d + ln((1 + r) / (1 - r))``-LDP, and ``epsilon_d``
    is chosen so that this is at most the requested epsilon. The rounded
    input is a mixture of lattice inputs of ``[L, U]``, which costs nothing.
    The smallest probability, ``t / 2 e^-epsilon_d`` times the tail mass
    beyond the window, sets ``r ~ 2^-64 / it``: the slack
    ``epsilon - epsilon_d`` is ``3e-7`` at epsilon = 1, ``6e-6`` at 4,
    ``3.3e-4`` at 8. Beyond epsilon of about 8 the window is narrowed (its
    tail mass raised from ``1e-9`` up to ``1e-6``) to keep the slack near
    0.1% of epsilon; beyond about 20, where the slack would exceed 1% of
    epsilon, the mechanism runs at the largest epsilon where it does not
    (``epsilon`` says so; ``requested_epsilon`` keeps what was asked).

    Lattice: ``g`` is the power of two with 1024 to 2048 points per Laplace
    scale ``b = (upper - lower) / epsilon``, at most 1 while ``b < 2^15``
    (then more points per scale). Bounds that are multiples of ``g``
    (integers, for ``g <= 1``) cost nothing; others widen the span ``U -
    L`` by up to two points, so ``g`` is then refined to keep at least 1024
    points across the interval (noise scale +0.2% at most; ``+2 / (16384
    epsilon)`` when that would need more than ``2^15`` points per scale).
    The window's tail mass bounds the clamping bias of the estimate: below
    ``1e-9 b`` (``1e-6 b`` at the largest epsilon).

    Variance of the estimate (the report itself), exact for what is
    sampled: the report is ``g clamp(A + J)`` with ``A`` the lattice point
    below ``v / g`` plus a coin of probability ``f = ceil(frac(v / g) 2^53)
    / 2^53``; the mean
    and variance of ``clamp(a + J)`` for every lattice input ``a`` come from
    prefix sums of the implemented probabilities, mixed over the two values
    of ``A``. It is ``g^2 (Var J + f (1 - f))`` within ``2e-8`` relative
    (the clamp) up to epsilon 10, and the continuous ``2 b^2`` within
    ``1e-6`` (``Var J = 2 b^2 (1 - t^2 / 12 + ...)``) plus the slack:
    ``+8e-5`` at epsilon 8.

    Examples
    --------
    >>> from sklearn_ldp.randomizers import LaplaceMechanism
    >>> mech = LaplaceMechanism(1.0)
    >>> reports = mech.randomize([0.5, -0.2], random_state=0)
    >>> reports.shape, mech.granularity
    ((2,), 0.001953125)
    >>> bool((reports / mech.granularity % 1 == 0).all())
    True
    >>> round(float(mech.variance(0.0)), 6)
    8.0
    """

    def __init__(self, epsilon, lower=-1.0, upper=1.0):
        super().__init__(epsilon, lower, upper)
        self.requested_epsilon = self.epsilon
        self.epsilon = self._design.epsilon

    @property
    def _design(self):
        return _laplace_design(self.epsilon, self.lower, self.upper)

    @property
    def granularity(self):
        return self._design.granularity

    @property
    def design_epsilon(self):
        """Epsilon of the ideal discrete Laplace mechanism that is sampled."""
        return self._design.design_epsilon

    @property
    def scale(self):
        """Laplace scale of the sampled noise, in value units: ``g (U - L) / epsilon_d``."""
        d = self._design
        return d.granularity * (d.high - d.low) / d.design_epsilon

    def report_support(self, shape=()):
        """:class:`FieldSupport` of an array of reports of per-user shape ``shape``."""
        d = self._design
        return FieldSupport(
            _check_shape(shape),
            d.granularity * (d.low - d.margin),
            d.granularity * (d.high + d.margin),
            d.granularity,
        )

    def randomize(self, values, random_state=None):
        """Reports of the shape of ``values``, multiples of :attr:`granularity`."""
        d = self._design
        source = check_client_random_state(random_state)
        values = check_finite_array(values, name="values")
        reports = np.empty(values.shape)
        flat, out = values.reshape(-1), reports.reshape(-1)
        # The words of the rounding coins of every value, then of the noise.
        coins, noise = source.segments(flat.size, 2)
        for block in _blocks(flat.size):
            scaled = np.clip(flat[block], self.lower, self.upper)
            scaled /= d.granularity
            index = _round_in_place(scaled, coins)
            index += d.sampler.draw(noise.words(scaled.size))
            np.clip(index, d.low - d.margin, d.high + d.margin, out=index)
            np.multiply(index, d.granularity, out=out[block])
        return reports

    def estimate(self, reports):
        return np.asarray(reports, dtype=float)

    def variance(self, values=None):
        d = self._design
        values = np.zeros(()) if values is None else values
        scaled = self._clip(values) / d.granularity
        base = np.floor(scaled)
        f = _coin_probability(scaled)
        at = (base - d.low).astype(np.intp)
        up = np.minimum(at + 1, d.high - d.low)  # f = 0 there when clipped
        # The report is clamp(A + J) with A = base + Bernoulli(f), f the
        # rounding coin's probability: mix the two laws (total variance:
        # within plus between).
        within = (1.0 - f) * d.spread[at] + f * d.spread[up]
        between = f * (1.0 - f) * (1.0 + d.shift[up] - d.shift[at]) ** 2
        return d.granularity**2 * (within + between)


# ----------------------------------------------------------------------- Duchi


#: Resolution of the Duchi coin: ``NoiseSource.coins``, ``uniform() < p``.
DUCHI_COIN_BITS = 53


def _duchi_bounds(epsilon):
    """Implemented ``P[+1]`` range: ``[1, e^epsilon] / (e^epsilon + 1)``."""
    return 1.0 / (1.0 + math.exp(epsilon)), 1.0 / (1.0 + math.exp(-epsilon))


@lru_cache(maxsize=128)
def _duchi_design(epsilon):
    return design_epsilon(
        epsilon, lambda e: coin_epsilon(*_duchi_bounds(e), bits=DUCHI_COIN_BITS)
    )


class DuchiMechanism(_IntervalMechanism):
    """Duchi, Jordan and Wainwright's 1-bit mechanism.

    For ``t`` in ``[-1, 1]`` (the value mapped from the interval) the user
    sends ``+B`` with probability ``1/2 + t (e^eps - 1) / (2 (e^eps + 1))``
    and ``-B`` otherwise, ``B = (e^eps + 1) / (e^eps - 1)``. The report is one
    bit (stored as +-1, ``granularity = 1``); ``estimate`` maps it to
    ``+-B`` in value units.

    Guarantee: epsilon-LDP per released value. The probability is clipped
    to ``[lo, hi] = [1, e^eps_d] / (e^eps_d + 1)`` (float64) and the bit
    drawn by the 53-bit coin :meth:`~sklearn_ldp.randomizers.NoiseSource.coins`
    (``uniform() < p``, one word), which returns True with probability
    exactly ``ceil(p 2^53) / 2^53``: the implemented ``P[+1]`` lies in ``[A,
    B] / 2^53``, ``A = ceil(lo 2^53)``, ``B = ceil(hi 2^53)``, for every
    input, and the mechanism is exactly ``ln max(B / A, (2^53 - A) / (2^53
    - B))``-LDP (:func:`~sklearn_ldp.accounting.coin_epsilon` with
    ``bits=53``), which ``eps_d`` keeps at most the requested epsilon (slack
    ``~1e-15`` at epsilon = 1, ``3e-10`` at 15, ``3e-3`` at 31; capped
    beyond epsilon of about 36, where ``hi`` rounds to within ``2^-52`` of
    1 in float64, as with 64-bit coins).

    Unbiased up to ``2^-52 B`` (the coin's rounding up); variance ``B^2 -
    t^2`` in unit scale (the same, up to ``2^-51 B^2``, for what is sampled).

    Examples
    --------
    >>> from sklearn_ldp.randomizers import DuchiMechanism
    >>> bits = DuchiMechanism(1.0).randomize([0.3, 0.3, -1.0], random_state=0)
    >>> sorted(set(bits.tolist())) <= [-1.0, 1.0]
    True
    """

    granularity = 1.0

    def __init__(self, epsilon, lower=-1.0, upper=1.0):
        super().__init__(epsilon, lower, upper)
        self.requested_epsilon = self.epsilon
        self.epsilon = _duchi_design(self.epsilon)[1]

    @property
    def design_epsilon(self):
        return _duchi_design(self.epsilon)[0]

    @property
    def bound(self):
        return 1.0 / math.tanh(0.5 * self.design_epsilon)

    def report_support(self, shape=()):
        """One sign bit per value: exactly -1 or +1 (never 0)."""
        return FieldSupport(_check_shape(shape), -1.0, 1.0, 1.0, values=[-1.0, 1.0])

    def _coin_line(self):
        """``(slope, centre, bounds)``: ``P[+1] = clip(slope x + centre, *bounds)``."""
        design = self.design_epsilon
        # P[+1] = 1/2 + tanh(eps_d / 2) t / 2, t the value mapped to [-1, 1],
        # as slope * value + centre; the clip to the bounds also clips the
        # value to the interval.
        slope = 0.5 * math.tanh(0.5 * design) / (0.5 * (self.upper - self.lower))
        centre = 0.5 - slope * 0.5 * (self.upper + self.lower)
        return slope, centre, _duchi_bounds(design)

    def randomize_ends(self, at_upper, random_state=None):
        """:meth:`randomize` of values at the interval's ends, given as bits.

        ``at_upper[i]`` True for the value ``upper``, False for ``lower``
        (a sign, a parity). The same coins (one uniform per value, in order)
        and the same reports as ``randomize(np.where(at_upper, upper,
        lower))``: ``P[+1]`` takes its two values, computed as
        :meth:`randomize` computes them, and a report is ``+1`` when the
        uniform is below the one of its value.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_ldp.randomizers import DuchiMechanism
        >>> mechanism = DuchiMechanism(1.0)
        >>> at_upper = np.array([True, False, True, True])
        >>> fast = mechanism.randomize_ends(at_upper, random_state=0)
        >>> slow = mechanism.randomize(np.where(at_upper, 1.0, -1.0), random_state=0)
        >>> bool(np.array_equal(fast, slow))
        True
        """
        source = check_client_random_state(random_state)
        at_upper = np.asarray(at_upper, dtype=bool)
        slope, centre, bounds = self._coin_line()
        low, high = (
            float(np.clip(end * slope + centre, *bounds)) for end in (self.lower, self.upper)
        )
        uniform = source.uniform(at_upper.shape)
        # P[+1] grows with the value: below `low` every value reports +1.
        plus = uniform < high
        plus &= at_upper
        plus |= uniform < low
        reports = plus.astype(np.float64)
        reports *= 2.0
        reports -= 1.0
        return reports

    def randomize(self, values, random_state=None):
        source = check_client_random_state(random_state)
        values = check_finite_array(values, name="values")
        slope, centre, bounds = self._coin_line()
        reports = np.empty(values.shape)
        flat, out = values.reshape(-1), reports.reshape(-1)
        out.fill(-1.0)
        for block in _blocks(flat.size):
            prob = flat[block] * slope
            prob += centre
            np.clip(prob, *bounds, out=prob)
            np.copyto(out[block], 1.0, where=source.coins(prob))
        return reports

    def estimate(self, reports):
        return self._from_unit(self.bound * np.asarray(reports, dtype=float))

    def variance(self, values=None):
        values = np.zeros(()) if values is None else values
        t = self._to_unit(values)
        return self._unit_scale2() * (self.bound**2 - t**2)


# ------------------------------------------------------------------- Piecewise


@dataclass(frozen=True)
class _PiecewiseDesign:
    granularity: float
    half: int  # M: outputs are g {-M, ..., M}
    width: int  # N: lattice points in the high window
    kappa: float  # E[window centre] = kappa t
    high_prob: float  # P[output in the window] = N e^eps p_low
    low_prob: float  # p_low
    design_epsilon: float
    epsilon: float


#: Smallest epsilon of the discrete piecewise mechanism: its ``2M + 1 ~ 8 /
#: epsilon`` output points must stay below ``2^31`` (``NoiseSource.integers``).
MIN_PIECEWISE_EPSILON = 1e-8


def _piecewise_shape(epsilon):
    """``(g, M, N, kappa, P_high, p_low)`` of the discrete piecewise mechanism at epsilon."""
    if not epsilon >= 0.99 * MIN_PIECEWISE_EPSILON:  # design epsilon: slightly below
        raise ValueError(
            f"PiecewiseMechanism on a lattice: epsilon = {epsilon:.3g} per value needs "
            f"about {8 / epsilon:.3g} output points (at most 2^31); it supports "
            f"epsilon >= {MIN_PIECEWISE_EPSILON:g} per value."
        )
    C_minus_1 = 2.0 / math.expm1(0.5 * epsilon)
    C = C_minus_1 + 1.0
    g = min(1.0, lattice_granularity(C_minus_1, cells=LATTICE_CELLS))
    # source.integers needs 2M + 1 < 2^31 (binds only beyond epsilon ~ 27).
    g = max(g, 2.0 ** math.ceil(math.log2(C / 2**29)))
    N = max(1, round(C_minus_1 / g))
    em1 = math.expm1(epsilon)
    # Fit: the highest window end ceil(kappa / g + (N - 1) / 2) <= M with
    # kappa = 1 + (2M + 1) / (em1 N), linear in M.
    coef = 1.0 - 2.0 / (em1 * N * g)
    M = math.ceil((1.0 / g + 1.0 / (em1 * N * g) + 0.5 * (N - 1)) / coef)
    while 1.0 + (2 * M + 1) / (em1 * N) > g * (M - 0.5 * (N - 1)):
        M += 1
    kappa = 1.0 + (2 * M + 1) / (em1 * N)
    n_low = 2 * M + 1 - N
    high_prob = N / (N + n_low * math.exp(-epsilon))
    return g, M, N, kappa, high_prob, 1.0 / (N * em1 + 2 * M + 1)


def _piecewise_implemented(epsilon):
    """Exact guarantee of the 64-bit draws: largest ratio of two output probabilities.

    A high point has probability ``P c_h / 2^128``, a low point ``(2^64 - P)
    c_l / 2^128``, with ``P = ceil(P_high 2^64)`` (the coin) and ``c_h`` in
    ``{floor, ceil}(2^64 / N)``, ``c_l`` in ``{floor, ceil}(2^64 / (2M + 1 -
    N))`` (the uniform choice, ``NoiseSource.integers``).
    """
    g, M, N, kappa, high_prob, _ = _piecewise_shape(epsilon)
    P = math.ceil(math.ldexp(high_prob, 64))
    full = 2**64
    n_low = 2 * M + 1 - N
    highs = [P * (full // N), P * -(-full // N)]
    lows = [(full - P) * (full // n_low), (full - P) * -(-full // n_low)]
    return probability_ratio_epsilon(max(highs + lows), min(highs + lows))


@lru_cache(maxsize=128)
def _piecewise_design(epsilon):
    design, provided = design_epsilon(epsilon, _piecewise_implemented)
    return _PiecewiseDesign(*_piecewise_shape(design), design, provided)


class PiecewiseMechanism(_IntervalMechanism):
    """The piecewise mechanism (Wang et al., ICDE 2019, Algorithm 2) on a lattice.

    Continuous version: for ``t`` in ``[-1, 1]``, with ``C = (e^(eps/2) + 1)
    / (e^(eps/2) - 1)``, output uniform on a window of length ``C - 1``
    centred at ``(C + 1) t / 2`` with probability ``e^(eps/2) / (e^(eps/2) +
    1)``, else uniform on the rest of ``[-C, C]``.

    Discrete version (reports in unit scale, multiples of ``g``): outputs
    ``g {-M, ..., M}``; the high set is a window of ``N`` consecutive points
    whose first index is ``kappa t / g - (N - 1) / 2`` rounded by unbiased
    randomized rounding, so its centre ``c`` has ``E[c] = kappa t``. Each
    high point has probability ``e^eps p_low``, every other ``p_low =
    1 / (N (e^eps - 1) + 2M + 1)``. Given ``c``, ``E[out] = (e^eps - 1) p_low
    N c`` (the low part is symmetric), so ``kappa = 1 / (p_low (e^eps - 1)
    N) = 1 + (2M + 1) / ((e^eps - 1) N)`` makes it unbiased. Mimicking the
    continuous shape: ``g`` is the power of two with 1024 to 2048 points in
    ``C - 1``, ``N = round((C - 1) / g)``, and ``M`` the least integer with
    ``ceil(kappa / g + (N - 1) / 2) <= M`` (the window fits for every
    ``t``); then ``kappa -> (C + 1) / 2`` and ``M g -> C``. Sampling: a coin
    with ``P_high = N e^eps p_low`` (:meth:`NoiseSource.bernoulli`), then a
    uniform index among the ``N`` high or the ``2M + 1 - N`` low points
    (:meth:`NoiseSource.integers`). Beyond epsilon of about 27, ``g`` is
    coarsened to keep ``2M + 1 < 2^31`` (the range of ``integers``), so
    windows hold fewer points.

    Guarantee: epsilon-LDP per released value. Every output has probability
    ``p_low`` or ``e^eps p_low`` for every window, hence for every input (a
    mixture of windows): the ratio is at most ``e^eps`` and no output is
    excluded by any input. The implemented probabilities are ``P c / 2^128``
    for integers ``P`` (the coin's threshold) and ``c`` (the words giving
    each index), so the largest ratio is computed exactly and ``eps_d``
    keeps it at most the requested epsilon (slack ``~1e-15`` at epsilon =
    1).

    Variance in unit scale, exact for the ideal probabilities (the
    implemented ones differ by ``~2^-64`` relative; ``f`` the rounding
    coin's probability, the fractional part of the window start to
    ``2^-53``, ``p_low g^2 M (M + 1) (2M + 1) / 3 +
    kappa t^2 + g^2 (f (1 - f) + (N^2 - 1) / 12) / kappa - t^2``); it is
    within 0.1% of the continuous ``t^2 / (e^(eps/2) - 1) + (e^(eps/2) + 3)
    / (3 (e^(eps/2) - 1)^2)`` for epsilon in ``[0.5, 8]``. Lower than
    Duchi's for epsilon above about 1.29.

    Examples
    --------
    >>> from sklearn_ldp.randomizers import PiecewiseMechanism
    >>> mech = PiecewiseMechanism(2.0)
    >>> out = mech.randomize([0.0, 1.0], random_state=0)
    >>> out.shape, mech.granularity
    ((2,), 0.0009765625)
    >>> round(mech.bound, 4)  # C = (e + 1) / (e - 1) = 2.1640 in the continuous version
    2.1641
    """

    def __init__(self, epsilon, lower=-1.0, upper=1.0):
        super().__init__(epsilon, lower, upper)
        self.requested_epsilon = self.epsilon
        self.epsilon = self._design.epsilon

    @property
    def _design(self):
        return _piecewise_design(self.epsilon)

    @property
    def granularity(self):
        return self._design.granularity

    @property
    def design_epsilon(self):
        return self._design.design_epsilon

    @property
    def bound(self):
        """Largest report in absolute value (unit scale), ``M g`` (about ``C``)."""
        return self._design.half * self._design.granularity

    def report_support(self, shape=()):
        return FieldSupport(
            _check_shape(shape), -self.bound, self.bound, self.granularity
        )

    def randomize(self, values, random_state=None):
        """Reports in unit scale (``[-bound, bound]``), multiples of :attr:`granularity`."""
        d = self._design
        N, M = d.width, d.half
        source = check_client_random_state(random_state)
        values = check_finite_array(values, name="values")
        reports = np.empty(values.shape)
        flat, out = values.reshape(-1), reports.reshape(-1)
        # NoiseSource.bernoulli(P_high) and .integers(count) on the same words.
        high_threshold = coin_thresholds(np.array(d.high_prob))
        counts = np.array([2 * M + 1 - N, N], dtype=np.uint64)
        # The words of every value's rounding coin, then its window coin,
        # then its position.
        coins, windows, positions = source.segments(flat.size, 3)
        for block in _blocks(flat.size):
            scaled = self._unit_block(flat[block])
            scaled *= d.kappa / d.granularity
            scaled -= 0.5 * (N - 1)
            start = _round_in_place(scaled, coins)
            high = windows.words(scaled.size) < high_threshold
            position = _uniform_below(
                positions.words(scaled.size), counts[high.view(np.uint8)]
            )
            # Low points: -M .. start - 1, then start + N .. M.
            index = np.full(scaled.shape, -float(M))
            np.copyto(index, float(N - M), where=position >= start + M)
            np.copyto(index, start, where=high)
            index += position
            np.multiply(index, d.granularity, out=out[block])
        return reports

    def estimate(self, reports):
        return self._from_unit(np.asarray(reports, dtype=float))

    def variance(self, values=None):
        d = self._design
        g, N, M = d.granularity, d.width, d.half
        values = np.zeros(()) if values is None else values
        t = self._to_unit(values)
        f = _coin_probability(t * (d.kappa / g) - 0.5 * (N - 1))
        unit = (
            d.low_prob * g**2 * M * (M + 1) * (2 * M + 1) / 3.0
            + d.kappa * t**2
            + g**2 * (f * (1.0 - f) + (N**2 - 1) / 12.0) / d.kappa
            - t**2
        )
        return self._unit_scale2() * unit


# -------------------------------------------------------------- Bassily-Smith


def _bit_relative_error(eps0):
    """Relative error of the implemented ``P[b]`` of a Bassily-Smith bit.

    ``p = exp(eps0 (|z| - |z - v|)) / 2`` lies in ``[e^-eps0, e^eps0] / 2``;
    it is computed with relative error ``delta`` and rounded up to a
    multiple of ``2^-64``: ``P[1]`` is off by ``delta + 2^-63 e^eps0``
    relative, ``P[0]`` by ``(delta e^eps0 / 2 + 2^-64) / (1 - e^eps0 / 2)``.
    """
    top = 0.5 * math.exp(eps0)
    if top >= 1.0:
        return math.inf
    one = _PROBABILITY_ROUNDOFF + 2.0**-63 * math.exp(eps0)
    zero = (_PROBABILITY_ROUNDOFF * top + 2.0**-64) / (1.0 - top)
    return max(one, zero)


def _bassily_smith_implemented(epsilon):
    return relative_error_epsilon(
        epsilon, _bit_relative_error(bassily_smith_epsilon(epsilon))
    )


@lru_cache(maxsize=128)
def _public_laplace(eps0):
    """Lattice step ``g`` and sampler of the public ``z = g J``, ``J`` discrete Laplace."""
    g = min(1.0, lattice_granularity(1.0 / eps0, cells=LATTICE_CELLS))
    decay = eps0 * g
    p = math.exp(-decay)
    half = max(1, math.ceil(math.log(PUBLIC_TAIL * (1 + p)) / -decay) - 1)
    if 2 * half + 1 > MAX_LAPLACE_ENTRIES:
        # g = 1 there, so the table has about 2 ln(1e12) / eps0 entries.
        smallest = 2.0 * math.log(1.0 / PUBLIC_TAIL) / (MAX_LAPLACE_ENTRIES - 1)
        raise ValueError(
            f"BassilySmithMechanism on a lattice: epsilon = {eps0:.3g} per value needs "
            f"a public sampler table of {2 * half + 1:.3g} entries (at most "
            f"{MAX_LAPLACE_ENTRIES:.3g}); it supports epsilon >= {smallest:.2g} per "
            "value."
        )
    sampler = discrete_laplace(decay, half)
    return g, sampler, sampler.variance()


class BassilySmithMechanism(_IntervalMechanism):
    """One-bit protocol of seed 001, Algorithm 3 (after Bassily and Smith, 2015).

    The value is mapped to ``v in [0, 1]`` and rounded to the lattice ``g Z``
    (unbiased randomized rounding, ``g = granularity``). Public randomness
    (independent of the data, from a stream apart from the noise) draws ``z
    = g J`` for the user, ``J`` discrete Laplace with ``P(J = j) ∝ exp(-eps0
    g |j|)`` (the lattice version of ``Lap(1 / eps0)``); the user sends one
    bit ``b ~ Bernoulli(p)``, ``p = exp(eps0 (|z| - |z - v|)) / 2``, the
    ratio of the probabilities of ``v + g J`` and ``g J`` at ``z``, halved.
    The report is ``(z, b)``; the server's unbiased estimate of ``v`` is
    ``2 b z``: with ``q`` the law of ``z``, ``q(z) p(z) = q(z - v) / 2``, and
    ``z - v`` ranges over the same lattice as ``z`` because ``v`` is a
    lattice point, so ``E[b z] = sum_z q(z - v) z / 2 = E[z + v] / 2 = v /
    2``, and the rounded ``v`` has the value itself as its mean. (Seed 001
    prints ``n / |I_l| * sum z_i`` in line 17, which estimates ``v / 2``;
    the factor is 2, not ``n``.) The sampler clamps ``z`` to a window
    holding all but ``1e-12`` of its mass, which moves ``E[2 b z]`` by less
    than ``1e-10 / eps0``; the law of ``z`` does not enter the guarantee.

    Guarantee, derived here because the printed Theorem 23 overstates it:
    for ``b = 1`` the likelihood ratio of two values is
    ``exp(eps0 (|z - v'| - |z - v|)) <= e^eps0``. For ``b = 0`` it is
    ``(1 - p_v(z)) / (1 - p_v'(z))``; at ``z >= 1`` the exponent
    ``|z| - |z - v|`` equals ``v``, so ``p`` ranges over ``[1/2, e^eps0 / 2]``
    and the ratio reaches ``1 / (2 - e^eps0)`` (infinite at the printed
    ``eps0 = ln 2``). No other ``z`` does worse, and
    ``1 / (2 - e^x) >= e^x``, so the protocol is exactly
    ``-ln(2 - e^eps0)``-LDP; lattice values of ``v`` and ``z`` change
    nothing (``z = 1`` is a lattice point), and the law of the public ``z``
    does not enter. We therefore run it with ``eps0 = ln(2 - e^-eps_d)``,
    which makes it ``eps_d``-LDP for every ``eps_d > 0`` (for epsilon <= ln
    2 this is below the printed ``eps0 = epsilon``, the price of a correct
    guarantee); the rule is
    :func:`~sklearn_ldp.accounting.bassily_smith_epsilon`. What is sampled:
    ``p`` is computed with relative error below ``8 u`` and the bit drawn
    with probability ``ceil(p 2^64) / 2^64``, so each bit probability is
    within relative ``r`` of the ideal (``_bit_relative_error``) and the
    protocol is ``eps_d + ln((1 + r) / (1 - r))``-LDP, at most the
    requested epsilon (slack ``~1e-14`` at epsilon = 1).

    Variance of the estimate ``2 b z`` of ``v`` (in ``[0, 1]`` units):
    ``E[4 b z^2 | v] = 2 E[(z + v)^2]`` by the same identity, so it is
    ``v^2 + 2 Var z + 2 g^2 f (1 - f)``, ``f = ceil(frac(v / g) 2^53) /
    2^53`` (the rounding coin's probability),
    with ``Var z = g^2 Var J`` of the implemented sampler: exact for what is
    sampled up to the clamp of ``z`` (below ``1e-9`` relative), and the
    continuous protocol's ``v^2 + 4 / eps0^2`` within ``1e-6``.

    Examples
    --------
    >>> from sklearn_ldp.randomizers import BassilySmithMechanism
    >>> mech = BassilySmithMechanism(0.5, lower=0.0, upper=1.0)
    >>> reports = mech.randomize([0.2, 0.9], random_state=0)
    >>> reports.shape
    (2, 2)
    >>> round(mech.internal_epsilon, 4), mech.granularity
    (0.3318, 0.001953125)
    """

    def __init__(self, epsilon, lower=0.0, upper=1.0):
        super().__init__(epsilon, lower, upper)
        self.requested_epsilon = self.epsilon
        self.design_epsilon, self.epsilon = design_epsilon(
            self.epsilon, _bassily_smith_implemented
        )
        self.internal_epsilon = bassily_smith_epsilon(self.design_epsilon)

    @property
    def granularity(self):
        return _public_laplace(self.internal_epsilon)[0]

    def _to_zero_one(self, values):
        return 0.5 * (self._to_unit(values) + 1.0)

    def report_support(self, shape=()):
        """Last axis ``(z, bit)``: ``z`` within the public window, the bit in ``{0, 1}``."""
        g, sampler, _ = _public_laplace(self.internal_epsilon)
        reach = g * sampler.support[1]
        return FieldSupport(
            _check_shape(shape) + (2,), [-reach, 0.0], [reach, 1.0], [g, 1.0]
        )

    def randomize(self, values, random_state=None, public=None):
        """Return reports of shape ``values.shape + (2,)``: public ``z`` and the bit.

        Parameters
        ----------
        values : array-like
        random_state : None, int, RandomState, Generator or NoiseSource, default=None
            The user's private randomness (rounding and the bit).
        public : NoiseSource or None, default=None
            Source of the public ``z``; ``random_state``'s separate public
            stream when None. Never the noise stream.
        """
        eps0 = self.internal_epsilon
        g, sampler, _ = _public_laplace(eps0)
        source = check_client_random_state(random_state)
        public = (
            source.public() if public is None else check_client_random_state(public)
        )
        values = check_finite_array(values, name="values")
        reports = np.empty(values.shape + (2,))
        flat, out = values.reshape(-1), reports.reshape(-1, 2)
        # The words of every value's rounding coin, then of its bit.
        coins, bits = source.segments(flat.size, 2)
        for block in _blocks(flat.size):
            v = self._unit_block(flat[block])
            v += 1.0
            v *= 0.5
            v /= g
            v = _round_in_place(v, coins)
            v *= g
            z = sampler.sample(public, v.size) * g
            out[block, 0] = z
            # p = exp(eps0 (|z| - |z - v|)) / 2 < 1, NoiseSource.bernoulli's coin.
            v -= z
            np.abs(v, out=v)
            np.abs(z, out=z)
            z -= v
            z *= eps0
            np.exp(z, out=z)
            z *= 0.5
            out[block, 1] = bits.words(z.size) < coin_thresholds(z)
        return reports

    def estimate(self, reports):
        reports = np.asarray(reports, dtype=float)
        v_hat = 2.0 * reports[..., 0] * reports[..., 1]
        return self.lower + (self.upper - self.lower) * v_hat

    def variance(self, values=None):
        g, _, cells_variance = _public_laplace(self.internal_epsilon)
        values = np.zeros(()) if values is None else values
        v = self._to_zero_one(values)
        f = _coin_probability(v / g)
        unit = v**2 + 2.0 * g**2 * (cells_variance + f * (1.0 - f))
        return (self.upper - self.lower) ** 2 * unit
