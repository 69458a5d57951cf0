"""Every LDP estimator fits the same model from a report stream as from its reports.

Issue 19's contract, parametrized over every public LDP estimator
(``fit_reports`` exists): the reports whole, cut into a stream of 777-user
chunks, as a list of two batches, and on Dask (the local scheduler and a
two-worker ``LocalCluster``) give the same fitted attributes, to the order
of floating-point sums; a one-pass server's ``partial_fit`` exists, the
others' does not.
"""

import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone

import sklearn_ldp
from sklearn_ldp.io import stream_reports
from sklearn_ldp.randomizers import Reports
from tests.test_edge_cases import _data, _estimator

LDP_ESTIMATORS = [
    getattr(sklearn_ldp, name)
    for name in sklearn_ldp.__all__
    if inspect.isclass(getattr(sklearn_ldp, name))
    and issubclass(getattr(sklearn_ldp, name), BaseEstimator)
    and hasattr(getattr(sklearn_ldp, name), "fit_reports")
]
N = 3000


def _reports(cls):
    est = _estimator(cls)
    X, y = _data(cls, n=N, seed=1)
    classes = np.unique(y) if issubclass(cls, ClassifierMixin) else None
    randomizer = est.make_randomizer(X.shape[1], n_users=N, classes=classes)
    return est, randomizer.randomize(X, y, random_state=2), X


def _fitted(est):
    """Every fitted attribute (``name_``) that holds numbers."""
    out = {}
    for name, value in vars(est).items():
        if not name.endswith("_") or name.startswith("_"):
            continue
        try:
            array = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            continue
        out[name] = array
    return out


def _assert_same_model(a, b, X, ignore=()):
    fa, fb = _fitted(a), _fitted(b)
    assert fa.keys() == fb.keys()
    for name in set(fa) - set(ignore):
        np.testing.assert_allclose(fb[name], fa[name], rtol=1e-9, atol=1e-12, err_msg=name)
    for method in ("predict", "predict_proba", "score_samples", "transform"):
        if hasattr(a, method):
            np.testing.assert_allclose(
                getattr(b, method)(X), getattr(a, method)(X), rtol=1e-9, atol=1e-12
            )


def _fit(est, reports):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clone(est).fit_reports(reports)


@pytest.mark.parametrize("cls", LDP_ESTIMATORS, ids=lambda c: c.__name__)
def test_streamed_and_batched_fits_equal_the_in_memory_fit(cls):
    est, reports, X = _reports(cls)
    whole = _fit(est, reports)
    streamed = _fit(est, stream_reports(reports, chunk_size=777))
    batched = _fit(est, [reports.subset(slice(0, 1000)), reports.subset(slice(1000, None))])
    _assert_same_model(whole, streamed, X)
    _assert_same_model(whole, batched, X)


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        yield client


def _with_a_nan_row(reports, row):
    """``reports`` with one NaN (invalid for every randomizer) in report ``row``."""
    name = next(iter(reports.fields))
    values = reports[name].astype(np.float64)
    values[row] = np.nan
    return Reports({**reports.fields, name: values}, reports.config)


@pytest.mark.parametrize("cls", LDP_ESTIMATORS, ids=lambda c: c.__name__)
def test_the_dask_path_equals_the_single_process_fit(cls, dask_client):
    est, reports, X = _reports(cls)
    # Partitions of 777 reports (not a multiple of any fold count) and an
    # invalid report in the second: every partition's positions are shifted.
    tampered = _with_a_nan_row(reports, 1000)
    whole = _fit(est, tampered)
    assert whole.n_reports_rejected_ == 1
    on_cluster = _fit(est, stream_reports(tampered, chunk_size=777, backend="dask"))
    _assert_same_model(whole, on_cluster, X)
    streamed = _fit(est, stream_reports(tampered, chunk_size=777))
    _assert_same_model(whole, streamed, X)
    # The invalid report does not move the model of the valid ones.
    honest = _fit(est, reports.subset(np.setdiff1d(np.arange(N), [1000])))
    _assert_same_model(honest, whole, X, ignore=("n_reports_rejected_",))


@pytest.mark.parametrize("cls", LDP_ESTIMATORS, ids=lambda c: c.__name__)
def test_partial_fit_exactly_where_the_server_is_one_pass(cls):
    est = _estimator(cls)
    base = sklearn_ldp._base.LDPEstimatorMixin
    one_pass = type(est)._server_aggregate is not base._server_aggregate
    assert hasattr(est, "partial_fit") or not one_pass
    doc = inspect.getdoc(cls)
    # The estimator page says how its server reads a stream.
    assert "Streaming: the server" in doc, cls.__name__
    assert ("one pass" in doc) == one_pass or "is not one pass" in doc, cls.__name__


#: Estimators whose default configuration has a one-pass server (issue 19;
#: their other configurations read a stream in several passes).
ONE_PASS_BY_DEFAULT = ("GLMLDPClassifier", "HingeLDPClassifier")


@pytest.mark.parametrize("name", ONE_PASS_BY_DEFAULT)
def test_the_default_configuration_streams_and_partial_fits(name):
    cls = getattr(sklearn_ldp, name)
    est, reports, X = _reports(cls)
    assert est._server_aggregate(reports.config) is not None
    y = _data(cls, n=N, seed=1)[1]
    batched = clone(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rows in (slice(0, 1000), slice(1000, N)):
            batched.partial_fit(X[rows], y[rows], classes=np.unique(y))
    assert batched.n_samples_seen_ == N
    assert np.all(np.isfinite(batched.decision_function(X)))
