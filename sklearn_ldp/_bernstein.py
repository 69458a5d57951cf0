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

from ._base import (
    AnnouncedDegreeMixin,
    LDPRegressorMixin,
    announced_degree,
    ldp_tags,
)
from ._linear import LinearRegressorOutputMixin
from .aggregation import (
    BernsteinReportSums,
    bernstein_coefficients,
    bernstein_weights,
    evaluate_bernstein,
    group_mean_variance,
    lebesgue_constant,
    moment_quadratic,
    moment_risk_weights,
)
from .optim import minimize_bernstein, minimize_box_quadratic
from .randomizers import BernsteinLossRandomizer
from .randomizers._bernstein import (
    MAX_GRID_POINTS,
    MECHANISMS,
    PROTOCOLS,
    RESIDUAL_LOSSES,
    builtin_loss_bound,
    coefficient_box,
    moment_ranges,
    residual_loss,
    scalar_mechanism,
)
from .utils import check_finite_array, warn_few_users

#: Largest degree ``degree='auto'`` considers.
_AUTO_MAX_DEGREE = 64
#: The scalar mechanisms ``mechanism='auto'`` chooses from (the two best of
#: ``docs/benchmarks/bench_bernstein.md``; the others are dominated).
AUTO_MECHANISMS = ("piecewise", "duchi")
#: Folds of the server's report-only model selection.
N_FOLDS = 5
#: Largest variance of one user's released value on ``[0, 1]`` before the
#: mechanism's noise (Popoviciu): a group mean over ``n / G`` users also
#: carries the users' own spread, which no epsilon removes.
USER_SPREAD_VARIANCE = 0.25
#: Smallest epsilon a scalar mechanism is built for here (others refuse by
#: themselves with the range they support): the piecewise mechanism's lattice
#: breaks down near 1.5e-9, Bassily-Smith's public window needs a sampler
#: table of gigabytes below 4.2e-6 and over a second to build below 1e-4.
MECHANISM_MIN_EPSILON = {"piecewise": 1e-8, "bassily_smith": 1e-4}
#: Epsilon at which a mechanism's 64-bit implementation saturates (duchi
#: provides 36.0, piecewise 56.1, laplace 20.4 and starts its own design
#: search at 64): a larger request is served at it, and the reports state
#: the smaller epsilon provided.
MECHANISM_MAX_EPSILON = {
    "piecewise": 64.0,
    "duchi": 64.0,
    "laplace": 64.0,
    "genprot_paper": 2.5,
}
#: ``beta`` of the paper configuration of GenProt: with ``T = 1 + ceil(log2(n /
#: beta))`` candidates no user falls back to the empty set with probability
#: at least ``1 - beta``.
GENPROT_PAPER_BETA = 0.05
#: Calibrations of the estimator.
CALIBRATIONS = ("improved", "paper")


def mechanism_epsilon(mechanism, epsilon, calibration="improved"):
    """The epsilon users' scalar mechanism is asked for, or a ValueError.

    Below :data:`MECHANISM_MIN_EPSILON` the request is refused, naming the
    usable range; above :data:`MECHANISM_MAX_EPSILON` (where the
    implementation saturates, or, for GenProt's paper configuration, beyond
    Theorem 46's ``eps0 = epsilon / 10 <= 1/4``) it is served at the cap, a
    smaller and still valid epsilon that ``privacy_epsilon_`` reports. The
    Laplace, full-grid and GenProt mechanisms refuse too small an epsilon
    themselves, with their range.

    Examples
    --------
    >>> from sklearn_ldp._bernstein import mechanism_epsilon
    >>> mechanism_epsilon("duchi", 1e9), mechanism_epsilon("genprot", 5.0, "paper")
    (64.0, 2.5)
    """
    key = (
        "genprot_paper"
        if (mechanism, calibration) == ("genprot", "paper")
        else mechanism
    )
    smallest = MECHANISM_MIN_EPSILON.get(mechanism, 0.0)
    if epsilon < smallest:
        raise ValueError(
            f"epsilon = {epsilon!r} is below what mechanism={mechanism!r} supports: "
            f"the usable range is epsilon >= {smallest:g} (at smaller epsilons the "
            "released values are pure noise anyway); use mechanism='duchi', which "
            "runs at every epsilon."
        )
    return float(min(epsilon, MECHANISM_MAX_EPSILON.get(key, np.inf)))


def paper_genprot_candidates(n_users, beta=GENPROT_PAPER_BETA):
    """``T = 1 + ceil(log2(n / beta))``: seed 001 Theorem 46's ``T = O(log(n / beta))``.

    A user's index falls back to the empty set (its report is a draw of
    ``A(bot)``, carrying nothing) with probability ``2^(1 - T)``; the union
    bound over ``n`` users makes that at most ``beta`` for this ``T``, the
    constant the ``O(.)`` hides. The message has ``ceil(log2 T) = O(log log
    n)`` bits.

    Examples
    --------
    >>> from sklearn_ldp._bernstein import paper_genprot_candidates
    >>> paper_genprot_candidates(100_000)
    22
    """
    return int(1 + np.ceil(np.log2(max(int(n_users), 1) / beta)))


