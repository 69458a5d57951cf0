"""Approximate minima perturbation: DPSVRGClassifier(solver='objective').

The accounting is checked against independent computations (the exact
density of the minimizer in one dimension, ``dp_accounting``'s privacy loss
distributions for the Gaussian parts), the gradient-norm certificate
against a 50-digit recomputation, and the whole release by a canary audit.
"""

import dp_accounting
import mpmath
import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import norm

import sklearn_ldp._dp_svrg as dp_svrg_module
from sklearn_ldp import DPSVRGClassifier
from sklearn_ldp._central import Design
from sklearn_ldp.accounting import (
    ObjectivePerturbation,
    analytic_gaussian_delta,
    calibrate_objective_perturbation,
    objective_noise_delta,
    objective_noise_sigma,
)
from sklearn_ldp.losses import get_loss
from sklearn_ldp.optim import (
    ToleranceNotReachedError,
    certified_gradient_norm,
    minimize_to_tolerance,
)
from sklearn_ldp.utils import check_noise_random_state

LOGISTIC = get_loss("logistic")


def pld_delta(sigma, sensitivity, epsilon):
    """dp_accounting's (pessimistic) delta of one Gaussian release whose
    l2-sensitivity is ``sensitivity`` (the pair ``N(0, s^2)``, ``N(Delta,
    s^2)``, which its add/remove relation models)."""
    pld = dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism(
        sigma,
        sensitivity=sensitivity,
        value_discretization_interval=1e-5,
    )
    return pld.get_delta_for_epsilon(epsilon)


# ----------------------------------------------------------------- accounting


@pytest.mark.parametrize(
    "n, p, epsilon, delta",
    [
        (10_000, 31, 0.1, 1e-7),
        (10_000, 65, 1.0, 1e-7),
        (10**6, 65, 8.0, 1e-7),
        (500, 3, 2.0, 1e-5),
    ],
)
def test_calibration_spends_exactly_the_budget(n, p, epsilon, delta):
    R = np.sqrt(2.0)
    cal = calibrate_objective_perturbation(
        n,
        p,
        epsilon,
        delta,
        gradient_bound=R,
        smoothness=0.25 * R**2,
        data_norm=1.0,
    )
    parts = cal.epsilon_noise + cal.epsilon_jacobian + cal.epsilon_output
    assert parts == pytest.approx(epsilon, rel=1e-12)
    assert cal.epsilon <= epsilon * (1 + 1e-12)
    assert cal.delta_noise + cal.delta_output == pytest.approx(delta, rel=1e-12)
    # Jacobian term: the ridge it needs.
    assert cal.epsilon_jacobian == pytest.approx(np.log1p(0.25 * R**2 / cal.ridge))
    # Noise term, independently: dp_accounting's Gaussian deltas at the three
    # vertices (2G, G, G) at epsilon_1 add up to delta_1.
    independent = pld_delta(cal.sigma, 2 * R, cal.epsilon_noise) + 2 * pld_delta(
        cal.sigma, R, cal.epsilon_noise
    )
    assert independent == pytest.approx(cal.delta_noise, rel=2e-2)
    # Output term: a Gaussian of sensitivity 2 n gamma / Lambda at
    # (epsilon_3, delta_2).
    sensitivity = 2 * n * cal.tolerance / cal.ridge
    assert pld_delta(cal.output_sigma, sensitivity, cal.epsilon_output) == (
        pytest.approx(cal.delta_output, rel=2e-2)
    )


def test_noise_sigma_is_the_smallest_meeting_delta():
    sigma = objective_noise_sigma(1.0, 1e-6, 1.5)
    assert objective_noise_delta(sigma, 1.0, 1.5) <= 1e-6
    assert objective_noise_delta(sigma * (1 - 1e-6), 1.0, 1.5) > 1e-6
    # the union bound costs little: between the 2G mechanism and 3 times it
    assert analytic_gaussian_delta(sigma, 1.0, 3.0) <= 1e-6
    assert analytic_gaussian_delta(sigma, 1.0, 3.0) > 1e-6 / 3


