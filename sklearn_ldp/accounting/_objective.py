"""Calibration of approximate minima perturbation (central DP, replace-one).

The mechanism (Iyengar, Near, Song, Thakkar, Thakurta and Wang, "Towards
Practical Differentially Private Convex Optimization", IEEE S&P 2019,
approximate minima perturbation; after the objective perturbation of Kifer,
Smith and Thakurta, "Private Convex Empirical Risk Minimization and
High-dimensional Regression", COLT 2012, with Gaussian noise, and of
Chaudhuri, Monteleoni and Sarwate, JMLR 2011) on ``n`` rows with ``||x|| <=
R`` and a margin loss ``f(y x^T w)``, with its privacy proof redone here for
replace-one neighbours (the constants below are derived in this docstring,
not copied: the papers' statements differ in the Jacobian and noise terms,
see the notes in parentheses):

1. draw ``b ~ N(0, sigma^2 I_p)`` and minimize (sum form)
   ``n J(w) = sum_i f(y_i x_i^T w) + Lambda/2 ||w||^2 + b^T w``;
2. release ``w~ + N(0, sigma_out^2 I_p)`` for any ``w~`` with
   ``||grad J(w~)|| <= gamma`` (mean form, ``J`` above divided by ``n``).

The loss must be convex, twice continuously differentiable, with
``f' <= 0`` (non-increasing), ``|f'| <= D`` and ``0 <= f'' <= c``:
per-example gradients ``f' y x`` are bounded by ``G = D R`` and per-example
Hessians ``f'' x x^T`` have rank one and norm at most ``beta = c R^2``.
Here is the derivation of the constants this module computes.

**Exact minimizer, (epsilon_1 + epsilon_2, delta_1).** ``J`` is ``Lambda /
n``-strongly convex, so its minimizer ``w*`` is unique and the map ``w* ->
b = -(sum_i grad f_i(w*) + Lambda w*)`` is a C^1 bijection of ``R^p``: the
density of ``w*`` is ``p_b(b_D(w)) |det(H_D(w))|`` with ``H_D = sum_i
grad^2 f_i + Lambda I``. Replace record ``n`` (``D -> D'``) and fix ``w``:

- *Jacobian*: with ``A = sum_{i<n} grad^2 f_i(w) + Lambda I >= Lambda I`` and
  the rank-one ``E = f'' x x^T`` and ``E' = f'' x' x'^T >= 0``: ``det(A + E) / det(A + E')
  <= det(A + E) / det(A) = 1 + f'' x^T A^{-1} x <= 1 + beta / Lambda``
  (matrix determinant lemma; ``det(A + E') >= det(A)``). So the Jacobian
  costs ``epsilon_2 = log(1 + beta / Lambda)``, pointwise, in both
  directions; the ridge this needs is ``Lambda = beta / (e^epsilon_2 - 1)``.
  (Chaudhuri et al. bound the ratio by ``(1 + beta / Lambda)^2``; the
  authors' code of Iyengar et al., ``sunblaze-ucb/dpml-benchmark``, sets
  ``Lambda = r beta / epsilon_2`` with ``r = 2`` "for GLMs". The bound
  above is smaller; it needs rank-one, positive semidefinite per-example
  Hessians, which is why the loss is restricted.)
- *Noise*: ``b_D'(w) = b_D(w) + Delta(w)`` with ``Delta = grad f(w; d_n) -
  grad f(w; d'_n) = t u - t' u'``, ``u = -y x``, ``u' = -y' x'`` fixed
  vectors of norm ``<= G`` and ``t, t' in [0, 1]`` (``f' <= 0`` fixes the
  sign). The log density ratio of the noise, ``(||Delta||^2 + 2 b^T Delta)
  / (2 sigma^2)``, is convex in ``Delta``, so it is at most its value at one
  of the vertices ``u``, ``-u'``, ``u - u'`` (or 0). At a fixed vertex
  ``v`` it is the privacy loss of the Gaussian mechanism with sensitivity
  ``||v||``. Hence ``int (p_D - e^{epsilon_1 + epsilon_2} p_D')_+ <=
  E_b[max_v (1 - e^{epsilon_1 - L_v(b)})_+] <= sum_v delta_G(||v||)``:
  ``delta_1 = delta_G(2G) + 2 delta_G(G)`` with ``delta_G`` the exact
  privacy profile of the Gaussian mechanism at ``epsilon_1`` (Balle and
  Wang 2018; :func:`analytic_gaussian_delta`); the calibration below
  solves it for ``sigma``. It is checked against the exact density of the
  minimizer in one dimension in ``tests/test_dp_objective.py``.

**Approximate minimizer, + (epsilon_3, delta_2).** ``||grad J(w~)|| <=
gamma`` and ``Lambda / n``-strong convexity give ``||w~ - w*|| <= n gamma /
Lambda``. Release ``(w*, w~ + Z)`` as the adaptive composition of ``w*`` and,
given ``w*`` (which fixes ``b`` for each data set), ``w~ + Z``: two data
sets give two points ``w~`` within ``n gamma / Lambda`` of the same ``w*``,
so the second release has l2-sensitivity ``2 n gamma / Lambda`` and
``Z ~ N(0, sigma_out^2 I)`` calibrated to it at ``(epsilon_3, delta_2)``
makes it DP; the composition is ``(epsilon_1 + epsilon_2 + epsilon_3,
delta_1 + delta_2)``-DP and releasing ``w~ + Z`` alone is post-processing.
(The authors' code charges ``n gamma / Lambda``, half this sensitivity; the
factor is cheap here since ``gamma`` is chosen to make ``sigma_out``
small.)

**Rule (public inputs only).** ``epsilon_3 = 0.02 epsilon``, ``delta_2 =
0.01 delta``. The ridge balances the noise against its bias as
``alpha='auto'`` of DP-SVRG does: ``Lambda / n = c sqrt(p) s data_norm``
with ``s = sigma / n`` the std of the noise on the mean gradient and ``c =
regularization`` (0.1), floored at ``p data_norm^2 / H_max`` (``H_max =
max_horizon``, 3e6; the counterpart of the longest horizon of
:func:`~sklearn_ldp.accounting._dp_svrg.auto_gd_schedule`). Both constants
were set on the ``breast_cancer`` and ``digits_binary`` populations of
``benchmarks/bench_dp_svrg.py``: at ``n = 10^6`` the exact *non-private*
minimizer of this objective (intercept penalized too) scored, over seeds 0
to 2, 0.9877 / 0.9869 / 0.9857 on breast cancer (31 weights) at ridges
1e-5 / 3e-5 / 6e-5, and 0.8815 / 0.8830 / 0.8871 / 0.8800 / 0.8675 on
digits (65 weights) at 1e-6 / 1e-5 / 3e-5 / 1e-4 / 3e-4 (2e-5: 0.8891 and
0.8870 on seeds 0 and 1); ``p / 3e6`` gives 1.0e-5 and 2.2e-5. Then
``epsilon_2 = log(1 + beta / Lambda)`` and ``epsilon_1 = epsilon -
epsilon_2 - epsilon_3``. As ``sigma`` depends on
``epsilon_1`` the split is the root of ``epsilon_1 + epsilon_2(epsilon_1)
= epsilon - epsilon_3`` (increasing in ``epsilon_1``: one root), with
``epsilon_2 <= (epsilon - epsilon_3) / 2`` (where the root would need more,
``epsilon_1 = epsilon_2`` and ``Lambda = beta / (e^epsilon_2 - 1)``). An
explicit ridge ``alpha`` gives ``Lambda = n alpha`` (at least the ridge of
``epsilon_2 = (epsilon - epsilon_3) / 2``). The output noise is set to
``kappa`` (1) times the smallest effect of the objective noise on the
weights, ``sigma_out = kappa s / (beta + Lambda / n)`` (``beta + Lambda / n``
bounds the curvature of ``J``; along the flat directions, which carry
most of the error, the objective noise moves the weights by up to ``s /
(Lambda / n)``, far more), which fixes ``gamma = sigma_out Lambda / (2 n
z_3)``, ``z_3`` the Gaussian multiplier of ``(epsilon_3, delta_2)``: about
1e-12 at ``n = 10^6``, which the extended-precision check of
:func:`~sklearn_ldp.optim.minimize_to_tolerance` certifies.
"""

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq

