"""DPSVRGClassifier (central DP): accuracy against n and epsilon.

Two experiments. ``dp_svrg``: held-out accuracy on the shared populations
``classification_54d`` and ``digits_binary``, eps in (0.5, 1, 2, 4, 8), n in
(1e4, 1e5, 1e6), delta = 1e-7 (replace-one), written to
``docs/benchmarks/dp_svrg.md``:

- non-private scikit-learn ``LogisticRegression`` with ``C = 1 / (n 1e-4)``;
- the *local* baselines (this is a central-DP estimator: the curator sees
  the rows; the local baselines show what central DP buys): ``naive``
  (each user releases (x, y) with the Gaussian mechanism at the same
  (eps, delta); ``LogisticRegression`` on the noisy rows, label = sign of
  the noisy label) and debiased least squares on the same reports;
- improved mode (library default): ``DPSVRGClassifier()``
  (``solver='auto'``: heavy-ball DP-GD whose steps, momentum and ridge
  follow from public quantities, RDP accountant); variants ``DP-SVRG++`` and
  ``DP-GD RDP`` (``solver='gd'``, 100 steps);
- paper mode: ``solver='gd', calibration='paper'``: DP-GD / DP-PGD with
  seed 004's closed-form zCDP noise (typo fixed). ``calibration='paper'``
  exists only for DP-GD: seed 002's printed DP-SVRG noise has an
  unspecified constant.

``dp_svrg_diffprivlib``: side by side with diffprivlib's
``LogisticRegression`` (objective perturbation, pure epsilon, ``C = 1``,
``data_norm = 1``; run in its own environment through
``benchmarks/external/diffprivlib_logistic.py``, on the same draws) on the
real-data populations ``breast_cancer`` and ``digits_binary``, eps in (0.1,
0.5, 1, 2, 4, 8), n in (1e4, 1e5, 1e6), 3 seeds per cell, with the
non-private ``LogisticRegression(C=1)`` and the majority predictor.
``--only diffprivlib`` runs this experiment alone; ``--max-n 1e5`` limits
it to the sizes up to 1e5 (the notes of the table say which ran).

Seed 002's own experiment (optimality gap of DP-SVRG, DP-SVRG++ and DP-GD
against the budget) is :mod:`benchmarks.papers.seed002_dp_svrg_gap`.

``classification_54d`` is drawn with the structure of
``make_classification`` fixed: the shared sampler once redrew the clusters
at every call, so training and held-out users came from different
distributions.

    python -m benchmarks.bench_dp_svrg [--quick] [--only {dp_svrg,diffprivlib}]
"""

import dataclasses
import json
import os
import subprocess
from pathlib import Path

import numpy as np
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from benchmarks._baselines import (
    DELTA,
    DELTA_NOTE,
    debiased_classifier,
    naive_classifier,
    nonprivate,
)
from benchmarks._harness import Benchmark, Experiment, Grid, Method, Plot, main
from benchmarks._populations import POPULATIONS
from benchmarks._tables import format_table, time_table
from sklearn_ldp import DPSVRGClassifier

ALPHA = 1e-4
REFERENCE = "LogisticRegression"
#: At n = 1e6 (minutes per fit) the paper mode runs at these epsilons only
#: and the variants not at all.
LARGE_N, LARGE_N_PAPER_EPSILONS = 1_000_000, (1.0, 4.0)
USERS = (POPULATIONS["classification_54d"], POPULATIONS["digits_binary"])


def logistic(n):
    return LogisticRegression(C=1.0 / (n * ALPHA), max_iter=1000)


def dp_svrg(**params):
    def fit(data, epsilon, seed):
        return DPSVRGClassifier(
            epsilon=epsilon,
            delta=DELTA,
            data_norm=data.population.data_norm,
            classes=(0, 1),  # public label set of both populations
            random_state=seed,
            **params,
        ).fit(data.X, data.y)

    return fit


def paper_epsilons(n, epsilon):
    return n < LARGE_N or epsilon in LARGE_N_PAPER_EPSILONS


