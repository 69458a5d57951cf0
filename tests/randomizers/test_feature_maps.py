"""Public feature maps, and the Gaussian record randomizer with each of them.

A random projection (the sparse estimators) and random Fourier features
(kernel ridge): rebuilt from their public configuration, clipped, and audited
as the client of a :class:`GaussianRecordRandomizer`.
"""

import json

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.kernel_approximation import RBFSampler

from sklearn_ldp.accounting import (
    classic_gaussian_sigma,
    joint_gaussian_sigmas,
    lattice_gaussian,
)
from sklearn_ldp.randomizers import (
    FOURIER_FEATURE_NORM,
    GaussianRecordRandomizer,
    LinearAndFourierFeatures,
    RandomFourierFeatures,
    RandomProjection,
    feature_map_from_config,
    feature_map_seed,
)
from sklearn_ldp.utils import audit_randomizer

SQRT2 = np.sqrt(2.0)

#: The lattice rounding widens the noise by at most 1/256 of the sensitivity
#: (plus 2^-40 for the float error of clipping), unless the cap on cells binds.
WIDENING = 1.001 * 2**-8


def projected_randomizer(
    n_features,
    n_components,
    *,
    epsilon,
    delta,
    kind="gaussian",
    seed=0,
    feature_norm=None,
    y_bound=None,
    calibration="analytic",
):
    """The client of the sparse estimators (data_norm = 1)."""
    return GaussianRecordRandomizer(
        n_features,
        epsilon=epsilon,
        delta=delta,
        y_bound=y_bound,
        feature_map=RandomProjection(n_features, n_components, kind=kind, seed=seed),
        feature_norm=1.0 if feature_norm is None else feature_norm,
        calibration=calibration,
    )


def fourier_randomizer(
    n_features,
    n_components,
    *,
    epsilon,
    delta,
    kernel="rbf",
    y_bound=1.0,
    data_norm=None,
    calibration="analytic",
):
    """The client of KernelRidgeLDP."""
    return GaussianRecordRandomizer(
        n_features,
        epsilon=epsilon,
        delta=delta,
        data_norm=data_norm,
        y_bound=y_bound,
        feature_map=RandomFourierFeatures(n_features, n_components, kernel=kernel),
        feature_norm=FOURIER_FEATURE_NORM,
        calibration=calibration,
    )


# ------------------------------------------------------------ configuration


@pytest.mark.parametrize(
    "feature_map",
    [
        RandomProjection(30, 4, kind="gaussian", seed=1),
        RandomProjection(30, 4, kind="sparse", seed=2),
        RandomProjection(30, 30, kind="identity"),
        RandomFourierFeatures(30, 4, kernel="laplacian", gamma=0.3, seed=3),
        LinearAndFourierFeatures(30, 4, input_scale=0.5, gamma=0.3, seed=4),
    ],
    ids=["gaussian", "sparse", "identity", "fourier", "linear_and_fourier"],
)
def test_maps_are_rebuilt_from_their_json_configuration(feature_map):
    config = json.loads(json.dumps(feature_map.get_config()))
    again = feature_map_from_config(config)
    assert type(again) is type(feature_map) and again.get_config() == config
    X = np.random.RandomState(0).standard_normal((6, 30))
    assert_allclose(again(X), feature_map(X), rtol=0, atol=0)
    rand = GaussianRecordRandomizer(
        30, epsilon=1.0, delta=1e-5, feature_map=feature_map, feature_norm=1.0
    )
    assert rand.get_config()["feature_map"] == config
    assert feature_map_seed(rand.get_config()) == config["seed"]


def test_bad_configurations_are_refused():
    with pytest.raises(ValueError, match="map"):
        feature_map_from_config({"map": "polynomial"})
    with pytest.raises(ValueError, match="map"):
        feature_map_from_config(None)
    assert feature_map_seed({}) is None
    assert feature_map_seed({"feature_map": {"seed": "7"}}) is None
    assert feature_map_seed({"feature_map": {"seed": True}}) is None


# ---------------------------------------------------------- random projection


