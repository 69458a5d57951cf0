"""Gaussian randomizers on a public lattice: the basic private vector and the (x, y) record.

Every number a report carries is a multiple of a public power of two ``g``:
the clipped value is put on ``g Z`` by unbiased randomized rounding and
``g J`` is added, ``J`` drawn by the 64-bit rounded Gaussian sampler
(:func:`~sklearn_ldp.randomizers.rounded_gaussian`) from the client's
:class:`~sklearn_ldp.randomizers.NoiseSource`. The accountant
(:func:`~sklearn_ldp.accounting.lattice_gaussian`) calibrates the noise for
the sensitivity widened by the rounding and for the sampler's distance to
the ideal law, so the stated (epsilon, delta) is that of what is sampled.
"""

from functools import lru_cache

import numpy as np
from sklearn.utils import gen_batches

from ..accounting import lattice_gaussian, lattice_gaussian_scale
from ..utils import (
    check_bound,
    check_delta,
    check_epsilon,
    check_finite_array,
    row_norms,
)
from ._base import FieldSupport, LocalRandomizer, chunk_rows
from ._clip import clip_interval
from ._sampling import _DrawBuffers, check_client_random_state, rounded_gaussian

CALIBRATIONS = ("analytic", "paper")
#: Numbers per block of :func:`lattice_release` (256 KiB per temporary: a
#: block's arithmetic stays in the processor's cache, and the per-block
#: overhead of some twenty numpy calls is spread over enough numbers).
RELEASE_BLOCK = 2**15


@lru_cache(maxsize=6)  # a few tables of up to ~20 MB each
def _rounded_gaussian(scale):
    return rounded_gaussian(scale)


def lattice_noise_sampler(sigma, granularity, tv_bound=None):
    """The rounded Gaussian sampler of released std ``sigma`` on ``granularity Z``.

    Its scale is ``sqrt((sigma / g)^2 - 1/12)`` cells (samplers are cached by
    scale). With ``tv_bound`` (the accountant's assumption), refuses a
    sampler whose total variation exceeds it.
    """
    sampler = _rounded_gaussian(float(lattice_gaussian_scale(sigma, granularity)))
    if tv_bound is not None and sampler.tv_bound > tv_bound:
        raise RuntimeError(  # pragma: no cover - the accountant bounds it
            f"The noise sampler's total variation {sampler.tv_bound:.3g} exceeds "
            f"the {tv_bound:.3g} the privacy accounting assumed."
        )
    return sampler


