"""Choosing from reports alone: debiased moments per fold and held-out risks.

ALGORITHMS.md section 7. Users send Gaussian reports ``z = x + sigma_x xi``
(features, scaled to the unit ball) and ``t = y + sigma_t eta`` (a target,
or one noisy +-1 label per one-vs-rest output), all noise coordinates
independent with mean zero. The server splits the *reports* into ``K``
folds by a public rule (the report at position ``i`` in fold ``i mod K``,
which streams, or a random partition drawn by the server) and keeps, per
fold, the sums

    sum [z, 1] [z, 1]^T,   sum [z, 1] t^T,   sum t * t,   n,

so every fold's moments, and those of any union of folds, are available
without another pass over the reports. Debiased (``E`` over the noise):

    E[z z^T] = x x^T + sigma_x^2 I,   E[z t^T] = x y^T,   E[t_c^2] = y_c^2 + sigma_t^2,

hence for any linear scorer ``s = W^T [x, 1]`` fixed before fold ``k`` is
looked at (fitted on the other folds), fold ``k``'s debiased moments give
unbiased estimates of ``E[y_c s_c]``, ``E[s_c^2]`` and of the squared-loss
risk ``E[(y - s)^2]`` (every term is linear in one debiased moment).

Two criteria:

- :func:`squared_risk` (regression): ``sum_c E[(y_c - s_c)^2]``, unbiased.
- :func:`scaled_margin_risk` (classification): the squared-loss risk of the
  scorer after a *common positive rescaling* ``s -> a s`` fitted on the
  training folds. A sign (binary) or an arg max (one-vs-rest) prediction
  does not change under a positive rescaling, so candidates fitted on
  different scales (a logistic model on the ball, least squares on +-1
  labels, the class frequencies) are compared on what they predict; an
  inverted scorer gets ``a = 0``. Squared loss on +-1 labels is
  classification-calibrated (Bartlett, Jordan, McAuliffe 2006).

Selection (:func:`cross_validate`, :func:`select_candidate`): every
candidate is fitted on ``K - 1`` folds and scored on the held-out fold; the
mean over folds and its standard error (spread of the fold scores) decide,
with the one-standard-error rule toward the *preferred* candidate (the
candidates are listed in order of preference). All of this is
post-processing of the reports: it costs no privacy.
"""

from dataclasses import dataclass

import numpy as np

from ._blocks import PositionFolds
from ._sufficient import _fold_grams, project_psd

#: Folds of the report-only cross-validation.
N_FOLDS = 5
#: Variance of :func:`directional_signal_test`'s sum of held-out fold terms
#: in units of the sum of their conditional variances, under "no signal".
#: Derived (the folds' terms form a U-statistic over pairs of folds, each
#: pair counted twice: exactly 2 for a direction linear in the training
#: folds' cross moment, any number of folds). Measured
#: (``python -m benchmarks.spot_checks signal-null 20000 D 3 400``, least
#: squares on Gaussian reports, no signal): with 1 the z-statistic's sd was
#: 1.54 (D = 10) and 1.40 (D = 50) and the test rejected at level 0.05 in
#: 12.2% and 9.8% of the draws; with 2, sd 1.09 and 0.99, rejections 4.5%
#: and 3.3% (binomial standard error 1.1%).
FOLD_PAIR_VARIANCE_FACTOR = 2.0


@dataclass(frozen=True)
class Moments:
    """Debiased moments of some reports (one fold or a union of folds).

    ``gram`` is ``E[[x, 1][x, 1]^T]`` (constant last), ``cross`` is
    ``E[[x, 1] y^T]`` of shape ``(m, n_outputs)``, ``square`` is
    ``E[y_c^2]`` per output, ``n`` the number of reports.
    """

    gram: np.ndarray
    cross: np.ndarray
    square: np.ndarray
    n: int

    @property
    def n_features(self):
        return self.gram.shape[0] - 1

    @property
    def mean_target(self):
        """``E[y]`` per output (the constant column of ``cross``)."""
        return self.cross[-1]


