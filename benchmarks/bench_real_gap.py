"""Real-data gap to the non-private model: each supervised estimator against the best baseline.

Issue 16's criterion: on the real-data populations at n = 1e6 and epsilon =
4, each supervised LDP estimator's error gap to the non-private model should
be at most half the best baseline's gap. For every population and seed
(data and noise) this script fits, on the same users,

- the non-private reference: ``LogisticRegression`` (classifiers),
  ``LinearRegression`` (``SparseLDPRegressor``, ``LocalBernsteinRegressor``)
  or ``RBFSampler + RidgeCV`` (``KernelRidgeLDP``, as in its own benchmark);
- the baselines of :mod:`benchmarks._baselines`: ``naive`` (scikit-learn on
  Gaussian (x, y) reports at the same (epsilon, delta); for
  ``KernelRidgeLDP``'s populations also its benchmark's naive RFF + RidgeCV
  pipeline), ``debiased LS`` (debiased least squares on the same kind of
  reports, one-vs-rest for several classes), for the classification
  populations and ``SparseLDPRegressor``'s ``debiased LS (PrivUnitG)``
  (the same on the PrivUnitG pair reports ``GLMLDPClassifier``,
  ``HingeLDPClassifier``, ``SparseLDPClassifier`` and
  ``SparseLDPRegressor`` collect by default: their own reports) and
  ``trivial`` (the majority class / the mean of y of the training users);
- the estimators at their library defaults, with the public parameters
  their own benchmarks pass (bounds, ``l1_radius``).

Per estimator: gap = reference - metric (accuracy or held-out R^2) for the
estimator and for the best baseline (the highest mean over seeds), their
ratio with a delta-method standard error (paired over seeds), and the
verdict ``met`` when the ratio is at most 1/2.

Whether a cell that is not met could be met at all from these reports: the
moment oracles of :mod:`benchmarks._moment_oracles` replay each Gaussian-
report estimator's own reports (its public ``make_randomizer``, run with its
``random_state``; estimators whose default report is PrivUnitG's get none)
and fit its kind of linear rule with the exact covariance
of the clean features (or the exact cross moment, or neither, or both),
tuned on the clean training records. The better of ``known covariance`` and
``report moments`` is the cell's oracle bound; the page says per cell
whether it reaches the target ``(reference + best baseline) / 2``
(``impossible`` / ``reachable`` / ``undecided`` at 2 standard errors) and
which moment limits.

    python -m benchmarks.bench_real_gap [--quick]
"""

import json
import warnings

import numpy as np
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import r2_score

from benchmarks._baselines import (
    DELTA,
    DELTA_NOTE,
    PRIVUNIT_LS,
    GaussianLeastSquares,
    PrivUnitLeastSquares,
    naive_fit,
    record_randomizer,
)
from benchmarks._harness import Benchmark, Report, main, timed
from benchmarks._moment_oracles import (
    DRAW_SELECTION_USERS,
    NOISE_DRAWS,
    ORACLES,
    moment_oracles,
)
from benchmarks._populations import POPULATIONS
from benchmarks.bench_kernel_ridge import rff_ridge
from benchmarks.bench_same_reports import servers_on_reports
from sklearn_ldp import (
    GLMLDPClassifier,
    HingeLDPClassifier,
    KernelRidgeLDP,
    LocalBernsteinRegressor,
    SparseLDPClassifier,
    SparseLDPRegressor,
)
from sklearn_ldp.aggregation import FoldedMoments, least_squares_path
from sklearn_ldp.randomizers import GaussianRecordRandomizer
from sklearn_ldp.utils import check_noise_random_state

EPSILON = 4.0
FULL = {"n": 1_000_000, "seeds": 3}
QUICK = {"n": 20_000, "seeds": 1}
#: SparseLDPClassifier's public l1 radius: bench_sparse_classifier's value
#: (the library default is 1); the real data sets publish no prior of their own.
SPARSE_CLASSIFIER_L1_RADIUS = 20.0
LOGISTIC = "LogisticRegression"
LINEAR = "LinearRegression"
RFF = "RFF + RidgeCV"

#: population -> (estimator names run on it)
CLASSIFICATION = {
    "breast_cancer": ("GLMLDPClassifier", "HingeLDPClassifier", "SparseLDPClassifier"),
    "digits_binary": ("GLMLDPClassifier", "HingeLDPClassifier", "SparseLDPClassifier"),
    "wine": ("GLMLDPClassifier",),
    "digits": ("GLMLDPClassifier",),
}
REGRESSION = {
    "diabetes": ("SparseLDPRegressor", "KernelRidgeLDP"),
    "diabetes_5d": ("SparseLDPRegressor", "KernelRidgeLDP"),
    "diabetes_2d": ("SparseLDPRegressor", "LocalBernsteinRegressor"),
}
#: estimator -> its non-private reference (the model its own benchmark uses).
REFERENCE = {
    "GLMLDPClassifier": LOGISTIC,
    "HingeLDPClassifier": LOGISTIC,
    "SparseLDPClassifier": LOGISTIC,
    "SparseLDPRegressor": LINEAR,
    "KernelRidgeLDP": RFF,
    "LocalBernsteinRegressor": LINEAR,
}


