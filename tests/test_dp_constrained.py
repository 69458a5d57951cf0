"""DPConstrainedClassifier and its solvers: DP-FW-L2, DP-FW-L1, DP-PMD, DP-AccMD."""

import dp_accounting as dpa
import numpy as np
import pytest
from dp_accounting import rdp as dpa_rdp
from scipy.optimize import minimize
from scipy.special import log_softmax
from sklearn.datasets import make_classification

import sklearn_ldp._dp_constrained as constrained_module
from sklearn_ldp import DPConstrainedClassifier, DPSVRGClassifier
from sklearn_ldp.accounting import DEFAULT_RDP_ORDERS, SelectionNoise
from sklearn_ldp.losses import get_loss
from sklearn_ldp.optim import (
    accelerated_projected_gradient,
    exponential_vertex,
    frank_wolfe_gap,
    gradient_mapping,
    linear_minimization_oracle,
    project_l1_ball,
    project_l2_ball,
    prox_l1_ball,
    simplex_l1_gradient_step,
)
from sklearn_ldp.utils import audit_samples

# ------------------------------------------------------------ numerics


def test_linear_minimization_oracle_is_the_minimum_over_the_ball():
    rng = np.random.RandomState(0)
    for constraint, project in [("l1", project_l1_ball), ("l2", project_l2_ball)]:
        for _ in range(20):
            g = rng.standard_normal((5, 2))
            v = linear_minimization_oracle(g, constraint, 1.5)
            # no feasible point (random points projected on the ball) beats it
            points = [project(rng.standard_normal(10) * 3, 1.5) for _ in range(500)]
            best = min(float(p @ g.ravel()) for p in points)
            assert np.sum(v * g) <= best + 1e-12
            assert np.sum(v * g) == pytest.approx(
                -1.5 * (np.abs(g).max() if constraint == "l1" else np.linalg.norm(g))
            )


def test_frank_wolfe_gap_definition():
    rng = np.random.RandomState(1)
    W = project_l1_ball(rng.standard_normal(6), 2.0)
    g = rng.standard_normal(6)
    v = linear_minimization_oracle(g, "l1", 2.0)
    assert frank_wolfe_gap(W, g, "l1", 2.0) == pytest.approx(float(-g @ (v - W)))
    assert frank_wolfe_gap(W, g, "l1", 2.0) >= 0


@pytest.mark.parametrize("penalized_last", [True, False])
def test_prox_l1_ball_matches_numerical_minimisation(penalized_last):
    rng = np.random.RandomState(2)
    for _ in range(10):
        V = rng.standard_normal((4, 1)) * 2
        thresholds = np.full((4, 1), 0.3)
        if not penalized_last:
            thresholds[-1] = 0.0  # the intercept
        U = prox_l1_ball(V, thresholds, 1.5)

        def objective(u, V=V, thresholds=thresholds):
            return 0.5 * np.sum((u - V.ravel()) ** 2) + np.sum(
                thresholds.ravel() * np.abs(u)
            )

        # the prox is the minimizer over the ball: compare with SLSQP
        ball = {"type": "ineq", "fun": lambda u: 1.5 - np.abs(u).sum()}
        numeric = minimize(
            objective, np.zeros(4), constraints=[ball], method="SLSQP", tol=1e-12
        )
        assert np.abs(U).sum() <= 1.5 + 1e-12
        assert objective(U.ravel()) <= numeric.fun + 1e-7


def test_simplex_l1_gradient_step_is_exact():
    # Brute force over the simplex: the returned point minimises
    # <h, y - x> + M/2 ||y - x||_1^2 against SLSQP from many starts.
    rng = np.random.RandomState(3)
    for _ in range(10):
        m = 5
        x = rng.dirichlet(np.ones(m))
        h = rng.standard_normal(m)
        M = rng.uniform(0.2, 3.0)
        y = simplex_l1_gradient_step(x, h, M)

        def objective(v, x=x, h=h, M=M):
            return h @ (v - x) + 0.5 * M * np.abs(v - x).sum() ** 2

        assert y.min() >= 0 and y.sum() == pytest.approx(1.0)
        constraints = [{"type": "eq", "fun": lambda v: v.sum() - 1.0}]
        best = min(
            minimize(
                objective,
                rng.dirichlet(np.ones(m)),
                bounds=[(0, 1)] * m,
                constraints=constraints,
                method="SLSQP",
            ).fun
            for _ in range(5)
        )
        assert objective(y) <= best + 1e-7


