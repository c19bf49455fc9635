"""The typed result of ``crossdyn audit``: tolerances (each with where it comes from), the body matching, the
parameter rows of the file diff, the dynamics checks (files against each other, engines against crossdyn's
reference) and the verdict over them.

Verdict rule (:meth:`AuditResult.verdict`):

* FAIL: two files of the robot differ (a parameter beyond its tolerance, a parameter present in one file only, or
  M, G, C·q̇, ID apart beyond the files' tolerance), or an engine reads an unambiguous file differently from
  crossdyn's reference beyond 1e-10 relative (an engine computing in float32 — ``mujoco-warp``, ``newton`` — gets
  its round-off term added: :func:`crossdyn.audit.enginediff.roundoff`, stated in the check).
* INCONCLUSIVE: nothing failed, and nothing could be checked (no second file and no engine ran), or an engine's
  difference lies where the file is ambiguous (a reader's note of severity ``ambiguous``: the file can be read more
  than one way, so the difference is explained, not judged), or an engine failed on the file.
* PASS: every check made passed; the count is shown.  A difference that an engine makes on purpose (PyBullet
  without ``URDF_USE_INERTIA_FROM_FILE``: inertias from the collision shapes, its documented default) is shown with
  its explanation and not counted.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from crossdyn.status import Exit, RunStatus, Verdict


@dataclass(frozen=True)
class Tolerances:
    """The tolerances of the audit; :data:`TOLERANCE_SOURCES` says where each comes from."""

    position_m: float = 1e-6
    limit: float = 1e-4
    axis_rad: float = 1e-6
    mass_rel: float = 1e-6
    inertia_rel: float = 1e-5
    joint_rel: float = 1e-6
    files_rel: float = 1e-6
    engine_rel: float = 1e-10

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in TOLERANCE_SOURCES}


TOLERANCE_SOURCES = {
    "position_m": "CoM, joint anchors (distance between the two joint axes): 1e-6 m; robot files print lengths "
                  "to 1 µm or finer, so a difference above 1 µm is in the file, not its rounding",
    "limit": "joint position limits: 1e-4 rad or m; files print angles to 4-6 decimals (2.0944 for 120°, "
             "3.1415 for π), so a smaller difference is the printing of one limit",
    "axis_rad": "joint axes: 1e-6 rad between the two directions (world frame at q = 0)",
    "mass_rel": "masses: 1e-6 of the larger of the two (files carry about 6 significant digits)",
    "inertia_rel": "inertia about the CoM, world axes: each entry to 1e-5 of the body's largest principal moment "
                   "(the larger of the two files'), the physical scale of that body's inertia; files print inertias "
                   "to 5-6 significant digits and rotate them by rpy or quaternions printed to 5-7 digits (1.5708 for "
                   "π/2 is 3.7e-6 rad off), so differences of a few 1e-6 are the printing",
    "joint_rel": "effort, velocity, damping, friction, armature, gear: 1e-6 of the larger of the two values (a "
                 "value given in one file and 0 or absent in the other always differs)",
    "files_rel": "M, G, C·q̇, ID of two files: 1e-6 of the largest entry of the first file's (the same relative "
                 "precision as the parameters above: files differing within their printed digits agree)",
    "engine_rel": "M, G, C·q̇, ID of an engine against crossdyn's reference from the same file: 1e-10 of the largest "
                  "entry (float64 round-off, 1.1e-16 per operation, accumulated over a few hundred operations of "
                  "a 7-joint recursion and the engines' own paths, stays below 1e-13; the issue's figure leaves "
                  "three orders of margin and is still six orders below any parameter difference worth naming); an engine "
                  "computing in float32 gets 100 × eps32 (1.19e-7) × the physical scale added (max|M| for M; the "
                  "largest |G|, |C·q̇|, |ID| for the torques), stated in each check's tolerance_origin",
}


@dataclass(frozen=True)
class BodyMatch:
    """Body ``a`` of the first file matched with body ``b`` of the other, by ``how`` ("name", "joint name" or
    "position": the same place in the tree and joint type); ``sign`` −1 when the joint axes point opposite ways
    (then q, q̇, q̈ and τ of that joint change sign between the files)."""

    a: int
    b: int
    name_a: str
    name_b: str
    how: str
    sign: float = 1.0

    def as_dict(self) -> dict:
        return {"a": self.name_a, "b": self.name_b, "how": self.how, "sign": self.sign}


@dataclass(frozen=True)
class Matching:
    pairs: tuple[BodyMatch, ...]
    only_a: tuple[str, ...] = ()
    only_b: tuple[str, ...] = ()
    turn: float = 0.0
    """The second file's world turned by this angle (rad) about the gravity axis to align its joint axes with the
    first's (:func:`crossdyn.audit.match.base_turn`)."""

    @property
    def complete(self) -> bool:
        return not self.only_a and not self.only_b

    def as_dict(self) -> dict:
        return {"pairs": [p.as_dict() for p in self.pairs], "only_a": list(self.only_a), "only_b": list(self.only_b),
                "turn_about_gravity_rad": self.turn}