# ------------------------------------------------------------- estimators
def estimator(name, population, seed):
    """The estimator ``name`` at its library defaults, with the public
    parameters its own benchmark passes."""
    common = {"epsilon": EPSILON, "random_state": seed}
    if name == "GLMLDPClassifier":
        return GLMLDPClassifier(delta=DELTA, data_norm=population.data_norm, **common)
    if name == "HingeLDPClassifier":
        return HingeLDPClassifier(delta=DELTA, data_norm=population.data_norm, **common)
    if name == "SparseLDPClassifier":
        return SparseLDPClassifier(
            delta=DELTA, l1_radius=SPARSE_CLASSIFIER_L1_RADIUS, **common
        )
    if name == "SparseLDPRegressor":
        # The library default l1_radius='auto' unless the population
        # publishes a radius (the real data sets publish none).
        declared = {k: v for k, v in population.params.items() if k == "l1_radius"}
        return SparseLDPRegressor(
            delta=DELTA,
            **declared,
            data_norm=population.data_norm,
            y_bound=population.y_bound,
            **common,
        )
    if name == "KernelRidgeLDP":
        # The population's public bound (as bench_kernel_ridge passes it):
        # its default gamma is then 1 / data_norm^2.
        return KernelRidgeLDP(delta=DELTA, data_norm=population.data_norm, **common)
    if name == "LocalBernsteinRegressor":
        return LocalBernsteinRegressor(**common)
    raise ValueError(name)


#: Estimators whose reports are one Gaussian release of (features, target):
#: their cells get the moment oracles (l1-ball candidates for the sparse ones).
ORACLE_L1 = {
    "GLMLDPClassifier": False,
    "HingeLDPClassifier": False,
    "SparseLDPClassifier": True,
    "SparseLDPRegressor": True,
    "KernelRidgeLDP": False,
}
#: The oracles that read the reports' cross moment; the better of the two
#: (higher mean) is the cell's oracle bound.
BOUNDING = ("oracle: known covariance", "oracle: report moments")
#: The known-covariance oracle on the estimator's very reports (one draw).
OWN_REPORTS = "oracle: known covariance (own reports)"


def oracles(out, population, names, X, y, X_test, y_test, seed, classes=None):
    """The moment oracles of every estimator of ``names`` on its own reports.

    Estimators whose randomizers coincide (same noise levels, no feature
    map or the same one) and that take the same candidates share one
    computation: their reports are the same.
    """
    done = {}
    for name in names:
        if name not in ORACLE_L1:
            continue
        randomizer = estimator(name, population, seed).make_randomizer(
            X.shape[1], n_users=len(X), classes=classes
        )
        if not isinstance(randomizer, GaussianRecordRandomizer):
            continue  # the oracles replay Gaussian reports (PrivUnitG: none)
        key = (
            randomizer.sigma_x,
            randomizer.sigma_y,
            repr(randomizer.feature_map_config),
            ORACLE_L1[name],
        )
        if key not in done:
            done[key] = moment_oracles(
                randomizer, X, y, X_test, y_test, seed, l1=ORACLE_L1[name]
            )
        out.update({f"{name} | {k}": v for k, v in done[key].items()})


def chose(out, name, model):
    """Record the candidate an estimator's report-only selection kept."""
    if name in REFERENCE and hasattr(model, "selected_model_"):
        out[f"{name} chose"] = model.selected_model_


# --------------------------------------------------------------- baselines
def multiclass_baselines(X, y, X_test, y_test, classes, seed, data_norm):
    """Naive and debiased least squares for several classes, on one set of
    Gaussian reports of (x, one-hot label) (``record_randomizer``)."""
    randomizer = record_randomizer(
        X.shape[1], EPSILON, delta=DELTA, data_norm=data_norm, classes=list(classes)
    )
    reports = randomizer.randomize(X, y, random_state=check_noise_random_state(seed))
    z, v = reports["x"], np.asarray(reports["y"], dtype=float)
    out = {}
    noisy = classes[np.argmax(v, axis=1)]
    naive = LogisticRegression().fit(z, noisy)
    out["naive"] = naive.score(X_test, y_test)
    # One-vs-rest debiased least squares on the one-hot labels, as
    # bench_same_reports computes it (per-chunk moments, the library's ridge
    # path; ridge 2 sigma_x^2 sqrt(p / n), the intercept not penalized).
    moments = FoldedMoments(
        z,
        v,
        sigma_x=randomizer.sigma_x,
        sigma_t=randomizer.sigma_y,
        n_folds=1,
        random_state=np.random.default_rng(0),
    ).moments([0])
    ridge = 2.0 * randomizer.sigma_x**2 * np.sqrt(z.shape[1] / len(z))
    W = least_squares_path(moments, [ridge])[0]
    scores = X_test @ W[:-1] + W[-1]
    out["debiased LS"] = float(np.mean(classes[np.argmax(scores, axis=1)] == y_test))
    return out


