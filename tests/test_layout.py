"""The package's rooms and the direction of its imports (see STYLE.md).

``accounting``, ``utils``, ``losses`` <- ``randomizers`` <- ``aggregation``,
``optim`` <- estimator modules; nothing imports an estimator module except
the package ``__init__``. A device runs the client with
``sklearn_ldp.randomizers`` alone.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import sklearn_ldp

PACKAGE = Path(sklearn_ldp.__file__).parent
ROOMS = ("accounting", "utils", "losses", "randomizers", "aggregation", "optim")
#: What each room may import from the package (besides itself and exceptions).
ALLOWED = {
    "utils": set(),
    "accounting": {"utils"},
    "losses": {"utils"},
    "randomizers": {"accounting", "utils", "losses"},
    "aggregation": {"accounting", "utils", "losses", "randomizers"},
    "optim": {"accounting", "utils", "losses", "randomizers", "aggregation"},
}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE), ast.parse(path.read_text())


def _room(relative):
    return relative.parts[0] if len(relative.parts) > 1 else None


def _package_imports(relative, tree):
    """Top-level package components this module imports (``'_glm'``, ``'optim'``...)."""
    depth = len(relative.parts) - 1
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level <= depth:
                    continue  # inside the module's own room
                parts = (node.module or "").split(".")
                if parts == [""]:
                    yield from (alias.name for alias in node.names)
                else:
                    yield parts[0]
            elif node.module and node.module.startswith("sklearn_ldp."):
                yield node.module.split(".")[1]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("sklearn_ldp."):
                    yield alias.name.split(".")[1]


@pytest.mark.parametrize(
    "relative, tree",
    list(_modules()),
    ids=lambda v: str(v) if isinstance(v, Path) else "",
)
def test_imports_point_down(relative, tree):
    room = _room(relative)
    imported = set(_package_imports(relative, tree)) - {"exceptions"}
    if room in ALLOWED:
        assert imported <= ALLOWED[room], (relative, sorted(imported - ALLOWED[room]))
    elif relative.name != "__init__.py":
        estimators = {name for name in imported if name.startswith("_")}
        shared = {"_base", "_linear", "_central"}
        assert estimators <= shared, (relative, sorted(estimators - shared))


def test_randomizer_classes_live_in_randomizers():
    for relative, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Randomizer"):
                assert _room(relative) == "randomizers", (relative, node.name)


def test_client_runs_without_estimator_modules():
    # The package __init__ imports estimators lazily, so a device that imports
    # the client room loads no estimator, aggregation or optim module.
    code = (
        "import sys, sklearn_ldp.randomizers;"
        "mods = [m for m in sys.modules if m.startswith('sklearn_ldp.')];"
        "bad = [m for m in mods if m.split('.')[1] not in "
        "('randomizers', 'accounting', 'utils', 'losses', 'exceptions')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_paper_labels_in_public_options():
    labels = ("seed00", "lemma32", "lemma_32")
    for cls in map(sklearn_ldp.__dict__.get, sklearn_ldp.__all__):
        for constraint in getattr(cls, "_parameter_constraints", {}).values():
            for option in constraint:
                text = repr(getattr(option, "options", option))
                assert not any(label in text for label in labels), (cls, text)


def test_lazy_exports_match_all():
    warnings = {
        "ClippingWarning",
        "InvalidReportWarning",
        "LargeDeltaWarning",
        "PrivacyLeakWarning",
    }
    assert set(sklearn_ldp.__all__) == {
        *sklearn_ldp._ESTIMATORS,
        *sklearn_ldp._FUNCTIONS,
        *warnings,
    }
    for name in sklearn_ldp.__all__:
        assert name in dir(sklearn_ldp)
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        sklearn_ldp.Nope  # noqa: B018


def _ldp_configs():
    from sklearn.base import ClassifierMixin

    from sklearn_ldp._base import LDPEstimatorMixin

    for name in sklearn_ldp.__all__:
        cls = getattr(sklearn_ldp, name)
        if not (isinstance(cls, type) and issubclass(cls, LDPEstimatorMixin)):
            continue
        options = [{}]
        if "calibration" in cls().get_params():
            options.append({"calibration": "paper"})
        for params in options:
            n_features = 4 if name == "KWayMarginalsLDP" else 2
            classes = [0, 1] if issubclass(cls, ClassifierMixin) else None
            est = cls(random_state=0, **params)
            yield (
                name,
                params,
                est.make_randomizer(
                    n_features, n_users=10_000, classes=classes
                ).get_config(),
            )


@pytest.mark.parametrize("name, params, config", list(_ldp_configs()))
def test_no_paper_labels_in_report_configs(name, params, config):
    import json

    text = json.dumps(config).lower()
    assert not any(label in text for label in ("seed00", "lemma32", "lemma_32")), text
