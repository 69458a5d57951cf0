"""Ridge regression on debiased sufficient statistics, and its report-only CV.

Users send ``z_i = phi_i + N(0, sigma_x^2 I)`` and ``v_i = y_i + N(0,
sigma_y^2)`` (on a public lattice: rounded Gaussian noise whose exact
standard deviations ``sigma_x``, ``sigma_y`` the configuration carries, see
:mod:`~sklearn_ldp.aggregation._sufficient`); the server keeps the
statistics of :class:`~sklearn_ldp.aggregation.FoldedStatistics`. Everything
here is post-processing of reports: it costs no privacy.

With an intercept the statistics carry a constant column *last* (``z`` is
``[phi + noise, 1]``): its sums are the sums of ``z`` and ``v``, so every
fold can be centred exactly, and
:class:`StreamedFoldedMoments` turns the same per-fold sums into the
:class:`~sklearn_ldp.aggregation.FoldedMoments` of the report-only model
selection (ALGORITHMS.md section 7).
"""

from functools import partial

import numpy as np
import scipy.linalg

from ._selection import (
    FOLD_PAIR_VARIANCE_FACTOR,
    Candidate,
    FoldedMoments,
    Moments,
    constant_model,
    cross_validate,
    held_out_scores,
    select_candidate,
    signal_statistic,
    signal_test,
    squared_risk,
)
from ._sufficient import project_psd

#: Level of :func:`~sklearn_ldp.aggregation.signal_test` below which the
#: reports show a signal; above it the constant is the preferred candidate.
SIGNAL_LEVEL = 0.05
#: Paired standard errors by which a less preferred model must beat the
#: lowest held-out risk to be chosen over a more preferred one
#: (:func:`preferred_model`). Two, not one: the standard error is that of
#: the held-out evaluation; the fold fits' own noise (each is fitted on 4/5
#: of the reports) adds to the error of the difference and is not in it.
#: Measured on diabetes (10^6 users, epsilon 4, 16 draws): the CV
#: difference between the configured radius and a quarter of it erred by
#: 0.158 (in R^2 units, sd over draws) where its analytic evaluation
#: standard error was 0.113 and the 5-fold one 0.087.
PREFERENCE_STANDARD_ERRORS = 2.0


def solve_ridge(quadratic, linear, alpha):
    """Solve ``(quadratic + alpha I) w = linear`` for a PSD ``quadratic``, ``alpha > 0``.

    With ``quadratic = Proj_PSD(Z^T Z - n sigma^2 I) / n`` and ``linear =
    Z^T v / n`` (:func:`~sklearn_ldp.aggregation.debiased_least_squares`)
    this minimizes the debiased ``1/(2n) ||Z w - v||^2 + alpha/2 ||w||^2``;
    the system is positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import solve_ridge
    >>> solve_ridge(np.eye(2), np.array([2.0, 4.0]), 1.0).tolist()
    [1.0, 2.0]
    """
    system = np.array(quadratic, dtype=np.float64)
    system.flat[:: system.shape[0] + 1] += alpha
    return scipy.linalg.solve(system, linear, assume_a="pos")


