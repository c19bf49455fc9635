"""Moved: :mod:`crossdyn.inputs.profile_options` (issue 22). This module re-exports its public names and warns."""
import warnings

from crossdyn.inputs.profile_options import (  # noqa: F401
    format_profile_list, parse_profile, profile_start, split_profile_option,
)

warnings.warn("crossdyn.drive.profile_options moved to crossdyn.inputs.profile_options", DeprecationWarning, stacklevel=2)