def test_exponential_vertex_samples_the_exponential_mechanism():
    # 20000 draws; each frequency is within 5 binomial standard deviations
    # of the exponential-mechanism probability.
    rng = np.random.RandomState(4)
    g = np.array([0.3, -0.1, 0.0])
    radius, eps0, sensitivity = 2.0, 1.0, 0.5
    scores = -radius * np.concatenate([g, -g])
    probs = np.exp(log_softmax(eps0 * scores / (2 * sensitivity)))
    draws = 20_000
    counts = np.zeros(6)
    for _ in range(draws):
        v = exponential_vertex(g, radius, eps0, sensitivity, rng)
        j = int(np.flatnonzero(v)[0])
        counts[j + (3 if v[j] < 0 else 0)] += 1
    tolerance = 5 * np.sqrt(probs * (1 - probs) / draws)
    np.testing.assert_array_less(np.abs(counts / draws - probs), tolerance)


# ----------------------------------------------- convergence at huge epsilon


def unit_problem(n=400, seed=0):
    X, y = make_classification(
        n_samples=n, n_features=4, n_informative=3, n_redundant=0, random_state=seed
    )
    # largest row exactly on the public bound: clipping is the identity
    return X / np.linalg.norm(X, axis=1).max(), y


def logistic_objective(X, t, W, alpha=0.0):
    return float(
        np.mean(np.logaddexp(0.0, -t * (X @ W).ravel())) + alpha * np.abs(W).sum()
    )


def reference_optimum(X, t, constraint, radius):
    # non-private solution of the same constrained problem
    loss = get_loss("logistic")

    def gradient(w):
        return X.T @ loss.derivative(X @ w[:, None], t)[:, 0] / X.shape[0]

    project = project_l1_ball if constraint == "l1" else project_l2_ball
    w, _ = accelerated_projected_gradient(
        gradient,
        np.zeros(X.shape[1]),
        step=4.0,  # 1 / L with L = |l''| R^2 = 1/4
        projection=lambda v: project(v, radius),
        max_iter=20_000,
        tol=1e-13,
    )
    return logistic_objective(X, t, w[:, None]), w


# Tolerances are the methods' noiseless convergence guarantees (the noise at
# epsilon = 1e4 is negligible: std ~ 1e-5 per gradient entry), with L = 1/4,
# radius R = 2, T steps, m = 4 features:
#   Frank-Wolfe, 2/(t+2) steps:     2 L (2R)^2 / (T + 2)           (Jaggi 2013)
#   prox gradient, step 1/(2L):     ||w*||^2 / (2 step T) <= L R^2 / T
#   entropic MD, step 1/(2 L R^2):  2 L R^2 ln(2m + 1) / T         (relative smoothness)
#   linear coupling (AccMD):        4 M Theta / (T + 1)^2 with Theta <= ln(2m+1) or R^2/2
CASES = [
    ("fw_l1", "l1", 2000, 2 * 0.25 * 16 / 2002),
    ("fw_l2", "l1", 2000, 2 * 0.25 * 16 / 2002),
    ("fw_l2", "l2", 2000, 2 * 0.25 * 16 / 2002),
    ("pmd", "l2", 2000, 0.25 * 4 / 2000),
    ("pmd", "l1", 2000, 2 * 0.25 * 4 * np.log(9) / 2000),
    ("accmd", "l2", 300, 4 * 0.25 * 2 / 301**2),
    ("accmd", "l1", 300, 4 * 0.25 * 4 * np.log(9) / 301**2),
]


@pytest.mark.parametrize("method, constraint, n_iter, tolerance", CASES)
def test_huge_epsilon_converges_to_the_constrained_optimum(
    method, constraint, n_iter, tolerance
):
    X, y = unit_problem()
    t = np.where(y == 1, 1.0, -1.0)
    optimum, w_star = reference_optimum(X, t, constraint, 2.0)
    # the constraint is active: the unconstrained optimum is outside the ball
    assert np.abs(w_star).sum() == pytest.approx(2.0) or np.linalg.norm(
        w_star
    ) == pytest.approx(2.0)
    clf = DPConstrainedClassifier(
        epsilon=1e4,
        method=method,
        constraint=constraint,
        radius=2.0,
        n_iter=n_iter,
        fit_intercept=False,
        random_state=0,
    ).fit(X, y)
    W = clf.coef_.T
    norm = np.abs(W).sum() if constraint == "l1" else np.linalg.norm(W)
    assert norm <= 2.0 * (1 + 1e-9)
    gap = logistic_objective(X, t, W) - optimum
    assert -1e-9 <= gap <= tolerance


