"""Metric group ``tip_kinematics`` (arms with contact, engines with a tip frame of their own): the engine's tip
position, velocity and Jacobian (from its own library: ``engine.tip_source``) against crossdyn's analytic kinematics
at the first 100 static states and along the driven run.

Tolerance: :data:`crossdyn.drive.contact_applied.FK_TOLERANCE_REL` × reach (m, m/rad; × max(1, max|q̇|) for the
velocity), plus for an engine computing in a narrower type than float64 its round-off
(:func:`crossdyn.engines.precision.tip_roundoff`: eps · reach · (n + 1) composed transforms · max(1, max|q|),
stated under ``precision``)."""
from __future__ import annotations

import numpy as np

from crossdyn.comparison.containment import engine_code
from crossdyn.comparison.result import MetricResult, judge
from crossdyn.engines import precision
from crossdyn.models.spec import ArmSpec


def _max_abs(*arrays) -> float:
    """The largest |value| over the arrays (0 for none or empty ones)."""
    return max([float(np.max(np.abs(a))) for a in arrays if a is not None and np.size(a)] or [0.0])


def tip_tolerances(spec: ArmSpec, dtype: str | None, max_angle: float, max_speed: float) -> tuple[float, float, dict]:
    """(position/Jacobian tolerance m, velocity tolerance m/s, the ``precision`` entry or {} for float64): the
    float64 base FK_TOLERANCE_REL × reach plus the dtype's round-off term; velocities × max(1, max|q̇|)."""
    from crossdyn.drive.contact_applied import FK_TOLERANCE_REL

    scale, speed = spec.reach(), max(1.0, float(max_speed))
    base, vbase = FK_TOLERANCE_REL * scale, FK_TOLERANCE_REL * (scale * speed)
    term = precision.tip_roundoff(dtype, scale, spec.n, max_angle)
    if precision.is_float64(dtype):
        return base, vbase, {}
    assert dtype is not None
    return base + term, vbase + term * speed, {"precision": {
        "dtype": dtype, "base_tolerance": base, "roundoff_term": term,
        "origin": precision.tip_origin(dtype, scale, spec.n, max_angle)}}


def tip_kinematics_group(engine, spec: ArmSpec, driven, static) -> MetricResult:
    from crossdyn.drive.contact_applied import run_fk_errors, tip_fk_errors

    params = spec.params()
    with engine_code():
        at = tip_fk_errors(engine, params, static.q[:100], static.qd[:100])
        source = engine.tip_source
    along = run_fk_errors(params, driven) or {}
    tol, vtol, extra = tip_tolerances(spec, getattr(engine, "dtype", None), _max_abs(static.q[:100], driven.q),
                                      _max_abs(static.qd[:100], driven.qd))
    pos = max(at["position_m"], along.get("position_m", 0.0))
    vel = max(at["velocity_m_s"], along.get("velocity_m_s", 0.0))
    out = {"source": source, "max_tip_position_error_m": pos,
           "max_tip_velocity_error_m_s": vel, "max_jacobian_error_m": at["jacobian_m"],
           "states": int(min(100, len(static.q))), "along_run": along,
           "tolerance_m": tol, "velocity_tolerance_m_s": vtol, **extra}
    ok = bool(pos <= out["tolerance_m"] and at["jacobian_m"] <= out["tolerance_m"]
              and vel <= out["velocity_tolerance_m_s"])
    origin = f" incl. {extra['precision']['origin']}" if extra else ""
    because = None if ok else (f"tip kinematics differ from the analytic ones: position {pos:.3g} m, Jacobian "
                               f"{at['jacobian_m']:.3g} m (tolerance {out['tolerance_m']:.3g}{origin}), velocity "
                               f"{vel:.3g} m/s (tolerance {out['velocity_tolerance_m_s']:.3g})")
    checks = out["states"] + (len(driven.t) if along else 0)  # static states, and the run's samples
    return MetricResult("tip_kinematics", judge(out, ok, checks, because))