def _minimizer_density(w, rows, labels, ridge, sigma):
    """Exact density of ``argmin sum_i f(y_i x_i w) + ridge/2 w^2 + b w``,
    ``b ~ N(0, sigma^2)``, in one dimension: ``phi(b_D(w)) |b_D'(w)|``."""
    margins = labels[:, None] * rows[:, None] * w[None, :]
    derivative = (-labels[:, None] * rows[:, None] * expit(-margins)).sum(axis=0)
    curvature = (rows[:, None] ** 2 * expit(margins) * expit(-margins)).sum(axis=0)
    b = -(derivative + ridge * w)
    return norm.pdf(b, scale=sigma) * (curvature + ridge)


@pytest.mark.parametrize(
    "replaced, replacement",
    [((1.0, 1.0), (-1.0, 1.0)), ((1.0, 1.0), (0.0, 1.0)), ((1.0, -1.0), (0.0, 1.0))],
)
@pytest.mark.parametrize("epsilon_noise", [0.3, 1.0, 2.0])
def test_exact_minimizer_privacy_profile_is_within_the_bound(
    replaced, replacement, epsilon_noise
):
    # One dimension, rows of norm <= 1 (G = 1, beta = 1/4) and a small ridge
    # so the Jacobian term matters (epsilon_2 = log(1 + 1/(4 Lambda))). The
    # exact hockey-stick divergence of the minimizer's two densities, by
    # quadrature, must be at most delta_1 at epsilon_1 + epsilon_2, both ways.
    ridge, sigma = 0.4, 1.2
    shared_rows, shared_labels = np.array([0.5, -0.8]), np.array([1.0, 1.0])
    rows_a = np.append(shared_rows, replaced[0])
    labels_a = np.append(shared_labels, replaced[1])
    rows_b = np.append(shared_rows, replacement[0])
    labels_b = np.append(shared_labels, replacement[1])
    w = np.linspace(-80, 80, 800_001)
    p_a = _minimizer_density(w, rows_a, labels_a, ridge, sigma)
    p_b = _minimizer_density(w, rows_b, labels_b, ridge, sigma)
    assert np.trapezoid(p_a, w) == pytest.approx(1.0, abs=1e-6)
    epsilon = epsilon_noise + np.log1p(0.25 / ridge)
    bound = objective_noise_delta(sigma, epsilon_noise, 1.0)
    for p, q in ((p_a, p_b), (p_b, p_a)):
        exact = np.trapezoid(np.maximum(p - np.exp(epsilon) * q, 0.0), w)
        assert exact <= bound + 1e-6


def test_explicit_alpha_sets_the_ridge_with_a_floor():
    R = np.sqrt(2.0)
    bounds = dict(gradient_bound=R, smoothness=0.5, data_norm=1.0)
    cal = calibrate_objective_perturbation(10_000, 5, 1.0, 1e-6, alpha=1e-2, **bounds)
    assert cal.ridge == pytest.approx(100.0)
    tiny = calibrate_objective_perturbation(10_000, 5, 1.0, 1e-6, alpha=0.0, **bounds)
    # at most half of epsilon - epsilon_3 on the Jacobian
    assert tiny.epsilon_jacobian == pytest.approx(tiny.epsilon_noise)
    assert tiny.ridge == pytest.approx(0.5 / np.expm1(tiny.epsilon_jacobian))


# -------------------------------------------------- the gradient-norm check


