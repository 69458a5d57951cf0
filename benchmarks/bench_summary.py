"""Headline table: every estimator at n = 1e6 users, epsilon 1 and 4, vs non-private.

One row per estimator, on the population its own benchmark script uses
(``benchmarks._populations``): its regime, its utility at epsilon = 1 and 4
in the improved mode (the library's defaults) and in the paper-faithful mode,
the non-private scikit-learn model fitted on the same users, the fit-time
ratio (private fit, simulating every user's randomizer, over the non-private
fit in the same run, at epsilon = 1) and the peak memory of the private fit
(tracemalloc, in a separate fit so timings are not distorted). Written to
``docs/benchmarks/summary.md``; the README's table is copied from it.

Run ``python -m benchmarks.bench_summary [--quick] [--only NAME ...]``
(quick: 20k users).
"""

import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.neighbors import KernelDensity
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

import sklearn_ldp as ldp
from benchmarks._baselines import DELTA, DELTA_NOTE, histogram_tables
from benchmarks._harness import Benchmark, Data, Method, Report, main, run_grid
from benchmarks._populations import POPULATIONS

EPSILONS = (1.0, 4.0)
KDE_BANDWIDTH = 0.15
KRR_GAMMA = 0.2


@dataclass
class Row:
    """One estimator of the summary.

    ``private(epsilon, mode)`` builds the estimator (mode 'improved' or
    'paper'); ``public()`` the non-private scikit-learn model (None when the
    non-private answer is exact and its error 0); ``score(model, data)`` the
    metric on held-out users (or against the exact answer).
    """

    name: str
    regime: str
    population: str
    metric: str
    private: object
    public: object
    score: object
    paper: str = ""

    def methods(self):
        def fit(make):
            def run(data, epsilon, seed):
                model = make(epsilon)
                if "n_users" in getattr(model, "get_params", dict)():
                    model.set_params(n_users=data.n)  # public: how many report
                return (
                    model.fit(data.X) if data.y is None else model.fit(data.X, data.y)
                )

            return run

        out = [
            Method("non-private", fit(lambda e: self.public()), "non-private"),
            Method("improved", fit(lambda e: self.private(e, "improved"))),
        ]
        if self.paper:
            out.append(
                Method("paper", fit(lambda e: self.private(e, "paper")), "paper")
            )
        return out


def supervised_score(model, data):
    return float(model.score(data.X_test, data.y_test))


def kde_score(model, data):
    """Mean log-likelihood of held-out users."""
    return float(model.score(data.X_test)) / len(data.X_test)


def mean_score(model, data):
    """l2 distance to the users' exact mean."""
    location = getattr(model, "location_", None)
    return float(np.linalg.norm(location - data.X.mean(axis=0)))


def marginals_score(model, data):
    """Largest error over every cell of every 2-way table."""
    p = data.X.shape[1]
    pairs = np.array([(i, j) for i in range(p) for j in range(i + 1, p)])
    exact = histogram_tables(data.X, pairs).reshape(-1, 2, 2).transpose(0, 2, 1)
    return float(np.abs(model.marginal_tables(pairs) - exact).max())


class ExactMean:
    """The non-private mean (what the mean estimators estimate)."""

    def fit(self, X, y=None):
        self.location_ = X.mean(axis=0)
        return self


class ExactMarginals:
    """The non-private 2-way tables (what KWayMarginalsLDP estimates)."""

    def fit(self, X, y=None):
        p = X.shape[1]
        self.pairs_ = np.array([(i, j) for i in range(p) for j in range(i + 1, p)])
        self.tables_ = histogram_tables(X, self.pairs_)
        return self

    def marginal_tables(self, pairs):
        return self.tables_.reshape(-1, 2, 2).transpose(0, 2, 1)


def _sparse_radius(name):
    return POPULATIONS[name].params["l1_radius"]


