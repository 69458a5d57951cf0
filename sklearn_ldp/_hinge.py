"""HingeLDPClassifier: smoothed-hinge linear classifier from one-shot noisy reports.

Seed 001 (Wang, Gaboardi, Smith, Xu, JMLR 2020), Section 5.1, Algorithm 4,
with SIGM (Appendix C, Algorithm 9) or full-batch accelerated projected
gradient on the server; ALGORITHMS.md section 2.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from ._base import LDPEstimatorMixin, ldp_tags
from ._linear import LinearClassifierOutputMixin
from .accounting import gaussian_sigma
from .aggregation import (
    PolynomialGradientOracle,
    approximation_error,
    bernstein_product_terms,
    polynomial_approximation,
)
from .optim import accelerated_projected_gradient, project_l2_ball, sigm
from .randomizers import GaussianRecordRandomizer, LocalRandomizer, clip_l2
from .randomizers._gaussian import encode_labels
from .utils import check_bound, check_delta, check_epsilon

#: Candidate degrees of ``degree='auto'``.
AUTO_DEGREES = tuple(range(1, 7))
#: Users used to estimate the oracle's variance on the server.
_PILOT_USERS = 20_000


def smoothed_hinge(t, smoothing):
    """Lemma 28: ``f_beta(t) = (1/2 - t + sqrt((1/2 - t)^2 + beta^2)) / 2``.

    Smooth, convex, within ``beta / 2`` of ``max(0, 1/2 - t)``.
    """
    margin = 0.5 - np.asarray(t, dtype=float)
    return 0.5 * (margin + np.hypot(margin, smoothing))


def smoothed_hinge_derivative(t, smoothing):
    """``f_beta'(t) = -(1 + (1/2 - t) / sqrt((1/2 - t)^2 + beta^2)) / 2``, in ``[-1, 0]``.

    ``f_beta''(t) = beta^2 / (2 ((1/2 - t)^2 + beta^2)^(3/2)) <= 1 / (2 beta)``
    (Lemma 28 states the looser ``1 / beta``).
    """
    margin = 0.5 - np.asarray(t, dtype=float)
    return -0.5 * (1.0 + margin / np.hypot(margin, smoothing))


def smoothed_hinge_risk(coef, intercept, X, y, smoothing, data_norm=1.0):
    """Empirical smoothed-hinge risk ``mean f_beta(y (<w, x / data_norm> + b))``.

    ``coef`` and ``intercept`` are in original units (as fitted); ``y`` in
    ``{-1, +1}``. Used by the tests and the benchmark.
    """
    X = clip_l2(X, data_norm)
    margins = y * (X @ np.ravel(coef) + float(np.ravel(intercept)[0]))
    return float(np.mean(smoothed_hinge(margins, smoothing)))


def paper_budget(epsilon, delta, degree):
    """Per-release ``(eps, delta)`` of the printed Algorithm 4, made to compose to the total.

    Algorithm 4 prints variances ``32 ln(1.25/delta) / eps^2`` for ``x_0`` and
    ``y_0`` and ``8 ln(1.25/delta) d^2 (d+1)^2 / eps^2`` for the ``2 d (d+1)``
    other copies. With the classic formula and sensitivity 2 (any two
    records, ``||x|| <= 1``, ``|y| <= 1``) these are budgets ``eps / 2`` for
    each of ``x_0, y_0`` and ``eps / (d (d+1))`` per copy: a total of
    ``3 eps`` and ``(2 d (d+1) + 2) delta`` under basic composition, not the
    claimed ``(eps, delta)``. We keep the printed proportions and scale them
    so the basic composition is exactly ``(eps, delta)``: ``eps / 6`` for
    ``x_0`` and ``y_0``, ``eps / (3 d (d+1))`` per copy, and
    ``delta / (2 d (d+1) + 2)`` for every release.

    Returns
    -------
    eps_direction, eps_copy, delta_release : float
    """
    n_pairs = degree * (degree + 1)
    return epsilon / 6.0, epsilon / (3.0 * n_pairs), delta / (2.0 * n_pairs + 2.0)


class HingeCopiesRandomizer(LocalRandomizer):
    """The printed report of seed 001, Algorithm 4: ``d (d+1) + 1`` noisy copies.

    Each user clips ``x`` to the l2 ball of radius ``data_norm``, encodes its
    label as +-1, and sends ``x_j = x + N(0, sigma_{x,j}^2 I)`` and
    ``y_j = y + N(0, sigma_{y,j}^2)`` for ``j = 0..d(d+1)``, all independent.
    Copy 0 (the gradient direction) has the printed variance ratio
    ``sigma_j / sigma_0 = d (d+1) / 2`` to the others.

    Privacy. Each of the ``2 d (d+1) + 2`` releases is a Gaussian mechanism
    of sensitivity ``2 data_norm`` (features) or 2 (label), calibrated with
    the classic formula (raised to the analytic value where the formula
    would under-noise) at the budget of :func:`paper_budget`; by basic
    composition each user's record is (epsilon, delta)-LDP. (The printed
    variances themselves compose to ``(3 eps, (2 d (d+1) + 2) delta)``; see
    :func:`paper_budget`.)

    Report size per user: ``(d (d+1) + 1) (n_features + 1)`` numbers, against
    ``n_features + 1`` for the jointly calibrated report of the default mode.

    Parameters
    ----------
    n_features : int
    epsilon, delta : float
    degree : int
        Polynomial degree ``d >= 1``.
    data_norm : float, default=1.0
    classes : array-like of two labels or None, default=None
        ``None`` means the labels are already -1 and +1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp._hinge import HingeCopiesRandomizer
    >>> rand = HingeCopiesRandomizer(2, epsilon=1.0, delta=1e-5, degree=2)
    >>> reports = rand.randomize(np.ones((4, 2)), np.array([-1, 1, 1, -1]), random_state=0)
    >>> reports["x"].shape, reports.as_matrix().shape
    ((4, 7, 2), (4, 21))
    """

    def __init__(
        self, n_features, *, epsilon, delta, degree, data_norm=1.0, classes=None
    ):
        self.n_features = int(n_features)
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        if isinstance(degree, bool) or int(degree) != degree or degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
        self.degree = int(degree)
        self.data_norm = check_bound(data_norm, name="data_norm")
        self.classes = (
            np.array([-1, 1]) if classes is None else np.sort(np.asarray(classes))
        )
        if self.classes.ndim != 1 or len(np.unique(self.classes)) != 2:
            raise ValueError(
                "HingeCopiesRandomizer needs exactly two distinct classes, got "
                f"{self.classes.tolist()}."
            )
        self.n_copies = self.degree * (self.degree + 1) + 1
        eps_direction, eps_copy, delta_release = paper_budget(
            self.epsilon, self.delta, self.degree
        )
        sens_x, sens_y = 2.0 * self.data_norm, 2.0
        self.sigma_x = np.full(
            self.n_copies, gaussian_sigma(eps_copy, delta_release, sens_x, "classic")
        )
        self.sigma_y = np.full(
            self.n_copies, gaussian_sigma(eps_copy, delta_release, sens_y, "classic")
        )
        self.sigma_x[0] = gaussian_sigma(
            eps_direction, delta_release, sens_x, "classic"
        )
        self.sigma_y[0] = gaussian_sigma(
            eps_direction, delta_release, sens_y, "classic"
        )
        # Bound the temporaries of one chunk to about 4M floats.
        self.chunk_size = max(1, 4_000_000 // (self.n_copies * (self.n_features + 1)))

    def _config(self):
        return {
            "calibration": "paper",
            "classes": self.classes.tolist(),
            "data_norm": self.data_norm,
            "degree": self.degree,
            "n_copies": self.n_copies,
            "sigma_x": self.sigma_x.tolist(),
            "sigma_y": self.sigma_y.tolist(),
        }

    def _randomize_chunk(self, X, y, rng):
        clipped = clip_l2(X, self.data_norm)
        labels = encode_labels(y, self.classes)
        shape = (X.shape[0], self.n_copies)
        noise_x = (
            rng.standard_normal(shape + (self.n_features,)) * self.sigma_x[:, None]
        )
        noise_y = rng.standard_normal(shape) * self.sigma_y
        return {
            "x": clipped[:, None, :] + noise_x,
            "y": labels[:, None] + noise_y,
        }


class HingeLDPClassifier(
    LDPEstimatorMixin, LinearClassifierOutputMixin, ClassifierMixin, BaseEstimator
):
    """Binary linear classifier with the smoothed hinge loss under local DP.

    Each user sends one noisy report of its record; the server minimizes the
    smoothed hinge risk ``mean f_beta(y (<w, x> + b))`` over ``||w|| <=
    coef_norm`` with an unbiased gradient oracle built from the reports
    (seed 001, Algorithm 4). Guarantee: each sample ``(x_i, y_i)`` is
    (epsilon, delta)-LDP.

    The derivative ``f_beta'`` is replaced by a degree-``d`` polynomial
    ``P`` on the reachable interval ``[-r, r]`` of ``y <w, z>`` (``z`` the
    scaled features ``x / data_norm``, with a constant 1 appended when
    ``fit_intercept``; ``r = coef_norm ||z||_max``). For any ``w`` the server
    has an unbiased estimate of ``P(y <w, z>) y z`` per user:

    - ``calibration='analytic'`` (default): the user sends one jointly
      calibrated Gaussian report of ``(x, y)`` (analytic Gaussian mechanism);
      the server splits it into ``d + 1`` independent copies by Gaussian
      fission, estimates ``P`` with elementary symmetric polynomials of ``d``
      copies and the direction from the last one. ``n_features + 1`` numbers
      per user, and the degree is a server-side choice.
    - ``calibration='paper'``: the printed protocol; the user sends
      ``d (d+1) + 1`` noisy copies (classic Gaussian formula, basic
      composition; :class:`HingeCopiesRandomizer`) and the server uses the
      printed product estimator of the Bernstein form.

    The estimate's variance grows like ``sigma^(2d)`` (``sigma`` the report
    noise, about ``7 / epsilon`` at ``delta = 1e-5``): the method needs
    large ``epsilon`` or very many users, and low degrees. See the docs
    page for measured numbers.

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget.
    delta : float, default=1e-5
        Per-user delta.
    degree : int or 'auto', default=1
        Degree ``d`` of the polynomial approximation of ``f_beta'``. The
        oracle's variance grows like ``sigma^(2d)``; in the benchmark and the
        gallery example ``d = 1`` was the best or tied at every epsilon.
        ``'auto'`` (analytic mode only) picks ``d`` in 1..6 on the server by
        minimizing an estimate of the oracle's mean squared error
        (approximation error squared plus estimated variance over ``n``),
        computed from the reports at no privacy cost.
    smoothing : float, default=0.5
        ``beta`` of Lemma 28. Larger is smoother: easier to approximate with
        a low degree (lower variance), further from the hinge loss.
    approximation : {'chebyshev', 'bernstein'}, default='chebyshev'
        Chebyshev interpolation or the paper's Bernstein polynomial.
    coef_norm : float, default=1.0
        Radius of the l2 ball of the coefficients (intercept included), in
        units of the scaled features ``x / data_norm``.
    data_norm : float, default=1.0
        Public l2 bound on ``x``; users clip to it.
    fit_intercept : bool, default=True
        Learn an intercept (a public constant feature: no privacy cost).
    solver : {'sigm', 'gd'}, default='sigm'
        ``'sigm'``: the printed one pass of SIGM over the users, in
        ``max_iter + 1`` mini-batches (projected dual averaging with iterate
        averaging); its steps shrink with the estimated oracle noise, which
        made it the more robust solver in the benchmark.
        ``'gd'``: accelerated projected gradient on the average of all users'
        oracles (full batch; free post-processing of the reports; each
        iteration is a pass over the users).
    max_iter : int, default=100
        Iterations of ``'gd'``, or steps of ``'sigm'``.
    calibration : {'analytic', 'paper'}, default='analytic'
    random_state : int, RandomState instance or None, default=None
        Users' noise in ``fit`` and the server's randomness.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    classes_ : ndarray of shape (2,)
    degree_ : int
        Degree used.
    poly_coef_ : ndarray of shape (`degree_` + 1,)
        Monomial coefficients of the polynomial approximation of ``f_beta'``.
    approximation_error_ : float
        ``max |P - f_beta'|`` on the reachable interval.
    n_iter_ : int
    privacy_epsilon_, privacy_delta_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    sklearn.svm.LinearSVC : the non-private counterpart.

    Notes
    -----
    Wang, Gaboardi, Smith and Xu, *Empirical Risk Minimization in the
    Non-interactive Local Model of Differential Privacy*, JMLR 21 (2020),
    Section 5.1, Algorithm 4 and Appendix C. Corrections: the printed
    variances over-spend the budget (:func:`paper_budget`); the printed
    Bernstein polynomial lives on ``[0, 1]`` while ``y <w, x>`` ranges over
    ``[-1, 1]``, so the polynomial is built on the reachable interval.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import HingeLDPClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, size=(20_000, 2)) / np.sqrt(2)
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> clf = HingeLDPClassifier(epsilon=8.0, degree=1, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    """

    _is_ldp_classifier = True

    _parameter_constraints = {
        **LDPEstimatorMixin._ldp_parameter_constraints,
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "smoothing": [Interval(Real, 0, None, closed="neither")],
        "approximation": [StrOptions({"chebyshev", "bernstein"})],
        "coef_norm": [Interval(Real, 0, None, closed="neither")],
        "data_norm": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "solver": [StrOptions({"gd", "sigm"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "calibration": [StrOptions({"analytic", "paper"})],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        degree=1,
        smoothing=0.5,
        approximation="chebyshev",
        coef_norm=1.0,
        data_norm=1.0,
        fit_intercept=True,
        solver="sigm",
        max_iter=100,
        calibration="analytic",
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.degree = degree
        self.smoothing = smoothing
        self.approximation = approximation
        self.coef_norm = coef_norm
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.max_iter = max_iter
        self.calibration = calibration
        self.random_state = random_state

    def make_randomizer(self, n_features, classes=None):
        """The users' randomizer (public configuration).

        Parameters
        ----------
        n_features : int
        classes : array-like of two labels or None, default=None
            ``None``: the labels are -1 and +1.

        Returns
        -------
        randomizer : GaussianRecordRandomizer or HingeCopiesRandomizer
        """
        classes = np.array([-1, 1]) if classes is None else np.asarray(classes)
        if len(classes) != 2:
            raise ValueError(
                "Only binary classification is supported. HingeLDPClassifier got "
                f"{len(classes)} classes {classes.tolist()[:10]}; use one classifier "
                "per class (one-vs-rest), each with its own privacy budget."
            )
        if self.calibration == "paper":
            if self.degree == "auto":
                raise ValueError(
                    "degree='auto' needs calibration='analytic': in the paper's "
                    "protocol the degree fixes the size of every user's report, so "
                    "it must be chosen before any data is seen."
                )
            return HingeCopiesRandomizer(
                n_features,
                epsilon=self.epsilon,
                delta=self.delta,
                degree=self.degree,
                data_norm=self.data_norm,
                classes=classes,
            )
        return GaussianRecordRandomizer(
            n_features,
            epsilon=self.epsilon,
            delta=self.delta,
            data_norm=self.data_norm,
            classes=classes,
            calibration="analytic",
        )

    # -- server -----------------------------------------------------------

    def _fit_server(self, reports, rng):
        config = reports.config
        data_norm = float(config["data_norm"])
        z_norm = np.sqrt(1.0 + self.fit_intercept)
        radius = float(self.coef_norm)
        interval = (-radius * z_norm, radius * z_norm)

        def derivative(t):
            return smoothed_hinge_derivative(t, self.smoothing)

        x = reports["x"] / data_norm
        y = reports["y"]
        if config.get("calibration") == "paper":
            degree = int(config["degree"])
            coef = polynomial_approximation(
                derivative, degree, interval, self.approximation
            )
            if self.approximation == "bernstein":
                oracle_args = {
                    "terms": bernstein_product_terms(derivative, degree, interval)
                }
            else:
                oracle_args = {"coef": coef}
            oracle = PolynomialGradientOracle(
                x,
                y,
                mode="product",
                fit_intercept=self.fit_intercept,
                random_state=rng,
                **oracle_args,
            )
        else:
            sigmas = {
                "sigma_x": float(config["sigma_x"]) / data_norm,
                "sigma_y": float(config["sigma_y"]),
            }
            degree = self.degree
            if degree == "auto":
                degree = self._select_degree(x, y, sigmas, interval, derivative, rng)
            coef = polynomial_approximation(
                derivative, degree, interval, self.approximation
            )
            oracle = PolynomialGradientOracle(
                x,
                y,
                mode="fission",
                coef=coef,
                fit_intercept=self.fit_intercept,
                random_state=rng,
                **sigmas,
            )

        def projection(w):
            return project_l2_ball(w, radius)

        # f_beta'' <= 1 / (2 beta) and ||z||^2 <= z_norm^2.
        smoothness = z_norm**2 / (2.0 * self.smoothing)
        if self.solver == "gd":
            w, n_iter = accelerated_projected_gradient(
                oracle.mean,
                np.zeros(oracle.dim),
                step=1.0 / smoothness,
                projection=projection,
                max_iter=self.max_iter,
            )
        else:
            w, n_iter = self._run_sigm(oracle, smoothness, radius, projection, rng)

        n_features = x.shape[-1]
        self.degree_ = int(degree)
        self.poly_coef_ = coef
        self.approximation_error_ = approximation_error(derivative, coef, interval)
        self.coef_ = (w[:n_features] / data_norm)[None, :]
        self.intercept_ = np.array([w[n_features] if self.fit_intercept else 0.0])
        self.n_iter_ = int(n_iter)

    def _run_sigm(self, oracle, smoothness, radius, projection, rng):
        n_users = oracle.n_users
        n_steps = min(int(self.max_iter), n_users - 1)
        batches = np.array_split(rng.permutation(n_users), n_steps + 1)
        # The oracle's standard deviation per user, estimated on the server
        # at a plausible point of the ball, then divided by the batch size.
        second_moment = _second_moment(oracle, _pilot_point(oracle, radius), rng)
        sigma = np.sqrt(second_moment / min(len(b) for b in batches))

        def stochastic_gradient(w, k):
            return oracle.batch(w, batches[k], rng)

        w = sigm(
            stochastic_gradient,
            oracle.dim,
            n_steps=n_steps,
            smoothness=smoothness,
            sigma=sigma,
            radius=radius,
            projection=projection,
        )
        return w, n_steps

    def _select_degree(self, x, y, sigmas, interval, derivative, rng):
        """Pick the degree minimizing approximation error^2 + variance / n."""
        n_users = x.shape[0]
        z_norm = np.sqrt(1.0 + self.fit_intercept)
        pilot = None
        best, best_score = None, np.inf
        for degree in AUTO_DEGREES:
            coef = polynomial_approximation(
                derivative, degree, interval, self.approximation
            )
            oracle = PolynomialGradientOracle(
                x,
                y,
                mode="fission",
                coef=coef,
                fit_intercept=self.fit_intercept,
                random_state=rng,
                **sigmas,
            )
            if pilot is None:
                pilot = _pilot_point(oracle, float(self.coef_norm))
            bias = approximation_error(derivative, coef, interval) * z_norm
            score = bias**2 + _second_moment(oracle, pilot, rng) / n_users
            if score < best_score:
                best, best_score = degree, score
        return best

    # -- prediction ---------------------------------------------------------

    def __sklearn_tags__(self):
        tags = ldp_tags(super().__sklearn_tags__())
        tags.classifier_tags.multi_class = False
        return tags


def _pilot_point(oracle, radius):
    """A point on the sphere of radius ``radius`` along the mean noisy ``y z``.

    ``y`` and ``x`` carry independent noise, so the mean of their product is
    an unbiased estimate of ``mean y z``, the negative gradient direction of
    the hinge risk at 0. Pure post-processing of the reports.
    """
    x = oracle.x if oracle.x.ndim == 2 else oracle.x[:, 0]
    y = oracle.y if oracle.y.ndim == 1 else oracle.y[:, 0]
    direction = y @ x / oracle.n_users
    if oracle.fit_intercept:
        direction = np.append(direction, y.mean())
    norm = np.linalg.norm(direction)
    if norm == 0:
        direction, norm = np.ones_like(direction), np.sqrt(direction.size)
    return direction * (radius / norm)


def _second_moment(oracle, w, rng):
    """Mean squared norm of the per-user oracle at ``w`` on a subset of users."""
    n = min(oracle.n_users, _PILOT_USERS)
    indices = rng.choice(oracle.n_users, size=n, replace=False)
    values = oracle.per_user(w, np.sort(indices), rng)
    return float(np.mean(np.einsum("ij,ij->i", values, values)))
