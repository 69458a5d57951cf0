"""Gaussian randomizers: the basic private vector and the (x, y) record release."""

import numpy as np

from ..accounting import gaussian_sigma, joint_gaussian_sigmas
from ..utils import (
    check_bound,
    check_delta,
    check_epsilon,
    check_finite_array,
    check_noise_random_state,
)
from ._base import LocalRandomizer, chunk_rows
from ._clip import clip_interval, clip_l2

CALIBRATIONS = ("analytic", "paper")


class GaussianMechanism:
    """The basic private vector (seed 003, Algorithm 1).

    Each row is clipped to the l2 ball of radius ``norm_bound`` and released
    as ``x + N(0, sigma^2 I)``. Replacing a record moves the clipped row by at
    most ``2 norm_bound`` in l2, so ``sigma`` is calibrated for that
    sensitivity: by the analytic Gaussian mechanism (Balle and Wang 2018, the
    smallest valid ``sigma``) or by the papers' classic formula
    (``calibration='paper'``; raised to the analytic value where the formula
    would under-noise).

    Guarantee: each released row is (epsilon, delta)-LDP.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import GaussianMechanism
    >>> mech = GaussianMechanism(1.0, 1e-5, norm_bound=1.0)
    >>> round(mech.sigma, 3)
    7.461
    >>> mech.randomize(np.ones((4, 3)), random_state=0).shape
    (4, 3)
    """

    def __init__(self, epsilon, delta, norm_bound=1.0, calibration="analytic"):
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        self.norm_bound = check_bound(norm_bound, name="norm_bound")
        if calibration not in CALIBRATIONS:
            raise ValueError(
                f"calibration must be one of {CALIBRATIONS}, got {calibration!r}."
            )
        self.calibration = calibration
        method = "analytic" if calibration == "analytic" else "classic"
        self.sigma = gaussian_sigma(
            self.epsilon, self.delta, 2.0 * self.norm_bound, method
        )

    @property
    def guarantee(self):
        return f"each released row is ({self.epsilon:.6g}, {self.delta:.3g})-LDP"

    def randomize(self, X, random_state=None):
        rng = check_noise_random_state(random_state)
        X = check_finite_array(X, name="X")
        clipped = clip_l2(X if X.ndim > 1 else X[:, None], self.norm_bound)
        noisy = clipped + self.sigma * rng.standard_normal(clipped.shape)
        return noisy if X.ndim > 1 else noisy[:, 0]

    def estimate(self, reports):
        return np.asarray(reports, dtype=float)

    def variance(self, values=None):
        values = np.zeros(()) if values is None else np.asarray(values, dtype=float)
        return np.full(values.shape, self.sigma**2)


def encode_labels(y, classes):
    """Map labels to the public encoding: +-1 for two classes, one-hot otherwise.

    Raises a ``ValueError`` for labels that are not among ``classes``.
    """
    classes = np.asarray(classes)
    y = np.asarray(y)
    index = np.searchsorted(classes, y)
    index = np.clip(index, 0, len(classes) - 1)
    unknown = classes[index] != y
    if np.any(unknown):
        raise ValueError(
            f"y contains labels not in the public classes {classes.tolist()}: "
            f"{np.unique(y[unknown]).tolist()[:5]}"
        )
    if len(classes) == 2:
        return 2.0 * index - 1.0
    return np.eye(len(classes))[index]


