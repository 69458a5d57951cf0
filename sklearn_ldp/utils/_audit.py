"""Black-box empirical privacy audit of a local randomizer.

The audit runs the randomizer many times on two neighbouring records (for
LDP: any two records; the strongest test uses two extreme ones, far outside
the public bounds so that clipping is exercised too), reduces each report to
a scalar statistic, and checks the DP inequality on threshold events:

    P[S(Q(r)) in E] <= e^epsilon P[S(Q(r')) in E] + delta      (both orders)

with a Clopper-Pearson lower bound for the left probability and an upper
bound for the right one, Bonferroni-corrected over all events tested. The
statistic and the thresholds are chosen on a separate pilot sample, so the
confidence statement is valid. A pass is evidence, not proof; a failure is a
proof (at the stated confidence) that the randomizer is *not*
(epsilon, delta)-DP.

The default statistic projects the report matrix on the difference of the
two records' mean reports (the optimal test for Gaussian noise); pass
``statistic`` for mechanisms whose worst event is not a half-space.
"""

from dataclasses import dataclass

import numpy as np
from scipy.stats import beta


@dataclass
class AuditResult:
    """Outcome of :func:`audit_randomizer` / :func:`audit_mechanism`.

    Attributes
    ----------
    passed : bool
        No event violated the DP inequality at the stated confidence.
    epsilon_lower_bound : float
        The largest epsilon certified by some event at that confidence (a
        lower bound on the randomizer's true epsilon at this delta).
    worst_event : str
        The event that gave ``epsilon_lower_bound``.
    n_events : int
        Number of events tested (the Bonferroni factor).
    """

    passed: bool
    epsilon_lower_bound: float
    worst_event: str
    n_events: int


def _clopper_pearson(counts, n, alpha):
    counts = np.asarray(counts, dtype=float)
    lower = np.where(counts > 0, beta.ppf(alpha, counts, n - counts + 1), 0.0)
    upper = np.where(counts < n, beta.ppf(1 - alpha, counts + 1, n - counts), 1.0)
    return np.nan_to_num(lower), np.nan_to_num(upper, nan=1.0)


def _thresholds(pilot, n_thresholds):
    values = np.unique(pilot)
    if values.size <= n_thresholds:
        return 0.5 * (values[1:] + values[:-1]) if values.size > 1 else values
    # Logit-spaced quantile levels reach far into both tails.
    tail = 5.0 / pilot.size
    logits = np.linspace(
        np.log(tail / (1 - tail)), np.log((1 - tail) / tail), n_thresholds
    )
    return np.unique(np.quantile(pilot, 1.0 / (1.0 + np.exp(-logits))))


def audit_samples(stats_a, stats_b, epsilon, delta, thresholds, confidence=0.999):
    """Check the DP inequality on threshold events of two samples of a statistic.

    Parameters
    ----------
    stats_a, stats_b : ndarray of shape (n,)
        The statistic of reports of record ``a`` and of record ``b``.
    epsilon, delta : float
        The claimed guarantee.
    thresholds : array-like
        Thresholds ``t``; events ``{S > t}`` and ``{S <= t}`` are tested in
        both orders.
    confidence : float, default=0.999
        Family-wise confidence of a reported violation.

    Returns
    -------
    result : AuditResult
    """
    stats_a, stats_b = np.asarray(stats_a), np.asarray(stats_b)
    thresholds = np.atleast_1d(np.asarray(thresholds, dtype=float))
    n_events = 4 * thresholds.size
    alpha = (1.0 - confidence) / n_events
    above_a = (stats_a[:, None] > thresholds[None, :]).sum(axis=0)
    above_b = (stats_b[:, None] > thresholds[None, :]).sum(axis=0)
    n_a, n_b = stats_a.size, stats_b.size
    counts = [
        (above_a, n_a, above_b, n_b, "S(a) > {t:.4g}"),
        (n_a - above_a, n_a, n_b - above_b, n_b, "S(a) <= {t:.4g}"),
        (above_b, n_b, above_a, n_a, "S(b) > {t:.4g}"),
        (n_b - above_b, n_b, n_a - above_a, n_a, "S(b) <= {t:.4g}"),
    ]
    best, best_event, passed = 0.0, "none", True
    for k_p, n_p, k_q, n_q, label in counts:
        p_lower, _ = _clopper_pearson(k_p, n_p, alpha)
        _, q_upper = _clopper_pearson(k_q, n_q, alpha)
        violated = p_lower > np.exp(epsilon) * q_upper + delta
        passed = passed and not np.any(violated)
        with np.errstate(divide="ignore", invalid="ignore"):
            certified = np.where(
                p_lower > delta, np.log((p_lower - delta) / q_upper), -np.inf
            )
        idx = int(np.argmax(certified))
        if certified[idx] > best:
            best, best_event = float(certified[idx]), label.format(t=thresholds[idx])
    return AuditResult(passed, best, best_event, n_events)


