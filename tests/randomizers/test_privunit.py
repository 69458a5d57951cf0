"""PrivUnitGRandomizer and the pair report PrivUnitGRecordRandomizer: calibration,
lattice reports, unbiased moments, privacy audits."""

import math

import numpy as np
import pytest

from sklearn_ldp.accounting import privunit_moment_variance
from sklearn_ldp.aggregation import FoldedMoments
from sklearn_ldp.aggregation._sufficient import (
    PrivUnitFoldedGramSums,
    PrivUnitFoldedReportSums,
)
from sklearn_ldp.randomizers import (
    PrivUnitGRandomizer,
    PrivUnitGRecordRandomizer,
    RandomProjection,
    Reports,
)
from sklearn_ldp.utils import audit_randomizer

Z = 5.0


def assert_matches(errors, predicted):
    errors = np.asarray(errors)
    tolerance = Z * errors.std(ddof=1) / math.sqrt(errors.size)
    assert abs(errors.mean() - predicted) <= tolerance, (errors.mean(), predicted)


@pytest.mark.parametrize("epsilon,d", [(0.5, 2), (2.0, 5), (8.0, 3)])
def test_estimates_are_unbiased_with_the_predicted_variance(epsilon, d):
    rand = PrivUnitGRandomizer(d, epsilon=epsilon, data_norm=2.0)
    x = np.linspace(-0.8, 0.6, d)  # data units, ||x|| < 2
    n = 200_000
    reports = rand.randomize(np.tile(x, (n, 1)), random_state=0)
    unit = x / 2.0
    predicted = rand.variance(unit)
    x_hat = rand.estimate_mean(reports)
    se = x_hat.std(axis=0, ddof=1) / math.sqrt(n)
    assert np.all(np.abs(x_hat.mean(axis=0) - x) <= Z * se)
    assert_matches((((x_hat - x) / 2.0) ** 2).sum(axis=1), predicted.mean)
    V = rand._standardized(reports)
    per_user = (np.einsum("ni,nj->nij", V, V) - np.eye(d)) / rand.second_moment_scale
    errors = ((per_user - np.outer(unit, unit)) ** 2).sum(axis=(1, 2))
    assert_matches(errors, predicted.second_moment)
    # The server's mean of the per-user estimates, in data units.
    M = rand.estimate_second_moment(reports)
    se = 4.0 * per_user.reshape(n, -1).std(axis=0, ddof=1) / math.sqrt(n)
    assert np.all(np.abs(M - np.outer(x, x)).ravel() <= Z * se)


def test_predicted_variance_matches_the_accountant():
    rand = PrivUnitGRandomizer(6, epsilon=2.0)
    ideal = privunit_moment_variance(
        6, 2.0, base="gaussian", min_cap_probability=1 / 64
    )
    assert rand.budget_split == ideal.parameters["budget_split"]
    # The lattice law moves the cap by under a cell: variances within 1%.
    assert rand.variance().second_moment == pytest.approx(ideal.second_moment, rel=1e-2)
    assert rand.variance().mean == pytest.approx(ideal.mean, rel=1e-2)
    assert rand.provided_epsilon <= rand.epsilon == 2.0


def test_reports_lie_on_the_lattice_and_validate():
    rand = PrivUnitGRandomizer(3, epsilon=1.0)
    X = np.random.default_rng(0).standard_normal((5_000, 3)) * 3.0  # clipped
    reports = rand.randomize(X, random_state=1)
    valid, reasons = rand.validate_reports(reports)
    assert valid.all() and reasons == {}
    values = reports["x"]
    assert np.all(values / rand.granularity == np.rint(values / rand.granularity))
    config = reports.config
    assert config["randomizer"] == "PrivUnitGRandomizer" and config["delta"] == 0.0
    forged = values.copy()
    forged[0, 0] += rand.granularity / 2  # off the lattice
    forged[1, 1] = 1e3  # outside the support
    forged[2, 2] = np.nan
    valid, reasons = rand.validate_reports(Reports({"x": forged}, config))
    assert valid.sum() == len(valid) - 3
    assert reasons == {"off the lattice": 1, "outside the support": 1, "not finite": 1}


