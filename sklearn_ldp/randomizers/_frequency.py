"""Client side of the frequency oracles: one categorical value per user.

A user holds a value of a public domain of ``K`` cells (the public
categories, plus an ``'other'`` cell when out-of-domain values are allowed)
and sends one report from which the server counts, for every cell ``x``,
the users whose report *supports* ``x``. Every mechanism here has two
support probabilities, ``p = P[report supports x | value x]`` and ``q =
P[report supports x | value != x]``, so ``(c_x / n - q) / (p - q)`` is
unbiased (:mod:`sklearn_ldp.aggregation`) with variance

    Var_x = (f_x p (1 - p) + (1 - f_x) q (1 - q)) / (n (p - q)^2)

(Wang, Blocki, Li, Jha, USENIX Security 2017, Theorem 2 and section 4.3,
with the ``f_x`` term kept). Averaged over the cells (``sum_x f_x = 1``)
this is ``(p (1 - p) / K + (1 - 1/K) q (1 - q)) / (n (p - q)^2)``, which
``mechanism='auto'`` minimizes (:func:`frequency_mechanism_variances`).

Mechanisms (``e = e^epsilon``):

* ``'randomized_response'`` (generalized randomized response, direct
  encoding): report the value with probability ``p = e / (e + K - 1)``,
  otherwise a uniformly drawn other cell; ``q = (1 - p) / (K - 1)``;
  ``Var ~ (e + K - 2) / (n (e - 1)^2)``.
* ``'unary_encoding'`` (optimized unary encoding): ``K`` bits, bit ``v`` is
  1 with probability ``p = 1/2``, every other bit with ``q = 1 / (e + 1)``;
  ``Var ~ 4 e / (n (e - 1)^2)``. Reports are the packed bits.
* ``'local_hashing'`` (optimized local hashing): the user's public hash
  ``h(x) = ((a x + b) mod P) mod g`` (``P = 2^31 - 1``, ``(a, b)`` drawn
  from the public stream, ``g = round(e) + 1``) and randomized response on
  ``h(v)`` over ``g`` values; a report supports ``x`` when ``h(x)`` equals
  it. ``q = c p + (1 - c) (1 - p) / (g - 1)`` with ``c`` the exact collision
  probability of the hash family (``~ 1/g``); ``Var ~ 4 e / (n (e - 1)^2)``.
* ``'subset_selection'``: a subset of ``d ~ K / (e + 1)`` cells, holding the
  value with probability ``p = d e / (d e + K - d)``, uniform otherwise
  (Wang, Wu, Li, Xiao, Wang, 2016; Ye and Barg, IEEE Trans. Inf. Theory
  2018); ``q = (p (d - 1) + (1 - p) d) / (K - 1)``. Reports are the packed
  membership bits.
* ``'hadamard_response'``: with ``K' = 2^ceil(log2(K + 1))`` and ``C_x =
  {j : H[x + 1, j] = +1}`` (row ``x + 1`` of the Sylvester Hadamard matrix,
  ``K'/2`` indices), report a uniform index of ``C_v`` with probability
  ``e / (e + 1)``, else of its complement (Acharya, Sun, Zhang, AISTATS
  2019); ``p = e / (e + 1)``, ``q = 1/2``, ``Var ~ (e + 1)^2 / (n (e -
  1)^2)``, ``log2 K'`` bits per report.

Exact probabilities. Every coin is a 64-bit word compared with an integer
threshold ``T`` (probability exactly ``T / 2^64``); uniform choices are the
top bits of a word (exact for powers of two). Randomized response (and the
randomized response of local hashing) reads one uniform ``b``-bit integer
``u`` per user (``b = 64``, or ``b = 32``, half a word, where the coarser
lattice changes the variance by less than a relative ``2^-20``): with ``N``
the draws given to each other output, ``shift = min(floor(u / N), K)`` and
the report is ``(v + shift) mod K``. Each other output ``v + k`` (``k = 1,
..., K - 1``) is reported for the ``N`` draws of ``[k N, (k + 1) N)``, the
value itself for the other ``2^b - (K - 1) N``, so ``q = N / 2^b`` and ``p =
1 - (K - 1) q`` exactly. The guarantee each mechanism
provides is the log of the largest ratio of these exact probabilities
(:func:`~sklearn_ldp.accounting.probability_ratio_epsilon`), and the mechanism
is designed (:func:`~sklearn_ldp.accounting.design_epsilon`) so that it is at
most the requested epsilon.
"""

