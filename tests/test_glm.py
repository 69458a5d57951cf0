"""GLMLDPClassifier (seed 003 Alg. 5-6, seed 001 Alg. 5): approximation, privacy of
the default report, faithfulness, utility, contract. The oracle, the smoothing,
the multi-copy reports and their budgets are tested in tests/aggregation,
tests/randomizers/test_copies.py and tests/accounting/test_budgets.py."""

import numpy as np
import pytest
from numpy.polynomial import Polynomial, chebyshev
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from sklearn_ldp import GLMLDPClassifier, HingeLDPClassifier
from sklearn_ldp._glm import glm_risk
from sklearn_ldp._linear import label_only_threshold
from sklearn_ldp.aggregation import linear_label_parts
from sklearn_ldp.losses import get_loss
from sklearn_ldp.randomizers import (
    GaussianCopiesRandomizer,
    GaussianRecordRandomizer,
    LabelRandomizer,
    PrivUnitGRecordRandomizer,
)
from sklearn_ldp.randomizers._target_mean import min_users_for_a_model
from sklearn_ldp.utils import audit_randomizer

LOGISTIC = get_loss("logistic")


def make_data(n, seed=0, n_classes=2):
    """Gaussian classes with correlated features, clipped to the unit ball.

    The data stream is distinct from RandomState(seed), which the estimators
    use for the users' noise (else the noise would replay the data's normals).
    """
    rng = np.random.RandomState([seed, 2024])
    labels = rng.randint(n_classes, size=n)
    angles = 2 * np.pi * np.arange(n_classes) / n_classes
    centers = 0.4 * np.column_stack([np.cos(angles), np.sin(angles)])
    X = centers[labels] + rng.standard_normal((n, 2)) @ np.array(
        [[0.25, 0.0], [0.15, 0.1]]
    )
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, labels


# -- approximation ---------------------------------------------------------


def test_chebyshev_coefficients_match_chebinterpolate():
    X, y = make_data(500)
    clf = GLMLDPClassifier(epsilon=1e6, degree=7, coef_norm=2.0, random_state=0)
    clf.fit(X, y)
    r = 2.0 * np.sqrt(2.0)  # coef_norm * ||(x, 1)||_max
    h2_prime, _ = linear_label_parts(LOGISTIC.margin_derivative)
    # numpy on [-1, 1], then t = r u: the coefficient of t^j is that of u^j / r^j.
    in_u = chebyshev.cheb2poly(chebyshev.chebinterpolate(lambda u: h2_prime(r * u), 7))
    np.testing.assert_allclose(clf.poly_coef_[0], in_u / r ** np.arange(8), atol=1e-12)
    # h1'(a) = 1/2 for the logistic loss (seed 003, Section 4.1).
    np.testing.assert_allclose(clf.poly_coef_[1], [0.5] + [0.0] * 7, atol=1e-12)
    grid = np.linspace(-r, r, 2001)
    err = np.max(np.abs(Polynomial(clf.poly_coef_[0])(grid) - h2_prime(grid)))
    assert clf.approximation_error_ == pytest.approx(err)


# -- privacy ---------------------------------------------------------------


def _report_means(rand, record_a, record_b):
    """The two records\' mean reports (for the Gaussian audit statistic)."""
    # The mean report: the clipped features and the encoded label (the
    # lattice rounding is unbiased).
    means = [
        np.concatenate(
            [
                rand.features(np.array([r[0]], float)).ravel(),
                np.ravel(rand.targets(np.array([r[1]]))),
            ]
        )
        for r in (record_a, record_b)
    ]
    return means


RECORDS = {
    2: (([50.0, 0.0], 0), ([-50.0, 0.0], 1)),
    3: (([50.0, 0.0], 0), ([-50.0, 0.0], 2)),
}


