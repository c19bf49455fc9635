"""Issue 40, the teacher: ``crossdyn check DIR --summary`` as a grader uses it.

A looping submission is named in a "still running" line while it runs and, with ``--timeout-fails``, graded FAIL;
``grades.html`` shows name, verdict, score and diagnosis before any entry column (measured in Chromium at a
desktop's and a phone's width); the rows come in one order everywhere; a C-matrix file and a C q̇ file get the same
score for the same work; a submission that connects to a host name is a violation ("network is disabled"), blocked
attempts the file swallows are recorded, and a report inside a class run names its grade, not an exit code."""
from __future__ import annotations

import csv
import html
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
from pathlib import Path

import pytest

from crossdyn import sandbox
from crossdyn.checking import grading
from crossdyn.checking.grades_document import ClassRun, grades_document
from crossdyn.checking.grading import GradeRow, GradeVerdict
from crossdyn.cli import main

ROOT = Path(__file__).resolve().parent.parent
TEXTBOOK = (ROOT / "tests" / "check_files" / "textbook_2r.py").read_text()    # returns C q̇ (a vector)
C_MATRIX = (ROOT / "examples" / "check" / "my_2r.py").read_text()              # returns the C matrix
needs_bwrap = pytest.mark.skipif(
    not sys.platform.startswith("linux") or sandbox.isolation(sandbox.Policy()).mechanism != "bubblewrap",
    reason="bubblewrap (bwrap) is not installed or cannot create its namespaces here")
BWRAP = sandbox.Isolation("bubblewrap", True, True, sandbox.Limits())


def _entries(n: int, c_matrix: bool, wrong: tuple[str, ...] = ()) -> dict[str, bool]:
    names = [f"M{i}{j}" for i in range(1, n + 1) for j in range(1, n + 1)] + [f"Cqd{i}" for i in range(1, n + 1)]
    names += [f"C{i}{j}" for i in range(1, n + 1) for j in range(1, n + 1)] if c_matrix else []
    names += [f"G{i}" for i in range(1, n + 1)]
    return {e: e not in wrong for e in names}


def test_a_c_matrix_file_and_a_c_vector_file_get_the_same_score_for_the_same_work():
    """Issue 40: they got "24 entries" and "15 entries"; the score counts M, C q̇ and G (n² + 2n = 15 for n = 3)."""
    matrix = GradeRow("a.py", "python", GradeVerdict.WRONG, "", entries=_entries(3, True, ("M12", "M21", "C12")))
    vector = GradeRow("b.py", "python", GradeVerdict.WRONG, "", entries=_entries(3, False, ("M12", "M21")))
    assert len(matrix.entries) == 24 and len(vector.entries) == 15
    assert matrix.score == vector.score == (13, 15) and matrix.score_text == "13/15"
    assert GradeRow("c.py", "python", GradeVerdict.TIMEOUT, "").score_text == "–"      # nothing judged


def test_rows_come_in_one_order_in_the_csv_the_html_and_the_json():
    """Completion order in (carl, Alice, bob) comes out by name, case folded, in every table."""
    rows = [GradeRow(name, "python", GradeVerdict.CORRECT, "all match", entries=_entries(2, False))
            for name in ("carl.py", "Alice.py", "bob.py")]
    expected = ["Alice.py", "bob.py", "carl.py"]
    assert [r["submission"] for r in csv.DictReader(grading.to_csv(rows, 2).splitlines())] == expected
    page = grading.to_html(rows, 2, "class")
    assert [page.index(f">{name}</a>") for name in expected] == sorted(page.index(f">{name}</a>") for name in expected)
    doc = grades_document(ClassRun("planar2r", 2, "class"), rows)
    assert [s["submission"] for s in doc["submissions"]] == expected
    assert doc["submissions"][0]["score"] == {"right": 8, "checked": 8}


def test_grades_html_puts_name_verdict_score_and_diagnosis_before_the_entries():
    rows = [GradeRow("a.py", "python", GradeVerdict.WRONG, "M12: …", entries=_entries(3, True, ("M12",)),
                     structure={"M symmetric": "failed"})]
    page = grading.to_html(rows, 3, "class")
    heads = [h.split("</th>")[0] for h in page.split("<th>")[1:]]
    assert heads[:4] == ["submission", "verdict", "score", "diagnosis"] and heads.index("M11") > 4, heads
    assert ">14/15<" in page                    # M12 wrong of M 9 + Cqd 3 + G 3


