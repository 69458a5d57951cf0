"""Client side: clip and randomize one record per user.

Pure numpy; nothing here imports an estimator. Every mechanism validates its
privacy parameters, states its guarantee (``guarantee``), documents and
exposes its variance, and is vectorized over users.
"""

from ._base import DEFAULT_CHUNK_SIZE, LocalRandomizer
from ._clip import clip_interval, clip_l2
from ._gaussian import GaussianMechanism, GaussianRecordRandomizer, encode_labels
from ._genprot import GenProtMechanism, genprot_epsilon
from ._reports import Reports, config_fingerprint, describe_config_mismatch
from ._scalar import (
    BassilySmithMechanism,
    DuchiMechanism,
    LaplaceMechanism,
    PiecewiseMechanism,
)

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "BassilySmithMechanism",
    "DuchiMechanism",
    "GaussianMechanism",
    "GaussianRecordRandomizer",
    "GenProtMechanism",
    "LaplaceMechanism",
    "LocalRandomizer",
    "PiecewiseMechanism",
    "Reports",
    "clip_interval",
    "clip_l2",
    "config_fingerprint",
    "describe_config_mismatch",
    "encode_labels",
    "genprot_epsilon",
]
