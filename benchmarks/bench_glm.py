"""GLMLDPClassifier: accuracy and excess logistic risk against n and epsilon.

Compares, at equal (epsilon, delta = 1e-5) per user:

- the non-private references: scikit-learn ``LogisticRegression`` and the
  exact minimizer of the same logistic risk over the same ball (scipy);
- the naive baseline: users perturb (x, y) with the same Gaussian mechanism
  (jointly calibrated, analytic); the server fits ``LogisticRegression`` on
  the noisy features and the sign of the noisy label;
- debiased least squares used as a classifier (same reports; Gram matrix
  debiased by ``n sigma_x^2``, projected to PSD, ridge at the scale of its
  noise ``2 sigma_x^2 sqrt(p / n)``; sign of the fit);
- GLMLDPClassifier, improved mode (one report, fission) with Chebyshev
  degrees 1 and 3, ``degree='auto'``, both solvers, and Lemma 32; and the
  paper-faithful mode (seed 003 Algorithm 5 reports: ``1 + p (p+1) / 2``
  feature copies and ``p + 1`` label copies per user).

Data sets (features scaled into the unit ball, ``data_norm = 1``):

- ``synthetic``: 10 correlated Gaussian features (norm about 0.95, clipped
  to 1), labels from a logistic model (so the logistic loss is well
  specified);
- ``breast_cancer``: scikit-learn's Wisconsin breast cancer data (569 x 30),
  standardized, divided by ``2 sqrt(30)`` and clipped to the unit ball,
  resampled with replacement to ``n`` users with a small Gaussian jitter
  (0.05 in standardized units) so that users are distinct. The
  standardization constants come from the 569 original rows and are treated
  as public (a real deployment would fix them from domain knowledge).

Excess risk: the logistic risk on the training users minus its minimum over
``||(w, b)|| <= coef_norm`` (the constraint the private models have).

    python -m benchmarks.bench_glm --quick
"""

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression

from benchmarks._harness import parse_args, report, save_figure, timed
from sklearn_ldp import GLMLDPClassifier
from sklearn_ldp._glm import glm_risk
from sklearn_ldp.aggregation import SufficientStatistics, project_psd
from sklearn_ldp.randomizers import GaussianRecordRandomizer

DELTA = 1e-5
COEF_NORM = 2.0


def _data_rng(seed):
    # A stream of its own: with RandomState(seed) the users' noise (drawn
    # from RandomState(seed) too) would replay the normals that made X.
    return np.random.RandomState([seed, 2024])


def synthetic(n, seed):
    rng = _data_rng(seed)
    p = 10
    # Correlated features: a fixed rotation of scales 0.45 .. 0.15.
    rotation = np.linalg.qr(np.random.RandomState(1234).standard_normal((p, p)))[0]
    X = (rng.standard_normal((n, p)) * np.linspace(0.45, 0.15, p)) @ rotation
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    w = np.linspace(6.0, -3.0, p)
    y = (rng.uniform(size=n) < expit(X @ w + 0.3)).astype(int)
    return X, y


def breast_cancer(n, seed):
    data = load_breast_cancer()
    mean, scale = data.data.mean(axis=0), data.data.std(axis=0)
    standardized = (data.data - mean) / scale
    rng = _data_rng(seed)
    rows = rng.randint(len(standardized), size=n)
    X = standardized[rows] + 0.05 * rng.standard_normal((n, standardized.shape[1]))
    X /= 2.0 * np.sqrt(standardized.shape[1])
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, data.target[rows]


DATASETS = {"synthetic": synthetic, "breast_cancer": breast_cancer}


def reference_risk(X, y):
    """Minimum of the logistic risk over the ball of radius COEF_NORM (scipy)."""
    s = 2.0 * y - 1.0
    Z = np.hstack([X, np.ones((len(X), 1))])

    def risk(w):
        return -np.mean(log_expit(s * (Z @ w)))

    def grad(w):
        return -(expit(-s * (Z @ w)) * s) @ Z / len(X)

    ball = {
        "type": "ineq",
        "fun": lambda w: COEF_NORM**2 - w @ w,
        "jac": lambda w: -2.0 * w,
    }
    result = minimize(
        risk,
        np.zeros(Z.shape[1]),
        jac=grad,
        method="SLSQP",
        constraints=[ball],
        options={"ftol": 1e-12, "maxiter": 500},
    )
    return float(result.fun)


