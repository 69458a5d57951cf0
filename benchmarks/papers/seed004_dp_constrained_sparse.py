"""Seed 004's constrained methods on a sparse signal in high dimension (test accuracy).

The shared populations ``rademacher_1000d`` and ``rademacher_10000d``
(label ``sign(x_1 + ... + x_5)``, 5% flipped; features clipped at the
public bound 1): held-out accuracy of seed 004's DP-FW-L1, DP-FW-L2 and
DP-PMD and of DP-AccMD (``DPConstrainedClassifier``) on the l1 ball of
radius 8 (logistic loss, ``T = 30``), against unconstrained DP-GD
(``DPSVRGClassifier(solver='gd')``, l2 bound ``sqrt(d)``, 30 steps), the
naive and debiased-least-squares local baselines and the non-private
``LogisticRegression``. Writes ``docs/benchmarks/dp_constrained_sparse.md``.

    python -m benchmarks.papers.seed004_dp_constrained_sparse [--quick]
"""

from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from benchmarks._baselines import DELTA, DELTA_NOTE, public_l2_bound
from benchmarks._harness import Benchmark, Experiment, Grid, Method, Plot, main
from benchmarks._populations import POPULATIONS
from benchmarks._tables import format_table, time_table
from benchmarks.bench_dp_constrained import (
    REFERENCE,
    baselines,
    constrained,
    evaluate,
)
from sklearn_ldp import DPSVRGClassifier

SPARSE_RADIUS = 8.0
SPARSE_ITERATIONS = 30


def dp_gd_unconstrained(data, epsilon, seed):
    return DPSVRGClassifier(
        epsilon=epsilon,
        delta=DELTA,
        solver="gd",
        n_epochs=SPARSE_ITERATIONS,
        data_norm=public_l2_bound(data.population),
        classes=(0, 1),  # public label set
        random_state=seed,
    ).fit(data.X, data.y)


def methods(population, quick):
    d = population.params["n_features"]
    common = dict(
        radius=SPARSE_RADIUS,
        data_norm=population.bounds[1],
        data_norm_type="linf",
        n_iter=SPARSE_ITERATIONS,
    )
    out = baselines(LogisticRegression(max_iter=2000))
    if d > 2_000:
        # Debiased least squares needs the eigendecomposition of a
        # (d + 1) x (d + 1) Gram matrix: minutes and 800 MB at d = 10,000.
        out = [m for m in out if m.name != "debiased LS (local)"]
    return out + [
        Method("DP-FW-L1", constrained(method="fw_l1", **common)),
        Method(
            "DP-FW-L1 paper",
            constrained(method="fw_l1", calibration="paper", **common),
            "paper",
        ),
        Method("DP-FW-L2", constrained(method="fw_l2", **common)),
        Method("DP-PMD", constrained(method="pmd", **common)),
        Method("DP-AccMD", constrained(method="accmd", **common)),
        Method("DP-GD", dp_gd_unconstrained),
    ]


def notes(table, run):
    times, time_columns = time_table(table, REFERENCE)
    populations = run.grid.populations
    descriptions = "; ".join(f"`{p.name}`: {p.description}" for p in populations)
    return (
        f"Populations: {descriptions}; features clipped at the public bound 1 "
        "(l2 bound sqrt(d) for the Gaussian mechanisms); test accuracy on "
        f"{populations[0].n_test:,} held-out users; one seed (data and noise). "
        "n is small because these populations are dense d-column matrices "
        "(capped at 50,000 users by memory; 10,000 x 1,000 is 80 MB) and "
        "every method makes T full passes: "
        + ", ".join(
            f"n = {run.grid.of(p).sizes[0]:,} at d = {p.params['n_features']:,}"
            for p in populations
        )
        + f". delta = {DELTA:g} ({DELTA_NOTE}).\n\nColumns: `{REFERENCE}` (non-private, "
        "C = 1); `naive (local)` and `debiased LS (local)` as in the main grid "
        "(debiased LS not run at d = 10,000: the eigendecomposition of a "
        "10,001 x 10,001 Gram matrix takes minutes); private methods on the "
        f"l1 ball of radius {SPARSE_RADIUS:g}, data_norm_type = 'linf', logistic "
        f"loss, T = {SPARSE_ITERATIONS}: `DP-FW-L1` (exponential mechanism, "
        "RDP), `DP-FW-L1 paper` (calibration = 'paper'), `DP-FW-L2`, `DP-PMD`, "
        "`DP-AccMD` (Gaussian noise calibrated to the l2 gradient bound); "
        f"`DP-GD` (unconstrained DPSVRGClassifier(solver = 'gd'), "
        f"{SPARSE_ITERATIONS} steps, l2 bound sqrt(d)).\n\n## Fit time\n\n"
        "Fit time divided by LogisticRegression's on the same draw; the last "
        "column is LogisticRegression's seconds.\n\n"
        + format_table(times, time_columns)
        + f"\n\nCommand: `{run.command}`."
    )


EPSILONS = (0.5, 2.0, 8.0)

SPEC = Benchmark(
    name="papers.seed004_dp_constrained_sparse",
    description=__doc__.splitlines()[0],
    ignore=(ConvergenceWarning,),
    steps=(
        Experiment(
            name="dp_constrained_sparse",
            title="Sparse signal in high dimension: DP-FW-L1 against the other "
            "methods (test accuracy)",
            methods=methods,
            evaluate=evaluate,
            metrics=("accuracy",),
            full=Grid(
                populations=(
                    POPULATIONS["rademacher_1000d"],
                    POPULATIONS["rademacher_10000d"],
                ),
                sizes=(10_000,),
                epsilons=EPSILONS,
                by_population={
                    "rademacher_10000d": Grid(sizes=(2_000,), epsilons=EPSILONS)
                },
            ),
            quick=Grid(
                populations=(POPULATIONS["rademacher_1000d"],),
                sizes=(2_000,),
                epsilons=(2.0,),
            ),
            notes=notes,
            plot=Plot("test accuracy"),
        ),
    ),
)

if __name__ == "__main__":
    main(SPEC)
