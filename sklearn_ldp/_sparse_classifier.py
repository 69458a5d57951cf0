"""SparseLDPClassifier: sparse high-dimensional linear classifiers by random projection.

Seed 000 (Wang, Gaboardi and Xu, NeurIPS 2018), Section 6, Algorithm 4
(DR-ERM-LDP) for generalized linear losses: each user projects its record
with a public random matrix, the server learns a generalized linear model in
the projected space from the users' noisy reports, and recovers the
high-dimensional coefficients by basis pursuit. The client is a
:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer` (by default) or
a :class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer` whose feature
map is a :class:`~sklearn_ldp.randomizers.RandomProjection` (the reports of
``SparseLDPRegressor``, with a label instead of a target); the projected
model is ``GLMLDPClassifier``'s degree-1 model on debiased moments over
an l1 ball instead of an l2 ball (:func:`l1_margin_model`), chosen from
per-fold sums of the reports (:func:`select_radius`, one pass); the
recovery is :func:`~sklearn_ldp.aggregation.basis_pursuit`.
"""

from functools import partial
from numbers import Integral, Real
from types import SimpleNamespace

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from ._base import LDPClassifierMixin, _announced_n_users, ldp_tags
from ._linear import (
    JOINT_MECHANISMS,
    LinearClassifierOutputMixin,
    MultinomialProbaMixin,
    OneVsRestProbaMixin,
    PolynomialOracleClassifierMixin,
    choose_pair_mechanism,
    fit_label_frequencies,
    label_only_threshold,
    paper_mode_keeps_gaussian,
)
from .aggregation import (
    N_FOLDS,
    Candidate,
    FoldedMoments,
    basis_pursuit,
    constant_model,
    cross_validate,
    directional_signal_test,
    linear_label_parts,
    polynomial_approximation,
    project_psd,
    refit_threshold,
    scaled_margin_risk,
    select_candidate,
)
from .aggregation._frequency import FrequencySupportCounts
from .aggregation._selection import gram_noise_scale
from .aggregation._sufficient import FoldedGramSums, PrivUnitFoldedGramSums
from .losses import get_loss
from .optim import l1_constrained_least_squares
from .randomizers import (
    GaussianRecordRandomizer,
    LabelRandomizer,
    PrivUnitGRecordRandomizer,
    RandomProjection,
    feature_map_seed,
)
from .randomizers._feature_maps import PROJECTIONS
from .utils import public_seed

#: Margin losses with a Lipschitz derivative (the degree-1 model needs one).
SPARSE_CLASSIFIER_LOSSES = ("logistic", "squared_hinge", "modified_huber")
#: Tag of the public projection seed derived from an integer ``random_state``.
_PROJECTION_SEED_TAG = 0x5EEC
#: The randomizer's name for each ``calibration`` of the estimator.
_REPORT_CALIBRATION = {"improved": "analytic", "paper": "paper"}
#: Level of the one-sided directional test of "no signal" (see select_radius).
SIGNAL_LEVEL = 0.1
#: Smallest epsilon of ``calibration='paper'`` (see ``_build_randomizer``).
PAPER_MIN_EPSILON = 1e-3
#: l1 radii of ``C`` tried by ``selection='cv'`` after a random projection,
#: times ``l1_radius`` (largest first: the configured radius is preferred).
#: Never larger: the projected risk estimates the risk of the recovered
#: ``w`` only inside the set ``C`` the projection was drawn for (seed 000,
#: Lemma 4); outside it the best projected model is the pseudo-inverse one,
#: whose recovery is not sparse.
RADIUS_FACTORS = 4.0 ** -np.arange(4)
#: The same without projection (``n_components`` reaches ``d``): nothing is
#: recovered, so larger balls are allowed too, up to where the constraint
#: stops binding and the model is the ridge solution.
IDENTITY_RADIUS_FACTORS = 4.0 ** -np.arange(-2, 4)


def _radius_factors(components):
    """The radii (times ``l1_radius``) of ``selection='cv'``, largest first."""
    return IDENTITY_RADIUS_FACTORS if components is None else RADIUS_FACTORS


def auto_components(n_features, n_users, epsilon):
    """``n_components='auto'``: ``ceil(sqrt(n eps^2 log d))``, capped at ``d``.

    The projected dimension of seed 003, Theorem 3 (also
    ``SparseLDPRegressor``'s): it balances the noise the server's
    ``m``-dimensional debiased moments carry (growing with ``m``) against
    the distortion of a projection to ``m`` dimensions (shrinking with
    ``m``). Seed 000's Theorem 7 sizes ``m`` by the Gaussian width of the
    constraint set with unprinted constants; this rule is the one the
    library's projected estimators share, and it uses only public facts.

    Examples
    --------
    >>> from sklearn_ldp._sparse_classifier import auto_components
    >>> auto_components(500, 10_000, 0.5)
    125
    """
    m = np.ceil(np.sqrt(n_users * epsilon**2 * np.log(max(n_features, 1))))
    return int(min(max(m, 1), n_features))


