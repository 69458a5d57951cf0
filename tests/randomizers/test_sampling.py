"""The client's random words and lattice samplers."""

import numpy as np
import pytest
from scipy.stats import chisquare, norm

from sklearn_ldp.randomizers._sampling import (
    NoiseSource,
    check_client_random_state,
    discrete_laplace,
    lattice_granularity,
    on_lattice,
    rounded_gaussian,
    to_lattice,
)


def test_secure_source_ignores_numpy_global_state():
    np.random.seed(0)  # noqa: NPY002 (the global state under test)
    a = NoiseSource().words(4)
    np.random.seed(0)  # noqa: NPY002 (the global state under test)
    b = NoiseSource().words(4)
    assert not np.array_equal(a, b)
    assert check_client_random_state(None).secure


def test_seeded_sources_are_reproducible_and_apart_from_randomstate():
    a = check_client_random_state(7).words(8)
    np.testing.assert_array_equal(a, check_client_random_state(7).words(8))
    legacy = np.random.RandomState(7).randint(0, 2**32, size=8, dtype=np.uint64)
    assert not np.isin(a >> np.uint64(32), legacy).any()
    source = check_client_random_state(7)
    assert not np.array_equal(source.public().words(8), a)


@pytest.mark.parametrize("state", [np.random.RandomState(1), np.random.default_rng(1)])
def test_instances_seed_a_pcg_stream(state):
    source = check_client_random_state(state)
    assert not source.secure
    with pytest.raises(ValueError, match="random_state must be"):
        check_client_random_state("seed")


def test_uniform_integers_and_bernoulli():
    source = check_client_random_state(0)
    values = source.integers(7, 70_000)
    counts = np.bincount(values, minlength=7)
    assert values.min() == 0 and values.max() == 6
    assert chisquare(counts).pvalue > 1e-4
    bits = source.bernoulli(np.full(200_000, 0.3))
    # Binomial standard error: sqrt(0.21 / 2e5) = 1e-3.
    assert abs(bits.mean() - 0.3) < 5e-3
    assert source.bernoulli(np.array([0.0, 1.0])).tolist() == [False, True]


def test_rounded_gaussian_probabilities_and_variance():
    scale = 300.0
    sampler = rounded_gaussian(scale)
    p = sampler.probabilities()
    j = np.arange(sampler.support[0], sampler.support[1] + 1)
    exact = norm.cdf((j + 0.5) / scale) - norm.cdf((j - 0.5) / scale)
    assert np.max(np.abs(p - exact)) < 1e-15
    assert sampler.tv_bound < 1e-13
    assert sampler.variance() == pytest.approx(scale**2 + 1 / 12, rel=1e-9)
    draws = sampler.sample(check_client_random_state(0), 200_000)
    # Standard error of the sample variance: sqrt(2 / n) relative = 0.3%.
    assert np.var(draws) == pytest.approx(scale**2, rel=0.015)
    assert abs(draws.mean()) < 5 * scale / np.sqrt(200_000)
    with pytest.raises(ValueError, match="scale >= 256"):
        rounded_gaussian(10.0)


def test_discrete_laplace_is_the_clamped_two_sided_geometric():
    decay, m = 0.01, 2000
    sampler = discrete_laplace(decay, m)
    p = sampler.probabilities()
    q = np.exp(-decay)
    j = np.arange(-m, m + 1)
    ideal = (1 - q) / (1 + q) * q ** np.abs(j)
    ideal[0] = ideal[-1] = q**m / (1 + q)
    assert np.max(np.abs(p / ideal - 1)) <= sampler.max_relative_error
    # Dominated by the 2**-64 resolution at the smallest probability.
    assert sampler.max_relative_error < 2 * 2.0**-64 / ideal.min() + 1e-14
    # Ratio of neighbouring probabilities is exactly the ideal one up to that error.
    ratios = p[m + 1 : -2] / p[m:-3]
    np.testing.assert_allclose(ratios, q, rtol=3 * sampler.max_relative_error)


def test_lattice_helpers():
    g = lattice_granularity(3.0, cells=4096)
    assert 3.0 / g >= 4096 and 3.0 / g < 8192 and np.log2(g) == int(np.log2(g))
    x = to_lattice(np.array([0.1, -2.7, 1e-9]), g)
    assert on_lattice(x, g).all()
    assert not on_lattice(np.array([g / 3]), g).any()
    assert not on_lattice(np.array([np.nan]), g).any()
