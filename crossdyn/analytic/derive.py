r"""The correct M, C, G of a planar nR arm, written out for people and for ``crossdyn check``.

Grouping (the textbook a1…aK form, for any n).  With absolute angles θa = q1 + … + qa the
kinetic energy is T = ½ Σ_{a,b} D_ab θ̇a θ̇b cos(θb − θa), where

    D_aa = J_a + m_a Lc_a² + (m_{a+1} + … + m_n) L_a²                       (n groups)
    D_ab = (m_b Lc_b + (m_{b+1} + … + m_n) L_b) L_a,   a < b                 (n(n−1)/2 groups)

so   M_jk = Σ_{a ≥ j, b ≥ k} D_ab cos(q_{min(a,b)+1} + … + q_{max(a,b)}).
The groups are numbered a1…an for the diagonal ones, then the pairs by distance (b − a) and
then by a: for 3R, a1 = D11, a2 = D22, a3 = D33, a4 = D12, a5 = D23, a6 = D13, the textbook's
a1…a6.  C is the Christoffel matrix of that M, C_ij = Σ_k ½(∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) q̇_k,
and G_i = Σ_{a ≥ i} b_a γ(θa) with

    b_a = m_a Lc_a + (m_{a+1} + … + m_n) L_a,    γ(θ) = gx sin θ − gy cos θ  (= g cos θ for g = (0, −g)).

A rotor armature I_a (T += ½ I_ai q̇i²) adds Ia_i to M_ii and nothing else: the parameter ``Iai`` with
symbols (``p.Ia1`` … in the MATLAB and Python outputs), the arm's number with ``symbols=False``.

The expansion of the groups is checked against :mod:`crossdyn.analytic.symbolic`'s
Euler–Lagrange derivation (an independent path) in the tests, and the generated MATLAB and
Python files pass ``crossdyn check`` (round trip).

An arm with joint friction (some ``damping`` b or Coulomb ``friction`` f_c) gets the friction torques too, on the
left-hand side with M, C, G (crossdyn's convention, :func:`crossdyn.analytic.dynamics.friction`):

    M q̈ + C q̇ + G + F(q̇) = τ,    F_i = d_i q̇_i + fc_i sign(q̇_i)

with d_i the viscous damping (``p.b1`` … in the MATLAB and Python outputs: the symbol is d, since b1 … name the
gravity groups) and fc_i the Coulomb level (``p.fc1`` …); ``F(qd, p)`` (``F(qd)`` with the arm's numbers) is what
``crossdyn check`` compares with its own friction (:mod:`crossdyn.checking.friction`).

Formats: ``text``, ``latex`` (a standalone document), ``matlab`` (a script of local functions
for Octave/MATLAB), ``python`` and ``sympy`` (a script that builds the SymPy matrices).
``symbols=True`` keeps m1, L1, Lc1, J1, g, … (the equations of every arm with this many
links and this gravity direction); ``symbols=False`` puts in the arm's numbers (the
functions then take no ``p``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from crossdyn.models.spec import ArmSpec

FORMATS = ("text", "latex", "matlab", "python", "sympy")
MAX_N = 8
"""Largest arm ``derive`` writes out (the Christoffel matrix grows as n³ terms)."""


@dataclass
class Derivation:
    """M, C, G in the grouped form, the groups' definitions, and the symbols used."""

    spec: ArmSpec
    symbols: bool
    q: tuple
    qd: tuple
    groups: list            # [(symbol, definition expr, value or None)] — a-groups then b-groups
    M: sp.Matrix
    C: sp.Matrix
    G: sp.Matrix
    params: list            # parameter symbols used by the definitions, in order
    gravity_mode: str       # "g" (gravity along -y), "gxgy" or "none"
    F: sp.Matrix | None = None   # joint friction d ⊙ q̇ + fc ⊙ sign(q̇) (n×1), for an arm with friction only
    friction_params: tuple = ()  # (d1 … dn, fc1 … fcn) symbols in F (with symbols=True)


