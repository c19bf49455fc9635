"""The Lagrangian M, C, G of a spatial serial arm (revolute and prismatic joints), symbolic and collected per
inertial parameter, built to finish in seconds.

Kinematics in link frames (:mod:`crossdyn.analytic.spatial_arm`: ⁱ⁻¹Xᵢ = A_i · Motion_i(q_i) · B_i).  With
R = R_A R_M R_B and p = p_A + R_A (p_M + R_M p_B) the pose of link i in link i−1, the body Jacobians of link i
(angular velocity ω_i = J_ω,i q̇ and velocity of its frame origin v_i = J_v,i q̇, both in link i's frame) are

    J_ω,i = Rᵀ J_ω,i−1 + e_iᵀ ⊗ R_Bᵀ a                          (a: the joint axis; revolute only)
    J_v,i = Rᵀ (J_v,i−1 − [p]× J_ω,i−1) + e_iᵀ ⊗ R_Bᵀ (a × p_B)    (revolute)
                                          + e_iᵀ ⊗ R_Bᵀ a            (prismatic),

the velocity of the centre of mass c_i is J_c,i q̇ with J_c,i = J_v,i − [c_i]× J_ω,i, and

    M = Σ_i ( m_i J_c,iᵀ J_c,i + J_ω,iᵀ I_i J_ω,i ),    U = −Σ_i m_i gᵀ (p⁰_i + R⁰_i c_i),    G = ∂U/∂q,
    C_ij = Σ_k Γ_ijk q̇_k,   Γ_ijk = ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i)   (Christoffel symbols),

with I_i the inertia about the centre of mass in link i's frame and (p⁰_i, R⁰_i) link i's pose in the base.

Speed: everything is a polynomial in cᵢ = cos qᵢ, sᵢ = sin qᵢ (revolute), qᵢ (prismatic), q̇, the geometry,
gravity and inertial symbols, computed in SymPy's sparse polynomial ring (no ``Expr`` trees, no ``trigsimp``):
a revolute coordinate's derivative is ∂/∂qᵢ = −sᵢ ∂/∂cᵢ + cᵢ ∂/∂sᵢ, and after every product the polynomial is
reduced modulo sᵢ² + cᵢ² − 1 (the remainder with sᵢ² → 1 − cᵢ², a normal form: these generators are a Gröbner
basis).  So every entry has one canonical form, with each sᵢ of degree ≤ 1, and zero is recognised exactly.

Collected per inertial parameter: each entry is Σ_k π_k Y_k(q, q̇, geometry, g) with π_k a monomial of the link's
inertial symbols (m2, m2*cx2, m2*cz2**2, Izz2 …): the centre of mass is c itself (cx2, …, as a student writes
m2*(d2 - cz2)**2), so π_k runs over m, m·c, m·c·c and the inertia entries; :attr:`SpatialDerivation.collected`
holds the pairs.  A prismatic joint's coordinate is q_i (a student's d2 is q2).

Where consecutive revolute joints have parallel axes (the elbow's shoulder and elbow), each entry is printed in
the shorter of two normal forms: in cos qᵢ, sin qᵢ, or in the cosines and sines of the run's absolute angles
(cos(q2 + q3), the textbook's c23: the same reduction with c3 = c23 c2 + s23 s2, s3 = s23 c2 − c23 s2), so that
M11 reads m3 (a2² c2² + 2 a2 a3 c2 c23 + a3² c23²) and M22 keeps 2 a2 a3 c3, as in Spong's derivation.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable

import numpy as np
import sympy as sp
from sympy.polys.constructor import construct_domain
from sympy.polys.domains import EX, QQ, ZZ
from sympy.polys.rings import PolyElement, ring

from crossdyn.analytic.spatial_arm import SymArm


@dataclass(frozen=True)
class SpatialDerivation:
    """M, C, G of an arm in symbols, the per-parameter collection and the symbols (see the module docstring)."""

    name: str
    types: str
    """One letter per joint: R (revolute) or P (prismatic)."""
    q: tuple
    qd: tuple
    params: tuple
    """Every parameter symbol, in order: geometry (a1, d1, …), gravity (g), inertial (m1, cx1, …, Izz1, m2, …)."""
    inertial: tuple
    """The inertial symbols (the tail of ``params``): 0 where a value is not given."""
    M: sp.Matrix
    C: sp.Matrix
    G: sp.Matrix
    collected: dict
    """{("M", i, j) | ("C", i, j) | ("G", i, 0): ((π_k, Y_k), …)} (0-based; M for j ≥ i only)."""
    seconds: float
    """Wall time of the derivation (or of reading the shipped file)."""

    @property
    def n(self) -> int:
        return len(self.q)

    @cached_property
    def _compiled(self) -> tuple[Callable, Callable, Callable]:
        n = self.n
        upper = [self.M[i, j] for i in range(n) for j in range(i, n)]
        fM = sp.lambdify((self.q, self.params), upper, modules="numpy", cse=True)
        fC = sp.lambdify((self.q, self.qd, self.params), list(self.C), modules="numpy", cse=True)
        fG = sp.lambdify((self.q, self.params), list(self.G), modules="numpy", cse=True)
        return fM, fC, fG

    def param_values(self, values: dict) -> tuple:
        """The parameter tuple for ``values`` (symbol name → float, broadcastable arrays allowed; inertial
        parameters not given are 0)."""
        inertial = set(self.inertial)
        out = []
        for s in self.params:
            if str(s) in values:
                out.append(np.asarray(values[str(s)], float))
            elif s in inertial:
                out.append(np.asarray(0.0))
            else:
                raise KeyError(f"{self.name}: no value for the parameter {s}")
        return tuple(out)

    def mass_matrix(self, Q, values: dict) -> np.ndarray:
        """M(q), batched over Q's leading axes (…, n) → (…, n, n)."""
        Q = np.asarray(Q, float)
        n = self.n
        vals = self._compiled[0](tuple(Q[..., i] for i in range(n)), self.param_values(values))
        out = np.empty(Q.shape[:-1] + (n, n))
        k = 0
        for i in range(n):
            for j in range(i, n):
                out[..., i, j] = out[..., j, i] = vals[k]
                k += 1
        return out

    def coriolis_matrix(self, Q, QD, values: dict) -> np.ndarray:
        """C(q, q̇) (Christoffel), (…, n, n)."""
        Q, QD = np.asarray(Q, float), np.asarray(QD, float)
        n = self.n
        vals = self._compiled[1](tuple(Q[..., i] for i in range(n)), tuple(QD[..., i] for i in range(n)),
                                 self.param_values(values))
        shape = np.broadcast_shapes(Q.shape[:-1], QD.shape[:-1])
        return np.stack([np.broadcast_to(v, shape) for v in vals], axis=-1).reshape(shape + (n, n))

    def gravity(self, Q, values: dict) -> np.ndarray:
        """G(q) = ∂U/∂q, (…, n)."""
        Q = np.asarray(Q, float)
        n = self.n
        vals = self._compiled[2](tuple(Q[..., i] for i in range(n)), self.param_values(values))
        return np.stack([np.broadcast_to(v, Q.shape[:-1]) for v in vals], axis=-1)


