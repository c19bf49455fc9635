"""What the user's equations are, whatever the language: the roles M, C, G, their names, the error, the protocol.

The user's file defines

* ``M(q, p)`` → n×n (also accepted: ``mass_matrix``),
* ``C(q, qd, p)`` → the n×n matrix C (so that C q̇ is the Coriolis/centrifugal torque) *or* the
  n-vector C q̇ — told apart by shape (also accepted: ``coriolis``, ``bias``),
* ``G(q, p)`` → the n-vector on the left-hand side, M q̈ + C q̇ + G = τ (also accepted: ``gravity``),

any of which may be missing; ``names={"M": "my_mass", …}`` maps other names (``--names M=my_mass``).
Functions declared without ``p`` (``M(q)``, ``C(q, qd)``, ``G(q)``: parameters written as numbers) are
called without it.  Both languages — a Python file (:class:`crossdyn.equations.python_file.UserModel`) and
MATLAB run by GNU Octave (:class:`crossdyn.equations.octave_model.OctaveModel`) — answer the calls of
:class:`Equations`; a file that cannot be used raises :class:`UserFileError`.
"""
from __future__ import annotations

import traceback
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from crossdyn.io import InputError

ROLE_NAMES = {"M": ("M", "mass_matrix"), "C": ("C", "coriolis", "bias"), "G": ("G", "gravity")}
"""role → the function names looked for, in order."""
FRICTION_NAMES = ("F", "friction")
"""The names looked for, in order, for the optional joint friction F(qd, p) (``--names F=NAME`` maps another;
checked by :mod:`crossdyn.checking.friction`, not one of the roles every caller evaluates)."""
ROLE_ARGS = {"M": "(q, p)", "C": "(q, qd, p)", "G": "(q, p)"}
ROLE_ARGS_NO_P = {"M": "(q)", "C": "(q, qd)", "G": "(q)"}


# =============================================================================== errors

class UserFileError(InputError):
    """The user's file cannot be used: the message names the function, the state and the problem.

    ``user_traceback`` holds the traceback restricted to frames in the user's file; ``timed_out`` is True when
    the user's code was stopped after the timeout; ``violation`` the limit it broke or the blocked action it tried
    when it ran sandboxed (:mod:`crossdyn.sandbox`: "exceeded 2 GiB", "network is disabled", ...), else None.
    ``str(error)`` is the full report (message, state, traceback).
    """

    def __init__(self, message: str, *, function: str | None = None, where: str = "",
                 user_traceback: str = "", timed_out: bool = False, violation: str | None = None):
        super().__init__(message)
        self.message = message
        self.function = function
        self.where = where
        self.user_traceback = user_traceback
        self.timed_out = timed_out
        self.violation = violation
        self.args = (self.report(),)

    def report(self) -> str:
        lines = [self.message]
        if self.where:
            lines.append(self.where)
        if self.user_traceback:
            lines.append(self.user_traceback.rstrip())
        return "\n".join(lines)


def _same_file(a: str, b: Path) -> bool:
    try:
        return Path(a).resolve() == b
    except (OSError, ValueError):
        return False


def user_traceback(exc: BaseException, path: Path) -> str:
    """The traceback of ``exc`` with only the frames in the user's file, then the exception line."""
    path = Path(path).resolve()
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _same_file(f.filename, path)]
    out = []
    if frames:
        out.append("Traceback (most recent call last; frames in your file only):\n")
        out += traceback.format_list(frames)
    out += traceback.format_exception_only(type(exc), exc)
    return "".join(out)


def fmt_vec(x) -> str:
    """A vector as ``[v1, v2, …]`` with 6 significant digits (for messages)."""
    return "[" + ", ".join(f"{v:.6g}" for v in np.asarray(x, float).ravel()) + "]"


def parse_names(text: str | None) -> dict[str, str]:
    """``"M=my_mass,C=my_cor"`` → {"M": "my_mass", "C": "my_cor"}; raises ValueError on bad syntax."""
    if not text:
        return {}
    out = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise ValueError(f"--names: expected ROLE=NAME (ROLE one of M, C, G, F), got {item!r}")
        role, name = (s.strip() for s in item.split("=", 1))
        if role.upper() not in (*ROLE_NAMES, "F"):
            raise ValueError(f"--names: unknown role {role!r}; roles are M, C, G and F (friction)")
        if not name.isidentifier():
            raise ValueError(f"--names: {name!r} is not a Python name")
        out[role.upper()] = name
    return out



# =============================================================================== the protocol

class OneCallParts:
    """The description (``has``, ``name``, ``takes_p``, ``signature`` from ``functions``) and ``Cqd`` and ``parts``
    for a model whose ``_one(roles, q, qd, p, ps)`` evaluates several of M, C, G at one
    state in one round trip ({role: value}, a missing function absent) and whose ``c_kind`` is known after its
    first C (the sandboxed Python worker, an Octave session): C q̇ = C @ q̇ when the file returns the matrix."""

    c_kind: str | None = None
    functions: dict[str, tuple[str, bool]]
    """role → (the file's function name, whether it takes p), found when the file was loaded."""

    def has(self, role: str) -> bool:
        return role in self.functions

    def name(self, role: str) -> str:
        return self.functions[role][0]

    def takes_p(self, role: str) -> bool:
        return self.functions[role][1]

    def signature(self, role: str) -> str:
        return self.name(role) + (ROLE_ARGS if self.takes_p(role) else ROLE_ARGS_NO_P)[role]

    def _one(self, roles, q, qd, p, ps) -> dict:
        raise NotImplementedError

    def C(self, q, qd, p, ps=None) -> tuple[str, np.ndarray]:
        raise NotImplementedError

    def Cqd(self, q, qd, p, ps=None) -> np.ndarray:
        kind, a = self.C(q, qd, p, ps)
        return a @ np.asarray(qd, float) if kind == "matrix" else a

    def parts(self, q, qd, p, ps=None) -> tuple:
        """(M, C q̇, G) at one state in one round trip (None for a function the file lacks)."""
        out = self._one(("M", "C", "G"), q, qd, p, ps)
        c = out.get("C")
        if c is not None and self.c_kind == "matrix":
            c = c @ np.asarray(qd, float)
        return out.get("M"), c, out.get("G")


@runtime_checkable
class Equations(Protocol):
    """The user's M, C, G as crossdyn calls them, in either language.

    ``p`` is the user's parameter object (:class:`crossdyn.equations.params.UserParams`), ``ps`` the
    :class:`~crossdyn.equations.params.ParamSet` it came from (named in error messages).  ``C`` returns
    ("matrix", C) or ("vector", C q̇) as the user's function returned it; ``Cqd`` always C q̇.  ``c_kind``
    ("matrix" | "vector") is known after the first evaluation of C.  Every call raises
    :class:`UserFileError` naming the function and the state when the user's code fails.
    """

    path: Path
    n: int
    c_kind: str | None
    language: str

    def has(self, role: str) -> bool: ...

    def name(self, role: str) -> str: ...

    def takes_p(self, role: str) -> bool: ...

    def signature(self, role: str) -> str: ...

    def describe(self) -> dict[str, str | None]: ...

    def M(self, q, p, ps=None) -> np.ndarray: ...

    def G(self, q, p, ps=None) -> np.ndarray: ...

    def C(self, q, qd, p, ps=None) -> tuple[str, np.ndarray]: ...

    def Cqd(self, q, qd, p, ps=None) -> np.ndarray: ...
