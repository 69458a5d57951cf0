"""The linear LDP classifiers against every baseline computed from the *same* reports.

Issue 16: a server that does worse than a linear solve on identical reports
leaves accuracy on the table, and an accuracy below the majority rate is a
bug. For every (population, n, epsilon, seed) the users' reports are drawn
ONCE per kind of collection (``GLMLDPClassifier(mechanism=kind)
.make_randomizer``, delta = 1e-7 for the Gaussian one): ``gaussian``, one
analytic Gaussian report of (x, y), and ``privunit``, the pure-epsilon
PrivUnitG report of the pair that the classifiers collect by default
(``mechanism='auto'``); every server of a kind reads those very reports:

- ``naive``: scikit-learn ``LogisticRegression`` on the noisy features and
  the noisy label's sign (one-vs-rest argmax of the noisy one-hot labels for
  several classes; PrivUnitG: the report's columns times ``report_scale``);
- ``debiased LS``: debiased least squares of the +-1 labels (one-vs-rest),
  Gram matrix projected to PSD, ridge ``2 sigma_x^2 sqrt(d / n)``
  (:func:`sklearn_ldp.aggregation.least_squares_path`; PrivUnitG: on the
  server's Gaussian-equivalent sums,
  :class:`~sklearn_ldp.aggregation._sufficient.PrivUnitFoldedGramSums`);
- ``trivial``: the majority class of the unbiased label means;
- ``glm``: ``GLMLDPClassifier(mechanism=kind).fit_reports`` (exact degree-1
  solve and report-only selection); ``glm (privunit)`` is the default;
- ``hinge``: ``HingeLDPClassifier(mechanism=kind).fit_reports`` (binary
  populations).

Non-private: ``LogisticRegression`` on the clean records. Cells: mean test
accuracy over seeds +- its standard error. ``verdict`` compares the default
with the best of {naive, debiased LS, trivial} of both kinds: ``ok`` when it
is within two standard errors of the difference (paired over seeds) or
better, and never below the trivial predictor by more than two standard
errors.

    python -m benchmarks.bench_same_reports [--quick]
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from benchmarks._baselines import DELTA, DELTA_NOTE
from benchmarks._harness import Benchmark, Report, main
from benchmarks._populations import POPULATIONS
from sklearn_ldp import GLMLDPClassifier, HingeLDPClassifier
from sklearn_ldp.aggregation import (
    FoldedGramSums,
    FoldedMoments,
    PrivUnitFoldedGramSums,
    least_squares_path,
)
from sklearn_ldp.randomizers import PrivUnitGRecordRandomizer
from sklearn_ldp.utils import check_noise_random_state

POPULATION_NAMES = ("breast_cancer", "digits_binary", "logistic_10d", "wine")
FULL = {
    "sizes": (10_000, 100_000, 1_000_000),
    "epsilons": (0.5, 1.0, 2.0, 4.0, 8.0),
    # n = 1e6: the epsilon of the criterion (a cell takes about a
    # minute per seed on the shared 2-core machine).
    "large": (1_000_000, (4.0,)),
    "seeds": (0, 1, 2),
}
QUICK = {
    "sizes": (5_000,),
    "epsilons": (1.0, 8.0),
    "large": (10**9, ()),
    "seeds": (0, 1, 2),
}
#: The two collections, each drawn once per cell and read by every server of
#: its columns: the Gaussian (x, y) report (``mechanism='gaussian'``) and
#: the PrivUnitG pair report the classifiers collect by default.
KINDS = ("gaussian", "privunit")
SERVERS = ("naive", "debiased LS", "trivial", "glm", "hinge")
METHODS = ("non-private",) + tuple(
    f"{server} ({kind})" for kind in KINDS for server in SERVERS
)
#: The default (GLMLDPClassifier() on its own reports) and its baselines.
DEFAULT = "glm (privunit)"
BASELINES = tuple(
    f"{server} ({kind})" for kind in KINDS for server in ("naive", "debiased LS", "trivial")
)


def _predict_linear(W, X, classes):
    scores = np.hstack([X, np.ones((len(X), 1))]) @ W
    if scores.shape[1] == 1:
        return classes[(scores[:, 0] > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]


def _report_columns(randomizer, reports, n_features):
    """``(z, t, sums)``: the noisy features, the noisy label columns as sent,
    and the server's fold sums of these reports (one fold)."""
    if isinstance(randomizer, PrivUnitGRecordRandomizer):
        pair = randomizer.report_scale * np.asarray(reports["x"])
        k = randomizer.n_targets
        sums = PrivUnitFoldedGramSums(
            1,
            n_features,
            k,
            report_scale=randomizer.report_scale,
            first_moment_factor=randomizer.first_moment_factor,
        )
        z, t = pair[:, :n_features], pair[:, n_features : n_features + k]
    else:
        z = np.asarray(reports["x"])
        t = np.asarray(reports["y"], dtype=float).reshape(len(z), -1)
        sums = FoldedGramSums(1, n_features, t.shape[1])
    sums.update(reports, np.zeros(len(z), dtype=np.int64))
    return z, t, sums


