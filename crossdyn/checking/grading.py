"""Checking a whole class at once: ``crossdyn check ARM submissions/ --summary grades.csv``.

Every Python (``.py``) and MATLAB (``.m``) submission in the folder — one file, or one
sub-folder, each — is checked by ``crossdyn check`` in a process of its own, several at a time
(``jobs``, default: the number of cores).  A submission that cannot be used, crashes the
check or does not finish within ``timeout`` seconds (its process group is killed) is recorded
as such and does not stop the others.  One row per submission: the verdict, pass/fail per
entry of M, C q̇, C (when a matrix is returned) and G, the structural checks, a one-line
diagnosis (``diagnosis``, cut at 240 characters) and the whole of it (``diagnosis_full``: every finding, the
user's traceback, the end of a crashed check's output); written as CSV and as an HTML table beside it
(atomically).  A submission stopped at the timeout names the call that was running when it was stopped
(``timed out in C(q, qd, p): …``), which the check writes as it goes (:mod:`crossdyn.equations.progress`).

Verdicts: ``correct`` (exit 0), ``wrong`` (1), ``unusable`` (2: the file cannot be used —
syntax error, missing functions, wrong shapes, an exception inside a function …), ``violation`` (2, and
``check.json`` says the submission broke a limit or tried something the sandbox blocks: "exceeded 2 GiB",
"network is disabled", "write outside its folder blocked: read-only file system", "exceeded 64 processes",
"exceeded 60 s CPU"; :mod:`crossdyn.sandbox`), ``timeout``, ``crashed`` (the check process died).

Every submission's code runs sandboxed (``--sandbox``, default auto: each Python worker or Octave session in
its own folder, read-only filesystem, no network, limits on memory, CPU, processes and file size); the table
states the isolation in force (its ``sandbox`` column, and a line of the HTML page).

Each row's ``status`` says the same in the words every command shares (:class:`crossdyn.status.Verdict`,
:data:`STATUS`): ``correct`` PASS; ``wrong`` FAIL; ``unusable`` FAIL (in a class the submission is what is judged:
a file that cannot be used is a departure from what was asked, unlike ``check ARM FILE`` alone, where it is the
command's input and exits 2); ``violation`` FAIL, for the same reason and more: the submission did something no
correct submission does (a limit broken, a blocked action tried), which is a departure from what was asked, not a
lack of evidence (INCONCLUSIVE would invite a larger limit).  ``check ARM FILE`` alone exits 2 for a violation,
as for an unusable file: nothing was judged about the equations (0 checks), the input cannot be used as given,
and ``check.json``'s verdict ``violation`` with its reason says why; ``timeout`` and ``crashed`` INCONCLUSIVE (nothing was compared: an endless loop and a
slow machine look the same, so the row says so and a larger ``--timeout`` may judge it).  ``checks`` counts what a
row's verdict rests on: values compared (entries × states × parameter sets) plus structural checks (0 when nothing
was judged).  The class's verdict combines the rows' (FAIL over INCONCLUSIVE over PASS).  With ``timeout_fails``
(``--timeout-fails``) a timeout is FAIL: the grader knows the correct files finish well within the timeout.

While a class runs, ``still_running`` is called every :data:`STILL_RUNNING_EVERY` s per running submission (the
command prints ``still running: NAME (20 s of 120 s)``).  A row's ``score`` counts the entries of M, C q̇ and G
(:data:`SCORED`); every table lists the rows in one order (:func:`order`, by name).
"""
from __future__ import annotations

import csv
import dataclasses
import enum
import html
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crossdyn import processes
from crossdyn.equations import progress
from crossdyn.equations.submission import ALONE, SUBMISSION_FOLDER
from crossdyn.status import Verdict

CLASS_RUN = "CROSSDYN_CLASS_RUN"
"""Set by the grader for each submission's check ("1", or "timeout-fails"): its reports then say how the submission
is graded in the class, not the exit code of a check that nobody runs alone."""

DEFAULT_TIMEOUT = 120.0
STILL_RUNNING_EVERY = 10.0
"""Seconds between two "still running: NAME (20 s of 120 s)" lines of one submission (the first after 10 s)."""
SCORED = ("M", "Cqd", "G")
"""The entries a row's score counts: M, C q̇ (derived from the C matrix when a file returns one) and G, so that a
C-matrix file and a C q̇ file get the same score for the same work (n² + 2n entries); C's own entries and F are
columns, not score."""
STRUCTURE = ("M symmetric", "M positive definite", "Mdot - 2C skew-symmetric", "C is the Christoffel matrix",
             "energy conserved in free motion")


