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
from ..utils import check_bound, check_epsilon
from ._base import FieldSupport, LocalRandomizer, chunk_rows
from ._clip import clip_l2
from ._gaussian import clip_to_ball, encode_labels
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
    """Release one user's ``(x, label)`` as one PrivUnitG report of the pair (pure epsilon).

    The client clips ``x`` to the l2 ball of radius ``data_norm``, encodes
    the label publicly (``+-1`` for two classes, one-hot for more: norm 1
    either way), stacks the two into ``r = (x, e(y))`` of norm at most
    ``pair_norm = sqrt(data_norm^2 + 1)`` and sends one
    :class:`PrivUnitGRandomizer` report of ``r`` (field ``'x'``, width
    ``d + k + 1``: the pair and the embedding's height coordinate). It is
    the pure-epsilon alternative to
    :class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer` for servers
    that need only the first and second moments of the pair (the degree-1
    linear classifiers): per user, its second-moment variance is 50 to 400
    times below the analytic Gaussian release's at ``delta = 1e-7``
    (``docs/benchmarks/mechanisms.md``).

    Guarantee: each user's record is epsilon-LDP (pure), as
    :class:`PrivUnitGRandomizer` derives for any input in the ball of
    radius ``pair_norm``: the clipped features and the encoded label lie
    in it whatever the record is.

    What the server does with it (derived from the report's moments). For
    ``V`` the report over the base law's ``scale`` and ``u = r /
    pair_norm`` (padded with its height), ``E[V] = m u`` and ``E[V V^T] =
    kappa u u^T + I`` (``m``, ``kappa`` = ``first_moment_scale``,
    ``second_moment_scale`` of the vector randomizer). The pseudo-report
    ``z = c V`` with ``c = pair_norm / (scale sqrt(kappa))`` (the first
    ``d + k`` coordinates, ``report_scale`` times the field) therefore has

        E[z z^T] = r r^T + sigma^2 I,   E[z] = r / f,

    with ``sigma = pair_norm / sqrt(kappa)`` (``sigma_x = sigma_y``) and
    ``f = sqrt(kappa) / m`` (``first_moment_factor``): the second moments
    are debiased exactly as a Gaussian release of noise ``sigma`` would be,
    and the first moments are multiplied by ``f``
    (:class:`~sklearn_ldp.aggregation._sufficient.PrivUnitFoldedGramSums`).

    Parameters
    ----------
    n_features : int
    epsilon : float
        Per-user budget.
    classes : array-like
        Public label set (at least two labels).
    data_norm : float, default=1.0
        Public l2 bound on ``x``.

    Attributes
    ----------
    vector : PrivUnitGRandomizer
        The randomizer of the stacked pair.
    n_targets : int
        Label columns: 1 (``+-1``) for two classes, else one per class.
    pair_norm : float
    sigma_x, sigma_y : float
        ``sigma``: the Gaussian noise level of the same second moments.
    report_scale : float
        ``c``.
    first_moment_factor : float
        ``f``.
    feature_norm : float
        ``data_norm`` (the features' bound, as for the Gaussian release).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import PrivUnitGRecordRandomizer
    >>> rand = PrivUnitGRecordRandomizer(2, epsilon=4.0, classes=[0, 1])
    >>> reports = rand.randomize(np.zeros((3, 2)), np.array([0, 1, 1]), random_state=0)
    >>> reports["x"].shape, rand.guarantee
    ((3, 4), "each user's record is 4-LDP")
    """

    def __init__(self, n_features, *, epsilon, classes, data_norm=1.0):
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
        self.data_norm = check_bound(data_norm, name="data_norm")
        classes = np.asarray(classes)
        if classes.ndim != 1 or len(np.unique(classes)) != len(classes) or len(classes) < 2:
            raise ValueError("classes must be at least two distinct labels.")
        self.classes = np.sort(classes)
        self.n_targets = 1 if len(self.classes) == 2 else len(self.classes)
        self.pair_norm = float(np.hypot(self.data_norm, 1.0))
        self.vector = PrivUnitGRandomizer(
            self.n_features + self.n_targets,
            epsilon=epsilon,
            data_norm=self.pair_norm,
        )
        self.epsilon = self.vector.epsilon
        self.delta = 0.0
        self.granularity = self.vector.granularity
        kappa = self.vector.second_moment_scale
        self.sigma_x = self.sigma_y = self.pair_norm / float(np.sqrt(kappa))
        self.report_scale = self.sigma_x / self.vector.scale
        self.first_moment_factor = float(np.sqrt(kappa)) / self.vector.first_moment_scale
        self.feature_norm = self.data_norm
        self.chunk_size = self.vector.chunk_size

    def _config(self):
        vector = self.vector.get_config()
        return {
            "data_norm": self.data_norm,
            "classes": self.classes.tolist(),
            "pair_norm": self.pair_norm,
            "budget_split": vector["budget_split"],
            "mixture_weight": vector["mixture_weight"],
            "cap_threshold": vector["cap_threshold"],
            "sigma_x": self.sigma_x,
            "sigma_y": self.sigma_y,
            "report_scale": self.report_scale,
            "first_moment_factor": self.first_moment_factor,
        }

    def report_support(self):
        """The vector randomizer's: every lattice point of its window, for every input."""
        return self.vector.report_support()

    def pair(self, X, y):
        """The stacked ``(clipped x, encoded label)`` a user randomizes."""
        clipped = clip_to_ball(np.asarray(X, dtype=np.float64), self.data_norm)
        labels = encode_labels(y, self.classes).reshape(len(clipped), self.n_targets)
        return np.hstack([clipped, labels])

    def _randomize_chunk(self, X, y, source, public):
        return self.vector._randomize_chunk(self.pair(X, y), None, source, public)
