"""Compressed-sensing recovery and median-of-means (Zheng et al. 2017; Wang et al. 2018).

After a public random projection, the server holds a noisy estimate of
``Phi^T w`` (or ``G mu``) in a low dimension and recovers a sparse vector of
the original dimension by l1 minimization (a linear program). Median-of-means
in l1 distance (Hsu and Sabato 2016, Proposition 9) boosts the confidence of a
vector mean estimate. All of it is post-processing of reports.
"""

import numpy as np
from scipy import sparse
from scipy.optimize import linprog
from scipy.spatial.distance import cdist


def basis_pursuit(matrix, target, *, residual_bound=0.0):
    """Minimum l1-norm solution of ``matrix @ w ~= target``.

    Solves ``min ||w||_1`` subject to ``matrix @ w == target`` (basis
    pursuit, ``residual_bound=0``) or ``||matrix @ w - target||_1 <=
    residual_bound`` (the l1-residual form of seed 003 Algorithm 2), as a
    linear program for HiGHS (``scipy.optimize.linprog``): ``w = w+ - w-``
    with ``w+, w- >= 0`` and, for the second form, slacks ``s >= 0`` with
    ``-s <= matrix @ w - target <= s`` and ``sum(s) <= residual_bound``.

    Parameters
    ----------
    matrix : array-like or sparse matrix of shape (p, d)
    target : array-like of shape (p,)
    residual_bound : float, default=0.0
        ``>= 0``; 0 asks for an exact fit.

    Returns
    -------
    w : ndarray of shape (d,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import basis_pursuit
    >>> basis_pursuit(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]),
    ...               np.array([1.0, 1.0])).round(6).tolist()
    [0.0, 1.0, 0.0]
    """
    matrix = (
        sparse.csr_matrix(matrix, dtype=np.float64)
        if sparse.issparse(matrix)
        else np.asarray(matrix, dtype=np.float64)
    )
    target = np.asarray(target, dtype=np.float64)
    if matrix.ndim != 2 or target.shape != (matrix.shape[0],):
        raise ValueError(
            f"Expected a (p, d) matrix and a (p,) target, got {matrix.shape} "
            f"and {target.shape}."
        )
    residual_bound = float(residual_bound)
    if not residual_bound >= 0:
        raise ValueError(f"residual_bound must be >= 0, got {residual_bound!r}.")
    p, d = matrix.shape
    split = sparse.hstack([sparse.csr_matrix(matrix), -sparse.csr_matrix(matrix)])
    split = split.tocsr()
    if residual_bound == 0.0:
        result = linprog(
            np.ones(2 * d), A_eq=split, b_eq=target, bounds=(0, None), method="highs"
        )
    else:
        identity = sparse.identity(p, format="csr")
        a_ub = sparse.vstack(
            [
                sparse.hstack([split, -identity]),
                sparse.hstack([-split, -identity]),
                sparse.hstack([sparse.csr_matrix((1, 2 * d)), np.ones((1, p))]),
            ],
            format="csr",
        )
        b_ub = np.concatenate([target, -target, [residual_bound]])
        cost = np.concatenate([np.ones(2 * d), np.zeros(p)])
        result = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=(0, None), method="highs")
    if result.status != 0:
        raise RuntimeError(f"The l1 recovery linear program failed: {result.message}")
    return result.x[:d] - result.x[d : 2 * d]


def l1_residual_bound(n_components, sigma, feature_norm, group_size):
    """Typical l1 size of the error of a mean of ``group_size`` projected reports.

    The ``residual_bound`` of :func:`basis_pursuit` for reports
    ``clip(G x_i) + N(0, sigma^2 I_p)`` with ``||clip(G x_i)|| <=
    feature_norm``. The noise part is ``N(0, sigma^2 / g I_p)``: its l1 norm
    has mean ``p sigma sqrt(2/pi) / sqrt(g)`` and std
    ``sigma sqrt(p (1 - 2/pi) / g)``; the sampling part has
    ``E ||.||_2^2 <= feature_norm^2 / g``, so its l1 norm is about
    ``sqrt(p) feature_norm / sqrt(g)``. The bound is the mean of the noise
    part plus three standard deviations, plus the sampling part.

    Examples
    --------
    >>> from sklearn_ldp.aggregation import l1_residual_bound
    >>> round(float(l1_residual_bound(4, 1.0, 1.0, 100)), 3)
    0.881
    """
    p, g = float(n_components), max(float(group_size), 1.0)
    noise = p * sigma * np.sqrt(2.0 / np.pi) + 3.0 * sigma * np.sqrt(
        p * (1.0 - 2.0 / np.pi)
    )
    return (noise + np.sqrt(p) * feature_norm) / np.sqrt(g)