def classification_draw(population, n, seed, names):
    """Accuracy of the reference, the baselines and the estimators on one draw."""
    X, y, X_test, y_test = population.train_test(n, seed)
    classes = np.unique(y)
    out, seconds = {}, {}

    def record(name, fit):
        model, seconds[name], _ = timed(fit)
        out[name] = float(model.score(X_test, y_test))
        chose(out, name, model)

    record(LOGISTIC, lambda: LogisticRegression().fit(X, y))
    record("trivial", lambda: DummyClassifier().fit(X, y))
    norm = population.data_norm
    if len(classes) == 2:
        record(
            "naive",
            lambda: naive_fit(
                LogisticRegression(),
                X,
                y,
                EPSILON,
                seed,
                classes=[0, 1],
                delta=DELTA,
                data_norm=norm,
            ),
        )
        record(
            "debiased LS",
            lambda: GaussianLeastSquares(
                EPSILON, seed, classes=[0, 1], delta=DELTA, data_norm=norm
            ).fit(X, y),
        )
        record(
            PRIVUNIT_LS,
            lambda: PrivUnitLeastSquares(
                EPSILON, seed, classes=[0, 1], data_norm=norm
            ).fit(X, y),
        )
    else:
        both, elapsed, _ = timed(
            multiclass_baselines, X, y, X_test, y_test, classes, seed, norm
        )
        out.update(both)
        seconds["naive"] = seconds["debiased LS"] = elapsed / 2
        # One-vs-rest least squares on the PrivUnitG reports the classifiers
        # collect by default (bench_same_reports' servers on one draw).
        privunit, seconds[PRIVUNIT_LS], _ = timed(
            servers_on_reports, "privunit", X, y, X_test, y_test, classes, EPSILON, seed
        )
        out[PRIVUNIT_LS] = float(privunit["debiased LS (privunit)"])
    for name in names:
        record(name, lambda name=name: estimator(name, population, seed).fit(X, y))
    _, seconds["oracles"], _ = timed(
        oracles, out, population, names, X, y, X_test, y_test, seed, classes
    )
    return out, seconds


def r2(model, X_test, y_test):
    return float(r2_score(y_test, model.predict(X_test)))


def estimators_draw(population, n, seed, names, metric):
    """The estimators ``names`` (and their oracles) alone on one draw.

    ``--estimators``: after a change to those estimators only, their
    entries of a saved draw are replaced (the references and baselines of
    the same draw do not depend on them).
    """
    X, y, X_test, y_test = population.train_test(n, seed)
    classes = np.unique(y) if metric == "accuracy" else None
    out, seconds = {}, {}
    for name in names:
        model, seconds[name], _ = timed(
            lambda name=name: estimator(name, population, seed).fit(X, y)
        )
        out[name] = (
            float(model.score(X_test, y_test))
            if classes is not None
            else r2(model, X_test, y_test)
        )
        chose(out, name, model)
    _, seconds["oracles"], _ = timed(
        oracles, out, population, names, X, y, X_test, y_test, seed, classes
    )
    return out, seconds


def _replace_estimators(kept_draw, fresh, names):
    """``kept_draw`` (out, seconds) with the entries of ``names`` from ``fresh``."""
    out, seconds = dict(kept_draw[0]), dict(kept_draw[1])
    for key in list(out):
        if key.split(" | ")[0] in names or key in {f"{n} chose" for n in names}:
            del out[key]
    out.update(fresh[0])
    seconds.update({k: v for k, v in fresh[1].items() if k in names})
    return out, seconds


def regression_draw(population, n, seed, names):
    """Held-out R^2 of the references, the baselines and the estimators."""
    X, y, X_test, y_test = population.train_test(n, seed)
    out, seconds = {}, {}
    bounds = {"delta": DELTA, "data_norm": population.data_norm, "y_bound": 1.0}

    def record(name, fit):
        model, seconds[name], _ = timed(fit)
        out[name] = r2(model, X_test, y_test)
        chose(out, name, model)

    record(LINEAR, lambda: LinearRegression().fit(X, y))
    record("trivial", lambda: DummyRegressor().fit(X, y))
    record(
        "naive", lambda: naive_fit(LinearRegression(), X, y, EPSILON, seed, **bounds)
    )
    record(
        "debiased LS", lambda: GaussianLeastSquares(EPSILON, seed, **bounds).fit(X, y)
    )
    if "SparseLDPRegressor" in names:
        # Least squares on the PrivUnitG pair reports SparseLDPRegressor
        # collects by default (the identity projection at these d).
        record(
            PRIVUNIT_LS,
            lambda: PrivUnitLeastSquares(
                EPSILON, seed, data_norm=population.data_norm, y_bound=1.0
            ).fit(X, y),
        )
    if "KernelRidgeLDP" in names:
        record(RFF, lambda: rff_ridge(population, seed).fit(X, y))
        record(
            "naive RFF",
            lambda: naive_fit(
                rff_ridge(population, seed), X, y, EPSILON, seed, **bounds
            ),
        )
    for name in names:
        record(name, lambda name=name: estimator(name, population, seed).fit(X, y))
    _, seconds["oracles"], _ = timed(
        oracles, out, population, names, X, y, X_test, y_test, seed
    )
    return out, seconds