def noisy_reports(X, y, epsilon, seed):
    randomizer = GaussianRecordRandomizer(
        X.shape[1], epsilon=epsilon, delta=DELTA, data_norm=1.0, classes=[0, 1]
    )
    reports = randomizer.randomize(X, y, random_state=np.random.RandomState(seed))
    return reports["x"], reports["y"], randomizer.sigma_x


def naive_logistic(X, y, epsilon, seed):
    x_noisy, y_noisy, _ = noisy_reports(X, y, epsilon, seed)
    labels = (y_noisy > 0).astype(int)
    if labels.min() == labels.max():
        labels[0] = 1 - labels[0]
    model = LogisticRegression().fit(x_noisy, labels)
    return model.coef_[0], float(model.intercept_[0])


def debiased_least_squares(X, y, epsilon, seed):
    x_noisy, y_noisy, sigma_x = noisy_reports(X, y, epsilon, seed)
    n, p = x_noisy.shape
    stats = SufficientStatistics(p + 1)
    stats.update(np.hstack([x_noisy, np.ones((n, 1))]), y_noisy)
    # The constant feature carries no noise: debias the feature block only.
    noise = np.diag(np.append(np.full(p, sigma_x**2), 0.0))
    gram = project_psd(stats.gram / n - noise)
    # Ridge at the operator-norm scale of the Gram's noise (2 sigma^2
    # sqrt(p / n) for a Wishart): without it the directions the debiasing
    # wiped out are amplified arbitrarily.
    ridge = 2.0 * sigma_x**2 * np.sqrt(p / n) + 1e-6
    w = np.linalg.solve(gram + ridge * np.eye(p + 1), stats.moment / n)
    return w[:p], float(w[p])


def glm_ldp(X, y, epsilon, seed, **params):
    clf = GLMLDPClassifier(
        epsilon=epsilon, delta=DELTA, coef_norm=COEF_NORM, random_state=seed, **params
    ).fit(X, y)
    return (clf.coef_[0], float(clf.intercept_[0])), clf.degree_


METHODS = {
    "naive: LR on noisy (x, y)": naive_logistic,
    "debiased least squares": debiased_least_squares,
    "glm d=1 gd": {"degree": 1},
    "glm d=3 gd": {"degree": 3},
    "glm auto gd": {"degree": "auto"},
    "glm d=1 sigm": {"degree": 1, "solver": "sigm"},
    "glm lemma32 d=3 gd": {"degree": 3, "approximation": "lemma32"},
    "glm paper d=1": {"degree": 1, "calibration": "paper"},
    "glm paper d=2": {"degree": 2, "calibration": "paper"},
}
#: What runs at each size. The machine the benchmark ran on is shared (2
#: cores, 5 jobs): a 100-iteration full-batch fit takes 10-30 s at n = 1e5,
#: so n = 1e5 runs a subset of epsilons and methods and n = 1e6 only the
#: one-pass SIGM fit and the baselines.
GRID = {
    10_000: ([0.5, 1, 2, 4, 8], set(METHODS)),
    100_000: (
        [1, 4, 8],
        set(METHODS) - {"glm auto gd", "glm paper d=2"},
    ),
    1_000_000: (
        [1, 8],
        {"naive: LR on noisy (x, y)", "debiased least squares", "glm d=1 sigm"},
    ),
}


def evaluate(coef, intercept, X, y, X_test, y_test, best_risk):
    accuracy = np.mean(((X_test @ coef + intercept) > 0).astype(int) == y_test)
    # The risk of the model rescaled into the ball (the baselines are not in it).
    scale = max(1.0, np.linalg.norm(np.append(coef, intercept)) / COEF_NORM)
    risk = glm_risk(coef / scale, intercept / scale, X, 2 * y - 1)
    return float(accuracy), risk - best_risk


