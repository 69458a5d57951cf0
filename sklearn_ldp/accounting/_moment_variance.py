"""Per-user variance of unbiased first- and second-moment estimates, by mechanism.

The Gaussian-report estimators need unbiased estimates of ``E[x]`` and
``E[x x^T]`` (``||x|| <= 1``) from one report per user. This module gives, in
closed form, the per-user variance of such estimates for the mechanisms that
can produce them, so that a mechanism can be picked from public ``(d,
epsilon, delta)`` alone (:func:`best_moment_mechanism`). "Variance" is the
trace of the estimator's covariance: ``E||x_hat - x||^2`` for the mean and
``E||M_hat - x x^T||_F^2`` (sum of the variances of all ``d^2`` entries) for
the second moment, at a stated ``x`` or in the worst case over the unit
ball. The server's error on ``n`` users is this divided by ``n``.

Mechanisms (each function's Notes derive its formulas):

- ``'gaussian'``: the analytic Gaussian release ``z = x + sigma g`` at
  ``(epsilon, delta)``, l2 sensitivity 2 (Balle and Wang 2018).
- ``'privunit'``: PrivUnit2 (Bhowmick et al. 2018; Asi, Feldman and Talwar
  2022, who prove it optimal for l2 mean estimation), pure epsilon.
- ``'privunit_gaussian'``: PrivUnitG (Asi, Feldman and Talwar 2022), the
  same with a Gaussian base law, pure epsilon; the one with an exact
  lattice sampler (:class:`~sklearn_ldp.randomizers.PrivUnitGRandomizer`).
- ``'piecewise'``, ``'hybrid'``: each user samples ``k`` of the ``d``
  coordinates and releases each with the piecewise or hybrid mechanism at
  ``epsilon / k`` (Wang et al., ICDE 2019), pure epsilon.

The unit-ball input enters PrivUnit through the embedding ``u = (x, sqrt(1 -
||x||^2))`` on the sphere of ``R^(d+1)``: deterministic (no privacy cost), and
both ``x`` and ``x x^T`` are blocks of ``u`` and ``u u^T``, which one
PrivUnit report estimates without bias (below). Randomized rounding to
``+-x / ||x||`` (the usual reduction for the mean) would not do: its ``E[u
u^T] = x x^T / ||x||^2``.
"""

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import betaincc, betainccinv, betaln, ndtr, ndtri

from ..utils import check_delta, check_epsilon
from ._gaussian import analytic_gaussian_sigma

#: Every mechanism :func:`best_moment_mechanism` compares.
MOMENT_MECHANISMS = ("gaussian", "privunit", "privunit_gaussian", "piecewise", "hybrid")
#: The mechanisms with a randomizer in :mod:`sklearn_ldp.randomizers`
#: (``GaussianRecordRandomizer``, ``PrivUnitGRandomizer``).
IMPLEMENTED_MOMENT_MECHANISMS = ("gaussian", "privunit_gaussian")
TARGETS = ("second_moment", "mean")
#: Smallest cap probability of the lattice PrivUnitG sampler (at most 64
#: expected draws per user in the cap branch); ``'privunit_gaussian'`` is
#: compared at the design it can run.
PRIVUNIT_MIN_CAP_PROBABILITY = 1.0 / 64.0
_REPORTS = ("one", "two")


@dataclass(frozen=True)
class MomentVariance:
    """Per-user variance of the unbiased mean and second-moment estimates.

    Attributes
    ----------
    mechanism : str
    mean : float
        ``E||x_hat - x||^2`` for one user.
    second_moment : float
        ``E||M_hat - x x^T||_F^2`` for one user.
    parameters : dict
        The public parameters that give these values (noise scale, budget
        split, number of sampled coordinates, ...).
    """

    mechanism: str
    mean: float
    second_moment: float
    parameters: dict = field(default_factory=dict)


def _check_dimension(n_features):
    if int(n_features) != n_features or n_features < 1:
        raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}.")
    return int(n_features)


def _check_x(x, d):
    """``x`` as a 1-d array of length ``d`` inside the unit ball."""
    x = np.asarray(x, dtype=float)
    if x.shape != (d,) or not np.all(np.isfinite(x)):
        raise ValueError(f"x must be a finite vector of length {d}.")
    if x @ x > 1.0 + 1e-12:
        raise ValueError("x must lie in the unit ball (||x|| <= 1).")
    return x


def _quadratic_max(f):
    """Max over ``s in [0, 1]`` of ``f``, a quadratic in ``s`` (exact)."""
    f0, f1, f2 = f(0.0), f(0.5), f(1.0)
    if not all(np.isfinite([f0, f1, f2])):
        return math.inf
    a = 2.0 * (f2 - 2.0 * f1 + f0)  # f(s) = a s^2 + b s + f0
    b = f2 - f0 - a
    candidates = [f0, f2]
    if a < 0 and 0.0 < -b / (2.0 * a) < 1.0:
        candidates.append(f(-b / (2.0 * a)))
    return float(max(candidates))


def _worst_case_by_norm(at_w):
    """Worst case of ``(mean, second) = at_w(w)``, each a quadratic in ``w = ||x||^2``."""
    return (
        _quadratic_max(lambda w: at_w(w)[0]),
        _quadratic_max(lambda w: at_w(w)[1]),
    )


# ------------------------------------------------------------------- Gaussian


