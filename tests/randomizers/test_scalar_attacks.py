"""The exact attacks of issue 17 against the scalar mechanisms.

- Mironov (2012): a report ``x + Lap(b)`` computed in floating point reveals
  ``x``: searching the 53-bit uniform behind it tells which inputs can
  produce the report at all. On the old float Laplace it decides ~80% of
  single reports; on the lattice mechanism every report of the support has
  positive probability under both inputs, with implemented likelihood ratio
  at most ``e^epsilon`` (checked exhaustively from the sampler's integer
  weights), so it decides nothing.
- Piecewise: no report excludes the other input (exhaustively, from the
  exact implemented probabilities).
- Bassily-Smith: the public ``z`` come from a separate, secure stream.
"""

import math

import numpy as np
import pytest

from sklearn_ldp.randomizers import (
    BassilySmithMechanism,
    DuchiMechanism,
    LaplaceMechanism,
    NoiseSource,
    PiecewiseMechanism,
)
from sklearn_ldp.randomizers._scalar import _public_laplace

N_REPORTS = 4000
TWO_64 = 2**64


# ------------------------------------------------------------ Mironov's attack


def _libm_log(values):
    """The C library's ``log``, element by element: what numpy's sampler calls.

    ``np.log`` may use a vectorized implementation whose last bit differs
    from the C library's (numpy 2.4 on AVX machines: 36 of 10,000 values),
    and the attack needs the sampler's exact floats.
    """
    return np.frompyfunc(math.log, 1, 1)(values).astype(np.float64)


def float_laplace_noise(U, scale):
    """``RandomState.laplace(0, scale)`` from its uniform ``U`` (a multiple of 2^-53)."""
    U = np.asarray(U, dtype=np.float64)
    upper = U >= 0.5
    return np.where(
        upper,
        0.0 - scale * _libm_log(np.where(upper, (2.0 - U) - U, 1.0)),
        0.0 + scale * _libm_log(np.where(upper, 1.0, U + U)),
    )


def float_reachable(reports, x, scale, window=8):
    """Whether some 53-bit uniform near ``exp(-|r - x| / scale) / 2`` gives ``r`` from ``x``."""
    noise = reports - x
    with np.errstate(over="ignore"):
        U = np.where(
            noise < 0, 0.5 * np.exp(noise / scale), 1.0 - 0.5 * np.exp(-noise / scale)
        )
    k = np.rint(U * 2.0**53)[:, None] + np.arange(-window, window + 1)[None, :]
    candidates = np.clip(k, 1.0, 2.0**53 - 1.0) * 2.0**-53
    return (x + float_laplace_noise(candidates, scale) == reports[:, None]).any(axis=1)


def test_float_laplace_noise_is_numpys():
    U = np.random.RandomState(5).random_sample(10_000)
    np.testing.assert_array_equal(
        float_laplace_noise(U, 1.0), np.random.RandomState(5).laplace(0.0, 1.0, 10_000)
    )


def test_mironov_attack_decides_most_reports_of_the_float_laplace_mechanism():
    """The old ``LaplaceMechanism(1.0, 0, 1)``: ``x + RandomState.laplace(0, 1)``."""
    rng = np.random.RandomState(0)
    x = rng.randint(0, 2, N_REPORTS).astype(float)
    reports = x + rng.laplace(0.0, 1.0, N_REPORTS)
    from_zero = float_reachable(reports, 0.0, 1.0)
    from_one = float_reachable(reports, 1.0, 1.0)
    assert np.where(x == 1.0, from_one, from_zero).all()  # the search is complete
    decided = from_zero != from_one
    # Mironov: about 80% of single reports reveal their input, never wrongly.
    assert decided.mean() > 0.7
    assert np.all(np.where(decided, from_one == (x == 1.0), True))


def laplace_output_weights(mech, index):
    """Implemented P(report = g o | lattice input ``index``) * 2^64, o over the window (ints)."""
    d = mech._design
    weights = np.array(d.sampler.weights, dtype=object)
    m = (len(weights) - 1) // 2
    lo, hi = d.low - d.margin, d.high + d.margin
    # j = o - index for o strictly inside; the ends collect the clamped tails.
    j_lo, j_hi = lo - index, hi - index
    inner = weights[j_lo + 1 + m : j_hi + m]
    return np.concatenate(
        [[weights[: j_lo + 1 + m].sum()], inner, [weights[j_hi + m :].sum()]]
    )


@pytest.mark.parametrize("epsilon", [1.0, 4.0])
def test_every_lattice_laplace_report_is_possible_from_both_inputs(epsilon):
    mech = LaplaceMechanism(epsilon, lower=0.0, upper=1.0)
    d = mech._design
    a, b = d.low, d.high  # the lattice images of 0 and 1: the widest pair
    assert (a, b) == (0, round(1.0 / d.granularity))
    wa, wb = laplace_output_weights(mech, a), laplace_output_weights(mech, b)
    assert wa.sum() == TWO_64 and wb.sum() == TWO_64
    assert min(wa) > 0 and min(wb) > 0
    ratios = np.array(
        [max(p / q, q / p) for p, q in zip(wa, wb, strict=True)], dtype=float
    )
    assert ratios.max() <= np.exp(mech.epsilon)
    assert np.log(ratios.max()) > mech.epsilon - 1e-3  # and the budget is used

    # Mironov's search on the lattice mechanism: every report it can send lies
    # in the public window, where both inputs have positive probability.
    x = np.random.RandomState(0).randint(0, 2, N_REPORTS).astype(float)
    reports = mech.randomize(x, random_state=0)
    support = np.arange(d.low - d.margin, d.high + d.margin + 1)
    position = np.searchsorted(support, reports / d.granularity)
    assert np.array_equal(support[position], reports / d.granularity)
    reachable_from_a = wa[position] > 0
    reachable_from_b = wb[position] > 0
    assert (reachable_from_a != reachable_from_b).sum() == 0