@pytest.mark.parametrize("n_classes", [2, 3])
def test_default_randomizer_is_one_privunit_report_and_passes_the_audit(
    n_classes, privunit_pair_statistic
):
    # mechanism='auto' with the degree-1 default: one pure-epsilon PrivUnitG
    # report of the pair (its audit: tests/randomizers/test_privunit.py).
    est = GLMLDPClassifier(epsilon=2.0)
    rand = est.make_randomizer(2, classes=np.arange(n_classes))
    assert isinstance(rand, PrivUnitGRecordRandomizer) and rand.delta == 0.0
    assert "degree" not in rand.get_config()
    a, b = RECORDS[n_classes]
    result = audit_randomizer(
        rand, a, b, statistic=privunit_pair_statistic(rand, a, b), n_draws=100_000
    )
    assert result.passed
    # Configurations whose server evaluates polynomials of the reports keep
    # the Gaussian release; asking for PrivUnitG there is refused.
    assert isinstance(
        GLMLDPClassifier(epsilon=2.0, degree=3).make_randomizer(
            2, classes=np.arange(n_classes)
        ),
        GaussianRecordRandomizer,
    )
    with pytest.raises(ValueError, match="mechanism='privunit' needs"):
        GLMLDPClassifier(epsilon=2.0, degree=3, mechanism="privunit").make_randomizer(
            2, classes=np.arange(n_classes)
        )
    # Outside the budgets PrivUnitG is calibrated for, 'auto' is Gaussian.
    assert isinstance(
        GLMLDPClassifier(epsilon=0.01).make_randomizer(2, classes=np.arange(n_classes)),
        GaussianRecordRandomizer,
    )
    with pytest.raises(ValueError, match="epsilon"):
        GLMLDPClassifier(epsilon=0.01, mechanism="privunit").make_randomizer(
            2, classes=np.arange(n_classes)
        )


@pytest.mark.parametrize("n_classes", [2, 3])
def test_gaussian_joint_report_passes_the_audit(n_classes, likelihood_ratio_statistic):
    rand = GLMLDPClassifier(epsilon=2.0, mechanism="gaussian").make_randomizer(
        2, classes=np.arange(n_classes)
    )
    assert isinstance(rand, GaussianRecordRandomizer)
    assert "degree" not in rand.get_config()  # the degree is a server-side choice
    a, b = RECORDS[n_classes]
    stat = likelihood_ratio_statistic(
        _report_means(rand, a, b), rand.sigma_x, rand.sigma_y, len(a[0])
    )
    assert audit_randomizer(rand, a, b, statistic=stat, n_draws=100_000).passed
    rand.sigma_x /= 2.0  # broken: noise too small by 2
    rand.sigma_y /= 2.0
    stat = likelihood_ratio_statistic(
        _report_means(rand, a, b), rand.sigma_x, rand.sigma_y, len(a[0])
    )
    assert not audit_randomizer(rand, a, b, statistic=stat, n_draws=100_000).passed


@pytest.mark.parametrize(
    "approximation, protocol",
    [
        ("chebyshev", "power_copies"),
        ("bernstein", "product_copies"),
        ("smoothed_quantile", "product_copies"),
    ],
)
def test_paper_mode_publishes_the_printed_copies(approximation, protocol):
    est = GLMLDPClassifier(calibration="paper", degree=2, approximation=approximation)
    rand = est.make_randomizer(2, n_users=100, classes=["b", "a", "c"])
    assert isinstance(rand, GaussianCopiesRandomizer)
    config = rand.get_config()
    assert config["protocol"] == protocol and config["degree"] == 2
    assert config["classes"] == ["a", "b", "c"]
    with pytest.raises(ValueError, match="label set"):
        est.make_randomizer(2)


