"""The shared benchmark pieces: populations and baselines are what the report
rests on, so their properties are tested like library code; the scripts are
declarative specs on the public API."""

import ast
import importlib
import sys
from functools import partial
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.__main__ import scripts  # noqa: E402
from benchmarks._baselines import (  # noqa: E402
    GaussianLeastSquares,
    histogram_tables,
    naive_fit,
    randomized_response_tables,
)
from benchmarks._harness import (  # noqa: E402
    Benchmark,
    Experiment,
    Grid,
    Method,
    main,
    run_grid,
)
from benchmarks._metrics import (  # noqa: E402
    logistic,
    logistic_derivative,
    margin_risk,
    modified_huber,
    modified_huber_derivative,
    smoothed_hinge,
    smoothed_hinge_derivative,
    squared_hinge,
    squared_hinge_derivative,
)
from benchmarks._populations import POPULATIONS  # noqa: E402
from benchmarks._tables import aggregate, pivot  # noqa: E402
from sklearn_ldp.utils import check_noise_random_state  # noqa: E402


@pytest.mark.parametrize("name", sorted(POPULATIONS))
def test_population_is_reproducible_and_splits_are_distinct(name):
    population = POPULATIONS[name]
    X, y = population.sample(200, seed=3)
    X2, y2 = population.sample(200, seed=3)
    np.testing.assert_array_equal(X, X2)
    X_test, _ = population.sample(200, seed=3, split="test")
    assert not np.array_equal(X, X_test)
    assert X.shape == (200, population.params["n_features"])
    if population.data_norm is not None:
        # The public bound holds for nearly every user (the rest clip).
        norms = np.linalg.norm(X, axis=1)
        assert np.mean(norms > population.data_norm + 1e-12) <= 0.02
    if population.bounds is not None:
        assert X.min() >= population.bounds[0] and X.max() <= population.bounds[1]


def test_population_data_never_replays_the_noise_stream():
    X, _ = POPULATIONS["nonlinear_5d"].sample(1000, seed=0)
    noise = check_noise_random_state(0).uniform(-1, 1, size=X.shape)
    assert not np.any(np.isclose(X, noise))


def test_train_and_test_users_come_from_one_distribution():
    # A population whose structure depended on the stream (as
    # make_classification's does) would make held-out users unlearnable.
    from sklearn.linear_model import LogisticRegression

    X, y, X_test, y_test = POPULATIONS["classification_54d"].train_test(
        20_000, seed=0, n_test=5_000
    )
    train = LogisticRegression(max_iter=500).fit(X, y)
    assert train.score(X_test, y_test) > train.score(X, y) - 0.03


def test_debiased_least_squares_is_consistent_and_naive_is_attenuated():
    rng = np.random.RandomState(0)
    n, w, var_x = 1_000_000, np.array([0.6, -0.4]), 1.0 / 6.0
    X = rng.uniform(-1, 1, size=(n, 2)) / np.sqrt(2)
    y = np.clip(X @ w + 0.05 * rng.standard_normal(n), -1, 1)
    debiased = GaussianLeastSquares(8.0, seed=1, y_bound=1.0).fit(X, y)
    naive = GaussianLeastSquares(8.0, seed=1, debias=False, y_bound=1.0).fit(X, y)
    sigma2 = debiased.randomizer_.sigma_x**2
    # Debiased: consistent up to its ridge 2 sigma^2 sqrt(p / n), which
    # shrinks by var_x / (var_x + ridge). Its standard error is about
    # sigma^2 sqrt(1 + ||w||^2) / (sqrt(n) var_x); 4 of them.
    ridge = 2.0 * sigma2 * np.sqrt(2 / n)
    se = sigma2 * np.sqrt(1 + w @ w) / (np.sqrt(n) * var_x)
    np.testing.assert_allclose(debiased.coef_, w * var_x / (var_x + ridge), atol=4 * se)
    # Naive least squares is attenuated by var_x / (var_x + sigma^2) (errors
    # in variables), far outside that band.
    attenuated = w * var_x / (var_x + sigma2)
    np.testing.assert_allclose(naive.coef_, attenuated, atol=4 * se)
    assert np.all(np.abs(debiased.coef_ - attenuated) > 8 * se)


