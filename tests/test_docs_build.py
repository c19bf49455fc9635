"""`make docs` in `make test`: the site builds with warnings as errors and every cross-reference resolved
(sphinx-build -W -n, as the Makefile's `docs` target runs it), into a temporary folder; Install comes first in its
navigation, each tutorial page is at most 150 lines, and (slow tier) no code block of the install and tutorial
pages scrolls sideways at 1366 px in Chromium."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from browser_probe import code_blocks

ROOT = Path(__file__).resolve().parent.parent
BUDGET_S = 40.0  # measured ~10 s on an idle machine; beyond this the fast tier should not carry it
TUTORIAL_MAX_LINES = 150
LAYOUT_PAGES = ["install", "tutorial/index", "tutorial/first-comparison", "tutorial/first-check",
                "tutorial/first-identification"]
"""The pages whose code blocks are checked in a browser: the front door."""


def subcommands() -> dict:
    import argparse

    from crossdyn.cli import build_parser

    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    """The site, built once per module the way `make docs` builds it, and how long the build took."""
    tmp_path = tmp_path_factory.mktemp("docs")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p),
               MPLBACKEND="Agg")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-E", "-q", "-b", "html",
                           "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(tmp_path / "html")],
                          env=env, capture_output=True, text=True, timeout=300)
    return proc, tmp_path / "html", time.perf_counter() - t0


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_docs_build_with_warnings_as_errors(built_site):
    proc, html, seconds = built_site
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for page in ("index", "install", "reference/cli", "reference/api", "reference/exit-status", "tutorial/index"):
        assert (html / f"{page}.html").is_file(), page
    cli = (html / "reference" / "cli.html").read_text()
    for name, sub in subcommands().items():  # generated from the parser: every command and every option of it
        assert f'id="crossdyn-{name}"' in cli, f"crossdyn {name} is not on docs/reference/cli"
        for action in sub._actions:
            for option in action.option_strings:
                assert option in cli, f"crossdyn {name} {option} is not on docs/reference/cli"
    print(f"docs build: {seconds:.1f} s")  # shown with -s; the report quotes it
    assert seconds < 3 * BUDGET_S, f"the docs build took {seconds:.0f} s"


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_install_comes_first_in_the_navigation(built_site):
    """The site's navigation (Furo's sidebar, from docs/index.md's toctree) lists Install before the tutorial."""
    proc, html, _ = built_site
    assert proc.returncode == 0, proc.stdout + proc.stderr
    page = (html / "index.html").read_text(encoding="utf-8")
    tree = page[page.index('class="sidebar-tree"'):]
    links = re.findall(r'<a class="reference internal" href="([^"#]+)"', tree)
    assert links[:2] == ["install.html", "tutorial/index.html"], links[:6]


def test_tutorial_pages_are_short_lessons():
    """Each tutorial page is a lesson of at most 150 lines (the measurements and explanations have pages of
    their own, linked from it)."""
    pages = sorted((ROOT / "docs" / "tutorial").glob("*.md"))
    assert len(pages) >= 4, pages
    lengths = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in pages}
    assert all(n <= TUTORIAL_MAX_LINES for n in lengths.values()), lengths


@pytest.mark.slow  # five Chromium runs: ~15 s on the shared 2-core machine (3 s each), and a build of its own
def test_code_blocks_fit_a_1366_px_screen(built_site, tmp_path):
    """In Chromium at 1366 x 900, no code block of the install and tutorial pages scrolls sideways (each `pre`'s
    scrollWidth within its clientWidth: code wraps, docs/_static/crossdyn.css) and no page is wider than the
    window."""
    proc, html, _ = built_site
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = code_blocks([html / f"{page}.html" for page in LAYOUT_PAGES], 1366, 900, tmp_path)
    for page, seen in zip(LAYOUT_PAGES, found.values()):
        assert seen.get("data-inner-width") == "1366", (page, seen["body"])
        assert int(seen.get("data-pres", "0")) >= 1, (page, seen["body"])
        assert json.loads(seen["data-wide"]) == [], (page, seen["data-wide"])
        scroll_width, inner_width = map(int, seen["data-page-layout"].split("/"))
        assert scroll_width <= inner_width, (page, seen["data-page-layout"])
