"""The top of the report: the answer on one screen.  The verdict and what it rests on, a summary table (engine ×
judged group, each cell its verdict, its figure and its checks; the arm-wide sections' verdicts below it), the
notes; and, collapsed at the bottom, the run's settings and versions."""
from __future__ import annotations

import numpy as np

from crossdyn.reporting.blocks.text import (METRICS, checks_sentence, fmt, profile_parameters, result_cell,
                                            summary_cell)

ARM_SECTIONS = {"limits": "joint limits", "friction": "Coulomb friction", "contact": "contact"}
"""The summary document's arm-wide sections that carry a verdict of their own, and their names in the table."""


def judged_groups(summary: dict) -> list[str]:
    """The per-engine groups judged in this run (an entry with a ``verdict``): :data:`METRICS` first, then the
    others in the order met."""
    seen: list[str] = []
    for e in summary["engines"].values():
        seen += [k for k, m in e.items() if isinstance(m, dict) and "verdict" in m and k not in seen]
    return [m for m in METRICS if m in seen] + [g for g in seen if g not in METRICS]


def summary_blocks(summary: dict) -> list[tuple]:
    """Section "Summary": the run in one line, then per engine its run status and a cell per judged group
    (:func:`~crossdyn.reporting.blocks.text.summary_cell`; – where the group was not judged for it), and the
    reason of a run that did not finish; a second table for the arm-wide sections with a verdict."""
    prof = summary["profile"]
    groups = judged_groups(summary)
    eng = summary["engines"]
    reasons = any(v.get("reason") for v in eng.values())
    rows = [[k, v["status"]] + [summary_cell(g, v[g]) if isinstance(v.get(g), dict) else "–" for g in groups]
            + ([v.get("reason") or ""] if reasons else []) for k, v in eng.items()]
    b: list[tuple] = [("h", 2, "Summary"),
                      ("p", f"{summary['dof']}R arm {summary['arm']}, dt = {summary['dt']:g} s, duration = "
                            f"{summary['duration']:g} s, profile {prof.get('name', prof)}. Each cell: the group's "
                            "verdict, its checks and its largest error (energy: relative to the energy scale); "
                            "run: did the engine run to the end (ok, diverged, failed, skipped, unsupported)."),
                      ("table", ["engine", "run"] + [g.replace("_", " ") for g in groups]
                       + (["reason"] if reasons else []), rows)]
    arm = [[name, result_cell(summary[key])] for key, name in ARM_SECTIONS.items()
           if isinstance(summary.get(key), dict) and summary[key].get("verdict")]
    if arm:
        b.append(("table", ["arm-wide section", "result"], arm))
    return b


def verdict_blocks(summary: dict, name: str | None = None) -> list[tuple]:
    """The title with the verdict, what it rests on, and what changes it: an interruption, the failures, the
    inconclusive groups, the baseline's regressions and warnings.  ``name``: what was compared, in the title
    (default the summary's ``arm``; a robot file's report names the robot and its file)."""
    b: list[tuple] = [("h", 1, f"crossdyn comparison: {name or summary['arm']} — {summary['verdict'].upper()}")]
    if summary.get("interrupted"):
        b.append(("p", "**Interrupted (Ctrl-C): engines marked skipped did not run; everything else is complete.**"))
    b.append(("p", f"**Verdict: {summary['verdict'].upper()}.** " + checks_sentence(summary)))
    if summary["failures"]:
        b.append(("p", "Failures: " + "; ".join(summary["failures"])))
    if summary.get("inconclusive"):
        b.append(("p", "Inconclusive (could not be judged): " + "; ".join(summary["inconclusive"])))
    if summary.get("not_exercised"):
        b.append(("p", "NOT EXERCISED (declared by the arm, never reached by this run: 0 checks, like a skipped "
                       "test; the verdict is the rest's, and --require names what must be exercised): "
                  + "; ".join(summary["not_exercised"])))
    base = summary.get("baseline")
    if base:
        b.append(("p", f"Baseline {base['file']}: " + ("; ".join(base["regressions"]) if base["regressions"]
                                                        else "no regression") + "."))
        for w in base["warnings"]:
            b.append(("p", f"**Warning (baseline):** {w}."))
    return b


def notes_blocks(summary: dict) -> list[tuple]:
    """Section "Notes" (where there are any): the run's notes and the inertia substitutions."""
    b: list[tuple] = [("p", f"Note: {note}.") for note in summary.get("notes", [])]
    if summary.get("inertia_substitutions"):
        b.append(("p", "Inertia substitutions (point masses, every engine file): " + "; ".join(
            f"link {s['link']}: J {s['spec_inertia']:g} → {s['engine_inertia']:.3g} kg m²"
            for s in summary["inertia_substitutions"])))
    return [("h", 2, "Notes")] + b if b else []


def run_blocks(summary: dict) -> list[tuple]:
    """Section "Run settings and versions": the profile with its parameters, the start, the reference and the
    version of every package."""
    prof = summary["profile"]
    return [("h", 2, "Run settings and versions"),
            ("p", f"{summary['dof']}R arm, dt = {summary['dt']:g} s, duration = {summary['duration']:g} s, profile "
                  f"{prof.get('name', prof)}{profile_parameters(prof)}; start q0 = "
                  f"{np.round(summary['start']['q0'], 4).tolist()} rad. Reference: analytic model integrated by "
                  "DOP853 (rtol = atol = 1e-12) restarted at every hold interval."),
            ("table", ["package", "version"], [[k, str(v)] for k, v in summary["versions"].items() if v]),
            ("p", "Torque scale Σ mᵢ|g|rᵢ = " + fmt(summary.get("torque_scale_nm"), " N m") + ", energy scale = "
                  + fmt(summary.get("energy_scale_j"), " J") + " (the tolerances' scales).")]
