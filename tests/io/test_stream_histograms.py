"""One-pass servers of the histogram-type estimators (issue 19).

``FrequencyLDP`` (support counts), ``KWayMarginalsLDP`` and
``KernelDensityLDP`` (per-coordinate sums of LDP-AVG) and
``LocalBernsteinRegressor`` (per fold and group: counts, sums and sums of
squares): for each mechanism and post-processing, the reports whole, cut
into a stream of 777-user chunks, as two batches and on Dask give the same
model to the order of floating-point sums (rtol 1e-10); invalid rows are
dropped and counted; ``partial_fit`` over three batches is ``fit_reports``
of the three batches' reports.
"""

import warnings
from itertools import combinations

import numpy as np
import pytest
from sklearn.base import clone

from sklearn_ldp import (
    FrequencyLDP,
    KernelDensityLDP,
    KWayMarginalsLDP,
    LocalBernsteinRegressor,
)
from sklearn_ldp._base import _valid_rows
from sklearn_ldp.aggregation import (
    BernsteinReportSums,
    FrequencySupportCounts,
    VectorMeanSums,
)
from sklearn_ldp.exceptions import InvalidReportWarning
from sklearn_ldp.io import stream_reports
from sklearn_ldp.randomizers import Reports
from sklearn_ldp.randomizers._sampling import check_client_random_state
from tests.conftest import assert_same, fitted_state

RTOL = 1e-10
N = 6000

FREQUENCY = [
    FrequencyLDP(categories=5, mechanism=mechanism, postprocess=postprocess)
    for mechanism in (
        "randomized_response",
        "hadamard_response",
        "local_hashing",
        "subset_selection",
        "unary_encoding",
    )
    for postprocess in ("simplex", "ibu", "none")
] + [FrequencyLDP(categories=[1.0, 2.5, 4.0], unknown="error", postprocess="ibu")]
MARGINALS = [
    KWayMarginalsLDP(epsilon=2.0, k=2, method="hadamard"),
    KWayMarginalsLDP(epsilon=2.0, k=3, method="chebyshev", mechanism="piecewise"),
    KWayMarginalsLDP(epsilon=2.0, k=2, method="chebyshev", mechanism="duchi"),
    KWayMarginalsLDP(epsilon=2.0, k=2, method="chebyshev", mechanism="laplace"),
    KWayMarginalsLDP(epsilon=4.0, k=2, method="chebyshev", mechanism="full_vector"),
    KWayMarginalsLDP(k=2, method="chebyshev", coefficients="monomial", projection=None),
    KWayMarginalsLDP(epsilon=2.0, k=2),
]
KDE = [
    KernelDensityLDP(epsilon=2.0, bandwidth=0.3, degree=5, mechanism=mechanism)
    for mechanism in ("piecewise", "duchi", "laplace", "full_vector")
] + [KernelDensityLDP(epsilon=2.0, bandwidth="scott")]
BERNSTEIN = [
    LocalBernsteinRegressor(epsilon=2.0),  # auto: the moments protocol
    LocalBernsteinRegressor(epsilon=2.0, mechanism="piecewise", degree=3),
    LocalBernsteinRegressor(epsilon=2.0, mechanism="duchi", model_selection="none"),
    LocalBernsteinRegressor(epsilon=2.0, mechanism="laplace", degree=2, loss="huber"),
    LocalBernsteinRegressor(epsilon=1.0, mechanism="bassily_smith", degree=2),
    LocalBernsteinRegressor(epsilon=2.0, mechanism="genprot", degree=2),
    LocalBernsteinRegressor(
        epsilon=2.0, mechanism="genprot", calibration="paper", degree=2
    ),
    LocalBernsteinRegressor(epsilon=4.0, mechanism="full_grid", degree=2),
    LocalBernsteinRegressor(
        epsilon=2.0, mechanism="piecewise", degree=2, fit_intercept=False,
        loss="absolute",
    ),
]
ALL = FREQUENCY + MARGINALS + KDE + BERNSTEIN