def methods(population, quick):
    out = [
        Method(
            REFERENCE,
            lambda data, e, s: nonprivate(logistic(data.n), data.X, data.y),
            "non-private",
        ),
        Method(
            "naive (local)", naive_classifier(lambda data: logistic(data.n)), "baseline"
        ),
        Method("debiased LS (local)", debiased_classifier, "baseline"),
        Method("DP-SVRG (default)", dp_svrg()),
    ]
    if not quick:
        out += [
            Method(
                "DP-SVRG++",
                dp_svrg(solver="svrg++", alpha=ALPHA),
                max_n=LARGE_N // 10,
            ),
            Method("DP-GD RDP", dp_svrg(solver="gd", alpha=ALPHA), max_n=LARGE_N // 10),
        ]
    out.append(
        Method(
            "DP-GD zCDP (paper)",
            dp_svrg(solver="gd", calibration="paper", alpha=ALPHA),
            "paper",
            where=paper_epsilons,
        )
    )
    return out


def evaluate(model, data):
    return {"accuracy": model.score(data.X_test, data.y_test)}


def notes(table, run):
    times, time_columns = time_table(table, REFERENCE)
    populations = run.grid.populations
    descriptions = "; ".join(f"`{p.name}`: {p.description}" for p in populations)
    return (
        f"Populations: {descriptions}. data_norm = 1, test accuracy on "
        f"{populations[0].n_test:,} held-out users. delta = {DELTA:g} ({DELTA_NOTE}) "
        f"(replace-one for the central estimators, per user for the local "
        f"baselines), alpha = {ALPHA} (C = 1 / (n alpha)) for the reference and "
        "the variants, alpha = 'auto' for the default. Seeds (data and "
        "noise): "
        + ("1." if run.quick else "3 at every n (means over seeds).")
        + f"\n\nColumns: `{REFERENCE}` (non-private, same penalty); `naive "
        "(local)` (each user releases (x, y) with the Gaussian mechanism at the "
        "same (eps, delta); LogisticRegression on the noisy rows labelled by "
        "the sign of the noisy label); `debiased LS (local)` (debiased least "
        "squares on the same reports, sign of the fit); `DP-SVRG (default)` "
        "(improved mode: DPSVRGClassifier defaults: alpha = 'auto', 4 epochs "
        "whose length and the regularization follow from n, d, eps, delta, "
        "data_norm; RDP accountant); "
        "`DP-GD zCDP (paper)` (solver = 'gd', calibration = 'paper': 100 noisy "
        "full-gradient steps, seed 004's zCDP closed form)"
        + (
            ""
            if run.quick
            else "; `DP-SVRG++` (solver = 'svrg++', 6 doubling epochs) and "
            "`DP-GD RDP` (solver = 'gd', RDP accountant): improved-mode variants."
            "\n\nWhere methods did not run (empty cells), to keep the run "
            "near 12 minutes: at n = 1e6 (one private fit takes 20 to 30 s on "
            "1e6 x 54 rows) the paper mode runs at eps 1 and 4 only and the "
            "variants not at all; digits_binary stops at n = 1e5 (its users "
            "are resampled from 1,500 distinct training images, so more users "
            "add no information to the non-private model)"
        )
        + ".\n\n## Fit time\n\nFit time divided by LogisticRegression's on the "
        "same draw (mean over seeds); the last column is LogisticRegression's "
        "time in seconds, for scale (shared 2-core machine, OMP_NUM_THREADS=1: "
        "absolute times are noisy).\n\n"
        + format_table(times, time_columns)
        + f"\n\nCommand: `{run.command}`."
    )


# ------------------------------------------------- side by side: diffprivlib
#: The interpreter of the environment where diffprivlib imports
#: (benchmarks/README.md); override with DIFFPRIVLIB_PYTHON.
DIFFPRIVLIB_PYTHON = Path(
    os.environ.get(
        "DIFFPRIVLIB_PYTHON",
        Path(__file__).resolve().parent.parent / ".venv-diffprivlib/bin/python",
    )
)
DIFFPRIVLIB = "diffprivlib LogisticRegression"
DEFAULT = "DP-SVRG (default)"
MAJORITY = "majority"
NONPRIVATE = "LogisticRegression(C=1)"
REAL = (POPULATIONS["breast_cancer"], POPULATIONS["digits_binary"])
DIFFPRIVLIB_EPSILONS = (0.1, 0.5, 1.0, 2.0, 4.0, 8.0)


def diffprivlib_available():
    return DIFFPRIVLIB_PYTHON.exists()


def diffprivlib_fit(epsilons):
    """diffprivlib at every epsilon of one draw, in one subprocess (cached)."""

    def fit(data, epsilon, seed):
        if "diffprivlib" not in data.cache:
            output = subprocess.run(
                [
                    str(DIFFPRIVLIB_PYTHON),
                    "-m",
                    "benchmarks.external.diffprivlib_logistic",
                    "--population",
                    data.population.name,
                    "--n",
                    str(data.n),
                    "--seed",
                    str(seed),
                    "--epsilons",
                    *map(str, epsilons),
                ],
                cwd=Path(__file__).resolve().parent.parent,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            data.cache["diffprivlib"] = {
                row["epsilon"]: row["accuracy"] for row in json.loads(output)
            }
        return data.cache["diffprivlib"][epsilon]

    return fit


def real_methods(epsilons):
    def methods(population, quick):
        out = [
            Method(
                NONPRIVATE,
                lambda data, e, s: nonprivate(
                    LogisticRegression(max_iter=1000), data.X, data.y
                ),
                "non-private",
            ),
            Method(
                MAJORITY,
                lambda data, e, s: nonprivate(
                    DummyClassifier(strategy="most_frequent"), data.X, data.y
                ),
                "non-private",
            ),
            Method(DEFAULT, dp_svrg()),
        ]
        if diffprivlib_available():
            out.append(Method(DIFFPRIVLIB, diffprivlib_fit(epsilons), "baseline"))
        return out

    return methods


def evaluate_any(result, data):
    """Accuracy of a fitted model, or the accuracy diffprivlib reported."""
    if isinstance(result, float):
        return {"accuracy": result}
    return evaluate(result, data)


def mean_se(row):
    se = row.get("accuracy sd", np.nan) / np.sqrt(row["runs"])
    return f"{row['accuracy']:.4f} ± {se:.4f}"


def side_by_side(table):
    """Mean ± standard error per method; DP-SVRG minus diffprivlib, in SEs."""
    cells = {(r["population"], r["n"], r["epsilon"], r["method"]): r for r in table}
    keys = dict.fromkeys(
        (r["population"], r["n"], r["epsilon"]) for r in table if r["epsilon"] != "inf"
    )
    columns = ["population", "n", "epsilon", MAJORITY, NONPRIVATE, DIFFPRIVLIB, DEFAULT]
    columns += ["difference", "verdict"]
    rows = []
    for population, n, epsilon in keys:
        row = {"population": population, "n": n, "epsilon": epsilon}
        for method in columns[3:7]:
            found = cells.get((population, n, epsilon, method)) or cells.get(
                (population, n, "inf", method)
            )
            row[method] = mean_se(found) if found else ""
        ours = cells.get((population, n, epsilon, DEFAULT))
        theirs = cells.get((population, n, epsilon, DIFFPRIVLIB))
        if ours and theirs:
            diff = ours["accuracy"] - theirs["accuracy"]
            se = np.hypot(
                ours.get("accuracy sd", np.nan) / np.sqrt(ours["runs"]),
                theirs.get("accuracy sd", np.nan) / np.sqrt(theirs["runs"]),
            )
            row["difference"] = f"{diff:+.4f} ± {se:.4f}"
            row["verdict"] = (
                "ahead" if diff > 2 * se else "tie" if diff >= -2 * se else "behind"
            )
        rows.append(row)
    return rows, columns


def side_by_side_notes(table, run):
    verdicts = side_by_side(table)[0]
    counts = {
        v: sum(r.get("verdict") == v for r in verdicts)
        for v in ("ahead", "tie", "behind")
    }
    descriptions = "; ".join(
        f"`{p.name}`: {p.description}" for p in run.grid.populations
    )
    missing = (
        ""
        if diffprivlib_available()
        else f" diffprivlib was not run: no interpreter at `{DIFFPRIVLIB_PYTHON}` "
        "(see benchmarks/README.md)."
    )
    sizes = ", ".join(f"{n:,}" for n in run.grid.sizes)
    max_n = getattr(run.options, "max_n", None)
    flag = f" --max-n {max_n:g}" if max_n is not None and not run.quick else ""
    return (
        f"Sizes run: n = {sizes}"
        + (f" (`--max-n {max_n:g}`: larger n not run)" if flag else "")
        + f". Populations: {descriptions}. Test accuracy on "
        f"{run.grid.populations[0].n_test:,} held-out users; cells are mean ± "
        f"standard error over {run.grid.repeats} seeds (data and noise). "
        f"`{DEFAULT}`: `DPSVRGClassifier(epsilon, delta={DELTA:g}, "
        "data_norm=1)`, every other parameter at its default (solver = 'auto': "
        "heavy-ball DP-GD with the public step/momentum/ridge rule), "
        "(epsilon, delta)-DP with delta = 1e-7 (replace-one). "
        f"`{DIFFPRIVLIB}`: diffprivlib 0.6's `LogisticRegression(epsilon, "
        "data_norm=1)` (objective perturbation, C = 1, lbfgs with "
        "max_iter = 100), pure epsilon-DP, so its guarantee is stronger by "
        "delta = 1e-7; run through `benchmarks/external/diffprivlib_logistic.py` "
        "in a separate environment on the same draws. "
        f"`{NONPRIVATE}` and `{MAJORITY}` (most frequent training class) are "
        "non-private references. `difference`: DP-SVRG minus diffprivlib ± the "
        "standard error of the difference; `verdict`: ahead / behind when the "
        "difference exceeds two standard errors, tie otherwise. "
        f"Count: {counts['ahead']} ahead, {counts['tie']} tie, "
        f"{counts['behind']} behind.{missing}\n\nCommand: `{run.command}"
        + (f" --only diffprivlib{flag}`." if not run.quick else "`.")
    )


def up_to_max_n(experiment):
    """The experiment on the sizes ``<= --max-n`` only (all of them by default)."""

    def run_step(run):
        max_n = getattr(run.options, "max_n", None)
        if max_n is None or run.quick:
            return experiment(run)
        grid = experiment.full
        sizes = tuple(n for n in grid.sizes if n <= max_n)
        return dataclasses.replace(
            experiment, full=dataclasses.replace(grid, sizes=sizes)
        )(run)

    return run_step


def only(name, step):
    """Run ``step`` unless ``--only`` names another step."""

    def run_step(run):
        chosen = getattr(run.options, "only", None)
        return step(run) if chosen in (None, name) else []

    return run_step


EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0)
REPEATS = 3

SPEC = Benchmark(
    name="bench_dp_svrg",
    description=__doc__.splitlines()[0],
    ignore=(ConvergenceWarning,),
    options=(
        (
            "--only",
            dict(choices=("dp_svrg", "diffprivlib"), help="run one experiment"),
        ),
        (
            "--max-n",
            dict(
                type=float,
                default=None,
                help="diffprivlib experiment: only the sizes up to this n",
            ),
        ),
    ),
    steps=(
        only(
            "dp_svrg",
            Experiment(
                name="dp_svrg",
                title="DPSVRGClassifier (central DP): test accuracy",
                methods=methods,
                evaluate=evaluate,
                metrics=("accuracy",),
                full=Grid(
                    populations=USERS,
                    sizes=(10_000, 100_000, LARGE_N),
                    epsilons=EPSILONS,
                    repeats=REPEATS,
                    # digits_binary: 1,500 distinct training images, resampled.
                    by_population={
                        "digits_binary": Grid(
                            sizes=(10_000, 100_000), epsilons=EPSILONS, repeats=REPEATS
                        )
                    },
                ),
                quick=Grid(
                    populations=USERS, sizes=(2_000, 20_000), epsilons=(1.0, 4.0)
                ),
                notes=notes,
                plot=Plot("test accuracy"),
            ),
        ),
        only(
            "diffprivlib",
            up_to_max_n(
                Experiment(
                    name="dp_svrg_diffprivlib",
                    title="DPSVRGClassifier against diffprivlib's LogisticRegression: "
                    "test accuracy",
                    methods=real_methods(DIFFPRIVLIB_EPSILONS),
                    evaluate=evaluate_any,
                    metrics=("accuracy",),
                    full=Grid(
                        populations=REAL,
                        sizes=(10_000, 100_000, 1_000_000),
                        epsilons=DIFFPRIVLIB_EPSILONS,
                        repeats=3,
                    ),
                    quick=Grid(
                        populations=REAL, sizes=(5_000,), epsilons=(0.5, 4.0), repeats=3
                    ),
                    table=side_by_side,
                    notes=side_by_side_notes,
                    plot=Plot("test accuracy", keep=lambda r: r["method"] != MAJORITY),
                )
            ),
        ),
    ),
)

if __name__ == "__main__":
    main(SPEC)
