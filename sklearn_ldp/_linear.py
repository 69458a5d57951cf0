"""What the linear models share: prediction methods (post-processing only)
and the client and solver of the classifiers on a polynomial gradient oracle."""

from functools import partial
from numbers import Integral, Real
from types import SimpleNamespace

import numpy as np
from scipy.special import expit, log_expit, log_softmax, softmax
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import LDPEstimatorMixin
from .accounting import best_moment_mechanism
from .aggregation import (
    AUTO_DEGREES,
    N_FOLDS,
    Candidate,
    FoldedMoments,
    constant_model,
    cross_validate,
    directional_signal_test,
    least_squares_path,
    pilot_second_moment,
    project_psd,
    ridge_alphas,
    scaled_margin_risk,
    select_candidate,
    select_degree,
    signal_test,
)
from .aggregation._blocks import StreamedOracle
from .aggregation._frequency import FrequencySupportCounts, debias_frequencies
from .aggregation._ridge import centred_moments
from .aggregation._selection import constant_only_results, gram_noise_scale
from .aggregation._selection import refit_threshold as threshold_along_score
from .aggregation._sufficient import FoldedGramSums, PrivUnitFoldedGramSums
from .optim import minimize_on_ball, minimize_quadratic_on_ball
from .randomizers import (
    GaussianCopiesRandomizer,
    GaussianRecordRandomizer,
    LabelRandomizer,
    PrivUnitGRecordRandomizer,
    chunk_rows,
)
from .randomizers._privunit import PRIVUNIT_EPSILON_RANGE
from .randomizers._target_mean import min_users_for_a_model

#: Balls of the degree-1 model tried by ``selection='cv'`` (times
#: ``coef_norm``; the largest is preferred: the ball then only bounds the
#: solution, the noise ridge regularizes it).
RADIUS_FACTORS = (1.0, 4.0, 16.0, 64.0)
#: Level of the test "labels uncorrelated with features" below which the
#: fitted models compete with the intercept-only model (two tests at half
#: the level each). Deliberately loose: keeping the intercept-only model
#: when there is a signal costs far more accuracy (digits_binary, 10^5 users,
#: eps 8: 0.49 against 0.70, with p-values 0.05-0.07) than a fitted random
#: direction costs when there is none (balanced classes: nothing).
SIGNAL_LEVEL = 0.2
#: The joint report's mechanisms (``mechanism``; ``'auto'`` picks one).
JOINT_MECHANISMS = ("auto", "gaussian", "privunit")


def choose_pair_mechanism(mechanism, epsilon, delta, n_numbers, *, unsupported=None):
    """``'privunit'`` or ``'gaussian'``: the report of a moments server's pair.

    ``mechanism`` is the estimator's parameter (:data:`JOINT_MECHANISMS`);
    ``n_numbers`` the released pair's length (features and target
    columns); ``unsupported`` None when the server reads only the first and
    second moments of the pair, else the message of the error
    ``mechanism='privunit'`` raises (that configuration keeps the Gaussian
    release). ``'auto'`` takes PrivUnitG
    (:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer`) when
    epsilon is in ``PRIVUNIT_EPSILON_RANGE`` and
    :func:`~sklearn_ldp.accounting.best_moment_mechanism` predicts a
    smaller worst-case second-moment variance per user for it than for the
    analytic Gaussian at ``delta``. Public quantities only, before anyone
    reports.
    """
    if mechanism == "gaussian":
        return "gaussian"
    if unsupported is not None:
        if mechanism == "privunit":
            raise ValueError(unsupported)
        return "gaussian"
    if mechanism == "privunit":
        return "privunit"
    low, high = PRIVUNIT_EPSILON_RANGE
    if not low <= epsilon <= high:
        return "gaussian"
    name, _ = best_moment_mechanism(n_numbers, epsilon, delta)
    return "privunit" if name == "privunit_gaussian" else "gaussian"
def paper_mode_keeps_gaussian(calibration, default="analytic"):
    """``unsupported`` of :func:`choose_pair_mechanism` for a moments server.

    None unless ``calibration`` is ``'paper'``, whose printed reports are
    Gaussian: then the error ``mechanism='privunit'`` raises there
    (``default``: the estimator's own calibration name).
    """
    if calibration != "paper":
        return None
    return (
        f"mechanism='privunit' needs calibration={default!r}: the "
        "paper-faithful mode sends the printed Gaussian reports."
    )


