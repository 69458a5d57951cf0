"""The fast paths of the client and of the per-fold sums equal their definitions.

The lattice release runs in cache-sized blocks, on float64 integers, with
one packed alias table; the scalar mechanisms run in blocks too, reading
the words of each whole-array draw through ``NoiseSource.segments``; the
coins compare 64-bit integer thresholds; the row norms take a plain sum of
squares where it cannot overflow or underflow; the per-fold sums sort each
chunk by fold. Each is checked here against the plain definition it
replaces, on the same random words.
"""

import numpy as np
import pytest

from sklearn_ldp.aggregation import FoldedMoments
from sklearn_ldp.randomizers import (
    BassilySmithMechanism,
    DuchiMechanism,
    LaplaceMechanism,
    NoiseSource,
    PiecewiseMechanism,
    check_client_random_state,
    clip_l2,
)
from sklearn_ldp.randomizers._gaussian import (
    RELEASE_BLOCK,
    clip_to_ball,
    lattice_noise_sampler,
    lattice_release,
)
from sklearn_ldp.randomizers._sampling import rounded_gaussian
from sklearn_ldp.randomizers._scalar import (
    SCALAR_BLOCK,
    _duchi_bounds,
    _public_laplace,
)
from sklearn_ldp.utils import row_norms


def _seeded(seed=0):
    return NoiseSource(np.random.SeedSequence(seed))


def test_packed_alias_table_draws_what_the_alias_table_says():
    sampler = rounded_gaussian(300.0)
    draws = sampler.sample(_seeded(), (4000, 3))
    words = _seeded().words((4000, 3))
    bucket = (words >> np.uint64(64 - sampler._bits)).astype(np.intp)
    remainder = words & np.uint64(2 ** (64 - sampler._bits) - 1)
    expected = np.where(
        remainder < sampler._accept[bucket], bucket, sampler._alias[bucket]
    )
    np.testing.assert_array_equal(draws, expected + sampler.offset)
    assert draws.dtype == np.int64


def test_secure_words_are_writable_and_sample():
    source = NoiseSource()
    assert source.words(3).flags.writeable
    low, high = rounded_gaussian(300.0).support
    draws = rounded_gaussian(300.0).sample(source, 1000)
    assert draws.min() >= low and draws.max() <= high


def test_uniform_and_coins_read_the_top_53_bits_of_one_word():
    uniform = _seeded().uniform(1000)
    words = _seeded().words(1000)
    np.testing.assert_array_equal(
        uniform, (words >> np.uint64(11)).astype(np.float64) * 2.0**-53
    )
    fraction = np.linspace(0.0, 1.0, 1000, endpoint=False)
    coins = _seeded().rounding_coins(fraction)
    np.testing.assert_array_equal(
        coins, (words >> np.uint64(11)).astype(np.float64) < fraction * 2.0**53
    )


def _release_by_definition(values, sigma, granularity, seed):
    """``g (floor(v / g) + coin + J)`` in int64 on the whole array, as documented."""
    sampler = lattice_noise_sampler(sigma, granularity)
    source = _seeded(seed)
    ratio = np.asarray(values, dtype=np.float64) / granularity
    index = np.floor(ratio).astype(np.int64)
    index += source.rounding_coins(ratio - np.floor(ratio))
    index += sampler.sample(source, index.shape)
    return index * granularity