def gaussian_moment_variance(n_features, epsilon, delta, x=None, *, sigma=None):
    """Per-user variance of the moment estimates from one analytic Gaussian release.

    Parameters
    ----------
    n_features : int
        Dimension ``d`` of ``x`` (``||x|| <= 1``).
    epsilon, delta : float
        The release is (epsilon, delta)-LDP.
    x : array-like of shape (n_features,) or None, default=None
        The user's vector; None gives the worst case over the unit ball.
    sigma : float or None, default=None
        Noise standard deviation; None: the analytic Gaussian calibration
        for l2 sensitivity 2 (replacing a record in the unit ball).

    Returns
    -------
    MomentVariance

    Notes
    -----
    The user sends ``z = x + sigma g``, ``g ~ N(0, I_d)``. The mean estimate
    ``z`` has ``E||z - x||^2 = d sigma^2``. The second moment estimate is
    ``M_hat = z z^T - sigma^2 I`` (unbiased; it is the minimum-variance
    unbiased one, a function of the complete sufficient statistic ``z``).
    Entrywise, with ``E[z_j^2 z_k^2] = (x_j^2 + sigma^2)(x_k^2 + sigma^2)`` for
    ``j != k`` and ``Var(z_j^2) = 4 x_j^2 sigma^2 + 2 sigma^4``:
    ``Var(M_jk) = sigma^2 (x_j^2 + x_k^2) + sigma^4`` off the diagonal and
    ``4 x_j^2 sigma^2 + 2 sigma^4`` on it. Summed over the ``d^2`` entries,

        E||M_hat - x x^T||_F^2 = d (d + 1) sigma^4 + 2 (d + 1) sigma^2 ||x||^2,

    largest at ``||x|| = 1``. Splitting ``z`` into two independent copies
    (Gaussian fission, noise ``sqrt(2) sigma`` each) and using ``z_1 z_2^T``
    gives ``4 d^2 sigma^4 + ...``, worse.

    Examples
    --------
    >>> from sklearn_ldp.accounting import gaussian_moment_variance
    >>> v = gaussian_moment_variance(2, 1.0, 1e-7, sigma=1.0)
    >>> v.mean, v.second_moment
    (2.0, 12.0)
    """
    d = _check_dimension(n_features)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    if sigma is None:
        sigma = analytic_gaussian_sigma(epsilon, delta, 2.0)
    s2 = float(sigma) ** 2

    def at_w(w):
        return d * s2, d * (d + 1) * s2**2 + 2.0 * (d + 1) * s2 * w

    if x is None:
        mean, second = _worst_case_by_norm(at_w)
    else:
        x = _check_x(x, d)
        mean, second = at_w(float(x @ x))
    return MomentVariance("gaussian", mean, second, {"sigma": float(sigma)})


# ------------------------------------------------------------------ PrivUnit


@dataclass(frozen=True)
class PrivUnitDesign:
    """Parameters and moments of PrivUnit on the unit sphere of ``R^D``.

    The output ``V`` is drawn from the base law (uniform on the sphere,
    ``'sphere'``; ``N(0, I_D)``, ``'gaussian'``) conditioned on the cap
    ``<V, u> >= gamma`` with probability ``p`` and on its complement
    otherwise; ``q`` is the base probability of the cap. ``t = <V, u>``
    has moments ``t_moments[k] = E[t^k]`` (k = 0..4); the part of ``V``
    orthogonal to ``u`` is independent of ``t``: uniform on the sphere of
    radius ``sqrt(1 - t^2)`` (``'sphere'``) or ``N(0, I - u u^T)``.

    Attributes
    ----------
    base : {'sphere', 'gaussian'}
    n_dims : int
        ``D``.
    epsilon : float
        The guarantee, ``ln(p (1 - q) / ((1 - p) q))``.
    p, q, gamma : float
    t_moments : ndarray of shape (5,)
    """

    base: str
    n_dims: int
    epsilon: float
    p: float
    q: float
    gamma: float
    t_moments: np.ndarray

    @property
    def mixture_weight(self):
        """``L = (1 - p) / (1 - q)``: the law is ``L base + (1 - L) base | cap``."""
        return (1.0 - self.p) / (1.0 - self.q)


def _sphere_cap_moments(D, gamma):
    """``E[t^k 1{t >= gamma}]``, k = 0..4, and ``E[t^k]`` for ``V`` uniform on ``S^(D-1)``.

    ``t^2 ~ Beta(1/2, (D - 1)/2)`` and ``t`` is symmetric, so for ``gamma >=
    0``: ``E[t^(2j) 1{t >= gamma}] = E[t^(2j)] I_c(1/2 + j, (D - 1)/2, gamma^2)
    / 2`` (``I_c`` the upper regularized incomplete beta), and ``E[t 1{t >=
    gamma}] = (1 - gamma^2)^((D - 1)/2) / ((D - 1) B(1/2, (D - 1)/2))``
    (integrate ``t (1 - t^2)^((D - 3)/2)``), ``E[t^3 1{t >= gamma}]`` likewise
    from ``t^3 = t - t (1 - t^2)``.
    """
    b = 0.5 * (D - 1)
    g2 = gamma * gamma
    log_c = -betaln(0.5, b)
    first = math.exp(log_c + b * math.log1p(-g2)) / (2.0 * b)
    # E[t (1 - t^2) 1{t >= gamma}] = c (1 - gamma^2)^(b + 1) / (2 (b + 1)).
    third = first - math.exp(log_c + (b + 1.0) * math.log1p(-g2)) / (2.0 * (b + 1.0))
    even = [1.0, 1.0 / D, 3.0 / (D * (D + 2.0))]
    cap = np.array(
        [
            0.5 * betaincc(0.5, b, g2),
            first,
            0.5 * even[1] * betaincc(1.5, b, g2),
            third,
            0.5 * even[2] * betaincc(2.5, b, g2),
        ]
    )
    total = np.array([1.0, 0.0, even[1], 0.0, even[2]])
    return cap, total