#: About how many numbers one block of the multi-pass server holds per array.
BLOCK_VALUES = 2**20


class LinearRegressorOutputMixin:
    """``predict`` of a regressor linear in its features.

    The features are ``X`` itself (``coef_`` of shape (p,), ``intercept_``
    a float); a model on a public feature map of ``X`` overrides
    ``_predict_validated``. Predictions are clipped to the declared target
    range ``[-y_bound, y_bound]`` (public; the clipped targets, hence the
    best predictor, lie in it, so clipping never increases a squared error,
    and it keeps a model fitted on very noisy reports inside the range).
    """

    def predict(self, X):
        """Predictions of the fitted model, linear in its features.

        ``X @ coef_ + intercept_``, or, for a model on a public feature map,
        the mapped ``X`` times ``coef_``; clipped to ``[-y_bound, y_bound]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        predictions = self._predict_validated(X)
        bound = getattr(self, "y_bound", None)
        if bound is None:
            return predictions
        return np.clip(predictions, -bound, bound)

    def _predict_validated(self, X):
        return X @ self.coef_ + self.intercept_


class LinearClassifierOutputMixin:
    """``decision_function`` and ``predict`` from ``coef_`` (k, p) and ``intercept_`` (k,).

    One row of ``coef_`` (two classes) gives the score of ``classes_[1]``;
    ``k`` rows give one score per class.
    """

    def decision_function(self, X):
        """Scores ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, the score of ``classes_[1]`` (positive means
            ``classes_[1]``).
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        scores = X @ np.atleast_2d(self.coef_).T + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Predicted class labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]


class OneVsRestProbaMixin:
    """``predict_proba`` of one-vs-rest logistic models: sigmoids normalized to sum to one.

    Placed before :class:`MultinomialProbaMixin` in the bases of a
    one-vs-rest classifier (as scikit-learn's one-vs-rest logistic regression).
    """

    def _multiclass_proba(self, scores):
        proba = expit(scores)
        return proba / proba.sum(axis=1, keepdims=True)

    def _log_proba(self, scores):
        return np.log(self._proba(scores))