def test_seeds_and_secure_source():
    rand = PrivUnitGRandomizer(2, epsilon=1.0)
    X = np.zeros((100, 2))
    a = rand.randomize(X, random_state=3)["x"]
    assert np.array_equal(a, rand.randomize(X, random_state=3)["x"])
    assert not np.array_equal(a, rand.randomize(X, random_state=4)["x"])
    secure = rand.randomize(X)["x"]
    assert rand.validate_reports(Reports({"x": secure}, rand.get_config()))[0].all()


def test_invalid_parameters():
    with pytest.raises(ValueError):
        PrivUnitGRandomizer(0, epsilon=1.0)
    with pytest.raises(ValueError):
        PrivUnitGRandomizer(2, epsilon=-1.0)
    with pytest.raises(ValueError):
        PrivUnitGRandomizer(2, epsilon=1.0, target="variance")
    with pytest.raises(ValueError):
        PrivUnitGRandomizer(2, epsilon=1.0, budget_split=1.0)
    # Outside the range where the float calibration holds (kappa < 0 at 0.001).
    for epsilon in (0.001, 64.0):
        with pytest.raises(ValueError, match="supports epsilon in"):
            PrivUnitGRandomizer(2, epsilon=epsilon)


def _cap_statistic(matrix):
    """Projection on the first axis: the cap event of the two records."""
    return matrix[:, 0]


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_privacy_audit(epsilon):
    # Records far outside the ball exercise the clipping; u = +-e_1.
    rand = PrivUnitGRandomizer(2, epsilon=epsilon)
    result = audit_randomizer(
        rand, ([50.0, 0.0], None), ([-50.0, 0.0], None), statistic=_cap_statistic
    )
    assert result.passed
    # The cap event is the worst case: the audit certifies most of epsilon.
    assert result.epsilon_lower_bound > 0.8 * epsilon


def test_audit_rejects_an_understated_epsilon():
    rand = PrivUnitGRandomizer(2, epsilon=2.0)
    result = audit_randomizer(
        rand,
        ([50.0, 0.0], None),
        ([-50.0, 0.0], None),
        epsilon=1.5,
        statistic=_cap_statistic,
    )
    assert not result.passed


# -- the pair report of the linear classifiers --------------------------------


@pytest.mark.parametrize("epsilon,n_classes", [(1.0, 2), (4.0, 3)])
def test_pair_reports_give_unbiased_gaussian_equivalent_moments(epsilon, n_classes):
    # Through the server's aggregate, the second moments debias as a Gaussian
    # release of noise sigma_x would, and the first moments are unbiased.
    rand = PrivUnitGRecordRandomizer(
        2, epsilon=epsilon, classes=np.arange(n_classes), data_norm=2.0
    )
    n = 200_000
    rng = np.random.default_rng(0)
    y = rng.integers(n_classes, size=n)
    X = np.column_stack([0.9 * np.cos(y) + 0.1, 0.5 * rng.uniform(-1, 1, n)])
    reports = rand.randomize(X, y, random_state=1)
    sums = PrivUnitFoldedGramSums(
        5,
        2,
        rand.n_targets,
        report_scale=rand.report_scale,
        first_moment_factor=rand.first_moment_factor,
    )
    sums.update(reports, np.arange(n))
    moments = FoldedMoments.from_grams(
        sums.transformed_grams(),
        sums.counts,
        n_outputs=rand.n_targets,
        sigma_x=rand.sigma_x,
        sigma_t=rand.sigma_y,
    ).moments()
    pair = rand.pair(X, y)  # (x, e(y)), what the users randomize
    k = rand.n_targets
    z = rand.report_scale * reports["x"][:, : 2 + k]
    # Second moments (features x features and features x labels).
    per_user = np.einsum("ni,nj->nij", z, z)
    se = per_user.std(axis=0, ddof=1) / np.sqrt(n)
    truth = pair.T @ pair / n
    estimate = np.block([[moments.gram[:2, :2], moments.cross[:2]]])
    assert np.all(np.abs(estimate - truth[:2]) <= Z * se[:2])
    # First moments: the constant column.
    first = rand.first_moment_factor * z
    se = first.std(axis=0, ddof=1) / np.sqrt(n)
    estimate = np.concatenate([moments.gram[:2, -1], moments.cross[-1]])
    assert np.all(np.abs(estimate - pair.mean(axis=0)) <= Z * se)
    # The Gaussian-equivalent noise: each coordinate of z has variance about
    # sigma^2 plus its signal's (the cap adds a little along u).
    assert np.all(z.var(axis=0) >= 0.9 * rand.sigma_x**2)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_pair_privacy_audit(epsilon, privunit_pair_statistic):
    # Features far outside the ball (clipped) and opposite labels.
    rand = PrivUnitGRecordRandomizer(2, epsilon=epsilon, classes=[0, 1])
    a, b = ([50.0, 0.0], 0), ([-50.0, 0.0], 1)
    statistic = privunit_pair_statistic(rand, a, b)
    result = audit_randomizer(rand, a, b, statistic=statistic)
    assert result.passed
    assert result.epsilon_lower_bound > 0.5 * epsilon
    understated = audit_randomizer(
        rand, a, b, epsilon=0.6 * epsilon, statistic=statistic
    )
    assert not understated.passed


