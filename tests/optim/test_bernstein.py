"""minimize_bernstein: the server's minimizer of a tensor-product Bernstein polynomial."""

import numpy as np
import pytest

from sklearn_ldp.aggregation import evaluate_bernstein
from sklearn_ldp.optim import minimize_bernstein


def quadratic_coefficients(center, degree):
    """Exact Bernstein coefficients of sum_j (t_j - center_j)^2 on [0, 1]^q.

    With v / k the coefficients of t and v (v - 1) / (k (k - 1)) those of t^2,
    (t - a)^2 has coefficients v (v - 1) / (k (k - 1)) - 2 a v / k + a^2.
    """
    v = np.arange(degree + 1)
    axes = [
        v * (v - 1) / (degree * (degree - 1)) - 2 * a * v / degree + a**2
        for a in center
    ]
    grids = np.meshgrid(*axes, indexing="ij")
    return sum(grids)


@pytest.mark.parametrize("center", [[0.3], [0.25, 0.8], [0.0, 0.6, 1.0]])
def test_finds_the_minimum_of_a_quadratic(center):
    coef = quadratic_coefficients(center, 4)
    t, value = minimize_bernstein(coef)
    np.testing.assert_allclose(t, center, atol=1e-6)
    assert value == pytest.approx(0.0, abs=1e-10)
    assert value == pytest.approx(float(evaluate_bernstein(coef, t[None])[0]))


@pytest.mark.parametrize("seed", range(5))
def test_reaches_the_global_minimum_of_a_wiggly_polynomial(seed):
    # Random degree-8 coefficients give several local minima; the best of the
    # starts must reach the minimum over a fine grid.
    t_fine = np.linspace(0.0, 1.0, 100_001)
    coef = np.random.RandomState(seed).standard_normal(9)
    values = evaluate_bernstein(coef, t_fine[:, None])
    t, value = minimize_bernstein(coef)
    assert value <= values.min() + 1e-9
    assert 0.0 <= t[0] <= 1.0


def test_minimum_on_the_boundary_is_clipped_to_the_cube():
    coef = np.arange(9.0).reshape(3, 3)  # increasing in both coordinates
    t, value = minimize_bernstein(coef)
    np.testing.assert_allclose(t, [0.0, 0.0])
    assert value == pytest.approx(0.0)
