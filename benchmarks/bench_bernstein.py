"""LocalBernsteinRegressor: held-out R^2 against n and epsilon, next to the baselines.

Populations ``linear_1d`` (one feature, y = 0.5 x + 0.1 + noise) and
``diabetes_2d`` (scikit-learn's diabetes data, bmi and s5, in the unit ball;
:mod:`benchmarks._populations`), public bounds data_norm = y_bound = 1 and
the coefficient box [-1, 1]^q. The metric is R^2 on held-out users (0 is the
mean of y; below 0 is worse than predicting it).

Methods, all at the same epsilon per user:
- default: LocalBernsteinRegressor() (mechanism='auto': the protocol, the
  scalar mechanism and the degree minimize the predicted error of
  ``predicted_errors`` from public quantities; model_selection='cv': the
  minimizer or the constant model by held-out estimated risk from the
  reports, one-standard-error rule);
- grid + cv: mechanism='piecewise' (seed 001 Algorithm 3's partition grid,
  degree='auto') with the report-only selection;
- paper: mechanism='full_grid', model_selection='none' (seed 001 Algorithm 2
  as printed: every user releases all (k + 1)^q grid values with Laplace
  noise under basic composition, the server returns the minimizer);
- non-private: LinearRegression; trivial: the (non-private) mean of y;
- naive: LinearRegression on Gaussian (x, y) reports (``naive_fit``);
- debiased LS: least squares on the debiased Gram matrix of the same
  Gaussian reports (``GaussianLeastSquares``).
The Gaussian baselines are (epsilon, delta = 1e-7)-LDP, weaker than the
Bernstein estimator's pure epsilon-LDP.

A second table is the h (iterated_order) ablation of the grid protocol; a
third compares GenProt's (mechanism='genprot', seed 001 Algorithm 8) improved
and paper calibrations (``--experiments bench_bernstein_genprot`` runs it
alone).

Run ``python -m benchmarks.bench_bernstein [--quick]``.
"""

import dataclasses

import numpy as np
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score

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
from sklearn_ldp import LocalBernsteinRegressor

POPULATION_NAMES = ("linear_1d", "diabetes_2d")
METRIC = "R^2"
DEFAULT = "default (auto + cv)"
BASELINES = ("naive", "debiased LS", "trivial (mean of y)")


def bernstein(**params):
    def fit(data, epsilon, seed):
        est = LocalBernsteinRegressor(epsilon=epsilon, random_state=seed, **params)
        return est.fit(data.X, data.y)

    return fit


def naive(data, epsilon, seed):
    return naive_fit(LinearRegression(), data.X, data.y, epsilon, seed, y_bound=1.0)


def debiased(data, epsilon, seed):
    return GaussianLeastSquares(epsilon, seed, data_norm=1.0, y_bound=1.0).fit(
        data.X, data.y
    )


def evaluate(model, data):
    out = {METRIC: float(r2_score(data.y_test, model.predict(data.X_test)))}
    out["minimizer"] = float(getattr(model, "selected_model_", "") == "minimizer")
    out["moments"] = float(getattr(model, "protocol_", "") == "moments")
    out["degree"] = float(getattr(model, "degree_", np.nan))
    return out


def full_grid_fits(n, epsilon):
    # Every user reports all (k + 1)^q values: the randomizer refuses more
    # than 2^27 values in all, which diabetes_2d (q = 3) exceeds at n = 1e6.
    return n <= 100_000


def methods(population, quick):
    paper_where = full_grid_fits if population.name == "diabetes_2d" else None
    return [
        Method(
            "LinearRegression",
            lambda d, e, s: nonprivate(LinearRegression(), d.X, d.y),
            "non-private",
        ),
        Method(DEFAULT, bernstein(), "improved"),
        Method("grid + cv", bernstein(mechanism="piecewise"), "improved"),
        Method(
            "full_grid (paper)",
            bernstein(mechanism="full_grid", model_selection="none"),
            "paper",
            where=paper_where,
        ),
        *(
            []
            if quick
            else [
                Method("duchi grid + cv", bernstein(mechanism="duchi"), "improved"),
                Method(
                    "bassily_smith (paper)",
                    bernstein(mechanism="bassily_smith", model_selection="none"),
                    "paper",
                ),
            ]
        ),
        Method("naive", naive, "baseline"),
        Method("debiased LS", debiased, "baseline"),
        Method(
            "trivial (mean of y)",
            lambda d, e, s: DummyRegressor().fit(d.X, d.y),
            "baseline",
        ),
    ]


def mean_se(row, metric):
    se = row.get(f"{metric} sd", np.nan) / np.sqrt(row["runs"])
    return row[metric], se


