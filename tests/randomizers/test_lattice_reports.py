"""Reports of the vector, grid and GenProt randomizers: on the lattice, exact supports.

For every mechanism of :class:`BernsteinLossRandomizer`,
:class:`TrigonometricRandomizer` and :class:`MarginalRandomizer`, and for
:class:`GenProtMechanism`: every reported number is a multiple of the
granularity, ``report_support()`` accepts every honest report, and it
rejects a forged one (a huge value, NaN, a value off the lattice, an index
outside its range) for the right reason.
"""

import numpy as np
import pytest

from sklearn_ldp.randomizers import (
    BernsteinLossRandomizer,
    GenProtMechanism,
    MarginalRandomizer,
    Reports,
    TrigonometricRandomizer,
    on_lattice,
)
from sklearn_ldp.randomizers._bernstein import MECHANISMS
from sklearn_ldp.randomizers._ldp_avg import VECTOR_MECHANISMS

N_USERS = 400
#: Fields holding integers (indices, bits): forged one past their range.
INTEGER_FIELDS = {"group", "coordinate", "index", "bit"}


def _case(kind, mechanism):
    rng = np.random.RandomState(0)
    if kind == "bernstein":
        X = rng.uniform(-1, 1, size=(N_USERS, 1))
        y = np.clip(0.5 * X[:, 0] + 0.3 * rng.randn(N_USERS), -1, 1)
        rand = BernsteinLossRandomizer(1, epsilon=1.0, degree=2, mechanism=mechanism)
        return rand, X, y
    if kind == "trigonometric":
        X = rng.uniform(-1, 1, size=(N_USERS, 2))
        return (
            TrigonometricRandomizer(2, epsilon=1.0, degree=3, mechanism=mechanism),
            X,
            None,
        )
    X = (rng.uniform(size=(N_USERS, 4)) < 0.4).astype(float)
    return MarginalRandomizer(4, epsilon=1.0, k=2, mechanism=mechanism), X, None


CASES = (
    [("bernstein", m) for m in MECHANISMS]
    + [("trigonometric", m) for m in VECTOR_MECHANISMS]
    + [("marginals", m) for m in VECTOR_MECHANISMS]
)


def _forged(reports, name, value):
    values = reports[name].astype(np.float64)
    values[(0,) * values.ndim] = value
    return Reports({**reports.fields, name: values}, reports.config)


@pytest.mark.parametrize("kind, mechanism", CASES)
def test_reports_are_on_the_lattice_and_inside_the_exact_support(kind, mechanism):
    rand, X, y = _case(kind, mechanism)
    reports = rand.randomize(X, y, random_state=0)
    granularity = rand.get_config()["granularity"]
    assert granularity == rand.granularity <= 1.0
    assert np.log2(granularity) == np.round(np.log2(granularity))
    for name, values in reports.fields.items():
        assert on_lattice(values, granularity).all(), name
    valid, reasons = rand.validate_reports(reports)
    assert valid.all() and reasons == {}
    support = rand.report_support()
    assert set(support) == set(reports.fields)
    for name, field in support.items():
        values = reports[name]
        honest = values[(0,) * values.ndim]
        forgeries = {
            "outside the support": 1e12,
            "not finite": np.nan,
            "off the lattice": honest + 0.5 * field.step,
        }
        if name in INTEGER_FIELDS:
            assert field.step == 1.0 and np.all(values == np.round(values))
            forgeries["outside the support"] = float(np.max(field.high)) + 1.0
        for reason, value in forgeries.items():
            valid, reasons = rand.validate_reports(_forged(reports, name, value))
            assert reasons == {reason: 1}, (name, value, reasons)
            assert not valid[0] and valid[1:].all()


def test_genprot_reports_are_on_the_lattice_and_inside_its_support():
    mech = GenProtMechanism(1.0, lower=-1.0, upper=2.0, n_candidates=16)
    reports = mech.randomize(np.linspace(-3, 4, 2000), random_state=0)
    g = mech.granularity
    assert g <= 0.5 and np.log2(g) == np.round(np.log2(g))
    assert on_lattice(reports, g).all()
    index = reports[:, 1]
    assert np.all(index == np.round(index)) and index.min() >= 0 and index.max() <= 15
    support = mech.report_support()
    assert support.shape == (2,)
    assert np.all(support.check(reports) == 0)
    for column, value, code in [
        (0, 1e12, 3),
        (0, np.nan, 1),
        (0, reports[0, 0] + 0.5 * g, 2),
        (1, 16.0, 3),
    ]:
        forged = reports.copy()
        forged[0, column] = value
        codes = support.check(forged)
        assert codes[0] == code and np.all(codes[1:] == 0)
    # The public strings are on the lattice, inside the window.
    strings = mech.public_strings(100, random_state=1)
    assert on_lattice(strings, g).all()
    assert strings.min() >= mech.window[0] and strings.max() <= mech.window[1]
    with pytest.raises(ValueError, match="multiples of the granularity"):
        mech.randomize([0.5], public_strings=strings[:1] + 0.5 * g)


def test_a_sign_bit_of_zero_and_a_half_bit_are_outside_the_support():
    """Duchi sends -1 or +1 (0 is on the lattice and in range, never sent);
    Bassily-Smith's bit is 0 or 1 even when 1/2 is a multiple of the lattice
    step of its public ``z``."""
    import numpy as np

    from sklearn_ldp.randomizers import BassilySmithMechanism, DuchiMechanism

    duchi = DuchiMechanism(1.0)
    honest = duchi.randomize(np.linspace(-1, 1, 50), random_state=0)
    assert not duchi.report_support((50,)).check(honest[None, :]).any()
    assert duchi.report_support().check(np.array([1.0, -1.0, 0.0])).tolist() == [0, 0, 3]
    bassily = BassilySmithMechanism(1.0)
    support = bassily.report_support()
    reports = bassily.randomize(np.linspace(-1, 1, 200), random_state=0)
    assert not support.check(reports).any()
    assert 0.5 / bassily.granularity == round(0.5 / bassily.granularity)
    tampered = reports.copy()
    tampered[0, 1] = 0.5
    assert support.check(tampered).tolist()[0] == 2
