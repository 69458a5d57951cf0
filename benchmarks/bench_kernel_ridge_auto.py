"""KernelRidgeLDP: test MSE against n_components, and where 'auto' lands.

Synthetic data of ``bench_kernel_ridge`` (d = 5), n = 1e5 users, epsilon 4
and 8, 3 seeds (data and noise) per cell, 5000 clean held-out users. Writes
``docs/benchmarks/kernel_ridge_auto.md``. ``--quick``: n = 1e4, 1 seed.
"""

import numpy as np

from sklearn_ldp import KernelRidgeLDP

from ._harness import parse_args, report
from .bench_kernel_ridge import synthetic

COMPONENTS = ["auto", 3, 6, 10, 12, 20, 30, 45]


def main():
    args = parse_args(__doc__.splitlines()[0])
    n, seeds = (10_000, 1) if args.quick else (100_000, 3)
    rows = []
    for epsilon in (4.0, 8.0):
        for m in COMPONENTS:
            mses, used = [], None
            for seed in range(seeds):
                rng = np.random.RandomState([args.seed + seed, 99])
                X, y = synthetic(n + 5000, rng)
                est = KernelRidgeLDP(epsilon=epsilon, n_components=m, random_state=seed)
                est.fit(X[5000:], y[5000:])
                mses.append(np.mean((est.predict(X[:5000]) - y[:5000]) ** 2))
                used = est.n_components_
            rows.append(
                {
                    "epsilon": epsilon,
                    "n_components": str(m),
                    "m used": used,
                    "mse": float(np.mean(mses)),
                    "mse sd": float(np.std(mses)),
                }
            )
            print(rows[-1], flush=True)
    report(
        "kernel_ridge_auto",
        rows,
        ["epsilon", "n_components", "m used", "mse", "mse sd"],
        title=f"KernelRidgeLDP: test MSE against n_components (n = {n:,})",
        notes=f"Mean and sd over {seeds} seeds; predicting 0 scores about 0.44.",
        save=not args.no_save,
    )


if __name__ == "__main__":
    main()
