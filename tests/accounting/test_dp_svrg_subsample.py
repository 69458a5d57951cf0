"""Amplification by subsampling without replacement, and the 'auto' run on a subset."""

import functools
import itertools
import warnings

import numpy as np
import pytest

import sklearn_ldp._dp_svrg as dp_svrg_module
from sklearn_ldp import DPSVRGClassifier
from sklearn_ldp.accounting import (
    amplify_by_subsampling,
    calibrate_dp_gd,
    subsampled_budget,
)
from sklearn_ldp.accounting._dp_svrg import (
    GDSchedule,
    auto_gd_schedule,
    auto_gd_subsample,
)
from sklearn_ldp.utils import audit_samples


def _subsampled_flag_mechanism(epsilon, n, m, has_one):
    """Output distribution of the exact worst case, enumerated.

    ``M(S)`` answers "does the subset ``S`` hold a 1?" by randomized response
    (``epsilon``-DP on ``S`` under replace-one: one record changes the
    answer at most once). ``D`` has a single 1 at position 0, ``D'`` none.
    ``S`` is every ``m``-subset of the ``n`` positions, equally likely.
    """
    keep = np.exp(epsilon) / (1.0 + np.exp(epsilon))
    p_one = 0.0
    subsets = list(itertools.combinations(range(n), m))
    for subset in subsets:
        truth = has_one and 0 in subset
        p_one += keep if truth else 1.0 - keep
    p_one /= len(subsets)
    return np.array([p_one, 1.0 - p_one])


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("n, m", [(6, 2), (7, 3), (5, 5)])
def test_amplification_is_attained_by_the_worst_case(epsilon, n, m):
    amplified, _ = amplify_by_subsampling(epsilon, 0.0, m, n)
    with_one = _subsampled_flag_mechanism(epsilon, n, m, True)
    without = _subsampled_flag_mechanism(epsilon, n, m, False)
    worst = np.max(np.abs(np.log(with_one / without)))
    # The enumerated privacy loss equals the bound: a looser formula (q
    # epsilon) fails below it, a wrong one (epsilon) above it.
    assert worst == pytest.approx(amplified, rel=1e-12)


def test_delta_scales_and_the_inverse_round_trips():
    eps_m, delta_m = subsampled_budget(1.5, 1e-7, 125_000, 1_000_000)
    assert delta_m == pytest.approx(8e-7)
    epsilon, delta = amplify_by_subsampling(eps_m, delta_m, 125_000, 1_000_000)
    assert epsilon == pytest.approx(1.5, rel=1e-12) and delta == pytest.approx(1e-7)
    assert eps_m > 1.5
    with pytest.raises(ValueError, match="sample_size"):
        amplify_by_subsampling(1.0, 1e-7, 0, 10)
    with pytest.raises(ValueError, match="sample_size"):
        subsampled_budget(1.0, 1e-7, 11, 10)


BOUNDS = dict(gradient_bound=1.5, data_norm=1.0, smoothness=0.3)


def test_subsample_only_when_the_compute_cap_binds():
    # n = 1e4: the cap does not bind, every row is used at the full budget.
    m, eps_m, delta_m, schedule = auto_gd_subsample(10_000, 31, 1.0, 1e-7, **BOUNDS)
    assert (m, eps_m, delta_m) == (10_000, 1.0, 1e-7)
    assert schedule == auto_gd_schedule(10_000, 31, 1.0, 1e-7, **BOUNDS)
    # n = 1e6: the run on all rows is capped far below the horizon its
    # noise allows; a subset reaches a longer horizon.
    full = auto_gd_schedule(1_000_000, 31, 4.0, 1e-7, **BOUNDS)
    m, eps_m, delta_m, schedule = auto_gd_subsample(1_000_000, 31, 4.0, 1e-7, **BOUNDS)
    assert full.capped and m < 1_000_000
    assert schedule.horizon > 10 * full.horizon
    assert schedule.n_steps * m * 31 <= 4e9
    amplified, delta = amplify_by_subsampling(eps_m, delta_m, m, 1_000_000)
    assert amplified == pytest.approx(4.0) and delta == pytest.approx(1e-7)


