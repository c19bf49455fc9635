"""Closed-form Lagrangian dynamics of planar 2R and 3R arms, written out by hand.

    M(q) q̈ + C(q, q̇) q̇ + G(q) = τ

Every function broadcasts: q, q̇ of shape (n,) or (N, n), and parameters of
shape (n,) or (N, n) (a batch of parameter sets).

3R in the textbook a1…a6 form (links 1, 2, 3; ci = cos qi, c23 = cos(q2 + q3)):

    a1 = J1 + m1 Lc1² + (m2 + m3) L1²      a4 = (m2 Lc2 + m3 L2) L1
    a2 = J2 + m2 Lc2² + m3 L2²             a5 = m3 Lc3 L2
    a3 = J3 + m3 Lc3²                      a6 = m3 Lc3 L1

    M11 = a1 + a2 + a3 + 2 a4 c2 + 2 a5 c3 + 2 a6 c23
    M12 = a2 + a3 + a4 c2 + 2 a5 c3 + a6 c23
    M13 = a3 + a5 c3 + a6 c23
    M22 = a2 + a3 + 2 a5 c3
    M23 = a3 + a5 c3
    M33 = a3

2R is the same with link 3 removed (a3 = a5 = a6 = 0).  C is the Christoffel
matrix  C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) q̇_k, so Ṁ − 2C is
skew-symmetric.  Gravity enters through the lever γ(θ) = gx sin θ − gy cos θ
(= g cos θ for g = (0, −g)) of each absolute angle θ:

    G3 = m3 Lc3 γ(θ123)
    G2 = (m2 Lc2 + m3 L2) γ(θ12) + G3
    G1 = (m1 Lc1 + (m2 + m3) L1) γ(θ1) + G2
"""
from __future__ import annotations

import numpy as np

from crossdyn.models.spec import ArmParams


def _lever(p: ArmParams, theta: np.ndarray) -> np.ndarray:
    """γ(θ) = gx sin θ − gy cos θ, the gravity torque per unit (mass × distance)."""
    return p.gravity[..., 0] * np.sin(theta) - p.gravity[..., 1] * np.cos(theta)


def _sym(entries: dict, n: int, shape) -> np.ndarray:
    M = np.empty(tuple(shape) + (n, n))
    for (i, j), v in entries.items():
        M[..., i, j] = v
        M[..., j, i] = v
    return M


# ----------------------------------------------------------------------------- 2R

def coefficients_2r(p: ArmParams):
    """(a1, a2, a4) of the 2R model (the 3R names with link 3 removed)."""
    m1, m2 = p.m[..., 0], p.m[..., 1]
    L1 = p.L[..., 0]
    Lc1, Lc2 = p.Lc[..., 0], p.Lc[..., 1]
    J1, J2 = p.J[..., 0], p.J[..., 1]
    a1 = J1 + m1 * Lc1**2 + m2 * L1**2
    a2 = J2 + m2 * Lc2**2
    a4 = m2 * Lc2 * L1
    return a1, a2, a4


def mass_matrix_2r(p: ArmParams, q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, dtype=float)
    a1, a2, a4 = coefficients_2r(p)
    c2 = np.cos(q[..., 1])
    shape = np.broadcast_shapes(q.shape[:-1], np.shape(a1))
    return _sym({(0, 0): a1 + a2 + 2 * a4 * c2, (0, 1): a2 + a4 * c2, (1, 1): a2 + 0 * c2}, 2, shape)


