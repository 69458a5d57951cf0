"""Shared helpers: validation of privacy parameters and the empirical privacy audit."""

from ._audit import AuditResult, audit_mechanism, audit_randomizer, audit_samples
from ._random import check_noise_random_state
from ._validation import (
    check_bound,
    check_delta,
    check_epsilon,
    check_finite_array,
)

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
]
