"""Recursive Newton–Euler inverse dynamics for planar nR arms: O(n), batched.

Independent of the Lagrangian derivations: it balances forces and moments link
by link.  Link i has absolute angle θi, unit vectors eᵢ = (cos θi, sin θi) along
the link and nᵢ = (−sin θi, cos θi) across it, angular velocity ωi = Σ_{k≤i} q̇k
and angular acceleration αi = Σ_{k≤i} q̈k.

Forward pass (gravity enters as a base acceleration a_O1 = −g):

    a_O(i+1) = a_Oi + Li (αi nᵢ − ωi² eᵢ)

Backward pass, in the inertial parameters θᵢ = (mi, hi = mi Lci, Ii = Ji + mi Lci²)
in which the dynamics is linear:

    fᵢ = f_{i+1} + mi a_Oi + hi (αi nᵢ − ωi² eᵢ)             (force from link i−1 on link i)
    nᵢ = n_{i+1} + Li eᵢ × f_{i+1} + Ii αi + hi eᵢ × a_Oi     (moment about joint i, z component)
    τi = nᵢ

(a × b = ax by − ay bx).  Rotor armature I_a (reflected rotor inertia) adds τi += I_ai q̈i:
the rotor's torque to accelerate itself, transmitted through the gearbox (not a link's inertia,
so it enters after the recursion).  Joint friction F(q̇) = b q̇ + f_c sign(q̇) is added by
:func:`crossdyn.analytic.dynamics.inverse_dynamics`, not here.
"""
from __future__ import annotations

import numpy as np

from crossdyn.models.spec import ArmParams, armature_of


def inertial_parameters(p: ArmParams) -> np.ndarray:
    """θ per link, (m, m Lc, J + m Lc²): shape (..., n, 3)."""
    return np.stack([p.m, p.m * p.Lc, p.J + p.m * p.Lc**2], axis=-1)


def rnea_theta(L: np.ndarray, gravity: np.ndarray, theta: np.ndarray,
               q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
    """τ of the rigid arm with link lengths L and inertial parameters θ (..., n, 3).

    Linear in θ — the property the regressor relies on.
    """
    q, qd, qdd = (np.asarray(a, dtype=float) for a in (q, qd, qdd))
    n = q.shape[-1]
    th = np.cumsum(q, axis=-1)
    w = np.cumsum(qd, axis=-1)
    al = np.cumsum(qdd, axis=-1)
    c, s = np.cos(th), np.sin(th)
    shape = np.broadcast_shapes(q.shape[:-1], qd.shape[:-1], qdd.shape[:-1], L.shape[:-1],
                                gravity.shape[:-1], theta.shape[:-2])
    ax = np.broadcast_to(-gravity[..., 0], shape).astype(float)
    ay = np.broadcast_to(-gravity[..., 1], shape).astype(float)
    # forward: accelerations of each joint origin; tangential+centripetal term per link
    aox, aoy, kx, ky = [], [], [], []
    for i in range(n):
        ci, si = c[..., i], s[..., i]
        tx = al[..., i] * -si - w[..., i] ** 2 * ci  # αi nᵢ − ωi² eᵢ
        ty = al[..., i] * ci - w[..., i] ** 2 * si
        aox.append(ax)
        aoy.append(ay)
        kx.append(tx)
        ky.append(ty)
        ax = ax + L[..., i] * tx
        ay = ay + L[..., i] * ty
    # backward
    fx = np.zeros(shape)
    fy = np.zeros(shape)
    mom = np.zeros(shape)
    tau = np.empty(shape + (n,))
    for i in range(n - 1, -1, -1):
        m, h, inertia = theta[..., i, 0], theta[..., i, 1], theta[..., i, 2]
        ci, si = c[..., i], s[..., i]
        mom = mom + L[..., i] * (ci * fy - si * fx) + inertia * al[..., i] + h * (ci * aoy[i] - si * aox[i])
        fx = fx + m * aox[i] + h * kx[i]
        fy = fy + m * aoy[i] + h * ky[i]
        tau[..., i] = mom
    return tau


def rnea(p: ArmParams, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
    """Rigid-body inverse dynamics τ = M q̈ + C q̇ + G by recursive Newton–Euler (+ I_a ⊙ q̈, armature)."""
    tau = rnea_theta(p.L, p.gravity, inertial_parameters(p), q, qd, qdd)
    Ia = armature_of(p)
    return tau if Ia is None else tau + Ia * np.asarray(qdd, dtype=float)


def crba(p: ArmParams, q: np.ndarray) -> np.ndarray:
    """Mass matrix from inverse dynamics: column j = rnea(q, 0, eⱼ) with gravity off (+ diag(I_a))."""
    q = np.asarray(q, dtype=float)
    n = q.shape[-1]
    theta = inertial_parameters(p)
    zero_g = np.zeros_like(p.gravity)
    cols = [rnea_theta(p.L, zero_g, theta, q, np.zeros(n), np.eye(n)[j]) for j in range(n)]
    M = np.stack(cols, axis=-1)
    Ia = armature_of(p)
    if Ia is not None:
        idx = np.arange(n)
        M[..., idx, idx] += Ia
    return M


def regressor(p: ArmParams, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, armature: bool = False) -> np.ndarray:
    """Y(q, q̇, q̈) with τ_rigid = Y θ, θ = (m1, m1 Lc1, J1 + m1 Lc1², m2, …): shape (..., n, 3n).

    Column k is the rigid-body torque of an arm whose only nonzero inertial
    parameter is θ_k = 1 (possible because τ is linear in θ).  Depends on the link
    lengths and gravity, not on the inertial parameters.  ``armature=True`` appends n
    columns, one per joint j: q̈_j in row j (τ_j += I_aj q̈_j), for θ's tail (I_a1, …, I_an)
    (see :func:`parameter_vector`); shape (..., n, 4n).
    """
    q = np.asarray(q, dtype=float)
    n = q.shape[-1]
    cols = []
    for k in range(3 * n):
        unit = np.zeros((n, 3))
        unit[k // 3, k % 3] = 1.0
        cols.append(rnea_theta(p.L, p.gravity, unit, q, qd, qdd))
    Y = np.stack(cols, axis=-1)
    if not armature:
        return Y
    qdd = np.broadcast_to(np.asarray(qdd, dtype=float), Y.shape[:-1])
    diag = np.zeros(Y.shape[:-1] + (n,))
    idx = np.arange(n)
    diag[..., idx, idx] = qdd
    return np.concatenate([Y, diag], axis=-1)


def parameter_vector(p: ArmParams, armature: bool = False) -> np.ndarray:
    """θ flattened in the regressor's column order: shape (..., 3n); with ``armature=True``
    followed by (I_a1, …, I_an) (zeros for an arm without armature): shape (..., 4n)."""
    th = inertial_parameters(p)
    flat = th.reshape(th.shape[:-2] + (-1,))
    if not armature:
        return flat
    Ia = armature_of(p)
    Ia = np.zeros(p.L.shape) if Ia is None else np.broadcast_to(Ia, p.L.shape)
    batch = np.broadcast_shapes(flat.shape[:-1], Ia.shape[:-1])
    return np.concatenate([np.broadcast_to(flat, batch + flat.shape[-1:]),
                           np.broadcast_to(Ia, batch + Ia.shape[-1:])], axis=-1)
