"""Sphinx configuration of crossdyn's documentation site (``make docs``; ``make test`` builds it too).

Why Sphinx with MyST Markdown (and not MkDocs-Material with mkdocstrings): crossdyn's docstrings already carry
about 400 Sphinx cross-references (``:class:``, ``:func:``, ``:mod:``, ``:meth:``) that ``sphinx.ext.autodoc``
renders and resolves as they are, and ``sphinx-argparse`` generates every command's reference from the very
parser ``crossdyn`` runs (:func:`crossdyn.cli.build_parser`).  MyST lets the pages stay Markdown, like the
README they came from, and Sybil runs their examples (``tests/docs_runner.py``).

The build needs no network: no intersphinx inventories are fetched (references to NumPy, SciPy or the standard
library render as plain text).  It runs with ``-W`` (warnings are errors) and ``-n`` (nitpicky: every
cross-reference must resolve); ``nitpick_ignore_regex`` below lists the only targets allowed not to, each
because it lives outside crossdyn and there is no inventory to resolve it against.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # autodoc and sphinx-argparse import the checkout being documented
os.environ.setdefault("MPLBACKEND", "Agg")

from crossdyn.version import __version__  # noqa: E402

project = "crossdyn"
author = "crossdyn developers"
copyright = "crossdyn developers, MIT licence"
version = release = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
    "sphinxarg.ext",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_incoming", "conftest.py", "Thumbs.db", ".DS_Store"]

# MyST: ::: fences, definition lists, $math$, field lists, {attrs}; anchors for headings down to level 3
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath", "fieldlist", "attrs_inline"]
myst_heading_anchors = 3

# autodoc: members in source order; type hints shown in the signature only (as written)
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "show-inheritance": False}

# -n: every cross-reference resolves, except targets outside crossdyn (no intersphinx: no network at build time)
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sympy|pathlib|collections|typing|enum|argparse|dataclasses|abc|os|io)(\..*)?"),
    (r"py:.*", r"(Path|NDArray|ndarray|Callable|Iterable|Iterator|Sequence|Mapping|Any|Enum|IntEnum)"),
]

html_theme = "alabaster"
html_title = f"crossdyn {__version__}"
html_static_path: list[str] = []
html_theme_options = {"description": "Cross-validate robot-arm dynamics", "fixed_sidebar": True}
html_sidebars = {"**": ["about.html", "navigation.html", "relations.html", "searchbox.html"]}