def degree_one_pair(loss, interval):
    """``(P2, P1)``: the degree-1 Chebyshev interpolants of ``h2'`` and ``h1'``.

    The margin loss is ``-y h1(a) + h2(a)`` (seed 003's form), so its
    gradient is ``(h2'(a) - y h1'(a)) z``; on ``[-r, r]`` both parts are
    replaced by their degree-1 interpolants at the Chebyshev points, as
    ``GLMLDPClassifier(degree=1)`` does.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp._sparse_classifier import degree_one_pair
    >>> from sklearn_ldp.losses import get_loss
    >>> coef2, coef1 = degree_one_pair(get_loss("logistic"), (-1.0, 1.0))
    >>> np.round(coef2, 4).tolist(), np.round(coef1, 4).tolist()
    ([0.0, 0.2401], [0.5, 0.0])
    """
    h2_prime, h1_prime = linear_label_parts(loss.margin_derivative)
    coef2 = polynomial_approximation(h2_prime, 1, interval, "chebyshev")
    coef1 = polynomial_approximation(h1_prime, 1, interval, "chebyshev")
    return coef2, coef1


def l1_margin_model(
    moments,
    coef2,
    coef1,
    *,
    components,
    radius,
    ridge,
    fit_intercept,
    max_iter=1000,
    tol=1e-6,
    iterations=None,
):
    """Line 5 of Algorithm 4: the degree-1 margin model over ``Phi C``, ``C`` the l1 ball.

    With ``P2(a) = c20 + c21 a`` and ``P1(a) = c10``, the degree-1
    objective of the projected records ``z = Phi x`` (label ``t``) is
    ``c21 E[(w_bar^T z + b)^2] / 2 - c10 E[t (w_bar^T z + b)] + c20 E[w_bar^T
    z + b]`` (:func:`~sklearn_ldp._linear.quadratic_margin_model`).
    Minimizing over the intercept first (``b = (c10 E[t] - c20) / c21 -
    mu^T w_bar``, ``mu = E[z]``) leaves

        c21 w_bar^T S w_bar / 2 - c10 w_bar^T (E[z t] - mu E[t]),

    ``S`` the debiased covariance of ``z`` (uncentred, and ``c20 mu`` in
    the linear term, without an intercept), projected onto the PSD cone,
    plus ``ridge`` on the diagonal. Writing ``w_bar = Phi w`` with
    ``||w||_1 <= radius`` puts ``w_bar`` in ``Phi C``: FISTA in the ``d``
    original dimensions with the exact l1-ball projection
    (:func:`~sklearn_ldp.optim.l1_constrained_least_squares`).

    Parameters
    ----------
    moments : Moments
        Debiased moments of ``[z, 1]`` and the +-1 labels, one output per column.
    coef2, coef1 : ndarray
        The degree-1 pair (:func:`degree_one_pair`).
    components : ndarray of shape (m, d) or None
        ``Phi`` (None: the identity).
    radius : float
        l1 radius of ``C``.
    ridge : float
        Added to the quadratic term (the noise scale of ``S``).
    fit_intercept : bool
    max_iter, tol : FISTA's budget and stopping tolerance.
    iterations : list or None
        When a list, each output's number of FISTA iterations is appended.

    Returns
    -------
    W : ndarray of shape (m + 1, n_outputs)
        ``[w_bar, b]`` per output (``b = 0`` without ``fit_intercept``).
    """
    m = moments.n_features
    scatter = np.array(moments.gram[:m, :m])
    cross = np.array(moments.cross[:m])
    mean_z, mean_t = moments.gram[:m, m], moments.cross[m]
    if fit_intercept:
        scatter -= np.outer(mean_z, mean_z)
        cross -= np.outer(mean_z, mean_t)
    quadratic = coef2[1] * project_psd(scatter) + ridge * np.eye(m)
    n_features = m if components is None else components.shape[1]
    W = np.zeros((m + 1, cross.shape[1]))
    for c in range(cross.shape[1]):  # one l1 ball per output (class)
        linear = coef1[0] * cross[:, c]
        if not fit_intercept:
            linear = linear - coef2[0] * mean_z
        w, n_iter, _ = l1_constrained_least_squares(
            linear,
            radius,
            np.zeros(n_features),
            quadratic=quadratic,
            components=components,
            max_iter=max_iter,
            tol=tol,
        )
        if iterations is not None:
            iterations.append(int(n_iter))
        projected = w if components is None else components @ w
        W[:m, c] = projected
        if fit_intercept:
            W[m, c] = (coef1[0] * mean_t[c] - coef2[0]) / coef2[1] - mean_z @ projected
    return W