class FoldedMoments:
    """Per-fold sums of Gaussian reports, for report-only model selection.

    Parameters
    ----------
    Z : ndarray of shape (n_reports, n_features)
        Noisy features (in the units the model is fitted in).
    T : ndarray of shape (n_reports,) or (n_reports, n_outputs)
        Noisy targets or +-1 labels.
    sigma_x : float
        Standard deviation of every feature's noise.
    sigma_t : float or array-like of shape (n_outputs,)
        Standard deviation of each target's noise.
    n_folds : int, default=N_FOLDS
    random_state : numpy Generator, RandomState or None, default=None
        Server randomness: a uniformly random balanced partition of the
        reports. None: the report at position ``i`` is in fold ``i mod
        n_folds`` (the streaming servers' rule, :meth:`from_grams`).

    Attributes
    ----------
    fold_of : ndarray of shape (n_reports,) or None
        Each report's fold (None for :meth:`from_grams`: the reports are
        not kept).
    counts : ndarray of shape (n_folds,)
    zz, zt, tt : ndarray
        Per fold, ``sum [z, 1][z, 1]^T``, ``sum [z, 1] t^T`` and
        ``sum t * t``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import FoldedMoments
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200_000, 2))
    >>> y = X @ [0.5, -0.3]
    >>> Z = X + 0.5 * rng.standard_normal(X.shape)
    >>> folded = FoldedMoments(Z, y, sigma_x=0.5, sigma_t=0.0, random_state=rng)
    >>> np.round(folded.moments().gram[:2, :2], 1).tolist()  # E[x x^T] = I / 3
    [[0.3, 0.0], [0.0, 0.3]]
    """

    def __init__(self, Z, T, *, sigma_x, sigma_t, n_folds=N_FOLDS, random_state=None):
        Z = np.asarray(Z, dtype=np.float64)
        T = np.asarray(T, dtype=np.float64)
        T = T[:, None] if T.ndim == 1 else T
        n_folds = int(n_folds)
        folds = np.arange(Z.shape[0]) % n_folds  # 0, 1, .., K - 1, 0, 1, ..
        if random_state is None:
            grams = _fold_grams(Z, T, 0, n_folds)  # consecutive: strided, no sort
        else:
            # A uniformly random balanced partition (public server randomness).
            random_state.shuffle(folds)
            grams = _fold_grams(Z, T, folds, n_folds)
        counts = np.bincount(folds, minlength=n_folds)
        self._set_sums(grams, counts, T.shape[1], sigma_x, sigma_t)
        self.fold_of = folds

    @classmethod
    def from_grams(cls, grams, counts, *, n_outputs, sigma_x, sigma_t):
        """The folded moments of streamed per-fold sums (no report kept).

        Parameters
        ----------
        grams : ndarray of shape (n_folds, m + n_outputs, m + n_outputs)
            Per fold, the Gram matrix of the rows ``[z, 1, t]``
            (:class:`~sklearn_ldp.aggregation._sufficient.FoldedGramSums`).
        counts : array-like of int of shape (n_folds,)
        n_outputs : int
            Number of target columns (the last of ``grams``).
        sigma_x : float
        sigma_t : float or array-like of shape (n_outputs,)

        Returns
        -------
        folded : FoldedMoments
            With ``fold_of=None``: candidates that need the reports
            themselves cannot be cross-validated.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_ldp.aggregation import FoldedMoments
        >>> rows = np.array([[1.0, 1.0, 2.0], [3.0, 1.0, 4.0]])  # [z, 1, t]
        >>> grams = np.stack([np.outer(row, row) for row in rows])  # 2 folds
        >>> folded = FoldedMoments.from_grams(
        ...     grams, [1, 1], n_outputs=1, sigma_x=0.0, sigma_t=0.0
        ... )
        >>> folded.moments().cross.ravel().tolist()  # E[z t], E[t]
        [7.0, 3.0]
        """
        folded = cls.__new__(cls)
        folded._set_sums(grams, counts, n_outputs, sigma_x, sigma_t)
        folded.fold_of = None
        return folded

    def _set_sums(self, grams, counts, n_outputs, sigma_x, sigma_t):
        self.zz, self.zt, self.tt = _split_grams(grams, n_outputs)
        self.n_folds = self.zz.shape[0]
        self.counts = np.asarray(counts, dtype=np.int64)
        if self.counts.shape != (self.n_folds,):
            raise ValueError(
                f"Expected {self.n_folds} fold counts, got shape {self.counts.shape}."
            )
        self.sigma_x = float(sigma_x)
        self.sigma_t = np.broadcast_to(
            np.asarray(sigma_t, dtype=np.float64), (self.zt.shape[2],)
        ).copy()

    @property
    def n(self):
        return int(self.counts.sum())

    def training_rows(self, exclude=None):
        """The reports of a fit on every fold but ``exclude`` (None: all).

        A boolean mask over the reports when they are kept (``fold_of``),
        else the positional rule
        (:class:`~sklearn_ldp.aggregation._blocks.PositionFolds`) of the
        streaming servers.
        """
        if self.fold_of is None:
            return PositionFolds(self.n_folds, exclude)
        if exclude is None:
            return np.ones(self.n, dtype=bool)
        return self.fold_of != exclude

    def moments(self, folds=None, *, exclude=None):
        """Debiased :class:`Moments` of ``folds`` (default: all but ``exclude``)."""
        if folds is None:
            folds = [k for k in range(self.n_folds) if k != exclude]
        folds = np.atleast_1d(folds)
        n = int(self.counts[folds].sum())
        if n == 0:
            raise ValueError("No reports in these folds.")
        gram = self.zz[folds].sum(axis=0) / n
        gram[np.arange(gram.shape[0] - 1), np.arange(gram.shape[0] - 1)] -= (
            self.sigma_x**2
        )
        cross = self.zt[folds].sum(axis=0) / n
        square = self.tt[folds].sum(axis=0) / n - self.sigma_t**2
        return Moments(0.5 * (gram + gram.T), cross, square, n)


