"""Calling the user's M, C, G — and crossdyn's analytic reference — at every state × parameter set.

The user's functions are plain Python (one state at a time) or MATLAB run by GNU Octave (a whole batch in one
call).  Everything they print goes to a sink (reported as a note, never mixed into the report).  A NaN or an
infinite value, an exception or a wrong shape inside them raises :class:`UserFileError` naming the function,
the entry and the state.
"""
from __future__ import annotations

import copy
import dataclasses
import io
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np

from crossdyn import analytic
from crossdyn.checking.sampling import Sample
from crossdyn.models import ArmSpec
from crossdyn.equations.params import param_rows
from crossdyn.equations.python_file import (
    ROLE_NAMES, ParamSet, UserFileError, UserModel, fmt_vec, quiet, written_for_links,
)

QUANTITY_ROLE = {"M": "M", "Cqd": "C", "C": "C", "G": "G"}
"""The user's function each compared quantity comes from (C q̇ and the C matrix both from C)."""


class Equations(Protocol):
    """The user's equations as the checker calls them (:class:`UserModel` for Python; the Octave model for MATLAB
    also answers ``evaluate``, ``parts`` and ``free_swing``, a batch or a swing per call)."""

    n: int
    path: Any
    c_kind: str | None

    def has(self, role: str) -> bool: ...
    def takes_p(self, role: str) -> bool: ...
    def name(self, role: str) -> str: ...
    def signature(self, role: str) -> str: ...
    def describe(self) -> dict[str, str | None]: ...
    def M(self, q: Any, p: Any, ps: Any = None) -> np.ndarray: ...
    def G(self, q: Any, p: Any, ps: Any = None) -> np.ndarray: ...
    def C(self, q: Any, qd: Any, p: Any, ps: Any = None) -> tuple[str, np.ndarray]: ...
    def Cqd(self, q: Any, qd: Any, p: Any, ps: Any = None) -> np.ndarray: ...


class ParamsView(Protocol):
    """How an arm's parameter sets reach the user's functions: :data:`PLANAR_PARAMS` (a
    :class:`~crossdyn.equations.params.ParamSet` per set, ``p`` a :class:`UserParams`) or a spatial arm
    (:class:`~crossdyn.checking.spatial_arms.SpatialArm`: a dict of values per set, ``p`` a ``NamedParams`` of its
    :attr:`layout`)."""

    @property
    def layout(self) -> tuple[str, ...] | None:
        """The parameter names of a batch row (None: the planar row of :func:`param_rows`)."""

    def rows(self, sets: Sequence[Any]) -> np.ndarray:
        """(S, P) numbers of the sets, for a model that evaluates a whole batch (Octave, the sandbox)."""

    def labels(self, sets: Sequence[Any]) -> list[str]:
        """Each set in words (a batch's error messages)."""

    def user_params(self, sets: Sequence[Any], labels: list[str]) -> list[tuple[Any, Any]]:
        """Per set (``p`` for a Python file's functions, what their error messages say of the set)."""


class _PlanarParams:
    """:class:`ParamsView` of a planar arm: sets are :class:`ParamSet`, rows :func:`param_rows`."""

    layout = None

    def rows(self, sets: Sequence[ParamSet]) -> np.ndarray:
        return param_rows(list(sets))

    def labels(self, sets: Sequence[ParamSet]) -> list[str]:
        return [f"{ps.label} ({ps.describe()})" for ps in sets]

    def user_params(self, sets: Sequence[ParamSet], labels: list[str]) -> list[tuple[Any, Any]]:
        return [(ps.user, ps) for ps in sets]


PLANAR_PARAMS: ParamsView = _PlanarParams()


class Probed(Protocol):
    """What :func:`roles_ignoring_p` needs of an arm's plant (:class:`crossdyn.checking.plant.Plant` has it)."""

    @property
    def params(self) -> ParamsView: ...

    def probe_set(self, own: Any) -> Any: ...

    def reference(self, sample: Sample, user: dict[str, np.ndarray]) -> tuple[dict, dict, list[str]]: ...


