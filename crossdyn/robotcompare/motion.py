"""What every engine is driven with on a robot file, and the states the static metrics are evaluated at (pure).

**The same feedback law in every run.**  The reference and every engine run one tracking law on their own state,
as the planar arms' closed-loop profiles do (:mod:`crossdyn.inputs.profiles.closed_loop`):

* a **pose** q* inside the file's limits: per joint the middle of [lower, upper], or 0 for a joint without limits
  (:func:`pose`);
* a **desired motion** about it, a multi-sine q_d(t) = q* + Σₖ aⱼₖ sin(2π fₖ t + φⱼₖ) with frequencies
  :data:`FREQUENCIES_HZ`, seeded phases and amplitudes aⱼₖ = Aⱼ/3, where Aⱼ = min(0.3 rad (0.05 m prismatic),
  a quarter of the joint's half range): |q_d − q*| ≤ Aⱼ keeps the desired motion inside the limits, in each joint's
  own unit (a 0.04 m finger: 5 mm) (:func:`multisine_motion`);
* the **law**, on the run's own state (q_k, q̇_k) at each step's start t_k, held over [t_k, t_k + dt):
  τ_k = τ_ff(t_k) + M_ref(q_d(t_k)) (K_p (q_d − q_k) + K_d (q̇_d − q̇_k)), the feedforward
  τ_ff = RNEA_ref(q_d, q̇_d, q̈_d) + b q̇_d (crossdyn's RNEA with the file's armature, its viscous damping b added)
  and the inertia M_ref(q_d) computed along q_d once, in batches, before any run (:func:`tracking_law`; gains
  :data:`KP`, :data:`KD`: ω = 20 rad/s, critically damped per joint); an engine's dt/2 rerun evaluates it every dt,
  as the reference does.  Not the full computed torque RNEA(q, q̇, q̈_d + …) on the run's state: one single-state
  RNEA per step costs ~1.7 ms (Python) against ~5 µs for this law, and the difference — M(q) − M(q_d), the bias at
  q − q_d — is O(e), far below K_p (gravity's stiffness g/l ≈ 10–30 1/s² against 400 1/s²);
* a **check** before any engine runs: the reference run stays inside [lower + margin, upper − margin] on every
  joint with limits, margin = :data:`LIMIT_MARGIN` of the joint's range (:func:`closest_approach`); if not, the
  amplitudes are halved and the reference rerun, at most :data:`AMPLITUDE_TRIES` times;
* an **effort check** with it: the reference's peak |τ_j| over the run stays within :data:`EFFORT_FRACTION` of the
  file's effort limit on every joint that has one (:func:`effort_limits`, :func:`peak_effort`); if not, and if the
  torque that holds the mid-limit pose (G(q*)) is itself within it (else no amplitude would do), the amplitudes are
  halved likewise.  The engines and the reference apply τ unclamped (the stepping contract,
  :mod:`crossdyn.engines.file_engine`): the check keeps the default motion one the robot's drives can produce.

Why not one open-loop torque sequence for all (the inverse dynamics along q_d, as before issue 38): the hold and the
arm's own instability under gravity carry such a run radians away from q_d in 2 s (robosuite's iiwa: 8.7 rad),
through the file's limits, and along that unstable path a first-order engine's O(dt) error grows until its own dt/2
rerun differs by radians (example-robot-data's Panda, PyBullet: 13.6 rad; pybullet_data's iiwa: 1.9 rad), so it is
judged on nothing or FAILs on chaos.  Under the law every run contracts onto q_d (the Panda under PyBullet: 4e-4 rad
from the reference).  Two engines whose states differ by rounding then apply torques that differ by rounding × the
gains: the law is part of the system both sides integrate, the reference included, and an engine that agrees with
the model applies the reference's torques to within its own error.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.robots.model import RobotModel

FREQUENCIES_HZ = (0.4, 0.7, 1.1)
"""The multi-sine's frequencies: incommensurate and slow (ω ≤ 7 rad/s), so that a first-order engine's error at
dt = 1 ms, ~½ dt ω² A t, stays well inside 5 % of the motion's range (the bound on a derived tolerance)."""

