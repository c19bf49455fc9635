"""RNEA, CRBA and ABA on one state or a batch, compiled to machine code with numba (optional extra ``[numba]``).

The same algorithms and equations as :mod:`crossdyn.spatial.rnea` (Featherstone 2008, Table 5.1),
:mod:`crossdyn.spatial.crba` (ch. 6) and :mod:`crossdyn.spatial.aba` (Table 7.1), written as loops over 6-vectors
and 6×6 matrices of float64 on the model's constants flattened once into one array (cached per
model by :func:`crossdyn.spatial.compiled.compile_model`, :func:`~crossdyn.spatial.compiled.flatten`).  Their floating-point operations come in another order
than the NumPy path's, so the two agree to rounding (``tests/test_spatial_kernels.py``: ≤ 1e-13 relative), not
bit for bit.

Per body i the row ``P[i]`` of the flat array holds (offsets are the constants below):
parent λ(i) (−1: the base), 1.0 for a revolute/continuous joint (0.0 prismatic), the origin rotation R_o, the
Rodrigues factors K = a× and K K, p_o + R_o anchor, the anchor, p_o, R_o a, the motion subspace S = [S_ω; S_v], the
spatial inertia about the body origin [[Ī, h×], [−h×, m 1]] (eq. 2.63, row-major) and the armature I_a.  Body i's
transform (:mod:`crossdyn.spatial.kinematics`) is R = R_o (1 + sin q K + (1 − cos q) K K),
p = (p_o + R_o anchor) − R anchor (revolute) or R = R_o, p = p_o + q R_o a (prismatic), and the Plücker transform
ⁱX_λ = [[Rᵀ, 0], [−Rᵀ p×, Rᵀ]].

These functions are plain Python when numba is missing (:data:`AVAILABLE` False; ``CROSSDYN_NUMBA=0`` forces it);
:mod:`crossdyn.spatial.fast` then calls the NumPy path instead, which also serves every non-float64 input (complex
steps, :mod:`crossdyn.spatial.kinematics`).
"""
from __future__ import annotations

import os

import numpy as np

from crossdyn.spatial.compiled import ANCHOR, ARMATURE, FIXED_P, INERTIA, KK, PARENT, PO, RA, RO, ROTATES, K, S

try:  # the optional extra: crossdyn[numba]
    if os.environ.get("CROSSDYN_NUMBA", "1") == "0":
        raise ImportError("disabled by CROSSDYN_NUMBA=0")
    import numba
except ImportError:
    numba = None  # type: ignore[assignment]  # the fallback: the NumPy path

AVAILABLE = numba is not None

def _plucker(P, i, q, X):
    """ⁱX_λ(q) of body i into X (6, 6): [[Rᵀ, 0], [−Rᵀ p×, Rᵀ]] (module docstring for R and p)."""
    X[:, :] = 0.0
    if P[i, ROTATES] != 0.0:
        s, c1 = np.sin(q), 1.0 - np.cos(q)
        for a in range(3):
            for b in range(3):
                acc = 0.0
                for k in range(3):
                    rot = s * P[i, K + 3 * k + b] + c1 * P[i, KK + 3 * k + b]
                    if k == b:
                        rot += 1.0
                    acc += P[i, RO + 3 * a + k] * rot
                X[b, a] = acc  # R[a, b]
        p0, p1, p2 = P[i, FIXED_P], P[i, FIXED_P + 1], P[i, FIXED_P + 2]
        for k in range(3):
            anchor = P[i, ANCHOR + k]
            p0 -= X[k, 0] * anchor
            p1 -= X[k, 1] * anchor
            p2 -= X[k, 2] * anchor
    else:
        for a in range(3):
            for b in range(3):
                X[b, a] = P[i, RO + 3 * a + b]
        p0, p1, p2 = P[i, PO] + q * P[i, RA], P[i, PO + 1] + q * P[i, RA + 1], P[i, PO + 2] + q * P[i, RA + 2]
    for a in range(3):
        r0, r1, r2 = X[a, 0], X[a, 1], X[a, 2]  # row a of Rᵀ = column a of R
        X[a + 3, 3], X[a + 3, 4], X[a + 3, 5] = r0, r1, r2
        X[a + 3, 0] = -(r1 * p2 - r2 * p1)  # −(Rᵀ p×)[a, :] = −(column a of R) × … written out
        X[a + 3, 1] = -(r2 * p0 - r0 * p2)
        X[a + 3, 2] = -(r0 * p1 - r1 * p0)