# ---------------------------------------------------------------- the table
def mean_se(values):
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else np.nan
    return float(values.mean()), float(se)


def fmt(values, digits=3):
    mean, se = mean_se(values)
    return (
        f"{mean:.{digits}f}"
        if not np.isfinite(se)
        else f"{mean:.{digits}f} ± {se:.{digits}f}"
    )


def ratio_se(numerator, denominator):
    """``mean(a) / mean(b)`` and its delta-method standard error, paired over
    seeds: ``|R| sqrt(Var a / a^2 + Var b / b^2 - 2 Cov(a, b) / (a b)) /
    sqrt(k)``."""
    a, b = np.asarray(numerator, float), np.asarray(denominator, float)
    ratio = a.mean() / b.mean()
    if a.size < 2:
        return float(ratio), np.nan
    cov = np.cov(a, b, ddof=1)
    relative = (
        cov[0, 0] / a.mean() ** 2
        + cov[1, 1] / b.mean() ** 2
        - 2.0 * cov[0, 1] / (a.mean() * b.mean())
    )
    return float(ratio), float(abs(ratio) * np.sqrt(max(relative, 0.0) / a.size))


#: Estimators whose default report is the PrivUnitG pair report: their
#: ``ratio (own reports)`` compares with least squares on those reports
#: (the sparse estimators: the identity projection these populations get).
PRIVUNIT_DEFAULT = (
    "GLMLDPClassifier",
    "HingeLDPClassifier",
    "KernelRidgeLDP",
    "SparseLDPClassifier",
    "SparseLDPRegressor",
)


def cell(population, metric, name, draws):
    """One row: reference, baselines, estimator, gaps, ratio, verdict."""
    reference = REFERENCE[name]
    # The baselines (Gaussian reports, or nothing); the least squares
    # on the PrivUnitG reports the classifiers collect is reported beside
    # them (``ratio (own reports)``), not folded into the verdict.
    baselines = [
        b for b in ("naive", "naive RFF", "debiased LS", "trivial") if b in draws[0]
    ]
    best = max(baselines, key=lambda b: np.mean([d[b] for d in draws]))
    ref = np.array([d[reference] for d in draws])
    est = np.array([d[name] for d in draws])
    base = np.array([d[best] for d in draws])
    ratio, se = ratio_se(ref - est, ref - base)
    own = {}
    if PRIVUNIT_LS in draws[0]:
        baselines.append(PRIVUNIT_LS)
    if PRIVUNIT_LS in draws[0] and name in PRIVUNIT_DEFAULT:
        values = np.array([d[PRIVUNIT_LS] for d in draws])
        own_ratio, own_se = ratio_se(ref - est, ref - values)
        own["ratio (own reports)"] = (
            f"{own_ratio:.2f}"
            if not np.isfinite(own_se)
            else f"{own_ratio:.2f} ± {own_se:.2f}"
        )
    # ref - (ref - base) / 2, per seed
    target = 0.5 * (ref + base)
    row = {
        "population": population,
        "metric": metric,
        "estimator": name,
        "reference": reference,
        "non-private": fmt(ref),
        **{b: fmt([d[b] for d in draws]) for b in baselines},
        "estimator metric": fmt(est),
        "best baseline": best,
        "estimator gap": fmt(ref - est),
        "best-baseline gap": fmt(ref - base),
        "ratio": f"{ratio:.2f}" if not np.isfinite(se) else f"{ratio:.2f} ± {se:.2f}",
        **own,
        "chose": "/".join(d.get(f"{name} chose", "") for d in draws),
        "verdict": "met" if ratio <= 0.5 else "not met",
        "target": fmt(target),
        "_ref": ref,
        "_est": est,
        "_base": base,
        "_target": target,
        "_ratio": ratio,
        "_se": se,
    }
    if f"{name} | clean LS" in draws[0]:
        for oracle in (*ORACLES, OWN_REPORTS):
            values = np.array([d[f"{name} | {oracle}"] for d in draws])
            row[oracle], row[f"_{oracle}"] = fmt(values), values
        bound = max(BOUNDING, key=lambda oracle: row[f"_{oracle}"].mean())
        row["_bound_name"], row["_bound"] = bound, row[f"_{bound}"]
        row["bound - target"] = fmt(row["_bound"] - target)
        row["_diagnostics"] = {
            k: float(np.mean([d[f"{name} | {k}"] for d in draws]))
            for k in ("_p", "_gram_noise", "_below_noise", "_cross_noise")
        }
    row["oracle verdict"] = oracle_verdict(row)
    return row


def oracle_verdict(row):
    """``met``; else from the oracle bound minus the target (paired over seeds,
    2 standard errors): ``impossible``, ``reachable`` or ``undecided``
    (``n/a`` without an oracle)."""
    if row["verdict"] == "met":
        return "met"
    if "_bound" not in row:
        return "n/a"
    mean, se = mean_se(row["_bound"] - row["_target"])
    se = se if np.isfinite(se) else 0.0
    if mean + 2.0 * se < 0.0:
        return "impossible"
    if mean - 2.0 * se >= 0.0:
        return "reachable"
    return "undecided"


