"""Kernel ridge regression under non-interactive LDP (seed 003, Algorithm 4).

Each user maps ``x`` through a *public* random Fourier feature map ``phi``
(``m`` features, ``||phi(x)|| <= sqrt(2)``), clips ``y`` to the public
``[-y_bound, y_bound]`` and sends ``z = phi(x) + N(0, sigma_x^2 I_m)`` and
``v = y + N(0, sigma_y^2)``. The server only needs ``Z^T Z``, ``Z^T v`` and
``n``: it accumulates them chunk by chunk (memory ``O(m^2)`` whatever ``n``),
debiases the Gram matrix, projects it on the PSD cone and solves a ridge
system in the random-feature space.
"""

import math
from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils import check_random_state, gen_batches
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import LDPEstimatorMixin, ldp_tags
from .aggregation import RandomFourierFeatures, SufficientStatistics
from .aggregation._random_features import FEATURE_NORM_BOUND, KERNELS
from .randomizers import (
    DEFAULT_CHUNK_SIZE,
    GaussianRecordRandomizer,
    clip_l2,
    config_fingerprint,
    describe_config_mismatch,
)
from .utils import check_noise_random_state

#: Upper limit of ``n_components='auto'``: the server holds and
#: eigen-decomposes an ``m x m`` matrix; beyond a few hundred features the
#: noise added per feature outweighs the kernel approximation gained (see
#: the benchmark), and each report costs ``m`` floats.
MAX_AUTO_COMPONENTS = 300

#: ``alpha='auto'`` picks the grid value with the least debiased
#: ``N_FOLDS``-fold cross-validated loss (users go to folds by arrival order
#: modulo ``N_FOLDS``).
AUTO_ALPHAS = np.logspace(-5, 3, 17)
N_FOLDS = 5
#: ... minimizing the estimated loss plus this many standard errors.
CV_STD_ERRORS = 1.0
#: ``alpha='auto'`` with fewer than two users (no fold can be held out).
_FALLBACK_ALPHA = 0.1

#: Mixed into an integer ``random_state`` to derive the public feature seed,
#: so the public frequencies never share a random stream with the users' noise.
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


def _public_feature_seed(random_state):
    """The public seed of the random features, from the estimator's ``random_state``.

    An integer gives a seed derived through ``SeedSequence`` (a stream
    independent of ``RandomState(random_state)``, which simulates the users'
    noise in ``fit``); ``None`` gives fresh OS entropy; a ``RandomState``
    instance is drawn from.
    """
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(random_state, Integral):
        sequence = np.random.SeedSequence([int(random_state), _FEATURE_SEED_TAG])
        return int(sequence.generate_state(1)[0])
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def _independent_stream(rng):
    """A generator seeded from ``rng`` through ``SeedSequence`` (a distinct stream)."""
    entropy = [int(rng.randint(np.iinfo(np.int32).max)), _FEATURE_SEED_TAG + 1]
    return np.random.RandomState(np.random.SeedSequence(entropy).generate_state(8))


def _solve_debiased_ridge(stats, sigma, alpha):
    """Solve ``(Q / n + alpha I) w = Z^T v / n`` with ``Q = Proj_PSD(Z^T Z - n sigma^2 I)``.

    ``Q / n`` is PSD and ``alpha > 0``, so the system is positive definite.
    """
    gram = stats.debiased_gram(sigma) / stats.n
    gram.flat[:: gram.shape[0] + 1] += alpha
    return scipy.linalg.solve(gram, stats.moment / stats.n, assume_a="pos")


