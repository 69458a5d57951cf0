"""Server side of the partition protocols: per-group means of unbiased estimates.

In the local Bernstein mechanism and LDP-AVG each user draws one public
cell (a grid point, a coordinate) and reports it with its release, or
reports every cell. The server debiases each report with the scalar
mechanism's ``estimate`` and averages per cell over the reports that carry
it (the counts come from the reports, not from a partition the server
would have to know).
"""

import numpy as np

from ..randomizers import chunk_rows
from ..utils import check_finite_array


def group_means(groups, estimates, n_groups, *, fill):
    """Mean of the per-user estimates of each group, after validating the groups.

    Parameters
    ----------
    groups : array-like of shape (n_users,)
        Each user's public group, integers in ``[0, n_groups)``.
    estimates : array-like of shape (n_users,)
        Each user's unbiased estimate of its group's value.
    n_groups : int
    fill : float
        The value of a group without users (uninformative; the estimators
        warn when there are fewer users than groups).

    Returns
    -------
    means : ndarray of shape (n_groups,)
    counts : ndarray of shape (n_groups,)
        Users behind each mean.

    Examples
    --------
    >>> from sklearn_ldp.aggregation import group_means
    >>> means, counts = group_means([0, 0, 2], [1.0, 3.0, 5.0], 3, fill=-1.0)
    >>> means.tolist(), counts.tolist()
    ([2.0, -1.0, 5.0], [2, 0, 1])
    """
    estimates = check_finite_array(estimates, name="estimates")
    groups = _check_groups(groups, estimates.shape[0], n_groups)
    counts = np.bincount(groups, minlength=n_groups)
    sums = np.bincount(groups, weights=estimates, minlength=n_groups)
    means = np.divide(
        sums, counts, out=np.full(n_groups, float(fill)), where=counts > 0
    )
    return means, counts


def _check_groups(groups, n_users, n_groups):
    """``groups`` as int64, after checking they are ``n_users`` integers in ``[0, n_groups)``."""
    groups = np.asarray(groups)
    integral = groups.dtype.kind in "iu"  # no fractional part to check
    if (
        groups.shape != (n_users,)
        or (groups.size and not integral and not np.all(np.equal(np.mod(groups, 1), 0)))
        or (n_users and (groups.min() < 0 or groups.max() >= n_groups))
    ):
        raise ValueError(
            f"Report groups must be {n_users} integers in [0, {n_groups})."
        )
    return groups.astype(np.int64, copy=False)


def _mechanism_reports(reports, fields):
    if len(fields) == 1:
        return check_finite_array(reports[fields[0]], name=fields[0])
    return np.stack(
        [check_finite_array(reports[name], name=name) for name in fields], axis=-1
    )


def estimate_grid_risk(randomizer, reports):
    """Unbiased estimate of the normalized empirical risk at each grid point.

    The server of the local Bernstein mechanism
    (:class:`~sklearn_ldp.randomizers.BernsteinLossRandomizer`).

    Returns
    -------
    values : ndarray of shape (n_grid,)
        The mean of the mechanism's unbiased estimates over the users of
        each grid point (all users for ``'full_grid'``). A grid point
        without users gets the mean over all users (an uninformative fill).
    counts : ndarray of shape (n_grid,)
        Users behind each value.
    """
    mechanism = randomizer.scalar_mechanism
    released = _mechanism_reports(reports, randomizer.value_fields)
    if randomizer.mechanism == "full_grid":
        if released.shape != (len(reports), randomizer.n_grid):
            raise ValueError(
                f"Report values must have shape (n_users, {randomizer.n_grid}), got "
                f"{released.shape}."
            )
        values = mechanism.estimate(released).mean(axis=0)
        return values, np.full(randomizer.n_grid, len(reports))
    estimates = mechanism.estimate(released)
    return group_means(
        reports["group"],
        estimates,
        randomizer.n_grid,
        fill=float(estimates.mean()) if estimates.size else 0.0,
    )


