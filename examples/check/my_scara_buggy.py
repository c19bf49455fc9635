"""M, C, G of the SCARA (crossdyn preset scara, RRP), derived by hand -- with a mistake: the prismatic joint's
gravity term is missing (G3 should be -m3*g: joint 3 slides down along z2, the direction of gravity).

lc_i = L_i + cx_i is the distance from joint i to link i's centre of mass (cx_i < 0: the CoM lies before the
distal DH frame).  q[2] = d3, the prismatic joint's extension.
Check it:  crossdyn check scara examples/check/my_scara_buggy.py
"""
import numpy as np


def M(q, p):
    c2 = np.cos(q[1])
    lc1, lc2 = p.L1 + p.cx1, p.L2 + p.cx2
    izz = p.Izz1 + p.Izz2 + p.Izz3
    m11 = izz + p.m1 * lc1**2 + p.m2 * (p.L1**2 + lc2**2 + 2 * p.L1 * lc2 * c2) \
        + p.m3 * (p.L1**2 + p.L2**2 + 2 * p.L1 * p.L2 * c2)
    m12 = p.Izz2 + p.Izz3 + p.m2 * (lc2**2 + p.L1 * lc2 * c2) + p.m3 * (p.L2**2 + p.L1 * p.L2 * c2)
    m22 = p.Izz2 + p.Izz3 + p.m2 * lc2**2 + p.m3 * p.L2**2
    return np.array([[m11, m12, 0.0], [m12, m22, 0.0], [0.0, 0.0, p.m3]])


def C(q, qd, p):
    h = -p.L1 * np.sin(q[1]) * (p.m2 * (p.L2 + p.cx2) + p.m3 * p.L2)
    return np.array([[h * qd[1], h * (qd[0] + qd[1]), 0.0],
                     [-h * qd[0], 0.0, 0.0],
                     [0.0, 0.0, 0.0]])


def G(q, p):
    return np.array([0.0, 0.0, 0.0])      # forgot the slide's weight
