"""Deprecated: moved to :mod:`crossdyn.equations.python_file` (issue 22: the user's M, C, G in one package).

This module only re-exports its names and warns.  It points up a level (models 2 → equations 3);
``tests/test_layout.py`` lists it in ``SHIMS`` (nothing in ``crossdyn/`` may import it).
"""
import warnings

from crossdyn.equations.params import ParamSet, UserParams, own_params
from crossdyn.equations.protocol import ROLE_ARGS, ROLE_ARGS_NO_P, ROLE_NAMES, UserFileError, fmt_vec, parse_names, user_traceback
from crossdyn.equations.python_file import UserModel, load_user_module, quiet, resolve_functions, takes_p, written_for_links

warnings.warn("crossdyn.models.user_equations moved to crossdyn.equations.python_file", DeprecationWarning, stacklevel=2)

__all__ = ["ParamSet", "UserParams", "own_params", "ROLE_ARGS", "ROLE_ARGS_NO_P", "ROLE_NAMES", "UserFileError",
           "fmt_vec", "parse_names", "user_traceback", "UserModel", "load_user_module", "quiet",
           "resolve_functions", "takes_p", "written_for_links"]