def genprot_options(calibration, n_users):
    """Keyword arguments of ``GenProtMechanism`` for the estimator's calibration."""
    if calibration != "paper":
        return {}
    if n_users is None:
        raise ValueError(
            "calibration='paper' with mechanism='genprot' takes T = O(log(n / beta)) "
            "public strings per user from the number of users: pass "
            "make_randomizer(n_features, n_users=...)."
        )
    return {"n_candidates": paper_genprot_candidates(n_users), "calibration": "paper"}


def grid_point_noise(mechanism, epsilon, degree, n_coef, n_users, genprot_options=None):
    """Standard deviation of the server's estimate of one grid value.

    Partition scheme: about ``n / (k + 1)^q`` users share a grid point, each
    with the mechanism's variance (at the mid value 1/2) plus the users' own
    spread around the population's value (at most
    :data:`USER_SPREAD_VARIANCE`, whatever epsilon: without it a large
    epsilon would favour ever finer grids of ever fewer users per point).
    Full grid: all ``n`` users, each with ``Lap((k + 1)^q / epsilon)`` (every
    user reports every point: no spread from a partition).
    """
    n_grid = (degree + 1) ** n_coef
    if mechanism == "full_grid":
        # The continuous Laplace variance 2 (G / epsilon)^2 (the lattice one is
        # within 0.1% of it): no sampler table is built for every candidate.
        variance = 2.0 * (n_grid / epsilon) ** 2
    else:
        release = scalar_mechanism(mechanism, epsilon, n_grid, genprot_options)
        variance = float(release.variance(0.5)) + USER_SPREAD_VARIANCE
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


def grid_error_bounds(
    n_users,
    n_coef,
    order,
    mechanism,
    epsilon,
    approximation=None,
    genprot_options=None,
):
    """The uniform error bound of seed 001's Theorem 17 for every admissible degree.

    The proof of Theorem 17 bounds the uniform error of the private
    polynomial by an approximation term (Lemma 10, ``C k^-h``, ``C`` from
    :func:`approximation_constant`; ``q / 8`` when None) plus the Lebesgue
    constant of the iterated operator (``Lambda_h^q``, computed, at most
    ``(2^h - 1)^q``) times the largest noise of the ``G = (k + 1)^q`` grid
    values (``sqrt(2 ln G)`` standard deviations of
    :func:`grid_point_noise`, which grows with ``k`` as users are spread
    over more points). Degrees run over ``1..64``, never more grid points
    than users unless ``k = 1`` already has. In normalized loss units.

    Returns
    -------
    degrees : ndarray of int
    bounds : ndarray of float
    """
    if approximation is None:
        approximation = n_coef / 8.0
    degrees, bounds = [], []
    for degree in range(1, _AUTO_MAX_DEGREE + 1):
        n_grid = (degree + 1) ** n_coef
        if n_grid > MAX_GRID_POINTS or (degree > 1 and n_grid > n_users):
            break
        noise = grid_point_noise(
            mechanism, epsilon, degree, n_coef, n_users, genprot_options
        )
        noise *= np.sqrt(2.0 * np.log(n_grid))
        lebesgue = lebesgue_constant(degree, order, n_points=201) ** n_coef
        degrees.append(degree)
        bounds.append(approximation * degree ** (-order) + lebesgue * noise)
    return np.array(degrees, dtype=int), np.array(bounds)


def auto_degree(n_users, n_coef, order, mechanism, epsilon, approximation=None):
    """``degree='auto'``: the degree minimizing :func:`grid_error_bounds`."""
    degrees, bounds = grid_error_bounds(
        n_users, n_coef, order, mechanism, epsilon, approximation
    )
    return int(degrees[np.argmin(bounds)])


def moment_error_bound(
    n_users,
    n_features,
    fit_intercept,
    mechanism,
    epsilon,
    lower,
    upper,
    *,
    data_norm,
    y_bound,
):
    """Uniform error bound of the squared risk estimated from released moments.

    With ``protocol='moments'`` the risk at ``theta`` is ``a(theta) . m``
    (:func:`~sklearn_ldp.aggregation.moment_risk_weights`), exact: no
    approximation term. Each of the ``M`` moments is the mean of about
    ``n / M`` releases of a value of public width ``w_g``, so its standard
    deviation is ``s_g = w_g sqrt(V M / n)`` with ``V`` the mechanism's
    variance on ``[0, 1]`` (at 1/2, as :func:`grid_point_noise`). Over the
    box ``|a_g(theta)| <= c_g`` (products of the largest coefficient
    magnitudes), so ``sup_theta |error| <= sqrt(2 ln (2 M)) sum_g c_g s_g``
    with high probability, the analogue of the grid's ``Lambda sqrt(2 ln G)
    sigma``. In loss units.
    """
    low, high = moment_ranges(
        n_features, fit_intercept, data_norm=data_norm, y_bound=y_bound
    )
    n_moments = low.size
    corner = np.maximum(np.abs(lower), np.abs(upper))
    weights, offset = moment_risk_weights(corner[None, :], n_features, fit_intercept)
    variance = float(scalar_mechanism(mechanism, epsilon, 1).variance(0.5))
    variance += USER_SPREAD_VARIANCE
    spread = (high - low) * np.sqrt(variance * n_moments / max(n_users, 1.0))
    return float(np.sqrt(2.0 * np.log(2.0 * n_moments)) * np.abs(weights[0]) @ spread)


