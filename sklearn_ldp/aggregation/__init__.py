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
from ._fission import fission_matrix, gaussian_fission
from ._glm_oracle import (
    GLMGradientOracle,
    fission_feature_copies,
    fission_linear_multiplier,
    fission_smoothed_quantile_multiplier,
    linear_label_parts,
    power_copies_multiplier,
    product_copies_multiplier,
)
from ._grouped import estimate_grid_risk, estimate_vector_mean, group_means
from ._marginal_tables import (
    disjunction_tables,
    fold_monomial_means,
    marginal_tables,
    marginal_tables_from_disjunctions,
)
from ._oracle import PolynomialGradientOracle, product_estimate, product_terms_copies
from ._pilot import (
    AUTO_DEGREES,
    PILOT_USERS,
    pilot_point,
    pilot_second_moment,
    pilot_users,
    select_degree,
)
from ._polynomial import elementary_symmetric, unbiased_polynomial
from ._recovery import GroupedSums, basis_pursuit, l1_residual_bound, median_of_means
from ._ridge import debiased_cv_risk, solve_ridge
from ._smoothing import (
    SmoothedQuantileDerivative,
    derivative_quantile_table,
    smoothed_step_derivative,
)
from ._sufficient import (
    FoldedStatistics,
    SufficientStatistics,
    check_gaussian_reports,
    debiased_least_squares,
    project_psd,
)
from ._trigonometric import (
    chebyshev_coefficients_from_nodes,
    chebyshev_nodes,
    contract_moments,
    gaussian_kernel_coefficients,
    kernel_density,
    moment_tensor,
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
    "FoldedStatistics",
    "SufficientStatistics",
    "check_gaussian_reports",
    "debiased_cv_risk",
    "debiased_least_squares",
    "solve_ridge",
    "elementary_symmetric",
    "fission_matrix",
    "gaussian_fission",
    "project_psd",
    "unbiased_polynomial",
    "PolynomialGradientOracle",
    "AUTO_DEGREES",
    "GLMGradientOracle",
    "PILOT_USERS",
    "SmoothedQuantileDerivative",
    "derivative_quantile_table",
    "fission_feature_copies",
    "fission_linear_multiplier",
    "fission_smoothed_quantile_multiplier",
    "linear_label_parts",
    "pilot_point",
    "pilot_second_moment",
    "pilot_users",
    "power_copies_multiplier",
    "product_copies_multiplier",
    "select_degree",
    "smoothed_step_derivative",
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
    "l1_residual_bound",
    "median_of_means",
    "chebyshev_coefficients_from_nodes",
    "chebyshev_nodes",
    "contract_moments",
    "gaussian_kernel_coefficients",
    "kernel_density",
    "moment_tensor",
    "trigonometric_coefficients",
    "disjunction_tables",
    "fold_monomial_means",
    "marginal_tables",
    "marginal_tables_from_disjunctions",
    "estimate_grid_risk",
    "estimate_vector_mean",
    "group_means",
]
