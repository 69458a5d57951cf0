"""LocalBernsteinRegressor: excess empirical risk against n, epsilon, mechanism and h.

Population ``linear_1d`` (:mod:`benchmarks._populations`): one feature plus
an intercept (q = 2 coefficients), public bounds data_norm = y_bound = 1 and
the coefficient box [-1, 1]^2. The metric is the excess empirical risk
L(w) - L(w*) of the fitted coefficients w on the training users, L the mean
squared loss and w* its exact minimizer over the box (seed 001 bounds this
quantity; w* is inside the box here, so LinearRegression also attains it).

Methods, all at the same epsilon per user:
- improved: LocalBernsteinRegressor with its defaults (mechanism='piecewise',
  iterated_order h = 3, degree='auto');
- paper: mechanism='full_grid' (seed 001 Algorithm 2: every user releases all
  (k + 1)^q grid values with Laplace noise under basic composition);
- variants: the other partition mechanisms 'duchi', 'laplace' and
  'bassily_smith' (seed 001 Algorithm 3, correctly calibrated);
- non-private: LinearRegression and the box-constrained least squares w*;
- naive: pure-epsilon Laplace reports of (x, y) (``laplace_records``), then
  LinearRegression on the noisy records;
- debiased LS: Gaussian reports of (x, y) at (epsilon, delta = 1e-5) and
  least squares on the debiased Gram matrix (``GaussianLeastSquares``; not
  pure LDP, a reference).

A second table is the h (iterated_order) ablation of the default mechanism.

Run ``python -m benchmarks.bench_bernstein [--quick]``.
"""

import numpy as np
from scipy.optimize import minimize
from sklearn.linear_model import LinearRegression

from benchmarks._baselines import (
    DELTA,
    GaussianLeastSquares,
    laplace_records,
    nonprivate,
)
from benchmarks._harness import (
    Method,
    aggregate,
    format_table,
    parse_args,
    pivot,
    plot_utility,
    report,
    run_grid,
    time_table,
)
from benchmarks._populations import POPULATIONS
from sklearn_ldp import LocalBernsteinRegressor

POPULATION = POPULATIONS["linear_1d"]
BOX = [(-1.0, 1.0), (-1.0, 1.0)]
METRIC = "excess risk"


def design(X):
    return np.hstack([X, np.ones((X.shape[0], 1))])


def risk(w, X, y):
    return float(np.mean((y - X @ w[:-1] - w[-1]) ** 2))


def box_least_squares(X, y):
    """The exact minimizer of the mean squared loss over the coefficient box."""
    A = design(X)
    gram, moment, n = A.T @ A, A.T @ y, len(y)

    def objective(w):
        return (w @ gram @ w - 2.0 * moment @ w) / n, 2.0 * (gram @ w - moment) / n

    start = np.clip(np.linalg.lstsq(A, y, rcond=None)[0], -1.0, 1.0)
    return minimize(objective, start, jac=True, method="L-BFGS-B", bounds=BOX).x


def coefficients(model):
    return np.r_[np.ravel(model.coef_), model.intercept_]


def bernstein(**params):
    def fit(data, epsilon, seed):
        est = LocalBernsteinRegressor(epsilon=epsilon, random_state=seed, **params)
        return est.fit(data.X, data.y)

    return fit


def naive(data, epsilon, seed):
    Xn, yn = laplace_records(data.X, data.y, epsilon, seed, x_bound=1.0, y_bound=1.0)
    return LinearRegression().fit(Xn, yn)


def debiased(data, epsilon, seed):
    return GaussianLeastSquares(
        epsilon, seed, data_norm=POPULATION.data_norm, y_bound=POPULATION.y_bound
    ).fit(data.X, data.y)


class BoxLeastSquares:
    def fit(self, X, y):
        w = box_least_squares(X, y)
        self.coef_, self.intercept_ = w[:-1], float(w[-1])
        return self


def evaluate(model, data):
    if "best" not in data.cache:
        data.cache["best"] = risk(box_least_squares(data.X, data.y), data.X, data.y)
    excess = risk(coefficients(model), data.X, data.y) - data.cache["best"]
    return {
        METRIC: 0.0 if abs(excess) < 1e-12 else excess,
        "degree": float(getattr(model, "degree_", np.nan)),
    }


def main_methods(quick):
    methods = [
        Method(
            "LinearRegression",
            lambda d, e, s: nonprivate(LinearRegression(), d.X, d.y),
            "non-private",
        ),
        Method(
            "box LS",
            lambda d, e, s: BoxLeastSquares().fit(d.X, d.y),
            "non-private",
        ),
        Method("piecewise (default)", bernstein(), "improved"),
        Method("full_grid (paper)", bernstein(mechanism="full_grid"), "paper"),
    ]
    if not quick:
        methods += [
            Method("duchi", bernstein(mechanism="duchi"), "improved"),
            Method("laplace", bernstein(mechanism="laplace"), "improved"),
            Method("bassily_smith", bernstein(mechanism="bassily_smith"), "paper"),
        ]
    methods += [
        Method("naive Laplace + OLS", naive, "baseline"),
        Method("debiased LS", debiased, "baseline"),
    ]
    return methods


