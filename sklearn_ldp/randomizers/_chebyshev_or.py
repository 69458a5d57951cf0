"""Low-degree polynomial approximation of OR on ``{0, 1, ..., k}``.

Seed 001 (section 6.1, Definition 39 and Lemma 40) answers monotone k-way
disjunctions through a univariate polynomial ``p`` with ``p(0) = 0`` and
``|p(s) - 1| <= gamma`` for ``s in {1..k}``: for a binary record ``x`` and a
query ``y`` with ``|y| <= k``, ``OR_j (x_j y_j) = 1[s >= 1]`` with
``s = sum_j x_j y_j in {0..k}``, so ``p(s)`` approximates the disjunction.

The construction is Thaler, Ullman and Vadhan's (ICALP 2012), after Klivans
and Servedio: with the Chebyshev polynomial ``T_d``,

    q(s) = T_d((k - s) / (k - 1)) / T_d(k / (k - 1)),     p(s) = 1 - q(s)^r.

``q(0) = 1``, and for ``s in [1, k]`` the argument lies in ``[0, 1]`` where
``|T_d| <= 1``, so ``|q(s)| <= 1 / T_d(k / (k - 1))``. Since
``T_d(a) = cosh(d arccosh a)`` and ``arccosh(k / (k - 1)) ~ sqrt(2 / k)``,
``d = O(sqrt(k))`` makes the denominator at least 2 and ``r = O(log 1/gamma)``
powers bring the error to ``gamma``: degree ``t = d r = O(sqrt(k) log(1/gamma))``.
We pick, among all ``(d, r)`` with ``T_d(k / (k - 1))^-r <= gamma``, the one of least degree
``d r`` (then least ``d``).

On binary queries a polynomial in ``s`` is best written in the Newton basis
``p(s) = sum_m w_m C(s, m)`` with ``w_m = Delta^m p(0)`` (forward
differences; ``w_0 = p(0) = 0`` and ``w_m = 0`` for ``m > t``): since
``C(s, m)`` counts the size-``m`` subsets ``S`` of ``x AND y``, the
p-variate polynomial ``p(sum_j x_j y_j)`` reduced with ``y_j^2 = y_j`` (exact
on binary ``y``) is ``sum_{S} w_{|S|} 1[S subset of x] prod_{j in S} y_j``.
Its coefficient vector has one entry per subset of size ``1..min(t, k)``;
this is what the users of :class:`~sklearn_ldp.KWayMarginalsLDP` report
(:class:`~sklearn_ldp.randomizers.MarginalRandomizer`), so the polynomial is
public configuration a device computes; the server evaluates the averaged
polynomial (:func:`~sklearn_ldp.aggregation.disjunction_tables`).
``gamma = 0`` gives the exact (degree ``k``) inclusion-exclusion polynomial
``w_m = (-1)^(m + 1)``.
"""

from dataclasses import dataclass
from math import comb, factorial

import numpy as np
from numpy.polynomial import chebyshev, polynomial

#: Largest polynomial degree constructed (monomial coefficients of higher
#: degree overflow the float range of the coefficient bound).
MAX_OR_DEGREE = 200


@dataclass(frozen=True)
class ORPolynomial:
    """A univariate approximation ``p`` of OR on ``{0..k}``.

    Attributes
    ----------
    k : int
        Largest number of ones the query may meet (``|y| <= k``).
    gamma : float
        Requested uniform error (0 for the exact polynomial).
    degree : int
        ``t``, the degree of ``p``.
    chebyshev_degree, power : int
        ``d`` and ``r`` of ``p = 1 - (T_d(...) / T_d(k / (k - 1)))^r``
        (``0, 0`` for the exact polynomial).
    coef : ndarray of shape (degree + 1,)
        Monomial coefficients of ``p`` (lowest degree first).
    newton : ndarray of shape (k + 1,)
        ``w_m = Delta^m p(0)`` for ``m = 0..k``, the coefficient of every
        size-``m`` monomial of the multilinear (binary-domain) form.
    uniform_error : float
        ``max(|p(0)|, max_{s in 1..k} |p(s) - 1|)``, computed.
    coefficient_bound : float
        A proven bound on ``sum_i |coef_i|`` (see :func:`or_polynomial`).
    """

    k: int
    gamma: float
    degree: int
    chebyshev_degree: int
    power: int
    coef: np.ndarray
    newton: np.ndarray
    uniform_error: float
    coefficient_bound: float

    def __call__(self, s):
        """Evaluate ``p`` at ``s``."""
        return polynomial.polyval(np.asarray(s, dtype=float), self.coef)


def _check_k_gamma(k, gamma):
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}.")
    gamma = float(gamma)
    if not (0.0 <= gamma < 1.0):
        raise ValueError(f"gamma must be in [0, 1), got {gamma!r}.")
    return int(k), gamma


def chebyshev_or_parameters(k, gamma):
    """``(d, r)`` of least degree ``d r`` with ``T_d(k / (k - 1))^-r <= gamma``.

    Returns ``(0, 0)`` when the exact degree-``k`` polynomial is not beaten:
    ``k = 1``, ``gamma = 0``, or no ``(d, r)`` reaches a degree below ``k``
    (then the exact polynomial, of degree ``k`` and error 0, is at least as
    good).
    """
    k, gamma = _check_k_gamma(k, gamma)
    if k == 1 or gamma == 0.0:
        return 0, 0
    anchor = k / (k - 1)
    best = None
    for d in range(1, k + 1):
        growth = float(np.cosh(d * np.arccosh(anchor)))  # T_d(anchor), anchor > 1
        r = int(np.ceil(np.log(1.0 / gamma) / np.log(growth)))
        r = max(r, 1)
        if best is None or (d * r, d) < (best[0] * best[1], best[0]):
            best = (d, r)
    d, r = best
    if d * r >= k:
        return 0, 0
    return d, r


