"""Loading a user's equations, whatever the language: Python (:mod:`crossdyn.models.user_equations`) or
MATLAB run by GNU Octave (:mod:`crossdyn.models.octave_equations`); both models answer the same calls."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from crossdyn.models import octave_equations
from crossdyn.models.user_equations import UserFileError, UserModel


def load_model(file, n: int, names: dict[str, str] | None = None, *, strict: bool = True,
               timeout: float | None = None):
    """The user's equations: :class:`UserModel` for Python, an Octave model for MATLAB (.m file or folder)."""
    if octave_equations.is_matlab_path(file):
        return octave_equations.OctaveModel(file, n, names, timeout=timeout)
    if Path(file).is_dir():
        raise UserFileError(f"{file}: is a folder without .m files: give a .py file, a .m file or a folder of .m "
                            "function files (a folder of submissions is checked with --summary CSV)")
    return UserModel(file, n, names, strict=strict)


def param_rows(sets: list) -> np.ndarray:
    """(S, 7n + 3) rows [L, m, Lc, J, b, fc, Ia, gx, gy, gz] of parameter sets (:class:`ParamSet`), for Octave
    (Ia: the reflected rotor inertia, ``p.armature`` / ``p.Ia1`` … in the user's functions)."""
    return np.stack([np.concatenate([ps.L, ps.m, ps.Lc, ps.J, ps.b, ps.fc, ps.armature,
                                     (tuple(ps.gravity) + (0.0,) * 3)[:3]]) for ps in sets])
