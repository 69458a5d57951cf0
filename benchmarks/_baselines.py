"""The baselines every benchmark compares against, in one place.

- **non-private**: the scikit-learn model fitted on the clean records
  (:func:`nonprivate`);
- **naive**: every user perturbs its raw record with a standard local
  mechanism at the same (epsilon, delta) and the server fits scikit-learn on
  the noisy records as if they were clean (:func:`naive_fit` for Gaussian
  reports of (x, y), :func:`laplace_records` for the pure-epsilon Laplace
  version, :func:`randomized_response_tables` for binary data,
  :func:`deconvolution_density` for densities);
- **debiased least squares**: the same Gaussian reports, but the server
  removes the known noise from the sufficient statistics (``E[z z^T] =
  x x^T + sigma_x^2 I``), projects the Gram matrix to PSD and adds a ridge at
  the scale of its remaining noise (:class:`GaussianLeastSquares`). Used as a
  classifier through the sign of its fit. It is the strongest simple
  competitor of every linear LDP estimator and every page says how it
  compares.

Every function takes ``seed`` for the users' noise and draws it through
``check_noise_random_state`` (a stream separate from the populations' data).
"""

import numpy as np
from sklearn.base import clone
from sklearn.metrics import accuracy_score, r2_score

from sklearn_ldp.aggregation import SufficientStatistics, project_psd
from sklearn_ldp.optim import project_l1_ball
from sklearn_ldp.randomizers import (
    GaussianMechanism,
    GaussianRecordRandomizer,
    PrivUnitGRecordRandomizer,
)
from sklearn_ldp.utils import check_noise_random_state

#: delta of every Gaussian mechanism in the benchmarks, unless a script says:
#: below 1 / n for the largest population (10^6 users); 1e-5 before issue 17.
DELTA = 1e-7
#: For the tables' notes.
DELTA_NOTE = "delta was 1e-5 before issue 17, now below 1/n for up to 10^6 users"


def nonprivate(model, X, y=None):
    """A clone of the scikit-learn ``model`` fitted on the clean records."""
    model = clone(model)
    return model.fit(X) if y is None else model.fit(X, y)


#: What the GLM and hinge classifiers' default server does (for the pages).
#: Name of :func:`privunit_classifier` in the tables.
PRIVUNIT_LS = "debiased LS (PrivUnitG)"
ORACLE_CLASSIFIER_DEFAULT = (
    "one pure-epsilon PrivUnitG report of (x, y) per user (mechanism = "
    "'auto'), read by the server as a Gaussian report of the same second "
    "moments; the server "
    "solves the degree-1 Chebyshev objective exactly on the debiased moments "
    "inside the coef_norm ball, chooses from held-out reports alone between "
    "that model, debiased ridge least squares (7 penalties) and the majority "
    "class (the majority class whenever the tests of 'no signal' do not "
    "reject), and moves the threshold of the chosen direction to the linear "
    "discriminant's along it (a lower confidence bound on the within-class "
    "variance, moments cross-fitted on held-out folds); at or below the public population "
    "min_users_for_a_model of that report's noise (two classes, 2 features: "
    "1,064 users at eps 0.5, 70 at eps 1; with the Gaussian report at delta "
    "1e-7, 4.2e5 and 3.1e4) users send the label alone by randomized "
    "response and the server predicts the majority class of its unbiased "
    "frequencies"
)


#: The trivial classifier's column name.
#: Draws (data and noise seeds) per cell of the linear classifiers' tables
#: (bench_glm, bench_hinge): 10 at 10^4 users, where three draws left cells'
#: verdicts to luck (``python -m benchmarks.spot_checks signal-power
#: breast_cancer 10000 1 20``: debiased least squares 0.772 on draws 0-2,
#: 0.622 ± 0.038 over 20), 3 at the larger sizes (slower fits, smaller spread).
CLASSIFIER_REPEATS = {10_000: 10, 100_000: 3, 1_000_000: 3}


def repeats_note(repeats):
    """``{n: count}`` as text: ``'10 at n = 10,000, 3 at 100,000 and 1,000,000'``."""
    counts = {}
    for n, count in repeats.items():
        counts.setdefault(count, []).append(f"{n:,}")
    parts = []
    for count, sizes in counts.items():
        text = (
            sizes[0] if len(sizes) == 1 else ", ".join(sizes[:-1]) + " and " + sizes[-1]
        )
        parts.append(f"{count} at {'n = ' if not parts else ''}{text}")
    return ", ".join(parts)


