"""Debiased sufficient statistics of Gaussian reports (Zheng et al. 2017, Alg. 3-4).

Users send ``z_i = phi_i + sigma_x g_i`` (features, ``m`` entries) and
``v_i = y_i + sigma_y h_i``. The server only needs

    Z^T Z = sum_i z_i z_i^T,   Z^T v = sum_i z_i v_i,   n,

which it accumulates chunk by chunk, so memory is ``O(m^2)`` whatever the
number of users. Since ``E[z z^T] = phi phi^T + sigma_x^2 I`` and the noise of
``z`` and ``v`` is independent, ``Z^T Z - n sigma_x^2 I`` and ``Z^T v`` are
unbiased for the clean statistics; the former is projected onto the PSD cone
(``Proj_PSD``) so the quadratic objective stays convex.

On the lattice (:class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer`)
``g_i`` and ``h_i`` are rounded Gaussians and ``sigma_x``, ``sigma_y`` the
configuration's exact standard deviations of the released noise
(``g sqrt(s^2 + 1/12)``), so the debiasing above is exact; ``phi_i`` is the
record after unbiased randomized rounding, whose extra variance (at most
``g^2 / 4`` per entry, below ``1.5e-8`` of ``sigma_x^2``) stays in the
statistics as part of the data.

Every accumulator here is a sum over reports, so it streams: the report
aggregates (:class:`FoldedReportSums`, :class:`GroupedReportSums`) are the
one-pass servers' state of ``fit_reports`` on a report stream (``update``
one chunk, ``merge`` the aggregate of another partition).
"""

from functools import lru_cache

import numpy as np
from sklearn.utils import gen_batches
from threadpoolctl import ThreadpoolController

from ..randomizers import PrivUnitGRecordRandomizer, chunk_rows
from ..utils import check_finite_array
from ._recovery import GroupedSums

#: Numbers per chunk of the per-fold Gram products (1 MiB: the chunk stays in cache).
FOLD_CHUNK_VALUES = 2**17


def check_gaussian_reports(reports, n_components, *, with_target):
    """The noisy features (and targets) of Gaussian record reports, validated.

    Refuses reports without the fields ``'x'`` (and ``'y'`` with
    ``with_target``), of another shape, or with NaN or infinity, before
    anything is aggregated.

    Returns
    -------
    Z : ndarray of shape (n_reports, n_components)
    v : ndarray of shape (n_reports,) or None
    """
    expected = ("x", "y") if with_target else ("x",)
    missing = [name for name in expected if name not in reports.fields]
    if missing:
        raise ValueError(f"These reports have no field {missing}.")
    Z = check_finite_array(reports["x"], name="reports['x']", ndim=2)
    if Z.shape[1] != n_components:
        raise ValueError(
            f"Expected reports with {n_components} components, got shape {Z.shape}."
        )
    if not with_target:
        return Z, None
    return Z, check_finite_array(reports["y"], name="reports['y']", ndim=1)


def project_psd(matrix):
    """Nearest (Frobenius) positive semi-definite matrix of a symmetric matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import project_psd
    >>> project_psd(np.diag([2.0, -1.0])).tolist()
    [[2.0, 0.0], [0.0, 0.0]]
    """
    matrix = 0.5 * (matrix + matrix.T)
    eigvals, eigvecs = np.linalg.eigh(matrix)
    return (eigvecs * np.maximum(eigvals, 0.0)) @ eigvecs.T


@lru_cache(maxsize=1)
def _blas_controller():
    """The process's BLAS libraries, found once and cached."""
    return ThreadpoolController()


def _one_blas_thread():
    """Context in which BLAS runs on one thread.

    For many small products (``m x m``, ``m`` a few tens): split threads
    wait for each other at every call, for a whole time slice when the
    cores are shared, and such a product gains nothing from a second thread.
    """
    return _blas_controller().limit(limits=1, user_api="blas")


def _fold_labels(folds, n_folds):
    """Fold labels in the smallest integer type: a stable argsort is then a radix sort."""
    for dtype in (np.uint8, np.uint16):
        if n_folds <= np.iinfo(dtype).max + 1:
            return folds.astype(dtype)
    return folds


