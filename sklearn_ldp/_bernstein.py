"""Local Bernstein mechanism: non-interactive LDP ERM in low dimension.

Seed 001 (Wang, Gaboardi, Smith, Xu, JMLR 2020), Algorithms 1-3; seed 000
(NeurIPS 2018). ALGORITHMS.md section 1.

The coefficients ``w`` (``n_features`` slopes, then the intercept) live in a
public box, mapped to ``[0, 1]^q``. Each user evaluates its loss at grid
points ``v / k``, ``v in {0..k}^q``, normalizes it to ``[0, 1]`` by the loss's
public maximum over the box and the data bounds, and releases it with a
scalar epsilon-LDP mechanism:

* ``'full_grid'`` (Algorithm 2, paper-faithful): every user releases all
  ``(k + 1)^q`` values, each with ``Lap((k + 1)^q / epsilon)`` (basic
  composition);
* partition scheme (Algorithm 3's structure): users are split by public
  randomness into ``(k + 1)^q`` balanced groups, one per grid point, and each
  user releases the one value at its group's point with the full epsilon,
  through ``'laplace'``, ``'duchi'``, ``'piecewise'``, ``'bassily_smith'``
  (Algorithm 3's 1-bit protocol, with the calibration and server estimate
  corrected in :class:`~sklearn_ldp.randomizers.BassilySmithMechanism`) or
  ``'genprot'`` (Algorithm 8, the ``O(log log n)``-bit protocol:
  :class:`~sklearn_ldp.randomizers.GenProtMechanism`).

The server averages the unbiased estimates per grid point (the noisy
empirical risk on the grid), forms the iterated Bernstein polynomial of order
``h`` and minimizes it over the box with L-BFGS-B started from the best grid
points.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import LDPEstimatorMixin, announced_degree, ldp_tags
from .aggregation import (
    apply_along_axes,
    bernstein_coefficients,
    bernstein_operator_matrix,
    evaluate_bernstein,
    lebesgue_constant,
)
from .randomizers import (
    BassilySmithMechanism,
    DuchiMechanism,
    GenProtMechanism,
    LaplaceMechanism,
    LocalRandomizer,
    PiecewiseMechanism,
    Reports,
    clip_interval,
    clip_l2,
)
from .utils import (
    check_bound,
    check_epsilon,
    check_finite_array,
    check_noise_random_state,
)

MECHANISMS = ("full_grid", "laplace", "duchi", "piecewise", "bassily_smith", "genprot")
PARTITION_MECHANISMS = MECHANISMS[1:]
LOSSES = ("squared", "absolute", "huber")

#: Largest grid the server holds: a few float64 tensors of this many entries.
MAX_GRID_POINTS = 2**22
#: Largest number of values all users of ``'full_grid'`` report together.
MAX_FULL_GRID_ENTRIES = 2**27
#: Loss values computed at once when users evaluate a grid block
#: (``'full_grid'`` or a callable loss), which bounds the temporaries.
_LOSS_BLOCK = 2**20
#: Largest degree ``degree='auto'`` considers.
_AUTO_MAX_DEGREE = 64
#: Starting points of the server's L-BFGS-B (the best grid points).
_N_STARTS = 5

_SCALAR_MECHANISMS = {
    "laplace": LaplaceMechanism,
    "duchi": DuchiMechanism,
    "piecewise": PiecewiseMechanism,
    "bassily_smith": BassilySmithMechanism,
    "genprot": GenProtMechanism,
}
#: Reports whose unbiased estimate needs two numbers per user: (public value, message).
_TWO_COLUMN_FIELDS = {
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


def builtin_loss(residual, loss, huber_delta=1.0):
    """The built-in losses of a residual ``y - <w, x> - b``."""
    abs_residual = np.abs(residual)
    if loss == "squared":
        return residual**2
    if loss == "absolute":
        return abs_residual
    if loss == "huber":
        return np.where(
            abs_residual <= huber_delta,
            0.5 * residual**2,
            huber_delta * (abs_residual - 0.5 * huber_delta),
        )
    raise ValueError(f"loss must be one of {LOSSES} or a callable, got {loss!r}.")


def builtin_loss_bound(
    loss, lower, upper, n_features, *, data_norm, y_bound, huber_delta
):
    """Public maximum of a built-in loss over the box and the data bounds.

    The residual ``y - <w, x> - b`` with ``|y| <= y_bound``,
    ``||x||_2 <= data_norm`` and ``w`` in the box is at most
    ``R = y_bound + data_norm * ||w_max||_2 + b_max`` in absolute value, with
    ``w_max[j] = max(|lower_j|, |upper_j|)`` over the slopes and ``b_max`` the
    same for the intercept (absent without one). ``R`` is attained (``x``
    along ``w_max``, ``y`` of the opposite sign), and every built-in loss is
    increasing in ``|r|``, so the bound is the loss at ``R``: ``R^2``, ``R``
    or ``huber(R)``.
    """
    corner = np.maximum(np.abs(lower), np.abs(upper))
    radius = y_bound + data_norm * float(np.linalg.norm(corner[:n_features]))
    radius += float(corner[n_features:].sum())
    return float(builtin_loss(np.array(radius), loss, huber_delta))


def scalar_mechanism(mechanism, epsilon, n_grid):
    """The mechanism one released (normalized) loss value goes through."""
    if mechanism == "full_grid":
        # Algorithm 2: n_grid releases per user, basic composition.
        return LaplaceMechanism(epsilon / n_grid, lower=0.0, upper=1.0)
    return _SCALAR_MECHANISMS[mechanism](epsilon, lower=0.0, upper=1.0)


def grid_point_noise(mechanism, epsilon, degree, n_coef, n_users):
    """Standard deviation of the server's estimate of one grid value.

    Partition scheme: about ``n / (k + 1)^q`` users share a grid point, each
    with the mechanism's variance (at the mid value 1/2). Full grid: all ``n``
    users, each with ``Lap((k + 1)^q / epsilon)``.
    """
    n_grid = (degree + 1) ** n_coef
    variance = float(scalar_mechanism(mechanism, epsilon, n_grid).variance(0.5))
    users = n_users if mechanism == "full_grid" else n_users / n_grid
    return np.sqrt(variance / max(users, 1.0))


def approximation_constant(loss, lower, upper, n_features, *, data_norm, loss_bound):
    """Constant ``C`` of the approximation error ``C k^-h`` used by ``degree='auto'``.

    For a quadratic ``f`` on ``[0, 1]`` the iterated Bernstein operator errs
    by exactly ``(I - B_k)^h f = f'' (t^2 - t) / (2 k^h)``, at most
    ``f'' / (8 k^h)``. The normalized squared loss has, along coefficient
    ``j`` mapped to ``[0, 1]``, ``f'' <= 2 (upper_j - lower_j)^2 s_j^2 /
    loss_bound`` with ``s_j = data_norm`` for a slope and 1 for the
    intercept; Huber's second derivative is at most half of that. Summing
    over the axes (Lemma 10's ``p T`` factor) gives ``C``. For the absolute
    loss or a callable no curvature is known and the unit constant
    ``q / 8`` is used.
    """
    widths = np.asarray(upper, dtype=float) - np.asarray(lower, dtype=float)
    if loss not in ("squared", "huber"):
        return widths.size / 8.0
    scale = np.ones_like(widths)
    scale[:n_features] = data_norm
    curvature = (2.0 if loss == "squared" else 1.0) * (widths * scale) ** 2 / loss_bound
    return float(curvature.sum() / 8.0)


def auto_degree(n_users, n_coef, order, mechanism, epsilon, approximation=None):
    """``degree='auto'``: minimize the uniform error bound of seed 001's Theorem 17.

    The proof of Theorem 17 bounds the uniform error of the private
    polynomial by an approximation term (Lemma 10, ``C k^-h``, ``C`` from
    :func:`approximation_constant`; ``q / 8`` when None) plus the Lebesgue
    constant of the iterated operator (``Lambda_h^q``, computed, at most
    ``(2^h - 1)^q``) times the largest noise of the ``G = (k + 1)^q`` grid
    values (``sqrt(2 ln G)`` standard deviations of
    :func:`grid_point_noise`, which grows with ``k`` as users are spread
    over more points). Returns the ``k`` in ``1..64`` minimizing the sum,
    never more grid points than users unless ``k = 1`` already has.
    """
    if approximation is None:
        approximation = n_coef / 8.0
    best_degree, best_bound = 1, np.inf
    for degree in range(1, _AUTO_MAX_DEGREE + 1):
        n_grid = (degree + 1) ** n_coef
        if n_grid > MAX_GRID_POINTS or (degree > 1 and n_grid > n_users):
            break
        noise = grid_point_noise(mechanism, epsilon, degree, n_coef, n_users)
        noise *= np.sqrt(2.0 * np.log(n_grid))
        lebesgue = lebesgue_constant(degree, order, n_points=201) ** n_coef
        bound = approximation * degree ** (-order) + lebesgue * noise
        if bound < best_bound:
            best_degree, best_bound = degree, bound
    return best_degree


class BernsteinLossRandomizer(LocalRandomizer):
    """Client side of the local Bernstein mechanism: one user's loss at grid points.

    Each user clips ``x`` to the l2 ball of radius ``data_norm`` and ``y`` to
    ``[-y_bound, y_bound]``, evaluates the loss at grid points of the public
    coefficient box, divides it by the public ``loss_bound`` and clips it to
    ``[0, 1]``, and releases it:

    * ``mechanism='full_grid'`` (seed 001 Algorithm 2): all ``G = (k + 1)^q``
      values, each with ``Lap(G / epsilon)``; report field ``values``.
    * otherwise (partition scheme): users are split into ``G`` balanced
      groups by a public permutation drawn from ``public_seed``
      (:meth:`assign_groups`); a user releases only the value at its group's
      grid point with the full epsilon. Report fields ``group`` (public, not
      data-dependent) and ``value`` (Laplace, Duchi, piecewise) or
      ``public_z`` and ``bit`` (Bassily-Smith).

    Guarantee: each user's record is epsilon-LDP. The released values are
    functions of the clipped record only, normalized to ``[0, 1]``, so the
    change of one record moves each by at most 1: full grid, ``G``
    ``(epsilon / G)``-LDP Laplace releases compose to epsilon; partition, one
    epsilon-LDP release, plus a group index and (Bassily-Smith) a Laplace
    draw that are independent of the data.

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
    public_seed : int or None
        Seed of the public partition; drawn from ``random_state`` in
        :meth:`randomize` when None (and then recorded in the reports).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp._bernstein import BernsteinLossRandomizer
    >>> rand = BernsteinLossRandomizer(1, epsilon=1.0, degree=3)
    >>> reports = rand.randomize(np.ones((8, 1)), np.zeros(8), random_state=0)
    >>> sorted(reports.fields), reports.as_matrix().shape
    (['group', 'value'], (8, 2))
    """

    public_random_keys = ("public_seed",)

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
        public_seed=None,
    ):
        self.n_features = int(n_features)
        if self.n_features < 1:
            raise ValueError(f"n_features must be >= 1, got {n_features}.")
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        if isinstance(degree, bool) or not isinstance(degree, Integral) or degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
        self.degree = int(degree)
        if mechanism not in MECHANISMS:
            raise ValueError(
                f"mechanism must be one of {MECHANISMS}, got {mechanism!r}."
            )
        self.mechanism = mechanism
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
        elif loss not in LOSSES:
            raise ValueError(
                f"loss must be one of {LOSSES} or a callable, got {loss!r}."
            )
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
        if public_seed is not None and (
            isinstance(public_seed, bool) or not isinstance(public_seed, Integral)
        ):
            raise TypeError(f"public_seed must be an int or None, got {public_seed!r}.")
        self.public_seed = None if public_seed is None else int(public_seed)
        self.scalar_mechanism = scalar_mechanism(
            self.mechanism, self.epsilon, self.n_grid
        )

    @property
    def loss_name(self):
        if callable(self.loss):
            return "callable:" + getattr(
                self.loss, "__qualname__", type(self.loss).__name__
            )
        return self.loss

    def _config(self):
        return {
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
            "public_seed": self.public_seed,
        }

    def grid_points(self, indices=None):
        """Coefficient vectors of grid points (all of them, or the given indices)."""
        if indices is None:
            indices = np.arange(self.n_grid)
        multi = np.unravel_index(np.asarray(indices), (self.degree + 1,) * self.n_coef)
        t = np.stack(multi, axis=-1) / self.degree
        return self.coef_lower + (self.coef_upper - self.coef_lower) * t

    def assign_groups(self, n_users, public_seed):
        """The public partition: user ``i``'s grid point index.

        A uniformly random balanced partition (every group has
        ``floor(n / G)`` or ``ceil(n / G)`` users), a function of the public
        seed, the user's index and ``n_users`` only.
        """
        permutation = np.random.RandomState(public_seed).permutation(n_users)
        return permutation % self.n_grid

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
        return np.clip(
            builtin_loss(residual, self.loss, self.huber_delta) / self.loss_bound,
            0.0,
            1.0,
        )

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
            values = builtin_loss(residual, self.loss, self.huber_delta)
        return np.clip(values / self.loss_bound, 0.0, 1.0)

    def randomize(self, X, y=None, random_state=None):
        """Randomize the records of a population of users.

        Parameters
        ----------
        X : array-like of shape (n_users, n_features)
        y : array-like of shape (n_users,)
        random_state : int, RandomState instance or None, default=None
            The users' private randomness; also draws the public seed when
            ``public_seed`` is None.

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
        if y is None:
            raise ValueError(f"{type(self).__name__}.randomize needs y.")
        y = check_finite_array(y, name="y")
        if y.ndim != 1 or y.shape[0] != n_users:
            raise ValueError(
                f"y must be 1-dimensional with {n_users} entries, got shape {y.shape}."
            )
        rng = check_noise_random_state(random_state)
        public_seed = self.public_seed
        if public_seed is None:
            public_seed = int(rng.randint(0, 2**31 - 1))
        if self.mechanism == "full_grid":
            fields = self._randomize_full_grid(X, y, rng)
        else:
            fields = self._randomize_partition(X, y, public_seed, rng)
        config = self.get_config()
        config["public_seed"] = public_seed
        return Reports(fields, config)

    def _randomize_full_grid(self, X, y, rng):
        n_users = X.shape[0]
        if n_users * self.n_grid > MAX_FULL_GRID_ENTRIES:
            raise ValueError(
                f"mechanism='full_grid' has every user report all {self.n_grid} grid "
                f"values: {n_users} users x {self.n_grid} = {n_users * self.n_grid:.3g} "
                f"values is more than {MAX_FULL_GRID_ENTRIES:.3g}. Use a partition "
                "mechanism ('piecewise', 'duchi', 'laplace', 'bassily_smith', 'genprot') or a "
                "smaller degree."
            )
        points = self.grid_points()
        values = np.empty((n_users, self.n_grid))
        step = max(1, min(self.chunk_size, _LOSS_BLOCK // self.n_grid))
        for start in range(0, n_users, step):
            block = slice(start, start + step)
            Xc, yc = self.clip_record(X[block], y[block])
            losses = self.normalized_loss_grid(Xc, yc, points)
            values[block] = self.scalar_mechanism.randomize(losses, random_state=rng)
        return {"values": values}

    def _randomize_partition(self, X, y, public_seed, rng):
        n_users = X.shape[0]
        groups = self.assign_groups(n_users, public_seed)
        two_columns = _TWO_COLUMN_FIELDS.get(self.mechanism)
        out = np.empty((n_users, 2)) if two_columns else np.empty(n_users)
        step = self.chunk_size
        if callable(self.loss):
            # A callable loss is evaluated on (distinct points, users) blocks
            # of at most _LOSS_BLOCK entries.
            step = min(step, int(np.sqrt(_LOSS_BLOCK)))
        for start in range(0, n_users, step):
            block = slice(start, start + step)
            Xc, yc = self.clip_record(X[block], y[block])
            losses = self.normalized_loss(Xc, yc, groups[block])
            out[block] = self.scalar_mechanism.randomize(losses, random_state=rng)
        if two_columns:
            return {
                "group": groups,
                two_columns[0]: out[:, 0],
                two_columns[1]: out[:, 1],
            }
        return {"group": groups, "value": out}

    def grid_estimate(self, reports):
        """Server: unbiased estimate of the normalized empirical risk at each grid point.

        Returns
        -------
        values : ndarray of shape (n_grid,)
            The mean of the mechanism's unbiased estimates over the users of
            each grid point (all users for ``'full_grid'``). A grid point
            without users gets the mean over all users (an uninformative
            fill; :class:`LocalBernsteinRegressor` warns).
        counts : ndarray of shape (n_grid,)
            Users behind each value.
        """
        n_users = len(reports)
        if self.mechanism == "full_grid":
            values = self.scalar_mechanism.estimate(reports["values"]).mean(axis=0)
            return values, np.full(self.n_grid, n_users)
        if self.mechanism in _TWO_COLUMN_FIELDS:
            first, second = _TWO_COLUMN_FIELDS[self.mechanism]
            estimates = self.scalar_mechanism.estimate(
                np.stack([reports[first], reports[second]], axis=-1)
            )
        else:
            estimates = self.scalar_mechanism.estimate(reports["value"])
        groups = np.asarray(reports["group"])
        if groups.shape != (n_users,) or (
            n_users and (groups.min() < 0 or groups.max() >= self.n_grid)
        ):
            raise ValueError(
                f"Report groups must be grid indices in [0, {self.n_grid})."
            )
        counts = np.bincount(groups, minlength=self.n_grid)
        sums = np.bincount(groups, weights=estimates, minlength=self.n_grid)
        fill = float(estimates.mean())
        values = np.divide(
            sums, counts, out=np.full(self.n_grid, fill), where=counts > 0
        )
        return values, counts


def communication_bits(randomizer):
    """Bits one user sends with this randomizer (a real number counts 64)."""
    if randomizer.mechanism == "full_grid":
        return 64 * randomizer.n_grid
    if randomizer.mechanism in ("duchi", "bassily_smith"):
        return 1
    if randomizer.mechanism == "genprot":
        return randomizer.scalar_mechanism.communication_bits
    return 64


def minimize_bernstein(coef, n_starts=_N_STARTS):
    """Minimize a tensor-product Bernstein polynomial over ``[0, 1]^q``.

    L-BFGS-B with the closed-form gradient, started from the ``n_starts``
    grid points where the polynomial is smallest (its values on the grid are
    ``M`` applied along every axis); returns the best point and value.
    """
    degree, q = coef.shape[0] - 1, coef.ndim
    on_grid = apply_along_axes(bernstein_operator_matrix(degree), coef).reshape(-1)
    n_starts = min(n_starts, on_grid.size)
    starts = np.argpartition(on_grid, n_starts - 1)[:n_starts]
    multi = np.stack(np.unravel_index(starts, coef.shape), axis=-1) / degree

    def objective(t):
        value, grad = evaluate_bernstein(coef, t[None, :], gradient=True)
        return float(value[0]), grad[0]

    best_t, best_value = None, np.inf
    for start in multi:
        result = minimize(
            objective,
            start,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * q,
            options={"ftol": 1e-15, "gtol": 1e-12},
        )
        value = float(result.fun)
        if value < best_value:
            best_t, best_value = np.clip(result.x, 0.0, 1.0), value
    return best_t, best_value


class LocalBernsteinRegressor(LDPEstimatorMixin, RegressorMixin, BaseEstimator):
    """Linear regression under non-interactive local DP by the local Bernstein mechanism.

    Users evaluate a bounded loss of their own record at grid points of a
    public coefficient box and release it with an epsilon-LDP scalar
    mechanism; the server rebuilds the noisy empirical risk on the grid,
    smooths it into an iterated Bernstein polynomial and minimizes that over
    the box (seed 001, Algorithms 2-3). Any bounded loss works, smooth or
    not, convex or not; the grid has ``(k + 1)^q`` points
    (``q = n_features + fit_intercept``), so the method is for a handful of
    features.

    Privacy: each sample ``(x_i, y_i)`` is epsilon-LDP (pure, ``delta = 0``).

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget.
    degree : int or 'auto', default='auto'
        Grid resolution ``k``. ``'auto'`` minimizes the error bound of seed
        001 (approximation ``q k^-h`` plus the noise of a grid value), see
        :func:`auto_degree`; it needs the number of users, which ``fit``
        knows and :meth:`make_randomizer` takes as ``n_users``.
    iterated_order : int, default=3
        Order ``h`` of the iterated Bernstein operator; the approximation
        error of a smooth risk falls like ``k^-h``. ``h = 2`` and ``h = 3``
        are within 2% of each other in ``benchmarks/bench_bernstein.py``
        and both well ahead of ``h = 1``, the plain Bernstein polynomial of
        Algorithm 2.
    mechanism : {'piecewise', 'duchi', 'laplace', 'bassily_smith', 'genprot', \
'full_grid'}, default='piecewise'
        How a user releases its loss. ``'piecewise'`` and ``'duchi'`` (one
        bit) are the two best; their order has changed between benchmark
        runs (``docs/benchmarks/bench_bernstein.md``: ``'duchi'`` ahead on
        the current grid).
        ``'full_grid'`` is seed 001's Algorithm 2 (every user reports every grid point with
        ``epsilon / (k + 1)^q``); the others use the partition scheme (one
        value per user, full epsilon). ``'bassily_smith'`` is Algorithm 3's
        1-bit protocol, calibrated to be truly epsilon-LDP for every epsilon
        (its utility saturates beyond epsilon ~ 1, since its internal budget
        ``ln(2 - e^-epsilon)`` stays below ``ln 2``). ``'genprot'`` is
        Algorithm 8: each user sends a ``ceil(log2 32) = 5``-bit index into
        32 public Laplace strings (:class:`~sklearn_ldp.randomizers.GenProtMechanism`,
        tight calibration, base budget about ``epsilon / 2``; utility
        saturates beyond epsilon ~ 2.7).
    loss : {'squared', 'absolute', 'huber'} or callable, default='squared'
        A callable is ``loss(W, X, y) -> ndarray (n_points, n_samples)`` for
        coefficient rows ``W`` (slopes, then the intercept) and clipped
        ``X``, ``y``; it needs ``loss_bound``. Users evaluate a callable on
        blocks of grid points, so it costs more than a built-in loss.
    huber_delta : float, default=1.0
        Threshold of the Huber loss (in units of ``y``).
    loss_bound : float or None, default=None
        Public maximum of the loss over the box and the clipped data; the
        loss is divided by it and clipped to ``[0, 1]``. None derives the
        exact maximum for the built-in losses from ``data_norm``,
        ``y_bound`` and ``coef_bounds``; required for a callable loss.
    coef_bounds : tuple (low, high) or array of shape (2, q), default=(-1.0, 1.0)
        The public box of the coefficients (slopes, then the intercept).
    fit_intercept : bool, default=True
    data_norm : float, default=1.0
        Public bound on ``||x||_2``; users clip to it.
    y_bound : float, default=1.0
        Public bound on ``|y|``; users clip to it.
    random_state : int, RandomState instance or None, default=None
        Randomness of the simulated users in ``fit`` (and of the public
        partition seed).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    degree_ : int
        The grid resolution used.
    n_grid_points_ : int
    grid_risk_ : ndarray of shape (k + 1,)^q
        The noisy normalized empirical risk at the grid points.
    bernstein_coef_ : ndarray of shape (k + 1,)^q
        Coefficients of the iterated Bernstein polynomial.
    loss_bound_ : float
    coef_bounds_ : ndarray of shape (2, q)
    users_per_grid_point_ : float
    communication_bits_ : int
        Bits each user sends (64 per real number; 1 for ``'duchi'`` and
        ``'bassily_smith'``; ``ceil(log2 T)`` for ``'genprot'``).
    privacy_epsilon_, privacy_delta_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    sklearn_ldp.randomizers.BassilySmithMechanism : the 1-bit protocol.

    Notes
    -----
    Wang, Gaboardi, Smith and Xu, *Empirical Risk Minimization in the
    Non-interactive Local Model of Differential Privacy*, JMLR 21 (2020),
    Algorithms 2-3 (and NeurIPS 2018). Line 17 of Algorithm 3 prints the
    group estimate ``n / |I_l| sum z_i``, which is not unbiased; the server
    uses ``2 / |I_l| sum z_i`` (``E[z_i] = v_i / 2``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import LocalBernsteinRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, size=(50_000, 1))
    >>> y = np.clip(0.5 * X[:, 0] + 0.1 + 0.1 * rng.randn(50_000), -1, 1)
    >>> est = LocalBernsteinRegressor(epsilon=4.0, random_state=0).fit(X, y)
    >>> est.degree_, est.coef_.round(1), round(est.intercept_, 1)
    (4, array([0.5]), 0.1)
    """

    #: degree='auto' and the partition depend on the (public) population size.
    _population_is_public = True

    _parameter_constraints = {
        **LDPEstimatorMixin._ldp_parameter_constraints,
        "degree": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "iterated_order": [Interval(Integral, 1, 10, closed="both")],
        "mechanism": [StrOptions(set(MECHANISMS))],
        "loss": [StrOptions(set(LOSSES)), callable],
        "huber_delta": [Interval(Real, 0, None, closed="neither")],
        "loss_bound": [Interval(Real, 0, None, closed="neither"), None],
        "coef_bounds": ["array-like"],
        "fit_intercept": ["boolean"],
        "data_norm": [Interval(Real, 0, None, closed="neither")],
        "y_bound": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        degree="auto",
        iterated_order=3,
        mechanism="piecewise",
        loss="squared",
        huber_delta=1.0,
        loss_bound=None,
        coef_bounds=(-1.0, 1.0),
        fit_intercept=True,
        data_norm=1.0,
        y_bound=1.0,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.degree = degree
        self.iterated_order = iterated_order
        self.mechanism = mechanism
        self.loss = loss
        self.huber_delta = huber_delta
        self.loss_bound = loss_bound
        self.coef_bounds = coef_bounds
        self.fit_intercept = fit_intercept
        self.data_norm = data_norm
        self.y_bound = y_bound
        self.random_state = random_state

    def make_randomizer(
        self, n_features, n_users=None, *, degree=None, public_seed=None
    ):
        """The users' randomizer (public configuration).

        Parameters
        ----------
        n_features : int
        n_users : int or None, default=None
            Expected number of users; needed by ``degree='auto'``.
        degree : int or None, default=None
            Override of the grid resolution (the server uses the one recorded
            in the reports).
        public_seed : int or None, default=None
            Seed of the public partition; drawn in ``randomize`` when None.

        Returns
        -------
        randomizer : BernsteinLossRandomizer
        """
        self._validate_params()
        n_coef = int(n_features) + int(self.fit_intercept)
        if degree is None:
            degree = self.degree
            if degree == "auto":
                if n_users is None:
                    raise ValueError(
                        "degree='auto' chooses the grid from the number of users: pass "
                        "make_randomizer(n_features, n_users=...), or set an integer "
                        "degree."
                    )
                lower, upper = coefficient_box(self.coef_bounds, n_coef)
                degree = auto_degree(
                    int(n_users),
                    n_coef,
                    self.iterated_order,
                    self.mechanism,
                    self.epsilon,
                    self._approximation_constant(int(n_features), lower, upper),
                )
        lower, upper = coefficient_box(self.coef_bounds, n_coef)
        return BernsteinLossRandomizer(
            n_features,
            epsilon=self.epsilon,
            degree=degree,
            mechanism=self.mechanism,
            loss=self.loss,
            coef_lower=lower,
            coef_upper=upper,
            fit_intercept=self.fit_intercept,
            data_norm=self.data_norm,
            y_bound=self.y_bound,
            huber_delta=self.huber_delta,
            loss_bound=self.loss_bound,
            public_seed=public_seed,
        )

    def _approximation_constant(self, n_features, lower, upper):
        loss = self.loss if isinstance(self.loss, str) else None
        if loss is None:
            return (n_features + int(self.fit_intercept)) / 8.0
        loss_bound = self.loss_bound
        if loss_bound is None:
            loss_bound = builtin_loss_bound(
                loss,
                lower,
                upper,
                n_features,
                data_norm=self.data_norm,
                y_bound=self.y_bound,
                huber_delta=self.huber_delta,
            )
        return approximation_constant(
            loss,
            lower,
            upper,
            n_features,
            data_norm=self.data_norm,
            loss_bound=loss_bound,
        )

    def _expected_randomizer(self, config):
        # degree='auto' was resolved and announced before the users replied.
        degree = announced_degree(self, config)
        return self.make_randomizer(config.get("n_features"), degree=degree)

    def _fit_server(self, reports, rng):
        config = reports.config
        randomizer = self.make_randomizer(
            config["n_features"],
            degree=config["degree"],
            public_seed=config["public_seed"],
        )
        n_users, n_grid = len(reports), randomizer.n_grid
        if n_users < n_grid and randomizer.mechanism != "full_grid":
            warnings.warn(
                f"The grid has {n_grid} points ((degree + 1)^(n_features + "
                f"fit_intercept) = {randomizer.degree + 1}^{randomizer.n_coef}) but "
                f"there are only {n_users} users, so {n_grid - n_users} grid points "
                "have no report and the fit is mostly noise. Lower degree, use fewer "
                "features or fit_intercept=False, or collect more users.",
                UserWarning,
                stacklevel=3,
            )
        values, counts = randomizer.grid_estimate(reports)
        shape = (randomizer.degree + 1,) * randomizer.n_coef
        self.grid_risk_ = values.reshape(shape)
        self.bernstein_coef_ = bernstein_coefficients(
            self.grid_risk_, self.iterated_order
        )
        t_best, _ = minimize_bernstein(self.bernstein_coef_)
        lower, upper = randomizer.coef_lower, randomizer.coef_upper
        coef = lower + (upper - lower) * t_best
        n_features = randomizer.n_features
        self.coef_ = coef[:n_features]
        self.intercept_ = float(coef[n_features]) if self.fit_intercept else 0.0
        self.degree_ = randomizer.degree
        self.n_grid_points_ = n_grid
        self.users_per_grid_point_ = float(np.mean(counts))
        self.communication_bits_ = communication_bits(randomizer)
        self.loss_bound_ = randomizer.loss_bound
        self.coef_bounds_ = np.stack([lower, upper])
        return self

    def private_risk(self, coefs):
        """The server's private estimate of the empirical risk at coefficient vectors.

        Parameters
        ----------
        coefs : array-like of shape (m, q)
            Rows ``(slopes, intercept)`` (no intercept column when
            ``fit_intercept=False``), inside ``coef_bounds_``.

        Returns
        -------
        risk : ndarray of shape (m,)
            The iterated Bernstein polynomial times ``loss_bound_`` (in loss
            units); post-processing of the reports, so it costs no privacy.
        """
        check_is_fitted(self)
        coefs = check_finite_array(coefs, name="coefs", ndim=2)
        lower, upper = self.coef_bounds_
        t = (coefs - lower) / (upper - lower)
        return self.loss_bound_ * evaluate_bernstein(self.bernstein_coef_, t)

    def predict(self, X):
        """Linear prediction ``X @ coef_ + intercept_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return X @ self.coef_ + self.intercept_

    def __sklearn_tags__(self):
        return ldp_tags(super().__sklearn_tags__(), poor_score=True)


__all__ = [
    "BernsteinLossRandomizer",
    "LocalBernsteinRegressor",
    "approximation_constant",
    "auto_degree",
]