MAJORITY = "majority class"


def majority_class(data, epsilon, seed):
    """The trivial predictor: the majority class of the training users.

    (The majority of the held-out labels is an oracle: on a balanced
    population it scores 0.5 plus the absolute test-draw noise, above what
    any predictor fitted without the test labels can expect from a
    constant.) A ``Method`` of the ``'non-private'`` mode.
    """
    from sklearn.dummy import DummyClassifier

    return DummyClassifier().fit(data.X, data.y)


def record_randomizer(
    n_features, epsilon, *, delta=DELTA, data_norm=1.0, y_bound=None, classes=None
):
    """The naive users' mechanism: (x, y) released jointly with Gaussian noise,
    calibrated by the analytic Gaussian mechanism (the same randomizer as the
    library's own Gaussian-report estimators use)."""
    if classes is None and y_bound is None:
        raise ValueError("give y_bound (regression) or classes (classification)")
    return GaussianRecordRandomizer(
        n_features,
        epsilon=epsilon,
        delta=delta,
        data_norm=data_norm,
        y_bound=y_bound,
        classes=classes,
    )


def gaussian_records(X, y, epsilon, seed, **randomizer_params):
    """Noisy ``(z, v, randomizer)``: every user's Gaussian report of (x, y).

    ``v`` is the noisy target, or the noisy +-1 label for two classes.
    """
    randomizer = record_randomizer(X.shape[1], epsilon, **randomizer_params)
    reports = randomizer.randomize(X, y, random_state=check_noise_random_state(seed))
    return reports["x"], np.ravel(reports["y"]), randomizer


def naive_fit(model, X, y, epsilon, seed, *, classes=None, **randomizer_params):
    """scikit-learn ``model`` fitted on Gaussian-perturbed records.

    For classification (``classes`` given, two classes) the server labels a
    noisy report by the sign of its noisy +-1 label.
    """
    z, v, _ = gaussian_records(
        X, y, epsilon, seed, classes=classes, **randomizer_params
    )
    if classes is not None:
        classes = np.asarray(classes)
        labels = classes[(v > 0).astype(int)]
        if np.all(labels == labels[0]):  # one class only: keep the fit defined
            labels[0] = classes[0] if labels[0] == classes[1] else classes[1]
        v = labels
    return nonprivate(model, z, v)


def naive_gaussian_mean(
    X, epsilon, seed, *, delta=DELTA, norm_bound=1.0, l1_radius=None, batch=50_000
):
    """Naive mean: users release ``x + N(0, sigma^2 I_d)`` (the Gaussian
    mechanism at the same (epsilon, delta), l2 bound ``norm_bound``); the
    server averages in batches and, with ``l1_radius``, projects the average
    onto the public l1 ball."""
    mechanism = GaussianMechanism(epsilon, delta, norm_bound=norm_bound)
    rng = check_noise_random_state(seed)
    total = np.zeros(X.shape[1])
    for start in range(0, X.shape[0], batch):
        total += mechanism.randomize(X[start : start + batch], random_state=rng).sum(0)
    mean = total / X.shape[0]
    return mean if l1_radius is None else project_l1_ball(mean, l1_radius)


def laplace_records(X, y, epsilon, seed, *, x_bound=1.0, y_bound=1.0):
    """Pure epsilon-LDP naive reports: Laplace noise on every coordinate of
    ``(x, y)`` with ``|x_j| <= x_bound``, ``|y| <= y_bound``; the l1
    sensitivity of the record is ``2 (p x_bound + y_bound)``."""
    rng = check_noise_random_state(seed)
    p = X.shape[1]
    scale = 2.0 * (p * x_bound + y_bound) / epsilon
    X = np.clip(X, -x_bound, x_bound)
    y = np.clip(y, -y_bound, y_bound)
    return X + rng.laplace(0.0, scale, X.shape), y + rng.laplace(0.0, scale, y.shape)


