"""Unbiased LDP gradient oracles for a polynomial of a noisy inner product.

The linear classifiers of seed 001 (Algorithms 4 and 5) and seed 003
(Algorithm 5) need, for each user ``i`` and a model ``w``,

    g_i(w) = P(a_i) v_i,    a_i = s_i <w, z_i>,    v_i = s_i z_i,

where ``z_i`` is the (scaled, possibly intercept-augmented) feature vector,
``s_i`` the +-1 label (or 1 when the label is not part of the product) and
``P(a) = sum_j c_j a^j`` a polynomial approximation of a loss derivative.
The server only has noisy copies of ``z_i`` and ``s_i``; this module turns
them into an estimate whose expectation over the noise is exactly
``g_i(w)``, for any ``w``. Two estimators are implemented:

- ``'product'`` (printed, seed 001 Algorithm 4): the user sent ``K`` noisy
  copies; copy 0 gives the direction ``v``, and every factor of every term
  of ``P`` is evaluated on its own fresh copy, so products of independent
  unbiased factors are unbiased. ``P`` is given as product terms
  (:func:`bernstein_product_terms` for the printed Bernstein form, which
  needs ``d (d + 1)`` copies; :func:`monomial_product_terms`, ``d (d+1)/2``).
- ``'fission'`` (improved): the user sent one jointly calibrated report; the
  server splits it into ``d + 1`` independent copies by Gaussian fission
  (:func:`gaussian_fission`), estimates ``P(a)`` from ``d`` of them with the
  elementary symmetric polynomials (:func:`unbiased_polynomial`) and takes
  ``v`` from the last one.

Fission without materializing the copies. Only ``<w, x_k>`` of the ``d``
polynomial copies and one full direction copy are needed. Split the report
``x_rep`` (noise ``sigma``) once into a direction copy
``x_dir = x_rep + sigma sqrt(d) G`` and their complement
``x_bar = x_rep - (sigma / sqrt(d)) G``, with independent noises of variance
``(d+1) sigma^2`` and ``(d+1) sigma^2 / d`` (``x_rep`` is their precision
weighted mean). Fission of ``x_bar`` into ``d`` copies adds
``sbar sum_l M[k, l] W_l`` (``M = fission_matrix(d)``, ``W_l`` iid standard
normal vectors), whose inner product with ``w`` is ``sbar ||w|| sum_l M[k, l]
N_l`` with ``N_l`` iid standard normal *scalars*. So the ``d + 1`` copies of
the improved estimator have exactly the law of a ``(d+1)``-way Gaussian
fission, while the server stores one extra array (``x_dir``) and draws
``d - 1`` scalars per user and evaluation. The scalars are drawn from a
per-chunk seed fixed at construction, so :meth:`PolynomialGradientOracle.mean`
is one fixed (random) vector field of ``w``, as full-batch gradient descent
needs; for each ``w`` it is unbiased. The estimators' servers build this
oracle per block of a report stream instead
(:class:`~sklearn_ldp.aggregation._blocks.StreamedOracle`): the split and
the scalars are then drawn from seeds keyed by each report's position
(``split_draws``, and a :class:`~sklearn_ldp.aggregation._blocks.KeyedDraws`
in place of the generator), so every pass over the stream redraws the same
numbers.

Lattice reports. The reports are ``x' + g J`` with ``J`` a rounded Gaussian
(:class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer`) and ``x'`` the
record after unbiased randomized rounding; ``sigma_x`` and ``sigma_y`` are
the configuration's exact standard deviations of the released noise. The
fission and the elementary symmetric polynomials assume Gaussian noise; the
rounded Gaussian differs from it by cumulants of order ``g^4`` (relative
``s^-4 / 120`` for ``s`` cells per sigma, below ``1e-16`` at 4096 cells), so
the estimates are unbiased up to terms of that relative order. In
``'product'`` mode each copy is rounded on its own, so products of copies
are exactly unbiased for the record; in ``'fission'`` mode the copies share
the rounded ``x'``, whose extra variance (at most ``g^2 / 4`` per number) is
part of the data the oracle is unbiased for.
"""

