"""Exact l1-ball projection and FISTA for quadratics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sklearn_ldp.optim import fista_quadratic, largest_eigenvalue, project_l1_ball

vectors = arrays(
    np.float64,
    st.integers(1, 30),
    elements=st.floats(-100, 100, allow_nan=False, allow_infinity=False),
)


def _bisection_projection(v, radius):
    """Reference: soft-thresholding with theta found by bisection."""
    if np.abs(v).sum() <= radius:
        return v.copy()
    low, high = 0.0, np.abs(v).max()
    for _ in range(200):
        theta = 0.5 * (low + high)
        if np.maximum(np.abs(v) - theta, 0).sum() > radius:
            low = theta
        else:
            high = theta
    return np.sign(v) * np.maximum(np.abs(v) - 0.5 * (low + high), 0)


@settings(max_examples=200, deadline=None)
@given(v=vectors, radius=st.floats(0.01, 50))
def test_projection_matches_bisection_and_is_feasible(v, radius):
    w = project_l1_ball(v, radius)
    assert np.abs(w).sum() <= radius * (1 + 1e-12) + 1e-12
    np.testing.assert_allclose(w, _bisection_projection(v, radius), atol=1e-9)
    # Idempotent, and the identity inside the ball.
    np.testing.assert_allclose(project_l1_ball(w, radius), w, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(v=vectors, radius=st.floats(0.01, 50), seed=st.integers(0, 1000))
def test_projection_is_nearest_point(v, radius, seed):
    # Variational inequality of a projection: <v - w, u - w> <= 0 for every
    # feasible u (checked on random feasible points and on the vertices).
    w = project_l1_ball(v, radius)
    rng = np.random.RandomState(seed)
    candidates = [project_l1_ball(rng.standard_normal(v.size) * 10, radius)]
    candidates += list(radius * np.eye(v.size)) + list(-radius * np.eye(v.size))
    for u in candidates:
        assert (v - w) @ (u - w) <= 1e-7 * max(1.0, np.abs(v).max() ** 2)


def test_projection_examples_and_errors():
    np.testing.assert_allclose(project_l1_ball([3.0, 1.0], 2.0), [2.0, 0.0])
    np.testing.assert_allclose(project_l1_ball([1.0, 1.0], 1.0), [0.5, 0.5])
    with pytest.raises(ValueError, match="radius"):
        project_l1_ball([1.0], 0.0)
    with pytest.raises(ValueError, match="NaN"):
        project_l1_ball([np.nan], 1.0)
    with pytest.raises(ValueError, match="1-dimensional"):
        project_l1_ball(np.ones((2, 2)), 1.0)


def test_fista_matches_linear_solve_when_the_ball_is_inactive():
    rng = np.random.RandomState(0)
    A = rng.standard_normal((30, 10))
    H = A.T @ A / 30
    solution = rng.standard_normal(10) * 0.1
    x, _, converged = fista_quadratic(
        lambda v: H @ v,
        H @ solution,
        lambda v: project_l1_ball(v, 100.0),
        np.zeros(10),
        tol=1e-12,
        max_iter=5000,
    )
    assert converged
    np.testing.assert_allclose(x, solution, atol=1e-8)


def test_fista_on_the_ball_satisfies_optimality():
    rng = np.random.RandomState(1)
    A = rng.standard_normal((40, 15))
    H, b = A.T @ A / 40, A.T @ rng.standard_normal(40)
    radius = 0.5
    x, _, converged = fista_quadratic(
        lambda v: H @ v,
        b,
        lambda v: project_l1_ball(v, radius),
        np.zeros(15),
        tol=1e-12,
        max_iter=20000,
    )
    assert converged
    # x is a fixed point of the projected gradient step.
    step = 1.0 / np.linalg.eigvalsh(H)[-1]
    np.testing.assert_allclose(
        project_l1_ball(x - step * (H @ x - b), radius), x, atol=1e-8
    )


def test_fista_backtracks_from_an_underestimated_lipschitz_constant():
    H = np.diag([100.0, 1.0])
    b = np.array([50.0, 0.5])
    x, _, converged = fista_quadratic(
        lambda v: H @ v,
        b,
        lambda v: project_l1_ball(v, 10.0),
        np.zeros(2),
        lipschitz=0.01,
        tol=1e-12,
        max_iter=5000,
    )
    assert converged
    np.testing.assert_allclose(x, [0.5, 0.5], atol=1e-8)


def test_largest_eigenvalue():
    rng = np.random.RandomState(2)
    A = rng.standard_normal((50, 20))
    H = A.T @ A
    value = largest_eigenvalue(lambda v: H @ v, 20, tol=1e-10)
    assert value == pytest.approx(np.linalg.eigvalsh(H)[-1], rel=1e-8)
    assert largest_eigenvalue(lambda v: 0 * v, 5) == 0.0