def explain(row):
    """Why a cell is not met, from its own numbers."""
    ref, est, base = row["_ref"].mean(), row["_est"].mean(), row["_base"].mean()
    gap, base_gap = ref - est, ref - base
    target = ref - base_gap / 2.0
    metric = "accuracy" if row["metric"] == "accuracy" else "R^2"
    parts = [
        f"meeting it needs {metric} >= {ref:.3f} - {base_gap:.3f} / 2 = "
        f"{target:.3f}; the estimator reached {est:.3f} (gap {gap:.3f}, "
        f"{row['ratio']} of the baseline's)"
    ]
    diff = row["_est"] - row["_base"]
    diff_se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else np.nan
    if est < base:
        plus = f" ± {diff_se:.3f}" if np.isfinite(diff_se) else ""
        if np.isfinite(diff_se) and base - est <= 2.0 * diff_se:
            parts.append(
                f"it is below the best baseline ({row['best baseline']}) by "
                f"{base - est:.3f}{plus} (within 2 SE of the paired "
                "difference): it does no better than a baseline on the same "
                "kind of reports"
            )
        else:
            parts.append(
                f"it is *below* the best baseline ({row['best baseline']}) by "
                f"{base - est:.3f}{plus}: a shortfall of the estimator, not a "
                "limit of the reports (the baseline reads the same kind of "
                "reports)"
            )
    parts.append(explain_oracle(row))
    choices = [c for c in row["chose"].split("/") if c]
    for choice in ("constant", "least_squares", "linear"):
        k = choices.count(choice)
        if k:
            parts.append(
                f"its selection kept '{choice}' on {k} of {len(choices)} seeds"
            )
    if base_gap < 0.03:
        parts.append(
            f"the best baseline is already within {base_gap:.3f} of the "
            f"non-private model: halving that asks for {metric} within "
            f"{base_gap / 2:.3f} of it"
        )
    return f"- `{row['population']}`, {row['estimator']}: " + "; ".join(parts) + "."


def explain_oracle(row):
    """The oracle's part of a "why not met" line: reachable or not, and what limits."""
    if "_bound" not in row:
        return "no moment oracle (its reports are not one Gaussian (x, y) release)"
    target = row["_target"].mean()
    known_cov = fmt(row["_oracle: known covariance"])
    own = row["_oracle: report moments"]
    cross = row["_oracle: known cross moment"]
    clean = row["_clean LS"]
    diag = row["_diagnostics"]
    reached = (
        f"knowing the clean covariance the oracle reaches {known_cov}, tuning "
        f"the reports' own moments on the clean records {fmt(own)}"
    )
    verdict = row["oracle verdict"]
    if verdict == "impossible":
        text = (
            f"impossible for a server of this kind on these reports: "
            f"{reached}, both < target {target:.3f} (bound - target "
            f"{row['bound - target']})"
        )
        if cross.mean() >= target:
            text += (
                f"; the cross moment is the limit: with the exact cross moment "
                f"even the reports' covariance reaches {fmt(cross)}, and the "
                f"reports' cross moment carries noise sigma_x sigma_y / sqrt(n) "
                f"= {diag['_cross_noise']:.3g} per coordinate"
            )
        else:
            text += (
                f"; with the exact cross moment and the reports' covariance the "
                f"oracle reaches {fmt(cross)}, also short: both moments limit"
            )
        if clean.mean() < target:
            text += (
                f"; the non-private least-squares rule on these features reaches "
                f"only {fmt(clean)}: the model class itself falls short"
            )
        return text
    if verdict == "reachable":
        text = (
            f"reachable in principle: {reached}; the better "
            f"({row['_bound_name'].removeprefix('oracle: ')}) is >= target "
            f"{target:.3f} (bound - target {row['bound - target']})"
        )
        if own.mean() >= target:
            return text + (
                "; as the reports' own moments suffice, the estimator's "
                "shortfall is its report-only choice among its candidates "
                "(penalty, radius, threshold, or the constant), measured on "
                "noisy held-out reports, not the moments"
            )
        return text + (
            f"; only the clean covariance gets there: the shortfall is the "
            f"covariance estimation noise (the debiased second moment spreads by "
            f"sigma_x^2 sqrt(p / n) = {diag['_gram_noise']:.3g} in operator "
            f"norm, above {diag['_below_noise']:.0f} of the {diag['_p']:.0f} "
            f"eigenvalues of the clean feature covariance)"
        )
    return (
        f"undecided at these seeds: {reached}; the better minus the target "
        f"{target:.3f} is {row['bound - target']}, within 2 standard errors of 0"
    )


ORACLE_COLUMNS = [
    "population",
    "estimator",
    "target",
    "estimator metric",
    *ORACLES,
    OWN_REPORTS,
    "bound - target",
    "oracle verdict",
]

COLUMNS = [
    "population",
    "estimator",
    "reference",
    "non-private",
    "naive",
    "naive RFF",
    "debiased LS",
    PRIVUNIT_LS,
    "trivial",
    "estimator metric",
    "best baseline",
    "estimator gap",
    "best-baseline gap",
    "ratio",
    "ratio (own reports)",
    "chose",
    "verdict",
    "target",
    "oracle verdict",
]


