"""The audit itself: it must pass honest mechanisms and catch dishonest ones."""

import numpy as np
import pytest
from scipy.stats import beta

from sklearn_ldp.utils import audit_samples, check_bound, check_delta, check_epsilon
from sklearn_ldp.utils._audit import _clopper_pearson


def test_clopper_pearson_matches_scipy():
    lower, upper = _clopper_pearson(np.array([0, 5, 10]), 10, 0.025)
    assert lower[0] == 0.0 and upper[-1] == 1.0
    assert lower[1] == pytest.approx(beta.ppf(0.025, 5, 6))
    assert upper[1] == pytest.approx(beta.ppf(0.975, 6, 5))


def test_identical_distributions_pass():
    rng = np.random.RandomState(0)
    a, b = rng.standard_normal(100_000), rng.standard_normal(100_000)
    result = audit_samples(a, b, 0.01, 0.0, np.linspace(-3, 3, 25))
    assert result.passed and result.epsilon_lower_bound < 0.05


def test_randomized_response_at_its_exact_epsilon():
    """Randomized response with p = e^eps / (1 + e^eps) is exactly eps-DP."""
    rng = np.random.RandomState(1)
    eps, n = 1.0, 400_000
    p = np.exp(eps) / (1 + np.exp(eps))
    a = (rng.random_sample(n) < p).astype(float)
    b = (rng.random_sample(n) < 1 - p).astype(float)
    assert audit_samples(a, b, eps, 0.0, [0.5]).passed
    result = audit_samples(a, b, 0.9 * eps, 0.0, [0.5])
    assert not result.passed and result.epsilon_lower_bound > 0.95


def test_delta_absorbs_a_rare_catastrophe():
    """A mechanism that reveals the input with probability 1e-3 needs delta >= 1e-3."""
    rng = np.random.RandomState(2)
    n = 400_000
    leak_a = rng.random_sample(n) < 1e-2
    a = np.where(leak_a, 10.0, rng.standard_normal(n) * 0.01)
    b = rng.standard_normal(n) * 0.01
    assert not audit_samples(a, b, 1.0, 1e-3, [5.0]).passed
    assert audit_samples(a, b, 1.0, 2e-2, [5.0]).passed


def test_parameter_checks():
    assert check_epsilon(np.float32(2.0)) == 2.0
    assert check_delta(0) == 0.0
    for bad in [0, -1, np.nan, np.inf]:
        with pytest.raises(ValueError):
            check_epsilon(bad)
        with pytest.raises(ValueError):
            check_bound(bad)
    with pytest.raises(TypeError):
        check_epsilon(True)
    with pytest.raises(ValueError):
        check_delta(1.0)
    with pytest.raises(ValueError):
        check_delta(0.0, allow_zero=False)
