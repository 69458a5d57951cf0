"""Exact l1-ball projection and FISTA for quadratics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sklearn_ldp.optim import (
    fista_quadratic,
    l1_constrained_least_squares,
    l1_constrained_least_squares_batch,
    largest_eigenvalue,
    project_l1_ball,
    project_l1_balls,
)

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


def test_l1_constrained_least_squares_with_a_projection():
    # min_w 1/2 (C w)^T Q (C w) - b^T C w over the l1 ball equals FISTA on the
    # explicit d x d quadratic C^T Q C with linear term C^T b.
    from sklearn_ldp.optim import l1_constrained_least_squares

    rng = np.random.RandomState(0)
    C = rng.standard_normal((4, 9))
    A = rng.standard_normal((4, 4))
    Q, b = A @ A.T, rng.standard_normal(4)
    w, _, converged = l1_constrained_least_squares(
        b, 0.7, np.zeros(9), quadratic=Q, components=C, max_iter=20_000, tol=1e-12
    )
    H = C.T @ Q @ C
    expected, _, _ = fista_quadratic(
        lambda x: H @ x,
        C.T @ b,
        lambda x: project_l1_ball(x, 0.7),
        np.zeros(9),
        max_iter=20_000,
        tol=1e-12,
    )
    assert converged
    np.testing.assert_allclose(w, expected, atol=1e-8)
    assert np.abs(w).sum() <= 0.7 * (1 + 1e-9)
    # Without Q: 1/2 ||C w - b||^2; without C either: the projection of b.
    plain, _, _ = l1_constrained_least_squares(b, 0.7, np.zeros(4))
    np.testing.assert_allclose(plain, project_l1_ball(b, 0.7), atol=1e-8)
    fit, _, _ = l1_constrained_least_squares(
        b, 0.7, np.zeros(9), components=C, max_iter=20_000, tol=1e-12
    )
    residual = C @ fit - b
    gradient = C.T @ residual
    # Optimality on the l1 sphere: |grad| is the same on the support and no
    # larger off it (-grad is in the normal cone at fit).
    support = np.abs(fit) > 1e-8
    assert np.abs(fit).sum() == pytest.approx(0.7)
    assert np.ptp(np.abs(gradient[support])) < 1e-6
    assert np.abs(gradient).max() <= np.abs(gradient[support]).min() + 1e-6


@settings(max_examples=60, deadline=None)
@given(
    V=arrays(
        np.float64,
        st.tuples(st.integers(1, 8), st.integers(1, 30)),
        elements=st.floats(-100, 100, allow_nan=False, allow_infinity=False),
    ),
    seed=st.integers(0, 1000),
)
def test_row_projections_equal_the_single_projection(V, seed):
    radii = np.random.default_rng(seed).uniform(0.01, 50, size=V.shape[0])
    W = project_l1_balls(V, radii)
    for row, radius, w in zip(V, radii, W, strict=True):
        np.testing.assert_allclose(w, project_l1_ball(row, radius), atol=1e-12)


@pytest.mark.parametrize("d", [1, 5, 20])
def test_batched_least_squares_equal_the_single_solves(d):
    # Random PSD problems, some with the ball active, some not, one with a
    # zero Hessian (unit steps): every problem follows its own iterates.
    rng = np.random.default_rng(d)
    problems = []
    for k in range(12):
        A = rng.standard_normal((d, d)) * rng.uniform(0.1, 3.0)
        Q = A @ A.T / d if k else np.zeros((d, d))
        b = rng.standard_normal(d) * rng.uniform(0.1, 5.0)
        problems.append((Q, b, rng.uniform(0.05, 5.0)))
    W, n_iter, converged = l1_constrained_least_squares_batch(
        np.stack([q for q, _, _ in problems]),
        np.stack([b for _, b, _ in problems]),
        np.array([r for _, _, r in problems]),
        max_iter=500,
        tol=1e-8,
    )
    for (Q, b, r), w, iterations, done in zip(problems, W, n_iter, converged, strict=True):
        single, single_iter, single_done = l1_constrained_least_squares(
            b, r, np.zeros(d), quadratic=Q, max_iter=500, tol=1e-8
        )
        np.testing.assert_allclose(w, single, rtol=1e-9, atol=1e-11)
        assert abs(int(iterations) - single_iter) <= 1
        assert bool(done) == single_done
        assert np.abs(w).sum() <= r * (1 + 1e-12)
