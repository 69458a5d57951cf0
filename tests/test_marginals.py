"""k-way marginals (seed 001 Algorithm 6): exactness, noise, contract.

The users' randomizer, its OR polynomial and its privacy audits are in
``tests/randomizers/test_marginals.py``.
"""

import itertools
from math import comb

import numpy as np
import pytest

from sklearn_ldp import KWayMarginalsLDP
from sklearn_ldp.randomizers import Reports


def binary_data(n, p, seed=0):
    rng = np.random.RandomState(seed)
    X = (rng.uniform(size=(n, p)) < np.linspace(0.1, 0.8, p)).astype(float)
    X[:, 1] = np.maximum(X[:, 0], X[:, 2])  # dependence, so marginals are not products
    return X


def exact_table(X, features):
    table = np.zeros((2,) * len(features))
    for pattern in itertools.product([0, 1], repeat=len(features)):
        table[pattern] = np.mean(np.all(X[:, features] == pattern, axis=1))
    return table


# --- exactness without noise ---------------------------------------------------


def noise_free_reports(est, X):
    """The users' exact full vectors, as reports of ``est``'s randomizer.

    No epsilon makes 64-bit lattice noise negligible (a pure mechanism's
    smallest probability must stay above ``2^-64``); the unit entries are
    bits, on every lattice, so the server validates and uses these reports.
    """
    randomizer = est.make_randomizer(X.shape[1])
    units = randomizer._unit_vector(randomizer._prepare(X))
    return Reports({"vector": units}, randomizer.get_config())


@pytest.mark.parametrize("coefficients", ["multilinear", "monomial"])
def test_noise_free_reports_give_the_exact_empirical_marginals(coefficients):
    X = binary_data(3000, 6)
    est = KWayMarginalsLDP(
        k=3, mechanism="full_vector", coefficients=coefficients, random_state=0
    )
    est.fit_reports(noise_free_reports(est, X))
    assert est.n_reports_rejected_ == 0
    for features in [[0, 1, 2], [5, 1, 3], [4, 0], [3]]:
        np.testing.assert_allclose(
            est.marginal_table(features), exact_table(X, features), atol=1e-6
        )
    assert est.marginal([5, 1, 3], [1, 0, 1]) == pytest.approx(
        exact_table(X, [5, 1, 3])[1, 0, 1], abs=1e-6
    )
    assert est.disjunction([0, 3, 4]) == pytest.approx(
        np.mean(X[:, [0, 3, 4]].max(axis=1)), abs=1e-6
    )


@pytest.mark.parametrize("coefficients", ["multilinear", "monomial"])
def test_approximate_polynomial_answers_disjunctions_within_gamma(coefficients):
    # With gamma > 0 the server evaluates the averaged p(sum_j x_j y_j): its
    # answer equals mean_i p(|x_i AND y|) exactly, within gamma of the truth.
    X = binary_data(2000, 7, seed=1)
    est = KWayMarginalsLDP(
        k=6,
        gamma=0.2,
        mechanism="full_vector",
        coefficients=coefficients,
        random_state=0,
    )
    est.fit_reports(noise_free_reports(est, X))
    poly = est.polynomial_
    assert poly.degree == 4 and est.order_ == 4
    for features in itertools.combinations(range(7), 6):
        features = list(features)
        s = X[:, features].sum(axis=1).astype(int)
        expected = np.mean(
            [sum(poly.newton[m] * comb(v, m) for m in range(7)) for v in s]
        )
        assert est.disjunction(features) == pytest.approx(expected, abs=1e-5)
        truth = np.mean(s >= 1)
        assert abs(est.disjunction(features) - truth) <= poly.uniform_error + 1e-5


def test_sampled_scheme_with_huge_epsilon_has_only_the_sampling_error():
    n, p = 20_000, 5
    X = binary_data(n, p)
    est = KWayMarginalsLDP(epsilon=200.0, k=2, random_state=0).fit(X)
    d = est.n_coordinates_
    # Each conjunction is the mean of a bit over ~n/d users (sd <= 0.5 sqrt(d/n));
    # a 2-way cell combines at most 4 of them: sd <= 2 * 0.5 * sqrt(d / n).
    tolerance = 5 * 2 * 0.5 * np.sqrt(d / n)
    for features in itertools.combinations(range(p), 2):
        error = np.abs(
            est.marginal_table(list(features)) - exact_table(X, list(features))
        )
        assert error.max() < tolerance
    assert est.marginal_table([0, 3]).sum() == pytest.approx(1.0, abs=1e-12)


