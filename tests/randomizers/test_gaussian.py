"""Gaussian randomizers: calibration, clipping, labels, privacy audits, chunking."""

import numpy as np
import pytest

from sklearn_ldp.accounting import (
    analytic_gaussian_sigma,
    gaussian_sigma,
    lattice_gaussian,
)
from sklearn_ldp.exceptions import PrivacyLeakWarning
from sklearn_ldp.randomizers import (
    FOURIER_FEATURE_NORM,
    GaussianMechanism,
    GaussianRecordRandomizer,
    NoiseSource,
    RandomFourierFeatures,
    Reports,
    clip_l2,
    on_lattice,
    rounded_gaussian,
)
from sklearn_ldp.utils import audit_mechanism, audit_randomizer

#: The lattice rounding widens the noise by at most 1/256 of the sensitivity
#: (plus 2^-40 for the float error of clipping), unless the cap on cells binds.
WIDENING = 1.001 * 2**-8


def test_basic_private_vector_calibration_and_variance():
    mech = GaussianMechanism(1.0, 1e-5, norm_bound=2.0, n_features=2)
    # On the lattice: the analytic sigma for the sensitivity widened by the
    # rounding (by less than 1/256), at delta minus the sampler's slack.
    assert mech.sigma == lattice_gaussian(1.0, 1e-5, [4.0], [2]).sigma[0]
    continuous = analytic_gaussian_sigma(1.0, 1e-5, 4.0)
    assert continuous < mech.sigma < continuous * (1 + WIDENING)
    paper = GaussianMechanism(0.5, 1e-5, norm_bound=1.0, calibration="paper")
    paper.randomize(np.zeros((1, 2)))  # calibrated for the width it first sees
    classic = 2.0 * np.sqrt(2 * np.log(1.25e5)) / 0.5
    assert paper.n_features == 2 and classic < paper.sigma < classic * (1 + WIDENING)
    out = mech.randomize(np.zeros((200_000, 2)), random_state=0)
    # Variance of the sample variance of a normal: 2 sigma^4 / n -> rel. sd 0.3%.
    assert out.var(axis=0) == pytest.approx([mech.sigma**2] * 2, rel=0.02)
    assert np.all(on_lattice(out, mech.granularity))
    with pytest.raises(ValueError, match="calibrated for 2"):
        mech.randomize(np.zeros((3, 4)))


@pytest.mark.parametrize("epsilon", [0.5, 4.0])
@pytest.mark.parametrize("calibration", ["analytic", "paper"])
def test_gaussian_mechanism_audit(epsilon, calibration):
    mech = GaussianMechanism(epsilon, 1e-5, norm_bound=1.0, calibration=calibration)
    assert audit_mechanism(mech, [100.0, 0.0], [-100.0, 0.0]).passed


def test_audit_rejects_gaussian_noise_too_small_by_two_at_eps_4():
    mech = GaussianMechanism(4.0, 1e-5, norm_bound=1.0, n_features=2)
    mech.sigma /= 2.0
    result = audit_mechanism(mech, [100.0, 0.0], [-100.0, 0.0], epsilon=4.0, delta=1e-5)
    assert not result.passed


def test_record_randomizer_joint_calibration():
    rand = GaussianRecordRandomizer(
        3, epsilon=1.0, delta=1e-5, data_norm=2.0, y_bound=3.0
    )
    unit = analytic_gaussian_sigma(1.0, 1e-5, 1.0)
    # Equal shares: sigma_x / D_x = sigma_y / D_y = unit * sqrt(2), each
    # widened on the lattice by less than 1/256 (the rounding of x and y).
    lattice = lattice_gaussian(1.0, 1e-5, [4.0, 6.0], [3, 1], weights=[4.0, 6.0])
    assert (rand.sigma_x, rand.sigma_y) == tuple(lattice.sigma)
    assert rand.sigma_x == pytest.approx(4.0 * unit * np.sqrt(2), rel=WIDENING)
    assert rand.sigma_y == pytest.approx(6.0 * unit * np.sqrt(2), rel=WIDENING)
    assert rand.sigma_x > 4.0 * unit * np.sqrt(2)
    paper = GaussianRecordRandomizer(
        3, epsilon=1.0, delta=1e-5, data_norm=2.0, y_bound=3.0, calibration="paper"
    )
    classic = gaussian_sigma(0.5, 0.5e-5, 4.0, "classic")
    assert classic < paper.sigma_x < classic * (1 + WIDENING)
    assert paper.sigma_x > rand.sigma_x


