"""The report of ``crossdyn audit``: ``audit.md`` and ``audit.html`` in the page layout every crossdyn report shares
(:mod:`crossdyn.pages`): the verdict and the summary table first (one row per file diff and per engine on each
file), the findings in words, then — collapsed — the body matching, one parameter table per matched body, the
plots of the differences over the states (one figure per file: M, G, C·q̇, ID; each engine's, and each other
file's, largest relative difference per state on a log scale, with its tolerance), the engines run and skipped,
the readers' notes, the tolerances with their sources and the run settings.
"""
from __future__ import annotations

import numpy as np

from crossdyn import pages
from crossdyn.audit.enginediff import QUANTITIES
from crossdyn.audit.result import AGREE, AMBIGUOUS, BY_DESIGN, DIFFERS, TOLERANCE_SOURCES, AuditResult
from crossdyn.audit.words import param_text
from crossdyn.status import RunStatus

FLOOR = 1e-17
"""Relative differences below this (exact agreement) are drawn at it on the log axis."""


def _group(checks) -> str:
    """A summary cell for the four checks of one engine on one file (or one file against another)."""
    judged = [c for c in checks if c.status in (AGREE, DIFFERS)]
    worst = max(checks, key=lambda c: c.max_rel)
    figure = f"largest {worst.max_rel:.3g} ({worst.quantity})"
    if any(c.status == DIFFERS for c in checks):
        return f"FAIL, {figure}: {worst.label}"
    if any(c.status == AMBIGUOUS for c in checks):
        return f"INCONCLUSIVE ({sum(c.values for c in judged)} checks), {figure}: the file is ambiguous there"
    n = sum(c.values for c in judged)
    if any(c.status == BY_DESIGN for c in checks):
        same = ", ".join(c.quantity for c in judged) or "nothing"
        return (f"not judged: a difference by design, {figure} (the engine's documented default); {same} agree "
                f"({n:,} checks)")
    return f"PASS ({n:,} checks), {figure}"


def groups(result: AuditResult) -> dict[tuple[str, str], list]:
    """(file, engine or "file OTHER") → its four checks, in order."""
    out: dict[tuple[str, str], list] = {}
    for c in result.checks:
        key = (c.file, c.engine if c.engine is not None else f"file {result.short(c.other)}")
        out.setdefault(key, []).append(c)
    return out


def summary_rows(result: AuditResult) -> list[list[str]]:
    rows = []
    for d in result.file_diffs:
        k = len(d.differing)
        rows.append([f"parameters of {result.short(d.file_b)} against {result.short(d.file_a)}", f"{len(d.rows)} parameters",
                     f"FAIL, {k} differ: the files differ" if k else f"PASS ({len(d.rows)} checks), all within "
                     "tolerance"])
    for (file, who), checks in groups(result).items():
        what = f"M, G, C·q̇, ID at {result.states} states"
        rows.append([f"{who} against {result.short(file)}" if who.startswith("file ")
                     else f"engine {who} reading {result.short(file)}", what,
                     _group(checks)])
    for r in result.engine_runs:
        if r.status is not RunStatus.OK:
            word = "INCONCLUSIVE (0 checks)" if r.status is RunStatus.FAILED else r.status.value
            rows.append([f"engine {r.engine} reading {result.short(r.file)}", "-", f"{word}: {r.reason}"])
    return rows


def body_tables(result: AuditResult) -> list[tuple]:
    """One table per matched body (and its joint) of each file diff."""
    blocks: list[tuple] = []
    for d in result.file_diffs:
        blocks.append(("p", f"**{result.short(d.file_b)}** (B) against **{result.short(d.file_a)}** (A), world frame at "
                              f"q = 0{turn_words(d.matching.turn)}."))
        by_element: dict[str, list] = {}
        current = "robot"
        for r in d.rows:  # each matched link's rows start with its mass; its joint's rows follow
            if r.parameter in ("mass", "body"):
                current = r.element
            by_element.setdefault(current if r.element.startswith("joint ") or r.parameter != "gravity"
                                  else "robot", []).append(r)
        for element, rows in by_element.items():
            blocks.append(("p", f"*{element}*"))
            blocks.append(("table", ["element", "parameter", "A", "B", "difference", "tolerance", "status"],
                           [[r.element, r.parameter + (f" ({r.unit})" if r.unit else ""), _value(r.value_a), _value(r.value_b),
                             "-" if r.difference is None else f"{r.difference:.3g}",
                             "-" if r.tolerance is None else f"{r.tolerance:.3g}",
                             "FAIL: " + param_text(r) if r.differs else r.status] for r in rows]))
    return blocks


def turn_words(turn: float) -> str:
    if abs(turn) < 1e-12:
        return ""
    return (f" (B's world turned {turn:+.6g} rad = {np.degrees(turn):+.4g}° about the gravity axis to align its joint "
            "axes with A's: a turn about gravity changes no joint-space dynamics)")


