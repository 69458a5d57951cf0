"""What the linear models share: prediction methods (post-processing only)
and the client and solver of the classifiers on a polynomial gradient oracle."""

from functools import partial
from numbers import Integral, Real

import numpy as np
from scipy.special import expit, log_expit, log_softmax, softmax
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import LDPEstimatorMixin
from .aggregation import AUTO_DEGREES, pilot_second_moment, select_degree
from .optim import minimize_on_ball
from .randomizers import GaussianCopiesRandomizer, GaussianRecordRandomizer


class LinearRegressorOutputMixin:
    """``predict`` of a regressor linear in its features.

    The features are ``X`` itself (``coef_`` of shape (p,), ``intercept_``
    a float); a model on a public feature map of ``X`` overrides
    ``_predict_validated``.
    """

    def predict(self, X):
        """Predictions of the fitted model, linear in its features.

        ``X @ coef_ + intercept_``, or, for a model on a public feature map,
        the mapped ``X`` times ``coef_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self._predict_validated(X)

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
            positive = expit(scores)
            return np.column_stack([1.0 - positive, positive])
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
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "coef_norm": [Interval(Real, 0, None, closed="neither")],
        "data_norm": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "solver": [StrOptions({"gd", "sigm"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "calibration": [StrOptions({"analytic", "paper"})],
    }

    def _report_randomizer(self, n_features, classes, paper_protocol):
        """One joint Gaussian report, or the ``paper_protocol`` copies."""
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
        return GaussianRecordRandomizer(
            n_features,
            epsilon=self.epsilon,
            delta=self.delta,
            data_norm=self.data_norm,
            classes=classes,
            calibration="analytic",
        )

    def _analytic_degree(self, scored_oracle, oracle_args, z_norm, radius, rng):
        """``degree``, or the one ``select_degree`` picks for ``'auto'``."""
        if self.degree != "auto":
            return self.degree
        return select_degree(
            partial(scored_oracle, z_norm=z_norm, **oracle_args),
            AUTO_DEGREES,
            radius=radius,
            rng=rng,
        )

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
