"""HingeLDPClassifier: accuracy and excess smoothed-hinge risk against n and epsilon.

Compares, at equal (epsilon, delta = 1e-5) per user, on the shared
populations ``linear_rule_10d`` and ``separable_2d``:

- the non-private references: scikit-learn ``LinearSVC`` and the exact
  minimizer of the same smoothed hinge risk over the same ball
  (``||(w, b)|| <= coef_norm = 1``, scipy SLSQP; the best any model of the
  private estimator's class can do on those users);
- the naive baseline (``naive_fit(LinearSVC())``: users perturb (x, y) with
  the same Gaussian mechanism, the server fits ``LinearSVC`` on the noisy
  features and the sign of the noisy label) and debiased least squares
  (``GaussianLeastSquares``, sign of the fit), both from
  :mod:`benchmarks._baselines`;
- HingeLDPClassifier, improved mode (the library default: one jointly
  calibrated report, fission, ``degree=1``, ``solver='sigm'``), with the
  variants ``solver='gd'`` and ``degree=2``, and the paper-faithful mode
  (``calibration='paper'``, ``d (d+1) + 1 = 3`` noisy copies of (x, y) per
  user at ``d = 1``).

Excess risk: the smoothed-hinge risk (``beta = 0.5``) on the training users of
the model rescaled into the ball, minus the ball minimum's.

    python -m benchmarks.bench_hinge [--quick]
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from benchmarks._baselines import (
    DELTA,
    ball_minimum,
    debiased_classifier,
    linear_parts,
    naive_classifier,
    nonprivate,
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
    seeds_by_size,
    time_table,
)
from benchmarks._populations import POPULATIONS
from sklearn_ldp import HingeLDPClassifier
from sklearn_ldp._hinge import (
    smoothed_hinge,
    smoothed_hinge_derivative,
    smoothed_hinge_risk,
)

SMOOTHING = 0.5
COEF_NORM = 1.0
BALL = "smoothed-hinge min in ball"
REFERENCE = "LinearSVC"


def smoothed_hinge_margin(margins):
    return smoothed_hinge(margins, SMOOTHING)


def smoothed_hinge_margin_derivative(margins):
    return smoothed_hinge_derivative(margins, SMOOTHING)


def evaluate(model, data):
    """Test accuracy, and the training smoothed-hinge risk of the model
    rescaled into the ball (LinearSVC and the baselines are not in it)."""
    coef, intercept = linear_parts(model)
    norm = data.population.data_norm
    scale = max(1.0, np.linalg.norm(np.append(coef * norm, intercept)) / COEF_NORM)
    risk = smoothed_hinge_risk(
        coef / scale, intercept / scale, data.X, 2 * data.y - 1, SMOOTHING, norm
    )
    return {"accuracy": model.score(data.X_test, data.y_test), "risk": risk}


def hinge(**params):
    def fit(data, epsilon, seed):
        return HingeLDPClassifier(
            epsilon=epsilon,
            delta=DELTA,
            smoothing=SMOOTHING,
            coef_norm=COEF_NORM,
            data_norm=data.population.data_norm,
            random_state=seed,
            **params,
        ).fit(data.X, data.y)

    return fit


def methods(quick):
    out = [
        Method(
            REFERENCE,
            lambda data, e, s: nonprivate(LinearSVC(), data.X, data.y),
            "non-private",
        ),
        Method(
            BALL,
            lambda data, e, s: ball_minimum(
                smoothed_hinge_margin,
                smoothed_hinge_margin_derivative,
                data.X,
                data.y,
                COEF_NORM,
                data.population.data_norm,
            ),
            "non-private",
        ),
        Method(
            "naive LinearSVC", naive_classifier(lambda data: LinearSVC()), "baseline"
        ),
        Method("debiased LS", debiased_classifier, "baseline"),
        Method("hinge (default)", hinge()),
        Method("hinge paper", hinge(calibration="paper"), "paper"),
    ]
    if not quick:
        out += [
            Method("hinge gd", hinge(solver="gd")),
            Method("hinge d=2", hinge(degree=2)),
        ]
    return out


def add_excess_risk(rows):
    """Excess risk = risk minus the ball minimum's on the same draw."""
    best = {
        (r["population"], r["n"], r["seed"]): r["risk"]
        for r in rows
        if r["method"] == BALL
    }
    for r in rows:
        r["excess risk"] = r["risk"] - best[(r["population"], r["n"], r["seed"])]
    return rows