def test_timeout_fails_grades_a_timeout_fail():
    row = GradeRow("loop.py", "python", GradeVerdict.TIMEOUT, "", timeout_fails=True)
    assert row.status.value == "FAIL" and GradeRow("l.py", "python", GradeVerdict.TIMEOUT, "").status.value == \
        "INCONCLUSIVE"


@pytest.mark.parametrize("error", [
    socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"),
    socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
    urllib.error.URLError(socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"))],
    ids=["eai-again", "eai-noname", "urllib"])
def test_a_host_name_that_does_not_resolve_in_the_sandbox_is_a_network_attempt(error):
    assert sandbox.violation_of_exception(error, BWRAP) == "network is disabled"
    open_net = sandbox.Isolation("limits only", False, False, sandbox.Limits())
    assert sandbox.violation_of_exception(error, open_net) is None      # a real resolution failure, network open
    wrapped = RuntimeError("the library's own error")
    wrapped.__cause__ = error
    assert sandbox.violation_of_exception(wrapped, BWRAP) == "network is disabled"


@pytest.mark.parametrize("text", ["urlread: Couldn't resolve host name", "error: Could not resolve host: example.com",
                                  "socket.gaierror: [Errno -3] Temporary failure in name resolution"])
def test_a_resolution_failure_in_an_error_text_is_a_network_attempt(text):
    """Octave's curl messages and a Python traceback's last line: the MATLAB side reads these."""
    assert sandbox.violation_of_text(text, BWRAP) == "network is disabled"


def test_the_recorder_counts_what_the_sandbox_blocks_and_nothing_else(tmp_path):
    """The audit hook's judgement, event by event (the real hook in a real sandbox is the test below)."""
    rec = sandbox.AttemptRecorder(tmp_path, BWRAP, [str(tmp_path.parent / "progress")])
    for event, args in [("open", (str(tmp_path / "mine.txt"), "w", 0)), ("open", ("/etc/hostname", "r", 0)),
                        ("open", ("/dev/null", "w", 0)), ("open", (str(tmp_path.parent / "progress"), "r+b", 0)),
                        ("open", (3, "w", 0)), ("os.listdir", ("/",)),
                        ("open", ("/usr/x.txt", None, os.O_WRONLY | os.O_CREAT)), ("os.mkdir", ("/opt/d", 0o777, -1)),
                        ("socket.getaddrinfo", ("example.com", 80, 0, 0, 0)),
                        ("socket.connect", (None, ("10.0.0.1", 443))), ("socket.connect", (None, "/run/x.sock")),
                        ("socket.connect", (None, ("127.0.0.1", 8000))), ("socket.getaddrinfo", ("localhost", 80)),
                        ("socket.getaddrinfo", ("example.com", 80, 0, 0, 0))]:
        rec(event, args)
    assert rec.new() == ["write /usr/x.txt", "create folder /opt/d", "look up host name example.com",
                         "connect to 10.0.0.1:443"]
    assert rec.new() == []
    quiet = sandbox.AttemptRecorder(tmp_path, sandbox.Isolation("off", False, False, None))
    quiet("socket.connect", (None, ("10.0.0.1", 443)))
    quiet("open", ("/usr/x.txt", "w", 0))
    assert quiet.new() == []                    # nothing is blocked without a sandbox: nothing to record


SNEAKY = ("import urllib.request\ntry:\n    open('/usr/stolen.txt', 'w').write('x')\nexcept OSError:\n    pass\n"
          "try:\n    urllib.request.urlopen('http://example.com/', timeout=5)\nexcept Exception:\n    pass\n\n")
HOST = "import socket\nsocket.create_connection(('example.com', 80), timeout=5)\n\n"


@needs_bwrap
@pytest.mark.slow   # a class of three in real sandboxes: ~10 s on a loaded 2-core machine
def test_a_host_name_connection_is_a_violation_and_swallowed_attempts_are_recorded(tmp_path, capsys):
    sub = tmp_path / "class"
    sub.mkdir()
    (sub / "alice.py").write_text(C_MATRIX)
    (sub / "host.py").write_text(HOST + TEXTBOOK)
    (sub / "sneaky.py").write_text(SNEAKY + TEXTBOOK)
    grades = tmp_path / "grades.csv"
    assert main(["check", "planar2r", str(sub), "--summary", str(grades), "--out", str(tmp_path / "r"),
                 "--states", "10", "--random-params", "1", "--jobs", "2", "--timeout", "60"]) == 1
    out = capsys.readouterr().out
    rows = {r["submission"]: r for r in csv.DictReader(grades.open())}
    assert rows["host.py"]["verdict"] == "violation", rows["host.py"]
    assert rows["host.py"]["diagnosis"].startswith("network is disabled"), rows["host.py"]
    assert rows["sneaky.py"]["verdict"] == "correct" and rows["alice.py"]["verdict"] == "correct"
    assert "blocked attempts: write /usr/stolen.txt, look up host name example.com" in rows["sneaky.py"]["diagnosis"]
    assert "blocked" not in rows["alice.py"]["diagnosis_full"]
    assert rows["alice.py"]["score"] == rows["sneaky.py"]["score"] == "8/8"    # C matrix and C q̇ alike
    table = out[out.index("grades, by name"):]
    assert table.index("alice.py (8/8)") < table.index("host.py") < table.index("sneaky.py (8/8)")
    for name, graded in (("host.py", "graded violation, FAIL, in the class table"),
                         ("sneaky.py", "graded correct, PASS, in the class table")):
        for page in ("check.md", "check.html"):
            text = html.unescape((tmp_path / "r" / name / page).read_text())
            assert graded in text and "exit code" not in text, (name, page)
    data = json.loads((tmp_path / "r" / "sneaky.py" / "check.json").read_text())
    assert data["blocked_attempts"] == ["write /usr/stolen.txt", "look up host name example.com"]
    _valid(data, "check")
    grades_doc = json.loads(grades.with_suffix(".json").read_text())
    _valid(grades_doc, "check-summary")
    assert grades_doc["submissions"][2]["blocked_attempts"] == data["blocked_attempts"]
    assert "blocked attempts" in (tmp_path / "r" / "sneaky.py" / "check.md").read_text()


@pytest.mark.slow   # waits for a 14 s timeout
def test_a_looping_submission_is_named_while_it_runs_and_timeout_fails_grades_it_wrong(tmp_path, capsys):
    """The Must-hold: a progress line names the looping file within 25 s; with --timeout-fails the class FAILs.
    The option needs a class: a single file that does not return in time stays INCONCLUSIVE."""
    (tmp_path / "a.py").write_text(TEXTBOOK)
    assert main(["check", "planar2r", str(tmp_path / "a.py"), "--timeout-fails"]) == 2
    assert "--timeout-fails applies to a class folder" in capsys.readouterr().err
    sub = tmp_path / "class"
    sub.mkdir()
    (sub / "loops.py").write_text("import time\nwhile True:\n    time.sleep(0.05)\n" + TEXTBOOK)
    (sub / "good.py").write_text(TEXTBOOK)
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "crossdyn", "check", "planar2r", str(sub), "--summary",
                             str(tmp_path / "grades.csv"), "--out", str(tmp_path / "r"), "--states", "10",
                             "--random-params", "1", "--timeout", "14", "--timeout-fails", "--jobs", "2"],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1"))
    seen = None
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if seen is None and "still running: loops.py" in line:
            seen = time.monotonic() - t0
    assert proc.wait(timeout=120) == 1, "".join(lines)          # the timeout is graded FAIL
    assert seen is not None and seen < 25, ("".join(lines), seen)
    assert any(line.strip().startswith("still running: loops.py (1") and "of 14 s)" in line for line in lines)
    rows = {r["submission"]: r for r in csv.DictReader((tmp_path / "grades.csv").open())}
    assert (rows["loops.py"]["verdict"], rows["loops.py"]["status"]) == ("timeout", "FAIL")
    assert rows["loops.py"]["diagnosis"].endswith("graded FAIL (--timeout-fails)") and rows["good.py"]["status"] == \
        "PASS"
    doc = json.loads((tmp_path / "grades.json").read_text())
    _valid(doc, "check-summary")                              # a timeout graded FAIL is a valid document
    assert doc["timeout_fails"] is True and doc["verdict"] == "FAIL" and doc["exit_code"] == 1


def _valid(doc: dict, command: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from crossdyn.cli import common

    jsonschema.validate(doc, json.loads(common.schema_text(command)))


def _grades_probe(page: str, width: int, height: int) -> str:
    """A page showing grades.html in a ``width`` px frame; its body gets the first four column heads and how far
    right the fourth (diagnosis) column reaches, against the frame's width."""
    script = ("const f = document.getElementById('f');"
              "function probe() { const d = f.contentDocument, b = document.body.dataset;"
              "  const th = [...d.querySelectorAll('th')]; b.heads = th.slice(0, 4).map(x => x.textContent).join('|');"
              "  const cells = [...d.querySelectorAll('tr')].map(r => r.children[3]);"
              "  b.diagnosisRight = Math.ceil(Math.max(...cells.map(c => c.getBoundingClientRect().right)));"
              "  b.nameLeft = Math.floor(th[0].getBoundingClientRect().left);"
              "  b.inner = f.contentWindow.innerWidth; b.page = d.documentElement.scrollWidth; }"
              "f.addEventListener('load', probe);")
    return ("<!DOCTYPE html><html><body style='margin:0'>"
            f"<iframe id='f' style='width:{width}px;height:{height}px;border:0' "
            f'srcdoc="{html.escape(page, quote=True)}"></iframe><script>{script}</script></body></html>')


@pytest.mark.slow   # Chromium, twice
@pytest.mark.parametrize("width, height", [(1366, 900), (390, 844)], ids=["desktop", "phone"])
def test_grades_html_shows_name_verdict_score_and_diagnosis_first_in_a_browser(tmp_path, width, height):
    """At 1366 px the four columns a teacher reads are on screen without scrolling sideways; at 390 px the table
    scrolls in its own box (the page does not) and those four come first."""
    from browser_probe import chromium, dump_body

    chromium()
    long = "M12: cos(q2) term: yours has m2*L1 where m2*L1*Lc2 belongs; " * 4
    rows = [GradeRow(f"student_{k:02d}_with_a_long_name.py", "python", GradeVerdict.WRONG, grading._one_line(long),
                     entries=_entries(3, True, ("M12",)), structure={s: "ok" for s in grading.STRUCTURE},
                     diagnosis_full=long) for k in range(3)]
    found = dump_body(_grades_probe(grading.to_html(rows, 3, "crossdyn check planar3r: class"), width, height),
                      width, height, tmp_path)
    assert found.get("data-heads") == "submission|verdict|score|diagnosis", found["body"]
    inner, page = int(found["data-inner"]), int(found["data-page"])
    assert inner == width and page <= inner, found["body"]               # the table scrolls, not the page
    if width >= 1366:
        assert int(found["data-name-left"]) >= 0 and int(found["data-diagnosis-right"]) <= inner, found["body"]


@needs_bwrap
@pytest.mark.skipif(shutil.which("octave-cli") is None, reason="GNU Octave (octave-cli) is not installed")
@pytest.mark.slow   # an Octave session in a sandbox: ~3-8 s
def test_a_matlab_file_reading_a_url_by_host_name_is_a_violation(tmp_path, capsys):
    matlab = (ROOT / "tests" / "check_files" / "matlab" / "textbook_2r.m").read_text().splitlines(keepends=True)
    assert matlab[0].startswith("1;")
    (tmp_path / "host.m").write_text("1;\ns = urlread('http://example.com/');\n" + "".join(matlab[1:]))
    assert main(["check", "planar2r", str(tmp_path / "host.m"), "--states", "10", "--random-params", "1",
                 "--out", str(tmp_path / "r")]) == 2
    data = json.loads((tmp_path / "r" / "check.json").read_text())
    assert (data["verdict"], data["violation"]) == ("violation", "network is disabled"), data
    assert "resolve host" in data["error"] or "resolve host" in (data["user_traceback"] or ""), data


def test_a_report_inside_a_class_run_names_the_grade_not_an_exit_code(monkeypatch):
    """The grader sets CLASS_RUN for each submission's check; its reports then say what the class makes of it."""
    from crossdyn.checking import report

    monkeypatch.delenv(grading.CLASS_RUN, raising=False)
    assert report.exit_words(2, "violation") == "exit code 2"
    monkeypatch.setenv(grading.CLASS_RUN, "1")
    assert report.exit_words(2, "violation") == "graded violation, FAIL, in the class table"
    assert report.exit_words(3, "timeout") == "graded timeout, INCONCLUSIVE, in the class table"
    monkeypatch.setenv(grading.CLASS_RUN, "timeout-fails")
    assert report.exit_words(3, "timeout") == "graded timeout, FAIL, in the class table"
