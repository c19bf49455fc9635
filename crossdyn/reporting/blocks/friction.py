"""Sections "Coulomb friction" (applied mode: the law and the section's verdict) and "Coulomb friction, native": the
set-valued reference's stick intervals and each engine's verdict."""
from __future__ import annotations

from crossdyn.reporting.blocks.text import fmt, section_verdict


def applied_friction_blocks(summary: dict) -> list[tuple]:
    """Section "Coulomb friction" (applied mode): the law, the kinetic threshold, and the verdict with its checks
    (the reference's sliding samples per engine) or why it is INCONCLUSIVE."""
    fr = summary.get("friction") or {}
    if fr.get("mode") != "applied":
        return []
    verdict = section_verdict(fr, "a check is a sample at which the reference slid on a friction joint, per engine; "
                                  "with --characterise-friction also each native quantity compared")
    return [("h", 2, "Coulomb friction"),
            ("p", f"Applied mode: every engine runs with f_c = 0 and crossdyn applies {fr['law']} with f_c = "
                  f"{' / '.join(fmt(x) for x in fr['fc_nm'])} N m, v_s = {fmt(fr['v_s_rad_s'])} rad/s. Sliding: "
                  f"|q̇| above {fmt(fr.get('kinetic_threshold_rad_s'))} rad/s (2 v_s, where the law is within 4 % of "
                  f"f_c sign(q̇)); the reference slid at {fr.get('sliding_samples', '–')} samples. {verdict}")]


def friction_blocks(summary: dict) -> list[tuple]:
    """Sections "Coulomb friction" (applied mode) and "Coulomb friction, native" (compare --characterise-friction:
    per engine its creep floor and every check of the verdict with the terms of its tolerance)."""
    applied = applied_friction_blocks(summary)
    native = (summary.get("friction") or {}).get("native")
    if not native or "verdict" not in native:
        return applied
    ref = {r["joint"]: r for r in native["reference"]["joints"]}
    b: list[tuple]
    b = applied + [("h", 2, "Coulomb friction, native"),
         ("p", "Each engine with its own friction (MuJoCo frictionloss, PyBullet's velocity motor) against the "
               "set-valued stick–slip reference (event-exact, torque held per step). Stuck: |q̇| below "
               f"{native['v_stick_rad_s']:g} rad/s at both ends of a step. Tolerance per quantity = integration (10 × "
               "the run's Richardson estimate, dt against dt/2, first order) + sampling (dt per interval end) + "
               "threshold (the stick criterion applied to the reference's own motion moves its transitions by this "
               "much) + softness (creep only: the engine's creep floor — its creep under a held 0.95 f_c load, "
               "gravity compensated, with its softness settings at their stiffest — × the longest reference stick)."),
         ("table", ["joint", "f_c [N m]", "reference stick intervals", "reference stick time [s]", "intervals [s]"],
          [[str(j), fmt(r["fc_nm"]), str(r["stick_intervals"]), fmt(r["stick_time_s"]),
            ", ".join(f"{a:.3f}–{z:.3f}" for a, z in r["intervals_s"][:6])] for j, r in ref.items()])]
    for name, v in native["verdict"].items():
        e = native["engines"].get(name, {})
        floors = ", ".join(f"joint {r['joint']} {fmt((r.get('creep_floor') or {}).get('rate_rad_s'))} rad/s"
                           for r in e.get("joints", []))
        b.append(("p", f"{name}: {'PASS' if v['pass'] else 'FAIL'}, {len(v['checks'])} checks, "
                       f"{len(v['departures'])} beyond tolerance. Creep floor ({e.get('creep_floor_setting', '–')}): "
                       f"{floors or '–'}."))
        if v["checks"]:
            b.append(("table", ["joint", "quantity", "interval", "reference", "native", "integration", "sampling",
                                "threshold", "softness", "tolerance", "result"],
                      [[str(c["joint"]), c["quantity"], str(c["interval"] or "–"), fmt(c["reference"]),
                        fmt(c["native"]), fmt(c["integration"]), fmt(c["sampling"]), fmt(c["threshold"]),
                        fmt(c["softness"]), fmt(c["tolerance"]), "PASS" if c["pass"] else "FAIL"]
                       for c in v["checks"]]))
    return b
