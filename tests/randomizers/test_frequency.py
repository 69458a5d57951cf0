"""FrequencyRandomizer: privacy audits (with broken twins), variances, validation."""

import numpy as np
import pytest
from scipy.linalg import hadamard

from sklearn_ldp.aggregation import (
    debias_frequencies,
    fast_walsh_hadamard,
    frequency_support_counts,
    frequency_variance,
    iterative_bayesian_update,
    project_simplex,
)
from sklearn_ldp.aggregation._frequency import count_values
from sklearn_ldp.randomizers import (
    FrequencyRandomizer,
    Reports,
    frequency_design,
    frequency_mechanism_variances,
)
from sklearn_ldp.randomizers._frequency import (
    FREQUENCY_MECHANISMS,
    best_frequency_mechanism,
    hadamard_sign,
    local_hash,
    randomized_response_values,
)
from sklearn_ldp.utils import audit_randomizer

K = 6


def _supports_zero(randomizer):
    """Statistic: does the report support cell 0 (minus cell 1, for bit reports)?"""
    mechanism, design = randomizer.mechanism, randomizer.design

    def statistic(matrix):
        if mechanism == "randomized_response":
            return (matrix[:, 0] == 0).astype(float)
        if mechanism == "hadamard_response":
            return hadamard_sign(1, matrix[:, 0].astype(np.int64)).astype(float)
        if mechanism == "local_hashing":
            a, b, value = (matrix[:, j].astype(np.int64) for j in range(3))
            return (local_hash(a, b, 0, design.n_outputs) == value).astype(float)
        first = matrix[:, 0].astype(np.int64)  # bits of cells 0..7, big-endian
        return ((first >> 7) & 1) - ((first >> 6) & 1).astype(float)

    return statistic


def _audit(randomizer, epsilon=None):
    return audit_randomizer(
        randomizer,
        ([0.0], None),
        ([1.0], None),
        epsilon=epsilon,
        statistic=_supports_zero(randomizer),
        n_draws=100_000,
    )


@pytest.mark.parametrize("mechanism", FREQUENCY_MECHANISMS)
def test_audit_passes_and_is_tight(mechanism):
    randomizer = FrequencyRandomizer(
        1, epsilon=1.5, categories=K, mechanism=mechanism
    )
    assert randomizer.epsilon <= 1.5
    result = _audit(randomizer)
    assert result.passed, result
    # The support event of the value attains the whole budget (mechanisms
    # whose two-cell event is weaker still certify a large share of it).
    assert result.epsilon_lower_bound > 0.5 * 1.5, result


@pytest.mark.parametrize("mechanism", FREQUENCY_MECHANISMS)
def test_audit_catches_a_keep_probability_too_large(mechanism):
    # Broken twin: states epsilon = 1 but keeps the value (or the support)
    # with the probability of epsilon = 3.
    broken = FrequencyRandomizer(1, epsilon=3.0, categories=K, mechanism=mechanism)
    result = _audit(broken, epsilon=1.0)
    assert not result.passed


@pytest.mark.parametrize("mechanism", FREQUENCY_MECHANISMS)
@pytest.mark.parametrize("epsilon", [1e-9, 1e-3, 1.0, 30.0, 1e9])
def test_design_is_at_most_the_requested_epsilon(mechanism, epsilon):
    for n_cells in (2, 7, 1024):
        design = frequency_design(mechanism, n_cells, epsilon)
        assert 0 < design.epsilon <= epsilon
        assert 0 <= design.other_prob < design.support_prob <= 1
        assert np.isfinite(design.variance())


def test_closed_form_variances():
    # Wang et al. 2017 (f -> 0): GRR (e + K - 2) / (e - 1)^2, OUE 4e / (e - 1)^2,
    # Hadamard response (e + 1)^2 / (e - 1)^2, OLH ~ 4e / (e - 1)^2.
    for epsilon in (0.5, 1.0, 4.0):
        e = np.exp(epsilon)
        for n_cells in (4, 128):
            var = {
                m: frequency_design(m, n_cells, epsilon).variance(0.0)
                for m in FREQUENCY_MECHANISMS
            }
            # Half-word draws where their lattice costs < 2^-20 of the variance.
            np.testing.assert_allclose(
                var["randomized_response"], (e + n_cells - 2) / (e - 1) ** 2, rtol=2.0**-20
            )
            np.testing.assert_allclose(
                var["unary_encoding"], 4 * e / (e - 1) ** 2, rtol=1e-9
            )
            np.testing.assert_allclose(
                var["hadamard_response"], (e + 1) ** 2 / (e - 1) ** 2, rtol=1e-9
            )
            # g = round(e) + 1 instead of e + 1: within 15%.
            np.testing.assert_allclose(
                var["local_hashing"], 4 * e / (e - 1) ** 2, rtol=0.15
            )


def test_auto_ranking():
    # Subsets of one cell are randomized response: a tie, to the first.
    assert best_frequency_mechanism(2, 1.0) == "randomized_response"
    assert best_frequency_mechanism(33, 4.0) == "randomized_response"
    large = frequency_mechanism_variances(1024, 1.0)
    best = min(large, key=large.get)
    assert best in ("subset_selection", "unary_encoding", "local_hashing")
    assert large["randomized_response"] > 50 * large[best]


