"""Headline table: every estimator at n = 1e6 users, epsilon 1 and 4, vs non-private.

One row per estimator: its regime, its utility at epsilon = 1 and 4 next to
the non-private scikit-learn model fitted on the same split, the fit-time
ratio (private fit, simulating every user's randomizer, over the non-private
fit in the same run) and the peak memory of the private fit (tracemalloc, in a
separate fit so timings are not distorted). Written to
``docs/benchmarks/summary.md``; the README's table is copied from it.

Run ``python -m benchmarks.bench_summary [--quick]`` (quick: 20k users).
"""

import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.neighbors import KernelDensity
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

import sklearn_ldp as ldp

from ._harness import OUTPUT_DIR, parse_args, report

EPSILONS = (1.0, 4.0)


def split(rng, X, y, n_test):
    return X[n_test:], X[:n_test], y[n_test:], y[:n_test]


def linear_1d(n, rng):
    X = rng.uniform(-1, 1, size=(n, 1))
    y = np.clip(0.5 * X[:, 0] + 0.1 + 0.3 * rng.standard_normal(n), -1, 1)
    return X, y


def separable_2d(n, rng):
    X = rng.uniform(-1, 1, size=(n, 2)) / np.sqrt(2)
    return X, (X @ [0.8, 0.6] > 0.05).astype(int)


def classification_4d(n, rng):
    X, y = make_classification(
        n_samples=n,
        n_features=4,
        n_informative=2,
        n_redundant=0,
        class_sep=1.5,
        random_state=rng,
    )
    return X / 5.0, y  # public scale; users clip to data_norm = 1


def sparse_linear(n, rng, d=20):
    X = rng.uniform(-1, 1, size=(n, d)) / np.sqrt(d)
    w = np.zeros(d)
    w[:3] = [2.0, -2.0, 1.5]
    return X, np.clip(X @ w + 0.1 * rng.standard_normal(n), -1, 1)


def nonlinear_2d(n, rng):
    X = rng.uniform(-1, 1, size=(n, 2)) / np.sqrt(2)
    y = np.sin(3 * X[:, 0]) * np.cos(2 * X[:, 1]) + 0.1 * rng.standard_normal(n)
    return X, np.clip(y, -1, 1)


def sparse_rademacher(n, rng, d=1000):
    n = min(n, 50_000)  # d = 1000 dense features: 50k rows already hold 400 MB
    X = rng.choice([-1.0, 1.0], size=(n, d))
    y = (X[:, :5].sum(axis=1) > 0).astype(int)
    flip = rng.uniform(size=n) < 0.05  # 5% label noise
    return X, np.where(flip, 1 - y, y)


def classification_20d(n, rng):
    X, y = make_classification(
        n_samples=n, n_features=20, n_informative=10, random_state=rng
    )
    return X / 20.0, y  # public scaling: ||x|| <~ 1


def mixture_1d(n, rng):
    centers = rng.choice([-0.4, 0.3], size=n, p=[0.4, 0.6])
    return np.clip(centers + 0.15 * rng.standard_normal(n), -1, 1)[:, None]


def binary_8d(n, rng):
    return (rng.uniform(size=(n, 8)) < np.linspace(0.1, 0.8, 8)).astype(int)


