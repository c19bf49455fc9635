"""The audit's findings in words: one line per difference, labelled ("the files differ", "engine X reads the file
differently") and explained where a parameter was named (:mod:`crossdyn.audit.explain`)."""
from __future__ import annotations

import numpy as np

from crossdyn.audit.result import AGREE, AMBIGUOUS, BY_DESIGN, DIFFERS, AuditResult, ParamRow


def finding_lines(result: AuditResult) -> list[str]:
    """One line per difference (parameters of the file diffs, dynamics checks), labelled and explained."""
    lines = []
    for d in result.file_diffs:
        if d.matching.only_a or d.matching.only_b:
            lines.append(f"the files differ: bodies unmatched: {', '.join(d.matching.only_a) or '-'} in {d.file_a}; "
                         f"{', '.join(d.matching.only_b) or '-'} in {d.file_b}")
        for r in d.differing:
            lines.append(f"the files differ: {r.element} {r.parameter}: {param_text(r)}")
    for c in result.checks:
        if c.status == AGREE:
            continue
        who = f"{c.other} against {c.file}" if c.engine is None else c.file
        head = {DIFFERS: "FAIL", AMBIGUOUS: "INCONCLUSIVE", BY_DESIGN: "explained, not judged"}.get(c.status,
                                                                                                   c.status)
        lines.append(f"{head}: {c.label}: {c.quantity} of {who} differs by {c.max_rel:.3g} of its largest entry "
                     f"({c.max_abs:.3g} abs; tolerance {c.tolerance:g})"
                     + (f"; {c.explanation}" if c.explanation else ""))
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