def test_projection_is_rebuilt_from_the_public_seed():
    rand = projected_randomizer(40, 8, epsilon=1.0, delta=1e-5, y_bound=1.0, seed=7)
    config = rand.get_config()
    assert config["feature_map"]["seed"] == 7
    assert config["feature_map"]["n_components"] == 8
    components = feature_map_from_config(config["feature_map"]).components_
    np.testing.assert_array_equal(components, rand.feature_map.components_)
    X = np.random.RandomState(0).standard_normal((5, 40)) * 0.01
    np.testing.assert_allclose(rand.features(X), X @ components.T)


def test_projection_is_clipped_to_feature_norm():
    rand = projected_randomizer(30, 5, epsilon=1.0, delta=1e-5, feature_norm=0.5)
    X = np.random.RandomState(0).standard_normal((200, 30)) * 100
    assert np.linalg.norm(rand.features(X), axis=1).max() <= 0.5 + 1e-12
    assert rand.requires_y is False


def test_identity_projection_keeps_x():
    identity = RandomProjection(5, 5, kind="identity", seed=3)
    X = np.random.RandomState(0).standard_normal((4, 5))
    assert identity.components_ is None
    np.testing.assert_array_equal(identity(X), X)


def _stretched_direction(randomizer):
    """Unit input whose projection is longest (so it is clipped to the bound)."""
    _, _, vt = np.linalg.svd(randomizer.feature_map.components_)
    return vt[0]


@pytest.mark.parametrize("calibration", ["analytic", "paper"])
@pytest.mark.parametrize("y_bound", [1.0, None])
def test_projected_record_passes_privacy_audit(calibration, y_bound):
    # Two extreme records far outside the bounds (clipping is exercised).
    rand = projected_randomizer(
        20,
        6,
        epsilon=1.0,
        delta=1e-5,
        y_bound=y_bound,
        calibration=calibration,
        seed=3,
    )
    x = 50.0 * _stretched_direction(rand)
    y_a, y_b = (9.0, -9.0) if y_bound else (None, None)
    result = audit_randomizer(rand, (x, y_a), (-x, y_b), n_draws=40_000)
    assert result.passed, result


@pytest.mark.parametrize("y_bound", [1.0, None])
def test_projected_record_audit_rejects_half_the_noise(y_bound):
    rand = projected_randomizer(20, 6, epsilon=1.0, delta=1e-5, y_bound=y_bound, seed=3)
    rand.sigma_x /= 2.0
    if y_bound:
        rand.sigma_y /= 2.0
    # The worst pair for the projection: opposite inputs whose projections
    # have the full norm after clipping.
    x = 50.0 * _stretched_direction(rand)
    y_a, y_b = (9.0, -9.0) if y_bound else (None, None)
    result = audit_randomizer(rand, (x, y_a), (-x, y_b), n_draws=40_000)
    assert not result.passed


def test_projection_errors():
    with pytest.raises(ValueError, match="projection"):
        RandomProjection(5, 2, kind="fourier")
    with pytest.raises(ValueError, match="n_components"):
        RandomProjection(5, 6)
    with pytest.raises(ValueError, match="n_components"):
        RandomProjection(5, 4, kind="identity")
    with pytest.raises(ValueError, match="epsilon"):
        projected_randomizer(5, 2, epsilon=0.0, delta=1e-5)
    with pytest.raises(ValueError, match="5 features"):
        RandomProjection(5, 2).transform(np.zeros((2, 3)))


# ---------------------------------------------------- random Fourier features


@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
def test_random_features_approximate_exact_kernel(kernel):
    # Each entry of Z Z^T averages m terms 2 cos(a) cos(b), bounded by 2 in
    # absolute value, so its error has std <= sqrt(2 / m) (~0.0071 at m=40000);
    # 6 standard deviations cover the 45 pairs with a wide margin.
    m = 40_000
    X = np.random.RandomState(1).uniform(-1, 1, size=(10, 3))
    rff = RandomFourierFeatures(3, m, kernel=kernel, gamma=0.7, seed=3)
    Z = rff.transform(X)
    exact = rff.kernel(X)
    assert_allclose(Z @ Z.T, exact, atol=6 * np.sqrt(2.0 / m))
    # A coarse map is visibly worse: the error shrinks with m.
    coarse = RandomFourierFeatures(3, 50, kernel=kernel, gamma=0.7, seed=3).transform(X)
    assert np.abs(coarse @ coarse.T - exact).max() > np.abs(Z @ Z.T - exact).max()


