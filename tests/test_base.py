"""The client/server contract of the LDP mixins, through minimal test estimators."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from sklearn_ldp._base import (
    LDPClassifierMixin,
    LDPEstimatorMixin,
    LDPRegressorMixin,
    LDPUnsupervisedMixin,
)
from sklearn_ldp.aggregation import SufficientStatistics
from sklearn_ldp.exceptions import InvalidReportWarning, LargeDeltaWarning
from sklearn_ldp.randomizers import (
    FieldSupport,
    GaussianRecordRandomizer,
    LocalRandomizer,
    Reports,
    discrete_laplace,
    to_lattice,
)
from sklearn_ldp.utils import check_noise_random_state, check_server_random_state


class _DebiasedLeastSquares(LDPRegressorMixin, RegressorMixin, BaseEstimator):
    """Test double: ridge on debiased sufficient statistics of Gaussian reports."""

    _parameter_constraints = {**LDPEstimatorMixin._ldp_parameter_constraints}

    def __init__(self, *, epsilon=1.0, data_norm=1.0, random_state=None):
        self.epsilon = epsilon
        self.data_norm = data_norm
        self.random_state = random_state

    def make_randomizer(self, n_features, *, n_users=None, classes=None):
        self._refuse_classes(classes)
        return GaussianRecordRandomizer(
            n_features,
            epsilon=self.epsilon,
            delta=1e-7,  # below 1/n for the 200,000 users of the tests
            data_norm=self.data_norm,
            y_bound=1.0,
        )

    def _fit_server(self, reports, rng):
        self.seen_fields_ = sorted(reports.fields)
        self.server_draws_ = rng.standard_normal(3)
        stats = SufficientStatistics(reports.n_features)
        stats.update(reports["x"], reports["y"])
        gram = stats.debiased_gram(reports.config["sigma_x"]) / stats.n
        self.coef_ = np.linalg.solve(
            gram + 1e-3 * np.eye(len(gram)), stats.moment / stats.n
        )

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return X @ self.coef_


class _LabelMeans(LDPClassifierMixin, ClassifierMixin, BaseEstimator):
    """Test double: class-mean direction from Gaussian reports of encoded labels."""

    _parameter_constraints = {**LDPEstimatorMixin._ldp_parameter_constraints}

    def __init__(self, *, epsilon=1.0, random_state=None):
        self.epsilon = epsilon
        self.random_state = random_state

    def make_randomizer(self, n_features, *, n_users=None, classes=None):
        classes = self._require_classes(classes)
        return GaussianRecordRandomizer(
            n_features, epsilon=self.epsilon, delta=1e-5, classes=classes
        )

    def _fit_server(self, reports, rng):
        self.coef_ = reports["x"].T @ reports["y"] / len(reports)

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return self.classes_[(X @ self.coef_ > 0).astype(int)]


class _Mean(LDPUnsupervisedMixin, BaseEstimator):
    """Test double: the mean of Gaussian reports of ``x`` alone."""

    _parameter_constraints = {**LDPEstimatorMixin._ldp_parameter_constraints}

    def __init__(self, *, epsilon=1.0, random_state=None):
        self.epsilon = epsilon
        self.random_state = random_state

    def make_randomizer(self, n_features, *, n_users=None, classes=None):
        self._refuse_classes(classes)
        return GaussianRecordRandomizer(n_features, epsilon=self.epsilon, delta=1e-5)

    def _fit_server(self, reports, rng):
        self.mean_ = reports["x"].mean(axis=0)


def make_data(n=20_000, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(n, 2)) / np.sqrt(2)
    y = X @ np.array([0.8, -0.5]) + 0.05 * rng.standard_normal(n)
    return X, y


def test_fit_is_randomize_then_fit_reports():
    X, y = make_data()
    est = _DebiasedLeastSquares(epsilon=2.0, random_state=0).fit(X, y)
    reports = est.make_randomizer(2, n_users=len(X)).randomize(X, y, random_state=0)
    server = _DebiasedLeastSquares(epsilon=2.0, random_state=0).fit_reports(reports)
    np.testing.assert_allclose(est.coef_, server.coef_)
    np.testing.assert_array_equal(est.server_draws_, server.server_draws_)
    assert server.seen_fields_ == ["x", "y"]
    assert server.n_features_in_ == 2
    assert (server.privacy_epsilon_, server.privacy_delta_) == (2.0, 1e-7)


def test_the_server_stream_is_apart_from_the_users_noise():
    X, y = make_data(100)
    est = _DebiasedLeastSquares(random_state=0).fit(X, y)
    # The server draws from check_server_random_state(seed), never from the
    # stream that made the users' noise.
    server = check_server_random_state(0).standard_normal(3)
    noise = check_noise_random_state(0).standard_normal(3)
    np.testing.assert_array_equal(est.server_draws_, server)
    assert not np.any(np.isin(est.server_draws_, noise))
    # The same holds when the server alone is given the seed.
    reports = est.make_randomizer(2).randomize(X, y, random_state=1)
    served = _DebiasedLeastSquares(random_state=0).fit_reports(reports)
    np.testing.assert_array_equal(served.server_draws_, server)


def test_reports_from_another_configuration_are_refused():
    X, y = make_data(100)
    reports = _DebiasedLeastSquares(epsilon=1.0).make_randomizer(2).randomize(X, y, 0)
    with pytest.raises(ValueError, match="epsilon: 2.0 != 1.0"):
        _DebiasedLeastSquares(epsilon=2.0).fit_reports(reports)
    with pytest.raises(TypeError, match="Reports"):
        _DebiasedLeastSquares().fit_reports(np.zeros((3, 3)))


def test_a_refusal_names_every_differing_key():
    X, y = make_data(100)
    reports = _DebiasedLeastSquares().make_randomizer(2).randomize(X, y, 0)
    other = _DebiasedLeastSquares(epsilon=2.0, data_norm=0.5)
    with pytest.raises(ValueError, match="differs from this estimator's") as error:
        other.fit_reports(reports)
    message = str(error.value)
    for key in ["data_norm: 0.5 != 1.0", "epsilon: 2.0 != 1.0", "sigma_x"]:
        assert key in message
    assert "y_bound" not in message  # only the keys that differ
    assert not hasattr(other, "coef_")


def test_streaming_batches_concatenate():
    X, y = make_data(2000)
    randomizer = _DebiasedLeastSquares().make_randomizer(2)
    batches = [randomizer.randomize(X[i::2], y[i::2], random_state=i) for i in range(2)]
    est = _DebiasedLeastSquares().fit_reports(Reports.concatenate(batches))
    assert est.coef_.shape == (2,)


def test_clone_pickle_and_utility_trend():
    X, y = make_data(200_000)
    errors = []
    for epsilon in [0.5, 8.0]:
        est = _DebiasedLeastSquares(epsilon=epsilon, random_state=0).fit(X, y)
        errors.append(np.linalg.norm(est.coef_ - [0.8, -0.5]))
    assert errors[1] < errors[0]
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_allclose(again.predict(X[:5]), est.predict(X[:5]))
    assert clone(est).get_params() == est.get_params()


def test_bad_epsilon_is_a_clear_error():
    X, y = make_data(100)
    with pytest.raises(ValueError, match="epsilon"):
        _DebiasedLeastSquares(epsilon=0.0).fit(X, y)
    with pytest.raises(ValueError, match="epsilon"):
        _DebiasedLeastSquares(epsilon=-1.0).fit(X, y)


def test_regressors_and_unsupervised_estimators_refuse_classes():
    for est in [_DebiasedLeastSquares(), _Mean()]:
        with pytest.raises(ValueError, match="is not a classifier"):
            est.make_randomizer(2, classes=[0, 1])
        # n_users is accepted and ignored by estimators that do not need it.
        assert est.make_randomizer(2, n_users=10).get_config() == (
            est.make_randomizer(2).get_config()
        )


def test_unsupervised_fit_is_randomize_then_fit_reports():
    X, _ = make_data(500)
    est = _Mean(random_state=0).fit(X)
    reports = est.make_randomizer(2, n_users=len(X)).randomize(X, random_state=0)
    np.testing.assert_array_equal(
        _Mean(random_state=0).fit_reports(reports).mean_, est.mean_
    )


def test_classifiers_require_the_public_classes():
    with pytest.raises(ValueError, match="needs the public label set"):
        _LabelMeans().make_randomizer(2)
    with pytest.raises(ValueError, match="at least two classes"):
        _LabelMeans().make_randomizer(2, classes=["a"])
    with pytest.raises(ValueError, match="distinct labels"):
        _LabelMeans().make_randomizer(2, classes=["a", "a"])
    X, y = make_data(100)
    with pytest.raises(ValueError, match="one class"):
        _LabelMeans().fit(X, np.full(100, "a"))


def test_classifiers_take_classes_from_the_reports():
    X, y = make_data(4000)
    labels = np.where(y > 0, "up", "down")
    est = _LabelMeans(random_state=0).fit(X, labels)
    np.testing.assert_array_equal(est.classes_, ["down", "up"])
    classes = np.unique(labels)
    randomizer = est.make_randomizer(2, n_users=len(X), classes=classes)
    reports = randomizer.randomize(X, labels, random_state=0)
    served = _LabelMeans(random_state=0).fit_reports(reports)
    np.testing.assert_array_equal(served.classes_, est.classes_)
    np.testing.assert_array_equal(served.coef_, est.coef_)
    # The label set travels in the reports: the server takes it from there.
    three = _LabelMeans().make_randomizer(2, classes=["down", "flat", "up"])
    other = three.randomize(X[:10], np.full(10, "flat"), random_state=0)
    np.testing.assert_array_equal(
        _LabelMeans().fit_reports(other).classes_, ["down", "flat", "up"]
    )
    with pytest.raises(ValueError, match="epsilon: 2.0 != 1.0"):
        _LabelMeans(epsilon=2.0).fit_reports(reports)


class _LatticeRandomizer(LocalRandomizer):
    """Test double: x clipped to [-1, 1] plus discrete Laplace noise on 2**-6 Z,
    and a public bucket in {0, ..., 3} (an integer field)."""

    requires_y = False
    granularity = 2.0**-6
    half_width = 512  # lattice steps: the noise lies in [-8, 8]

    def __init__(self, n_features, *, epsilon, delta=0.0):
        self.n_features, self.epsilon, self.delta = n_features, epsilon, delta
        self._noise = discrete_laplace(epsilon * self.granularity / 2, self.half_width)

    def report_support(self):
        reach = 1.0 + self.half_width * self.granularity
        return {
            "x": FieldSupport((self.n_features,), -reach, reach, self.granularity),
            "bucket": FieldSupport((), 0, 3, 1),
        }

    def _randomize_chunk(self, X, y, source, public):
        clipped = to_lattice(np.clip(X, -1.0, 1.0), self.granularity)
        noise = self._noise.sample(source, X.shape) * self.granularity
        return {"x": clipped + noise, "bucket": public.integers(4, X.shape[0])}


class _LatticeMean(LDPUnsupervisedMixin, BaseEstimator):
    """Test double: the mean of lattice reports and the count of each bucket."""

    _parameter_constraints = {
        **LDPEstimatorMixin._ldp_parameter_constraints,
        "delta": [float],
    }

    def __init__(self, *, epsilon=1.0, delta=0.0, random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.random_state = random_state

    def make_randomizer(self, n_features, *, n_users=None, classes=None):
        self._refuse_classes(classes)
        return _LatticeRandomizer(n_features, epsilon=self.epsilon, delta=self.delta)

    def _fit_server(self, reports, rng):
        self.mean_ = reports["x"].mean(axis=0)
        # Indexing needs the integer dtype an upcast field must get back.
        self.bucket_counts_ = np.bincount(reports["bucket"], minlength=4)
        self.server_draws_ = rng.standard_normal(2)


def _honest_and_bad(n=2000, seed=0):
    X, _ = make_data(n, seed)
    honest = _LatticeMean().make_randomizer(2).randomize(X, random_state=seed)
    g = _LatticeRandomizer.granularity
    bad = honest.subset(np.arange(4)).fields
    bad = {
        "x": bad["x"].astype(np.float64).copy(),
        "bucket": bad["bucket"].astype(float),
    }
    bad["x"][0, 0] = 1e12  # outside the support
    bad["x"][1, 1] = np.nan  # not finite
    bad["x"][2, 0] += g / 2  # off the lattice, inside the range
    bad["bucket"][3] = 1.5  # off the integer lattice
    return honest, Reports(bad, honest.config)


def test_invalid_reports_are_dropped_counted_and_named():
    honest, bad = _honest_and_bad()
    mixed = Reports.concatenate(
        [bad.subset(slice(0, 2)), honest, bad.subset(slice(2, 4))]
    )
    assert mixed["bucket"].dtype.kind == "f"  # the NaN batch upcast the integers
    with pytest.warns(InvalidReportWarning) as record:
        est = _LatticeMean(random_state=0).fit_reports(mixed)
    message = str(record[0].message)
    assert "4 of 2004 reports rejected" in message
    for reason in ["1 not finite", "2 off the lattice", "1 outside the support"]:
        assert reason in message
    assert est.n_reports_rejected_ == 4
    reference = _LatticeMean(random_state=0).fit_reports(honest)
    assert reference.n_reports_rejected_ == 0
    np.testing.assert_array_equal(est.mean_, reference.mean_)
    np.testing.assert_array_equal(est.bucket_counts_, reference.bucket_counts_)
    np.testing.assert_array_equal(est.server_draws_, reference.server_draws_)


def test_honest_reports_raise_no_warning():
    honest, _ = _honest_and_bad(500)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = _LatticeMean(random_state=0).fit_reports(honest)
    assert est.n_reports_rejected_ == 0
    X, _ = make_data(500)
    assert _LatticeMean(random_state=0).fit(X).n_reports_rejected_ == 0


def test_no_valid_report_is_an_error():
    honest, bad = _honest_and_bad()
    with pytest.raises(ValueError, match="No valid report remains: 4 of 4"):
        _LatticeMean().fit_reports(bad)
    with pytest.raises(ValueError, match="No reports"):
        _LatticeMean().fit_reports(honest.subset(np.arange(0)))
    # A wrong per-user shape or a missing field rejects the whole batch.
    wide = Reports({"x": np.zeros((5, 3)), "bucket": np.zeros(5, int)}, honest.config)
    with pytest.raises(ValueError, match=r"per-user shape \(3,\), expected \(2,\)"):
        _LatticeMean().fit_reports(wide)
    missing = Reports({"x": np.zeros((5, 2))}, honest.config)
    with pytest.raises(ValueError, match="bucket"):
        _LatticeMean().fit_reports(missing)
    text = Reports({"x": np.zeros((5, 2)), "bucket": np.full(5, "1")}, honest.config)
    with pytest.raises(ValueError, match="'bucket' has dtype <U1, not a number"):
        _LatticeMean().fit_reports(text)


def test_delta_at_least_one_over_n_warns():
    X, _ = make_data(1000)
    with pytest.warns(LargeDeltaWarning, match="delta = 0.001 >= 1/n = 0.001"):
        _LatticeMean(delta=1e-3).fit(X)
    reports = _LatticeMean(delta=1e-3).make_randomizer(2).randomize(X, random_state=0)
    with pytest.warns(LargeDeltaWarning, match="n = 1000"):
        _LatticeMean(delta=1e-3).fit_reports(reports)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _LatticeMean(delta=1e-4).fit(X)
        _LatticeMean(delta=0.0).fit(X)
