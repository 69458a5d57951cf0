"""The streamed oracle: unbiased, one fixed field, blocks of any cut give one answer."""

from functools import partial

import numpy as np
import pytest

from sklearn_ldp.aggregation import PolynomialGradientOracle
from sklearn_ldp.aggregation._blocks import (
    EVALUATION,
    PILOT,
    BlockSource,
    KeyedDraws,
    OracleSums,
    PositionFolds,
    StreamedOracle,
    block_pieces,
)
from sklearn_ldp.randomizers import Reports


class _Blocks(BlockSource):
    """A block source over in-memory rows (``x`` of shape (n, p))."""

    def __init__(self, x, block_size):
        self.x, self.block_size, self.n = x, block_size, x.shape[0]
        self.n_passes = 0

    def blocks(self):
        self.n_passes += 1
        for k, start in enumerate(range(0, self.n, self.block_size)):
            yield k, self.x[start : start + self.block_size]


def _kernel(x, split, *, coef, sigma):
    return PolynomialGradientOracle(
        x, coef=coef, sigma_x=sigma, random_state=0, split_draws=split
    )


def _oracle(x, block_size, rows=None, *, coef=(0.0, 0.0, 1.0), sigma=0.3):
    kernel = partial(_kernel, coef=np.asarray(coef), sigma=sigma)
    return StreamedOracle(
        _Blocks(x, block_size),
        kernel,
        param_shape=(x.shape[1],),
        entropy=12345,
        rows=rows,
    )


def test_the_mean_is_unbiased_for_the_clean_gradient():
    rng = np.random.RandomState(0)
    n, sigma = 200_000, 0.3
    clean = rng.uniform(-1, 1, size=(n, 3)) / np.sqrt(3)
    reports = clean + sigma * rng.standard_normal(clean.shape)
    w = np.array([0.8, -0.5, 0.3])
    oracle = _oracle(reports, 7_000, sigma=sigma)
    mean, second_moment = oracle.mean(w, return_second_moment=True)
    truth = np.mean((clean @ w)[:, None] ** 2 * clean, axis=0)
    # Each coordinate's standard error is at most sqrt(E ||G||^2 / n): five
    # of them leave a false alarm below 1e-6.
    assert np.all(np.abs(mean - truth) < 5 * np.sqrt(second_moment / n))
    # One fixed field: the same draws at every pass.
    np.testing.assert_array_equal(oracle.mean(w), mean)
    assert oracle.source.n_passes == 2


def test_a_report_gets_the_same_draws_whatever_follows_it():
    # The first 700 reports alone (block 5 then holds 60 of its 128) and
    # the rest of the same blocks add up to all 1,000: a report's draws
    # depend on its position only.
    rng = np.random.RandomState(1)
    x = rng.standard_normal((1_000, 2))
    w = np.array([0.3, 0.4])
    whole = _oracle(x, 128)
    np.testing.assert_allclose(
        _oracle(x[:700], 128).mean(w) * 700 + _oracle_tail(x, 700, 128, w),
        whole.mean(w) * 1000,
        rtol=1e-12,
    )
    # A fold's fit uses the same draws for the same reports.
    folds = _oracle(x, 128, PositionFolds(5, exclude=0))
    assert folds.n_users == 800
    assert np.isfinite(folds.mean(w)).all()


def _oracle_tail(x, start, block_size, w):
    """Sum of the oracle over positions ``start..n-1`` of the blocks of ``x``."""
    oracle = _oracle(x, block_size)
    total = np.zeros(x.shape[1])
    for block, kernel, rows, _ in oracle._kernels():
        keep = rows[block * block_size + rows >= start]
        if len(keep):
            draws = KeyedDraws(oracle.entropy, block, EVALUATION, keep)
            total += kernel.sums(w, keep, draws)[0]
    return total


def test_batches_are_consecutive_users_in_order():
    x = np.random.RandomState(2).standard_normal((500, 2))
    oracle = _oracle(x, 64)
    w = np.array([0.1, 0.2])
    first = oracle.batch(w, np.arange(0, 100))
    assert first.shape == (2,)
    oracle.batch(w, np.arange(100, 350))  # across blocks
    with pytest.raises(ValueError, match="in order"):
        oracle.batch(w, np.arange(400, 450))
    with pytest.raises(ValueError, match="consecutive"):
        oracle.batch(w, np.array([0, 2]))
    # Starting again from user 0 is a new pass, with the same draws.
    np.testing.assert_array_equal(oracle.batch(w, np.arange(0, 100)), first)


def _reports_kernel(reports, split, *, coef, sigma):
    return _kernel(reports["x"], split, coef=coef, sigma=sigma)


@pytest.mark.parametrize("users", [None, np.arange(3, 800, 7)])
def test_pieces_of_blocks_cut_anywhere_add_up_to_the_blocks(users):
    # A Dask worker computes the pieces of the blocks its partition's valid
    # reports fall in: cut at any position, they add up to the whole blocks
    # (the split and the evaluation's draws are keyed by block and row).
    rng = np.random.RandomState(3)
    reports = Reports({"x": rng.standard_normal((1_000, 2))}, {"name": "demo"})
    purpose = EVALUATION if users is None else PILOT
    task = OracleSums(
        partial(_reports_kernel, coef=np.array([0.1, 0.5, 1.0]), sigma=0.3),
        np.array([0.3, -0.4]),
        12345,
        PositionFolds(5, exclude=1),
        128,
        purpose,
        users,
    )
    blocks = (
        (k, 0, reports.subset(slice(s, s + 128)))
        for k, s in enumerate(range(0, 1_000, 128))
    )
    whole = task(blocks)
    cuts = [0, 100, 128, 300, 777, 1_000]
    pieces = [
        piece
        for start, stop in zip(cuts[:-1], cuts[1:], strict=True)
        for piece in block_pieces(reports.subset(slice(start, stop)), start, 128)
    ]
    assert [(k, row, len(part)) for k, row, part in pieces[:4]] == [
        (0, 0, 100),
        (0, 100, 28),
        (1, 0, 128),
        (2, 0, 44),
    ]
    totals = [task([piece]) for piece in pieces]
    np.testing.assert_allclose(sum(t[0] for t in totals), whole[0], rtol=1e-12)
    np.testing.assert_allclose(sum(t[1] for t in totals), whole[1], rtol=1e-12)
    assert whole[1] > 0