def test_huge_epsilon_l1_regularised_pmd_matches_prox_gradient_reference():
    X, y = unit_problem(seed=1)
    t = np.where(y == 1, 1.0, -1.0)
    alpha, radius = 0.05, 3.0
    penalized = np.ones(4, bool)
    loss = get_loss("logistic")
    W = np.zeros((4, 1))
    for _ in range(20_000):  # reference: exact prox gradient, step 1/L
        g = X.T @ loss.derivative(X @ W, t) / X.shape[0]
        W = W - gradient_mapping(W, g, 4.0, alpha, penalized, "l1", radius) * 4.0
    optimum = logistic_objective(X, t, W, alpha)
    for constraint in ["l1", "l2"]:
        clf = DPConstrainedClassifier(
            epsilon=1e4,
            method="pmd",
            constraint=constraint,
            radius=radius,
            alpha=alpha,
            n_iter=3000,
            fit_intercept=False,
            random_state=0,
        ).fit(X, y)
        # radius 3 is not active for this alpha (checked), so both balls share
        # the optimum; tolerance: the rates above with R = 3
        assert np.abs(W).sum() < radius
        gap = logistic_objective(X, t, clf.coef_.T, alpha) - optimum
        assert -1e-9 <= gap <= 2 * 0.25 * 9 * np.log(9) / 3000


def test_nonconvex_sigmoid_stationarity_bounds():
    # Noise-free limit of seed 004 Thm. 2 / 4 on the sigmoid loss (F in
    # [0, 1], F(0) = 1/2). Prox gradient with step 1/(2L) decreases
    # F by >= 3 step/4 ||G_k||^2, so mean_k ||G_k||^2 <= 4 (1/2) / (3 step T).
    # Frank-Wolfe with constant gamma: mean_k gap_k <= 1/(2 gamma T) +
    # L (2R)^2 gamma / 2.
    X, y = unit_problem(seed=2)
    t = np.where(y == 1, 1.0, -1.0)
    loss = get_loss("sigmoid")
    T = 400

    def trace(method, constraint):
        iterates = [np.zeros((4, 1))]

        def callback(W, _):
            iterates.append(W.copy())

        clf = DPConstrainedClassifier(
            epsilon=1e4,
            loss="sigmoid",
            method=method,
            constraint=constraint,
            radius=5.0,
            n_iter=T,
            fit_intercept=False,
        )
        _, run = clf._train(
            X, (y == 1).astype(int), 2, np.random.RandomState(0), callback
        )
        return iterates, run

    iterates, run = trace("pmd", "l2")
    step = run["learning_rate_"]
    mappings = [
        (a - b) / step for a, b in zip(iterates[:-1], iterates[1:], strict=True)
    ]
    mean_sq = np.mean([np.sum(G**2) for G in mappings])
    assert mean_sq <= 4 * 0.5 / (3 * step * T) * 1.01

    iterates, run = trace("fw_l2", "l1")
    gaps = [
        frank_wolfe_gap(W, X.T @ loss.derivative(X @ W, t) / X.shape[0], "l1", 5.0)
        for W in iterates[:-1]
    ]
    gamma, L = run["learning_rate_"], run["smoothness_"]
    assert np.mean(gaps) <= 1 / (2 * gamma * T) + L * 100 * gamma / 2


# ------------------------------------------------------------- privacy


def _dpa_epsilon(event, delta):
    accountant = dpa_rdp.RdpAccountant(orders=list(DEFAULT_RDP_ORDERS))
    accountant.compose(event)
    return accountant.get_epsilon(delta)


