"""Report streams through ``fit_reports``: the base contract, with test doubles.

A one-pass server (``_server_aggregate``) and an in-memory one
(``_fit_server``) fitted on the same reports given whole, as a stream cut
anywhere, as a list of batches, with invalid rows, on Dask; and every
refusal (mixed configurations, a generator read twice, not a stream).
"""

import io
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin, clone

from sklearn_ldp._base import LDPEstimatorMixin, LDPRegressorMixin
from sklearn_ldp.aggregation import SufficientStatistics
from sklearn_ldp.exceptions import InvalidReportWarning
from sklearn_ldp.io import ReportStream, as_report_stream, stream_reports
from sklearn_ldp.io._progress import _LogLines, progress
from sklearn_ldp.randomizers import GaussianRecordRandomizer, Reports


class _Sums:
    """Aggregate of the double: Gram, moment, n, and the positions' checksum."""

    def __init__(self, d):
        self.stats = SufficientStatistics(d)
        self.position_sum = 0

    def update(self, reports, positions):
        self.stats.update(reports["x"], reports["y"])
        self.position_sum += int(np.sum(positions))

    def shift_positions(self, offset):
        self.position_sum += offset * self.stats.n

    def merge(self, other):
        self.stats.gram += other.stats.gram
        self.stats.moment += other.stats.moment
        self.stats.n += other.stats.n
        self.position_sum += other.position_sum
        return self


class _OnePass(LDPRegressorMixin, RegressorMixin, BaseEstimator):
    """Test double: debiased least squares from one pass of sums."""

    _parameter_constraints = {**LDPEstimatorMixin._ldp_parameter_constraints}

    def __init__(self, *, epsilon=2.0, random_state=None):
        self.epsilon = epsilon
        self.random_state = random_state

    def _make_randomizer(self, n_features, n_users, classes):
        return GaussianRecordRandomizer(
            n_features, epsilon=self.epsilon, delta=1e-8, data_norm=1.0, y_bound=1.0
        )

    def _server_aggregate(self, config):
        return _Sums(config["n_features"])

    def _fit_server_aggregate(self, aggregate, config, rng):
        stats = aggregate.stats
        gram = stats.debiased_gram(config["sigma_x"]) / stats.n
        self.coef_ = np.linalg.solve(gram + 1e-3 * np.eye(len(gram)), stats.moment / stats.n)
        self.n_seen_ = stats.n
        self.position_sum_ = aggregate.position_sum

    def predict(self, X):
        return np.asarray(X) @ self.coef_


class _InMemory(_OnePass):
    """Test double: the same server, needing every report at once."""

    def _server_aggregate(self, config):
        return None

    def _fit_server(self, reports, rng):
        aggregate = _Sums(reports.n_features)
        aggregate.update(reports, np.arange(len(reports)))
        self._fit_server_aggregate(aggregate, reports.config, rng)


def _population(n=6000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d)) / np.sqrt(d)
    y = np.clip(X @ np.array([0.5, -0.3, 0.2][:d]), -1, 1)
    return X, y


def _reports(estimator, n=6000, seed=1):
    X, y = _population(n)
    randomizer = estimator.make_randomizer(X.shape[1], n_users=n)
    return randomizer.randomize(X, y, random_state=seed)


@pytest.mark.parametrize("Estimator", [_OnePass, _InMemory])
@pytest.mark.parametrize("chunk_size", [1, 777, 6000, 10**6])
def test_a_stream_cut_anywhere_fits_the_same_model(Estimator, chunk_size):
    est = Estimator(random_state=0)
    reports = _reports(est, n=3000 if chunk_size == 1 else 6000)
    whole = clone(est).fit_reports(reports)
    streamed = clone(est).fit_reports(stream_reports(reports, chunk_size=chunk_size))
    np.testing.assert_allclose(streamed.coef_, whole.coef_, rtol=1e-10)
    assert streamed.n_seen_ == whole.n_seen_ == len(reports)
    assert streamed.n_reports_rejected_ == 0
    assert streamed.privacy_epsilon_ == whole.privacy_epsilon_


