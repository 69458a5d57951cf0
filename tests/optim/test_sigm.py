"""SIGM (seed 001 Algorithm 9), accelerated projected gradient and the l2 projection."""

import numpy as np
import pytest
from scipy.optimize import minimize

from sklearn_ldp.optim import (
    accelerated_projected_gradient,
    project_l2_ball,
    sigm,
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