def _label(est):
    params = est.get_params()
    keys = ("method", "mechanism", "postprocess", "calibration", "loss", "coefficients")
    shown = [str(params[key]) for key in keys if key in params and params[key] != "auto"]
    return "-".join([type(est).__name__, *shown])


def _data(est, n, seed=0):
    rng = np.random.default_rng(seed)
    if isinstance(est, FrequencyLDP):
        categories = np.atleast_1d(est.categories)
        if categories.size == 1:
            # Value 5 lies outside categories=5: the 'other' cell.
            return rng.choice(6, size=(n, 2), p=[0.3, 0.2, 0.2, 0.1, 0.1, 0.1]), None
        return rng.choice(categories, size=(n, 1)), None
    if isinstance(est, KWayMarginalsLDP):
        return (rng.uniform(size=(n, 5)) < [0.1, 0.3, 0.5, 0.7, 0.9]).astype(float), None
    if isinstance(est, KernelDensityLDP):
        return np.clip(rng.normal(0.0, 0.4, size=(n, 2)), -1, 1), None
    X = rng.uniform(-1, 1, size=(n, 1))
    y = np.clip(0.5 * X[:, 0] + 0.1 + 0.1 * rng.standard_normal(n), -1, 1)
    return X, y


def _reports(est, n=N, seed=0):
    X, y = _data(est, n, seed)
    randomizer = est.make_randomizer(X.shape[1], n_users=n)
    return randomizer.randomize(X, y, random_state=1), X, y


def _fit(est, reports):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few users per cell, large delta...
        return clone(est).fit_reports(reports)


def _outputs(est, X, y):
    """What the model answers: frequencies, tables, densities, predictions, scores."""
    if isinstance(est, FrequencyLDP):
        return {"score": est.score(X)}
    if isinstance(est, KWayMarginalsLDP):
        p = est.n_features_in_
        return {
            "pairs": est.marginal_tables(np.array(list(combinations(range(p), 2)))),
            "disjunction": est.disjunction([0, 1]),
            "score": est.score(X),
        }
    if isinstance(est, KernelDensityLDP):
        grid = np.stack(np.meshgrid(*[np.linspace(-1, 1, 7)] * 2), -1).reshape(-1, 2)
        return {
            "density": est.density(grid),
            "score": est.score(X),
            "query": est.query(lambda points: points[:, 0] ** 2),
        }
    grid = np.linspace(-1, 1, 11)[:, None]
    q = 1 + est.fit_intercept
    coefs = np.stack(np.meshgrid(*[np.linspace(-0.9, 0.9, 5)] * q), -1).reshape(-1, q)
    return {
        "predict": est.predict(grid),
        "score": est.score(X, y),
        "private_risk": est.private_risk(coefs),
    }


def assert_same_model(a, b, X, y, *, exclude=()):
    assert_same(fitted_state(a, exclude), fitted_state(b, exclude), "model", rtol=RTOL)
    assert_same(_outputs(a, X, y), _outputs(b, X, y), "outputs", rtol=RTOL)


@pytest.mark.parametrize("est", ALL, ids=_label)
def test_a_stream_and_batches_fit_the_in_memory_model(est):
    reports, X, y = _reports(est)
    whole = _fit(est, reports)
    streamed = _fit(est, stream_reports(reports, chunk_size=777))
    k = 2500
    batched = _fit(est, [reports.subset(slice(0, k)), reports.subset(slice(k, None))])
    for model in (streamed, batched):
        assert_same_model(whole, model, X, y)
        assert model.n_reports_rejected_ == 0


