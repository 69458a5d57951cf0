"""SparseLDPRegressor and SparseLDPMeanEstimator on the shared populations.

Regression (``sparse_linear_20d``, ``sparse_linear_100d``,
``sparse_linear_10000d``): the population excess squared risk of the fitted
``(coef_, intercept_)``, divided by the signal variance ``Var(x^T w*)``
(``sparse_linear_excess_risk``; exact, no held-out sample; 1 = no better than
predicting the mean), for

- ``SparseLDPRegressor``: the library default (``projection='auto'``: the
  identity when ``n_components`` reaches ``d``, else a Gaussian projection;
  joint analytic calibration);
- ``paper``: ``calibration='paper'`` (Gaussian projection as printed,
  ``epsilon/2, delta/2`` per part with the classic formula);
- ``LinearRegression`` (non-private; ``LassoCV`` at ``d = 10^4``, where
  ``n <= d``);
- ``naive OLS``: ``GaussianLeastSquares(debias=False)``, ordinary least
  squares on Gaussian reports of ``(x, y)`` at the same (epsilon, delta);
- ``debiased LS``: ``GaussianLeastSquares(debias=True)`` on the same reports.

Mean (``sparse_mean_100d``, ``sparse_mean_10000d``): l2 distance of the
estimate to the population mean, for the default ``SparseLDPMeanEstimator``,
the paper configuration (``aggregation='median_of_means',
recovery='basis_pursuit', calibration='paper'``), the paper's calibration
alone, the exact sample mean (non-private), and the naive mean of Gaussian
reports of ``x`` (with and without projecting it onto the l1 ball).

Run ``python -m benchmarks.bench_sparse [--quick]``.
"""

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LassoCV, LinearRegression
from sklearn.utils import gen_batches

from benchmarks._baselines import (
    DELTA,
    DELTA_NOTE,
    GaussianLeastSquares,
    naive_gaussian_mean,
    nonprivate,
)
from benchmarks._harness import Benchmark, Experiment, Grid, Method, Plot, main
from benchmarks._populations import POPULATIONS, sparse_linear_excess_risk
from benchmarks._tables import format_table, time_table
from sklearn_ldp import SparseLDPMeanEstimator, SparseLDPRegressor

EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0)
SIZES = (10_000, 100_000, 1_000_000)
#: Three draws at 10^4 users, two at 10^5, one at 10^6.
REPEATS = {10_000: 3, 100_000: 2}
#: Users per batch for the streaming baselines (bounded memory at n = 1e6).
BATCH = 100_000
#: d = 10^4: one draw of 10^4 users is 800 MB, the users' projection costs
#: n d m with m ~ 3 sqrt(n) epsilon, the baselines need d x d statistics.
HIGH_DIM_MAX_N = 10_000
HIGH_DIM_REGRESSION_EPSILONS = (1.0, 4.0)
HIGH_DIM_MEAN_PAPER_EPSILONS = (1.0,)
HIGH_DIM_MEAN_CALIBRATION_EPSILONS = (1.0, 4.0)
#: LassoCV grid of the non-private reference at d = 10^4.
LASSO_ALPHAS = (3e-4, 1e-3, 3e-3, 1e-2, 3e-2)


# ---------------------------------------------------------------- regression
def regressor(population, **params):
    def fit(data, epsilon, seed):
        return SparseLDPRegressor(
            epsilon=epsilon,
            delta=DELTA,
            l1_radius=population.params["l1_radius"],
            data_norm=population.data_norm,
            y_bound=population.y_bound,
            random_state=seed,
            **params,
        ).fit(data.X, data.y)

    return fit


def least_squares(population, debias):
    """Gaussian reports of (x, y), streamed in batches (memory O(d^2))."""

    def fit(data, epsilon, seed):
        model = GaussianLeastSquares(
            epsilon,
            seed,
            debias=debias,
            delta=DELTA,
            data_norm=population.data_norm,
            y_bound=population.y_bound,
        )
        for rows in gen_batches(data.n, BATCH):
            model.partial_fit(data.X[rows], data.y[rows])
        return model

    return fit


def regression_methods(population, quick=False):
    d = population.params["n_features"]
    if d > 1000:
        eps = HIGH_DIM_REGRESSION_EPSILONS
        return [
            Method(
                "LassoCV",
                lambda data, e, s: nonprivate(
                    LassoCV(alphas=LASSO_ALPHAS, cv=3), data.X, data.y
                ),
                "non-private",
            ),
            Method("SparseLDPRegressor", regressor(population), epsilons=eps),
            Method(
                "paper",
                regressor(population, calibration="paper"),
                "paper",
                epsilons=eps,
            ),
        ]
    return [
        Method(
            "LinearRegression",
            lambda data, e, s: nonprivate(LinearRegression(), data.X, data.y),
            "non-private",
        ),
        Method("SparseLDPRegressor", regressor(population)),
        Method("paper", regressor(population, calibration="paper"), "paper"),
        Method("naive OLS", least_squares(population, False), "baseline"),
        Method("debiased LS", least_squares(population, True), "baseline"),
    ]


