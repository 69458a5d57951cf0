"""The client's random numbers: a secure or seeded source of 64-bit words, and
samplers whose output lies on a public lattice.

Why. Noise drawn in floating point leaks: the low bits of ``x + Lap(b)``
computed with doubles reveal ``x`` (Mironov 2012), and a report of ``x + N(0,
s^2)`` is a float that some inputs can never produce. And a generator whose
state can be reconstructed (MT19937) or that is shared with the rest of the
process (numpy's global state) lets an observer replay the noise. So every
number a report carries is drawn here:

- :class:`NoiseSource` turns random 64-bit words into values. With
  ``random_state=None`` the words come from the operating system's CSPRNG
  (``os.urandom``); an integer seeds a PCG64 stream (simulations only: whoever
  knows the seed can remove the noise). Public per-user values come from a
  separate stream (:meth:`NoiseSource.public`).
- :class:`IntegerSampler` draws from a distribution on the integers given by
  integer weights that sum to ``2**64``: a draw is one word and a binary
  search, so the implemented distribution is known exactly, and the
  accountant can state the guarantee of what is actually sampled (its
  distance to the ideal distribution, :attr:`IntegerSampler.tv_bound`, or its
  largest relative deviation, :attr:`IntegerSampler.max_relative_error`).
- :func:`rounded_gaussian` is the law of ``round(W)`` for ``W ~ N(0, s^2)``:
  adding ``g * round(W)`` to a value on the lattice ``g Z`` is exactly
  ``round_g(x + g W)``, post-processing of the continuous Gaussian mechanism,
  so the analytic calibration carries over unchanged.
- :func:`discrete_laplace` is the two-sided geometric distribution (the
  discrete Laplace), clamped to a public window so that its support is
  finite and every probability in it is known to 64-bit precision.
"""

import os
from numbers import Integral

import numpy as np

_NOISE_STREAM_TAG = 0x4C445020  # "LDP ", as utils.check_noise_random_state
_PUBLIC_STREAM_TAG = 0x50554243  # "PUBC"
_TWO_64 = 2.0**64
#: Largest float64 below 2**64 (a threshold every word but the top 2048 is below).
_LARGEST_THRESHOLD = 2.0**64 - 2048.0
#: Unit roundoff of float64.
_UNIT_ROUNDOFF = 2.0**-53


