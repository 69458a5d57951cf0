"""LocalBernsteinRegressor (seed 001, Algorithms 2-3): accuracy, contract, inputs.

The users' randomizer is tested in ``tests/randomizers/test_bernstein.py``,
the polynomial in ``tests/aggregation/test_bernstein_operator.py`` and its
minimizer in ``tests/optim/test_bernstein.py``.
"""

import pickle

import numpy as np
import pytest
from scipy.optimize import minimize

from sklearn_ldp import LocalBernsteinRegressor
from sklearn_ldp.aggregation import bernstein_coefficients, evaluate_bernstein
from sklearn_ldp.aggregation import lebesgue_constant as lebesgue
from sklearn_ldp.randomizers import Reports


def linear_data(n, seed=0, noise=0.3):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, 1))
    y = np.clip(0.5 * X[:, 0] + 0.1 + noise * rng.randn(n), -1.0, 1.0)
    return X, y


def squared_risk(w, X, y):
    return np.mean((y - X @ w[:-1] - w[-1]) ** 2)


def exact_risk(W, X, y):
    """Mean squared loss at each row of W = (slopes, intercept), in closed form."""
    Z = np.c_[X, np.ones(len(X))]
    gram, moment = Z.T @ Z / len(X), Z.T @ y / len(X)
    return y @ y / len(X) - 2 * W @ moment + np.einsum("ij,jk,ik->i", W, gram, W)


def true_grid_values(randomizer, X, y, groups):
    """Mean normalized loss of the users of each grid point (no noise)."""
    Xc, yc = randomizer.clip_record(X, y)
    losses = randomizer.normalized_loss(Xc, yc, groups)
    counts = np.bincount(groups, minlength=randomizer.n_grid)
    return np.bincount(groups, weights=losses, minlength=randomizer.n_grid) / counts


# --------------------------------------------------------------- the estimator


def uniform_error_bound(est, reports, X, y, fine=201):
    """High-probability bound on sup_t |private polynomial - normalized risk|.

    Proof of Theorem 17: the polynomial is linear in the grid values, so
    sup |P - L| <= sup |B^(h) L - L| + Lambda_h^q * max_g |noise_g|. Here
    B^(h) L is computed exactly from the clean grid values, the sampling part
    of the noise (group mean versus all users) exactly from the public
    partition, and the mechanism part is bounded by 4.5 standard deviations
    (from the documented variance at the worst value in [0, 1]) at every
    grid point, which fails with probability < G * 7e-6.
    """
    rand = est._expected_randomizer(reports)
    bound, degree, order = rand.loss_bound, est.degree_, est.iterated_order
    clean = exact_risk(rand.grid_points(), X, y) / bound
    coef = bernstein_coefficients(clean.reshape(degree + 1, degree + 1), order)
    t = np.stack(np.meshgrid(*[np.linspace(0, 1, fine)] * 2, indexing="ij"), -1)
    t = t.reshape(-1, 2)
    approx = np.abs(evaluate_bernstein(coef, t) - exact_risk(-1 + 2 * t, X, y) / bound)
    worst = rand.scalar_mechanism.variance(np.linspace(0, 1, 11)).max()
    if rand.mechanism == "full_grid":
        sampling, users = 0.0, len(X)
    else:
        groups = reports["group"]
        sampling = np.abs(true_grid_values(rand, X, y, groups) - clean).max()
        users = np.bincount(groups, minlength=rand.n_grid).min()
    noise = sampling + 4.5 * np.sqrt(worst / users)
    return approx.max() + lebesgue(degree, order) ** 2 * noise


