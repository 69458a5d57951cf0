"""Shared pieces of the benchmark scripts: grids, timing, memory, tables, plots.

Populations live in :mod:`benchmarks._populations`, baselines in
:mod:`benchmarks._baselines`; a script declares its :class:`Method` list and
an ``evaluate`` function, runs :func:`run_grid`, and writes the result with
:func:`report` (Markdown table) and :func:`plot_utility`.

Every script compares a private estimator with the non-private scikit-learn
model and the naive baseline (users perturb their raw (x, y) with the same
mechanism and epsilon; the server fits scikit-learn on the noisy data), prints
a table, and writes it with a plot under ``docs/benchmarks/``.
"""

import argparse
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

OUTPUT_DIR = Path(__file__).resolve().parent.parent / "docs" / "benchmarks"
#: Where ``--quick`` (smoke) runs write, so they never overwrite the full results.
QUICK_OUTPUT_DIR = Path(__file__).resolve().parent / "results" / "quick"
_QUICK = False


def output_dir():
    """``docs/benchmarks`` for full runs, ``benchmarks/results/quick`` for ``--quick``."""
    return QUICK_OUTPUT_DIR if _QUICK else OUTPUT_DIR


def parse_args(description, extra=()):
    """Common command line: ``--quick`` for a reduced grid, ``--seed``; ``extra``
    is a list of ``(flag, add_argument kwargs)`` for script-specific options."""
    parser = argparse.ArgumentParser(description=description)
    for flag, kwargs in extra:
        parser.add_argument(flag, **kwargs)
    parser.add_argument("--quick", action="store_true", help="reduced grid (smoke run)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-save", action="store_true", help="print only")
    args = parser.parse_args()
    global _QUICK
    _QUICK = bool(args.quick)
    return args


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


def format_table(rows, columns, floatfmt="{:.4g}"):
    """A Markdown table from a list of dicts."""

    def fmt(value):
        if isinstance(value, float | np.floating):
            return floatfmt.format(value)
        return str(value)

    lines = [
        "| " + " | ".join(columns) + " |",
        "| " + " | ".join("---" for _ in columns) + " |",
    ]
    lines += [
        "| " + " | ".join(fmt(row.get(c, "")) for c in columns) + " |" for row in rows
    ]
    return "\n".join(lines)


def report(name, rows, columns, *, title, notes="", save=True):
    """Print the table and write ``docs/benchmarks/<name>.md``."""
    table = format_table(rows, columns)
    print(f"\n## {title}\n\n{table}\n")
    if notes:
        print(notes)
    if save:
        output_dir().mkdir(parents=True, exist_ok=True)
        text = f"# {title}\n\n{table}\n\n{notes}\n"
        (output_dir() / f"{name}.md").write_text(text)
    return table


def save_figure(fig, name):
    """Save a matplotlib figure as ``docs/benchmarks/<name>.png``."""
    output_dir().mkdir(parents=True, exist_ok=True)
    path = output_dir() / f"{name}.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    return path


# ------------------------------------------------------------------ grids
@dataclass
class Method:
    """One line of a benchmark: how to fit it and where it runs.

    ``fit(data, epsilon, seed)`` returns whatever the script's ``evaluate``
    takes. ``mode`` is 'improved' (the library's default configuration),
    'paper' (the seed paper's configuration, as printed or as corrected),
    'baseline' (naive, debiased least squares, ...) or 'non-private' (fitted
    once per population draw; ``epsilon`` is None). ``max_n``,
    ``epsilons`` and ``where(n, epsilon) -> bool`` restrict where the method
    runs (the table notes must say why).
    """

    name: str
    fit: Callable
    mode: str = "improved"
    max_n: int | None = None
    epsilons: tuple | None = None
    where: Callable | None = None

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
    population, n, epsilon ('inf' for non-private), method, mode, seed,
    seconds, time ratio and the metrics ``evaluate(result, data)`` returns.
    ``n_test`` overrides the population's held-out size (0: none, for
    metrics that are exact population quantities).
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


def seeds_by_size(base, counts=None):
    """``n -> seeds`` for :func:`run_grid`: ``counts.get(n, 1)`` consecutive
    seeds from ``base`` (default: 3 at 1e4 users, 2 at 1e5, 1 above), fewer
    repeats where a fit is expensive and its spread small."""
    counts = {10_000: 3, 100_000: 2} if counts is None else counts
    return lambda n: [base + k for k in range(counts.get(n, 1))]


