"""LDP-AVG for a vector: each user holds ``v_i in R^d`` with bounded entries.

Seed 001's Algorithm 1 (Lemma 3) averages a scalar ``v_i in [0, b]`` with
``v_i + Lap(b / epsilon)``; Algorithms 6 and 7 run it "on" a ``d``-dimensional
vector. Two ways are implemented, both pure epsilon-LDP:

* ``mechanism='full_vector'`` (the printed protocol): every user sends the
  whole vector, each entry with ``Lap(d b / epsilon)``. Entry ``j`` ranges
  over an interval of width at most ``b``, so the vector's l1 sensitivity is
  at most ``d b`` and the Laplace mechanism with that scale is epsilon-LDP
  (equivalently: ``d`` releases of Lemma 3 at ``epsilon / d`` each, basic
  composition). The server's mean has per-entry variance
  ``2 (d b / epsilon)^2 / n``.
* ``mechanism in {'piecewise', 'duchi', 'laplace'}`` (sampling one
  coordinate, the default): a public balanced partition assigns each user
  one coordinate ``j``, and the user releases ``u_j(x_i)`` with the full
  epsilon through a scalar epsilon-LDP mechanism on the public interval of
  the entries. The group index is public and data-independent, so the
  report is epsilon-LDP. The server's mean over the ``~ n / d`` users of
  coordinate ``j`` is unbiased for the population mean (the partition is a
  uniformly random balanced one), with variance about
  ``d (Var_mech + Var_j) / n``: a factor ``d`` better than the full vector
  under basic composition, whose noise variance grows like ``d^2``.

Entries are written ``coefficient_j = scale_j * u_j(x)`` with a public
``scale_j`` and a unit value ``u_j in [lower, upper]``; the sampled scheme
releases ``u_j`` (scaling a release by a public constant is
post-processing, and all three scalar mechanisms are scale-equivariant, so
this is the same as releasing ``scale_j u_j`` on the scaled interval).

The server's side (the mean of the debiased reports per coordinate) is
:func:`sklearn_ldp.aggregation.estimate_vector_mean`.
"""

from numbers import Integral

import numpy as np

from ..accounting import full_vector_laplace_scale
from ..utils import check_epsilon, check_noise_random_state, public_seed
from ._base import LocalRandomizer, check_records, chunk_rows
from ._reports import Reports
from ._scalar import DuchiMechanism, LaplaceMechanism, PiecewiseMechanism

VECTOR_MECHANISMS = ("piecewise", "duchi", "laplace", "full_vector")
_SCALAR = {
    "piecewise": PiecewiseMechanism,
    "duchi": DuchiMechanism,
    "laplace": LaplaceMechanism,
}
#: Largest number of coordinates (the server holds a few vectors of this size).
MAX_COORDINATES = 2**22
#: Largest number of values all users of ``'full_vector'`` send together.
MAX_FULL_VECTOR_ENTRIES = 2**27
#: Tag of the public partition seed (:func:`sklearn_ldp.utils.public_seed`).
PARTITION_SEED_TAG = 0x50415254  # "PART"


def check_public_seed(public_seed):
    if public_seed is not None and (
        isinstance(public_seed, bool) or not isinstance(public_seed, Integral)
    ):
        raise TypeError(f"public_seed must be an int or None, got {public_seed!r}.")
    return None if public_seed is None else int(public_seed)


def balanced_partition(n_users, n_groups, seed):
    """User ``i``'s group in a uniformly random balanced partition (public).

    Every group has ``floor(n / G)`` or ``ceil(n / G)`` users; the
    partition is a function of the public seed, the user's index and
    ``n_users`` only.
    """
    permutation = np.random.RandomState(seed).permutation(n_users)
    return permutation % n_groups


def partition_seed(announced, random_state):
    """The public partition seed: the announced one, else one from ``random_state``."""
    if announced is not None:
        return announced
    return public_seed(random_state, PARTITION_SEED_TAG)