def _split_grams(grams, n_outputs):
    """Per fold, ``sum [z, 1][z, 1]^T``, ``sum [z, 1] t^T`` and ``sum t * t``.

    From the Gram matrices of the rows ``[z, 1, t]``
    (:func:`~sklearn_ldp.aggregation._sufficient._fold_grams`: one pass over
    the reports in cache-sized chunks, on one BLAS thread), ``t`` the last
    ``n_outputs`` columns.
    """
    grams = np.asarray(grams, dtype=np.float64)
    if grams.ndim != 3 or grams.shape[1] != grams.shape[2]:
        raise ValueError(
            f"Expected one square Gram matrix per fold, got shape {grams.shape}."
        )
    m = grams.shape[1] - int(n_outputs)
    if m < 1 or n_outputs < 1:
        raise ValueError(
            f"Gram matrices of {grams.shape[1]} columns cannot hold the constant "
            f"and {n_outputs} outputs."
        )
    zz = grams[:, :m, :m].copy()
    zt = grams[:, :m, m:].copy()
    tt = np.einsum("kii->ki", grams[:, m:, m:]).copy()
    return zz, zt, tt


# ------------------------------------------------------------------ criteria
def squared_risk(moments, W, train=None):
    """Unbiased ``sum_c E[(y_c - s_c)^2]`` of the scorer ``s = W^T [x, 1]``.

    ``train`` (the moments the scorer was fitted on) is not used: the
    signature of every criterion of :func:`cross_validate`.
    """
    W = np.asarray(W, dtype=np.float64).reshape(moments.gram.shape[0], -1)
    quadratic = np.einsum("ic,ij,jc->", W, moments.gram, W)
    return float(moments.square.sum() - 2.0 * np.sum(moments.cross * W) + quadratic)


def scaled_margin_risk(moments, W, train, label_square=None, ridge=0.0):
    """Held-out squared-loss risk of ``a W^T [x, 1]``, ``a >= 0`` fitted on ``train``.

    The common scale ``a = max(0, C_train) / E_train`` is the least-squares
    rescaling of the scorer on the training moments (``C = sum_c E[y_c
    s_c]``, ``E = sum_c E[s_c^2]``, the Gram matrix projected onto the PSD
    cone so that ``E > 0``). With ``a`` fixed, the held-out estimate

        sum_c E[y_c^2] - 2 a C_held_out + a^2 E_held_out

    is linear in the held-out debiased moments, hence unbiased. Its
    variance grows like ``(a sigma_x ||w||)^4``: a scorer that needs a large
    rescaling of a large ``w`` is scored with a large standard error, which
    :func:`select_candidate` takes into account. ``label_square`` is the
    known ``sum_c E[y_c^2]`` (the number of outputs for +-1 labels);
    default: its debiased estimate. An inverted or empty scorer gets ``a =
    0`` (the risk of predicting 0). ``ridge`` is added to the feature block
    of the training Gram matrix when fitting ``a``: directions where the
    debiased Gram matrix is below its noise scale (clipped to 0 by the PSD
    projection) would otherwise make ``E_train`` tiny and ``a`` huge, and
    the held-out estimate explode with ``a^2``.
    """
    W = np.asarray(W, dtype=np.float64).reshape(moments.gram.shape[0], -1)
    total = moments.square.sum() if label_square is None else float(label_square)
    correlation = float(np.sum(train.cross * W))
    gram = project_psd(train.gram)
    features = np.arange(gram.shape[0] - 1)
    gram[features, features] += ridge
    energy = float(np.einsum("ic,ij,jc->", W, gram, W))
    if correlation <= 0.0 or energy <= 0.0:
        return total
    scale = correlation / energy
    held_correlation = float(np.sum(moments.cross * W))
    held_energy = float(np.einsum("ic,ij,jc->", W, moments.gram, W))
    return total - 2.0 * scale * held_correlation + scale**2 * held_energy


