"""Debiased least squares, folded statistics and the validation of Gaussian reports."""

import numpy as np
import pytest

from sklearn_ldp.aggregation import (
    FoldedStatistics,
    SufficientStatistics,
    check_gaussian_reports,
    debiased_least_squares,
)
from sklearn_ldp.randomizers import Reports


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_debiased_statistics_are_unbiased(fit_intercept):
    # Fixed users (features phi, targets t); average the debiased (unprojected)
    # statistics over many independent randomizations. Each average's error
    # is compared with 5 standard errors estimated from the replicates
    # (Bonferroni over the ~20 entries keeps the false-alarm rate < 1e-4).
    rng = np.random.RandomState(0)
    n, m, sigma, sigma_y, reps = 30, 4, 0.7, 0.4, 4000
    phi = rng.uniform(-0.5, 0.5, (n, m))
    target = rng.uniform(-1, 1, n)
    Z = phi + sigma * rng.standard_normal((reps, n, m))
    v = target + sigma_y * rng.standard_normal((reps, n))
    grams = np.einsum("rni,rnj->rij", Z, Z)
    moments = np.einsum("rni,rn->ri", Z, v)
    feature_sums, target_sums = Z.sum(axis=1), v.sum(axis=1)
    estimates = [
        debiased_least_squares(
            g,
            mo,
            n,
            sigma,
            feature_sum=s if fit_intercept else None,
            target_sum=t if fit_intercept else None,
            project=False,
        )
        for g, mo, s, t in zip(grams, moments, feature_sums, target_sums, strict=True)
    ]
    quadratic = np.array([e[0] for e in estimates])
    linear = np.array([e[1] for e in estimates])
    if fit_intercept:
        centred = phi - phi.mean(axis=0)
        truth_q = centred.T @ centred / n
        truth_l = centred.T @ (target - target.mean()) / n
    else:
        truth_q, truth_l = phi.T @ phi / n, phi.T @ target / n
    for samples, truth in [(quadratic, truth_q), (linear, truth_l)]:
        error = np.abs(samples.mean(axis=0) - truth)
        standard_error = samples.std(axis=0) / np.sqrt(reps)
        assert np.all(error <= 5 * standard_error + 1e-12)
    # The uncorrected statistic is biased by sigma^2 on the diagonal.
    naive = grams.mean(axis=0) / n
    if not fit_intercept:
        assert np.all(np.diag(naive - truth_q) > 0.9 * sigma**2)


def test_debiased_least_squares_projects_and_matches_the_gram_debiasing():
    rng = np.random.RandomState(1)
    Z = rng.standard_normal((50, 3))
    stats = SufficientStatistics(3)
    stats.update(Z, np.ones(50))
    quadratic, linear, mean, target_mean = debiased_least_squares(
        stats.gram, stats.moment, stats.n, 1.5
    )
    np.testing.assert_allclose(quadratic, stats.debiased_gram(1.5) / 50)
    np.testing.assert_allclose(linear, Z.sum(axis=0) / 50)
    assert np.linalg.eigvalsh(quadratic).min() > -1e-12
    assert np.all(mean == 0) and target_mean == 0.0


def test_folded_statistics_assign_users_round_robin_across_batches():
    rng = np.random.RandomState(2)
    Z, v = rng.standard_normal((23, 2)), rng.standard_normal(23)
    folds = FoldedStatistics(5, 2)
    folds.update(Z[:7], v[:7])
    folds.update(Z[7:], v[7:])
    assert folds.n == 23
    for k, fold in enumerate(folds.folds):
        np.testing.assert_allclose(fold.gram, Z[k::5].T @ Z[k::5])
        np.testing.assert_allclose(fold.moment, Z[k::5].T @ v[k::5])
        assert folds.square_sums[k] == pytest.approx(v[k::5] @ v[k::5])
    total = folds.total()
    np.testing.assert_allclose(total.gram, Z.T @ Z)
    assert total.n == 23


def test_gaussian_reports_are_validated_before_aggregation():
    good = Reports({"x": np.zeros((3, 2)), "y": np.zeros(3)}, {})
    Z, v = check_gaussian_reports(good, 2, with_target=True)
    assert Z.shape == (3, 2) and v.shape == (3,)
    assert check_gaussian_reports(good, 2, with_target=False)[1] is None
    with pytest.raises(ValueError, match="no field"):
        check_gaussian_reports(
            Reports({"x": np.zeros((3, 2))}, {}), 2, with_target=True
        )
    with pytest.raises(ValueError, match="components"):
        check_gaussian_reports(good, 3, with_target=True)
    bad = Reports({"x": np.full((3, 2), np.nan), "y": np.zeros(3)}, {})
    with pytest.raises(ValueError, match="NaN"):
        check_gaussian_reports(bad, 2, with_target=True)
    bad_y = Reports({"x": np.zeros((3, 2)), "y": np.full(3, np.inf)}, {})
    with pytest.raises(ValueError, match="NaN"):
        check_gaussian_reports(bad_y, 2, with_target=True)