def main():
    args = parse_args(__doc__.splitlines()[0])
    if args.quick:
        sizes, epsilons = [2_000, 20_000], [1.0, 8.0]

        seeds = seeds_by_size(args.seed, counts={})  # one seed per size

    else:
        sizes, epsilons = [10_000, 100_000, 1_000_000], [0.5, 1.0, 2.0, 4.0, 8.0]

        seeds = seeds_by_size(args.seed)

    populations = [POPULATIONS["linear_rule_10d"], POPULATIONS["separable_2d"]]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for population in populations:
            rows += run_grid(
                population,
                methods(args.quick),
                evaluate,
                sizes=sizes,
                epsilons=epsilons,
                seeds=seeds,
            )
    table = aggregate(add_excess_risk(rows), ["accuracy", "excess risk"])

    accuracy, columns = pivot(table, "accuracy")
    excess, _ = pivot(table, "excess risk")
    times, time_columns = time_table(table, REFERENCE)
    command = "python -m benchmarks.bench_hinge" + (" --quick" if args.quick else "")
    descriptions = "; ".join(f"`{p.name}`: {p.description}" for p in populations)
    notes = (
        f"Populations: {descriptions}; data_norm = 1, test accuracy on "
        f"{populations[0].n_test:,} held-out users. delta = {DELTA}, smoothing "
        f"beta = {SMOOTHING}, coef_norm = {COEF_NORM}, fit_intercept, max_iter = "
        "100. Seeds (data and noise): "
        + (
            "1."
            if args.quick
            else "3 at n = 1e4, 2 at n = 1e5, 1 at n = 1e6 (means over seeds)."
        )
        + f"\n\nColumns: `{REFERENCE}` (non-private, default C = 1); `{BALL}` "
        "(non-private: exact minimizer of the smoothed-hinge risk over the "
        "ball ||(w, b)|| <= coef_norm, the best the private model class can do); "
        "`naive LinearSVC` (LinearSVC on Gaussian (x, y) reports, label = sign "
        "of the noisy label); `debiased LS` (debiased least squares on the "
        "same reports, sign of the fit); `hinge (default)` (improved mode: "
        "one jointly calibrated report, fission, degree = 1, solver = 'sigm'); "
        "`hinge paper` (calibration = 'paper': d (d+1) + 1 = 3 copies of "
        "(x, y) per user at d = 1, basic composition, classic Gaussian "
        "formula; runs at every n: 770 MB at n = 1e6)"
        + (
            ""
            if args.quick
            else "; `hinge gd` (improved mode, solver = 'gd', 100 full-batch "
            "accelerated gradient steps); `hinge d=2` (improved mode, degree = 2)"
        )
        + ". Every method runs at every (n, eps) of the grid.\n\n"
        "## Excess smoothed-hinge risk\n\nRisk on the training users of the "
        "model rescaled into the ball, minus the ball minimum's (small "
        "negative values are within SLSQP's tolerance).\n\n"
        + format_table(excess, columns)
        + "\n\n## Fit time\n\nFit time divided by LinearSVC's on the same draw "
        "(mean over seeds); the last column is LinearSVC's time in seconds, "
        "for scale (shared 2-core machine: absolute times are noisy).\n\n"
        + format_table(times, time_columns)
        + f"\n\nCommand: `{command}` (OMP_NUM_THREADS=1)."
    )
    report(
        "hinge",
        accuracy,
        columns,
        title="HingeLDPClassifier: test accuracy",
        notes=notes,
        save=not args.no_save,
    )
    if not args.no_save:
        plot_utility(
            [r for r in table if r["method"] != BALL],
            "accuracy",
            "hinge",
            ylabel="test accuracy",
        )


if __name__ == "__main__":
    main()
