"""Explicit stepping's stability on a robot file, predicted before any engine runs: :func:`predict`.

The file's viscous damping b makes the linearised joint dynamics M(q) δq̈ = −B δq̇ (B = diag b) a decay at the
rates λ = the eigenvalues of M(q)⁻¹ B (1/s).  An explicit scheme stepping at dt is stable on such a decay only while
λ·dt stays inside its stability interval: 2 for explicit and semi-implicit Euler (v' = v (1 − λ dt)), 2.785 for RK4.
A light body behind a damped joint puts λ far up: robosuite's Jaco, joint 7 (mass 1e-6 kg, inertia 1e-6 kg m²,
damping 0.01) has M_jj = 1e-6 kg m² and b·dt/M_jj ≈ 10 at dt = 1 ms, and every engine stepping it explicitly diverges
within a few steps (Pinocchio "diverged at t = 0.007 s") while its inverse and forward dynamics and mass matrix agree
with the reference to 1e-13: the step, not the engine.

The largest rate is λ_max = the largest eigenvalue of B^½ M⁻¹ B^½ (symmetric, the same spectrum as M⁻¹B), taken
over the start and :data:`SAMPLES` poses along the desired motion; each joint's own figures, b·dt/M_jj and
b·dt·(M⁻¹)_jj (the joint alone, and with the rest of the arm free), name the joint responsible.  A step is
called stable when λ_max·dt ≤ :data:`STABLE_LIMIT` (1: half Euler's bound, a margin of 2 for the schemes crossdyn
shares with the engines, where the decay is also resolved: |1 − λ dt| ≤ 0 at the limit).  When the default step is
not, :func:`stable_dt` halves it until it is (dt = dt₀/2ᵏ, so the step still divides the default duration).

Joint springs (sqrt(k/M)·dt) need no such figure: crossdyn's readers refuse a file with a joint spring
(:mod:`crossdyn.robots.mjcf_parts`), so its model has none.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.robots.model import RobotModel

STABLE_LIMIT = 1.0
"""λ_max·dt at most this: half explicit Euler's bound 2 (RK4: 2.785)."""
SAMPLES = 20
"""Poses along the desired motion (besides its start) where M(q) is evaluated."""
MAX_HALVINGS = 10
"""dt is halved at most this many times (1 ms → 0.98 µs)."""


@dataclass(frozen=True)
class JointRate:
    """One joint's figures at the pose where its rate is largest: M_jj, 1/(M⁻¹)_jj (its effective inertia with
    the rest of the arm free), its damping b, and b·dt/M_jj, b·dt·(M⁻¹)_jj at the dt they were computed for."""

    name: str
    m_jj: float
    m_effective: float
    damping: float
    ratio: float
    """b·dt/M_jj."""
    ratio_effective: float
    """b·dt·(M⁻¹)_jj."""

    def line(self, dt: float) -> str:
        return (f"joint {self.name!r}: M_jj = {self.m_jj:.3g}, 1/(M^-1)_jj = {self.m_effective:.3g}, damping b = "
                f"{self.damping:.3g}: b*dt/M_jj = {self.ratio:.3g} at dt = {dt:g} s")


@dataclass(frozen=True)
class Prediction:
    """λ_max·dt at ``dt`` and each damped joint's figures (largest ratio first)."""

    dt: float
    rate_dt: float
    """λ_max·dt."""
    joints: tuple[JointRate, ...]

    @property
    def stable(self) -> bool:
        return self.rate_dt <= STABLE_LIMIT

    def culprit(self) -> JointRate | None:
        """The joint with the largest b·dt·(M⁻¹)_jj (None without damping)."""
        return self.joints[0] if self.joints else None


def rates(model: RobotModel, Q: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(λ_max over the poses ``Q`` (N, n), M_jj (N, n), (M⁻¹)_jj (N, n)), M with the file's armature."""
    from crossdyn.robotcompare.motion import damping
    from crossdyn.spatial import crba

    M = np.asarray(crba(model, np.atleast_2d(Q), armature=True), float).reshape(-1, model.n, model.n)
    Minv = np.linalg.inv(M)
    sb = np.sqrt(damping(model))
    lam = np.linalg.eigvalsh(sb[None, :, None] * Minv * sb[None, None, :])[:, -1]
    return float(np.max(lam)), np.einsum("kii->ki", M), np.einsum("kii->ki", Minv)


def predict(model: RobotModel, Q: np.ndarray, dt: float) -> Prediction:
    """The :class:`Prediction` at ``dt`` over the poses ``Q`` (module docstring)."""
    from crossdyn.robotcompare.motion import damping

    lam, Mjj, Minv_jj = rates(model, Q)
    b = damping(model)
    joints = []
    for j, joint in enumerate(model.joints):
        if b[j] <= 0:
            continue
        k = int(np.argmax(Minv_jj[:, j]))
        joints.append(JointRate(joint.name, float(np.min(Mjj[:, j])), float(1.0 / Minv_jj[k, j]), float(b[j]),
                                float(b[j] * dt / np.min(Mjj[:, j])), float(b[j] * dt * Minv_jj[k, j])))
    joints.sort(key=lambda r: -r.ratio_effective)
    return Prediction(dt, lam * dt, tuple(joints))


def stable_dt(prediction: Prediction) -> float:
    """The largest dt₀/2ᵏ (k ≤ :data:`MAX_HALVINGS`) with λ_max·dt ≤ :data:`STABLE_LIMIT`; dt₀ itself when stable."""
    lam = prediction.rate_dt / prediction.dt
    dt = prediction.dt
    for _ in range(MAX_HALVINGS):
        if lam * dt <= STABLE_LIMIT:
            break
        dt /= 2
    return dt


def explanation(prediction: Prediction) -> str:
    """One line: λ_max·dt against the limit, and the joint behind it."""
    worst = prediction.culprit()
    who = f"; {worst.line(prediction.dt)}" if worst is not None else ""
    return (f"explicit stepping at dt = {prediction.dt:g} s is unstable on the file's damping: the fastest decay "
            f"rate lambda_max*dt = {prediction.rate_dt:.3g} > {STABLE_LIMIT:g} (explicit Euler diverges past 2, "
            f"RK4 past 2.785){who}")
