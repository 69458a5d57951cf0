"""FrequencyLDP against multi-freq-ldpy: frequencies of one categorical attribute.

Populations: ``n`` users with Zipf-distributed categories (exponent 1.1)
over ``k`` categories, a fresh draw per seed. The error of a method is the
mean over the ``k`` categories of the squared error of its frequencies
against the empirical frequencies of the same users; its time is the wall
time of simulating every user's report and estimating the frequencies,
divided by ``n / 1e6`` (seconds per million users, one core).

Methods, all pure epsilon-LDP per user:
- ours: ``FrequencyLDP(categories=k, unknown='error')`` with
  ``mechanism='auto'`` and each of its five mechanisms (default
  post-processing: Euclidean projection onto the simplex);
- theirs: multi-freq-ldpy (Arcolezi et al.) GRR, OUE, OLH and SS clients,
  each with its matrix-inversion estimator (``*_Aggregator_MI``: negative
  frequencies set to 0, then renormalized). Its OLH server hashes every
  (user, category) pair in Python; it runs only where ``n k <= 2e6``.

Their predicted best: the mechanism with the smallest variance of the
unbiased frequency averaged over the cells (Wang et al., USENIX Security
2017), with multi-freq-ldpy's own ``p``, ``q``, hash range and subset size
(:func:`their_variance`). From ``--best-only-from`` users on (their clients
are slow Python: ~27 s (OUE) and ~67 s (SS) per million users at k = 1024)
the grid runs only our ``'auto'`` and their predicted best; the table
states where.

Recheck: the screening grid tests some 40 cells at 2 standard errors, so a
chance "NO" is expected about once. Every cell whose verdict is "NO" is run
again for our ``'auto'`` and their best mechanism of that cell on fresh
seeds (``--seed + --seeds`` on; ``min(200, max(--seeds, --recheck-users /
n))`` of them), and its verdict is the recheck's (``frequency_check.md``
lists every recheck with the predicted MSE of both).

Without multi-freq-ldpy installed (``pip install -e .[bench]``) the script
prints a note and fills our columns only.

Run ``python -m benchmarks.bench_frequency [--quick] [--sizes N ...]
[--seeds S] [--best-only-from N] [--recheck-users U] [--save-rows PATH]
[--load-rows PATH ...]`` (``--sizes`` with no value and ``--load-rows``:
rebuild the tables from saved rows, rechecks included).
"""

import functools
import json
import time
from pathlib import Path

import numpy as np

from benchmarks._harness import Benchmark, Report, main
from benchmarks._tables import pyplot
from sklearn_ldp import FrequencyLDP
from sklearn_ldp.randomizers import frequency_mechanism_variances

OURS = (
    "auto",
    "randomized_response",
    "hadamard_response",
    "local_hashing",
    "subset_selection",
    "unary_encoding",
)
THEIRS = ("GRR", "OUE", "OLH", "SS")
#: Their OLH server loops over users x categories in Python.
THEIR_OLH_MAX_PAIRS = 2_000_000
ZIPF_EXPONENT = 1.1


def zipf_population(n, k, rng):
    weights = np.arange(1, k + 1, dtype=float) ** -ZIPF_EXPONENT
    return rng.choice(k, size=n, p=weights / weights.sum())


def _ours(mechanism):
    def run(values, k, epsilon, seed):
        est = FrequencyLDP(
            epsilon=epsilon,
            categories=k,
            mechanism=mechanism,
            unknown="error",
            random_state=seed,
        ).fit(values[:, None].astype(float))
        return est.frequencies_, est.mechanism_

    return run


class _EncodingXXHash:
    """xxhash >= 3 refuses ``str``; multi-freq-ldpy's OLH passes ``str(value)``.

    The shim hashes its UTF-8 bytes (what older xxhash did), so their OLH runs
    unchanged otherwise.
    """

    def __init__(self, module):
        self._module = module

    def xxh32(self, data, seed=0):
        if isinstance(data, str):
            data = data.encode()
        return self._module.xxh32(data, seed=seed % 2**32)


@functools.cache
def _numba_seeder():
    """A jitted ``np.random.seed``: their clients draw from numba's generator,
    which ``np.random.seed`` in Python does not reach (without it their runs
    are not reproducible from the seed)."""
    from numba import njit

    @njit
    def seed(value):
        np.random.seed(value)  # noqa: NPY002 - numba's own global state

    return seed


