"""The populations every benchmark draws its users from.

One registry for the per-estimator scripts, the summary table and the
scaling benchmark, so that "the same population" means the same code and the
same draws everywhere. A population is a public description (what a
deployment would know before collecting anything: the number of features,
the bounds users clip to, the label set) plus a sampler.

Draws are reproducible and *independent of the users' noise*: the data of
``population.sample(n, seed)`` come from ``RandomState([seed, tag, n])``
where ``tag`` is the population's own constant, while the estimators draw
their noise from ``SeedSequence([seed, ...])`` (see
``sklearn_ldp.utils.check_noise_random_state``). Had both used
``RandomState(seed)``, every user's noise would replay the numbers that made
its record (this bit an earlier version of these benchmarks). Test users are
drawn from a different stream (``split='test'``), so they are never training
users.

    >>> from benchmarks._populations import POPULATIONS
    >>> X, y, X_test, y_test = POPULATIONS["linear_1d"].train_test(1000, seed=0)
    >>> X.shape, X_test.shape
    ((1000, 1), (20000, 1))
"""

import zlib
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_digits,
    load_wine,
)

#: Held-out users per population (fewer when a population is expensive).
N_TEST = 20_000
#: Users per generated chunk in :meth:`Population.chunks` (about 40 MB at d = 1000).
CHUNK_ELEMENTS = 5_000_000


