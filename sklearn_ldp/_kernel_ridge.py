"""Kernel ridge regression under non-interactive LDP (Zheng et al. 2017, Algorithm 4).

Each user maps ``x`` through a *public* random Fourier feature map ``phi``
(:class:`~sklearn_ldp.randomizers.RandomFourierFeatures`, ``m`` features,
``||phi(x)|| <= sqrt(2)``), clips ``y`` to the public
``[-y_bound, y_bound]`` and sends one report of the pair: by default one
pure-epsilon PrivUnitG report
(:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer`), or, as the
seed prints, ``z = phi(x) + N(0, sigma_x^2 I_m)`` and ``v = y + N(0,
sigma_y^2)``. The server only needs ``Z^T Z``, ``Z^T v`` and ``n`` (of the
Gaussian-equivalent pseudo-reports for PrivUnitG): it accumulates them in
one pass, chunk by chunk (memory ``O(m^2)`` whatever ``n``; the same sums
from a report stream, Dask partitions or ``partial_fit`` batches), debiases
the Gram matrix, projects it on the PSD cone and solves a ridge system in the
random-feature space. From the same per-fold sums it checks, on held-out
reports, that the model predicts better than the noisy mean of ``y``
(ALGORITHMS.md section 7), and falls back to that mean otherwise. What users
send (random features, plain ``(x, y)``, or a budget spent on ``y`` when no
model can be learned) is chosen from public quantities before
they report (``linear_features='auto'``).
"""

import math
from functools import partial
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils import gen_batches
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import validate_data

from ._base import (
    LDPEstimatorMixin,
    LDPRegressorMixin,
    PublicFeatureMapMixin,
    ldp_tags,
    warn_if_large_delta,
)
from ._linear import (
    JOINT_MECHANISMS,
    LinearRegressorOutputMixin,
    choose_pair_mechanism,
    paper_mode_keeps_gaussian,
)
from .aggregation import Candidate, Moments, debiased_cv_risk
from .aggregation._ridge import (
    StreamedFoldedMoments,
    centred_ridge,
    james_stein_ridge,
    select_model_or_constant,
)
from .aggregation._selection import constant_only_results, gram_noise_scale
from .aggregation._sufficient import (
    TargetEstimateSums,
    pair_report_sums,
)
from .randomizers import (
    GaussianRecordRandomizer,
    LinearAndFourierFeatures,
    PrivUnitGRecordRandomizer,
    RandomFourierFeatures,
    TargetMeanRandomizer,
    check_client_random_state,
)
from .randomizers._feature_maps import KERNELS
from .randomizers._gaussian import released_width
from .randomizers._target_mean import min_users_for_a_model

#: Upper limit of ``n_components='auto'``: the server holds and
#: eigen-decomposes an ``m x m`` matrix; beyond a few hundred features the
#: noise added per feature outweighs the kernel approximation gained (see
#: the benchmark), and each report costs ``m`` floats.
MAX_AUTO_COMPONENTS = 300

#: ``alpha='auto'`` picks the grid value with the least debiased
#: ``N_FOLDS``-fold cross-validated loss (the report at stream position
#: ``p`` is in fold ``p mod N_FOLDS``).
AUTO_ALPHAS = np.logspace(-5, 3, 17)
N_FOLDS = 5
#: ... minimizing the estimated loss plus this many standard errors with
#: random features (hundreds of weights: an ``alpha`` whose estimate is only
#: noise must not win).
CV_STD_ERRORS = 1.0
#: With plain (x, y) reports (``d`` weights) ``alpha='auto'`` is this many
#: times :func:`~sklearn_ldp.aggregation._selection.gram_noise_scale`,
#: ``sigma_x^2 sqrt(d / n)``, the debiased Gram matrix's operator-norm error
#: (public), and the model is :func:`~sklearn_ldp.aggregation._ridge.james_stein_ridge`.
#: Measured (issue 16, held-out R^2 on the same reports, 10 draws, ridge
#: without the shrinkage against the constant by held-out risk): factor 1
#: against 2 (the debiased least-squares baseline's) 0.248 against 0.164 on
#: ``nonlinear_5d`` (``2 x 10^5`` users, epsilon 2), 0.661 against 0.502
#: (epsilon 4), 0.800 against 0.754 (epsilon 8), 0.407 against 0.379 on
#: ``diabetes`` (``2 x 10^5``, epsilon 8); the held-out risks over a grid
#: (the former rule) were too noisy at ``n`` where the Gram's error exceeds
#: the features' variance (standard errors 0.35 Var(y) for every penalty on
#: ``nonlinear_5d`` at epsilon 2) and chose penalties from 1 to 1000.
PLAIN_ALPHA_FACTOR = 1.0
#: Penalties of the linear-part candidates (features ``x / data_norm``,
#: whose second moments are of order ``1 / d``).
LINEAR_ALPHAS = np.logspace(-4, 2, 7)
#: Level of the test "``y`` uncorrelated with the features" below which the
#: model competes with the constant (twice the regression default,
#: :data:`~sklearn_ldp.aggregation._ridge.SIGNAL_LEVEL`). With plain
#: ``(x, y)`` reports on ``diabetes_5d`` (20,000 users, epsilon 8) the
#: p-values were 0.098, 0.22 and 0.065 where the ridge model scored R^2
#: 0.34, 0.09 and 0.29 and the constant 0; on the benchmark's 63 draws with
#: joint reports (3 seeds, before the ``d^2 u^4`` collection rule), the 4
#: with p-values in (0.05, 0.1] had a model better than the constant (R^2
#: gains 0.011 to 0.34), and the two models worse than it by more than 0.1
#: of R^2 had p-values 0.26 and 0.80. Random features only: with plain
#: ``(x, y)`` reports the model shrinks towards the constant instead
#: (:func:`~sklearn_ldp.aggregation._ridge.james_stein_ridge`), since at
#: this level the test kept the constant in 17 of 20 draws of
#: ``nonlinear_5d`` (``2 x 10^5`` users, epsilon 2: R^2 0.031 against
#: debiased least squares' 0.141; issue 16).
SIGNAL_LEVEL = 0.1
#: Planning assumption of ``linear_features='auto'``
#: (:func:`predicted_collection_risks`): the share of ``y_bound^2`` that the
#: target carries beyond its linear part, in the kernel's degree-2
#: directions. What users send must be fixed before they report, so the
#: rule plans for an assumed non-linearity, as a power analysis assumes an
#: effect size. A tenth of the largest variance the bound allows: the
#: benchmark's ``nonlinear_5d`` has 0.022 there (its ``0.5 x3^2``; ``y``'s
#: variance is 0.44); on ``diabetes_5d`` non-private random features
#: explain 0.073 more of ``Var(y)`` than a linear fit, of every degree
#: together (0.567 against 0.494, ``docs/benchmarks/real_gap.md``). With the former rule
#: (random features once their ``m`` could resolve a degree-2 direction at
#: all) random features lost to least squares on the same kind of reports
#: in every cell of the benchmark where they were sent (issue 16).
#: Users who expect a stronger non-linear part send random features with
#: ``linear_features=False``.
NONLINEAR_SHARE = 0.1
#: ``alpha='auto'`` with fewer than two users (no fold can be held out).
_FALLBACK_ALPHA = 0.1

