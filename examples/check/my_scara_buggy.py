"""M, C, G of the SCARA (crossdyn preset scara, RRP), derived by hand -- with a mistake: the prismatic joint's
gravity term is missing (G3 should be -m3*g: joint 3 slides down, the direction of gravity).

Spong's table: a1 = p.a1, alpha1 = pi (z1 and z2 point down, so joint 2 turns the other way round), a2 = p.a2;
lc2 = a2 + cx2 is the distance from joint 2 to link 2's centre of mass (cx_i < 0: the CoM lies before the
distal DH frame), likewise lc1 = a1 + cx1.  q[2] = d3, the quill's extension.
Check it:  crossdyn check scara examples/check/my_scara_buggy.py
"""
import numpy as np


def M(q, p):
    c2 = np.cos(q[1])
    lc1, lc2 = p.a1 + p.cx1, p.a2 + p.cx2
    m11 = p.Izz1 + p.Izz2 + p.Izz3 + p.m1 * lc1**2 + p.m2 * (p.a1**2 + lc2**2 + 2 * p.a1 * lc2 * c2) \
        + p.m3 * (p.a1**2 + p.a2**2 + 2 * p.a1 * p.a2 * c2)
    m12 = -(p.Izz2 + p.Izz3 + p.m2 * (lc2**2 + p.a1 * lc2 * c2) + p.m3 * (p.a2**2 + p.a1 * p.a2 * c2))
    m22 = p.Izz2 + p.Izz3 + p.m2 * lc2**2 + p.m3 * p.a2**2
    return np.array([[m11, m12, 0.0], [m12, m22, 0.0], [0.0, 0.0, p.m3]])


def C(q, qd, p):
    h = -p.a1 * np.sin(q[1]) * (p.m2 * (p.a2 + p.cx2) + p.m3 * p.a2)
    return np.array([[h * qd[1], h * (qd[0] - qd[1]), 0.0],
                     [-h * qd[0], 0.0, 0.0],
                     [0.0, 0.0, 0.0]])


def G(q, p):
    return np.array([0.0, 0.0, 0.0])      # forgot the quill's weight
