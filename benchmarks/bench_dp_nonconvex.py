"""DPConstrainedClassifier and DP-PGD (central DP): seed 004's experiments,
the constrained methods in high dimension, and accuracy against n and eps.

**Main grid** (``docs/benchmarks/dp_constrained.md``): held-out accuracy of
``DPConstrainedClassifier`` on the shared population ``gaussian_sign_100d``
(seed 004's task), eps in (0.5, 1, 2, 4, 8), n in (1e4, 1e5, 1e6), delta =
1e-5 (replace-one): improved mode (the default ``method='fw_l1'``,
``calibration='rdp'``, on the l1 ball of public radius 10), paper mode
(``calibration='paper'``: advanced composition for the exponential
mechanism), the variants DP-PMD on the l2 ball and DP-PGD with seed 004's
sigmoid loss and l1 penalty (``DPSVRGClassifier(solver='gd')``), against the
non-private ``LogisticRegression`` and the *local* baselines (this is a
central-DP estimator: the local baselines show what central DP buys): naive
(``LogisticRegression`` on Gaussian (x, y) reports at the same (eps, delta))
and debiased least squares on the same reports.

**Seed 004's experiments** (``docs/benchmarks/dp_nonconvex.md``; Wang and
Xu, AAAI 2019, Figures 1-4, synthetic data): DP-PGD on ``1/n sum_i
sigmoid_loss(y_i theta^T x_i) + (lambda / 2) ||theta||_1``, ``lambda = 0.01``
as printed, the sigmoid loss ``1 / (1 + exp(y theta^T x))`` (the paper
prints ``exp(-y ...)``, whose minimisation would reward misclassification;
a sign typo). Users from ``gaussian_sign_100d``: ``x ~ N(0, I_100)`` scaled
by a public constant, ``y = sign(theta*^T x)`` (labels 0/1 mapped to +-1
here; the printed rule "y_i = 1 if 1/(1 + exp(-y_i theta* x_i)) > 1/2" is
circular, this is its only consistent reading); rows clipped to ``||x|| <=
4`` so the loss is 1-Lipschitz (``|l'| <= 1/4``) as the paper normalises
(the earlier version scaled by the data's own maximum norm, which leaked).
delta = 1e-3, replace-one, no intercept. DP-PGD (seed 004 Alg. 1 =
:func:`sklearn_ldp.optim.dp_gd`) from ``theta = 0`` with constant step
``1 / L`` (the paper used TFOCS's backtracking, which reads the data and is
not private), random output iterate. Only the per-step noise differs:

- ``zCDP``: seed 004 Alg. 1 step 3, typo fixed: ``sigma^2 = T Delta^2 /
  (2 rho)``, ``Delta = 2G/n``, ``rho + 2 sqrt(rho ln(1/delta)) = epsilon``
  (``calibration='paper'``);
- ``RDP``: the tight Renyi accountant with bisection (our default; the
  "moments accountant" line of the paper's Figure 4);
- ``Zhang``: Zhang et al. (2017) as quoted in seed 004,
  ``sigma^2 = 32 G^2 ln(1/delta) ln(T/delta) / (n^2 eps^2)``. As quoted it
  has no factor ``T``; the column ``eps_true Zhang`` reports the epsilon the
  exact RDP accountant certifies for that noise (replace-one sensitivity
  ``2G/n``), which exceeds the target: the quoted formula is not private;
- ``Zhang*T``: the same with the factor ``T`` (advanced composition scale);
- ``non-private``: ``sigma = 0``.

Measure: ``E ||g_R||``, the l2 norm of the generalized projected gradient
(seed 004 eq. (2), step ``1/L``) at the output iterate, averaged exactly
over the uniform choice of ``R`` (all ``T`` iterates) and over noise seeds.
Figure 1: eps in {0.1, 0.5, 2, 5}, T = 200, n = 10,000. Figure 2: eps = 2,
T in {200, 400}. Figure 3: eps = 2, T = 400, n varied. Figure 4: the
calibrations compared (every row). Covertype (the paper's real data) is not
available offline and is not run.

**Sparse signal in high dimension** (``docs/benchmarks/dp_constrained_sparse.md``):
``rademacher_1000d`` and ``rademacher_10000d`` (label ``sign(x_1 + ... +
x_5)``, 5% flipped; features clipped at the public bound 1), held-out
accuracy of DP-FW-L1, DP-FW-L2, DP-PMD and DP-AccMD on the l1 ball of radius
8 (logistic loss, ``T = 30``), against unconstrained DP-GD
(``DPSVRGClassifier(solver='gd')``, l2 bound ``sqrt(d)``, 30 steps), the
naive and debiased-least-squares local baselines and the non-private
``LogisticRegression``.

    python -m benchmarks.bench_dp_nonconvex [--quick]
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from benchmarks._baselines import (
    DELTA,
    debiased_classifier,
    naive_classifier,
    nonprivate,
    public_l2_bound,
)
from benchmarks._harness import (
    Method,
    aggregate,
    format_table,
    parse_args,
    pivot,
    plot_utility,
    report,
    run_grid,
    save_figure,
    time_table,
)
from benchmarks._populations import POPULATIONS
from sklearn_ldp import DPConstrainedClassifier, DPSVRGClassifier
from sklearn_ldp.accounting import calibrate_dp_gd, rdp_gaussian, rdp_to_epsilon
from sklearn_ldp.optim import dp_gd, get_loss, gradient_mapping
from sklearn_ldp.randomizers import clip_l2
from sklearn_ldp.utils import check_noise_random_state

SEED004_DELTA = 1e-3
LAMBDA = 0.01
ROW_NORM = 4.0
CALIBRATIONS = ("zCDP", "RDP", "Zhang", "Zhang*T", "non-private")
REFERENCE = "LogisticRegression"
GRID_RADIUS = 10.0
SPARSE_RADIUS = 8.0
SPARSE_ITERATIONS = 30
#: Epsilons of the paper mode and DP-PMD at n = 1e6 in the main grid.
BIG_EPSILONS = (1.0, 4.0)


# ------------------------------------------------- seed 004's experiments
def seed004_data(n, seed):
    """``gaussian_sign_100d`` users, clipped to the public bound 4, labels +-1."""
    population = POPULATIONS["gaussian_sign_100d"]
    X, y = population.sample(n, seed)
    return clip_l2(X, ROW_NORM), np.where(y == 1, 1.0, -1.0)


def noise_std(calibration, epsilon, T, n, G):
    if calibration == "non-private":
        return 0.0
    if calibration in ("zCDP", "RDP"):
        method = "zcdp" if calibration == "zCDP" else "rdp"
        noise = calibrate_dp_gd(epsilon, SEED004_DELTA, T, method)
        return noise.noise_multiplier * 2 * G / n
    factor = T if calibration == "Zhang*T" else 1.0
    return np.sqrt(
        32
        * factor
        * G**2
        * np.log(1 / SEED004_DELTA)
        * np.log(T / SEED004_DELTA)
        / (n * epsilon) ** 2
    )


def true_epsilon(std, T, n, G):
    if std == 0:
        return np.inf
    multiplier = std / (2 * G / n)
    return rdp_to_epsilon(T * rdp_gaussian(multiplier), SEED004_DELTA)[0]


def expected_mapping_norm(X, y, epsilon, T, calibration, seeds):
    """``E ||g_R||`` over R uniform and the noise seeds; also the noise std."""
    loss = get_loss("sigmoid")
    n, d = X.shape
    G = 0.25 * ROW_NORM
    L = loss.curvature * ROW_NORM**2
    step = 1.0 / L
    std = noise_std(calibration, epsilon, T, n, G)
    penalized = np.ones(d, dtype=bool)
    norms = []

    def mapping_norm(W):
        gradient = X.T @ loss.derivative(X @ W, y) / n
        return np.linalg.norm(
            gradient_mapping(W, gradient, step, LAMBDA / 2, penalized, "l2", None)
        )

    for seed in seeds:
        trace = [mapping_norm(np.zeros((d, 1)))]  # x_1 = 0

        def callback(W, _, trace=trace):
            trace.append(mapping_norm(W))

        dp_gd(
            X,
            y,
            loss,
            W0=np.zeros((d, 1)),
            step=step,
            alpha=LAMBDA / 2,
            l1_ratio=1.0,
            penalized=penalized,
            n_steps=T,
            noise_std=std,
            output="random",
            rng=check_noise_random_state(seed),  # independent of the data stream
            callback=callback,
        )
        norms.append(np.mean(trace[:-1]))  # R uniform on the T iterates x_1..x_T
    return float(np.mean(norms)), float(np.std(norms)), std, true_epsilon(std, T, n, G)


def seed004_experiment(args):
    seeds = list(range(args.seed, args.seed + (1 if args.quick else 3)))
    grid = []
    if args.quick:
        grid.append(("Fig. 1", 2.0, 200, 2000))
    else:
        for epsilon in [0.1, 0.5, 2.0, 5.0]:
            grid.append(("Fig. 1", epsilon, 200, 10_000))
        for T in [200, 400]:
            grid.append(("Fig. 2", 2.0, T, 10_000))
        for n in [1000, 2000, 5000, 10_000]:
            grid.append(("Fig. 3", 2.0, 400, n))
    data, cache, rows = {}, {}, []
    for figure, epsilon, T, n in grid:
        if n not in data:
            data[n] = seed004_data(n, args.seed)
        X, y = data[n]
        row = dict(figure=figure, epsilon=epsilon, T=T, n=n)
        for calibration in CALIBRATIONS:
            key = (epsilon, T, n, calibration)
            if key not in cache:
                cache[key] = expected_mapping_norm(X, y, epsilon, T, calibration, seeds)
            mean, sd, std, eps_true = cache[key]
            row[calibration] = mean
            row[f"{calibration} sd"] = sd
            row[f"sigma {calibration}"] = std
            if calibration == "Zhang":
                row["eps_true Zhang"] = eps_true
        rows.append(row)
        print(row, flush=True)
    population = POPULATIONS["gaussian_sign_100d"]
    command = "python -m benchmarks.bench_dp_nonconvex" + (
        " --quick" if args.quick else ""
    )
    columns = ["figure", "epsilon", "T", "n", *CALIBRATIONS, "eps_true Zhang"]
    columns += [f"sigma {c}" for c in CALIBRATIONS[:4]]
    report(
        "dp_nonconvex",
        rows,
        columns,
        title="DP-PGD on seed 004's synthetic task: E||generalized projected gradient||",
        notes=(
            f"Population `{population.name}`: {population.description}; rows "
            f"clipped to ||x|| <= {ROW_NORM:g}, labels mapped to +-1, one data "
            f"draw (seed {args.seed}) per n. Sigmoid loss + (lambda/2) ||theta||_1, "
            f"lambda = {LAMBDA}, no intercept, delta = {SEED004_DELTA} "
            "(replace-one), step 1/L from theta = 0. Mean over "
            f"{len(seeds)} noise seed(s) of the exact expectation over the "
            "random output iterate. Columns zCDP (paper mode, seed 004 Alg. 1 "
            "typo fixed), RDP (our default), Zhang (Zhang et al. 2017 as quoted "
            "in seed 004, not private: see eps_true), Zhang*T (the same with the "
            "factor T), non-private (sigma = 0); 'sigma X' is the per-step "
            "noise std on the mean gradient; 'eps_true Zhang' is what the RDP "
            "accountant certifies for the Zhang noise as quoted (target: the "
            f"row's epsilon). Command: `{command}`."
        ),
        save=not args.no_save,
    )
    if not args.no_save:
        save_figure(plot_seed004(rows), "dp_nonconvex")
    return rows


def plot_seed004(rows):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(14, 4), squeeze=False)
    axes = axes[0]
    panels = [
        ("Fig. 1", "epsilon", "epsilon (T = 200, n = 10000)", True),
        ("Fig. 2", "T", "iterations T (eps = 2, n = 10000)", False),
        ("Fig. 3", "n", "sample size n (eps = 2, T = 400)", True),
    ]
    for ax, (figure, key, label, log) in zip(axes, panels, strict=True):
        subset = [r for r in rows if r["figure"] == figure]
        if not subset:
            ax.set_visible(False)
            continue
        x = [r[key] for r in subset]
        for calibration in CALIBRATIONS:
            y = [r[calibration] for r in subset]
            ax.plot(x, y, marker="o", label=calibration)
        ax.set_xlabel(label)
        ax.set_title(figure)
        ax.set_yscale("log")
        if log:
            ax.set_xscale("log")
    axes[0].set_ylabel("E ||generalized projected gradient||")
    axes[0].legend(fontsize=8)
    fig.suptitle(
        "DP-PGD, sigmoid loss + l1 (seed 004 synthetic, gaussian_sign_100d), "
        f"delta = {SEED004_DELTA}"
    )
    fig.tight_layout()
    return fig


# ------------------------------------------------------- shared helpers
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
            epsilon=epsilon, delta=DELTA, random_state=seed, **params
        ).fit(data.X, data.y)

    return fit


def seeds_for(args, counts):
    def seeds(n):
        return [args.seed + k for k in range(1 if args.quick else counts.get(n, 1))]

    return seeds


# ------------------------------------------------------------ main grid
def grid_methods(quick, *, big=False):
    """At n = 1e6 (``big``) the improved mode and the baselines run at every
    epsilon, the paper mode and DP-PMD at eps 1 and 4, DP-PGD not at all."""
    population = POPULATIONS["gaussian_sign_100d"]
    common = dict(radius=GRID_RADIUS, data_norm=population.data_norm)
    some = BIG_EPSILONS if big else None
    out = baselines(LogisticRegression(max_iter=1000))
    out += [
        Method("DP-FW-L1 (default)", constrained(**common)),
        Method(
            "DP-FW-L1 paper",
            constrained(calibration="paper", **common),
            "paper",
            epsilons=some,
        ),
    ]
    if quick:
        return out

    def pgd(data, epsilon, seed):
        return DPSVRGClassifier(
            epsilon=epsilon,
            delta=DELTA,
            loss="sigmoid",
            solver="gd",
            alpha=LAMBDA / 2,
            l1_ratio=1.0,
            data_norm=population.data_norm,
            random_state=seed,
        ).fit(data.X, data.y)

    out.append(
        Method(
            "DP-PMD l2 ball",
            constrained(method="pmd", constraint="l2", **common),
            epsilons=some,
        )
    )
    if not big:
        out.append(Method("DP-PGD sigmoid+l1", pgd))
    return out


def main_grid(args):
    population = POPULATIONS["gaussian_sign_100d"]
    if args.quick:
        sizes, epsilons, big, big_epsilons = [2_000, 20_000], [1.0, 4.0], [], []
    else:
        sizes, epsilons = [10_000, 100_000], [0.5, 1.0, 2.0, 4.0, 8.0]
        big, big_epsilons = [1_000_000], epsilons
    seeds = seeds_for(args, {10_000: 3})
    rows = run_grid(
        population,
        grid_methods(args.quick),
        evaluate,
        sizes=sizes,
        epsilons=epsilons,
        seeds=seeds,
    )
    if big:
        rows += run_grid(
            population,
            grid_methods(args.quick, big=True),
            evaluate,
            sizes=big,
            epsilons=big_epsilons,
            seeds=seeds,
        )
    table = aggregate(rows, ["accuracy"])
    accuracy, columns = pivot(table, "accuracy")
    times, time_columns = time_table(table, REFERENCE)
    command = "python -m benchmarks.bench_dp_nonconvex" + (
        " --quick" if args.quick else ""
    )
    notes = (
        f"Population `{population.name}`: {population.description} (public "
        f"l2 bound data_norm = {population.data_norm:g}; users clip); test "
        f"accuracy on {population.n_test:,} held-out users. delta = {DELTA} "
        "(replace-one for the central estimators, per user for the local "
        "baselines). Seeds (data and noise): "
        + ("1." if args.quick else "3 at n = 1e4 (means), 1 at n = 1e5 and 1e6.")
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
            if args.quick
            else "; variants (improved calibration): `DP-PMD l2 ball` (method = "
            f"'pmd', constraint = 'l2', radius {GRID_RADIUS:g}: DP-PGD on the l2 "
            "ball) and `DP-PGD sigmoid+l1` (DPSVRGClassifier(solver = 'gd', "
            f"loss = 'sigmoid', alpha = {LAMBDA / 2}, l1_ratio = 1): seed 004's "
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
        + f"\n\nCommand: `{command}`."
    )
    report(
        "dp_constrained",
        accuracy,
        columns,
        title="DPConstrainedClassifier (central DP): test accuracy on seed 004's task",
        notes=notes,
        save=not args.no_save,
    )
    if not args.no_save:
        plot_utility(table, "accuracy", "dp_constrained", ylabel="test accuracy")
    return table


# ---------------------------------------------- sparse high-dimensional
def sparse_methods(population):
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

    def dp_gd_unconstrained(data, epsilon, seed):
        return DPSVRGClassifier(
            epsilon=epsilon,
            delta=DELTA,
            solver="gd",
            n_epochs=SPARSE_ITERATIONS,
            data_norm=public_l2_bound(data.population),
            random_state=seed,
        ).fit(data.X, data.y)

    out += [
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
    return out


def sparse_experiment(args):
    if args.quick:
        plan = [("rademacher_1000d", [2_000])]
        epsilons = [2.0]
    else:
        plan = [("rademacher_1000d", [10_000]), ("rademacher_10000d", [2_000])]
        epsilons = [0.5, 2.0, 8.0]
    seeds = seeds_for(args, {})
    rows = []
    for name, sizes in plan:
        population = POPULATIONS[name]
        rows += run_grid(
            population,
            sparse_methods(population),
            evaluate,
            sizes=sizes,
            epsilons=epsilons,
            seeds=seeds,
        )
    table = aggregate(rows, ["accuracy"])
    accuracy, columns = pivot(table, "accuracy")
    times, time_columns = time_table(table, REFERENCE)
    command = "python -m benchmarks.bench_dp_nonconvex" + (
        " --quick" if args.quick else ""
    )
    populations = [POPULATIONS[name] for name, _ in plan]
    descriptions = "; ".join(f"`{p.name}`: {p.description}" for p in populations)
    notes = (
        f"Populations: {descriptions}; features clipped at the public bound 1 "
        "(l2 bound sqrt(d) for the Gaussian mechanisms); test accuracy on "
        f"{populations[0].n_test:,} held-out users; one seed (data and noise). "
        "n is small because these populations are dense d-column matrices "
        "(capped at 50,000 users by memory; 10,000 x 1,000 is 80 MB) and "
        "every method makes T full passes: "
        + ", ".join(
            f"n = {sizes[0]:,} at d = {POPULATIONS[name].params['n_features']:,}"
            for name, sizes in plan
        )
        + f". delta = {DELTA}.\n\nColumns: `{REFERENCE}` (non-private, "
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
        + f"\n\nCommand: `{command}`."
    )
    report(
        "dp_constrained_sparse",
        accuracy,
        columns,
        title="Sparse signal in high dimension: DP-FW-L1 against the other "
        "methods (test accuracy)",
        notes=notes,
        save=not args.no_save,
    )
    if not args.no_save:
        plot_utility(table, "accuracy", "dp_constrained_sparse", ylabel="test accuracy")
    return table


def main():
    args = parse_args(__doc__.splitlines()[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        seed004_experiment(args)
        sparse_experiment(args)
        main_grid(args)


if __name__ == "__main__":
    main()
