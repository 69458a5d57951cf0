"""Seed 002's experiment: optimality gap of DP-SVRG, DP-SVRG++ and DP-GD at equal privacy.

Seed 002, Appendix A: the optimality gap ``F(w) - F*`` of l2-regularised
logistic regression (``alpha = 1e-4``) against the budget of gradient
evaluations and against the wall time, for ``DPSVRGClassifier`` with
``solver='svrg'``, ``'svrg++'`` and ``'gd'``. Every point is a complete
private run calibrated for its own number of epochs/steps (the x-axis is a
budget fixed in advance, not a position inside one run). ``F*`` from
``LogisticRegression(C = 1 / (n alpha), tol = 1e-10)`` on the clipped rows.
Users from the populations of ``bench_dp_svrg`` (Covertype, the seed's
data, is not available offline). Writes ``docs/benchmarks/dp_svrg_gap.md``.

    python -m benchmarks.papers.seed002_dp_svrg_gap [--quick]
"""

import numpy as np
from scipy.special import log_expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from benchmarks._baselines import DELTA, DELTA_NOTE, nonprivate
from benchmarks._harness import Benchmark, Report, main, timed
from benchmarks._tables import pyplot
from benchmarks.bench_dp_svrg import ALPHA, USERS, logistic
from sklearn_ldp import DPSVRGClassifier
from sklearn_ldp.randomizers import clip_l2

SOLVERS = ("svrg", "svrg++", "gd")
COLORS = {"svrg": "tab:blue", "svrg++": "tab:green", "gd": "tab:red"}


def objective(coef, intercept, X, signs, alpha):
    scores = X @ np.ravel(coef) + np.ravel(intercept)[0]
    return np.mean(-log_expit(signs * scores)) + alpha / 2 * np.sum(coef**2)


def expected_evaluations(clf, n):
    if clf.solver == "gd":
        return clf.n_epochs_ * n
    inner = 2 * clf.sampling_rate_ * n * clf.epoch_lengths_.sum()
    return clf.n_epochs_ * n + inner


def budgets(quick):
    if quick:
        return {"svrg": [1, 4], "svrg++": [3, 5], "gd": [10, 50]}
    return {
        "svrg": [1, 2, 4, 8, 16],
        "svrg++": [3, 4, 5, 6, 7],
        "gd": [10, 30, 100, 300],
    }


def gap_curves(population, n, epsilons, quick, seeds):
    X, y, _, _ = population.train_test(n, seeds[0])
    X_clipped = clip_l2(X, population.data_norm)
    signs = np.where(y == 1, 1.0, -1.0)
    _, reference_seconds, _ = timed(nonprivate, logistic(n), X, y)
    exact = LogisticRegression(C=1.0 / (n * ALPHA), tol=1e-10, max_iter=10_000)
    exact.fit(X_clipped, y)
    optimum = objective(exact.coef_, exact.intercept_, X_clipped, signs, ALPHA)
    curves = []
    for epsilon in epsilons:
        for solver in SOLVERS:
            for n_epochs in budgets(quick)[solver]:
                gaps, times = [], []
                for seed in seeds:
                    clf = DPSVRGClassifier(
                        epsilon=epsilon,
                        delta=DELTA,
                        solver=solver,
                        alpha=ALPHA,
                        n_epochs=n_epochs,
                        data_norm=population.data_norm,
                        classes=(0, 1),  # public label set
                        random_state=seed,
                    )
                    _, seconds, _ = timed(clf.fit, X, y)
                    gap = objective(clf.coef_, clf.intercept_, X_clipped, signs, ALPHA)
                    gaps.append(gap - optimum)
                    times.append(seconds)
                curves.append(
                    {
                        "population": population.name,
                        "epsilon": epsilon,
                        "solver": solver,
                        "n_epochs": n_epochs,
                        "passes": expected_evaluations(clf, n) / n,
                        "seconds": float(np.mean(times)),
                        "time ratio": float(np.mean(times)) / reference_seconds,
                        "gap": float(np.mean(gaps)),
                        "gap sd": float(np.std(gaps, ddof=1))
                        if len(gaps) > 1
                        else np.nan,
                    }
                )
                print(curves[-1], flush=True)
    return curves


def plot_curves(curves, epsilons, names):
    """One row per population; columns: gap against passes, then against wall
    time, for each epsilon."""
    from matplotlib.ticker import NullFormatter

    plt = pyplot()
    panels = [
        (x_key, x_label, epsilon)
        for x_key, x_label in (
            ("passes", "passes over the data"),
            ("seconds", "wall time (s)"),
        )
        for epsilon in epsilons
    ]
    fig, axes = plt.subplots(
        len(names),
        len(panels),
        figsize=(3.0 * len(panels), 2.8 * len(names)),
        squeeze=False,
        sharey="row",
    )
    for i, name in enumerate(names):
        for j, (x_key, x_label, epsilon) in enumerate(panels):
            ax = axes[i, j]
            for solver in SOLVERS:
                points = [
                    c
                    for c in curves
                    if c["population"] == name
                    and c["epsilon"] == epsilon
                    and c["solver"] == solver
                ]
                ax.plot(
                    [p[x_key] for p in points],
                    [p["gap"] for p in points],
                    "o-",
                    ms=3,
                    color=COLORS[solver],
                    label=f"DP-{solver.upper()}",
                )
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.tick_params(labelsize=7)
            ax.set_title(f"{name}, eps = {epsilon}", fontsize=8)
            ax.set_xlabel(x_label, fontsize=8)
            if j == 0:
                ax.set_ylabel("F(w) - F*", fontsize=8)
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def gap_experiment(run):
    n = 20_000 if run.quick else 100_000
    epsilons = [1.0] if run.quick else [0.5, 2.0]
    seeds = [run.seed]
    curves = []
    for population in USERS:
        curves += gap_curves(population, n, epsilons, run.quick, seeds)
    notes = (
        f"Populations: {', '.join(p.name for p in USERS)} (as in "
        f"`dp_svrg.md`), n = {n:,} training users, alpha = {ALPHA}, delta = "
        f"{DELTA:g} (replace-one; {DELTA_NOTE}), mean over {len(seeds)} noise seed(s) on one data "
        "draw. `gap` = F(w) - F* on the clipped training rows (F* from "
        "LogisticRegression with tol = 1e-10); `passes` = expected gradient "
        "evaluations / n (n per full gradient, 2 q n per inner SVRG step); "
        "`time ratio` = fit seconds / a default LogisticRegression fit "
        "(max_iter = 1000) on the same rows. Every row is a complete private "
        f"run calibrated for its own budget. Command: `{run.command}`."
    )
    columns = [
        "population",
        "epsilon",
        "solver",
        "n_epochs",
        "passes",
        "seconds",
        "time ratio",
        "gap",
        *(["gap sd"] if len(seeds) > 1 else []),
    ]
    names = [p.name for p in USERS]
    return [
        Report(
            "dp_svrg_gap",
            "Seed 002's experiment: optimality gap of DP-SVRG, DP-SVRG++ and "
            "DP-GD at equal privacy",
            curves,
            columns,
            notes,
            figure=lambda: plot_curves(curves, epsilons, names),
        )
    ]


SPEC = Benchmark(
    name="papers.seed002_dp_svrg_gap",
    description=__doc__.splitlines()[0],
    ignore=(ConvergenceWarning,),
    steps=(gap_experiment,),
)

if __name__ == "__main__":
    main(SPEC)