def _pairs(n: int) -> list[tuple[int, int]]:
    """Index pairs (a, b) of the a-groups: diagonal first, then by distance, then by a (0-based)."""
    out = [(a, a) for a in range(n)]
    for gap in range(1, n):
        out += [(a, a + gap) for a in range(n - gap)]
    return out


def _param_symbols(n: int):
    m = sp.symbols(f"m1:{n + 1}", positive=True)
    L = sp.symbols(f"L1:{n + 1}", positive=True)
    Lc = sp.symbols(f"Lc1:{n + 1}", real=True)
    J = sp.symbols(f"J1:{n + 1}", nonnegative=True)
    return m, L, Lc, J


def _gravity_mode(spec: ArmSpec) -> str:
    gx, gy = spec.gravity[0], spec.gravity[1]
    if gx == 0 and gy == 0:
        return "none"
    if gx == 0 and gy < 0:
        return "g"
    return "gxgy"


def _collect_factor(expr, terms):
    """``expr`` as Σ (factored coefficient) × term, e.g. −a6 (qd1 + qd2) sin(q2 + q3)."""
    parts = sp.collect(expr, terms, evaluate=False)
    return sp.Add(*(sp.factor(coef) * term for term, coef in parts.items()))


def _octave(e) -> str:
    """MATLAB/Octave code of a scalar expression (scalar operators: * and ^, not .* and .^)."""
    return sp.octave_code(e).replace(".*", "*").replace(".^", "^").replace("./", "/")


@lru_cache(maxsize=None)
def _structure(n: int, gravity_mode: str):
    """Symbolic M, C, G in the group symbols a_k, b_k (cached per n and gravity form)."""
    q = sp.symbols(f"q1:{n + 1}", real=True)
    qd = sp.symbols(f"qd1:{n + 1}", real=True)
    pairs = _pairs(n)
    a = sp.symbols(f"a1:{len(pairs) + 1}", real=True)
    bsym = sp.symbols(f"b1:{n + 1}", real=True)
    D = {}
    for k, (i, j) in enumerate(pairs):
        D[(i, j)] = D[(j, i)] = a[k]

    def angle(i, j):                     # θ_j − θ_i = q_{i+2} + … + q_{j+1} (0-based i < j)
        lo, hi = min(i, j), max(i, j)
        return sum(q[lo + 1: hi + 1], sp.Integer(0))

    M = sp.zeros(n, n)
    for j in range(n):
        for k in range(j, n):
            e = sum((D[(x, y)] * sp.cos(angle(x, y)) for x in range(j, n) for y in range(k, n)), sp.Integer(0))
            M[j, k] = M[k, j] = sp.collect(sp.expand(e), [sp.cos(angle(x, y)) for x in range(n) for y in range(x + 1, n)])
    dM = [M.diff(qk) for qk in q]
    C = sp.zeros(n, n)
    sins = [sp.sin(angle(x, y)) for x in range(n) for y in range(x + 1, n)]
    for i in range(n):
        for j in range(n):
            e = sum((sp.Rational(1, 2) * (dM[k][i, j] + dM[j][i, k] - dM[i][j, k]) * qd[k] for k in range(n)),
                    sp.Integer(0))
            C[i, j] = _collect_factor(sp.expand(e), sins)
    theta = [sum(q[: i + 1], sp.Integer(0)) for i in range(n)]
    g, gx, gy = sp.symbols("g gx gy", real=True)
    if gravity_mode == "g":
        lever = [g * sp.cos(t) for t in theta]
    elif gravity_mode == "gxgy":
        lever = [gx * sp.sin(t) - gy * sp.cos(t) for t in theta]
    else:
        lever = [sp.Integer(0)] * n
    G = sp.Matrix(n, 1, lambda i, _: sum((bsym[x] * lever[x] for x in range(i, n)), sp.Integer(0)))
    return q, qd, pairs, a, bsym, M, C, G, (g, gx, gy)


