"""GLMLDPClassifier: generalized linear classifiers from one-shot noisy reports.

Seed 003 (Zheng, Mou, Wang, ICML 2017), Algorithms 5-6 (smooth generalized
linear losses by Chebyshev expansion) and seed 001 (Wang, Gaboardi, Smith,
Xu, JMLR 2020), Algorithm 5 with Lemma 32 (any convex Lipschitz margin
loss); ALGORITHMS.md sections 0 and 2.

Every margin loss ``f(y a)`` with ``a = <w, z>`` and ``y`` in {-1, +1} is a
*smooth generalized linear loss* in the sense of seed 003, Definition 3:
``f(y a) = -y h1(a) + h2(a)`` with ``h2(a) = (f(a) + f(-a)) / 2`` and
``h1(a) = -(f(a) - f(-a)) / 2``, so its gradient is ``m(a, y) z`` with

    m(a, y) = h2'(a) - y h1'(a),   h2'(a) = (f'(a) - f'(-a)) / 2,
                                   h1'(a) = -(f'(a) + f'(-a)) / 2.

The label enters ``m`` linearly, so one noisy label per user suffices
(the printed seed 001 oracle multiplies a noisy label into every factor of
the polynomial, which multiplies the variance). For logistic regression
``h1(a) = a / 2`` and ``h2(a) = a / 2 + ln(1 + e^-a)``, as printed.
"""

from numbers import Integral, Real

import numpy as np
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state, gen_batches
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if

from ._base import LDPEstimatorMixin, ldp_tags
from ._linear import LinearClassifierOutputMixin
from .accounting import gaussian_sigma
from .aggregation import (
    PolynomialGradientOracle,
    bernstein_product_terms,
    polynomial_approximation,
    product_estimate,
    unbiased_polynomial,
)
from .aggregation._oracle import _generator
from .optim import accelerated_projected_gradient, sigm
from .randomizers import (
    GaussianRecordRandomizer,
    LocalRandomizer,
    clip_l2,
    encode_labels,
)
from .utils import check_bound, check_delta, check_epsilon

#: Candidate degrees of ``degree='auto'``.
GLM_AUTO_DEGREES = tuple(range(1, 7))
#: Users on which the server estimates the oracle's second moment.
_PILOT_USERS = 20_000
#: Smoothing used by ``smoothing='auto'`` where the loss needs one.
_AUTO_SMOOTHING = 0.5
#: Grid of the quantile table of Lemma 32's distribution Q.
_QUANTILE_GRID = 4097
#: Quadrature nodes of the expectation over Q in the smoothed derivative.
_QUADRATURE_NODES = 2048


# -- losses of the margin t = y <w, z> ----------------------------------------


class MarginLoss:
    """A convex margin loss ``f(t)``: its value, derivative and smoothness.

    ``smoothness`` bounds ``f''`` (None when ``f'`` is not Lipschitz).
    """

    def __init__(self, name, value, derivative, smoothness):
        self.name = name
        self.value = value
        self.derivative = derivative
        self.smoothness = smoothness


def _hinge_derivative(t):
    return np.where(np.asarray(t, dtype=float) < 1.0, -1.0, 0.0)


def _squared_hinge_derivative(t):
    return -2.0 * np.maximum(0.0, 1.0 - np.asarray(t, dtype=float))


def _modified_huber(t):
    t = np.asarray(t, dtype=float)
    return np.where(t < -1.0, -4.0 * t, np.maximum(0.0, 1.0 - t) ** 2)


def _modified_huber_derivative(t):
    t = np.asarray(t, dtype=float)
    return np.where(t < -1.0, -4.0, -2.0 * np.maximum(0.0, 1.0 - t))


#: Built-in losses. ``'huber'`` is the modified Huber loss of Zhang (2004),
#: the classification Huber loss of ``SGDClassifier(loss='modified_huber')``.
LOSSES = {
    "logistic": MarginLoss(
        "logistic", lambda t: -log_expit(t), lambda t: -expit(-np.asarray(t)), 0.25
    ),
    "hinge": MarginLoss(
        "hinge",
        lambda t: np.maximum(0.0, 1.0 - np.asarray(t, dtype=float)),
        _hinge_derivative,
        None,
    ),
    "squared_hinge": MarginLoss(
        "squared_hinge",
        lambda t: np.maximum(0.0, 1.0 - np.asarray(t, dtype=float)) ** 2,
        _squared_hinge_derivative,
        2.0,
    ),
    "huber": MarginLoss("huber", _modified_huber, _modified_huber_derivative, 2.0),
}


def glm_risk(coef, intercept, X, y, loss="logistic", data_norm=1.0, classes=None):
    """Empirical risk ``mean f(s (<w, x / data_norm> + b))`` of a fitted model.

    One-vs-rest for several outputs: the sum over classes of each binary
    risk. ``coef`` (``(n_outputs, n_features)``) and ``intercept`` are in
    original units, as fitted; ``y`` holds labels from ``classes`` (default
    ``{-1, +1}`` for one output). ``X`` is clipped to ``data_norm`` as the
    users do. For the tests and the benchmark.
    """
    loss = LOSSES[loss] if isinstance(loss, str) else loss
    coef = np.atleast_2d(coef)
    intercept = np.ravel(intercept)
    scores = clip_l2(X, data_norm) @ coef.T + intercept
    if classes is None:
        classes = np.array([-1, 1])
    signs = encode_labels(y, np.asarray(classes))
    signs = signs[:, None] if signs.ndim == 1 else 2.0 * signs - 1.0
    return float(np.mean(np.sum(loss.value(signs * scores), axis=1)))