class GaussianLeastSquares:
    """Least squares from Gaussian reports, debiased or naive, streaming.

    Users release ``(x, y)`` (or ``(x, +-1 label)``) with
    :func:`record_randomizer`; the server accumulates ``[z, 1]^T [z, 1]`` and
    ``[z, 1]^T v`` chunk by chunk (memory independent of n). With
    ``debias=True`` it subtracts ``n sigma_x^2`` from the feature block of the
    Gram matrix (the constant column carries no noise), projects to PSD and
    solves with a ridge ``2 sigma_x^2 sqrt(p / n)``, the operator-norm scale
    of a Wishart's fluctuation (without it, directions the debiasing wiped
    out are amplified arbitrarily). With ``debias=False`` it is ordinary
    least squares on the noisy reports (the naive baseline).

    Parameters
    ----------
    epsilon, seed : float, int
        Per-user budget and noise seed.
    debias : bool, default=True
    classes : sequence of two labels or None
        Classification: fit the +-1 label, predict by the sign.
    **randomizer_params
        ``delta``, ``data_norm``, ``y_bound`` of :func:`record_randomizer`.
    """

    def __init__(
        self, epsilon, seed, *, debias=True, classes=None, **randomizer_params
    ):
        self.epsilon, self.seed, self.debias = epsilon, seed, debias
        self.classes = None if classes is None else np.asarray(classes)
        self.randomizer_params = randomizer_params
        self._rng = check_noise_random_state(seed)
        self._stats = None

    def partial_fit(self, X, y):
        if self._stats is None:
            self.randomizer_ = record_randomizer(
                X.shape[1],
                self.epsilon,
                classes=None if self.classes is None else list(self.classes),
                **self.randomizer_params,
            )
            self._stats = SufficientStatistics(X.shape[1] + 1)
        reports = self.randomizer_.randomize(X, y, random_state=self._rng)
        z = reports["x"]
        self._stats.update(np.hstack([z, np.ones((len(z), 1))]), np.ravel(reports["y"]))
        return self._solve()

    def fit(self, X, y):
        self._stats = None
        self._rng = check_noise_random_state(self.seed)
        return self.partial_fit(X, y)

    def _moments(self):
        """``(E[[z, 1][z, 1]^T], E[[z, 1] t])`` of the reports, not debiased."""
        stats = self._stats
        return stats.gram / stats.n, stats.moment / stats.n

    def _solve(self):
        stats, p = self._stats, self._stats.n_components - 1
        n = stats.n
        gram, moment = self._moments()
        ridge = 1e-9
        if self.debias:
            sigma2 = self.randomizer_.sigma_x**2
            gram = project_psd(gram - np.diag(np.append(np.full(p, sigma2), 0.0)))
            ridge = 2.0 * sigma2 * np.sqrt(p / n) + 1e-9
        w = np.linalg.solve(gram + ridge * np.eye(p + 1), moment)
        self.coef_, self.intercept_ = w[:p], float(w[p])
        return self

    def unpenalized_intercept(self):
        """``mean(v) - mean(z)^T coef``: the intercept of the same ``coef``
        without the ridge on the constant column."""
        p = self._stats.n_components - 1
        gram, moment = self._moments()
        return float(moment[p] - gram[:p, p] @ self.coef_)

    def decision_function(self, X):
        return X @ self.coef_ + self.intercept_

    def predict(self, X):
        scores = self.decision_function(X)
        if self.classes is None:
            return scores
        return self.classes[(scores > 0).astype(int)]

    def score(self, X, y):
        """Accuracy (classification) or R^2 (regression)."""
        if self.classes is None:
            return r2_score(y, self.predict(X))
        return accuracy_score(y, self.predict(X))