def _motion_cross(v, m, out):
    """out += v × m = [ω × ω'; ω × v' + v × ω'] (Featherstone eq. 2.31)."""
    out[0] += v[1] * m[2] - v[2] * m[1]
    out[1] += v[2] * m[0] - v[0] * m[2]
    out[2] += v[0] * m[1] - v[1] * m[0]
    out[3] += v[1] * m[5] - v[2] * m[4] + v[4] * m[2] - v[5] * m[1]
    out[4] += v[2] * m[3] - v[0] * m[5] + v[5] * m[0] - v[3] * m[2]
    out[5] += v[0] * m[4] - v[1] * m[3] + v[3] * m[1] - v[4] * m[0]


def _force_cross(v, f, out):
    """out += v ×* f = [ω × n + v × f; ω × f] (Featherstone eq. 2.32)."""
    out[0] += v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4]
    out[1] += v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5]
    out[2] += v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3]
    out[3] += v[1] * f[5] - v[2] * f[4]
    out[4] += v[2] * f[3] - v[0] * f[5]
    out[5] += v[0] * f[4] - v[1] * f[3]


def _inertia(P, i, Ii):
    """Body i's 6×6 spatial inertia into Ii."""
    for a in range(6):
        for b in range(6):
            Ii[a, b] = P[i, INERTIA + 6 * a + b]


def _to_parent(X, I, out, T):
    """out += Xᵀ I X: a 6×6 inertia moved from the child's coordinates to the parent's (λX*_i I ⁱX_λ); T is
    scratch (6, 6)."""
    T[:, :] = 0.0
    for a in range(6):
        for k in range(6):
            Iak = I[a, k]
            if Iak != 0.0:
                for b in range(6):
                    T[a, b] += Iak * X[k, b]
    for k in range(6):
        for a in range(6):
            Xka = X[k, a]
            if Xka != 0.0:
                for b in range(6):
                    out[a, b] += Xka * T[k, b]


def _rigid_to_parent(X, I, out):
    """out += Xᵀ I X for a rigid body's inertia I = [[Ī, h×], [−h×, m 1]] (a composite inertia): in its ten
    parameters, with R = X[:3, :3]ᵀ and p from X[3:, :3] = −Rᵀ p×, m' = m, h' = R h + m p and
    Ī' = R Ī Rᵀ − (Rh) pᵀ − p (Rh)ᵀ + 2 (Rh·p) 1 − m (p pᵀ − |p|² 1)  (:mod:`crossdyn.spatial.crba`;
    a× b× = b aᵀ − (a·b) 1)."""
    m, h0, h1, h2 = I[3, 3], I[2, 4], I[0, 5], I[1, 3]
    p0 = -(X[0, 2] * X[3, 1] + X[1, 2] * X[4, 1] + X[2, 2] * X[5, 1])  # p× = −R N: p0 = (p×)[2, 1]
    p1 = -(X[0, 0] * X[3, 2] + X[1, 0] * X[4, 2] + X[2, 0] * X[5, 2])  # p1 = (p×)[0, 2]
    p2 = -(X[0, 1] * X[3, 0] + X[1, 1] * X[4, 0] + X[2, 1] * X[5, 0])  # p2 = (p×)[1, 0]
    r0 = X[0, 0] * h0 + X[1, 0] * h1 + X[2, 0] * h2  # R h, R[a, k] = X[k, a]
    r1 = X[0, 1] * h0 + X[1, 1] * h1 + X[2, 1] * h2
    r2 = X[0, 2] * h0 + X[1, 2] * h1 + X[2, 2] * h2
    diag = 2.0 * (r0 * p0 + r1 * p1 + r2 * p2) + m * (p0 * p0 + p1 * p1 + p2 * p2)
    p, r = (p0, p1, p2), (r0, r1, r2)
    for a in range(3):
        for b in range(a, 3):
            acc = 0.0
            for k in range(3):
                t = I[k, 0] * X[0, b] + I[k, 1] * X[1, b] + I[k, 2] * X[2, b]  # (Ī Rᵀ)[k, b]
                acc += X[k, a] * t
            acc -= p[a] * r[b] + r[a] * p[b] + m * p[a] * p[b]
            if a == b:
                acc += diag
            out[a, b] += acc
            if a != b:
                out[b, a] += acc
    g0, g1, g2 = r0 + m * p0, r1 + m * p1, r2 + m * p2  # h': h'× above the diagonal blocks, −h'× below
    out[0, 4] -= g2
    out[0, 5] += g1
    out[1, 3] += g2
    out[1, 5] -= g0
    out[2, 3] -= g1
    out[2, 4] += g0
    out[3, 1] += g2
    out[3, 2] -= g1
    out[4, 0] -= g2
    out[4, 2] += g0
    out[5, 0] += g1
    out[5, 1] -= g0
    for a in range(3):
        out[3 + a, 3 + a] += m


