"""Metric group ``tip_kinematics`` (arms with contact): the engine's tip position, velocity and Jacobian (from
its own library: ``engine.tip_source``) against crossdyn's analytic kinematics at the first 100 static states
and along the driven run; judged at :data:`crossdyn.drive.contact_applied.FK_TOLERANCE_REL` of the reach."""
from __future__ import annotations

import numpy as np

from crossdyn.comparison.containment import engine_code
from crossdyn.comparison.result import MetricResult, judge
from crossdyn.models.spec import ArmSpec


def tip_kinematics_group(engine, spec: ArmSpec, driven, static) -> MetricResult:
    from crossdyn.drive.contact_applied import FK_TOLERANCE_REL, run_fk_errors, tip_fk_errors

    params = spec.params()
    with engine_code():
        at = tip_fk_errors(engine, params, static.q[:100], static.qd[:100])
        source = engine.tip_source
    along = run_fk_errors(params, driven) or {}
    scale = spec.reach()
    vscale = scale * max(1.0, float(np.max(np.abs(static.qd[:100]))),
                         float(np.max(np.abs(driven.qd))) if len(driven.qd) else 0.0)
    pos = max(at["position_m"], along.get("position_m", 0.0))
    vel = max(at["velocity_m_s"], along.get("velocity_m_s", 0.0))
    out = {"source": source, "max_tip_position_error_m": pos,
           "max_tip_velocity_error_m_s": vel, "max_jacobian_error_m": at["jacobian_m"],
           "states": int(min(100, len(static.q))), "along_run": along,
           "tolerance_m": FK_TOLERANCE_REL * scale, "velocity_tolerance_m_s": FK_TOLERANCE_REL * vscale}
    ok = bool(pos <= out["tolerance_m"] and at["jacobian_m"] <= out["tolerance_m"]
              and vel <= out["velocity_tolerance_m_s"])
    because = None if ok else (f"tip kinematics differ from the analytic ones: position {pos:.3g} m, Jacobian "
                               f"{at['jacobian_m']:.3g} m (tolerance {out['tolerance_m']:.3g}), velocity {vel:.3g} "
                               f"m/s (tolerance {out['velocity_tolerance_m_s']:.3g})")
    checks = out["states"] + (len(driven.t) if along else 0)  # static states, and the run's samples
    return MetricResult("tip_kinematics", judge(out, ok, checks, because))
