"""Client side of the local trigonometric mechanism (smooth queries, kernel density).

Seed 001 (Wang, Gaboardi, Smith, Xu, JMLR 2020), section 6.2, Algorithm 7.
Each user maps its record to ``u in [-1, 1]^p`` (public box, clipped) and
releases the vector of ``prod_i cos(v_i arccos u_i) = prod_i T_{v_i}(u_i)``,
``v in {0..t-1}^p``, through LDP-AVG
(:class:`~sklearn_ldp.randomizers.VectorAverageRandomizer`). The server's
side (the moment tensor, smooth queries, the kernel density) is in
:mod:`sklearn_ldp.aggregation`.
"""

from numbers import Integral

import numpy as np

from ._clip import clip_interval
from ._ldp_avg import VectorAverageRandomizer


def check_box(bounds, n_features):
    """The public box ``(lower, upper)`` from ``(low, high)`` or a ``(2, n_features)`` array."""
    bounds = np.asarray(bounds, dtype=float)
    if bounds.shape == (2,):
        bounds = np.repeat(bounds[:, None], n_features, axis=1)
    if bounds.shape != (2, n_features):
        raise ValueError(
            "bounds must be (low, high) or an array of shape (2, n_features) = "
            f"(2, {n_features}); got shape {bounds.shape}."
        )
    if not np.all(np.isfinite(bounds)) or np.any(bounds[0] >= bounds[1]):
        raise ValueError(
            f"bounds need finite low < high per feature, got {bounds.tolist()}."
        )
    return bounds[0].copy(), bounds[1].copy()


def chebyshev_tensor_basis(units, degree):
    """``prod_i T_{v_i}(u_i)`` for all ``v in {0..t-1}^p``: shape ``(n, t^p)`` (C order).

    Examples
    --------
    >>> from sklearn_ldp.randomizers import chebyshev_tensor_basis
    >>> chebyshev_tensor_basis([[0.5]], 3).round(12).tolist()  # T_0, T_1, T_2
    [[1.0, 0.5, -0.5]]
    """
    units = np.clip(np.asarray(units, dtype=float), -1.0, 1.0)
    n, p = units.shape
    per_axis = np.cos(np.arange(degree)[None, None, :] * np.arccos(units)[:, :, None])
    out = per_axis[:, 0, :]
    for axis in range(1, p):
        out = (out[:, :, None] * per_axis[:, axis, None, :]).reshape(n, -1)
    return out


class TrigonometricRandomizer(VectorAverageRandomizer):
    """Client side of the local trigonometric mechanism (seed 001, Algorithm 7).

    Each user clips its record to the public box, maps it to
    ``u in [-1, 1]^p`` and releases the ``t^p - 1`` non-constant entries of
    ``prod_i T_{v_i}(u_i)`` (the ``v = 0`` entry is the constant 1) through
    LDP-AVG.

    Guarantee: each user's record is epsilon-LDP. Every entry lies in
    ``[-1, 1]`` (a product of cosines): the sampled scheme releases one with
    the full epsilon on that interval; the full vector releases each of the
    ``d = t^p - 1`` entries with the discrete Laplace of scale
    ``2 d / epsilon`` (``d`` releases at ``epsilon / d``; l1 sensitivity at
    most ``2 d``). Seed 001 prints ``b = 1`` for Lemma 3, whose values lie in
    ``[0, b]``; the entries here range over an interval of width 2, so
    ``b = 2`` is what makes Lemma 3 apply. Reports are on the mechanism's
    lattice; the entries are rounded onto it inside ``[-1, 1]``, which
    costs nothing (the guarantee holds for any two values of the interval).

    Parameters
    ----------
    n_features : int
    epsilon : float
    degree : int
        ``t``: ``v_i in {0..t-1}``.
    lower, upper : array-like of shape (n_features,)
        The public box.
    mechanism : {'piecewise', 'duchi', 'laplace', 'full_vector'}

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import TrigonometricRandomizer
    >>> rand = TrigonometricRandomizer(2, epsilon=1.0, degree=4, lower=[-1, -1], upper=[1, 1])
    >>> rand.n_coordinates
    15
    >>> rand.randomize(np.zeros((3, 2)), random_state=0).as_matrix().shape
    (3, 2)
    """

    def __init__(
        self,
        n_features,
        *,
        epsilon,
        degree,
        lower=-1.0,
        upper=1.0,
        mechanism="piecewise",
    ):
        self.n_features = int(n_features)
        if self.n_features < 1:
            raise ValueError(f"n_features must be >= 1, got {n_features}.")
        self._init_mechanism(epsilon, mechanism)
        if isinstance(degree, bool) or not isinstance(degree, Integral) or degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
        self.degree = int(degree)
        lower = np.broadcast_to(np.asarray(lower, dtype=float), (self.n_features,))
        upper = np.broadcast_to(np.asarray(upper, dtype=float), (self.n_features,))
        self.box_lower, self.box_upper = check_box(
            np.stack([lower, upper]), self.n_features
        )
        n_terms = float(self.degree) ** self.n_features
        self.n_coordinates = int(n_terms) - 1 if n_terms < 2**62 else 2**62
        if self.n_coordinates < 1:
            raise ValueError(
                "degree = 1 gives only the constant term; use degree >= 2."
            )
        self._check_size()
        self.unit_interval = (-1.0, 1.0)
        self.coordinate_scale = np.ones(self.n_coordinates)
        self._build_mechanism()

    def _size_advice(self):
        return (
            f"t^p = {self.degree}^{self.n_features} terms. Lower the degree or use "
            "fewer features (smooth queries are for low dimension)."
        )

    def _config(self):
        return {
            "degree": self.degree,
            "lower": self.box_lower.tolist(),
            "upper": self.box_upper.tolist(),
            **self._mechanism_config(),
        }

    def _prepare(self, X):
        X = clip_interval(X, self.box_lower, self.box_upper)
        units = (2.0 * X - self.box_lower - self.box_upper) / (
            self.box_upper - self.box_lower
        )
        return np.arccos(np.clip(units, -1.0, 1.0))

    def _exponents(self, coordinates):
        # Coordinate j is the multi-index v of flat index j + 1 (0 is constant).
        shape = (self.degree,) * self.n_features
        return np.stack(np.unravel_index(np.asarray(coordinates) + 1, shape), axis=-1)

    def _unit_values(self, angles, coordinates):
        return np.prod(np.cos(self._exponents(coordinates) * angles), axis=1)

    def _unit_vector(self, angles):
        return chebyshev_tensor_basis(np.cos(angles), self.degree)[:, 1:]
