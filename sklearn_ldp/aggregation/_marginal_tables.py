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
"""

import numpy as np


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
    u = subsets.shape[1]
    sorted_subsets = np.sort(subsets, axis=1)
    # Work on sorted subsets, then permute the table axes back.
    tables = marginal_tables_from_disjunctions(
        disjunction_tables(coefficients, index, sorted_subsets)
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
