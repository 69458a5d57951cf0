"""PublicBoundsScaler: declared public bounds -> the unit ball, nothing fitted on the data."""

import pickle
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.compose import TransformedTargetRegressor
from sklearn.pipeline import make_pipeline

from sklearn_ldp import (
    ClippingWarning,
    GLMLDPClassifier,
    PrivacyLeakWarning,
    PublicBoundsScaler,
    SparseLDPRegressor,
)
from sklearn_ldp.utils import clipping_diagnostics

BOUNDS = [(18.0, 90.0), (0.0, 250_000.0), (0.0, 80.0)]


def _population(n, seed=0):
    """Ages, incomes and hours per week inside BOUNDS."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(18, 90, n)
    income = rng.uniform(0, 250_000, n)
    hours = rng.uniform(0, 80, n)
    return np.column_stack([age, income, hours])


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.fixture
def no_bounds_warnings():
    """Estimators may warn about other things; not about clipping or leaks."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        warnings.simplefilter("error", PrivacyLeakWarning)
        yield


def test_declared_bounds_give_the_exact_affine_map(no_warnings):
    X = _population(500)
    scaler = PublicBoundsScaler(feature_bounds=BOUNDS).fit(X)
    low, high = np.array(BOUNDS).T
    expected = (2 * (X - low) / (high - low) - 1) / np.sqrt(3)
    # Up to the relative margin of 1e-12 that keeps rounding inside the ball.
    assert_allclose(scaler.transform(X), expected, rtol=1e-11, atol=1e-15)
    # The declared corners land on the sphere, the centre at 0.
    corners = np.array([low, high, (low + high) / 2])
    Z = scaler.transform(corners)
    assert_allclose(np.linalg.norm(Z, axis=1), [1, 1, 0], atol=1e-11)
    assert_allclose(scaler.center_, (low + high) / 2)
    assert_array_equal(scaler.bounds_, np.array(BOUNDS))
    assert scaler.bounds_from_data_ is False
    assert scaler.clipped_fraction_ == 0.0


def test_output_domain_box_maps_each_range_to_minus_one_one(no_warnings):
    X = _population(200)
    Z = PublicBoundsScaler(feature_bounds=BOUNDS, output_domain="box").fit_transform(X)
    low, high = np.array(BOUNDS).T
    assert_allclose(Z, 2 * (X - low) / (high - low) - 1, atol=1e-12)
    assert np.abs(Z).max() <= 1


def test_one_pair_is_broadcast_to_every_feature(no_warnings):
    X = np.random.default_rng(1).uniform(-3, 5, size=(50, 4))
    scaler = PublicBoundsScaler(feature_bounds=(-3, 5)).fit(X)
    assert scaler.bounds_.shape == (4, 2)
    assert_allclose(scaler.transform(X), ((X - 1) / 4) / 2, rtol=1e-11)