ROWS = [
    Row(
        "LocalBernsteinRegressor",
        "local, p=1, squared loss",
        "linear_1d",
        "R^2",
        lambda eps, mode: ldp.LocalBernsteinRegressor(
            epsilon=eps,
            mechanism="auto" if mode == "improved" else "full_grid",
            random_state=0,
        ),
        LinearRegression,
        supervised_score,
        paper="mechanism='full_grid' (seed 001 Alg. 2)",
    ),
    Row(
        "HingeLDPClassifier",
        "local, p=2, hinge",
        "separable_2d",
        "accuracy",
        lambda eps, mode: ldp.HingeLDPClassifier(
            epsilon=eps,
            delta=DELTA,
            calibration="analytic" if mode == "improved" else "paper",
            random_state=0,
        ),
        LinearSVC,
        supervised_score,
        paper="calibration='paper' (d(d+1)+1 report copies)",
    ),
    Row(
        "GLMLDPClassifier",
        "local, p=10, logistic",
        "logistic_10d",
        "accuracy",
        lambda eps, mode: ldp.GLMLDPClassifier(
            epsilon=eps,
            delta=DELTA,
            calibration="analytic" if mode == "improved" else "paper",
            random_state=0,
        ),
        LogisticRegression,
        supervised_score,
        paper="calibration='paper' (seed 003 Alg. 5 report copies)",
    ),
    Row(
        "SparseLDPRegressor",
        "local, d=20, l1-ball",
        "sparse_linear_20d",
        "R^2",
        lambda eps, mode: ldp.SparseLDPRegressor(
            epsilon=eps,
            delta=DELTA,
            l1_radius=_sparse_radius("sparse_linear_20d"),
            calibration="analytic" if mode == "improved" else "paper",
            random_state=0,
        ),
        LinearRegression,
        supervised_score,
        paper="calibration='paper' (Gaussian projection, classic noise)",
    ),
    Row(
        "KernelRidgeLDP",
        "local, p=5, RBF kernel",
        "nonlinear_5d",
        "R^2",
        lambda eps, mode: ldp.KernelRidgeLDP(
            epsilon=eps,
            delta=DELTA,
            gamma=KRR_GAMMA,
            data_norm=POPULATIONS["nonlinear_5d"].data_norm,
            calibration="analytic" if mode == "improved" else "paper",
            random_state=0,
        ),
        lambda: make_pipeline(
            RBFSampler(gamma=KRR_GAMMA, n_components=300, random_state=0), Ridge(1e-3)
        ),
        supervised_score,
        paper="calibration='paper' (seed 003 Alg. 4 rule)",
    ),
    Row(
        "SparseLDPMeanEstimator",
        "local, d=100, l1 mean",
        "sparse_mean_100d",
        "l2 error",
        lambda eps, mode: ldp.SparseLDPMeanEstimator(
            epsilon=eps,
            delta=DELTA,
            l1_radius=1.0,
            calibration="analytic" if mode == "improved" else "paper",
            random_state=0,
        ),
        ExactMean,
        mean_score,
        paper="calibration='paper'",
    ),
    Row(
        "KernelDensityLDP",
        "local, p=1, density",
        "mixture_1d",
        "mean log-lik",
        lambda eps, mode: ldp.KernelDensityLDP(
            epsilon=eps,
            bandwidth=KDE_BANDWIDTH,
            mechanism="piecewise" if mode == "improved" else "full_vector",
            random_state=0,
        ),
        lambda: KernelDensity(bandwidth=KDE_BANDWIDTH),
        kde_score,
        paper="mechanism='full_vector' (seed 001 Alg. 1 full vector)",
    ),
    Row(
        "KWayMarginalsLDP",
        "local, p=8, 2-way marginals",
        "binary_8d",
        "max error",
        lambda eps, mode: ldp.KWayMarginalsLDP(
            epsilon=eps,
            k=2,
            coefficients="multilinear" if mode == "improved" else "monomial",
            random_state=0,
        ),
        ExactMarginals,
        marginals_score,
        paper="coefficients='monomial' (seed 001 Alg. 6 vector)",
    ),
    Row(
        "DPSVRGClassifier",
        "central, d=54, logistic",
        "classification_54d",
        "accuracy",
        lambda eps, mode: (
            ldp.DPSVRGClassifier(
                epsilon=eps, delta=DELTA, classes=(0, 1), random_state=0
            )
            if mode == "improved"
            else ldp.DPSVRGClassifier(
                epsilon=eps,
                delta=DELTA,
                solver="gd",
                calibration="paper",
                classes=(0, 1),
                random_state=0,
            )
        ),
        LogisticRegression,
        supervised_score,
        paper="DP-GD with seed 004's zCDP calibration (solver='gd', calibration="
        "'paper'); seed 002's DP-SVRG noise has an unspecified constant",
    ),
    Row(
        "DPConstrainedClassifier",
        "central, d=1000, l1 ball, n=50k",
        "rademacher_1000d",
        "accuracy",
        lambda eps, mode: ldp.DPConstrainedClassifier(
            epsilon=eps,
            delta=DELTA,
            radius=8.0,
            data_norm_type="linf",
            n_iter=30,
            calibration="rdp" if mode == "improved" else "paper",
            classes=(0, 1),
            random_state=0,
        ),
        lambda: LogisticRegression(max_iter=1000),
        supervised_score,
        paper="calibration='paper' (seed 004's zCDP)",
    ),
]


