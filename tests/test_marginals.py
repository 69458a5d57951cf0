"""k-way marginals (seed 001 Algorithm 6): exactness, noise, contract.

The users' randomizer, its OR polynomial and its privacy audits are in
``tests/randomizers/test_marginals.py``.
"""

import itertools
from math import comb

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

from sklearn_ldp import KWayMarginalsLDP
from sklearn_ldp.aggregation import predicted_table_error
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
        k=3,
        method="chebyshev",
        mechanism="full_vector",
        coefficients=coefficients,
        projection=None,
        random_state=0,
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
        method="chebyshev",
        projection=None,
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
    est = KWayMarginalsLDP(
        epsilon=200.0, k=2, method="chebyshev", random_state=0
    ).fit(X)
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
    est = KWayMarginalsLDP(
        epsilon=epsilon, k=2, method="chebyshev", projection=None, random_state=0
    ).fit(X)
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


# --- the Hadamard method and method='auto' ---------------------------------------


def test_exact_parities_give_the_exact_empirical_marginals():
    # The server's Walsh-Hadamard step alone: exact theta_S = mean chi_S(x).
    X = binary_data(3000, 6)
    est = KWayMarginalsLDP(k=3, method="hadamard", projection=None, random_state=0)
    est.fit(X)
    randomizer = est.make_randomizer(6)
    parities = randomizer._unit_vector(randomizer._prepare(X))
    est.coefficients_ = parities.mean(axis=0)
    for features in [[0, 1, 2], [5, 1, 3], [4, 0], [3]]:
        np.testing.assert_allclose(
            est.marginal_table(features), exact_table(X, features), atol=1e-12
        )
    assert est.disjunction([0, 3, 4]) == pytest.approx(
        np.mean(X[:, [0, 3, 4]].max(axis=1)), abs=1e-12
    )


@pytest.mark.parametrize(
    "method, params",
    [("hadamard", {}), ("chebyshev", {}), ("chebyshev", {"mechanism": "duchi"})],
)
def test_predicted_table_variance_matches_the_empirical_variance(method, params):
    # Uniform bits: the reference population of predicted_table_error. Raw
    # (unprojected) tables are unbiased for k <= 3, so their mean squared
    # error over repeated fits is the variance the prediction states.
    n, p, k, epsilon, repeats = 8000, 4, 2, 1.0, 40
    X = (np.random.RandomState(1).uniform(size=(n, p)) < 0.5).astype(float)
    subsets = np.array(list(itertools.combinations(range(p), k)))
    truth = np.array([exact_table(X, list(s)) for s in subsets])
    squared = []
    for seed in range(repeats):
        est = KWayMarginalsLDP(
            epsilon=epsilon, k=k, method=method, projection=None, random_state=seed,
            **params,
        ).fit(X)
        squared.append(((est.marginal_tables(subsets) - truth) ** 2).sum(axis=(1, 2)))
    empirical = np.mean(squared)
    variance, bias = predicted_table_error(est.make_randomizer(p), n)
    assert bias == 0.0
    # 40 x 6 table errors (sums of 4 near-Gaussian cells; tables share
    # coefficients): the mean has relative sd below sqrt(2 / 40) ~ 0.22,
    # so a 3-sd band is [0.35, 1.7]; the partition's finite-population
    # correction (1 - 1/G ~ 0.9) and the slightly negative correlation of
    # balanced groups only make the truth a little smaller.
    assert 0.35 < empirical / variance < 1.7


def test_hadamard_beats_chebyshev_as_predicted():
    # (3^u - 1) / (4 (1 - 2^-u)) at equal mechanism noise: 8/3 at u = 2.
    est = KWayMarginalsLDP(epsilon=1.0, k=2, mechanism="duchi")
    chebyshev = predicted_table_error(est._build_randomizer(6, "chebyshev"), 10**4)
    hadamard = predicted_table_error(est._build_randomizer(6, "hadamard"), 10**4)
    assert chebyshev[0] / hadamard[0] > 2.0
    one_way = KWayMarginalsLDP(epsilon=1.0, k=1, mechanism="duchi")
    a = predicted_table_error(one_way._build_randomizer(6, "chebyshev"), 10**4)[0]
    b = predicted_table_error(one_way._build_randomizer(6, "hadamard"), 10**4)[0]
    assert a == pytest.approx(b, rel=1e-9)  # k = 1: the same protocol


def test_auto_chooses_before_the_users_report_and_the_server_reads_it_back():
    X = binary_data(4000, 5)
    est = KWayMarginalsLDP(epsilon=1.0, k=2, random_state=0).fit(X)
    assert est.method_ == "hadamard"
    for method in ("chebyshev", "hadamard"):
        reports = (
            KWayMarginalsLDP(epsilon=1.0, k=2, method=method)
            .make_randomizer(5)
            .randomize(X, random_state=1)
        )
        server = KWayMarginalsLDP(epsilon=1.0, k=2).fit_reports(reports)
        assert server.method_ == method
    # The other method's server refuses them.
    with pytest.raises(ValueError, match="differs"):
        KWayMarginalsLDP(epsilon=1.0, k=2, method="chebyshev").fit_reports(reports)
    # With an approximate polynomial the bias is compared with the noise: n needed.
    with pytest.raises(ValueError, match="n_users"):
        KWayMarginalsLDP(k=6, gamma=0.2).make_randomizer(8)
    assert KWayMarginalsLDP(k=6, gamma=0.2).make_randomizer(8, n_users=10**5)