# -- Lemma 32 --------------------------------------------------------------


def lemma32_quantile_table(derivative, interval, n_grid=_QUANTILE_GRID):
    """Quantile function of the distribution Q of seed 001, Lemma 32, on a grid.

    Q is the law of ``s = max{s in [lo, hi] : u in df(s)}`` for ``u`` uniform
    on ``[f'(lo), f'(hi)]``. Then for every ``t`` in ``[lo, hi]``

        f'(t) = f'(lo) + (f'(hi) - f'(lo)) P_{s~Q}(s < t)

    (Q's distribution function is ``(f'(t) - f'(lo)) / (f'(hi) - f'(lo))``).
    The printed lemma is on ``[-1, 1]`` for 1-Lipschitz ``f``; the identity
    holds on any interval for any convex ``f`` with ``f'(hi) > f'(lo)``.
    ``s(q) = sup{s : f'(s) <= f'(lo) + q (f'(hi) - f'(lo))}`` is computed by
    bisection at ``n_grid`` equispaced ``q`` in ``[0, 1]``; sampling
    interpolates linearly between them.

    Returns
    -------
    q, s : ndarray of shape (n_grid,)
    """
    lo, hi = (float(v) for v in interval)
    f_lo, f_hi = float(derivative(lo)), float(derivative(hi))
    q = np.linspace(0.0, 1.0, n_grid)
    level = f_lo + q * (f_hi - f_lo)
    left, right = np.full(n_grid, lo), np.full(n_grid, hi)
    done = np.asarray(derivative(right), dtype=float) <= level
    # Invariant: f'(left) <= level < f'(right) (where not done).
    for _ in range(60):
        middle = 0.5 * (left + right)
        below = np.asarray(derivative(middle), dtype=float) <= level
        left = np.where(below, middle, left)
        right = np.where(below, right, middle)
    return q, np.where(done, hi, left)


def smoothed_step_derivative(u, smoothing):
    """``h_beta'(u) = (1 + u / sqrt(u^2 + beta^2)) / 2``, a smoothed step in ``[0, 1]``.

    ``h_beta(u) = (u + sqrt(u^2 + beta^2)) / 2`` is within ``beta / 2`` of
    ``max(0, u)``; ``h_beta'' <= 1 / (2 beta)``.
    """
    u = np.asarray(u, dtype=float)
    return 0.5 * (1.0 + u / np.hypot(u, smoothing))


class Lemma32Smoothing:
    """The smoothed loss derivative of seed 001, proof of Theorem 34.

    ``F_beta'(t) = f'(lo) + D E_{s~Q}[h_beta'((t - s) / 2)]`` with
    ``D = f'(hi) - f'(lo)``: the step ``1(t > s)`` of Lemma 32 replaced by
    ``h_beta'``. ``F_beta`` is within ``D beta`` of ``f`` (up to a constant)
    and ``F_beta'' <= D / (4 beta)``.

    Parameters
    ----------
    derivative : callable
        ``f'``, non-decreasing on ``interval``.
    interval : tuple (lo, hi)
    smoothing : float
        ``beta > 0``.
    """

    def __init__(self, derivative, interval, smoothing):
        self.interval = tuple(float(v) for v in interval)
        self.smoothing = float(smoothing)
        lo, hi = self.interval
        self.f_lo = float(derivative(lo))
        self.spread = float(derivative(hi)) - self.f_lo
        self._q, self._s = lemma32_quantile_table(derivative, interval)
        midpoints = (np.arange(_QUADRATURE_NODES) + 0.5) / _QUADRATURE_NODES
        self._nodes = np.interp(midpoints, self._q, self._s)

    @property
    def smoothness(self):
        return self.spread / (4.0 * self.smoothing)

    def sample(self, size, rng):
        """Draws of ``s ~ Q``."""
        return np.interp(rng.uniform(size=size), self._q, self._s)

    def step(self, u):
        """``h_beta'(u)``, the function the ``'lemma32'`` polynomial approximates."""
        return smoothed_step_derivative(u, self.smoothing)

    def __call__(self, t):
        t = np.atleast_1d(np.asarray(t, dtype=float))
        steps = self.step((t[:, None] - self._nodes[None, :]) / 2.0)
        return self.f_lo + self.spread * steps.mean(axis=1)


def linear_label_parts(derivative):
    """``(h2', h1')`` of the margin loss with derivative ``f'`` (module docstring)."""

    def h2_prime(a):
        return 0.5 * (derivative(a) - derivative(-np.asarray(a)))

    def h1_prime(a):
        return -0.5 * (derivative(a) + derivative(-np.asarray(a)))

    return h2_prime, h1_prime


