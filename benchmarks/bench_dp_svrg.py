"""DPSVRGClassifier: DP-SVRG vs DP-SVRG++ vs DP-GD (seed 002, Appendix A).

Seed 002's experiment: l2-regularised logistic regression on 200,000 rows
of Covertype (54 features), optimality gap of DP-SVRG, DP-SVRG++ and DP-GD
against the number of gradient evaluations and the running time, for
epsilon in {0.1, 0.5, 1, 2}. Covertype is not available offline, so we run

- ``synthetic``: ``make_classification`` with 200,000 rows and 54 features
  (20 informative, 10 redundant), rows scaled by the public constant
  ``1 / (6 sqrt(54))`` (about 99% of rows then lie inside the public bound
  ``data_norm = 1``; the rest are clipped);
- ``digits``: scikit-learn's ``load_digits`` (1,797 images, 64 pixel
  features in 0..16), binary task "digit >= 5", pixels divided by the public
  maximum norm 16 * 8 = 128 (so ``||x|| <= 1`` without clipping); 1,500
  images are resampled with replacement to 200,000 training rows and the
  other 297 form the test set.

Every point is a complete private run at the stated epsilon (delta = 1e-5,
replace-one) whose noise was calibrated for its own number of epochs/steps:
the x-axis is the budget of gradient evaluations fixed in advance, not a
position inside one run. The optimality gap is ``F(w) - F*`` on the clipped
training data, ``F* `` from scikit-learn's ``LogisticRegression`` with
``C = 1 / (n alpha)`` and ``tol = 1e-10``. ``alpha = 1e-4`` (the seed's value
was lost in extraction). Gradient evaluations are ``n`` per full gradient
plus ``2 q n`` expected per inner SVRG step.

Accuracy table (held-out rows, estimator defaults: 'svrg' 10 epochs,
'svrg++' 6 doubling epochs, 'gd' 100 steps) next to the non-private
``LogisticRegression`` and the naive baseline: each user perturbs its own
(x, y) with the Gaussian mechanism at the same (epsilon, delta)
(``GaussianRecordRandomizer``, the label sent as a noisy +-1), and the
server fits ``LogisticRegression`` on the noisy rows labelled by the sign of
the noisy label. diffprivlib's ``LogisticRegression`` was not run (it does
not import with scikit-learn 1.9; see the docs page).

Run ``python -m benchmarks.bench_dp_svrg [--quick]``.
"""

import numpy as np
from scipy.special import log_expit
from sklearn.datasets import load_digits, make_classification
from sklearn.linear_model import LogisticRegression

from benchmarks._harness import parse_args, report, save_figure, timed
from sklearn_ldp import DPSVRGClassifier
from sklearn_ldp.randomizers import GaussianRecordRandomizer, clip_l2

DELTA = 1e-5
ALPHA = 1e-4
SOLVERS = ("svrg", "svrg++", "gd")
COLORS = {"svrg": "tab:blue", "svrg++": "tab:green", "gd": "tab:red"}


def synthetic(n_train, n_test, seed):
    d = 54
    X, y = make_classification(
        n_samples=n_train + n_test,
        n_features=d,
        n_informative=20,
        n_redundant=10,
        random_state=seed,
    )
    X = X / (6 * np.sqrt(d))
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def digits(n_train, seed):
    data = load_digits()
    X, y = data.data / 128.0, (data.target >= 5).astype(int)
    order = np.random.RandomState(seed).permutation(len(y))
    train, test = order[:1500], order[1500:]
    resample = np.random.RandomState(seed + 1).choice(train, size=n_train)
    return X[resample], y[resample], X[test], y[test]


def objective(coef, intercept, X, signs, alpha):
    scores = X @ coef.ravel() + intercept[0]
    return np.mean(-log_expit(signs * scores)) + alpha / 2 * np.sum(coef**2)


def expected_evaluations(clf, n):
    if clf.solver == "gd":
        return clf.n_epochs_ * n
    inner = 2 * clf.sampling_rate_ * n * clf.epoch_lengths_.sum()
    return clf.n_epochs_ * n + inner


def naive_baseline(X, y, X_test, y_test, epsilon, seed):
    randomizer = GaussianRecordRandomizer(
        X.shape[1], epsilon=epsilon, delta=DELTA, data_norm=1.0, classes=[0, 1]
    )
    reports = randomizer.randomize(X, y, random_state=seed)
    labels = (reports.fields["y"].ravel() > 0).astype(int)
    model = LogisticRegression(C=1.0 / (len(y) * ALPHA), max_iter=1000)
    return model.fit(reports.fields["x"], labels).score(X_test, y_test)


def budgets(quick):
    if quick:
        return {"svrg": [1, 4], "svrg++": [3, 5], "gd": [10, 50]}
    return {
        "svrg": [1, 2, 4, 8, 16],
        "svrg++": [3, 4, 5, 6, 7],
        "gd": [10, 30, 100, 300],
    }


