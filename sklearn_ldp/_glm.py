"""GLMLDPClassifier: generalized linear classifiers from one-shot noisy reports.

Seed 003 (Zheng, Mou, Wang, ICML 2017), Algorithms 5-6 (smooth generalized
linear losses by Chebyshev expansion) and seed 001 (Wang, Gaboardi, Smith,
Xu, JMLR 2020), Algorithm 5 with Lemma 32 (any convex Lipschitz margin
loss); ALGORITHMS.md sections 0 and 2. The numerics live in the rooms: the
label-linear oracle and its multipliers in
:mod:`sklearn_ldp.aggregation` (``_glm_oracle``, ``_smoothing``,
``_pilot``), the solvers in :mod:`sklearn_ldp.optim`, the margin losses in
:mod:`sklearn_ldp.losses`, the printed reports in
:class:`~sklearn_ldp.randomizers.GaussianCopiesRandomizer`.
"""

from functools import partial
from numbers import Real
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Hidden, Interval, StrOptions

from ._base import LDPClassifierMixin, ldp_tags
from ._linear import (
    JOINT_MECHANISMS,
    LinearClassifierOutputMixin,
    MultinomialProbaMixin,
    OneVsRestProbaMixin,
    PolynomialOracleClassifierMixin,
    fit_label_frequencies,
)
from .aggregation import (
    GLMGradientOracle,
    PolynomialGradientOracle,
    SmoothedQuantileDerivative,
    approximation_error,
    bernstein_product_terms,
    fission_feature_copies,
    fission_linear_multiplier,
    fission_smoothed_quantile_multiplier,
    linear_label_parts,
    polynomial_approximation,
    power_copies_multiplier,
    product_copies_multiplier,
)
from .aggregation._blocks import draw_entropy
from .aggregation._frequency import FrequencySupportCounts
from .losses import DerivativeMarginLoss, check_convex_derivative, get_loss
from .randomizers import (
    clip_l2,
    encode_labels,
)

#: The margin losses of ``loss=`` (names of :func:`sklearn_ldp.losses.get_loss`).
GLM_LOSSES = ("logistic", "hinge", "squared_hinge", "modified_huber")
#: Smoothing used by ``smoothing='auto'`` where the loss needs one.
_AUTO_SMOOTHING = 0.5
#: Points of the grid on which approximation errors are measured.
_ERROR_GRID = 2001


def glm_risk(coef, intercept, X, y, loss="logistic", data_norm=1.0, classes=None):
    """Empirical risk ``mean f(s (<w, x / data_norm> + b))`` of a fitted model.

    One-vs-rest for several outputs: the sum over classes of each binary
    risk. ``coef`` (``(n_outputs, n_features)``) and ``intercept`` are in
    original units, as fitted; ``y`` holds labels from ``classes`` (default
    ``{-1, +1}`` for one output). ``X`` is clipped to ``data_norm`` as the
    users do. ``loss`` is a margin loss of :mod:`sklearn_ldp.losses` (a name
    or the object). For the tests and the benchmark.
    """
    loss = get_loss(loss) if isinstance(loss, str) else loss
    if loss.kind != "margin":
        raise ValueError(f"glm_risk needs a margin loss, got loss={loss.name!r}.")
    coef = np.atleast_2d(coef)
    intercept = np.ravel(intercept)
    scores = clip_l2(X, data_norm) @ coef.T + intercept
    if classes is None:
        classes = np.array([-1, 1])
    signs = encode_labels(y, np.asarray(classes))
    signs = signs[:, None] if signs.ndim == 1 else 2.0 * signs - 1.0
    return float(np.mean(np.sum(loss.margin_value(signs * scores), axis=1)))


# -- private dispatch --------------------------------------------------------


class _Approximation(NamedTuple):
    """The polynomial approximation of one setup and its oracle's multiplier."""

    multiplier: object
    poly_coef: np.ndarray
    error: float
    smoothness: float


def _margin_loss(loss, derivative_lipschitz):
    """The margin loss of ``loss=`` (a name of ``GLM_LOSSES`` or the callable ``f'``)."""
    if callable(loss):
        return DerivativeMarginLoss(loss, derivative_lipschitz)
    if loss == "huber":
        raise ValueError(
            "loss='huber' is the regression Huber loss of a residual; the "
            "classification (modified) Huber loss is loss='modified_huber'."
        )
    return get_loss(loss)


