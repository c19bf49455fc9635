"""``crossdyn info`` for a spatial arm: its convention (the equation), joints (type, DH row or origin/axis, limits),
links (mass, centre of mass, inertia), gravity, and the sizes of its generated URDF and MJCF."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crossdyn.models.spatial_spec import SpatialArmSpec


def angle_text(x: float) -> str:
    """An angle in rad, as a multiple of pi/4 when it is one (``-pi/2``), else 4 decimals."""
    import math

    k = x / (math.pi / 4)
    if abs(k - round(k)) < 1e-12:
        k = round(k)
        if k == 0:
            return "0"
        num, den = (k, 4) if k % 2 else ((k // 2, 2) if k % 4 else (k // 4, 1))
        sign = "-" if num < 0 else ""
        num = abs(num)
        return f"{sign}{'' if num == 1 else num}pi" + (f"/{den}" if den != 1 else "")
    return f"{x:.4f}"


def _g(v) -> str:
    return "[" + ", ".join(f"{float(x):.6g}" for x in v) + "]"


def _joint_lines(spec: SpatialArmSpec) -> list[str]:
    from crossdyn.models.spatial_spec import Convention

    dh = spec.convention is not Convention.ORIGIN
    head = (f"  joint  type       {'  '.join(f'{c:>10s}' for c in spec.convention.columns)}" if dh else
            "  joint  type       origin xyz [m] / rpy [rad] / axis")
    lines = [head]
    for i, (j, name) in enumerate(zip(spec.joints, spec.joint_names, strict=True), start=1):
        where = ("  ".join(f"{angle_text(float(v)) if c in ('alpha', 'theta') else f'{float(v):.6g}':>10s}"
                           for c, v in zip(spec.convention.columns, j.dh or (), strict=True)) if dh else
                 f"xyz {_g(j.xyz)}  rpy {_g(j.rpy)}  axis {_g(j.axis)}")
        extra = [f"{name}"] + ([f"limits {_g(j.limits)} {'rad' if j.type.value == 'revolute' else 'm'}"]
                               if j.limits else []) + ([f"effort {j.effort:g}"] if j.effort is not None else []) + (
            [f"damping {j.damping:g}"] if j.damping else []) + ([f"armature {j.armature:g}"] if j.armature else [])
        lines.append(f"  {i:<5d}  {j.type.value:9s}  {where}   ({', '.join(extra)})")
    return lines


def _num(v: float) -> str:
    """6 decimals with a sign; rounding residue (|v| < 5e-13) shown as +0.000000, not -0.000000."""
    return f"{round(float(v), 12) + 0.0:+.6f}"


def _dynamics_lines(spec: SpatialArmSpec) -> list[str]:
    """M and G at q0 (q = 0, clipped into the joint limits) from crossdyn's spatial reference (CRBA, RNEA)."""
    import numpy as np

    from crossdyn import spatial

    model = spec.to_robot_model()
    q0 = np.clip(np.zeros(spec.n), model.lower(), model.upper())
    M, G = spatial.crba(model, q0), spatial.gravity_torque(model, q0)
    lines = [f"  M(q0) [kg m^2, kg] at q0 = {_g(q0)} (q = 0 clipped into the limits; crossdyn.spatial CRBA):"]
    lines += ["    [" + "  ".join(_num(v) for v in row) + "]" for row in M]
    lines.append(f"  G(q0) = [{', '.join(_num(v) for v in G)}] (N m for revolute, N for prismatic joints)")
    return lines


def describe_spatial(spec: SpatialArmSpec) -> str:
    """The plain-text summary printed by ``crossdyn info`` for a spatial arm."""
    from crossdyn.models.spatial_spec import Convention

    lines = [f"{spec.name}: {spec.type_string} spatial arm, {spec.n} joints, gravity {_g(spec.gravity)} m/s^2 "
             f"(world)" + (f" — {spec.notes}" if spec.notes else ""),
             f"  convention: {spec.convention.value}: {spec.convention.equation}"]
    if spec.convention is not Convention.ORIGIN:
        lines.append(f"  DH rows in the textbook's column order ({', '.join(spec.convention.columns)}; m, rad); the "
                     "joint variable q_i adds to theta_i (revolute) or d_i (prismatic); link i's values are in "
                     "frame i")
    else:
        lines.append("  link i's values are in joint i's frame (URDF's link frame)")
    if any(spec.base_xyz) or any(spec.base_rpy):
        lines.append(f"  base: frame 0 at xyz {_g(spec.base_xyz)} m, rpy {_g(spec.base_rpy)} rad in the world")
    lines += _joint_lines(spec)
    lines.append("  link   mass [kg]  com [m]                        inertia about com [kg m^2] (ixx ixy ixz iyy iyz "
                 "izz)")
    for i, (link, name) in enumerate(zip(spec.links, spec.link_names, strict=True), start=1):
        lines.append(f"  {i:<5d}  {link.mass:<9.6g}  {_g(link.com):29s}  {_g(link.inertia)}   ({name})")
    lines += _dynamics_lines(spec)
    lines.append(f"  generated: URDF {len(spec.to_urdf())} chars, MJCF {len(spec.to_mjcf())} chars "
                 "(crossdyn export ARM --urdf FILE --mjcf FILE)")
    return "\n".join(lines)
