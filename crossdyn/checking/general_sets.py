"""Parameter sets for *naming* terms, where Lc and J are independent of L and m (diagnosis only).

With the kind-keeping random sets a rod's Lc = L/2 and J = mL²/12, so ``m3*L2*Lc3`` and ``1/2*m3*L2*L3`` are the
same number at every set and a difference cannot tell which the user wrote.  When the user's functions change
with a rod's (or point mass's) Lc or J — found by evaluating them with that one value changed — further sets draw
that Lc inside the link and that J ≥ 0 freely (the other links keep their kind).  These sets never decide whether
an entry is wrong (a rod file may rightly write L/2 for Lc); a difference is named in the general parameters when
one short polynomial fits both the kind-keeping and the general sets exactly.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from crossdyn.checking import diagnosis
from crossdyn.checking.evaluation import (
    PLANAR_PARAMS, QUANTITY_ROLE, Equations, evaluate_reference, evaluate_user, only,
)
from crossdyn.checking.sampling import Sample, draw_links
from crossdyn.equations.python_file import ParamSet, UserFileError

GENERAL_SETS = 24
GENERAL_MAX_STATES = 200
"""Parameter sets with a rod's Lc and J free, used only to name differences (see :func:`general_sets`)."""


@dataclass(frozen=True)
class GeneralSets:
    """The general parameter sets, the link kinds they keep (``"general"`` where Lc or J is free), the (name, link)
    of each free Lc / J the file reads, the states, and per quantity how many states were used and the user's and
    the reference's values there."""

    sets: list[ParamSet]
    kinds: list[str]
    read: list[tuple[str, int]]
    Q: np.ndarray
    QD: np.ndarray
    states: dict[str, int]
    user: dict[str, np.ndarray]
    ref: dict[str, np.ndarray]


def reads_lc_j(model: Equations, sink: io.StringIO, base: ParamSet, kinds: list[str], Q: np.ndarray,
               QD: np.ndarray) -> list[tuple[str, int]]:
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
    vals = evaluate_user(model, PLANAR_PARAMS, [base] + probes, Q, QD, sink)
    out = []
    for k, lab in enumerate(labels):
        for v in vals.values():
            scale = float(np.max(np.abs(v[0]))) or 1.0
            if np.max(np.abs(v[k + 1] - v[0])) > 1e-12 * scale:
                out.append(lab)
                break
    return out


def general_sets(model: Equations, sink: io.StringIO, sample: Sample, quantities: list[str], count: int,
                 rng: np.random.Generator) -> GeneralSets | None:
    """``count`` general sets for the wrong ``quantities``, or None when the file reads no rod's or point mass's
    Lc or J, or fails off its arm's link kinds (e.g. it asserts Lc == L/2): terms are then named from the
    kind-keeping sets.  The user's functions are evaluated at as few states as the basis of terms needs."""
    try:
        return _general_sets_or_fail(model, sink, sample, quantities, count, rng)
    except UserFileError:
        return None          # the file fails off its arm's link kinds: name terms from the kind-keeping sets


def _general_sets_or_fail(model: Equations, sink: io.StringIO, sample: Sample, quantities: list[str], count: int,
                          rng: np.random.Generator) -> GeneralSets | None:
    sets, kinds, Q, QD = sample.sets, sample.kinds, sample.Q, sample.QD
    read = reads_lc_j(model, sink, sets[min(1, len(sets) - 1)], kinds, Q[:3], QD[:3])
    if not read:
        return None
    n = len(kinds)
    base = sets[0]
    gsets = []
    for k in range(count):
        L, m, Lc, J = draw_links(rng, kinds, base.J, read)
        gsets.append(ParamSet(1000 + k, L, m, Lc, J, base.b, base.fc, base.gravity))
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
        u = evaluate_user(only(model, {QUANTITY_ROLE[q] for q in qs}), PLANAR_PARAMS, gsets, Q[:ns], QD[:ns], sink)
        r = evaluate_reference(gsets, Q[:ns], QD[:ns], set(qs))
        for q in qs:
            if q in u:
                user[q], ref[q], states[q] = u[q], r[q], ns
    gkinds = ["general" if (("Lc", i) in read or ("J", i) in read) else kinds[i] for i in range(n)]
    return GeneralSets(gsets, gkinds, read, Q, QD, states, user, ref)


def general_fit(general: GeneralSets, quantity: str, index: tuple[int, ...], basis: diagnosis.Basis,
                gbases: dict[str, diagnosis.Basis | None]) -> np.ndarray | None:
    """Coefficient differences (yours − expected) of the entry ``quantity[index]`` at the general sets, (B, G), or
    None when the user's entry there is not an exact combination of the same terms (``gbases`` caches the bases
    per quantity)."""
    q = quantity
    if q not in general.user or q not in general.ref:
        return None
    if q not in gbases:
        ns = general.states[q]
        gbases[q] = diagnosis.make_basis(q, general.Q[:ns], general.QD[:ns])
    gb = gbases[q]
    if gb is None or gb.names != basis.names:
        return None
    sel = (slice(None), slice(None)) + index
    U, R = general.user[q][sel].T, general.ref[q][sel].T
    cu, ru = diagnosis.fit(gb, U)
    cr, _ = diagnosis.fit(gb, R)
    scale = np.linalg.norm(U, axis=0) + np.linalg.norm(R, axis=0)
    if np.any(ru > 1e-9 * np.maximum(scale, 1e-300)):
        return None
    return cu - cr


def free_list(read: list[tuple[str, int]], n: int | None = None) -> str:
    """``Lc and J`` when every link's are free, else ``Lc3 and J3``."""
    links = {name: sorted(i for nm, i in read if nm == name) for name in ("Lc", "J")}
    n = n if n is not None else 1 + max(i for _, i in read)
    parts: list[str] = []
    for name, idx in links.items():
        if not idx:
            continue
        parts += [name] if len(idx) == n else [f"{name}{i + 1}" for i in idx]
    return diagnosis._list(parts)
