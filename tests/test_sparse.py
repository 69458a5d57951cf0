"""SparseLDPRegressor and SparseLDPMeanEstimator.

Their client (a GaussianRecordRandomizer with a RandomProjection) is tested
in tests/randomizers/test_feature_maps.py, the debiased statistics in
tests/aggregation/test_sufficient.py.
"""

import tracemalloc

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import Lasso
from sklearn.utils._param_validation import InvalidParameterError

import sklearn_ldp.randomizers._gaussian as gaussian_module
import sklearn_ldp.randomizers._privunit as privunit_module
from sklearn_ldp import SparseLDPMeanEstimator, SparseLDPRegressor
from sklearn_ldp._sparse import (
    AUTO_LARGER_FACTORS,
    AUTO_RADIUS,
    AUTO_SMALLER_FACTORS,
    HEAVY_RIDGE_FACTORS,
    L1_RIDGE_FACTORS,
    RADIUS_FRACTIONS,
    l1_ball_excess_risk,
)
from sklearn_ldp.aggregation._sufficient import FoldedReportSums
from sklearn_ldp.randomizers import (
    GaussianRecordRandomizer,
    PrivUnitGRecordRandomizer,
    Reports,
    TargetMeanRandomizer,
    feature_map_from_config,
)
from sklearn_ldp.randomizers._target_mean import min_users_for_a_model
from sklearn_ldp.utils import audit_randomizer


def sparse_regression_data(n, d, rng, n_relevant=3):
    """Half of ||x||^2 on ``n_relevant`` features, y = x^T w* + noise, |y| <= 1."""
    s = n_relevant
    relevant = rng.uniform(-1, 1, (n, s)) / np.sqrt(2 * s)
    rest = rng.standard_normal((n, d - s))
    rest *= np.sqrt(0.5) / np.linalg.norm(rest, axis=1, keepdims=True)
    X = np.hstack([relevant, rest])
    w = np.zeros(d)
    w[:s] = 0.5 * np.sqrt(2 * s) / s * (-1.0) ** np.arange(s)
    y = X @ w + rng.uniform(-0.5, 0.5, n)
    return X, y, w


def _patch_chunks(monkeypatch, n_rows):
    """Randomizers made while the patch is active (both joint mechanisms) chunk n_rows users."""
    monkeypatch.setattr(gaussian_module, "chunk_rows", _chunks_of(n_rows))
    monkeypatch.setattr(privunit_module, "chunk_rows", _chunks_of(n_rows))


def _chunks_of(n_rows):
    """Force randomizers made while the patch is active to chunk n_rows users."""

    def chunk_rows(values_per_user):
        return n_rows

    return chunk_rows


# ----------------------------------------------------------------- regressor


def test_huge_epsilon_matches_the_nonprivate_l1_constrained_solution():
    # With negligible noise and no projection, the server solves the
    # l1-constrained least squares, whose solution at radius ||lasso.coef_||_1
    # is the Lasso solution (same KKT conditions). The remaining noise has
    # std noise_scale_ ~ 2e-6 per feature, moving coefficients by ~1e-5.
    rng = np.random.RandomState(0)
    n, d = 3000, 25
    X = rng.standard_normal((n, d))
    X /= 1.1 * np.linalg.norm(X, axis=1, keepdims=True)
    w = np.zeros(d)
    w[:3] = [2.0, -1.5, 1.0]
    y = X @ w + 0.05 * rng.standard_normal(n) + 0.3
    lasso = Lasso(alpha=1e-4, tol=1e-12, max_iter=100_000).fit(X, y)
    radius = np.abs(lasso.coef_).sum()
    reg = SparseLDPRegressor(
        epsilon=1e12,
        l1_radius=radius,
        projection="identity",
        y_bound=10.0,
        tol=1e-12,
        max_iter=20_000,
        random_state=0,
    ).fit(X, y)
    assert reg.noise_scale_ < 1e-5
    np.testing.assert_allclose(reg.coef_, lasso.coef_, atol=1e-3)
    assert reg.intercept_ == pytest.approx(lasso.intercept_, abs=1e-3)
    assert np.abs(reg.coef_).sum() <= radius * (1 + 1e-9)


@pytest.mark.parametrize(
    "params",
    [
        dict(projection="identity"),
        dict(projection="gaussian", n_components=120, recovery="basis_pursuit"),
    ],
)
def test_support_recovery(params):
    # n epsilon^2 = 2e4 * 40^2 = 3.2e7, i.e. n = 3.2e7 users at epsilon = 1:
    # the "large n" regime in which the projected estimator has a small error
    # (its rate is (log d / (n eps^2))^(1/4)); at this size the three
    # relevant coefficients (+-0.41) dominate the others.
    rng = np.random.RandomState(0)
    X, y, w = sparse_regression_data(20_000, 200, rng)
    reg = SparseLDPRegressor(
        epsilon=40.0, l1_radius=np.abs(w).sum(), random_state=0, **params
    ).fit(X, y)
    top = np.argsort(-np.abs(reg.coef_))[:3]
    assert set(top) == {0, 1, 2}
    assert np.all(np.sign(reg.coef_[:3]) == np.sign(w[:3]))
    assert np.abs(reg.coef_).sum() <= np.abs(w).sum() * (1 + 1e-9)


def test_paper_calibration_is_noisier_and_runs():
    X, y, _ = sparse_regression_data(500, 30, np.random.RandomState(0))
    kwargs = dict(n_components=10, random_state=0)
    analytic = SparseLDPRegressor(**kwargs).fit(X, y)
    paper = SparseLDPRegressor(calibration="paper", **kwargs).fit(X, y)
    assert paper.noise_scale_ > analytic.noise_scale_
    assert np.all(np.isfinite(paper.coef_))
    assert paper.privacy_epsilon_ == 1.0 and paper.privacy_delta_ == 1e-5


