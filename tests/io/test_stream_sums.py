"""The one-pass servers of sums: SparseLDPRegressor, SparseLDPMeanEstimator, KernelRidgeLDP.

Their servers keep per-fold (or per-group) sums of the reports, the report
at stream position ``p`` in fold ``p mod n_folds``. Whatever the way the
same reports arrive (whole, as a stream cut anywhere, as a list of batches,
from a generator, as Dask partitions on the local scheduler or a
``LocalCluster``, or simulated batch by batch by ``partial_fit``), the sums
and the model are the same, to the order of floating-point sums (rtol
1e-10). Invalid reports are dropped before they reach the sums; they keep
their stream position, so the folds of the others do not move.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.base import clone

import sklearn_ldp.randomizers._gaussian as gaussian_module
import sklearn_ldp.randomizers._privunit as privunit_module
from sklearn_ldp import KernelRidgeLDP, SparseLDPMeanEstimator, SparseLDPRegressor
from sklearn_ldp.aggregation import FoldedStatistics
from sklearn_ldp.aggregation._sufficient import FoldedReportSums, GroupedReportSums
from sklearn_ldp.exceptions import InvalidReportWarning
from sklearn_ldp.io import stream_reports
from sklearn_ldp.randomizers import Reports
from tests.conftest import assert_same, fitted_state

N, D = 6000, 12
RTOL = 1e-10

CASES = [
    # epsilon 4: the PrivUnitG pair report ('auto'); the Gaussian release too.
    (SparseLDPRegressor, dict(n_components=6, epsilon=4.0)),
    (SparseLDPRegressor, dict(n_components=6, epsilon=4.0, mechanism="gaussian")),
    (SparseLDPRegressor, dict(n_components=6, epsilon=4.0, fit_intercept=False)),
    (SparseLDPRegressor, dict(projection="identity", epsilon=4.0)),
    (SparseLDPRegressor, dict(projection="sparse", n_components=6, epsilon=4.0)),
    # Below its model threshold at this epsilon: users send y alone.
    (SparseLDPRegressor, dict(n_components="auto", epsilon=0.05)),
    (SparseLDPRegressor, dict(n_components=6, epsilon=4.0, recovery="basis_pursuit")),
    (SparseLDPMeanEstimator, dict(n_components=6, epsilon=4.0)),
    (
        SparseLDPMeanEstimator,
        dict(
            n_components=6,
            epsilon=4.0,
            aggregation="median_of_means",
            n_groups=7,
            recovery="basis_pursuit",
        ),
    ),
    (SparseLDPMeanEstimator, dict(aggregation="median_of_means", n_components=6)),
    (SparseLDPMeanEstimator, dict(n_components="auto", epsilon=0.05)),
    (KernelRidgeLDP, dict(n_components=10, gamma=1.0, epsilon=4.0)),
    (KernelRidgeLDP, dict(n_components=10, epsilon=4.0, fit_intercept=False)),
    (KernelRidgeLDP, dict(n_components="auto", epsilon=4.0)),
    (KernelRidgeLDP, dict(n_components=10, epsilon=4.0, alpha=0.1)),
    # Above it: a projection chosen from the announced population.
    (SparseLDPRegressor, dict(n_components="auto", epsilon=4.0)),
]


def _case_id(case):
    cls, params = case
    return cls.__name__ + "-" + "-".join(f"{k}={v}" for k, v in params.items())


def _data(cls, n=N, d=D, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(n, d)) / np.sqrt(d)
    if cls is SparseLDPMeanEstimator:
        X[:, 0] = rng.uniform(0.0, 0.6, n)
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
        return X, None
    y = np.sin(2.0 * X[:, 0] * np.sqrt(d)) * 0.5 + X[:, 1] + 0.1 * rng.randn(n)
    return X, np.clip(y, -1.0, 1.0)


def _estimator(cls, params):
    return cls(random_state=0, **params)


def _reports(est, X, y, seed=1):
    randomizer = est.make_randomizer(X.shape[1], n_users=X.shape[0])
    return randomizer.randomize(X, y, random_state=seed)


def _fit(est, reports):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvalidReportWarning)
        return clone(est).fit_reports(reports)


def _assert_same_model(a, b, X, exclude=()):
    assert_same(fitted_state(a, exclude), fitted_state(b, exclude), "model", rtol=RTOL)
    if hasattr(a, "predict"):
        np.testing.assert_allclose(b.predict(X), a.predict(X), rtol=RTOL, atol=1e-12)


def _sums(est):
    """The aggregate's sums, as arrays (folds for regressors, groups for means)."""
    aggregate = est._aggregate
    if isinstance(aggregate, GroupedReportSums):
        return [aggregate.sums.sums, aggregate.sums.counts]
    statistics = aggregate.statistics
    return [
        np.stack([fold.gram for fold in statistics.folds]),
        np.stack([fold.moment for fold in statistics.folds]),
        statistics.square_sums,
        np.array([fold.n for fold in statistics.folds]),
    ]


