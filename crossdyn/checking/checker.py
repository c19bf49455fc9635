"""``crossdyn check``: verify hand-derived M(q), C(q, q̇), G(q) against the analytic reference.

The user writes a Python file defining

* ``M(q, p)`` → n×n (also accepted: ``mass_matrix``),
* ``C(q, qd, p)`` → the n×n matrix C (so that C q̇ is the Coriolis/centrifugal
  torque) *or* the n-vector C q̇ — told apart by shape (also accepted:
  ``coriolis``, ``bias``),
* ``G(q, p)`` → the n-vector on the left-hand side, M q̈ + C q̇ + G = τ
  (also accepted: ``gravity``),

any of which may be missing; ``names={"M": "my_mass", …}`` maps other names.
``p`` (:class:`UserParams`) carries the parameters both as 0-based sequences
(``p.m``, ``p.L``, ``p.Lc``, ``p.J``, ``p.b``, ``p.fc``) and as 1-based scalars
(``p.m1``, ``p.L1`` = ``p.l1``, ``p.Lc1`` = ``p.lc1``, ``p.J1`` = ``p.I1``, ``p.b1``,
``p.fc1``, …), plus ``p.g`` = |gravity| (in-plane), ``p.gx``, ``p.gy`` and ``p.n``.

What :func:`check` does
-----------------------
1. Evaluates the user's functions, one state at a time (they are plain Python),
   at N random states (q uniform in [−π, π], q̇ in [−2, 2] rad/s) for the arm's
   own parameters and for K random valid parameter sets, and compares every
   entry of M, of C q̇, of the C matrix (when one is given) and of G with the
   analytic reference (:mod:`crossdyn.analytic`).  An entry is wrong at a
   parameter set when its largest error exceeds :data:`RTOL` × the largest
   magnitude of that quantity at that set (rounding is ~1e-15).
   Random parameter sets draw L in [0.4, 1.6] m and m in [0.5, 2.5] kg and keep
   each link's kind: a uniform rod keeps Lc = L/2, J = mL²/12; a point mass
   keeps Lc = L, J = 0 (so equations written for that kind of link are not
   flagged); a general link draws Lc inside the link and J ≥ 0 (J stays 0 if
   it is 0).  Gravity (direction and magnitude) stays the arm's.  Random sets
   exist because errors hide behind special values: with L1 = 1 m, L1² = L1.
2. Structural checks on the user's equations alone: M symmetric and positive
   definite; Ṁ − 2C skew-symmetric when a C matrix is given (Ṁ by a central
   finite difference of the user's M along q̇); energy conservation when the
   user's equations are integrated in free motion with crossdyn's RK4
   (E = ½ q̇ᵀ M_user q̇ + U, U the analytic potential; missing functions are
   taken from the reference and the report says so).
3. One mistake that explains many entries comes first (:func:`_explanations`):
   a quantity that is exactly α × the expected one (the opposite sign of G, a
   factor of 2 throughout M, C or G), C q̇ + G returned as C, a transposed C —
   and, when most entries are wrong, a preset with as many links whose check the
   file passes (:func:`_matching_arm`: "your file matches planar2r-pointmass,
   not planar2r").  The entries it accounts for get no term-by-term lists.
4. For every other wrong entry, a diagnosis (:mod:`crossdyn.checking.diagnosis`):
   the terms whose coefficients are off, with found and expected values, the
   polynomial the coefficient error follows across the parameter sets, and
   which parameters the entry depends on that it should not (or vice versa).
   The polynomial is named in the parameters the file uses: when the file reads
   a rod's (or point mass's) Lc or J, further parameter sets with those free
   (:func:`_general_sets`, diagnosis only) tell ``m3*L2*Lc3`` from ``1/2*m3*L2*L3``.

A file written for another number of links (it fails at the arm's n but runs,
with k-sized results, at k links) is reported as such, naming both counts.

A file that cannot be used — import error, missing or non-callable functions,
wrong shapes, exceptions or non-finite values inside the user's functions —
raises :class:`UserFileError` naming the function and the state, with the
user's traceback (frames in their file only).
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import io
import itertools
import math
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from crossdyn import analytic
from crossdyn.analytic.integrators import STEPS
from crossdyn.checking import diagnosis
from crossdyn.models import ArmSpec, load_arm
from crossdyn.equations.loader import load_model, param_rows
from crossdyn.equations.python_file import (  # noqa: F401  (names the checker's users also reach here)
    ROLE_ARGS, ROLE_NAMES, ParamSet, UserFileError, UserModel, UserParams, fmt_vec, own_params, parse_names, quiet,
    written_for_links,
)

RTOL = 1e-6
"""An entry is wrong when its error exceeds RTOL × the quantity's largest magnitude at that parameter set."""
ATOL = 1e-12
ENERGY_TOL = 1e-6
"""Allowed energy drift in free motion, relative to the arm's energy scale (RK4 at 2 ms gives ~1e-10)."""
GENERAL_SETS = 24
GENERAL_MAX_STATES = 200
"""Parameter sets with a rod's Lc and J free, used only to name differences (see :func:`_general_sets`)."""
DEFAULT_STATES = 1000
DEFAULT_RANDOM_PARAMS = 20

UNITS = {"M": "kg m^2", "Cqd": "N m", "C": "N m s", "G": "N m"}
QUANTITY_ROLE = {"M": "M", "Cqd": "C", "C": "C", "G": "G"}


# =============================================================================== parameter sets

def link_kinds(spec: ArmSpec) -> list[str]:
    """``"rod"`` (Lc = L/2, J = mL²/12), ``"point"`` (Lc = L, J = 0) or ``"general"`` per link."""
    kinds = []
    for l in spec.links:
        if math.isclose(l.com, l.length, rel_tol=1e-9) and l.inertia == 0:
            kinds.append("point")
        elif math.isclose(l.com, l.length / 2, rel_tol=1e-9) and \
                math.isclose(l.inertia, l.mass * l.length**2 / 12, rel_tol=1e-9):
            kinds.append("rod")
        else:
            kinds.append("general")
    return kinds


def random_param_sets(spec: ArmSpec, count: int, rng: np.random.Generator) -> list[ParamSet]:
    """``count`` random valid parameter sets that keep each link's kind and the arm's gravity."""
    kinds = link_kinds(spec)
    base = own_params(spec)
    out = []
    for k in range(1, count + 1):
        L, m, Lc, J = _draw_links(rng, kinds, base.J)
        out.append(ParamSet(k, L, m, Lc, J, base.b, base.fc, spec.gravity, base.armature))  # armature kept
    return out


def _draw_links(rng: np.random.Generator, kinds: list[str], own_J, free=frozenset()):
    """Random L in [0.4, 1.6] m and m in [0.5, 2.5] kg per link, with Lc and J following each link's kind (a rod:
    L/2, mL²/12; a point mass: L, 0; a general link: Lc inside the link, J ≥ 0, kept 0 where the arm's is 0);
    then, for (name, link) in ``free``, Lc or J drawn freely whatever the kind."""
    n = len(kinds)
    L = rng.uniform(0.4, 1.6, n)
    m = rng.uniform(0.5, 2.5, n)
    Lc, J = np.empty(n), np.empty(n)
    for i, kind in enumerate(kinds):
        if kind == "rod":
            Lc[i], J[i] = L[i] / 2, m[i] * L[i] ** 2 / 12
        elif kind == "point":
            Lc[i], J[i] = L[i], 0.0
        else:
            Lc[i] = L[i] * rng.uniform(0.15, 0.85)
            J[i] = 0.0 if own_J[i] == 0 else m[i] * L[i] ** 2 * rng.uniform(0.01, 0.12)
        if ("Lc", i) in free:
            Lc[i] = L[i] * rng.uniform(0.15, 0.85)
        if ("J", i) in free:
            J[i] = m[i] * L[i] ** 2 * rng.uniform(0.01, 0.12)
    return L, m, Lc, J


