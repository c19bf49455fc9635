"""The user's joint friction F(q̇), when their file defines one, against crossdyn's: entry by entry, like G.

crossdyn's equations of motion are M q̈ + C q̇ + G + F(q̇) = τ with

    F_i(q̇) = b_i q̇_i + f_c,i sign(q̇_i)

(viscous damping ``b`` and Coulomb friction ``f_c`` of each joint: :func:`crossdyn.analytic.dynamics.friction`).
A file may define it as ``F(qd, p)`` (also accepted: ``friction``; ``F(qd)`` with the parameters written as
numbers; ``F(q, qd, p)``), returning the n-vector of friction torques; ``--names F=NAME`` maps another name.

It is compared at the check's random states (q̇ never exactly 0) and parameter sets, whose ``b`` and ``f_c`` are
drawn anew for every random set (the arm's own are kept in its own set): a file that writes the arm's numbers
instead of ``p.b1``/``p.fc1`` is caught, and so is one that leaves friction out for an arm that has none.  An entry
is wrong at a set when its largest error exceeds ``RTOL`` × the largest friction torque there + ``ATOL``
(:func:`crossdyn.checking.entries.compare`).  A wrong entry says which law the user's values follow: the least-squares
fit of F_i to a q̇_i + c sign(q̇_i) + d at the worst set, against b_i and f_c,i.

A Python file's F is found and called by :mod:`crossdyn.equations.user_friction`: in the sandboxed worker
(``find_friction``/``friction_values`` of :class:`~crossdyn.equations.python_sandboxed.SandboxedModel`, one round
trip for the whole batch) or, with ``--sandbox off``, in the check's own process; the messages are the same.
A MATLAB file's F is called by Octave one state at a time (``crossdyn_each__`` of crossdyn's Octave helpers).
"""
from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from crossdyn import analytic
from crossdyn.checking.entries import Compared, _entry, compare
from crossdyn.checking.results import EntryFinding
from crossdyn.checking.sampling import Sample
from crossdyn.equations import user_friction
from crossdyn.equations.params import ParamSet
from crossdyn.equations.protocol import FRICTION_NAMES, UserFileError, fmt_vec
from crossdyn.equations.user_friction import ARGS

B_RANGE = (0.01, 0.5)
"""N m s/rad: the viscous damping b of each joint in a random parameter set, uniform."""
FC_RANGE = (0.05, 2.0)
"""N m: the Coulomb friction f_c of each joint in a random parameter set, uniform."""


@dataclass(frozen=True)
class FrictionCheck:
    """What became of the file's friction function: its call (None: the file defines none), the entries compared
    (summary rows and findings as for M, C, G), and the sentence for the notes."""

    signature: str | None
    rows: list[dict[str, Any]] = field(default_factory=list)
    findings: list[EntryFinding] = field(default_factory=list)
    compared: Compared | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """``friction`` of check.json."""
        return {"function": self.signature, "checked": self.compared is not None, "note": self.note,
                "wrong_entries": [f.entry for f in self.findings]}


def _find_python(model, names: dict[str, str]) -> tuple[str, Callable[..., Any], int] | None:
    module = getattr(model, "module", None)
    return None if module is None else user_friction.find(module, model.path, names)


def _find_octave(model, names: dict[str, str]) -> tuple[str, int] | None:
    """(name, arguments) of the MATLAB file's friction function, or None."""
    from crossdyn.equations.octave_session import octave_string

    wanted = [names["F"]] if "F" in names else list(FRICTION_NAMES)
    lines = model.call(f"crossdyn_probe__({{{', '.join(octave_string(w) for w in wanted)}}});",
                       "looking up your friction function")
    info = {parts[1]: (int(parts[2]), int(parts[3])) for parts in (ln.split() for ln in lines)
            if parts and parts[0] == "@@FN@@"}
    name = next((w for w in wanted if info.get(w, (0, 0))[0] in (2, 103)), None)
    if name is None:
        if "F" in names:
            raise UserFileError(f"{model.path}: --names maps F to {names['F']!r}, which the file does not define as "
                                "a function", function=names["F"])
        return None
    nargs = info[name][1]
    if nargs == 0:
        raise UserFileError(f"{model.path}: {name} takes no arguments; expected {name}(qd, p), {name}(qd) or "
                            f"{name}(q, qd, p)", function=name)
    return name, (nargs if nargs in (1, 2, 3) else 2)    # < 0: varargin, or a script's local function


def _octave_values(model, name: str, k: int, sets: list[ParamSet], Q, QD) -> np.ndarray:
    """The MATLAB file's F at every set × state, (S, N, n), one Octave call for them all."""
    from crossdyn.equations.octave_model import _with_armature
    from crossdyn.equations.octave_session import octave_string
    from crossdyn.equations.params import param_rows

    S, N, n = len(sets), len(Q), Q.shape[1]
    tmp = Path(model.session.tmpdir)
    inp, outp = tmp / "friction_in.bin", tmp / "friction_out.bin"
    P = _with_armature(param_rows(sets), n)
    np.concatenate([[n, N, S, 1.0], np.ravel(Q), np.ravel(QD), P.ravel()]).astype("<f8").tofile(inp)
    sig = name + ARGS[k]
    lines = model.call(f"crossdyn_each__({octave_string(inp)}, {octave_string(outp)}, {octave_string(name)}, {k});",
                       sig)
    err = next((ln for ln in lines if ln.startswith("@@EACHERR@@")), None)
    if err is not None:
        _, s, i, *msg = err.split(" ", 3) + [""]
        s_, i_ = max(int(s) - 1, 0), max(int(i) - 1, 0)
        raise UserFileError(f"{sig}: {' '.join(msg).strip()}", function=name,
                            where=f"at q = {fmt_vec(Q[i_])}, qd = {fmt_vec(QD[i_])}, with {sets[s_].label} "
                                  f"({sets[s_].describe()})")
    if "@@OK@@" not in lines:
        raise UserFileError(f"{sig}: Octave returned no values ({'; '.join(lines[-3:])})", function=name)
    out = np.fromfile(outp, "<f8").reshape(S, N, n)
    if not np.all(np.isfinite(out)):
        raise UserFileError(f"{sig} returned NaN or an infinite value", function=name)
    return out