def _fold_grams(Z, T, folds, n_folds, *, intercept=True):
    """Per fold, the Gram matrix of the rows ``[z, 1, t]`` (``[z, t]`` without ``intercept``).

    One pass over the reports in chunks small enough to stay in the
    processor's cache (``FOLD_CHUNK_VALUES`` numbers): a chunk's rows are
    copied side by side, and each fold's rows give ``sum z z^T``, ``sum z``
    (the constant column), ``sum z t^T`` and ``sum t t^T`` as one Gram
    matrix, on one BLAS thread (:func:`_one_blas_thread`). Consecutive
    reports (``folds`` an int) take their fold's rows in place, every
    ``n_folds``-th row of the chunk; otherwise the chunk's rows are ordered
    by fold (a stable radix sort of the fold labels).

    Parameters
    ----------
    Z : ndarray of shape (n_reports, d)
    T : ndarray of shape (n_reports, n_outputs)
    folds : ndarray of int of shape (n_reports,) or int
        Each report's fold, in ``0 .. n_folds - 1``; an int ``k``: report
        ``i`` is in fold ``(k + i) mod n_folds`` (consecutive positions).
    n_folds : int
    intercept : bool, default=True
        Put a constant column 1 between ``z`` and ``t``.

    Returns
    -------
    gram : ndarray of shape (n_folds, width, width)
        ``width = d + intercept + n_outputs``.
    """
    n, d = Z.shape
    m = d + 1 if intercept else d
    width = m + T.shape[1]
    gram = np.zeros((n_folds, width, width))
    consecutive = np.ndim(folds) == 0
    if consecutive:
        folds = int(folds)
    step = max(chunk_rows(width, budget=FOLD_CHUNK_VALUES), 512)
    block = np.empty((min(step, n), width))
    with _one_blas_thread():
        for start in range(0, n, step):  # chunks of users, not single users
            rows = slice(start, min(start + step, n))
            part = block[: rows.stop - rows.start]
            part[:, :d] = Z[rows]
            if intercept:
                part[:, d] = 1.0
            part[:, m:] = T[rows]
            if consecutive:
                first = folds + start
                for offset in range(min(n_folds, part.shape[0])):  # n_folds
                    fold = part[offset::n_folds]  # a strided view, no copy
                    gram[(first + offset) % n_folds] += fold.T @ fold
                continue
            which = folds[rows]
            part = part[np.argsort(_fold_labels(which, n_folds), kind="stable")]
            ends = np.cumsum(np.bincount(which, minlength=n_folds))
            for k in np.flatnonzero(np.diff(ends, prepend=0)):  # non-empty folds
                fold = part[(ends[k - 1] if k else 0) : ends[k]]
                gram[k] += fold.T @ fold
    return gram


def _folds_at(positions, n_batch, n_folds):
    """The folds of reports at stream ``positions``: fold ``position mod n_folds``.

    As :func:`_fold_grams` takes them: the fold of the first report when
    the positions are consecutive, else every report's fold.
    """
    positions = np.asarray(positions, dtype=np.int64)
    if positions.shape != (n_batch,):
        raise ValueError(f"Expected {n_batch} positions, got shape {positions.shape}.")
    if n_batch and positions[-1] - positions[0] == n_batch - 1:
        if np.all(np.diff(positions) == 1):
            return int(positions[0]) % n_folds
    return positions % n_folds


def _blocked_fold_grams(features, targets, folds, n_folds, chunk_size):
    """:func:`_fold_grams` and :func:`_fold_counts` of each block of ``chunk_size`` reports.

    The per-fold accumulation shared by the streaming aggregates: the order
    of the sums, hence the rounding, depends on the blocks only, not on how
    the caller cut its reports into chunks of whole blocks.
    """
    for batch in gen_batches(features.shape[0], chunk_size):
        part = (folds + batch.start) % n_folds if np.ndim(folds) == 0 else folds[batch]
        grams = _fold_grams(features[batch], targets[batch], part, n_folds)
        yield grams, _fold_counts(part, batch.stop - batch.start, n_folds)


def _fold_counts(folds, n_reports, n_folds):
    """Reports per fold; ``folds`` as in :func:`_fold_grams`."""
    if np.ndim(folds) == 0:  # consecutive: n // K each, +1 for the n % K from fold k on
        late = (np.arange(n_folds) - int(folds)) % n_folds < n_reports % n_folds
        return n_reports // n_folds + late.astype(np.int64)
    return np.bincount(folds, minlength=n_folds)


class SufficientStatistics:
    """Streaming accumulator of ``Z^T Z``, ``Z^T v`` and ``n``.

    Parameters
    ----------
    n_components : int
        Dimension ``m`` of the released feature vectors.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import SufficientStatistics
    >>> stats = SufficientStatistics(2)
    >>> stats.update(np.ones((3, 2)), np.ones(3))
    >>> stats.n, stats.gram.tolist(), stats.moment.tolist()
    (3, [[3.0, 3.0], [3.0, 3.0]], [3.0, 3.0])
    """

    def __init__(self, n_components):
        self.n_components = int(n_components)
        self.n = 0
        self.gram = np.zeros((self.n_components, self.n_components))
        self.moment = np.zeros(self.n_components)

    def update(self, Z, v=None, chunk_size=None):
        """Add a batch of reports (chunked, so temporaries stay small).

        ``chunk_size`` rows at a time; None follows the package's chunk rule
        (:func:`~sklearn_ldp.randomizers.chunk_rows`).
        """
        Z = np.asarray(Z, dtype=float)
        if Z.ndim != 2 or Z.shape[1] != self.n_components:
            raise ValueError(
                f"Expected reports with {self.n_components} components, got shape {Z.shape}."
            )
        if chunk_size is None:
            chunk_size = chunk_rows(self.n_components)
        with _one_blas_thread():
            for start in range(0, Z.shape[0], chunk_size):
                block = Z[start : start + chunk_size]
                self.gram += block.T @ block
                if v is not None:
                    self.moment += block.T @ np.asarray(
                        v[start : start + chunk_size], dtype=float
                    )
        self.n += Z.shape[0]

    def merge(self, other):
        """Add the statistics of other reports (another partition); return ``self``."""
        if other.n_components != self.n_components:
            raise ValueError(
                f"Cannot merge statistics of {other.n_components} components into "
                f"{self.n_components}."
            )
        self.gram += other.gram
        self.moment += other.moment
        self.n += other.n
        return self

    def debiased_gram(self, sigma, project=True):
        """``Proj_PSD(Z^T Z - n sigma^2 I)``: unbiased (before projection) for the clean Gram."""
        debiased = self.gram - self.n * float(sigma) ** 2 * np.eye(self.n_components)
        return project_psd(debiased) if project else debiased