def peak_memory(fit, *args):
    """tracemalloc peak (MiB) of one call."""
    tracemalloc.start()
    fit(*args)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return peak


def run_row(row, n, seed):
    """The summary cells of one estimator."""
    population = POPULATIONS[row.population]
    methods = row.methods()
    results = run_grid(
        population,
        methods,
        lambda model, data: {"score": row.score(model, data)},
        sizes=[n],
        epsilons=EPSILONS,
        seeds=[seed],
    )
    cells = {"n": results[0]["n"]}
    for result in results:
        if result["mode"] == "non-private":
            cells["non-private"] = result["score"]
        else:
            prefix = "" if result["mode"] == "improved" else "paper "
            cells[f"{prefix}eps={result['epsilon']:g}"] = result["score"]
            if result["mode"] == "improved" and result["epsilon"] == EPSILONS[0]:
                cells["time ratio"] = result["time ratio"]
    X, y = population.sample(n, seed)
    model = row.methods()[1].fit
    cells["peak MiB"] = peak_memory(
        model, Data(X, y, None, None, population, seed), EPSILONS[0], seed
    )
    cells["data MiB"] = (X.nbytes + (0 if y is None else np.asarray(y).nbytes)) / 2**20
    return cells


README = Path(__file__).resolve().parent.parent / "README.md"
START, END = "<!-- summary:start -->", "<!-- summary:end -->"


def update_readme(summary_path):
    """Copy the table of ``docs/benchmarks/summary.md`` between the README markers."""
    lines = summary_path.read_text().splitlines()
    table = "\n".join(line for line in lines if line.startswith("|"))
    notes = lines[-1]
    text = README.read_text()
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{START}\n{table}\n\n{notes}\n{END}{tail}")


def read_rows(path):
    """Rows of an existing summary table (to merge a partial rerun into)."""
    lines = [line for line in path.read_text().splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        row = dict(zip(header, cells, strict=True))
        for key in NUMERIC:
            row[key] = float(row[key]) if row.get(key, "") != "" else ""
        rows.append(row)
    return rows


COLUMNS = [
    "estimator",
    "regime",
    "metric",
    "eps=1",
    "eps=4",
    "paper eps=1",
    "paper eps=4",
    "non-private",
    "time ratio",
    "peak MiB",
]
NUMERIC = COLUMNS[3:]


def summary(run):
    """The summary table: every row of ROWS (or those of ``--only``, merged
    into the existing table)."""
    only = run.options.only
    n = 20_000 if run.quick else 1_000_000
    rows = []
    for row in ROWS:
        if only and row.name not in only:
            continue
        start = time.perf_counter()
        cells = run_row(row, n, run.seed)
        cells.update(estimator=row.name, regime=row.regime, metric=row.metric)
        print(f"{row.name}: {cells} ({time.perf_counter() - start:.1f} s)", flush=True)
        rows.append(cells)
    if only:
        fresh = {row["estimator"]: row for row in rows}
        kept = read_rows(run.directory / "summary.md")
        known = {row["estimator"] for row in kept}
        rows = [fresh.get(row["estimator"], row) for row in kept]
        rows += [row for name, row in fresh.items() if name not in known]
    paper = "; ".join(f"{row.name}: {row.paper}" for row in ROWS)
    notes = (
        f"n = {n:,} users (DPConstrainedClassifier: 50,000, its d = 1000 dense "
        "population is capped by memory), held-out users drawn separately; "
        "populations from benchmarks/_populations.py, the same as each "
        f"estimator's own benchmark. delta = {DELTA:g} where Gaussian noise is "
        f"used ({DELTA_NOTE}), "
        f"seed {run.seed}. eps=1, eps=4: the library's defaults ('improved'). "
        f"paper eps: the seed paper's configuration ({paper}). Non-private: the "
        "scikit-learn model on the same users (LinearRegression, LinearSVC, "
        "LogisticRegression, RBF random features + Ridge, KernelDensity); the "
        "exact mean and marginal tables (error 0). time ratio: private fit at "
        "eps = 1 (simulating every user) over the non-private fit. peak MiB: "
        "tracemalloc peak of the private fit. Command: python -m "
        "benchmarks.bench_summary"
    )
    return [
        Report(
            "summary",
            "Every estimator at a glance",
            rows,
            COLUMNS,
            notes,
            on_saved=None if run.quick else update_readme,
        )
    ]


SPEC = Benchmark(
    name="bench_summary",
    description=__doc__.splitlines()[0],
    steps=(summary,),
    ignore=(Warning,),
    options=(("--only", {"nargs": "+", "help": "rerun these rows, keep the others"}),),
)

if __name__ == "__main__":
    main(SPEC)