def free_parameters(kinds: list[str], own: ParamSet) -> list[tuple[str, int]]:
    """The independent parameters per link: L, m always; Lc and J for general links (J if non-zero)."""
    out = []
    for i, kind in enumerate(kinds):
        out += [("L", i), ("m", i)]
        if kind == "general":
            out.append(("Lc", i))
            if own.J[i] != 0:
                out.append(("J", i))
    return out


def perturbed(ps: ParamSet, kinds: list[str], name: str, i: int, factor: float) -> ParamSet:
    """``ps`` with parameter ``name`` of link i scaled by ``factor``; a rod's or point's Lc and J follow."""
    L, m, Lc, J = ps.L.copy(), ps.m.copy(), ps.Lc.copy(), ps.J.copy()
    {"L": L, "m": m, "Lc": Lc, "J": J}[name][i] *= factor
    if kinds[i] == "rod":
        Lc[i], J[i] = L[i] / 2, m[i] * L[i] ** 2 / 12
    elif kinds[i] == "point":
        Lc[i], J[i] = L[i], 0.0
    return ps.with_values(L=L, m=m, Lc=Lc, J=J)


def special_values(own: ParamSet) -> list[tuple[set, str]]:
    """Parameter values of the arm that can hide errors (a 1, or two equal values), with the parameters involved."""
    out = []
    n = len(own.L)
    for i in range(n):
        if own.L[i] == 1.0:
            out.append(({f"L{i + 1}"}, f"L{i + 1} = 1 m, so L{i + 1}^2 = L{i + 1}"))
        if own.m[i] == 1.0:
            out.append(({f"m{i + 1}"}, f"m{i + 1} = 1 kg"))
    for name in ("L", "m"):
        arr = getattr(own, name)
        for i, j in itertools.combinations(range(n), 2):
            if arr[i] == arr[j]:
                out.append(({f"{name}{i + 1}", f"{name}{j + 1}"}, f"{name}{i + 1} = {name}{j + 1}"))
    return out


def _roles_ignoring_p(model, own: ParamSet, Q, QD, sink) -> list[str]:
    """Roles whose function takes no p, or returns the same numbers for two different parameter sets."""
    out = [r for r in ROLE_NAMES if model.has(r) and not model.takes_p(r)]
    probe = [r for r in ROLE_NAMES if model.has(r) and model.takes_p(r)]
    if probe:
        # lengths x1.3, masses x1.7: every link keeps its kind (a rod's Lc = L/2 and J = mL²/12, a point mass's
        # Lc = L and J = 0), so a file written for its arm's kind of links runs there too
        other = ParamSet(-1, own.L * 1.3, own.m * 1.7, own.Lc * 1.3, own.J * 1.7 * 1.3**2, own.b, own.fc,
                         own.gravity)
        vals = _evaluate_user(model, [own, other], Q[:4], QD[:4], sink, roles=probe)
        refs = _evaluate_reference([own, other], Q[:4], QD[:4], {"M", "Cqd", "G"})
        for r in probe:
            key = {"M": "M", "C": "C" if "C" in vals else "Cqd", "G": "G"}[r]
            rkey = {"M": "M", "C": "Cqd", "G": "G"}[r]
            # it ignores p when its numbers stay put where the right ones change (a 1R's C = 0 does not count)
            if np.array_equal(vals[key][0], vals[key][1]) and not np.array_equal(refs[rkey][0], refs[rkey][1]):
                out.append(r)
    return [r for r in ROLE_NAMES if r in out]


# =============================================================================== results

@dataclass
class EntryFinding:
    """One entry that is wrong (or, for a valid non-Christoffel C matrix, noteworthy)."""

    entry: str
    quantity: str           # "M", "Cqd", "C", "G"
    index: tuple
    status: str             # "wrong" | "note"
    unit: str
    max_abs_error: float
    max_rel_error: float | None       # None when the reference quantity is identically 0
    worst_param_set: int
    worst_q: list
    worst_qd: list | None
    wrong_param_sets: list
    n_param_sets: int
    hidden_by_own_params: bool = False
    mirror: str | None = None                          # "M31" for M13 when the user's M is symmetric
    terms: list = field(default_factory=list)          # list[diagnosis.TermDiff]
    terms_param_set: int | None = None
    unexplained: float | None = None
    basis_note: str = ""
    dependence: list = field(default_factory=list)     # list[str]
    messages: list = field(default_factory=list)       # list[str]: the diagnosis, in sentences
    explained_by: str | None = None                    # the one global explanation that accounts for it

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in (
            "entry", "quantity", "status", "unit", "max_abs_error", "max_rel_error", "worst_param_set", "worst_q",
            "worst_qd", "wrong_param_sets", "n_param_sets", "hidden_by_own_params", "mirror", "terms_param_set",
            "unexplained", "basis_note", "dependence", "messages", "explained_by")}
        d["index"] = [i + 1 for i in self.index]
        d["terms"] = [t.to_dict() for t in self.terms]
        return d


@dataclass
class StructuralCheck:
    name: str
    status: str   # "ok" | "failed" | "note" | "skipped"
    message: str
    value: float | None = None
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"name": self.name, "status": self.status, "message": self.message, "value": self.value,
                "details": self.details}


@dataclass
class CheckResult:
    """Everything :func:`check` found; ``exit_code`` is 0 (all match) or 1 (something wrong)."""

    arm: str
    arm_spec: dict
    file: str
    n: int
    functions: dict
    c_form: str | None
    states: int
    random_params: int
    seed: int
    verdict: str                 # "correct" | "wrong"
    findings: list               # list[EntryFinding] (wrong entries and notes)
    entries: list                # per-entry summary dicts (every entry compared)
    structure: list              # list[StructuralCheck]
    notes: list
    hints: list                  # kept in check.json; whole-quantity patterns are now in ``explanations``
    param_sets: list
    runtime_s: float = 0.0
    rtol: float = RTOL
    explanations: list = field(default_factory=list)   # list[dict]: one mistake that explains many entries, first
    params_note: str = ""        # set when the functions do not read p (then only the arm's own parameters)
    language: str = "python"     # "python" | "matlab" (run by GNU Octave)

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict == "correct" else 1

    @property
    def passed(self) -> bool:
        """True when every entry and every structural check is right (exit code 0)."""
        return self.exit_code == 0

    @property
    def wrong(self) -> list:
        return [f for f in self.findings if f.status == "wrong"]

    def finding(self, entry: str) -> EntryFinding | None:
        return next((f for f in self.findings if f.entry == entry), None)

    def to_dict(self) -> dict:
        return {
            "tool": "crossdyn check", "arm": self.arm, "arm_spec": self.arm_spec, "file": self.file, "n": self.n,
            "functions": self.functions, "c_form": self.c_form, "states": self.states,
            "random_params": self.random_params, "seed": self.seed, "rtol": self.rtol,
            "verdict": self.verdict, "exit_code": self.exit_code,
            "wrong_entries": [f.entry for f in self.wrong],
            "findings": [f.to_dict() for f in self.findings], "entries": self.entries,
            "structure": [s.to_dict() for s in self.structure], "notes": self.notes, "hints": self.hints,
            "param_sets": self.param_sets, "runtime_s": self.runtime_s, "explanations": self.explanations,
            "params_note": self.params_note, "language": self.language,
        }


# =============================================================================== evaluation

def entry_name(prefix: str, index: tuple, n: int) -> str:
    sep = "," if n >= 10 else ""
    return prefix + sep.join(str(i + 1) for i in index)