def group_definitions(n: int) -> tuple[list, list]:
    """(a-group expressions, b-group expressions) in the parameter symbols m, L, Lc, J."""
    m, L, Lc, J = _param_symbols(n)
    after = [sum(m[a + 1:], sp.Integer(0)) for a in range(n)]          # m_{a+1} + … + m_n
    adefs = []
    for i, j in _pairs(n):
        if i == j:
            adefs.append(J[i] + m[i] * Lc[i] ** 2 + after[i] * L[i] ** 2)
        else:
            adefs.append((m[j] * Lc[j] + after[j] * L[j]) * L[i])
    bdefs = [m[a] * Lc[a] + after[a] * L[a] for a in range(n)]
    return adefs, bdefs


def derive(spec: ArmSpec, symbols: bool = True) -> Derivation:
    """The grouped M, C, G of ``spec``; ``symbols=False`` gives the groups the arm's values."""
    n = spec.n
    if n > MAX_N:
        raise ValueError(f"derive: writes out arms of up to {MAX_N} links (the C matrix has ~n^3 terms); "
                         f"this arm has {n}")
    mode = _gravity_mode(spec)
    q, qd, pairs, a, bsym, M, C, G, (g, gx, gy) = _structure(n, mode)
    armature = []                        # the symbols Ia1 … of the joints with a rotor (symbols=True)
    if any(link.armature for link in spec.links):
        # rotor armature I_a (T += ½ I_ai q̇i²) adds to M_ii only (C and G do not change): the parameter Iai
        # (p.Ia1 … in the MATLAB and Python outputs) with symbols, the arm's number with symbols=False
        M = M.copy()
        for i, link in enumerate(spec.links):
            if link.armature:
                if symbols:
                    armature.append(sp.Symbol(f"Ia{i + 1}", nonnegative=True))
                    M[i, i] = armature[-1] + M[i, i]
                else:
                    M[i, i] = M[i, i] + sp.Float(repr(float(link.armature)))
    adefs, bdefs = group_definitions(n)
    m, L, Lc, J = _param_symbols(n)
    values = {}
    for i, link in enumerate(spec.links):
        values.update({m[i]: link.mass, L[i]: link.length, Lc[i]: link.com, J[i]: link.inertia})
    groups = [(s, d, float(d.subs(values))) for s, d in zip(a, adefs, strict=True)]
    groups += [(s, d, float(d.subs(values))) for s, d in zip(bsym, bdefs, strict=True)]
    gvals = {g: math.hypot(spec.gravity[0], spec.gravity[1]), gx: spec.gravity[0], gy: spec.gravity[1]}
    if not symbols:
        sub = {s: sp.Float(repr(v)) if v != 0 else sp.Integer(0) for s, _, v in groups}
        sub.update({k: sp.Float(repr(float(v))) for k, v in gvals.items()})
        M, C, G = (X.subs(sub) for X in (M, C, G))
    used = [s for s, _, _ in groups if any(X.has(s) for X in (M, C, G))] if symbols else []
    groups = [grp for grp in groups if grp[0] in used] if symbols else groups
    params = [s for s in (*m, *L, *Lc, *J) if any(d.has(s) for _, d, _ in groups)]
    gsyms = {"g": [g], "gxgy": [gx, gy], "none": []}[mode]
    F, fparams = _friction(spec, qd, symbols)
    return Derivation(spec, symbols, q, qd, groups, M, C, G, params + armature + (gsyms if symbols else []), mode,
                      F, fparams)


def has_friction(spec: ArmSpec) -> bool:
    """The arm has joint friction: some link's viscous damping or Coulomb friction is not 0."""
    return any(link.damping or link.friction for link in spec.links)