def test_pair_reports_validate_and_refuse_bad_parameters():
    rand = PrivUnitGRecordRandomizer(3, epsilon=2.0, classes=["a", "b", "c"])
    X = np.random.default_rng(0).standard_normal((2_000, 3)) * 3.0  # clipped
    reports = rand.randomize(X, np.array(["a", "b", "c"] * 666 + ["a", "a"]))
    assert reports["x"].shape == (2_000, 3 + 3 + 1)
    assert rand.validate_reports(reports)[0].all()
    config = reports.config
    assert config["randomizer"] == "PrivUnitGRecordRandomizer"
    assert config["delta"] == 0.0 and config["classes"] == ["a", "b", "c"]
    with pytest.raises(ValueError, match="not in the public classes"):
        rand.randomize(X[:2], np.array(["a", "d"]))
    with pytest.raises(ValueError, match="epsilon"):
        PrivUnitGRecordRandomizer(3, epsilon=0.01, classes=[0, 1])
    with pytest.raises(ValueError, match="epsilon"):
        PrivUnitGRecordRandomizer(3, epsilon=100.0, classes=[0, 1])
    with pytest.raises(ValueError, match="classes"):
        PrivUnitGRecordRandomizer(3, epsilon=1.0, classes=[0])


# -- the pair report with a regression target (SparseLDPRegressor) ------------


def _regression_pair(n_features, epsilon, **params):
    return PrivUnitGRecordRandomizer(
        n_features, epsilon=epsilon, data_norm=2.0, y_bound=3.0, **params
    )