class NoiseSource:
    """Random 64-bit words for a client: a CSPRNG or a seeded PCG64 stream.

    Parameters
    ----------
    seed_sequence : numpy.random.SeedSequence or None
        ``None``: every word comes from ``os.urandom`` (the operating
        system's cryptographically secure generator). Otherwise a PCG64
        generator seeded from it (fast and reproducible, for simulations).

    Examples
    --------
    >>> from sklearn_ldp.randomizers import NoiseSource
    >>> source = NoiseSource()                   # secure
    >>> source.secure, source.words(3).dtype
    (True, dtype('uint64'))
    >>> seeded = NoiseSource(np.random.SeedSequence(0))
    >>> bool((seeded.uniform(1000) < 1).all())
    True
    """

    def __init__(self, seed_sequence=None):
        self._sequence = seed_sequence
        self._bits = None if seed_sequence is None else np.random.PCG64(seed_sequence)
        # Generator.random is (next word >> 11) * 2**-53, the formula of
        # ``uniform``, written straight into its output (no temporaries).
        self._uniform = None if self._bits is None else np.random.Generator(self._bits)

    @property
    def secure(self):
        """Whether the words come from the operating system's CSPRNG."""
        return self._bits is None

    def words(self, size):
        """Independent uniform 64-bit words, as a new ``uint64`` array of shape ``size``."""
        if type(size) is int and self._bits is not None:
            return self._bits.random_raw(size)  # the samplers' per-block call
        shape = (size,) if isinstance(size, Integral) else tuple(size)
        count = int(np.prod(shape, dtype=np.int64))
        if self._bits is None:
            # bytearray: a writable buffer (the samplers work in place).
            raw = np.frombuffer(bytearray(os.urandom(8 * count)), dtype=np.uint64)
        else:
            raw = self._bits.random_raw(count).astype(np.uint64, copy=False)
        return raw.reshape(shape)

    def uniform(self, size):
        """Uniform floats in ``[0, 1)``: ``(w >> 11) 2**-53`` for one word ``w`` each."""
        if self._uniform is not None:
            return self._uniform.random(size)
        return (self.words(size) >> np.uint64(11)).astype(np.float64) * 2.0**-53

    def uniform_into(self, out):
        """:meth:`uniform` written into the float64 array ``out`` (the same values)."""
        if self._uniform is not None:
            return self._uniform.random(out=out)
        out[...] = self.uniform(out.shape)
        return out

    def bernoulli(self, prob):
        """Bits with ``P[True] = ceil(prob * 2**64) / 2**64`` (prob clipped to [0, 1]).

        The realized probability is within ``2**-64`` of ``prob``: a word ``w``
        is True when ``w < ceil(prob 2**64)``, an exact comparison of 64-bit
        integers (:func:`coin_thresholds`).
        """
        prob = np.clip(np.asarray(prob, dtype=np.float64), 0.0, 1.0)
        words = self.words(prob.shape)
        bits = np.asarray(words < coin_thresholds(prob))
        if prob.size and prob.max() >= 1.0:  # threshold 2**64: every word
            bits |= prob >= 1.0
        return bits

    def coins(self, prob):
        """Bits with ``P[True] = ceil(prob 2**53) / 2**53``, one word each.

        ``uniform() < prob``: the uniform is ``k 2**-53`` for ``k`` the
        word's top 53 bits, and exactly ``ceil(prob 2**53)`` of the ``2**53``
        values of ``k`` lie below ``prob`` (for ``prob`` in ``[0, 1]``).
        Cheaper than :meth:`bernoulli` (a float comparison, no conversion to
        64-bit thresholds); a mechanism that states its guarantee with the
        53-bit thresholds (``coin_epsilon(..., bits=53)``) may use it.
        """
        prob = np.asarray(prob, dtype=np.float64)
        return self.uniform(prob.shape) < prob

    def rounding_coins(self, fraction):
        """Bits with ``P[True] = ceil(fraction 2**53) / 2**53``, for randomized rounding.

        :meth:`coins`, meant for pre-processing an input onto the lattice,
        where the coin's probability only decides the rounding's bias (below
        ``2**-53`` lattice steps), never the guarantee.
        """
        return self.coins(fraction)

    def integers(self, n, size):
        """Uniform integers in ``[0, n)`` (``n < 2**31``), from one word each.

        ``floor(w n / 2**64)`` in exact integer arithmetic: every value has
        probability within ``2**-64`` of ``1 / n``.
        """
        n = np.asarray(n, dtype=np.uint64)
        if np.any(n < 1) or np.any(n >= 2**31):
            raise ValueError(f"n must be in [1, 2**31), got {n!r}.")
        w = self.words(size)
        high, low = w >> np.uint64(32), w & np.uint64(0xFFFFFFFF)
        value = (high * n + ((low * n) >> np.uint64(32))) >> np.uint64(32)
        return value.astype(np.int64)

    def public(self):
        """A separate source for public per-user values (never the noise stream)."""
        if self._sequence is None:
            return NoiseSource()
        return NoiseSource(self._sequence.spawn(1)[0])

    def segments(self, size, count):
        """``count`` sources, the k-th reading words ``k size`` to ``(k + 1) size - 1`` from now.

        A seeded stream hands out exactly the words ``count`` consecutive
        draws of ``size`` words would read (PCG64 jumps ahead in constant
        time), and continues after them; so a randomizer can draw, block by
        block, the words of several whole-array draws (the rounding coins
        of every value, then the noise of every value) and release the
        same reports as the whole-array definition, without holding those
        arrays. A secure source returns itself ``count`` times: its words
        are independent whatever their order.
        """
        if self._bits is None:
            return [self] * count
        state = self._bits.state
        segments = []
        for k in range(count):
            bits = np.random.PCG64(0)
            bits.state = state
            bits.advance(k * size)
            segments.append(_Segment(bits))
        self._bits.advance(count * size)
        return segments


