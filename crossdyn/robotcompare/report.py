"""The outputs of a robot-file comparison: ``summary.json``, ``report.md`` and ``report.html`` (the shared page
layout, :mod:`crossdyn.pages`) with a verdict table, the trajectory error over time and each engine's settings, and
the terminal lines the command prints."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from crossdyn.pages import folded, render_html, render_markdown
from crossdyn.robotcompare.compare import RobotComparison, as_json_safe

GROUPS = ("trajectory", "inverse_dynamics", "forward_dynamics", "mass_matrix", "energy")
"""The judged metric groups, in the table's order."""

HEADLINE = {"trajectory": ("max_abs_error_rad", "rad"), "inverse_dynamics": ("max_abs_error_nm", "N m"),
            "forward_dynamics": ("max_abs_error", "rad/s^2"), "mass_matrix": ("max_abs_error", "kg m^2"),
            "energy": ("work_energy_residual_rel", "of E_scale")}


def cell(entry: dict, group: str) -> str:
    """``PASS 501 (2.1e-09 rad)``: the group's verdict, its checks and its headline error; ``-`` if not measured."""
    values = entry.get(group)
    if not isinstance(values, dict) or "verdict" not in values:
        return "-"
    key, unit = HEADLINE[group]
    v = values.get(key)
    figure = "" if v is None else f" ({v:.2g} {unit})"
    return f"{values['verdict']} {values.get('checks', 0)}{figure}"


def verdict_rows(summary: dict) -> list[list[str]]:
    """One row per engine: its name, run status, and a :func:`cell` per judged group (the reason if not run)."""
    rows = []
    for name, e in summary["engines"].items():
        if e["status"] != "ok" and not any(isinstance(e.get(g), dict) for g in GROUPS):
            rows.append([name, e["status"], e.get("reason", "")] + [""] * (len(GROUPS) - 1))
        else:
            rows.append([name, e["status"]] + [cell(e, g) for g in GROUPS])
    return rows


def format_table(summary: dict) -> str:
    """The terminal table: one line per engine (the reason an engine did not run below it)."""
    head = ["engine", "run"] + list(GROUPS)
    rows = [head] + [r if r[1] == "ok" or r[3] else r[:2] + ["-"] * len(GROUPS) for r in verdict_rows(summary)]
    reasons = [f"  {name}: {e['status']}: {e.get('reason', '')}" for name, e in summary["engines"].items()
               if e["status"] != "ok"]
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(len(head))]
    lines = [f"{summary['robot']} ({summary['format']}, {summary['dof']} joints), dt = {summary['dt']:g} s, "
             f"{summary['duration']:g} s, open-loop multi-sine torque about the mid-limit pose; {summary['states']} "
             "random states"]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())
    return "\n".join(lines + reasons)


def checks_line(summary: dict) -> str:
    checks = dict(summary.get("checks", {}))
    total = checks.pop("total", sum(checks.values()))
    return f"{total} checks: " + ", ".join(f"{k} {v}" for k, v in checks.items()) if checks else "0 checks"


def _plot(result: RobotComparison) -> bytes | None:
    """max_j |q_j − q_ref,j| over time, per engine (log scale), PNG bytes; None without matplotlib or data."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    import io

    ref = result.job.reference
    fig, ax = plt.subplots(figsize=(7, 3.5))
    drawn = False
    for name, run in result.runs.items():
        if run.driven is None or not len(run.driven.q):
            continue
        k = min(len(run.driven.q), len(ref.q))
        err = np.max(np.abs(run.driven.q[:k] - ref.q[:k]), axis=1)
        ax.semilogy(run.driven.t[:k], np.maximum(err, 1e-17), label=name)
        drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xlabel("t [s]")
    ax.set_ylabel("max_j |q_j - q_ref,j| [rad]")
    ax.set_title(f"{result.model.name}: each engine against crossdyn's reference")
    ax.legend(fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return buf.getvalue()


def blocks(result: RobotComparison, plot: bool) -> list[tuple]:
    """The report's blocks (:mod:`crossdyn.pages`)."""
    s = result.summary
    out: list[tuple] = [("h", 1, f"crossdyn compare {Path(s['file']).name}"),
                        ("p", f"**{s['verdict']}** ({checks_line(s)}). {s['robot']} read from {s['file']} "
                              f"({s['format']}, {s['dof']} joints); dt = {s['dt']:g} s, {s['duration']:g} s."),
                        ("h", 2, "Verdicts"),
                        ("table", ["engine", "run"] + list(GROUPS), verdict_rows(s))]
    out += [("ul", [f"FAIL {f}" for f in s["failures"]] + [f"INCONCLUSIVE {i}" for i in s["inconclusive"]]
             + [f"note: {n}" for n in s["notes"]])] if s["failures"] or s["inconclusive"] or s["notes"] else []
    if plot:
        out += [("h", 2, "Trajectory error"), ("img", "trajectory_error.png", "each engine's largest joint error "
                                                "against crossdyn's reference over the run")]
    out += [("h", 2, "Reference and torque"),
            ("p", f"Reference: {s['reference']['model']}, {s['reference']['integrator']} (rtol = atol = "
                  f"{s['reference']['rtol']:g}) restarted each step. Torque: {s['profile']['name']}, frequencies "
                  f"{s['profile']['frequencies_hz']} Hz about q* = {np.round(s['profile']['center'], 4).tolist()}; "
                  "every engine receives the same torque sequence.")]
    for name, e in s["engines"].items():
        if e.get("config"):
            out += [("h", 2, f"Settings of {name}"),
                    ("table", ["setting", "value"], [[k, json.dumps(v)] for k, v in e["config"].items()])]
    return folded(out)


def write_outputs(result: RobotComparison, out: Path, plots: bool = True) -> None:
    """``summary.json``, ``report.md``, ``report.html`` (and ``trajectory_error.png``) into ``out``."""
    from crossdyn.io import write_bytes_atomic, write_json_atomic, write_text_atomic

    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / "summary.json", as_json_safe(result.summary))
    png = _plot(result) if plots else None
    images = {}
    if png is not None:
        write_bytes_atomic(out / "trajectory_error.png", png)
        images["trajectory_error.png"] = png
    page = blocks(result, png is not None)
    write_text_atomic(out / "report.md", render_markdown(page))
    write_text_atomic(out / "report.html", render_html(page, images))
