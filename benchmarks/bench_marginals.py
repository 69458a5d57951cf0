"""KWayMarginalsLDP: maximum error over all k-way marginals against n, epsilon, k and p.

Populations ``binary_8d`` and ``binary_10d`` (:mod:`benchmarks._populations`):
p correlated bits from a two-class latent mixture (so marginals are not
products). The error of a method is the largest absolute error over every
cell of every marginal table of k = 3 features (all C(p, k) subsets x 2^k
cells) against the exact tables of the same users, which is what the
non-private computation returns (error 0).

Methods, all pure epsilon-LDP per user:
- improved: KWayMarginalsLDP with its defaults (k = 3, gamma = 0.2,
  coefficients='multilinear', one publicly sampled coordinate per user with
  the piecewise mechanism);
- paper: coefficients='monomial' (seed 001 Alg. 6's vector of all C(p + t, t)
  monomials, sampled like the default), and the printed protocol in full:
  the monomial vector with mechanism='full_vector' (every entry with
  Lap(d b / epsilon));
- non-private: the exact tables (``histogram_tables``);
- naive: randomized response on every bit at epsilon / p, channel inversion
  on the noisy tables (``randomized_response_tables``).
Debiased least squares does not apply (no regression target).

Further tables: the order k (gamma = 0, the exact polynomial, against the
default gamma = 0.2, the Thaler-Ullman-Vadhan polynomial) and the number of
features p; all three run the Chebyshev method (``method='chebyshev'``, the
estimator's only method when they were written).

``marginals_methods``: the Chebyshev method, the Hadamard input perturbation
(Cormode, Kulkarni, Srivastava, SIGMOD 2018) and ``method='auto'`` (the
estimator's default), k in {1, 2, 3}, p in {8, 12, 16}: the mean squared
error per cell and the mean total-variation distance of all k-way tables,
mean +- standard error over seeds, and whether 'auto' is within 2 standard
errors of the better of the two; a cell that fails is rerun on
``--recheck-seeds`` fresh seeds (``marginals_methods_check.md``).

Run ``python -m benchmarks.bench_marginals [--quick] [--experiments NAME ...]
[--recheck-seeds S]``.
"""

import dataclasses
import itertools
from math import comb

import numpy as np

from benchmarks._baselines import histogram_tables, randomized_response_tables
from benchmarks._harness import (
    Benchmark,
    Experiment,
    Grid,
    Method,
    Plot,
    Report,
    main,
    run_grid,
)
from benchmarks._populations import POPULATIONS
from benchmarks._tables import aggregate, format_table, pivot, time_table
from sklearn_ldp import KWayMarginalsLDP
from sklearn_ldp.aggregation import predicted_table_error

K = 3
METRIC = "max error"
#: The library refuses full-vector reports beyond 2^27 values (n x vector length).
FULL_VECTOR_MAX_VALUES = 2**27
USERS = (POPULATIONS["binary_8d"], POPULATIONS["binary_10d"])


def subsets_of(p, k):
    return np.array(list(itertools.combinations(range(p), k)))


def flat_tables(estimator, subsets):
    """``marginal_tables`` puts bit j on axis j; flatten to cell sum_j bit_j 2^j
    (the layout of ``histogram_tables``)."""
    tables = estimator.marginal_tables(subsets)
    u = subsets.shape[1]
    return tables.transpose([0, *range(u, 0, -1)]).reshape(len(subsets), -1)


def ldp(k=K, **params):
    params = {"method": "chebyshev", **params}

    def fit(data, epsilon, seed):
        est = KWayMarginalsLDP(epsilon=epsilon, k=k, random_state=seed, **params)
        est.fit(data.X)
        return k, flat_tables(est, subsets_of(data.X.shape[1], k))

    return fit


def naive(k=K):
    def fit(data, epsilon, seed):
        subsets = subsets_of(data.X.shape[1], k)
        return k, randomized_response_tables(data.X, subsets, epsilon, seed)

    return fit


