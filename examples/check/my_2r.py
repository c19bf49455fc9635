"""My planar 2R (crossdyn preset planar2r): M(q) qdd + C(q, qd) qd + G(q) = tau.

Check it with:   crossdyn check planar2r examples/check/my_2r.py

p gives the parameters: p.m1, p.m2 (kg), p.L1, p.L2 (m), p.Lc1, p.Lc2 (m, centre of mass
from the joint), p.J1, p.J2 (kg m^2, about the centre of mass) and p.g (m/s^2, along -y).
"""
from math import cos, sin


def M(q, p):
    c2 = cos(q[1])
    m11 = p.J1 + p.J2 + p.m1 * p.Lc1**2 + p.m2 * (p.L1**2 + p.Lc2**2 + 2 * p.L1 * p.Lc2 * c2)
    m12 = p.J2 + p.m2 * (p.Lc2**2 + p.L1 * p.Lc2 * c2)
    m22 = p.J2 + p.m2 * p.Lc2**2
    return [[m11, m12],
            [m12, m22]]


def C(q, qd, p):
    h = -p.m2 * p.L1 * p.Lc2 * sin(q[1])
    return [[h * qd[1], h * (qd[0] + qd[1])],
            [-h * qd[0], 0.0]]


def G(q, p):
    g2 = p.m2 * p.Lc2 * p.g * cos(q[0] + q[1])
    g1 = (p.m1 * p.Lc1 + p.m2 * p.L1) * p.g * cos(q[0]) + g2
    return [g1, g2]
