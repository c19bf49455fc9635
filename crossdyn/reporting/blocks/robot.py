"""The robot-file comparison's report (``compare ROBOT.urdf|ROBOT.xml``, a DH arm) as blocks, read from its
``summary.json`` document (schema ``crossdyn.robot-compare/1``), in the planar report's layout: the verdict and what
it rests on, the summary table (engine × judged group: verdict, checks, largest error, tolerance), the notes, the
plots; then, collapsed: the errors per joint, the reference and the torque, each engine's settings, the run's
settings and versions.

Units by joint type: a revolute joint's errors are in rad (τ in N m, q̈ in rad/s²), a prismatic joint's in m (N,
m/s²); a cell over both kinds states both, ``6.84e-13 rad, 2.13e-14 m`` (the document's ``max_abs_error_by_unit``),
never one maximum over mixed units.  A group's tolerance is one number bounding every joint's error in that joint's
own unit, so it is stated in each unit present."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from crossdyn.conventions import joint_unit
from crossdyn.reporting.blocks.derivatives import SENSITIVITY_CAPTION, derivatives_blocks, derivatives_cell
from crossdyn.reporting.blocks.summary import notes_blocks, verdict_blocks
from crossdyn.reporting.blocks.text import fmt, folded, result_cell

GROUPS = ("trajectory", "inverse_dynamics", "forward_dynamics", "mass_matrix", "energy")
"""The judged metric groups, in the table's order."""

EFFORT = "effort"
"""The group judged only under ``--effort`` (a column of its own where an engine has it)."""


def groups_of(summary: dict) -> tuple[str, ...]:
    """:data:`GROUPS`, and ``effort`` where an engine of ``summary`` has that group (``compare ROBOT --effort``)."""
    has = any(isinstance(e.get(EFFORT), dict) for e in summary["engines"].values())
    return GROUPS + ((EFFORT,) if has else ()) + (("derivatives",) if isinstance(summary.get("derivatives"), dict)
                                                   else ())

HEADLINE = {"trajectory": ("max_abs_error_rad", "rad"), "inverse_dynamics": ("max_abs_error_nm", "N m"),
            "forward_dynamics": ("max_abs_error", "rad/s^2"), "mass_matrix": ("max_abs_error", "kg m^2"),
            "energy": ("work_energy_residual_rel", "of E_scale"), "effort": ("clip_excess", "N m")}
"""Each group's headline error and its unit where the group has no ``max_abs_error_by_unit`` (energy; a document
written before units by joint type, every joint taken as revolute)."""

TOLERANCE = {"trajectory": "tolerance_rad", "inverse_dynamics": "tolerance_nm", "forward_dynamics": "tolerance",
             "mass_matrix": "tolerance", "energy": "work_energy_tolerance", "effort": "clip_tolerance"}
"""Each group's tolerance in its values (one number for every joint, each in its own unit)."""

PER_JOINT = {"trajectory": ("max_abs_error_per_joint_rad", "position", "|q − q_ref|"),
             "inverse_dynamics": ("max_abs_error_per_joint_nm", "effort", "|τ − τ_ref|"),
             "forward_dynamics": ("max_abs_error_per_joint", "acceleration", "|q̈ − q̈_ref|")}
"""The groups with per-joint errors: the key, the quantity (its unit by joint type) and what is measured."""

def pretty(unit: str) -> str:
    """A unit as the report writes it: ``rad/s^2`` as ``rad/s²``, ``kg m^2`` as ``kg m²``."""
    return unit.replace("^2", "²")


def figures(values: dict, group: str) -> list[tuple[float | None, str]]:
    """A group's largest error per unit, ``[(value, unit), …]``: from ``max_abs_error_by_unit`` (rad and m, N m
    and N, …) where the document has it, else :data:`HEADLINE`'s one figure."""
    by = values.get("max_abs_error_by_unit")
    if isinstance(by, dict) and by:
        return [(v, u) for u, v in by.items()]
    key, unit = HEADLINE[group]
    return [(values.get(key), unit)]


def robot_cell(group: str, m: dict) -> str:
    """A summary table cell: ``PASS (501 checks), 6.84e-13 rad, 2.13e-14 m; tolerance 1.01e-09 rad, 1.01e-09 m``
    (the verdict and checks, then the largest error and the tolerance in each unit present); ``derivatives``: the
    verdict, checks and worst ratio to the tolerance."""
    if group == "derivatives":
        return derivatives_cell({group: m})
    figs = figures(m, group)
    shown = ", ".join(f"{fmt(float(v))} {pretty(u)}" for v, u in figs if v is not None)
    tol = m.get(TOLERANCE[group])
    bound = ("no tolerance" if tol is None else
             "tolerance " + ", ".join(f"{fmt(float(tol))} {pretty(u)}" for _, u in figs))
    return result_cell(m) + (f", {shown}" if shown else "") + f"; {bound}"