def _assert_same_sums(a, b):
    for left, right in zip(_sums(a), _sums(b), strict=True):
        np.testing.assert_allclose(right, left, rtol=RTOL, atol=1e-12)


# ------------------------------------------------------------ aggregates


def test_folded_statistics_fold_by_position_whatever_the_cut():
    rng = np.random.RandomState(0)
    Z, v = rng.standard_normal((40, 3)), rng.standard_normal(40)
    positions = np.sort(rng.choice(100, 40, replace=False))
    whole = FoldedStatistics(5, 3)
    whole.update(Z, v, positions)
    pieces = [FoldedStatistics(5, 3) for _ in range(3)]
    for piece, rows in zip(pieces, np.array_split(np.arange(40), 3), strict=True):
        piece.update(Z[rows], v[rows], positions[rows])
    merged = pieces[0].merge(pieces[1]).merge(pieces[2])
    for k in range(5):
        rows = positions % 5 == k
        for stats in (whole, merged):
            fold = stats.folds[k]
            np.testing.assert_allclose(fold.gram, Z[rows].T @ Z[rows], rtol=RTOL)
            np.testing.assert_allclose(fold.moment, Z[rows].T @ v[rows], rtol=RTOL)
            assert fold.n == rows.sum()
            assert stats.square_sums[k] == pytest.approx(v[rows] @ v[rows], rel=RTOL)
    # Consecutive positions (the strided path) agree with the general one.
    strided, general = FoldedStatistics(5, 3), FoldedStatistics(5, 3)
    strided.update(Z, v, 7 + np.arange(40))
    general.update(Z[::-1], v[::-1], (7 + np.arange(40))[::-1])
    np.testing.assert_allclose(strided.total().gram, general.total().gram, rtol=RTOL)
    for a, b in zip(strided.folds, general.folds, strict=True):
        np.testing.assert_allclose(a.gram, b.gram, rtol=RTOL)
    with pytest.raises(ValueError, match="positions"):
        whole.update(Z, v, positions[:-1])
    with pytest.raises(ValueError, match="folds"):
        whole.merge(FoldedStatistics(4, 3))