def debiased_cv_risk(folds, square_sums, sigma_x, sigma_y, alphas, fit_intercept=False):
    """Held-out squared loss of each ridge ``alpha``, estimated from reports only.

    For every fold ``k`` the model ``w(alpha)`` is fitted on the other folds
    and scored on fold ``k``. Since ``w`` does not depend on fold ``k``'s
    noise and ``E[(v - w^T z)^2] = (y - w^T phi)^2 + s^2`` with
    ``s^2 = sigma_y^2 + sigma_x^2 ||w||^2``, the fold's statistics give the
    unbiased estimate

        (sum v^2 - 2 w^T Z^T v + w^T Z^T Z w) / n_k - s^2

    of its clean loss. Its noise is large when ``w`` is (small ``alpha``):
    per user the debiased loss has variance about ``2 s^4 + 4 r s^2``
    (``r`` the clean loss), known from the public noise levels, so the
    function also returns that standard error and the caller can prefer an
    ``alpha`` whose estimate is trustworthy. All ``alpha`` share one
    eigen-decomposition per fold.

    Parameters
    ----------
    folds : sequence of SufficientStatistics
        ``Z^T Z``, ``Z^T v`` and ``n`` of each fold.
    square_sums : array-like of shape (n_folds,)
        ``sum v^2`` of each fold.
    sigma_x, sigma_y : float
        Noise levels of the features and of the target.
    alphas : array-like of shape (n_alphas,)
    fit_intercept : bool, default=False
        The statistics' last column is the constant 1 (noise-free): each
        training fold's statistics are centred (:func:`centred_ridge`) and
        the unpenalized intercept is part of the scored model.

    Returns
    -------
    risk : ndarray of shape (n_alphas,)
        Mean held-out loss over all users, ``nan`` when no fold can be held out.
    std_error : ndarray of shape (n_alphas,)
        Standard error of ``risk`` due to the Gaussian noise of the reports.
    """
    alphas = np.asarray(alphas, dtype=float)
    total_gram = sum(fold.gram for fold in folds)
    total_moment = sum(fold.moment for fold in folds)
    total_n = sum(fold.n for fold in folds)
    d = total_gram.shape[0] - 1 if fit_intercept else total_gram.shape[0]
    risk, variance, n_scored = np.zeros(alphas.shape), np.zeros(alphas.shape), 0
    for fold, square_sum in zip(folds, square_sums, strict=True):
        n_train = total_n - fold.n
        if fold.n == 0 or n_train == 0:
            continue
        train_gram = (total_gram - fold.gram) / n_train
        train_moment = (total_moment - fold.moment) / n_train
        scatter, cross = train_gram[:d, :d].copy(), train_moment[:d]
        if fit_intercept:
            mean_x, mean_y = train_gram[:d, d], train_moment[d]
            scatter -= np.outer(mean_x, mean_x)
            cross = cross - mean_x * mean_y
        scatter.flat[:: d + 1] -= sigma_x**2
        eigvals, eigvecs = np.linalg.eigh(0.5 * (scatter + scatter.T))
        eigvals = np.maximum(eigvals, 0.0)  # Proj_PSD
        rotated = eigvecs.T @ cross
        W = eigvecs @ (rotated[:, None] / (eigvals[:, None] + alphas[None, :]))
        noise = sigma_y**2 + sigma_x**2 * np.einsum("ia,ia->a", W, W)
        if fit_intercept:  # the intercept row of each alpha's model
            W = np.vstack([W, mean_y - mean_x @ W])
        loss = square_sum - 2.0 * fold.moment @ W
        loss = (loss + np.einsum("ia,ia->a", W, fold.gram @ W)) / fold.n - noise
        risk += fold.n * loss
        variance += fold.n * (2.0 * noise**2 + 4.0 * np.maximum(loss, 0.0) * noise)
        n_scored += fold.n
    if not n_scored:
        return np.full(alphas.shape, np.nan), np.full(alphas.shape, np.nan)
    return risk / n_scored, np.sqrt(variance) / n_scored


def centred_ridge(moments, alpha, fit_intercept=True):
    """Debiased ridge with an unpenalized intercept, from :class:`Moments`.

    With ``mu = E[x]`` and ``ybar = E[y]`` (the constant column of the
    debiased moments), solves ``(Proj_PSD(E[x x^T] - mu mu^T) + alpha I) w
    = E[x y] - mu ybar`` and sets ``b = ybar - mu^T w``: the minimizer of
    the debiased ``E[(y - w^T x - b)^2] + alpha ||w||^2`` (the covariance
    projected onto the PSD cone). Without ``fit_intercept``: ``b = 0`` and
    the uncentred ``Proj_PSD(E[x x^T])``.

    Parameters
    ----------
    moments : Moments
        Debiased moments (one output), constant column last.
    alpha : float
        Ridge penalty (``> 0``).
    fit_intercept : bool, default=True

    Returns
    -------
    W : ndarray of shape (n_features + 1, 1)
        ``[w, b]``, the scorer ``W^T [x, 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation._selection import Moments
    >>> gram = np.array([[2.0, 1.0], [1.0, 1.0]])  # E[x^2] = 2, E[x] = 1
    >>> moments = Moments(gram, np.array([[3.0], [2.0]]), np.array([5.0]), 10)
    >>> centred_ridge(moments, 1e-12).ravel().round(6).tolist()  # y = x + 1
    [1.0, 1.0]
    """
    d = moments.n_features
    scatter = np.array(moments.gram[:d, :d], dtype=np.float64)
    cross = np.array(moments.cross[:d, 0], dtype=np.float64)
    mean_x, mean_y = moments.gram[:d, d], float(moments.cross[d, 0])
    if fit_intercept:
        scatter -= np.outer(mean_x, mean_x)
        cross -= mean_x * mean_y
    W = np.zeros((d + 1, 1))
    W[:d, 0] = solve_ridge(project_psd(scatter), cross, alpha)
    W[d, 0] = mean_y - mean_x @ W[:d, 0] if fit_intercept else 0.0
    return W


