"""Lattice mechanisms against the continuous float ones: noise variance and speed.

Every report the library sends lies on a public lattice and is drawn from
the operating system's CSPRNG (or a seeded PCG64 stream in simulations),
because float noise leaks the input through its low bits (Mironov 2012). This
benchmark measures what that costs, for each mechanism at epsilon 0.5 to 8:

- **variance**: the variance of one released value under the lattice
  mechanism (exact, from the randomizer: the rounded Gaussian's released
  ``sigma_x^2``; the scalar mechanisms' ``variance()`` at the input 0 and at
  the interval's end) over the continuous mechanism's closed-form variance
  (analytic Gaussian for the same sensitivity and joint calibration;
  ``2 b^2`` for Laplace; ``B^2 - t^2`` for Duchi; the piecewise formula;
  ``v^2 + 4 / eps0^2`` for Bassily-Smith);
- **time**: randomizing 1e6 users (the Gaussian record randomizer: 1e6 x 20
  features plus the target) with a seeded stream, and with the secure one,
  over the time of the continuous float mechanism written with numpy's legacy
  ``RandomState`` (what the library did before), median of 5 interleaved runs
  (continuous, seeded, secure in turn, so that the three see the same load).

Run ``python -m benchmarks.bench_lattice [--quick]``.
"""

import time
from functools import partial

import numpy as np

from benchmarks._harness import Benchmark, Report, main
from sklearn_ldp.accounting import bassily_smith_epsilon, joint_gaussian_sigmas
from sklearn_ldp.randomizers import (
    BassilySmithMechanism,
    DuchiMechanism,
    GaussianRecordRandomizer,
    LaplaceMechanism,
    PiecewiseMechanism,
    clip_l2,
)

EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0)
DELTA = 1e-7


def continuous_variance(name, epsilon, t):
    """Closed-form variance of the continuous mechanism at the unit-scale input t."""
    if name == "laplace":
        return 2.0 * (2.0 / epsilon) ** 2  # interval [-1, 1]: b = 2 / eps
    if name == "duchi":
        bound = (np.exp(epsilon) + 1.0) / np.expm1(epsilon)
        return bound**2 - t**2
    if name == "piecewise":
        half_m1 = np.expm1(epsilon / 2.0)
        return t**2 / half_m1 + (half_m1 + 4.0) / (3.0 * half_m1**2)
    eps0 = bassily_smith_epsilon(epsilon)  # on [0, 1]: v = (t + 1) / 2
    v = 0.5 * (t + 1.0)
    return 4.0 * (v**2 + 4.0 / eps0**2)  # interval of width 2


SCALAR = {
    "laplace": lambda e: LaplaceMechanism(e, -1.0, 1.0),
    "duchi": lambda e: DuchiMechanism(e, -1.0, 1.0),
    "piecewise": lambda e: PiecewiseMechanism(e, -1.0, 1.0),
    "bassily_smith": lambda e: BassilySmithMechanism(e, -1.0, 1.0),
}


def variance_rows(epsilons):
    rows = []
    for epsilon in epsilons:
        for d in (2, 10, 30):
            lattice = GaussianRecordRandomizer(
                d, epsilon=epsilon, delta=DELTA, y_bound=1.0
            )
            continuous = joint_gaussian_sigmas(epsilon, DELTA, [2.0, 2.0])[0]
            rows.append(
                {
                    "mechanism": f"gaussian record, d={d}",
                    "epsilon": epsilon,
                    "input": "any",
                    "continuous": continuous**2,
                    "lattice": float(lattice.sigma_x) ** 2,
                    "ratio": (float(lattice.sigma_x) / continuous) ** 2,
                }
            )
        for name, make in SCALAR.items():
            mech = make(epsilon)
            for t in (0.0, 1.0):
                lattice = float(mech.variance(np.array(t)))
                reference = continuous_variance(name, epsilon, t)
                rows.append(
                    {
                        "mechanism": name,
                        "epsilon": epsilon,
                        "input": t,
                        "continuous": reference,
                        "lattice": lattice,
                        "ratio": lattice / reference,
                    }
                )
    return rows


def _float_gaussian(X, y, sigma_x, sigma_y, rs):
    out = np.empty_like(X)
    out_y = np.empty_like(y)
    for start in range(0, X.shape[0], 65_536):
        rows = slice(start, start + 65_536)
        out[rows] = clip_l2(X[rows], 1.0) + sigma_x * rs.standard_normal(X[rows].shape)
        out_y[rows] = np.clip(y[rows], -1.0, 1.0) + sigma_y * rs.standard_normal(
            y[rows].shape
        )
    return out, out_y