#: Standard deviations of the debiased ``Var(s)`` subtracted from the
#: within-class variance by :func:`refit_threshold` (a one-sided lower
#: confidence bound).
THRESHOLD_VARIANCE_SDS = 2.0


def refit_threshold(moments, W, sigma_x=0.0, *, held_out=None):
    """The chosen binary scorer's intercept, refitted along its direction.

    A margin model on a ball (or a ridge fit) is shrunk: its slope ``w`` is
    small against an unpenalized intercept fitted to the class balance, so
    on unbalanced classes ``sign(w^T x + b)`` predicts the majority class
    even where ``w`` separates the classes well. The direction ``w`` is
    kept and the threshold along the score ``s = u^T x``, ``u = w / ||w||``,
    is the linear discriminant's (Fisher's rule with the class prior: two
    classes with a common variance ``v`` along ``u``)::

        t = (mu_+ + mu_-) / 2 - v log(p / (1 - p)) / Delta,

    ``p = P(y = +1)``, ``mu_+-`` the class means of ``s`` and ``Delta =
    mu_+ - mu_-``. From debiased moments of the reports: ``p = (1 + E[y]) /
    2``, ``Delta = Cov(y, s) / (2 p (1 - p))``, the midpoint ``E[s] + (1/2 -
    p) Delta`` and ``v = Var(s) - p (1 - p) Delta^2``. The returned scorer
    is ``w^T x - ||w|| t``: the same direction and slope.

    Least squares of the labels on ``s`` (``y ~ a s + c``) has the same
    threshold with ``log(p / (1 - p))`` replaced by ``(2 p - 1) / (2 p (1 -
    p))``; both hinge on ``v``, a difference of the debiased ``Var(s)``
    (``Var(u^T z) - sigma_x^2``: the reports' variance minus the noise's)
    and a between-class term. Along a unit direction ``Var(s)`` has a
    standard deviation of about ``sqrt((2 sigma_x^4 + 4 sigma_x^2 Var(s)) /
    n)`` (a mean of ``n`` squared Gaussians), often as large as ``Var(s)``
    itself, whereas the class means need first moments only (``E[x]``,
    ``E[x y]``: a standard deviation of about ``sigma_x / sqrt(n)``). The
    two errors of ``v`` are not alike: an overestimate moves the threshold
    past the minority class's mean, and the scorer predicts the majority
    class for nearly every user; an underestimate moves it toward the
    midpoint between the class means, where well-separated classes are
    still classified well. So ``v`` is replaced by its lower confidence
    bound ``max(0, v - THRESHOLD_VARIANCE_SDS * sd)``: the prior correction
    is made where the reports can see it.

    Moments along a direction fitted on the same reports are optimistic
    (``Cov(y, s)`` includes the noise the fit followed, by far the larger
    part when the direction is noisy), so the servers pass ``held_out``:
    per fold, the scorer fitted on the other folds and the fold's own
    moments (cross-fitting). ``Cov(y, s)`` and ``Var(s)`` are then pooled
    over folds, each along its own scorer's unit direction and centred at
    its own fold's means; the location ``E[s]`` along ``w`` and ``p`` are
    those of ``moments``. Without ``held_out``, everything comes from
    ``moments`` along ``w``. When the direction is not positively
    correlated with the labels (``Cov(y, s) <= 0``), one class is absent
    (``p`` outside ``(0, 1)``), or ``w = 0``, ``W`` is returned unchanged.

    Parameters
    ----------
    moments : Moments
        Debiased moments of all reports.
    W : ndarray of shape (n_features + 1, 1)
        The scorer, intercept last (one output).
    sigma_x : float, default=0.0
        The feature noise of the reports (scaled features).
    held_out : list of (Moments, ndarray) or None, default=None
        Per fold, the debiased moments of the fold and the same model
        fitted on the other folds (shape of ``W``). None or empty: the
        statistics along ``w`` on ``moments``.

    Returns
    -------
    W : ndarray of shape (n_features + 1, 1)
        A copy with the intercept replaced.

    Notes
    -----
    Measured (``GLMLDPClassifier``, epsilon 8, 2 * 10^4 users, classes
    80/20 separated along one of three features, 40 draws): test accuracy
    0.931 +- 0.060 with the least-squares threshold (``Var(s)`` plus one
    standard deviation; 13 draws below 0.9, up to 99.9% of users predicted
    in the majority class), 0.969 +- 0.029 with this one (2 below 0.9, at
    most 82%). Without cross-fitting, breast cancer at 10^5 users and
    epsilon 2 fell from 0.80 to 0.67 (the direction's in-sample covariance
    was 1.0, its held-out one 0.06).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import Moments, refit_threshold
    >>> # x = +-1/2, y = 2 x, 3 users in 4 of class +1: b = 0.9 predicts +1 always
    >>> gram = np.array([[0.25, 0.25], [0.25, 1.0]])
    >>> moments = Moments(gram, np.array([[0.5], [0.5]]), np.ones(1), 4)
    >>> refit_threshold(moments, np.array([[0.1], [0.9]])).ravel().round(6) + 0.0
    array([0.1, 0. ])
    """
    W = np.array(W, dtype=np.float64).reshape(moments.gram.shape[0], -1)
    d = W.shape[0] - 1
    w = W[:d, 0]
    if W.shape[1] != 1 or not np.any(w):
        return W
    norm = float(np.linalg.norm(w))
    mean_s = float(w @ moments.gram[:d, -1]) / norm
    positive = 0.5 * (1.0 + float(moments.cross[-1, 0]))
    pairs = [(moments, W)] if held_out is None or not len(held_out) else held_out
    offset = _discriminant_offset(positive, *_centred_score_moments(pairs), sigma_x)
    if offset is not None:
        W[d, 0] = -norm * (mean_s + offset)
    return W