@pytest.mark.parametrize("seed", range(12))
def test_declared_corners_are_not_counted_as_clipped_by_the_estimators(seed):
    # Rows at corners of the declared box (binary features, values at a
    # cap) land on the sphere; rounding must not put them outside the
    # estimators' data_norm=1 (without the margin, 3 of these 12 seeds had
    # rows at norm 1 + 2^-52: seed 4 three quarters of them).
    rng = np.random.default_rng(seed)
    n_features = 2 + seed
    bounds = np.column_stack(
        [rng.uniform(-100, 0, n_features), rng.uniform(1, 1e5, n_features)]
    )
    X = np.where(rng.integers(0, 2, size=(200, n_features)), bounds[:, 1], bounds[:, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Z = PublicBoundsScaler(feature_bounds=bounds).fit_transform(X)
        fraction, _ = clipping_diagnostics(Z, data_norm=1.0)
        box = PublicBoundsScaler(feature_bounds=bounds, output_domain="box")
        unit_box = np.array([[-1.0], [1.0]]).repeat(n_features, axis=1)
        fraction_box, _ = clipping_diagnostics(box.fit_transform(X), box=unit_box)
    assert fraction == 0.0 and fraction_box == 0.0
    assert_allclose(np.linalg.norm(Z, axis=1), 1.0, atol=1e-11)


@pytest.mark.parametrize("output_domain", ["ball", "box"])
def test_output_lies_in_the_unit_ball_or_box_even_far_outside(output_domain):
    rng = np.random.default_rng(2)
    X = _population(1000) * rng.choice([-100.0, 1.0, 100.0], size=(1000, 3))
    with pytest.warns(ClippingWarning):
        Z = PublicBoundsScaler(
            feature_bounds=BOUNDS, output_domain=output_domain
        ).fit_transform(X)
    assert np.all(np.isfinite(Z))
    if output_domain == "ball":
        assert np.linalg.norm(Z, axis=1).max() <= 1 + 1e-12
    else:
        assert np.abs(Z).max() <= 1 + 1e-12


def test_norm_bound_divides_rows_and_clips_to_the_ball():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X *= rng.uniform(0, 10, size=(400, 1))  # norms in [0, 10]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        inside = PublicBoundsScaler(norm_bound=10.0).fit(X)
    assert_allclose(inside.transform(X), X / 10.0, rtol=1e-11)
    assert inside.bounds_ is None and inside.feature_clipped_fraction_ is None
    far = np.vstack([X, [[1e6, 0, 0, 0, 0]] * 100])
    with pytest.warns(ClippingWarning, match=r"20\.0% of the 500 rows"):
        scaler = PublicBoundsScaler(norm_bound=10.0).fit(far)
    assert scaler.clipped_fraction_ == pytest.approx(0.2)
    Z = scaler.transform(far)
    assert_allclose(Z[-1], [1, 0, 0, 0, 0])
    assert np.linalg.norm(Z, axis=1).max() <= 1 + 1e-12


def test_inverse_transform_round_trips_inside_the_bounds(no_warnings):
    X = _population(300)
    for params in ({"feature_bounds": BOUNDS}, {"norm_bound": 3e5}):
        scaler = PublicBoundsScaler(**params).fit(X)
        assert_allclose(scaler.inverse_transform(scaler.transform(X)), X, rtol=1e-12)


def test_inverse_transform_returns_clipped_values_at_the_bound():
    X = np.array([[100.0, 300_000.0, -5.0], [30.0, 1000.0, 40.0]])
    with pytest.warns(ClippingWarning):
        scaler = PublicBoundsScaler(feature_bounds=BOUNDS).fit(X)
    assert_allclose(scaler.inverse_transform(scaler.transform(X))[0], [90, 250_000, 0])
    # clip=False keeps them (outside the ball), so the round trip is exact.
    with pytest.warns(ClippingWarning, match="clip=False"):
        kept = PublicBoundsScaler(feature_bounds=BOUNDS, clip=False).fit(X)
    assert np.linalg.norm(kept.transform(X)[0]) > 1
    assert_allclose(kept.inverse_transform(kept.transform(X)), X)


def test_clipped_rows_are_counted_and_warned_above_one_percent():
    X = _population(1000)
    X[:5, 0] = 95.0  # 0.5% of the rows: counted, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaler = PublicBoundsScaler(feature_bounds=BOUNDS).fit(X)
    assert scaler.clipped_fraction_ == pytest.approx(0.005)
    assert_allclose(scaler.feature_clipped_fraction_, [0.005, 0, 0])

    X[:30, 1] = 400_000.0  # 3% of the rows, 5 of them also too old
    with pytest.warns(ClippingWarning) as record:
        scaler = PublicBoundsScaler(feature_bounds=BOUNDS).fit(X)
    assert scaler.clipped_fraction_ == pytest.approx(0.03)
    assert_allclose(scaler.feature_clipped_fraction_, [0.005, 0.03, 0])
    message = str(record[0].message)
    assert "3.0% of the 1000 rows" in message
    assert "'x1' 3.0%, 'x0' 0.5%" in message
    assert record[0].filename == __file__  # points at the caller of fit


def test_clipping_warning_names_dataframe_columns():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(_population(100), columns=["age", "income", "hours"])
    X.loc[:9, "income"] = 1e6
    with pytest.warns(ClippingWarning, match="'income' 10.0%"):
        scaler = PublicBoundsScaler(feature_bounds=BOUNDS).fit(X)
    assert_array_equal(scaler.get_feature_names_out(), ["age", "income", "hours"])


def test_bounds_from_the_data_warn_privacy_leak_declared_bounds_do_not():
    X = _population(100)
    with pytest.warns(PrivacyLeakWarning, match="not covered by the privacy guarantee"):
        scaler = PublicBoundsScaler().fit(X)
    assert scaler.bounds_from_data_ is True
    assert_allclose(scaler.bounds_, np.column_stack([X.min(0), X.max(0)]))
    assert np.linalg.norm(scaler.transform(X), axis=1).max() <= 1 + 1e-12
    for params in ({"feature_bounds": BOUNDS}, {"norm_bound": 1e6}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            PublicBoundsScaler(**params).fit(X)


def test_constant_feature_from_the_data_maps_to_zero():
    X = np.column_stack([np.full(10, 7.0), np.arange(10.0)])
    with pytest.warns(PrivacyLeakWarning):
        Z = PublicBoundsScaler().fit_transform(X)
    assert_array_equal(Z[:, 0], 0.0)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"feature_bounds": [(18, 90), (90, 18), (0, 80)]}, "low < high.*feature 1"),
        ({"feature_bounds": [(18, 90), (5, 5), (0, 80)]}, "low < high.*feature 1"),
        ({"feature_bounds": [(18, np.nan), (0, 1), (0, 80)]}, "feature_bounds must be finite"),
        ({"feature_bounds": [(0, np.inf)] * 3}, "feature_bounds must be finite"),
        ({"feature_bounds": [(18, 90), (0, 1)]}, r"feature_bounds.*\(3, 2\).*shape \(2, 2\)"),
        ({"feature_bounds": [[18, 0, 0], [90, 1, 80]]}, "feature_bounds.*transpose"),
        ({"feature_bounds": (1, 2, 3)}, "feature_bounds.*shape"),
        ({"feature_bounds": [(0, "high")] * 3}, "feature_bounds must be"),
        ({"feature_bounds": BOUNDS, "norm_bound": 1.0}, "either feature_bounds or norm_bound"),
        ({"norm_bound": np.inf}, "norm_bound"),
        ({"norm_bound": -1.0}, "norm_bound"),
        ({"output_domain": "sphere", "feature_bounds": BOUNDS}, "output_domain"),
    ],
)
def test_invalid_bounds_raise_a_value_error_naming_the_parameter(params, match):
    with pytest.raises(ValueError, match=match):
        PublicBoundsScaler(**params).fit(_population(20))