def evaluate_user(model: Equations, params: ParamsView, sets: Sequence[Any], Q: np.ndarray, QD: np.ndarray,
                  sink: io.StringIO, roles: Iterable[str] = ("M", "C", "G")) -> dict[str, np.ndarray]:
    """The user's M, C, G at every state × parameter set, for either kind of arm (``params`` says how a set
    reaches the user's ``p``): "M" (S, N, n, n), "Cqd" (S, N, n), "C" (when a matrix), "G" (S, N, n).  A model
    with ``evaluate`` (Octave, the sandbox) does the whole batch in one call; what Octave printed goes to
    ``sink``.  A NaN or an infinite value raises :class:`UserFileError` naming the function, entry and state."""
    roles = tuple(roles)
    labels = params.labels(sets)
    batch = getattr(model, "evaluate", None)
    if batch is not None:
        raw = batch(Q, QD, params.rows(sets), roles=roles, labels=labels, layout=params.layout)
        printed = getattr(model, "printed", None)
        if printed:
            sink.write("".join(line + "\n" for line in printed))
            printed.clear()
        _finite_batch(model, raw, labels, Q, QD)
    else:
        raw = _evaluate_python(model, params.user_params(sets, labels), Q, QD, sink, roles)
    out = {k: np.asarray(raw[k], float) for k in ("M", "G") if raw.get(k) is not None}
    if raw.get("C") is not None:
        C = np.asarray(raw["C"], float)
        if model.c_kind == "matrix":
            out["C"] = C
            out["Cqd"] = np.einsum("skij,kj->ski", C, QD)
        else:
            out["Cqd"] = C
    return out


def _evaluate_python(model: Equations, users: list[tuple[Any, Any]], Q: np.ndarray, QD: np.ndarray,
                     sink: io.StringIO, roles: tuple[str, ...]) -> dict[str, np.ndarray]:
    """M, C, G of a Python file, one state at a time (a role not asked for or not defined is left out)."""
    n, S, N = model.n, len(users), len(Q)
    out: dict[str, np.ndarray] = {}
    with quiet(sink):
        for k, (p, tag) in enumerate(users):
            for i in range(N):
                q = Q[i]
                if model.has("M") and "M" in roles:
                    out.setdefault("M", np.empty((S, N, n, n)))[k, i] = model.M(q, p, tag)
                if model.has("C") and "C" in roles:
                    _, c = model.C(q, QD[i], p, tag)
                    out.setdefault("C", np.empty((S, N) + c.shape))[k, i] = c
                if model.has("G") and "G" in roles:
                    out.setdefault("G", np.empty((S, N, n)))[k, i] = model.G(q, p, tag)
    return out


def _finite_batch(model: Equations, raw: dict[str, np.ndarray], labels: list[str], Q: np.ndarray,
                  QD: np.ndarray) -> None:
    """UserFileError at the first NaN / infinite value of a batch, naming the function, entry and state."""
    for role, a in raw.items():
        bad = ~np.isfinite(a)
        if not bad.any():
            continue
        idx = tuple(int(x) for x in np.argwhere(bad)[0])
        k, i, entry = idx[0], idx[1], idx[2:]
        prefix = role if a.ndim == 4 or role != "C" else "C"
        what = "NaN" if np.isnan(a[idx]) else "an infinite value"
        where = f"at q = {fmt_vec(Q[i])}" + (f", qd = {fmt_vec(QD[i])}" if role == "C" else "")
        where += f", with {labels[k]}"
        raise UserFileError(f"{model.signature(role)} returned {what} (in {prefix}{''.join(str(j + 1) for j in entry)})",
                            function=model.name(role), where=where)


def evaluate_reference(sets: list[ParamSet], Q: np.ndarray, QD: np.ndarray | None,
                       want: set[str]) -> dict[str, np.ndarray]:
    """crossdyn's analytic M, C q̇, C matrix and G (those in ``want``) at every state × parameter set."""
    out = {}
    if "M" in want:
        out["M"] = np.stack([analytic.mass_matrix(ps.arm, Q) for ps in sets])
    if "Cqd" in want:
        out["Cqd"] = np.stack([analytic.coriolis(ps.arm, Q, QD) for ps in sets])
    if "C" in want:
        out["C"] = np.stack([analytic.coriolis_matrix(ps.arm, Q, QD) for ps in sets])
    if "G" in want:
        out["G"] = np.stack([analytic.gravity(ps.arm, Q) for ps in sets])
    return out