import functools
import math
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from ..accounting import design_epsilon, probability_ratio_epsilon
from ..utils import check_epsilon
from ._base import FieldSupport, LocalRandomizer, chunk_rows

FREQUENCY_MECHANISMS = (
    "randomized_response",
    "hadamard_response",
    "local_hashing",
    "subset_selection",
    "unary_encoding",
)
UNKNOWN_OPTIONS = ("error", "other")
#: Largest domain (cells); unary and subset reports hold ``K`` bits per user.
MAX_CELLS = 2**20
#: The Mersenne prime of the local hash family ``((a x + b) mod P) mod g``.
HASH_PRIME = 2**31 - 1
#: Largest hash range of local hashing (beyond it randomized response wins).
MAX_HASH_RANGE = 2**20

_FULL = 2**64
#: Variances within this relative distance are a tie (lattice rounding apart).
_TIE = 2.0**-20


def _threshold(prob):
    """Integer ``T`` in ``[1, 2^64 - 1]`` nearest ``prob 2^64`` (exact float product)."""
    return min(max(math.floor(math.ldexp(min(max(prob, 0.0), 1.0), 64)), 1), _FULL - 1)


def _expit(epsilon, others):
    """``e^eps / (e^eps + others)``, without overflow."""
    return 1.0 / (1.0 + others * math.exp(-epsilon))


@dataclass(frozen=True)
class FrequencyDesign:
    """One mechanism calibrated for ``n_cells`` cells: exact thresholds and ``p, q``.

    ``threshold`` is the 64-bit threshold of the mechanism's one coin (put
    the value in the subset, answer inside ``C_v``, or, for unary encoding,
    set an other bit) or, for randomized response and local hashing, the
    number ``N`` of ``bits``-bit draws that report each other output;
    ``support_prob`` and ``other_prob`` are the implemented ``p`` and ``q``
    (exact up to float rounding); ``epsilon`` is the guarantee of what is
    sampled.
    """

    mechanism: str
    n_cells: int
    threshold: int
    support_prob: float
    other_prob: float
    epsilon: float
    n_outputs: int = 0
    subset_size: int = 0
    bits: int = 64

    def variance(self, frequency=None):
        """Per-user variance of the unbiased frequency (times ``n`` users).

        ``frequency=None``: averaged over the cells (``f = 1 / K``).
        """
        f = 1.0 / self.n_cells if frequency is None else np.asarray(frequency)
        p, q = self.support_prob, self.other_prob
        return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (p - q) ** 2


