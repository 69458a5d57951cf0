"""Tensor-product (iterated) Bernstein polynomials on ``[0, 1]^q``.

The server of the local Bernstein mechanism (seed 001, Algorithms 2-3) knows
noisy values ``F[v]`` of a function on the grid ``v / k``, ``v in {0..k}^q``,
and approximates the function by the iterated Bernstein polynomial of order
``h`` (Micchelli 1973; seed 001, Definitions 4-9).

With the Bernstein basis ``b_{v,k}(t) = C(k, v) t^v (1 - t)^(k - v)`` and the
operator matrix ``M[u, v] = b_{v,k}(u / k)`` (the Bernstein operator restricted
to the grid), ``B_k^i f (t) = b(t)^T M^(i-1) f``, so the iterated operator
``B^(h) = I - (I - B_k)^h = sum_{i=1..h} C(h, i) (-1)^(i-1) B_k^i`` is

    B^(h) f (t) = b(t)^T A_h f,   A_h = sum_{i=1..h} C(h, i) (-1)^(i-1) M^(i-1).

In ``q`` dimensions the operator is the tensor product of the 1-D ones, so
``A_h`` is applied once along every axis of the grid tensor (a loop over the
``q`` axes only), and the result is an ordinary tensor-product Bernstein
polynomial whose value and gradient are evaluated in closed form.

Numerics. The basis is computed in log space (``log C(k, v)`` from
``gammaln``, ``v log t`` with ``xlogy``), so it is accurate to a few ulps for
every degree (tested up to 64) without overflowing binomials; the basis is
non-negative and sums to one, so evaluation is a convex combination of the
coefficients and does not cancel. The derivative uses
``b'_{v,k} = k (b_{v-1,k-1} - b_{v,k-1})``.
"""

import numpy as np
from scipy.special import comb, gammaln, xlogy

from ..randomizers import chunk_rows
from ._grouped import _mechanism_reports

#: Largest degree the functions accept (well beyond any useful grid).
MAX_DEGREE = 512


def _check_degree(degree):
    if isinstance(degree, bool) or not isinstance(degree, int | np.integer):
        raise TypeError(f"degree must be an integer, got {degree!r}.")
    if not 1 <= degree <= MAX_DEGREE:
        raise ValueError(f"degree must be in [1, {MAX_DEGREE}], got {degree}.")
    return int(degree)


def _check_order(order):
    if isinstance(order, bool) or not isinstance(order, int | np.integer):
        raise TypeError(f"order must be an integer, got {order!r}.")
    if order < 1:
        raise ValueError(f"order must be >= 1, got {order}.")
    return int(order)


def bernstein_basis(t, degree):
    """Bernstein basis polynomials ``b_{v,k}(t)``, ``v = 0..k``, in log space.

    Parameters
    ----------
    t : array-like of shape (m,)
        Points in ``[0, 1]`` (values outside are clipped).
    degree : int
        The degree ``k >= 1``.

    Returns
    -------
    basis : ndarray of shape (m, k + 1)

    Examples
    --------
    >>> from sklearn_ldp.aggregation import bernstein_basis
    >>> bernstein_basis([0.0, 0.5, 1.0], 2).tolist()
    [[1.0, 0.0, 0.0], [0.25, 0.5, 0.25], [0.0, 0.0, 1.0]]
    """
    k = _check_degree(degree)
    t = np.clip(np.asarray(t, dtype=float).reshape(-1), 0.0, 1.0)[:, None]
    v = np.arange(k + 1, dtype=float)[None, :]
    log_binom = gammaln(k + 1.0) - gammaln(v + 1.0) - gammaln(k - v + 1.0)
    # xlogy(0, 0) = 0, so the end points are exact; xlogy(v, 0) = -inf, whose
    # exp is 0 (scipy does not warn, unlike np.log).
    log_basis = log_binom + xlogy(v, t) + xlogy(k - v, 1.0 - t)
    return np.exp(log_basis)


