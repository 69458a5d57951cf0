"""The LDP client/server contract every LDP estimator follows.

``fit(X, y)`` is exactly three steps that share nothing but public
configuration and the reports::

    randomizer = est.make_randomizer(n_features)          # public config
    reports = randomizer.randomize(X, y, random_state)    # each user, locally
    est.fit_reports(reports)                              # the server

Subclasses implement ``make_randomizer`` and ``_fit_server(reports, rng)``;
the server method receives a :class:`~sklearn_ldp.randomizers.Reports` and
never the raw data.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from .randomizers import Reports, config_fingerprint, describe_config_mismatch
from .utils import check_noise_random_state


class LDPEstimatorMixin:
    """Shared ``fit`` / ``fit_reports`` for non-interactive LDP estimators.

    Subclasses define ``make_randomizer(n_features)`` (regressors) or
    ``make_randomizer(n_features, classes=None)`` (classifiers) and
    ``_fit_server(reports, rng)``. Keys listed in the randomizer's
    ``public_random_keys`` (public seeds drawn when ``random_state`` is None)
    are taken from the reports rather than compared.
    """

    _ldp_parameter_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    #: Set by classifiers.
    _is_ldp_classifier = False

    def _validate_fit_input(self, X, y):
        if self._is_ldp_classifier:
            X, y = validate_data(self, X, y, dtype=np.float64)
            check_classification_targets(y)
            classes = np.unique(y)
            if classes.shape[0] < 2:
                raise ValueError(
                    "The training data has one class (a single label); a classifier needs "
                    f"at least two, got {classes.tolist()}."
                )
            return X, y, classes
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        return X, y, None

    #: Set by estimators whose randomizer depends on the (public) population
    #: size: ``fit`` then passes ``n_users=len(X)`` to ``make_randomizer``.
    _population_is_public = False

    def _make_randomizer_for(self, n_features, classes, n_users=None):
        kwargs = {"n_users": n_users} if self._population_is_public else {}
        if self._is_ldp_classifier:
            return self.make_randomizer(n_features, classes=classes, **kwargs)
        return self.make_randomizer(n_features, **kwargs)

    def _expected_randomizer(self, config):
        """The randomizer this estimator publishes, for reports with ``config``.

        Override when public choices announced to the users (a degree picked
        from the population size, ...) must be read from the reports.
        """
        classes = config.get("classes") if self._is_ldp_classifier else None
        return self._make_randomizer_for(config.get("n_features"), classes)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Simulate the local randomizers on ``(X, y)``, then fit the server.

        Equivalent to ``fit_reports(make_randomizer(n_features).randomize(X, y,
        rng))`` with one random generator from ``random_state``.

        For classifiers the set of class labels is taken from ``y`` and
        treated as public schema (like the number of features): it is part
        of the randomizer's public configuration.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            One row per user.
        y : array-like of shape (n_samples,)
            Targets or labels.

        Returns
        -------
        self : object
        """
        X, y, classes = self._validate_fit_input(X, y)
        rng = check_noise_random_state(self.random_state)
        randomizer = self._make_randomizer_for(X.shape[1], classes, n_users=X.shape[0])
        reports = randomizer.randomize(X, y, random_state=rng)
        return self._fit_from_reports(reports, rng)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_reports(self, reports):
        """Fit the server on reports collected from users.

        Parameters
        ----------
        reports : Reports
            Made by ``self.make_randomizer(...)`` with the same public
            configuration; concatenate batches with ``Reports.concatenate``.

        Returns
        -------
        self : object
        """
        if not isinstance(reports, Reports):
            raise TypeError(
                f"fit_reports expects a Reports object, got {type(reports).__name__}."
            )
        self._check_reports(reports)
        n_features = reports.n_features
        self.n_features_in_ = n_features
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        rng = check_noise_random_state(self.random_state)
        return self._fit_from_reports(reports, rng)

    def _check_reports(self, reports):
        config = reports.config
        expected = self._expected_randomizer(config)
        expected_config = expected.get_config()
        for key in getattr(expected, "public_random_keys", ()):
            expected_config[key] = config.get(key)
        if config_fingerprint(expected_config) != config_fingerprint(config):
            raise ValueError(
                "These reports were made with a randomizer configuration that "
                "differs from this estimator's: "
                + describe_config_mismatch(expected_config, config)
            )

    def _fit_from_reports(self, reports, rng):
        if self._is_ldp_classifier:
            self.classes_ = np.asarray(reports.config["classes"])
        self.privacy_epsilon_ = float(reports.config["epsilon"])
        self.privacy_delta_ = float(reports.config["delta"])
        self._fit_server(reports, rng)
        return self

    def _fit_server(self, reports, rng):  # pragma: no cover - abstract
        raise NotImplementedError


def announced_degree(estimator, config):
    """The degree users were told, for an estimator with ``degree='auto'``.

    ``'auto'`` is resolved from the population size before the users reply,
    so the server must take it from the reports, not recompute it.
    """
    if estimator.degree != "auto":
        return None
    degree = config.get("degree")
    if not isinstance(degree, Integral) or isinstance(degree, bool):
        raise ValueError(f"These reports carry no valid degree: {degree!r}.")
    return degree


def ldp_tags(tags, *, poor_score=True):
    """Tags shared by LDP estimators (noisy by design at default epsilon)."""
    tags.regressor_tags = getattr(tags, "regressor_tags", None)
    if tags.regressor_tags is not None:
        tags.regressor_tags.poor_score = poor_score
    if getattr(tags, "classifier_tags", None) is not None:
        tags.classifier_tags.poor_score = poor_score
    return tags


__all__ = ["BaseEstimator", "LDPEstimatorMixin", "ldp_tags"]
