"""Client side: clip and randomize one record per user.

Pure numpy; nothing here imports an estimator. Every mechanism validates its
privacy parameters, states its guarantee (``guarantee``), documents and
exposes its variance, and is vectorized over users.
"""

from ._base import (
    CHUNK_VALUES,
    DEFAULT_CHUNK_SIZE,
    REJECTION_REASONS,
    FieldSupport,
    LocalRandomizer,
    check_records,
    chunk_rows,
)
from ._bernstein import BernsteinLossRandomizer
from ._chebyshev_or import (
    ORPolynomial,
    chebyshev_or_parameters,
    newton_coefficients,
    or_polynomial,
)
from ._clip import clip_interval, clip_l2
from ._copies import GaussianCopiesRandomizer
from ._feature_maps import (
    FOURIER_FEATURE_NORM,
    LinearAndFourierFeatures,
    RandomFourierFeatures,
    RandomProjection,
    feature_map_from_config,
    feature_map_seed,
)
from ._frequency import (
    FrequencyRandomizer,
    frequency_design,
    frequency_mechanism_variances,
)
from ._gaussian import GaussianMechanism, GaussianRecordRandomizer, encode_labels
from ._genprot import GenProtMechanism, genprot_epsilon
from ._hadamard_marginals import HadamardMarginalRandomizer
from ._ldp_avg import VectorAverageRandomizer
from ._marginals import MarginalRandomizer, SubsetIndex, monomial_exponents
from ._privunit import PrivUnitGRandomizer, PrivUnitGRecordRandomizer
from ._reports import Reports, config_fingerprint, describe_config_mismatch
from ._sampling import (
    IntegerSampler,
    NoiseSource,
    check_client_random_state,
    discrete_laplace,
    lattice_granularity,
    on_lattice,
    rounded_gaussian,
    to_lattice,
)
from ._scalar import (
    BassilySmithMechanism,
    DuchiMechanism,
    LaplaceMechanism,
    PiecewiseMechanism,
)
from ._target_mean import (
    LabelRandomizer,
    TargetMeanRandomizer,
    min_users_for_a_model,
)
from ._trigonometric import TrigonometricRandomizer, chebyshev_tensor_basis

__all__ = [
    "CHUNK_VALUES",
    "DEFAULT_CHUNK_SIZE",
    "BassilySmithMechanism",
    "BernsteinLossRandomizer",
    "DuchiMechanism",
    "FOURIER_FEATURE_NORM",
    "FieldSupport",
    "FrequencyRandomizer",
    "GaussianCopiesRandomizer",
    "GaussianMechanism",
    "GaussianRecordRandomizer",
    "GenProtMechanism",
    "HadamardMarginalRandomizer",
    "IntegerSampler",
    "LabelRandomizer",
    "LaplaceMechanism",
    "LocalRandomizer",
    "MarginalRandomizer",
    "NoiseSource",
    "ORPolynomial",
    "PiecewiseMechanism",
    "PrivUnitGRandomizer",
    "PrivUnitGRecordRandomizer",
    "REJECTION_REASONS",
    "LinearAndFourierFeatures",
    "RandomFourierFeatures",
    "RandomProjection",
    "Reports",
    "SubsetIndex",
    "TargetMeanRandomizer",
    "min_users_for_a_model",
    "TrigonometricRandomizer",
    "VectorAverageRandomizer",
    "chebyshev_or_parameters",
    "chebyshev_tensor_basis",
    "check_client_random_state",
    "check_records",
    "chunk_rows",
    "clip_interval",
    "clip_l2",
    "config_fingerprint",
    "describe_config_mismatch",
    "discrete_laplace",
    "encode_labels",
    "feature_map_from_config",
    "feature_map_seed",
    "frequency_design",
    "frequency_mechanism_variances",
    "genprot_epsilon",
    "lattice_granularity",
    "monomial_exponents",
    "newton_coefficients",
    "on_lattice",
    "or_polynomial",
    "rounded_gaussian",
    "to_lattice",
]
