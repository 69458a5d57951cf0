"""Public feature maps a user applies to its clipped record before adding noise.

A feature map is public randomness: it is rebuilt bit for bit from its
configuration (a JSON dict that travels in the reports' configuration), so
the users and the server apply the same map. Two families:

- :class:`RandomProjection`: ``x -> Phi^T x`` (``d -> m``), a Gaussian or
  sparse random matrix from a public seed, or the identity;
- :class:`RandomFourierFeatures`: ``x -> sqrt(2/m) cos(W^T x + b)`` for the
  RBF and Laplacian kernels (Rahimi and Recht 2007), whose norm is at most
  ``sqrt(2)`` for every input.

A map is a callable ``(n, d) -> (n, m)`` with ``n_features``,
``n_components``, ``seed``, ``get_config()`` and ``from_config(config)``;
:func:`feature_map_from_config` rebuilds any of them. Pass one to
:class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer` as ``feature_map``.

A map runs before the lattice step: the randomizer clips the map's output
to ``feature_norm``, puts it on its public lattice by unbiased randomized
rounding and adds lattice noise, so the map itself may compute in floating
point (its output is never released as such). Its matrix and phases are
public: they are drawn with numpy's generators from the public seed, never
from the users' noise source, and reveal nothing about anyone's noise.

Random Fourier features. A shift-invariant kernel ``k(x, x') = k(x - x')``
with ``k(0) = 1`` is the characteristic function of a probability
distribution ``p`` (Bochner's theorem), so with ``s ~ p`` and
``b ~ U[0, 2 pi]``

    E[2 cos(s^T x + b) cos(s^T x' + b)] = E[cos(s^T (x - x'))] = k(x - x').

The map ``phi(x) = sqrt(2 / m) [cos(s_j^T x + b_j)]_{j <= m}`` therefore has
``E[phi(x)^T phi(x')] = k(x, x')`` with an error of order ``1 / sqrt(m)``.
Every coordinate is at most ``sqrt(2 / m)`` in absolute value, so
``||phi(x)||_2 <= sqrt(2)`` for every ``x``: a public bound that needs no
assumption on the data (:data:`FOURIER_FEATURE_NORM`). The bound is attained
in the limit (the map ``x -> (s_j^T x + b_j mod 2 pi)_j`` is dense in the
torus for almost every draw), so it is also the right sensitivity bound.
Frequencies: for ``'rbf'``, ``k = exp(-gamma ||x - x'||_2^2)``,
``s ~ N(0, 2 gamma I)``, drawn by
:class:`sklearn.kernel_approximation.RBFSampler`; for ``'laplacian'``,
``k = exp(-gamma ||x - x'||_1)``, a product over coordinates of
``exp(-gamma |t|)``, the characteristic function of the Cauchy distribution
with scale ``gamma``, so ``s`` has iid ``Cauchy(0, gamma)`` coordinates.
``gamma=None`` means ``1 / n_features``, the default of
:func:`sklearn.metrics.pairwise.rbf_kernel` and ``laplacian_kernel`` (and so
of :class:`sklearn.kernel_ridge.KernelRidge`); it depends only on the public
number of features.
"""

from numbers import Integral

import numpy as np
from sklearn.kernel_approximation import RBFSampler
from sklearn.metrics.pairwise import laplacian_kernel, rbf_kernel
from sklearn.random_projection import GaussianRandomProjection, SparseRandomProjection

PROJECTIONS = ("gaussian", "sparse", "identity")
KERNELS = ("rbf", "laplacian")

#: ``||phi(x)||_2 <= sqrt(2)`` for every input of :class:`RandomFourierFeatures`:
#: each of the ``m`` coordinates is ``sqrt(2 / m) cos(.)``.
FOURIER_FEATURE_NORM = float(np.sqrt(2.0))


def _check_dimensions(n_features, n_components):
    if (
        not isinstance(n_features, Integral)
        or not isinstance(n_components, Integral)
        or n_features < 1
        or n_components < 1
    ):
        raise ValueError(
            "n_features and n_components must be integers >= 1, got "
            f"{n_features!r} and {n_components!r}."
        )
    return int(n_features), int(n_components)


