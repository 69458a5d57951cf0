"""Fixtures shared by the test modules."""

import numpy as np
import pytest


def fitted_state(est, exclude=()):
    """The public fitted attributes of an estimator (names ending in ``_``)."""
    return {
        key: value
        for key, value in vars(est).items()
        if key.endswith("_") and not key.startswith("_") and key not in exclude
    }


def assert_same(a, b, path, *, rtol, depth=0):
    """Recursively compare fitted attributes (arrays, numbers, containers, objects)."""
    if isinstance(a, dict):
        assert set(a) == set(b), path
        for key in a:
            assert_same(a[key], b[key], f"{path}[{key!r}]", rtol=rtol, depth=depth)
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), path
        for i, (u, v) in enumerate(zip(a, b, strict=True)):
            assert_same(u, v, f"{path}[{i}]", rtol=rtol, depth=depth)
    elif isinstance(a, np.ndarray | float | int | np.generic):
        if np.asarray(a).dtype.kind in "fc":
            np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12, err_msg=path)
        else:
            np.testing.assert_array_equal(a, b, err_msg=path)
    elif hasattr(a, "__dict__") and depth < 2 and not callable(a):
        assert_same(vars(a), vars(b), path, rtol=rtol, depth=depth + 1)
    else:
        assert type(a) is type(b), path


@pytest.fixture
def same_fitted_state():
    """``(state_a, state_b, path, *, rtol)``: assert two fitted states agree."""
    return assert_same


@pytest.fixture
def fitted_attributes():
    """``(est, exclude=())``: the estimator's public fitted attributes."""
    return fitted_state


def gaussian_direction_statistic(means, sigma_x, sigma_y, n_features):
    """The optimal audit statistic for two Gaussian report laws with these means.

    Projects the report matrix on ``(mean_a - mean_b) / variance`` (the
    log-likelihood ratio of independent Gaussian noise, up to a constant);
    ``sigma_x`` (one per feature copy) and ``sigma_y`` (one per label copy)
    are repeated over the features and label entries of the flattened report.
    """
    width = means[0].size
    sigma_x = np.repeat(np.atleast_1d(sigma_x), n_features)
    sigma_y = np.repeat(
        np.atleast_1d(sigma_y), (width - sigma_x.size) // np.size(sigma_y)
    )
    variance = np.concatenate([sigma_x, sigma_y]) ** 2
    direction = (means[0] - means[1]) / variance
    return lambda matrix: matrix @ direction


@pytest.fixture
def likelihood_ratio_statistic():
    """``(means, sigma_x, sigma_y, n_features)``: the Gaussian audit statistic."""
    return gaussian_direction_statistic


def privunit_pair_direction(rand, record_a, record_b):
    """Projection of a PrivUnitG pair report on ``u_a - u_b``.

    ``u`` the unit vectors the two records' users randomize (clipped
    features, encoded label, height): the cap pushes a report towards its
    user's ``u``, so this projection separates the two laws most.
    """
    u_a, u_b = (
        rand.vector.embed(rand.pair(np.array([r[0]], float), np.array([r[1]])))[0]
        for r in (record_a, record_b)
    )
    return lambda matrix: matrix @ (u_a - u_b)


@pytest.fixture
def privunit_pair_statistic():
    """``(rand, record_a, record_b)``: the PrivUnitG pair audit statistic."""
    return privunit_pair_direction


def _canary_statistics(clf, X, class_indices, n_runs, rng):
    return np.array(
        [clf._train(X, class_indices, 2, rng)[0][0, 0] for _ in range(n_runs)]
    )


def canary_audit(clf, n_runs, seed=0):
    """Audit of a central binary classifier on one canary record.

    Two neighbouring data sets: 5 uninformative rows (x = 0: their gradient
    is zero whatever the weights) and one canary far outside the bound,
    x = +50 or x = -50 (clipped to +-1) with label +1. Statistic: the
    learnt coefficient. Thresholds come from a separate pilot sample.
    """
    from sklearn_ldp.utils import audit_samples

    rng = np.random.RandomState(seed)
    X_a = np.zeros((6, 1))
    X_a[0, 0] = 50.0
    X_b = -X_a
    labels = np.array([1, 1, 0, 1, 0, 0])
    pilot = np.concatenate(
        [
            _canary_statistics(clf, X_a, labels, n_runs // 4, rng),
            _canary_statistics(clf, X_b, labels, n_runs // 4, rng),
        ]
    )
    thresholds = np.quantile(pilot, 1 / (1 + np.exp(-np.linspace(-7, 7, 30))))
    stats_a = _canary_statistics(clf, X_a, labels, n_runs, rng)
    stats_b = _canary_statistics(clf, X_b, labels, n_runs, rng)
    return audit_samples(stats_a, stats_b, clf.epsilon, clf.delta, thresholds)


@pytest.fixture
def classifier_canary_audit():
    """``(clf, n_runs, seed=0)``: :func:`canary_audit`, the audit's result."""
    return canary_audit
