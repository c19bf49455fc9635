"""`crossdyn check ARM FOLDER --summary grades.csv`: a whole class at once.

A folder holding a correct MATLAB file, a broken Python file, a MATLAB file that errors, a Python file that
never returns and a sub-folder of MATLAB function files gives one row each with the right verdict; the
never-ending one is stopped at the timeout and does not hold up the others (they run in parallel processes).
"""
import csv
import time
from pathlib import Path

import pytest

from crossdyn.cli import main
from crossdyn.equations.octave_session import find_octave

FILES = Path(__file__).parent / "check_files"
TIMEOUT = 20     # seconds per submission: a 100-state check takes ~2 s idle, ~10 s on a loaded 2-core machine


@pytest.mark.slow
@pytest.mark.skipif(find_octave() is None, reason="GNU Octave (octave-cli) is not installed")
def test_a_class_folder_gives_one_row_per_submission(tmp_path, capsys):
    sub = tmp_path / "submissions"
    sub.mkdir()
    (sub / "alice.m").write_text((FILES / "matlab/textbook_2r.m").read_text())
    (sub / "bob.py").write_text((FILES / "textbook_2r.py").read_text().replace(
        "m12 = p.J2 + p.m2 * (p.Lc2**2 + p.L1 * p.Lc2 * c2)", "m12 = p.J2 + p.m2 * (p.Lc2**2 + p.L1 * c2)"))
    (sub / "carol.m").write_text((FILES / "matlab/textbook_2r.m").read_text().replace(
        "  g2 = p.m2*p.g*p.Lc2*cos(q(1) + q(2));", "  g2 = p.m2*p.g*p.Lc2*cos(q(1) + q(2)) + undefined_thing;"))
    (sub / "dave.py").write_text((FILES / "textbook_2r.py").read_text().replace(
        "def G(q, p):\n", "def G(q, p):\n    while True:\n        pass\n"))
    (sub / "erin").mkdir()
    for f in (FILES / "matlab/pointmass_2r").iterdir():      # M, C, G as function files, for point masses
        (sub / "erin" / f.name).write_text(f.read_text())
    (sub / "notes.txt").write_text("not a submission")
    grades = tmp_path / "grades.csv"
    t0 = time.perf_counter()
    code = main(["check", "planar2r", str(sub), "--summary", str(grades), "--out", str(tmp_path / "reports"),
                 "--timeout", str(TIMEOUT), "--states", "100", "--random-params", "2"])
    wall = time.perf_counter() - t0
    assert code == 1                                           # not everyone is correct: FAIL wins over INCONCLUSIVE
    out = capsys.readouterr().out
    assert "skipped (not .py/.m): notes.txt" in out
    rows = {r["submission"]: r for r in csv.DictReader(grades.open())}
    assert list(rows) == ["alice.m", "bob.py", "carol.m", "dave.py", "erin"]
    verdict = {k: r["verdict"] for k, r in rows.items()}
    assert verdict == {"alice.m": "correct", "bob.py": "wrong", "carol.m": "unusable", "dave.py": "timeout",
                       "erin": "wrong"}                        # erin's point-mass equations, on rods
    assert {k: r["status"] for k, r in rows.items()} == {"alice.m": "PASS", "bob.py": "FAIL", "carol.m": "FAIL",
                                                          "dave.py": "INCONCLUSIVE", "erin": "FAIL"}
    for name in ("alice.m", "bob.py", "erin"):                 # values compared (100 states x 3 sets) + structure
        assert int(rows[name]["checks"]) == _expected_checks(rows[name], 100 * 3), name
    assert rows["carol.m"]["checks"] == rows["dave.py"]["checks"] == "0"    # nothing judged
    assert "verdict: FAIL (1 PASS, 3 FAIL, 1 INCONCLUSIVE; " in out
    # per entry: bob's M12 (and its mirror M21) fail, the rest pass
    assert rows["bob.py"]["M12"] == rows["bob.py"]["M21"] == "fail"
    assert rows["bob.py"]["M11"] == rows["bob.py"]["G1"] == rows["bob.py"]["C21"] == "pass"
    assert all(rows["alice.m"][c] == "pass" for c in ("M11", "M12", "C11", "C21", "G1", "G2", "M symmetric"))
    assert "M12" in rows["bob.py"]["diagnosis"] and "cos(q2)" in rows["bob.py"]["diagnosis"]
    assert "undefined_thing" in rows["carol.m"]["diagnosis"] and "line 19" in rows["carol.m"]["diagnosis"]
    assert f"did not finish within {TIMEOUT} s" in rows["dave.py"]["diagnosis"]
    assert rows["erin"]["language"] == "matlab" and rows["erin"]["C11"] == ""   # C qd only: no matrix entries
    # the endless one was stopped at the timeout while the others ran beside it
    assert float(rows["dave.py"]["runtime_s"]) < TIMEOUT + 10
    assert wall < 2 * TIMEOUT + 30
    html = grades.with_suffix(".html").read_text()
    assert html.count("<tr>") == 6 and "class='timeout'" in html and "alice.m/check.html" in html
    assert (tmp_path / "reports" / "alice.m" / "check.json").is_file()