def _debiased_cv_risk(folds, square_sums, sigma_x, sigma_y, alphas):
    """Held-out squared loss of each ``alpha``, estimated from reports only.

    For every fold ``k`` the model ``w(alpha)`` is fitted on the other folds
    and scored on fold ``k``. Since ``w`` does not depend on fold ``k``'s
    noise and ``E[(v - w^T z)^2] = (y - w^T phi)^2 + s^2`` with
    ``s^2 = sigma_y^2 + sigma_x^2 ||w||^2``, the fold's statistics give the
    unbiased estimate

        (sum v^2 - 2 w^T Z^T v + w^T Z^T Z w) / n_k - s^2

    of its clean loss. Its noise is large when ``w`` is (small ``alpha``):
    per user the debiased loss has variance about ``2 s^4 + 4 r s^2``
    (``r`` the clean loss), known from the public noise levels, so the
    function also returns that standard error and the caller can prefer an
    ``alpha`` whose estimate is trustworthy. All ``alpha`` share one
    eigen-decomposition per fold. Only the sufficient statistics are used:
    this is post-processing.

    Returns
    -------
    risk : ndarray of shape (n_alphas,)
        Mean held-out loss over all users, ``nan`` when no fold can be held out.
    std_error : ndarray of shape (n_alphas,)
        Standard error of ``risk`` due to the Gaussian noise of the reports.
    """
    alphas = np.asarray(alphas, dtype=float)
    total_gram = sum(fold.gram for fold in folds)
    total_moment = sum(fold.moment for fold in folds)
    total_n = sum(fold.n for fold in folds)
    risk, variance, n_scored = np.zeros(alphas.shape), np.zeros(alphas.shape), 0
    for fold, square_sum in zip(folds, square_sums, strict=True):
        n_train = total_n - fold.n
        if fold.n == 0 or n_train == 0:
            continue
        train_gram = (total_gram - fold.gram) / n_train
        train_gram.flat[:: train_gram.shape[0] + 1] -= sigma_x**2
        eigvals, eigvecs = np.linalg.eigh(0.5 * (train_gram + train_gram.T))
        eigvals = np.maximum(eigvals, 0.0)  # Proj_PSD
        rotated = eigvecs.T @ ((total_moment - fold.moment) / n_train)
        W = eigvecs @ (rotated[:, None] / (eigvals[:, None] + alphas[None, :]))
        noise = sigma_y**2 + sigma_x**2 * np.einsum("ia,ia->a", W, W)
        loss = square_sum - 2.0 * fold.moment @ W
        loss = (loss + np.einsum("ia,ia->a", W, fold.gram @ W)) / fold.n - noise
        risk += fold.n * loss
        variance += fold.n * (2.0 * noise**2 + 4.0 * np.maximum(loss, 0.0) * noise)
        n_scored += fold.n
    if not n_scored:
        return np.full(alphas.shape, np.nan), np.full(alphas.shape, np.nan)
    return risk / n_scored, np.sqrt(variance) / n_scored


