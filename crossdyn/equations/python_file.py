"""A user's hand-derived equations of motion, loaded from their file and called safely.

The file (Python) defines

* ``M(q, p)`` → n×n (also accepted: ``mass_matrix``),
* ``C(q, qd, p)`` → the n×n matrix C (so that C q̇ is the Coriolis/centrifugal torque) *or* the
  n-vector C q̇ — told apart by shape (also accepted: ``coriolis``, ``bias``),
* ``G(q, p)`` → the n-vector on the left-hand side, M q̈ + C q̇ + G = τ (also accepted: ``gravity``),

any of which may be missing; ``names={"M": "my_mass", …}`` maps other names.  ``p``
(:class:`UserParams`) carries the parameters as 0-based sequences and 1-based scalars.

Used by the checker (:mod:`crossdyn.checking.checker`) and by the ``user:FILE`` engine
(:mod:`crossdyn.engines.user_engine`).  A file that cannot be used — import error, missing or
non-callable functions, wrong shapes, exceptions or non-finite values — raises :class:`UserFileError`
naming the function and the state, with the user's traceback (frames in their file only).
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import io
import itertools
import sys
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np

from crossdyn.equations import progress
from crossdyn.equations.params import ParamSet, UserParams, own_params  # noqa: F401  (re-exported)
from crossdyn.equations.protocol import (  # noqa: F401  (re-exported)
    ROLE_ARGS, ROLE_ARGS_NO_P, ROLE_NAMES, UserFileError, fmt_vec, parse_names, user_traceback,
)


# =============================================================================== the user's file

_counter = itertools.count()


def load_user_module(path: str | Path):
    """Import the user's file as an isolated module (a unique name; its folder on sys.path while importing)."""
    path = Path(path)
    if not path.is_file():
        raise UserFileError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
    resolved = path.resolve()
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:10]
    name = f"crossdyn_user_{digest}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise UserFileError(f"{path}: cannot be imported as Python (is it a .py file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(resolved.parent))
    try:
        with quiet(), progress.running(f"importing {path.name}"):
            spec.loader.exec_module(module)
    except (Exception, SystemExit) as e:
        sys.modules.pop(name, None)
        raise UserFileError(f"{path}: importing the file failed with {type(e).__name__}: {e}",
                            user_traceback=user_traceback(e, resolved)) from None
    finally:
        try:
            sys.path.remove(str(resolved.parent))
        except ValueError:
            pass
    return module



def resolve_functions(module, path: Path,
                      names: dict[str, str] | None = None) -> dict[str, tuple[str, Callable[..., Any]]]:
    """role → (name, function) for the roles the file defines; checks they are callable with the right arity."""
    names = names or {}
    found = {}
    for role, candidates in ROLE_NAMES.items():
        if role in names:
            name = names[role]
            if not hasattr(module, name):
                defined = sorted(k for k, v in vars(module).items() if callable(v) and not k.startswith("_")
                                 and getattr(v, "__module__", None) == module.__name__)
                raise UserFileError(f"{path}: --names maps {role} to {name!r}, which the file does not define "
                                    f"(its functions: {', '.join(defined) or 'none'})", function=name)
            choice = [name]
        else:
            present = [c for c in candidates if hasattr(module, c)]
            # a constant such as G = 9.81 does not hide a function named gravity
            choice = [c for c in present if callable(getattr(module, c))] or present
        if not choice:
            continue
        name = choice[0]
        fn = getattr(module, name)
        if not callable(fn):
            raise UserFileError(f"{path}: {name} is a {type(fn).__name__}, not a function {name}{ROLE_ARGS[role]}",
                                function=name)
        takes_p(fn, role, path, name)        # raises when it takes neither (q, [qd,] p) nor (q, [qd])
        found[role] = (name, fn)
    if not found:
        raise UserFileError(f"{path}: defines none of M / mass_matrix, C / coriolis / bias, G / gravity "
                            "(use --names M=...,C=...,G=... for other names)")
    return found


