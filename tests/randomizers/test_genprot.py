"""GenProt (seed 001 Algorithm 8): exact privacy loss, unbiasedness, audits, Bernstein option."""

import numpy as np
import pytest

from sklearn_ldp import LocalBernsteinRegressor
from sklearn_ldp.randomizers import GenProtMechanism, genprot_epsilon
from sklearn_ldp.utils import audit_mechanism

N_DRAWS = 400_000


def index_probabilities(q):
    """Exact P[g = t] given the bit probabilities q_t on fixed public strings.

    P[g = t] = q_t E[1 / (1 + S_t)] + prod_j (1 - q_j) / T, with S_t the
    Poisson-binomial sum of the other bits (its pmf by convolution).
    """
    T = q.size
    out = np.empty(T)
    for t in range(T):
        pmf = np.array([1.0])
        for j in range(T):
            if j != t:
                pmf = np.convolve(pmf, [1.0 - q[j], q[j]])
        out[t] = q[t] * np.sum(pmf / np.arange(1, T + 1)) + np.prod(1.0 - q) / T
    return out


def bit_probabilities(mech, strings, v):
    eps0 = mech.base_epsilon
    return 0.5 * np.exp(eps0 * (np.abs(strings - mech.bot) - np.abs(strings - v)))


def adversarial_strings(T, n_favour_one):
    # Strings beyond [0, 1] make every likelihood ratio extreme.
    return np.where(np.arange(T) < n_favour_one, 3.0, -3.0)


@pytest.mark.parametrize("calibration", ["tight", "paper"])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_exact_privacy_loss_given_the_public_strings_is_within_the_guarantee(
    calibration, epsilon
):
    T = 12
    mech = GenProtMechanism(epsilon, n_candidates=T, calibration=calibration)
    rng = np.random.RandomState(0)
    candidates = [adversarial_strings(T, m) for m in range(T + 1)]
    candidates += list(mech.public_strings(40, rng))
    worst = 0.0
    for strings in candidates:
        p_zero = index_probabilities(bit_probabilities(mech, strings, 0.0))
        p_one = index_probabilities(bit_probabilities(mech, strings, 1.0))
        assert p_zero.sum() == pytest.approx(1.0, abs=1e-12)
        worst = max(worst, float(np.max(np.abs(np.log(p_one / p_zero)))))
    assert worst <= mech.epsilon + 1e-9
    if calibration == "tight":
        # The derived bound is nearly attained (one string for 1, the rest for 0).
        assert worst > 0.85 * mech.epsilon
    else:
        # Theorem 46's 10 eps0 is five times the actual loss (about 2 eps0).
        assert worst < 2.0 * mech.base_epsilon + 1e-9


def test_tight_calibration_inverts_the_bound():
    for epsilon in [0.1, 0.7, 2.0]:
        mech = GenProtMechanism(epsilon)
        assert genprot_epsilon(mech.base_epsilon, 32) == pytest.approx(
            epsilon, rel=1e-9
        )
        assert mech.base_epsilon == pytest.approx(epsilon / 2, rel=1e-3)
    # The empty-set term shrinks geometrically with T.
    assert genprot_epsilon(0.5, 4) > genprot_epsilon(0.5, 8) > genprot_epsilon(0.5, 64)
    assert genprot_epsilon(0.5, 64) == pytest.approx(1.0, abs=1e-12)


def test_provided_epsilon_includes_the_sampling_and_is_what_was_asked():
    mech = GenProtMechanism(1.0)
    assert mech.requested_epsilon == 1.0
    assert 1.0 - 1e-12 < mech.epsilon <= 1.0
    assert genprot_epsilon(mech.base_epsilon, 32) < mech.epsilon
    assert mech.epsilon - genprot_epsilon(mech.base_epsilon, 32) < 1e-12
    capped = GenProtMechanism(10.0)
    assert capped.epsilon > genprot_epsilon(capped.base_epsilon, 32)


def test_large_epsilon_is_capped_and_paper_calibration_refuses_it():
    mech = GenProtMechanism(10.0)
    assert mech.base_epsilon == pytest.approx(2 * np.log(2), rel=1e-9)
    assert mech.epsilon < 10.0 and mech.requested_epsilon == 10.0
    with pytest.raises(ValueError, match="epsilon <= 2.5"):
        GenProtMechanism(3.0, calibration="paper")
    with pytest.raises(ValueError, match="n_candidates"):
        GenProtMechanism(1.0, n_candidates=1)
    with pytest.raises(ValueError, match="calibration"):
        GenProtMechanism(1.0, calibration="bns")


@pytest.mark.parametrize("calibration", ["tight", "paper"])
@pytest.mark.parametrize("value", [-1.0, 0.3, 2.0, 5.0])
def test_estimate_is_unbiased_with_the_documented_variance(calibration, value):
    mech = GenProtMechanism(
        1.0, lower=-1.0, upper=2.0, n_candidates=8, calibration=calibration
    )
    estimates = mech.estimate(
        mech.randomize(np.full(N_DRAWS, value), random_state=np.random.RandomState(7))
    )
    clipped = np.clip(value, -1.0, 2.0)
    variance = float(mech.variance(clipped))
    # Within 5 standard errors (false alarm ~ 6e-7); Laplace tails make the
    # sample variance's relative sd ~ sqrt(5 / n) < 0.4%, so 5% is loose.
    assert abs(estimates.mean() - clipped) < 5 * np.sqrt(variance / N_DRAWS)
    assert estimates.var() == pytest.approx(variance, rel=0.05)


