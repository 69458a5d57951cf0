"""Unbiased estimates of a polynomial of a noisy scalar.

Given independent unbiased estimates ``u_1..u_d`` of a scalar ``a`` (for
example ``<w, x + noise_l>`` from independent noisy copies of ``x``), the
elementary symmetric polynomial ``e_j(u_1..u_d)`` is a sum of
``C(d, j)`` products of ``j`` distinct, independent factors, so
``E[e_j(u)] = C(d, j) a^j`` and ``sum_j c_j e_j(u) / C(d, j)`` is unbiased for
``P(a) = sum_j c_j a^j``. The ``e_j`` are the coefficients of
``prod_l (1 + u_l t)``, built with ``d`` vectorized updates (O(d^2) per user).
This needs ``d`` copies where the printed algorithms use fresh copies per
term (``d (d+1)`` in total).
"""

import numpy as np
from scipy.special import comb


def elementary_symmetric(U):
    """Elementary symmetric polynomials of each row of ``U``.

    Parameters
    ----------
    U : ndarray of shape (n, d)

    Returns
    -------
    E : ndarray of shape (n, d + 1)
        ``E[:, j] = e_j(U[i, :])``, ``E[:, 0] = 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import elementary_symmetric
    >>> elementary_symmetric(np.array([[1.0, 2.0, 3.0]])).tolist()
    [[1.0, 6.0, 11.0, 6.0]]
    """
    U = np.asarray(U, dtype=float)
    if U.ndim != 2:
        raise ValueError(f"U must be 2-dimensional, got shape {U.shape}.")
    n, d = U.shape
    E = np.zeros((n, d + 1))
    E[:, 0] = 1.0
    # Multiply the running product by (1 + u_l t); loop over the d copies
    # (the polynomial degree), vectorized over users.
    for col in range(d):
        E[:, 1 : col + 2] = E[:, 1 : col + 2] + U[:, col : col + 1] * E[:, 0 : col + 1]
    return E


def unbiased_polynomial(U, coef):
    """Unbiased estimate of ``P(a) = sum_j coef[j] a^j`` from independent copies.

    Parameters
    ----------
    U : ndarray of shape (n, d)
        Row ``i`` holds ``d`` independent unbiased estimates of ``a_i``.
    coef : array-like of shape (m + 1,)
        Monomial coefficients, lowest degree first, ``m <= d``.

    Returns
    -------
    estimate : ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import unbiased_polynomial
    >>> rng = np.random.default_rng(0)
    >>> U = 0.5 + rng.standard_normal((200_000, 3))
    >>> round(float(unbiased_polynomial(U, [1.0, 0.0, 0.0, 1.0]).mean()), 1)  # 1 + 0.5^3
    1.1
    """
    coef = np.asarray(coef, dtype=float)
    U = np.asarray(U, dtype=float)
    degree = coef.shape[0] - 1
    d = U.shape[1]
    if degree > d:
        raise ValueError(
            f"A degree-{degree} polynomial needs at least {degree} independent "
            f"copies; got {d}."
        )
    E = elementary_symmetric(U)[:, : degree + 1]
    return E @ (coef / comb(d, np.arange(degree + 1)))
