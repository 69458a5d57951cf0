"""TrigonometricRandomizer (seed 001 Algorithm 7): the users' basis vector and its privacy."""

import numpy as np
import pytest

from sklearn_ldp.randomizers import TrigonometricRandomizer, chebyshev_tensor_basis
from sklearn_ldp.utils import audit_randomizer


def test_basis_is_the_product_of_chebyshev_polynomials():
    units = np.array([[0.3, -0.8], [1.0, 0.0]])
    basis = chebyshev_tensor_basis(units, 4)
    t = np.polynomial.chebyshev.chebvander(units, 3)  # (n, p, t)
    expected = (t[:, 0, :, None] * t[:, 1, None, :]).reshape(2, -1)
    np.testing.assert_allclose(basis, expected, atol=1e-14)


def test_unit_values_are_the_entries_of_the_full_vector():
    rand = TrigonometricRandomizer(
        2, epsilon=1.0, degree=3, lower=[0, -2], upper=[1, 2]
    )
    X = np.random.RandomState(0).uniform(-1, 3, size=(50, 2))
    angles = rand._prepare(X)
    coordinates = np.arange(50) % rand.n_coordinates
    full = rand._unit_vector(angles)
    np.testing.assert_allclose(
        rand._unit_values(angles, coordinates), full[np.arange(50), coordinates]
    )


def test_vectors_too_large_are_refused():
    with pytest.raises(ValueError, match="coordinates"):
        TrigonometricRandomizer(8, epsilon=1.0, degree=10)
    with pytest.raises(ValueError, match="degree"):
        TrigonometricRandomizer(1, epsilon=1.0, degree=1)


# --- privacy --------------------------------------------------------------------


def _value_column(matrix):
    return matrix[:, -1]


@pytest.mark.parametrize("mechanism", ["piecewise", "duchi", "laplace"])
def test_audit_sampled_randomizer(mechanism):
    # p = 1, t = 2: one entry T_1(u) = u, +1 and -1 for records far outside the box.
    rand = TrigonometricRandomizer(1, epsilon=2.0, degree=2, mechanism=mechanism)
    result = audit_randomizer(
        rand, ([50.0], None), ([-50.0], None), statistic=_value_column, n_draws=100_000
    )
    assert result.passed, result
    assert result.epsilon_lower_bound > 0.6 * 2.0


def test_audit_rejects_sampled_randomizer_at_twice_its_budget():
    # Broken: claims 4, runs its mechanism at 8.
    rand = TrigonometricRandomizer(1, epsilon=8.0, degree=2)
    result = audit_randomizer(
        rand,
        ([50.0], None),
        ([-50.0], None),
        epsilon=4.0,
        statistic=_value_column,
        n_draws=100_000,
    )
    assert not result.passed


def test_audit_full_vector_and_reject_the_printed_b_without_composition():
    # t = 6: entries T_v(+-1) = (+-1)^v, so the odd v = 1, 3, 5 differ by 2.
    records = (([50.0], None), ([-50.0], None))
    signs = np.array([1.0, 0.0, 1.0, 0.0, 1.0])

    def odd_sum(matrix):
        return matrix @ signs

    rand = TrigonometricRandomizer(1, epsilon=1.0, degree=6, mechanism="full_vector")
    assert rand.laplace_scale == pytest.approx(2 * 5 / 1.0)
    result = audit_randomizer(rand, *records, statistic=odd_sum, n_draws=100_000)
    assert result.passed, result
    # Broken: Lemma 3 per entry with the printed b = 1 and no composition,
    # i.e. Lap(1 / epsilon): a tenth of the noise.
    broken = TrigonometricRandomizer(1, epsilon=10.0, degree=6, mechanism="full_vector")
    result = audit_randomizer(
        broken, *records, epsilon=1.0, statistic=odd_sum, n_draws=100_000
    )
    assert not result.passed