def test_auto_components_uses_the_public_population_size():
    # At epsilon 8 a model is estimable from a few users: the projection is
    # sized from the public population (fit: the rows given; else n_users).
    X, y, _ = sparse_regression_data(400, 2000, np.random.RandomState(0))
    reg = SparseLDPRegressor(epsilon=8.0, random_state=0).fit(X, y)
    expected = int(np.ceil(np.sqrt(400 * 64 * np.log(2000))))
    assert reg.n_components_ == expected
    hinted = SparseLDPRegressor(epsilon=8.0, n_users=100).make_randomizer(2000)
    assert hinted.feature_map.n_components == int(
        np.ceil(np.sqrt(100 * 64 * np.log(2000)))
    )
    capped = SparseLDPRegressor(epsilon=100.0).make_randomizer(50, n_users=400)
    assert capped.feature_map.n_components == 50
    with pytest.raises(ValueError, match="n_users"):
        SparseLDPRegressor().make_randomizer(10)


def test_too_few_users_for_any_model_spend_the_budget_on_y():
    """Planned ``n <= (sigma_x sigma_y / (B y_bound))^2`` (the joint
    calibration's noise, public): users send ``y`` alone through the scalar
    mechanism of least worst-case variance (pure epsilon); one user more
    and they send the joint Gaussian reports. The server returns the mean
    of the unbiased estimates, within 4 standard errors of the clean mean,
    and the same model from the reports, from a stream and from partial_fit.
    (The Gaussian release; the PrivUnitG default's threshold: below.)"""
    params = dict(epsilon=1.0, delta=1e-7, mechanism="gaussian", random_state=0)
    gaussian = SparseLDPRegressor(n_components=20, **params).make_randomizer(20)
    threshold = min_users_for_a_model(
        gaussian.sigma_x, gaussian.sigma_y, gaussian.feature_norm, 1.0
    )
    at = SparseLDPRegressor(**params).make_randomizer(20, n_users=int(threshold))
    above = SparseLDPRegressor(**params).make_randomizer(20, n_users=int(threshold) + 1)
    assert isinstance(at, TargetMeanRandomizer)
    assert isinstance(above, GaussianRecordRandomizer)
    assert at.delta == 0.0 and at.epsilon <= 1.0 and at.mechanism_ == "duchi"
    # Duchi et al.'s bit: worst-case standard deviation (e^eps + 1) /
    # (e^eps - 1) y_bound, about 2.2, where the joint release adds ~13.
    assert at.noise_std == pytest.approx(1 / np.tanh(0.5), rel=1e-9)
    assert at.noise_std < gaussian.sigma_y / 5
    # The printed algorithm and an explicit projection keep their reports.
    for kept in (dict(calibration="paper"), dict(n_components=20)):
        randomizer = SparseLDPRegressor(**params, **kept).make_randomizer(
            20, n_users=100
        )
        assert isinstance(randomizer, GaussianRecordRandomizer)
    X, y, _ = sparse_regression_data(20_000, 20, np.random.RandomState(0))
    est = SparseLDPRegressor(**params).fit(X, y)
    assert est.privacy_delta_ == 0.0 and est.n_components_ == 0
    assert est.selected_model_ == "constant" and est.l1_radius_ == 0.0
    assert not est.cv_results_["models_estimable"]
    assert np.all(est.coef_ == 0.0) and est.coef_.shape == (20,)
    se = at.noise_std / np.sqrt(len(y))
    assert abs(est.intercept_ - np.clip(y, -1, 1).mean()) < 4 * se
    assert np.all(est.predict(X[:7]) == est.intercept_)
    # The server rebuilds the collection from the announced population.
    reports = est.make_randomizer(20, n_users=len(y)).randomize(X, y, random_state=3)
    assert sorted(reports.fields) == ["y"]
    from_reports = SparseLDPRegressor(**params).fit_reports(reports)
    assert from_reports.intercept_ == pytest.approx(
        at.estimate(reports["y"]).mean(), rel=1e-12
    )
    half = len(y) // 2
    parts = [reports.subset(np.arange(half)), reports.subset(np.arange(half, len(y)))]
    streamed = SparseLDPRegressor(**params).fit_reports(parts)
    assert streamed.intercept_ == pytest.approx(from_reports.intercept_, rel=1e-12)
    batched = SparseLDPRegressor(n_users=len(y), **params)
    batched.partial_fit(X[:half], y[:half]).partial_fit(X[half:], y[half:])
    assert batched.intercept_ == pytest.approx(est.intercept_, rel=1e-12)
    # Without an intercept the constant is 0.
    assert SparseLDPRegressor(fit_intercept=False, **params).fit(X, y).intercept_ == 0


def test_default_report_is_one_privunit_pair_and_passes_the_audit(
    privunit_pair_statistic,
):
    # mechanism='auto' with the analytic calibration: one pure-epsilon
    # PrivUnitG report of (projected features, target) (its derivation and
    # moments: tests/randomizers/test_privunit.py).
    est = SparseLDPRegressor(epsilon=2.0, delta=1e-7, y_bound=3.0, random_state=0)
    rand = est.make_randomizer(3, n_users=10**6)
    assert isinstance(rand, PrivUnitGRecordRandomizer) and rand.delta == 0.0
    assert rand.feature_map.kind == "identity" and rand.y_bound == 3.0
    gaussian = clone(est).set_params(mechanism="gaussian").make_randomizer(
        3, n_users=10**6
    )
    assert isinstance(gaussian, GaussianRecordRandomizer)
    assert rand.sigma_x < gaussian.sigma_x / 3  # 1.54 against 6.93
    a, b = ([50.0, 0.0, 0.0], 40.0), ([-50.0, 0.0, 0.0], -40.0)
    result = audit_randomizer(
        rand, a, b, statistic=privunit_pair_statistic(rand, a, b), n_draws=100_000
    )
    assert result.passed
    # After a random projection too (m < d), with the public seed announced.
    projected = SparseLDPRegressor(
        epsilon=2.0, n_components=4, random_state=0
    ).make_randomizer(30)
    assert isinstance(projected, PrivUnitGRecordRandomizer)
    assert projected.get_config()["feature_map"]["n_components"] == 4
    # The paper-faithful mode keeps its Gaussian reports; asking for
    # PrivUnitG there is refused.
    paper = SparseLDPRegressor(epsilon=2.0, calibration="paper", n_components=3)
    assert isinstance(paper.make_randomizer(3), GaussianRecordRandomizer)
    with pytest.raises(ValueError, match="calibration='analytic'"):
        paper.set_params(mechanism="privunit").make_randomizer(3)
    # Outside the budgets PrivUnitG is calibrated for, 'auto' is Gaussian.
    low = SparseLDPRegressor(epsilon=0.01, n_components=3)
    assert isinstance(low.make_randomizer(3), GaussianRecordRandomizer)
    with pytest.raises(ValueError, match="epsilon"):
        low.set_params(mechanism="privunit").make_randomizer(3)


