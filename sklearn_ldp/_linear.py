"""Prediction methods shared by the linear classifiers (post-processing only)."""

import numpy as np
from scipy.special import expit, log_expit, log_softmax, softmax
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data


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
    """``predict_proba`` of a logistic (binary) or multinomial model (``loss='logistic'``)."""

    def _has_proba(self):
        return self.loss == "logistic"

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities (``loss='logistic'`` only).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            positive = expit(scores)
            return np.column_stack([1.0 - positive, positive])
        return softmax(scores, axis=1)

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
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([log_expit(-scores), log_expit(scores)])
        return log_softmax(scores, axis=1)
