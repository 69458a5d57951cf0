"""Solvers: SIGM, accelerated projected gradient, projections.

Pure numerics on plain arrays and callables; the estimators build the
oracles and call these.
"""

from ._dp_svrg import dp_gd, dp_svrg, poisson_batch, prox_elastic_net
from ._fista import fista_quadratic, largest_eigenvalue
from ._frank_wolfe import (
    dp_frank_wolfe,
    exponential_vertex,
    frank_wolfe_gap,
    linear_minimization_oracle,
)
from ._l1 import project_l1_ball
from ._losses import (
    LOSSES,
    difference_bound,
    get_loss,
    gradient_bound,
    per_example_gradients,
    smoothness,
)
from ._mirror_descent import (
    dp_accmd,
    dp_pmd_entropic,
    gradient_mapping,
    prox_l1_ball,
    simplex_l1_gradient_step,
)
from ._projected_gradient import accelerated_projected_gradient
from ._projections import project_l2_ball
from ._sigm import sigm, sigm_parameters

__all__ = [
    "dp_accmd",
    "dp_frank_wolfe",
    "dp_pmd_entropic",
    "exponential_vertex",
    "frank_wolfe_gap",
    "gradient_mapping",
    "linear_minimization_oracle",
    "prox_l1_ball",
    "simplex_l1_gradient_step",
    "LOSSES",
    "difference_bound",
    "dp_gd",
    "dp_svrg",
    "get_loss",
    "gradient_bound",
    "per_example_gradients",
    "poisson_batch",
    "prox_elastic_net",
    "smoothness",
    "accelerated_projected_gradient",
    "fista_quadratic",
    "largest_eigenvalue",
    "project_l1_ball",
    "project_l2_ball",
    "sigm",
    "sigm_parameters",
]