def _centred_score_moments(pairs):
    """Pooled ``Cov(y, s)``, ``Var(s)`` and ``n`` of ``s = u^T x``.

    ``u = w / ||w||`` per pair ``(moments, W)``: each pair's debiased
    moments along its own unit direction, centred at its own means and
    weighted by its number of reports.
    """
    sums, n = np.zeros(2), 0
    for pair_moments, pair_W in pairs:  # at most N_FOLDS pairs
        m = pair_moments.gram.shape[0]
        w = np.asarray(pair_W, dtype=np.float64).reshape(m, -1)[: m - 1, 0]
        norm = float(np.linalg.norm(w))
        if norm == 0.0 or pair_moments.n == 0:
            continue
        u = w / norm
        mean_s = float(u @ pair_moments.gram[: m - 1, -1])
        mean_y = float(pair_moments.cross[-1, 0])
        covariance = float(u @ pair_moments.cross[: m - 1, 0]) - mean_y * mean_s
        variance = float(u @ pair_moments.gram[: m - 1, : m - 1] @ u) - mean_s**2
        sums += pair_moments.n * np.array([covariance, variance])
        n += pair_moments.n
    if n == 0:
        return np.nan, np.nan, 0
    return (*(sums / n), n)


def _discriminant_offset(positive, covariance, variance, n, sigma_x):
    """The threshold minus the mean score along a unit direction, or None.

    None when one class is absent or the direction is not positively
    correlated with the labels.
    """
    if n == 0 or not 0.0 < positive < 1.0 or not covariance > 0.0:
        return None
    balance = positive * (1.0 - positive)
    gap = covariance / (2.0 * balance)
    variance_sd = np.sqrt(
        (2.0 * sigma_x**4 + 4.0 * sigma_x**2 * max(variance, 0.0)) / n
    )
    within = variance - balance * gap**2 - THRESHOLD_VARIANCE_SDS * variance_sd
    log_odds = np.log(positive / (1.0 - positive))
    return (0.5 - positive) * gap - max(within, 0.0) * log_odds / gap


# ---------------------------------------------------------------- candidates
def constant_only_results(**extra):
    """``cv_results_`` of a server that had no model to choose from.

    Users sent the target (or the label) alone: the intercept-only model is
    the only candidate (``models_estimable`` False); ``extra`` entries are
    added (such as the estimated class frequencies).
    """
    return {
        "candidate": np.array(["constant"], dtype=object),
        "params": [{}],
        "selected": np.array([True]),
        "models_estimable": False,
        **extra,
    }