def coriolis_matrix_2r(p: ArmParams, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """C = [[h q̇2, h (q̇1 + q̇2)], [−h q̇1, 0]] with h = −a4 sin q2."""
    q, qd = np.asarray(q, float), np.asarray(qd, float)
    _, _, a4 = coefficients_2r(p)
    h = -a4 * np.sin(q[..., 1])
    qd1, qd2 = qd[..., 0], qd[..., 1]
    shape = np.broadcast_shapes(h.shape, qd1.shape)
    C = np.zeros(shape + (2, 2))
    C[..., 0, 0] = h * qd2
    C[..., 0, 1] = h * (qd1 + qd2)
    C[..., 1, 0] = -h * qd1
    return C


def gravity_2r(p: ArmParams, q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, float)
    m1, m2 = p.m[..., 0], p.m[..., 1]
    g2 = m2 * p.Lc[..., 1] * _lever(p, q[..., 0] + q[..., 1])
    g1 = (m1 * p.Lc[..., 0] + m2 * p.L[..., 0]) * _lever(p, q[..., 0]) + g2
    return np.stack(np.broadcast_arrays(g1, g2), axis=-1)


# ----------------------------------------------------------------------------- 3R

def coefficients_3r(p: ArmParams):
    """(a1, …, a6) of the 3R model (see the module docstring)."""
    m1, m2, m3 = (p.m[..., i] for i in range(3))
    L1, L2 = p.L[..., 0], p.L[..., 1]
    Lc1, Lc2, Lc3 = (p.Lc[..., i] for i in range(3))
    J1, J2, J3 = (p.J[..., i] for i in range(3))
    a1 = J1 + m1 * Lc1**2 + (m2 + m3) * L1**2
    a2 = J2 + m2 * Lc2**2 + m3 * L2**2
    a3 = J3 + m3 * Lc3**2
    a4 = (m2 * Lc2 + m3 * L2) * L1
    a5 = m3 * Lc3 * L2
    a6 = m3 * Lc3 * L1
    return a1, a2, a3, a4, a5, a6


def mass_matrix_3r(p: ArmParams, q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, dtype=float)
    a1, a2, a3, a4, a5, a6 = coefficients_3r(p)
    c2, c3, c23 = np.cos(q[..., 1]), np.cos(q[..., 2]), np.cos(q[..., 1] + q[..., 2])
    shape = np.broadcast_shapes(q.shape[:-1], np.shape(a1))
    return _sym({
        (0, 0): a1 + a2 + a3 + 2 * a4 * c2 + 2 * a5 * c3 + 2 * a6 * c23,
        (0, 1): a2 + a3 + a4 * c2 + 2 * a5 * c3 + a6 * c23,
        (0, 2): a3 + a5 * c3 + a6 * c23,
        (1, 1): a2 + a3 + 2 * a5 * c3,
        (1, 2): a3 + a5 * c3,
        (2, 2): a3 + 0 * c3,
    }, 3, shape)


def mass_matrix_partials_3r(p: ArmParams, q: np.ndarray) -> np.ndarray:
    """∂M/∂q_k for k = 1, 2, 3: shape (..., 3, 3, 3), index [..., k, i, j]."""
    q = np.asarray(q, dtype=float)
    _, _, _, a4, a5, a6 = coefficients_3r(p)
    s2, s3, s23 = np.sin(q[..., 1]), np.sin(q[..., 2]), np.sin(q[..., 1] + q[..., 2])
    shape = np.broadcast_shapes(q.shape[:-1], np.shape(a4))
    z = np.zeros(shape)
    d2 = _sym({(0, 0): -2 * a4 * s2 - 2 * a6 * s23, (0, 1): -a4 * s2 - a6 * s23, (0, 2): -a6 * s23,
               (1, 1): z, (1, 2): z, (2, 2): z}, 3, shape)
    d3 = _sym({(0, 0): -2 * a5 * s3 - 2 * a6 * s23, (0, 1): -2 * a5 * s3 - a6 * s23, (0, 2): -a5 * s3 - a6 * s23,
               (1, 1): -2 * a5 * s3, (1, 2): -a5 * s3, (2, 2): z}, 3, shape)
    return np.stack([np.zeros_like(d2), d2, d3], axis=-3)


def christoffel_matrix(dM: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """C_ij = Σ_k ½ (∂_k M_ij + ∂_j M_ik − ∂_i M_jk) q̇_k from ∂M[..., k, i, j]."""
    dk_ij = dM                                   # [k, i, j] = ∂_k M_ij
    dj_ik = np.swapaxes(dM, -3, -1)              # [k, i, j] = ∂_j M_ik   (swap k↔j of ∂_a M_ib)
    di_jk = np.moveaxis(dM, -2, -3)              # [k, i, j] = ∂_i M_kj = ∂_i M_jk
    gamma = 0.5 * (dk_ij + dj_ik - di_jk)
    return np.einsum("...kij,...k->...ij", gamma, qd)


def coriolis_matrix_3r(p: ArmParams, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
    return christoffel_matrix(mass_matrix_partials_3r(p, q), np.asarray(qd, float))


def gravity_3r(p: ArmParams, q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, float)
    m1, m2, m3 = (p.m[..., i] for i in range(3))
    th1 = q[..., 0]
    th12 = th1 + q[..., 1]
    th123 = th12 + q[..., 2]
    g3 = m3 * p.Lc[..., 2] * _lever(p, th123)
    g2 = (m2 * p.Lc[..., 1] + m3 * p.L[..., 1]) * _lever(p, th12) + g3
    g1 = (m1 * p.Lc[..., 0] + (m2 + m3) * p.L[..., 0]) * _lever(p, th1) + g2
    return np.stack(np.broadcast_arrays(g1, g2, g3), axis=-1)


CLOSED_FORM = {
    2: (mass_matrix_2r, coriolis_matrix_2r, gravity_2r),
    3: (mass_matrix_3r, coriolis_matrix_3r, gravity_3r),
}
"""n → (mass_matrix, coriolis_matrix, gravity) for the hand-written models."""