def _theirs(name):
    import xxhash
    from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, SS, UE

    if not isinstance(LH.xxhash, _EncodingXXHash):
        LH.xxhash = _EncodingXXHash(xxhash)

    def run(values, k, epsilon, seed):
        np.random.seed(seed)  # noqa: NPY002 - multi-freq-ldpy draws from the global state
        _numba_seeder()(seed)
        if name == "GRR":
            reports = [GRR.GRR_Client(int(v), k, epsilon) for v in values]
            return GRR.GRR_Aggregator_MI(reports, k, epsilon), name
        if name == "OUE":
            reports = [UE.UE_Client(int(v), k, epsilon, True) for v in values]
            return UE.UE_Aggregator_MI(reports, epsilon, True), name
        if name == "OLH":
            reports = [LH.LH_Client(int(v), k, epsilon, True) for v in values]
            return LH.LH_Aggregator_MI(reports, k, epsilon, True), name
        reports = [SS.SS_Client(int(v), k, epsilon) for v in values]
        return SS.SS_Aggregator_MI(reports, k, epsilon), name

    return run


def have_theirs():
    try:
        import multi_freq_ldpy  # noqa: F401
    except ImportError:
        return False
    return True


def _warm_up():
    # numba compiles their clients on first call: not part of any timing.
    values = np.zeros(10, dtype=int)
    for name in THEIRS:
        _theirs(name)(values, 4, 1.0, 0)


def their_variance(name, k, epsilon):
    """Per-user variance of their unbiased frequency, averaged over the ``k`` cells.

    ``(p (1 - p) / k + (1 - 1/k) q (1 - q)) / (p - q)^2`` (Wang et al. 2017,
    with the ``f`` term averaged: ``sum_x f_x = 1``), with the ``p`` and ``q``
    multi-freq-ldpy's estimators use: GRR ``e / (e + k - 1)`` and ``1 / (e +
    k - 1)``; OUE ``1/2`` and ``1 / (e + 1)``; OLH on ``g = round(e) + 1``
    values, ``e / (e + g - 1)`` and ``1 / g``; SS with ``d = max(1, rint(k /
    (e + 1)))``, ``d e / (d e + k - d)`` and ``((d - 1) d e + (k - d) d) /
    ((k - 1) (d e + k - d))``.
    """
    e = np.exp(epsilon)
    if name == "GRR":
        p, q = e / (e + k - 1), 1 / (e + k - 1)
    elif name == "OUE":
        p, q = 0.5, 1 / (e + 1)
    elif name == "OLH":
        g = int(round(e)) + 1
        p, q = e / (e + g - 1), 1 / g
    else:
        d = int(max(1, np.rint(k / (e + 1))))
        p = d * e / (d * e + k - d)
        q = ((d - 1) * d * e + (k - d) * d) / ((k - 1) * (d * e + k - d))
    return (p * (1 - p) / k + (1 - 1 / k) * q * (1 - q)) / (p - q) ** 2


def _their_runs(name, n, k):
    return name != "OLH" or n * k <= THEIR_OLH_MAX_PAIRS


def their_predicted_best(n, k, epsilon):
    """Their mechanism with the smallest :func:`their_variance` among those run at ``n``."""
    names = [m for m in THEIRS if _their_runs(m, n, k)]
    return min(names, key=lambda m: their_variance(m, k, epsilon))


def _fit_row(label, fit, values, truth, n, k, epsilon, seed, phase, sink=None):
    start = time.perf_counter()
    estimate, resolved = fit(values, k, epsilon, seed)
    seconds = time.perf_counter() - start
    row = {
        "n": n,
        "k": k,
        "epsilon": epsilon,
        "seed": seed,
        "method": label,
        "resolved": resolved,
        "phase": phase,
        "mse": float(np.mean((np.asarray(estimate) - truth) ** 2)),
        "seconds_per_million": seconds / (n / 1e6),
    }
    print({key: row[key] for key in ("n", "k", "epsilon", "seed", "method", "mse")},
          flush=True)
    if sink is not None:
        sink(row)
    return row


def _population(n, k, seed):
    values = zipf_population(n, k, np.random.RandomState(1000 * seed + k))
    return values, np.bincount(values, minlength=k) / n


