"""Lattice Gaussian calibration: the guarantee of what is sampled, and its cost."""

import numpy as np
import pytest

from sklearn_ldp.accounting import (
    MAX_LATTICE_CELLS,
    analytic_gaussian_delta,
    analytic_gaussian_sigma,
    gaussian_sigma,
    joint_gaussian_sigmas,
    lattice_copies,
    lattice_gaussian,
    lattice_gaussian_scale,
    lattice_gaussian_sigma,
    power_copies_budgets,
    rounded_gaussian_tv_bound,
)
from sklearn_ldp.exceptions import PrivacyLeakWarning
from sklearn_ldp.randomizers import lattice_granularity, rounded_gaussian

#: The lattice rounding widens the noise by at most 1/256 of the sensitivity
#: (plus 2^-40 for the float error of clipping), unless the cap on cells binds.
WIDENING = 1.001 * 2**-8


@pytest.mark.parametrize("scale", [256.0, 4096.0, 5000.3, 8191.9, 30000.0])
def test_tv_bound_covers_the_sampler(scale):
    sampler_tv = rounded_gaussian(scale).tv_bound
    assert sampler_tv <= rounded_gaussian_tv_bound(scale)
    assert rounded_gaussian_tv_bound(scale) == pytest.approx(sampler_tv, rel=1e-9)


def test_granularity_follows_the_randomizers_rule():
    # The accountant restates lattice_granularity (it cannot import it).
    for d in (1, 5, 30, 5000):
        cal = lattice_gaussian(1.0, 1e-5, [2.0], [d])
        continuous = analytic_gaussian_sigma(1.0, 1e-5, 2.0)
        cells = np.clip(2 * np.sqrt(d) * continuous * 256 / 2.0, 4096, 16384)
        assert cal.granularity[0] == lattice_granularity(continuous, cells=cells)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0, 8.0])
@pytest.mark.parametrize("d", [2, 10, 30])
def test_calibration_covers_the_widened_sensitivity_at_the_reduced_delta(epsilon, d):
    delta = 1e-6
    cal = lattice_gaussian(epsilon, delta, [2.0], [d])
    g, scale = cal.granularity[0], cal.scale[0]
    assert cal.rounded[0]
    assert cal.sensitivity[0] >= 2.0 + 2.0 * g * np.sqrt(d)
    assert cal.delta == delta and cal.delta_design + cal.slack <= delta
    assert cal.slack == pytest.approx((1 + np.exp(epsilon)) * d * cal.tv_bound[0])
    # The ideal mechanism (continuous Gaussian of std g * scale) meets delta_design.
    assert analytic_gaussian_delta(g * scale, epsilon, cal.sensitivity[0]) <= (
        cal.delta_design
    )
    # The released std: exact for the rounded noise, within 1/256 of continuous.
    assert cal.sigma[0] == pytest.approx(lattice_gaussian_sigma(scale, g), rel=1e-15)
    assert lattice_gaussian_scale(cal.sigma[0], g) >= cal.scale[0]
    # (unless the cap on cells binds: d = 30 at epsilon = 0.5, +0.53%).
    continuous = analytic_gaussian_sigma(epsilon, delta, 2.0)
    capped = 2 * np.sqrt(d) * continuous / (2.0 * MAX_LATTICE_CELLS)
    assert continuous < cal.sigma[0] < continuous * (1 + max(WIDENING, capped))


def test_the_implemented_scalar_mechanism_meets_delta_exactly():
    # Independent of the derivation: the hockey-stick divergence of the 64-bit
    # pmf against itself shifted by the largest lattice distance two rounded
    # records can have (|x'_a - x'_b| < Delta + 2 g).
    epsilon, delta, sensitivity = 1.0, 1e-5, 2.0
    cal = lattice_gaussian(epsilon, delta, [sensitivity], [1])
    g = cal.granularity[0]
    sampler = rounded_gaussian(lattice_gaussian_scale(cal.sigma[0], g))
    p = np.array(sampler.weights, dtype=float) / 2.0**64
    shift = int(np.floor(sensitivity / g)) + 1
    a = np.concatenate([p, np.zeros(shift)])
    b = np.concatenate([np.zeros(shift), p])
    divergence = np.maximum(a - np.exp(epsilon) * b, 0.0).sum()
    assert divergence <= delta
    # The widening is needed: the same noise is calibrated within a hair.
    assert divergence > 0.9 * delta