def utility_table(table):
    """Mean ± standard error per method, and the default's margin over the best
    baseline in standard errors of the difference (``gap / SE``)."""
    keys = ("population", "n", "epsilon")
    methods_seen = list(dict.fromkeys(r["method"] for r in table))
    cells = {}
    for r in table:
        if r["epsilon"] == "inf":
            continue
        cells.setdefault(tuple(r[k] for k in keys), {})[r["method"]] = r
    references = {(r["population"], r["n"]): r for r in table if r["epsilon"] == "inf"}
    rows = []
    for key, here in cells.items():
        row = dict(zip(keys, key, strict=True))
        reference = references.get(key[:2])
        if reference is not None:
            row[reference["method"]] = f"{reference[METRIC]:.4f}"
        for method, r in here.items():
            mean, se = mean_se(r, METRIC)
            row[method] = f"{mean:.4f} ± {se:.4f}"
        best = max((here[m] for m in BASELINES if m in here), key=lambda r: r[METRIC])
        ours, ours_se = mean_se(here[DEFAULT], METRIC)
        theirs, theirs_se = mean_se(best, METRIC)
        gap = ours - theirs
        row["default - best baseline"] = (
            f"{gap:+.4f} ({gap / np.hypot(ours_se, theirs_se):+.1f} SE)"
        )
        row["minimizer chosen"] = f"{here[DEFAULT]['minimizer']:.2f}"
        rows.append(row)
    columns = [
        *keys,
        *methods_seen,
        "default - best baseline",
        "minimizer chosen",
    ]
    return rows, columns


def seeds_text(run):
    grid = run.grid
    return f"{grid.repeats} seeds" if isinstance(grid.repeats, int) else "seeds"


def notes(table, run):
    times, time_columns = time_table(table, "LinearRegression")
    protocol, protocol_columns = pivot(
        [r for r in table if r["method"] == DEFAULT], "moments"
    )
    degrees, degree_columns = pivot(
        [r for r in table if r["method"] in ("grid + cv", "full_grid (paper)")],
        "degree",
    )
    default_rows = [r for r in table if r["method"] == DEFAULT]
    trivial = {
        (r["population"], r["n"], r["epsilon"]): r
        for r in table
        if r["method"] == "trivial (mean of y)"
    }
    below = []
    for r in default_rows:
        reference = trivial[r["population"], r["n"], r["epsilon"]]
        se = np.hypot(mean_se(r, METRIC)[1], mean_se(reference, METRIC)[1])
        if r[METRIC] < reference[METRIC] - 2 * se:
            below.append(r)
    return (
        f"Held-out R^2 ({run.grid.populations[0].n_test:,} held-out users), mean ± "
        f"standard error over {seeds_text(run)} (users' noise, server folds and "
        "the population draw change with the seed). Public bounds data_norm = "
        "y_bound = 1, coefficient box [-1, 1]^q. "
        f"`{DEFAULT}` = LocalBernsteinRegressor() (mechanism='auto', "
        "model_selection='cv'); `grid + cv` = mechanism='piecewise' (the grid of "
        "seed 001 Alg. 3, degree='auto') with the same selection; `full_grid "
        "(paper)` = mechanism='full_grid', model_selection='none' (seed 001 Alg. "
        "2 as printed; on diabetes_2d only up to n = 1e5: at 1e6 users x "
        "(k+1)^3 values the randomizer refuses the memory); `duchi grid + cv` = "
        "mechanism='duchi' (1 bit per user) with the selection; `bassily_smith "
        "(paper)` = mechanism='bassily_smith', model_selection='none' (seed 001 "
        "Alg. 3, correctly calibrated); `naive` = "
        "LinearRegression on Gaussian (x, y) reports; `debiased LS` = "
        "GaussianLeastSquares on the same reports (both at (epsilon, delta = "
        f"{DELTA:g}); {DELTA_NOTE}; weaker than the pure epsilon of the "
        "Bernstein estimator); `trivial (mean of y)` = the non-private mean of "
        "the training y (DummyRegressor). `default - best baseline`: the "
        "default minus the best of naive, debiased LS and trivial, and that "
        "gap in standard errors of the difference. `minimizer chosen`: "
        "fraction of seeds where the server kept the minimizer rather than "
        "the constant model.\n\n"
        f"Cells where the default's mean is more than 2 SE below the trivial "
        f"predictor: {len(below)} of {len(default_rows)}.\n\n"
        "Fraction of seeds where mechanism='auto' collected moments (else the "
        "grid):\n\n"
        + format_table(protocol, protocol_columns)
        + "\n\nGrid degree k of the grid methods (mean over seeds):\n\n"
        + format_table(degrees, degree_columns)
        + "\n\nFit time / LinearRegression's fit time on the same users (the "
        "private fits simulate every user's randomizer):\n\n"
        + format_table(times, time_columns)
        + f"\n\nCommand: `{run.command}`."
    )