def predicted_errors(
    n_users,
    n_features,
    epsilon,
    *,
    loss="squared",
    huber_delta=1.0,
    loss_bound=None,
    coef_bounds=(-1.0, 1.0),
    fit_intercept=True,
    data_norm=1.0,
    y_bound=1.0,
    iterated_order=3,
    degree="auto",
    mechanisms=AUTO_MECHANISMS,
    calibration="improved",
):
    """Predicted uniform error of every public configuration ``mechanism='auto'`` weighs.

    A function of public quantities only (the population size, the number of
    features, epsilon, the bounds, the loss): nothing here reads a report.
    For each scalar mechanism: the grid protocol at its best degree (or the
    given one) with :func:`grid_error_bounds` (approximation bias plus
    noise), and, for the squared loss, the moments protocol with
    :func:`moment_error_bound` (noise only: the risk is a linear function of
    the moments). Both bound ``sup_theta |estimated risk - risk|`` over the
    box, in loss units, so the excess risk of the minimizer is at most twice
    the bound. Each mechanism runs at :func:`mechanism_epsilon`; one that
    cannot run at epsilon is left out (an error if it is the only one).

    Returns
    -------
    errors : dict
        ``(protocol, mechanism) -> (degree, bound)``.

    Examples
    --------
    >>> from sklearn_ldp._bernstein import predicted_errors
    >>> errors = predicted_errors(100_000, 2, 1.0)
    >>> min(errors, key=lambda key: errors[key][1])
    ('moments', 'piecewise')
    """
    n_coef = int(n_features) + int(fit_intercept)
    lower, upper = coefficient_box(coef_bounds, n_coef)
    builtin = isinstance(loss, str)
    if builtin:
        if loss_bound is None:
            loss_bound = builtin_loss_bound(
                loss,
                lower,
                upper,
                n_features,
                data_norm=data_norm,
                y_bound=y_bound,
                huber_delta=huber_delta,
            )
        approximation = approximation_constant(
            residual_loss(loss, huber_delta).curvature,
            lower,
            upper,
            n_features,
            data_norm=data_norm,
            loss_bound=loss_bound,
        )
    else:
        # A callable loss states its bound (the randomizer refuses it without).
        approximation, loss_bound = None, 1.0 if loss_bound is None else loss_bound
    errors = {}
    for mechanism in mechanisms:
        try:
            released = mechanism_epsilon(mechanism, epsilon, calibration)
        except ValueError:
            if len(mechanisms) == 1:
                raise
            continue
        options = (
            genprot_options(calibration, n_users) if mechanism == "genprot" else None
        )
        degrees, bounds = grid_error_bounds(
            n_users,
            n_coef,
            iterated_order,
            mechanism,
            released,
            approximation,
            options,
        )
        if degree == "auto":
            at = int(np.argmin(bounds))
        else:
            at = int(np.searchsorted(degrees, degree))
            if at >= degrees.size or degrees[at] != degree:
                degrees = np.append(degrees, degree)
                bounds = np.append(bounds, np.inf)
                at = degrees.size - 1
        errors["grid", mechanism] = (int(degrees[at]), float(bounds[at]) * loss_bound)
        if builtin and loss == "squared" and mechanism != "full_grid":
            errors["moments", mechanism] = (
                2,
                moment_error_bound(
                    n_users,
                    n_features,
                    fit_intercept,
                    mechanism,
                    released,
                    lower,
                    upper,
                    data_norm=data_norm,
                    y_bound=y_bound,
                ),
            )
    return errors


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

    The default (``mechanism='auto'``) fixes the public configuration users
    are told before they report by the smallest predicted error
    (:func:`predicted_errors`, public quantities only): the grid at its best
    degree, or, for the squared loss, the moments protocol (each user
    releases one degree-2 monomial of ``(x, 1, y)``, which makes the risk
    exact instead of approximated, over a few groups instead of ``(k +
    1)^q``). The reports record the protocol, and ``fit_reports`` follows it.
    The server then picks, from the reports alone, between the minimizer and
    the constant model (intercept only: for the squared loss, the noisy mean
    of ``y``) by ``N_FOLDS = 5``-fold held-out estimated risk with the
    one-standard-error rule toward the constant model
    (``model_selection='cv'``), so a noisy minimizer at a box corner is not
    returned when the reports cannot show it beats the mean.

    Privacy: each sample ``(x_i, y_i)`` is epsilon-LDP (pure, ``delta = 0``).

    Streaming: the server is one pass over the reports, for every protocol
    and mechanism (per fold and grid point, or released monomial, the number
    of reports and the sum and sum of squares of their unbiased estimates;
    the candidates and their held-out risks read only these);
    ``fit_reports`` accepts a report stream
    (:func:`sklearn_ldp.read_reports`) with memory bounded by the chunk
    size, and ``partial_fit`` adds batches (with ``degree`` or ``mechanism``
    ``'auto'`` the first batch's size fixes the public configuration).

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget.
    degree : int or 'auto', default='auto'
        Grid resolution ``k``. ``'auto'`` minimizes the error bound of seed
        001 (approximation ``q k^-h`` plus the noise of a grid value, which
        includes the users' own spread within a group, so a large epsilon
        does not push ``k`` to ever finer grids of ever fewer users per
        point), see :func:`auto_degree`; it needs the number of users, which
        ``fit`` knows and :meth:`make_randomizer` takes as ``n_users``.
    iterated_order : int, default=3
        Order ``h`` of the iterated Bernstein operator; the approximation
        error of a smooth risk falls like ``k^-h``. On the grid protocol
        ``h = 3`` is ahead of ``h = 2`` and well ahead of ``h = 1`` (the
        plain Bernstein polynomial of Algorithm 2) in most cells of
        ``docs/benchmarks/bench_bernstein_order.md``; unused by moments.
    mechanism : {'auto', 'piecewise', 'duchi', 'laplace', 'bassily_smith', \
'genprot', 'full_grid'}, default='auto'
        How a user releases its loss. ``'auto'`` chooses the protocol
        (grid or, squared loss only, moments), the scalar mechanism
        (``'piecewise'`` or ``'duchi'``) and, with ``degree='auto'``, the
        degree, minimizing :func:`predicted_errors`; it needs ``n_users``.
        A named mechanism always runs the grid protocol of seed 001 as
        before. ``'piecewise'`` and ``'duchi'`` (one
        bit) are the two best on the grid; ``'auto'`` picks the one of
        smaller variance at the given epsilon.
        ``'full_grid'`` is seed 001's Algorithm 2 (every user reports every grid point with
        ``epsilon / (k + 1)^q``); the others use the partition scheme (one
        value per user, full epsilon). ``'bassily_smith'`` is Algorithm 3's
        1-bit protocol, calibrated to be truly epsilon-LDP for every epsilon
        (its utility saturates beyond epsilon ~ 1, since its internal budget
        ``ln(2 - e^-epsilon)`` stays below ``ln 2``). ``'genprot'`` is
        Algorithm 8: each user sends a ``ceil(log2 32) = 5``-bit index into
        32 public Laplace strings (:class:`~sklearn_ldp.randomizers.GenProtMechanism`,
        tight calibration, base budget about ``epsilon / 2``; it provides at
        most ``2 ln 2 + tail`` = 2.77, so a larger request is served at
        2.77, which ``privacy_epsilon_`` reports), or, with
        ``calibration='paper'``, as printed (see ``calibration``).
        Too small an epsilon for a mechanism is refused with a ValueError
        naming the usable range (``'duchi'`` runs at every epsilon);
        ``'piecewise'``, ``'duchi'`` and ``'laplace'`` are served at
        epsilon 64 at most (their 64-bit implementations provide 56.1,
        36.0 and 20.4 there).
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
    model_selection : {'cv', 'none'}, default='cv'
        ``'cv'``: choose between the minimizer and the constant model by
        held-out estimated risk (``N_FOLDS`` folds: the report at stream
        position ``i`` is in fold ``i mod N_FOLDS``; one-standard-error rule
        toward the constant model).
        ``'none'``: return the minimizer, as seed 001 does.
    calibration : {'improved', 'paper'}, default='improved'
        Affects ``mechanism='genprot'`` only (the other mechanisms have a
        single calibration: ``'full_grid'`` is Algorithm 2 as printed;
        the printed ``eps0 = epsilon`` of ``'bassily_smith'`` is not
        epsilon-LDP, so only its corrected form is offered). ``'paper'``
        is seed 001 Theorem 46's configuration of Algorithm 8: base budget
        ``eps0 = epsilon / 10`` (the theorem needs ``eps0 <= 1/4``: a
        request above epsilon 2.5 is served at 2.5), public strings
        ``Lap(bot)`` around the printed bottom value ``bot = 0``, and ``T =
        1 + ceil(log2(n / beta))`` candidates with ``beta = 0.05``
        (:func:`paper_genprot_candidates`; ``T = O(log(n / beta))`` as
        printed, the constant chosen so that no user falls back to the
        empty set with probability ``1 - beta``), which needs ``n_users``.
        ``'improved'``: the tight calibration (``eps0`` about ``epsilon /
        2``, ``bot = 1/2``, ``T = 32``).
    random_state : int, RandomState instance or None, default=None
        Randomness of the simulated users in ``fit`` (and, from a separate
        stream, of their public groups). The server has no randomness of
        its own.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    protocol_ : {'grid', 'moments'}
        What the users released.
    mechanism_ : str
        The scalar mechanism they used.
    degree_ : int
        The grid resolution used (2, the monomials' degree, for moments).
    n_grid_points_ : int
        Grid points, or released monomials with ``protocol_='moments'``.
    grid_risk_ : ndarray of shape (k + 1,)^q or None
        The noisy normalized empirical risk at the grid points (grid only).
    bernstein_coef_ : ndarray of shape (k + 1,)^q or None
        Coefficients of the iterated Bernstein polynomial (grid only).
    moments_ : ndarray of shape (n_moments,) or None
        The noisy moments (moments only), in the order of
        :func:`~sklearn_ldp.aggregation.moment_risk_weights`.
    cv_results_ : dict or None
        With ``model_selection='cv'``: ``'candidate'`` (``'constant'``,
        ``'minimizer'``), ``'held_out_risk'`` (mean held-out estimated risk,
        loss units), ``'difference'`` (minus the constant model's) and
        ``'difference_std_error'`` (from the within-group variances of the
        held-out reports).
    selected_model_ : {'constant', 'minimizer'}
    loss_bound_ : float
    coef_bounds_ : ndarray of shape (2, q)
    users_per_grid_point_ : float
    n_samples_seen_ : int
        Reports the server aggregated (the valid ones of ``fit_reports``,
        every batch so far with ``partial_fit``).
    communication_bits_ : int
        Bits each user sends (64 per real number; 1 for ``'duchi'`` and
        ``'bassily_smith'``; ``ceil(log2 T)`` for ``'genprot'``).
    privacy_epsilon_, privacy_delta_ : float
        The guarantee the users' mechanism provides (``delta = 0``): at most
        ``epsilon``, smaller where the mechanism saturates (``'genprot'``:
        2.77 improved, 2.5 paper; see ``mechanism``).
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
    >>> est.protocol_, est.selected_model_
    ('moments', 'minimizer')
    >>> est.coef_.round(1), round(est.intercept_, 1)
    (array([0.5]), 0.1)
    >>> paper = LocalBernsteinRegressor(
    ...     epsilon=4.0, mechanism="piecewise", model_selection="none", random_state=0
    ... ).fit(X, y)
    >>> paper.protocol_, paper.degree_, paper.coef_.round(1)
    ('grid', 3, array([0.7]))

    GenProt (Algorithm 8) as printed: ``eps0 = epsilon / 10``, ``T = 1 +
    ceil(log2(n / 0.05))`` public strings, a 5-bit message:

    >>> genprot = LocalBernsteinRegressor(
    ...     epsilon=2.0, mechanism="genprot", calibration="paper", degree=2,
    ...     model_selection="none", random_state=0,
    ... ).fit(X, y)
    >>> genprot.communication_bits_, round(genprot.privacy_epsilon_, 6)
    (5, 2.0)
    """

    _auto_degree_chooses = "the grid"

    _parameter_constraints = {
        **LDPRegressorMixin._ldp_parameter_constraints,
        "degree": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "iterated_order": [Interval(Integral, 1, 10, closed="both")],
        "mechanism": [StrOptions({"auto", *MECHANISMS})],
        "loss": [StrOptions(set(RESIDUAL_LOSSES)), callable],
        "huber_delta": [Interval(Real, 0, None, closed="neither")],
        "loss_bound": [Interval(Real, 0, None, closed="neither"), None],
        "coef_bounds": ["array-like"],
        "fit_intercept": ["boolean"],
        "data_norm": [Interval(Real, 0, None, closed="neither")],
        "y_bound": [Interval(Real, 0, None, closed="neither")],
        "model_selection": [StrOptions({"cv", "none"})],
        "calibration": [StrOptions(set(CALIBRATIONS))],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        degree="auto",
        iterated_order=3,
        mechanism="auto",
        loss="squared",
        huber_delta=1.0,
        loss_bound=None,
        coef_bounds=(-1.0, 1.0),
        fit_intercept=True,
        data_norm=1.0,
        y_bound=1.0,
        model_selection="cv",
        calibration="improved",
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
        self.model_selection = model_selection
        self.calibration = calibration
        self.random_state = random_state

    def _build_randomizer(
        self,
        n_features,
        *,
        degree,
        mechanism=None,
        protocol="grid",
        n_users=None,
        options=None,
    ):
        """The users' ``BernsteinLossRandomizer`` with an announced configuration.

        Each user draws its group from its own public stream, and the
        reports carry it. ``options`` (GenProt's, as announced) default to
        those of :func:`genprot_options` for ``n_users``.
        """
        self._validate_params()
        if degree is None:
            degree = self.degree
        mechanism = self.mechanism if mechanism is None else mechanism
        if mechanism == "genprot" and options is None:
            options = genprot_options(self.calibration, n_users)
        try:
            return self._randomizer(n_features, degree, mechanism, protocol, options)
        except ValueError as error:
            if f"epsilon = {self.epsilon!r}" in str(error):
                raise
            # A release budget derived from epsilon was refused (full grid):
            # name the epsilon asked for.
            raise ValueError(f"epsilon = {self.epsilon!r}: {error}") from None

    def _randomizer(self, n_features, degree, mechanism, protocol, options):
        n_coef = int(n_features) + int(self.fit_intercept)
        lower, upper = coefficient_box(self.coef_bounds, n_coef)
        return BernsteinLossRandomizer(
            n_features,
            epsilon=mechanism_epsilon(mechanism, self.epsilon, self.calibration),
            degree=2 if protocol == "moments" else degree,
            mechanism=mechanism,
            loss=self.loss,
            coef_lower=lower,
            coef_upper=upper,
            fit_intercept=self.fit_intercept,
            data_norm=self.data_norm,
            y_bound=self.y_bound,
            huber_delta=self.huber_delta,
            loss_bound=self.loss_bound,
            protocol=protocol,
            genprot_options=options,
        )

    def _predicted_errors(self, n_features, n_users, mechanisms):
        return predicted_errors(
            n_users,
            n_features,
            self.epsilon,
            loss=self.loss,
            huber_delta=self.huber_delta,
            loss_bound=self.loss_bound,
            coef_bounds=self.coef_bounds,
            fit_intercept=self.fit_intercept,
            data_norm=self.data_norm,
            y_bound=self.y_bound,
            iterated_order=self.iterated_order,
            degree=self.degree,
            mechanisms=mechanisms,
            calibration=self.calibration,
        )

    def _auto_degree(self, n_features, n_users):
        self._validate_params()
        errors = self._predicted_errors(n_features, n_users, (self.mechanism,))
        return errors["grid", self.mechanism][0]

    def _make_randomizer(self, n_features, n_users, classes):
        self._validate_params()
        if self.mechanism != "auto":
            degree = None
            if self.degree == "auto":
                if n_users is None:
                    raise ValueError(
                        f"degree='auto' chooses {self._auto_degree_chooses} from the "
                        "number of users: pass make_randomizer(n_features, "
                        "n_users=...), or set an integer degree."
                    )
                degree = self._auto_degree(int(n_features), int(n_users))
            return self._build_randomizer(n_features, degree=degree, n_users=n_users)
        if n_users is None:
            raise ValueError(
                "mechanism='auto' chooses the protocol, the mechanism and the grid "
                "from the number of users: pass make_randomizer(n_features, "
                "n_users=...), or set a mechanism and an integer degree."
            )
        errors = self._predicted_errors(int(n_features), int(n_users), AUTO_MECHANISMS)
        protocol, mechanism = min(errors, key=lambda key: errors[key][1])
        return self._build_randomizer(
            n_features,
            degree=errors[protocol, mechanism][0],
            mechanism=mechanism,
            protocol=protocol,
        )

    def _expected_randomizer(self, reports):
        return self._announced_randomizer(reports.config)

    def _announced_randomizer(self, config):
        """The randomizer the users were told, read back from the reports' ``config``."""
        if self.mechanism == "genprot":
            # GenProt's candidates were fixed from the population size before
            # the users replied: read them back (the rest must match).
            announced = config.get("genprot_options") or {}
            options = genprot_options(self.calibration, 1)
            if options:
                options["n_candidates"] = announced.get("n_candidates")
            return self._build_randomizer(
                config.get("n_features"),
                degree=announced_degree(self, config),
                options=options,
            )
        if self.mechanism != "auto":
            return self._build_randomizer(
                config.get("n_features"), degree=announced_degree(self, config)
            )
        # mechanism='auto' was resolved and announced before the users replied.
        protocol = config.get("protocol", "grid")
        mechanism = config.get("mechanism")
        if protocol not in PROTOCOLS or mechanism not in AUTO_MECHANISMS:
            raise ValueError(
                "These reports carry no protocol and mechanism mechanism='auto' can "
                f"announce: protocol={protocol!r}, mechanism={mechanism!r}."
            )
        degree = None if protocol == "moments" else announced_degree(self, config)
        return self._build_randomizer(
            config.get("n_features"),
            degree=degree,
            mechanism=mechanism,
            protocol=protocol,
        )

    def _server_aggregate(self, config):
        """Per fold and group: reports, sum and sum of squares of their estimates."""
        n_folds = N_FOLDS if self.model_selection == "cv" else 1
        return BernsteinReportSums(self._announced_randomizer(config), n_folds)

    def _fit_server_aggregate(self, aggregate, config, rng):
        randomizer = aggregate.randomizer
        n_users = aggregate.n_reports
        cells = (
            f"released monomials ({randomizer.n_groups})"
            if randomizer.protocol == "moments"
            else "grid points ((degree + 1)^(n_features + fit_intercept) = "
            f"{randomizer.degree + 1}^{randomizer.n_coef})"
        )
        warn_few_users(
            n_users,
            randomizer.n_groups,
            cells=cells,
            advice=(
                "Lower degree, use fewer features or fit_intercept=False, or collect "
                "more users."
            ),
        )
        n_groups = aggregate.n_groups
        sums = aggregate.counts, aggregate.sums, aggregate.squares
        counts, totals, _ = (part.sum(axis=0) for part in sums)
        fill = float(totals.sum() / max(counts.sum(), 1.0))
        means = np.divide(totals, counts, out=np.full(n_groups, fill), where=counts > 0)
        candidates = self._candidates(randomizer, means)
        self.cv_results_, self.selected_model_ = None, "minimizer"
        if self.model_selection == "cv" and n_users >= 2 * aggregate.n_folds:
            self.cv_results_ = self._cross_validate(randomizer, sums)
            difference = self.cv_results_["difference"][1]
            if difference + self.cv_results_["difference_std_error"][1] >= 0.0:
                self.selected_model_ = "constant"
        coef = candidates[self.selected_model_]
        n_features = randomizer.n_features
        self.coef_ = coef[:n_features]
        self.intercept_ = float(coef[n_features]) if self.fit_intercept else 0.0
        self.protocol_ = randomizer.protocol
        self.mechanism_ = randomizer.mechanism
        self.degree_ = randomizer.degree
        self.n_grid_points_ = n_groups
        self.users_per_grid_point_ = float(np.mean(counts))
        self.n_samples_seen_ = int(n_users)
        self.communication_bits_ = randomizer.communication_bits
        self.loss_bound_ = randomizer.loss_bound
        self.coef_bounds_ = np.stack([randomizer.coef_lower, randomizer.coef_upper])
        self.grid_risk_ = self.bernstein_coef_ = self.moments_ = None
        if randomizer.protocol == "moments":
            self.moments_ = means
        else:
            shape = (randomizer.degree + 1,) * randomizer.n_coef
            self.grid_risk_ = means.reshape(shape) / randomizer.loss_bound
            self.bernstein_coef_ = bernstein_coefficients(
                self.grid_risk_, self.iterated_order
            )
        return self

    def _risk_weights(self, randomizer, coefs):
        """``(weights, offset)``: the estimated risk is ``weights . means + offset``."""
        coefs = np.atleast_2d(coefs)
        if randomizer.protocol == "moments":
            return moment_risk_weights(
                coefs, randomizer.n_features, randomizer.fit_intercept
            )
        lower, upper = randomizer.coef_lower, randomizer.coef_upper
        t = (coefs - lower) / (upper - lower)
        weights = bernstein_weights(t, randomizer.degree, self.iterated_order)
        offset = np.zeros(coefs.shape[0])
        if randomizer.loss == "squared" and randomizer.fit_intercept:
            # The iterated operator errs on a quadratic by exactly
            # (I - B_k)^h f = -a t (1 - t) / k^h along an axis where f = a t^2
            # + (linear); along the intercept a = (upper - lower)^2 is public
            # (the loss has curvature 2 in b), so that part of the bias,
            # largest mid-box and zero at the grid's faces, is removed: it
            # would otherwise favour candidates at the box's faces.
            # The slopes' part (a_j = E[x_j^2] width_j^2 <= data_norm^2
            # width_j^2, unknown) is left.
            width = upper[-1] - lower[-1]
            tb = t[:, -1]
            offset -= (
                width**2 * tb * (1.0 - tb) / randomizer.degree**self.iterated_order
            )
        return weights, offset

    def _candidates(self, randomizer, means):
        """The minimizer and the constant model from group means (loss or moment units)."""
        lower, upper = randomizer.coef_lower, randomizer.coef_upper
        d = randomizer.n_features
        constant = np.clip(np.zeros(randomizer.n_coef), lower, upper)
        if randomizer.protocol == "moments":
            quadratic, linear = moment_quadratic(means, d, randomizer.fit_intercept)
            minimizer = minimize_box_quadratic(quadratic, linear, lower, upper)
            if randomizer.fit_intercept:
                # E[(y - w0^T x - b)^2] is least at b = E[y] - w0^T E[x].
                target = linear[d] - constant[:d] @ quadratic[:d, d]
                constant[d] = np.clip(target, lower[d], upper[d])
            return {"minimizer": minimizer, "constant": constant}
        shape = (randomizer.degree + 1,) * randomizer.n_coef
        _, minimizer = _minimize_grid_risk(
            means.reshape(shape), self.iterated_order, lower, upper
        )
        if randomizer.fit_intercept:
            constant[d] = self._grid_constant(randomizer, means, constant)
        return {"minimizer": minimizer, "constant": constant}

    def _grid_constant(self, randomizer, means, constant):
        """Best intercept with the slopes at ``constant[:d]``, from the grid polynomial.

        Squared loss: the risk along the intercept ``b`` is ``c - 2 b m +
        b^2`` (curvature exactly 2), and the iterated polynomial reproduces
        its differences along ``b`` exactly (the Bernstein operator is exact
        on functions linear in ``b``, and its error in the slopes does not
        depend on ``b``), so the two ends of the box give ``m`` without
        bias: ``m = ((hi^2 - lo^2) - (P(hi) - P(lo))) / (2 (hi - lo))``,
        for every degree (also ``k = 1``, whose polynomial is minimal at a
        corner). Other losses: the best of 201 points along ``b``.
        """
        d = randomizer.n_features
        low, high = randomizer.coef_lower[d], randomizer.coef_upper[d]
        if randomizer.loss == "squared":
            ends = np.repeat(constant[None, :], 2, axis=0)
            ends[:, d] = low, high
            weights, _ = self._risk_weights(randomizer, ends)
            at_low, at_high = weights @ means
            mean = ((high**2 - low**2) - (at_high - at_low)) / (2.0 * (high - low))
            return float(np.clip(mean, low, high))
        line = np.repeat(constant[None, :], 201, axis=0)
        line[:, d] = np.linspace(low, high, 201)
        weights, _ = self._risk_weights(randomizer, line)
        return float(line[np.argmin(weights @ means), d])

    def _cross_validate(self, randomizer, sums):
        """Held-out estimated risks of the two candidates (report-only, per fold).

        In each fold both candidates are fitted on the other folds' reports
        and their risk is estimated on the fold's own: a linear function of
        its group means, unbiased for the (Bernstein-smoothed, grid) risk
        since the candidates do not depend on those reports. The variance of
        the difference is ``sum_g (a_g - a'_g)^2 s_g^2 / n_g`` with the
        within-group sample variances ``s_g^2`` of the held-out estimates
        (the mechanism's noise and the users' spread together). With
        ``'full_grid'`` the users' values at different grid points are
        correlated and that covariance is left out, against the
        ``Lap((k + 1)^q / epsilon)`` noise that dominates it.
        """
        counts, totals, squares = sums
        n_folds = counts.shape[0]
        names = ("constant", "minimizer")
        risk, difference, variance = np.zeros(2), 0.0, 0.0
        n_total = (
            counts[:, 0].sum() if randomizer.mechanism == "full_grid" else counts.sum()
        )
        for k in range(n_folds):
            train_counts = counts.sum(axis=0) - counts[k]
            train_totals = totals.sum(axis=0) - totals[k]
            fill = float(train_totals.sum() / max(train_counts.sum(), 1.0))
            train_means = np.divide(
                train_totals,
                train_counts,
                out=np.full(train_totals.shape, fill),
                where=train_counts > 0,
            )
            candidates = self._candidates(randomizer, train_means)
            weights, offset = self._risk_weights(
                randomizer, np.stack([candidates[name] for name in names])
            )
            means, mean_variance = group_mean_variance(
                counts[k], totals[k], squares[k], fill=train_means
            )
            share = (
                counts[k, 0] if randomizer.mechanism == "full_grid" else counts[k].sum()
            ) / n_total
            fold_risk = weights @ means + offset
            risk += share * fold_risk
            difference += share * (fold_risk[1] - fold_risk[0])
            variance += share**2 * ((weights[1] - weights[0]) ** 2 @ mean_variance)
        return {
            "candidate": np.array(names),
            "held_out_risk": risk,
            "difference": np.array([0.0, difference]),
            "difference_std_error": np.array([0.0, np.sqrt(variance)]),
        }

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
            The iterated Bernstein polynomial times ``loss_bound_`` (grid),
            or the squared risk from the noisy moments (moments); in loss
            units, post-processing of the reports, so it costs no privacy.
        """
        check_is_fitted(self)
        coefs = check_finite_array(coefs, name="coefs", ndim=2)
        if self.protocol_ == "moments":
            weights, offset = moment_risk_weights(
                coefs, self.n_features_in_, self.fit_intercept
            )
            return weights @ self.moments_ + offset
        lower, upper = self.coef_bounds_
        t = (coefs - lower) / (upper - lower)
        return self.loss_bound_ * evaluate_bernstein(self.bernstein_coef_, t)

    def __sklearn_tags__(self):
        return ldp_tags(super().__sklearn_tags__(), poor_score=True)


__all__ = [
    "AUTO_MECHANISMS",
    "LocalBernsteinRegressor",
    "approximation_constant",
    "auto_degree",
    "grid_error_bounds",
    "moment_error_bound",
    "predicted_errors",
]