class RandomFeatureRandomizer(GaussianRecordRandomizer):
    """Client of :class:`KernelRidgeLDP`: noisy random Fourier features and noisy ``y``.

    The user (1) clips ``x`` to the l2 ball of radius ``data_norm`` if one is
    given (the kernel features are bounded for every ``x``, so privacy does
    not need it); (2) computes the public random Fourier features
    ``phi(x) = sqrt(2/m) cos(W^T x + b)`` (``W, b`` rebuilt from the public
    ``feature_seed``) and clips them to ``sqrt(2)`` (a no-op: every
    coordinate is at most ``sqrt(2/m)`` in absolute value); (3) clips ``y``
    to ``[-y_bound, y_bound]``; (4) sends ``z = phi + N(0, sigma_x^2 I_m)``
    and ``v = y + N(0, sigma_y^2)``.

    Privacy. For any two records, ``||phi(x) - phi(x')|| <= 2 sqrt(2)`` and
    ``|y - y'| <= 2 y_bound``. ``calibration='analytic'`` treats ``(z, v)`` as
    one Gaussian mechanism of sensitivity
    ``sqrt((2 sqrt(2) / sigma_x)^2 + (2 y_bound / sigma_y)^2)`` at unit noise
    and calibrates it exactly (analytic Gaussian mechanism);
    ``calibration='paper'`` gives each part ``(epsilon/2, delta/2)`` with the
    classic formula and basic composition (seed 003, Algorithm 4, steps 4-5).
    Either way each user's record ``(x, y)`` is (epsilon, delta)-LDP.

    Parameters
    ----------
    n_features : int
    epsilon : float
    delta : float
    n_components : int
        Number of random features ``m``.
    kernel : {'rbf', 'laplacian'}, default='rbf'
    gamma : float or None, default=None
        Kernel parameter, ``None`` for ``1 / n_features``.
    feature_seed : int, default=0
        Public seed of the random features.
    y_bound : float, default=1.0
    data_norm : float or None, default=None
    calibration : {'analytic', 'paper'}, default='analytic'
    n_users : int or None, default=None
        Public population size the protocol was planned for (recorded in
        the configuration when it determined ``n_components``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp._kernel_ridge import RandomFeatureRandomizer
    >>> rand = RandomFeatureRandomizer(2, epsilon=1.0, delta=1e-5, n_components=50)
    >>> reports = rand.randomize(np.ones((4, 2)), np.zeros(4), random_state=0)
    >>> reports["x"].shape, reports["y"].shape
    ((4, 50), (4,))
    """

    public_random_keys = ("feature_seed",)

    def __init__(
        self,
        n_features,
        *,
        epsilon,
        delta,
        n_components,
        kernel="rbf",
        gamma=None,
        feature_seed=0,
        y_bound=1.0,
        data_norm=None,
        calibration="analytic",
        n_users=None,
    ):
        if y_bound is None:
            raise ValueError("RandomFeatureRandomizer needs a public y_bound.")
        self.random_features = RandomFourierFeatures(
            n_features, n_components, kernel=kernel, gamma=gamma, seed=feature_seed
        )
        super().__init__(
            n_features,
            epsilon=epsilon,
            delta=delta,
            data_norm=1.0 if data_norm is None else data_norm,
            y_bound=y_bound,
            feature_map=self.random_features,
            feature_norm=FEATURE_NORM_BOUND,
            calibration=calibration,
        )
        if data_norm is None:
            self.data_norm = None
        self.n_users = None if n_users is None else int(n_users)
        # Each chunk holds (chunk_size x m) features and noise: keep that near
        # 32 MiB whatever m is.
        self.chunk_size = int(
            min(
                DEFAULT_CHUNK_SIZE, max(256, 2**22 // self.random_features.n_components)
            )
        )

    @classmethod
    def from_config(cls, config):
        """Rebuild the randomizer from the public configuration of its reports."""
        return cls(
            config["n_features"],
            epsilon=config["epsilon"],
            delta=config["delta"],
            n_components=config["n_components"],
            kernel=config["kernel"],
            gamma=config["gamma"],
            feature_seed=config["feature_seed"],
            y_bound=config["y_bound"],
            data_norm=config["data_norm"],
            calibration=config["calibration"],
            n_users=config.get("n_users"),
        )

    def _config(self):
        config = super()._config()
        rff = self.random_features.get_config()
        config.update(
            kernel=rff["kernel"],
            gamma=rff["gamma"],
            n_components=rff["n_components"],
            feature_seed=rff["seed"],
        )
        if self.n_users is not None:
            config["n_users"] = self.n_users
        return config

    def features(self, X):
        """The clipped random features a user releases, before noise."""
        X = np.asarray(X, dtype=np.float64)
        if self.data_norm is not None:
            X = clip_l2(X, self.data_norm)
        return clip_l2(self.random_features(X), self.feature_norm)


class KernelRidgeLDP(LDPEstimatorMixin, RegressorMixin, BaseEstimator):
    """Kernel ridge regression from locally private random Fourier features.

    Each user sends its random Fourier features and its target with
    Gaussian noise, once; the server fits ridge regression in the
    random-feature space from debiased sufficient statistics (seed 003,
    Algorithm 4). Each sample ``(x_i, y_i)`` is (epsilon, delta)-LDP.

    The fitted model minimizes, over ``w`` in ``R^m``, an unbiased estimate of
    ``1/(2n) sum_i (w^T phi(x_i) - y_i)^2 + alpha/2 ||w||^2``, made convex by
    projecting the debiased Gram matrix onto the PSD cone: it solves
    ``(Q/n + alpha I) w = Z^T v / n`` with ``Q = Proj_PSD(Z^T Z - n sigma_x^2 I)``.
    ``alpha`` multiplies the *mean* loss (the seed's ``C`` is ``1/alpha``), so
    the non-private equivalent is
    ``sklearn.kernel_ridge.KernelRidge(alpha=n * alpha)`` with the same kernel
    and ``gamma``.

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
        noise. ``'auto'`` chooses from :data:`AUTO_ALPHAS` by 5-fold
        cross-validation on the reports: the held-out loss is debiased for
        the known noise, floored at 0 and increased by one standard error
        (computed from the public noise levels), so that an ``alpha`` whose
        estimate is only noise is never chosen. Post-processing: no privacy
        cost.
    kernel : {'rbf', 'laplacian'}, default='rbf'
        Shift-invariant kernel: ``exp(-gamma ||x - x'||_2^2)`` or
        ``exp(-gamma ||x - x'||_1)``.
    gamma : float or None, default=None
        Kernel parameter; ``None`` means ``1 / n_features`` (as in
        :class:`~sklearn.kernel_ridge.KernelRidge`). Public: never from data.
    n_components : int or 'auto', default='auto'
        Number of random features ``m``. ``'auto'``:
        ``floor(3 n_users^(1/3) sigma_x^(-4/3))`` (:func:`noise_aware_n_components`,
        where the debiased Gram's noise reaches the features' signal), at
        most :data:`MAX_AUTO_COMPONENTS`; with ``calibration='paper'`` the
        seed's ``ceil(sqrt(n_features * n_users) * epsilon)``, which the
        benchmark found far too large (each feature adds noise).
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
    calibration : {'analytic', 'paper'}, default='analytic'
        ``'analytic'``: one jointly calibrated Gaussian mechanism for
        ``(phi(x), y)``. ``'paper'``: ``(epsilon/2, delta/2)`` for each part
        with the classic formula, as the seed prints.
    random_state : int, RandomState instance or None, default=None
        Simulates the users' noise in ``fit``/``partial_fit`` and seeds the
        public random features (through an independent stream).

    Attributes
    ----------
    coef_ : ndarray of shape (`n_components_`,)
        Weights of the random features.
    n_components_ : int
        Number of random features used.
    random_features_ : RandomFourierFeatures
        The public feature map (rebuilt from the reports' configuration).
    sigma_x_, sigma_y_ : float
        Standard deviations of the noise on the features and on ``y``.
    n_reports_ : int
        Number of user reports aggregated.
    alpha_ : float
        The penalty used (``alpha``, or the one chosen by ``'auto'``).
    cv_risk_, cv_std_error_ : ndarray of shape (len(AUTO_ALPHAS),)
        With ``alpha='auto'``: the debiased cross-validated loss of each
        candidate and its standard error.
    privacy_epsilon_, privacy_delta_ : float
        The per-user guarantee of the reports.
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
    >>> est.alpha_, round(est.score(X, y), 2)
    (0.1, 0.9)
    """

    _parameter_constraints = {
        **LDPEstimatorMixin._ldp_parameter_constraints,
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "alpha": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "n_components": [
            Interval(Integral, 1, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "n_users": [Interval(Integral, 1, None, closed="left"), None],
        "y_bound": [Interval(Real, 0, None, closed="neither")],
        "data_norm": [Interval(Real, 0, None, closed="neither"), None],
        "calibration": [StrOptions({"analytic", "paper"})],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        alpha="auto",
        kernel="rbf",
        gamma=None,
        n_components="auto",
        n_users=None,
        y_bound=1.0,
        data_norm=None,
        calibration="analytic",
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.n_users = n_users
        self.y_bound = y_bound
        self.data_norm = data_norm
        self.calibration = calibration
        self.random_state = random_state

    def make_randomizer(self, n_features, n_users=None):
        """The users' randomizer: public configuration, fixed before anyone reports.

        Parameters
        ----------
        n_features : int
            Number of raw features.
        n_users : int or None, default=None
            Public population size for ``n_components='auto'``; overrides the
            ``n_users`` parameter.

        Returns
        -------
        randomizer : RandomFeatureRandomizer
        """
        self._validate_params()
        planned = self.n_users if n_users is None else int(n_users)
        if self.n_components == "auto":
            if planned is None:
                raise ValueError(
                    "n_components='auto' is chosen from the public population "
                    "size: set n_users (or pass it to make_randomizer), or give "
                    "an int n_components."
                )
            if self.calibration == "paper":
                n_components = auto_n_components(n_features, planned, self.epsilon)
            else:
                # sigma_x does not depend on m (the feature norm bound is
                # sqrt(2) for every m): read it off a one-feature randomizer.
                probe = self._build_randomizer(n_features, 1, planned)
                n_components = noise_aware_n_components(planned, probe.sigma_x)
        else:
            n_components, planned = self.n_components, None
        return self._build_randomizer(n_features, n_components, planned)

    def _build_randomizer(self, n_features, n_components, planned):
        return RandomFeatureRandomizer(
            n_features,
            epsilon=self.epsilon,
            delta=self.delta,
            n_components=n_components,
            kernel=self.kernel,
            gamma=self.gamma,
            feature_seed=_public_feature_seed(self.random_state),
            y_bound=self.y_bound,
            data_norm=self.data_norm,
            calibration=self.calibration,
            n_users=planned,
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Simulate the users' reports on ``(X, y)`` and fit the server.

        Users are randomized and aggregated chunk by chunk, so memory stays
        ``O(chunk * m + m^2)``; the result is identical to
        ``fit_reports(make_randomizer(...).randomize(X, y, rng))``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            One row per user.
        y : array-like of shape (n_samples,)
            Targets.

        Returns
        -------
        self : object
        """
        X, y, _ = self._validate_fit_input(X, y)
        rng = check_noise_random_state(self.random_state)
        planned = self.n_users if self.n_users is not None else X.shape[0]
        self._start(self.make_randomizer(X.shape[1], n_users=planned), rng)
        return self._absorb(X, y)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y):
        """Add a batch of users (each user in one batch only).

        The first call fixes the randomizer (public configuration) and the
        random generator; later calls continue both, so no noise is reused
        across batches. Calling ``partial_fit`` after ``fit`` adds users to
        the same model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        first_call = not hasattr(self, "_folds")
        X, y = validate_data(
            self, X, y, reset=first_call, dtype=np.float64, y_numeric=True
        )
        if first_call:
            planned = self.n_users if self.n_users is not None else X.shape[0]
            randomizer = self.make_randomizer(X.shape[1], n_users=planned)
            self._start(randomizer, check_noise_random_state(self.random_state))
        return self._absorb(X, y)

    def _check_reports(self, reports):
        # As the mixin's check, except that the planned population size is
        # taken from the reports when the estimator leaves it open.
        config = reports.config
        n_users = config.get("n_users") if self.n_users is None else None
        expected = self.make_randomizer(config.get("n_features"), n_users=n_users)
        expected_config = expected.get_config()
        for key in expected.public_random_keys:
            expected_config[key] = config.get(key)
        if config_fingerprint(expected_config) != config_fingerprint(config):
            raise ValueError(
                "These reports were made with a randomizer configuration that "
                "differs from this estimator's: "
                + describe_config_mismatch(expected_config, config)
            )

    def _fit_server(self, reports, rng):
        # Later partial_fit batches are simulated from a stream distinct from
        # RandomState(random_state), which may have made these reports.
        randomizer = RandomFeatureRandomizer.from_config(reports.config)
        self._start(randomizer, _independent_stream(rng))
        for batch in gen_batches(len(reports), randomizer.chunk_size):
            self._add_reports(reports["x"][batch], reports["y"][batch])
        self._solve()

    def _start(self, randomizer, rng):
        self._randomizer = randomizer
        self._rng = rng
        n_components = randomizer.random_features.n_components
        self._folds = [SufficientStatistics(n_components) for _ in range(N_FOLDS)]
        self._square_sums = np.zeros(N_FOLDS)
        self.random_features_ = randomizer.random_features
        self.n_components_ = randomizer.random_features.n_components
        self.sigma_x_ = randomizer.sigma_x
        self.sigma_y_ = randomizer.sigma_y
        self.privacy_epsilon_ = float(randomizer.epsilon)
        self.privacy_delta_ = float(randomizer.delta)

    def _absorb(self, X, y):
        for batch in gen_batches(X.shape[0], self._randomizer.chunk_size):
            reports = self._randomizer.randomize(
                X[batch], y[batch], random_state=self._rng
            )
            self._add_reports(reports["x"], reports["y"])
        self._solve()
        return self

    def _add_reports(self, Z, v):
        offset = sum(fold.n for fold in self._folds)
        for k, fold in enumerate(self._folds):
            rows = slice((k - offset) % N_FOLDS, None, N_FOLDS)
            fold.update(Z[rows], v[rows])
            self._square_sums[k] += v[rows] @ v[rows]

    def _solve(self):
        total = SufficientStatistics(self.n_components_)
        for fold in self._folds:
            total.gram += fold.gram
            total.moment += fold.moment
            total.n += fold.n
        if self.alpha == "auto":
            self.cv_risk_, self.cv_std_error_ = _debiased_cv_risk(
                self._folds,
                self._square_sums,
                self.sigma_x_,
                self.sigma_y_,
                AUTO_ALPHAS,
            )
            # The clean loss is >= 0: a negative estimate is noise, not skill.
            upper = np.maximum(self.cv_risk_, 0.0) + CV_STD_ERRORS * self.cv_std_error_
            self.alpha_ = (
                float(AUTO_ALPHAS[np.nanargmin(upper)])
                if np.any(np.isfinite(upper))
                else _FALLBACK_ALPHA
            )
        else:
            self.alpha_ = float(self.alpha)
        self.coef_ = _solve_debiased_ridge(total, self.sigma_x_, self.alpha_)
        self.n_reports_ = total.n

    def predict(self, X):
        """Predict with the fitted random-feature model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        y_pred = np.empty(X.shape[0])
        for batch in gen_batches(X.shape[0], self._randomizer.chunk_size):
            y_pred[batch] = self._randomizer.features(X[batch]) @ self.coef_
        return y_pred

    def __sklearn_tags__(self):
        return ldp_tags(super().__sklearn_tags__())
