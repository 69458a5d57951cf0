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

from benchmarks._baselines import (
    DELTA,
    DELTA_NOTE,
    GaussianLeastSquares,
    naive_fit,
    nonprivate,
)
from benchmarks._harness import Benchmark, Experiment, Grid, Method, Plot, main
from benchmarks._populations import POPULATIONS
from benchmarks._tables import format_table, pivot, time_table
from sklearn_ldp import KernelRidgeLDP

EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0)
SIZES = (10_000, 100_000, 1_000_000)
#: Three draws at 10^4 users, two at 10^5, one at 10^6.
REPEATS = {10_000: 3, 100_000: 2}
NONPRIVATE_COMPONENTS = 100
RIDGE_ALPHAS = np.logspace(-3, 3, 7)
KRR_USERS = 2000
QUICK_KRR_USERS = 500
NP_REFERENCE = "RFF + RidgeCV"


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


def methods(population, quick):
    krr_users = QUICK_KRR_USERS if quick else KRR_USERS
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


def notes(table, run):
    times, time_columns = time_table(table, NP_REFERENCE)
    time_columns = [c for c in time_columns if c != "predict 0"]
    ldp_table = [r for r in table if r["method"] in ("KernelRidgeLDP", "paper")]
    components, component_columns = pivot(ldp_table, "m")
    krr_users = QUICK_KRR_USERS if run.quick else KRR_USERS
    seed_note = (
        f"one draw (seed {run.seed})"
        if run.quick
        else "mean over 3 draws (data and noise seeds 0-2) at n = 10^4, 2 at "
        "10^5, 1 at 10^6"
    )
    populations = run.grid.populations
    described = "\n".join(
        f"- `{pop.name}`: {pop.description} (public ||x|| <= "
        f"{pop.data_norm:.3g} for the naive and linear reports, "
        f"|y| <= {pop.y_bound:g})."
        for pop in populations
    )
    return f"""Test MSE on {populations[0].n_test} clean held-out users (lower is
better; `predict 0` is the MSE of the constant 0). delta = {DELTA:g} ({DELTA_NOTE}), gamma = 1/d;
{seed_note}.

Populations:

{described}

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

Generated by `{run.command}`."""


SPEC = Benchmark(
    name="bench_kernel_ridge",
    description=__doc__.splitlines()[0],
    steps=(
        Experiment(
            name="kernel_ridge",
            title="KernelRidgeLDP: test MSE",
            methods=methods,
            evaluate=evaluate,
            metrics=("mse", "m"),
            full=Grid(
                populations=(POPULATIONS["nonlinear_5d"], POPULATIONS["diabetes"]),
                sizes=SIZES,
                epsilons=EPSILONS,
                repeats=REPEATS,
            ),
            quick=Grid(
                populations=(POPULATIONS["nonlinear_5d"],),
                sizes=(10_000,),
                epsilons=(4.0, 8.0),
            ),
            notes=notes,
            plot=Plot("test MSE", logy=True),
        ),
    ),
)

if __name__ == "__main__":
    main(SPEC)
