"""k-way marginals of binary data under non-interactive LDP (local Chebyshev mechanism).

Seed 001 (Wang, Gaboardi, Smith, Xu, JMLR 2020), section 6.1, Algorithm 6;
ALGORITHMS.md section 6. A monotone disjunction ``q_y(x) = OR_j y_j x_j``
with ``|y| <= k`` equals ``1[s >= 1]`` for ``s = sum_j y_j x_j in {0..k}``;
with the Thaler-Ullman-Vadhan polynomial ``p`` (:func:`or_polynomial`,
``p(0) = 0``, ``|p(s) - 1| <= gamma`` on ``1..k``) each user's
``q_x(y) = p(sum_j y_j x_j)`` is a p-variate polynomial in ``y`` whose
coefficient vector the users average with LDP-AVG; the server evaluates the
averaged polynomial at any ``y`` (every disjunction of at most ``k``
features, all from one collection) and turns disjunctions into marginals by
inclusion-exclusion.

Two coefficient vectors:

* ``coefficients='multilinear'`` (default): on binary ``y`` the polynomial
  reduces (``y_j^2 = y_j``, exact on the query domain) to
  ``sum_S w_|S| 1[S subset of x] prod_{j in S} y_j`` over subsets of size
  ``1..min(k, t)`` (``w_m`` the Newton coefficients of ``p``); its entries
  are the conjunctions ``1[S subset of x]`` times public weights.
* ``coefficients='monomial'`` (the printed vector): all
  ``C(p + t, t)`` monomials ``y^alpha`` of degree at most ``t``, entry
  ``c_|alpha| multinomial(alpha) x^alpha``. Each support ``S`` appears many
  times, so the vector is much longer for the same information.
"""

import warnings
from itertools import combinations, combinations_with_replacement
from math import comb, factorial
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import LDPEstimatorMixin
from .aggregation import or_polynomial
from .randomizers._ldp_avg import (
    MAX_COORDINATES,
    VECTOR_MECHANISMS,
    VectorAverageRandomizer,
)
from .utils import check_noise_random_state

COEFFICIENTS = ("multilinear", "monomial")
#: Largest number of features of one marginal table (the server's transforms
#: are ``O(u 2^u)`` per table).
MAX_TABLE_FEATURES = 16


def binomial_table(n, r):
    """``B[a, b] = C(a, b)`` for ``a <= n``, ``b <= r`` (int64)."""
    table = np.zeros((n + 1, r + 1), dtype=np.int64)
    for a in range(n + 1):
        for b in range(min(a, r) + 1):
            table[a, b] = comb(a, b)
    return table


class SubsetIndex:
    """Colexicographic numbering of the subsets of ``{0..p-1}`` of size ``1..order``.

    Subsets of size ``m`` occupy ``[offset[m], offset[m] + C(p, m))``; inside,
    a sorted subset ``s_1 < ... < s_m`` has rank ``sum_i C(s_i, i)``
    (the combinatorial number system), so indices are computed, not looked up.
    """

    def __init__(self, n_features, order):
        self.n_features, self.order = int(n_features), int(order)
        self.binomial = binomial_table(self.n_features, self.order)
        sizes = [comb(self.n_features, m) for m in range(self.order + 1)]
        self.offset = np.concatenate([[0, 0], np.cumsum(sizes[1:])]).astype(np.int64)
        self.size = int(self.offset[-1])

    @staticmethod
    def count(n_features, order):
        return sum(comb(n_features, m) for m in range(1, order + 1))

    def index(self, subsets):
        """Indices of sorted subsets, an int array ``(..., m)`` (all of size ``m``)."""
        subsets = np.asarray(subsets, dtype=np.int64)
        m = subsets.shape[-1]
        ranks = np.zeros(subsets.shape[:-1], dtype=np.int64)
        for i in range(m):
            ranks += self.binomial[subsets[..., i], i + 1]
        return self.offset[m] + ranks

    def table(self):
        """Every subset, padded with ``n_features``: int array ``(size, order)``.

        Row ``index(S)`` holds ``S``.
        """
        out = np.full((self.size, self.order), self.n_features, dtype=np.int64)
        for m in range(1, self.order + 1):
            subsets = np.array(
                list(combinations(range(self.n_features), m)), dtype=np.int64
            )
            out[self.index(subsets), :m] = subsets
        return out

    def sizes(self):
        """Size of the subset at every index."""
        return np.repeat(
            np.arange(1, self.order + 1), np.diff(self.offset[1:]).astype(np.int64)
        )


