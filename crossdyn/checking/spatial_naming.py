"""Wrong entries of a spatial arm named to the term (issue 27): the symbolic model, the naming grid and the
sentences (:mod:`crossdyn.checking.spatial_terms` does the fitting).

The grid: :data:`EXTRA_POINTS` more states than the arm has state variables (cos qᵢ, sin qᵢ or qᵢ, q̇ᵢ) and as many
more parameter sets than it has parameters, gravity varied too, so that every variable varies independently and
the monomial fit is determined.  These sets only name terms; they do not decide what is wrong (the check's own
sets do).  Term naming needs the symbolic derivation; an arm whose derivation fails or exceeds
:data:`DERIVATION_BUDGET_S` is reported entry by entry with a note that term naming is unavailable.  Naming itself
has a budget too, :data:`NAMING_BUDGET_S`: each wrong entry's terms are expanded in a child process (a large
entry's SymPy expansion cannot be interrupted here), evaluated as products of the grid's values (no lambdify per
term) and fitted at once (:func:`~crossdyn.checking.spatial_terms.candidates`); the entries not named within it are
listed with "term naming unavailable (budget N s)".
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import multiprocessing
import time

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
GRID_MAX_POINTS = 1000
"""The largest every-set-×-every-state naming grid (the presets': 234-459 points); a larger arm's grid pairs each
state with its own set instead (a Puma 560: 189 points instead of 1,352, the user's functions called that often)."""
PAIRED_PER_VARIABLE = 3
"""Points per unknown of the log fit (V variables + 1) on a paired grid."""
EXPANSION_ORDER = {"G": 0, "M": 1, "C": 2, "Cqd": 3}
"""The order entries are expanded and named in, cheapest first (a Puma 560: a G or M entry 0.01-0.3 s, a C entry
about 1 s, a C qd entry 3 s), so that a spent budget leaves the costliest unnamed."""
DERIVATION_BUDGET_S = 20.0
"""Seconds a derivation may take for its terms to be named (the presets take < 0.1 s; a 6R takes minutes)."""
NAMING_BUDGET_S = 20.0
"""Seconds naming the wrong entries' terms may take after the derivation (expanding each entry, in a child process,
and fitting its terms); past it the entries not yet named say "term naming unavailable (budget 20 s)".  A Puma 560
with every entry wrong: see benchmarks/check_spatial.py."""


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
    """(states Q, QD, sets, Grid, the lambdify symbols and arrays, paired): every set × every state (the module
    docstring's grid), or, when that exceeds :data:`GRID_MAX_POINTS`, :data:`PAIRED_PER_VARIABLE` × (V + 1) points
    each with its own state and set (``paired``: set k at state k; every variable still varies independently)."""
    rng = np.random.default_rng(seed + 27_000)
    n_state = sum(2 if t == "R" else 1 for t in arm.types) + arm.n
    N, S = n_state + EXTRA_POINTS, len(arm.layout) + EXTRA_POINTS
    paired = N * S > GRID_MAX_POINTS
    if paired:
        N = S = PAIRED_PER_VARIABLE * (n_state + len(arm.layout) + 1)
    Q, QD = draw_states(arm, N, rng)
    sets = [random_values(arm, rng, vary_gravity=True) for _ in range(S)]
    shape = (S, 1) if paired else (S, N)

    def per_state(col: np.ndarray) -> np.ndarray:
        return col[:, None] if paired else np.broadcast_to(col[None, :], shape)

    atoms, vals, arrays = [], [], []
    for i, t in enumerate(arm.types):
        col = per_state(Q[:, i]).ravel()
        if t == "R":
            atoms += [sp.cos(d.q[i]), sp.sin(d.q[i])]
            vals += [np.cos(col), np.sin(col)]
        else:
            atoms.append(d.q[i])
            vals.append(col)
    for i in range(arm.n):
        atoms.append(d.qd[i])
        vals.append(per_state(QD[:, i]).ravel())
    arrays = [per_state(Q[:, i]) for i in range(arm.n)] + [per_state(QD[:, i]) for i in range(arm.n)]
    for s in d.params:
        col = np.broadcast_to(np.array([v[str(s)] for v in sets])[:, None], shape)
        atoms.append(s)
        vals.append(col.ravel())
        arrays.append(col)
    return Q, QD, sets, Grid(tuple(atoms), np.array(vals)), [*d.q, *d.qd, *d.params], arrays, paired


def _user_on_grid(model, arm: SpatialArm, sets: list[dict], Q: np.ndarray, QD: np.ndarray, sink: io.StringIO,
                  paired: bool) -> dict[str, np.ndarray]:
    """The user's M, C, G on the grid, (S, N, …), or (P, 1, …) for a paired grid (set k at state k only)."""
    if not paired:
        return evaluate_user(model, arm, sets, Q, QD, sink)
    parts = [evaluate_user(model, arm, [v], Q[k:k + 1], QD[k:k + 1], sink) for k, v in enumerate(sets)]
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _expand(d: SpatialDerivation, entries: list[tuple[str, tuple[int, ...]]], conn) -> None:
    """The child's work: each entry's terms (:func:`entry_terms`), sent as (index, terms) as soon as expanded."""
    try:
        for k, (quantity, idx) in enumerate(entries):
            conn.send((k, entry_terms(d, quantity, idx)))
    except Exception:  # noqa: BLE001 — the parent lists the entries not sent as unnamed; no traceback on the terminal
        pass
    finally:
        conn.close()


@contextlib.contextmanager
def expanding(d: SpatialDerivation, entries: list[tuple[str, tuple[int, ...]]], deadline: float):
    """The entries' terms expanded in a child process (SymPy's expansion cannot be interrupted in this one), as an
    iterator of (index, terms) that ends when all are in or ``time.monotonic()`` passes ``deadline``; the child is
    ended on leaving, whatever it had left to do."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_expand, args=(d, entries, child), daemon=True)
    proc.start()
    child.close()

    def received():
        for _ in entries:
            left = deadline - time.monotonic()
            if left <= 0 or not parent.poll(left):
                return
            try:
                yield parent.recv()
            except EOFError:          # the child failed: the entries it did not send are not named
                return

    try:
        yield received()
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join(5.0)
        parent.close()


def _named(f: EntryFinding, terms: list[sp.Expr], user: dict, grid: Grid, symbols, arrays,
           deadline: float) -> EntryFinding | None:
    """``f`` with its term named (:func:`~crossdyn.checking.spatial_terms.name_term`), None past ``deadline``."""
    T = term_values(terms, grid, symbols, arrays) if terms else np.zeros((0, grid.values.shape[1]))
    ref = T.sum(axis=0)
    mine = user[f.quantity][(slice(None), slice(None)) + f.index].ravel()
    qscale = float(np.max(np.abs(np.asarray(user[f.quantity])))) or 1.0
    scale = float(np.max(np.abs(ref))) if ref.size and np.max(np.abs(ref)) > 0 else qscale
    named = name_term(f.entry, mine - ref, terms, T, grid, scale, deadline)
    if named is None:
        return None
    msg = f"term: {named.message}"
    if len(terms) <= 8:
        msg += f"; expected {f.entry} = " + (" + ".join(sp.sstr(t) for t in terms) if terms else "0")
    return dataclasses.replace(f, messages=[*f.messages, msg])


def name_findings(model, arm: SpatialArm, wrong: list[EntryFinding], seed: int,
                  sink: io.StringIO) -> tuple[dict[str, EntryFinding], list[str]]:
    """{entry: the finding with its term named}, and the notes on how terms were named.  Naming (after the
    derivation) stops at :data:`NAMING_BUDGET_S`: the wrong entries not named by then say "term naming unavailable
    (budget N s)" and a note says how many."""
    d = derivation(arm)
    if isinstance(d, NumericOnly):
        return {}, [d.message() + "; the wrong entries are named above, not their terms"]
    budget = NAMING_BUDGET_S
    deadline = time.monotonic() + budget
    Q, QD, sets, grid, symbols, arrays, paired = _grid(d, arm, seed)
    order = sorted(wrong, key=lambda f: EXPANSION_ORDER[f.quantity])     # the cheap entries first
    todo = list(order)
    out: dict[str, EntryFinding] = {}
    with expanding(d, [(f.quantity, f.index) for f in order], deadline) as expanded:
        user = _user_on_grid(model, arm, sets, Q, QD, sink, paired)     # while the child expands the entries' terms
        todo = [f for f in todo if f.quantity in user]
        for k, terms in expanded:
            f = order[k]
            if f.quantity not in user:
                continue
            named = _named(f, terms, user, grid, symbols, arrays, deadline)
            if named is None:
                break
            out[f.entry] = named
    late = [f for f in todo if f.entry not in out]
    out |= {f.entry: dataclasses.replace(f, messages=[*f.messages, f"term: term naming unavailable (budget "
                                                                   f"{budget:g} s)"]) for f in late}
    notes = [f"terms are named in the general parameters ({', '.join('p.' + k for k in arm.layout)}; a prismatic "
             f"joint's coordinate is q_i itself) from crossdyn's symbolic model, on "
             + (f"{len(sets)} more random states, each with its own parameter set" if paired else
                f"{len(sets)} more parameter sets (gravity varied too) x {len(Q)} states")
             + " that only name terms; they do not decide what is wrong"]
    if late:
        notes.append(f"term naming stopped at its budget of {budget:g} s (after the derivation): {len(late)} of "
                     f"{len(todo)} wrong entries are listed without their terms (term naming unavailable)")
    return out, notes
