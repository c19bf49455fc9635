"""A class's result document, ``grades.json`` (schema ``crossdyn.grades/1``), written beside ``grades.csv``.

``crossdyn check ARM FOLDER --summary grades.csv`` writes the table as CSV and HTML for a person and this
document for a program (``--json`` prints it, as every judging command prints its result document): the class's
verdict (:meth:`crossdyn.status.Verdict.combine` over the rows' statuses), the checks it rests on, the counts per
row verdict, the isolation the submissions ran under, the entries skipped, and one object per submission with
every column of the CSV (the whole diagnosis included, the score as ``{"right", "checked"}``, the blocked
attempts the file swallowed) under its name, in :func:`crossdyn.checking.grading.order`.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from crossdyn.checking.grading import GradeRow, GradeVerdict, columns, order
from crossdyn.status import Exit, Verdict

SCHEMA = "crossdyn.grades/1"


@dataclass(frozen=True)
class ClassRun:
    """What the document says about the run itself: the arm, the folder, what was skipped, the isolation."""

    arm: str
    n: int
    folder: str
    skipped: tuple[str, ...] = ()
    sandbox: str = ""
    timeout_fails: bool = False


def _row(r: GradeRow, entries: Sequence[str], checks: Sequence[str]) -> dict:
    return {"submission": r.submission, "language": r.language, "verdict": str(r.verdict),
            "status": r.status.value, "checks": r.checks,
            "score": {"right": r.score[0], "checked": r.score[1]},
            "entries": {e: r.entries[e] for e in entries if e in r.entries},
            "structure": {c: r.structure[c] for c in checks if c in r.structure},
            "diagnosis": r.diagnosis, "diagnosis_full": r.diagnosis_full or r.diagnosis,
            "runtime_s": round(r.runtime_s, 3), "sandbox": r.sandbox, "blocked_attempts": list(r.blocked)}


def grades_document(run: ClassRun, rows: Sequence[GradeRow]) -> dict:
    """The ``grades.json`` document of ``rows`` (see the module docstring)."""
    verdict = Verdict.combine(r.status for r in rows)
    entries, checks = columns(list(rows), run.n)
    return {"schema": SCHEMA, "tool": "crossdyn check --summary", "arm": run.arm, "folder": run.folder,
            "verdict": verdict.value, "exit_code": int(Exit.of(verdict)),
            "checks": {"total": sum(r.checks for r in rows)},
            "counts": {v.value: sum(r.verdict == v for r in rows) for v in GradeVerdict},
            "statuses": {v.value: sum(r.status == v for r in rows) for v in Verdict.outcomes()},
            "sandbox": run.sandbox, "skipped": list(run.skipped), "timeout_fails": run.timeout_fails,
            "submissions": [_row(r, entries, checks) for r in order(list(rows))]}