def _value(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, np.ndarray):
        return np.array2string(np.asarray(v), precision=6, suppress_small=True, max_line_width=400).replace("\n", "")
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def plots(result: AuditResult) -> dict[str, bytes]:
    """One PNG per file with dynamics checks: 2×2 panels (M, G, C·q̇, ID), each engine's (or other file's) largest
    relative difference per state, log scale, its tolerance dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import LogLocator, NullLocator

    from crossdyn.reporting.figures import PALETTE, png

    out: dict[str, bytes] = {}
    by_file: dict[str, dict[str, list]] = {}
    for (file, who), checks in groups(result).items():
        by_file.setdefault(file, {})[who] = checks
    for k, (file, whos) in enumerate(by_file.items()):
        fig, axes = plt.subplots(2, 2, figsize=(10, 6.5), sharex=True)
        fig.suptitle(f"{result.short(file)}: each engine (or other file) against crossdyn's reference; exact agreement drawn at "
                     f"{FLOOR:g}", fontsize=10, y=1.04)
        for ax, q in zip(axes.ravel(), QUANTITIES, strict=True):
            for i, (who, checks) in enumerate(whos.items()):
                c = next(c for c in checks if c.quantity == q)
                y = np.clip(np.nan_to_num(c.per_state, nan=1.0, posinf=1.0), FLOOR, None)
                ax.semilogy(np.arange(len(y)), y, color=PALETTE[i % len(PALETTE)], lw=1, label=who)
            tols = sorted({c.tolerance for checks in whos.values() for c in checks if c.quantity == q})
            for t in tols:
                ax.axhline(t, color="k", ls="--", lw=0.8)
            ax.set_title(f"{q}: max |difference| / largest entry", fontsize=10)
            ax.set_ylim(FLOOR / 2, 10.0)
            ax.yaxis.set_major_locator(LogLocator(numticks=6))  # few labels: tick layout is most of the cost
            ax.yaxis.set_minor_locator(NullLocator())
        for ax in axes[1]:
            ax.set_xlabel("state")
        axes[0, 0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(0.0, 1.35), ncol=4, frameon=False)
        out[f"audit-differences-{k + 1}.png"] = png(fig)
    return out


def report_blocks(result: AuditResult, findings: list[str], images: dict[str, bytes]) -> list[tuple]:
    v = result.verdict().value
    names = ", ".join(result.short(m.source) for m in result.models)
    blocks: list[tuple] = [("h", 1, f"crossdyn audit: {names} — {v}"), ("p", f"**{result.verdict_line()}**"),
                           ("h", 2, "Summary"), ("table", ["check", "what", "result"], summary_rows(result)),
                           ("h", 2, "Findings"), ("ul", findings or ["no difference beyond the tolerances"])]
    more: list[tuple] = []
    for d in result.file_diffs:
        more += [("h", 2, f"Body matching: {result.short(d.file_b)}"),
                 ("table", ["A", "B", "matched by", "axis sign"],
                  [[p.name_a, p.name_b, p.how, f"{p.sign:+.0f}"] for p in d.matching.pairs]
                  + [[x, "-", "only in A", "-"] for x in d.matching.only_a]
                  + [["-", x, "only in B", "-"] for x in d.matching.only_b])]
    if result.file_diffs:
        more += [("h", 2, "Parameters per link")] + body_tables(result)
    if images:
        more.append(("h", 2, "Differences over the states"))
        by_file = list(dict.fromkeys(c.file for c in result.checks))
        more += [("img", name, f"{result.short(file)}: largest relative difference per state (dashed: the tolerance)")
                 for name, file in zip(images, by_file, strict=False)]
    more += [("h", 2, "Engines"), ("table", ["file", "engine", "status", "reason"],
                                    [[result.short(r.file), r.engine, r.status.value, r.reason or "-"] for r in result.engine_runs])]
    notes = [f"{result.short(m.source)}: {n.where}: {n.message} ({n.severity.value})" for m in result.models for n in m.notes]
    removed = [f"{result.short(m.source)}: removed for the comparison: {x}" for m in result.models for x in m.removed]
    more += [("h", 2, "Readers' notes"), ("ul", notes + removed or ["none"]),
             ("h", 2, "Tolerances"), ("table", ["tolerance", "value", "where it comes from"],
                                      [[k, f"{v:g}", TOLERANCE_SOURCES[k]] for k, v in result.tolerances.as_dict().items()]),
             ("h", 2, "Run settings"), ("p", f"{result.state_scales}; audited in {result.runtime_s:.2f} s.")]
    return blocks + pages.folded(more)


def write_report(out, result: AuditResult, findings: list[str], with_plots: bool = True) -> list:
    """``audit.md``, ``audit.html`` and the plots' PNGs into ``out``; returns the paths written."""
    from pathlib import Path

    from crossdyn.io import write_bytes_atomic, write_text_atomic

    images = plots(result) if with_plots and result.checks else {}
    blocks = report_blocks(result, findings, images)
    paths = [write_bytes_atomic(Path(out) / name, data) for name, data in images.items()]
    paths.append(write_text_atomic(Path(out) / "audit.md", pages.render_markdown(blocks)))
    paths.append(write_text_atomic(Path(out) / "audit.html", pages.render_html(blocks, images)))
    return paths
