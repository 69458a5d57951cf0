"""Oracle bounds for bench_real_gap: linear rules from an estimator's own
Gaussian (x, y) reports, helped by information no LDP server has.

The supervised estimators of the real-data page (GLMLDPClassifier,
HingeLDPClassifier, SparseLDPClassifier, SparseLDPRegressor,
KernelRidgeLDP) receive one Gaussian report ``(z, v) = (phi(x) + N(0,
sigma_x^2 I), t + N(0, sigma_y^2))`` per user (``phi`` the identity, a
random projection or random Fourier features; ``t`` the clipped target, the
+-1 label or the one-hot label) and build a linear rule from two debiased
moments of the reports: the second moment ``G = E[[phi, 1][phi, 1]^T]``
(estimated by ``mean [z, 1][z, 1]^T - sigma_x^2 I``) and the cross moment
``c = E[[phi, 1] t^T]`` (estimated by ``mean [z, 1] v^T``, unbiased as it
is). Each oracle takes one or both moments exactly from the clean records:

- ``known covariance``: exact ``G`` of the clean features, ``c`` from the
  reports;
- ``known cross moment``: ``G`` from the reports, exact ``c``;
- ``report moments``: both from the reports (the estimator's own inputs);
- ``clean LS``: both exact (non-private; the ceiling of such rules).

From the two moments each oracle fits the ridge path ``w(alpha) = (G +
alpha I)^-1 c`` (the intercept not penalized;
:func:`~sklearn_ldp.aggregation.least_squares_path`) and, for the sparse
estimators, l1-constrained least squares over a grid of radii and ridges,
and keeps the candidate that is best *on the clean training records*
(held-out squared risk computed exactly from the clean moments for
regression; accuracy on ``SELECTION_USERS`` clean training users for
classification, with the threshold along the chosen direction also set on
them for two classes). Each oracle sees the very reports its estimator saw:
the estimator's randomizer (``make_randomizer``, public) is run with the
estimator's ``random_state``, which replays its reports.
"""

import numpy as np
from sklearn.metrics import r2_score

from sklearn_ldp.aggregation import (
    FoldedMoments,
    Moments,
    least_squares_path,
    project_psd,
)
from sklearn_ldp.optim import l1_constrained_least_squares

#: oracle column -> (source of the second moment, source of the cross moment)
ORACLES = {
    "oracle: known covariance": ("clean", "reports"),
    "oracle: known cross moment": ("reports", "clean"),
    "oracle: report moments": ("reports", "reports"),
    "clean LS": ("clean", "clean"),
}
#: Clean training users on which a classifier oracle picks its candidate.
SELECTION_USERS = 200_000
#: Ridge penalties, in units of the mean eigenvalue of the clean covariance.
RIDGE_FACTORS = np.concatenate([[0.0], np.logspace(-6, 4, 31)])
#: l1 radii (sparse estimators), in units of the l1 norm of the clean
#: least-squares coefficients at the smallest positive ridge.
L1_FACTORS = 2.0 ** np.arange(-7, 2)
#: Ridges added inside the l1 ball, in the units of ``RIDGE_FACTORS``.
L1_RIDGE_FACTORS = (0.0, 1e-3, 1e-2, 1e-1, 1.0, 10.0)


