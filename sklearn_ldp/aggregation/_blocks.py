"""Multi-pass servers over a re-readable report stream, with memory bounded by a block.

A server whose solver revisits the reports (the polynomial-oracle
classifiers: gradient descent evaluates the oracle at every iterate) reads
the *valid* reports of the stream once per evaluation. Its randomness must
then be the same at every pass and must not depend on how the stream is
cut: every per-report draw is a function of the server's seed, of the
report's position among the valid reports and of what it is for. The
positions are cut into blocks of a fixed size ``B`` (block ``k`` holds
positions ``[k B, (k + 1) B)``); the draws of block ``k`` for purpose
``purpose`` (and call ``c`` within one evaluation) come from

    np.random.default_rng(np.random.SeedSequence([entropy, k, purpose, c]))

as one array with one row per report (the first rows of a longer draw: a
generator fills an array row after row, so the row of a report does not
depend on how many rows follow it).

A *block source* has ``n`` (valid reports), ``block_size`` and
``blocks()``, an iterator over ``(k, reports_of_block_k)`` (one pass over
the stream); ``sklearn_ldp._base`` builds it over a stream or over
in-memory reports, so both go through this code.
"""

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

#: What a block's draws are for (the third word of their seed).
SPLIT, EVALUATION, PILOT, STOCHASTIC = 0, 1, 2, 3


def draw_entropy(rng):
    """The server's seed of every per-report draw, drawn once from its generator."""
    return int(rng.randint(np.iinfo(np.int32).max))


class KeyedDraws:
    """Standard normals for some rows of one block, one purpose, call after call.

    Call ``c`` (counted from 0 within the object's life, one object per
    block and evaluation) returns, for block row ``r``, the ``r``-th row of
    the draw seeded ``[entropy, block, purpose, c]``. Duck-types the two
    generator methods the oracles use: :meth:`normals` and
    :meth:`uniform` (``Phi`` of a normal, exactly uniform).

    Parameters
    ----------
    entropy : int
    block : int
    purpose : int
    rows : ndarray of int
        Rows of the block (sorted, distinct) the draws are for.
    """

    def __init__(self, entropy, block, purpose, rows):
        self.key = (int(entropy), int(block), int(purpose))
        self.rows = np.asarray(rows, dtype=np.intp)
        self._calls = 0

    def normals(self, n_columns):
        """``(len(rows), n_columns)`` standard normals of the next call."""
        seed = np.random.SeedSequence([*self.key, self._calls])
        self._calls += 1
        stop = int(self.rows[-1]) + 1 if len(self.rows) else 0
        table = np.random.default_rng(seed).standard_normal((stop, int(n_columns)))
        return table[self.rows]

    def uniform(self, size):
        """Uniform draws on (0, 1), one per row (``size`` is ``len(rows)``)."""
        if int(np.prod(size)) != len(self.rows):
            raise ValueError(f"Keyed draws give one value per row, not {size}.")
        return ndtr(self.normals(1)[:, 0]).reshape(size)


def standard_normals(rng, n_rows, n_columns):
    """``(n_rows, n_columns)`` standard normals from a generator or :class:`KeyedDraws`."""
    if isinstance(rng, KeyedDraws):
        return rng.normals(n_columns)
    return rng.standard_normal((n_columns, n_rows)).T


@dataclass(frozen=True)
class PositionFolds:
    """The reports used by one fit: all, or all but one fold (position mod ``n_folds``).

    The oracle solvers' form of :class:`FoldedMoments`' training rows: a
    rule on positions, so a fit on 4 of 5 folds needs no array of ``n``
    flags.
    """

    n_folds: int
    exclude: int | None = None

    def mask(self, positions):
        """Which of ``positions`` the fit uses."""
        if self.exclude is None:
            return np.ones(len(positions), dtype=bool)
        return positions % self.n_folds != self.exclude

    def count(self, n):
        """How many of the positions ``0..n-1`` the fit uses."""
        if self.exclude is None:
            return int(n)
        return int(n) - len(range(self.exclude, int(n), self.n_folds))


