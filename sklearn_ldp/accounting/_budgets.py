"""Budget splits of the multi-copy reports, one function per rule.

A user who sends several independently noised copies of its record spends,
by basic composition, the sum of the copies' ``(epsilon, delta)``. Each
function below returns the per-release budgets of one printed protocol,
``(x_budgets, y_budgets)``: one ``(epsilon, delta)`` per feature copy (copy
0, the gradient direction, first) and per label copy. Each split sums to
exactly the total ``(epsilon, delta)``.
"""

from ..utils import check_delta, check_epsilon


def _check_degree(degree):
    if isinstance(degree, bool) or int(degree) != degree or degree < 1:
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
    return int(degree)


def power_copies_budgets(epsilon, delta, degree):
    """One feature copy per factor of every power ``a^k``, ``k <= p``, plus ``p + 1`` labels.

    The direction copy at ``(eps / 4, delta / 4)``, each of the ``p + 1``
    label copies at ``(eps, delta) / (4 (p+1))`` and each of the ``p (p+1) /
    2`` other feature copies at ``(eps, delta) / (p (p+1))``: ``1/4 + 1/4 +
    1/2``, as printed.

    Parameters
    ----------
    epsilon, delta : float
        The user's total budget.
    degree : int
        ``p >= 1``.

    Returns
    -------
    x_budgets, y_budgets : list of (epsilon, delta)
        ``1 + p (p+1) / 2`` feature copies and ``p + 1`` label copies.

    Notes
    -----
    Zheng, Mou and Wang, ICML 2017 (seed 003), Algorithm 5.

    Examples
    --------
    >>> from sklearn_ldp.accounting import power_copies_budgets
    >>> x_budgets, y_budgets = power_copies_budgets(1.0, 1e-5, degree=1)
    >>> [e for e, _ in x_budgets], [e for e, _ in y_budgets]
    ([0.25, 0.5], [0.125, 0.125])
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    p = _check_degree(degree)
    x_budgets = [(epsilon / 4.0, delta / 4.0)] + [
        (epsilon / (p * (p + 1)), delta / (p * (p + 1)))
    ] * (p * (p + 1) // 2)
    y_budgets = [(epsilon / (4.0 * (p + 1)), delta / (4.0 * (p + 1)))] * (p + 1)
    return x_budgets, y_budgets


def product_copies_budgets(epsilon, delta, degree):
    """``d (d+1) + 1`` copies of ``(x, y)``, the printed proportions scaled to the total.

    The printed variances are budgets ``eps / 2`` for each of ``x_0, y_0``
    and ``eps / (d (d+1))`` for each of the ``2 d (d+1)`` other copies, which
    compose to ``3 eps`` (and ``(2 d (d+1) + 2) delta``), not ``eps``. The
    printed proportions (``sigma_copy / sigma_0 = d (d+1) / 2``) are kept and
    scaled to compose to ``(eps, delta)``: ``eps / 6`` for ``x_0`` and
    ``y_0``, ``eps / (3 d (d+1))`` per other copy, ``delta / (2 d (d+1) +
    2)`` for every release.

    Parameters
    ----------
    epsilon, delta : float
        The user's total budget.
    degree : int
        ``d >= 1``.

    Returns
    -------
    x_budgets, y_budgets : list of (epsilon, delta)
        ``d (d+1) + 1`` entries each (the same for features and labels).

    Notes
    -----
    Wang, Gaboardi, Smith and Xu, JMLR 21 (2020) (seed 001), Algorithms 4-5.

    Examples
    --------
    >>> from sklearn_ldp.accounting import product_copies_budgets
    >>> x_budgets, _ = product_copies_budgets(1.0, 1e-5, degree=1)
    >>> [round(e, 4) for e, _ in x_budgets]
    [0.1667, 0.1667, 0.1667]
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    d = _check_degree(degree)
    n_pairs = d * (d + 1)
    delta_release = delta / (2.0 * n_pairs + 2.0)
    budgets = [(epsilon / 6.0, delta_release)] + [
        (epsilon / (3.0 * n_pairs), delta_release)
    ] * n_pairs
    return budgets, list(budgets)