def _audit(sample, epsilon, delta, n_draws, statistic, n_thresholds, confidence, rng):
    n_pilot = max(n_draws // 4, 1000)
    pilot_a, pilot_b = sample("a", n_pilot, rng), sample("b", n_pilot, rng)
    if statistic is None:
        direction = pilot_a.mean(axis=0) - pilot_b.mean(axis=0)
        norm = np.linalg.norm(direction)
        direction = direction / norm if norm > 0 else np.ones_like(direction)

        def statistic(matrix):
            return matrix @ direction

    pilot = np.concatenate([statistic(pilot_a), statistic(pilot_b)])
    thresholds = _thresholds(pilot, n_thresholds)
    stats_a = statistic(sample("a", n_draws, rng))
    stats_b = statistic(sample("b", n_draws, rng))
    return audit_samples(stats_a, stats_b, epsilon, delta, thresholds, confidence)


def audit_randomizer(
    randomizer,
    record_a,
    record_b,
    *,
    epsilon=None,
    delta=None,
    n_draws=200_000,
    statistic=None,
    n_thresholds=40,
    confidence=0.999,
    random_state=0,
):
    """Empirically audit a local randomizer on two records.

    Parameters
    ----------
    randomizer : object
        Has ``randomize(X, y=None, random_state=None)`` returning reports with
        ``as_matrix()``, and ``epsilon`` / ``delta`` attributes.
    record_a, record_b : tuple (x, y)
        The two records (``y`` may be None for unsupervised randomizers).
    epsilon, delta : float, default=None
        The guarantee to check; the randomizer's own by default.
    n_draws : int, default=200_000
        Reports drawn per record (plus a quarter as many for the pilot).
    statistic : callable, default=None
        ``statistic(matrix) -> (n,)`` on ``reports.as_matrix()``; default:
        projection on the difference of the mean reports (from the pilot).
    n_thresholds : int, default=40
    confidence : float, default=0.999
    random_state : int, default=0

    Returns
    -------
    result : AuditResult

    Examples
    --------
    >>> from sklearn_ldp.randomizers import GaussianRecordRandomizer
    >>> from sklearn_ldp.utils import audit_randomizer
    >>> rand = GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5, y_bound=1.0)
    >>> audit_randomizer(rand, ([50.0, 0.0], 9.0), ([-50.0, 0.0], -9.0),
    ...                  n_draws=20_000).passed
    True
    """
    epsilon = randomizer.epsilon if epsilon is None else epsilon
    delta = randomizer.delta if delta is None else delta
    records = {"a": record_a, "b": record_b}

    def sample(which, n, rng):
        x, y = records[which]
        X = np.repeat(np.atleast_2d(np.asarray(x, dtype=float)), n, axis=0)
        Y = None if y is None else np.repeat(np.asarray([y]), n)
        return randomizer.randomize(X, Y, random_state=rng).as_matrix()

    rng = np.random.RandomState(random_state)
    return _audit(
        sample, epsilon, delta, n_draws, statistic, n_thresholds, confidence, rng
    )


def audit_mechanism(
    mechanism,
    value_a,
    value_b,
    *,
    epsilon=None,
    delta=None,
    n_draws=200_000,
    statistic=None,
    n_thresholds=40,
    confidence=0.999,
    random_state=0,
):
    """Empirically audit a scalar or vector mechanism on two input values.

    Same as :func:`audit_randomizer` for objects with
    ``randomize(values, random_state)`` returning an array (one report per
    row).

    Examples
    --------
    >>> from sklearn_ldp.randomizers import LaplaceMechanism
    >>> from sklearn_ldp.utils import audit_mechanism
    >>> audit_mechanism(LaplaceMechanism(1.0), 5.0, -5.0, n_draws=20_000).passed
    True
    """
    epsilon = mechanism.epsilon if epsilon is None else epsilon
    delta = mechanism.delta if delta is None else delta
    values = {
        "a": np.asarray(value_a, dtype=float),
        "b": np.asarray(value_b, dtype=float),
    }

    def sample(which, n, rng):
        value = values[which]
        batch = np.broadcast_to(value, (n,) + value.shape).copy()
        out = np.asarray(mechanism.randomize(batch, random_state=rng), dtype=float)
        return out.reshape(n, -1)

    rng = np.random.RandomState(random_state)
    return _audit(
        sample, epsilon, delta, n_draws, statistic, n_thresholds, confidence, rng
    )
