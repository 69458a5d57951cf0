"""MarginalRandomizer (seed 001 Algorithm 6) and HadamardMarginalRandomizer: privacy."""

import itertools
from math import comb

import numpy as np
import pytest

from sklearn_ldp.randomizers import (
    HadamardMarginalRandomizer,
    MarginalRandomizer,
    SubsetIndex,
    check_client_random_state,
    or_polynomial,
)
from sklearn_ldp.randomizers._ldp_avg import VectorAverageRandomizer
from sklearn_ldp.randomizers._marginals import (
    MAX_MECHANISM_EPSILON,
    mechanism_epsilon,
)
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


# --- the Hadamard randomizer (Cormode, Kulkarni, Srivastava 2018) ---------------


def test_hadamard_parities_and_reports():
    rand = HadamardMarginalRandomizer(5, epsilon=50.0, k=3, binarize=None)
    assert rand.n_coordinates == 5 + 10 + 10
    X = (np.random.RandomState(0).uniform(size=(400, 5)) < 0.5).astype(float)
    parities = rand._unit_vector(rand._prepare(X))
    table = SubsetIndex(5, 3).table()
    for j in [0, 7, 24]:
        members = table[j][table[j] < 5]
        np.testing.assert_array_equal(
            parities[:, j], (-1.0) ** X[:, members].sum(axis=1)
        )
    reports = rand.randomize(X, random_state=0)
    config = reports.config
    assert config["granularity"] == 1.0 and config["response"] == "randomized_response"
    valid, reasons = rand.validate_reports(reports)
    assert valid.all() and not reasons
    # At epsilon ~ 36.0 randomized response keeps every sign: the reported
    # value is the parity of the reported subset.
    expected = parities[np.arange(400), reports["coordinate"]]
    np.testing.assert_array_equal(reports["value"], expected)
    # Every subset gets floor or ceil of n / G users.
    counts = np.bincount(reports["coordinate"], minlength=rand.n_coordinates)
    assert counts.min() >= 400 // 25 and counts.max() <= -(-400 // 25)


def test_hadamard_reports_are_validated():
    rand = HadamardMarginalRandomizer(4, epsilon=1.0, k=2)
    reports = rand.randomize(np.zeros((50, 4)), random_state=0)
    fields = dict(reports.fields)
    fields["value"] = fields["value"].copy()
    fields["value"][:3] = [0.5, 3.0, np.nan]
    fields["coordinate"] = fields["coordinate"].copy()
    fields["coordinate"][10] = rand.n_coordinates
    valid, reasons = rand.validate_reports(type(reports)(fields, reports.config))
    assert valid.sum() == 46
    assert reasons == {"off the lattice": 1, "outside the support": 2, "not finite": 1}


def test_hadamard_randomizer_is_vectorized_in_bounded_chunks():
    rand = HadamardMarginalRandomizer(16, epsilon=1.0, k=3)
    assert rand.chunk_size <= 65_536  # users per chunk: temporaries (chunk, k)
    X = (np.random.RandomState(0).uniform(size=(150_000, 16)) < 0.3).astype(float)
    reports = rand.randomize(X, random_state=0)
    assert reports["value"].shape == (150_000,)
    assert np.unique(reports["coordinate"]).size == rand.n_coordinates


def _odd_parity_sign(rand):
    """Statistic: the sign for odd subsets (the all-ones and all-zeros records
    differ on exactly those), 0 for even ones (identical laws)."""
    sizes = SubsetIndex(rand.n_features, rand.order).sizes()

    def statistic(matrix):
        coordinates = matrix[:, 0].astype(int)
        return np.where(sizes[coordinates] % 2 == 1, matrix[:, 1], 0.0)

    return statistic