def james_stein_ridge(moments, alpha, *, sigma_x, sigma_t, fit_intercept=True):
    """:func:`centred_ridge` on a cross moment shrunk towards "no signal".

    The debiased centred cross moment ``c^ = E[x y] - E[x] E[y]`` of ``n``
    Gaussian reports errs by about ``N(0, V / n)``, ``V`` diagonal and known
    from the public noise
    (:func:`~sklearn_ldp.aggregation._selection.signal_statistic`:
    ``S = n c^T V^-1 c^``, chi-square with ``d`` degrees of freedom when
    ``y`` is uncorrelated with ``x``). Positive-part James-Stein shrinkage,
    ``(1 - k / S)_+ c^`` with ``k = d - 2`` (Efron and Morris 1973: ``(d -
    2) / S`` is the unbiased estimate of the share of ``S`` that is noise),
    dominates ``c^`` for ``d >= 3``; for ``d <= 2``, where ``d - 2``
    vanishes, ``k = 1`` (measured: ``x ~ U[-1, 1]^d``, ``y = b x_1 +
    N(0, 0.3^2)``, ``2 x 10^4`` reports, ``sigma_x = 3``, ``sigma_t = 2``,
    100 draws: mean excess risk at ``b = 0`` 0.0013 against the unshrunk
    ridge's 0.0046 for ``d = 1``, 0.0039 against 0.0085 for ``d = 2``; at
    ``b = 0.4``, 0.0094 against 0.0079 and 0.0152 against 0.0143, where the
    constant's is 0.053). The ridge solution is linear in the cross moment,
    so this is the ridge model scaled by that factor, its intercept
    recomputed: with no visible signal (``S <= k``) the intercept-only
    model. A hard test instead (the constant unless the test rejects) lost
    the model wherever the signal was real but below the test's power.

    Parameters
    ----------
    moments : Moments
        Debiased moments (one output), constant column last.
    alpha : float
        Ridge penalty (``> 0``).
    sigma_x, sigma_t : float
        Noise levels of each feature and of the target.
    fit_intercept : bool, default=True

    Returns
    -------
    W : ndarray of shape (n_features + 1, 1)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation._selection import Moments
    >>> gram = np.diag([1.0, 1.0, 1.0, 1.0])  # 3 centred features, constant
    >>> cross = np.array([[0.02], [0.0], [0.0], [0.0]])
    >>> moments = Moments(gram, cross, np.array([1.0]), 10_000)
    >>> # S = 10^4 * 0.02^2 / ((1 + 1) (1 + 1)) = 1 <= k = 1: no model.
    >>> james_stein_ridge(moments, 1e-9, sigma_x=1.0, sigma_t=1.0).ravel().tolist()
    [0.0, 0.0, 0.0, 0.0]
    >>> moments = Moments(gram, 2 * cross, np.array([1.0]), 10_000)
    >>> # S = 4: the cross moment keeps 1 - 1 / 4 of its length.
    >>> james_stein_ridge(moments, 1e-9, sigma_x=1.0, sigma_t=1.0)[0, 0].round(6)
    np.float64(0.03)
    """
    W = centred_ridge(moments, alpha, fit_intercept=fit_intercept)
    d = moments.n_features
    statistic = signal_statistic(
        centred_moments(moments) if fit_intercept else moments, sigma_x, sigma_t
    )
    k = d - 2 if d >= 3 else 1
    factor = max(0.0, 1.0 - k / statistic) if statistic > 0 else 0.0
    W[:d] *= factor
    if fit_intercept:
        W[d, 0] = float(moments.cross[d, 0]) - moments.gram[:d, d] @ W[:d, 0]
    return W


