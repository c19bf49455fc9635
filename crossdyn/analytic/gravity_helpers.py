"""Gravity helpers of a planar arm: the hanging pose, the gravity stiffness ∂G/∂q and each joint's gravity scale.

With θ_k = q_1 + … + q_k the absolute angle of link k and w_k = m_k Lc_k + L_k Σ_{j > k} m_j the first moment
of link k and everything outboard of it about joint k, the potential is U = −Σ_k w_k g·u(θ_k),
u(θ) = (cos θ, sin θ), so G_i = ∂U/∂q_i = −Σ_{k ≥ i} w_k g·u'(θ_k).
"""
from __future__ import annotations

import math

import numpy as np

from crossdyn.models.spec import ArmSpec


def _moments(p) -> np.ndarray:
    """w_k = m_k Lc_k + L_k Σ_{j > k} m_j per link (kg m)."""
    outboard = np.concatenate([np.cumsum(p.m[::-1])[::-1][1:], [0.0]])
    return p.m * p.Lc + p.L * outboard


def hanging_configuration(spec: ArmSpec) -> np.ndarray:
    """The stable equilibrium under gravity: link 1 along g, the other joints at 0 (zeros with no gravity)."""
    gx, gy = spec.gravity[0], spec.gravity[1]
    q = np.zeros(spec.n)
    if gx or gy:
        q[0] = math.atan2(gy, gx)
    return q


def joint_gravity_scale(spec: ArmSpec) -> np.ndarray:
    """Per joint, the largest gravity torque it can feel: |g| Σ_{k ≥ i} w_k, w_k = m_k Lc_k + L_k Σ_{j > k} m_j
    (every link perpendicular to g), with |g| ≥ 9.81 m/s² as in :meth:`ArmSpec.torque_scale` (N m, shape (n,))."""
    p = spec.params()
    g = max(math.hypot(float(p.gravity[0]), float(p.gravity[1])), 9.81)
    w = _moments(p)
    return g * np.cumsum(w[::-1])[::-1]


def gravity_stiffness(spec: ArmSpec, q) -> np.ndarray:
    """K(q) = ∂G/∂q = ∂²U/∂q² (n, n), exact: K_ab = Σ_{k ≥ max(a, b)} w_k (g · u(θ_k)), with
    u(θ) = (cos θ, sin θ), θ_k = q_1 + … + q_k and w_k = m_k Lc_k + L_k Σ_{j > k} m_j."""
    p = spec.params()
    q = np.asarray(q, dtype=float).reshape(spec.n)
    th = np.cumsum(q)
    gu = p.gravity[0] * np.cos(th) + p.gravity[1] * np.sin(th)
    w = _moments(p)
    tail = np.cumsum((w * gu)[::-1])[::-1]  # Σ_{k ≥ i}
    idx = np.maximum.outer(np.arange(spec.n), np.arange(spec.n))
    return tail[idx]
