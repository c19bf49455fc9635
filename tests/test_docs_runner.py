"""The docs' example runner (tests/docs_runner.py, docs/conftest.py) run for real: pytest + Sybil on small pages
written here, with real commands (``echo``, ``crossdyn``), and each outcome read back from the JUnit report."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from docs_runner import DocsSyntaxError, attach_directives, fenced_blocks, output_differences

ROOT = Path(__file__).resolve().parent.parent

PAGES = {
    # name: (page text, expected outcome of each example in page order)
    "within.md": ("```console\n$ echo 'x = 0.2142 m, n = 7'\nx = 0.2141 m, n = 7\n```\n", ["passed"]),
    "beyond.md": ("```console\n$ echo 'x = 0.2142'\nx = 0.2144\n```\n", ["failed"]),
    "integer.md": ("```console\n$ echo 'n = 8'\nn = 7\n```\n", ["failed"]),
    "text.md": ("```console\n$ echo 'verdict: FAIL'\nverdict: PASS\n```\n", ["failed"]),
    "ellipsis.md": ("```console\n$ crossdyn --help\nusage: crossdyn ...\n...\nexit status (every command):\n"
                    "...\n  141  broken pipe ...\n```\n", ["passed"]),
    "missing-line.md": ("```console\n$ printf 'a\\nb\\n'\na\n```\n", ["failed"]),
    "exit-wrong.md": ("```console\n$ echo done; exit 2\ndone\n```\n", ["failed"]),
    "exit-right.md": ("<!-- docs: exit 2 -->\n```console\n$ crossdyn check planar3r no_such_file.py\n"
                      "...no_such_file.py...\n...\n```\n", ["passed"]),
    "pipefail.md": ("```console\n$ false | cat\n```\n", ["failed"]),
    "skip-reason.md": ("<!-- docs: skip installs packages -->\n```console\n$ pip install nothing-at-all\n```\n", []),
    "timeout.md": ("<!-- docs: timeout 1 -->\n```console\n$ sleep 50 & sleep 50\n```\n", ["failed"]),
    "file-and-python.md": ("<!-- docs: file sub/arm.toml -->\n```toml\npreset = \"planar2r\"\n```\n\n"
                           "```console\n$ cat sub/arm.toml; ls examples/check\npreset = \"planar2r\"\n...\n"
                           "my_2r.py\n...\n```\n\n```python\nfrom pathlib import Path\n"
                           "text = Path('sub/arm.toml').read_text()\n```\n\n```python\n>>> len(text.split())\n3\n"
                           ">>> 2 / 3\n0.667\n```\n\n```python\nassert 'planar2r' in text\n```\n\n"
                           "<!-- docs: file show.py -->\n```python\nprint(f'{2 / 3:.4f}')\nraise SystemExit(3)\n```\n\n"
                           "<!-- docs: exit 3 -->\n```console\n$ python show.py\n0.6667\n```\n",
                           ["passed"] * 8),
    "python-fails.md": ("```python\nx = 0.25\nassert abs(x - 0.2) <= 1e-3  # 3 digits\n```\n", ["failed"]),
    "nested.md": ("````markdown\n```console\n$ false\n```\n<!-- docs: slow -->\n````\n", []),
    "slow.md": ("<!-- docs: file a.txt -->\n```text\nfirst\n```\n\n<!-- docs: file a.txt -->\n```text\nsecond\n```\n\n"
                "<!-- docs: slow -->\n```console\n$ cat a.txt\nsecond\n```\n\n```console\n$ echo fast\nfast\n```\n",
                ["passed"] * 4),
}
BAD_PAGES = {
    "bare-skip.md": "<!-- docs: skip -->\n```console\n$ pip install x\n```\n",
    "unknown.md": "<!-- docs: exits 2 -->\n```console\n$ true\n```\n",
    "orphan.md": "<!-- docs: slow -->\nSome prose.\n\n```console\n$ true\n```\n",
}


def run_pages(tmp_path: Path, pages: dict[str, str], *args: str) -> tuple[dict[str, list[str]], str, float]:
    """pytest on ``pages`` with the real docs/conftest.py; (outcomes per page in page order, output, seconds)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(ROOT / "docs" / "conftest.py", docs / "conftest.py")
    (tmp_path / "tests").symlink_to(ROOT / "tests")  # docs/conftest.py finds the runner in ../tests
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: slow\n")
    for name, text in pages.items():
        (docs / name).write_text(text)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
                           "--continue-on-collection-errors", f"--junitxml={tmp_path / 'junit.xml'}", *args,
                           "docs"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    seconds = time.perf_counter() - t0
    outcomes: dict[str, list[tuple[int, str]]] = {}
    for case in ET.parse(tmp_path / "junit.xml").iter("testcase"):
        page = case.get("classname", "").split(".")[-2] + ".md" if "line:" in case.get("name", "") else None
        outcome = ("failed" if case.find("failure") is not None else "error" if case.find("error") is not None
                   else "skipped" if case.find("skipped") is not None else "passed")
        if page is None:  # a collection error: named after the file
            outcomes.setdefault(case.get("name", "") or case.get("classname", ""), []).append((0, outcome))
            continue
        line = int(case.get("name", "").split("line:")[1].split(",")[0])
        outcomes.setdefault(page, []).append((line, outcome))
    return {k: [o for _, o in sorted(v)] for k, v in outcomes.items()}, proc.stdout + proc.stderr, seconds


