"""SparseLDPRegressor: a square random projection against the identity.

n = 1e6 users (1e5 held out), d = 20, 3-sparse w*, epsilon 4 and 8, m = d.
Writes ``docs/benchmarks/sparse_projection.md``. ``--quick``: n = 2e4.
"""

import numpy as np

from sklearn_ldp import SparseLDPRegressor

from ._harness import parse_args, report


def main():
    args = parse_args(__doc__.splitlines()[0])
    n, d = (20_000, 20) if args.quick else (1_000_000, 20)
    rng = np.random.RandomState([args.seed, 3])
    X = rng.uniform(-1, 1, size=(n, d)) / np.sqrt(d)
    w = np.zeros(d)
    w[:3] = [2.0, -2.0, 1.5]
    y = np.clip(X @ w + 0.1 * rng.standard_normal(n), -1, 1)
    n_test = n // 10
    X_tr, X_te, y_tr, y_te = X[n_test:], X[:n_test], y[n_test:], y[:n_test]
    rows = []
    for epsilon in (4.0, 8.0):
        for projection in ("gaussian", "identity", "auto"):
            est = SparseLDPRegressor(
                epsilon=epsilon, l1_radius=5.5, projection=projection, random_state=0
            ).fit(X_tr, y_tr)
            rows.append(
                {
                    "epsilon": epsilon,
                    "projection": projection,
                    "n_components": est.n_components_,
                    "test R^2": est.score(X_te, y_te),
                }
            )
            print(rows[-1], flush=True)
    report(
        "sparse_projection",
        rows,
        ["epsilon", "projection", "n_components", "test R^2"],
        title=f"SparseLDPRegressor: square projection vs identity (n = {n:,}, d = {d})",
        notes="Non-private LinearRegression: R^2 about 0.945 on this data.",
        save=not args.no_save,
    )


if __name__ == "__main__":
    main()