def _evaluate_user(model: UserModel, sets: list[ParamSet], Q, QD, sink, roles=("M", "C", "G")) -> dict:
    """The user's M, C, G at every state × parameter set: "M" (S, N, n, n), "Cqd" (S, N, n), "C" (when a
    matrix), "G" (S, N, n).  A model with ``evaluate`` (Octave) does the whole batch in one call."""
    n, S, N = model.n, len(sets), len(Q)
    out = {}
    if hasattr(model, "evaluate"):
        raw = model.evaluate(Q, QD, param_rows(sets), roles=roles,
                             labels=[f"{ps.label} ({ps.describe()})" for ps in sets])
        _finite_batch(model, raw, sets, Q, QD)
        Mu, Cu, Gu = raw.get("M"), raw.get("C"), raw.get("G")
    else:
        Mu = np.empty((S, N, n, n)) if model.has("M") and "M" in roles else None
        Gu = np.empty((S, N, n)) if model.has("G") and "G" in roles else None
        Cu = None
        with quiet(sink):
            for k, ps in enumerate(sets):
                p = ps.user
                for i in range(N):
                    q = Q[i]
                    if Mu is not None:
                        Mu[k, i] = model.M(q, p, ps)
                    if model.has("C") and "C" in roles:
                        kind, c = model.C(q, QD[i], p, ps)
                        if Cu is None:
                            Cu = np.empty((S, N) + c.shape)
                        Cu[k, i] = c
                    if Gu is not None:
                        Gu[k, i] = model.G(q, p, ps)
    if Mu is not None:
        out["M"] = Mu
    if Gu is not None:
        out["G"] = Gu
    if Cu is not None:
        if model.c_kind == "matrix":
            out["C"] = Cu
            out["Cqd"] = np.einsum("skij,kj->ski", Cu, QD)
        else:
            out["Cqd"] = Cu
    return out


def _finite_batch(model, raw: dict, sets, Q, QD) -> None:
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
        where += f", with {sets[k].label} ({sets[k].describe()})"
        raise UserFileError(f"{model.signature(role)} returned {what} (in {prefix}{''.join(str(j + 1) for j in entry)})",
                            function=model.name(role), where=where)


def _evaluate_reference(sets: list[ParamSet], Q, QD, want: set) -> dict:
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


def _entries(quantity: str, n: int) -> list[tuple]:
    if quantity in ("M", "C"):
        return [(i, j) for i in range(n) for j in range(n)]
    return [(i,) for i in range(n)]


def _prefix(quantity: str) -> str:
    return {"M": "M", "C": "C", "Cqd": "Cqd", "G": "G"}[quantity]


@dataclass
class _Compared:
    quantity: str
    user: np.ndarray        # (S, N, …)
    ref: np.ndarray
    tol: np.ndarray         # (S,)
    qscale: np.ndarray      # (S,)
    err: np.ndarray         # (S, N, …) absolute
    wrong: np.ndarray       # (S, …) bool: entry wrong at set


def _compare(quantity: str, user: np.ndarray, ref: np.ndarray) -> _Compared:
    S = user.shape[0]
    axes = tuple(range(1, ref.ndim))
    qscale = np.max(np.abs(ref), axis=axes) if ref.size else np.zeros(S)
    tol = RTOL * qscale + ATOL
    err = np.abs(user - ref)
    emax = err.max(axis=1)                                       # (S, …)
    wrong = emax > tol.reshape((S,) + (1,) * (emax.ndim - 1))
    return _Compared(quantity, user, ref, tol, qscale, err, wrong)


# =============================================================================== structure

def _check_symmetric(Mu: np.ndarray, Mr: np.ndarray) -> StructuralCheck:
    asym = np.abs(Mu - np.swapaxes(Mu, -1, -2))
    scale = np.max(np.abs(Mr), axis=(1, 2, 3))
    rel = asym.max(axis=(1, 2, 3)) / np.maximum(scale, 1e-300)
    worst = float(asym.max())
    if np.all(rel <= RTOL):
        return StructuralCheck("M symmetric", "ok", f"max |M - M^T| = {worst:.3g} kg m^2", worst)
    k, i, a, b = np.unravel_index(np.argmax(asym), asym.shape)
    return StructuralCheck("M symmetric", "failed",
                           f"M{a + 1}{b + 1} - M{b + 1}{a + 1} = "
                           f"{Mu[k, i, a, b] - Mu[k, i, b, a]:.4g} kg m^2 (max |M - M^T| = {worst:.3g})",
                           worst, {"param_set": int(k), "state": int(i)})


def _check_positive_definite(Mu: np.ndarray, Q, sets) -> StructuralCheck:
    sym = 0.5 * (Mu + np.swapaxes(Mu, -1, -2))
    eig = np.linalg.eigvalsh(sym)[..., 0]                       # (S, N) smallest
    k, i = np.unravel_index(np.argmin(eig), eig.shape)
    lo = float(eig[k, i])
    scale = float(np.max(np.abs(np.linalg.eigvalsh(sym)[..., -1])))
    if lo > 1e-12 * scale:
        return StructuralCheck("M positive definite", "ok", f"smallest eigenvalue {lo:.4g} kg m^2", lo)
    return StructuralCheck("M positive definite", "failed",
                           f"smallest eigenvalue {lo:.4g} kg m^2, at q = {fmt_vec(Q[i])} "
                           f"with {sets[k].label}", lo, {"param_set": int(k), "q": Q[i].tolist()})


def _check_skew(model: UserModel, sets, Q, QD, Cu: np.ndarray, Mr_scale: np.ndarray, sink,
                per_set: int = 40, eps: float = 1e-6) -> StructuralCheck:
    """N = Ṁ − 2C with Ṁ = (M(q + ε q̇) − M(q − ε q̇)) / 2ε from the user's M; N + Nᵀ must vanish."""
    worst, where = 0.0, None
    rel_worst = 0.0
    n_states = min(per_set, len(Q))
    Qs, QDs = Q[:n_states], QD[:n_states]
    Mplus = _evaluate_user(model, sets, Qs + eps * QDs, QDs, sink, roles=("M",))["M"]
    Mminus = _evaluate_user(model, sets, Qs - eps * QDs, QDs, sink, roles=("M",))["M"]
    N_ = (Mplus - Mminus) / (2 * eps) - 2 * Cu[:, :n_states]                     # (S, states, n, n)
    sym = np.max(np.abs(N_ + np.swapaxes(N_, -1, -2)), axis=(-1, -2))            # (S, states)
    qd_scale = float(np.max(np.abs(QDs))) or 1.0
    rel = sym / (np.maximum(Mr_scale, 1e-300)[:, None] * qd_scale)
    if rel.size:
        k, i = np.unravel_index(np.argmax(rel), rel.shape)
        rel_worst, worst, where = float(rel[k, i]), float(sym[k, i]), (int(k), int(i))
    msg = f"max |N + N^T| = {worst:.3g} N m s for N = Mdot - 2C (Mdot by central differences of your M)"
    status = "ok" if rel_worst <= 1e-5 else "failed"
    details = {}
    if where is not None and status != "ok":
        k, i = where
        details = {"param_set": int(k), "q": Q[i].tolist(), "qd": QD[i].tolist()}
        msg += f", worst at q = {fmt_vec(Q[i])}, qd = {fmt_vec(QD[i])} with {sets[k].label}"
    return StructuralCheck("Mdot - 2C skew-symmetric", status, msg, worst, details)