@pytest.mark.parametrize(
    "mechanism, epsilon, n, degree",
    [("piecewise", 8.0, 200_000, 8), ("full_grid", 1e6, 50_000, 12)],
)
def test_close_to_nonprivate_minimizer_with_derived_tolerance(
    mechanism, epsilon, n, degree
):
    """Large epsilon and n: excess risk and ||coef - w*|| within derived bounds.

    The excess normalized risk is at most twice the uniform error
    (:func:`uniform_error_bound`), and the risk is strongly convex with
    Hessian H = 2 E[z z^T], z = (x, 1), so ||w - w*||^2 <= 2 excess / lambda_min(H).
    With 'full_grid' at a huge epsilon, the 64-bit lattice Laplace caps each
    of the 169 grid values near epsilon = 20 (beyond, its smallest
    probability nears 2^-64; the estimator states the smaller epsilon it
    provides): that noise, not the Bernstein approximation (h = 3), sets
    the radius, which must still be informative (below 0.5 in a box of
    width 2; it was 0.1 with float noise of epsilon 1e6 / 169).
    """
    X, y = linear_data(n, seed=2)
    est = LocalBernsteinRegressor(
        epsilon=epsilon, degree=degree, iterated_order=3, mechanism=mechanism
    )
    rand = est.make_randomizer(1)
    reports = rand.randomize(X, y, random_state=0)
    est.fit_reports(reports)
    w_star = minimize(squared_risk, np.zeros(2), args=(X, y), bounds=[(-1, 1)] * 2).x
    excess_bound = 2 * uniform_error_bound(est, reports, X, y) * rand.loss_bound
    w = np.r_[est.coef_, est.intercept_]
    excess = squared_risk(w, X, y) - squared_risk(w_star, X, y)
    assert excess <= excess_bound
    Z = np.c_[X, np.ones(n)]
    radius = np.sqrt(2 * excess_bound / np.linalg.eigvalsh(2 * Z.T @ Z / n).min())
    assert np.linalg.norm(w - w_star) <= radius
    if mechanism == "full_grid":
        assert radius < 0.5  # the bound is informative
        assert est.privacy_epsilon_ < epsilon


def test_uniform_error_shrinks_with_n_as_fast_as_seed_bound_for_h1():
    # Theorem 17 bounds sup_w |private risk - L(w)| by O(n^(-h / (2 (h + q))))
    # (h = 1, q = 2: n^(-1/6)), with k chosen as degree='auto' does; 64x more
    # users must at least halve it (64^(-1/6) = 0.5). Mean of 3 seeds each,
    # the sup taken on a 41 x 41 grid of the box.
    grid = np.linspace(-1, 1, 41)
    W = np.stack(np.meshgrid(grid, grid, indexing="ij"), -1).reshape(-1, 2)

    def mean_sup_error(n):
        X, y = linear_data(n, seed=3)
        risk = exact_risk(W, X, y)
        errors = []
        for seed in range(3):
            est = LocalBernsteinRegressor(
                epsilon=2.0, iterated_order=1, random_state=seed
            )
            errors.append(np.abs(est.fit(X, y).private_risk(W) - risk).max())
        return np.mean(errors)

    assert mean_sup_error(256_000) <= 0.5 * mean_sup_error(4_000)


def test_fit_equals_make_randomizer_randomize_fit_reports():
    X, y = linear_data(5000)
    est = LocalBernsteinRegressor(epsilon=2.0, random_state=0).fit(X, y)
    server = LocalBernsteinRegressor(epsilon=2.0, random_state=0)
    rand = server.make_randomizer(1, n_users=5000)
    reports = rand.randomize(X, y, random_state=0)
    server.fit_reports(reports)
    np.testing.assert_array_equal(server.coef_, est.coef_)
    assert server.intercept_ == est.intercept_
    assert server.degree_ == est.degree_
    assert not hasattr(server, "feature_names_in_")
    # Two batches with the same announced configuration concatenate.
    rand = server._build_randomizer(1, degree=3)
    batches = [
        rand.randomize(X[:2500], y[:2500], 1),
        rand.randomize(X[2500:], y[2500:], 2),
    ]
    server.fit_reports(Reports.concatenate(batches))
    assert server.degree_ == 3  # degree='auto' takes the announced degree
    with pytest.raises(ValueError, match="epsilon"):
        LocalBernsteinRegressor(epsilon=1.0).fit_reports(reports)
    with pytest.raises(ValueError, match="degree"):
        LocalBernsteinRegressor(epsilon=2.0, degree=7).fit_reports(reports)