import numpy as np
from sklearn.utils import check_random_state, gen_batches

from ..randomizers import chunk_rows
from ._approximation import monomial_product_terms
from ._blocks import KeyedDraws, standard_normals
from ._fission import fission_matrix
from ._polynomial import unbiased_polynomial


def product_terms_copies(terms):
    """Number of fresh copies a product-term polynomial needs (one per factor)."""
    return int(sum(count for _, factors in terms for _, _, count in factors))


def product_estimate(U, terms):
    """Unbiased estimate of a product-term polynomial from independent copies.

    Parameters
    ----------
    U : ndarray of shape (n, k)
        Independent unbiased estimates of ``a`` (one column per copy),
        ``k >= product_terms_copies(terms)``.
    terms : list of (weight, [(offset, slope, count), ...])
        ``P(a) = sum weight * prod (offset + slope a)^count``.

    Returns
    -------
    estimate : ndarray of shape (n,)
        Each factor uses its own column, in order, so every product is of
        independent unbiased factors.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import monomial_product_terms, product_estimate
    >>> U = np.array([[2.0, 3.0, 5.0]])
    >>> product_estimate(U, monomial_product_terms([1.0, 1.0, 1.0])).tolist()  # 1 + 2 + 3*5
    [18.0]
    """
    U = np.asarray(U, dtype=float)
    needed = product_terms_copies(terms)
    if U.shape[1] < needed:
        raise ValueError(f"These product terms need {needed} copies; got {U.shape[1]}.")
    estimate = np.zeros(U.shape[0])
    column = 0
    for weight, factors in terms:
        product = np.full(U.shape[0], weight)
        for offset, slope, count in factors:
            block = U[:, column : column + count]
            product *= np.prod(offset + slope * block, axis=1)
            column += count
        estimate += product
    return estimate