REVOLUTE_AMPLITUDE_RAD = 0.3
PRISMATIC_AMPLITUDE_M = 0.05
LIMIT_FRACTION = 0.25
"""Aⱼ is at most this fraction of a joint's half range (q_d stays strictly inside the limits)."""
KP = 400.0
KD = 40.0
"""The tracking law's gains (1/s², 1/s), scaled by M_ref(q_d): ω = √KP = 20 rad/s, ζ = KD/(2ω) = 1 (the planar
``computed-torque`` profile's)."""
LIMIT_MARGIN = 0.1
"""The reference must stay this fraction of each joint's range inside its limits."""
AMPLITUDE_TRIES = 3
"""Runs of the reference at most (amplitudes halved between them) before the motion is declared outside."""
EFFORT_FRACTION = 0.9
"""The reference's peak |τ_j| must stay within this fraction of the file's effort limit on each joint."""
NO_EFFORT = 1e9
"""An effort at or above this (N m or N) is no limit: crossdyn's own URDF writer writes 1e9 where a model has none
(URDF requires the attribute)."""


def pose(model: RobotModel) -> np.ndarray:
    """q*: per joint the middle of [lower, upper], 0 where a limit is missing."""
    lo, hi = model.lower(), model.upper()
    both = np.isfinite(lo) & np.isfinite(hi)
    return np.where(both, 0.5 * (np.where(both, lo, 0.0) + np.where(both, hi, 0.0)), 0.0)


def amplitudes(model: RobotModel) -> np.ndarray:
    """Aⱼ = min(0.3 rad or 0.05 m, ¼ of the half range) per joint (no limit: the first alone)."""
    base = np.array([REVOLUTE_AMPLITUDE_RAD if j.type.rotates else PRISMATIC_AMPLITUDE_M for j in model.joints])
    half = 0.5 * (model.upper() - model.lower())
    return np.minimum(base, np.where(np.isfinite(half), LIMIT_FRACTION * half, np.inf))


