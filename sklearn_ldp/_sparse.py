"""High-dimensional LDP learning by public random projection (seed 003 Alg. 2-3, seed 000 Alg. 4).

Each user projects its clipped record with a public random matrix
``Phi^T`` (``d -> m``, ``m << d``), clips the result, adds Gaussian noise and
sends the ``m`` numbers (plus a noisy target for regression). Because the
noise lives in ``m`` dimensions instead of ``d``, the error grows with
``log d`` instead of ``d`` when the target (a regression vector or a mean) is
l1-bounded. The server keeps only sufficient statistics, accumulated chunk by
chunk, so a population can be collected in pieces (``partial_fit``).
"""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.random_projection import GaussianRandomProjection, SparseRandomProjection
from sklearn.utils import gen_batches
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import LDPEstimatorMixin, ldp_tags
from .aggregation import (
    GroupedSums,
    SufficientStatistics,
    basis_pursuit,
    median_of_means,
    project_psd,
)
from .optim import fista_quadratic, project_l1_ball
from .randomizers import (
    GaussianRecordRandomizer,
    config_fingerprint,
    describe_config_mismatch,
)
from .utils import check_noise_random_state

PROJECTIONS = ("gaussian", "sparse", "identity")

#: Users are randomized ``max(256, _MAX_CHUNK_ELEMENTS // n_features)`` at a
#: time, so the temporaries of a chunk stay near 32 MiB whatever ``d`` is.
_MAX_CHUNK_ELEMENTS = 2**22

#: Tag mixed into an integer ``random_state`` to derive the public projection
#: seed, so the public matrix is not drawn from the users' noise stream.
_PROJECTION_SEED_TAG = 0x5EED


def make_projection(projection, n_features, n_components, seed):
    """The public projection ``Phi^T`` as a fitted scikit-learn transformer.

    ``'gaussian'`` is :class:`~sklearn.random_projection.GaussianRandomProjection`
    (entries ``N(0, 1/m)``), ``'sparse'`` is
    :class:`~sklearn.random_projection.SparseRandomProjection` (Achlioptas /
    Li et al. sparse signs, density ``1/sqrt(d)``); both preserve norms in
    expectation. The matrix depends only on ``(n_features, n_components,
    seed)``, so users and server rebuild the same one from the public seed.
    Returns None for ``'identity'`` (no projection).
    """
    if projection == "identity":
        return None
    cls = (
        GaussianRandomProjection if projection == "gaussian" else SparseRandomProjection
    )
    projector = cls(n_components=int(n_components), random_state=int(seed))
    # Fitting draws the matrix from the seed; only the shape of X is used.
    return projector.fit(np.zeros((1, int(n_features))))