def exact(k=K):
    def fit(data, epsilon, seed):
        return k, histogram_tables(data.X, subsets_of(data.X.shape[1], k))

    return fit


def evaluate(result, data):
    k, tables = result
    if k not in data.cache:
        data.cache[k] = histogram_tables(data.X, subsets_of(data.X.shape[1], k))
    return {METRIC: float(np.max(np.abs(tables - data.cache[k])))}


def monomial_length(p, k=K):
    # k <= 3: the exact polynomial, degree t = k.
    return comb(p + k, k)


def methods(population, quick):
    p = population.params["n_features"]
    full_vector_max_n = FULL_VECTOR_MAX_VALUES // monomial_length(p)
    return [
        Method("exact tables", exact(), "non-private"),
        Method("multilinear (default)", ldp(), "improved"),
        Method("monomial (paper)", ldp(coefficients="monomial"), "paper"),
        Method(
            "monomial, full_vector (printed)",
            ldp(coefficients="monomial", mechanism="full_vector"),
            "paper",
            max_n=full_vector_max_n,
        ),
        Method("naive RR", naive(), "baseline"),
    ]


def order_methods(population, quick):
    out = []
    for k in (2, 4) if quick else (2, 3, 4, 5, 6):
        out += [
            Method("gamma = 0", ldp(k, gamma=0.0), "improved", keys={"k": k}),
            Method("gamma = 0.2 (default)", ldp(k), "improved", keys={"k": k}),
            Method("naive RR", naive(k), "baseline", keys={"k": k}),
        ]
    return out


def features_methods(population, quick):
    p = {"p": population.params["n_features"]}
    return [
        Method("multilinear (default)", ldp(), "improved", keys=p),
        Method("naive RR", naive(), "baseline", keys=p),
    ]


def features_table(table):
    out, columns = pivot(table, METRIC, keys=("n", "epsilon", "p"))
    for row in out:
        row["vector length d"] = sum(comb(row["p"], m) for m in range(1, K + 1))
    return out, [*columns, "vector length d"]


def notes(table, run):
    times, time_columns = time_table(table, "exact tables")
    populations = run.grid.populations
    seeds_text = (
        "one seed"
        if run.quick
        else "mean over 3 seeds at n <= 1e5, one seed at n = 1e6"
    )
    limits = ", ".join(
        f"{pop.name}: C({pop.params['n_features']} + 3, 3) = "
        f"{monomial_length(pop.params['n_features'])} entries, up to n = "
        f"{FULL_VECTOR_MAX_VALUES // monomial_length(pop.params['n_features']):,}"
        for pop in populations
    )
    return (
        "Populations: "
        + "; ".join(f"`{pop.name}`: {pop.description}" for pop in populations)
        + f". Error: the largest absolute error over every cell of every {K}-way "
        f"marginal table against the exact tables of the same users; {seeds_text}. "
        "Columns: `multilinear (default)` = KWayMarginalsLDP with method='chebyshev' "
        "and its defaults (improved: "
        "k = 3, gamma = 0.2 (at k = 3 the exact polynomial), one publicly "
        "sampled coordinate of the multilinear vector per user, piecewise "
        "mechanism); `monomial (paper)` = coefficients='monomial' (seed 001 Alg. "
        "6's vector of all C(p + t, t) monomials, sampled); `monomial, "
        "full_vector (printed)` = the printed protocol, every entry with "
        "Lap(d b / epsilon) (blank at n = 1e6: the library refuses more than "
        f"2^27 report values; {limits}); `exact tables` = non-private "
        "(`histogram_tables`, error 0); `naive RR` = randomized response on every "
        "bit at epsilon / p and channel inversion (`randomized_response_tables`). "
        "Debiased least squares does not apply. Pure epsilon-LDP everywhere "
        "(delta = 0).\n\n"
        "Time to produce every 3-way table (users' randomizers simulated, server, "
        "tables) / the exact tables' time on the same users:\n\n"
        + format_table(times, time_columns)
        + f"\n\nCommand: `{run.command}`."
    )


