"""bench_frequency's rules: their predicted variances, the predicted best and the recheck."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_frequency import (  # noqa: E402
    THEIR_OLH_MAX_PAIRS,
    THEIRS,
    mse_table,
    recheck_seed_count,
    their_predicted_best,
    their_variance,
)
from sklearn_ldp.randomizers import frequency_mechanism_variances  # noqa: E402


@pytest.mark.parametrize(
    "their, ours, k, epsilon",
    [
        ("GRR", "randomized_response", 16, 1.0),
        ("OUE", "unary_encoding", 128, 2.0),
        # Both choose d = 4 cells here (rint(16 / (e + 1)) = 4).
        ("SS", "subset_selection", 16, 1.0),
    ],
)
def test_their_variance_is_ours_for_the_same_mechanism(their, ours, k, epsilon):
    # Our implemented p and q are integers over 2^64 (equal to the ideal ones
    # up to ~1e-16 relative) or, for randomized response from half a word,
    # over 2^32 where that lattice costs less than 2^-20 of the variance.
    expected = frequency_mechanism_variances(k, epsilon)[ours]
    assert their_variance(their, k, epsilon) == pytest.approx(expected, rel=2.0**-20)


def test_their_predicted_best_is_the_smallest_variance_among_those_that_run():
    assert their_predicted_best(10_000, 2, 1.0) == "GRR"  # GRR and SS coincide: first
    assert their_predicted_best(10_000, 1024, 1.0) == "SS"
    assert their_predicted_best(10_000, 128, 8.0) == "GRR"
    for n, k in ((1_000, 16), (10**6, 1024)):
        for epsilon in (0.5, 2.0, 8.0):
            runs = [m for m in THEIRS if m != "OLH" or n * k <= THEIR_OLH_MAX_PAIRS]
            variances = {m: their_variance(m, k, epsilon) for m in runs}
            assert their_predicted_best(n, k, epsilon) == min(variances, key=variances.get)


def test_recheck_seed_count():
    assert recheck_seed_count(10_000, 5, 1e7) == 200
    assert recheck_seed_count(100_000, 5, 1e7) == 100
    assert recheck_seed_count(10**6, 3, 1e6) == 3
    assert recheck_seed_count(10**6, 3, 0) == 0


def _rows(method, mses, phase="screen", seed0=0):
    return [
        {"n": 10_000, "k": 16, "epsilon": 1.0, "seed": seed0 + i, "method": method,
         "resolved": "subset_selection", "phase": phase, "mse": m,
         "seconds_per_million": 1.0}
        for i, m in enumerate(mses)
    ]


def test_verdict_and_recheck_in_the_table():
    rng = np.random.RandomState(0)
    # Screening: auto clearly worse on 5 seeds; the recheck decides.
    screen = _rows("ours: auto", 3.0 + 0.01 * rng.randn(5)) + _rows(
        "theirs: SS", 2.0 + 0.01 * rng.randn(5)
    ) + _rows("theirs: GRR", 5.0 + 0.01 * rng.randn(5))
    (row,), columns = mse_table(screen, theirs=True)
    assert row["best of theirs"] == "SS" and row["their predicted best"] == "SS"
    assert row["auto ≤ best + 2 SE"] == "NO"
    equal = _rows("ours: auto", 2.0 + 0.1 * rng.randn(50), "recheck", 5) + _rows(
        "theirs: SS", 2.0 + 0.1 * rng.randn(50), "recheck", 5
    )
    (row,), _ = mse_table(screen, theirs=True, checks=equal)
    assert row["auto ≤ best + 2 SE"] == "NO; recheck (50 seeds): yes"
    worse = _rows("ours: auto", 2.5 + 0.1 * rng.randn(50), "recheck", 5) + _rows(
        "theirs: SS", 2.0 + 0.1 * rng.randn(50), "recheck", 5
    )
    (row,), _ = mse_table(screen, theirs=True, checks=worse)
    assert row["auto ≤ best + 2 SE"] == "NO; recheck (50 seeds): NO"
