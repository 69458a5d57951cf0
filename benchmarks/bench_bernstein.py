"""LocalBernsteinRegressor: excess empirical risk against n, epsilon, mechanism and h.

Data: one feature plus an intercept (q = 2 coefficients), x ~ U(-1, 1),
y = 0.5 x + 0.1 + 0.3 N(0, 1) clipped to [-1, 1]; public bounds
data_norm = y_bound = 1 and the box [-1, 1]^2. The excess empirical risk of
coefficients w is L(w) - L(w*), L the mean squared loss on the (clipped)
data and w* its non-private minimizer over the box (which sklearn's
LinearRegression also attains here, since w* is inside the box).

Compared methods, all at the same epsilon per user:
- LocalBernsteinRegressor with each mechanism, h in {1, 2, 3}, degree='auto';
- naive: each user adds Laplace noise to its raw (x, y) (l1 sensitivity 4,
  scale 4 / epsilon), the server fits LinearRegression on the noisy data;
- debiased sufficient statistics: Gaussian (x, y) release at
  (epsilon, delta = 1e-6) -- not pure LDP, a reference only -- and least
  squares on the debiased Gram matrix over the box.

Run ``python -m benchmarks.bench_bernstein [--quick]``.
"""

import numpy as np
from scipy.optimize import minimize
from sklearn.linear_model import LinearRegression

from benchmarks._harness import parse_args, report, save_figure, timed
from sklearn_ldp import LocalBernsteinRegressor
from sklearn_ldp.randomizers import GaussianRecordRandomizer

MECHANISMS = ("piecewise", "duchi", "laplace", "bassily_smith", "full_grid")
BOX = [(-1.0, 1.0), (-1.0, 1.0)]


def make_data(n, rng):
    X = rng.uniform(-1.0, 1.0, size=(n, 1))
    y = np.clip(0.5 * X[:, 0] + 0.1 + 0.3 * rng.standard_normal(n), -1.0, 1.0)
    return X, y


def risk(w, X, y):
    return float(np.mean((y - X @ w[:-1] - w[-1]) ** 2))


def box_least_squares(gram, moment, n):
    """Minimize (w^T gram w - 2 moment^T w) / n over the box."""

    def objective(w):
        return (w @ gram @ w - 2.0 * moment @ w) / n, 2.0 * (gram @ w - moment) / n

    return minimize(objective, np.zeros(2), jac=True, method="L-BFGS-B", bounds=BOX).x


def naive_laplace(X, y, epsilon, rng):
    scale = 4.0 / epsilon  # |x| <= 1 and |y| <= 1: l1 sensitivity 2 + 2
    Xn = X + rng.laplace(0.0, scale, size=X.shape)
    yn = y + rng.laplace(0.0, scale, size=y.shape)
    model = LinearRegression().fit(Xn, yn)
    return np.r_[model.coef_, model.intercept_]


def debiased_gaussian(X, y, epsilon, rng):
    rand = GaussianRecordRandomizer(1, epsilon=epsilon, delta=1e-6, y_bound=1.0)
    reports = rand.randomize(X, y, random_state=int(rng.integers(2**31 - 1)))
    z, v, n = reports["x"][:, 0], reports["y"], len(reports)
    gram = np.array([[z @ z - n * rand.sigma_x**2, z.sum()], [z.sum(), n]])
    moment = np.array([z @ v, v.sum()])
    return box_least_squares(gram, moment, n)


