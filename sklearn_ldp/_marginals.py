"""KWayMarginalsLDP: k-way marginals of binary data under non-interactive LDP.

Seed 001 (Wang, Gaboardi, Smith, Xu, JMLR 2020), section 6.1, Algorithm 6;
ALGORITHMS.md section 6. Each user reports, through LDP-AVG, the
coefficient vector of ``p(sum_j y_j x_j)`` for the Thaler-Ullman-Vadhan
approximation ``p`` of OR
(:class:`~sklearn_ldp.randomizers.MarginalRandomizer`, which documents the
multilinear and monomial vectors); the server averages it
(:func:`~sklearn_ldp.aggregation.estimate_vector_mean`) and answers every
monotone disjunction of at most ``k`` features and every marginal
(:func:`~sklearn_ldp.aggregation.marginal_tables`), all from one collection.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._base import LDPUnsupervisedMixin
from .aggregation import (
    disjunction_tables,
    estimate_vector_mean,
    fold_monomial_means,
    marginal_tables,
)
from .randomizers import MarginalRandomizer, SubsetIndex
from .randomizers._ldp_avg import VECTOR_MECHANISMS
from .randomizers._marginals import COEFFICIENTS, binarize_records
from .utils import warn_few_users


class KWayMarginalsLDP(LDPUnsupervisedMixin, BaseEstimator):
    """All k-way marginals of binary data under local DP (local Chebyshev mechanism).

    Each user holds a binary record in ``{0, 1}^p`` and sends one
    randomized report; from one collection the server answers every
    monotone disjunction of at most ``k`` features and every marginal
    (feature subset of size at most ``k`` and a 0/1 pattern), all at once,
    with no further privacy cost (seed 001, Algorithm 6).

    Privacy: each sample ``x_i`` is epsilon-LDP (pure, ``delta = 0``).

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget.
    k : int, default=3
        Largest number of features in a query (capped at ``n_features``).
    gamma : float, default=0.2
        Uniform error of the polynomial approximation of OR on ``{0..k}``
        (Thaler-Ullman-Vadhan, :func:`~sklearn_ldp.randomizers.or_polynomial`).
        ``0`` uses the exact inclusion-exclusion polynomial (degree ``k``,
        no bias). ``gamma > 0`` trades a bias of at most ``gamma`` per
        disjunction for lower noise and, once its degree ``t`` is below
        ``k``, a shorter vector (subsets of size ``<= t`` only). For
        ``k <= 3`` no Chebyshev polynomial of degree below ``k`` reaches
        ``gamma = 0.2``, so the exact one is used; from ``k = 4`` on,
        ``gamma = 0.2`` had 3-4 times lower maximum marginal error than
        ``gamma = 0`` in ``benchmarks/bench_marginals.py`` (n = 1e5,
        p = 10, epsilon = 1).
    coefficients : {'multilinear', 'monomial'}, default='multilinear'
        The coefficient vector users report: the multilinear form (one
        entry per feature subset of size ``1..min(k, t)``), or the printed
        vector of all ``C(p + t, t)`` monomials (paper-faithful, far longer).
    mechanism : {'piecewise', 'duchi', 'laplace', 'full_vector'}, \
