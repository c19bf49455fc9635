"""Planar nR for any n, by the Jacobian method (a textbook route independent of crossdyn):

    M = sum_i m_i Jv_i^T Jv_i + J_i Jw_i^T Jw_i,
    C_ij = sum_k 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) qd_k   (dM/dq from dJv/dq by hand),
    G_i = dU/dq_i = -sum_l m_l (gx dx_cl/dq_i + gy dy_cl/dq_i)  (any in-plane gravity p.gx, p.gy).
"""
import numpy as np


def _angles(q):
    return np.cumsum(q)


def _jacobians(q, p):
    """Jv[i] (2 x n) of link i's centre of mass, and dJv[i][k] = dJv[i]/dq_k."""
    n = len(q)
    th = _angles(q)
    e = np.stack([np.cos(th), np.sin(th)])          # (2, n)
    ep = np.stack([-np.sin(th), np.cos(th)])        # d e / d theta
    Jv, dJv = [], []
    for i in range(n):
        lever = [p.L[l] for l in range(i)] + [p.Lc[i]]
        J = np.zeros((2, n))
        dJ = np.zeros((n, 2, n))
        for j in range(i + 1):
            for l in range(j, i + 1):
                J[:, j] += lever[l] * ep[:, l]
                for k in range(l + 1):              # theta_l depends on q_k for k <= l
                    dJ[k, :, j] += -lever[l] * e[:, l]
        Jv.append(J)
        dJv.append(dJ)
    return Jv, dJv


def M(q, p):
    n = len(q)
    Jv, _ = _jacobians(q, p)
    out = np.zeros((n, n))
    for i in range(n):
        Jw = np.array([1.0] * (i + 1) + [0.0] * (n - i - 1))
        out += p.m[i] * Jv[i].T @ Jv[i] + p.J[i] * np.outer(Jw, Jw)
    return out


def C(q, qd, p):
    n = len(q)
    Jv, dJv = _jacobians(q, p)
    dM = np.zeros((n, n, n))                        # dM[k] = dM/dq_k
    for i in range(n):
        for k in range(n):
            dM[k] += p.m[i] * (dJv[i][k].T @ Jv[i] + Jv[i].T @ dJv[i][k])
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = sum(0.5 * (dM[k][i, j] + dM[j][i, k] - dM[i][j, k]) * qd[k] for k in range(n))
    return out


def G(q, p):
    n = len(q)
    Jv, _ = _jacobians(q, p)
    return -sum(p.m[l] * (p.gx * Jv[l][0] + p.gy * Jv[l][1]) for l in range(n))