class _Segment(NoiseSource):
    """A run of a seeded stream's words (:meth:`NoiseSource.segments`)."""

    def __init__(self, bits):
        self._sequence = None
        self._bits = bits
        self._uniform = np.random.Generator(bits)

    def public(self):  # pragma: no cover - segments carry noise only
        raise RuntimeError("A segment of the noise stream has no public stream.")

    def segments(self, size, count):  # pragma: no cover - never nested
        raise RuntimeError("Segments are not split further.")


def coin_thresholds(prob):
    """``ceil(prob * 2**64)`` as ``uint64``, for ``prob`` in ``[0, 1)``.

    A uniform 64-bit word is below it with probability exactly
    ``ceil(prob 2**64) / 2**64``: ``prob 2**64`` is exact in float64 (a
    power-of-two scaling) and its ceiling an integer of at most ``2**64 -
    2048``, converted exactly. ``prob = 1`` (threshold ``2**64``) gets
    ``2**64 - 2048``: the caller handles it.
    """
    scaled = np.multiply(prob, _TWO_64, out=np.empty(np.shape(prob)))
    np.ceil(scaled, out=scaled)
    np.minimum(scaled, _LARGEST_THRESHOLD, out=scaled)
    return scaled.astype(np.uint64)


def check_client_random_state(random_state):
    """The client's :class:`NoiseSource` for ``random_state``.

    - ``None``: the operating system's CSPRNG (what a deployment must use).
    - an integer: PCG64 seeded with ``SeedSequence([random_state, tag])``, a
      stream apart from ``RandomState(random_state)`` (simulations only).
    - a ``RandomState`` or ``Generator`` instance: a PCG64 stream seeded by
      128 bits drawn from it (reproducible when the instance is).
    - a ``NoiseSource``: returned as is.

    Never numpy's global state, never MT19937 for the noise itself.
    """
    if random_state is None:
        return NoiseSource()
    if isinstance(random_state, NoiseSource):
        return random_state
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return NoiseSource(
            np.random.SeedSequence([int(random_state), _NOISE_STREAM_TAG])
        )
    if isinstance(random_state, np.random.RandomState):
        entropy = random_state.randint(0, 2**32, size=4, dtype=np.uint64)
    elif isinstance(random_state, np.random.Generator):
        entropy = random_state.integers(0, 2**32, size=4, dtype=np.uint64)
    else:
        raise ValueError(
            "random_state must be None, an int, a numpy RandomState or Generator, "
            f"or a NoiseSource; got {random_state!r}."
        )
    return NoiseSource(np.random.SeedSequence([int(v) for v in entropy]))


