"""Unbiased gradients of a one-vs-rest margin loss whose label enters linearly.

Every margin loss ``f(y a)`` with ``a = <w, z>`` and ``y`` in {-1, +1} is a
*smooth generalized linear loss*: ``f(y a) = -y h1(a) + h2(a)`` with
``h2(a) = (f(a) + f(-a)) / 2`` and ``h1(a) = -(f(a) - f(-a)) / 2``, so its
gradient is ``m(a, y) z`` with

    m(a, y) = h2'(a) - y h1'(a),   h2'(a) = (f'(a) - f'(-a)) / 2,
                                   h1'(a) = -(f'(a) + f'(-a)) / 2.

The label enters ``m`` linearly, so one noisy label per user suffices. The
oracle below gives, per user and class, independent unbiased estimates
``U`` of ``a`` and a direction copy ``V`` of ``z``; each *multiplier*
returns an unbiased estimate of the scalar ``m(a, y)`` from ``U`` and the
noisy labels (whose noise is independent of ``U`` and ``V``), so
``multiplier * V`` is unbiased for the gradient ``m(a, y) z``.

Notes
-----
Zheng, Mou and Wang, *Collect at Once, Use Effectively: Making
Non-interactive Locally Private Learning Possible*, ICML 2017 (seed 003),
Definition 3 and Algorithms 5-6 (for logistic regression ``h1(a) = a / 2``
and ``h2(a) = a / 2 + ln(1 + e^-a)``, as printed); Wang, Gaboardi, Smith and
Xu, JMLR 21 (2020) (seed 001), Algorithms 4-5, whose printed oracle
multiplies a noisy label into every factor of the polynomial (which
multiplies the variance).
"""

import numpy as np
from sklearn.utils import check_random_state, gen_batches

from ..randomizers import chunk_rows
from ._oracle import PolynomialGradientOracle, _generator, product_estimate
from ._polynomial import unbiased_polynomial


def linear_label_parts(derivative):
    """``(h2', h1')`` of the margin loss with derivative ``f'`` (module docstring)."""

    def h2_prime(a):
        return 0.5 * (derivative(a) - derivative(-np.asarray(a)))

    def h1_prime(a):
        return -0.5 * (derivative(a) + derivative(-np.asarray(a)))

    return h2_prime, h1_prime


def fission_linear_multiplier(coef2, coef1):
    """``P2(a) - y P1(a)`` from ``d`` fission copies (elementary symmetric estimates).

    ``P2`` and ``P1`` approximate ``h2'`` and ``h1'`` (monomial coefficients
    ``coef2``, ``coef1``); seed 003's ``m`` with both polynomials estimated
    from the same ``d`` independent copies.
    """

    def multiplier(U, y, rng):
        return unbiased_polynomial(U, coef2) - y * unbiased_polynomial(U, coef1)

    return multiplier


def fission_smoothed_quantile_multiplier(coef, smoothing):
    """The smoothed quantile derivative from ``d`` fission copies, one ``s ~ Q`` per user.

    With ``q(t) = f'(lo) + D P((t - s) / 2)`` (``P`` approximates
    ``h_beta'``; ``smoothing`` a
    :class:`~sklearn_ldp.aggregation.SmoothedQuantileDerivative`) the
    per-user gradient ``y q(y a) z`` equals, for ``y = +-1``,
    ``[D (P_+ - P_-) / 2 + y (f'(lo) + D (P_+ + P_-) / 2)] z`` with
    ``P_+- = P((+-a - s) / 2)``: linear in ``y``.
    """

    def multiplier(U, y, rng):
        s = smoothing.sample(U.shape[0], rng)[:, None]
        plus = unbiased_polynomial((U - s) / 2.0, coef)
        minus = unbiased_polynomial((-U - s) / 2.0, coef)
        spread = smoothing.spread
        return 0.5 * spread * (plus - minus) + y * (
            smoothing.f_lo + 0.5 * spread * (plus + minus)
        )

    return multiplier


def power_copies_multiplier(coef2, coef1):
    """``sum_k (c2_k - c1_k y_k) t_k`` on the reports of ``protocol='power_copies'``.

    ``t_k`` is the product of ``<w, z_i>`` over the ``k``-th block of ``k``
    fresh feature copies (``p (p+1) / 2`` copies in all) and ``y_k`` the
    ``k``-th of ``p + 1`` label copies: every product is of independent
    unbiased factors.

    Notes
    -----
    Seed 003, Algorithm 6, line 8 (the printed ``zy_j`` inside the sum over
    ``k`` is ``zy_k``).
    """

    def multiplier(U, Y, rng):
        total = np.zeros(U.shape[0])
        column = 0
        for k in range(len(coef2)):
            block = np.prod(U[:, column : column + k], axis=1)
            column += k
            total += (coef2[k] - coef1[k] * Y[:, k]) * block
        return total

    return multiplier


