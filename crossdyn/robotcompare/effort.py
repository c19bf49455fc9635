"""Does a file engine clamp the torque crossdyn gives it to the file's effort limits?  :func:`file_effort_check`.

The stepping contract of a file engine (:mod:`crossdyn.engines.file_engine`) is that τ goes in as a generalized
force, whatever the file's ``<limit effort>`` (URDF) or ``actuatorfrcrange``/actuator ``forcerange`` (MJCF) says:
the reference applies it unclamped, so an engine that clamped it silently would differ for a reason that is not the
model.  The check, per joint j with an effort limit e_j: from rest at ``q0`` (the mid-limit pose by default) the
engine is stepped once with τ = G(q0) + k e_j u_j (k = :data:`OVERDRIVE`, u_j the j-th unit vector; G from crossdyn's
reference, so that the other joints barely move) and its acceleration q̇(dt)/dt is compared with the reference's
forward dynamics q̈ = M⁻¹(τ − G) (armature included) for that torque and for the torque clamped to [−e, e].  Nearer
the clamped one: the engine enforces the file's effort limit itself ("clamps").  The two differ by
(k − 1) e_j M⁻¹u_j, far above one step's integration error from rest (O(dt) of the acceleration's own change):
build the engine with ``damping=false`` and a small dt (1e-4 s), since a multi-stage scheme's first step averages
the acceleration over the step, and a damped light joint's changes within it (measured on MuJoCo Menagerie's UR5e,
RK4 at 1 ms with damping: off by 2.4 rad/s² of 40).

Measured (crossdyn's tests/test_robot_effort.py): every file adapter applies τ unclamped — Pinocchio, MuJoCo (both
schemes; the copy has no actuators, τ goes into ``qfrc_applied``, which no ``forcerange`` or ``actuatorfrcrange``
limits), PyBullet (``TORQUE_CONTROL``: the URDF's ``effort`` bounds only its velocity and position motors), Drake
(no actuators from the copy; τ into the applied generalized force port or crossdyn's RK4), DART (``setForces``
bypasses the URDF's force limits that ``setCommands`` would apply).
"""
from __future__ import annotations

import numpy as np

from crossdyn.robots.model import RobotModel
from crossdyn.robotcompare import motion

OVERDRIVE = 2.0
"""The check commands this multiple of a joint's effort limit (on top of the torque holding the pose)."""


def file_effort_check(engine, model: RobotModel, q0: np.ndarray | None = None) -> list[dict]:
    """Per joint with an effort limit: {"joint", "effort", "commanded", "clamps", "accel_error_clamped",
    "accel_error_unclamped", "separation"} (accelerations in rad/s² or m/s²; ``separation`` = |q̈_clamped −
    q̈_unclamped|, the largest entry).  ``engine``: a :class:`~crossdyn.engines.file_engine.FileEngine` of ``model``'s
    file; left reset at ``q0`` at rest."""
    from crossdyn.spatial import aba, rnea

    n = model.n
    limit = motion.effort_limits(model)
    q0 = motion.pose(model) if q0 is None else np.asarray(q0, float)
    zero = np.zeros(n)
    hold = np.asarray(rnea(model, q0[None], zero[None], zero[None], armature=True))[0]
    rows = []
    for j in np.flatnonzero(np.isfinite(limit)):
        tau = hold.copy()
        tau[j] = hold[j] + OVERDRIVE * limit[j] * (1.0 if hold[j] >= 0 else -1.0)
        clamped = np.clip(tau, -limit, limit)
        engine.reset(q0, zero)
        engine.step(tau)
        _, qd = engine.state()
        measured = np.asarray(qd, float) / engine.dt
        raw = np.asarray(aba(model, q0[None], zero[None], tau[None], armature=True))[0]
        sat = np.asarray(aba(model, q0[None], zero[None], clamped[None], armature=True))[0]
        e_sat, e_raw = float(np.max(np.abs(measured - sat))), float(np.max(np.abs(measured - raw)))
        rows.append({"joint": model.joints[j].name, "effort": float(limit[j]), "commanded": float(tau[j]),
                     "clamps": bool(e_sat < e_raw), "accel_error_clamped": e_sat, "accel_error_unclamped": e_raw,
                     "separation": float(np.max(np.abs(sat - raw)))})
    engine.reset(q0, zero)
    return rows