# ============================================================================ the ring


@dataclass
class _Ring:
    """The polynomial ring of one arm and the maps between its generators and the arm's symbols."""

    R: Any
    gens: tuple
    cs: dict            # joint index → (c, s) generators (revolute)
    qp: dict            # joint index → q generator (prismatic)
    qd: tuple
    inertial: dict      # symbol name → generator
    syms: list          # SymPy expression for each generator, in order (cos(q1), sin(q1), q2, …)
    inertial_slots: tuple
    basis: list         # s² + c² − 1 for every revolute joint

    def const(self, e) -> PolyElement:
        return self.R.from_expr(sp.sympify(e)) if sp.sympify(e) != 0 else self.R.zero

    def reduce(self, p: PolyElement) -> PolyElement:
        return p.rem(self.basis) if self.basis and p else p

    def dq(self, p: PolyElement, i: int) -> PolyElement:
        """∂p/∂q_i (chain rule through cos and sin for a revolute joint)."""
        if i in self.cs:
            c, s = self.cs[i]
            return self.reduce(-s * p.diff(c) + c * p.diff(s))
        return p.diff(self.qp[i])


def _domain(consts) -> Any:
    """QQ when the fixed transforms' numbers are rational, an algebraic field (QQ<√3> for a π/3 twist) when they
    are algebraic, else SymPy's slow EX (an angle that is no rational multiple of π: cos(1/10) — correct numbers,
    but cos² + sin² of such a constant is not recognised as 1, so the printed form may keep cancelling terms)."""
    coeffs: list = []
    for e in consts:
        e = sp.expand(sp.sympify(e))
        coeffs += sp.Poly(e, *sorted(e.free_symbols, key=str)).coeffs() if e.free_symbols else [e]
    try:
        dom, _ = construct_domain(coeffs, extension=True)
    except (sp.polys.polyerrors.PolynomialError, NotImplementedError):
        return EX
    if dom in (QQ, ZZ):
        return QQ
    return dom if dom.is_AlgebraicField else EX   # cos(1/10) is no algebraic number: SymPy's expressions


