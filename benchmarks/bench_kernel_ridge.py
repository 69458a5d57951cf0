"""KernelRidgeLDP against non-private and private baselines.

Test mean squared error on clean held-out users of the populations
``nonlinear_5d`` and ``diabetes`` for

- ``KernelRidgeLDP``: the library default (joint analytic calibration,
  ``n_components='auto'`` noise-aware, ``alpha='auto'`` by debiased CV);
- ``paper``: ``calibration='paper'`` (``epsilon/2, delta/2`` per part with
  the classic formula, the seed's ``n_components = sqrt(d n) epsilon``
  capped at 300);
- ``RFF + RidgeCV``: non-private scikit-learn ``RBFSampler`` (same kernel,
  ``gamma = 1/d``, ``NONPRIVATE_COMPONENTS`` features) + ``RidgeCV``;
- ``KernelRidge (2000 users)``: non-private exact ``KernelRidge`` on the
  first ``KRR_USERS`` users (the exact kernel matrix of more users does not
  fit in memory), alpha by 3-fold ``GridSearchCV``;
- ``predict 0``: the constant 0 (the level a private model shrinks to);
- ``naive``: users perturb raw ``(x, y)`` with the jointly calibrated
  Gaussian mechanism at the same (epsilon, delta) (``x`` clipped to its
  public norm bound); the server fits the same ``RFF + RidgeCV`` pipeline;
- ``debiased LS (linear)``: ``GaussianLeastSquares`` on those raw reports
  (debiased *linear* least squares).

Run ``python -m benchmarks.bench_kernel_ridge [--quick]``.
"""

import numpy as np
from sklearn.dummy import DummyRegressor
from sklearn.kernel_approximation import RBFSampler
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from benchmarks._baselines import DELTA, GaussianLeastSquares, naive_fit, nonprivate
from benchmarks._harness import (
    Method,
    aggregate,
    format_table,
    parse_args,
    pivot,
    plot_utility,
    report,
    run_grid,
    time_table,
)
from benchmarks._populations import POPULATIONS
from sklearn_ldp import KernelRidgeLDP

EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0)
SIZES = (10_000, 100_000, 1_000_000)
NONPRIVATE_COMPONENTS = 100
RIDGE_ALPHAS = np.logspace(-3, 3, 7)
KRR_USERS = 2000
NP_REFERENCE = "RFF + RidgeCV"


def seeds(n):
    """Three draws at 10^4 users, two at 10^5, one at 10^6."""
    return {10_000: (0, 1, 2), 100_000: (0, 1)}.get(n, (0,))


def gamma(population):
    return 1.0 / population.params["n_features"]


def rff_ridge(population, seed):
    """The non-private pipeline (also the naive server's)."""
    return make_pipeline(
        RBFSampler(
            gamma=gamma(population),
            n_components=NONPRIVATE_COMPONENTS,
            random_state=seed,
        ),
        RidgeCV(alphas=RIDGE_ALPHAS),
    )


def kernel_ridge(population, X, y, users):
    grid = {"alpha": [users * a for a in (1e-5, 1e-4, 1e-3, 1e-2)]}
    search = GridSearchCV(
        KernelRidge(kernel="rbf", gamma=gamma(population)), grid, cv=3
    )
    return search.fit(X[:users], y[:users])


def ldp(**params):
    def fit(data, epsilon, seed):
        return KernelRidgeLDP(
            epsilon=epsilon, delta=DELTA, random_state=seed, **params
        ).fit(data.X, data.y)

    return fit


def methods_for(population, krr_users=KRR_USERS):
    bounds = dict(data_norm=population.data_norm, y_bound=population.y_bound)
    return [
        Method(
            NP_REFERENCE,
            lambda d, e, s: nonprivate(rff_ridge(population, s), d.X, d.y),
            "non-private",
        ),
        Method(
            f"KernelRidge ({krr_users} users)",
            lambda d, e, s: kernel_ridge(population, d.X, d.y, krr_users),
            "non-private",
        ),
        Method(
            "predict 0",
            lambda d, e, s: DummyRegressor(strategy="constant", constant=0.0).fit(
                d.X, d.y
            ),
            "non-private",
        ),
        Method("KernelRidgeLDP", ldp()),
        Method("paper", ldp(calibration="paper"), "paper"),
        Method(
            "naive",
            lambda d, e, s: naive_fit(
                rff_ridge(population, s), d.X, d.y, e, s, delta=DELTA, **bounds
            ),
            "baseline",
        ),
        Method(
            "debiased LS (linear)",
            lambda d, e, s: GaussianLeastSquares(e, s, delta=DELTA, **bounds).fit(
                d.X, d.y
            ),
            "baseline",
        ),
    ]