from ..utils import check_delta, check_epsilon
from ._gaussian import analytic_gaussian_delta, analytic_gaussian_sigma

#: Shares of the budget for the output perturbation.
OBJECTIVE_OUTPUT_EPSILON_SHARE = 0.02
OBJECTIVE_OUTPUT_DELTA_SHARE = 0.01
#: ``c`` of the ridge ``Lambda / n = c sqrt(p) s data_norm``.
OBJECTIVE_REGULARIZATION = 0.1
#: Longest horizon, in units of ``1 / (p data_norm^2)``: the ridge is never
#: weaker than ``p data_norm^2 / OBJECTIVE_MAX_HORIZON``.
OBJECTIVE_MAX_HORIZON = 3e6
#: ``kappa``: output noise std over the smallest effect of the objective noise.
OBJECTIVE_OUTPUT_NOISE_RATIO = 1.0


@dataclass(frozen=True)
class ObjectivePerturbation:
    """The calibration of one approximate-minima-perturbation release.

    Every field is a function of public quantities.

    Attributes
    ----------
    sigma : float
        Std of the noise ``b`` on the *summed* objective gradient.
    ridge : float
        ``Lambda``: the l2 term ``Lambda / 2 ||w||^2`` of the summed
        objective (every weight, the intercept included).
    tolerance : float
        ``gamma``: the mean objective's gradient norm the released
        minimizer must reach.
    output_sigma : float
        Std of the Gaussian noise added to the approximate minimizer.
    epsilon_noise, epsilon_jacobian, epsilon_output : float
        ``epsilon_1``, ``epsilon_2``, ``epsilon_3``.
    delta_noise, delta_output : float
        ``delta_1``, ``delta_2``.
    epsilon, delta : float
        The guarantee of the release: the sums.
    """

    sigma: float
    ridge: float
    tolerance: float
    output_sigma: float
    epsilon_noise: float
    epsilon_jacobian: float
    epsilon_output: float
    delta_noise: float
    delta_output: float
    epsilon: float
    delta: float


