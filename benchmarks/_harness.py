"""Shared pieces of the benchmark scripts: timing, memory, tables, plots.

Every script compares a private estimator with the non-private scikit-learn
model and the naive baseline (users perturb their raw (x, y) with the same
mechanism and epsilon; the server fits scikit-learn on the noisy data), prints
a table, and writes it with a plot under ``docs/benchmarks/``.
"""

import argparse
import time
import tracemalloc
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
