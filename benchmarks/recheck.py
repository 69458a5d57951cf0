"""Re-run one cell of a benchmark table with more draws, through the table's own code.

A table's ``check`` column compares the library default with the baselines
at ``CHECK_STD_ERRORS`` standard errors over 3 draws. Three draws of a
skewed quantity (the R^2 of a noisy intercept is minus a chi-square with
one degree of freedom; an accuracy is a mixture of "the direction was
found" and "it was not") give a standard error that is itself very
uncertain, so a 3-draw check fails now and then on estimators that are the
same in expectation. This script repeats one cell (population, n, epsilon)
with the benchmark's own methods, metrics and table function over more
seeds (data and noise, as the benchmark draws them), and prints the cell's
row: the check with the larger sample. The draws are consecutive seeds
from ``--first`` (default 0), so the benchmark's own 3 draws are among
them::

    python -m benchmarks.recheck bench_sparse sparse_regression \\
        sparse_linear_20d 20000 2 --draws 20

The step is an :class:`~benchmarks._harness.Experiment` (a grid) of the
module's ``SPEC``, or a custom step whose module defines ``cell_row`` and
``COLUMNS`` (``bench_same_reports``); the population is looked up in
:data:`benchmarks._populations.POPULATIONS`.

``python -m benchmarks.recheck --flagged`` re-runs every cell of
:data:`FLAGGED` (the cells the 3-draw tables flag against a baseline) and
writes ``docs/benchmarks/rechecks.md``; ``--only MODULE ...`` re-runs the
cells of those modules and keeps the others' last results (each cell's
row is kept in ``docs/benchmarks/rechecks.json``).
"""

import argparse
import importlib
import json
import warnings

from benchmarks._harness import OUTPUT_DIR, Experiment, run_grid
from benchmarks._populations import POPULATIONS
from benchmarks._tables import criterion_table, format_table


def recheck(module, step, population, n, epsilon, draws, first=0):
    """``(rows, columns)`` of the cell's table over ``draws`` seeds.

    ``step`` names an :class:`~benchmarks._harness.Experiment` of the
    module's ``SPEC`` (its methods, metrics and table function are run on
    the one cell), or the module's own step when the module defines
    ``cell_row(population, n, epsilon, seeds)`` and ``COLUMNS`` (a custom
    step: :mod:`benchmarks.bench_same_reports`).
    """
    bench = importlib.import_module(f"benchmarks.{module}")
    if population not in POPULATIONS:
        raise SystemExit(f"unknown population {population!r}")
    seeds = range(first, first + draws)
    grids = {s.name: s for s in bench.SPEC.steps if isinstance(s, Experiment)}
    with warnings.catch_warnings():
        for category in bench.SPEC.ignore:
            warnings.simplefilter("ignore", category)
        if step not in grids:
            custom = [getattr(s, "__name__", None) for s in bench.SPEC.steps]
            if not hasattr(bench, "cell_row") or step not in custom:
                raise SystemExit(
                    f"{module} has no grid step {step!r} (its grids: {list(grids)})"
                )
            return [bench.cell_row(population, n, epsilon, seeds)], bench.COLUMNS
        experiment = grids[step]
        rows = run_grid(
            POPULATIONS[population],
            experiment.methods(POPULATIONS[population], False),
            experiment.evaluate,
            sizes=(n,),
            epsilons=(epsilon,),
            seeds=seeds,
            n_test=experiment.n_test,
        )
    table, (rows, columns) = experiment.tabulate(rows)
    has_check = any(c in columns for c in ("check", "verdict", "passes"))
    if not has_check and all(
        hasattr(bench, name) for name in ("DEFAULT", "BASELINES", "MAJORITY")
    ):
        # The page's "default against the baselines" section, on this cell.
        checks, check_columns = criterion_table(
            table,
            experiment.metrics[0],
            default=bench.DEFAULT,
            baselines=bench.BASELINES,
            floor=bench.MAJORITY,
        )
        for row in rows:
            row.update(checks[0])
        columns = [*columns, *(c for c in check_columns if c not in columns)]
    return rows, columns