def _friction(spec: ArmSpec, qd, symbols: bool) -> tuple[sp.Matrix | None, tuple]:
    """(F, its parameter symbols): F_i = d_i q̇_i + fc_i sign(q̇_i), symbols d_i, fc_i or the arm's numbers;
    (None, ()) for an arm without friction."""
    if not has_friction(spec):
        return None, ()
    n = spec.n
    if symbols:
        d = sp.symbols(f"d1:{n + 1}", nonnegative=True)
        fc = sp.symbols(f"fc1:{n + 1}", nonnegative=True)
    else:
        d = tuple(sp.Float(repr(float(link.damping))) if link.damping else sp.Integer(0) for link in spec.links)
        fc = tuple(sp.Float(repr(float(link.friction))) if link.friction else sp.Integer(0) for link in spec.links)
    F = sp.Matrix(n, 1, lambda i, _: d[i] * qd[i] + fc[i] * sp.sign(qd[i]))
    return F, ((*d, *fc) if symbols else ())


def _p_attr(s) -> str:
    """The attribute of crossdyn's ``p`` a symbol reads: d1 (viscous damping) is ``p.b1``, the others their name."""
    t = str(s)
    return "b" + t[1:] if t[:1] == "d" and t[1:].isdigit() else t


FRICTION_HEAD = ("friction F(qd) = d .* qd + fc .* sign(qd) on the left-hand side (M qdd + C qd + G + F = tau): "
                 "d viscous damping (p.b1 ...), fc Coulomb friction (p.fc1 ...)")


# =============================================================================== rendering

def _entry(X, i, j=None) -> str:
    n = X.shape[0]
    sep = "," if n >= 10 else ""
    return f"{i + 1}" if j is None else f"{i + 1}{sep}{j + 1}"


def _text(d: Derivation) -> str:
    n = d.spec.n
    out = [f"# {d.spec.name}: {n}R, M(q) qdd + C(q, qd) qd + G(q) = tau (G on the left-hand side; C is the "
           "Christoffel matrix, so Mdot - 2C is skew-symmetric)",
           f"# {'symbols' if d.symbols else 'the arm' + chr(39) + 's numbers'}; q1 from +x, q2.. relative, "
           "counter-clockwise positive"]
    out += _gravity_lines(d, "# ")
    if any(link.armature for link in d.spec.links):
        out.append("# rotor armature Ia = [" + ", ".join(f"{link.armature:g}" for link in d.spec.links)
                   + "] kg m^2, added to M_ii (T += 1/2 Ia_i qd_i^2)"
                   + (": the parameters Ia1 … (p.Ia1 …)" if d.symbols else ", the arm's numbers"))
    out.append("")
    if d.groups:
        out.append("groups:")
        for s, defn, v in d.groups:
            val = f"   (= {v:.6g})" if d.symbols else ""
            out.append(f"  {s} = {sp.sstr(defn)}{val}" if d.symbols else f"  {s} = {sp.sstr(defn)} = {v!r}")
        out.append("")
    for name, X in (("M", d.M), ("C", d.C)):
        for i in range(n):
            for j in range(n):
                if name == "M" and j < i:
                    continue
                out.append(f"{name}{_entry(X, i, j)} = {sp.sstr(X[i, j])}" + ("" if name == "C" or i == j else
                                                                             f"   (= M{_entry(X, j, i)})"))
        out.append("")
    for i in range(n):
        out.append(f"G{i + 1} = {sp.sstr(d.G[i])}")
    if d.F is not None:
        out += ["", f"# {FRICTION_HEAD}"] + [f"F{i + 1} = {sp.sstr(d.F[i])}" for i in range(n)]
    return "\n".join(out) + "\n"


def _gravity_lines(d: Derivation, prefix: str) -> list[str]:
    g = d.spec.gravity
    if d.gravity_mode == "g":
        return [f"{prefix}gravity ({g[0]:g}, {g[1]:g}) m/s^2: g = {math.hypot(g[0], g[1]):g} along -y"]
    if d.gravity_mode == "gxgy":
        return [f"{prefix}gravity (gx, gy) = ({g[0]:g}, {g[1]:g}) m/s^2"]
    return [f"{prefix}no gravity in the plane"]