def test_noise_at_moderate_epsilon_matches_the_predicted_variance():
    n, p, epsilon = 100_000, 5, 1.0
    X = binary_data(n, p, seed=3)
    est = KWayMarginalsLDP(epsilon=epsilon, k=2, random_state=0).fit(X)
    randomizer = est.make_randomizer(p)
    per_coordinate = randomizer.noise_variance(n, unit_variance=1.0)[0]
    sampling = 0.25 * randomizer.n_coordinates / n
    z_scores = []
    for features in itertools.combinations(range(p), 2):
        truth = np.mean(X[:, list(features)].max(axis=1))
        # OR = c_a + c_b - c_ab: three independent coordinate estimates.
        sd = np.sqrt(3 * (per_coordinate + sampling))
        z_scores.append((est.disjunction(list(features)) - truth) / sd)
    # 10 disjunctions, each z ~ N(0, <=1): all within 4.5 (false alarm ~ 1e-4).
    assert np.max(np.abs(z_scores)) < 4.5
    # The predicted scale is not wildly loose either.
    assert np.std(z_scores) > 0.2


# --- input handling and the contract ------------------------------------------


def test_binary_input_handling():
    X = binary_data(500, 4)
    with pytest.raises(ValueError, match="binary"):
        KWayMarginalsLDP(binarize=None).fit(X * 0.5 + 0.25)
    KWayMarginalsLDP(binarize=None, random_state=0).fit(X)
    continuous = np.random.RandomState(0).normal(size=(500, 4))
    a = KWayMarginalsLDP(binarize=0.3, random_state=0).fit(continuous)
    b = KWayMarginalsLDP(binarize=None, random_state=0).fit((continuous > 0.3) * 1.0)
    np.testing.assert_array_equal(a.coefficients_, b.coefficients_)


def test_fit_reports_is_fit_and_refuses_other_configurations():
    X = binary_data(4000, 5)
    est = KWayMarginalsLDP(epsilon=2.0, k=2, random_state=0)
    reports = est.make_randomizer(5).randomize(X, random_state=1)
    server = KWayMarginalsLDP(epsilon=2.0, k=2).fit_reports(reports)
    assert server.n_features_in_ == 5 and server.privacy_epsilon_ == 2.0
    again = KWayMarginalsLDP(epsilon=2.0, k=2).fit_reports(reports)
    np.testing.assert_array_equal(server.coefficients_, again.coefficients_)
    with pytest.raises(ValueError, match="epsilon"):
        KWayMarginalsLDP(epsilon=1.0, k=2).fit_reports(reports)
    with pytest.raises(ValueError, match="k"):
        KWayMarginalsLDP(epsilon=2.0, k=3).fit_reports(reports)


def test_query_validation():
    est = KWayMarginalsLDP(k=2, random_state=0).fit(binary_data(1000, 4))
    with pytest.raises(ValueError, match="at most k = 2"):
        est.marginal_table([0, 1, 2])
    with pytest.raises(ValueError, match="distinct"):
        est.marginal_table([1, 1])
    with pytest.raises(ValueError, match="in \\[0, 4\\)"):
        est.disjunction([0, 7])
    with pytest.raises(ValueError, match="pattern"):
        est.marginal([0, 1], [1, 2])
    tables = est.marginal_tables([[0, 1], [3, 2]])
    assert tables.shape == (2, 2, 2)
    # Axis order follows the requested feature order.
    np.testing.assert_allclose(tables[1], est.marginal_table([2, 3]).T)


def test_fewer_users_than_coordinates_warns():
    with pytest.warns(UserWarning, match="coordinates"):
        KWayMarginalsLDP(k=3, random_state=0).fit(binary_data(50, 8))
