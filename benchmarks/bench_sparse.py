"""SparseLDPRegressor and SparseLDPMeanEstimator against baselines.

Regression: population excess risk, normalized by Var(x^T w*) (1 = no better
than predicting the mean), of the projected estimator (Gaussian and sparse
public projections), the full-dimensional debiased least squares
(``projection='identity'``), the naive baseline (users perturb raw (x, y)
with the same joint Gaussian mechanism and epsilon; the server fits ordinary
least squares, i.e. scikit-learn's ``LinearRegression``, on the noisy data)
and the non-private ``LinearRegression``. Data are streamed in chunks
(``partial_fit``; the baselines from normal equations accumulated in the same
chunks, checked against ``LinearRegression.fit`` on the smallest case).

Data: ||x|| <= 1 with half of ||x||^2 on s = 3 relevant features (uniform),
the rest uniform on a sphere; y = x^T w* + U(-0.5, 0.5), |y| <= 1,
||w*||_1 = l1_radius = sqrt(1.5). Mean estimation: l2 error against the
clean sample mean, for a mean 0.3 e_0 - 0.3 e_1 (l1 norm 0.6) and the naive
per-coordinate Gaussian baseline (with and without projecting it onto the l1
ball).

Run ``python -m benchmarks.bench_sparse [--quick]``.
"""

import numpy as np
from sklearn.linear_model import LinearRegression

from benchmarks._harness import parse_args, report, save_figure, timed
from sklearn_ldp import SparseLDPMeanEstimator, SparseLDPRegressor
from sklearn_ldp.optim import project_l1_ball
from sklearn_ldp.randomizers import GaussianMechanism, GaussianRecordRandomizer

N_RELEVANT = 3
#: Users per partial_fit batch: about 40 MB of features per batch.
CHUNK_ELEMENTS = 5_000_000
DELTA = 1e-5


