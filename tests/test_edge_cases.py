"""Every public estimator answers every bad or extreme input clearly.

The table of issue 18, parametrized over ``sklearn_ldp.__all__``: epsilon in
{1e-9, 1e-3, 1e6, 1e9}; delta = 1/n and 0.5; data 100x outside the declared
bounds; NaN and inf; a single class; a single user; ``sample_weight``; and
``GridSearchCV`` over epsilon. Each case either fits with finite outputs that
respect the declared bounds (predictions within ``y_bound``, probabilities in
[0, 1], finite scores and densities) or raises a ``ValueError`` naming the
parameter, with the warnings the docs promise. No other exception type
(``TypeError``, ``OverflowError``, ``LinAlgError``) and no NaN output.
"""

import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.model_selection import GridSearchCV

import sklearn_ldp
from sklearn_ldp import ClippingWarning, LargeDeltaWarning

ESTIMATORS = [
    getattr(sklearn_ldp, name)
    for name in sklearn_ldp.__all__
    if inspect.isclass(getattr(sklearn_ldp, name))
    and issubclass(getattr(sklearn_ldp, name), BaseEstimator)
]
PRIVATE = [cls for cls in ESTIMATORS if "epsilon" in cls().get_params()]
CLASSIFIERS = [cls for cls in PRIVATE if issubclass(cls, ClassifierMixin)]

#: Small configurations that fit fast (as tests/test_contract.py).
PARAMS = {
    "LocalBernsteinRegressor": {"degree": 3},
    "KernelDensityLDP": {"degree": 4},
    "KWayMarginalsLDP": {"k": 2},
}
N_USERS = 600
EPSILONS = [1e-9, 1e-3, 1e6, 1e9]


def _data(cls, n=N_USERS, seed=0, scale=1.0):
    """Records inside the default public bounds (``scale`` times them)."""
    rng = np.random.RandomState(seed)
    name = cls.__name__
    if name == "KWayMarginalsLDP":
        return (rng.uniform(size=(n, 4)) < 0.4).astype(float) * scale, None
    if name == "FrequencyLDP":
        return rng.randint(0, 4, size=(n, 1)).astype(float) * scale, None
    n_features = 1 if name == "LocalBernsteinRegressor" else 3
    X = rng.uniform(-1, 1, size=(n, n_features)) / np.sqrt(n_features)
    if issubclass(cls, ClassifierMixin):
        return X * scale, (X.sum(axis=1) > 0).astype(int)
    if issubclass(cls, RegressorMixin):
        y = np.clip(X.sum(axis=1) + 0.1 * rng.standard_normal(n), -1, 1)
        return X * scale, y * scale
    return X * scale, None


def _estimator(cls, **params):
    params = {**PARAMS.get(cls.__name__, {}), **params}
    if "random_state" in cls().get_params():
        params["random_state"] = 0
    return cls(**params)


def _check_outputs(est, X, y):
    """Finite outputs inside the declared bounds."""
    if hasattr(est, "predict"):
        pred = est.predict(X)
        if issubclass(type(est), ClassifierMixin):
            assert set(np.unique(pred)) <= set(est.classes_)
        else:
            pred = np.asarray(pred, dtype=float)
            assert np.all(np.isfinite(pred))
            bound = est.get_params().get("y_bound")
            if bound is not None:
                assert np.all(np.abs(pred) <= bound * (1 + 1e-12)), pred
    if hasattr(est, "predict_proba"):
        proba = est.predict_proba(X)
        assert np.all(np.isfinite(proba))
        assert np.all((proba >= 0) & (proba <= 1))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    if hasattr(est, "decision_function"):
        assert np.all(np.isfinite(est.decision_function(X)))
    if hasattr(est, "score_samples"):
        assert np.all(np.isfinite(est.score_samples(X)))
    if hasattr(est, "transform"):
        assert np.all(np.isfinite(est.transform(X)))
    if hasattr(est, "score"):
        score = est.score(X, y) if y is not None else est.score(X)
        assert np.isfinite(score)
    for name in ("coef_", "intercept_", "location_", "frequencies_", "marginals_"):
        value = getattr(est, name, None)
        if isinstance(value, np.ndarray | float):
            assert np.all(np.isfinite(value)), name