def check_convex_derivative(derivative, interval, n_points=1001):
    """Refuse a loss derivative that is not finite and non-decreasing on the interval."""
    grid = np.linspace(*interval, n_points)
    values = np.asarray(derivative(grid), dtype=float)
    if values.shape != grid.shape or not np.all(np.isfinite(values)):
        raise ValueError(
            "The loss derivative must be a vectorized function returning finite "
            f"values of the same shape; got shape {values.shape} on a grid of "
            f"{grid.shape}."
        )
    if np.any(np.diff(values) < -1e-12 * max(1.0, np.abs(values).max())):
        raise ValueError(
            "The loss derivative decreases on the reachable interval "
            f"[{interval[0]:.3g}, {interval[1]:.3g}]: the loss is not convex."
        )


# -- per-user multipliers m(a, y) from independent estimates of a -----------
#
# The oracle below gives, per user and class, independent unbiased estimates
# U of a = <w, z> and a direction copy V of z; each multiplier returns an
# unbiased estimate of the scalar m(a, y) from U and the noisy labels (which
# carry noise independent of U and V), so multiplier * V is unbiased for the
# gradient m(a, y) z.


def fission_linear_multiplier(coef2, coef1):
    """Improved mode, direct: ``P2(a) - y P1(a)`` (seed 003's ``m`` with elementary
    symmetric estimates of both polynomials from the same ``d`` copies)."""

    def multiplier(U, y, rng):
        return unbiased_polynomial(U, coef2) - y * unbiased_polynomial(U, coef1)

    return multiplier


def fission_lemma32_multiplier(coef, smoothing):
    """Improved mode, Lemma 32 with one ``s ~ Q`` per user and evaluation.

    With ``q(t) = f'(lo) + D P((t - s) / 2)`` (``P`` approximates
    ``h_beta'``) the per-user gradient ``y q(y a) z`` equals, for ``y = +-1``,
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


def seed003_product_multiplier(coef2, coef1):
    """Paper mode, seed 003 Algorithm 6, line 8: ``sum_k (c2k - c1k zy_k) t_k``.

    ``t_k`` is the product of ``<w, z_i>`` over the ``k``-th block of ``k``
    fresh copies (``p (p+1) / 2`` copies in all) and ``zy_k`` the ``k``-th of
    ``p + 1`` label copies: every product is of independent unbiased factors.
    (The printed ``zy_j`` inside the sum over ``k`` is ``zy_k``.)
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


def seed001_product_multiplier(terms, smoothing=None):
    """Paper mode, seed 001 Algorithm 4 (direct) or 5 (``smoothing`` given).

    Copy ``k >= 1`` gives ``u_k = y_k <w, z_k>``; the product terms of the
    Bernstein polynomial take one fresh copy per factor, and the result
    multiplies ``y_0`` (the direction is ``y_0 z_0``). Algorithm 5 applies
    the polynomial of ``h_beta'`` to ``(u_k - s) / 2`` with **one** ``s ~ Q``
    per user and evaluation, and adds ``f'(-1)`` *inside* the factor of
    ``y_0 z_0``: the printed line 18 adds it outside (a typo, ALGORITHMS.md
    section 2), and line 12 draws a fresh ``s_k`` per factor, whose
    expectation is ``P((t - E s) / 2)`` rather than the ``E_s P((t - s) / 2)``
    of the proof (a bias; see ``tests/test_glm.py``).
    """

    def multiplier(U, Y, rng):
        margins = Y[:, 1 : U.shape[1] + 1] * U
        if smoothing is None:
            return product_estimate(margins, terms) * Y[:, 0]
        s = smoothing.sample(U.shape[0], rng)[:, None]
        poly = product_estimate((margins - s) / 2.0, terms)
        return (smoothing.f_lo + smoothing.spread * poly) * Y[:, 0]

    return multiplier