def _latex_names(d: Derivation) -> dict:
    names = {}
    for s in d.params:
        t = str(s)
        if t.startswith("Lc"):
            names[s] = f"L_{{c{t[2:]}}}"
        elif t.startswith("Ia"):
            names[s] = f"I_{{a{t[2:]}}}"
        elif t in ("gx", "gy"):
            names[s] = f"g_{t[1]}"
    for s in d.friction_params:
        t = str(s)
        names[s] = f"f_{{c{t[2:]}}}" if t.startswith("fc") else f"d_{{{t[1:]}}}"
    for i, s in enumerate(d.q):
        names[s] = f"q_{{{i + 1}}}"
    for i, s in enumerate(d.qd):
        names[s] = f"\\dot{{q}}_{{{i + 1}}}"
    return names


def _latex(d: Derivation) -> str:
    names = _latex_names(d)

    def tex(e):
        return sp.latex(e, symbol_names=names)

    n = d.spec.n
    name = d.spec.name.replace("_", r"\_").replace("&", r"\&").replace("%", r"\%").replace("#", r"\#")
    out = [r"\documentclass{article}", r"\usepackage{amsmath}", r"\begin{document}",
           rf"\section*{{Equations of motion of {name} ({n}R)}}",
           r"\[ M(q)\,\ddot q + C(q,\dot q)\,\dot q + G(q) = \tau \]",
           r"$C$ is the Christoffel matrix, $C_{ij} = \sum_k \tfrac12\left(\frac{\partial M_{ij}}{\partial q_k} + "
           r"\frac{\partial M_{ik}}{\partial q_j} - \frac{\partial M_{jk}}{\partial q_i}\right)\dot q_k$, so "
           r"$\dot M - 2C$ is skew-symmetric; $G$ is on the left-hand side.", ""]
    if d.groups:
        out.append(r"\subsection*{Groups of parameters}")
        out.append(r"\begin{align*}")
        rows = []
        for s, defn, v in d.groups:
            rhs = tex(defn) + (rf" &&= {v:.6g}" if not d.symbols else "")
            rows.append(f"{tex(s)} &= {rhs}")
        out.append(" \\\\\n".join(rows))
        out.append(r"\end{align*}")
    out.append(r"\subsection*{Mass matrix}")
    out.append(r"\begin{align*}")
    out.append(" \\\\\n".join(f"M_{{{_entry(d.M, i, j)}}} &= {tex(d.M[i, j])}"
                              for i in range(n) for j in range(i, n)))
    out.append(r"\end{align*}")
    out.append(r"and $M_{ji} = M_{ij}$.")
    out.append(r"\subsection*{Coriolis and centrifugal matrix}")
    out.append(r"\begin{align*}")
    out.append(" \\\\\n".join(f"C_{{{_entry(d.C, i, j)}}} &= {tex(d.C[i, j])}" for i in range(n) for j in range(n)))
    out.append(r"\end{align*}")
    out.append(r"\subsection*{Gravity}")
    out.append(r"\begin{align*}")
    out.append(" \\\\\n".join(f"G_{{{i + 1}}} &= {tex(d.G[i])}" for i in range(n)))
    out.append(r"\end{align*}")
    if d.F is not None:
        out.append(r"\subsection*{Joint friction}")
        out.append(r"On the left-hand side too, $M\ddot q + C\dot q + G + F(\dot q) = \tau$: $d_i$ is joint $i$'s "
                   r"viscous damping, $f_{ci}$ its Coulomb friction.")
        out.append(r"\begin{align*}")
        out.append(" \\\\\n".join(f"F_{{{i + 1}}} &= {tex(d.F[i])}" for i in range(n)))
        out.append(r"\end{align*}")
    out.append(r"\end{document}")
    return "\n".join(out) + "\n"


