"""Per-user variance of the moment estimates: every formula against simulation.

Each check draws many independent reports of the ideal (continuous)
mechanism at a fixed ``x``, forms the unbiased estimates, and compares the
average squared error with the formula: the average of ``n`` iid squared
errors has standard error ``sd / sqrt(n)``, so it must lie within 5 of
them (two-sided, about 6e-7 per check under the CLT), and the estimates
must be unbiased within 5 standard errors per entry.
"""

import math

import numpy as np
import pytest
from scipy.stats import truncnorm

from sklearn_ldp.accounting import (
    IMPLEMENTED_MOMENT_MECHANISMS,
    MOMENT_MECHANISMS,
    analytic_gaussian_sigma,
    best_moment_mechanism,
    gaussian_moment_variance,
    hybrid_piecewise_weight,
    lattice_privunit_gaussian,
    moment_variances,
    privunit_design,
    privunit_moment_variance,
    sampled_coordinate_moment_variance,
    scalar_report_moments,
)

Z = 5.0


def assert_matches(errors, predicted):
    """Mean of iid ``errors`` within Z standard errors of ``predicted``."""
    errors = np.asarray(errors)
    # Plus float rounding, for errors that are constant (Duchi's y^2).
    tolerance = Z * errors.std(ddof=1) / math.sqrt(errors.size) + 1e-12 * predicted
    assert abs(errors.mean() - predicted) <= tolerance, (
        errors.mean(),
        predicted,
        tolerance,
    )


def assert_unbiased(estimates, target):
    """Every entry's mean within Z standard errors of the target."""
    estimates = estimates.reshape(estimates.shape[0], -1)
    se = estimates.std(axis=0, ddof=1) / math.sqrt(estimates.shape[0])
    assert np.all(np.abs(estimates.mean(axis=0) - np.ravel(target)) <= Z * se + 1e-12)


def check_estimates(x_hat, M_hat, x, variance):
    M = np.outer(x, x)
    assert_unbiased(x_hat, x)
    assert_unbiased(M_hat, M)
    assert_matches(((x_hat - x) ** 2).sum(axis=1), variance.mean)
    assert_matches(((M_hat - M) ** 2).sum(axis=(1, 2)), variance.second_moment)


def outer(V):
    return np.einsum("ni,nj->nij", V, V)


# ------------------------------------------------------------ Gaussian


def test_gaussian_formula_by_simulation():
    rng = np.random.default_rng(0)
    x = np.array([0.5, -0.3, 0.2])
    variance = gaussian_moment_variance(3, 2.0, 1e-7, x)
    sigma = variance.parameters["sigma"]
    assert sigma == analytic_gaussian_sigma(2.0, 1e-7, 2.0)
    z = x + sigma * rng.standard_normal((400_000, 3))
    check_estimates(z, outer(z) - sigma**2 * np.eye(3), x, variance)


def test_gaussian_worst_case_is_the_unit_sphere():
    worst = gaussian_moment_variance(4, 1.0, 1e-7, sigma=2.0)
    assert worst.second_moment == 4 * 5 * 16 + 2 * 5 * 4
    at_zero = gaussian_moment_variance(4, 1.0, 1e-7, np.zeros(4), sigma=2.0)
    assert at_zero.second_moment < worst.second_moment


# ------------------------------------------------------------ PrivUnit


def sample_privunit(design, u, n, rng):
    """Ideal PrivUnit reports of the unit vector ``u`` (float simulation)."""
    D = u.size
    in_cap = rng.random(n) < design.p
    if design.base == "gaussian":
        a, b = (
            np.where(in_cap, design.gamma, -np.inf),
            np.where(in_cap, np.inf, design.gamma),
        )
        t = truncnorm.rvs(a, b, size=n, random_state=rng)
        N = rng.standard_normal((n, D))
        N -= np.outer(N @ u, u)
        return t[:, None] * u + N
    out = np.empty((n, D))
    todo = np.arange(n)
    while todo.size:
        G = rng.standard_normal((todo.size, D))
        G /= np.linalg.norm(G, axis=1, keepdims=True)
        ok = (G @ u >= design.gamma) == in_cap[todo]
        out[todo[ok]] = G[ok]
        todo = todo[~ok]
    return out


def embedded(x):
    return np.append(x, math.sqrt(1.0 - x @ x))


@pytest.mark.parametrize("base", ["sphere", "gaussian"])
def test_privunit_one_report_formula_by_simulation(base):
    rng = np.random.default_rng(1)
    x = np.array([0.6, 0.1, -0.4])
    variance = privunit_moment_variance(3, 2.0, x, base=base)
    design = privunit_design(4, 2.0, variance.parameters["budget_split"], base)
    _, m, a2, _, _ = design.t_moments
    beta = (1.0 - a2) / 3 if base == "sphere" else 1.0
    V = sample_privunit(design, embedded(x), 300_000, rng)[:, :3]
    M_hat = (outer(V) - beta * np.eye(3)) / (a2 - beta)
    check_estimates(V / m, M_hat, x, variance)