def product_copies_multiplier(terms, smoothing=None):
    """The product estimator on the reports of ``protocol='product_copies'``.

    Copy ``k >= 1`` gives ``u_k = y_k <w, z_k>``; the product terms of the
    Bernstein polynomial take one fresh copy per factor, and the result
    multiplies ``y_0`` (the direction is ``y_0 z_0``). With ``smoothing`` (a
    :class:`~sklearn_ldp.aggregation.SmoothedQuantileDerivative`) the
    polynomial of ``h_beta'`` is applied to ``(u_k - s) / 2`` with **one**
    ``s ~ Q`` per user and evaluation, and ``f'(lo)`` is added *inside* the
    factor of ``y_0 z_0``.

    Notes
    -----
    Seed 001, Algorithm 4 (``smoothing=None``) or 5. The printed Algorithm 5
    adds ``f'(-1)`` outside the factor of ``y_0 z_0`` at line 18 (a typo,
    ALGORITHMS.md section 2), and draws at line 12 a fresh ``s_k`` per
    factor, whose expectation is ``P((t - E s) / 2)`` rather than the
    ``E_s P((t - s) / 2)`` of the proof (a bias; see
    ``tests/aggregation/test_glm_oracle.py``).
    """

    def multiplier(U, Y, rng):
        margins = Y[:, 1 : U.shape[1] + 1] * U
        if smoothing is None:
            return product_estimate(margins, terms) * Y[:, 0]
        s = smoothing.sample(U.shape[0], rng)[:, None]
        poly = product_estimate((margins - s) / 2.0, terms)
        return (smoothing.f_lo + smoothing.spread * poly) * Y[:, 0]

    return multiplier


def fission_feature_copies(
    x, degree, sigma_x, fit_intercept, random_state, split_draws=None
):
    """The feature copies of the fission oracle for a degree-``degree`` multiplier.

    A :class:`~sklearn_ldp.aggregation.PolynomialGradientOracle` over the
    features only (``coef`` sets the number of copies, not a polynomial).
    ``sigma_x`` is the configuration's exact standard deviation of the
    released lattice noise (rounding included); the rounded Gaussian departs
    from a Gaussian by cumulants of relative order ``s^-4`` (see
    :mod:`~sklearn_ldp.aggregation._oracle`).
    """
    return PolynomialGradientOracle(
        x,
        mode="fission",
        coef=np.zeros(int(degree) + 1),
        sigma_x=sigma_x,
        fit_intercept=fit_intercept,
        random_state=random_state,
        split_draws=split_draws,
    )


class GLMGradientOracle:
    """Unbiased per-user gradients of a one-vs-rest margin loss from noisy reports.

    For ``W`` of shape ``(dim, n_outputs)`` and user ``i`` the oracle is
    ``m_c(i) V_i`` for each class ``c``: ``copies`` (a
    :class:`~sklearn_ldp.aggregation.PolynomialGradientOracle` over the
    features only) gives independent unbiased estimates ``U`` of
    ``<w_c, z_i>`` and the direction copy ``V_i`` of ``z_i``; ``multiplier``
    turns ``U`` and the user's noisy labels into an unbiased estimate of the
    scalar ``m_c`` (module docstring). Classes share the feature copies: the
    estimate of each class's gradient is unbiased, and the gradient is
    linear in them.

    Parameters
    ----------
    copies : PolynomialGradientOracle
        Built with ``y=None``.
    labels : ndarray of shape (n_users, [n_label_copies,] n_outputs)
        Noisy +-1 labels (one-vs-rest for several outputs).
    multiplier : callable
        ``multiplier(U, labels_of_class, rng) -> (m,)``.
    random_state : int, RandomState instance or None
        Seeds of the chunks of :meth:`mean` (a fixed field of ``W``).
    """

    def __init__(self, copies, labels, multiplier, random_state=None):
        self.copies = copies
        self.labels = labels
        self.multiplier = multiplier
        self.n_users = copies.n_users
        self.dim = copies.dim
        self.n_outputs = labels.shape[-1]
        self.param_shape = (self.dim, self.n_outputs)
        self.chunk_size = chunk_rows(copies.values_per_user * self.n_outputs)
        n_chunks = -(-self.n_users // self.chunk_size)
        rng = check_random_state(random_state)
        self._chunk_seeds = rng.randint(np.iinfo(np.int32).max, size=n_chunks)

    def values(self, W, indices, rng):
        """Multipliers ``(m, n_outputs)`` and the direction copies ``(m, dim)``."""
        rng = _generator(rng)
        labels = self.labels[indices]
        multipliers = np.empty((labels.shape[0], self.n_outputs))
        direction = None
        # A loop over classes (not users): each class has its own inner products.
        for c in range(self.n_outputs):
            U, direction = self.copies.estimates(W[:, c], indices, rng)
            multipliers[:, c] = self.multiplier(U, labels[..., c], rng)
        return multipliers, direction

    def mean(self, W, *, return_second_moment=False):
        """Average of all users' oracles, shape ``(dim, n_outputs)``; fixed in ``W``."""
        total = np.zeros((self.dim, self.n_outputs))
        squares = 0.0
        for seed, batch in zip(
            self._chunk_seeds, gen_batches(self.n_users, self.chunk_size), strict=True
        ):
            multipliers, direction = self.values(W, batch, np.random.default_rng(seed))
            total += direction.T @ multipliers
            if return_second_moment:
                squares += _squared_norms(multipliers, direction).sum()
        mean = total / self.n_users
        if return_second_moment:
            return mean, squares / self.n_users
        return mean

    def sums(self, W, indices, rng):
        """Sum of the oracles of users ``indices`` and of their squared norms."""
        multipliers, direction = self.values(W, indices, rng)
        return direction.T @ multipliers, float(
            _squared_norms(multipliers, direction).sum()
        )

    def batch(self, W, indices, rng):
        """Average over a batch of users (fresh server randomness from ``rng``)."""
        multipliers, direction = self.values(W, indices, rng)
        return direction.T @ multipliers / multipliers.shape[0]

    def second_moment(self, W, indices, rng):
        """Mean squared (Frobenius) norm of the per-user oracle on some users."""
        multipliers, direction = self.values(W, indices, rng)
        return float(np.mean(_squared_norms(multipliers, direction)))


def _squared_norms(multipliers, direction):
    return np.einsum("ij,ij->i", direction, direction) * np.einsum(
        "ik,ik->i", multipliers, multipliers
    )
