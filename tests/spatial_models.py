"""Test helpers for crossdyn.spatial: random RobotModels, and the same model built in Pinocchio through its own API
(an independent path: Pinocchio never sees crossdyn's frames, only its joint placements and inertias).

The anchor: crossdyn's revolute joint turns body i about the line through ``anchor`` (body frame).  Pinocchio's
``JointModelRevoluteUnaligned`` turns about its joint frame's origin, so the joint frame is put at
origin · T(anchor) in the parent's joint frame (which sits at the parent body's T(anchor_parent)), and the body's
centre of mass is given relative to it (c − anchor).  A prismatic joint ignores the anchor in both.
"""
from __future__ import annotations

import numpy as np

from crossdyn.robots.model import Body, Format, Inertial, Joint, JointType, RobotModel


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    Qm, Rm = np.linalg.qr(rng.normal(size=(3, 3)))
    Qm = Qm @ np.diag(np.sign(np.diag(Rm)))
    return Qm * np.linalg.det(Qm)


def random_inertial(rng: np.random.Generator) -> Inertial:
    """A physically valid body: principal moments from positive second moments (the triangle inequality holds)."""
    x, y, z = rng.uniform(0.005, 0.2, 3)
    R = random_rotation(rng)
    return Inertial(rng.uniform(0.3, 5.0), rng.uniform(-0.2, 0.2, 3), R @ np.diag([y + z, x + z, x + y]) @ R.T)


def random_parents(rng: np.random.Generator, n: int, dfs: bool) -> list[int]:
    """A random tree's parents in topological order; ``dfs``: depth-first order (every subtree's bodies
    consecutive), which Pinocchio's CRBA assumes (a parent chosen on the path from the root to the last body)."""
    if not dfs:
        return [int(rng.integers(-1, i)) for i in range(n)]
    parents: list[int] = []
    path: list[int] = []
    for i in range(n):
        k = int(rng.integers(0, len(path) + 1))  # 0: the base, else path[k - 1]
        parents.append(-1 if k == 0 else path[k - 1])
        path = path[:k] + [i]
    return parents


def random_model(seed: int, n: int, tree: bool = False, prismatic: float = 0.3, anchors: bool = True,
                 armature: bool = True, dfs: bool = True) -> RobotModel:
    """A random fixed-base chain (or tree) of n bodies: random origins, axes, anchors, inertias, armature, gravity."""
    rng = np.random.default_rng(seed)
    joints, bodies = [], []
    parents = random_parents(rng, n, dfs) if tree else list(range(-1, n - 1))
    for i in range(n):
        origin = np.eye(4)
        origin[:3, :3] = random_rotation(rng)
        origin[:3, 3] = rng.uniform(-0.5, 0.5, 3)
        axis = rng.normal(size=3)
        kind = JointType.PRISMATIC if rng.uniform() < prismatic else rng.choice(
            [JointType.REVOLUTE, JointType.CONTINUOUS])
        joints.append(Joint(f"j{i}", kind, origin, axis / np.linalg.norm(axis),
                            anchor=rng.uniform(-0.3, 0.3, 3) if anchors else np.zeros(3),
                            armature=float(rng.uniform(0.0, 0.2)) if armature else 0.0))
        bodies.append(Body(f"b{i}", random_inertial(rng)))
    g = rng.normal(size=3)
    return RobotModel(f"random{seed}", "<random>", Format.URDF, "base", tuple(bodies), tuple(joints), tuple(parents),
                      gravity=9.81 * g / np.linalg.norm(g))


def joint_anchor(joint: Joint) -> np.ndarray:
    """Where Pinocchio's joint frame sits in crossdyn's body frame: the anchor (revolute), the origin (prismatic)."""
    return np.asarray(joint.anchor) if joint.type.rotates else np.zeros(3)


def translation(d: np.ndarray) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = d
    return T


def to_pinocchio(model: RobotModel):
    """The model built with Pinocchio's API: (pin.Model, pin.Data)."""
    import pinocchio as pin

    pm = pin.Model()
    pm.gravity = pin.Motion(np.asarray(model.gravity, dtype=float), np.zeros(3))
    ids: list[int] = []
    for i, (body, joint) in enumerate(zip(model.bodies, model.joints, strict=True)):
        lam = model.parents[i]
        parent_anchor = np.zeros(3) if lam < 0 else joint_anchor(model.joints[lam])
        placement = translation(-parent_anchor) @ joint.origin @ translation(joint_anchor(joint))
        axis = np.asarray(joint.axis, dtype=float)
        jm = pin.JointModelRevoluteUnaligned(axis) if joint.type.rotates else pin.JointModelPrismaticUnaligned(axis)
        jid = pm.addJoint(0 if lam < 0 else ids[lam], jm, pin.SE3(placement), joint.name)
        ine = body.inertial
        pm.appendBodyToJoint(jid, pin.Inertia(ine.mass, ine.com - joint_anchor(joint), ine.inertia), pin.SE3.Identity())
        ids.append(jid)
    pm.armature = np.array([j.armature for j in model.joints])
    return pm, pm.createData()


def shift_parameters(pi: np.ndarray, d: np.ndarray) -> np.ndarray:
    """A body's ten parameters about a point d of its frame instead of the origin (r' = r − d):
    h' = h − m d,  Ī' = Ī + h× d× + d× h× − m d× d×."""
    def sk(v):
        return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])

    m, h = pi[0], pi[1:4]
    Ib = np.array([[pi[4], pi[5], pi[7]], [pi[5], pi[6], pi[8]], [pi[7], pi[8], pi[9]]])
    D, H = sk(d), sk(h)
    I2 = Ib + H @ D + D @ H - m * D @ D
    return np.array([m, *(h - m * d), I2[0, 0], I2[0, 1], I2[1, 1], I2[0, 2], I2[1, 2], I2[2, 2]])


def anchor_map(model: RobotModel) -> np.ndarray:
    """The (10 n, 10 n) linear map from crossdyn's parameters (about body origins) to Pinocchio's (about its joint
    frames): block-diagonal, built column by column from :func:`shift_parameters`."""
    n = model.n
    out = np.zeros((10 * n, 10 * n))
    for i, joint in enumerate(model.joints):
        d = joint_anchor(joint)
        for k in range(10):
            out[10 * i:10 * i + 10, 10 * i + k] = shift_parameters(np.eye(10)[k], d)
    return out


def relative_error(a: np.ndarray, b: np.ndarray, scale: np.ndarray | None = None) -> float:
    """max |a − b| / max |b| (the largest entry of the reference, or of ``scale``), over the whole batch."""
    ref = np.abs(np.asarray(b if scale is None else scale))
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(np.max(ref), 1e-300))
