"""Forward kinematics of a planar serial arm (batched).

Absolute angle of link i: θi = q1 + … + qi.  Joint i+1 sits at
p_{i+1} = p_i + Li (cos θi, sin θi); link i's centre of mass at
p_ci = p_i + Lci (cos θi, sin θi).  All functions accept q of shape (n,) or (N, n).
"""
from __future__ import annotations

import numpy as np

from crossdyn.models.spec import ArmParams


def absolute_angles(q: np.ndarray) -> np.ndarray:
    """θ = cumsum(q) along the last axis."""
    return np.cumsum(np.asarray(q, dtype=float), axis=-1)


def joint_positions(p: ArmParams, q: np.ndarray) -> np.ndarray:
    """Positions (x, y) of the base, every joint and the end effector: shape (..., n+1, 2)."""
    th = absolute_angles(q)
    seg = np.stack([p.L * np.cos(th), p.L * np.sin(th)], axis=-1)
    pts = np.cumsum(seg, axis=-2)
    zero = np.zeros(pts.shape[:-2] + (1, 2))
    return np.concatenate([zero, pts], axis=-2)


def end_effector(p: ArmParams, q: np.ndarray) -> np.ndarray:
    """End-effector position (x, y): shape (..., 2)."""
    return joint_positions(p, q)[..., -1, :]


def com_positions(p: ArmParams, q: np.ndarray) -> np.ndarray:
    """Centre-of-mass positions of every link: shape (..., n, 2)."""
    th = absolute_angles(q)
    joints = joint_positions(p, q)[..., :-1, :]
    return joints + np.stack([p.Lc * np.cos(th), p.Lc * np.sin(th)], axis=-1)


def end_effector_jacobian(p: ArmParams, q: np.ndarray) -> np.ndarray:
    """∂(x, y)_ee/∂q: shape (..., 2, n).  Column j sums the segments from link j to the tip."""
    th = absolute_angles(q)
    cx, sy = p.L * np.cos(th), p.L * np.sin(th)
    # column j = Σ_{i ≥ j} Li (−sin θi, cos θi): reverse cumulative sums
    rx = np.flip(np.cumsum(np.flip(-sy, -1), -1), -1)
    ry = np.flip(np.cumsum(np.flip(cx, -1), -1), -1)
    return np.stack([rx, ry], axis=-2)
