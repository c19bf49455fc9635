"""``crossdyn compare ROBOT.urdf|ROBOT.xml``: the comparison machinery on a user's robot file.

Every file engine (:mod:`crossdyn.engines.files`) reads the same file and runs the same tracking law on
its own state (:mod:`crossdyn.robotcompare.motion`); each is judged against crossdyn's spatial reference (:mod:`crossdyn.spatial`) on the planar comparison's
metric groups and tolerances.  Entry point: :func:`compare_robot`; outputs: :func:`write_outputs`.
"""
from __future__ import annotations

from crossdyn.robotcompare.compare import SCHEMA, RobotComparison, compare_robot
from crossdyn.robotcompare.options import RobotCompareOptions
from crossdyn.robotcompare.report import write_outputs

__all__ = ["SCHEMA", "RobotComparison", "RobotCompareOptions", "compare_robot", "write_outputs"]
