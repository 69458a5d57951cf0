"""Server side of the local Chebyshev mechanism: disjunctions and marginal tables.

The users of :class:`~sklearn_ldp.KWayMarginalsLDP` average the
coefficients of ``p(sum_j x_j y_j)`` (seed 001, section 6.1, Algorithm 6;
:class:`~sklearn_ldp.randomizers.MarginalRandomizer`). The averaged
multilinear coefficients, one per feature subset ``S`` of size
``1..order`` (numbered by :class:`~sklearn_ldp.randomizers.SubsetIndex`),
are ``w_|S|`` times the fraction of users with every feature of ``S`` set.
Evaluated at the indicator vector of ``V`` they answer the disjunction
``OR_{j in V} x_j`` (a zeta transform over subsets); inclusion-exclusion (a
Mobius transform over supersets) turns disjunctions into marginal tables.
Everything here is post-processing of the averaged vector.

The Hadamard input perturbation (Cormode, Kulkarni and Srivastava, SIGMOD
2018; :class:`~sklearn_ldp.randomizers.HadamardMarginalRandomizer`) averages
parities ``chi_S(x) = (-1)^(sum_{j in S} x_j)`` instead; a marginal table is
the Walsh-Hadamard transform of its ``2^u`` coefficients
(:func:`parity_marginal_tables`). The predicted errors of both methods
(:func:`predicted_table_error`) drive ``method='auto'``.
"""

from math import comb

import numpy as np

from ..randomizers import SubsetIndex
from ._frequency import fast_walsh_hadamard

#: Numbers one chunk of :func:`empirical_marginal_tables` holds.
_CHUNK_VALUES = 2**22


def fold_monomial_means(mean, support, index):
    """Averaged multilinear coefficients from the averaged monomial vector.

    Every monomial's estimate is added to its support: ``sum_{alpha: supp
    alpha = S} c_|alpha| multinomial(alpha) = w_|S|``, so the sum estimates
    the same thing as the multilinear entry of ``S``. Monomials of support
    size 0 or above ``index.order`` are dropped (``w`` vanishes there).

    Parameters
    ----------
    mean : ndarray of shape (n_monomials,)
    support : int array of shape (n_monomials, t)
        Supports padded with ``n_features``
        (:func:`~sklearn_ldp.randomizers.monomial_exponents`).
    index : SubsetIndex

    Returns
    -------
    coefficients : ndarray of shape (index.size,)
    """
    sizes = (support < index.n_features).sum(axis=1)
    keep = (sizes >= 1) & (sizes <= index.order)
    target = np.empty(keep.sum(), dtype=np.int64)
    supports = support[keep]
    for m in range(1, index.order + 1):
        rows = sizes[keep] == m
        target[rows] = index.index(supports[rows, :m])
    return np.bincount(target, weights=mean[keep], minlength=index.size)


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


def marginal_tables(coefficients, index, subsets):
    """Marginal tables of feature subsets of one size, axes in the given feature order.

    Parameters
    ----------
    coefficients : ndarray of shape (index.size,)
        Averaged multilinear coefficients.
    index : SubsetIndex
    subsets : int array of shape (m, u)
        Feature subsets (distinct features each, any order, ``u <=
        index.order`` for unbiased cells).

    Returns
    -------
    tables : ndarray of shape (m, 2, ..., 2)
        ``tables[i, b_0, ..., b_{u-1}]`` is the estimated fraction of users
        with ``x[subsets[i, j]] = b_j`` for every ``j``; the cells of a
        table sum to 1.
    """
    subsets = np.asarray(subsets, dtype=np.int64)
    sorted_subsets = np.sort(subsets, axis=1)
    # Work on sorted subsets, then permute the table axes back.
    tables = marginal_tables_from_disjunctions(
        disjunction_tables(coefficients, index, sorted_subsets)
    )
    return _in_feature_order(tables, subsets)


def _in_feature_order(tables, subsets):
    """Mask tables of the sorted subsets -> arrays with axis ``j`` = ``subsets[:, j]``."""
    u = subsets.shape[1]
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