def _sets(sample: Sample, k: int, seed: int) -> list[ParamSet]:
    """The parameter sets F is compared at: the arm's own alone for F(qd) (its numbers written in), else
    :func:`friction_sets` (drawn from their own generator: the check's other draws do not change)."""
    return [sample.own] if k == 1 else friction_sets(sample, np.random.default_rng([seed, 7]))


def friction_sets(sample: Sample, rng: np.random.Generator) -> list[ParamSet]:
    """The sample's parameter sets with ``b`` and ``f_c`` drawn anew for every random set (module docstring)."""
    out = [sample.sets[0]]
    for ps in sample.sets[1:]:
        n = len(ps.L)
        out.append(ParamSet(ps.index, ps.L, ps.m, ps.Lc, ps.J, rng.uniform(*B_RANGE, n), rng.uniform(*FC_RANGE, n),
                            ps.gravity, ps.armature))
    return out


def _reading(user: np.ndarray, qd: np.ndarray, ps: ParamSet, j: int) -> str:
    """Which law entry j of the user's F follows at one set: a q̇_j + c sign(q̇_j) + d fitted, against b_j, f_c,j."""
    A = np.column_stack([qd, np.sign(qd), np.ones_like(qd)])
    coef, *_ = np.linalg.lstsq(A, user, rcond=None)
    fit = A @ coef
    scale = max(float(np.max(np.abs(user))), 1e-12)
    expected = f"expected b{j + 1}*qd{j + 1} + fc{j + 1}*sign(qd{j + 1}) = {ps.b[j]:.4g}*qd{j + 1} + " \
               f"{ps.fc[j]:.4g}*sign(qd{j + 1})"
    if float(np.max(np.abs(fit - user))) > 1e-6 * scale:
        return (f"your F{j + 1} is not of the form a*qd{j + 1} + c*sign(qd{j + 1}) (it depends on something else: "
                f"q, another joint's qd, …); {expected}")
    a, c, d = (0.0 if abs(float(x)) < 1e-9 * scale else float(x) for x in coef)  # rounding: 0
    law = f"{a:.4g}*qd{j + 1} + {c:.4g}*sign(qd{j + 1})" + (f" + {d:.4g}" if d else "")
    return f"your F{j + 1} = {law}; {expected}"


def check_friction(model, sample: Sample, sink: io.StringIO, names: dict[str, str] | None,
                   seed: int) -> FrictionCheck:
    """Find the file's friction function and compare it with crossdyn's F(q̇) (module docstring)."""
    names = names or {}
    n = sample.Q.shape[1]
    has_friction = bool(np.any(sample.own.b) or np.any(sample.own.fc))
    if getattr(model, "language", "python") == "matlab":
        found_m = _find_octave(model, names)
        if found_m is None:
            return _absent(has_friction)
        name, k = found_m
        sets = _sets(sample, k, seed)
        user = _octave_values(model, name, k, sets, sample.Q, sample.QD)
    elif hasattr(model, "find_friction"):      # a sandboxed worker: it finds and calls F (the same messages)
        found_s = model.find_friction(names)
        if found_s is None:
            return _absent(has_friction)
        name, k = found_s
        sets = _sets(sample, k, seed)
        user = model.friction_values(name, k, sets, sample.Q, sample.QD)
    else:
        found = _find_python(model, names)
        if found is None:
            return _absent(has_friction)
        name, fn, k = found
        sets = _sets(sample, k, seed)
        labels = [(ps.user, f"{ps.label} ({ps.describe()})") for ps in sets]
        user = user_friction.values(model.path, name, fn, k, labels, sample.Q, sample.QD, sink)
    ref = np.stack([analytic.dynamics.friction(ps.arm, sample.QD) for ps in sets])
    cmp_ = compare("F", user, ref)
    fsample = dataclasses.replace(sample, sets=sets)
    rows, findings = [], []
    for j in range(n):
        row, finding = _entry(cmp_, (j,), fsample, False, False)
        rows.append(row)
        if finding is not None:
            k_worst = finding.worst_param_set
            msg = _reading(user[k_worst, :, j], sample.QD[:, j], sets[k_worst], j)
            findings.append(dataclasses.replace(finding, messages=[msg]))
    sig = name + ARGS[k]
    note = f"{sig} compared with crossdyn's friction F_i = b_i*qd_i + fc_i*sign(qd_i) at every state and " + (
        f"parameter set (b and fc drawn anew for the {len(sets) - 1} random sets)" if len(sets) > 1 else
        "the arm's own parameters" + (" only: it does not read p" if k == 1 else ""))
    return FrictionCheck(sig, rows, findings, cmp_, note)


def _absent(has_friction: bool) -> FrictionCheck:
    note = ("your file defines no friction function (looked for " + " / ".join(FRICTION_NAMES) + "): this arm's "
            "friction F(qd) = b*qd + fc*sign(qd) is not checked") if has_friction else ""
    return FrictionCheck(None, note=note)