class GradeVerdict(str, enum.Enum):
    """What became of one submission: the check's verdict (exit 0, 1, 2), or how its process ended."""

    CORRECT = "correct"
    WRONG = "wrong"
    UNUSABLE = "unusable"
    VIOLATION = "violation"      # broke a sandbox limit or tried a blocked action (the reason is kept)
    TIMEOUT = "timeout"
    CRASHED = "crashed"

    def __str__(self) -> str:
        return self.value


STATUS = {GradeVerdict.CORRECT: Verdict.PASS, GradeVerdict.WRONG: Verdict.FAIL, GradeVerdict.UNUSABLE: Verdict.FAIL,
          GradeVerdict.VIOLATION: Verdict.FAIL, GradeVerdict.TIMEOUT: Verdict.INCONCLUSIVE, GradeVerdict.CRASHED: Verdict.INCONCLUSIVE}
"""A submission's verdict in the shared words (see the module docstring)."""


@dataclass(frozen=True)
class GradeOptions:
    """How a class is checked: ``jobs`` submissions at once (default: the number of cores), ``timeout`` seconds
    each at most, and the options passed on to every ``crossdyn check`` (None: its default)."""

    jobs: int | None = None
    timeout: float = DEFAULT_TIMEOUT
    states: int | None = None
    random_params: int | None = None
    seed: int | None = None
    names: str | None = None
    sandbox: tuple[str, ...] = ()       # --sandbox/--limits arguments passed on to every check
    timeout_fails: bool = False         # a submission stopped at the timeout is graded FAIL, not INCONCLUSIVE
    still_running_every: float = STILL_RUNNING_EVERY   # seconds between "still running" calls per submission


@dataclass(frozen=True)
class Submission:
    name: str           # the folder entry's name
    path: Path          # what is checked: a .py file, a .m file or a folder of .m files
    language: str       # "python" | "matlab"
    folder: bool = False  # a sub-folder of the class folder (its other files belong to it: helper modules)


@dataclass
class GradeRow:
    """One submission's row of the class table (filled in as its check's outcome is read)."""

    submission: str
    language: str
    verdict: GradeVerdict
    diagnosis: str
    entries: dict = field(default_factory=dict)     # "M11" -> True/False
    structure: dict = field(default_factory=dict)   # check name -> ok | failed | note | skipped
    runtime_s: float = 0.0
    file: str = ""
    checks: int = 0                                 # values compared + structural checks (check.json's total)
    diagnosis_full: str = ""                        # the whole diagnosis (``diagnosis`` is its first 240 chars)
    sandbox: str = ""                               # the isolation the check ran the submission under
    timeout_fails: bool = False                     # graded with --timeout-fails: a timeout is FAIL
    blocked: tuple[str, ...] = ()                   # blocked attempts the file swallowed (check.json's list)

    @property
    def status(self) -> Verdict:
        """PASS, FAIL or INCONCLUSIVE (:data:`STATUS`; a timeout is FAIL when graded with ``timeout_fails``)."""
        if self.verdict == GradeVerdict.TIMEOUT and self.timeout_fails:
            return Verdict.FAIL
        return STATUS[GradeVerdict(self.verdict)]

    @property
    def score(self) -> tuple[int, int]:
        """(entries right, entries checked) among M, C q̇ and G (:data:`SCORED`); (0, 0) when nothing was judged."""
        scored = [ok for name, ok in self.entries.items() if _scored(name)]
        return sum(scored), len(scored)

    @property
    def score_text(self) -> str:
        """``"14/15"``, or ``"–"`` when nothing was judged."""
        right, checked = self.score
        return f"{right}/{checked}" if checked else "–"


def _scored(entry: str) -> bool:
    """Whether ``entry`` (M11, Cqd2, C1,2, G3, F1) counts in the score (:data:`SCORED`)."""
    if entry.startswith("Cqd"):
        return True
    return entry[:1] in ("M", "G") and entry[1:2].isdigit()


