"""My planar 3R (crossdyn preset planar3r) -- with two mistakes, for the worked example of docs/tutorial/first-check.md.

    crossdyn check planar3r examples/check/my_3r_buggy.py

Mistake 1: in M12 the cos(q3) term lost its factor 2.
Mistake 2: in M11, link 3's share of the L1 term is written m3*L1 instead of m3*L1**2 --
           invisible with planar3r's own parameters (L1 = 1 m), caught by the random ones.
C is returned as the vector C(q, qd) qd; G is on the left-hand side.
"""
from math import cos, sin


def M(q, p):
    m1, m2, m3 = p.m1, p.m2, p.m3
    L1, L2 = p.L1, p.L2
    Lc1, Lc2, Lc3 = p.Lc1, p.Lc2, p.Lc3
    c2, c3, c23 = cos(q[1]), cos(q[2]), cos(q[1] + q[2])
    m11 = (p.J1 + p.J2 + p.J3 + m1 * Lc1**2 + m2 * (L1**2 + Lc2**2 + 2 * L1 * Lc2 * c2)
           + m3 * (L1 + L2**2 + Lc3**2 + 2 * L1 * L2 * c2 + 2 * L1 * Lc3 * c23 + 2 * L2 * Lc3 * c3))   # L1 -> L1**2
    m12 = (p.J2 + p.J3 + m2 * (Lc2**2 + L1 * Lc2 * c2)
           + m3 * (L2**2 + Lc3**2 + L1 * L2 * c2 + L1 * Lc3 * c23 + L2 * Lc3 * c3))   # needs 2 * L2 * Lc3 * c3
    m13 = p.J3 + m3 * (Lc3**2 + L1 * Lc3 * c23 + L2 * Lc3 * c3)
    m22 = p.J2 + p.J3 + m2 * Lc2**2 + m3 * (L2**2 + Lc3**2 + 2 * L2 * Lc3 * c3)
    m23 = p.J3 + m3 * (Lc3**2 + L2 * Lc3 * c3)
    m33 = p.J3 + m3 * Lc3**2
    return [[m11, m12, m13],
            [m12, m22, m23],
            [m13, m23, m33]]


def C(q, qd, p):
    """C(q, qd) qd: centrifugal and Coriolis torques."""
    a = (p.m2 * p.Lc2 + p.m3 * p.L2) * p.L1 * sin(q[1])
    b = p.m3 * p.Lc3 * p.L2 * sin(q[2])
    d = p.m3 * p.Lc3 * p.L1 * sin(q[1] + q[2])
    w1, w2, w3 = qd
    w12, w123 = w1 + w2, w1 + w2 + w3
    return [-a * (w12**2 - w1**2) - b * (w123**2 - w12**2) - d * (w123**2 - w1**2),
            a * w1**2 - b * (w123**2 - w12**2) + d * w1**2,
            b * w12**2 + d * w1**2]


def G(q, p):
    g3 = p.m3 * p.Lc3 * p.g * cos(q[0] + q[1] + q[2])
    g2 = (p.m2 * p.Lc2 + p.m3 * p.L2) * p.g * cos(q[0] + q[1]) + g3
    g1 = (p.m1 * p.Lc1 + (p.m2 + p.m3) * p.L1) * p.g * cos(q[0]) + g2
    return [g1, g2, g3]
