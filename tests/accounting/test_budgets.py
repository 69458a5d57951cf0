"""Budget splits of the multi-copy reports: printed fractions, exact composition."""

import math

import pytest

from sklearn_ldp.accounting import power_copies_budgets, product_copies_budgets

RULES = [power_copies_budgets, product_copies_budgets]


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("degree", [1, 2, 3, 5])
@pytest.mark.parametrize("epsilon, delta", [(2.0, 1e-5), (0.3, 1e-8)])
def test_split_composes_to_epsilon_delta(rule, degree, epsilon, delta):
    x_budgets, y_budgets = rule(epsilon, delta, degree)
    budgets = x_budgets + y_budgets
    # Basic composition: the releases' epsilons and deltas add up.
    assert math.fsum(e for e, _ in budgets) == pytest.approx(epsilon, rel=1e-12)
    assert math.fsum(d for _, d in budgets) == pytest.approx(delta, rel=1e-12)
    assert all(e > 0 and d > 0 for e, d in budgets)


@pytest.mark.parametrize("degree", [1, 3])
def test_power_copies_fractions_as_printed(degree):
    p = degree
    x_budgets, y_budgets = power_copies_budgets(2.0, 1e-5, p)
    assert len(x_budgets) == 1 + p * (p + 1) // 2 and len(y_budgets) == p + 1
    assert x_budgets[0] == (0.5, 0.25e-5)  # eps / 4, delta / 4
    assert y_budgets[0][0] == pytest.approx(2.0 / (4 * (p + 1)))
    assert x_budgets[1][0] == pytest.approx(2.0 / (p * (p + 1)))
    assert x_budgets[1][1] == pytest.approx(1e-5 / (p * (p + 1)))


@pytest.mark.parametrize("degree", [1, 2, 5])
def test_product_copies_keeps_the_printed_proportions_scaled_by_three(degree):
    x_budgets, y_budgets = product_copies_budgets(2.0, 1e-5, degree)
    n_pairs = degree * (degree + 1)
    assert x_budgets == y_budgets and len(x_budgets) == n_pairs + 1
    eps0, eps_copy = x_budgets[0][0], x_budgets[1][0]
    # Printed: eps / 2 for x_0, y_0 and eps / (d (d+1)) per copy (3 eps in all);
    # kept proportions scaled by 1/3.
    assert eps0 == pytest.approx(2.0 / 6)
    assert eps_copy == pytest.approx(2.0 / (3 * n_pairs))
    # The printed variance ratio sigma_copy / sigma_0 = d (d+1) / 2 is kept.
    assert eps0 / eps_copy == pytest.approx(n_pairs / 2)
    deltas = [d for _, d in x_budgets]
    assert deltas == pytest.approx([1e-5 / (2 * n_pairs + 2)] * (n_pairs + 1))


@pytest.mark.parametrize("rule", RULES)
def test_bad_parameters_are_refused(rule):
    with pytest.raises(ValueError, match="degree"):
        rule(1.0, 1e-5, 0)
    with pytest.raises(ValueError, match="epsilon"):
        rule(0.0, 1e-5, 1)
    with pytest.raises(ValueError, match="delta"):
        rule(1.0, 0.0, 1)