def takes_p(fn, role: str, path, name: str) -> bool:
    """True when ``fn`` is called as M(q, p) / C(q, qd, p) / G(q, p), False for M(q) / C(q, qd) / G(q)
    (parameters written as numbers); :class:`UserFileError` when it can be called neither way."""
    nargs = 3 if role == "C" else 2
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    for k in (nargs, nargs - 1):
        try:
            sig.bind(*([None] * k))
            return k == nargs
        except TypeError:
            pass
    raise UserFileError(f"{path}: {name}{sig} cannot be called as {name}{ROLE_ARGS[role]} ({nargs} arguments) "
                        f"or {name}{ROLE_ARGS_NO_P[role]}", function=name)


@contextlib.contextmanager
def quiet(sink: io.StringIO | None = None):
    """Swallow the user's prints and NumPy warnings while their code runs."""
    sink = sink if sink is not None else io.StringIO()
    with contextlib.redirect_stdout(sink), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield sink


class UserModel:
    """The user's functions, called safely: shapes and values are checked at every call.

    ``strict=True`` (the checker) treats NaN/inf results as errors; ``strict=False``
    (the engine) lets them through, as a diverging physics engine would.
    """

    language = "python"

    def __init__(self, path: str | Path, n: int, names: dict[str, str] | None = None, strict: bool = True):
        self.path = Path(path)
        self.n = n
        self.strict = strict
        self.module = load_user_module(self.path)
        self.functions = resolve_functions(self.module, self.path, names)
        self._takes_p = {role: takes_p(fn, role, self.path, name) for role, (name, fn) in self.functions.items()}
        self._calls = {role: self.signature(role) for role in self.functions}  # what the progress file says
        self.c_kind: str | None = None

    def takes_p(self, role: str) -> bool:
        return self._takes_p[role]

    def has(self, role: str) -> bool:
        return role in self.functions

    def name(self, role: str) -> str:
        return self.functions[role][0]

    def signature(self, role: str) -> str:
        return self.name(role) + (ROLE_ARGS if self.takes_p(role) else ROLE_ARGS_NO_P)[role]

    def describe(self) -> dict[str, str | None]:
        return {role: (self.signature(role) if role in self.functions else None) for role in ROLE_NAMES}

    # -- calling
    def _where(self, q, qd, ps) -> str:
        s = f"at q = {fmt_vec(q)}"
        if qd is not None:
            s += f", qd = {fmt_vec(qd)}"
        if ps is not None:
            s += f", with {ps.label} ({ps.describe()})" if isinstance(ps, ParamSet) else f", {ps}"
        return s

    def _call(self, role: str, args: tuple, q, qd, ps):
        name, fn = self.functions[role]
        if not self._takes_p[role]:
            args = args[:-1]
        progress.enter(self._calls[role])  # for a grader that has to stop this check (timeout)
        try:
            out = fn(*args)
        except (Exception, SystemExit) as e:
            raise UserFileError(f"{self.signature(role)} raised {type(e).__name__}: {e}", function=name,
                                where=self._where(q, qd, ps), user_traceback=user_traceback(e, self.path)) from None
        finally:
            progress.leave()
        try:
            a = np.asarray(out)
            if a.dtype.kind == "c":
                raise TypeError("complex values")
            if a.dtype.kind not in "fiub":
                a = a.astype(float)
            else:
                a = a.astype(float, copy=False)
        except (TypeError, ValueError) as e:
            raise UserFileError(f"{self.signature(role)} returned {type(out).__name__} that is not an array of real "
                                f"numbers ({str(e).splitlines()[0]})", function=name,
                                where=self._where(q, qd, ps)) from None
        return a

    def _bad_shape(self, role, a, expected, q, qd, ps):
        name = self.name(role)
        raise UserFileError(f"{self.signature(role)} returned shape {a.shape}; expected {expected} for this "
                            f"{self.n}-link arm", function=name, where=self._where(q, qd, ps))

    def _finite(self, role, a, prefix, q, qd, ps):
        if self.strict and not np.all(np.isfinite(a)):
            bad = np.argwhere(~np.isfinite(a))[0]
            entry = prefix + "".join(str(i + 1) for i in bad) if a.ndim else prefix
            what = "NaN" if np.isnan(a[tuple(bad)]) else "an infinite value"
            name = self.name(role)
            raise UserFileError(f"{self.signature(role)} returned {what} (in {entry})", function=name,
                                where=self._where(q, qd, ps))

    def M(self, q, p, ps=None) -> np.ndarray:
        n = self.n
        a = self._call("M", (q.copy(), p), q, None, ps)
        if a.shape != (n, n):
            if n == 1 and a.size == 1:
                a = a.reshape(1, 1)
            else:
                self._bad_shape("M", a, f"({n}, {n})", q, None, ps)
        self._finite("M", a, "M", q, None, ps)
        return a

    def G(self, q, p, ps=None) -> np.ndarray:
        n = self.n
        a = self._call("G", (q.copy(), p), q, None, ps)
        if a.shape != (n,):
            if a.size == n and (a.ndim <= 1 or sorted(a.shape)[:-1] == [1] * (a.ndim - 1)):
                a = a.reshape(n)
            else:
                self._bad_shape("G", a, f"({n},)", q, None, ps)
        self._finite("G", a, "G", q, None, ps)
        return a

    def C(self, q, qd, p, ps=None) -> tuple[str, np.ndarray]:
        """("matrix", C) or ("vector", C q̇), as the user's function returned it."""
        n = self.n
        a = self._call("C", (q.copy(), qd.copy(), p), q, qd, ps)
        if a.shape == (n, n) and not (n == 1 and a.ndim < 2):
            kind = "matrix"
        elif a.size == n and (a.ndim <= 1 or sorted(a.shape)[:-1] == [1] * (a.ndim - 1)):
            kind, a = "vector", a.reshape(n)
        else:
            self._bad_shape("C", a, f"({n}, {n}) for the matrix C or ({n},) for C qd", q, qd, ps)
        if self.c_kind is None:
            self.c_kind = kind
        elif kind != self.c_kind:
            name = self.name("C")
            raise UserFileError(f"{name}{ROLE_ARGS['C']} returned a {kind} here but a {self.c_kind} elsewhere; "
                                "return either the n x n matrix C or the n-vector C qd, always", function=name,
                                where=self._where(q, qd, ps))
        self._finite("C", a, "C", q, qd, ps)
        return kind, a

    def Cqd(self, q, qd, p, ps=None) -> np.ndarray:
        kind, a = self.C(q, qd, p, ps)
        return a @ qd if kind == "matrix" else a