class MultinomialProbaMixin:
    """``predict_proba`` of a logistic (binary) or multinomial model (``loss='logistic'``).

    Several classes get the softmax of the scores; a one-vs-rest model
    overrides ``_multiclass_proba`` (and ``_log_proba``).
    """

    def _has_proba(self):
        return self.loss == "logistic"

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities (``loss='logistic'`` only).

        Two classes: ``sigmoid(score)``. More: the softmax of the scores
        (multinomial), or the one-vs-rest sigmoids normalized to sum to one
        (one-vs-rest, as scikit-learn's one-vs-rest logistic regression).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        return self._proba(self.decision_function(X))

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        """Log of :meth:`predict_proba` (``loss='logistic'`` only).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        return self._log_proba(self.decision_function(X))

    def _proba(self, scores):
        if scores.ndim == 1:
            # expit(-s), not 1 - expit(s): no cancellation to 0 for large s
            # (consistent with predict_log_proba's log_expit(-s)).
            return np.column_stack([expit(-scores), expit(scores)])
        return self._multiclass_proba(scores)

    def _multiclass_proba(self, scores):
        return softmax(scores, axis=1)

    def _log_proba(self, scores):
        if scores.ndim == 1:
            return np.column_stack([log_expit(-scores), log_expit(scores)])
        return log_softmax(scores, axis=1)


class PolynomialOracleClassifierMixin:
    """The users' report and the server's solver of the polynomial-oracle classifiers.

    Each user sends one jointly calibrated Gaussian report of its record
    (``calibration='analytic'``) or the paper's copies
    (``calibration='paper'``); the server picks ``degree='auto'`` from the
    reports and minimizes over the ball ``||(w, b)|| <= coef_norm``
    (``GLMLDPClassifier``, ``HingeLDPClassifier``).
    """

    _oracle_parameter_constraints = {
        **LDPEstimatorMixin._ldp_parameter_constraints,
        "selection": [StrOptions({"cv"}), None],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "coef_norm": [Interval(Real, 0, None, closed="neither")],
        "data_norm": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "solver": [StrOptions({"gd", "sigm"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "calibration": [StrOptions({"analytic", "paper"})],
    }

    #: ``partial_fit`` announces no population: a first batch is not the
    #: population, and without one users send the joint report.
    _first_batch_is_the_population = False

    def _report_randomizer(self, n_features, classes, paper_protocol, n_users=None):
        """One joint Gaussian report, the ``paper_protocol`` copies, or the label alone.

        With ``selection='cv'`` and ``calibration='analytic'``, when the
        announced population ``n_users`` is at most
        :func:`~sklearn_ldp.randomizers._target_mean.min_users_for_a_model`
        of the joint report's noise (the labels ``+-1``, or the one-vs-rest
        labels ``2 e_c - 1`` with twice the one-hot noise, bounded by 1),
        no model of the features is predicted to beat the majority class:
        users send the label alone
        (:class:`~sklearn_ldp.randomizers.LabelRandomizer`, pure epsilon).
        """
        if self.calibration == "paper":
            return GaussianCopiesRandomizer(
                n_features,
                epsilon=self.epsilon,
                delta=self.delta,
                degree=self.degree,
                protocol=paper_protocol,
                data_norm=self.data_norm,
                classes=classes,
            )
        joint = self._joint_randomizer(n_features, classes)
        if (
            self.selection == "cv"
            and n_users is not None
            and n_users <= label_only_threshold(joint)
        ):
            return LabelRandomizer(
                n_features, epsilon=self.epsilon, classes=classes, n_users=n_users
            )
        return joint

    def _joint_mechanism(self, n_features, classes):
        """``'privunit'`` or ``'gaussian'``: the mechanism of the joint report.

        ``mechanism='auto'``: PrivUnitG
        (:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer`) when
        the server needs only the first and second moments of the pair
        (``_reports_feed_moments``: the degree-1 default) and
        :func:`~sklearn_ldp.accounting.best_moment_mechanism` predicts a
        smaller worst-case second-moment variance per user for it than for
        the analytic Gaussian at ``delta`` (every ``epsilon`` in 0.5..8 and
        ``d`` in 2..30 of ``docs/benchmarks/mechanisms.md``, by factors of 50
        to 400); the Gaussian release otherwise. A choice from public
        quantities only, made before anyone reports.
        """
        n_targets = 1 if len(classes) == 2 else len(classes)
        return choose_pair_mechanism(
            self.mechanism,
            self.epsilon,
            self.delta,
            n_features + n_targets,
            unsupported=None
            if self._reports_feed_moments()
            else (
                "mechanism='privunit' needs a server that uses only the first "
                "and second moments of the reports: calibration='analytic', "
                "degree=1 and solver='gd' (the defaults); this configuration's "
                "server evaluates polynomials of the Gaussian reports."
            ),
        )

    def _joint_randomizer(self, n_features, classes):
        """One report of ``(x, label)`` per user, by :meth:`_joint_mechanism`."""
        if self._joint_mechanism(n_features, classes) == "privunit":
            return PrivUnitGRecordRandomizer(
                n_features,
                epsilon=self.epsilon,
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

    def _expected_randomizer(self, reports):
        """The published randomizer for ``reports``, from the *announced* population.

        Only label-only reports announce a population (the choice of
        collection was made from it); joint reports do not depend on it, so
        the number of reports received must not turn the expected
        collection into another one.
        """
        config = reports.config
        return self.make_randomizer(
            config.get("n_features"),
            n_users=config.get("n_users"),
            classes=config.get("classes"),
        )

    def _label_aggregate(self, config):
        """The support counts of label-only reports, else None."""
        if config.get("randomizer") != LabelRandomizer.__name__:
            return None
        randomizer = self._expected_randomizer(SimpleNamespace(config=config))
        return FrequencySupportCounts(randomizer.frequency)

    def _analytic_degree(self, scored_oracle, radius, rng):
        """``degree``, or the one ``select_degree`` picks for ``'auto'``.

        ``scored_oracle(degree) -> (oracle, bias)`` (streamed oracles: one
        pass for the pilot point, one per candidate degree).
        """
        if self.degree != "auto":
            return self.degree
        return select_degree(scored_oracle, AUTO_DEGREES, radius=radius, rng=rng)

    # -- the multi-pass server (oracle solvers) ------------------------------

    def _server_passes(self, config):
        """``(passes, configuration)`` when the server is the oracle solver, else None.

        The validating first pass, then per fit of the oracle solver (the
        model on each of 5 training splits and on all reports with
        ``selection='cv'`` in the analytic calibration, else one fit) up to
        ``max_iter`` passes (``'gd'``: one per iteration) or 3 (``'sigm'``:
        the pilot point, the pilot second moment and SIGM's pass), and 7
        more for ``degree='auto'`` (the pilot point and one per candidate).
        """
        if self._server_aggregate(config) is not None:
            return None
        paper = config.get("calibration") == "paper"
        fits = 1 if paper or self.selection is None else N_FOLDS + 1
        per_fit = int(self.max_iter) if self.solver == "gd" else 3
        auto = 1 + len(AUTO_DEGREES) if self.degree == "auto" else 0
        names = ("degree", "solver", "calibration", "selection", "max_iter")
        if hasattr(self, "approximation"):
            names = names[:2] + ("approximation",) + names[2:]
        configuration = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return 1 + auto + fits * per_fit, configuration

    def _first_pass_aggregate(self, config):
        """The per-fold moments of joint reports (report-only selection), else None."""
        if config.get("calibration") == "paper":
            return None
        return self._moments_aggregate(config)

    def _server_block_size(self, config):
        """Reports per block of the multi-pass server: fixed by the configuration.

        About ``2^20`` numbers per block: the reports (all copies), the
        direction copy and the per-class polynomial copies of the highest
        candidate degree.
        """
        n_features = int(config["n_features"])
        n_classes = len(config["classes"])
        copies = len(np.atleast_1d(config["sigma_x"])) + 1
        per_user = copies * (n_features + 1) + 2 * n_classes * (AUTO_DEGREES[-1] + 2)
        return chunk_rows(per_user, budget=BLOCK_VALUES)

    def _streamed_oracle(self, source, make_kernel, n_outputs, entropy, rows=None):
        """:class:`~sklearn_ldp.aggregation._blocks.StreamedOracle` of a kernel."""
        dim = int(source.stream.config["n_features"]) + self.fit_intercept
        shape = (dim,) if n_outputs is None else (dim, n_outputs)
        return StreamedOracle(
            source, make_kernel, param_shape=shape, entropy=entropy, rows=rows
        )

    def _solves_on_moments(self, poly_pair):
        """True when the server is a function of debiased moments only.

        A degree-1 linear-label pair ``(P2, P1)`` with ``solver='gd'``: the
        objective is then a quadratic in ``w`` (:func:`quadratic_margin_model`)
        and the report-only selection needs the per-fold moments only.
        """
        return (
            self.solver == "gd"
            and poly_pair is not None
            and is_degree_one_linear_label(*poly_pair)
        )

    def _moments_aggregate(self, config):
        """The empty one-pass aggregate of joint reports of ``config``.

        Per fold (the report at position ``p`` in fold ``p mod 5``) the Gram
        matrix of the rows ``[x, 1, y]`` as sent: ``y`` a noisy +-1 label
        (two classes) or a noisy one-hot vector.
        """
        n_classes = len(config["classes"])
        n_targets = 1 if n_classes == 2 else n_classes
        if config.get("randomizer") == PrivUnitGRecordRandomizer.__name__:
            return PrivUnitFoldedGramSums(
                N_FOLDS,
                int(config["n_features"]),
                n_targets,
                report_scale=float(config["report_scale"]),
                first_moment_factor=float(config["first_moment_factor"]),
            )
        return FoldedGramSums(N_FOLDS, int(config["n_features"]), n_targets)

    def _folded_moments(self, aggregate, config):
        """:class:`~sklearn_ldp.aggregation.FoldedMoments` of the aggregate.

        The features scaled to ``x / data_norm`` and, with several classes,
        the one-vs-rest labels ``2 e_c - 1`` of the noisy one-hot entries
        ``e_c`` (twice their noise), applied to the sums.
        """
        data_norm = float(config["data_norm"])
        multiclass = aggregate.n_targets > 1
        grams = aggregate.transformed_grams(
            feature_scale=data_norm,
            target_scale=2.0 if multiclass else 1.0,
            target_shift=-1.0 if multiclass else 0.0,
        )
        return FoldedMoments.from_grams(
            grams,
            aggregate.counts,
            n_outputs=aggregate.n_targets,
            sigma_x=float(config["sigma_x"]) / data_norm,
            sigma_t=float(config["sigma_y"]) * (2.0 if multiclass else 1.0),
        )

    def _fit_moments(self, folded, poly_pair, radius):
        """``W`` (features then intercept, one column per output) from folded moments.

        The degree-1 model solved exactly on the debiased moments
        (:func:`quadratic_margin_model`, with a ridge at the noise scale of
        the Gram matrix); with ``selection='cv'`` the model on balls of
        ``RADIUS_FACTORS`` times the radius, least squares and the
        intercept-only model compete on the folds
        (:func:`select_linear_classifier_on_folds`).
        """
        n_features = folded.zz.shape[1] - 1
        sigma_x = folded.sigma_x

        def on_moments(moments, radius=radius):
            # The debiased Gram matrix of n reports is off by about
            # sigma_x^2 sqrt(d / n) in operator norm: a ridge at that scale
            # (times the loss's slope) keeps the solve stable, as in
            # debiased least squares.
            noise_ridge = 2.0 * gram_noise_scale(sigma_x, n_features, moments.n)
            return quadratic_margin_model(
                moments,
                *poly_pair,
                radius=radius,
                alpha=getattr(self, "alpha", 0.0) + poly_pair[0][1] * noise_ridge,
                fit_intercept=self.fit_intercept,
            )

        if self.selection == "cv":  # cheap: the model on larger balls too
            models = [
                ("model", partial(on_moments, radius=r), {"coef_norm": float(r)})
                for r in radius * np.asarray(RADIUS_FACTORS)[::-1]
            ]
            W, name, params, results = select_linear_classifier_on_folds(
                folded,
                models=models,
                model_on_moments=True,
                fit_intercept=self.fit_intercept,
                refit_threshold=True,
            )
        else:
            W = on_moments(folded.moments())
            name, params, results = "model", {"coef_norm": float(radius)}, None
        self.selected_model_, self.selected_params_ = name, params
        self.cv_results_ = results
        self.n_iter_ = 1
        return W

    def _fit_joint_reports(self, folded, *, poly_pair, radius, fit_on_rows):
        """``W`` (features then intercept, one column per output) from joint reports.

        ``folded`` holds the per-fold moments of the first pass (the report
        at position ``i`` in fold ``i mod 5``). ``poly_pair`` is ``(P2,
        P1)`` of the linear-label form (None when the multiplier is not of
        that form). A degree-1 pair with ``solver='gd'`` is solved exactly
        on the debiased moments (:meth:`_fit_moments`, as the one-pass
        server); anything else runs the oracle solver through
        ``fit_on_rows(rows) -> (W, n_iter)`` on the reports ``rows`` keeps
        (a :class:`~sklearn_ldp.aggregation._blocks.PositionFolds`). With
        ``selection='cv'`` the result is chosen from reports alone
        (:func:`select_linear_classifier_on_folds`).
        """
        if self._solves_on_moments(poly_pair):
            return self._fit_moments(folded, poly_pair, radius)
        iterations = []

        def on_reports(train):
            W, n_iter = fit_on_rows(train[1])
            iterations.append(n_iter)
            if not self.fit_intercept:
                W = np.vstack([W, np.zeros((1, W.shape[1]))])
            return W

        params = {"coef_norm": float(radius)}
        if self.selection == "cv":
            W, name, params, results = select_linear_classifier_on_folds(
                folded,
                models=[("model", on_reports, params)],
                model_on_moments=False,
                fit_intercept=self.fit_intercept,
                refit_threshold=True,
            )
        else:
            W = on_reports((None, folded.training_rows()))
            name, results = "model", None
        self.selected_model_, self.selected_params_ = name, params
        self.cv_results_ = results
        self.n_iter_ = int(iterations[-1]) if name == "model" and iterations else 1
        return W

    def _minimize(self, oracle, *, smoothness, radius, rng, **solver_args):
        """``solver`` on the ball of ``radius`` (a pilot second moment for SIGM)."""
        return minimize_on_ball(
            oracle,
            solver=self.solver,
            smoothness=smoothness,
            radius=radius,
            max_iter=self.max_iter,
            rng=rng,
            user_second_moment=(
                pilot_second_moment(oracle, radius, rng)
                if self.solver == "sigm"
                else None
            ),
            **solver_args,
        )


def fit_label_frequencies(estimator, aggregate, config):
    """Set the intercept-only model of label-only reports (the estimated class balance).

    The unbiased class frequencies ``f`` of the support counts
    (:class:`~sklearn_ldp.aggregation.FrequencySupportCounts` of a
    :class:`~sklearn_ldp.randomizers.LabelRandomizer`'s reports); the
    intercept is the mean of the labels a joint server scores (``2 f_1 - 1``
    for two classes, the one-vs-rest ``2 f_c - 1`` for more), clipped to
    ``[-1, 1]`` (0 without ``fit_intercept``): the model the joint server's
    selection falls back to, from a less noisy estimate. Sets ``coef_``
    (zeros), ``intercept_``, ``selected_model_`` (``'constant'``),
    ``selected_params_``, ``cv_results_`` (with ``class_frequencies``),
    ``n_iter_`` and, no loss being approximated, ``degree_`` 0,
    ``poly_coef_`` None and ``approximation_error_`` nan. Post-processing
    of the reports.
    """
    design = aggregate.randomizer.design
    frequencies = debias_frequencies(
        aggregate.counts, aggregate.n_users, design.support_prob, design.other_prob
    )[0]
    n_features = int(config["n_features"])
    n_classes = len(config["classes"])
    n_outputs = 1 if n_classes == 2 else n_classes
    labels = frequencies[1:] if n_classes == 2 else frequencies
    estimator.coef_ = np.zeros((n_outputs, n_features))
    estimator.intercept_ = (
        np.clip(2.0 * labels - 1.0, -1.0, 1.0)
        if estimator.fit_intercept
        else np.zeros(n_outputs)
    )
    estimator.selected_model_, estimator.selected_params_ = "constant", {}
    estimator.cv_results_ = constant_only_results(class_frequencies=frequencies)
    estimator.n_iter_ = 1
    estimator.degree_, estimator.poly_coef_ = 0, None
    estimator.approximation_error_ = np.nan


def label_only_threshold(joint):
    """The population at and below which users of ``joint`` reports send the label alone.

    :func:`~sklearn_ldp.randomizers._target_mean.min_users_for_a_model` of
    the joint report's noise: the labels the server scores are ``+-1`` (two
    classes) or the one-vs-rest ``2 e_c - 1`` of the noisy one-hot entries
    (twice their noise), bounded by 1; the features' bound is the report's
    ``feature_norm``.
    """
    label_noise = joint.sigma_y * (1.0 if len(joint.classes) == 2 else 2.0)
    return min_users_for_a_model(joint.sigma_x, label_noise, joint.feature_norm, 1.0)


def quadratic_margin_model(moments, coef2, coef1, *, radius, alpha, fit_intercept):
    """The degree-1 margin-loss model, exactly, from debiased moments.

    With ``P2(a) = c20 + c21 a`` and ``P1(a) = c10`` (a degree-1 Chebyshev
    or Bernstein approximation on a symmetric interval: ``h2'`` is odd and
    ``h1'`` even, so ``c20`` and ``c11`` vanish up to rounding) the expected
    gradient ``E[(P2(a) - y P1(a)) [x, 1]] + alpha P w`` is ``A w - b`` with

        A = c21 E[[x, 1][x, 1]^T] + alpha P,   b = c10 E[[x, 1] y] - c20 E[[x, 1]],

    (``P`` the identity on the features, 0 on the intercept) so the
    objective is the quadratic ``w^T A w / 2 - b^T w``, minimized on each
    output's ball ``||w|| <= radius`` exactly
    (:func:`~sklearn_ldp.optim.minimize_quadratic_on_ball`). ``A`` uses the
    debiased Gram matrix projected onto the PSD cone, as debiased least
    squares does: the same reports, the solution of the same linear system
    up to the ball and the loss's slope.

    Returns
    -------
    W : ndarray of shape (n_features + 1, n_outputs), the intercept last
        (0 without ``fit_intercept``).
    """
    m = moments.gram.shape[0]
    keep = m if fit_intercept else m - 1
    gram = project_psd(moments.gram[:keep, :keep])
    penalty = np.full(keep, float(alpha))
    if fit_intercept:
        penalty[-1] = 0.0
    A = coef2[1] * gram + np.diag(penalty)
    W = np.zeros((m, moments.cross.shape[1]))
    for c in range(W.shape[1]):  # one ball per output (class)
        b = coef1[0] * moments.cross[:keep, c] - coef2[0] * moments.gram[:keep, -1]
        W[:keep, c] = minimize_quadratic_on_ball(A, b, radius)
    return W


def is_degree_one_linear_label(coef2, coef1, tol=1e-10):
    """True when ``(P2, P1)`` is a degree-1 pair with a constant ``P1``."""
    coef2, coef1 = np.ravel(coef2), np.ravel(coef1)
    scale = max(np.max(np.abs(coef2)), np.max(np.abs(coef1)), 1.0)
    return (
        len(coef2) <= 2
        and len(coef1) <= 2
        and (len(coef1) < 2 or abs(coef1[1]) <= tol * scale)
    )


def select_linear_classifier(
    x,
    labels,
    *,
    sigma_x,
    sigma_t,
    models,
    model_on_moments,
    fit_intercept,
    rng,
    refit_threshold=False,
):
    """Report-only choice of a linear classifier (ALGORITHMS.md section 7).

    Candidates, in order of preference: the estimator's own ``models`` (as
    configured first), debiased ridge least squares on the +-1 labels over
    a public grid of penalties (:func:`~sklearn_ldp.aggregation.ridge_alphas`,
    strongest first) and the intercept-only model (the noisy class
    frequencies; only with ``fit_intercept``; it is *chosen* when
    :func:`~sklearn_ldp.aggregation.signal_test` on all reports cannot
    reject "no correlation between labels and features" at level
    ``SIGNAL_LEVEL``: a scorer fitted on pure noise points in a random
    direction, whose expected accuracy is below the majority rate, and a
    comparison of a dozen candidates on noise picks one by chance). Each is
    fitted on 4 of 5
    folds of the reports and scored on the fifth with
    :func:`~sklearn_ldp.aggregation.scaled_margin_risk`; the first candidate
    within one paired standard error of the reference
    (:func:`~sklearn_ldp.aggregation.select_candidate`) is refitted on all
    reports. The estimator's model therefore stays unless the folds show
    that a fallback predicts better; when the reports carry too little
    signal to tell, the model stays.

    Parameters
    ----------
    x : ndarray of shape (n_reports, n_features)
        Noisy scaled features.
    labels : ndarray of shape (n_reports, n_outputs)
        Noisy +-1 labels (one-vs-rest).
    sigma_x, sigma_t : float
        Their noise levels.
    models : list of (name, callable, params)
        ``fit(moments)`` (``model_on_moments``) or ``fit((moments, rows))``
        -> ``W`` of shape ``(n_features + 1, n_outputs)``.
    model_on_moments : bool
    fit_intercept : bool
    rng : RandomState
        Server randomness (the folds).
    refit_threshold : bool, default=False
        Binary classification: the chosen scorer (the model or ridge least
        squares, not the intercept-only model) keeps its direction and gets
        the threshold of the linear discriminant along its score
        (:func:`~sklearn_ldp.aggregation.refit_threshold`), cross-fitted:
        the class covariance and variance along the candidate's fits on 4
        of 5 folds, measured on the fifth (the fits the selection made): a
        margin model on a ball, or a strongly penalized ridge fit, has a
        slope too small for its unpenalized intercept and predicts the
        majority class.

    Returns
    -------
    W : ndarray of shape (n_features + 1, n_outputs)
    name : str
        The chosen candidate.
    params : dict
        Its parameters.
    cv_results : dict
    """
    generator = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
    folded = FoldedMoments(
        x, labels, sigma_x=sigma_x, sigma_t=sigma_t, random_state=generator
    )
    return select_linear_classifier_on_folds(
        folded,
        models=models,
        model_on_moments=model_on_moments,
        fit_intercept=fit_intercept,
        refit_threshold=refit_threshold,
    )


def select_linear_classifier_on_folds(
    folded, *, models, model_on_moments, fit_intercept, refit_threshold=False
):
    """:func:`select_linear_classifier` on given folds of the reports.

    The one-pass servers' form: ``folded`` holds the per-fold sums
    (:meth:`~sklearn_ldp.aggregation.FoldedMoments.from_grams` of a
    streamed aggregate, the report at position ``i`` in fold ``i mod 5``);
    the noise levels are its own. Candidates that need the reports
    themselves (``model_on_moments=False``) need ``folded.fold_of``.

    Returns
    -------
    W, name, params, cv_results
        As :func:`select_linear_classifier`.
    """
    sigma_x, sigma_t = folded.sigma_x, folded.sigma_t
    n, d = folded.n, folded.zz.shape[1] - 1
    candidates = [
        Candidate(name, fit, params, needs_rows=not model_on_moments)
        for name, fit, params in models
    ]
    for alpha in ridge_alphas(sigma_x, d, n)[::-1]:  # strongest penalty first
        candidates.append(
            Candidate(
                "least_squares",
                partial(
                    _single_least_squares, alpha=alpha, fit_intercept=fit_intercept
                ),
                {"alpha": float(alpha)},
            )
        )
    everything = folded.moments(np.arange(folded.n_folds))
    # Two tests of "labels independent of the features", each at half the
    # level (Bonferroni): all coordinates (chi-square) and the direction
    # least squares fits on the other folds (one degree of freedom).
    ridge = 2.0 * gram_noise_scale(sigma_x, d, n)
    p_value = min(
        # Centred: without any signal the uncentred E[z t] is E[x] E[y],
        # not 0 when the features' and the labels' means are not (unbalanced
        # classes, one-vs-rest labels): the test would reject for large n.
        signal_test(centred_moments(everything), sigma_x, sigma_t),
        directional_signal_test(
            folded, partial(_single_least_squares, alpha=ridge, fit_intercept=True)
        ),
    )
    no_signal = p_value > SIGNAL_LEVEL / 2.0
    if fit_intercept:
        candidates.append(
            Candidate("constant", partial(constant_model, fit_intercept=True), {})
        )
    fold_fits = {}  # kept: the chosen one's fits cross-fit its threshold
    scores = cross_validate(
        folded,
        candidates,
        partial(
            scaled_margin_risk,
            label_square=folded.zt.shape[2],
            ridge=ridge,
        ),
        fitted=fold_fits,
    )
    chosen, results = select_candidate(scores, candidates)
    if no_signal and fit_intercept:  # do no harm: a direction fitted on noise
        chosen = len(candidates) - 1
        results["selected"] = np.arange(len(candidates)) == chosen
    results["signal_p_value"] = p_value
    candidate = candidates[chosen]
    train = (everything, folded.training_rows()) if candidate.needs_rows else everything
    W = candidate.fit(train)
    if refit_threshold and fit_intercept and candidate.name != "constant":
        held_out = [
            (folded.moments([k]), fold_fits[chosen, k])
            for k in range(folded.n_folds)
            if (chosen, k) in fold_fits
        ]
        W = threshold_along_score(everything, W, sigma_x=sigma_x, held_out=held_out)
    return W, candidate.name, candidate.params, results


def all_moments(x, labels, sigma_x, sigma_t):
    """Debiased :class:`~sklearn_ldp.aggregation.Moments` of all reports."""
    folded = FoldedMoments(
        x,
        labels,
        sigma_x=sigma_x,
        sigma_t=sigma_t,
        n_folds=1,
    )
    return folded.moments([0])


def _single_least_squares(moments, *, alpha, fit_intercept):
    return least_squares_path(moments, [alpha], fit_intercept=fit_intercept)[0]
