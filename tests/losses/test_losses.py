"""The one loss registry: names, kinds, derivatives, curvature and datafit bounds."""

import ast
from pathlib import Path

import numpy as np
import pytest

import sklearn_ldp.losses as losses_module
from sklearn_ldp.losses import (
    KINDS,
    LOSSES,
    DerivativeMarginLoss,
    check_convex_derivative,
    get_loss,
    gradient_bound,
    per_example_gradients,
    smoothness,
)

MARGIN = [name for name, cls in LOSSES.items() if cls.kind == "margin"]
RESIDUAL = [name for name, cls in LOSSES.items() if cls.kind == "residual"]


def test_registry_names_and_kinds():
    assert set(MARGIN) == {
        "logistic",
        "hinge",
        "squared_hinge",
        "modified_huber",
        "smoothed_hinge",
        "sigmoid",
    }
    assert set(RESIDUAL) == {"squared", "absolute", "huber"}
    assert LOSSES["multinomial"].kind == "multiclass"
    for name, cls in LOSSES.items():
        loss = get_loss(name)
        assert loss.name == name and loss.kind in KINDS
        assert isinstance(loss, cls)
    # 'huber' is the regression loss only; the classification one is modified.
    assert get_loss("huber").kind == "residual"
    assert get_loss("modified_huber").kind == "margin"


def test_get_loss_parameters_and_errors():
    assert get_loss("huber", delta=2.5).delta == 2.5
    assert get_loss("huber").delta == 1.0
    assert get_loss("smoothed_hinge", smoothing=0.25).curvature == 2.0
    assert repr(get_loss("huber", delta=2.0)) == "HuberLoss(delta=2.0)"
    with pytest.raises(ValueError, match="Unknown loss 'nope'"):
        get_loss("nope")
    with pytest.raises(ValueError, match="no parameter"):
        get_loss("logistic", delta=1.0)
    with pytest.raises(ValueError, match="delta must be"):
        get_loss("huber", delta=0.0)
    with pytest.raises(ValueError, match="smoothing must be"):
        get_loss("smoothed_hinge", smoothing=-1.0)


