"""PrivUnitG on a public lattice: one pure-epsilon report for the first and second moments.

Each user embeds ``x`` (clipped to the ball of radius ``data_norm``) as the
unit vector ``u = (x / data_norm, sqrt(1 - ||x / data_norm||^2))`` of
``R^(d+1)`` and sends one PrivUnitG report ``V`` (Asi, Feldman and Talwar
2022): a Gaussian vector pushed towards ``u`` by conditioning on a cap. From
it the server has unbiased estimates of ``x`` and of ``x x^T``
(:meth:`PrivUnitGRandomizer.estimate_mean`,
:meth:`PrivUnitGRandomizer.estimate_second_moment`). Per user, its
second-moment variance is hundreds of times below the analytic Gaussian
release's at delta = 1e-7 (``docs/benchmarks/mechanisms.md``).
"""

from functools import lru_cache

import numpy as np

from ..accounting import (
    PRIVUNIT_MIN_CAP_PROBABILITY,
    MomentVariance,
    design_moment_variance,
    lattice_privunit_gaussian,
    privunit_moment_variance,
)
from ..utils import check_bound, check_epsilon, check_finite_array
from ._base import FieldSupport, LocalRandomizer, chunk_rows
from ._clip import clip_interval, clip_l2
from ._gaussian import (
    checked_classes,
    checked_feature_map,
    encode_labels,
    mapped_features,
    released_width,
)
from ._sampling import rounded_gaussian

#: Cells per standard deviation of each coordinate's rounded Gaussian.
PRIVUNIT_SCALE = 512.0
#: The lattice step: reports have standard deviation about 1 per coordinate.
PRIVUNIT_GRANULARITY = 2.0**-9
#: Failure probability of the cap's rejection sampling (then the last draw
#: is released: private, and the bias it leaves is below this).
_REJECTION_FAILURE = 2.0**-40
PRIVUNIT_TARGETS = ("second_moment", "mean")
#: Budgets for which :class:`PrivUnitGRecordRandomizer` is offered (and
#: ``mechanism='auto'`` of the classifiers considers it). Measured on the
#: calibration in float64 (``PrivUnitGRandomizer(3, epsilon=e)``): below
#: about 0.05 the design's ``kappa`` drifts from its ``eps^2`` law (0.234
#: ``eps^2`` at 0.05 and 0.1, 0.172 ``eps^2`` at 0.01, negative at 0.001);
#: from about 50 the calibration divides by zero; from 16 on the cap
#: probability's floor (1/64) holds ``kappa`` at 5.4.
PRIVUNIT_EPSILON_RANGE = (0.05, 32.0)


@lru_cache(maxsize=1)
def _base_sampler():
    return rounded_gaussian(PRIVUNIT_SCALE)


@lru_cache(maxsize=64)
def _calibration(epsilon, n_dims, budget_split):
    sampler = _base_sampler()
    return lattice_privunit_gaussian(
        epsilon,
        n_dims,
        budget_split,
        scale=PRIVUNIT_SCALE,
        tv_bound=sampler.tv_bound,
        max_abs_cell=sampler.support[1],
    )


