"""Smoothing a convex loss derivative through its quantile representation.

For a convex ``f`` on ``[lo, hi]`` with ``D = f'(hi) - f'(lo) > 0``,

    f'(t) = f'(lo) + D P_{s~Q}(s < t),

where ``Q`` is the law of ``s = max{s in [lo, hi] : u in df(s)}`` for ``u``
uniform on ``[f'(lo), f'(hi)]`` (its distribution function is ``(f'(t) -
f'(lo)) / D``). Replacing the step ``1(t > s)`` by the smooth
``h_beta'((t - s) / 2)`` gives a smoothed derivative ``F_beta'`` whose loss
is within ``D beta`` of ``f``, with ``F_beta'' <= D / (4 beta)``: a smooth
surrogate of any convex Lipschitz loss (hinge included), and the step is one
fixed function to approximate by a polynomial whatever the loss.

Notes
-----
Wang, Gaboardi, Smith and Xu, *Empirical Risk Minimization in the
Non-interactive Local Model of Differential Privacy*, JMLR 21 (2020) (seed
001), Lemma 32 and the proof of Theorem 34. The printed lemma is on
``[-1, 1]`` for 1-Lipschitz ``f``; the identity holds on any interval for any
convex ``f`` with ``f'(hi) > f'(lo)``.
"""

import numpy as np

#: Grid of the quantile table of ``Q``.
QUANTILE_GRID = 4097
#: Quadrature nodes of the expectation over ``Q`` in the smoothed derivative.
QUADRATURE_NODES = 2048


def derivative_quantile_table(derivative, interval, n_grid=QUANTILE_GRID):
    """Quantile function of the distribution ``Q`` of a loss derivative, on a grid.

    ``s(q) = sup{s : f'(s) <= f'(lo) + q (f'(hi) - f'(lo))}`` is computed by
    bisection at ``n_grid`` equispaced ``q`` in ``[0, 1]``; sampling
    interpolates linearly between them. See the module docstring.

    Parameters
    ----------
    derivative : callable
        ``f'``, vectorized and non-decreasing on ``interval``.
    interval : tuple (lo, hi)
    n_grid : int, default=4097

    Returns
    -------
    q, s : ndarray of shape (n_grid,)

    Notes
    -----
    Seed 001, Lemma 32.
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


class SmoothedQuantileDerivative:
    """The smoothed loss derivative ``F_beta'`` of the quantile representation.

    ``F_beta'(t) = f'(lo) + D E_{s~Q}[h_beta'((t - s) / 2)]`` with
    ``D = f'(hi) - f'(lo)``: the step ``1(t > s)`` replaced by ``h_beta'``
    (module docstring). ``F_beta`` is within ``D beta`` of ``f`` (up to a
    constant) and ``F_beta'' <= D / (4 beta)`` (:attr:`smoothness`).

    Parameters
    ----------
    derivative : callable
        ``f'``, non-decreasing on ``interval``.
    interval : tuple (lo, hi)
    smoothing : float
        ``beta > 0``.

    Notes
    -----
    Seed 001, Lemma 32 and the proof of Theorem 34.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import SmoothedQuantileDerivative
    >>> hinge = lambda t: np.where(np.asarray(t) < 1.0, -1.0, 0.0)
    >>> smooth = SmoothedQuantileDerivative(hinge, (-2.0, 2.0), smoothing=0.25)
    >>> smooth.f_lo, smooth.spread, smooth.smoothness
    (-1.0, 1.0, 1.0)
    >>> smooth([-2.0, 1.0, 2.0]).round(2).tolist()
    [-1.0, -0.5, -0.1]
    """

    def __init__(self, derivative, interval, smoothing):
        self.interval = tuple(float(v) for v in interval)
        self.smoothing = float(smoothing)
        lo, hi = self.interval
        self.f_lo = float(derivative(lo))
        self.spread = float(derivative(hi)) - self.f_lo
        self._q, self._s = derivative_quantile_table(derivative, interval)
        midpoints = (np.arange(QUADRATURE_NODES) + 0.5) / QUADRATURE_NODES
        self._nodes = np.interp(midpoints, self._q, self._s)

    @property
    def smoothness(self):
        return self.spread / (4.0 * self.smoothing)

    def sample(self, size, rng):
        """Draws of ``s ~ Q``."""
        return np.interp(rng.uniform(size=size), self._q, self._s)

    def step(self, u):
        """``h_beta'(u)``, the function the ``'smoothed_quantile'`` polynomial approximates."""
        return smoothed_step_derivative(u, self.smoothing)

    def __call__(self, t):
        t = np.atleast_1d(np.asarray(t, dtype=float))
        steps = self.step((t[:, None] - self._nodes[None, :]) / 2.0)
        return self.f_lo + self.spread * steps.mean(axis=1)
