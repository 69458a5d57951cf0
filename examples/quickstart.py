"""Quickstart: every estimator of sklearn_ldp next to its non-private baseline.

Run with ``make demo``. Each private estimator is fitted on built-in or
synthetic data (simulating every user's local randomizer and the server) and
its test score is printed next to the non-private scikit-learn model on the
same split. At the end, the local randomizers are audited empirically.
"""

import time
import warnings

import numpy as np
from sklearn.model_selection import train_test_split

from sklearn_ldp.randomizers import (
    BassilySmithMechanism,
    DuchiMechanism,
    GaussianRecordRandomizer,
    LaplaceMechanism,
    PiecewiseMechanism,
)
from sklearn_ldp.utils import audit_mechanism, audit_randomizer

RNG = np.random.RandomState(0)


def scaled_to_unit_ball(X):
    """Public scaling: divide by a fixed constant so every row has norm <= 1.

    In a deployment the constant is a published bound; here the data are
    synthetic and we know it.
    """
    return X / np.sqrt(X.shape[1])


def section(title):
    print(f"\n{title}\n{'-' * len(title)}")


def row(name, private, baseline, seconds, metric):
    print(
        f"{name:<34} {metric:<9} private {private:7.3f}   non-private {baseline:7.3f}"
        f"   ({seconds:5.1f} s)"
    )


def demo_bernstein():
    from sklearn.linear_model import LinearRegression

    from sklearn_ldp import LocalBernsteinRegressor

    X = RNG.uniform(-1, 1, size=(200_000, 1))
    y = np.clip(0.5 * X[:, 0] + 0.1 + 0.3 * RNG.randn(200_000), -1, 1)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    private = LocalBernsteinRegressor(epsilon=2.0, random_state=0).fit(X_train, y_train)
    baseline = LinearRegression().fit(X_train, y_train)
    return (
        "LocalBernsteinRegressor (eps=2)",
        "R^2",
        private.score(X_test, y_test),
        baseline.score(X_test, y_test),
    )


def demo_hinge():
    from sklearn.svm import LinearSVC

    from sklearn_ldp import HingeLDPClassifier

    X = RNG.uniform(-1, 1, size=(100_000, 2)) / np.sqrt(2)  # public bound: ||x|| <= 1
    y = (X @ [0.8, 0.6] > 0.05).astype(int)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    private = HingeLDPClassifier(epsilon=8.0, random_state=0).fit(X_train, y_train)
    baseline = LinearSVC().fit(X_train, y_train)
    return (
        "HingeLDPClassifier (eps=8)",
        "accuracy",
        private.score(X_test, y_test),
        baseline.score(X_test, y_test),
    )


def demo_sparse():
    from sklearn.linear_model import LinearRegression

    from sklearn_ldp import SparseLDPRegressor

    n, d = 1_000_000, 20
    X = RNG.uniform(-1, 1, size=(n, d)) / np.sqrt(d)  # public bound: ||x|| <= 1
    w = np.zeros(d)
    w[:3] = [2.0, -2.0, 1.5]  # sparse truth, ||w||_1 <= 5.5 (public radius)
    y = np.clip(X @ w + 0.1 * RNG.randn(n), -1, 1)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    private = SparseLDPRegressor(epsilon=8.0, l1_radius=5.5, random_state=0)
    private.fit(X_train, y_train)
    baseline = LinearRegression().fit(X_train, y_train)
    return (
        "SparseLDPRegressor (eps=8, 750k)",
        "R^2",
        private.score(X_test, y_test),
        baseline.score(X_test, y_test),
    )


def demo_kernel_ridge():
    from sklearn.kernel_ridge import KernelRidge

    from sklearn_ldp import KernelRidgeLDP

    X = RNG.uniform(-2, 2, size=(100_000, 1))
    y = np.clip(np.sin(2 * X[:, 0]) + 0.2 * RNG.randn(100_000), -1, 1)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    private = KernelRidgeLDP(epsilon=8.0, gamma=1.0, random_state=0)
    private.fit(X_train, y_train)
    # Exact kernel ridge is O(n^2): the non-private model sees 2000 users.
    baseline = KernelRidge(alpha=2.0, kernel="rbf", gamma=1.0)
    baseline.fit(X_train[:2000], y_train[:2000])
    return (
        "KernelRidgeLDP (eps=8)",
        "R^2",
        private.score(X_test, y_test),
        baseline.score(X_test, y_test),
    )


def demo_dp_svrg():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    from sklearn_ldp import DPSVRGClassifier

    X, y = make_classification(
        n_samples=20_000, n_features=20, n_informative=10, random_state=0
    )
    # Public scaling (a fixed constant, not fitted): ||x|| <~ 1.
    X_train, X_test, y_train, y_test = train_test_split(X / 20, y, random_state=0)
    private = DPSVRGClassifier(classes=[0, 1], epsilon=1.0, delta=1e-5, random_state=0)
    private.fit(X_train, y_train)
    baseline = LogisticRegression().fit(X_train, y_train)
    return (
        "DPSVRGClassifier (central, eps=1)",
        "accuracy",
        private.score(X_test, y_test),
        baseline.score(X_test, y_test),
    )