def joint_kinds(summary: dict) -> str:
    """``3 joints: 2 revolute, 1 prismatic (joint3)``."""
    types = summary.get("joint_types") or []
    prismatic = [n for n, t in zip(summary["joints"], types, strict=False) if t == "prismatic"]
    if not prismatic:
        return f"{summary['dof']} joints, revolute"
    return (f"{summary['dof']} joints: {summary['dof'] - len(prismatic)} revolute, {len(prismatic)} prismatic "
            f"({', '.join(prismatic)})")


def robot_summary_blocks(summary: dict) -> list[tuple]:
    """Section "Summary": the run in one line, what a cell says and in which units, then per engine its run status,
    a :func:`robot_cell` per judged group and the reason of a run that did not finish."""
    eng = summary["engines"]
    reasons = any(v.get("reason") for v in eng.values())
    groups = groups_of(summary)
    rows = [[k, v["status"]] + [robot_cell(g, v[g]) if isinstance(v.get(g), dict) and "verdict" in v[g] else "–"
                                for g in groups] + ([v.get("reason") or ""] if reasons else [])
            for k, v in eng.items()]
    return [("h", 2, "Summary"),
            ("p", f"{summary['robot']} read from {summary['file']} ({summary['format']}, {joint_kinds(summary)}), "
                  f"dt = {summary['dt']:g} s, {summary['duration']:g} s of feedforward + PD tracking of a multi-sine "
                  f"about the mid-limit pose, the same law on each run's own state (the reference's and every "
                  f"engine's), {summary['states']} random states. Each cell: the group's verdict, its checks, "
                  "its largest error and its tolerance (energy: relative to the energy scale). Units by joint type: "
                  "a revolute joint's errors in rad (τ in N m, q̈ in rad/s²), a prismatic joint's in m (N, m/s²); "
                  "one tolerance bounds every joint's error in that joint's own unit. run: did the engine run to the "
                  "end (ok, diverged, failed, skipped, unsupported)."),
            ("table", ["engine", "run"] + [g.replace("_", " ") for g in groups] + (["reason"] if reasons else []),
             rows)]


def robot_plot_blocks(images) -> list[tuple]:
    """Section "Plots" (where a figure was drawn): the trajectory error per joint."""
    captions = {"trajectory_error.png": "Trajectory error per joint: |q_j − q_ref,j| of each engine's driven run "
                                        "against crossdyn's reference, in the joint's unit (rad or m)",
                "sensitivity.png": SENSITIVITY_CAPTION}
    shown = [name for name in captions if name in images]
    return [("h", 2, "Plots")] + [("img", name, captions[name]) for name in shown] if shown else []


def joint_error_blocks(summary: dict) -> list[tuple]:
    """Section "Errors per joint": per group with per-joint errors, a table joint × engine, each error in the
    joint's unit, and the engine's tolerance below."""
    eng = {k: v for k, v in summary["engines"].items() if isinstance(v.get("trajectory"), dict)}
    if not eng:
        return []
    types = summary.get("joint_types") or ["revolute"] * summary["dof"]
    b: list[tuple] = [("h", 2, "Errors per joint"),
                      ("p", "The largest error of each joint over the driven run (trajectory) and over the random "
                            "states (inverse and forward dynamics), in the joint's unit.")]
    for group, (key, quantity, what) in PER_JOINT.items():
        units = [pretty(joint_unit(t != "prismatic", quantity)) for t in types]
        rows = [[name, t] + [fmt(float(e[group][key][j]), f" {units[j]}")
                             if isinstance(e.get(group), dict) and e[group].get(key) and e[group][key][j] is not None
                             else "–" for e in eng.values()]
                for j, (name, t) in enumerate(zip(summary["joints"], types, strict=False))]
        tol = ["tolerance", "each joint, in its unit"] + [
            fmt(e[group].get(TOLERANCE[group])) if isinstance(e.get(group), dict) else "–" for e in eng.values()]
        b += [("p", f"*{group.replace('_', ' ')}*: max {what}"),
              ("table", ["joint", "type"] + list(eng), rows + [tol])]
    return b


def vector(values, units) -> str:
    """``(0 rad, 0 rad, 0.2 m)``: a joint vector with each entry's unit."""
    return "(" + ", ".join(f"{v:.4g} {u}" for v, u in zip(values, units, strict=False)) + ")"