def test_privunit_reports_fit_from_a_stream_and_predict_well():
    X, y, w = sparse_regression_data(100_000, 10, np.random.RandomState(0))
    X_test, y_test, _ = sparse_regression_data(20_000, 10, np.random.RandomState(1))
    params = dict(epsilon=4.0, delta=1e-7, projection="identity", random_state=0)
    reports = SparseLDPRegressor(**params).make_randomizer(10).randomize(
        X, y, random_state=2
    )
    whole = SparseLDPRegressor(**params).fit_reports(reports)
    parts = [reports.subset(np.arange(40_000)), reports.subset(np.arange(40_000, 100_000))]
    streamed = SparseLDPRegressor(**params).fit_reports(parts)
    np.testing.assert_allclose(streamed.coef_, whole.coef_, atol=1e-8)
    assert whole.privacy_delta_ == 0.0 and whole.selected_model_ == "model"
    assert whole.noise_scale_ == pytest.approx(reports.config["sigma_x"])
    gaussian = SparseLDPRegressor(**params, mechanism="gaussian").fit(X, y)
    # Measured on these draws: held-out R^2 0.232 against 0.000 (noise 0.87
    # against 3.67 per number: the Gaussian reports' server kept the
    # constant). On the same 20,000 test users.
    assert gaussian.selected_model_ == "constant"
    assert whole.score(X_test, y_test) > gaussian.score(X_test, y_test) + 0.1


def test_privunit_default_sends_y_alone_below_its_own_threshold():
    # The target-only fallback reads the chosen report's noise: with the
    # PrivUnitG pair (sigma_x = sigma_y = 2.9 at epsilon 1 for unit bounds)
    # the threshold is (2.9 * 2.9)^2, about 70 users, not the Gaussian's 3.1e4.
    params = dict(epsilon=1.0, delta=1e-7, random_state=0)
    pair = SparseLDPRegressor(n_components=20, **params).make_randomizer(20)
    assert isinstance(pair, PrivUnitGRecordRandomizer)
    threshold = min_users_for_a_model(
        pair.sigma_x, pair.sigma_y, pair.feature_norm, pair.y_bound
    )
    assert 50 < threshold < 100
    at = SparseLDPRegressor(**params).make_randomizer(20, n_users=int(threshold))
    above = SparseLDPRegressor(**params).make_randomizer(20, n_users=int(threshold) + 1)
    assert isinstance(at, TargetMeanRandomizer)
    assert isinstance(above, PrivUnitGRecordRandomizer)


def test_declared_l1_ball_sends_y_alone_where_its_predicted_excess_risk_is_large():
    """With a declared l1_radius and no projection, users send ``y`` alone
    where the l1 fit's predicted excess risk at that radius
    (:func:`l1_ball_excess_risk`, public) reaches ``y_bound^2``, and the
    joint report below it; with ``l1_radius='auto'`` only the most
    favourable model's threshold applies."""
    params = dict(delta=1e-7, l1_radius=1.2, random_state=0)
    for n_users, epsilon in [
        (20_000, 0.5),
        (20_000, 1.0),
        (200_000, 0.5),
        (20_000, 2.0),
    ]:
        est = SparseLDPRegressor(epsilon=epsilon, **params)
        pair = SparseLDPRegressor(epsilon=epsilon, n_components=100, **params)
        joint = pair.make_randomizer(100, n_users=n_users)
        excess = l1_ball_excess_risk(joint.sigma_x, joint.sigma_y, n_users, 1.2, 1.0)
        chosen = est.make_randomizer(100, n_users=n_users)
        assert isinstance(chosen, TargetMeanRandomizer) == (excess >= 1.0)
        auto = SparseLDPRegressor(epsilon=epsilon, delta=1e-7, random_state=0)
        assert isinstance(
            auto.make_randomizer(100, n_users=n_users), PrivUnitGRecordRandomizer
        )
    # The benchmark's cells (d = 100, radius 1.22): y alone at 2 x 10^4
    # users and epsilon 0.5, the joint report at epsilon 1.
    assert isinstance(
        SparseLDPRegressor(epsilon=0.5, **params).make_randomizer(100, n_users=20_000),
        TargetMeanRandomizer,
    )
    assert isinstance(
        SparseLDPRegressor(epsilon=1.0, **params).make_randomizer(100, n_users=20_000),
        PrivUnitGRecordRandomizer,
    )
    # examples/deployment: 10^6 users, epsilon 6, the Gaussian release,
    # radius 5.5, 20 features: a model (held-out R^2 0.91 there).
    deployment = SparseLDPRegressor(
        epsilon=6.0, delta=1e-7, l1_radius=5.5, mechanism="gaussian"
    ).make_randomizer(20, n_users=10**6)
    assert isinstance(deployment, GaussianRecordRandomizer)