def bernstein_basis_derivative(t, degree):
    """Derivatives ``b'_{v,k}(t) = k (b_{v-1,k-1}(t) - b_{v,k-1}(t))``.

    Parameters
    ----------
    t : array-like of shape (m,)
    degree : int

    Returns
    -------
    derivative : ndarray of shape (m, k + 1)

    Examples
    --------
    >>> from sklearn_ldp.aggregation import bernstein_basis_derivative
    >>> bernstein_basis_derivative([0.5], 1).tolist()
    [[-1.0, 1.0]]
    """
    k = _check_degree(degree)
    t = np.asarray(t, dtype=float).reshape(-1)
    if k == 1:
        return np.tile([-1.0, 1.0], (t.shape[0], 1))
    lower = bernstein_basis(t, k - 1)
    derivative = np.zeros((t.shape[0], k + 1))
    derivative[:, 1:] += k * lower
    derivative[:, :-1] -= k * lower
    return derivative


def bernstein_operator_matrix(degree):
    """The Bernstein operator on the grid: ``M[u, v] = b_{v,k}(u / k)``.

    Row ``u`` is the basis at the grid point ``u / k``; ``M`` is
    row-stochastic, and ``B_k f`` evaluated on the grid is ``M f``.

    Examples
    --------
    >>> from sklearn_ldp.aggregation import bernstein_operator_matrix
    >>> bernstein_operator_matrix(1).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    k = _check_degree(degree)
    return bernstein_basis(np.arange(k + 1) / k, k)


def iterated_bernstein_matrix(degree, order):
    """``A_h = sum_{i=1..h} C(h, i) (-1)^(i-1) M^(i-1)`` (iterated operator of order h).

    The iterated Bernstein polynomial of grid values ``f`` is
    ``B^(h) f (t) = b(t)^T A_h f``; ``A_1`` is the identity.

    Parameters
    ----------
    degree : int
        The degree ``k``.
    order : int
        The order ``h >= 1``.

    Returns
    -------
    A : ndarray of shape (k + 1, k + 1)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import iterated_bernstein_matrix
    >>> np.allclose(iterated_bernstein_matrix(5, 1), np.eye(6))
    True
    >>> iterated_bernstein_matrix(2, 2).round(3).tolist()
    [[1.0, 0.0, 0.0], [-0.25, 1.5, -0.25], [0.0, 0.0, 1.0]]
    """
    k = _check_degree(degree)
    h = _check_order(order)
    M = bernstein_operator_matrix(k)
    A = np.zeros((k + 1, k + 1))
    power = np.eye(k + 1)
    for i in range(1, h + 1):
        A += comb(h, i, exact=True) * (-1) ** (i - 1) * power
        power = power @ M
    return A


def apply_along_axes(matrix, tensor):
    """Apply a ``(m, k + 1)`` matrix along every axis of a ``(k + 1,)^q`` tensor.

    Returns the tensor of shape ``(m,)^q``; the loop runs over the ``q`` axes
    only.
    """
    result = np.asarray(tensor, dtype=float)
    for axis in range(result.ndim):
        result = np.moveaxis(np.tensordot(matrix, result, axes=(1, axis)), 0, axis)
    return result


def bernstein_coefficients(grid_values, order=1):
    """Coefficients of the iterated Bernstein polynomial of grid values.

    Parameters
    ----------
    grid_values : ndarray of shape (k + 1,)^q
        ``grid_values[v] = f(v / k)``.
    order : int, default=1
        Order ``h`` of the iterated operator.

    Returns
    -------
    coef : ndarray of shape (k + 1,)^q
        ``A_h`` applied along every axis: ``B^(h) f (t) = sum_v coef[v]
        prod_j b_{v_j,k}(t_j)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import bernstein_coefficients
    >>> values = np.arange(9.0).reshape(3, 3)
    >>> np.allclose(bernstein_coefficients(values, order=3), values)  # linear
    True
    """
    grid_values = np.asarray(grid_values, dtype=float)
    if grid_values.ndim < 1 or len(set(grid_values.shape)) != 1:
        raise ValueError(
            "grid_values must be a (k + 1, ..., k + 1) tensor, got shape "
            f"{grid_values.shape}."
        )
    degree = grid_values.shape[0] - 1
    order = _check_order(order)
    if order == 1:
        return grid_values.copy()
    return apply_along_axes(iterated_bernstein_matrix(degree, order), grid_values)


def _contract(coef, factors):
    """``sum_v coef[v] prod_j factors[j][:, v_j]`` for each of the m points."""
    m = factors[0].shape[0]
    # First axis: one matrix product (m, k+1) x (k+1, rest).
    result = factors[0] @ coef.reshape(coef.shape[0], -1)
    for factor in factors[1:]:
        result = np.einsum("mi,mir->mr", factor, result.reshape(m, factor.shape[1], -1))
    return result.reshape(m)


def evaluate_bernstein(coef, points, gradient=False):
    """Value (and gradient) of a tensor-product Bernstein polynomial.

    Parameters
    ----------
    coef : ndarray of shape (k + 1,)^q
        Coefficients (for an iterated polynomial, from
        :func:`bernstein_coefficients`).
    points : array-like of shape (m, q)
        Points of ``[0, 1]^q`` (clipped to it).
    gradient : bool, default=False
        Also return the gradient.

    Returns
    -------
    values : ndarray of shape (m,)
    gradients : ndarray of shape (m, q)
        Only if ``gradient=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import evaluate_bernstein
    >>> coef = np.array([[0.0, 1.0], [1.0, 2.0]])  # f(t) = t_0 + t_1
    >>> values, grads = evaluate_bernstein(coef, [[0.25, 0.5]], gradient=True)
    >>> values.tolist(), grads.tolist()
    ([0.75], [[1.0, 1.0]])
    """
    coef = np.asarray(coef, dtype=float)
    q = coef.ndim
    degree = coef.shape[0] - 1
    points = np.atleast_2d(np.asarray(points, dtype=float))
    if points.shape[1] != q:
        raise ValueError(
            f"points must have {q} columns (one per axis), got shape {points.shape}."
        )
    basis = [bernstein_basis(points[:, j], degree) for j in range(q)]
    values = _contract(coef, basis)
    if not gradient:
        return values
    grads = np.empty((points.shape[0], q))
    for j in range(q):
        factors = list(basis)
        factors[j] = bernstein_basis_derivative(points[:, j], degree)
        grads[:, j] = _contract(coef, factors)
    return values, grads


def lebesgue_constant(degree, order, n_points=2001):
    """``max_t sum_v |b^(h)_{v,k}(t)|`` in one dimension (on a fine grid).

    A perturbation of size ``s`` at every grid value moves the iterated
    polynomial by at most this constant times ``s`` (its ``q``-th power in
    ``q`` dimensions); seed 001 bounds it by ``2^h - 1``.
    """
    A = iterated_bernstein_matrix(degree, order)
    basis = bernstein_basis(np.linspace(0.0, 1.0, n_points), degree)
    return float(np.abs(basis @ A).sum(axis=1).max())


def tensor_weights(rows):
    """Row-wise tensor products of per-axis weights, flattened in C order.

    ``rows[j]`` has shape ``(m, k_j)``; the result ``(m, prod k_j)`` holds
    ``prod_j rows[j][i, v_j]`` at the C-order index of ``v`` (the order of
    ``np.unravel_index`` on the grid). The loop runs over the axes only.
    """
    weights = np.asarray(rows[0], dtype=float)
    for row in rows[1:]:
        weights = (weights[:, :, None] * row[:, None, :]).reshape(weights.shape[0], -1)
    return weights


def bernstein_weights(points, degree, order):
    """Weights ``w(t)`` with ``B^(h) f (t) = w(t) @ f`` for grid values ``f``.

    The iterated Bernstein polynomial is linear in the grid values:
    ``w(t) = (b(t_1)^T A_h) (x) ... (x) (b(t_q)^T A_h)``. Its variance at
    ``t`` is ``sum_v w_v(t)^2 Var(f_v)`` for independent grid estimates.

    Parameters
    ----------
    points : array-like of shape (m, q)
        Points of ``[0, 1]^q``.
    degree, order : int

    Returns
    -------
    weights : ndarray of shape (m, (k + 1)^q)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import (
    ...     bernstein_coefficients, bernstein_weights, evaluate_bernstein)
    >>> values = np.arange(9.0).reshape(3, 3) ** 2
    >>> t = np.array([[0.3, 0.8]])
    >>> coef = bernstein_coefficients(values, order=2)
    >>> bool(np.allclose(bernstein_weights(t, 2, 2) @ values.ravel(),
    ...                  evaluate_bernstein(coef, t)))
    True
    """
    points = np.atleast_2d(np.asarray(points, dtype=float))
    A = iterated_bernstein_matrix(_check_degree(int(degree)), order)
    return tensor_weights(
        [bernstein_basis(points[:, j], degree) @ A for j in range(points.shape[1])]
    )


def moment_risk_weights(coefs, n_features, fit_intercept):
    """The squared risk as a linear function of the released moments.

    For ``theta = (w, b)`` (``b = 0`` without an intercept),
    ``E[(y - w^T x - b)^2] = a(theta) . m + b^2``, where ``m`` are
    the moments in the order of
    ``moment_ranges`` (:mod:`sklearn_ldp.randomizers._bernstein`) (``x_j x_l`` for
    ``j <= l``, ``x_j``, ``x_j y``, ``y``, ``y^2``) and ``a`` holds
    ``w_j w_l`` (doubled off the diagonal), ``2 b w_j``, ``-2 w_j``,
    ``-2 b`` and 1.

    Parameters
    ----------
    coefs : array-like of shape (m, q)
    n_features : int
    fit_intercept : bool

    Returns
    -------
    weights : ndarray of shape (m, n_moments)
    offset : ndarray of shape (m,)
        ``b^2``.
    """
    coefs = np.atleast_2d(np.asarray(coefs, dtype=float))
    d = int(n_features)
    w = coefs[:, :d]
    b = coefs[:, d] if fit_intercept else np.zeros(coefs.shape[0])
    rows, cols = np.triu_indices(d)
    parts = [np.where(rows == cols, 1.0, 2.0) * w[:, rows] * w[:, cols]]
    if fit_intercept:
        parts.append(2.0 * b[:, None] * w)
    parts.append(-2.0 * w)
    if fit_intercept:
        parts.append(-2.0 * b[:, None])
    parts.append(np.ones((coefs.shape[0], 1)))
    return np.hstack(parts), b**2


def moment_quadratic(moments, n_features, fit_intercept):
    """``(Q, r)`` with ``E[(y - theta^T z)^2] = E[y^2] - 2 theta^T r + theta^T Q theta``.

    ``z = (x, 1)`` (``x`` without an intercept), ``Q = E[z z^T]`` (its
    constant entry is exactly 1) and ``r = E[z y]``, filled from the moments
    of :func:`moment_risk_weights` (``E[y^2]`` is their last entry).
    """
    d = int(n_features)
    q = d + int(fit_intercept)
    rows, cols = np.triu_indices(d)
    n_pairs = rows.size
    Q = np.zeros((q, q))
    Q[rows, cols] = moments[:n_pairs]
    Q[cols, rows] = moments[:n_pairs]
    at = n_pairs
    if fit_intercept:
        Q[:d, d] = Q[d, :d] = moments[at : at + d]
        Q[d, d] = 1.0
        at += d
    r = np.zeros(q)
    r[:d] = moments[at : at + d]
    if fit_intercept:
        r[d] = moments[at + d]
    return Q, r


def fold_group_sums(groups, estimates, n_groups, folds, n_folds):
    """Per fold and group: number of reports, sum and sum of squares of their estimates.

    Parameters
    ----------
    groups : array-like of shape (n_users,) or None
        Each user's group; None when every user estimates every group
        (``estimates`` then has shape ``(n_users, n_groups)``).
    estimates : ndarray of shape (n_users,) or (n_users, n_groups)
    n_groups : int
    folds : ndarray of shape (n_users,)
        Each user's fold, in ``[0, n_folds)``.
    n_folds : int

    Returns
    -------
    counts, sums, squares : ndarray of shape (n_folds, n_groups)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import fold_group_sums
    >>> c, s, s2 = fold_group_sums([0, 1, 1], np.array([1.0, 2.0, 3.0]), 2,
    ...                            np.array([0, 0, 1]), 2)
    >>> c.tolist(), s.tolist(), s2.tolist()
    ([[1.0, 1.0], [0.0, 1.0]], [[1.0, 2.0], [0.0, 3.0]], [[1.0, 4.0], [0.0, 9.0]])
    """
    folds = np.asarray(folds, dtype=np.int64)
    estimates = np.asarray(estimates, dtype=float)
    if groups is None:
        counts = np.repeat(np.bincount(folds, minlength=n_folds)[:, None], n_groups, 1)
        sums, squares = np.zeros((n_folds, n_groups)), np.zeros((n_folds, n_groups))
        for k in range(n_folds):  # a handful of folds: row sums, no scatter
            rows = estimates[folds == k]
            sums[k], squares[k] = rows.sum(axis=0), np.einsum("ij,ij->j", rows, rows)
        return counts.astype(float), sums, squares
    cells = folds * n_groups + np.asarray(groups, dtype=np.int64)
    size = n_folds * n_groups
    counts = np.bincount(cells, minlength=size).astype(float)
    sums = np.bincount(cells, weights=estimates, minlength=size)
    squares = np.bincount(cells, weights=estimates**2, minlength=size)
    shape = (n_folds, n_groups)
    return counts.reshape(shape), sums.reshape(shape), squares.reshape(shape)


def group_mean_variance(counts, sums, squares, *, fill):
    """Means of grouped estimates and the variances of those means.

    ``Var(mean_g) = s_g^2 / n_g`` with ``s_g^2`` the unbiased sample
    variance of the group's estimates: the mechanism's noise and the spread
    of the users' values together, with no model of either. A group with
    fewer than two reports takes the pooled variance of all groups; one
    without reports takes ``fill`` as its mean (uninformative) and that
    pooled variance (as if it had one report).
    """
    counts = np.asarray(counts, dtype=float)
    start = np.array(np.broadcast_to(np.asarray(fill, dtype=float), counts.shape))
    means = np.divide(sums, counts, out=start, where=counts > 0)
    spread = squares - counts * means**2
    pooled = float(max(spread.sum(), 0.0) / max(counts.sum() - counts.size, 1.0))
    variance = np.divide(
        np.maximum(spread, 0.0),
        counts - 1.0,
        out=np.full(counts.shape, pooled),
        where=counts > 1,
    )
    return means, variance / np.maximum(counts, 1.0)


def bernstein_report_estimates(randomizer, reports):
    """Each user's unbiased estimate of its group's value, in loss or moment units.

    The server of :class:`~sklearn_ldp.randomizers.BernsteinLossRandomizer`:
    the scalar mechanism's ``estimate`` of each release, times the public
    ``loss_bound`` (grid protocol: the loss at the user's grid point), or
    mapped back from ``[0, 1]`` to the monomial's public range (moments).

    Returns
    -------
    groups : ndarray of int64, shape (n_users,), or None
        None for ``'full_grid'`` (every user estimates every grid point).
    estimates : ndarray of shape (n_users,) or (n_users, n_grid)
    """
    released = _mechanism_reports(reports, randomizer.value_fields)
    estimates = randomizer.scalar_mechanism.estimate(released)
    if randomizer.mechanism == "full_grid":
        if estimates.shape != (len(reports), randomizer.n_grid):
            raise ValueError(
                f"Report values must have shape (n_users, {randomizer.n_grid}), got "
                f"{estimates.shape}."
            )
        return None, randomizer.loss_bound * estimates
    groups = np.asarray(reports["group"])
    n_groups = randomizer.n_groups
    if (
        groups.shape != estimates.shape
        or (groups.size and not np.all(np.equal(np.mod(groups, 1), 0)))
        or (groups.size and (groups.min() < 0 or groups.max() >= n_groups))
    ):
        raise ValueError(f"Report groups must be integers in [0, {n_groups}).")
    groups = groups.astype(np.int64)
    if randomizer.protocol == "moments":
        lower, upper = randomizer.moment_lower, randomizer.moment_upper
        return groups, lower[groups] + (upper - lower)[groups] * estimates
    return groups, randomizer.loss_bound * estimates


class BernsteinReportSums:
    """One-pass aggregate of the local Bernstein mechanism's reports.

    Per fold and group (grid point or released monomial): the number of
    reports, and the sum and sum of squares of their unbiased estimates
    (:func:`bernstein_report_estimates`, :func:`fold_group_sums`). The
    server's estimates (group means), its candidates and their held-out
    risks (:func:`group_mean_variance`) read only these. The report at
    stream position ``i`` goes to fold ``i mod n_folds``: the folds do not
    depend on how the stream is cut, and every group's reports are dealt
    round the folds whatever the order of the stream.

    Parameters
    ----------
    randomizer : BernsteinLossRandomizer
        The published randomizer.
    n_folds : int, default=1

    Attributes
    ----------
    counts, sums, squares : ndarray of shape (n_folds, n_groups)
    n_reports : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import BernsteinReportSums
    >>> from sklearn_ldp.randomizers import BernsteinLossRandomizer
    >>> randomizer = BernsteinLossRandomizer(1, epsilon=1.0, degree=2, mechanism="duchi")
    >>> X, y = np.zeros((90, 1)), np.zeros(90)
    >>> reports = randomizer.randomize(X, y, random_state=0)
    >>> first = BernsteinReportSums(randomizer, n_folds=3)
    >>> first.update(reports.subset(slice(0, 50)), np.arange(50))
    >>> second = BernsteinReportSums(randomizer, n_folds=3)
    >>> second.update(reports.subset(slice(50, None)), np.arange(50, 90))
    >>> first.merge(second).counts.sum(axis=1).tolist()
    [30.0, 30.0, 30.0]
    """

    def __init__(self, randomizer, n_folds=1):
        self.randomizer = randomizer
        self.n_folds = int(n_folds)
        full_grid = randomizer.mechanism == "full_grid"
        self.n_groups = randomizer.n_grid if full_grid else randomizer.n_groups
        shape = (self.n_folds, self.n_groups)
        self.counts, self.sums, self.squares = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        self.n_reports = 0

    def update(self, reports, positions):
        """Add validated ``reports``; ``positions`` (their stream indices) set the folds."""
        positions = np.asarray(positions, dtype=np.int64)
        if positions.shape != (len(reports),):
            raise ValueError(
                f"Expected {len(reports)} positions, got shape {positions.shape}."
            )
        # 'full_grid' reports carry every grid value: bound the temporaries.
        full_grid = self.randomizer.mechanism == "full_grid"
        step = chunk_rows(self.n_groups) if full_grid else max(len(reports), 1)
        for start in range(0, len(reports), step):
            block = slice(start, start + step)
            part = reports if step >= len(reports) else reports.subset(block)
            groups, estimates = bernstein_report_estimates(self.randomizer, part)
            sums = fold_group_sums(
                groups,
                estimates,
                self.n_groups,
                positions[block] % self.n_folds,
                self.n_folds,
            )
            for total, added in zip((self.counts, self.sums, self.squares), sums, strict=True):
                total += added
        self.n_reports += len(reports)

    def shift_positions(self, offset):
        """As if every report added so far sat ``offset`` positions later (folds rotate)."""
        shift = int(offset) % self.n_folds
        self.counts, self.sums, self.squares = (
            np.roll(a, shift, axis=0) for a in (self.counts, self.sums, self.squares)
        )

    def merge(self, other):
        """Add the sums of another aggregate of disjoint reports."""
        self.counts += other.counts
        self.sums += other.sums
        self.squares += other.squares
        self.n_reports += other.n_reports
        return self
