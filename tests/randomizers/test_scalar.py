"""Scalar mechanisms: unbiasedness, documented variance, lattice reports, the
guarantee of what is sampled, and empirical privacy."""

import numpy as np
import pytest

from sklearn_ldp.accounting import (
    bassily_smith_epsilon,
    coin_epsilon,
    relative_error_epsilon,
)
from sklearn_ldp.randomizers import (
    BassilySmithMechanism,
    DuchiMechanism,
    LaplaceMechanism,
    NoiseSource,
    PiecewiseMechanism,
)
from sklearn_ldp.randomizers._scalar import (
    _bassily_smith_implemented,
    _duchi_bounds,
    _piecewise_implemented,
)
from sklearn_ldp.utils import audit_mechanism

MECHANISMS = [
    LaplaceMechanism,
    DuchiMechanism,
    PiecewiseMechanism,
    BassilySmithMechanism,
]
N_DRAWS = 400_000


def bit_zero_statistic(matrix):
    """Bassily-Smith reports are (public z, bit); its worst event is {bit = 0, z large}."""
    return matrix[:, 0] * (1.0 - matrix[:, 1])


def statistic_for(mechanism_class):
    return bit_zero_statistic if mechanism_class is BassilySmithMechanism else None


@pytest.mark.parametrize("mechanism_class", MECHANISMS)
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
@pytest.mark.parametrize("value", [-3.0, -1.0, 0.25, 2.0])
def test_estimate_is_unbiased_with_the_documented_variance(
    mechanism_class, epsilon, value
):
    mech = mechanism_class(epsilon, lower=-1.0, upper=2.0)
    rng = np.random.RandomState(0)
    estimates = mech.estimate(mech.randomize(np.full(N_DRAWS, value), random_state=rng))
    clipped = np.clip(value, -1.0, 2.0)
    variance = float(mech.variance(clipped))
    # Mean within 5 standard errors of the clipped value (false alarm ~ 6e-7).
    assert abs(estimates.mean() - clipped) < 5 * np.sqrt(variance / N_DRAWS)
    # Sample variance within 5% (its relative sd is ~ sqrt(kurtosis / n) << 1%).
    assert estimates.var() == pytest.approx(variance, rel=0.05)


@pytest.mark.parametrize("mechanism_class", MECHANISMS)
@pytest.mark.parametrize("epsilon", [0.5, 4.0])
def test_privacy_audit_passes_on_extreme_inputs(mechanism_class, epsilon):
    result = audit_mechanism(
        mechanism_class(epsilon, lower=-1.0, upper=1.0),
        100.0,
        -100.0,
        statistic=statistic_for(mechanism_class),
        n_draws=200_000,
    )
    assert result.passed, result
    # The audit is sharp: it certifies most of the budget these mechanisms spend.
    if mechanism_class is not BassilySmithMechanism:
        assert result.epsilon_lower_bound > 0.8 * epsilon


def test_audit_rejects_laplace_with_half_the_noise():
    mech = LaplaceMechanism(4.0)
    mech.epsilon = 8.0  # the scale property now gives half the noise
    result = audit_mechanism(mech, 100.0, -100.0, epsilon=4.0, n_draws=200_000)
    assert not result.passed


@pytest.mark.parametrize("mechanism_class", [DuchiMechanism, PiecewiseMechanism])
def test_audit_rejects_mechanisms_run_at_twice_their_budget(mechanism_class):
    result = audit_mechanism(
        mechanism_class(8.0), 100.0, -100.0, epsilon=4.0, n_draws=200_000
    )
    assert not result.passed


def test_printed_bassily_smith_calibration_is_not_epsilon_ldp():
    """Seed 001 Thm 23 claims eps-LDP with eps0 = eps <= ln 2; the bit-0 event refutes it."""
    mech = BassilySmithMechanism(np.log(2.0))
    mech.internal_epsilon = np.log(2.0)  # the printed protocol
    result = audit_mechanism(
        mech,
        1.0,
        0.0,
        epsilon=np.log(2.0),
        statistic=bit_zero_statistic,
        n_draws=200_000,
    )
    assert not result.passed
    # Our calibration passes on the same records and the bound is nearly tight.
    fixed = audit_mechanism(
        BassilySmithMechanism(np.log(2.0)), 1.0, 0.0, statistic=bit_zero_statistic
    )
    assert fixed.passed and fixed.epsilon_lower_bound > 0.8 * np.log(2.0)


def test_bassily_smith_exact_guarantee_formula():
    for epsilon in [0.1, 0.5, np.log(2.0), 3.0]:
        eps0 = BassilySmithMechanism(epsilon).internal_epsilon
        assert -np.log(2.0 - np.exp(eps0)) == pytest.approx(epsilon)
        assert eps0 < min(epsilon, np.log(2.0))


