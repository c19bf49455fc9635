"""Naming the term a user's spatial M, C or G entry gets wrong, from the collected derivation.

The correct entry is Σ_t τ_t with named terms τ_t = π_k · (one monomial of Y_k): ``m2*q2**2``, ``Iyy1``,
``g*m3``, ``2*a1*cx2*m2*cos(q2)`` (:mod:`crossdyn.analytic.spatial_symbolic`'s collected form split into its
monomials).  A user's entry e_user is evaluated at random states and random parameter sets (every parameter drawn
independently, so that no two terms are proportional across the sets), and the error e_user − e is fitted by
least squares to the terms:

    e_user − e = Σ_t β_t τ_t      (β rounded to simple fractions; exact when the residual is ≤ 1e-9 of the scale)

β_t = −1 is a **missing** term, −2 a **wrong sign**, another β a **wrong factor** (the user's coefficient is
1 + β times the correct one).  An error outside the span of the terms (a wrong power, L where Lc belongs on a
term that does not exist) is reported as not explained by the entry's terms.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np
import sympy as sp

from crossdyn.analytic.spatial_symbolic import SpatialDerivation

RESIDUAL_TOL = 1e-9
"""Largest residual of the fit, relative to the largest |error| over the samples, for an error to count as
explained (double-precision least squares on ≤ 100 well-scaled columns leaves ≤ ~1e-12)."""


@dataclass(frozen=True)
class TermFinding:
    """The wrong terms of one entry: (term, β) with e_user − e = Σ β·term, or ``explained`` False."""

    entry: str
    terms: tuple[tuple[str, Fraction], ...]
    explained: bool

    def messages(self) -> list[str]:
        if not self.explained:
            return [f"{self.entry}: the difference is not a combination of the entry's terms (a wrong power, a "
                    "factor the entry does not have, or a term that belongs elsewhere)"]
        out = []
        for term, beta in self.terms:
            if beta == -1:
                out.append(f"{self.entry}: the term {term} is missing")
            elif beta == -2:
                out.append(f"{self.entry}: the term {term} has the wrong sign")
            else:
                out.append(f"{self.entry}: the term {term} is multiplied by {1 + beta} (expected 1)")
        return out


def entry_terms(d: SpatialDerivation, key: tuple[str, int, int]) -> list[sp.Expr]:
    """The named terms of entry ``key`` (("M", i, j) 0-based, j ≥ i for M): π_k times each monomial of Y_k."""
    out = []
    for pi, Y in d.collected[key]:
        out += [pi * t for t in sp.Add.make_args(sp.expand(Y)) if t != 0]
    return out


def entry_name(key: tuple[str, int, int]) -> str:
    name, i, j = key
    return f"{name}{i + 1}" if name == "G" else f"{name}{i + 1}{j + 1}"


def _samples(d: SpatialDerivation, values: dict, count: int, rng: np.random.Generator):
    params = {}
    for s in d.params:
        v = float(values.get(str(s), 0.0))
        base = abs(v) if v != 0.0 else 0.1
        params[str(s)] = np.sign(v or 1.0) * base * rng.uniform(0.5, 1.5, count)
    Q = rng.uniform(-2.0, 2.0, (count, d.n))
    QD = rng.uniform(-2.0, 2.0, (count, d.n))
    return params, Q, QD


def name_error(d: SpatialDerivation, key: tuple[str, int, int], user: Callable, values: dict,
               seed: int = 0) -> TermFinding | None:
    """What the user's entry gets wrong (None when it equals the correct entry at every sample).

    ``user(q, qd, p)`` returns the user's value of the entry at one state, ``p`` an object with the parameters as
    attributes (``p.m2``, ``p.g``; parameters the arm lacks are 0).  ``values`` are the arm's numbers (the samples
    scale each by a random factor in [0.5, 1.5])."""
    terms = entry_terms(d, key)
    rng = np.random.default_rng(seed)
    count = max(40, 4 * len(terms))
    params, Q, QD = _samples(d, values, count, rng)
    args = (d.q, d.qd, d.params)
    pvals = tuple(params[str(s)] for s in d.params)
    correct = sum((term for term in terms), sp.Integer(0))
    f_correct = sp.lambdify(args, correct, modules="numpy")
    ref = np.broadcast_to(f_correct(tuple(Q.T), tuple(QD.T), pvals), (count,))

    class P:
        pass

    mine = np.empty(count)
    for k in range(count):
        p = P()
        for s in d.params:
            setattr(p, str(s), float(params[str(s)][k]))
        mine[k] = float(user(Q[k], QD[k], p))
    err = mine - ref
    scale = max(float(np.max(np.abs(ref))), 1e-300)
    if float(np.max(np.abs(err))) <= 1e-12 * scale:
        return None
    if not terms:
        return TermFinding(entry_name(key), (), False)
    columns = sp.lambdify(args, terms, modules="numpy")(tuple(Q.T), tuple(QD.T), pvals)
    A = np.stack([np.broadcast_to(c, (count,)) for c in columns], axis=1)
    beta, *_ = np.linalg.lstsq(A, err, rcond=None)
    residual = float(np.max(np.abs(A @ beta - err)))
    if residual > RESIDUAL_TOL * float(np.max(np.abs(err))):
        return TermFinding(entry_name(key), (), False)
    found = tuple((sp.sstr(t), Fraction(b).limit_denominator(12)) for t, b in zip(terms, beta, strict=True)
                  if abs(b) > 1e-6)
    return TermFinding(entry_name(key), found, True)
