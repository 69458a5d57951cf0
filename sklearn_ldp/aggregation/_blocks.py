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

A *block source* (:class:`BlockSource`) has ``n`` (valid reports),
``block_size``, ``blocks()``, an iterator over ``(k, reports_of_block_k)``
(one pass over the stream), and ``pass_sums(task)``, one pass that hands
``task`` the *pieces* of the blocks, ``(k, first row, reports)``, and adds
what it returns. This process reads whole blocks (first row 0); a Dask
stream's workers each take the pieces of the blocks their partition's valid
reports fall in (a block may span two partitions) and only the sums travel
back. Both give the same numbers, up to the order of the additions: every
draw is keyed by block and row, and a kernel's oracle of a report depends
on that report and its draws only (the oracles of
:mod:`~sklearn_ldp.aggregation._oracle` and
:mod:`~sklearn_ldp.aggregation._glm_oracle` compute row by row).
``sklearn_ldp._base`` builds the sources over a stream or over in-memory
reports, so all go through this code.
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


class BlockSource:
    """Valid reports in blocks of ``block_size`` positions (see the module docstring).

    Subclasses set ``n`` and ``block_size`` and implement :meth:`blocks`;
    :meth:`pass_sums` reads whole blocks unless a subclass computes the
    pieces elsewhere (on Dask workers).
    """

    n = None
    block_size = None
    #: Whether the reports are held in this process (in-memory reports, not
    #: a stream): an oracle then keeps its blocks' kernels (their fission
    #: splits) from pass to pass instead of drawing them again.
    in_memory = False

    def blocks(self):  # pragma: no cover - abstract
        """One pass: ``(k, reports at positions [k B, (k + 1) B))``."""
        raise NotImplementedError

    def pass_sums(self, task):
        """One pass: ``task`` of the pieces of every block (here the whole blocks)."""
        return task((block, 0, reports) for block, reports in self.blocks())


def block_pieces(reports, start, block_size):
    """``(k, first row, piece)``: consecutive valid reports cut at block edges.

    ``reports`` hold the valid reports at positions ``start, start + 1,
    ...``; each piece holds those of one block ``k``, from its row ``first
    row`` on.
    """
    n = len(reports)
    if not n:
        return
    stop = start + n
    for block in range(start // block_size, -(-stop // block_size)):
        lo = max(start, block * block_size)
        hi = min(stop, (block + 1) * block_size)
        piece = (
            reports if hi - lo == n else reports.subset(slice(lo - start, hi - start))
        )
        yield block, lo - block * block_size, piece


@dataclass(frozen=True, eq=False)
class OracleSums:
    """The sums of one pass at ``W``: a task of :meth:`BlockSource.pass_sums`.

    Called with pieces ``(k, first row, reports)`` of blocks, it returns the
    sum of the oracles of their users and of their squared norms. Each
    piece's kernel draws its fission split for its own rows and the
    evaluation's draws (``purpose``) for the rows it uses, keyed by block
    and row, so a piece computes alone (on a Dask worker) what it adds to
    its block's sum. Plain arrays and a kernel factory: it is sent to the
    workers.

    Parameters
    ----------
    make_kernel : callable
        See :class:`StreamedOracle`.
    W : ndarray of shape ``param_shape``
    entropy : int
    rows : PositionFolds
        The reports used.
    block_size : int
    purpose : int
        ``EVALUATION`` (all users) or ``PILOT`` (``users`` only).
    users : ndarray of int or None, default=None
        Sorted users (numbered ``0..`` among the positions ``rows`` keeps);
        None: every user ``rows`` keeps.
    kernels : dict or None, default=None
        Kernels already built, by ``(k, first row, number of reports)``,
        filled as they are built (the oracle's cache over in-memory
        reports: a kernel is a function of its reports and its split draws
        only); None: build every piece's kernel.
    """

    make_kernel: object
    W: np.ndarray
    entropy: int
    rows: PositionFolds
    block_size: int
    purpose: int
    users: np.ndarray | None = None
    kernels: dict | None = None

    def __call__(self, pieces):
        total, squares = np.zeros(np.shape(self.W)), 0.0
        for block, first_row, reports in pieces:
            start = block * self.block_size + first_row
            kept = np.flatnonzero(self.rows.mask(start + np.arange(len(reports))))
            if self.users is not None:
                # Users are numbered among the kept positions: the first kept
                # position at or after ``start`` is user ``rows.count(start)``.
                first = self.rows.count(start)
                lo, hi = np.searchsorted(self.users, [first, first + len(kept)])
                kept = kept[self.users[lo:hi] - first]
            if not len(kept):
                continue
            kernel = self._kernel(block, first_row, reports)
            draws = KeyedDraws(self.entropy, block, self.purpose, first_row + kept)
            piece_total, piece_squares = kernel.sums(self.W, kept, draws)
            total += piece_total
            squares += piece_squares
        return total, squares

    def _kernel(self, block, first_row, reports):
        key = (block, first_row, len(reports))
        if self.kernels is not None and key in self.kernels:
            return self.kernels[key]
        rows = first_row + np.arange(len(reports))
        kernel = self.make_kernel(reports, KeyedDraws(self.entropy, block, SPLIT, rows))
        if self.kernels is not None:
            self.kernels[key] = kernel
        return kernel


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

    :meth:`mean` and :meth:`second_moment` are sums over the users, computed
    by ``source.pass_sums`` (:class:`OracleSums`): on a Dask stream, by the
    workers. :meth:`batch` is not: each mini-batch needs the iterate the
    previous one gave, so it reads the blocks in this process.

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
        # In-memory reports: each block's kernel is built once, not once per
        # pass (the fission split is most of a pass's work; the kernels hold
        # about ``degree`` copies of the reports, as the reports' own oracle
        # would).
        self._kernel_cache = {} if source.in_memory else None

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

    def _pass_sums(self, W, purpose, users=None):
        task = OracleSums(
            self.make_kernel,
            np.asarray(W, dtype=float).reshape(self.param_shape),
            self.entropy,
            self.rows,
            self.source.block_size,
            purpose,
            users,
            self._kernel_cache,
        )
        return self.source.pass_sums(task)

    def mean(self, W, *, return_second_moment=False):
        """Average oracle over the users (one pass), shape ``param_shape``."""
        total, squares = self._pass_sums(W, EVALUATION)
        if return_second_moment:
            return total / self.n_users, squares / self.n_users
        return total / self.n_users

    def second_moment(self, W, indices, rng=None):
        """Mean squared norm of the oracle at ``W`` over some users (one pass)."""
        indices = np.sort(np.asarray(indices, dtype=np.int64))
        squares = self._pass_sums(W, PILOT, indices)[1]
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
