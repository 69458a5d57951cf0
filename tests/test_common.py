"""scikit-learn's estimator checks over every public estimator of the package.

Estimators are discovered from ``sklearn_ldp.__all__``, so each new estimator
is checked as soon as it is exported; no check is expected to fail.
"""

import inspect

import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import parametrize_with_checks

import sklearn_ldp


def public_estimators():
    estimators = []
    for name in sklearn_ldp.__all__:
        obj = getattr(sklearn_ldp, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            estimators.append(obj)
    return estimators


ESTIMATORS = public_estimators()


def test_every_export_resolves():
    for name in sklearn_ldp.__all__:
        assert hasattr(sklearn_ldp, name), name


@pytest.mark.skipif(not ESTIMATORS, reason="no estimator exported yet")
@parametrize_with_checks(
    [
        cls(random_state=0) if "random_state" in cls().get_params() else cls()
        for cls in ESTIMATORS
    ]
    or [BaseEstimator()],
    expected_failed_checks=lambda est: {},
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
