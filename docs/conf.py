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
        "accounting",
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
                if inspect.isclass(getattr(module, n)) and n != "PrivacyLeakWarning"
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
