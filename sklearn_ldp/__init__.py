"""sklearn_ldp: scikit-learn estimators under local and central differential privacy.

Every public estimator listed in ``__all__`` is checked by
``tests/test_common.py``. Estimators are imported lazily (on first access),
so that a device importing the client side alone, ``sklearn_ldp.randomizers``,
loads no estimator or server code.
"""

import importlib

from .exceptions import (
    ClippingWarning,
    InvalidReportWarning,
    LargeDeltaWarning,
    PrivacyLeakWarning,
)

__version__ = "0.1.0.dev0"

#: Public estimator -> the module that defines it.
_ESTIMATORS = {
    "DPConstrainedClassifier": "._dp_constrained",
    "DPSVRGClassifier": "._dp_svrg",
    "FrequencyLDP": "._frequency",
    "GLMLDPClassifier": "._glm",
    "HingeLDPClassifier": "._hinge",
    "KernelDensityLDP": "._kde",
    "KernelRidgeLDP": "._kernel_ridge",
    "KWayMarginalsLDP": "._marginals",
    "LocalBernsteinRegressor": "._bernstein",
    "PublicBoundsScaler": "._preprocessing",
    "SparseLDPClassifier": "._sparse_classifier",
    "SparseLDPMeanEstimator": "._sparse",
    "SparseLDPRegressor": "._sparse",
}

#: Public functions -> the module that defines them (imported lazily too).
_FUNCTIONS = {
    "read_reports": ".io",
}

__all__ = [
    "ClippingWarning",
    "DPConstrainedClassifier",
    "DPSVRGClassifier",
    "FrequencyLDP",
    "GLMLDPClassifier",
    "HingeLDPClassifier",
    "InvalidReportWarning",
    "KernelDensityLDP",
    "KernelRidgeLDP",
    "KWayMarginalsLDP",
    "LargeDeltaWarning",
    "LocalBernsteinRegressor",
    "PrivacyLeakWarning",
    "PublicBoundsScaler",
    "SparseLDPClassifier",
    "SparseLDPMeanEstimator",
    "SparseLDPRegressor",
    "read_reports",
]


def __getattr__(name):
    module = _ESTIMATORS.get(name) or _FUNCTIONS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_ESTIMATORS, *_FUNCTIONS})