def test_runner_passes_and_fails_what_it_should(tmp_path):
    outcomes, output, seconds = run_pages(tmp_path, {k: v[0] for k, v in PAGES.items()})
    for name, (_, expected) in PAGES.items():
        assert outcomes.get(name.removesuffix(".md") + ".md", []) == expected, (name, outcomes, output)
    # the timeout ended the command's whole process group (two sleeps of 50 s) after its 1 s
    assert seconds < 45, seconds
    assert "ran past its 1 s timeout" in output
    assert "exited 2, the page expects 0" in output and "exited 1, the page expects 0" in output  # exit-wrong, pipefail
    assert "+x = 0.2142" in output and "-x = 0.2144" in output  # the failure shows the printed and shown lines


def test_slow_blocks_run_only_in_the_slow_tier(tmp_path):
    outcomes, output, _ = run_pages(tmp_path, {"slow.md": PAGES["slow.md"][0]}, "-m", "not slow")
    assert "3 passed, 1 deselected" in output, output
    shutil.rmtree(tmp_path / "docs")
    (tmp_path / "tests").unlink()
    outcomes, output, _ = run_pages(tmp_path, {"slow.md": PAGES["slow.md"][0]}, "-m", "slow")
    # the slow block alone, yet it finds the file the page showed before it, in its last version
    assert "1 passed, 3 deselected" in output, output


def test_a_slow_example_finds_the_files_written_above_it_in_the_slow_tier(tmp_path):
    page = ("<!-- docs: file arm.toml -->\n```toml\nname = \"x\"\n```\n\n"
            "<!-- docs: slow -->\n```console\n$ cat arm.toml\nname = \"x\"\n```\n")
    outcomes, output, _ = run_pages(tmp_path, {"files.md": page}, "-m", "slow")
    assert outcomes == {"files.md": ["passed"]} and "1 passed, 1 deselected" in output, output


@pytest.mark.parametrize("name", sorted(BAD_PAGES))
def test_pages_breaking_the_conventions_fail_the_collection(name):
    text = BAD_PAGES[name]
    with pytest.raises(DocsSyntaxError, match=f"{name}:1: "):
        attach_directives(text, fenced_blocks(text), name)


def test_bad_page_fails_a_real_collection(tmp_path):
    outcomes, output, _ = run_pages(tmp_path, {"bare-skip.md": BAD_PAGES["bare-skip.md"]})
    assert "ERROR collecting docs/bare-skip.md" in output and "needs a reason" in output, output


def test_output_rule():
    assert not output_differences("a   0.2142\n\n  b\n", "a 0.2141\nb")
    assert output_differences("a 0.2142", "a 0.2144")
    assert not output_differences("2.31e-03", "2.30e-03")  # 1e-5 resolution
    assert output_differences("2.32e-03", "2.30e-03")
    assert not output_differences("x\ny\nz\n", "x\n...\n")
    assert not output_differences("x\n", "x\n...\n")  # `...` may stand for no line
    assert output_differences("x\ny\n", "x\n")
    assert not output_differences("took 3.2 s: PASS", "took ... s: PASS")
    assert output_differences("took 3.2 s: FAIL", "took ... s: PASS")
    assert output_differences("something", "")  # no expected lines: nothing may be printed
    # a `...` before a repeated word finds the place whose number agrees, not the first one
    row = "pinocchio ok PASS 201 (8.4e-12 rad) PASS 10800 (0.017 of tol.)"
    assert not output_differences(row, "pinocchio ok PASS ... PASS 10800 (... of tol.)")
    assert output_differences(row, "pinocchio ok PASS ... PASS 10801 (... of tol.)")


def test_documented_commands_run_with_xlas_defaults(monkeypatch):
    """tests/conftest.py's compile shortcut for the tests' own JAX calls is not passed to documented commands (a
    1,000-arm MJX example inheriting it ran past its timeout); other XLA flags a user set are."""
    from docs_runner import command_env

    monkeypatch.setenv("XLA_FLAGS", "--xla_backend_optimization_level=0")
    assert "XLA_FLAGS" not in command_env()
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false --xla_backend_optimization_level=0")
    assert command_env()["XLA_FLAGS"] == "--xla_cpu_multi_thread_eigen=false"
