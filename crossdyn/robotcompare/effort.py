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
bypasses the URDF's force limits that ``setCommands`` would apply).  Two switch their own clamp back on by name
(``@native_effort=true``, :data:`NATIVE_ENGINES`): MuJoCo (a motor per joint, ``forcerange`` = ±effort) and Drake's
own stepping (a ``JointActuator`` per joint, ``effort_limit`` = effort); ``compare ROBOT --effort`` characterises each
(:func:`native_modes`).
"""
from __future__ import annotations

from dataclasses import dataclass

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


EFFORT_SATURATION = 0.8
"""``--effort``: the applied limits are the file's scaled by one factor s chosen so that the joint whose demand is
the largest fraction of its effort is clipped at this fraction of its demand's peak (its top 20 % cut off)."""

NATIVE = ("not run: every file engine loads the file without its actuators and steps tau as a generalized force, "
          "unclamped (measured per joint by crossdyn.robotcompare.effort.file_effort_check, "
          "tests/test_robot_effort.py), so crossdyn applies the law itself, identically in every run")
"""The ``native`` entry of a robot file's ``effort`` group where the engine's config says nothing of it: no engine
enforces the file's effort natively here."""


@dataclass(frozen=True)
class EffortLaw:
    """The effort law of ``compare ROBOT --effort``: τ_applied = clip(τ_law, −s e, s e) per joint
    (:func:`crossdyn.robotcompare.motion.clip_effort`), e the file's effort (inf: none), s ≤ 1 one factor for every
    joint (:func:`effort_law`)."""

    file_effort: np.ndarray
    scale: float
    joint: str
    """The joint s was chosen on (the largest demand against its effort)."""
    demand: float
    """That joint's peak feedforward |τ| as a fraction of its file effort."""

    @property
    def limit(self) -> np.ndarray:
        """e_j s per joint (inf where the file states none)."""
        return self.file_effort * self.scale

    def line(self) -> str:
        """The note saying what the law is and why s."""
        if self.scale >= 1.0:
            why = (f"the file's own limits: the motion's feedforward on joint {self.joint!r} already demands "
                   f"{100 * self.demand:.3g} % of its effort")
        else:
            why = (f"the file's limits x s = {self.scale:.4g}, one factor for every joint, so that joint "
                   f"{self.joint!r} (whose feedforward peaks at {100 * self.demand:.3g} % of the file's effort, the "
                   f"largest share) is clipped at {100 * EFFORT_SATURATION:g} % of its peak demand: the default "
                   "motion saturates it for part of the run, everything else as without --effort")
        return ("effort law (--effort): every run's tracking torque, the reference's and every engine's, clipped to "
                f"+/-limit per joint, tau = clip(tau_law, -limit, limit); limits {_numbers(self.limit)} ({why})")


def _numbers(values) -> str:
    return "[" + ", ".join("none" if not np.isfinite(v) else f"{v:.4g}" for v in values) + "]"


def effort_law(model: RobotModel, feedforward: np.ndarray) -> EffortLaw | None:
    """The :class:`EffortLaw` of the desired motion whose feedforward (steps, n) is given (None: no joint has an
    effort limit): s = min(1, :data:`EFFORT_SATURATION` × max_j peak_j / e_j), peak_j = max_k |τ_ff,kj|.  The
    feedforward stands for the law's torques (the runs track q_d: their PD part is small), so the joint j* of the
    largest share demands ≥ 1/0.8 × its limit at its peak and saturates; a file whose motion already demands
    more than its own effort (s would exceed 1) keeps its own limits."""
    effort = motion.effort_limits(model)
    has = np.isfinite(effort)
    if not np.any(has):
        return None
    peak = np.max(np.abs(np.asarray(feedforward, float).reshape(-1, model.n)), axis=0)
    share = np.where(has, peak / np.where(has, effort, 1.0), -np.inf)
    j = int(np.argmax(share))
    scale = 1.0 if share[j] <= 0 else min(1.0, EFFORT_SATURATION * float(share[j]))
    return EffortLaw(effort, scale, model.joints[j].name, float(share[j]))