def only(model: Equations, roles: set[str]) -> Equations:
    """``model`` restricted to ``roles`` (a Python file's other functions are not called), else ``model``."""
    if not isinstance(model, UserModel):
        return model
    trial = copy.copy(model)
    trial.functions = {r: fn for r, fn in model.functions.items() if r in roles}
    return trial


def check_link_count(model: Equations, spec: ArmSpec, sample: Sample, sink: io.StringIO) -> None:
    """Call the file once at the arm's size (first state, own parameters); if that fails and the file works for
    another number of links, raise one :class:`UserFileError` naming the file, the arm and both counts."""
    try:
        evaluate_user(model, PLANAR_PARAMS, [sample.own], sample.Q[:1], sample.QD[:1], sink)
    except UserFileError as e:
        links = getattr(model, "written_for_links", None)          # a sandboxed Python file asks its worker
        found = (written_for_links(model, spec.gravity) if isinstance(model, UserModel) else
                 links(spec.gravity) if links is not None else None)
        if found is None:
            raise
        k, how = found
        raise UserFileError(f"{model.path}: your functions are written for {k} link{'s' if k > 1 else ''} "
                            f"({how}), but the arm {spec.name} has {spec.n} links; at {spec.n} links: "
                            f"{e.message}", function=e.function) from None
    finally:
        model.c_kind = None


def roles_ignoring_p(model: Equations, plant: Probed, sample: Sample, sink: io.StringIO) -> list[str]:
    """Roles whose function takes no p, or returns the same numbers (not all zero) at the arm's own parameters and
    at the plant's :meth:`~crossdyn.checking.plant.Plant.probe_set` (every parameter changed) where the reference's
    change, on the first 4 states: either kind of arm."""
    own = sample.own
    out = [r for r in ROLE_NAMES if model.has(r) and not model.takes_p(r)]
    probe = [r for r in ROLE_NAMES if model.has(r) and model.takes_p(r)]
    if probe:
        pair = dataclasses.replace(sample, Q=sample.Q[:4], QD=sample.QD[:4], sets=[own, plant.probe_set(own)])
        vals = evaluate_user(model, plant.params, pair.sets, pair.Q, pair.QD, sink, roles=probe)
        _, refs, _ = plant.reference(pair, dict.fromkeys(("M", "Cqd", "G"), np.zeros(0)))   # the keys ask for these
        for r in probe:
            key = {"M": "M", "C": "C" if "C" in vals else "Cqd", "G": "G"}[r]
            rkey = {"M": "M", "C": "Cqd", "G": "G"}[r]
            # it ignores p when its numbers stay put where the right ones change (a 1R's C = 0 does not count, nor a
            # function that returns zeros: no number is written in, and it reads the same at every set)
            if np.array_equal(vals[key][0], vals[key][1]) and np.any(vals[key][0]) and \
                    not np.array_equal(refs[rkey][0], refs[rkey][1]):
                out.append(r)
    return [r for r in ROLE_NAMES if r in out]


def parameters_read(model: Equations, plant: Probed, sample: Sample, sink: io.StringIO) -> tuple[Sample, str]:
    """(``sample``, ""), or, when some function does not read p (parameters written as numbers, so other
    parameter sets cannot reach the equations), the sample at the arm's own parameters and the note that says so:
    the one rule for every kind of arm (:func:`crossdyn.checking.checker.run_check` applies it after the plant's
    own ``prepare`` steps)."""
    no_p = roles_ignoring_p(model, plant, sample, sink)
    if not no_p:
        return sample, ""
    which = ", ".join(model.signature(r) for r in no_p)
    return sample.only_own(), (f"{which} {'does' if len(no_p) == 1 else 'do'} not read p (parameters written as "
                               "numbers), so random parameter sets cannot apply: everything is checked at the arm's "
                               "own parameters only")
