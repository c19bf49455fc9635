"""Diagnosis of a wrong entry: which terms are off, and how the error depends on the parameters.

Why this works
--------------
Every entry of the equations of a planar serial arm is, for fixed parameters, a
finite sum of known *shapes* of terms:

* M(q) and G(q): a constant plus cosines and sines of joint angles and of their
  contiguous sums (q2, q2+q3, q1+q2+q3, …) — M_ij = Σ a·cos(q_k + … + q_l),
  G_i = Σ g·m·L·cos(θ) for gravity along −y;
* C(q, q̇) q̇: the same trigonometric terms multiplied by a product of two joint
  velocities q̇_j q̇_k;
* the C matrix: the same trigonometric terms multiplied by one velocity q̇_j.

These functions are linearly independent, so evaluating an entry at many random
states (more states than basis functions) and solving the linear least-squares
problem ``values ≈ Φ c`` recovers its coefficients *exactly* (to rounding) when
the entry lies in the span — which the reference always does.  Fitting the
user's entry and the reference's entry with the same Φ, on the same states,
gives "found" and "expected" coefficients term by term; the terms whose
coefficients differ are the terms the user got wrong.  The part of the user's
residual that the basis does not explain (e.g. a ``cos(q2)**2`` or a
``cos(q2)*cos(q3)`` product where ``cos(q2+q3)`` belongs) is reported as a
fraction, so an inexact fit is never presented as exact.

Parameter dependence
--------------------
For fixed states, each coefficient is a polynomial in the arm's parameters
(e.g. the cos q2 term of M11 in a 2R is 2 m2 Lc2 L1).  Across the K + 1
parameter sets the *difference* of a coefficient (user − expected) is therefore
a short polynomial when the user made one mistake.  :func:`explain_difference`
looks for it among monomials made of a mass factor (1, mᵢ, mᵢ + … + mₙ, Jᵢ) and
up to three lengths (Lᵢ, Lcᵢ), trying every single monomial and every pair
(least squares over the parameter sets), and accepts only an *exact* fit — with
K + 1 ≥ 4 parameter sets an exact fit by one or two monomials cannot happen by
chance.  "m2*L1 - m2*L1^2" then reads: the user wrote m2 L1 where m2 L1² belongs.
Monomials that are proportional at every set (a rod's m3*Lc3² and J3) count as
one candidate, named by the member with the simplest coefficient.  A slip inside
a bracket changes several monomials with one mass factor ("m3*(L1 + L2) where
m3*(L1^2 + L2^2) belongs"): those are found by dividing by each mass factor and
fitting all length products at once, which is unique when there are more
parameter sets than products.  Which parameters a monomial may name is the
checker's choice (:func:`crossdyn.checking.general_sets.general_sets`): the ones the
user's file actually uses.

Independently, :func:`classify_dependence` turns finite-difference sensitivities
∂e/∂ln P of the user's entry, the reference entry and their difference — one
parameter P at a time, computed by :func:`crossdyn.checking.entry_diagnosis.sensitivities` — into statements: the entry
depends on a parameter it should not, does not depend on one it should, and
which parameters the error involves.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

EXACT_FIT = 1e-6
"""Relative residual below which a fit counts as exact (rounding is ~1e-13)."""


# ------------------------------------------------------------------ bases

def angle_combinations(n: int, include_q1: bool = True) -> list[tuple[int, int]]:
    """Contiguous sums q_i + … + q_j as 0-based (i, j), shortest first: q1, q2, …, q1+q2, …"""
    out = [(i, i + length - 1) for length in range(1, n + 1) for i in range(n - length + 1)]
    return [c for c in out if include_q1 or c[0] > 0]


def angle_label(i: int, j: int) -> str:
    return "+".join(f"q{k + 1}" for k in range(i, j + 1))


def _trig(q: np.ndarray, include_q1: bool) -> tuple[list[str], list[np.ndarray]]:
    n = q.shape[-1]
    csum = np.concatenate([np.zeros(q.shape[:-1] + (1,)), np.cumsum(q, axis=-1)], axis=-1)
    names, cols = ["1"], [np.ones(q.shape[:-1])]
    for i, j in angle_combinations(n, include_q1):
        phi = csum[..., j + 1] - csum[..., i]
        lab = angle_label(i, j)
        names += [f"cos({lab})", f"sin({lab})"]
        cols += [np.cos(phi), np.sin(phi)]
    return names, cols


def _velocity_factors(qd: np.ndarray, order: int) -> tuple[list[str], list[np.ndarray]]:
    n = qd.shape[-1]
    if order == 1:
        return [f"qd{j + 1}" for j in range(n)], [qd[..., j] for j in range(n)]
    names, cols = [], []
    for j, k in itertools.combinations_with_replacement(range(n), 2):
        names.append(f"qd{j + 1}^2" if j == k else f"qd{j + 1}*qd{k + 1}")
        cols.append(qd[..., j] * qd[..., k])
    return names, cols


@dataclass(frozen=True)
class Basis:
    """Named basis functions evaluated at the states: ``matrix`` has shape (N, B)."""

    kind: str
    names: tuple[str, ...]
    matrix: np.ndarray
    note: str = ""

    @property
    def size(self) -> int:
        return len(self.names)


VELOCITY_ORDER = {"M": 0, "G": 0, "C": 1, "Cqd": 2}
"""How many joint velocities multiply the trigonometric terms of each quantity."""


def make_basis(quantity: str, q: np.ndarray, qd: np.ndarray | None = None) -> Basis | None:
    """The basis for ``quantity`` (``"M"``, ``"G"``, ``"C"`` matrix, ``"Cqd"`` = C q̇) at states q, q̇.

    Returns ``None`` when there are too few states for the basis (fewer than twice
    its size), after first dropping the angle sums that contain q1 (which M and C
    of a planar arm never contain) for M and C.
    """
    order = VELOCITY_ORDER[quantity]
    N = q.shape[0]
    note = ""
    for include_q1 in (True, False):
        if not include_q1 and quantity == "G":
            return None
        tnames, tcols = _trig(q, include_q1)
        if order == 0:
            names, cols = tnames, tcols
        else:
            assert qd is not None, f"{quantity}: the basis needs the joint velocities"
            vnames, vcols = _velocity_factors(qd, order)
            names, cols = [], []
            for vn, vc in zip(vnames, vcols, strict=True):
                for tn, tc in zip(tnames, tcols, strict=True):
                    names.append(vn if tn == "1" else f"{vn}*{tn}")
                    cols.append(vc * tc)
        if 2 * len(names) <= N:
            return Basis(quantity, tuple(names), np.stack(cols, axis=-1), note)
        note = "terms with q1 left out (too few states for the full basis)"
    return None


def fit(basis: Basis, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares coefficients of ``values`` (N, S) in the basis: (B, S), and residual norms (S,)."""
    coef, *_ = np.linalg.lstsq(basis.matrix, values, rcond=None)
    resid = np.linalg.norm(values - basis.matrix @ coef, axis=0)
    return coef, resid


