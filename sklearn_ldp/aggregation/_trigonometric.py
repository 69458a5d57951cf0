"""Trigonometric-polynomial (Chebyshev) coefficients of smooth queries.

Seed 001, section 6.2 (Lemma 42, Algorithm 7). For ``f`` on ``[-1, 1]^p``,
``g_f(theta) = f(cos theta_1, ..., cos theta_p)`` is even and
``2 pi``-periodic in every ``theta_i``, so it has a cosine series

    g_f(theta) ~ sum_{v in {0..t-1}^p} c_v prod_i cos(v_i theta_i),

and since ``cos(v arccos x) = T_v(x)`` (the Chebyshev polynomial) this is
the Chebyshev expansion ``f(x) ~ sum_v c_v prod_i T_{v_i}(x_i)``. With the
users' averaged basis vector ``m_v ~ (1/n) sum_i prod_j T_{v_j}(x_ij)`` the
linear query ``(1/n) sum_i f(x_i)`` is ``sum_v c_v m_v``: one released
vector answers every smooth query.

The coefficients are computed by Chebyshev (Gauss) interpolation: ``f`` is
sampled on the tensor grid of the ``N`` nodes ``cos(pi (l + 1/2) / N)`` per
axis and transformed with a type-II DCT along every axis,
``c_k = (2 - [k = 0]) / N sum_l f(x_l) cos(k pi (l + 1/2) / N)``, then
truncated to ``k < t``. For ``N >= t`` these are the coefficients of the
degree ``N - 1`` interpolant, which differ from the exact series
coefficients only by the aliased tail ``sum_{j >= 1} +- c_{2jN -+ k}``;
for smooth ``f`` (``(h, T)``-smooth: ``|c_k| = O(k^-h)``) both errors are
of the order of the truncated tail. The default ``N = max(2 t, 16)``.

The users' side (the basis vector they release) is
:class:`~sklearn_ldp.randomizers.TrigonometricRandomizer`; the Gaussian
kernel density at a point is the query of :func:`kernel_density`.
"""

import numpy as np
from scipy.fft import dct, dctn

from ..randomizers import chunk_rows

#: Largest number of function evaluations of one tensor grid.
MAX_GRID_EVALUATIONS = 2**22


def chebyshev_nodes(n_nodes):
    """The ``N`` Chebyshev-Gauss nodes ``cos(pi (l + 1/2) / N)``, decreasing."""
    n_nodes = int(n_nodes)
    if n_nodes < 1:
        raise ValueError(f"n_nodes must be >= 1, got {n_nodes}.")
    return np.cos(np.pi * (np.arange(n_nodes) + 0.5) / n_nodes)


def _check_degree(degree):
    if isinstance(degree, bool) or int(degree) != degree or degree < 1:
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
    return int(degree)


def default_nodes(degree):
    return max(2 * int(degree), 16)


def chebyshev_coefficients_from_nodes(values, degree):
    """First ``t`` Chebyshev coefficients from values at the ``N`` nodes (last axis).

    Parameters
    ----------
    values : ndarray of shape (..., N)
        ``f`` at :func:`chebyshev_nodes` ``(N)``.
    degree : int
        ``t``: coefficients ``0..t-1`` are returned (``t <= N``).

    Returns
    -------
    coef : ndarray of shape (..., t)
    """
    degree = _check_degree(degree)
    values = np.asarray(values, dtype=float)
    n_nodes = values.shape[-1]
    if degree > n_nodes:
        raise ValueError(
            f"degree {degree} needs at least as many nodes, got {n_nodes}."
        )
    coef = dct(values, type=2, axis=-1)[..., :degree] / n_nodes
    coef[..., 0] *= 0.5
    return coef