def held_out_shrinkage(folded, fold_fit, fit_intercept=True):
    """Positive-part James-Stein factor scaling a model towards the constant.

    The family ``f w`` (``f`` in ``[0, 1]``; the intercept refitted, so ``f
    = 0`` is the intercept-only model) of a fitted scorer ``w``. On users
    the model was not fitted on, its squared risk is

        R(f) = Var(y) - 2 f C + f^2 V,   C = Cov(y, w^T x),  V = Var(w^T x),

    minimal at ``f* = C / V``. For each fold ``k`` the model ``w_k =
    fold_fit(k)`` is fitted on the other folds, so fold ``k``'s reports
    estimate its ``C_k`` and ``V_k`` without bias: ``C^_k = E_k[v w^T z] -
    E_k[v] E_k[w^T z]`` (the noises of ``v`` and ``z`` are independent of
    each other and of ``w_k``) and ``V^_k = w^T (E_k[z z^T] - sigma_x^2 I)
    w - E_k[w^T z]^2``; the folds' estimates are pooled (``C^``, ``V^``,
    weights ``n_k``). The noise of ``C^`` dominates. Given ``w_k``, fold
    ``k``'s term has variance ``Var_k(v) Var_k(w^T z) / n_k`` (the noisy
    reports' variances; exact when ``y`` ignores ``x``), but the folds'
    terms are not independent: fold ``j``'s reports are in ``w_k`` and fold
    ``k``'s in ``w_j``. With no signal and linear fits ``w_k = A c^_{-k}``
    (``c^_{-k}`` the mean of the other folds' cross moments), ``C^ =
    2 / (K (K - 1)) sum_{k < j} c^_k^T A c^_j``, each pair of folds twice:
    its variance is twice the sum of the per-fold ones, for any number of
    folds ``K``,

        s^2 = 2 sum_k n_k^2 Var_k(v) Var_k(w_k^T z) / n^2

    (measured: without the 2, ``C^ / s`` had standard deviation 1.39 over
    400 draws of ``y`` independent of ``x``; see the tests). ``E[C^2] =
    C^2 + s^2``, so ``f* = C / V`` is estimated by ``(C^ / V^) (1 - s^2 /
    C^2)_+``: the positive-part James-Stein factor of one direction, ``k =
    1`` (:func:`james_stein_ridge`'s rule for ``d <= 2``; there the cross
    moment, here the model's own direction), capped at 1 (a shrinkage, not
    an extrapolation of ``w``). Zero when ``C^ <= s``: no visible signal
    along ``w``, the intercept-only model. With no signal the scaled model
    keeps ``f > 0`` in about ``P(Z > 1) = 0.16`` of the draws (``Z``
    standard normal) and costs at most ``E[(Z - 1 / Z)^2; Z > 1] s^2 / V =
    0.17 s^2 / V`` of squared risk (the cap at 1 only lowers it), where the
    unshrunk ``w`` costs ``V``. With a strong signal ``s`` is small next to
    ``C^`` and the factor is ``C^ / V^``, about 1 for a model that fits.

    Parameters
    ----------
    folded : FoldedMoments
        Per-fold sums (one target), constant column last.
    fold_fit : callable
        ``fold_fit(k)``: the model's ``W = [w, b]`` (shape
        ``(n_features + 1, 1)``) fitted without fold ``k``, or None.
    fit_intercept : bool, default=True
        False: the family ``f w`` has no intercept, and every moment above
        is uncentred (``E[y w^T x]``, ``E[(w^T x)^2]``).

    Returns
    -------
    factor : float
        In ``[0, 1]``.
    statistic : float
        ``C^ / s``, the held-out signal along the model's direction in
        units of its noise (0 when no fold could be held out).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import FoldedMoments
    >>> from sklearn_ldp.aggregation._ridge import held_out_shrinkage
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(-1, 1, 50_000)
    >>> folded = FoldedMoments(x[:, None], 0.5 * x, sigma_x=0.0, sigma_t=0.0)
    >>> # The fold models predict 2 x where E[y | x] = 0.5 x: scaled by 1/4.
    >>> factor, _ = held_out_shrinkage(folded, lambda k: np.array([[2.0], [0.0]]))
    >>> round(factor, 3)
    0.25
    """
    scores = held_out_scores(folded, fold_fit, fit_intercept)
    if scores.n == 0:
        return 0.0, 0.0
    statistic = scores.statistic
    covariance, variance = scores.covariance / scores.n, scores.variance / scores.n
    # The variance of C^ = covariance: each pair of folds twice (docstring).
    noise = FOLD_PAIR_VARIANCE_FACTOR * scores.noise / scores.n**2
    if covariance <= 0.0 or variance <= 0.0 or covariance**2 <= noise:
        return 0.0, float(statistic)
    factor = (covariance**2 - noise) / (covariance * variance)
    return float(min(1.0, factor)), float(statistic)


