"""Every randomizer draws from a secure source and reports on a public lattice.

For every randomizer exported from :mod:`sklearn_ldp.randomizers` (and the
one every LDP estimator publishes): ``random_state=None`` never reads numpy's
global state (``np.random.seed(0)`` before two calls gives different
reports), every number a report carries is a multiple of the configuration's
``granularity``, and the server's validation accepts every honest report.
"""

import inspect

import numpy as np
import pytest
from sklearn.base import ClassifierMixin, RegressorMixin

import sklearn_ldp
import sklearn_ldp.randomizers as randomizers
from sklearn_ldp._base import LDPEstimatorMixin

N_USERS = 300


def _records(n_features, *, binary=False, labels=None, seed=0):
    rng = np.random.RandomState(seed)
    if binary:
        return (rng.uniform(size=(N_USERS, n_features)) < 0.4).astype(float), None
    X = rng.uniform(-1, 1, size=(N_USERS, n_features)) / np.sqrt(n_features)
    if labels is not None:
        return X, np.where(X.sum(axis=1) > 0, labels[1], labels[0])
    return X, np.clip(X.sum(axis=1), -1, 1)


#: One small configuration per exported record randomizer: (factory, records).
RECORD_RANDOMIZERS = {
    "BernsteinLossRandomizer": (
        lambda: randomizers.BernsteinLossRandomizer(1, epsilon=1.0, degree=2),
        lambda: _records(1),
    ),
    "FrequencyRandomizer": (
        lambda: randomizers.FrequencyRandomizer(
            2, epsilon=1.0, categories=5, mechanism="subset_selection"
        ),
        lambda: (np.random.RandomState(0).randint(0, 5, size=(N_USERS, 2)), None),
    ),
    "GaussianCopiesRandomizer": (
        lambda: randomizers.GaussianCopiesRandomizer(
            2, epsilon=1.0, delta=1e-5, degree=2, protocol="power_copies"
        ),
        lambda: _records(2, labels=[-1, 1]),
    ),
    "GaussianRecordRandomizer": (
        lambda: randomizers.GaussianRecordRandomizer(
            2, epsilon=1.0, delta=1e-5, y_bound=1.0
        ),
        lambda: _records(2),
    ),
    "HadamardMarginalRandomizer": (
        lambda: randomizers.HadamardMarginalRandomizer(4, epsilon=1.0, k=2),
        lambda: _records(4, binary=True),
    ),
    "MarginalRandomizer": (
        lambda: randomizers.MarginalRandomizer(4, epsilon=1.0, k=2),
        lambda: _records(4, binary=True),
    ),
    "PrivUnitGRandomizer": (
        lambda: randomizers.PrivUnitGRandomizer(2, epsilon=1.0),
        lambda: (_records(2)[0], None),
    ),
    "PrivUnitGRecordRandomizer": (
        lambda: randomizers.PrivUnitGRecordRandomizer(
            2, epsilon=1.0, classes=["no", "yes"]
        ),
        lambda: _records(2, labels=["no", "yes"]),
    ),
    "TrigonometricRandomizer": (
        lambda: randomizers.TrigonometricRandomizer(1, epsilon=1.0, degree=3),
        lambda: _records(1),
    ),
    "TargetMeanRandomizer": (
        lambda: randomizers.TargetMeanRandomizer(2, epsilon=3.0, y_bound=1.0),
        lambda: _records(2),
    ),
    "LabelRandomizer": (
        lambda: randomizers.LabelRandomizer(2, epsilon=3.0, classes=[0, 1, 2]),
        lambda: _records(2, labels=[0, 2]),
    ),
}

#: One configuration per exported scalar mechanism: ``randomize(values)``.
SCALAR_MECHANISMS = {
    "BassilySmithMechanism": lambda: randomizers.BassilySmithMechanism(1.0),
    "DuchiMechanism": lambda: randomizers.DuchiMechanism(1.0),
    "GaussianMechanism": lambda: randomizers.GaussianMechanism(1.0, 1e-5),
    "GenProtMechanism": lambda: randomizers.GenProtMechanism(1.0),
    "LaplaceMechanism": lambda: randomizers.LaplaceMechanism(1.0),
    "PiecewiseMechanism": lambda: randomizers.PiecewiseMechanism(1.0),
}

#: Exported classes with a ``randomize`` that are bases, not randomizers.
ABSTRACT = {"LocalRandomizer", "VectorAverageRandomizer"}

LDP_ESTIMATORS = [
    getattr(sklearn_ldp, name)
    for name in sklearn_ldp.__all__
    if inspect.isclass(getattr(sklearn_ldp, name))
    and issubclass(getattr(sklearn_ldp, name), LDPEstimatorMixin)
]