def _gaussian_cap_moments(gamma):
    """``E[t^k 1{t >= gamma}]`` and ``E[t^k]`` for ``t ~ N(0, 1)`` (k = 0..4).

    By parts: ``E[t^k 1{t >= g}] = g^(k-1) phi(g) + (k - 1) E[t^(k-2) 1{t >= g}]``.
    """
    phi = math.exp(-0.5 * gamma * gamma) / math.sqrt(2.0 * math.pi)
    q = float(ndtr(-gamma))
    cap = np.array(
        [
            q,
            phi,
            gamma * phi + q,
            (gamma**2 + 2.0) * phi,
            (gamma**3 + 3.0 * gamma) * phi + 3.0 * q,
        ]
    )
    return cap, np.array([1.0, 0.0, 1.0, 0.0, 3.0])


def privunit_design(n_dims, epsilon, budget_split=0.5, base="sphere"):
    """PrivUnit on the sphere of ``R^n_dims`` at ``epsilon``, with a budget split.

    ``epsilon = epsilon_0 + epsilon_1`` with ``epsilon_0 = budget_split
    epsilon``: ``p = e^eps_0 / (1 + e^eps_0)`` and the cap of base
    probability ``q = 1 / (1 + e^eps_1)``.

    Parameters
    ----------
    n_dims : int
        ``D >= 2``.
    epsilon : float
    budget_split : float in [0, 1], default=0.5
    base : {'sphere', 'gaussian'}, default='sphere'

    Returns
    -------
    PrivUnitDesign

    Notes
    -----
    Privacy (exact). The output's density with respect to the base law is
    ``p / q`` on the cap of ``u`` and ``(1 - p) / (1 - q)`` off it. For two
    inputs the ratio of densities at any output is at most ``p (1 - q) /
    ((1 - p) q) = e^(eps_0 + eps_1)``, attained by outputs in one cap and not
    the other; so PrivUnit is exactly epsilon-LDP (Bhowmick et al. 2018
    bound ``q`` through ``gamma``; the exact cap probability is used here).

    Examples
    --------
    >>> from sklearn_ldp.accounting import privunit_design
    >>> design = privunit_design(10, 2.0, 0.5)
    >>> round(design.epsilon, 12), round(design.p, 4), round(design.q, 4)
    (2.0, 0.7311, 0.2689)
    """
    D = _check_dimension(n_dims)
    if D < 2:
        raise ValueError("PrivUnit needs n_dims >= 2.")
    epsilon = check_epsilon(epsilon)
    if not 0.0 <= budget_split <= 1.0:
        raise ValueError(f"budget_split must be in [0, 1], got {budget_split!r}.")
    eps0 = budget_split * epsilon
    eps1 = epsilon - eps0
    p = 1.0 / (1.0 + math.exp(-eps0))
    q = 1.0 / (1.0 + math.exp(eps1))
    if base == "sphere":
        gamma = math.sqrt(float(betainccinv(0.5, 0.5 * (D - 1), 2.0 * q)))
        cap, total = _sphere_cap_moments(D, gamma)
    elif base == "gaussian":
        gamma = float(-ndtri(q))
        cap, total = _gaussian_cap_moments(gamma)
    else:
        raise ValueError(f"base must be 'sphere' or 'gaussian', got {base!r}.")
    q = float(cap[0])  # the cap's exact base probability at this gamma
    moments = p * cap / q + (1.0 - p) * (total - cap) / (1.0 - q)
    eps = math.log(p / (1.0 - p)) + math.log((1.0 - q) / q)
    return PrivUnitDesign(base, D, eps, p, q, gamma, moments)


def _privunit_at_w(design, w, reports):
    """(mean, second-moment) variance of the embedded estimates at ``w = ||x||^2``.

    See :func:`privunit_moment_variance` for the derivation.
    """
    D = design.n_dims
    d = D - 1
    _, m, a2, _, a4 = design.t_moments
    h = 1.0 - w  # u_D^2
    if design.base == "sphere":
        beta = (1.0 - a2) / (D - 1)  # E[V V^T] = beta I + (a2 - beta) u u^T
        trace = 1.0 - (beta + (a2 - beta) * h)  # E||V_P||^2
        vd4 = (
            a4 * h * h
            + 6.0 * (a2 - a4) * h * (1.0 - h) / (D - 1)
            + 3.0 * (1.0 - 2.0 * a2 + a4) * (1.0 - h) ** 2 / ((D - 1) * (D + 1))
        )
        fourth = 1.0 - 2.0 * (1.0 - trace) + vd4  # E||V_P||^4 = E(1 - V_D^2)^2
    else:
        beta = 1.0  # E[V V^T] = I + (a2 - 1) u u^T
        trace = a2 * w + d - w
        s1 = d - w
        s2 = (d - 1.0) * (d + 1.0) + 2.0 * (d - 1.0) * h + 3.0 * h * h
        fourth = w * w * a4 + 4.0 * a2 * w * h + s2 + 2.0 * w * a2 * s1
    kappa = a2 - beta
    # ||E[V_P V_P^T]||_F^2 = ||beta I_d + kappa u_P u_P^T||_F^2.
    frob = beta * beta * d + 2.0 * beta * kappa * w + kappa * kappa * w * w
    if reports == "one":
        if kappa <= 0.0:  # no cap (q = 1/2): V V^T carries nothing about u u^T
            return trace / m**2 - w, math.inf
        return trace / m**2 - w, (fourth - frob) / kappa**2
    # Two independent reports a, b (each at this design): mean (a + b) / 2,
    # second moment (a b^T + b a^T) / 2.
    norm2, frob2 = trace / m**2, frob / m**4
    return 0.5 * (norm2 - w), 0.5 * (norm2 * norm2 + frob2) - w * w