class FoldedStatistics:
    """Sufficient statistics of reports split into folds, for cross-validation.

    The report at position ``i`` of the stream goes to fold ``i mod
    n_folds``, whatever its data, so the folds stream: the positions are
    given to :meth:`update` (the reports' indices in a report stream, so the
    folds do not depend on how it is cut), or by default count the reports
    in arrival order across all batches. Each fold keeps ``Z^T Z``,
    ``Z^T v``, ``n`` and ``sum v^2``.

    Parameters
    ----------
    n_folds : int
    n_components : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import FoldedStatistics
    >>> folds = FoldedStatistics(2, 1)
    >>> folds.update(np.ones((3, 1)), np.array([1.0, 2.0, 3.0]))
    >>> folds.n, folds.square_sums.tolist(), folds.total().moment.tolist()
    (3, [10.0, 4.0], [6.0])
    """

    def __init__(self, n_folds, n_components):
        self.n_components = int(n_components)
        self.folds = [SufficientStatistics(n_components) for _ in range(int(n_folds))]
        self.square_sums = np.zeros(len(self.folds))

    @property
    def n(self):
        return sum(fold.n for fold in self.folds)

    def update(self, Z, v, positions=None):
        """Add a batch of reports.

        Parameters
        ----------
        Z : ndarray of shape (n_reports, n_components)
        v : ndarray of shape (n_reports,)
        positions : array-like of int of shape (n_reports,) or None, default=None
            Each report's position in the stream (its fold is ``position mod
            n_folds``); None: the next positions in arrival order.
        """
        Z = np.asarray(Z, dtype=np.float64)
        v = np.asarray(v, dtype=np.float64)
        if Z.ndim != 2 or Z.shape[1] != self.n_components:
            raise ValueError(
                f"Expected reports with {self.n_components} components, got shape {Z.shape}."
            )
        n_batch = Z.shape[0]
        if v.shape != (n_batch,):
            raise ValueError(f"Expected {n_batch} targets, got shape {v.shape}.")
        folds = self._folds_at(positions, n_batch)
        grams = _fold_grams(Z, v[:, None], folds, len(self.folds), intercept=False)
        self._add_fold_grams(grams, _fold_counts(folds, n_batch, len(self.folds)))

    def _folds_at(self, positions, n_batch):
        """The folds of a batch at stream ``positions`` (default: the next ones)."""
        if positions is None:
            return self.n % len(self.folds)
        return _folds_at(positions, n_batch, len(self.folds))

    def _add_fold_grams(self, grams, counts):
        """Add per-fold Gram matrices of ``[Z, v]`` (:func:`_fold_grams`) and counts."""
        m = self.n_components
        for k, fold in enumerate(self.folds):  # a loop over folds
            fold.gram += grams[k, :m, :m]
            fold.moment += grams[k, :m, m]
            fold.n += int(counts[k])
        self.square_sums += grams[:, m, m]

    def shift_positions(self, offset):
        """As if every report added so far sat ``offset`` positions later.

        The report at position ``p`` moves to fold ``(p + offset) mod
        n_folds``: the folds rotate. A Dask partition numbers its reports
        from 0; the driver shifts it to where it starts in the stream.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_ldp.aggregation import FoldedStatistics
        >>> folds = FoldedStatistics(3, 1)
        >>> folds.update(np.ones((1, 1)), np.array([2.0]))  # position 0
        >>> folds.shift_positions(4)  # position 4: fold 1
        >>> folds.square_sums.tolist(), [f.n for f in folds.folds]
        ([0.0, 4.0, 0.0], [0, 1, 0])
        """
        shift = int(offset) % len(self.folds)
        if shift:
            self.folds = self.folds[-shift:] + self.folds[:-shift]
            self.square_sums = np.roll(self.square_sums, shift)

    def merge(self, other):
        """Add the folds of other reports (another partition); return ``self``."""
        if len(other.folds) != len(self.folds):
            raise ValueError(
                f"Cannot merge {len(other.folds)} folds into {len(self.folds)}."
            )
        for fold, other_fold in zip(self.folds, other.folds, strict=True):
            fold.merge(other_fold)
        self.square_sums += other.square_sums
        return self

    def total(self):
        """The statistics of all folds together."""
        total = SufficientStatistics(self.n_components)
        for fold in self.folds:
            total.gram += fold.gram
            total.moment += fold.moment
            total.n += fold.n
        return total


