"""SIGM (seed 001 Algorithm 9), its one-pass driver, accelerated projected gradient,
the l2 projections and the oracle solvers on l2 balls."""

import numpy as np
import pytest
from scipy.optimize import minimize

from sklearn_ldp.optim import (
    accelerated_projected_gradient,
    minimize_on_ball,
    project_columns_l2,
    project_l2_ball,
    sigm,
    sigm_one_pass,
    sigm_parameters,
)


def unit_ball(w):
    return project_l2_ball(w, 1.0)


def test_project_l2_ball():
    np.testing.assert_allclose(project_l2_ball(np.array([3.0, 4.0]), 2.0), [1.2, 1.6])
    inside = np.array([0.1, -0.2])
    out = project_l2_ball(inside, 1.0)
    np.testing.assert_array_equal(out, inside)
    assert out is not inside


def test_sigm_parameters_with_p_1_are_dual_averaging():
    alpha, beta, big_b, big_a = sigm_parameters(
        5, smoothness=2.0, sigma=3.0, radius=1.5
    )
    np.testing.assert_allclose(alpha, 1.0)
    np.testing.assert_allclose(big_b, 1.0)
    np.testing.assert_allclose(big_a, np.arange(1, 7))
    b = 2.0**0.75
    np.testing.assert_allclose(beta, 2.0 + b * 3.0 / 1.5 * np.sqrt(np.arange(6) + 2.0))
    # p = 2: B_k <= A_k so the averaging weights stay in [0, 1].
    _, _, big_b, big_a = sigm_parameters(
        50, smoothness=1.0, sigma=1.0, radius=1.0, order=2
    )
    assert np.all(big_b <= big_a + 1e-12)
    with pytest.raises(ValueError, match="order"):
        sigm_parameters(3, smoothness=1.0, sigma=1.0, radius=1.0, order=0.5)


def test_sigm_p_1_is_projected_dual_averaging_with_averaging():
    # A reference implementation of the p = 1 simplification in the module
    # docstring, on a deterministic oracle: the two must agree exactly.
    A = np.array([[2.0, 0.3], [0.3, 0.5]])
    c = np.array([1.5, -2.0])

    def oracle(w, k):
        return A @ w - c + 0.1 * np.sin(k)  # deterministic "noise"

    n_steps, L, sigma, R = 30, 2.1, 0.4, 1.0
    got = sigm(
        oracle,
        2,
        n_steps=n_steps,
        smoothness=L,
        sigma=sigma,
        radius=R,
        projection=unit_ball,
    )
    _, beta, _, _ = sigm_parameters(n_steps, smoothness=L, sigma=sigma, radius=R)
    total = oracle(np.zeros(2), 0)
    y = unit_ball(-total / beta[0])
    for k in range(n_steps):
        z = unit_ball(-total / beta[k])
        g = oracle(z, k + 1)
        total = total + g
        y = (k + 1) / (k + 2) * y + unit_ball(z - g / beta[k]) / (k + 2)
    np.testing.assert_allclose(got, y, rtol=1e-12)


@pytest.mark.parametrize("order", [1, 2])
def test_sigm_converges_on_a_noisy_constrained_quadratic(order):
    # f(w) = ||w - c||^2 / 2 with c outside the unit ball: w* = c / ||c||.
    # Lemma 47: E f(y_T) - f* = O(L R^2 / T^p + sigma R / sqrt(T)); with
    # sigma = 0.3 * sqrt(2) and T = 4000 the second term is about 0.007, and
    # for this f the excess is at least ||y - w*||^2 / 2 only inside the ball,
    # so we check the excess value with a margin of 5x the bound's scale.
    rng = np.random.RandomState(0)
    c = np.array([1.5, 1.0])
    w_star = c / np.linalg.norm(c)
    noise = 0.3
    w = sigm(
        lambda w, k: w - c + noise * rng.standard_normal(2),
        2,
        n_steps=4000,
        smoothness=1.0,
        sigma=noise * np.sqrt(2),
        radius=1.0,
        projection=unit_ball,
        order=order,
    )

    def f(v):
        return 0.5 * np.sum((v - c) ** 2)

    assert np.linalg.norm(w) <= 1.0 + 1e-12
    assert f(w) - f(w_star) < 5 * noise * np.sqrt(2) / np.sqrt(4000)


def test_sigm_rejects_bad_parameters():
    with pytest.raises(ValueError, match="n_steps"):
        sigm(
            lambda w, k: w,
            1,
            n_steps=-1,
            smoothness=1,
            sigma=1,
            radius=1,
            projection=unit_ball,
        )
    with pytest.raises(ValueError, match="both be 0"):
        sigm(
            lambda w, k: w,
            1,
            n_steps=3,
            smoothness=0,
            sigma=0,
            radius=1,
            projection=unit_ball,
        )


