"""KernelDensityLDP: kernel density and smooth queries under non-interactive LDP.

Seed 001 (Wang, Gaboardi, Smith, Xu, JMLR 2020), section 6.2, Algorithm 7;
ALGORITHMS.md section 6. Each user releases the Chebyshev basis of its
record through LDP-AVG
(:class:`~sklearn_ldp.randomizers.TrigonometricRandomizer`). The server
holds the private Chebyshev moments of the empirical distribution
(:func:`~sklearn_ldp.aggregation.estimate_vector_mean`); any smooth linear
query ``(1/n) sum_i f(x_i)`` is ``sum_v c_v m_v`` with ``f``'s coefficients
``c_v`` (:func:`~sklearn_ldp.aggregation.trigonometric_coefficients`). The
Gaussian kernel density at a point is such a query, for every bandwidth
(:func:`~sklearn_ldp.aggregation.kernel_density`): the released vector does
not depend on the bandwidth, so any number of bandwidths (or other queries)
cost no further privacy.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import AnnouncedDegreeMixin, LDPUnsupervisedMixin, announced_degree
from .aggregation import (
    VectorMeanSums,
    kernel_density,
    moment_tensor,
    trigonometric_coefficients,
)
from .randomizers import TrigonometricRandomizer
from .randomizers._ldp_avg import VECTOR_MECHANISMS
from .randomizers._trigonometric import check_box
from .utils import warn_few_users

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


def _bandwidth(bandwidth, n_users, n_features):
    """The kernel bandwidth: a number, or scikit-learn's ``'scott'`` / ``'silverman'`` rule."""
    if bandwidth == "scott":
        return n_users ** (-1.0 / (n_features + 4))
    if bandwidth == "silverman":
        return (n_users * (n_features + 2) / 4.0) ** (-1.0 / (n_features + 4))
    return float(bandwidth)


class KernelDensityLDP(AnnouncedDegreeMixin, LDPUnsupervisedMixin, BaseEstimator):
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

    Streaming: the server is one pass over the reports (per Chebyshev
    coordinate, the number of reports and the sum of their debiased
    values); ``fit_reports`` accepts a report stream
    (:func:`sklearn_ldp.read_reports`) with memory bounded by the chunk
    size, and ``partial_fit`` adds batches (with ``degree='auto'`` the first
    batch's size fixes the degree).

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
    n_reports_rejected_ : int
        Reports the server's validation dropped (not finite, off the lattice
        or outside what an honest client can send); 0 after ``fit``.
    clipped_fraction_ : float
        Share of the records the declared bounds clipped on the simulated
        devices (``fit`` only; a
        :class:`~sklearn_ldp.exceptions.ClippingWarning` above 1%).
    clipping_ : dict
        Per declared bound: its value, the share it clipped and the 99th
        percentile of what it bounds (``fit`` only; see
        :func:`~sklearn_ldp.utils.clipping_diagnostics`).
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
    array([1.11, 0.3 ])
    >>> kde.set_params(bandwidth=0.4).score_samples([[0.0]]).round(2)  # same reports
    array([-0.22])
    """

    _auto_degree_chooses = "t"

    _parameter_constraints = {
        **LDPUnsupervisedMixin._ldp_parameter_constraints,
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

    def _auto_degree(self, n_features, n_users):
        return auto_degree(n_users, n_features)

    def _declared_bounds(self):
        return {"box": np.stack(check_box(self.bounds, self.n_features_in_))}

    def _build_randomizer(self, n_features, *, degree):
        """The users' ``TrigonometricRandomizer`` with an announced degree.

        Each user draws its coordinate from its own public stream, and the
        reports carry it.
        """
        self._validate_params()
        lower, upper = check_box(self.bounds, int(n_features))
        return TrigonometricRandomizer(
            n_features,
            epsilon=self.epsilon,
            degree=self.degree if degree is None else degree,
            lower=lower,
            upper=upper,
            mechanism=self.mechanism,
        )

    def _server_aggregate(self, config):
        """Per coordinate of the Chebyshev vector: reports and the sum of their estimates."""
        randomizer = self._build_randomizer(
            config.get("n_features"), degree=announced_degree(self, config)
        )
        return VectorMeanSums(randomizer)

    def _fit_server_aggregate(self, aggregate, config, rng):
        randomizer = aggregate.randomizer
        n_users = aggregate.n_reports
        warn_few_users(
            n_users,
            randomizer.n_groups,
            cells="coordinates in the users' vector (degree^n_features - 1)",
            advice="Lower the degree or collect more users.",
        )
        mean = aggregate.mean()
        self.moments_ = moment_tensor(mean, randomizer.degree, randomizer.n_features)
        self.n_samples_seen_ = n_users
        self.degree_ = randomizer.degree
        self.n_coordinates_ = randomizer.n_coordinates
        self.users_per_coordinate_ = n_users / randomizer.n_groups
        self.box_ = np.stack([randomizer.box_lower, randomizer.box_upper])
        return self

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
        bandwidth = _bandwidth(
            self.bandwidth, self.n_samples_seen_, self.n_features_in_
        )
        return kernel_density(self.moments_, self.box_[0], self.box_[1], X, bandwidth)

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


__all__ = ["KernelDensityLDP", "auto_degree"]