# =============================================================================== the file's own number of links

def written_for_links(model: "UserModel", gravity, max_links: int = 12) -> tuple[int, str] | None:
    """(k, what the functions returned) for the link count k ≠ ``model.n`` at which every function of the file
    runs and returns k-sized results, or ``None``.

    Used when the file fails at the arm's own n (a wrong shape, or an exception such as "too many values to
    unpack" from ``q1, q2, q3 = q``): calling it with k joint angles and a k-link ``p`` (uniform rods) for
    k = 1 … ``max_links`` tells a file written for another arm from a file with a bug.
    """
    import copy

    q_all = np.linspace(0.31, -0.47, max_links)
    for k in range(1, max_links + 1):
        if k == model.n:
            continue
        trial = copy.copy(model)
        trial.n, trial.c_kind = k, None
        L = np.linspace(1.0, 0.6, k)
        m = np.linspace(1.0, 0.5, k)
        ps = ParamSet(0, L, m, L / 2, m * L**2 / 12, np.zeros(k), np.zeros(k), gravity)
        q, qd = q_all[:k].copy(), -q_all[:k][::-1].copy()
        shapes = []
        try:
            with quiet():
                if trial.has("M"):
                    trial.M(q, ps.user, ps)
                    shapes.append(f"{trial.name('M')} returns a {k}x{k} matrix")
                if trial.has("C"):
                    kind, _ = trial.C(q, qd, ps.user, ps)
                    shapes.append(f"{trial.name('C')} a {k}x{k} matrix" if kind == "matrix" else
                                  f"{trial.name('C')} a {k}-vector")
                if trial.has("G"):
                    trial.G(q, ps.user, ps)
                    shapes.append(f"{trial.name('G')} a {k}-vector")
        except UserFileError:
            continue
        return k, ", ".join(shapes) + f" when given {k} joint angles"
    return None