def _used(d: Derivation, exprs) -> tuple[list, list, list, list]:
    """(q symbols, qd symbols, group symbols, parameter symbols) that ``exprs`` need, in order."""
    exprs = list(exprs)
    free = set().union(*(e.free_symbols for e in exprs)) if exprs else set()
    groups = [(s, defn) for s, defn, _ in d.groups if s in free]
    gfree = set().union(*(defn.free_symbols for _, defn in groups)) if groups else set()
    params = [s for s in (*d.params, *d.friction_params) if s in free or s in gfree]
    return ([s for s in d.q if s in free], [s for s in d.qd if s in free], groups, params)


def _matlab(d: Derivation) -> str:
    n = d.spec.n
    p_arg = ", p" if d.symbols else ""
    out = [f"1;  % {d.spec.name}: M(q) qdd + C(q, qd) qd + G(q) = tau, written by 'crossdyn derive "
           f"--format matlab{'' if d.symbols else ' --numeric'}'",
           "% C is the Christoffel matrix; G is on the left-hand side. q, qd: column vectors"
           + (", p: parameter struct (p.m1, p.L1, p.Lc1, p.J1, ..., p.Ia1 (rotor armature), p.g)" if d.symbols else
              " (the arm's numbers are written in, so the functions take no p)"), ""]

    def body(X, rows, cols, name, args):
        exprs = [X[i, j] for i in range(rows) for j in range(cols)]
        qs, qds, groups, params = _used(d, exprs)
        lines = [f"function out = {name}({args})"]
        lines += [f"  {s} = q({d.q.index(s) + 1});" for s in qs]
        lines += [f"  {s} = qd({d.qd.index(s) + 1});" for s in qds]
        lines += [f"  {s} = p.{_p_attr(s)};" for s in params]
        lines += [f"  {s} = {_octave(defn)};" for s, defn in groups]
        lines.append(f"  out = zeros({rows}, {cols});")
        for i in range(rows):
            for j in range(cols):
                e = X[i, j]
                if e != 0:
                    idx = f"{i + 1}, {j + 1}" if cols > 1 else f"{i + 1}"
                    lines.append(f"  out({idx}) = {_octave(e)};")
        lines.append("end")
        return lines

    out += body(d.M, n, n, "M", "q" + p_arg) + [""]
    out += body(d.C, n, n, "C", "q, qd" + p_arg) + [""]
    out += body(d.G, n, 1, "G", "q" + p_arg)
    if d.F is not None:
        out += ["", f"% {FRICTION_HEAD}"] + body(d.F, n, 1, "F", "qd" + p_arg)
    return "\n".join(out) + "\n"


def _python(d: Derivation) -> str:
    n = d.spec.n
    p_arg = ", p" if d.symbols else ""
    out = [f'"""{d.spec.name}: M(q) qdd + C(q, qd) qd + G(q) = tau, written by '
           f"'crossdyn derive --format python{'' if d.symbols else ' --numeric'}'.",
           "",
           "C is the Christoffel matrix; G is on the left-hand side. "
           + ("p: crossdyn's parameters (p.m1, p.L1, p.Lc1, p.J1, ..., p.g)." if d.symbols else
              "The arm's numbers are written in, so the functions take no p."),
           '"""', "from math import cos, sin", ""]
    from sympy.printing.pycode import PythonCodePrinter

    printer = PythonCodePrinter({"fully_qualified_modules": False, "standard": "python3"})

    def body(X, rows, cols, name, args):
        exprs = [X[i, j] for i in range(rows) for j in range(cols)]
        qs, qds, groups, params = _used(d, exprs)
        lines = ["", f"def {name}({args}):"]
        lines += [f"    {s} = q[{d.q.index(s)}]" for s in qs]
        lines += [f"    {s} = qd[{d.qd.index(s)}]" for s in qds]
        lines += [f"    {s} = p.{_p_attr(s)}" for s in params]
        lines += [f"    {s} = {printer.doprint(defn)}" for s, defn in groups]
        if cols == 1:
            lines.append("    return [" + ", ".join(printer.doprint(X[i, 0]) for i in range(rows)) + "]")
        else:
            lines.append("    return [")
            for i in range(rows):
                lines.append("        [" + ", ".join(printer.doprint(X[i, j]) for j in range(cols)) + "],")
            lines.append("    ]")
        return lines

    out += body(d.M, n, n, "M", "q" + p_arg) + [""]
    out += body(d.C, n, n, "C", "q, qd" + p_arg) + [""]
    out += body(d.G, n, 1, "G", "q" + p_arg)
    if d.F is not None:
        out += ["", "", f"# {FRICTION_HEAD}"] + body(d.F, n, 1, "F", "qd" + p_arg)[1:]
        out[out.index("from math import cos, sin")] = "from math import copysign, cos, sin"
    return "\n".join(out) + "\n"