@pytest.mark.parametrize("method", ["fw_l2", "pmd", "accmd"])
@pytest.mark.parametrize("calibration", ["rdp", "paper"])
def test_gaussian_budget_rechecked_by_dp_accounting(method, calibration):
    X, y = unit_problem(n=300)
    clf = DPConstrainedClassifier(
        epsilon=0.5,
        delta=1e-3,
        method=method,
        constraint="l2",
        calibration=calibration,
        n_iter=50,
        random_state=0,
    ).fit(X, y)
    event = dpa.SelfComposedDpEvent(
        dpa.GaussianDpEvent(clf.noise_multiplier_), clf.n_iter_
    )
    epsilon = _dpa_epsilon(event, 1e-3)
    assert epsilon <= 0.5 * (1 + 1e-9)
    assert clf.epsilon_spent_ <= 0.5 * (1 + 1e-9)
    if calibration == "rdp":
        assert epsilon == pytest.approx(0.5, rel=1e-6)
    else:
        # seed 004 Alg. 1 step 3 with the typo fixed: z^2 = T / (2 rho)
        L = np.log(1e3)
        rho = (np.sqrt(L + 0.5) - np.sqrt(L)) ** 2
        assert clf.noise_multiplier_ == pytest.approx(np.sqrt(50 / (2 * rho)))
    assert clf.step_epsilon_ is None


def test_noise_scales_are_wired_to_the_sensitivities(monkeypatch):
    captured = {}

    def spy(*args, **kwargs):
        captured.update(kwargs, rows=args[0])
        return kwargs["W0"]

    monkeypatch.setattr(constrained_module, "dp_frank_wolfe", spy)
    rng = np.random.RandomState(0)
    X = rng.standard_normal((250, 9)) * 3
    y = rng.randint(0, 2, 250)
    for method in ["fw_l2", "fw_l1"]:
        clf = DPConstrainedClassifier(
            method=method,
            radius=3.0,
            data_norm=0.5,
            data_norm_type="linf",
            intercept_scaling=2.0,
            random_state=0,
        ).fit(X, y)
        rows = captured["rows"]
        np.testing.assert_array_equal(rows[:, -1], 2.0)
        assert np.abs(rows[:, :-1]).max() <= 0.5
        row_l2 = np.hypot(0.5 * 3.0, 2.0)  # sqrt(9) features at 0.5, intercept 2
        assert clf.gradient_bound_ == pytest.approx(row_l2)  # logistic |l'| <= 1
        if method == "fw_l2":
            assert clf.sensitivity_ == pytest.approx(2 * row_l2 / 250)
            assert captured["noise_std"] == pytest.approx(
                clf.noise_multiplier_ * clf.sensitivity_
            )
        else:
            # score of a vertex: radius * 2 * G_inf / n, G_inf = max(0.5, 2)
            assert clf.sensitivity_ == pytest.approx(2 * 3.0 * 2.0 / 250)
            assert captured["score_sensitivity"] == clf.sensitivity_
            assert captured["step_epsilon"] == clf.step_epsilon_


def _canary_audit(clf, n_runs, seed=0):
    # One DP-FW-L1 step from 0 with gamma = 1 releases the chosen vertex
    # exactly: the exponential mechanism over {+R, -R} on one feature. Two
    # neighbouring data sets: 5 rows x = 0 (zero gradient) and a canary
    # x = +50 or -50 (clipped to +-1) with label +1.
    rng = np.random.RandomState(seed)
    X_a = np.zeros((6, 1))
    X_a[0, 0] = 50.0
    X_b = -X_a
    labels = np.array([1, 1, 0, 1, 0, 0])

    def statistics(X):
        return np.array([clf._train(X, labels, 2, rng)[0][0, 0] for _ in range(n_runs)])

    return audit_samples(
        statistics(X_a), statistics(X_b), clf.epsilon, clf.delta, [0.0]
    )


def test_canary_fw_l1_passes_and_under_noised_variant_fails(monkeypatch):
    # The canary moves the logistic gradient by |l'(0)| (1 + 1) / 6 = 1/6,
    # half the sensitivity 2 G_inf / n = 1/3 the accountant charges, so the
    # true log-odds shift is step_epsilon / 2: the honest run passes. A
    # selection made 8x too sharp (true loss 4 step_epsilon ~ 4-5 against a
    # claim of 1) must be caught.
    clf = DPConstrainedClassifier(
        epsilon=1.0, method="fw_l1", n_iter=1, fit_intercept=False, radius=1.0
    )
    assert _canary_audit(clf, 6000).passed

    original = constrained_module.calibrate_exponential_selections

    def too_sharp(*args, **kwargs):
        noise = original(*args, **kwargs)
        return SelectionNoise(
            noise.step_epsilon * 8, noise.n_steps, noise.epsilon, noise.delta
        )

    monkeypatch.setattr(
        constrained_module, "calibrate_exponential_selections", too_sharp
    )
    broken = _canary_audit(clf, 6000)
    assert not broken.passed
    assert broken.epsilon_lower_bound > 1.0