def test_auto_degree_needs_the_number_of_users():
    with pytest.raises(ValueError, match="n_users"):
        LocalBernsteinRegressor().make_randomizer(2)
    small = LocalBernsteinRegressor().make_randomizer(1, n_users=100).degree
    large = (
        LocalBernsteinRegressor(epsilon=8.0).make_randomizer(1, n_users=10**6).degree
    )
    assert 1 <= small < large


def test_callable_loss_matches_builtin():
    def squared(W, X, y):
        return (y[None, :] - W[:, :1] @ X.T - W[:, 1:2]) ** 2

    X, y = linear_data(3000)
    # Laplace draws one array per chunk, so the noise does not depend on the
    # (smaller) chunks a callable loss is evaluated in.
    kwargs = dict(degree=4, epsilon=4.0, mechanism="laplace", random_state=0)
    builtin = LocalBernsteinRegressor(**kwargs).fit(X, y)
    custom = LocalBernsteinRegressor(loss=squared, loss_bound=9.0, **kwargs).fit(X, y)
    np.testing.assert_allclose(custom.grid_risk_, builtin.grid_risk_, atol=1e-12)
    np.testing.assert_allclose(custom.coef_, builtin.coef_, atol=1e-9)
    with pytest.raises(ValueError, match="loss_bound"):
        LocalBernsteinRegressor(loss=squared).fit(X, y)


@pytest.mark.parametrize("loss", ["absolute", "huber"])
def test_robust_losses_fit(loss):
    X, y = linear_data(100_000, noise=0.1)
    est = LocalBernsteinRegressor(
        loss=loss, huber_delta=0.2, epsilon=8.0, random_state=0
    ).fit(X, y)
    # The true line (0.5, 0.1) minimizes both population risks.
    np.testing.assert_allclose(est.coef_, [0.5], atol=0.15)
    assert abs(est.intercept_ - 0.1) < 0.15


def test_private_risk_and_attributes():
    X, y = linear_data(20_000)
    est = LocalBernsteinRegressor(epsilon=4.0, fit_intercept=False, random_state=0)
    est.fit(X, y)
    assert est.intercept_ == 0.0 and est.grid_risk_.ndim == 1
    assert est.n_grid_points_ == est.degree_ + 1
    risk = est.private_risk(np.array([[est.coef_[0]], [-1.0]]))
    assert risk.shape == (2,) and risk[0] <= risk[1]
    assert est.privacy_epsilon_ == 4.0 and est.privacy_delta_ == 0.0
    np.testing.assert_allclose(est.predict(X), X @ est.coef_)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict(X), est.predict(X))


def test_more_grid_points_than_users_warns_with_advice():
    X = np.random.RandomState(0).uniform(-1, 1, size=(50, 3))
    with pytest.warns(UserWarning, match="Lower degree"):
        LocalBernsteinRegressor(degree=2, random_state=0).fit(X, X[:, 0])


def test_bad_input():
    X, y = linear_data(100)
    with pytest.raises(ValueError, match="NaN|infinity"):
        LocalBernsteinRegressor().fit(np.r_[X[:-1], [[np.nan]]], y)
    with pytest.raises(ValueError, match="epsilon"):
        LocalBernsteinRegressor(epsilon=0.0).fit(X, y)
    with pytest.raises(ValueError, match="mechanism"):
        LocalBernsteinRegressor(mechanism="gauss").fit(X, y)
    with pytest.raises(ValueError, match="coef_bounds"):
        LocalBernsteinRegressor(coef_bounds=[[0, 1, 2], [1, 2, 3]]).fit(X, y)
    with pytest.raises(ValueError, match="coef_bounds"):
        LocalBernsteinRegressor(coef_bounds=(1.0, -1.0)).fit(X, y)
    with pytest.raises(ValueError, match="Lower degree"):
        LocalBernsteinRegressor(degree=64).fit(np.c_[X, X, X, X], y)
    with pytest.raises(ValueError, match="full_grid"):
        LocalBernsteinRegressor(mechanism="full_grid", degree=64).fit(
            np.tile(np.c_[X, X], (6, 1)), np.tile(y, 6)
        )
    with pytest.raises(TypeError, match="Reports"):
        LocalBernsteinRegressor().fit_reports(X)
