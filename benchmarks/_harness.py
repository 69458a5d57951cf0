"""The one harness every benchmark script runs through.

A script declares a :class:`Benchmark`: its steps are :class:`Experiment`
grids (methods x populations x n x epsilon x seeds, aggregated into one
Markdown table and optionally a plot) or, for work of another shape, custom
callables ``step(run) -> [Report, ...]``. It ends with
``if __name__ == "__main__": main(SPEC)``; :func:`main` parses the command
line (``--quick``, ``--seed``, ``--no-save`` and the script's own options),
runs the steps and writes every :class:`Report` (printed, and saved under
``docs/benchmarks/`` or, with ``--quick``, ``benchmarks/results/quick/``).

A long grid is sharded by population over processes: each runs
``--populations NAME ... --rows DIR`` (its fits are saved under ``DIR``)
and the one that finds every population's rows writes the table; the
table is the same as the single command's (same seeds).
"""

import argparse
import dataclasses
import json
import time
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks._tables import aggregate, format_table, pivot, pyplot, utility_figure

OUTPUT_DIR = Path(__file__).resolve().parent.parent / "docs" / "benchmarks"
#: Where ``--quick`` (smoke) runs write, so they never overwrite the full results.
QUICK_OUTPUT_DIR = Path(__file__).resolve().parent / "results" / "quick"


def timed(fn, *args, measure_memory=False, **kwargs):
    """Run ``fn``; return (result, seconds, peak MiB of Python allocations or nan)."""
    if measure_memory:
        tracemalloc.start()
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    seconds = time.perf_counter() - start
    peak = np.nan
    if measure_memory:
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return result, seconds, peak


# ------------------------------------------------------------------ grids
@dataclass
class Method:
    """One line of a benchmark: how to fit it and where it runs.

    ``fit(data, epsilon, seed)`` returns whatever the experiment's
    ``evaluate`` takes. ``mode`` is 'improved' (the library's default
    configuration), 'paper' (the seed paper's configuration, as printed or
    as corrected), 'baseline' (naive, debiased least squares, ...) or
    'non-private' (fitted once per population draw; ``epsilon`` is None).
    ``max_n``, ``epsilons`` and ``where(n, epsilon) -> bool`` restrict where
    the method runs (the table notes must say why). ``keys`` are added to
    each of its rows (an ablation's parameter, a column of its table).
    """

    name: str
    fit: Callable
    mode: str = "improved"
    max_n: int | None = None
    epsilons: tuple | None = None
    where: Callable | None = None
    keys: dict = field(default_factory=dict)

    def runs_at(self, n, epsilon):
        if self.max_n is not None and n > self.max_n:
            return False
        if (
            self.where is not None
            and epsilon is not None
            and not self.where(n, epsilon)
        ):
            return False
        if self.mode == "non-private":
            return epsilon is None
        if epsilon is None:
            return False
        return self.epsilons is None or epsilon in self.epsilons


@dataclass
class Data:
    """One draw of a population: training users and held-out users."""

    X: np.ndarray
    y: np.ndarray | None
    X_test: np.ndarray
    y_test: np.ndarray | None
    population: object
    seed: int
    cache: dict = field(default_factory=dict)

    @property
    def n(self):
        return self.X.shape[0]


def run_grid(
    population, methods, evaluate, *, sizes, epsilons, seeds=(0,), n_test=None
):
    """Fit every method on every (n, epsilon, seed) and evaluate it.

    ``seeds`` is a sequence or a callable ``n -> sequence`` (fewer repeats at
    large n). Each fit is timed; ``time ratio`` divides by the first
    non-private method's fit time on the same draw. Returns one row per fit:
    population, n, epsilon ('inf' for non-private), method, mode, the
    method's ``keys``, seed, seconds, time ratio and the metrics
    ``evaluate(result, data)`` returns. ``n_test`` overrides the
    population's held-out size (0: none, for exact population quantities).
    """
    rows = []
    for n in sizes:
        for seed in seeds(n) if callable(seeds) else seeds:
            data = Data(*population.train_test(n, seed, n_test), population, seed)
            reference_seconds = None
            for epsilon in (None, *epsilons):
                for method in methods:
                    if not method.runs_at(data.n, epsilon):
                        continue
                    result, seconds, _ = timed(method.fit, data, epsilon, seed)
                    if method.mode == "non-private" and reference_seconds is None:
                        reference_seconds = seconds
                    row = {
                        "population": population.name,
                        "n": data.n,
                        "epsilon": "inf" if epsilon is None else epsilon,
                        "method": method.name,
                        "mode": method.mode,
                        **method.keys,
                        "seed": seed,
                        **evaluate(result, data),
                        "seconds": seconds,
                        "time ratio": seconds / reference_seconds
                        if reference_seconds
                        else np.nan,
                    }
                    rows.append(row)
                    print(
                        {k: v for k, v in row.items() if k != "population"}, flush=True
                    )
    return rows