def recover_sparse(components, projected):
    """Line 7 of Algorithm 4 for each output: ``min ||w||_1 s.t. Phi w = w_bar``.

    ``components`` is the public ``Phi`` (``(m, d)``, None for the identity
    projection, where ``w = w_bar``); ``projected`` holds one ``w_bar`` per
    column. A zero column (the intercept-only model) stays zero.
    """
    if components is None:
        return np.array(projected, dtype=float)
    recovered = np.zeros((components.shape[1], projected.shape[1]))
    for c in range(projected.shape[1]):
        if np.any(projected[:, c] != 0.0):
            recovered[:, c] = basis_pursuit(components, projected[:, c])
    return recovered


def select_radius(folded, models, fit_intercept, fitted=None):
    """Report-only choice among the l1 radii and the intercept-only model.

    ALGORITHMS.md section 7 with the candidates of ``selection='cv'``: each
    model ``(name, fit(moments) -> W, params)`` and, with an intercept, the
    noisy class frequencies, fitted on 4 of 5 folds of the reports (the
    report at position ``i`` in fold ``i mod 5``) and scored on the fifth
    (:func:`~sklearn_ldp.aggregation.scaled_margin_risk`, unbiased for the
    projected scorer ``[Phi w, b]``); the first candidate within one
    paired standard error of the best
    (:func:`~sklearn_ldp.aggregation.select_candidate`) is refitted on all
    reports. Do no harm: the intercept-only model is chosen whenever the
    one-sided directional test of "no signal" along the first model
    (:func:`~sklearn_ldp.aggregation.directional_signal_test`) does not
    reject at level ``SIGNAL_LEVEL``.

    Why not ``GLMLDPClassifier``'s selection
    (:func:`~sklearn_ldp._linear.select_linear_classifier`, which adds
    debiased ridge least squares and tests "no signal" with a chi-square
    test and the least-squares direction at level 0.05 each): measured on
    three draws of ``sparse_logistic_200d`` (``d = 200``, 5 informative
    features) at ``n = 10^5``, ``epsilon = 4``, it returned the
    intercept-only model twice (p = 0.26 and 0.65) and, once, least
    squares with the strongest penalty, whose unpenalized intercept
    outweighs the shrunk ``w`` (accuracy 0.50, 0.50, 0.50), where the model
    on the largest l1 ball reaches 0.69 on the second. Without projection the
    largest ball (``16 l1_radius``) does not bind there (the solution's l1
    norm is 110 for a radius of 320) and its model is the ridge solution,
    the least-squares direction at the noise-scale penalty: least squares
    is among the candidates in all but name.

    ``fitted`` (optional dict) receives every candidate's fit on the folds
    other than ``k`` under ``(candidate index, k)``
    (:func:`~sklearn_ldp.aggregation.cross_validate`): the chosen one's
    cross-fit its threshold.

    Returns
    -------
    W, name, params, cv_results
        As :func:`~sklearn_ldp._linear.select_linear_classifier`.
    """
    candidates = [Candidate(name, fit, params) for name, fit, params in models]
    if fit_intercept:
        candidates.append(
            Candidate("constant", partial(constant_model, fit_intercept=True), {})
        )
    d = folded.zz.shape[1] - 1
    ridge = 2.0 * gram_noise_scale(folded.sigma_x, d, folded.n)
    scores = cross_validate(
        folded,
        candidates,
        partial(scaled_margin_risk, label_square=folded.zt.shape[2], ridge=ridge),
        fitted=fitted,
    )
    chosen, results = select_candidate(scores, candidates)
    p_value = directional_signal_test(folded, models[0][1])
    if fit_intercept and p_value > SIGNAL_LEVEL:
        chosen = len(candidates) - 1
        results["selected"] = np.arange(len(candidates)) == chosen
    results["signal_p_value"] = p_value
    candidate = candidates[chosen]
    return candidate.fit(folded.moments()), candidate.name, candidate.params, results


