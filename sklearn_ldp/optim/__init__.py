"""Solvers: SIGM, accelerated projected gradient, projections.

Pure numerics on plain arrays and callables; the estimators build the
oracles and call these.
"""

from ._dp_svrg import dp_gd, dp_svrg, poisson_batch, prox_elastic_net
from ._fista import fista_quadratic, largest_eigenvalue
from ._l1 import project_l1_ball
from ._losses import (
    LOSSES,
    difference_bound,
    get_loss,
    gradient_bound,
    per_example_gradients,
    smoothness,
)
from ._projected_gradient import accelerated_projected_gradient
from ._projections import project_l2_ball
from ._sigm import sigm, sigm_parameters

__all__ = [
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