@pytest.mark.parametrize("base", ["sphere", "gaussian"])
def test_privunit_two_reports_formula_by_simulation(base):
    rng = np.random.default_rng(2)
    x = np.array([0.2, -0.7])
    variance = privunit_moment_variance(2, 3.0, x, base=base, reports="two")
    design = privunit_design(3, 1.5, variance.parameters["budget_split"], base)
    m = design.t_moments[1]
    a = sample_privunit(design, embedded(x), 300_000, rng)[:, :2] / m
    b = sample_privunit(design, embedded(x), 300_000, rng)[:, :2] / m
    M_hat = 0.5 * (np.einsum("ni,nj->nij", a, b) + np.einsum("ni,nj->nij", b, a))
    check_estimates(0.5 * (a + b), M_hat, x, variance)


@pytest.mark.parametrize("base", ["sphere", "gaussian"])
@pytest.mark.parametrize("epsilon", [0.3, 2.0, 9.0])
def test_privunit_design_is_exactly_epsilon(base, epsilon):
    design = privunit_design(6, epsilon, 0.4, base)
    assert design.epsilon == pytest.approx(epsilon, rel=1e-9)
    t = design.t_moments
    assert t[0] == pytest.approx(1.0) and 0 < t[1] and t[1] ** 2 <= t[2]


def test_privunit_worst_case_dominates_and_one_report_wins():
    rng = np.random.default_rng(3)
    for base in ("sphere", "gaussian"):
        worst = privunit_moment_variance(4, 1.0, base=base)
        split = worst.parameters["budget_split"]
        for _ in range(20):
            x = rng.standard_normal(4)
            x *= rng.random() / np.linalg.norm(x)
            here = privunit_moment_variance(4, 1.0, x, base=base, budget_split=split)
            assert here.second_moment <= worst.second_moment * (1 + 1e-12)
            assert here.mean <= worst.mean * (1 + 1e-12)
        for epsilon in (0.5, 8.0):
            one = privunit_moment_variance(4, epsilon, base=base)
            two = privunit_moment_variance(4, epsilon, base=base, reports="two")
            assert one.second_moment < two.second_moment


def test_min_cap_probability_constrains_the_split():
    free = privunit_moment_variance(10, 8.0, base="gaussian")
    capped = privunit_moment_variance(
        10, 8.0, base="gaussian", min_cap_probability=1 / 64
    )
    assert free.parameters["q"] < 1 / 64 <= capped.parameters["q"] + 1e-12
    assert capped.second_moment >= free.second_moment


def test_lattice_calibration_is_below_the_requested_epsilon():
    for epsilon in (0.5, 2.0, 8.0):
        cal = lattice_privunit_gaussian(
            epsilon, 11, 0.3, scale=512.0, tv_bound=1e-14, max_abs_cell=5120
        )
        assert cal.epsilon <= epsilon
        assert cal.epsilon == pytest.approx(epsilon, rel=1e-6)
        # What the ratio bound certifies, recomputed from its parts.
        L, q = cal.mixture_weight, cal.cap_lower_bound
        assert math.log1p((1 - L) / (L * q)) == pytest.approx(cal.epsilon)
        # The server's law puts at least the certified mass in the cap.
        assert cal.design.q >= q


# ------------------------------------------------- sampled piecewise / hybrid


def piecewise(t, epsilon, rng):
    """Continuous piecewise mechanism (Wang et al. 2019, Algorithm 2)."""
    half = math.exp(epsilon / 2.0)
    C = (half + 1.0) / (half - 1.0)
    left = 0.5 * (C + 1.0) * t - 0.5 * (C - 1.0)
    central = rng.random(t.shape) < half / (half + 1.0)
    inside = left + (C - 1.0) * rng.random(t.shape)
    u = (C + 1.0) * rng.random(t.shape)
    outside = np.where(u < left + C, -C + u, left + C - 1.0 + (u - (left + C)))
    return np.where(central, inside, outside)


def duchi(t, epsilon, rng):
    B = (math.exp(epsilon) + 1.0) / math.expm1(epsilon)
    prob = 0.5 + 0.5 * t / B
    return np.where(rng.random(t.shape) < prob, B, -B)


def scalar(t, epsilon, mechanism, rng):
    if mechanism == "piecewise":
        return piecewise(t, epsilon, rng)
    pm = rng.random(t.shape) < hybrid_piecewise_weight(epsilon)
    return np.where(pm, piecewise(t, epsilon, rng), duchi(t, epsilon, rng))


