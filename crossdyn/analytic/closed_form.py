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

2R is the same with link 3 removed (a3 = a5 = a6 = 0).  Rotor armature I_a (reflected
rotor inertia, kinetic energy ½ I_ai q̇i²) adds I_ai to M_ii and nothing else (it is
constant, so C and G do not change); it is added only when the arm has some.  C is the Christoffel
matrix  C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) q̇_k, so Ṁ − 2C is
skew-symmetric.  Gravity enters through the lever γ(θ) = gx sin θ − gy cos θ
(= g cos θ for g = (0, −g)) of each absolute angle θ:

    G3 = m3 Lc3 γ(θ123)
    G2 = (m2 Lc2 + m3 L2) γ(θ12) + G3
    G1 = (m1 Lc1 + (m2 + m3) L1) γ(θ1) + G2
"""
from __future__ import annotations

import numpy as np

from crossdyn.models.spec import ArmParams, armature_of


def _lever(p: ArmParams, theta: np.ndarray) -> np.ndarray:
    """γ(θ) = gx sin θ − gy cos θ, the gravity torque per unit (mass × distance)."""
    return p.gravity[..., 0] * np.sin(theta) - p.gravity[..., 1] * np.cos(theta)


def _with_armature(p: ArmParams, diagonal: tuple) -> tuple:
    """The diagonal entries (M11, M22, …) plus the armature I_a1, I_a2, … (unchanged without armature)."""
    Ia = armature_of(p)
    if Ia is None:
        return diagonal
    return tuple(d + Ia[..., i] for i, d in enumerate(diagonal))


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
    d1, d2 = _with_armature(p, (a1 + a2 + 2 * a4 * c2, a2 + 0 * c2))
    return _sym({(0, 0): d1, (0, 1): a2 + a4 * c2, (1, 1): d2}, 2, shape)


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
    d1, d2, d3 = _with_armature(p, (a1 + a2 + a3 + 2 * a4 * c2 + 2 * a5 * c3 + 2 * a6 * c23,
                                    a2 + a3 + 2 * a5 * c3, a3 + 0 * c3))
    return _sym({
        (0, 0): d1,
        (0, 1): a2 + a3 + a4 * c2 + 2 * a5 * c3 + a6 * c23,
        (0, 2): a3 + a5 * c3 + a6 * c23,
        (1, 1): d2,
        (1, 2): a3 + a5 * c3,
        (2, 2): d3,
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


# ----------------------------------------------------------------------------- vector forms
# The same model written entry by entry, so batched evaluation is a few array operations
# per entry instead of (N, n, n) tensor products.  C q̇ uses the identity
#     C(q, q̇) q̇ = Ṁ q̇ − ½ ∇_q (q̇ᵀ M q̇)      (Christoffel symbols summed against q̇ twice)

def mass_entries_2r(p: ArmParams, q: np.ndarray):
    """(M11, M12, M22) of the 2R model (armature included)."""
    a1, a2, a4 = coefficients_2r(p)
    c2 = np.cos(q[..., 1])
    m11, m22 = _with_armature(p, (a1 + a2 + 2 * a4 * c2, a2 + 0 * c2))
    return m11, a2 + a4 * c2, m22


def coriolis_2r(p: ArmParams, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """C q̇ = (h (2 q̇1 q̇2 + q̇2²), −h q̇1²),  h = −a4 sin q2."""
    _, _, a4 = coefficients_2r(p)
    h = -a4 * np.sin(q[..., 1])
    qd1, qd2 = qd[..., 0], qd[..., 1]
    return np.stack([h * (2 * qd1 * qd2 + qd2 * qd2), -h * qd1 * qd1], axis=-1)


def mass_entries_3r(p: ArmParams, q: np.ndarray):
    """(M11, M12, M13, M22, M23, M33) of the 3R model (armature included)."""
    a1, a2, a3, a4, a5, a6 = coefficients_3r(p)
    c2, c3, c23 = np.cos(q[..., 1]), np.cos(q[..., 2]), np.cos(q[..., 1] + q[..., 2])
    a5c3 = a5 * c3
    a6c23 = a6 * c23
    a23 = a2 + a3
    m13 = a3 + a5c3 + a6c23
    m12 = a23 + a4 * c2 + 2 * a5c3 + a6c23
    m11, m22, m33 = _with_armature(p, (a1 + a23 + 2 * (a4 * c2 + a5c3 + a6c23), a23 + 2 * a5c3, a3 + 0 * c3))
    return (m11, m12, m13, m22, a3 + a5c3, m33)


def coriolis_3r(p: ArmParams, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """C q̇ = Ṁ q̇ − ½ ∇(q̇ᵀ M q̇), with ∂M/∂q2, ∂M/∂q3 as in :func:`mass_matrix_partials_3r`."""
    _, _, _, a4, a5, a6 = coefficients_3r(p)
    s2, s3, s23 = np.sin(q[..., 1]), np.sin(q[..., 2]), np.sin(q[..., 1] + q[..., 2])
    v1, v2, v3 = qd[..., 0], qd[..., 1], qd[..., 2]
    # ∂M/∂q2: only row/column 1 depends on q2
    b11, b12, b13 = -2 * a4 * s2 - 2 * a6 * s23, -a4 * s2 - a6 * s23, -a6 * s23
    # ∂M/∂q3
    d11, d12, d13 = -2 * a5 * s3 - 2 * a6 * s23, -2 * a5 * s3 - a6 * s23, -a5 * s3 - a6 * s23
    d22, d23 = -2 * a5 * s3, -a5 * s3
    # Ṁ = ∂M/∂q2 q̇2 + ∂M/∂q3 q̇3
    e11, e12, e13 = b11 * v2 + d11 * v3, b12 * v2 + d12 * v3, b13 * v2 + d13 * v3
    e22, e23 = d22 * v3, d23 * v3
    g2 = 0.5 * b11 * v1 * v1 + b12 * v1 * v2 + b13 * v1 * v3
    g3 = 0.5 * (d11 * v1 * v1 + d22 * v2 * v2) + d12 * v1 * v2 + d13 * v1 * v3 + d23 * v2 * v3
    return np.stack([e11 * v1 + e12 * v2 + e13 * v3,
                     e12 * v1 + e22 * v2 + e23 * v3 - g2,
                     e13 * v1 + e23 * v2 - g3], axis=-1)


def _gravity_3r_fast(p: ArmParams, q: np.ndarray):
    """G for 3R, skipping the sin terms when gx = 0 (the default gravity)."""
    th1 = q[..., 0]
    th12 = th1 + q[..., 1]
    th123 = th12 + q[..., 2]
    m1, m2, m3 = (p.m[..., i] for i in range(3))
    k3 = m3 * p.Lc[..., 2]
    k2 = m2 * p.Lc[..., 1] + m3 * p.L[..., 1]
    k1 = m1 * p.Lc[..., 0] + (m2 + m3) * p.L[..., 0]
    gx, gy = p.gravity[..., 0], p.gravity[..., 1]
    if np.ndim(gx) == 0 and gx == 0.0:
        l1, l2, l3 = -gy * np.cos(th1), -gy * np.cos(th12), -gy * np.cos(th123)
    else:
        l1, l2, l3 = _lever(p, th1), _lever(p, th12), _lever(p, th123)
    g3 = k3 * l3
    g2 = k2 * l2 + g3
    return k1 * l1 + g2, g2, g3


def inverse_dynamics_closed(p: ArmParams, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
    """τ_rigid = M q̈ + C q̇ + G entry by entry (2R and 3R)."""
    n = q.shape[-1]
    if n == 2:
        m11, m12, m22 = mass_entries_2r(p, q)
        a1, a2 = qdd[..., 0], qdd[..., 1]
        Mqdd = np.stack([m11 * a1 + m12 * a2, m12 * a1 + m22 * a2], axis=-1)
        return Mqdd + coriolis_2r(p, q, qd) + gravity_2r(p, q)
    m11, m12, m13, m22, m23, m33 = mass_entries_3r(p, q)
    h = coriolis_3r(p, q, qd)
    g1, g2, g3 = _gravity_3r_fast(p, q)
    a1, a2, a3 = qdd[..., 0], qdd[..., 1], qdd[..., 2]
    h[..., 0] += m11 * a1 + m12 * a2 + m13 * a3 + g1
    h[..., 1] += m12 * a1 + m22 * a2 + m23 * a3 + g2
    h[..., 2] += m13 * a1 + m23 * a2 + m33 * a3 + g3
    return h


def solve_closed(p: ArmParams, q: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """M(q)⁻¹ rhs for 2R/3R by the explicit inverse (adjugate / determinant), batched."""
    n = q.shape[-1]
    if n == 2:
        m11, m12, m22 = mass_entries_2r(p, q)
        r1, r2 = rhs[..., 0], rhs[..., 1]
        det = m11 * m22 - m12 * m12
        return np.stack([(m22 * r1 - m12 * r2) / det, (m11 * r2 - m12 * r1) / det], axis=-1)
    m11, m12, m13, m22, m23, m33 = mass_entries_3r(p, q)
    A11 = m22 * m33 - m23 * m23
    A12 = m13 * m23 - m12 * m33
    A13 = m12 * m23 - m13 * m22
    A22 = m11 * m33 - m13 * m13
    A23 = m12 * m13 - m11 * m23
    A33 = m11 * m22 - m12 * m12
    det = m11 * A11 + m12 * A12 + m13 * A13
    r1, r2, r3 = rhs[..., 0], rhs[..., 1], rhs[..., 2]
    return np.stack([A11 * r1 + A12 * r2 + A13 * r3, A12 * r1 + A22 * r2 + A23 * r3,
                     A13 * r1 + A23 * r2 + A33 * r3], axis=-1) / det[..., None]


CORIOLIS = {2: coriolis_2r, 3: coriolis_3r}


CLOSED_FORM = {
    2: (mass_matrix_2r, coriolis_matrix_2r, gravity_2r),
    3: (mass_matrix_3r, coriolis_matrix_3r, gravity_3r),
}
"""n → (mass_matrix, coriolis_matrix, gravity) for the hand-written models."""