@pytest.mark.parametrize("calibration", ["analytic", "paper"])
@pytest.mark.parametrize("epsilon", [1.0, 4.0])
def test_record_randomizer_audit_regression(calibration, epsilon):
    rand = GaussianRecordRandomizer(
        2, epsilon=epsilon, delta=1e-5, y_bound=1.0, calibration=calibration
    )
    result = audit_randomizer(rand, ([80.0, 60.0], 50.0), ([-80.0, -60.0], -50.0))
    assert result.passed, result


@pytest.mark.parametrize("y_noise_ratio", [0.1, 3.0])
def test_record_randomizer_audit_uneven_split(
    y_noise_ratio, likelihood_ratio_statistic
):
    # KernelRidgeLDP spends the budget on y (ratio 0.1) where no model can be
    # learned: the joint calibration must hold for any split of the budget,
    # and the audit (with the likelihood-ratio statistic of the two report
    # laws, which weighs x and y by their own noise) must see half the noise.
    rand = GaussianRecordRandomizer(
        2, epsilon=4.0, delta=1e-5, y_bound=1.0, y_noise_ratio=y_noise_ratio
    )
    records = ([80.0, 60.0], 50.0), ([-80.0, -60.0], -50.0)
    means = np.array([[0.8, 0.6, 1.0], [-0.8, -0.6, -1.0]])  # clipped records

    def audit():
        stat = likelihood_ratio_statistic(means, rand.sigma_x, rand.sigma_y, 2)
        return audit_randomizer(rand, *records, statistic=stat)

    result = audit()
    assert result.passed, result
    rand.sigma_x /= 2.0
    rand.sigma_y /= 2.0
    assert not audit().passed


def test_record_randomizer_audit_rejects_half_noise():
    rand = GaussianRecordRandomizer(2, epsilon=4.0, delta=1e-5, y_bound=1.0)
    rand.sigma_x /= 2.0
    rand.sigma_y /= 2.0
    result = audit_randomizer(rand, ([80.0, 60.0], 50.0), ([-80.0, -60.0], -50.0))
    assert not result.passed


@pytest.mark.parametrize("classes", [["no", "yes"], [0, 1, 2]])
def test_record_randomizer_audit_classification(classes):
    rand = GaussianRecordRandomizer(2, epsilon=2.0, delta=1e-5, classes=classes)
    result = audit_randomizer(
        rand, ([50.0, 0.0], classes[0]), ([-50.0, 0.0], classes[-1])
    )
    assert result.passed, result


def test_labels_are_encoded_and_unknown_labels_refused():
    rand = GaussianRecordRandomizer(1, epsilon=1.0, delta=1e-5, classes=[3, 1, 2])
    assert rand.targets(np.array([1, 3])).tolist() == [[1, 0, 0], [0, 0, 1]]
    binary = GaussianRecordRandomizer(1, epsilon=1.0, delta=1e-5, classes=["b", "a"])
    assert binary.targets(np.array(["a", "b"])).tolist() == [-1.0, 1.0]
    with pytest.raises(ValueError, match="not in the public classes"):
        rand.randomize(np.zeros((2, 1)), np.array([1, 7]))


def test_clipping_is_to_the_declared_bounds():
    rand = GaussianRecordRandomizer(
        2, epsilon=1.0, delta=1e-5, data_norm=2.0, y_bound=0.5
    )
    features = rand.features(np.array([[30.0, 40.0], [0.3, 0.4]]))
    np.testing.assert_allclose(np.linalg.norm(features, axis=1), [2.0, 0.5])
    np.testing.assert_allclose(rand.targets(np.array([-7.0, 0.2])), [-0.5, 0.2])


def test_feature_map_output_is_clipped_to_feature_norm():
    rand = GaussianRecordRandomizer(
        2,
        epsilon=1.0,
        delta=1e-5,
        y_bound=1.0,
        feature_map=lambda X: 10.0 * np.hstack([X, X]),
        feature_norm=1.5,
        feature_map_config={"kind": "test"},
    )
    assert np.linalg.norm(rand.features(np.ones((1, 2))), axis=1) == pytest.approx(1.5)
    assert rand.get_config()["feature_map"] == {"kind": "test"}
    with pytest.raises(ValueError, match="feature_norm"):
        GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5, feature_map=np.abs)


def test_chunked_randomization_matches_one_shot_distribution_and_order():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((1000, 3))
    y = rng.standard_normal(1000)
    # Beyond what the 64-bit sampler can certify: the weaker guarantee is
    # stated, with a warning (see test_lattice.py).
    with pytest.warns(PrivacyLeakWarning, match="beyond what"):
        rand = GaussianRecordRandomizer(
            3, epsilon=1e6, delta=1e-5, data_norm=10.0, y_bound=10.0
        )
    assert rand.delta == 1.0
    rand.chunk_size = 64
    reports = rand.randomize(X, y, random_state=0)
    # At huge epsilon the reports are the clipped data in the users' order
    # (within 6 noise standard deviations: false alarm ~ 1e-9 per entry).
    assert rand.sigma_x < 0.05
    np.testing.assert_allclose(reports["x"], clip_l2(X, 10.0), atol=6 * rand.sigma_x)
    np.testing.assert_allclose(reports["y"], np.clip(y, -10, 10), atol=6 * rand.sigma_y)