class ProjectedRecordRandomizer(GaussianRecordRandomizer):
    """Release a randomly projected record with Gaussian noise (seed 003 Alg. 1, 3).

    The client clips ``x`` to the l2 ball of radius ``data_norm``, projects it
    with the public matrix ``Phi^T`` (rebuilt from ``projection_seed``),
    clips the projection to ``feature_norm`` (for a Gaussian projection
    ``||Phi^T x||`` concentrates around ``||x||`` within a factor
    ``1 +- O(1/sqrt(m))``, so with the default ``feature_norm = data_norm``
    the clip rarely binds and then only slightly), optionally clips ``y`` to
    ``[-y_bound, y_bound]``, and adds Gaussian noise.

    Privacy. ``Phi`` is public and data-independent, and after the second
    clip the released features lie in the ball of radius ``feature_norm``
    whatever ``x`` is, so replacing the record moves them by at most
    ``2 feature_norm`` (and ``y`` by ``2 y_bound``): the Gaussian release is
    calibrated for these sensitivities exactly as in
    :class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer` (joint analytic
    calibration, or ``eps/2, delta/2`` each with the classic formula for
    ``calibration='paper'``). Each user's record is (epsilon, delta)-LDP.

    Parameters
    ----------
    n_features : int
    n_components : int
        Projected dimension ``m`` (``1 <= m <= n_features``; ignored and set
        to ``n_features`` for ``projection='identity'``).
    epsilon, delta : float
    projection : {'gaussian', 'sparse', 'identity'}, default='gaussian'
    projection_seed : int, default=0
        Public seed of the projection matrix.
    data_norm : float, default=1.0
    feature_norm : float or None, default=None
        Public bound the projected features are clipped to; None means
        ``data_norm``.
    y_bound : float or None, default=None
        Public bound on ``|y|``; None releases the features only.
    calibration : {'analytic', 'paper'}, default='analytic'

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp._sparse import ProjectedRecordRandomizer
    >>> rand = ProjectedRecordRandomizer(50, n_components=5, epsilon=1.0,
    ...                                  delta=1e-5, y_bound=1.0)
    >>> reports = rand.randomize(np.ones((4, 50)) / 10, np.zeros(4), random_state=0)
    >>> reports["x"].shape, reports["y"].shape
    ((4, 5), (4,))
    """

    public_random_keys = ("projection_seed",)

    def __init__(
        self,
        n_features,
        *,
        n_components,
        epsilon,
        delta,
        projection="gaussian",
        projection_seed=0,
        data_norm=1.0,
        feature_norm=None,
        y_bound=None,
        calibration="analytic",
    ):
        if projection not in PROJECTIONS:
            raise ValueError(
                f"projection must be one of {PROJECTIONS}, got {projection!r}."
            )
        n_features = int(n_features)
        if projection == "identity":
            n_components = n_features
        if not 1 <= int(n_components) <= n_features:
            raise ValueError(
                f"n_components must be in [1, n_features={n_features}], got "
                f"{n_components!r}."
            )
        self.projection = projection
        self.n_components = int(n_components)
        self.projection_seed = int(projection_seed)
        self._projector = None
        super().__init__(
            n_features,
            epsilon=epsilon,
            delta=delta,
            data_norm=data_norm,
            y_bound=y_bound,
            feature_map=None if projection == "identity" else self._project,
            feature_norm=data_norm if feature_norm is None else feature_norm,
            calibration=calibration,
        )
        self.chunk_size = max(256, _MAX_CHUNK_ELEMENTS // max(n_features, 1))

    @property
    def projector(self):
        """The public projection (built on first use), None for ``'identity'``."""
        if self._projector is None and self.projection != "identity":
            self._projector = make_projection(
                self.projection,
                self.n_features,
                self.n_components,
                self.projection_seed,
            )
        return self._projector

    def _project(self, X):
        return self.projector.transform(X)

    def _config(self):
        config = super()._config()
        config.update(
            projection=self.projection,
            n_components=self.n_components,
            projection_seed=self.projection_seed,
        )
        return config


def projection_components(config):
    """The server's copy of ``Phi^T`` (``(m, d)``, dense or sparse) from a config.

    None for the identity.
    """
    projector = make_projection(
        config["projection"],
        config["n_features"],
        config["n_components"],
        config["projection_seed"],
    )
    return None if projector is None else projector.components_


class _ProjectedLDPBase(LDPEstimatorMixin):
    """What the two projected estimators share: the randomizer, streaming, checks."""

    _projected_parameter_constraints = {
        **LDPEstimatorMixin._ldp_parameter_constraints,
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "l1_radius": [Interval(Real, 0, None, closed="neither")],
        "data_norm": [Interval(Real, 0, None, closed="neither")],
        "feature_norm": [Interval(Real, 0, None, closed="neither"), None],
        "n_components": [
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
        ],
        "n_users": [Interval(Integral, 1, None, closed="left"), None],
        "projection": [StrOptions({*PROJECTIONS, "auto"})],
        "calibration": [StrOptions({"analytic", "paper"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def _auto_components(self, n_features, n_users):  # pragma: no cover - abstract
        raise NotImplementedError

    def _y_bound(self):
        return None

    def _public_seed(self):
        random_state = self.random_state
        if random_state is None:
            # A fresh public seed; it travels in the reports' configuration.
            return int(np.random.SeedSequence().generate_state(1)[0] >> 1)
        if isinstance(random_state, Integral):
            sequence = np.random.SeedSequence([int(random_state), _PROJECTION_SEED_TAG])
            return int(sequence.generate_state(1)[0] >> 1)
        return int(random_state.randint(np.iinfo(np.int32).max))

    def _resolved_projection(self, n_components, n_features):
        if self.projection != "auto":
            return self.projection
        if self.calibration == "paper":
            return "gaussian"  # the paper-faithful mode projects as printed
        # A random projection to m >= d dimensions compresses nothing and
        # distorts the geometry (||Phi^T x|| is only approximately ||x||):
        # with that many components the identity is strictly better.
        return "identity" if n_components >= n_features else "gaussian"

    def make_randomizer(self, n_features, n_users=None):
        """The users' randomizer (public configuration).

        Parameters
        ----------
        n_features : int
        n_users : int or None, default=None
            Public population size, used by ``n_components='auto'`` only;
            ``self.n_users`` when None.

        Returns
        -------
        randomizer : ProjectedRecordRandomizer
        """
        n_users = self.n_users if n_users is None else n_users
        if self.projection == "identity":
            n_components = n_features
        elif self.n_components == "auto":
            if n_users is None:
                raise ValueError(
                    "n_components='auto' needs the public population size: set "
                    "n_users, or give an integer n_components."
                )
            n_components = self._auto_components(n_features, n_users)
        else:
            n_components = min(int(self.n_components), n_features)
        return ProjectedRecordRandomizer(
            n_features,
            n_components=n_components,
            epsilon=self.epsilon,
            delta=self.delta,
            projection=self._resolved_projection(n_components, n_features),
            projection_seed=self._public_seed(),
            data_norm=self.data_norm,
            feature_norm=self.feature_norm,
            y_bound=self._y_bound(),
            calibration=self.calibration,
        )

    def _check_reports(self, reports):
        # As LDPEstimatorMixin._check_reports, with the number of reports as
        # the public population size for n_components='auto'.
        config = reports.config
        n_users = self.n_users if self.n_users is not None else len(reports)
        expected = self.make_randomizer(config.get("n_features"), n_users).get_config()
        expected["projection_seed"] = config.get("projection_seed")
        if config_fingerprint(expected) != config_fingerprint(config):
            raise ValueError(
                "These reports were made with a randomizer configuration that "
                "differs from this estimator's: "
                + describe_config_mismatch(expected, config)
            )

    def _simulate(self, X, y, *, reset):
        """Client side of ``fit``/``partial_fit``: randomize ``X`` chunk by chunk."""
        if reset:
            rng = check_noise_random_state(self.random_state)
            n_users = self.n_users if self.n_users is not None else X.shape[0]
            randomizer = self.make_randomizer(X.shape[1], n_users)
            self._start_server(randomizer.get_config(), n_users)
            self._randomizer, self._rng = randomizer, rng
            self.privacy_epsilon_ = float(randomizer.epsilon)
            self.privacy_delta_ = float(randomizer.delta)
        randomizer = self._randomizer
        for batch in gen_batches(X.shape[0], randomizer.chunk_size):
            reports = randomizer.randomize(
                X[batch], None if y is None else y[batch], random_state=self._rng
            )
            self._accumulate(reports)

    def _fit_server(self, reports, rng):
        n_users = self.n_users if self.n_users is not None else len(reports)
        self._start_server(reports.config, n_users)
        self._randomizer, self._rng = None, rng
        self._accumulate(reports)
        self._solve()

    def _start_server(self, config, n_users):  # pragma: no cover - abstract
        raise NotImplementedError

    def _accumulate(self, reports):  # pragma: no cover - abstract
        raise NotImplementedError

    def _solve(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_partial_fit(self, X, y):
        first_call = not hasattr(self, "_server_config")
        if not first_call and getattr(self, "_randomizer", None) is None:
            raise ValueError(
                "partial_fit cannot continue a model fitted with fit_reports "
                "(the users' randomizer is not known to the server); collect "
                "the new users' reports and call fit_reports on the "
                "concatenation."
            )
        if (
            first_call
            and self.n_components == "auto"
            and self.n_users is None
            and self.projection != "identity"
        ):
            warnings.warn(
                "partial_fit with n_components='auto' and n_users=None sizes the "
                "projection for the first batch only (it cannot change later); "
                "set n_users to the public total population size.",
                UserWarning,
                stacklevel=3,
            )
        return first_call


class SparseLDPRegressor(_ProjectedLDPBase, RegressorMixin, BaseEstimator):
    """l1-constrained linear regression under local DP by random projection.

    Seed 003 Algorithm 3 (and seed 000 Algorithm 4 with
    ``recovery='basis_pursuit'``). Each user sends its projected, clipped
    features ``z_i = clip(Phi^T clip(x_i)) + N(0, sigma_x^2 I_m)`` and its
    clipped noisy target ``v_i``; the server minimizes the debiased
    least-squares objective

        L(w) = 1/(2n) (Phi^T w)^T Q (Phi^T w) - 1/n v^T Z Phi^T w,
        Q = Proj_PSD(Z^T Z - n sigma_x^2 I_m),

    over the l1 ball of radius ``l1_radius`` by FISTA with the exact l1-ball
    projection. Only ``Z^T Z``, ``Z^T v``, the sums of ``z`` and ``v`` and
    ``n`` are kept, accumulated in chunks of users.

    Guarantee: each user's record ``(x_i, y_i)`` is (epsilon, delta)-LDP.

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget.
    delta : float, default=1e-5
        Per-user delta, in ``(0, 1)``.
    l1_radius : float, default=1.0
        Radius of the l1 ball the coefficients are constrained to (in the
        units of ``x`` and ``y``).
    n_components : 'auto' or int, default='auto'
        Projected dimension ``m``. ``'auto'`` is
        ``ceil(sqrt(n epsilon^2 log d))`` (seed 003, Theorem 3) with ``n``
        the public population size; capped at ``d``.
    n_users : int or None, default=None
        Public size of the population, used by ``n_components='auto'``. The
        projection is part of the public configuration the users receive
        before they report, so its size may only depend on public facts; the
        population size is one (like the number of features). None means the
        number of rows given to ``fit`` (or of reports given to
        ``fit_reports``); ``partial_fit`` with ``'auto'`` needs it.
    projection : {'auto', 'gaussian', 'sparse', 'identity'}, default='auto'
        ``'auto'``: the identity when the number of components reaches
        ``n_features`` (a square random projection only distorts), else
        ``'gaussian'``; always ``'gaussian'`` with ``calibration='paper'``.
        Public projection (scikit-learn's Gaussian or sparse random
        projection, from a public seed); ``'identity'`` is the
        full-dimensional debiased least squares (``m = d``).
    data_norm : float, default=1.0
        Public l2 bound on ``x``; users clip to it.
    feature_norm : float or None, default=None
        Public l2 bound the projected features are clipped to; None means
        ``data_norm``.
    y_bound : float, default=1.0
        Public bound on ``|y|``; users clip to it.
    fit_intercept : bool, default=True
        Fit an unpenalized intercept. The constant feature carries no private
        information, so the server centres the debiased statistics with the
        exact count ``n`` and the noisy sums (unbiased: the centred scatter is
        debiased by ``(n - 1) sigma_x^2``).
    recovery : {'basis_pursuit'} or None, default=None
        None returns the FISTA solution (seed 003 Alg. 3). ``'basis_pursuit'``
        (seed 000 Alg. 4) replaces it by the minimum-l1-norm ``w`` with the
        same projection ``Phi^T w``: the objective depends on ``w`` only
        through ``Phi^T w``, so this keeps the objective value and picks the
        sparsest representative (a linear program; cost grows with ``d m``).
    calibration : {'analytic', 'paper'}, default='analytic'
        Joint analytic Gaussian calibration of ``(z_i, v_i)``, or the paper's
        split (``epsilon/2, delta/2`` each, classic formula).
    max_iter : int, default=1000
        FISTA iterations.
    tol : float, default=1e-6
        FISTA stopping tolerance on the relative step.
    random_state : int, RandomState instance or None, default=None
        The users' noise (simulation) and, for an int, the public
        projection seed (derived from it).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    n_components_ : int
        Projected dimension used.
    projection_seed_ : int
        Public seed of the projection.
    noise_scale_ : float
        ``sigma_x``, the std of the noise on each projected feature.
    n_samples_seen_ : int
        Number of users aggregated.
    n_iter_ : int
        FISTA iterations of the last solve.
    privacy_epsilon_, privacy_delta_ : float
        The per-user guarantee.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Defined when ``X`` has string feature names.

    See Also
    --------
    SparseLDPMeanEstimator : l1-bounded mean estimation with the same reports.
    sklearn.linear_model.Lasso : the non-private (penalized) counterpart.

    Notes
    -----
    Zheng, Mou, Wang, "Collect at Once, Use Effectively: Making
    Non-interactive Locally Private Learning Possible", ICML 2017, Alg. 3;
    Wang, Gaboardi, Xu, "Empirical Risk Minimization in Non-interactive
    Local Differential Privacy Revisited", NeurIPS 2018, Alg. 4. The printed
    noise scale of Alg. 1/3 uses sensitivity 1 for vectors of the unit ball;
    replacing a record moves them by up to 2, as the paper's own Lemma 1
    states, so the library calibrates for ``2 feature_norm``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import SparseLDPRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.standard_normal((20000, 50))
    >>> X[:, 1:] *= 0.5 / np.linalg.norm(X[:, 1:], axis=1, keepdims=True)
    >>> X[:, 0] = rng.uniform(-0.8, 0.8, 20000)
    >>> y = X[:, 0] * 1.0 + rng.uniform(-0.2, 0.2, 20000)
    >>> reg = SparseLDPRegressor(epsilon=8.0, l1_radius=1.0, n_components=30,
    ...                          random_state=0).fit(X, y)
    >>> reg.n_components_, int(np.argmax(np.abs(reg.coef_)))
    (30, 0)
    """

    _parameter_constraints = {
        **_ProjectedLDPBase._projected_parameter_constraints,
        "y_bound": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "recovery": [StrOptions({"basis_pursuit"}), None],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        l1_radius=1.0,
        n_components="auto",
        n_users=None,
        projection="auto",
        data_norm=1.0,
        feature_norm=None,
        y_bound=1.0,
        fit_intercept=True,
        recovery=None,
        calibration="analytic",
        max_iter=1000,
        tol=1e-6,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.l1_radius = l1_radius
        self.n_components = n_components
        self.n_users = n_users
        self.projection = projection
        self.data_norm = data_norm
        self.feature_norm = feature_norm
        self.y_bound = y_bound
        self.fit_intercept = fit_intercept
        self.recovery = recovery
        self.calibration = calibration
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _auto_components(self, n_features, n_users):
        m = np.ceil(np.sqrt(n_users * self.epsilon**2 * np.log(max(n_features, 1))))
        return int(min(max(m, 1), n_features))

    def _y_bound(self):
        return self.y_bound

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Simulate the users' randomizers on ``(X, y)`` and fit the server.

        Users are randomized and aggregated chunk by chunk, so memory beyond
        ``X`` does not grow with the number of users.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            One row per user.
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        X, y, _ = self._validate_fit_input(X, y)
        self._simulate(X, y, reset=True)
        self._solve()
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y):
        """Add a batch of users, then refit the server on everyone so far.

        The projection and the noise generator are kept across calls (noise
        is never reused across batches).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        first_call = self._check_partial_fit(X, y)
        X, y = validate_data(
            self, X, y, dtype=np.float64, y_numeric=True, reset=first_call
        )
        self._simulate(X, y, reset=first_call)
        self._solve(warm_start=not first_call)
        return self

    def _start_server(self, config, n_users):
        self._server_config = dict(config)
        # The constant column (exact, noise-free) gives the sums of z and v.
        self._statistics = SufficientStatistics(int(config["n_components"]) + 1)

    def _accumulate(self, reports):
        features = reports["x"]
        augmented = np.hstack([features, np.ones((features.shape[0], 1))])
        self._statistics.update(augmented, reports["y"])

    def _solve(self, warm_start=False):
        config, stats = self._server_config, self._statistics
        m, n = int(config["n_components"]), stats.n
        sigma = float(config["sigma_x"])
        quadratic, linear, feature_mean, target_mean = _debiased_least_squares(
            stats.gram, stats.moment, n, m, sigma, self.fit_intercept
        )
        components = projection_components(config)
        n_features = int(config["n_features"])
        # partial_fit starts from the previous solution; fit is reproducible.
        start = getattr(self, "coef_", None) if warm_start else None
        if start is None or start.shape != (n_features,):
            start = np.zeros(n_features)
        coef, self.n_iter_ = _solve_l1_least_squares(
            quadratic,
            linear,
            components,
            self.l1_radius,
            start,
            max_iter=self.max_iter,
            tol=self.tol,
        )
        if self.recovery == "basis_pursuit" and components is not None:
            coef = basis_pursuit(components, components @ coef)
        projected = coef if components is None else components @ coef
        self.coef_ = coef
        self.intercept_ = float(target_mean - feature_mean @ projected)
        self.n_components_ = m
        self.projection_seed_ = int(config["projection_seed"])
        self.noise_scale_ = sigma
        self.n_samples_seen_ = int(n)

    def predict(self, X):
        """Predict with the linear model ``X @ coef_ + intercept_``.

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
        return ldp_tags(super().__sklearn_tags__())


def _debiased_least_squares(gram, moment, n, m, sigma, fit_intercept, project=True):
    """Debiased, PSD-projected quadratic and linear terms (divided by ``n``).

    ``gram``/``moment`` are ``[Z, 1]^T [Z, 1]`` and ``[Z, 1]^T v``. Without an
    intercept: ``Q = Proj_PSD(Z^T Z - n sigma^2 I)``, ``b = Z^T v``. With one,
    the centred versions ``Z^T Z - s s^T / n - (n - 1) sigma^2 I`` (``s`` the
    sum of the ``z_i``; ``E[s s^T / n]`` carries ``sigma^2 I`` of noise) and
    ``Z^T v - s sum(v) / n``, both unbiased for the clean centred statistics.
    Returns ``(Q / n, b / n, mean z, mean v)``; ``project=False`` skips
    ``Proj_PSD`` (to test unbiasedness).
    """
    n = max(int(n), 1)
    scatter = gram[:m, :m].copy()
    cross = moment[:m].copy()
    if fit_intercept:
        sums, target_sum = gram[:m, m], moment[m]
        scatter -= np.outer(sums, sums) / n
        cross -= sums * target_sum / n
        scatter[np.diag_indices(m)] -= (n - 1) * sigma**2
        feature_mean, target_mean = sums / n, target_sum / n
    else:
        scatter[np.diag_indices(m)] -= n * sigma**2
        feature_mean, target_mean = np.zeros(m), 0.0
    if project:
        scatter = project_psd(scatter)
    return scatter / n, cross / n, feature_mean, target_mean


def _solve_l1_least_squares(
    quadratic, linear, components, radius, start, *, max_iter, tol
):
    """``min_w 1/2 (C w)^T Q (C w) - b^T C w`` over ``||w||_1 <= radius``.

    ``C`` is the projection ``Phi^T`` (None for the identity). Returns the
    solution and the number of FISTA iterations.
    """
    if components is None:

        def matvec(w):
            return quadratic @ w

        gradient_linear = linear
    else:

        def matvec(w):
            return components.T @ (quadratic @ (components @ w))

        gradient_linear = components.T @ linear
    coef, n_iter, converged = fista_quadratic(
        matvec,
        np.asarray(gradient_linear, dtype=np.float64).ravel(),
        lambda w: project_l1_ball(w, radius),
        start,
        max_iter=max_iter,
        tol=tol,
    )
    _warn_if_not_converged(converged, max_iter)
    return coef, n_iter


def _warn_if_not_converged(converged, max_iter):
    if not converged:
        warnings.warn(
            f"FISTA did not reach tol in max_iter={max_iter} iterations; "
            "increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=4,
        )


class SparseLDPMeanEstimator(_ProjectedLDPBase, BaseEstimator):
    """Mean of l2-bounded data with an l1-bounded mean, under local DP.

    Seed 003 Algorithm 2. Each user sends ``y_i = clip(G clip(x_i)) +
    N(0, sigma^2 I_p)`` for a public Gaussian ``G`` (``p x d``, ``p << d``).
    The server estimates ``G mu`` by the mean of all reports
    (``aggregation='mean'``) or by the paper's median-of-means over groups in
    l1 distance, then recovers the ``d``-dimensional mean: by l1-residual
    basis pursuit ``min ||z||_1 s.t. ||G z - u||_1 <= tau`` (the paper,
    a linear program) or by least squares over the l1 ball of radius
    ``l1_radius`` (``recovery='l1_ball'``, FISTA).

    Guarantee: each user's record ``x_i`` is (epsilon, delta)-LDP.

    Parameters
    ----------
    epsilon : float, default=1.0
    delta : float, default=1e-5
    l1_radius : float, default=1.0
        Public bound ``Lambda`` on the l1 norm of the mean.
    n_components : 'auto' or int, default='auto'
        Projected dimension ``p``; ``'auto'`` is the paper's
        ``ceil(Lambda epsilon sqrt(n))`` (with ``Lambda`` in units of
        ``data_norm``), capped at ``d``.
    n_users : int or None, default=None
        Public population size for ``'auto'`` (see :class:`SparseLDPRegressor`).
    projection : {'auto', 'gaussian', 'sparse', 'identity'}, default='auto'
        ``'auto'``: the identity when the number of components reaches
        ``n_features`` (a square random projection only distorts), else
        ``'gaussian'``; always ``'gaussian'`` with ``calibration='paper'``.
    data_norm : float, default=1.0
        Public l2 bound on ``x``.
    feature_norm : float or None, default=None
        Public bound the projected vectors are clipped to (``data_norm``).
    aggregation : {'mean', 'median_of_means'}, default='mean'
        How the server estimates ``G mu``. The paper's median-of-means (over
        ``n_groups`` groups) gives exponential tails for heavy-tailed
        data; here the data are bounded and the noise Gaussian, so the plain
        mean already has them and is ``sqrt(n_groups)`` times less noisy.
    n_groups : 'auto' or int, default='auto'
        Groups of median-of-means; ``'auto'`` is the paper's
        ``ceil(18 log(1/delta))``, at most ``n``.
    recovery : {'basis_pursuit', 'l1_ball'}, default='l1_ball'
        ``'basis_pursuit'``: ``min ||z||_1 s.t. ||G z - u||_1 <= tau`` with
        ``tau`` the typical size of the error of ``u`` (see Notes).
        ``'l1_ball'``: ``min ||G z - u||_2`` over ``||z||_1 <= l1_radius``.
    calibration : {'analytic', 'paper'}, default='analytic'
    max_iter : int, default=1000
        FISTA iterations (``'l1_ball'``).
    tol : float, default=1e-6
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    location_ : ndarray of shape (n_features,)
        The estimated mean.
    n_components_ : int
    n_groups_ : int
        Groups used (1 for ``aggregation='mean'``).
    residual_bound_ : float
        ``tau`` of the basis-pursuit recovery (nan for ``'l1_ball'``).
    projection_seed_ : int
    noise_scale_ : float
    n_samples_seen_ : int
    privacy_epsilon_, privacy_delta_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    SparseLDPRegressor : the same reports for linear regression.
    sklearn.covariance.EmpiricalCovariance : non-private ``location_``.

    Notes
    -----
    Zheng, Mou, Wang, ICML 2017, Algorithm 2. Departures from the print,
    each derived in the docs: the noise is calibrated for the l2 sensitivity
    ``2 feature_norm`` of the clipped projection (the print adds
    ``N(0, 2 log(1.25/delta)/eps^2)`` to an unclipped ``G x``, sensitivity
    1, which is not a bounded-sensitivity release); the printed residual
    bound ``100 p log(nd/delta) / eps * sqrt(m/n)`` is a proof constant
    hundreds of times the actual error, which makes ``z = 0`` feasible, so
    ``tau`` is set to the known error scale of the selected group mean
    ``u`` (over ``g`` users): ``(p sigma sqrt(2/pi) + 3 sigma sqrt(p (1 -
    2/pi)) + sqrt(p) feature_norm) / sqrt(g)`` (the mean l1 norm of its noise
    plus three standard deviations, plus the l1 size of the sampling error).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import SparseLDPMeanEstimator
    >>> rng = np.random.RandomState(0)
    >>> X = np.zeros((20000, 100))
    >>> X[:, 3] = rng.uniform(0.2, 1.0, 20000)
    >>> est = SparseLDPMeanEstimator(epsilon=2.0, random_state=0).fit(X)
    >>> int(np.argmax(est.location_)), round(float(est.location_[3]), 1)
    (3, 0.6)
    """

    _parameter_constraints = {
        **_ProjectedLDPBase._projected_parameter_constraints,
        "aggregation": [StrOptions({"mean", "median_of_means"})],
        "n_groups": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "recovery": [StrOptions({"basis_pursuit", "l1_ball"})],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        l1_radius=1.0,
        n_components="auto",
        n_users=None,
        projection="auto",
        data_norm=1.0,
        feature_norm=None,
        aggregation="mean",
        n_groups="auto",
        recovery="l1_ball",
        calibration="analytic",
        max_iter=1000,
        tol=1e-6,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.l1_radius = l1_radius
        self.n_components = n_components
        self.n_users = n_users
        self.projection = projection
        self.data_norm = data_norm
        self.feature_norm = feature_norm
        self.aggregation = aggregation
        self.n_groups = n_groups
        self.recovery = recovery
        self.calibration = calibration
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _auto_components(self, n_features, n_users):
        scaled_radius = self.l1_radius / self.data_norm
        p = np.ceil(scaled_radius * self.epsilon * np.sqrt(n_users))
        return int(min(max(p, 1), n_features))

    def _n_groups(self, n_users):
        if self.aggregation == "mean":
            return 1
        if self.n_groups == "auto":
            groups = int(np.ceil(18.0 * np.log(1.0 / self.delta)))
        else:
            groups = int(self.n_groups)
        return max(1, min(groups, int(n_users)))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Simulate the users' randomizers on ``X`` and estimate the mean.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            One row per user.
        y : Ignored

        Returns
        -------
        self : object
        """
        X = validate_data(self, X, dtype=np.float64)
        self._simulate(X, None, reset=True)
        self._solve()
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Add a batch of users, then re-estimate from everyone so far.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        self : object
        """
        first_call = self._check_partial_fit(X, y)
        X = validate_data(self, X, dtype=np.float64, reset=first_call)
        self._simulate(X, None, reset=first_call)
        self._solve()
        return self

    def _start_server(self, config, n_users):
        self._server_config = dict(config)
        self._sums = GroupedSums(self._n_groups(n_users), int(config["n_components"]))

    def _accumulate(self, reports):
        self._sums.update(reports["x"])

    def _solve(self):
        config, sums = self._server_config, self._sums
        means = sums.means()
        if means.shape[0] > 1:
            center, index = median_of_means(means, metric="cityblock")
            group_size = int(sums.counts[sums.counts > 0][index])
        else:
            center, group_size = means[0], int(sums.counts[0])
        components = projection_components(config)
        sigma = float(config["sigma_x"])
        m = int(config["n_components"])
        if components is None:
            components = np.eye(m)
        if self.recovery == "basis_pursuit":
            tau = _residual_bound(m, sigma, float(config["feature_norm"]), group_size)
            location = basis_pursuit(components, center, residual_bound=tau)
            self.n_iter_ = 0
        else:
            tau = np.nan
            location, self.n_iter_ = _fit_l1_ball(
                components, center, self.l1_radius, self.max_iter, self.tol
            )
        self.location_ = np.asarray(location, dtype=np.float64)
        self.residual_bound_ = float(tau)
        self.n_components_ = m
        self.n_groups_ = int(means.shape[0])
        self.projection_seed_ = int(config["projection_seed"])
        self.noise_scale_ = sigma
        self.n_samples_seen_ = int(sums.n)


def _residual_bound(n_components, sigma, feature_norm, group_size):
    """Typical l1 size of the error of a mean of ``group_size`` projected reports.

    The noise part is ``N(0, sigma^2 / g I_p)``: its l1 norm has mean
    ``p sigma sqrt(2/pi) / sqrt(g)`` and std ``sigma sqrt(p (1 - 2/pi) / g)``;
    the sampling part has ``E ||.||_2^2 <= feature_norm^2 / g``, so its l1
    norm is about ``sqrt(p) feature_norm / sqrt(g)``.
    """
    p, g = float(n_components), max(float(group_size), 1.0)
    noise = p * sigma * np.sqrt(2.0 / np.pi) + 3.0 * sigma * np.sqrt(
        p * (1.0 - 2.0 / np.pi)
    )
    return (noise + np.sqrt(p) * feature_norm) / np.sqrt(g)


def _fit_l1_ball(components, target, radius, max_iter, tol):
    """``min_z 1/2 ||G z - u||^2`` over ``||z||_1 <= radius`` (FISTA)."""

    def matvec(z):
        return components.T @ (components @ z)

    linear = np.asarray(components.T @ target, dtype=np.float64).ravel()
    location, n_iter, converged = fista_quadratic(
        matvec,
        linear,
        lambda z: project_l1_ball(z, radius),
        np.zeros(components.shape[1]),
        max_iter=max_iter,
        tol=tol,
    )
    _warn_if_not_converged(converged, max_iter)
    return location, n_iter