def order_notes(table, run):
    pop = run.grid.populations[0]
    return (
        f"Population `{pop.name}` ({pop.description}); the largest error over "
        "every cell of every k-way table for each k; "
        + ("one seed" if run.quick else "mean over 2 seeds")
        + ". `gamma = 0`: the exact inclusion-exclusion polynomial; `gamma = 0.2 "
        "(default)`: the Thaler-Ullman-Vadhan polynomial, whose degree t < k "
        "from k = 4 on (below that the two are the same algorithm with the same "
        "noise, hence equal); `naive RR` as in `marginals.md`. "
        f"Command: `{run.command}`."
    )


def features_notes(table, run):
    return (
        "Populations `binary_<p>d` (two-class latent-mixture bits, p features); "
        "largest error over every cell of every 3-way table; "
        + ("one seed" if run.quick else "mean over 2 seeds")
        + ". `vector length d` = sum_{m <= 3} C(p, m), the multilinear vector the "
        "users sample one coordinate of. "
        f"Command: `{run.command}`."
    )


def binary(*features):
    return tuple(POPULATIONS[f"binary_{p}d"] for p in features)


# --------------------------------------------------------- methods compared
MSE, TV = "mse per cell", "mean TV"
METHOD_NAMES = ("chebyshev", "hadamard", "auto (default)")


def method_fit(k, method):
    def fit(data, epsilon, seed):
        est = KWayMarginalsLDP(epsilon=epsilon, k=k, method=method, random_state=seed)
        est.fit(data.X)
        return k, flat_tables(est, subsets_of(data.X.shape[1], k)), est.method_

    return fit


def evaluate_methods(result, data):
    k, tables, chosen = result
    if k not in data.cache:
        data.cache[k] = histogram_tables(data.X, subsets_of(data.X.shape[1], k))
    error = tables - data.cache[k]
    return {
        MSE: float(np.mean(error**2)),
        TV: float(np.mean(0.5 * np.abs(error).sum(axis=1))),
        "chose hadamard": float(chosen == "hadamard"),
    }


def compare_methods(population, quick):
    out = []
    for k in (1, 2, 3):
        for name, method in zip(
            METHOD_NAMES, ("chebyshev", "hadamard", "auto"), strict=True
        ):
            out.append(Method(name, method_fit(k, method), "improved", keys={"k": k}))
    return out


def methods_table(table):
    """Mean +- SE per method and metric; 'auto ok' = within 2 SE of the best."""
    cells = {}
    for r in table:
        key = (r["population"], r["n"], r["epsilon"], r["k"])
        cells.setdefault(key, {})[r["method"]] = r
    rows = []
    for (population, n, epsilon, k), by_method in cells.items():
        row = {"population": population, "n": n, "epsilon": epsilon, "k": k}
        verdicts = []
        for metric, label in ((MSE, "MSE"), (TV, "TV")):
            stats = {}
            for name in METHOD_NAMES:
                r = by_method[name]
                se = r.get(f"{metric} sd", np.nan) / np.sqrt(r["runs"])
                stats[name] = (r[metric], se)
                row[f"{name} {label}"] = f"{r[metric]:.3g} ± {se:.2g}"
            best = min(("chebyshev", "hadamard"), key=lambda m: stats[m][0])
            auto, auto_se = stats["auto (default)"]
            margin = 2 * np.hypot(auto_se, stats[best][1])
            verdicts.append(auto <= stats[best][0] + np.nan_to_num(margin))
        row["auto picks"] = (
            "hadamard"
            if by_method["auto (default)"]["chose hadamard"] == 1.0
            else "chebyshev"
        )
        row["auto ok"] = "yes" if all(verdicts) else "NO"
        rows.append(row)
    columns = ["population", "n", "epsilon", "k"]
    for label in ("MSE", "TV"):
        columns += [f"{name} {label}" for name in METHOD_NAMES]
    return rows, [*columns, "auto picks", "auto ok"]