def or_polynomial(k, gamma):
    """The Thaler-Ullman-Vadhan approximation of OR on ``{0..k}`` with error ``gamma``.

    Parameters
    ----------
    k : int
        ``k >= 1``; queries meet at most ``k`` ones.
    gamma : float
        Target uniform error in ``[0, 1)``. ``gamma = 0`` (or a ``gamma``
        whose Chebyshev polynomial would not have degree below ``k``) gives
        the exact inclusion-exclusion polynomial
        ``p(s) = sum_{m=1..k} (-1)^(m+1) C(s, m)`` of degree ``k``.

    Returns
    -------
    poly : ORPolynomial

    Notes
    -----
    Coefficient bound (the ``2^O(sqrt(k) log 1/gamma)`` of Definition 39,
    made explicit): the l1 norm of monomial coefficients is submultiplicative
    and ``||f(a + b s)||_1 <= sum_j |f_j| (|a| + |b|)^j``. With ``T_d``'s
    coefficients ``tau_j``, ``a = k / (k - 1)``, ``|b| = 1 / (k - 1)``:
    ``||q||_1 <= sum_j |tau_j| (a + |b|)^j / T_d(a)`` and
    ``||p||_1 <= 1 + ||q||_1^r``. For the exact polynomial,
    ``||p||_1 <= sum_{m=1..k} ||C(s, m)||_1 = k``: the falling factorial
    ``s (s - 1) ... (s - m + 1)`` has coefficients of alternating sign, so
    its l1 norm is its absolute value at ``s = -1``, ``m!``.

    Examples
    --------
    >>> from sklearn_ldp.randomizers import or_polynomial
    >>> poly = or_polynomial(16, 0.2)
    >>> poly.degree, poly.uniform_error <= 0.2
    (7, True)
    >>> or_polynomial(3, 0.0).newton.tolist()
    [0.0, 1.0, -1.0, 1.0]
    """
    k, gamma = _check_k_gamma(k, gamma)
    d, r = chebyshev_or_parameters(k, gamma)
    if d == 0:
        # Exact: p(s) = sum_m (-1)^(m+1) C(s, m) = 1 - (1 - 1)^s on integers.
        coef = np.zeros(k + 1)
        for m in range(1, k + 1):
            falling = np.array([1.0])
            for i in range(m):
                falling = polynomial.polymul(falling, [-float(i), 1.0])
            coef[: m + 1] += (-1) ** (m + 1) * falling / float(factorial(m))
        bound = float(k)
    else:
        if d * r > MAX_OR_DEGREE:  # pragma: no cover - unreachable: d r < k is checked
            raise ValueError(
                f"The OR polynomial would have degree {d * r} > {MAX_OR_DEGREE}."
            )
        anchor = k / (k - 1)
        tau = chebyshev.cheb2poly([0.0] * d + [1.0])
        denominator = float(chebyshev.chebval(anchor, [0.0] * d + [1.0]))
        linear = np.array([anchor, -1.0 / (k - 1)])
        q = np.zeros(1)
        for j, tau_j in enumerate(tau):
            q = polynomial.polyadd(q, tau_j * polynomial.polypow(linear, j))
        q = q / denominator
        coef = polynomial.polysub([1.0], polynomial.polypow(q, r))
        coef[0] = 0.0  # exactly 0 (q(0) = 1); removes rounding
        q_bound = float(
            np.sum(np.abs(tau) * (anchor + 1.0 / (k - 1)) ** np.arange(d + 1))
            / denominator
        )
        bound = 1.0 + q_bound**r
    coef = polynomial.polytrim(coef, tol=0.0)
    # p on {0..k} from its product form (the monomial form is ill-conditioned
    # at s ~ k for large degrees); the Newton coefficients come from these.
    s = np.arange(k + 1, dtype=float)
    if d == 0:
        values = (s >= 1).astype(float)
        newton = np.array([0.0] + [(-1.0) ** (m + 1) for m in range(1, k + 1)])
    else:
        ratio = chebyshev.chebval((k - s) / (k - 1), [0.0] * d + [1.0]) / denominator
        values = 1.0 - ratio**r
        newton = newton_coefficients(values)
        newton[d * r + 1 :] = 0.0  # Delta^m of a degree-t polynomial vanishes for m > t
    error = max(abs(values[0]), float(np.max(np.abs(values[1:] - 1.0))))
    return ORPolynomial(
        k=k,
        gamma=gamma,
        degree=int(coef.size - 1),
        chebyshev_degree=d,
        power=r,
        coef=coef,
        newton=newton,
        uniform_error=float(error),
        coefficient_bound=bound,
    )


def newton_coefficients(values):
    """Forward differences ``Delta^m f(0)``, ``m = 0..k``, of values ``f(0..k)``.

    ``Delta^m f(0) = sum_j (-1)^(m - j) C(m, j) f(j)``; then
    ``f(s) = sum_m Delta^m f(0) C(s, m)`` on ``{0..k}``.
    """
    values = np.asarray(values, dtype=float)
    k = values.size - 1
    out = np.empty(k + 1)
    for m in range(k + 1):
        signs = np.array(
            [(-1) ** (m - j) * comb(m, j) for j in range(m + 1)], dtype=float
        )
        out[m] = float(signs @ values[: m + 1])
    return out
