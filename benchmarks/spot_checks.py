"""Many-seed checks of single benchmark cells, quoted in the estimator pages.

The benchmark tables run every cell with a few seeds; where a cell looked
off, the pages quote a check of that one cell with many more seeds (or, for
``DPSVRGClassifier`` at ``n = 10^6``, the one size the table did not run).
Each check prints its numbers (mean ± standard error over seeds):

``frequency-cell N K EPS FIRST COUNT [THEIR ...]``
    ``FrequencyLDP(mechanism='auto')`` against multi-freq-ldpy's mechanisms
    (``GRR``, ``OUE``, ``OLH``, ``SS``) on the Zipf population of
    ``bench_frequency``, seeds ``FIRST .. FIRST + COUNT - 1``, with the paired
    differences and the predicted variances of the unbiased estimates.
``frequency-postprocess N K EPS SEEDS [MECHANISM]``
    One mechanism's unbiased estimate (``postprocess='none'``), its
    Euclidean projection onto the simplex and clip-and-renormalize (what
    multi-freq-ldpy does), on the same reports.
``marginals-cell POPULATION N EPS K FIRST LAST``
    ``KWayMarginalsLDP`` with ``method='chebyshev'`` and ``'hadamard'``
    (seeds ``FIRST .. LAST - 1``), with their predicted errors.
``dp-svrg-large POPULATION EPS[,EPS...] SEED[,SEED...]``
    ``DPSVRGClassifier()`` and diffprivlib's ``LogisticRegression`` at
    ``n = 10^6`` (diffprivlib through its own environment, as in
    ``bench_dp_svrg``), with the non-private ``LogisticRegression``; with
    several seeds, the table of paired differences.
``dp-svrg-solvers POPULATION N[,N...] EPS[,EPS...] SEED[,SEED...] SOLVER,SOLVER``
    ``DPSVRGClassifier(solver=SOLVER)`` (every other parameter as in
    ``bench_dp_svrg``'s diffprivlib table) for two solvers on the same draws:
    mean accuracy of each, the paired difference (second minus first) and the
    median fit times (quoted on the diffprivlib page for ``auto`` against
    ``objective``).
``least-squares-baseline POPULATION N EPS SEED[,SEED...]``
    The debiased least-squares classifier of the GLM and hinge benchmarks:
    its ridge-shrunk intercept against the unpenalized one, and the angle of
    its direction to the non-private model's (quoted in the GLM and hinge
    pages).
``kernel-ridge-gamma POPULATION N EPS GAMMA[,GAMMA...] SEED[,SEED...]``
    ``KernelRidgeLDP`` (the population's public ``data_norm``, other
    parameters at their defaults) with each kernel scale ``gamma``: held-out
    R^2 per draw and the model the server chose (quoted on the kernel ridge
    page for the default ``gamma = 1 / data_norm^2``).
``kernel-ridge-alpha POPULATION N EPS SEED[,SEED...]``
    ``KernelRidgeLDP`` (the population's public ``data_norm``) with plain
    ``(x, y)`` reports: per draw, the penalty and held-out R^2 of the
    default rule (the public noise scale ``sigma_x^2 sqrt(d / n)``), of the
    one-standard-error rule on the held-out risks of ``AUTO_ALPHAS`` and of
    the least estimate alone (each fitted with that fixed ``alpha``), with
    the penalty's estimated risk and standard error (quoted on the kernel
    ridge page).
``kernel-ridge-permuted POPULATION N EPS DRAWS``
    ``KernelRidgeLDP`` (as ``bench_kernel_ridge`` fits it) and the
    benchmark's debiased least squares on a cell and on its twin with ``y``
    permuted (train and test: no signal, same features): held-out R^2 and
    how often the server kept a model (quoted on the kernel ridge page).
``sparse-regression-permuted POPULATION N EPS DRAWS``
    ``SparseLDPRegressor`` (as ``bench_sparse`` fits it) and the
    benchmark's debiased least squares on PrivUnitG reports (``debiased LS
    (PrivUnitG)``, the default's kind of report) on a cell and on its twin
    with ``y`` permuted (train and test: no signal, same features):
    held-out R^2 of each, their paired difference, how often the server
    kept a model, its shrinkage factor, the held-out signal statistic
    ``C^ / s`` of its model and the chi-square p-value of "no signal"
    (``cv_results_``; quoted on the sparse page).
``signal-power POPULATION N EPS DRAWS [MECHANISM]``
    What the reports of one classification cell tell the server about
    whether there is a signal: over ``DRAWS`` draws of data and noise, the
    population as it is and the same users with their labels permuted
    (train and test: no signal, same features and class balance), each
    with ``GLMLDPClassifier`` (as in ``bench_glm``: the smaller p-value of
    its two signal tests, the candidate it chose, its accuracy) and the
    benchmarks' debiased least-squares classifier (its accuracy). Where the
    tests reject about as often on both, no rule computed from the reports
    can keep the majority class on the permuted population and follow
    least squares on the real one (quoted in the GLM and hinge pages).
    ``MECHANISM``: the GLM's ``mechanism`` (default ``'auto'``).
``signal-null N D SIGMA DRAWS``
    The null distribution of ``directional_signal_test`` (the direction of
    debiased ridge least squares at the GLM's penalty, twice the Gram
    noise scale, fitted on 4 of 5 position folds): ``N`` users, features
    uniform on ``[-1, 1]^D`` scaled into the unit ball, +-1 labels
    independent of them, Gaussian reports with noise ``SIGMA`` on both.
    Over ``DRAWS`` draws: the z-statistic's mean and sd, the rejection rate
    at levels 0.05, 0.1, 0.2 (± binomial standard error) and the KS test of
    the p-values' uniformity (quoted in
    ``aggregation/_selection.py``, ``FOLD_PAIR_VARIANCE_FACTOR``).
``joint-noise EPS[,EPS...] D[,D...]``
    The joint report of ``GLMLDPClassifier`` (two classes, ``delta =
    1e-7``) with each mechanism: the noise ``sigma_x`` of the analytic
    Gaussian report and the Gaussian-equivalent noise of the PrivUnitG pair
    report (the server's second moments debias as a Gaussian report's of
    that noise), their ratio, and the population at and below which users
    send the label alone with each, the cap probability ``q`` of the
    PrivUnitG report and the seconds to draw 100,000 users' reports with
    each (quoted on the GLM page).
``sparse-radius POPULATION N EPS RADIUS[,RADIUS...] SEED[,SEED...]``
    ``SparseLDPRegressor`` (as ``bench_real_gap`` fits it) with each
    ``l1_radius`` (a float or ``auto``): held-out R^2 over the seeds and
    the radius chosen in each draw, the non-private least-squares l1
    norm, and every radius refitted on the first seed's
    same reports (``fit_reports``: the radius is the server's) with the
    chosen candidate's held-out risk (quoted on the sparse page).
``sparse-mechanism POPULATION N EPS SEED[,SEED...] [MECHANISM ...]``
    ``SparseLDPRegressor`` (as ``sparse-radius`` fits it, ``l1_radius =
    'auto'``) or, on a classification population, ``SparseLDPClassifier``
    (as ``bench_real_gap`` fits it) with each ``mechanism`` (default
    ``gaussian privunit``): the held-out R^2 (accuracy) per draw and over
    the seeds, the noise ``sigma_x`` of the features, the chosen radius,
    and the non-private least squares' R^2 (logistic regression's
    accuracy) (quoted on the sparse pages).
``sparse-signal POPULATION N EPS SEED[,SEED...]``
    Per draw, the standardized cross-moment coordinates of the sparse
    regressor's reports: the largest, the chi-square p-value on all of
    them, the Bonferroni p-value of the largest alone, and what the
    default chose (quoted on the sparse page).
``threshold-draws {glm,hinge,sparse} FIRST LAST``
    ``GLMLDPClassifier``, ``HingeLDPClassifier`` or ``SparseLDPClassifier``
    (``l1_radius = 5``, as the test) with ``epsilon = 8``, ``delta = 1e-7``,
    other parameters at their defaults, on the unbalanced task of
    ``tests/test_threshold_refit.py`` (20,000 users, classes 80 / 20 that
    differ along the first of 3 features), seeds ``FIRST .. LAST - 1``:
    per draw the test accuracy and the share of test users predicted in
    the majority class; then the mean, standard deviation and standard
    error of the accuracy and the number of draws below 0.9 (quoted in the
    GLM and hinge pages for the discriminant threshold).
``hinge-paper-direction POPULATION N EPS SEED[,SEED...]``
    ``HingeLDPClassifier(calibration='paper')`` as ``bench_hinge`` fits it
    (full-batch ``solver='gd'``, ``max_iter=100``), with ``max_iter`` 99
    and 101 and with the printed ``solver='sigm'``, on the same reports;
    and, from those reports, the estimated gradient field of the paper's
    degree-1 product oracle, ``g(w) = m + H w``: the cosine of its first
    step ``-m`` to the non-private direction, the eigenvalues of ``H`` and
    its antisymmetric part against the noise-free ``p1 E[z z^T]``, and the
    cosines of the last iterates of the gradient solver (a 2-cycle shows as
    alternating signs). Mean ± standard error of each accuracy over seeds
    (quoted on the hinge page for the paper mode's below-chance cells).
``deployment-draws FIRST LAST``
    The configuration of ``examples/deployment`` (``SparseLDPRegressor``,
    one million users): held-out R^2 over the noise draws ``FIRST .. LAST -
    1`` (quoted in ``tests/test_deployment.py`` and the deployment page).

Run ``python -m benchmarks.spot_checks <check> <arguments>``.
"""