def lattice_release(values, sigma, granularity, source, bound=None):
    """``g (n + J)``: ``values`` rounded to ``g Z`` without bias, plus lattice noise.

    ``n = floor(v / g) + B``, ``B`` a coin with the fractional part of
    ``v / g`` as probability (to ``2**-53``: ``NoiseSource.rounding_coins``),
    so ``E[g n] = v`` and ``|g n - v| < g`` for every outcome; ``J`` is
    rounded Gaussian with released std ``sigma``.
    Values already on the lattice are kept exactly. Every output is an
    exact multiple of ``g``: ``n + J`` is computed on integers (held in
    float64 while they stay below ``2**52``, where its sums are exact; in
    int64 beyond), then multiplied once by ``g``, a power of two.
    ``bound``: a public bound on ``|values|`` (the clipping bound), which
    decides that in advance; None reads it from ``values``.

    The words are those of a whole-array release: one coin per value
    (``NoiseSource.uniform`` ``u`` compared with the fraction ``f``, as
    ``NoiseSource.rounding_coins``), then the noise of every value; they
    are drawn block by block (:meth:`NoiseSource.segments`) and the
    arithmetic runs in blocks of ``RELEASE_BLOCK`` numbers whose
    temporaries stay in the processor's cache, several times faster than
    whole-array passes. The coin is ``ceil(f - u)`` in floating point:
    ``f`` and ``u`` lie in ``[0, 1)``, so their computed difference lies in
    ``(-1, 1)`` and has the sign of the exact one (IEEE subtraction
    rounds monotonically and returns 0 only for equal operands), and its
    ceiling is 1 exactly when ``u < f``.
    """
    sampler = lattice_noise_sampler(sigma, granularity)
    values = np.asarray(values, dtype=np.float64)
    released = np.empty(values.shape)
    if values.size == 0:
        return released
    flat, out = values.reshape(-1), released.reshape(-1)
    if bound is None:
        bound = max(float(flat.max()), -float(flat.min()))
    # Largest |n + J| (floor(v / g) plus the coin, plus the noise's half-width).
    in_float = bound / granularity + sampler.support[1] + 2.0 < 2.0**52
    coins, noise = source.segments(flat.size, 2)
    inverse = 1.0 / granularity  # a power of two: v * inverse = v / g exactly
    # Temporaries of one block, reused from block to block.
    size = min(RELEASE_BLOCK, flat.size)
    fraction, index, uniform = np.empty(size), np.empty(size), np.empty(size)
    buffers = _DrawBuffers(size)
    for start in range(0, flat.size, RELEASE_BLOCK):
        stop = min(start + RELEASE_BLOCK, flat.size)
        m = stop - start
        if m < size:  # the last block
            fraction, index, uniform = fraction[:m], index[:m], uniform[:m]
        np.multiply(flat[start:stop], inverse, out=fraction)
        np.floor(fraction, out=index)
        fraction -= index  # exact: both are multiples of the same power of two
        fraction -= coins.uniform_into(uniform)
        np.ceil(fraction, out=fraction)  # the coin: 1 when u < f, else 0
        draws = sampler.draw_into(noise.words(m), buffers)
        if in_float:
            index += fraction
            index += draws
            np.multiply(index, granularity, out=out[start:stop])
        else:
            whole = index.astype(np.int64)
            whole += fraction.astype(np.int64)
            whole += draws
            np.multiply(whole, granularity, out=out[start:stop])
    return released


def lattice_support(shape, low, high, granularity, sampler):
    """:class:`FieldSupport` of ``lattice_release`` of values in ``[low, high]``.

    Rounding keeps a value in ``[g floor(low / g), g ceil(high / g)]`` and
    the noise moves it by at most ``K g``, ``(-K, K)`` the sampler's support.
    """
    half_width = sampler.support[1]
    return FieldSupport(
        shape,
        granularity * (np.floor(np.asarray(low) / granularity) - half_width),
        granularity * (np.ceil(np.asarray(high) / granularity) + half_width),
        granularity,
    )


def provided_delta(requested, calibrations):
    """The record's delta: ``requested`` when every release provides its share.

    Otherwise (an epsilon beyond what the sampler can certify) the sum of
    the releases' provided deltas, at most 1.
    """
    if all(part.certified for part in calibrations):
        return requested
    return float(min(1.0, sum(part.delta for part in calibrations)))


def clip_to_ball(X, bound):
    """Rows clipped to the l2 ball of radius ``bound``, and every entry to ``[-bound, bound]``.

    The second clip only undoes float rounding of the first, so that the
    lattice support stated by the randomizers is exact. Only the rows whose
    computed norm comes within ``2^-50`` (relative) of ``bound`` or beyond
    are touched: the others are unchanged by both clips (a float sum of
    squares is at least each square, so each entry of such a row is below
    ``bound``). The result may be ``X`` itself: read it, never write to it.
    """
    X = np.asarray(X, dtype=np.float64)
    norms = row_norms(X)
    near = np.flatnonzero(norms > bound * (1.0 - 2.0**-50))
    if near.size == 0:
        return X
    rows = X[near] * (bound / np.maximum(norms[near], bound))[:, None]
    np.clip(rows, -bound, bound, out=rows)
    clipped = X.copy()
    clipped[near] = rows
    return clipped


def checked_classes(classes):
    """The public label set, sorted: at least two distinct labels, one axis."""
    classes = np.asarray(classes)
    if classes.ndim != 1 or len(np.unique(classes)) != len(classes) or len(classes) < 2:
        raise ValueError("classes must be at least two distinct labels.")
    return np.sort(classes)