def _load_draws(path):
    """``{population: {seed: (out, seconds)}}`` of a previous run, or empty."""
    if not path.exists():
        return {}
    kept = json.loads(path.read_text())
    return {
        p: {int(seed): (d["out"], d["seconds"]) for seed, d in by_seed.items()}
        for p, by_seed in kept.items()
    }


def _save_draws(path, draws):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                p: {str(s): {"out": o, "seconds": t} for s, (o, t) in sorted(d.items())}
                for p, d in draws.items()
            },
            indent=1,
            default=float,
        )
        + "\n"
    )


def real_gap(run):
    grid = QUICK if run.quick else FULL
    count = getattr(run.options, "seeds", None) or grid["seeds"]
    n, seeds = grid["n"], [run.seed + k for k in range(count)]
    only = getattr(run.options, "populations", None)
    estimators = getattr(run.options, "estimators", None)
    if estimators and not only:
        raise SystemExit("--estimators needs --populations (whose saved draws to update)")
    if getattr(run.options, "from_draws", False):
        only = ()  # re-run nothing: the page from the saved draws
    # Every draw is kept (docs/benchmarks/real_gap_draws.json): a run with
    # --populations re-runs those and reads the others' last draws.
    cache = run.directory / "real_gap_draws.json"
    kept = _load_draws(cache) if run.save else {}
    if only is not None and not run.save:
        raise SystemExit(
            "--populations and --from-draws read the saved draws: drop --no-save"
        )
    rows, times, used = [], [], {}
    plan = [
        *(
            (p, "accuracy", names, classification_draw)
            for p, names in CLASSIFICATION.items()
        ),
        *((p, "R^2", names, regression_draw) for p, names in REGRESSION.items()),
    ]
    for name, metric, names, draw in plan:
        population = POPULATIONS[name]
        if only is not None and name not in only:
            if name not in kept:  # not run yet: its rows are left out
                print(f"{name}: no saved draws, left out of the page", flush=True)
                continue
            here = sorted(kept[name])
        elif estimators:
            here = sorted(kept[name])
            for seed in here:
                fresh = estimators_draw(
                    population, n, seed, [e for e in names if e in estimators], metric
                )
                kept[name][seed] = _replace_estimators(
                    kept[name][seed], fresh, estimators
                )
                print(name, seed, *fresh, flush=True)
                if run.save:
                    _save_draws(cache, kept)
        else:
            here, kept[name] = seeds, {}
            for seed in seeds:
                kept[name][seed] = draw(population, n, seed, names)
                print(name, seed, *kept[name][seed], flush=True)
                if run.save:
                    _save_draws(cache, kept)
        used[name] = here
        draws = [kept[name][seed][0] for seed in here]
        seconds = [kept[name][seed][1] for seed in here]
        for estimator_name in names:
            rows.append(cell(name, metric, estimator_name, draws))
        times.append(
            {
                "population": name,
                **{k: f"{np.mean([s[k] for s in seconds]):.1f}" for k in seconds[0]},
            }
        )
    return [
        Report(
            "real_gap",
            f"Real-data gap to the non-private model (n = {n:,}, epsilon = "
            f"{EPSILON:g})",
            rows,
            COLUMNS,
            notes(rows, times, run, n, used),
        )
    ]