# ----------------------------------------------------------- Hadamard method
def parity_marginal_tables(coefficients, index, subsets):
    """Marginal tables from averaged parities (the Hadamard method's server).

    ``P(x_U = b) = 2^-u sum_{S subset U} (-1)^(sum_{j in S} b_j) theta_S``
    with ``theta_{} = 1``: cells sum to exactly 1, and each is unbiased when
    the ``theta_S`` are.

    Parameters
    ----------
    coefficients : ndarray of shape (index.size,)
        Estimated ``theta_S = mean_i chi_S(x_i)``, subsets in
        :class:`~sklearn_ldp.randomizers.SubsetIndex` order.
    index : SubsetIndex
    subsets : int array of shape (m, u)
        Feature subsets (distinct features each, any order, ``u <=
        index.order``).

    Returns
    -------
    tables : ndarray of shape (m, 2, ..., 2)
        ``tables[i, b_0, ..., b_{u-1}]``: the estimated fraction of users
        with ``x[subsets[i, j]] = b_j`` for every ``j``.
    """
    subsets = np.asarray(subsets, dtype=np.int64)
    m, u = subsets.shape
    if u > index.order:
        raise ValueError(
            f"The parities answer marginals of at most {index.order} features, "
            f"got {u}."
        )
    sorted_subsets = np.sort(subsets, axis=1)
    theta = np.ones((m, 2**u))
    for mask in range(1, 2**u):
        positions = [i for i in range(u) if (mask >> i) & 1]
        theta[:, mask] = coefficients[index.index(sorted_subsets[:, positions])]
    return _in_feature_order(fast_walsh_hadamard(theta) / 2**u, subsets)


# ------------------------------------------------------- post-processing
def project_tables_to_simplex(tables):
    """Euclidean projection of each table onto the probability simplex.

    Post-processing (no privacy cost). The projection onto a convex set that
    contains the true table is non-expansive, so the l2 error of every table
    never grows; the cells become non-negative and sum to 1. Tables are
    projected one by one, so two projected tables may disagree on a shared
    lower-order marginal (the raw estimates agree).

    Parameters
    ----------
    tables : ndarray of shape (m, 2, ..., 2)

    Returns
    -------
    projected : ndarray of the same shape

    Examples
    --------
    >>> from sklearn_ldp.aggregation import project_tables_to_simplex
    >>> project_tables_to_simplex(np.array([[1.2, -0.2]])).tolist()
    [[1.0, 0.0]]
    """
    tables = np.asarray(tables, dtype=float)
    flat = tables.reshape(tables.shape[0], -1)
    ordered = -np.sort(-flat, axis=1)
    cumulative = np.cumsum(ordered, axis=1) - 1.0
    ranks = np.arange(1, flat.shape[1] + 1)
    positive = ordered - cumulative / ranks > 0
    last = flat.shape[1] - 1 - np.argmax(positive[:, ::-1], axis=1)
    shift = cumulative[np.arange(flat.shape[0]), last] / (last + 1)
    return np.maximum(flat - shift[:, None], 0.0).reshape(tables.shape)