def _make_ring(arm: SymArm) -> _Ring:
    n = arm.n
    q = sp.symbols(f"q1:{n + 1}", real=True)
    qd = sp.symbols(f"qd1:{n + 1}", real=True)
    names, syms = [], []
    for i, j in enumerate(arm.joints):
        if j.type == "revolute":
            names += [f"s{i + 1}_", f"c{i + 1}_"]
            syms += [sp.sin(q[i]), sp.cos(q[i])]
        else:
            names.append(f"q{i + 1}")
            syms.append(q[i])
    names += [str(s) for s in qd]
    syms += list(qd)
    other = arm.geometry_symbols() + arm.gravity_symbols()
    inertial = arm.inertial_symbols()
    names += [str(s) for s in other] + [str(s) for s in inertial]
    syms += other + inertial
    consts = [e for j in arm.joints for e in (*j.A, *j.B, *j.axis)] + [sp.sympify(g) for g in arm.gravity]
    R, *gens = ring(",".join(names), _domain(consts), sp.polys.orderings.lex)
    # from_expr must read the arm's own symbols: map them onto the generators by name
    by_name = dict(zip(names, gens, strict=True))
    cs, qp = {}, {}
    for i, j in enumerate(arm.joints):
        if j.type == "revolute":
            cs[i] = (by_name[f"c{i + 1}_"], by_name[f"s{i + 1}_"])
        else:
            qp[i] = by_name[f"q{i + 1}"]
    slots = tuple(names.index(str(s)) for s in inertial)
    basis = [s * s + c * c - 1 for c, s in cs.values()]
    return _Ring(R, tuple(gens), cs, qp, tuple(by_name[str(s)] for s in qd),
                 {str(s): by_name[str(s)] for s in inertial}, syms, slots, basis)


def _from_sympy(rg: _Ring, e) -> PolyElement:
    e = sp.expand(sp.sympify(e))
    if e == 0:
        return rg.R.zero
    rename = {s: sp.Symbol(str(s)) for s in e.free_symbols}
    return rg.R(e.xreplace(rename))


def _mat(rg: _Ring, M) -> list[list[PolyElement]]:
    return [[_from_sympy(rg, M[r, c]) for c in range(M.shape[1])] for r in range(M.shape[0])]


def _mul(rg: _Ring, X, Y) -> list[list[PolyElement]]:
    rows, inner, cols = len(X), len(Y), len(Y[0])
    return [[rg.reduce(sum((X[r][k] * Y[k][c] for k in range(inner)), rg.R.zero)) for c in range(cols)]
            for r in range(rows)]


