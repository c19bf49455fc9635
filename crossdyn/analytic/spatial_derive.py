r"""The correct M, C, G of a spatial arm written out (``crossdyn derive`` for the spatial presets).

The same formats as the planar :mod:`crossdyn.analytic.derive`: ``text``, ``latex`` (a standalone document),
``matlab`` (a script of local functions ``M(q, p)``, ``C(q, qd, p)``, ``G(q, p)`` for Octave/MATLAB),
``python`` (the same three functions over floats) and ``sympy`` (a script that builds the matrices).

Symbols (:mod:`crossdyn.analytic.spatial_symbolic`): q1 … (a prismatic joint's coordinate is its q: the
textbook's d2 is q2), qd1 …; the geometry a1, d1, … (DH) or x1, y1, z1 … (explicit origins), g the magnitude of
gravity; per link m{i}, the centre of mass cx{i}, cy{i}, cz{i} (the link frame, as given, not first moments) and
the inertia about the centre of mass Ixx{i} … Izz{i}.  The functions read them from ``p`` (``p.a1``, ``p.m2``,
``p.cz2``, ``p.Izz1``, ``p.g``; a MATLAB struct or any Python object with attributes).  ``symbols=False`` writes
the preset's numbers in (the functions then take no ``p``).

Each entry is printed collected per inertial parameter, Σ π_k Y_k (``m2*(q2**2) + Iyy1 + …``), with sin² written
as 1 − cos² (the normal form of the derivation).  M qdd + C qd + G = tau; C is the Christoffel matrix.
"""
from __future__ import annotations

import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from crossdyn.analytic.derive import _digits, _octave
from crossdyn.analytic.spatial_symbolic import SpatialDerivation

FORMATS = ("text", "latex", "matlab", "python", "sympy")


def _numbers(d: SpatialDerivation, values: dict) -> dict:
    sub = {s: sp.Float(repr(float(values[str(s)]))) for s in d.params if str(s) in values}
    sub.update({s: sp.Integer(0) for s in d.inertial if str(s) not in values})
    return sub


def matrices(d: SpatialDerivation, values: dict | None = None) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix]:
    """(M, C, G) in symbols, or with ``values`` (name → float) put in."""
    if values is None:
        return d.M, d.C, d.G
    sub = _numbers(d, values)

    def tidy(e):  # floats as their shortest round-trip repr (1.0, not 1.00000000000000)
        floats = e.atoms(sp.Float)
        return e.xreplace({f: sp.Float(repr(float(f)), _digits(float(f))) for f in floats}) if floats else e

    return tuple(X.xreplace(sub).applyfunc(tidy) for X in (d.M, d.C, d.G))  # type: ignore[return-value]


def _head(d: SpatialDerivation, numeric: bool, info: str) -> list[str]:
    kinds = ", ".join(f"q{i + 1} {'revolute (rad)' if t == 'R' else 'prismatic (m)'}" for i, t in enumerate(d.types))
    return [f"{d.name}: {d.types}, M(q) qdd + C(q, qd) qd + G(q) = tau (C Christoffel, G on the left-hand side)",
            kinds,
            ("the preset's numbers written in" if numeric else
             "parameters: " + ", ".join(str(s) for s in d.params)
             + " (m_i, centre of mass c_i in link i's frame, inertia I_i about the centre of mass)")]


def _used(exprs, d: SpatialDerivation) -> tuple[list, list, list]:
    free = set().union(*(e.free_symbols for e in exprs)) if exprs else set()
    return ([s for s in d.q if s in free], [s for s in d.qd if s in free], [s for s in d.params if s in free])


def _matlab(d, X3, numeric, info) -> str:
    M, C, G = X3
    p_arg = "" if numeric else ", p"
    out = [f"1;  % {line}" if k == 0 else f"% {line}" for k, line in enumerate(_head(d, numeric, info))]
    out.append("% written by 'crossdyn derive --format matlab" + (" --numeric'" if numeric else "'") + "; q, qd: column "
               "vectors" + ("" if numeric else ", p: a struct with the parameters above (p.m1, p.g, ...)"))
    for X, name, args in ((M, "M", "q"), (C, "C", "q, qd"), (G, "G", "q")):
        rows, cols = X.shape
        exprs = [X[i, j] for i in range(rows) for j in range(cols)]
        qs, qds, ps = _used(exprs, d)
        out += ["", f"function out = {name}({args}{p_arg})"]
        out += [f"  {s} = q({d.q.index(s) + 1});" for s in qs]
        out += [f"  {s} = qd({d.qd.index(s) + 1});" for s in qds]
        out += [f"  {s} = p.{s};" for s in ps]
        out.append(f"  out = zeros({rows}, {cols});")
        for i in range(rows):
            for j in range(cols):
                if X[i, j] != 0:
                    out.append(f"  out({i + 1}{'' if cols == 1 else f', {j + 1}'}) = {_octave(X[i, j])};")
        out.append("end")
    return "\n".join(out) + "\n"