class IntegerSampler:
    """A distribution on ``offset + {0, ..., n-1}`` with weights summing to ``2**64``.

    A draw reads one uniform 64-bit word through an exact alias table
    (:func:`_alias_table`), so value ``offset + j`` has probability exactly
    ``weights[j] / 2**64``.

    Parameters
    ----------
    offset : int
    weights : sequence of int
        Non-negative, summing to ``2**64`` exactly.
    tv_bound : float
        Bound on the total variation distance to the ideal distribution the
        weights approximate (for (epsilon, delta) accounting).
    max_relative_error : float
        Bound on ``|p_implemented / p_ideal - 1|`` over the support (for
        pure-epsilon accounting).
    """

    def __init__(self, offset, weights, *, tv_bound, max_relative_error):
        weights = [int(w) for w in weights]
        if sum(weights) != 2**64 or min(weights) < 0:
            raise ValueError("weights must be non-negative and sum to 2**64.")
        self.offset = int(offset)
        self.weights = weights
        self._bits, self._accept, self._alias = _alias_table(weights)
        self._packed = _packed_table(self._bits, self._accept, self._alias)
        # draw_into's constants: the bucket's shift and the remainder's mask.
        self._shift = np.uint64(64 - self._bits)
        self._low = np.uint64(2 ** (64 - self._bits) - 1)
        self.tv_bound = float(tv_bound)
        self.max_relative_error = float(max_relative_error)

    @property
    def support(self):
        """The values with positive probability, as ``(low, high)`` inclusive."""
        return self.offset, self.offset + len(self.weights) - 1

    def probabilities(self):
        """The implemented probabilities (float64)."""
        return np.array([w / _TWO_64 for w in self.weights])

    def variance(self):
        p = self.probabilities()
        values = np.arange(len(p)) + self.offset
        mean = p @ values
        return float(p @ (values - mean) ** 2)

    def sample(self, source, size):
        """Draws as an ``int64`` array of shape ``size``."""
        return self.draw(source.words(size))

    def draw(self, words):
        """The draws that the uniform 64-bit ``words`` give, one each (``words`` is overwritten).

        Returns an ``int64`` array of the shape of ``words``.
        """
        return self.draw_into(words, _DrawBuffers(words.size))

    def draw_into(self, words, buffers):
        """:meth:`draw` with the temporaries in ``buffers`` (a :class:`_DrawBuffers`).

        ``buffers`` holds at least ``words.size`` entries. Returns the draws,
        a view of its memory (overwritten by the next call with the same
        buffers): nothing is allocated, so a caller drawing block after
        block reuses the same cache-resident memory.

        Branch-free: the bucket's outcome or its alias is picked with a
        bit mask, ``alias ^ ((bucket ^ alias) & mask)``, ``mask`` all ones
        exactly when the remainder is below the threshold (the sign of
        their difference, both below ``2**(64 - bits)``, spread by an
        arithmetic shift). The same draws as ``where(remainder <
        threshold, bucket, alias)`` (a masked copy, several times slower:
        which words keep their bucket is random, so the processor
        mispredicts its branches).
        """
        shift, low = self._shift, self._low
        flat = words if words.ndim == 1 else words.reshape(-1)
        bucket, entry, threshold, signed = buffers.first(flat.size)
        np.right_shift(flat, shift, out=bucket)  # below 2**bits
        # One gather (threshold and alias); every bucket indexes the table.
        self._packed.take(signed[0], out=entry, mode="wrap")
        np.bitwise_and(flat, low, out=flat)  # the remainder
        np.bitwise_and(entry, low, out=threshold)
        mask = flat.view(np.int64)
        # Negative exactly when kept; arithmetic shift: all ones when kept, else 0.
        np.subtract(mask, signed[2], out=mask)
        np.right_shift(mask, 63, out=mask)
        np.right_shift(entry, shift, out=entry)  # the alias
        np.bitwise_xor(bucket, entry, out=bucket)
        np.bitwise_and(bucket, flat, out=bucket)  # bucket ^ alias when kept, else 0
        np.bitwise_xor(entry, bucket, out=entry)  # the bucket when kept, else the alias
        index = signed[1]  # below 2**bits: the same integers
        np.add(index, self.offset, out=index)
        return index if words.ndim == 1 else index.reshape(words.shape)


class _DrawBuffers:
    """The temporaries of :meth:`IntegerSampler.draw_into`, for up to ``size`` words."""

    def __init__(self, size):
        self.size = size
        self._full = self._views(
            np.empty(size, dtype=np.uint64),  # bucket
            np.empty(size, dtype=np.uint64),  # table entry, then the draw
            np.empty(size, dtype=np.uint64),  # threshold
        )

    @staticmethod
    def _views(bucket, entry, threshold):
        signed = tuple(array.view(np.int64) for array in (bucket, entry, threshold))
        return bucket, entry, threshold, signed

    def first(self, size):
        """The first ``size`` entries of every buffer (and their int64 views)."""
        if size == self.size:
            return self._full
        return self._views(*(array[:size] for array in self._full[:3]))