import argparse
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from benchmarks._baselines import (
    DELTA,
    PRIVUNIT_LS,
    GaussianLeastSquares,
    public_l2_bound,
)
from benchmarks._harness import Data
from benchmarks._populations import POPULATIONS
from benchmarks.bench_dp_svrg import DIFFPRIVLIB_PYTHON
from benchmarks.bench_frequency import (
    _ours,
    _population,
    _theirs,
    _warm_up,
    their_variance,
)
from benchmarks.bench_marginals import MSE, evaluate_methods, method_fit
from sklearn_ldp import (
    DPSVRGClassifier,
    FrequencyLDP,
    KWayMarginalsLDP,
    SparseLDPClassifier,
    SparseLDPRegressor,
)
from sklearn_ldp.aggregation import predicted_table_error, project_simplex
from sklearn_ldp.randomizers import frequency_mechanism_variances


def _mean_se(values):
    values = np.asarray(values, dtype=float)
    return f"{values.mean():.4g} ± {values.std(ddof=1) / np.sqrt(len(values)):.2g}"


def frequency_cell(n, k, epsilon, first, count, theirs):
    _warm_up()
    labels = ["ours: auto"] + [f"theirs: {name}" for name in theirs]
    errors = {label: [] for label in labels}
    for seed in range(first, first + count):
        values, truth = _population(n, k, seed)
        for label in labels:
            name = label.split(": ")[1]
            fit = _ours(name) if label.startswith("ours") else _theirs(name)
            estimate, _ = fit(values, k, epsilon, seed)
            errors[label].append(np.mean((np.asarray(estimate) - truth) ** 2))
    print(f"n={n} k={k} epsilon={epsilon}, seeds {first}..{first + count - 1}")
    print("predicted variance of our unbiased estimates (per user):")
    print(frequency_mechanism_variances(k, epsilon))
    print({name: their_variance(name, k, epsilon) / n for name in theirs})
    ours = np.asarray(errors["ours: auto"])
    for label, values in errors.items():
        print(
            f"{label:14s} {_mean_se(values)}   ours minus this {_mean_se(ours - values)}"
        )


def frequency_postprocess(n, k, epsilon, seeds, mechanism):
    rules = {
        "none": lambda u: u,
        "simplex": project_simplex,
        "clip_renorm": lambda u: np.clip(u, 0, None) / np.clip(u, 0, None).sum(),
    }
    errors = {name: [] for name in rules}
    for seed in range(seeds):
        values, truth = _population(n, k, seed)
        unbiased = (
            FrequencyLDP(
                epsilon=epsilon,
                categories=k,
                mechanism=mechanism,
                unknown="error",
                postprocess="none",
                random_state=seed,
            )
            .fit(values[:, None].astype(float))
            .frequencies_
        )
        for name, rule in rules.items():
            errors[name].append(np.mean((rule(unbiased) - truth) ** 2))
    predicted = frequency_mechanism_variances(k, epsilon)[mechanism] / n
    print(f"n={n} k={k} epsilon={epsilon} {mechanism}, {seeds} seeds")
    print(f"predicted MSE of the unbiased estimate: {predicted:.4g}")
    simplex = np.asarray(errors["simplex"])
    for name, values in errors.items():
        print(
            f"{name:12s} {_mean_se(values)}   minus simplex {_mean_se(values - simplex)}"
        )


def marginals_cell(population, n, epsilon, k, first, last):
    users = POPULATIONS[population]
    n_features = users.params["n_features"]
    methods = ("chebyshev", "hadamard")
    for method in methods:
        randomizer = KWayMarginalsLDP(epsilon=epsilon, k=k, method=method)
        variance, bias = predicted_table_error(
            randomizer.make_randomizer(n_features, n_users=n), n
        )
        print(f"{method}: predicted MSE per cell {(variance + bias) / 2**k:.4g}")
    errors = {method: [] for method in methods}
    for seed in range(first, last):
        X, y, _, _ = users.train_test(n, seed, 0)
        data = Data(X, y, None, None, users, seed)
        for method in methods:
            result = method_fit(k, method)(data, epsilon, seed)
            errors[method].append(evaluate_methods(result, data)[MSE])
    for method, values in errors.items():
        print(f"{method:10s} {_mean_se(values)} ({len(values)} seeds)")
    difference = np.subtract(errors["hadamard"], errors["chebyshev"])
    print(f"hadamard - chebyshev {_mean_se(difference)}")


def _dp_svrg(users, epsilon, seed, **params):
    """``DPSVRGClassifier`` as the DP-SVRG benchmark runs it (binary, delta 1e-7)."""
    return DPSVRGClassifier(
        epsilon=epsilon,
        delta=1e-7,
        data_norm=users.data_norm,
        classes=(0, 1),
        random_state=seed,
        **params,
    )


