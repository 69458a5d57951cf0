"""KernelRidgeLDP against non-private and naive baselines.

Test mean squared error (on clean held-out users; ``zero`` = predicting 0,
the variance level of the clipped target) of

- ``ldp``: :class:`~sklearn_ldp.KernelRidgeLDP` (joint analytic calibration,
  ``alpha='auto'``, ``n_components='auto'`` unless the sweep sets it);
- ``ldp_paper``: the same with ``calibration='paper'`` (eps/2, delta/2 per
  part, classic formula, as seed 003 prints);
- ``rff_ridge``: non-private ridge on the same random features, ``alpha``
  picked by exact 5-fold CV on the clean features (the ceiling of ``ldp``);
- ``kernel_ridge``: non-private ``sklearn.kernel_ridge.KernelRidge`` (same
  kernel and gamma) on a subsample of ``KRR_SUBSAMPLE`` users (the exact
  kernel matrix of more users does not fit in memory), alpha by 3-fold
  ``GridSearchCV``;
- ``naive``: users perturb raw ``(x, y)`` with the same jointly calibrated
  Gaussian mechanism and epsilon (``x`` clipped to its public norm bound);
  the server fits ``KernelRidge`` on a subsample of the noisy data;
- ``linear_ldp``: debiased linear least squares on those same raw reports
  (``Proj_PSD(Z^T Z - n sigma^2 I)``, alpha by the same debiased CV as
  ``ldp``).

Data: ``synthetic``: ``x ~ U[-1, 1]^5``,
``y = sin(2 x_0) cos(x_1) + 0.5 x_2^2 - 0.2 + N(0, 0.1^2)`` clipped to
``[-1, 1]``; ``diabetes``: scikit-learn's diabetes data (442 patients, 10
features), standardized, target mapped to ``[-1, 1]`` by its public range,
resampled with replacement to the population size (train and test are
draws from the same 442 records). ``delta = 1e-5``, ``gamma = 1 / d``.

Run ``python -m benchmarks.bench_kernel_ridge [--quick]``.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import load_diabetes  # noqa: E402
from sklearn.kernel_ridge import KernelRidge  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402

from benchmarks._harness import parse_args, report, save_figure, timed  # noqa: E402
from sklearn_ldp import KernelRidgeLDP  # noqa: E402
from sklearn_ldp._kernel_ridge import (  # noqa: E402
    AUTO_ALPHAS,
    N_FOLDS,
    _debiased_cv_risk,
    _solve_debiased_ridge,
)
from sklearn_ldp.aggregation import SufficientStatistics  # noqa: E402
from sklearn_ldp.randomizers import GaussianRecordRandomizer  # noqa: E402

DELTA = 1e-5
KRR_SUBSAMPLE = 2000
N_TEST = 5000
_KRR_CACHE = {}
METHODS = ["ldp", "ldp_paper", "rff_ridge", "kernel_ridge", "naive", "linear_ldp"]


def synthetic(n, rng):
    X = rng.uniform(-1, 1, size=(n, 5))
    y = np.sin(2 * X[:, 0]) * np.cos(X[:, 1]) + 0.5 * X[:, 2] ** 2 - 0.2
    return X, np.clip(y + 0.1 * rng.standard_normal(n), -1, 1)


def diabetes_sampler():
    data = load_diabetes()
    X = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
    # Public range of the target (25..346 in the data set's documentation).
    y = np.clip((data.target - 185.5) / 160.5, -1, 1)

    def sample(n, rng):
        index = rng.randint(0, X.shape[0], size=n)
        return X[index], y[index]

    return sample


DATASETS = {"synthetic": (synthetic, np.sqrt(5.0)), "diabetes": (None, 2 * np.sqrt(10))}


def fold_statistics(Z, v, m):
    folds = [SufficientStatistics(m) for _ in range(N_FOLDS)]
    squares = np.zeros(N_FOLDS)
    for k, fold in enumerate(folds):
        fold.update(Z[k::N_FOLDS], v[k::N_FOLDS])
        squares[k] = v[k::N_FOLDS] @ v[k::N_FOLDS]
    return folds, squares


def cv_ridge(Z, v, sigma_x, sigma_y):
    """Ridge from (possibly noisy) features with the estimator's alpha rule."""
    m = Z.shape[1]
    folds, squares = fold_statistics(Z, v, m)
    risk, std_error = _debiased_cv_risk(folds, squares, sigma_x, sigma_y, AUTO_ALPHAS)
    alpha = AUTO_ALPHAS[np.nanargmin(np.maximum(risk, 0) + std_error)]
    total = SufficientStatistics(m)
    total.update(Z, v)
    return _solve_debiased_ridge(total, sigma_x, alpha)


