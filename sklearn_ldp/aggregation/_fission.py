"""Gaussian fission: independent noisy copies from one Gaussian report.

From one report ``Y = x + sigma Z`` (``Z`` standard normal) the server can
make ``k`` copies ``Y_j = x + N_j`` with ``N_j`` iid ``N(0, k sigma^2 I)``.
Take an orthogonal ``k x k`` matrix ``H`` whose first column is
``1 / sqrt(k)`` (a Helmert matrix), draw ``W_1..W_{k-1}`` iid ``N(0, I)`` and
set ``Y_j = Y + sqrt(k) sigma sum_l H[j, l+1] W_l``. Then
``Cov(N_j, N_j') = sigma^2 + k sigma^2 (delta_jj' - 1/k) = k sigma^2 delta_jj'``,
and the copies are jointly Gaussian, hence independent. Because the copies
are a function of the one report and of server randomness, they cost no
privacy beyond the report: the same statistics as ``k`` jointly calibrated
copies sent by the user, with ``k`` times less communication.

Lattice reports. The randomizers release ``x' + g J`` on a public lattice
(:class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer`), where ``J`` is
a rounded Gaussian of scale ``s`` cells and ``x'`` the record after unbiased
randomized rounding. ``sigma`` must be the config's ``sigma_x`` /
``sigma_y``, the exact standard deviation ``g sqrt(s^2 + 1/12)`` of the
released noise, so the copies' covariances above hold exactly. The noise
``g J`` is not exactly Gaussian: its cumulants beyond the second are those
of the rounding error, of order ``g^4`` (the fourth is ``-g^4 / 120``,
relative ``s^-4 / 120``, below ``1e-16`` at 4096 cells per sigma; higher
ones decay faster, and the Gaussian part's are exponentially small). The
copies are therefore uncorrelated exactly and independent up to moments of
relative order ``s^-4``, far below any statistical error; the rounding of
the input is data, not noise (its variance, at most ``g^2 / 4`` per number,
stays in ``x'`` for every copy). The math here is unchanged.
"""

import numpy as np
from scipy.linalg import helmert
from sklearn.utils import check_random_state


def fission_matrix(n_copies):
    """The ``(k, k-1)`` mixing matrix ``sqrt(k) H[:, 1:]``.

    Examples
    --------
    >>> from sklearn_ldp.aggregation import fission_matrix
    >>> fission_matrix(3).shape
    (3, 2)
    """
    if int(n_copies) != n_copies or n_copies < 1:
        raise ValueError(f"n_copies must be a positive integer, got {n_copies!r}.")
    n_copies = int(n_copies)
    if n_copies == 1:
        return np.zeros((1, 0))
    # helmert(k, full=True) has orthonormal rows, the first one constant.
    orthogonal = helmert(n_copies, full=True).T
    return np.sqrt(n_copies) * orthogonal[:, 1:]


def gaussian_fission(reports, sigma, n_copies, random_state=None):
    """Split Gaussian reports into independent copies with ``k`` times the variance.

    Parameters
    ----------
    reports : ndarray of shape (n_users, ...)
        Reports ``x + N(0, sigma^2)`` (any trailing shape).
    sigma : float
        Noise std of ``reports``.
    n_copies : int
        Number ``k`` of copies.
    random_state : int, RandomState instance or None
        Server randomness.

    Returns
    -------
    copies : ndarray of shape (n_copies, n_users, ...)
        Independent copies, each ``x + N(0, k sigma^2)``. Memory is ``k``
        times that of ``reports``: call it on chunks of users.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import gaussian_fission
    >>> reports = np.random.default_rng(0).standard_normal((100_000, 1))  # x = 0, sigma = 1
    >>> copies = gaussian_fission(reports, 1.0, 3, random_state=0)
    >>> np.round(copies.reshape(3, -1).var(axis=1), 1).tolist()
    [3.0, 3.0, 3.0]
    """
    rng = check_random_state(random_state)
    reports = np.asarray(reports, dtype=float)
    mixing = fission_matrix(n_copies)
    if n_copies == 1:
        return reports[None].copy()
    extra = rng.standard_normal((n_copies - 1,) + reports.shape)
    noise = np.tensordot(mixing, extra, axes=(1, 0))
    return reports[None] + float(sigma) * noise
