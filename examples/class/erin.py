"""Planar 2R -- a G that never returns (an endless loop), for the class example."""
from math import cos, sin


def M(q, p):
    c2 = cos(q[1])
    m11 = p.J1 + p.J2 + p.m1 * p.Lc1**2 + p.m2 * (p.L1**2 + p.Lc2**2 + 2 * p.L1 * p.Lc2 * c2)
    m12 = p.J2 + p.m2 * (p.Lc2**2 + p.L1 * p.Lc2 * c2)
    return [[m11, m12], [m12, p.J2 + p.m2 * p.Lc2**2]]


def G(q, p):
    g, k = 0.0, 0
    while k >= 0:            # meant to sum over the links, but k never reaches the end
        g += 0.0
    return [g, g]