def _expected_checks(row: dict, per_entry: int) -> int:
    """A grades.csv row's checks from its own columns: each entry compared at every state of every parameter set,
    plus each structural check made (not skipped)."""
    from crossdyn.checking.grading import STRUCTURE

    entries = [c for c in row if c[:1] in "MCG" and c[1:2].isdigit() or c.startswith("Cqd")]
    made = [c for c in STRUCTURE if row.get(c) not in (None, "", "skipped")]
    return sum(row[c] != "" for c in entries) * per_entry + len(made)


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_class_status_and_checks_and_the_exit_table(tmp_path, capsys):
    """grades.csv's status (PASS for correct, FAIL for wrong) and checks (entries x states x parameter sets +
    structural checks); the class exits FAIL 1 when one fails, PASS 0 when all pass; one file alone prints its
    checks, and they agree with its row."""
    sub = tmp_path / "class"
    sub.mkdir()
    good = (FILES / "textbook_2r.py").read_text()
    (sub / "good.py").write_text(good)
    (sub / "bad.py").write_text(good.replace("m12 = p.J2 + p.m2 * (p.Lc2**2 + p.L1 * p.Lc2 * c2)",
                                             "m12 = p.J2 + p.m2 * (p.Lc2**2 + p.L1 * c2)"))
    args = ["--states", "20", "--random-params", "1", "--jobs", "2", "--timeout", "120"]
    grades = tmp_path / "grades.csv"
    assert main(["check", "planar2r", str(sub), "--summary", str(grades), "--out", str(tmp_path / "r"), *args]) == 1
    rows = {r["submission"]: r for r in csv.DictReader(grades.open())}
    assert {k: (r["verdict"], r["status"]) for k, r in rows.items()} == {"bad.py": ("wrong", "FAIL"),
                                                                          "good.py": ("correct", "PASS")}
    for r in rows.values():
        assert int(r["checks"]) == _expected_checks(r, 20 * 2) > 20 * 2
    assert "verdict: FAIL (1 PASS, 1 FAIL, 0 INCONCLUSIVE; " in capsys.readouterr().out
    (sub / "bad.py").unlink()
    assert main(["check", "planar2r", str(sub), "--summary", str(grades), "--out", str(tmp_path / "r2"), *args]) == 0
    # the single file: the same count, printed and in check.json
    assert main(["check", "planar2r", str(sub / "good.py"), "--states", "20", "--random-params", "1",
                 "--out", str(tmp_path / "one")]) == 0
    import json

    data = json.loads((tmp_path / "one" / "check.json").read_text())
    assert data["status"] == "PASS" and data["checks"]["total"] == int(rows["good.py"]["checks"])
    assert data["checks"]["M"] == 4 * 20 * 2 and data["checks"]["G"] == 2 * 20 * 2
    assert f"verdict: PASS ({data['checks']['total']} checks: M 160, " in capsys.readouterr().out


def test_summary_needs_a_folder_and_a_csv(tmp_path, capsys):
    f = FILES / "textbook_2r.py"
    assert main(["check", "planar2r", str(f), "--summary", str(tmp_path / "g.csv")]) == 2
    assert "needs a folder of submissions" in capsys.readouterr().err
    assert main(["check", "planar2r", str(tmp_path), "--summary", str(tmp_path / "g.txt")]) == 2
    assert "give a .csv file name" in capsys.readouterr().err
    assert main(["check", "planar2r", str(tmp_path), "--summary", str(tmp_path / "g.csv")]) == 2
    assert "holds no submissions" in capsys.readouterr().err
    assert main(["check", "planar2r", str(f), "--jobs", "2"]) == 2
    assert "--jobs applies to a class folder" in capsys.readouterr().err


