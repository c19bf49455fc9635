"""Sphinx configuration of crossdyn's documentation site (``make docs``; the slow tier of the tests builds it too).

Why Sphinx with MyST Markdown (and not MkDocs-Material with mkdocstrings): crossdyn's docstrings already carry
about 400 Sphinx cross-references (``:class:``, ``:func:``, ``:mod:``, ``:meth:``) that ``sphinx.ext.autodoc``
renders and resolves as they are, and ``sphinx-argparse`` generates every command's reference from the very
parser ``crossdyn`` runs (:func:`crossdyn.cli.build_parser`).  MyST lets the pages stay Markdown, like the
README they came from, and Sybil runs their examples (``tests/docs_runner.py``).

The build needs no network: no intersphinx inventories are fetched (references to NumPy, SciPy or the standard
library render as plain text).  It runs with ``-W`` (warnings are errors) and ``-n`` (nitpicky: every
cross-reference must resolve), with two exceptions, both narrow:

- ``nitpick_ignore_regex``: targets outside crossdyn (NumPy, SciPy, SymPy, the standard library), which have no
  inventory to resolve against without the network;
- :func:`unlinked_internal_reference`: a reference to a crossdyn object that the reference pages do not document
  (an internal module or helper: the API pages document the public names, not all 200 modules) renders as code
  without a link, **only if that object exists** (it is imported to check).  A typo or a renamed object still
  fails the build.
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
# names imported for type checking only (a runtime import would be circular or heavy), resolved to their page
autodoc_type_aliases = {"SpatialArmSpec": "crossdyn.models.spatial_spec.SpatialArmSpec"}

# -n: every cross-reference resolves, except targets outside crossdyn (no intersphinx: no network at build time)
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sympy|pathlib|collections|typing|enum|argparse|dataclasses|abc|os|io)(\..*)?"),
    (r"py:.*", r"(Path|NDArray|ndarray|Callable|Iterable|Iterator|Sequence|Mapping|Any|Enum|IntEnum)"),
]



def _exists(name: str) -> bool:
    """Whether ``name`` (``crossdyn.pkg.mod.Class.attr``) names an existing module or attribute."""
    import importlib

    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            fields = set(getattr(obj, "__dataclass_fields__", {})) | set(getattr(obj, "__annotations__", {}))
            if hasattr(obj, attr):
                obj = getattr(obj, attr)
            elif attr in fields:  # a dataclass field without a class-level default
                obj = None
            else:
                return False
        return True
    return False


def _defined_as(short: str) -> list[str]:
    """The crossdyn objects called ``short`` where they are defined (an annotation names a class imported only
    for type checkers, ``if TYPE_CHECKING:``, so its module is not the docstring's)."""
    return sorted({f"{m}.{short}" for m, mod in list(sys.modules.items())
                   if m.startswith("crossdyn") and getattr(getattr(mod, short, None), "__module__", None) == m})


def unlinked_internal_reference(app, env, node, contnode):
    """``missing-reference``: a crossdyn reference Python's domain did not resolve as written.

    The target is tried as written, inside the docstring's module and class, and, for a bare name, where a
    crossdyn object of that name is defined: a documented one is linked, an undocumented one that exists renders
    as unlinked code, and anything else stays missing (a warning: the build fails)."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.!")
    module, cls = node.get("py:module") or "", node.get("py:class") or ""
    candidates = [target] + [f"{p}.{target}" for p in (f"{module}.{cls}" if cls else "", module) if p]
    if "." not in target:
        candidates += _defined_as(target)
    py = env.get_domain("py")
    for c in candidates:
        if c in py.objects:
            return py.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], c, node, contnode)
    if any(c.startswith("crossdyn") and _exists(c) for c in candidates):
        return contnode
    return None


def setup(app):
    app.connect("missing-reference", unlinked_internal_reference)


# Furo (the theme of MuJoCo's docs): the content column widens with the screen, a collapsible navigation on the
# left and the page's contents on the right; console output wraps instead of scrolling sideways (_static/crossdyn.css;
# tests/test_docs_layout.py checks every tutorial page's code blocks at 1366 px in Chromium)
html_theme = "furo"
html_title = f"crossdyn {__version__}"
html_static_path = ["_static"]
html_css_files = ["crossdyn.css"]
html_theme_options = {"navigation_with_keys": True, "top_of_page_buttons": []}