def moment_oracles(randomizer, X, y, X_test, y_test, seed, *, l1=False):
    """Test metric of every oracle of :data:`ORACLES` on one estimator's reports.

    ``randomizer`` is the estimator's (``estimator.make_randomizer(p,
    n_users=n, classes=classes)``); it is run on ``(X, y)`` with
    ``random_state=seed``, which replays the reports of the estimator fitted
    with that seed. ``l1`` adds the l1-ball candidates (sparse estimators).
    Returns ``{oracle: metric}`` (accuracy, or R^2 when the randomizer has a
    ``y_bound``) and the diagnostics ``'_gram_noise'`` (``sigma_x^2 sqrt(p /
    n)``, the debiased second moment's spread in operator norm),
    ``'_below_noise'`` (how many eigenvalues of the clean feature covariance
    are below it), ``'_p'`` and ``'_cross_noise'`` (``sigma_x sigma_y /
    sqrt(n)``, the noise of one coordinate of the cross moment).
    """
    classify = randomizer.y_bound is None
    classes = np.asarray(randomizer.classes) if classify else None
    reports = randomizer.randomize(X, y, random_state=seed)
    features = randomizer.features(X)
    targets = np.asarray(randomizer.targets(y), dtype=float)
    sources = {
        "reports": FoldedMoments(
            reports["x"],
            reports["y"],
            sigma_x=randomizer.sigma_x,
            sigma_t=randomizer.sigma_y,
            n_folds=1,
        ).moments([0]),
        "clean": FoldedMoments(
            features, targets, sigma_x=0.0, sigma_t=0.0, n_folds=1
        ).moments([0]),
    }
    del reports
    clean = sources["clean"]
    p, n = clean.n_features, clean.n
    covariance = clean.gram[:p, :p] - np.outer(clean.gram[:p, p], clean.gram[:p, p])
    eigenvalues = np.linalg.eigvalsh(covariance)
    scale = max(float(eigenvalues.mean()), 1e-12)
    gram_noise = float(randomizer.sigma_x**2 * np.sqrt(p / n))
    out = {
        "_p": p,
        "_gram_noise": gram_noise,
        "_below_noise": int(np.sum(eigenvalues < gram_noise)),
        "_cross_noise": float(randomizer.sigma_x * randomizer.sigma_y / np.sqrt(n)),
    }
    selection = (features[:SELECTION_USERS], targets[:SELECTION_USERS])
    test_features = randomizer.features(X_test)
    for oracle, (second, cross) in ORACLES.items():
        moments = Moments(
            sources[second].gram, sources[cross].cross, sources[cross].square, n
        )
        candidates = list(least_squares_path(moments, RIDGE_FACTORS * scale))
        if l1:
            candidates += l1_candidates(moments, clean, scale)
        W = best_candidate(candidates, clean, selection, classify)
        scores = test_features @ W[:-1] + W[-1]
        if not classify:
            out[oracle] = float(r2_score(y_test, scores[:, 0]))
        elif len(classes) == 2:
            out[oracle] = float(
                np.mean(classes[(scores[:, 0] > 0).astype(int)] == y_test)
            )
        else:
            out[oracle] = float(np.mean(classes[np.argmax(scores, axis=1)] == y_test))
    return out


def l1_candidates(moments, clean, scale):
    """l1-constrained least squares (centred, intercept from the means) on a
    grid of radii and ridges, for one output."""
    p = moments.n_features
    mean_z, mean_t = moments.gram[:p, p], float(moments.cross[p, 0])
    scatter = project_psd(moments.gram[:p, :p] - np.outer(mean_z, mean_z))
    cross = moments.cross[:p, 0] - mean_z * mean_t
    reference = least_squares_path(clean, [RIDGE_FACTORS[1] * scale])[0][:p, 0]
    base = max(float(np.abs(reference).sum()), 1e-12)
    out = []
    for ridge in L1_RIDGE_FACTORS:  # a few (radius, ridge) problems of size p
        quadratic = scatter + ridge * scale * np.eye(p)
        for radius in base * L1_FACTORS:
            w, _, _ = l1_constrained_least_squares(
                cross, radius, np.zeros(p), quadratic=quadratic, max_iter=2000
            )
            out.append(np.append(w, mean_t - mean_z @ w)[:, None])
    return out


def best_candidate(candidates, clean, selection, classify):
    """The candidate ``W`` (``(p + 1, n_outputs)``) best on the clean records.

    Regression: the lowest exact squared risk ``E[t^2] - 2 <W, c> + W^T G
    W`` under the clean moments. Two classes: the highest accuracy on the
    selection users, the intercept moved to the best threshold along ``w``.
    Several classes: the highest accuracy of the one-vs-rest argmax.
    """
    features, targets = selection
    if not classify:
        risks = [
            float(clean.square[0] - 2.0 * W[:, 0] @ clean.cross[:, 0])
            + float(W[:, 0] @ clean.gram @ W[:, 0])
            for W in candidates
        ]
        return candidates[int(np.argmin(risks))]
    best, best_accuracy = None, -1.0
    for W in candidates:  # tens of candidates, each one matrix product
        scores = features @ W[:-1] + W[-1]
        if W.shape[1] == 1:
            accuracy, threshold = best_threshold(scores[:, 0], targets > 0)
            W = W.copy()
            W[-1] -= threshold
        else:
            accuracy = float(np.mean(np.argmax(scores, 1) == np.argmax(targets, 1)))
        if accuracy > best_accuracy:
            best, best_accuracy = W, accuracy
    return best


def best_threshold(scores, positive):
    """``(accuracy, threshold)`` of the best rule ``scores > threshold``."""
    order = np.argsort(scores, kind="stable")
    ordered, labels = scores[order], positive[order]
    # Cut k: the k lowest scores predicted negative, the rest positive.
    negatives_below = np.concatenate([[0], np.cumsum(~labels)])
    positives_above = labels.sum() - np.concatenate([[0], np.cumsum(labels)])
    correct = negatives_below + positives_above
    k = int(np.argmax(correct))
    if k == 0:
        threshold = ordered[0] - 1.0
    elif k == len(ordered):
        threshold = ordered[-1] + 1.0
    else:
        threshold = 0.5 * (ordered[k - 1] + ordered[k])
    return float(correct[k] / len(ordered)), float(threshold)
