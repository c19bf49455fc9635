"""Planar 2R -- M12 lost its Lc2 in the cos(q2) term.

Written by hand from T = 1/2 sum(m v_c^2 + J w^2), U = sum(m g y_c); gravity along -y.
"""
from math import cos, sin


def M(q, p):
    c2 = cos(q[1])
    m11 = p.J1 + p.J2 + p.m1 * p.Lc1**2 + p.m2 * (p.L1**2 + p.Lc2**2 + 2 * p.L1 * p.Lc2 * c2)
    m12 = p.J2 + p.m2 * (p.Lc2**2 + p.L1 * c2)
    m22 = p.J2 + p.m2 * p.Lc2**2
    return [[m11, m12], [m12, m22]]


def C(q, qd, p):
    h = -p.m2 * p.L1 * p.Lc2 * sin(q[1])
    return [[h * qd[1], h * (qd[0] + qd[1])],
            [-h * qd[0], 0.0]]


def G(q, p):
    c1, c12 = cos(q[0]), cos(q[0] + q[1])
    g2 = p.m2 * p.g * p.Lc2 * c12
    g1 = (p.m1 * p.Lc1 + p.m2 * p.L1) * p.g * c1 + g2
    return [g1, g2]
