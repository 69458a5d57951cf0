"""Client side of the local Bernstein mechanism: one user's loss at grid points.

Seed 001 (Wang, Gaboardi, Smith, Xu, JMLR 2020), Algorithms 2-3; seed 000
(NeurIPS 2018). The coefficients ``w`` (``n_features`` slopes, then the
intercept) live in a public box, mapped to ``[0, 1]^q``. Each user
evaluates its loss at grid points ``v / k``, ``v in {0..k}^q``, normalizes
it to ``[0, 1]`` by the loss's public maximum over the box and the data
bounds, and releases it with a scalar epsilon-LDP mechanism on its lattice
(every grid value, or the one value at the user's public group). The
server's side (grid estimates, the iterated Bernstein polynomial, its
minimizer) is in :mod:`sklearn_ldp.aggregation` and :mod:`sklearn_ldp.optim`.
"""

from math import isqrt
from numbers import Integral

import numpy as np

from ..accounting import full_grid_epsilon
from ..losses import LOSSES as LOSS_REGISTRY
from ..losses import get_loss
from ..utils import check_bound, check_epsilon, check_finite_array
from ._base import CHUNK_VALUES, FieldSupport, LocalRandomizer, chunk_rows
from ._clip import clip_interval, clip_l2
from ._genprot import GenProtMechanism
from ._ldp_avg import FULL_VECTOR_CHUNK_VALUES, group_support, random_groups
from ._scalar import (
    BassilySmithMechanism,
    DuchiMechanism,
    LaplaceMechanism,
    PiecewiseMechanism,
)

MECHANISMS = ("full_grid", "laplace", "duchi", "piecewise", "bassily_smith", "genprot")
PARTITION_MECHANISMS = MECHANISMS[1:]
#: What users release: their loss at grid points (seed 001), or one of the
#: degree-2 monomials of ``(x, 1, y)`` (the sufficient statistics of the
#: squared loss; partition mechanisms only).
PROTOCOLS = ("grid", "moments")
#: The named losses users may evaluate: the residual losses of the registry
#: (functions of ``y - <w, x> - b``).
RESIDUAL_LOSSES = tuple(
    name for name, loss in LOSS_REGISTRY.items() if loss.kind == "residual"
)

#: Largest grid the server holds: a few float64 tensors of this many entries.
MAX_GRID_POINTS = 2**22
#: Largest number of values all users of ``'full_grid'`` report together.
MAX_FULL_GRID_ENTRIES = 2**27

_SCALAR_MECHANISMS = {
    "laplace": LaplaceMechanism,
    "duchi": DuchiMechanism,
    "piecewise": PiecewiseMechanism,
    "bassily_smith": BassilySmithMechanism,
    "genprot": GenProtMechanism,
}
#: Report fields carrying each mechanism's release, in the order its
#: ``estimate`` reads them (two numbers per user: public value, message).
_VALUE_FIELDS = {
    "full_grid": ("values",),
    "bassily_smith": ("public_z", "bit"),
    "genprot": ("public_value", "index"),
}


def coefficient_box(coef_bounds, n_coef):
    """The public box ``[lower, upper]`` of the ``n_coef`` coefficients.

    ``coef_bounds`` is ``(low, high)`` (the same interval for every
    coefficient) or an array of shape ``(2, n_coef)``.
    """
    bounds = np.asarray(coef_bounds, dtype=float)
    if bounds.shape == (2,):
        bounds = np.repeat(bounds[:, None], n_coef, axis=1)
    if bounds.shape != (2, n_coef):
        raise ValueError(
            "coef_bounds must be (low, high) or an array of shape (2, n_coef) with "
            f"n_coef = n_features + fit_intercept = {n_coef}; got shape {bounds.shape}."
        )
    if not np.all(np.isfinite(bounds)) or np.any(bounds[0] >= bounds[1]):
        raise ValueError(
            f"coef_bounds need finite low < high for every coefficient, got {bounds.tolist()}."
        )
    return bounds[0].copy(), bounds[1].copy()