def main():
    args = parse_args(__doc__.splitlines()[0])
    if args.quick:
        sizes, epsilons, orders, repeats = [10_000, 100_000], [1.0, 4.0], [1, 2], 1
    else:
        sizes, epsilons, orders, repeats = (
            [10_000, 100_000, 1_000_000],
            [0.5, 1.0, 2.0, 4.0, 8.0],
            [1, 2, 3],
            3,
        )
    rng = np.random.default_rng(args.seed)
    rows, curves = [], {}
    for n in sizes:
        X, y = make_data(n, np.random.RandomState(args.seed))
        w_star = box_least_squares(
            np.c_[X, np.ones(n)].T @ np.c_[X, np.ones(n)], np.c_[X, np.ones(n)].T @ y, n
        )
        best = risk(w_star, X, y)
        sk = LinearRegression().fit(X, y)
        sk_excess = risk(np.r_[sk.coef_, sk.intercept_], X, y) - best
        for epsilon in epsilons:
            naive = np.mean(
                [
                    risk(naive_laplace(X, y, epsilon, rng), X, y) - best
                    for _ in range(repeats)
                ]
            )
            debiased = np.mean(
                [
                    risk(debiased_gaussian(X, y, epsilon, rng), X, y) - best
                    for _ in range(repeats)
                ]
            )
            for order in orders:
                row = {
                    "n": n,
                    "eps": epsilon,
                    "h": order,
                    "sklearn": sk_excess,
                    "naive": naive,
                    "debiased SS (delta=1e-6)": debiased,
                }
                for mechanism in MECHANISMS:
                    excess, seconds, degrees = [], [], []
                    for _rep in range(repeats):
                        est = LocalBernsteinRegressor(
                            epsilon=epsilon,
                            iterated_order=order,
                            mechanism=mechanism,
                            random_state=int(rng.integers(2**31 - 1)),
                        )
                        est, sec, _ = timed(est.fit, X, y)
                        excess.append(
                            risk(np.r_[est.coef_, est.intercept_], X, y) - best
                        )
                        seconds.append(sec)
                        degrees.append(est.degree_)
                    row[mechanism] = float(np.mean(excess))
                    row[f"k {mechanism}"] = int(np.median(degrees))
                    curves[(n, epsilon, order, mechanism)] = float(np.mean(excess))
                    curves[(n, epsilon, "time", mechanism)] = float(np.mean(seconds))
                curves[(n, epsilon, "naive")] = naive
                curves[(n, epsilon, "debiased")] = debiased
                rows.append(row)
                print(
                    {
                        k: (round(v, 5) if isinstance(v, float) else v)
                        for k, v in row.items()
                    }
                )
    columns = [
        "n",
        "eps",
        "h",
        *MECHANISMS,
        "naive",
        "debiased SS (delta=1e-6)",
        "sklearn",
    ]
    notes = (
        "Excess empirical risk L(w) - L(w*) (mean squared loss, w* the non-private "
        f"minimizer over the box), mean of {repeats} runs; degree='auto'. Chosen "
        "degrees (median): "
        + "; ".join(
            f"n={r['n']}, eps={r['eps']}, h={r['h']}: "
            + ", ".join(f"{m} {r[f'k {m}']}" for m in MECHANISMS)
            for r in rows
        )
        + "\n\nFit times (s, mean) at the largest n: "
        + ", ".join(
            f"{m} eps={e}: {curves[(sizes[-1], e, 'time', m)]:.2f}"
            for m in MECHANISMS
            for e in epsilons[-1:]
        )
        + "\n\nCommand: `python -m benchmarks.bench_bernstein"
        + (" --quick`" if args.quick else "`")
    )
    report(
        "bench_bernstein",
        rows,
        columns,
        title="LocalBernsteinRegressor: excess empirical risk (1 feature + intercept)",
        notes=notes,
        save=not args.no_save,
    )
    if args.no_save:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    n_plot, order_plot = sizes[-1], orders[min(1, len(orders) - 1)]
    for mechanism in MECHANISMS:
        axes[0].plot(
            epsilons,
            [curves[(n_plot, e, order_plot, mechanism)] for e in epsilons],
            marker="o",
            label=mechanism,
        )
    for key, label in (("naive", "naive Laplace + OLS"), ("debiased", "debiased SS")):
        axes[0].plot(
            epsilons,
            [curves[(n_plot, e, key)] for e in epsilons],
            ls="--",
            marker="x",
            label=label,
        )
    axes[0].set(
        xscale="log",
        yscale="log",
        xlabel="epsilon",
        ylabel="excess empirical risk",
        title=f"n = {n_plot}, h = {order_plot}",
    )
    eps_plot = epsilons[-2] if len(epsilons) > 1 else epsilons[0]
    for order in orders:
        axes[1].plot(
            sizes,
            [curves[(n, eps_plot, order, "piecewise")] for n in sizes],
            marker="o",
            label=f"piecewise, h = {order}",
        )
    axes[1].plot(
        sizes,
        [curves[(n, eps_plot, "naive")] for n in sizes],
        ls="--",
        marker="x",
        label="naive Laplace + OLS",
    )
    axes[1].set(
        xscale="log",
        yscale="log",
        xlabel="n users",
        title=f"epsilon = {eps_plot}",
    )
    for ax in axes:
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    save_figure(fig, "bench_bernstein")


if __name__ == "__main__":
    main()