class StreamedOracle:
    """The gradient oracle of every report of a block source, one pass per evaluation.

    ``make_kernel(block_reports, split_draws)`` builds the in-memory oracle
    of one block (its fission split drawn from ``split_draws``, a
    :class:`KeyedDraws` over the block's rows) with ``sums(W, rows, draws)
    -> (sum of the per-report oracles, sum of their squared norms)`` over
    some of its rows, the per-evaluation randomness drawn from ``draws``.

    - :meth:`mean` is one pass; its draws (``EVALUATION``) are the same at
      every pass, so it is one fixed random field of ``W``, as full-batch
      gradient descent needs (unbiased for each ``W``);
    - :meth:`second_moment` on some users is one pass (``PILOT`` draws);
    - :meth:`batch` serves consecutive ranges of users in increasing order
      from one pass (``STOCHASTIC`` draws: each user is used once), as
      one-pass SIGM asks for them (``sequential``).

    Users are numbered ``0..n_users - 1`` in stream order among the
    positions ``rows`` keeps.

    Parameters
    ----------
    source : block source
        See the module docstring.
    make_kernel : callable
    param_shape : tuple
    entropy : int
        The server's seed (:func:`draw_entropy`).
    rows : PositionFolds, default=None
        The reports used (None: all).
    """

    sequential = True

    def __init__(self, source, make_kernel, *, param_shape, entropy, rows=None):
        self.source = source
        self.make_kernel = make_kernel
        self.param_shape = tuple(param_shape)
        self.dim = self.param_shape[0]
        self.entropy = int(entropy)
        self.rows = PositionFolds(1) if rows is None else rows
        self.n_users = self.rows.count(source.n)
        self._cursor = None

    def _kernels(self):
        """One pass: ``(block, kernel, block rows used, index of the first)``."""
        first = 0
        for block, reports in self.source.blocks():
            start = block * self.source.block_size
            rows = np.flatnonzero(self.rows.mask(start + np.arange(len(reports))))
            if len(rows):
                split = KeyedDraws(self.entropy, block, SPLIT, np.arange(len(reports)))
                yield block, self.make_kernel(reports, split), rows, first
            first += len(rows)

    def mean(self, W, *, return_second_moment=False):
        """Average oracle over the users (one pass), shape ``param_shape``."""
        total, squares = np.zeros(self.param_shape), 0.0
        for block, kernel, rows, _ in self._kernels():
            draws = KeyedDraws(self.entropy, block, EVALUATION, rows)
            block_total, block_squares = kernel.sums(W, rows, draws)
            total += block_total
            squares += block_squares
        if return_second_moment:
            return total / self.n_users, squares / self.n_users
        return total / self.n_users

    def second_moment(self, W, indices, rng=None):
        """Mean squared norm of the oracle at ``W`` over some users (one pass)."""
        indices = np.sort(np.asarray(indices, dtype=np.int64))
        squares = 0.0
        for block, kernel, rows, first in self._kernels():
            lo, hi = np.searchsorted(indices, [first, first + len(rows)])
            if lo == hi:
                continue
            chosen = rows[indices[lo:hi] - first]
            draws = KeyedDraws(self.entropy, block, PILOT, chosen)
            squares += kernel.sums(W, chosen, draws)[1]
        return float(squares / len(indices))

    def batch(self, W, indices, rng=None):
        """Average oracle over users ``indices``: a range following the previous one."""
        indices = np.asarray(indices, dtype=np.int64)
        start, stop = int(indices[0]), int(indices[-1]) + 1
        if len(indices) != stop - start:
            raise ValueError("A streamed oracle serves consecutive users only.")
        if start == 0 or self._cursor is None:
            self._cursor = _Cursor(self._kernels())
        if start != self._cursor.next_user:
            raise ValueError(
                f"A streamed oracle serves its users in order: expected user "
                f"{self._cursor.next_user}, got {start}."
            )
        total = np.zeros(self.param_shape)
        for block, kernel, rows in self._cursor.take(stop):
            draws = KeyedDraws(self.entropy, block, STOCHASTIC, rows)
            total += kernel.sums(W, rows, draws)[0]
        return total / (stop - start)


class _Cursor:
    """Reads a pass of kernels forward, handing out users ``next_user..stop - 1``."""

    def __init__(self, kernels):
        self._kernels = kernels
        self._current = None  # (block, kernel, rows, first)
        self.next_user = 0

    def take(self, stop):
        while self.next_user < stop:
            current = self._current
            if current is None or self.next_user >= current[3] + len(current[2]):
                self._current = current = next(self._kernels)
            block, kernel, rows, first = current
            end = min(stop, first + len(rows))
            yield block, kernel, rows[self.next_user - first : end - first]
            self.next_user = end