def _check_energy(model: UserModel, spec: ArmSpec, own: ParamSet, rng, sink, starts: int = 2,
                  dt: float = 2e-3, duration: float = 0.5) -> StructuralCheck:
    """Integrate the user's M q̈ + C q̇ + G = 0 (no friction, τ = 0) with RK4; E = ½q̇ᵀM_user q̇ + U.

    The same RK4 integrates crossdyn's model from the same starts; the allowed drift is
    the larger of :data:`ENERGY_TOL` and 10 × the reference's own drift, so integration
    error (which a fast multi-link swing can make ~1e-6) is never blamed on the user.
    """
    p = own.user
    arm = own.arm._replace(b=np.zeros_like(own.arm.b), fc=np.zeros_like(own.arm.fc))
    subs = [r for r in ("C", "G") if not model.has(r)]
    where = "in the energy check (free motion from a random start)"

    def fd(q, qd, tau):
        if hasattr(model, "parts"):                  # one call for all three (Octave)
            M, c, g = model.parts(q, qd, p, where)
        else:
            M = model.M(q, p, where)
            c = model.Cqd(q, qd, p, where) if model.has("C") else None
            g = model.G(q, p, where) if model.has("G") else None
        h = c if c is not None else analytic.coriolis(arm, q, qd)
        h = h + (g if g is not None else analytic.gravity(arm, q))
        return np.linalg.solve(M, tau - h)

    def fd_ref(q, qd, tau):
        return analytic.forward_dynamics(arm, q, qd, tau)

    def energy(q, qd):
        return 0.5 * qd @ model.M(q, p, where) @ qd + float(analytic.potential_energy(arm, q))

    def energy_ref(q, qd):
        return float(analytic.total_energy(arm, q, qd))

    step = STEPS["rk4"]
    fast = hasattr(model, "free_swing") and not subs
    steps = int(round(duration / dt))
    scale = spec.energy_scale()
    drift, ref_drift, worst_start = 0.0, 0.0, None
    zero = np.zeros(spec.n)
    name = "energy conserved in free motion"
    with quiet(sink):
        for s in range(starts):
            q0 = rng.uniform(-np.pi, np.pi, spec.n)
            qd0 = rng.uniform(-1.0, 1.0, spec.n)
            for f, e, is_ref in ((fd, energy, False), (fd_ref, energy_ref, True)):
                if not is_ref and fast:          # the whole swing in one Octave call, the same RK4 steps
                    status, k, qs, T, T0 = model.free_swing(q0, qd0, p, dt, steps, every=5)
                    if status != "ok":
                        what = "your M became singular" if status == "singular" else "your equations diverged"
                        return StructuralCheck(name, "failed", f"{what} at t = {k * dt:.3g} s of a free swing from "
                                               f"q0 = {fmt_vec(q0)}, qd0 = {fmt_vec(qd0)}", None)
                    E0 = T0 + float(analytic.potential_energy(arm, q0))
                    d = float(np.max(np.abs(T + analytic.potential_energy(arm, qs) - E0))) / scale
                    if d > drift:
                        drift, worst_start = d, (q0, qd0)
                    continue
                q, qd = q0.copy(), qd0.copy()
                E0 = e(q, qd)
                for k in range(steps):
                    try:
                        q, qd = step(f, q, qd, zero, dt)
                    except np.linalg.LinAlgError:
                        return StructuralCheck(name, "failed", f"your M became singular at t = {(k + 1) * dt:.3g} s "
                                               f"of a free swing from q0 = {fmt_vec(q0)}, qd0 = {fmt_vec(qd0)}", None)
                    if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd)) and np.max(np.abs(qd)) < 1e4):
                        return StructuralCheck(name, "failed", f"your equations diverged at t = {(k + 1) * dt:.3g} s "
                                               f"of a free swing from q0 = {fmt_vec(q0)}, qd0 = {fmt_vec(qd0)}", None)
                    if (k + 1) % 5 == 0 or k + 1 == steps:
                        d = abs(e(q, qd) - E0) / scale
                        if is_ref:
                            ref_drift = max(ref_drift, d)
                        elif d > drift:
                            drift, worst_start = d, (q0, qd0)
    tol = max(ENERGY_TOL, 10 * ref_drift)
    how = f"RK4, dt = {dt * 1e3:g} ms, {duration:g} s from {starts} random starts; your M"
    how += "".join(f", reference {r}" for r in subs) + ", analytic potential"
    status = "ok" if drift <= tol else "failed"
    msg = (f"max drift {drift:.3g} of the energy scale {scale:.4g} J ({how}; crossdyn's model drifts {ref_drift:.2g} "
           f"under the same integrator; tolerance {tol:.2g})")
    details = {"reference_drift": ref_drift, "tolerance": tol}
    if status == "failed" and worst_start is not None:
        details.update(q0=worst_start[0].tolist(), qd0=worst_start[1].tolist())
        msg += f"; worst from q0 = {fmt_vec(worst_start[0])}, qd0 = {fmt_vec(worst_start[1])}"
    return StructuralCheck(name, status, msg, drift, details)


# =============================================================================== diagnosis

def _dependence(model: UserModel, quantities: dict, sets: list[ParamSet], kinds, base: int, Q, QD, sink,
                n_states: int = 12, h: float = 1e-4) -> dict:
    """Finite-difference sensitivities ∂e/∂ln P of user and reference entries, for each free parameter.

    Returns quantity → (base, (param names, d_user, d_ref, d_err)), arrays of shape (P, …entry…).
    """
    ps0 = sets[base]
    own = sets[0]
    params = free_parameters(kinds, own)
    labels = [f"{name}{i + 1}" for name, i in params]
    Qs, QDs = Q[:n_states], QD[:n_states]
    roles = tuple(sorted({QUANTITY_ROLE[q] for q in quantities}))
    psets = [perturbed(ps0, kinds, name, i, factor) for name, i in params for factor in (1 + h, 1 - h)]
    user = _evaluate_user(model, psets, Qs, QDs, sink, roles=roles)           # (2P, states, …)
    ref = _evaluate_reference(psets, Qs, QDs, set(quantities))
    result = {}
    for q in quantities:
        du = (user[q][0::2] - user[q][1::2]) / (2 * h)                          # (P, states, …)
        dr = (ref[q][0::2] - ref[q][1::2]) / (2 * h)
        result[q] = (base, (labels, np.abs(du).max(axis=1), np.abs(dr).max(axis=1), np.abs(du - dr).max(axis=1)))
    return result


def _armature_reading(f, term: str, diff, sets: list[ParamSet], tols) -> str:
    """For a diagonal M_ii whose constant term is off by exactly ∓I_ai at every parameter set (the rotor
    armature, kept at the arm's value in every set): name it, e.g. " = p.Ia1, joint 1's rotor armature"."""
    if f.quantity != "M" or term != "1" or len(f.index) != 2 or f.index[0] != f.index[1]:
        return ""
    i = f.index[0]
    Ia = float(sets[0].armature[i])
    if Ia <= 0 or any(float(ps.armature[i]) != Ia for ps in sets):
        return ""
    k = i + 1
    if np.all(np.abs(np.asarray(diff) + Ia) <= tols):
        return f" = p.Ia{k}, the rotor armature of joint {k} (its kinetic energy 1/2 Ia{k} qd{k}^2 puts it on {f.entry})"
    if np.all(np.abs(np.asarray(diff) - Ia) <= tols):
        return f" = p.Ia{k}, the rotor armature of joint {k}, counted twice"
    return ""


