"""Sections "Contact" (applied mode) and "Native contact" (the engines' own contact: characterised, judged with
--native, calibrated with --calibrate-contact)."""
from __future__ import annotations

from crossdyn.reporting.blocks.metrics import precision_blocks
from crossdyn.reporting.blocks.text import fmt, section_verdict, vec


def contact_blocks(summary: dict) -> list[tuple]:
    """Section "Contact" (arms with [contact]): the applied law, its coarseness at this dt, and per run the
    contact quantities and the engine's tip-kinematics discrepancy."""
    con = summary.get("contact")
    if not isinstance(con, dict):
        return []
    keys = ("first_touch_s", "max_penetration_m", "peak_normal_force_n", "time_in_contact_s", "contacts",
            "impulse_n_s", "dissipated_j", "contact_work_j", "balance_residual_j", "max_tip_position_error_m")
    rows = []
    for name, e in [("reference", con.get("reference") or {})] + list(con.get("engines", {}).items()):
        rows.append([name] + [str(e.get(k)) if k == "contacts" else fmt(e.get(k)) for k in keys])
    held = con.get("held_law", {})
    verdict = section_verdict(con, "a check is a contact episode: each reference episode an engine's run made too, "
                                   "and with --native each quantity of each native episode compared")
    return [("h", 2, "Contact")] + ([("p", verdict)] if verdict else []) + [
            ("p", f"Applied mode: {con['law']}. The force comes from each engine's own tip kinematics at the start of "
                  "every step and is held over it, τ_c = J_cᵀ F (the reference gets it the same way); the engines' "
                  f"own contact is off. sqrt(k / m_n) dt = {fmt(held.get('omega_dt'))} (m_n: the effective mass "
                  "along the normal over the reference's contacts; > 0.1 means the held law is coarse), "
                  f"dt μ F_n / (v_s m_t) = {fmt(held.get('friction_step'))} (> 1: the held friction overshoots "
                  "v_t = 0). Impulse Σ F_n dt; dissipated D = Σ dD/dt dt; contact work W_c = Σ τ_c·Δq (exact for the "
                  "held torque); balance residual max |W_c + V + D| (O(dt) for the held law)."),
            ("table", ["run", "first touch [s]", "max penetration [m]", "peak F_n [N]", "in contact [s]",
                       "contacts", "impulse [N s]", "dissipated [J]", "contact work [J]", "balance residual [J]",
                       "tip FK error [m]"], rows)] + precision_blocks(summary, ["tip_kinematics"])


def contact_native_blocks(summary: dict) -> list[tuple]:
    """Section "Native contact" (arms with contact: by default characterised, with --native judged; with
    --calibrate-contact the calibration): the per-episode
    characterisation of the reference and each engine's own contact, the verdicts, the calibration."""
    contact = summary.get("contact") or {}
    native, cal = contact.get("native"), contact.get("calibration")
    if not native and not cal and not contact.get("calibration_skipped"):
        return []
    b: list[tuple]
    b = [("h", 2, "Native contact")]
    if contact.get("calibration_skipped"):
        b.append(("p", f"Calibration: {contact['calibration_skipped'].split(': ', 1)[-1]}: skipped."))
    if native:
        rows = []
        runs = [("reference", native["reference"]["episodes"])] + [(k, v.get("episodes", []))
                                                                  for k, v in native["engines"].items()]
        for name, eps in runs:
            for e in eps:
                rows.append([name, str(e["obstacle"]), str(e["episode"]), f"{e['t_enter_s']:.4f}",
                             fmt(e["max_penetration_m"]), fmt(e["peak_normal_force_n"]), fmt(e["duration_s"]),
                             fmt(e["restitution"]), fmt(e["impulse_ns"]), fmt(e["energy_dissipated_j"]),
                             fmt(e.get("path_deviation_m"))])
        b += [("p", f"The law: {native['law']}. Reference: {native['reference']['method']}. Per contact episode "
                    "(an interval with the tip sphere inside an obstacle): the largest penetration, the peak normal "
                    "force, the duration, the coefficient of restitution (normal separation speed / impact speed), "
                    "the normal impulse, the energy the contact dissipated (work–energy balance) and the tip's "
                    "largest distance from the reference's over the episode. Native forces are inferred from the "
                    "motion by inverse dynamics."),
              ("table", ["run", "obstacle", "episode", "entry [s]", "max penetration [m]", "peak normal force [N]",
                         "duration [s]", "restitution", "impulse [N s]", "energy dissipated [J]",
                         "tip path deviation [m]"], rows)]
        for name, e in native["engines"].items():
            v = e.get("verdict")
            if v is None:
                b.append(("p", f"{name}: {e['status']}: {e['reason']}"))
                continue
            soft = e["softness"]["relative_force_error_max"]
            judged = native.get("judged", True)
            word = ("PASS" if v["pass"] else "FAIL") if judged else (
                "within tolerance (characterised, not judged: compare --native judges)" if v["pass"] else
                "departs (characterised, not judged: compare --native makes this fail)")
            b.append(("p", f"{name}: {word}, {v['checked']} quantities checked, "
                           f"{len(v['departures'])} beyond tolerance (each episode against the law restarted at the "
                           "engine's pre-contact state; tolerance = integration-error estimate + the engine's "
                           f"measured contact-force departure from the law, {fmt(soft)}); whole-run tip path "
                           f"deviation {fmt(e['path_deviation_m'])} m."))
            if v["departures"]:
                b.append(("table", ["obstacle", "episode", "quantity", "reference", "native", "tolerance"],
                          [[str(d["obstacle"] or "–"), str(d["episode"] or "–"), d["quantity"], fmt(d["reference"]),
                            fmt(d["native"]), fmt(d["tolerance"])] for d in v["departures"]]))
        for name, why in native["unsupported"].items():
            b.append(("p", f"{name}: unsupported natively: {why}"))
    for name, c in (cal or {}).items():
        if name == "mujoco":
            b.append(("p", f"Calibration ({c['engine']}, compare --calibrate-contact): solref "
                           f"{vec(c['solref'])}, solimp {vec(c['solimp'])} reproduce the law best on this arm and "
                           f"motion (Nelder–Mead on the RMS joint-angle difference to the reference, {c['evaluations']} "
                           f"runs): residual {fmt(c['residual_rms_rad'])} rad, against "
                           f"{fmt(c['direct_residual_rms_rad'])} rad with crossdyn's direct setting "
                           f"{vec(c['direct_solref'])} ({fmt(c['improvement_over_direct'])}× closer), "
                           f"{fmt(c['literal_residual_rms_rad'])} rad with the literal (−k, −c) "
                           f"({fmt(c['improvement_over_literal'])}×) and {fmt(c['default_residual_rms_rad'])} rad "
                           f"with MuJoCo's default contact ({fmt(c['improvement_over_default'])}×)."))
        else:
            b.append(("p", f"Calibration ({c['engine']}, compare --calibrate-contact): contactStiffness "
                           f"{fmt(c['contact_stiffness'])} N/m, contactDamping {fmt(c['contact_damping'])} N s/m: "
                           f"residual {fmt(c['residual_rms_rad'])} rad against {fmt(c['direct_residual_rms_rad'])} "
                           f"rad with (k, c) ({fmt(c['improvement_over_direct'])}× closer), {c['evaluations']} runs."))
    return b
