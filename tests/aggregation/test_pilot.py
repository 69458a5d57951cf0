"""Pilot estimates of an oracle's noise and the degree choice of degree='auto'."""

import numpy as np
import pytest

from sklearn_ldp.aggregation import (
    PILOT_USERS,
    PolynomialGradientOracle,
    pilot_point,
    pilot_second_moment,
    pilot_users,
    select_degree,
)


def test_pilot_point_is_on_the_sphere_against_the_gradient():
    gradient = np.array([[3.0, 0.0, -1.0], [4.0, 0.0, 0.0]])
    w = pilot_point(gradient, 2.0)
    np.testing.assert_allclose(np.linalg.norm(w, axis=0), 2.0)
    np.testing.assert_allclose(w[:, 0], [-1.2, -1.6])  # along -gradient
    np.testing.assert_allclose(w[:, 1], np.sqrt(2.0))  # zero column: constant
    np.testing.assert_allclose(pilot_point(np.array([0.0, -2.0]), 0.5), [0.0, 0.5])


def test_pilot_users():
    rng = np.random.RandomState(0)
    users = pilot_users(50_000, rng)
    assert users.size == PILOT_USERS and np.all(np.diff(users) > 0)
    np.testing.assert_array_equal(pilot_users(10, rng), np.arange(10))


def test_pilot_second_moment_is_the_mean_squared_oracle_at_the_pilot():
    rng = np.random.RandomState(1)
    x, y = rng.standard_normal((500, 2)), rng.standard_normal(500)
    oracle = PolynomialGradientOracle(
        x, y, coef=[0.3, 0.5], sigma_x=1.0, sigma_y=1.0, random_state=0
    )
    got = pilot_second_moment(oracle, 1.5, np.random.RandomState(2))
    pilot = pilot_point(oracle.mean(np.zeros(2)), 1.5)
    replay = np.random.RandomState(2)
    users = pilot_users(500, replay)
    values = oracle.per_user(pilot, users, replay)
    assert got == pytest.approx(np.mean(np.sum(values**2, axis=1)))


class _FakeOracle:
    """An oracle whose second moment is a known constant per degree."""

    n_users = 100
    param_shape = (2, 3)

    def __init__(self, second_moment):
        self._second_moment = second_moment

    def mean(self, W):
        return np.ones(self.param_shape)

    def second_moment(self, W, indices, rng):
        assert np.allclose(np.linalg.norm(W, axis=0), 1.0)
        return self._second_moment


def test_select_degree_minimizes_bias_squared_plus_variance():
    # degree: (bias, second moment); score = 3 bias^2 + moment / 100 (3 outputs).
    cases = {1: (0.3, 1.0), 2: (0.1, 10.0), 3: (0.01, 100.0)}

    def make_oracle(degree):
        bias, moment = cases[degree]
        return _FakeOracle(moment), bias

    scores = {d: 3 * b**2 + m / 100 for d, (b, m) in cases.items()}
    best = min(scores, key=scores.get)
    rng = np.random.RandomState(0)
    assert select_degree(make_oracle, [1, 2, 3], radius=1.0, rng=rng) == best == 2
