"""Reports fitted from disk: in memory against streamed, and 1e8 reports on a local Dask cluster.

The users' reports (``SparseLDPRegressor`` with the identity projection:
ten noisy features and a noisy target per user, epsilon = 2) are written to
a Parquet dataset, one part per million users, by ``Reports.to_parquet``;
the server fits them with ``fit_reports``:

- ``in memory``: every part read and concatenated into one ``Reports``,
  then fitted;
- ``streamed``: ``fit_reports(read_reports(path, chunk_size=65536))``, one
  chunk in memory at a time;
- ``dask``: ``read_reports(path, chunk_size=10**6, backend='dask')`` on a
  ``distributed.LocalCluster`` of two worker processes (one thread each):
  the workers read and aggregate their partitions, the driver adds the
  aggregates.

Each fit runs in a fresh process; "RSS growth" is that process's peak
resident set size during the fit (``VmHWM``, reset before the fit) minus its
resident set size before it (imports done, stream opened), next to the size
of the reports' arrays.
Writes ``docs/benchmarks/streaming.md``. ``--quick``: 2e5 reports, no Dask
run of 1e8 (a 4e5-report one). ``--large N`` sets the size of the Dask run
(default 1e8; the dataset takes about 88 bytes per report on disk).
"""

import multiprocessing
import resource
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from benchmarks._harness import Benchmark, Report, main

N_FEATURES = 10
EPSILON = 2.0
PART_USERS = 1_000_000
STREAM_CHUNK = 65_536

COLUMNS = [
    "mode",
    "reports",
    "reports MiB",
    "fit s",
    "reports / s",
    "RSS growth MiB",
    "growth / reports",
    "max abs coef difference",
]


def _estimator(n_users):
    from sklearn_ldp import SparseLDPRegressor

    return SparseLDPRegressor(
        epsilon=EPSILON,
        delta=min(1e-9, 0.1 / n_users),
        projection="identity",
        n_users=n_users,
        random_state=0,
    )


def write_dataset(path, n_users, seed):
    """Simulate ``n_users`` users, one million at a time, appending each part to ``path``."""
    randomizer = _estimator(n_users).make_randomizer(N_FEATURES, n_users=n_users)
    rng = np.random.default_rng([seed, 19])
    beta = np.zeros(N_FEATURES)
    beta[:3] = [0.6, -0.4, 0.3]
    noise = np.random.default_rng([seed, 20])
    start = time.perf_counter()
    for first in range(0, n_users, PART_USERS):
        n = min(PART_USERS, n_users - first)
        X = rng.uniform(-1.0, 1.0, size=(n, N_FEATURES)) / np.sqrt(N_FEATURES)
        y = np.clip(X @ beta + 0.1 * rng.standard_normal(n), -1.0, 1.0)
        randomizer.randomize(X, y, random_state=noise).to_parquet(path)
    return time.perf_counter() - start


def _status_mib(key):
    """``VmRSS`` (now) or ``VmHWM`` (peak) of this process, in MiB (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {key} in /proc/self/status")


def _reset_peak():
    """Reset ``VmHWM`` to the current RSS (Linux ``clear_refs`` 5), so the peak is the fit's."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:  # pragma: no cover - not Linux or not permitted
        return False


def _fit_in_child(path, n_users, mode):
    """Runs in a fresh process: open, fit, and measure (seconds, RSS growth, coef)."""
    from sklearn_ldp import read_reports
    from sklearn_ldp.randomizers import Reports

    estimator = _estimator(n_users)
    if mode == "dask":
        from distributed import Client, LocalCluster

        cluster = LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
        stream = read_reports(path, chunk_size=PART_USERS, backend="dask")
    else:
        stream = read_reports(path, chunk_size=STREAM_CHUNK)
    # Warm-up on the first chunk: modules the fit imports lazily and the
    # allocators' pools are not memory that grows with the reports.
    estimator.fit_reports(next(iter(read_reports(path, chunk_size=STREAM_CHUNK))))
    before = _status_mib("VmRSS")
    if not _reset_peak():  # fall back to the lifetime peak
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    if mode == "in memory":
        estimator.fit_reports(Reports.concatenate(list(stream)))
    else:
        estimator.fit_reports(stream)
    seconds = time.perf_counter() - start
    growth = _status_mib("VmHWM") - before
    if mode == "dask":
        client.close()
        cluster.close()
    return seconds, growth, np.concatenate([estimator.coef_, [estimator.intercept_]])


def _measure(path, n_users, mode):
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(_fit_in_child, str(path), n_users, mode).result()


def streaming(run):
    n_memory = 200_000 if run.quick else 2_000_000
    n_large = 400_000 if run.quick else int(run.options.large)
    report_mib = lambda n: n * (N_FEATURES + 1) * 8 / 2**20  # noqa: E731
    rows, notes = [], []
    root = Path(tempfile.mkdtemp(prefix="sklearn_ldp_bench_"))
    try:
        path = root / "reports"
        written = write_dataset(path, n_memory, run.seed)
        disk = sum(f.stat().st_size for f in path.iterdir()) / 2**20
        notes.append(
            f"{n_memory:,} reports written in {written:.1f} s "
            f"({disk:.0f} MiB on disk, {report_mib(n_memory):.0f} MiB in memory)."
        )
        reference = None
        for mode in ("in memory", "streamed"):
            seconds, growth, coef = _measure(path, n_memory, mode)
            reference = coef if reference is None else reference
            rows.append(_row(mode, n_memory, report_mib, seconds, growth, coef, reference))
            print(rows[-1], flush=True)
        shutil.rmtree(path)
        large = root / "large"
        written = write_dataset(large, n_large, run.seed)
        disk = sum(f.stat().st_size for f in large.iterdir()) / 2**20
        notes.append(
            f"{n_large:,} reports written in {written:.0f} s ({disk / 1024:.1f} GiB on "
            "disk) for the Dask run."
        )
        reference = None
        for mode in ("streamed", "dask"):
            seconds, growth, coef = _measure(large, n_large, mode)
            reference = coef if reference is None else reference
            rows.append(_row(mode, n_large, report_mib, seconds, growth, coef, reference))
            print(rows[-1], flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    notes.append(
        "RSS growth: the fitting process's peak resident set size during the fit "
        "(VmHWM, reset before the fit) minus its resident set size before it; "
        "for the Dask run the driver's only (the two "
        "worker processes read and aggregate the partitions). One run each on a "
        "shared 2-core machine. Last column: the largest difference of the "
        "coefficients from the first fit on the same reports (the in-memory fit at "
        f"{n_memory:,} reports, the single-process streamed fit at {n_large:,}): "
        "the same model up to the order of floating-point sums. Command: "
        + run.command
    )
    return [
        Report(
            "streaming",
            "Reports fitted from a Parquet dataset: in memory, streamed, on Dask",
            rows,
            COLUMNS,
            "\n\n".join(notes),
        )
    ]


def _row(mode, n, report_mib, seconds, growth, coef, reference):
    return {
        "mode": mode,
        "reports": n,
        "reports MiB": report_mib(n),
        "fit s": seconds,
        "reports / s": n / seconds,
        "RSS growth MiB": growth,
        "growth / reports": growth / report_mib(n),
        "max abs coef difference": (
            float("nan") if reference is None else float(np.max(np.abs(coef - reference)))
        ),
    }


SPEC = Benchmark(
    name="bench_streaming",
    description=__doc__.splitlines()[0],
    steps=(streaming,),
    ignore=(Warning,),
    options=(("--large", {"type": float, "default": 1e8, "help": "reports of the Dask run"}),),
)

if __name__ == "__main__":
    main(SPEC)
