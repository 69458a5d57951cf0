"""The (iterated) Bernstein operator, its tensor-product evaluation and gradient."""

import numpy as np
import pytest
from scipy.interpolate import BPoly
from scipy.stats import binom

from sklearn_ldp.aggregation import (
    apply_along_axes,
    bernstein_basis,
    bernstein_basis_derivative,
    bernstein_coefficients,
    bernstein_operator_matrix,
    evaluate_bernstein,
    iterated_bernstein_matrix,
    lebesgue_constant,
)

T_FINE = np.linspace(0.0, 1.0, 1001)


@pytest.mark.parametrize("degree", [1, 2, 7, 32, 64])
def test_basis_matches_binomial_pmf_and_partitions_unity(degree):
    basis = bernstein_basis(T_FINE, degree)
    reference = binom.pmf(np.arange(degree + 1)[None, :], degree, T_FINE[:, None])
    assert basis.shape == (T_FINE.size, degree + 1)
    assert np.all(basis >= 0)
    # Log-space evaluation: a few ulps relative to the largest entry.
    np.testing.assert_allclose(basis, reference, rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(basis.sum(axis=1), 1.0, atol=1e-13)
    # End points are exact.
    assert basis[0, 0] == 1.0 and basis[-1, -1] == 1.0


@pytest.mark.parametrize("degree", [1, 3, 64])
def test_basis_derivative_matches_bpoly(degree):
    rng = np.random.default_rng(0)
    coef = rng.standard_normal(degree + 1)
    poly = BPoly(coef[:, None], [0.0, 1.0])
    derivative = bernstein_basis_derivative(T_FINE, degree) @ coef
    scale = np.abs(poly.derivative()(T_FINE)).max()
    np.testing.assert_allclose(
        derivative, poly.derivative()(T_FINE), atol=1e-11 * scale
    )


@pytest.mark.parametrize("degree", [1, 7, 64])
def test_order_one_matches_scipy_bpoly(degree):
    rng = np.random.default_rng(1)
    values = rng.standard_normal(degree + 1)
    coef = bernstein_coefficients(values, order=1)
    ours = evaluate_bernstein(coef, T_FINE[:, None])
    np.testing.assert_allclose(
        ours, BPoly(values[:, None], [0.0, 1.0])(T_FINE), atol=1e-12
    )


def test_iterated_matrix_is_the_iterated_operator_on_the_grid():
    # M A_h = I - (I - M)^h: B^(h) f on the grid is M A_h f.
    for degree in (3, 10):
        M = bernstein_operator_matrix(degree)
        identity = np.eye(degree + 1)
        for order in (1, 2, 3, 4):
            A = iterated_bernstein_matrix(degree, order)
            expected = identity - np.linalg.matrix_power(identity - M, order)
            np.testing.assert_allclose(M @ A, expected, atol=1e-12)


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_reproduces_affine_and_multilinear_functions_exactly(order):
    degree = 6
    grid = np.arange(degree + 1) / degree
    t0, t1, t2 = np.meshgrid(grid, grid, grid, indexing="ij")
    f = lambda a, b, c: 0.3 - 1.2 * a + 0.7 * b + 2.0 * c + 0.5 * a * b * c  # noqa: E731
    coef = bernstein_coefficients(f(t0, t1, t2), order=order)
    points = np.random.default_rng(2).random((50, 3))
    np.testing.assert_allclose(
        evaluate_bernstein(coef, points), f(*points.T), atol=1e-12 * 5
    )


@pytest.mark.parametrize("order", [1, 2, 3])
def test_quadratic_error_is_exactly_t_one_minus_t_over_k_to_the_h(order):
    # (I - B_k) t^2 = (t^2 - t) / k and (I - B_k) is 0 on linear functions,
    # so (I - B_k)^h t^2 = (t^2 - t) / k^h: the constant behind degree='auto'.
    degree = 9
    coef = bernstein_coefficients((np.arange(degree + 1) / degree) ** 2, order=order)
    approx = evaluate_bernstein(coef, T_FINE[:, None])
    np.testing.assert_allclose(
        approx, T_FINE**2 - (T_FINE**2 - T_FINE) / degree**order, atol=1e-12
    )


@pytest.mark.parametrize("order", [1, 2, 3])
def test_error_on_smooth_function_falls_like_k_to_the_minus_h(order):
    def f(t):
        return np.sin(3.0 * t) + np.exp(t)

    degrees = [32, 64, 128]
    errors = []
    for degree in degrees:
        coef = bernstein_coefficients(f(np.arange(degree + 1) / degree), order=order)
        errors.append(
            np.abs(evaluate_bernstein(coef, T_FINE[:, None]) - f(T_FINE)).max()
        )
    slopes = np.diff(np.log(errors)) / np.diff(np.log(degrees))
    # Micchelli: error = c_h k^-h (1 + O(1/k)); at k = 64..128 the O(1/k)
    # correction moves the local slope by less than 0.2 (it is 0.1 for h = 3).
    assert abs(slopes[-1] + order) < 0.2, slopes
    assert np.all(np.diff(slopes) <= 0.05)  # approaching -h from above


def test_multivariate_error_rate_in_two_dimensions():
    def f(a, b):
        return np.exp(a) * np.cos(2.0 * b)

    points = np.random.default_rng(3).random((400, 2))
    errors = []
    for degree in (16, 32):
        grid = np.arange(degree + 1) / degree
        values = f(*np.meshgrid(grid, grid, indexing="ij"))
        coef = bernstein_coefficients(values, order=2)
        errors.append(np.abs(evaluate_bernstein(coef, points) - f(*points.T)).max())
    # Doubling k divides the order-2 error by about 4 (between 3 and 5).
    assert 3.0 < errors[0] / errors[1] < 5.0


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(4)
    coef = rng.standard_normal((5, 5, 5))
    points = rng.uniform(0.05, 0.95, size=(7, 3))
    values, grads = evaluate_bernstein(coef, points, gradient=True)
    np.testing.assert_allclose(values, evaluate_bernstein(coef, points))
    step = 1e-6
    for j in range(3):
        e = np.zeros(3)
        e[j] = step
        fd = (
            evaluate_bernstein(coef, points + e) - evaluate_bernstein(coef, points - e)
        ) / (2 * step)
        np.testing.assert_allclose(grads[:, j], fd, atol=1e-7)


def test_stable_at_degree_64_in_several_dimensions():
    # A constant stays constant and values stay a convex combination.
    coef = np.full((65, 65), 0.25)
    points = np.random.default_rng(5).random((100, 2))
    values, grads = evaluate_bernstein(coef, points, gradient=True)
    np.testing.assert_allclose(values, 0.25, atol=1e-13)
    np.testing.assert_allclose(grads, 0.0, atol=1e-10)
    A = iterated_bernstein_matrix(64, 3)
    assert np.all(np.isfinite(A))
    np.testing.assert_allclose(A.sum(axis=1), 1.0, atol=1e-10)


def test_grid_values_of_polynomial_by_operator_matrix():
    rng = np.random.default_rng(6)
    coef = rng.standard_normal((4, 4))
    on_grid = apply_along_axes(bernstein_operator_matrix(3), coef)
    grid = np.arange(4) / 3
    points = np.stack(np.meshgrid(grid, grid, indexing="ij"), axis=-1).reshape(-1, 2)
    np.testing.assert_allclose(on_grid.reshape(-1), evaluate_bernstein(coef, points))


def test_lebesgue_constant_below_seed_bound():
    for order in (1, 2, 3):
        for degree in (2, 10, 40):
            constant = lebesgue_constant(degree, order)
            assert 1.0 - 1e-12 <= constant <= 2**order - 1 + 1e-12
    assert lebesgue_constant(10, 1) == pytest.approx(1.0)


def test_bad_input():
    with pytest.raises(ValueError, match="degree"):
        bernstein_basis([0.5], 0)
    with pytest.raises(TypeError, match="degree"):
        bernstein_basis([0.5], 2.5)
    with pytest.raises(ValueError, match="order"):
        iterated_bernstein_matrix(3, 0)
    with pytest.raises(ValueError, match="tensor"):
        bernstein_coefficients(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="columns"):
        evaluate_bernstein(np.zeros((3, 3)), np.zeros((2, 3)))
