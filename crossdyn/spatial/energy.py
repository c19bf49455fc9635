"""Kinetic and potential energy of a :class:`~crossdyn.robots.model.RobotModel`, batched.

    T = ½ Σ_i v_iᵀ I_i v_i = ½ Σ_i (ω·Ī ω + 2 ω·(h × v) + m |v|²)   (+ ½ Σ_j I_a,j q̇_j² with armature)
    U = −Σ_i m_i g · c_i^world

with v_i = [ω; v] the body's spatial velocity in its frame (the RNEA's forward pass, Featherstone Table 5.1),
(m, h = m c, Ī about the body origin) its inertia (eq. 2.63 expanded; T_i = ½ v_iᵀ I_i v_i is eq. 2.67) and g the
model's world gravity.  T = ½ q̇ᵀ M q̇ (M from :mod:`crossdyn.spatial.crba`), and d(T + U)/dt = q̇ᵀ τ along any
motion.
"""
from __future__ import annotations

import numpy as np

from crossdyn.robots.model import RobotModel
from crossdyn.spatial.kinematics import as_states, bodies, com_positions, joint_transforms
from crossdyn.spatial.rnea import body_accelerations
from crossdyn.spatial.transforms import cross


def kinetic_energy(model: RobotModel, Q, QD, armature: bool = True) -> np.ndarray:
    """T(q, q̇): (N,), or a NumPy scalar for one state."""
    (Q, QD), single = as_states(model, Q, QD)
    b = bodies(model)
    motion = body_accelerations(b, joint_transforms(model, Q), QD, np.zeros_like(QD), np.zeros(3))
    T = np.zeros(Q.shape[0], dtype=Q.dtype)
    for i, (w, v, _, _) in enumerate(motion):
        T += 0.5 * (np.einsum("ni,ij,nj->n", w, b.inertia[i], w) + 2.0 * np.einsum("ni,ni->n", w, cross(b.h[i], v))
                    + b.mass[i] * np.einsum("ni,ni->n", v, v))
    if armature:
        T += 0.5 * (QD**2) @ b.armature
    return T[0] if single else T


def potential_energy(model: RobotModel, Q) -> np.ndarray:
    """U(q) = −Σ m_i g · c_i (zero at the world origin): (N,), or a NumPy scalar for one state."""
    (Q,), single = as_states(model, Q)
    masses = np.array([body.inertial.mass for body in model.bodies])
    U = -np.einsum("nij,j,i->n", com_positions(model, Q), model.gravity, masses)
    return U[0] if single else U


def energy(model: RobotModel, Q, QD, armature: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(T, U): kinetic and potential energy, (N,) each, or NumPy scalars for one state."""
    return kinetic_energy(model, Q, QD, armature), potential_energy(model, Q)
