"""Fit time and peak memory against the number of users, next to scikit-learn.

For every estimator of the summary (same tasks, ``bench_summary.ROWS``), at
n = 1e4, 1e5 and 1e6 users and epsilon = 1: the private fit's wall time
(simulating every user's randomizer, then the server) and its tracemalloc
peak, next to the non-private scikit-learn fit on the same data, as ratios.
Memory should grow no faster than the data itself. Writes
``docs/benchmarks/scaling.md``. ``--quick``: n = 2e3 and 2e4.
"""

import time
import warnings

import numpy as np

from . import bench_summary
from ._harness import parse_args, report


def supervised_tasks():
    """(name, data, make_private, make_public) of the supervised summary rows."""
    return [
        (name, run.data, run.make_private, run.make_public)
        for name, _, _, run in bench_summary.ROWS
        if hasattr(run, "data")
    ]


def main():
    args = parse_args(__doc__.splitlines()[0])
    sizes = (2_000, 20_000) if args.quick else (10_000, 100_000, 1_000_000)
    rows = []
    for name, data, make_private, make_public in supervised_tasks():
        measured = set()
        for n in sizes:
            rng = np.random.RandomState([args.seed, n])
            X, y = data(n, rng)
            if len(X) in measured:  # a task that caps its own size
                continue
            measured.add(len(X))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                make_public().fit(X, y)
                public = time.perf_counter() - start
                start = time.perf_counter()
                make_private(1.0).fit(X, y)
                private = time.perf_counter() - start
                peak = bench_summary.peak_memory(make_private(1.0).fit, X, y)
            data_mib = (X.nbytes + np.asarray(y).nbytes) / 2**20
            rows.append(
                {
                    "estimator": name,
                    "n": len(X),
                    "private s": private,
                    "non-private s": public,
                    "time ratio": private / public,
                    "peak MiB": peak,
                    "data MiB": data_mib,
                    "peak / data": peak / data_mib,
                }
            )
            print(rows[-1], flush=True)
    report(
        "scaling",
        rows,
        [
            "estimator",
            "n",
            "private s",
            "non-private s",
            "time ratio",
            "peak MiB",
            "data MiB",
            "peak / data",
        ],
        title="Fit time and peak memory against the number of users (epsilon = 1)",
        notes=(
            "Tasks of bench_summary (DPConstrainedClassifier caps its own n at "
            "50k). peak MiB: tracemalloc peak of the private fit; data MiB: X "
            "and y. One run each on a shared 2-core machine: times are indicative."
        ),
        save=not args.no_save,
    )


if __name__ == "__main__":
    main()
