"""Debiased sufficient statistics of Gaussian reports (Zheng et al. 2017, Alg. 3-4).

Users send ``z_i = phi_i + sigma_x g_i`` (features, ``m`` entries) and
``v_i = y_i + sigma_y h_i``. The server only needs

    Z^T Z = sum_i z_i z_i^T,   Z^T v = sum_i z_i v_i,   n,

which it accumulates chunk by chunk, so memory is ``O(m^2)`` whatever the
number of users. Since ``E[z z^T] = phi phi^T + sigma_x^2 I`` and the noise of
``z`` and ``v`` is independent, ``Z^T Z - n sigma_x^2 I`` and ``Z^T v`` are
unbiased for the clean statistics; the former is projected onto the PSD cone
(``Proj_PSD``) so the quadratic objective stays convex.

On the lattice (:class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer`)
``g_i`` and ``h_i`` are rounded Gaussians and ``sigma_x``, ``sigma_y`` the
configuration's exact standard deviations of the released noise
(``g sqrt(s^2 + 1/12)``), so the debiasing above is exact; ``phi_i`` is the
record after unbiased randomized rounding, whose extra variance (at most
``g^2 / 4`` per entry, below ``1.5e-8`` of ``sigma_x^2``) stays in the
statistics as part of the data.
"""

import numpy as np

from ..randomizers import chunk_rows
from ..utils import check_finite_array


def check_gaussian_reports(reports, n_components, *, with_target):
    """The noisy features (and targets) of Gaussian record reports, validated.

    Refuses reports without the fields ``'x'`` (and ``'y'`` with
    ``with_target``), of another shape, or with NaN or infinity, before
    anything is aggregated.

    Returns
    -------
    Z : ndarray of shape (n_reports, n_components)
    v : ndarray of shape (n_reports,) or None
    """
    expected = ("x", "y") if with_target else ("x",)
    missing = [name for name in expected if name not in reports.fields]
    if missing:
        raise ValueError(f"These reports have no field {missing}.")
    Z = check_finite_array(reports["x"], name="reports['x']", ndim=2)
    if Z.shape[1] != n_components:
        raise ValueError(
            f"Expected reports with {n_components} components, got shape {Z.shape}."
        )
    if not with_target:
        return Z, None
    return Z, check_finite_array(reports["y"], name="reports['y']", ndim=1)


def project_psd(matrix):
    """Nearest (Frobenius) positive semi-definite matrix of a symmetric matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import project_psd
    >>> project_psd(np.diag([2.0, -1.0])).tolist()
    [[2.0, 0.0], [0.0, 0.0]]
    """
    matrix = 0.5 * (matrix + matrix.T)
    eigvals, eigvecs = np.linalg.eigh(matrix)
    return (eigvecs * np.maximum(eigvals, 0.0)) @ eigvecs.T


class SufficientStatistics:
    """Streaming accumulator of ``Z^T Z``, ``Z^T v`` and ``n``.

    Parameters
    ----------
    n_components : int
        Dimension ``m`` of the released feature vectors.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import SufficientStatistics
    >>> stats = SufficientStatistics(2)
    >>> stats.update(np.ones((3, 2)), np.ones(3))
    >>> stats.n, stats.gram.tolist(), stats.moment.tolist()
    (3, [[3.0, 3.0], [3.0, 3.0]], [3.0, 3.0])
    """

    def __init__(self, n_components):
        self.n_components = int(n_components)
        self.n = 0
        self.gram = np.zeros((self.n_components, self.n_components))
        self.moment = np.zeros(self.n_components)

    def update(self, Z, v=None, chunk_size=None):
        """Add a batch of reports (chunked, so temporaries stay small).

        ``chunk_size`` rows at a time; None follows the package's chunk rule
        (:func:`~sklearn_ldp.randomizers.chunk_rows`).
        """
        Z = np.asarray(Z, dtype=float)
        if Z.ndim != 2 or Z.shape[1] != self.n_components:
            raise ValueError(
                f"Expected reports with {self.n_components} components, got shape {Z.shape}."
            )
        if chunk_size is None:
            chunk_size = chunk_rows(self.n_components)
        for start in range(0, Z.shape[0], chunk_size):
            block = Z[start : start + chunk_size]
            self.gram += block.T @ block
            if v is not None:
                self.moment += block.T @ np.asarray(
                    v[start : start + chunk_size], dtype=float
                )
        self.n += Z.shape[0]

    def debiased_gram(self, sigma, project=True):
        """``Proj_PSD(Z^T Z - n sigma^2 I)``: unbiased (before projection) for the clean Gram."""
        debiased = self.gram - self.n * float(sigma) ** 2 * np.eye(self.n_components)
        return project_psd(debiased) if project else debiased


