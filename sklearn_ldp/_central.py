"""The fit template of the central-DP linear classifiers.

In the central model a trusted curator holds ``(X, y)`` and releases one
model. ``fit`` validates the data and the class labels, clips every row to
the public bounds and appends the public intercept column, draws from one
noise generator, and hands the design to the estimator's ``_solve`` (one
accounted private run: calibration in :mod:`sklearn_ldp.accounting`, the
solver in :mod:`sklearn_ldp.optim`). It then unpacks the weights and stores
the guarantee and the run's public constants as fitted attributes, so the
budget can be re-checked with an independent accountant.
"""

import warnings
from collections import namedtuple
from numbers import Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from ._base import refuse_fit_params, warn_if_large_delta
from .exceptions import PrivacyLeakWarning
from .losses import get_loss
from .randomizers import clip_interval, clip_l2
from .utils import check_noise_random_state, clipping_diagnostics

#: Clipped rows with the public intercept column, the public bounds on their
#: l2 and l-infinity norms, and the mask of penalized rows of the weights
#: (all but the intercept row).
Design = namedtuple("Design", ["rows", "row_l2", "row_inf", "penalized"])


def _clipped_design(X, data_norm, data_norm_type, fit_intercept, intercept_scaling):
    """Rows clipped to ``data_norm`` (l2 or per feature), intercept column last."""
    if data_norm_type == "l2":
        rows = clip_l2(X, data_norm)
        row_l2, row_inf = float(data_norm), float(data_norm)
    else:
        rows = clip_interval(X, -data_norm, data_norm)
        row_l2, row_inf = float(data_norm * np.sqrt(X.shape[1])), float(data_norm)
    penalized = np.ones(X.shape[1] + int(fit_intercept), dtype=bool)
    if fit_intercept:
        rows = np.hstack([rows, np.full((X.shape[0], 1), float(intercept_scaling))])
        penalized[-1] = False
        row_l2 = float(np.hypot(row_l2, intercept_scaling))
        row_inf = max(row_inf, float(intercept_scaling))
    return Design(rows, row_l2, row_inf, penalized)


def _unpack_weights(W, n_features, fit_intercept, intercept_scaling):
    """``coef_`` ``(k, p)`` and ``intercept_`` ``(k,)`` from the solver's ``W``."""
    coef = W[:n_features].T.copy()
    if fit_intercept:
        return coef, W[n_features] * intercept_scaling
    return coef, np.zeros(W.shape[1])


def _pack_weights(coef, intercept, fit_intercept, intercept_scaling):
    """The solver's ``W`` ``(d, k)`` (intercept row last): inverse of unpacking."""
    W = coef.T
    if fit_intercept:
        W = np.vstack([W, intercept / intercept_scaling])
    return W


def _class_indices(y, classes):
    """The label set and each row's index in it.

    ``classes`` is the public label set (labels of ``y`` outside it are
    refused; labels of it absent from ``y`` are fine). ``None`` takes the
    set from ``y`` with a :class:`~sklearn_ldp.exceptions.PrivacyLeakWarning`:
    ``classes_`` and the shape of ``coef_`` then reveal which labels occur,
    e.g. that one record has a rare label.
    """
    if classes is None:
        warnings.warn(
            "classes=None takes the label set from the training data: classes_ and "
            "the shape of coef_ reveal which labels occur (one record with a rare "
            "label shows). Pass the public label set as classes=[...].",
            PrivacyLeakWarning,
            stacklevel=4,
        )
        labels, indices = np.unique(y, return_inverse=True)
        if labels.shape[0] < 2:
            raise ValueError(
                "The training data has one class; a classifier needs at "
                f"least two, got {labels.tolist()}."
            )
        return labels, indices
    labels = np.asarray(classes)
    if labels.ndim != 1 or np.unique(labels).shape[0] != labels.shape[0]:
        raise ValueError(f"classes must be distinct labels, got {classes!r}.")
    if labels.shape[0] < 2:
        raise ValueError(
            f"classes must hold at least two labels, got {labels.tolist()}."
        )
    labels = np.sort(labels)
    try:
        outside = ~np.isin(y, labels)
    except TypeError:  # labels and y of incomparable types
        outside = np.ones(len(y), dtype=bool)
    if outside.any():
        raise ValueError(
            f"y has labels outside classes={labels.tolist()}: "
            f"{np.unique(np.asarray(y)[outside]).tolist()}."
        )
    return labels, np.searchsorted(labels, y)