def _diagnose(findings: list[EntryFinding], compared: dict, sets: list[ParamSet], kinds, Q, QD,
              dependence: dict | None, own_special: list[tuple[set, str]], general: dict | None = None) -> None:
    """Fill in terms, polynomial differences, dependence and the messages of each finding.

    With ``general`` (:func:`_general_sets`) a term's difference is first fitted over the kind-keeping sets
    and the general sets together, in candidates where the Lc and J the file reads are parameters of their
    own; only when no short polynomial fits both exactly is it named from the kind-keeping sets alone.
    """
    S = len(sets)
    L = np.stack([ps.L for ps in sets])
    m = np.stack([ps.m for ps in sets])
    Lc = np.stack([ps.Lc for ps in sets])
    J = np.stack([ps.J for ps in sets])
    g = math.hypot(*sets[0].gravity[:2])
    bases: dict = {}
    cands: dict = {}
    gbases: dict = {}
    gcands: dict = {}
    if general is not None:
        allsets = sets + general["sets"]
        gL, gm, gLc, gJ = (np.stack([getattr(ps, a) for ps in allsets]) for a in ("L", "m", "Lc", "J"))
    for f in findings:
        cmp_ = compared[f.quantity]
        if f.quantity not in bases:
            bases[f.quantity] = diagnosis.make_basis(f.quantity, Q, QD)
        basis = bases[f.quantity]
        sel = (slice(None), slice(None)) + f.index
        U, R = cmp_.user[sel].T, cmp_.ref[sel].T                  # (N, S)
        k_star = 0 if 0 in f.wrong_param_sets or f.status == "note" else f.worst_param_set
        f.terms_param_set = k_star
        at = "at the arm's own parameters" if k_star == 0 else f"at random parameter set {k_star}"
        named_general = complete = False
        if basis is None:
            f.messages.append("no term-by-term diagnosis: too few states for the basis of terms "
                              "(increase --states)")
        else:
            f.basis_note = basis.note
            cu, ru = diagnosis.fit(basis, U)
            cr, _ = diagnosis.fit(basis, R)
            resid_norm = np.linalg.norm(U - R, axis=0)
            unexplained = ru / np.maximum(resid_norm, 1e-300)
            f.unexplained = float(unexplained[k_star])
            exact = bool(np.all(unexplained[f.wrong_param_sets] < 1e-6))   # judged where the entry is wrong
            tol = RTOL * cmp_.qscale[k_star] + ATOL
            tols = RTOL * cmp_.qscale + ATOL                          # (S,)
            idx = diagnosis.off_terms(basis.names, cu[:, k_star], cr[:, k_star], tol, exact)
            complete = int(np.sum(np.abs(cu[:, k_star] - cr[:, k_star]) > tol)) == len(idx)
            key = "G" if f.quantity == "G" else "other"
            if key not in cands and S >= 4:
                cands[key] = diagnosis.monomials(L, m, Lc, J, kinds, factor=g if key == "G" else 1.0,
                                                 factor_name="g" if key == "G" else "")
            gfit = None
            if exact and general is not None and S >= 4:
                gfit = _general_fit(f, basis, general, gbases)
                if gfit is not None and key not in gcands:
                    gcands[key] = diagnosis.monomials(gL, gm, gLc, gJ, general["kinds"],
                                                      factor=g if key == "G" else 1.0,
                                                      factor_name="g" if key == "G" else "")
            named_general = bool(idx) and gfit is not None
            in_general: set = set()
            for t in idx:
                term = diagnosis.TermDiff(basis.names[t], float(cu[t, k_star]), float(cr[t, k_star]))
                fitres = None
                if gfit is not None:
                    fitres = diagnosis.explain_difference(np.concatenate([cu[t] - cr[t], gfit[t]]), gcands[key])
                if fitres is None:
                    named_general = False
                else:
                    in_general.add(basis.names[t])
                if exact and np.all(np.abs(cu[t] + cr[t]) <= tols) and np.all(np.abs(cr[t]) > tols):
                    term.reading = "its sign is flipped (yours = -expected at every parameter set)"
                    if fitres is not None:
                        term.difference = diagnosis.format_polynomial(*fitres)
                elif exact and (key in cands or fitres is not None):
                    if fitres is None:
                        fitres = diagnosis.explain_difference(cu[t] - cr[t], cands[key])
                    if fitres is not None:
                        coefs, names = fitres
                        term.difference = diagnosis.format_polynomial(coefs, names)
                        term.reading = diagnosis.reading(coefs, names) or None
                if exact and term.reading:
                    term.reading += _armature_reading(f, basis.names[t], cu[t] - cr[t], sets, tols)
                f.terms.append(term)
            swaps = _trig_swaps(basis.names, idx, cu, cr, tols) if exact else []
            swapped = {name for pair in swaps for name in pair}
            for t in f.terms:
                f.messages.append(f"{f.entry}: {t.describe()} ({at})")
                if t.term in swapped:
                    continue
                if t.difference:
                    s = (f"    the difference in the {_term_phrase(t.term)} (yours - expected) is exactly "
                         f"{t.difference} at every one of the {S} parameter sets")
                    if t.term in in_general:
                        s += f" (and {len(general['sets'])} more with {_free_list(general['read'], len(L[0]))} free)"
                    f.messages.append(s + (f": {t.reading}" if t.reading else ""))
                elif t.reading:
                    f.messages.append(f"    the {_term_phrase(t.term)}: {t.reading}")
            for yours, expected in swaps:
                f.messages.append(f"{f.entry}: {yours} is used where {expected} belongs (same coefficient, "
                                  "at every parameter set)")
            if not exact:
                f.messages.append(f"{f.entry}: {100 * f.unexplained:.3g} % of the error is not a combination of the "
                                  "usual terms (1, cos/sin of joint angles and their sums"
                                  + {"Cqd": ", times qdi*qdj", "C": ", times qdj"}.get(f.quantity, "")
                                  + "): look for products like cos(q2)*cos(q3) or squares like cos(q2)**2"
                                  + ("; the coefficients above are approximate" if idx else ""))
        involved = None
        if dependence is not None and f.quantity in dependence and f.status == "wrong":
            base, (labels, du, dr, de) = dependence[f.quantity]
            sel = (slice(None),) + f.index
            eps = 1e-7 * max(float(cmp_.qscale[base]), 1e-300)
            f.dependence = diagnosis.classify_dependence(f.entry, labels, du[sel], dr[sel], de[sel], eps)
            involved = {lab for lab, d in zip(labels, de[sel]) if d > eps}
            if named_general and complete and f.terms and all(t.difference for t in f.terms):
                # the exact differences, in the parameters the file uses, say which parameters the error involves
                symbols = _symbols([t.difference for t in f.terms])
                order = {lab: k for k, lab in enumerate(_param_order(len(sets[0].L)))}
                ordered = sorted(symbols, key=lambda x: order.get(x, 99))
                f.dependence = [d for d in f.dependence if not d.startswith(f"the error in {f.entry} ")]
                f.dependence.append(f"the error in {f.entry} involves {diagnosis._list(ordered)} "
                                    "(it does not change with the other parameters)")
                involved = set(ordered)
            f.messages += f.dependence
        if f.hidden_by_own_params:
            msg = (f"{f.entry} matches at the arm's own parameters but not at {len(f.wrong_param_sets)} of "
                   f"{S - 1} random parameter sets: the default parameters hide this error")
            special = [text for params, text in own_special if involved is None or params & involved]
            if special:
                msg += f" (this arm has {'; '.join(special)})"
            f.messages.append(msg)


def _general_fit(f: EntryFinding, basis, general: dict, gbases: dict) -> np.ndarray | None:
    """Coefficient differences (yours − expected) of ``f``'s entry at the general sets, (B, G), or None when
    the user's entry there is not an exact combination of the same terms."""
    q = f.quantity
    if q not in general["user"] or q not in general["ref"]:
        return None
    if q not in gbases:
        ns = general["states"][q]
        gbases[q] = diagnosis.make_basis(q, general["Q"][:ns], general["QD"][:ns])
    gb = gbases[q]
    if gb is None or gb.names != basis.names:
        return None
    sel = (slice(None), slice(None)) + f.index
    U, R = general["user"][q][sel].T, general["ref"][q][sel].T
    cu, ru = diagnosis.fit(gb, U)
    cr, _ = diagnosis.fit(gb, R)
    scale = np.linalg.norm(U, axis=0) + np.linalg.norm(R, axis=0)
    if np.any(ru > 1e-9 * np.maximum(scale, 1e-300)):
        return None
    return cu - cr