class FoldedStatistics:
    """Sufficient statistics of reports split into folds, for cross-validation.

    User number ``i`` (counting across all batches) goes to fold
    ``i mod n_folds``, whatever its data, so the folds stream. Each fold
    keeps ``Z^T Z``, ``Z^T v``, ``n`` and ``sum v^2``.

    Parameters
    ----------
    n_folds : int
    n_components : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import FoldedStatistics
    >>> folds = FoldedStatistics(2, 1)
    >>> folds.update(np.ones((3, 1)), np.array([1.0, 2.0, 3.0]))
    >>> folds.n, folds.square_sums.tolist(), folds.total().moment.tolist()
    (3, [10.0, 4.0], [6.0])
    """

    def __init__(self, n_folds, n_components):
        self.n_components = int(n_components)
        self.folds = [SufficientStatistics(n_components) for _ in range(int(n_folds))]
        self.square_sums = np.zeros(len(self.folds))

    @property
    def n(self):
        return sum(fold.n for fold in self.folds)

    def update(self, Z, v):
        """Add a batch of reports (rows are users, in arrival order)."""
        n_folds, offset = len(self.folds), self.n
        for k, fold in enumerate(self.folds):
            rows = slice((k - offset) % n_folds, None, n_folds)
            fold.update(Z[rows], v[rows])
            self.square_sums[k] += v[rows] @ v[rows]

    def total(self):
        """The statistics of all folds together."""
        total = SufficientStatistics(self.n_components)
        for fold in self.folds:
            total.gram += fold.gram
            total.moment += fold.moment
            total.n += fold.n
        return total


def debiased_least_squares(
    gram, moment, n_samples, sigma, *, feature_sum=None, target_sum=None, project=True
):
    """Debiased, PSD-projected quadratic and linear terms of least squares on reports.

    ``gram`` and ``moment`` are ``Z^T Z`` and ``Z^T v`` of ``n`` reports
    whose features carry ``N(0, sigma^2 I)`` noise. Without the sums:
    ``Q = Proj_PSD(Z^T Z - n sigma^2 I)`` and ``b = Z^T v``. With the sums
    ``s = sum_i z_i`` and ``t = sum_i v_i`` (to fit an intercept), the
    centred versions ``Z^T Z - s s^T / n - (n - 1) sigma^2 I`` (``E[s s^T /
    n]`` carries ``sigma^2 I`` of noise) and ``Z^T v - s t / n``, both
    unbiased for the clean centred statistics.

    Parameters
    ----------
    gram : ndarray of shape (m, m)
    moment : ndarray of shape (m,)
    n_samples : int
    sigma : float
        Standard deviation of the noise on each feature.
    feature_sum : ndarray of shape (m,) or None, default=None
    target_sum : float or None, default=None
        Both or neither; given, the statistics are centred.
    project : bool, default=True
        ``False`` skips ``Proj_PSD`` (to test unbiasedness).

    Returns
    -------
    quadratic : ndarray of shape (m, m)
        ``Q / n``.
    linear : ndarray of shape (m,)
        ``b / n``.
    feature_mean : ndarray of shape (m,)
        ``s / n`` (zeros without the sums).
    target_mean : float
        ``t / n`` (0 without the sums).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import debiased_least_squares
    >>> Q, b, _, _ = debiased_least_squares(np.eye(2) * 5, np.ones(2), 4, 0.5)
    >>> Q.tolist(), b.tolist()
    ([[1.0, 0.0], [0.0, 1.0]], [0.25, 0.25])
    """
    n = max(int(n_samples), 1)
    m = gram.shape[0]
    scatter = np.array(gram, dtype=np.float64)
    cross = np.array(moment, dtype=np.float64)
    if feature_sum is not None:
        scatter -= np.outer(feature_sum, feature_sum) / n
        cross -= feature_sum * target_sum / n
        scatter[np.diag_indices(m)] -= (n - 1) * sigma**2
        feature_mean, target_mean = feature_sum / n, target_sum / n
    else:
        scatter[np.diag_indices(m)] -= n * sigma**2
        feature_mean, target_mean = np.zeros(m), 0.0
    if project:
        scatter = project_psd(scatter)
    return scatter / n, cross / n, feature_mean, target_mean