def test_report_aggregates_merge_to_the_aggregate_of_all():
    rng = np.random.RandomState(1)
    Z, v = rng.standard_normal((50, 2)), rng.standard_normal(50)
    positions = np.arange(50)
    folded = FoldedReportSums(5, 2, chunk_size=7)
    folded.add(Z, v, positions)
    halves = [FoldedReportSums(5, 2), FoldedReportSums(5, 2)]
    halves[0].update(Reports({"x": Z[:20], "y": v[:20]}, {}), positions[:20])
    halves[1].update(Reports({"x": Z[20:], "y": v[20:]}, {}), positions[20:])
    merged = halves[0].merge(halves[1])
    assert merged.n == folded.n == 50
    augmented = np.hstack([Z, np.ones((50, 1))])
    np.testing.assert_allclose(
        merged.statistics.total().gram, augmented.T @ augmented, rtol=RTOL
    )
    np.testing.assert_allclose(
        folded.statistics.total().moment, augmented.T @ v, rtol=RTOL
    )
    with pytest.raises(ValueError, match="components"):
        folded.add(Z[:, :1], v, positions)

    grouped = GroupedReportSums(3, 2, chunk_size=4)
    grouped.add(Z, positions + 1)
    parts = [GroupedReportSums(3, 2), GroupedReportSums(3, 2)]
    parts[0].update(Reports({"x": Z[:31]}, {}), positions[:31] + 1)
    parts[1].update(Reports({"x": Z[31:]}, {}), positions[31:] + 1)
    both = parts[0].merge(parts[1])
    for g in range(3):
        rows = (positions + 1) % 3 == g
        np.testing.assert_allclose(grouped.sums.sums[g], Z[rows].sum(axis=0), rtol=RTOL)
        np.testing.assert_allclose(both.sums.sums[g], Z[rows].sum(axis=0), rtol=RTOL)
    assert both.n == grouped.n == 50 and both.sums.counts.tolist() == [16, 17, 17]
    with pytest.raises(ValueError, match="merge"):
        grouped.merge(GroupedReportSums(2, 2))


