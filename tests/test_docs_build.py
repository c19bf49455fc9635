"""`make docs` in `make test`: the site builds with warnings as errors and every cross-reference resolved
(sphinx-build -W -n, as the Makefile's `docs` target runs it), into a temporary folder."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_S = 40.0  # measured ~10 s on an idle machine; beyond this the fast tier should not carry it


def subcommands() -> dict:
    import argparse

    from crossdyn.cli import build_parser

    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_docs_build_with_warnings_as_errors(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p),
               MPLBACKEND="Agg")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-E", "-q", "-b", "html",
                           "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(tmp_path / "html")],
                          env=env, capture_output=True, text=True, timeout=300)
    seconds = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stdout + proc.stderr
    html = tmp_path / "html"
    for page in ("index", "reference/cli", "reference/api", "reference/exit-status", "tutorial/index"):
        assert (html / f"{page}.html").is_file(), page
    cli = (html / "reference" / "cli.html").read_text()
    for name, sub in subcommands().items():  # generated from the parser: every command and every option of it
        assert f'id="crossdyn-{name}"' in cli, f"crossdyn {name} is not on docs/reference/cli"
        for action in sub._actions:
            for option in action.option_strings:
                assert option in cli, f"crossdyn {name} {option} is not on docs/reference/cli"
    print(f"docs build: {seconds:.1f} s")  # shown with -s; the report quotes it
    assert seconds < 3 * BUDGET_S, f"the docs build took {seconds:.0f} s"
