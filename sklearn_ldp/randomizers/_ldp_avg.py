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
"""

from numbers import Integral

import numpy as np

from ..utils import check_epsilon, check_finite_array, check_noise_random_state
from ._base import LocalRandomizer
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


def check_public_seed(public_seed):
    if public_seed is not None and (
        isinstance(public_seed, bool) or not isinstance(public_seed, Integral)
    ):
        raise TypeError(f"public_seed must be an int or None, got {public_seed!r}.")
    return None if public_seed is None else int(public_seed)


def balanced_partition(n_users, n_groups, public_seed):
    """User ``i``'s group in a uniformly random balanced partition (public)."""
    permutation = np.random.RandomState(public_seed).permutation(n_users)
    return permutation % n_groups


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
        return self.n_coordinates * self.full_vector_bound / self.epsilon

    @property
    def scalar_mechanism(self):
        if self.mechanism == "full_vector":
            return None
        return _SCALAR[self.mechanism](self.epsilon, lower=self.lower, upper=self.upper)

    @property
    def communication(self):
        """Numbers each user sends (1 for the sampled scheme)."""
        return self.n_coordinates if self.mechanism == "full_vector" else 1

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
            The users' private randomness; also draws the public partition
            seed when ``public_seed`` is None.

        Returns
        -------
        reports : Reports
        """
        X = check_finite_array(X, name="X", ndim=2)
        if X.shape[1] != self.n_features:
            raise ValueError(
                f"X has {X.shape[1]} features, but the randomizer was made for "
                f"{self.n_features}."
            )
        n_users = X.shape[0]
        if n_users == 0:
            raise ValueError("X has no rows (users).")
        rng = check_noise_random_state(random_state)
        public_seed = self.public_seed
        if public_seed is None:
            public_seed = int(rng.randint(0, 2**31 - 1))
        if self.mechanism == "full_vector":
            fields = self._randomize_full(X, rng)
        else:
            fields = self._randomize_sampled(X, public_seed, rng)
        config = self.get_config()
        config["public_seed"] = public_seed
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
        step = max(1, min(self.chunk_size, 2**20 // max(d, 1)))
        for start in range(0, n_users, step):
            block = slice(start, start + step)
            units = self._unit_vector(self._prepare(X[block]))
            noise = rng.laplace(0.0, self.laplace_scale, size=units.shape)
            vector[block] = self.coordinate_scale * units + noise
        return {"vector": vector}

    def _randomize_sampled(self, X, public_seed, rng):
        n_users = X.shape[0]
        coordinates = balanced_partition(n_users, self.n_coordinates, public_seed)
        values = np.empty(n_users)
        mechanism = self.scalar_mechanism
        for start in range(0, n_users, self.chunk_size):
            block = slice(start, start + self.chunk_size)
            units = self._unit_values(self._prepare(X[block]), coordinates[block])
            values[block] = mechanism.randomize(units, random_state=rng)
        return {"coordinate": coordinates, "value": values}

    def estimate_mean(self, reports):
        """Server: unbiased estimate of the users' mean coefficient vector.

        Returns
        -------
        mean : ndarray of shape (n_coordinates,)
            Mean of ``scale_j u_j(x_i)`` over users. With the sampled scheme
            a coordinate without users gets ``scale_j`` times the middle of
            the unit interval (an uninformative fill; estimators warn).
        counts : ndarray of shape (n_coordinates,)
            Users behind each entry.
        """
        n_users, d = len(reports), self.n_coordinates
        if self.mechanism == "full_vector":
            vector = np.asarray(reports["vector"], dtype=float)
            if vector.shape != (n_users, d):
                raise ValueError(
                    f"Report vectors must have shape (n_users, {d}), got {vector.shape}."
                )
            return vector.mean(axis=0), np.full(d, n_users)
        coordinates = np.asarray(reports["coordinate"])
        if coordinates.shape != (n_users,) or (
            n_users and (coordinates.min() < 0 or coordinates.max() >= d)
        ):
            raise ValueError(f"Report coordinates must be integers in [0, {d}).")
        estimates = self.scalar_mechanism.estimate(reports["value"])
        counts = np.bincount(coordinates, minlength=d)
        sums = np.bincount(coordinates, weights=estimates, minlength=d)
        fill = 0.5 * (self.lower + self.upper)
        means = np.divide(sums, counts, out=np.full(d, fill), where=counts > 0)
        return self.coordinate_scale * means, counts

    def noise_variance(self, n_users, unit_variance=None):
        """Variance of one entry of :meth:`estimate_mean` from the mechanism's noise.

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
