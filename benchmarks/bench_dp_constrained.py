"""DPConstrainedClassifier (central DP): accuracy against n and epsilon on seed 004's task.

Held-out accuracy of ``DPConstrainedClassifier`` on the shared population
``gaussian_sign_100d`` (seed 004's task), eps in (0.5, 1, 2, 4, 8), n in
(1e4, 1e5, 1e6), delta = 1e-5 (replace-one), written to
``docs/benchmarks/dp_constrained.md``: improved mode (the default
``method='fw_l1'``, ``calibration='rdp'``, on the l1 ball of public radius
10), paper mode (``calibration='paper'``: advanced composition for the
exponential mechanism), the variants DP-PMD on the l2 ball and DP-PGD with
seed 004's sigmoid loss and l1 penalty (``DPSVRGClassifier(solver='gd')``),
against the non-private ``LogisticRegression`` and the *local* baselines
(this is a central-DP estimator: the local baselines show what central DP
buys): naive (``LogisticRegression`` on Gaussian (x, y) reports at the same
(eps, delta)) and debiased least squares on the same reports.

Seed 004's own experiments are :mod:`benchmarks.papers.seed004_dp_nonconvex`
(DP-PGD on its synthetic task) and
:mod:`benchmarks.papers.seed004_dp_constrained_sparse` (the constrained
methods in high dimension).

A second table compares the improved and paper modes of the two
Frank-Wolfe methods (``--experiments dp_constrained_frank_wolfe`` runs it
alone).

    python -m benchmarks.bench_dp_constrained [--quick]
"""

import dataclasses

import numpy as np
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
from sklearn_ldp import DPConstrainedClassifier, DPSVRGClassifier

REFERENCE = "LogisticRegression"
GRID_RADIUS = 10.0
#: seed 004's objective: sigmoid loss + (lambda / 2) ||theta||_1, lambda = 0.01.
PGD_ALPHA = 0.01 / 2
#: At n = 1e6 (100 full passes over 1e6 x 100 rows per fit) the paper mode
#: and DP-PMD run at these epsilons only, DP-PGD not at all.
LARGE_N, LARGE_N_EPSILONS = 1_000_000, (1.0, 4.0)
POPULATION = POPULATIONS["gaussian_sign_100d"]
#: The task's public label set (y = [theta^T x > 0]).
CLASSES = (0, 1)


def evaluate(model, data):
    return {"accuracy": model.score(data.X_test, data.y_test)}


def baselines(model):
    """Non-private ``model``, naive (``model`` on Gaussian reports) and
    debiased least squares on the same reports."""

    return [
        Method(
            REFERENCE,
            lambda data, e, s: nonprivate(model, data.X, data.y),
            "non-private",
        ),
        Method("naive (local)", naive_classifier(lambda data: model), "baseline"),
        Method("debiased LS (local)", debiased_classifier, "baseline"),
    ]


def constrained(**params):
    def fit(data, epsilon, seed):
        return DPConstrainedClassifier(
            epsilon=epsilon, delta=DELTA, classes=CLASSES, random_state=seed, **params
        ).fit(data.X, data.y)

    return fit


def large_n_epsilons(n, epsilon):
    return n < LARGE_N or epsilon in LARGE_N_EPSILONS


def pgd(data, epsilon, seed):
    return DPSVRGClassifier(
        epsilon=epsilon,
        delta=DELTA,
        loss="sigmoid",
        solver="gd",
        alpha=PGD_ALPHA,
        l1_ratio=1.0,
        data_norm=data.population.data_norm,
        classes=CLASSES,
        random_state=seed,
    ).fit(data.X, data.y)