def _T(X):
    return [list(r) for r in zip(*X, strict=True)]


def _cross_mat(v):
    z = v[0] * 0
    return [[z, -v[2], v[1]], [v[2], z, -v[0]], [-v[1], v[0], z]]


def _motion(rg: _Ring, i: int, axis) -> tuple[list, list]:
    """(R_M, p_M) of joint i as ring matrices (columns as lists)."""
    a = [_from_sympy(rg, x) for x in axis]
    one, zero = rg.R.one, rg.R.zero
    I3 = [[one if r == c else zero for c in range(3)] for r in range(3)]
    if i in rg.qp:
        return I3, [[rg.qp[i] * x] for x in a]
    c, s = rg.cs[i]
    K = _cross_mat(a)
    K2 = _mul(rg, K, K)
    R = [[I3[r][col] + s * K[r][col] + (one - c) * K2[r][col] for col in range(3)] for r in range(3)]
    return [[rg.reduce(x) for x in row] for row in R], [[zero], [zero], [zero]]


def _add(X, Y):
    return [[x + y for x, y in zip(rx, ry, strict=True)] for rx, ry in zip(X, Y, strict=True)]


def _kinematics(arm: SymArm, rg: _Ring):
    """Per link: (J_ω, J_v) 3×n in the link frame, and (R⁰, p⁰) its pose in the base (see the docstring)."""
    n, zero = arm.n, rg.R.zero
    Jw = [[zero] * n for _ in range(3)]
    Jv = [[zero] * n for _ in range(3)]
    RW = _mat(rg, sp.eye(3))
    pW = [[zero], [zero], [zero]]
    out = []
    for i, j in enumerate(arm.joints):
        RA, pA = _mat(rg, j.A[:3, :3]), _mat(rg, j.A[:3, 3])
        RB, pB = _mat(rg, j.B[:3, :3]), _mat(rg, j.B[:3, 3])
        RM, pM = _motion(rg, i, j.axis)
        Rp = _mul(rg, _mul(rg, RA, RM), RB)
        pp = _add(pA, _mul(rg, RA, _add(pM, _mul(rg, RM, pB))))
        RpT = _T(Rp)
        Jw_new = _mul(rg, RpT, Jw)
        Jv_new = _mul(rg, RpT, _add(Jv, [[-x for x in row] for row in _mul(rg, _cross_mat([r[0] for r in pp]), Jw)]))
        a = [[_from_sympy(rg, x)] for x in j.axis]
        RBT = _T(RB)
        if j.type == "revolute":
            w_col = _mul(rg, RBT, a)
            axp = _mul(rg, _cross_mat([r[0] for r in a]), pB)
            v_col = _mul(rg, RBT, axp)
        else:
            w_col = [[zero], [zero], [zero]]
            v_col = _mul(rg, RBT, a)
        for r in range(3):
            Jw_new[r][i] = w_col[r][0]
            Jv_new[r][i] = v_col[r][0]
        pW = _add(pW, _mul(rg, RW, pp))
        RW = _mul(rg, RW, Rp)
        Jw, Jv = Jw_new, Jv_new
        out.append((Jw, Jv, RW, pW))
    return out


def _link_inertials(rg: _Ring, i: int, names: tuple[str, ...]):
    """(m, c (3×1), I (3×3)) of link i in the ring (0 where the link declares no symbol)."""
    def g(name):
        return rg.inertial.get(f"{name}{i + 1}", rg.R.zero)

    c = [[g("cx")], [g("cy")], [g("cz")]]
    inertia = [[g("Ixx"), g("Ixy"), g("Ixz")], [g("Ixy"), g("Iyy"), g("Iyz")], [g("Ixz"), g("Iyz"), g("Izz")]]
    return g("m"), c, inertia


