"""SparseLDPRegressor and SparseLDPMeanEstimator on the shared populations.

Regression (``sparse_linear_20d``, ``sparse_linear_100d`` and the real
``diabetes`` data, 10 features): R^2 on clean held-out users (0 = the
trivial predictor, the mean of y; 1 = perfect), mean and standard error
over 3 draws (data and noise seeds), for

- ``SparseLDPRegressor``: the library default (``projection='auto'``: the
  identity when ``n_components`` reaches ``d``, else a Gaussian projection;
  one PrivUnitG report of the pair, ``mechanism='auto'``; l1 radius and
  constant fallback chosen from the reports);
- ``paper``: ``calibration='paper'`` (Gaussian projection as printed,
  ``epsilon/2, delta/2`` per part with the classic formula);
- ``LinearRegression`` (non-private) and ``trivial`` (the mean of the clean
  training y, non-private);
- ``noisy mean``: the intercept-only model on the naive baseline's reports
  (the mean of the noisy ``y``), the trivial predictor as a private server
  knows it;
- ``naive OLS``: ``GaussianLeastSquares(debias=False)``, ordinary least
  squares on Gaussian reports of ``(x, y)`` at the same (epsilon, delta);
- ``debiased LS``: ``GaussianLeastSquares(debias=True)`` on the same reports;
- ``debiased LS (PrivUnitG)``: ``PrivUnitLeastSquares``, the same debiased
  least squares on PrivUnitG pair reports of ``(x, y)`` (the default's kind
  of report, unprojected).

Mean (``sparse_mean_100d``, ``sparse_mean_10000d``): l2 distance of the
estimate to the population mean, for the default ``SparseLDPMeanEstimator``,
the paper configuration (``aggregation='median_of_means',
recovery='basis_pursuit', calibration='paper'``), the paper's calibration
alone, the exact sample mean (non-private), and the naive mean of Gaussian
reports of ``x`` (with and without projecting it onto the l1 ball).

Run ``python -m benchmarks.bench_sparse [--quick]``.
"""

import math

import numpy as np
from sklearn.dummy import DummyRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression
from sklearn.utils import gen_batches

from benchmarks._baselines import (
    DELTA,
    DELTA_NOTE,
    PRIVUNIT_LS,
    GaussianLeastSquares,
    PrivUnitLeastSquares,
    naive_gaussian_mean,
    nonprivate,
)
from benchmarks._harness import Benchmark, Experiment, Grid, Method, Plot, main
from benchmarks._populations import POPULATIONS
from benchmarks._tables import format_table, time_table
from sklearn_ldp import SparseLDPMeanEstimator, SparseLDPRegressor

EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0)
SIZES = (10_000, 100_000, 1_000_000)
#: Three draws at 10^4 users, two at 10^5, one at 10^6.
REPEATS = {10_000: 3, 100_000: 2}
#: Regression: the sizes of the issue (2 10^4 .. 2 10^5), 3 draws per cell.
REGRESSION_SIZES = (20_000, 200_000)
REGRESSION_REPEATS = 3
#: The default must be within this many standard errors of the best
#: baseline and of the trivial predictor (the "check" column).
CHECK_STD_ERRORS = 2.0
#: Baselines the default is checked against.
BASELINES = ("noisy mean", "naive OLS", "debiased LS", PRIVUNIT_LS)
DEFAULT = "SparseLDPRegressor"
#: Users per batch for the streaming baselines (bounded memory at n = 1e6).
BATCH = 100_000
#: d = 10^4: one draw of 10^4 users is 800 MB, the users' projection costs
#: n d m with m ~ 3 sqrt(n) epsilon, the baselines need d x d statistics.
HIGH_DIM_MAX_N = 10_000
HIGH_DIM_MEAN_PAPER_EPSILONS = (1.0,)
HIGH_DIM_MEAN_CALIBRATION_EPSILONS = (1.0, 4.0)


# ---------------------------------------------------------------- regression
def regressor(population, **params):
    def fit(data, epsilon, seed):
        # The library default l1_radius='auto' where the population
        # publishes no radius (diabetes).
        declared = {k: v for k, v in population.params.items() if k == "l1_radius"}
        return SparseLDPRegressor(
            epsilon=epsilon,
            delta=DELTA,
            **declared,
            data_norm=population.data_norm,
            y_bound=population.y_bound,
            random_state=seed,
            **params,
        ).fit(data.X, data.y)

    return fit


