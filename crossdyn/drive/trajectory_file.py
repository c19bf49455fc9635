"""Moved: :mod:`crossdyn.inputs.trajectory_file` (issue 22). This module re-exports its public names and warns."""
import warnings

from crossdyn.inputs.trajectory_file import (  # noqa: F401
    POINT_KEYS, TOP_KEYS, TrajectoryFileError, load_trajectory,
)

warnings.warn("crossdyn.drive.trajectory_file moved to crossdyn.inputs.trajectory_file", DeprecationWarning, stacklevel=2)