def servers_on_reports(kind, X, y, X_test, y_test, classes, epsilon, seed):
    """Every server of ``SERVERS`` on one draw of the ``kind`` reports."""
    binary = len(classes) == 2
    glm = GLMLDPClassifier(
        epsilon=epsilon, delta=DELTA, mechanism=kind, random_state=seed
    )
    randomizer = glm.make_randomizer(X.shape[1], classes=classes)
    reports = randomizer.randomize(X, y, random_state=check_noise_random_state(seed))
    z, t, sums = _report_columns(randomizer, reports, X.shape[1])
    labels = t if binary else 2.0 * t - 1.0  # +-1 (one-vs-rest) labels
    sigma_t = randomizer.sigma_y * (1.0 if binary else 2.0)
    moments = FoldedMoments.from_grams(
        sums.transformed_grams(
            target_scale=1.0 if binary else 2.0, target_shift=0.0 if binary else -1.0
        ),
        sums.counts,
        n_outputs=t.shape[1],
        sigma_x=randomizer.sigma_x,
        sigma_t=sigma_t,
    ).moments([0])
    out = {}
    # Trivial: the majority class of the unbiased label means.
    means = moments.mean_target
    majority = classes[int(means[0] > 0)] if binary else classes[np.argmax(means)]
    out[f"trivial ({kind})"] = np.mean(y_test == majority)
    noisy = (
        classes[(labels[:, 0] > 0).astype(int)]
        if binary
        else classes[np.argmax(labels, axis=1)]
    )
    if np.unique(noisy).size > 1:
        naive = LogisticRegression(max_iter=1000).fit(z, noisy)
        out[f"naive ({kind})"] = naive.score(X_test, y_test)
    else:
        out[f"naive ({kind})"] = out[f"trivial ({kind})"]
    ridge = 2.0 * randomizer.sigma_x**2 * np.sqrt(X.shape[1] / len(X))
    W = least_squares_path(moments, [ridge])[0]
    out[f"debiased LS ({kind})"] = np.mean(
        _predict_linear(W, X_test, classes) == y_test
    )
    glm.fit_reports(reports)
    out[f"glm ({kind})"] = glm.score(X_test, y_test)
    out[f"glm selected ({kind})"] = glm.selected_model_
    if binary:
        hinge = HingeLDPClassifier(
            epsilon=epsilon, delta=DELTA, mechanism=kind, random_state=seed
        )
        out[f"hinge ({kind})"] = hinge.fit_reports(reports).score(X_test, y_test)
    return out


def one_cell(population, n, epsilon, seed):
    X, y, X_test, y_test = population.train_test(n, seed)
    classes = np.unique(np.concatenate([y, y_test]))
    out = {
        "non-private": LogisticRegression(max_iter=1000)
        .fit(X, y)
        .score(X_test, y_test)
    }
    for kind in KINDS:
        out.update(servers_on_reports(kind, X, y, X_test, y_test, classes, epsilon, seed))
    return out


def _cell(values):
    values = np.asarray([v for v in values if v is not None], dtype=float)
    if values.size == 0:
        return ""
    if values.size == 1:
        return f"{values[0]:.3f}"
    return f"{values.mean():.3f} ± {values.std(ddof=1) / np.sqrt(values.size):.3f}"


def _verdict(runs):
    glm = np.array([r[DEFAULT] for r in runs])
    best_name = max(BASELINES, key=lambda k: np.mean([r[k] for r in runs]))
    best = np.array([r[best_name] for r in runs])
    trivial = np.array([r["trivial (privunit)"] for r in runs])

    def behind(reference):
        difference = glm - reference
        se = difference.std(ddof=1) / np.sqrt(len(runs)) if len(runs) > 1 else 0.0
        return difference.mean() < -2.0 * se - 1e-12

    if behind(trivial):
        return "BELOW TRIVIAL"
    return f"behind {best_name}" if behind(best) else "ok"


COLUMNS = ["population", "n", "epsilon", *METHODS, "glm chose", "verdict"]


def cell_row(name, n, epsilon, seeds):
    """The table's row of one cell (population ``name``, n, epsilon) over ``seeds``."""
    runs = [one_cell(POPULATIONS[name], n, epsilon, seed) for seed in seeds]
    row = {"population": name, "n": n, "epsilon": epsilon}
    for method in METHODS:
        row[method] = _cell([r.get(method) for r in runs])
    chosen = [r["glm selected (privunit)"] for r in runs]
    row["glm chose"] = (
        "/".join(chosen)
        if len(chosen) <= 5
        else ", ".join(f"{c} {chosen.count(c)}" for c in dict.fromkeys(chosen))
    )
    row["verdict"] = _verdict(runs)
    return row


def same_reports(run):
    grid = QUICK if run.quick else FULL
    rows = []
    for name in POPULATION_NAMES:
        for n in grid["sizes"]:
            for epsilon in grid["epsilons"]:
                if n >= grid["large"][0] and epsilon not in grid["large"][1]:
                    continue
                rows.append(cell_row(name, n, epsilon, grid["seeds"]))
                print(rows[-1], flush=True)
    notes = (
        "Populations: "
        + "; ".join(f"`{p}`: {POPULATIONS[p].description}" for p in POPULATION_NAMES)
        + f". delta = {DELTA:g} ({DELTA_NOTE}). Seeds {list(grid['seeds'])} (data "
        "and noise); one set of reports per seed, read by every server. Test "
        "accuracy on held-out users (20,000; digits: the 297 held-out images "
        "resampled). `(gaussian)` columns read one draw of the Gaussian (x, y) "
        "reports (`mechanism='gaussian'`), `(privunit)` columns one draw of the "
        "PrivUnitG pair reports the classifiers collect by default; `glm "
        "(privunit)` is the default. `glm chose`: the candidate the default's "
        "report-only selection kept per seed. n = 1e6 runs eps "
        + ", ".join(f"{e:g}" for e in grid["large"][1])
        + " only. Command: "
        + run.command
    )
    return [
        Report(
            "same_reports",
            "Linear LDP classifiers and the baselines on the same reports",
            rows,
            COLUMNS,
            notes,
        )
    ]


SPEC = Benchmark(
    name="bench_same_reports",
    description=__doc__.splitlines()[0],
    ignore=(ConvergenceWarning,),
    steps=(same_reports,),
)

if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        main(SPEC)