def orders(quick):
    return (1, 3) if quick else (1, 2, 3)


def order_methods(population, quick):
    return [
        Method(
            f"piecewise, h = {h}",
            bernstein(mechanism="piecewise", iterated_order=h, model_selection="none"),
            "improved",
        )
        for h in orders(quick)
    ]


def order_table(table):
    """Mean ± standard error per h, and the mean grid degree k chosen for each h."""
    hs = orders_in(table)
    cells = {}
    for r in table:
        key = (r["population"], r["n"], r["epsilon"])
        cells.setdefault(key, {})[r["method"]] = r
    k_column = "k (h = " + " / ".join(str(h) for h in hs) + ")"
    rows = []
    for (population, n, epsilon), here in cells.items():
        row = {"population": population, "n": n, "epsilon": epsilon}
        for method, r in here.items():
            mean, se = mean_se(r, METRIC)
            row[method] = f"{mean:.4f} ± {se:.4f}"
        row[k_column] = " / ".join(
            f"{here[f'piecewise, h = {h}']['degree']:.3g}" for h in hs
        )
        rows.append(row)
    methods_seen = [f"piecewise, h = {h}" for h in hs]
    return rows, ["population", "n", "epsilon", *methods_seen, k_column]


def orders_in(table):
    return sorted({int(r["method"].removeprefix("piecewise, h = ")) for r in table})


def order_notes(table, run):
    return (
        "Population `linear_1d`; held-out R^2 of LocalBernsteinRegressor with "
        "the grid protocol (mechanism='piecewise', degree='auto', "
        "model_selection='none') for each iterated_order h (the default is "
        f"h = 3), mean ± standard error over {seeds_text(run)}; the last column is the mean grid "
        "degree k that degree='auto' chose for each h. "
        f"Command: `{run.command}`."
    )


GENPROT_METHODS = {
    "genprot improved": dict(mechanism="genprot", model_selection="none"),
    "genprot paper": dict(
        mechanism="genprot", calibration="paper", model_selection="none"
    ),
}


#: The estimator's default server on the improved reports (report-only
#: selection between the minimizer and the constant model).
GENPROT_DEFAULT = "genprot improved + cv"


def genprot_methods(population, quick):
    return [
        Method(GENPROT_DEFAULT, bernstein(mechanism="genprot")),
        *(
            Method(
                name, bernstein(**params), "paper" if "paper" in name else "improved"
            )
            for name, params in GENPROT_METHODS.items()
        ),
    ]


def genprot_evaluate(model, data):
    out = evaluate(model, data)
    out["epsilon provided"] = float(model.privacy_epsilon_)
    out["bits"] = float(model.communication_bits_)
    return out


def genprot_table(table):
    """Mean ± standard error of both calibrations, their difference, and what each spends."""
    cells = {}
    for r in table:
        key = (r["population"], r["n"], r["epsilon"])
        cells.setdefault(key, {})[r["method"]] = r
    rows = []
    names = list(GENPROT_METHODS)
    for (population, n, epsilon), here in cells.items():
        if not all(name in here for name in names):
            continue
        row = {"population": population, "n": n, "epsilon": epsilon}
        if GENPROT_DEFAULT in here:
            mean, se = mean_se(here[GENPROT_DEFAULT], METRIC)
            row[GENPROT_DEFAULT] = f"{mean:.4f} ± {se:.4f}"
        (ours, ours_se), (paper, paper_se) = (mean_se(here[m], METRIC) for m in names)
        for name, (mean, se) in zip(
            names, ((ours, ours_se), (paper, paper_se)), strict=True
        ):
            row[name] = f"{mean:.4f} ± {se:.4f}"
        gap = ours - paper
        row["improved - paper"] = (
            f"{gap:+.4f} ({gap / np.hypot(ours_se, paper_se):+.1f} SE)"
        )
        row["epsilon provided (improved / paper)"] = " / ".join(
            f"{here[m]['epsilon provided']:.3g}" for m in names
        )
        row["bits (improved / paper)"] = " / ".join(
            f"{here[m]['bits']:.0f}" for m in names
        )
        row["degree (improved / paper)"] = " / ".join(
            f"{here[m]['degree']:.3g}" for m in names
        )
        rows.append(row)
    columns = [
        "population",
        "n",
        "epsilon",
        GENPROT_DEFAULT,
        *names,
        "improved - paper",
        "epsilon provided (improved / paper)",
        "bits (improved / paper)",
        "degree (improved / paper)",
    ]
    return rows, columns


