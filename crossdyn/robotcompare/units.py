"""Each joint's errors in its own unit, for ``summary.json`` of a robot-file comparison: a revolute joint's in rad
(N m, rad/s²), a prismatic joint's in m (N, m/s²) (:func:`crossdyn.conventions.joint_unit`).

The metric groups are the planar comparison's (:mod:`crossdyn.comparison.groups`): their keys carry the revolute
unit (``max_abs_error_rad``, ``max_abs_error_nm``, ``unit: "rad/s^2"``) and their maxima run over every joint, each
in its own unit.  Those keys stay as they are; beside them each group gets ``max_abs_error_by_unit`` (the largest
error per unit, e.g. ``{"rad": 2.1e-9, "m": 3.0e-10}``), and the document ``joint_types`` and ``joint_units``."""
from __future__ import annotations

from crossdyn.conventions import by_unit, joint_unit, mass_matrix_by_unit
from crossdyn.robots.model import RobotModel

PER_JOINT = {"trajectory": ("max_abs_error_per_joint_rad", "position"),
             "inverse_dynamics": ("max_abs_error_per_joint_nm", "effort"),
             "forward_dynamics": ("max_abs_error_per_joint", "acceleration")}
"""The per-joint errors of each group (key in the group's values) and the quantity they are of."""


def rotates(model: RobotModel) -> list[bool]:
    """Per joint: True for a revolute (or continuous) joint, False for a prismatic one."""
    return [j.type.rotates for j in model.joints]


def joint_fields(model: RobotModel) -> dict:
    """``joint_types`` (revolute, continuous, prismatic) and ``joint_units`` (rad or m: the unit of q) per joint."""
    return {"joint_types": [j.type.value for j in model.joints],
            "joint_units": [joint_unit(r) for r in rotates(model)]}


def with_units(entry: dict, rot: list[bool]) -> dict:
    """An engine's ``summary.json`` entry with ``max_abs_error_by_unit`` added to each group that has per-joint
    (per-entry: the mass matrix) errors (:func:`crossdyn.conventions.by_unit`,
    :func:`~crossdyn.conventions.mass_matrix_by_unit`)."""
    out = dict(entry)
    for group, (key, quantity) in PER_JOINT.items():
        values = out.get(group)
        if isinstance(values, dict) and isinstance(values.get(key), list) and len(values[key]) == len(rot):
            out[group] = values | {"max_abs_error_by_unit": by_unit(values[key], rot, quantity)}
    mm = out.get("mass_matrix")
    if isinstance(mm, dict) and isinstance(mm.get("max_abs_error_per_entry"), list) and \
            len(mm["max_abs_error_per_entry"]) == len(rot):
        out["mass_matrix"] = mm | {"max_abs_error_by_unit": mass_matrix_by_unit(mm["max_abs_error_per_entry"], rot)}
    return out