def kernel_ridge(X, y, gamma, rng):
    index = rng.choice(X.shape[0], size=min(KRR_SUBSAMPLE, X.shape[0]), replace=False)
    n_sub = index.size
    grid = {"alpha": [n_sub * a for a in (1e-4, 1e-3, 1e-2)]}
    search = GridSearchCV(KernelRidge(kernel="rbf", gamma=gamma), grid, cv=3)
    return search.fit(X[index], y[index])


def run_case(dataset, n, epsilon, n_components, seed, methods=METHODS):
    rng = np.random.RandomState(seed)
    sampler, data_norm = DATASETS[dataset]
    sampler = sampler or diabetes_sampler()
    X, y = sampler(n, rng)
    X_test, y_test = sampler(N_TEST, rng)
    d = X.shape[1]
    gamma = 1.0 / d
    rows = []

    def add(method, predict, seconds):
        mse = float(np.mean((predict(X_test) - y_test) ** 2))
        rows.append(
            dict(
                dataset=dataset,
                n=n,
                epsilon=epsilon,
                method=method,
                mse=mse,
                seconds=seconds,
                m=n_components_used,
            )
        )

    est = KernelRidgeLDP(
        epsilon=epsilon,
        delta=DELTA,
        gamma=gamma,
        n_components=n_components,
        random_state=seed,
    )
    est, seconds, _ = timed(est.fit, X, y)
    n_components_used = est.n_components_
    add("ldp", est.predict, seconds)
    if "ldp_paper" in methods:
        paper = KernelRidgeLDP(
            epsilon=epsilon,
            delta=DELTA,
            gamma=gamma,
            n_components=n_components,
            calibration="paper",
            random_state=seed,
        )
        paper, seconds, _ = timed(paper.fit, X, y)
        add("ldp_paper", paper.predict, seconds)
    if "rff_ridge" in methods:
        features = est.random_features_
        coef, seconds, _ = timed(cv_ridge, features.transform(X), y, 0.0, 0.0)
        add("rff_ridge", lambda Xt: features.transform(Xt) @ coef, seconds)
    if "kernel_ridge" in methods:
        # Independent of epsilon: fitted once per data set and size.
        key = (dataset, n, seed)
        if key not in _KRR_CACHE:
            _KRR_CACHE[key] = timed(
                kernel_ridge, X, y, gamma, np.random.RandomState(seed)
            )
        krr, seconds, _ = _KRR_CACHE[key]
        add("kernel_ridge", krr.predict, seconds)
    if "naive" in methods or "linear_ldp" in methods:
        raw = GaussianRecordRandomizer(
            d, epsilon=epsilon, delta=DELTA, data_norm=data_norm, y_bound=1.0
        )
        reports = raw.randomize(X, y, random_state=rng)
        if "naive" in methods:
            krr, seconds, _ = timed(
                kernel_ridge, reports["x"], reports["y"], gamma, rng
            )
            add("naive", krr.predict, seconds)
        if "linear_ldp" in methods:
            coef, seconds, _ = timed(
                cv_ridge, reports["x"], reports["y"], raw.sigma_x, raw.sigma_y
            )
            add("linear_ldp", lambda Xt: Xt @ coef, seconds)
    rows.append(
        dict(
            dataset=dataset,
            n=n,
            epsilon=epsilon,
            method="zero",
            mse=float(np.mean(y_test**2)),
            seconds=0.0,
            m=n_components_used,
        )
    )
    return rows