def _free_list(read: list[tuple[str, int]], n: int | None = None) -> str:
    """``Lc and J`` when every link's are free, else ``Lc3 and J3``."""
    links = {name: sorted(i for nm, i in read if nm == name) for name in ("Lc", "J")}
    n = n if n is not None else 1 + max(i for _, i in read)
    parts = []
    for name, idx in links.items():
        if not idx:
            continue
        parts += [name] if len(idx) == n else [f"{name}{i + 1}" for i in idx]
    return diagnosis._list(parts)


def _param_order(n: int) -> list[str]:
    return [f"{name}{i + 1}" for i in range(n) for name in ("L", "m", "Lc", "J")]


def _symbols(polynomials: list[str]) -> set[str]:
    """The parameters (L1, m3, Lc2, J1, …) named in difference polynomials."""
    import re

    return {tok for p in polynomials for tok in re.findall(r"[A-Za-z]+\d+", p) if re.fullmatch(r"(L|Lc|m|J)\d+", tok)}


def _trig_swaps(names, idx, cu, cr, tols) -> list[tuple[str, str]]:
    """Pairs (yours, expected) like ("sin(q1)", "cos(q1)"): the user's coefficient of one equals the
    expected coefficient of the other, and vice versa, at every parameter set."""
    out = []
    pos = {name: k for k, name in enumerate(names)}
    for t in idx:
        name = names[t]
        if "cos(" not in name:
            continue
        u = pos.get(name.replace("cos(", "sin("))
        if u is None or u not in idx:
            continue
        if np.all(np.abs(cu[u] - cr[t]) <= tols) and np.all(np.abs(cu[t] - cr[u]) <= tols):
            if np.any(np.abs(cr[t]) > tols):
                out.append((names[u], name))
            else:
                out.append((name, names[u]))
    return out


def _term_phrase(term: str) -> str:
    return "constant term" if term == "1" else f"{term} coefficient"


# =============================================================================== the check

def check(arm, file, *, states: int = DEFAULT_STATES, random_params: int = DEFAULT_RANDOM_PARAMS,
          names: dict[str, str] | str | None = None, seed: int = 0, energy: bool = True,
          _compare_arms: bool = True, timeout: float | None = None) -> CheckResult:
    """Check the user's file ``file`` against the analytic model of ``arm`` (preset, TOML path or spec).

    ``file``: a Python file, or MATLAB (a .m script of local functions or a folder of function files,
    run by GNU Octave; ``timeout`` limits each Octave call).
    ``_compare_arms=False`` is the quick check :func:`_matching_arm` runs on other presets: no search for
    matching arms and no term-by-term diagnosis.

    Raises :class:`UserFileError` when the file cannot be used, :class:`ValueError` for bad arguments.
    """
    t0 = time.perf_counter()
    if isinstance(states, bool) or not isinstance(states, int) or states < 1:
        raise ValueError(f"states: must be an integer >= 1, got {states!r}")
    if isinstance(random_params, bool) or not isinstance(random_params, int) or random_params < 0:
        raise ValueError(f"random_params: must be an integer >= 0, got {random_params!r}")
    if isinstance(names, str):
        names = parse_names(names)
    spec = load_arm(arm)
    n = spec.n
    model = load_model(file, n, names, timeout=timeout)
    rng = np.random.default_rng(seed)
    Q = rng.uniform(-np.pi, np.pi, (states, n))
    QD = rng.uniform(-2.0, 2.0, (states, n))
    own = own_params(spec)
    sets = [own] + random_param_sets(spec, random_params, rng)
    kinds = link_kinds(spec)
    sink = io.StringIO()
    params_note = ""
    _check_link_count(model, spec, [own], Q[:1], QD[:1], sink)  # a file for another number of links: say so first
    no_p = _roles_ignoring_p(model, own, Q, QD, sink)
    if no_p:
        # parameters written as numbers: other arms' parameters cannot reach the equations
        which = ", ".join(model.signature(r) for r in no_p)
        params_note = (f"{which} {'does' if len(no_p) == 1 else 'do'} not read p (parameters written as numbers), so "
                       "random parameter sets cannot apply: everything is checked at the arm's own parameters only")
        sets, random_params = [own], 0
    S = len(sets)

    user = _evaluate_user(model, sets, Q, QD, sink)
    notes: list[str] = []
    hints: list[str] = []
    want = set(user)
    if "C" in want and n > analytic.dynamics.SYMBOLIC_MAX_N:
        want.discard("C")
        notes.append(f"the C matrix is not compared entry by entry: crossdyn's reference C matrix exists up to "
                     f"{analytic.dynamics.SYMBOLIC_MAX_N} links (C qd is compared)")
    ref = _evaluate_reference(sets, Q, QD, want | ({"M"} if "C" in want else set()))

    compared = {q: _compare(q, user[q], ref[q]) for q in ("M", "Cqd", "C", "G") if q in want}
    for role in ROLE_NAMES:
        if not model.has(role):
            what = {"M": "M", "C": "C qd", "G": "G"}[role]
            notes.append(f"your file defines no {role} (looked for {' / '.join(ROLE_NAMES[role])}): "
                         f"{what} not checked")

    # ------------------------------------------------------------ structure
    structure: list[StructuralCheck] = []
    m_symmetric = True
    if "M" in compared:
        sym = _check_symmetric(user["M"], ref["M"])
        m_symmetric = sym.status == "ok"
        structure.append(sym)
        structure.append(_check_positive_definite(user["M"], Q, sets))
    cq_ok = "Cqd" in compared and not compared["Cqd"].wrong.any()
    if model.c_kind == "matrix" and model.has("M"):
        skew = _check_skew(model, sets, Q, QD, user["C"], np.max(np.abs(ref["M"]), axis=(1, 2, 3)), sink)
        if skew.status == "failed" and cq_ok and not compared["M"].wrong.any():
            skew.status = "note"
            skew.message += ("; C qd is right, so your equations of motion are right, but this C is not the "
                             "Christoffel one (the skew-symmetry matters for passivity-based control proofs)")
        structure.append(skew)
    elif model.has("C") and model.c_kind == "vector":
        structure.append(StructuralCheck("Mdot - 2C skew-symmetric", "skipped",
                                         "your C returns the vector C qd, so there is no matrix to test"))
    elif model.c_kind == "matrix":
        structure.append(StructuralCheck("Mdot - 2C skew-symmetric", "skipped", "needs your M (the file has none)"))
    if "C" in compared:
        christ = not compared["C"].wrong.any()
        if christ:
            structure.append(StructuralCheck("C is the Christoffel matrix", "ok",
                                             "every entry of your C matches the Christoffel-symbol matrix"))
        else:
            bad = [entry_name("C", idx, n) for idx in _entries("C", n) if compared["C"].wrong[(slice(None),) + idx].any()]
            structure.append(StructuralCheck(
                "C is the Christoffel matrix", "note" if cq_ok else "failed",
                (f"C qd is right but your C is not the Christoffel-symbol matrix (entries {', '.join(bad)} differ); "
                 "a C matrix is not unique, so this is not an error") if cq_ok else
                f"your C differs from the Christoffel-symbol matrix in {', '.join(bad)}"))
    if energy and model.has("M"):
        structure.append(_check_energy(model, spec, own, rng, sink))
    elif energy:
        structure.append(StructuralCheck("energy conserved in free motion", "skipped",
                                         "needs your M (the file has none)"))

    # ------------------------------------------------------------ entries
    findings: list[EntryFinding] = []
    summary: list[dict] = []
    for quantity, cmp_ in compared.items():
        for idx in _entries(quantity, n):
            sel = (slice(None), slice(None)) + idx
            err = cmp_.err[sel]                                           # (S, N)
            k, i = np.unravel_index(np.argmax(err), err.shape)
            refv = cmp_.ref[sel]
            escale = float(np.max(np.abs(refv)))
            qs = float(np.max(cmp_.qscale))
            denom = escale if escale > 1e-6 * qs else qs
            max_abs = float(err[k, i])
            rel = max_abs / denom if denom > 0 else (None if max_abs > 0 else 0.0)   # None: reference is 0
            wrong_sets = [int(s) for s in np.flatnonzero(cmp_.wrong[(slice(None),) + idx])]
            name = entry_name(_prefix(quantity), idx, n)
            summary.append({"entry": name, "quantity": quantity, "max_abs_error": max_abs, "max_rel_error": rel,
                            "ok": not wrong_sets})
            if not wrong_sets:
                continue
            if quantity == "M" and m_symmetric and idx[0] > idx[1]:
                continue        # reported once, as the upper-triangle entry
            status = "wrong"
            if quantity == "C" and cq_ok:
                status = "note"
            mirror = entry_name("M", idx[::-1], n) if quantity == "M" and m_symmetric and idx[0] != idx[1] else None
            findings.append(EntryFinding(
                entry=name, quantity=quantity, index=idx, status=status, unit=UNITS[quantity],
                max_abs_error=max_abs, max_rel_error=rel, worst_param_set=int(k), worst_q=Q[i].tolist(),
                worst_qd=QD[i].tolist() if quantity in ("Cqd", "C") else None,
                wrong_param_sets=wrong_sets, n_param_sets=S, mirror=mirror,
                hidden_by_own_params=0 not in wrong_sets and S > 1))

    # ------------------------------------------------------------ one mistake that explains many entries
    explanations = _explanations(compared, sets, Q)
    if _mostly_wrong(summary, compared) and _compare_arms:
        match = _matching_arm(spec, file, names, min(states, 200), seed)
        if match is not None:
            explanations.insert(0, match)
    for ex in explanations:
        for f in findings:
            if f.explained_by is None and f.quantity in ex["quantities"]:
                f.explained_by = ex["text"]
        ex["entries"] = [f.entry for f in findings if f.explained_by == ex["text"] and f.status == "wrong"]
    explanations = [ex for ex in explanations if ex["entries"]]

    # ------------------------------------------------------------ diagnosis
    to_diagnose = [f for f in findings if f.explained_by is None] if _compare_arms else []   # quick: no diagnosis
    wrong_quantities = sorted({f.quantity for f in to_diagnose if f.status == "wrong"})
    dependence = None
    if wrong_quantities:
        base = int(max(range(S), key=lambda s: max(
            float(np.max(compared[q].err[s] / max(compared[q].tol[s], 1e-300))) for q in wrong_quantities)))
        dependence = _dependence(model, {q: None for q in wrong_quantities}, sets, kinds, base, Q, QD, sink)
    own_special = special_values(own)
    general = None
    if wrong_quantities and random_params >= 3:
        general = _general_sets(model, spec, sets, kinds, Q, QD, wrong_quantities, GENERAL_SETS,
                                np.random.default_rng([seed, 12]), sink)
    _diagnose(to_diagnose, compared, sets, kinds, Q, QD, dependence, own_special, general)
    if any(k != "general" for k in kinds) and findings:
        notes.append("random parameter sets keep each link's kind (" + ", ".join(
            f"link {i + 1}: {k}" for i, k in enumerate(kinds)) + "); for a rod Lc = L/2 and J = mL^2/12 follow L "
            "and m, for a point mass Lc = L and J = 0")
    if general is not None and any(f.terms for f in to_diagnose):
        notes.append(f"terms are named in the parameters your file uses: {len(general['sets'])} more parameter sets "
                     f"with {_free_list(general['read'], n)} independent of L and m (your file reads them) serve only "
                     "to tell, e.g., m3*L2*Lc3 from 1/2*m3*L2*L3; they do not decide what is wrong")
    if random_params == 0 and not params_note:
        msg = ("--random-params 0: only the arm's own parameters were tested, so an error hidden by their "
               "special values would go unnoticed")
        if own_special:
            msg += f" (this arm has {'; '.join(text for _, text in own_special)})"
        notes.append(msg)
    g = sink.getvalue() + "".join(line + "\n" for line in getattr(model, "printed", []))
    if g:
        lines = g.splitlines()
        notes.append(f"your file printed {len(lines)} lines while being checked (not shown; first: {lines[0][:80]!r})")

    failed = any(s.status == "failed" for s in structure)
    verdict = "wrong" if any(f.status == "wrong" for f in findings) or failed else "correct"
    return CheckResult(
        arm=spec.name, arm_spec=spec.to_dict(), file=str(file), n=n, functions=model.describe(),
        c_form=model.c_kind, states=states, random_params=random_params, seed=seed, verdict=verdict,
        findings=findings, entries=summary, structure=structure, notes=notes, hints=hints,
        param_sets=[ps.to_dict() for ps in sets], runtime_s=time.perf_counter() - t0, explanations=explanations,
        params_note=params_note, language=getattr(model, "language", "python"))


