"""HingeLDPClassifier (seed 001 Algorithm 4): privacy, faithfulness, utility.

The smoothed hinge loss is tested in tests/losses, the printed report and its
budget in tests/randomizers/test_copies.py and tests/accounting/test_budgets.py,
the oracle in tests/aggregation/test_oracle.py.
"""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone

from sklearn_ldp import HingeLDPClassifier
from sklearn_ldp._hinge import (
    smoothed_hinge,
    smoothed_hinge_derivative,
    smoothed_hinge_risk,
)
from sklearn_ldp.optim import accelerated_projected_gradient, project_l2_ball
from sklearn_ldp.randomizers import (
    GaussianCopiesRandomizer,
    GaussianRecordRandomizer,
    PrivUnitGRecordRandomizer,
)
from sklearn_ldp.utils import audit_randomizer

SMOOTHING = 0.5


def make_data(n, seed=0, n_features=2):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(n, n_features)) / np.sqrt(n_features)
    y = (X @ np.ones(n_features) / np.sqrt(n_features) > 0.05).astype(int)
    return X, y


def reference_minimizer(X, y, radius=1.0):
    """scipy on the clean data: min of the smoothed hinge risk over the ball."""
    s = 2.0 * y - 1.0
    Z = np.hstack([X, np.ones((len(X), 1))])

    def risk(w):
        return np.mean(smoothed_hinge(s * (Z @ w), SMOOTHING))

    def grad(w):
        return (smoothed_hinge_derivative(s * (Z @ w), SMOOTHING) * s) @ Z / len(X)

    ball = {"type": "ineq", "fun": lambda w: radius**2 - w @ w, "jac": lambda w: -2 * w}
    result = minimize(
        risk,
        np.zeros(Z.shape[1]),
        jac=grad,
        method="SLSQP",
        constraints=[ball],
        options={"ftol": 1e-13, "maxiter": 1000},
    )
    return result.x, float(result.fun)


# -- privacy ---------------------------------------------------------------


def test_default_randomizer_is_one_privunit_report_and_passes_the_audit(
    privunit_pair_statistic,
):
    rand = HingeLDPClassifier(epsilon=4.0).make_randomizer(2, classes=["no", "yes"])
    assert isinstance(rand, PrivUnitGRecordRandomizer) and rand.delta == 0.0
    a, b = ([50.0, 0.0], "no"), ([-50.0, 0.0], "yes")
    statistic = privunit_pair_statistic(rand, a, b)
    assert audit_randomizer(rand, a, b, statistic=statistic, n_draws=100_000).passed
    assert isinstance(
        HingeLDPClassifier(epsilon=4.0, degree=3).make_randomizer(
            2, classes=["no", "yes"]
        ),
        GaussianRecordRandomizer,
    )


def test_gaussian_joint_report_passes_the_audit():
    est = HingeLDPClassifier(epsilon=4.0, mechanism="gaussian")
    rand = est.make_randomizer(2, classes=["no", "yes"])
    assert isinstance(rand, GaussianRecordRandomizer)
    assert rand.get_config()["calibration"] == "analytic"
    assert "degree" not in rand.get_config()  # the degree is a server-side choice
    a, b = ([50.0, 0.0], "no"), ([-50.0, 0.0], "yes")
    assert audit_randomizer(rand, a, b, n_draws=100_000).passed
    rand.sigma_x /= 2.0
    rand.sigma_y /= 2.0
    assert not audit_randomizer(rand, a, b, n_draws=100_000).passed


def test_paper_mode_publishes_the_product_copies():
    est = HingeLDPClassifier(calibration="paper", degree=2)
    rand = est.make_randomizer(2, n_users=100, classes=["no", "yes"])
    assert isinstance(rand, GaussianCopiesRandomizer)
    assert rand.protocol == "product_copies" and rand.n_feature_copies == 7


