"""What :func:`crossdyn.checking.check` finds, as frozen records: one wrong (or noteworthy) entry, one structural
check, the whole result; and the statuses they carry, one enum each (string-valued, so ``check.json`` keeps its
words).

An entry is wrong at a parameter set when its largest error over the states exceeds :data:`RTOL` × the largest
magnitude of that quantity at that set, + :data:`ATOL` (rounding is ~1e-15).

What a verdict rests on (``checks`` of :class:`CheckResult`, in ``check.json``): per quantity (M, C q̇, C, G) the
values compared, entries × states × parameter sets; ``structure`` the structural checks made (not those skipped);
``total`` their sum.  ``status`` is the verdict in the words every command shares (:class:`crossdyn.status.Verdict`):
PASS for ``correct`` (exit 0), FAIL for ``wrong`` (exit 1).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from crossdyn.checking.diagnosis import TermDiff
from crossdyn.status import Verdict

RTOL = 1e-6
"""An entry is wrong when its error exceeds RTOL × the quantity's largest magnitude at that parameter set."""
ATOL = 1e-12

UNITS = {"M": "kg m^2", "Cqd": "N m", "C": "N m s", "G": "N m", "F": "N m"}


class _Words(str, enum.Enum):
    def __str__(self) -> str:
        return self.value


class EntryStatus(_Words):
    """One entry of M, C q̇, C or G that differs from the reference."""

    WRONG = "wrong"      # an error
    NOTE = "note"        # a C matrix entry that is not Christoffel's while C q̇ is right (C is not unique)


class CheckStatus(_Words):
    """The outcome of one structural check (symmetry, skew-symmetry, energy, …)."""

    OK = "ok"
    FAILED = "failed"
    NOTE = "note"        # worth saying, not an error
    SKIPPED = "skipped"  # cannot be tested (the file lacks what it needs)


class CheckVerdict(_Words):
    """The verdict on a file: ``correct`` (exit 0) or ``wrong`` (exit 1); a file that cannot be used is
    ``unusable`` (exit 2, written by the command line)."""

    CORRECT = "correct"
    WRONG = "wrong"
    UNUSABLE = "unusable"


@dataclass(frozen=True)
class EntryFinding:
    """One entry that is wrong (or, for a valid non-Christoffel C matrix, noteworthy)."""

    entry: str
    quantity: str           # "M", "Cqd", "C", "G"
    index: tuple[int, ...]
    status: EntryStatus
    unit: str
    max_abs_error: float
    max_rel_error: float | None       # None when the reference quantity is identically 0
    worst_param_set: int
    worst_q: list[float]
    worst_qd: list[float] | None
    wrong_param_sets: list[int]
    n_param_sets: int
    hidden_by_own_params: bool = False
    mirror: str | None = None                          # "M31" for M13 when the user's M is symmetric
    terms: list[TermDiff] = field(default_factory=list)
    terms_param_set: int | None = None
    unexplained: float | None = None
    basis_note: str = ""
    dependence: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # the diagnosis, in sentences
    explained_by: str | None = None                    # the one global explanation that accounts for it

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", EntryStatus(self.status))

    def to_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in (
            "entry", "quantity", "status", "unit", "max_abs_error", "max_rel_error", "worst_param_set", "worst_q",
            "worst_qd", "wrong_param_sets", "n_param_sets", "hidden_by_own_params", "mirror", "terms_param_set",
            "unexplained", "basis_note", "dependence", "messages", "explained_by")}
        d["status"] = self.status.value
        d["index"] = [i + 1 for i in self.index]
        d["terms"] = [t.to_dict() for t in self.terms]
        return d


@dataclass(frozen=True)
class StructuralCheck:
    """One check of the user's equations alone (``name``), its status, the sentence that says what was found,
    the measured value and where it was worst (``details``)."""

    name: str
    status: CheckStatus
    message: str
    value: float | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", CheckStatus(self.status))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status.value, "message": self.message, "value": self.value,
                "details": self.details}


@dataclass(frozen=True)
class CheckResult:
    """Everything :func:`check` found; ``exit_code`` is 0 (all match) or 1 (something wrong)."""

    arm: str
    arm_spec: dict[str, Any]
    file: str
    n: int
    functions: dict[str, Any]
    c_form: str | None
    states: int
    random_params: int
    seed: int
    verdict: CheckVerdict
    findings: list[EntryFinding]       # wrong entries and notes
    entries: list[dict[str, Any]]      # per-entry summary (every entry compared)
    structure: list[StructuralCheck]
    notes: list[str]
    hints: list[str]                   # kept in check.json; whole-quantity patterns are in ``explanations``
    param_sets: list[dict[str, Any]]
    runtime_s: float = 0.0
    rtol: float = RTOL
    explanations: list[dict[str, Any]] = field(default_factory=list)   # one mistake that explains many entries
    params_note: str = ""        # set when the functions do not read p (then only the arm's own parameters)
    language: str = "python"     # "python" | "matlab" (run by GNU Octave)
    checks: dict[str, int] = field(default_factory=dict)  # values compared per quantity, structure, total
    friction: dict[str, Any] = field(default_factory=dict)  # the file's F(qd): found? checked? (checking.friction)
    blocked_attempts: tuple[str, ...] = ()   # what the sandbox blocked, the file's own except clauses or not

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", CheckVerdict(self.verdict))

    @property
    def status(self) -> Verdict:
        """PASS (``correct``) or FAIL (``wrong``)."""
        return Verdict.PASS if self.verdict == CheckVerdict.CORRECT else Verdict.FAIL

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict == CheckVerdict.CORRECT else 1

    @property
    def passed(self) -> bool:
        """True when every entry and every structural check is right (exit code 0)."""
        return self.exit_code == 0

    @property
    def wrong(self) -> list[EntryFinding]:
        return [f for f in self.findings if f.status == EntryStatus.WRONG]

    def finding(self, entry: str) -> EntryFinding | None:
        return next((f for f in self.findings if f.entry == entry), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": "crossdyn check", "arm": self.arm, "arm_spec": self.arm_spec, "file": self.file, "n": self.n,
            "functions": self.functions, "c_form": self.c_form, "states": self.states,
            "random_params": self.random_params, "seed": self.seed, "rtol": self.rtol,
            "verdict": self.verdict.value, "status": self.status.value, "checks": dict(self.checks),
            "exit_code": self.exit_code,
            "wrong_entries": [f.entry for f in self.wrong],
            "findings": [f.to_dict() for f in self.findings], "entries": self.entries,
            "structure": [s.to_dict() for s in self.structure], "notes": self.notes, "hints": self.hints,
            "param_sets": self.param_sets, "runtime_s": self.runtime_s, "explanations": self.explanations,
            "params_note": self.params_note, "language": self.language,
            "friction": self.friction or {"function": None, "checked": False, "note": "", "wrong_entries": []},
            # only when there were some: a file that tried nothing blocked has the document it always had
            **({"blocked_attempts": list(self.blocked_attempts)} if self.blocked_attempts else {}),
        }