def reference_blocks(summary: dict) -> list[tuple]:
    """Section "Reference and torque": the reference model and integrator, the multi-sine and its centre."""
    s = summary
    units = s.get("joint_units") or ["rad"] * s["dof"]
    return [("h", 2, "Reference and torque"),
            ("p", f"Reference: {s['reference']['model']}, {s['reference']['integrator']} (rtol = atol = "
                  f"{s['reference']['rtol']:g}) restarted each step. Torque: {s['profile']['name']}, frequencies "
                  f"{s['profile']['frequencies_hz']} Hz about q* = {vector(s['profile']['center'], units)}; every "
                  "engine receives the same torque sequence.")]


def settings_blocks(summary: dict) -> list[tuple]:
    """One section per engine that ran: its settings (what crossdyn neutralised, and how to switch it back)."""
    import json

    b: list[tuple] = []
    for name, e in summary["engines"].items():
        if e.get("config"):
            b += [("h", 2, f"Settings of {name}"),
                  ("table", ["setting", "value"], [[k, json.dumps(v)] for k, v in e["config"].items()])]
    return b


def robot_run_blocks(summary: dict) -> list[tuple]:
    """Section "Run settings and versions": the run's settings, the start and the version of every package."""
    s = summary
    units = s.get("joint_units") or ["rad"] * s["dof"]
    return [("h", 2, "Run settings and versions"),
            ("p", f"dt = {s['dt']:g} s, duration = {s['duration']:g} s, {s['states']} random states, seed "
                  f"{s.get('seed')}; start q0 = {vector(np.round(s['start']['q0'], 6), units)}. Torque scale = "
                  f"{fmt(s.get('torque_scale_nm'), ' N m')}, energy scale = {fmt(s.get('energy_scale_j'), ' J')}."),
            ("table", ["package", "version"], [[k, str(v)] for k, v in s.get("versions", {}).items() if v])]


def limits_blocks(summary: dict) -> list[tuple]:
    """Section "Joint limits, each engine's own" (``compare ROBOT --native`` only): why it is not judged, then per
    limit contact of the limit-free reference and of each engine with its own enforcement on: the excursion beyond
    the limit, the time in contact, the entry and exit speeds and the peak limit torque inferred (each in its
    joint's unit)."""
    lim = summary.get("limits")
    if not isinstance(lim, dict):
        return []
    runs = [("reference (no limits)", lim.get("reference") or {})] + list((lim.get("engines") or {}).items())
    units = summary.get("joint_units") or ["rad"] * summary["dof"]
    rows = []
    for name, run in runs:
        for c in run.get("contacts") or []:
            u = units[c["joint"] - 1]
            rows.append([name, c["joint_name"], c["side"], fmt(c["max_penetration_rad"], f" {u}"),
                         fmt(c["time_in_contact_s"]), fmt(c["entry_speed"], f" {u}/s"), fmt(c["exit_speed"], f" {u}/s"),
                         fmt(c["peak_torque_nm"], " N m" if u == "rad" else " N")])
        if not run.get("contacts") and name != runs[0][0]:
            status = run.get("status")
            why = run.get("reason") or "no limit contact"
            rows.append([name, "–", "–", "–", "–", "–", "–", why if status in (None, "ok") else f"{status}: {why}"])
    knobs = "; ".join(f"{n}: {r.get('enforced_by', '')}" for n, r in (lim.get("engines") or {}).items())
    b: list[tuple] = [("h", 2, "Joint limits, each engine's own"),
                      ("p", f"{lim['verdict']}: {lim['because']}." + (f" Engines: {knobs}." if knobs else ""))]
    if rows:
        b.append(("table", ["run", "joint", "side", "beyond the limit", "time in contact (s)", "entry speed",
                            "exit speed", "peak limit torque"], rows))
    return b


def robot_report_blocks(summary: dict, images) -> list[tuple]:
    """The report as blocks (:mod:`crossdyn.pages`): the verdict, "Summary", "Notes", "Plots" (``images``: the
    figure files drawn); then collapsed: "Errors per joint", "Reference and torque", "Settings of …" per engine,
    "Run settings and versions"."""
    name = f"{summary['robot']} ({Path(summary['file']).name})"
    b = verdict_blocks(summary, name) + robot_summary_blocks(summary) + notes_blocks(summary)
    b += robot_plot_blocks(images) + limits_blocks(summary) + derivatives_blocks(summary)
    return b + folded(joint_error_blocks(summary) + reference_blocks(summary) + settings_blocks(summary)
                      + robot_run_blocks(summary))
