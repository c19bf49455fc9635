"""Actuator effort limits: does an engine honour the spec's ``effort`` limit by itself (native mode)?

In crossdyn's comparisons the limit is always applied by the runner (:mod:`crossdyn.drive.runner`, applied
mode): every engine then integrates the same saturated torque.  :func:`native_effort_check` asks whether the
engine would also have enforced it on its own, from the generated model (URDF ``effort``, MJCF motor
``forcerange``): from rest at ``q0`` it commands, for one joint j at a time, τ_j = 3 × effort_j (others 0) for
one step *without* saturation and reads the velocity reached.  Its acceleration q̇(dt)/dt is compared with the
analytic model's q̈ = M⁻¹(τ − G) for the saturated and for the unsaturated torque: nearer the saturated
one, the engine honoured the limit (the two differ by 2 effort_j M⁻¹e_j, far above an integrator's one-step
error).
"""
from __future__ import annotations

import numpy as np

from crossdyn import analytic
from crossdyn.engines.base import Engine

OVERDRIVE = 3.0
"""The check commands this multiple of each joint's effort limit."""


def native_effort_check(engine: Engine, q0=None) -> list[dict]:
    """Per joint with a limit: {"joint", "effort_nm", "commanded_nm", "honoured", "accel_error_saturated",
    "accel_error_unsaturated"} (accelerations in rad/s²)."""
    spec = engine.spec
    limits = spec.effort_limits()
    if limits is None:
        return []
    n = spec.n
    q0 = np.zeros(n) if q0 is None else np.asarray(q0, dtype=float)
    out = []
    for j in range(n):
        if not np.isfinite(limits[j]):
            continue
        tau = np.zeros(n)
        tau[j] = OVERDRIVE * limits[j]
        engine.reset(q0, np.zeros(n))
        engine.step(tau)
        _, qd = engine.state()
        measured = np.asarray(qd, dtype=float) / engine.dt
        sat = analytic.forward_dynamics(spec, q0, np.zeros(n), np.clip(tau, -limits, limits))
        raw = analytic.forward_dynamics(spec, q0, np.zeros(n), tau)
        e_sat, e_raw = float(np.max(np.abs(measured - sat))), float(np.max(np.abs(measured - raw)))
        out.append({"joint": j + 1, "effort_nm": float(limits[j]), "commanded_nm": float(tau[j]),
                    "honoured": bool(e_sat < e_raw), "accel_error_saturated": e_sat,
                    "accel_error_unsaturated": e_raw})
    engine.reset(q0, np.zeros(n))
    return out