def _energy_matrices(arm: SymArm, rg: _Ring):
    """M (n×n ring) and U (ring) from the kinematics."""
    n, zero = arm.n, rg.R.zero
    M = [[zero] * n for _ in range(n)]
    U = zero
    grav = [[_from_sympy(rg, gk)] for gk in arm.gravity]
    for i, (Jw, Jv, RW, pW) in enumerate(_kinematics(arm, rg)):
        m, c, inertia = _link_inertials(rg, i, arm.joints[i].link.names())
        Jc = _add(Jv, [[-x for x in row] for row in _mul(rg, _cross_mat([r[0] for r in c]), Jw)])
        K = _add([[m * x for x in row] for row in _mul(rg, _T(Jc), Jc)], _mul(rg, _T(Jw), _mul(rg, inertia, Jw)))
        M = _add(M, K)
        if arm.joints[i].armature:  # the rotor's ½ I_a q̇_i²
            M[i][i] = M[i][i] + rg.inertial[f"Ia{i + 1}"]
        pc = _add(pW, _mul(rg, RW, c))
        U = U - m * sum((grav[k][0] * pc[k][0] for k in range(3)), zero)
    return [[rg.reduce(x) for x in row] for row in M], rg.reduce(U)


def _christoffel(rg: _Ring, M, n: int):
    dM = [[[rg.dq(M[i][j], k) for k in range(n)] for j in range(n)] for i in range(n)]
    half = rg.const(sp.Rational(1, 2))
    return [[sum(((dM[i][j][k] + dM[i][k][j] - dM[j][k][i]) * rg.qd[k] for k in range(n)), rg.R.zero) * half
             for j in range(n)] for i in range(n)]


def _split(rg: _Ring, p: PolyElement) -> list[tuple[sp.Expr, sp.Expr]]:
    """p as ((π_k, Y_k), …): terms grouped by their monomial in the inertial generators."""
    groups: dict = {}
    slots = rg.inertial_slots
    for monom, coeff in p.terms():
        key = tuple(monom[s] for s in slots)
        rest = tuple(0 if k in slots else e for k, e in enumerate(monom))
        groups.setdefault(key, {})[rest] = coeff
    out = []
    for key in sorted(groups, reverse=True):
        pi = sp.Mul(*(rg.syms[s] ** e for s, e in zip(slots, key, strict=True)))
        Y = rg.R.from_dict(groups[key]).as_expr(*rg.syms)
        out.append((pi, Y))
    return out


def _expr(pairs) -> sp.Expr:
    return sp.Add(*(pi * Y for pi, Y in pairs))


ABSOLUTE_MAX_TERMS = 150
"""Entries longer than this (a 6R's) keep the relative-angle form: the absolute-angle one is for reading, and
converting them costs more than the derivation itself."""


def _parallel_runs(arm: SymArm) -> list[list[int]]:
    """Runs of consecutive revolute joints with parallel axes (joint k's axis, carried into joint k−1's moving
    frame by R_B(k−1) R_A(k), equals joint k−1's axis): the elbow's shoulder and elbow, a planar sub-chain."""
    runs: list[list[int]] = []
    run: list[int] = []
    for i, j in enumerate(arm.joints):
        if j.type == "revolute" and run:
            prev = arm.joints[i - 1]
            v = prev.B[:3, :3] * j.A[:3, :3] * sp.Matrix(j.axis) - sp.Matrix(prev.axis)
            if all(sp.simplify(x) == 0 for x in v):
                run.append(i)
                continue
        if len(run) > 1:
            runs.append(run)
        run = [i] if j.type == "revolute" else []
    return runs + ([run] if len(run) > 1 else [])