def objective_noise_delta(sigma, epsilon, gradient_bound):
    """``delta_1`` of the noise term: ``delta_G(2G) + 2 delta_G(G)`` at ``epsilon``.

    The union over the three vertices of the gradient difference of a
    replaced record (see the module docstring).

    Examples
    --------
    >>> from sklearn_ldp.accounting import objective_noise_delta
    >>> from sklearn_ldp.accounting import analytic_gaussian_delta
    >>> d = objective_noise_delta(2.0, 1.0, 1.0)
    >>> bool(d > analytic_gaussian_delta(2.0, 1.0, 2.0))
    True
    """
    G = float(gradient_bound)
    return analytic_gaussian_delta(sigma, epsilon, 2.0 * G) + 2.0 * (
        analytic_gaussian_delta(sigma, epsilon, G)
    )


def objective_noise_sigma(epsilon, delta, gradient_bound):
    """Smallest ``sigma`` with :func:`objective_noise_delta` ``<= delta``.

    Examples
    --------
    >>> from sklearn_ldp.accounting import objective_noise_sigma
    >>> from sklearn_ldp.accounting import analytic_gaussian_sigma
    >>> from sklearn_ldp.accounting import objective_noise_delta
    >>> sigma = objective_noise_sigma(1.0, 1e-6, 1.0)
    >>> bool(objective_noise_delta(sigma, 1.0, 1.0) <= 1e-6)
    True

    At least the noise of the largest vertex alone; equal when the root
    found for it leaves room for the other two vertices' ``delta_G(G)``
    (about ``3 x 10^-19`` here, below the root's tolerance).

    >>> bool(analytic_gaussian_sigma(1.0, 1e-6, 2.0) <= sigma)
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    G = float(gradient_bound)
    # delta_G(G) <= delta_G(2G): 3 delta_G(2G) <= delta is enough, 1 is needed.
    largest = analytic_gaussian_sigma(epsilon, delta, 2.0 * G)
    lo = np.log(largest)
    hi = np.log(analytic_gaussian_sigma(epsilon, delta / 3.0, 2.0 * G))
    if objective_noise_delta(largest, epsilon, G) <= delta:
        # The root found for the largest vertex left room for the others
        # (not exp(log(sigma)), which may come back an ulp below it).
        return float(largest)
    log_sigma = brentq(
        lambda t: objective_noise_delta(np.exp(t), epsilon, G) - delta,
        lo,
        hi,
        xtol=1e-14,
        rtol=1e-14,
    )
    sigma = float(np.exp(log_sigma))
    while objective_noise_delta(sigma, epsilon, G) > delta:
        sigma *= 1.0 + 1e-12
    return sigma


def calibrate_objective_perturbation(
    n_samples,
    n_weights,
    epsilon,
    delta,
    *,
    gradient_bound,
    smoothness,
    data_norm,
    alpha=None,
    regularization=OBJECTIVE_REGULARIZATION,
    max_horizon=OBJECTIVE_MAX_HORIZON,
    output_noise_ratio=OBJECTIVE_OUTPUT_NOISE_RATIO,
    output_epsilon_share=OBJECTIVE_OUTPUT_EPSILON_SHARE,
    output_delta_share=OBJECTIVE_OUTPUT_DELTA_SHARE,
):
    """Split ``(epsilon, delta)`` and set the ridge, noises and tolerance.

    See the module docstring for the derivation and the rule.

    Parameters
    ----------
    n_samples, n_weights : int
        Rows ``n`` and weights ``p`` (intercept included).
    epsilon, delta : float
        The guarantee of the release (replace-one).
    gradient_bound : float
        ``G``: bound on every per-example gradient norm.
    smoothness : float
        ``beta``: bound on every per-example Hessian norm (rank one).
    data_norm : float
        Public bound on ``||x||`` (without the intercept column), for the
        ridge rule.
    alpha : float or None, default=None
        Explicit ridge ``Lambda / n`` (None: the rule).
    regularization, max_horizon, output_noise_ratio : float
        ``c``, ``H_max`` and ``kappa`` of the rule.
    output_epsilon_share, output_delta_share : float
        Shares of ``epsilon`` and ``delta`` for the output perturbation.

    Returns
    -------
    calibration : ObjectivePerturbation

    Examples
    --------
    >>> from sklearn_ldp.accounting import calibrate_objective_perturbation
    >>> cal = calibrate_objective_perturbation(10_000, 31, 1.0, 1e-7,
    ...     gradient_bound=1.42, smoothness=0.5, data_norm=1.0)
    >>> total = cal.epsilon_noise + cal.epsilon_jacobian + cal.epsilon_output
    >>> abs(total - 1.0) < 1e-9, cal.delta_noise + cal.delta_output <= 1e-7
    (True, True)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    return _calibrate_cached(
        int(n_samples),
        int(n_weights),
        epsilon,
        delta,
        float(gradient_bound),
        float(smoothness),
        float(data_norm),
        None if alpha is None else float(alpha),
        float(regularization),
        float(max_horizon),
        float(output_noise_ratio),
        float(output_epsilon_share),
        float(output_delta_share),
    )


