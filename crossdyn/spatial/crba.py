"""The joint-space inertia matrix by the composite-rigid-body algorithm (Featherstone 2008, ch. 6), batched.

    I^c_i = I_i + Σ_{children j} ⁱX*_j I^c_j ʲX_i                (the subtree's inertia, in body i's frame)
    F_i = I^c_i S_i,   H_ii = S_iᵀ F_i,   H_ij = H_ji = S_jᵀ (ʲX*_k ⋯ F_i)  for every ancestor j of i

and M(q) = H (+ diag(armature) with ``armature=True``).  The composite inertia is carried as its ten parameters
(m, h = m c, Ī about the frame origin); moving it to the parent's frame, where the child sits at (R, p), is

    m' = m,   h' = R h + m p,   Ī' = R Ī Rᵀ − (R h)× p× − p× (R h)× − m p× p×

(Ī = −Σ m_k r_k× r_k× with r' = R r + p).
"""
from __future__ import annotations

import numpy as np

from crossdyn.robots.model import RobotModel
from crossdyn.spatial.kinematics import as_states, bodies, joint_transforms
from crossdyn.spatial.transforms import cross, force_to_parent, rotate, skew


def composite_inertias(model: RobotModel, Q: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(m, h, Ī) of every body's subtree in its own frame: m (N,), h (N, 3), Ī (N, 3, 3)."""
    b = bodies(model)
    N = Q.shape[0]
    comp = [(np.full(N, b.mass[i], dtype=Q.dtype), np.broadcast_to(b.h[i], (N, 3)).astype(Q.dtype),
             np.broadcast_to(b.inertia[i], (N, 3, 3)).astype(Q.dtype)) for i in range(model.n)]
    transforms = joint_transforms(model, Q)
    for i in range(model.n - 1, -1, -1):
        lam = b.parents[i]
        if lam < 0:
            continue
        R, p = transforms[i]
        m, h, Ib = comp[i]
        Rh = rotate(R, h)
        P, H = skew(p), skew(Rh)
        shifted = R @ Ib @ np.swapaxes(R, -1, -2) - H @ P - P @ H - m[:, None, None] * (P @ P)
        mp, hp, Ip = comp[lam]
        comp[lam] = (mp + m, hp + Rh + m[:, None] * p, Ip + shifted)
    return comp


def crba(model: RobotModel, Q, armature: bool = True) -> np.ndarray:
    """M(q) (+ diag(armature)): symmetric positive definite, (N, n, n), or (n, n) for one state."""
    (Q,), single = as_states(model, Q)
    b = bodies(model)
    N, n = Q.shape
    transforms = joint_transforms(model, Q)
    H = np.zeros((N, n, n), dtype=Q.dtype)
    for i, (m, h, Ib) in enumerate(composite_inertias(model, Q)):
        Sw, Sv = b.S[i, :3], b.S[i, 3:]
        F_n = Ib @ Sw + cross(h, Sv)
        F_f = m[:, None] * Sv - cross(h, Sw)
        H[:, i, i] = F_n @ Sw + F_f @ Sv
        j = i
        while b.parents[j] >= 0:
            F_n, F_f = force_to_parent(*transforms[j], F_n, F_f)
            j = b.parents[j]
            H[:, i, j] = H[:, j, i] = F_n @ b.S[j, :3] + F_f @ b.S[j, 3:]
    if armature:
        H[:, np.arange(n), np.arange(n)] += b.armature
    return H[0] if single else H