def evaluate_regression(model, data):
    d = data.X.shape[1]
    return {
        "excess risk": sparse_linear_excess_risk(model.coef_, model.intercept_, d),
        "m": float(getattr(model, "n_components_", d)),
    }


# ---------------------------------------------------------------------- mean
def mean_estimator(population, **params):
    def fit(data, epsilon, seed):
        return SparseLDPMeanEstimator(
            epsilon=epsilon,
            delta=DELTA,
            l1_radius=population.params["l1_radius"],
            data_norm=population.data_norm,
            random_state=seed,
            **params,
        ).fit(data.X)

    return fit


def naive_mean(population, project):
    """``_baselines.naive_gaussian_mean`` with the population's public bounds."""

    def fit(data, epsilon, seed):
        return naive_gaussian_mean(
            data.X,
            epsilon,
            seed,
            delta=DELTA,
            norm_bound=population.data_norm,
            l1_radius=population.params["l1_radius"] if project else None,
        )

    return fit


def mean_methods(population, quick=False):
    d = population.params["n_features"]
    paper_eps = HIGH_DIM_MEAN_PAPER_EPSILONS if d > 1000 else None
    return [
        Method("sample mean", lambda data, e, s: data.X.mean(axis=0), "non-private"),
        Method("SparseLDPMeanEstimator", mean_estimator(population)),
        Method(
            "paper",
            mean_estimator(
                population,
                aggregation="median_of_means",
                recovery="basis_pursuit",
                calibration="paper",
            ),
            "paper",
            epsilons=paper_eps,
        ),
        Method(
            "paper calibration only",
            mean_estimator(population, calibration="paper"),
            "paper",
            epsilons=HIGH_DIM_MEAN_CALIBRATION_EPSILONS if d > 1000 else None,
        ),
        Method("naive mean", naive_mean(population, project=False), "baseline"),
        Method(
            "naive mean + l1 projection",
            naive_mean(population, project=True),
            "baseline",
        ),
    ]


def evaluate_mean(result, data):
    location = getattr(result, "location_", result)
    return {
        "l2 error": float(np.linalg.norm(location - data.population.params["mean"])),
        "m": float(getattr(result, "n_components_", data.X.shape[1])),
    }


# -------------------------------------------------------------------- tables
def components_line(table, methods):
    """Where m differs from d: the components each private mode used."""
    parts = []
    for r in table:
        if r["method"] in methods and r["epsilon"] != "inf":
            d = POPULATIONS[r["population"]].params["n_features"]
            if r["m"] < d:
                parts.append(
                    f"{r['population']}, n = {r['n']:,}, eps = {r['epsilon']:g}, "
                    f"{r['method']}: m = {r['m']:.0f}"
                )
    if not parts:
        return "m = d (no compression) in every cell."
    return "Components used where m < d: " + "; ".join(parts) + "."


def describe(populations):
    return "\n".join(f"- `{p.name}`: {p.description}." for p in populations)


def seed_note(run):
    if run.quick:
        return f"one draw per cell (seed {run.seed})"
    return (
        "mean over 3 draws (data and noise seeds 0-2) at n = 10^4, 2 at "
        "10^5, 1 at 10^6 and at d = 10^4"
    )


def regression_notes(table, run):
    times, time_columns = time_table(table, ("LinearRegression", "LassoCV"))
    return f"""Normalized population excess risk (R(w) - R(w*)) / Var(x^T w*) of the
fitted (coef_, intercept_), exact (no held-out sample): 0 is the truth, 1 is no
better than predicting the mean. delta = {DELTA:g} ({DELTA_NOTE}); {seed_note(run)}.

Populations (l1_radius = ||w*||_1 = 1.22, ||x|| <= 1 and |y| <= 1 are public):

{describe(run.grid.populations)}

Columns: `SparseLDPRegressor` = library default (projection='auto': the identity
when n_components = ceil(sqrt(n eps^2 log d)) reaches d, else Gaussian; joint
analytic calibration); `paper` = calibration='paper' (Gaussian projection as
printed, eps/2 and delta/2 per part, classic formula); `LinearRegression` /
`LassoCV` = non-private scikit-learn (LassoCV, 3-fold over alpha in
{LASSO_ALPHAS}, at d = 10^4 where n <= d); `naive OLS` = GaussianLeastSquares
(debias=False): OLS on Gaussian reports of (x, y) at the same (eps, delta);
`debiased LS` = GaussianLeastSquares(debias=True) on the same reports.
{components_line(table, ("SparseLDPRegressor", "paper"))}

Restrictions: at d = 10^4 only n = 10^4 (one draw of 10^4 users is 800 MB and
takes ~10 s to generate; the users' projection costs n d m with m ~ 3 sqrt(n)
eps: about 40 s per fit at eps = 4, n = 10^4), the private modes at eps in
{HIGH_DIM_REGRESSION_EPSILONS} only, and no naive / debiased LS (they need
d x d = 10^8 statistics and an eigendecomposition of that matrix). FISTA uses
the library default (max_iter=1000, tol=1e-6); convergence warnings are
silenced.

## Fit time / non-private fit time (same draw)

{format_table(times, time_columns)}

Seconds include simulating the users' randomizers. `non-private s` is the
non-private fit's own time (LinearRegression; LassoCV at d = 10^4).

Generated by `{run.command}`."""