# ------------------------------------------------------------------- Piecewise


def index_counts(n):
    """Words giving each value of ``NoiseSource.integers(n)``: floor(w n / 2^64) = v."""
    v = np.arange(n + 1, dtype=object)
    edges = -((-v * TWO_64) // n)  # ceil(v 2^64 / n)
    return np.diff(edges)


def piecewise_output_weights(mech, start):
    """Implemented P(report = g k | window start) * 2^128, k in -M..M (ints)."""
    d = mech._design
    N, M = d.width, d.half
    P = int(np.ceil(np.ldexp(d.high_prob, 64)))
    weights = np.empty(2 * M + 1, dtype=object)
    window = slice(start + M, start + M + N)
    low = np.ones(2 * M + 1, dtype=bool)
    low[window] = False
    weights[window] = P * index_counts(N)
    weights[low] = (TWO_64 - P) * index_counts(2 * M + 1 - N)
    return weights


def test_implemented_draws_match_the_exact_model():
    """``integers`` is floor(w n / 2^64) and ``bernoulli`` is w < ceil(p 2^64)."""
    sequence = np.random.SeedSequence(11)
    words = [int(w) for w in NoiseSource(sequence).words(5000)]
    values = NoiseSource(sequence).integers(2001, 5000)
    assert values.tolist() == [(w * 2001) >> 64 for w in words]
    p = 0.3
    bits = NoiseSource(sequence).bernoulli(np.full(5000, p))
    threshold = int(np.ceil(np.ldexp(p, 64)))
    assert bits.tolist() == [w < threshold for w in words]


@pytest.mark.parametrize("epsilon", [1.0, 4.0])
def test_no_piecewise_report_excludes_the_other_input(epsilon):
    mech = PiecewiseMechanism(epsilon)
    d = mech._design
    N, M = d.width, d.half
    # Window starts of t = -1 and t = +1 (each a mixture of two neighbours).
    starts = {
        t: np.floor(t * d.kappa / d.granularity - 0.5 * (N - 1)) + np.array([0, 1])
        for t in (-1.0, 1.0)
    }
    laws = {
        t: [piecewise_output_weights(mech, int(s)) for s in s_pair if s + N - 1 <= M]
        for t, s_pair in starts.items()
    }
    every = laws[-1.0] + laws[1.0]
    for law in every:
        assert law.sum() == TWO_64**2 and min(law) > 0
    largest = np.max(np.stack(every), axis=0)
    smallest = np.min(np.stack(every), axis=0)
    assert max(float(p / q) for p, q in zip(largest, smallest, strict=True)) <= np.exp(
        mech.epsilon
    )

    # Reports of t = -1 are all possible under t = +1 and conversely.
    reports = mech.randomize(np.repeat([-1.0, 1.0], N_REPORTS // 2), random_state=0)
    index = np.rint(reports / d.granularity).astype(int) + M
    assert np.array_equal((index - M) * d.granularity, reports)
    excluded = sum(int((law[index] == 0).sum()) for law in every)
    assert excluded == 0


# ------------------------------------------------- secure and public randomness


class RecordingSource(NoiseSource):
    """A secure source that keeps the words it hands out."""

    def __init__(self):
        super().__init__()
        self.drawn = []

    def words(self, size):
        words = super().words(size)
        self.drawn.append(words.ravel().copy())
        return words


def public_sampler_draws(mech, words):
    """The sampler's draw from given words (binary search of its thresholds)."""
    _, sampler, _ = _public_laplace(mech.internal_epsilon)
    cumulative = np.cumsum(np.array(sampler.weights, dtype=object))[:-1]
    thresholds = np.array([int(c) for c in cumulative], dtype=np.uint64)
    return np.searchsorted(thresholds, words, side="right") + sampler.offset


def test_bassily_smith_public_values_come_from_a_separate_secure_stream():
    mech = BassilySmithMechanism(1.0)
    values = np.linspace(0.0, 1.0, 2000)
    np.random.seed(0)  # noqa: NPY002 - the global state must not matter
    first = mech.randomize(values)
    np.random.seed(0)  # noqa: NPY002 - the global state must not matter
    second = mech.randomize(values)
    assert not np.array_equal(first[:, 0], second[:, 0])  # z
    assert not np.array_equal(first[:, 1], second[:, 1])  # bits

    noise = RecordingSource()
    assert noise.secure and noise.public().secure
    reports = mech.randomize(values, random_state=noise)
    drawn = np.concatenate(noise.drawn)
    # The noise source gave one rounding coin and one bit per value, nothing else.
    assert drawn.size == 2 * values.size
    # No z is what the sampler would have made of the noise words.
    g = mech.granularity
    for chunk in np.split(drawn, 2):
        z_from_noise = g * public_sampler_draws(mech, chunk)
        assert np.mean(z_from_noise == reports[:, 0]) < 0.01


@pytest.mark.parametrize(
    "mechanism_class",
    [LaplaceMechanism, DuchiMechanism, PiecewiseMechanism, BassilySmithMechanism],
)
def test_unseeded_noise_ignores_numpys_global_state(mechanism_class):
    mech = mechanism_class(1.0)
    values = np.linspace(-1.0, 1.0, 500)
    np.random.seed(0)  # noqa: NPY002 - the global state must not matter
    first = mech.randomize(values)
    np.random.seed(0)  # noqa: NPY002 - the global state must not matter
    assert not np.array_equal(first, mech.randomize(values))