@dataclass
class TermDiff:
    """One term whose coefficient differs: found (user) vs expected (reference)."""

    term: str
    found: float
    expected: float
    difference: str | None = None   # polynomial form of (found − expected) across parameter sets
    reading: str | None = None      # plain-language reading of it

    def describe(self) -> str:
        what = "the constant term" if self.term == "1" else f"the {self.term} term"
        return f"{what} has coefficient {fmt(self.found)}, expected {fmt(self.expected)}"

    def to_dict(self) -> dict:
        return {"term": self.term, "found": self.found, "expected": self.expected,
                "difference": self.difference, "reading": self.reading}


def off_terms(names, c_user: np.ndarray, c_ref: np.ndarray, tol: float, exact: bool, limit: int = 8):
    """Indices of terms whose coefficients differ by more than ``tol``, largest first.

    When the fit is not exact, coefficients are contaminated by the unexplained
    part, so only differences above 5 % of the largest one are kept.
    """
    diff = np.abs(c_user - c_ref)
    if diff.size == 0 or diff.max() <= tol:
        return []
    floor = max(tol, (1e-3 if exact else 5e-2) * diff.max())
    idx = [int(i) for i in np.argsort(-diff) if diff[i] > floor]
    return idx[:limit]


# ------------------------------------------------------------------ numbers