def test_a_class_with_matlab_files_and_no_octave_is_a_usage_error_not_their_fail(tmp_path, capsys, monkeypatch):
    """Without Octave a MATLAB submission cannot be run: the machine's fault, not the submission's FAIL."""
    monkeypatch.setenv("CROSSDYN_OCTAVE", str(tmp_path / "no-octave-here"))
    (tmp_path / "alice.m").write_text((FILES / "matlab/textbook_2r.m").read_text())
    grades = tmp_path / "grades.csv"
    assert main(["check", "planar2r", str(tmp_path), "--summary", str(grades), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "MATLAB submissions (alice.m)" in err and "octave-cli" in err and not grades.exists()


@pytest.mark.skipif(find_octave() is None, reason="GNU Octave (octave-cli) is not installed")
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="the process table is read from /proc (Linux)")
@pytest.mark.slow  # 3-10 s: make test's 7-minute budget (the slow tier runs it in CI)
def test_a_timed_out_matlab_submission_leaves_no_process_behind(tmp_path):
    """Issue 23, case 6: a MATLAB submission that never returns is stopped at the timeout, and neither the check
    nor the Octave it started (in a session of its own) is left running.  The test tags the whole command with an
    environment variable of its own and scans the process table for it once the command has returned."""
    import os
    import subprocess
    import sys
    import uuid

    from crossdyn.processes import tagged_pids

    sub = tmp_path / "submissions"
    sub.mkdir()
    (sub / "loops.m").write_text((FILES / "matlab/textbook_2r.m").read_text().replace(
        "function out = M(q, p)\n", "function out = M(q, p)\n  while true\n  end\n"))
    tag = uuid.uuid4().hex
    env = dict(os.environ, CROSSDYN_TEST_TAG=tag)
    proc = subprocess.run([sys.executable, "-m", "crossdyn", "check", "planar2r", str(sub), "--summary",
                           str(tmp_path / "grades.csv"), "--out", str(tmp_path / "reports"), "--timeout", "6"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr                  # the only submission could not be judged
    rows = list(csv.DictReader((tmp_path / "grades.csv").open()))
    assert [(r["verdict"], r["status"], r["checks"]) for r in rows] == [("timeout", "INCONCLUSIVE", "0")]
    assert rows[0]["diagnosis"].startswith("timed out in M(q, p): "), rows[0]   # issue 25: Octave says where it was
    time.sleep(0.5)  # a killed process is reaped by init: let it go
    left = tagged_pids(tag, variable="CROSSDYN_TEST_TAG")
    for pid in left:  # do not leave them for the next test either
        os.kill(pid, 9)
    assert not left, f"processes left running after the command returned: {left}"


def _class_folder(tmp_path, files: dict) -> Path:
    sub = tmp_path / "submissions"
    sub.mkdir()
    for name, text in files.items():
        (sub / name).write_text(text)
    return sub


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
@pytest.mark.parametrize("relative_out", [False, True], ids=["absolute-out", "relative-out"])
def test_a_timed_out_row_names_the_call_that_was_running(tmp_path, capsys, monkeypatch, relative_out):
    """Issue 25: a Python submission whose C never returns is stopped at the timeout and its row says it was in C
    (the check writes the call it is in to a file the grader reads after killing it); one that never finishes
    importing says so; neither leaves its progress file in the reports.  With a relative --out too (the default
    crossdyn-report/...): the sandboxed worker, in a folder of its own, once got the progress file's relative name
    and the row lost the call."""
    textbook = (FILES / "textbook_2r.py").read_text()
    sub = _class_folder(tmp_path, {
        "in_c.py": textbook.replace("def C(q, qd, p):\n", "def C(q, qd, p):\n    while True:\n        pass\n"),
        "at_import.py": "while True:\n    pass\n" + textbook})
    grades = tmp_path / "grades.csv"
    monkeypatch.chdir(tmp_path)
    out = "reports" if relative_out else str(tmp_path / "reports")
    code = main(["check", "planar2r", str(sub), "--summary", str(grades), "--out", out,
                 "--timeout", "3", "--states", "10", "--random-params", "1", "--jobs", "2"])
    assert code == 3                                             # nothing judged: INCONCLUSIVE
    rows = {r["submission"]: r for r in csv.DictReader(grades.open())}
    assert rows["in_c.py"]["verdict"] == rows["at_import.py"]["verdict"] == "timeout"
    assert rows["in_c.py"]["diagnosis"] == "timed out in C(q, qd, p): did not finish within 3 s (stopped)"
    assert rows["at_import.py"]["diagnosis"] == ("timed out in importing at_import.py: did not finish within 3 s "
                                                 "(stopped)")
    assert "in_c.py: timed out in C(q, qd, p)" in capsys.readouterr().out
    assert not list((tmp_path / "reports").rglob(".running"))


def test_grades_csv_keeps_the_whole_diagnosis(tmp_path):
    """Issue 25: a submission with nine wrong entries has a diagnosis longer than the 240-character column: the
    ``diagnosis_full`` column holds all of it (every failing entry named), the HTML table shows it under the line."""
    text = (FILES / "textbook_2r.py").read_text()
    for old, new in (("m11 = p.J1 + p.J2 + p.m1", "m11 = p.J1 + p.m1"), ("m22 = p.J2 + p.m2", "m22 = p.m2"),
                     ("p.Lc2 * sin(q[1])", "p.L2 * cos(q[1])"), ("g2 = p.m2 * p.g * p.Lc2", "g2 = p.m2 * p.g * p.L2"),
                     ("(p.m1 * p.Lc1 + p.m2 * p.L1) * p.g * c1 + g2", "(p.m1 * p.L1 + p.m2 * p.L1) * p.g * c1")):
        assert old in text
        text = text.replace(old, new)
    sub = _class_folder(tmp_path, {"many.py": text})
    grades = tmp_path / "grades.csv"
    assert main(["check", "planar2r", str(sub), "--summary", str(grades), "--out", str(tmp_path / "reports"),
                 "--states", "20", "--random-params", "1"]) == 1
    (row,) = csv.DictReader(grades.open())
    failing = [c for c in row if c[:1] in "MCG" and (c[1:2].isdigit() or c.startswith("Cqd")) and row[c] == "fail"]
    assert len(failing) >= 9, failing
    short, full = row["diagnosis"], row["diagnosis_full"]
    assert len(short) == 240 and short.endswith("…") and full.startswith(short[:-1]) and len(full) > 400
    assert all(f"{c}: " in full for c in failing), (failing, full)   # every failing entry, not only the first five
    assert not all(f"{c}: " in short for c in failing)
    assert "failed: M positive definite" in full                        # the structural checks, at the end
    import html as html_mod
    page = grades.with_suffix(".html").read_text()
    assert f"<summary>{html_mod.escape(short)}</summary><pre class='full'>{html_mod.escape(full)}</pre>" in page


def test_friction_entries_get_columns_after_g():
    """A class checked on an arm with friction: F1…Fn (the files' friction functions) get columns after G."""
    from crossdyn.checking.grading import GradeRow, GradeVerdict, to_csv

    rows = [GradeRow("a.py", "python", GradeVerdict.WRONG, "F1: …", entries={"M11": True, "G1": True, "F1": False}),
            GradeRow("b.py", "python", GradeVerdict.CORRECT, "all match", entries={"M11": True, "G1": True})]
    head, a, b = (line.split(",") for line in to_csv(rows, 1).splitlines())
    k = head.index("M11")
    assert head[k:k + 3] == ["M11", "G1", "F1"] and a[k:k + 3] == ["pass", "pass", "fail"] and b[k + 2] == ""
    assert a[head.index("score")] == "2/2" and b[head.index("score")] == "2/2"   # F is a column, not score


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_a_folder_submission_imports_its_helper_module_and_a_lone_file_sees_no_one_elses(tmp_path):
    """A sub-folder submission is copied whole into its sandbox (default --sandbox auto): its file imports the
    helper module beside it and is graded correct.  A lone file in the class folder is copied alone: importing
    another student's file beside it fails (unusable), and that student is graded as before."""
    textbook = (FILES / "textbook_2r.py").read_text()
    sub = _class_folder(tmp_path, {
        "dave.py": "import erin  # another student's file, beside this one\n" + textbook,
        "erin.py": textbook})
    (sub / "carol").mkdir()
    (sub / "carol" / "helpers.py").write_text("from math import cos\n\n\ndef c2(q):\n    return cos(q[1])\n")
    (sub / "carol" / "carol.py").write_text(textbook.replace("from math import cos, sin\n",
                                                             "from math import cos, sin\n\nimport helpers\n")
                                            .replace("    c2 = cos(q[1])\n", "    c2 = helpers.c2(q)\n"))
    grades = tmp_path / "grades.csv"
    code = main(["check", "planar2r", str(sub), "--summary", str(grades), "--out", str(tmp_path / "reports"),
                 "--states", "10", "--random-params", "1", "--jobs", "2"])
    rows = {r["submission"]: r for r in csv.DictReader(grades.open())}
    assert code == 1, rows                                       # dave FAILs (unusable)
    assert rows["carol"]["verdict"] == "correct" and rows["erin.py"]["verdict"] == "correct", rows
    assert rows["carol"]["sandbox"] and not rows["carol"]["sandbox"].startswith("off"), rows["carol"]
    assert rows["dave.py"]["verdict"] == "unusable", rows["dave.py"]
    assert "No module named 'erin'" in rows["dave.py"]["diagnosis"], rows["dave.py"]