def monomial_exponents(n_features, degree):
    """Supports and coefficients' multinomial factors of all ``y^alpha``, ``|alpha| <= t``.

    Returns ``(support, total_degree, multinomial)``: ``support`` is
    ``(C(p + t, t), t)`` padded with ``n_features``; ``multinomial[alpha] =
    |alpha|! / prod_j alpha_j!``, the coefficient of ``y^alpha`` in
    ``(sum_j x_j y_j)^|alpha|`` for binary ``x`` with ``x^alpha = 1``.
    """
    rows, degrees, factors = [], [], []
    for total in range(degree + 1):
        for multiset in combinations_with_replacement(range(n_features), total):
            values, counts = np.unique(
                np.array(multiset, dtype=np.int64), return_counts=True
            )
            row = np.full(max(degree, 1), n_features, dtype=np.int64)
            row[: values.size] = values
            rows.append(row)
            degrees.append(total)
            factors.append(
                factorial(total) / float(np.prod([factorial(c) for c in counts]))
            )
    return np.array(rows), np.array(degrees), np.array(factors)


def _validate_binary(X, binarize):
    """The users' binary records: ``X > binarize``, or ``X`` itself if it is 0/1."""
    if binarize is None:
        if not np.all((X == 0) | (X == 1)):
            raise ValueError(
                "KWayMarginalsLDP needs binary records (every entry 0 or 1) when "
                "binarize=None; got other values. Binarize the data with a public "
                "threshold (binarize=t maps x > t to 1)."
            )
        return X.astype(bool)
    return X > binarize


class MarginalRandomizer(VectorAverageRandomizer):
    """Client side of the local Chebyshev mechanism (seed 001, Algorithm 6).

    Each user binarizes its record with the public threshold, forms the
    coefficient vector of ``q_x(y) = p(sum_j y_j x_j)`` (multilinear or
    monomial, see :mod:`sklearn_ldp._marginals`) and releases it through
    LDP-AVG (:class:`~sklearn_ldp.randomizers._ldp_avg.VectorAverageRandomizer`).

    Guarantee: each user's record is epsilon-LDP. Entry ``j`` is
    ``scale_j u_j(x)`` with ``u_j = 1[support_j subset of x] in {0, 1}`` and
    a public ``scale_j`` (``w_|S|`` or ``c_|alpha| multinomial(alpha)``).
    The sampled scheme releases one ``u_j`` (range 1) with the full epsilon;
    the full vector releases all entries with ``Lap(d b / epsilon)``,
    ``b = max_j |scale_j|`` (the printed ``b``, the widest entry range), l1
    sensitivity at most ``d b``.

    Parameters
    ----------
    n_features : int
    epsilon : float
    k : int
        Largest number of features in a query.
    gamma : float
        Uniform error of the OR polynomial (0: exact inclusion-exclusion).
    coefficients : {'multilinear', 'monomial'}
    mechanism : {'piecewise', 'duchi', 'laplace', 'full_vector'}
    binarize : float or None
        Public threshold: the user's bit ``j`` is ``x_j > binarize``; None
        requires 0/1 records.
    public_seed : int or None
        Seed of the public partition (sampled scheme).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp._marginals import MarginalRandomizer
    >>> rand = MarginalRandomizer(4, epsilon=1.0, k=2, gamma=0.0)
    >>> rand.n_coordinates
    10
    >>> rand.randomize(np.eye(4), random_state=0).as_matrix().shape
    (4, 2)
    """

    def __init__(
        self,
        n_features,
        *,
        epsilon,
        k,
        gamma=0.0,
        coefficients="multilinear",
        mechanism="piecewise",
        binarize=0.0,
        public_seed=None,
    ):
        self.n_features = int(n_features)
        if self.n_features < 1:
            raise ValueError(f"n_features must be >= 1, got {n_features}.")
        self._init_mechanism(epsilon, mechanism, public_seed)
        if isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
            raise ValueError(f"k must be an integer >= 1, got {k!r}.")
        self.k = int(k)
        self.k_effective = min(self.k, self.n_features)
        self.polynomial = or_polynomial(self.k_effective, gamma)
        self.gamma = float(gamma)
        if coefficients not in COEFFICIENTS:
            raise ValueError(
                f"coefficients must be one of {COEFFICIENTS}, got {coefficients!r}."
            )
        self.coefficients = coefficients
        self.binarize = None if binarize is None else float(binarize)
        self.degree = self.polynomial.degree
        # Monomials of the multilinear form above size min(k, t) never matter.
        self.order = min(self.k_effective, self.degree)
        self.unit_interval = (0.0, 1.0)
        if coefficients == "multilinear":
            self.n_coordinates = SubsetIndex.count(self.n_features, self.order)
            self._check_size()
            index = SubsetIndex(self.n_features, self.order)
            self.support = index.table()
            self.coordinate_scale = self.polynomial.newton[index.sizes()]
        else:
            self.n_coordinates = comb(self.n_features + self.degree, self.degree)
            self._check_size()
            self.support, self.monomial_degree, multinomial = monomial_exponents(
                self.n_features, self.degree
            )
            coef = np.zeros(self.degree + 1)
            coef[: self.polynomial.coef.size] = self.polynomial.coef
            self.coordinate_scale = coef[self.monomial_degree] * multinomial

    def _size_advice(self):
        if self.coefficients == "monomial":
            return (
                f"the printed monomial vector has C(p + t, t) = C({self.n_features} + "
                f"{self.degree}, {self.degree}) entries. Use coefficients='multilinear' "
                "(sum_{m <= min(k, t)} C(p, m) entries), a smaller k, or fewer features."
            )
        return (
            f"sum_(m <= {self.order}) C({self.n_features}, m) subsets. Lower k (or "
            "raise gamma, which lowers the degree t), or use fewer features."
        )

    def _config(self):
        return {
            "k": self.k,
            "gamma": self.gamma,
            "coefficients": self.coefficients,
            "binarize": self.binarize,
            **self._mechanism_config(),
        }

    def _prepare(self, X):
        bits = _validate_binary(X, self.binarize)
        # A column of ones pads supports shorter than the table width.
        return np.hstack([bits, np.ones((bits.shape[0], 1), dtype=bool)])

    def _unit_values(self, bits, coordinates):
        rows = np.arange(bits.shape[0])[:, None]
        return bits[rows, self.support[coordinates]].all(axis=1).astype(float)

    def _unit_vector(self, bits):
        return bits[:, self.support].all(axis=2).astype(float)

    def multilinear_mean(self, reports):
        """Server: the averaged multilinear coefficients over subsets of size ``1..order``.

        ``w_|S|`` times the estimated fraction of users with every feature of
        ``S`` set. For the monomial vector, every monomial's estimate is added
        to its support (``sum_{alpha: supp alpha = S} c_|alpha|
        multinomial(alpha) = w_|S|``, so the sum estimates the same thing).
        """
        mean, counts = self.estimate_mean(reports)
        if self.coefficients == "multilinear":
            return mean, counts
        index = SubsetIndex(self.n_features, self.order)
        sizes = (self.support < self.n_features).sum(axis=1)
        keep = (sizes >= 1) & (sizes <= self.order)
        target = np.empty(keep.sum(), dtype=np.int64)
        supports = self.support[keep]
        for m in range(1, self.order + 1):
            rows = sizes[keep] == m
            target[rows] = index.index(supports[rows, :m])
        folded = np.bincount(target, weights=mean[keep], minlength=index.size)
        folded_counts = np.full(index.size, int(counts.min()) if counts.size else 0)
        return folded, folded_counts


