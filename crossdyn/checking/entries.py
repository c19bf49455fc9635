"""Entry by entry: the user's M, C q̇, C and G against the reference, and which entries are wrong where.

An entry is wrong at a parameter set when its largest error over the states exceeds
:data:`~crossdyn.checking.results.RTOL` × the largest magnitude of that quantity at that set + ``ATOL``.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from crossdyn.checking.evaluation import Equations, ParamsView, evaluate_user
from crossdyn.checking.results import ATOL, RTOL, UNITS, EntryFinding, EntryStatus
from crossdyn.checking.sampling import Sample
from crossdyn.equations.python_file import ROLE_NAMES

QUANTITIES = ("M", "Cqd", "C", "G")


def entry_name(prefix: str, index: tuple[int, ...], n: int) -> str:
    """``M12``, ``Cqd3``, ``G1``; with 10 links or more the indices are separated: ``M1,10``."""
    sep = "," if n >= 10 else ""
    return prefix + sep.join(str(i + 1) for i in index)


def entry_indices(quantity: str, n: int) -> list[tuple[int, ...]]:
    """The 0-based indices of every entry of ``quantity``: (i, j) of a matrix, (i,) of a vector."""
    if quantity in ("M", "C"):
        return [(i, j) for i in range(n) for j in range(n)]
    return [(i,) for i in range(n)]


@dataclass(frozen=True)
class Compared:
    """One quantity at every parameter set × state: the user's values, the reference's, the tolerance per set
    (RTOL × ``qscale`` + ATOL), the absolute errors and where each entry is wrong."""

    quantity: str
    user: np.ndarray        # (S, N, …)
    ref: np.ndarray
    tol: np.ndarray         # (S,)
    qscale: np.ndarray      # (S,)
    err: np.ndarray         # (S, N, …) absolute
    wrong: np.ndarray       # (S, …) bool: entry wrong at set


def compare(quantity: str, user: np.ndarray, ref: np.ndarray) -> Compared:
    """``user`` against ``ref`` ((S, N, …) each)."""
    S = user.shape[0]
    axes = tuple(range(1, ref.ndim))
    qscale = np.max(np.abs(ref), axis=axes) if ref.size else np.zeros(S)
    tol = RTOL * qscale + ATOL
    err = np.abs(user - ref)
    emax = err.max(axis=1)                                       # (S, …)
    wrong = emax > tol.reshape((S,) + (1,) * (emax.ndim - 1))
    return Compared(quantity, user, ref, tol, qscale, err, wrong)


@dataclass(frozen=True)
class Values:
    """The user's and the reference's values of every quantity (``"M"``, ``"Cqd"``, ``"C"``, ``"G"``) and their
    comparison; ``notes`` says what could not be compared."""

    user: dict[str, np.ndarray]
    ref: dict[str, np.ndarray]
    compared: dict[str, Compared]
    notes: list[str]

    @property
    def cqd_ok(self) -> bool:
        """C q̇ is compared and right everywhere."""
        return "Cqd" in self.compared and not self.compared["Cqd"].wrong.any()


class Reference(Protocol):
    """What the comparison reads of an arm's plant (:class:`crossdyn.checking.plant.Plant`)."""

    @property
    def params(self) -> ParamsView: ...

    def reference(self, sample: Sample, user: dict[str, np.ndarray]) -> tuple[dict, dict, list[str]]: ...

    def missing_note(self, role: str) -> str: ...


def evaluate_and_compare(model: Equations, plant: Reference, sink: io.StringIO, sample: Sample) -> Values:
    """Evaluate the user's functions (:func:`evaluate_user`) and the arm's reference (:meth:`Plant.reference`)
    at every state × parameter set and compare them: every quantity both give."""
    user = evaluate_user(model, plant.params, sample.sets, sample.Q, sample.QD, sink)
    user, ref, notes = plant.reference(sample, user)
    compared = {q: compare(q, user[q], ref[q]) for q in QUANTITIES if q in user and q in ref}
    notes += [plant.missing_note(role) for role in ROLE_NAMES if not model.has(role)]
    return Values(user, ref, compared, notes)


def entry_summary(values: Values, sample: Sample, m_symmetric: bool) -> tuple[list[dict[str, Any]], list[EntryFinding]]:
    """(one summary row per entry compared, a finding per wrong entry).

    Of a symmetric M a wrong entry is reported once, as the upper-triangle one (``mirror`` names the other); a C
    matrix entry is a note, not an error, when C q̇ is right.  An entry wrong at random parameter sets only is
    ``hidden_by_own_params``.
    """
    n = sample.Q.shape[1]
    findings: list[EntryFinding] = []
    summary: list[dict[str, Any]] = []
    for quantity, cmp_ in values.compared.items():
        for idx in entry_indices(quantity, n):
            row, finding = _entry(cmp_, idx, sample, m_symmetric and quantity == "M", values.cqd_ok)
            summary.append(row)
            if finding is not None:
                findings.append(finding)
    return summary, findings


def _entry(cmp_: Compared, idx: tuple[int, ...], sample: Sample, symmetric_m: bool,
           cqd_ok: bool) -> tuple[dict[str, Any], EntryFinding | None]:
    """The summary row of one entry, and its finding when it is wrong (and not a symmetric M's lower triangle)."""
    quantity, n, S = cmp_.quantity, sample.Q.shape[1], len(sample.sets)
    sel = (slice(None), slice(None)) + idx
    err = cmp_.err[sel]                                           # (S, N)
    k, i = np.unravel_index(np.argmax(err), err.shape)
    escale = float(np.max(np.abs(cmp_.ref[sel])))
    qs = float(np.max(cmp_.qscale))
    denom = escale if escale > 1e-6 * qs else qs
    max_abs = float(err[k, i])
    rel = max_abs / denom if denom > 0 else (None if max_abs > 0 else 0.0)   # None: reference is 0
    wrong_sets = [int(s) for s in np.flatnonzero(cmp_.wrong[(slice(None),) + idx])]
    name = entry_name(quantity, idx, n)
    row = {"entry": name, "quantity": quantity, "max_abs_error": max_abs, "max_rel_error": rel, "ok": not wrong_sets}
    if not wrong_sets or (symmetric_m and idx[0] > idx[1]):
        return row, None            # right, or reported once, as the upper-triangle entry
    status = EntryStatus.NOTE if quantity == "C" and cqd_ok else EntryStatus.WRONG
    mirror = entry_name("M", idx[::-1], n) if symmetric_m and idx[0] != idx[1] else None
    return row, EntryFinding(
        entry=name, quantity=quantity, index=idx, status=status, unit=UNITS[quantity],
        max_abs_error=max_abs, max_rel_error=rel, worst_param_set=int(k), worst_q=sample.Q[i].tolist(),
        worst_qd=sample.QD[i].tolist() if quantity in ("Cqd", "C", "F") else None,
        wrong_param_sets=wrong_sets, n_param_sets=S, mirror=mirror,
        hidden_by_own_params=0 not in wrong_sets and S > 1)


def mostly_wrong(summary: list[dict[str, Any]]) -> bool:
    """More than half of the entries of M (upper triangle), C qd and G are wrong."""
    rows = [e for e in summary if e["quantity"] in ("M", "Cqd", "G")]
    return bool(rows) and sum(not e["ok"] for e in rows) > len(rows) / 2
