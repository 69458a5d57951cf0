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
    DELTA_NOTE,
    GaussianLeastSquares,
    laplace_records,
    nonprivate,
)
from benchmarks._harness import Benchmark, Experiment, Grid, Method, Plot, main
from benchmarks._populations import POPULATIONS
from benchmarks._tables import format_table, pivot, time_table
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


def methods(population, quick):
    out = [
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
        out += [
            Method("duchi", bernstein(mechanism="duchi"), "improved"),
            Method("laplace", bernstein(mechanism="laplace"), "improved"),
            Method("bassily_smith", bernstein(mechanism="bassily_smith"), "paper"),
        ]
    out += [
        Method("naive Laplace + OLS", naive, "baseline"),
        Method("debiased LS", debiased, "baseline"),
    ]
    return out


def orders(quick):
    return (1, 3) if quick else (1, 2, 3)


def order_methods(population, quick):
    return [
        Method(f"piecewise, h = {h}", bernstein(iterated_order=h), "improved")
        for h in orders(quick)
    ]


def seeds_text(run):
    return "one seed" if run.quick else "5 seeds at n <= 1e5, 3 at n = 1e6"


def notes(table, run):
    times, time_columns = time_table(table, "LinearRegression")
    degrees, degree_columns = pivot(
        [r for r in table if r["mode"] in ("improved", "paper")], "degree"
    )
    return (
        f"Population `{POPULATION.name}`: {POPULATION.description}; public bounds "
        "data_norm = y_bound = 1, coefficient box [-1, 1]^2. Excess empirical risk "
        "L(w) - L(w*) on the training users (mean squared loss; w* = box LS, the "
        "exact minimizer over the box; the optimal risk is about 0.087), mean over "
        f"{seeds_text(run)}. Columns: `piecewise (default)` = LocalBernsteinRegressor "
        "defaults (improved: mechanism='piecewise', h = 3, degree='auto'); "
        "`full_grid (paper)` = mechanism='full_grid' (seed 001 Alg. 2, all "
        "(k+1)^2 grid values with Laplace noise, basic composition); `duchi`, "
        "`laplace`, `bassily_smith` = the other partition mechanisms (seed 001 "
        "Alg. 3 is bassily_smith); `LinearRegression`, `box LS` = non-private "
        "(excess 0 up to rounding); `naive Laplace + OLS` = every user adds "
        "Laplace noise of scale 4 / epsilon to (x, y) (pure epsilon-LDP, "
        "`laplace_records`), LinearRegression on the noisy records; `debiased LS` "
        f"= Gaussian (x, y) reports at (epsilon, delta = {DELTA:g}; {DELTA_NOTE}) and least "
        "squares on the debiased Gram matrix (`GaussianLeastSquares`; weaker than "
        "pure LDP, a reference).\n\n"
        "Fit time / LinearRegression's fit time on the same users (the private "
        "fits simulate every user's randomizer):\n\n"
        + format_table(times, time_columns)
        + "\n\nGrid degree k chosen by degree='auto' (mean over seeds):\n\n"
        + format_table(degrees, degree_columns)
        + f"\n\nCommand: `{run.command}`."
    )


def order_table(table):
    """The utility pivot, and the mean grid degree k chosen for each h."""
    utility, columns = pivot(table, METRIC)
    degrees, _ = pivot(table, "degree")
    hs = [int(m.removeprefix("piecewise, h = ")) for m in columns[3:]]
    k_column = "k (h = " + " / ".join(str(h) for h in hs) + ")"
    for row, degree_row in zip(utility, degrees, strict=True):
        row[k_column] = " / ".join(
            f"{degree_row[f'piecewise, h = {h}']:.3g}" for h in hs
        )
    return utility, [*columns, k_column]


def order_notes(table, run):
    return (
        f"Population `{POPULATION.name}` as in `bench_bernstein.md`; excess "
        "empirical risk of LocalBernsteinRegressor (mechanism='piecewise', "
        "degree='auto') for each iterated_order h (the default is h = 3), mean over "
        f"{seeds_text(run)}; the last column is the mean grid degree k that "
        "degree='auto' chose for each h. "
        f"Command: `{run.command}`."
    )


SIZES = (10_000, 100_000, 1_000_000)
EPSILONS = (0.5, 1, 2, 4, 8)
REPEATS = {10_000: 5, 100_000: 5, 1_000_000: 3}
QUICK = Grid(populations=(POPULATION,), sizes=(5_000, 20_000), epsilons=(1.0, 4.0))
FULL = Grid(populations=(POPULATION,), sizes=SIZES, epsilons=EPSILONS, repeats=REPEATS)

SPEC = Benchmark(
    name="bench_bernstein",
    description=__doc__.splitlines()[0],
    steps=(
        Experiment(
            name="bench_bernstein",
            title="LocalBernsteinRegressor: excess empirical risk "
            "(1 feature + intercept)",
            methods=methods,
            evaluate=evaluate,
            metrics=(METRIC, "degree"),
            full=FULL,
            quick=QUICK,
            notes=notes,
            plot=Plot(
                "excess empirical risk",
                logy=True,
                keep=lambda r: r["mode"] != "non-private",
            ),
        ),
        Experiment(
            name="bench_bernstein_order",
            title="LocalBernsteinRegressor: iterated order h (excess empirical risk)",
            methods=order_methods,
            evaluate=evaluate,
            metrics=(METRIC, "degree"),
            full=FULL,
            quick=Grid(populations=(POPULATION,), sizes=(20_000,), epsilons=(1.0, 4.0)),
            notes=order_notes,
            table=order_table,
        ),
    ),
)

if __name__ == "__main__":
    main(SPEC)
