"""Fit time and peak memory against the number of users, next to scikit-learn.

For every estimator of the summary (same populations and configurations,
``bench_summary.ROWS``), at n = 1e4, 1e5 and 1e6 users and epsilon = 1: the
private fit's wall time (simulating every user's randomizer, then the
server) and its tracemalloc peak, next to the non-private fit on the same
users (the scikit-learn model; for the mean and the marginals, the exact
computation), as ratios. Memory should grow no faster than the data itself.
Writes ``docs/benchmarks/scaling.md``. ``--quick``: n = 2e3 and 2e4.
"""

from benchmarks import bench_summary
from benchmarks._harness import Benchmark, Data, Report, main, timed
from benchmarks._populations import POPULATIONS

COLUMNS = [
    "estimator",
    "population",
    "n",
    "private s",
    "non-private s",
    "time ratio",
    "peak MiB",
    "data MiB",
    "peak / data",
]


def scaling(run):
    sizes = (2_000, 20_000) if run.quick else (10_000, 100_000, 1_000_000)
    rows = []
    for row in bench_summary.ROWS:
        population = POPULATIONS[row.population]
        public, private = row.methods()[:2]
        measured = set()
        for n in sizes:
            X, y = population.sample(n, run.seed)
            if len(X) in measured:  # a population capped by memory
                continue
            measured.add(len(X))
            data = Data(X, y, None, None, population, run.seed)
            _, public_s, _ = timed(public.fit, data, None, run.seed)
            _, private_s, _ = timed(private.fit, data, 1.0, run.seed)
            _, _, peak = timed(private.fit, data, 1.0, run.seed, measure_memory=True)
            data_mib = (X.nbytes + (0 if y is None else y.nbytes)) / 2**20
            rows.append(
                {
                    "estimator": row.name,
                    "population": row.population,
                    "n": len(X),
                    "private s": private_s,
                    "non-private s": public_s,
                    "time ratio": private_s / public_s,
                    "peak MiB": peak,
                    "data MiB": data_mib,
                    "peak / data": peak / data_mib,
                }
            )
            print(rows[-1], flush=True)
    notes = (
        "Populations and configurations of bench_summary (rademacher_1000d is "
        "capped at 50k users by memory). peak MiB: tracemalloc peak of the "
        "private fit; data MiB: X and y. One run each on a shared 2-core "
        "machine: times are indicative, ratios are within one run. Command: "
        "python -m benchmarks.bench_scaling"
    )
    return [
        Report(
            "scaling",
            "Fit time and peak memory against the number of users (epsilon = 1)",
            rows,
            COLUMNS,
            notes,
        )
    ]


SPEC = Benchmark(
    name="bench_scaling",
    description=__doc__.splitlines()[0],
    steps=(scaling,),
    ignore=(Warning,),
)

if __name__ == "__main__":
    main(SPEC)