def constant_model(moments, fit_intercept=True):
    """``W`` of the intercept-only scorer: ``E[y]`` per output (0 without intercept)."""
    W = np.zeros((moments.gram.shape[0], moments.cross.shape[1]))
    if fit_intercept:
        W[-1] = moments.mean_target
    return W


def least_squares_path(moments, alphas, fit_intercept=True):
    """Debiased ridge least squares for each ``alpha``: ``(n_alphas, m, n_outputs)``.

    Minimizes ``E[(y - W^T [x, 1])^2] + alpha ||W_x||^2`` with the debiased
    Gram matrix projected onto the PSD cone (the intercept is not penalized;
    without ``fit_intercept`` its row is 0).
    """
    m = moments.gram.shape[0]
    keep = m if fit_intercept else m - 1
    gram = project_psd(moments.gram[:keep, :keep])
    cross = moments.cross[:keep]
    penalty = np.ones(keep)
    if fit_intercept:
        penalty[-1] = 0.0
    paths = np.zeros((len(alphas), m, cross.shape[1]))
    for a, alpha in enumerate(alphas):  # a handful of penalties
        system = gram + np.diag(alpha * penalty)
        system[np.diag_indices(keep)] += 1e-12 * max(1.0, np.trace(gram))
        paths[a, :keep] = np.linalg.lstsq(system, cross, rcond=None)[0]
    return paths


def gram_noise_scale(sigma_x, n_features, n_reports):
    """``sigma_x^2 sqrt(d / n)``: how far the debiased Gram matrix of ``n``
    reports in ``d`` dimensions is off in operator norm (a Wishart's spread).

    A public quantity (the noise level, the dimension and the number of
    reports): the scale of every ridge that keeps a debiased solve stable.
    """
    return sigma_x**2 * np.sqrt(max(n_features, 1) / max(n_reports, 1))


def ridge_alphas(sigma_x, n_features, n_reports, n_alphas=7):
    """A public grid of ridge penalties around the noise scale of the Gram matrix.

    The debiased Gram matrix of ``n`` reports fluctuates by about
    ``sigma_x^2 sqrt(d / n)`` in operator norm (a Wishart's spread), so the
    grid spans ``10^-1 .. 10^2`` times that scale (floored at ``1e-6``, the
    non-private limit), a function of public quantities only.
    """
    scale = max(gram_noise_scale(sigma_x, n_features, n_reports), 1e-6)
    return scale * np.logspace(-1, 2, n_alphas)


def signal_test(moments, sigma_x, sigma_t):
    """p-value of "the labels are uncorrelated with the features" from reports.

    Under ``E[x y^T] = 0`` each entry of the debiased ``E[z t^T]`` (features
    only) is a mean of ``n`` independent terms of variance about ``(E[y_c^2]
    + sigma_t^2) (E[x_j^2] + sigma_x^2)``, so ``n sum_jc E[z_j t_c]^2 /
    variance_jc`` is approximately chi-square with ``d * n_outputs``
    degrees of freedom (one-vs-rest labels are dependent across outputs:
    the test is then approximate). A large p-value says the reports cannot
    tell the labels' direction from noise: a scorer fitted on them points in
    a random direction, whose expected accuracy is at most that of the
    majority class.
    """
    from scipy.stats import chi2

    statistic = signal_statistic(moments, sigma_x, sigma_t)
    d = moments.gram.shape[0] - 1
    return float(chi2.sf(statistic, d * moments.cross.shape[1]))


def signal_statistic(moments, sigma_x, sigma_t):
    """The chi-square statistic of :func:`signal_test` (``d * n_outputs``
    degrees of freedom under "no signal").

    ``n sum_jc E[z_j t_c]^2 / variance_jc``: the squared length of the
    debiased cross moment in units of its own noise, so also an estimate of
    the signal-to-noise ratio (its mean is ``d * n_outputs`` plus the
    non-centrality).
    """
    d = moments.gram.shape[0] - 1
    second = np.clip(np.diag(moments.gram)[:d], 0.0, None)
    label = np.clip(moments.square, 0.0, None)
    variance = np.outer(second + sigma_x**2, label + np.asarray(sigma_t) ** 2)
    return moments.n * float(np.sum(moments.cross[:d] ** 2 / variance))


