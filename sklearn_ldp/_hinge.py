"""HingeLDPClassifier: smoothed-hinge linear classifier from one-shot noisy reports.

Seed 001 (Wang, Gaboardi, Smith, Xu, JMLR 2020), Section 5.1, Algorithm 4,
with SIGM (Appendix C, Algorithm 9) or full-batch accelerated projected
gradient on the server; ALGORITHMS.md section 2. The oracle is
:class:`~sklearn_ldp.aggregation.PolynomialGradientOracle`, the solvers
:func:`~sklearn_ldp.optim.minimize_on_ball`, the loss
``get_loss('smoothed_hinge')`` and the printed report
:class:`~sklearn_ldp.randomizers.GaussianCopiesRandomizer`.
"""

from functools import partial
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from ._base import LDPClassifierMixin, ldp_tags
from ._linear import (
    JOINT_MECHANISMS,
    LinearClassifierOutputMixin,
    PolynomialOracleClassifierMixin,
    fit_label_frequencies,
)
from .aggregation import (
    PolynomialGradientOracle,
    approximation_error,
    bernstein_product_terms,
    polynomial_approximation,
)
from .aggregation._blocks import draw_entropy
from .aggregation._frequency import FrequencySupportCounts
from .losses import SmoothedHingeLoss
from .randomizers import clip_l2


def smoothed_hinge(t, smoothing):
    """Lemma 28: ``f_beta(t) = (1/2 - t + sqrt((1/2 - t)^2 + beta^2)) / 2``.

    Smooth, convex, within ``beta / 2`` of ``max(0, 1/2 - t)``
    (``get_loss('smoothed_hinge', smoothing=beta).margin_value``).
    """
    return SmoothedHingeLoss(smoothing).margin_value(t)


def smoothed_hinge_derivative(t, smoothing):
    """``f_beta'(t) = -(1 + (1/2 - t) / sqrt((1/2 - t)^2 + beta^2)) / 2``, in ``[-1, 0]``.

    ``f_beta''(t) = beta^2 / (2 ((1/2 - t)^2 + beta^2)^(3/2)) <= 1 / (2 beta)``
    (Lemma 28 states the looser ``1 / beta``).
    """
    return SmoothedHingeLoss(smoothing).margin_derivative(t)


def smoothed_hinge_risk(coef, intercept, X, y, smoothing, data_norm=1.0):
    """Empirical smoothed-hinge risk ``mean f_beta(y (<w, x / data_norm> + b))``.

    ``coef`` and ``intercept`` are in original units (as fitted); ``y`` in
    ``{-1, +1}``. Used by the tests and the benchmark.
    """
    X = clip_l2(X, data_norm)
    margins = y * (X @ np.ravel(coef) + float(np.ravel(intercept)[0]))
    return float(np.mean(smoothed_hinge(margins, smoothing)))


# -- private dispatch --------------------------------------------------------


def _scaled(x, data_norm):
    # The default needs no scaled copy of the reports.
    return x if data_norm == 1.0 else x / data_norm


def _fission_kernel(reports, split, *, coef, data_norm, sigmas, fit_intercept):
    """The fission oracle of one block of joint reports (split keyed by position)."""
    return PolynomialGradientOracle(
        _scaled(reports["x"], data_norm),
        reports["y"],
        mode="fission",
        coef=coef,
        fit_intercept=fit_intercept,
        random_state=0,  # unused: the split is ``split``, the draws are keyed
        split_draws=split,
        **sigmas,
    )


def _product_kernel(reports, split, *, polynomial, data_norm, fit_intercept):
    """The printed product oracle of one block (``d (d+1) + 1`` copies per user)."""
    del split  # the copies were sent: nothing to split
    return PolynomialGradientOracle(
        _scaled(reports["x"], data_norm),
        reports["y"],
        mode="product",
        fit_intercept=fit_intercept,
        random_state=0,
        **polynomial,
    )


def _linear_label_pair(coef):
    """``(P2, P1)`` of a degree-1 ``P`` in the linear-label form ``m = P2(a) - y P1(a)``.

    For ``P(t) = p0 + p1 t``, ``P(y a) y = p1 a + p0 y`` (``y^2 = 1``), so
    ``P2 = p1 a`` and ``P1 = -p0`` (higher degrees: no such pair).
    """
    return np.array([0.0, coef[1]]), np.array([-coef[0], 0.0])