class PrivUnitLeastSquares(GaussianLeastSquares):
    """:class:`GaussianLeastSquares` on PrivUnitG pair reports.

    Users send the reports ``GLMLDPClassifier`` and ``HingeLDPClassifier``
    (binary labels, ``classes``) and ``SparseLDPRegressor`` with the
    identity projection (a target in ``[-y_bound, y_bound]``, ``classes``
    None) collect by default
    (:class:`~sklearn_ldp.randomizers.PrivUnitGRecordRandomizer`, pure
    epsilon); the server reads them as Gaussian reports of noise
    ``sigma_x`` (``report_scale`` times the pair's columns, the target
    divided by its public ``target_scale``) with the first moments
    multiplied by ``first_moment_factor``, and solves the same debiased
    ridge least squares: the "debiased least squares on the same reports"
    of those estimators' default.
    """

    def partial_fit(self, X, y):
        if self._stats is None:
            target = (
                {"y_bound": self.randomizer_params.get("y_bound", 1.0)}
                if self.classes is None
                else {"classes": list(self.classes)}
            )
            self.randomizer_ = PrivUnitGRecordRandomizer(
                X.shape[1],
                epsilon=self.epsilon,
                data_norm=self.randomizer_params.get("data_norm", 1.0),
                **target,
            )
            self._stats = SufficientStatistics(X.shape[1] + 1)
        reports = self.randomizer_.randomize(X, y, random_state=self._rng)
        pair = self.randomizer_.report_scale * reports["x"]
        z = pair[:, : X.shape[1]]
        t = pair[:, X.shape[1]] / self.randomizer_.target_scale
        self._stats.update(np.hstack([z, np.ones((len(z), 1))]), t)
        return self._solve()

    def _moments(self):
        gram, moment = super()._moments()
        gram, moment = gram.copy(), moment.copy()
        factor, p = self.randomizer_.first_moment_factor, len(moment) - 1
        gram[:p, p] *= factor
        gram[p, :p] *= factor
        moment[p] *= factor
        return gram, moment


def privunit_classifier(data, epsilon, seed):
    """A ``run_grid`` fit: :class:`PrivUnitLeastSquares` on +-1 labels, users
    clipping to the population's public l2 bound."""
    return PrivUnitLeastSquares(
        epsilon, seed, classes=[0, 1], data_norm=public_l2_bound(data.population)
    ).fit(data.X, data.y)


def randomized_response_tables(X, subsets, epsilon, seed):
    """Naive k-way marginals: randomized response on every bit at
    ``epsilon / p`` (basic composition), empirical tables of the noisy bits,
    then the inverse channel applied along each bit of a cell.

    Returns ``(len(subsets), 2^k)`` tables, cell index ``sum_j bit_j 2^j``.
    """
    rng = check_noise_random_state(seed)
    p, k = X.shape[1], subsets.shape[1]
    flip = 1.0 / (1.0 + np.exp(epsilon / p))
    noisy = X ^ (rng.uniform(size=X.shape) < flip)
    tables = histogram_tables(noisy, subsets)
    inverse = np.linalg.inv(np.array([[1 - flip, flip], [flip, 1 - flip]]))
    shaped = tables.reshape((-1,) + (2,) * k)
    for axis in range(1, k + 1):
        shaped = np.moveaxis(
            np.tensordot(shaped, inverse.T, axes=([axis], [0])), -1, axis
        )
    return shaped.reshape(tables.shape)


def histogram_tables(bits, subsets):
    """Exact k-way tables ``(len(subsets), 2^k)`` of binary data (non-private)."""
    n, k = bits.shape[0], subsets.shape[1]
    powers = 1 << np.arange(k)
    out = np.empty((subsets.shape[0], 2**k))
    for i, subset in enumerate(subsets):
        codes = bits[:, subset].astype(np.int64) @ powers
        out[i] = np.bincount(codes, minlength=2**k) / n
    return out


def product_kernel_sum(points, axes, kernel, chunk=5_000):
    """``mean_i prod_j kernel(a_j - points_ij)`` on the product grid of
    ``axes`` (p = 1 or 2), factorized over coordinates, in chunks of users:
    memory ``O(grid axis x chunk)``, never ``O(queries x n)``."""
    p = points.shape[1]
    if p not in (1, 2):
        raise ValueError("product grids are implemented for p = 1 or 2")
    out = np.zeros([len(a) for a in axes])
    for start in range(0, points.shape[0], chunk):
        block = points[start : start + chunk]
        factors = [kernel(axes[j][:, None] - block[None, :, j]) for j in range(p)]
        out += factors[0].sum(axis=1) if p == 1 else factors[0] @ factors[1].T
    return out.ravel() / points.shape[0]


def gaussian_kernel(diff, bandwidth):
    u = diff / bandwidth
    return np.exp(-0.5 * u * u) / (np.sqrt(2.0 * np.pi) * bandwidth)


def exact_density(X, axes, bandwidth):
    """Non-private Gaussian kernel density of ``X`` on the product grid of
    ``axes`` (exact sum, row-major grid order)."""
    return product_kernel_sum(X, axes, lambda diff: gaussian_kernel(diff, bandwidth))