def test_l1_ball_excess_risk_is_the_noise_of_the_risk_at_a_vertex():
    """The standard deviation of ``r^(w) - r(w)`` at a vertex ``w = R e_1``
    of the ball, over draws of simulated Gaussian reports, against the
    scale in :func:`l1_ball_excess_risk` (half of it: ``R^2 s_G + 2 R
    s_c``), with labels at the public bound (``|y| = y_bound``, where
    ``s_c`` is exact). The two terms add in variance, so the standard
    deviation lies between that scale over sqrt(2) and the scale; over 400
    draws the sample standard deviation errs by about 3.5% of its value,
    hence the band [0.6, 1.1] of the scale (3 of those errors beyond)."""
    rng = np.random.default_rng(0)
    n, k, sigma_x, sigma_y, y_bound, radius = 2000, 5, 1.5, 1.2, 1.0, 1.2
    x = rng.uniform(-1, 1, (n, k)) / np.sqrt(k)
    y = np.where(x @ np.r_[1.0, -0.5, 0.0, 0.0, 0.0] + rng.normal(0, 0.3, n) > 0, 1.0, -1.0)
    w = np.r_[radius, 0.0, 0.0, 0.0, 0.0]
    deviations = []
    for _ in range(400):
        z = x + rng.normal(0, sigma_x, (n, k))
        v = y + rng.normal(0, sigma_y, n)
        gram_error = (z.T @ z / n - sigma_x**2 * np.eye(k)) - x.T @ x / n
        cross_error = z.T @ v / n - x.T @ y / n
        deviations.append(w @ gram_error @ w - 2 * cross_error @ w)
    scale = l1_ball_excess_risk(sigma_x, sigma_y, n, radius, y_bound) / 2
    assert 0.6 * scale < np.std(deviations) < 1.1 * scale


@pytest.mark.parametrize("mechanism", ["gaussian", "privunit"])
def test_fit_equals_fit_reports_and_streams_in_small_chunks(monkeypatch, mechanism):
    # With a tiny chunk size fit randomizes and aggregates 256 users at a
    # time; the same noise stream drawn in one call of the randomizer (same
    # chunks) gives the same statistics, hence the same model from fit_reports.
    _patch_chunks(monkeypatch, 256)
    rng = np.random.RandomState(0)
    X, y, _ = sparse_regression_data(1000, 12, rng)
    reg = SparseLDPRegressor(
        n_components=6, mechanism=mechanism, random_state=3, tol=1e-10
    )
    calls = []
    original = FoldedReportSums.add

    def spy(self, features, targets, positions):
        calls.append(len(features))
        original(self, features, targets, positions)

    monkeypatch.setattr(FoldedReportSums, "add", spy)
    reg.fit(X, y)
    assert type(reg._randomizer).__name__ == {
        "gaussian": "GaussianRecordRandomizer",
        "privunit": "PrivUnitGRecordRandomizer",
    }[mechanism]
    assert max(calls) == 256 and sum(calls) == 1000
    randomizer = reg.make_randomizer(12, n_users=1000)
    assert randomizer.chunk_size == 256
    reports = randomizer.randomize(X, y, random_state=3)
    server = clone(reg).fit_reports(reports)
    np.testing.assert_allclose(server.coef_, reg.coef_, atol=1e-8)
    assert server.intercept_ == pytest.approx(reg.intercept_, abs=1e-8)


@pytest.mark.parametrize("mechanism", ["gaussian", "privunit"])
def test_memory_does_not_grow_with_the_number_of_users(monkeypatch, mechanism):
    # Identity projection: the reports of all users would be as large as X.
    # Chunked randomization + accumulation keeps the peak far below X.nbytes
    # (chunks of 128 users: the lattice sampler's temporaries are about
    # twice those of float noise per user).
    _patch_chunks(monkeypatch, 128)
    rng = np.random.RandomState(0)
    # One fit first: the one-time costs of a first call (lazy imports, the
    # solvers' cached tables) do not grow with the users, and cold they
    # alone exceed the bound at the smaller size (600 KB measured).
    SparseLDPRegressor(projection="identity", l1_radius=1.0, random_state=0).fit(
        rng.uniform(-0.2, 0.2, (2_000, 20)), rng.uniform(-1, 1, 2_000)
    )
    peaks = {}
    for n in (20_000, 80_000):
        X = rng.uniform(-0.2, 0.2, (n, 20))
        y = rng.uniform(-1, 1, n)
        # A declared radius: 18 server candidates. 'auto' fits 24, a fixed
        # cost (measured: +20 KB of a 390 KB peak at 20 000 users, warm
        # caches) that does not grow with the users but leaves no room
        # under this bound at the smaller size.
        reg = SparseLDPRegressor(
            projection="identity", l1_radius=1.0, mechanism=mechanism, random_state=0
        )
        # The noise sampler's tables and the server's first-call costs are
        # fixed (built once, cached): pay them before measuring what grows
        # with the users (measured: the first fit of a process peaks 0.1 to
        # 0.2 MB higher, whichever mechanism comes first).
        clone(reg).fit(X, y)
        tracemalloc.start()
        reg.fit(X, y)
        peaks[n] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peaks[n] < X.nbytes / 8
    assert peaks[80_000] < 1.5 * peaks[20_000]


@pytest.mark.parametrize("mechanism", ["gaussian", "privunit"])
def test_partial_fit_continues_the_noise_stream(monkeypatch, mechanism):
    # Batches of a multiple of the chunk size (256 users here) draw exactly
    # the noise of one fit on the concatenation; repeating a batch must not
    # repeat its noise.
    _patch_chunks(monkeypatch, 256)
    rng = np.random.RandomState(0)
    X, y, _ = sparse_regression_data(1024, 12, rng)
    kwargs = dict(
        projection="identity",
        mechanism=mechanism,
        random_state=5,
        tol=1e-12,
        max_iter=20_000,
    )
    whole = SparseLDPRegressor(**kwargs).fit(X, y)
    pieces = SparseLDPRegressor(**kwargs)
    pieces.partial_fit(X[:512], y[:512]).partial_fit(X[512:], y[512:])
    assert pieces.n_samples_seen_ == 1024
    np.testing.assert_allclose(
        pieces._aggregate.statistics.total().gram,
        whole._aggregate.statistics.total().gram,
    )
    np.testing.assert_allclose(
        pieces._aggregate.statistics.total().moment,
        whole._aggregate.statistics.total().moment,
    )
    np.testing.assert_allclose(pieces.coef_, whole.coef_, atol=1e-8)

    twice = SparseLDPRegressor(**kwargs)
    twice.partial_fit(X[:512], y[:512])
    first_gram = twice._aggregate.statistics.total().gram.copy()
    twice.partial_fit(X[:512], y[:512])
    assert not np.allclose(twice._aggregate.statistics.total().gram, 2 * first_gram)


