"""Loading a user's equations, whatever the language: a Python file (:mod:`crossdyn.equations.python_file`) or
MATLAB run by GNU Octave (:mod:`crossdyn.equations.octave_model`); both answer the calls of
:class:`crossdyn.equations.protocol.Equations`."""
from __future__ import annotations

from pathlib import Path

from crossdyn import sandbox

from crossdyn.equations.octave_model import OctaveModel, is_matlab_path
from crossdyn.equations.protocol import UserFileError
from crossdyn.equations.python_file import UserModel
from crossdyn.equations.python_sandboxed import SandboxedModel, open_model  # noqa: F401  (SandboxedModel re-exported)


def load_model(file, n: int, names: dict[str, str] | None = None, *, strict: bool = True,
               timeout: float | None = None, policy: sandbox.Policy | None = None):
    """The user's equations: :class:`UserModel` for Python, an :class:`OctaveModel` for MATLAB (.m file or folder).

    Both answer :class:`~crossdyn.equations.protocol.Equations`; the Octave model adds batch calls (``evaluate``,
    ``parts``, ``free_swing``, ``engine_init``/``engine_step``) that callers probe for.  (Left unannotated, so that
    callers reaching those calls keep type-checking until they narrow with ``isinstance(model, OctaveModel)``.)

    ``policy`` (default :func:`crossdyn.sandbox.current`, what ``--sandbox`` set): unless it is ``off``, the user's
    code runs in a sandboxed child process — Octave, or a Python worker (:class:`SandboxedModel`) — never in
    crossdyn's own process.
    """
    policy = policy or sandbox.current()
    if is_matlab_path(file):
        return OctaveModel(file, n, names, timeout=timeout, policy=policy)
    if Path(file).is_dir():
        raise UserFileError(f"{file}: is a folder without .m files: give a .py file, a .m file or a folder of .m "
                            "function files (a folder of submissions is checked with --summary CSV)")
    if policy.mode != sandbox.Mode.OFF:
        return open_model(file, n, names, strict=strict, policy=policy)
    return UserModel(file, n, names, strict=strict)