def estimate_vector_mean(randomizer, reports):
    """Unbiased estimate of the users' mean coefficient vector (LDP-AVG).

    The server of :class:`~sklearn_ldp.randomizers.VectorAverageRandomizer`
    (:class:`VectorMeanSums` of all the reports at once).

    Returns
    -------
    mean : ndarray of shape (n_coordinates,)
        Mean of ``scale_j u_j(x_i)`` over users (reports are unit values;
        the public ``scale_j`` is applied here). With the sampled scheme a
        coordinate no report carries gets ``scale_j`` times the middle of
        the unit interval (an uninformative fill; estimators warn).
    counts : ndarray of shape (n_coordinates,)
        Users behind each entry.
    """
    sums = VectorMeanSums(randomizer)
    sums.update(reports)
    return sums.mean(), sums.counts


class VectorMeanSums:
    """One-pass aggregate of LDP-AVG reports: per coordinate, reports and their sum.

    The server of :class:`~sklearn_ldp.randomizers.VectorAverageRandomizer`
    needs, per coordinate, the number of reports carrying it and the sum
    of their debiased unit values (every coordinate of every report with
    ``'full_vector'``); chunks of reports are added with :meth:`update`,
    aggregates of disjoint reports with :meth:`merge`, and :meth:`mean` is
    :func:`estimate_vector_mean`.

    Parameters
    ----------
    randomizer : VectorAverageRandomizer
        The published randomizer.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.aggregation import VectorMeanSums
    >>> from sklearn_ldp.randomizers import TrigonometricRandomizer
    >>> randomizer = TrigonometricRandomizer(1, epsilon=1.0, degree=3)
    >>> reports = randomizer.randomize(np.zeros((1000, 1)), random_state=0)
    >>> first, second = VectorMeanSums(randomizer), VectorMeanSums(randomizer)
    >>> first.update(reports.subset(slice(0, 400)))
    >>> second.update(reports.subset(slice(400, None)))
    >>> int(first.merge(second).counts.sum()), first.mean().shape
    (1000, (2,))
    """

    def __init__(self, randomizer):
        self.randomizer = randomizer
        d = randomizer.n_coordinates
        self.counts = np.zeros(d, dtype=np.int64)
        self.sums = np.zeros(d)
        self.n_reports = 0

    def update(self, reports, positions=None):
        """Add validated ``reports`` (``positions`` unused: no folds)."""
        randomizer, n_users = self.randomizer, len(reports)
        d = randomizer.n_coordinates
        mechanism = randomizer.scalar_mechanism
        if randomizer.mechanism == "full_vector":
            vector = check_finite_array(reports["vector"], name="vector")
            if vector.shape != (n_users, d):
                raise ValueError(
                    f"Report vectors must have shape (n_users, {d}), got {vector.shape}."
                )
            step = chunk_rows(d)
            for start in range(0, n_users, step):
                self.sums += mechanism.estimate(vector[start : start + step]).sum(axis=0)
            self.counts += n_users
        else:
            estimates = mechanism.estimate(
                check_finite_array(reports["value"], name="value")
            )
            groups = _check_groups(reports["coordinate"], n_users, d)
            self.counts += np.bincount(groups, minlength=d)
            self.sums += np.bincount(groups, weights=estimates, minlength=d)
        self.n_reports += n_users

    def merge(self, other):
        """Add the sums of another aggregate of disjoint reports."""
        self.counts += other.counts
        self.sums += other.sums
        self.n_reports += other.n_reports
        return self

    def mean(self):
        """The estimated mean vector (see :func:`estimate_vector_mean`)."""
        randomizer = self.randomizer
        fill = 0.5 * (randomizer.lower + randomizer.upper)
        units = np.divide(
            self.sums,
            self.counts,
            out=np.full(self.sums.shape, fill),
            where=self.counts > 0,
        )
        return randomizer.coordinate_scale * units
