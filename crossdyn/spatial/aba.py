"""Forward dynamics by the articulated-body algorithm (Featherstone 2008, §7.3, Table 7.1), batched.

    pass 1 (i = 1..n):  v_i = ⁱX_λ v_λ + S_i q̇_i,   c_i = v_i × S_i q̇_i,
                        I^A_i = I_i,   p^A_i = v_i ×* I_i v_i
    pass 2 (i = n..1):  U_i = I^A_i S_i,   D_i = S_iᵀ U_i + I_a,i,   u_i = τ_i − S_iᵀ p^A_i,
                        I^a = I^A_i − U_i D_i⁻¹ U_iᵀ,   p^a = p^A_i + I^a c_i + U_i D_i⁻¹ u_i,
                        I^A_λ += λX*_i I^a ⁱX_λ,   p^A_λ += λX*_i p^a
    pass 3 (i = 1..n):  a'_i = ⁱX_λ a_λ + c_i  (a_0 = −a_g),   q̈_i = D_i⁻¹ (u_i − U_iᵀ a'_i),   a_i = a'_i + S_i q̈_i

so q̈ = (M + diag(I_a))⁻¹ (τ − C q̇ − G).  The armature I_a (``armature=True``) enters as the diagonal term D_i + I_a,i:
a rotor whose kinetic energy ½ I_a q̇_i² depends on q̇_i alone, as in MuJoCo and Pinocchio.  The articulated
inertias are 6×6 here (batched (N, 6, 6) products); λX*_i = (ⁱX_λ)ᵀ.  One state (n,) goes to
:func:`crossdyn.spatial.compiled.aba_one`, the same table on 6×6 matrices of one state (equal to rounding).
"""
from __future__ import annotations

import numpy as np

from crossdyn.robots.model import RobotModel
from crossdyn.spatial.compiled import aba_one, compile_model
from crossdyn.spatial.kinematics import Bodies, as_states, joint_transforms
from crossdyn.spatial.rnea import body_force
from crossdyn.spatial.transforms import cross, motion_to_child, plucker


def _velocities(b: Bodies, transforms, QD: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], list]:
    """Pass 1: the velocity-product accelerations c_i (N, 6), bias forces p^A_i (N, 6) and velocities."""
    N = QD.shape[0]
    zero = np.zeros((N, 3))
    vel: list[tuple[np.ndarray, np.ndarray]] = []
    c, pA = [], []
    for i, (R, p) in enumerate(transforms):
        wp, vp = (zero, zero) if b.parents[i] < 0 else vel[b.parents[i]]
        w, v = motion_to_child(R, p, wp, vp)
        Sw, Sv = b.S[i, :3], b.S[i, 3:]
        qd = QD[:, i, None]
        w, v = w + qd * Sw, v + qd * Sv
        vel.append((w, v))
        c.append(np.concatenate((qd * cross(w, Sw), qd * (cross(w, Sv) + cross(v, Sw))), axis=-1))
        pA.append(np.concatenate(body_force(b, i, w, v, zero, zero), axis=-1))
    return c, pA, vel


def aba(model: RobotModel, Q, QD, TAU, armature: bool = True) -> np.ndarray:
    """q̈ = (M + diag(I_a))⁻¹ (τ − C(q, q̇) q̇ − G(q)): (N, n), or (n,) for one state (I_a = 0 unless
    ``armature``)."""
    (Q, QD, TAU), single = as_states(model, Q, QD, TAU)
    if single and Q.dtype == np.float64:  # one state: the 6×6 form on the cached constants, no batch overhead
        return aba_one(model, Q[0], QD[0], TAU[0], armature)
    cm = compile_model(model)
    b = cm.bodies
    N, n = Q.shape
    transforms = joint_transforms(model, Q)
    X = [plucker(R, p) for R, p in transforms]
    c, pA, _ = _velocities(b, transforms, QD)
    IA = [np.broadcast_to(cm.inertia6[i], (N, 6, 6)).astype(Q.dtype) for i in range(n)]  # [[Ī, h×], [−h×, m 1]] (eq. 2.63)
    arm = b.armature if armature else np.zeros(n)
    U, D, u = [np.empty(0)] * n, [np.empty(0)] * n, [np.empty(0)] * n
    for i in range(n - 1, -1, -1):
        S = b.S[i]
        U[i] = IA[i] @ S
        D[i] = U[i] @ S + arm[i]
        u[i] = TAU[:, i] - pA[i] @ S
        lam = b.parents[i]
        if lam >= 0:
            Ia = IA[i] - np.einsum("ni,nj->nij", U[i], U[i] / D[i][:, None])
            pa = pA[i] + np.einsum("nij,nj->ni", Ia, c[i]) + U[i] * (u[i] / D[i])[:, None]
            Xt = np.swapaxes(X[i], -1, -2)
            IA[lam] += Xt @ Ia @ X[i]
            pA[lam] += np.einsum("nij,nj->ni", Xt, pa)
    QDD = np.empty((N, n), dtype=Q.dtype)
    acc: list[np.ndarray] = []
    root = np.concatenate((np.zeros(3), -model.gravity))
    for i in range(n):
        lam = b.parents[i]
        a = np.einsum("nij,nj->ni", X[i], np.broadcast_to(root, (N, 6)) if lam < 0 else acc[lam]) + c[i]
        QDD[:, i] = (u[i] - np.einsum("ni,ni->n", U[i], a)) / D[i]
        acc.append(a + QDD[:, i, None] * b.S[i])
    return QDD[0] if single else QDD