@pytest.mark.parametrize("est", ALL, ids=_label)
def test_fit_runs_through_the_aggregate(est):
    """``fit`` is ``fit_reports`` of the simulated reports: one server."""
    X, y = _data(est, N)
    est = clone(est).set_params(random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = clone(est).fit(X, y)
        randomizer = est.make_randomizer(X.shape[1], n_users=N)
        reports = randomizer.randomize(X, y, random_state=3)
        served = clone(est).fit_reports(stream_reports(reports, chunk_size=1000))
    exclude = ("feature_names_in_", "clipped_fraction_", "clipping_")
    assert_same_model(fitted, served, X, y, exclude=exclude)
    assert "_fit_server" not in vars(type(est))


def _tamper(reports, rows):
    """Row ``rows[0]`` not finite in the first field, ``rows[1]`` out of range in the last."""
    fields = {name: np.array(values, dtype=float) for name, values in reports.fields.items()}
    first, last = list(fields)[0], list(fields)[-1]
    fields[first][rows[0]] = np.nan
    fields[last][rows[1]] = 1e9
    return Reports(fields, reports.config)


@pytest.mark.parametrize("est", ALL, ids=_label)
def test_invalid_rows_are_dropped_and_counted(est):
    reports, X, y = _reports(est)
    bad = [17, 4000]
    tampered = _tamper(reports, bad)
    keep = np.setdiff1d(np.arange(len(reports)), bad)
    with pytest.warns(InvalidReportWarning, match="2 of 6000 reports rejected"):
        streamed = clone(est).fit_reports(stream_reports(tampered, chunk_size=777))
    assert streamed.n_reports_rejected_ == 2
    with pytest.warns(InvalidReportWarning):
        whole = clone(est).fit_reports(tampered)
    assert_same_model(whole, streamed, X, y)
    # The model of the valid reports alone (positions number the valid
    # reports: the Bernstein folds do not see where the invalid ones sat).
    honest = _fit(est, reports.subset(keep))
    assert_same_model(honest, streamed, X, y, exclude=("n_reports_rejected_",))
    # The aggregate is the valid reports', numbered in stream order.
    config = reports.config
    expected = est._server_aggregate(config)
    expected.update(reports.subset(keep), np.arange(len(keep)))
    received = est._server_aggregate(config)
    randomizer = est._expected_randomizer(reports)
    n_valid = 0
    for chunk in stream_reports(tampered, chunk_size=777):
        # As the base class does: validate, then add the valid rows.
        valid, kept, _ = _valid_rows(randomizer, chunk)
        received.update(valid, n_valid + np.arange(len(kept)))
        n_valid += len(kept)
    assert_same(_state(received), _state(expected), "aggregate", rtol=RTOL)


def _state(aggregate):
    return {k: v for k, v in vars(aggregate).items() if k != "randomizer"}


@pytest.mark.parametrize("est", ALL, ids=_label)
def test_partial_fit_over_three_batches_is_fit_reports_of_their_reports(est):
    X, y = _data(est, N, seed=4)
    est = clone(est).set_params(random_state=5)
    batches = [slice(0, 1500), slice(1500, 4000), slice(4000, None)]
    incremental = clone(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rows in batches:
            incremental.partial_fit(X[rows], None if y is None else y[rows])
        # The same users with the same noise source, as reports.
        noise = check_client_random_state(5)
        randomizer = est.make_randomizer(X.shape[1], n_users=1500)
        reports = [
            randomizer.randomize(X[rows], None if y is None else y[rows], random_state=noise)
            for rows in batches
        ]
        served = clone(est).fit_reports(reports)
    assert incremental.n_samples_seen_ == N
    exclude = ("feature_names_in_",)
    assert_same_model(incremental, served, X, y, exclude=exclude)
    aggregate = est._server_aggregate(reports[0].config)
    for start, batch in zip((0, 1500, 4000), reports, strict=True):
        aggregate.update(batch, start + np.arange(len(batch)))
    assert_same(
        _state(incremental._partial_state.aggregate), _state(aggregate), "aggregate",
        rtol=RTOL,
    )


def test_partial_fit_then_fit_reports_forgets_the_batches():
    est = FrequencyLDP(categories=5, random_state=0)
    X, _ = _data(est, 2000)
    reports, _, _ = _reports(est, n=3000)
    model = clone(est).partial_fit(X).fit_reports(reports)
    assert not hasattr(model, "_partial_state")
    assert_same_model(model, _fit(est, reports), X, None)


def test_the_bernstein_folds_follow_stream_positions():
    """Fold ``i mod 5`` for the report at position ``i``, however the stream is cut."""
    est = LocalBernsteinRegressor(epsilon=2.0, mechanism="piecewise", degree=2)
    reports, _, _ = _reports(est, n=1003)
    aggregate = est._server_aggregate(reports.config)
    aggregate.update(reports, np.arange(1003))
    assert aggregate.counts.sum(axis=1).tolist() == [201, 201, 201, 200, 200]
    groups = np.asarray(reports["group"])
    for fold in range(5):
        np.testing.assert_array_equal(
            aggregate.counts[fold], np.bincount(groups[fold::5], minlength=9)
        )


def test_aggregates_are_the_documented_sums():
    """Each aggregate is a sum over reports: two halves merged equal the whole."""
    for est, kind in (
        (FrequencyLDP(categories=5, mechanism="local_hashing"), FrequencySupportCounts),
        (KWayMarginalsLDP(k=2, method="hadamard"), VectorMeanSums),
        (KernelDensityLDP(degree=4, mechanism="full_vector"), VectorMeanSums),
        (LocalBernsteinRegressor(mechanism="full_grid", degree=2), BernsteinReportSums),
    ):
        reports, _, _ = _reports(est, n=2000)
        whole = est._server_aggregate(reports.config)
        assert isinstance(whole, kind)
        whole.update(reports, np.arange(2000))
        first = est._server_aggregate(reports.config)
        first.update(reports.subset(slice(0, 700)), np.arange(700))
        second = est._server_aggregate(reports.config)
        second.update(reports.subset(slice(700, None)), np.arange(700, 2000))
        assert_same(_state(first.merge(second)), _state(whole), kind.__name__, rtol=RTOL)


# The Dask path: a few configurations per estimator (a cluster costs seconds).
DASK = [
    FrequencyLDP(categories=5, mechanism="local_hashing", postprocess="ibu"),
    FrequencyLDP(categories=5, mechanism="hadamard_response"),
    KWayMarginalsLDP(epsilon=2.0, k=2, method="hadamard"),
    KWayMarginalsLDP(epsilon=2.0, k=3, method="chebyshev"),
    KernelDensityLDP(epsilon=2.0, bandwidth=0.3, degree=5),
    LocalBernsteinRegressor(epsilon=2.0),
    LocalBernsteinRegressor(epsilon=2.0, mechanism="genprot", degree=2),
    LocalBernsteinRegressor(epsilon=4.0, mechanism="full_grid", degree=2),
]
N_DASK = 12_000


def _dask_cases():
    cases = []
    for est in DASK:
        reports, X, y = _reports(est, n=N_DASK)
        tampered = _tamper(reports, [3, 7000])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            whole = clone(est).fit_reports(tampered)
        cases.append((est, tampered, whole, X, y))
    return cases


def _fit_on_dask(cases):
    for est, tampered, whole, X, y in cases:
        with pytest.warns(InvalidReportWarning, match="2 of 12000"):
            model = clone(est).fit_reports(
                stream_reports(tampered, chunk_size=5000, backend="dask")
            )
        assert model.n_reports_rejected_ == 2
        assert_same_model(whole, model, X, y)


def test_the_dask_local_scheduler_fits_the_single_process_model():
    pytest.importorskip("dask")
    from sklearn_ldp.io._dask import active_client

    assert active_client() is None
    _fit_on_dask(_dask_cases())


def test_a_local_dask_cluster_fits_the_single_process_model():
    pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    cases = _dask_cases()
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster, Client(cluster):
        assert distributed.get_client() is not None
        _fit_on_dask(cases)
