"""Calling a user's Python friction function F(q̇): finding it in their module and evaluating it at a batch of
states × parameter sets, with the errors and shapes checked as :class:`~crossdyn.equations.python_file.UserModel`
checks M, C and G.

Shared by the check's own process (``--sandbox off``) and the sandboxed worker
(:mod:`crossdyn.equations.python_worker`), so that both report the same messages; the comparison with crossdyn's
F_i(q̇) = b_i q̇_i + f_c,i sign(q̇_i) is :mod:`crossdyn.checking.friction`.

A file may define ``F(qd, p)`` (also accepted: ``friction``; ``F(qd)`` with the parameters written as numbers;
``F(q, qd, p)``), returning the n-vector of friction torques; ``--names F=NAME`` maps another name.
"""
from __future__ import annotations

import inspect
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable

import numpy as np

from crossdyn.equations import progress
from crossdyn.equations.protocol import FRICTION_NAMES, UserFileError, fmt_vec, user_traceback
from crossdyn.equations.python_file import quiet

ARGS = {1: "(qd)", 2: "(qd, p)", 3: "(q, qd, p)"}
"""The friction function's arguments by how many it takes."""


def arity(fn: Callable[..., Any]) -> int | None:
    """How many arguments the friction function takes: 2 (qd, p), 1 (qd) or 3 (q, qd, p); None if none works."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return 2
    for k in (2, 1, 3):
        try:
            sig.bind(*([None] * k))
            return k
        except TypeError:
            pass
    return None


def find(module: Any, path: str | Path, names: dict[str, str]) -> tuple[str, Callable[..., Any], int] | None:
    """(name, function, arguments) of the module's friction function, or None; :class:`UserFileError` when
    ``--names`` maps F to something the file does not define or the function takes unusable arguments."""
    if "F" in names:
        name = names["F"]
        if not callable(getattr(module, name, None)):
            raise UserFileError(f"{path}: --names maps F to {name!r}, which the file does not define as a "
                                "function", function=name)
        candidates = [name]
    else:
        candidates = [c for c in FRICTION_NAMES if callable(getattr(module, c, None))]
    if not candidates:
        return None
    name = candidates[0]
    fn = getattr(module, name)
    k = arity(fn)
    if k is None:
        raise UserFileError(f"{path}: {name}{inspect.signature(fn)} cannot be called as {name}(qd, p), "
                            f"{name}(qd) or {name}(q, qd, p)", function=name)
    return name, fn, k


def values(path: str | Path, name: str, fn: Callable[..., Any], k: int, sets: Sequence[tuple[Any, str]], Q, QD,
           sink: io.StringIO) -> np.ndarray:
    """The user's F at every set × state, (S, N, n); ``sets``: (the user's ``p``, its label text) for each
    parameter set.  :class:`UserFileError` naming the call and the state (the user's traceback: frames in
    ``path``)."""
    S, N, n = len(sets), len(Q), Q.shape[1]
    sig = name + ARGS[k]
    out = np.empty((S, N, n))
    with quiet(sink):
        for s, (p, label) in enumerate(sets):
            for i in range(N):
                args = {1: (QD[i].copy(),), 2: (QD[i].copy(), p), 3: (Q[i].copy(), QD[i].copy(), p)}[k]
                where = f"at q = {fmt_vec(Q[i])}, qd = {fmt_vec(QD[i])}, with {label}"
                progress.enter(sig)     # for a grader that has to stop this check (timeout)
                try:
                    raw = fn(*args)
                except (Exception, SystemExit) as e:
                    raise UserFileError(f"{sig} raised {type(e).__name__}: {e}", function=name, where=where,
                                        user_traceback=user_traceback(e, Path(path))) from None
                finally:
                    progress.leave()
                out[s, i] = vector(raw, sig, name, n, where)
    return out


def vector(raw: Any, sig: str, name: str, n: int, where: str) -> np.ndarray:
    """``raw`` (what the user's F returned) as an n-vector of finite numbers, or :class:`UserFileError`."""
    try:
        a = np.asarray(raw, dtype=float)
    except (TypeError, ValueError) as e:
        raise UserFileError(f"{sig} returned {type(raw).__name__} that is not an array of real numbers "
                            f"({str(e).splitlines()[0]})", function=name, where=where) from None
    if a.size != n or (a.ndim > 1 and sorted(a.shape)[:-1] != [1] * (a.ndim - 1)):
        raise UserFileError(f"{sig} returned shape {a.shape}; expected ({n},) for this {n}-link arm", function=name,
                            where=where)
    a = a.reshape(n)
    if not np.all(np.isfinite(a)):
        raise UserFileError(f"{sig} returned NaN or an infinite value", function=name, where=where)
    return a
