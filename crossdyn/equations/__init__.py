"""The user's hand-derived M, C, G behind one protocol for both languages.

* :mod:`.protocol` — the roles (M, C, G), their accepted names, :class:`UserFileError` and the
  :class:`Equations` protocol both languages answer;
* :mod:`.params` — the ``p`` the user's functions get (:class:`UserParams`) and the parameter sets
  (:class:`ParamSet`, :func:`param_rows` for Octave);
* :mod:`.python_file` — a Python file, imported and called safely (:class:`UserModel`);
* :mod:`.octave_model`, :mod:`.octave_session` — MATLAB files run by GNU Octave (:class:`OctaveModel`); crossdyn's
  own Octave code ships as package data in ``crossdyn/equations/octave/*.m``;
* :mod:`.loader` — :func:`load_model`, whichever the file is.
"""
from crossdyn.equations.loader import load_model
from crossdyn.equations.octave_model import OctaveModel, is_matlab_path
from crossdyn.equations.params import ParamSet, UserParams, own_params, param_rows
from crossdyn.equations.protocol import (
    ROLE_ARGS, ROLE_ARGS_NO_P, ROLE_NAMES, Equations, UserFileError, parse_names,
)
from crossdyn.equations.python_file import UserModel, written_for_links

__all__ = [
    "Equations", "OctaveModel", "ParamSet", "ROLE_ARGS", "ROLE_ARGS_NO_P", "ROLE_NAMES", "UserFileError", "UserModel",
    "UserParams", "is_matlab_path", "load_model", "own_params", "param_rows", "parse_names", "written_for_links",
]