def directional_signal_test(folded, fit):
    """One-sided p-value of "no signal" along directions fitted on other folds.

    For each fold ``k`` the scorer ``W = fit(moments of the other folds)``
    is fixed before fold ``k`` is read; fold ``k``'s centred covariance
    ``sum_c (E_k[t_c w_c^T z] - E_k[t_c] E_k[w_c^T z])`` then has mean 0
    when the labels are independent of the features, and per-report
    variance ``sum_c Var(t_c) Var(w_c^T z)`` (from the fold's debiased
    moments plus the known noise). The folds' sums are added into one
    z-statistic. Where the chi-square :func:`signal_test` spreads its power
    over every coordinate, this one puts it on the direction the model
    would use: it detects a signal spread over many features.

    The folds' terms are not independent: fold ``j``'s reports are in the
    direction scored on fold ``k`` and fold ``k``'s in the one scored on
    fold ``j``. For a direction linear in the training folds' cross moment
    (``w_k = A c_{-k}``, ``c_{-k}`` the mean of the other folds' ``c_j``,
    as least squares under "no signal"), the sum is ``n / (K (K - 1))
    sum_{k != j} c_k^T A c_j``: each pair of folds twice, its variance
    twice the sum of the per-fold conditional variances, for any number
    of folds ``K`` (a U-statistic; the ``K(K-1)/2`` pair terms are
    uncorrelated). Hence the factor :data:`FOLD_PAIR_VARIANCE_FACTOR`.
    The statistic is self-normalized (the variance is estimated along the
    fitted directions) and not Gaussian: in ``d`` isotropic dimensions it
    is ``((K-1) U - Q) / sqrt(2 ((K-1)^2 U + Q))`` with independent ``U ~
    chi2_d`` and ``Q ~ chi2_{(K-1) d}``, whose right tail is lighter than
    the normal's for small ``d`` (its mean is below 0): the test is then
    conservative, and close to its level for large ``d``.
    """
    from scipy.stats import norm

    scores = held_out_scores(folded, lambda k: fit(folded.moments(exclude=k)))
    if scores.noise <= 0.0:
        return 1.0
    return float(norm.sf(scores.statistic))


@dataclass(frozen=True)
class HeldOutScores:
    """Fold models scored on their held-out folds (:func:`held_out_scores`).

    Sums over the scored folds ``k`` and the outputs ``c`` of ``n_k``
    times: ``covariance``, the centred covariance of ``t_c`` with the
    score ``w_c^T z`` (unbiased for the clean ``Cov(y_c, w_c^T x)``);
    ``noise``, ``Var_k(t_c) Var_k(w_c^T z)`` of the noisy reports (the
    variance of the covariance's fold term given ``w``); ``variance``, the
    debiased ``Var(w_c^T x)``. ``n`` is the number of reports scored.
    """

    n: int
    covariance: float
    noise: float
    variance: float

    @property
    def statistic(self):
        """``covariance / sd``: the held-out signal in units of its noise
        under "no signal" (each pair of folds twice,
        :data:`FOLD_PAIR_VARIANCE_FACTOR`); 0 without noise."""
        if self.noise <= 0.0:
            return 0.0
        return self.covariance / np.sqrt(FOLD_PAIR_VARIANCE_FACTOR * self.noise)


def held_out_scores(folded, fold_fit, fit_intercept=True):
    """Score each fold's reports along the model fitted without that fold.

    ``fold_fit(k)`` is ``W`` (shape ``(n_features + 1, n_outputs)``, the
    intercept row unused) fitted on the folds other than ``k``, or None to
    skip the fold. With ``fit_intercept=False`` the moments are uncentred
    (``E[t w^T z]``, ``E[(w^T z)^2]``). The noises of ``t`` and ``z`` are
    independent of each other and of ``W``, so the fold's covariance is
    unbiased, and the noisy variances add the known noise
    (``sigma_x^2 ||w||^2``, ``sigma_t^2``). Shared by
    :func:`directional_signal_test` and
    :func:`~sklearn_ldp.aggregation._ridge.held_out_shrinkage`.

    Returns
    -------
    HeldOutScores
    """
    d = folded.zz.shape[1] - 1
    n = 0
    covariance = noise = variance = 0.0
    for k in range(folded.n_folds):  # K folds
        if folded.counts[k] < 2 or folded.counts[k] == folded.n:
            continue
        W = fold_fit(k)
        if W is None:
            continue
        W = np.asarray(W, dtype=np.float64)[:d]
        held = folded.moments([k])
        mean_z = held.gram[:d, -1] if fit_intercept else np.zeros(d)
        mean_t = held.mean_target if fit_intercept else np.zeros_like(held.square)
        mean_s = mean_z @ W
        clean = np.einsum("ic,ij,jc->c", W, held.gram[:d, :d], W)
        var_s = clean + folded.sigma_x**2 * np.sum(W * W, axis=0) - mean_s**2
        var_t = np.clip(held.square + folded.sigma_t**2 - mean_t**2, 0.0, None)
        covariance += held.n * (np.sum(held.cross[:d] * W) - float(mean_t @ mean_s))
        noise += held.n * float(np.sum(var_t * np.clip(var_s, 0.0, None)))
        variance += held.n * float(np.sum(clean - mean_s**2))
        n += held.n
    return HeldOutScores(n, float(covariance), noise, variance)


