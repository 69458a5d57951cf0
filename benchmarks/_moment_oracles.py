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
them for two classes). The known-covariance oracle is also computed on the
very reports its estimator saw: the estimator's randomizer
(``make_randomizer``, public) run with the estimator's ``random_state``
replays them. As one draw of the reports is one noisy draw of an oracle,
the oracles' metrics are their means over draws of the two moments from
their law given the clean records (:func:`noisy_moments`).
"""

from functools import partial

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
#: Draws of the reports' moments (given the data) per call: the oracles'
#: expected metric over the reports' noise.
NOISE_DRAWS = 10
#: Clean training users on which the oracle of one draw picks its candidate.
DRAW_SELECTION_USERS = 50_000
#: Tag of the oracles' noise stream (not the users' noise, not the data's).
NOISE_STREAM_TAG = 0x0AC1E
#: Ridge penalties, in units of the mean eigenvalue of the clean covariance.
RIDGE_FACTORS = np.concatenate([[0.0], np.logspace(-6, 4, 31)])
#: l1 radii (sparse estimators), in units of the l1 norm of the clean
#: least-squares coefficients at the smallest positive ridge.
L1_FACTORS = 2.0 ** np.arange(-7, 2)
#: Ridges added inside the l1 ball, in the units of ``RIDGE_FACTORS``.
L1_RIDGE_FACTORS = (0.0, 1e-3, 1e-2, 1e-1, 1.0, 10.0)
#: The coarser l1 grid of the noise draws (radii factors, ridges): the l1
#: solves are most of an oracle's time.
DRAW_L1_GRID = (2.0 ** np.arange(-7, 2, 2), (0.0, 1e-2, 1.0))


def moment_oracles(randomizer, X, y, X_test, y_test, seed, *, l1=False):
    """Test metric of every oracle of :data:`ORACLES` on one estimator's reports.

    ``randomizer`` is the estimator's (``estimator.make_randomizer(p,
    n_users=n, classes=classes)``); it is run on ``(X, y)`` with
    ``random_state=seed``, which replays the reports of the estimator fitted
    with that seed. ``l1`` adds the l1-ball candidates (sparse estimators).
    Returns ``{oracle: metric}`` (accuracy, or R^2 when the randomizer has a
    ``y_bound``), each oracle's mean over ``NOISE_DRAWS`` draws of the
    moments from their law given the data (:func:`noisy_moments`);
    ``'oracle: known covariance (own reports)'``, that oracle on the
    replayed reports; and the diagnostics ``'_gram_noise'`` (``sigma_x^2 sqrt(p /
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
    test = (randomizer.features(X_test), y_test, classes)
    fit = partial(oracle_metric, clean=clean, scale=scale, test=test)
    own = Moments(clean.gram, sources["reports"].cross, sources["reports"].square, n)
    out["oracle: known covariance (own reports)"] = fit(
        own,
        selection=(features[:SELECTION_USERS], targets[:SELECTION_USERS]),
        l1=(L1_FACTORS, L1_RIDGE_FACTORS) if l1 else None,
    )
    # The oracles' expected metric over the reports' noise, given the data:
    # moments drawn from their Gaussian law (below), a smaller selection set.
    rng = np.random.default_rng([seed, NOISE_STREAM_TAG])
    selection = (features[:DRAW_SELECTION_USERS], targets[:DRAW_SELECTION_USERS])
    draws = {oracle: [] for oracle in ORACLES}
    for _ in range(NOISE_DRAWS):  # a few draws of (p + 1)-square moments
        noisy = noisy_moments(clean, randomizer.sigma_x, randomizer.sigma_y, rng)
        pick = {"clean": clean, "reports": noisy}
        for oracle, (second, cross) in ORACLES.items():
            if oracle == "clean LS" and draws[oracle]:
                continue  # no noise in it
            moments = Moments(
                pick[second].gram, pick[cross].cross, pick[cross].square, n
            )
            draws[oracle].append(
                fit(moments, selection=selection, l1=DRAW_L1_GRID if l1 else None)
            )
    out.update({oracle: float(np.mean(values)) for oracle, values in draws.items()})
    return out


def oracle_metric(moments, *, clean, scale, l1, test, selection):
    """Held-out metric of the candidate (ridge path, and the l1 grid ``(radius
    factors, ridges)`` unless None) best on the clean ``selection`` users,
    fitted from ``moments``."""
    test_features, y_test, classes = test
    candidates = list(least_squares_path(moments, RIDGE_FACTORS * scale))
    if l1 is not None:
        candidates += l1_candidates(moments, clean, scale, *l1)
    W = best_candidate(candidates, clean, selection, classes is not None)
    scores = test_features @ W[:-1] + W[-1]
    if classes is None:
        return float(r2_score(y_test, scores[:, 0]))
    if len(classes) == 2:
        return float(np.mean(classes[(scores[:, 0] > 0).astype(int)] == y_test))
    return float(np.mean(classes[np.argmax(scores, axis=1)] == y_test))


def noisy_moments(clean, sigma_x, sigma_y, rng):
    """One draw of the reports' debiased :class:`Moments` given the clean ones.

    With ``z = x + xi``, ``v = t + eta`` (``xi ~ N(0, sigma_x^2 I_p)``,
    ``eta ~ N(0, sigma_y^2 I_K)``, independent of the data and of each
    other), the debiased moments are the clean ones plus

    - ``A + A^T + B`` on the feature block of the second moment, ``A =
      mean xi x^T``, ``B = mean xi xi^T - sigma_x^2 I``;
    - ``mean xi`` on its constant column;
    - ``mean xi t^T + mean x eta^T + mean xi eta^T`` on the cross moment,
      ``mean eta`` on its constant row.

    Given the data these sums are Gaussian (exactly for the terms linear in
    the noise, by the central limit theorem for ``B`` and ``mean xi
    eta^T``, which are uncorrelated with the rest): row ``j`` of ``(A, mean
    xi, mean xi t^T)`` has covariance ``sigma_x^2 / n E[[x, 1, t][x, 1,
    t]^T]``, the rows independent; ``(mean x eta_k, mean eta_k)`` has
    ``sigma_y^2 / n E[[x, 1][x, 1]^T]``; ``B`` has entries of variance
    ``sigma_x^4 / n`` (twice on the diagonal); ``mean xi eta^T`` entries of
    variance ``sigma_x^2 sigma_y^2 / n``. ``E[t t^T]`` is ``diag E[t]`` for
    one-hot labels and ``E[t^2]`` for one output.
    """
    p, n = clean.n_features, clean.n
    k = clean.cross.shape[1]
    labels = np.diag(clean.square) if k == 1 else np.diag(clean.cross[p])
    joint = np.block([[clean.gram, clean.cross], [clean.cross.T, labels]])
    rows = sigma_x / np.sqrt(n) * rng.standard_normal((p, p + 1 + k)) @ root(joint)
    A, mean_xi, xi_t = rows[:, :p], rows[:, p], rows[:, p + 1 :]
    W = sigma_x**2 / np.sqrt(n) * rng.standard_normal((p, p))
    B = (W + W.T) / np.sqrt(2.0)
    eta = sigma_y / np.sqrt(n) * root(clean.gram).T @ rng.standard_normal((p + 1, k))
    xi_eta = sigma_x * sigma_y / np.sqrt(n) * rng.standard_normal((p, k))
    gram = clean.gram.copy()
    gram[:p, :p] += A + A.T + B
    gram[:p, p] += mean_xi
    gram[p, :p] += mean_xi
    cross = clean.cross + eta
    cross[:p] += xi_t + xi_eta
    return Moments(gram, cross, clean.square, n)


def root(matrix):
    """``R`` with ``R^T R = matrix`` (PSD, by its eigendecomposition)."""
    values, vectors = np.linalg.eigh(matrix)
    return (vectors * np.sqrt(np.clip(values, 0.0, None))).T


def l1_candidates(moments, clean, scale, radii, ridges):
    """l1-constrained least squares (centred, intercept from the means) for
    every radius (``radii`` times the l1 norm of the clean ridge solution)
    and ridge (times ``scale``), for one output."""
    p = moments.n_features
    mean_z, mean_t = moments.gram[:p, p], float(moments.cross[p, 0])
    scatter = project_psd(moments.gram[:p, :p] - np.outer(mean_z, mean_z))
    cross = moments.cross[:p, 0] - mean_z * mean_t
    reference = least_squares_path(clean, [RIDGE_FACTORS[1] * scale])[0][:p, 0]
    base = max(float(np.abs(reference).sum()), 1e-12)
    out = []
    for ridge in ridges:  # a few (radius, ridge) problems of size p
        quadratic = scatter + ridge * scale * np.eye(p)
        for radius in base * np.asarray(radii):
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