class CentralDPClassifierMixin:
    """``fit(X, y)`` of the central-DP linear classifiers.

    A subclass implements ``_solve(design, targets, loss, n_outputs, rng,
    callback)``, the private run on the clipped ``Design``, returning the
    weights ``(d, k)`` (intercept row last) and a dict of the run's public
    constants keyed by the fitted attribute each becomes
    (``epsilon_spent_``, ``gradient_bound_``, ...). It may extend
    ``_check_configuration(n_classes)`` and override ``_design(X)``.
    """

    _central_parameter_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "loss": [StrOptions({"logistic", "squared_hinge", "sigmoid"})],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "learning_rate": [
            StrOptions({"auto"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "data_norm": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
        "calibration": [StrOptions({"rdp", "paper"})],
        "classes": ["array-like", None],
        "random_state": ["random_state"],
    }

    def _check_configuration(self, n_classes):
        if n_classes > 2 and self.loss != "logistic":
            raise ValueError(
                f"loss={self.loss!r} is binary; with {n_classes} classes use "
                "loss='logistic' (multinomial)."
            )

    def _loss(self, n_classes):
        return get_loss("multinomial" if n_classes > 2 else self.loss)

    def _design(self, X):
        """``X`` clipped to the public l2 bound, with the intercept column."""
        return _clipped_design(
            X, self.data_norm, "l2", self.fit_intercept, self.intercept_scaling
        )

    def _train(self, X, class_indices, n_classes, rng, callback=None):
        """The private training run on validated arrays (no side effects).

        Returns the weights ``(d, k)`` (intercept row last) and the run's
        public constants. Every fit goes through here; the canary tests call
        it directly to train thousands of times cheaply, and
        ``callback(W, n_gradient_evaluations)`` traces the optimisation (see
        the solvers in :mod:`sklearn_ldp.optim`).
        """
        loss = self._loss(n_classes)
        targets = loss.encode(class_indices, n_classes)
        design = self._design(X)
        n_outputs = loss.n_outputs(n_classes)
        return self._solve(design, targets, loss, n_outputs, rng, callback)

    def _solve(self, design, targets, loss, n_outputs, rng, callback):
        raise NotImplementedError  # pragma: no cover - abstract

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, **params):
        """Fit the model with (epsilon, delta)-DP.

        Rows outside the public ``data_norm`` are clipped (the sensitivity
        rests on it); the share is kept in ``clipped_fraction_`` and
        ``clipping_``, with a :class:`~sklearn_ldp.exceptions.ClippingWarning`
        above 1%.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        **params : dict
            None accepted: ``sample_weight`` is refused with the reason.

        Returns
        -------
        self : object
        """
        refuse_fit_params(self, params)
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.clipped_fraction_, self.clipping_ = clipping_diagnostics(
            X,
            data_norm=self.data_norm,
            norm=getattr(self, "data_norm_type", "l2"),
            estimator=type(self).__name__,
            where="before training",
            stacklevel=4,
        )
        check_classification_targets(y)
        classes, class_indices = _class_indices(y, self.classes)
        self._check_configuration(classes.shape[0])
        # Replace-one neighbours over n rows: delta >= 1/n allows a release
        # that reveals some row outright.
        warn_if_large_delta(self.delta, X.shape[0], stacklevel=4)
        rng = check_noise_random_state(self.random_state)
        W, run = self._train(X, class_indices, classes.shape[0], rng)
        self.classes_ = classes
        self.coef_, self.intercept_ = _unpack_weights(
            W, X.shape[1], self.fit_intercept, self.intercept_scaling
        )
        for name, value in run.items():
            setattr(self, name, value)
        # What the run provides: the accountant may certify less than asked.
        self.privacy_epsilon_ = min(
            float(self.epsilon), float(run.get("epsilon_spent_", self.epsilon))
        )
        self.privacy_delta_ = float(self.delta)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Noisy by design: at the default epsilon on small data the accuracy
        # is far from the non-private model's.
        tags.classifier_tags.poor_score = True
        return tags