def order(rows: list[GradeRow]) -> list[GradeRow]:
    """The one order of the rows everywhere (terminal table, CSV, HTML, JSON): by submission name, case folded."""
    return sorted(rows, key=lambda r: (r.submission.casefold(), r.submission))


def find_submissions(folder: str | Path) -> tuple[list[Submission], list[str]]:
    """(submissions, skipped entry names) in ``folder``, sorted by name.

    A ``.py`` or ``.m`` file is one submission; a sub-folder is one submission: its only ``.py``
    file (or the one defining M/C/G when there are several), else its ``.m`` files (function files,
    or its only ``.m`` script).
    """
    folder = Path(folder)
    subs, skipped = [], []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_file():
            ext = entry.suffix.lower()
            if ext in (".py", ".m"):
                subs.append(Submission(entry.name, entry, "python" if ext == ".py" else "matlab"))
            else:
                skipped.append(entry.name)
        elif entry.is_dir():
            py = sorted(p for p in entry.glob("*.py") if not p.name.startswith("_"))
            ms = sorted(entry.glob("*.m"))
            if py:
                pick = py[0] if len(py) == 1 else next((p for p in py if _defines_roles(p)), py[0])
                subs.append(Submission(entry.name, pick, "python", folder=True))
            elif len(ms) == 1 and ms[0].stem not in ("M", "C", "G", "mass_matrix", "coriolis", "gravity", "bias"):
                subs.append(Submission(entry.name, ms[0], "matlab", folder=True))
            elif ms:
                subs.append(Submission(entry.name, entry, "matlab", folder=True))
            else:
                skipped.append(entry.name + "/")
    return subs, skipped


