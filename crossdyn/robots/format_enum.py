"""The robot-file formats' names, :class:`Format`, alone in a module without imports: the format table
(:mod:`crossdyn.robots.formats`) and the model (:mod:`crossdyn.robots.model`) both name them, and neither imports
the other at run time."""
from __future__ import annotations

import enum


class Format(enum.Enum):
    """The robot-file formats crossdyn reads (one :class:`~crossdyn.robots.formats.RobotFormat` row each in
    :data:`crossdyn.robots.formats.FORMATS`)."""

    URDF = "urdf"
    MJCF = "mjcf"