def dp_svrg_large(population, epsilons, seed, n=1_000_000):
    """One seed: prints and returns ``{epsilon: (ours, diffprivlib or None)}``."""
    users = POPULATIONS[population]
    X, y, X_test, y_test = users.train_test(n, seed)
    start = time.perf_counter()
    reference = LogisticRegression(max_iter=1000).fit(X, y)
    print(
        f"seed {seed}: LogisticRegression(C=1): {reference.score(X_test, y_test):.4f} "
        f"({time.perf_counter() - start:.1f} s)"
    )
    ours = {}
    for epsilon in epsilons:
        start = time.perf_counter()
        model = _dp_svrg(users, epsilon, seed).fit(X, y)
        ours[epsilon] = model.score(X_test, y_test)
        print(
            f"DPSVRGClassifier() epsilon {epsilon}: {ours[epsilon]:.4f} "
            f"({time.perf_counter() - start:.1f} s, {model.n_epochs_} steps on "
            f"{model.subsample_size_} rows)"
        )
    command = [
        DIFFPRIVLIB_PYTHON,
        "-m",
        "benchmarks.external.diffprivlib_logistic",
        "--population",
        population,
        "--n",
        str(n),
        "--seed",
        str(seed),
        "--epsilons",
        *map(str, epsilons),
    ]
    theirs = {}
    try:
        out = subprocess.run(command, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"diffprivlib not run ({error}); see benchmarks/README.md")
    else:
        for row in json.loads(out.stdout):
            theirs[float(row["epsilon"])] = row["accuracy"]
            print(f"diffprivlib epsilon {row['epsilon']}: {row['accuracy']:.4f}")
    return {e: (ours[e], theirs.get(e)) for e in epsilons}