def _check_input(X, n_features):
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != n_features:
        raise ValueError(
            f"Expected inputs with {n_features} features, got shape {X.shape}."
        )
    return X


class RandomProjection:
    """Public random projection ``x -> Phi^T x`` from ``d`` to ``m`` dimensions.

    ``'gaussian'`` is :class:`~sklearn.random_projection.GaussianRandomProjection`
    (entries ``N(0, 1/m)``), ``'sparse'`` is
    :class:`~sklearn.random_projection.SparseRandomProjection` (Achlioptas /
    Li et al. sparse signs, density ``1/sqrt(d)``); both preserve norms in
    expectation. ``'identity'`` keeps ``x`` (``m = d``). The matrix depends
    only on ``(kind, n_features, n_components, seed)``, so users and server
    rebuild the same one; it is drawn on first use.

    Parameters
    ----------
    n_features : int
        Input dimension ``d``.
    n_components : int
        Output dimension ``m``, ``1 <= m <= d`` (must be ``d`` for
        ``'identity'``).
    kind : {'gaussian', 'sparse', 'identity'}, default='gaussian'
    seed : int, default=0
        Public seed of the matrix.

    Attributes
    ----------
    components_ : ndarray or sparse matrix of shape (n_components, n_features), or None
        ``Phi^T``; None for ``'identity'``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import RandomProjection
    >>> projection = RandomProjection(50, 5, seed=3)
    >>> projection(np.ones((4, 50))).shape
    (4, 5)
    >>> again = RandomProjection.from_config(projection.get_config())
    >>> bool(np.array_equal(again.components_, projection.components_))
    True
    """

    def __init__(self, n_features, n_components, *, kind="gaussian", seed=0):
        if kind not in PROJECTIONS:
            raise ValueError(f"projection must be one of {PROJECTIONS}, got {kind!r}.")
        self.n_features, self.n_components = _check_dimensions(n_features, n_components)
        if self.n_components > self.n_features or (
            kind == "identity" and self.n_components != self.n_features
        ):
            raise ValueError(
                f"n_components must be in [1, n_features={self.n_features}] "
                f"(equal to it for 'identity'), got {n_components!r}."
            )
        self.kind = kind
        self.seed = int(seed)
        self._projector = None

    @property
    def components_(self):
        if self.kind == "identity":
            return None
        return self._fitted().components_

    def _fitted(self):
        if self._projector is None:
            cls = (
                GaussianRandomProjection
                if self.kind == "gaussian"
                else SparseRandomProjection
            )
            projector = cls(n_components=self.n_components, random_state=self.seed)
            # Fitting draws the matrix from the seed; only the shape is used.
            self._projector = projector.fit(np.zeros((1, self.n_features)))
        return self._projector

    def transform(self, X):
        """``X Phi``, of shape ``(n_samples, n_components)``."""
        X = _check_input(X, self.n_features)
        if self.kind == "identity":
            return X
        return self._fitted().transform(X)

    __call__ = transform

    def get_config(self):
        """The public description the projection is rebuilt from."""
        return {
            "map": "random_projection",
            "kind": self.kind,
            "n_features": self.n_features,
            "n_components": self.n_components,
            "seed": self.seed,
        }

    @classmethod
    def from_config(cls, config):
        """Rebuild the projection from :meth:`get_config`."""
        return cls(
            config["n_features"],
            config["n_components"],
            kind=config["kind"],
            seed=config["seed"],
        )


