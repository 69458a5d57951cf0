"""Basis pursuit, median-of-means and grouped sums."""

import numpy as np
import pytest
from scipy import sparse

from sklearn_ldp.aggregation import GroupedSums, basis_pursuit, median_of_means


def test_basis_pursuit_recovers_a_sparse_vector():
    # 5-sparse in d=120 from p=50 Gaussian measurements: well inside the
    # exact-recovery region of l1 minimization (p >~ 2 s log(d/s) = 32).
    rng = np.random.RandomState(0)
    A = rng.standard_normal((50, 120)) / np.sqrt(50)
    w = np.zeros(120)
    w[[3, 17, 40, 77, 100]] = [1.0, -2.0, 0.5, 1.5, -1.0]
    np.testing.assert_allclose(basis_pursuit(A, A @ w), w, atol=1e-7)
    # Same with a sparse matrix.
    np.testing.assert_allclose(basis_pursuit(sparse.csr_matrix(A), A @ w), w, atol=1e-7)


def test_basis_pursuit_with_residual_bound():
    rng = np.random.RandomState(1)
    A = rng.standard_normal((40, 80)) / np.sqrt(40)
    w = np.zeros(80)
    w[[1, 5]] = [1.0, -1.0]
    target = A @ w + 0.01 * rng.standard_normal(40)
    tau = 0.6
    z = basis_pursuit(A, target, residual_bound=tau)
    assert np.abs(A @ z - target).sum() <= tau * (1 + 1e-6)
    # The minimum-norm feasible point is no larger than the truth (feasible).
    assert np.abs(z).sum() <= np.abs(w).sum() + 1e-9
    assert np.linalg.norm(z - w) < 0.3
    # A bound larger than ||target||_1 makes 0 feasible, hence optimal.
    big = np.abs(target).sum() * 1.01
    np.testing.assert_allclose(basis_pursuit(A, target, residual_bound=big), 0.0)


def test_basis_pursuit_errors():
    with pytest.raises(ValueError, match="Expected"):
        basis_pursuit(np.ones((2, 3)), np.ones(3))
    with pytest.raises(ValueError, match="residual_bound"):
        basis_pursuit(np.ones((2, 3)), np.ones(2), residual_bound=-1.0)


def test_median_of_means_ignores_a_minority_of_outliers():
    rng = np.random.RandomState(0)
    good = rng.standard_normal((7, 5)) * 0.1
    bad = rng.standard_normal((5, 5)) * 0.1 + 50.0
    points = np.vstack([bad[:2], good, bad[2:]])
    center, index = median_of_means(points)
    assert 2 <= index < 9
    assert np.abs(center).max() < 1.0


def test_median_of_means_definition():
    # r_j = distance to the ceil(k/2)-th nearest mean (itself included).
    points = np.array([[0.0], [1.0], [3.0], [10.0]])
    # r = [1, 1, 2, 7] (2 of 4 needed): the first minimum wins.
    assert median_of_means(points)[1] == 0


def test_grouped_sums_round_robin_across_batches():
    values = np.arange(10.0)[:, None] * np.ones((1, 2))
    sums = GroupedSums(3, 2)
    sums.update(values[:4])
    sums.update(values[4:])
    np.testing.assert_array_equal(sums.counts, [4, 3, 3])
    np.testing.assert_allclose(sums.sums[:, 0], [0 + 3 + 6 + 9, 1 + 4 + 7, 2 + 5 + 8])
    np.testing.assert_allclose(sums.means()[:, 1], [4.5, 4.0, 5.0])
    with pytest.raises(ValueError, match="components"):
        sums.update(np.ones((2, 3)))