def median_of_means(group_means, metric="cityblock"):
    """Select the most central of several group means (Hsu and Sabato 2016).

    For each group mean ``mu_j``, ``r_j`` is the smallest radius of a ball
    around it (in ``metric``, l1 by default as in seed 003 Algorithm 2)
    that holds at least half of the means, itself included; the mean with
    the smallest ``r_j`` is returned. If each mean is within ``e`` of the
    truth with probability ``>= 2/3``, the selected one is within ``3 e``
    with probability ``>= 1 - exp(-k / 18)`` for ``k`` groups.

    Parameters
    ----------
    group_means : array-like of shape (k, p)
    metric : str, default='cityblock'
        Any metric of :func:`scipy.spatial.distance.cdist`.

    Returns
    -------
    mean : ndarray of shape (p,)
    index : int
        The group that was selected.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import median_of_means
    >>> means = np.array([[0.0, 0.0], [0.1, 0.0], [9.0, 9.0]])
    >>> median_of_means(means)[1]
    0
    """
    group_means = np.asarray(group_means, dtype=np.float64)
    if group_means.ndim != 2 or group_means.shape[0] == 0:
        raise ValueError(f"Expected (k, p) group means, got {group_means.shape}.")
    n_groups = group_means.shape[0]
    distances = cdist(group_means, group_means, metric=metric)
    half = int(np.ceil(n_groups / 2.0))
    radii = np.partition(distances, half - 1, axis=1)[:, half - 1]
    index = int(np.argmin(radii))
    return group_means[index].copy(), index


class GroupedSums:
    """Streaming per-group sums of reports, users assigned round-robin.

    User number ``i`` (counting across all batches) goes to group
    ``i mod n_groups``. The assignment ignores the data, so for i.i.d. users
    the group means are i.i.d., as median-of-means requires (the paper's
    contiguous blocks need the population size in advance; round-robin
    gives the same distribution and streams).

    Parameters
    ----------
    n_groups : int
    n_components : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import GroupedSums
    >>> sums = GroupedSums(2, 1)
    >>> sums.update(np.array([[1.0], [2.0], [3.0]]))
    >>> sums.means().ravel().tolist(), sums.counts.tolist()
    ([2.0, 2.0], [2, 1])
    """

    def __init__(self, n_groups, n_components):
        self.n_groups = int(n_groups)
        self.n_components = int(n_components)
        self.sums = np.zeros((self.n_groups, self.n_components))
        self.counts = np.zeros(self.n_groups, dtype=np.int64)
        self.n = 0

    def update(self, values, positions=None):
        """Add a batch of reports (rows are users).

        ``positions``: each report's position in the stream (group
        ``position mod n_groups``); None: the next ones in arrival order.
        """
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 2 or values.shape[1] != self.n_components:
            raise ValueError(
                f"Expected reports with {self.n_components} components, got "
                f"shape {values.shape}."
            )
        n_batch = values.shape[0]
        if positions is None:
            positions = self.n + np.arange(n_batch)
        positions = np.asarray(positions, dtype=np.int64)
        if positions.shape != (n_batch,):
            raise ValueError(
                f"Expected {n_batch} positions, got shape {positions.shape}."
            )
        groups = positions % self.n_groups
        indicator = sparse.csr_matrix(
            (np.ones(n_batch), (groups, np.arange(n_batch))),
            shape=(self.n_groups, n_batch),
        )
        self.sums += indicator @ values
        self.counts += np.bincount(groups, minlength=self.n_groups)
        self.n += n_batch

    def shift_positions(self, offset):
        """As if every report added so far sat ``offset`` positions later.

        The report at position ``p`` moves to group ``(p + offset) mod
        n_groups``: the groups rotate.
        """
        shift = int(offset) % self.n_groups
        self.sums = np.roll(self.sums, shift, axis=0)
        self.counts = np.roll(self.counts, shift)

    def means(self):
        """Means of the non-empty groups, shape ``(k', n_components)``."""
        filled = self.counts > 0
        return self.sums[filled] / self.counts[filled, None]