class SparseLDPClassifier(
    LDPClassifierMixin,
    LinearClassifierOutputMixin,
    OneVsRestProbaMixin,
    MultinomialProbaMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Sparse linear classifier in high dimension under local DP, by random projection.

    Seed 000, Algorithm 4 (DR-ERM-LDP) for a generalized linear loss. Each
    user clips its features to ``data_norm``, projects them with a public
    random matrix ``Phi`` (``d -> m``, ``m << d``), clips the projection to
    ``feature_norm`` and sends it with its label, both with Gaussian noise
    (one noisy one-hot vector for several classes). The server minimizes the
    margin loss ``f(y (<w_bar, Phi x> + b))`` of the projected records over
    ``w_bar`` in ``Phi C``, ``C`` the l1 ball of radius ``l1_radius`` (the
    degree-1 polynomial model of ``GLMLDPClassifier`` on the debiased
    moments of the reports, a quadratic minimized by FISTA over ``w`` in
    ``C``, :func:`l1_margin_model`), then recovers the ``d``-dimensional coefficients by basis
    pursuit, ``w = argmin ||w||_1`` subject to ``Phi w = w_bar``, one linear
    program per output. Several classes: one-vs-rest on the same reports.
    Guarantee: each sample ``(x_i, y_i)`` is (epsilon, delta)-LDP
    (epsilon-LDP, ``privacy_delta_ = 0``, with the PrivUnitG report or the
    label alone).

    The report (``mechanism``). With ``calibration='improved'`` the server
    reads only the first and second moments of the projected features and
    the encoded label, so by default (``'auto'``) each user sends one
    pure-epsilon PrivUnitG report of the pair
    (:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer` with the
    projection as its feature map) in place of the Gaussian release; the
    server multiplies its sums by public factors
    (:class:`~sklearn_ldp.aggregation._sufficient.PrivUnitFoldedGramSums`)
    and reads them as a Gaussian release's of noise ``sigma_x`` 3.2 to 4.6
    times smaller than the analytic Gaussian's at ``delta = 1e-7`` (1.54
    against 6.93 per unit of bound at epsilon 2). Everything after the
    sums is unchanged; ``calibration='paper'`` keeps the printed Gaussian
    reports.

    Lines of the printed Algorithm 4 and what each calibration does:

    - line 2 (public sub-Gaussian ``Phi``, its seed sent to every user): a
      :class:`~sklearn_ldp.randomizers.RandomProjection` from a public seed
      announced in the reports' configuration (Gaussian entries
      ``N(0, 1/m)``);
    - line 4 (``x'_i = (Phi y_i, z_i)``): the user's projection, clipped to
      ``feature_norm`` so that the release has a bounded sensitivity;
    - line 5 (an LDP learner in the projected space, constraint set
      ``Phi C``): ``'paper'`` gives features and label ``(epsilon / 2,
      delta / 2)`` each with the classic Gaussian formula (the split and
      formula seeds 003 and 000 print) and minimizes the degree-1 model over
      ``Phi C`` with ``C`` of radius ``l1_radius``;
      ``'improved'`` calibrates features and label jointly with the analytic
      Gaussian mechanism, adds the noise-scale ridge of ``GLMLDPClassifier``
      and (``selection='cv'``) chooses the radius among ``l1_radius *
      4^-k`` (``k = 0..3``; ``k = -2..3`` without projection) and the
      intercept-only model from the reports alone (:func:`select_radius`);
      with two classes the chosen model keeps its direction and gets the
      threshold of the linear discriminant along it, from all reports
      (:func:`~sklearn_ldp.aggregation.refit_threshold`, as
      :class:`GLMLDPClassifier`: a model on an l1 ball is shrunk, and on
      unbalanced classes it predicted the majority class);
    - line 7 (``w_priv = argmin ||w||_C`` subject to ``Phi w = w_bar``), with
      ``C`` the l1 ball: :func:`~sklearn_ldp.aggregation.basis_pursuit`, in
      both calibrations.

    Streaming: the server is one pass over the reports (per fold, the sums
    of ``[z, 1, t] [z, 1, t]^T``; the report at position ``i`` of the
    stream is in fold ``i mod 5``); ``fit_reports`` accepts a report stream
    (:func:`sklearn_ldp.read_reports`) with memory bounded by the chunk
    size (``O(m^2)`` numbers per fold), and ``partial_fit`` adds batches.

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget.
    delta : float, default=1e-5
        Per-user delta, in ``(0, 1)``.
    loss : {'logistic', 'squared_hinge', 'modified_huber'}, default='logistic'
        Margin loss ``f(t)``, ``t = y (<w, x> + b)``.
    l1_radius : float, default=1.0
        Radius of the l1 ball ``C`` of each class's coefficients ``w``, in
        units of ``x / data_norm`` (a public prior: the degree-1 model's
        coefficients are about twice the least-squares ones on +-1 labels).
        It also sets the interval ``[-r, r]``, ``r = l1_radius sqrt(1 +
        fit_intercept)``, of the degree-1 approximation of the loss.
    data_norm : float, default=1.0
        Public l2 bound on ``x``; users clip to it.
    feature_norm : float or None, default=None
        Public l2 bound the projected features are clipped to; None means
        ``data_norm`` (a Gaussian projection keeps norms in expectation).
    fit_intercept : bool, default=True
        Learn an intercept (a public constant feature: no privacy cost).
    n_components : 'auto' or int, default='auto'
        Projected dimension ``m``; ``'auto'`` is ``ceil(sqrt(n epsilon^2
        log d))`` (:func:`auto_components`) with ``n`` the public
        population size, capped at ``d``.
    n_users : int or None, default=None
        Public population size for ``n_components='auto'``; None means the
        number of rows given to ``fit``.
    projection : {'auto', 'gaussian', 'sparse', 'identity'}, default='auto'
        ``'auto'``: the identity when ``m`` reaches ``d`` (a square random
        projection only distorts), else ``'gaussian'``; always
        ``'gaussian'`` with ``calibration='paper'`` (line 2).
    calibration : {'improved', 'paper'}, default='improved'
        ``'paper'``: the printed algorithm (see above); ``'improved'``: joint
        analytic calibration and report-only selection.
    mechanism : {'auto', 'gaussian', 'privunit'}, default='auto'
        The report of ``calibration='improved'``. ``'privunit'``: one
        pure-epsilon PrivUnitG report of the pair (epsilon in ``[0.05,
        32]``). ``'gaussian'``: the analytic Gaussian release
        (:class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer`).
        ``'auto'``: PrivUnitG when epsilon is in that range and
        :func:`~sklearn_ldp.accounting.best_moment_mechanism` predicts a
        smaller worst-case second-moment variance per user for it, else
        Gaussian (always with ``calibration='paper'``). A choice from
        public quantities, before anyone reports.
    selection : {'cv'} or None, default='cv'
        Report-only model selection in the projected space
        (``calibration='improved'`` only): radii of 1, 1/4, 1/16 and 1/64
        times ``l1_radius`` (and 16 and 4 times it first when nothing is
        projected) and the intercept-only model, scored on held-out folds
        of the reports, with a directional test of "no signal" along the
        largest ball's model (:func:`select_radius`). After a projection
        never a radius above ``l1_radius``: the projected risk stands for
        the risk of the recovered ``w`` only inside ``C``. Post-processing,
        no privacy cost. None: the model at ``l1_radius``.
    max_iter : int, default=1000
        FISTA iterations per fit.
    tol : float, default=1e-6
        FISTA stopping tolerance on the relative step.
    random_state : int, RandomState instance or None, default=None
        The users' noise in ``fit``, the server's randomness and the public
        projection seed (:func:`~sklearn_ldp.utils.public_seed`), on
        independent streams for an integer.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The recovered coefficients in the original ``d`` dimensions.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    projected_coef_ : ndarray of shape (1, `n_components_`) or \
(n_classes, `n_components_`)
        ``w_bar``, the model learned in the projected space (units of ``x``).
    n_components_ : int
    projection_seed_ : int
        Public seed of ``Phi``.
    noise_scale_ : float
        ``sigma_x``, the noise std of each projected feature.
    degree_ : int
        Degree of the polynomial model (1).
    smoothing_ : None
        No smoothing (the losses have Lipschitz derivatives).
    poly_coef_ : ndarray of shape (2, 2)
        Monomial coefficients of the degree-1 ``h2'`` and ``h1'``.
    approximation_error_ : float
        ``max |m_poly(a, y) - m(a, y)|`` over ``a`` in ``[-r, r]``, ``y = +-1``.
    n_iter_ : int
        FISTA iterations of the final fit (the largest over outputs; 1 for
        the intercept-only model, a closed form).
    selected_model_ : {'model', 'constant'}
    selected_params_ : dict
    cv_results_ : dict or None
        Per candidate (each radius, largest first, then ``'constant'``):
        ``candidate``,
        ``params``, ``mean_risk``, ``std_error``, ``split_risks``, ``rank``,
        ``selected``, and ``signal_p_value``; None without selection.
    privacy_epsilon_, privacy_delta_ : float
    n_reports_rejected_ : int
        Reports the server's validation dropped; 0 after ``fit``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    GLMLDPClassifier : the same model without projection (noise in all ``d``
        dimensions).
    SparseLDPRegressor : the projected reports for l1-constrained regression.
    sklearn.linear_model.LogisticRegression : the non-private counterpart.

    Notes
    -----
    Wang, Gaboardi and Xu, *Empirical Risk Minimization in Non-interactive
    Local Differential Privacy Revisited*, NeurIPS 2018, Section 6,
    Algorithm 4 and Theorem 7. Departures from the print, both modes: line 5
    runs "the modified epsilon-LDP algorithm of [19]" (Smith, Thakurta and
    Upadhyay 2017), whose details are in a supplement the seed text does not
    contain and whose sample complexity grows like ``alpha^-(m + 1)``: no
    ``m`` large enough for the recovery of line 7 leaves it usable. The
    library runs the projected learner on Gaussian reports instead (the
    reports of seed 003 and of ``SparseLDPRegressor(calibration='paper')``),
    so the guarantee is (epsilon, delta) rather than pure epsilon, and the
    loss is the degree-1 polynomial model (seed 003's approximation). The
    printed noise uses sensitivity 1 for vectors of the unit ball; replacing
    a record moves them by up to 2, so the noise is calibrated for
    ``2 feature_norm``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import SparseLDPClassifier
    >>> rng = np.random.RandomState(0)  # not the users' noise stream below
    >>> X = np.hstack([rng.uniform(-1, 1, (20_000, 2)) / 2,
    ...                rng.standard_normal((20_000, 98)) / 20])
    >>> y = (X[:, 0] - X[:, 1] > 0).astype(int)
    >>> clf = SparseLDPClassifier(epsilon=8.0, n_components=30, l1_radius=20.0,
    ...                           random_state=0).fit(X, y)
    >>> clf.coef_.shape, clf.projected_coef_.shape
    ((1, 100), (1, 30))
    >>> sorted(np.argsort(-np.abs(clf.coef_[0]))[:2].tolist())
    [0, 1]
    """

    _parameter_constraints = {
        **PolynomialOracleClassifierMixin._oracle_parameter_constraints,
        "loss": [StrOptions(set(SPARSE_CLASSIFIER_LOSSES))],
        "l1_radius": [Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "feature_norm": [Interval(Real, 0, None, closed="neither"), None],
        "n_components": [
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
        ],
        "n_users": [Interval(Integral, 1, None, closed="left"), None],
        "projection": [StrOptions({*PROJECTIONS, "auto"})],
        "calibration": [StrOptions(set(_REPORT_CALIBRATION))],
        "mechanism": [StrOptions(set(JOINT_MECHANISMS))],
    }
    for _key in ("degree", "solver", "coef_norm"):
        _parameter_constraints.pop(_key)
    del _key

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        loss="logistic",
        l1_radius=1.0,
        data_norm=1.0,
        feature_norm=None,
        fit_intercept=True,
        n_components="auto",
        n_users=None,
        projection="auto",
        calibration="improved",
        mechanism="auto",
        selection="cv",
        max_iter=1000,
        tol=1e-6,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.loss = loss
        self.l1_radius = l1_radius
        self.data_norm = data_norm
        self.feature_norm = feature_norm
        self.fit_intercept = fit_intercept
        self.n_components = n_components
        self.n_users = n_users
        self.projection = projection
        self.calibration = calibration
        self.mechanism = mechanism
        self.selection = selection
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    # -- client -------------------------------------------------------------

    def _make_randomizer(self, n_features, n_users, classes):
        seed = public_seed(self.random_state, _PROJECTION_SEED_TAG)
        return self._build_randomizer(n_features, n_users, seed, classes)

    def _expected_randomizer(self, reports):
        # The public seed and the population size are the ones announced in
        # the reports (the number of reports received can be changed by
        # anyone); the rest must match this estimator.
        config = reports.config
        seed = feature_map_seed(config)
        if seed is None:
            seed = public_seed(self.random_state, _PROJECTION_SEED_TAG)
        return self._build_randomizer(
            config.get("n_features"),
            _announced_n_users(reports),
            seed,
            self._require_classes(config.get("classes")),
        )

    def _build_randomizer(self, n_features, n_users, seed, classes):
        if self.calibration == "paper" and self.epsilon < PAPER_MIN_EPSILON:
            raise ValueError(
                f"epsilon={self.epsilon:g} is below the range of "
                f"calibration='paper' (epsilon >= {PAPER_MIN_EPSILON:g}): the "
                "classic formula at epsilon / 2 puts a noise of standard "
                f"deviation above 10^5 times the data bound on every number, "
                "whose lattice sampler does not fit in memory. Use "
                "calibration='improved' (usable for every epsilon > 0)."
            )
        n_features = int(n_features)
        n_users = self.n_users if self.n_users is not None else n_users
        planned = None
        if self.projection == "identity":
            n_components = n_features
        elif self.n_components == "auto":
            if n_users is None:
                raise ValueError(
                    "n_components='auto' needs the public population size: set "
                    "n_users, or give an integer n_components."
                )
            n_components = auto_components(n_features, int(n_users), self.epsilon)
            planned = int(n_users)
        else:
            n_components = min(int(self.n_components), n_features)
        kind = self.projection
        if kind == "auto":
            if self.calibration == "paper":
                kind = "gaussian"  # line 2: a sub-Gaussian matrix, as printed
            else:
                kind = "identity" if n_components >= n_features else "gaussian"
        feature_norm = (
            self.data_norm if self.feature_norm is None else self.feature_norm
        )
        projection = RandomProjection(n_features, n_components, kind=kind, seed=seed)
        n_targets = 1 if len(classes) == 2 else len(classes)
        if self._joint_mechanism(n_components, n_targets) == "privunit":
            joint = PrivUnitGRecordRandomizer(
                n_features,
                epsilon=self.epsilon,
                data_norm=self.data_norm,
                classes=classes,
                feature_map=projection,
                feature_norm=feature_norm,
                n_users=planned,
            )
        else:
            joint = GaussianRecordRandomizer(
                n_features,
                epsilon=self.epsilon,
                delta=self.delta,
                data_norm=self.data_norm,
                classes=classes,
                feature_map=projection,
                feature_norm=feature_norm,
                calibration=_REPORT_CALIBRATION[self.calibration],
                n_users=planned,
            )
        if (
            self.calibration == "improved"
            and self.projection == "auto"
            and planned is not None
            and planned <= label_only_threshold(joint)
        ):
            # No model of the features is predicted to beat the class
            # balance: users send the label alone (pure epsilon).
            return LabelRandomizer(
                n_features, epsilon=self.epsilon, classes=classes, n_users=planned
            )
        return joint

    def _joint_mechanism(self, n_released, n_targets):
        """``'privunit'`` or ``'gaussian'``: the mechanism of the pair report.

        The server of ``calibration='improved'`` reads only the first and
        second moments of ``(z, t)`` (the degree-1 model), so one PrivUnitG
        report of the pair
        (:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer`) serves
        it; ``'auto'`` takes it when epsilon is in ``PRIVUNIT_EPSILON_RANGE``
        and :func:`~sklearn_ldp.accounting.best_moment_mechanism` predicts a
        smaller worst-case second-moment variance per user for the ``m +
        k`` numbers than the analytic Gaussian's at ``delta``. The
        paper-faithful mode keeps its Gaussian reports. Public quantities
        only, before anyone reports.
        """
        return choose_pair_mechanism(
            self.mechanism,
            self.epsilon,
            self.delta,
            n_released + n_targets,
            unsupported=paper_mode_keeps_gaussian(self.calibration, "improved"),
        )

    # -- server -------------------------------------------------------------

    def _randomizer_from_config(self, config):
        """The users' randomizer of reports with this public ``config``."""
        return self._expected_randomizer(SimpleNamespace(config=config))

    def _server_aggregate(self, config):
        # Per fold (the report at stream position p in fold p mod 5), the
        # Gram matrix of the rows [z, 1, t] as sent: every candidate and its
        # held-out risk is a function of these sums.
        randomizer = self._randomizer_from_config(config)
        if isinstance(randomizer, LabelRandomizer):
            return FrequencySupportCounts(randomizer.frequency)
        n_classes = len(config["classes"])
        n_targets = 1 if n_classes == 2 else n_classes
        if isinstance(randomizer, PrivUnitGRecordRandomizer):
            # The pair's sums, multiplied by the report's public factors on
            # the way out (the Gaussian-equivalent sums).
            return PrivUnitFoldedGramSums(
                N_FOLDS,
                randomizer.feature_map.n_components,
                n_targets,
                report_scale=randomizer.report_scale,
                first_moment_factor=randomizer.first_moment_factor,
                chunk_size=randomizer.chunk_size,
            )
        return FoldedGramSums(
            N_FOLDS,
            randomizer.feature_map.n_components,
            n_targets,
            chunk_size=randomizer.chunk_size,
        )

    def _fit_server_aggregate(self, aggregate, config, rng):
        del rng  # the folds are positions: the server draws nothing
        if isinstance(aggregate, FrequencySupportCounts):  # labels alone
            fit_label_frequencies(self, aggregate, config)
            n_outputs = self.coef_.shape[0]
            self.projected_coef_ = np.zeros((n_outputs, 0))
            self.n_components_, self.projection_seed_ = 0, None
            self.noise_scale_ = np.inf
            return
        randomizer = self._randomizer_from_config(config)
        data_norm = float(config["data_norm"])
        n_outputs = aggregate.n_targets
        multiclass = n_outputs > 1
        # Line 5, on the projected reports in units of data_norm; several
        # classes: the one-vs-rest labels 2 e_c - 1 of the noisy one-hot
        # entries (twice their noise), applied to the sums.
        sigma_x = randomizer.sigma_x / data_norm
        folded = FoldedMoments.from_grams(
            aggregate.transformed_grams(
                feature_scale=data_norm,
                target_scale=2.0 if multiclass else 1.0,
                target_shift=-1.0 if multiclass else 0.0,
            ),
            aggregate.counts,
            n_outputs=n_outputs,
            sigma_x=sigma_x,
            sigma_t=randomizer.sigma_y * (2.0 if multiclass else 1.0),
        )
        z_norm = np.sqrt(1.0 + self.fit_intercept)
        # ||Phi w|| is about ||w||_2 <= ||w||_1: the margins of Phi C stay
        # in [-r, r] with r = l1_radius ||[z, 1]||.
        interval = (-self.l1_radius * z_norm, self.l1_radius * z_norm)
        loss = get_loss(self.loss)
        coef2, coef1 = degree_one_pair(loss, interval)
        components = randomizer.feature_map.components_
        m = aggregate.n_components
        fit = partial(
            l1_margin_model,
            coef2=coef2,
            coef1=coef1,
            components=components,
            fit_intercept=self.fit_intercept,
            max_iter=self.max_iter,
            tol=self.tol,
            iterations=(iterations := []),
        )
        fold_fits = {}  # (candidate, fold) -> fit on the other folds
        if self.calibration == "paper":
            W = fit(folded.moments(), radius=self.l1_radius, ridge=0.0)
            name, params, results = "model", {"l1_radius": self.l1_radius}, None
        else:
            # The debiased covariance of n reports is off by about
            # sigma_x^2 sqrt(m / n) in operator norm: a ridge at that scale
            # (times the loss's slope), as GLMLDPClassifier's.
            ridge = coef2[1] * 2.0 * gram_noise_scale(sigma_x, m, folded.n)
            models = [
                ("model", partial(fit, radius=r, ridge=ridge), {"l1_radius": float(r)})
                for r in self.l1_radius * _radius_factors(components)
            ]
            if self.selection == "cv":
                W, name, params, results = select_radius(
                    folded, models, self.fit_intercept, fitted=fold_fits
                )
            else:
                W = fit(folded.moments(), radius=self.l1_radius, ridge=ridge)
                name, params = "model", {"l1_radius": float(self.l1_radius)}
                results = None
        if (
            self.calibration != "paper"
            and not multiclass
            and self.fit_intercept
            and name == "model"
        ):
            # As GLMLDPClassifier's: the chosen direction keeps its slope and
            # gets the linear discriminant's threshold along its score (a
            # model on an l1 ball is shrunk, and on unbalanced classes
            # predicted the majority class: breast cancer at 10^6 users,
            # epsilon 4, 0.854 -> 0.929). Cross-fitted with the chosen
            # radius's fits on the other folds (selection='cv'), else
            # in-sample.
            chosen = np.flatnonzero(results["selected"])[0] if results else -1
            held_out = [
                (folded.moments([k]), fold_fits[chosen, k])
                for k in range(folded.n_folds)
                if (chosen, k) in fold_fits
            ]
            W = refit_threshold(
                folded.moments(np.arange(folded.n_folds)),
                W,
                sigma_x=sigma_x,
                held_out=held_out,
            )
        self.selected_model_, self.selected_params_ = name, params
        self.cv_results_ = results
        # FISTA iterations of the final fit (the last call), 1 for the constant.
        self.n_iter_ = max(iterations[-n_outputs:]) if name == "model" else 1
        projected = W[:m]
        # Line 7: basis pursuit, per output (the constant's zero columns stay 0).
        recovered = recover_sparse(components, projected)
        self.coef_ = recovered.T / data_norm
        self.projected_coef_ = projected.T / data_norm
        self.intercept_ = (
            np.asarray(W[m], dtype=float) if self.fit_intercept else np.zeros(n_outputs)
        )
        self.n_components_ = int(m)
        self.projection_seed_ = int(randomizer.feature_map.seed)
        self.noise_scale_ = float(randomizer.sigma_x)
        self.degree_ = 1
        self.poly_coef_ = np.vstack([coef2, coef1])
        grid = np.linspace(*interval, 2001)
        h2_prime, h1_prime = linear_label_parts(loss.margin_derivative)
        err2 = np.polynomial.Polynomial(coef2)(grid) - h2_prime(grid)
        err1 = np.polynomial.Polynomial(coef1)(grid) - h1_prime(grid)
        self.approximation_error_ = float(
            max(np.max(np.abs(err2 - err1)), np.max(np.abs(err2 + err1)))
        )

    # -- prediction -----------------------------------------------------------

    def __sklearn_tags__(self):
        tags = ldp_tags(super().__sklearn_tags__())
        tags.classifier_tags.multi_class = True
        return tags


__all__ = ["SparseLDPClassifier"]