def _explanations(compared: dict, sets: list, Q) -> list[dict]:
    """Whole-quantity mistakes: a constant factor (a flipped sign, a factor of 2), G inside C, a transposed C.

    Each is ``{"text", "quantities"}``; the quantities it accounts for get no term-by-term diagnosis (the
    explanation says everything), and it is printed before the entries.  A factor is accepted only when
    user = α × expected holds for every entry, state and parameter set within the entries' tolerance.
    """
    out = []
    names = {"M": "M", "Cqd": "C qd", "C": "C", "G": "G"}
    scaled = {}
    for q, c in compared.items():
        if not c.wrong.any():
            continue
        u, r = c.user.reshape(c.user.shape[0], -1), c.ref.reshape(c.ref.shape[0], -1)
        tol = c.tol[:, None]
        rr = float(np.sum(r * r))
        if rr == 0:
            continue
        alpha = float(np.sum(u * r)) / rr
        if np.all(np.abs(u - alpha * r) <= tol):
            scaled[q] = alpha
    for q, alpha in scaled.items():
        if q == "Cqd" and "C" in scaled:
            continue                      # said once, for the C matrix
        covers = ["C", "Cqd"] if q == "C" else [q]
        what = names[q]
        if abs(alpha + 1) < 1e-6:
            text = f"your {what} is exactly the negative of the expected one"
            if q == "G":
                text += " — crossdyn writes G on the left-hand side: M qdd + C qd + G = tau, G = dU/dq"
        else:
            frac = diagnosis._nice(alpha)
            factor = f"{alpha:.6g}" if frac[0] > 2 else (("-" if alpha < 0 else "") + (frac[1] or "1"))
            text = f"your {what} is exactly {factor} times the expected one (a factor of {factor} throughout {what})"
        out.append({"text": text, "quantities": covers})
    if "Cqd" in compared and compared["Cqd"].wrong.any() and "Cqd" not in scaled:
        c = compared["Cqd"]
        g_ref = compared["G"].ref if "G" in compared else _evaluate_reference(sets, Q, None, {"G"})["G"]
        g_tol = RTOL * np.max(np.abs(g_ref), axis=(1, 2)) + ATOL
        if np.all(np.abs(c.user - c.ref - g_ref) <= (c.tol + g_tol)[:, None, None]):
            out.append({"text": "your C returns C qd + G (the 'bias' torque): crossdyn expects C qd alone; G is "
                                "checked separately", "quantities": ["Cqd"]})
    if "C" in compared and compared["C"].wrong.any() and "C" not in scaled:
        c = compared["C"]
        if np.all(np.abs(np.swapaxes(c.user, -1, -2) - c.ref) <= c.tol[:, None, None, None]):
            out.append({"text": "your C is the transpose of the Christoffel-symbol matrix",
                        "quantities": ["C", "Cqd"]})
    return out


def _mostly_wrong(summary: list[dict], compared: dict) -> bool:
    """More than half of the entries of M (upper triangle), C qd and G are wrong."""
    rows = [e for e in summary if e["quantity"] in ("M", "Cqd", "G")]
    return bool(rows) and sum(not e["ok"] for e in rows) > len(rows) / 2


