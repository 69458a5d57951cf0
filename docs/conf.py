"""Sphinx configuration for sklearn_ldp."""

import inspect
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.abspath(".."))
os.environ.setdefault("MPLBACKEND", "Agg")

import sklearn_ldp  # noqa: E402

project = "sklearn_ldp"
author = "sklearn_ldp developers"
copyright = "2026, sklearn_ldp developers"
release = sklearn_ldp.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
templates_path = ["_templates"]
exclude_patterns = ["_build", "benchmarks/*.md"]
source_suffix = {".rst": "restructuredtext"}

html_theme = "pydata_sphinx_theme"
html_title = "sklearn_ldp"
html_theme_options = {"navigation_with_keys": False}

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"quickstart\.py|__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
}


def _write_api_list():
    """List every public object of the package for the API page (from __all__)."""
    sections = [("Estimators", "sklearn_ldp", None)]
    for sub in [
        "randomizers",
        "aggregation",
        "optim",
        "losses",
        "accounting",
        "io",
        "utils",
        "exceptions",
    ]:
        sections.append((f"``sklearn_ldp.{sub}``", f"sklearn_ldp.{sub}", sub))
    lines = [
        "API reference",
        "=============",
        "",
        "Every public estimator, randomizer, server-side routine and accountant,",
        "generated from each module's ``__all__`` (this page is written by ``conf.py``).",
        "",
    ]
    for title, modname, sub in sections:
        try:
            module = __import__(modname, fromlist=["__all__"])
        except ImportError:
            continue
        names = [n for n in getattr(module, "__all__", []) if not n.isupper()]
        if sub is None:
            names = [
                n
                for n in names
                if inspect.isclass(getattr(module, n))
                and not issubclass(getattr(module, n), Warning)
            ]
        if not names:
            continue
        lines += [
            title,
            "-" * len(title),
            "",
            f".. currentmodule:: {modname}",
            "",
            ".. autosummary::",
            "   :toctree: generated/",
            "",
        ]
        lines += [f"   {n}" for n in sorted(names)] + [""]
    out = Path(__file__).parent / "api.rst"
    text = "\n".join(lines)
    if not out.exists() or out.read_text() != text:
        out.write_text(text)


_write_api_list()

#: Order of the benchmark report: the headline table, scale, then the
#: estimators in the order of the estimator pages; any other table follows.
BENCHMARK_ORDER = [
    "summary",
    "real_gap",
    "scaling",
    "streaming",
    "bench_bernstein",
    "bench_bernstein_order",
    "hinge",
    "glm",
    "sparse_regression",
    "sparse_mean",
    "sparse_projection",
    "kernel_ridge",
    "kernel_ridge_auto",
    "kde",
    "kde_degree",
    "marginals",
    "marginals_order",
    "marginals_features",
    "dp_svrg",
    "dp_svrg_gap",
    "dp_nonconvex",
    "dp_constrained",
    "dp_constrained_sparse",
]


def _rst_text(text):
    """Markdown inline text (code spans, ``|``, ``*``, ``_``) to safe reST."""
    out = []
    for i, part in enumerate(text.split("`")):
        if i % 2:  # inside a code span
            out.append(f"``{part}``" if part else "")
        else:
            for char in "\\*|_":
                part = part.replace(char, "\\" + char)
            out.append(part)
    return "".join(out)


def _markdown_to_rst(text, level="-"):
    """One benchmark file (``# title``, pipe tables, paragraphs) as reST."""
    lines, out, table = text.splitlines(), [], []

    def flush_table():
        if not table:
            return
        rows = [[c.strip() for c in row.strip().strip("|").split("|")] for row in table]
        rows = [rows[0]] + rows[2:]  # drop the |---| separator
        out.extend([".. list-table::", "   :header-rows: 1", ""])
        for row in rows:
            for j, cell in enumerate(row):
                out.append(
                    ("   * - " if j == 0 else "     - ") + (_rst_text(cell) or " ")
                )
        out.append("")
        table.clear()

    for line in lines:
        if line.startswith("|"):
            table.append(line)
            continue
        flush_table()
        if line.startswith("#"):
            title = _rst_text(line.lstrip("#").strip())
            out += [title, (level if line.startswith("# ") else "~") * len(title), ""]
        else:
            out.append(_rst_text(line))
    flush_table()
    return "\n".join(out)


def _write_benchmark_report():
    """docs/benchmark_report.rst: every table and plot under docs/benchmarks/."""
    here = Path(__file__).parent / "benchmarks"
    stems = sorted(p.stem for p in here.glob("*.md"))
    stems = [s for s in BENCHMARK_ORDER if s in stems] + [
        s for s in stems if s not in BENCHMARK_ORDER
    ]
    pngs = sorted(p.stem for p in here.glob("*.png"))
    lines = [
        "Benchmark report",
        "================",
        "",
        "Every table and plot the benchmark scripts wrote (``python -m benchmarks``;",
        "``benchmarks/README`` in the repository explains the harness). Each",
        "table's notes give its population, its grid and the command that made",
        "it. This page is generated by ``conf.py`` from ``docs/benchmarks/``.",
        "",
    ]
    for stem in stems:
        lines += ["", _markdown_to_rst((here / f"{stem}.md").read_text()), ""]
        for png in [
            p
            for p in pngs
            if p == stem or (p.startswith(stem + "_") and p not in stems)
        ]:
            lines += ["", f".. image:: benchmarks/{png}.png", "   :width: 100%", ""]
            pngs.remove(png)
    if pngs:
        lines += ["Other figures", "-------------", ""]
        for png in pngs:
            lines += [f".. image:: benchmarks/{png}.png", "   :width: 100%", ""]
    out = Path(__file__).parent / "benchmark_report.rst"
    text = "\n".join(lines) + "\n"
    if not out.exists() or out.read_text() != text:
        out.write_text(text)


_write_benchmark_report()


def _skip_foreign_members(app, what, name, obj, skip, options):
    """Document only what sklearn_ldp defines (not scikit-learn's metadata routing)."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    module = getattr(obj, "__module__", "") or ""
    if what == "class" and module and not module.startswith("sklearn_ldp"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign_members)