def _fit_or_value_error(est, X, y, parameter):
    """Fit; a refusal must be a ValueError naming ``parameter``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
    except ValueError as error:
        assert parameter in str(error), str(error)
        return False
    return True


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("cls", PRIVATE, ids=lambda c: c.__name__)
def test_every_epsilon_fits_or_names_epsilon(cls, epsilon):
    X, y = _data(cls)
    est = _estimator(cls, epsilon=epsilon)
    if _fit_or_value_error(est, X, y, "epsilon"):
        _check_outputs(est, X, y)


@pytest.mark.parametrize("cls", PRIVATE, ids=lambda c: c.__name__)
def test_delta_at_one_over_n_warns(cls):
    if "delta" not in cls().get_params():
        pytest.skip(f"{cls.__name__} is pure epsilon-DP")
    X, y = _data(cls)
    est = _estimator(cls, delta=1.0 / len(X))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    _check_outputs(est, X, y)
    provided = est.privacy_delta_
    assert provided <= 1.0 / len(X)
    warned = any(issubclass(w.category, LargeDeltaWarning) for w in caught)
    # Warn exactly when the delta actually spent is at least 1/n.
    assert warned == (provided * len(X) >= 1)


@pytest.mark.parametrize("cls", PRIVATE, ids=lambda c: c.__name__)
def test_delta_one_half(cls):
    if "delta" not in cls().get_params():
        pytest.skip(f"{cls.__name__} is pure epsilon-DP")
    X, y = _data(cls)
    est = _estimator(cls, delta=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est.fit(X, y)
        except ValueError as error:
            assert "delta" in str(error)
            return
    _check_outputs(est, X, y)
    if est.privacy_delta_ * len(X) >= 1:
        assert any(issubclass(w.category, LargeDeltaWarning) for w in caught)


@pytest.mark.parametrize("cls", PRIVATE, ids=lambda c: c.__name__)
def test_data_far_outside_the_bounds_warns_or_is_refused(cls):
    X, y = _data(cls, scale=100.0)
    est = _estimator(cls)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est.fit(X, y)
        except ValueError:
            # Records the randomizer cannot encode at all (binary,
            # categorical) are refused instead.
            assert cls.__name__ in ("KWayMarginalsLDP", "FrequencyLDP")
            return
    _check_outputs(est, X, y)
    if cls.__name__ == "FrequencyLDP":
        # Values outside the public domain are reported as the public
        # "other" cell (``unknown='other'``), estimated, not clipped.
        assert est.other_frequency_ > 0.5
        return
    if cls.__name__ == "KWayMarginalsLDP":
        # The public rule ``x_j > binarize`` encodes any real record; no bound
        # is clipped (``binarize=None`` refuses non-binary records instead).
        with pytest.raises(ValueError, match="0|binar"):
            _estimator(cls, binarize=None).fit(X, y)
        return
    clipping = [w for w in caught if issubclass(w.category, ClippingWarning)]
    assert clipping, [str(w.message) for w in caught]
    assert est.clipped_fraction_ > 0.5
    assert "%" in str(clipping[0].message)


@pytest.mark.parametrize("cls", PRIVATE, ids=lambda c: c.__name__)
def test_data_inside_the_bounds_does_not_warn(cls):
    X, y = _data(cls)
    est = _estimator(cls)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        est.fit(X, y)
    if hasattr(est, "clipped_fraction_"):
        assert est.clipped_fraction_ == 0.0


@pytest.mark.parametrize("value", [np.nan, np.inf])
@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_non_finite_records_are_refused(cls, value):
    X, y = _data(cls)
    X = X.copy()
    X[3, 0] = value
    with pytest.raises(ValueError, match="NaN|infinity|finite"):
        _estimator(cls).fit(X, y)


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda c: c.__name__)
def test_a_single_class_is_refused(cls):
    X, y = _data(cls)
    with pytest.raises(ValueError, match="class"):
        _estimator(cls).fit(X, np.zeros_like(y))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_a_single_user(cls):
    X, y = _data(cls, n=N_USERS)
    X1 = X[:1]
    y1 = None if y is None else y[:1]
    est = _estimator(cls)
    if issubclass(cls, ClassifierMixin):
        # One user has one label: a classifier refuses it (a single class).
        with pytest.raises(ValueError, match="class"):
            est.fit(X1, y1)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            est.fit(X1, y1)
        except ValueError as error:
            assert "user" in str(error) or "sample" in str(error), str(error)
            return
    _check_outputs(est, X, y)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_sample_weight_is_supported_or_refused_clearly(cls):
    X, y = _data(cls)
    est = _estimator(cls)
    weights = np.ones(len(X))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y, sample_weight=weights)
    except (TypeError, ValueError) as error:
        message = str(error)
        assert cls.__name__ in message and "sample_weight" in message, message
        assert "LDPEstimatorMixin" not in message
        return
    _check_outputs(est, X, y)


@pytest.mark.parametrize("cls", PRIVATE, ids=lambda c: c.__name__)
def test_grid_search_over_epsilon(cls):
    X, y = _data(cls)
    search = GridSearchCV(_estimator(cls), {"epsilon": [0.5, 4.0]}, cv=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X, y)
    assert search.best_params_["epsilon"] in (0.5, 4.0)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    clone(search.best_estimator_)