@dataclass(frozen=True)
class Population:
    """A public description of a population and a sampler of its users.

    Parameters
    ----------
    name : str
        Registry key.
    task : {'regression', 'classification', 'density', 'binary', 'mean'}
        What is learned from it.
    sampler : callable
        ``sampler(n, rng) -> (X, y)`` (``y`` is None for unsupervised tasks),
        with ``rng`` a ``numpy.random.RandomState``.
    description : str
        One line for the benchmark pages.
    data_norm : float or None
        Public bound on ``||x||_2`` (users clip to it); None when the bound
        is a box (see ``bounds``).
    y_bound : float or None
        Public bound on ``|y|`` for regression.
    bounds : tuple or None
        Public per-coordinate box ``(low, high)`` when that is the geometry.
    max_n : int or None
        Largest population the sampler produces (dense high-dimensional
        populations are capped by memory; the tables say so).
    n_test : int
        Held-out users drawn by :meth:`train_test`.
    params : dict
        Public constants of the generator (true coefficients etc.).
    test_sampler : callable or None
        Sampler of held-out users when they must come from other records
        (resampled real data sets); default: ``sampler``.
    """

    name: str
    task: str
    sampler: object
    description: str
    data_norm: float | None = 1.0
    y_bound: float | None = None
    bounds: tuple | None = None
    max_n: int | None = None
    n_test: int = N_TEST
    params: dict = field(default_factory=dict)
    test_sampler: object = None

    @property
    def tag(self):
        return zlib.crc32(self.name.encode())

    def rng(self, n, seed, split="train"):
        """The data stream of ``n`` users for ``seed`` (train and test differ)."""
        return np.random.RandomState([seed, self.tag, n, split == "test"])

    def sample(self, n, seed=0, split="train"):
        """``n`` users (capped at ``max_n``): ``(X, y)``."""
        if self.max_n is not None:
            n = min(n, self.max_n)
        sampler = self.test_sampler if split == "test" else None
        return (sampler or self.sampler)(n, self.rng(n, seed, split))

    def train_test(self, n, seed=0, n_test=None):
        """``(X, y, X_test, y_test)``: training users and held-out users
        (``n_test=0``: none, ``X_test`` and ``y_test`` are None)."""
        X, y = self.sample(n, seed)
        n_test = self.n_test if n_test is None else n_test
        if n_test == 0:
            return X, y, None, None
        X_test, y_test = self.sample(n_test, seed, split="test")
        return X, y, X_test, y_test

    def chunks(self, n, seed=0, chunk=None):
        """The ``n`` training users as ``(X, y)`` chunks, never all in memory.

        Each chunk is drawn from its own stream, so the concatenation does not
        equal :meth:`sample`; use one or the other for a given comparison.
        """
        d = self.params.get("n_features", 1)
        chunk = chunk or max(500, CHUNK_ELEMENTS // d)
        for index, start in enumerate(range(0, n, chunk)):
            size = min(chunk, n - start)
            rng = np.random.RandomState([seed, self.tag, n, 2, index])
            yield self.sampler(size, rng)


# ---------------------------------------------------------------- regression
def _linear_1d(n, rng):
    X = rng.uniform(-1.0, 1.0, size=(n, 1))
    y = np.clip(0.5 * X[:, 0] + 0.1 + 0.3 * rng.standard_normal(n), -1.0, 1.0)
    return X, y


def _sparse_coef(d, s=3):
    w = np.zeros(d)
    w[:s] = 0.5 * np.sqrt(2 * s) / s * (-1.0) ** np.arange(s)
    return w


def _sparse_linear(d, s=3):
    """s relevant features uniform in a cube, d - s on a sphere; ||x|| <= 1."""
    coef = _sparse_coef(d, s)

    def sampler(n, rng):
        relevant = rng.uniform(-1, 1, (n, s)) / np.sqrt(2 * s)
        rest = rng.standard_normal((n, d - s))
        rest *= np.sqrt(0.5) / np.linalg.norm(rest, axis=1, keepdims=True)
        X = np.hstack([relevant, rest])
        return X, X @ coef + rng.uniform(-0.5, 0.5, n)

    return sampler


def sparse_linear_excess_risk(coef, intercept, d, s=3):
    """Population excess squared risk of ``(coef, intercept)``, normalized by
    the signal variance (the covariance of ``x`` is diagonal and known)."""
    variances = np.full(d, 0.5 / (d - s))
    variances[:s] = 1.0 / (6 * s)
    w = _sparse_coef(d, s)
    signal = np.sum(w**2 * variances)
    return float((np.sum((coef - w) ** 2 * variances) + intercept**2) / signal)


def _nonlinear_5d(n, rng):
    X = rng.uniform(-1, 1, size=(n, 5))
    y = np.sin(2 * X[:, 0]) * np.cos(X[:, 1]) + 0.5 * X[:, 2] ** 2 - 0.2
    return X, np.clip(y + 0.1 * rng.standard_normal(n), -1, 1)


def _diabetes(n, rng):
    data = load_diabetes()
    X = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
    # Public range of the target (25..346 in the data set's documentation).
    y = np.clip((data.target - 185.5) / 160.5, -1, 1)
    index = rng.randint(0, X.shape[0], size=n)
    return X[index], y[index]


#: Columns of the diabetes subsets: bmi and s5 (the two strongest), then bp,
#: s3, s6 (public choices, fixed from the data set's documentation).
_DIABETES_COLUMNS = (2, 8, 3, 6, 9)


def _diabetes_ball(p):
    """Diabetes restricted to ``p`` public columns, in the unit ball.

    Standardization constants of the 442 rows are treated as public, a
    small jitter (0.05 standard deviations) makes resampled users distinct,
    and the public scale ``1 / (3 sqrt(p))`` puts nearly every row inside the
    unit ball (users clip the rest).
    """
    columns = list(_DIABETES_COLUMNS[:p])

    def sampler(n, rng):
        data = load_diabetes()
        X = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
        y = np.clip((data.target - 185.5) / 160.5, -1, 1)
        rows = rng.randint(0, X.shape[0], size=n)
        Z = X[rows][:, columns] + 0.05 * rng.standard_normal((n, p))
        Z /= 3.0 * np.sqrt(p)
        Z /= np.maximum(1.0, np.linalg.norm(Z, axis=1, keepdims=True))
        return Z, y[rows]

    return sampler


# ------------------------------------------------------------ classification
def _separable_2d(n, rng):
    X = rng.uniform(-1, 1, size=(n, 2)) / np.sqrt(2)
    return X, (X @ [0.8, 0.6] > 0.05).astype(int)


def _linear_rule_10d(n, rng, p=10):
    X = rng.uniform(-1, 1, size=(n, p)) / np.sqrt(p)
    direction = np.linspace(1.0, -0.5, p)
    direction /= np.linalg.norm(direction)
    y = (X @ direction > 0.05).astype(int)
    flip = rng.uniform(size=n) < 0.05
    return X, np.where(flip, 1 - y, y)


def _logistic_10d(n, rng, p=10):
    # Correlated features: a fixed (public) rotation of scales 0.45 .. 0.15.
    rotation = np.linalg.qr(np.random.RandomState(1234).standard_normal((p, p)))[0]
    X = (rng.standard_normal((n, p)) * np.linspace(0.45, 0.15, p)) @ rotation
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    w = np.linspace(6.0, -3.0, p)
    return X, (rng.uniform(size=n) < expit(X @ w + 0.3)).astype(int)


def _standardized_resample(loader):
    """Users resampled from a bundled data set, in the unit ball.

    Standardization constants from the data set's rows, treated as public (a
    real deployment would fix them from domain knowledge); a small jitter
    (0.05 standard deviations) makes resampled users distinct; the public
    scale ``1 / (2 sqrt(d))`` puts most rows in the unit ball, users clip the
    rest.
    """

    def sampler(n, rng):
        data = loader()
        standardized = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
        rows = rng.randint(len(standardized), size=n)
        X = standardized[rows] + 0.05 * rng.standard_normal((n, standardized.shape[1]))
        X /= 2.0 * np.sqrt(standardized.shape[1])
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
        return X, data.target[rows]

    return sampler


_breast_cancer = _standardized_resample(load_breast_cancer)
#: Three cultivars, 13 chemical measurements.
_wine = _standardized_resample(load_wine)


def _classification_54d(n, rng, d=54, informative=20, redundant=10):
    """make_classification's model with a *fixed* structure.

    ``sklearn.datasets.make_classification`` draws the cluster centroids and
    the mixing matrices from the same random state as the samples, so two
    calls with different states are two different distributions (train and
    test users would disagree). Here the structure (two clusters per class
    at hypercube vertices, their mixing matrices, the redundant combinations,
    the column order) is drawn once from the public ``RandomState(54)``; only
    the users come from ``rng``. 1% of labels are random, as in
    make_classification.
    """
    structure = np.random.RandomState(54)
    centroids = structure.choice([-1.0, 1.0], size=(4, informative))
    mixing = 2.0 * structure.uniform(size=(4, informative, informative)) - 1.0
    redundancy = 2.0 * structure.uniform(size=(informative, redundant)) - 1.0
    order = structure.permutation(d)
    cluster = rng.randint(4, size=n)
    Z = rng.standard_normal((n, informative))
    for k in range(4):  # four clusters, not a loop over users
        rows = cluster == k
        Z[rows] = Z[rows] @ mixing[k] + centroids[k]
    X = np.hstack([Z, Z @ redundancy, rng.standard_normal((n, d - 30))])[:, order]
    y = cluster % 2
    flip = rng.uniform(size=n) < 0.01
    y[flip] = rng.randint(2, size=int(flip.sum()))
    return X / (6 * np.sqrt(d)), y  # public scale: ||x|| <~ 1, users clip


def _digits_binary(split):
    # A fixed public permutation: users are resampled from its first 1500
    # images, held-out users from the other 297, so no test image is trained on.
    def sampler(n, rng):
        data = load_digits()
        order = np.random.RandomState(5).permutation(len(data.target))
        pool = order[:1500] if split == "train" else order[1500:]
        rows = pool[rng.randint(len(pool), size=n)]
        return data.data[rows] / 128.0, (data.target[rows] >= 5).astype(int)

    return sampler


def _digits_multiclass(split):
    # Ten classes; the same public train/test pools as ``digits_binary``;
    # pixels / 96: every row has norm below about 0.8 (users clip the rest).
    def sampler(n, rng):
        data = load_digits()
        order = np.random.RandomState(5).permutation(len(data.target))
        pool = order[:1500] if split == "train" else order[1500:]
        rows = pool[rng.randint(len(pool), size=n)]
        X = data.data[rows] / 96.0
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
        return X, data.target[rows]

    return sampler


def _gaussian_sign_100d(n, rng, d=100, row_norm=4.0):
    # Seed 004's experiment: x ~ N(0, I), y = sign(<theta, x>), rows scaled so
    # the largest norm is 4. theta is fixed (public constant of the task).
    theta = np.random.RandomState(4).standard_normal(d)
    X = rng.standard_normal((n, d))
    y = np.where(X @ theta > 0, 1, 0)
    return X * (row_norm / (np.sqrt(d) + 4.0 * np.sqrt(2))), y


def _sparse_logistic_coef(d, s=5):
    w = np.zeros(d)
    w[:s] = 8.0 * (-1.0) ** np.arange(s)
    return w


def _sparse_logistic(d, s=5):
    """s informative features uniform in a cube (half the norm), d - s on a
    sphere of radius sqrt(1/2); ||x|| <= 1; P(y = 1) = sigmoid(<w, x>)."""
    coef = _sparse_logistic_coef(d, s)

    def sampler(n, rng):
        relevant = rng.uniform(-1, 1, (n, s)) / np.sqrt(2 * s)
        rest = rng.standard_normal((n, d - s))
        rest *= np.sqrt(0.5) / np.linalg.norm(rest, axis=1, keepdims=True)
        X = np.hstack([relevant, rest])
        y = (rng.uniform(size=n) < expit(X @ coef)).astype(int)
        return X, y

    return sampler


def _rademacher(d):
    def sampler(n, rng):
        X = rng.choice([-1.0, 1.0], size=(n, d))
        y = (X[:, :5].sum(axis=1) > 0).astype(int)
        flip = rng.uniform(size=n) < 0.05  # 5% label noise
        return X, np.where(flip, 1 - y, y)

    return sampler


# ---------------------------------------------------------- query release
def _mixture(p):
    def sampler(n, rng):
        component = rng.uniform(size=(n, 1)) < 0.6
        centers = np.where(component, -0.35, 0.4)
        scales = np.where(component, 0.2, 0.3)
        X = np.clip(centers + scales * rng.standard_normal((n, p)), -1.0, 1.0)
        return X, None

    return sampler


def _binary_latent(p):
    def sampler(n, rng):
        a = np.linspace(0.05, 0.95, p)
        latent = rng.uniform(size=(n, 1)) < 0.4
        prob = np.where(latent, a, a[::-1])
        return (rng.uniform(size=(n, p)) < prob).astype(np.int8), None

    return sampler


def _sparse_mean_vector(d):
    mean = np.zeros(d)
    mean[:4] = [0.3, -0.2, 0.25, 0.15]
    return mean


def _sparse_mean(d):
    mean = _sparse_mean_vector(d)

    def sampler(n, rng):
        X = mean + rng.uniform(-1, 1, size=(n, d)) * 0.5 / np.sqrt(d)
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
        return X, None

    return sampler


def _register(*populations):
    return {population.name: population for population in populations}


POPULATIONS = _register(
    Population(
        "linear_1d",
        "regression",
        _linear_1d,
        "x ~ U[-1, 1], y = 0.5 x + 0.1 + N(0, 0.3^2), clipped to [-1, 1]",
        y_bound=1.0,
        bounds=(-1.0, 1.0),
        params={"n_features": 1},
    ),
    *(
        Population(
            f"sparse_linear_{d}d",
            "regression",
            _sparse_linear(d),
            f"d = {d}, 3 relevant features, ||x|| <= 1, y = <w, x> + U[-0.5, 0.5]",
            y_bound=1.0,
            params={
                "n_features": d,
                "coef": _sparse_coef(d),
                "l1_radius": float(np.abs(_sparse_coef(d)).sum()),
            },
        )
        for d in (20, 100, 10_000)
    ),
    Population(
        "nonlinear_5d",
        "regression",
        _nonlinear_5d,
        "x ~ U[-1, 1]^5, y = sin(2 x1) cos(x2) + 0.5 x3^2 - 0.2 + N(0, 0.1^2)",
        data_norm=np.sqrt(5.0),
        y_bound=1.0,
        params={"n_features": 5},
    ),
    Population(
        "diabetes",
        "regression",
        _diabetes,
        "scikit-learn's diabetes data (442 x 10), standardized, resampled",
        data_norm=2 * np.sqrt(10),
        y_bound=1.0,
        params={"n_features": 10},
    ),
    *(
        Population(
            f"diabetes_{p}d",
            "regression",
            _diabetes_ball(p),
            f"scikit-learn's diabetes data, {p} public columns (bmi, s5, bp, "
            "s3, s6 in that order), standardized, jittered, in the unit ball",
            y_bound=1.0,
            params={"n_features": p},
        )
        for p in (2, 5)
    ),
    Population(
        "separable_2d",
        "classification",
        _separable_2d,
        "x ~ U[-1, 1]^2 / sqrt(2), y = [0.8 x1 + 0.6 x2 > 0.05] (separable)",
        params={"n_features": 2},
    ),
    Population(
        "linear_rule_10d",
        "classification",
        _linear_rule_10d,
        "x ~ U[-1, 1]^10 / sqrt(10), linear rule, 5% label noise",
        params={"n_features": 10},
    ),
    Population(
        "logistic_10d",
        "classification",
        _logistic_10d,
        "10 correlated Gaussian features in the unit ball, logistic labels",
        params={"n_features": 10},
    ),
    Population(
        "breast_cancer",
        "classification",
        _breast_cancer,
        "scikit-learn's breast cancer data (569 x 30) in the unit ball, resampled",
        params={"n_features": 30},
    ),
    Population(
        "classification_54d",
        "classification",
        _classification_54d,
        "make_classification's model (54 features, 20 informative, 2 clusters "
        "per class, 1% label noise) with a fixed public structure, scaled by "
        "1 / (6 sqrt(54)), users clip to ||x|| <= 1",
        params={"n_features": 54},
    ),
    Population(
        "digits_binary",
        "classification",
        _digits_binary("train"),
        "scikit-learn's digits (8x8) / 128, label digit >= 5, resampled",
        params={"n_features": 64},
        test_sampler=_digits_binary("test"),
    ),
    Population(
        "wine",
        "classification",
        _wine,
        "scikit-learn's wine data (178 x 13, 3 classes) in the unit ball, resampled",
        params={"n_features": 13, "n_classes": 3},
    ),
    Population(
        "digits",
        "classification",
        _digits_multiclass("train"),
        "scikit-learn's digits (8x8, 10 classes) / 96 in the unit ball, resampled",
        params={"n_features": 64, "n_classes": 10},
        test_sampler=_digits_multiclass("test"),
    ),
    Population(
        "gaussian_sign_100d",
        "classification",
        _gaussian_sign_100d,
        "seed 004's task: x ~ N(0, I_100) scaled, y = sign(<theta, x>)",
        data_norm=4.0,
        params={"n_features": 100},
    ),
    *(
        Population(
            f"rademacher_{d}d",
            "classification",
            _rademacher(d),
            f"x uniform in {{-1, 1}}^{d}, y = [x1 + ... + x5 > 0], 5% label noise",
            data_norm=None,
            bounds=(-1.0, 1.0),
            max_n=50_000,
            n_test=5_000,
            params={"n_features": d},
        )
        for d in (1000, 10_000)
    ),
    *(
        Population(
            f"mixture_{p}d",
            "density",
            _mixture(p),
            f"two-component Gaussian mixture in [-1, 1]^{p}, clipped",
            data_norm=None,
            bounds=(-1.0, 1.0),
            n_test=5_000,
            params={"n_features": p},
        )
        for p in (1, 2)
    ),
    *(
        Population(
            f"binary_{p}d",
            "binary",
            _binary_latent(p),
            f"{p} correlated bits (a two-class latent mixture)",
            data_norm=None,
            bounds=(0, 1),
            params={"n_features": p},
        )
        for p in (8, 10, 12, 16, 24)
    ),
    *(
        Population(
            f"sparse_logistic_{d}d",
            "classification",
            _sparse_logistic(d),
            f"d = {d}, 5 informative features (U[-1, 1] / sqrt(10), half the "
            "norm), the rest on the sphere of radius sqrt(1/2); ||x|| <= 1; "
            "logistic labels, coefficients +-8",
            # l1_radius: public prior on ||w||_1 of the degree-1 margin model
            # (2.16 times least squares on +-1 labels: 18.8 on the informative
            # features of a large non-private draw at d = 200), rounded up.
            params={
                "n_features": d,
                "coef": _sparse_logistic_coef(d),
                "l1_radius": 20.0,
            },
        )
        for d in (200, 500)
    ),
    *(
        Population(
            f"sparse_mean_{d}d",
            "mean",
            _sparse_mean(d),
            f"d = {d}, mean with 4 nonzero coordinates (l1 norm 0.9), ||x|| <= 1",
            # Rows are mean + u with ||u|| <= 0.5 and ||mean|| = 0.46, so the
            # clip to the unit ball never acts: the population mean is ``mean``.
            params={"n_features": d, "l1_radius": 1.0, "mean": _sparse_mean_vector(d)},
        )
        for d in (100, 10_000)
    ),
)
