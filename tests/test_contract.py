"""The client/server contract, literally, for every LDP estimator.

``fit(X, y)`` must be ``fit_reports(make_randomizer(n_features, n_users=len(X),
classes=...).randomize(X, y, random_state))``: the same model for the same
``random_state``. Estimators are discovered from ``sklearn_ldp.__all__``.
"""

import inspect

import numpy as np
import pytest
from sklearn.base import ClassifierMixin, RegressorMixin, clone

import sklearn_ldp
from sklearn_ldp._base import LDPEstimatorMixin

LDP_ESTIMATORS = [
    getattr(sklearn_ldp, name)
    for name in sklearn_ldp.__all__
    if inspect.isclass(getattr(sklearn_ldp, name))
    and issubclass(getattr(sklearn_ldp, name), LDPEstimatorMixin)
]

#: Small configurations that fit in well under a second.
PARAMS = {
    "LocalBernsteinRegressor": {"degree": 3},
    "KernelDensityLDP": {"degree": 4},
    "KWayMarginalsLDP": {"k": 2},
}


def _data(cls, seed=0, n=4000):
    rng = np.random.RandomState(seed)
    if cls.__name__ == "KWayMarginalsLDP":
        return (rng.uniform(size=(n, 4)) < 0.4).astype(float), None
    n_features = 1 if cls.__name__ == "LocalBernsteinRegressor" else 3
    X = rng.uniform(-1, 1, size=(n, n_features)) / np.sqrt(n_features)
    if issubclass(cls, ClassifierMixin):
        return X, np.where(X.sum(axis=1) > 0, "yes", "no")
    if issubclass(cls, RegressorMixin):
        return X, np.clip(X.sum(axis=1) + 0.1 * rng.standard_normal(n), -1, 1)
    return X, None


@pytest.mark.parametrize("cls", LDP_ESTIMATORS, ids=lambda c: c.__name__)
def test_fit_equals_the_contract_call(cls, fitted_attributes, same_fitted_state):
    X, y = _data(cls)
    est = cls(random_state=0, **PARAMS.get(cls.__name__, {}))
    fitted = clone(est).fit(X, y)
    classes = np.unique(y) if issubclass(cls, ClassifierMixin) else None
    randomizer = est.make_randomizer(X.shape[1], n_users=len(X), classes=classes)
    reports = randomizer.randomize(X, y, random_state=est.random_state)
    served = clone(est).fit_reports(reports)
    state = fitted_attributes(
        fitted, exclude=("feature_names_in_", "clipped_fraction_", "clipping_")
    )
    assert state.keys() == fitted_attributes(served).keys()
    same_fitted_state(state, fitted_attributes(served), cls.__name__, rtol=1e-10)


@pytest.mark.parametrize("cls", LDP_ESTIMATORS, ids=lambda c: c.__name__)
def test_make_randomizer_signature(cls):
    params = inspect.signature(cls.make_randomizer).parameters
    assert list(params) == ["self", "n_features", "n_users", "classes"]
    assert params["n_users"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["classes"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["n_users"].default is None and params["classes"].default is None


@pytest.mark.parametrize("cls", LDP_ESTIMATORS, ids=lambda c: c.__name__)
def test_classes_only_for_classifiers(cls):
    est = cls(random_state=0, **PARAMS.get(cls.__name__, {}))
    n_features = 4 if cls.__name__ == "KWayMarginalsLDP" else 1
    if issubclass(cls, ClassifierMixin):
        with pytest.raises(ValueError, match="label set"):
            est.make_randomizer(n_features, n_users=1000)
    else:
        with pytest.raises(ValueError, match="not a classifier"):
            est.make_randomizer(n_features, n_users=1000, classes=[0, 1])


@pytest.mark.parametrize("cls", LDP_ESTIMATORS, ids=lambda c: c.__name__)
def test_one_pass_fit_holds_one_chunk_of_reports(
    cls, monkeypatch, fitted_attributes, same_fitted_state
):
    # A one-pass server aggregates the simulated users chunk by chunk: fit
    # never builds the reports of every user, and gives the model of the
    # whole population's reports (here in chunks of 700 users).
    from sklearn.utils import gen_batches

    from sklearn_ldp.randomizers import LocalRandomizer
    from sklearn_ldp.randomizers import _base as randomizer_base

    X, y = _data(cls)
    est = cls(random_state=0, **PARAMS.get(cls.__name__, {}))
    classes = np.unique(y) if issubclass(cls, ClassifierMixin) else None
    randomizer = est.make_randomizer(X.shape[1], n_users=len(X), classes=classes)
    if est._server_aggregate(randomizer.get_config()) is None:
        pytest.skip("the server needs every report at once")
    monkeypatch.setattr(
        randomizer_base, "gen_batches", lambda n, size: gen_batches(n, 700)
    )
    served = clone(est).fit_reports(
        randomizer.randomize(X, y, random_state=est.random_state)
    )
    # The projected estimators and KernelRidgeLDP run their own chunk loop.
    own_loop = LDPEstimatorMixin._fit_simulated is not cls._fit_simulated
    chunks = []
    original = LocalRandomizer.randomize_chunks

    def counted(self, *args, **kwargs):
        for rows, reports in original(self, *args, **kwargs):
            chunks.append(len(reports))
            yield rows, reports

    def refused(*args, **kwargs):
        raise AssertionError("fit randomized every user at once")

    monkeypatch.setattr(LocalRandomizer, "randomize_chunks", counted)
    if not own_loop:
        monkeypatch.setattr(LocalRandomizer, "randomize", refused)
    fitted = clone(est).fit(X, y)
    if not own_loop:
        assert chunks == [700] * (len(X) // 700) + [len(X) % 700]
    state = fitted_attributes(
        fitted, exclude=("feature_names_in_", "clipped_fraction_", "clipping_")
    )
    same_fitted_state(state, fitted_attributes(served), cls.__name__, rtol=1e-10)