def trigonometric_coefficients(
    func, degree, n_dims, *, n_nodes=None, lower=-1.0, upper=1.0
):
    """Coefficients ``c_v``, ``v in {0..t-1}^p``, of a smooth function on a box.

    Parameters
    ----------
    func : callable
        ``func(points) -> values`` for ``points`` of shape ``(m, p)`` in the
        box; returns shape ``(m,)``.
    degree : int
        ``t``, the number of coefficients per axis.
    n_dims : int
        ``p``.
    n_nodes : int or None, default=None
        Interpolation nodes per axis, ``N >= t``; ``max(2 t, 16)`` by default.
    lower, upper : float or array-like of shape (p,), default=-1.0, 1.0
        The box; the expansion is in the rescaled variable
        ``u = (2 x - lower - upper) / (upper - lower) in [-1, 1]^p``.

    Returns
    -------
    coef : ndarray of shape (t,) * p
        ``func(x) ~ sum_v coef[v] prod_i T_{v_i}(u_i)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import trigonometric_coefficients
    >>> coef = trigonometric_coefficients(lambda x: x[:, 0] * x[:, 1], 3, 2)
    >>> np.round(coef, 12) + 0.0  # x y = T_1(x) T_1(y)
    array([[0., 0., 0.],
           [0., 1., 0.],
           [0., 0., 0.]])
    """
    degree = _check_degree(degree)
    n_dims = int(n_dims)
    if n_dims < 1:
        raise ValueError(f"n_dims must be >= 1, got {n_dims}.")
    n_nodes = default_nodes(degree) if n_nodes is None else int(n_nodes)
    if n_nodes < degree:
        raise ValueError(f"n_nodes ({n_nodes}) must be >= degree ({degree}).")
    if float(n_nodes) ** n_dims > MAX_GRID_EVALUATIONS:
        raise ValueError(
            f"The interpolation grid has {n_nodes}^{n_dims} = {float(n_nodes) ** n_dims:.3g} "
            f"points, more than {MAX_GRID_EVALUATIONS}; lower the degree or the "
            "number of nodes (smooth queries are for low dimension)."
        )
    lower = np.broadcast_to(np.asarray(lower, dtype=float), (n_dims,))
    upper = np.broadcast_to(np.asarray(upper, dtype=float), (n_dims,))
    nodes = chebyshev_nodes(n_nodes)
    grid = np.stack(np.meshgrid(*([nodes] * n_dims), indexing="ij"), axis=-1)
    points = 0.5 * (lower + upper) + 0.5 * (upper - lower) * grid.reshape(-1, n_dims)
    values = np.asarray(func(points), dtype=float)
    if values.shape != (points.shape[0],):
        raise ValueError(
            f"func must return one value per point, shape ({points.shape[0]},); got "
            f"{values.shape}."
        )
    if not np.all(np.isfinite(values)):
        raise ValueError("func returned NaN or infinity on the box.")
    coef = dctn(values.reshape((n_nodes,) * n_dims), type=2) / n_nodes**n_dims
    coef = coef[(slice(0, degree),) * n_dims]
    for axis in range(n_dims):
        index = [slice(None)] * n_dims
        index[axis] = 0
        coef[tuple(index)] *= 0.5
    return coef


def moment_tensor(mean, degree, n_dims):
    """The moment tensor ``m_v``, shape ``(t,) * p``, from the users' mean vector.

    ``mean`` holds the ``t^p - 1`` non-constant entries (C order, ``v = 0``
    left out); ``m_0 = 1``.
    """
    return np.concatenate([[1.0], np.asarray(mean, dtype=float)]).reshape(
        (int(degree),) * int(n_dims)
    )


def gaussian_kernel_coefficients(
    centers, bandwidth, degree, lower, upper, n_nodes=None
):
    """Chebyshev coefficients of ``x -> N(x; center, bandwidth^2)`` on ``[lower, upper]``.

    One axis: for every center, the first ``t`` coefficients in the rescaled
    variable ``u``. Returns shape ``(n_centers, t)``.
    """
    n_nodes = default_nodes(degree) if n_nodes is None else n_nodes
    nodes = 0.5 * (lower + upper) + 0.5 * (upper - lower) * chebyshev_nodes(n_nodes)
    z = (nodes[None, :] - np.asarray(centers, dtype=float)[:, None]) / bandwidth
    values = np.exp(-0.5 * z**2) / (np.sqrt(2.0 * np.pi) * bandwidth)
    return chebyshev_coefficients_from_nodes(values, degree)


def contract_moments(moments, factors):
    """``sum_v moments[v] prod_j factors[j][q, v_j]`` for every query ``q``.

    ``moments`` has shape ``(t,) * p``; ``factors`` is a list of ``p``
    arrays ``(n_queries, t)``. Contracts the last axis first, so the largest
    temporary is ``t^(p-1) x n_queries``.
    """
    t = moments.shape[0]
    current = moments.reshape(-1, t) @ factors[-1].T  # (t^(p-1), n_q)
    for axis in range(moments.ndim - 2, -1, -1):
        current = current.reshape(-1, t, current.shape[-1])
        current = np.einsum("avq,qv->aq", current, factors[axis])
    return current.reshape(-1)


def kernel_density(moments, lower, upper, points, bandwidth):
    """Gaussian kernel density of the users' records at ``points``, from their moments.

    The density at ``x`` is the linear query ``(1/n) sum_i N(x_i; x, h^2 I)``;
    its product kernel factorizes over the axes, so each axis contributes
    :func:`gaussian_kernel_coefficients` and the query is
    :func:`contract_moments`. Queries are processed in chunks
    (:func:`~sklearn_ldp.randomizers.chunk_rows`).

    Parameters
    ----------
    moments : ndarray of shape (t,) * p
    lower, upper : ndarray of shape (p,)
        The public box.
    points : ndarray of shape (n_queries, p)
    bandwidth : float

    Returns
    -------
    density : ndarray of shape (n_queries,)
        May be zero or negative where there is little mass.
    """
    t, p = moments.shape[0], moments.ndim
    step = chunk_rows(t ** max(p - 1, 1))
    out = np.empty(points.shape[0])
    for start in range(0, points.shape[0], step):
        rows = slice(start, start + step)
        factors = [
            gaussian_kernel_coefficients(
                points[rows, j], bandwidth, t, lower[j], upper[j]
            )
            for j in range(p)
        ]
        out[rows] = contract_moments(moments, factors)
    return out
