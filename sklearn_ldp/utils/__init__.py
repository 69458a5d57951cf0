"""Shared helpers: validation of privacy parameters and the empirical privacy audit."""

from ._audit import AuditResult, audit_mechanism, audit_randomizer, audit_samples
from ._clipping import clipping_diagnostics, row_norms
from ._random import check_noise_random_state, check_server_random_state, public_seed
from ._validation import (
    check_bound,
    check_delta,
    check_epsilon,
    check_finite_array,
)
from ._warnings import warn_few_users

__all__ = [
    "AuditResult",
    "audit_mechanism",
    "audit_randomizer",
    "audit_samples",
    "check_bound",
    "check_delta",
    "check_epsilon",
    "check_finite_array",
    "check_noise_random_state",
    "clipping_diagnostics",
    "check_server_random_state",
    "public_seed",
    "row_norms",
    "warn_few_users",
]