def evaluate(model, data):
    mse = float(np.mean((model.predict(data.X_test) - data.y_test) ** 2))
    return {"mse": mse, "m": float(getattr(model, "n_components_", np.nan))}


def main():
    args = parse_args(__doc__.splitlines()[0])
    if args.quick:
        names, sizes, epsilons = ["nonlinear_5d"], (10_000,), (4.0, 8.0)
        krr_users = 500

        def draws(n):
            return (0,)
    else:
        names, sizes, epsilons, draws = (
            ["nonlinear_5d", "diabetes"],
            SIZES,
            EPSILONS,
            seeds,
        )
        krr_users = KRR_USERS
    rows = []
    for name in names:
        population = POPULATIONS[name]
        rows += run_grid(
            population,
            methods_for(population, krr_users),
            evaluate,
            sizes=sizes,
            epsilons=epsilons,
            seeds=draws,
        )
    table = aggregate(rows, ["mse", "m"])
    utility, columns = pivot(table, "mse")
    times, time_columns = time_table(table, NP_REFERENCE)
    time_columns = [c for c in time_columns if c != "predict 0"]
    ldp_table = [r for r in table if r["method"] in ("KernelRidgeLDP", "paper")]
    components, component_columns = pivot(ldp_table, "m")
    command = "python -m benchmarks.bench_kernel_ridge" + (
        " --quick" if args.quick else ""
    )
    seed_note = (
        "one draw (seed 0)"
        if args.quick
        else "mean over 3 draws (data and noise seeds 0-2) at n = 10^4, 2 at "
        "10^5, 1 at 10^6"
    )
    populations = "\n".join(
        f"- `{name}`: {POPULATIONS[name].description} (public ||x|| <= "
        f"{POPULATIONS[name].data_norm:.3g} for the naive and linear reports, "
        f"|y| <= {POPULATIONS[name].y_bound:g})."
        for name in names
    )
    notes = f"""Test MSE on {POPULATIONS[names[0]].n_test} clean held-out users (lower is
better; `predict 0` is the MSE of the constant 0). delta = {DELTA}, gamma = 1/d;
{seed_note}.

Populations:

{populations}

Columns: `KernelRidgeLDP` = library default (analytic calibration,
n_components='auto' = floor(3 n^(1/3) sigma_x^(-4/3)), alpha='auto');
`paper` = calibration='paper' (eps/2, delta/2 per part, classic formula;
n_components = sqrt(d n) eps capped at 300); `{NP_REFERENCE}` = non-private
RBFSampler({NONPRIVATE_COMPONENTS} features, gamma = 1/d) + RidgeCV(alphas
10^-3..10^3); `KernelRidge ({krr_users} users)` = non-private exact
KernelRidge on the first {krr_users} users, alpha by 3-fold GridSearchCV;
`naive` = the same RFF + RidgeCV pipeline on Gaussian reports of (x, y)
(same eps and delta); `debiased LS (linear)` = GaussianLeastSquares
(debiased linear least squares on those reports, ridge 2 sigma^2 sqrt(p/n)).

## Random features m used by the private modes

{format_table(components, component_columns)}

## Fit time / {NP_REFERENCE} fit time (same draw)

{format_table(times, time_columns)}

Seconds include simulating the users' randomizers; the last column is the
non-private pipeline's own time.

Generated by `{command}`."""
    report(
        "kernel_ridge",
        utility,
        columns,
        title="KernelRidgeLDP: test MSE",
        notes=notes,
        save=not args.no_save,
    )
    if not args.no_save:
        plot_utility(table, "mse", "kernel_ridge", ylabel="test MSE", logy=True)


if __name__ == "__main__":
    main()