def methods(population, quick):
    common = dict(radius=GRID_RADIUS, data_norm=population.data_norm)
    out = baselines(LogisticRegression(max_iter=1000))
    out += [
        Method("DP-FW-L1 (default)", constrained(**common)),
        Method(
            "DP-FW-L1 paper",
            constrained(calibration="paper", **common),
            "paper",
            where=large_n_epsilons,
        ),
    ]
    if quick:
        return out
    return out + [
        Method(
            "DP-PMD l2 ball",
            constrained(method="pmd", constraint="l2", **common),
            where=large_n_epsilons,
        ),
        Method("DP-PGD sigmoid+l1", pgd, max_n=LARGE_N // 10),
    ]


def notes(table, run):
    times, time_columns = time_table(table, REFERENCE)
    return (
        f"Population `{POPULATION.name}`: {POPULATION.description} (public "
        f"l2 bound data_norm = {POPULATION.data_norm:g}; users clip); test "
        f"accuracy on {POPULATION.n_test:,} held-out users. delta = {DELTA:g} ({DELTA_NOTE}) "
        "(replace-one for the central estimators, per user for the local "
        "baselines). Seeds (data and noise): "
        + ("1." if run.quick else "3 at n = 1e4 (means), 1 at n = 1e5 and 1e6.")
        + f"\n\nColumns: `{REFERENCE}` (non-private, C = 1); `naive (local)` "
        "(each user releases (x, y) with the Gaussian mechanism at the same "
        "(eps, delta); LogisticRegression on the noisy rows labelled by the "
        "sign of the noisy label); `debiased LS (local)` (debiased least "
        "squares on the same reports, sign of the fit); `DP-FW-L1 (default)` "
        "(improved mode: DPConstrainedClassifier defaults, method = 'fw_l1', "
        "logistic loss, T = 100, RDP accountant for the exponential "
        f"mechanism, l1 ball of radius {GRID_RADIUS:g}, a public choice made "
        "on another draw); `DP-FW-L1 paper` (calibration = 'paper': advanced "
        "composition, eps / sqrt(8 T ln(1/delta)) per selection)"
        + (
            ""
            if run.quick
            else "; variants (improved calibration): `DP-PMD l2 ball` (method = "
            f"'pmd', constraint = 'l2', radius {GRID_RADIUS:g}: DP-PGD on the l2 "
            "ball) and `DP-PGD sigmoid+l1` (DPSVRGClassifier(solver = 'gd', "
            f"loss = 'sigmoid', alpha = {PGD_ALPHA}, l1_ratio = 1): seed 004's "
            "objective, 100 steps, random output iterate)."
            "\n\nWhere methods did not run (empty cells), to keep the run near "
            "12 minutes: at n = 1e6 (one private fit takes 15 to 40 s on "
            "1e6 x 100 rows, 100 full passes) the paper mode and DP-PMD run at "
            "eps 1 and 4 only, DP-PGD not at all"
        )
        + ".\n\n## Fit time\n\nFit time divided by LogisticRegression's on the "
        "same draw (mean over seeds); the last column is LogisticRegression's "
        "time in seconds, for scale (shared 2-core machine, OMP_NUM_THREADS=1: "
        "absolute times are noisy).\n\n"
        + format_table(times, time_columns)
        + f"\n\nCommand: `{run.command}`."
    )


FW_METHODS = {
    "DP-FW-L1 improved": dict(method="fw_l1"),
    "DP-FW-L1 paper": dict(method="fw_l1", calibration="paper"),
    "DP-FW-L2 improved": dict(method="fw_l2", constraint="l2"),
    "DP-FW-L2 paper": dict(method="fw_l2", constraint="l2", calibration="paper"),
}


def fw_methods(population, quick):
    common = dict(radius=GRID_RADIUS, data_norm=population.data_norm)
    return [
        Method(
            name,
            constrained(**params, **common),
            "paper" if "paper" in name else "improved",
        )
        for name, params in FW_METHODS.items()
    ]


def fw_table(table):
    """Accuracy (mean ± SE) of both modes of each Frank-Wolfe method, and the gap."""
    cells = {}
    for r in table:
        cells.setdefault((r["n"], r["epsilon"]), {})[r["method"]] = r
    rows = []
    for (n, epsilon), here in cells.items():
        row = {"n": n, "epsilon": epsilon}
        for method in ("DP-FW-L1", "DP-FW-L2"):
            pair = [here.get(f"{method} {mode}") for mode in ("improved", "paper")]
            if None in pair:
                continue
            stats = []
            for mode, r in zip(("improved", "paper"), pair, strict=True):
                se = r.get("accuracy sd", np.nan) / np.sqrt(r["runs"])
                stats.append((r["accuracy"], se))
                row[f"{method} {mode}"] = f"{r['accuracy']:.4f} ± {se:.4f}"
            gap = stats[0][0] - stats[1][0]
            se = np.hypot(stats[0][1], stats[1][1])
            row[f"{method} improved - paper"] = f"{gap:+.4f} ({gap / se:+.1f} SE)"
        rows.append(row)
    columns = ["n", "epsilon"]
    for method in ("DP-FW-L1", "DP-FW-L2"):
        columns += [
            f"{method} improved",
            f"{method} paper",
            f"{method} improved - paper",
        ]
    return rows, columns


def fw_notes(table, run):
    return (
        f"Population `{POPULATION.name}`: {POPULATION.description}; test "
        f"accuracy on {POPULATION.n_test:,} held-out users, delta = {DELTA:g} "
        "(replace-one), logistic loss, T = 100 iterations, ball radius "
        f"{GRID_RADIUS:g} (l1 for DP-FW-L1, l2 for DP-FW-L2), mean ± "
        "standard error over 3 seeds (data and noise). `improved`: "
        "calibration='rdp' (RDP accountant; step 2 / (t + 2), the last "
        "iterate, for this convex loss). `paper`: calibration='paper', seed "
        "004 as printed: advanced composition eps / sqrt(8 T ln(1/delta)) per "
        "selection (DP-FW-L1) or the zCDP calibration (DP-FW-L2), the printed "
        "constant step (Thm. 6: sqrt(2 / (T R^2)); Thm. 4: ((R^2 + G_C^2) "
        "ln(1/delta))^(1/4) / (R sqrt(n eps)), G_C the Gaussian width of the "
        "ball, O-constant 1; both capped at 1) and the output x_R, R uniform "
        "on {1..T} (x_1 = 0, the start, included). `improved - paper` is the "
        "difference of the means in standard errors of the difference. "
        f"Command: `{run.command} --experiments dp_constrained_frank_wolfe`."
    )


SPEC = Benchmark(
    name="bench_dp_constrained",
    description=__doc__.splitlines()[0],
    ignore=(ConvergenceWarning,),
    steps=(
        Experiment(
            name="dp_constrained",
            title="DPConstrainedClassifier (central DP): test accuracy on seed "
            "004's task",
            methods=methods,
            evaluate=evaluate,
            metrics=("accuracy",),
            full=Grid(
                populations=(POPULATION,),
                sizes=(10_000, 100_000, LARGE_N),
                epsilons=(0.5, 1.0, 2.0, 4.0, 8.0),
                repeats={10_000: 3},
            ),
            quick=Grid(
                populations=(POPULATION,), sizes=(2_000, 20_000), epsilons=(1.0, 4.0)
            ),
            notes=notes,
            plot=Plot("test accuracy"),
        ),
        Experiment(
            name="dp_constrained_frank_wolfe",
            title="DPConstrainedClassifier: Frank-Wolfe, improved vs paper mode "
            "(test accuracy)",
            methods=fw_methods,
            evaluate=evaluate,
            metrics=("accuracy",),
            full=Grid(
                populations=(POPULATION,),
                sizes=(10_000, 100_000),
                epsilons=(0.5, 1.0, 2.0, 4.0),
                repeats=3,
            ),
            quick=Grid(populations=(POPULATION,), sizes=(2_000,), epsilons=(1.0,)),
            notes=fw_notes,
            table=fw_table,
        ),
    ),
    options=(
        (
            "--experiments",
            {
                "nargs": "+",
                "help": "run only these experiments (dp_constrained, "
                "dp_constrained_frank_wolfe)",
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