class FoldedReportSums:
    """One-pass aggregate of Gaussian record reports ``(z, v)``: folded sums of ``[z, 1]``.

    The state of a streaming server whose users send features ``z``
    (field ``'x'``) and a target ``v`` (field ``'y'``): a
    :class:`FoldedStatistics` of ``[z, 1]`` and ``v``, the constant
    (exact, noise-free) column last, so its sums are those of ``z`` and
    ``v`` and every fold can be centred. The report at stream position
    ``p`` is in fold ``p mod n_folds``; memory is ``O(n_folds m^2)``
    whatever the number of reports.

    Parameters
    ----------
    n_folds : int
    n_components : int
        Number ``m`` of released features (without the constant).
    chunk_size : int or None, default=None
        Reports per block added at once (None: the package's chunk rule for
        ``m + 1`` numbers per report); a block's sums are taken in
        cache-sized chunks (``FOLD_CHUNK_VALUES`` numbers), so the order of
        the sums, hence the rounding, depends on the blocks only.

    Attributes
    ----------
    statistics : FoldedStatistics
        Per fold, over ``m + 1`` columns.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation._sufficient import FoldedReportSums
    >>> sums = FoldedReportSums(2, 1)
    >>> sums.add(np.array([[1.0], [2.0], [3.0]]), np.ones(3), np.array([0, 1, 2]))
    >>> sums.n, sums.statistics.total().gram.tolist()
    (3, [[14.0, 6.0], [6.0, 3.0]])
    """

    def __init__(self, n_folds, n_components, *, chunk_size=None):
        self.n_components = int(n_components)
        self.statistics = FoldedStatistics(n_folds, self.n_components + 1)
        self.chunk_size = (
            chunk_rows(self.n_components + 1) if chunk_size is None else int(chunk_size)
        )

    @property
    def n(self):
        """Number of reports added."""
        return self.statistics.n

    def update(self, reports, positions):
        """Add the (validated) reports of one chunk at their stream ``positions``."""
        self.add(reports["x"], reports["y"], positions)

    def add(self, features, targets, positions):
        """Add noisy features ``z`` and targets ``v`` at their stream ``positions``."""
        features = np.asarray(features, dtype=np.float64)
        targets = np.asarray(targets, dtype=np.float64)
        positions = np.asarray(positions, dtype=np.int64)
        if features.ndim != 2 or features.shape[1] != self.n_components:
            raise ValueError(
                f"Expected reports with {self.n_components} components, got shape "
                f"{features.shape}."
            )
        if targets.shape != features.shape[:1]:
            raise ValueError(
                f"Expected {features.shape[0]} targets, got shape {targets.shape}."
            )
        n_folds = len(self.statistics.folds)
        folds = _folds_at(positions, features.shape[0], n_folds)
        # [z, 1, v] per fold: the constant column is inserted in the
        # chunk's copy (_fold_grams), not in another one.
        for grams, counts in _blocked_fold_grams(
            features, targets[:, None], folds, n_folds, self.chunk_size
        ):
            self.statistics._add_fold_grams(grams, counts)

    def shift_positions(self, offset):
        """As if every report added so far sat ``offset`` positions later (folds rotate)."""
        self.statistics.shift_positions(offset)

    def merge(self, other):
        """Add the aggregate of other reports (another partition); return ``self``."""
        self.statistics.merge(other.statistics)
        return self

    def moment_statistics(self):
        """The folded statistics the server debiases (those of Gaussian reports)."""
        return self.statistics


