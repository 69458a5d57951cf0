"""LDP-AVG for a vector: each user holds ``v_i in R^d`` with bounded entries.

Seed 001's Algorithm 1 (Lemma 3) averages a scalar ``v_i in [0, b]`` with
``v_i + Lap(b / epsilon)``; Algorithms 6 and 7 run it "on" a ``d``-dimensional
vector. Entries are written ``coefficient_j = scale_j * u_j(x)`` with a public
``scale_j`` and a unit value ``u_j in [lower, upper]``; users release unit
values (scaling a release by a public constant is post-processing, done by
the server). Two ways are implemented, both pure epsilon-LDP:

* ``mechanism='full_vector'`` (the printed protocol): every user sends the
  whole unit vector, each entry through the Laplace mechanism at
  ``epsilon / d`` (:func:`~sklearn_ldp.accounting.full_vector_epsilon`,
  basic composition of ``d`` releases of Lemma 3), i.e. with the discrete
  Laplace of scale ``d (upper - lower) / epsilon`` on the lattice. The
  coefficient ``scale_j u_j`` gets noise of scale ``|scale_j| d (upper -
  lower) / epsilon``, at most the printed ``d b / epsilon`` (``b = max_j
  |scale_j| (upper - lower)``, the l1 sensitivity per entry). The server's
  mean has per-entry variance ``2 (scale_j d (upper - lower) / epsilon)^2
  / n``.
* ``mechanism in {'piecewise', 'duchi', 'laplace'}`` (sampling one
  coordinate, the default): each user draws one coordinate ``j`` from the
  public stream of its randomness and releases ``u_j(x_i)`` with the full
  epsilon through a scalar epsilon-LDP mechanism on the public interval of
  the entries. The coordinate is public and data-independent and travels in
  the report, so the report is epsilon-LDP, and a device that randomizes
  its one record alone gets a uniform coordinate. The server's mean over
  the users who report coordinate ``j`` is unbiased for the population
  mean, with variance about ``d (Var_mech + Var_j) / n``: a factor ``d``
  better than the full vector under basic composition, whose noise
  variance grows like ``d^2``.

Every reported number is on the scalar mechanism's lattice (coordinates are
integers); the randomizer's ``granularity`` is the mechanism's.

The server's side (the mean of the debiased reports per coordinate) is
:func:`sklearn_ldp.aggregation.estimate_vector_mean`.
"""

import numpy as np

from ..accounting import full_vector_epsilon
from ..utils import check_epsilon
from ._base import DEFAULT_CHUNK_SIZE, FieldSupport, LocalRandomizer, chunk_rows
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
#: Numbers per chunk when every user sends a whole vector: temporaries of
#: 512 KiB stay in cache, where the lattice Laplace runs about 1.5x faster
#: than with chunks of ``CHUNK_VALUES``.
FULL_VECTOR_CHUNK_VALUES = 2**16


def random_groups(public, n_users, n_groups):
    """Public groups of ``n_users`` users: a uniformly random balanced assignment.

    Drawn from the public stream ``public`` (a
    :class:`~sklearn_ldp.randomizers.NoiseSource`): the users in a uniformly
    random order dealt round the groups from a uniformly random start, so
    every group gets ``floor(n / G)`` or ``ceil(n / G)`` of them and each
    user's group is uniform on ``0..G-1`` (a single user included),
    independently of the data. The dealt labels ``start, start + 1, ..``
    (mod ``G``) are shuffled in place (Fisher-Yates, ``O(n)``) by a PCG64
    generator seeded with 256 bits of the public stream; the law is that of
    a uniformly random permutation whatever the generator, and privacy does
    not depend on it (the groups are public).

    Returns
    -------
    groups : ndarray of int64, shape (n_users,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import NoiseSource
    >>> from sklearn_ldp.randomizers._ldp_avg import random_groups
    >>> groups = random_groups(NoiseSource(np.random.SeedSequence(0)), 10, 3)
    >>> np.bincount(groups, minlength=3).tolist() in ([4, 3, 3], [3, 4, 3], [3, 3, 4])
    True
    """
    start = public.integers(n_groups, 1)[0]
    shuffler = np.random.Generator(np.random.PCG64(public.words(4)))
    groups = (np.arange(n_users, dtype=np.int64) + start) % n_groups
    shuffler.shuffle(groups)
    return groups


def group_support(n_groups):
    """The support of a public group (or coordinate) index: integers ``0..G-1``."""
    return FieldSupport((), 0, n_groups - 1, 1.0)