def fmt(x: float, digits: int = 4) -> str:
    """Four significant digits, trailing zeros kept (``1.000``, ``0.1500``); tiny values as 0."""
    x = float(x)
    if abs(x) < 1e-12:
        return "0"
    return f"{x:#.{digits}g}".rstrip(".") if abs(x) < 1e6 else f"{x:.{digits - 1}e}"


def _nice(c: float) -> tuple[int, str]:
    """(score, text) of a coefficient: 1 → '', integers and small fractions → '3', '1/2', else decimals."""
    frac = Fraction(c).limit_denominator(24)
    if abs(float(frac) - c) <= 1e-6 * max(1.0, abs(c)):
        a = abs(frac)
        if a == 1:
            return 0, ""
        if a.denominator == 1:
            return 1, f"{a.numerator}"
        return 2, f"{a.numerator}/{a.denominator}"
    return 4, f"{abs(c):.4g}"


def format_polynomial(coefs, names) -> str:
    parts = []
    for c, name in zip(coefs, names, strict=True):
        _, text = _nice(float(c))
        term = f"{text}*{name}" if text and name != "1" else (text or name)
        if name == "1" and not text:
            term = "1"
        sign = "-" if c < 0 else "+"
        parts.append((sign, term))
    out = ""
    for k, (sign, term) in enumerate(parts):
        if k == 0:
            out = ("-" if sign == "-" else "") + term
        else:
            out += f" {sign} {term}"
    return out


# ------------------------------------------------------------------ parameter monomials

@dataclass(frozen=True)
class Monomials:
    """Candidate monomials evaluated at every parameter set: ``values`` (S, C)."""

    names: tuple[str, ...]
    values: np.ndarray
    degree: tuple[int, ...]
    factors: tuple = ()
    """(name, values (S,)) of each mass factor (1, mᵢ, mᵢ + … + mₙ; times |g| for G)."""
    products: tuple = ()
    """(name, values (S,), degree) of each length product (1, Lᵢ, Lᵢ·Lcⱼ, …): monomial = factor × product."""


def monomials(L, m, Lc, J, kinds, factor: float = 1.0, factor_name: str = "", max_candidates: int = 1500):
    """Monomials (mass factor) × (up to three lengths) over the parameter sets.

    ``L, m, Lc, J`` have shape (S, n); ``kinds[i]`` is ``"rod"``, ``"point"`` or
    ``"general"``.  A point mass's Lc (= L) and J (= 0) are left out; a rod's Lc
    (= L/2) and J (= mL²/12) stay, although they follow from L and m, so that the
    difference can be written in the symbols the user wrote: among equivalent exact
    fits the one with the simplest coefficients wins (``m3*L2*Lc3`` rather than
    ``1/2*m3*L2*L3``).  ``factor`` multiplies every monomial (|g| for G,
    printed as ``factor_name``).  The length degree is lowered until at most
    ``max_candidates`` monomials remain.
    """
    S, n = L.shape
    lengths = [(f"L{i + 1}", L[:, i]) for i in range(n)]
    lengths += [(f"Lc{i + 1}", Lc[:, i]) for i in range(n) if kinds[i] != "point"]
    masses = [("", np.ones(S))] + [(f"m{i + 1}", m[:, i]) for i in range(n)]
    masses += [("(" + "+".join(f"m{k + 1}" for k in range(i, n)) + ")", m[:, i:].sum(axis=1))
               for i in range(0, n - 1)]
    inertias = [(f"J{i + 1}", J[:, i]) for i in range(n) if kinds[i] != "point" and np.any(J[:, i] != 0)]
    for max_deg in (3, 2, 1):
        count = len(masses) * sum(_n_combos(len(lengths), d) for d in range(max_deg + 1)) + \
            len(inertias) * (1 + len(lengths))
        if count <= max_candidates or max_deg == 1:
            break
    names, cols, degs = [], [], []

    def add(parts, values, deg):
        label = "*".join(p for p in parts if p)
        if factor_name:
            label = f"{factor_name}*{label}" if label else factor_name
        names.append(label or "1")
        cols.append(values * factor)
        degs.append(deg)

    for mname, mval in masses:
        for d in range(max_deg + 1):
            for combo in itertools.combinations_with_replacement(range(len(lengths)), d):
                val = mval.copy()
                for c in combo:
                    val = val * lengths[c][1]
                add([mname, _length_product([lengths[c][0] for c in combo])], val, d + bool(mname))
    for jname, jval in inertias:
        add([jname], jval, 1)
        for lname, lval in lengths:
            add([jname, lname], jval * lval, 2)
    factors = tuple(((f"{factor_name}*{mname}" if factor_name and mname else factor_name or mname or "1"),
                     mval * factor) for mname, mval in masses)
    products = []
    for d in range(max_deg + 1):
        for combo in itertools.combinations_with_replacement(range(len(lengths)), d):
            val = np.ones(S)
            for c in combo:
                val = val * lengths[c][1]
            products.append((_length_product([lengths[c][0] for c in combo]) or "1", val, d))
    return Monomials(tuple(names), np.stack(cols, axis=-1), tuple(degs), factors, tuple(products))