def _optimize_split(evaluate, lowest=0.0):
    """The budget split in [lowest, 1] minimizing ``evaluate(split)`` (bounded Brent)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        result = minimize_scalar(
            evaluate, bounds=(lowest, 1.0), method="bounded", options={"xatol": 1e-5}
        )
        ends = [(evaluate(lowest), lowest), (evaluate(1.0), 1.0)]
    best = min([(result.fun, result.x), *ends])
    return float(best[1])


def privunit_moment_variance(
    n_features,
    epsilon,
    x=None,
    *,
    base="sphere",
    reports="one",
    target="second_moment",
    budget_split=None,
    min_cap_probability=0.0,
):
    """Per-user variance of the moment estimates from PrivUnit (pure epsilon).

    Parameters
    ----------
    n_features : int
        Dimension ``d`` of ``x`` (``||x|| <= 1``); PrivUnit runs on the
        sphere of ``R^(d+1)``.
    epsilon : float
        The user's report(s) are epsilon-LDP in total.
    x : array-like of shape (n_features,) or None, default=None
        None: the worst case over the unit ball.
    base : {'sphere', 'gaussian'}, default='sphere'
        PrivUnit2 (uniform base law) or PrivUnitG (Gaussian base law).
    reports : {'one', 'two'}, default='one'
        One report at ``epsilon``, or two independent reports at
        ``epsilon / 2`` each.
    target : {'second_moment', 'mean'}, default='second_moment'
        Which worst-case variance the budget split minimizes.
    budget_split : float or None, default=None
        Share ``epsilon_0 / epsilon`` of :func:`privunit_design`; None
        chooses it to minimize the target's worst-case variance.
    min_cap_probability : float in [0, 1/2), default=0.0
        Smallest cap probability ``q`` the split may give (``epsilon_1 <=
        ln(1 / q - 1)``): a sampler that rejects until it lands in the cap
        makes ``1 / q`` draws on average
        (:class:`~sklearn_ldp.randomizers.PrivUnitGRandomizer` uses 1/64).

    Returns
    -------
    MomentVariance

    Notes
    -----
    Embedding: ``u = (x, sqrt(1 - ||x||^2))``, a unit vector of ``R^D``, ``D =
    d + 1``; write ``P`` for the first ``d`` coordinates, ``w = ||x||^2 =
    ||u_P||^2``, ``h = u_D^2 = 1 - w``. The report ``V`` has ``t = <V, u>``
    with moments ``m = E[t]``, ``a_2 = E[t^2]``, ``a_4 = E[t^4]``
    (:func:`privunit_design`), and ``V = t u + N`` with ``N`` orthogonal to
    ``u`` and independent of ``t``, rotation-invariant in ``u^perp``. Hence
    ``E[V] = m u`` and ``E[V V^T] = beta I + kappa u u^T`` with ``(beta,
    kappa) = ((1 - a_2) / (D - 1), a_2 - beta)`` (sphere) or ``(1, a_2 - 1)``
    (Gaussian). Unbiased estimates from one report:

        x_hat = V_P / m,        M_hat = (V_P V_P^T - beta I_d) / kappa.

    Variances: ``E||x_hat - x||^2 = E||V_P||^2 / m^2 - w`` with ``E||V_P||^2 =
    tr(beta I_d + kappa u_P u_P^T) = beta d + kappa w``, and ``E||M_hat - x
    x^T||_F^2 = (E||V_P||^4 - ||beta I_d + kappa u_P u_P^T||_F^2) / kappa^2``,
    ``||.||_F^2 = beta^2 d + 2 beta kappa w + kappa^2 w^2``. The fourth
    moment:

    - sphere: ``||V_P||^2 = 1 - V_D^2``, ``V_D = t u_D + sqrt(1 - t^2) W_D``
      where ``W_D``, the projection of a uniform unit vector of the
      ``(D - 1)``-dimensional ``u^perp`` on a vector of squared length
      ``1 - h``, has ``E[W_D^2] = (1 - h) / (D - 1)`` and ``E[W_D^4] = 3 (1 -
      h)^2 / ((D - 1)(D + 1))``; so ``E[V_D^4] = a_4 h^2 + 6 (a_2 - a_4) h (1
      - h) / (D - 1) + 3 (1 - 2 a_2 + a_4) (1 - h)^2 / ((D - 1)(D + 1))``.
    - Gaussian: ``N_P`` has covariance ``I_d - u_P u_P^T`` (eigenvalue ``h``
      along ``u_P``), so ``S = ||N_P||^2`` is ``chi^2_(d-1) + h Z^2`` and ``T
      = <u_P, N_P>`` has variance ``w h``; ``||V_P||^2 = t^2 w + 2 t T + S``
      gives ``E||V_P||^4 = a_4 w^2 + 4 a_2 w h + E[S^2] + 2 a_2 w E[S]``,
      ``E[S] = d - w``, ``E[S^2] = (d - 1)(d + 1) + 2 (d - 1) h + 3 h^2``
      (odd terms vanish by symmetry).

    Two reports ``a = V_P / m``, ``b`` at ``epsilon / 2`` each (basic
    composition): ``(a + b) / 2`` and ``(a b^T + b a^T) / 2``, whose
    variances are ``(E||a||^2 - w) / 2`` and ``((E||a||^2)^2 + ||E[a
    a^T]||_F^2) / 2 - w^2`` (``E[(a.b)^2] = tr(E[a a^T] E[b b^T])``). The
    one-report estimator wins at every epsilon in 0.5..8 and d in 2..30
    (the benchmark table shows both): its variance falls like
    ``1 / epsilon^2`` at small epsilon, the product of two reports' like
    ``1 / epsilon^4``.

    Every variance is a quadratic in ``w``; the worst case over the ball is
    its maximum over ``w in [0, 1]``, computed exactly.

    Examples
    --------
    >>> from sklearn_ldp.accounting import privunit_moment_variance
    >>> one = privunit_moment_variance(5, 1.0)
    >>> two = privunit_moment_variance(5, 1.0, reports="two")
    >>> bool(one.second_moment < two.second_moment)
    True
    """
    d = _check_dimension(n_features)
    epsilon = check_epsilon(epsilon)
    if reports not in _REPORTS:
        raise ValueError(f"reports must be one of {_REPORTS}, got {reports!r}.")
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}.")
    per_report = epsilon if reports == "one" else 0.5 * epsilon
    index = TARGETS.index(target)

    def design_at(split):
        return privunit_design(d + 1, per_report, split, base)

    def worst(split):
        design = design_at(split)
        value = _worst_case_by_norm(lambda w: _privunit_at_w(design, w, reports))
        return value[1 - index]

    lowest = 0.0
    if min_cap_probability > 0.0:
        if not min_cap_probability < 0.5:
            raise ValueError("min_cap_probability must be in [0, 1/2).")
        largest_eps1 = math.log(1.0 / min_cap_probability - 1.0)
        lowest = max(0.0, 1.0 - largest_eps1 / per_report)
    if budget_split is None:
        budget_split = _optimize_split(worst, lowest)
    design = design_at(budget_split)
    if x is None:
        mean, second = _worst_case_by_norm(lambda w: _privunit_at_w(design, w, reports))
    else:
        x = _check_x(x, d)
        mean, second = _privunit_at_w(design, float(x @ x), reports)
    name = "privunit" if base == "sphere" else "privunit_gaussian"
    parameters = {
        "reports": reports,
        "budget_split": float(budget_split),
        "p": design.p,
        "q": design.q,
        "gamma": design.gamma,
    }
    return MomentVariance(name, float(mean), float(second), parameters)


# ------------------------------------------------- sampled piecewise / hybrid


def hybrid_piecewise_weight(epsilon):
    """Weight of the piecewise mechanism in Wang et al.'s hybrid.

    ``1 - e^(-epsilon / 2)`` for epsilon above 0.61, else 0 (Duchi's bit alone).

    Examples
    --------
    >>> from sklearn_ldp.accounting import hybrid_piecewise_weight
    >>> hybrid_piecewise_weight(0.5), round(hybrid_piecewise_weight(2.0), 4)
    (0.0, 0.6321)
    """
    return 1.0 - math.exp(-0.5 * epsilon) if epsilon > 0.61 else 0.0


def scalar_report_moments(epsilon, t, mechanism="piecewise"):
    """``E[y^2]`` and ``E[y^4]`` of the continuous scalar mechanism's report at ``t in [-1, 1]``.

    Piecewise (Wang et al. 2019, Algorithm 2): with ``e = e^(eps/2)``, ``C =
    (e + 1) / (e - 1)``, the report has density ``p_h = (e^eps - e) / (2 e +
    2)`` on ``[l, r] = [(C + 1) t / 2 - (C - 1) / 2, l + C - 1]`` and ``p_h /
    e^eps`` on the rest of ``[-C, C]``, so ``E[y^k] = p_l (C^(k+1) - (-C)^(k+1))
    / (k + 1) + (p_h - p_l)(r^(k+1) - l^(k+1)) / (k + 1)``. Duchi: ``+-B``,
    ``B = (e^eps + 1) / (e^eps - 1)``, so ``E[y^2] = B^2``, ``E[y^4] = B^4``.
    Hybrid: the piecewise report with probability
    :func:`hybrid_piecewise_weight`, else Duchi's.

    Examples
    --------
    >>> from sklearn_ldp.accounting import scalar_report_moments
    >>> second, fourth = scalar_report_moments(2.0, 0.0)
    >>> round(float(second), 4)  # the piecewise variance at t = 0
    0.6456
    """
    t = np.asarray(t, dtype=float)
    if mechanism == "hybrid":
        weight = hybrid_piecewise_weight(epsilon)
        pm = scalar_report_moments(epsilon, t, "piecewise")
        du = scalar_report_moments(epsilon, t, "duchi")
        return tuple(
            weight * a + (1.0 - weight) * b for a, b in zip(pm, du, strict=True)
        )
    if mechanism == "duchi":
        B = (math.exp(epsilon) + 1.0) / math.expm1(epsilon)
        return np.full(t.shape, B**2), np.full(t.shape, B**4)
    if mechanism != "piecewise":
        raise ValueError(f"Unknown scalar mechanism {mechanism!r}.")
    e = math.exp(0.5 * epsilon)
    C = (e + 1.0) / (e - 1.0)
    p_high = (math.exp(epsilon) - e) / (2.0 * e + 2.0)
    p_low = p_high / math.exp(epsilon)
    left = 0.5 * (C + 1.0) * t - 0.5 * (C - 1.0)
    right = left + C - 1.0

    def moment(k):
        return p_low * 2.0 * C ** (k + 1) / (k + 1) + (p_high - p_low) * (
            right ** (k + 1) - left ** (k + 1)
        ) / (k + 1)

    return moment(2), moment(4)


def _square_coefficients(epsilon, mechanism):
    """``(A, B)`` with ``E[y^2] = A t^2 + B`` (exact: the moments are even polynomials)."""
    b = float(scalar_report_moments(epsilon, 0.0, mechanism)[0])
    a = float(scalar_report_moments(epsilon, 1.0, mechanism)[0]) - b
    return a, b


def _sampled_at(d, k, epsilon, mechanism, x):
    """(mean, second-moment) variance of the sampled-coordinate estimates at ``x``."""
    eps = epsilon / k
    w = x * x
    second, fourth = scalar_report_moments(eps, x, mechanism)
    mean = float(np.sum((d / k) * second - w))
    if k < 2:
        return mean, math.inf
    a, b = _square_coefficients(eps, mechanism)
    if a <= 0.0:  # Duchi's E[y^2] carries no information about x_j^2
        return mean, math.inf
    pair = d * (d - 1.0) / (k * (k - 1.0))
    diagonal = (d / k) * (fourth - 2.0 * b * second + b * b) / (a * a) - w * w
    off = pair * (np.sum(second) ** 2 - np.sum(second**2)) - (
        np.sum(w) ** 2 - np.sum(w * w)
    )
    return mean, float(np.sum(diagonal) + off)


def _sampled_worst(d, k, epsilon, mechanism):
    """Worst case over the ball: the variance is ``P s^2 + R sum w_j^2 + S s + c``.

    With ``s = sum_j x_j^2``, ``sum_j x_j^4`` ranges over ``[s^2 / d, s^2]``:
    its extremes are the spread ``x_j^2 = s / d`` and the concentrated ``x =
    sqrt(s) e_1``; along each, a quadratic in ``s`` maximized exactly.
    """
    spread = np.ones(d) / math.sqrt(d)
    corner = np.eye(d)[0]
    out = []
    for index in (0, 1):
        out.append(
            max(
                _quadratic_max(
                    lambda s, v=v, index=index: _sampled_at(
                        d, k, epsilon, mechanism, math.sqrt(s) * v
                    )[index]
                )
                for v in (spread, corner)
            )
        )
    return tuple(out)


def sampled_coordinate_moment_variance(
    n_features,
    epsilon,
    x=None,
    *,
    mechanism="piecewise",
    n_sampled=None,
    target="second_moment",
):
    """Per-user variance of the moment estimates when each user samples coordinates.

    Each user samples ``k`` of the ``d`` coordinates uniformly without
    replacement (public randomness) and releases each sampled ``x_j`` with
    the piecewise or hybrid mechanism at ``epsilon / k`` (Wang et al., ICDE
    2019, Algorithm 4; epsilon-LDP by basic composition).

    Parameters
    ----------
    n_features : int
        ``d``; ``||x|| <= 1`` (so every ``|x_j| <= 1``).
    epsilon : float
    x : array-like of shape (n_features,) or None, default=None
        None: the worst case over the unit ball.
    mechanism : {'piecewise', 'hybrid'}, default='piecewise'
    n_sampled : int or None, default=None
        ``k``; None: the ``k`` minimizing the target's worst case (``k >= 2``
        for the second moment).
    target : {'second_moment', 'mean'}, default='second_moment'

    Returns
    -------
    MomentVariance

    Notes
    -----
    Write ``y_j`` for the report of a sampled coordinate: ``E[y_j] = x_j``,
    ``E[y_j^2] = A x_j^2 + B`` (the variance is affine in ``x_j^2``), ``E[y_j^4]``
    from :func:`scalar_report_moments`; reports of distinct coordinates are
    independent. Mean: ``x_hat_j = (d / k) 1{j in S} y_j``, with
    ``E[x_hat_j^2] = (d / k) E[y_j^2]``. Off the diagonal, ``x_j x_k`` needs
    both in the sample (probability ``k (k - 1) / (d (d - 1))``):
    ``M_jk = d (d - 1) / (k (k - 1)) 1{j, k in S} y_j y_k``, of second moment
    ``d (d - 1) / (k (k - 1)) E[y_j^2] E[y_k^2]``. On the diagonal,
    ``(y_j^2 - B) / A`` is unbiased for ``x_j^2``, so ``M_jj = (d / k) 1{j in
    S} (y_j^2 - B) / A`` has second moment ``(d / k)(E[y_j^4] - 2 B E[y_j^2] +
    B^2) / A^2``; Duchi's bit has ``A = 0`` (no estimate of ``x_j^2``), the
    hybrid needs its piecewise part (epsilon / k > 0.61). Each variance is
    the second moment minus the squared target; summed over entries. Every
    entry's share of users is ``k / d`` or ``k (k - 1) / (d (d - 1))``, so the
    second-moment variance grows like ``d^4``, against ``d^2`` for the
    Gaussian and PrivUnit.

    Examples
    --------
    >>> from sklearn_ldp.accounting import sampled_coordinate_moment_variance
    >>> v = sampled_coordinate_moment_variance(2, 8.0)
    >>> v.parameters["n_sampled"]
    2
    """
    d = _check_dimension(n_features)
    epsilon = check_epsilon(epsilon)
    if mechanism not in ("piecewise", "hybrid"):
        raise ValueError(
            f"mechanism must be 'piecewise' or 'hybrid', got {mechanism!r}."
        )
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}.")
    index = TARGETS.index(target)
    if n_sampled is None:
        low = 2 if (index == 0 and d >= 2) else 1
        scores = {
            k: _sampled_worst(d, k, epsilon, mechanism)[1 - index]
            for k in range(low, d + 1)
        }
        n_sampled = min(scores, key=scores.get)
    k = int(n_sampled)
    if not 1 <= k <= d:
        raise ValueError(f"n_sampled must be in [1, {d}], got {n_sampled!r}.")
    if x is None:
        mean, second = _sampled_worst(d, k, epsilon, mechanism)
    else:
        mean, second = _sampled_at(d, k, epsilon, mechanism, _check_x(x, d))
    return MomentVariance(mechanism, mean, second, {"n_sampled": k})


# --------------------------------------------------------------------- choice


def moment_variances(
    n_features, epsilon, delta, *, target="second_moment", mechanisms=None
):
    """Worst-case per-user variances of every mechanism, each tuned for ``target``.

    Parameters
    ----------
    n_features : int
    epsilon : float
    delta : float
        The Gaussian's delta.
    target : {'second_moment', 'mean'}, default='second_moment'
    mechanisms : sequence of str or None, default=None
        The names to compute (a subset of ``MOMENT_MECHANISMS``); None:
        all. The sampled-coordinate mechanisms tune ``k`` over ``1..d``
        (seconds at ``d = 1000``), so a caller comparing the implemented
        ones names them.

    Returns
    -------
    variances : dict of str to MomentVariance
        Keyed by the names computed; PrivUnit's entries use
        the better of one report and two (``parameters['reports']``);
        ``'privunit_gaussian'`` keeps the cap probability at least
        ``PRIVUNIT_MIN_CAP_PROBABILITY``, as its randomizer does.

    Examples
    --------
    >>> from sklearn_ldp.accounting import moment_variances
    >>> sorted(moment_variances(3, 1.0, 1e-7))
    ['gaussian', 'hybrid', 'piecewise', 'privunit', 'privunit_gaussian']
    """
    index = TARGETS.index(target) if target in TARGETS else None
    if index is None:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}.")
    names = MOMENT_MECHANISMS if mechanisms is None else tuple(mechanisms)
    unknown = sorted(set(names) - set(MOMENT_MECHANISMS))
    if unknown or not names:
        raise ValueError(
            f"mechanisms must be a non-empty subset of {MOMENT_MECHANISMS}, "
            f"got {mechanisms!r}."
        )
    out = {}
    if "gaussian" in names:
        out["gaussian"] = gaussian_moment_variance(n_features, epsilon, delta)
    for base, name, min_cap in (
        ("sphere", "privunit", 0.0),
        ("gaussian", "privunit_gaussian", PRIVUNIT_MIN_CAP_PROBABILITY),
    ):
        if name not in names:
            continue
        candidates = [
            privunit_moment_variance(
                n_features,
                epsilon,
                base=base,
                reports=reports,
                target=target,
                min_cap_probability=min_cap,
            )
            for reports in _REPORTS
        ]
        out[name] = min(candidates, key=lambda v: (v.second_moment, v.mean)[index])
    for mechanism in ("piecewise", "hybrid"):
        if mechanism not in names:
            continue
        out[mechanism] = sampled_coordinate_moment_variance(
            n_features, epsilon, mechanism=mechanism, target=target
        )
    return out


def best_moment_mechanism(
    n_features, epsilon, delta, *, target="second_moment", mechanisms=None
):
    """The mechanism with the smallest worst-case per-user variance for ``target``.

    Decided from public ``(n_features, epsilon, delta)`` only (the variance
    per user does not depend on the number of users; ``delta`` matters only
    to the Gaussian, whose guarantee is weaker than the others' pure
    epsilon).

    Parameters
    ----------
    n_features : int
    epsilon : float
    delta : float
        The Gaussian's delta (keep it below ``1 / n_users``).
    target : {'second_moment', 'mean'}, default='second_moment'
    mechanisms : sequence of str or None, default=None
        The names to choose among; None: those with a randomizer in the
        package (``IMPLEMENTED_MOMENT_MECHANISMS``).

    Returns
    -------
    name : str
    variances : dict of str to MomentVariance
        The compared mechanisms' (:func:`moment_variances`).

    Examples
    --------
    >>> from sklearn_ldp.accounting import best_moment_mechanism
    >>> name, variances = best_moment_mechanism(10, 1.0, 1e-7)
    >>> name
    'privunit_gaussian'
    >>> bool(variances["gaussian"].second_moment > variances[name].second_moment)
    True
    """
    names = IMPLEMENTED_MOMENT_MECHANISMS if mechanisms is None else tuple(mechanisms)
    variances = moment_variances(
        n_features, epsilon, delta, target=target, mechanisms=names
    )
    attribute = "second_moment" if target == "second_moment" else "mean"
    name = min(names, key=lambda n: getattr(variances[n], attribute))
    return name, variances


# ------------------------------------------------------- lattice PrivUnitG


@dataclass(frozen=True)
class LatticePrivUnitG:
    """Calibration of PrivUnitG on the lattice ``g Z^D`` (see :func:`lattice_privunit_gaussian`).

    Attributes
    ----------
    epsilon : float
        The guarantee of what is sampled (at most the requested one).
    mixture_weight : float
        ``L``: probability of a plain base draw.
    cap_threshold : float
        ``gamma_c``, in cells: the cap is ``<J, u> >= gamma_c``.
    cap_lower_bound : float
        ``q_-``: a lower bound on the cap's probability under the implemented
        base law, for every admissible ``u``.
    design : PrivUnitDesign
        The law of the released vector in units of its per-coordinate
        standard deviation, as the server debiases with.
    """

    epsilon: float
    mixture_weight: float
    cap_threshold: float
    cap_lower_bound: float
    design: PrivUnitDesign


def lattice_privunit_gaussian(
    epsilon, n_dims, budget_split, *, scale, tv_bound, max_abs_cell
):
    """Calibrate PrivUnitG whose base law is a product of rounded Gaussians.

    Parameters
    ----------
    epsilon : float
        Requested guarantee.
    n_dims : int
        ``D`` (the unit vectors ``u`` live in ``R^D``).
    budget_split : float in [0, 1]
        As in :func:`privunit_design`.
    scale : float
        Standard deviation ``s`` (in cells) of the ideal Gaussian whose
        rounding is each coordinate's law.
    tv_bound : float
        Total variation between one coordinate's implemented law and the
        rounding of ``N(0, s^2)``.
    max_abs_cell : int
        Largest ``|J_i|`` the sampler can return.

    Returns
    -------
    LatticePrivUnitG

    Notes
    -----
    The mechanism: with probability ``L`` (a coin, ``>= L``) release a base
    draw ``J`` (``D`` independent coordinates from the exact 64-bit sampler,
    law ``mu``, data-independent); otherwise draw from ``mu`` until
    ``fl(<J, u>) >= gamma_c`` (floating point, any rounding) and release
    that draw (after ``R`` failed rounds, the last draw). Whatever the
    data-dependent set ``C_u`` of accepted draws is, the release has
    ``P(o | u) = mu(o) [L + (1 - L) c_u(o)]`` with ``0 <= c_u(o) <= 1 /
    mu(C_u)`` (``1 / mu(C_u)`` times the success probability in ``C_u``, at
    most ``(1 - mu(C_u))^(R-1)`` outside it), so for any two inputs the
    ratio is at most ``1 + (1 - L) / (L inf_u mu(C_u))``: epsilon-LDP with
    ``epsilon = ln(1 + (1 - L) / (L q_-))`` for a lower bound ``q_-``, which
    is exact for what is sampled (the ideal PrivUnitG has ``L = (1 - p) /
    (1 - q)``, giving ``p (1 - q) / ((1 - p) q)``).

    The lower bound: ``J = round(W)`` with ``W ~ N(0, s^2 I)`` up to total
    variation ``D tv_bound``; ``|<J - W, u>| <= ||u||_1 / 2 <= sqrt(D) ||u||
    / 2``; the floating-point dot product errs by at most ``1.01 D 2^-53
    sqrt(D) max_abs_cell ||u||``; and ``||u||`` is within ``1e-9`` of 1
    (the embedding is computed in float64, ``D < 10^6``). So ``mu(C_u) >=
    Phi(-(gamma_c + slack) / (s (1 - 1e-9))) - D tv_bound = q_-``. The cap
    threshold ``gamma_c`` is set so that ``q_-`` equals the ideal ``q``.

    The server's law: ``<J, u>`` has variance exactly ``s_eff^2 = s^2 +
    1/12`` (Sheppard) and is Gaussian to within far below the Monte Carlo
    error of any test; ``design`` is that of PrivUnitG with weight ``L`` and
    threshold ``gamma_c / s_eff``, in units of ``s_eff``.
    """
    D = _check_dimension(n_dims)
    if D >= 10**6:
        raise ValueError("n_dims must be below 10**6.")
    requested = check_epsilon(epsilon)
    norm_slack = 1e-9
    s = float(scale)
    slack = 0.5 * math.sqrt(D) * (1.0 + norm_slack) + 1.01 * D * 2.0**-53 * math.sqrt(
        D
    ) * max_abs_cell * (1.0 + norm_slack)
    total_tv = D * float(tv_bound)
    design_eps = requested
    for _ in range(50):
        ideal = privunit_design(D, design_eps, budget_split, "gaussian")
        if ideal.q + total_tv >= 0.5:
            raise ValueError(
                "budget_split leaves no budget to the cap (epsilon_1 = 0); "
                "use a split below 1."
            )
        weight = ideal.mixture_weight
        gamma_c = s * (1.0 - norm_slack) * float(-ndtri(ideal.q + total_tv)) - slack
        q_low = float(ndtr(-(gamma_c + slack) / (s * (1.0 - norm_slack)))) - total_tv
        provided = math.log1p((1.0 - weight) / (weight * q_low))
        if provided <= requested:
            break
        design_eps -= 2.0 * (provided - requested) + 1e-15 * requested
    else:  # pragma: no cover - the first correction always suffices
        raise RuntimeError("Could not calibrate the lattice PrivUnitG.")
    s_eff = math.sqrt(s * s + 1.0 / 12.0)
    gamma = gamma_c / s_eff
    cap, total = _gaussian_cap_moments(gamma)
    q_actual = float(cap[0])
    moments = weight * total + (1.0 - weight) * cap / q_actual
    p_actual = weight * q_actual + 1.0 - weight
    law = PrivUnitDesign(
        "gaussian",
        D,
        math.log(p_actual * (1.0 - q_actual) / ((1.0 - p_actual) * q_actual)),
        p_actual,
        q_actual,
        gamma,
        moments,
    )
    return LatticePrivUnitG(provided, weight, gamma_c, q_low, law)


def design_moment_variance(design, x=None, *, reports="one"):
    """Per-user (mean, second-moment) variance of the embedded estimates of ``design``.

    ``design`` is a :class:`PrivUnitDesign` on ``R^(d+1)``; ``x`` of length
    ``d`` or None (worst case). See :func:`privunit_moment_variance`.
    """
    if x is None:
        return _worst_case_by_norm(lambda w: _privunit_at_w(design, w, reports))
    x = _check_x(x, design.n_dims - 1)
    return _privunit_at_w(design, float(x @ x), reports)