@pytest.mark.parametrize("Estimator", [_OnePass, _InMemory])
def test_a_list_of_batches_and_a_generator_are_streams(Estimator):
    est = Estimator(random_state=0)
    reports = _reports(est)
    batches = [reports.subset(slice(0, 1000)), reports.subset(slice(1000, None))]
    whole = clone(est).fit_reports(reports)
    listed = clone(est).fit_reports(batches)
    generated = clone(est).fit_reports(batch for batch in batches)
    for model in (listed, generated):
        np.testing.assert_allclose(model.coef_, whole.coef_, rtol=1e-10)


def test_positions_number_the_valid_reports_of_the_whole_stream():
    est = _OnePass(random_state=0)
    reports = _reports(est, n=5000)
    streamed = clone(est).fit_reports(stream_reports(reports, chunk_size=333))
    assert streamed.position_sum_ == 5000 * 4999 // 2
    x = reports["x"].copy()
    x[[10, 4000]] = np.nan  # dropped: the 4998 others are numbered 0..4997
    tampered = Reports({"x": x, "y": reports["y"]}, reports.config)
    with pytest.warns(InvalidReportWarning):
        streamed = clone(est).fit_reports(stream_reports(tampered, chunk_size=333))
    assert streamed.position_sum_ == 4998 * 4997 // 2


@pytest.mark.parametrize("Estimator", [_OnePass, _InMemory])
def test_invalid_rows_in_any_chunk_are_dropped_and_counted_once(Estimator):
    est = Estimator(random_state=0)
    reports = _reports(est)
    x = reports["x"].copy()
    bad = [5, 2500, 5999]
    x[bad[0], 0] = np.nan
    x[bad[1], 1] = 1e12
    x[bad[2], 2] = x[bad[2], 2] + 0.5 * reports.config["granularity"]  # off the lattice
    tampered = Reports({"x": x, "y": reports["y"]}, reports.config)
    keep = np.setdiff1d(np.arange(len(reports)), bad)
    honest = clone(est).fit_reports(reports.subset(keep))
    with pytest.warns(InvalidReportWarning, match="3 of 6000 reports rejected"):
        streamed = clone(est).fit_reports(stream_reports(tampered, chunk_size=1000))
    assert streamed.n_reports_rejected_ == 3
    np.testing.assert_allclose(streamed.coef_, honest.coef_, rtol=1e-10)


def test_a_stream_that_changes_configuration_is_refused():
    est = _OnePass(random_state=0)
    reports = _reports(est)
    other = _reports(_OnePass(epsilon=3.0), n=100)
    with pytest.raises(ValueError, match="mixes randomizer configurations.*epsilon"):
        clone(est).fit_reports([reports, other])


def test_reports_of_another_configuration_are_refused_before_reading_chunks():
    reports = _reports(_OnePass(epsilon=3.0))
    with pytest.raises(ValueError, match="differs from this estimator's.*epsilon"):
        _OnePass(epsilon=2.0).fit_reports(stream_reports(reports, chunk_size=10))


@pytest.mark.parametrize("bad", [np.zeros((3, 2)), "reports.parquet", {"x": 1}, 3])
def test_what_is_not_a_stream_is_a_clear_error(bad):
    with pytest.raises(TypeError, match="Reports object or a report stream"):
        _OnePass().fit_reports(bad)


def test_an_empty_stream_and_a_stream_of_rejected_reports_are_errors():
    with pytest.raises(ValueError, match="empty"):
        _OnePass().fit_reports([])
    reports = _reports(_OnePass(), n=50)
    x = np.full_like(reports["x"], np.nan)
    with pytest.raises(ValueError, match="No valid report remains"):
        _OnePass().fit_reports(
            stream_reports(Reports({"x": x, "y": reports["y"]}, reports.config), chunk_size=7)
        )


def test_a_generator_is_read_once_and_says_so():
    stream = as_report_stream(iter([_reports(_OnePass(), n=100)]))
    assert len(list(stream)) == 1
    with pytest.raises(ValueError, match="can be read once"):
        list(stream)
    with pytest.raises(TypeError, match="unknown until it is read"):
        len(as_report_stream(iter([_reports(_OnePass(), n=100)])))


def test_streams_pickle_and_partitions_cover_the_reports():
    reports = _reports(_OnePass(), n=1000)
    stream = stream_reports(reports, chunk_size=300)
    assert isinstance(stream, ReportStream)
    parts = stream.partitions()
    assert [p.start for p in parts] == [0, 300, 600, 900]
    assert sum(p.n_reports for p in parts) == len(stream) == 1000
    restored = pickle.loads(pickle.dumps(parts[-1]))
    np.testing.assert_array_equal(restored.load()["x"], reports["x"][900:])