def test_laplacian_features_match_sklearn_laplacian_kernel():
    from sklearn.metrics.pairwise import laplacian_kernel

    X = np.random.RandomState(2).uniform(-1, 1, size=(6, 4))
    rff = RandomFourierFeatures(4, 50_000, kernel="laplacian", seed=0)
    assert rff.gamma_ == 0.25  # None -> 1 / n_features, as scikit-learn
    Z = rff.transform(X)
    assert_allclose(
        Z @ Z.T, laplacian_kernel(X, gamma=0.25), atol=6 * np.sqrt(2 / 50_000)
    )


def test_rbf_features_are_rbfsampler():
    X = np.random.RandomState(0).standard_normal((7, 3))
    rff = RandomFourierFeatures(3, 64, kernel="rbf", gamma=0.3, seed=11)
    sampler = RBFSampler(gamma=0.3, n_components=64, random_state=11).fit(X)
    assert_allclose(rff.transform(X), sampler.transform(X), rtol=1e-12)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
def test_random_features_norm_bound_and_public_rebuild(kernel):
    rff = RandomFourierFeatures(2, 30, kernel=kernel, seed=5)
    X = np.random.RandomState(0).standard_normal((500, 2)) * 1e3
    assert np.all(np.linalg.norm(rff.transform(X), axis=1) <= rff.norm_bound + 1e-12)
    config = rff.get_config()
    again = RandomFourierFeatures(
        2,
        config["n_components"],
        kernel=config["kernel"],
        gamma=config["gamma"],
        seed=config["seed"],
    )
    assert_allclose(again.transform(X), rff.transform(X))


def test_random_features_bad_input():
    with pytest.raises(ValueError, match="kernel"):
        RandomFourierFeatures(2, 10, kernel="poly")
    with pytest.raises(ValueError, match="gamma"):
        RandomFourierFeatures(2, 10, gamma=-1.0)
    with pytest.raises(ValueError, match=">= 1"):
        RandomFourierFeatures(2, 0)
    with pytest.raises(ValueError, match="3 features"):
        RandomFourierFeatures(3, 10).transform(np.zeros((2, 2)))


def worst_case_records(randomizer):
    """Two inputs whose features are +-sqrt(2/m) in every coordinate.

    With n_features >= n_components the frequencies are invertible, so the
    phases can be set to 0 and pi exactly: ||phi(a) - phi(b)|| = 2 sqrt(2),
    the sensitivity the noise is calibrated for.
    """
    rff = randomizer.feature_map
    pinv = np.linalg.pinv(rff.weights_.T)
    x_a = pinv @ (-rff.offset_)
    x_b = pinv @ (np.pi - rff.offset_)
    gap = np.linalg.norm(rff.transform(x_a[None]) - rff.transform(x_b[None]))
    assert gap == pytest.approx(2 * SQRT2, rel=1e-9)
    return (x_a, 50.0), (x_b, -50.0)


@pytest.mark.parametrize("calibration", ["analytic", "paper"])
@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
def test_fourier_record_passes_privacy_audit(calibration, kernel):
    rand = fourier_randomizer(
        4, 4, epsilon=1.0, delta=1e-5, kernel=kernel, calibration=calibration
    )
    record_a, record_b = worst_case_records(rand)
    result = audit_randomizer(rand, record_a, record_b, n_draws=60_000)
    assert result.passed, result


def test_fourier_record_with_data_norm_passes_audit():
    rand = fourier_randomizer(3, 6, epsilon=0.5, delta=1e-5, data_norm=1.0, y_bound=2.0)
    result = audit_randomizer(
        rand, ([40.0, -3.0, 7.0], 90.0), ([-40.0, 3.0, 0.0], -90.0), n_draws=60_000
    )
    assert result.passed, result


