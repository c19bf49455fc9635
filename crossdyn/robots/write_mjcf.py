"""MJCF (MuJoCo XML) text written from a :class:`~crossdyn.robots.model.RobotModel`.

Nested ``<body>`` elements, one per body, at ``pos``/``quat`` from ``Joint.origin`` (quaternion w x y z); in each a
``hinge`` (revolute, continuous) or ``slide`` (prismatic) joint with its ``axis``, ``pos`` = the anchor, ``range``
where the model has limits (``limited`` stated, never inferred), ``damping``, ``frictionloss`` and ``armature``;
an ``<inertial>`` with ``pos`` = the centre of mass, ``mass`` and ``fullinertia`` (ixx iyy izz ixy ixz iyz, about
the centre of mass, the body's axes).  MuJoCo's traps are switched off as for crossdyn's planar arms: the compiler
is told ``angle="radian"``, ``inertiafromgeom="false"``, never to balance or bound masses and inertias; contacts
are disabled (there are no geoms); the Euler integrator's implicit joint damping is off (``eulerdamp``).  Gravity
is the model's.  One ``motor`` per joint, gear 1, no control limits (``ctrl`` is τ), ``forcerange`` = the effort
limit where there is one.
"""
from __future__ import annotations

from xml.sax.saxutils import quoteattr

import numpy as np

from crossdyn.robots.model import JointType, RobotModel


def _f(x: float) -> str:
    return repr(float(x) + 0.0)  # -0.0 written as 0.0


def _v(v) -> str:
    return " ".join(_f(x) for x in v)


def quaternion(R: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of the rotation matrix R (Shepperd's method: the largest pivot)."""
    t = float(np.trace(R))
    pivots = [t, R[0, 0], R[1, 1], R[2, 2]]
    k = int(np.argmax(pivots))
    if k == 0:
        s = 2.0 * np.sqrt(1.0 + t)
        q = [0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    elif k == 1:
        s = 2.0 * np.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        q = [(R[2, 1] - R[1, 2]) / s, 0.25 * s, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s]
    elif k == 2:
        s = 2.0 * np.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2])
        q = [(R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, 0.25 * s, (R[1, 2] + R[2, 1]) / s]
    else:
        s = 2.0 * np.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1])
        q = [(R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, 0.25 * s]
    out = np.array(q, dtype=float)
    return out / np.linalg.norm(out)


def _body(model: RobotModel, i: int, indent: str) -> list[str]:
    j, b = model.joints[i], model.bodies[i].inertial
    I = b.inertia
    limited = j.lower is not None and j.upper is not None and j.type is not JointType.CONTINUOUS
    limit = f'limited="true" range="{_f(j.lower or 0.0)} {_f(j.upper or 0.0)}"' if limited else 'limited="false"'
    kind = "slide" if j.type is JointType.PRISMATIC else "hinge"
    return [f'{indent}<body name={quoteattr(model.bodies[i].name)} pos="{_v(j.origin[:3, 3])}" '
            f'quat="{_v(quaternion(j.origin[:3, :3]))}">',
            f'{indent}  <joint name={quoteattr(j.name)} type="{kind}" axis="{_v(j.axis)}" pos="{_v(j.anchor)}" '
            f'{limit} damping="{_f(j.damping)}" frictionloss="{_f(j.friction)}" armature="{_f(j.armature)}"/>',
            f'{indent}  <inertial pos="{_v(b.com)}" mass="{_f(b.mass)}" fullinertia="{_f(I[0, 0])} {_f(I[1, 1])} '
            f'{_f(I[2, 2])} {_f(I[0, 1])} {_f(I[0, 2])} {_f(I[1, 2])}"/>']


def write_mjcf(model: RobotModel, timestep: float = 1e-3, integrator: str = "Euler") -> str:
    """The MJCF document of ``model`` (module docstring)."""
    out = [f"<mujoco model={quoteattr(model.name)}>",
           "  <!-- written by crossdyn from a robot model; SI units -->",
           '  <compiler angle="radian" inertiafromgeom="false" balanceinertia="false" boundmass="0" '
           'boundinertia="0" autolimits="false"/>',
           f'  <option timestep="{_f(timestep)}" gravity="{_v(model.gravity)}" integrator="{integrator}">',
           '    <flag contact="disable" energy="enable" eulerdamp="disable"/>',
           "  </option>",
           "  <worldbody>"]
    children: dict[int, list[int]] = {}
    for i, p in enumerate(model.parents):
        children.setdefault(p, []).append(i)

    def emit(i: int, indent: str) -> None:
        out.extend(_body(model, i, indent))
        for c in children.get(i, []):
            emit(c, indent + "  ")
        out.append(f"{indent}</body>")

    for root in children.get(-1, []):
        emit(root, "    ")
    out += ["  </worldbody>", "  <actuator>"]
    for j in model.joints:
        force = "" if j.effort is None else f' forcelimited="true" forcerange="{_f(-j.effort)} {_f(j.effort)}"'
        out.append(f"    <motor name={quoteattr('tau_' + j.name)} joint={quoteattr(j.name)} gear=\"{_f(j.gear)}\" "
                   f'ctrllimited="false"{force}/>')
    out += ["  </actuator>", "</mujoco>"]
    return "\n".join(out) + "\n"