class PrivUnitFoldedReportSums(FoldedReportSums):
    """:class:`FoldedReportSums` of PrivUnitG pair reports, as Gaussian reports' sums.

    Users send one PrivUnitG report of ``(phi, t)``
    (:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer` with a
    regression target, field ``'x'``: the ``m`` features, the target, then
    the embedding's height, which is dropped). The sums are kept as sent;
    on the way out (:meth:`moment_statistics`) every report coordinate is
    multiplied by the public ``report_scale`` ``c`` (the target's also
    divided by ``target_scale``, back to the units of ``y``) and every
    first moment (the sums against the constant column, but not the count)
    by the public ``first_moment_factor`` ``f``. The pseudo-reports ``z = c
    V`` satisfy ``E[z z^T] = r r^T + sigma^2 I`` and ``E[z] = r / f``
    (derived in the randomizer's docstring), so the statistics then debias
    exactly as a Gaussian release's of noise ``sigma_x = sigma`` on the
    features and ``sigma_y = sigma / target_scale`` on the target would
    (:class:`~sklearn_ldp.aggregation._ridge.StreamedFoldedMoments`): the
    cross terms ``z v`` are unbiased (``I`` has no off-diagonal), ``sum
    v^2`` has the bias ``n sigma_y^2`` the Gaussian's has.

    Parameters
    ----------
    n_folds, n_components : int
        As :class:`FoldedReportSums`.
    report_scale, first_moment_factor, target_scale : float
        ``c``, ``f`` and ``target_scale`` of the published randomizer.
    chunk_size : int or None, default=None

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation._sufficient import PrivUnitFoldedReportSums
    >>> sums = PrivUnitFoldedReportSums(
    ...     1, 1, report_scale=2.0, first_moment_factor=3.0, target_scale=0.5)
    >>> sums.update({"x": np.array([[1.0, 0.5, 0.2]])}, np.array([0]))
    >>> total = sums.moment_statistics().total()  # rows [2 V_x, 1], target 4 V_t
    >>> total.gram.tolist(), total.moment.tolist()
    ([[4.0, 6.0], [6.0, 1.0]], [4.0, 6.0])
    """

    def __init__(
        self,
        n_folds,
        n_components,
        *,
        report_scale,
        first_moment_factor,
        target_scale,
        chunk_size=None,
    ):
        super().__init__(n_folds, n_components, chunk_size=chunk_size)
        self.report_scale = float(report_scale)
        self.first_moment_factor = float(first_moment_factor)
        self.target_scale = float(target_scale)

    def update(self, reports, positions):
        """Add the (validated) reports of one chunk: the pair's columns of ``'x'``."""
        values = np.asarray(reports["x"])
        m = self.n_components
        self.add(values[:, :m], values[:, m], positions)

    def moment_statistics(self):
        """The Gaussian-equivalent statistics: ``c``, ``c / target_scale`` and ``f`` applied."""
        m = self.n_components
        c, f = self.report_scale, self.first_moment_factor
        c_target = c / self.target_scale
        # Per column of [z, 1]: the report's scale, 1 for the constant.
        scale = np.append(np.full(m, c), 1.0)
        first = np.append(np.ones(m), f)  # f on the sums against the constant
        gram_scale = np.outer(scale * first, scale * first)
        gram_scale[m, m] = 1.0  # the count
        source = self.statistics
        out = FoldedStatistics(len(source.folds), m + 1)
        for fold, raw in zip(out.folds, source.folds, strict=True):
            fold.gram = raw.gram * gram_scale
            fold.moment = raw.moment * (scale * first * c_target)
            fold.n = raw.n
        out.square_sums = source.square_sums * c_target**2
        return out


class TargetEstimateSums(FoldedReportSums):
    """One-pass aggregate of target-only reports: folded sums of the estimates of ``y``.

    A :class:`FoldedReportSums` with no released feature (its statistics
    hold the count and the sums of the unbiased estimates, constant column
    last), fed from the reports' ``'y'`` field through the estimate of the
    randomizer that made them
    (:class:`~sklearn_ldp.randomizers.TargetMeanRandomizer`).

    Parameters
    ----------
    n_folds : int
    randomizer : TargetMeanRandomizer
        The published randomizer (its ``estimate`` and ``chunk_size``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation._sufficient import TargetEstimateSums
    >>> from sklearn_ldp.randomizers import TargetMeanRandomizer
    >>> randomizer = TargetMeanRandomizer(2, epsilon=1.0, y_bound=1.0)
    >>> reports = randomizer.randomize(np.zeros((4, 2)), np.zeros(4), random_state=0)
    >>> sums = TargetEstimateSums(5, randomizer)
    >>> sums.update(reports, np.arange(4))
    >>> total = sums.statistics.total()
    >>> sums.n, bool(np.isclose(total.moment[-1], randomizer.estimate(reports["y"]).sum()))
    (4, True)
    """

    def __init__(self, n_folds, randomizer):
        super().__init__(n_folds, 0, chunk_size=randomizer.chunk_size)
        self.randomizer = randomizer

    def update(self, reports, positions):
        """Add the (validated) reports of one chunk at their stream ``positions``."""
        targets = self.randomizer.estimate(reports["y"])
        self.add(np.empty((targets.shape[0], 0)), targets, positions)

    def mean(self):
        """The mean of the unbiased estimates of ``y`` (0 without reports)."""
        statistics = self.statistics
        n = statistics.n
        return float(statistics.total().moment[-1] / n) if n else 0.0