class StreamedFoldedMoments(FoldedMoments):
    """:class:`~sklearn_ldp.aggregation.FoldedMoments` from streamed per-fold sums.

    The estimators that stream (``fit_reports`` on a report stream,
    ``partial_fit``) keep a
    :class:`~sklearn_ldp.aggregation.FoldedStatistics` of ``[z, 1]`` and
    ``v`` (the report at stream position ``p`` in fold ``p mod n_folds``, a
    public rule); these are the per-fold sums ``FoldedMoments`` keeps, so
    model selection needs no second pass over the reports. Candidates that need the reports
    themselves (``needs_rows``) are not available.

    Parameters
    ----------
    statistics : FoldedStatistics
        Per-fold ``[z, 1]^T [z, 1]``, ``[z, 1]^T v``, ``sum v^2`` and ``n``
        (the constant column last).
    sigma_x, sigma_t : float
        Noise levels of each feature and of the target.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import FoldedStatistics
    >>> from sklearn_ldp.aggregation._ridge import StreamedFoldedMoments
    >>> statistics = FoldedStatistics(2, 2)
    >>> statistics.update(np.array([[1.0, 1.0], [3.0, 1.0]]), np.array([1.0, 3.0]))
    >>> folded = StreamedFoldedMoments(statistics, sigma_x=0.0, sigma_t=0.0)
    >>> folded.moments().cross.ravel().tolist()  # E[x y], E[y]
    [5.0, 2.0]
    """

    def __init__(self, statistics, *, sigma_x, sigma_t):
        folds = statistics.folds
        self.n_folds = len(folds)
        self.sigma_x = float(sigma_x)
        self.sigma_t = np.array([float(sigma_t)])
        self.fold_of = None
        self.counts = np.array([fold.n for fold in folds], dtype=int)
        self.zz = np.stack([fold.gram for fold in folds])
        self.zt = np.stack([fold.moment for fold in folds])[:, :, None]
        self.tt = np.asarray(statistics.square_sums, dtype=np.float64)[:, None]


def centred_moments(moments):
    """The moments of ``(x - E[x], y - E[y])`` (constant column kept, last).

    Used to test for a signal whatever the means: uncentred ``E[x y]`` is
    not 0 when both means are not, even if ``y`` does not depend on ``x``.
    """
    d = moments.n_features
    mean_x, mean_y = moments.gram[:d, d], moments.cross[d]
    gram = moments.gram.copy()
    gram[:d, :d] -= np.outer(mean_x, mean_x)
    gram[:d, d] = gram[d, :d] = 0.0
    cross = moments.cross.copy()
    cross[:d] -= np.outer(mean_x, mean_y)
    cross[d] = 0.0
    return Moments(gram, cross, moments.square - mean_y**2, moments.n)


def noisy_mean_constant(moments, sigma_t, fit_intercept=True):
    """The intercept-only model: the noisy mean of ``y`` (unbiased).

    ALGORITHMS.md section 7 suggests shrinking it to the public centre 0 when
    it is within one standard error ``sqrt((E[y^2] + sigma_t^2) / n)`` of 0;
    measured, that hard threshold cost 0.19 of R^2 on ``diabetes`` at eps
    0.5 and 20,000 users (true mean -0.21, standard error 0.14), so the
    unbiased mean is kept. ``sigma_t`` is accepted for that rule's
    signature and not used.

    Returns
    -------
    W : ndarray of shape (n_features + 1, 1)
    """
    del sigma_t
    return constant_model(moments, fit_intercept)