def _defines_roles(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(f"def {n}(" in text for n in ("M", "C", "G", "mass_matrix", "coriolis", "gravity"))


def _one_line(text: str, limit: int = 240) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def diagnosis_line(data: dict) -> str:
    """The one-line diagnosis of a ``check.json`` (:func:`diagnosis_text` cut to 240 characters)."""
    return _one_line(diagnosis_text(data))


def diagnosis_text(data: dict) -> str:
    """The whole diagnosis of a ``check.json``: every finding (a file that cannot be used: the error, where, and the
    user's traceback on the lines after it)."""
    verdict = data.get("verdict")
    if verdict == "unusable":
        s = data.get("error", "cannot be used")
        if data.get("where"):
            s += f" ({data['where']})"
        return s + (f"\n{data['user_traceback'].rstrip()}" if data.get("user_traceback") else "")
    if verdict == "correct":
        notes = [s["name"] for s in data.get("structure", []) if s.get("status") == "note"]
        names = [e["entry"] for e in data.get("entries", [])]
        c_matrix = sum(x[:1] == "C" and not x.startswith("Cqd") for x in names)
        friction = sum(x[:1] == "F" for x in names)
        more = [f"and the {k} of {w}" for w, k in (("the C matrix", c_matrix), ("F", friction)) if k]
        return (f"all {sum(_scored(x) for x in names)} entries of M, C qd and G match"
                + (f" ({', '.join(more)})" if more else "") + (f" (note: {', '.join(notes)})" if notes else ""))
    parts = []
    explained = set()
    for x in data.get("explanations", []):          # one mistake that explains several entries comes first
        parts.append(x["text"])
        explained.update(x.get("entries", []))
    if not parts:
        parts += list(data.get("hints", []))[:1]
    for f in data.get("findings", []):
        if f.get("status") != "wrong" or f["entry"] in explained:
            continue
        t = next((t for t in f.get("terms", []) if t.get("reading")), None)
        reading = None
        if t is not None:
            what = "constant term" if t["term"] == "1" else f"{t['term']} term"
            reading = f"{what}: {t['reading']}"
        if reading is None and f.get("quantity") == "F" and f.get("messages"):   # the friction law it follows
            reading = f["messages"][0]
        if reading is None and f.get("terms"):
            t = f["terms"][0]
            what = "constant term" if t["term"] == "1" else f"{t['term']} term"
            from crossdyn.checking import diagnosis

            reading = f"{what} {diagnosis.fmt(t['found'])}, expected {diagnosis.fmt(t['expected'])}"
        if reading is None:
            reading = f"max error {f['max_abs_error']:.3g} {f['unit']}"
        parts.append(f"{f['entry']}: {reading}")
    failed = [s["name"] for s in data.get("structure", []) if s.get("status") == "failed"]
    if failed:
        parts.append("failed: " + ", ".join(failed))
    return "; ".join(parts) or "wrong"


def _wait(proc: subprocess.Popen, timeout: float, every: float, tick: Callable[[float], Any] | None) -> int | None:
    """The exit status of ``proc``, or None when it has not ended within ``timeout`` s; ``tick(elapsed)`` is called
    every ``every`` s while it runs (a "still running" line)."""
    t0 = time.monotonic()
    while True:
        left = timeout - (time.monotonic() - t0)
        if left <= 0:
            return None
        try:
            return proc.wait(timeout=min(left, every) if tick is not None else left)
        except subprocess.TimeoutExpired:
            elapsed = time.monotonic() - t0
            if tick is not None and elapsed < timeout:
                tick(elapsed)


def check_one(arm: str, sub: Submission, out_dir: Path, options: GradeOptions,
              still_running: Callable[[str, float, float], Any] | None = None) -> GradeRow:
    """Run ``crossdyn check`` on one submission in a process of its own (killed after ``options.timeout`` s);
    ``still_running(name, elapsed, timeout)`` is called every ``options.still_running_every`` s while it runs."""
    timeout = options.timeout
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "crossdyn", "check", str(arm), str(sub.path), "--out", str(out_dir),
           "--timeout", f"{timeout:g}"]
    for opt, val in (("--states", options.states), ("--random-params", options.random_params),
                     ("--seed", options.seed), ("--names", options.names)):
        if val is not None:
            cmd += [opt, str(val)]
    cmd += list(options.sandbox)
    t0 = time.perf_counter()
    row = GradeRow(sub.name, sub.language, GradeVerdict.CRASHED, "", file=str(sub.path),
                   timeout_fails=options.timeout_fails)
    tag = processes.new_tag()  # carried by the check and everything it starts (Octave, a student's system())
    running = progress.create(out_dir.resolve() / ".running")  # the call the check is in (absolute: the sandboxed
    # child, whose working folder is its own, writes it by this name)
    env = dict(os.environ, PYTHONUNBUFFERED="1", **{progress.ENV: str(running)},
               **{CLASS_RUN: "timeout-fails" if options.timeout_fails else "1"})
    # a sub-folder submission's Python helper modules go into the sandbox with it; a lone file goes alone (a single
    # check would copy its folder: here the class folder, every other student's files)
    env[SUBMISSION_FOLDER] = str(sub.path.parent) if sub.language == "python" and sub.folder else ALONE
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
                                env=processes.tagged(env, tag))
        tick = None if still_running is None else (lambda elapsed: still_running(sub.name, elapsed, timeout))
        try:
            rc = _wait(proc, timeout, options.still_running_every, tick)
            if rc is None:
                processes.end_group(proc)
                _timed_out(row, timeout, progress.read(running))
                running.unlink(missing_ok=True)
                row.runtime_s = time.perf_counter() - t0
                return row
        except BaseException:
            processes.end_group(proc)
            raise
        finally:
            processes.end_tagged(tag)  # nothing started for this submission outlives it (Octave's own session too)
        log.seek(0)
        err = log.read().decode("utf-8", "replace")
    running.unlink(missing_ok=True)
    row.runtime_s = time.perf_counter() - t0
    data = None
    try:
        data = json.loads((out_dir / "check.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    if rc not in (0, 1, 2, 3) or data is None or data.get("exit_code") != rc:
        tail = [line for line in err.splitlines() if line.strip()]
        head = f"the check process ended with exit code {rc}"
        row.diagnosis = _one_line(head + (f": {tail[-1]}" if tail else ""))
        row.diagnosis_full = head + (":\n" + "\n".join(tail[-40:]) if tail else "")
        return row
    row.sandbox = str(data.get("sandbox") or "")
    row.blocked = tuple(str(b) for b in data.get("blocked_attempts") or ())
    if data.get("verdict") == "violation" and rc == 2:
        row.verdict = GradeVerdict.VIOLATION
        row.diagnosis_full = f"{data.get('violation')}: {data.get('error', '')}" + (
            f"\n{data['user_traceback']}" if data.get("user_traceback") else "")
        row.diagnosis = _one_line(row.diagnosis_full)
        return row
    if data.get("timeout"):
        row.verdict, row.diagnosis_full = GradeVerdict.TIMEOUT, data.get("error", "timed out") + (
            "; graded FAIL (--timeout-fails)" if row.timeout_fails else "")
        row.diagnosis = _one_line(row.diagnosis_full)
        return row
    row.verdict = {0: GradeVerdict.CORRECT, 1: GradeVerdict.WRONG, 2: GradeVerdict.UNUSABLE}[rc]
    row.diagnosis_full = diagnosis_text(data) + (f"; blocked attempts: {', '.join(row.blocked)}" if row.blocked else "")
    row.diagnosis = _one_line(row.diagnosis_full)
    row.checks = int((data.get("checks") or {}).get("total", 0))
    row.entries = {e["entry"]: bool(e["ok"]) for e in data.get("entries", [])}
    row.structure = {s["name"]: s["status"] for s in data.get("structure", [])}
    return row


def _timed_out(row: GradeRow, timeout: float, running: str) -> None:
    """A row stopped at the timeout: which call was running then (the progress file), if any."""
    row.verdict = GradeVerdict.TIMEOUT
    where = f"timed out in {running}: " if running else ""
    graded = "; graded FAIL (--timeout-fails)" if row.timeout_fails else ""
    row.diagnosis = row.diagnosis_full = f"{where}did not finish within {timeout:g} s (stopped){graded}"


def grade(arm: str, folder: str | Path, out_dir: str | Path, options: GradeOptions | None = None, *,
          progress: Callable[[GradeRow], Any] | None = None,
          still_running: Callable[[str, float, float], Any] | None = None,
          **keywords: Any) -> tuple[list[GradeRow], list[str]]:
    """Check every submission in ``folder`` (``options.jobs`` at a time); per-submission reports go to
    ``out_dir``/NAME.  ``keywords``: :class:`GradeOptions` fields (they override ``options``); ``progress`` is
    called with each row as it is done (completion order), ``still_running(name, elapsed, timeout)`` every
    ``still_running_every`` s per running submission.  The rows come back in :func:`order`."""
    options = dataclasses.replace(options or GradeOptions(), **keywords)
    subs, skipped = find_submissions(folder)
    jobs = max(1, options.jobs or os.cpu_count() or 1)
    out = Path(out_dir)

    def run(sub: Submission) -> GradeRow:
        row = check_one(arm, sub, out / _safe(sub.name), options, still_running)
        if progress is not None:
            progress(row)
        return row

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        rows = list(pool.map(run, subs))
    return order(rows), skipped


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "_"


# ============================================================================ tables

def columns(rows: list[GradeRow], n: int) -> tuple[list[str], list[str]]:
    """(entry columns, structure columns) in a fixed order: M11…Mnn, Cqd1…, C11…, G1…, F1…; checks."""
    sep = "," if n >= 10 else ""
    M = [f"M{i}{sep}{j}" for i in range(1, n + 1) for j in range(1, n + 1)]
    Cqd = [f"Cqd{i}" for i in range(1, n + 1)]
    C = [f"C{i}{sep}{j}" for i in range(1, n + 1) for j in range(1, n + 1)]
    G = [f"G{i}" for i in range(1, n + 1)]
    F = [f"F{i}" for i in range(1, n + 1)]       # the file's friction F(qd), when it defines one
    present = set().union(*(r.entries for r in rows)) if rows else set()
    entries = [c for c in M + Cqd + C + G + F if c in present]
    checks = [s for s in STRUCTURE if any(s in r.structure for r in rows)]
    return entries, checks


SCORE_WORDS = ("score: the entries of M, C q̇ and G that match, of those checked (C q̇ derived from the C matrix "
               "when a file returns one, so both kinds of file are scored on the same n² + 2n entries)")


def status_line(rows: list[GradeRow]) -> str:
    """``"3 PASS, 2 FAIL, 1 INCONCLUSIVE; 14,430 checks"``: the rows per status and the checks they rest on."""
    n = {v: sum(r.status == v for r in rows) for v in Verdict.outcomes()}
    return ", ".join(f"{c} {v.value}" for v, c in n.items()) + f"; {sum(r.checks for r in rows)} checks"


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "pass" if v else "fail"
    return {"ok": "pass", "failed": "fail"}.get(v, v)


def to_csv(rows: list[GradeRow], n: int) -> str:
    entries, checks = columns(rows, n)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["submission", "language", "verdict", "status", "checks", "score", *entries, *checks, "diagnosis",
                "runtime_s", "diagnosis_full", "sandbox"])
    for r in order(rows):
        w.writerow([r.submission, r.language, r.verdict, r.status.value, r.checks, r.score_text,
                    *(_cell(r.entries.get(e)) for e in entries),
                    *(_cell(r.structure.get(c)) for c in checks), r.diagnosis, f"{r.runtime_s:.2f}",
                    r.diagnosis_full or r.diagnosis, r.sandbox])
    return buf.getvalue()


_CSS = ("body{font-family:system-ui,sans-serif;margin:2rem;line-height:1.35}table{border-collapse:collapse}"
        "@media (max-width:700px){body{margin:.5rem}}.wide{overflow-x:auto;max-width:100%}"
        "td.diagnosis{min-width:26rem;max-width:36rem}@media (max-width:700px){td.diagnosis{min-width:14rem}}td.name{max-width:12rem;overflow-wrap:anywhere}"
        "td,th{border:1px solid #ccc;padding:.2rem .4rem;text-align:left;vertical-align:top;font-size:.9rem}"
        ".pass,.correct{background:#e3f4e6;color:#176f2c}.fail,.wrong{background:#fbe3e6;color:#b00020}"
        ".unusable,.violation,.timeout,.crashed{background:#fff0d0;color:#8a5a00}.note{color:#8a5a00}pre.full{white-space:pre-wrap}")


def to_html(rows: list[GradeRow], n: int, title: str, reports: str | Path = ".", html_dir: str | Path = ".",
            isolation: str = "") -> str:
    """The table as a page; each submission links to its report ``reports``/NAME/check.html (relative to
    ``html_dir``, where the page is written); ``isolation`` (:meth:`crossdyn.sandbox.Isolation.describe`) is
    stated under the title."""
    e = html.escape
    entries, checks = columns(rows, n)
    counts = {v.value: sum(r.verdict == v for r in rows) for v in GradeVerdict}
    summary = ", ".join(f"{c} {v}" for v, c in counts.items() if c) + f"; {status_line(rows)}"
    out = [f"<!doctype html><html><head><meta charset='utf-8'>"
           "<meta name='viewport' content='width=device-width, initial-scale=1'>"
           f"<title>{e(title)}</title><style>{_CSS}</style>"
           f"</head><body><h1>{e(title)}</h1><p>{len(rows)} submissions: {e(summary)}</p>"
           + (f"<p class='sandbox'>Sandbox: {e(isolation)}</p>" if isolation else "")
           + f"<p class='score'>{e(SCORE_WORDS)}</p><div class='wide'><table><tr>"
           "<th>submission</th><th>verdict</th><th>score</th><th>diagnosis</th><th>status</th><th>checks</th>"
           "<th>language</th>"
           + "".join(f"<th>{e(c)}</th>" for c in entries + checks) + "<th>s</th></tr>"]
    for r in order(rows):
        link = Path(os.path.relpath(Path(reports) / _safe(r.submission) / "check.html", html_dir)).as_posix()
        cells = [f"<td class='name'><a href='{e(link)}'>{e(r.submission)}</a></td>",
                 f"<td class='{e(r.verdict)}'>{e(r.verdict)}</td><td>{r.score_text}</td>",
                 f"<td class='diagnosis'>{_diagnosis_cell(r)}</td>",
                 f"<td class='{e(r.verdict)}'>{r.status.value}</td><td>{r.checks}</td><td>{e(r.language)}</td>"]
        for c in entries:
            v = _cell(r.entries.get(c))
            cells.append(f"<td class='{v}'>{v}</td>")
        for c in checks:
            v = _cell(r.structure.get(c))
            cells.append(f"<td class='{e(v)}'>{e(v)}</td>")
        cells.append(f"<td>{r.runtime_s:.1f}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table></div></body></html>")
    return "\n".join(out) + "\n"


def _diagnosis_cell(r: GradeRow) -> str:
    """The one-line diagnosis; the whole one under it (collapsed) when the line is not all of it."""
    e = html.escape
    full = r.diagnosis_full or r.diagnosis
    if full == r.diagnosis:
        return e(full)
    return f"<details><summary>{e(r.diagnosis)}</summary><pre class='full'>{e(full)}</pre></details>"
