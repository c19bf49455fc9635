"""Deprecated: moved to :mod:`crossdyn.equations.octave_session` (issue 22: the user's M, C, G in one package).

This module only re-exports its names and warns.  It points up a level (models 2 → equations 3);
``tests/test_layout.py`` lists it in ``SHIMS`` (nothing in ``crossdyn/`` may import it).
"""
import warnings

from crossdyn.equations.octave_session import INSTALL_HINT, OctaveDied, OctaveSession, OctaveTimeout, OctaveUnavailable, find_octave, octave_string, octave_version

warnings.warn("crossdyn.models.octave_session moved to crossdyn.equations.octave_session", DeprecationWarning, stacklevel=2)

__all__ = ["INSTALL_HINT", "OctaveDied", "OctaveSession", "OctaveTimeout", "OctaveUnavailable", "find_octave",
           "octave_string", "octave_version"]