class GaussianRecordRandomizer(LocalRandomizer):
    """Release one user's ``(x, y)`` with jointly calibrated Gaussian noise.

    The client (1) clips ``x`` to the l2 ball of radius ``data_norm``;
    (2) optionally applies a public feature map (a
    :class:`~sklearn_ldp.randomizers.RandomProjection`,
    :class:`~sklearn_ldp.randomizers.RandomFourierFeatures`, ...) and clips
    the result to ``feature_norm``;
    (3) clips ``y`` to ``[-y_bound, y_bound]`` (regression) or encodes the
    label publicly (``+-1`` for two classes, one-hot for more);
    (4) adds ``N(0, sigma_x^2 I)`` to the features and ``N(0, sigma_y^2)``
    to the target.

    Privacy. The released features lie in the ball of radius ``bound``
    (``feature_norm`` with a map, else ``data_norm``) whatever ``x`` is, so
    replacing the record moves them by at most ``D_x = 2 * bound`` and the
    target by at most ``D_y`` (``2 y_bound``; ``2`` for +-1 labels;
    ``sqrt(2)`` for one-hot labels) in l2. With
    ``calibration='analytic'`` the two releases are one Gaussian mechanism of
    sensitivity ``sqrt((D_x / sigma_x)^2 + (D_y / sigma_y)^2)`` at unit noise,
    calibrated exactly by the analytic Gaussian mechanism, with
    ``sigma_y / D_y = y_noise_ratio * sigma_x / D_x``. With
    ``calibration='paper'`` each part gets ``(epsilon / 2, delta / 2)`` and
    the classic formula (basic composition), as seeds 003 and 000 print.
    Either way each user's record is (epsilon, delta)-LDP.

    Parameters
    ----------
    n_features : int
        Number of raw features.
    epsilon : float
        Per-user privacy budget, ``> 0``.
    delta : float
        Per-user delta, in ``(0, 1)``.
    data_norm : float or None, default=1.0
        Public l2 bound on ``x``. None (only with a ``feature_map``) does not
        clip ``x``: the mapped features are clipped to ``feature_norm``
        anyway, which is all the privacy of the release needs.
    y_bound : float or None, default=None
        Public bound on ``|y|`` for regression targets.
    classes : array-like or None, default=None
        Public label set for classification. Exactly one of ``y_bound`` and
        ``classes`` may be given; with neither, only ``x`` is released.
    feature_map : callable or None, default=None
        Public map applied to the clipped ``x`` (``(n, d) -> (n, m)``), such
        as :class:`~sklearn_ldp.randomizers.RandomProjection` or
        :class:`~sklearn_ldp.randomizers.RandomFourierFeatures`.
    feature_norm : float or None, default=None
        Public l2 bound the mapped features are clipped to (required with a
        ``feature_map``; without one it may only repeat ``data_norm``).
    feature_map_config : dict or None, default=None
        Public description of the feature map, stored in the configuration
        under ``'feature_map'``; None takes ``feature_map.get_config()``
        when the map has one.
    calibration : {'analytic', 'paper'}, default='analytic'
    y_noise_ratio : float, default=1.0
        Relative noise of the target versus the features, in units of their
        sensitivities (only with ``'analytic'``).
    n_users : int or None, default=None
        Public population size the configuration was planned for (recorded
        in the configuration when a public choice, such as the number of
        random features, was made from it).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import GaussianRecordRandomizer
    >>> rand = GaussianRecordRandomizer(3, epsilon=1.0, delta=1e-5, y_bound=1.0)
    >>> reports = rand.randomize(np.ones((5, 3)), np.zeros(5), random_state=0)
    >>> reports.as_matrix().shape
    (5, 4)
    """

    def __init__(
        self,
        n_features,
        *,
        epsilon,
        delta,
        data_norm=1.0,
        y_bound=None,
        classes=None,
        feature_map=None,
        feature_norm=None,
        feature_map_config=None,
        calibration="analytic",
        y_noise_ratio=1.0,
        n_users=None,
    ):
        self.n_features = int(n_features)
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        if data_norm is None and feature_map is None:
            raise ValueError("data_norm=None (no clipping of x) needs a feature_map.")
        self.data_norm = (
            None if data_norm is None else check_bound(data_norm, name="data_norm")
        )
        if y_bound is not None and classes is not None:
            raise ValueError("Give y_bound (regression) or classes, not both.")
        self.y_bound = None if y_bound is None else check_bound(y_bound, name="y_bound")
        self.classes = None if classes is None else np.asarray(classes)
        if self.classes is not None and (
            self.classes.ndim != 1
            or len(np.unique(self.classes)) != len(self.classes)
            or len(self.classes) < 2
        ):
            raise ValueError("classes must be at least two distinct labels.")
        if self.classes is not None:
            self.classes = np.sort(self.classes)
        if feature_map is not None and feature_norm is None:
            raise ValueError("A feature_map needs a public feature_norm to clip to.")
        self.feature_map = feature_map
        self.feature_norm = (
            self.data_norm
            if feature_norm is None
            else check_bound(feature_norm, name="feature_norm")
        )
        if feature_map is None and self.feature_norm != self.data_norm:
            # Without a map the release is x clipped to data_norm: a different
            # feature_norm would calibrate the noise for the wrong bound.
            raise ValueError(
                "feature_norm bounds the output of a feature_map; without one "
                f"the features are clipped to data_norm={self.data_norm}, got "
                f"feature_norm={feature_norm!r}."
            )
        if feature_map_config is None and hasattr(feature_map, "get_config"):
            feature_map_config = feature_map.get_config()
        self.feature_map_config = dict(feature_map_config or {})
        if calibration not in CALIBRATIONS:
            raise ValueError(
                f"calibration must be one of {CALIBRATIONS}, got {calibration!r}."
            )
        self.calibration = calibration
        self.y_noise_ratio = check_bound(y_noise_ratio, name="y_noise_ratio")
        self.requires_y = self.y_sensitivity is not None
        self.n_users = None if n_users is None else int(n_users)
        self.sigma_x, self.sigma_y = self._calibrate()
        # Each temporary of a chunk (the clipped records, their features, the
        # noise) holds at most CHUNK_VALUES numbers.
        n_released = getattr(feature_map, "n_components", self.n_features)
        self.chunk_size = chunk_rows(max(self.n_features, int(n_released)))

    @property
    def y_sensitivity(self):
        if self.y_bound is not None:
            return 2.0 * self.y_bound
        if self.classes is not None:
            return 2.0 if len(self.classes) == 2 else float(np.sqrt(2.0))
        return None

    def _calibrate(self):
        d_x = 2.0 * self.feature_norm
        d_y = self.y_sensitivity
        if d_y is None:
            method = "analytic" if self.calibration == "analytic" else "classic"
            return gaussian_sigma(self.epsilon, self.delta, d_x, method), None
        if self.calibration == "paper":
            half_eps, half_delta = self.epsilon / 2.0, self.delta / 2.0
            return (
                gaussian_sigma(half_eps, half_delta, d_x, "classic"),
                gaussian_sigma(half_eps, half_delta, d_y, "classic"),
            )
        sigma_x, sigma_y = joint_gaussian_sigmas(
            self.epsilon,
            self.delta,
            [d_x, d_y],
            weights=[d_x, self.y_noise_ratio * d_y],
        )
        return float(sigma_x), float(sigma_y)

    def _config(self):
        config = {
            "calibration": self.calibration,
            "data_norm": self.data_norm,
            "feature_norm": self.feature_norm,
            "sigma_x": self.sigma_x,
        }
        if self.y_bound is not None:
            config.update(y_bound=self.y_bound, sigma_y=self.sigma_y)
        if self.classes is not None:
            config.update(classes=self.classes.tolist(), sigma_y=self.sigma_y)
        if self.feature_map_config:
            config["feature_map"] = self.feature_map_config
        if self.n_users is not None:
            config["n_users"] = self.n_users
        return config

    def features(self, X):
        """The clipped (and mapped) features a user releases, before noise."""
        X = np.asarray(X, dtype=np.float64)
        clipped = X if self.data_norm is None else clip_l2(X, self.data_norm)
        if self.feature_map is None:
            return clipped
        return clip_l2(
            np.asarray(self.feature_map(clipped), dtype=float), self.feature_norm
        )

    def targets(self, y):
        """The clipped or encoded target a user releases, before noise."""
        if self.y_bound is not None:
            return clip_interval(
                check_finite_array(y, name="y"), -self.y_bound, self.y_bound
            )
        return encode_labels(y, self.classes)

    def _randomize_chunk(self, X, y, rng):
        features = self.features(X)
        fields = {"x": features + self.sigma_x * rng.standard_normal(features.shape)}
        if y is not None and self.y_sensitivity is not None:
            target = self.targets(y)
            fields["y"] = target + self.sigma_y * rng.standard_normal(target.shape)
        return fields
