"""bench_marginals' recheck: a failing cell of marginals_methods is rerun on fresh seeds."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import bench_marginals  # noqa: E402
from benchmarks._harness import Grid, Report, Run  # noqa: E402


def test_recheck_reruns_only_failing_cells_on_fresh_seeds():
    grid = Grid(populations=bench_marginals.binary(8), sizes=(5_000,), epsilons=(1.0,),
                repeats=3)
    run = Run(command="python -m benchmarks.bench_marginals",
              options=argparse.Namespace(recheck_seeds=3), grid=grid)
    cell = {"population": "binary_8d", "n": 5_000, "epsilon": 1.0, "k": 2, "auto ok": "NO"}
    passing = dict(cell, k=1, **{"auto ok": "yes"})
    table = Report("marginals_methods", "t", [cell, passing], ["population"], "Notes.")
    report, check = bench_marginals.recheck_methods([table], run)
    assert passing["auto ok"] == "yes"
    # k = 2: Hadamard is predicted (and is) far better; 'auto' sends its reports.
    assert cell["auto ok"] == "NO; recheck (3 seeds): yes"
    (row,) = check.rows
    assert (row["population"], row["n"], row["k"], row["seeds"]) == ("binary_8d", 5_000, 2, 3)
    assert row["auto picks"] == "hadamard"
    assert float(row["predicted hadamard MSE"]) < float(row["predicted chebyshev MSE"])
    assert "from 3 on" in check.notes and "cells failing after the recheck: 0" in report.notes
    # Nothing fails: nothing reruns.
    unchanged = [Report("m", "t", [passing], [], "")]
    assert bench_marginals.recheck_methods(unchanged, run) == unchanged