def released_width(feature_map, n_features):
    """Number of released features: the map's ``n_components``, else probed."""
    if feature_map is None:
        return n_features
    width = getattr(feature_map, "n_components", None)
    if width is None:
        # The map is public: its output width on a zero record is too.
        width = np.asarray(feature_map(np.zeros((1, n_features)))).shape[1]
    return int(width)


def checked_feature_map(feature_map, feature_norm, data_norm, feature_map_config):
    """``(feature_norm, feature_map_config)`` of a record randomizer's public map.

    A map needs a public ``feature_norm`` to clip its output to; without
    one the release is ``x`` clipped to ``data_norm``, and a different
    ``feature_norm`` would calibrate the noise for the wrong bound. The
    configuration defaults to the map's ``get_config()``.
    """
    if feature_map is not None and feature_norm is None:
        raise ValueError("A feature_map needs a public feature_norm to clip to.")
    norm = (
        data_norm
        if feature_norm is None
        else check_bound(feature_norm, name="feature_norm")
    )
    if feature_map is None and norm != data_norm:
        raise ValueError(
            "feature_norm bounds the output of a feature_map; without one "
            f"the features are clipped to data_norm={data_norm}, got "
            f"feature_norm={feature_norm!r}."
        )
    if feature_map_config is None and hasattr(feature_map, "get_config"):
        feature_map_config = feature_map.get_config()
    return norm, dict(feature_map_config or {})


def mapped_features(X, data_norm, feature_map, feature_norm):
    """``x`` clipped to ``data_norm`` (None: not clipped), mapped, clipped to ``feature_norm``.

    Every returned row lies in the l2 ball of radius ``feature_norm``
    (``data_norm`` without a map), whatever ``X`` is. The result may be
    ``X`` itself: read it, never write to it.
    """
    X = np.asarray(X, dtype=np.float64)
    clipped = X if data_norm is None else clip_to_ball(X, data_norm)
    if feature_map is None:
        return clipped
    mapped = np.asarray(feature_map(clipped), dtype=float)
    if mapped is X and data_norm is not None and feature_norm >= data_norm:
        # An identity map of records the first clip left as they were
        # (clip_to_ball returned X): every computed row norm is below
        # data_norm (1 - 2^-50), so the second clip would return X too.
        return mapped
    return clip_to_ball(mapped, feature_norm)


