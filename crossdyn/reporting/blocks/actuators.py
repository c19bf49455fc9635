"""Actuator sections: the rotor armature each engine carries, and effort (torque) limits applied and native."""
from __future__ import annotations

from crossdyn.reporting.blocks.text import fmt, result_cell


def armature_blocks(summary: dict) -> list[tuple]:
    """Section "Rotor armature" (arms with ``armature``): per engine whether it carries I_a, the I_a it holds,
    its max |M − M_analytic| (analytic M with armature), or the reason it cannot and the diagonal it lacks."""
    eng = {k: v["armature"] for k, v in summary["engines"].items() if v.get("armature")}
    if not eng:
        return []
    rows = []
    for k, a in eng.items():
        held = a["engine_armature_kgm2"]
        if a["supported"]:
            rows.append([k, "yes", "–" if held is None else " / ".join(fmt(x) for x in held),
                         fmt(a["max_abs_M_error_kgm2"]),
                         "–" if a["max_abs_diag_error_kgm2"] is None else
                         " / ".join(fmt(x) for x in a["max_abs_diag_error_kgm2"]), result_cell(a),
                         a.get("failed_because") or ""])
        else:
            gap = a["missing_on_diagonal_kgm2"]
            rows.append([k, "**unsupported**", "–", "–",
                         "–" if gap is None else "lacks " + " / ".join(fmt(x) for x in gap), "–",
                         a["reason"] or ""])
    Ia = next(iter(eng.values()))["armature_kgm2"]
    return [("h", 2, "Rotor armature"),
            ("p", f"Reflected rotor inertia I_a = {' / '.join(fmt(x) for x in Ia)} kg m² per joint, added to M_ii "
                  "by the analytic model. Per engine: whether it carries it, the I_a it holds, and its mass "
                  "matrix against the analytic one with armature at the static states (largest entry error, "
                  "then per diagonal entry; judged on the diagonal against the mass-matrix tolerance, a check per "
                  "state); an engine that cannot is not compared, and what its M lacks on the diagonal at q0 is "
                  "shown."),
            ("table", ["engine", "carries I_a", "I_a held [kg m²]", "max |M − M_analytic| [kg m²]",
                       "diagonal [kg m²]", "result", "reason"], rows)]


def effort_blocks(summary: dict) -> list[tuple]:
    """Section "Effort limits" (arms with ``effort``): applied-mode saturation and each engine's native
    behaviour per joint.  Nothing for an arm without effort limits."""
    eng = {k: v["effort"] for k, v in summary["engines"].items() if v.get("effort")}
    if not eng:
        return []
    rows = []
    for k, e in eng.items():
        native = {r["joint"]: r for r in e["native"]}
        for j, (limit, sat) in enumerate(zip(e["limit_nm"], e["saturated_steps"], strict=False), start=1):
            if limit is None:
                continue
            r = native.get(j)
            peak = (e.get("max_abs_torque_nm") or [None] * j)[j - 1]
            rows.append([k, str(j), fmt(limit), str(sat), fmt(peak),
                         "–" if r is None else ("honoured" if r["honoured"] else "**ignored**"), result_cell(e)])
    why = sorted({e["inconclusive_because"] for e in eng.values() if e.get("inconclusive_because")})
    idle = sorted({e["not_exercised_because"] for e in eng.values() if e.get("not_exercised_because")})
    return ([("h", 2, "Effort limits"),
             ("p", "Applied mode: crossdyn saturates the commanded torque to ±effort before every engine, so all "
                  "integrate the same torque (steps at the limit counted per joint; a check is a saturated step, "
                  "the trajectory compared there). Native: the engine's own limit from the generated model, given "
                  "3× the limit for one step from rest (reported, not judged).")]
            + [("p", f"INCONCLUSIVE: {w}.") for w in why] + [("p", f"NOT EXERCISED: {w}.") for w in idle]
            + [("table", ["engine", "joint", "effort [N m]", "saturated steps (applied)", "max |τ| [N m]", "native",
                          "result"], rows)])