def test_losses_depend_only_on_numpy_and_scipy():
    # A device evaluates losses: the room sits below every other one.
    allowed = {"numpy", "scipy", "inspect"}
    for path in Path(losses_module.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: within the room only
                    assert node.level == 1, (path.name, node.module)
                    continue
                roots = {node.module.split(".")[0]}
            else:
                continue
            assert roots <= allowed, (path.name, roots)


# -- margin losses -------------------------------------------------------------

T = np.linspace(-3.0, 3.0, 6001)
KINKS = {"hinge": [1.0], "modified_huber": [-1.0, 1.0], "squared_hinge": [1.0]}


@pytest.mark.parametrize("name", MARGIN)
def test_margin_derivative_and_curvature(name):
    loss = get_loss(name)
    values, derivative = loss.margin_value(T), loss.margin_derivative(T)
    away = np.ones_like(T, dtype=bool)
    for kink in KINKS.get(name, []):
        away &= np.abs(T - kink) > 0.01
    numeric = np.gradient(values, T, edge_order=2)
    np.testing.assert_allclose(derivative[away], numeric[away], atol=1e-4)
    if loss.curvature is not None:
        slope = np.abs(np.gradient(derivative, T))
        assert slope[away].max() <= loss.curvature * (1 + 1e-3) + 1e-6
    if loss.convex:
        check_convex_derivative(loss.margin_derivative, (-3.0, 3.0))
    else:
        with pytest.raises(ValueError, match="not convex"):
            check_convex_derivative(loss.margin_derivative, (-3.0, 3.0))


@pytest.mark.parametrize("name", MARGIN)
def test_margin_datafit_is_the_margin_function(name):
    loss = get_loss(name)
    rng = np.random.RandomState(0)
    scores = rng.standard_normal((50, 1)) * 2
    targets = loss.encode(rng.randint(2, size=50), 2)
    np.testing.assert_array_equal(
        loss.value(scores, targets), loss.margin_value(scores[:, 0] * targets)
    )
    np.testing.assert_array_equal(
        loss.derivative(scores, targets)[:, 0],
        targets * loss.margin_derivative(scores[:, 0] * targets),
    )


@pytest.mark.parametrize("name", MARGIN)
def test_per_example_gradients_within_the_bound(name):
    loss = get_loss(name)
    rng = np.random.RandomState(1)
    R, coef_norm = 1.5, 2.0
    X = rng.standard_normal((2000, 3))
    X *= R / np.linalg.norm(X, axis=1, keepdims=True)
    targets = loss.encode(rng.randint(2, size=2000), 2)
    W = rng.standard_normal((3, 1))
    W *= coef_norm / np.linalg.norm(W)
    grads = per_example_gradients(loss, X, W, targets)
    G = gradient_bound(loss, R, coef_norm)
    assert np.linalg.norm(grads.reshape(2000, -1), axis=1).max() <= G * (1 + 1e-12)


def test_smoothed_hinge_lemma_28():
    beta = 0.5
    loss = get_loss("smoothed_hinge", smoothing=beta)
    t = np.linspace(-3, 3, 2001)
    hinge = np.maximum(0.0, 0.5 - t)
    gap = loss.margin_value(t) - hinge
    assert np.all(gap >= 0) and np.all(gap <= beta / 2 + 1e-12)
    numeric = np.gradient(loss.margin_value(t), t)
    np.testing.assert_allclose(loss.margin_derivative(t), numeric, atol=1e-4)
    slope = np.gradient(loss.margin_derivative(t), t)
    assert slope.max() <= 1 / (2 * beta) + 1e-6  # f'' <= 1 / (2 beta)
    assert loss.curvature == 1 / (2 * beta)


def test_derivative_margin_loss_wraps_a_callable():
    logistic = get_loss("logistic")
    loss = DerivativeMarginLoss(logistic.margin_derivative, 0.25)
    np.testing.assert_array_equal(
        loss.margin_derivative(T), logistic.margin_derivative(T)
    )
    assert loss.curvature == 0.25 and loss.kind == "margin"
    with pytest.raises(ValueError, match="derivative only"):
        loss.margin_value(T)
    with pytest.raises(ValueError, match="callable"):
        DerivativeMarginLoss(1.0)


def test_bounds_refuse_what_they_cannot_bound():
    with pytest.raises(ValueError, match="not smooth"):
        smoothness(get_loss("hinge"), 1.0)
    with pytest.raises(ValueError, match="residual loss"):
        gradient_bound(get_loss("squared"), 1.0)
    with pytest.raises(ValueError, match="not convex"):
        check_convex_derivative(lambda t: -np.asarray(t), (-1.0, 1.0))
    with pytest.raises(ValueError, match="finite"):
        check_convex_derivative(lambda t: np.full_like(t, np.nan), (-1.0, 1.0))


# -- residual losses -----------------------------------------------------------


def test_residual_losses_values():
    r = np.array([[-3.0, -1.0, -0.25], [0.0, 0.5, 2.0]])  # any shape
    np.testing.assert_array_equal(get_loss("squared").value(r), r**2)
    np.testing.assert_array_equal(get_loss("absolute").value(r), np.abs(r))
    huber = get_loss("huber", delta=1.0).value(r)
    expected = np.where(np.abs(r) <= 1.0, 0.5 * r**2, np.abs(r) - 0.5)
    np.testing.assert_array_equal(huber, expected)
    assert float(get_loss("huber", delta=2.0).value(3.0)) == 2.0 * (3.0 - 1.0)


@pytest.mark.parametrize("name", RESIDUAL)
@pytest.mark.parametrize("delta", [0.5, 2.0])
def test_residual_derivative_and_curvature(name, delta):
    loss = get_loss(name, delta=delta) if name == "huber" else get_loss(name)
    r = np.linspace(-4.0, 4.0, 8001)
    away = np.abs(r) > 0.01
    numeric = np.gradient(loss.value(r), r, edge_order=2)
    np.testing.assert_allclose(loss.derivative(r)[away], numeric[away], atol=1e-3)
    if loss.curvature is not None:
        slope = np.abs(np.gradient(loss.derivative(r), r))
        assert slope.max() <= loss.curvature * (1 + 1e-3)