def _n_combos(k: int, d: int) -> int:
    from math import comb

    return comb(k + d - 1, d)


def _length_product(names: list[str]) -> str:
    out = []
    for name, group in itertools.groupby(names):
        power = len(list(group))
        out.append(name if power == 1 else f"{name}^{power}")
    return "*".join(out)


def _collinear_groups(An: np.ndarray) -> list[list[int]]:
    """Columns of ``An`` (unit norm) grouped by exact collinearity (±1 after normalisation).

    Under a rod's Lc = L/2, J = mL²/12 (or a point mass's Lc = L) several monomials are
    proportional over every parameter set (``m3*L3^2``, ``m3*Lc3^2``, ``J3``): they are one
    candidate for the search, and the member with the simplest coefficient names it.
    """
    C = An.shape[1]
    # a cheap hash: |projection| on one fixed direction, then confirm with dot products
    key = np.round(np.abs(An.T @ np.linspace(1.0, 2.0, An.shape[0])), 9)
    order = np.argsort(key, kind="stable")
    groups: list[list[int]] = []
    seen = np.zeros(C, bool)
    for a in range(C):
        i = order[a]
        if seen[i]:
            continue
        group = [int(i)]
        seen[i] = True
        b = a + 1
        while b < C and key[order[b]] - key[i] <= 1e-6 * max(1.0, key[i]):
            j = order[b]
            if not seen[j] and abs(float(An[:, i] @ An[:, j])) > 1 - 1e-12:
                group.append(int(j))
                seen[j] = True
            b += 1
        groups.append(group)
    return groups