def demo_kde():
    from sklearn.neighbors import KernelDensity

    from sklearn_ldp import KernelDensityLDP

    X = np.clip(RNG.normal(0, 0.3, size=(50_000, 1)), -1, 1)  # public box [-1, 1]
    X_train, X_test = train_test_split(X, test_size=2000, random_state=0)
    private = KernelDensityLDP(epsilon=2.0, bandwidth=0.2, random_state=0).fit(X_train)
    baseline = KernelDensity(bandwidth=0.2).fit(X_train)
    return (
        "KernelDensityLDP (eps=2)",
        "mean ll",
        private.score(X_test) / len(X_test),
        baseline.score(X_test) / len(X_test),
    )


def demo_marginals():
    from sklearn_ldp import KWayMarginalsLDP

    B = (RNG.uniform(size=(200_000, 6)) < [0.3, 0.5, 0.2, 0.6, 0.4, 0.5]).astype(int)
    private = KWayMarginalsLDP(epsilon=2.0, k=2, random_state=0).fit(B)
    exact = B[:, 0].astype(bool) & B[:, 1].astype(bool)
    return (
        "KWayMarginalsLDP (eps=2), P(x0=x1=1)",
        "estimate",
        private.marginal([0, 1], [1, 1]),
        exact.mean(),
    )


def demo_dp_constrained():
    from sklearn.linear_model import LogisticRegression

    from sklearn_ldp import DPConstrainedClassifier

    # 1000 binary features, 5 informative: a sparse high-dimensional problem.
    X = RNG.choice([-1.0, 1.0], size=(3000, 1000))
    y = (X[:, :5].sum(axis=1) > 0).astype(int)
    X_train, X_test, y_train, y_test = X[:2000], X[2000:], y[:2000], y[2000:]
    private = DPConstrainedClassifier(
        classes=[0, 1],
        epsilon=2.0,
        radius=8.0,
        data_norm=1.0,
        data_norm_type="linf",
        n_iter=30,
        random_state=0,
    ).fit(X_train, y_train)
    baseline = LogisticRegression(max_iter=1000).fit(X_train, y_train)
    return (
        "DPConstrainedClassifier (central, eps=2)",
        "accuracy",
        private.score(X_test, y_test),
        baseline.score(X_test, y_test),
    )


ESTIMATOR_DEMOS = [
    demo_bernstein,
    demo_hinge,
    demo_sparse,
    demo_kernel_ridge,
    demo_dp_svrg,
    demo_dp_constrained,
    demo_kde,
    demo_marginals,
]


def run_estimators():
    section("Estimators (test score, private vs non-private scikit-learn)")
    if not ESTIMATOR_DEMOS:
        print("(no estimator is available yet)")
    for demo in ESTIMATOR_DEMOS:
        start = time.perf_counter()
        name, metric, private, baseline = demo()
        row(name, private, baseline, time.perf_counter() - start, metric)


def run_mechanisms():
    section(
        "Scalar mechanisms at epsilon = 1: unbiased estimate of a mean from 100k users"
    )
    values = RNG.uniform(0.0, 1.0, size=100_000)
    for mech in [
        LaplaceMechanism(1.0, 0.0, 1.0),
        DuchiMechanism(1.0, 0.0, 1.0),
        PiecewiseMechanism(1.0, 0.0, 1.0),
        BassilySmithMechanism(1.0, 0.0, 1.0),
    ]:
        estimate = mech.estimate(mech.randomize(values, random_state=RNG)).mean()
        sd = np.sqrt(mech.variance(values).mean() / values.size)
        print(
            f"{type(mech).__name__:<24} true {values.mean():.4f}  estimate {estimate:.4f}"
            f"  (sd {sd:.4f})"
        )


def run_audits():
    section("Empirical privacy audit (two extreme records, 200k reports each)")
    rand = GaussianRecordRandomizer(3, epsilon=1.0, delta=1e-5, y_bound=1.0)
    result = audit_randomizer(rand, ([50.0, 0.0, 0.0], 9.0), ([-50.0, 0.0, 0.0], -9.0))
    print(
        f"{rand.guarantee}: audit passed={result.passed}, "
        f"certified epsilon >= {result.epsilon_lower_bound:.3f}"
    )
    mech = LaplaceMechanism(1.0)
    result = audit_mechanism(mech, 100.0, -100.0)
    print(
        f"Laplace, {mech.guarantee}: audit passed={result.passed}, "
        f"certified epsilon >= {result.epsilon_lower_bound:.3f}"
    )


if __name__ == "__main__":
    warnings.simplefilter("ignore", category=UserWarning)
    run_estimators()
    run_mechanisms()
    run_audits()