class VectorAverageRandomizer(LocalRandomizer):
    """Base of the LDP-AVG randomizers (see the module docstring).

    Subclasses set ``n_features``, ``n_coordinates``, ``unit_interval``
    (``(lower, upper)`` of the unit values), ``coordinate_scale`` (public
    array of shape ``(n_coordinates,)``) and implement
    ``_prepare(X)`` (the user's clipped / encoded record),
    ``_unit_values(Xp, coordinates)`` (each user's unit value at its own
    coordinate, shape ``(n,)``) and ``_unit_vector(Xp)`` (all unit values,
    shape ``(n, n_coordinates)``).

    Report fields: ``coordinate`` and ``value`` (sampled) or ``vector``
    (full vector).
    """

    requires_y = False
    public_random_keys = ("public_seed",)

    def _init_mechanism(self, epsilon, mechanism, public_seed):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        if mechanism not in VECTOR_MECHANISMS:
            raise ValueError(
                f"mechanism must be one of {VECTOR_MECHANISMS}, got {mechanism!r}."
            )
        self.mechanism = mechanism
        self.public_seed = check_public_seed(public_seed)

    def _check_size(self):
        if self.n_coordinates > MAX_COORDINATES:
            raise ValueError(
                f"The users' vector has {self.n_coordinates:.4g} coordinates, more "
                f"than the {MAX_COORDINATES} this implementation holds; "
                + self._size_advice()
            )

    def _size_advice(self):  # pragma: no cover - overridden
        return "use a smaller vector."

    @property
    def lower(self):
        return float(self.unit_interval[0])

    @property
    def upper(self):
        return float(self.unit_interval[1])

    @property
    def full_vector_bound(self):
        """``b``: the widest range of one entry ``scale_j u_j``."""
        return float(np.max(np.abs(self.coordinate_scale))) * (self.upper - self.lower)

    @property
    def laplace_scale(self):
        """Per-entry Laplace scale ``d b / epsilon`` of ``'full_vector'``."""
        return full_vector_laplace_scale(
            self.epsilon, self.n_coordinates, self.full_vector_bound
        )

    @property
    def scalar_mechanism(self):
        if self.mechanism == "full_vector":
            return None
        return _SCALAR[self.mechanism](self.epsilon, lower=self.lower, upper=self.upper)

    @property
    def communication(self):
        """Numbers each user sends (1 for the sampled scheme)."""
        return self.n_coordinates if self.mechanism == "full_vector" else 1

    @property
    def n_groups(self):
        """Groups of the public partition (1 for the full vector: every user reports all)."""
        return 1 if self.mechanism == "full_vector" else self.n_coordinates

    def _mechanism_config(self):
        return {"mechanism": self.mechanism, "public_seed": self.public_seed}

    def randomize(self, X, y=None, random_state=None):
        """Randomize the users' vectors.

        Parameters
        ----------
        X : array-like of shape (n_users, n_features)
        y : None
            Ignored (unsupervised).
        random_state : int, RandomState instance or None, default=None
            The users' private randomness; also gives the public partition
            seed when ``public_seed`` is None
            (:func:`~sklearn_ldp.utils.public_seed`).

        Returns
        -------
        reports : Reports
        """
        X, _ = check_records(
            X,
            None,
            n_features=self.n_features,
            requires_y=False,
            owner=type(self).__name__,
        )
        rng = check_noise_random_state(random_state)
        seed = partition_seed(self.public_seed, rng)
        if self.mechanism == "full_vector":
            fields = self._randomize_full(X, rng)
        else:
            fields = self._randomize_sampled(X, seed, rng)
        config = self.get_config()
        config["public_seed"] = seed
        return Reports(fields, config)

    def _randomize_full(self, X, rng):
        n_users, d = X.shape[0], self.n_coordinates
        if n_users * d > MAX_FULL_VECTOR_ENTRIES:
            raise ValueError(
                f"mechanism='full_vector' has every user send all {d} coordinates: "
                f"{n_users} users x {d} = {n_users * d:.3g} values is more than "
                f"{MAX_FULL_VECTOR_ENTRIES:.3g}. Use a sampled mechanism "
                "('piecewise', 'duchi', 'laplace') or a smaller vector."
            )
        vector = np.empty((n_users, d))
        step = chunk_rows(d)
        for start in range(0, n_users, step):
            block = slice(start, start + step)
            units = self._unit_vector(self._prepare(X[block]))
            noise = rng.laplace(0.0, self.laplace_scale, size=units.shape)
            vector[block] = self.coordinate_scale * units + noise
        return {"vector": vector}

    def _randomize_sampled(self, X, seed, rng):
        n_users = X.shape[0]
        coordinates = balanced_partition(n_users, self.n_coordinates, seed)
        values = np.empty(n_users)
        mechanism = self.scalar_mechanism
        for start in range(0, n_users, self.chunk_size):
            block = slice(start, start + self.chunk_size)
            units = self._unit_values(self._prepare(X[block]), coordinates[block])
            values[block] = mechanism.randomize(units, random_state=rng)
        return {"coordinate": coordinates, "value": values}

    def noise_variance(self, n_users, unit_variance=None):
        """Variance of one entry of the server's mean from the mechanism's noise.

        The server's mean is
        :func:`~sklearn_ldp.aggregation.estimate_vector_mean`:

        ``2 (d b / epsilon)^2 / n`` for the full vector; for the sampled
        scheme ``scale_j^2 d / n`` times the scalar mechanism's variance at
        ``unit_variance`` (default: the middle of the interval), not counting
        the sampling variance of the partition (at most
        ``scale_j^2 (upper - lower)^2 d / (4 n)``).
        """
        if self.mechanism == "full_vector":
            return np.full(self.n_coordinates, 2.0 * self.laplace_scale**2 / n_users)
        at = 0.5 * (self.lower + self.upper) if unit_variance is None else unit_variance
        per_user = float(self.scalar_mechanism.variance(at))
        return self.coordinate_scale**2 * per_user * self.n_coordinates / n_users
