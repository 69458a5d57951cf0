"""Server side of the frequency oracles: support counts, debiasing, post-processing.

The reports of :class:`~sklearn_ldp.randomizers.FrequencyRandomizer` are
reduced, chunk by chunk, to the number of users whose report supports each
cell (:func:`frequency_support_counts`); ``(c_x / n - q) / (p - q)`` is the
unbiased frequency (:func:`debias_frequencies`), with the variance of
:func:`frequency_variance`. Post-processing (no privacy cost): the Euclidean
projection onto the probability simplex (:func:`project_simplex`) or the
iterative Bayesian update (:func:`iterative_bayesian_update`).
"""

import numpy as np

from ..randomizers import chunk_rows
from ..randomizers._frequency import local_hash


def fast_walsh_hadamard(values):
    """``values @ H`` along the last axis (Sylvester ``H``, length a power of 2).

    ``O(K log K)`` butterflies, vectorized over the leading axes.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.linalg import hadamard
    >>> from sklearn_ldp.aggregation import fast_walsh_hadamard
    >>> x = np.arange(8.0)
    >>> bool(np.allclose(fast_walsh_hadamard(x), hadamard(8) @ x))
    True
    """
    out = np.array(values, dtype=np.float64)
    size = out.shape[-1]
    if size & (size - 1):
        raise ValueError(f"The length must be a power of 2, got {size}.")
    lead = out.shape[:-1]
    half = 1
    while half < size:
        blocks = out.reshape(*lead, size // (2 * half), 2, half)
        first, second = blocks[..., 0, :].copy(), blocks[..., 1, :]
        blocks[..., 0, :] += second
        blocks[..., 1, :] = first - second
        half *= 2
    return out


def count_values(values, n_values):
    """``np.bincount(values, minlength=n_values)`` of validated integer values.

    One-byte values (``uint8``, ``n_values <= 256``) are counted two at a
    time: each pair read as one 16-bit integer ``a + 256 b`` (or ``b + 256
    a``, by byte order), the histogram ``H[b, a]`` of the pairs gives every
    count as a column sum plus a row sum, which both orders share; half as
    many integers to count. Values in a float field (a batch that held a
    NaN) are cast back to integers.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation._frequency import count_values
    >>> count_values(np.array([2, 0, 2, 1, 2], dtype=np.uint8), 4).tolist()
    [1, 1, 3, 0]
    """
    values = np.asarray(values)
    if values.dtype.kind not in "iu":
        values = values.astype(np.int64)
    if values.dtype != np.uint8 or n_values > 256 or values.size < 2:
        return np.bincount(values, minlength=n_values)
    values = np.ascontiguousarray(values)
    half = values.size // 2
    pairs = np.bincount(values[: 2 * half].view(np.uint16), minlength=256 * n_values)
    table = pairs.reshape(n_values, 256)  # validated: no pair beyond it
    counts = table.sum(axis=1) + table[:, :n_values].sum(axis=0)
    if values.size % 2:
        counts[values[-1]] += 1
    return counts


def frequency_support_counts(randomizer, reports):
    """Per attribute, the users whose report supports each cell, and the users.

    Parameters
    ----------
    randomizer : FrequencyRandomizer
        The published randomizer (its configuration made ``reports``).
    reports : Reports
        Validated reports.

    Returns
    -------
    counts : ndarray of shape (n_features, n_cells)
    n_users : ndarray of shape (n_features,)
        Users who reported each attribute.
    """
    d, K = randomizer.n_features, randomizer.n_cells
    n = len(reports)
    if d == 1 and randomizer.mechanism == "randomized_response":
        # One attribute: the counts are those of the reports themselves.
        counts = count_values(reports["value"], K).astype(np.float64)
        return counts[None, :], np.array([float(n)])
    attribute = (
        np.asarray(reports["attribute"], dtype=np.int64)
        if d > 1
        else np.zeros(n, dtype=np.int64)
    )
    n_users = np.bincount(attribute, minlength=d).astype(np.float64)
    mechanism = randomizer.mechanism
    if mechanism == "randomized_response":
        flat = attribute * K + np.asarray(reports["value"], dtype=np.int64)
        counts = np.bincount(flat, minlength=d * K).reshape(d, K)
    elif mechanism == "hadamard_response":
        n_outputs = randomizer.design.n_outputs
        flat = attribute * n_outputs + np.asarray(reports["value"], dtype=np.int64)
        histogram = np.bincount(flat, minlength=d * n_outputs).reshape(d, n_outputs)
        # Users in C_x: (n + sum_j H[x + 1, j] h_j) / 2.
        signed = fast_walsh_hadamard(histogram)[:, 1 : K + 1]
        counts = np.rint((n_users[:, None] + signed) / 2)
    elif mechanism in ("unary_encoding", "subset_selection"):
        counts = np.zeros((d, K))
        step = chunk_rows(K)
        for start in range(0, n, step):
            bits = np.unpackbits(
                np.asarray(reports["bits"][start : start + step], dtype=np.uint8),
                axis=1,
                count=K,
            )
            _add_by_attribute(counts, attribute[start : start + step], bits)
    else:  # local_hashing
        counts = np.zeros((d, K))
        cells = np.arange(K)
        step = chunk_rows(K)
        g = randomizer.design.n_outputs
        for start in range(0, n, step):
            block = slice(start, start + step)
            a = np.asarray(reports["hash_a"][block], dtype=np.int64)[:, None]
            b = np.asarray(reports["hash_b"][block], dtype=np.int64)[:, None]
            value = np.asarray(reports["value"][block], dtype=np.int64)[:, None]
            supports = local_hash(a, b, cells, g) == value
            _add_by_attribute(counts, attribute[block], supports)
    return np.asarray(counts, dtype=np.float64), n_users


def _add_by_attribute(counts, attribute, rows):
    if counts.shape[0] == 1:
        counts[0] += rows.sum(axis=0)
    else:
        # One masked sum per attribute: ~30x faster than np.add.at here.
        for j in range(counts.shape[0]):
            counts[j] += rows[attribute == j].sum(axis=0)


class FrequencySupportCounts:
    """One-pass aggregate of frequency-oracle reports: support counts per attribute.

    The server's whole state (:func:`frequency_support_counts` summed over
    chunks of reports): ``counts[j, x]``, the users of attribute ``j`` whose
    report supports cell ``x``, and ``n_users[j]``. Debiasing, the simplex
    projection and the iterative Bayesian update read only these.

    Parameters
    ----------
    randomizer : FrequencyRandomizer
        The published randomizer.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import FrequencySupportCounts
    >>> from sklearn_ldp.randomizers import FrequencyRandomizer
    >>> randomizer = FrequencyRandomizer(1, epsilon=1.0, categories=3, unknown="error")
    >>> reports = randomizer.randomize(np.zeros((100, 1)), random_state=0)
    >>> aggregate = FrequencySupportCounts(randomizer)
    >>> aggregate.update(reports.subset(slice(0, 60)), np.arange(60))
    >>> aggregate.update(reports.subset(slice(60, None)), np.arange(60, 100))
    >>> aggregate.n_users.tolist(), float(aggregate.counts.sum())
    ([100.0], 100.0)
    """

    #: ``update`` ignores the reports' stream positions (no folds).
    needs_positions = False

    def __init__(self, randomizer):
        self.randomizer = randomizer
        self.counts = np.zeros((randomizer.n_features, randomizer.n_cells))
        self.n_users = np.zeros(randomizer.n_features)

    def update(self, reports, positions=None):
        """Add the support counts of validated ``reports`` (positions unused)."""
        counts, n_users = frequency_support_counts(self.randomizer, reports)
        self.counts += counts
        self.n_users += n_users

    def merge(self, other):
        """Add the counts of another aggregate of disjoint reports."""
        self.counts += other.counts
        self.n_users += other.n_users
        return self


def debias_frequencies(counts, n_users, support_prob, other_prob):
    """Unbiased frequencies ``(c_x / n - q) / (p - q)`` (may be negative).

    Examples
    --------
    >>> from sklearn_ldp.aggregation import debias_frequencies
    >>> debias_frequencies([60.0, 40.0], 100, 0.75, 0.25).tolist()
    [0.7, 0.3]
    """
    counts = np.asarray(counts, dtype=np.float64)
    n_users = np.asarray(n_users, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = counts / n_users[..., None] if counts.ndim > n_users.ndim else counts / n_users
    share = np.nan_to_num(share, nan=other_prob)
    return (share - other_prob) / (support_prob - other_prob)


def frequency_variance(frequencies, n_users, support_prob, other_prob):
    """Variance of the unbiased frequency of each cell.

    ``(f p (1 - p) + (1 - f) q (1 - q)) / (n (p - q)^2)`` (Wang et al. 2017,
    with the ``f`` term), the frequencies clipped to ``[0, 1]`` (a plug-in
    prediction when ``f`` is itself estimated).
    """
    f = np.clip(np.asarray(frequencies, dtype=np.float64), 0.0, 1.0)
    n_users = np.asarray(n_users, dtype=np.float64)
    if f.ndim > n_users.ndim:
        n_users = n_users[..., None]
    p, q = support_prob, other_prob
    with np.errstate(divide="ignore"):
        return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (
            np.maximum(n_users, 1.0) * (p - q) ** 2
        )


def project_simplex(values):
    """Euclidean projection of each row onto the probability simplex.

    The sort-based algorithm (Held, Wolfe, Crowder 1974; Duchi et al. 2008):
    ``max(v - tau, 0)`` with the one ``tau`` that makes the row sum to 1.

    Examples
    --------
    >>> from sklearn_ldp.aggregation import project_simplex
    >>> project_simplex([0.7, 0.5, -0.2]).tolist()
    [0.6, 0.4, 0.0]
    """
    values = np.asarray(values, dtype=np.float64)
    flat = values.reshape(-1, values.shape[-1])
    ordered = -np.sort(-flat, axis=1)
    cumulative = np.cumsum(ordered, axis=1) - 1.0
    ranks = np.arange(1, flat.shape[1] + 1)
    active = ordered - cumulative / ranks > 0
    last = flat.shape[1] - 1 - np.argmax(active[:, ::-1], axis=1)
    tau = cumulative[np.arange(flat.shape[0]), last] / (last + 1)
    return np.maximum(flat - tau[:, None], 0.0).reshape(values.shape)


def iterative_bayesian_update(
    counts, n_users, support_prob, other_prob, *, max_iter=10_000, tol=1e-12
):
    """Iterative Bayesian update (EM) of the frequencies from the support counts.

    The channel ``A[y, x] = p`` if ``y = x`` else ``q``, normalized by its
    column sum ``p + (K - 1) q``, maps the true frequencies to the expected
    share of supports; ``f <- f * A^T (s / (A f))`` (Agrawal and Aggarwal,
    PODS 2001) converges to the maximum-likelihood frequencies on the
    simplex. For randomized response the supports are the reports
    themselves and this is the exact likelihood; for the other mechanisms
    each report supports several cells and this is the EM of the composite
    likelihood of the support counts.

    Parameters
    ----------
    counts : ndarray of shape (n_features, n_cells)
    n_users : ndarray of shape (n_features,)
    support_prob, other_prob : float
    max_iter : int, default=10000
    tol : float, default=1e-12
        Stop when no frequency moves by more than ``tol``.

    Returns
    -------
    frequencies : ndarray of shape (n_features, n_cells)

    Examples
    --------
    >>> from sklearn_ldp.aggregation import iterative_bayesian_update
    >>> f = iterative_bayesian_update([[65.0, 35.0]], [100], 0.75, 0.25)
    >>> f.round(3).tolist()
    [[0.8, 0.2]]
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    K = counts.shape[1]
    p, q = support_prob, other_prob
    column = p + (K - 1) * q
    total = counts.sum(axis=1, keepdims=True)
    share = np.divide(counts, total, out=np.full_like(counts, 1.0 / K), where=total > 0)
    f = np.full_like(counts, 1.0 / K)
    for _ in range(max_iter):
        # (A f)_y = (q + (p - q) f_y) / column, since sum_x f_x = 1.
        expected = (q + (p - q) * f) / column
        ratio = share / expected
        # (A^T r)_x = (q sum_y r_y + (p - q) r_x) / column.
        update = f * (q * ratio.sum(axis=1, keepdims=True) + (p - q) * ratio) / column
        update /= update.sum(axis=1, keepdims=True)
        done = np.max(np.abs(update - f)) <= tol
        f = update
        if done:
            break
    return f


__all__ = [
    "FrequencySupportCounts",
    "debias_frequencies",
    "fast_walsh_hadamard",
    "frequency_support_counts",
    "frequency_variance",
    "iterative_bayesian_update",
    "project_simplex",
]