def explain_difference(delta: np.ndarray, cands: Monomials, max_terms: int = 2) -> tuple[list[float], list[str]] | None:
    """The shortest exact fit of ``delta`` (one value per parameter set) by ≤ ``max_terms`` monomials, or None.

    Every single monomial and every pair is tried (normal equations on unit-norm
    columns); at most S − 2 monomials are used for S parameter sets, so an exact
    fit is never the trivial one of a square system.  Candidates proportional over
    every set (see :func:`_collinear_groups`) count as one.  When no one or two
    monomials fit, longer differences that share one mass factor are found by
    :func:`_factored` (a unique fit over all length products).  Among exact fits (relative
    residual < :data:`EXACT_FIT`, re-solved with ``lstsq``) the one with fewer terms,
    then simpler coefficients (±1, integers, small fractions), then lower degree wins.
    """
    delta = np.asarray(delta, float)
    S = delta.shape[0]
    norm = float(np.linalg.norm(delta))
    if S < 4 or norm == 0.0 or not np.all(np.isfinite(delta)):
        return None
    max_terms = max(1, min(max_terms, S - 2))
    A = cands.values
    cn = np.linalg.norm(A, axis=0)
    keep = np.flatnonzero(cn > 0)
    An_all = A[:, keep] / cn[keep]
    groups = _collinear_groups(An_all)
    reps = np.array([keep[g[0]] for g in groups])
    members = [[int(keep[j]) for j in g] for g in groups]
    An = A[:, reps] / cn[reps]
    d = delta / norm
    proj = An.T @ d
    R = len(reps)

    def verified(supports) -> list:
        out = []
        for combo in supports:
            cols = A[:, [reps[c] for c in combo]]
            coef, *_ = np.linalg.lstsq(cols, delta, rcond=None)
            resid = np.linalg.norm(delta - cols @ coef) / norm
            if resid > EXACT_FIT or np.any(coef == 0):
                continue
            out.append(_name_support(A, cands, [members[c] for c in combo], [reps[c] for c in combo], coef))
        return out

    found = verified([(int(i),) for i in np.flatnonzero(1.0 - proj**2 < 1e-8)])
    if not found and max_terms >= 2 and R >= 2:
        G = An.T @ An
        iu, ju = np.triu_indices(R, 1)
        gij = G[iu, ju]
        det = 1.0 - gij**2
        ok = det > 1e-9
        xi = np.where(ok, (proj[iu] - gij * proj[ju]) / np.where(ok, det, 1), 0)
        xj = np.where(ok, (proj[ju] - gij * proj[iu]) / np.where(ok, det, 1), 0)
        r2 = np.where(ok, 1.0 - (xi * proj[iu] + xj * proj[ju]), np.inf)
        order = np.argsort(r2)[:64]
        found = verified([(int(iu[t]), int(ju[t])) for t in order if r2[t] < 1e-6])
    if not found and cands.factors:
        found = _factored(delta, cands, max(max_terms, 6))
    if not found:
        return None
    _, coefs, names, order = min(found, key=lambda f: f[0])
    ranked = sorted(range(len(coefs)), key=lambda t: (coefs[t] < 0, order[t]))
    return [coefs[t] for t in ranked], [names[t] for t in ranked]


def _factored(delta: np.ndarray, cands: Monomials, max_terms: int) -> list:
    """Exact fits of 3 … ``max_terms`` monomials sharing one mass factor: ``m3*(L1 + L2 - L1^2 - L2^2)``.

    One slip in a bracket (``m3*(L1 + L2 + …)`` for ``m3*(L1**2 + L2**2 + …)``) changes
    several monomials with the same mass factor.  Dividing by each factor leaves a
    polynomial in the lengths alone; when there are more parameter sets than length
    products (of degree ≤ 2, or ≤ 3 where the sets allow) the least-squares fit over
    *all* products is unique, so an exact fit with few non-zero coefficients is the
    difference itself, not one choice among many.
    """
    norm = float(np.linalg.norm(delta))
    S = delta.shape[0]
    found = []
    for max_deg in (3, 2):
        chosen = [k for k, (_, _, d) in enumerate(cands.products) if d <= max_deg]
        P_all = np.stack([cands.products[k][1] for k in chosen], axis=-1)
        groups = _collinear_groups(P_all / np.linalg.norm(P_all, axis=0))   # a rod's L and Lc: one column
        if len(groups) + 2 <= S:
            break
    else:
        return []
    P = np.stack([P_all[:, g[0]] for g in groups], axis=-1)
    if np.linalg.matrix_rank(P) < P.shape[1]:
        return []
    for fname, fval in cands.factors:
        if np.any(fval == 0):
            continue
        cols = P * fval[:, None]
        coef, *_ = np.linalg.lstsq(cols, delta, rcond=None)
        if np.linalg.norm(delta - cols @ coef) / norm > EXACT_FIT:
            continue
        support = [c for c in range(len(coef)) if abs(coef[c]) * np.linalg.norm(cols[:, c]) > 1e-7 * norm]
        if not 3 <= len(support) <= max_terms:
            continue
        coefs, names, deg, nice, order = [], [], 0, 0, []
        for c in support:
            best = None
            for j in groups[c]:
                cj = float(coef[c]) * float(P_all[:, groups[c][0]] @ P_all[:, j]) / float(P_all[:, j] @ P_all[:, j])
                key = (_nice(cj)[0], cands.products[chosen[j]][2], j)
                if best is None or key < best[0]:
                    best = (key, cj, j)
            assert best is not None     # every group has a member
            key, cj, j = best
            pname = cands.products[chosen[j]][0]
            names.append(fname if pname == "1" else (pname if fname == "1" else f"{fname}*{pname}"))
            coefs.append(cj)
            order.append(chosen[j])
            nice += key[0]
            deg += key[1]
        found.append(((len(support), nice, deg, tuple(support)), coefs, names, order))
    return found


