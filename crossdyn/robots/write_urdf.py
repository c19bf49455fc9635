"""URDF text written from a :class:`~crossdyn.robots.model.RobotModel` (any serial chain or tree crossdyn reads).

The file crossdyn's reader (:func:`crossdyn.robots.read_robot`) turns back into the same model to rounding: a
``world`` root link, a ``fixed`` joint welding a massless ``base`` link to it, then one link per body with an
explicit ``<inertial>`` (origin at the centre of mass, rpy 0, the 3×3 inertia about it in the body's axes) and one
joint per body: ``<origin xyz rpy>`` from ``Joint.origin`` (rpy as URDF's R = Rz(yaw) Ry(pitch) Rx(roll)),
``<axis>``, ``<dynamics damping friction>``.  What URDF cannot hold, it does not pretend to:

* a joint anchor off the body origin (MJCF's joint ``pos``): refused (InputError naming the joint);
* the armature (URDF has none) and the gravity (URDF has none; readers and engines use (0, 0, −9.81)): said in an
  XML comment at the top of the file, and returned by :func:`urdf_losses` for the command line to print;
* a revolute joint without limits is written ``continuous``; a prismatic joint without limits gets ±1e6 m (never
  reached) and an effort of 1e9 where the model has none (URDF requires both attributes).
No ``<visual>`` or ``<collision>`` element: engines that enable collisions between links see none.
"""
from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

import numpy as np

from crossdyn.errors import InputError
from crossdyn.robots.model import JointType, RobotModel

UNLIMITED = 1e6
"""m: the ±limit written for a prismatic joint the model leaves unlimited (URDF requires lower/upper)."""
NO_EFFORT = 1e9
"""N m or N: the effort written where the model has none (URDF requires the attribute)."""
URDF_GRAVITY = (0.0, 0.0, -9.81)


def _f(x: float) -> str:
    return repr(float(x) + 0.0)  # -0.0 written as 0.0


def _v(v) -> str:
    return " ".join(_f(x) for x in v)


def matrix_rpy(R: np.ndarray) -> tuple[float, float, float]:
    """(roll, pitch, yaw) with Rz(yaw) Ry(pitch) Rx(roll) = R (pitch = ±π/2: roll takes the free angle)."""
    import math

    sp = -float(R[2, 0])
    if abs(sp) < 1.0 - 1e-12:
        return (math.atan2(R[2, 1], R[2, 2]), math.asin(sp), math.atan2(R[1, 0], R[0, 0]))
    return (math.atan2(sp * R[0, 1], R[1, 1]), math.copysign(math.pi / 2, sp), 0.0)


def urdf_losses(model: RobotModel) -> list[str]:
    """What a URDF of ``model`` cannot hold (gravity other than (0, 0, −9.81), armature), in words."""
    out = []
    if not np.allclose(model.gravity, URDF_GRAVITY, rtol=0, atol=1e-12):
        out.append(f"gravity {model.gravity.tolist()} m/s^2 (URDF has none: readers and engines use (0, 0, -9.81))")
    arm = [j.name for j in model.joints if j.armature]
    if arm:
        out.append(f"armature of {', '.join(arm)} (URDF has no armature)")
    return out


def _joint(model: RobotModel, i: int) -> list[str]:
    j = model.joints[i]
    if np.any(np.abs(j.anchor) > 0.0):
        raise InputError(f"{model.source}: joint '{j.name}': anchor {j.anchor.tolist()} off the body origin; a URDF "
                         "joint turns about its frame's origin", f"joint '{j.name}'", j.anchor.tolist())
    parent = "base" if model.parents[i] < 0 else model.bodies[model.parents[i]].name
    kind = "continuous" if j.type is JointType.CONTINUOUS or (j.type is JointType.REVOLUTE and j.lower is None) \
        else j.type.value
    lo = -UNLIMITED if j.lower is None else j.lower
    hi = UNLIMITED if j.upper is None else j.upper
    effort = NO_EFFORT if j.effort is None else j.effort
    velocity = NO_EFFORT if j.velocity is None else j.velocity
    limit = (f'<limit effort="{_f(effort)}" velocity="{_f(velocity)}"/>' if kind == "continuous" else
             f'<limit lower="{_f(lo)}" upper="{_f(hi)}" effort="{_f(effort)}" velocity="{_f(velocity)}"/>')
    return [f"  <joint name={quoteattr(j.name)} type=\"{kind}\">",
            f"    <parent link={quoteattr(parent)}/>",
            f"    <child link={quoteattr(model.bodies[i].name)}/>",
            f'    <origin xyz="{_v(j.origin[:3, 3])}" rpy="{_v(matrix_rpy(j.origin[:3, :3]))}"/>',
            f'    <axis xyz="{_v(j.axis)}"/>',
            f"    {limit}",
            f'    <dynamics damping="{_f(j.damping)}" friction="{_f(j.friction)}"/>',
            "  </joint>"]


def write_urdf(model: RobotModel) -> str:
    """The URDF document of ``model`` (module docstring)."""
    names = {"world", "base"} & set(model.body_names)
    if names:
        raise InputError(f"{model.source}: body name {sorted(names)[0]!r} is the written file's own root link name",
                         "bodies", sorted(names)[0])
    losses = urdf_losses(model)
    out = ['<?xml version="1.0"?>',
           "<!-- written by crossdyn from a robot model; SI units"
           + ("; not held by URDF: " + escape("; ".join(losses)).replace("--", "- -") if losses else "") + " -->",
           f"<robot name={quoteattr(model.name)}>",
           '  <link name="world"/>',
           '  <joint name="world_to_base" type="fixed"><parent link="world"/><child link="base"/>'
           '<origin xyz="0 0 0" rpy="0 0 0"/></joint>',
           # the fixed base carries no dynamics; an explicit zero inertial keeps PyBullet from inventing one (1 kg)
           '  <link name="base"><inertial><origin xyz="0 0 0" rpy="0 0 0"/><mass value="0"/>'
           '<inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>']
    for i, body in enumerate(model.bodies):
        b = body.inertial
        I = b.inertia
        out += _joint(model, i)
        out += [f"  <link name={quoteattr(body.name)}>",
                "    <inertial>",
                f'      <origin xyz="{_v(b.com)}" rpy="0 0 0"/>',
                f'      <mass value="{_f(b.mass)}"/>',
                f'      <inertia ixx="{_f(I[0, 0])}" ixy="{_f(I[0, 1])}" ixz="{_f(I[0, 2])}" iyy="{_f(I[1, 1])}" '
                f'iyz="{_f(I[1, 2])}" izz="{_f(I[2, 2])}"/>',
                "    </inertial>",
                "  </link>"]
    out.append("</robot>")
    return "\n".join(out) + "\n"