def test_fourier_record_audit_rejects_half_noise():
    rand = fourier_randomizer(4, 4, epsilon=1.0, delta=1e-5)
    rand.sigma_x /= 2.0
    rand.sigma_y /= 2.0
    record_a, record_b = worst_case_records(rand)
    # 200k draws: at 60k the audit's power against this twin (true epsilon
    # about 2) depended on the noise stream's realization.
    result = audit_randomizer(rand, record_a, record_b, n_draws=200_000)
    assert not result.passed
    assert result.epsilon_lower_bound > 1.0


def test_fourier_record_calibration_values():
    analytic = fourier_randomizer(2, 5, epsilon=0.8, delta=1e-6)
    # Joint calibration of (features, y): sensitivities 2 sqrt(2) and 2 y_bound.
    expected = joint_gaussian_sigmas(
        0.8, 1e-6, [2 * SQRT2, 2.0], weights=[2 * SQRT2, 2.0]
    )
    # On the lattice both sensitivities are widened by the rounding of the
    # 5 features and of y: the noise grows by less than 1/256.
    lattice = lattice_gaussian(
        0.8, 1e-6, [2 * SQRT2, 2.0], [5, 1], weights=[2 * SQRT2, 2.0]
    )
    assert [analytic.sigma_x, analytic.sigma_y] == lattice.sigma.tolist()
    assert_allclose([analytic.sigma_x, analytic.sigma_y], expected, rtol=WIDENING)
    assert np.all(lattice.sigma > expected)
    paper = fourier_randomizer(2, 5, epsilon=0.8, delta=1e-6, calibration="paper")
    # Basic private vector at (eps/2, delta/2) for each part (Zheng et al.,
    # Algorithm 4).
    assert paper.sigma_x == pytest.approx(
        classic_gaussian_sigma(0.4, 5e-7, 2 * SQRT2), rel=WIDENING
    )
    assert paper.sigma_y == pytest.approx(
        classic_gaussian_sigma(0.4, 5e-7, 2.0), rel=WIDENING
    )
    assert analytic.sigma_x < paper.sigma_x


def test_fourier_record_chunks_are_bounded():
    rand = fourier_randomizer(2, 1500, epsilon=1.0, delta=1e-5)
    assert rand.chunk_size * 1500 <= 2**22


def test_linear_and_fourier_features_stay_within_their_norm_bound():
    # ||[c x, phi(x)]||^2 = c^2 ||x||^2 + ||phi(x)||^2 <= 1 + 2 for
    # ||x|| <= 1 / c; the bound is approached by inputs on the sphere whose
    # phases are all near 0 or pi.
    maps = LinearAndFourierFeatures(3, 40, input_scale=0.25, gamma=0.7, seed=5)
    X = np.random.RandomState(0).standard_normal((20_000, 3))
    X *= 4.0 / np.linalg.norm(X, axis=1, keepdims=True)  # ||x|| = 1 / c
    Z = maps.transform(X)
    assert_allclose(Z[:, :3], X / 4.0)
    assert_allclose(Z[:, 3:], maps.fourier.transform(X))
    norms = np.linalg.norm(Z, axis=1)
    assert norms.max() <= maps.norm_bound * (1 + 1e-12)
    assert norms.max() > 1.5  # the linear block alone has norm 1
    with pytest.raises(ValueError, match="input_scale"):
        LinearAndFourierFeatures(3, 4, input_scale=0.0)


def test_linear_and_fourier_record_passes_privacy_audit():
    # KernelRidgeLDP(linear_features=True)'s client: the worst RFF pair
    # (phases 0 and pi) plus opposite linear blocks.
    rand = GaussianRecordRandomizer(
        4,
        epsilon=1.0,
        delta=1e-5,
        data_norm=100.0,
        y_bound=1.0,
        feature_map=LinearAndFourierFeatures(4, 4, input_scale=0.01, seed=0),
        feature_norm=np.sqrt(3.0),
    )
    rff = rand.feature_map.fourier
    pinv = np.linalg.pinv(rff.weights_.T)
    x_a, x_b = pinv @ (-rff.offset_), pinv @ (np.pi - rff.offset_)
    result = audit_randomizer(rand, (x_a, 50.0), (x_b, -50.0), n_draws=60_000)
    assert result.passed, result