def residual_loss(loss, huber_delta=1.0):
    """The registry's residual loss named ``loss`` (``huber_delta`` is Huber's ``delta``)."""
    if loss not in RESIDUAL_LOSSES:
        raise ValueError(
            f"loss must be one of {RESIDUAL_LOSSES} or a callable, got {loss!r}."
        )
    return get_loss(loss, **({"delta": huber_delta} if loss == "huber" else {}))


def builtin_loss_bound(
    loss, lower, upper, n_features, *, data_norm, y_bound, huber_delta
):
    """Public maximum of a built-in loss over the box and the data bounds.

    The residual ``y - <w, x> - b`` with ``|y| <= y_bound``,
    ``||x||_2 <= data_norm`` and ``w`` in the box is at most
    ``R = y_bound + data_norm * ||w_max||_2 + b_max`` in absolute value, with
    ``w_max[j] = max(|lower_j|, |upper_j|)`` over the slopes and ``b_max`` the
    same for the intercept (absent without one). ``R`` is attained (``x``
    along ``w_max``, ``y`` of the opposite sign), and every residual loss is
    increasing in ``|r|`` on each side of 0, so the bound is the larger of
    the loss at ``R`` and at ``-R``: ``R^2``, ``R`` or ``huber(R)``.
    """
    corner = np.maximum(np.abs(lower), np.abs(upper))
    radius = y_bound + data_norm * float(np.linalg.norm(corner[:n_features]))
    radius += float(corner[n_features:].sum())
    values = residual_loss(loss, huber_delta).value(np.array([radius, -radius]))
    return float(values.max())


def moment_ranges(n_features, fit_intercept, *, data_norm, y_bound):
    """Public ranges ``(lower, upper)`` of the monomials users release with ``'moments'``.

    The monomials, in this order: ``x_j x_l`` (``j <= l``), then ``x_j``
    (with an intercept), ``x_j y``, ``y`` (with an intercept), and ``y^2``
    (so the risk itself, not only its differences, is estimated). With
    ``||x||_2 <= D`` and ``|y| <= Y``: ``x_j^2`` is in ``[0, D^2]``,
    ``x_j x_l`` (``j < l``) in ``[-D^2 / 2, D^2 / 2]`` (since ``2 |x_j x_l|
    <= x_j^2 + x_l^2``), ``x_j`` in ``[-D, D]``, ``x_j y`` in
    ``[-D Y, D Y]``, ``y`` in ``[-Y, Y]`` and ``y^2`` in ``[0, Y^2]``. All
    bounds are attained.

    Returns
    -------
    lower, upper : ndarray of shape (n_moments,)
    """
    d = int(n_features)
    rows, cols = np.triu_indices(d)
    square = np.where(rows == cols, 0.0, -0.5 * data_norm**2)
    upper_square = np.where(rows == cols, 1.0, 0.5) * data_norm**2
    lower = [square]
    upper = [upper_square]
    if fit_intercept:
        lower.append(np.full(d, -data_norm))
        upper.append(np.full(d, data_norm))
    lower.append(np.full(d, -data_norm * y_bound))
    upper.append(np.full(d, data_norm * y_bound))
    if fit_intercept:
        lower.append(np.array([-y_bound]))
        upper.append(np.array([y_bound]))
    lower.append(np.array([0.0]))
    upper.append(np.array([y_bound**2]))
    return np.concatenate(lower), np.concatenate(upper)


def moment_values(X, y, fit_intercept):
    """Every monomial of :func:`moment_ranges` for each user: ``(n_users, n_moments)``."""
    rows, cols = np.triu_indices(X.shape[1])
    parts = [X[:, rows] * X[:, cols]]
    if fit_intercept:
        parts.append(X)
    parts.append(X * y[:, None])
    if fit_intercept:
        parts.append(y[:, None])
    parts.append(y[:, None] ** 2)
    return np.hstack(parts)


