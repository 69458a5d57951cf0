"""HingeLDPClassifier (seed 001 Algorithm 4): privacy, faithfulness, utility."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone

from sklearn_ldp import HingeLDPClassifier
from sklearn_ldp._hinge import (
    HingeCopiesRandomizer,
    paper_budget,
    smoothed_hinge,
    smoothed_hinge_derivative,
    smoothed_hinge_risk,
)
from sklearn_ldp.accounting import gaussian_sigma
from sklearn_ldp.aggregation import PolynomialGradientOracle
from sklearn_ldp.optim import accelerated_projected_gradient, project_l2_ball
from sklearn_ldp.randomizers import GaussianRecordRandomizer
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


# -- loss ------------------------------------------------------------------


def test_smoothed_hinge_lemma_28():
    t = np.linspace(-3, 3, 2001)
    hinge = np.maximum(0.0, 0.5 - t)
    gap = smoothed_hinge(t, SMOOTHING) - hinge
    assert np.all(gap >= 0) and np.all(gap <= SMOOTHING / 2 + 1e-12)
    numeric = np.gradient(smoothed_hinge(t, SMOOTHING), t)
    np.testing.assert_allclose(
        smoothed_hinge_derivative(t, SMOOTHING), numeric, atol=1e-4
    )
    slope = np.gradient(smoothed_hinge_derivative(t, SMOOTHING), t)
    assert slope.max() <= 1 / (2 * SMOOTHING) + 1e-6  # f'' <= 1 / (2 beta)


# -- privacy ---------------------------------------------------------------


def test_paper_budget_composes_to_epsilon_delta():
    for degree in (1, 2, 5):
        eps0, eps_copy, delta_release = paper_budget(2.0, 1e-5, degree)
        n_pairs = degree * (degree + 1)
        assert 2 * eps0 + 2 * n_pairs * eps_copy == pytest.approx(2.0)
        assert (2 * n_pairs + 2) * delta_release == pytest.approx(1e-5)
        # The printed variance ratio sigma_copy / sigma_0 = d (d+1) / 2 is kept.
        assert eps0 / eps_copy == pytest.approx(n_pairs / 2)


def test_paper_randomizer_report():
    rand = HingeCopiesRandomizer(
        3, epsilon=1.0, delta=1e-5, degree=2, data_norm=2.0, classes=["a", "b"]
    )
    assert rand.n_copies == 7
    _, eps_copy, delta_release = paper_budget(1.0, 1e-5, 2)
    assert rand.sigma_x[1] == gaussian_sigma(eps_copy, delta_release, 4.0, "classic")
    assert rand.sigma_y[0] == pytest.approx(rand.sigma_y[1] / 3)
    X = np.array([[10.0, 0.0, 0.0]] * 50_000)
    reports = rand.randomize(X, np.array(["a", "b"] * 25_000), random_state=0)
    assert reports["x"].shape == (50_000, 7, 3) and reports["y"].shape == (50_000, 7)
    assert reports.as_matrix().shape[1] == 7 * 4  # (d(d+1)+1)(p+1) per user
    # Clipped to data_norm, +-1 labels; 5 standard errors.
    sd = rand.sigma_x[0] / np.sqrt(50_000)
    assert abs(reports["x"][:, 0, 0].mean() - 2.0) < 5 * sd
    labels = reports["y"][:, 3].reshape(-1, 2).mean(axis=0)
    np.testing.assert_allclose(
        labels, [-1, 1], atol=5 * rand.sigma_y[3] / np.sqrt(25_000)
    )


def _likelihood_ratio_statistic(rand, record_a, record_b):
    """Optimal (Neyman-Pearson) statistic for Gaussian reports with unequal noise."""
    mean_a = rand.randomize(np.array([record_a[0]]), np.array([record_a[1]]), 0)
    # Means of the reports: clip and encode without noise.
    clip = [np.asarray(r[0], float) for r in (record_a, record_b)]
    clip = [c * min(1.0, rand.data_norm / np.linalg.norm(c)) for c in clip]
    labels = [-1.0 if r[1] == rand.classes[0] else 1.0 for r in (record_a, record_b)]
    k = rand.n_copies
    diff_x = (clip[0] - clip[1])[None, :] / rand.sigma_x[:, None] ** 2  # (k, p)
    diff_y = (labels[0] - labels[1]) / rand.sigma_y**2  # (k,)
    direction = np.concatenate([diff_x.ravel(), diff_y])
    assert mean_a.as_matrix().shape[1] == direction.size == k * (len(clip[0]) + 1)
    return lambda matrix: matrix @ direction


@pytest.mark.parametrize("degree, epsilon", [(1, 1.0), (2, 4.0)])
def test_paper_randomizer_passes_the_audit(degree, epsilon):
    rand = HingeCopiesRandomizer(2, epsilon=epsilon, delta=1e-5, degree=degree)
    a, b = ([50.0, 0.0], 1), ([-50.0, 0.0], -1)
    result = audit_randomizer(
        rand, a, b, statistic=_likelihood_ratio_statistic(rand, a, b), n_draws=100_000
    )
    assert result.passed, result


def test_audit_rejects_paper_randomizer_without_composition():
    # A plausible bug: every copy calibrated to the full (eps, delta) as if it
    # were the only release. At eps = 1 with d = 2 (14 releases) the true
    # epsilon is several times larger, and the audit must say so.
    rand = HingeCopiesRandomizer(2, epsilon=1.0, delta=1e-5, degree=2)
    rand.sigma_x[:] = gaussian_sigma(1.0, 1e-5, 2.0, "classic")
    rand.sigma_y[:] = gaussian_sigma(1.0, 1e-5, 2.0, "classic")
    a, b = ([50.0, 0.0], 1), ([-50.0, 0.0], -1)
    result = audit_randomizer(
        rand, a, b, statistic=_likelihood_ratio_statistic(rand, a, b), n_draws=100_000
    )
    assert not result.passed


def test_default_randomizer_is_the_joint_record_release_and_passes_the_audit():
    est = HingeLDPClassifier(epsilon=4.0)
    rand = est.make_randomizer(2, classes=["no", "yes"])
    assert isinstance(rand, GaussianRecordRandomizer)
    assert rand.get_config()["calibration"] == "analytic"
    assert "degree" not in rand.get_config()  # the degree is a server-side choice
    a, b = ([50.0, 0.0], "no"), ([-50.0, 0.0], "yes")
    assert audit_randomizer(rand, a, b, n_draws=100_000).passed
    rand.sigma_x /= 2.0
    rand.sigma_y /= 2.0
    assert not audit_randomizer(rand, a, b, n_draws=100_000).passed


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
        epsilon=1e7, degree=6, solver="sigm", max_iter=2000, random_state=0
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
    est = HingeLDPClassifier(epsilon=1e5, degree=2, solver="gd", random_state=0)
    est.fit(X, labels)
    rng = np.random.RandomState(0)
    reports = est.make_randomizer(2, classes=["neg", "pos"]).randomize(X, labels, rng)
    server = clone(est).fit_reports(reports)
    # Same reports (same user noise); only the server's fission draws differ,
    # and at eps = 1e5 they are negligible.
    np.testing.assert_allclose(server.coef_, est.coef_, atol=1e-3)
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
    with pytest.raises(ValueError, match="degree"):
        HingeCopiesRandomizer(2, epsilon=1.0, delta=1e-5, degree=0)
    with pytest.raises(ValueError, match="two distinct classes"):
        HingeCopiesRandomizer(2, epsilon=1.0, delta=1e-5, degree=1, classes=[1, 2, 3])


def test_server_memory_does_not_grow_with_the_degree():
    # The fission oracle stores the reports plus one direction copy, whatever d.
    rng = np.random.RandomState(0)
    x, y = rng.standard_normal((1_000, 3)), rng.standard_normal(1_000)
    for degree in (1, 6):
        oracle = PolynomialGradientOracle(
            x, y, coef=np.ones(degree + 1), sigma_x=1.0, sigma_y=1.0
        )
        stored = [v for v in vars(oracle).values() if isinstance(v, np.ndarray)]
        # x, y, and the split: x_dir, y_dir, y_bar (plus a few constants).
        assert sum(v.size for v in stored) <= 2 * x.size + 3 * y.size + 50


@pytest.mark.parametrize("coef_norm", [0.3, 2.0])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_coef_norm_is_the_projection_radius_and_fit_intercept(coef_norm, fit_intercept):
    X, y = make_data(20_000, seed=5)
    clf = HingeLDPClassifier(
        epsilon=4.0, coef_norm=coef_norm, fit_intercept=fit_intercept, random_state=0
    ).fit(X, y)
    # The server projects (coef, intercept) onto the l2 ball of radius coef_norm.
    w = np.append(clf.coef_.ravel(), clf.intercept_)
    assert np.linalg.norm(w) <= coef_norm * (1 + 1e-9)
    if not fit_intercept:
        assert clf.intercept_.tolist() == [0.0]