# --------------------------------------------------------- high dimension


def test_l1_frank_wolfe_beats_dp_gd_in_high_dimension():
    # d = 10000 Rademacher features, label = sign(x1 + x2 + x3), n = 1000.
    # DP-GD pays the l2 bound sqrt(d) = 100 per row: at epsilon = 2 and
    # T = 20 its noise per gradient entry (z * 2 * 100 / 1000, z ~ 3) is
    # several times the signal (|grad_j| = 1/4 on the 3 useful features),
    # so it stays at chance (accuracy 0.5 +- 0.016 on 1000 test points).
    # DP-FW-L1 pays the l-inf bound 1: the exponential mechanism's log-odds
    # for a useful vertex, step_eps * n |grad_j| / (4 G_inf) ~ 15, beat the
    # ln(2d) ~ 10 of the 20000 vertices. Over two seeds the gap must exceed
    # 0.1 (chance level + 6 standard deviations is 0.55).
    rng = np.random.RandomState(0)
    n, d = 1000, 10_000
    X = rng.choice([-1.0, 1.0], size=(2 * n, d))
    y = (X[:, 0] + X[:, 1] + X[:, 2] > 0).astype(int)
    gd_scores, fw_scores = [], []
    for seed in range(2):
        gd = DPSVRGClassifier(
            epsilon=2.0,
            solver="gd",
            n_epochs=20,
            data_norm=np.sqrt(d),
            random_state=seed,
        ).fit(X[:n], y[:n])
        fw = DPConstrainedClassifier(
            epsilon=2.0,
            method="fw_l1",
            radius=6.0,
            data_norm=1.0,
            data_norm_type="linf",
            n_iter=20,
            random_state=seed,
        ).fit(X[:n], y[:n])
        gd_scores.append(gd.score(X[n:], y[n:]))
        fw_scores.append(fw.score(X[n:], y[n:]))
    assert np.mean(fw_scores) > np.mean(gd_scores) + 0.1
    assert max(gd_scores) < 0.56


# ---------------------------------------------------------- estimator API


def test_multiclass_and_paper_mode_fit_and_predict():
    X, y = make_classification(
        n_samples=600,
        n_features=5,
        n_informative=4,
        n_redundant=0,
        n_classes=3,
        random_state=0,
    )
    for method in ["fw_l1", "pmd", "accmd", "fw_l2"]:
        clf = DPConstrainedClassifier(
            epsilon=50.0,
            method=method,
            radius=5.0,
            data_norm=4.0,
            calibration="paper",
            random_state=0,
        ).fit(X, y)
        assert clf.coef_.shape == (3, 5)
        proba = clf.predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert clf.score(X, y) > 0.6
        assert clf.epsilon_spent_ <= 50.0
        W = np.vstack([clf.coef_.T, clf.intercept_[None, :]])
        assert np.abs(W).sum() <= 5.0 * (1 + 1e-9)


def test_optimality_measures_and_determinism():
    X, y = unit_problem()
    params = dict(
        epsilon=1.0, method="pmd", constraint="l1", radius=2.0, random_state=3
    )
    a = DPConstrainedClassifier(**params).fit(X, y)
    b = DPConstrainedClassifier(**params).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    measures = a.optimality_measures(X, y)
    assert measures["gradient_mapping_norm"] >= 0
    assert measures["frank_wolfe_gap"] >= -1e-12
    with pytest.raises(ValueError, match="unseen"):
        a.optimality_measures(X, np.where(y == 1, 5, 0))