def _resolve_smoothing(smoothing, approximation, loss):
    """``beta`` of the quantile smoothing, or None for the loss itself."""
    if smoothing == "auto":
        needs = approximation == "smoothed_quantile" or loss.curvature is None
        return _AUTO_SMOOTHING if needs else None
    if smoothing is None and approximation == "smoothed_quantile":
        raise ValueError(
            "approximation='smoothed_quantile' smooths the step of the quantile "
            "representation: smoothing must be a positive number or 'auto', not "
            "None."
        )
    if smoothing is None and loss.curvature is None:
        raise ValueError(
            f"loss={loss.name!r} has no Lipschitz derivative: give a smoothing "
            "(or derivative_lipschitz for a callable loss)."
        )
    return smoothing


def _approximate(loss, smoothing, degree, interval, approximation, *, protocol):
    """Polynomials, multiplier, smoothness and approximation error of one setup.

    ``protocol`` is True for the printed multi-copy reports (product
    estimators), False for the fission oracle of one joint report.
    """
    derivative = loss.margin_derivative
    smooth = None
    if smoothing is not None:
        smooth = SmoothedQuantileDerivative(derivative, interval, smoothing)
        derivative = smooth
    smoothness = smooth.smoothness if smooth is not None else loss.curvature
    if approximation == "smoothed_quantile":
        method = "bernstein" if protocol else "chebyshev"
        coef = polynomial_approximation(smooth.step, degree, interval, method)
        error = smooth.spread * approximation_error(
            smooth.step, coef, interval, _ERROR_GRID
        )
        if protocol:
            terms = bernstein_product_terms(smooth.step, degree, interval)
            multiplier = product_copies_multiplier(terms, smooth)
        else:
            multiplier = fission_smoothed_quantile_multiplier(coef, smooth)
        return _Approximation(multiplier, coef[None, :], error, smoothness)
    if protocol and approximation == "bernstein":
        # The direct variant of the product estimator: the Bernstein
        # polynomial of the (smoothed) derivative of the margin.
        coef = polynomial_approximation(derivative, degree, interval, "bernstein")
        error = approximation_error(derivative, coef, interval, _ERROR_GRID)
        multiplier = product_copies_multiplier(
            bernstein_product_terms(derivative, degree, interval)
        )
        return _Approximation(multiplier, coef[None, :], error, smoothness)
    h2_prime, h1_prime = linear_label_parts(derivative)
    coef2 = polynomial_approximation(h2_prime, degree, interval, approximation)
    coef1 = polynomial_approximation(h1_prime, degree, interval, approximation)
    grid = np.linspace(*interval, _ERROR_GRID)
    err2 = np.polynomial.Polynomial(coef2)(grid) - h2_prime(grid)
    err1 = np.polynomial.Polynomial(coef1)(grid) - h1_prime(grid)
    # m = h2' - y h1' at y = +1 and y = -1.
    error = float(max(np.max(np.abs(err2 - err1)), np.max(np.abs(err2 + err1))))
    if protocol:
        multiplier = power_copies_multiplier(coef2, coef1)
    else:
        multiplier = fission_linear_multiplier(coef2, coef1)
    return _Approximation(multiplier, np.vstack([coef2, coef1]), error, smoothness)


def _one_vs_rest_labels(labels, n_outputs):
    """Noisy +-1 labels per output: the noisy one-hot entry ``e_c`` gives ``2 e_c - 1``."""
    return labels[..., None] if n_outputs == 1 else 2.0 * labels - 1.0


def _scaled(x, data_norm):
    # The default needs no scaled copy of the reports.
    return x if data_norm == 1.0 else x / data_norm