def dp_svrg_large_seeds(population, epsilons, seeds):
    """Every seed, then the table of ``docs/benchmarks/dp_svrg_diffprivlib.md``."""
    runs = [dp_svrg_large(population, epsilons, seed) for seed in seeds]
    print(
        "\n| population | epsilon | DP-SVRG (default) | diffprivlib | difference | verdict |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for epsilon in epsilons:
        ours = [run[epsilon][0] for run in runs]
        theirs = [run[epsilon][1] for run in runs]
        if None in theirs or len(runs) < 2:
            print(f"| {population} | {epsilon:g} | {_mean_se(ours)} | | | |")
            continue
        difference = np.subtract(ours, theirs)
        se = difference.std(ddof=1) / np.sqrt(len(difference))
        verdict = (
            "tie"
            if abs(difference.mean()) <= 2 * se
            else ("ahead" if difference.mean() > 0 else "behind")
        )
        print(
            f"| {population} | {epsilon:g} | {_mean_se(ours)} | {_mean_se(theirs)} "
            f"| {difference.mean():+.4f} ± {se:.4f} | {verdict} |"
        )


def dp_svrg_solvers(population, sizes, epsilons, seeds, solvers):
    """Two solvers of ``DPSVRGClassifier`` on the same draws, paired by seed."""
    users = POPULATIONS[population]
    first, second = solvers
    print(
        f"| population | n | epsilon | {first} | {second} | {second} - {first} "
        "| seconds (median) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for n in sizes:
        draws = [users.train_test(n, seed) for seed in seeds]
        for epsilon in epsilons:
            scores = {solver: [] for solver in solvers}
            seconds = {solver: [] for solver in solvers}
            for seed, (X, y, X_test, y_test) in zip(seeds, draws, strict=True):
                for solver in solvers:
                    start = time.perf_counter()
                    model = _dp_svrg(users, epsilon, seed, solver=solver).fit(X, y)
                    seconds[solver].append(time.perf_counter() - start)
                    scores[solver].append(model.score(X_test, y_test))
            difference = np.subtract(scores[second], scores[first])
            print(
                f"| {population} | {n} | {epsilon:g} | {_mean_se(scores[first])} "
                f"| {_mean_se(scores[second])} | {_mean_se(difference)} "
                f"| {np.median(seconds[first]):.1f} / "
                f"{np.median(seconds[second]):.1f} |",
                flush=True,
            )


def _sparse_regressor(users, epsilon, seed, radius):
    """``SparseLDPRegressor`` as bench_real_gap fits it, with ``l1_radius``."""
    return SparseLDPRegressor(
        epsilon=epsilon,
        delta=DELTA,
        l1_radius=radius,
        data_norm=users.data_norm,
        y_bound=users.y_bound,
        random_state=seed,
    )


def sparse_radius(population, n, epsilon, radii, seeds):
    """``SparseLDPRegressor`` with several declared ``l1_radius``.

    Per radius, the held-out R^2 over ``seeds`` (each radius on its own
    fit), then, for the first seed, every radius refitted on the *same*
    reports with ``fit_reports`` (the radius is the server's; the reports
    do not depend on it) and the held-out risk of the candidate each chose.
    """
    from sklearn.linear_model import LinearRegression
    from sklearn.metrics import r2_score

    users = POPULATIONS[population]
    scores = {radius: [] for radius in radii}
    chosen = {radius: [] for radius in radii}
    for seed in seeds:
        X, y, X_test, y_test = users.train_test(n, seed)
        if seed == seeds[0]:
            norm = np.abs(LinearRegression().fit(X, y).coef_).sum()
            print(f"non-private least squares: l1 norm {norm:.3f} (seed {seed})")
        for radius in radii:
            model = _sparse_regressor(users, epsilon, seed, radius).fit(X, y)
            scores[radius].append(r2_score(y_test, model.predict(X_test)))
            chosen[radius].append(f"{model.l1_radius_:g}")
    for radius, values in scores.items():
        print(
            f"l1_radius {radius}: held-out R^2 {_mean_se(values)}, "
            f"chosen radius per draw {' '.join(chosen[radius])}"
        )
    X, y, X_test, y_test = users.train_test(n, seeds[0])
    first = _sparse_regressor(users, epsilon, seeds[0], radii[0])
    reports = first.make_randomizer(X.shape[1], n_users=n).randomize(
        X, y, random_state=seeds[0]
    )
    for radius in radii:
        model = _sparse_regressor(users, epsilon, seeds[0], radius)
        model.fit_reports(reports)
        results = model.cv_results_
        i = int(np.flatnonzero(results["selected"])[0])
        print(
            f"same reports, l1_radius {radius}: chosen "
            f"{results['candidate'][i]} {results['params'][i]}, held-out risk "
            f"{results['mean_risk'][i]:.3f} ± {results['std_error'][i]:.3f}, "
            f"R^2 {r2_score(y_test, model.predict(X_test)):.3f}"
        )


def sparse_mechanism(population, n, epsilon, seeds, mechanisms):
    """The sparse estimator of the task with each ``mechanism``, over ``seeds``."""
    from sklearn.linear_model import LinearRegression

    from benchmarks.bench_real_gap import SPARSE_CLASSIFIER_L1_RADIUS

    users = POPULATIONS[population]
    classify = users.task == "classification"
    metric = "accuracy" if classify else "R^2"
    scores = {mechanism: [] for mechanism in mechanisms}
    exact = []
    for seed in seeds:
        X, y, X_test, y_test = users.train_test(n, seed)
        reference = LogisticRegression() if classify else LinearRegression()
        exact.append(reference.fit(X, y).score(X_test, y_test))
        for mechanism in mechanisms:
            start = time.perf_counter()
            if classify:
                model = SparseLDPClassifier(
                    epsilon=epsilon,
                    delta=DELTA,
                    l1_radius=SPARSE_CLASSIFIER_L1_RADIUS,
                    random_state=seed,
                )
            else:
                model = _sparse_regressor(users, epsilon, seed, "auto")
            model.set_params(mechanism=mechanism).fit(X, y)
            scores[mechanism].append(model.score(X_test, y_test))
            radius = model.selected_params_ if classify else model.l1_radius_
            print(
                f"seed {seed} {mechanism}: {metric} {scores[mechanism][-1]:.3f}, "
                f"sigma_x {model.noise_scale_:.3f}, {radius}, "
                f"{model.selected_model_}, {time.perf_counter() - start:.0f} s",
                flush=True,
            )
    print(f"non-private {type(reference).__name__}: held-out {metric} {_mean_se(exact)}")
    for mechanism, values in scores.items():
        print(f"mechanism={mechanism!r}: held-out {metric} {_mean_se(values)}")


def sparse_signal(population, n, epsilon, seeds):
    """What the sparse regressor's reports say about a signal, per draw: the
    standardized cross-moment coordinates ``t_j = sqrt(n) c_j / sd_j`` of
    the centred reports, the chi-square test on all of them, a
    Bonferroni-corrected test of the largest alone, and the default's choice."""
    from scipy.stats import chi2, norm

    users = POPULATIONS[population]
    radius = users.params.get("l1_radius", 1.0)
    for seed in seeds:
        X, y, _, _ = users.train_test(n, seed)
        model = _sparse_regressor(users, epsilon, seed, radius)
        reports = model.make_randomizer(X.shape[1], n_users=n).randomize(
            X, y, random_state=seed
        )
        z = reports["x"] - reports["x"].mean(axis=0)
        v = np.ravel(reports["y"]) - np.mean(reports["y"])
        t = np.sqrt(n) * (z.T @ v / n) / np.sqrt((z**2).mean(axis=0) * (v**2).mean())
        d = t.size
        model.fit_reports(reports)
        print(
            f"seed {seed}: largest |t| {np.max(np.abs(t)):.2f}; chi-square p "
            f"{chi2.sf(np.sum(t**2), d):.3f}; largest-coordinate p (x {d}) "
            f"{min(1.0, 2 * d * norm.sf(np.max(np.abs(t)))):.3f}; the default "
            f"chose {model.selected_model_} (its p "
            f"{model.cv_results_['signal_p_value']:.3f})"
        )


def deployment_draws(first, last):
    """``examples/deployment``'s configuration: held-out R^2 over noise draws.

    The published ``SparseLDPRegressor`` on one million simulated users (the
    records of client seed 1), each draw a seeded simulation of the users'
    reports (the clients use the OS generator); the held-out users and the
    score are the server's.
    """
    deployment = Path(__file__).resolve().parent.parent / "examples" / "deployment"
    sys.path.insert(0, str(deployment))
    try:
        from _common import simulated_users
        from server import HOLDOUT_SEED, N_FEATURES, N_USERS, PARAMS
    finally:
        sys.path.remove(str(deployment))
    X, y = simulated_users(N_USERS, N_FEATURES, 1)
    X_test, y_test = simulated_users(20_000, N_FEATURES, HOLDOUT_SEED)
    scores = []
    for seed in range(first, last):
        estimator = SparseLDPRegressor(**PARAMS)
        randomizer = estimator.make_randomizer(N_FEATURES, n_users=N_USERS)
        estimator.fit_reports(randomizer.randomize(X, y, random_state=seed))
        scores.append(estimator.score(X_test, y_test))
        print(
            f"draw {seed}: R^2 {scores[-1]:.3f}, l1_radius_ {estimator.l1_radius_:g}, "
            f"alpha_ {estimator.alpha_:.3g}"
        )
    print(
        f"{len(scores)} draws: min {min(scores):.3f}, median "
        f"{np.median(scores):.3f}, max {max(scores):.3f}"
    )


def least_squares_baseline(population, n, epsilon, seeds):
    """The benchmarks' debiased least-squares classifier, seed by seed.

    Its intercept (penalized by the ridge, like every coefficient), the
    unpenalized intercept of the same fit, the held-out accuracy with each,
    and the angle of its direction to the non-private logistic regression's.
    """
    users = POPULATIONS[population]
    for seed in seeds:
        X, y, X_test, y_test = users.train_test(n, seed)
        model = GaussianLeastSquares(
            epsilon, seed, classes=[0, 1], data_norm=public_l2_bound(users)
        ).fit(X, y)
        unpenalized = model.unpenalized_intercept()
        scores = X_test @ model.coef_
        reference = LogisticRegression(max_iter=1000).fit(X, y).coef_.ravel()
        cosine = (
            model.coef_
            @ reference
            / (np.linalg.norm(model.coef_) * np.linalg.norm(reference))
        )
        print(
            f"seed {seed}: intercept {model.intercept_:.4f} (unpenalized "
            f"{unpenalized:.4f}); accuracy {np.mean(model.predict(X_test) == y_test):.3f}"
            f" ({np.mean((scores + unpenalized > 0) == y_test):.3f} with the "
            f"unpenalized intercept); angle to LogisticRegression "
            f"{np.degrees(np.arccos(np.clip(cosine, -1, 1))):.0f} degrees"
        )


def joint_noise(epsilons, dimensions):
    """Noise and label-only thresholds of the GLM's two joint reports."""
    from sklearn_ldp import GLMLDPClassifier
    from sklearn_ldp.randomizers import min_users_for_a_model

    def label_only_threshold(joint):  # two classes: the +-1 label's noise
        return min_users_for_a_model(
            joint.sigma_x, joint.sigma_y, joint.feature_norm, 1.0
        )

    print(
        "eps  d   Gaussian sigma  PrivUnitG sigma  ratio  cap q   "
        "s per 1e5 users (G / PU)  label-only below (G / PU)"
    )
    rng = np.random.default_rng(0)
    for epsilon in epsilons:
        for d in dimensions:
            X = rng.uniform(-1, 1, (100_000, d)) / np.sqrt(d)
            y = (X[:, 0] > 0).astype(int)
            joint, seconds = {}, {}
            for mechanism in ("gaussian", "privunit"):
                joint[mechanism] = GLMLDPClassifier(
                    epsilon=epsilon, delta=DELTA, mechanism=mechanism
                ).make_randomizer(d, classes=[0, 1])
                start = time.perf_counter()
                joint[mechanism].randomize(X, y, random_state=0)
                seconds[mechanism] = time.perf_counter() - start
            gauss, unit = joint["gaussian"], joint["privunit"]
            print(
                f"{epsilon:<4g} {d:<3d} {gauss.sigma_x:<15.3f} {unit.sigma_x:<16.3f} "
                f"{gauss.sigma_x / unit.sigma_x:<6.2f} {unit.vector.design.q:<7.3f} "
                f"{seconds['gaussian']:.2f} / {seconds['privunit']:<17.2f} "
                f"{int(label_only_threshold(gauss))} / {int(label_only_threshold(unit))}"
            )


def _real_and_permuted(users, n, draws):
    """``(seed, kind, X, y, X_test, y_test)``: each draw as it is (``'real'``),
    then with its train and test labels permuted (``'permuted'``: same
    features and class balance, no signal)."""
    for seed in range(draws):
        X, y, X_test, y_test = users.train_test(n, seed)
        yield seed, "real", X, y, X_test, y_test
        shuffle = np.random.RandomState([seed, 7])
        y, y_test = shuffle.permutation(y), shuffle.permutation(y_test)
        yield seed, "permuted", X, y, X_test, y_test


def signal_power(population, n, epsilon, draws, mechanism="auto"):
    """``GLMLDPClassifier``'s signal tests on a cell and on its label-permuted twin."""
    from sklearn_ldp import GLMLDPClassifier

    users = POPULATIONS[population]
    rows = {"real": [], "permuted": []}
    for seed, kind, X, y, X_test, y_test in _real_and_permuted(users, n, draws):
        model = GLMLDPClassifier(
            epsilon=epsilon,
            delta=DELTA,
            coef_norm=2.0,
            data_norm=users.data_norm,
            mechanism=mechanism,
            random_state=seed,
        ).fit(X, y)
        least_squares = GaussianLeastSquares(
            epsilon, seed, classes=[0, 1], data_norm=public_l2_bound(users)
        ).fit(X, y)
        majority = np.bincount(y).argmax()
        rows[kind].append(
            (
                model.cv_results_["signal_p_value"],
                model.selected_model_ != "constant",
                model.score(X_test, y_test),
                least_squares.score(X_test, y_test),
                np.mean(y_test == majority),
            )
        )
    print(f"{population}, n = {n}, epsilon = {epsilon}, {draws} draws")
    for kind, values in rows.items():
        p_values, passed, glm, ls, majority = map(np.array, zip(*values, strict=True))
        print(
            f"{kind:9s} tests pass (a direction is used) in {passed.sum()} of "
            f"{draws}; median p-value {np.median(p_values):.3f}; accuracy: GLM "
            f"{_mean_se(glm)}, debiased LS {_mean_se(ls)}, majority class "
            f"{_mean_se(majority)}"
        )


def signal_null(n, d, sigma, draws):
    """``directional_signal_test`` on Gaussian reports of labels independent of x."""
    from scipy.stats import kstest, norm

    from sklearn_ldp.aggregation import (
        FoldedMoments,
        directional_signal_test,
        least_squares_path,
    )

    ridge = 2.0 * sigma**2 * np.sqrt(d / n)  # the GLM's: twice the Gram noise scale

    def fit(moments):
        return least_squares_path(moments, [ridge])[0]

    p_values = []
    for seed in range(draws):
        rng = np.random.default_rng([seed, 11])
        X = rng.uniform(-1.0, 1.0, size=(n, d)) / np.sqrt(d)
        y = rng.choice([-1.0, 1.0], size=n)
        folded = FoldedMoments(
            X + sigma * rng.standard_normal(X.shape),
            y + sigma * rng.standard_normal(n),
            sigma_x=sigma,
            sigma_t=sigma,
        )
        p_values.append(directional_signal_test(folded, fit))
    p_values = np.array(p_values)
    z = norm.isf(np.clip(p_values, 1e-300, 1.0))
    print(f"n = {n}, d = {d}, sigma = {sigma}, {draws} draws, no signal")
    print(f"z-statistic: mean {_mean_se(z)}, sd {z.std(ddof=1):.3f} (1 if calibrated)")
    for level in (0.05, 0.1, 0.2):
        rate = np.mean(p_values < level)
        error = np.sqrt(level * (1.0 - level) / draws)
        print(f"rejected at level {level}: {rate:.3f} (± {error:.3f} if calibrated)")
    print(f"KS test of uniform p-values: p = {kstest(p_values, 'uniform').pvalue:.2g}")


def kernel_ridge_gamma(population, n, epsilon, gammas, seeds):
    """KernelRidgeLDP's held-out R^2 for several kernel scales, draw by draw."""
    from sklearn.metrics import r2_score

    from sklearn_ldp import KernelRidgeLDP

    users = POPULATIONS[population]
    draws = [users.train_test(n, seed) for seed in seeds]
    for gamma in gammas:
        scores, chosen = [], []
        for seed, (X, y, X_test, y_test) in zip(seeds, draws, strict=True):
            model = KernelRidgeLDP(
                epsilon=epsilon,
                delta=DELTA,
                gamma=gamma,
                data_norm=users.data_norm,
                random_state=seed,
            ).fit(X, y)
            scores.append(r2_score(y_test, model.predict(X_test)))
            chosen.append(model.selected_model_)
        print(
            f"gamma {gamma:g}: R^2 {', '.join(f'{v:.3f}' for v in scores)} "
            f"(mean {np.mean(scores):.3f}); chose {'/'.join(chosen)}"
        )


def kernel_ridge_linear_features_1d(seeds):
    """KernelRidgeLDP with and without ``linear_features`` on a smooth 1-D target.

    The quickstart's ``sin(2 x)`` population (x uniform on [-2, 2], noise
    0.2, 75,000 training users, epsilon 8, gamma 1, data_norm 2), one draw
    of data and noise per seed.
    """
    from sklearn.model_selection import train_test_split

    from sklearn_ldp import KernelRidgeLDP

    for seed in seeds:
        rng = np.random.RandomState(seed)
        X = rng.uniform(-2, 2, size=(100_000, 1))
        y = np.clip(np.sin(2 * X[:, 0]) + 0.2 * rng.randn(100_000), -1, 1)
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        scores = []
        for linear in (False, True):
            model = KernelRidgeLDP(
                epsilon=8.0,
                gamma=1.0,
                data_norm=2.0,
                linear_features=linear,
                random_state=seed,
            ).fit(X_train, y_train)
            scores.append(f"{model.score(X_test, y_test):.3f} ({model.selected_model_})")
        print(f"seed {seed}: R^2 without linear_features {scores[0]}, with {scores[1]}")


def kernel_ridge_collection(n_features, n_users, epsilon, seeds):
    """KernelRidgeLDP's collection rule against both of its choices on a smooth target.

    ``x`` uniform on ``[-1, 1]^d / sqrt(d)`` (inside the unit ball,
    ``data_norm = 1``), ``s = sqrt(d) x``, ``y = sin(2 s1) cos(s2) (+ 0.5
    s3^2 - 0.2 for d >= 3) + N(0, 0.1^2)``, clipped to ``[-1, 1]``;
    ``delta = 1e-7``; 20,000 clean held-out users. Prints, over the seeds
    (one draw of data and noise each), the mean R^2 ± standard error of the
    default (``linear_features='auto'``), of random features only
    (``linear_features=False``) and of plain ``(x, y)`` reports
    (``n_components=0``), and the ``m`` the rule chose (0: plain).
    """
    from sklearn_ldp import KernelRidgeLDP

    def draw(n, rng):
        X = rng.uniform(-1, 1, (n, n_features)) / np.sqrt(n_features)
        s = np.sqrt(n_features) * X
        y = np.sin(2 * s[:, 0])
        if n_features > 1:
            y = y * np.cos(s[:, 1])
        if n_features > 2:
            y = y + 0.5 * s[:, 2] ** 2 - 0.2
        return X, np.clip(y + rng.normal(0, 0.1, n), -1, 1)

    common = dict(epsilon=epsilon, delta=1e-7, data_norm=1.0)
    modes = {
        "auto": {},
        "random features only": {"linear_features": False},
        "plain (x, y)": {"n_components": 0},
    }
    scores = {mode: [] for mode in modes}
    for seed in seeds:
        rng = np.random.default_rng(seed)
        X, y = draw(n_users, rng)
        X_test, y_test = draw(20_000, rng)
        for mode, params in modes.items():
            model = KernelRidgeLDP(random_state=seed, **common, **params).fit(X, y)
            scores[mode].append(model.score(X_test, y_test))
    chosen = KernelRidgeLDP(**common).make_randomizer(n_features, n_users=n_users)
    m = (chosen.get_config().get("feature_map") or {}).get("n_components", 0)
    print(f"d {n_features}, n {n_users}, epsilon {epsilon}: rule sends m = {m}")
    for mode, values in scores.items():
        print(f"  {mode}: R^2 {_mean_se(values)}")


def hinge_default(populations):
    """The bench_hinge grid for the default HingeLDPClassifier and debiased LS only.

    The same populations, users, seeds and constructor arguments as
    ``python -m benchmarks.bench_hinge`` (its ``hinge (default)`` and
    ``debiased LS`` columns), without the slow oracle columns; prints per
    cell the mean ± standard error over the 3 draws, the majority rate of
    the test users and whether the default is within 2 standard errors of
    the better of least squares and the majority class.
    """
    from benchmarks import bench_hinge
    from benchmarks._baselines import debiased_classifier
    from benchmarks._harness import Method, run_grid

    grid = next(step for step in bench_hinge.SPEC.steps if step.name == "hinge").full
    methods = [
        Method("debiased LS", debiased_classifier, "baseline"),
        Method("hinge (default)", bench_hinge.hinge()),
    ]
    print("| population | n | epsilon | majority | debiased LS | hinge (default) | check |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in populations:
        population = POPULATIONS[name]
        rows = run_grid(
            population,
            methods,
            bench_hinge.evaluate,
            sizes=grid.sizes,
            epsilons=grid.epsilons,
            seeds=grid.seeds(),
        )
        # The held-out users are drawn apart from the training ones: the
        # same test sample at every n.
        _, y_test = population.sample(population.n_test, 0, split="test")
        majority = max(np.mean(y_test), 1 - np.mean(y_test))
        for n in grid.sizes:
            for epsilon in grid.epsilons:
                cell = {
                    method.name: [
                        r["accuracy"]
                        for r in rows
                        if r["n"] == n and r["epsilon"] == epsilon
                        and r["method"] == method.name
                    ]
                    for method in methods
                }
                (ls, ls_se), (ours, ours_se) = (
                    (np.mean(v), np.std(v, ddof=1) / np.sqrt(len(v)))
                    for v in (cell["debiased LS"], cell["hinge (default)"])
                )
                behind = ours < ls - 2 * np.hypot(ls_se, ours_se)
                below = ours < majority - 2 * ours_se
                check = "behind LS" if behind else ("below majority" if below else "ok")
                print(
                    f"| {name} | {n} | {epsilon:g} | {majority:.3f} | {ls:.3f} ± "
                    f"{ls_se:.3f} | {ours:.3f} ± {ours_se:.3f} | {check} |",
                    flush=True,
                )


def _cosine(a, b):
    return float(a @ b / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-300))


def hinge_paper_direction(population, n, epsilon, seeds):
    """Why the paper mode's direction flips with the iteration count.

    The degree-1 product oracle is affine in ``w``: ``g(w) = m + H w`` with
    ``m = p0 mean(y_0 z_0)`` and ``H = p1 mean(y_0 z_0 (y_1 z_1)^T)`` (two
    independent copies), read off ``oracle.mean`` at ``0`` and the basis
    vectors. ``H`` is unbiased for ``p1 E[z z^T]`` but its noise is of
    order ``p1 sigma_x^2 sigma_y^2 / sqrt(n)``, and it is not symmetric.
    """
    from benchmarks.bench_hinge import COEF_NORM, SMOOTHING
    from sklearn_ldp import HingeLDPClassifier
    from sklearn_ldp.aggregation import PolynomialGradientOracle
    from sklearn_ldp.losses import SmoothedHingeLoss
    from sklearn_ldp.optim import accelerated_projected_gradient, project_l2_ball
    from sklearn_ldp.randomizers import clip_l2

    users = POPULATIONS[population]
    variants = {
        "gd 100 (bench)": {},
        "gd 99": {"max_iter": 99},
        "gd 101": {"max_iter": 101},
        "sigm (printed)": {"solver": "sigm"},
    }
    scores = {name: [] for name in variants}
    for seed in seeds:
        X, y, X_test, y_test = users.train_test(n, seed)
        reference = LogisticRegression(max_iter=1000).fit(X, y).coef_.ravel()
        base = HingeLDPClassifier(
            epsilon=epsilon,
            delta=DELTA,
            smoothing=SMOOTHING,
            coef_norm=COEF_NORM,
            data_norm=users.data_norm,
            calibration="paper",
            random_state=seed,
        )
        reports = base.make_randomizer(
            X.shape[1], n_users=len(X), classes=np.unique(y)
        ).randomize(X, y, seed)
        line = []
        for name, params in variants.items():
            model = base.set_params(**{"max_iter": 100, "solver": "gd", **params})
            model.fit_reports(reports)
            accuracy = float(np.mean(model.predict(X_test) == y_test))
            scores[name].append(accuracy)
            cosine = _cosine(model.coef_.ravel(), reference)
            line.append(f"{name} {accuracy:.3f} (cos {cosine:+.2f})")
        base.set_params(max_iter=100, solver="gd")
        # The bench's fit again, for its polynomial and the field it solves.
        base.fit_reports(reports)
        data_norm = float(users.data_norm)
        oracle = PolynomialGradientOracle(
            reports["x"] / data_norm,
            reports["y"],
            mode="product",
            coef=base.poly_coef_,
            fit_intercept=True,
        )
        dim = oracle.dim
        m = oracle.mean(np.zeros(dim))
        H = np.column_stack([oracle.mean(e) - m for e in np.eye(dim)])
        Z = np.c_[clip_l2(X, data_norm) / data_norm, np.ones(len(X))]
        clean = base.poly_coef_[1] * (Z.T @ Z) / len(X)
        k = X.shape[1]
        eigenvalues = np.linalg.eigvals(H[:k, :k])
        antisymmetric = np.linalg.norm(H - H.T, 2) / 2
        iterates = []

        def field(w, iterates=iterates, m=m, H=H):
            iterates.append(w.copy())
            return m + H @ w

        w, n_iter = accelerated_projected_gradient(
            field,
            np.zeros(dim),
            # The estimator's step: 1 / L, L = ||z||^2 f_beta'' <= 2 / (2 beta).
            step=1.0 / (2 * SmoothedHingeLoss(SMOOTHING).curvature),
            projection=lambda v: project_l2_ball(v, COEF_NORM),
            max_iter=100,
        )
        last = [_cosine(v[:k], reference) for v in iterates[-4:]] + [
            _cosine(w[:k], reference)
        ]
        print(f"seed {seed}: " + "; ".join(line))
        print(
            f"    first step -m: cos {_cosine(-m[:k], reference):+.2f}; "
            f"eig H[x, x] {np.array2string(eigenvalues, precision=1)}, "
            f"||(H - H^T)/2|| {antisymmetric:.3g}, ||H - p1 E zz^T||[x, x] "
            f"{np.linalg.norm((H - clean)[:k, :k], 2):.3g} vs ||p1 E zz^T||[x, x] "
            f"{np.linalg.norm(clean[:k, :k], 2):.3g}; gd iterations {n_iter}, "
            f"cos of the last iterates {' '.join(f'{c:+.2f}' for c in last)}"
        )
    for name, values in scores.items():
        values = np.array(values)
        print(
            f"{name}: accuracy {_mean_se(values)} over {len(values)} seeds, "
            f"{int(np.sum(values < 0.5))} below 0.5"
        )
    paired = np.array(scores["gd 100 (bench)"]) + np.array(scores["gd 99"])
    print(
        "gd 100 + gd 99 per seed (near 1 when they are mirror images): "
        f"{_mean_se(paired)}"
    )


def unbalanced_task(n, seed):
    """``tests/test_threshold_refit.py``'s ``make_unbalanced``: 80% of class
    1, the classes differ along the first of 3 features."""
    rng = np.random.default_rng([seed, 2025])
    y = (rng.uniform(size=n) < 0.8).astype(int)
    X = rng.uniform(-0.3, 0.3, size=(n, 3))
    X[:, 0] = 0.25 * (2 * y - 1) + 0.1 * rng.standard_normal(n)
    return X, y


def threshold_draws(estimator, first, last, n=20_000, n_test=20_000):
    """The binary threshold refit over draws of the unbalanced task."""
    from sklearn_ldp import GLMLDPClassifier, HingeLDPClassifier, SparseLDPClassifier

    cls = {
        "glm": GLMLDPClassifier,
        "hinge": HingeLDPClassifier,
        "sparse": SparseLDPClassifier,
    }[estimator]
    # l1_radius as tests/test_threshold_refit.py sets it.
    extra = {"l1_radius": 5.0} if estimator == "sparse" else {}
    accuracies = []
    for seed in range(first, last):
        X, y = unbalanced_task(n, seed)
        # Held-out users as the test draws them (seed 100 + seed).
        X_test, y_test = unbalanced_task(n_test, 100 + seed)
        clf = cls(epsilon=8.0, delta=DELTA, random_state=seed, **extra).fit(X, y)
        predicted = clf.predict(X_test)
        accuracies.append(float(np.mean(predicted == y_test)))
        print(
            f"seed {seed}: accuracy {accuracies[-1]:.4f}, predicted majority "
            f"{np.mean(predicted == 1):.4f} ({clf.selected_model_})",
            flush=True,
        )
    values = np.asarray(accuracies)
    print(
        f"{cls.__name__}, {len(values)} draws: accuracy {values.mean():.3f} "
        f"(sd {values.std(ddof=1):.3f}, se "
        f"{values.std(ddof=1) / np.sqrt(len(values)):.3f}); "
        f"{int(np.sum(values < 0.9))} draws below 0.9"
    )


def _ints(text):
    """``'0,1,2'`` -> ``[0, 1, 2]``."""
    return [int(e) for e in text.split(",")]


def _floats(text):
    """``'0.5,1'`` -> ``[0.5, 1.0]``."""
    return [float(e) for e in text.split(",")]


def _radii(text):
    """``'auto,1,2'`` -> ``['auto', 1.0, 2.0]``: ``l1_radius`` values."""
    return [e if e == "auto" else float(e) for e in text.split(",")]


def kernel_ridge_alpha(population, n, epsilon, seeds):
    """KernelRidgeLDP's penalty rules with plain reports, draw by draw."""
    from sklearn.metrics import r2_score

    from sklearn_ldp import KernelRidgeLDP

    users = POPULATIONS[population]
    params = dict(epsilon=epsilon, delta=DELTA, data_norm=users.data_norm)
    scores = {"default": [], "twice": [], "1-SE": [], "least estimate": []}
    for seed in seeds:
        X, y, X_test, y_test = users.train_test(n, seed)
        default = KernelRidgeLDP(random_state=seed, **params).fit(X, y)
        if default.n_components_ or not default.linear_features_:
            raise SystemExit("This check is for cells where users send plain (x, y).")
        # The documented grid, AUTO_ALPHAS: 17 penalties, 10^-5 .. 10^3.
        alphas = np.logspace(-5, 3, len(default.cv_risk_))
        floored = np.maximum(default.cv_risk_, 0.0)
        # The default: the public noise scale (PLAIN_ALPHA_FACTOR = 1).
        rules = {
            "default": default.alpha_,
            # Debiased least squares' penalty, 2 sigma_x^2 sqrt(d / n).
            "twice": 2.0 * default.alpha_,
            "1-SE": alphas[np.nanargmin(floored + default.cv_std_error_)],
            "least estimate": alphas[np.flatnonzero(floored <= np.nanmin(floored))[-1]],
        }
        line = []
        for rule, alpha in rules.items():
            model = (
                default
                if rule == "default"
                else KernelRidgeLDP(alpha=alpha, random_state=seed, **params).fit(X, y)
            )
            scores[rule].append(r2_score(y_test, model.predict(X_test)))
            at = int(np.argmin(np.abs(np.log(alphas / alpha))))
            line.append(
                f"{rule} alpha {alpha:.3g} (risk {default.cv_risk_[at]:.3g} ± "
                f"{default.cv_std_error_[at]:.3g}) R^2 {scores[rule][-1]:.3f}"
            )
        print(f"seed {seed}: " + "; ".join(line), flush=True)
    for rule, values in scores.items():
        print(f"{rule}: R^2 {_mean_se(values)}")


def kernel_ridge_permuted(population, n, epsilon, draws):
    """KernelRidgeLDP and debiased least squares on a cell and on its y-permuted twin."""
    from sklearn.metrics import r2_score

    from sklearn_ldp import KernelRidgeLDP

    users = POPULATIONS[population]
    rows = {"real": [], "permuted": []}
    for seed, kind, X, y, X_test, y_test in _real_and_permuted(users, n, draws):
        model = KernelRidgeLDP(
            epsilon=epsilon,
            delta=DELTA,
            data_norm=users.data_norm,
            random_state=seed,
        ).fit(X, y)
        least_squares = GaussianLeastSquares(
            epsilon,
            seed,
            delta=DELTA,
            data_norm=users.data_norm,
            y_bound=users.y_bound,
        ).fit(X, y)
        rows[kind].append(
            (
                model.selected_model_ != "constant",
                r2_score(y_test, model.predict(X_test)),
                r2_score(y_test, least_squares.predict(X_test)),
            )
        )
    print(f"{population}, n = {n}, epsilon = {epsilon}, {draws} draws")
    for kind, values in rows.items():
        kept, default, ls = map(np.array, zip(*values, strict=True))
        print(
            f"{kind:9s} a model kept in {kept.sum()} of {draws}; R^2: "
            f"KernelRidgeLDP {_mean_se(default)}, debiased LS {_mean_se(ls)}"
        )


def sparse_regression_permuted(population, n, epsilon, draws):
    """SparseLDPRegressor and debiased LS on PrivUnitG reports, on a cell and
    on its y-permuted twin."""
    from benchmarks.bench_sparse import least_squares, r2, regressor

    users = POPULATIONS[population]
    fit_default = regressor(users)
    fit_least_squares = least_squares(users, True, privunit=True)
    rows = {"real": [], "permuted": []}
    for seed, kind, X, y, X_test, y_test in _real_and_permuted(users, n, draws):
        data = Data(X, y, X_test, y_test, users, seed)
        model = fit_default(data, epsilon, seed)
        least = fit_least_squares(data, epsilon, seed)
        results = model.cv_results_
        rows[kind].append(
            (
                model.selected_model_ != "constant",
                results.get("shrinkage", np.nan),
                results.get("held_out_signal", np.nan),
                results.get("signal_p_value", np.nan),
                r2(model, data),
                r2(least, data),
            )
        )
    print(f"{population}, n = {n}, epsilon = {epsilon}, {draws} draws")
    for kind, values in rows.items():
        kept, shrinkage, signal, p_value, default, ls = map(
            np.array, zip(*values, strict=True)
        )
        print(
            f"{kind:9s} a model kept in {kept.sum()} of {draws}, shrinkage factor "
            f"{_mean_se(shrinkage)}, held-out signal C^/s {_mean_se(signal)}, "
            f"chi-square p-value {_mean_se(p_value)}\n"
            f"{'':9s} R^2: SparseLDPRegressor {_mean_se(default)}, {PRIVUNIT_LS} "
            f"{_mean_se(ls)}, paired difference {_mean_se(default - ls)}"
        )


def _cell_parser(checks, name):
    """A check of one benchmark cell: ``POPULATION N EPS`` first."""
    p = checks.add_parser(name)
    p.add_argument("population", choices=sorted(POPULATIONS))
    p.add_argument("n", type=int)
    p.add_argument("epsilon", type=float)
    return p


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    checks = parser.add_subparsers(dest="check", required=True)
    p = checks.add_parser("frequency-cell")
    for name, kind in (("n", int), ("k", int), ("epsilon", float)):
        p.add_argument(name, type=kind)
    p.add_argument("first", type=int)
    p.add_argument("count", type=int)
    p.add_argument("theirs", nargs="*", default=["GRR", "OUE", "SS"])
    p = checks.add_parser("frequency-postprocess")
    for name, kind in (("n", int), ("k", int), ("epsilon", float), ("seeds", int)):
        p.add_argument(name, type=kind)
    p.add_argument("mechanism", nargs="?", default="subset_selection")
    p = checks.add_parser("marginals-cell")
    p.add_argument("population", choices=sorted(POPULATIONS))
    for name, kind in (("n", int), ("epsilon", float), ("k", int)):
        p.add_argument(name, type=kind)
    p.add_argument("first", type=int)
    p.add_argument("last", type=int)
    p = checks.add_parser("dp-svrg-large")
    p.add_argument("population", choices=sorted(POPULATIONS))
    p.add_argument("epsilons", type=_floats)
    p.add_argument("seeds", type=_ints)
    p = checks.add_parser("dp-svrg-solvers")
    p.add_argument("population", choices=sorted(POPULATIONS))
    p.add_argument("sizes", type=_ints)
    p.add_argument("epsilons", type=_floats)
    p.add_argument("seeds", type=_ints)
    p.add_argument("solvers", type=lambda text: text.split(","))
    p = _cell_parser(checks, "least-squares-baseline")
    p.add_argument("seeds", type=_ints)
    p = checks.add_parser("kernel-ridge-collection")
    p.add_argument("n_features", type=int)
    p.add_argument("n", type=int)
    p.add_argument("epsilon", type=float)
    p.add_argument("seeds", type=_ints)
    p = checks.add_parser("kernel-ridge-linear-features-1d")
    p.add_argument("seeds", type=_ints)
    p = _cell_parser(checks, "kernel-ridge-gamma")
    p.add_argument("gammas", type=_floats)
    p.add_argument("seeds", type=_ints)
    p = checks.add_parser("hinge-default")
    p.add_argument(
        "populations", nargs="*", default=["linear_rule_10d", "separable_2d"]
    )
    p = _cell_parser(checks, "kernel-ridge-alpha")
    p.add_argument("seeds", type=_ints)
    p = _cell_parser(checks, "kernel-ridge-permuted")
    p.add_argument("draws", type=int)
    p = _cell_parser(checks, "sparse-regression-permuted")
    p.add_argument("draws", type=int)
    p = _cell_parser(checks, "signal-power")
    p.add_argument("draws", type=int)
    p.add_argument(
        "mechanism", nargs="?", default="auto", choices=["auto", "gaussian", "privunit"]
    )
    p = checks.add_parser("signal-null")
    p.add_argument("n", type=int)
    p.add_argument("d", type=int)
    p.add_argument("sigma", type=float)
    p.add_argument("draws", type=int)
    p = checks.add_parser("joint-noise")
    p.add_argument("epsilons", type=_floats)
    p.add_argument("dimensions", type=_ints)
    p = _cell_parser(checks, "sparse-radius")
    p.add_argument("radii", type=_radii)
    p.add_argument("seeds", type=_ints)
    p = _cell_parser(checks, "sparse-mechanism")
    p.add_argument("seeds", type=_ints)
    p.add_argument(
        "mechanisms",
        nargs="*",
        default=["gaussian", "privunit"],
        choices=["auto", "gaussian", "privunit"],
    )
    p = _cell_parser(checks, "sparse-signal")
    p.add_argument("seeds", type=_ints)
    p = checks.add_parser("threshold-draws")
    p.add_argument("estimator", choices=["glm", "hinge", "sparse"])
    p.add_argument("first", type=int)
    p.add_argument("last", type=int)
    p = _cell_parser(checks, "hinge-paper-direction")
    p.add_argument("seeds", type=_ints)
    p = checks.add_parser("deployment-draws")
    p.add_argument("first", type=int)
    p.add_argument("last", type=int)
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if args.check == "frequency-cell":
            frequency_cell(
                args.n, args.k, args.epsilon, args.first, args.count, args.theirs
            )
        elif args.check == "frequency-postprocess":
            frequency_postprocess(
                args.n, args.k, args.epsilon, args.seeds, args.mechanism
            )
        elif args.check == "marginals-cell":
            marginals_cell(
                args.population, args.n, args.epsilon, args.k, args.first, args.last
            )
        elif args.check == "dp-svrg-large":
            dp_svrg_large_seeds(args.population, args.epsilons, args.seeds)
        elif args.check == "dp-svrg-solvers":
            dp_svrg_solvers(
                args.population, args.sizes, args.epsilons, args.seeds, args.solvers
            )
        elif args.check == "least-squares-baseline":
            least_squares_baseline(args.population, args.n, args.epsilon, args.seeds)
        elif args.check == "hinge-default":
            hinge_default(args.populations)
        elif args.check == "kernel-ridge-gamma":
            kernel_ridge_gamma(
                args.population, args.n, args.epsilon, args.gammas, args.seeds
            )
        elif args.check == "kernel-ridge-alpha":
            kernel_ridge_alpha(args.population, args.n, args.epsilon, args.seeds)
        elif args.check == "kernel-ridge-permuted":
            kernel_ridge_permuted(args.population, args.n, args.epsilon, args.draws)
        elif args.check == "sparse-regression-permuted":
            sparse_regression_permuted(
                args.population, args.n, args.epsilon, args.draws
            )
        elif args.check == "signal-power":
            signal_power(
                args.population, args.n, args.epsilon, args.draws, args.mechanism
            )
        elif args.check == "signal-null":
            signal_null(args.n, args.d, args.sigma, args.draws)
        elif args.check == "joint-noise":
            joint_noise(args.epsilons, args.dimensions)
        elif args.check == "sparse-radius":
            sparse_radius(args.population, args.n, args.epsilon, args.radii, args.seeds)
        elif args.check == "sparse-mechanism":
            sparse_mechanism(
                args.population, args.n, args.epsilon, args.seeds, args.mechanisms
            )
        elif args.check == "sparse-signal":
            sparse_signal(args.population, args.n, args.epsilon, args.seeds)
        elif args.check == "threshold-draws":
            threshold_draws(args.estimator, args.first, args.last)
        elif args.check == "hinge-paper-direction":
            hinge_paper_direction(args.population, args.n, args.epsilon, args.seeds)
        elif args.check == "kernel-ridge-collection":
            kernel_ridge_collection(args.n_features, args.n, args.epsilon, args.seeds)
        elif args.check == "kernel-ridge-linear-features-1d":
            kernel_ridge_linear_features_1d(args.seeds)
        else:
            deployment_draws(args.first, args.last)


if __name__ == "__main__":
    main()