def test_chunk_size_is_checked():
    reports = _reports(_OnePass(), n=10)
    for bad, error in [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError)]:
        with pytest.raises(error, match="chunk_size"):
            stream_reports(reports, chunk_size=bad)
    with pytest.raises(ValueError, match="backend"):
        stream_reports(reports, backend="spark")


def test_partial_fit_adds_batches_to_the_one_pass_server():
    X, y = _population(30000)
    est = _OnePass(epsilon=8.0, random_state=3)
    batched = clone(est)
    for rows in np.array_split(np.arange(30000), 3):
        batched.partial_fit(X[rows], y[rows])
    assert batched.n_samples_seen_ == batched.n_seen_ == 30000
    assert batched.position_sum_ == 30000 * 29999 // 2
    # The aggregate is that of 30,000 honest reports: its debiased Gram is
    # unbiased for X^T X / n, within 5 standard deviations of an entry of
    # (z z^T - sigma^2 I) / n (variance about (sigma^4 + 2 sigma^2 |x|^2) / n).
    state = batched._partial_state
    sigma = state.randomizer.get_config()["sigma_x"]
    gram = state.aggregate.stats.debiased_gram(sigma, project=False) / 30000
    sd = np.sqrt((sigma**4 + 2 * sigma**2) / 30000)
    assert np.all(np.abs(gram - X.T @ X / 30000) < 5 * sd)
    with pytest.raises(ValueError, match="needs a one-pass server"):
        _InMemory().partial_fit(X, y)
    # fit forgets what partial_fit accumulated.
    batched.fit(X[:100], y[:100])
    assert batched.n_seen_ == 100 and not hasattr(batched, "_partial_state")


def test_partial_fit_never_reuses_noise_across_batches():
    X, y = _population(2000)
    a = _OnePass(random_state=5)
    a.partial_fit(X, y)
    gram_once = a._partial_state.aggregate.stats.gram.copy()
    a.partial_fit(X, y)
    gram_twice = a._partial_state.aggregate.stats.gram
    # The same records with the same noise would give exactly twice the Gram.
    assert not np.allclose(gram_twice, 2 * gram_once, rtol=1e-6)


def test_verbose_shows_progress_and_quiet_is_quiet(capsys):
    reports = _reports(_OnePass(), n=1000)
    _OnePass().fit_reports(stream_reports(reports, chunk_size=100))
    assert capsys.readouterr().err == ""
    out = io.StringIO()
    with _LogLines(1000, "demo", out) as bar:
        for _ in range(10):
            bar.update(100)
    lines = out.getvalue().strip().splitlines()
    assert lines[0] == "[demo] 100/1000 reports (10%)"
    assert lines[-1] == "[demo] 1000/1000 reports (100%)"
    assert len(lines) == 10
    with progress(total=10, desc="x", verbose=True) as bar:  # tqdm is a test dependency
        bar.update(10)
    _OnePass().fit_reports(stream_reports(reports, chunk_size=100), verbose=True)
    assert "_OnePass" in capsys.readouterr().err


def test_progress_without_tqdm_falls_back_to_log_lines(monkeypatch, capsys):
    import builtins

    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError("no tqdm")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    reports = _reports(_OnePass(), n=1000)
    _OnePass().fit_reports(stream_reports(reports, chunk_size=250), verbose=True)
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "[_OnePass] 1000/1000 reports (100%)"


def test_dask_local_scheduler_and_a_local_cluster_fit_the_same_model():
    pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    est = _OnePass(random_state=0)
    reports = _reports(est, n=20000)
    x = reports["x"].copy()
    x[123, 0] = np.nan
    tampered = Reports({"x": x, "y": reports["y"]}, reports.config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvalidReportWarning)
        whole = clone(est).fit_reports(tampered)
        local = clone(est).fit_reports(
            stream_reports(tampered, chunk_size=3000, backend="dask")
        )
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster, distributed.Client(cluster):
            clustered = clone(est).fit_reports(
                stream_reports(tampered, chunk_size=3000, backend="dask")
            )
    for model in (local, clustered):
        np.testing.assert_allclose(model.coef_, whole.coef_, rtol=1e-10)
        assert model.n_reports_rejected_ == 1
        assert model.position_sum_ == whole.position_sum_