# ----------------------------------------------------------------- selection
@dataclass(frozen=True)
class Candidate:
    """A model the server can fit from reports: ``fit(train) -> W``.

    ``train`` is a :class:`Moments` when ``needs_rows`` is False, else the
    pair ``(moments, rows)`` with ``rows`` the boolean mask of the training
    reports (for candidates that need the reports themselves). ``params`` is
    shown in ``cv_results_``.
    """

    name: str
    fit: object
    params: dict
    needs_rows: bool = False


def cross_validate(folded, candidates, criterion, fold_fits=None, fitted=None):
    """Held-out criterion of every candidate on every fold.

    ``fold_fits`` (optional): ``fold_fits(c, k)`` returns candidate ``c``
    fitted on the folds other than ``k`` when the caller has computed it
    already (several candidates solved at once), or None to call
    ``candidate.fit``. ``fitted`` (optional): a dict that receives every
    fit, keyed ``(c, k)`` (for a caller that reuses them, such as the
    cross-fitted threshold of :func:`refit_threshold`).

    Returns
    -------
    scores : ndarray of shape (n_candidates, n_folds)
    """
    scores = np.full((len(candidates), folded.n_folds), np.nan)
    for k in range(folded.n_folds):  # K folds
        if folded.counts[k] == 0 or folded.counts[k] == folded.n:
            continue
        train = folded.moments(exclude=k)
        held_out = folded.moments([k])
        rows = folded.training_rows(k)
        for c, candidate in enumerate(candidates):
            W = None if fold_fits is None else fold_fits(c, k)
            if W is None:
                W = candidate.fit((train, rows) if candidate.needs_rows else train)
            if fitted is not None:
                fitted[c, k] = W
            scores[c, k] = criterion(held_out, W, train)
    return scores


def select_candidate(scores, candidates):
    """Index of the chosen candidate and the ``cv_results_`` dictionary.

    Each candidate's mean over folds and its standard error ``std / sqrt(K)``
    are reported. The reference is the candidate with the lowest *upper*
    bound ``mean + std_error`` (a noisy candidate whose mean is low by
    chance is not a reference). The chosen one is the *first* (most
    preferred) candidate whose mean exceeds the reference's by at most one
    standard error of the *paired* difference (the folds are shared, so the
    difference's spread over folds is free of the noise common to all
    candidates): a less preferred candidate must be better by a margin the
    folds can see.
    """
    valid = np.all(np.isfinite(scores), axis=0)
    if not valid.any():
        zeros = np.zeros(len(candidates))
        return 0, _results(candidates, scores, zeros, 0, zeros)
    kept = scores[:, valid]
    mean = kept.mean(axis=1)
    std_error = _standard_error(kept)
    reference = int(np.argmin(mean + std_error))
    difference_error = _standard_error(kept - kept[reference])
    chosen = int(np.flatnonzero(mean <= mean[reference] + difference_error)[0])
    return chosen, _results(candidates, scores, mean, chosen, std_error)


def _standard_error(values):
    if values.shape[1] < 2:
        return np.zeros(values.shape[0])
    return values.std(axis=1, ddof=1) / np.sqrt(values.shape[1])


def _results(candidates, scores, mean, chosen, std_error):
    order = np.argsort(mean, kind="stable")
    rank = np.empty(len(mean), dtype=int)
    rank[order] = np.arange(1, len(mean) + 1)
    return {
        "candidate": np.array([c.name for c in candidates], dtype=object),
        "params": [dict(c.params) for c in candidates],
        "mean_risk": mean,
        "std_error": std_error,
        "split_risks": scores,
        "rank": rank,
        "selected": np.arange(len(candidates)) == chosen,
    }