def _velocities(P, g, q, qd, qdd, X, vac):
    """Forward pass into X and vac = (v, a, c), (3, n, 6): X_i, v_i = X_i v_λ + S_i q̇_i, c_i = v_i × S_i q̇_i and
    a_i = X_i a_λ + S_i q̈_i + c_i (a_0 = [0; −g])."""
    n = P.shape[0]
    v, a, c = vac[0], vac[1], vac[2]
    root = np.zeros(6)
    for k in range(3):
        root[3 + k] = -g[k]
    vJ = np.empty(6)
    for i in range(n):
        _plucker(P, i, q[i], X[i])
        lam = int(P[i, PARENT])
        for r in range(6):
            vJ[r] = P[i, S + r] * qd[i]
            vr, ar = vJ[r], P[i, S + r] * qdd[i]
            for k in range(6):
                if lam >= 0:
                    vr += X[i, r, k] * v[lam, k]
                    ar += X[i, r, k] * a[lam, k]
                else:
                    ar += X[i, r, k] * root[k]
            v[i, r], a[i, r] = vr, ar
            c[i, r] = 0.0
        _motion_cross(v[i], vJ, c[i])
        for r in range(6):
            a[i, r] += c[i, r]


def rnea_one(P, g, q, qd, qdd, armature, tau):
    """τ = M q̈ + C q̇ + G (+ I_a q̈) into tau (n,): Table 5.1, f_i = I_i a_i + v_i ×* I_i v_i,
    τ_i = S_iᵀ f_i, f_λ += X_iᵀ f_i."""
    n = P.shape[0]
    X = np.empty((n, 6, 6))
    vac = np.empty((3, n, 6))
    v, a = vac[0], vac[1]
    f = np.zeros((n, 6))
    _velocities(P, g, q, qd, qdd, X, vac)
    Iv = np.empty(6)
    for i in range(n):
        for r in range(6):
            fr, ivr = 0.0, 0.0
            for k in range(6):
                fr += P[i, INERTIA + 6 * r + k] * a[i, k]
                ivr += P[i, INERTIA + 6 * r + k] * v[i, k]
            f[i, r] += fr
            Iv[r] = ivr
        _force_cross(v[i], Iv, f[i])
    for i in range(n - 1, -1, -1):
        t = 0.0
        for r in range(6):
            t += P[i, S + r] * f[i, r]
        tau[i] = t + P[i, ARMATURE] * qdd[i] if armature else t
        lam = int(P[i, PARENT])
        if lam >= 0:
            for r in range(6):
                acc = 0.0
                for k in range(6):
                    acc += X[i, k, r] * f[i, k]
                f[lam, r] += acc


def crba_one(P, q, armature, H):
    """M(q) (+ diag(I_a)) into H (n, n), zero on entry (bodies on different branches are left 0): composite
    inertias I^c_λ += X_iᵀ I^c_i X_i, F = I^c_i S_i, H_ii = S_iᵀ F, then F ← X_jᵀ F up the chain,
    H_ij = H_ji = S_jᵀ F (ch. 6)."""
    n = P.shape[0]
    X = np.empty((n, 6, 6))
    Ic = np.empty((n, 6, 6))
    for i in range(n):
        _plucker(P, i, q[i], X[i])
        _inertia(P, i, Ic[i])
    for i in range(n - 1, -1, -1):
        lam = int(P[i, PARENT])
        if lam >= 0:
            _rigid_to_parent(X[i], Ic[i], Ic[lam])
    F = np.empty(6)
    F2 = np.empty(6)
    for i in range(n):
        for r in range(6):
            acc = 0.0
            for k in range(6):
                acc += Ic[i, r, k] * P[i, S + k]
            F[r] = acc
        d = 0.0
        for r in range(6):
            d += P[i, S + r] * F[r]
        H[i, i] = d + P[i, ARMATURE] if armature else d
        j = i
        while int(P[j, PARENT]) >= 0:
            for r in range(6):
                acc = 0.0
                for k in range(6):
                    acc += X[j, k, r] * F[k]
                F2[r] = acc
            F[:] = F2
            j = int(P[j, PARENT])
            h = 0.0
            for r in range(6):
                h += P[j, S + r] * F[r]
            H[i, j] = h
            H[j, i] = h