# -- faithfulness ----------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"degree": 8, "approximation": "chebyshev"},
        {"degree": 4, "approximation": "bernstein"},
        {"degree": 2, "approximation": "bernstein", "calibration": "paper"},
    ],
)
def test_huge_epsilon_reaches_the_minimizer_of_the_smoothed_loss(params):
    X, y = make_data(4_000)
    w_ref, risk_ref = reference_minimizer(X, y)
    clf = HingeLDPClassifier(
        selection=None,
        epsilon=1e7,
        smoothing=SMOOTHING,
        solver="gd",
        max_iter=500,
        random_state=0,
        **params,
    ).fit(X, y)
    w = np.append(clf.coef_[0], clf.intercept_)
    risk = smoothed_hinge_risk(clf.coef_, clf.intercept_, X, 2 * y - 1, SMOOTHING)
    # A fixed point w of the projected polynomial field g_P satisfies
    # <g_P(w), w - w*> <= 0, so for the convex risk L:
    # L(w) - L(w*) <= <grad L(w) - g_P(w), w - w*> <= err * max||z|| * 2 R.
    bound = clf.approximation_error_ * np.sqrt(2) * 2 * 1.0
    assert -1e-9 <= risk - risk_ref <= bound
    # And the fitted model is the fixed point of the *clean* polynomial field
    # (computed here without any noise), up to the tiny noise at eps = 1e7.
    s = 2.0 * y - 1.0
    Z = np.hstack([X, np.ones((len(X), 1))])

    def clean_field(v):
        a = s * (Z @ v)
        return (np.polynomial.Polynomial(clf.poly_coef_)(a) * s) @ Z / len(X)

    w_clean, _ = accelerated_projected_gradient(
        clean_field,
        np.zeros(3),
        step=SMOOTHING,
        max_iter=5000,
        tol=1e-12,
        projection=lambda v: project_l2_ball(v, 1.0),
    )
    np.testing.assert_allclose(w, w_clean, atol=2e-3)
    if params["degree"] == 8:  # Chebyshev error 0.014: close to the reference too
        np.testing.assert_allclose(w, w_ref, atol=0.01)


def test_sigm_solver_at_huge_epsilon():
    # One pass of SIGM (p = 1) over 20000 users in 2000 steps: Lemma 16 gives
    # excess O(sigma R / sqrt(T)) + approximation; at eps = 1e7 the oracle's
    # spread is that of the data (|g_i| <= sqrt(2)): 2 * sqrt(2) / sqrt(2000) = 0.06.
    X, y = make_data(20_000)
    _, risk_ref = reference_minimizer(X, y)
    clf = HingeLDPClassifier(
        selection=None,
        epsilon=1e7,
        degree=6,
        solver="sigm",
        max_iter=2000,
        random_state=0,
    ).fit(X, y)
    risk = smoothed_hinge_risk(clf.coef_, clf.intercept_, X, 2 * y - 1, SMOOTHING)
    assert risk - risk_ref <= 0.06 + clf.approximation_error_ * np.sqrt(2) * 2
    assert clf.n_iter_ == 2000


def test_accuracy_rises_with_n_and_epsilon():
    # Excess smoothed-hinge risk averaged over 3 seeds. The oracle's noise
    # variance scales like 1 / (n eps^4) at degree 1: going from eps = 2 to 8 at
    # n = 100k, or from 2k to 100k users at eps = 8, divides it by > 50.
    X_test, y_test = make_data(20_000, seed=100)
    _, risk_ref = reference_minimizer(X_test, y_test)

    def excess(n, epsilon):
        values = []
        for seed in range(3):
            X, y = make_data(n, seed)
            clf = HingeLDPClassifier(epsilon=epsilon, degree=1, random_state=seed)
            clf.fit(X, y)
            values.append(
                smoothed_hinge_risk(
                    clf.coef_, clf.intercept_, X_test, 2 * y_test - 1, SMOOTHING
                )
                - risk_ref
            )
        return np.mean(values)

    small_n, small_eps, good = (
        excess(2_000, 8.0),
        excess(100_000, 2.0),
        excess(100_000, 8.0),
    )
    assert good < 0.5 * small_n and good < 0.5 * small_eps