class PolynomialGradientOracle:
    """Unbiased estimates of ``P(s <w, z>) s z`` per user from noisy reports.

    Parameters
    ----------
    x : ndarray of shape (n_users, n_features) or (n_users, n_copies, n_features)
        Noisy features, already scaled so that the clean ones have l2 norm at
        most 1. One report per user for ``mode='fission'``, ``n_copies`` for
        ``mode='product'`` (copy 0 is the direction copy).
    y : ndarray of shape (n_users,) or (n_users, n_copies), default=None
        Noisy +-1 labels, or None for no label factor (``s = 1``).
    mode : {'fission', 'product'}
    coef : array-like of shape (d + 1,), default=None
        Monomial coefficients of ``P`` (``'fission'``; also accepted by
        ``'product'``, which then uses :func:`monomial_product_terms`).
    terms : list, default=None
        Product terms of ``P`` (``'product'`` only).
    sigma_x, sigma_y : float, default=None
        Noise std of ``x`` and ``y`` (``'fission'`` only).
    fit_intercept : bool, default=False
        Append a noiseless constant feature 1 to ``z`` (public, costs nothing).
    random_state : int, RandomState instance or None
        Server randomness (fission noise, chunk seeds).
    split_draws : KeyedDraws or None, default=None
        The fission split's normals for these reports, keyed by their
        positions (a block of a streamed server,
        :class:`~sklearn_ldp.aggregation._blocks.StreamedOracle`); None:
        drawn from ``random_state``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import PolynomialGradientOracle
    >>> rng = np.random.RandomState(0)
    >>> x = np.array([[0.6, 0.0]]) + 0.1 * rng.standard_normal((50_000, 2))
    >>> oracle = PolynomialGradientOracle(x, coef=[0.0, 1.0], sigma_x=0.1,
    ...                                   random_state=0)
    >>> oracle.mean(np.array([1.0, 0.0])).round(2).tolist()  # 0.6 * [0.6, 0]
    [0.36, 0.0]
    """

    def __init__(
        self,
        x,
        y=None,
        *,
        mode="fission",
        coef=None,
        terms=None,
        sigma_x=None,
        sigma_y=None,
        fit_intercept=False,
        random_state=None,
        split_draws=None,
    ):
        if mode not in ("fission", "product"):
            raise ValueError(f"mode must be 'fission' or 'product', got {mode!r}.")
        self.mode = mode
        self.x = np.asarray(x, dtype=float)
        self.y = None if y is None else np.asarray(y, dtype=float)
        self.fit_intercept = bool(fit_intercept)
        expected_ndim = 2 if mode == "fission" else 3
        if self.x.ndim != expected_ndim:
            raise ValueError(
                f"mode={mode!r} needs x with {expected_ndim} dimensions, "
                f"got {self.x.shape}."
            )
        if self.y is not None and self.y.shape != self.x.shape[:-1]:
            raise ValueError(f"y has shape {self.y.shape}, x {self.x.shape}.")
        n_users, n_features = self.x.shape[0], self.x.shape[-1]
        self.n_users = n_users
        self.dim = n_features + self.fit_intercept
        self.param_shape = (self.dim,)
        rng = check_random_state(random_state)
        if mode == "fission":
            if coef is None or terms is not None:
                raise ValueError("mode='fission' takes monomial coef (and no terms).")
            if sigma_x is None or (self.y is not None and sigma_y is None):
                raise ValueError("mode='fission' needs sigma_x (and sigma_y with y).")
            self.coef = np.asarray(coef, dtype=float)
            self.degree = self.coef.shape[0] - 1
            # d copies for P (at least one, so that e_0 is defined) + direction.
            self.n_poly = max(self.degree, 1)
            self.n_copies = self.n_poly + 1
            self.sigma_x = float(sigma_x)
            self.sigma_y = None if sigma_y is None else float(sigma_y)
            self._mixing = fission_matrix(self.n_poly)
            self._split(rng, split_draws)
            # Per user and evaluation: the direction copy and the copies' scalars.
            self.values_per_user = n_features + 2 * self.n_copies
        else:
            if (coef is None) == (terms is None):
                raise ValueError("mode='product' takes exactly one of coef and terms.")
            self.terms = monomial_product_terms(coef) if terms is None else terms
            needed = product_terms_copies(self.terms) + 1
            if self.x.shape[1] < needed:
                raise ValueError(
                    f"This polynomial needs {needed} copies per user (one for the "
                    f"direction); the reports have {self.x.shape[1]}."
                )
            self.n_copies = needed
            self.values_per_user = self.x.shape[1] * (n_features + 1)
        self.chunk_size = chunk_rows(self.values_per_user)
        n_chunks = -(-n_users // self.chunk_size)
        self._chunk_seeds = rng.randint(np.iinfo(np.int32).max, size=n_chunks)

    def _split(self, rng, split_draws=None):
        """Split each report into the direction copy and the polynomial part."""
        d = self.n_poly
        self.y_dir = self.y_bar = None
        if split_draws is not None:
            # One draw per report, its row keyed by the report's position.
            n_features = self.x.shape[1]
            noise = split_draws.normals(n_features + (self.y is not None))
            self.x_dir = self.x + self.sigma_x * np.sqrt(d) * noise[:, :n_features]
            if self.y is not None:
                self.y_dir = self.y + self.sigma_y * np.sqrt(d) * noise[:, -1]
        else:
            self.x_dir = np.empty_like(self.x)
            for batch in gen_batches(self.n_users, chunk_rows(self.x.shape[1])):
                noise = rng.standard_normal(self.x[batch].shape)
                self.x_dir[batch] = self.x[batch] + self.sigma_x * np.sqrt(d) * noise
            if self.y is not None:
                self.y_dir = self.y + self.sigma_y * np.sqrt(d) * rng.standard_normal(
                    self.y.shape
                )
        if self.y is not None:
            self.y_bar = (1.0 + 1.0 / d) * self.y - self.y_dir / d
        # Noise std of x_bar and y_bar: (d+1) sigma^2 / d.
        self._sbar_x = self.sigma_x * np.sqrt((d + 1.0) / d)
        self._sbar_y = None if self.y is None else self.sigma_y * np.sqrt((d + 1.0) / d)

    def estimates(self, w, indices, random_state=None):
        """The independent unbiased estimates behind the oracle, for some users.

        Returns
        -------
        U : ndarray of shape (m, k)
            Column ``j``: an unbiased estimate of ``s <w, z>`` from copy ``j``;
            the columns are independent given the clean record.
        V : ndarray of shape (m, dim)
            The direction copy, unbiased for ``s z``, independent of ``U``.
        """
        w = np.asarray(w, dtype=float)
        if self.mode == "product":
            x = self.x[indices]
            inner = self._inner(w, x)  # (m, K)
            if self.y is not None:
                inner = inner * self.y[indices]
            y0 = None if self.y is None else self.y[indices][:, 0]
            return inner[:, 1:], self._direction(x[:, 0], y0)
        rng = _generator(random_state)
        d = self.n_poly
        x_rep, x_dir = self.x[indices], self.x_dir[indices]
        inner_bar = (1.0 + 1.0 / d) * self._inner(w, x_rep) - self._inner(w, x_dir) / d
        # (The intercept term w[-1] enters with weight (1 + 1/d) - 1/d = 1.)
        m = inner_bar.shape[0]
        w_norm = np.linalg.norm(w[: self.x.shape[1]])
        # <w, x_k> = <w, x_bar> + sbar ||w|| (M N)_k with N iid N(0, 1).
        inner = (
            inner_bar[:, None]
            + (self._sbar_x * w_norm) * standard_normals(rng, m, d - 1) @ self._mixing.T
        )
        y_dir = None
        if self.y is not None:
            y_bar = self.y_bar[indices]
            y_copies = (
                y_bar[:, None]
                + self._sbar_y * standard_normals(rng, m, d - 1) @ self._mixing.T
            )
            inner = inner * y_copies
            y_dir = self.y_dir[indices]
        return inner, self._direction(x_dir, y_dir)

    def per_user(self, w, indices, random_state=None):
        """Per-user oracle values ``(len(indices), dim)`` for the given users.

        Fresh server randomness from ``random_state``.
        """
        U, V = self.estimates(w, indices, random_state)
        if self.mode == "product":
            poly = product_estimate(U, self.terms)
        else:
            poly = unbiased_polynomial(U, self.coef)
        return poly[:, None] * V

    def mean(self, w, *, return_second_moment=False):
        """Average of the oracle over all users: an unbiased estimate of the mean gradient.

        Deterministic in ``w`` for a given oracle (fixed per-chunk seeds).
        With ``return_second_moment`` also returns the mean squared norm of
        the per-user values (to estimate the oracle's variance).
        """
        total = np.zeros(self.dim)
        squares = 0.0
        for seed, batch in zip(
            self._chunk_seeds, gen_batches(self.n_users, self.chunk_size), strict=True
        ):
            values = self.per_user(w, batch, np.random.default_rng(seed))
            total += values.sum(axis=0)
            if return_second_moment:
                squares += float(np.einsum("ij,ij->", values, values))
        mean = total / self.n_users
        if return_second_moment:
            return mean, squares / self.n_users
        return mean

    def sums(self, w, indices, random_state=None):
        """Sum of the oracles of users ``indices`` and of their squared norms."""
        values = self.per_user(w, indices, random_state)
        return values.sum(axis=0), float(np.einsum("ij,ij->", values, values))

    def batch(self, w, indices, random_state=None):
        """Average of the oracle over a batch of users (for stochastic solvers)."""
        return self.per_user(w, indices, random_state).mean(axis=0)

    def second_moment(self, w, indices, random_state=None):
        """Mean squared norm of the per-user oracle at ``w`` on some users."""
        values = self.per_user(w, indices, random_state)
        return float(np.mean(np.einsum("ij,ij->i", values, values)))

    def _inner(self, w, x):
        """``<w, z>`` for noisy features ``x`` (intercept feature appended)."""
        inner = x @ w[: x.shape[-1]]
        if self.fit_intercept:
            inner = inner + w[-1]
        return inner

    def _direction(self, x, y):
        if self.fit_intercept:
            x = np.concatenate([x, np.ones(x.shape[:-1] + (1,))], axis=-1)
        return x if y is None else y[..., None] * x


def _generator(random_state):
    if isinstance(random_state, (np.random.Generator, KeyedDraws)):
        return random_state
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    return np.random.default_rng(seed)