ORACLE_NOTE = f"""What the oracles are. Every estimator with an oracle
(all but LocalBernsteinRegressor, whose reports are Bernstein-basis loss
values) receives one Gaussian report per user, `z = phi(x) + N(0, sigma_x^2
I)`, `v = t + N(0, sigma_y^2)` (`phi` the clipped features, an identity
random projection for the sparse estimators, KernelRidgeLDP's random Fourier
features; `t` the clipped target, the +-1 label, or the one-hot label), and
builds a linear rule from two debiased moments of the reports: the second
moment `G = E[[phi, 1][phi, 1]^T]`, estimated by `mean [z, 1][z, 1]^T -
sigma_x^2 I` (projected to PSD), and the cross moment `c = E[[phi, 1]
t^T]`, estimated by `mean [z, 1] v^T`. The oracles replay the estimator's
own reports (its public `make_randomizer`, run with its `random_state`;
sigma_x and sigma_y are that randomizer's) and fit the same kind of rule
with information no LDP server has (benchmarks/_moment_oracles.py):

- `oracle: known covariance`: the exact second moment of the clean
  training features, the cross moment (and the label mean) from the reports;
- `oracle: known cross moment` (the converse): the reports' second moment,
  the exact cross moment: which moment limits;
- `oracle: report moments`: both moments from the reports, as the
  estimator has them;
- `clean LS`: both exact (non-private): the ceiling of such rules.

Each fits the ridge path `(G + alpha I)^-1 c` (intercept unpenalized;
alpha from 0 to 10^4 times the mean eigenvalue of the clean covariance,
32 values) and, for SparseLDPClassifier / SparseLDPRegressor,
l1-constrained least squares (9 radii x 6 ridges on the replayed reports,
5 x 3 in the noise draws below), and keeps the candidate
that is best on the clean training users: the exact squared risk from the
clean moments (regression), the accuracy on clean training users with the
threshold along the direction also set on them (two classes), the
one-vs-rest argmax accuracy (several classes). It is then scored on the
held-out users like the estimator.

One draw of the reports is one draw of the oracle: its spread over the 3
seeds (mostly the cross moment's noise) would leave most verdicts within 2
standard errors. So the oracle columns are each oracle's *expected* metric
over the reports' noise given the seed's users: the mean over
{NOISE_DRAWS} draws of the two debiased moments from their law given the
clean records (`noisy_moments`: the terms linear in the noise are exactly
Gaussian given the data; `mean xi xi^T - sigma_x^2 I` and `mean xi eta^T`
by the central limit theorem at 10^6 users). Checked against replayed
reports (the randomizer run with other seeds): over 300 replays of 20,000
users the spread of the noisy feature means is 0.97-1.02 times the law's
and that of a diagonal entry of the second moment 1.05 times; on
`diabetes_5d` (20,000 users, SparseLDPRegressor's reports) 30 replays give
the known-covariance oracle R^2 0.175 (sd 0.152 over replays), the law
0.191 (sd 0.139), while the estimator's own replay gave 0.413: one draw
says little. The selection is on
{DRAW_SELECTION_USERS:,} clean training users per draw. `{OWN_REPORTS}` is
the known-covariance oracle on the estimator's very reports (replayed: its
public `make_randomizer` run with its `random_state`; 200,000 selection
users): one draw of the same law.

Why it bounds these estimators, and how far. Each of them fits from the
reports' two debiased moments a member of this family and chooses among
its members and the constant from held-out *reports*: GLMLDPClassifier and
HingeLDPClassifier (degree 1, the default) minimize a quadratic whose data
are the debiased moments on an l2 ball with a noise-scale ridge (a point of
the ridge path, up to the ball also holding the intercept) and refit the
threshold; SparseLDPClassifier and SparseLDPRegressor do the same on l1
balls; KernelRidgeLDP runs debiased ridge on its feature reports. `oracle:
report moments` picks the best member with the clean records instead of
noisy held-out reports, so no report-only selection over the same family
can beat it by more than its ranking error (the members are ranked on the
training records and scored on held-out records). `oracle: known
covariance` also removes the noise of the second moment. The cross
moment's noise it keeps is in every server's input: each coordinate of
`mean [z, 1] v` carries `mean xi eta`, of standard deviation sigma_x
sigma_y / sqrt(n). Neither is a theorem about every server: the
known-covariance oracle is not even above the report-moment one on every
draw (the same feature noise enters both estimated moments, so a noisy
second moment can, by chance, undo part of the cross moment's error; hence
the bound is the better of the two), and a server that uses other functions
of the reports (higher moments, deconvolution of the noisy features, a
non-linear rule) is not covered. The verdicts hold for servers that build
a linear (or one-vs-rest linear) rule from the debiased first and second
moments of these reports; KernelRidgeLDP's oracle is on its own random
features (its n_components and gamma), not on the reference's 100
features."""


def _seeds_text(used):
    """``{population: seeds}`` as text: one list, or the populations by list."""
    lists = {}
    for population, seeds in used.items():
        lists.setdefault(tuple(seeds), []).append(f"`{population}`")
    if len(lists) == 1:
        return f"seeds {list(next(iter(lists)))}"
    return "seeds " + "; ".join(
        f"{list(seeds)} for {', '.join(names)}" for seeds, names in lists.items()
    )