@pytest.mark.parametrize("mechanism", ["piecewise", "hybrid", "duchi"])
@pytest.mark.parametrize("t", [0.0, 0.4, -1.0])
def test_scalar_report_moments_by_simulation(mechanism, t):
    rng = np.random.default_rng(4)
    epsilon = 1.5
    values = np.full(400_000, t)
    if mechanism == "duchi":
        y = duchi(values, epsilon, rng)
    else:
        y = scalar(values, epsilon, mechanism, rng)
    second, fourth = scalar_report_moments(epsilon, t, mechanism)
    assert_matches(y**2, float(second))
    assert_matches(y**4, float(fourth))
    if mechanism == "piecewise":  # the documented variance formula
        h = math.expm1(epsilon / 2)
        assert float(second) - t * t == pytest.approx(
            t * t / h + (h + 4.0) / (3.0 * h * h)
        )


@pytest.mark.parametrize(
    "mechanism,k", [("piecewise", 2), ("piecewise", 3), ("hybrid", 2)]
)
def test_sampled_coordinates_formula_by_simulation(mechanism, k):
    rng = np.random.default_rng(5)
    d, epsilon, n = 4, 4.0, 400_000
    x = np.array([0.5, -0.5, 0.3, 0.1])
    variance = sampled_coordinate_moment_variance(
        d, epsilon, x, mechanism=mechanism, n_sampled=k
    )
    eps = epsilon / k
    chosen = np.argsort(rng.random((n, d)), axis=1)[:, :k]
    mask = np.zeros((n, d), dtype=bool)
    np.put_along_axis(mask, chosen, True, axis=1)
    y = np.where(mask, scalar(np.broadcast_to(x, (n, d)), eps, mechanism, rng), 0.0)
    b = float(scalar_report_moments(eps, 0.0, mechanism)[0])
    a = float(scalar_report_moments(eps, 1.0, mechanism)[0]) - b
    x_hat = (d / k) * y
    M_hat = d * (d - 1) / (k * (k - 1)) * outer(y)
    diagonal = (d / k) * mask * (y**2 - b) / a
    M_hat[:, np.arange(d), np.arange(d)] = diagonal
    check_estimates(x_hat, M_hat, x, variance)


def test_sampled_worst_case_dominates():
    rng = np.random.default_rng(6)
    worst = sampled_coordinate_moment_variance(5, 2.0, n_sampled=2)
    for _ in range(30):
        x = rng.standard_normal(5) * rng.random(5)
        x *= rng.random() ** 0.25 / np.linalg.norm(x)
        here = sampled_coordinate_moment_variance(5, 2.0, x, n_sampled=2)
        assert here.second_moment <= worst.second_moment * (1 + 1e-12)
        assert here.mean <= worst.mean * (1 + 1e-12)
    # k = 1 cannot estimate products of two coordinates.
    one = sampled_coordinate_moment_variance(5, 2.0, n_sampled=1, target="mean")
    assert math.isinf(one.second_moment) and math.isfinite(one.mean)


# ---------------------------------------------------------------- choice


def test_best_moment_mechanism():
    name, variances = best_moment_mechanism(10, 1.0, 1e-7)
    assert set(variances) == set(IMPLEMENTED_MOMENT_MECHANISMS)
    assert name == "privunit_gaussian"
    everything = moment_variances(10, 1.0, 1e-7)
    assert set(everything) == set(MOMENT_MECHANISMS)
    assert everything[name].second_moment == variances[name].second_moment
    assert everything["privunit"].second_moment <= variances[name].second_moment
    assert variances["gaussian"].second_moment > 100 * variances[name].second_moment
    gaussian_only, _ = best_moment_mechanism(10, 1.0, 1e-7, mechanisms=["gaussian"])
    assert gaussian_only == "gaussian"
    # The choice is the argmin of the target among the candidates.
    everything = list(MOMENT_MECHANISMS)
    for target, attribute in (("mean", "mean"), ("second_moment", "second_moment")):
        name, variances = best_moment_mechanism(
            2, 8.0, 1e-7, target=target, mechanisms=everything
        )
        values = {k: getattr(v, attribute) for k, v in variances.items()}
        assert name == min(values, key=values.get) == "privunit"
    with pytest.raises(ValueError):
        best_moment_mechanism(3, 1.0, 1e-7, mechanisms=["laplace"])


def test_variances_fall_with_epsilon():
    previous = None
    for epsilon in (0.5, 1.0, 2.0, 4.0, 8.0):
        current = moment_variances(5, epsilon, 1e-7)
        if previous is not None:
            for name in MOMENT_MECHANISMS:
                assert current[name].second_moment <= previous[name].second_moment
                assert current[name].mean <= previous[name].mean
        previous = current