class FoldedGramSums:
    """One-pass aggregate of Gaussian record reports: per fold, the Gram matrix of ``[z, 1, t]``.

    The state of a streaming server whose users send features ``z`` (field
    ``'x'``) and one or several targets ``t`` (field ``'y'``: a target, a
    noisy +-1 label or a noisy one-hot vector). Per fold it keeps the Gram
    matrix of the rows ``[z, 1, t]``, that is ``sum [z, 1][z, 1]^T``,
    ``sum [z, 1] t^T`` and ``sum t t^T``, and the number of reports: the
    sums :class:`~sklearn_ldp.aggregation.FoldedMoments` debiases
    (:meth:`~sklearn_ldp.aggregation.FoldedMoments.from_grams`). The report
    at stream position ``p`` is in fold ``p mod n_folds`` (a public rule,
    independent of the data and of how the stream is cut); memory is
    ``O(n_folds (m + k)^2)`` whatever the number of reports. A public
    affine map of the rows (rescaled features, labels ``2 t - 1``) is
    applied to the sums afterwards (:meth:`transformed_grams`), so the
    aggregate stores the reports as they arrive.

    Parameters
    ----------
    n_folds : int
    n_components : int
        Number ``m`` of features (without the constant).
    n_targets : int, default=1
        Number ``k`` of target columns.
    chunk_size : int or None, default=None
        Reports per block added at once (None: the package's chunk rule for
        ``m + 1 + k`` numbers per report).

    Attributes
    ----------
    grams : ndarray of shape (n_folds, m + 1 + k, m + 1 + k)
    counts : ndarray of shape (n_folds,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation._sufficient import FoldedGramSums
    >>> sums = FoldedGramSums(2, 1)
    >>> sums.add(np.array([[1.0], [2.0], [3.0]]), np.ones(3), np.array([0, 1, 2]))
    >>> sums.n, sums.counts.tolist(), sums.grams.sum(axis=0)[:2, :2].tolist()
    (3, [2, 1], [[14.0, 6.0], [6.0, 3.0]])
    """

    def __init__(self, n_folds, n_components, n_targets=1, *, chunk_size=None):
        self.n_components = int(n_components)
        self.n_targets = int(n_targets)
        width = self.n_components + 1 + self.n_targets
        self.grams = np.zeros((int(n_folds), width, width))
        self.counts = np.zeros(int(n_folds), dtype=np.int64)
        self.chunk_size = chunk_rows(width) if chunk_size is None else int(chunk_size)

    @property
    def n(self):
        """Number of reports added."""
        return int(self.counts.sum())

    @property
    def n_folds(self):
        return self.grams.shape[0]

    def update(self, reports, positions):
        """Add the (validated) reports of one chunk at their stream ``positions``."""
        self.add(reports["x"], reports["y"], positions)

    def add(self, features, targets, positions):
        """Add features ``z`` and targets ``t`` at their stream ``positions``.

        Parameters
        ----------
        features : array-like of shape (n_reports, n_components)
        targets : array-like of shape (n_reports,) or (n_reports, n_targets)
        positions : array-like of int of shape (n_reports,)
        """
        features = np.asarray(features, dtype=np.float64)
        targets = np.asarray(targets, dtype=np.float64)
        if features.ndim != 2 or features.shape[1] != self.n_components:
            raise ValueError(
                f"Expected reports with {self.n_components} components, got shape "
                f"{features.shape}."
            )
        targets = targets.reshape(targets.shape[0], -1) if targets.ndim else targets
        if targets.shape != (features.shape[0], self.n_targets):
            raise ValueError(
                f"Expected {features.shape[0]} rows of {self.n_targets} targets, got "
                f"shape {np.shape(targets)}."
            )
        folds = _folds_at(positions, features.shape[0], self.n_folds)
        for grams, counts in _blocked_fold_grams(
            features, targets, folds, self.n_folds, self.chunk_size
        ):
            self.grams += grams
            self.counts += counts

    def shift_positions(self, offset):
        """As if every report added so far sat ``offset`` positions later (folds rotate).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_ldp.aggregation._sufficient import FoldedGramSums
        >>> sums = FoldedGramSums(3, 1)
        >>> sums.add(np.ones((1, 1)), np.ones(1), np.array([0]))
        >>> sums.shift_positions(4)  # position 4: fold 1
        >>> sums.counts.tolist()
        [0, 1, 0]
        """
        shift = int(offset) % self.n_folds
        if shift:
            self.grams = np.roll(self.grams, shift, axis=0)
            self.counts = np.roll(self.counts, shift)

    def merge(self, other):
        """Add the aggregate of other reports (another partition); return ``self``."""
        if other.grams.shape != self.grams.shape:
            raise ValueError(
                f"Cannot merge fold sums of shape {other.grams.shape} into "
                f"{self.grams.shape}."
            )
        self.grams += other.grams
        self.counts += other.counts
        return self

    def transformed_grams(self, feature_scale=1.0, target_scale=1.0, target_shift=0.0):
        """The per-fold Gram matrices of ``[z / feature_scale, 1, a t + b]``.

        The rows' public affine map ``A`` (``a = target_scale``, ``b =
        target_shift``, through the constant column) applied to the sums:
        ``A G A^T`` per fold.
        """
        return _affine_grams(
            self.grams, self.n_components, feature_scale, target_scale, target_shift
        )