def order_methods(orders):
    return [
        Method(f"piecewise, h = {h}", bernstein(iterated_order=h), "improved")
        for h in orders
    ]


def main():
    args = parse_args(__doc__.splitlines()[0])
    quick = args.quick
    if quick:
        sizes, epsilons, orders = (5_000, 20_000), (1.0, 4.0), (1, 3)
        seeds = (0,)
        order_sizes = (20_000,)
    else:
        sizes, epsilons, orders = (
            (10_000, 100_000, 1_000_000),
            (0.5, 1, 2, 4, 8),
            (1, 2, 3),
        )

        def seeds(n):
            return range(5) if n <= 100_000 else range(3)

        order_sizes = sizes
    seeds_text = "one seed" if quick else "5 seeds at n <= 1e5, 3 at n = 1e6"
    command = "python -m benchmarks.bench_bernstein" + (" --quick" if quick else "")

    rows = run_grid(
        POPULATION,
        main_methods(quick),
        evaluate,
        sizes=sizes,
        epsilons=epsilons,
        seeds=seeds,
    )
    table = aggregate(rows, [METRIC, "degree"])
    utility, columns = pivot(table, METRIC)
    times, time_columns = time_table(table, "LinearRegression")
    degrees, degree_columns = pivot(
        [r for r in table if r["mode"] in ("improved", "paper")], "degree"
    )
    notes = (
        f"Population `{POPULATION.name}`: {POPULATION.description}; public bounds "
        "data_norm = y_bound = 1, coefficient box [-1, 1]^2. Excess empirical risk "
        "L(w) - L(w*) on the training users (mean squared loss; w* = box LS, the "
        "exact minimizer over the box; the optimal risk is about 0.087), mean over "
        f"{seeds_text}. Columns: `piecewise (default)` = LocalBernsteinRegressor "
        "defaults (improved: mechanism='piecewise', h = 3, degree='auto'); "
        "`full_grid (paper)` = mechanism='full_grid' (seed 001 Alg. 2, all "
        "(k+1)^2 grid values with Laplace noise, basic composition); `duchi`, "
        "`laplace`, `bassily_smith` = the other partition mechanisms (seed 001 "
        "Alg. 3 is bassily_smith); `LinearRegression`, `box LS` = non-private "
        "(excess 0 up to rounding); `naive Laplace + OLS` = every user adds "
        "Laplace noise of scale 4 / epsilon to (x, y) (pure epsilon-LDP, "
        "`laplace_records`), LinearRegression on the noisy records; `debiased LS` "
        f"= Gaussian (x, y) reports at (epsilon, delta = {DELTA:g}) and least "
        "squares on the debiased Gram matrix (`GaussianLeastSquares`; weaker than "
        "pure LDP, a reference).\n\n"
        "Fit time / LinearRegression's fit time on the same users (the private "
        "fits simulate every user's randomizer):\n\n"
        + format_table(times, time_columns)
        + "\n\nGrid degree k chosen by degree='auto' (mean over seeds):\n\n"
        + format_table(degrees, degree_columns)
        + f"\n\nCommand: `{command}`."
    )
    report(
        "bench_bernstein",
        utility,
        columns,
        title="LocalBernsteinRegressor: excess empirical risk (1 feature + intercept)",
        notes=notes,
        save=not args.no_save,
    )
    if not args.no_save:
        plot_utility(
            [r for r in table if r["mode"] != "non-private"],
            METRIC,
            "bench_bernstein",
            ylabel="excess empirical risk",
            logy=True,
        )

    rows = run_grid(
        POPULATION,
        order_methods(orders),
        evaluate,
        sizes=order_sizes,
        epsilons=epsilons,
        seeds=seeds,
    )
    table = aggregate(rows, [METRIC, "degree"])
    utility, columns = pivot(table, METRIC)
    degrees, _ = pivot(table, "degree")
    k_column = "k (h = " + " / ".join(str(h) for h in orders) + ")"
    for row, degree_row in zip(utility, degrees, strict=True):
        row[k_column] = " / ".join(
            f"{degree_row[f'piecewise, h = {h}']:.3g}" for h in orders
        )
    notes = (
        f"Population `{POPULATION.name}` as in `bench_bernstein.md`; excess "
        "empirical risk of LocalBernsteinRegressor (mechanism='piecewise', "
        "degree='auto') for each iterated_order h (the default is h = 3), mean over "
        f"{seeds_text}; the last column is the mean grid degree k that "
        "degree='auto' chose for each h. "
        f"Command: `{command}`."
    )
    report(
        "bench_bernstein_order",
        utility,
        [*columns, k_column],
        title="LocalBernsteinRegressor: iterated order h (excess empirical risk)",
        notes=notes,
        save=not args.no_save,
    )


if __name__ == "__main__":
    main()
