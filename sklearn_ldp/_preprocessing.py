"""PublicBoundsScaler: declared public bounds -> the unit ball, no statistic of the data.

Every LDP estimator of the package clips each user's record to public bounds
(``data_norm=1``: the unit l2 ball; ``y_bound=1``; boxes such as
``KernelDensityLDP.bounds=(-1, 1)``). Raw features (ages, incomes) or the
output of a scaler fitted on the private data do not lie there. This
transformer is the fixed public function a device applies before its
randomizer: an affine map of the *declared* domain of each feature into the
unit ball (or box), built from the declared bounds alone. See
``docs/choosing_bounds.rst``.
"""

import warnings
from numbers import Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    OneToOneFeatureMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .exceptions import ClippingWarning, PrivacyLeakWarning
from .randomizers import clip_l2
from .utils import row_norms
from .utils._clipping import CLIPPING_WARNING_SHARE  # the estimators' threshold

#: Relative shrink of the map into the ball. Without it a declared corner
#: (every row of binary features, say) lands on the sphere up to rounding, and
#: one time in a few its computed norm is ``1 + 2^-52``: the estimator would
#: count it as clipped. 1e-12 is far above the rounding error of a norm
#: (``d`` ulps) and far below any statistical effect.
_BALL_MARGIN = 1e-12


def _check_feature_bounds(feature_bounds, n_features):
    """Declared bounds as an array of shape ``(n_features, 2)``, rows ``(low, high)``."""
    try:
        bounds = np.asarray(feature_bounds, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            "feature_bounds must be one (low, high) pair or an array of shape "
            f"(n_features, 2) of numbers, got {feature_bounds!r}."
        ) from None
    if bounds.shape == (2,):
        bounds = np.tile(bounds, (n_features, 1))
    elif bounds.shape != (n_features, 2):
        hint = ""
        if bounds.shape == (2, n_features):
            hint = (
                " (this looks like the (2, n_features) layout of "
                "KernelDensityLDP.bounds: pass its transpose, one (low, high) "
                "row per feature)"
            )
        raise ValueError(
            "feature_bounds must be one (low, high) pair or an array of shape "
            f"(n_features, 2) = ({n_features}, 2), one (low, high) row per "
            f"feature; got shape {bounds.shape}{hint}."
        )
    if not np.all(np.isfinite(bounds)):
        raise ValueError(
            "feature_bounds must be finite (no NaN or inf): a feature without a "
            "natural bound, such as an income, needs a declared public cap; got "
            f"{feature_bounds!r}."
        )
    bad = np.flatnonzero(bounds[:, 0] >= bounds[:, 1])
    if bad.size:
        j = bad[0]
        raise ValueError(
            "feature_bounds must have low < high for every feature; feature "
            f"{j} has (low, high) = ({bounds[j, 0]:g}, {bounds[j, 1]:g})"
            + (f" and {bad.size - 1} more feature(s) too." if bad.size > 1 else ".")
        )
    return bounds


def _describe_features(shares, names, limit=5):
    """``"'income' 12.0%, 'age' 3.1%"``: the features clipped most, largest first."""
    order = [j for j in np.argsort(-shares, kind="stable") if shares[j] > 0]
    text = ", ".join(f"{names[j]!r} {shares[j]:.1%}" for j in order[:limit])
    if len(order) > limit:
        text += f" and {len(order) - limit} more"
    return text


class PublicBoundsScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Map declared public feature bounds into the unit l2 ball, learning nothing from the data.

    The LDP estimators of the package clip every record to public bounds
    (``data_norm=1`` by default: rows in the unit l2 ball). This transformer
    puts the features there from bounds *you declare* from public knowledge
    (ages in ``[18, 90]``, incomes capped at a published value), so it is a
    fixed public function: a device can apply it before its randomizer and
    the pipeline keeps the estimator's guarantee (each user's record is
    still (epsilon, delta)-LDP). It replaces ``StandardScaler`` and
    ``MinMaxScaler``, whose fitted means, deviations or extremes are
    statistics of the private data that no guarantee covers.

    With ``feature_bounds``, feature ``j`` with declared range ``[low_j,
    high_j]`` maps to ``(x_j - c_j) / (h_j sqrt(d))``, with the centre ``c_j
    = (low_j + high_j) / 2`` and half-width ``h_j = (high_j - low_j) / 2``:
    each declared range becomes ``[-1/sqrt(d), 1/sqrt(d)]`` and the declared
    box fits in the unit ball (its corners on the sphere). ``1/sqrt(d)`` is
    the largest common scale that fits the box in the ball, and centring
    each range at 0 uses the whole diameter of the ball (a range mapped to
    ``[0, 1/sqrt(d)]`` would keep half the signal against the same noise,
    and an intercept would spend ``coef_norm`` cancelling the offset). With
    ``output_domain='box'`` the ranges map to ``[-1, 1]``, the default box
    of :class:`KernelDensityLDP`. With ``norm_bound`` (a declared l2 bound on
    the raw rows) rows are divided by it.

    Values outside the declared bounds are clipped to them (``clip=True``),
    since the bound is part of the declaration; ``fit`` counts them
    (``clipped_fraction_``) and warns with a
    :class:`~sklearn_ldp.exceptions.ClippingWarning` when more than 1% of
    the rows fall outside.

    When no bound is declared (the default, which only exists so that the
    transformer can be built without arguments), the bounds are the minimum
    and maximum of the data passed to ``fit``, with a
    :class:`~sklearn_ldp.exceptions.PrivacyLeakWarning`: the bounds are then
    statistics of the private data, and the pipeline is not covered by the
    guarantee.

    Parameters
    ----------
    feature_bounds : array-like of shape (n_features, 2), (low, high) or None, \