def _zipf(n, n_cells, rng):
    weights = np.arange(1, n_cells + 1) ** -1.1
    return rng.choice(n_cells, size=(n, 1), p=weights / weights.sum()).astype(float)


@pytest.mark.parametrize("mechanism", FREQUENCY_MECHANISMS)
def test_unbiased_with_the_predicted_variance(mechanism):
    rng = np.random.RandomState(0)
    n_cells, n, repeats = 8, 2000, 200
    X = _zipf(n, n_cells, rng)
    truth = np.bincount(X[:, 0].astype(int), minlength=n_cells) / n
    randomizer = FrequencyRandomizer(
        1, epsilon=1.0, categories=n_cells, mechanism=mechanism
    )
    p, q = randomizer.design.support_prob, randomizer.design.other_prob
    estimates = np.empty((repeats, n_cells))
    for r in range(repeats):
        reports = randomizer.randomize(X, random_state=r)
        counts, n_users = frequency_support_counts(randomizer, reports)
        estimates[r] = debias_frequencies(counts, n_users, p, q)[0]
    predicted = frequency_variance(truth, np.array([n]), p, q)
    # Unbiased: the mean over repeats within 5 standard errors.
    z = (estimates.mean(axis=0) - truth) / np.sqrt(predicted / repeats)
    assert np.all(np.abs(z) < 5), z
    # The sample variance of the repeats has relative sd sqrt(2 / (repeats - 1)).
    ratio = estimates.var(axis=0, ddof=1) / predicted
    assert np.all(np.abs(ratio - 1) < 5 * np.sqrt(2 / (repeats - 1))), ratio


@pytest.mark.parametrize("mechanism", FREQUENCY_MECHANISMS)
def test_several_attributes_and_the_other_cell(mechanism):
    rng = np.random.RandomState(1)
    X = np.column_stack([rng.choice([2.0, 5.0, 9.0], 30_000), np.full(30_000, 5.0)])
    randomizer = FrequencyRandomizer(
        2, epsilon=4.0, categories=[2, 5], mechanism=mechanism, unknown="other"
    )
    reports = randomizer.randomize(X, random_state=0)
    assert randomizer.validate_reports(reports)[0].all()
    counts, n_users = frequency_support_counts(randomizer, reports)
    p, q = randomizer.design.support_prob, randomizer.design.other_prob
    f = debias_frequencies(counts, n_users, p, q)
    sd = np.sqrt(frequency_variance(f, n_users, p, q))
    expected = np.array([[1 / 3, 1 / 3, 1 / 3], [0.0, 1.0, 0.0]])
    assert np.all(np.abs(f - expected) < 5 * sd + 0.02)
    assert n_users.sum() == 30_000 and abs(n_users[0] - 15_000) < 5 * np.sqrt(7500)


def test_out_of_domain_values_are_refused():
    randomizer = FrequencyRandomizer(1, epsilon=1.0, categories=3)
    with pytest.raises(ValueError, match="outside the public categories"):
        randomizer.randomize([[0.0], [3.0]], random_state=0)
    with pytest.raises(ValueError, match="two cells"):
        FrequencyRandomizer(1, epsilon=1.0, categories=1)
    with pytest.raises(ValueError, match="distinct"):
        FrequencyRandomizer(1, epsilon=1.0, categories=[1, 1])


def _tamper(reports, name, row, value):
    fields = dict(reports.fields)
    # A sender picks its own dtype: wide enough for any integer.
    values = fields[name]
    fields[name] = values.astype(np.int64) if values.dtype.kind in "iu" else values.copy()
    fields[name][row] = value
    return Reports(fields, reports.config)


@pytest.mark.parametrize(
    "mechanism, field, value",
    [
        ("randomized_response", "value", K),
        ("randomized_response", "value", -1),
        ("hadamard_response", "value", 8),
        ("local_hashing", "hash_a", 0),
        ("local_hashing", "value", 10**6),
        ("unary_encoding", "bits", [0b00000011]),  # padding bits set (K = 6)
        ("subset_selection", "bits", [0b11111100]),  # six cells, not d
    ],
)
def test_server_rejects_reports_an_honest_client_cannot_send(mechanism, field, value):
    randomizer = FrequencyRandomizer(1, epsilon=1.0, categories=K, mechanism=mechanism)
    reports = randomizer.randomize(np.zeros((50, 1)), random_state=0)
    assert randomizer.validate_reports(reports)[0].all()
    valid, reasons = randomizer.validate_reports(_tamper(reports, field, 3, value))
    assert valid.sum() == 49 and not valid[3], reasons


def test_fast_walsh_hadamard_and_signs():
    x = np.random.RandomState(0).standard_normal((3, 64))
    np.testing.assert_allclose(fast_walsh_hadamard(x), x @ hadamard(64), atol=1e-9)
    rows, cols = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    assert np.array_equal(hadamard_sign(rows, cols), hadamard(16) > 0)