def least_squares(population, debias, privunit=False):
    """Gaussian reports of (x, y) (``privunit``: the PrivUnitG pair reports
    the default collects, the features unprojected), streamed in batches
    (memory O(d^2))."""

    def fit(data, epsilon, seed):
        bounds = {"data_norm": population.data_norm, "y_bound": population.y_bound}
        model = (
            PrivUnitLeastSquares(epsilon, seed, **bounds)
            if privunit
            else GaussianLeastSquares(
                epsilon, seed, debias=debias, delta=DELTA, **bounds
            )
        )
        for rows in gen_batches(data.n, BATCH):
            model.partial_fit(data.X[rows], data.y[rows])
        return model

    return fit


def noisy_mean(population):
    """The intercept-only model on the naive baseline's reports: the mean of
    the noisy ``y`` (what a private server knows of the trivial predictor)."""
    naive = least_squares(population, False)

    def fit(data, epsilon, seed):
        model = naive(data, epsilon, seed)
        stats, p = model._stats, model._stats.n_components - 1
        model.coef_ = np.zeros(p)
        model.intercept_ = float(stats.moment[p] / stats.n)
        return model

    return fit


def regression_methods(population, quick=False):
    return [
        Method(
            "LinearRegression",
            lambda data, e, s: nonprivate(LinearRegression(), data.X, data.y),
            "non-private",
        ),
        Method(
            "trivial",
            lambda data, e, s: nonprivate(DummyRegressor(), data.X, data.y),
            "non-private",
        ),
        Method(DEFAULT, regressor(population)),
        Method("paper", regressor(population, calibration="paper"), "paper"),
        Method("noisy mean", noisy_mean(population), "baseline"),
        Method("naive OLS", least_squares(population, False), "baseline"),
        Method("debiased LS", least_squares(population, True), "baseline"),
        Method(PRIVUNIT_LS, least_squares(population, True, privunit=True), "baseline"),
    ]


def r2(model, data):
    """R^2 on the held-out users (their own variance: 0 is their mean)."""
    residual = model.predict(data.X_test) - data.y_test
    return float(1.0 - np.mean(residual**2) / np.var(data.y_test))


def evaluate_regression(model, data):
    selected = getattr(model, "selected_model_", None)
    return {
        "R2": r2(model, data),
        "m": float(getattr(model, "n_components_", data.X.shape[1])),
        "constant chosen": np.nan
        if selected is None
        else float(selected == "constant"),
    }


def mean_se_table(table, metric, default, baselines, higher_is_better=True):
    """Pivot of ``metric`` as "mean ± standard error" over seeds, plus a check.

    ``check`` is ``ok`` when the ``default`` method is within
    ``CHECK_STD_ERRORS`` standard errors (of the difference, seeds treated
    as independent) of the best of ``baselines`` and of the first baseline
    (the private trivial predictor), else names what it loses to.
    """
    sign = 1.0 if higher_is_better else -1.0
    cells, stats = {}, {}
    methods = list(dict.fromkeys(r["method"] for r in table))
    for r in table:
        se = r.get(f"{metric} sd", np.nan) / np.sqrt(r["runs"])
        stats[(r["population"], r["n"], r["epsilon"], r["method"])] = (r[metric], se)
    keys = list(
        dict.fromkeys(
            (r["population"], r["n"], r["epsilon"])
            for r in table
            if r["epsilon"] != "inf"
        )
    )
    rows = []
    for population, n, epsilon in keys:
        row = {"population": population, "n": n, "epsilon": epsilon}
        for method in methods:
            value = stats.get((population, n, epsilon, method)) or stats.get(
                (population, n, "inf", method)
            )
            if value is not None:
                row[method] = f"{value[0]:.3f} ± {value[1]:.3f}"
                cells[method] = value
        mine = stats.get((population, n, epsilon, default))
        losses = []
        for base in baselines:
            other = stats.get((population, n, epsilon, base)) or stats.get(
                (population, n, "inf", base)
            )
            if mine is None or other is None:
                continue
            margin = CHECK_STD_ERRORS * np.hypot(mine[1], other[1])
            if sign * (other[0] - mine[0]) > margin:
                losses.append(base)
        row["check"] = "ok" if not losses else "below " + ", ".join(losses)
        rows.append(row)
    return rows, ["population", "n", "epsilon", *methods, "check"]