def test_accelerated_projected_gradient_matches_scipy_on_constrained_least_squares():
    rng = np.random.RandomState(1)
    X = rng.standard_normal((200, 5))
    y = X @ np.array([2.0, -1.0, 0.5, 0.0, 1.0]) + 0.1 * rng.standard_normal(200)
    H, b = X.T @ X / 200, X.T @ y / 200
    L = np.linalg.eigvalsh(H).max()
    w, n_iter = accelerated_projected_gradient(
        lambda w: H @ w - b,
        np.zeros(5),
        step=1.0 / L,
        projection=unit_ball,
        max_iter=2000,
        tol=1e-12,
    )
    ref = minimize(
        lambda w: 0.5 * w @ H @ w - b @ w,
        np.zeros(5),
        jac=lambda w: H @ w - b,
        method="SLSQP",
        constraints=[
            {"type": "ineq", "fun": lambda w: 1 - w @ w, "jac": lambda w: -2 * w}
        ],
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    np.testing.assert_allclose(w, ref.x, atol=1e-5)
    assert n_iter < 2000  # converged by the tolerance
    with pytest.raises(ValueError, match="step"):
        accelerated_projected_gradient(
            lambda w: w, np.zeros(2), step=0.0, projection=unit_ball
        )


def test_project_columns_l2():
    W = np.array([[3.0, 0.3, 0.0], [4.0, 0.4, 0.0]])
    out = project_columns_l2(W, 1.0)
    np.testing.assert_allclose(out, [[0.6, 0.3, 0.0], [0.8, 0.4, 0.0]])
    for w in (np.array([3.0, 4.0]), np.array([0.1, -0.2])):
        np.testing.assert_allclose(project_columns_l2(w, 1.0), project_l2_ball(w, 1.0))


def test_sigm_one_pass_uses_each_user_once():
    seen = []

    def batch_gradient(w, users):
        seen.append(users)
        return w - 0.5

    w, n_steps = sigm_one_pass(
        batch_gradient,
        2,
        n_users=103,
        max_steps=10,
        smoothness=1.0,
        user_second_moment=1.0,
        radius=1.0,
        projection=unit_ball,
        rng=np.random.RandomState(0),
    )
    assert n_steps == 10 and len(seen) == 11
    np.testing.assert_array_equal(np.sort(np.concatenate(seen)), np.arange(103))
    # Fewer users than steps: one user per batch.
    _, n_steps = sigm_one_pass(
        lambda w, users: w,
        1,
        n_users=5,
        max_steps=100,
        smoothness=1.0,
        user_second_moment=1.0,
        radius=1.0,
        projection=unit_ball,
        rng=np.random.RandomState(0),
    )
    assert n_steps == 4


def test_sigm_one_pass_is_sigm_on_the_batches():
    rng_data = np.random.RandomState(3)
    targets = rng_data.standard_normal((400, 2))

    def batch_gradient(w, users):
        return w - targets[users].mean(axis=0)

    got, _ = sigm_one_pass(
        batch_gradient,
        2,
        n_users=400,
        max_steps=19,
        smoothness=1.0,
        user_second_moment=2.0,
        radius=1.0,
        projection=unit_ball,
        rng=np.random.RandomState(4),
    )
    batches = np.array_split(np.random.RandomState(4).permutation(400), 20)
    expected = sigm(
        lambda w, k: batch_gradient(w, batches[k]),
        2,
        n_steps=19,
        smoothness=1.0,
        sigma=np.sqrt(2.0 / 20),
        radius=1.0,
        projection=unit_ball,
    )
    np.testing.assert_array_equal(got, expected)


class _QuadraticOracle:
    """Exact gradient of sum_c ||W_c - C_c||^2 / 2 (plus per-user noise in batches)."""

    def __init__(self, center, n_users=1000, noise=0.0):
        self.center = center
        self.param_shape = center.shape
        self.n_users = n_users
        self.noise = noise

    def mean(self, W):
        return W - self.center

    def batch(self, W, indices, rng):
        scale = self.noise / np.sqrt(len(indices))
        return W - self.center + scale * rng.standard_normal(W.shape)


def test_minimize_on_ball_projects_each_column_and_penalizes():
    center = np.array([[3.0, 0.2], [4.0, -0.1]])
    oracle = _QuadraticOracle(center)
    W, n_iter = minimize_on_ball(
        oracle,
        solver="gd",
        smoothness=1.0,
        radius=1.0,
        max_iter=500,
        rng=np.random.RandomState(0),
    )
    np.testing.assert_allclose(W, [[0.6, 0.2], [0.8, -0.1]], atol=1e-6)
    assert n_iter < 500
    # With a penalty alpha on the first row only: minimizer C / (1 + alpha) there.
    penalty = np.array([[1.0], [0.0]])
    W, _ = minimize_on_ball(
        oracle,
        solver="gd",
        smoothness=2.0,
        radius=10.0,
        max_iter=500,
        rng=np.random.RandomState(0),
        l2_penalty=penalty,
    )
    # (The solver stops at a relative change of 1e-6.)
    np.testing.assert_allclose(W, [[1.5, 0.1], [4.0, -0.1]], atol=1e-4)


def test_minimize_on_ball_sigm_and_errors():
    center = np.array([0.3, -0.2])
    oracle = _QuadraticOracle(center, n_users=20_000, noise=0.5)
    W, n_iter = minimize_on_ball(
        oracle,
        solver="sigm",
        smoothness=1.0,
        radius=1.0,
        max_iter=1000,
        rng=np.random.RandomState(0),
        user_second_moment=0.5,
    )
    assert W.shape == (2,) and n_iter == 1000
    # Lemma 16: excess O(sigma R / sqrt(T)); here f(W) - f* = ||W - c||^2 / 2,
    # sigma = 0.5 sqrt(2 / 20): 5 times the scale of the bound.
    assert 0.5 * np.sum((W - center) ** 2) < 5 * 0.5 * np.sqrt(0.1) / np.sqrt(1000)
    with pytest.raises(ValueError, match="user_second_moment"):
        minimize_on_ball(
            oracle, solver="sigm", smoothness=1.0, radius=1.0, max_iter=5, rng=None
        )
    with pytest.raises(ValueError, match="solver"):
        minimize_on_ball(
            oracle, solver="newton", smoothness=1.0, radius=1.0, max_iter=5, rng=None
        )
