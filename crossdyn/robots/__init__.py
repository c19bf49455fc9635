"""Users' own robot files (URDF, MJCF) read into one spatial model: :class:`~crossdyn.robots.model.RobotModel`.

``read_robot(path)`` picks the reader by the file's content (``<robot>`` → URDF, ``<mujoco>`` → MJCF) and raises
:class:`crossdyn.errors.InputError` naming the file, the element and the value for what it cannot represent.  The
formats are one table, :mod:`crossdyn.robots.formats`; the model's classes (numpy) load on first use, so importing
this package for :data:`ROBOT_SUFFIXES` or :class:`Format` stays light.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crossdyn.robots.formats import ROBOT_SUFFIXES, Format, read_robot, robot_format  # noqa: F401

if TYPE_CHECKING:  # the names as the type checker sees them; at run time __getattr__ imports them
    from crossdyn.robots.model import Body, Inertial, Joint, JointType, Note, RobotModel, Severity

__all__ = ["Body", "Format", "Inertial", "Joint", "JointType", "Note", "RobotModel", "Severity", "read_robot",
           "robot_format"]

_MODEL_NAMES = ("Body", "Inertial", "Joint", "JointType", "Note", "RobotModel", "Severity")


def __getattr__(name: str) -> Any:
    """The model's classes (:mod:`crossdyn.robots.model`), imported when first asked for."""
    if name in _MODEL_NAMES:
        from crossdyn.robots import model

        return getattr(model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