def test_partial_fit_after_fit_reports_is_refused():
    X, y, _ = sparse_regression_data(300, 10, np.random.RandomState(0))
    reg = SparseLDPRegressor(n_components=4, random_state=0)
    reports = reg.make_randomizer(10).randomize(X, y, random_state=0)
    reg.fit_reports(reports)
    with pytest.raises(ValueError, match="fit_reports"):
        reg.partial_fit(X, y)


def test_partial_fit_auto_without_n_users_warns():
    X, y, _ = sparse_regression_data(300, 10, np.random.RandomState(0))
    with pytest.warns(UserWarning, match="n_users"):
        SparseLDPRegressor(random_state=0).partial_fit(X, y)


def test_fit_reports_checks_the_configuration():
    X, y, _ = sparse_regression_data(300, 10, np.random.RandomState(0))
    reports = (
        SparseLDPRegressor(n_components=4, epsilon=2.0, random_state=0)
        .make_randomizer(10)
        .randomize(X, y, random_state=0)
    )
    with pytest.raises(ValueError, match="epsilon"):
        SparseLDPRegressor(n_components=4, random_state=0).fit_reports(reports)
    # A random public seed (random_state=None) is taken from the reports.
    reg = SparseLDPRegressor(n_components=4, epsilon=2.0).fit_reports(reports)
    assert reg.projection_seed_ == reports.config["feature_map"]["seed"]
    doubled = Reports.concatenate([reports, reports])
    assert (
        SparseLDPRegressor(n_components=4, epsilon=2.0)
        .fit_reports(doubled)
        .n_samples_seen_
        == 600
    )


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(epsilon=0.0), "epsilon"),
        (dict(delta=1.0), "delta"),
        (dict(projection="fourier"), "projection"),
        (dict(l1_radius=-1.0), "l1_radius"),
        (dict(n_components="all"), "n_components"),
    ],
)
def test_invalid_parameters(params, match):
    X, y, _ = sparse_regression_data(50, 5, np.random.RandomState(0))
    with pytest.raises(InvalidParameterError, match=match):
        SparseLDPRegressor(**params).fit(X, y)


