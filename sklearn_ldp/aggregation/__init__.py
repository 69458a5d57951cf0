"""Server side: from reports to estimates.

Debiasing, Gaussian fission, unbiased polynomial oracles and other
post-processing of reports. Everything here is post-processing of what users
sent, so it costs no privacy.
"""

from ._approximation import (
    approximation_error,
    bernstein_approximation,
    bernstein_product_terms,
    chebyshev_approximation,
    monomial_product_terms,
    polynomial_approximation,
)
from ._bernstein import (
    apply_along_axes,
    bernstein_basis,
    bernstein_basis_derivative,
    bernstein_coefficients,
    bernstein_operator_matrix,
    evaluate_bernstein,
    iterated_bernstein_matrix,
    lebesgue_constant,
)
from ._chebyshev_or import (
    ORPolynomial,
    chebyshev_or_parameters,
    newton_coefficients,
    or_polynomial,
)
from ._fission import fission_matrix, gaussian_fission
from ._oracle import PolynomialGradientOracle, product_estimate, product_terms_copies
from ._polynomial import elementary_symmetric, unbiased_polynomial
from ._random_features import RandomFourierFeatures
from ._recovery import GroupedSums, basis_pursuit, median_of_means
from ._sufficient import SufficientStatistics, project_psd
from ._trigonometric import (
    chebyshev_coefficients_from_nodes,
    chebyshev_nodes,
    chebyshev_tensor_basis,
    trigonometric_coefficients,
)

__all__ = [
    "apply_along_axes",
    "bernstein_basis",
    "bernstein_basis_derivative",
    "bernstein_coefficients",
    "bernstein_operator_matrix",
    "evaluate_bernstein",
    "iterated_bernstein_matrix",
    "lebesgue_constant",
    "RandomFourierFeatures",
    "SufficientStatistics",
    "elementary_symmetric",
    "fission_matrix",
    "gaussian_fission",
    "project_psd",
    "unbiased_polynomial",
    "PolynomialGradientOracle",
    "approximation_error",
    "bernstein_approximation",
    "bernstein_product_terms",
    "chebyshev_approximation",
    "monomial_product_terms",
    "polynomial_approximation",
    "product_estimate",
    "product_terms_copies",
    "GroupedSums",
    "basis_pursuit",
    "median_of_means",
    "ORPolynomial",
    "chebyshev_or_parameters",
    "newton_coefficients",
    "or_polynomial",
    "chebyshev_coefficients_from_nodes",
    "chebyshev_nodes",
    "chebyshev_tensor_basis",
    "trigonometric_coefficients",
]