def _subset_sum(values):
    """Zeta transform over the last axis (length ``2^u``): ``f(V) = sum_{S subset V} g(S)``."""
    values = values.copy()
    u = int(np.log2(values.shape[-1]))
    masks = np.arange(values.shape[-1])
    for bit in range(u):
        with_bit = masks[(masks >> bit) & 1 == 1]
        values[..., with_bit] += values[..., with_bit ^ (1 << bit)]
    return values


def _superset_mobius(values):
    """``mu(B) = sum_{V superset B} (-1)^|V \\ B| h(V)`` over the last axis."""
    values = values.copy()
    u = int(np.log2(values.shape[-1]))
    masks = np.arange(values.shape[-1])
    for bit in range(u):
        without = masks[(masks >> bit) & 1 == 0]
        values[..., without] -= values[..., without | (1 << bit)]
    return values


def disjunction_tables(coefficients, index, subsets):
    """Estimated disjunctions ``OR_{j in V} x_j`` for every ``V`` inside each subset.

    Parameters
    ----------
    coefficients : ndarray of shape (index.size,)
        Averaged multilinear coefficients (``w_|S|`` times conjunctions).
    index : SubsetIndex
    subsets : int array of shape (m, u)
        Sorted feature subsets.

    Returns
    -------
    tables : ndarray of shape (m, 2^u)
        ``tables[:, mask]`` answers the disjunction of the features whose bit
        is set in ``mask`` (bit ``i`` is ``subsets[:, i]``): the averaged
        polynomial evaluated at that ``y``, ``sum_{S subset V} coef_S``.
    """
    m, u = subsets.shape
    terms = np.zeros((m, 2**u))
    for mask in range(1, 2**u):
        positions = [i for i in range(u) if (mask >> i) & 1]
        if len(positions) > index.order:
            continue  # w_|S| = 0 beyond the polynomial's degree
        terms[:, mask] = coefficients[index.index(subsets[:, positions])]
    return _subset_sum(terms)