def _sympy(d: Derivation) -> str:
    n = d.spec.n
    syms = [*d.q, *d.qd] + ([s for s, _, _ in d.groups] + d.params + list(d.friction_params) if d.symbols else [])
    out = [f'"""{d.spec.name}: M, C (Christoffel), G as SymPy matrices, written by '
           f"'crossdyn derive --format sympy{'' if d.symbols else ' --numeric'}'.",
           "", "M(q) qdd + C(q, qd) qd + G(q) = tau, G on the left-hand side.",
           '"""', "from sympy import Float, Matrix, Rational, cos, sign, sin, symbols", ""]
    names = [str(s) for s in syms]
    out.append(f"{', '.join(names)}, = symbols({' '.join(names)!r}, real=True)")
    if d.symbols:
        out.append("")
        out.append("# groups (substitute these to get M, C, G in the parameters)")
        out.append("groups = {")
        out += [f"    {s}: {sp.sstr(defn)}," for s, defn, _ in d.groups]
        out.append("}")
    out.append("")
    for name, X in (("M", d.M), ("C", d.C)):
        out.append(f"{name} = Matrix([")
        for i in range(n):
            out.append("    [" + ", ".join(sp.sstr(X[i, j]) for j in range(n)) + "],")
        out.append("])")
    out.append("G = Matrix([" + ", ".join(sp.sstr(d.G[i]) for i in range(n)) + "])")
    if d.F is not None:
        out.append(f"# {FRICTION_HEAD}")
        out.append("F = Matrix([" + ", ".join(sp.sstr(d.F[i]) for i in range(n)) + "])")
    return "\n".join(out) + "\n"


def _digits(x: float) -> int:
    """Significant digits of the shortest repr that round-trips ``x`` (0.17066666666666672 → 17)."""
    mantissa = repr(abs(x)).split("e")[0].replace(".", "").lstrip("0")
    return max(len(mantissa), 1)


def _tidy_floats(d: Derivation, digits: int | None) -> Derivation:
    """Floats printed as their shortest round-trip repr (``digits=None``) or to ``digits`` significant digits."""
    def one(e):
        floats = e.atoms(sp.Float)
        if not floats:
            return e
        if digits is None:
            return e.xreplace({f: sp.Float(repr(float(f)), _digits(float(f))) for f in floats})
        return e.xreplace({f: sp.Float(float(f"{float(f):.{digits}g}"), digits) for f in floats})
    if d.symbols:
        return d
    return Derivation(d.spec, d.symbols, d.q, d.qd, d.groups, d.M.applyfunc(one), d.C.applyfunc(one),
                      d.G.applyfunc(one), d.params, d.gravity_mode, None if d.F is None else d.F.applyfunc(one),
                      d.friction_params)


def render(d: Derivation, fmt: str = "text") -> str:
    """``d`` in one of :data:`FORMATS`."""
    if fmt not in FORMATS:
        raise ValueError(f"format: must be one of {', '.join(FORMATS)}, got {fmt!r}")
    d = _tidy_floats(d, 6 if fmt in ("text", "latex") else None)
    return {"text": _text, "latex": _latex, "matlab": _matlab, "python": _python, "sympy": _sympy}[fmt](d)
