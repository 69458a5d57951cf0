"""Budget rules of the grid and vector protocols and of their one-value releases."""

import numpy as np
import pytest

from sklearn_ldp.accounting import (
    bassily_smith_epsilon,
    full_grid_epsilon,
    full_vector_epsilon,
    full_vector_laplace_scale,
    genprot_base_epsilon,
    genprot_epsilon,
    genprot_provided_epsilon,
    genprot_sampling_error,
)
from sklearn_ldp.randomizers import (
    BernsteinLossRandomizer,
    MarginalRandomizer,
    TrigonometricRandomizer,
)


def test_full_grid_splits_epsilon_evenly_over_the_grid():
    assert full_grid_epsilon(2.0, 25) == pytest.approx(0.08)
    # G releases of epsilon / G compose to epsilon (basic composition).
    assert 25 * full_grid_epsilon(2.0, 25) == pytest.approx(2.0)
    rand = BernsteinLossRandomizer(1, epsilon=2.0, degree=4, mechanism="full_grid")
    assert rand.scalar_mechanism.epsilon == full_grid_epsilon(2.0, rand.n_grid)
    with pytest.raises(ValueError, match="n_grid"):
        full_grid_epsilon(1.0, 0)
    with pytest.raises(ValueError, match="epsilon"):
        full_grid_epsilon(0.0, 4)


def test_full_vector_scale_is_the_l1_sensitivity_over_epsilon():
    assert full_vector_laplace_scale(1.0, 5, 2.0) == pytest.approx(10.0)
    # The same noise: d releases at epsilon / d of an entry of range 2.
    assert 2.0 / full_vector_epsilon(1.0, 5) == pytest.approx(10.0)
    with pytest.raises(ValueError, match="n_coordinates"):
        full_vector_epsilon(1.0, 0)
    # Entries in [-1, 1] (width 2): Lap(2 d / epsilon), sampled on a lattice
    # at a design epsilon a hair below (the 64-bit sampling is paid for).
    trig = TrigonometricRandomizer(1, epsilon=0.5, degree=6, mechanism="full_vector")
    assert trig.laplace_scale == pytest.approx(2 * 5 / 0.5, rel=1e-4)
    assert trig.laplace_scale >= 2 * 5 / 0.5
    # Unit entries 1[S subset x] (width 1): Lap(d / epsilon), which is the
    # printed d b / epsilon for gamma = 0 (b = max |w_|S|| = 1); the server
    # scales entry S by w_|S|.
    marg = MarginalRandomizer(3, epsilon=1.0, k=2, mechanism="full_vector")
    b = np.abs(marg.coordinate_scale).max()
    assert b == 1.0
    assert marg.laplace_scale == pytest.approx(marg.n_coordinates * b / 1.0, rel=1e-4)
    with pytest.raises(ValueError, match="entry_range"):
        full_vector_laplace_scale(1.0, 5, 0.0)


@pytest.mark.parametrize("epsilon", [0.01, 0.5, np.log(2.0), 1.0, 8.0])
def test_bassily_smith_internal_budget_gives_exactly_epsilon(epsilon):
    eps0 = bassily_smith_epsilon(epsilon)
    # The protocol at eps0 is exactly -ln(2 - e^eps0)-LDP, and eps0 < ln 2.
    assert -np.log(2.0 - np.exp(eps0)) == pytest.approx(epsilon, rel=1e-12)
    assert 0 < eps0 < np.log(2.0)
    assert eps0 <= epsilon


def test_genprot_tight_guarantee_decreases_with_candidates():
    assert genprot_epsilon(0.5, 4) > genprot_epsilon(0.5, 8) > genprot_epsilon(0.5, 64)
    assert genprot_epsilon(0.5, 64) == pytest.approx(1.0, abs=1e-12)
    # Never below twice the base budget (the e^(2 eps0) term).
    assert genprot_epsilon(0.3, 32) > 0.6


@pytest.mark.parametrize("epsilon", [0.2, 1.0, 2.0])
def test_genprot_tight_calibration_is_the_largest_valid_base_budget(epsilon):
    eps0 = genprot_base_epsilon(epsilon, 32)
    assert genprot_epsilon(eps0, 32) <= epsilon
    assert genprot_epsilon(eps0 * (1 + 1e-9), 32) > epsilon


def test_genprot_calibration_cap_paper_rule_and_errors():
    cap = genprot_base_epsilon(100.0, 32)
    assert cap == pytest.approx(2 * np.log(2.0))
    assert genprot_epsilon(cap, 32) < 100.0
    assert genprot_base_epsilon(2.0, 32, calibration="paper") == pytest.approx(0.2)
    with pytest.raises(ValueError, match="2.5"):
        genprot_base_epsilon(3.0, 32, calibration="paper")
    with pytest.raises(ValueError, match="too small"):
        genprot_base_epsilon(0.01, 2)
    with pytest.raises(ValueError, match="calibration"):
        genprot_base_epsilon(1.0, 32, calibration="theorem")


@pytest.mark.parametrize("calibration", ["tight", "paper"])
@pytest.mark.parametrize("epsilon", [0.2, 1.0, 2.0])
def test_genprot_provided_epsilon_pays_for_the_sampling(calibration, epsilon):
    eps0 = genprot_base_epsilon(epsilon, 32, calibration)
    ideal = genprot_epsilon(eps0, 32) if calibration == "tight" else 10 * eps0
    provided = genprot_provided_epsilon(eps0, 32, calibration)
    # Float probabilities and 64-bit coins cost about 1e-13, and the
    # calibration keeps what is provided within what was asked.
    assert ideal < provided <= epsilon
    assert provided - ideal < 1e-12
    assert genprot_sampling_error(eps0, 32) < 1e-12


def test_genprot_sampling_error_grows_as_bits_approach_certainty():
    # p_t <= e^(eps0 / 2) / 2: 1 - p_t near 0 inflates the error of P[b_t = 0].
    cap = genprot_base_epsilon(100.0, 32)
    assert 1e-6 < genprot_sampling_error(cap, 32) < 1e-3
    assert genprot_provided_epsilon(cap, 32) - genprot_epsilon(cap, 32) < 1e-3
    assert genprot_sampling_error(2 * np.log(2.0), 32) == np.inf
    # T coins per index: the error grows linearly with T.
    assert genprot_sampling_error(1.0, 64) == pytest.approx(
        2 * genprot_sampling_error(1.0, 32), rel=1e-6
    )