def empirical_marginal_tables(bits, subsets):
    """Exact marginal tables of binary records (held-out evaluation, not reports).

    Parameters
    ----------
    bits : bool or 0/1 array of shape (n, p)
    subsets : int array of shape (m, u)

    Returns
    -------
    tables : ndarray of shape (m, 2, ..., 2)
        ``tables[i, b_0, ..., b_{u-1}]``: fraction of rows with
        ``bits[:, subsets[i, j]] = b_j``. Rows are processed in chunks of
        subsets so that memory stays bounded.
    """
    bits = np.asarray(bits).astype(np.int64)
    subsets = np.asarray(subsets, dtype=np.int64)
    n, (m, u) = bits.shape[0], subsets.shape
    weights = 2 ** np.arange(u - 1, -1, -1)
    out = np.empty((m, 2**u))
    step = max(1, _CHUNK_VALUES // max(n * u, 1))
    for start in range(0, m, step):
        chunk = subsets[start : start + step]
        codes = bits[:, chunk] @ weights  # (n, chunk)
        codes += (np.arange(chunk.shape[0]) * 2**u)[None, :]
        counts = np.bincount(codes.ravel(), minlength=chunk.shape[0] * 2**u)
        out[start : start + chunk.shape[0]] = counts.reshape(-1, 2**u) / n
    return out.reshape((m,) + (2,) * u)


# ----------------------------------------------------- predicted errors
def _users_per_coordinate(randomizer, n_users):
    if randomizer.mechanism == "full_vector":
        return float(n_users)
    return n_users / randomizer.n_coordinates


def _chebyshev_coefficient_variance(randomizer, n_users):
    """Variance of each averaged multilinear coefficient under uniform records."""
    mechanism = randomizer.scalar_mechanism
    sizes = (randomizer.support < randomizer.n_features).sum(axis=1)
    p = 0.5**sizes  # P(S subset x) for uniform bits
    per_user = (
        p * mechanism.variance(np.ones(1))[0]
        + (1 - p) * mechanism.variance(np.zeros(1))[0]
        + p * (1 - p)
    )
    variance = randomizer.coordinate_scale**2 * per_user
    variance /= _users_per_coordinate(randomizer, n_users)
    index = SubsetIndex(randomizer.n_features, randomizer.order)
    if randomizer.coefficients == "monomial":
        # Folding sums independent monomial means: variances add.
        variance = fold_monomial_means(variance, randomizer.support, index)
    return variance, index


def predicted_table_error(randomizer, n_users, u=None):
    """Predicted error of one ``u``-way marginal table: ``(variance, squared_bias)``.

    Both are sums over the ``2^u`` cells, for ``n_users`` users whose
    records are uniform on ``{0, 1}^p`` (a public reference: the predicted
    error uses only ``(p, k, epsilon, n)`` and the method's configuration).
    The coefficient estimates are treated as independent (each comes from
    its own users); the balanced public partition makes them very slightly
    negatively correlated, which the prediction ignores.

    * Hadamard (:class:`~sklearn_ldp.randomizers.HadamardMarginalRandomizer`):
      under uniform records ``theta_S = 0``, each coefficient mean has
      variance ``G B^2 / n`` (``G`` parities, ``B = (e^eps + 1) /
      (e^eps - 1)``), and each cell is ``2^-u`` times a signed sum of ``2^u
      - 1`` of them: total ``(1 - 2^-u) G B^2 / n``; no bias.
    * Chebyshev (:class:`~sklearn_ldp.randomizers.MarginalRandomizer`):
      coefficient ``S`` is ``w_|S|`` times the mean of ``1[S subset x]``
      (probability ``2^-|S|`` here) through the scalar mechanism; a cell is
      a fixed linear combination of the coefficients of the subsets of
      ``U`` (inclusion-exclusion), computed here by running the server on
      unit vectors. Squared bias (0 for the exact polynomial): the
      disjunction of ``V`` is answered by ``E[p(s)]`` instead of
      ``P(s >= 1)``, ``s ~ Binomial(|V|, 1/2)`` for uniform records;
      the cells' biases follow by inclusion-exclusion, summed in squares.

    Parameters
    ----------
    randomizer : MarginalRandomizer or HadamardMarginalRandomizer
    n_users : int
    u : int, default=None
        Table size (default: the randomizer's ``k``, capped at ``p``).

    Returns
    -------
    variance, squared_bias : float
    """
    u = randomizer.k_effective if u is None else int(u)
    if not hasattr(randomizer, "polynomial"):
        mechanism = randomizer.scalar_mechanism
        per_user = float(mechanism.variance(np.ones(1))[0]) + 1.0  # B^2 - 1 + 1
        per_coefficient = per_user / _users_per_coordinate(randomizer, n_users)
        return (1.0 - 0.5**u) * per_coefficient, 0.0
    variance_vector, index = _chebyshev_coefficient_variance(randomizer, n_users)
    # The tables of U = {0..u-1} are affine in the coefficients of the
    # subsets S of U: the column of S is the tables of the unit vector at S
    # minus those of zero, all columns at once (marginal_tables on sorted U).
    masks = [m for m in range(1, 2**u) if bin(m).count("1") <= index.order]
    terms = np.zeros((len(masks), 2**u))
    terms[np.arange(len(masks)), masks] = 1.0
    columns = marginal_tables_from_disjunctions(
        _subset_sum(terms)
    ) - marginal_tables_from_disjunctions(np.zeros((1, 2**u)))
    members = [[i for i in range(u) if (m >> i) & 1] for m in masks]
    positions = [int(index.index(np.array(s))) for s in members]
    total = float(np.sum(columns**2, axis=1) @ variance_vector[positions])
    # Bias for uniform records: the disjunction of V is answered by
    # E[p(s)] with s ~ Binomial(|V|, 1/2) instead of P(s >= 1).
    newton = randomizer.polynomial.newton
    masks = np.arange(2**u)
    sizes = np.array([bin(mask).count("1") for mask in masks])
    bias_of_size = np.zeros(u + 1)
    for v in range(1, u + 1):
        s = np.arange(v + 1)
        weights = np.array([comb(v, int(j)) for j in s]) / 2.0**v
        answered = [sum(newton[m] * comb(int(j), m) for m in range(j + 1)) for j in s]
        bias_of_size[v] = float(weights @ (np.array(answered) - (s >= 1)))
    cell_bias = marginal_tables_from_disjunctions(
        bias_of_size[sizes][None, :]
    ) - marginal_tables_from_disjunctions(np.zeros((1, 2**u)))
    return float(total), float(np.sum(cell_bias**2))