def test_selected_value_is_the_derived_mixture():
    # P[z <= s] = (1 - w) F_{v + Lap}(s) + w F_{bot + Lap}(s), w = 2^(1 - T).
    T, v = 3, 0.9
    mech = GenProtMechanism(1.0, n_candidates=T)
    z = mech.randomize(np.full(N_DRAWS, v), random_state=1)[:, 0]
    b, w = 1.0 / mech.base_epsilon, 2.0 ** (1 - T)

    def laplace_cdf(s, mu):
        return np.where(
            s < mu, 0.5 * np.exp((s - mu) / b), 1 - 0.5 * np.exp(-(s - mu) / b)
        )

    for s in [-1.0, 0.2, 0.9, 2.5]:
        expected = (1 - w) * laplace_cdf(s, v) + w * laplace_cdf(s, mech.bot)
        # Binomial proportion: 5 standard errors.
        assert np.mean(z <= s) == pytest.approx(
            expected, abs=5 * np.sqrt(0.25 / N_DRAWS)
        )


def test_communication_is_log2_of_the_candidates():
    assert GenProtMechanism(1.0, n_candidates=2).communication_bits == 1
    assert GenProtMechanism(1.0, n_candidates=32).communication_bits == 5
    assert GenProtMechanism(1.0, n_candidates=33).communication_bits == 6
    reports = GenProtMechanism(1.0, n_candidates=8).randomize(
        np.linspace(0, 1, 1000), random_state=0
    )
    index = reports[:, 1]
    assert set(np.unique(index)) <= set(range(8))


class _FixedStrings:
    """A GenProt mechanism whose public strings are held fixed (audited conditionally)."""

    delta = 0.0

    def __init__(self, mech, strings, epsilon):
        self.mech, self.strings, self.epsilon = mech, strings, epsilon

    def randomize(self, values, random_state=None):
        strings = np.broadcast_to(self.strings, (len(values), self.strings.size))
        return self.mech.randomize(values, random_state, public_strings=strings)


def _index_is_favoured(matrix):
    # Event {g = 0}, the one string favouring v = 1 (g is the second column).
    return (matrix[:, 1] == 0).astype(float)


@pytest.mark.parametrize("calibration", ["tight", "paper"])
def test_audit_passes_with_adversarial_public_strings(calibration):
    mech = GenProtMechanism(2.0, n_candidates=16, calibration=calibration)
    fixed = _FixedStrings(mech, adversarial_strings(16, 1), mech.epsilon)
    result = audit_mechanism(
        fixed, 100.0, -100.0, statistic=_index_is_favoured, n_draws=200_000
    )
    assert result.passed, result
    if calibration == "tight":
        # The conditional loss is close to the tight bound: the audit sees most of it.
        assert result.epsilon_lower_bound > 0.6 * mech.epsilon


def test_audit_rejects_genprot_with_a_base_budget_four_times_too_large():
    mech = GenProtMechanism(0.6, n_candidates=16)
    claimed = mech.epsilon
    mech.base_epsilon *= 4.0  # bits computed with 4 eps0: actual loss ~ 8 eps0
    fixed = _FixedStrings(mech, adversarial_strings(16, 1), claimed)
    result = audit_mechanism(
        fixed, 100.0, -100.0, statistic=_index_is_favoured, n_draws=200_000
    )
    assert not result.passed


def test_bernstein_regressor_runs_genprot_and_reports_its_bits():
    rng = np.random.RandomState(0)
    n = 200_000
    X = rng.uniform(-1, 1, size=(n, 1))
    y = np.clip(0.5 * X[:, 0] + 0.1 * rng.randn(n), -1, 1)
    est = LocalBernsteinRegressor(
        epsilon=2.0, mechanism="genprot", degree=3, fit_intercept=False, random_state=0
    ).fit(X, y)
    assert est.communication_bits_ == 5
    # The same estimator with an unbiased, equally private scalar release.
    laplace = LocalBernsteinRegressor(
        epsilon=2.0, mechanism="laplace", degree=3, fit_intercept=False, random_state=0
    ).fit(X, y)
    assert laplace.communication_bits_ == 64
    # GenProt's grid values are unbiased with variance ~ 2 / eps0^2 (eps0 ~ 1):
    # the grid risk agrees with the Laplace run within the noise of both
    # (4 grid points, ~50k users each: sd ~ sqrt(2 * 2 / 50k) ~ 0.009).
    assert np.abs(est.grid_risk_ - laplace.grid_risk_).max() < 0.06
    assert abs(est.coef_[0] - 0.5) < 0.25
    randomizer = est._build_randomizer(1, degree=3)
    reports = randomizer.randomize(X[:1000], y[:1000], random_state=0)
    assert list(reports.fields) == ["group", "public_value", "index"]
    refit = LocalBernsteinRegressor(
        epsilon=2.0, mechanism="genprot", degree=3, fit_intercept=False
    ).fit_reports(reports)
    assert refit.communication_bits_ == 5


@pytest.mark.parametrize("calibration", ["tight", "paper"])
def test_too_small_epsilon_names_the_supported_range(calibration):
    from sklearn_ldp.randomizers._genprot import MAX_STRING_ENTRIES

    smallest = GenProtMechanism.smallest_epsilon(32, calibration)
    with pytest.raises(ValueError, match=r"epsilon = 1e-09 .*supports epsilon >="):
        GenProtMechanism(1e-9, calibration=calibration)
    with pytest.raises(ValueError, match="supports epsilon"):
        GenProtMechanism(0.5 * smallest, calibration=calibration)
    mech = GenProtMechanism(1.01 * smallest, calibration=calibration)
    assert 2 * mech._half_width + 1 <= MAX_STRING_ENTRIES
    assert mech.epsilon <= 1.01 * smallest