def run_grid(sizes, ks, epsilons, seeds, theirs, best_only_from=None, sink=None):
    """Every method on every cell; from ``best_only_from`` users on, our
    'auto' and their predicted best only."""
    rows = []
    if theirs:
        _warm_up()
    for n in sizes:
        best_only = best_only_from is not None and n >= best_only_from
        for k in ks:
            for epsilon in epsilons:
                ours = OURS[:1] if best_only else OURS
                methods = [(f"ours: {m}", _ours(m)) for m in ours]
                if theirs:
                    names = (
                        [their_predicted_best(n, k, epsilon)]
                        if best_only
                        else [m for m in THEIRS if _their_runs(m, n, k)]
                    )
                    methods += [(f"theirs: {m}", _theirs(m)) for m in names]
                for seed in seeds:
                    values, truth = _population(n, k, seed)
                    for label, fit in methods:
                        rows.append(
                            _fit_row(
                                label, fit, values, truth, n, k, epsilon, seed, "screen", sink
                            )
                        )
    return rows


def recheck_seed_count(n, n_seeds, recheck_users):
    """``min(200, max(n_seeds, recheck_users / n))``; 0 when ``recheck_users <= 0``."""
    if recheck_users <= 0:
        return 0
    return int(min(200, max(n_seeds, recheck_users // n)))


def recheck(rows, first_seed, n_seeds, recheck_users, sink=None):
    """Rerun every cell whose screening verdict is "NO" on fresh seeds."""
    table, _ = mse_table(rows, theirs=True)
    out = []
    for row in table:
        if row["auto ≤ best + 2 SE"] != "NO":
            continue
        n, k, epsilon, best = row["n"], row["k"], row["epsilon"], row["best of theirs"]
        count = recheck_seed_count(n, n_seeds, recheck_users)
        for seed in range(first_seed, first_seed + count):
            values, truth = _population(n, k, seed)
            for label, fit in (("ours: auto", _ours("auto")), (f"theirs: {best}", _theirs(best))):
                out.append(
                    _fit_row(label, fit, values, truth, n, k, epsilon, seed, "recheck", sink)
                )
    return out


def _summary(rows, key):
    groups = {}
    for row in rows:
        groups.setdefault((row["n"], row["k"], row["epsilon"], row["method"]), []).append(
            row[key]
        )
    out = {}
    for group, values in groups.items():
        values = np.asarray(values)
        se = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else np.nan
        out[group] = (values.mean(), se, values.size)
    return out


def _pm(mean, se):
    return f"{mean:.3g}" if not np.isfinite(se) else f"{mean:.3g} ± {se:.2g}"


def _verdict(mse, cell, best):
    return "yes" if _verdict_of(mse, cell, "ours: auto", f"theirs: {best}") else "NO"


def mse_table(rows, theirs, checks=()):
    """One row per cell; ``checks`` (recheck rows) replace the verdict of their cells."""
    mse = _summary(rows, "mse")
    checked = _summary(checks, "mse")
    resolved = {
        (r["n"], r["k"], r["epsilon"]): r["resolved"]
        for r in rows
        if r["method"] == "ours: auto"
    }
    cells = sorted({(r["n"], r["k"], r["epsilon"]) for r in rows})
    labels = [f"ours: {m}" for m in OURS] + ([f"theirs: {m}" for m in THEIRS] if theirs else [])
    out = []
    for cell in cells:
        row = {"n": cell[0], "k": cell[1], "epsilon": cell[2]}
        for label in labels:
            if (*cell, label) in mse:
                row[label] = _pm(*mse[(*cell, label)][:2])
        row["auto picks"] = resolved[cell]
        if theirs:
            candidates = [
                (mse[(*cell, f"theirs: {m}")][0], m)
                for m in THEIRS
                if (*cell, f"theirs: {m}") in mse
            ]
            best = min(candidates)[1]
            row["their predicted best"] = their_predicted_best(*cell)
            row["best of theirs"] = best
            verdict = _verdict(mse, cell, best)
            if (*cell, "ours: auto") in checked:
                seeds = checked[(*cell, "ours: auto")][2]
                verdict = f"{verdict}; recheck ({seeds} seeds): {_verdict(checked, cell, best)}"
            row["auto ≤ best + 2 SE"] = verdict
        out.append(row)
    columns = ["n", "k", "epsilon", *labels, "auto picks"]
    if theirs:
        columns += ["their predicted best", "best of theirs", "auto ≤ best + 2 SE"]
    return out, columns


def check_table(rows, checks):
    """The rechecked cells: screening and recheck numbers, and the predictions."""
    screen, checked = _summary(rows, "mse"), _summary(checks, "mse")
    out = []
    for cell in sorted({(r["n"], r["k"], r["epsilon"]) for r in checks}):
        n, k, epsilon = cell
        best = next(
            r["method"] for r in checks if (r["n"], r["k"], r["epsilon"]) == cell
            and r["method"].startswith("theirs")
        )
        auto = next(
            r["resolved"] for r in checks if (r["n"], r["k"], r["epsilon"]) == cell
            and r["method"] == "ours: auto"
        )
        ours_variance = frequency_mechanism_variances(k, epsilon)[auto]
        their_name = best.split(": ")[1]
        out.append(
            {
                "n": n,
                "k": k,
                "epsilon": epsilon,
                "auto picks": auto,
                "theirs": their_name,
                "screen seeds": screen[(*cell, "ours: auto")][2],
                "screen: ours auto": _pm(*screen[(*cell, "ours: auto")][:2]),
                "screen: theirs": _pm(*screen[(*cell, best)][:2]),
                "recheck seeds": "{} ({}..{})".format(
                    checked[(*cell, "ours: auto")][2],
                    *(f(r["seed"] for r in checks if (r["n"], r["k"], r["epsilon"]) == cell)
                      for f in (min, max)),
                ),
                "recheck: ours auto": _pm(*checked[(*cell, "ours: auto")][:2]),
                "recheck: theirs": _pm(*checked[(*cell, best)][:2]),
                "predicted unbiased MSE, ours": f"{ours_variance / n:.3g}",
                "predicted unbiased MSE, theirs": (
                    f"{their_variance(their_name, k, epsilon) / n:.3g}"
                ),
                "recheck: auto ≤ theirs + 2 SE": _verdict(checked, cell, their_name),
            }
        )
    columns = list(out[0]) if out else ["n", "k", "epsilon"]
    return out, columns


def time_table(rows, theirs):
    seconds = {}
    for r in rows:
        seconds.setdefault((r["n"], r["k"], r["method"]), []).append(
            r["seconds_per_million"]
        )
    pairs = [
        ("auto", None),
        ("randomized_response", "GRR"),
        ("unary_encoding", "OUE"),
        ("local_hashing", "OLH"),
        ("subset_selection", "SS"),
        ("hadamard_response", None),
    ]
    out = []
    for n, k in sorted({(r["n"], r["k"]) for r in rows}):
        row = {"n": n, "k": k}
        for ours, their in pairs:
            values = seconds.get((n, k, f"ours: {ours}"))
            if values:
                row[f"ours: {ours}"] = f"{np.median(values):.3g}"
            if theirs and their is not None:
                values = seconds.get((n, k, f"theirs: {their}"))
                if values:
                    row[f"theirs: {their}"] = f"{np.median(values):.3g}"
        out.append(row)
    columns = ["n", "k"]
    for ours, their in pairs:
        columns.append(f"ours: {ours}")
        if theirs and their is not None:
            columns.append(f"theirs: {their}")
    return out, columns


def figure(rows, theirs):
    """MSE against epsilon: one row of panels per n, one panel per k."""
    plt = pyplot()
    mse = _summary(rows, "mse")
    sizes = sorted({r["n"] for r in rows})
    ks = sorted({r["k"] for r in rows})
    fig, axes = plt.subplots(
        len(sizes), len(ks), figsize=(3.6 * len(ks), 3.2 * len(sizes)), squeeze=False
    )
    labels = [f"ours: {m}" for m in OURS] + ([f"theirs: {m}" for m in THEIRS] if theirs else [])
    for axes_row, n in zip(axes, sizes, strict=True):
        for ax, k in zip(axes_row, ks, strict=True):
            for label in labels:
                points = sorted(
                    (eps, *mse[(n, k, eps, label)][:2])
                    for (nn, kk, eps, lab) in mse
                    if nn == n and kk == k and lab == label
                )
                if not points:
                    continue
                eps, mean, se = (np.array(v) for v in zip(*points, strict=True))
                style = dict(lw=2.5, color="black", zorder=10) if label == "ours: auto" else {}
                if label.startswith("theirs"):
                    style = dict(ls="--", marker="x")
                ax.errorbar(eps, mean, yerr=np.nan_to_num(2 * se), label=label, **style)
            ax.set(xscale="log", yscale="log", title=f"k = {k}, n = {n:g}")
            ticks = sorted({e for (nn, kk, e, _) in mse if nn == n and kk == k})
            ax.set_xticks(ticks, minor=False)
            ax.set_xticklabels([f"{e:g}" for e in ticks])
            ax.minorticks_off()
            ax.legend(fontsize=5)
        axes_row[0].set_ylabel("MSE of the frequencies")
    for ax in axes[-1]:
        ax.set_xlabel("epsilon")
    fig.tight_layout()
    return fig


def _load_rows(paths):
    """Rows saved by ``--save-rows``: one JSON object per line."""
    rows = []
    for path in paths or ():
        lines = Path(path).read_text().splitlines()
        for line in filter(str.strip, lines):
            loaded = json.loads(line)
            rows += loaded if isinstance(loaded, list) else [loaded]
    return rows


def _appender(path, command):
    """Append each row to ``path`` as it is measured (a long run keeps what it did)."""
    if not path:
        return None

    def sink(row):
        row["command"] = command
        with open(path, "a") as stream:
            stream.write(json.dumps(row) + "\n")

    return sink


def step(run):
    theirs = have_theirs()
    if not theirs:
        print(
            "note: multi-freq-ldpy is not installed (pip install -e .[bench]); "
            "its columns are skipped."
        )
    options = run.options
    best_only_from = None if run.quick else options.best_only_from
    if run.quick:
        sizes, ks, epsilons, seeds = (2_000,), (4, 32), (1.0, 4.0), (0,)
    else:
        sizes = tuple(options.sizes)
        ks, epsilons = tuple(options.ks), tuple(options.epsilons)
        seeds = tuple(range(run.seed, run.seed + options.seeds))
    command = run.command
    if not run.quick:
        command += " --sizes " + " ".join(str(n) for n in sizes)
        command += " --ks " + " ".join(str(k) for k in ks)
        command += " --epsilons " + " ".join(f"{e:g}" for e in epsilons)
        command += f" --seeds {len(seeds)} --best-only-from {best_only_from}"
        command += f" --recheck-users {options.recheck_users:g}"
    loaded = _load_rows(getattr(options, "load_rows", None))
    rows = [r for r in loaded if r["phase"] == "screen"]
    sink = _appender(getattr(options, "save_rows", None), command)
    rows += run_grid(sizes, ks, epsilons, seeds, theirs, best_only_from, sink)
    checks = [r for r in loaded if r["phase"] == "recheck"]
    if theirs and not run.quick:
        done = {(r["n"], r["k"], r["epsilon"]) for r in checks}
        pending = [r for r in rows if (r["n"], r["k"], r["epsilon"]) not in done]
        checks += recheck(
            pending, run.seed + options.seeds, options.seeds, options.recheck_users, sink
        )
    for row in rows + checks:
        row.setdefault("command", command)
    commands = sorted({r["command"] for r in rows + checks})
    if loaded:
        command = (
            "; ".join(commands)
            + "` (rows saved with --save-rows), tables from `"
            + command
            + " --load-rows "
            + " ".join(options.load_rows)
        )
    counts = sorted(
        {
            sum(r["method"] == "ours: auto" and (r["n"], r["k"], r["epsilon"]) == cell
                for r in rows)
            for cell in {(r["n"], r["k"], r["epsilon"]) for r in rows}
        }
    )
    seeds_text = " or ".join(str(c) for c in counts) + " seed" + ("s" if max(counts) > 1 else "")
    common = (
        f"Zipf({ZIPF_EXPONENT}) categories, {seeds_text} per cell (mean ± "
        "standard error over seeds). Command: `" + command + "`."
    )
    mse_rows, mse_columns = mse_table(rows, theirs, checks)
    time_rows, time_columns = time_table(rows, theirs)
    olh_note = (
        f" multi-freq-ldpy's OLH runs only where n k <= {THEIR_OLH_MAX_PAIRS:g} (its "
        "server hashes every user-category pair in Python)."
        if theirs
        else " multi-freq-ldpy not installed: our columns only."
    )
    every = {(r["k"], r["epsilon"]) for r in rows}
    for n in sorted({r["n"] for r in rows}):
        missing = sorted(every - {(r["k"], r["epsilon"]) for r in rows if r["n"] == n})
        if missing:
            olh_note += f" At n = {n:g} these (k, epsilon) cells were not run: " + ", ".join(
                f"({k}, {e:g})" for k, e in missing
            ) + "."
    if getattr(options, "note", None):
        olh_note += " " + options.note
    full_sizes = sorted({r["n"] for r in rows if r["method"] == "ours: hadamard_response"})
    best_only = sorted({r["n"] for r in rows} - set(full_sizes))
    best_note = ""
    if theirs and best_only:
        best_note = (
            f" At n = {', '.join(f'{n:g}' for n in best_only)} only our 'auto' and their "
            "predicted best ran (`their predicted best`: the smallest variance of "
            "the unbiased frequency by Wang et al.'s formula with multi-freq-ldpy's "
            "own p, q, hash range and subset size); "
            + _prediction_note(rows)
        )
    return [
        Report(
            "frequency",
            "FrequencyLDP vs multi-freq-ldpy: MSE of the frequencies",
            mse_rows,
            mse_columns,
            "Mean over categories of the squared error against the empirical "
            "frequencies of the same users; "
            + common
            + " `auto ≤ best + 2 SE`: our 'auto' MSE is at most the best "
            "multi-freq-ldpy mechanism's plus two standard errors of the "
            "difference; a cell that fails is rerun on fresh seeds for our 'auto' "
            "and that mechanism (`recheck (S seeds)`: the verdict on those seeds "
            "alone; numbers in `frequency_check.md`)."
            + olh_note
            + best_note,
            lambda: figure(rows, theirs),
        ),
        Report(
            "frequency_time",
            "FrequencyLDP vs multi-freq-ldpy: seconds per million users",
            time_rows,
            time_columns,
            "Wall time of simulating every report and estimating, per million "
            "users (median over epsilons and seeds), one process, "
            "`nice -n 10` on a shared 2-core machine (other jobs running: "
            "timings are noisy). " + common + olh_note + best_note,
        ),
        *(
            [
                Report(
                    "frequency_check",
                    "FrequencyLDP vs multi-freq-ldpy: cells rerun on fresh seeds",
                    *check_table(rows, checks),
                    "Every cell whose screening verdict was NO, rerun for our 'auto' "
                    "and the best multi-freq-ldpy mechanism of that cell on fresh "
                    "seeds (after the screening's; `recheck seeds`: count (first..last)). "
                    "`predicted unbiased "
                    "MSE`: the per-user variance of the unbiased frequency "
                    "averaged over the cells, over n (both sides' post-processing, "
                    "simplex projection and clip-and-renormalize, lower it). "
                    + common,
                )
            ]
            if checks
            else []
        ),
    ]


def _prediction_note(rows):
    """How often their predicted best was their empirical best, where all ran."""
    mse = _summary(rows, "mse")
    cells = sorted({(r["n"], r["k"], r["epsilon"]) for r in rows})
    full = [c for c in cells if all((*c, f"theirs: {m}") in mse for m in ("GRR", "OUE", "SS"))]
    agree = within = 0
    for cell in full:
        predicted = their_predicted_best(*cell)
        best = min(
            (m for m in THEIRS if (*cell, f"theirs: {m}") in mse),
            key=lambda m: mse[(*cell, f"theirs: {m}")][0],
        )
        agree += predicted == best
        within += _verdict_of(mse, cell, f"theirs: {predicted}", f"theirs: {best}")
    return (
        f"where all their mechanisms ran, the predicted best had their lowest mean "
        f"in {agree} of {len(full)} cells and was within 2 standard errors of it in "
        f"{within}."
    )


def _verdict_of(mse, cell, label, reference):
    mean, se, _ = mse[(*cell, label)]
    best_mean, best_se, _ = mse[(*cell, reference)]
    return mean <= best_mean + 2 * np.hypot(np.nan_to_num(se), np.nan_to_num(best_se))


SPEC = Benchmark(
    name="bench_frequency",
    description=__doc__.splitlines()[0],
    steps=(step,),
    options=(
        ("--sizes", dict(type=int, nargs="*", default=[100_000])),
        ("--seeds", dict(type=int, default=3)),
        ("--ks", dict(type=int, nargs="+", default=[2, 16, 128, 1024])),
        ("--epsilons", dict(type=float, nargs="+", default=[0.5, 1.0, 2.0, 4.0, 8.0])),
        ("--best-only-from", dict(type=int, default=1_000_000)),
        ("--recheck-users", dict(type=float, default=1e7)),
        ("--save-rows", dict(type=str, default=None)),
        ("--load-rows", dict(type=str, nargs="+", default=None)),
        ("--note", dict(type=str, default=None, help="a sentence added to the notes")),
    ),
)

if __name__ == "__main__":
    main(SPEC)