#: Tag of the public feature seed derived from an integer ``random_state``
#: (:func:`~sklearn_ldp.utils.public_seed`): the public frequencies never
#: share a random stream with the users' noise.
_FEATURE_SEED_TAG = 0x52FF


def auto_n_components(n_features, n_users, epsilon):
    """Seed 003's ``d_p = sqrt(d n epsilon^2)`` (Corollary 2), capped.

    Rounded up, at least 1 and at most :data:`MAX_AUTO_COMPONENTS`.

    Examples
    --------
    >>> from sklearn_ldp._kernel_ridge import auto_n_components
    >>> auto_n_components(2, 1000, 1.0), auto_n_components(5, 100_000, 1.0)
    (45, 300)
    """
    d_p = math.ceil(math.sqrt(n_features * n_users) * epsilon)
    return int(min(max(d_p, 1), MAX_AUTO_COMPONENTS))


def noise_aware_n_components(n_users, sigma_x):
    """Number of random features balancing signal and the reports' noise.

    With ``m`` features of norm at most ``sqrt(2)`` the clean Gram matrix
    ``Phi^T Phi / n`` has eigenvalues of order ``1 / m``, while the debiased
    noisy Gram ``(Z^T Z - n sigma_x^2 I) / n`` errs by about
    ``sigma_x^2 sqrt(m / n)`` in operator norm. The two are equal at
    ``m ~ (n^(1/2) / sigma_x^2)^(2/3) = n^(1/3) sigma_x^(-4/3)``; beyond that
    the added features are mostly noise. The constant 3 in front was set
    from a sweep on the benchmark's synthetic data (n = 1e5, eps = 4 and 8,
    3 seeds, m in 3..45): test MSE is flat for m between about 12 and 45 and
    worse below 10 and at 300 (the seed's rule). Rounded down, at least 2 and
    at most :data:`MAX_AUTO_COMPONENTS`.

    Examples
    --------
    >>> from sklearn_ldp._kernel_ridge import noise_aware_n_components
    >>> noise_aware_n_components(100_000, 4.3), noise_aware_n_components(10**6, 4.0)
    (19, 47)
    """
    m = math.floor(3.0 * float(np.cbrt(n_users)) * sigma_x ** (-4.0 / 3.0))
    return int(min(max(m, 2), MAX_AUTO_COMPONENTS))


def rbf_eigenvalue(n_features, gamma, data_norm, degree):
    """Eigenvalue of the rbf kernel's directions of total degree ``degree``.

    The reference: ``x ~ N(0, data_norm^2 / n_features I)``, records spread
    in every direction with ``E ||x||^2 = data_norm^2`` (at the declared
    bound on average, the most spread the bound allows). Under it the
    kernel ``exp(-gamma ||x - x'||^2)`` has closed-form eigenvalues
    (Mehler's formula; Rasmussen and Williams 2006, section 4.3.1): per
    coordinate ``lambda_k = sqrt(2 a / A) B^k`` with ``a = 1 / (4 s^2)``,
    ``s^2 = data_norm^2 / n_features``, ``c = sqrt(a^2 + 2 a gamma)``,
    ``A = a + gamma + c`` and ``B = gamma / A``; a direction of total degree
    ``k`` (a Hermite product) has ``lambda_0^(n_features) B^k``, and the
    eigenvalues sum to ``k(x, x) = 1``. The constant (``k = 0``) is the
    intercept's, ``k = 1`` are the ``n_features`` linear directions and
    ``k = 2`` the ``n_features (n_features + 1) / 2`` first non-linear ones.
    A model with an intercept sees the centred kernel: its degree-2
    eigenvalues are at least these (the products of two coordinates are
    orthogonal to the constant and keep them exactly; centring raises the
    others, by interlacing).

    Examples
    --------
    >>> from sklearn_ldp._kernel_ridge import rbf_eigenvalue
    >>> round(rbf_eigenvalue(1, 1.0, 1.0, 2), 4)
    0.125
    >>> round(rbf_eigenvalue(5, 1.0, 1.0, 1), 4), round(1 / rbf_eigenvalue(5, 1.0, 1.0, 2), 1)
    (0.0616, 69.2)
    """
    variance = float(data_norm) ** 2 / n_features
    a = 1.0 / (4.0 * variance)
    c = math.sqrt(a * a + 2.0 * a * gamma)
    big_a = a + gamma + c
    return math.sqrt(2.0 * a / big_a) ** n_features * (gamma / big_a) ** degree


def ridge_direction_risk(energy, eigenvalue, alpha, noise):
    """Predicted squared risk of debiased ridge along one feature direction.

    Along an eigendirection whose features have second moment ``lambda``
    (``eigenvalue``) and whose part of the target has variance ``e``
    (``energy``, so its coefficient is ``w = sqrt(e / lambda)``), ridge at
    penalty ``alpha`` estimates ``w`` by ``c_hat / (lambda + alpha)`` from
    the debiased cross moment ``c_hat``, unbiased for ``lambda w`` with
    variance ``noise``. Its squared error, weighted by ``lambda``, is the
    shrinkage bias ``e (alpha / (lambda + alpha))^2`` plus the variance
    ``noise lambda / (lambda + alpha)^2``. The debiased Gram matrix's own
    error is what ``alpha`` at its noise scale
    (:func:`~sklearn_ldp.aggregation._selection.gram_noise_scale`) holds
    down; it is not counted again.

    Examples
    --------
    >>> from sklearn_ldp._kernel_ridge import ridge_direction_risk
    >>> ridge_direction_risk(1.0, 1.0, 0.0, 0.01)  # unpenalized: the variance
    0.01
    >>> ridge_direction_risk(1.0, 1.0, 1.0, 0.0)  # a quarter of e is left
    0.25
    """
    scale = eigenvalue + alpha
    return energy * (alpha / scale) ** 2 + noise * eigenvalue / scale**2


