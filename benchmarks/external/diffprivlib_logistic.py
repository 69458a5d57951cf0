"""diffprivlib's LogisticRegression on the shared populations, as JSON.

Runs in the separate environment where diffprivlib imports (it needs an
older scikit-learn than this package supports; see ``benchmarks/README.md``)
and reads the *same* population draws as every benchmark
(``benchmarks._populations``: the draw depends only on the population, n and
the seed). For each epsilon it fits
``diffprivlib.models.LogisticRegression(epsilon=eps, data_norm=data_norm,
random_state=seed)`` (objective perturbation, pure epsilon, ``C=1``) on the
training users and prints one JSON list of
``{"epsilon", "accuracy", "seconds"}`` on the held-out users::

    .venv-diffprivlib/bin/python -m benchmarks.external.diffprivlib_logistic \\
        --population breast_cancer --n 10000 --seed 0 --epsilons 0.5 4

Run from the repository root (the module imports ``benchmarks``).
"""

import argparse
import json
import time
import warnings

from benchmarks._populations import POPULATIONS


def fit_all(population, n, seed, epsilons):
    from diffprivlib.models import LogisticRegression

    X, y, X_test, y_test = population.train_test(n, seed)
    out = []
    for epsilon in epsilons:
        start = time.perf_counter()
        model = LogisticRegression(
            epsilon=epsilon, data_norm=population.data_norm, random_state=seed
        ).fit(X, y)
        seconds = time.perf_counter() - start
        out.append(
            {
                "epsilon": epsilon,
                "accuracy": float(model.score(X_test, y_test)),
                "seconds": seconds,
            }
        )
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--population", required=True, choices=sorted(POPULATIONS))
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--epsilons", type=float, nargs="+", required=True)
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        # lbfgs ConvergenceWarning at small epsilon: part of the method as
        # shipped (default max_iter=100), reported by the accuracy.
        warnings.simplefilter("ignore")
        rows = fit_all(POPULATIONS[args.population], args.n, args.seed, args.epsilons)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
