"""The client/server contract of the LDP mixins, through minimal test estimators."""

import pickle

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
from sklearn_ldp.randomizers import GaussianRecordRandomizer, Reports
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
            delta=1e-5,
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
    rng = check_noise_random_state(0)  # what randomize makes of random_state=0
    reports = est.make_randomizer(2, n_users=len(X)).randomize(X, y, random_state=rng)
    server = _DebiasedLeastSquares(epsilon=2.0, random_state=0).fit_reports(reports)
    np.testing.assert_allclose(est.coef_, server.coef_)
    np.testing.assert_array_equal(est.server_draws_, server.server_draws_)
    assert server.seen_fields_ == ["x", "y"]
    assert server.n_features_in_ == 2
    assert (server.privacy_epsilon_, server.privacy_delta_) == (2.0, 1e-5)


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
