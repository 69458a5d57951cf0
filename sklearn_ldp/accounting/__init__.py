"""Privacy accounting: Gaussian calibration, composition, zCDP and RDP.

Everything here is a pure function of public parameters. The estimators use
these to turn a target ``(epsilon, delta)`` into noise scales, and expose the
results as fitted attributes so a user can re-check the budget with an
independent accountant (the tests do so with Google's ``dp_accounting``).
"""

from ._budgets import power_copies_budgets, product_copies_budgets
from ._discrete import (
    MAX_RESOLUTION_SLACK,
    coin_epsilon,
    design_epsilon,
    probability_ratio_epsilon,
    relative_error_epsilon,
)
from ._dp_svrg import (
    DPRunNoise,
    calibrate_dp_gd,
    calibrate_dp_svrg,
    dp_svrg_rdp,
    dp_svrg_snapshot_multipliers,
)
from ._exponential import (
    SelectionNoise,
    advanced_composition_epsilon,
    calibrate_exponential_selections,
    exponential_mechanism_rdp,
    exponential_mechanism_zcdp,
)
from ._gaussian import (
    analytic_gaussian_delta,
    analytic_gaussian_epsilon,
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_sigma,
    joint_gaussian_sigmas,
)
from ._grid import (
    GENPROT_CALIBRATIONS,
    bassily_smith_epsilon,
    full_grid_epsilon,
    full_vector_epsilon,
    full_vector_laplace_scale,
    genprot_base_epsilon,
    genprot_epsilon,
    genprot_provided_epsilon,
    genprot_sampling_error,
)
from ._lattice import (
    LATTICE_CELLS,
    MAX_LATTICE_CELLS,
    LatticeGaussian,
    lattice_copies,
    lattice_gaussian,
    lattice_gaussian_scale,
    lattice_gaussian_sigma,
    rounded_gaussian_tv_bound,
)
from ._rdp import (
    DEFAULT_RDP_ORDERS,
    calibrate_noise_multiplier,
    rdp_gaussian,
    rdp_subsampled_gaussian,
    rdp_to_epsilon,
)
from ._zcdp import gaussian_zcdp, zcdp_from_epsilon, zcdp_to_epsilon

__all__ = [
    "power_copies_budgets",
    "product_copies_budgets",
    "GENPROT_CALIBRATIONS",
    "bassily_smith_epsilon",
    "full_grid_epsilon",
    "full_vector_epsilon",
    "full_vector_laplace_scale",
    "genprot_base_epsilon",
    "genprot_epsilon",
    "genprot_provided_epsilon",
    "genprot_sampling_error",
    "SelectionNoise",
    "advanced_composition_epsilon",
    "calibrate_exponential_selections",
    "exponential_mechanism_rdp",
    "exponential_mechanism_zcdp",
    "DEFAULT_RDP_ORDERS",
    "DPRunNoise",
    "MAX_RESOLUTION_SLACK",
    "coin_epsilon",
    "design_epsilon",
    "probability_ratio_epsilon",
    "relative_error_epsilon",
    "analytic_gaussian_delta",
    "analytic_gaussian_epsilon",
    "analytic_gaussian_sigma",
    "calibrate_dp_gd",
    "calibrate_dp_svrg",
    "calibrate_noise_multiplier",
    "classic_gaussian_sigma",
    "dp_svrg_rdp",
    "dp_svrg_snapshot_multipliers",
    "gaussian_sigma",
    "gaussian_zcdp",
    "joint_gaussian_sigmas",
    "LATTICE_CELLS",
    "MAX_LATTICE_CELLS",
    "LatticeGaussian",
    "lattice_copies",
    "lattice_gaussian",
    "lattice_gaussian_scale",
    "lattice_gaussian_sigma",
    "rounded_gaussian_tv_bound",
    "rdp_gaussian",
    "rdp_subsampled_gaussian",
    "rdp_to_epsilon",
    "zcdp_from_epsilon",
    "zcdp_to_epsilon",
]
