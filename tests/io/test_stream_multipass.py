"""The multi-pass servers (the oracle solvers of GLM and Hinge) read a stream again.

Issue 19: the configurations of ``GLMLDPClassifier`` and
``HingeLDPClassifier`` whose server is the polynomial-oracle solver read a
re-readable report stream once per oracle evaluation, with every per-report
draw keyed by the report's position among the valid reports, so the model
of a stream equals the model of the same reports in memory (the same code,
blocks of a fixed size) whatever the cut; a read-once stream is refused
with the number of passes; memory does not grow with the number of
reports. On a Dask stream the workers run the validating pass and every
pass of sums (the oracle's mean and second moment), and the model is the
in-memory one; SIGM's sequential mini-batches are read on the driver.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.base import clone

import sklearn_ldp._linear as linear_module
from sklearn_ldp import GLMLDPClassifier, HingeLDPClassifier
from sklearn_ldp.aggregation._blocks import KeyedDraws, PositionFolds
from sklearn_ldp.exceptions import InvalidReportWarning
from sklearn_ldp.io import Partition, ReportStream, read_reports, stream_reports
from sklearn_ldp.randomizers import Reports

N = 3000
#: Small blocks (a few hundred reports) in the equality tests, so that a fit
#: spans several blocks and the 777-report chunks straddle their edges.
SMALL_BLOCK_VALUES = 2**14

CONFIGURATIONS = [
    (GLMLDPClassifier, dict(degree=2), 2),
    (GLMLDPClassifier, dict(degree=2), 3),
    (GLMLDPClassifier, dict(degree="auto"), 2),
    (GLMLDPClassifier, dict(degree=2, solver="sigm"), 2),
    (GLMLDPClassifier, dict(approximation="smoothed_quantile", degree=2), 2),
    (GLMLDPClassifier, dict(calibration="paper"), 2),
    (
        GLMLDPClassifier,
        dict(calibration="paper", approximation="smoothed_quantile", degree=2),
        3,
    ),
    (
        GLMLDPClassifier,
        dict(calibration="paper", approximation="bernstein", solver="sigm"),
        2,
    ),
    (HingeLDPClassifier, dict(degree=2), 2),
    (HingeLDPClassifier, dict(degree="auto"), 2),
    (HingeLDPClassifier, dict(solver="sigm"), 2),
    (HingeLDPClassifier, dict(degree="auto", solver="sigm"), 2),
    (HingeLDPClassifier, dict(calibration="paper"), 2),
    (HingeLDPClassifier, dict(calibration="paper", approximation="bernstein"), 2),
]


def _id(case):
    cls, params, n_classes = case
    given = ",".join(f"{k}={v}" for k, v in params.items())
    return f"{cls.__name__}({given})-{n_classes}classes"


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(linear_module, "BLOCK_VALUES", SMALL_BLOCK_VALUES)


def _data(n_classes, n=N, seed=0, n_features=3):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(n, n_features)) / np.sqrt(n_features)
    if n_classes == 2:
        return X, (X.sum(axis=1) > 0).astype(int)
    return X, np.digitize(X[:, 0], [-0.15, 0.15])


def _setup(case, n=N):
    cls, params, n_classes = case
    est = cls(epsilon=8.0, max_iter=8, random_state=0, **params)
    X, y = _data(n_classes, n)
    randomizer = est.make_randomizer(X.shape[1], n_users=n, classes=np.unique(y))
    return est, randomizer.randomize(X, y, random_state=1), X


def _fit(est, reports):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvalidReportWarning)
        return clone(est).fit_reports(reports)


def _assert_same_model(a, b, X):
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b.intercept_, a.intercept_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(b.predict(X), a.predict(X))
    assert b.degree_ == a.degree_ and b.n_iter_ == a.n_iter_
    assert b.selected_model_ == a.selected_model_


def _with_a_nan_report(reports, row):
    x = reports["x"].astype(np.float64)
    x[row] = np.nan
    return Reports({**reports.fields, "x": x}, reports.config)


@pytest.mark.parametrize("case", CONFIGURATIONS, ids=_id)
def test_a_stream_and_batches_fit_the_in_memory_model(case, small_blocks):
    est, reports, X = _setup(case)
    assert est._server_aggregate(reports.config) is None
    assert est._server_passes(reports.config) is not None
    whole = _fit(est, reports)
    streamed = _fit(est, stream_reports(reports, chunk_size=777))
    batched = _fit(
        est, [reports.subset(slice(0, 1000)), reports.subset(slice(1000, None))]
    )
    _assert_same_model(whole, streamed, X)
    _assert_same_model(whole, batched, X)
    assert whole.n_reports_rejected_ == streamed.n_reports_rejected_ == 0


@pytest.mark.parametrize("case", CONFIGURATIONS, ids=_id)
def test_an_invalid_report_is_dropped_and_counted_once(case, small_blocks):
    est, reports, X = _setup(case)
    tampered = _with_a_nan_report(reports, 1234)
    honest = _fit(est, reports.subset(np.setdiff1d(np.arange(N), [1234])))
    for given in (tampered, stream_reports(tampered, chunk_size=777)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = clone(est).fit_reports(given)
        rejections = [w for w in caught if issubclass(w.category, InvalidReportWarning)]
        # Every pass validates the chunks again; the tally is the first pass's.
        assert len(rejections) == 1
        assert "1 of 3000 reports rejected" in str(rejections[0].message)
        assert model.n_reports_rejected_ == 1
        _assert_same_model(honest, model, X)


@pytest.mark.parametrize(
    "cls, params",
    [(GLMLDPClassifier, dict(degree="auto")), (HingeLDPClassifier, dict(degree=2))],
)
def test_fit_is_a_stream_of_the_simulated_reports(cls, params, small_blocks):
    est = cls(epsilon=8.0, max_iter=8, random_state=0, **params)
    X, y = _data(2)
    fitted = clone(est).fit(X, y)
    # fit draws the users' noise from random_state: the same reports.
    randomizer = est.make_randomizer(X.shape[1], n_users=N, classes=[0, 1])
    reports = randomizer.randomize(X, y, random_state=0)
    _assert_same_model(fitted, _fit(est, stream_reports(reports, chunk_size=777)), X)


class _CountingStream(ReportStream):
    """In-memory chunks that count how many times the stream is read."""

    def __init__(self, reports, chunk_size):
        super().__init__(reports.config)
        self.reports, self.chunk_size, self.n_reads = reports, chunk_size, 0

    def partitions(self):
        n, size = len(self.reports), self.chunk_size
        return [
            Partition(start, min(size, n - start), _Rows(self.reports, start, size))
            for start in range(0, n, size)
        ]

    def __iter__(self):
        self.n_reads += 1
        return super().__iter__()


class _Rows:
    def __init__(self, reports, start, size):
        self.reports, self.start, self.size = reports, start, size

    def __call__(self):
        return self.reports.subset(slice(self.start, self.start + self.size))


@pytest.mark.parametrize(
    "cls, params, passes",
    [
        # The first pass, then one per gradient-descent iteration.
        (GLMLDPClassifier, dict(degree=2, selection=None), lambda est: 1 + est.n_iter_),
        # The first pass, the pilot point, its second moment and SIGM's pass.
        (GLMLDPClassifier, dict(solver="sigm", selection=None), lambda est: 4),
        (
            HingeLDPClassifier,
            dict(degree=3, selection=None),
            lambda est: 1 + est.n_iter_,
        ),
        # And the pilot point and one second moment per candidate degree.
        (
            HingeLDPClassifier,
            dict(degree="auto", solver="sigm", selection=None),
            lambda est: 4 + 7,
        ),
    ],
)
def test_the_server_reads_the_stream_as_often_as_documented(cls, params, passes):
    est, reports, _ = _setup((cls, params, 2))
    stream = _CountingStream(reports, 777)
    fitted = _fit(est, stream)
    assert stream.n_reads == passes(fitted)
    assert stream.n_reads <= est._server_passes(reports.config)[0]


def test_a_read_once_stream_is_refused_with_the_number_of_passes():
    est, reports, _ = _setup((GLMLDPClassifier, dict(degree=2), 2))

    def chunks():
        yield reports.subset(slice(0, 1500))
        yield reports.subset(slice(1500, None))

    n_passes = est._server_passes(reports.config)[0]
    assert n_passes == 1 + 6 * 8  # validation, then 8 iterations on 5 splits and all
    with pytest.raises(
        ValueError, match=rf"degree=2, .*up to {n_passes} times.*read_reports"
    ):
        clone(est).fit_reports(chunks())
    # The one-pass default server reads a generator once (on the Gaussian
    # reports of this configuration: mechanism='gaussian').
    clone(
        GLMLDPClassifier(epsilon=8.0, random_state=0, mechanism="gaussian")
    ).fit_reports(chunks())


def test_partial_fit_refuses_a_multi_pass_configuration():
    X, y = _data(2)
    est = HingeLDPClassifier(degree=2, random_state=0)
    with pytest.raises(ValueError, match="cannot add a batch without keeping"):
        est.partial_fit(X, y, classes=[0, 1])


def test_a_parquet_stream_is_read_again(tmp_path, small_blocks):
    est, reports, X = _setup((GLMLDPClassifier, dict(degree=2, solver="sigm"), 2))
    reports.subset(slice(0, 1300)).to_parquet(tmp_path / "reports")
    reports.subset(slice(1300, None)).to_parquet(tmp_path / "reports")
    on_disk = _fit(est, read_reports(tmp_path / "reports", chunk_size=500))
    _assert_same_model(_fit(est, reports), on_disk, X)


def test_keyed_draws_depend_on_the_row_not_on_what_else_is_drawn():
    everything = KeyedDraws(7, 3, 1, np.arange(50))
    some = KeyedDraws(7, 3, 1, np.array([4, 20]))
    first = everything.normals(2)
    np.testing.assert_array_equal(some.normals(2), first[[4, 20]])
    # The next call is another draw, for the same rows.
    second = everything.normals(1)
    np.testing.assert_array_equal(some.normals(1), second[[4, 20]])
    assert not np.allclose(second[:, 0], first[:, 0])
    # Another block, purpose or seed draws other numbers.
    for key in [(7, 4, 1), (7, 3, 2), (8, 3, 1)]:
        assert not np.allclose(KeyedDraws(*key, np.arange(50)).normals(2), first)
    uniform = KeyedDraws(7, 3, 1, np.arange(50)).uniform(size=50)
    assert np.all((uniform > 0) & (uniform < 1))


def test_position_folds_keep_all_but_one_residue():
    folds = PositionFolds(5, exclude=2)
    positions = np.arange(23)
    np.testing.assert_array_equal(folds.mask(positions), positions % 5 != 2)
    assert folds.count(23) == int(np.sum(positions % 5 != 2))
    assert PositionFolds(5).count(23) == 23


# -- memory --------------------------------------------------------------------

CHUNK = 4096


class _SimulatedStream(ReportStream):
    """``n_chunks`` chunks of ``CHUNK`` users randomized when read (never all held)."""

    def __init__(self, randomizer, X, y, n_chunks):
        self.randomizer, self.X, self.y, self.n_chunks = randomizer, X, y, n_chunks
        super().__init__(randomizer.get_config())

    def partitions(self):
        return [
            Partition(k * CHUNK, CHUNK, _Randomized(self.randomizer, self.X, self.y, k))
            for k in range(self.n_chunks)
        ]


class _Randomized:
    def __init__(self, randomizer, X, y, seed):
        self.randomizer, self.X, self.y, self.seed = randomizer, X, y, seed

    def __call__(self):
        return self.randomizer.randomize(self.X, self.y, random_state=self.seed)


def _peak(function):
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_streamed_multi_pass_fit_holds_a_block_not_the_reports():
    est = GLMLDPClassifier(
        epsilon=8.0, delta=1e-7, degree=2, max_iter=2, selection=None, random_state=0
    )
    X, y = _data(2, n=CHUNK, n_features=5)
    randomizer = est.make_randomizer(5, n_users=10**6, classes=[0, 1])
    report_bytes = randomizer.randomize(X, y, random_state=0).as_matrix().nbytes / CHUNK
    block = est._server_block_size(randomizer.get_config())
    n_chunks = 12  # n = 49,152 users: two blocks and a bit (block of 23,831)
    assert block < n_chunks * CHUNK < 3 * block

    def streamed(k):
        return lambda: clone(est).fit_reports(_SimulatedStream(randomizer, X, y, k))

    def in_memory(k):
        def fit():
            chunks = list(_SimulatedStream(randomizer, X, y, k))
            clone(est).fit_reports(Reports.concatenate(chunks))

        return fit

    streamed(1)()  # warm the sampler's cached tables
    small, large = _peak(streamed(n_chunks)), _peak(streamed(4 * n_chunks))
    # A pass holds one chunk and one block whatever n; what grows with n is
    # O(1) per block (loop state), so the peaks agree up to allocator noise:
    # 30% (temporaries of numpy and tracemalloc's own bookkeeping) plus 1 MB
    # of slack, while the extra 3 n users' reports alone weigh
    # 3 * 49,152 * 48 bytes = 7 MB.
    extra_reports = 3 * n_chunks * CHUNK * report_bytes
    assert large < 1.3 * small + 2**20, (small, large)
    assert large < small + extra_reports / 2, (small, large)
    # In memory, the extra 3 n reports are held (and concatenated: twice).
    small_memory, large_memory = (
        _peak(in_memory(n_chunks)),
        _peak(in_memory(4 * n_chunks)),
    )
    assert large_memory - small_memory > 0.9 * extra_reports, (
        small_memory,
        large_memory,
    )


# -- Dask ----------------------------------------------------------------------

#: Multi-pass configurations fitted on Dask: every kernel of the two
#: estimators (fission: with labels in Hinge's, one-vs-rest in GLM's, with
#: a smoothed-quantile draw per user; products of the paper's copies: power
#: copies, Bernstein terms, with a smoothed-quantile draw), the folds of
#: selection='cv', and SIGM (its mini-batches read on the driver).
DASK_CONFIGURATIONS = [
    (GLMLDPClassifier, dict(degree=2), 3),
    (GLMLDPClassifier, dict(approximation="smoothed_quantile", degree=2), 2),
    (GLMLDPClassifier, dict(calibration="paper"), 2),
    (
        GLMLDPClassifier,
        dict(calibration="paper", approximation="smoothed_quantile", degree=2),
        3,
    ),
    (HingeLDPClassifier, dict(degree=2, selection=None), 2),
    (HingeLDPClassifier, dict(calibration="paper", approximation="bernstein"), 2),
    (HingeLDPClassifier, dict(degree="auto", solver="sigm", selection=None), 2),
]


@pytest.fixture(scope="module")
def process_cluster():
    """A two-process ``LocalCluster`` (started once): tasks and results are pickled."""
    pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster


@pytest.mark.parametrize("case", DASK_CONFIGURATIONS, ids=_id)
def test_a_dask_stream_on_a_two_process_cluster_fits_the_in_memory_model(
    case, small_blocks, process_cluster
):
    from distributed import Client

    # 777-report partitions and blocks of a few hundred reports: blocks span
    # two partitions, whose workers each compute their piece.
    est, reports, X = _setup(case)
    est.set_params(max_iter=4)  # each pass is a round trip to the workers
    tampered = _with_a_nan_report(reports, 1000)
    whole = _fit(est, tampered)
    stream = stream_reports(tampered, chunk_size=777, backend="dask")
    with Client(process_cluster):  # the client is active in this test only
        on_cluster = _fit(est, stream)
    assert whole.n_reports_rejected_ == on_cluster.n_reports_rejected_ == 1
    _assert_same_model(whole, on_cluster, X)


#: Partition loads in this process (the driver), outside any Dask task.
_DRIVER_LOADS = []


class _WorkerStream(ReportStream):
    """A Dask stream whose loads on the driver are counted (or refused)."""

    def __init__(self, reports, chunk_size, *, refuse_driver):
        super().__init__(reports.config, backend="dask")
        self.reports, self.chunk_size = reports, chunk_size
        self.refuse_driver = refuse_driver

    def partitions(self):
        n, size = len(self.reports), self.chunk_size
        return [
            Partition(
                start,
                min(size, n - start),
                _LoadOnWorker(self.reports, start, size, self.refuse_driver),
            )
            for start in range(0, n, size)
        ]


class _LoadOnWorker(_Rows):
    def __init__(self, reports, start, size, refuse_driver):
        super().__init__(reports, start, size)
        self.refuse_driver = refuse_driver

    def __call__(self):
        from distributed import get_worker

        try:
            get_worker()  # only inside a task on a worker
        except ValueError:
            if self.refuse_driver:
                raise AssertionError("a partition was loaded on the driver") from None
            _DRIVER_LOADS.append(self.start)
        return super().__call__()


@pytest.fixture
def thread_cluster():
    """A two-worker ``LocalCluster`` in this process (loads can be counted here)."""
    pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    _DRIVER_LOADS.clear()
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _task_counts(task_stream):
    counts = {}
    for task in task_stream.data:
        name = task["key"].split("-")[0]
        counts[name] = counts.get(name, 0) + 1
    return counts


@pytest.mark.parametrize(
    "case",
    [
        (GLMLDPClassifier, dict(degree=2, selection=None), 2),
        (HingeLDPClassifier, dict(degree=3, selection=None), 2),
    ],
    ids=_id,
)
def test_the_passes_of_gradient_descent_run_on_the_workers(
    case, small_blocks, thread_cluster
):
    from distributed import get_task_stream

    est, reports, X = _setup(case)
    tampered = _with_a_nan_report(reports, 1000)
    # Every load outside a worker's task raises: the fit reads nothing on
    # the driver.
    stream = _WorkerStream(tampered, 777, refuse_driver=True)
    n_partitions = len(stream.partitions())
    with get_task_stream(thread_cluster) as tasks:
        on_workers = _fit(est, stream)
    _assert_same_model(_fit(est, tampered), on_workers, X)
    assert on_workers.n_reports_rejected_ == 1
    # One validating pass, then one pass of sums per iteration, every
    # partition on a worker.
    assert _task_counts(tasks) == {
        "_aggregate_partition": n_partitions,
        "_partition_sums": n_partitions * on_workers.n_iter_,
    }


def test_sigm_reads_its_mini_batches_on_the_driver(small_blocks, thread_cluster):
    from distributed import get_task_stream

    case = (HingeLDPClassifier, dict(degree=2, solver="sigm", selection=None), 2)
    est, reports, X = _setup(case)
    stream = _WorkerStream(reports, 777, refuse_driver=False)
    n_partitions = len(stream.partitions())
    with get_task_stream(thread_cluster) as tasks:
        fitted = _fit(est, stream)
    _assert_same_model(_fit(est, reports), fitted, X)
    # The pilot point and its second moment on the workers; SIGM's one
    # sequential pass loads every partition on the driver, in order.
    assert _task_counts(tasks) == {
        "_aggregate_partition": n_partitions,
        "_partition_sums": 2 * n_partitions,
    }
    assert _DRIVER_LOADS == [part.start for part in stream.partitions()]


def test_dask_without_a_client_fits_the_in_memory_model_and_shows_each_pass(
    small_blocks, capsys, monkeypatch
):
    import builtins

    pytest.importorskip("dask")
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError("no tqdm")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)  # plain log lines
    est, reports, X = _setup((GLMLDPClassifier, dict(degree=2, selection=None), 2))
    est.set_params(max_iter=3)
    stream = stream_reports(reports, chunk_size=777, backend="dask")
    local = clone(est).fit_reports(stream, verbose=True)
    _assert_same_model(_fit(est, reports), local, X)
    # The validating pass, then one per iteration, each over 4 partitions
    # (Dask's local scheduler returns them all at once).
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [
        f"[GLMLDPClassifier{name} (dask)] 4/4 partitions (100%)"
        for name in ["", *(f" pass {k}" for k in range(2, 2 + local.n_iter_))]
    ]


class _ChangingRows(_Rows):
    """Rows that gain an invalid report after the first load."""

    def __init__(self, reports, start, size):
        super().__init__(reports, start, size)
        self.n_loads = 0

    def __call__(self):
        self.n_loads += 1
        rows = super().__call__()
        return rows if self.n_loads == 1 else _with_a_nan_report(rows, 0)


def test_a_partition_that_changes_between_passes_is_refused(small_blocks):
    pytest.importorskip("dask")
    est, reports, _ = _setup((GLMLDPClassifier, dict(degree=2, selection=None), 2))
    stream = ReportStream(reports.config, backend="dask")
    parts = [Partition(0, N, _ChangingRows(reports, 0, N))]
    stream.partitions = lambda: parts
    with pytest.raises(ValueError, match="changed between passes: it had 3000"):
        _fit(est, stream)