def regression_table(table):
    return mean_se_table(table, "R2", DEFAULT, BASELINES)


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
    times, time_columns = time_table(table, "LinearRegression")
    time_columns = [c for c in time_columns if c not in ("trivial", "noisy mean")]
    # The same check against the clean (non-private) mean of y alone.
    rows, _ = mean_se_table(table, "R2", DEFAULT, ("trivial",))
    below = [r for r in rows if r["check"] != "ok"]
    chosen = [
        f"{r['population']}, n = {r['n']:,}, eps = {r['epsilon']:g}: "
        f"{r['constant chosen']:.2f}"
        for r in table
        if r["method"] == DEFAULT
    ]
    draws = run.grid.seeds(run.seed)(run.grid.sizes[0])
    return f"""R^2 = 1 - MSE / Var(y) on {run.grid.populations[0].n_test} clean held-out
users (0 is the trivial predictor, the mean of y; 1 is perfect), mean ± standard
error over {len(draws)} draws (data and noise seeds {list(draws)}). delta = {DELTA:g}
({DELTA_NOTE}). `check`: `ok` when `{DEFAULT}` is no worse than each of
{", ".join(f"`{b}`" for b in BASELINES)} by more than {CHECK_STD_ERRORS:g} standard
errors of the difference (seeds independent), else the baselines it loses to.
The private baselines' trivial predictor is `noisy mean`: no server knows the
mean of y better than the reports tell it, within sigma_y / sqrt(n) (R^2 cost
about sigma_y^2 / (n Var(y)) without prior knowledge of the mean). Cells below
the clean `trivial` (non-private) by more than {CHECK_STD_ERRORS:g} standard errors:
{len(below)} of {len(rows)}{
    "" if not below else " (" + "; ".join(
        f"{r['population']}, n = {r['n']:,}, eps = {r['epsilon']:g}: "
        f"{r[DEFAULT]} vs noisy mean {r['noisy mean']}"
        for r in below
    ) + ")"
}.

Populations (||x|| <= data_norm and |y| <= 1 are public; l1_radius = ||w*||_1
= 1.22 declared for the synthetic ones, the default 'auto' for diabetes):

{describe(run.grid.populations)}

Columns: `{DEFAULT}` = library default (projection='auto': the identity
when n_components = ceil(sqrt(n eps^2 log d)) reaches d, else Gaussian; one
pure-epsilon PrivUnitG report of the pair (projected features, scaled y) by
default, mechanism='auto'; the l1 radius among l1_radius * 2^-k, k = 0..7 (a
declared radius; 'auto': 2^k, k = -7..3, 2 preferred), each
with a ridge of 1 and 3 times sigma_x^2 sqrt(m / n) (the largest radius also
10 and 30 times), and the fallback to the noisy mean of y, chosen by 5-fold
held-out squared risk on the reports; below the public population
min_users_for_a_model, n <= (sigma_x sigma_y / (B y_bound))^2 of the joint
report, users send y alone through TargetMeanRandomizer and the server
returns the mean of its unbiased estimates: m = 0 below); `paper` = calibration='paper'
(Gaussian projection as printed, eps/2 and delta/2 per part, classic
formula; the same report-only choice);
`LinearRegression` = non-private scikit-learn; `trivial` = the mean of the
clean training y (non-private); `noisy mean` = the mean of the noisy y of the
naive baseline's reports (the private trivial predictor); `naive OLS` =
GaussianLeastSquares (debias=False): OLS on Gaussian reports of (x, y) at
the same (eps, delta); `debiased LS` =
GaussianLeastSquares(debias=True) on the same reports; `{PRIVUNIT_LS}` =
the same debiased least squares on PrivUnitG pair reports of (x, y) at the
same epsilon (PrivUnitLeastSquares: the default's kind of report, on the
unprojected features).
{components_line(table, (DEFAULT, "paper"))}

Fraction of draws in which `{DEFAULT}` fell back to the constant:
{"; ".join(chosen)}.

`sparse_linear_10000d` is no longer in this table: the report-only choice
refits FISTA 31 times, and each fit at d = 10^4 costs n d m (about 40 s at eps
= 4, n = 10^4 before the choice). The projection is compared with the identity
at d = 20 in `docs/benchmarks/sparse_projection.md`.

## Fit time / non-private fit time (same draw)

{format_table(times, time_columns)}

Seconds include simulating the users' randomizers. `LinearRegression s` is the
non-private fit's own time.

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
(aggregation='median_of_means' over ceil(18 log(1/delta)) =
{math.ceil(18 * math.log(1 / DELTA))} groups,
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
            title="SparseLDPRegressor: held-out R^2 (mean ± standard error)",
            methods=regression_methods,
            evaluate=evaluate_regression,
            metrics=("R2", "m", "constant chosen"),
            full=Grid(
                populations=tuple(
                    POPULATIONS[name]
                    for name in ("sparse_linear_20d", "sparse_linear_100d", "diabetes")
                ),
                sizes=REGRESSION_SIZES,
                epsilons=EPSILONS,
                repeats=REGRESSION_REPEATS,
            ),
            quick=Grid(
                populations=(POPULATIONS["sparse_linear_20d"], POPULATIONS["diabetes"]),
                sizes=REGRESSION_SIZES[:1],
                epsilons=(0.5, 4.0),
                repeats=REGRESSION_REPEATS,
            ),
            notes=regression_notes,
            table=regression_table,
            plot=Plot("held-out R^2"),
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
