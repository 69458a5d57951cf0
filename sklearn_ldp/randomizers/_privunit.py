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
from ._sampling import rounded_gaussian

#: Cells per standard deviation of each coordinate's rounded Gaussian.
PRIVUNIT_SCALE = 512.0
#: The lattice step: reports have standard deviation about 1 per coordinate.
PRIVUNIT_GRANULARITY = 2.0**-9
#: Failure probability of the cap's rejection sampling (then the last draw
#: is released: private, and the bias it leaves is below this).
_REJECTION_FAILURE = 2.0**-40
PRIVUNIT_TARGETS = ("second_moment", "mean")


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
        Per-user budget.
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