def _fission_kernel(
    reports, split, *, degree, data_norm, sigma_x, n_outputs, fit_intercept, multiplier
):
    """The fission oracle of one block of joint reports (split keyed by position)."""
    copies = fission_feature_copies(
        _scaled(reports["x"], data_norm),
        degree,
        sigma_x,
        fit_intercept,
        0,  # unused: the split is ``split``, the evaluations' draws are keyed
        split_draws=split,
    )
    labels = _one_vs_rest_labels(reports["y"], n_outputs)
    return GLMGradientOracle(copies, labels, multiplier, 0)


def _product_kernel(reports, split, *, data_norm, n_outputs, fit_intercept, multiplier):
    """The printed product oracle of one block of multi-copy reports."""
    del split  # the copies were sent: nothing to split
    copies = PolynomialGradientOracle(
        _scaled(reports["x"], data_norm),
        mode="product",
        coef=[0.0],
        fit_intercept=fit_intercept,
        random_state=0,
    )
    labels = _one_vs_rest_labels(reports["y"], n_outputs)
    return GLMGradientOracle(copies, labels, multiplier, 0)


# -- the estimator ------------------------------------------------------------


class GLMLDPClassifier(
    PolynomialOracleClassifierMixin,
    LDPClassifierMixin,
    LinearClassifierOutputMixin,
    OneVsRestProbaMixin,
    MultinomialProbaMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Linear classifier with a generalized linear loss under local DP.

    Each user sends one noisy report of its record; the server minimizes
    the empirical risk ``mean f(y (<w, x> + b))`` of a convex margin loss
    ``f`` (logistic by default) over ``||(w, b)|| <= coef_norm``, with an
    unbiased gradient oracle built from the reports for any ``w`` (seed 003,
    Algorithms 5-6; seed 001, Algorithm 5). Guarantee: each sample
    ``(x_i, y_i)`` is (epsilon, delta)-LDP, also with several classes: the
    user sends its noisy features once and its label as one noisy one-hot
    vector, calibrated jointly with the features, and every one-vs-rest
    problem is post-processing of that one report.

    The loss derivative is replaced by degree-``d`` polynomials on the
    reachable interval ``[-r, r]`` of ``a = <w, z>`` (``z`` the scaled
    features ``x / data_norm``, with a constant 1 appended when
    ``fit_intercept``; ``r = coef_norm ||z||_max``). A margin loss is
    ``-y h1(a) + h2(a)`` (seed 003's form), so the gradient is
    ``(h2'(a) - y h1'(a)) z``: the label enters linearly.

    - ``approximation='chebyshev'`` (default) or ``'bernstein'``: ``h1'``,
      ``h2'`` (of the loss, or of its smoothed quantile representation, see
      ``smoothing``) interpolated at Chebyshev points or by the Bernstein
      polynomial.
    - ``approximation='smoothed_quantile'``: ``f' = f'(-r) + D P_{s~Q}(s <
      t)`` (the quantile representation of a convex loss's derivative); the
      step is smoothed to ``h_beta'``, which is approximated by a
      polynomial, and one ``s ~ Q`` is drawn per user and gradient
      evaluation.

    With ``calibration='analytic'`` (default) the user sends one jointly
    calibrated Gaussian report; the server splits it into ``d + 1``
    independent copies by Gaussian fission and estimates the polynomials by
    elementary symmetric polynomials. With ``calibration='paper'`` the user
    sends the printed copies (``protocol='power_copies'`` for
    ``'chebyshev'``, ``'product_copies'`` for ``'bernstein'`` and
    ``'smoothed_quantile'``; basic composition,
    :class:`~sklearn_ldp.randomizers.GaussianCopiesRandomizer`) and the
    server uses the printed product estimators.

    With ``degree=1`` and ``solver='gd'`` (the default) the objective is a
    quadratic in ``w`` whose expectation only involves the debiased moments
    ``E[x x^T]`` and ``E[x y]``: the server solves it exactly from them
    (a trust-region
    solve on the ball, with a ridge at the noise scale of the debiased
    Gram matrix) instead of running the fission oracle, whose two
    half-noise copies quadruple the variance of the same second moment.
    Since only moments are needed, the users of this configuration send
    one pure-epsilon PrivUnitG report of ``(x, label)`` instead of the
    Gaussian one (``mechanism='auto'``): the server reads it as a Gaussian
    report of the same second moments, whose noise is 4 to 5 times smaller
    (``sigma_x`` 1.5 against 6.9 at epsilon 2 with two features).

    Streaming: the server is one pass over the reports in the default
    configuration: one joint report per user (``calibration='analytic'``),
    an integer ``degree`` whose linear-label polynomials are of degree 1
    (the default ``degree=1``, not with
    ``approximation='smoothed_quantile'``) and ``solver='gd'``. It keeps,
    per fold (the report at position ``p`` among the valid reports in fold
    ``p mod 5``), the sums of ``[z, 1][z, 1]^T``, ``[z, 1] t^T`` and ``t
    t^T`` (``t`` the noisy labels) and fits the model and the report-only
    selection from them; ``fit_reports`` accepts a report stream
    (:func:`sklearn_ldp.read_reports`) with memory bounded by the chunk size
    (on Dask, per partition), and ``partial_fit`` adds batches.

    The other configurations (``degree >= 2`` or ``'auto'``,
    ``solver='sigm'``, ``'smoothed_quantile'``, ``calibration='paper'``)
    run the polynomial-oracle solver, a multi-pass server: ``fit_reports``
    reads a re-readable stream (:func:`sklearn_ldp.read_reports`, a list of
    ``Reports``; not a generator, which is refused with the number of
    passes) several times, validating every chunk at each pass (the
    rejected reports are counted once), and its memory is bounded by the
    chunk size and a block of reports of fixed size, not by the number of
    reports. Passes: one to validate and count (and sum the folds' moments
    in the analytic calibration); then, per fit of the oracle solver, one
    per iteration with ``solver='gd'`` (at most ``max_iter``) or three with
    ``'sigm'`` (the pilot point, the pilot second moment, and SIGM's single
    pass, its mini-batches consecutive users in stream order: each user is
    used once, and SIGM's guarantee needs exchangeable users, so a stream
    sorted by label should be shuffled once when written); ``selection='cv'``
    (analytic calibration) makes 6 fits, the model on 4 folds for each of
    the 5 held-out folds and on all reports (unless a degree-1 model is
    solved on the moments), the paper calibration one; ``degree='auto'``
    adds 7 passes (the pilot point, one second moment per candidate degree,
    on pilot users drawn from the positions). The server's randomness (the
    fission split of each report, the per-evaluation fission copies and
    ``s ~ Q`` draws) is a function of its seed and of the report's position
    among the valid reports, in blocks of fixed size, so every pass sees the
    same draws and a stream gives the model of the same reports in memory
    (they go through the same code). A Dask stream is read by the driver,
    partition after partition (its passes are sequential anyway, and each
    holds one partition). ``partial_fit`` raises: a multi-pass server
    cannot add a batch without keeping the earlier ones.

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget.
    delta : float, default=1e-5
        Per-user delta.
    loss : {'logistic', 'hinge', 'squared_hinge', 'modified_huber'} or \
            callable, default='logistic'
        Margin loss ``f(t)``, ``t = y (<w, x> + b)``: ``log(1 + e^-t)``,
        ``max(0, 1 - t)``, ``max(0, 1 - t)^2``, or the modified Huber loss
        (``-4 t`` for ``t < -1``, else ``max(0, 1 - t)^2``; as
        ``SGDClassifier(loss='modified_huber')``). A callable is the
        derivative ``f'`` of a convex loss (vectorized, non-decreasing).
    derivative_lipschitz : float or None, default=None
        Lipschitz constant of a callable ``f'`` (the loss's smoothness), used
        for the step size; required for a callable without smoothing.
    degree : int or 'auto', default=1
        Degree ``d`` of the polynomials. The oracle's variance grows like
        ``sigma^(2d)`` (``sigma`` the report noise). ``'auto'`` (analytic
        mode only) picks ``d`` in 1..6 on the server, minimizing the squared
        approximation error plus the estimated oracle variance over ``n``.
    smoothing : float, 'auto' or None, default='auto'
        ``beta`` of the quantile smoothing ``f'(t) -> f'(-r) + D E_s
        h_beta'((t - s) / 2)`` (a loss within ``D beta`` of ``f``). Used by
        ``'smoothed_quantile'`` and, when given, by the direct
        approximations. ``'auto'``: 0.5 for ``'smoothed_quantile'``,
        ``loss='hinge'`` and a callable without ``derivative_lipschitz``; no
        smoothing otherwise. None: never smooth (invalid with
        ``'smoothed_quantile'``).
    approximation : {'chebyshev', 'bernstein', 'smoothed_quantile'}, \
            default='chebyshev'
        How the loss derivative becomes a polynomial (see above).
    coef_norm : float, default=1.0
        Radius of the l2 ball of each class's ``(w, b)``, in units of the
        scaled features ``x / data_norm``. The polynomials live on
        ``[-r, r]``: a larger radius needs a higher degree.
    data_norm : float, default=1.0
        Public l2 bound on ``x``; users clip to it.
    alpha : float, default=0.0
        L2 penalty ``alpha ||w||^2 / 2`` on the scaled coefficients (not on
        the intercept); ``LogisticRegression(C=1 / (alpha n))`` is the
        non-private counterpart.
    fit_intercept : bool, default=True
        Learn an intercept (a public constant feature: no privacy cost).
    solver : {'gd', 'sigm'}, default='gd'
        ``'gd'``: accelerated projected gradient on the average of all
        users' oracles (full batch, free post-processing of the reports).
        ``'sigm'``: the printed single pass of SIGM over the users, in
        ``max_iter + 1`` mini-batches of consecutive users (stream order,
        see Streaming).
    max_iter : int, default=100
        Iterations of ``'gd'`` or steps of ``'sigm'``.
    calibration : {'analytic', 'paper'}, default='analytic'
        ``'analytic'``: one report per user (``mechanism``).
        ``'paper'``: the printed multi-copy reports (basic composition).
    mechanism : {'auto', 'gaussian', 'privunit'}, default='auto'
        The joint report of ``calibration='analytic'``. ``'privunit'``: one
        pure-epsilon PrivUnitG report of the stacked ``(x, label)``
        (:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer`), read
        by the server as a Gaussian report of the same second moments; only
        for the degree-1 server on moments (``degree=1``, ``solver='gd'``,
        not ``'smoothed_quantile'``).
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
        predict the majority class wherever the classes are unbalanced
        (breast cancer, 10^5 users, epsilon 4, three draws: accuracy 0.90
        with the refit, 0.76 before it; ``docs/estimators/glm.rst``).
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
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    degree_ : int
    smoothing_ : float or None
        ``beta`` used (None: the loss itself).
    poly_coef_ : ndarray
        Monomial coefficients (lowest degree first): shape ``(2, degree_ +
        1)``, the rows approximating ``h2'`` and ``h1'`` (``'chebyshev'``,
        ``'bernstein'``), or ``(1, degree_ + 1)`` approximating ``h_beta'``
        (``'smoothed_quantile'``).
    approximation_error_ : float
        ``max |m_poly(a, y) - m(a, y)|`` over ``a`` in ``[-r, r]``, ``y = +-1``
        (``'smoothed_quantile'``: ``D max |P - h_beta'|``).
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
    HingeLDPClassifier : the smoothed hinge loss of seed 001, Algorithm 4.
    sklearn.linear_model.LogisticRegression : the non-private counterpart.

    Notes
    -----
    Zheng, Mou and Wang, *Collect at Once, Use Effectively: Making
    Non-interactive Locally Private Learning Possible*, ICML 2017, Section 4,
    Algorithms 5-6 (``'power_copies'``); Wang, Gaboardi, Smith and Xu,
    *Empirical Risk Minimization in the Non-interactive Local Model of
    Differential Privacy*, JMLR 21 (2020), Section 5.2, Lemma 32 (the
    quantile representation behind ``'smoothed_quantile'``) and Algorithm 5
    (``'product_copies'``). Corrections (see
    :func:`~sklearn_ldp.accounting.product_copies_budgets`,
    :func:`~sklearn_ldp.aggregation.product_copies_multiplier`): seed 001's
    printed variances spend ``3 eps``; Algorithm 5 adds ``f'(-1)`` outside
    the ``y_0 x_0`` factor and draws one ``s`` per factor (biased); seed
    003's basic private vector uses sensitivity 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import GLMLDPClassifier
    >>> rng = np.random.RandomState(42)  # not the users' noise stream below
    >>> X = rng.uniform(-1, 1, size=(20_000, 2)) / np.sqrt(2)
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> clf = GLMLDPClassifier(epsilon=8.0, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.85
    True
    """

    _parameter_constraints = {
        **PolynomialOracleClassifierMixin._oracle_parameter_constraints,
        "mechanism": [StrOptions(set(JOINT_MECHANISMS))],
        # 'huber' passes validation only to be refused with a pointer to
        # 'modified_huber' (it names the regression loss).
        "loss": [StrOptions(set(GLM_LOSSES)), Hidden(StrOptions({"huber"})), callable],
        "derivative_lipschitz": [Interval(Real, 0, None, closed="neither"), None],
        "smoothing": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
            None,
        ],
        "approximation": [StrOptions({"chebyshev", "bernstein", "smoothed_quantile"})],
        "alpha": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        loss="logistic",
        derivative_lipschitz=None,
        degree=1,
        smoothing="auto",
        approximation="chebyshev",
        coef_norm=1.0,
        data_norm=1.0,
        alpha=0.0,
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
        self.loss = loss
        self.derivative_lipschitz = derivative_lipschitz
        self.degree = degree
        self.smoothing = smoothing
        self.approximation = approximation
        self.coef_norm = coef_norm
        self.data_norm = data_norm
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.max_iter = max_iter
        self.calibration = calibration
        self.mechanism = mechanism
        self.selection = selection
        self.random_state = random_state

    # -- client -------------------------------------------------------------

    def _make_randomizer(self, n_features, n_users, classes):
        _margin_loss(self.loss, self.derivative_lipschitz)  # refuse before reports
        if self.calibration == "paper" and self.degree == "auto":
            raise ValueError(
                "degree='auto' needs calibration='analytic': in the paper's "
                "protocols the degree fixes the size of every user's report, so "
                "it must be chosen before any data is seen."
            )
        protocol = (
            "power_copies" if self.approximation == "chebyshev" else "product_copies"
        )
        return self._report_randomizer(n_features, classes, protocol, n_users)

    # -- server -------------------------------------------------------------

    def _server_setup(self):
        """``(loss, smoothing, interval, z_norm, radius)`` of the public parameters."""
        z_norm = np.sqrt(1.0 + self.fit_intercept)
        radius = float(self.coef_norm)
        interval = (-radius * z_norm, radius * z_norm)
        loss = _margin_loss(self.loss, self.derivative_lipschitz)
        check_convex_derivative(loss.margin_derivative, interval)
        smoothing = _resolve_smoothing(self.smoothing, self.approximation, loss)
        return loss, smoothing, interval, z_norm, radius

    def _reports_feed_moments(self):
        """True when the analytic server needs only the moments of the reports."""
        return self._moments_approximation({"calibration": self.calibration}) is not None

    def _moments_approximation(self, config):
        """The degree-1 approximation when the server is a function of moments, else None.

        One joint report per user (``calibration='analytic'``), a fixed
        degree whose linear-label pair is of degree 1 (``degree=1``, not
        ``'smoothed_quantile'``) and ``solver='gd'``.
        """
        if (
            config.get("calibration") == "paper"
            or self.degree == "auto"
            or self.approximation == "smoothed_quantile"
            or self.solver != "gd"
        ):
            return None
        loss, smoothing, interval, _, _ = self._server_setup()
        approx = _approximate(
            loss, smoothing, self.degree, interval, self.approximation, protocol=False
        )
        return approx if self._solves_on_moments(approx.poly_coef) else None

    def _server_aggregate(self, config):
        labels = self._label_aggregate(config)
        if labels is not None:
            return labels
        if self._moments_approximation(config) is None:
            return None  # the oracle revisits every report: in memory
        return self._moments_aggregate(config)

    def _fit_server_aggregate(self, aggregate, config, rng):
        if isinstance(aggregate, FrequencySupportCounts):  # labels alone
            fit_label_frequencies(self, aggregate, config)
            self.smoothing_ = self._server_setup()[1]
            return
        approx = self._moments_approximation(config)
        _, smoothing, _, _, radius = self._server_setup()
        W = self._fit_moments(
            self._folded_moments(aggregate, config), approx.poly_coef, radius
        )
        self._set_coefficients(
            W, aggregate.n_components, float(config["data_norm"]), aggregate.n_targets
        )
        self.degree_ = int(self.degree)
        self.smoothing_ = smoothing
        self.poly_coef_ = approx.poly_coef
        self.approximation_error_ = approx.error

    def _fit_server_blocks(self, source, aggregate, config, rng):
        """The oracle solver over the blocks of valid reports (several passes)."""
        data_norm = float(config["data_norm"])
        n_features = int(config["n_features"])
        n_classes = len(config["classes"])
        n_outputs = 1 if n_classes == 2 else n_classes
        loss, smoothing, interval, z_norm, radius = self._server_setup()
        entropy = draw_entropy(rng)
        kernel_args = {
            "data_norm": data_norm,
            "n_outputs": n_outputs,
            "fit_intercept": self.fit_intercept,
        }
        if config.get("calibration") == "paper":
            degree = int(config["degree"])
            approx = _approximate(
                loss, smoothing, degree, interval, self.approximation, protocol=True
            )
            kernel = partial(
                _product_kernel, multiplier=approx.multiplier, **kernel_args
            )
            oracle = self._streamed_oracle(source, kernel, n_outputs, entropy)
            self.selected_model_, self.cv_results_ = "model", None
            self.selected_params_ = {"coef_norm": radius}
            W, n_iter = self._minimize_oracle(
                oracle, approx, z_norm, radius, n_features, rng
            )
            self.n_iter_ = int(n_iter)
        else:
            kernel_args["sigma_x"] = float(config["sigma_x"]) / data_norm

            def oracle_of(degree, rows=None):
                approx = _approximate(
                    loss,
                    smoothing,
                    degree,
                    interval,
                    self.approximation,
                    protocol=False,
                )
                kernel = partial(
                    _fission_kernel,
                    degree=degree,
                    multiplier=approx.multiplier,
                    **kernel_args,
                )
                oracle = self._streamed_oracle(source, kernel, n_outputs, entropy, rows)
                return oracle, approx

            def scored_oracle(degree):
                oracle, approx = oracle_of(degree)
                return oracle, approx.error * z_norm

            degree = self._analytic_degree(scored_oracle, radius, rng)
            approx = _approximate(
                loss, smoothing, degree, interval, self.approximation, protocol=False
            )

            def on_rows(rows):
                oracle, _ = oracle_of(degree, rows)
                return self._minimize_oracle(
                    oracle, approx, z_norm, radius, n_features, rng
                )

            quadratic = self.approximation != "smoothed_quantile"
            W = self._fit_joint_reports(
                self._folded_moments(aggregate, config),
                poly_pair=approx.poly_coef if quadratic else None,
                radius=radius,
                fit_on_rows=on_rows,
            )
        self._set_coefficients(W, n_features, data_norm, n_outputs)
        self.degree_ = int(degree)
        self.smoothing_ = smoothing
        self.poly_coef_ = approx.poly_coef
        self.approximation_error_ = approx.error

    def _minimize_oracle(self, oracle, approx, z_norm, radius, n_features, rng):
        l2_penalty = np.full((oracle.dim, 1), float(self.alpha))
        l2_penalty[n_features:] = 0.0  # the intercept is not penalized
        return self._minimize(
            oracle,
            smoothness=approx.smoothness * z_norm**2 + self.alpha,
            radius=radius,
            rng=rng,
            l2_penalty=l2_penalty,
        )

    def _set_coefficients(self, W, n_features, data_norm, n_outputs):
        self.coef_ = (W[:n_features] / data_norm).T
        self.intercept_ = (
            np.asarray(W[n_features], dtype=float)
            if self.fit_intercept
            else np.zeros(n_outputs)
        )

    # -- prediction -----------------------------------------------------------

    def __sklearn_tags__(self):
        tags = ldp_tags(super().__sklearn_tags__())
        tags.classifier_tags.multi_class = True
        return tags


__all__ = ["GLMLDPClassifier"]