class GLMGradientOracle:
    """Unbiased per-user gradients of a one-vs-rest margin loss from noisy reports.

    For ``W`` of shape ``(dim, n_outputs)`` and user ``i`` the oracle is
    ``m_c(i) V_i`` for each class ``c``: ``copies`` (a
    :class:`~sklearn_ldp.aggregation.PolynomialGradientOracle` over the
    features only) gives independent unbiased estimates ``U`` of
    ``<w_c, z_i>`` and the direction copy ``V_i`` of ``z_i``; ``multiplier``
    turns ``U`` and the user's noisy labels into an unbiased estimate of the
    scalar ``m_c``. Classes share the feature copies: the estimate of each
    class's gradient is unbiased, and the gradient is linear in them.

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
        self.chunk_size = max(1, copies.chunk_size // self.n_outputs)
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


# -- the printed reports ------------------------------------------------------


def paper_budgets(epsilon, delta, degree, protocol):
    """Per-release ``(eps, delta)`` of the printed protocols, composing to the total.

    ``'seed003'`` (Algorithm 5): ``z_0`` at ``(eps / 4, delta / 4)``, each of
    ``p + 1`` label copies at ``(eps, delta) / (4 (p+1))``, each of
    ``p (p+1) / 2`` feature copies at ``(eps, delta) / (p (p+1))``. These sum
    to exactly ``(eps, delta)`` (``1/4 + 1/4 + 1/2``): kept as printed.

    ``'seed001'`` (Algorithms 4-5): the printed variances are budgets
    ``eps / 2`` for each of ``x_0, y_0`` and ``eps / (d (d+1))`` for each of
    the ``2 d (d+1)`` other copies, which compose to ``3 eps`` (and
    ``(2 d (d+1) + 2) delta``), not ``eps``. The printed proportions are kept
    and scaled to compose to ``(eps, delta)``: ``eps / 6``, ``eps / (3 d
    (d+1))``, ``delta / (2 d (d+1) + 2)`` per release.

    Returns
    -------
    x_budgets, y_budgets : list of (eps, delta)
        One entry per feature copy (copy 0 first) and per label copy.
    """
    p = int(degree)
    if protocol == "seed003":
        x_budgets = [(epsilon / 4.0, delta / 4.0)] + [
            (epsilon / (p * (p + 1)), delta / (p * (p + 1)))
        ] * (p * (p + 1) // 2)
        y_budgets = [(epsilon / (4.0 * (p + 1)), delta / (4.0 * (p + 1)))] * (p + 1)
        return x_budgets, y_budgets
    if protocol == "seed001":
        n_pairs = p * (p + 1)
        delta_release = delta / (2.0 * n_pairs + 2.0)
        budgets = [(epsilon / 6.0, delta_release)] + [
            (epsilon / (3.0 * n_pairs), delta_release)
        ] * n_pairs
        return budgets, list(budgets)
    raise ValueError(f"protocol must be 'seed003' or 'seed001', got {protocol!r}.")


class GLMCopiesRandomizer(LocalRandomizer):
    """The printed reports: several independently noised copies of ``(x, y)``.

    Each user clips ``x`` to the l2 ball of radius ``data_norm``, encodes
    its label publicly (+-1 for two classes, one-hot for more) and sends
    ``x + N(0, sigma_{x,j}^2 I)`` for each feature copy and ``y + N(0,
    sigma_{y,j}^2 I)`` for each label copy, all independent:

    - ``protocol='seed003'`` (seed 003 Algorithm 5, for the Chebyshev
      oracle): ``1 + p (p+1) / 2`` feature copies and ``p + 1`` label copies;
    - ``protocol='seed001'`` (seed 001 Algorithms 4-5): ``1 + d (d+1)``
      copies of each.

    Privacy. Each release is a Gaussian mechanism of l2-sensitivity
    ``2 data_norm`` (features), 2 (+-1 label) or ``sqrt(2)`` (one-hot label;
    two one-hot vectors differ in two entries), calibrated with the classic
    formula (raised to the analytic value where the formula would
    under-noise) at the budget of :func:`paper_budgets`; by basic composition
    each user's record is (epsilon, delta)-LDP. (Seed 003's basic private
    vector prints ``sigma = sqrt(2 ln(1.25/delta)) / eps``, sensitivity 1 for
    the unit ball; replacing a record moves it by up to 2, which we use.)

    Parameters
    ----------
    n_features : int
    epsilon, delta : float
    degree : int
        ``p`` (seed 003) or ``d`` (seed 001), ``>= 1``.
    protocol : {'seed003', 'seed001'}
    data_norm : float, default=1.0
    classes : array-like or None, default=None
        ``None`` means the labels are -1 and +1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp._glm import GLMCopiesRandomizer
    >>> rand = GLMCopiesRandomizer(2, epsilon=1.0, delta=1e-5, degree=2,
    ...                            protocol="seed003")
    >>> reports = rand.randomize(np.ones((4, 2)), np.array([-1, 1, 1, -1]), 0)
    >>> reports["x"].shape, reports["y"].shape
    ((4, 4, 2), (4, 3))
    """

    def __init__(
        self,
        n_features,
        *,
        epsilon,
        delta,
        degree,
        protocol,
        data_norm=1.0,
        classes=None,
    ):
        self.n_features = int(n_features)
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        if isinstance(degree, bool) or int(degree) != degree or degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
        self.degree = int(degree)
        self.protocol = protocol
        self.data_norm = check_bound(data_norm, name="data_norm")
        self.classes = (
            np.array([-1, 1]) if classes is None else np.sort(np.asarray(classes))
        )
        if (
            self.classes.ndim != 1
            or len(np.unique(self.classes)) != len(self.classes)
            or len(self.classes) < 2
        ):
            raise ValueError("classes must be at least two distinct labels.")
        x_budgets, y_budgets = paper_budgets(
            self.epsilon, self.delta, self.degree, protocol
        )
        sens_y = 2.0 if len(self.classes) == 2 else float(np.sqrt(2.0))
        self.sigma_x = np.array(
            [
                gaussian_sigma(e, d, 2.0 * self.data_norm, "classic")
                for e, d in x_budgets
            ]
        )
        self.sigma_y = np.array(
            [gaussian_sigma(e, d, sens_y, "classic") for e, d in y_budgets]
        )
        label_width = 1 if len(self.classes) == 2 else len(self.classes)
        per_user = len(x_budgets) * self.n_features + len(y_budgets) * label_width
        self.chunk_size = max(1, 4_000_000 // per_user)

    def _config(self):
        return {
            "calibration": "paper",
            "classes": self.classes.tolist(),
            "data_norm": self.data_norm,
            "degree": self.degree,
            "protocol": self.protocol,
            "sigma_x": self.sigma_x.tolist(),
            "sigma_y": self.sigma_y.tolist(),
        }

    def _randomize_chunk(self, X, y, rng):
        clipped = clip_l2(X, self.data_norm)
        labels = encode_labels(y, self.classes)
        n = X.shape[0]
        noise_x = rng.standard_normal((n, len(self.sigma_x), self.n_features))
        sigma_y = self.sigma_y if labels.ndim == 1 else self.sigma_y[:, None]
        noise_y = rng.standard_normal((n, len(self.sigma_y)) + labels.shape[1:])
        return {
            "x": clipped[:, None, :] + noise_x * self.sigma_x[:, None],
            "y": labels[:, None] + noise_y * sigma_y,
        }


# -- the estimator ------------------------------------------------------------


class GLMLDPClassifier(
    LDPEstimatorMixin, LinearClassifierOutputMixin, ClassifierMixin, BaseEstimator
):
    """Linear classifier with a generalized linear loss under local DP.

    Each user sends one noisy report of its record; the server minimizes
    the empirical risk ``mean f(y (<w, x> + b))`` of a convex margin loss
    ``f`` (logistic by default) over ``||(w, b)|| <= coef_norm``, with an
    unbiased gradient oracle built from the reports for any ``w`` (seed 003,
    Algorithms 5-6; seed 001, Algorithm 5). Guarantee: each sample
    ``(x_i, y_i)`` is (epsilon, delta)-LDP, also with several classes: the
    user sends its noisy features once and its label as one noisy one-hot
    vector, calibrated jointly with the features, and every one-vs-rest
    problem is post-processing of that one report.

    The loss derivative is replaced by degree-``d`` polynomials on the
    reachable interval ``[-r, r]`` of ``a = <w, z>`` (``z`` the scaled
    features ``x / data_norm``, with a constant 1 appended when
    ``fit_intercept``; ``r = coef_norm ||z||_max``). A margin loss is
    ``-y h1(a) + h2(a)`` (seed 003's form), so the gradient is
    ``(h2'(a) - y h1'(a)) z``: the label enters linearly.

    - ``approximation='chebyshev'`` (default) or ``'bernstein'``: ``h1'``,
      ``h2'`` (of the loss, or of its Lemma 32 smoothing, see
      ``smoothing``) interpolated at Chebyshev points or by the Bernstein
      polynomial.
    - ``approximation='lemma32'``: seed 001, Algorithm 5. ``f' = f'(-r) +
      D P_{s~Q}(s < t)`` (Lemma 32); the step is smoothed to ``h_beta'``,
      which is approximated by a polynomial, and one ``s ~ Q`` is drawn per
      user and gradient evaluation.

    With ``calibration='analytic'`` (default) the user sends one jointly
    calibrated Gaussian report; the server splits it into ``d + 1``
    independent copies by Gaussian fission and estimates the polynomials by
    elementary symmetric polynomials. With ``calibration='paper'`` the user
    sends the printed copies (seed 003 Algorithm 5 for ``'chebyshev'``, seed
    001 Algorithms 4-5 for ``'bernstein'`` and ``'lemma32'``; basic
    composition, :class:`GLMCopiesRandomizer`) and the server uses the
    printed product estimators.

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget.
    delta : float, default=1e-5
        Per-user delta.
    loss : {'logistic', 'hinge', 'squared_hinge', 'huber'} or callable, \
            default='logistic'
        Margin loss ``f(t)``, ``t = y (<w, x> + b)``: ``log(1 + e^-t)``,
        ``max(0, 1 - t)``, ``max(0, 1 - t)^2``, or the modified Huber loss
        (``-4 t`` for ``t < -1``, else ``max(0, 1 - t)^2``). A callable is
        the derivative ``f'`` of a convex loss (vectorized, non-decreasing).
    derivative_lipschitz : float or None, default=None
        Lipschitz constant of a callable ``f'`` (the loss's smoothness), used
        for the step size; required for a callable without smoothing.
    degree : int or 'auto', default=1
        Degree ``d`` of the polynomials. The oracle's variance grows like
        ``sigma^(2d)`` (``sigma`` the report noise). ``'auto'`` (analytic
        mode only) picks ``d`` in 1..6 on the server, minimizing the squared
        approximation error plus the estimated oracle variance over ``n``.
    smoothing : float, 'auto' or None, default='auto'
        ``beta`` of the Lemma 32 smoothing ``f'(t) -> f'(-r) + D E_s
        h_beta'((t - s) / 2)`` (a loss within ``D beta`` of ``f``). Used by
        ``'lemma32'`` and, when given, by the direct approximations.
        ``'auto'``: 0.5 for ``'lemma32'``, ``loss='hinge'`` and a callable
        without ``derivative_lipschitz``; no smoothing otherwise. None: never
        smooth (invalid with ``'lemma32'``).
    approximation : {'chebyshev', 'bernstein', 'lemma32'}, default='chebyshev'
    coef_norm : float, default=1.0
        Radius of the l2 ball of each class's ``(w, b)``, in units of the
        scaled features ``x / data_norm``. The polynomials live on
        ``[-r, r]``: a larger radius needs a higher degree.
    data_norm : float, default=1.0
        Public l2 bound on ``x``; users clip to it.
    alpha : float, default=0.0
        L2 penalty ``alpha ||w||^2 / 2`` on the scaled coefficients (not on
        the intercept); ``LogisticRegression(C=1 / (alpha n))`` is the
        non-private counterpart.
    fit_intercept : bool, default=True
        Learn an intercept (a public constant feature: no privacy cost).
    solver : {'gd', 'sigm'}, default='gd'
        ``'gd'``: accelerated projected gradient on the average of all
        users' oracles (full batch, free post-processing of the reports).
        ``'sigm'``: the printed single pass of SIGM over the users, in
        ``max_iter + 1`` mini-batches.
    max_iter : int, default=100
        Iterations of ``'gd'`` or steps of ``'sigm'``.
    calibration : {'analytic', 'paper'}, default='analytic'
    random_state : int, RandomState instance or None, default=None
        Users' noise in ``fit`` and the server's randomness.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    degree_ : int
    smoothing_ : float or None
        ``beta`` used (None: the loss itself).
    poly_coef_ : ndarray
        Monomial coefficients (lowest degree first): shape ``(2, degree_ +
        1)``, the rows approximating ``h2'`` and ``h1'`` (``'chebyshev'``,
        ``'bernstein'``), or ``(1, degree_ + 1)`` approximating ``h_beta'``
        (``'lemma32'``).
    approximation_error_ : float
        ``max |m_poly(a, y) - m(a, y)|`` over ``a`` in ``[-r, r]``, ``y = +-1``
        (``'lemma32'``: ``D max |P - h_beta'|``).
    n_iter_ : int
    privacy_epsilon_, privacy_delta_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    HingeLDPClassifier : the smoothed hinge loss of seed 001, Algorithm 4.
    sklearn.linear_model.LogisticRegression : the non-private counterpart.

    Notes
    -----
    Zheng, Mou and Wang, *Collect at Once, Use Effectively: Making
    Non-interactive Locally Private Learning Possible*, ICML 2017, Section 4,
    Algorithms 5-6; Wang, Gaboardi, Smith and Xu, *Empirical Risk
    Minimization in the Non-interactive Local Model of Differential
    Privacy*, JMLR 21 (2020), Section 5.2, Lemma 32 and Algorithm 5.
    Corrections (see :func:`paper_budgets`, :func:`seed001_product_multiplier`):
    seed 001's printed variances spend ``3 eps``; Algorithm 5 adds ``f'(-1)``
    outside the ``y_0 x_0`` factor and draws one ``s`` per factor (biased);
    seed 003's basic private vector uses sensitivity 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import GLMLDPClassifier
    >>> rng = np.random.RandomState(42)  # not the users' noise stream below
    >>> X = rng.uniform(-1, 1, size=(20_000, 2)) / np.sqrt(2)
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> clf = GLMLDPClassifier(epsilon=8.0, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.85
    True
    """

    _is_ldp_classifier = True

    _parameter_constraints = {
        **LDPEstimatorMixin._ldp_parameter_constraints,
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "loss": [StrOptions(set(LOSSES)), callable],
        "derivative_lipschitz": [Interval(Real, 0, None, closed="neither"), None],
        "degree": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "smoothing": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
            None,
        ],
        "approximation": [StrOptions({"chebyshev", "bernstein", "lemma32"})],
        "coef_norm": [Interval(Real, 0, None, closed="neither")],
        "data_norm": [Interval(Real, 0, None, closed="neither")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "solver": [StrOptions({"gd", "sigm"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "calibration": [StrOptions({"analytic", "paper"})],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        loss="logistic",
        derivative_lipschitz=None,
        degree=1,
        smoothing="auto",
        approximation="chebyshev",
        coef_norm=1.0,
        data_norm=1.0,
        alpha=0.0,
        fit_intercept=True,
        solver="gd",
        max_iter=100,
        calibration="analytic",
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.loss = loss
        self.derivative_lipschitz = derivative_lipschitz
        self.degree = degree
        self.smoothing = smoothing
        self.approximation = approximation
        self.coef_norm = coef_norm
        self.data_norm = data_norm
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.max_iter = max_iter
        self.calibration = calibration
        self.random_state = random_state

    # -- client -------------------------------------------------------------

    def make_randomizer(self, n_features, classes=None):
        """The users' randomizer (public configuration).

        Parameters
        ----------
        n_features : int
        classes : array-like or None, default=None
            Public label set; ``None``: the labels are -1 and +1.

        Returns
        -------
        randomizer : GaussianRecordRandomizer or GLMCopiesRandomizer
        """
        classes = np.array([-1, 1]) if classes is None else np.asarray(classes)
        if self.calibration == "paper":
            if self.degree == "auto":
                raise ValueError(
                    "degree='auto' needs calibration='analytic': in the paper's "
                    "protocols the degree fixes the size of every user's report, so "
                    "it must be chosen before any data is seen."
                )
            protocol = "seed003" if self.approximation == "chebyshev" else "seed001"
            return GLMCopiesRandomizer(
                n_features,
                epsilon=self.epsilon,
                delta=self.delta,
                degree=self.degree,
                protocol=protocol,
                data_norm=self.data_norm,
                classes=classes,
            )
        return GaussianRecordRandomizer(
            n_features,
            epsilon=self.epsilon,
            delta=self.delta,
            data_norm=self.data_norm,
            classes=classes,
            calibration="analytic",
        )

    # -- server -------------------------------------------------------------

    def _loss(self):
        if callable(self.loss):
            return MarginLoss("callable", None, self.loss, self.derivative_lipschitz)
        return LOSSES[self.loss]

    def _resolve_smoothing(self, loss):
        if self.smoothing == "auto":
            needs = self.approximation == "lemma32" or loss.smoothness is None
            return _AUTO_SMOOTHING if needs else None
        if self.smoothing is None and self.approximation == "lemma32":
            raise ValueError(
                "approximation='lemma32' smooths the step of Lemma 32: smoothing "
                "must be a positive number or 'auto', not None."
            )
        if self.smoothing is None and loss.smoothness is None:
            raise ValueError(
                f"loss={loss.name!r} has no Lipschitz derivative: give a smoothing "
                "(or derivative_lipschitz for a callable loss)."
            )
        return self.smoothing

    def _fit_server(self, reports, rng):
        config = reports.config
        data_norm = float(config["data_norm"])
        n_classes = len(config["classes"])
        n_outputs = 1 if n_classes == 2 else n_classes
        z_norm = np.sqrt(1.0 + self.fit_intercept)
        radius = float(self.coef_norm)
        interval = (-radius * z_norm, radius * z_norm)
        loss = self._loss()
        check_convex_derivative(loss.derivative, interval)
        smoothing = self._resolve_smoothing(loss)

        x = reports["x"] / data_norm
        labels = reports["y"]
        # One-vs-rest: the noisy one-hot entry e_c gives the +-1 label 2 e_c - 1.
        labels = labels[..., None] if n_outputs == 1 else 2.0 * labels - 1.0

        paper = config.get("calibration") == "paper"
        if paper:
            degree = int(config["degree"])
            spec = self._spec(loss, smoothing, degree, interval, protocol=True)
            copies = PolynomialGradientOracle(
                x, mode="product", coef=[0.0], fit_intercept=self.fit_intercept
            )
        else:
            sigma_x = float(config["sigma_x"]) / data_norm
            degree = self.degree
            if degree == "auto":
                degree = self._select_degree(
                    x, labels, sigma_x, loss, smoothing, interval, rng
                )
            spec = self._spec(loss, smoothing, degree, interval, protocol=False)
            copies = _fission_copies(x, degree, sigma_x, self.fit_intercept, rng)
        oracle = GLMGradientOracle(copies, labels, spec["multiplier"], rng)

        smoothness = spec["smoothness"] * z_norm**2 + self.alpha
        n_features = x.shape[-1]
        penalty_mask = np.ones((oracle.dim, 1))
        penalty_mask[n_features:] = 0.0  # the intercept is not penalized

        def project(W):
            norms = np.linalg.norm(W, axis=0)
            return W * np.minimum(1.0, radius / np.maximum(norms, 1e-300))

        def flat(function):
            def wrapped(w, *args):
                W = w.reshape(oracle.dim, n_outputs)
                return function(W, *args).ravel()

            return wrapped

        def penalized(gradient, W):
            return gradient + self.alpha * penalty_mask * W

        if self.solver == "gd":
            w, n_iter = accelerated_projected_gradient(
                flat(lambda W: penalized(oracle.mean(W), W)),
                np.zeros(oracle.dim * n_outputs),
                step=1.0 / smoothness,
                projection=flat(project),
                max_iter=self.max_iter,
            )
        else:
            w, n_iter = self._run_sigm(
                oracle, penalized, smoothness, radius, flat, project, rng
            )
        W = w.reshape(oracle.dim, n_outputs)
        self.degree_ = int(degree)
        self.smoothing_ = smoothing
        self.poly_coef_ = spec["poly_coef"]
        self.approximation_error_ = spec["error"]
        self.coef_ = (W[:n_features] / data_norm).T
        self.intercept_ = W[n_features] if self.fit_intercept else np.zeros(n_outputs)
        self.n_iter_ = int(n_iter)

    def _spec(self, loss, smoothing, degree, interval, *, protocol):
        """Polynomials, multiplier, smoothness and approximation error of one setup."""
        derivative = loss.derivative
        lemma = None
        if smoothing is not None:
            lemma = Lemma32Smoothing(loss.derivative, interval, smoothing)
            derivative = lemma
        smoothness = lemma.smoothness if lemma is not None else loss.smoothness
        if self.approximation == "lemma32":
            method = "bernstein" if protocol else "chebyshev"
            coef = polynomial_approximation(lemma.step, degree, interval, method)
            grid = np.linspace(*interval, 2001)
            error = lemma.spread * float(
                np.max(np.abs(np.polynomial.Polynomial(coef)(grid) - lemma.step(grid)))
            )
            if protocol:
                terms = bernstein_product_terms(lemma.step, degree, interval)
                multiplier = seed001_product_multiplier(terms, lemma)
            else:
                multiplier = fission_lemma32_multiplier(coef, lemma)
            return {
                "multiplier": multiplier,
                "poly_coef": coef[None, :],
                "error": error,
                "smoothness": smoothness,
            }
        grid = np.linspace(*interval, 2001)
        if protocol and self.approximation == "bernstein":
            # The direct variant of seed 001: Algorithm 4's estimator on the
            # Bernstein polynomial of the (smoothed) derivative of the margin.
            coef = polynomial_approximation(derivative, degree, interval, "bernstein")
            error = np.polynomial.Polynomial(coef)(grid) - derivative(grid)
            return {
                "multiplier": seed001_product_multiplier(
                    bernstein_product_terms(derivative, degree, interval)
                ),
                "poly_coef": coef[None, :],
                "error": float(np.max(np.abs(error))),
                "smoothness": smoothness,
            }
        h2_prime, h1_prime = linear_label_parts(derivative)
        coef2 = polynomial_approximation(h2_prime, degree, interval, self.approximation)
        coef1 = polynomial_approximation(h1_prime, degree, interval, self.approximation)
        err2 = np.polynomial.Polynomial(coef2)(grid) - h2_prime(grid)
        err1 = np.polynomial.Polynomial(coef1)(grid) - h1_prime(grid)
        # m = h2' - y h1' at y = +1 and y = -1.
        error = float(max(np.max(np.abs(err2 - err1)), np.max(np.abs(err2 + err1))))
        if protocol:
            multiplier = seed003_product_multiplier(coef2, coef1)
        else:
            multiplier = fission_linear_multiplier(coef2, coef1)
        return {
            "multiplier": multiplier,
            "poly_coef": np.vstack([coef2, coef1]),
            "error": error,
            "smoothness": smoothness,
        }

    def _run_sigm(self, oracle, penalized, smoothness, radius, flat, project, rng):
        n_users, n_outputs = oracle.n_users, oracle.n_outputs
        n_steps = min(int(self.max_iter), n_users - 1)
        batches = np.array_split(rng.permutation(n_users), n_steps + 1)
        pilot = _pilot_point(oracle, radius)
        second_moment = oracle.second_moment(pilot, _pilot_users(oracle, rng), rng)
        sigma = np.sqrt(second_moment / min(len(b) for b in batches))

        def stochastic_gradient(W, k):
            return penalized(oracle.batch(W, batches[k], rng), W)

        w = sigm(
            flat(stochastic_gradient),
            oracle.dim * n_outputs,
            n_steps=n_steps,
            smoothness=smoothness,
            sigma=sigma,
            radius=radius * np.sqrt(n_outputs),
            projection=flat(project),
        )
        return w, n_steps

    def _select_degree(self, x, labels, sigma_x, loss, smoothing, interval, rng):
        """The degree minimizing (approximation error)^2 + oracle variance / n."""
        n_users, n_outputs = x.shape[0], labels.shape[-1]
        z_norm = np.sqrt(1.0 + self.fit_intercept)
        best, best_score, pilot, users = None, np.inf, None, None
        for degree in GLM_AUTO_DEGREES:
            spec = self._spec(loss, smoothing, degree, interval, protocol=False)
            copies = _fission_copies(x, degree, sigma_x, self.fit_intercept, rng)
            oracle = GLMGradientOracle(copies, labels, spec["multiplier"], rng)
            if pilot is None:
                pilot = _pilot_point(oracle, float(self.coef_norm))
                users = _pilot_users(oracle, rng)
            bias = spec["error"] * z_norm
            variance = oracle.second_moment(pilot, users, rng) / n_users
            score = n_outputs * bias**2 + variance
            if score < best_score:
                best, best_score = degree, score
        return best

    # -- prediction -----------------------------------------------------------

    def _is_logistic(self):
        return self.loss == "logistic"

    @available_if(_is_logistic)
    def predict_proba(self, X):
        """Class probabilities of the logistic model (``loss='logistic'`` only).

        Two classes: ``sigmoid(score)``. More: one-vs-rest sigmoids
        normalized to sum to one, as scikit-learn's one-vs-rest logistic
        regression.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            positive = expit(scores)
            return np.column_stack([1.0 - positive, positive])
        proba = expit(scores)
        return proba / proba.sum(axis=1, keepdims=True)

    @available_if(_is_logistic)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        return np.log(self.predict_proba(X))

    def __sklearn_tags__(self):
        tags = ldp_tags(super().__sklearn_tags__())
        tags.classifier_tags.multi_class = True
        return tags


def _fission_copies(x, degree, sigma_x, fit_intercept, rng):
    """Feature copies for the improved oracle (``coef`` only sets the degree)."""
    return PolynomialGradientOracle(
        x,
        mode="fission",
        coef=np.zeros(int(degree) + 1),
        sigma_x=sigma_x,
        fit_intercept=fit_intercept,
        random_state=rng,
    )


def _pilot_point(oracle, radius):
    """Each class on the sphere of radius ``radius`` against the mean oracle at 0.

    The mean oracle at 0 is an unbiased estimate of the risk's gradient at
    0, so this is a plausible point of the path of the solver; the oracle's
    variance grows with ``||w||``, so the sphere is the pessimistic case.
    Pure post-processing of the reports.
    """
    gradient = -oracle.mean(np.zeros((oracle.dim, oracle.n_outputs)))
    norms = np.linalg.norm(gradient, axis=0)
    gradient[:, norms == 0] = 1.0
    return gradient * (radius / np.linalg.norm(gradient, axis=0))


def _pilot_users(oracle, rng):
    n = min(oracle.n_users, _PILOT_USERS)
    return np.sort(rng.choice(oracle.n_users, size=n, replace=False))


__all__ = ["GLMCopiesRandomizer", "GLMGradientOracle", "GLMLDPClassifier"]