class VectorAverageRandomizer(LocalRandomizer):
    """Base of the LDP-AVG randomizers (see the module docstring).

    Subclasses set ``n_features``, ``n_coordinates``, ``unit_interval``
    (``(lower, upper)`` of the unit values), ``coordinate_scale`` (public
    array of shape ``(n_coordinates,)``), call :meth:`_init_mechanism` then
    :meth:`_build_mechanism`, and implement ``_prepare(X)`` (the user's
    clipped / encoded record), ``_unit_values(Xp, coordinates)`` (each
    user's unit value at its own coordinate, shape ``(n,)``) and
    ``_unit_vector(Xp)`` (all unit values, shape ``(n, n_coordinates)``).

    Report fields: ``coordinate`` (public) and ``value`` (sampled), or
    ``vector`` (full vector), all unit values on the mechanism's lattice.
    """

    requires_y = False

    def _init_mechanism(self, epsilon, mechanism):
        self.requested_epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        if mechanism not in VECTOR_MECHANISMS:
            raise ValueError(
                f"mechanism must be one of {VECTOR_MECHANISMS}, got {mechanism!r}."
            )
        self.mechanism = mechanism

    def _build_mechanism(self):
        """The scalar mechanism, the provided epsilon and the lattice (after the sizes)."""
        lower, upper = self.lower, self.upper
        if self.mechanism == "full_vector":
            self.scalar_mechanism = LaplaceMechanism(
                full_vector_epsilon(self.requested_epsilon, self.n_coordinates),
                lower=lower,
                upper=upper,
            )
            self.epsilon = min(
                self.requested_epsilon,
                self.n_coordinates * self.scalar_mechanism.epsilon,
            )
        else:
            self.scalar_mechanism = _SCALAR[self.mechanism](
                self.requested_epsilon, lower=lower, upper=upper
            )
            self.epsilon = self.scalar_mechanism.epsilon
        self.granularity = float(self.scalar_mechanism.granularity)

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
    def laplace_scale(self):
        """Laplace scale of a unit entry of ``'full_vector'``: ``d (upper - lower) / epsilon``."""
        if self.mechanism != "full_vector":
            return None
        return self.scalar_mechanism.scale

    @property
    def communication(self):
        """Numbers each user sends (1 for the sampled scheme)."""
        return self.n_coordinates if self.mechanism == "full_vector" else 1

    @property
    def n_groups(self):
        """Coordinates a user may report (1 for the full vector: every user reports all)."""
        return 1 if self.mechanism == "full_vector" else self.n_coordinates

    @property
    def chunk_size(self):
        if self.mechanism == "full_vector":
            return chunk_rows(self.n_coordinates, budget=FULL_VECTOR_CHUNK_VALUES)
        return DEFAULT_CHUNK_SIZE

    def _mechanism_config(self):
        return {"mechanism": self.mechanism}

    def report_support(self):
        if self.mechanism == "full_vector":
            return {
                "vector": self.scalar_mechanism.report_support((self.n_coordinates,))
            }
        return {
            "coordinate": group_support(self.n_coordinates),
            "value": self.scalar_mechanism.report_support(()),
        }

    def randomize(self, X, y=None, random_state=None):
        """Randomize the users' vectors.

        Parameters
        ----------
        X : array-like of shape (n_users, n_features)
        y : None
            Ignored (unsupervised).
        random_state : None, int, RandomState, Generator or NoiseSource, default=None
            The users' randomness: ``None`` (what a device must use) draws
            from the operating system's CSPRNG, an integer is for
            simulations. Sampled coordinates come from its separate public
            stream.

        Returns
        -------
        reports : Reports
        """
        n_users = np.shape(X)[0] if np.ndim(X) else 0
        if (
            self.mechanism == "full_vector"
            and n_users * self.n_coordinates > MAX_FULL_VECTOR_ENTRIES
        ):
            raise ValueError(
                "mechanism='full_vector' has every user send all "
                f"{self.n_coordinates} coordinates: {n_users} users x "
                f"{self.n_coordinates} = {n_users * self.n_coordinates:.3g} values "
                f"is more than {MAX_FULL_VECTOR_ENTRIES:.3g}. Use a sampled "
                "mechanism ('piecewise', 'duchi', 'laplace') or a smaller vector."
            )
        return super().randomize(X, y, random_state)

    def _randomize_chunk(self, X, y, source, public):
        prepared = self._prepare(X)
        mechanism = self.scalar_mechanism
        if self.mechanism == "full_vector":
            units = self._unit_vector(prepared)
            return {"vector": mechanism.randomize(units, random_state=source)}
        coordinates = random_groups(public, X.shape[0], self.n_coordinates)
        units = self._unit_values(prepared, coordinates)
        return {
            "coordinate": coordinates,
            "value": mechanism.randomize(units, random_state=source),
        }

    def noise_variance(self, n_users, unit_variance=None):
        """Variance of one entry of the server's mean from the mechanism's noise.

        The server's mean is
        :func:`~sklearn_ldp.aggregation.estimate_vector_mean`:
        ``scale_j^2 / n`` times the scalar mechanism's variance at
        ``unit_variance`` (default: the middle of the interval) for the full
        vector, and ``d`` times that for the sampled scheme, not counting
        the sampling variance of the partition (at most
        ``scale_j^2 (upper - lower)^2 d / (4 n)``).
        """
        at = 0.5 * (self.lower + self.upper) if unit_variance is None else unit_variance
        per_user = float(self.scalar_mechanism.variance(at))
        users = n_users if self.mechanism == "full_vector" else n_users / self.n_groups
        return self.coordinate_scale**2 * per_user / users
