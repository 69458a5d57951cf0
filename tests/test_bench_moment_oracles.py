"""The moment oracles of bench_real_gap: the threshold search and the oracles
themselves, on populations whose answer is known."""

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._moment_oracles import (  # noqa: E402
    ORACLES,
    best_threshold,
    moment_oracles,
)
from sklearn_ldp.randomizers import GaussianRecordRandomizer  # noqa: E402


def test_best_threshold_separates_and_counts():
    scores = np.array([0.4, 0.1, 0.3, 0.2])
    accuracy, threshold = best_threshold(scores, np.array([True, False, True, False]))
    assert accuracy == 1.0 and 0.2 < threshold < 0.3
    # Inverted labels: no threshold does better than one of the constants.
    accuracy, threshold = best_threshold(scores, np.array([False, True, False, True]))
    assert accuracy == 0.5
    # All positive: predict positive everywhere (threshold below every score).
    accuracy, threshold = best_threshold(scores, np.ones(4, dtype=bool))
    assert accuracy == 1.0 and threshold < scores.min()


def _linear_population(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, 3)) / np.sqrt(3.0)
    y = np.clip(X @ np.array([0.8, -0.5, 0.3]) + 0.1 * rng.standard_normal(n), -1, 1)
    return X, y


def test_oracles_agree_with_clean_least_squares_when_noise_is_small():
    # At epsilon = 12 the reports' noise is small: every oracle is the clean
    # least-squares rule up to the noise of the two moments. Their effect on
    # the held-out R^2 is about (p cross_noise^2 + gram_noise^2 ||w||^2) /
    # (lambda_min Var y) (the excess risk of w = G_hat^-1 c_hat to first
    # order), bounded here with 5 times that.
    n, p = 200_000, 3
    X, y = _linear_population(n, 0)
    X_test, y_test = _linear_population(20_000, 1)
    randomizer = GaussianRecordRandomizer(
        p, epsilon=12.0, delta=1e-7, data_norm=1.0, y_bound=1.0
    )
    out = moment_oracles(randomizer, X, y, X_test, y_test, 0)
    lambda_min = np.linalg.eigvalsh(np.cov(X.T)).min()
    excess = p * out["_cross_noise"] ** 2 + out["_gram_noise"] ** 2 * np.sum(
        np.array([0.8, -0.5, 0.3]) ** 2
    )
    tolerance = 5.0 * excess / (lambda_min * y.var())
    assert tolerance < 0.05  # small enough to mean something
    for oracle in ORACLES:
        assert abs(out[oracle] - out["clean LS"]) <= tolerance, oracle
    assert out["clean LS"] > 0.9  # the population's R^2 (noise 0.1 on y)


def test_oracle_classifier_reads_the_label_encoding():
    # Two classes along the first coordinate, moderate noise: the oracles
    # must predict the classes (not their inverse) on held-out users.
    rng = np.random.default_rng(2)
    X = rng.uniform(-1.0, 1.0, size=(100_000, 2)) / np.sqrt(2.0)
    y = np.where(X[:, 0] > 0, "b", "a")
    X_test = rng.uniform(-1.0, 1.0, size=(20_000, 2)) / np.sqrt(2.0)
    y_test = np.where(X_test[:, 0] > 0, "b", "a")
    randomizer = GaussianRecordRandomizer(
        2, epsilon=4.0, delta=1e-7, data_norm=1.0, classes=["a", "b"]
    )
    out = moment_oracles(randomizer, X, y, X_test, y_test, 0)
    # sigma ~ 3.7, n = 1e5: the direction's angle error is about
    # sigma_x sigma_y / sqrt(n) / |c| ~ 0.04 / 0.35 rad, i.e. >= 0.9 accuracy.
    for oracle in ORACLES:
        assert out[oracle] > 0.9, oracle
    assert out["clean LS"] > 0.99


def test_noise_law_matches_replayed_reports():
    # The spread of the debiased moments over replays of the reports (the
    # randomizer run with other seeds) against noisy_moments' law. The log
    # of a variance estimated from k draws has standard error sqrt(2 / (k -
    # 1)) (0.18 at k = 60); averaged over the ~20 free entries (correlated,
    # so counted as 5 independent ones), 3 standard errors are 0.25.
    from benchmarks._moment_oracles import noisy_moments
    from sklearn_ldp.aggregation import FoldedMoments

    n = 20_000
    X, y = _linear_population(n, 3)
    randomizer = GaussianRecordRandomizer(
        3, epsilon=4.0, delta=1e-7, data_norm=1.0, y_bound=1.0
    )
    clean = FoldedMoments(
        randomizer.features(X), randomizer.targets(y), sigma_x=0.0, sigma_t=0.0
    ).moments()

    def entries(moments):
        return np.concatenate([moments.gram[np.triu_indices(4)], moments.cross[:, 0]])

    replays = []
    for seed in range(60):
        reports = randomizer.randomize(X, y, random_state=100 + seed)
        replays.append(
            entries(
                FoldedMoments(
                    reports["x"],
                    reports["y"],
                    sigma_x=randomizer.sigma_x,
                    sigma_t=randomizer.sigma_y,
                ).moments()
            )
        )
    rng = np.random.default_rng(0)
    law = [
        entries(noisy_moments(clean, randomizer.sigma_x, randomizer.sigma_y, rng))
        for _ in range(600)
    ]
    replays, law = np.array(replays), np.array(law)
    free = law.std(axis=0) > 0  # the constant entry of the second moment is 1
    log_ratio = np.log(replays[:, free].var(axis=0) / law[:, free].var(axis=0))
    assert abs(log_ratio.mean()) < 0.25, log_ratio
    # Centred on the clean moments: the debiasing is right.
    z = (replays.mean(axis=0) - entries(clean))[free] / (
        law[:, free].std(axis=0) / np.sqrt(len(replays))
    )
    assert np.all(np.abs(z) < 4.5), z