def _affine_grams(grams, n_components, feature_scale, target_scale, target_shift):
    """``A G A^T`` per fold for the row map ``[z, 1, t] -> [z / s, 1, a t + b]``."""
    m = n_components + 1
    width = grams.shape[1]
    transform = np.zeros((width, width))
    transform[np.arange(m - 1), np.arange(m - 1)] = 1.0 / float(feature_scale)
    transform[m - 1, m - 1] = 1.0
    transform[np.arange(m, width), np.arange(m, width)] = float(target_scale)
    transform[m:, m - 1] = float(target_shift)
    return transform @ grams @ transform.T


class PrivUnitFoldedGramSums(FoldedGramSums):
    """:class:`FoldedGramSums` of PrivUnitG pair reports, as Gaussian reports' sums.

    Users send one PrivUnitG report of ``(x, e(y))``
    (:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer`, field
    ``'x'``: the ``m`` features, the ``k`` label columns, then the
    embedding's height, which is dropped). The sums are kept as sent; on
    the way out (:meth:`transformed_grams`) every report coordinate is
    multiplied by the public ``report_scale`` ``c`` and every first moment
    (the constant column and row, but not the count) by the public
    ``first_moment_factor`` ``f``. The pseudo-reports ``z = c V`` satisfy
    ``E[z z^T] = r r^T + sigma^2 I`` and ``E[z] = r / f`` (derived in the
    randomizer's docstring), so after the two factors the sums debias
    exactly as a Gaussian release's of noise ``sigma`` would
    (:meth:`~sklearn_ldp.aggregation.FoldedMoments.from_grams`); the public
    affine map of the rows (rescaled features, one-vs-rest labels ``2 t -
    1``) comes after, since it mixes first and second moments.

    Parameters
    ----------
    n_folds, n_components, n_targets : int
        As :class:`FoldedGramSums`.
    report_scale, first_moment_factor : float
        ``c`` and ``f`` of the published randomizer.
    chunk_size : int or None, default=None

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation._sufficient import PrivUnitFoldedGramSums
    >>> sums = PrivUnitFoldedGramSums(1, 1, report_scale=2.0, first_moment_factor=3.0)
    >>> sums.update({"x": np.array([[1.0, 1.0, 0.5]])}, np.array([0]))
    >>> sums.transformed_grams()[0].tolist()  # rows [2 V_x, 1, 2 V_t], first moments x 3
    [[4.0, 6.0, 4.0], [6.0, 1.0, 6.0], [4.0, 6.0, 4.0]]
    """

    def __init__(
        self,
        n_folds,
        n_components,
        n_targets=1,
        *,
        report_scale,
        first_moment_factor,
        chunk_size=None,
    ):
        super().__init__(n_folds, n_components, n_targets, chunk_size=chunk_size)
        self.report_scale = float(report_scale)
        self.first_moment_factor = float(first_moment_factor)

    def update(self, reports, positions):
        """Add the (validated) reports of one chunk: the pair's columns of ``'x'``."""
        values = np.asarray(reports["x"])
        m, k = self.n_components, self.n_targets
        self.add(values[:, :m], values[:, m : m + k], positions)

    def transformed_grams(self, feature_scale=1.0, target_scale=1.0, target_shift=0.0):
        """The Gaussian-equivalent sums, then the rows' public affine map."""
        m = self.n_components
        scale = np.full(self.grams.shape[1], self.report_scale)
        scale[m] = 1.0
        grams = self.grams * scale[None, :, None] * scale[None, None, :]
        first = np.ones(self.grams.shape[1], dtype=bool)
        first[m] = False
        grams[:, m, first] *= self.first_moment_factor
        grams[:, first, m] *= self.first_moment_factor
        return _affine_grams(
            grams, self.n_components, feature_scale, target_scale, target_shift
        )