@dataclass(frozen=True)
class DesiredMotion:
    """q_d(t) = q* + Σₖ aⱼₖ sin(2π fₖ t + φⱼₖ) and its derivatives."""

    center: np.ndarray
    amplitude: np.ndarray
    """(n, K): aⱼₖ."""
    phase: np.ndarray
    """(n, K): φⱼₖ."""
    frequencies_hz: tuple[float, ...] = FREQUENCIES_HZ

    def at(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(q_d, q̇_d, q̈_d) at the times ``t`` (each (len(t), n))."""
        w = 2 * np.pi * np.asarray(self.frequencies_hz)
        arg = np.asarray(t, float)[:, None, None] * w[None, None, :] + self.phase[None]
        s, c = np.sin(arg), np.cos(arg)
        a = self.amplitude[None]
        return (self.center + np.sum(a * s, axis=2), np.sum(a * w * c, axis=2), -np.sum(a * w**2 * s, axis=2))

    def scaled(self, factor: float) -> "DesiredMotion":
        """The same motion about the same pose with every amplitude × ``factor``."""
        return DesiredMotion(self.center, self.amplitude * factor, self.phase, self.frequencies_hz)

    def params(self) -> dict:
        return {"name": "multisine-motion tracked in every run by tau_k = RNEA_ref(q_d, qd_d, qdd_d) + b qd_d "
                        "+ M_ref(q_d) (KP (q_d - q_k) + KD (qd_d - qd_k)) on the run's own state, held",
                "closed_loop": True,
                "kp": KP, "kd": KD, "center": self.center.tolist(),
                "amplitude": self.amplitude.tolist(), "phase": self.phase.tolist(),
                "frequencies_hz": list(self.frequencies_hz)}


def multisine_motion(model: RobotModel, seed: int = 0) -> DesiredMotion:
    """The multi-sine about :func:`pose` (module docstring), phases U[0, 2π) from ``seed``."""
    rng = np.random.default_rng(seed)
    k = len(FREQUENCIES_HZ)
    amp = np.repeat(amplitudes(model)[:, None] / k, k, axis=1)
    return DesiredMotion(pose(model), amp, rng.uniform(0, 2 * np.pi, (model.n, k)))


def damping(model: RobotModel) -> np.ndarray:
    """The file's viscous damping b per joint (N m s/rad or N s/m)."""
    return np.array([j.damping for j in model.joints])


def torque_sequence(model: RobotModel, motion: DesiredMotion, dt: float, steps: int) -> np.ndarray:
    """(steps, n): the open-loop τ_k = RNEA_ref(q_d, q̇_d, q̈_d)(t_k) + b q̇_d(t_k), armature included (what the
    law applies on q_d itself; fills the sequence past a reference that stopped)."""
    from crossdyn.spatial import rnea

    t = np.arange(steps) * dt
    q, qd, qdd = motion.at(t)
    return np.asarray(rnea(model, q, qd, qdd, armature=True)) + damping(model) * qd


@dataclass(frozen=True, eq=False)
class TrackingLaw:
    """τ_k = law(k, q_k, q̇_k) of the module docstring, its feedforward and inertia along q_d precomputed for
    every step k (every run's law: :func:`crossdyn.robotcompare.runs.track` for the reference, ``law=`` of
    :func:`~crossdyn.robotcompare.runs.step_engine` for the engines)."""

    feedforward: np.ndarray
    """(steps, n): RNEA_ref(q_d, q̇_d, q̈_d) + b q̇_d at t_k."""
    inertia: np.ndarray
    """(steps, n, n): M_ref(q_d(t_k)), armature included."""
    q_d: np.ndarray
    v_d: np.ndarray
    limit: np.ndarray | None = None
    """Per joint the effort law's limit e_j (N m or N; inf: none): τ_k = clip(law, −e, e) (:func:`clip_effort`);
    None (the default run): unclipped."""

    def __call__(self, k: int, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        tau = self.feedforward[k] + self.inertia[k] @ (KP * (self.q_d[k] - q) + KD * (self.v_d[k] - qd))
        return tau if self.limit is None else clip_effort(tau, self.limit)


def clip_effort(tau: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """crossdyn's effort law, the planar arms' applied mode (:mod:`crossdyn.drive.runner`): τ_applied,j =
    clip(τ_j, −e_j, e_j), per joint; e_j = inf leaves joint j unclipped.  A saturated entry is ±e_j exactly."""
    return np.clip(np.asarray(tau, float), -limit, limit)


def tracking_law(model: RobotModel, motion: DesiredMotion, dt: float, steps: int,
                 limit: np.ndarray | None = None) -> TrackingLaw:
    """The :class:`TrackingLaw` for ``steps`` steps of ``dt`` (module docstring); ``limit``: its effort law's
    per-joint limits (None: unclipped)."""
    from crossdyn.spatial import crba

    q_d, v_d, _ = motion.at(np.arange(steps) * dt)
    M = np.asarray(crba(model, q_d, armature=True), float).reshape(steps, model.n, model.n)
    return TrackingLaw(torque_sequence(model, motion, dt, steps), M, q_d, v_d, limit)


@dataclass(frozen=True)
class Approach:
    """How close a run came to the file's limits: the smallest distance over joints with limits (rad or m; < 0:
    outside by that much) as a fraction of that joint's range, the joint, its distance and the limit it neared."""

    fraction: float
    joint: str
    distance: float
    limit: float

    def line(self) -> str:
        where = "inside" if self.distance >= 0 else "outside"
        return (f"closest approach to a limit: joint {self.joint!r}, {abs(self.distance):.3g} {where} its limit "
                f"{self.limit:.4g} ({100 * self.fraction:.3g} % of its range)")


def closest_approach(model: RobotModel, Q: np.ndarray) -> Approach | None:
    """The :class:`Approach` of the samples ``Q`` (N, n); None when no joint has both limits."""
    lo, hi = model.lower(), model.upper()
    both = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
    if not np.any(both) or not len(Q):
        return None
    below, above = np.min(Q, axis=0) - lo, hi - np.max(Q, axis=0)
    dist = np.where(below <= above, below, above)
    frac = np.where(both, dist / np.where(both, hi - lo, 1.0), np.inf)
    j = int(np.argmin(frac))
    return Approach(float(frac[j]), model.joints[j].name, float(dist[j]), float(lo[j] if below[j] <= above[j]
                                                                                 else hi[j]))


def effort_limits(model: RobotModel) -> np.ndarray:
    """Per joint the file's effort limit (N m or N); inf where it states none, a non-positive one or
    ≥ :data:`NO_EFFORT`."""
    e = np.array([j.effort if j.effort is not None else np.inf for j in model.joints], float)
    return np.where((e > 0) & (e < NO_EFFORT), e, np.inf)


@dataclass(frozen=True)
class EffortApproach:
    """How close a run's torques came to the file's effort limits: the largest peak |τ_j| / effort_j over the joints
    with one, that joint, its peak and its effort (N m, or N for a prismatic joint)."""

    fraction: float
    joint: str
    peak: float
    effort: float
    unit: str

    def line(self) -> str:
        return (f"largest torque against an effort limit: joint {self.joint!r}, peak |tau| {self.peak:.4g} {self.unit} "
                f"against the file's effort {self.effort:.4g} {self.unit} ({100 * self.fraction:.3g} %)")

    def as_dict(self) -> dict:
        return {"joint": self.joint, "peak": self.peak, "effort": self.effort, "unit": self.unit,
                "fraction": self.fraction}


def peak_effort(model: RobotModel, taus: np.ndarray) -> EffortApproach | None:
    """The :class:`EffortApproach` of the torques ``taus`` (N, n); None when no joint has an effort limit (or no
    torque was applied)."""
    limit = effort_limits(model)
    taus = np.asarray(taus, float).reshape(-1, model.n)
    if not np.any(np.isfinite(limit)) or not len(taus):
        return None
    peak = np.max(np.abs(taus), axis=0)
    frac = np.where(np.isfinite(limit), peak / limit, -np.inf)
    j = int(np.argmax(frac))
    unit = "N m" if model.joints[j].type.rotates else "N"
    return EffortApproach(float(frac[j]), model.joints[j].name, float(peak[j]), float(limit[j]), unit)


def holding_effort(model: RobotModel, motion: "DesiredMotion") -> EffortApproach | None:
    """:func:`peak_effort` of the torque that holds the motion's centre at rest, G(q*) (armature and damping do not
    enter at rest): what no smaller amplitude can bring under the limits."""
    from crossdyn.spatial import rnea

    z = np.zeros((1, model.n))
    return peak_effort(model, np.asarray(rnea(model, motion.center[None], z, z, armature=True)))


@dataclass(frozen=True)
class RandomStates:
    """States of the static metrics: q within the limits, q̇, q̈ for inverse dynamics, τ for forward dynamics."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray


STATE_SPEED = 2.0
STATE_ACCELERATION = 10.0
"""|q̇| ≤ 2 rad/s (m/s), |q̈| ≤ 10 rad/s² (m/s²): the range of an arm's motion under its own drives."""


def states_within_limits(model: RobotModel, count: int, seed: int) -> RandomStates:
    """``count`` states: q ∈ U[lower, upper] (U[−π, π] without limits), q̇ ∈ U[−2, 2], q̈ ∈ U[−10, 10]; the
    torques of forward dynamics are the reference's inverse dynamics at another q̈ ∈ U[−10, 10] (torques the arm
    meets, rather than noise on the torque scale)."""
    from crossdyn.spatial import rnea

    rng = np.random.default_rng(seed)
    n = model.n
    lo, hi = model.lower(), model.upper()
    lo = np.where(np.isfinite(lo), lo, -np.pi)
    hi = np.where(np.isfinite(hi), hi, np.pi)
    q = rng.uniform(lo, hi, (count, n))
    qd = rng.uniform(-STATE_SPEED, STATE_SPEED, (count, n))
    qdd = rng.uniform(-STATE_ACCELERATION, STATE_ACCELERATION, (count, n))
    other = rng.uniform(-STATE_ACCELERATION, STATE_ACCELERATION, (count, n))
    tau = np.asarray(rnea(model, q, qd, other, armature=True))
    return RandomStates(q, qd, qdd, tau)


def energy_scale(model: RobotModel) -> float:
    """E_scale = Σᵢ mᵢ |g| rᵢ (J), rᵢ the distance of body i's centre of mass from the base origin at q = 0 (the
    robot file's counterpart of the planar arm's Σ mᵢ|g|rᵢ): the potential energy a full swing can exchange."""
    X = [np.eye(4)] * model.n
    g = float(np.linalg.norm(model.gravity))
    total = 0.0
    for i, (body, joint) in enumerate(zip(model.bodies, model.joints, strict=True)):
        parent = np.eye(4) if model.parents[i] < 0 else X[model.parents[i]]
        X[i] = parent @ joint.origin  # at q = 0: T(anchor)·Rot(axis, 0)·T(−anchor) = 1
        c = X[i][:3, :3] @ body.inertial.com + X[i][:3, 3]
        total += body.inertial.mass * g * float(np.linalg.norm(c))
    return max(total, 1e-12)


def within_limits(model: RobotModel, q: np.ndarray) -> tuple[bool, str]:
    """(True, "") if every sample of ``q`` is inside the file's limits, else (False, the first joint and value)."""
    lo, hi = model.lower(), model.upper()
    out = (q < lo - 1e-9) | (q > hi + 1e-9)
    if not np.any(out):
        return True, ""
    k, j = np.argwhere(out)[0]
    return False, (f"joint {model.joints[j].name!r} reaches {q[k, j]:.4g} at sample {k}, outside "
                   f"[{lo[j]:.4g}, {hi[j]:.4g}]")
