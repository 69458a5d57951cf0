"""MarginalRandomizer (seed 001 Algorithm 6): OR polynomial, subset numbering, privacy."""

import itertools
from math import comb

import numpy as np
import pytest

from sklearn_ldp.randomizers import MarginalRandomizer, SubsetIndex, or_polynomial
from sklearn_ldp.utils import audit_randomizer

# --- the OR polynomial --------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8, 16, 30])
@pytest.mark.parametrize("gamma", [0.0, 0.3, 0.1, 0.01])
def test_or_polynomial_uniform_error_and_coefficient_bound(k, gamma):
    poly = or_polynomial(k, gamma)
    s = np.arange(k + 1)
    # p(0) = 0 and |p(s) - 1| <= gamma on 1..k (computed, and it meets the target).
    assert poly.uniform_error <= gamma + 1e-12
    assert abs(poly(0.0)) < 1e-12
    if poly.degree <= 12:  # the monomial form is well conditioned here
        values = poly(s)
        assert np.max(np.abs(values[1:] - 1.0)) <= gamma + 1e-9
    # Newton coefficients reproduce p on {0..k}: p(s) = sum_m w_m C(s, m).
    newton_values = [
        sum(poly.newton[m] * comb(int(v), m) for m in range(k + 1)) for v in s
    ]
    assert np.allclose(newton_values, (s >= 1) * 1.0, atol=gamma + 1e-9)
    assert np.all(poly.newton[poly.degree + 1 :] == 0)
    # The proven l1 bound holds, and is 2^O(t): 1 + (3 (1 + sqrt 2))^t.
    assert np.abs(poly.coef).sum() <= poly.coefficient_bound * (1 + 1e-9)
    assert poly.coefficient_bound <= 1 + (3 * (1 + np.sqrt(2))) ** poly.degree
    assert poly.degree <= k


def test_or_polynomial_degree_is_sqrt_k_log_inverse_gamma():
    # t = d r with T_d(k/(k-1))^-r <= gamma: d ~ sqrt(k), r ~ log(1/gamma).
    for k in [16, 30, 64]:
        poly = or_polynomial(k, 0.2)
        assert poly.degree < k
        assert poly.degree <= 2 * np.sqrt(k) * np.log(1 / 0.2) + 1
    exact = or_polynomial(4, 0.0)
    assert exact.newton.tolist() == [0.0, 1.0, -1.0, 1.0, -1.0]
    with pytest.raises(ValueError, match="gamma"):
        or_polynomial(3, 1.0)
    with pytest.raises(ValueError, match="k must"):
        or_polynomial(0, 0.1)


def test_subset_index_numbers_every_subset_once():
    index = SubsetIndex(7, 3)
    table = index.table()
    assert index.size == 7 + 21 + 35 == table.shape[0]
    for m in range(1, 4):
        subsets = np.array(list(itertools.combinations(range(7), m)))
        idx = index.index(subsets)
        assert np.array_equal(
            np.sort(idx), np.arange(index.offset[m], index.offset[m + 1])
        )
        assert np.array_equal(table[idx, :m], subsets)


def test_vectors_too_large_are_refused():
    with pytest.raises(ValueError, match="coordinates"):
        MarginalRandomizer(5000, epsilon=1.0, k=3)
    with pytest.raises(ValueError, match="C\\(p \\+ t, t\\)"):
        MarginalRandomizer(200, epsilon=1.0, k=5, coefficients="monomial")
    rand = MarginalRandomizer(20, epsilon=1.0, k=3, mechanism="full_vector")
    with pytest.raises(ValueError, match="full_vector"):
        rand.randomize(np.zeros((200_000, 20)), random_state=0)


# --- privacy --------------------------------------------------------------------


def _value_column(matrix):
    return matrix[:, -1]


@pytest.mark.parametrize("mechanism", ["piecewise", "duchi", "laplace"])
def test_audit_sampled_randomizer(mechanism):
    # Every conjunction is 1 for the all-ones record and 0 for all-zeros (far
    # outside any threshold), the extreme pair for every coordinate.
    rand = MarginalRandomizer(3, epsilon=2.0, k=2, mechanism=mechanism, binarize=0.5)
    result = audit_randomizer(
        rand,
        ([50.0] * 3, None),
        ([-50.0] * 3, None),
        statistic=_value_column,
        n_draws=100_000,
    )
    assert result.passed, result
    assert result.epsilon_lower_bound > 0.6 * 2.0


def test_audit_rejects_sampled_randomizer_at_twice_its_budget():
    # Broken: claims 4, runs its mechanism at 8.
    rand = MarginalRandomizer(3, epsilon=8.0, k=2, binarize=0.5)
    result = audit_randomizer(
        rand,
        ([50.0] * 3, None),
        ([-50.0] * 3, None),
        epsilon=4.0,
        statistic=_value_column,
        n_draws=100_000,
    )
    assert not result.passed


def test_audit_full_vector_and_reject_it_without_composition():
    rand = MarginalRandomizer(
        3, epsilon=1.0, k=2, mechanism="full_vector", binarize=0.5
    )
    records = (([50.0] * 3, None), ([-50.0] * 3, None))

    def signed_sum(matrix):
        # Reports are the unit entries 1[S subset x] (the server applies
        # w_|S|): the all-ones record moves each by 1.
        return matrix.sum(axis=1)

    result = audit_randomizer(rand, *records, statistic=signed_sum, n_draws=100_000)
    assert result.passed, result
    # Broken: Lap(b / epsilon) per entry, forgetting the d entries (d = 6).
    broken = MarginalRandomizer(
        3, epsilon=6.0, k=2, mechanism="full_vector", binarize=0.5
    )
    result = audit_randomizer(
        broken, *records, epsilon=1.0, statistic=signed_sum, n_draws=100_000
    )
    assert not result.passed
