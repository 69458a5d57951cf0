"""sklearn_ldp: scikit-learn estimators under local and central differential privacy.

Estimators are re-exported here as they are added; every public estimator
listed in ``__all__`` is checked by ``tests/test_common.py``.
"""

from ._bernstein import LocalBernsteinRegressor
from ._dp_constrained import DPConstrainedClassifier
from ._dp_svrg import DPSVRGClassifier
from ._glm import GLMLDPClassifier
from ._hinge import HingeLDPClassifier
from ._kde import KernelDensityLDP
from ._kernel_ridge import KernelRidgeLDP
from ._marginals import KWayMarginalsLDP
from ._sparse import SparseLDPMeanEstimator, SparseLDPRegressor
from .exceptions import PrivacyLeakWarning

__version__ = "0.1.0.dev0"

__all__ = [
    "DPConstrainedClassifier",
    "DPSVRGClassifier",
    "GLMLDPClassifier",
    "HingeLDPClassifier",
    "KernelDensityLDP",
    "KernelRidgeLDP",
    "KWayMarginalsLDP",
    "LocalBernsteinRegressor",
    "PrivacyLeakWarning",
    "SparseLDPMeanEstimator",
    "SparseLDPRegressor",
]
