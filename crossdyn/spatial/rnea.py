"""Inverse dynamics by the recursive Newton–Euler algorithm (Featherstone 2008, §5.3, Table 5.1), batched.

    v_i = ⁱX_λ v_λ + S_i q̇_i                                  (v_0 = 0)
    a_i = ⁱX_λ a_λ + S_i q̈_i + v_i × S_i q̇_i                  (a_0 = −a_g: gravity as a base acceleration)
    f_i = I_i a_i + v_i ×* I_i v_i
    τ_i = S_iᵀ f_i (+ I_a,i q̈_i with armature),    f_λ += λX*_i f_i,  λX*_i = (ⁱX_λ)ᵀ

so τ = M(q) q̈ + C(q, q̇) q̇ + G(q).  With the body's inertia as (m, h = m c, Ī about the body origin) and
v_i = [ω; v], a_i = [ω̇; v̇], the body force f_i = [n; f] is

    n = Ī ω̇ + ω × Ī ω + h × (v̇ + ω × v),     f = m (v̇ + ω × v) + ω̇ × h + ω × (ω × h),

linear in (m, h, Ī): the form :mod:`crossdyn.spatial.regressor` differentiates.  ``armature=True`` adds the
reflected rotor inertia I_a (``Joint.armature``) as M + diag(I_a), the MuJoCo/Pinocchio model.
"""
from __future__ import annotations

import numpy as np

from crossdyn.robots.model import RobotModel
from crossdyn.spatial.kinematics import Bodies, as_states, bodies, joint_transforms
from crossdyn.spatial.transforms import cross, force_to_parent, motion_to_child


def body_accelerations(b: Bodies, transforms: list[tuple[np.ndarray, np.ndarray]], QD: np.ndarray,
                       QDD: np.ndarray, gravity: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """The forward pass: per body (ω, v, ω̇, v̇) in body coordinates, (N, 3) each, with a_0 = [0; −g]."""
    N = QD.shape[0]
    out: list[tuple[np.ndarray, ...]] = []
    zero = np.zeros((N, 3))
    root = (zero, zero, zero, np.broadcast_to(-np.asarray(gravity, dtype=float), (N, 3)))
    for i, (R, p) in enumerate(transforms):
        wp, vp, dwp, dvp = root if b.parents[i] < 0 else out[b.parents[i]]
        w, v = motion_to_child(R, p, wp, vp)
        dw, dv = motion_to_child(R, p, dwp, dvp)
        Sw, Sv = b.S[i, :3], b.S[i, 3:]
        qd, qdd = QD[:, i, None], QDD[:, i, None]
        w = w + qd * Sw
        v = v + qd * Sv
        dw = dw + qdd * Sw + qd * cross(w, Sw)
        dv = dv + qdd * Sv + qd * (cross(w, Sv) + cross(v, Sw))
        out.append((w, v, dw, dv))
    return out


def body_force(b: Bodies, i: int, w: np.ndarray, v: np.ndarray, dw: np.ndarray,
               dv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """f_i = I_i a_i + v_i ×* I_i v_i as (n, f), from (m, h, Ī) of body i (see the module docstring)."""
    m, h, Ib = b.mass[i], b.h[i], b.inertia[i]
    acc = dv + cross(w, v)
    n = dw @ Ib + cross(w, w @ Ib) + cross(h, acc)
    f = m * acc + cross(dw, h) + cross(w, cross(w, h))
    return n, f


def rnea(model: RobotModel, Q, QD, QDD, armature: bool = True, gravity=None) -> np.ndarray:
    """τ = M(q) q̈ + C(q, q̇) q̇ + G(q) (+ diag(armature) q̈): (N, n), or (n,) for one state.  ``gravity``: a world
    3-vector replacing ``model.gravity`` (zeros give C q̇ + M q̈ alone)."""
    (Q, QD, QDD), single = as_states(model, Q, QD, QDD)
    g = model.gravity if gravity is None else np.asarray(gravity, dtype=float).reshape(3)
    b = bodies(model)
    transforms = joint_transforms(model, Q)
    motion = body_accelerations(b, transforms, QD, QDD, g)
    forces = [body_force(b, i, *motion[i]) for i in range(model.n)]
    tau = np.empty(Q.shape, dtype=Q.dtype)
    for i in range(model.n - 1, -1, -1):
        n, f = forces[i]
        tau[:, i] = n @ b.S[i, :3] + f @ b.S[i, 3:]
        lam = b.parents[i]
        if lam >= 0:
            dn, df = force_to_parent(*transforms[i], n, f)
            forces[lam] = (forces[lam][0] + dn, forces[lam][1] + df)
    if armature:
        tau += b.armature * QDD
    return tau[0] if single else tau


def gravity_torque(model: RobotModel, Q) -> np.ndarray:
    """G(q) = ∂U/∂q = RNEA(q, 0, 0): (N, n), or (n,) for one state."""
    Q = np.asarray(Q)
    return rnea(model, Q, np.zeros_like(Q), np.zeros_like(Q), armature=False)


def bias(model: RobotModel, Q, QD) -> np.ndarray:
    """h(q, q̇) = C(q, q̇) q̇ + G(q) = RNEA(q, q̇, 0): (N, n), or (n,) for one state."""
    Q = np.asarray(Q)
    return rnea(model, Q, QD, np.zeros_like(Q), armature=False)


def coriolis(model: RobotModel, Q, QD) -> np.ndarray:
    """C(q, q̇) q̇ = RNEA(q, q̇, 0) with gravity 0: (N, n), or (n,) for one state."""
    Q = np.asarray(Q)
    return rnea(model, Q, QD, np.zeros_like(Q), armature=False, gravity=np.zeros(3))