def test_streaming_least_squares_accumulates_every_chunk():
    X, y = POPULATIONS["sparse_linear_20d"].sample(3000, seed=0)
    stream = GaussianLeastSquares(2.0, seed=5, y_bound=1.0)
    for start in range(0, 3000, 1000):
        stream.partial_fit(X[start : start + 1000], y[start : start + 1000])
    # The same reports (same noise stream, same chunks), solved in one go.
    rng = check_noise_random_state(5)
    reports = [
        stream.randomizer_.randomize(X[s : s + 1000], y[s : s + 1000], random_state=rng)
        for s in range(0, 3000, 1000)
    ]
    Z = np.vstack([np.hstack([r["x"], np.ones((1000, 1))]) for r in reports])
    v = np.concatenate([np.ravel(r["y"]) for r in reports])
    assert stream._stats.n == 3000
    np.testing.assert_allclose(stream._stats.gram, Z.T @ Z, rtol=1e-10)
    np.testing.assert_allclose(stream._stats.moment, Z.T @ v, rtol=1e-10)


def test_naive_classifier_labels_are_the_classes():
    from sklearn.linear_model import LogisticRegression

    X, y = POPULATIONS["separable_2d"].sample(2000, seed=0)
    model = naive_fit(LogisticRegression(), X, y, 1.0, seed=0, classes=[0, 1])
    assert set(model.classes_) == {0, 1}


def test_randomized_response_tables_are_unbiased():
    X, _ = POPULATIONS["binary_8d"].sample(200_000, seed=0)
    subsets = np.array([[0, 1], [2, 7]])
    exact = histogram_tables(X, subsets)
    noisy = randomized_response_tables(X, subsets, epsilon=8.0, seed=0)
    np.testing.assert_allclose(noisy.sum(axis=1), 1.0, atol=1e-9)
    # eps / p = 1 per bit: each cell's standard error is below 0.01 here.
    np.testing.assert_allclose(noisy, exact, atol=0.04)


def test_run_grid_times_against_the_non_private_fit_and_pivots():
    from sklearn.linear_model import LinearRegression

    methods = [
        Method("ols", lambda d, e, s: LinearRegression().fit(d.X, d.y), "non-private"),
        Method(
            "debiased",
            lambda d, e, s: GaussianLeastSquares(e, s, y_bound=1.0).fit(d.X, d.y),
            "baseline",
            epsilons=(4.0,),
        ),
    ]
    rows = run_grid(
        POPULATIONS["linear_1d"],
        methods,
        lambda model, data: {"r2": model.score(data.X_test, data.y_test)},
        sizes=[500],
        epsilons=[1.0, 4.0],
        seeds=(0, 1),
    )
    assert [(r["method"], r["epsilon"]) for r in rows[:2]] == [
        ("ols", "inf"),
        ("debiased", 4.0),
    ]
    assert all(np.isfinite(r["time ratio"]) for r in rows)
    table, columns = pivot(aggregate(rows, ["r2"]), "r2")
    assert columns == ["population", "n", "epsilon", "ols", "debiased"]
    assert len(table) == 1 and table[0]["epsilon"] == 4.0