@pytest.mark.parametrize(
    "params, n_classes, match",
    [
        (dict(method="fw_l1", constraint="l2"), 2, "constraint='l1'"),
        (dict(method="fw_l2", alpha=0.1), 2, "no regulariser"),
        (dict(method="accmd", loss="sigmoid"), 2, "convex"),
        (dict(loss="sigmoid"), 3, "binary"),
        (dict(method="fw_l1", learning_rate=1.5), 2, "convex combination"),
    ],
)
def test_bad_parameters(params, n_classes, match):
    X, y = make_classification(
        n_samples=60,
        n_features=4,
        n_informative=3,
        n_redundant=0,
        n_classes=n_classes,
        random_state=0,
    )
    with pytest.raises(ValueError, match=match):
        DPConstrainedClassifier(**params).fit(X, y)


def test_bad_data():
    X, y = unit_problem(n=50)
    X_bad = X.copy()
    X_bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DPConstrainedClassifier().fit(X_bad, y)
    with pytest.raises(ValueError, match="one class"):
        DPConstrainedClassifier().fit(X, np.zeros(50))
    with pytest.raises(ValueError):
        DPConstrainedClassifier(epsilon=0.0).fit(X, y)
    with pytest.raises(ValueError):
        DPConstrainedClassifier(delta=1.0).fit(X, y)


# ------------------------------------------------------- paper Frank-Wolfe


def test_paper_frank_wolfe_steps_are_the_printed_formulas():
    from scipy.special import gamma as gamma_function

    from sklearn_ldp.optim._frank_wolfe import gaussian_width, paper_frank_wolfe_step

    # Theorem 6 (DP-FW-L1): gamma = sqrt(2 / (T ||C||_2^2)), ||C||_2 = radius.
    for radius, T in [(1.0, 50), (6.0, 30), (10.0, 100)]:
        step = paper_frank_wolfe_step("exponential", radius=radius, n_steps=T)
        assert step == pytest.approx(np.sqrt(2.0 / (T * radius**2)), rel=1e-12)
    assert paper_frank_wolfe_step("exponential", radius=0.1, n_steps=10) == 1.0
    # Gaussian widths: E||g||_2 in closed form, E||g||_inf by Monte Carlo.
    p = 7
    exact = np.sqrt(2) * gamma_function((p + 1) / 2) / gamma_function(p / 2)
    assert gaussian_width("l2", 3.0, p) == pytest.approx(3.0 * exact, rel=1e-12)
    draws = np.abs(np.random.RandomState(0).standard_normal((200_000, p))).max(axis=1)
    se = draws.std() / np.sqrt(draws.size)
    assert abs(gaussian_width("l1", 1.0, p) - draws.mean()) < 5 * se
    # Theorem 4 (DP-FW-L2): ((R^2 + G_C^2) ln(1/delta))^(1/4) / (R sqrt(n eps)).
    R, n, eps, delta, d = 10.0, 5_000, 1.0, 1e-5, 101
    width = gaussian_width("l2", R, d)
    printed = ((R**2 + width**2) * np.log(1 / delta)) ** 0.25 / (R * np.sqrt(n * eps))
    step = paper_frank_wolfe_step(
        "gaussian",
        radius=R,
        n_steps=100,
        constraint="l2",
        dimension=d,
        n_samples=n,
        epsilon=eps,
        delta=delta,
    )
    assert step == pytest.approx(printed, rel=1e-12)


def test_paper_mode_uses_the_printed_step_and_returns_a_random_iterate(monkeypatch):
    X, y = make_classification(n_samples=400, n_features=5, random_state=0)
    X /= np.linalg.norm(X, axis=1).max()
    seen = {}
    original = constrained_module.dp_frank_wolfe

    def spy(*args, **kwargs):
        seen.update(step=kwargs["step"], output=kwargs["output"])
        return original(*args, **kwargs)

    monkeypatch.setattr(constrained_module, "dp_frank_wolfe", spy)
    common = dict(n_iter=40, radius=2.0, classes=[0, 1], random_state=0)
    clf = DPConstrainedClassifier(calibration="paper", **common).fit(X, y)
    assert seen["output"] == "random_with_start"
    assert seen["step"] == pytest.approx(np.sqrt(2.0 / (40 * 2.0**2)))
    assert clf.learning_rate_ == seen["step"]
    DPConstrainedClassifier(**common).fit(X, y)
    assert (seen["step"], seen["output"]) == ("harmonic", "last")
    DPConstrainedClassifier(
        calibration="paper", method="fw_l2", constraint="l2", **common
    ).fit(X, y)
    assert seen["output"] == "random_with_start" and 0 < seen["step"] <= 1


