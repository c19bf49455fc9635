"""Section "Joint limits": every limit contact of every run, the calibrations and the native verdicts."""
from __future__ import annotations

from crossdyn.reporting.blocks.text import fmt, section_verdict


def limit_blocks(summary: dict) -> list[tuple]:
    """Section "Joint limits" (arms with a limit law): per limit contact of every run, and the native verdicts."""
    lim = summary.get("limits")
    if not lim:
        return []
    rows = []
    for name, contacts in lim["contacts"].items():
        for c in contacts:
            rows.append([name, str(c["joint"]), c["side"], f"{c['t_enter_s']:.3f}", fmt(c["max_penetration_rad"]),
                         fmt(c["peak_torque_nm"]), fmt(c["time_in_contact_s"]), fmt(c["rebound_ratio"]),
                         fmt(c["energy_absorbed_j"]), fmt(c.get("effective_stiffness_nm_per_rad"))])
    b: list[tuple]
    b = [("h", 2, "Joint limits")]
    verdict = section_verdict(lim, "a check is a limit contact: each reference contact an engine's run made too, "
                                   "and each quantity a native verdict compared")
    if verdict:
        b.append(("p", verdict + (f" {lim['skipped'][0].upper()}{lim['skipped'][1:]}." if lim.get("skipped") else "")))
    b += [("p", "Per limit contact (an interval beyond one limit; gaps under 10 ms merged): the largest "
               "penetration, the peak limit torque, the time in contact, the rebound velocity ratio |q̇ exit| / "
               "|q̇ entry| and the energy the stop absorbed (−∫ τ_lim q̇ dt). Reference and applied runs: the "
               "law's torque; native runs (compare --native): the engine's own limit, its torque inferred by "
               "inverse dynamics."),
         ("table", ["run", "joint", "side", "entry [s]", "max penetration [rad]", "peak torque [N m]",
                    "time in contact [s]", "rebound ratio", "energy absorbed [J]",
                    "peak torque / penetration [N m/rad]"], rows)]
    cal = lim.get("calibration")
    if cal:
        b.append(("p", f"Calibration ({cal['engine']}, compare --calibrate-limits): the solreflimit/solimplimit that "
                       "best reproduce the law on this arm and motion, fitted per joint (Nelder–Mead on the RMS "
                       f"joint-angle difference to the reference, {cal['evaluations']} runs). Residual "
                       f"{fmt(cal['residual_rms_rad'])} rad against {fmt(cal['default_residual_rms_rad'])} rad "
                       f"with MuJoCo's default limit ({fmt(cal['improvement_over_default'])}× closer) and "
                       f"{fmt(cal['direct_residual_rms_rad'])} rad with the direct form (−k, −c)."))
        b.append(("table", ["joint", "solreflimit (timeconst, dampratio)", "solimplimit"],
                  [[str(j), " ".join(f"{x:.4g}" for x in r), " ".join(f"{x:.4g}" for x in i)]
                   for j, r, i in zip(cal["joints"], cal["solreflimit"], cal["solimplimit"], strict=False)]))
    pcal = lim.get("calibration_pybullet")
    if pcal:
        b.append(("p", f"Calibration ({pcal['engine']}, compare --calibrate-limits): PyBullet's limit is a hard "
                       "velocity-level constraint with no stiffness or damping; two settings change it — "
                       "jointLimitForce (per joint: caps the limit's torque, so the stop gives way) and erp "
                       "(world-global: one value for every limit; the fraction of a penetration pushed back per "
                       f"step). Fitted (Nelder–Mead from a coarse grid, {pcal['evaluations']} runs): residual "
                       f"{fmt(pcal['residual_rms_rad'])} rad against {fmt(pcal['default_residual_rms_rad'])} rad "
                       f"with PyBullet's defaults ({fmt(pcal['improvement_over_default'])}× closer). The fitted stop "
                       "is torque-capped, not a spring. Measured to leave the limit unchanged: "
                       f"{', '.join(pcal['inert_settings'])}. Rerun: {pcal['options']}"))
        b.append(("table", ["joint", "jointLimitForce [N m]", "erp (world-global)"],
                  [[str(j), f"{f:.4g}", f"{pcal['limit_erp']:.4g}"] for j, f in zip(pcal["joints"],
                                                                                   pcal["limit_force"], strict=False)]))
    if lim.get("native"):
        b.append(("p", "Native verdict (compare --native): every native contact against the "
                       f"{lim.get('native_reference', 'reference')}. Tolerance per quantity = integration (10 × the "
                       "native run's own Richardson estimate, dt against dt/2, first order) + inference (peak torque "
                       "and energy: native limit torques are inferred by inverse dynamics; the same inference on the "
                       "reference errs by this much) + sampling (time in contact: entry and exit on the dt grid, "
                       "2 dt) + softness (the engine's measured softness fraction × |reference|)."))
    for name, v in lim.get("native", {}).items():
        b += native_limit_blocks(name, v)
    return b


def native_limit_blocks(name: str, v: dict) -> list[tuple]:
    """One native run's verdict: its measured softness (held-load side runs) and every check with its terms."""
    deps = v["departures"]
    b: list[tuple]
    b = [("p", f"{name}: {'PASS' if v['pass'] else 'FAIL'}, {v.get('checked', 0)} quantities checked, "
               f"{len(deps)} beyond tolerance.")]
    soft = v.get("softness") or {}
    if soft:
        b.append(("p", f"{name}: measured softness (held-load side runs: the arm at rest with the joint at its "
                       "limit at each reference contact's deepest configuration, gravity compensated, the load held "
                       "into the limit for 1 s; give = mean penetration over the last 0.2 s; softness fraction = "
                       "(spread of the give over the configurations + its unsettled range) / the law's give)."))
        rows = []
        for s in soft.values():
            gives = [r["give_rad"] for r in s["at_contacts"] if r["give_rad"] is not None]
            stiff = [r["effective_stiffness_nm_per_rad"] for r in s["at_contacts"]]
            rows.append([str(s["joint"]), s["side"], fmt(s["load_nm"]), fmt(s["law_give_rad"]),
                         " / ".join(fmt(g) for g in gives) or "–",
                         " / ".join("rigid" if k is None else fmt(k) for k in stiff),
                         fmt(s["law_stiffness_nm_per_rad"]), fmt(s["softness_fraction"])])
        b.append(("table", ["joint", "side", "held load [N m]", "law's give [rad]", "engine's give [rad]",
                            "engine's stiffness [N m/rad]", "law's k [N m/rad]", "softness fraction"], rows))
    rows = [[str(c["joint"]), c["side"], str(c["contact"] or "–"), c["quantity"], fmt(c["reference"]),
             fmt(c["native"]), fmt(c["integration"]), fmt(c["inference"]), fmt(c["sampling"]),
             fmt(c["softness"]), fmt(c["tolerance"]), "PASS" if c["pass"] else "FAIL"]
            for c in v.get("checks", []) + [d for d in deps if d["quantity"] == "count"]]
    if rows:
        b.append(("table", ["joint", "side", "contact", "quantity", "reference", "native", "integration",
                            "inference", "sampling", "softness", "tolerance", "result"], rows))
    return b