def _private_sklearn_ldp_imports(path, root=ROOT):
    """``sklearn_ldp`` imports in ``path`` naming a private module or name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            paths = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            paths = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for dotted in paths:
            parts = dotted.split(".")
            if parts[0] == "sklearn_ldp" and any(p.startswith("_") for p in parts):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {dotted}")
    return found


def test_benchmarks_import_only_the_public_api():
    files = sorted((ROOT / "benchmarks").rglob("*.py"))
    assert len(files) > 10
    private = [hit for path in files for hit in _private_sklearn_ldp_imports(path)]
    assert not private, "benchmarks import private sklearn_ldp code:\n" + "\n".join(
        private
    )


def test_private_import_scan_catches_both_forms(tmp_path):
    path = tmp_path / "bench_x.py"
    path.write_text(
        "import sklearn_ldp._glm\n"
        "from sklearn_ldp._hinge import smoothed_hinge\n"
        "from sklearn_ldp.optim import _losses\n"
        "from sklearn_ldp.randomizers import clip_l2\n"
    )
    assert len(_private_sklearn_ldp_imports(path, root=tmp_path)) == 3


@pytest.mark.parametrize("name", scripts())
def test_every_script_declares_its_spec(name):
    module = importlib.import_module(f"benchmarks.{name}")
    assert isinstance(module.SPEC, Benchmark)
    assert module.SPEC.name == name  # the command line printed in every table
    assert module.SPEC.steps


def test_paper_reruns_are_discovered():
    names = scripts()
    assert any(n.startswith("papers.seed002") for n in names)
    assert any(n.startswith("papers.seed004") for n in names)
    assert not any("_" == n.split(".")[-1][0] for n in names)


def test_margin_losses_and_their_derivatives():
    m = np.linspace(-3.0, 3.0, 601)
    losses = [
        (logistic, logistic_derivative),
        (squared_hinge, squared_hinge_derivative),
        (modified_huber, modified_huber_derivative),
        (
            lambda t: smoothed_hinge(t, 0.5),
            lambda t: smoothed_hinge_derivative(t, 0.5),
        ),
    ]
    h = 1e-6
    for loss, derivative in losses:
        numeric = (loss(m + h) - loss(m - h)) / (2 * h)
        np.testing.assert_allclose(derivative(m), numeric, atol=1e-5)
    np.testing.assert_allclose(logistic(0.0), np.log(2.0))
    np.testing.assert_allclose(modified_huber(np.array([-2.0, 0.0, 2.0])), [8, 1, 0])
    # Smoothing: within beta / 2 of max(0, 1/2 - m).
    gap = smoothed_hinge(m, 0.5) - np.maximum(0.0, 0.5 - m)
    assert np.all((gap >= 0) & (gap <= 0.25 + 1e-12))


def test_margin_risk_clips_users_and_signs_labels():
    X = np.array([[3.0, 4.0], [0.3, 0.4]])  # the first user clips to norm 1
    y = np.array([1, 0])
    risk = margin_risk(logistic, np.array([1.0, 1.0]), 0.5, X, y, data_norm=1.0)
    margins = np.array([1.4 + 0.5, -(0.7 + 0.5)])
    np.testing.assert_allclose(risk, np.mean(np.logaddexp(0.0, -margins)))


def _ols_and_debiased(population, quick, keys=None):
    """Two methods for the harness tests: OLS and debiased least squares."""
    from sklearn.linear_model import LinearRegression

    return [
        Method("ols", lambda d, e, s: LinearRegression().fit(d.X, d.y), "non-private"),
        Method(
            "debiased",
            lambda d, e, s: GaussianLeastSquares(e, s, y_bound=1.0).fit(d.X, d.y),
            "baseline",
            keys=keys or {},
        ),
    ]


def _test_spec(populations, methods, notes=""):
    """A one-grid benchmark of the harness tests (r^2 of each method)."""
    grid = Grid(populations=populations, sizes=(300,), epsilons=(2.0,), repeats=2)
    return Benchmark(
        name="bench_test",
        description="test",
        steps=(
            Experiment(
                name="test",
                title="A test table",
                methods=methods,
                evaluate=lambda model, data: {
                    "r2": model.score(data.X_test, data.y_test)
                },
                metrics=("r2",),
                full=grid,
                quick=grid,
                notes=notes,
            ),
        ),
    )


def test_main_runs_a_declared_experiment(capsys):
    spec = _test_spec(
        (POPULATIONS["linear_1d"],),
        partial(_ols_and_debiased, keys={"h": 1}),
        notes=lambda table, run: f"runs {table[0]['runs']}; {run.command}",
    )
    main(spec, ["--quick", "--no-save", "--seed", "3"])
    out = capsys.readouterr().out
    assert "## A test table" in out
    assert "| population | n | epsilon | ols | debiased |" in out
    assert "runs 2; python -m benchmarks.bench_test --quick" in out
    assert "'seed': 4" in out  # --seed 3, two repeats


def test_sharded_grid_writes_the_single_commands_table(tmp_path, capsys):
    from dataclasses import replace

    first = POPULATIONS["linear_1d"]
    spec = _test_spec((first, replace(first, name="linear_1d_twin")), _ols_and_debiased)

    def table(argv):
        main(spec, ["--quick", "--no-save", *argv])
        out = capsys.readouterr().out
        return out[out.find("## A test table") :] if "## A test" in out else None

    whole = table([])
    rows = ["--rows", str(tmp_path)]
    # Shards started together: each looks for the others' rows after its own.
    assert table(["--populations", "linear_1d", *rows]) is None  # one shard
    assert (tmp_path / "quick" / "test" / "linear_1d.json").exists()
    assert table(["--populations", "linear_1d_twin", *rows]) == whole  # the last
    assert table(["--populations", *rows]) == whole  # read only
    with pytest.raises(SystemExit):  # shards must meet somewhere
        main(spec, ["--quick", "--no-save", "--populations", "linear_1d"])


@pytest.mark.parametrize(
    "page", sorted((ROOT / "docs" / "benchmarks").glob("*.md")), ids=lambda p: p.name
)
def test_benchmark_pages_have_no_stray_table_lines(page):
    """The report converts each page to reST: a line starting with '|' is
    read as a table row, so only table rows may start with one (a wrapped
    "||w||_1" broke the docs build once)."""
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.startswith("|"):
            assert line.startswith("| ") and line.rstrip().endswith("|"), (
                f"{page.name}:{number}: {line[:60]!r}"
            )