def test_audit_hadamard_randomizer():
    rand = HadamardMarginalRandomizer(3, epsilon=2.0, k=2, binarize=0.5)
    assert list(rand.randomize(np.zeros((1, 3)), random_state=0).fields) == [
        "coordinate",
        "value",
    ]
    result = audit_randomizer(
        rand,
        ([50.0] * 3, None),
        ([-50.0] * 3, None),
        statistic=_odd_parity_sign(rand),
        n_draws=100_000,
    )
    assert result.passed, result
    assert result.epsilon_lower_bound > 0.6 * 2.0


def test_audit_rejects_hadamard_randomizer_at_twice_its_budget():
    # Broken: claims 4, runs randomized response at 8.
    rand = HadamardMarginalRandomizer(3, epsilon=8.0, k=2, binarize=0.5)
    result = audit_randomizer(
        rand,
        ([50.0] * 3, None),
        ([-50.0] * 3, None),
        epsilon=4.0,
        statistic=_odd_parity_sign(rand),
        n_draws=100_000,
    )
    assert not result.passed


class _LeakyIndexHadamard(HadamardMarginalRandomizer):
    """Broken twin: picks the subset among those whose parity is +1 when it
    can (the index is no longer independent of the record)."""

    def _randomize_chunk(self, X, y, source, public):
        out = super()._randomize_chunk(X, y, source, public)
        bits = self._prepare(X)
        odd = self._unit_values(bits, out["coordinate"]) < 0
        out["coordinate"] = np.where(odd, 0, out["coordinate"])
        return out


def test_audit_catches_a_record_dependent_subset_index():
    rand = _LeakyIndexHadamard(3, epsilon=1.0, k=2, binarize=0.5)

    def first_subset(matrix):
        return (matrix[:, 0] == 0).astype(float)

    result = audit_randomizer(
        rand,
        ([50.0] * 3, None),
        ([-50.0] * 3, None),
        statistic=first_subset,
        n_draws=50_000,
    )
    assert not result.passed


def test_epsilon_cap_and_floor():
    assert mechanism_epsilon(1e9, "duchi") == MAX_MECHANISM_EPSILON
    assert mechanism_epsilon(0.5, "piecewise") == 0.5
    with pytest.raises(ValueError, match=r"epsilon = 1e-09.*usable range is epsilon >= 1e-08"):
        mechanism_epsilon(1e-9, "piecewise")
    huge = MarginalRandomizer(3, epsilon=1e9, k=2)
    assert 30 < huge.epsilon < MAX_MECHANISM_EPSILON
    tiny = HadamardMarginalRandomizer(3, epsilon=1e-9, k=2)
    assert tiny.epsilon == pytest.approx(1e-9)
    values = tiny.randomize(np.zeros((100, 3)), random_state=0)["value"]
    assert set(np.unique(values)) <= {-1.0, 1.0}


@pytest.mark.parametrize("binarize", [None, 0.0, 0.5, -2.5])
def test_integer_records_get_the_reports_of_float_records(binarize):
    # int8 0/1 records are binarized in their own type: the same bits, the
    # same reports (and the Hadamard fast path is the generic Duchi path).
    codes = np.random.RandomState(0).randint(0, 2, size=(3000, 6)).astype(np.int8)
    for rand in (
        HadamardMarginalRandomizer(6, epsilon=2.0, k=3, binarize=binarize),
        MarginalRandomizer(6, epsilon=2.0, k=2, gamma=0.0, binarize=binarize),
    ):
        from_ints = rand.randomize(codes, random_state=5)
        from_floats = rand.randomize(codes.astype(float), random_state=5)
        for name in from_ints.fields:
            np.testing.assert_array_equal(from_ints[name], from_floats[name])
    rand = HadamardMarginalRandomizer(6, epsilon=2.0, k=3, binarize=binarize)
    source = check_client_random_state(5)
    generic = VectorAverageRandomizer._randomize_chunk(
        rand, codes, None, source, source.public()
    )
    source = check_client_random_state(5)
    fast = rand._randomize_chunk(codes, None, source, source.public())
    for name in generic:
        np.testing.assert_array_equal(generic[name], fast[name])