def main():
    args = parse_args(__doc__.splitlines()[0])
    global KRR_SUBSAMPLE
    if args.quick:
        KRR_SUBSAMPLE = 1000
        plan = {"synthetic": [2000, 10_000]}
        epsilons, sweep_n, sweep_m = [4.0], 10_000, [10, 30]
    else:
        # n = 1e6 only for the synthetic data (each private fit streams 1e6
        # users x 300 features; minutes on the shared benchmark machine).
        plan = {
            "synthetic": [10_000, 100_000, 1_000_000],
            "diabetes": [10_000, 100_000],
        }
        epsilons, sweep_n, sweep_m = [1.0, 4.0, 8.0], 100_000, [10, 30, 100, 300]
    rows = []
    for dataset, sizes in plan.items():
        for n in sizes:
            for epsilon in epsilons:
                rows += run_case(dataset, n, epsilon, "auto", args.seed)
                print(rows[-1], flush=True)
    sweep = []
    for m in sweep_m:
        sweep += run_case(
            "synthetic",
            sweep_n,
            4.0,
            m,
            args.seed,
            methods=["ldp", "ldp_paper", "rff_ridge"],
        )
    columns = ["dataset", "n", "epsilon", "m", "method", "mse", "seconds"]
    notes = (
        "Test MSE on 5000 clean held-out users (lower is better; `zero` is the "
        "MSE of predicting 0). `m` = n_components ('auto' = ceil(sqrt(d n) eps), "
        "at most 300). delta = 1e-5, gamma = 1/d. Seed "
        f"{args.seed}. Generated by `python -m benchmarks.bench_kernel_ridge"
        f"{' --quick' if args.quick else ''}`."
    )
    report(
        "kernel_ridge",
        rows,
        columns,
        title="KernelRidgeLDP: test MSE",
        notes=notes,
        save=not args.no_save,
    )
    report(
        "kernel_ridge_components",
        sweep,
        columns,
        title="KernelRidgeLDP: test MSE against n_components "
        f"(synthetic, n = {sweep_n}, eps = 4)",
        notes=notes,
        save=not args.no_save,
    )
    if args.no_save:
        return
    fig, axes = plt.subplots(
        1, len(epsilons) + 1, figsize=(4.2 * (len(epsilons) + 1), 3.6)
    )
    styles = {
        "ldp": "o-",
        "ldp_paper": "s--",
        "rff_ridge": "^:",
        "kernel_ridge": "v:",
        "naive": "x-",
        "linear_ldp": "d-.",
        "zero": "k-",
    }
    for ax, epsilon in zip(axes[:-1], epsilons, strict=True):
        for method, style in styles.items():
            sel = [
                r
                for r in rows
                if r["dataset"] == "synthetic"
                and r["epsilon"] == epsilon
                and r["method"] == method
            ]
            if sel:
                ax.plot(
                    [r["n"] for r in sel],
                    [min(r["mse"], 1.0) for r in sel],
                    style,
                    label=method,
                )
        ax.set(
            xscale="log",
            yscale="log",
            xlabel="users n",
            title=f"synthetic, eps={epsilon}",
        )
    axes[0].set_ylabel("test MSE (clipped at 1)")
    axes[0].legend(fontsize=7)
    ax = axes[-1]
    for method, style in styles.items():
        sel = [r for r in sweep if r["method"] == method]
        if sel and method != "zero":
            ax.plot([r["m"] for r in sel], [r["mse"] for r in sel], style, label=method)
    ax.set(
        xscale="log", yscale="log", xlabel="n_components", title=f"n={sweep_n}, eps=4"
    )
    fig.tight_layout()
    save_figure(fig, "kernel_ridge")


if __name__ == "__main__":
    main()