def main():
    args = parse_args(__doc__.splitlines()[0])
    grid = {10_000: ([1.0, 8.0], set(METHODS))} if args.quick else GRID
    sizes = list(grid)
    rows = []
    for dataset, make in DATASETS.items():
        X_test, y_test = make(20_000, seed=10_000)
        for n in sizes:
            X, y = make(n, args.seed)
            best_risk = reference_risk(X, y)
            reference = LogisticRegression(C=1e4).fit(X, y)
            accuracy, excess = evaluate(
                reference.coef_[0],
                reference.intercept_[0],
                X,
                y,
                X_test,
                y_test,
                best_risk,
            )
            rows.append(
                _row(
                    dataset,
                    n,
                    "inf",
                    "LogisticRegression (non-private)",
                    "-",
                    accuracy,
                    excess,
                    0.0,
                )
            )
            epsilons, methods = grid[n]
            for epsilon in epsilons:
                for name, method in METHODS.items():
                    if name not in methods:
                        continue
                    if callable(method):
                        fitted, seconds, _ = timed(method, X, y, epsilon, args.seed)
                        degree = "-"
                    else:
                        (fitted, degree), seconds, _ = timed(
                            glm_ldp, X, y, epsilon, args.seed, **method
                        )
                    accuracy, excess = evaluate(
                        *fitted, X, y, X_test, y_test, best_risk
                    )
                    rows.append(
                        _row(
                            dataset, n, epsilon, name, degree, accuracy, excess, seconds
                        )
                    )
                    print(rows[-1], flush=True)
    columns = [
        "data",
        "n",
        "epsilon",
        "method",
        "degree",
        "accuracy",
        "excess risk",
        "seconds",
    ]
    notes = (
        f"delta = {DELTA}, coef_norm = {COEF_NORM}, data_norm = 1, fit_intercept, "
        "max_iter = 100, one data/noise seed (--seed); the grid per n is GRID in "
        "the script. Excess risk: logistic risk on the training users "
        "minus its minimum over the ball. Command: python -m benchmarks.bench_glm"
        + (" --quick" if args.quick else "")
    )
    name = "glm_quick" if args.quick else "glm"
    report(
        name,
        rows,
        columns,
        title="GLMLDPClassifier",
        notes=notes,
        save=not args.no_save,
    )
    if not args.no_save:
        plot(rows, sizes, name)


def _row(dataset, n, epsilon, method, degree, accuracy, excess, seconds):
    return {
        "data": dataset,
        "n": n,
        "epsilon": epsilon,
        "method": method,
        "degree": degree,
        "accuracy": accuracy,
        "excess risk": excess,
        "seconds": seconds,
    }


def plot(rows, sizes, name):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        len(DATASETS),
        len(sizes),
        figsize=(4.5 * len(sizes), 3.8 * len(DATASETS)),
        sharey="row",
        squeeze=False,
    )
    colors = dict(zip(METHODS, plt.cm.tab10.colors, strict=False))
    for i, dataset in enumerate(DATASETS):
        for j, n in enumerate(sizes):
            ax = axes[i, j]
            for method in METHODS:
                points = sorted(
                    (float(r["epsilon"]), r["accuracy"])
                    for r in rows
                    if r["data"] == dataset and r["n"] == n and r["method"] == method
                )
                if points:
                    xs, ys = zip(*points, strict=True)
                    style = "--" if "paper" in method or "naive" in method else "-"
                    ax.plot(
                        xs,
                        ys,
                        style,
                        marker="o",
                        ms=3,
                        color=colors[method],
                        label=method,
                    )
            ref = [
                r["accuracy"]
                for r in rows
                if r["data"] == dataset and r["n"] == n and r["epsilon"] == "inf"
            ]
            ax.axhline(
                ref[0], color="black", lw=1, label="LogisticRegression (non-private)"
            )
            ax.set_xscale("log", base=2)
            ax.set_title(f"{dataset}, n = {n:,}", fontsize=9)
            ax.set_xlabel("epsilon per user (delta = 1e-5)")
        axes[i, 0].set_ylabel("test accuracy")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=7)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    save_figure(fig, name)


if __name__ == "__main__":
    main()