def run_dataset(name, X, y, X_test, y_test, epsilons, quick, seeds):
    n = len(y)
    X_clipped = clip_l2(X, 1.0)
    signs = np.where(y == 1, 1.0, -1.0)
    reference = LogisticRegression(C=1.0 / (n * ALPHA), tol=1e-10, max_iter=10_000)
    reference.fit(X_clipped, y)
    optimum = objective(reference.coef_, reference.intercept_, X_clipped, signs, ALPHA)
    public_accuracy = reference.score(X_test, y_test)
    curves, accuracy_rows = [], []
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
                        random_state=seed,
                    )
                    _, seconds, _ = timed(clf.fit, X, y)
                    gap = objective(clf.coef_, clf.intercept_, X_clipped, signs, ALPHA)
                    gaps.append(gap - optimum)
                    times.append(seconds)
                curves.append(
                    {
                        "data": name,
                        "epsilon": epsilon,
                        "solver": solver,
                        "n_epochs": n_epochs,
                        "passes": expected_evaluations(clf, n) / n,
                        "time_s": float(np.mean(times)),
                        "gap": float(np.mean(gaps)),
                        "gap_sd": float(np.std(gaps)),
                    }
                )
                print(curves[-1], flush=True)
        row = {"data": name, "epsilon": epsilon, "LogisticRegression": public_accuracy}
        for solver in SOLVERS:
            scores = [
                DPSVRGClassifier(
                    epsilon=epsilon,
                    delta=DELTA,
                    solver=solver,
                    alpha=ALPHA,
                    random_state=seed,
                )
                .fit(X, y)
                .score(X_test, y_test)
                for seed in seeds
            ]
            row[solver] = float(np.mean(scores))
        row["naive"] = float(
            np.mean([naive_baseline(X, y, X_test, y_test, epsilon, s) for s in seeds])
        )
        accuracy_rows.append(row)
        print(row, flush=True)
    return curves, accuracy_rows


def plot(curves, epsilons, names, x_key, x_label, log_x):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        len(names),
        len(epsilons),
        figsize=(3.2 * len(epsilons), 2.8 * len(names)),
        squeeze=False,
        sharey="row",
    )
    for i, name in enumerate(names):
        for j, epsilon in enumerate(epsilons):
            ax = axes[i, j]
            for solver in SOLVERS:
                points = [
                    c
                    for c in curves
                    if c["data"] == name
                    and c["epsilon"] == epsilon
                    and c["solver"] == solver
                ]
                ax.plot(
                    [p[x_key] for p in points],
                    [p["gap"] for p in points],
                    "o-",
                    color=COLORS[solver],
                    label=f"DP-{solver.upper()}",
                )
            ax.set_xscale("log" if log_x else "linear")
            ax.set_yscale("log")
            ax.set_title(f"{name}, eps = {epsilon}", fontsize=9)
            ax.set_xlabel(x_label, fontsize=8)
            if j == 0:
                ax.set_ylabel("optimality gap F(w) - F*", fontsize=8)
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def main():
    args = parse_args(__doc__.splitlines()[0])
    quick = args.quick
    n_train = 10_000 if quick else 200_000
    epsilons = [1.0] if quick else [0.1, 0.5, 1.0, 2.0]
    seeds = [args.seed] if quick else [args.seed, args.seed + 1]
    datasets = {
        "synthetic": synthetic(n_train, 5_000 if quick else 50_000, args.seed),
        "digits": digits(n_train, args.seed),
    }
    curves, accuracy = [], []
    for name, (X, y, X_test, y_test) in datasets.items():
        c, a = run_dataset(name, X, y, X_test, y_test, epsilons, quick, seeds)
        curves += c
        accuracy += a
    notes = (
        f"n = {n_train} training rows, alpha = {ALPHA}, delta = {DELTA} "
        f"(replace-one), mean over {len(seeds)} seed(s). 'passes' = expected "
        "gradient evaluations / n; every row is a complete private run "
        "calibrated for its own budget. Command: python -m "
        f"benchmarks.bench_dp_svrg{' --quick' if quick else ''}."
    )
    save = not args.no_save
    name = "dp_svrg_quick" if quick else "dp_svrg"
    report(
        name,
        curves,
        ["data", "epsilon", "solver", "n_epochs", "passes", "time_s", "gap", "gap_sd"],
        title="DP-SVRG vs DP-SVRG++ vs DP-GD: optimality gap at equal privacy",
        notes=notes,
        save=save,
    )
    report(
        f"{name}_accuracy",
        accuracy,
        ["data", "epsilon", "svrg", "svrg++", "gd", "naive", "LogisticRegression"],
        title="Held-out accuracy (estimator defaults) against baselines",
        notes=notes,
        save=save,
    )
    if save:
        names = list(datasets)
        save_figure(
            plot(curves, epsilons, names, "passes", "passes over the data", True), name
        )
        save_figure(
            plot(curves, epsilons, names, "time_s", "wall time (s)", True),
            f"{name}_time",
        )


if __name__ == "__main__":
    main()