class GaussianMechanism:
    """The basic private vector (seed 003, Algorithm 1), on a public lattice.

    Each row is clipped to the l2 ball of radius ``norm_bound``, put on the
    lattice ``g Z`` by unbiased randomized rounding and released with
    rounded Gaussian noise of standard deviation ``sigma`` (rounding
    included). Replacing a record moves the clipped row by at most ``2
    norm_bound`` in l2, and the rounding by less than ``2 g sqrt(d)`` more,
    so the noise is calibrated for that widened sensitivity: by the analytic
    Gaussian mechanism (Balle and Wang 2018, the smallest valid ``sigma``) or
    by the papers' classic formula (``calibration='paper'``; raised to the
    analytic value where the formula would under-noise), at ``delta`` minus
    the sampler's slack (:func:`~sklearn_ldp.accounting.lattice_gaussian`).

    Guarantee: each released row is (epsilon, delta)-LDP, for the noise
    actually sampled.

    Parameters
    ----------
    epsilon, delta : float
    norm_bound : float, default=1.0
    calibration : {'analytic', 'paper'}, default='analytic'
    n_features : int or None, default=None
        Width of the rows (the rounding widening and the lattice depend on
        it). None calibrates for the width of the first rows randomized;
        later calls must have the same width.

    Attributes
    ----------
    sigma : float or None
        Standard deviation of the released noise per coordinate, including
        the lattice rounding: ``g sqrt(s^2 + 1/12)`` for scale ``s`` cells.
    granularity : float or None
        The lattice step ``g``: every released number is a multiple of it.
    delta_slack : float or None
        Part of ``delta`` spent on the sampler's distance to the ideal law.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import GaussianMechanism
    >>> mech = GaussianMechanism(1.0, 1e-5, norm_bound=1.0, n_features=3)
    >>> round(mech.sigma, 3), mech.granularity
    (7.475, 0.0009765625)
    >>> reports = mech.randomize(np.ones((4, 3)), random_state=0)
    >>> reports.shape, bool(np.all(reports % mech.granularity == 0))
    ((4, 3), True)
    """

    def __init__(
        self, epsilon, delta, norm_bound=1.0, calibration="analytic", *, n_features=None
    ):
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        self.norm_bound = check_bound(norm_bound, name="norm_bound")
        if calibration not in CALIBRATIONS:
            raise ValueError(
                f"calibration must be one of {CALIBRATIONS}, got {calibration!r}."
            )
        self.calibration = calibration
        self.n_features = self.sigma = self.granularity = self.delta_slack = None
        if n_features is not None:
            self._calibrate(n_features)

    def _calibrate(self, n_features):
        if int(n_features) != n_features or n_features < 1:
            raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}.")
        lattice = lattice_gaussian(
            self.epsilon,
            self.delta,
            [2.0 * self.norm_bound],
            [int(n_features)],
            method="analytic" if self.calibration == "analytic" else "classic",
        )
        self.n_features = int(n_features)
        self.delta = lattice.delta  # the requested one, unless epsilon is too large
        self.sigma = float(lattice.sigma[0])
        self.granularity = float(lattice.granularity[0])
        self.delta_slack = lattice.slack

    @property
    def guarantee(self):
        return f"each released row is ({self.epsilon:.6g}, {self.delta:.3g})-LDP"

    def randomize(self, X, random_state=None):
        """Release rows of ``X`` (or entries of a 1-d ``X``).

        ``random_state``: None (the OS CSPRNG, what a device must use), an
        integer (simulations only) or any source
        :func:`~sklearn_ldp.randomizers.check_client_random_state` accepts.
        """
        X = check_finite_array(X, name="X")
        rows = X if X.ndim > 1 else X[:, None]
        if self.n_features is None:
            self._calibrate(rows.shape[1])
        elif rows.shape[1] != self.n_features:
            raise ValueError(
                f"X has {rows.shape[1]} features, but the mechanism was calibrated "
                f"for {self.n_features}."
            )
        source = check_client_random_state(random_state)
        noisy = np.empty(rows.shape)
        for batch in gen_batches(rows.shape[0], chunk_rows(self.n_features)):
            noisy[batch] = lattice_release(
                clip_to_ball(rows[batch], self.norm_bound),
                self.sigma,
                self.granularity,
                source,
                bound=self.norm_bound,
            )
        return noisy if X.ndim > 1 else noisy[:, 0]

    def estimate(self, reports):
        return np.asarray(reports, dtype=float)

    def variance(self, values=None):
        """Variance of a released number: ``sigma^2`` (plus at most ``g^2 / 4`` from rounding)."""
        values = np.zeros(()) if values is None else np.asarray(values, dtype=float)
        return np.full(values.shape, self.sigma**2)