def genprot_notes(table, run):
    return (
        "Population `linear_1d`; held-out R^2 of "
        "LocalBernsteinRegressor(mechanism='genprot') (seed 001 Algorithm 8, "
        "GenProt over the Laplace release of the partition grid), mean ± "
        f"standard error over {seeds_text(run)}. `genprot improved`: "
        "calibration='improved' (the default: the tight guarantee ln(e^(2 "
        "eps0) + tail(T)), eps0 about epsilon / 2, public strings around "
        "bot = 1/2, T = 32 candidates) with the paper's server "
        "(model_selection='none', the minimizer), so that `improved - "
        "paper` compares the calibrations alone; `genprot improved + cv` is "
        "the estimator's default server on the same kind of reports "
        "(report-only choice between the minimizer and the constant model, "
        "one-standard-error rule toward the constant: it gives up a "
        "minimizer whose advantage the reports cannot show); "
        "`genprot paper`: calibration='paper' (Theorem 46 as printed: eps0 = "
        "epsilon / 10, strings around bot = 0, T = 1 + ceil(log2(n / 0.05)) "
        "candidates, the minimizer returned, model_selection='none'). "
        "Requests above what a configuration can provide are served at its "
        "cap: 2 ln 2 for eps0 (about 2.77) in improved mode, Theorem 46's "
        "eps0 <= 1/4 (epsilon 2.5) in paper mode; the `epsilon provided` "
        "column is `privacy_epsilon_`, what each run actually spends. "
        "`improved - paper` is the difference of the means in standard "
        f"errors of the difference. Command: `{run.command} --experiments "
        "bench_bernstein_genprot`."
    )


POPULATIONS_RUN = tuple(POPULATIONS[name] for name in POPULATION_NAMES)
SIZES = (10_000, 100_000, 1_000_000)
EPSILONS = (0.5, 1, 2, 4, 8)
QUICK = Grid(
    populations=POPULATIONS_RUN, sizes=(5_000, 20_000), epsilons=(1.0, 4.0), repeats=3
)
FULL = Grid(populations=POPULATIONS_RUN, sizes=SIZES, epsilons=EPSILONS, repeats=3)

SPEC = Benchmark(
    name="bench_bernstein",
    description=__doc__.splitlines()[0],
    steps=(
        Experiment(
            name="bench_bernstein",
            title="LocalBernsteinRegressor: held-out R^2 (mean ± standard error)",
            methods=methods,
            evaluate=evaluate,
            metrics=(METRIC, "minimizer", "moments", "degree"),
            full=FULL,
            quick=QUICK,
            notes=notes,
            table=utility_table,
            plot=Plot("held-out R^2", keep=lambda r: r["mode"] != "non-private"),
        ),
        Experiment(
            name="bench_bernstein_order",
            title="LocalBernsteinRegressor: iterated order h of the grid (held-out R^2)",
            methods=order_methods,
            evaluate=evaluate,
            metrics=(METRIC, "degree"),
            full=Grid(
                populations=(POPULATIONS["linear_1d"],),
                sizes=SIZES,
                epsilons=EPSILONS,
                repeats=3,
            ),
            quick=Grid(
                populations=(POPULATIONS["linear_1d"],),
                sizes=(20_000,),
                epsilons=(1.0, 4.0),
                repeats=3,
            ),
            notes=order_notes,
            table=order_table,
        ),
        Experiment(
            name="bench_bernstein_genprot",
            title="LocalBernsteinRegressor, mechanism='genprot': improved vs paper "
            "calibration (held-out R^2)",
            methods=genprot_methods,
            evaluate=genprot_evaluate,
            metrics=(METRIC, "degree", "epsilon provided", "bits"),
            full=Grid(
                populations=(POPULATIONS["linear_1d"],),
                sizes=(20_000, 100_000),
                epsilons=(0.5, 1.0, 2.0, 4.0),
                repeats=3,
            ),
            quick=Grid(
                populations=(POPULATIONS["linear_1d"],),
                sizes=(5_000,),
                epsilons=(1.0,),
                repeats=2,
            ),
            notes=genprot_notes,
            table=genprot_table,
        ),
    ),
    options=(
        (
            "--experiments",
            {
                "nargs": "+",
                "help": "run only these experiments (bench_bernstein, "
                "bench_bernstein_order, bench_bernstein_genprot)",
            },
        ),
    ),
)


def _selected(experiment):
    def step(run):
        wanted = getattr(run.options, "experiments", None)
        if wanted and experiment.name not in wanted:
            return []
        return experiment(run)

    return step


SPEC = dataclasses.replace(SPEC, steps=tuple(_selected(e) for e in SPEC.steps))

if __name__ == "__main__":
    main(SPEC)