#: The cells flagged by the 3-draw ``check`` / verdict columns of the
#: supervised tables, and cells they flagged before a change to the
#: estimator (the kernel ridge ones): (module, step, population, n, epsilon).
FLAGGED = (
    ("bench_glm", "glm", "breast_cancer", 10_000, 0.5),
    ("bench_glm", "glm", "logistic_10d", 100_000, 8.0),
    ("bench_glm", "glm", "logistic_10d", 1_000_000, 1.0),
    ("bench_hinge", "hinge", "linear_rule_10d", 100_000, 4.0),
    ("bench_hinge", "hinge", "linear_rule_10d", 1_000_000, 8.0),
    ("bench_same_reports", "same_reports", "digits_binary", 100_000, 4.0),
    ("bench_sparse", "sparse_regression", "sparse_linear_20d", 20_000, 2.0),
    ("bench_sparse", "sparse_regression", "sparse_linear_100d", 200_000, 4.0),
    # Behind debiased least squares on PrivUnitG reports (issue 16), the
    # signal test's veto before the held-out James-Stein shrinkage.
    ("bench_sparse", "sparse_regression", "sparse_linear_20d", 200_000, 1.0),
    ("bench_sparse", "sparse_regression", "sparse_linear_100d", 20_000, 0.5),
    ("bench_sparse", "sparse_regression", "sparse_linear_100d", 20_000, 1.0),
    ("bench_sparse", "sparse_regression", "sparse_linear_100d", 20_000, 2.0),
    ("bench_sparse", "sparse_regression", "sparse_linear_100d", 200_000, 1.0),
    ("bench_kernel_ridge", "kernel_ridge", "nonlinear_5d", 200_000, 2.0),
    ("bench_kernel_ridge", "kernel_ridge", "diabetes_5d", 200_000, 2.0),
    # Plain (x, y) reports since the predicted-risk collection rule (it had
    # random features before, within the 3-draw noise of least squares).
    ("bench_kernel_ridge", "kernel_ridge", "diabetes_5d", 200_000, 4.0),
)
#: Draws per re-checked cell.
DRAWS = 20
RESULTS = OUTPUT_DIR / "rechecks.json"


def _key(cell):
    return "/".join(str(part) for part in cell)


def recheck_flagged(only=None, draws=DRAWS):
    """Re-run the :data:`FLAGGED` cells (of the modules in ``only``, or all),
    keep every cell's last row in ``rechecks.json`` and write ``rechecks.md``."""
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    for cell in FLAGGED:
        if only and cell[0] not in only:
            continue
        rows, columns = recheck(*cell, draws)
        results[_key(cell)] = {"rows": rows, "columns": columns, "draws": draws}
        print(format_table(rows, columns), flush=True)
        RESULTS.write_text(json.dumps(results, indent=1, default=str) + "\n")
    sections = []
    for cell in FLAGGED:
        if _key(cell) not in results:
            continue
        kept = results[_key(cell)]
        module, step, population, n, epsilon = cell
        sections.append(
            f"## `{step}`: {population}, n = {n:,}, epsilon = {epsilon:g}\n\n"
            f"{kept['draws']} draws (seeds 0..{kept['draws'] - 1}). Command: "
            f"`python -m benchmarks.recheck {module} {step} {population} {n} "
            f"{epsilon:g} --draws {kept['draws']}`.\n\n"
            + format_table(kept["rows"], kept["columns"])
        )
    (OUTPUT_DIR / "rechecks.md").write_text(
        "# Flagged benchmark cells, re-run with more draws\n\n"
        "Each supervised table runs every cell with 3 draws (data and noise "
        "seeds) and flags the default when it is behind a baseline by more "
        "than 2 standard errors. The cells it flags are re-run here through "
        "the table's own code (its methods, metrics and check) with "
        f"{draws} draws; the first 3 are the table's. A cell that passes "
        "here was flagged by the noise of 3 draws; one that still fails is "
        "behind, and its estimator page says why.\n\n"
        "Command: `python -m benchmarks.recheck --flagged`.\n\n"
        + "\n\n".join(sections)
        + "\n"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flagged", action="store_true", help="every FLAGGED cell")
    parser.add_argument("--only", nargs="+", help="with --flagged: these modules")
    parser.add_argument("module", nargs="?", help="benchmark module, e.g. bench_sparse")
    parser.add_argument("step", nargs="?", help="its step (table name)")
    parser.add_argument("population", nargs="?")
    parser.add_argument("n", nargs="?", type=lambda s: int(float(s)))
    parser.add_argument("epsilon", nargs="?", type=float)
    parser.add_argument("--draws", type=int, default=DRAWS)
    parser.add_argument("--first", type=int, default=0, help="first seed")
    args = parser.parse_args(argv)
    if args.flagged:
        recheck_flagged(args.only, args.draws)
        return
    if args.epsilon is None:
        parser.error("give MODULE STEP POPULATION N EPSILON, or --flagged")
    rows, columns = recheck(
        args.module,
        args.step,
        args.population,
        args.n,
        args.epsilon,
        args.draws,
        args.first,
    )
    print(
        f"\n{args.module} / {args.step}: {args.population}, n = {args.n:,}, "
        f"epsilon = {args.epsilon:g}, seeds {args.first}..{args.first + args.draws - 1}"
    )
    print(format_table(rows, columns))


if __name__ == "__main__":
    main()
