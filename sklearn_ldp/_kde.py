"""Kernel density and smooth queries under non-interactive LDP (local trigonometric mechanism).

Seed 001 (Wang, Gaboardi, Smith, Xu, JMLR 2020), section 6.2, Algorithm 7;
ALGORITHMS.md section 6. Each user maps its record to ``u in [-1, 1]^p``
(public box, clipped) and releases the vector of
``prod_i cos(v_i arccos u_i) = prod_i T_{v_i}(u_i)``, ``v in {0..t-1}^p``,
through LDP-AVG. The server holds the private Chebyshev moments of the
empirical distribution; any smooth linear query ``(1/n) sum_i f(x_i)`` is
``sum_v c_v m_v`` with ``f``'s coefficients ``c_v``
(:func:`~sklearn_ldp.aggregation.trigonometric_coefficients`). The Gaussian
kernel density at a point is such a query, for every bandwidth: the released
vector does not depend on the bandwidth, so any number of bandwidths (or
other queries) cost no further privacy.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import LDPEstimatorMixin, announced_degree
from .aggregation import (
    chebyshev_coefficients_from_nodes,
    chebyshev_nodes,
    chebyshev_tensor_basis,
    trigonometric_coefficients,
)
from .aggregation._trigonometric import default_nodes
from .randomizers import clip_interval
from .randomizers._ldp_avg import VECTOR_MECHANISMS, VectorAverageRandomizer
from .utils import check_noise_random_state

#: Query points times moment-tensor slices held at once in ``score_samples``.
_QUERY_BLOCK = 2**22
#: ``degree='auto'``: the largest ``t <= _AUTO_MAX_DEGREE`` giving every
#: coordinate at least ``_AUTO_USERS_PER_COORDINATE`` users.
_AUTO_MAX_DEGREE = 16
_AUTO_USERS_PER_COORDINATE = 50


def auto_degree(n_users, n_features):
    """``degree='auto'``: largest ``t in 2..16`` with ``t^p - 1 <= n / 50``."""
    degree = _AUTO_MAX_DEGREE
    while degree > 2 and degree**n_features - 1 > n_users / _AUTO_USERS_PER_COORDINATE:
        degree -= 1
    return degree


def _box(bounds, n_features):
    bounds = np.asarray(bounds, dtype=float)
    if bounds.shape == (2,):
        bounds = np.repeat(bounds[:, None], n_features, axis=1)
    if bounds.shape != (2, n_features):
        raise ValueError(
            "bounds must be (low, high) or an array of shape (2, n_features) = "
            f"(2, {n_features}); got shape {bounds.shape}."
        )
    if not np.all(np.isfinite(bounds)) or np.any(bounds[0] >= bounds[1]):
        raise ValueError(
            f"bounds need finite low < high per feature, got {bounds.tolist()}."
        )
    return bounds[0].copy(), bounds[1].copy()


class TrigonometricRandomizer(VectorAverageRandomizer):
    """Client side of the local trigonometric mechanism (seed 001, Algorithm 7).

    Each user clips its record to the public box, maps it to
    ``u in [-1, 1]^p`` and releases the ``t^p - 1`` non-constant entries of
    ``prod_i T_{v_i}(u_i)`` (the ``v = 0`` entry is the constant 1) through
    LDP-AVG.

    Guarantee: each user's record is epsilon-LDP. Every entry lies in
    ``[-1, 1]`` (a product of cosines): the sampled scheme releases one with
    the full epsilon on that interval; the full vector adds
    ``Lap(2 d / epsilon)`` to each of the ``d = t^p - 1`` entries (l1
    sensitivity at most ``2 d``). Seed 001 prints ``b = 1`` for Lemma 3,
    whose values lie in ``[0, b]``; the entries here range over an interval
    of width 2, so ``b = 2`` is what makes Lemma 3 apply.

    Parameters
    ----------
    n_features : int
    epsilon : float
    degree : int
        ``t``: ``v_i in {0..t-1}``.
    lower, upper : array-like of shape (n_features,)
        The public box.
    mechanism : {'piecewise', 'duchi', 'laplace', 'full_vector'}
    public_seed : int or None

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp._kde import TrigonometricRandomizer
    >>> rand = TrigonometricRandomizer(2, epsilon=1.0, degree=4, lower=[-1, -1], upper=[1, 1])
    >>> rand.n_coordinates
    15
    >>> rand.randomize(np.zeros((3, 2)), random_state=0).as_matrix().shape
    (3, 2)
    """

    def __init__(
        self,
        n_features,
        *,
        epsilon,
        degree,
        lower=-1.0,
        upper=1.0,
        mechanism="piecewise",
        public_seed=None,
    ):
        self.n_features = int(n_features)
        if self.n_features < 1:
            raise ValueError(f"n_features must be >= 1, got {n_features}.")
        self._init_mechanism(epsilon, mechanism, public_seed)
        if isinstance(degree, bool) or not isinstance(degree, Integral) or degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
        self.degree = int(degree)
        lower = np.broadcast_to(np.asarray(lower, dtype=float), (self.n_features,))
        upper = np.broadcast_to(np.asarray(upper, dtype=float), (self.n_features,))
        self.box_lower, self.box_upper = _box(np.stack([lower, upper]), self.n_features)
        n_terms = float(self.degree) ** self.n_features
        self.n_coordinates = int(n_terms) - 1 if n_terms < 2**62 else 2**62
        if self.n_coordinates < 1:
            raise ValueError(
                "degree = 1 gives only the constant term; use degree >= 2."
            )
        self._check_size()
        self.unit_interval = (-1.0, 1.0)
        self.coordinate_scale = np.ones(self.n_coordinates)

    def _size_advice(self):
        return (
            f"t^p = {self.degree}^{self.n_features} terms. Lower the degree or use "
            "fewer features (smooth queries are for low dimension)."
        )

    def _config(self):
        return {
            "degree": self.degree,
            "lower": self.box_lower.tolist(),
            "upper": self.box_upper.tolist(),
            **self._mechanism_config(),
        }

    def _prepare(self, X):
        X = clip_interval(X, self.box_lower, self.box_upper)
        units = (2.0 * X - self.box_lower - self.box_upper) / (
            self.box_upper - self.box_lower
        )
        return np.arccos(np.clip(units, -1.0, 1.0))

    def _exponents(self, coordinates):
        # Coordinate j is the multi-index v of flat index j + 1 (0 is constant).
        shape = (self.degree,) * self.n_features
        return np.stack(np.unravel_index(np.asarray(coordinates) + 1, shape), axis=-1)

    def _unit_values(self, angles, coordinates):
        return np.prod(np.cos(self._exponents(coordinates) * angles), axis=1)

    def _unit_vector(self, angles):
        return chebyshev_tensor_basis(np.cos(angles), self.degree)[:, 1:]

    def moments(self, reports):
        """Server: the private moment tensor ``m_v``, shape ``(t,) * p`` (``m_0 = 1``)."""
        mean, counts = self.estimate_mean(reports)
        moments = np.concatenate([[1.0], mean]).reshape(
            (self.degree,) * self.n_features
        )
        return moments, counts


def gaussian_kernel_coefficients(
    centers, bandwidth, degree, lower, upper, n_nodes=None
):
    """Chebyshev coefficients of ``x -> N(x; center, bandwidth^2)`` on ``[lower, upper]``.

    One axis: for every center, the first ``t`` coefficients in the rescaled
    variable ``u``. Returns shape ``(n_centers, t)``.
    """
    n_nodes = default_nodes(degree) if n_nodes is None else n_nodes
    nodes = 0.5 * (lower + upper) + 0.5 * (upper - lower) * chebyshev_nodes(n_nodes)
    z = (nodes[None, :] - np.asarray(centers, dtype=float)[:, None]) / bandwidth
    values = np.exp(-0.5 * z**2) / (np.sqrt(2.0 * np.pi) * bandwidth)
    return chebyshev_coefficients_from_nodes(values, degree)


def contract_moments(moments, factors):
    """``sum_v moments[v] prod_j factors[j][q, v_j]`` for every query ``q``.

    ``moments`` has shape ``(t,) * p``; ``factors`` is a list of ``p``
    arrays ``(n_queries, t)``. Contracts the last axis first, so the largest
    temporary is ``t^(p-1) x n_queries``.
    """
    p = moments.ndim
    t = moments.shape[0]
    current = moments.reshape(-1, t) @ factors[-1].T  # (t^(p-1), n_q)
    for axis in range(p - 2, -1, -1):
        current = current.reshape(-1, t, current.shape[-1])
        current = np.einsum("avq,qv->aq", current, factors[axis])
    return current.reshape(-1)


class KernelDensityLDP(LDPEstimatorMixin, BaseEstimator):
    """Gaussian kernel density estimation under local DP (local trigonometric mechanism).

    The private counterpart of :class:`sklearn.neighbors.KernelDensity`:
    each user releases once the Chebyshev basis of its (clipped) record
    through LDP-AVG; the server then answers the kernel density at any
    point, for any bandwidth, and any other smooth query (:meth:`query`),
    all from the same reports (seed 001, Algorithm 7).

    Privacy: each sample ``x_i`` is epsilon-LDP (pure, ``delta = 0``). The
    bandwidth is a server-side parameter: changing it after fitting (or
    scoring many bandwidths, or any number of queries) uses the same reports
    and costs no further privacy.

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget.
    bandwidth : float or {'scott', 'silverman'}, default=1.0
        Gaussian kernel bandwidth, in the units of ``X``; read at query
        time. ``'scott'`` and ``'silverman'`` are scikit-learn's rules
        (functions of the number of users and features only, both public).
    degree : int or 'auto', default='auto'
        ``t``: users release the ``t^p - 1`` products ``prod_i T_{v_i}(u_i)``
        with ``v_i < t``. A larger ``t`` resolves narrower kernels (the
        Gaussian factor of bandwidth ``h`` on a box side ``L`` needs
        ``t`` of a few times ``L / h``) but spreads the users over more
        coordinates. ``'auto'``: the largest ``t <= 16`` leaving at least
        50 users per coordinate (``t^p - 1 <= n / 50``); it needs the
        number of users, which ``fit`` knows and :meth:`make_randomizer`
        takes as ``n_users``.
    bounds : tuple (low, high) or array of shape (2, n_features), default=(-1.0, 1.0)
        The public box; users clip their records to it.
    mechanism : {'piecewise', 'duchi', 'laplace', 'full_vector'}, \
