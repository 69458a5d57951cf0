"""The client/server contract of LDPEstimatorMixin, through a minimal test estimator."""

import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from sklearn_ldp._base import LDPEstimatorMixin
from sklearn_ldp.aggregation import SufficientStatistics
from sklearn_ldp.randomizers import GaussianRecordRandomizer, Reports
from sklearn_ldp.utils import check_noise_random_state


class _DebiasedLeastSquares(LDPEstimatorMixin, RegressorMixin, BaseEstimator):
    """Test double: ridge on debiased sufficient statistics of Gaussian reports."""

    _parameter_constraints = {**LDPEstimatorMixin._ldp_parameter_constraints}

    def __init__(self, *, epsilon=1.0, random_state=None):
        self.epsilon = epsilon
        self.random_state = random_state

    def make_randomizer(self, n_features):
        return GaussianRecordRandomizer(
            n_features, epsilon=self.epsilon, delta=1e-5, data_norm=1.0, y_bound=1.0
        )

    def _fit_server(self, reports, rng):
        self.seen_fields_ = sorted(reports.fields)
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


def make_data(n=20_000, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(n, 2)) / np.sqrt(2)
    y = X @ np.array([0.8, -0.5]) + 0.05 * rng.standard_normal(n)
    return X, y


def test_fit_is_randomize_then_fit_reports():
    X, y = make_data()
    est = _DebiasedLeastSquares(epsilon=2.0, random_state=0).fit(X, y)
    rng = check_noise_random_state(0)  # what fit makes of random_state=0
    reports = est.make_randomizer(2).randomize(X, y, random_state=rng)
    server = _DebiasedLeastSquares(epsilon=2.0, random_state=0).fit_reports(reports)
    np.testing.assert_allclose(est.coef_, server.coef_)
    assert server.seen_fields_ == ["x", "y"]
    assert server.n_features_in_ == 2
    assert (server.privacy_epsilon_, server.privacy_delta_) == (2.0, 1e-5)


def test_reports_from_another_configuration_are_refused():
    X, y = make_data(100)
    reports = _DebiasedLeastSquares(epsilon=1.0).make_randomizer(2).randomize(X, y, 0)
    with pytest.raises(ValueError, match="epsilon: 2.0 != 1.0"):
        _DebiasedLeastSquares(epsilon=2.0).fit_reports(reports)
    with pytest.raises(TypeError, match="Reports"):
        _DebiasedLeastSquares().fit_reports(np.zeros((3, 3)))


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