def _aba_backward(P, tau, armature, X, c, IA, pA, Udu):
    """Pass 2 of Table 7.1 into Udu = [U_i, D_i, u_i] (n, 8): U_i = I^A_i S_i, D_i = S_iᵀ U_i + I_a,
    u_i = τ_i − S_iᵀ p^A_i, and the articulated inertia and bias force I^a, p^a handed to the parent."""
    n = P.shape[0]
    U, D, u = Udu[:, :6], Udu[:, 6], Udu[:, 7]
    Ia = np.empty((6, 6))
    T = np.empty((6, 6))
    pa = np.empty(6)
    for i in range(n - 1, -1, -1):
        d, sp = 0.0, 0.0
        for r in range(6):
            acc = 0.0
            for k in range(6):
                acc += IA[i, r, k] * P[i, S + k]
            U[i, r] = acc
        for r in range(6):
            d += P[i, S + r] * U[i, r]
            sp += P[i, S + r] * pA[i, r]
        D[i] = d + P[i, ARMATURE] if armature else d
        u[i] = tau[i] - sp
        lam = int(P[i, PARENT])
        if lam < 0:
            continue
        for r in range(6):
            for k in range(6):
                Ia[r, k] = IA[i, r, k] - U[i, r] * (U[i, k] / D[i])
        for r in range(6):
            acc = pA[i, r] + U[i, r] * (u[i] / D[i])
            for k in range(6):
                acc += Ia[r, k] * c[i, k]
            pa[r] = acc
        _to_parent(X[i], Ia, IA[lam], T)
        for r in range(6):
            acc = 0.0
            for k in range(6):
                acc += X[i, k, r] * pa[k]
            pA[lam, r] += acc


def aba_one(P, g, q, qd, tau, armature, qdd):
    """q̈ = (M + diag(I_a))⁻¹ (τ − C q̇ − G) into qdd (n,): Featherstone's Table 7.1 (:mod:`crossdyn.spatial.aba`)."""
    n = P.shape[0]
    X = np.empty((n, 6, 6))
    vac = np.empty((3, n, 6))
    v, c = vac[0], vac[2]
    IA = np.empty((n, 6, 6))
    pA = np.zeros((n, 6))
    _velocities(P, g, q, qd, np.zeros(n), X, vac)
    Iv = np.empty(6)
    for i in range(n):
        _inertia(P, i, IA[i])
        for r in range(6):
            acc = 0.0
            for k in range(6):
                acc += IA[i, r, k] * v[i, k]
            Iv[r] = acc
        _force_cross(v[i], Iv, pA[i])
    Udu = np.empty((n, 8))
    _aba_backward(P, tau, armature, X, c, IA, pA, Udu)
    _aba_forward(P, g, X, c, Udu, qdd)


def _aba_forward(P, g, X, c, Udu, qdd):
    """Pass 3: a'_i = X_i a_λ + c_i (a_0 = [0; −g]), q̈_i = (u_i − U_iᵀ a'_i) / D_i, a_i = a'_i + S_i q̈_i."""
    n = P.shape[0]
    U, D, u = Udu[:, :6], Udu[:, 6], Udu[:, 7]
    acc = np.empty((n, 6))
    root = np.zeros(6)
    for k in range(3):
        root[3 + k] = -g[k]
    for i in range(n):
        lam = int(P[i, PARENT])
        for r in range(6):
            s = c[i, r]
            for k in range(6):
                s += X[i, r, k] * (root[k] if lam < 0 else acc[lam, k])
            acc[i, r] = s
        ua = 0.0
        for r in range(6):
            ua += U[i, r] * acc[i, r]
        qdd[i] = (u[i] - ua) / D[i]
        for r in range(6):
            acc[i, r] += P[i, S + r] * qdd[i]


def rnea_batch(P, g, Q, QD, QDD, armature, out):
    """:func:`rnea_one` on every row of Q, QD, QDD (N, n) into out (N, n)."""
    for k in range(Q.shape[0]):
        rnea_one(P, g, Q[k], QD[k], QDD[k], armature, out[k])


def crba_batch(P, Q, armature, out):
    """:func:`crba_one` on every row of Q (N, n) into out (N, n, n)."""
    for k in range(Q.shape[0]):
        crba_one(P, Q[k], armature, out[k])


def aba_batch(P, g, Q, QD, TAU, armature, out):
    """:func:`aba_one` on every row of Q, QD, TAU (N, n) into out (N, n)."""
    for k in range(Q.shape[0]):
        aba_one(P, g, Q[k], QD[k], TAU[k], armature, out[k])


if numba is not None:  # compiled once per machine (numba's on-disk cache); the plain functions above otherwise
    _jit = numba.njit(cache=True)
    _plucker = _jit(_plucker)
    _motion_cross = _jit(_motion_cross)
    _force_cross = _jit(_force_cross)
    _inertia = _jit(_inertia)
    _to_parent = _jit(_to_parent)
    _rigid_to_parent = _jit(_rigid_to_parent)
    _velocities = _jit(_velocities)
    rnea_one = _jit(rnea_one)
    crba_one = _jit(crba_one)
    _aba_backward = _jit(_aba_backward)
    _aba_forward = _jit(_aba_forward)
    aba_one = _jit(aba_one)
    rnea_batch = _jit(rnea_batch)
    crba_batch = _jit(crba_batch)
    aba_batch = _jit(aba_batch)