def label_index(y, classes):
    """Each label's index among the sorted public ``classes``.

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
    return index


def encode_labels(y, classes):
    """Map labels to the public encoding: +-1 for two classes, one-hot otherwise.

    Raises a ``ValueError`` for labels that are not among ``classes``.
    """
    index = label_index(y, classes)
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
    (4) puts the features and the target on their public lattices ``g_x Z``
    and ``g_y Z`` by unbiased randomized rounding (the label encodings
    already lie on them) and adds rounded Gaussian noise of standard
    deviations ``sigma_x`` and ``sigma_y`` (:func:`lattice_release`).
    Every reported number is a multiple of ``granularity = min(g_x, g_y)``.

    Privacy. The clipped features lie in the ball of radius ``bound``
    (``feature_norm`` with a map, else ``data_norm``) whatever ``x`` is, so
    replacing the record moves them by at most ``D_x = 2 * bound`` and the
    target by at most ``D_y`` (``2 y_bound``; ``2`` for +-1 labels;
    ``sqrt(2)`` for one-hot labels) in l2; the rounding moves them by less
    than ``2 g_x sqrt(m)`` and ``2 g_y`` more (``m`` released features), and
    the noise is calibrated for these widened sensitivities ``D_x'`` and
    ``D_y'``. With ``calibration='analytic'`` the two releases are one
    Gaussian mechanism of sensitivity ``sqrt((D_x' / sigma_x)^2 + (D_y' /
    sigma_y)^2)`` at unit noise, calibrated exactly by the analytic Gaussian
    mechanism, with ``sigma_y / D_y = y_noise_ratio * sigma_x / D_x``. With
    ``calibration='paper'`` each part gets ``(epsilon / 2, delta / 2)`` and
    the classic formula (basic composition), as seeds 003 and 000 print.
    Both calibrate at ``delta`` minus the slack that pays for the 64-bit
    sampler's distance to the ideal rounded Gaussian
    (:func:`~sklearn_ldp.accounting.lattice_gaussian` derives it). Either
    way each user's record is (epsilon, delta)-LDP for the noise actually
    sampled.

    Noise. ``sigma_x`` and ``sigma_y`` are the exact standard deviations of
    the released noise (``g sqrt(s^2 + 1/12)`` for ``s`` cells), what the
    servers debias with; they exceed the continuous mechanism's by less
    than ``0.4%`` while ``2 sqrt(m) sigma_x / D_x <= 64`` (see
    :mod:`sklearn_ldp.accounting._lattice`). The rounding of the input adds
    a data-dependent variance of at most ``g^2 / 4`` per number (below
    ``1.5e-8`` of the noise variance), which is not corrected.

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

    Attributes
    ----------
    sigma_x, sigma_y : float
        Standard deviations of the released feature and target noise
        (``sigma_y`` None when only ``x`` is released).
    granularity_x, granularity_y : float
        Lattice steps of the features and of the target.
    granularity : float
        The finest of the two: every reported number is a multiple of it.
    delta_slack : float
        Part of ``delta`` spent on the sampler's distance to the ideal law.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import GaussianRecordRandomizer
    >>> rand = GaussianRecordRandomizer(3, epsilon=1.0, delta=1e-5, y_bound=1.0)
    >>> reports = rand.randomize(np.ones((5, 3)), np.zeros(5), random_state=0)
    >>> reports.as_matrix().shape
    (5, 4)
    >>> rand.get_config()["granularity"]
    0.001953125
    >>> bool(np.all(reports.as_matrix() % rand.granularity == 0))
    True
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
        self.classes = None if classes is None else checked_classes(classes)
        self.feature_map = feature_map
        self.feature_norm, self.feature_map_config = checked_feature_map(
            feature_map, feature_norm, self.data_norm, feature_map_config
        )
        if calibration not in CALIBRATIONS:
            raise ValueError(
                f"calibration must be one of {CALIBRATIONS}, got {calibration!r}."
            )
        self.calibration = calibration
        self.y_noise_ratio = check_bound(y_noise_ratio, name="y_noise_ratio")
        self.requires_y = self.y_sensitivity is not None
        self.n_users = None if n_users is None else int(n_users)
        self.n_released = released_width(self.feature_map, self.n_features)
        self._calibrate()
        # Each temporary of a chunk (the clipped records, their features, the
        # noise) holds at most CHUNK_VALUES numbers.
        self.chunk_size = chunk_rows(max(self.n_features, self.n_released))

    @property
    def y_sensitivity(self):
        if self.y_bound is not None:
            return 2.0 * self.y_bound
        if self.classes is not None:
            return 2.0 if len(self.classes) == 2 else float(np.sqrt(2.0))
        return None

    @property
    def _target_shape(self):
        if self.classes is not None and len(self.classes) > 2:
            return (len(self.classes),)
        return ()

    def _calibrate(self):
        n_released = self.n_released
        d_x = 2.0 * self.feature_norm
        d_y = self.y_sensitivity
        method = "analytic" if self.calibration == "analytic" else "classic"
        # Labels are encoded as integers (+-1, one-hot): no rounding on g <= 1.
        y_step = 0.0 if self.y_bound is not None else 1.0
        y_width = int(np.prod(self._target_shape, dtype=int))
        if d_y is None:
            parts = [
                lattice_gaussian(
                    self.epsilon, self.delta, [d_x], [n_released], method=method
                )
            ]
        elif self.calibration == "paper":
            half_eps, half_delta = self.epsilon / 2.0, self.delta / 2.0
            parts = [
                lattice_gaussian(
                    half_eps, half_delta, [d_x], [n_released], method=method
                ),
                lattice_gaussian(
                    half_eps,
                    half_delta,
                    [d_y],
                    [y_width],
                    input_steps=[y_step],
                    method=method,
                ),
            ]
        else:
            parts = [
                lattice_gaussian(
                    self.epsilon,
                    self.delta,
                    [d_x, d_y],
                    [n_released, y_width],
                    weights=[d_x, self.y_noise_ratio * d_y],
                    input_steps=[0.0, y_step],
                )
            ]
        sigmas = np.concatenate([part.sigma for part in parts])
        steps = np.concatenate([part.granularity for part in parts])
        for sigma, step, tv_bound in zip(
            sigmas,
            steps,
            np.concatenate([part.tv_bound for part in parts]),
            strict=True,
        ):
            lattice_noise_sampler(sigma, step, tv_bound)  # built and checked once
        self.sigma_x, self.granularity_x = float(sigmas[0]), float(steps[0])
        self.sigma_y = self.granularity_y = None
        if d_y is not None:
            self.sigma_y, self.granularity_y = float(sigmas[1]), float(steps[1])
        self.granularity = float(steps.min())
        self.delta_slack = float(sum(part.slack for part in parts))
        self.delta = provided_delta(self.delta, parts)

    def _config(self):
        config = {
            "calibration": self.calibration,
            "data_norm": self.data_norm,
            "feature_norm": self.feature_norm,
            "sigma_x": self.sigma_x,
            "granularity_x": self.granularity_x,
        }
        if self.y_sensitivity is not None:
            config.update(sigma_y=self.sigma_y, granularity_y=self.granularity_y)
        if self.y_bound is not None:
            config["y_bound"] = self.y_bound
        if self.classes is not None:
            config["classes"] = self.classes.tolist()
        if self.feature_map_config:
            config["feature_map"] = self.feature_map_config
        if self.n_users is not None:
            config["n_users"] = self.n_users
        return config

    def features(self, X):
        """The clipped (and mapped) features a user releases, before noise."""
        return mapped_features(X, self.data_norm, self.feature_map, self.feature_norm)

    def targets(self, y):
        """The clipped or encoded target a user releases, before noise."""
        if self.y_bound is not None:
            return clip_interval(
                check_finite_array(y, name="y"), -self.y_bound, self.y_bound
            )
        return encode_labels(y, self.classes)

    def _target_bounds(self):
        if self.y_bound is not None:
            return -self.y_bound, self.y_bound
        return (0.0 if self._target_shape else -1.0), 1.0

    def report_support(self):
        """The features and target an honest client can send, on their lattices."""
        bound = self.feature_norm
        sampler = lattice_noise_sampler(self.sigma_x, self.granularity_x)
        support = {
            "x": lattice_support(
                (self.n_released,), -bound, bound, self.granularity_x, sampler
            )
        }
        if self.y_sensitivity is not None:
            sampler = lattice_noise_sampler(self.sigma_y, self.granularity_y)
            low, high = self._target_bounds()
            support["y"] = lattice_support(
                self._target_shape, low, high, self.granularity_y, sampler
            )
        return support

    def _randomize_chunk(self, X, y, source, public):
        # The features and targets lie within their clipping bounds
        # (clip_to_ball bounds every entry too; labels are encoded in [-1, 1]).
        fields = {
            "x": lattice_release(
                self.features(X),
                self.sigma_x,
                self.granularity_x,
                source,
                bound=self.feature_norm,
            )
        }
        if y is not None and self.y_sensitivity is not None:
            fields["y"] = lattice_release(
                self.targets(y),
                self.sigma_y,
                self.granularity_y,
                source,
                bound=max(abs(bound) for bound in self._target_bounds()),
            )
        return fields
