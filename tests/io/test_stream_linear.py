"""The one-pass servers of GLMLDPClassifier and HingeLDPClassifier (issue 19).

Their default configuration (one joint report per user, degree 1,
``solver='gd'``) is a function of per-fold sums of ``[z, 1][z, 1]^T``,
``[z, 1] t^T`` and ``t t^T``, the report at stream position ``p`` in fold
``p mod 5``: however the same reports arrive (whole, as a stream cut
anywhere, as a list of batches, as Dask partitions, or simulated batch by
batch by ``partial_fit``) the model is the same to the order of
floating-point sums (rtol 1e-10). Other configurations keep every report in
memory and still fit from a stream.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.base import clone

import sklearn_ldp.randomizers._gaussian as gaussian_module
import sklearn_ldp.randomizers._privunit as privunit_module
from sklearn_ldp import GLMLDPClassifier, HingeLDPClassifier
from sklearn_ldp.aggregation import FoldedMoments
from sklearn_ldp.aggregation._sufficient import FoldedGramSums
from sklearn_ldp.exceptions import InvalidReportWarning
from sklearn_ldp.io import stream_reports
from sklearn_ldp.randomizers import Reports
from tests.conftest import assert_same, fitted_state

N, D = 6000, 5
RTOL = 1e-10

CASES = [
    (GLMLDPClassifier, dict(epsilon=4.0), 2),
    (GLMLDPClassifier, dict(epsilon=4.0), 3),
    (GLMLDPClassifier, dict(epsilon=4.0, selection=None, data_norm=2.0), 3),
    (GLMLDPClassifier, dict(epsilon=4.0, loss="hinge", fit_intercept=False), 2),
    (GLMLDPClassifier, dict(epsilon=4.0, approximation="bernstein", alpha=0.1), 4),
    (HingeLDPClassifier, dict(epsilon=4.0), 2),
    (HingeLDPClassifier, dict(epsilon=4.0, data_norm=2.0, fit_intercept=False), 2),
]


def _case_id(case):
    cls, params, n_classes = case
    return "-".join(
        [cls.__name__, f"{n_classes}classes", *(f"{k}={v}" for k, v in params.items())]
    )


def _data(n_classes, n=N, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(n, D)) / np.sqrt(D)
    score = X[:, 0] + 0.5 * X[:, 1] + 0.2 * rng.randn(n)
    edges = np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])
    return X, np.digitize(score, edges)


def _reports(est, X, y, seed=1):
    randomizer = est.make_randomizer(
        X.shape[1], n_users=X.shape[0], classes=np.unique(y)
    )
    return randomizer.randomize(X, y, random_state=seed)


def _fit(est, reports):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvalidReportWarning)
        return clone(est).fit_reports(reports)


def _assert_same_model(a, b, X, exclude=()):
    assert_same(fitted_state(a, exclude), fitted_state(b, exclude), "model", rtol=RTOL)
    np.testing.assert_allclose(
        b.decision_function(X), a.decision_function(X), rtol=RTOL, atol=1e-12
    )
    np.testing.assert_array_equal(b.predict(X), a.predict(X))


def _with_nan_rows(reports, rows):
    features = reports["x"].copy()
    features[rows, 0] = np.nan
    return Reports({**reports.fields, "x": features}, reports.config)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_stream_and_batches_fit_the_in_memory_model(case):
    cls, params, n_classes = case
    est = cls(random_state=0, **params)
    X, y = _data(n_classes)
    reports = _reports(est, X, y)
    assert est._server_aggregate(reports.config) is not None
    whole = _fit(est, reports)
    streamed = _fit(est, stream_reports(reports, chunk_size=777))
    batched = _fit(
        est, [reports.subset(slice(0, 1000)), reports.subset(slice(1000, N))]
    )
    for model in (streamed, batched):
        _assert_same_model(whole, model, X)


@pytest.mark.parametrize("case", CASES[:2] + CASES[5:6], ids=_case_id)
def test_invalid_reports_leave_the_model_of_the_valid_ones(case):
    cls, params, n_classes = case
    est = cls(random_state=0, **params)
    X, y = _data(n_classes)
    reports = _reports(est, X, y)
    bad = [3, 1500, N - 1]
    tampered = _with_nan_rows(reports, bad)
    honest = _fit(est, reports.subset(np.setdiff1d(np.arange(N), bad)))
    with pytest.warns(InvalidReportWarning):
        whole = clone(est).fit_reports(tampered)
    streamed = _fit(est, stream_reports(tampered, chunk_size=1000))
    for model in (whole, streamed):
        assert model.n_reports_rejected_ == 3
        _assert_same_model(honest, model, X, exclude=("n_reports_rejected_",))


def test_fit_is_fit_reports_of_the_simulated_reports():
    est = GLMLDPClassifier(epsilon=4.0, random_state=0)
    X, y = _data(3)
    fitted = clone(est).fit(X, y)
    # fit draws the users' noise from random_state: the same reports.
    reports = _reports(est, X, y, seed=0)
    served = _fit(est, reports)
    exclude = ("n_features_in_", "clipped_fraction_", "clipping_")
    _assert_same_model(fitted, served, X, exclude=exclude)


def _chunks_of(size):
    return lambda *args, **kwargs: size


@pytest.mark.parametrize("case", [CASES[0], CASES[1], CASES[5]], ids=_case_id)
def test_partial_fit_over_three_batches_is_fit_reports_of_their_reports(
    case, monkeypatch
):
    # Batches of whole chunks (256 users): partial_fit's users draw the
    # noise of one randomize call on the concatenation, the same reports
    # added at the same stream positions.
    monkeypatch.setattr(gaussian_module, "chunk_rows", _chunks_of(256))
    monkeypatch.setattr(privunit_module, "chunk_rows", _chunks_of(256))
    cls, params, n_classes = case
    est = cls(random_state=0, **params)
    X, y = _data(n_classes, n=1536)
    classes = np.unique(y)
    batches = [slice(0, 512), slice(512, 1280), slice(1280, 1536)]
    batched = clone(est)
    for rows in batches:
        batched.partial_fit(X[rows], y[rows], classes=classes)
    assert batched.n_samples_seen_ == 1536
    randomizer = est.make_randomizer(D, n_users=512, classes=classes)
    assert randomizer.chunk_size == 256
    reports = randomizer.randomize(X, y, random_state=0)
    served = _fit(est, [reports.subset(rows) for rows in batches])
    _assert_same_model(
        served, batched, X, exclude=("n_features_in_", "n_samples_seen_")
    )


@pytest.mark.parametrize(
    "cls, params",
    [
        (GLMLDPClassifier, dict(degree=2)),
        (GLMLDPClassifier, dict(degree="auto")),
        (GLMLDPClassifier, dict(solver="sigm")),
        (GLMLDPClassifier, dict(approximation="smoothed_quantile")),
        (GLMLDPClassifier, dict(calibration="paper")),
        (HingeLDPClassifier, dict(degree=2)),
        (HingeLDPClassifier, dict(calibration="paper")),
    ],
)
def test_oracle_configurations_fit_a_stream_in_several_passes(cls, params):
    # Multi-pass servers (tests/io/test_stream_multipass.py): not one pass,
    # so no batches for partial_fit.
    est = cls(random_state=0, epsilon=8.0, max_iter=20, **params)
    X, y = _data(2, n=3000)
    reports = _reports(est, X, y)
    assert est._server_aggregate(reports.config) is None
    assert est._server_passes(reports.config) is not None
    whole = _fit(est, reports)
    streamed = _fit(est, stream_reports(reports, chunk_size=777))
    _assert_same_model(whole, streamed, X)
    with pytest.raises(ValueError, match="cannot add a batch without keeping"):
        clone(est).partial_fit(X, y, classes=[0, 1])


def test_aggregates_merge_and_shift_to_the_aggregate_of_all():
    rng = np.random.RandomState(0)
    Z, T = rng.randn(1000, 3), rng.randn(1000, 2)
    whole = FoldedGramSums(5, 3, 2)
    whole.add(Z, T, np.arange(1000))
    # Two partitions numbered from 0, the second shifted to where it starts.
    first, second = FoldedGramSums(5, 3, 2), FoldedGramSums(5, 3, 2)
    first.add(Z[:333], T[:333], np.arange(333))
    second.add(Z[333:], T[333:], np.arange(667))
    second.shift_positions(333)
    merged = first.merge(second)
    np.testing.assert_allclose(merged.grams, whole.grams, rtol=RTOL)
    np.testing.assert_array_equal(merged.counts, whole.counts)
    # The folds are positions mod 5, and the sums those of the rows [z, 1, t].
    rows = np.column_stack([Z, np.ones(1000), T])
    for k in range(5):
        fold = rows[k::5]
        np.testing.assert_allclose(whole.grams[k], fold.T @ fold, rtol=RTOL)
    # The same sums give FoldedMoments of the in-memory positional folds.
    folded = FoldedMoments(Z, T, sigma_x=0.5, sigma_t=[1.0, 2.0])
    streamed = FoldedMoments.from_grams(
        whole.grams, whole.counts, n_outputs=2, sigma_x=0.5, sigma_t=[1.0, 2.0]
    )
    for name in ("zz", "zt", "tt", "counts", "sigma_t"):
        np.testing.assert_allclose(getattr(streamed, name), getattr(folded, name))
    np.testing.assert_array_equal(folded.fold_of, np.arange(1000) % 5)
    with pytest.raises(ValueError, match="Cannot merge"):
        whole.merge(FoldedGramSums(4, 3, 2))


def test_transformed_grams_are_the_grams_of_the_mapped_rows():
    rng = np.random.RandomState(1)
    Z, T = rng.randn(50, 2), rng.randn(50, 3)
    sums = FoldedGramSums(2, 2, 3)
    sums.add(Z, T, np.arange(50))
    mapped = np.column_stack([Z / 4.0, np.ones(50), 2.0 * T - 1.0])
    expected = [mapped[k::2].T @ mapped[k::2] for k in range(2)]
    np.testing.assert_allclose(
        sums.transformed_grams(feature_scale=4.0, target_scale=2.0, target_shift=-1.0),
        expected,
        rtol=RTOL,
    )


def test_a_streamed_fit_holds_one_chunk_at_a_time():
    # 40 chunks of 2,500 users from a generator: the reports of all users
    # (about 15 MB with 20 features and 10 classes) are never held; the peak
    # is a few chunks plus the O(n_folds (d + k)^2) sums.
    est = GLMLDPClassifier(epsilon=4.0, delta=1e-7, random_state=0)
    d, n_classes = 20, 10
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(2500, d)) / np.sqrt(d)
    y = rng.randint(n_classes, size=2500)
    randomizer = est.make_randomizer(d, n_users=100_000, classes=np.arange(n_classes))
    chunk_bytes = randomizer.randomize(X, y, random_state=0).as_matrix().nbytes
    total_bytes = 40 * chunk_bytes

    def chunks():
        for seed in range(40):
            yield randomizer.randomize(X, y, random_state=seed)

    clone(est).fit_reports(chunks())  # warm the sampler's cached tables
    tracemalloc.start()
    try:
        clone(est).fit_reports(chunks())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < total_bytes / 4, (peak, chunk_bytes)


@pytest.mark.parametrize("case", [CASES[1], CASES[5]], ids=_case_id)
def test_dask_fits_the_single_process_model(case):
    pytest.importorskip("dask")
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    cls, params, n_classes = case
    est = cls(random_state=0, **params)
    X, y = _data(n_classes, n=20_000)
    reports = _with_nan_rows(_reports(est, X, y), [5, 12_345])
    whole = _fit(est, reports)
    local = _fit(est, stream_reports(reports, chunk_size=4999, backend="dask"))
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        on_cluster = _fit(est, stream_reports(reports, chunk_size=4999, backend="dask"))
    for model in (local, on_cluster):
        assert model.n_reports_rejected_ == whole.n_reports_rejected_ == 2
        _assert_same_model(whole, model, X)
