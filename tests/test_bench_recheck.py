"""benchmarks.recheck re-runs one cell through its table's own code, and
bench_real_gap keeps its draws so one population can be re-run alone."""

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_real_gap import _load_draws, _save_draws  # noqa: E402
from benchmarks.bench_same_reports import BASELINES  # noqa: E402
from benchmarks.recheck import FLAGGED, recheck  # noqa: E402


def test_a_grid_cell_is_rerun_with_its_tables_check():
    rows, columns = recheck(
        "bench_sparse", "sparse_regression", "sparse_linear_20d", 2000, 2.0, draws=2
    )
    assert len(rows) == 1 and columns[-1] == "check"
    row = rows[0]
    assert (row["population"], row["n"], row["epsilon"]) == (
        "sparse_linear_20d",
        2000,
        2.0,
    )
    # Every method of the table, as "mean ± standard error" over the 2 draws.
    for method in ("SparseLDPRegressor", "noisy mean", "naive OLS", "debiased LS"):
        mean, se = (float(v) for v in row[method].split(" ± "))
        assert np.isfinite(mean) and se >= 0.0
    assert row["check"] == "ok" or row["check"].startswith("below ")


def test_a_table_without_a_check_column_gets_its_pages_criterion():
    rows, columns = recheck("bench_glm", "glm", "logistic_10d", 2000, 4.0, draws=2)
    assert columns[-1] == "passes" and rows[0]["passes"] in ("yes", "NO")
    assert "debiased LS" in rows[0] and "glm (default)" in rows[0]


def test_a_custom_step_is_rerun_through_its_cell_row():
    rows, columns = recheck(
        "bench_same_reports", "same_reports", "logistic_10d", 2000, 4.0, draws=2
    )
    assert columns[-1] == "verdict" and rows[0]["verdict"] in (
        "ok",
        "BELOW TRIVIAL",
    ) + tuple(f"behind {b}" for b in BASELINES)
    assert len(rows[0]["glm chose"].split("/")) == 2


def test_unknown_steps_and_populations_are_refused():
    with pytest.raises(SystemExit, match="no grid step"):
        recheck("bench_glm", "nope", "logistic_10d", 2000, 4.0, draws=2)
    with pytest.raises(SystemExit, match="unknown population"):
        recheck("bench_glm", "glm", "nope", 2000, 4.0, draws=2)


def test_flagged_cells_name_existing_steps_and_populations():
    from benchmarks._populations import POPULATIONS

    for module, step, population, n, epsilon in FLAGGED:
        assert population in POPULATIONS and n > 0 and epsilon > 0
        with pytest.raises(SystemExit, match="no grid step"):
            recheck(module, step + "_missing", population, n, epsilon, draws=1)


def test_real_gap_draws_survive_a_round_trip(tmp_path):
    path = tmp_path / "draws.json"
    draws = {
        "wine": {
            1: (
                {"GLMLDPClassifier": 0.9, "GLMLDPClassifier chose": "model"},
                {"x": 1.5},
            ),
            0: ({"GLMLDPClassifier": np.float64(0.8), "_p": 13}, {"x": 2.0}),
        }
    }
    _save_draws(path, draws)
    back = _load_draws(path)
    assert sorted(back["wine"]) == [0, 1]
    assert back["wine"][1][0]["GLMLDPClassifier chose"] == "model"
    assert back["wine"][0][0]["GLMLDPClassifier"] == pytest.approx(0.8)
    assert _load_draws(tmp_path / "missing.json") == {}