def supervised(name, regime, data, make_private, make_public, metric):
    """A row for an estimator with score(); metric names what score() is."""

    def run(n, rng):
        X, y = data(n, rng)
        n_test = min(100_000, len(X) // 5)  # some tasks cap their own size
        X_tr, X_te, y_tr, y_te = split(rng, X, y, n_test)
        start = time.perf_counter()
        public = make_public().fit(X_tr, y_tr)
        public_time = time.perf_counter() - start
        row = {"non-private": public.score(X_te, y_te)}
        for eps in EPSILONS:
            start = time.perf_counter()
            private = make_private(eps).fit(X_tr, y_tr)
            seconds = time.perf_counter() - start
            row[f"eps={eps:g}"] = private.score(X_te, y_te)
            if eps == EPSILONS[0]:
                row["time ratio"] = seconds / public_time
                row["peak MiB"] = peak_memory(make_private(eps).fit, X_tr, y_tr)
        return row

    run.data, run.make_private, run.make_public = data, make_private, make_public
    return name, regime, metric, run


def peak_memory(fit, *args):
    tracemalloc.start()
    fit(*args)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return peak


def kde_row(n, rng):
    X = mixture_1d(n, rng)
    X_tr, X_te = X[5000:], X[:5000]
    start = time.perf_counter()
    public = KernelDensity(bandwidth=0.1).fit(X_tr)
    public_ll = public.score(X_te) / len(X_te)
    public_time = time.perf_counter() - start
    row = {"non-private": public_ll}
    for eps in EPSILONS:
        start = time.perf_counter()
        private = ldp.KernelDensityLDP(epsilon=eps, bandwidth=0.1, random_state=0)
        private.fit(X_tr)
        row[f"eps={eps:g}"] = private.score(X_te) / len(X_te)
        if eps == EPSILONS[0]:
            row["time ratio"] = (time.perf_counter() - start) / public_time
            row["peak MiB"] = peak_memory(
                ldp.KernelDensityLDP(epsilon=eps, random_state=0).fit, X_tr
            )
    return row


def marginals_row(n, rng):
    X = binary_8d(n, rng)
    pairs = [(i, j) for i in range(8) for j in range(i + 1, 8)]

    def max_error(est):
        errors = []
        for i, j in pairs:
            table = est.marginal_table([i, j])
            exact = np.histogram2d(X[:, i], X[:, j], bins=2, range=[[0, 1], [0, 1]])[0]
            errors.append(np.abs(table - exact / n).max())
        return max(errors)

    row = {"non-private": 0.0}
    for eps in EPSILONS:
        start = time.perf_counter()
        est = ldp.KWayMarginalsLDP(epsilon=eps, k=2, random_state=0).fit(X)
        seconds = time.perf_counter() - start
        row[f"eps={eps:g}"] = max_error(est)
        if eps == EPSILONS[0]:
            start = time.perf_counter()
            for i, j in pairs:  # the non-private computation: exact tables
                np.histogram2d(X[:, i], X[:, j], bins=2)
            row["time ratio"] = seconds / (time.perf_counter() - start)
            row["peak MiB"] = peak_memory(
                ldp.KWayMarginalsLDP(epsilon=eps, k=2, random_state=0).fit, X
            )
    return row


def mean_row(n, rng, d=100):
    mean = np.zeros(d)
    mean[:4] = [0.3, -0.2, 0.25, 0.15]
    X = mean + rng.uniform(-1, 1, size=(n, d)) * 0.5 / np.sqrt(d)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    truth = X.mean(axis=0)
    row = {"non-private": 0.0}
    for eps in EPSILONS:
        start = time.perf_counter()
        est = ldp.SparseLDPMeanEstimator(
            epsilon=eps, l1_radius=1.0, n_users=n, random_state=0
        ).fit(X)
        seconds = time.perf_counter() - start
        row[f"eps={eps:g}"] = float(np.linalg.norm(est.location_ - truth))
        if eps == EPSILONS[0]:
            start = time.perf_counter()
            X.mean(axis=0)
            row["time ratio"] = seconds / (time.perf_counter() - start)
            estimator = ldp.SparseLDPMeanEstimator(
                epsilon=eps, l1_radius=1.0, n_users=n, random_state=0
            )
            row["peak MiB"] = peak_memory(estimator.fit, X)
    return row


ROWS = [
    supervised(
        "LocalBernsteinRegressor",
        "local, p=1, squared loss",
        linear_1d,
        lambda eps: ldp.LocalBernsteinRegressor(epsilon=eps, random_state=0),
        LinearRegression,
        "R^2",
    ),
    supervised(
        "HingeLDPClassifier",
        "local, p=2, hinge",
        separable_2d,
        lambda eps: ldp.HingeLDPClassifier(epsilon=eps, random_state=0),
        LinearSVC,
        "accuracy",
    ),
    supervised(
        "GLMLDPClassifier",
        "local, p=4, logistic",
        classification_4d,
        lambda eps: ldp.GLMLDPClassifier(epsilon=eps, random_state=0),
        LogisticRegression,
        "accuracy",
    ),
    supervised(
        "SparseLDPRegressor",
        "local, d=20, l1-ball",
        sparse_linear,
        lambda eps: ldp.SparseLDPRegressor(epsilon=eps, l1_radius=5.5, random_state=0),
        LinearRegression,
        "R^2",
    ),
    supervised(
        "KernelRidgeLDP",
        "local, p=2, RBF kernel",
        nonlinear_2d,
        lambda eps: ldp.KernelRidgeLDP(epsilon=eps, gamma=2.0, random_state=0),
        lambda: make_pipeline(
            RBFSampler(gamma=2.0, n_components=100, random_state=0), Ridge(1e-3)
        ),
        "R^2",
    ),
    ("SparseLDPMeanEstimator", "local, d=100, l1 mean", "l2 error", mean_row),
    ("KernelDensityLDP", "local, p=1, density", "mean log-lik", kde_row),
    ("KWayMarginalsLDP", "local, p=8, 2-way marginals", "max error", marginals_row),
    supervised(
        "DPSVRGClassifier",
        "central, d=20, logistic",
        classification_20d,
        lambda eps: ldp.DPSVRGClassifier(epsilon=eps, random_state=0),
        LogisticRegression,
        "accuracy",
    ),
    supervised(
        "DPConstrainedClassifier",
        "central, d=1000, l1 ball, n=50k",
        sparse_rademacher,
        lambda eps: ldp.DPConstrainedClassifier(
            epsilon=eps, radius=8.0, data_norm_type="linf", n_iter=30, random_state=0
        ),
        lambda: LogisticRegression(max_iter=1000),
        "accuracy",
    ),
]


README = Path(__file__).resolve().parent.parent / "README.md"
START, END = "<!-- summary:start -->", "<!-- summary:end -->"


def update_readme(summary_path=None):
    """Copy the table of ``docs/benchmarks/summary.md`` between the README markers."""
    summary_path = summary_path or OUTPUT_DIR / "summary.md"
    lines = summary_path.read_text().splitlines()
    table = "\n".join(line for line in lines if line.startswith("|"))
    notes = lines[-1]
    text = README.read_text()
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{START}\n{table}\n\n{notes}\n{END}{tail}")


def read_rows(path):
    """Rows of an existing summary table (to merge a partial rerun into)."""
    lines = [line for line in path.read_text().splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        row = dict(zip(header, cells, strict=True))
        for key in ("eps=1", "eps=4", "non-private", "time ratio", "peak MiB"):
            row[key] = float(row[key])
        rows.append(row)
    return rows


def main():
    args = parse_args(
        __doc__.splitlines()[0],
        extra=[("--only", {"nargs": "+", "help": "rerun these rows, keep the others"})],
    )
    n = 20_000 if args.quick else 1_000_000
    rows = []
    for index, (name, regime, metric, run) in enumerate(ROWS):
        if args.only and name not in args.only:
            continue
        rng = np.random.RandomState([args.seed, index])
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            row = run(n, rng)
        row.update(estimator=name, regime=regime, metric=metric)
        print(f"{name}: {row} ({time.perf_counter() - start:.1f} s)", flush=True)
        rows.append(row)
    if args.only:
        fresh = {row["estimator"]: row for row in rows}
        kept = read_rows(OUTPUT_DIR / "summary.md")
        known = {row["estimator"] for row in kept}
        rows = [fresh.get(row["estimator"], row) for row in kept]
        rows += [row for name, row in fresh.items() if name not in known]
    columns = [
        "estimator",
        "regime",
        "metric",
        "eps=1",
        "eps=4",
        "non-private",
        "time ratio",
        "peak MiB",
    ]
    notes = (
        f"n = {n:,} users (a fifth held out, at most 100k), delta = 1e-5 where "
        "Gaussian noise is used, seed {args.seed}. Non-private: the scikit-learn "
        "model on the same split (LinearRegression, LinearSVC, LogisticRegression, "
        "RBF random features + Ridge, KernelDensity; exact marginals and mean, "
        "error 0). time ratio: private fit at eps = 1 (simulating every user) over "
        "the non-private fit. peak MiB: tracemalloc peak of the private fit."
    ).replace("{args.seed}", str(args.seed))
    report(
        "summary",
        rows,
        columns,
        title="Every estimator at a glance",
        notes=notes,
        save=not args.no_save,
    )
    if not args.quick and not args.no_save:
        update_readme()


if __name__ == "__main__":
    main()
