"""Moved: :mod:`crossdyn.inputs.trajectories` (issue 22). This module re-exports its public names and warns."""
import warnings

from crossdyn.inputs.trajectories import (  # noqa: F401
    JointTrajectory, REACH_TOL, cubic, ik_2r, ik_3r, inverse_kinematics, joint_waypoints, per_joint, quintic,
    quintic_coefficients,
)

warnings.warn("crossdyn.drive.trajectories moved to crossdyn.inputs.trajectories", DeprecationWarning, stacklevel=2)
