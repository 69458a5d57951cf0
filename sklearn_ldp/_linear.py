"""Prediction methods shared by the linear classifiers (post-processing only)."""

import numpy as np
from scipy.special import expit, log_expit, log_softmax, softmax
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
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


class CentralFitMixin:
    """Shared steps of the central-DP linear classifiers' ``fit``."""

    def _validate_training_data(self, X, y):
        """Validate ``(X, y)``; set ``classes_``; return X and class indices."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, class_indices = np.unique(y, return_inverse=True)
        if self.classes_.shape[0] < 2:
            raise ValueError(
                "The training data has one class; a classifier needs at "
                f"least two, got {self.classes_.tolist()}."
            )
        return X, class_indices

    def _set_coefficients(self, W, n_features):
        """Unpack the solver's ``W`` (features, then the intercept row)."""
        self.coef_ = W[:n_features].T.copy()
        if self.fit_intercept:
            self.intercept_ = W[n_features] * self.intercept_scaling
        else:
            self.intercept_ = np.zeros(W.shape[1])
        self.privacy_epsilon_ = float(self.epsilon)
        self.privacy_delta_ = float(self.delta)
