"""The audit's findings in words: one line per difference, labelled ("the files differ", "engine X reads the file
differently") and explained where a parameter was named (:mod:`crossdyn.audit.explain`)."""
from __future__ import annotations

import numpy as np

from crossdyn.audit.filediff import REVERSED, SIGN_MATCHED
from crossdyn.audit.result import AGREE, AMBIGUOUS, BY_DESIGN, DIFFERS, AuditResult, ParamRow
from crossdyn.robots.model import Severity

REVERSED_WORDS = "axis reversed; q maps to −q"
SHOWN_INFO = ("<mesh file>", "<mesh filename>")
"""The reader's INFO notes the findings show too: missing mesh files (the reason an engine would otherwise fail)."""


def finding_lines(result: AuditResult) -> list[str]:
    """One line per difference (parameters of the file diffs, dynamics checks), labelled and explained."""
    lines = []
    for d in result.file_diffs:
        if d.matching.only_a or d.matching.only_b:
            lines.append(f"the files differ: bodies unmatched: {', '.join(d.matching.only_a) or '-'} in "
                         f"{result.short(d.file_a)}; {', '.join(d.matching.only_b) or '-'} in {result.short(d.file_b)}")
        if d.common:
            lines.append(f"the files differ in their joints: {d.common}")
        if d.differing:
            lines.append(parameter_summary(d, result))
        lines += parameter_lines(d.differing)
        gaps: dict[tuple[str, str], list[str]] = {}
        for r in d.format_gaps:
            gaps.setdefault((r.parameter, r.status), []).append(r.element.removeprefix("joint "))
        why = {"not": "MJCF has no joint velocity limit", "required": "a URDF must state one, the other file states "
               "none"}
        lines += [f"called out: {r.element}: {REVERSED_WORDS} (matched by sign, as --match-sign asks; compared "
                  "through q_B = −q_A)" for r in d.rows if r.status == SIGN_MATCHED]
        lines += [f"called out: {p} on {len(js)} joints only in one file ({st}: {why[st.split()[0]]}; it enters none "
                  f"of the dynamics compared): {', '.join(js)}" for (p, st), js in gaps.items()]
    for c in result.checks:
        if c.status == AGREE:
            continue
        who = (f"{result.short(c.other)} against {result.short(c.file)}" if c.engine is None
               else result.short(c.file))
        head = {DIFFERS: "FAIL", AMBIGUOUS: "INCONCLUSIVE", BY_DESIGN: "explained, not judged"}.get(c.status,
                                                                                                   c.status)
        absolute = f"{c.max_abs:.3g} abs; " if c.scale > 0 else ""
        lines.append(f"{head}: {c.label}: {c.quantity} of {who} differs by {c.size_text()} "
                     f"({absolute}tolerance {c.tolerance:.3g}"
                     + (f" = {c.tolerance_origin}" if c.tolerance_origin else "") + ")"
                     + (f"; {c.explanation}" if c.explanation else ""))
    lines += engine_run_lines(result)
    for m in result.models:
        lines += [f"note on {result.short(m.source)}: {n.where}: {n.message} ({n.severity.value})" for n in m.notes
                  if n.severity in (Severity.SUSPECT, Severity.AMBIGUOUS) or n.where.endswith(SHOWN_INFO)]
    return lines


def engine_run_lines(result: AuditResult) -> list[str]:
    """One line per engine that could not read a file: "unsupported" (it cannot represent the file: listed with why,
    not counted, as ``compare`` does) or "failed" (an error while reading: INCONCLUSIVE)."""
    from crossdyn.status import RunStatus

    lines = []
    for r in result.engine_runs:
        if r.status is RunStatus.UNSUPPORTED:
            lines.append(f"unsupported (not counted): {r.engine} on {result.short(r.file)}: {r.reason}")
        elif r.status is RunStatus.FAILED:
            lines.append(f"INCONCLUSIVE: {r.engine} failed on {result.short(r.file)}: {r.reason}")
    return lines


def parameter_summary(d, result: AuditResult) -> str:
    """One line for a file diff: how many parameters differ, of which kind, on how many bodies or joints."""
    kinds: dict[tuple[str, str, str], int] = {}
    for r in d.differing:
        what = "joints" if r.element.startswith("joint ") else "bodies"
        key = (r.parameter.replace(" (world)", ""), what, r.status if r.status.startswith("only") else "")
        kinds[key] = kinds.get(key, 0) + 1
    parts = [f"{p} on {k} {what}" + (f" ({st})" if st else "") for (p, what, st), k in kinds.items()]
    return (f"FAIL: the files differ: {result.short(d.file_b)} against {result.short(d.file_a)}: "
            f"{len(d.differing)} of {len(d.rows)} parameters beyond their tolerance: " + ", ".join(parts))


def parameter_lines(rows) -> list[str]:
    """One line per differing parameter; a joint parameter that differs the same way on several joints ("only in
    B", same values) is one line naming them all."""
    lines: list[str] = []
    grouped: dict[tuple, list[ParamRow]] = {}
    for r in rows:
        if r.element.startswith("joint ") and not isinstance(r.value_a, np.ndarray):
            grouped.setdefault((r.parameter, r.status, str(r.value_a), str(r.value_b)), []).append(r)
        else:
            grouped.setdefault((id(r),), []).append(r)
    for group in grouped.values():
        r = group[0]
        if r.parameter == REVERSED:
            lines.append(f"the files differ: {r.element}: {REVERSED_WORDS} (world axes at q = 0: {param_text(r)}; "
                         "--match-sign compares such joints by sign)")
        elif len(group) == 1:
            lines.append(f"the files differ: {r.element} {r.parameter}: {param_text(r)}")
        else:
            joints = ", ".join(g.element.removeprefix("joint ") for g in group)
            lines.append(f"the files differ: {r.parameter} of {len(group)} joints ({joints}): {param_text(r)}")
    return lines


def param_text(r: ParamRow) -> str:
    """A differing parameter row in words: the two values, and the difference against the tolerance."""
    def fmt(v):
        if isinstance(v, np.ndarray):
            return np.array2string(v, precision=4, suppress_small=True, max_line_width=200).replace("\n", "")
        return f"{v:g}" if isinstance(v, float) else str(v)

    text = f"A {fmt(r.value_a)}, B {fmt(r.value_b)}"
    if r.status.startswith("only"):
        return text + f" ({r.status})"
    if r.difference is not None and r.tolerance:
        extra = f", {100 * r.relative:.3g} % of {r.relative_to}" if r.relative is not None else ""
        return text + f" (difference {r.difference:.3g} {r.unit}{extra}; tolerance {r.tolerance:.3g})"
    return text