class PrivUnitGRandomizer(LocalRandomizer):
    """PrivUnitG report of a vector in a ball, on the lattice ``g Z^(d+1)``.

    The client clips ``x`` to the l2 ball of radius ``data_norm``, embeds it
    as the unit vector ``u = (x / data_norm, sqrt(1 - ||x / data_norm||^2))``
    and releases ``g J`` with ``J`` in ``Z^(d+1)``: with probability ``L`` a
    draw of the base law (``d + 1`` independent rounded Gaussians of
    standard deviation 512 cells, from the exact 64-bit sampler), otherwise
    a base draw conditioned, by rejection, on the cap ``<J, u> >=
    gamma_c``. ``g = 2^-9``, so a report has standard deviation about 1 per
    coordinate. To release ``(x, y)`` jointly, pass the stacked columns
    with the norm bound of the pair.

    Guarantee: each user's record is epsilon-LDP (pure), for what is
    sampled. Every output has probability ``mu(o) [L + (1 - L) c_u(o)]``
    with ``0 <= c_u(o) <= 1 / mu(C_u)`` (``mu`` the implemented base law,
    ``C_u`` the draws the user accepts, computed in floating point), so two
    inputs' probabilities are within ``1 + (1 - L) / (L q_-)``, ``q_-`` a
    proven lower bound on ``mu(C_u)`` over every input; the calibration
    (:func:`~sklearn_ldp.accounting.lattice_privunit_gaussian`) derives it
    and sets ``L`` and ``gamma_c`` so that this is at most ``epsilon``.
    The report's support (every lattice point within the sampler's window)
    is the same for every input.

    Parameters
    ----------
    n_features : int
        ``d``.
    epsilon : float
        Per-user budget, in ``PRIVUNIT_EPSILON_RANGE`` (0.05 to 32).
    data_norm : float, default=1.0
        Public l2 bound on ``x``.
    budget_split : float or None, default=None
        Share of epsilon spent on the cap's probability (``p``); None
        picks the split minimizing the worst-case variance of ``target``
        subject to a cap probability of at least 1/64 (at most 64 expected
        draws per user in the cap branch).
    target : {'second_moment', 'mean'}, default='second_moment'

    Attributes
    ----------
    n_dims : int
        ``d + 1``, the width of a report.
    granularity : float
        ``g``.
    scale : float
        Standard deviation of a report coordinate under the base law,
        ``g sqrt(512^2 + 1/12)``.
    first_moment_scale, second_moment_scale : float
        ``m = E<V, u>`` and ``kappa = E<V, u>^2 - 1`` for ``V`` the report
        over ``scale``: ``V / m`` and ``(V V^T - I) / kappa`` are unbiased
        for ``u`` and ``u u^T``.
    mixture_weight, cap_threshold : float
        ``L`` and ``gamma_c`` (in cells).

    See Also
    --------
    sklearn_ldp.accounting.best_moment_mechanism : which mechanism to use.
    sklearn_ldp.randomizers.GaussianRecordRandomizer : the (epsilon, delta) release.

    Notes
    -----
    Asi, Feldman and Talwar, "Optimal algorithms for mean estimation under
    local differential privacy", ICML 2022 (PrivUnitG); Bhowmick et al.
    2018 (PrivUnit). The budget split is chosen for the embedded second
    moment, not the mean. Estimates are unbiased up to the Gaussian
    approximation of ``<J, u>`` (exact variance ``512^2 + 1/12`` cells^2) and
    the rejection sampler's failure probability ``2^-40``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import PrivUnitGRandomizer
    >>> rand = PrivUnitGRandomizer(3, epsilon=2.0)
    >>> X = np.tile([0.6, 0.0, 0.0], (20_000, 1))
    >>> reports = rand.randomize(X, random_state=0)
    >>> reports["x"].shape, rand.guarantee
    ((20000, 4), "each user's record is 2-LDP")
    >>> np.round(rand.estimate_mean(reports).mean(axis=0), 1).tolist()
    [0.6, 0.0, 0.0]
    """

    requires_y = False

    def __init__(
        self,
        n_features,
        *,
        epsilon,
        data_norm=1.0,
        budget_split=None,
        target="second_moment",
    ):
        if int(n_features) != n_features or n_features < 1:
            raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}.")
        if target not in PRIVUNIT_TARGETS:
            raise ValueError(
                f"target must be one of {PRIVUNIT_TARGETS}, got {target!r}."
            )
        self.n_features = int(n_features)
        self.n_dims = self.n_features + 1
        self.requested_epsilon = check_epsilon(epsilon)
        low, high = PRIVUNIT_EPSILON_RANGE
        if not low <= self.requested_epsilon <= high:
            # Outside, the float64 calibration is not trustworthy (a
            # negative kappa at 0.001, a division by zero from about 50).
            raise ValueError(
                f"PrivUnitGRandomizer supports epsilon in [{low}, {high}], got "
                f"epsilon={epsilon!r}: its calibration in floating point is not "
                "reliable outside."
            )
        self.delta = 0.0
        self.data_norm = check_bound(data_norm, name="data_norm")
        self.target = target
        if budget_split is None:
            budget_split = privunit_moment_variance(
                self.n_features,
                self.requested_epsilon,
                base="gaussian",
                target=target,
                min_cap_probability=PRIVUNIT_MIN_CAP_PROBABILITY,
            ).parameters["budget_split"]
        self.budget_split = float(budget_split)
        calibration = _calibration(
            self.requested_epsilon, self.n_dims, self.budget_split
        )
        self.epsilon = self.requested_epsilon
        self.provided_epsilon = calibration.epsilon
        self.granularity = PRIVUNIT_GRANULARITY
        self.scale = PRIVUNIT_GRANULARITY * float(np.sqrt(PRIVUNIT_SCALE**2 + 1 / 12))
        self.mixture_weight = calibration.mixture_weight
        self.cap_threshold = calibration.cap_threshold
        self.design = calibration.design
        _, m, a2, _, _ = self.design.t_moments
        self.first_moment_scale = float(m)
        self.second_moment_scale = float(a2 - 1.0)
        if not (self.first_moment_scale > 0 and self.second_moment_scale > 0):
            raise ValueError(  # pragma: no cover - guarded by the epsilon range
                f"PrivUnitGRandomizer's calibration at epsilon={epsilon!r}, "
                f"d={self.n_features} gives m={self.first_moment_scale!r}, "
                f"kappa={self.second_moment_scale!r}: both must be positive."
            )
        q = self.design.q
        self.max_rounds = int(np.ceil(np.log(_REJECTION_FAILURE) / np.log1p(-q)))
        self.chunk_size = chunk_rows(4 * self.n_dims)

    def _config(self):
        return {
            "data_norm": self.data_norm,
            "budget_split": self.budget_split,
            "target": self.target,
            "mixture_weight": self.mixture_weight,
            "cap_threshold": self.cap_threshold,
            "scale": self.scale,
        }

    def report_support(self):
        """Every lattice point of the base sampler's window, for every input."""
        reach = self.granularity * _base_sampler().support[1]
        return {"x": FieldSupport((self.n_dims,), -reach, reach, self.granularity)}

    def embed(self, X):
        """The unit vectors ``u`` the users randomize: ``(x, sqrt(1 - ||x||^2))``, scaled."""
        clipped = clip_l2(np.asarray(X, dtype=np.float64), self.data_norm)
        clipped /= self.data_norm
        height = np.sqrt(np.maximum(0.0, 1.0 - np.einsum("ij,ij->i", clipped, clipped)))
        return np.column_stack([clipped, height])

    def _randomize_chunk(self, X, y, source, public):
        sampler = _base_sampler()
        u = self.embed(X)
        n = u.shape[0]
        cells = sampler.sample(source, (n, self.n_dims))
        base = source.bernoulli(np.full(n, self.mixture_weight))
        pending = np.flatnonzero(~base)
        for _ in range(self.max_rounds):
            inside = np.einsum(
                "ij,ij->i", cells[pending].astype(np.float64), u[pending]
            )
            pending = pending[inside < self.cap_threshold]
            if pending.size == 0:
                break
            cells[pending] = sampler.sample(source, (pending.size, self.n_dims))
        return {"x": cells.astype(np.float64) * self.granularity}

    # ----------------------------------------------------------- server side
    def _standardized(self, reports):
        values = reports["x"] if hasattr(reports, "fields") else reports
        return np.asarray(values, dtype=np.float64)[:, : self.n_features] / self.scale

    def estimate_mean(self, reports):
        """Per-user unbiased estimates of ``x`` (data units), shape ``(n, d)``."""
        return self._standardized(reports) * (self.data_norm / self.first_moment_scale)

    def estimate_second_moment(self, reports):
        """The users' mean of unbiased estimates of ``x x^T`` (data units), ``(d, d)``."""
        V = self._standardized(reports)
        gram = V.T @ V / V.shape[0] - np.eye(self.n_features)
        return gram * (self.data_norm**2 / self.second_moment_scale)

    def variance(self, x=None):
        """Per-user :class:`~sklearn_ldp.accounting.MomentVariance` of the estimates.

        ``x`` in units of ``data_norm`` (the unit ball); None: the worst case.
        """
        mean, second = design_moment_variance(self.design, x)
        return MomentVariance(
            "privunit_gaussian",
            float(mean),
            float(second),
            {"budget_split": self.budget_split, "q": self.design.q},
        )