class RandomFourierFeatures:
    """Public random Fourier feature map of a shift-invariant kernel.

    ``phi(x) = sqrt(2 / m) cos(W^T x + b)`` approximates the RBF or Laplacian
    kernel (see the module docstring) and ``||phi(x)|| <= sqrt(2)`` for every
    ``x``.

    Parameters
    ----------
    n_features : int
        Dimension of the inputs.
    n_components : int
        Number of random features ``m``.
    kernel : {'rbf', 'laplacian'}, default='rbf'
    gamma : float or None, default=None
        Kernel parameter; ``None`` means ``1 / n_features``.
    seed : int, default=0
        Public seed the frequencies and phases are drawn from.

    Attributes
    ----------
    gamma_ : float
        The kernel parameter in use.
    weights_ : ndarray of shape (n_features, n_components)
        Frequencies ``s_j`` (one per column).
    offset_ : ndarray of shape (n_components,)
        Phases ``b_j``.
    norm_bound : float
        ``sqrt(2)``, the l2 bound of every feature vector.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import RandomFourierFeatures
    >>> rff = RandomFourierFeatures(3, 2000, kernel="laplacian", gamma=0.5, seed=0)
    >>> X = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    >>> Z = rff.transform(X)
    >>> Z.shape, bool(np.all(np.linalg.norm(Z, axis=1) <= rff.norm_bound))
    ((2, 2000), True)
    >>> round(float(Z[0] @ Z[1]), 1), round(float(rff.kernel(X)[0, 1]), 1)
    (0.6, 0.6)
    """

    norm_bound = FOURIER_FEATURE_NORM

    def __init__(self, n_features, n_components, *, kernel="rbf", gamma=None, seed=0):
        if kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}.")
        self.n_features, self.n_components = _check_dimensions(n_features, n_components)
        self.kernel_name = kernel
        self.gamma = gamma
        self.gamma_ = 1.0 / self.n_features if gamma is None else float(gamma)
        if not np.isfinite(self.gamma_) or self.gamma_ <= 0:
            raise ValueError(f"gamma must be a finite number > 0, got {gamma!r}.")
        self.seed = int(seed)
        if kernel == "rbf":
            # RBFSampler only needs the number of features from its input; a
            # constant row keeps 'fit' free of any data.
            sampler = RBFSampler(
                gamma=self.gamma_,
                n_components=self.n_components,
                random_state=self.seed,
            ).fit(np.zeros((1, self.n_features)))
            self.weights_ = sampler.random_weights_
            self.offset_ = sampler.random_offset_
        else:
            rng = np.random.RandomState(self.seed)
            self.weights_ = self.gamma_ * rng.standard_cauchy(
                size=(self.n_features, self.n_components)
            )
            self.offset_ = rng.uniform(0.0, 2.0 * np.pi, size=self.n_components)

    def get_config(self):
        """The public description the map is rebuilt from."""
        return {
            "map": "random_fourier_features",
            "kernel": self.kernel_name,
            "gamma": self.gamma_,
            "n_features": self.n_features,
            "n_components": self.n_components,
            "seed": self.seed,
        }

    @classmethod
    def from_config(cls, config):
        """Rebuild the map from :meth:`get_config`."""
        return cls(
            config["n_features"],
            config["n_components"],
            kernel=config["kernel"],
            gamma=config["gamma"],
            seed=config["seed"],
        )

    def transform(self, X):
        """``sqrt(2 / m) cos(X W + b)``, of shape ``(n_samples, n_components)``."""
        X = _check_input(X, self.n_features)
        projection = X @ self.weights_
        projection += self.offset_
        np.cos(projection, out=projection)
        projection *= np.sqrt(2.0 / self.n_components)
        return projection

    __call__ = transform

    def kernel(self, X, Y=None):
        """The exact kernel the features approximate (for reference and tests)."""
        if self.kernel_name == "rbf":
            return rbf_kernel(X, Y, gamma=self.gamma_)
        return laplacian_kernel(X, Y, gamma=self.gamma_)


