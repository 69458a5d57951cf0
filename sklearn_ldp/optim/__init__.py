"""Solvers: SIGM, accelerated projected gradient, projections.

Pure numerics on plain arrays and callables; the estimators build the
oracles and call these.
"""

from ._projected_gradient import accelerated_projected_gradient
from ._projections import project_l2_ball
from ._sigm import sigm, sigm_parameters

__all__ = [
    "accelerated_projected_gradient",
    "project_l2_ball",
    "sigm",
    "sigm_parameters",
]