def deconvolution_density(X, axes, epsilon, seed, bandwidth):
    """Naive density on the product grid of ``axes``: users add Laplace noise
    of scale ``b = 2 p / epsilon`` to every coordinate of ``x`` in
    ``[-1, 1]^p`` (pure epsilon-LDP, l1 sensitivity ``2 p``); the server runs
    the Laplace-deconvolution kernel density estimator, whose Gaussian
    product kernel is corrected by ``1 - (b / h)^2 (u^2 - 1)`` per
    coordinate (the inverse of the Laplace characteristic function applied
    to the Gaussian kernel)."""
    rng = check_noise_random_state(seed)
    p = X.shape[1]
    b = 2.0 * p / epsilon
    noisy = np.clip(X, -1.0, 1.0) + rng.laplace(0.0, b, size=X.shape)
    ratio2 = (b / bandwidth) ** 2

    def kernel(diff):
        u2 = (diff / bandwidth) ** 2
        return (
            np.exp(-0.5 * u2)
            * (1.0 - ratio2 * (u2 - 1.0))
            / (np.sqrt(2.0 * np.pi) * bandwidth)
        )

    return product_kernel_sum(noisy, axes, kernel)


class LinearModel:
    """A fixed linear classifier ``[X w + b > 0]`` (e.g. a ball minimum)."""

    def __init__(self, coef, intercept):
        self.coef_, self.intercept_ = np.asarray(coef), float(intercept)

    def decision_function(self, X):
        return X @ self.coef_ + self.intercept_

    def score(self, X, y):
        return float(np.mean((self.decision_function(X) > 0) == y))


def linear_parts(model):
    """``(coef, intercept)`` of a fitted binary linear model, as 1-D and float."""
    return np.ravel(model.coef_), float(np.ravel(model.intercept_)[0])


def ball_minimum(loss, derivative, X, y, radius, data_norm=1.0):
    """Exact minimum of a margin loss over ``||(w, b)|| <= radius`` (scipy SLSQP).

    The non-private optimum of the problem the private linear classifiers
    solve (features divided by their public ``data_norm``, the constraint on
    ``(w, b)``): excess risk is measured against it. ``loss(margins)`` and
    ``derivative(margins)`` act elementwise on ``s <w, x> + s b``, with
    ``s = 2 y - 1``. Returns a :class:`LinearModel` in the original units.
    """
    from scipy.optimize import minimize

    s = 2.0 * y - 1.0
    Z = np.hstack([X / data_norm, np.ones((len(X), 1))])

    def risk(w):
        return np.mean(loss(s * (Z @ w)))

    def grad(w):
        return (derivative(s * (Z @ w)) * s) @ Z / len(X)

    ball = {"type": "ineq", "fun": lambda w: radius**2 - w @ w, "jac": lambda w: -2 * w}
    result = minimize(
        risk,
        np.zeros(Z.shape[1]),
        jac=grad,
        method="SLSQP",
        constraints=[ball],
        options={"ftol": 1e-12, "maxiter": 500},
    )
    return LinearModel(result.x[:-1] / data_norm, result.x[-1])


def public_l2_bound(population):
    """The population's public l2 bound on ``x``: ``data_norm``, or for a box
    ``[-b, b]^d`` its diagonal ``b sqrt(d)``."""
    if population.data_norm is not None:
        return population.data_norm
    return float(np.max(np.abs(population.bounds))) * np.sqrt(
        population.params["n_features"]
    )


def naive_classifier(make_model):
    """A ``run_grid`` fit: :func:`naive_fit` of ``make_model(data)`` on two
    classes, users clipping to the population's public l2 bound."""

    def fit(data, epsilon, seed):
        return naive_fit(
            make_model(data),
            data.X,
            data.y,
            epsilon,
            seed,
            classes=[0, 1],
            data_norm=public_l2_bound(data.population),
        )

    return fit


def debiased_classifier(data, epsilon, seed):
    """A ``run_grid`` fit: :class:`GaussianLeastSquares` on +-1 labels, users
    clipping to the population's public l2 bound."""
    return GaussianLeastSquares(
        epsilon, seed, classes=[0, 1], data_norm=public_l2_bound(data.population)
    ).fit(data.X, data.y)