@dataclass
class Grid:
    """Where an experiment runs: populations, numbers of users, epsilons,
    and repeats (consecutive seeds from ``--seed``: a count, or ``{n:
    count}`` with one seed at every other n). ``by_population`` maps a
    population's name to the grid it runs instead (its ``populations`` is
    unused): a population capped by memory, a data set too small for 1e6
    users."""

    populations: tuple = ()
    sizes: tuple = ()
    epsilons: tuple = ()
    repeats: int | dict = 1
    by_population: dict = field(default_factory=dict)

    def seeds(self, base=0):
        """``n -> seeds`` for :func:`run_grid`."""

        def seeds(n):
            repeats = self.repeats
            count = repeats.get(n, 1) if isinstance(repeats, dict) else repeats
            return [base + k for k in range(count)]

        return seeds

    def of(self, population):
        return self.by_population.get(population.name, self)


# ------------------------------------------------------------------ specs
@dataclass(frozen=True)
class Run:
    """What one invocation asked for; every step and note reads it.

    ``grid`` is the grid of the experiment being written (set by
    :class:`Experiment` for its ``notes`` and ``title``).
    """

    quick: bool = False
    seed: int = 0
    save: bool = True
    command: str = ""
    options: argparse.Namespace = field(default_factory=argparse.Namespace)
    grid: Grid | None = None

    def runs_population(self, name):
        """Whether this invocation fits ``name`` (``--populations``)."""
        wanted = getattr(self.options, "populations", None)
        return wanted is None or name in wanted

    @property
    def directory(self):
        """``docs/benchmarks`` for full runs, ``benchmarks/results/quick`` for quick."""
        return QUICK_OUTPUT_DIR if self.quick else OUTPUT_DIR


@dataclass
class Report:
    """One Markdown table (``<name>.md``), optionally a figure (``<name>.png``,
    drawn by ``figure()`` only when saving) and ``on_saved(path)``, called
    after the table is written."""

    name: str
    title: str
    rows: list
    columns: list
    notes: str = ""
    figure: Callable | None = None
    on_saved: Callable | None = None


@dataclass
class Plot:
    """The utility plot of an experiment: its first metric against epsilon
    (``_tables.utility_figure``), on the rows of the aggregated table that
    ``keep(row)`` accepts."""

    ylabel: str
    logy: bool = False
    keep: Callable | None = None


@dataclass
class Experiment:
    """One grid and the table (and plot) it writes as ``<name>.md``.

    ``methods(population, quick)`` lists the :class:`Method` s run on one
    population, ``evaluate(result, data)`` the metrics of one fit.
    ``prepare(rows)`` may add metrics that need the other rows of the same
    draw (an excess over a reference) before ``metrics`` are averaged over
    seeds. ``keys`` name the extra row keys the methods carry (an
    ablation's parameter); they become columns. The table is the pivot of
    the first metric unless ``table(aggregated) -> (rows, columns)`` is
    given. ``title`` is a string or ``title(run)``, ``notes`` a string or
    ``notes(aggregated, run)``. ``n_test=0``: no held-out users (the metric
    is an exact population quantity).
    """

    name: str
    title: str | Callable
    methods: Callable
    evaluate: Callable
    metrics: tuple
    full: Grid
    quick: Grid
    notes: str | Callable = ""
    keys: tuple = ()
    prepare: Callable | None = None
    table: Callable | None = None
    plot: Plot | None = None
    n_test: int | None = None

    def tabulate(self, rows):
        """``(aggregated, (table rows, columns))`` of the fits' ``rows``:
        ``prepare``, the mean and spread over seeds, then the page's table."""
        if self.prepare is not None:
            rows = self.prepare(rows)
        keys = ("population", "n", "epsilon", *self.keys, "method", "mode")
        table = aggregate(rows, list(self.metrics), keys=keys)
        if self.table is None:
            return table, pivot(
                table, self.metrics[0], keys=("n", "epsilon", *self.keys)
            )
        return table, self.table(table)

    def __call__(self, run):
        grid = self.quick if run.quick else self.full
        fits, missing = {}, []
        for population in grid.populations:  # this shard's populations first
            if not run.runs_population(population.name):
                continue
            here = grid.of(population)
            grown = run_grid(
                population,
                self.methods(population, run.quick),
                self.evaluate,
                sizes=here.sizes,
                epsilons=here.epsilons,
                seeds=here.seeds(run.seed),
                n_test=self.n_test,
            )
            shard = _shard_file(run, self.name, population.name)
            if shard is not None:
                _write_rows(shard, grown)
            fits[population.name] = grown
        for population in grid.populations:  # then the other shards' rows
            if run.runs_population(population.name):
                continue
            shard = _shard_file(run, self.name, population.name)
            if shard is not None and shard.exists():
                fits[population.name] = _read_rows(shard)
            else:
                missing.append(population.name)
        if missing:
            print(
                f"{self.name}: no rows yet for {', '.join(missing)} "
                "(run them with --populations ... --rows DIR); table not written"
            )
            return []
        rows = [row for p in grid.populations for row in fits[p.name]]
        table, (out, columns) = self.tabulate(rows)
        run = dataclasses.replace(run, grid=grid)
        figure = None
        if self.plot is not None:
            plot = self.plot
            kept = [r for r in table if plot.keep is None or plot.keep(r)]

            def figure():
                return utility_figure(
                    kept, self.metrics[0], ylabel=plot.ylabel, logy=plot.logy
                )

        return [
            Report(
                self.name,
                self.title(run) if callable(self.title) else self.title,
                out,
                columns,
                self.notes(table, run) if callable(self.notes) else self.notes,
                figure,
            )
        ]


