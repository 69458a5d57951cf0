"""Debiased sufficient statistics of Gaussian reports (seed 003 Alg. 3-4).

Users send ``z_i = phi_i + sigma_x g_i`` (features, ``m`` entries) and
``v_i = y_i + sigma_y h_i``. The server only needs

    Z^T Z = sum_i z_i z_i^T,   Z^T v = sum_i z_i v_i,   n,

which it accumulates chunk by chunk, so memory is ``O(m^2)`` whatever the
number of users. Since ``E[z z^T] = phi phi^T + sigma_x^2 I`` and the noise of
``z`` and ``v`` is independent, ``Z^T Z - n sigma_x^2 I`` and ``Z^T v`` are
unbiased for the clean statistics; the former is projected onto the PSD cone
(``Proj_PSD``) so the quadratic objective stays convex.
"""

import numpy as np


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

    def update(self, Z, v=None, chunk_size=65_536):
        """Add a batch of reports (chunked, so temporaries stay small)."""
        Z = np.asarray(Z, dtype=float)
        if Z.ndim != 2 or Z.shape[1] != self.n_components:
            raise ValueError(
                f"Expected reports with {self.n_components} components, got shape {Z.shape}."
            )
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
