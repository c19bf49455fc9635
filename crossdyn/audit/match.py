"""Which body of one robot file is which body of another: by name, by the name of the joint that moves it, or by
kinematic position (the same place in the tree — the sequence of child ordinals from the base — and the same kind
of joint, rotating or sliding), in that order.  The world frame at q = 0 (:func:`world_frames`) is the common frame
in which the files are compared; a joint whose world axis points the opposite way in the other file gets sign −1.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.audit.result import BodyMatch, Matching
from crossdyn.robots.model import RobotModel


@dataclass(frozen=True, eq=False)
class WorldBody:
    """A body and its joint at q = 0 in the world frame: pose (R, p), CoM, inertia about the CoM on world axes,
    joint axis and a point of it (anchor)."""

    index: int
    name: str
    R: np.ndarray
    p: np.ndarray
    mass: float
    com: np.ndarray
    inertia: np.ndarray
    axis: np.ndarray
    anchor: np.ndarray


def world_frames(model: RobotModel, turn: float = 0.0) -> list[WorldBody]:
    """Every body at q = 0, in the world frame turned by ``turn`` rad about the gravity axis: T_i = T_parent ·
    origin_i (at q = 0 the joint transform T(anchor)·Rot(axis, 0)·T(−anchor) is the identity); c_w = R c + p,
    I_w = R I_c Rᵀ, axis_w = R a, anchor_w = R anchor + p."""
    out: list[WorldBody] = []
    poses: list[np.ndarray] = []
    top = np.eye(4)
    top[:3, :3] = _about(_gravity_axis(model), turn)
    for i, (body, joint) in enumerate(zip(model.bodies, model.joints, strict=True)):
        parent = model.parents[i]
        T = (top if parent < 0 else poses[parent]) @ joint.origin
        poses.append(T)
        R, p = T[:3, :3], T[:3, 3]
        b = body.inertial
        axis = R @ joint.axis
        out.append(WorldBody(i, body.name, R, p, b.mass, R @ b.com + p, R @ b.inertia @ R.T,
                             axis / (np.linalg.norm(axis) or 1.0), R @ joint.anchor + p))
    return out


def _gravity_axis(model: RobotModel) -> np.ndarray:
    g = np.asarray(model.gravity, dtype=float)
    norm = float(np.linalg.norm(g))
    return g / norm if norm > 0 else np.array([0.0, 0.0, -1.0])


def _about(u: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by ``angle`` about unit vector ``u`` (Rodrigues)."""
    K = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def base_turn(a: RobotModel, b: RobotModel, pairs: list[tuple[int, int]]) -> float:
    """The turn of ``b``'s world about the gravity axis that best aligns its joint axes with ``a``'s at q = 0
    (least squares over the matched joints' axis directions, each up to sign; 0 when every axis is parallel to
    gravity).  A turn about gravity changes no joint-space dynamics: files that place the same robot's base at
    different headings (Menagerie's UR5e turns it π/2) are compared in one frame."""
    wa, wb = world_frames(a), world_frames(b)
    u = _gravity_axis(a)
    x = np.cross(u, [1.0, 0, 0]) if abs(u[0]) < 0.9 else np.cross(u, [0, 1.0, 0])
    x /= np.linalg.norm(x)
    y = np.cross(u, x)
    s = c = 0.0
    for i, j in pairs:
        va, vb = wa[i].axis, wb[j].axis
        if float(va @ vb) < 0 and abs(float(va @ u)) > 0.5:  # mostly vertical and opposite: compare as one line
            vb = -vb
        pa, pb = np.array([va @ x, va @ y]), np.array([vb @ x, vb @ y])
        c += float(pa @ pb)
        s += float(pb[0] * pa[1] - pb[1] * pa[0])
    return float(np.arctan2(s, c)) if abs(s) + abs(c) > 1e-12 else 0.0


def tree_positions(model: RobotModel) -> list[tuple[int, ...]]:
    """Each body's place in the tree: the ordinal of each ancestor (and itself) among its siblings, from the
    base (a serial chain: (0,), (0, 0), (0, 0, 0), …)."""
    out: list[tuple[int, ...]] = []
    seen: dict[int, int] = {}
    for parent in model.parents:
        k = seen.get(parent, 0)
        seen[parent] = k + 1
        out.append(((out[parent] if parent >= 0 else ()) + (k,)))
    return out


def _sign(wa: WorldBody, wb: WorldBody) -> float:
    return -1.0 if float(wa.axis @ wb.axis) < 0 else 1.0


def match_bodies(a: RobotModel, b: RobotModel) -> Matching:
    """Pairs of bodies of ``a`` and ``b``: first by body name, then by the name of their joint, then by tree
    position and joint kind (rotating or sliding) among those left, where that is unique."""
    pairs: dict[int, tuple[int, str]] = {}
    taken: set[int] = set()
    for how, key_a, key_b in (("name", a.body_names, b.body_names), ("joint name", a.joint_names, b.joint_names)):
        index_b = {name: j for j, name in enumerate(key_b)}
        for i, name in enumerate(key_a):
            j = index_b.get(name)
            if i not in pairs and j is not None and j not in taken:
                pairs[i] = (j, how)
                taken.add(j)
    pos_a, pos_b = tree_positions(a), tree_positions(b)

    def kind(m: RobotModel, i: int, pos: list) -> tuple:
        return pos[i], m.joints[i].type.rotates

    left_b = [j for j in range(b.n) if j not in taken]
    for i in range(a.n):
        if i in pairs:
            continue
        same = [j for j in left_b if kind(b, j, pos_b) == kind(a, i, pos_a)]
        if len(same) == 1:
            pairs[i] = (same[0], "position")
            left_b.remove(same[0])
            taken.add(same[0])
    turn = base_turn(a, b, [(i, j) for i, (j, _) in pairs.items()])
    wa, wb = world_frames(a), world_frames(b, turn)
    matches = tuple(BodyMatch(i, j, a.bodies[i].name, b.bodies[j].name, how, _sign(wa[i], wb[j]))
                    for i, (j, how) in sorted(pairs.items()))
    return Matching(matches, tuple(a.bodies[i].name for i in range(a.n) if i not in pairs),
                    tuple(b.bodies[j].name for j in range(b.n) if j not in taken), turn)


def state_map(matching: Matching, n_b: int) -> tuple[np.ndarray, np.ndarray]:
    """(idx, sign) with ``X_b = X_a[:, idx] * sign``: file b's joint coordinates from file a's (complete
    matchings only); the same map takes a's torques to b's."""
    idx = np.zeros(n_b, dtype=int)
    sign = np.ones(n_b)
    for m in matching.pairs:
        idx[m.b] = m.a
        sign[m.b] = m.sign
    return idx, sign