def _absolute(rg: _Ring, runs: list[list[int]], q: tuple):
    """(a ring whose generators include cos/sin of the absolute angles θ_k = q_first + … + q_k of each run,
    the map of a relative-angle polynomial into its normal form there)."""
    names = [str(g) for g in rg.R.gens]
    syms = list(rg.syms)
    for run in runs:
        for k in run[1:]:
            theta = sum(q[run[0]:k + 1], sp.Integer(0))
            names += [f"S{k + 1}_", f"C{k + 1}_"]
            syms += [sp.sin(theta), sp.cos(theta)]
    R2, *gens = ring(",".join(names), rg.R.domain, sp.polys.orderings.lex)
    by = dict(zip(names, gens, strict=True))
    subs, replaced = [], set()
    for run in runs:
        Cp, Sp = by[f"c{run[0] + 1}_"], by[f"s{run[0] + 1}_"]
        for k in run[1:]:
            Ck, Sk = by[f"C{k + 1}_"], by[f"S{k + 1}_"]
            subs += [(by[f"c{k + 1}_"], Ck * Cp + Sk * Sp), (by[f"s{k + 1}_"], Sk * Cp - Ck * Sp)]
            replaced.add(k)
            Cp, Sp = Ck, Sk
    basis = [by[f"s{i + 1}_"] ** 2 + by[f"c{i + 1}_"] ** 2 - 1 for i in rg.cs if i not in replaced]
    basis += [by[f"S{k + 1}_"] ** 2 + by[f"C{k + 1}_"] ** 2 - 1 for k in replaced]
    rg2 = _Ring(R2, tuple(gens), {}, {}, (), {}, syms, tuple(names.index(str(g)) for g in rg.inertial.values()),
                basis)

    def convert(p: PolyElement) -> PolyElement:
        return rg2.reduce(p.set_ring(R2).compose(subs)) if p else R2.zero

    return rg2, convert


def _collect(arm: SymArm, rg: _Ring, Mr, Cr, Gr, q: tuple) -> dict:
    """The collected pairs of every entry, each in the shorter of two normal forms: relative angles (cos q_i,
    sin q_i), or — where the arm has parallel revolute joints — their absolute angles (cos(q2 + q3), as the
    textbook's c23), whichever has fewer terms (ties: relative); entries of more than ABSOLUTE_MAX_TERMS terms
    stay relative."""
    n = arm.n
    runs = _parallel_runs(arm)
    rg2, convert = _absolute(rg, runs, q) if runs else (rg, None)

    def pairs(p):
        if convert is None or len(p.terms()) > ABSOLUTE_MAX_TERMS:
            return tuple(_split(rg, p))
        p2 = convert(p)
        return tuple(_split(rg2, p2) if len(p2.terms()) < len(p.terms()) else _split(rg, p))

    collected: dict = {}
    for i in range(n):
        for j in range(i, n):
            collected[("M", i, j)] = pairs(Mr[i][j])
        for j in range(n):
            collected[("C", i, j)] = pairs(Cr[i][j])
        collected[("G", i, 0)] = pairs(Gr[i])
    return collected


def derive(arm: SymArm) -> SpatialDerivation:
    """M, C, G of ``arm`` (see the module docstring), collected per inertial parameter."""
    t0 = time.perf_counter()
    rg = _make_ring(arm)
    n = arm.n
    Mr, U = _energy_matrices(arm, rg)
    Cr = _christoffel(rg, Mr, n)
    Gr = [rg.dq(U, i) for i in range(n)]
    q = sp.symbols(f"q1:{n + 1}", real=True)
    collected = _collect(arm, rg, Mr, Cr, Gr, q)
    M = sp.Matrix(n, n, lambda i, j: _expr(collected[("M", min(i, j), max(i, j))]))
    C = sp.Matrix(n, n, lambda i, j: _expr(collected[("C", i, j)]))
    G = sp.Matrix(n, 1, lambda i, _: _expr(collected[("G", i, 0)]))
    qd = sp.symbols(f"qd1:{n + 1}", real=True)
    params = tuple(arm.geometry_symbols() + arm.gravity_symbols() + arm.inertial_symbols())
    types = "".join("R" if j.type == "revolute" else "P" for j in arm.joints)
    return SpatialDerivation(arm.name, types, q, qd, params, tuple(arm.inertial_symbols()), M, C, G, collected,
                             time.perf_counter() - t0)