default='piecewise'
        LDP-AVG: one public-randomly assigned coordinate per user with the
        full epsilon through the named scalar mechanism, or the whole
        vector with ``Lap(2 d / epsilon)`` per entry (``'full_vector'``, the
        printed protocol).
    density_floor : float, default=1e-3
        :meth:`score_samples` returns ``log(max(density, density_floor /
        volume))`` (``volume`` of the box): the private estimate can be zero
        or negative where there is little mass.
    random_state : int, RandomState instance or None, default=None
        Randomness of the simulated users (and of the public partition).

    Attributes
    ----------
    degree_ : int
        The ``t`` used.
    moments_ : ndarray of shape (`degree_`,) * n_features
        Private estimate of ``(1/n) sum_i prod_j T_{v_j}(u_ij)``
        (``moments_[0, ..., 0] = 1``).
    n_samples_seen_ : int
        Number of users (reports).
    n_coordinates_ : int
    users_per_coordinate_ : float
    box_ : ndarray of shape (2, n_features)
    privacy_epsilon_, privacy_delta_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    sklearn.neighbors.KernelDensity : the non-private estimator.
    KWayMarginalsLDP : the k-way marginal counterpart (Algorithm 6).

    Notes
    -----
    Wang, Gaboardi, Smith and Xu, *Empirical Risk Minimization in the
    Non-interactive Local Model of Differential Privacy*, JMLR 21 (2020),
    section 6.2 (Theorem 43 takes ``t = O((sqrt(n) eps)^(2 / (5p + 2h)))``
    for ``(h, T)``-smooth queries). The estimate is the kernel density of
    the clipped data restricted to the box (mass outside the box is not
    seen); it is unbiased for the degree-``t`` Chebyshev truncation of that
    density. Usable for a handful of features: the vector has ``t^p - 1``
    entries and each gets about ``n / t^p`` users.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import KernelDensityLDP
    >>> rng = np.random.RandomState(0)
    >>> X = np.clip(rng.normal(0, 0.3, size=(50_000, 1)), -1, 1)
    >>> kde = KernelDensityLDP(epsilon=2.0, bandwidth=0.2, random_state=0).fit(X)
    >>> np.exp(kde.score_samples([[0.0], [0.6]])).round(2)  # scikit-learn: 1.11, 0.27
    array([1.12, 0.27])
    >>> kde.set_params(bandwidth=0.4).score_samples([[0.0]]).round(2)  # same reports
    array([-0.21])
    """

    _parameter_constraints = {
        **LDPEstimatorMixin._ldp_parameter_constraints,
        "bandwidth": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"scott", "silverman"}),
        ],
        "degree": [StrOptions({"auto"}), Interval(Integral, 2, None, closed="left")],
        "bounds": ["array-like"],
        "mechanism": [StrOptions(set(VECTOR_MECHANISMS))],
        "density_floor": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        bandwidth=1.0,
        degree="auto",
        bounds=(-1.0, 1.0),
        mechanism="piecewise",
        density_floor=1e-3,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.bandwidth = bandwidth
        self.degree = degree
        self.bounds = bounds
        self.mechanism = mechanism
        self.density_floor = density_floor
        self.random_state = random_state

    def make_randomizer(
        self, n_features, n_users=None, *, degree=None, public_seed=None
    ):
        """The users' randomizer (public configuration).

        Parameters
        ----------
        n_features : int
        n_users : int or None, default=None
            Number of users; needed by ``degree='auto'``.
        degree : int or None, default=None
            Override of ``degree`` (the server uses the one in the reports).
        public_seed : int or None, default=None
            Seed of the public partition; drawn in ``randomize`` when None.

        Returns
        -------
        randomizer : TrigonometricRandomizer
        """
        self._validate_params()
        lower, upper = _box(self.bounds, int(n_features))
        if degree is None:
            degree = self.degree
            if degree == "auto":
                if n_users is None:
                    raise ValueError(
                        "degree='auto' chooses t from the number of users: pass "
                        "make_randomizer(n_features, n_users=...), or set an integer "
                        "degree."
                    )
                degree = auto_degree(int(n_users), int(n_features))
        return TrigonometricRandomizer(
            n_features,
            epsilon=self.epsilon,
            degree=degree,
            lower=lower,
            upper=upper,
            mechanism=self.mechanism,
            public_seed=public_seed,
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Simulate the users' randomizers on ``X``, then fit the server.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            One record per user.
        y : Ignored

        Returns
        -------
        self : object
        """
        X = validate_data(self, X, dtype=np.float64)
        rng = check_noise_random_state(self.random_state)
        randomizer = self.make_randomizer(X.shape[1], n_users=X.shape[0])
        reports = randomizer.randomize(X, random_state=rng)
        return self._fit_from_reports(reports, rng)

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
        n_users, d = len(reports), randomizer.n_coordinates
        if n_users < d and randomizer.mechanism != "full_vector":
            warnings.warn(
                f"The users' vector has {d} coordinates (degree^n_features - 1) but "
                f"there are only {n_users} users, so {d - n_users} coordinates have no "
                "report. Lower the degree or collect more users.",
                UserWarning,
                stacklevel=3,
            )
        self.moments_, _ = randomizer.moments(reports)
        self.n_samples_seen_ = n_users
        self.degree_ = randomizer.degree
        self.n_coordinates_ = d
        self.users_per_coordinate_ = (
            float(n_users) if randomizer.mechanism == "full_vector" else n_users / d
        )
        self.box_ = np.stack([randomizer.box_lower, randomizer.box_upper])
        return self

    def _bandwidth(self):
        n, p = self.n_samples_seen_, self.n_features_in_
        if self.bandwidth == "scott":
            return n ** (-1.0 / (p + 4))
        if self.bandwidth == "silverman":
            return (n * (p + 2) / 4.0) ** (-1.0 / (p + 4))
        return float(self.bandwidth)

    def density(self, X):
        """Private estimate of the Gaussian kernel density at ``X`` (may be <= 0).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        density : ndarray of shape (n_queries,)
        """
        check_is_fitted(self)
        self._validate_params()
        X = validate_data(self, X, dtype=np.float64, reset=False)
        bandwidth = self._bandwidth()
        t, p = self.moments_.shape[0], self.moments_.ndim
        block = max(1, _QUERY_BLOCK // t ** max(p - 1, 1))
        out = np.empty(X.shape[0])
        for start in range(0, X.shape[0], block):
            rows = slice(start, start + block)
            factors = [
                gaussian_kernel_coefficients(
                    X[rows, j], bandwidth, t, self.box_[0, j], self.box_[1, j]
                )
                for j in range(p)
            ]
            out[rows] = contract_moments(self.moments_, factors)
        return out

    def score_samples(self, X):
        """Log of the private density estimate at ``X`` (floored, see ``density_floor``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_density : ndarray of shape (n_samples,)
        """
        density = self.density(X)
        floor = self.density_floor / float(np.prod(self.box_[1] - self.box_[0]))
        return np.log(np.maximum(density, floor))

    def score(self, X, y=None):
        """Total log-likelihood of ``X`` under the private density estimate.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        logprob : float
        """
        return float(np.sum(self.score_samples(X)))

    def query(self, func, *, n_nodes=None):
        """Private estimate of the linear query ``(1/n) sum_i func(x_i)``.

        ``func`` is expanded in the tensor Chebyshev basis of degree ``t``
        on the public box (:func:`~sklearn_ldp.aggregation.trigonometric_coefficients`)
        and contracted with the private moments. Accurate for smooth
        ``func``; the error is the truncation error of its expansion plus
        the noise. No further privacy cost.

        Parameters
        ----------
        func : callable
            ``func(points) -> values``, points of shape ``(m, n_features)``
            in the box, values of shape ``(m,)``.
        n_nodes : int or None, default=None
            Interpolation nodes per axis (``max(2 t, 16)``).

        Returns
        -------
        value : float
        """
        check_is_fitted(self)
        if not callable(func):
            raise TypeError(f"func must be callable, got {type(func).__name__}.")
        coef = trigonometric_coefficients(
            func,
            self.moments_.shape[0],
            self.moments_.ndim,
            n_nodes=n_nodes,
            lower=self.box_[0],
            upper=self.box_[1],
        )
        return float(np.sum(coef * self.moments_))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


__all__ = ["KernelDensityLDP", "TrigonometricRandomizer"]
