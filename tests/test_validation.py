"""The server validates every report: invalid ones change nothing but a count.

For every LDP estimator (from ``sklearn_ldp.__all__``): honest reports plus
one report of 1e12, one with a NaN and one off the lattice give the model of
the honest reports alone, ``n_reports_rejected_ == 3`` and an
:class:`~sklearn_ldp.exceptions.InvalidReportWarning` naming the count;
reports that are all invalid are refused. And ``delta >= 1/n`` warns, in the
LDP and the central estimators.
"""

import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import ClassifierMixin, RegressorMixin, clone

import sklearn_ldp
from sklearn_ldp import InvalidReportWarning, LargeDeltaWarning
from sklearn_ldp._base import LDPEstimatorMixin
from sklearn_ldp.randomizers import Reports

LDP_ESTIMATORS = [
    getattr(sklearn_ldp, name)
    for name in sklearn_ldp.__all__
    if inspect.isclass(getattr(sklearn_ldp, name))
    and issubclass(getattr(sklearn_ldp, name), LDPEstimatorMixin)
]
CENTRAL_ESTIMATORS = [sklearn_ldp.DPSVRGClassifier, sklearn_ldp.DPConstrainedClassifier]

#: Small configurations that fit in well under a second (as tests/test_contract.py).
PARAMS = {
    "LocalBernsteinRegressor": {"degree": 3},
    "KernelDensityLDP": {"degree": 4},
    "KWayMarginalsLDP": {"k": 2},
}
N_USERS = 4000


def _data(cls, n=N_USERS, seed=0):
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


def _honest_reports(cls):
    X, y = _data(cls)
    est = cls(random_state=0, **PARAMS.get(cls.__name__, {}))
    classes = np.unique(y) if issubclass(cls, ClassifierMixin) else None
    randomizer = est.make_randomizer(X.shape[1], n_users=len(X), classes=classes)
    return est, randomizer, randomizer.randomize(X, y, random_state=0)


def _bad_reports(randomizer, honest):
    """Three copies of honest reports: one value 1e12, one NaN, one off the lattice."""
    support = randomizer.report_support()
    fields = {
        name: np.array(value[:3], dtype=np.float64)
        for name, value in honest.fields.items()
    }
    # The field with the finest lattice carries the damage (any field would do).
    name = min(support, key=lambda field: np.min(support[field].step))
    values = fields[name].reshape(3, -1)
    values[0, 0] = 1e12
    values[1, -1] = np.nan
    field = support[name]
    step = float(np.broadcast_to(field.step, field.shape).ravel()[0])
    high = float(np.broadcast_to(field.high, field.shape).ravel()[0])
    values[2, 0] += step / 2 if values[2, 0] + step / 2 <= high else -step / 2
    return Reports(fields, honest.config)


@pytest.mark.parametrize("cls", LDP_ESTIMATORS, ids=lambda c: c.__name__)
def test_invalid_reports_do_not_move_the_model(
    cls, fitted_attributes, same_fitted_state
):
    est, randomizer, honest = _honest_reports(cls)
    bad = _bad_reports(randomizer, honest)
    contaminated = Reports.concatenate([bad.subset([0]), honest, bad.subset([1, 2])])
    with pytest.warns(
        InvalidReportWarning, match=f"3 of {N_USERS + 3} reports"
    ) as record:
        fitted = clone(est).fit_reports(contaminated)
    message = str(record[0].message)
    for reason in ["not finite", "off the lattice", "outside the support"]:
        assert reason in message
    assert fitted.n_reports_rejected_ == 3
    reference = clone(est).fit_reports(honest)
    assert reference.n_reports_rejected_ == 0
    exclude = ("n_reports_rejected_",)
    state = fitted_attributes(fitted, exclude=exclude)
    expected = fitted_attributes(reference, exclude=exclude)
    assert set(state) == set(expected)
    for key in expected:
        same_fitted_state(state[key], expected[key], key, rtol=1e-9)


@pytest.mark.parametrize("cls", LDP_ESTIMATORS, ids=lambda c: c.__name__)
def test_all_invalid_reports_are_refused(cls):
    est, randomizer, honest = _honest_reports(cls)
    with pytest.raises(ValueError, match="No valid report remains: 3 of 3"):
        clone(est).fit_reports(_bad_reports(randomizer, honest))
    with pytest.raises(ValueError, match="No reports"):
        clone(est).fit_reports(honest.subset(np.arange(0)))


@pytest.mark.parametrize("cls", LDP_ESTIMATORS, ids=lambda c: c.__name__)
def test_fit_rejects_nothing(cls):
    X, y = _data(cls, n=1000)
    est = cls(random_state=0, **PARAMS.get(cls.__name__, {}))
    with warnings.catch_warnings():
        warnings.simplefilter("error", InvalidReportWarning)
        assert est.fit(X, y).n_reports_rejected_ == 0


DELTA_ESTIMATORS = [
    cls for cls in LDP_ESTIMATORS + CENTRAL_ESTIMATORS if "delta" in cls().get_params()
]


#: Parameters that keep the joint (x, y) Gaussian reports of 500 users.
JOINT_REPORTS = {
    sklearn_ldp.KernelRidgeLDP: {"n_components": 20, "mechanism": "gaussian"},
    sklearn_ldp.SparseLDPRegressor: {"n_components": 2, "mechanism": "gaussian"},
    # Below the threshold the classifiers' users send the label alone.
    sklearn_ldp.GLMLDPClassifier: {"selection": None, "mechanism": "gaussian"},
    sklearn_ldp.HingeLDPClassifier: {"selection": None, "mechanism": "gaussian"},
    sklearn_ldp.SparseLDPClassifier: {"n_components": 3, "mechanism": "gaussian"},
}


@pytest.mark.parametrize("cls", DELTA_ESTIMATORS, ids=lambda c: c.__name__)
def test_delta_at_least_one_over_n_warns(cls):
    X, y = _data(cls if cls not in CENTRAL_ESTIMATORS else sklearn_ldp.GLMLDPClassifier)
    X, y = X[:500], None if y is None else y[:500]
    params = PARAMS.get(cls.__name__, {})
    if cls in CENTRAL_ESTIMATORS:
        params = (
            {**params, "max_iter": 2} if "max_iter" in cls().get_params() else params
        )
    if cls in JOINT_REPORTS:
        # With the public defaults the reports are pure epsilon (delta 0,
        # nothing to warn about): 500 users too few for any model send y
        # alone, or the pair goes in one PrivUnitG report; an explicit
        # configuration keeps the joint Gaussian reports.
        classes = np.unique(y) if issubclass(cls, ClassifierMixin) else None
        randomizer = cls(delta=2e-3, **params).make_randomizer(
            X.shape[1], n_users=500, classes=classes
        )
        assert randomizer.delta == 0
        params = {**params, **JOINT_REPORTS[cls]}
    with pytest.warns(
        LargeDeltaWarning, match=r"delta = 0.002 >= 1/n = 0.002 \(n = 500\)"
    ):
        cls(delta=2e-3, random_state=0, **params).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LargeDeltaWarning)
        cls(delta=1e-4, random_state=0, **params).fit(X, y)