default='piecewise'
        LDP-AVG: each user releases one public-randomly assigned coordinate
        with the full epsilon through the named scalar mechanism, or
        (``'full_vector'``, the printed Lemma 3 protocol) the whole vector
        with ``Lap(d b / epsilon)`` per entry.
    binarize : float or None, default=0.0
        Public threshold users apply locally: feature ``j`` is the bit
        ``x_j > binarize``. None requires records of 0s and 1s and raises a
        ValueError otherwise.
    random_state : int, RandomState instance or None, default=None
        Randomness of the simulated users (and of the public partition).

    Attributes
    ----------
    coefficients_ : ndarray of shape (n_coordinates_multilinear,)
        The averaged multilinear coefficients (``w_|S|`` times the private
        estimate of the fraction of users with all features of ``S`` set),
        subsets in :class:`SubsetIndex` order.
    polynomial_ : ORPolynomial
        The OR approximation used (degree, uniform error, coefficients).
    order_ : int
        Largest subset size in the coefficient vector, ``min(k, t, p)``.
    k_ : int
        ``min(k, n_features)``.
    n_coordinates_ : int
        Length of the vector users report.
    users_per_coordinate_ : float
    privacy_epsilon_, privacy_delta_ : float
    n_reports_rejected_ : int
        Reports the server's validation dropped (not finite, off the lattice
        or outside what an honest client can send); 0 after ``fit``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    sklearn_ldp.randomizers.or_polynomial : the OR approximation.
    KernelDensityLDP : the smooth-query counterpart (Algorithm 7).

    Notes
    -----
    Wang, Gaboardi, Smith and Xu, *Empirical Risk Minimization in the
    Non-interactive Local Model of Differential Privacy*, JMLR 21 (2020),
    section 6.1; Thaler, Ullman and Vadhan, *Faster algorithms for privately
    releasing marginals*, ICALP 2012. Usable regime: the sampled scheme
    spreads ``n`` users over ``d = sum_{m <= min(k, t)} C(p, m)``
    coordinates, so each disjunction has noise of order
    ``sqrt(2^k d / n) / epsilon``; ``n`` should be well above ``d``
    (``p = 20, k = 3``: ``d = 1350``). Vectors over ``2^22`` entries are
    refused.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import KWayMarginalsLDP
    >>> rng = np.random.RandomState(0)
    >>> X = (rng.uniform(size=(100_000, 6)) < [0.1, 0.3, 0.5, 0.5, 0.7, 0.9]).astype(int)
    >>> est = KWayMarginalsLDP(epsilon=2.0, k=2, random_state=0).fit(X)
    >>> est.marginal_table([0, 5]).round(2)  # true: [[0.09, 0.81], [0.01, 0.09]]
    array([[0.09, 0.82],
           [0.01, 0.09]])
    >>> round(est.disjunction([0, 1]), 2)  # true fraction: 0.37
    0.36
    """

    _parameter_constraints = {
        **LDPUnsupervisedMixin._ldp_parameter_constraints,
        "k": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, 1, closed="left")],
        "coefficients": [StrOptions(set(COEFFICIENTS))],
        "mechanism": [StrOptions(set(VECTOR_MECHANISMS))],
        "binarize": [Real, None],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        k=3,
        gamma=0.2,
        coefficients="multilinear",
        mechanism="piecewise",
        binarize=0.0,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.k = k
        self.gamma = gamma
        self.coefficients = coefficients
        self.mechanism = mechanism
        self.binarize = binarize
        self.random_state = random_state

    def _make_randomizer(self, n_features, n_users, classes):
        return self._build_randomizer(n_features)

    def _build_randomizer(self, n_features):
        """The users' ``MarginalRandomizer`` (each draws its coordinate itself)."""
        self._validate_params()
        return MarginalRandomizer(
            n_features,
            epsilon=self.epsilon,
            k=self.k,
            gamma=self.gamma,
            coefficients=self.coefficients,
            mechanism=self.mechanism,
            binarize=self.binarize,
        )

    def _expected_randomizer(self, reports):
        config = reports.config
        return self._build_randomizer(config.get("n_features"))

    def _check_records(self, X):
        binarize_records(X, self.binarize)

    def _fit_server(self, reports, rng):
        randomizer = self._expected_randomizer(reports)
        n_users = len(reports)
        warn_few_users(
            n_users,
            randomizer.n_groups,
            cells="coordinates in the users' vector",
            advice=(
                "Their marginals are uninformative: lower k, raise gamma, use fewer "
                "features, or collect more users."
            ),
        )
        index = SubsetIndex(randomizer.n_features, randomizer.order)
        mean, _ = estimate_vector_mean(randomizer, reports)
        if randomizer.coefficients == "monomial":
            mean = fold_monomial_means(mean, randomizer.support, index)
        self.coefficients_ = mean
        self.polynomial_ = randomizer.polynomial
        self.order_ = randomizer.order
        self.k_ = randomizer.k_effective
        self.n_coordinates_ = randomizer.n_coordinates
        self.users_per_coordinate_ = n_users / randomizer.n_groups
        self._index = index
        return self

    def _check_features(self, features):
        check_is_fitted(self)
        features = np.asarray(features)
        if features.ndim != 1 or features.size == 0:
            raise ValueError(
                f"features must be a non-empty 1-d list of feature indices, got {features!r}."
            )
        if not np.issubdtype(features.dtype, np.integer):
            raise ValueError(f"features must be integer indices, got {features!r}.")
        if features.min() < 0 or features.max() >= self.n_features_in_:
            raise ValueError(
                f"feature indices must be in [0, {self.n_features_in_}), got "
                f"{features.tolist()}."
            )
        if np.unique(features).size != features.size:
            raise ValueError(f"features must be distinct, got {features.tolist()}.")
        if features.size > self.k_:
            raise ValueError(
                f"The reports answer queries on at most k = {self.k_} features, got "
                f"{features.size}."
            )
        return features.astype(np.int64)

    def marginal_tables(self, subsets):
        """Marginal tables of many feature subsets of one size at once.

        Parameters
        ----------
        subsets : int array-like of shape (m, u)
            Feature subsets (distinct indices each; ``u <= k``).

        Returns
        -------
        tables : ndarray of shape (m, 2, ..., 2)
            ``tables[i, b_0, ..., b_{u-1}]`` is the estimated fraction of
            users with ``x[subsets[i, j]] = b_j`` for every ``j``.
        """
        check_is_fitted(self)
        subsets = np.atleast_2d(np.asarray(subsets))
        for row in subsets[: min(len(subsets), 1)]:
            self._check_features(row)
        if subsets.min() < 0 or subsets.max() >= self.n_features_in_:
            raise ValueError(f"feature indices must be in [0, {self.n_features_in_}).")
        sorted_subsets = np.sort(subsets.astype(np.int64), axis=1)
        if np.any(np.diff(sorted_subsets, axis=1) == 0):
            raise ValueError("Every subset must have distinct features.")
        return marginal_tables(self.coefficients_, self._index, subsets)

    def marginal_table(self, features):
        """All ``2^u`` cells of the marginal of a feature subset.

        Parameters
        ----------
        features : array-like of int, of length ``u <= k``

        Returns
        -------
        table : ndarray of shape (2,) * u
            ``table[b_0, ..., b_{u-1}]``: estimated fraction of users with
            ``x[features[j]] = b_j``. The estimates are unbiased for
            ``gamma = 0`` and not projected, so a cell may be slightly
            negative; the cells always sum to exactly 1.
        """
        features = self._check_features(features)
        return self.marginal_tables(features[None, :])[0]

    def marginal(self, features, pattern):
        """Estimated fraction of users with ``x[features] == pattern``.

        Parameters
        ----------
        features : array-like of int, of length ``u <= k``
        pattern : array-like of 0/1, of length ``u``

        Returns
        -------
        fraction : float
        """
        features = self._check_features(features)
        pattern = np.asarray(pattern)
        if pattern.shape != features.shape or not np.all(
            (pattern == 0) | (pattern == 1)
        ):
            raise ValueError(
                f"pattern must be {features.size} values in {{0, 1}}, got {pattern!r}."
            )
        return float(self.marginal_table(features)[tuple(pattern.astype(int))])

    def disjunction(self, features):
        """Estimated fraction of users with at least one of ``features`` set.

        The averaged polynomial evaluated at the query's indicator vector
        (seed 001, Algorithm 6, line 8).

        Parameters
        ----------
        features : array-like of int, of length at most ``k``

        Returns
        -------
        fraction : float
        """
        features = np.sort(self._check_features(features))
        tables = disjunction_tables(self.coefficients_, self._index, features[None, :])
        return float(tables[0, -1])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


__all__ = ["KWayMarginalsLDP"]