def notes(rows, times, run, n, used):
    from benchmarks._tables import format_table

    time_columns = list(dict.fromkeys(k for t in times for k in t))
    met = sum(r["verdict"] == "met" for r in rows)
    verdicts = [r["oracle verdict"] for r in rows]
    tally = ", ".join(
        f"{verdicts.count(v)} {v}"
        for v in ("impossible", "reachable", "undecided")
        if verdicts.count(v)
    )
    oracle_rows = [r for r in rows if "_bound" in r or r["verdict"] != "met"]
    # An empty table (every cell met without an oracle) is not a table.
    oracle_table = (
        format_table(oracle_rows, ORACLE_COLUMNS)
        if oracle_rows
        else "Every cell is met: no oracle bound was needed."
    )
    explained = "\n".join(explain(r) for r in rows if r["verdict"] != "met")
    explained = explained or "Every cell is met."
    same = [
        f"{a['estimator']} and {b['estimator']} on `{a['population']}`"
        for i, a in enumerate(rows)
        for b in rows[i + 1 :]
        if a["population"] == b["population"] and np.array_equal(a["_est"], b["_est"])
    ]
    above = [
        f"{r['estimator']} on `{r['population']}` ({fmt(r['_est'])} against "
        f"{fmt(r['_bound'])})"
        for r in rows
        if "_bound" in r and r["_est"].mean() > r["_bound"].mean()
    ]
    explained += (
        "\n\nEstimators above their oracle bound (the bound is not a theorem, "
        "see above): " + "; ".join(above) + "."
        if above
        else "\n\nNo estimator is above its oracle bound."
    )
    if same:
        explained += (
            "\n\nIdentical test metric on every seed (the same predictions on "
            "these users): " + "; ".join(same) + "."
        )
    described = "\n".join(
        f"- `{p}`: {POPULATIONS[p].description}" for p in (*CLASSIFICATION, *REGRESSION)
    )
    return f"""{met} of {len(rows)} cells meet the criterion (ratio <= 0.5); of
the others, by the oracle bound below: {tally or "none"}.

n = {n:,} training users, epsilon = {EPSILON:g}, delta = {DELTA:g}
({DELTA_NOTE}); {_seeds_text(used)} (data and noise); every number is the mean ±
standard error over seeds. Metric: test accuracy (classifiers) or held-out
R^2 (regressors) on the population's held-out users (20,000; digits: the 297
held-out images resampled).

Populations:

{described}

Columns: `reference` = the non-private scikit-learn model the gap is
measured to (`{LOGISTIC}` with defaults for every classifier;
`{LINEAR}` for SparseLDPRegressor and LocalBernsteinRegressor; `{RFF}`
= RBFSampler(100 features, gamma = 1/d) + RidgeCV, KernelRidgeLDP's own
non-private counterpart); `non-private` = its metric. Baselines
(benchmarks/_baselines.py, one noise stream per seed): `naive` =
{LOGISTIC} / {LINEAR} on Gaussian (x, y) reports at the same (epsilon,
delta) (label: sign of the noisy +-1 label, or argmax of the noisy one-hot
label for several classes); `naive RFF` = the RFF + RidgeCV pipeline on
those reports (KernelRidgeLDP's populations); `debiased LS` = debiased least
squares on the same kind of reports (ridge 2 sigma^2 sqrt(p / n), sign /
one-vs-rest argmax for classes, then with an unpenalized intercept, as in
bench_same_reports); `trivial` = the majority class / the mean of
the training y. `best baseline` = the baseline with the highest mean metric
(over every baseline of the population). Gap = reference metric - metric,
per seed; `ratio` = mean estimator gap / mean best-baseline gap, ± its
delta-method standard error over the paired seeds; `met` when the ratio is
at most 0.5.

Estimators, library defaults with the public parameters their benchmarks
pass: GLMLDPClassifier(delta, data_norm), HingeLDPClassifier(delta,
data_norm), SparseLDPClassifier(delta, l1_radius = {SPARSE_CLASSIFIER_L1_RADIUS:g},
bench_sparse_classifier's value: the real data sets publish no l1 prior),
SparseLDPRegressor(delta, data_norm, y_bound = 1; default l1_radius = 'auto'),
KernelRidgeLDP(delta, data_norm = the population bound; default gamma
1 / data_norm^2), LocalBernsteinRegressor()
(pure epsilon-LDP, diabetes_2d only: it is for 1-2 features).

## Oracle bounds: is the target reachable from these reports?

`target` = reference - best-baseline gap / 2 = (reference + best baseline)
/ 2, per seed: the metric an estimator needs to meet the criterion.

{ORACLE_NOTE}

{oracle_table}

`bound - target`: the oracle bound (the better, by its mean, of `oracle:
known covariance` and `oracle: report moments`) minus the target, per seed,
mean ± standard error. Verdict: `impossible` when it is below 0 by more than
2 standard errors, `reachable` when it is at least 0 by 2 standard errors,
`undecided` otherwise; `met` cells keep their verdict, `n/a` has no oracle.

## Why the cells that are not met are not met

Each line from the numbers of the tables (means over seeds ± standard
error; `ratio` ± its delta-method standard error).

{explained}

## Fit time (seconds, mean over seeds)

{format_table(times, time_columns)}

Shared 2-core machine (another benchmark running): times are noisy.
Command: `OMP_NUM_THREADS=1 nice -n 5 {run.command}` (`--seeds K` for K draws per
population; `--from-draws` writes the page from the saved draws alone;
`--populations P ...` re-runs those populations and reads the others' last
draws from `real_gap_draws.json`, with `--estimators E ...` only those
estimators on the saved draws of those populations; the seeds of each
population are listed above)."""


SPEC = Benchmark(
    name="bench_real_gap",
    description=__doc__.splitlines()[0],
    ignore=(ConvergenceWarning,),
    steps=(real_gap,),
    options=(
        (
            "--seeds",
            {"type": int, "help": "draws per population (default 3; quick: 1)"},
        ),
        (
            "--populations",
            {
                "nargs": "+",
                "choices": [*CLASSIFICATION, *REGRESSION],
                "help": "re-run these populations only; the others' draws are "
                "read from docs/benchmarks/real_gap_draws.json",
            },
        ),
        (
            "--estimators",
            {
                "nargs": "+",
                "help": "with --populations: re-run only these estimators on "
                "the saved draws of those populations (same seeds) and keep "
                "everything else of each draw",
            },
        ),
        (
            "--from-draws",
            {
                "action": "store_true",
                "help": "re-run nothing: write the page from the saved draws",
            },
        ),
    ),
)

if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        main(SPEC)