def file_effort_group(model: RobotModel, law: EffortLaw, tau: np.ndarray, reference_tau: np.ndarray,
                      native: str | None = None):
    """The ``effort`` group of one engine's driven run under the law: ``tau`` (steps, n) the torques it applied, the
    reference's ``reference_tau``.  Per joint with a limit: the steps at ±limit exactly (a check each), and the
    applied torques beyond it (|τ_j| > limit_j: the clip not exact, FAIL); reported beside: the reference's saturated
    steps, each joint's peak |τ| and the largest excess max(|τ_j| − limit_j, 0) per unit (0 when exact)
    (:func:`crossdyn.comparison.groups.effort.judged_saturation`, the planar arms' verdict).  ``native``: what the
    engine's config says of the file's effort limits (``effort_limits``), reported as the group's ``native`` with
    crossdyn's own clip beside it (:data:`NATIVE` where it says nothing)."""
    from crossdyn.comparison.groups.effort import judged_saturation
    from crossdyn.conventions import by_unit

    limit = law.limit
    has = np.isfinite(limit)
    tau = np.abs(np.asarray(tau, float).reshape(-1, model.n))
    ref = np.abs(np.asarray(reference_tau, float).reshape(-1, model.n))
    saturated = [int(np.sum(tau[:, j] == limit[j])) if has[j] else 0 for j in range(model.n)]
    above = [int(np.sum(tau[:, j] > limit[j])) if has[j] else 0 for j in range(model.n)]
    excess = [float(np.max(tau[:, j] - limit[j], initial=0.0)) if has[j] else None for j in range(model.n)]
    peak = np.max(tau, axis=0) if len(tau) else np.zeros(model.n)
    rot = [j.type.rotates for j in model.joints]
    out = {"mode": "applied: crossdyn clips the tracking law's torque to [-limit, limit] per joint in every run, "
                   "the reference's and every engine's",
           "limit": [float(x) if np.isfinite(x) else None for x in limit],
           "file_effort": [float(x) if np.isfinite(x) else None for x in law.file_effort],
           "scale": law.scale, "scaled_on_joint": law.joint,
           "saturated_steps": saturated,
           "reference_saturated_steps": [int(np.sum(ref[:, j] == limit[j])) if has[j] else 0
                                         for j in range(model.n)],
           "above_limit_steps": above, "max_abs_torque": [float(x) for x in peak],
           "clip_excess_per_joint": excess, "max_abs_error_by_unit": by_unit(excess, rot, "effort"),
           "clip_tolerance": 0.0,
           "native": NATIVE if native is None else f"{native}; crossdyn applies the law itself, identically in every run"}

    def unsaturated() -> str:
        parts = "; ".join(f"joint {j.name!r} max |tau| {peak[k]:.4g} against its limit {limit[k]:.4g}"
                          for k, j in enumerate(model.joints) if has[k])
        return f"no joint saturated in this run: {parts}"

    return judged_saturation(out, saturated, unsaturated, sum(above), asked=True)  # --effort: the user asked


NATIVE_ENGINES = ("mujoco", "mujoco-euler", "mujoco-rk4", "mujoco-implicit", "mujoco-implicitfast",
                  "drake", "drake-rk3", "drake-discrete")
"""File engines that can clamp the file's effort themselves (``@native_effort=true``): MuJoCo's (a motor per joint
with ``forcerange``) and Drake's own stepping (a ``JointActuator`` per joint with ``effort_limit``, its continuous
plant under RK3 and its discrete plant alike); ``--effort`` characterises each one that runs (:func:`native_modes`)."""

NATIVE_STAND_INS = {"drake-rk4": "drake-discrete"}
"""An engine whose stepping is crossdyn's (``drake-rk4``: crossdyn's RK4 on Drake's forward dynamics, which no
actuation enters) → the variant of its library whose own stepping clamps, characterised in its place (as
``--native`` runs ``drake-discrete@limits=true`` for any Drake name)."""

NATIVE_DT = 1e-4
"""The native check's step (s): :func:`file_effort_check`'s (a multi-stage scheme's first step from rest averages the
acceleration over the step)."""


def native_modes(model: RobotModel, specs, build) -> dict[str, dict]:
    """Per engine of ``specs`` (its name before any ``@``, replaced by its :data:`NATIVE_STAND_INS` one) in
    :data:`NATIVE_ENGINES`, each once: its native mode
    ``NAME@damping=false@native_effort=true`` (``build(spec, dt)`` makes it, on the file of that engine) given twice
    each joint's *file* effort for one step (:func:`file_effort_check`): {"engine", "clamps" per joint, "joints",
    "accel_error_clamped_fraction": the largest |q̈ − q̈_clamped| / |q̈_clamped − q̈_unclamped|} or {"failed": why}.
    Reported, not judged, as the planar arms' native effort."""
    out: dict[str, dict] = {}
    for name in dict.fromkeys(NATIVE_STAND_INS.get(b, b) for b in (s.split("@", 1)[0] for s in specs)):
        if name not in NATIVE_ENGINES:
            continue
        spec = f"{name}@damping=false@native_effort=true"
        try:
            engine = build(spec, NATIVE_DT)
            try:
                rows = file_effort_check(engine, model)
            finally:
                engine.close()
        except Exception as e:  # noqa: BLE001 — the engine's library: reported beside, the comparison stands
            out[spec] = {"failed": f"{type(e).__name__}: {e}"}
            continue
        out[spec] = {"joints": [r["joint"] for r in rows], "clamps": [r["clamps"] for r in rows],
                     "accel_error_clamped_fraction": max((r["accel_error_clamped"] / r["separation"] for r in rows),
                                                         default=None)}
    return out


def native_line(native: dict[str, dict]) -> str | None:
    """The note on :func:`native_modes` (None when no engine was characterised)."""
    parts = []
    for spec, r in native.items():
        if "failed" in r:
            parts.append(f"{spec}: failed ({r['failed']})")
        else:
            parts.append(f"{spec} clamps on {sum(r['clamps'])} of {len(r['clamps'])} joints (its acceleration "
                         f"{r['accel_error_clamped_fraction']:.2g} of the clamped-unclamped gap from the clamped one)")
    if not parts:
        return None
    return ("effort natively (reported, not judged): given twice each joint's file effort for one step from rest, "
            + "; ".join(parts) + ". The runs above use crossdyn's clip on unclamped stepping in every engine")
