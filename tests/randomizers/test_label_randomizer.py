"""LabelRandomizer: each user sends its class label alone, epsilon-LDP.

The classifiers' collection below the model threshold (GLMLDPClassifier,
HingeLDPClassifier); the estimators' use of it is tested in tests/test_glm.py
and tests/test_hinge.py.
"""

import numpy as np
import pytest

from sklearn_ldp.aggregation import FrequencySupportCounts, debias_frequencies
from sklearn_ldp.randomizers import LabelRandomizer
from sklearn_ldp.utils import audit_randomizer


@pytest.mark.parametrize(
    "epsilon, classes", [(0.5, [0, 1]), (2.0, ["a", "b", "c", "d", "e"])]
)
def test_label_reports_are_epsilon_ldp(epsilon, classes):
    """Two extreme records (x far apart, different labels): the reports'
    distributions respect e^eps with delta 0, and the audit is sharp (at 0.7
    eps randomized response fails it)."""
    rand = LabelRandomizer(2, epsilon=epsilon, classes=classes)
    assert rand.delta == 0.0 and rand.epsilon <= epsilon
    assert rand.mechanism_ == "randomized_response"
    a, b = ([1.0, 0.0], classes[0]), ([-1.0, 0.0], classes[-1])
    assert audit_randomizer(rand, a, b, n_draws=200_000, delta=0.0).passed
    strict = audit_randomizer(
        rand, a, b, n_draws=200_000, epsilon=0.7 * epsilon, delta=0.0
    )
    assert not strict.passed


def test_features_are_not_released():
    rand = LabelRandomizer(3, epsilon=1.0, classes=[0, 1])
    y = np.array([0, 1, 1, 0])
    near = rand.randomize(np.zeros((4, 3)), y, random_state=7)
    far = rand.randomize(np.full((4, 3), 9.0), y, random_state=7)
    assert sorted(near.fields) == ["value"]
    np.testing.assert_array_equal(near["value"], far["value"])


def test_frequencies_are_unbiased_within_their_standard_error():
    # 3 classes at epsilon 1: randomized response, frequencies (0.6, 0.3, 0.1).
    n = 60_000
    y = np.repeat([2, 5, 9], [36_000, 18_000, 6_000])
    rand = LabelRandomizer(1, epsilon=1.0, classes=[9, 2, 5])
    np.testing.assert_array_equal(rand.classes, [2, 5, 9])
    counts = FrequencySupportCounts(rand.frequency)
    counts.update(rand.randomize(np.zeros((n, 1)), y, 0))
    design = rand.frequency.design
    estimate = debias_frequencies(
        counts.counts, counts.n_users, design.support_prob, design.other_prob
    )[0]
    truth = np.array([0.6, 0.3, 0.1])
    se = np.sqrt(rand.frequency.design.variance(truth) / n)
    assert np.all(np.abs(estimate - truth) < 4 * se)
    assert estimate.sum() == pytest.approx(1.0)


def test_bad_labels_and_parameters_are_refused():
    rand = LabelRandomizer(2, epsilon=1.0, classes=[0, 1])
    with pytest.raises(ValueError, match="not in the public classes"):
        rand.randomize(np.zeros((3, 2)), np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="two distinct labels"):
        LabelRandomizer(2, epsilon=1.0, classes=[1, 1])
    with pytest.raises(ValueError, match="epsilon"):
        LabelRandomizer(2, epsilon=0.0, classes=[0, 1])


def test_the_server_rejects_what_no_honest_client_sends():
    rand = LabelRandomizer(2, epsilon=1.0, classes=[0, 1, 2], n_users=10)
    assert rand.get_config()["n_users"] == 10
    reports = rand.randomize(np.zeros((6, 2)), np.array([0, 1, 2, 0, 1, 2]), 0)
    values = reports["value"].astype(np.int64)
    values[1] = 3  # no fourth class
    tampered = type(reports)({"value": values}, reports.config)
    valid, reasons = rand.validate_reports(tampered)
    assert valid.tolist() == [True, False, True, True, True, True]
    assert sum(reasons.values()) == 1