def select_model_or_constant(
    folded,
    models,
    fit_intercept=True,
    fold_fits=None,
    signal_level=SIGNAL_LEVEL,
    *,
    prefer_first=False,
):
    """Report-only choice among regression ``models`` and the constant.

    Every candidate (the ``models``, then the intercept-only model: the
    noisy mean of ``y``, :func:`noisy_mean_constant`) is fitted on 4 of
    5 folds and scored on the fifth by the unbiased held-out squared risk
    (:func:`~sklearn_ldp.aggregation.squared_risk`). Two stages:

    1. Among the ``models``, the one with the lowest upper bound
       ``max(risk, 0) + std_error``: the clean risk is ``>= 0``, so a
       negative estimate is noise, and a model whose estimate is noisy
       (large ``w``: its held-out risk has a variance growing like
       ``(sigma_x ||w||)^4``) is not trusted for a lucky low mean. With
       ``prefer_first``, instead the first (most preferred) model whose
       risk is within :data:`PREFERENCE_STANDARD_ERRORS` paired standard
       errors of the lowest (:func:`preferred_model`).
    2. When :func:`~sklearn_ldp.aggregation.signal_test` on the centred
       moments of all reports cannot reject "``y`` is uncorrelated with the
       features" at level ``signal_level``, the constant (a model
       fitted on reports without a visible signal points in a random
       direction; a near-constant model differs from the constant by less
       than the folds can resolve); never with ``signal_level=None``.
       Otherwise that model against the
       constant by :func:`~sklearn_ldp.aggregation.select_candidate`, the
       model preferred: the constant must be better by one paired
       standard error.

    Parameters
    ----------
    folded : FoldedMoments
        Per-fold sums (one target), constant column last.
    models : list of Candidate
        Fitted from :class:`Moments` (``needs_rows=False``).
    fit_intercept : bool, default=True
    fold_fits : callable or None, default=None
        ``fold_fits(c, k)``: model ``c`` fitted on the folds other than
        ``k``, when computed beforehand, else None
        (:func:`~sklearn_ldp.aggregation.cross_validate`).
    signal_level : float or None, default=SIGNAL_LEVEL
        Level of stage 2's test; None: the test's p-value is reported, and
        the model is compared with the constant on held-out risk alone (for
        models that shrink towards the constant themselves,
        :func:`james_stein_ridge`).
    prefer_first : bool, default=False
        Stage 1 by :func:`preferred_model` (the ``models`` in order of
        preference) rather than by the lowest upper bound.

    Returns
    -------
    chosen : int
        Index into ``[*models, constant]``.
    candidates : list of Candidate
        ``[*models, constant]``.
    cv_results : dict
        One entry per candidate (:func:`~sklearn_ldp.aggregation.select_candidate`'s
        fields; ``selected`` marks the final choice), ``signal_p_value``
        (the p-value of stage 2's test) and ``model_index`` (stage 1's
        model, for callers that replace stage 2, :func:`held_out_shrinkage`).
    """
    constant = Candidate(
        "constant",
        partial(
            noisy_mean_constant, sigma_t=folded.sigma_t[0], fit_intercept=fit_intercept
        ),
        {},
    )
    candidates = [*models, constant]

    def precomputed(c, k):
        return None if fold_fits is None or c >= len(models) else fold_fits(c, k)

    fitted = {} if prefer_first else None
    scores = cross_validate(folded, candidates, squared_risk, precomputed, fitted)
    _, cv_results = select_candidate(scores, candidates)
    if prefer_first:
        best = preferred_model(folded, scores[: len(models)], fitted)
    else:
        upper = np.maximum(cv_results["mean_risk"], 0.0) + cv_results["std_error"]
        best = int(np.argmin(upper[: len(models)]))
    everything = centred_moments(folded.moments(np.arange(folded.n_folds)))
    p_value = signal_test(everything, folded.sigma_x, folded.sigma_t)
    cv_results["signal_p_value"] = p_value
    cv_results["model_index"] = best
    if signal_level is not None and p_value > signal_level:
        chosen = len(models)
    else:
        pair = [best, len(models)]
        chosen, _ = select_candidate(scores[pair], [candidates[i] for i in pair])
        chosen = pair[chosen]
    cv_results["selected"] = np.arange(len(candidates)) == chosen
    return chosen, candidates, cv_results