def test_wrong_number_of_features_at_transform():
    scaler = PublicBoundsScaler(feature_bounds=BOUNDS).fit(_population(20))
    with pytest.raises(ValueError, match="expecting 3 features"):
        scaler.transform(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="expecting 3 features"):
        scaler.inverse_transform(np.zeros((2, 4)))


def test_pipeline_with_an_ldp_classifier_fits_and_predicts(no_bounds_warnings):
    X = _population(20_000, seed=4)
    low, high = np.array(BOUNDS).T
    signal = ((X - (low + high) / 2) / (high - low)) @ [2.0, 1.0, 0.0]
    y = (signal > 0).astype(int)
    pipe = make_pipeline(
        PublicBoundsScaler(feature_bounds=BOUNDS),
        GLMLDPClassifier(epsilon=8.0, random_state=0),
    ).fit(X, y)
    # Nothing left for the estimator's own clipping.
    assert pipe[-1].clipped_fraction_ == 0.0
    # Balanced separable classes: seeds 0-9 of the users' noise gave 0.90 to
    # 0.99 at this epsilon; the majority rate is about 0.5.
    assert pipe.score(X, y) > 0.8
    assert set(pipe.predict(X[:10])) <= {0, 1}


def test_target_scaling_with_transformed_target_regressor(no_bounds_warnings):
    rng = np.random.default_rng(5)
    X = _population(20_000, seed=5)
    y = 100 + 2 * X[:, 2] + rng.normal(0, 5, len(X))  # in [0, 300]
    model = make_pipeline(
        PublicBoundsScaler(feature_bounds=BOUNDS),
        TransformedTargetRegressor(
            SparseLDPRegressor(epsilon=8.0, projection="identity", random_state=0),
            transformer=PublicBoundsScaler(feature_bounds=(0, 300)),
        ),
    ).fit(X, y)
    predictions = model.predict(X)
    # The regressor works in [-1, 1]; its predictions come back in units.
    scaled = model[-1].regressor_.predict(model[0].transform(X))
    assert_allclose(predictions, 150 + 150 * scaled)
    assert model[-1].regressor_.clipped_fraction_ == 0.0  # y within y_bound=1
    # Better than the constant model: the slope on hours was found.
    assert model.score(X, y) > 0


def test_pickle_round_trip(no_warnings):
    X = _population(50)
    scaler = PublicBoundsScaler(feature_bounds=BOUNDS).fit(X)
    clone = pickle.loads(pickle.dumps(scaler))
    assert_array_equal(clone.transform(X), scaler.transform(X))
    assert clone.get_params() == scaler.get_params()


def test_set_output_pandas_keeps_column_names():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(_population(10), columns=["age", "income", "hours"])
    scaler = PublicBoundsScaler(feature_bounds=BOUNDS).set_output(transform="pandas")
    Z = scaler.fit_transform(X)
    assert list(Z.columns) == ["age", "income", "hours"]
    assert np.linalg.norm(Z.to_numpy(), axis=1).max() <= 1 + 1e-12
