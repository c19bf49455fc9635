"""The outputs of a robot-file comparison: ``summary.json``, ``report.md`` and ``report.html`` (and
``trajectory_error.png``), and the terminal lines the command prints.

The report is the planar report's layout, rendered by the same renderer with blocks of its own
(:mod:`crossdyn.reporting.blocks.robot`, the figure :mod:`crossdyn.reporting.plots.robot`): the verdict, the summary
table, the plots, then the details collapsed.  Every joint error is in its joint's unit: a revolute joint's in rad
(N m, rad/s²), a prismatic joint's in m (N, m/s²); a row over both kinds states both (``6.8e-13 rad, 2.1e-14 m``),
never one maximum over mixed units (:mod:`crossdyn.robotcompare.units`)."""
from __future__ import annotations

import warnings
from pathlib import Path

from crossdyn.reporting.blocks.robot import figures, groups_of
from crossdyn.reporting.blocks.text import checks_line as checks_line  # the terminal's, shared with compare
from crossdyn.robotcompare.compare import RobotComparison, as_json_safe


def cell(entry: dict, group: str) -> str:
    """``PASS 501 (2.1e-09 rad)``: the group's verdict, its checks and its headline error per unit (``PASS 501
    (2.1e-09 rad, 3e-10 m)`` on an arm with revolute and prismatic joints); ``-`` if not measured."""
    if group == "derivatives":
        from crossdyn.reporting.blocks.derivatives import derivatives_cell
        return derivatives_cell(entry)
    values = entry.get(group)
    if not isinstance(values, dict) or "verdict" not in values:
        return "-"
    shown = [f"{v:.2g} {u}" for v, u in figures(values, group) if v is not None]
    figure = f" ({', '.join(shown)})" if shown else ""
    return f"{values['verdict']} {values.get('checks', 0)}{figure}"


def units_line(summary: dict) -> str | None:
    """On an arm with a prismatic joint: which joints' errors are in m (N, m/s²) and which in rad; None on an arm
    of revolute joints only."""
    units = summary.get("joint_units") or []
    prismatic = [n for n, u in zip(summary.get("joints", []), units, strict=False) if u == "m"]
    if not prismatic:
        return None
    return (f"  units: prismatic joints ({', '.join(prismatic)}) in m, N, m/s^2; revolute joints in rad, N m, "
            "rad/s^2; mass matrix in kg m^2, kg m, kg (revolute-revolute, mixed, prismatic-prismatic entries)")


def verdict_rows(summary: dict) -> list[list[str]]:
    """One row per engine: its name, run status, and a :func:`cell` per judged group (the reason if not run)."""
    rows = []
    groups = groups_of(summary)
    for name, e in summary["engines"].items():
        if e["status"] != "ok" and not any(isinstance(e.get(g), dict) for g in groups):
            rows.append([name, e["status"], e.get("reason", "")] + [""] * (len(groups) - 1))
        else:
            rows.append([name, e["status"]] + [cell(e, g) for g in groups])
    return rows


def format_table(summary: dict) -> str:
    """The terminal table: one line per engine (the reason an engine did not run below it)."""
    groups = groups_of(summary)
    head = ["engine", "run"] + list(groups)
    rows = [head] + [r if r[1] == "ok" or r[3] else r[:2] + ["-"] * len(groups) for r in verdict_rows(summary)]
    reasons = [f"  {name}: {e['status']}: {e.get('reason', '')}" for name, e in summary["engines"].items()
               if e["status"] != "ok"]
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(len(head))]
    lines = [f"{summary['robot']} ({summary['format']}, {summary['dof']} joints), dt = {summary['dt']:g} s, "
             f"{summary['duration']:g} s, feedforward + PD tracking of a multi-sine about the mid-limit pose in every "
             f"run; {summary['states']} "
             "random states"]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())
    units = units_line(summary)
    return "\n".join(lines + ([units] if units else []) + reasons)


def write_outputs(result: RobotComparison, out: Path, plots: bool = True) -> None:
    """``summary.json``, ``report.md``, ``report.html`` (and ``trajectory_error.png``) into ``out``: the report's
    blocks are :func:`crossdyn.reporting.blocks.robot.robot_report_blocks`, rendered as every report is."""
    from crossdyn.io import write_bytes_atomic, write_json_atomic, write_text_atomic
    from crossdyn.reporting.blocks.robot import robot_report_blocks
    from crossdyn.reporting.plots.robot import PLOTS, robot_plots
    from crossdyn.reporting.render import render_html, render_markdown

    out.mkdir(parents=True, exist_ok=True)
    summary = as_json_safe(result.summary)
    write_json_atomic(out / "summary.json", summary)
    with warnings.catch_warnings():  # e.g. "No artists with labels" when no engine produced a run
        warnings.filterwarnings("ignore", category=UserWarning, module="matplotlib")
        images = robot_plots(result) if plots else {}
    for name, data in images.items():
        write_bytes_atomic(out / name, data)
    for name in PLOTS:  # a figure an earlier run left here would mislead
        if name not in images:
            (out / name).unlink(missing_ok=True)
    page = robot_report_blocks(summary, list(images))
    write_text_atomic(out / "report.md", render_markdown(page))
    write_text_atomic(out / "report.html", render_html(page, images))