def regression_chunks(n, d, rng):
    s = N_RELEVANT
    chunk = max(500, CHUNK_ELEMENTS // d)
    for start in range(0, n, chunk):
        size = min(chunk, n - start)
        relevant = rng.uniform(-1, 1, (size, s)) / np.sqrt(2 * s)
        rest = rng.standard_normal((size, d - s))
        rest *= np.sqrt(0.5) / np.linalg.norm(rest, axis=1, keepdims=True)
        X = np.hstack([relevant, rest])
        yield X, X @ true_coef(d) + rng.uniform(-0.5, 0.5, size)


def true_coef(d):
    s = N_RELEVANT
    w = np.zeros(d)
    w[:s] = 0.5 * np.sqrt(2 * s) / s * (-1.0) ** np.arange(s)
    return w


def excess_risk(coef, intercept, d):
    """Normalized population excess risk (the covariance of x is diagonal)."""
    s = N_RELEVANT
    variances = np.full(d, 0.5 / (d - s))
    variances[:s] = 1.0 / (6 * s)
    w = true_coef(d)
    signal = np.sum(w**2 * variances)
    return (np.sum((coef - w) ** 2 * variances) + intercept**2) / signal


class NormalEquations:
    """Streaming OLS with intercept (the LinearRegression solution)."""

    def __init__(self, d):
        self.gram, self.moment = np.zeros((d + 1, d + 1)), np.zeros(d + 1)

    def update(self, X, y):
        A = np.hstack([X, np.ones((X.shape[0], 1))])
        self.gram += A.T @ A
        self.moment += A.T @ y

    def solve(self):
        solution = np.linalg.lstsq(self.gram, self.moment, rcond=None)[0]
        return solution[:-1], solution[-1]


def run_regression(n, d, epsilon, seed, check_sklearn=False):
    rng = np.random.RandomState(seed)
    radius = np.abs(true_coef(d)).sum()
    models = {"projected (sparse Phi)": "sparse"}
    if d <= 2000:
        models = {"projected (Gaussian Phi)": "gaussian", **models}
        models["full-dim debiased"] = "identity"
    estimators = {
        name: SparseLDPRegressor(
            epsilon=epsilon,
            delta=DELTA,
            l1_radius=radius,
            projection=projection,
            n_users=n,
            random_state=seed,
            max_iter=2000,
            tol=1e-7,
        )
        for name, projection in models.items()
    }
    seconds = dict.fromkeys(estimators, 0.0)
    naive_randomizer = GaussianRecordRandomizer(
        d, epsilon=epsilon, delta=DELTA, y_bound=1.0
    )
    with_baselines = d <= 2000
    naive, clean = (
        (NormalEquations(d), NormalEquations(d)) if with_baselines else (None, None)
    )
    kept = []
    for X, y in regression_chunks(n, d, rng):
        for name, est in estimators.items():
            _, sec, _ = timed(est.partial_fit, X, y)
            seconds[name] += sec
        if with_baselines:
            reports = naive_randomizer.randomize(X, y, random_state=rng)
            naive.update(reports["x"], reports["y"])
            clean.update(X, y)
            if check_sklearn:
                kept.append((X, y))
    row = dict(n=n, d=d, epsilon=epsilon)
    for name, est in estimators.items():
        row[name] = excess_risk(est.coef_, est.intercept_, d)
        row[f"m ({name})"] = est.n_components_ if "projected" in name else d
        row[f"s ({name})"] = seconds[name]
    if with_baselines:
        row["naive OLS"] = excess_risk(*naive.solve(), d)
        coef, intercept = clean.solve()
        row["non-private OLS"] = excess_risk(coef, intercept, d)
        if check_sklearn:
            X = np.vstack([k[0] for k in kept])
            y = np.concatenate([k[1] for k in kept])
            reference = LinearRegression().fit(X, y)
            np.testing.assert_allclose(coef, reference.coef_, atol=1e-6)
    return row


def mean_chunks(n, d, rng):
    chunk = max(500, CHUNK_ELEMENTS // d)
    for start in range(0, n, chunk):
        size = min(chunk, n - start)
        X = rng.standard_normal((size, d)) * 0.02
        X[:, 0] += rng.uniform(0.0, 0.6, size)
        X[:, 1] -= rng.uniform(0.0, 0.6, size)
        yield X / np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))


def run_mean(n, d, epsilon, seed):
    rng = np.random.RandomState(seed)
    common = dict(
        epsilon=epsilon, delta=DELTA, l1_radius=0.6, n_users=n, random_state=seed
    )
    estimators = {
        "projected (default)": SparseLDPMeanEstimator(**common),
        "paper config": SparseLDPMeanEstimator(
            aggregation="median_of_means",
            recovery="basis_pursuit",
            calibration="paper",
            **common,
        ),
    }
    mechanism = GaussianMechanism(epsilon, DELTA, norm_bound=1.0)
    naive_sum, clean_sum = np.zeros(d), np.zeros(d)
    seconds = dict.fromkeys(estimators, 0.0)
    for X in mean_chunks(n, d, rng):
        for name, est in estimators.items():
            _, sec, _ = timed(est.partial_fit, X)
            seconds[name] += sec
        naive_sum += mechanism.randomize(X, random_state=rng).sum(axis=0)
        clean_sum += X.sum(axis=0)
    truth, naive = clean_sum / n, naive_sum / n
    row = dict(n=n, d=d, epsilon=epsilon)
    for name, est in estimators.items():
        row[name] = float(np.linalg.norm(est.location_ - truth))
        row[f"s ({name})"] = seconds[name]
    row["p"] = estimators["projected (default)"].n_components_
    row["naive per-coordinate"] = float(np.linalg.norm(naive - truth))
    row["naive + l1 projection"] = float(
        np.linalg.norm(project_l1_ball(naive, 0.6) - truth)
    )
    return row