def aggregate(rows, metrics, keys=("population", "n", "epsilon", "method", "mode")):
    """Mean (and standard deviation when repeated) over seeds per ``keys``."""
    groups = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    table = []
    for key, group in groups.items():
        out = dict(zip(keys, key, strict=True))
        for metric in (*metrics, "seconds", "time ratio"):
            values = np.array([r[metric] for r in group], dtype=float)
            out[metric] = float(np.mean(values))
            if len(group) > 1 and metric in metrics:
                out[f"{metric} sd"] = float(np.std(values, ddof=1))
        out["runs"] = len(group)
        table.append(out)
    return table


def pivot(table, metric, keys=("n", "epsilon")):
    """One row per ``keys`` value, one column per method: the utility table.

    Non-private rows (epsilon 'inf') are spread across every epsilon of the
    same n, so each row reads against its reference.
    """
    methods = list(dict.fromkeys(r["method"] for r in table))
    reference = {
        (r["population"], r["n"], r["method"]): r[metric]
        for r in table
        if r["epsilon"] == "inf"
    }
    out = {}
    for r in table:
        if r["epsilon"] == "inf":
            continue
        row = out.setdefault(
            (r["population"], *(r[k] for k in keys)),
            {"population": r["population"], **{k: r[k] for k in keys}},
        )
        row[r["method"]] = r[metric]
    for row in out.values():
        for (population, n, method), value in reference.items():
            if population == row["population"] and n == row["n"]:
                row[method] = value
    columns = ["population", *keys, *methods]
    return list(out.values()), columns


def time_table(table, reference):
    """Time ratios (fit time / the non-private fit's on the same draw), with
    the reference's seconds as a column for scale. ``reference`` is the
    non-private method's name, or a collection of names when it differs by
    population (the column is then called ``non-private s``)."""
    names = {reference} if isinstance(reference, str) else set(reference)
    label = f"{reference} s" if isinstance(reference, str) else "non-private s"
    rows, columns = pivot(table, "time ratio")
    seconds = {
        (r["population"], r["n"]): r["seconds"] for r in table if r["method"] in names
    }
    for row in rows:
        row[label] = seconds.get((row["population"], row["n"]), np.nan)
        for name in names:
            row.pop(name, None)
    columns = [c for c in columns if c not in names] + [label]
    return rows, columns


MODE_STYLE = {
    "improved": "-",
    "paper": "--",
    "baseline": ":",
}


def plot_utility(table, metric, name, *, ylabel=None, logy=False, title=None):
    """Utility against epsilon, one panel per (population, n), one line per
    method (solid: improved, dashed: paper, dotted: baselines); non-private
    references as horizontal black lines. Saved as ``<name>.png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = list(dict.fromkeys((r["population"], r["n"]) for r in table))
    cols = min(3, len(panels))
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False, sharey="row"
    )
    methods = list(dict.fromkeys(r["method"] for r in table))
    colors = {m: f"C{i % 10}" for i, m in enumerate(methods)}
    references = [
        m
        for m in methods
        if any(r["method"] == m and r["epsilon"] == "inf" for r in table)
    ]
    for ax, (population, n) in zip(axes.flat, panels, strict=False):
        here = [r for r in table if r["population"] == population and r["n"] == n]
        for method in methods:
            points = sorted(
                (float(r["epsilon"]), r[metric])
                for r in here
                if r["method"] == method and r["epsilon"] != "inf"
            )
            if points:
                xs, ys = zip(*points, strict=True)
                mode = next(r["mode"] for r in here if r["method"] == method)
                ax.plot(
                    xs,
                    ys,
                    MODE_STYLE.get(mode, "-"),
                    marker="o",
                    ms=3,
                    color=colors[method],
                    label=method,
                )
            for r in here:
                if r["method"] == method and r["epsilon"] == "inf":
                    if logy and not r[metric] > 0:  # exact (error 0): no line
                        continue
                    k = references.index(method)
                    ax.axhline(
                        r[metric],
                        color=("black", "dimgray", "darkgray")[k % 3],
                        ls=("-", "-.", (0, (1, 1)))[k % 3],
                        lw=1,
                        label=method,
                    )
        ax.set_xscale("log", base=2)
        if logy:
            ax.set_yscale("log")
        ax.set_title(f"{population}, n = {n:,}", fontsize=9)
        ax.set_xlabel("epsilon per user")
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel or metric)
    for ax in axes.flat[len(panels) :]:
        ax.axis("off")
    seen = {}
    for ax in axes.flat[: len(panels)]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    fig.tight_layout(rect=(0, 0.08 + 0.03 * (len(seen) // 4), 1, 1))
    fig.legend(
        list(seen.values()), list(seen.keys()), loc="lower center", ncol=4, fontsize=7
    )
    if title:
        fig.suptitle(title)
    path = save_figure(fig, name)
    plt.close(fig)
    return path