def _matching_arm(spec: ArmSpec, file, names, states: int, seed: int) -> dict | None:
    """The first arm with as many links as ``spec`` but other link kinds whose check the file passes.

    Candidates: the named presets and ``planar<n>r`` with the same number of links (with this arm's gravity
    if theirs differs: only the kinds of link are compared), then this arm with every link a point mass
    (Lc = L, J = 0) and with every link a uniform rod (Lc = L/2, J = mL²/12) — one candidate per combination
    of link kinds, each checked quickly (no energy check, 5 random parameter sets, no diagnosis).
    """
    import dataclasses

    from crossdyn.models.presets import PRESETS, planarNr

    kinds = link_kinds(spec)
    seen = {tuple(kinds)}
    candidates = [(f(), None) for f in PRESETS.values()] + [(planarNr(spec.n), None)]
    candidates += [(spec, "point"), (spec, "rod")]
    for cand, uniform in candidates:
        if uniform == "point":
            cand = dataclasses.replace(cand, links=tuple(dataclasses.replace(l, com=l.length, inertia=0.0)
                                                         for l in cand.links))
        elif uniform == "rod":
            cand = dataclasses.replace(cand, links=tuple(dataclasses.replace(
                l, com=l.length / 2, inertia=l.mass * l.length**2 / 12) for l in cand.links))
        ck = tuple(link_kinds(cand))
        if cand.n != spec.n or (uniform is None and cand.name == spec.name) or ck in seen:
            continue
        seen.add(ck)
        same_g = tuple(cand.gravity) == tuple(spec.gravity)
        cand = cand if same_g else dataclasses.replace(cand, gravity=spec.gravity)
        try:
            r = check(cand, file, states=states, random_params=5, names=names, seed=seed, energy=False,
                      _compare_arms=False)
        except UserFileError:
            continue
        if not r.passed:
            continue
        theirs = ", ".join(sorted(set(kinds)))
        how = f"at {states} states x 6 parameter sets"
        if uniform is None:
            gnote = "" if same_g else ", with this arm's gravity"
            text = (f"your file matches {cand.name}, not {spec.name}: every entry agrees with {cand.name} "
                    f"({', '.join(sorted(set(ck)))} links{gnote}) {how}; check it against that arm, or derive it "
                    f"again for {spec.name}'s links ({theirs})")
            name = cand.name
        else:
            what = ("point masses at the link ends (Lc = L, J = 0)" if uniform == "point" else
                    "uniform rods (Lc = L/2, J = mL^2/12)")
            text = (f"your file is written for {what}, not {spec.name}'s links ({theirs}): every entry agrees "
                    f"with {spec.name} made of {what.split(' (')[0]} {how}")
            name = f"{spec.name} with {uniform} links"
        return {"text": text, "quantities": ["M", "Cqd", "C", "G"], "arm": name}
    return None


def _check_link_count(model, spec: ArmSpec, sets, Q, QD, sink) -> None:
    """Call the file once at the arm's size; if that fails and the file works for another number of links,
    raise one :class:`UserFileError` naming the file, the arm and both counts."""
    try:
        _evaluate_user(model, sets, Q, QD, sink)
    except UserFileError as e:
        found = written_for_links(model, spec.gravity) if isinstance(model, UserModel) else None
        if found is None:
            raise
        k, how = found
        raise UserFileError(f"{model.path}: your functions are written for {k} link{'s' if k > 1 else ''} "
                            f"({how}), but the arm {spec.name} has {spec.n} links; at {spec.n} links: "
                            f"{e.message}", function=e.function) from None
    finally:
        model.c_kind = None


def _only(model, roles: set):
    """``model`` restricted to ``roles`` (a Python file's other functions are not called), else ``model``."""
    if not isinstance(model, UserModel):
        return model
    import copy

    trial = copy.copy(model)
    trial.functions = {r: fn for r, fn in model.functions.items() if r in roles}
    return trial


def _reads_lc_j(model, base: ParamSet, kinds, Q, QD, sink) -> list[tuple[str, int]]:
    """(name, link) for each Lc / J of a rod or point-mass link that the user's functions change with."""
    probes, labels = [], []
    for i, kind in enumerate(kinds):
        if kind == "general":
            continue
        for name in ("Lc", "J"):
            vals = getattr(base, name).copy()
            vals[i] = vals[i] * 1.37 + 0.05 * base.L[i] * (base.m[i] if name == "J" else 1.0)
            probes.append(base.with_values(**{name: vals}))
            labels.append((name, i))
    if not probes:
        return []
    vals = _evaluate_user(model, [base] + probes, Q, QD, sink)
    out = []
    for k, lab in enumerate(labels):
        for v in vals.values():
            scale = float(np.max(np.abs(v[0]))) or 1.0
            if np.max(np.abs(v[k + 1] - v[0])) > 1e-12 * scale:
                out.append(lab)
                break
    return out


def _general_sets(model, spec, sets, kinds, Q, QD, quantities, count: int, rng, sink) -> dict | None:
    """Parameter sets for *naming* terms, where Lc and J are independent of L and m (diagnosis only).

    With the kind-keeping random sets a rod's Lc = L/2 and J = mL²/12, so ``m3*L2*Lc3`` and
    ``1/2*m3*L2*L3`` are the same number at every set and a difference cannot tell which the user wrote.
    When the user's functions change with a rod's (or point mass's) Lc or J — found by evaluating them with
    that one value changed — ``count`` further sets draw that Lc inside the link and that J ≥ 0 freely (the
    other links keep their kind).  A file that fails there (e.g. one that asserts Lc == L/2) simply gets
    no general sets.  These sets never decide whether an entry is wrong (a rod file may
    rightly write L/2 for Lc); they are used only together with the kind-keeping sets: a difference is named
    in the general parameters when one short polynomial fits both exactly, else as before.  The user's
    functions are evaluated at as few states as the basis of terms needs.
    """
    try:
        return _general_sets_or_fail(model, spec, sets, kinds, Q, QD, quantities, count, rng, sink)
    except UserFileError:
        return None          # the file fails off its arm's link kinds: name terms from the kind-keeping sets


def _general_sets_or_fail(model, spec, sets, kinds, Q, QD, quantities, count: int, rng, sink) -> dict | None:
    read = _reads_lc_j(model, sets[min(1, len(sets) - 1)], kinds, Q[:3], QD[:3], sink)
    if not read:
        return None
    n = spec.n
    gsets = []
    base = sets[0]
    for k in range(count):
        L, m, Lc, J = _draw_links(rng, kinds, base.J, read)
        gsets.append(ParamSet(1000 + k, L, m, Lc, J, base.b, base.fc, spec.gravity))
    # as many states as each basis needs; C (velocity terms: a basis of n(n+1)/2 x (1 + n(n+1)) for C qd)
    # only while that stays small (up to 3 links), so that naming never costs more than the check itself
    need = {}
    for q in quantities:
        b = diagnosis.make_basis(q, Q, QD)
        if b is not None and 2 * b.size + 8 <= GENERAL_MAX_STATES:
            need[q] = min(len(Q), max(2 * b.size + 8, 16))
    if not need:
        return None
    user, ref, states = {}, {}, {}
    for ns in sorted(set(need.values())):
        qs = [q for q in need if need[q] == ns]
        u = _evaluate_user(_only(model, {QUANTITY_ROLE[q] for q in qs}), gsets, Q[:ns], QD[:ns], sink)
        r = _evaluate_reference(gsets, Q[:ns], QD[:ns], set(qs))
        for q in qs:
            if q in u:
                user[q], ref[q], states[q] = u[q], r[q], ns
    gkinds = ["general" if (("Lc", i) in read or ("J", i) in read) else kinds[i] for i in range(n)]
    return {"sets": gsets, "kinds": gkinds, "read": read, "Q": Q, "QD": QD, "states": states, "user": user,
            "ref": ref}