def test_estimator_runs_on_a_subset_and_states_the_amplified_guarantee(monkeypatch):
    # A small compute cap makes n = 20,000 behave like n = 1e6 at full cap.
    import sklearn_ldp.accounting._dp_svrg as accounting

    monkeypatch.setattr(accounting, "AUTO_GD_MIN_SUBSAMPLE", 100)
    monkeypatch.setattr(
        dp_svrg_module,
        "auto_gd_subsample",
        functools.partial(auto_gd_subsample, max_work=2e6),
    )
    # Where the cap binds, 'auto' runs solver='objective' for binary logistic
    # fits; the DP-GD subset path remains that of the other configurations
    # (multinomial, coef_norm, l1_ratio > 0).
    monkeypatch.setattr(
        DPSVRGClassifier, "_use_objective", lambda self, design, n_outputs: False
    )
    rng = np.random.RandomState(0)
    X = rng.normal(size=(20_000, 4)) / 4.0
    y = (X @ np.array([1.0, -1.0, 0.5, 0.0]) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = DPSVRGClassifier(
            epsilon=2.0, delta=1e-6, classes=(0, 1), random_state=0
        ).fit(X, y)
    assert clf.subsample_size_ < 20_000
    eps_m, delta_m = subsampled_budget(2.0, 1e-6, clf.subsample_size_, 20_000)
    noise = calibrate_dp_gd(eps_m, delta_m, clf.n_epochs_)
    assert clf.noise_multiplier_ == pytest.approx(noise.noise_multiplier)
    expected, _ = amplify_by_subsampling(
        noise.epsilon, delta_m, clf.subsample_size_, 20_000
    )
    assert clf.epsilon_spent_ == pytest.approx(expected)
    assert clf.epsilon_spent_ <= 2.0 + 1e-9
    assert clf.privacy_epsilon_ <= 2.0 and clf.privacy_delta_ == 1e-6
    assert clf.score(X, y) > 0.9


def test_explicit_steps_use_every_row():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(2_000, 3)) / 4.0
    y = (X[:, 0] > 0).astype(int)
    clf = DPSVRGClassifier(n_epochs=30, classes=(0, 1), random_state=0).fit(X, y)
    assert clf.subsample_size_ == 2_000 and clf.n_epochs_ == 30


# ------------------------------------------------ canary audit of the subset run
def _one_step_on_a_subset(sample_size, claim_amplification=True):
    """``auto_gd_subsample`` replaced by one DP-GD step on ``sample_size`` rows.

    With ``claim_amplification=False`` the run is the broken twin: it spends
    the subset's larger budget on *every* row (no subsample), which is not
    (epsilon, delta)-DP.
    """

    def subsample(n_samples, n_weights, epsilon, delta, **params):
        eps_m, delta_m = subsampled_budget(epsilon, delta, sample_size, n_samples)
        schedule = GDSchedule(
            alpha=0.1, horizon=1.0, momentum=0.0, n_steps=1, step=1.0, capped=False
        )
        size = sample_size if claim_amplification else n_samples
        return size, eps_m, delta_m, schedule

    return subsample


def _canary_audit(clf, n_rows, n_runs, seed=0):
    # n_rows - 1 rows at x = 0 (zero gradient whatever the weights) and one
    # canary at x = +50 or -50 (clipped to +-1), label 1; statistic: the
    # learnt coefficient; thresholds from a separate pilot sample.
    rng = np.random.RandomState(seed)
    X_a = np.zeros((n_rows, 1))
    X_a[0, 0] = 50.0
    X_b = -X_a
    labels = np.arange(n_rows) % 2
    labels[0] = 1

    def statistics(X, runs):
        return np.array([clf._train(X, labels, 2, rng)[0][0, 0] for _ in range(runs)])

    pilot = np.concatenate([statistics(X_a, n_runs // 4), statistics(X_b, n_runs // 4)])
    thresholds = np.quantile(pilot, 1 / (1 + np.exp(-np.linspace(-7, 7, 30))))
    return audit_samples(
        statistics(X_a, n_runs),
        statistics(X_b, n_runs),
        clf.epsilon,
        clf.delta,
        thresholds,
    )


def test_canary_subset_run_passes_and_unsampled_twin_fails(monkeypatch):
    # One row of 256 is trained on, at the budget log(1 + (e - 1) 256) = 6.1
    # per run; the canary is in the subset with probability 1/256, which
    # brings the release back to epsilon = 1. The twin spends the same 6.1 on
    # every row: the canary's half-worst-case gradient still gives it an
    # epsilon the audit bounds below by 1.43 with 8,000 runs per side.
    clf = DPSVRGClassifier(epsilon=1.0, fit_intercept=False, alpha=0.1)
    monkeypatch.setattr(dp_svrg_module, "auto_gd_subsample", _one_step_on_a_subset(1))
    result = _canary_audit(clf, 256, 8_000)
    assert result.passed, result

    monkeypatch.setattr(
        dp_svrg_module,
        "auto_gd_subsample",
        _one_step_on_a_subset(1, claim_amplification=False),
    )
    broken = _canary_audit(clf, 256, 8_000)
    assert not broken.passed
    assert broken.epsilon_lower_bound > 1.0