def test_duchi_reports_are_one_bit_and_piecewise_stays_in_range():
    assert set(np.unique(DuchiMechanism(1.0).randomize(np.zeros(1000), 0))) <= {
        -1.0,
        1.0,
    }
    pw = PiecewiseMechanism(1.0)
    out = pw.randomize(np.linspace(-1, 1, 10_000), 0)
    assert np.all(np.abs(out) <= pw.bound)
    # The discrete range is the continuous [-C, C] within one lattice step.
    half = np.exp(0.5)
    assert abs(pw.bound - (half + 1.0) / (half - 1.0)) <= pw.granularity


@pytest.mark.parametrize("mechanism_class", MECHANISMS)
def test_bad_parameters(mechanism_class):
    for epsilon in [0.0, -1.0, np.nan, np.inf]:
        with pytest.raises(ValueError):
            mechanism_class(epsilon)
    with pytest.raises(ValueError):
        mechanism_class(1.0, lower=1.0, upper=0.0)
    with pytest.raises(ValueError, match="NaN"):
        mechanism_class(1.0).randomize([0.0, np.nan])


def implemented_epsilon(mech):
    """The guarantee of what ``mech`` samples, recomputed from its design."""
    if isinstance(mech, LaplaceMechanism):
        sampler = mech._design.sampler
        return relative_error_epsilon(mech.design_epsilon, sampler.max_relative_error)
    if isinstance(mech, DuchiMechanism):
        return coin_epsilon(*_duchi_bounds(mech.design_epsilon), bits=53)
    if isinstance(mech, PiecewiseMechanism):
        return _piecewise_implemented(mech.design_epsilon)
    return _bassily_smith_implemented(mech.design_epsilon)


@pytest.mark.parametrize("mechanism_class", MECHANISMS)
@pytest.mark.parametrize("bounds", [(-1.0, 2.0), (-0.3, 0.7)])
@pytest.mark.parametrize("epsilon", [0.05, 1.0, 8.0])
def test_reports_are_multiples_of_the_granularity_inside_the_support(
    mechanism_class, bounds, epsilon
):
    mech = mechanism_class(epsilon, *bounds)
    g = mech.granularity
    assert g <= 1.0 and g == 2.0 ** np.round(np.log2(g))
    values = np.concatenate([np.linspace(-5.0, 5.0, 20_998), bounds])
    reports = mech.randomize(values.reshape(-1, 7), random_state=1)
    assert np.all(reports / g == np.round(reports / g))
    support = mech.report_support((7,))
    assert not support.check(reports).any()
    # Extreme draws stay inside too: the support's ends are reachable. Every
    # value is on the lattice of g (Bassily-Smith's bit on that of 1).
    assert np.all(support.step == g) or support.step.tolist() == [g, 1.0]


@pytest.mark.parametrize("mechanism_class", MECHANISMS)
@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 4.0, 8.0, 15.0])
def test_what_is_sampled_is_within_the_stated_epsilon(mechanism_class, epsilon):
    mech = mechanism_class(epsilon)
    assert mech.epsilon == epsilon  # the resolution costs far less than 1%
    assert implemented_epsilon(mech) <= mech.epsilon
    assert mech.design_epsilon <= mech.epsilon
    slack = {LaplaceMechanism: 1e-3, PiecewiseMechanism: 1e-12}.get(
        mechanism_class, 1e-9
    )
    assert mech.epsilon - mech.design_epsilon < slack * epsilon


@pytest.mark.parametrize("mechanism_class", MECHANISMS)
def test_very_large_epsilon_runs_at_the_largest_implementable_one(mechanism_class):
    mech = mechanism_class(60.0)
    assert mech.epsilon < 60.0
    assert implemented_epsilon(mech) <= mech.epsilon
    assert mech.epsilon - mech.design_epsilon <= 0.0101 * mech.design_epsilon
    assert mech.guarantee == f"each released value is {mech.epsilon:.6g}-LDP"
    reports = mech.randomize(np.linspace(-1.0, 1.0, 1000), random_state=0)
    assert not mech.report_support((1000,)).check(reports[None]).any()


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0, 8.0])
def test_variance_is_within_a_small_share_of_the_continuous_mechanisms(epsilon):
    t = np.linspace(-1.0, 1.0, 101)
    half = np.expm1(epsilon / 2.0)
    piecewise = t**2 / half + (half + 4.0) / (3.0 * half**2)
    assert PiecewiseMechanism(epsilon).variance(t) == pytest.approx(piecewise, rel=3e-3)
    assert LaplaceMechanism(epsilon).variance(t) == pytest.approx(
        2.0 * (2.0 / epsilon) ** 2, rel=1e-3
    )
    duchi = (np.exp(epsilon) + 1.0) / np.expm1(epsilon)
    assert DuchiMechanism(epsilon).variance(t) == pytest.approx(duchi**2 - t**2)
    v = 0.5 * (t + 1.0)
    eps0 = bassily_smith_epsilon(epsilon)
    assert BassilySmithMechanism(epsilon).variance(v) == pytest.approx(
        v**2 + 4.0 / eps0**2, rel=1e-6
    )


