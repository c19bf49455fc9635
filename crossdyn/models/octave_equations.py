"""Deprecated: moved to :mod:`crossdyn.equations.octave_model` (issue 22: the user's M, C, G in one package).

This module only re-exports its names and warns.  It points up a level (models 2 → equations 3);
``tests/test_layout.py`` lists it in ``SHIMS`` (nothing in ``crossdyn/`` may import it).
"""
import warnings

from crossdyn.equations.octave_model import DEFAULT_TIMEOUT, VECTORISE_MIN, OctaveModel, is_matlab_path
from crossdyn.equations.octave_session import OctaveDied, OctaveSession, OctaveTimeout, OctaveUnavailable, octave_string
from crossdyn.equations.protocol import ROLE_ARGS, ROLE_ARGS_NO_P, ROLE_NAMES, UserFileError

warnings.warn("crossdyn.models.octave_equations moved to crossdyn.equations.octave_model", DeprecationWarning, stacklevel=2)

__all__ = ["DEFAULT_TIMEOUT", "VECTORISE_MIN", "OctaveModel", "is_matlab_path", "OctaveDied", "OctaveSession",
           "OctaveTimeout", "OctaveUnavailable", "octave_string", "ROLE_ARGS", "ROLE_ARGS_NO_P", "ROLE_NAMES",
           "UserFileError"]