@lru_cache(maxsize=256)
def _calibrate_cached(
    n,
    p,
    epsilon,
    delta,
    G,
    beta,
    data_norm,
    alpha,
    regularization,
    max_horizon,
    output_noise_ratio,
    output_epsilon_share,
    output_delta_share,
):
    eps_out = output_epsilon_share * epsilon
    delta_out = output_delta_share * delta
    delta_noise = delta - delta_out
    eps_obj = epsilon - eps_out

    def sigma_of(eps_noise):
        return objective_noise_sigma(eps_noise, delta_noise, G)

    def ridge_of(eps_noise):
        if alpha is not None:
            return n * alpha
        # n max(c sqrt(p) s data_norm, p data_norm^2 / H_max), s = sigma / n
        balance = regularization * np.sqrt(p) * sigma_of(eps_noise) * data_norm
        return max(balance, n * p * data_norm**2 / max_horizon)

    def excess(eps_noise):
        ridge = ridge_of(eps_noise)
        return eps_noise + (np.log1p(beta / ridge) if ridge > 0 else np.inf) - eps_obj

    half = eps_obj / 2.0
    if excess(half) >= 0:
        # The balance would spend more than half on the Jacobian: cap it.
        eps_noise = half
        ridge = max(ridge_of(half), beta / np.expm1(half))
    else:
        eps_noise = brentq(excess, half, eps_obj, xtol=1e-13, rtol=1e-13)
        ridge = ridge_of(eps_noise)
    eps_jacobian = float(np.log1p(beta / ridge))
    # Round-off of the root: give it to the noise term, never to the total.
    eps_noise = min(eps_noise, eps_obj - eps_jacobian)
    sigma = sigma_of(eps_noise)
    z_out = analytic_gaussian_sigma(eps_out, delta_out, 1.0)
    mean_noise = sigma / n
    output_sigma = output_noise_ratio * mean_noise / (beta + ridge / n)
    # Sensitivity of the output release: 2 n gamma / Lambda.
    tolerance = output_sigma * ridge / (2.0 * n * z_out)
    return ObjectivePerturbation(
        sigma=float(sigma),
        ridge=float(ridge),
        tolerance=float(tolerance),
        output_sigma=float(output_sigma),
        epsilon_noise=float(eps_noise),
        epsilon_jacobian=eps_jacobian,
        epsilon_output=float(eps_out),
        delta_noise=float(delta_noise),
        delta_output=float(delta_out),
        epsilon=float(eps_noise + eps_jacobian + eps_out),
        delta=float(delta_noise + delta_out),
    )