@dataclass
class Benchmark:
    """A benchmark script: its module under ``benchmarks/`` (``'bench_glm'``,
    ``'papers.seed002_dp_svrg_gap'``), a one-line description, its steps
    (:class:`Experiment` s or callables ``step(run) -> [Report, ...]``), the
    warning categories silenced while they run, and its own command-line
    options as ``(flag, argparse keyword arguments)``."""

    name: str
    description: str
    steps: tuple
    ignore: tuple = ()
    options: tuple = ()


def _shard_file(run, step, population):
    """Where ``--rows DIR`` keeps one population's fits of one step."""
    directory = getattr(run.options, "rows", None)
    if directory is None:
        return None
    kind = "quick" if run.quick else "full"
    return Path(directory) / kind / step / f"{population}.json"


def _write_rows(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    plain = [
        {k: v.item() if isinstance(v, np.generic) else v for k, v in r.items()}
        for r in rows
    ]
    path.write_text(json.dumps(plain))


def _read_rows(path):
    # JSON has no tuples: a method's key that was one (an ablation's
    # parameter) must stay hashable for the aggregation.
    return [
        {k: tuple(v) if isinstance(v, list) else v for k, v in row.items()}
        for row in json.loads(path.read_text())
    ]


def write(report, run):
    """Print the table; unless ``--no-save``, write ``<name>.md`` and the figure."""
    table = format_table(report.rows, report.columns)
    print(f"\n## {report.title}\n\n{table}\n")
    if report.notes:
        print(report.notes)
    if not run.save:
        return
    run.directory.mkdir(parents=True, exist_ok=True)
    path = run.directory / f"{report.name}.md"
    path.write_text(f"# {report.title}\n\n{table}\n\n{report.notes}\n")
    if report.figure is not None:
        fig = report.figure()
        fig.savefig(run.directory / f"{report.name}.png", dpi=110, bbox_inches="tight")
        pyplot().close(fig)
    if report.on_saved is not None:
        report.on_saved(path)


def _shard_options(parser):
    """``--populations`` and ``--rows``: a grid sharded over processes."""
    parser.add_argument(
        "--populations",
        nargs="*",
        metavar="NAME",
        help="fit only these populations of the grids (shards: run the others "
        "in other processes with the same --rows DIR; the table is written by "
        "whichever finds every population's rows; no NAME: only read DIR)",
    )
    parser.add_argument(
        "--rows",
        metavar="DIR",
        help="save each population's fits under DIR (and read there the "
        "populations --populations leaves out)",
    )


def main(spec, argv=None):
    """Run a :class:`Benchmark` from the command line."""
    parser = argparse.ArgumentParser(description=spec.description)
    for flag, kwargs in spec.options:
        parser.add_argument(flag, **kwargs)
    parser.add_argument("--quick", action="store_true", help="reduced grid (smoke run)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-save", action="store_true", help="print only")
    names = [getattr(step, "name", None) for step in spec.steps]
    parser.add_argument(
        "--steps",
        nargs="+",
        choices=[name for name in names if name],
        help="run only these steps (pages) of the benchmark",
    )
    grids = any(isinstance(step, Experiment) for step in spec.steps)
    if grids:  # a script without grids may declare its own --populations
        _shard_options(parser)
    args = parser.parse_args(argv)
    if grids and args.populations is not None and args.rows is None:
        parser.error("--populations needs --rows DIR (where the shards meet)")
    run = Run(
        quick=args.quick,
        seed=args.seed,
        save=not args.no_save,
        command=f"python -m benchmarks.{spec.name}"
        + (" --quick" if args.quick else ""),
        options=args,
    )
    with warnings.catch_warnings():
        for category in spec.ignore:
            warnings.simplefilter("ignore", category)
        for step in spec.steps:
            if args.steps and getattr(step, "name", None) not in args.steps:
                continue
            for report in step(run):
                write(report, run)
