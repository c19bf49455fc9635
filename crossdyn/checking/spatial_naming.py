"""Wrong entries of a spatial arm named to the term (issue 27): the symbolic model, the naming grid and the
sentences (:mod:`crossdyn.checking.spatial_terms` does the fitting).

The grid: :data:`EXTRA_POINTS` more states than the arm has state variables (cos qᵢ, sin qᵢ or qᵢ, q̇ᵢ) and as many
more parameter sets than it has parameters, gravity varied too, so that every variable varies independently and
the monomial fit is determined.  These sets only name terms; they do not decide what is wrong (the check's own
sets do).  Term naming needs the symbolic derivation; an arm whose derivation fails or exceeds
:data:`DERIVATION_BUDGET_S` is reported entry by entry with a note that term naming is unavailable.
"""
from __future__ import annotations

import dataclasses
import functools
import io

import numpy as np
import sympy as sp

from crossdyn.analytic.spatial_generated import NumericOnly, derive_within, shipped, shipped_names
from crossdyn.analytic.spatial_symbolic import SpatialDerivation
from crossdyn.checking.results import EntryFinding
from crossdyn.checking.spatial_arms import SpatialArm, random_values
from crossdyn.checking.evaluation import evaluate_user
from crossdyn.checking.spatial_eval import draw_states
from crossdyn.checking.spatial_terms import Grid, name_term, term_values

EXTRA_POINTS = 8
DERIVATION_BUDGET_S = 20.0
"""Seconds a derivation may take for its terms to be named (the presets take < 0.1 s; a 6R takes minutes)."""


@functools.lru_cache(maxsize=16)
def derivation(arm: SpatialArm) -> SpatialDerivation | NumericOnly:
    """A preset's shipped derivation (:func:`crossdyn.analytic.spatial_generated.shipped`, no SymPy work), else
    the arm derived within :data:`DERIVATION_BUDGET_S` (:class:`NumericOnly` past it)."""
    if arm.name in shipped_names():
        d, values = shipped(arm.name)
        if values == arm.values:
            return d
    return derive_within(arm.sym, DERIVATION_BUDGET_S)


def christoffel(arm: SpatialArm, sets: list[dict], Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
    """The Christoffel C matrix at every set × state (S, N, n, n), from the symbolic model."""
    d = derivation(arm)
    if isinstance(d, NumericOnly):
        raise NotImplementedError(d.message())
    return np.stack([d.coriolis_matrix(Q, QD, values) for values in sets])


def entry_terms(d: SpatialDerivation, quantity: str, idx: tuple[int, ...]) -> list[sp.Expr]:
    """The reference entry's terms (coefficient × monomial), expanded from the per-parameter collection."""
    if quantity == "M":
        pairs = d.collected[("M", min(idx), max(idx))]
        expr = sp.Add(*(pi * Y for pi, Y in pairs))
    elif quantity == "G":
        expr = sp.Add(*(pi * Y for pi, Y in d.collected[("G", idx[0], 0)]))
    elif quantity == "C":
        expr = sp.Add(*(pi * Y for pi, Y in d.collected[("C", idx[0], idx[1])]))
    else:                                   # C q̇
        expr = sp.Add(*(pi * Y * d.qd[j] for j in range(d.n) for pi, Y in d.collected[("C", idx[0], j)]))
    # a relative-angle form (cos(q2 + q3), the textbook's c23) is expanded: terms are monomials in cos q_i, sin q_i
    return list(sp.Add.make_args(sp.expand(expr, trig=True))) if expr != 0 else []


def _grid(d: SpatialDerivation, arm: SpatialArm, seed: int):
    """(states Q, QD, sets, Grid, the lambdify symbols and arrays)."""
    rng = np.random.default_rng(seed + 27_000)
    n_state = sum(2 if t == "R" else 1 for t in arm.types) + arm.n
    Q, QD = draw_states(arm, n_state + EXTRA_POINTS, rng)
    sets = [random_values(arm, rng, vary_gravity=True) for _ in range(len(arm.layout) + EXTRA_POINTS)]
    S, N = len(sets), len(Q)
    atoms, vals = [], []
    for i, t in enumerate(arm.types):
        col = np.broadcast_to(Q[None, :, i], (S, N)).ravel()
        if t == "R":
            atoms += [sp.cos(d.q[i]), sp.sin(d.q[i])]
            vals += [np.cos(col), np.sin(col)]
        else:
            atoms.append(d.q[i])
            vals.append(col)
    for i in range(arm.n):
        atoms.append(d.qd[i])
        vals.append(np.broadcast_to(QD[None, :, i], (S, N)).ravel())
    arrays = [np.broadcast_to(Q[None, :, i], (S, N)) for i in range(arm.n)]
    arrays += [np.broadcast_to(QD[None, :, i], (S, N)) for i in range(arm.n)]
    for s in d.params:
        col = np.array([v[str(s)] for v in sets])[:, None]
        atoms.append(s)
        vals.append(np.broadcast_to(col, (S, N)).ravel())
        arrays.append(np.broadcast_to(col, (S, N)))
    return Q, QD, sets, Grid(tuple(atoms), np.array(vals)), [*d.q, *d.qd, *d.params], arrays


def name_findings(model, arm: SpatialArm, wrong: list[EntryFinding], seed: int,
                  sink: io.StringIO) -> tuple[dict[str, EntryFinding], list[str]]:
    """{entry: the finding with its term named}, and the notes on how terms were named."""
    d = derivation(arm)
    if isinstance(d, NumericOnly):
        return {}, [d.message() + "; the wrong entries are named above, not their terms"]
    Q, QD, sets, grid, symbols, arrays = _grid(d, arm, seed)
    user = evaluate_user(model, arm, sets, Q, QD, sink)
    out = {}
    for f in wrong:
        if f.quantity not in user:
            continue
        terms = entry_terms(d, f.quantity, f.index)
        T = term_values(terms, symbols, arrays) if terms else np.zeros((0, grid.values.shape[1]))
        ref = T.sum(axis=0)
        mine = user[f.quantity][(slice(None), slice(None)) + f.index].ravel()
        qscale = float(np.max(np.abs(np.asarray(user[f.quantity])))) or 1.0
        scale = float(np.max(np.abs(ref))) if ref.size and np.max(np.abs(ref)) > 0 else qscale
        named = name_term(f.entry, mine - ref, terms, T, grid, scale)
        msg = f"term: {named.message}"
        if len(terms) <= 8:
            msg += f"; expected {f.entry} = " + (" + ".join(sp.sstr(t) for t in terms) if terms else "0")
        out[f.entry] = dataclasses.replace(f, messages=[*f.messages, msg])
    notes = [f"terms are named in the general parameters ({', '.join('p.' + k for k in arm.layout)}; a prismatic "
             f"joint's coordinate is q_i itself) from crossdyn's symbolic model, on {len(sets)} more parameter sets "
             f"(gravity varied too) x {len(Q)} states that only name terms; they do not decide what is wrong"]
    return out, notes
