"""Noise, server and public-seed streams are reproducible and independent."""

import numpy as np
import pytest

from sklearn_ldp.randomizers import chunk_rows
from sklearn_ldp.utils import (
    check_noise_random_state,
    check_server_random_state,
    public_seed,
    warn_few_users,
)


def test_integer_seed_streams_are_distinct_and_reproducible():
    data = np.random.RandomState(3).standard_normal(50)
    noise = check_noise_random_state(3).standard_normal(50)
    server = check_server_random_state(3).standard_normal(50)
    assert not np.any(np.isclose(data, noise))
    assert not np.any(np.isclose(noise, server))
    np.testing.assert_array_equal(
        server, check_server_random_state(3).standard_normal(50)
    )


def test_instances_are_shared_not_copied():
    rng = np.random.RandomState(0)
    assert check_noise_random_state(rng) is rng
    assert check_server_random_state(rng) is rng


def test_public_seed():
    assert public_seed(5, tag=7) == public_seed(5, tag=7)
    assert public_seed(5, tag=7) != public_seed(5, tag=8)
    assert public_seed(5, tag=7) != public_seed(6, tag=7)
    seeds = {public_seed(None, tag=7) for _ in range(5)}
    assert len(seeds) == 5  # fresh OS entropy
    assert all(0 <= s < 2**31 for s in seeds)
    rng = np.random.RandomState(0)
    assert public_seed(rng, tag=1) != public_seed(rng, tag=1)  # drawn from it


def test_chunk_rows():
    assert chunk_rows(1) == 65_536
    assert chunk_rows(2**12) == 2**10
    assert chunk_rows(2**30) == 1
    assert chunk_rows(0) == 65_536


def test_warn_few_users():
    with pytest.warns(UserWarning, match="10 grid points but there are only 4 users"):
        assert warn_few_users(4, 10, cells="grid points", advice="Collect more.")
    assert not warn_few_users(10, 10, cells="grid points", advice="")


def test_none_never_uses_numpy_global_state():
    np.random.seed(0)  # noqa: NPY002 (the global state under test)
    a = check_noise_random_state(None).standard_normal(3)
    b = check_server_random_state(None).standard_normal(3)
    np.random.seed(0)  # noqa: NPY002 (the global state under test)
    assert not np.array_equal(a, check_noise_random_state(None).standard_normal(3))
    assert not np.array_equal(b, check_server_random_state(None).standard_normal(3))
    assert check_noise_random_state(None) is not np.random.mtrand._rand