def test_joint_parts_and_labels_already_on_the_lattice():
    cal = lattice_gaussian(
        1.0, 1e-5, [2.0, 2.0], [5, 1], weights=[2.0, 2.0], input_steps=[0.0, 1.0]
    )
    assert cal.rounded.tolist() == [True, False]
    assert cal.sensitivity[1] == 2.0  # +-1 labels are not rounded
    # One Gaussian mechanism: unit-noise sensitivity at the analytic bound.
    unit = np.sqrt(np.sum((cal.sensitivity / (cal.granularity * cal.scale)) ** 2))
    assert analytic_gaussian_delta(1.0, 1.0, unit) <= cal.delta_design
    continuous = joint_gaussian_sigmas(1.0, 1e-5, [2.0, 2.0])
    assert np.all(continuous < cal.sigma) and np.all(
        cal.sigma < continuous * (1 + WIDENING)
    )
    assert cal.slack == pytest.approx((1 + np.e) * (5 + 1) * cal.tv_bound.mean())


def test_classic_calibration_and_copies():
    cal = lattice_gaussian(0.5, 1e-5, [2.0], [3], method="classic")
    classic = gaussian_sigma(0.5, 1e-5, 2.0, "classic")
    assert classic < cal.sigma[0] < classic * (1 + WIDENING)
    budgets, _ = power_copies_budgets(1.0, 1e-5, degree=2)
    copies = lattice_copies(budgets, 2.0, 3)
    assert len(copies) == len(budgets)
    for copy, (eps, delta) in zip(copies, budgets, strict=True):
        assert copy.epsilon == eps and copy.delta == delta
        assert copy.delta_design + copy.slack <= delta
    with pytest.raises(ValueError, match="classic"):
        lattice_gaussian(1.0, 1e-5, [2.0, 2.0], [1, 1], method="classic")


def test_the_cap_on_cells_bounds_the_sampler_and_costs_little():
    # Many coordinates at a small epsilon: the widening target would need
    # more than MAX_LATTICE_CELLS cells per sigma; the cap binds.
    cal = lattice_gaussian(0.5, 1e-5, [2.0], [200])
    continuous = analytic_gaussian_sigma(0.5, 1e-5, 2.0)
    # sigma grows by the widening, 2 g sqrt(d) / Delta with g <= sigma / cells.
    growth = 2 * np.sqrt(200) * continuous / (2.0 * MAX_LATTICE_CELLS)
    assert 2**-8 < growth < 0.05
    assert cal.sigma[0] < continuous * (1 + 1.001 * growth)
    assert cal.scale[0] < 2 * MAX_LATTICE_CELLS * (1 + 1.001 * growth)


def test_epsilon_beyond_the_samplers_precision_states_the_weaker_guarantee():
    cal = lattice_gaussian(15.0, 1e-5, [2.0], [5])
    assert cal.certified and cal.delta == 1e-5
    with pytest.warns(PrivacyLeakWarning, match=r"only \(20, "):
        cal = lattice_gaussian(20.0, 1e-5, [2.0], [5])
    assert not cal.certified and cal.delta_design == 1e-5
    assert 1e-5 < cal.delta == 1e-5 + cal.slack < 1.0
    with pytest.warns(PrivacyLeakWarning):
        assert lattice_gaussian(1e9, 1e-5, [2.0], [5]).delta == 1.0


@pytest.mark.parametrize(
    "args",
    [
        ([0.0], [1]),
        ([1.0], [0]),
        ([1.0, 1.0], [1]),
        ([np.inf], [1]),
        ([1.0], [1.5]),
    ],
)
def test_bad_parts_are_refused(args):
    with pytest.raises(ValueError):
        lattice_gaussian(1.0, 1e-5, *args)