def main():
    args = parse_args(__doc__.splitlines()[0])
    if args.quick:
        reg_grid = [(10_000, 100, 8.0)]
        mean_grid = [(10_000, 100, 1.0)]
    else:
        reg_grid = (
            [(n, 100, 8.0) for n in (10_000, 100_000, 1_000_000)]
            + [(100_000, 1000, 8.0)]
            + [(10_000, d, 8.0) for d in (1000, 10_000)]
            + [(100_000, 100, eps) for eps in (1.0, 2.0, 4.0, 16.0)]
        )
        mean_grid = (
            [(n, 200, 1.0) for n in (10_000, 100_000, 1_000_000)]
            + [(10_000, d, 1.0) for d in (100, 1000, 10_000)]
            + [(100_000, 200, eps) for eps in (0.5, 2.0, 4.0)]
        )
    reg_rows = []
    for i, (n, d, eps) in enumerate(reg_grid):
        reg_rows.append(run_regression(n, d, eps, args.seed, check_sklearn=i == 0))
        print(reg_rows[-1], flush=True)
    methods = [
        "projected (Gaussian Phi)",
        "projected (sparse Phi)",
        "full-dim debiased",
        "naive OLS",
        "non-private OLS",
    ]
    columns = [
        "n",
        "d",
        "epsilon",
        *methods,
        "m (projected (sparse Phi))",
        "s (projected (sparse Phi))",
    ]
    notes = (
        "Normalized population excess risk (R(w) - R(w*)) / Var(x^T w*), "
        f"delta = {DELTA}, seed {args.seed}; m = n_components ('auto'); "
        "s = seconds of partial_fit over all chunks (simulating the users "
        "included). Empty cells: not run (d x d statistics above d = 2000)."
    )
    report(
        "sparse_regression",
        reg_rows,
        columns,
        title="SparseLDPRegressor",
        notes=notes,
        save=not args.no_save,
    )
    mean_rows = []
    for n, d, eps in mean_grid:
        mean_rows.append(run_mean(n, d, eps, args.seed))
        print(mean_rows[-1], flush=True)
    mean_columns = [
        "n",
        "d",
        "epsilon",
        "p",
        "projected (default)",
        "paper config",
        "naive per-coordinate",
        "naive + l1 projection",
        "s (projected (default))",
    ]
    mean_notes = (
        "l2 error of the estimated mean against the clean sample mean; default "
        "= plain mean + least squares over the l1 ball, paper config = "
        "median-of-means + l1-residual basis pursuit + classic calibration."
    )
    report(
        "sparse_mean",
        mean_rows,
        mean_columns,
        title="SparseLDPMeanEstimator",
        notes=mean_notes,
        save=not args.no_save,
    )
    if not args.no_save:
        plot(reg_rows, mean_rows, methods)


def plot(reg_rows, mean_rows, methods):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    panels = [
        (
            axes[0],
            [r for r in reg_rows if r["d"] == 100 and r["epsilon"] == 8.0],
            "n",
            methods,
            "regression, d=100, eps=8",
        ),
        (
            axes[1],
            [r for r in reg_rows if r["n"] == 100_000 and r["d"] == 100],
            "epsilon",
            methods,
            "regression, n=1e5, d=100",
        ),
        (
            axes[2],
            [r for r in mean_rows if r["d"] == 200 and r["epsilon"] == 1.0],
            "n",
            [
                "projected (default)",
                "paper config",
                "naive per-coordinate",
                "naive + l1 projection",
            ],
            "mean, d=200, eps=1",
        ),
    ]
    for ax, rows, key, names, title in panels:
        rows = sorted(rows, key=lambda r: r[key])
        for name in names:
            points = [(r[key], r[name]) for r in rows if name in r]
            if points:
                ax.plot(*zip(*points, strict=True), marker="o", label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(key)
        ax.set_title(title)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("normalized excess risk / l2 error")
    save_figure(fig, "sparse")


if __name__ == "__main__":
    main()