def _python(d, X3, numeric, info) -> str:
    M, C, G = X3
    printer = PythonCodePrinter({"fully_qualified_modules": False, "standard": "python3"})
    p_arg = "" if numeric else ", p"
    out = ['"""' + "\n".join(_head(d, numeric, info)),
           "written by 'crossdyn derive --format python" + (" --numeric'" if numeric else "'") + '."""',
           "from math import cos, sin"]
    for X, name, args in ((M, "M", "q"), (C, "C", "q, qd"), (G, "G", "q")):
        rows, cols = X.shape
        exprs = [X[i, j] for i in range(rows) for j in range(cols)]
        qs, qds, ps = _used(exprs, d)
        out += ["", "", f"def {name}({args}{p_arg}):"]
        out += [f"    {s} = q[{d.q.index(s)}]" for s in qs]
        out += [f"    {s} = qd[{d.qd.index(s)}]" for s in qds]
        out += [f"    {s} = p.{s}" for s in ps]
        if cols == 1:
            out.append("    return [" + ", ".join(printer.doprint(X[i, 0]) for i in range(rows)) + "]")
        else:
            out.append("    return [")
            out += ["        [" + ", ".join(printer.doprint(X[i, j]) for j in range(cols)) + "]," for i in range(rows)]
            out.append("    ]")
    return "\n".join(out) + "\n"


def _text(d, X3, numeric, info) -> str:
    M, C, G = X3
    n = d.n
    out = [f"# {line}" for line in _head(d, numeric, info)] + ([f"# {info}"] if info else []) + [""]
    out += [f"M{i + 1}{j + 1} = {sp.sstr(M[i, j])}" for i in range(n) for j in range(i, n)] + [""]
    out += [f"C{i + 1}{j + 1} = {sp.sstr(C[i, j])}" for i in range(n) for j in range(n)] + [""]
    out += [f"G{i + 1} = {sp.sstr(G[i])}" for i in range(n)]
    return "\n".join(out) + "\n"


def _latex_names(d: SpatialDerivation) -> dict:
    names = {}
    for s in d.params:
        t = str(s)
        stem, idx = t.rstrip("0123456789"), t[len(t.rstrip("0123456789")):]
        if stem in ("cx", "cy", "cz"):
            names[s] = f"c_{{{stem[1]}{idx}}}"
        elif stem.startswith("I") and len(stem) == 3:
            names[s] = f"I_{{{stem[1:]}{idx}}}"
    names.update({s: f"q_{{{i + 1}}}" for i, s in enumerate(d.q)})
    names.update({s: f"\\dot{{q}}_{{{i + 1}}}" for i, s in enumerate(d.qd)})
    return names


def _latex(d, X3, numeric, info) -> str:
    M, C, G = X3
    names = _latex_names(d)

    def tex(e):
        return sp.latex(e, symbol_names=names)

    n = d.n
    title = d.name.replace("_", r"\_")
    out = [r"\documentclass{article}", r"\usepackage{amsmath}", r"\begin{document}",
           rf"\section*{{Equations of motion of {title} ({d.types})}}",
           r"\[ M(q)\,\ddot q + C(q,\dot q)\,\dot q + G(q) = \tau \]",
           r"$C$ is the Christoffel matrix, so $\dot M - 2C$ is skew-symmetric; $G$ is on the left-hand side.",
           r"$c_{xi}, c_{yi}, c_{zi}$: link $i$'s centre of mass in its frame; $I_{xxi}, \dots$: its inertia about "
           r"the centre of mass.", ""]
    for title_, rows in (("Mass matrix", [(f"M_{{{i + 1}{j + 1}}}", M[i, j]) for i in range(n) for j in range(i, n)]),
                         ("Coriolis and centrifugal matrix",
                          [(f"C_{{{i + 1}{j + 1}}}", C[i, j]) for i in range(n) for j in range(n)]),
                         ("Gravity", [(f"G_{{{i + 1}}}", G[i]) for i in range(n)])):
        out += [rf"\subsection*{{{title_}}}", r"\begin{align*}",
                " \\\\\n".join(f"{lhs} &= {tex(e)}" for lhs, e in rows), r"\end{align*}"]
    out.append(r"\end{document}")
    return "\n".join(out) + "\n"


def _sympy(d, X3, numeric, info) -> str:
    M, C, G = X3
    n = d.n
    syms = [*d.q, *d.qd] + ([] if numeric else list(d.params))
    names = [str(s) for s in syms]
    out = ['"""' + "\n".join(_head(d, numeric, info)) + '"""',
           "from sympy import Float, Matrix, Rational, cos, sin, symbols", "",
           f"{', '.join(names)}, = symbols({' '.join(names)!r}, real=True)", ""]
    for name, X in (("M", M), ("C", C)):
        out.append(f"{name} = Matrix([")
        out += ["    [" + ", ".join(sp.sstr(X[i, j]) for j in range(n)) + "]," for i in range(n)]
        out.append("])")
    out.append("G = Matrix([" + ", ".join(sp.sstr(G[i]) for i in range(n)) + "])")
    return "\n".join(out) + "\n"


def render(d: SpatialDerivation, fmt: str = "text", values: dict | None = None, info: str = "") -> str:
    """``d`` in one of :data:`FORMATS`; ``values`` (name → float) writes those numbers in (``--numeric``)."""
    if fmt not in FORMATS:
        raise ValueError(f"format: must be one of {', '.join(FORMATS)}, got {fmt!r}")
    X3 = matrices(d, values)
    return {"text": _text, "latex": _latex, "matlab": _matlab, "python": _python, "sympy": _sympy}[fmt](
        d, X3, values is not None, info)