# -- contract and input ----------------------------------------------------


def test_fit_is_randomize_then_fit_reports_and_labels_map():
    X, y = make_data(3_000)
    labels = np.array(["neg", "pos"])[y]
    est = HingeLDPClassifier(
        selection=None, epsilon=1e5, degree=2, solver="gd", random_state=0
    )
    est.fit(X, labels)
    rng = np.random.RandomState(0)
    reports = est.make_randomizer(2, classes=["neg", "pos"]).randomize(X, labels, rng)
    server = clone(est).fit_reports(reports)
    # Other users' noise (RandomState(0) is not the noise stream of
    # random_state=0); at eps = 1e5 the difference is negligible.
    np.testing.assert_allclose(server.coef_, est.coef_, atol=1e-3)
    # With the same random_state: the very same reports and server draws.
    same = est.make_randomizer(2, classes=["neg", "pos"]).randomize(X, labels, 0)
    np.testing.assert_array_equal(clone(est).fit_reports(same).coef_, est.coef_)
    again = clone(est).fit_reports(reports)
    np.testing.assert_array_equal(again.coef_, server.coef_)  # deterministic server
    assert list(est.classes_) == ["neg", "pos"]
    assert est.score(X, labels) > 0.9
    assert est.coef_.shape == (1, 2) and est.intercept_.shape == (1,)
    np.testing.assert_array_equal(
        est.predict(X), est.classes_[(est.decision_function(X) > 0).astype(int)]
    )


def test_paper_reports_are_checked_against_the_configuration():
    X, y = make_data(500)
    reports = (
        HingeLDPClassifier(calibration="paper", degree=2)
        .make_randomizer(2, classes=[0, 1])
        .randomize(X, y, random_state=0)
    )
    with pytest.raises(ValueError, match="degree"):
        HingeLDPClassifier(calibration="paper", degree=1).fit_reports(reports)
    HingeLDPClassifier(calibration="paper", degree=2).fit_reports(reports)


def test_auto_degree_depends_on_the_noise():
    X, y = make_data(20_000)
    low = HingeLDPClassifier(epsilon=1.0, degree="auto", random_state=0).fit(X, y)
    high = HingeLDPClassifier(epsilon=1e6, degree="auto", random_state=0).fit(X, y)
    assert low.degree_ == 1
    assert high.degree_ == 6  # no noise: the most accurate candidate


def test_bad_input_is_refused():
    X, y = make_data(100)
    with pytest.raises(ValueError, match="Only binary classification"):
        HingeLDPClassifier().fit(X, np.arange(100) % 3)
    with pytest.raises(ValueError, match="degree='auto' needs calibration='analytic'"):
        HingeLDPClassifier(calibration="paper", degree="auto").fit(X, y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        HingeLDPClassifier().fit(np.full((4, 2), np.nan), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="epsilon"):
        HingeLDPClassifier(epsilon=0.0).fit(X, y)
    with pytest.raises(ValueError, match="delta"):
        HingeLDPClassifier(delta=1.0).fit(X, y)
    with pytest.raises(ValueError, match="Only binary classification"):
        HingeLDPClassifier().make_randomizer(2, classes=[1, 2, 3])
    with pytest.raises(ValueError, match="label set"):
        HingeLDPClassifier().make_randomizer(2)


@pytest.mark.parametrize("coef_norm", [0.3, 2.0])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_coef_norm_is_the_projection_radius_and_fit_intercept(coef_norm, fit_intercept):
    X, y = make_data(20_000, seed=5)
    clf = HingeLDPClassifier(
        selection=None,
        epsilon=4.0,
        coef_norm=coef_norm,
        fit_intercept=fit_intercept,
        random_state=0,
    ).fit(X, y)
    # The server projects (coef, intercept) onto the l2 ball of radius coef_norm.
    w = np.append(clf.coef_.ravel(), clf.intercept_)
    assert np.linalg.norm(w) <= coef_norm * (1 + 1e-9)
    if not fit_intercept:
        assert clf.intercept_.tolist() == [0.0]
