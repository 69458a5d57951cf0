"""LocalBernsteinRegressor: non-interactive LDP ERM in low dimension.

Seed 001 (Wang, Gaboardi, Smith, Xu, JMLR 2020), Algorithms 1-3; seed 000
(NeurIPS 2018). ALGORITHMS.md section 1.

Users release their normalized loss at grid points of a public coefficient
box (:class:`~sklearn_ldp.randomizers.BernsteinLossRandomizer`): every
point with ``'full_grid'`` (Algorithm 2), or the one point of their group of
a public balanced partition through ``'laplace'``, ``'duchi'``,
``'piecewise'``, ``'bassily_smith'`` (Algorithm 3's 1-bit protocol,
:class:`~sklearn_ldp.randomizers.BassilySmithMechanism`) or ``'genprot'``
(Algorithm 8, :class:`~sklearn_ldp.randomizers.GenProtMechanism`).

The server averages the unbiased estimates per grid point
(:func:`~sklearn_ldp.aggregation.estimate_grid_risk`), forms the iterated
Bernstein polynomial of order ``h``
(:func:`~sklearn_ldp.aggregation.bernstein_coefficients`) and minimizes it
over the box (:func:`~sklearn_ldp.optim.minimize_bernstein`). This module
chooses the public configuration (``degree='auto'``) and dispatches.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._base import AnnouncedDegreeMixin, LDPRegressorMixin, ldp_tags
from ._linear import LinearRegressorOutputMixin
from .aggregation import (
    bernstein_coefficients,
    estimate_grid_risk,
    evaluate_bernstein,
    lebesgue_constant,
)
from .optim import minimize_bernstein
from .randomizers import BernsteinLossRandomizer
from .randomizers._bernstein import (
    MAX_GRID_POINTS,
    MECHANISMS,
    RESIDUAL_LOSSES,
    builtin_loss_bound,
    coefficient_box,
    residual_loss,
    scalar_mechanism,
)
from .utils import check_finite_array, warn_few_users

#: Largest degree ``degree='auto'`` considers.
_AUTO_MAX_DEGREE = 64


def grid_point_noise(mechanism, epsilon, degree, n_coef, n_users):
    """Standard deviation of the server's estimate of one grid value.

    Partition scheme: about ``n / (k + 1)^q`` users share a grid point, each
    with the mechanism's variance (at the mid value 1/2). Full grid: all ``n``
    users, each with ``Lap((k + 1)^q / epsilon)``.
    """
    n_grid = (degree + 1) ** n_coef
    if mechanism == "full_grid":
        # The continuous Laplace variance 2 (G / epsilon)^2 (the lattice one is
        # within 0.1% of it): no sampler table is built for every candidate.
        variance = 2.0 * (n_grid / epsilon) ** 2
    else:
        variance = float(scalar_mechanism(mechanism, epsilon, n_grid).variance(0.5))
    users = n_users if mechanism == "full_grid" else n_users / n_grid
    return np.sqrt(variance / max(users, 1.0))


def approximation_constant(
    curvature, lower, upper, n_features, *, data_norm, loss_bound
):
    """Constant ``C`` of the approximation error ``C k^-h`` used by ``degree='auto'``.

    For a quadratic ``f`` on ``[0, 1]`` the iterated Bernstein operator errs
    by exactly ``(I - B_k)^h f = f'' (t^2 - t) / (2 k^h)``, at most
    ``f'' / (8 k^h)``. A normalized residual loss whose second derivative
    is at most ``curvature`` (2 for the squared loss, 1 for Huber's) has,
    along coefficient ``j`` mapped to ``[0, 1]``, ``f'' <= curvature
    (upper_j - lower_j)^2 s_j^2 / loss_bound`` with ``s_j = data_norm`` for
    a slope and 1 for the intercept. Summing over the axes (Lemma 10's
    ``p T`` factor) gives ``C``. Without a curvature (``None``: the absolute
    loss or a callable) the unit constant ``q / 8`` is used.
    """
    widths = np.asarray(upper, dtype=float) - np.asarray(lower, dtype=float)
    if curvature is None:
        return widths.size / 8.0
    scale = np.ones_like(widths)
    scale[:n_features] = data_norm
    second = curvature * (widths * scale) ** 2 / loss_bound
    return float(second.sum() / 8.0)


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


def _minimize_grid_risk(grid_risk, order, lower, upper):
    """Bernstein coefficients of the grid risk and the minimizing coefficients.

    The iterated Bernstein polynomial of order ``order`` of the grid values
    (a ``(k + 1,)^q`` tensor) is minimized over ``[0, 1]^q``; the minimizer
    is mapped back to the box ``[lower, upper]``.
    """
    bernstein_coef = bernstein_coefficients(grid_risk, order)
    t_best, _ = minimize_bernstein(bernstein_coef)
    return bernstein_coef, lower + (upper - lower) * t_best


class LocalBernsteinRegressor(
    AnnouncedDegreeMixin,
    LDPRegressorMixin,
    LinearRegressorOutputMixin,
    RegressorMixin,
    BaseEstimator,
):
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
        Randomness of the simulated users in ``fit`` (and, from a separate
        stream, of their public groups).

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
    n_reports_rejected_ : int
        Reports the server's validation dropped (not finite, off the lattice
        or outside what an honest client can send); 0 after ``fit``.
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

    _auto_degree_chooses = "the grid"

    _parameter_constraints = {
        **LDPRegressorMixin._ldp_parameter_constraints,
        "degree": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "iterated_order": [Interval(Integral, 1, 10, closed="both")],
        "mechanism": [StrOptions(set(MECHANISMS))],
        "loss": [StrOptions(set(RESIDUAL_LOSSES)), callable],
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

    def _build_randomizer(self, n_features, *, degree):
        """The users' ``BernsteinLossRandomizer`` with an announced degree.

        Each user draws its grid point from its own public stream, and the
        reports carry it.
        """
        self._validate_params()
        n_coef = int(n_features) + int(self.fit_intercept)
        lower, upper = coefficient_box(self.coef_bounds, n_coef)
        return BernsteinLossRandomizer(
            n_features,
            epsilon=self.epsilon,
            degree=self.degree if degree is None else degree,
            mechanism=self.mechanism,
            loss=self.loss,
            coef_lower=lower,
            coef_upper=upper,
            fit_intercept=self.fit_intercept,
            data_norm=self.data_norm,
            y_bound=self.y_bound,
            huber_delta=self.huber_delta,
            loss_bound=self.loss_bound,
        )

    def _auto_degree(self, n_features, n_users):
        self._validate_params()
        n_coef = n_features + int(self.fit_intercept)
        lower, upper = coefficient_box(self.coef_bounds, n_coef)
        if isinstance(self.loss, str):
            loss_bound = self.loss_bound
            if loss_bound is None:
                loss_bound = builtin_loss_bound(
                    self.loss,
                    lower,
                    upper,
                    n_features,
                    data_norm=self.data_norm,
                    y_bound=self.y_bound,
                    huber_delta=self.huber_delta,
                )
            approximation = approximation_constant(
                residual_loss(self.loss, self.huber_delta).curvature,
                lower,
                upper,
                n_features,
                data_norm=self.data_norm,
                loss_bound=loss_bound,
            )
        else:
            approximation = None
        return auto_degree(
            n_users,
            n_coef,
            self.iterated_order,
            self.mechanism,
            self.epsilon,
            approximation,
        )

    def _fit_server(self, reports, rng):
        randomizer = self._expected_randomizer(reports)
        warn_few_users(
            len(reports),
            randomizer.n_groups,
            cells=(
                "grid points ((degree + 1)^(n_features + fit_intercept) = "
                f"{randomizer.degree + 1}^{randomizer.n_coef})"
            ),
            advice=(
                "Lower degree, use fewer features or fit_intercept=False, or collect "
                "more users."
            ),
        )
        values, counts = estimate_grid_risk(randomizer, reports)
        shape = (randomizer.degree + 1,) * randomizer.n_coef
        self.grid_risk_ = values.reshape(shape)
        self.bernstein_coef_, coef = _minimize_grid_risk(
            self.grid_risk_,
            self.iterated_order,
            randomizer.coef_lower,
            randomizer.coef_upper,
        )
        n_features = randomizer.n_features
        self.coef_ = coef[:n_features]
        self.intercept_ = float(coef[n_features]) if self.fit_intercept else 0.0
        self.degree_ = randomizer.degree
        self.n_grid_points_ = randomizer.n_grid
        self.users_per_grid_point_ = float(np.mean(counts))
        self.communication_bits_ = randomizer.communication_bits
        self.loss_bound_ = randomizer.loss_bound
        self.coef_bounds_ = np.stack([randomizer.coef_lower, randomizer.coef_upper])
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

    def __sklearn_tags__(self):
        return ldp_tags(super().__sklearn_tags__(), poor_score=True)


__all__ = [
    "LocalBernsteinRegressor",
    "approximation_constant",
    "auto_degree",
]