# -- faithfulness ----------------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
def test_huge_epsilon_matches_logistic_regression(n_classes):
    X, y = make_data(3_000, n_classes=n_classes)
    alpha = 0.02
    clf = GLMLDPClassifier(
        selection=None,
        epsilon=1e8,
        degree=16,
        coef_norm=4.0,
        alpha=alpha,
        max_iter=2000,
        random_state=0,
    ).fit(X, y)
    # LogisticRegression minimizes sum loss + ||w||^2 / (2 C): C = 1 / (alpha n).
    # Multiclass: one binary problem per class (one-vs-rest).
    ref_coef, ref_intercept = [], []
    for c in range(n_classes) if n_classes > 2 else [1]:
        lr = LogisticRegression(C=1.0 / (alpha * len(X)), tol=1e-10, max_iter=10_000)
        lr.fit(X, (y == c).astype(int))
        ref_coef.append(lr.coef_[0])
        ref_intercept.append(lr.intercept_[0])
    assert (
        np.linalg.norm(np.column_stack([ref_coef, ref_intercept]), axis=1).max() < 4.0
    )
    # Fixed point of the polynomial field vs the minimizer: alpha-strong
    # convexity gives ||w - w*|| <= err * ||z||_max / alpha (err = 1.5e-4 at
    # degree 16 on [-4 sqrt 2, 4 sqrt 2]: tol = 0.012), plus the solver's
    # tolerance (1e-6 relative) and the noise at eps = 1e8 (1e-3 covers both).
    tol = clf.approximation_error_ * np.sqrt(2) / alpha + 1e-3
    np.testing.assert_allclose(clf.coef_, ref_coef, atol=tol)
    np.testing.assert_allclose(clf.intercept_, ref_intercept, atol=tol)


def test_huge_epsilon_paper_and_smoothed_quantile_modes_minimize_their_losses():
    X, y = make_data(3_000)
    s = 2.0 * y - 1.0
    reference = GLMLDPClassifier(
        selection=None, epsilon=1e8, degree=8, max_iter=500, random_state=0
    )
    w_ref = np.append(reference.fit(X, y).coef_, reference.intercept_)
    for params in [
        {"calibration": "paper", "degree": 3},
        {"calibration": "paper", "approximation": "bernstein", "degree": 3},
    ]:
        clf = GLMLDPClassifier(
            selection=None, epsilon=1e8, max_iter=500, random_state=0, **params
        )
        clf.fit(X, y)
        # Within the approximation error of the logistic minimizer (same
        # argument as above with the curvature of the logistic risk).
        assert (
            glm_risk(clf.coef_, clf.intercept_, X, s)
            - glm_risk(w_ref[:2], w_ref[2:], X, s)
            <= 2 * clf.approximation_error_ * np.sqrt(2) * 2
        )
    # The smoothed quantile representation (Lemma 32) with a fresh s per
    # user: minimizes the smoothed loss F_beta, within D beta of the logistic
    # loss: compare risks.
    clf = GLMLDPClassifier(
        selection=None,
        epsilon=1e8,
        approximation="smoothed_quantile",
        degree=6,
        smoothing=0.1,
        max_iter=500,
        random_state=0,
    ).fit(X, y)
    excess = glm_risk(clf.coef_, clf.intercept_, X, s) - glm_risk(
        w_ref[:2], w_ref[2:], X, s
    )
    assert excess <= 2 * 0.1 + clf.approximation_error_ * np.sqrt(2) * 2


def test_accuracy_rises_with_n_and_epsilon():
    # Excess test logistic risk, mean of 3 seeds. At degree 1 the oracle's
    # noise variance scales like sigma^4 / n with sigma ~ 1 / eps: eps 1 -> 8
    # at n = 50k, or n 2k -> 50k at eps = 8, divide it by > 25.
    X_test, y_test = make_data(20_000, seed=100)
    s_test = 2.0 * y_test - 1.0
    best = GLMLDPClassifier(selection=None, epsilon=1e8, random_state=0).fit(
        X_test, y_test
    )
    best_risk = glm_risk(best.coef_, best.intercept_, X_test, s_test)

    def excess(n, epsilon):
        values = []
        for seed in range(3):
            X, y = make_data(n, seed)
            clf = GLMLDPClassifier(
                selection=None, epsilon=epsilon, random_state=seed
            ).fit(X, y)
            values.append(
                glm_risk(clf.coef_, clf.intercept_, X_test, s_test) - best_risk
            )
        return np.mean(values)

    small_n, small_eps, good = (
        excess(2_000, 8.0),
        excess(50_000, 1.0),
        excess(50_000, 8.0),
    )
    assert good < 0.5 * small_n and good < 0.5 * small_eps


