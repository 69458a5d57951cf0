"""Public random Fourier features for shift-invariant kernels (Rahimi and Recht 2007).

A shift-invariant kernel ``k(x, x') = k(x - x')`` with ``k(0) = 1`` is the
characteristic function of a probability distribution ``p`` (Bochner's
theorem), so with ``s ~ p`` and ``b ~ U[0, 2 pi]``

    E[2 cos(s^T x + b) cos(s^T x' + b)] = E[cos(s^T (x - x'))] = k(x - x').

The map ``phi(x) = sqrt(2 / m) [cos(s_j^T x + b_j)]_{j <= m}`` therefore has
``E[phi(x)^T phi(x')] = k(x, x')`` with an error of order ``1 / sqrt(m)``.
Every coordinate is at most ``sqrt(2 / m)`` in absolute value, so
``||phi(x)||_2 <= sqrt(2)`` for every ``x``: a public bound that needs no
assumption on the data (:data:`FEATURE_NORM_BOUND`). The bound is attained
in the limit (the map ``x -> (s_j^T x + b_j mod 2 pi)_j`` is dense in the
torus for almost every draw), so it is also the right sensitivity bound.

Frequencies:

- ``'rbf'``, ``k = exp(-gamma ||x - x'||_2^2)``: ``s ~ N(0, 2 gamma I)``, drawn
  by :class:`sklearn.kernel_approximation.RBFSampler`;
- ``'laplacian'``, ``k = exp(-gamma ||x - x'||_1)``: the kernel is a product
  over coordinates of ``exp(-gamma |t|)``, the characteristic function of the
  Cauchy distribution with scale ``gamma``, so ``s`` has iid
  ``Cauchy(0, gamma)`` coordinates (scikit-learn has no sampler for it).

``gamma=None`` means ``1 / n_features``, the default of
:func:`sklearn.metrics.pairwise.rbf_kernel` and ``laplacian_kernel`` (and so
of :class:`sklearn.kernel_ridge.KernelRidge`); it depends only on the public
number of features. The map is public randomness: it is rebuilt bit for bit
from ``(kernel, gamma, n_components, seed)``.
"""

import numpy as np
from sklearn.kernel_approximation import RBFSampler
from sklearn.metrics.pairwise import laplacian_kernel, rbf_kernel

KERNELS = ("rbf", "laplacian")

#: ``||phi(x)||_2 <= sqrt(2)`` for every input: each of the ``m`` coordinates
#: is ``sqrt(2 / m) cos(.)``.
FEATURE_NORM_BOUND = float(np.sqrt(2.0))


class RandomFourierFeatures:
    """Public random Fourier feature map of a shift-invariant kernel.

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
    >>> from sklearn_ldp.aggregation import RandomFourierFeatures
    >>> rff = RandomFourierFeatures(3, 2000, kernel="laplacian", gamma=0.5, seed=0)
    >>> X = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    >>> Z = rff.transform(X)
    >>> Z.shape, bool(np.all(np.linalg.norm(Z, axis=1) <= rff.norm_bound))
    ((2, 2000), True)
    >>> round(float(Z[0] @ Z[1]), 1), round(float(rff.kernel(X)[0, 1]), 1)
    (0.6, 0.6)
    """

    norm_bound = FEATURE_NORM_BOUND

    def __init__(self, n_features, n_components, *, kernel="rbf", gamma=None, seed=0):
        if kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}.")
        self.n_features = int(n_features)
        self.n_components = int(n_components)
        if self.n_features < 1 or self.n_components < 1:
            raise ValueError(
                "n_features and n_components must be >= 1, got "
                f"{n_features!r} and {n_components!r}."
            )
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
            "kernel": self.kernel_name,
            "gamma": self.gamma_,
            "n_components": self.n_components,
            "seed": self.seed,
        }

    def transform(self, X):
        """``sqrt(2 / m) cos(X W + b)``, of shape ``(n_samples, n_components)``."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(
                f"Expected inputs with {self.n_features} features, got shape {X.shape}."
            )
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