def predicted_collection_risks(
    n_features,
    n_users,
    n_components,
    gamma,
    data_norm,
    y_bound,
    plain_noise,
    feature_noise,
    nonlinear_share=None,
):
    """Predicted squared risks of plain ``(x, y)`` reports and of random features.

    The public planning target (issue 16: public choices minimize a
    predicted error, variance plus approximation bias): ``Var(y) =
    y_bound^2`` (the bound's worst case, as
    :func:`~sklearn_ldp.randomizers._target_mean.min_users_for_a_model`), a
    share ``rho`` (:data:`NONLINEAR_SHARE`) of it spread evenly over the
    rbf kernel's degree-2 directions (the first a linear model misses,
    :func:`rbf_eigenvalue`) and the rest evenly over the ``d`` linear
    directions, under the reference law ``N(0, data_norm^2 / d I)``. Each
    candidate is debiased ridge at its Gram matrix's noise scale
    ``sigma_x^2 sqrt(p / n)`` (``p = d`` or ``m``), scored direction by
    direction (:func:`ridge_direction_risk`) with cross-moment variance
    ``((lambda + sigma_x^2)(y_bound^2 + sigma_y^2) + lambda e) / n`` (that
    of the product of two jointly Gaussian reports):

    - plain ``(x, y)`` (noise ``plain_noise = (sigma_x, sigma_y)``, ``x``
      in its own units): ``d`` linear directions of second moment
      ``data_norm^2 / d``, and the whole degree-2 part ``rho y_bound^2`` as
      bias;
    - ``m`` random features (``feature_noise``, features with ``E
      ||phi||^2 = 1``): the ``d`` linear directions at the kernel's
      degree-1 eigenvalue (3.2 times smaller than plain ``x``'s in 5
      dimensions in the unit ball: the kernel spreads its unit trace over
      every degree) and the degree-2 directions at the degree-2 one.

    Parts of degree 3 and more are missed by both in this account (their
    eigenvalues are smaller still). Returns ``(plain_risk,
    random_features_risk)``, in units of ``y``'s square.

    Examples
    --------
    >>> from sklearn_ldp._kernel_ridge import predicted_collection_risks
    >>> plain, rff = predicted_collection_risks(
    ...     5, 200_000, 211, 1.0, 1.0, 1.0, (0.62, 0.62), (0.87, 0.87))
    >>> round(plain, 3), round(rff, 3)
    (0.1, 0.11)
    """
    rho = NONLINEAR_SHARE if nonlinear_share is None else float(nonlinear_share)
    d = int(n_features)
    n = float(n_users)
    signal = float(y_bound) ** 2
    n_quadratic = d * (d + 1) // 2
    linear_energy = (1.0 - rho) * signal / d
    quadratic_energy = rho * signal / n_quadratic

    def direction(energy, eigenvalue, n_numbers, noise):
        sigma_x, sigma_y = noise
        alpha = gram_noise_scale(sigma_x, n_numbers, n)
        # Var(z v) of jointly Gaussian z, v: Var z Var v + Cov(z, v)^2.
        variance = (
            (eigenvalue + sigma_x**2) * (signal + sigma_y**2) + eigenvalue * energy
        ) / n
        return ridge_direction_risk(energy, eigenvalue, alpha, variance)

    plain = d * direction(linear_energy, float(data_norm) ** 2 / d, d, plain_noise)
    plain += rho * signal
    features = d * direction(
        linear_energy, rbf_eigenvalue(d, gamma, data_norm, 1), n_components, feature_noise
    ) + n_quadratic * direction(
        quadratic_energy,
        rbf_eigenvalue(d, gamma, data_norm, 2),
        n_components,
        feature_noise,
    )
    return float(plain), float(features)


