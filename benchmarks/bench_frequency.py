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

Without multi-freq-ldpy installed (``pip install -e .[bench]``) the script
prints a note and fills our columns only.

Run ``python -m benchmarks.bench_frequency [--quick] [--sizes N ...]
[--seeds S]``.
"""

import time

import numpy as np

from benchmarks._harness import Benchmark, Report, main
from benchmarks._tables import pyplot
from sklearn_ldp import FrequencyLDP

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


def _theirs(name):
    import xxhash
    from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, SS, UE

    if not isinstance(LH.xxhash, _EncodingXXHash):
        LH.xxhash = _EncodingXXHash(xxhash)

    def run(values, k, epsilon, seed):
        np.random.seed(seed)  # noqa: NPY002 - multi-freq-ldpy draws from the global state
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


def run_grid(sizes, ks, epsilons, seeds, theirs):
    rows = []
    methods = [(f"ours: {m}", _ours(m)) for m in OURS]
    if theirs:
        _warm_up()
        methods += [(f"theirs: {m}", _theirs(m)) for m in THEIRS]
    for n in sizes:
        for k in ks:
            for epsilon in epsilons:
                for seed in seeds:
                    rng = np.random.RandomState(1000 * seed + k)
                    values = zipf_population(n, k, rng)
                    truth = np.bincount(values, minlength=k) / n
                    for label, fit in methods:
                        if label == "theirs: OLH" and n * k > THEIR_OLH_MAX_PAIRS:
                            continue
                        start = time.perf_counter()
                        estimate, resolved = fit(values, k, epsilon, seed)
                        seconds = time.perf_counter() - start
                        rows.append(
                            {
                                "n": n,
                                "k": k,
                                "epsilon": epsilon,
                                "seed": seed,
                                "method": label,
                                "resolved": resolved,
                                "mse": float(np.mean((np.asarray(estimate) - truth) ** 2)),
                                "seconds_per_million": seconds / (n / 1e6),
                            }
                        )
    return rows


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


def mse_table(rows, theirs):
    mse = _summary(rows, "mse")
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
                (mse[(*cell, f"theirs: {m}")], m)
                for m in THEIRS
                if (*cell, f"theirs: {m}") in mse
            ]
            (best_mean, best_se, _), best = min(candidates)
            auto_mean, auto_se, _ = mse[(*cell, "ours: auto")]
            margin = 2 * np.sqrt(np.nan_to_num(auto_se) ** 2 + np.nan_to_num(best_se) ** 2)
            row["best of theirs"] = best
            row["auto ≤ best + 2 SE"] = "yes" if auto_mean <= best_mean + margin else "NO"
        out.append(row)
    columns = ["n", "k", "epsilon", *labels, "auto picks"]
    if theirs:
        columns += ["best of theirs", "auto ≤ best + 2 SE"]
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
    plt = pyplot()
    mse = _summary(rows, "mse")
    n = max(r["n"] for r in rows)
    ks = sorted({r["k"] for r in rows if r["n"] == n})
    fig, axes = plt.subplots(1, len(ks), figsize=(3.6 * len(ks), 3.4), squeeze=False)
    labels = [f"ours: {m}" for m in OURS] + ([f"theirs: {m}" for m in THEIRS] if theirs else [])
    for ax, k in zip(axes[0], ks, strict=True):
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
        ax.set(xscale="log", yscale="log", xlabel="epsilon", title=f"k = {k}, n = {n:g}")
        ticks = sorted({e for (nn, kk, e, _) in mse if nn == n and kk == k})
        ax.set_xticks(ticks, minor=False)
        ax.set_xticklabels([f"{e:g}" for e in ticks])
        ax.minorticks_off()
    axes[0, 0].set_ylabel("MSE of the frequencies")
    axes[0, -1].legend(fontsize=6)
    fig.tight_layout()
    return fig


def step(run):
    theirs = have_theirs()
    if not theirs:
        print(
            "note: multi-freq-ldpy is not installed (pip install -e .[bench]); "
            "its columns are skipped."
        )
    if run.quick:
        sizes, ks, epsilons, seeds = (2_000,), (4, 32), (1.0, 4.0), (0,)
    else:
        sizes = tuple(run.options.sizes)
        ks, epsilons = (2, 16, 128, 1024), (0.5, 1.0, 2.0, 4.0, 8.0)
        seeds = tuple(range(run.options.seeds))
    rows = run_grid(sizes, ks, epsilons, seeds, theirs)
    command = run.command
    if not run.quick:
        command += " --sizes " + " ".join(str(n) for n in sizes)
        command += f" --seeds {len(seeds)}"
    seeds_text = f"{len(seeds)} seed{'s' if len(seeds) > 1 else ''}"
    common = (
        f"Zipf({ZIPF_EXPONENT}) categories, {seeds_text} per cell (mean ± "
        "standard error over seeds). Command: `" + command + "`."
    )
    mse_rows, mse_columns = mse_table(rows, theirs)
    time_rows, time_columns = time_table(rows, theirs)
    olh_note = (
        f" multi-freq-ldpy's OLH runs only where n k <= {THEIR_OLH_MAX_PAIRS:g} (its "
        "server hashes every user-category pair in Python)."
        if theirs
        else " multi-freq-ldpy not installed: our columns only."
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
            "difference."
            + olh_note,
            lambda: figure(rows, theirs),
        ),
        Report(
            "frequency_time",
            "FrequencyLDP vs multi-freq-ldpy: seconds per million users",
            time_rows,
            time_columns,
            "Wall time of simulating every report and estimating, per million "
            "users (median over epsilons and seeds), one process, "
            "`nice -n 10` on a shared 2-core machine. " + common + olh_note,
        ),
    ]


SPEC = Benchmark(
    name="bench_frequency",
    description=__doc__.splitlines()[0],
    steps=(step,),
    options=(
        ("--sizes", dict(type=int, nargs="+", default=[100_000])),
        ("--seeds", dict(type=int, default=3)),
    ),
)

if __name__ == "__main__":
    main(SPEC)