def marginal_tables_from_disjunctions(disjunctions):
    """Marginal tables from disjunction tables (inclusion-exclusion).

    ``P(x_V = 0) = 1 - OR_V`` and
    ``P(x_A = 1, x_B = 0) = sum_{V superset B} (-1)^|V \\ B| P(x_V = 0)``
    (``B = U \\ A``); the returned ``(m, 2^u)`` array is indexed by the mask
    of ``A`` (bit ``i`` set: feature ``i`` of the subset is 1).
    """
    zeros = 1.0 - disjunctions
    mobius = _superset_mobius(zeros)
    full = disjunctions.shape[-1] - 1
    return mobius[..., full ^ np.arange(disjunctions.shape[-1])]


def _mask_table_to_array(table, u):
    """``(..., 2^u)`` indexed by mask -> ``(..., 2, ..., 2)`` with axis ``i`` = bit ``i``."""
    shaped = table.reshape(table.shape[:-1] + (2,) * u)
    lead = table.ndim - 1
    axes = list(range(lead)) + [lead + u - 1 - i for i in range(u)]
    return shaped.transpose(axes)


class KWayMarginalsLDP(LDPEstimatorMixin, BaseEstimator):
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
        (Thaler-Ullman-Vadhan, :func:`~sklearn_ldp.aggregation.or_polynomial`).
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
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    sklearn_ldp.aggregation.or_polynomial : the OR approximation.
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
    >>> est.marginal_table([0, 5]).round(2)  # rows: x_0 = 0/1; columns: x_5 = 0/1
    array([[0.09, 0.81],
           [0.01, 0.08]])
    >>> round(est.disjunction([0, 1]), 2)  # true fraction: 0.37
    0.37
    """

    _parameter_constraints = {
        **LDPEstimatorMixin._ldp_parameter_constraints,
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

    def make_randomizer(self, n_features, *, public_seed=None):
        """The users' randomizer (public configuration).

        Parameters
        ----------
        n_features : int
        public_seed : int or None, default=None
            Seed of the public partition; drawn in ``randomize`` when None.

        Returns
        -------
        randomizer : MarginalRandomizer
        """
        self._validate_params()
        return MarginalRandomizer(
            n_features,
            epsilon=self.epsilon,
            k=self.k,
            gamma=self.gamma,
            coefficients=self.coefficients,
            mechanism=self.mechanism,
            binarize=self.binarize,
            public_seed=public_seed,
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Simulate the users' randomizers on ``X``, then fit the server.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            One record per user: binary, or binarized with ``binarize``.
        y : Ignored

        Returns
        -------
        self : object
        """
        X = validate_data(self, X, dtype=np.float64)
        _validate_binary(X, self.binarize)
        rng = check_noise_random_state(self.random_state)
        randomizer = self.make_randomizer(X.shape[1])
        reports = randomizer.randomize(X, random_state=rng)
        return self._fit_from_reports(reports, rng)

    def _fit_server(self, reports, rng):
        config = reports.config
        randomizer = self.make_randomizer(
            config["n_features"], public_seed=config["public_seed"]
        )
        n_users, d = len(reports), randomizer.n_coordinates
        if n_users < d and randomizer.mechanism != "full_vector":
            warnings.warn(
                f"The users' vector has {d} coordinates but there are only {n_users} "
                f"users, so {d - n_users} coordinates have no report and their "
                "marginals are uninformative. Lower k, raise gamma, use fewer "
                "features, or collect more users.",
                UserWarning,
                stacklevel=3,
            )
        coefficients, counts = randomizer.multilinear_mean(reports)
        self.coefficients_ = coefficients
        self.polynomial_ = randomizer.polynomial
        self.order_ = randomizer.order
        self.k_ = randomizer.k_effective
        self.n_coordinates_ = d
        self.users_per_coordinate_ = (
            n_users / d if randomizer.mechanism != "full_vector" else float(n_users)
        )
        self._index = SubsetIndex(randomizer.n_features, randomizer.order)
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
        u = subsets.shape[1]
        # Work on sorted subsets, then permute the table axes back.
        tables = marginal_tables_from_disjunctions(
            disjunction_tables(self.coefficients_, self._index, sorted_subsets)
        )
        arrays = _mask_table_to_array(tables, u)
        order = np.argsort(subsets, axis=1)
        if np.all(order == np.arange(u)):
            return arrays
        out = np.empty_like(arrays)
        for i in range(subsets.shape[0]):
            # Axis j of the sorted table is feature sorted_subsets[i, j] =
            # subsets[i, order[i, j]]; bring it to position order[i, j].
            out[i] = np.moveaxis(arrays[i], list(range(u)), list(order[i]))
        return out

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


__all__ = ["KWayMarginalsLDP", "MarginalRandomizer", "MAX_COORDINATES"]