def _alias_table(weights):
    """Walker's alias table for integer weights summing to ``2**64``, exactly.

    With ``2**k`` buckets of capacity ``c = 2**(64 - k)``, bucket ``i`` keeps
    outcome ``i`` when the low ``64 - k`` bits of the word are below
    ``accept[i]`` and gives ``alias[i]`` otherwise, so outcome ``j`` has
    probability ``(accept[j] + sum_{i: alias[i] = j} (c - accept[i])) / 2**64
    = weights[j] / 2**64`` (Vose's construction in integer arithmetic: no
    rounding). A draw is one word, two table reads and a comparison.
    """
    n = len(weights)
    bits = max(1, int(np.ceil(np.log2(n))))
    size, capacity = 2**bits, 2 ** (64 - bits)
    remaining = list(weights) + [0] * (size - n)
    accept = [capacity] * size
    alias = list(range(size))
    small = [j for j in range(size) if remaining[j] < capacity]
    large = [j for j in range(size) if remaining[j] >= capacity]
    while small and large:
        low, high = small.pop(), large.pop()
        accept[low], alias[low] = remaining[low], high
        remaining[high] -= capacity - remaining[low]
        (small if remaining[high] < capacity else large).append(high)
    # What is left holds exactly one bucket's capacity (exact integer sums):
    # those buckets keep accept = capacity, so they always keep their own
    # outcome (every remainder is below the capacity).
    accept_array = np.array(accept, dtype=np.uint64)
    alias_array = np.array(alias, dtype=np.int64)
    return bits, accept_array, alias_array


def _packed_table(bits, accept, alias):
    """The alias table in one ``uint64`` per bucket: ``accept | alias << (64 - bits)``.

    A bucket whose threshold is its whole capacity always keeps its own
    outcome; it is stored as threshold 0 and alias itself, which gives the
    same outcome for every word, so every threshold fits in ``64 - bits``
    bits and every alias (below ``2**bits``) in the rest.
    """
    capacity = np.uint64(2 ** (64 - bits))
    accept, alias = accept.copy(), alias.astype(np.uint64)
    full = accept == capacity
    accept[full] = 0
    alias[full] = np.flatnonzero(full).astype(np.uint64)
    return accept | (alias << np.uint64(64 - bits))


def _integer_weights(probabilities, anchor):
    """Round ``probabilities`` (summing to ~1) to integer weights summing to 2**64.

    The rounding residual goes to entry ``anchor`` (the mode).
    """
    scaled = np.ldexp(np.asarray(probabilities, dtype=np.float64), 64)
    weights = [int(v) for v in np.floor(scaled)]
    weights[anchor] += 2**64 - sum(weights)
    if weights[anchor] < 0:
        raise ValueError("probabilities sum to more than 1.")
    return weights


def rounded_gaussian(scale, *, tail=10.0):
    """The law of ``round(W)``, ``W ~ N(0, scale^2)``, on ``[-K, K]``, ``K = ceil(tail scale)``.

    The probability of ``j`` is the Gaussian mass of ``[j - 1/2, j + 1/2]``,
    computed by the midpoint expansion ``(1/s) phi(x) (1 + (x^2 - 1) / (24
    s^2) + (x^4 - 6 x^2 + 3) / (1920 s^4))``, ``x = j / s``, whose truncation
    error is below ``x^6 / (322560 s^6)`` relative, so ``scale >= 256`` is
    required. The mass beyond ``K`` (below ``2e-23`` for ``tail = 10``) is
    dropped. Total variation to the ideal law: at most ``(2K + 1) 2^-63 +
    2^-48 + 2 P[|W| > K + 1/2]`` (rounding to 64-bit weights, float error of
    each probability, the dropped tails).

    Variance of the ideal law: ``scale^2 + 1/12`` (Sheppard's correction,
    exact up to terms below ``1e-300`` for ``scale >= 1``).
    """
    s = float(scale)
    if not s >= 256.0:
        raise ValueError(f"rounded_gaussian needs scale >= 256, got {scale!r}.")
    K = int(np.ceil(tail * s))
    j = np.arange(-K, K + 1, dtype=np.float64)
    x = j / s
    x2 = x * x
    correction = (
        1.0 + (x2 - 1.0) / (24.0 * s * s) + (x2 * x2 - 6.0 * x2 + 3.0) / (1920.0 * s**4)
    )
    density = np.exp(-0.5 * x2) / (np.sqrt(2.0 * np.pi) * s)
    weights = _integer_weights(density * correction, anchor=K)
    from scipy.special import ndtr

    dropped = 2.0 * float(ndtr(-(K + 0.5) / s))
    return IntegerSampler(
        -K,
        weights,
        tv_bound=(2 * K + 1) * 2.0**-63 + 2.0**-48 + 2.0 * dropped,
        max_relative_error=np.inf,
    )


