"""Planar 2R with point masses at the link ends (textbook form: only m and L appear).

Uses the alternative names mass_matrix / coriolis / gravity, and returns C qd as a vector.
"""
import numpy as np


def mass_matrix(q, p):
    m1, m2, l1, l2 = p.m1, p.m2, p.l1, p.l2
    c2 = np.cos(q[1])
    return np.array([
        [(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c2, m2 * l2**2 + m2 * l1 * l2 * c2],
        [m2 * l2**2 + m2 * l1 * l2 * c2, m2 * l2**2],
    ])


def coriolis(q, qd, p):
    s2 = np.sin(q[1])
    k = p.m2 * p.l1 * p.l2 * s2
    return np.array([-k * (2 * qd[0] * qd[1] + qd[1]**2), k * qd[0]**2])


def gravity(q, p):
    c1, c12 = np.cos(q[0]), np.cos(q[0] + q[1])
    return np.array([(p.m1 + p.m2) * p.g * p.l1 * c1 + p.m2 * p.g * p.l2 * c12,
                     p.m2 * p.g * p.l2 * c12])