def test_piecewise_window_fits_and_reaches_both_ends():
    for epsilon in [0.01, 0.5, 2.0, 8.0, 25.0]:
        d = PiecewiseMechanism(epsilon)._design
        top = np.ceil(d.kappa / d.granularity - 0.5 * (d.width - 1)) + d.width - 1
        assert top == d.half
    mech = PiecewiseMechanism(8.0)
    reports = mech.randomize(np.ones(200_000), random_state=0)
    assert reports.max() == mech.bound


def test_bassily_smith_public_values_come_from_the_public_source():
    mech = BassilySmithMechanism(1.0)
    values = np.linspace(0.0, 1.0, 1000)

    def run(noise_seed, public_seed):
        return mech.randomize(
            values,
            NoiseSource(np.random.SeedSequence(noise_seed)),
            public=NoiseSource(np.random.SeedSequence(public_seed)),
        )

    same_public = run(1, 7), run(2, 7)
    np.testing.assert_array_equal(same_public[0][:, 0], same_public[1][:, 0])
    assert not np.array_equal(same_public[0][:, 1], same_public[1][:, 1])
    other_public = run(1, 8)
    assert not np.array_equal(same_public[0][:, 0], other_public[:, 0])
    # Seeded runs are reproducible (the public stream is spawned from the seed).
    np.testing.assert_array_equal(
        mech.randomize(values, random_state=3), mech.randomize(values, random_state=3)
    )


def exact_variance(support, law_low, law_high, fraction):
    """Variance of a report from ``law_high`` with probability ``fraction``, else ``law_low``."""
    law = (1.0 - fraction) * law_low + fraction * law_high
    mean = law @ support
    return float(law @ (support - mean) ** 2)


@pytest.mark.parametrize("value", [-0.3, 0.123456, 0.7])
def test_laplace_variance_is_that_of_the_sampled_law(value):
    mech = LaplaceMechanism(1.0, lower=-0.3, upper=0.7)
    d = mech._design
    p = d.sampler.probabilities()
    m = (p.size - 1) // 2
    support = np.arange(d.low - d.margin, d.high + d.margin + 1, dtype=float)

    def law(a):  # clamp(a + J) onto the window
        out = np.zeros(support.size)
        index = np.clip(a + np.arange(-m, m + 1), support[0], support[-1])
        np.add.at(out, (index - support[0]).astype(int), p)
        return out

    scaled = value / d.granularity
    base = np.floor(scaled)
    expected = exact_variance(
        support * d.granularity, law(base), law(base + 1), scaled - base
    )
    assert mech.variance(value) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
@pytest.mark.parametrize("t", [-1.0, 0.3, 1.0])
def test_piecewise_variance_is_that_of_the_discrete_law(epsilon, t):
    mech = PiecewiseMechanism(epsilon)
    d = mech._design
    N, M = d.width, d.half
    support = np.arange(-M, M + 1) * d.granularity

    def law(start):
        out = np.full(2 * M + 1, d.low_prob)
        out[start + M : start + M + N] *= np.exp(d.design_epsilon)
        return out

    u = t * d.kappa / d.granularity - 0.5 * (N - 1)
    base = int(np.floor(u))
    high = law(base + 1) if base + N <= M else law(base)
    expected = exact_variance(support, law(base), high, u - base)
    assert float(mech.variance(t)) == pytest.approx(expected, rel=1e-9)
    # and unbiased: the mean of the mixed law is t.
    mixed = (1 - (u - base)) * law(base) + (u - base) * high
    assert mixed @ support == pytest.approx(t, abs=1e-9)


@pytest.mark.parametrize("epsilon", [0.3, 4.0, 31.0, 100.0])
@pytest.mark.parametrize("interval", [(-1.0, 1.0), (0.0, 1.0), (-3.0, 0.5)])
def test_duchi_randomize_ends_is_randomize_at_the_ends(epsilon, interval):
    # The same coins, in order, and the same reports as the generic path.
    mechanism = DuchiMechanism(epsilon, *interval)
    at_upper = np.random.RandomState(0).uniform(size=20_000) < 0.4
    values = np.where(at_upper, interval[1], interval[0])
    np.testing.assert_array_equal(
        mechanism.randomize_ends(at_upper, random_state=1),
        mechanism.randomize(values, random_state=1),
    )