def test_project_simplex_is_the_euclidean_projection():
    rng = np.random.RandomState(0)
    v = rng.standard_normal((50, 7))
    w = project_simplex(v)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    assert np.all(w >= 0)
    # KKT: v - w = tau on the support, <= tau off it.
    for row_v, row_w in zip(v, w, strict=True):
        tau = (row_v - row_w)[row_w > 0]
        np.testing.assert_allclose(tau, tau[0])
        assert np.all((row_v - row_w)[row_w == 0] <= tau[0] + 1e-12)


def test_ibu_matches_the_unbiased_estimate_inside_the_simplex():
    p, q = 0.6, 0.1
    truth = np.array([[0.5, 0.3, 0.15, 0.05]])
    counts = 10_000 * (q + (p - q) * truth)
    f = iterative_bayesian_update(counts, np.array([10_000.0]), p, q)
    np.testing.assert_allclose(f, truth, atol=1e-6)


@pytest.mark.parametrize("n_outputs, n_other", [(2, 1000), (4, 7), (33, 757), (300, 200)])
def test_randomized_response_law_is_exact_on_every_draw(n_outputs, n_other):
    # Every 16-bit draw once: each other output has exactly N draws, the
    # value the remaining 2^16 - (K - 1) N (the law the design states).
    draws = np.arange(2**16, dtype=np.uint64).astype(np.uint16)
    work = np.dtype(np.uint16)
    for value in {0, n_outputs // 2, n_outputs - 1}:
        cells = np.full(draws.size, value, dtype=np.uint16)
        counts = np.bincount(
            randomized_response_values(draws, cells, n_other, n_outputs, work),
            minlength=n_outputs,
        )
        expected = np.full(n_outputs, n_other)
        expected[value] = 2**16 - (n_outputs - 1) * n_other
        np.testing.assert_array_equal(counts, expected)


@pytest.mark.parametrize(
    "n_cells, epsilon, bits", [(33, 4.0, 32), (2, 1.0, 32), (1024, 1.0, 64), (7, 1e-9, 64)]
)
def test_randomized_response_design_states_its_exact_ratio(n_cells, epsilon, bits):
    design = frequency_design("randomized_response", n_cells, epsilon)
    assert design.bits == bits
    n_other = design.threshold
    keep = 2**bits - (n_cells - 1) * n_other
    assert keep > n_other >= 1
    # The guarantee is ln(keep / N), computed on the integers, at most epsilon.
    assert np.log(keep / n_other) <= design.epsilon * (1 + 1e-12)
    assert design.epsilon <= epsilon
    assert design.support_prob == keep / 2**bits and design.other_prob == n_other / 2**bits


def test_integer_and_float_records_get_the_same_reports():
    rng = np.random.RandomState(3)
    codes = rng.randint(-2, 9, size=(5000, 1))  # outside [3, 7] -> the other cell
    for mechanism in FREQUENCY_MECHANISMS:
        randomizer = FrequencyRandomizer(
            1, epsilon=2.0, categories=[3, 4, 5, 6, 7], mechanism=mechanism,
            unknown="other",
        )
        from_ints = randomizer.randomize(codes, random_state=1)
        from_floats = randomizer.randomize(codes.astype(float), random_state=1)
        for name in from_ints.fields:
            np.testing.assert_array_equal(from_ints[name], from_floats[name])
    with pytest.raises(ValueError, match="outside the public categories"):
        FrequencyRandomizer(1, epsilon=1.0, categories=3).randomize(
            np.array([[0], [3]]), random_state=0
        )


def test_count_values_is_bincount():
    rng = np.random.RandomState(0)
    for n_values, dtype in [(2, np.uint8), (33, np.uint8), (256, np.uint8), (300, np.uint16)]:
        for n in (1, 2, 7, 10_001):
            values = rng.randint(0, n_values, n).astype(dtype)
            np.testing.assert_array_equal(
                count_values(values, n_values), np.bincount(values, minlength=n_values)
            )


@pytest.mark.parametrize("random_state", [0, None])
@pytest.mark.parametrize("n_cells, bits", [(40, 32), (1024, 64)])
def test_randomized_response_keeps_the_value_with_p(n_cells, bits, random_state):
    randomizer = FrequencyRandomizer(
        1, epsilon=1.0, categories=n_cells, mechanism="randomized_response"
    )
    assert randomizer.design.bits == bits
    n = 200_000
    reports = randomizer.randomize(np.full((n, 1), 3), random_state=random_state)
    assert randomizer.validate_reports(reports)[0].all()
    counts = np.bincount(reports["value"], minlength=n_cells)
    p, q = randomizer.design.support_prob, randomizer.design.other_prob
    assert abs(counts[3] - n * p) < 5 * np.sqrt(n * p * (1 - p))
    others = np.delete(counts, 3)
    # Every other cell ~ Binomial(n, q): their total and their spread.
    assert abs(others.sum() - n * (1 - p)) < 5 * np.sqrt(n * p * (1 - p))
    assert abs(others.var() / (n * q * (1 - q)) - 1) < 5 * np.sqrt(2 / (n_cells - 2))