#: Small estimator configurations (as in tests/test_contract.py).
ESTIMATOR_PARAMS = {
    "LocalBernsteinRegressor": {"degree": 3},
    "KernelDensityLDP": {"degree": 4},
    "KWayMarginalsLDP": {"k": 2},
}


def _estimator_randomizer(cls):
    name = cls.__name__
    if name == "KWayMarginalsLDP":
        X, y = _records(4, binary=True)
    elif issubclass(cls, ClassifierMixin):
        X, y = _records(3, labels=["no", "yes"])
    else:
        X, y = _records(1 if name == "LocalBernsteinRegressor" else 3)
        y = y if issubclass(cls, RegressorMixin) else None
    est = cls(random_state=0, **ESTIMATOR_PARAMS.get(name, {}))
    classes = np.unique(y) if issubclass(cls, ClassifierMixin) else None
    randomizer = est.make_randomizer(X.shape[1], n_users=len(X), classes=classes)
    return randomizer, X, y


#: Further configurations of an exported record randomizer: (factory, records).
RECORD_VARIANTS = {
    "PrivUnitGRecordRandomizer(y_bound, feature_map)": (
        lambda: randomizers.PrivUnitGRecordRandomizer(
            3,
            epsilon=1.0,
            y_bound=1.0,
            feature_map=randomizers.RandomProjection(3, 2, kind="gaussian", seed=0),
            feature_norm=1.0,
        ),
        lambda: _records(3),
    ),
}

CASES = {
    **{
        name: lambda f=f, r=r: (f(), *r())
        for name, (f, r) in {**RECORD_RANDOMIZERS, **RECORD_VARIANTS}.items()
    },
    **{
        f"{cls.__name__}.make_randomizer": lambda cls=cls: _estimator_randomizer(cls)
        for cls in LDP_ESTIMATORS
    },
}


def test_every_exported_randomizer_is_covered():
    exported = {
        name
        for name in randomizers.__all__
        if inspect.isclass(getattr(randomizers, name))
        and hasattr(getattr(randomizers, name), "randomize")
    }
    assert exported - ABSTRACT == set(RECORD_RANDOMIZERS) | set(SCALAR_MECHANISMS)


@pytest.mark.parametrize("case", list(CASES))
def test_numpy_global_seed_does_not_fix_the_reports(case):
    randomizer, X, y = CASES[case]()
    np.random.seed(0)  # noqa: NPY002 - the global state under test
    first = randomizer.randomize(X, y, random_state=None).as_matrix()
    np.random.seed(0)  # noqa: NPY002 - the global state under test
    second = randomizer.randomize(X, y, random_state=None).as_matrix()
    assert first.shape == second.shape
    assert not np.array_equal(first, second)
    # An integer seed reproduces them (simulations), whatever the global state.
    np.random.seed(1)  # noqa: NPY002 - the global state under test
    again = randomizer.randomize(X, y, random_state=7).as_matrix()
    np.random.seed(2)  # noqa: NPY002 - the global state under test
    np.testing.assert_array_equal(
        again, randomizer.randomize(X, y, random_state=7).as_matrix()
    )


@pytest.mark.parametrize("case", list(CASES))
def test_reports_are_on_the_lattice_and_valid(case):
    randomizer, X, y = CASES[case]()
    config = randomizer.get_config()
    assert "granularity" in config
    granularity = config["granularity"]
    assert granularity > 0 and np.log2(granularity) == np.round(np.log2(granularity))
    reports = randomizer.randomize(X, y, random_state=0)
    values = reports.as_matrix()
    assert np.all(np.isfinite(values))
    ratio = values / granularity
    assert np.all(ratio == np.round(ratio)), "a report value is off the lattice"
    valid, reasons = randomizer.validate_reports(reports)
    assert valid.all(), reasons


@pytest.mark.parametrize("name", list(SCALAR_MECHANISMS))
def test_scalar_mechanisms_draw_securely_on_a_lattice(name):
    mechanism = SCALAR_MECHANISMS[name]()
    values = np.linspace(-1, 1, N_USERS)
    np.random.seed(0)  # noqa: NPY002 - the global state under test
    first = np.asarray(mechanism.randomize(values, random_state=None))
    np.random.seed(0)  # noqa: NPY002 - the global state under test
    second = np.asarray(mechanism.randomize(values, random_state=None))
    assert not np.array_equal(first, second)
    granularity = mechanism.granularity
    ratio = first / granularity
    assert np.all(np.isfinite(first)) and np.all(ratio == np.round(ratio))