default=None
        Declared public range of each feature, one ``(low, high)`` row per
        feature, or one pair for every feature; finite, ``low < high``. Take
        it from public knowledge (a schema, a form's allowed values, a legal
        cap), never from the data. None (and no ``norm_bound``): bounds from
        the data, with a :class:`~sklearn_ldp.exceptions.PrivacyLeakWarning`.
    norm_bound : float or None, default=None
        Declared public bound on the l2 norm of a raw row (for features
        already on a common scale, such as embeddings); rows are divided by
        it. Exclusive with ``feature_bounds``.
    output_domain : {'ball', 'box'}, default='ball'
        Where the declared bounds go: ``'ball'``, the unit l2 ball (the
        ``data_norm=1`` of the linear models, kernel ridge and the
        Bernstein regressor); ``'box'``, ``[-1, 1]`` per feature (the default
        ``bounds`` of :class:`KernelDensityLDP`). Ignored with
        ``norm_bound`` (the output is in the ball, hence in the box).
    clip : bool, default=True
        Clip values outside the declared bounds to them (feature by feature
        with ``feature_bounds``, which changes only the offending feature; by
        scaling the row with ``norm_bound``). False keeps them, mapped
        outside the ball, where the estimator's own clipping scales the
        whole row down; it also makes :meth:`inverse_transform` exact on
        them.

    Attributes
    ----------
    bounds_ : ndarray of shape (n_features, 2) or None
        The ``(low, high)`` rows used (declared, or from the data); None
        with ``norm_bound``.
    bounds_from_data_ : bool
        True when the bounds were computed from the data (not covered by
        the guarantee).
    center_ : ndarray of shape (n_features,)
        Subtracted from each feature (the middle of its range; 0 with
        ``norm_bound``).
    scale_ : ndarray of shape (n_features,)
        The centred feature is divided by it.
    clipped_fraction_ : float
        Share of the rows passed to ``fit`` with a value outside the
        declared bounds (0 with bounds from the data). A statistic of the
        data, for the analyst who holds it; do not publish it.
    feature_clipped_fraction_ : ndarray of shape (n_features,) or None
        Per feature, the share of the rows outside its declared range (None
        with ``norm_bound``, which clips whole rows).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Defined only when ``X`` has feature names that are all strings.

    See Also
    --------
    sklearn.preprocessing.MinMaxScaler : the same affine map, with bounds
        fitted on the data (not private).
    sklearn.preprocessing.FunctionTransformer : any fixed public function,
        such as ``np.log`` before declaring bounds on the log scale.

    Notes
    -----
    Too loose a declared range leaves the signal small against noise whose
    scale is fixed by the (unit) bound; too tight a range clips and biases
    the fit. ``docs/choosing_bounds.rst`` discusses the trade-off. A target
    can be scaled into ``y_bound=1`` the same way, with
    ``sklearn.compose.TransformedTargetRegressor(transformer=
    PublicBoundsScaler(feature_bounds=(low, high)))``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import PublicBoundsScaler
    >>> X = np.array([[18.0, 0.0], [54.0, 100_000.0], [90.0, 200_000.0]])
    >>> scaler = PublicBoundsScaler(feature_bounds=[(18, 90), (0, 200_000)])
    >>> Z = scaler.fit_transform(X)  # age in [18, 90], income capped at 200k
    >>> Z.round(3)
    array([[-0.707, -0.707],
           [ 0.   ,  0.   ],
           [ 0.707,  0.707]])
    >>> np.linalg.norm(Z, axis=1).max().round(6)
    np.float64(1.0)
    >>> scaler.transform([[30.0, 1e6]]).round(3)  # income above the cap: clipped
    array([[-0.471,  0.707]])
    >>> scaler.inverse_transform(Z)[1]
    array([5.e+01, 1.e+05])
    """

    _parameter_constraints = {
        "feature_bounds": ["array-like", None],
        "norm_bound": [Interval(Real, 0, None, closed="neither"), None],
        "output_domain": [StrOptions({"ball", "box"})],
        "clip": ["boolean"],
    }

    def __init__(
        self,
        *,
        feature_bounds=None,
        norm_bound=None,
        output_domain="ball",
        clip=True,
    ):
        self.feature_bounds = feature_bounds
        self.norm_bound = norm_bound
        self.output_domain = output_domain
        self.clip = clip

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Set the map from the declared bounds; count the rows outside them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Raw records. Read only to check the number of features and to
            count the rows outside the declared bounds (or, with no bound
            declared, to take the bounds from them).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        X = validate_data(self, X, dtype=np.float64)
        n_samples, n_features = X.shape
        if self.feature_bounds is not None and self.norm_bound is not None:
            raise ValueError(
                "Declare either feature_bounds or norm_bound, not both; got "
                f"feature_bounds={self.feature_bounds!r}, "
                f"norm_bound={self.norm_bound!r}."
            )
        self.bounds_from_data_ = False
        if self.norm_bound is not None:
            norm_bound = float(self.norm_bound)  # finite: checked by the constraints
            self.bounds_ = None
            self.center_ = np.zeros(n_features)
            self.scale_ = np.full(n_features, norm_bound * (1 + _BALL_MARGIN))
            outside = row_norms(X) > norm_bound
            self.feature_clipped_fraction_ = None
            self.clipped_fraction_ = float(np.mean(outside))
            if self.clipped_fraction_ > CLIPPING_WARNING_SHARE:
                self._warn_clipping("l2 norm of the row above norm_bound", n_samples)
            return self

        if self.feature_bounds is not None:
            bounds = _check_feature_bounds(self.feature_bounds, n_features)
        else:
            warnings.warn(
                "PublicBoundsScaler: no feature_bounds or norm_bound declared, so the "
                "bounds are the minimum and maximum of the data passed to fit. They "
                "are statistics of the private data: a pipeline using them is not "
                "covered by the privacy guarantee. Declare feature_bounds from public "
                "knowledge (a schema, allowed values, a published cap).",
                PrivacyLeakWarning,
                stacklevel=3,  # the caller of fit, through _fit_context
            )
            self.bounds_from_data_ = True
            low, high = X.min(axis=0), X.max(axis=0)
            # A constant feature maps to 0.
            flat = ~(high > low)
            high = np.where(flat, low + 1.0, high)
            low = np.where(flat, low - 1.0, low)
            bounds = np.column_stack([low, high])
        self.bounds_ = bounds
        self.center_ = (bounds[:, 0] + bounds[:, 1]) / 2.0
        half_width = (bounds[:, 1] - bounds[:, 0]) / 2.0
        if self.output_domain == "ball":
            half_width = half_width * (np.sqrt(n_features) * (1 + _BALL_MARGIN))
        self.scale_ = half_width
        outside = (X < bounds[:, 0]) | (X > bounds[:, 1])
        self.feature_clipped_fraction_ = outside.mean(axis=0)
        self.clipped_fraction_ = float(np.mean(outside.any(axis=1)))
        if self.clipped_fraction_ > CLIPPING_WARNING_SHARE:
            names = self._feature_names()
            self._warn_clipping(
                "a value outside feature_bounds; by feature: "
                + _describe_features(self.feature_clipped_fraction_, names),
                n_samples,
            )
        return self

    def _feature_names(self):
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return [f"x{j}" for j in range(self.n_features_in_)]
        return list(names)

    def _domain(self):
        return "box" if self.output_domain == "box" and self.bounds_ is not None else "ball"

    def _warn_clipping(self, what, n_samples):
        fate = (
            "clipped to the declared bounds"
            if self.clip
            else f"mapped outside the unit {self._domain()} (clip=False), where the "
            "estimator clips them"
        )
        warnings.warn(
            f"PublicBoundsScaler: {self.clipped_fraction_:.1%} of the {n_samples} rows "
            f"passed to fit have {what}. They are {fate}, and a model fitted on "
            "them is biased. If the declared bounds are narrower than the public "
            "domain of the features, widen them (from public knowledge, not from "
            "these data); see clipped_fraction_ and feature_clipped_fraction_.",
            ClippingWarning,
            stacklevel=4,  # the caller of fit
        )

    def transform(self, X):
        """Map ``X`` into the unit ball (or box) with the declared bounds.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        X_scaled : ndarray of shape (n_samples, n_features)
            With ``clip=True``, every row has l2 norm at most 1
            (``output_domain='ball'``) or every value lies in ``[-1, 1]``
            (``'box'``).
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.clip and self.bounds_ is not None:
            X = np.clip(X, self.bounds_[:, 0], self.bounds_[:, 1])
        Z = (X - self.center_) / self.scale_
        if self.clip and self.bounds_ is None:
            Z = clip_l2(Z, 1 / (1 + _BALL_MARGIN))
        elif self.clip and self.output_domain == "box":
            Z = np.clip(Z, -1.0, 1.0)  # the centre and half-width are rounded
        return Z

    def inverse_transform(self, X):
        """Map scaled values back to the original units.

        Values clipped by :meth:`transform` come back at the declared bound,
        not at their original value.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        # The scaled columns are not the input features: no name check.
        X = check_array(X, dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but PublicBoundsScaler is expecting "
                f"{self.n_features_in_} features as input."
            )
        return X * self.scale_ + self.center_