def preferred_model(folded, scores, fitted, n_standard_errors=None):
    """The first model whose held-out risk is within a margin of the lowest.

    ``scores[c, k]``: model ``c``'s held-out squared risk on fold ``k``
    (:func:`~sklearn_ldp.aggregation.cross_validate`), the models in order
    of preference; ``fitted[c, k]``: its ``W`` fitted without fold ``k``.
    The reference is the model of lowest mean risk; the chosen one is the
    first whose mean exceeds the reference's by at most
    ``n_standard_errors`` (default :data:`PREFERENCE_STANDARD_ERRORS`)
    standard errors of the paired difference. That standard error is the
    larger of its spread over the folds (4 degrees of freedom: often far
    too small by chance) and its value under Gaussian reports
    (:func:`paired_risk_variance`, from the held-out folds' moments and
    the known noise): a model preferred a priori (the public radius, the
    lightest ridge) is left only when the reports see it lose.

    Returns
    -------
    chosen : int
        Index into the models.
    """
    if n_standard_errors is None:
        n_standard_errors = PREFERENCE_STANDARD_ERRORS
    valid = np.flatnonzero(np.all(np.isfinite(scores), axis=0))
    if valid.size == 0:
        return 0
    kept = scores[:, valid]
    mean = kept.mean(axis=1)
    reference = int(np.argmin(mean))
    differences = kept - kept[reference]
    spread = np.zeros(len(mean))
    if valid.size > 1:
        spread = differences.std(axis=1, ddof=1) / np.sqrt(valid.size)
    held_out = [folded.moments([k]) for k in valid]
    sigma_t = float(folded.sigma_t[0])
    analytic = np.zeros(len(mean))
    for c in range(len(mean)):
        if c == reference:
            continue
        variance = sum(
            paired_risk_variance(
                moments,
                fitted[c, k],
                fitted[reference, k],
                folded.sigma_x,
                sigma_t,
            )
            / moments.n
            for k, moments in zip(valid, held_out, strict=True)
        )
        analytic[c] = np.sqrt(variance) / valid.size
    margin = n_standard_errors * np.maximum(spread, analytic)
    return int(np.flatnonzero(mean <= mean[reference] + margin)[0])


def paired_risk_variance(moments, W, W_other, sigma_x, sigma_t):
    """Variance of one report's held-out squared-risk difference, Gaussian reports.

    For the scorers ``s = W^T [z, 1]`` and ``s' = W_other^T [z, 1]`` (one
    output) a report's term of :func:`~sklearn_ldp.aggregation.squared_risk`
    differs by ``(v - s)^2 - (v - s')^2 = 2 D E`` plus a constant, with
    ``D = s' - s`` and ``E = v - (s + s') / 2``, both linear in ``u = [z,
    1, v]``. The reports' mean ``mu`` and covariance ``S`` of ``u`` are the
    debiased ``moments`` plus the known noise (``sigma_x^2`` on each
    feature, ``sigma_t^2`` on ``v``); were ``u`` Gaussian (Isserlis),

        Var(D E) = S_DD S_EE + S_DE^2 + mu_D^2 S_EE + mu_E^2 S_DD
                   + 2 mu_D mu_E S_DE.

    The Gaussian noise dominates the reports whenever the choice is hard,
    so the approximation is close there; the data's own fourth moments are
    left to the folds' spread (:func:`preferred_model` takes the larger).

    Returns
    -------
    variance : float
        ``Var(2 D E)`` per report.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import Moments
    >>> from sklearn_ldp.aggregation._ridge import paired_risk_variance
    >>> moments = Moments(np.eye(2), np.array([[0.0], [0.0]]), np.array([0.0]), 1)
    >>> # x ~ N(0, 1) noise-free, v pure N(0, 1) noise: D = x, E = v - x / 2,
    >>> # Var(2 D E) = 4 (E[x^2] E[v^2] + Var(x^2) / 4) = 4 (1 + 1 / 2).
    >>> paired_risk_variance(moments, np.array([[0.0], [0.0]]),
    ...                      np.array([[1.0], [0.0]]), 0.0, 1.0)
    6.0
    """
    m = moments.gram.shape[0]  # the features, then the constant
    second = np.empty((m + 1, m + 1))
    second[:m, :m] = moments.gram
    second[: m - 1, : m - 1] += sigma_x**2 * np.eye(m - 1)
    second[:m, m] = second[m, :m] = moments.cross[:, 0]
    second[m, m] = moments.square[0] + sigma_t**2
    mean = second[:, m - 1].copy()  # E[u] is the constant's column
    covariance = second - np.outer(mean, mean)
    W = np.asarray(W, dtype=np.float64).ravel()
    W_other = np.asarray(W_other, dtype=np.float64).ravel()
    difference = np.append(W_other - W, 0.0)
    residual = np.append(-(W + W_other) / 2.0, 1.0)
    s_dd = max(float(difference @ covariance @ difference), 0.0)
    s_ee = max(float(residual @ covariance @ residual), 0.0)
    s_de = float(difference @ covariance @ residual)
    mu_d, mu_e = float(difference @ mean), float(residual @ mean)
    variance = (
        s_dd * s_ee
        + s_de**2
        + mu_d**2 * s_ee
        + mu_e**2 * s_dd
        + 2.0 * mu_d * mu_e * s_de
    )
    return 4.0 * max(variance, 0.0)