class GroupedReportSums:
    """One-pass aggregate of Gaussian feature reports ``z``: per-group sums.

    The state of a streaming median-of-means server: a
    :class:`~sklearn_ldp.aggregation.GroupedSums` of the reports' field
    ``'x'``, the report at stream position ``p`` in group ``p mod
    n_groups`` (a public rule independent of the data, so the group means
    are i.i.d. for i.i.d. users and do not depend on how the stream is cut).

    Parameters
    ----------
    n_groups : int
    n_components : int
    chunk_size : int or None, default=None
        Reports per block (None: the package's chunk rule).

    Attributes
    ----------
    sums : GroupedSums

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation._sufficient import GroupedReportSums
    >>> grouped = GroupedReportSums(2, 1)
    >>> grouped.add(np.array([[1.0], [2.0], [3.0]]), np.array([0, 1, 2]))
    >>> grouped.sums.means().ravel().tolist(), grouped.n
    ([2.0, 2.0], 3)
    """

    def __init__(self, n_groups, n_components, *, chunk_size=None):
        self.sums = GroupedSums(n_groups, n_components)
        self.chunk_size = (
            chunk_rows(n_components) if chunk_size is None else int(chunk_size)
        )

    @property
    def n(self):
        """Number of reports added."""
        return self.sums.n

    def update(self, reports, positions):
        """Add the (validated) reports of one chunk at their stream ``positions``."""
        self.add(reports["x"], positions)

    def add(self, features, positions):
        """Add noisy features ``z`` at their stream ``positions``."""
        positions = np.asarray(positions, dtype=np.int64)
        for batch in gen_batches(np.shape(features)[0], self.chunk_size):
            self.sums.update(features[batch], positions[batch])

    def shift_positions(self, offset):
        """As if every report added so far sat ``offset`` positions later (groups rotate)."""
        self.sums.shift_positions(offset)

    def merge(self, other):
        """Add the aggregate of other reports (another partition); return ``self``."""
        mine, theirs = self.sums, other.sums
        if theirs.sums.shape != mine.sums.shape:
            raise ValueError(
                f"Cannot merge group sums of shape {theirs.sums.shape} into "
                f"{mine.sums.shape}."
            )
        mine.sums += theirs.sums
        mine.counts += theirs.counts
        mine.n += theirs.n
        return self


def debiased_least_squares(
    gram, moment, n_samples, sigma, *, feature_sum=None, target_sum=None, project=True
):
    """Debiased, PSD-projected quadratic and linear terms of least squares on reports.

    ``gram`` and ``moment`` are ``Z^T Z`` and ``Z^T v`` of ``n`` reports
    whose features carry ``N(0, sigma^2 I)`` noise. Without the sums:
    ``Q = Proj_PSD(Z^T Z - n sigma^2 I)`` and ``b = Z^T v``. With the sums
    ``s = sum_i z_i`` and ``t = sum_i v_i`` (to fit an intercept), the
    centred versions ``Z^T Z - s s^T / n - (n - 1) sigma^2 I`` (``E[s s^T /
    n]`` carries ``sigma^2 I`` of noise) and ``Z^T v - s t / n``, both
    unbiased for the clean centred statistics.

    Parameters
    ----------
    gram : ndarray of shape (m, m)
    moment : ndarray of shape (m,)
    n_samples : int
    sigma : float
        Standard deviation of the noise on each feature.
    feature_sum : ndarray of shape (m,) or None, default=None
    target_sum : float or None, default=None
        Both or neither; given, the statistics are centred.
    project : bool, default=True
        ``False`` skips ``Proj_PSD`` (to test unbiasedness).

    Returns
    -------
    quadratic : ndarray of shape (m, m)
        ``Q / n``.
    linear : ndarray of shape (m,)
        ``b / n``.
    feature_mean : ndarray of shape (m,)
        ``s / n`` (zeros without the sums).
    target_mean : float
        ``t / n`` (0 without the sums).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import debiased_least_squares
    >>> Q, b, _, _ = debiased_least_squares(np.eye(2) * 5, np.ones(2), 4, 0.5)
    >>> Q.tolist(), b.tolist()
    ([[1.0, 0.0], [0.0, 1.0]], [0.25, 0.25])
    """
    n = max(int(n_samples), 1)
    m = gram.shape[0]
    scatter = np.array(gram, dtype=np.float64)
    cross = np.array(moment, dtype=np.float64)
    if feature_sum is not None:
        scatter -= np.outer(feature_sum, feature_sum) / n
        cross -= feature_sum * target_sum / n
        scatter[np.diag_indices(m)] -= (n - 1) * sigma**2
        feature_mean, target_mean = feature_sum / n, target_sum / n
    else:
        scatter[np.diag_indices(m)] -= n * sigma**2
        feature_mean, target_mean = np.zeros(m), 0.0
    if project:
        scatter = project_psd(scatter)
    return scatter / n, cross / n, feature_mean, target_mean


def pair_report_sums(n_folds, randomizer, n_components):
    """The folded sums of a moments server's pair reports, for either mechanism.

    ``randomizer`` is the users' record randomizer: a PrivUnitG pair
    (:class:`PrivUnitFoldedReportSums`, with its public report scale,
    first-moment factor and target scale) or a Gaussian release
    (:class:`FoldedReportSums`); ``n_components`` the released features.
    """
    if isinstance(randomizer, PrivUnitGRecordRandomizer):
        return PrivUnitFoldedReportSums(
            n_folds,
            n_components,
            report_scale=randomizer.report_scale,
            first_moment_factor=randomizer.first_moment_factor,
            target_scale=randomizer.target_scale,
            chunk_size=randomizer.chunk_size,
        )
    return FoldedReportSums(n_folds, n_components, chunk_size=randomizer.chunk_size)
