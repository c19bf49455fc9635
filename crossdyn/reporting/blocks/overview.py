"""The report's frame: its title and run description, the notes, the arm, the status table, closed-loop control,
the engine configuration audit and the plots with their captions."""
from __future__ import annotations

import numpy as np

from crossdyn.reporting.blocks.text import checks_sentence, engine_result, fmt, profile_parameters


def intro_blocks(summary: dict) -> list[tuple]:
    """The title with the verdict; the arm, dt, duration, profile, start, reference and versions; then an
    interruption, the failures, the notes, the baseline's regressions and warnings, inertia substitutions."""
    b: list[tuple] = []
    verdict = summary["verdict"].upper()
    b.append(("h", 1, f"crossdyn comparison: {summary['arm']} — {verdict}"))
    prof = summary["profile"]
    b.append(("p", f"{summary['dof']}R arm, dt = {summary['dt']:g} s, duration = {summary['duration']:g} s, profile "
                   f"{prof.get('name', prof)}{profile_parameters(prof)}; start q0 = "
                   f"{np.round(summary['start']['q0'], 4).tolist()} rad. Reference: "
                   "analytic model integrated by DOP853 (rtol = atol = 1e-12) restarted at every hold interval. "
                   f"Versions: {', '.join(f'{k} {v}' for k, v in summary['versions'].items() if v)}."))
    if summary.get("interrupted"):
        b.append(("p", "**Interrupted (Ctrl-C): engines marked skipped did not run; everything else is complete.**"))
    if checks_sentence(summary):
        b.append(("p", checks_sentence(summary)))
    if summary["failures"]:
        b.append(("p", "Failures: " + "; ".join(summary["failures"])))
    if summary.get("inconclusive"):
        b.append(("p", "Inconclusive (could not be judged): " + "; ".join(summary["inconclusive"])))
    for note in summary.get("notes", []):
        b.append(("p", f"Note: {note}."))
    base = summary.get("baseline")
    if base:
        b.append(("p", f"Baseline {base['file']}: " + ("; ".join(base["regressions"]) if base["regressions"]
                                                        else "no regression") + "."))
        for w in base["warnings"]:
            b.append(("p", f"**Warning (baseline):** {w}."))
    if summary["inertia_substitutions"]:
        b.append(("p", "Inertia substitutions (point masses, every engine file): " + "; ".join(
            f"link {s['link']}: J {s['spec_inertia']:g} → {s['engine_inertia']:.3g} kg m²"
            for s in summary["inertia_substitutions"])))
    return b


def arm_blocks(summary: dict, images) -> list[tuple]:
    """The arm: a parameter table, gravity, and the drawing at q0 (if drawn)."""
    spec = summary.get("spec") or {}
    b: list[tuple] = [("h", 2, f"The arm: {summary['arm']}")]
    rows = [[str(i), fmt(float(link["length"])), fmt(float(link["mass"])), fmt(float(link["com"])),
             fmt(float(link["inertia"])), fmt(float(link.get("damping", 0.0))), fmt(float(link.get("friction", 0.0)))]
            for i, link in enumerate(spec.get("links", []), start=1)]
    b.append(("table", ["link", "L [m]", "m [kg]", "Lc [m]", "J [kg m²]", "damping b [N m s/rad]",
                        "friction f_c [N m]"], rows))
    g = spec.get("gravity", [0.0, -9.81, 0.0])
    b.append(("p", f"Gravity g = ({', '.join(f'{x:g}' for x in g)}) m/s². Lc: centre of mass from the proximal "
                   "joint along the link; J: inertia about the centre of mass, about z. Start q0 = "
                   f"{np.round(summary['start']['q0'], 4).tolist()} rad, q̇0 = "
                   f"{np.round(summary['start']['qd0'], 4).tolist()} rad/s."))
    if "arm.png" in images:
        b.append(("img", "arm.png", "the arm at the start q0 (joints, centres of mass, gravity)"))
    return b


def status_blocks(summary: dict) -> list[tuple]:
    """Section "Status": per engine its run status, its result (:func:`engine_result`) and the reason."""
    return [("h", 2, "Status"),
            ("p", "Run: did the engine run to the end (ok, diverged, failed, skipped; unsupported: it cannot "
                  "represent this arm, see the notes). Result: pass, or the "
                  "metrics out of tolerance."),
            ("table", ["engine", "run", "result", "reason"],
             [[k, v["status"], engine_result(v), v.get("reason") or ""] for k, v in summary["engines"].items()])]