@pytest.mark.parametrize(
    "epsilon,projected", [(1.0, False), (4.0, True)], ids=["identity", "projected"]
)
def test_regression_pair_gives_unbiased_gaussian_equivalent_moments(
    epsilon, projected
):
    # Through the server's aggregate (PrivUnitFoldedReportSums), the second
    # moments of (phi, y) debias as a Gaussian release of noise sigma_x on
    # the features and sigma_y on y would, the first moments are unbiased.
    d = 4
    params = {}
    if projected:
        params = {
            "feature_map": RandomProjection(d, 2, kind="gaussian", seed=3),
            "feature_norm": 1.5,
        }
    rand = _regression_pair(d, epsilon, **params)
    m = rand.n_released
    n = 200_000
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.9, 0.9, (n, d)) + 0.2
    y = 2.5 * X[:, 0] - X[:, 1] + 0.5 * rng.standard_normal(n)  # some beyond 3
    reports = rand.randomize(X, y, random_state=1)
    sums = PrivUnitFoldedReportSums(
        5,
        m,
        report_scale=rand.report_scale,
        first_moment_factor=rand.first_moment_factor,
        target_scale=rand.target_scale,
    )
    sums.update(reports, np.arange(n))
    total = sums.moment_statistics().total()
    phi = rand.features(X)
    target = np.clip(y, -3.0, 3.0)
    # Per-user pseudo-reports in the units of (phi, y): their per-user
    # products give the standard errors of the sums.
    z = rand.report_scale * reports["x"][:, :m]
    v = rand.report_scale * reports["x"][:, m] / rand.target_scale

    def check(per_user, estimate, truth):
        se = per_user.std(axis=0, ddof=1) / np.sqrt(n)
        assert np.all(np.abs(estimate - truth) <= Z * se), (estimate, truth, se)

    gram = total.gram[:m, :m] / n - rand.sigma_x**2 * np.eye(m)
    check(np.einsum("ni,nj->nij", z, z), gram, phi.T @ phi / n)
    check(z * v[:, None], total.moment[:m] / n, phi.T @ target / n)
    check(rand.first_moment_factor * z, total.gram[:m, m] / n, phi.mean(axis=0))
    check(rand.first_moment_factor * v, total.moment[m] / n, target.mean())
    square = sums.moment_statistics().square_sums.sum() / n - rand.sigma_y**2
    check(v**2, square, np.mean(target**2))
    assert total.n == n
    # The Gaussian-equivalent noise: sigma_y / y_bound = sigma_x / feature_norm.
    assert rand.sigma_y / 3.0 == pytest.approx(rand.sigma_x / rand.feature_norm)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_regression_pair_privacy_audit(epsilon, privunit_pair_statistic):
    # Features far outside the ball and targets beyond y_bound (clipped),
    # in opposite directions.
    rand = _regression_pair(2, epsilon)
    a, b = ([50.0, 0.0], 40.0), ([-50.0, 0.0], -40.0)
    statistic = privunit_pair_statistic(rand, a, b)
    result = audit_randomizer(rand, a, b, statistic=statistic)
    assert result.passed
    assert result.epsilon_lower_bound > 0.5 * epsilon
    understated = audit_randomizer(
        rand, a, b, epsilon=0.6 * epsilon, statistic=statistic
    )
    assert not understated.passed


def test_regression_pair_reports_validate_and_refuse_bad_parameters():
    projection = RandomProjection(5, 3, kind="gaussian", seed=0)
    rand = _regression_pair(5, 2.0, feature_map=projection, feature_norm=1.0)
    X = np.random.default_rng(0).standard_normal((2_000, 5)) * 3.0  # clipped
    reports = rand.randomize(X, np.linspace(-9, 9, 2_000))
    assert reports["x"].shape == (2_000, 3 + 1 + 1)
    assert rand.validate_reports(reports)[0].all()
    config = reports.config
    assert config["delta"] == 0.0 and config["y_bound"] == 3.0
    assert "classes" not in config and config["feature_map"]["seed"] == 0
    assert config["target_scale"] == rand.target_scale == 1.0 / 3.0
    assert rand.pair_norm == pytest.approx(np.sqrt(2.0))
    with pytest.raises(ValueError, match="epsilon"):
        _regression_pair(3, 0.01)
    with pytest.raises(ValueError, match="epsilon"):
        _regression_pair(3, 100.0)
    with pytest.raises(ValueError, match="exactly one of classes"):
        PrivUnitGRecordRandomizer(3, epsilon=1.0)
    with pytest.raises(ValueError, match="exactly one of classes"):
        PrivUnitGRecordRandomizer(3, epsilon=1.0, classes=[0, 1], y_bound=1.0)
    with pytest.raises(ValueError, match="feature_norm"):
        _regression_pair(3, 1.0, feature_map=projection)
    with pytest.raises(ValueError, match="feature_norm"):
        _regression_pair(3, 1.0, feature_norm=1.0)
    with pytest.raises(ValueError, match="NaN"):
        rand.randomize(X[:2], np.array([0.0, np.nan]))
