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
``method='hadamard'`` is the input perturbation of Cormode, Kulkarni and
Srivastava (SIGMOD 2018): each user reports one Walsh-Hadamard parity by
randomized response (:class:`~sklearn_ldp.randomizers.HadamardMarginalRandomizer`,
:func:`~sklearn_ldp.aggregation.parity_marginal_tables`); ``'auto'`` takes
the one with the lower predicted error
(:func:`~sklearn_ldp.aggregation.predicted_table_error`).
"""

from itertools import combinations, islice
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import LDPUnsupervisedMixin
from .aggregation import (
    VectorMeanSums,
    empirical_marginal_tables,
    fold_monomial_means,
    marginal_tables,
    parity_marginal_tables,
    predicted_table_error,
    project_tables_to_simplex,
)
from .randomizers import HadamardMarginalRandomizer, MarginalRandomizer, SubsetIndex
from .randomizers._ldp_avg import VECTOR_MECHANISMS
from .randomizers._marginals import COEFFICIENTS, binarize_records
from .utils import warn_few_users

#: The methods ``method='auto'`` chooses between.
METHODS = ("chebyshev", "hadamard")
_RANDOMIZER_METHODS = {
    "MarginalRandomizer": "chebyshev",
    "HadamardMarginalRandomizer": "hadamard",
}
#: Tables per batch in ``score``.
_SCORE_TABLES = 4096


class KWayMarginalsLDP(LDPUnsupervisedMixin, BaseEstimator):
    """All k-way marginals of binary data under local DP (Chebyshev or Hadamard method).

    Each user holds a binary record in ``{0, 1}^p`` and sends one
    randomized report; from one collection the server answers every
    monotone disjunction of at most ``k`` features and every marginal
    (feature subset of size at most ``k`` and a 0/1 pattern), all at once,
    with no further privacy cost. Two methods: the local Chebyshev
    mechanism (seed 001, Algorithm 6) and the Hadamard input perturbation
    (Cormode, Kulkarni and Srivastava 2018).

    Privacy: each sample ``x_i`` is epsilon-LDP (pure, ``delta = 0``).

    Streaming: the server is one pass over the reports (per coordinate of
    the users' vector, for both methods and every mechanism, the number of
    reports and the sum of their debiased values); ``fit_reports`` accepts
    a report stream (:func:`sklearn_ldp.read_reports`) with memory bounded
    by the chunk size, and ``partial_fit`` adds batches.

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget. Any epsilon > 0 is accepted except where
        the Chebyshev method's scalar mechanism cannot run (piecewise below
        ``1e-8``, Laplace and the full vector below about ``4e-5`` per
        value: a ValueError names the range); above 100 the users run at a
        smaller epsilon, reported in ``privacy_epsilon_``.
    k : int, default=3
        Largest number of features in a query (capped at ``n_features``).
    method : {'auto', 'chebyshev', 'hadamard'}, default='auto'
        What users report. ``'chebyshev'``: the coefficients of the OR
        polynomial through LDP-AVG (seed 001, Algorithm 6; ``gamma``,
        ``coefficients`` and ``mechanism`` configure it). ``'hadamard'``:
        one Walsh-Hadamard parity ``chi_S(x)``, ``1 <= |S| <= k``, by
        randomized response (Cormode et al.'s InpHT). ``'auto'``: the one
        whose predicted error of a k-way table is lower
        (:func:`~sklearn_ldp.aggregation.predicted_table_error`, from the
        public ``(p, k, epsilon, n)`` only), decided before users report
        and announced in the reports. With the exact polynomial (``k <= 3``
        or ``gamma = 0``) the choice does not depend on ``n``; otherwise it
        needs ``make_randomizer(..., n_users=n)``.
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
        LDP-AVG of the Chebyshev method: each user releases one
        public-randomly assigned coordinate with the full epsilon through
        the named scalar mechanism, or (``'full_vector'``, the printed
        Lemma 3 protocol) the whole vector with ``Lap(d b / epsilon)`` per
        entry. The Hadamard method always uses randomized response.
    binarize : float or None, default=0.0
        Public threshold users apply locally: feature ``j`` is the bit
        ``x_j > binarize``. None requires records of 0s and 1s and raises a
        ValueError otherwise.
    projection : {'simplex'} or None, default='simplex'
        Server-side post-processing of every returned table (no privacy
        cost): ``'simplex'`` projects it onto the probability simplex
        (cells in ``[0, 1]`` summing to 1; the l2 error never grows, see
        :func:`~sklearn_ldp.aggregation.project_tables_to_simplex`). None
        returns the raw estimates: unbiased (for ``gamma = 0``), summing to
        1, consistent across tables, but cells may leave ``[0, 1]`` (far
        outside at tiny epsilon).
    random_state : int, RandomState instance or None, default=None
        Randomness of the simulated users (and of the public partition).

    Attributes
    ----------
    method_ : {'chebyshev', 'hadamard'}
        The method the users ran (``'auto'`` resolved).
    coefficients_ : ndarray of shape (n_subsets,)
        One entry per feature subset ``S`` of size ``1..order_``, in
        :class:`SubsetIndex` order. Chebyshev: the averaged multilinear
        coefficients (``w_|S|`` times the private estimate of the fraction
        of users with all features of ``S`` set). Hadamard: the estimated
        Fourier coefficients ``theta_S = mean_i (-1)^(sum_{j in S} x_ij)``.
    polynomial_ : ORPolynomial or None
        The OR approximation used (degree, uniform error, coefficients);
        None for the Hadamard method.
    order_ : int
        Largest subset size in the coefficient vector, ``min(k, t, p)``
        (``min(k, p)`` for the Hadamard method).
    k_ : int
        ``min(k, n_features)``.
    n_coordinates_ : int
        Length of the vector users report.
    users_per_coordinate_ : float
    n_samples_seen_ : int
        Reports the server aggregated (the valid ones of ``fit_reports``,
        every batch so far with ``partial_fit``).
    privacy_epsilon_, privacy_delta_ : float
    n_reports_rejected_ : int
        Reports the server's validation dropped (not finite, off the lattice
        or outside what an honest client can send); 0 after ``fit``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    sklearn_ldp.randomizers.or_polynomial : the OR approximation.
    sklearn_ldp.randomizers.HadamardMarginalRandomizer : the Hadamard users.
    KernelDensityLDP : the smooth-query counterpart (Algorithm 7).

    Notes
    -----
    Wang, Gaboardi, Smith and Xu, *Empirical Risk Minimization in the
    Non-interactive Local Model of Differential Privacy*, JMLR 21 (2020),
    section 6.1; Thaler, Ullman and Vadhan, *Faster algorithms for privately
    releasing marginals*, ICALP 2012; Cormode, Kulkarni and Srivastava,
    *Marginal release under local differential privacy*, SIGMOD 2018
    (the Hadamard method). Why Hadamard usually wins: both methods average
    ``G = sum_{m <= k} C(p, m)`` numbers, one per user. A Chebyshev cell is
    an inclusion-exclusion sum of conjunction means with weights ``+-1``
    (squared weights summing to ``3^u - 1`` over a ``u``-way table); a
    Hadamard cell is ``2^-u`` times a signed sum of parities (squares
    summing to ``1 - 2^-u``), whose values span ``[-1, 1]`` (4 times the
    variance of a bit at equal epsilon). At equal mechanism noise the
    Hadamard table is ``(3^u - 1) / (4 (1 - 2^-u))`` times less noisy: equal
    at ``u = 1``, 8/3 at ``u = 2``, 7.4 at ``u = 3``.
    :func:`~sklearn_ldp.aggregation.predicted_table_error` gives both
    predictions. Usable regime: the sampled scheme
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
    >>> est.method_
    'hadamard'
    >>> est.marginal_table([0, 5]).round(2)  # true: [[0.09, 0.81], [0.01, 0.09]]
    array([[0.09, 0.81],
           [0.  , 0.09]])
    >>> round(est.disjunction([0, 1]), 2)  # true fraction: 0.37
    0.36
    >>> X_test = (rng.uniform(size=(10_000, 6)) < [0.1, 0.3, 0.5, 0.5, 0.7, 0.9]).astype(int)
    >>> est.score(X_test) > -1e-3  # minus the mean squared error per cell
    True
    """

    _parameter_constraints = {
        **LDPUnsupervisedMixin._ldp_parameter_constraints,
        "k": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, 1, closed="left")],
        "coefficients": [StrOptions(set(COEFFICIENTS))],
        "mechanism": [StrOptions(set(VECTOR_MECHANISMS))],
        "binarize": [Real, None],
        "method": [StrOptions({"auto", *METHODS})],
        "projection": [StrOptions({"simplex"}), None],
    }

    # 0/1 records may stay integers (binarized without a float copy).
    _records_dtype = "numeric"
    _server_draws = False  # the server is deterministic given the reports

    def __init__(
        self,
        *,
        epsilon=1.0,
        k=3,
        method="auto",
        gamma=0.2,
        coefficients="multilinear",
        mechanism="piecewise",
        binarize=0.0,
        projection="simplex",
        random_state=None,
    ):
        self.epsilon = epsilon
        self.k = k
        self.method = method
        self.gamma = gamma
        self.coefficients = coefficients
        self.mechanism = mechanism
        self.binarize = binarize
        self.projection = projection
        self.random_state = random_state

    def _make_randomizer(self, n_features, n_users, classes):
        self._validate_params()
        if self.method != "auto":
            return self._build_randomizer(n_features, self.method)
        return self._auto_randomizer(n_features, n_users)

    def _build_randomizer(self, n_features, method):
        """The users' randomizer of ``method`` (parameters validated by the caller)."""
        if method == "hadamard":
            return HadamardMarginalRandomizer(
                n_features, epsilon=self.epsilon, k=self.k, binarize=self.binarize
            )
        return MarginalRandomizer(
            n_features,
            epsilon=self.epsilon,
            k=self.k,
            gamma=self.gamma,
            coefficients=self.coefficients,
            mechanism=self.mechanism,
            binarize=self.binarize,
        )

    def _auto_randomizer(self, n_features, n_users):
        """``method='auto'``: the randomizer with the lower predicted k-way error."""
        candidates, errors = {}, {}
        for method in METHODS:
            try:
                candidates[method] = self._build_randomizer(n_features, method)
            except ValueError as error:
                errors[method] = error
        if not candidates:
            raise errors["chebyshev"]
        if len(candidates) == 1:
            return next(iter(candidates.values()))
        chebyshev = candidates["chebyshev"]
        exact = chebyshev.polynomial.uniform_error == 0.0
        if n_users is None and not exact:
            raise ValueError(
                "method='auto' compares the Chebyshev method's bias (gamma > 0, k = "
                f"{chebyshev.k_effective}) with the noise of both, which depends on "
                "the number of users: pass make_randomizer(n_features, n_users=...), "
                "or set method='chebyshev' or 'hadamard'."
            )
        n = 1 if n_users is None else max(int(n_users), 1)
        predicted = {
            method: sum(predicted_table_error(randomizer, n))
            for method, randomizer in candidates.items()
        }
        # Ties (k = 1 with mechanism='duchi': the same protocol) go to Hadamard.
        best = min(("hadamard", "chebyshev"), key=lambda m: predicted[m])
        return candidates[best]

    def _expected_randomizer(self, reports):
        return self._announced_randomizer(reports.config)

    def _announced_randomizer(self, config):
        # method='auto' was resolved before the users replied: read it back.
        method = self.method
        if method == "auto":
            method = _RANDOMIZER_METHODS.get(config.get("randomizer"), "chebyshev")
        return self._build_randomizer(config.get("n_features"), method)

    def _check_records(self, X):
        if self.binarize is None:  # a threshold binarizes every record
            binarize_records(X, None)

    def _server_aggregate(self, config):
        """Per coordinate of the users' vector: reports and the sum of their estimates."""
        return VectorMeanSums(self._announced_randomizer(config))

    def _fit_server_aggregate(self, aggregate, config, rng):
        randomizer = aggregate.randomizer
        n_users = aggregate.n_reports
        hadamard = isinstance(randomizer, HadamardMarginalRandomizer)
        warn_few_users(
            n_users,
            randomizer.n_groups,
            cells="coordinates in the users' vector",
            advice=(
                "Their marginals are uninformative: lower k, "
                + ("" if hadamard else "raise gamma, ")
                + "use fewer features, or collect more users."
            ),
        )
        index = SubsetIndex(randomizer.n_features, randomizer.order)
        mean = aggregate.mean()
        if not hadamard and randomizer.coefficients == "monomial":
            mean = fold_monomial_means(mean, randomizer.support, index)
        self.method_ = "hadamard" if hadamard else "chebyshev"
        self.coefficients_ = mean
        self.polynomial_ = None if hadamard else randomizer.polynomial
        self.order_ = randomizer.order
        self.k_ = randomizer.k_effective
        self.n_coordinates_ = randomizer.n_coordinates
        self.users_per_coordinate_ = n_users / randomizer.n_groups
        self.n_samples_seen_ = int(n_users)
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
        return self._tables(subsets)

    def _tables(self, subsets):
        """Tables of validated subsets, projected when ``projection='simplex'``."""
        if self.method_ == "hadamard":
            tables = parity_marginal_tables(self.coefficients_, self._index, subsets)
        else:
            tables = marginal_tables(self.coefficients_, self._index, subsets)
        if self.projection == "simplex":
            tables = project_tables_to_simplex(tables)
        return tables

    def marginal_table(self, features):
        """All ``2^u`` cells of the marginal of a feature subset.

        Parameters
        ----------
        features : array-like of int, of length ``u <= k``

        Returns
        -------
        table : ndarray of shape (2,) * u
            ``table[b_0, ..., b_{u-1}]``: estimated fraction of users with
            ``x[features[j]] = b_j``. The cells sum to 1; with
            ``projection='simplex'`` (the default) they lie in ``[0, 1]``;
            with ``projection=None`` they are unbiased (for ``gamma = 0``)
            and a cell may be slightly negative.
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

        ``1 - P(x_V = 0)`` from the marginal table of ``V``: for the
        Chebyshev method with ``projection=None`` this is the averaged
        polynomial evaluated at the query's indicator vector (seed 001,
        Algorithm 6, line 8).

        Parameters
        ----------
        features : array-like of int, of length at most ``k``

        Returns
        -------
        fraction : float
        """
        features = np.sort(self._check_features(features))
        table = self._tables(features[None, :])[0]
        return float(1.0 - table[(0,) * features.size])

    def score(self, X, y=None):
        """Negative mean squared error of the k-way tables on held-out records.

        Every table of ``k_`` features (all ``C(p, k_)`` subsets, as
        returned by :meth:`marginal_tables`) against the empirical table of
        the held-out records ``X`` (binarized with the same public
        threshold); the mean over all cells, negated so that higher is
        better. Why this criterion: for held-out records drawn independently
        of the fitted ones, the empirical table is unbiased for the
        population table, so the expected score is minus the squared error
        to the population plus a constant (the held-out sampling variance)
        that is the same for every model: comparing scores compares errors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Held-out records.
        y : Ignored

        Returns
        -------
        score : float
            ``-mean((estimated - empirical)^2)`` over every cell of every
            ``k_``-way table (at most 0).
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        bits = binarize_records(X, self.binarize)
        squared, cells = 0.0, 0
        subsets = combinations(range(self.n_features_in_), self.k_)
        while True:
            chunk = np.array(list(islice(subsets, _SCORE_TABLES)), dtype=np.int64)
            if chunk.size == 0:
                break
            error = self._tables(chunk) - empirical_marginal_tables(bits, chunk)
            squared += float(np.sum(error**2))
            cells += error.size
        return -squared / cells

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


__all__ = ["KWayMarginalsLDP"]
