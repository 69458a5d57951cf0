"""Run every benchmark script: ``python -m benchmarks [--quick] [--only NAME ...]``.

The scripts are the per-estimator ``bench_*.py`` and the re-runs of the
seed papers' own experiments in ``papers/``; each declares a
``_harness.Benchmark`` and runs in its own process. Full runs write their
tables and plots to ``docs/benchmarks/`` (the summary table the README
quotes is ``docs/benchmarks/summary.md``); ``--quick`` runs a reduced grid of
every script (a smoke test, exercised by CI) and writes to
``benchmarks/results/quick/`` so it never overwrites the full results.
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scripts():
    """Module names under ``benchmarks``: ``bench_glm``, ``papers.seed002_...``."""
    names = sorted(p.stem for p in HERE.glob("bench_*.py"))
    names += sorted(
        f"papers.{p.stem}"
        for p in (HERE / "papers").glob("*.py")
        if not p.stem.startswith("_")
    )
    return names


def matches(name, wanted):
    """``--only`` accepts ``bench_glm``, ``glm``, ``papers.seed002_dp_svrg_gap``
    or ``seed002_dp_svrg_gap``."""
    stem = name.removeprefix("papers.")
    return bool({name, stem, stem.removeprefix("bench_")} & wanted)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="reduced grids (smoke run)"
    )
    parser.add_argument("--only", nargs="+", help="script names (bench_glm or glm)")
    args = parser.parse_args(argv)
    names = scripts()
    if args.only:
        wanted = set(args.only)
        unknown = {w for w in wanted if not any(matches(n, {w}) for n in names)}
        if unknown:
            parser.error(f"unknown benchmarks {sorted(unknown)}; have {names}")
        names = [n for n in names if matches(n, wanted)]
    flags = ["--quick"] if args.quick else []
    results = []
    for name in names:
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", f"benchmarks.{name}", *flags],
            cwd=HERE.parent,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - start
        status = "ok" if proc.returncode == 0 else f"FAILED ({proc.returncode})"
        results.append((name, status, seconds))
        print(f"{name:<40} {status:<12} {seconds:7.1f} s", flush=True)
        if proc.returncode != 0:
            print(proc.stdout[-2000:], proc.stderr[-4000:], sep="\n", file=sys.stderr)
    failed = [name for name, status, _ in results if status != "ok"]
    total = sum(seconds for *_, seconds in results)
    print(
        f"benchmarks: {len(results) - len(failed)} ok, {len(failed)} failing, {total:.0f} s"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