def test_reports_contract():
    rand = GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5, y_bound=1.0)
    a = rand.randomize(np.zeros((3, 2)), np.zeros(3), random_state=0)
    b = rand.randomize(np.zeros((2, 2)), np.zeros(2), random_state=1)
    both = Reports.concatenate([a, b])
    assert len(both) == 5 and both.as_matrix().shape == (5, 3)
    assert both.n_features == 2 and both.config["epsilon"] == 1.0
    assert len(both.subset(slice(0, 2))) == 2
    other = GaussianRecordRandomizer(2, epsilon=2.0, delta=1e-5, y_bound=1.0)
    c = other.randomize(np.zeros((2, 2)), np.zeros(2), random_state=1)
    with pytest.raises(ValueError, match="epsilon"):
        Reports.concatenate([a, c])
    with pytest.raises(ValueError, match="one row per user"):
        Reports({"x": np.zeros((3, 1)), "y": np.zeros(2)}, {})


@pytest.mark.parametrize(
    "X, y, match",
    [
        (np.array([[np.nan, 0.0]]), np.zeros(1), "NaN"),
        (np.array([[np.inf, 0.0]]), np.zeros(1), "NaN"),
        (np.zeros((2, 3)), np.zeros(2), "features"),
        (np.zeros(2), np.zeros(2), "2-dimensional"),
        (np.zeros((2, 2)), np.zeros(3), "entries"),
        (np.zeros((2, 2)), None, "needs y"),
        (np.zeros((0, 2)), np.zeros(0), "no rows"),
    ],
)
def test_bad_input_is_refused(X, y, match):
    rand = GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5, y_bound=1.0)
    with pytest.raises(ValueError, match=match):
        rand.randomize(X, y)


def test_bad_configuration_is_refused():
    with pytest.raises(ValueError):
        GaussianRecordRandomizer(2, epsilon=1.0, delta=0.0)
    with pytest.raises(ValueError):
        GaussianRecordRandomizer(
            2, epsilon=1.0, delta=1e-5, y_bound=1.0, classes=[0, 1]
        )
    with pytest.raises(ValueError):
        GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5, classes=[1, 1])
    with pytest.raises(ValueError):
        GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5, calibration="tight")


def test_feature_norm_without_a_map_is_refused():
    # Without a map the release is x clipped to data_norm; a smaller
    # feature_norm would calibrate the noise for a bound the data exceed.
    with pytest.raises(ValueError, match="feature_norm"):
        GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5, feature_norm=0.1)
    same = GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5, feature_norm=1.0)
    assert same.feature_norm == same.data_norm == 1.0


def test_no_data_norm_needs_a_map_and_skips_the_first_clip():
    with pytest.raises(ValueError, match="feature_map"):
        GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5, data_norm=None)
    rand = GaussianRecordRandomizer(
        2,
        epsilon=1.0,
        delta=1e-5,
        data_norm=None,
        feature_map=lambda X: X / 100.0,
        feature_norm=1.0,
    )
    # x = (300, 400) is not clipped to a data_norm: its map has norm 5,
    # clipped to feature_norm = 1.
    features = rand.features(np.array([[300.0, 400.0], [30.0, 40.0]]))
    np.testing.assert_allclose(features, [[0.6, 0.8], [0.3, 0.4]])
    assert rand.get_config()["data_norm"] is None


def test_map_configuration_and_planned_population_are_recorded():
    class Doubling:
        n_components = 4

        def __call__(self, X):
            return np.hstack([X, X])

        def get_config(self):
            return {"map": "doubling"}

    rand = GaussianRecordRandomizer(
        2,
        epsilon=1.0,
        delta=1e-5,
        feature_map=Doubling(),
        feature_norm=1.0,
        n_users=1000,
    )
    config = rand.get_config()
    assert config["feature_map"] == {"map": "doubling"}
    assert config["n_users"] == 1000
    assert (
        "n_users"
        not in GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5).get_config()
    )