def test_random_with_start_is_uniform_on_the_first_T_iterates():
    # x_R, R uniform on {1..T}: x_1 (the start) included, x_{T+1} left out.
    from sklearn_ldp.optim import dp_frank_wolfe

    loss = get_loss("logistic")
    rng = np.random.RandomState(0)
    X = rng.standard_normal((50, 3)) / 3
    targets = loss.encode(rng.randint(0, 2, 50), 2)
    T, draws = 4, 4000
    path = []
    dp_frank_wolfe(
        X, targets, loss, W0=np.zeros((3, 1)), constraint="l2", radius=1.0,
        n_steps=T, step=0.5, oracle="gaussian", output="last",
        rng=np.random.RandomState(1), noise_std=0.0,
        callback=lambda W, _: path.append(W.copy()),
    )  # fmt: skip
    iterates = [np.zeros((3, 1)), *path]  # x_1 .. x_{T+1}
    counts = np.zeros(T + 1)
    for seed in range(draws):
        W = dp_frank_wolfe(
            X, targets, loss, W0=np.zeros((3, 1)), constraint="l2", radius=1.0,
            n_steps=T, step=0.5, oracle="gaussian", output="random_with_start",
            rng=np.random.RandomState(seed), noise_std=0.0,
        )  # fmt: skip
        counts[[np.allclose(W, it) for it in iterates].index(True)] += 1
    assert counts[T] == 0
    # Each of the T others has probability 1/T: binomial standard deviation.
    sd = np.sqrt(draws * (1 / T) * (1 - 1 / T))
    np.testing.assert_array_less(np.abs(counts[:T] - draws / T), 5 * sd)


# ------------------------------------------------------- classes, epsilon


@pytest.mark.parametrize("cls", [DPConstrainedClassifier, DPSVRGClassifier])
def test_public_classes(cls):
    from sklearn_ldp import PrivacyLeakWarning

    X, y = make_classification(n_samples=300, n_features=4, random_state=0)
    X /= np.linalg.norm(X, axis=1).max()
    with pytest.warns(PrivacyLeakWarning, match="classes=None"):
        cls(random_state=0).fit(X, y)
    labels = np.array(["a", "b"])[y]
    clf = cls(classes=["a", "b", "c"], random_state=0).fit(X, labels)
    np.testing.assert_array_equal(clf.classes_, ["a", "b", "c"])
    assert clf.coef_.shape == (3, 4)
    assert set(clf.predict(X)) <= {"a", "b", "c"}
    binary = cls(classes=[0, 1], random_state=0).fit(X, np.zeros(300, dtype=int))
    assert binary.coef_.shape == (1, 4)
    with pytest.raises(ValueError, match="outside classes"):
        cls(classes=["a", "c"], random_state=0).fit(X, labels)
    with pytest.raises(ValueError, match="at least two"):
        cls(classes=["a"], random_state=0).fit(X, labels)


@pytest.mark.parametrize("epsilon", [1e-9, 1e-3, 1e6, 1e9])
@pytest.mark.parametrize(
    "cls, params",
    [
        (DPConstrainedClassifier, {}),
        (DPConstrainedClassifier, {"method": "fw_l2", "constraint": "l2"}),
        (DPConstrainedClassifier, {"calibration": "paper"}),
        (DPSVRGClassifier, {}),
        (DPSVRGClassifier, {"solver": "gd", "calibration": "paper"}),
    ],
)
def test_every_epsilon_fits_or_names_the_range(cls, params, epsilon):
    X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    X /= np.linalg.norm(X, axis=1).max()
    clf = cls(epsilon=epsilon, classes=[0, 1], random_state=0, **params)
    try:
        clf.fit(X, y)
    except ValueError as error:
        assert f"epsilon = {epsilon!r}" in str(error) and "range" in str(error)
        assert epsilon < 1  # only a too-small epsilon may be refused
        return
    proba = clf.predict_proba(X)
    assert np.isfinite(clf.coef_).all() and np.isfinite(proba).all()
    assert proba.min() >= 0 and proba.max() <= 1
    # What the accountant certifies never exceeds the target.
    assert clf.epsilon_spent_ <= epsilon * (1 + 1e-9)
    assert clf.privacy_epsilon_ == min(epsilon, clf.epsilon_spent_)