def scalar_mechanism(mechanism, epsilon, n_grid, genprot_options=None):
    """The mechanism one released (normalized) loss value goes through.

    ``'full_grid'``: Laplace at :func:`~sklearn_ldp.accounting.full_grid_epsilon`
    (``n_grid`` releases per user); otherwise the named mechanism at the
    full epsilon, on ``[0, 1]``. Each mechanism draws its lattice and states
    the epsilon it provides (at most the one asked). ``genprot_options``
    (``n_candidates``, ``calibration``) configure ``'genprot'``.
    """
    if mechanism == "genprot" and genprot_options:
        return GenProtMechanism(epsilon, lower=0.0, upper=1.0, **genprot_options)
    if mechanism == "full_grid":
        per_value = full_grid_epsilon(epsilon, n_grid)
        try:  # the lattice design refuses a per-value epsilon that is too small
            laplace = LaplaceMechanism(per_value, lower=0.0, upper=1.0)
        except ValueError as error:
            raise ValueError(
                f"mechanism='full_grid' releases all {n_grid} grid values, each at "
                f"epsilon / {n_grid} = {per_value:.3g}: {error} Use a smaller "
                "degree or a partition mechanism ('piecewise', 'duchi', ...)."
            ) from None
        return laplace
    return _SCALAR_MECHANISMS[mechanism](epsilon, lower=0.0, upper=1.0)