class KernelRidgeLDP(
    PublicFeatureMapMixin,
    LDPRegressorMixin,
    LinearRegressorOutputMixin,
    RegressorMixin,
    BaseEstimator,
):
    """Kernel ridge regression from locally private random Fourier features.

    Each user sends its random Fourier features and its target, randomized
    once; the server fits ridge regression in the random-feature space from
    debiased sufficient statistics (seed 003, Algorithm 4). The seed's
    report is a Gaussian release, (epsilon, delta)-LDP; by default
    (``mechanism='auto'``) users send one pure-epsilon PrivUnitG report of
    the same pair, which the server reads as a Gaussian release of the same
    second moments with 2.7 to 3.7 times less noise (see Notes). With
    a declared ``data_norm``, where the random features the budget allows
    could resolve no more than a linear function of ``x``, users send plain
    ``(x, y)`` instead (``linear_features='auto'``, see Notes).

    The fitted model minimizes, over ``w`` in ``R^m`` (and an unpenalized
    intercept ``b``), an unbiased estimate of
    ``1/(2n) sum_i (w^T phi(x_i) + b - y_i)^2 + alpha/2 ||w||^2``, made convex
    by projecting the debiased (centred) Gram matrix onto the PSD cone: it
    solves ``(Q/n + alpha I) w = Z^T v / n`` with
    ``Q = Proj_PSD(Z^T Z - n sigma_x^2 I)`` (both centred with the noisy
    means when ``fit_intercept``). ``alpha`` multiplies the *mean* loss (the
    seed's ``C`` is ``1/alpha``), so without intercept the non-private
    equivalent is ``sklearn.kernel_ridge.KernelRidge(alpha=n * alpha)`` with
    the same kernel and ``gamma``.

    Do no harm: the server then compares, by 5-fold cross-validation on the
    reports, the held-out squared risk of this model with that of the
    intercept-only model (the noisy mean of ``y``), both unbiased (the noise
    levels are known, ALGORITHMS.md section 7); the mean is used only when
    it is better by more than one paired standard error, or, with random
    features, when the chi-square test of "``y`` uncorrelated with the
    features" does not reject at level :data:`SIGNAL_LEVEL`
    (:func:`~sklearn_ldp.aggregation._ridge.select_model_or_constant`).
    With plain ``(x, y)`` reports no test decides: the model's cross moment
    is shrunk towards 0 by positive-part James-Stein with that test's
    statistic (:func:`~sklearn_ldp.aggregation._ridge.james_stein_ridge`),
    so a weak signal gives a small model rather than none (see Notes, item
    3). Post-processing: no privacy cost.

    Streaming: the server is one pass over the reports (per fold, the sums
    of ``[z, 1] [z, 1]^T``, ``[z, 1] v`` and ``v^2``; the report at
    stream position ``p`` is in fold ``p mod 5``); ``fit_reports`` accepts
    a report stream (``sklearn_ldp.read_reports``) with memory bounded by
    the chunk size, on Dask with ``backend='dask'``, and ``partial_fit``
    adds batches.

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget.
    delta : float, default=1e-5
        Per-user delta, in ``(0, 1)``.
    alpha : float or 'auto', default='auto'
        Ridge penalty on the mean squared loss (``> 0``). The noise in the
        debiased Gram matrix has spectral norm about
        ``2 sigma_x^2 sqrt(m / n)``, and an ``alpha`` far below it fits the
        noise. ``'auto'`` with random features chooses from
        :data:`AUTO_ALPHAS` by 5-fold cross-validation on the reports: the
        held-out loss is debiased for the known noise, floored at 0 and
        increased by one standard error (computed from the public noise
        levels), so that an ``alpha`` whose estimate is only noise is never
        chosen. With plain ``(x, y)`` reports (``d`` weights) ``'auto'`` is
        the public noise scale ``sigma_x^2 sqrt(d / n)``
        (:data:`PLAIN_ALPHA_FACTOR`), where the held-out losses of a grid
        were too noisy to choose from. Post-processing: no privacy cost.
    fit_intercept : bool, default=True
        Fit an unpenalized intercept ``b``. The constant carries no private
        information: the server centres the debiased statistics with the
        exact count and the noisy sums. Without it the fallback model is
        the constant 0.
    kernel : {'rbf', 'laplacian'}, default='rbf'
        Shift-invariant kernel: ``exp(-gamma ||x - x'||_2^2)`` or
        ``exp(-gamma ||x - x'||_1)``.
    gamma : float or None, default=None
        Kernel parameter. ``None``: ``1 / data_norm^2`` for the rbf kernel
        when ``data_norm`` is declared (the kernel's scale for records in
        that ball), else ``1 / n_features`` (as in
        :class:`~sklearn.kernel_ridge.KernelRidge`, the scale of
        standardized features). Public: never from data.
    n_components : int or 'auto', default='auto'
        Number of random features ``m``. ``'auto'``:
        ``floor(3 n_users^(1/3) sigma_x^(-4/3))`` (:func:`noise_aware_n_components`,
        where the debiased Gram's noise reaches the features' signal), at
        most :data:`MAX_AUTO_COMPONENTS`, or 0 when ``linear_features='auto'``
        chooses plain ``(x, y)`` reports; with ``calibration='paper'`` the
        seed's ``ceil(sqrt(n_features * n_users) * epsilon)``, which the
        benchmark found far too large (each feature adds noise). ``0``: no
        random feature, users send plain ``(x, y)`` reports (``x`` clipped to
        ``data_norm``; needs ``data_norm`` and ``linear_features`` True or
        ``'auto'``): the model is debiased ridge on ``x``.
    n_users : int or None, default=None
        Public size of the population the protocol is planned for, used by
        ``n_components='auto'``. The number of features (the random feature
        map) must be fixed *before* users report, so it cannot come from the
        reports. ``None`` means: in ``fit``, the number of rows of ``X``; in
        ``partial_fit``, the number of rows of the first batch; in
        ``fit_reports``, the value recorded in the reports' configuration.
        Population sizes are public in the local model (the server knows
        how many users it asks).
    y_bound : float, default=1.0
        Public bound on ``|y|``; users clip their target to it. Scale targets
        with public constants so that this bound is meaningful.
    data_norm : float or None, default=None
        Optional public l2 bound users clip ``x`` to before the feature map.
        ``None``: no clipping (the features are bounded for every ``x``).
    linear_features : bool or 'auto', default='auto'
        What users send, decided before they report from public quantities.
        ``True``: ``x / data_norm`` next to the random features (needs
        ``data_norm``): the map is
        :class:`~sklearn_ldp.randomizers.LinearAndFourierFeatures`
        (``[x / data_norm, phi(x)]``, norm at most ``sqrt(3)`` instead of
        ``sqrt(2)``, so every coordinate carries 1.22 times the noise), and
        the server chooses on held-out reports between the ridge model on
        every feature, ridge on the ``x`` block alone (penalties
        :data:`LINEAR_ALPHAS`) and the intercept-only model; with
        ``n_components=0`` plain ``(x, y)`` reports. ``False``: the random
        features alone. ``'auto'`` (with ``n_components='auto'``, a declared
        ``data_norm``, the rbf kernel and ``calibration='analytic'``): the
        ``m`` noise-aware random features when their predicted squared
        risk is below that of plain ``(x, y)`` reports
        (:func:`predicted_collection_risks`: debiased ridge, kernel
        direction by kernel direction, on a public planning target with
        :data:`NONLINEAR_SHARE` of ``y_bound^2`` beyond its linear part),
        else plain ``(x, y)`` reports (see Notes);
        otherwise as ``False`` (with an int ``n_components``: plain reports
        only for ``n_components=0``). Public: the choice depends on
        ``n_features``, ``n_users``, ``epsilon``, ``delta``, the bounds,
        ``kernel`` and ``gamma``, never on data.
    calibration : {'analytic', 'paper'}, default='analytic'
        ``'analytic'``: one jointly calibrated report of ``(phi(x), y)``
        (the mechanism of ``mechanism``). ``'paper'``: the Gaussian release
        with ``(epsilon/2, delta/2)`` for each part and the classic formula,
        as the seed prints.
    mechanism : {'auto', 'gaussian', 'privunit'}, default='auto'
        The report of ``calibration='analytic'``. ``'privunit'``: one
        pure-epsilon PrivUnitG report of the pair (epsilon in ``[0.05,
        32]``), read by the server as a Gaussian release of the same second
        moments. ``'gaussian'``: the analytic Gaussian release
        (:class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer`).
        ``'auto'``: PrivUnitG when epsilon is in that range and
        :func:`~sklearn_ldp.accounting.best_moment_mechanism` predicts a
        smaller worst-case second-moment variance per user for it, else
        Gaussian; ``calibration='paper'`` always sends the printed Gaussian
        reports. A choice from public quantities, before anyone reports.
    random_state : int, RandomState instance or None, default=None
        Simulates the users' noise in ``fit``/``partial_fit`` and seeds the
        public random features (:func:`~sklearn_ldp.utils.public_seed`); the
        users simulated by ``partial_fit`` after ``fit_reports`` draw from the
        server's own stream. Each use is an independent stream.

    Attributes
    ----------
    coef_ : ndarray of shape (`n_components_`,) or (n_features + `n_components_`,)
        Weights of the released features (the ``x / data_norm`` block first
        with ``linear_features``; the weights of the clipped ``x`` with plain
        reports, ``n_components_ == 0``; zeros when the constant is chosen).
    intercept_ : float
        The intercept ``b`` (0 without ``fit_intercept``).
    n_components_ : int
        Number of random features used (0: plain ``(x, y)`` reports).
    random_features_ : RandomFourierFeatures, LinearAndFourierFeatures or None
        The public feature map (rebuilt from the reports' configuration);
        None with plain reports.
    linear_features_ : bool
        Whether the reports carry ``x`` (the ``x / data_norm`` block, or
        plain ``x`` when ``n_components_ == 0``): with
        ``linear_features='auto'``, what the public rule chose.
    min_users_for_a_model_ : float
        :func:`min_users_for_a_model` of the reports' noise: with at most
        this many reports the intercept-only model is used.
    sigma_x_, sigma_y_ : float
        Standard deviations of the noise on the features and on ``y`` (for
        the PrivUnitG report, of the Gaussian release with the same second
        moments; target-only reports: inf, and the largest standard
        deviation of one user's estimate of ``y``).
    n_reports_ : int
        Number of user reports aggregated.
    alpha_ : float
        The penalty used (``alpha``, or the one chosen by ``'auto'``; nan
        with ``'auto'`` when users sent ``y`` alone).
    cv_risk_, cv_std_error_ : ndarray of shape (len(AUTO_ALPHAS),)
        With ``alpha='auto'``: the debiased cross-validated loss of each
        penalty of :data:`AUTO_ALPHAS` and its standard error (what
        ``alpha_`` is chosen from with random features; reported only with
        plain reports).
    selected_model_ : {'model', 'linear', 'constant'}
        What the held-out risk chose: the ridge model at ``alpha_``, ridge
        on the ``x / data_norm`` block alone (``linear_features`` only), or
        the intercept-only model (the noisy mean of ``y``, or 0 when that
        mean is within one standard error of 0 or without
        ``fit_intercept``).
    cv_results_ : dict
        One entry per candidate (``'model'`` with its ``alpha``, then
        ``'constant'``): ``candidate``, ``params``, ``mean_risk`` (held-out
        squared risk, debiased), ``std_error`` (over the folds),
        ``split_risks``, ``rank``, ``selected``
        (:func:`~sklearn_ldp.aggregation.select_candidate`), and
        ``signal_p_value`` (the chi-square test of "``y`` uncorrelated with
        the features" that keeps the constant above :data:`SIGNAL_LEVEL`
        with random features; with plain reports reported only), and
        ``models_estimable`` (False when ``n_reports_`` is at most
        `min_users_for_a_model_`: the constant is then selected).
    privacy_epsilon_, privacy_delta_ : float
        The per-user guarantee of the reports.
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
        Only when ``X`` has string column names.

    See Also
    --------
    sklearn.kernel_ridge.KernelRidge : The non-private model.
    sklearn.kernel_approximation.RBFSampler : The random features of ``'rbf'``.

    Notes
    -----
    Algorithm 4 of Zheng, Mou and Wang, *Collect at Once, Use Effectively:
    Making Non-interactive Locally Private Learning Possible*, ICML 2017.
    The printed feature map ``sqrt(1/m) cos(s^T x + b)`` approximates
    ``k / 2`` (its expectation misses the factor 2 of Rahimi and Recht); the
    library uses ``sqrt(2/m) cos(s^T x + b)``, which approximates ``k``, and
    calibrates for its norm bound ``sqrt(2)``. The two differ only by a
    rescaling of ``alpha`` (the noise scales with the bound).

    What users send (``linear_features='auto'``, issue 16: public choices
    minimize a predicted error). With the joint analytic calibration the
    noise per unit of bound is the same for every choice,
    ``u = sigma_y / y_bound = sigma_x / B`` (``B``: 1 per unit of
    ``data_norm`` for plain ``x``, ``sqrt(2)`` for the random features,
    ``sqrt(3)`` for both, so ``x / data_norm`` gets noise variance
    ``u^2`` per coordinate and a random feature ``2 u^2``), and the choices
    differ in what they can resolve:

    1. Random features cost ``m`` noisy numbers whose Gram matrix the
       server debiases (:func:`noise_aware_n_components` sets ``m``), and
       they spread the signal thin: the rbf kernel's unit trace is shared
       by every degree, so under the public reference law (records filling
       the ball, :func:`rbf_eigenvalue`) a linear direction has second
       moment 0.062 in the random features against 0.2 in plain ``x``
       (``d = 5``, unit ball), and each of the 15 degree-2 directions
       0.014. What they buy is the part of ``y`` beyond linear, which plain
       reports miss entirely. :func:`predicted_collection_risks` weighs the
       two: debiased ridge at the Gram's noise scale, direction by
       direction (shrinkage bias plus variance,
       :func:`ridge_direction_risk`), for a public planning target whose
       variance is ``y_bound^2`` with a share :data:`NONLINEAR_SHARE` (a
       tenth) in the degree-2 directions. Users send the random features
       alone when their predicted risk is the smaller, else plain ``(x,
       y)``, the reports of debiased least squares (the server's ridge on
       them is that baseline with the penalty at the Gram's noise scale and
       the cross moment shrunk, item 3). ``linear_features=True`` is not
       among the choices: the ``x`` block next to the random features
       carries 3 times plain ``x``'s noise variance. In ``d = 5``
       dimensions in the unit ball (``gamma = 1 / data_norm^2``,
       ``delta = 10^-7``) random features are sent from about ``10^6``
       users at ``epsilon = 8`` and ``10^7`` at ``epsilon = 4``; in one
       dimension from ``2 x 10^4`` users at ``epsilon = 4`` and ``2 x
       10^5`` at ``epsilon = 2``. The former rule (random features as soon
       as ``m`` of them could see a degree-2 direction at all) sent them in
       six cells of the benchmark, and in each they scored below least
       squares on the same kind of reports (by up to 0.09 of R^2), whose
       targets have a smaller non-linear part than planned for; a target
       with a larger one is better served by ``linear_features=False``.
    2. Below :func:`min_users_for_a_model` (``n <= u^4`` users with random
       features; ``n <= d^2 u^4`` with plain ``(x, y)`` reports of ``d``
       features, the signal spread over the ``d`` directions of the
       reference law of item 1 instead of the most favourable single one)
       no model of the features is predicted to beat the trivial predictor,
       while the noisy mean of joint reports costs ``(Var(y) + sigma_y^2) /
       n`` of squared risk: users send ``y`` alone through the pure-epsilon
       scalar mechanism of least worst-case variance
       (:class:`~sklearn_ldp.randomizers.TargetMeanRandomizer`: Duchi et
       al.'s bit up to epsilon 1.25, the piecewise mechanism above; 20 times
       less variance than the Gaussian release of ``y`` at epsilon 0.5,
       ``delta = 1e-7``) and the server returns the mean of the unbiased
       estimates (``n_components_ == 0``, ``coef_`` zeros, ``alpha_`` nan
       with ``alpha='auto'``, ``sigma_x_`` inf, ``privacy_delta_`` 0). The
       Gaussian release lost 0.014 and 0.086 of R^2 to the clean mean on
       ``diabetes_5d`` at ``2 x 10^4`` users, epsilon 1 and 0.5; this
       release loses 0.0004 and 0.0003 (5 draws). A noisy mean shrunk
       towards the centre of
       ``[-y_bound, y_bound]`` by its known variance
       (``(1 - s^2 / vbar^2)_+ vbar``) was measured and not kept: its risk
       is ``0.33 s^2`` at a true mean 0 but ``1.45 s^2`` at ``2 s``, and in
       the benchmark it moved no cell by more than 0.01 of R^2. With the
       single-direction bound (``n <= u^4``), ``2 x 10^5`` users at epsilon
       1 sent joint reports and the constant chosen lost 0.0035 and 0.0074
       of R^2 (``nonlinear_5d``, ``diabetes_5d``; predicted ``(Var(y) +
       sigma_y^2) / (n Var(y))``: 0.0020 and 0.0038); with ``d^2 u^4``
       these users send ``y`` alone and lose under 0.0001 (3 draws). The
       joint mean is the least-variance estimate of ``E[y]`` the joint
       reports allow (the feature noise is independent of ``v`` and
       ``E[x]`` is unknown, so no control variate); above the bound, that
       cost buys the chance of a model.
    3. Above that population, with plain ``(x, y)`` reports, the signal can
       be real and yet below what a test sees: on ``nonlinear_5d`` at
       ``2 x 10^5`` users and epsilon 2 the debiased cross moment is about
       1.5 of its standard errors long (derived, 0.37 against 0.24), the chi-square test kept with
       random features (level :data:`SIGNAL_LEVEL`) kept the constant in
       17 of 20 draws (R^2 0.031), and debiased least squares, which never
       tests, scored 0.141. The server instead shrinks the cross moment by
       the positive-part James-Stein factor ``(1 - (d - 2) / S)_+`` of the
       test's statistic ``S``
       (:func:`~sklearn_ldp.aggregation._ridge.james_stein_ridge`) and
       solves ridge at the Gram's noise scale ``sigma_x^2 sqrt(d / n)``;
       the held-out comparison with the mean still applies. Measured
       (``python -m benchmarks.spot_checks kernel-ridge-permuted
       nonlinear_5d 200000 2 20``): R^2 0.151 ± 0.034 on that cell; with
       ``y`` permuted (no signal) a model is kept in 13 of 20 draws and
       loses 0.008 ± 0.004 of R^2 to the mean, debiased least squares
       0.025 ± 0.004; on ``diabetes`` at ``2 x 10^4`` users, epsilon 8,
       0.004 ± 0.002 against 0.166 ± 0.003 (and 0.223 ± 0.021 against
       0.065 ± 0.016 on the data as they are).

    The report (``mechanism``, issue 16). The server reads only the first
    and second moments of the released pair, so any unbiased report of them
    serves it. PrivUnitG (Asi, Feldman and Talwar 2022; on the public
    lattice, :class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer`)
    of the pair, the target scaled to the features' bound, has pseudo-reports
    ``z = c V`` with ``E[z z^T] = r r^T + sigma^2 I`` and ``E[z] = r / f``
    (public ``c``, ``f``), so the server's statistics
    (:class:`~sklearn_ldp.aggregation._sufficient.PrivUnitFoldedReportSums`)
    debias exactly as a Gaussian release's of noise ``sigma_x = sigma``:
    everything in items 1 to 3 (the noise-aware ``m``, the collection rule,
    the held-out risks) reads that ``sigma_x`` unchanged. Per unit of bound
    it is 0.29 of the analytic Gaussian's at epsilon 0.5, 0.27 at 1 and 2,
    0.29 at 4 and 0.36 at 8 (``delta = 10^-5``), almost independent of the
    number of numbers released (1% more from 2 to 100, 6% to 1000 at epsilon
    0.5); the guarantee is pure epsilon (``privacy_delta_ = 0``). The
    measured effect on the benchmarks is on the kernel ridge page.

    Privacy. The client is a
    :class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer` (default)
    or a :class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer` with the
    public :class:`~sklearn_ldp.randomizers.RandomFourierFeatures` map. For
    any two records ``||phi(x) - phi(x')|| <= 2 sqrt(2)`` (every coordinate
    is at most ``sqrt(2/m)`` in absolute value, whatever ``x``) and
    ``|y - y'| <= 2 y_bound``. PrivUnitG randomizes the unit vector that
    embeds the pair (features clipped to ``feature_norm``, target scaled by
    ``feature_norm / y_bound``), epsilon-LDP whatever the input;
    ``mechanism='gaussian'`` calibrates ``(z, v)`` as one Gaussian
    mechanism of these sensitivities, ``calibration='paper'`` gives each
    part ``(epsilon/2, delta/2)`` with the classic formula (Algorithm 4,
    steps 4-5). Target-only reports (Notes, item 2) are epsilon-LDP: ``x``
    is not read and ``y`` goes through an epsilon-LDP scalar mechanism on
    ``[-y_bound, y_bound]``.

    Each user must report once: a user in several ``partial_fit`` batches
    spends its budget several times.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import KernelRidgeLDP
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-2, 2, size=(50_000, 1))
    >>> y = np.sin(2 * X[:, 0])
    >>> est = KernelRidgeLDP(epsilon=8.0, gamma=1.0, n_components=10,
    ...                      random_state=0).fit(X, y)
    >>> est.alpha_, round(est.score(X, y), 2)  # one PrivUnitG report per user
    (0.03162277660168379, 0.92)
    >>> est.privacy_epsilon_, est.privacy_delta_
    (8.0, 0.0)
    """

    _feature_seed_tag = _FEATURE_SEED_TAG

    _parameter_constraints = {
        **LDPEstimatorMixin._ldp_parameter_constraints,
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "alpha": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "fit_intercept": ["boolean"],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "n_components": [
            Interval(Integral, 0, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "n_users": [Interval(Integral, 1, None, closed="left"), None],
        "y_bound": [Interval(Real, 0, None, closed="neither")],
        "data_norm": [Interval(Real, 0, None, closed="neither"), None],
        "linear_features": ["boolean", StrOptions({"auto"})],
        "calibration": [StrOptions({"analytic", "paper"})],
        "mechanism": [StrOptions(set(JOINT_MECHANISMS))],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        alpha="auto",
        fit_intercept=True,
        kernel="rbf",
        gamma=None,
        n_components="auto",
        n_users=None,
        y_bound=1.0,
        data_norm=None,
        linear_features="auto",
        calibration="analytic",
        mechanism="auto",
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.n_users = n_users
        self.y_bound = y_bound
        self.data_norm = data_norm
        self.linear_features = linear_features
        self.calibration = calibration
        self.mechanism = mechanism
        self.random_state = random_state

    def _build_randomizer(self, n_features, n_users, seed):
        self._validate_params()
        planned = self.n_users if self.n_users is not None else n_users
        linear = self._uses_linear_features()
        if self.n_components != "auto":
            if linear == "auto":
                linear = self.n_components == 0
            if self.n_components == 0 and not linear:
                raise ValueError(
                    "n_components=0 sends no random feature: users send plain "
                    "(x, y) reports, which needs a public data_norm and "
                    "linear_features=True or 'auto'."
                )
            return self._randomizer_with(
                n_features, self.n_components, None, seed, linear
            )
        if planned is None:
            raise ValueError(
                "n_components='auto' is chosen from the public population "
                "size: set n_users (or pass it to make_randomizer), or give "
                "an int n_components."
            )
        if self.calibration == "paper":
            n_components = auto_n_components(n_features, planned, self.epsilon)
            return self._randomizer_with(n_features, n_components, planned, seed, False)
        # sigma_x does not depend on m (the feature norm bound is sqrt(2), or
        # sqrt(3) with the x block, for every m; PrivUnitG's, of the same
        # second moments, grows by 1% from 2 to 100 numbers and 6% to 1000 at
        # epsilon 0.5, less at larger epsilon): read it off a one-feature
        # randomizer.
        probe = self._randomizer_with(n_features, 1, planned, seed, linear is True)
        n_components = noise_aware_n_components(planned, probe.sigma_x)
        if linear == "auto" and self.kernel == "rbf":
            # The two reports the rule compares; users send the one whose
            # predicted risk is smaller.
            features = self._randomizer_with(
                n_features, n_components, planned, seed, False
            )
            plain = self._randomizer_with(n_features, 0, planned, seed, True)
            linear = not self._random_features_predicted_better(
                n_features, n_components, planned, plain, features
            )
            randomizer = plain if linear else features
            n_components = 0 if linear else n_components
        else:
            linear = linear is True
            randomizer = self._randomizer_with(
                n_features, n_components, planned, seed, linear
            )
        # Plain (x, y) reports: the signal spread over the n_features
        # directions of the public reference law (records filling the ball),
        # not the most favourable single direction (see Notes, item 2).
        directions = n_features if linear and n_components == 0 else 1
        if planned <= min_users_for_a_model(
            randomizer.sigma_x,
            randomizer.sigma_y,
            randomizer.feature_norm,
            self.y_bound,
            n_directions=directions,
        ):
            # No model of the features is predicted to beat a constant: users
            # send y alone through the scalar mechanism of least variance, and
            # the server returns its mean.
            return TargetMeanRandomizer(
                n_features, epsilon=self.epsilon, y_bound=self.y_bound, n_users=planned
            )
        return randomizer

    def _random_features_predicted_better(
        self, n_features, n_components, planned, plain, features
    ):
        """Whether ``m`` random features have a smaller predicted risk than plain ``(x, y)``.

        :func:`predicted_collection_risks` of the two reports this
        estimator would send (``plain`` and ``features``, their actual noise
        levels, before anyone reports; public quantities only).
        """
        plain_risk, features_risk = predicted_collection_risks(
            n_features,
            planned,
            n_components,
            self._kernel_gamma(),
            self.data_norm,
            self.y_bound,
            (plain.sigma_x, plain.sigma_y),
            (features.sigma_x, features.sigma_y),
        )
        return features_risk < plain_risk

    def _uses_linear_features(self):
        """Whether users send ``x / data_norm``: True, False or 'auto' (decided with m)."""
        if self.linear_features == "auto":
            if self.data_norm is None or self.calibration == "paper":
                return False
            return "auto"
        if self.linear_features and self.data_norm is None:
            raise ValueError(
                "linear_features=True sends x / data_norm next to the random "
                "features: it needs a public data_norm (got None)."
            )
        if self.linear_features and self.calibration == "paper":
            raise ValueError(
                "linear_features=True is not part of the printed algorithm: use "
                "it with calibration='analytic'."
            )
        return bool(self.linear_features)

    def _kernel_gamma(self):
        """``gamma``, or its public default: ``1 / data_norm^2`` (rbf, bounded ``x``).

        scikit-learn's ``1 / n_features`` is the scale of standardized
        features (``E ||x - x'||^2 = 2 n_features``). Records clipped to the
        ball of radius ``data_norm`` have ``||x - x'||^2 <= 4 data_norm^2``
        whatever their dimension, so the same scale is ``1 / data_norm^2``:
        in the unit ball ``1 / n_features`` leaves the kernel almost linear
        over the data and its random features nearly constant. None (the
        feature map's ``1 / n_features``) without a declared bound or for
        the Laplacian kernel.
        """
        if self.gamma is not None or self.data_norm is None or self.kernel != "rbf":
            return self.gamma
        return 1.0 / float(self.data_norm) ** 2

    def _randomizer_with(self, n_features, n_components, planned, seed, linear):
        fourier = {"kernel": self.kernel, "gamma": self._kernel_gamma(), "seed": seed}
        if linear and n_components == 0:
            # Plain (x, y) reports: x clipped to data_norm, no feature map.
            mapped = {}
        else:
            if linear:
                features = LinearAndFourierFeatures(
                    n_features,
                    n_components,
                    input_scale=1.0 / self.data_norm,
                    **fourier,
                )
            else:
                features = RandomFourierFeatures(n_features, n_components, **fourier)
            mapped = {"feature_map": features, "feature_norm": features.norm_bound}
        n_released = released_width(mapped.get("feature_map"), n_features)
        if self._pair_mechanism(n_released) == "privunit":
            return PrivUnitGRecordRandomizer(
                n_features,
                epsilon=self.epsilon,
                data_norm=self.data_norm,
                y_bound=self.y_bound,
                n_users=planned,
                **mapped,
            )
        return GaussianRecordRandomizer(
            n_features,
            epsilon=self.epsilon,
            delta=self.delta,
            data_norm=self.data_norm,
            y_bound=self.y_bound,
            calibration=self.calibration,
            n_users=planned,
            **mapped,
        )

    def _pair_mechanism(self, n_released):
        """``'privunit'`` or ``'gaussian'``: the report of ``(features, y)``.

        The server reads only the first and second moments of the released
        pair, so one PrivUnitG report
        (:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer`) serves
        it as a Gaussian release of the same second moments
        (:func:`~sklearn_ldp._linear.choose_pair_mechanism`: ``'auto'``
        takes it for epsilon in ``[0.05, 32]`` when it has the smaller
        worst-case second-moment variance for the ``n_released + 1``
        numbers). The paper-faithful mode keeps its Gaussian reports.
        Public quantities only, before anyone reports.
        """
        return choose_pair_mechanism(
            self.mechanism,
            self.epsilon,
            self.delta,
            n_released + 1,
            unsupported=paper_mode_keeps_gaussian(self.calibration),
        )

    def _fit_simulated(self, X, y, classes):
        # Randomize and aggregate chunk by chunk (memory O(chunk * m + m^2)):
        # the aggregate, hence the model, of fit_reports(make_randomizer(...)
        # .randomize(X, y, random_state)) without holding every report.
        randomizer = self.make_randomizer(X.shape[1], n_users=X.shape[0])
        self._start_simulation(randomizer, X.shape[0])
        return self._absorb(X, y)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y):
        """Add a batch of users (each user in one batch only).

        The first call fixes the randomizer (public configuration) and the
        random generator; later calls continue both, so no noise is reused
        across batches. Each batch's reports are added to the one-pass
        aggregate at the next stream positions, so the model is that of
        ``fit_reports`` on the batches' reports in order. Calling
        ``partial_fit`` after ``fit`` adds users to the same model; after
        ``fit_reports`` the new users' noise comes from the server's stream
        (never the one that may have made those reports).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        first_call = not hasattr(self, "_aggregate")
        X, y = validate_data(
            self, X, y, reset=first_call, dtype=np.float64, y_numeric=True
        )
        if first_call:
            randomizer = self.make_randomizer(X.shape[1], n_users=X.shape[0])
            self._start_simulation(randomizer, X.shape[0])
        return self._absorb(X, y)

    def _start_simulation(self, randomizer, n_rows):
        # Simulated users run the published randomizer: nothing to reject.
        self.n_reports_rejected_ = 0
        planned = self.n_users if self.n_users is not None else n_rows
        warn_if_large_delta(randomizer.delta, planned, stacklevel=5)
        # The source randomize(random_state=self.random_state) would use, so
        # the chunks get the noise of one randomize call on every user.
        self._start(randomizer, check_client_random_state(self.random_state))

    def _server_aggregate(self, config):
        # Per-fold sums of [z, 1] (the exact constant column last: its sums
        # centre the statistics and give the noisy mean of y) and v, in
        # blocks of the randomizer's chunk, so that fit (which aggregates
        # each simulated chunk) and fit_reports sum in the same order.
        randomizer = self._randomizer_from_config(config)
        if isinstance(randomizer, TargetMeanRandomizer):
            return TargetEstimateSums(N_FOLDS, randomizer)
        # PrivUnitG: the sums kept as sent, read as a Gaussian release's.
        return pair_report_sums(N_FOLDS, randomizer, randomizer.n_released)

    def _fit_server_aggregate(self, aggregate, config, rng):
        # Users simulated by a later partial_fit draw from the server's
        # stream (never one that may have made these reports), at the stream
        # positions after those received.
        self._start(
            self._randomizer_from_config(config),
            rng,
            aggregate,
            n_positions=aggregate.n,
        )
        self._solve()

    def _start(self, randomizer, noise, aggregate=None, n_positions=0):
        self._randomizer, self._noise = randomizer, noise
        self._target_only = isinstance(randomizer, TargetMeanRandomizer)
        feature_map = None if self._target_only else randomizer.feature_map
        self.random_features_ = feature_map
        fourier = getattr(feature_map, "fourier", feature_map)
        # No feature map: plain (x, y) reports, x clipped to data_norm, or y
        # alone.
        self.n_components_ = 0 if fourier is None else fourier.n_components
        # Leading coordinates of each report that are x (scaled by 1 / data_norm
        # next to random features).
        self._n_linear = (
            0 if self._target_only else randomizer.n_released - self.n_components_
        )
        self.linear_features_ = self._n_linear > 0
        if aggregate is None:
            aggregate = self._server_aggregate(randomizer.get_config())
        self._aggregate, self._n_positions = aggregate, int(n_positions)
        if self._target_only:
            # No feature is released: its noise is unbounded, no model exists.
            self.sigma_x_, self.sigma_y_ = math.inf, randomizer.noise_std
            self.min_users_for_a_model_ = math.inf
        else:
            self.sigma_x_ = randomizer.sigma_x
            self.sigma_y_ = randomizer.sigma_y
            self.min_users_for_a_model_ = min_users_for_a_model(
                self.sigma_x_,
                self.sigma_y_,
                randomizer.feature_norm,
                randomizer.y_bound,
            )
        self.privacy_epsilon_ = float(randomizer.epsilon)
        self.privacy_delta_ = float(randomizer.delta)

    def _absorb(self, X, y):
        for batch in gen_batches(X.shape[0], self._randomizer.chunk_size):
            reports = self._randomizer.randomize(
                X[batch], y[batch], random_state=self._noise
            )
            self._accumulate(reports)
        self._solve()
        return self

    def _accumulate(self, reports):
        positions = self._n_positions + np.arange(len(reports))
        self._aggregate.update(reports, positions)
        self._n_positions += len(reports)

    def _solve(self):
        if self._target_only:
            return self._solve_target_only()
        statistics = self._aggregate.moment_statistics()
        if self.alpha == "auto":
            self.cv_risk_, self.cv_std_error_ = debiased_cv_risk(
                statistics.folds,
                statistics.square_sums,
                self.sigma_x_,
                self.sigma_y_,
                AUTO_ALPHAS,
                fit_intercept=self.fit_intercept,
            )
            # The clean loss is >= 0: a negative estimate is noise, not skill.
            upper = np.maximum(self.cv_risk_, 0.0) + CV_STD_ERRORS * self.cv_std_error_
            if not self.n_components_:
                # Plain (x, y) reports: the public noise scale (PLAIN_ALPHA_FACTOR).
                self.alpha_ = PLAIN_ALPHA_FACTOR * float(
                    gram_noise_scale(self.sigma_x_, self._n_linear, statistics.n)
                )
            elif not np.any(np.isfinite(upper)):
                self.alpha_ = _FALLBACK_ALPHA
            else:
                self.alpha_ = float(AUTO_ALPHAS[np.nanargmin(upper)])
        else:
            self.alpha_ = float(self.alpha)
        folded = StreamedFoldedMoments(
            statistics, sigma_x=self.sigma_x_, sigma_t=self.sigma_y_
        )
        # With plain (x, y) reports the model on every feature is the linear
        # one: no separate x-block candidates.
        W, self.selected_model_, self.cv_results_ = _model_or_constant(
            folded,
            self.alpha_,
            self.fit_intercept,
            self._n_linear if self.n_components_ else 0,
            estimable=statistics.n > self.min_users_for_a_model_,
            plain=not self.n_components_,
        )
        self.coef_ = W[:-1, 0].copy()
        self.intercept_ = float(W[-1, 0])
        self.n_reports_ = statistics.n

    def _solve_target_only(self):
        # Users sent y alone: the intercept-only model, the mean of the
        # unbiased estimates.
        self.alpha_ = math.nan if self.alpha == "auto" else float(self.alpha)
        self.coef_ = np.zeros(self.n_features_in_)
        self.intercept_ = self._aggregate.mean() if self.fit_intercept else 0.0
        self.selected_model_ = "constant"
        self.cv_results_ = constant_only_results()
        self.n_reports_ = self._aggregate.n

    def _predict_validated(self, X):
        if self._target_only:
            return np.full(X.shape[0], self.intercept_)
        # On the public random features, chunk by chunk (memory O(chunk * m)).
        y_pred = np.empty(X.shape[0])
        for batch in gen_batches(X.shape[0], self._randomizer.chunk_size):
            y_pred[batch] = self._randomizer.features(X[batch]) @ self.coef_
        return y_pred + self.intercept_

    def __sklearn_tags__(self):
        return ldp_tags(super().__sklearn_tags__())


def _model_or_constant(
    folded, alpha, fit_intercept, n_linear=0, estimable=True, plain=False
):
    """The ridge model at ``alpha``, the linear part alone, or the intercept-only model.

    :func:`~sklearn_ldp.aggregation._ridge.select_model_or_constant` with
    the ridge model on every released feature (with ``plain`` (x, y)
    reports :func:`~sklearn_ldp.aggregation._ridge.james_stein_ridge`, which
    shrinks towards the constant by the signal it sees: no test then
    overrides the held-out comparison) and, when the first
    ``n_linear`` features are ``x / data_norm``
    (:class:`~sklearn_ldp.randomizers.LinearAndFourierFeatures`), ridge on
    those alone for each penalty of :data:`LINEAR_ALPHAS` (stage 1 keeps
    the model with the lowest upper bound on its held-out risk). ``alpha``
    was itself chosen on these folds, which favours the model: the fallback
    is conservative. The chosen candidate is refitted on every report.

    Returns
    -------
    W : ndarray of shape (n_released + 1, 1)
        Weights of the released features, then the intercept.
    name : {'model', 'linear', 'constant'}
    cv_results : dict
    """
    if plain:
        fit = partial(
            james_stein_ridge,
            alpha=alpha,
            sigma_x=folded.sigma_x,
            sigma_t=float(folded.sigma_t[0]),
            fit_intercept=fit_intercept,
        )
    else:
        fit = partial(centred_ridge, alpha=alpha, fit_intercept=fit_intercept)
    models = [Candidate("model", fit, {"alpha": alpha})] + [
        Candidate(
            "linear",
            partial(
                _leading_ridge, n_linear=n_linear, alpha=a, fit_intercept=fit_intercept
            ),
            {"alpha": float(a)},
        )
        for a in (LINEAR_ALPHAS if n_linear else ())
    ]

    chosen, candidates, cv_results = select_model_or_constant(
        folded, models, fit_intercept, signal_level=None if plain else SIGNAL_LEVEL
    )
    cv_results["models_estimable"] = bool(estimable)
    if not estimable:
        chosen = len(candidates) - 1
        cv_results["selected"] = np.arange(len(candidates)) == chosen
    everything = folded.moments(np.arange(folded.n_folds))
    return candidates[chosen].fit(everything), candidates[chosen].name, cv_results


def _leading_ridge(moments, *, n_linear, alpha, fit_intercept):
    """:func:`centred_ridge` on the first ``n_linear`` features (the others weigh 0)."""
    keep = np.r_[np.arange(n_linear), moments.gram.shape[0] - 1]
    sub = Moments(
        moments.gram[np.ix_(keep, keep)], moments.cross[keep], moments.square, moments.n
    )
    W = np.zeros((moments.gram.shape[0], 1))
    W[keep] = centred_ridge(sub, alpha, fit_intercept=fit_intercept)
    return W