def methods_notes(table, run):
    grid = run.grid
    seeds = "one seed" if run.quick else f"{grid.repeats} seeds"
    failing = sum(1 for r in methods_table(table)[0] if r["auto ok"] != "yes")
    return (
        "Populations `binary_<p>d` (p correlated bits, a two-class latent "
        f"mixture); n in {list(grid.sizes)}, epsilon in {list(grid.epsilons)}, "
        f"{seeds} per cell (mean ± standard error). `MSE`: the mean squared "
        "error per cell over every cell of every k-way table (all C(p, k) "
        "subsets) against the exact tables of the same users; `TV`: the mean "
        "over tables of the total-variation distance (half the l1 error). "
        "Estimator defaults otherwise (tables projected onto the simplex; the "
        "Chebyshev method with gamma = 0.2, which is the exact polynomial for "
        "k <= 3, multilinear coefficients, piecewise mechanism; the Hadamard "
        "method: one Walsh-Hadamard parity per user by randomized response). "
        "`auto (default)` runs whichever method `predicted_table_error` "
        "predicts better from (p, k, epsilon, n); with the same seed it sends "
        "the same reports as the method it picks, so its row equals that "
        "column. `auto ok`: auto's mean is at most the better method's mean "
        "plus 2 combined standard errors, on both metrics; cells failing: "
        f"{failing}. Pure epsilon-LDP everywhere. Command: `{run.command}`."
    )


SPEC = Benchmark(
    name="bench_marginals",
    description=__doc__.splitlines()[0],
    steps=(
        Experiment(
            name="marginals",
            title="KWayMarginalsLDP: max error over all 3-way marginals",
            methods=methods,
            evaluate=evaluate,
            metrics=(METRIC,),
            full=Grid(
                populations=USERS,
                sizes=(10_000, 100_000, 1_000_000),
                epsilons=(0.5, 1, 2, 4, 8),
                repeats={10_000: 3, 100_000: 3},
            ),
            quick=Grid(populations=USERS, sizes=(5_000, 20_000), epsilons=(1.0, 4.0)),
            notes=notes,
            plot=Plot(
                "max error over all 3-way marginals",
                logy=True,
                keep=lambda r: r["mode"] != "non-private",
            ),
        ),
        Experiment(
            name="marginals_order",
            title="KWayMarginalsLDP: order k of the marginals (max error)",
            methods=order_methods,
            evaluate=evaluate,
            metrics=(METRIC,),
            keys=("k",),
            full=Grid(
                populations=binary(10), sizes=(100_000,), epsilons=(1.0, 4.0), repeats=2
            ),
            quick=Grid(populations=binary(8), sizes=(20_000,), epsilons=(1.0,)),
            notes=order_notes,
        ),
        Experiment(
            name="marginals_features",
            title="KWayMarginalsLDP: number of features p "
            "(max error over 3-way tables)",
            methods=features_methods,
            evaluate=evaluate,
            metrics=(METRIC,),
            keys=("p",),
            full=Grid(
                populations=binary(8, 10, 16, 24),
                sizes=(100_000,),
                epsilons=(1.0,),
                repeats=2,
            ),
            quick=Grid(populations=binary(8, 12), sizes=(20_000,), epsilons=(1.0,)),
            notes=features_notes,
            table=features_table,
        ),
        Experiment(
            name="marginals_methods",
            title="KWayMarginalsLDP: Chebyshev, Hadamard and 'auto' (k-way tables)",
            methods=compare_methods,
            evaluate=evaluate_methods,
            metrics=(MSE, TV, "chose hadamard"),
            keys=("k",),
            full=Grid(
                populations=binary(8, 12, 16),
                sizes=(10_000, 100_000, 1_000_000),
                epsilons=(0.5, 1, 2, 4),
                repeats=3,
            ),
            quick=Grid(populations=binary(8), sizes=(20_000,), epsilons=(1.0,)),
            notes=methods_notes,
            table=methods_table,
        ),
    ),
    options=(
        (
            "--experiments",
            {
                "nargs": "+",
                "help": "run only these experiments (marginals, marginals_order, "
                "marginals_features, marginals_methods)",
            },
        ),
        (
            "--recheck-seeds",
            {
                "type": int,
                "default": 100,
                "help": "fresh seeds for the marginals_methods cells whose 'auto ok' is NO",
            },
        ),
    ),
)

