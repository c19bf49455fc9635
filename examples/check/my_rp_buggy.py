"""M, C, G of the RP polar arm (crossdyn preset rp-polar), derived by hand -- with a mistake (M11 lacks m2*d2**2).

Joint 1 turns about the horizontal z0 axis (q1 from the horizontal x0), joint 2 slides along the arm: d2 = q[1] is
the extension, and link 2's centre of mass sits at distance d2 from joint 1.
p: p.m1, p.m2 (kg), p.cz1 (link 1's CoM along z1, m), p.Ixx1 ... p.Izz2 (kg m^2), p.g (m/s^2).
Check it:  crossdyn check rp-polar examples/check/my_rp_buggy.py
"""
import numpy as np


def M(q, p):
    d2 = q[1]
    m11 = p.Iyy1 + p.Iyy2 + p.m1 * p.cz1**2              # m2*d2**2 forgotten
    return np.array([[m11, 0.0], [0.0, p.m2]])


def C(q, qd, p):
    h = p.m2 * q[1]                    # (1/2) dM11/dd2
    return np.array([[h * qd[1], h * qd[0]], [-h * qd[0], 0.0]])


def G(q, p):
    d2 = q[1]
    return np.array([p.g * np.cos(q[0]) * (p.m1 * p.cz1 + p.m2 * d2),
                     p.m2 * p.g * np.sin(q[0])])