def control_blocks(summary: dict, images) -> list[tuple]:
    """Closed-loop runs: the control law, its gains and targets, and each engine's tracking error."""
    prof = summary["profile"]
    if not prof.get("closed_loop"):
        return []
    b: list[tuple] = [("h", 2, f"Control ({prof['name']}, closed loop)")]
    vec = lambda v: ", ".join(f"{x:g}" for x in v)  # noqa: E731
    b.append(("p", f"Law: τ = {prof.get('law', '?')}, evaluated from each engine's own state at the start of every "
                   f"step with crossdyn's analytic model. Gains: K_p = ({vec(prof['kp'])}), K_d = ({vec(prof['kd'])})."))
    traj = prof.get("trajectory") or (prof.get("target") if isinstance(prof.get("target"), dict) else None)
    if traj is None:
        b.append(("p", f"Target: the fixed configuration q_d = ({vec(prof['target'])}) rad (q̇_d = 0)."))
    else:
        src = traj.get("source") or {}
        where = f" from {src['file']} ({src.get('space', 'joint')} way-points)" if src.get("file") else ""
        b.append(("p", f"Target: a {traj['kind']} trajectory{where}; outside its times it holds its end point."))
        rows = []
        for k, (t, q) in enumerate(zip(traj["times"], traj["waypoints"], strict=False), start=1):
            row = [str(k), f"{t:g}", vec(np.round(q, 5))]
            if src.get("cartesian_points"):
                row.append(vec(src["cartesian_points"][k - 1])
                           + (f"; φ = {src['orientations'][k - 1]:g}" if src.get("orientations") else ""))
            rows.append(row)
        b.append(("table", ["point", "t [s]", "q [rad]"] + (["x, y [m]"] if src.get("cartesian_points") else []), rows))
    eng = summary["engines"]
    b.append(("p", "Tracking error |q − q_d| of each engine's arm against the desired motion: a property of the "
                   "gains and the time step, reported, not judged (the engines are judged against the reference)."))
    b.append(("table", ["engine", "max |q − q_d| [rad]", "RMS [rad]", "final [rad]"],
              [[k, fmt(v["tracking"]["max_abs_error_rad"]), fmt(v["tracking"]["rms_error_rad"]),
                fmt(v["tracking"]["final_abs_error_rad"])] for k, v in eng.items() if v.get("tracking")]))
    if "tracking.png" in images:
        b.append(("img", "tracking.png", "tracking error against the desired motion"))
    return b


def audit_blocks(summary: dict) -> list[tuple]:
    """Section "Engine configuration audit": every physics setting each adapter reports, one table per engine."""
    b: list[tuple] = [("h", 2, "Engine configuration audit"),
                      ("p", "Every setting that can change the physics, as each adapter reports it.")]
    for k, v in summary["engines"].items():
        cfg = v.get("config") or {}
        b.append(("table", [f"{k}: setting", "value"], [[ck, str(cv)] for ck, cv in cfg.items()]))
    return b


CAPTIONS = {"tracking.png": "tracking error against the desired motion",
            "error.png": "error against the reference (log scale)",
            "energy.png": "energy in free motion", "id_error_hist.png": "inverse-dynamics error histogram",
            "convergence.png": "convergence and speed–accuracy", "animation.gif": "animation, every engine overlaid",
            "limit_angles.png": "joint angles with the limit band shaded (outside it: beyond a limit)",
            "limit_torque.png": "limit torque per engine (native: inferred by inverse dynamics)",
            "stick_slip.png": "stick/slip timeline per joint: bars where the joint is stuck (reference: the "
                              "set-valued law's sticking mode; engines: |qd| below the stick threshold)",
            "contact.png": "contact: normal force and penetration against time, per engine (applied mode)",
            "tip_path.png": "the tip's path per engine, the obstacles drawn (a line per half-plane, its inside "
                            "shaded)",
            "native_contact.png": "native contact: penetration and normal force against time (native forces "
                                  "inferred by inverse dynamics) and the tip path with the obstacles"}
"""The caption of each figure in section "Plots" (angles.png's depends on the profile: :func:`plot_blocks`)."""


def plot_blocks(summary: dict, images) -> list[tuple]:
    """Section "Plots": every figure drawn, with its caption, but the arm and the tracking error (shown with the
    arm and the control sections)."""
    captions = {"angles.png": "joint angles" + (" (dashed: the controller's desired motion)"
                                                if summary["profile"].get("closed_loop") else ""), **CAPTIONS}
    b: list[tuple] = [("h", 2, "Plots")]
    for img in images:
        if img not in ("arm.png", "tracking.png"):
            b.append(("img", img, captions.get(img, img)))
    return b
