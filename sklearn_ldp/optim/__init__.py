"""Solvers: SIGM, accelerated projected gradient, projections, DP first-order methods.

Pure numerics on plain arrays and callables; the estimators build the
oracles and call these. The losses are in :mod:`sklearn_ldp.losses`.
"""

from ._bernstein import minimize_bernstein, minimize_box_quadratic
from ._dp_svrg import (
    dp_gd,
    dp_svrg,
    poisson_batch,
    prox_elastic_net,
    svrg_epoch_lengths,
)
from ._fista import fista_quadratic, largest_eigenvalue
from ._frank_wolfe import (
    dp_frank_wolfe,
    exponential_vertex,
    frank_wolfe_gap,
    gaussian_width,
    linear_minimization_oracle,
    paper_frank_wolfe_step,
)
from ._l1 import (
    l1_constrained_least_squares,
    l1_constrained_least_squares_batch,
    project_l1_ball,
    project_l1_balls,
)
from ._mirror_descent import (
    dp_accmd,
    dp_pmd_entropic,
    gradient_mapping,
    prox_l1_ball,
    simplex_l1_gradient_step,
)
from ._objective import (
    ToleranceNotReachedError,
    certified_gradient_norm,
    minimize_to_tolerance,
)
from ._oracle_solvers import minimize_on_ball, project_columns_l2
from ._projected_gradient import accelerated_projected_gradient
from ._projections import project_l2_ball
from ._sigm import sigm, sigm_one_pass, sigm_parameters
from ._trust_region import minimize_quadratic_on_ball

__all__ = [
    "minimize_bernstein",
    "minimize_box_quadratic",
    "minimize_quadratic_on_ball",
    "dp_accmd",
    "dp_frank_wolfe",
    "dp_pmd_entropic",
    "exponential_vertex",
    "frank_wolfe_gap",
    "gaussian_width",
    "gradient_mapping",
    "linear_minimization_oracle",
    "paper_frank_wolfe_step",
    "prox_l1_ball",
    "simplex_l1_gradient_step",
    "dp_gd",
    "dp_svrg",
    "poisson_batch",
    "prox_elastic_net",
    "svrg_epoch_lengths",
    "accelerated_projected_gradient",
    "fista_quadratic",
    "largest_eigenvalue",
    "l1_constrained_least_squares",
    "l1_constrained_least_squares_batch",
    "project_l1_ball",
    "project_l1_balls",
    "project_l2_ball",
    "sigm",
    "sigm_one_pass",
    "sigm_parameters",
    "ToleranceNotReachedError",
    "certified_gradient_norm",
    "minimize_to_tolerance",
    "minimize_on_ball",
    "project_columns_l2",
]