def _problem(n=400, d=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    X /= 1.001 * np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]  # in the ball
    y = np.where(X @ np.arange(1.0, d + 1) + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y, 0.01 * rng.normal(size=d)


def test_certified_gradient_norm_bounds_a_50_digit_recomputation():
    X, y, linear = _problem(n=60)
    w = minimize_to_tolerance(
        X, y, LOGISTIC, ridge=1e-3, linear=linear, tolerance=1e-13
    )
    norm_ext, allowance = certified_gradient_norm(X, y, LOGISTIC, w, 1e-3, linear)
    with mpmath.workdps(50):
        n, d = X.shape
        grad = [mpmath.mpf(0)] * d
        for i in range(n):
            margin = mpmath.fsum(
                mpmath.mpf(X[i, j]) * mpmath.mpf(w[j]) for j in range(d)
            )
            slope = -mpmath.mpf(y[i]) / (1 + mpmath.exp(mpmath.mpf(y[i]) * margin))
            for j in range(d):
                grad[j] += slope * mpmath.mpf(X[i, j])
        grad = [
            g / n + mpmath.mpf(1e-3) * mpmath.mpf(w[j]) + mpmath.mpf(linear[j])
            for j, g in enumerate(grad)
        ]
        exact = float(mpmath.sqrt(mpmath.fsum(g * g for g in grad)))
    assert abs(exact - norm_ext) <= allowance
    assert exact <= 1e-13


def test_early_stop_is_refined_by_newton():
    X, y, linear = _problem()
    steps = []
    w = minimize_to_tolerance(
        X,
        y,
        LOGISTIC,
        ridge=1e-4,
        linear=linear,
        tolerance=1e-12,
        max_iter=1,
        callback=lambda w, k: steps.append(k),
    )
    assert len(steps) >= 2  # L-BFGS-B stopped after one iteration
    norm_ext, allowance = certified_gradient_norm(X, y, LOGISTIC, w, 1e-4, linear)
    assert norm_ext + allowance <= 1e-12


def test_uncertified_point_is_refused():
    X, y, linear = _problem()
    with pytest.raises(ToleranceNotReachedError, match="no model is released"):
        minimize_to_tolerance(
            X,
            y,
            LOGISTIC,
            ridge=1e-4,
            linear=linear,
            tolerance=1e-12,
            max_iter=1,
            max_newton_steps=0,
        )
    # A tolerance below the rounding of the gradient cannot be certified.
    with pytest.raises(ToleranceNotReachedError):
        minimize_to_tolerance(
            X, y, LOGISTIC, ridge=1e-4, linear=linear, tolerance=1e-30
        )


def test_estimator_refuses_when_the_solver_fails(monkeypatch):
    def fail(*args, **kwargs):
        raise ToleranceNotReachedError("no model is released")

    monkeypatch.setattr(dp_svrg_module, "minimize_to_tolerance", fail)
    X, y, _ = _problem()
    clf = DPSVRGClassifier(solver="objective", classes=[-1, 1], random_state=0)
    with pytest.raises(ToleranceNotReachedError):
        clf.fit(X, y)
    assert not hasattr(clf, "coef_")


# ------------------------------------------------------------- the estimator


def test_fit_exposes_the_public_calibration_only():
    X, y, _ = _problem(n=2000, d=4)
    clf = DPSVRGClassifier(
        epsilon=1.0, delta=1e-6, solver="objective", classes=[-1, 1], random_state=0
    ).fit(X, y)
    cal = clf.objective_perturbation_
    assert isinstance(cal, ObjectivePerturbation)
    assert clf.epsilon_spent_ == pytest.approx(1.0, rel=1e-12)
    assert clf.privacy_epsilon_ <= 1.0 and clf.privacy_delta_ == 1e-6
    R = np.hypot(1.0, 1.0)
    assert cal == calibrate_objective_perturbation(
        2000, 5, 1.0, 1e-6, gradient_bound=R, smoothness=0.25 * R**2, data_norm=1.0
    )
    assert clf.alpha_ == pytest.approx(cal.ridge / 2000)
    # nothing data-dependent about the optimization is exposed
    assert clf.n_epochs_ == 1


def test_objective_noise_reaches_the_solver(monkeypatch):
    captured = {}
    original = dp_svrg_module.minimize_to_tolerance

    def spy(*args, **kwargs):
        captured.update(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(dp_svrg_module, "minimize_to_tolerance", spy)
    X, y, _ = _problem(n=1000, d=3)
    clf = DPSVRGClassifier(solver="objective", classes=[-1, 1], random_state=3)
    clf.fit(X, y)
    cal = clf.objective_perturbation_
    assert captured["ridge"] == pytest.approx(cal.ridge / 1000)
    assert captured["tolerance"] == cal.tolerance
    # the linear term is b / n with b ~ N(0, sigma^2 I): regenerate it
    rng = check_noise_random_state(3)
    np.testing.assert_allclose(
        captured["linear"], cal.sigma * rng.standard_normal(4) / 1000
    )


@pytest.mark.parametrize(
    "params, n_classes, message",
    [
        (dict(loss="sigmoid"), 2, "loss='logistic'"),
        (dict(), 3, "rank up to n_classes - 1"),
        (dict(coef_norm=5.0), 2, "coef_norm=None"),
        (dict(l1_ratio=0.5), 2, "l1_ratio must be 0"),
        (dict(loss="squared_hinge", coef_norm=2.0), 2, "loss='logistic'"),
    ],
)
def test_unsupported_configurations_are_refused(params, n_classes, message):
    rng = np.random.RandomState(0)
    X = rng.uniform(-0.5, 0.5, size=(60, 2))
    y = np.arange(60) % n_classes
    clf = DPSVRGClassifier(solver="objective", classes=list(range(n_classes)), **params)
    with pytest.raises(ValueError, match=message):
        clf.fit(X, y)


def test_canary_objective_passes_and_under_noised_variant_fails(
    monkeypatch, classifier_canary_audit
):
    # The canary's gradients differ by up to 2G = 2 (x = +1 against x = -1,
    # label +1), the vertex u - u' the accountant charges; near the minimizer
    # they differ by about half that, and the honest release is close to
    # tight here (its coefficient is Gaussian-like with mean shift / std
    # about 0.24 against 0.27 for an exact (1, 1e-5) Gaussian). Both noises
    # 30 times too small (mean shift / std about 3) must be caught; 8 times
    # (about 0.9) is not detectable with 4,000 draws.
    clf = DPSVRGClassifier(epsilon=1.0, solver="objective", fit_intercept=False)
    result = classifier_canary_audit(clf, 4_000)
    assert result.passed, result

    original = dp_svrg_module.calibrate_objective_perturbation

    def under_noised(*args, **kwargs):
        cal = original(*args, **kwargs)
        return ObjectivePerturbation(
            **{
                **cal.__dict__,
                "sigma": cal.sigma / 30,
                "output_sigma": cal.output_sigma / 30,
            }
        )

    monkeypatch.setattr(
        dp_svrg_module, "calibrate_objective_perturbation", under_noised
    )
    broken = classifier_canary_audit(clf, 4_000)
    assert not broken.passed
    assert broken.epsilon_lower_bound > 1.0


def _accuracies(n, epsilon, seeds):
    rng = np.random.RandomState(100)
    direction = rng.normal(size=5)
    direction /= np.linalg.norm(direction)
    scores = []
    for seed in seeds:
        draw = np.random.RandomState(seed)
        X = draw.normal(size=(n + 5000, 5)) / np.sqrt(5)
        y = (X @ direction + 0.1 * draw.normal(size=n + 5000) > 0).astype(int)
        clf = DPSVRGClassifier(
            epsilon=epsilon,
            delta=1e-6,
            solver="objective",
            data_norm=2.0,
            classes=[0, 1],
            random_state=seed,
        )
        clf.fit(X[:n], y[:n])
        scores.append(clf.score(X[n:], y[n:]))
    return np.array(scores)


def test_accuracy_increases_with_epsilon_and_n():
    seeds = range(8)
    low = _accuracies(1000, 0.1, seeds)
    mid = _accuracies(1000, 2.0, seeds)
    high = _accuracies(20_000, 2.0, seeds)

    def clearly_below(a, b):
        se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        return b.mean() - a.mean() > 3 * se

    assert clearly_below(low, mid), (low.mean(), mid.mean())
    assert clearly_below(mid, high), (mid.mean(), high.mean())
    assert high.mean() > 0.9


def _public_design(n, d):
    # Only the shape and the public bounds enter the rule: no rows needed.
    rows = np.broadcast_to(0.0, (n, d))
    return Design(rows, np.sqrt(2.0), 1.0, np.arange(d) < d - 1)


@pytest.mark.parametrize(
    "params, n, n_outputs, expected",
    [
        (dict(), 10**6, 1, True),
        (dict(epsilon=0.5), 10**6, 1, True),
        (dict(), 10**4, 1, False),
        (dict(), 10**5, 1, False),
        (dict(), 10**6, 3, False),
        (dict(coef_norm=5.0), 10**6, 1, False),
        (dict(l1_ratio=0.5), 10**6, 1, False),
        (dict(n_epochs=100), 10**6, 1, False),
        (dict(solver="gd"), 10**6, 1, False),
        (dict(solver="objective"), 10**4, 1, True),
    ],
)
def test_auto_runs_objective_where_the_gd_cap_binds(params, n, n_outputs, expected):
    clf = DPSVRGClassifier(**{"epsilon": 8.0, "delta": 1e-7, **params})
    assert clf._use_objective(_public_design(n, 31), n_outputs) is expected
