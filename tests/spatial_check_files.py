"""Python files of the spatial presets' M, C, G written from crossdyn's symbolic model, term by term, and
single-term mutants of them (tests/test_check_spatial*.py): what a student's correct file and a student's slip
look like, in the general parameters (p.m2, p.cz2, …; q[i] the prismatic coordinate itself)."""
from __future__ import annotations

import re

import sympy as sp

from crossdyn.checking.spatial_arms import load_spatial
from crossdyn.checking.spatial_naming import derivation, entry_terms

KINDS = ("drop", "sign", "factor", "power", "missing factor", "L for Lc", "prismatic dropped")


def _code(expr, d) -> str:
    names = {q: sp.Symbol(f"q[{i}]") for i, q in enumerate(d.q)}
    names |= {qd: sp.Symbol(f"qd[{i}]") for i, qd in enumerate(d.qd)}
    names |= {s: sp.Symbol(f"p.{s}") for s in d.params}
    return sp.pycode(sp.sympify(expr).xreplace(names), fully_qualified_modules=True)


def entries(name: str) -> dict[tuple[str, int, int], list]:
    """{("M", i, j) for i ≤ j, ("C", i, j), ("G", i, 0): the reference's terms}."""
    d = derivation(load_spatial(name))
    n = d.n
    out = {("M", i, j): entry_terms(d, "M", (i, j)) for i in range(n) for j in range(i, n)}
    out |= {("C", i, j): entry_terms(d, "C", (i, j)) for i in range(n) for j in range(n)}
    out |= {("G", i, 0): entry_terms(d, "G", (i,)) for i in range(n)}
    return out


def source(name: str, terms: dict | None = None) -> str:
    """The file's text: M, C (matrix), G with each entry the sum of ``terms`` (default: the reference's)."""
    d = derivation(load_spatial(name))
    n, terms = d.n, terms or entries(name)

    def entry(key) -> str:
        ts = terms[key]
        return " + ".join(f"({_code(t, d)})" for t in ts) if ts else "0.0"

    lines = ["import math", "import numpy as np", "", "", "def M(q, p):", f"    out = np.zeros(({n}, {n}))"]
    for i in range(n):
        for j in range(i, n):
            lines.append(f"    out[{i}, {j}] = out[{j}, {i}] = {entry(('M', i, j))}")
    lines += ["    return out", "", "", "def C(q, qd, p):", f"    out = np.zeros(({n}, {n}))"]
    lines += [f"    out[{i}, {j}] = {entry(('C', i, j))}" for i in range(n) for j in range(n)]
    lines += ["    return out", "", "", "def G(q, p):", f"    out = np.zeros({n})"]
    lines += [f"    out[{i}] = {entry(('G', i, 0))}" for i in range(n)]
    lines += ["    return out", ""]
    return "\n".join(lines)


def _mutate(kind: str, t, d, arm):
    """The term ``t`` changed by one slip of ``kind``, or None when that slip does not apply to it."""
    syms = sorted(t.free_symbols, key=str)
    prismatic = {d.q[i] for i, c in enumerate(arm.types) if c == "P"}
    if kind in ("drop", "prismatic dropped"):
        return None if kind == "prismatic dropped" and not (t.free_symbols & prismatic) else sp.Integer(0)
    if kind == "sign":
        return -t
    if kind == "factor":
        return 2 * t
    if kind == "power":
        powers = t.as_powers_dict()
        cand = [b for b in powers if b.free_symbols and b.is_Symbol or isinstance(b, (sp.sin, sp.cos))]
        return t * cand[0] if cand else None
    if kind == "missing factor":
        cand = [s for s in syms if s not in d.qd and str(s)[0] in "madocgxyz"] if len(sp.Mul.make_args(t)) > 2 else []
        return t / cand[-1] if cand else None
    geometry = [s for s in d.params if str(s)[0] in "adoxyz"]      # DH a_i, d_i, o_i; origins x_i, y_i, z_i
    com = [s for s in syms if str(s)[:2] in ("cx", "cy", "cz")]
    return t.xreplace({com[0]: geometry[0]}) if geometry and com else None


def mutants(name: str, count: int):
    """Up to ``count`` single-term mutants of M and G: (key, the original term, the kind, its file's text).  The
    k-th mutant wants kind KINDS[k mod 7] and takes the first term not used yet that the slip applies to (else the
    next kind), so every kind that applies to the arm appears."""
    arm = load_spatial(name)
    d = derivation(arm)
    base = entries(name)
    pairs = [(k, t) for k, ts in base.items() if k[0] in "MG" for t in ts]
    out: list = []
    used: set = set()
    for k in range(count):
        found = None
        for kind in KINDS[k % len(KINDS):] + KINDS[:k % len(KINDS)]:
            for key, t in pairs:
                if t in used:
                    continue
                new = _mutate(kind, t, d, arm)
                if new is not None and sp.expand(new - t) != 0:
                    found = (key, t, kind, new)
                    break
            if found:
                break
        if found is None:
            break
        key, t, kind, new = found
        used.add(t)
        terms = dict(base)
        terms[key] = [u for u in base[key] if u is not t] if new == 0 else [new if u is t else u for u in base[key]]
        out.append((key, t, kind, source(name, terms)))
    return out


def distinct_terms(name: str) -> int:
    return len({t for k, ts in entries(name).items() if k[0] in "MG" for t in ts})


def every_entry_wrong(source: str) -> str:
    """A derived Python file with every entry of M, C and G wrong: each returned matrix x1.1 + 0.05 (a zero entry
    becomes 0.05)."""
    source = re.sub(r"^def (M|C|G)\(", r"def _\1(", source, flags=re.M)
    return source + '''

def _wrong(x):
    return [[1.1 * v + 0.05 for v in row] if isinstance(row, list) else 1.1 * row + 0.05 for row in x]


def M(q, p):
    return _wrong(_M(q, p))


def C(q, qd, p):
    return _wrong(_C(q, qd, p))


def G(q, p):
    return _wrong(_G(q, p))
'''