def test_bad_input():
    X, y, _ = sparse_regression_data(50, 5, np.random.RandomState(0))
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SparseLDPRegressor(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        SparseLDPMeanEstimator(random_state=0).fit(X)


# ------------------------------------------------------------ mean estimator


def sparse_mean_data(n, d, rng):
    """||x|| <= 1, mean 0.3 e_0 - 0.3 e_1 (l1 norm 0.6)."""
    X = rng.standard_normal((n, d)) * 0.02
    X[:, 0] += rng.uniform(0.0, 0.6, n)
    X[:, 1] -= rng.uniform(0.0, 0.6, n)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X


def test_mean_estimator_beats_the_naive_per_coordinate_mean():
    # Naive: each user adds N(0, sigma^2 I_d) (same Gaussian mechanism, same
    # epsilon) and the server averages: error sigma sqrt(d / n) ~ 1.1 here.
    rng = np.random.RandomState(0)
    n, d = 20_000, 1000
    X = sparse_mean_data(n, d, rng)
    truth = X.mean(axis=0)
    est = SparseLDPMeanEstimator(epsilon=2.0, l1_radius=0.6, random_state=0).fit(X)
    error = np.linalg.norm(est.location_ - truth)
    naive_error = est.noise_scale_ * np.sqrt(d / n)
    assert error < naive_error / 3
    assert np.argsort(-np.abs(est.location_))[:2].tolist() in ([0, 1], [1, 0])
    assert est.n_groups_ == 1 and est.n_components_ == int(
        np.ceil(0.6 * 2 * np.sqrt(n))
    )


def test_mean_estimator_paper_configuration():
    # Median-of-means over 208 groups of ~96 users needs a large epsilon to
    # beat the noise of one group (sigma ~ 0.06 / sqrt(96) per coordinate at
    # epsilon = 200 with the classic formula, against signal entries ~0.03).
    rng = np.random.RandomState(1)
    X = sparse_mean_data(20_000, 200, rng)
    est = SparseLDPMeanEstimator(
        epsilon=200.0,
        l1_radius=0.6,
        aggregation="median_of_means",
        recovery="basis_pursuit",
        calibration="paper",
        random_state=0,
    ).fit(X)
    assert est.n_groups_ == int(np.ceil(18 * np.log(1e5)))
    assert np.isfinite(est.residual_bound_) and est.residual_bound_ > 0
    # l1-residual basis pursuit returns the min-l1 point in the residual ball.
    components = est._randomizer.feature_map.components_
    assert np.abs(est.location_).sum() <= 0.6 + 0.5
    # Better than ignoring the data (the zero vector, error ||mean|| = 0.42);
    # the old fixed bound 0.3 held for one noise seed in four (0.28 to 0.32).
    mean = X.mean(axis=0)
    assert np.linalg.norm(est.location_ - mean) < 0.85 * np.linalg.norm(mean)
    assert components.shape == (est.n_components_, 200)


def test_mean_estimator_partial_fit_and_fit_reports():
    rng = np.random.RandomState(2)
    X = sparse_mean_data(4000, 50, rng)
    kwargs = dict(
        n_components=20, aggregation="median_of_means", n_groups=10, random_state=0
    )
    est = SparseLDPMeanEstimator(**kwargs)
    est.partial_fit(X[:2000]).partial_fit(X[2000:])
    assert est.n_samples_seen_ == 4000 and est.n_groups_ == 10
    reports = est.make_randomizer(50).randomize(X, random_state=0)
    assert set(reports.fields) == {"x"}
    fitted = SparseLDPMeanEstimator(**kwargs).fit_reports(reports)
    assert fitted.location_.shape == (50,)
    assert not hasattr(fitted, "feature_names_in_")


def test_auto_projection_is_identity_when_it_cannot_compress():
    est = SparseLDPRegressor(n_components=5, random_state=0)
    assert est.make_randomizer(5).feature_map.kind == "identity"
    assert est.make_randomizer(50).feature_map.kind == "gaussian"
    paper = SparseLDPRegressor(n_components=5, calibration="paper", random_state=0)
    assert paper.make_randomizer(5).feature_map.kind == "gaussian"
    # With (nearly) clean reports a square Gaussian projection distorts the
    # geometry (Phi Phi^T != I) and the identity does not: it fits better.
    rng = np.random.RandomState([7, 1])
    X = rng.uniform(-1, 1, size=(20_000, 10)) / np.sqrt(10)
    y = X[:, :2] @ [2.0, -2.0]
    scores = {
        proj: SparseLDPRegressor(
            epsilon=1e6, l1_radius=4.0, n_components=10, projection=proj, random_state=0
        )
        .fit(X, y)
        .score(X, y)
        for proj in ("auto", "gaussian")
    }
    assert scores["auto"] > 0.99 > scores["gaussian"]


def test_data_norm_is_the_public_clipping_bound():
    small = SparseLDPRegressor(n_components=4, data_norm=1.0, random_state=0)
    large = SparseLDPRegressor(n_components=4, data_norm=3.0, random_state=0)
    r_small, r_large = small.make_randomizer(4), large.make_randomizer(4)
    # The sensitivity, hence the noise, scales with the declared bound (up to
    # the lattice rounding's widening, below 1/256 of the sensitivity).
    assert r_large.sigma_x == pytest.approx(3.0 * r_small.sigma_x, rel=2**-8)
    # Rows are clipped to data_norm before anything is released.
    features = r_small.features(
        np.array([[30.0, 40.0, 0.0, 0.0], [0.3, 0.4, 0.0, 0.0]])
    )
    np.testing.assert_allclose(np.linalg.norm(features, axis=1), [1.0, 0.5])
    mean = SparseLDPMeanEstimator(n_components=4, data_norm=2.0, random_state=0)
    assert mean.make_randomizer(4).get_config()["data_norm"] == 2.0


@pytest.mark.parametrize("half_noise", [False, True])
def test_privacy_audit_identity_projection(half_noise):
    """projection='identity' (what 'auto' picks when m >= d): same guarantee, audited."""
    est = SparseLDPRegressor(
        epsilon=4.0, n_components=6, mechanism="gaussian", random_state=0
    )
    rand = est.make_randomizer(6)
    assert rand.feature_map.kind == "identity"
    if half_noise:
        rand.sigma_x /= 2.0
        rand.sigma_y /= 2.0
    x = np.full(6, 50.0)
    result = audit_randomizer(rand, (x, 9.0), (-x, -9.0), n_draws=40_000)
    assert result.passed != half_noise, result


@pytest.mark.parametrize("clip_to_data_norm_only", [False, True])
def test_privacy_audit_identity_projection_with_a_smaller_feature_norm(
    clip_to_data_norm_only,
):
    """feature_norm < data_norm with the identity: the released x is clipped to it.

    The noise is calibrated for 2 feature_norm, so x must be clipped to
    feature_norm (not only to data_norm, which under-noises 4-fold here).
    """
    est = SparseLDPRegressor(
        epsilon=1.0,
        n_components=6,
        feature_norm=0.25,
        mechanism="gaussian",
        random_state=0,
    )
    rand = est.make_randomizer(6)
    assert rand.feature_map.kind == "identity"
    x = np.full(6, 50.0)
    assert np.linalg.norm(rand.features(x[None])) == pytest.approx(0.25)
    if clip_to_data_norm_only:
        rand.feature_norm = rand.data_norm  # the noise stays calibrated for 0.25
    # The likelihood-ratio statistic of the two Gaussian releases (the most
    # powerful test between them): the mean difference over the variances.
    released = [
        np.append(rand.features(sign * x[None])[0], rand.targets([sign * 9.0]))
        for sign in (1.0, -1.0)
    ]
    weights = (released[0] - released[1]) / np.append(
        np.full(6, rand.sigma_x**2), rand.sigma_y**2
    )
    result = audit_randomizer(
        rand,
        (x, 9.0),
        (-x, -9.0),
        n_draws=40_000,
        statistic=lambda matrix: matrix @ weights,
    )
    assert result.passed != clip_to_data_norm_only, result


def test_the_client_is_a_gaussian_record_with_a_public_projection():
    est = SparseLDPRegressor(n_components=4, mechanism="gaussian", random_state=0)
    rand = est.make_randomizer(10)
    config = rand.get_config()
    assert config["randomizer"] == "GaussianRecordRandomizer"
    rebuilt = feature_map_from_config(config["feature_map"])
    np.testing.assert_array_equal(rebuilt.components_, rand.feature_map.components_)
    # The public seed is derived from random_state, the same every time.
    again = est.make_randomizer(10).get_config()["feature_map"]["seed"]
    X, y, _ = sparse_regression_data(300, 10, np.random.RandomState(0))
    assert again == config["feature_map"]["seed"] == est.fit(X, y).projection_seed_
    with pytest.raises(ValueError, match="not a classifier"):
        est.make_randomizer(10, classes=[0, 1])


def test_n_users_parameter_takes_precedence_over_the_argument():
    est = SparseLDPRegressor(epsilon=8.0, n_users=100, random_state=0)
    expected = int(np.ceil(np.sqrt(100 * 64 * np.log(2000))))
    assert est.make_randomizer(2000, n_users=400).feature_map.n_components == expected
    # Also for the choice of y alone (at epsilon 0.5 below ~4e5 users).
    low = SparseLDPRegressor(epsilon=0.5, n_users=10**6, mechanism="gaussian")
    assert isinstance(low.make_randomizer(50, n_users=400), GaussianRecordRandomizer)
    assert isinstance(
        low.set_params(n_users=400).make_randomizer(50, n_users=10**6),
        TargetMeanRandomizer,
    )


# ------------------------------------------------- report-only choice (issue 16)


def _constant_tolerance(reg, y):
    # The intercept-only model is the noisy mean of y (or 0): its error is
    # within two standard errors sqrt((E[y^2] + sigma_y^2) / n) of the mean
    # with probability 95%, so R^2 >= -(2 se)^2 / Var(y). A PrivUnitG
    # report's first moments are f times its pseudo-report's (E[z] = r / f),
    # so their standard error is f times that.
    sigma_y = reg._randomizer.sigma_y
    factor = getattr(reg._randomizer, "first_moment_factor", 1.0)
    std_error = factor * np.sqrt((np.mean(y**2) + sigma_y**2) / len(y))
    return (2.0 * std_error) ** 2 / np.var(y)


def test_pure_noise_target_falls_back_to_the_constant():
    rng = np.random.RandomState(0)
    X, _, _ = sparse_regression_data(40_000, 10, rng)
    y = rng.uniform(-0.5, 0.5, 40_000) + 0.3  # independent of X
    X_test, _, _ = sparse_regression_data(20_000, 10, rng)
    y_test = rng.uniform(-0.5, 0.5, 20_000) + 0.3
    reg = SparseLDPRegressor(epsilon=1.0, projection="identity", random_state=0)
    reg.fit(X, y)
    # No signal: the held-out statistic C^ / s of the preferred model is
    # about standard normal (aggregation._ridge.held_out_shrinkage), below 4
    # with probability 1 - 3e-5, and the model is kept (shrunk) only above 1.
    results = reg.cv_results_
    assert abs(results["held_out_signal"]) < 4.0
    assert (reg.selected_model_ == "model") == (results["held_out_signal"] > 1.0)
    assert 0.0 <= results["shrinkage"] <= 1.0
    if reg.selected_model_ == "model":  # once in six draws or fewer
        return
    assert reg.selected_model_ == "constant" and reg.l1_radius_ == 0.0
    assert results["shrinkage"] == 0.0
    assert np.all(reg.coef_ == 0.0)
    assert reg.score(X_test, y_test) >= -_constant_tolerance(reg, y)
    # One row per candidate: every (radius, ridge), then the constant; one chosen.
    n_radii = 1 + len(AUTO_SMALLER_FACTORS) + len(AUTO_LARGER_FACTORS)  # 'auto'
    n_models = n_radii * len(L1_RIDGE_FACTORS) + len(HEAVY_RIDGE_FACTORS)
    assert list(results["candidate"]) == ["model"] * n_models + ["constant"]
    assert results["selected"].sum() == 1 and results["selected"][-1]
    assert results["split_risks"].shape == (n_models + 1, 5)
    assert reg.alpha_ == np.inf


def test_strong_signal_keeps_the_model():
    rng = np.random.RandomState(1)
    X, y, w = sparse_regression_data(50_000, 10, rng)
    reg = SparseLDPRegressor(
        epsilon=20.0, l1_radius=np.abs(w).sum(), projection="identity", random_state=0
    ).fit(X, y)
    assert reg.selected_model_ == "model" and reg.l1_radius_ > 0
    X_test, y_test, _ = sparse_regression_data(20_000, 10, rng)
    assert reg.score(X_test, y_test) > 0.1
    # The held-out shrinkage factor (C^ / V^) (1 - s^2 / C^2): about 1 for a
    # model that fits, its noise s / C^ = 1 / held_out_signal; the fold
    # models (4/5 of the reports) may overfit, V > C, by their variance,
    # which is below their noise: above 1 - 5 / held_out_signal.
    results = reg.cv_results_
    assert results["held_out_signal"] > 10.0
    assert 1.0 - 5.0 / results["held_out_signal"] < results["shrinkage"] <= 1.0
    radii = [p["l1_radius"] for p in reg.cv_results_["params"][:-1]]
    assert reg.l1_radius_ in radii and radii[0] == np.abs(w).sum()
    # The ridge of the choice, in its public units sigma_x^2 sqrt(m / n).
    ridges = [p["ridge"] for p in reg.cv_results_["params"][:-1]]
    scale = reg.noise_scale_**2 * np.sqrt(X.shape[1] / X.shape[0])
    assert any(np.isclose(reg.alpha_, r * scale) for r in ridges)


def test_shrinkage_scales_the_refitted_model_and_the_paper_mode_keeps_the_veto():
    rng = np.random.RandomState(2)
    X, y, w = sparse_regression_data(20_000, 10, rng)
    params = {"epsilon": 2.0, "l1_radius": np.abs(w).sum(), "projection": "identity"}
    reg = SparseLDPRegressor(**params, random_state=0)
    reports = reg.make_randomizer(10, n_users=len(X)).randomize(X, y, random_state=0)
    reg.fit_reports(reports)
    shrinkage = reg.cv_results_["shrinkage"]
    assert 0.0 < shrinkage < 1.0  # a weak signal on these reports
    # The model of the chosen candidate on every report, scaled by the
    # factor; the intercept refitted: the mean of v at the mean of z.
    sums = reg._aggregate.moment_statistics()
    n = sum(fold.n for fold in sums.folds)
    mean_z = sum(fold.gram[:10, 10] for fold in sums.folds) / n
    mean_v = sum(fold.moment[10] for fold in sums.folds) / n
    assert reg.intercept_ == pytest.approx(mean_v - mean_z @ reg.coef_, abs=1e-12)
    assert np.abs(reg.coef_).sum() <= shrinkage * reg.l1_radius_ * (1 + 1e-9)
    # The paper-faithful mode: no shrinkage, the signal test decides.
    paper = SparseLDPRegressor(**params, calibration="paper", random_state=0)
    paper.fit(X, y)
    results = paper.cv_results_
    assert results["shrinkage"] in (0.0, 1.0) and np.isnan(results["held_out_signal"])
    if results["signal_p_value"] > 0.05:
        assert paper.selected_model_ == "constant"


def _disk_regression(n, w, rng):
    """x uniform on the unit disk (E[x x^T] = I / 4), y = x^T w + U[-0.1, 0.1]."""
    angle = rng.uniform(0.0, 2.0 * np.pi, n)
    radius = np.sqrt(rng.uniform(0.0, 1.0, n))
    X = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    return X, X @ w + rng.uniform(-0.1, 0.1, n)


@pytest.fixture(scope="module")
def wide_coefficients():
    """Reports of a model whose l1 norm (5) is above 'auto''s preferred radius."""
    rng = np.random.RandomState(0)
    w = np.array([2.5, -2.5])
    X, y = _disk_regression(200_000, w, rng)
    # |y| <= 2.5 sqrt(2) + 0.1 < 4 and ||x|| <= 1: nothing is clipped.
    params = {"epsilon": 20.0, "delta": 1e-7, "y_bound": 4.0, "random_state": 0}
    randomizer = SparseLDPRegressor(**params).make_randomizer(2, n_users=len(X))
    return X, y, w, params, randomizer.randomize(X, y, random_state=0)


def test_auto_radius_goes_above_the_preferred_one_when_the_truth_needs_it(
    wide_coefficients,
):
    X, y, w, params, reports = wide_coefficients
    reg = SparseLDPRegressor(**params).fit_reports(reports)
    assert reg.selected_model_ == "model"
    assert AUTO_RADIUS < np.abs(w).sum() <= reg.l1_radius_
    radii = [p["l1_radius"] for p in reg.cv_results_["params"][:-1]]
    assert radii[0] == AUTO_RADIUS and max(radii) == AUTO_RADIUS * max(
        AUTO_LARGER_FACTORS
    )
    # Inside the ball the fit is debiased ridge least squares. Its error
    # (errors in variables, z = x + xi, v = y + eta): w_hat - w ~
    # Sigma^-1 mean(z e + sigma_x^2 w), e = v - z^T w = eta + noise - xi^T w,
    # with covariance E[e^2] (Sigma + sigma_x^2 I) + sigma_x^4 w w^T per
    # report; the ridge alpha_ shrinks it by about Sigma^-1 alpha_ w.
    randomizer = reg._randomizer
    sigma_x, sigma_y = randomizer.sigma_x, randomizer.sigma_y
    sigma = np.eye(2) / 4.0
    inverse = np.linalg.inv(sigma)
    residual = np.var(y - X @ w) + sigma_y**2 + sigma_x**2 * (w @ w)
    per_report = residual * (sigma + sigma_x**2 * np.eye(2))
    per_report += sigma_x**4 * np.outer(w, w)
    std_error = np.sqrt(np.diag(inverse @ per_report @ inverse) / len(y))
    bias = np.abs(inverse @ (reg.alpha_ * w))
    np.testing.assert_array_less(np.abs(reg.coef_ - w), 4.0 * std_error + bias)


@pytest.mark.parametrize("radius", [0.5, 2.0, 4.0])
def test_declared_radius_is_never_exceeded(wide_coefficients, radius):
    _, _, w, params, reports = wide_coefficients
    assert radius < np.abs(w).sum()  # every declared radius binds
    reg = SparseLDPRegressor(l1_radius=radius, **params).fit_reports(reports)
    radii = [p["l1_radius"] for p in reg.cv_results_["params"][:-1]]
    assert radii[:: len(L1_RIDGE_FACTORS)][: len(RADIUS_FRACTIONS)] == list(
        radius * RADIUS_FRACTIONS
    )
    assert max(radii) == radius
    assert 0.0 < reg.l1_radius_ <= radius
    assert np.abs(reg.coef_).sum() <= radius * (1.0 + 1e-9)


def test_auto_radius_after_a_projection_is_never_above_the_preferred_one():
    # The projected risk stands for the risk of w only inside the ball.
    rng = np.random.RandomState(0)
    X, y, _ = sparse_regression_data(20_000, 50, rng)
    reg = SparseLDPRegressor(
        epsilon=8.0, n_components=10, projection="gaussian", random_state=0
    ).fit(X, y)
    radii = [p["l1_radius"] for p in reg.cv_results_["params"][:-1]]
    assert radii[0] == max(radii) == AUTO_RADIUS
    assert reg.l1_radius_ <= AUTO_RADIUS


def test_auto_radius_in_the_paper_mode_is_the_papers():
    # Seed 003 constrains ||w||_1 <= 1 for ||x|| <= 1, |y| <= 1: in the
    # units of x and y, y_bound / data_norm, the largest radius tried.
    rng = np.random.RandomState(0)
    X, y = _disk_regression(20_000, np.array([0.5, -0.5]), rng)
    reg = SparseLDPRegressor(
        epsilon=8.0, calibration="paper", data_norm=2.0, y_bound=1.5, random_state=0
    ).fit(2.0 * X, y)
    radii = [p["l1_radius"] for p in reg.cv_results_["params"][:-1]]
    assert radii[0] == max(radii) == 0.75
    assert reg.l1_radius_ <= 0.75


def test_auto_is_a_valid_radius_and_other_strings_are_not():
    rng = np.random.RandomState(0)
    X, y = _disk_regression(200, np.array([0.5, -0.5]), rng)
    assert SparseLDPRegressor().get_params()["l1_radius"] == "auto"
    with pytest.raises(InvalidParameterError, match="l1_radius"):
        SparseLDPRegressor(l1_radius="large").fit(X, y)
    # The mean estimator's radius sets its public projection: no 'auto'.
    with pytest.raises(InvalidParameterError, match="l1_radius"):
        SparseLDPMeanEstimator(l1_radius="auto").fit(X)
