"""Users' own robot files (URDF, MJCF) read into one spatial model: :class:`~crossdyn.robots.model.RobotModel`.

``read_robot(path)`` picks the reader by the file's content (``<robot>`` → URDF, ``<mujoco>`` → MJCF) and raises
:class:`crossdyn.errors.InputError` naming the file, the element and the value for what it cannot represent.
"""
from __future__ import annotations

from pathlib import Path

from crossdyn.errors import InputError
from crossdyn.robots.model import Body, Format, Inertial, Joint, JointType, Note, RobotModel, Severity

__all__ = ["Body", "Format", "Inertial", "Joint", "JointType", "Note", "RobotModel", "Severity", "read_robot",
           "robot_format"]

ROBOT_SUFFIXES = (".urdf", ".xml", ".mjcf")


def robot_format(path: str | Path) -> Format:
    """URDF or MJCF, from the root element of the file (``<robot>`` or ``<mujoco>``); InputError otherwise."""
    import xml.etree.ElementTree as ET

    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such robot file", where=str(p))
    try:
        root = ET.parse(p).getroot()
    except ET.ParseError as e:
        raise InputError(f"{p}: not well-formed XML ({e})", where=str(p)) from None
    if root.tag == "robot":
        return Format.URDF
    if root.tag == "mujoco":
        return Format.MJCF
    raise InputError(f"{p}: root element <{root.tag}> is neither <robot> (URDF) nor <mujoco> (MJCF)",
                     where=str(p), value=root.tag)


def read_robot(path: str | Path) -> RobotModel:
    """The robot file at ``path`` as a :class:`RobotModel` (URDF or MJCF, by its root element)."""
    fmt = robot_format(path)
    if fmt is Format.URDF:
        from crossdyn.robots.urdf import read_urdf
        return read_urdf(path)
    from crossdyn.robots.mjcf import read_mjcf
    return read_mjcf(path)