def _randomized_response(n_outputs, epsilon, bits=64):
    """``(N, p, q, epsilon)`` of randomized response from one ``bits``-bit draw.

    ``N`` draws (of ``2^bits``) report each other output, the remaining
    ``2^bits - (K - 1) N`` the value: ``q = N / 2^bits``, ``p = 1 - (K - 1)
    q``, and the guarantee is ``ln(p / q)`` (the only ratio above 1 between
    two inputs' probabilities of one output), computed on the integers.
    ``N = ceil(2^bits / (e^epsilon + K - 1))``, at most ``2^bits / K`` so that
    ``p >= q``.
    """
    full = 1 << bits
    others = n_outputs - 1
    ideal = 1.0 / (math.exp(min(epsilon, 700.0)) + others)
    n_other = min(max(math.ceil(math.ldexp(ideal, bits)), 1), full // n_outputs)
    keep = full - others * n_other
    return (
        n_other,
        keep / full,
        n_other / full,
        probability_ratio_epsilon(keep, n_other),
    )


def _randomized_response_design(n_outputs, epsilon):
    """``(bits, design epsilon, provided epsilon)`` of randomized response on ``n_outputs``.

    Half a word (``bits = 32``) when its design's variance is within a
    relative ``2^-20`` of the 64-bit design's; the 64-bit draw otherwise
    (small epsilon or large domains, where the coarser lattice would cost).
    """
    chosen, variances = None, {}
    for bits in (64, 32):
        try:
            design, provided = design_epsilon(
                epsilon, lambda e, bits=bits: _randomized_response(n_outputs, e, bits)[3]
            )
        except ValueError:  # epsilon below the 32-bit lattice's resolution
            if bits == 64:
                raise
            break
        _, p, q, _ = _randomized_response(n_outputs, design, bits)
        f = 1.0 / n_outputs  # averaged over the cells, as frequency_mechanism_variances
        variances[bits] = (
            (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (p - q) ** 2 if p > q else math.inf
        )
        if bits == 64 or variances[32] <= variances[64] * (1.0 + _TIE):
            chosen = (bits, design, provided)
    return chosen


def _collision_probability(g):
    """``P[h(x) = h(x')]`` for ``x != x'`` in the family ``((a x + b) mod P) mod g``.

    ``((a x + b) mod P, (a x' + b) mod P)`` is uniform over the distinct
    pairs of ``Z_P`` (``a`` in ``[1, P)``, ``b`` in ``[0, P)``), so the
    collision probability is ``sum_r m_r (m_r - 1) / (P (P - 1))`` over the
    residues ``r`` mod ``g`` (``m_r`` values of ``Z_P`` each).
    """
    m, r = divmod(HASH_PRIME, g)
    pairs = r * (m + 1) * m + (g - r) * m * (m - 1)
    return pairs / (HASH_PRIME * (HASH_PRIME - 1))


def hash_range(epsilon):
    """``g = round(e^epsilon) + 1`` (Wang et al. 2017), in ``[2, MAX_HASH_RANGE]``."""
    return int(min(max(round(math.exp(min(epsilon, 30.0))) + 1, 2), MAX_HASH_RANGE))


def _subset_size(n_cells, epsilon):
    """Integer ``d`` near ``K / (e^eps + 1)`` with the lower ideal variance."""
    ideal = n_cells / (math.exp(min(epsilon, 700.0)) + 1.0)
    best, best_var = 1, math.inf
    for d in {max(1, min(n_cells - 1, v)) for v in (math.floor(ideal), math.ceil(ideal))}:
        p = _expit(epsilon, (n_cells - d) / d)
        q = (p * (d - 1) + (1 - p) * d) / (n_cells - 1)
        f = 1.0 / n_cells
        var = (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (p - q) ** 2
        if var < best_var:
            best, best_var = d, var
    return best


def _subset_tie_slack(n_cells):
    # Subsets are the smallest of K 64-bit keys: uniform given distinct keys;
    # ties (probability < K^2 2^-65) move any subset's probability by a
    # relative factor of at most 3 K^2 2^-65.
    return 3.0 * n_cells**2 * 2.0**-65


def frequency_design(mechanism, n_cells, epsilon):
    """Calibrate ``mechanism`` on ``n_cells`` cells so that it is at most ``epsilon``-LDP.

    Parameters
    ----------
    mechanism : str
        One of ``FREQUENCY_MECHANISMS``.
    n_cells : int
        Domain size ``K >= 2``.
    epsilon : float

    Returns
    -------
    design : FrequencyDesign

    Raises
    ------
    ValueError
        If ``epsilon`` is so small that the implemented ``p`` and ``q``
        coincide at 64-bit resolution (no information is released).
    """
    epsilon = check_epsilon(epsilon)
    if mechanism not in FREQUENCY_MECHANISMS:
        raise ValueError(
            f"mechanism must be one of {FREQUENCY_MECHANISMS}, got {mechanism!r}."
        )
    return _frequency_design(mechanism, int(n_cells), epsilon)


@functools.lru_cache(maxsize=256)
def _frequency_design(mechanism, K, epsilon):
    """:func:`frequency_design` of checked arguments (a pure function: cached)."""
    extra = {}
    if mechanism in ("randomized_response", "local_hashing"):
        g = hash_range(epsilon) if mechanism == "local_hashing" else K
        bits, design, provided = _randomized_response_design(g, epsilon)
        n_other, p, q, _ = _randomized_response(g, design, bits)
        if mechanism == "local_hashing":
            c = _collision_probability(g)
            q = c * p + (1 - c) * q
            extra["n_outputs"] = g
        _check_informative(p, q, epsilon, mechanism, K)
        return FrequencyDesign(mechanism, K, n_other, p, q, provided, bits=bits, **extra)

    if mechanism == "unary_encoding":

        def build(e):
            t = _threshold(1.0 / (1.0 + math.exp(min(e, 700.0))))
            return t, 0.5, t / _FULL, probability_ratio_epsilon(_FULL - t, t)

    elif mechanism == "subset_selection":
        d = _subset_size(K, epsilon)
        extra["subset_size"] = d

        def build(e):
            t = _threshold(_expit(e, (K - d) / d))
            implemented = probability_ratio_epsilon(
                t * (K - d), (_FULL - t) * d
            ) + _subset_tie_slack(K)
            p = t / _FULL
            return t, p, (p * (d - 1) + (1 - p) * d) / (K - 1), implemented

    else:  # hadamard_response
        extra["n_outputs"] = 1 << int(K).bit_length()  # smallest power of 2 > K

        def build(e):
            t = _threshold(_expit(e, 1.0))
            implemented = max(
                probability_ratio_epsilon(t, _FULL - t),
                probability_ratio_epsilon(_FULL - t, t),
            )
            return t, t / _FULL, 0.5, implemented

    design, provided = design_epsilon(epsilon, lambda e: build(e)[3])
    t, p, q, _ = build(design)
    _check_informative(p, q, epsilon, mechanism, K)
    return FrequencyDesign(mechanism, K, t, p, q, provided, **extra)


def _check_informative(p, q, epsilon, mechanism, n_cells):
    if not p > q:
        raise ValueError(
            f"epsilon = {epsilon!r} is too small for {mechanism!r} on {n_cells} "
            "cells: the implemented probabilities coincide at 64-bit resolution. "
            "Use epsilon >= 1e-12."
        )


def frequency_mechanism_variances(n_cells, epsilon):
    """Predicted per-user variance of every mechanism, averaged over the cells.

    ``(p (1 - p) / K + (1 - 1/K) q (1 - q)) / (p - q)^2`` with the implemented
    ``p`` and ``q`` (divide by the number of users for the variance of one
    frequency, averaged over the cells). ``mechanism='auto'`` picks the
    smallest (:func:`best_frequency_mechanism`).

    Examples
    --------
    >>> from sklearn_ldp.randomizers import frequency_mechanism_variances
    >>> variances = frequency_mechanism_variances(2, 1.0)
    >>> round(variances["randomized_response"], 4), round(variances["unary_encoding"], 4)
    (0.9207, 4.1827)
    >>> variances = frequency_mechanism_variances(1024, 1.0)
    >>> min(variances, key=variances.get)
    'subset_selection'
    """
    return {
        mechanism: float(frequency_design(mechanism, n_cells, epsilon).variance())
        for mechanism in FREQUENCY_MECHANISMS
    }


def best_frequency_mechanism(n_cells, epsilon):
    """The mechanism of smallest predicted variance (:func:`frequency_mechanism_variances`).

    Variances within a relative ``2^-20`` of the smallest tie (the lattice
    rounding of ``p`` and ``q`` separates mechanisms that are equal in
    exact arithmetic, such as randomized response and subset selection with
    subsets of one cell); ties go to the first in ``FREQUENCY_MECHANISMS``
    order, which has the smallest reports and the fastest client.

    Examples
    --------
    >>> from sklearn_ldp.randomizers._frequency import best_frequency_mechanism
    >>> best_frequency_mechanism(33, 4.0), best_frequency_mechanism(1024, 1.0)
    ('randomized_response', 'subset_selection')
    """
    variances = frequency_mechanism_variances(n_cells, epsilon)
    smallest = min(variances.values())
    return next(
        mechanism
        for mechanism in FREQUENCY_MECHANISMS
        if variances[mechanism] <= smallest * (1.0 + _TIE)
    )


def check_categories(categories):
    """The public domain as a sorted float array of distinct finite values.

    ``categories`` is an integer ``k >= 1`` (the values ``0..k-1``) or an
    array-like of distinct numbers.
    """
    if isinstance(categories, Integral) and not isinstance(categories, bool):
        if categories < 1:
            raise ValueError(f"categories must be >= 1, got {categories}.")
        return np.arange(int(categories), dtype=np.float64)
    values = np.asarray(categories)
    if values.ndim != 1 or values.size == 0 or values.dtype.kind not in "biuf":
        raise ValueError(
            "categories must be an integer k (values 0..k-1) or a non-empty 1-d "
            f"array of numbers, got {categories!r}."
        )
    values = values.astype(np.float64)
    if not np.all(np.isfinite(values)):
        raise ValueError("categories must be finite numbers.")
    if np.unique(values).size != values.size:
        raise ValueError("categories must be distinct.")
    return np.sort(values)


def encode_categories(values, categories, unknown, dtype=np.int64, consecutive=None):
    """Cell indices of ``values`` in the sorted ``categories``, as ``dtype``.

    Out-of-domain values raise a ValueError (``unknown='error'``) or get the
    extra last cell ``len(categories)`` (``unknown='other'``). Consecutive
    integer categories (``categories=k``: ``0..k-1``) are indexed by
    arithmetic (on the integers themselves for integer ``values``: no float
    copy), others by a binary search. ``consecutive``: whether the categories
    are consecutive (computed when None).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers._frequency import encode_categories
    >>> encode_categories(np.array([2.0, 0.0, 7.0, 0.5]), np.arange(3.0), "other").tolist()
    [2, 0, 3, 3]
    >>> encode_categories(np.array([2.5, 7.0, 1.0]), np.array([1.0, 2.5]), "other").tolist()
    [1, 2, 0]
    """
    values = np.asarray(values)
    first = categories[0]
    if consecutive is None:
        consecutive = np.array_equal(categories, first + np.arange(categories.size))
    if consecutive and values.dtype.kind in "biu" and float(first).is_integer():
        # Modulo 2^64, value - first is below the size exactly for the values
        # first, ..., first + size - 1 (|first| < 2^53: no wrap among them).
        index = values.astype(np.int64, copy=False).view(np.uint64)
        if first != 0:
            index = index - np.uint64(int(first) % 2**64)
        size = np.uint64(categories.size)
        # The largest offset tells (one pass) whether every value is inside.
        inside = None if index.size == 0 or index.max() < size else index < size
    elif consecutive:
        offset = values - first  # NaN and out-of-range values fail every test
        with np.errstate(invalid="ignore"):  # casting them: their index is unused
            index = offset.astype(np.int64)
        inside = (offset >= 0) & (offset < categories.size)
        inside &= index == offset
    else:
        index = np.searchsorted(categories, values)
        inside = index < categories.size
        inside[inside] = categories[index[inside]] == values[inside]
    if inside is not None and not inside.all():
        if unknown == "error":
            bad = np.asarray(values)[~inside]
            raise ValueError(
                f"{bad.size} records hold values outside the public categories "
                f"(first: {bad.flat[0]!r}); add them to categories or use "
                "unknown='other'."
            )
        index = np.where(inside, index, categories.size)
    return index.astype(dtype, copy=False)


def value_dtype(n_values):
    """The smallest integer dtype of a report holding one of ``n_values`` values.

    One byte up to 256 values, two up to ``2^16``, else ``int32``.
    """
    if n_values <= 1 << 8:
        return np.dtype(np.uint8)
    return np.dtype(np.uint16 if n_values <= 1 << 16 else np.int32)


def _shift_dtype(bits, n_other, n_outputs):
    """Smallest unsigned dtype of randomized response's shifts and sums.

    It holds every quotient ``floor(u / N)`` of a ``bits``-bit draw and
    ``2 n_outputs - 1``.
    """
    largest = max(((1 << bits) - 1) // n_other, 2 * n_outputs - 1)
    for dtype in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.uint64)


def randomized_response_values(draws, cells, n_other, n_outputs, work):
    """Randomized response of ``cells`` from one uniform unsigned draw each.

    The shift ``k = 1, ..., K-1`` for the ``N = n_other`` draws of ``[k N,
    (k + 1) N)``, 0 (the value itself) for the others, and the report
    ``(v + k) mod K``: each other output has exactly ``N`` draws, the value
    the remaining ``2^b - (K - 1) N`` (``b`` the draws' bits). Computed as
    ``min(floor(u / N), K)`` (``K`` is the shift 0 too), then ``min(s, s -
    K)`` for ``s = v + shift``, the unsigned subtraction wrapping to a larger
    number when ``s < K``; in ``work``, an unsigned dtype holding every
    quotient and ``2 K - 1`` (:func:`_shift_dtype`; the smallest is the
    fastest).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers._frequency import randomized_response_values
    >>> draws = np.arange(256, dtype=np.uint8)  # every 8-bit draw, once
    >>> cells = np.full(256, 1, dtype=np.uint8)
    >>> values = randomized_response_values(draws, cells, 20, 4, np.dtype(np.uint8))
    >>> np.bincount(values).tolist()  # 2^8 - 3 * 20 draws keep the value
    [20, 196, 20, 20]
    """
    # Every quotient fits in `work`: the cast on output is exact.
    shift = np.floor_divide(
        draws, draws.dtype.type(n_other), out=np.empty(draws.shape, work), casting="unsafe"
    )
    # An array bound, not a scalar: numpy's vectorized minimum.
    np.minimum(shift, np.full(shift.shape, n_outputs, dtype=work), out=shift)
    shift += cells.astype(work, copy=False)
    return np.minimum(shift, shift - work.type(n_outputs), out=shift)


def _uniform_draws(source, n, bits):
    """``n`` uniform ``bits``-bit integers: words, or (``bits=32``) halves of words.

    The two 32-bit halves of a uniform 64-bit word are independent and
    uniform: half a word per draw.
    """
    if bits == 64:
        return source.words(n)
    return source.words((n + 1) // 2).view(np.uint32)[:n]


def _coins(source, threshold, shape):
    """Bits ``True`` with probability exactly ``threshold / 2^64``."""
    return source.words(shape) < np.uint64(threshold)


def hadamard_sign(rows, columns):
    """``H[rows, columns]`` of the Sylvester Hadamard matrix, as ``True`` for ``+1``.

    ``H[i, j] = (-1)^popcount(i & j)``.
    """
    x = np.bitwise_and(rows, columns).astype(np.uint64)
    parity = np.zeros(x.shape, dtype=np.uint64)
    while np.any(x):
        parity ^= x & np.uint64(1)
        x >>= np.uint64(1)
    return parity == 0


class FrequencyRandomizer(LocalRandomizer):
    """Client side of the frequency oracles (one categorical value per user).

    Each user encodes its value as a cell of the public domain (the sorted
    ``categories``, plus an ``'other'`` cell with ``unknown='other'``) and
    sends one report of the named mechanism (see
    :mod:`sklearn_ldp.randomizers._frequency` for the five mechanisms, their
    support probabilities and variances). With several features (attributes,
    all over the same domain) each user draws one attribute uniformly from the
    public stream of its randomness and reports that one with the full
    epsilon; the attribute travels in the report.

    Guarantee: each user's record is epsilon-LDP (pure). For every mechanism
    the report's probability given value ``v`` takes two values, "supports
    ``v``" and not; their ratio is ``e^epsilon`` in the ideal mechanism:
    randomized response ``p / q = e (K - 1) / (K - 1) = e``; unary encoding,
    two values differ in two bits, ratio ``p (1 - q) / (q (1 - p)) = (1 -
    q) / q = e``; local hashing is randomized response on ``h(v)`` with a
    public, data-independent hash; subset selection ``P[S | v in S] / P[S |
    v not in S] = p C(K-1, d) / ((1 - p) C(K-1, d-1)) = p (K - d) / ((1 - p)
    d) = e``; Hadamard response ``(e / (e + 1)) / (1 / (e + 1)) = e`` (both
    halves have ``K'/2`` indices). The implemented probabilities are exact
    integers over ``2^64`` (module docstring) and the stated epsilon is the
    log of their largest ratio, at most the requested one
    (:func:`frequency_design`; capped, with a smaller stated epsilon, only
    where the smallest probability would approach ``2^-64``). The public
    attribute and hash seeds are independent of the data.

    Reports: integers and bits (``granularity = 1``): ``value`` (randomized
    response and local hashing: in the smallest integer type holding the
    outputs, one byte up to 256; Hadamard response), ``bits`` (unary encoding,
    subset selection: ``np.packbits`` of the ``K`` bits, padding bits zero),
    ``hash_a``, ``hash_b`` (local hashing, public) and ``attribute`` (several
    features, public).

    Parameters
    ----------
    n_features : int
        Number of attributes (columns), each over the same domain.
    epsilon : float
    categories : int or array-like
        Public domain: ``k`` (values ``0..k-1``) or the distinct values.
    mechanism : str, default='randomized_response'
        One of ``'randomized_response'``, ``'hadamard_response'``,
        ``'local_hashing'``, ``'subset_selection'``, ``'unary_encoding'``.
    unknown : {'error', 'other'}, default='error'
        A value outside ``categories``: a ValueError, or the extra last cell.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import FrequencyRandomizer
    >>> rand = FrequencyRandomizer(1, epsilon=1.0, categories=4,
    ...                            mechanism="unary_encoding")
    >>> reports = rand.randomize(np.array([[0.0], [3.0]]), random_state=0)
    >>> reports["bits"].shape, rand.design.support_prob
    ((2, 1), 0.5)
    """

    requires_y = False
    # Integer records (category codes) are encoded as they are: no float copy.
    keep_integer_records = True
    granularity = 1.0

    def __init__(
        self,
        n_features,
        *,
        epsilon,
        categories,
        mechanism="randomized_response",
        unknown="error",
    ):
        self.n_features = int(n_features)
        if self.n_features < 1:
            raise ValueError(f"n_features must be >= 1, got {n_features}.")
        self.requested_epsilon = check_epsilon(epsilon)
        self.categories = check_categories(categories)
        self._consecutive = np.array_equal(
            self.categories, self.categories[0] + np.arange(self.categories.size)
        )
        if unknown not in UNKNOWN_OPTIONS:
            raise ValueError(f"unknown must be one of {UNKNOWN_OPTIONS}, got {unknown!r}.")
        self.unknown = unknown
        self.n_cells = self.categories.size + (unknown == "other")
        if self.n_cells < 2:
            raise ValueError(
                "The domain needs at least two cells (two categories, or one and "
                f"unknown='other'), got {self.n_cells}."
            )
        if self.n_cells > MAX_CELLS:
            raise ValueError(f"At most {MAX_CELLS} cells, got {self.n_cells}.")
        self.mechanism = mechanism
        self.design = frequency_design(mechanism, self.n_cells, self.requested_epsilon)
        self.epsilon = self.design.epsilon
        self.delta = 0.0
        wide = mechanism in ("unary_encoding", "subset_selection")
        # A few numbers per user otherwise: larger chunks (fewer passes of
        # Python per user), their temporaries still within the chunk budget.
        self.chunk_size = (
            chunk_rows(2 * self.n_cells) if wide else chunk_rows(8, max_rows=1 << 18)
        )

    def _config(self):
        return {
            "categories": self.categories.tolist(),
            "unknown": self.unknown,
            "mechanism": self.mechanism,
            "requested_epsilon": self.requested_epsilon,
            "n_cells": self.n_cells,
        }

    @property
    def n_bytes(self):
        """Bytes of a packed bit report (unary encoding, subset selection)."""
        return -(-self.n_cells // 8)

    def report_support(self):
        support = {}
        if self.n_features > 1:
            support["attribute"] = FieldSupport((), 0, self.n_features - 1, 1)
        mechanism, design = self.mechanism, self.design
        if mechanism in ("unary_encoding", "subset_selection"):
            # np.packbits is big-endian: the last byte's low bits are padding.
            padding = 8 * self.n_bytes - self.n_cells
            step = np.ones(self.n_bytes)
            step[-1] = 2**padding
            high = np.full(self.n_bytes, 255.0)
            high[-1] = 256 - 2**padding
            support["bits"] = FieldSupport((self.n_bytes,), 0, high, step)
        elif mechanism == "local_hashing":
            support["hash_a"] = FieldSupport((), 1, HASH_PRIME - 1, 1)
            support["hash_b"] = FieldSupport((), 0, HASH_PRIME - 1, 1)
            support["value"] = FieldSupport((), 0, design.n_outputs - 1, 1)
        elif mechanism == "hadamard_response":
            support["value"] = FieldSupport((), 0, design.n_outputs - 1, 1)
        else:
            support["value"] = FieldSupport((), 0, self.n_cells - 1, 1)
        return support

    def validate_reports(self, reports):
        valid, reasons = super().validate_reports(reports)
        if self.mechanism == "subset_selection" and valid.any():
            rows = np.flatnonzero(valid)
            counts = np.zeros(rows.size, dtype=np.int64)
            for start in range(0, rows.size, self.chunk_size):
                block = reports["bits"][rows[start : start + self.chunk_size]]
                counts[start : start + block.shape[0]] = np.unpackbits(
                    block.astype(np.uint8), axis=1
                ).sum(axis=1)
            wrong = counts != self.design.subset_size
            if wrong.any():
                valid[rows[wrong]] = False
                reason = f"subset size not {self.design.subset_size}"
                reasons[reason] = int(wrong.sum())
        return valid, reasons

    def _randomize_chunk(self, X, y, source, public):
        n = X.shape[0]
        fields = {}
        if self.n_features > 1:
            attribute = public.integers(self.n_features, n)
            values = X[np.arange(n), attribute]
            fields["attribute"] = attribute.astype(np.int32)
        else:
            values = X[:, 0]
        # Randomized response computes in the unsigned type of its shifts.
        design = self.design
        dtype = (
            _shift_dtype(design.bits, design.threshold, self.n_cells)
            if self.mechanism == "randomized_response"
            else np.int64
        )
        cells = encode_categories(
            values, self.categories, self.unknown, dtype, self._consecutive
        )
        fields.update(getattr(self, f"_{self.mechanism}")(cells, source, public))
        return fields

    def _randomized_response(self, cells, source, public, n_outputs=None):
        K = self.n_cells if n_outputs is None else n_outputs
        design = self.design
        draws = _uniform_draws(source, cells.shape[0], design.bits)
        work = _shift_dtype(design.bits, design.threshold, K)
        value = randomized_response_values(draws, cells, design.threshold, K, work)
        return {"value": value.astype(value_dtype(K), copy=False)}

    def _local_hashing(self, cells, source, public):
        n = cells.shape[0]
        a = public.integers(HASH_PRIME - 1, n) + 1
        b = public.integers(HASH_PRIME, n)
        hashed = local_hash(a, b, cells, self.design.n_outputs)
        report = self._randomized_response(
            hashed, source, public, n_outputs=self.design.n_outputs
        )
        return {"hash_a": a, "hash_b": b, **report}

    def _unary_encoding(self, cells, source, public):
        n, K = cells.shape[0], self.n_cells
        bits = _coins(source, self.design.threshold, (n, K))
        bits[np.arange(n), cells] = _coins(source, _FULL // 2, n)
        return {"bits": np.packbits(bits, axis=1)}

    def _subset_selection(self, cells, source, public):
        n, K, d = cells.shape[0], self.n_cells, self.design.subset_size
        rows = np.arange(n)
        keys = np.array(source.words((n, K)))  # writable (os.urandom is not)
        keys[rows, cells] = np.uint64(_FULL - 1)  # the value is never drawn
        chosen = np.argpartition(keys, d - 1, axis=1)[:, :d]
        inside = _coins(source, self.design.threshold, n)
        # Holding the value: the d - 1 smallest other keys and the value.
        largest = np.argmax(np.take_along_axis(keys, chosen, axis=1), axis=1)
        chosen[rows[inside], largest[inside]] = cells[inside]
        bits = np.zeros((n, K), dtype=bool)
        bits[rows[:, None], chosen] = True
        return {"bits": np.packbits(bits, axis=1)}

    def _hadamard_response(self, cells, source, public):
        n_outputs = self.design.n_outputs
        shift = np.uint64(64 - (n_outputs.bit_length() - 1))
        index = (source.words(cells.shape) >> shift).astype(np.int64)
        inside = _coins(source, self.design.threshold, cells.shape)
        rows = cells + 1
        # XOR with the lowest set bit of the row flips the sign H[row, j]:
        # a bijection between C_v and its complement, so the draw stays uniform.
        flip = hadamard_sign(rows, index) != inside
        index = np.where(flip, index ^ (rows & -rows), index)
        return {"value": index.astype(np.int32)}


def local_hash(a, b, cells, n_outputs):
    """``((a x + b) mod P) mod g`` for per-user ``(a, b)`` and cells ``x``, broadcast.

    ``a < 2^31`` and ``x < 2^20``: the products fit in int64.
    """
    a, b, cells = (np.asarray(v, dtype=np.int64) for v in (a, b, cells))
    return ((a * cells + b) % HASH_PRIME) % n_outputs


__all__ = [
    "FREQUENCY_MECHANISMS",
    "FrequencyDesign",
    "FrequencyRandomizer",
    "frequency_design",
    "frequency_mechanism_variances",
]