def _float_scalar(name, values, epsilon, rs):
    if name == "laplace":
        return values + rs.laplace(0.0, 2.0 / epsilon, size=values.shape)
    if name == "duchi":
        p = 0.5 + 0.5 * values * np.tanh(epsilon / 2.0)
        return np.where(rs.random_sample(values.shape) < p, 1.0, -1.0)
    if name == "piecewise":
        half = np.exp(epsilon / 2.0)
        C = (half + 1.0) / (half - 1.0)
        left = 0.5 * (C + 1.0) * values - 0.5 * (C - 1.0)
        central = rs.random_sample(values.shape) < half / (half + 1.0)
        inside = left + (C - 1.0) * rs.random_sample(values.shape)
        u = (C + 1.0) * rs.random_sample(values.shape)
        outside = np.where(u < left + C, -C + u, left + C - 1.0 + (u - (left + C)))
        return np.where(central, inside, outside)
    eps0 = bassily_smith_epsilon(epsilon)
    v = 0.5 * (values + 1.0)
    z = rs.laplace(0.0, 1.0 / eps0, size=v.shape)
    prob = 0.5 * np.exp(eps0 * (np.abs(z) - np.abs(z - v)))
    return np.stack([z, (rs.random_sample(v.shape) < prob).astype(float)], axis=-1)


def _seconds(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _interleaved_medians(fns, repeats):
    """Median wall time of each of ``fns``, run in turn ``repeats`` times (same load)."""
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, spent in zip(fns, times, strict=True):
            spent.append(_seconds(fn))
    return [float(np.median(spent)) for spent in times]


def speed_rows(n, repeats, epsilon=1.0):
    rng = np.random.RandomState(0)
    X = rng.uniform(-1.0, 1.0, size=(n, 20)) / np.sqrt(20)
    y = rng.uniform(-1.0, 1.0, size=n)
    values = rng.uniform(-1.0, 1.0, size=n)
    rows = []
    gaussian = GaussianRecordRandomizer(20, epsilon=epsilon, delta=DELTA, y_bound=1.0)
    gaussian.randomize(X[:10], y[:10], random_state=0)  # builds the cached tables
    cases = [
        (
            "gaussian record, d=20",
            lambda: _float_gaussian(
                X, y, gaussian.sigma_x, gaussian.sigma_y, np.random.RandomState(1)
            ),
            lambda secure: gaussian.randomize(X, y, random_state=None if secure else 1),
        )
    ]
    for name, make in SCALAR.items():
        mech = make(epsilon)
        mech.randomize(values[:10], random_state=0)
        cases.append(
            (
                name,
                lambda name=name: _float_scalar(
                    name, values, epsilon, np.random.RandomState(1)
                ),
                lambda secure, mech=mech: mech.randomize(
                    values, random_state=None if secure else 1
                ),
            )
        )
    for name, continuous, lattice in cases:
        continuous_s, seeded_s, secure_s = _interleaved_medians(
            [continuous, partial(lattice, False), partial(lattice, True)], repeats
        )
        rows.append(
            {
                "mechanism": name,
                "users": n,
                "continuous s": continuous_s,
                "lattice seeded s": seeded_s,
                "lattice secure s": secure_s,
                "seeded / continuous": seeded_s / continuous_s,
                "secure / continuous": secure_s / continuous_s,
            }
        )
        print(rows[-1], flush=True)
    return rows


def lattice_costs(run):
    epsilons = (1.0, 4.0) if run.quick else EPSILONS
    n, repeats = (50_000, 1) if run.quick else (1_000_000, 5)
    variance = variance_rows(epsilons)
    speed = speed_rows(n, repeats)
    variance_notes = (
        f"delta = {DELTA:g} for the Gaussian record (features and target in the "
        "unit ball and [-1, 1], jointly calibrated; the lattice version is "
        "calibrated for the sensitivity widened by the rounding and releases the "
        "rounded Gaussian, whose variance includes the 1/12 cell^2 of the "
        "rounding); scalar mechanisms on [-1, 1] at the input 0 and at the end "
        "1 (unit scale). ratio = lattice / continuous variance. Command: "
        f"{run.command}"
    )
    speed_notes = (
        "Time to randomize every user once (Gaussian record: 20 features and a "
        "target per user; scalar mechanisms: one value per user) at epsilon 1: "
        "the continuous float mechanism with numpy's legacy RandomState (the "
        "library before the lattice), the lattice mechanism with a seeded PCG64 "
        "stream (simulations) and with the operating system's CSPRNG "
        "(deployments). Median of "
        f"{repeats} runs, the three interleaved, on a shared 2-core machine "
        "(other jobs running: compare ratios, not seconds). Coins: the "
        "rounding coins and Duchi's bit are 53-bit coins (uniform() < p, one "
        "word; Duchi's accounting uses the 53-bit thresholds, coin_epsilon(..., "
        "bits=53)); Bassily-Smith's bit and the piecewise window coin compare "
        "one 64-bit word with ceil(p 2^64). Command: "
        f"{run.command}"
    )
    return [
        Report(
            "lattice_variance",
            "Variance of one released value: lattice mechanism / continuous mechanism",
            variance,
            ["mechanism", "epsilon", "input", "continuous", "lattice", "ratio"],
            variance_notes,
        ),
        Report(
            "lattice_speed",
            "Simulation time: lattice mechanisms / continuous float mechanisms",
            speed,
            [
                "mechanism",
                "users",
                "continuous s",
                "lattice seeded s",
                "lattice secure s",
                "seeded / continuous",
                "secure / continuous",
            ],
            speed_notes,
        ),
    ]


SPEC = Benchmark(
    name="bench_lattice",
    description=__doc__.splitlines()[0],
    steps=(lattice_costs,),
)

if __name__ == "__main__":
    main(SPEC)