class PrivUnitGRecordRandomizer(LocalRandomizer):
    """Release one user's ``(x, y)`` as one PrivUnitG report of the pair (pure epsilon).

    The client clips ``x`` to the l2 ball of radius ``data_norm`` (and,
    with a public ``feature_map`` such as a
    :class:`~sklearn_ldp.randomizers.RandomProjection`, maps it and clips
    the result to ``feature_norm``, as
    :class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer` does), then
    encodes the target publicly: a label as ``+-1`` for two classes or
    one-hot for more (norm 1 either way), a regression target (``y_bound``)
    clipped to ``[-y_bound, y_bound]`` and multiplied by ``target_scale =
    feature_norm / y_bound`` (so it lies in ``[-feature_norm,
    feature_norm]``). It stacks the two into ``r = (phi, t)``, of norm at
    most ``pair_norm`` (``sqrt(feature_norm^2 + 1)`` for labels,
    ``sqrt(2) feature_norm`` for a regression target), and sends one
    :class:`PrivUnitGRandomizer` report of ``r`` (field ``'x'``, width ``m
    + k + 1``: the pair's ``m`` features and ``k`` target columns, and the
    embedding's height coordinate). It is the pure-epsilon alternative to
    the Gaussian release for servers that need only the first and second
    moments of the pair (the degree-1 linear classifiers, debiased least
    squares): per user, its second-moment variance is 50 to 400 times below
    the analytic Gaussian release's at ``delta = 1e-7``
    (``docs/benchmarks/mechanisms.md``).

    Guarantee: each user's record is epsilon-LDP (pure). Derivation: the
    map from the record to ``r`` is public and deterministic, and ``r``
    lies in the ball of radius ``pair_norm`` whatever the record is (the
    features are clipped to ``feature_norm``, ``data_norm`` without a map;
    the target is a unit code or ``|t| <= target_scale y_bound =
    feature_norm``); :class:`PrivUnitGRandomizer` releases any two inputs of
    that ball with output probabilities within ``e^epsilon`` of each other
    (derived there), so any two records' reports are too.

    What the server does with it (derived from the report's moments). For
    ``V`` the report over the base law's ``scale`` and ``u = r /
    pair_norm`` (padded with its height), ``E[V] = m u`` and ``E[V V^T] =
    kappa u u^T + I`` (``m``, ``kappa`` = ``first_moment_scale``,
    ``second_moment_scale`` of the vector randomizer). The pseudo-report
    ``z = c V`` with ``c = pair_norm / (scale sqrt(kappa))`` (the first
    ``m + k`` coordinates, ``report_scale`` times the field) therefore has

        E[z z^T] = r r^T + sigma^2 I,   E[z] = r / f,

    with ``sigma = pair_norm / sqrt(kappa)`` and ``f = sqrt(kappa) / m``
    (``first_moment_factor``): the second moments are debiased exactly as a
    Gaussian release of noise ``sigma`` on every coordinate of ``r`` would
    be, and the first moments are multiplied by ``f``
    (:class:`~sklearn_ldp.aggregation._sufficient.PrivUnitFoldedGramSums`,
    :class:`~sklearn_ldp.aggregation._sufficient.PrivUnitFoldedReportSums`).
    In the target's own units (``t / target_scale``) its noise is
    ``sigma_y = sigma / target_scale``; for labels ``sigma_y = sigma_x =
    sigma``.

    Why ``target_scale = feature_norm / y_bound`` (the target as large as
    the features' bound; derived). One ``sigma`` serves the whole pair, so
    a larger target scale ``rho = |t|_max / feature_norm`` lowers the
    target's relative noise and raises the features': ``sigma_x /
    feature_norm = sqrt(1 + rho^2) / sqrt(kappa)`` and ``sigma_y / y_bound =
    sqrt(1 + rho^-2) / sqrt(kappa)``. Debiased least squares reads ``Z^T
    v``, whose noise variance is ``sigma_x^2 sigma_y^2`` per user when the
    noise dominates, proportional to ``(1 + rho^2)(1 + rho^-2)``, least at
    ``rho = 1`` (the quantity :func:`~sklearn_ldp.randomizers._target_mean.min_users_for_a_model`
    also reads); the noise of ``Z^T Z`` times ``w`` (variance ``sigma_x^4
    ||w||^2``) prefers a smaller ``rho``, but with ``||w||_2`` at its
    largest plausible value ``y_bound / feature_norm`` the optimum is
    ``rho^2 = 1/2`` and ``rho = 1`` costs 19% more variance there (8 against
    6.75 in units of ``(y_bound feature_norm / kappa)^2``), against 12.5% the
    other way for ``w = 0``. It is also the Gaussian release's split
    (``y_noise_ratio=1``: ``sigma_x / feature_norm = sigma_y / y_bound``).

    Parameters
    ----------
    n_features : int
        Number of raw features.
    epsilon : float
        Per-user budget, in ``PRIVUNIT_EPSILON_RANGE``.
    classes : array-like or None, default=None
        Public label set (at least two labels).
    data_norm : float or None, default=1.0
        Public l2 bound on ``x``; None (no clipping of ``x``) only with a
        ``feature_map`` whose output ``feature_norm`` bounds.
    y_bound : float or None, default=None
        Public bound on ``|y|`` for regression targets. Exactly one of
        ``classes`` and ``y_bound`` is given.
    feature_map : callable or None, default=None
        Public map applied to the clipped ``x`` (``(n, d) -> (n, m)``).
    feature_norm : float or None, default=None
        Public l2 bound the mapped features are clipped to (required with
        a ``feature_map``; without one it may only repeat ``data_norm``).
    feature_map_config : dict or None, default=None
        Public description of the map, stored under ``'feature_map'``; None
        takes ``feature_map.get_config()`` when the map has one.
    n_users : int or None, default=None
        Public population size the configuration was planned for (recorded
        in the configuration).

    Attributes
    ----------
    vector : PrivUnitGRandomizer
        The randomizer of the stacked pair.
    n_released : int
        ``m``, the released features (the map's width, else ``n_features``).
    n_targets : int
        Target columns ``k``: 1 (``+-1`` or a regression target) for two
        classes or regression, else one per class.
    pair_norm : float
    target_scale : float
        ``t / y`` for a regression target (1 for labels).
    sigma_x, sigma_y : float
        The Gaussian noise level of the same second moments, on the
        features and on the target in its own units.
    report_scale : float
        ``c``.
    first_moment_factor : float
        ``f``.
    feature_norm : float
        The features' bound (``data_norm`` without a map).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import PrivUnitGRecordRandomizer
    >>> rand = PrivUnitGRecordRandomizer(2, epsilon=4.0, classes=[0, 1])
    >>> reports = rand.randomize(np.zeros((3, 2)), np.array([0, 1, 1]), random_state=0)
    >>> reports["x"].shape, rand.guarantee
    ((3, 4), "each user's record is 4-LDP")
    >>> reg = PrivUnitGRecordRandomizer(2, epsilon=4.0, y_bound=2.0)
    >>> reg.target_scale, bool(np.isclose(reg.sigma_y, 2.0 * reg.sigma_x))
    (0.5, True)
    """

    def __init__(
        self,
        n_features,
        *,
        epsilon,
        classes=None,
        data_norm=1.0,
        y_bound=None,
        feature_map=None,
        feature_norm=None,
        feature_map_config=None,
        n_users=None,
    ):
        if int(n_features) != n_features or n_features < 1:
            raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}.")
        self.n_features = int(n_features)
        epsilon = check_epsilon(epsilon)
        low, high = PRIVUNIT_EPSILON_RANGE
        if not low <= epsilon <= high:
            raise ValueError(
                f"PrivUnitGRecordRandomizer supports epsilon in [{low}, {high}], got "
                f"epsilon={epsilon!r}: use the Gaussian release "
                "(GaussianRecordRandomizer) there."
            )
        if data_norm is None and feature_map is None:
            raise ValueError("data_norm=None (no clipping of x) needs a feature_map.")
        self.data_norm = (
            None if data_norm is None else check_bound(data_norm, name="data_norm")
        )
        if (classes is None) == (y_bound is None):
            raise ValueError(
                "Give exactly one of classes (labels) and y_bound (regression)."
            )
        self.y_bound = None if y_bound is None else check_bound(y_bound, name="y_bound")
        self.classes = None if classes is None else checked_classes(classes)
        self.feature_map = feature_map
        self.feature_norm, self.feature_map_config = checked_feature_map(
            feature_map, feature_norm, self.data_norm, feature_map_config
        )
        self.n_users = None if n_users is None else int(n_users)
        self.n_released = released_width(self.feature_map, self.n_features)
        if self.classes is not None:
            self.n_targets = 1 if len(self.classes) == 2 else len(self.classes)
            self.target_scale = 1.0
            target_bound = 1.0
        else:
            self.n_targets = 1
            # Derived in the docstring: the target as large as the features.
            self.target_scale = self.feature_norm / self.y_bound
            target_bound = self.feature_norm
        self.pair_norm = float(np.hypot(self.feature_norm, target_bound))
        self.vector = PrivUnitGRandomizer(
            self.n_released + self.n_targets,
            epsilon=epsilon,
            data_norm=self.pair_norm,
        )
        self.epsilon = self.vector.epsilon
        self.delta = 0.0
        self.granularity = self.vector.granularity
        kappa = self.vector.second_moment_scale
        self.sigma_x = self.pair_norm / float(np.sqrt(kappa))
        self.sigma_y = self.sigma_x / self.target_scale
        self.report_scale = self.sigma_x / self.vector.scale
        self.first_moment_factor = float(np.sqrt(kappa)) / self.vector.first_moment_scale
        self.chunk_size = chunk_rows(max(self.n_features, 4 * self.vector.n_dims))


    def _config(self):
        vector = self.vector.get_config()
        config = {"data_norm": self.data_norm}
        if self.classes is not None:
            config["classes"] = self.classes.tolist()
        else:
            config.update(y_bound=self.y_bound, target_scale=self.target_scale)
        if self.feature_map is not None:
            config["feature_norm"] = self.feature_norm
        config.update(
            pair_norm=self.pair_norm,
            budget_split=vector["budget_split"],
            mixture_weight=vector["mixture_weight"],
            cap_threshold=vector["cap_threshold"],
            sigma_x=self.sigma_x,
            sigma_y=self.sigma_y,
            report_scale=self.report_scale,
            first_moment_factor=self.first_moment_factor,
        )
        if self.feature_map_config:
            config["feature_map"] = self.feature_map_config
        if self.n_users is not None:
            config["n_users"] = self.n_users
        return config

    def report_support(self):
        """The vector randomizer's: every lattice point of its window, for every input."""
        return self.vector.report_support()

    def features(self, X):
        """The clipped (and mapped) features a user stacks."""
        return mapped_features(X, self.data_norm, self.feature_map, self.feature_norm)

    def targets(self, y):
        """The encoded target a user stacks: a unit code, or the scaled clipped ``y``."""
        if self.classes is not None:
            return encode_labels(y, self.classes)
        clipped = clip_interval(
            check_finite_array(y, name="y"), -self.y_bound, self.y_bound
        )
        return clipped * self.target_scale

    def pair(self, X, y):
        """The stacked ``(features, encoded target)`` a user randomizes."""
        features = self.features(X)
        targets = self.targets(y).reshape(len(features), self.n_targets)
        return np.hstack([features, targets])

    def _randomize_chunk(self, X, y, source, public):
        return self.vector._randomize_chunk(self.pair(X, y), None, source, public)
