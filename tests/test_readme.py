"""The README is the one-screen entry: at most 200 lines, every relative link lands on a file (its links into
the docs on an existing page and heading), and its four one-line examples run and say what it claims."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def readme() -> str:
    return README.read_text(encoding="utf-8")


def test_readme_fits_on_two_screens():
    lines = readme().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; the docs site holds the rest"


def heading_anchors(page: Path) -> set[str]:
    """MyST's anchors (docs/conf.py: myst_heading_anchors) for the page's headings: lower case, punctuation
    dropped, spaces to hyphens, as GitHub also makes them."""
    anchors, fenced = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"#{1,6} (.*)", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            anchors.add(text.replace(" ", "-"))
    return anchors


def test_every_relative_link_points_at_an_existing_file_or_docs_page():
    links = [t for t in LINK.findall(readme()) if not re.match(r"[a-z]+:", t)]
    assert len(links) >= 20  # the README is mostly links into the docs
    docs_pages = 0
    for target in links:
        path, _, anchor = target.partition("#")
        assert path, f"README.md: a link to {target!r} within the README itself (the README has no sections to link)"
        file = ROOT / path
        assert file.is_file(), f"README.md links to {target!r}, which does not exist"
        if path.startswith("docs/") and path.endswith(".md"):
            docs_pages += 1
            assert not path.startswith(("docs/_incoming/", "docs/_build/")), f"{target!r} is not part of the site"
            if anchor:
                assert anchor in heading_anchors(file), f"README.md links to {target!r}: no such heading in {path}"
    assert docs_pages >= 20


def examples() -> list[str]:
    """The command lines of the README's "Four examples" block, comments stripped."""
    section = readme().split("## Four examples", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_shows_four_examples():
    assert [e.split()[:2] for e in examples()] == [["crossdyn", "compare"], ["crossdyn", "check"],
                                                   ["crossdyn", "identify"], ["crossdyn", "audit"]]


# what each example must print and its exit status (0 PASS, 1 FAIL), as the README's comments say
EXPECTED = {
    "compare": (0, "verdict: PASS (6003 checks: trajectory 1001, inverse_dynamics 1000, forward_dynamics 1000, "
                   "mass_matrix 1000, energy 2002)"),
    "check": (1, "WRONG: 2 entries wrong: M11, M12"),
    "identify": (0, "verdict: PASS ("),
    "audit": (1, "verdict: FAIL ("),  # the two files of the UR5e differ (masses, armature, damping): "2 files, 1 robot"
}


@pytest.mark.parametrize("command", ["compare", "check", "identify", "audit"])
def test_readme_example_runs_as_written(command, tmp_path):
    (line,) = [e for e in examples() if e.split()[1] == command]
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    crossdyn = str(Path(sys.executable).parent / "crossdyn")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    proc = subprocess.run([crossdyn, *line.split()[1:]], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    status, shown = EXPECTED[command]
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert shown in proc.stdout, proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    reports = list(tmp_path.rglob("*.html"))
    assert reports, "each example writes an HTML report"  # as the README says


def test_the_first_check_page_shows_the_example_file_as_it_is():
    """docs/tutorial/first-check.md shows examples/check/my_3r_buggy.py's M by including the file itself (Sphinx's
    literalinclude, so the page cannot drift from the file), then checks that file; M holds both slips."""
    page = (ROOT / "docs" / "tutorial" / "first-check.md").read_text(encoding="utf-8")
    include = re.search(r"```\{literalinclude\} (\S+)\n(.*?)```", page, re.S)
    assert include is not None, "first-check.md includes no file"
    assert (ROOT / "docs" / "tutorial" / include.group(1)).resolve() == ROOT / "examples" / "check" / "my_3r_buggy.py"
    assert ":pyobject: M\n" in include.group(2)
    assert "$ crossdyn check planar3r examples/check/my_3r_buggy.py\n" in page
    source = (ROOT / "examples" / "check" / "my_3r_buggy.py").read_text(encoding="utf-8")
    m = source[source.index("def M(q, p):"):source.index("def C(q, qd, p):")]
    assert "# L1 -> L1**2" in m and "# needs 2 * L2 * Lc3 * c3" in m
