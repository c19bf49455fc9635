"""Section "Coulomb friction, native": the set-valued reference's stick intervals and each engine's verdict."""
from __future__ import annotations

from crossdyn.reporting.blocks.text import fmt


def friction_blocks(summary: dict) -> list[tuple]:
    """Section "Coulomb friction, native" (compare --characterise-friction): per engine its creep floor and every
    check of the verdict with the terms of its tolerance.  Nothing otherwise."""
    native = (summary.get("friction") or {}).get("native")
    if not native or "verdict" not in native:
        return []
    ref = {r["joint"]: r for r in native["reference"]["joints"]}
    b: list[tuple]
    b = [("h", 2, "Coulomb friction, native"),
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