def _name_support(A, cands: Monomials, groups: list[list[int]], reps: list[int], coef) -> tuple:
    """(score, coefficients, names) of an exact fit, each candidate named by its simplest group member."""
    coefs, names, index, nice, degree = [], [], [], 0, 0
    for group, rep, c in zip(groups, reps, coef, strict=True):
        best = None
        for j in group:
            mu = float(A[:, rep] @ A[:, j]) / float(A[:, j] @ A[:, j])
            cj = float(c) * mu
            s = (_nice(cj)[0], cands.degree[j], j)
            if best is None or s < best[0]:
                best = (s, cj, j)
        assert best is not None         # every group has a member
        (s_nice, s_deg, _), cj, j = best
        coefs.append(cj)
        names.append(cands.names[j])
        index.append(j)
        nice += s_nice
        degree += s_deg
    return (len(coefs), nice, degree, tuple(sorted(index))), coefs, names, index


def _side(coefs: list[float], names: list[str]) -> str:
    """A sum of monomials with a common factor taken out: ``m3*(L1^2 + L2^2)``."""
    if len(names) >= 2:
        factors = [n.split("*") for n in names]
        common = [f for f in factors[0] if all(f in fs for fs in factors[1:])]
        rest = []
        for fs in factors:
            left = list(fs)
            for f in common:
                left.remove(f)
            rest.append("*".join(left) or "1")
        if common and all(r != "1" for r in rest):
            return "*".join(common) + "*(" + format_polynomial(coefs, rest) + ")"
    return format_polynomial(coefs, names)


def reading(coefs: list[float], names: list[str]) -> str:
    """A plain reading of a difference polynomial (yours − expected).

    Positive terms are what the user has, negative ones what belongs there:
    ``m3*L1 + m3*L2 - m3*L1^2 - m3*L2^2`` reads "yours has m3*(L1 + L2) where
    m3*(L1^2 + L2^2) belongs".
    """
    pos = [(c, n) for c, n in zip(coefs, names, strict=True) if c > 0]
    neg = [(-c, n) for c, n in zip(coefs, names, strict=True) if c < 0]
    if pos and neg:
        return (f"yours has {_side([c for c, _ in pos], [n for _, n in pos])} where "
                f"{_side([c for c, _ in neg], [n for _, n in neg])} belongs")
    if pos:
        return f"yours has {_side([c for c, _ in pos], [n for _, n in pos])} too much"
    if neg:
        return f"yours lacks {_side([c for c, _ in neg], [n for _, n in neg])}"
    return ""


# ------------------------------------------------------------------ sensitivities

def classify_dependence(entry: str, params: list[str], d_user, d_ref, d_err, eps: float) -> list[str]:
    """Statements about parameter dependence from sensitivities ∂e/∂ln P (one value per parameter).

    * the reference does not change with P but the user's entry does → "depends on P, which it should not";
    * the reference changes with P but the user's entry does not → "does not depend on P, but it should";
    * the parameters the error (user − reference) changes with are the ones the mistake involves.
    """
    d_user, d_ref, d_err = (np.asarray(a, float) for a in (d_user, d_ref, d_err))
    should_not = [p for p, u, r in zip(params, d_user, d_ref, strict=True) if r <= eps < u]
    missing = [p for p, u, r in zip(params, d_user, d_ref, strict=True) if u <= eps < r]
    involved = [p for p, e in zip(params, d_err, strict=True) if e > eps]
    out = []
    if should_not:
        out.append(f"{entry} depends on {_list(should_not)}, which it should not")
    if missing:
        out.append(f"{entry} does not depend on {_list(missing)}, but it should")
    if involved and len(involved) < len(params):
        out.append(f"the error in {entry} involves {_list(involved)} (it does not change with the other parameters)")
    elif involved:
        out.append(f"the error in {entry} changes with every parameter")
    return out


def _list(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
