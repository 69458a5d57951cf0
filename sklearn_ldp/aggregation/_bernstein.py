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
