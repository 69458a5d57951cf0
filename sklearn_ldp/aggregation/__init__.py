"""Server side: from reports to estimates.

Debiasing, Gaussian fission, unbiased polynomial oracles and other
post-processing of reports. Everything here is post-processing of what users
sent, so it costs no privacy.
"""

from ._fission import fission_matrix, gaussian_fission
from ._polynomial import elementary_symmetric, unbiased_polynomial
from ._sufficient import SufficientStatistics, project_psd

__all__ = [
    "SufficientStatistics",
    "elementary_symmetric",
    "fission_matrix",
    "gaussian_fission",
    "project_psd",
    "unbiased_polynomial",
]