@dataclass(frozen=True)
class ParamRow:
    """One parameter of one body or joint, side by side (world frame at q = 0 where it has a frame)."""

    element: str
    parameter: str
    value_a: object
    value_b: object
    difference: float | None
    tolerance: float | None
    status: str
    """"same", "differs", "only in A" (given in the first file, absent or zero in the other), "only in B", or
    "not in B's format" / "not in A's format" (given in one file, and the other's format cannot say it: an MJCF has
    no joint velocity limit; called out, not failed: it enters none of the dynamics compared), "required by A's
    format" / "required by B's format" (a URDF must state an effort limit, the other file states none: called out,
    not failed), or "matched by sign" (a reversed joint axis, compared by sign as the user asked: called out, not
    failed)."""
    unit: str = ""
    relative: float | None = None
    """The difference over the physical scale named by ``relative_to`` (mass: the larger mass; inertia: the
    body's largest principal moment), where there is one."""
    relative_to: str = ""

    @property
    def differs(self) -> bool:
        return self.status in ("differs", "only in A", "only in B")

    @property
    def format_gap(self) -> bool:
        return self.status.startswith(("not in", "required by"))

    def as_dict(self) -> dict:
        return {"element": self.element, "parameter": self.parameter, "a": _plain(self.value_a),
                "b": _plain(self.value_b), "difference": self.difference, "tolerance": self.tolerance,
                "status": self.status, "unit": self.unit, "relative": self.relative,
                "relative_to": self.relative_to or None}


@dataclass(frozen=True)
class FileDiff:
    """The model diff of file ``b`` against file ``a``."""

    file_a: str
    file_b: str
    matching: Matching
    rows: tuple[ParamRow, ...]
    common: str = ""
    """Where bodies are unmatched: the joints fixed at 0 to compare the dynamics on the joints both files have
    (:mod:`crossdyn.audit.common`), or why the dynamics were not compared; "" where every body matched."""

    @property
    def differing(self) -> tuple[ParamRow, ...]:
        return tuple(r for r in self.rows if r.differs)

    @property
    def format_gaps(self) -> tuple[ParamRow, ...]:
        return tuple(r for r in self.rows if r.format_gap)

    def as_dict(self) -> dict:
        return {"a": self.file_a, "b": self.file_b, "matching": self.matching.as_dict(),
                "compared": len(self.rows), "differing": [r.as_dict() for r in self.differing],
                "format_gaps": [r.as_dict() for r in self.format_gaps], "common_chain": self.common or None,
                "rows": [r.as_dict() for r in self.rows]}


AGREE, DIFFERS, AMBIGUOUS, BY_DESIGN = "agree", "differs", "ambiguous", "by design"


@dataclass(frozen=True, eq=False)
class DynamicsCheck:
    """One quantity (M, G, C·q̇ or ID) of a file as an engine reads it against crossdyn's reference (``engine``
    set), or of file ``other`` against file ``file`` (both through crossdyn's reference)."""

    file: str
    quantity: str
    engine: str | None
    other: str | None
    max_rel: float
    max_abs: float
    scale: float
    tolerance: float
    values: int
    per_state: np.ndarray = field(repr=False)
    """Per state: the largest |difference| of the quantity's entries / ``scale``."""
    status: str = AGREE
    explanation: str | None = None
    tolerance_origin: str | None = None
    """Where a tolerance beyond the stated one comes from (a float32 engine's round-off term), or None."""

    @property
    def label(self) -> str:
        if self.status == AGREE:
            return "agree"
        if self.engine is None:
            return "the files differ"
        return f"engine {self.engine} reads the file differently"

    def size_text(self) -> str:
        """How far apart, in words: relative to the largest entry, or absolute where that entry is 0 (no relative
        figure against a zero scale)."""
        if self.scale > 0 or not np.isfinite(self.max_abs):
            return f"{self.max_rel:.3g} of its largest entry"
        whose = "crossdyn's reference" if self.engine is not None else "the first file's"
        return f"{self.max_abs:.3g} in absolute terms ({whose} {self.quantity} is 0 at every state: the scale is 0)"

    def as_dict(self) -> dict:
        return {"file": self.file, "quantity": self.quantity, "engine": self.engine, "other": self.other,
                "max_rel": _finite(self.max_rel), "max_abs": _finite(self.max_abs), "scale": self.scale,
                "tolerance": self.tolerance, "values": self.values, "status": self.status, "label": self.label,
                "explanation": self.explanation, "tolerance_origin": self.tolerance_origin}


@dataclass(frozen=True)
class EngineRun:
    """An engine on a file: ok, skipped (not asked for, not installed, cannot read the format) or failed."""

    file: str
    engine: str
    status: RunStatus
    reason: str | None = None
    config: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"file": self.file, "engine": self.engine, "status": self.status.value, "reason": self.reason,
                "config": _plain(self.config)}