@pytest.mark.parametrize("shape", [(7, 3), (3 * RELEASE_BLOCK // 5 + 11, 5)])
def test_blocked_release_equals_its_definition(shape):
    values = np.random.RandomState(0).uniform(-1, 1, shape)
    sigma, granularity = 3.0, 2.0**-10
    released = lattice_release(values, sigma, granularity, _seeded(4))
    expected = _release_by_definition(values, sigma, granularity, 4)
    np.testing.assert_array_equal(released, expected)
    assert np.all(released % granularity == 0)


def test_release_of_huge_lattice_indices_stays_exact_in_int64():
    # |v / g| near 2**55: beyond float64's exact integers, the int64 path.
    granularity = 2.0**-50
    values = np.array([[32.0 + 2.0**-50, -32.0]])
    sigma = 300.0 * granularity
    released = lattice_release(values, sigma, granularity, _seeded(1))
    expected = _release_by_definition(values, sigma, granularity, 1)
    np.testing.assert_array_equal(released, expected)


def test_empty_release():
    assert lattice_release(np.zeros((0, 3)), 3.0, 2.0**-10, _seeded()).shape == (0, 3)


def test_row_norms_fast_path_matches_the_scaled_norms():
    rng = np.random.RandomState(0)
    X = np.vstack(
        [
            rng.standard_normal((500, 7)),
            rng.standard_normal((5, 7)) * 1e200,  # squares overflow
            rng.standard_normal((5, 7)) * 1e-200,  # squares underflow
            np.zeros((2, 7)),
        ]
    )
    largest = np.max(np.abs(X), axis=1)
    safe = np.where(largest > 0, largest, 1.0)
    scaled = largest * np.sqrt(np.sum((X / safe[:, None]) ** 2, axis=1))
    np.testing.assert_allclose(row_norms(X), scaled, rtol=1e-14)
    assert np.all(np.isfinite(row_norms(X)))
    assert row_norms(np.array([3.0, 4.0])) == 5.0


def test_clip_to_ball_keeps_inside_rows_and_clips_the_others():
    rng = np.random.RandomState(1)
    X = rng.standard_normal((2000, 5)) * 0.6
    clipped = clip_to_ball(X, 1.0)
    inside = np.linalg.norm(X, axis=1) < 1.0 - 1e-12
    np.testing.assert_array_equal(clipped[inside], X[inside])
    np.testing.assert_allclose(np.linalg.norm(clipped[~inside], axis=1), 1.0)
    assert np.all(np.abs(clipped) <= 1.0)
    np.testing.assert_array_equal(clip_l2(X[inside], 1.0), X[inside])


def test_folded_moments_equal_the_per_fold_sums():
    rng = np.random.RandomState(2)
    Z = rng.standard_normal((10_007, 4))
    T = rng.standard_normal((10_007, 2))
    folded = FoldedMoments(
        Z, T, sigma_x=0.0, sigma_t=0.0, random_state=np.random.default_rng(3)
    )
    block = np.hstack([Z, np.ones((len(Z), 1))])
    for k in range(folded.n_folds):
        rows = folded.fold_of == k
        np.testing.assert_allclose(folded.zz[k], block[rows].T @ block[rows])
        np.testing.assert_allclose(folded.zt[k], block[rows].T @ T[rows])
        np.testing.assert_allclose(folded.tt[k], np.sum(T[rows] ** 2, axis=0))
    assert folded.counts.tolist() == np.bincount(folded.fold_of).tolist()
    assert sorted(folded.counts) == [2001, 2001, 2001, 2002, 2002]


# ------------------------------------------- scalar mechanisms, coins, segments


def test_segments_hand_out_the_words_of_consecutive_draws():
    reference = _seeded(3).words(700)
    source = _seeded(3)
    first, second = source.segments(300, 2)
    # Any split of each run reads the same words, and the source continues
    # after both runs.
    np.testing.assert_array_equal(
        np.concatenate([second.words(120), second.words(180)]), reference[300:600]
    )
    np.testing.assert_array_equal(first.words((3, 100)).ravel(), reference[:300])
    np.testing.assert_array_equal(source.words(100), reference[600:])
    # uniform reads one word per value too.
    (run,) = _seeded(3).segments(10, 1)
    np.testing.assert_array_equal(
        run.uniform(10), (reference[:10] >> np.uint64(11)).astype(float) * 2.0**-53
    )
    secure = NoiseSource()
    assert secure.segments(5, 2) == [secure, secure]


def test_bernoulli_and_coins_are_the_stated_integer_thresholds():
    rng = np.random.RandomState(4)
    prob = np.concatenate(
        [
            rng.uniform(0.0, 1.0, 3000),
            rng.uniform(0.0, 1e-6, 1000),  # prob 2^64 has a fractional part
            [0.0, 1.0, 2.0**-64, 2.0**-70, 0.5, 1.0 - 2.0**-53, 1.0 - 2.0**-40],
        ]
    )
    words = [int(w) for w in _seeded(5).words(prob.size)]
    # Exact thresholds: prob times a power of two, then its ceiling.
    wide = [int(np.ceil(np.ldexp(p, 64))) for p in prob]
    assert _seeded(5).bernoulli(prob).tolist() == [
        w < t for w, t in zip(words, wide, strict=True)
    ]
    narrow = [int(np.ceil(np.ldexp(p, 53))) for p in prob]
    assert _seeded(5).coins(prob).tolist() == [
        (w >> 11) < t for w, t in zip(words, narrow, strict=True)
    ]


def _laplace_by_definition(mech, values, seed):
    d = mech._design
    source = check_client_random_state(seed)
    scaled = np.clip(values, mech.lower, mech.upper) / d.granularity
    index = np.floor(scaled)
    index += source.rounding_coins(scaled - index)
    index += d.sampler.sample(source, index.shape)
    return np.clip(index, d.low - d.margin, d.high + d.margin) * d.granularity


def _duchi_by_definition(mech, values, seed):
    source = check_client_random_state(seed)
    design = mech.design_epsilon
    prob = 0.5 + 0.5 * np.tanh(0.5 * design) * mech._to_unit(values)
    prob = np.clip(prob, *_duchi_bounds(design))
    return np.where(source.coins(prob), 1.0, -1.0)


def _piecewise_by_definition(mech, values, seed):
    d = mech._design
    N, M = d.width, d.half
    source = check_client_random_state(seed)
    scaled = mech._to_unit(values) * (d.kappa / d.granularity) - 0.5 * (N - 1)
    start = np.floor(scaled)
    start += source.rounding_coins(scaled - start)
    high = source.bernoulli(np.full(scaled.shape, d.high_prob))
    position = source.integers(np.where(high, N, 2 * M + 1 - N), scaled.shape)
    index = np.where(high, start, N * (position >= start + M) - M) + position
    return index * d.granularity


def _bassily_smith_by_definition(mech, values, seed):
    g, sampler, _ = _public_laplace(mech.internal_epsilon)
    source = check_client_random_state(seed)
    public = source.public()
    scaled = 0.5 * (mech._to_unit(values) + 1.0) / g
    v = np.floor(scaled)
    v += source.rounding_coins(scaled - v)
    v *= g
    z = g * sampler.sample(public, v.shape)
    p = 0.5 * np.exp(mech.internal_epsilon * (np.abs(z) - np.abs(z - v)))
    return np.stack([z, source.bernoulli(p).astype(float)], axis=-1)


@pytest.mark.parametrize(
    ("mechanism_class", "definition"),
    [
        (LaplaceMechanism, _laplace_by_definition),
        (DuchiMechanism, _duchi_by_definition),
        (PiecewiseMechanism, _piecewise_by_definition),
        (BassilySmithMechanism, _bassily_smith_by_definition),
    ],
)
@pytest.mark.parametrize("epsilon", [0.5, 4.0])
def test_blocked_scalar_mechanisms_equal_their_whole_array_definitions(
    mechanism_class, definition, epsilon
):
    # More than two blocks, the last one partial; values beyond the interval.
    values = np.random.RandomState(6).uniform(-1.4, 1.3, (2 * SCALAR_BLOCK + 100,))
    mech = mechanism_class(epsilon, -1.0, 1.0)
    reports = mech.randomize(values.reshape(-1, 3), random_state=8)
    expected = definition(mech, values, 8)
    np.testing.assert_array_equal(
        reports.reshape(expected.shape), expected, strict=True
    )


def _plain_support_codes(support, values, steps):
    """Reason codes by the definition: the first failing check of each row."""
    flat = values.reshape(values.shape[0], -1)
    step = np.broadcast_to(steps, support.shape).reshape(1, -1)
    low = np.broadcast_to(support.low, support.shape).reshape(1, -1)
    high = np.broadcast_to(support.high, support.shape).reshape(1, -1)
    codes = []
    for row in flat:
        ratio = row / step[0]
        if not np.isfinite(row).all():
            codes.append(1)
        elif not np.all(ratio == np.rint(ratio)):
            codes.append(2)
        elif not np.all((row >= low[0]) & (row <= high[0])):
            codes.append(3)
        elif support.values is not None and not np.isin(row, support.values).all():
            codes.append(3)
        else:
            codes.append(0)
    return np.array(codes)


@pytest.mark.parametrize(
    "kind", ["power_of_two", "other_step", "copies", "values", "elementwise"]
)
def test_blocked_support_check_equals_the_definition(kind):
    """Several blocks, every kind of bad value near block edges and inside."""
    from sklearn_ldp.randomizers import FieldSupport
    from sklearn_ldp.randomizers._base import CHECK_BLOCK_VALUES
    from sklearn_ldp.randomizers._copies import CopiesSupport

    rng = np.random.default_rng(7)
    width = 5
    steps = 2.0**-6
    if kind == "copies":
        steps = np.array([2.0**-6, 2.0**-4])
        support = CopiesSupport((2, width), -3.0, 3.0, steps)
        steps = np.broadcast_to(steps[:, None], (2, width))
        shape = (2, width)
    elif kind == "values":
        support = FieldSupport((width,), -1.0, 1.0, 1.0, values=[-1.0, 1.0])
        steps, shape = 1.0, (width,)
    elif kind == "elementwise":
        steps = 2.0 ** -np.arange(1, width + 1)
        support = FieldSupport((width,), -3.0, np.linspace(1.0, 3.0, width), steps)
        shape = (width,)
    else:
        steps = 2.0**-6 if kind == "power_of_two" else 0.1
        support = FieldSupport((width,), -3.0, 3.0, steps)
        shape = (width,)
    n = 3 * (CHECK_BLOCK_VALUES // (2 * width)) + 17  # several blocks, a partial last
    step_grid = np.broadcast_to(steps, shape)
    if kind == "values":
        values = rng.choice([-1.0, 1.0], size=(n,) + shape)
    else:
        values = np.rint(rng.uniform(-2.0, 2.0, (n,) + shape) / step_grid) * step_grid
    bad_rows = rng.choice(n, size=60, replace=False)
    edges = np.array([0, n - 1, CHECK_BLOCK_VALUES // (2 * width) - 1])
    for i, row in enumerate(np.concatenate([bad_rows, edges])):
        index = (row,) + tuple(rng.integers(0, s) for s in shape)
        values[index] = [np.nan, np.inf, -np.inf, 1e12, 0.5 * np.min(steps) + 0.0, 0.0][
            i % 6
        ]
    expected = _plain_support_codes(support, values, step_grid)
    assert (expected > 0).sum() >= 40  # the corruptions are caught
    np.testing.assert_array_equal(support.check(values), expected)
