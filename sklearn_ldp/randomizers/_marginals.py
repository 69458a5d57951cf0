"""Client side of the local Chebyshev mechanism (k-way marginals of binary data).

Seed 001 (Wang, Gaboardi, Smith, Xu, JMLR 2020), section 6.1, Algorithm 6.
A monotone disjunction ``q_y(x) = OR_j y_j x_j`` with ``|y| <= k`` equals
``1[s >= 1]`` for ``s = sum_j y_j x_j in {0..k}``; with the
Thaler-Ullman-Vadhan polynomial ``p`` (:func:`or_polynomial`) each user's
``q_x(y) = p(sum_j y_j x_j)`` is a p-variate polynomial in ``y`` whose
coefficient vector the users average with LDP-AVG
(:class:`~sklearn_ldp.randomizers.VectorAverageRandomizer`). Two vectors:

* ``coefficients='multilinear'`` (default): on binary ``y`` the polynomial
  reduces (``y_j^2 = y_j``, exact on the query domain) to
  ``sum_S w_|S| 1[S subset of x] prod_{j in S} y_j`` over subsets of size
  ``1..min(k, t)`` (``w_m`` the Newton coefficients of ``p``); its entries
  are the conjunctions ``1[S subset of x]`` times public weights, numbered
  by :class:`SubsetIndex`.
* ``coefficients='monomial'`` (the printed vector): all ``C(p + t, t)``
  monomials ``y^alpha`` of degree at most ``t``, entry
  ``c_|alpha| multinomial(alpha) x^alpha`` (:func:`monomial_exponents`).

The server's side (disjunction and marginal tables) is in
:mod:`sklearn_ldp.aggregation`.
"""

import math
from itertools import combinations, combinations_with_replacement
from math import comb, factorial
from numbers import Integral

import numpy as np

from ..utils import check_epsilon
from ._chebyshev_or import or_polynomial
from ._ldp_avg import VectorAverageRandomizer

COEFFICIENTS = ("multilinear", "monomial")

#: Largest epsilon handed to a scalar mechanism. Every one caps itself well
#: below (Duchi at about 36.0, piecewise 56.1, Laplace 20.4: beyond, the
#: 64-bit coins cannot be biased further); above ~709 their set-up overflows.
#: Running at a smaller epsilon than asked is always allowed, and the
#: randomizer's ``epsilon`` reports what is provided.
MAX_MECHANISM_EPSILON = 100.0
#: Smallest epsilon per value each sampled mechanism supports (below,
#: piecewise's lattice scale overflows; Laplace refuses below about 4.2e-5
#: with its own message).
MIN_MECHANISM_EPSILON = {"piecewise": 1e-8, "duchi": 0.0, "laplace": 0.0}


def mechanism_epsilon(epsilon, mechanism):
    """The epsilon a marginals randomizer gives its scalar mechanism.

    ``min(epsilon, MAX_MECHANISM_EPSILON)``; a ValueError naming epsilon and
    the usable range when the mechanism cannot run that small.
    """
    epsilon = check_epsilon(epsilon)
    low = MIN_MECHANISM_EPSILON.get(mechanism, 0.0)
    if epsilon < low:
        raise ValueError(
            f"epsilon = {epsilon:g} is below what mechanism={mechanism!r} supports: "
            f"the usable range is epsilon >= {low:g} (any larger epsilon works; "
            f"above {MAX_MECHANISM_EPSILON:g} the guarantee provided is capped). "
            "Use mechanism='duchi' or the Hadamard method for smaller epsilon."
        )
    return min(epsilon, MAX_MECHANISM_EPSILON)


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

    Examples
    --------
    >>> from sklearn_ldp.randomizers import SubsetIndex
    >>> index = SubsetIndex(4, 2)
    >>> index.size, int(index.index([0, 1])), index.table()[4].tolist()
    (10, 4, [0, 1])
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


def binarize_records(X, binarize):
    """The users' binary records: ``X > binarize``, or ``X`` itself if it is 0/1.

    ``binarize=None`` refuses records with an entry other than 0 or 1.
    Integer records are compared in their own type (``x > t`` exactly when
    ``x > floor(t)``), without a float copy.
    """
    if binarize is not None and X.dtype.kind in "biu":
        return np.greater(X, math.floor(binarize))
    if binarize is None:
        if not np.all((X == 0) | (X == 1)):
            raise ValueError(
                "KWayMarginalsLDP needs binary records (every entry 0 or 1) when "
                "binarize=None; got other values. Binarize the data with a public "
                "threshold (binarize=t maps x > t to 1)."
            )
        return X.astype(bool)
    return X > binarize


class BinaryRecordsMixin:
    """Records checked without a float copy when they are integers (0/1 bits)."""

    keep_integer_records = True


class MarginalRandomizer(BinaryRecordsMixin, VectorAverageRandomizer):
    """Client side of the local Chebyshev mechanism (seed 001, Algorithm 6).

    Each user binarizes its record with the public threshold, forms the
    coefficient vector of ``q_x(y) = p(sum_j y_j x_j)`` (multilinear or
    monomial, see :mod:`sklearn_ldp.randomizers._marginals`) and releases it
    through LDP-AVG (:class:`~sklearn_ldp.randomizers.VectorAverageRandomizer`).

    Guarantee: each user's record is epsilon-LDP. Entry ``j`` is
    ``scale_j u_j(x)`` with ``u_j = 1[support_j subset of x] in {0, 1}`` and
    a public ``scale_j`` (``w_|S|`` or ``c_|alpha| multinomial(alpha)``).
    The sampled scheme releases one ``u_j`` (range 1) with the full epsilon;
    the full vector releases every ``u_j`` with the discrete Laplace of
    scale ``d / epsilon`` (``d`` releases at ``epsilon / d``), so entry ``j``
    has noise of scale ``|scale_j| d / epsilon``, at most the printed
    ``d b / epsilon`` (``b = max_j |scale_j|``, the widest entry range).
    Reports are unit values on the mechanism's lattice (bits need no
    rounding); the server multiplies by ``scale_j``.
    An epsilon above 100 is run at 100 (each scalar mechanism then caps
    itself lower): ``epsilon`` is the guarantee actually provided.

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

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import MarginalRandomizer
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
    ):
        self.n_features = int(n_features)
        if self.n_features < 1:
            raise ValueError(f"n_features must be >= 1, got {n_features}.")
        self._init_mechanism(mechanism_epsilon(epsilon, mechanism), mechanism)
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
        self._build_mechanism()

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
        bits = binarize_records(X, self.binarize)
        # A column of ones pads supports shorter than the table width.
        return np.hstack([bits, np.ones((bits.shape[0], 1), dtype=bool)])

    def _unit_values(self, bits, coordinates):
        rows = np.arange(bits.shape[0])[:, None]
        return bits[rows, self.support[coordinates]].all(axis=1).astype(float)

    def _unit_vector(self, bits):
        return bits[:, self.support].all(axis=2).astype(float)