@dataclass(frozen=True, eq=False)
class AuditResult:
    files: tuple[str, ...]
    models: tuple  # RobotModel per file
    states: int
    seed: int
    tolerances: Tolerances
    file_diffs: tuple[FileDiff, ...]
    engine_runs: tuple[EngineRun, ...]
    checks: tuple[DynamicsCheck, ...]
    state_scales: str = ""
    runtime_s: float = 0.0
    match_sign: bool = False
    """Joints whose axes point opposite ways matched by sign (``--match-sign``) rather than failed."""

    def short(self, file: str | None) -> str:
        """A file's shortest path suffix that tells it from the other files (``franka_panda/panda.urdf``)."""
        names = short_names(dict.fromkeys([*self.files, *(m.source for m in self.models)]))
        return names.get(file or "", file or "")

    def count(self) -> int:
        """Values compared: parameters of the file diffs and entries × states of the judged dynamics checks."""
        return sum(len(d.rows) for d in self.file_diffs) + sum(
            c.values for c in self.checks if c.status in (AGREE, DIFFERS))

    def verdict(self) -> Verdict:
        failed = any(d.differing for d in self.file_diffs) or any(c.status == DIFFERS for c in self.checks) \
            or any(not d.matching.complete for d in self.file_diffs)
        if failed:
            return Verdict.FAIL
        unjudged = any(c.status == AMBIGUOUS for c in self.checks) or any(
            r.status is RunStatus.FAILED for r in self.engine_runs)
        if unjudged or self.count() == 0:
            return Verdict.INCONCLUSIVE
        return Verdict.PASS

    @property
    def exit_code(self) -> int:
        return int(Exit.of(self.verdict()))

    def verdict_line(self) -> str:
        v = self.verdict()
        ok = [r for r in self.engine_runs if r.status is RunStatus.OK]
        what = f"{self.count():,} checks: {len(self.files)} file(s), {self.states} states, "
        what += (f"{len(ok)} engine reading(s): {', '.join(dict.fromkeys(r.engine for r in ok))}" if ok
                 else "no engine reading")
        skipped: dict[str, list[str]] = {}
        for r in self.engine_runs:
            if r.status is not RunStatus.OK:
                skipped.setdefault(self.short(r.file), []).append(f"{r.engine} ({r.status.value})")
        if skipped:
            what += "; skipped: " + "; ".join(f"{', '.join(e)} on {f}" for f, e in skipped.items())
        if v is Verdict.INCONCLUSIVE and self.count() == 0:
            what = "0 checks: one file and no engine that reads it; nothing could be compared"
        return f"verdict: {v.value} ({what})"


def short_names(files) -> dict[str, str]:
    """Each path's shortest suffix of path components that no other path in ``files`` shares."""
    parts = {f: str(f).replace("\\", "/").split("/") for f in files}
    out = {}
    for f, p in parts.items():
        for k in range(1, len(p) + 1):
            tail = "/".join(p[-k:])
            if all(o == f or "/".join(q[-k:]) != tail for o, q in parts.items()):
                break
        out[f] = tail
    return out


def _finite(x: float) -> float | None:
    """JSON has no infinity: a non-finite difference (the engine returned NaN or inf) is written as null."""
    return float(x) if np.isfinite(x) else None


def _plain(x):
    """JSON-ready: arrays as lists, floats as floats."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)


def document(result: AuditResult, findings: list[str]) -> dict:
    """``summary.json`` (schema ``crossdyn.audit/1``): the verdict with its count, what was run and skipped, the
    tolerances with their sources, each file's model and notes, the file diffs, the dynamics checks and the
    findings in words."""
    param_checks = sum(len(d.rows) for d in result.file_diffs)
    return {
        "schema": "crossdyn.audit/1", "tool": "crossdyn audit", "files": list(result.files),
        "verdict": result.verdict().value, "exit_code": result.exit_code,
        "checks": {"total": result.count(), "parameters": param_checks,
                   "dynamics_values": result.count() - param_checks},
        "states": result.states, "seed": result.seed, "match_sign": result.match_sign, "state_sampling": result.state_scales,
        "tolerances": {k: {"value": v, "source": TOLERANCE_SOURCES[k]} for k, v in result.tolerances.as_dict().items()},
        "models": [{"file": m.source, "format": m.format.value, "name": m.name, "n": m.n,
                    "bodies": list(m.body_names), "joints": list(m.joint_names),
                    "notes": [n.as_dict() for n in m.notes], "removed": list(m.removed)} for m in result.models],
        "file_diffs": [d.as_dict() for d in result.file_diffs],
        "engines": [r.as_dict() for r in result.engine_runs],
        "dynamics": [c.as_dict() for c in result.checks],
        "findings": findings, "runtime_s": result.runtime_s,
    }