class BernsteinLossRandomizer(LocalRandomizer):
    """Client side of the local Bernstein mechanism: one user's loss at grid points.

    Each user clips ``x`` to the l2 ball of radius ``data_norm`` and ``y`` to
    ``[-y_bound, y_bound]``, evaluates the loss at grid points of the public
    coefficient box, divides it by the public ``loss_bound`` and clips it to
    ``[0, 1]``, and releases it:

    * ``mechanism='full_grid'`` (seed 001 Algorithm 2): all ``G = (k + 1)^q``
      values, each with the discrete Laplace of scale ``G / epsilon``;
      report field ``values``.
    * otherwise (partition scheme): each user draws its group (grid point)
      from the public stream of its randomness (uniform, balanced within
      each chunk of users randomized together; a device alone gets a
      uniform group too) and releases only the value at that grid point
      with the full epsilon. Report fields ``group`` (public, not data-dependent) and
      ``value`` (Laplace, Duchi, piecewise), ``public_z`` and ``bit``
      (Bassily-Smith) or ``public_value`` and ``index`` (GenProt).

    * ``protocol='moments'`` (squared loss, partition mechanisms): instead
      of a loss, the user's group picks one monomial of degree at most 2 of
      ``(x, 1, y)`` (:func:`moment_ranges`: ``x_j x_l``, ``x_j``, ``x_j
      y``, ``y``, ``y^2``), which it maps from its public range to ``[0, 1]`` and
      releases. The group means are unbiased for the moments that define
      the squared risk at every coefficient vector, with no approximation
      bias and a few groups instead of ``(k + 1)^q``.

    Guarantee: each user's record is epsilon-LDP, for what is actually
    sampled (every reported number is on the mechanism's lattice, the
    randomizer's ``granularity``). The released values are functions of
    the clipped record only, normalized to ``[0, 1]``, so the change of one
    record moves each by at most 1: full grid, ``G`` ``(epsilon /
    G)``-LDP Laplace releases compose to epsilon
    (:func:`~sklearn_ldp.accounting.full_grid_epsilon`); partition, one
    epsilon-LDP release, plus a group index and (Bassily-Smith, GenProt)
    public draws that are independent of the data. The mechanisms' own
    guarantees hold for any two values of ``[0, 1]``, so rounding a value
    onto the lattice inside it costs nothing.

    Parameters
    ----------
    n_features : int
    epsilon : float
    degree : int
        Grid resolution ``k``; the grid has ``(k + 1)^q`` points,
        ``q = n_features + fit_intercept``.
    mechanism : {'full_grid', 'laplace', 'duchi', 'piecewise', 'bassily_smith', \
'genprot'}
    loss : {'squared', 'absolute', 'huber'} or callable
        A callable is ``loss(W, X, y) -> (n_points, n_users)`` for
        coefficient rows ``W`` (slopes, then the intercept), clipped ``X``
        and ``y``.
    coef_lower, coef_upper : array-like of shape (q,)
        The public coefficient box.
    fit_intercept : bool
    data_norm, y_bound : float
        Public bounds users clip to.
    huber_delta : float
    loss_bound : float or None
        Public maximum of the loss; derived for built-in losses when None,
        required for a callable.
    protocol : {'grid', 'moments'}, default='grid'
        What users release; ``'moments'`` needs ``loss='squared'``, a
        partition mechanism and ``degree=2`` (the degree of the monomials).
    genprot_options : dict or None, default=None
        Keyword arguments of :class:`GenProtMechanism` (``n_candidates``,
        ``calibration``) for ``mechanism='genprot'``; announced in the
        reports' configuration. None: its defaults.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import BernsteinLossRandomizer
    >>> rand = BernsteinLossRandomizer(1, epsilon=1.0, degree=3)
    >>> reports = rand.randomize(np.ones((8, 1)), np.zeros(8), random_state=0)
    >>> sorted(reports.fields), reports.as_matrix().shape
    (['group', 'value'], (8, 2))
    """

    def __init__(
        self,
        n_features,
        *,
        epsilon,
        degree,
        mechanism="piecewise",
        loss="squared",
        coef_lower=-1.0,
        coef_upper=1.0,
        fit_intercept=True,
        data_norm=1.0,
        y_bound=1.0,
        huber_delta=1.0,
        loss_bound=None,
        protocol="grid",
        genprot_options=None,
    ):
        self.n_features = int(n_features)
        if self.n_features < 1:
            raise ValueError(f"n_features must be >= 1, got {n_features}.")
        self.requested_epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        if isinstance(degree, bool) or not isinstance(degree, Integral) or degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
        self.degree = int(degree)
        if mechanism not in MECHANISMS:
            raise ValueError(
                f"mechanism must be one of {MECHANISMS}, got {mechanism!r}."
            )
        self.mechanism = mechanism
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}.")
        self.protocol = protocol
        if protocol == "moments" and (
            loss != "squared" or mechanism == "full_grid" or self.degree != 2
        ):
            raise ValueError(
                "protocol='moments' releases the degree-2 monomials of the squared "
                "loss: it needs loss='squared', a partition mechanism and degree=2, "
                f"got loss={loss!r}, mechanism={mechanism!r}, degree={degree!r}."
            )
        self.fit_intercept = bool(fit_intercept)
        self.n_coef = self.n_features + int(self.fit_intercept)
        self.n_grid = (self.degree + 1) ** self.n_coef
        if self.n_grid > MAX_GRID_POINTS:
            raise ValueError(
                f"The grid has (degree + 1)^(n_features + fit_intercept) = "
                f"{self.degree + 1}^{self.n_coef} = {self.n_grid:.3g} points, more than "
                f"the {MAX_GRID_POINTS} this implementation holds in memory. Lower "
                "degree, use fewer features (the local Bernstein mechanism is for "
                "low dimension), or set fit_intercept=False."
            )
        lower = np.broadcast_to(np.asarray(coef_lower, dtype=float), (self.n_coef,))
        upper = np.broadcast_to(np.asarray(coef_upper, dtype=float), (self.n_coef,))
        self.coef_lower, self.coef_upper = coefficient_box(
            np.stack([lower, upper]), self.n_coef
        )
        self.data_norm = check_bound(data_norm, name="data_norm")
        self.y_bound = check_bound(y_bound, name="y_bound")
        self.huber_delta = check_bound(huber_delta, name="huber_delta")
        self.loss = loss
        if callable(loss):
            if loss_bound is None:
                raise ValueError(
                    "A callable loss needs a public loss_bound (its maximum over the "
                    "coefficient box and the clipped data); users clip to it."
                )
        else:
            self._residual_loss = residual_loss(loss, self.huber_delta)
        if loss_bound is None:
            loss_bound = builtin_loss_bound(
                loss,
                self.coef_lower,
                self.coef_upper,
                self.n_features,
                data_norm=self.data_norm,
                y_bound=self.y_bound,
                huber_delta=self.huber_delta,
            )
        self.loss_bound = check_bound(loss_bound, name="loss_bound")
        if protocol == "moments":
            self.moment_lower, self.moment_upper = moment_ranges(
                self.n_features,
                self.fit_intercept,
                data_norm=self.data_norm,
                y_bound=self.y_bound,
            )
        # GenProt's public configuration (candidates, calibration) when not
        # the default; announced in the reports.
        self.genprot_options = (
            dict(genprot_options) if genprot_options and mechanism == "genprot" else {}
        )
        self.scalar_mechanism = scalar_mechanism(
            self.mechanism, self.requested_epsilon, self.n_grid, self.genprot_options
        )
        if self.mechanism == "full_grid":
            self.epsilon = min(
                self.requested_epsilon, self.n_grid * self.scalar_mechanism.epsilon
            )
        else:
            self.epsilon = self.scalar_mechanism.epsilon
        self.granularity = float(self.scalar_mechanism.granularity)

    @property
    def loss_name(self):
        if callable(self.loss):
            return "callable:" + getattr(
                self.loss, "__qualname__", type(self.loss).__name__
            )
        return self.loss

    @property
    def n_groups(self):
        """Groups of the public partition (1 for the full grid: every user reports all)."""
        if self.protocol == "moments":
            return self.moment_lower.size
        return 1 if self.mechanism == "full_grid" else self.n_grid

    @property
    def value_fields(self):
        """Report fields of the release, in the order the mechanism's ``estimate`` reads."""
        return _VALUE_FIELDS.get(self.mechanism, ("value",))

    @property
    def communication_bits(self):
        """Bits one user sends (a real number counts 64)."""
        if self.mechanism == "full_grid":
            return 64 * self.n_grid
        if self.mechanism in ("duchi", "bassily_smith"):
            return 1
        if self.mechanism == "genprot":
            return self.scalar_mechanism.communication_bits
        return 64

    def _config(self):
        config = {
            "degree": self.degree,
            "mechanism": self.mechanism,
            "loss": self.loss_name,
            "loss_bound": self.loss_bound,
            "huber_delta": self.huber_delta,
            "coef_lower": self.coef_lower.tolist(),
            "coef_upper": self.coef_upper.tolist(),
            "fit_intercept": self.fit_intercept,
            "data_norm": self.data_norm,
            "y_bound": self.y_bound,
        }
        if self.protocol != "grid":  # grid configurations keep their old form
            config["protocol"] = self.protocol
        if self.genprot_options:
            config["genprot_options"] = dict(self.genprot_options)
        return config

    def grid_points(self, indices=None):
        """Coefficient vectors of grid points (all of them, or the given indices)."""
        if indices is None:
            indices = np.arange(self.n_grid)
        multi = np.unravel_index(np.asarray(indices), (self.degree + 1,) * self.n_coef)
        t = np.stack(multi, axis=-1) / self.degree
        return self.coef_lower + (self.coef_upper - self.coef_lower) * t

    @property
    def chunk_size(self):
        """Users per chunk: bounded temporaries (cache-sized for the full grid)."""
        if self.mechanism == "full_grid":
            return chunk_rows(self.n_grid, budget=FULL_VECTOR_CHUNK_VALUES)
        if self.protocol == "moments":
            return chunk_rows(self.n_groups)
        # A callable loss is evaluated on (distinct points, users) blocks.
        if callable(self.loss):
            return chunk_rows(min(self.n_grid, isqrt(CHUNK_VALUES)))
        return chunk_rows(self.n_coef + 1)

    def report_support(self):
        mechanism = self.scalar_mechanism
        if self.mechanism == "full_grid":
            return {"values": mechanism.report_support((self.n_grid,))}
        support = {"group": group_support(self.n_groups)}
        if self.mechanism == "genprot":
            low, high = mechanism.window
            support["public_value"] = FieldSupport((), low, high, mechanism.granularity)
            support["index"] = FieldSupport((), 0, mechanism.n_candidates - 1, 1.0)
        elif self.mechanism == "bassily_smith":
            pair = mechanism.report_support(())
            low = np.broadcast_to(pair.low, pair.shape)
            high = np.broadcast_to(pair.high, pair.shape)
            step = np.broadcast_to(pair.step, pair.shape)
            support["public_z"] = FieldSupport((), low[0], high[0], step[0])
            support["bit"] = FieldSupport((), 0, 1, 1.0)
        else:
            support["value"] = mechanism.report_support(())
        return support

    def clip_record(self, X, y):
        """The clipped record a user computes its losses from."""
        return clip_l2(X, self.data_norm), clip_interval(y, -self.y_bound, self.y_bound)

    def normalized_loss(self, X, y, groups):
        """Loss of each clipped record at its own group's grid point, in [0, 1].

        The loss divided by ``loss_bound`` and clipped; ``groups[i]`` is
        user ``i``'s grid point index.
        """
        if callable(self.loss):
            # Evaluate the callable on the distinct points of this block of
            # users only, then pick each user's own entry.
            unique, inverse = np.unique(groups, return_inverse=True)
            values = self.normalized_loss_grid(X, y, self.grid_points(unique))
            return values[np.arange(X.shape[0]), inverse]
        points = self.grid_points(groups)
        residual = y - np.einsum("ij,ij->i", X, points[:, : self.n_features])
        if self.fit_intercept:
            residual = residual - points[:, -1]
        values = self._residual_loss.value(residual)
        return np.clip(values / self.loss_bound, 0.0, 1.0)

    def normalized_moment(self, X, y, groups):
        """Monomial ``groups[i]`` of each clipped record, mapped from its range to [0, 1]."""
        values = moment_values(X, y, self.fit_intercept)
        values = values[np.arange(X.shape[0]), groups]
        lower, upper = self.moment_lower[groups], self.moment_upper[groups]
        return np.clip((values - lower) / (upper - lower), 0.0, 1.0)

    def normalized_loss_grid(self, X, y, points):
        """Normalized losses of every user at every given point: ``(n_users, n_points)``."""
        if callable(self.loss):
            values = np.asarray(self.loss(points, X, y), dtype=float)
            if values.shape != (points.shape[0], X.shape[0]):
                raise ValueError(
                    "A callable loss must return an array of shape (n_points, n_users) "
                    f"= {(points.shape[0], X.shape[0])}, got {values.shape}."
                )
            values = values.T
        else:
            residual = y[:, None] - X @ points[:, : self.n_features].T
            if self.fit_intercept:
                residual = residual - points[None, :, -1]
            values = self._residual_loss.value(residual)
        return np.clip(values / self.loss_bound, 0.0, 1.0)

    def randomize(self, X, y=None, random_state=None):
        """Randomize the records of a population of users.

        Parameters
        ----------
        X : array-like of shape (n_users, n_features)
        y : array-like of shape (n_users,)
        random_state : None, int, RandomState, Generator or NoiseSource, default=None
            The users' randomness: ``None`` (what a device must use) draws
            from the operating system's CSPRNG, an integer is for
            simulations. Groups (and the public draws of Bassily-Smith and
            GenProt) come from its separate public stream.

        Returns
        -------
        reports : Reports
        """
        n_users = np.shape(X)[0] if np.ndim(X) else 0
        if (
            self.mechanism == "full_grid"
            and n_users * self.n_grid > MAX_FULL_GRID_ENTRIES
        ):
            raise ValueError(
                f"mechanism='full_grid' has every user report all {self.n_grid} grid "
                f"values: {n_users} users x {self.n_grid} = {n_users * self.n_grid:.3g} "
                f"values is more than {MAX_FULL_GRID_ENTRIES:.3g}. Use a partition "
                "mechanism ('piecewise', 'duchi', 'laplace', 'bassily_smith', 'genprot') or a "
                "smaller degree."
            )
        return super().randomize(X, y, random_state)

    def _randomize_chunk(self, X, y, source, public):
        Xc, yc = self.clip_record(X, check_finite_array(y, name="y"))
        mechanism = self.scalar_mechanism
        if self.mechanism == "full_grid":
            losses = self.normalized_loss_grid(Xc, yc, self.grid_points())
            return {"values": mechanism.randomize(losses, random_state=source)}
        groups = random_groups(public, X.shape[0], self.n_groups)
        if self.protocol == "moments":
            losses = self.normalized_moment(Xc, yc, groups)
        else:
            losses = self.normalized_loss(Xc, yc, groups)
        if self.mechanism in ("bassily_smith", "genprot"):
            released = mechanism.randomize(losses, random_state=source, public=public)
            first, second = self.value_fields
            return {"group": groups, first: released[:, 0], second: released[:, 1]}
        return {
            "group": groups,
            "value": mechanism.randomize(losses, random_state=source),
        }