def discrete_laplace(decay, half_width):
    """Two-sided geometric law ``P(j) ∝ exp(-decay |j|)``, clamped to ``[-half_width, half_width]``.

    Clamping puts the mass of ``|j| > half_width`` on the two end points, so
    ``clamp(x + J)`` is exactly ``clamp(x + J_ideal)`` whenever the window the
    caller clamps its outputs to lies within ``x + [-half_width, half_width]``
    for every input ``x``. Probabilities: ``(1 - p) / (1 + p) p^|j|`` inside,
    ``p^m / (1 + p)`` at the ends, ``p = exp(-decay)``, each computed with
    relative error below ``16 u``; rounding to 64-bit weights adds
    ``2^-64 / min p``. :attr:`IntegerSampler.max_relative_error` bounds both,
    so the ratio of two implemented probabilities is within
    ``((1 + r) / (1 - r))`` of the ideal ratio.
    """
    t = float(decay)
    m = int(half_width)
    if not (t > 0 and np.isfinite(t)) or m < 1:
        raise ValueError(f"Need decay > 0 and half_width >= 1, got {decay}, {m}.")
    j = np.arange(-m, m + 1, dtype=np.float64)
    one_minus_p = -np.expm1(-t)
    one_plus_p = 1.0 + np.exp(-t)
    probabilities = one_minus_p / one_plus_p * np.exp(-t * np.abs(j))
    end = np.exp(-t * m) / one_plus_p
    probabilities[0] = probabilities[-1] = end
    weights = _integer_weights(probabilities, anchor=m)
    smallest = float(probabilities.min())
    # Each probability: float error <= 16 u relative, plus < 2**-64 from the
    # floor to a weight; the mode also absorbs the residual (< (2m + 1) 2**-64
    # absolute plus the float error of the sum).
    relative = 16.0 * _UNIT_ROUNDOFF + 2.0**-64 / smallest
    anchor = ((2 * m + 1) * 2.0**-64 + 32.0 * _UNIT_ROUNDOFF) / probabilities[m]
    return IntegerSampler(
        -m,
        weights,
        tv_bound=(2 * m + 1) * 2.0**-63 + 2.0**-48,
        max_relative_error=max(relative, anchor),
    )


def lattice_granularity(scale, *, cells=4096):
    """The power of two ``g`` with ``scale / g`` in ``[cells, 2 cells)``.

    Used to put Gaussian noise of standard deviation ``scale`` on the
    lattice ``g Z`` with ``cells`` to ``2 cells`` lattice points per
    standard deviation.
    """
    scale = float(scale)
    if not (scale > 0 and np.isfinite(scale)):
        raise ValueError(f"scale must be finite and > 0, got {scale!r}.")
    return float(2.0 ** np.floor(np.log2(scale / cells)))


def to_lattice(values, granularity):
    """Round to the nearest multiple of ``granularity`` (a power of two): exact in float64."""
    return np.rint(np.asarray(values, dtype=np.float64) / granularity) * granularity


def on_lattice(values, granularity):
    """Whether every value is an exact multiple of ``granularity``."""
    values = np.asarray(values, dtype=np.float64)
    ratio = values / granularity
    return np.isfinite(ratio) & (ratio == np.rint(ratio))