class LinearAndFourierFeatures:
    """The scaled input next to its random Fourier features: ``[c x, phi(x)]``.

    The feature map of the kernel ``c^2 <x, x'> + k(x, x')`` (a linear
    kernel plus a shift-invariant one): a model on it is a linear function
    of ``x`` plus one of the random features. With ``||x|| <= 1 / c`` (the
    randomizer clips ``x`` to ``data_norm`` before the map and ``c = 1 /
    data_norm``) every output has ``||[c x, phi(x)]||^2 <= 1 + 2``:
    ``norm_bound = sqrt(3)``.

    Why. Under local DP every released coordinate carries noise; a smooth
    target's linear part is read from ``d`` input coordinates with a far
    better signal per coordinate than from ``m`` random features of norm
    ``sqrt(2 / m)`` each, so the server can fit the linear part alone, the
    kernel model, or both, on the same reports (``KernelRidgeLDP``).

    Parameters
    ----------
    n_features : int
        Dimension of the inputs ``d``.
    n_components : int
        Number of random features ``m`` (the map outputs ``d + m`` numbers).
    input_scale : float
        ``c > 0``, the factor of the linear block (public).
    kernel, gamma, seed
        As :class:`RandomFourierFeatures`.

    Attributes
    ----------
    fourier : RandomFourierFeatures
        The random-feature block.
    n_outputs : int
        ``d + m``.
    norm_bound : float
        ``sqrt(3)``, the l2 bound of every output for inputs with
        ``||x|| <= 1 / input_scale``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import LinearAndFourierFeatures
    >>> maps = LinearAndFourierFeatures(2, 50, input_scale=0.5, seed=0)
    >>> Z = maps.transform(np.array([[2.0, 0.0], [0.0, -1.0]]))
    >>> Z.shape, Z[:, :2].tolist()
    ((2, 52), [[1.0, 0.0], [0.0, -0.5]])
    >>> bool(np.all(np.linalg.norm(Z, axis=1) <= maps.norm_bound))
    True
    """

    norm_bound = float(np.sqrt(1.0 + FOURIER_FEATURE_NORM**2))

    def __init__(
        self, n_features, n_components, *, input_scale, kernel="rbf", gamma=None, seed=0
    ):
        self.fourier = RandomFourierFeatures(
            n_features, n_components, kernel=kernel, gamma=gamma, seed=seed
        )
        self.input_scale = float(input_scale)
        if not np.isfinite(self.input_scale) or self.input_scale <= 0:
            raise ValueError(
                f"input_scale must be a finite number > 0, got {input_scale!r}."
            )
        self.n_features = self.fourier.n_features
        self.n_outputs = self.n_features + self.fourier.n_components
        # The randomizer reads the output width from n_components.
        self.n_components = self.n_outputs
        self.seed = self.fourier.seed

    def get_config(self):
        """The public description the map is rebuilt from."""
        return {
            **self.fourier.get_config(),
            "map": "linear_and_fourier_features",
            "n_components": self.fourier.n_components,
            "input_scale": self.input_scale,
        }

    @classmethod
    def from_config(cls, config):
        """Rebuild the map from :meth:`get_config`."""
        fourier = RandomFourierFeatures.from_config(config)
        return cls(
            fourier.n_features,
            fourier.n_components,
            input_scale=config["input_scale"],
            kernel=fourier.kernel_name,
            gamma=fourier.gamma_,
            seed=fourier.seed,
        )

    def transform(self, X):
        """``[c X, phi(X)]``, of shape ``(n_samples, n_features + n_components)``."""
        X = _check_input(X, self.n_features)
        out = np.empty((X.shape[0], self.n_outputs))
        np.multiply(X, self.input_scale, out=out[:, : self.n_features])
        out[:, self.n_features :] = self.fourier.transform(X)
        return out

    __call__ = transform


FEATURE_MAPS = {
    "random_projection": RandomProjection,
    "random_fourier_features": RandomFourierFeatures,
    "linear_and_fourier_features": LinearAndFourierFeatures,
}


def feature_map_from_config(config):
    """Rebuild a public feature map from its configuration (``get_config()``).

    Examples
    --------
    >>> from sklearn_ldp.randomizers import RandomProjection, feature_map_from_config
    >>> config = RandomProjection(10, 3, kind="sparse", seed=1).get_config()
    >>> feature_map_from_config(config).get_config() == config
    True
    """
    if not isinstance(config, dict) or config.get("map") not in FEATURE_MAPS:
        raise ValueError(
            f"Not a feature map configuration (the 'map' must be one of "
            f"{sorted(FEATURE_MAPS)}): {config!r}."
        )
    return FEATURE_MAPS[config["map"]].from_config(config)


def feature_map_seed(config):
    """The public seed of the feature map a randomizer configuration announces.

    ``None`` when the configuration has no feature map with an integer seed
    (the server then rebuilds its own map, and the mismatch is reported).
    """
    feature_map = config.get("feature_map")
    seed = feature_map.get("seed") if isinstance(feature_map, dict) else None
    if isinstance(seed, Integral) and not isinstance(seed, bool):
        return int(seed)
    return None
