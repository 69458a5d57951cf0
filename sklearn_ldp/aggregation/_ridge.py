"""Ridge regression on debiased sufficient statistics, and its report-only CV.

Users send ``z_i = phi_i + N(0, sigma_x^2 I)`` and ``v_i = y_i + N(0,
sigma_y^2)`` (on a public lattice: rounded Gaussian noise whose exact
standard deviations ``sigma_x``, ``sigma_y`` the configuration carries, see
:mod:`~sklearn_ldp.aggregation._sufficient`); the server keeps the
statistics of :class:`~sklearn_ldp.aggregation.FoldedStatistics`. Everything
here is post-processing of reports: it costs no privacy.
"""

import numpy as np
import scipy.linalg


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


def debiased_cv_risk(folds, square_sums, sigma_x, sigma_y, alphas):
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
    risk, variance, n_scored = np.zeros(alphas.shape), np.zeros(alphas.shape), 0
    for fold, square_sum in zip(folds, square_sums, strict=True):
        n_train = total_n - fold.n
        if fold.n == 0 or n_train == 0:
            continue
        train_gram = (total_gram - fold.gram) / n_train
        train_gram.flat[:: train_gram.shape[0] + 1] -= sigma_x**2
        eigvals, eigvecs = np.linalg.eigh(0.5 * (train_gram + train_gram.T))
        eigvals = np.maximum(eigvals, 0.0)  # Proj_PSD
        rotated = eigvecs.T @ ((total_moment - fold.moment) / n_train)
        W = eigvecs @ (rotated[:, None] / (eigvals[:, None] + alphas[None, :]))
        noise = sigma_y**2 + sigma_x**2 * np.einsum("ia,ia->a", W, W)
        loss = square_sum - 2.0 * fold.moment @ W
        loss = (loss + np.einsum("ia,ia->a", W, fold.gram @ W)) / fold.n - noise
        risk += fold.n * loss
        variance += fold.n * (2.0 * noise**2 + 4.0 * np.maximum(loss, 0.0) * noise)
        n_scored += fold.n
    if not n_scored:
        return np.full(alphas.shape, np.nan), np.full(alphas.shape, np.nan)
    return risk / n_scored, np.sqrt(variance) / n_scored