# -- contract and input ----------------------------------------------------


def test_fit_is_randomize_then_fit_reports_multiclass():
    X, y = make_data(3_000, n_classes=3)
    labels = np.array(["a", "b", "c"])[y]
    est = GLMLDPClassifier(epsilon=1e5, degree=2, random_state=0).fit(X, labels)
    reports = est.make_randomizer(2, classes=["a", "b", "c"]).randomize(
        X, labels, random_state=0
    )
    server = clone(est).fit_reports(reports)
    np.testing.assert_allclose(server.coef_, est.coef_, atol=1e-3)
    np.testing.assert_array_equal(clone(est).fit_reports(reports).coef_, server.coef_)
    assert est.coef_.shape == (3, 2) and est.intercept_.shape == (3,)
    assert list(est.classes_) == ["a", "b", "c"] and est.score(X, labels) > 0.8
    proba = est.predict_proba(X[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(
        est.classes_[proba.argmax(axis=1)], est.predict(X[:5])
    )


def test_callable_loss_equals_builtin_and_proba_only_for_logistic():
    X, y = make_data(2_000)
    builtin = GLMLDPClassifier(epsilon=2.0, degree=2, random_state=0).fit(X, y)
    custom = GLMLDPClassifier(
        epsilon=2.0,
        degree=2,
        loss=LOGISTIC.margin_derivative,
        derivative_lipschitz=0.25,
        random_state=0,
    ).fit(X, y)
    np.testing.assert_array_equal(custom.coef_, builtin.coef_)
    assert not hasattr(custom, "predict_proba")
    assert not hasattr(GLMLDPClassifier(loss="hinge"), "predict_proba")
    for loss in ("hinge", "squared_hinge", "modified_huber"):
        clf = GLMLDPClassifier(epsilon=1e6, loss=loss, degree=4, random_state=0)
        assert clf.fit(X, y).score(X, y) > 0.85
    assert GLMLDPClassifier(loss="hinge").fit(X, y).smoothing_ == 0.5


def test_bad_input_is_refused():
    X, y = make_data(100)
    with pytest.raises(ValueError, match="smoothing must be a positive number"):
        GLMLDPClassifier(approximation="smoothed_quantile", smoothing=None).fit(X, y)
    with pytest.raises(ValueError, match="approximation"):
        GLMLDPClassifier(approximation="lemma32").fit(X, y)
    # 'huber' names the regression loss: the classification one is refused
    # with a pointer, before any report is made.
    with pytest.raises(ValueError, match="loss='modified_huber'"):
        GLMLDPClassifier(loss="huber").fit(X, y)
    with pytest.raises(ValueError, match="loss='modified_huber'"):
        GLMLDPClassifier(loss="huber").make_randomizer(2, classes=[0, 1])
    with pytest.raises(ValueError, match="not convex"):
        GLMLDPClassifier(loss=lambda t: -np.asarray(t), derivative_lipschitz=1.0).fit(
            X, y
        )
    with pytest.raises(ValueError, match="derivative_lipschitz"):
        GLMLDPClassifier(loss=LOGISTIC.margin_derivative, smoothing=None).fit(X, y)
    with pytest.raises(ValueError, match="degree='auto' needs calibration='analytic'"):
        GLMLDPClassifier(calibration="paper", degree="auto").fit(X, y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        GLMLDPClassifier().fit(np.full((4, 2), np.nan), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="epsilon"):
        GLMLDPClassifier(epsilon=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="delta"):
        GLMLDPClassifier(delta=1.0).fit(X, y)
    reports = (
        GLMLDPClassifier(calibration="paper", degree=2)
        .make_randomizer(2, classes=[0, 1])
        .randomize(X, y, random_state=0)
    )
    with pytest.raises(ValueError, match="degree"):
        GLMLDPClassifier(calibration="paper", degree=1).fit_reports(reports)


def test_auto_degree_depends_on_the_noise():
    X, y = make_data(20_000)
    # Without the report-only selection: at epsilon 0.5 its 20,000 users
    # would send the label alone (no degree to choose).
    low = GLMLDPClassifier(
        epsilon=0.5, degree="auto", selection=None, random_state=0
    ).fit(X, y)
    high = GLMLDPClassifier(epsilon=1e6, degree="auto", random_state=0).fit(X, y)
    assert low.degree_ == 1
    assert high.degree_ == 6


def test_selection_never_does_worse_than_the_majority_on_pure_noise():
    # Labels independent of the features: the direction the reports give is
    # noise, so the server falls back to the class frequencies.
    rng = np.random.RandomState(3)
    X = rng.uniform(-1, 1, size=(20_000, 3)) / np.sqrt(3)
    y = (rng.uniform(size=20_000) < 0.7).astype(int)
    clf = GLMLDPClassifier(epsilon=1.0, random_state=0).fit(X, y)
    assert clf.selected_model_ == "constant"
    assert np.all(clf.predict(X) == 1)
    results = clf.cv_results_
    assert len(results["candidate"]) == len(results["mean_risk"]) >= 3
    assert results["selected"].sum() == 1


def test_default_is_as_accurate_as_debiased_least_squares_on_the_same_reports():
    # Degree 1: the exact quadratic on debiased moments is least squares with
    # the loss's slope; both read the same reports (same random_state).
    X, y = make_data(50_000, seed=4)
    X_test, y_test = make_data(20_000, seed=104)
    clf = GLMLDPClassifier(epsilon=2.0, mechanism="gaussian", random_state=0).fit(X, y)
    reports = clf.make_randomizer(2, classes=[0, 1]).randomize(X, y, random_state=0)
    Z = np.hstack([reports["x"], np.ones((len(X), 1))])
    gram = Z.T @ Z / len(X) - np.diag([clf_sigma(clf, 2)] * 2 + [0.0])
    w = np.linalg.solve(gram + 1e-3 * np.eye(3), Z.T @ reports["y"] / len(X))
    ls_accuracy = np.mean((X_test @ w[:2] + w[2] > 0) == y_test)
    # Test accuracy of 20,000 users: standard error below 0.0035.
    assert clf.score(X_test, y_test) >= ls_accuracy - 0.02
    assert clf.score(X_test, y_test) > np.mean(y_test == np.argmax(np.bincount(y)))


def clf_sigma(clf, n_features):
    return clf.make_randomizer(n_features, classes=[0, 1]).sigma_x ** 2


@pytest.mark.parametrize("estimator", [GLMLDPClassifier, HingeLDPClassifier])
def test_too_few_users_for_any_model_send_the_label_alone(estimator):
    """Announced ``n <= (sigma_x sigma_t / data_norm)^2`` (the joint report's
    noise, public): users send the label alone through randomized response
    (pure epsilon); one user more and they send the joint Gaussian report.
    The server returns the majority class of the unbiased class frequencies,
    the same from the reports, from a stream of them and from fit."""
    # The Gaussian joint report's threshold (30,836 users at epsilon 1) leaves
    # room for a population of 20,000; the default PrivUnitG report's noise
    # is 4.6 times smaller, and so its threshold (70 users) at least 400
    # times smaller.
    default = estimator(selection=None, epsilon=1.0, delta=1e-7).make_randomizer(
        2, classes=[0, 1]
    )
    assert isinstance(default, PrivUnitGRecordRandomizer)
    params = dict(epsilon=1.0, delta=1e-7, random_state=0, mechanism="gaussian")
    joint = estimator(selection=None, **params).make_randomizer(
        2, n_users=10, classes=[0, 1]
    )
    assert label_only_threshold(joint) > 400 * label_only_threshold(default)
    threshold = int(
        min_users_for_a_model(joint.sigma_x, joint.sigma_y, joint.feature_norm, 1.0)
    )
    at = estimator(**params).make_randomizer(2, n_users=threshold, classes=[0, 1])
    above = estimator(**params).make_randomizer(
        2, n_users=threshold + 1, classes=[0, 1]
    )
    assert isinstance(at, LabelRandomizer) and at.get_config()["n_users"] == threshold
    assert isinstance(above, GaussianRecordRandomizer)
    assert at.delta == 0.0 and at.epsilon <= 1.0
    # Without an announced population, or without the report-only
    # selection, the joint report (the collection does not depend on n).
    unannounced = estimator(**params).make_randomizer(2, classes=[0, 1])
    assert isinstance(unannounced, GaussianRecordRandomizer)
    X, y = make_data(20_000, seed=5)
    y = np.where(np.arange(len(y)) < 13_000, 1, 0)  # 65% of class 1, no signal
    est = estimator(**params).fit(X, y)
    assert est.selected_model_ == "constant" and est.privacy_delta_ == 0.0
    assert not est.cv_results_["models_estimable"]
    assert np.all(est.coef_ == 0.0) and est.coef_.shape == (1, 2)
    frequencies = est.cv_results_["class_frequencies"]
    # Randomized response at epsilon 1: sd of one user's estimate
    # sqrt(p (1 - p)) / (2 p - 1) with p = e / (e + 1).
    p = np.e / (np.e + 1)
    se = np.sqrt(p * (1 - p)) / (2 * p - 1) / np.sqrt(len(y))
    assert abs(frequencies[1] - 0.65) < 4 * se
    assert est.intercept_[0] == pytest.approx(2 * frequencies[1] - 1)
    assert np.all(est.predict(X) == 1)
    reports = est.make_randomizer(2, n_users=len(y), classes=[0, 1]).randomize(
        X, y, random_state=3
    )
    assert sorted(reports.fields) == ["value"]
    served = estimator(**params).fit_reports(reports)
    half = len(y) // 2
    streamed = estimator(**params).fit_reports(
        [reports.subset(np.arange(half)), reports.subset(np.arange(half, len(y)))]
    )
    assert served.intercept_ == pytest.approx(streamed.intercept_, rel=1e-12)
    assert served.selected_model_ == "constant" and np.all(served.coef_ == 0.0)
    # Joint reports of as few users still get the joint server.
    few = joint.randomize(X[:500], y[:500], random_state=1)
    assert estimator(**params).fit_reports(few).cv_results_ is not None


def test_signal_tests_keep_their_level_with_uncentred_features():
    # Features in [0, 1]^5 and 70% of one class, independent: the uncentred
    # cross moment E[x] E[y] is not 0 without a signal (the chi-square test
    # on it rejected in every draw). "No signal" is rejected when the
    # smaller of the two p-values is below SIGNAL_LEVEL / 2 (Bonferroni: at
    # most SIGNAL_LEVEL = 0.2): Binomial(40, 0.2) exceeds 16 with
    # probability 1e-3.
    rejections = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        X = rng.uniform(0.0, 1.0, size=(20_000, 5)) / np.sqrt(5.0)
        y = (rng.uniform(size=20_000) < 0.7).astype(int)
        model = GLMLDPClassifier(
            epsilon=2.0, delta=1e-7, data_norm=1.0, random_state=seed
        ).fit(X, y)
        rejections += model.cv_results_["signal_p_value"] < 0.1
    assert rejections <= 16
