"""Deprecated: moved to :mod:`crossdyn.equations.loader` (issue 22: the user's M, C, G in one package).

This module only re-exports its names and warns.  It points up a level (models 2 → equations 3);
``tests/test_layout.py`` lists it in ``SHIMS`` (nothing in ``crossdyn/`` may import it).
"""
import warnings

from crossdyn.equations.loader import load_model
from crossdyn.equations.params import param_rows
from crossdyn.equations.protocol import UserFileError
from crossdyn.equations.python_file import UserModel

warnings.warn("crossdyn.models.equations moved to crossdyn.equations.loader", DeprecationWarning, stacklevel=2)

__all__ = ["load_model", "param_rows", "UserFileError", "UserModel"]
