"""The exact attack of issue 17 on Gaussian reports: "reachable from the zero record".

An observer who sees one report asks whether the all-zero record could have
produced it. With float noise (``x + sigma * standard_normal``) the answer
is an exact computation on doubles, and for most users it is "no": the low
bits of the report exclude the zero record, whatever the privacy budget
says. On the lattice every report of an in-bounds user is a multiple of
the public granularity inside the zero record's own support, so the test
distinguishes nothing.
"""

import numpy as np

from sklearn_ldp.randomizers import (
    GaussianRecordRandomizer,
    clip_l2,
    on_lattice,
    rounded_gaussian,
)

N_USERS = 100_000


def deployment_randomizer():
    return GaussianRecordRandomizer(5, epsilon=1.0, delta=1e-6, y_bound=1.0)


def in_bounds_users(n, rng):
    """Records inside the public bounds (clipping is the identity on them)."""
    X = rng.standard_normal((n, 5))
    X *= rng.uniform(0.0, 1.0, (n, 1)) / np.linalg.norm(X, axis=1, keepdims=True)
    return X, rng.uniform(-1.0, 1.0, n)


def float_twin(rand, X, y, rng):
    """The randomizer before issue 17: float Gaussian noise added to the clipped record."""
    x = clip_l2(X, rand.data_norm)
    return (
        x + rand.sigma_x * rng.standard_normal(x.shape),
        y + rand.sigma_y * rng.standard_normal(y.shape),
    )


def reachable_by_float_noise(values, sigma):
    """Whether ``0 + sigma * n`` equals ``values`` for some double ``n``.

    ``fl(sigma n)`` is monotone in ``n``, and a preimage lies within half an
    ulp of ``values / sigma`` relative: three doubles either side of
    ``fl(values / sigma)`` cover it.
    """
    center = values / sigma
    reached = np.zeros(values.shape, dtype=bool)
    up, down = center.copy(), center.copy()
    reached |= sigma * center == values
    for _ in range(3):
        up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
        reached |= (sigma * up == values) | (sigma * down == values)
    return reached


def reachable_by_lattice_noise(values, step, half_width):
    """Whether the zero record can produce ``values``: on ``step Z``, within ``K step``."""
    return on_lattice(values, step) & (np.abs(values) <= half_width * step)


def zero_record_half_width(sigma, step):
    """``K``: the rounded Gaussian sampler of std ``sigma`` on ``step Z`` draws in ``[-K, K]``."""
    return rounded_gaussian(np.sqrt((sigma / step) ** 2 - 1.0 / 12.0)).support[1]


def test_no_in_bounds_report_excludes_the_zero_record():
    rand = deployment_randomizer()
    X, y = in_bounds_users(N_USERS, np.random.RandomState(0))
    reports = rand.randomize(X, y, random_state=1)
    # Every number is a multiple of the public granularity of the config.
    assert reports.config["granularity"] == rand.granularity
    assert np.all(on_lattice(reports.as_matrix(), reports.config["granularity"]))
    reachable = np.column_stack(
        [
            reachable_by_lattice_noise(
                reports[name].reshape(N_USERS, -1),
                step,
                zero_record_half_width(sigma, step),
            )
            for name, sigma, step in [
                ("x", rand.sigma_x, rand.granularity_x),
                ("y", rand.sigma_y, rand.granularity_y),
            ]
        ]
    )
    assert reachable.shape == (N_USERS, 6)
    assert reachable.all(), f"{(~reachable.all(axis=1)).sum()} users exposed"


def test_the_float_twin_exposes_most_users():
    # The check above can fail: the same attack on float noise excludes the
    # zero record for most users.
    rand = deployment_randomizer()
    rng = np.random.RandomState(0)
    X, y = in_bounds_users(N_USERS, rng)
    x, v = float_twin(rand, X, y, rng)
    reachable = np.column_stack(
        [
            reachable_by_float_noise(x, rand.sigma_x),
            reachable_by_float_noise(v, rand.sigma_y),
        ]
    )
    exposed = ~reachable.all(axis=1)
    assert exposed.mean() > 0.5
    # ... while the zero record's own float reports are all reachable.
    x0, v0 = float_twin(rand, np.zeros((1000, 5)), np.zeros(1000), rng)
    assert reachable_by_float_noise(x0, rand.sigma_x).all()
    assert reachable_by_float_noise(v0, rand.sigma_y).all()