def test_chunk_size_follows_the_values_per_user():
    # The package's one chunk rule: about CHUNK_VALUES numbers per chunk.
    from sklearn_ldp.randomizers import chunk_rows

    small = GaussianRecordRandomizer(3, epsilon=1.0, delta=1e-5)
    assert small.chunk_size == chunk_rows(3)
    wide = GaussianRecordRandomizer(10_000, epsilon=1.0, delta=1e-5)
    assert wide.chunk_size == chunk_rows(10_000) < small.chunk_size
    mapped = GaussianRecordRandomizer(
        3,
        epsilon=1.0,
        delta=1e-5,
        feature_map=RandomFourierFeatures(3, 5000),
        feature_norm=FOURIER_FEATURE_NORM,
    )
    assert mapped.chunk_size == chunk_rows(5000)


RANDOMIZERS = {
    "regression": dict(y_bound=3.0),
    "binary": dict(classes=["no", "yes"]),
    "multiclass": dict(classes=[0, 1, 2]),
    "features only": dict(),
    "paper": dict(y_bound=0.5, calibration="paper"),
}


def _records(kind, n, rng):
    X = 2.0 * rng.standard_normal((n, 4))
    if kind == "features only":
        return X, None
    if "classes" in RANDOMIZERS[kind]:
        return X, np.asarray(RANDOMIZERS[kind]["classes"])[rng.randint(0, 2, n)]
    return X, 5.0 * rng.standard_normal(n)


@pytest.mark.parametrize("kind", list(RANDOMIZERS))
def test_reports_lie_on_the_public_lattice_inside_the_stated_support(kind):
    rand = GaussianRecordRandomizer(4, epsilon=1.0, delta=1e-6, **RANDOMIZERS[kind])
    config = rand.get_config()
    assert config["granularity"] == rand.granularity
    assert np.log2(rand.granularity) == np.round(np.log2(rand.granularity))
    X, y = _records(kind, 20_000, np.random.RandomState(0))
    reports = rand.randomize(X, y, random_state=1)
    assert np.all(on_lattice(reports.as_matrix(), rand.granularity))
    support = rand.report_support()
    assert set(support) == set(reports.fields)
    for name, field in support.items():
        step = getattr(rand, f"granularity_{name}")
        assert field.step == step and np.all(on_lattice(reports[name], step))
    valid, reasons = rand.validate_reports(reports)
    assert valid.all() and reasons == {}


def test_the_support_is_exact_and_the_server_rejects_what_is_outside():
    rand = GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5, y_bound=1.0)
    g, sampler = (
        rand.granularity_x,
        rounded_gaussian(np.sqrt((rand.sigma_x / rand.granularity_x) ** 2 - 1 / 12)),
    )
    half_width = sampler.support[1]
    # x = (1, 0) is on the lattice; the largest noise draw reaches the bound.
    field = rand.report_support()["x"]
    assert field.high.max() == g * (1 / g + half_width)
    assert field.low.min() == -g * (1 / g + half_width)
    reports = rand.randomize(np.zeros((6, 2)), np.zeros(6), random_state=0)
    x = reports["x"].copy()
    x[1, 0] += g / 2  # off the lattice
    x[2, 1] = 1e12  # far outside
    x[3, 0] = np.nan
    x[4, 0] = field.high.max() + g  # one step beyond the support
    tampered = Reports({"x": x, "y": reports["y"]}, reports.config)
    valid, reasons = rand.validate_reports(tampered)
    assert valid.tolist() == [True, False, False, False, False, True]
    assert reasons == {
        "off the lattice": 1,
        "outside the support": 2,
        "not finite": 1,
    }


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 8.0])
def test_sigma_is_the_exact_std_of_the_released_noise(epsilon):
    rand = GaussianRecordRandomizer(10, epsilon=epsilon, delta=1e-6, classes=[0, 1, 2])
    for sigma, step in [
        (rand.sigma_x, rand.granularity_x),
        (rand.sigma_y, rand.granularity_y),
    ]:
        scale = np.sqrt((sigma / step) ** 2 - 1 / 12)
        sampler = rounded_gaussian(scale)
        # What is sampled has variance (sigma / g)^2 cells^2 to float accuracy.
        assert sampler.variance() == pytest.approx((sigma / step) ** 2, rel=1e-9)


def test_client_randomness_is_the_os_csprng_unless_seeded():
    rand = GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5, y_bound=1.0)
    X, y = np.zeros((50, 2)), np.zeros(50)
    # random_state=None never reads numpy's global state.
    np.random.seed(0)  # noqa: NPY002 - the global state must not matter
    first = rand.randomize(X, y).as_matrix()
    np.random.seed(0)  # noqa: NPY002 - the global state must not matter
    second = rand.randomize(X, y).as_matrix()
    assert not np.array_equal(first, second)
    # An integer reproduces a simulation exactly; a NoiseSource is used as is.
    again = [rand.randomize(X, y, random_state=7).as_matrix() for _ in range(2)]
    np.testing.assert_array_equal(*again)
    assert NoiseSource().secure