def test_hadamard_fit_is_accurate_and_tables_are_distributions():
    n, p = 50_000, 6
    X = binary_data(n, p, seed=4)
    est = KWayMarginalsLDP(epsilon=2.0, k=3, method="hadamard", random_state=0).fit(X)
    # Each parity mean: variance <= G B^2 / n; a cell: 2^-u times 7 of them.
    B2 = 1.0 / np.tanh(1.0) ** 2
    sd = np.sqrt(7 * est.n_coordinates_ * B2 / n) / 8
    for features in itertools.combinations(range(p), 3):
        table = est.marginal_table(list(features))
        assert table.min() >= 0 and table.sum() == pytest.approx(1.0)
        assert np.abs(table - exact_table(X, list(features))).max() < 5 * sd


# --- score, GridSearchCV and every epsilon -----------------------------------


def test_score_is_minus_the_mean_squared_error_of_the_k_way_tables():
    X = binary_data(20_000, 4)
    held_out = binary_data(5_000, 4, seed=9)
    est = KWayMarginalsLDP(epsilon=1.0, k=2, random_state=0).fit(X)
    subsets = np.array(list(itertools.combinations(range(4), 2)))
    expected = -np.mean(
        [
            (est.marginal_table(list(s)) - exact_table(held_out, list(s))) ** 2
            for s in subsets
        ]
    )
    assert est.score(held_out) == pytest.approx(expected, rel=1e-12)
    assert est.score(held_out) <= 0
    more_private = KWayMarginalsLDP(epsilon=0.1, k=2, random_state=0).fit(X)
    assert more_private.score(held_out) < est.score(held_out)


def test_grid_search_over_epsilon():
    X = binary_data(6_000, 4)
    search = GridSearchCV(
        KWayMarginalsLDP(k=2, random_state=0), {"epsilon": [0.5, 2]}
    ).fit(X)
    assert search.best_params_ == {"epsilon": 2}
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


@pytest.mark.parametrize("epsilon", [1e-9, 1e-3, 1e6, 1e9])
@pytest.mark.parametrize("method", ["hadamard", "chebyshev"])
def test_every_epsilon_gives_distributions_or_names_the_range(epsilon, method):
    X = binary_data(3000, 4)
    est = KWayMarginalsLDP(epsilon=epsilon, k=2, method=method, random_state=0)
    if method == "chebyshev" and epsilon < 1e-8:
        with pytest.raises(ValueError, match=r"epsilon = 1e-09.*usable range"):
            est.fit(X)
        est.set_params(mechanism="duchi")  # randomized response: any epsilon
    est.fit(X)
    tables = est.marginal_tables(np.array(list(itertools.combinations(range(4), 2))))
    assert np.all(np.isfinite(tables))
    assert tables.min() >= 0.0 and tables.max() <= 1.0
    np.testing.assert_allclose(tables.sum(axis=(1, 2)), 1.0)
    assert 0 < est.privacy_epsilon_ <= epsilon
    if epsilon >= 1e6:  # run at the mechanism's cap, which the attribute reports
        assert est.privacy_epsilon_ < 100
        error = np.abs(tables[0] - exact_table(X, [0, 1])).max()
        assert error < 5 * 0.5 * np.sqrt(est.n_coordinates_ * 3 / 3000)
    assert np.isfinite(est.score(X))


def test_single_user_bad_values_and_non_binary_records():
    one = binary_data(1, 4)
    with pytest.warns(UserWarning, match="only 1 users"):
        est = KWayMarginalsLDP(k=2, random_state=0).fit(one)
    table = est.marginal_table([0, 1])
    assert np.all(np.isfinite(table)) and table.sum() == pytest.approx(1.0)
    X = binary_data(100, 4)
    for bad in (np.nan, np.inf):
        X_bad = X.copy()
        X_bad[3, 1] = bad
        with pytest.raises(ValueError, match="NaN|infinity"):
            KWayMarginalsLDP(k=2).fit(X_bad)
    with pytest.raises(ValueError, match="binary records"):
        KWayMarginalsLDP(k=2, binarize=None, method="hadamard").fit(X + 0.5)
    est = KWayMarginalsLDP(k=2, binarize=None, random_state=0).fit(X)
    with pytest.raises(ValueError, match="binary records"):
        est.score(X * 3)


def test_predicted_bias_is_the_exact_bias_for_uniform_records():
    # Every pattern of 5 bits once: exactly the uniform reference population.
    X = np.array(list(itertools.product([0, 1], repeat=5)), dtype=float)
    est = KWayMarginalsLDP(
        k=5, gamma=0.2, method="chebyshev", mechanism="full_vector", projection=None
    )
    est.fit_reports(noise_free_reports(est, X))
    assert est.polynomial_.degree < 5  # approximate: biased
    error = est.marginal_table(list(range(5))) - exact_table(X, list(range(5)))
    _, squared_bias = predicted_table_error(est.make_randomizer(5, n_users=32), 32)
    assert squared_bias > 1e-4
    assert np.sum(error**2) == pytest.approx(squared_bias, rel=1e-9)


def test_auto_takes_the_shorter_chebyshev_vector_when_it_is_predicted_better():
    # p = 30, k = 6: 768,211 parities against 31,930 Chebyshev coordinates
    # (degree 4 < k): lower variance for a small bias.
    est = KWayMarginalsLDP(epsilon=1.0, k=6, gamma=0.2)
    randomizer = est.make_randomizer(30, n_users=10**6)
    assert type(randomizer).__name__ == "MarginalRandomizer"
