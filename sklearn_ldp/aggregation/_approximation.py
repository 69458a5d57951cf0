"""Polynomial approximation of a scalar function on an interval.

The LDP gradient oracles of the linear classifiers need the derivative of a
loss, ``phi(t)``, as a polynomial in ``t`` (then a polynomial of a noisy
inner product can be estimated without bias). Two approximations are given,
both returned as monomial coefficients in ``t`` (lowest degree first), the
form :func:`~sklearn_ldp.aggregation.unbiased_polynomial` and the oracles
take:

- *Bernstein* (seed 001, Lemma 8 and Algorithm 4): with ``s = (t - lo) /
  (hi - lo)``, ``B_d phi(t) = sum_k phi(lo + k (hi - lo) / d) C(d, k) s^k
  (1 - s)^(d - k)``. It converges slowly (error ``O(1 / d)`` for smooth
  ``phi``) but preserves monotonicity, bounds and derivative bounds of
  ``phi``. Its Bernstein-basis values are also what the printed product
  estimator uses (see :func:`bernstein_product_terms`).
- *Chebyshev* interpolation at Chebyshev points (seed 003): near-minimax,
  converges geometrically for analytic ``phi``, without the shape
  guarantees.

The printed Algorithm 4 builds the Bernstein polynomial on ``[0, 1]``
(``c_i = f'(i / d)``) while its argument ``y <w, x>`` ranges over
``[-1, 1]``; a Bernstein polynomial on ``[0, 1]`` does not approximate the
function on ``[-1, 0)``. Here the interval is always explicit: the library
passes the reachable interval of ``y <w, x>``.

Monomial coefficients of a degree-``d`` polynomial on ``[-r, r]`` grow like
``r^-j`` times the Chebyshev coefficients; for the small degrees the LDP
oracles can afford (``d <= 8``) this conversion is well conditioned.
"""

import numpy as np
from numpy.polynomial import Chebyshev, Polynomial
from scipy.special import comb


def _check_interval(interval):
    lo, hi = (float(v) for v in interval)
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ValueError(f"interval must be finite with lo < hi, got {interval!r}.")
    return lo, hi


def _check_degree(degree):
    if isinstance(degree, bool) or int(degree) != degree or degree < 0:
        raise ValueError(f"degree must be an integer >= 0, got {degree!r}.")
    return int(degree)


def bernstein_nodes(degree, interval):
    """The ``d + 1`` equispaced nodes ``lo + k (hi - lo) / d`` of the Bernstein operator."""
    degree = _check_degree(degree)
    lo, hi = _check_interval(interval)
    if degree == 0:
        return np.array([0.5 * (lo + hi)])
    return lo + (hi - lo) * np.arange(degree + 1) / degree


def bernstein_approximation(func, degree, interval):
    """Monomial coefficients of the degree-``d`` Bernstein approximation of ``func``.

    Parameters
    ----------
    func : callable
        Vectorized scalar function.
    degree : int
        Polynomial degree ``d >= 0``.
    interval : tuple (lo, hi)
        Approximation interval.

    Returns
    -------
    coef : ndarray of shape (degree + 1,)
        ``coef[j]`` multiplies ``t^j``.

    Examples
    --------
    The Bernstein operator reproduces linear functions:

    >>> from sklearn_ldp.aggregation import bernstein_approximation
    >>> bernstein_approximation(lambda t: 2 * t + 1, 3, (-1, 1)).round(12).tolist()
    [1.0, 2.0, 0.0, 0.0]
    """
    degree = _check_degree(degree)
    lo, hi = _check_interval(interval)
    values = np.asarray(func(bernstein_nodes(degree, interval)), dtype=float)
    # Sum of values[k] C(d, k) s^k (1 - s)^(d - k) as a polynomial in s ...
    in_s = Polynomial([0.0])
    s, one_minus_s = Polynomial([0.0, 1.0]), Polynomial([1.0, -1.0])
    for k in range(degree + 1):
        in_s = in_s + values[k] * comb(degree, k) * s**k * one_minus_s ** (degree - k)
    # ... then in t: s = (t - lo) / (hi - lo) is the domain -> window map.
    in_t = Polynomial(in_s.coef, domain=[lo, hi], window=[0.0, 1.0]).convert()
    return _pad(in_t.coef, degree)


def chebyshev_approximation(func, degree, interval):
    """Monomial coefficients of the Chebyshev interpolant of ``func`` of degree ``d``.

    Parameters
    ----------
    func : callable
        Vectorized scalar function.
    degree : int
        Polynomial degree ``d >= 0``.
    interval : tuple (lo, hi)
        Approximation interval.

    Returns
    -------
    coef : ndarray of shape (degree + 1,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import chebyshev_approximation
    >>> chebyshev_approximation(lambda t: t**2, 2, (-1, 1)).round(12).tolist()
    [0.0, 0.0, 1.0]
    """
    degree = _check_degree(degree)
    lo, hi = _check_interval(interval)
    interpolant = Chebyshev.interpolate(func, degree, domain=[lo, hi])
    return _pad(interpolant.convert(kind=Polynomial).coef, degree)


def polynomial_approximation(func, degree, interval, method="bernstein"):
    """Dispatch to :func:`bernstein_approximation` or :func:`chebyshev_approximation`."""
    if method == "bernstein":
        return bernstein_approximation(func, degree, interval)
    if method == "chebyshev":
        return chebyshev_approximation(func, degree, interval)
    raise ValueError(f"method must be 'bernstein' or 'chebyshev', got {method!r}.")


def approximation_error(func, coef, interval, n_points=2001):
    """Sup-norm error ``max |P(t) - func(t)|`` on a fine grid of the interval."""
    lo, hi = _check_interval(interval)
    grid = np.linspace(lo, hi, n_points)
    return float(np.max(np.abs(Polynomial(coef)(grid) - func(grid))))


def bernstein_product_terms(func, degree, interval):
    """The printed Algorithm 4 polynomial as a sum of products of affine factors.

    ``B_d phi(t) = sum_k w_k s(t)^k (1 - s(t))^(d - k)`` with
    ``w_k = phi(node_k) C(d, k)`` and ``s(t) = (t - lo) / (hi - lo)``; each
    factor is affine in ``t``, so the product estimator of seed 001
    (``t_{i,j} s_{i,j}``, fresh copies per factor) is unbiased for it.

    Returns
    -------
    terms : list of (weight, [(offset, slope, count), ...])
        Term ``k`` is ``weight * prod (offset + slope t)^count``.
    """
    degree = _check_degree(degree)
    lo, hi = _check_interval(interval)
    width = hi - lo
    values = np.asarray(func(bernstein_nodes(degree, interval)), dtype=float)
    rising = (-lo / width, 1.0 / width, None)  # s(t)
    falling = (hi / width, -1.0 / width, None)  # 1 - s(t)
    terms = []
    for k in range(degree + 1):
        factors = []
        if k:
            factors.append((rising[0], rising[1], k))
        if degree - k:
            factors.append((falling[0], falling[1], degree - k))
        terms.append((float(values[k] * comb(degree, k)), factors))
    return terms


def monomial_product_terms(coef):
    """``sum_j coef[j] t^j`` as product terms: term ``j`` is ``j`` factors ``t``."""
    coef = np.asarray(coef, dtype=float)
    return [
        (float(c), [(0.0, 1.0, j)] if j else [])
        for j, c in enumerate(coef)
        if c != 0.0 or j == 0
    ]


def _pad(coef, degree):
    out = np.zeros(degree + 1)
    out[: min(len(coef), degree + 1)] = coef[: degree + 1]
    return out