def recheck_methods(reports, run):
    """Rerun every cell of ``marginals_methods`` whose 'auto ok' is NO on fresh seeds.

    The table tests 108 cells at 2 standard errors on two metrics with 3
    seeds (the k = 1 tables of 8 bits have heavy-tailed errors): a chance
    "NO" is expected. Each failing cell runs again, all three methods, on
    ``--recheck-seeds`` seeds after the table's; its verdict becomes the
    recheck's, and ``marginals_methods_check.md`` lists the numbers with
    the predicted MSE per cell (``predicted_table_error``, uniform records).
    """
    (report,) = reports
    failing = [r for r in report.rows if r["auto ok"] == "NO"]
    if run.quick or not failing:
        return reports
    grid = run.grid
    first = run.seed + grid.repeats
    seeds = list(range(first, first + run.options.recheck_seeds))
    checked = []
    for cell in failing:
        population = POPULATIONS[cell["population"]]
        methods = [
            m for m in compare_methods(population, False) if m.keys["k"] == cell["k"]
        ]
        rows = run_grid(
            population,
            methods,
            evaluate_methods,
            sizes=(cell["n"],),
            epsilons=(cell["epsilon"],),
            seeds=seeds,
        )
        keys = ("population", "n", "epsilon", "k", "method", "mode")
        table = aggregate(rows, [MSE, TV, "chose hadamard"], keys=keys)
        (row,), _ = methods_table(table)
        p = population.params["n_features"]
        for method in ("chebyshev", "hadamard"):
            randomizer = KWayMarginalsLDP(
                epsilon=cell["epsilon"], k=cell["k"], method=method
            ).make_randomizer(p, n_users=cell["n"])
            variance, bias = predicted_table_error(randomizer, cell["n"])
            row[f"predicted {method} MSE"] = f"{(variance + bias) / 2 ** cell['k']:.3g}"
        row["seeds"] = len(seeds)
        checked.append(row)
        cell["auto ok"] = f"NO; recheck ({len(seeds)} seeds): {row['auto ok']}"
    columns = list(checked[0])
    check = Report(
        "marginals_methods_check",
        "KWayMarginalsLDP: cells of marginals_methods rerun on fresh seeds",
        checked,
        columns,
        "Every cell of `marginals_methods.md` whose `auto ok` was NO, rerun for "
        f"all three methods on {len(seeds)} fresh seeds (from {first} on); "
        "columns as in that table, mean ± standard error over these seeds. "
        "`predicted ... MSE`: `predicted_table_error` (variance plus squared "
        "bias of one k-way table for uniform records, per cell), what "
        f"method='auto' compares. Command: `{run.command} --experiments "
        f"marginals_methods --recheck-seeds {len(seeds)}`.",
    )
    failing_after = sum(1 for r in report.rows if not r["auto ok"].endswith("yes"))
    report.notes += (
        f" Cells failing at {grid.repeats} seeds were rerun on "
        f"{len(seeds)} fresh seeds (`NO; recheck (S seeds): ...`, numbers in "
        f"`marginals_methods_check.md`); cells failing after the recheck: "
        f"{failing_after}."
    )
    return [report, check]


def _selected(experiment):
    def step(run):
        wanted = getattr(run.options, "experiments", None)
        if wanted and experiment.name not in wanted:
            return []
        reports = experiment(run)
        if experiment.name == "marginals_methods":
            grid = experiment.quick if run.quick else experiment.full
            reports = recheck_methods(reports, dataclasses.replace(run, grid=grid))
        return reports

    return step


SPEC = dataclasses.replace(SPEC, steps=tuple(_selected(e) for e in SPEC.steps))

if __name__ == "__main__":
    main(SPEC)
