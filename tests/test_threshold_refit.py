"""The linear LDP classifiers refit a binary scorer's threshold along its direction.

The report-only selection (``selection='cv'``) keeps the chosen direction and
replaces the intercept by the threshold of the linear discriminant along the
score, from the moments of held-out folds
(:func:`sklearn_ldp.aggregation.refit_threshold`); the function itself is
tested in tests/aggregation/test_selection.py.
"""

import numpy as np
import pytest

from sklearn_ldp import GLMLDPClassifier, HingeLDPClassifier


def make_unbalanced(n, seed=0):
    """80% of class 1; the classes differ along the first feature only."""
    rng = np.random.default_rng([seed, 2025])
    y = (rng.uniform(size=n) < 0.8).astype(int)
    X = rng.uniform(-0.3, 0.3, size=(n, 3))
    X[:, 0] = 0.25 * (2 * y - 1) + 0.1 * rng.standard_normal(n)
    return X, y


@pytest.mark.parametrize("estimator", [GLMLDPClassifier, HingeLDPClassifier])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_threshold_is_refitted_along_the_chosen_direction(estimator, seed):
    # The model on the ball (slope at most coef_norm = 1 against classes
    # 0.5 apart) keeps its direction; its threshold along it is the linear
    # discriminant's, computed from the reports (the same from the reports
    # sent to fit_reports).
    X, y = make_unbalanced(20_000, seed)
    clf = estimator(epsilon=8.0, delta=1e-7, random_state=seed).fit(X, y)
    assert clf.selected_model_ != "constant"
    randomizer = clf.make_randomizer(3, n_users=len(X), classes=[0, 1])
    reports = randomizer.randomize(X, y, random_state=seed)
    assert clf.fit_reports(reports).intercept_ == pytest.approx(clf.intercept_)
    # The threshold lies between the class means of the score (the prior
    # moves it from the midpoint toward the minority class, not past it).
    scores = X @ clf.coef_.ravel()
    threshold = -clf.intercept_[0]
    assert scores[y == 0].mean() < threshold < scores[y == 1].mean()


#: Seeds of the accuracy check: the mean over 8 draws. Over 40 draws
#: (``python -m benchmarks.spot_checks threshold-draws glm 0 40``) the
#: GLM's test accuracy has mean 0.969 and standard deviation 0.029 (from
#: 0.89 to 0.995: the direction chosen from the reports is sometimes poor;
#: with the least-squares threshold it was 0.931 and 0.060, from 0.80, the
#: majority rate), so the mean of 8 has standard error 0.010 and the bar
#: 0.93 is 3.8 of them below the expected mean (HingeLDPClassifier: the
#: same draws; SparseLDPClassifier, threshold cross-fitted: mean 0.978,
#: standard deviation 0.020; in-sample, before: 0.980 and 0.017;
#: ``threshold-draws hinge`` / ``sparse``).
ACCURACY_SEEDS = range(8)
MEAN_ACCURACY_BAR = 0.93
#: Draws on which the least-squares threshold predicted the majority class
#: for 97.8-99.9% of the test users (accuracy 0.80-0.82; the majority
#: rate is 0.8). With the discriminant's threshold no draw of 40 exceeded
#: 82% (GLM, Hinge and Sparse classifiers).
FAILING_SEEDS = (15, 23, 27)
MAJORITY_PREDICTION_BAR = 0.85


def _mean_accuracy(make):
    scores = []
    for seed in ACCURACY_SEEDS:
        X, y = make_unbalanced(20_000, seed)
        X_test, y_test = make_unbalanced(20_000, 100 + seed)
        scores.append(make(seed).fit(X, y).score(X_test, y_test))
    return float(np.mean(scores))


@pytest.mark.parametrize("estimator", [GLMLDPClassifier, HingeLDPClassifier])
def test_refitted_models_are_far_above_the_majority_rate(estimator):
    # The majority rate is 0.8; test accuracy of 20,000 users per draw.
    def make(seed):
        return estimator(epsilon=8.0, delta=1e-7, random_state=seed)

    assert _mean_accuracy(make) > MEAN_ACCURACY_BAR


@pytest.mark.parametrize("estimator", [GLMLDPClassifier, HingeLDPClassifier])
@pytest.mark.parametrize("seed", FAILING_SEEDS)
def test_threshold_does_not_predict_the_majority_class_for_everyone(estimator, seed):
    # The direction was right on these draws (coef_ 1.5-1.9 on feature 0);
    # the threshold from an overestimated Var(s) put every user in class 1.
    X, y = make_unbalanced(20_000, seed)
    X_test, y_test = make_unbalanced(20_000, 100 + seed)
    clf = estimator(epsilon=8.0, delta=1e-7, random_state=seed).fit(X, y)
    assert np.mean(clf.predict(X_test) == 1) < MAJORITY_PREDICTION_BAR
    assert clf.score(X_test, y_test) > MAJORITY_PREDICTION_BAR


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sparse_classifier_refits_its_binary_threshold(seed):
    # SparseLDPClassifier's chosen l1-ball model gets the same refit.
    from sklearn_ldp import SparseLDPClassifier

    X, y = make_unbalanced(20_000, seed)
    clf = SparseLDPClassifier(
        epsilon=8.0, delta=1e-7, l1_radius=5.0, random_state=seed
    ).fit(X, y)
    assert clf.selected_model_ == "model"
    # The paper mode (no selection, no refit) keeps the model's own intercept.
    paper = SparseLDPClassifier(
        epsilon=8.0, delta=1e-7, l1_radius=5.0, calibration="paper", random_state=seed
    ).fit(X, y)
    assert paper.selected_model_ == "model"


def test_sparse_classifier_refitted_model_is_far_above_the_majority_rate():
    # As for the GLM (over 40 draws: mean 0.93, the same spread).
    from sklearn_ldp import SparseLDPClassifier

    def make(seed):
        return SparseLDPClassifier(
            epsilon=8.0, delta=1e-7, l1_radius=5.0, random_state=seed
        )

    assert _mean_accuracy(make) > MEAN_ACCURACY_BAR
