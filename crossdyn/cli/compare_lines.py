"""The lines ``compare`` prints about native contact and limit calibration (split from :mod:`crossdyn.cli.compare`):
the characterisation and calibration tables of an arm with contact or a limit law."""
from __future__ import annotations


def contact_native_lines(summary: dict) -> list[str]:
    """compare --native / --calibrate-contact on an arm with contact: the characterisation table and calibration."""
    contact = summary.get("contact") or {}
    lines = []
    if contact.get("native"):
        from crossdyn.native.contact.verdict import table

        lines.append("native contact, per episode (pen: max penetration, F_max: peak normal force, e: restitution, "
                     "J: impulse, E_diss: energy dissipated, path: max tip distance from the reference's):")
        lines += table(contact["native"])
    for name, cal in (contact.get("calibration") or {}).items():
        if name == "mujoco":
            lines.append(f"calibration {cal['engine']}: solref {_g(cal['solref'])} solimp {_g(cal['solimp'])}: RMS "
                         f"{cal['residual_rms_rad']:.3g} rad against {cal['direct_residual_rms_rad']:.3g} (direct "
                         f"{_g(cal['direct_solref'])}, {cal['improvement_over_direct']:.3g}x), "
                         f"{cal['literal_residual_rms_rad']:.3g} (literal (-k, -c), {cal['improvement_over_literal']:.3g}x), "
                         f"{cal['default_residual_rms_rad']:.3g} (MuJoCo default, {cal['improvement_over_default']:.3g}x); "
                         f"{cal['evaluations']} runs")
        else:
            lines.append(f"calibration {cal['engine']}: contactStiffness {cal['contact_stiffness']:.4g} N/m, "
                         f"contactDamping {cal['contact_damping']:.4g} N s/m: RMS {cal['residual_rms_rad']:.3g} rad "
                         f"against {cal['direct_residual_rms_rad']:.3g} with (k, c) "
                         f"({cal['improvement_over_direct']:.3g}x); {cal['evaluations']} runs")
        if cal.get("options"):  # the fitted values as an engine name: compare --native runs it natively with them
            lines.append(f'  rerun with: --native{_chosen_dt(summary)} --engines "{cal["options"]}"')
    return lines


def limit_calibration_lines(summary: dict) -> list[str]:
    """compare --calibrate-limits: MuJoCo's and PyBullet's fitted limit settings, each with its residual."""
    lim = summary.get("limits") or {}
    lines = []
    cal = lim.get("calibration")
    if cal:
        per = "; ".join(f"joint {j}: solreflimit {_g(r)} solimplimit d {i[0]:.4g}"
                        for j, r, i in zip(cal["joints"], cal["solreflimit"], cal["solimplimit"], strict=False))
        lines.append(f"limit calibration {cal['engine']}: {per}: RMS {cal['residual_rms_rad']:.3g} rad against "
                     f"{cal['default_residual_rms_rad']:.3g} (MuJoCo default, {cal['improvement_over_default']:.3g}x), "
                     f"{cal['direct_residual_rms_rad']:.3g} (direct (-k, -c)); {cal['evaluations']} runs")
        if cal.get("options"):  # the fitted values as an engine name: compare --native runs it with them
            lines.append(f'  rerun with: --native{_chosen_dt(summary)} --engines "{cal["options"]}"')
    cal = lim.get("calibration_pybullet")
    if cal:
        per = ", ".join(f"joint {j} {f:.4g} N m" for j, f in zip(cal["joints"], cal["limit_force"], strict=False))
        lines.append(f"limit calibration {cal['engine']}: jointLimitForce {per}, erp {cal['limit_erp']:.4g} "
                     f"(world-global): RMS {cal['residual_rms_rad']:.3g} rad against "
                     f"{cal['default_residual_rms_rad']:.3g} (PyBullet default, {cal['improvement_over_default']:.3g}x); "
                     f"{cal['evaluations']} runs; a torque-capped stop, not a spring (rerun: {cal['options']})")
    return lines


def _g(values) -> str:
    return "(" + ", ".join(f"{v:.4g}" for v in values) + ")"


def format_contact_table(contact: dict) -> str:
    """Applied contact, one row per run: first touch, max penetration, peak normal force, time in contact,
    impulse, dissipated energy, and the engine's tip-kinematics discrepancy from the analytic kinematics."""
    head = ["contact", "first touch [s]", "max pen. [m]", "peak F_n [N]", "in contact [s]", "contacts",
            "impulse [N s]", "dissipated [J]", "tip FK err [m]"]
    keys = ("first_touch_s", "max_penetration_m", "peak_normal_force_n", "time_in_contact_s", "contacts",
            "impulse_n_s", "dissipated_j", "max_tip_position_error_m")
    runs = [("reference", contact.get("reference") or {})] + list(contact.get("engines", {}).items())
    rows = [head]
    for name, e in runs:
        cells = [name]
        for key in keys:
            v = e.get(key)
            cells.append("-" if v is None else str(v) if key == "contacts" else
                         f"{v:.3f}" if key == "first_touch_s" else f"{v:.3g}" if key != "max_tip_position_error_m"
                         else f"{v:.1e}")
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [f"contact (applied): {contact.get('law', '')}"]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())
    return "\n".join(lines)


def _chosen_dt(summary: dict) -> str:
    """`` --dt X`` where crossdyn chose the step (``dt_choice``: --dt not given), so that the printed rerun runs at the
    step the calibration was fitted at; else ""."""
    return f" --dt {summary['dt']:g}" if summary.get("dt_choice") else ""