# -- the estimator ------------------------------------------------------------


class HingeLDPClassifier(
    PolynomialOracleClassifierMixin,
    LDPClassifierMixin,
    LinearClassifierOutputMixin,
    ClassifierMixin,
    BaseEstimator,
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

    - ``calibration='analytic'`` (default) at ``degree=1`` with
      ``solver='gd'`` (the default): the objective is a quadratic in
      ``(w, b)`` whose coefficients are the first and second moments of
      ``(x, y)``; the user sends one pure-epsilon PrivUnitG report of the
      pair (``mechanism='auto'``) and the server solves the quadratic
      exactly on their debiased moments.
    - ``calibration='analytic'`` otherwise (or ``mechanism='gaussian'``):
      the user sends one jointly calibrated Gaussian report of ``(x, y)``
      (analytic Gaussian mechanism); above degree 1 the server splits it
      into ``d + 1`` independent copies by Gaussian fission, estimates ``P``
      with elementary symmetric polynomials of ``d`` copies and the
      direction from the last one. ``n_features + 1`` numbers
      per user, and the degree is a server-side choice.
    - ``calibration='paper'``: the printed protocol; the user sends
      ``d (d+1) + 1`` noisy copies (classic Gaussian formula, basic
      composition; :class:`~sklearn_ldp.randomizers.GaussianCopiesRandomizer`
      with ``protocol='product_copies'``) and the server uses the printed
      product estimator of the Bernstein form.

    The estimate's variance grows like ``sigma^(2d)`` (``sigma`` the report
    noise, about ``7 / epsilon`` at ``delta = 1e-5``): the method needs
    large ``epsilon`` or very many users, and low degrees. See the docs
    page for measured numbers.

    With ``degree=1`` and ``solver='gd'`` (the default) the objective is a
    quadratic in ``w`` whose expectation only involves the debiased moments
    ``E[x x^T]`` and ``E[x y]``: the server solves it exactly from them
    (a trust-region
    solve on the ball, with a ridge at the noise scale of the debiased
    Gram matrix) instead of running the fission oracle, whose two
    half-noise copies quadruple the variance of the same second moment.

    Streaming: the server is one pass over the reports in the default
    configuration: one joint report per user (``calibration='analytic'``),
    ``degree=1`` (the default) and ``solver='gd'``. It keeps, per fold (the
    report at position ``p`` among the valid reports in fold ``p mod 5``),
    the sums of ``[z, 1][z, 1]^T``, ``[z, 1] t^T`` and ``t t^T`` (``t`` the
    noisy labels) and fits the model and the report-only selection from
    them; ``fit_reports`` accepts a report stream
    (:func:`sklearn_ldp.read_reports`) with memory bounded by the chunk size
    (on Dask, per partition), and ``partial_fit`` adds batches.

    The other configurations (``degree >= 2`` or ``'auto'``,
    ``solver='sigm'``, ``calibration='paper'``) run the polynomial-oracle
    solver, a multi-pass server: ``fit_reports`` reads a re-readable stream
    (:func:`sklearn_ldp.read_reports`, a list of ``Reports``; not a
    generator, which is refused with the number of passes) several times,
    validating every chunk at each pass (the rejected reports are counted
    once), and its memory is bounded by the chunk size and a block of
    reports of fixed size, not by the number of reports. Passes: one to
    validate and count (and sum the folds' moments in the analytic
    calibration); then, per fit of the oracle solver, one per iteration
    with ``solver='gd'`` (at most ``max_iter``) or three with ``'sigm'``
    (the pilot point, the pilot second moment, and SIGM's single pass, its
    mini-batches consecutive users in stream order: each user is used once,
    and SIGM's guarantee needs exchangeable users, so a stream sorted by
    label should be shuffled once when written); ``selection='cv'``
    (analytic calibration) makes 6 fits, the model on 4 folds for each of
    the 5 held-out folds and on all reports (unless ``degree='auto'`` picks
    1 with ``'gd'``, solved on the moments), the paper calibration one;
    ``degree='auto'`` adds 7 passes (the pilot point, one second moment per
    candidate degree, on pilot users drawn from the positions). The
    server's randomness (the fission split of each report and the
    per-evaluation fission copies) is a function of its seed and of the
    report's position among the valid reports, in blocks of fixed size, so
    every pass sees the same draws and a stream gives the model of the same
    reports in memory (they go through the same code). A Dask stream is
    read by the driver, partition after partition. ``partial_fit`` raises:
    a multi-pass server cannot add a batch without keeping the earlier
    ones.

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
    solver : {'gd', 'sigm'}, default='gd'
        ``'gd'``: accelerated projected gradient on the average of all users'
        oracles (full batch; free post-processing of the reports); with
        ``degree=1`` the quadratic is solved exactly on the debiased moments
        (see above). ``'sigm'``: the printed one pass of SIGM over the
        users, in ``max_iter + 1`` mini-batches of consecutive users
        (stream order, see Streaming; projected dual averaging with iterate
        averaging). The default was ``'sigm'`` before the
        exact degree-1 solve existed (issue 16).
    max_iter : int, default=100
        Iterations of ``'gd'``, or steps of ``'sigm'``.
    calibration : {'analytic', 'paper'}, default='analytic'
        ``'analytic'``: one report per user (``mechanism``).
        ``'paper'``: the printed ``d (d+1) + 1`` copies (basic composition).
    mechanism : {'auto', 'gaussian', 'privunit'}, default='auto'
        The joint report of ``calibration='analytic'``. ``'privunit'``: one
        pure-epsilon PrivUnitG report of the stacked ``(x, label)``
        (:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer`), read
        by the server as a Gaussian report of the same second moments; only
        for the degree-1 server on moments (``degree=1``, ``solver='gd'``).
        ``'gaussian'``: one analytic Gaussian report
        (:class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer`).
        ``'auto'``: PrivUnitG where it is allowed, epsilon is in ``[0.05,
        32]`` and :func:`~sklearn_ldp.accounting.best_moment_mechanism`
        predicts a smaller second-moment variance per user for it (50 to
        400 times smaller at ``delta = 10^-7``), else Gaussian: a choice
        from public quantities, before anyone reports.
    selection : {'cv'} or None, default='cv'
        Report-only model selection (``calibration='analytic'`` only; the
        paper mode runs the printed algorithm as is). The server splits the
        *reports* into 5 folds (the report at position ``p`` among the
        valid reports in fold ``p mod 5``) and scores, on held-out reports, the model
        (with the degree-1 default: on balls of 64, 16, 4 and 1 times
        ``coef_norm``, largest preferred), debiased ridge least squares on
        the same reports and the intercept-only model (the noisy class
        frequencies), then keeps the first, in that order of preference,
        within one paired standard error of the best
        (:func:`~sklearn_ldp.aggregation.select_candidate`,
        :func:`~sklearn_ldp.aggregation.scaled_margin_risk`). When a
        chi-square test on all reports cannot tell the labels' correlation
        with the features from noise
        (:func:`~sklearn_ldp.aggregation.signal_test` over all features and
        :func:`~sklearn_ldp.aggregation.directional_signal_test` along the
        least-squares direction of the other folds, each at level 0.1), the
        intercept-only model is kept: a direction fitted on noise is no
        better than chance. With two classes the chosen model or least
        squares then keeps its direction ``w`` and gets the threshold of the
        linear discriminant along ``w^T x``, from the moments of held-out
        folds (:func:`~sklearn_ldp.aggregation.refit_threshold`): a model on the
        ball has a slope too small for its unpenalized intercept and would
        predict the majority class wherever the classes are unbalanced.
        Post-processing of the reports: no privacy cost. None: the model as
        configured. With ``'cv'`` the collection itself may be the label
        alone: when the announced population (``make_randomizer(...,
        n_users=N)``; the rows given to ``fit``) is at most
        :func:`~sklearn_ldp._linear.label_only_threshold` of the joint
        report, users send their label through
        :class:`~sklearn_ldp.randomizers.LabelRandomizer` (pure epsilon,
        ``privacy_delta_`` 0) and the server returns the intercept-only
        model of the unbiased class frequencies
        (``cv_results_['class_frequencies']``, ``degree_`` 0).
    random_state : int, RandomState instance or None, default=None
        Users' noise in ``fit`` and the server's randomness (separate
        streams for an integer).

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
        Solver iterations (1 when the degree-1 model is solved exactly on
        the debiased moments, or when another candidate was selected).
    selected_model_ : {'model', 'least_squares', 'constant'}
        What ``selection`` kept (``'model'`` without selection).
    selected_params_ : dict
        Its parameters (``coef_norm`` of the model, ``alpha`` of least
        squares).
    cv_results_ : dict or None
        Per candidate: ``candidate``, ``params``, ``mean_risk`` (held-out
        rescaled squared loss of the +-1 labels, lower is better),
        ``std_error``, ``split_risks``, ``rank``, ``selected``, and
        ``signal_p_value`` (the smaller p-value of the two signal tests);
        None without selection.
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
    sklearn.svm.LinearSVC : the non-private counterpart.

    Notes
    -----
    Wang, Gaboardi, Smith and Xu, *Empirical Risk Minimization in the
    Non-interactive Local Model of Differential Privacy*, JMLR 21 (2020),
    Section 5.1, Algorithm 4 and Appendix C. Corrections: the printed
    variances over-spend the budget
    (:func:`~sklearn_ldp.accounting.product_copies_budgets`); the printed
    Bernstein polynomial lives on ``[0, 1]`` while ``y <w, x>`` ranges over
    ``[-1, 1]``, so the polynomial is built on the reachable interval.

    There is no ``predict_proba``: the hinge loss is not a proper scoring
    rule, so its minimizer estimates only the sign of ``P(y=1|x) - 1/2``,
    not the probability, and recalibrating the scores (Platt scaling) needs
    labelled records the server does not have (a calibration fitted from
    the same reports would be a second, logistic model: that is
    :class:`GLMLDPClassifier`, which has ``predict_proba``). With
    non-private held-out data, wrap the fitted model in
    :class:`sklearn.calibration.CalibratedClassifierCV`.

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

    _parameter_constraints = {
        **PolynomialOracleClassifierMixin._oracle_parameter_constraints,
        "mechanism": [StrOptions(set(JOINT_MECHANISMS))],
        "smoothing": [Interval(Real, 0, None, closed="neither")],
        "approximation": [StrOptions({"chebyshev", "bernstein"})],
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
        solver="gd",
        max_iter=100,
        calibration="analytic",
        mechanism="auto",
        selection="cv",
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
        self.mechanism = mechanism
        self.selection = selection
        self.random_state = random_state

    def _make_randomizer(self, n_features, n_users, classes):
        if len(classes) != 2:
            raise ValueError(
                "Only binary classification is supported. HingeLDPClassifier got "
                f"{len(classes)} classes {classes.tolist()[:10]}; use one classifier "
                "per class (one-vs-rest), each with its own privacy budget."
            )
        if self.calibration == "paper" and self.degree == "auto":
            raise ValueError(
                "degree='auto' needs calibration='analytic': in the paper's "
                "protocol the degree fixes the size of every user's report, so "
                "it must be chosen before any data is seen."
            )
        return self._report_randomizer(n_features, classes, "product_copies", n_users)

    # -- server -----------------------------------------------------------

    def _server_setup(self):
        """``(loss, interval, z_norm, radius)`` of the public parameters."""
        z_norm = np.sqrt(1.0 + self.fit_intercept)
        radius = float(self.coef_norm)
        interval = (-radius * z_norm, radius * z_norm)
        return SmoothedHingeLoss(self.smoothing), interval, z_norm, radius

    def _reports_feed_moments(self):
        """True when the analytic server needs only the moments of the reports."""
        return self._moments_polynomial({"calibration": self.calibration}) is not None

    def _moments_polynomial(self, config):
        """``P`` when the server is a function of moments (degree 1), else None.

        One joint report per user (``calibration='analytic'``), ``degree=1``
        and ``solver='gd'``.
        """
        if (
            config.get("calibration") == "paper"
            or self.degree != 1
            or self.solver != "gd"
        ):
            return None
        loss, interval, _, _ = self._server_setup()
        coef = polynomial_approximation(
            loss.margin_derivative, 1, interval, self.approximation
        )
        return coef if self._solves_on_moments(_linear_label_pair(coef)) else None

    def _server_aggregate(self, config):
        labels = self._label_aggregate(config)
        if labels is not None:
            return labels
        if self._moments_polynomial(config) is None:
            return None  # the oracle revisits every report: in memory
        return self._moments_aggregate(config)

    def _fit_server_aggregate(self, aggregate, config, rng):
        if isinstance(aggregate, FrequencySupportCounts):  # labels alone
            fit_label_frequencies(self, aggregate, config)
            return
        coef = self._moments_polynomial(config)
        loss, interval, _, radius = self._server_setup()
        W = self._fit_moments(
            self._folded_moments(aggregate, config), _linear_label_pair(coef), radius
        )
        self._set_fitted(
            W[:, 0], coef, 1, loss, interval, aggregate.n_components, config
        )

    def _set_fitted(self, w, coef, degree, loss, interval, n_features, config):
        self.degree_ = int(degree)
        self.poly_coef_ = coef
        self.approximation_error_ = approximation_error(
            loss.margin_derivative, coef, interval
        )
        data_norm = float(config["data_norm"])
        self.coef_ = (w[:n_features] / data_norm)[None, :]
        self.intercept_ = np.array([w[n_features] if self.fit_intercept else 0.0])

    def _fit_server_blocks(self, source, aggregate, config, rng):
        """The oracle solver over the blocks of valid reports (several passes)."""
        data_norm = float(config["data_norm"])
        n_features = int(config["n_features"])
        loss, interval, z_norm, radius = self._server_setup()
        derivative = loss.margin_derivative
        entropy = draw_entropy(rng)
        kernel_args = {"data_norm": data_norm, "fit_intercept": self.fit_intercept}
        # f_beta'' <= 1 / (2 beta) and ||z||^2 <= z_norm^2.
        smoothness = z_norm**2 * loss.curvature
        if config.get("calibration") == "paper":
            degree = int(config["degree"])
            coef = polynomial_approximation(
                derivative, degree, interval, self.approximation
            )
            if self.approximation == "bernstein":
                terms = bernstein_product_terms(derivative, degree, interval)
                polynomial = {"terms": terms}
            else:
                polynomial = {"coef": coef}
            kernel = partial(_product_kernel, polynomial=polynomial, **kernel_args)
            oracle = self._streamed_oracle(source, kernel, None, entropy)
            w, n_iter = self._minimize(
                oracle, smoothness=smoothness, radius=radius, rng=rng
            )
            self.selected_model_, self.cv_results_ = "model", None
            self.selected_params_ = {"coef_norm": radius}
            self.n_iter_ = int(n_iter)
            if self.fit_intercept:
                w = w[: n_features + 1]
            else:
                w = np.append(w[:n_features], 0.0)
        else:
            kernel_args["sigmas"] = {
                "sigma_x": float(config["sigma_x"]) / data_norm,
                "sigma_y": float(config["sigma_y"]),
            }

            def oracle_of(degree, rows=None):
                coef = polynomial_approximation(
                    derivative, degree, interval, self.approximation
                )
                kernel = partial(_fission_kernel, coef=coef, **kernel_args)
                return self._streamed_oracle(source, kernel, None, entropy, rows), coef

            def scored_oracle(degree):
                oracle, coef = oracle_of(degree)
                return oracle, approximation_error(derivative, coef, interval) * z_norm

            degree = self._analytic_degree(scored_oracle, radius, rng)
            coef = polynomial_approximation(
                derivative, degree, interval, self.approximation
            )

            def on_rows(rows):
                oracle, _ = oracle_of(degree, rows)
                w, n_iter = self._minimize(
                    oracle, smoothness=smoothness, radius=radius, rng=rng
                )
                return w.reshape(-1, 1), n_iter

            W = self._fit_joint_reports(
                self._folded_moments(aggregate, config),
                poly_pair=_linear_label_pair(coef) if degree == 1 else None,
                radius=radius,
                fit_on_rows=on_rows,
            )
            w = W[:, 0]
        self._set_fitted(w, coef, degree, loss, interval, n_features, config)

    # -- prediction ---------------------------------------------------------

    def __sklearn_tags__(self):
        tags = ldp_tags(super().__sklearn_tags__())
        tags.classifier_tags.multi_class = False
        return tags


__all__ = ["HingeLDPClassifier"]