def mean_notes(table, run):
    times, time_columns = time_table(table, ("sample mean",))
    return f"""l2 distance of the estimated mean to the population mean mu (||mu||_2 =
0.46, ||mu||_1 = 0.9; returning 0 scores 0.46). delta = {DELTA:g} ({DELTA_NOTE}); {seed_note(run)}.

Populations (l1_radius = 1 and ||x|| <= 1 are public):

{describe(run.grid.populations)}

Columns: `SparseLDPMeanEstimator` = library default (p = ceil(eps sqrt(n))
components, capped at d, identity when p = d; plain mean of the reports; least
squares over the l1 ball); `paper` = the paper's configuration
(aggregation='median_of_means' over ceil(18 log(1/delta)) = 208 groups,
recovery='basis_pursuit', calibration='paper'); `paper calibration only` = the
default with calibration='paper' (Gaussian projection, split budget);
`sample mean` = exact non-private mean (its error is the sampling error);
`naive mean` = users release x + N(0, sigma^2 I_d) (GaussianMechanism, same
eps and delta), the server averages; `+ l1 projection` projects that average
onto the l1 ball (a baseline the paper does not consider). Debiased least
squares does not apply (no regression).
{components_line(table, ("SparseLDPMeanEstimator", "paper"))}

Restrictions: at d = 10^4 only n = 10^4 (data of 800 MB; the users'
projection costs n d p), `paper` at eps in {HIGH_DIM_MEAN_PAPER_EPSILONS} only (its
basis-pursuit linear program has 2 d = 20 000 variables and p dense rows: 74 s
at eps = 8 in a trial, where it returned 0, as it does in every cell with
n <= 10^5 here) and
`paper calibration only` at eps in {HIGH_DIM_MEAN_CALIBRATION_EPSILONS}.

## Fit time / non-private fit time (same draw)

{format_table(times, time_columns)}

`non-private s` is the time of the exact mean (numpy), so ratios are large.

Generated by `{run.command}`."""


def grid(*names):
    """The full grid; d = 10^4 populations at n = 10^4 only, one draw."""
    high_dim = Grid(sizes=(HIGH_DIM_MAX_N,), epsilons=EPSILONS)
    return Grid(
        populations=tuple(POPULATIONS[name] for name in names),
        sizes=SIZES,
        epsilons=EPSILONS,
        repeats=REPEATS,
        by_population={
            name: high_dim
            for name in names
            if POPULATIONS[name].params["n_features"] > 1000
        },
    )


def quick(name):
    return Grid(populations=(POPULATIONS[name],), sizes=(10_000,), epsilons=(1.0, 8.0))


SPEC = Benchmark(
    name="bench_sparse",
    description=__doc__.splitlines()[0],
    ignore=(ConvergenceWarning,),
    steps=(
        Experiment(
            name="sparse_regression",
            title="SparseLDPRegressor: normalized excess risk",
            methods=regression_methods,
            evaluate=evaluate_regression,
            metrics=("excess risk", "m"),
            full=grid(
                "sparse_linear_20d", "sparse_linear_100d", "sparse_linear_10000d"
            ),
            quick=quick("sparse_linear_20d"),
            notes=regression_notes,
            plot=Plot("excess risk / Var(x^T w*)", logy=True),
            n_test=0,  # every metric is an exact population quantity
        ),
        Experiment(
            name="sparse_mean",
            title="SparseLDPMeanEstimator: l2 error",
            methods=mean_methods,
            evaluate=evaluate_mean,
            metrics=("l2 error", "m"),
            full=grid("sparse_mean_100d", "sparse_mean_10000d"),
            quick=quick("sparse_mean_100d"),
            notes=mean_notes,
            plot=Plot("l2 error of the mean", logy=True),
            n_test=0,
        ),
    ),
)

if __name__ == "__main__":
    main(SPEC)