# --------------------------------------------------- estimators: streams


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_streams_lists_and_generators_fit_the_in_memory_model(case):
    cls, params = case
    est = _estimator(cls, params)
    X, y = _data(cls)
    reports = _reports(est, X, y)
    whole = _fit(est, reports)
    streamed = _fit(est, stream_reports(reports, chunk_size=777))
    halves = [reports.subset(slice(0, 2500)), reports.subset(slice(2500, None))]
    listed = _fit(est, halves)
    generated = _fit(est, (half for half in halves))
    for model in (streamed, listed, generated):
        _assert_same_sums(whole, model)
        _assert_same_model(whole, model, X)
        assert model.n_reports_rejected_ == 0
    assert whole._aggregate.n == N


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_fit_equals_fit_reports_of_the_simulated_reports(case):
    # fit randomizes and aggregates chunk by chunk with the noise of one
    # randomize call on every user, summed in the same blocks.
    cls, params = case
    est = _estimator(cls, params)
    X, y = _data(cls, n=3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # clipping of the simulated records
        fitted = clone(est).fit(X, y)
    served = _fit(est, _reports(est, X, y, seed=0))
    _assert_same_sums(fitted, served)
    clipping = ("clipped_fraction_", "clipping_", "n_features_in_")
    _assert_same_model(fitted, served, X, exclude=clipping)


def _tamper(reports, rows):
    """NaN, far outside the support, off the lattice, NaN target: in turn."""
    fields = dict(reports.fields)
    if "x" not in fields:
        # y alone (SparseLDPRegressor below its model threshold): NaN, far
        # outside the support, off the lattice.
        v = fields["y"].copy()
        step = reports.config["granularity"]
        for i, row in enumerate(rows):
            v[row] = (np.nan, 1e12, v[row] + 0.5 * step)[i % 3]
        fields["y"] = v
        return Reports(fields, reports.config)
    x = reports["x"].copy()
    # Gaussian reports carry their features' step; a PrivUnitG pair report
    # has one lattice (its 'x' holds the pair).
    step = reports.config.get("granularity_x", reports.config["granularity"])
    for i, row in enumerate(rows):
        kind = i % 4 if "y" in fields else i % 3
        if kind == 0:
            x[row, 0] = np.nan
        elif kind == 1:
            x[row, 1] = 1e12
        elif kind == 2:
            x[row, 0] += 0.5 * step
        else:
            fields["y"] = fields["y"].copy()
            fields["y"][row] = np.nan
    fields["x"] = x
    return Reports(fields, reports.config)


@pytest.mark.parametrize("case", CASES[::2], ids=_case_id)
def test_invalid_reports_at_the_end_leave_the_model_of_the_valid_ones(case):
    cls, params = case
    est = _estimator(cls, params)
    X, y = _data(cls)
    reports = _reports(est, X, y)
    bad = np.arange(N - 4, N)
    tampered = _tamper(reports, bad)
    honest = _fit(est, reports.subset(slice(0, N - 4)))
    with pytest.warns(InvalidReportWarning, match="4 of 6000 reports rejected"):
        whole = clone(est).fit_reports(tampered)
    streamed = _fit(est, stream_reports(tampered, chunk_size=777))
    listed = _fit(
        est, [tampered.subset(slice(0, 5998)), tampered.subset(slice(5998, None))]
    )
    for model in (whole, streamed, listed):
        assert model.n_reports_rejected_ == 4
        _assert_same_sums(honest, model)
        _assert_same_model(honest, model, X, exclude=("n_reports_rejected_",))


@pytest.mark.parametrize("case", CASES[1::2], ids=_case_id)
def test_invalid_reports_anywhere_leave_the_model_of_the_others(case):
    # Positions number the valid reports only: the sums are those of the
    # valid reports alone, however the stream is cut and wherever the
    # invalid ones sat.
    cls, params = case
    est = _estimator(cls, params)
    X, y = _data(cls)
    reports = _reports(est, X, y)
    bad = np.array([0, 776, 777, 3001])
    tampered = _tamper(reports, bad)
    keep = np.setdiff1d(np.arange(N), bad)
    whole = _fit(est, tampered)
    streamed = _fit(est, stream_reports(tampered, chunk_size=777))
    listed = _fit(
        est, [tampered.subset(slice(0, 3001)), tampered.subset(slice(3001, None))]
    )
    expected = est._server_aggregate(reports.config)
    expected.update(reports.subset(keep), np.arange(len(keep)))
    honest = _fit(est, reports.subset(keep))
    for model in (whole, streamed, listed):
        assert model.n_reports_rejected_ == 4 and model._aggregate.n == N - 4
        aggregate = model._aggregate
        if isinstance(aggregate, GroupedReportSums):
            np.testing.assert_allclose(
                aggregate.sums.sums, expected.sums.sums, rtol=RTOL
            )
            np.testing.assert_array_equal(aggregate.sums.counts, expected.sums.counts)
        else:
            for fold, expected_fold in zip(
                aggregate.statistics.folds, expected.statistics.folds, strict=True
            ):
                np.testing.assert_allclose(fold.gram, expected_fold.gram, rtol=RTOL)
                np.testing.assert_allclose(fold.moment, expected_fold.moment, rtol=RTOL)
                assert fold.n == expected_fold.n
        _assert_same_model(whole, model, X)
        _assert_same_model(honest, model, X, exclude=("n_reports_rejected_",))


# ------------------------------------------------------------- partial_fit


def _chunks_of(n_rows):
    def chunk_rows(values_per_user):
        return n_rows

    return chunk_rows


@pytest.mark.parametrize(
    "case",
    [
        # m < d: the warm-started FISTA reaches the minimizer of the
        # Gaussian reports' objective from both starts (with the PrivUnitG
        # default's less noisy reports it lies inside the ball, where the
        # minimizing w need not be unique, only Phi^T w is); the identity case
        # below runs the default.
        (
            SparseLDPRegressor,
            dict(
                n_components=6,
                epsilon=4.0,
                mechanism="gaussian",
                tol=1e-12,
                max_iter=20_000,
            ),
        ),
        (
            SparseLDPRegressor,
            dict(projection="identity", fit_intercept=False, tol=1e-12),
        ),
        (SparseLDPMeanEstimator, dict(n_components=6, aggregation="median_of_means")),
        (SparseLDPMeanEstimator, dict(n_components="auto", n_users=1536, epsilon=0.1)),
        (KernelRidgeLDP, dict(n_components=10, epsilon=4.0)),
        (KernelRidgeLDP, dict(n_components="auto", n_users=1536, epsilon=4.0)),
    ],
    ids=_case_id,
)
def test_partial_fit_over_three_batches_is_fit_reports_of_their_reports(
    case, monkeypatch
):
    # With batches of whole chunks (256 users), partial_fit's users draw the
    # noise of one randomize call on the concatenation: the same reports,
    # added at the same stream positions.
    monkeypatch.setattr(gaussian_module, "chunk_rows", _chunks_of(256))
    monkeypatch.setattr(privunit_module, "chunk_rows", _chunks_of(256))
    cls, params = case
    est = _estimator(cls, params)
    X, y = _data(cls, n=1536)
    batches = [slice(0, 512), slice(512, 1280), slice(1280, 1536)]
    batched = clone(est)
    for rows in batches:
        batched.partial_fit(X[rows], None if y is None else y[rows])
    randomizer = est.make_randomizer(D, n_users=512)
    assert randomizer.chunk_size == 256
    reports = randomizer.randomize(X, y, random_state=0)
    served = _fit(est, [reports.subset(rows) for rows in batches])
    _assert_same_sums(served, batched)
    exclude = ("n_features_in_",)
    if cls is SparseLDPRegressor:
        # partial_fit starts FISTA from the previous solution: the same
        # minimizer, to the solver's tolerance.
        exclude += ("coef_", "intercept_", "n_iter_")
        np.testing.assert_allclose(batched.coef_, served.coef_, atol=1e-8)
        assert batched.intercept_ == pytest.approx(served.intercept_, abs=1e-8)
    _assert_same_model(served, batched, X, exclude=exclude)


# ------------------------------------------------------------------- Dask

DASK_CASES = [CASES[0], CASES[1], CASES[2], CASES[8], CASES[11], CASES[13]]


@pytest.mark.parametrize("case", DASK_CASES, ids=_case_id)
def test_dask_fits_the_single_process_model(case):
    # Dask's local scheduler (no client), then a two-worker LocalCluster:
    # per-partition sums on the workers, merged on the driver.
    pytest.importorskip("dask")
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    est = _estimator(*case)
    X, y = _data(type(est), n=20_000)
    reports = _tamper(_reports(est, X, y), [5, 12_345])
    whole = _fit(est, reports)
    local = _fit(est, stream_reports(reports, chunk_size=5000, backend="dask"))
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        on_cluster = _fit(est, stream_reports(reports, chunk_size=5000, backend="dask"))
    for model in (local, on_cluster):
        assert model.n_reports_rejected_ == whole.n_reports_rejected_ == 2
        _assert_same_sums(whole, model)
        _assert_same_model(whole, model, X)


# ----------------------------------------------------------------- memory


@pytest.mark.parametrize(
    "cls, params",
    [
        (SparseLDPRegressor, dict(projection="identity")),
        (KernelRidgeLDP, dict(n_components=20)),
    ],
)
def test_a_streamed_fit_holds_one_chunk_at_a_time(cls, params):
    # 40 chunks of 2,500 users, made on demand by a generator: the reports
    # of all users (about 17 MB for the regressor) are never held; the peak
    # is a few chunks (about 0.4 MB each) plus the O(m^2) sums.
    est = _estimator(cls, dict(params, n_users=100_000, epsilon=4.0, delta=1e-7))
    d = 20
    X, y = _data(cls, n=2500, d=d)
    randomizer = est.make_randomizer(d, n_users=100_000)
    chunk_bytes = randomizer.randomize(X, y, random_state=0).as_matrix().nbytes
    total_bytes = 40 * chunk_bytes

    def chunks():
        for seed in range(40):
            yield randomizer.randomize(X, y, random_state=seed)

    clone(est).fit_reports(chunks())  # warm the sampler's cached tables
    tracemalloc.start()
    try:
        model = clone(est).fit_reports(chunks())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert model._aggregate.n == 100_000
    assert peak < total_bytes / 4, (peak, chunk_bytes)
