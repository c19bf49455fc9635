"""Two files with different joints (a 7-joint arm against the same arm with two finger joints) compared on their
common chain: every joint of one file without a match in the other is fixed at q = 0, its body welded to its parent
(its inertial moved into the parent's frame and added: masses add, CoM the weighted mean, inertias by the parallel-
axis theorem, :meth:`~crossdyn.robots.model.Inertial.plus`), so that M(q), G(q), C(q, q̇)q̇ and inverse dynamics of
both files have the same coordinates — the matched joints — and can be compared.  A body welded to the base is
dropped (the base is fixed: its mass enters no joint-space dynamics).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from crossdyn.robots.model import Body, Inertial, RobotModel


def lock_joints(model: RobotModel, keep: set[int]) -> RobotModel:
    """``model`` with every joint not in ``keep`` fixed at q = 0 (see the module docstring).  At q = 0 a joint's
    transform is the identity, so a welded body's frame sits at ``origin`` in its parent's; a kept joint below a
    welded one gets the welded chain's origins composed into its own."""
    pose: list[np.ndarray] = []      # each original body's frame in the frame of the body it now belongs to
    owner: list[int] = []            # the new index of that body (−1: the base)
    bodies: list[tuple[str, Inertial, list[str]]] = []
    joints, parents = [], []
    for i, (body, joint) in enumerate(zip(model.bodies, model.joints, strict=True)):
        p = model.parents[i]
        up, up_owner = (pose[p], owner[p]) if p >= 0 else (np.eye(4), -1)
        X = up @ joint.origin
        if i in keep:
            joints.append(replace(joint, origin=X))
            parents.append(up_owner)
            bodies.append((body.name, body.inertial, list(body.merged)))
            owner.append(len(bodies) - 1)
            pose.append(np.eye(4))
            continue
        owner.append(up_owner)
        pose.append(X)
        if up_owner >= 0:
            name, inertial, merged = bodies[up_owner]
            bodies[up_owner] = (name, inertial.plus(body.inertial.transformed(X[:3, :3], X[:3, 3])),
                                [*merged, body.name, *body.merged])
    return replace(model, bodies=tuple(Body(n, b, tuple(m)) for n, b, m in bodies), joints=tuple(joints),
                   parents=tuple(parents))


def locked_words(model: RobotModel, keep: set[int]) -> str:
    """"finger_joint1, finger_joint2 of panda.xml fixed at 0" (or "" where every joint is kept)."""
    fixed = [j.name for i, j in enumerate(model.joints) if i not in keep]
    return f"{', '.join(fixed)} of {Path(model.source).name} fixed at 0" if fixed else ""
