"""Planar 3R with geared motors, written out by hand: centre of mass Lc and inertia J of each link, and the
reflected rotor inertia (armature) p.Ia1, p.Ia2, p.Ia3 of each joint's motor; gravity along -y.

The rotor of joint i spins with q̇i (times its gear ratio): its kinetic energy 1/2 Ia_i q̇i^2 adds Ia_i to M_ii
and nothing else (constant, so C and G are those of the arm without motors).

M from T = 1/2 sum(m v_c^2 + J w^2); C from the Christoffel symbols of M (dM/dq by hand);
G = dU/dq with U = sum(m g y_c).
"""
from math import cos, sin


def M(q, p):
    c2, c3, c23 = cos(q[1]), cos(q[2]), cos(q[1] + q[2])
    m1, m2, m3 = p.m1, p.m2, p.m3
    L1, L2 = p.L1, p.L2
    Lc1, Lc2, Lc3 = p.Lc1, p.Lc2, p.Lc3
    m11 = (p.J1 + p.J2 + p.J3 + m1 * Lc1**2 + m2 * (L1**2 + Lc2**2 + 2 * L1 * Lc2 * c2)
           + m3 * (L1**2 + L2**2 + Lc3**2 + 2 * L1 * L2 * c2 + 2 * L1 * Lc3 * c23 + 2 * L2 * Lc3 * c3))
    m12 = (p.J2 + p.J3 + m2 * (Lc2**2 + L1 * Lc2 * c2)
           + m3 * (L2**2 + Lc3**2 + L1 * L2 * c2 + L1 * Lc3 * c23 + 2 * L2 * Lc3 * c3))
    m13 = p.J3 + m3 * (Lc3**2 + L1 * Lc3 * c23 + L2 * Lc3 * c3)
    m22 = p.J2 + p.J3 + m2 * Lc2**2 + m3 * (L2**2 + Lc3**2 + 2 * L2 * Lc3 * c3)
    m23 = p.J3 + m3 * (Lc3**2 + L2 * Lc3 * c3)
    m33 = p.J3 + m3 * Lc3**2
    m11 += p.Ia1
    m22 += p.Ia2
    m33 += p.Ia3
    return [[m11, m12, m13], [m12, m22, m23], [m13, m23, m33]]


def _dM(q, p):
    """dM/dq1, dM/dq2, dM/dq3."""
    s2, s3, s23 = sin(q[1]), sin(q[2]), sin(q[1] + q[2])
    a = p.m2 * p.L1 * p.Lc2 + p.m3 * p.L1 * p.L2      # coefficient of cos(q2) in M12
    b = p.m3 * p.L2 * p.Lc3                           # coefficient of cos(q3) in M23
    d = p.m3 * p.L1 * p.Lc3                           # coefficient of cos(q2+q3) in M13
    z = [[0.0] * 3 for _ in range(3)]
    d2 = [[-2 * a * s2 - 2 * d * s23, -a * s2 - d * s23, -d * s23],
          [-a * s2 - d * s23, 0.0, 0.0],
          [-d * s23, 0.0, 0.0]]
    d3 = [[-2 * b * s3 - 2 * d * s23, -2 * b * s3 - d * s23, -b * s3 - d * s23],
          [-2 * b * s3 - d * s23, -2 * b * s3, -b * s3],
          [-b * s3 - d * s23, -b * s3, 0.0]]
    return [z, d2, d3]


def C(q, qd, p):
    dM = _dM(q, p)
    n = 3
    C = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            C[i][j] = sum(0.5 * (dM[k][i][j] + dM[j][i][k] - dM[i][j][k]) * qd[k] for k in range(n))
    return C


def G(q, p):
    c1, c12, c123 = cos(q[0]), cos(q[0] + q[1]), cos(q[0] + q[1] + q[2])
    g3 = p.m3 * p.Lc3 * p.g * c123
    g2 = (p.m2 * p.Lc2 + p.m3 * p.L2) * p.g * c12 + g3
    g1 = (p.m1 * p.Lc1 + (p.m2 + p.m3) * p.L1) * p.g * c1 + g2
    return [g1, g2, g3]
