"""Single-term mutations of the hand-written reference files, and their exact effect by sympy.

``mutations(path)`` edits one node of the source's syntax tree at a time (inside M / G, the functions
that are sums of products with one trigonometric factor each) and names the edit's category:

* ``power``   — ``x**2`` becomes ``x``;
* ``factor2`` — ``2 * x`` becomes ``x``;
* ``missing`` — ``a + b`` becomes ``a`` (the term ``b`` is lost);
* ``extra``   — ``a + b`` becomes ``a + b + p.m1*p.L1*p.L2`` in M, ``a + b + p.m1*p.g*p.L1`` in G (a term
  that does not belong, of its neighbours' kind: without the mass inside a bracket a mass multiplies,
  without g inside one g multiplies);
* ``lc``      — ``Lc3`` becomes ``p.L3`` (L where Lc belongs); for a file without Lc, ``l2`` becomes ``l1``;
* ``sincos``  — ``cos(...)`` becomes ``sin(...)``;
* ``sign``    — ``a + b`` becomes ``a - b``.

``symbolic(source, n)`` runs the file's functions on sympy symbols (``cos``/``sin``/``np`` of the file
replaced by sympy's), so the difference of a mutated file from the original one — the mistake the checker
has to name — is derived here by computer algebra, independently of the checker's numerical fits.
"""
from __future__ import annotations

import ast
import itertools
import re
from types import SimpleNamespace

import sympy as sp

CATEGORIES = ("power", "factor2", "missing", "extra", "lc", "sincos", "sign")
ROLE_FUNCS = {"M": ("M", "mass_matrix"), "G": ("G", "gravity")}


# ----------------------------------------------------------------------------- mutations

def _uses_angles(node: ast.AST) -> bool:
    return any(isinstance(x, ast.Subscript) and isinstance(x.value, ast.Name) and x.value.id == "q"
               for x in ast.walk(node))


def _is_mass(node: ast.AST) -> bool:
    """A mass factor: m2, p.m2, (m2 + m3), p.m2 * ..."""
    return any((isinstance(x, ast.Name) and re.fullmatch(r"m\d", x.id)) or
               (isinstance(x, ast.Attribute) and re.fullmatch(r"m\d", x.attr)) for x in ast.walk(node))


def _is_g(node: ast.AST) -> bool:
    return any((isinstance(x, ast.Attribute) and x.attr == "g") or (isinstance(x, ast.Name) and x.id == "g")
               for x in ast.walk(node))


def _is_plain_mass(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and bool(re.fullmatch(r"m\d", node.id))) or \
        (isinstance(node, ast.Attribute) and bool(re.fullmatch(r"m\d", node.attr)))


def _assigned(f: ast.FunctionDef, node: ast.AST) -> bool:
    """``node`` is the value of a plain assignment (``Lc3 = p.Lc3``): a use site is wanted instead."""
    return any(isinstance(a, ast.Assign) and any(v is node for v in ast.walk(a.value)) and
               isinstance(a.value, (ast.Attribute, ast.Tuple)) for a in ast.walk(f))


def _sites(tree: ast.Module) -> dict[str, list[ast.AST]]:
    out = {c: [] for c in CATEGORIES}
    funcs = [f for f in tree.body if isinstance(f, ast.FunctionDef)
             and f.name in ROLE_FUNCS["M"] + ROLE_FUNCS["G"]]
    for f in funcs:                   # mark sums that a mass (or g) multiplies: m2 * (a + b), (a + b) * p.g
        for node in ast.walk(f):
            node._in_gravity = f.name in ROLE_FUNCS["G"]
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
                for side, other in ((node.left, node.right), (node.right, node.left)):
                    for x in ast.walk(side):
                        if _is_mass(other):
                            x._in_mass_bracket = True
                        if _is_g(other):
                            x._in_g_bracket = True
    for f in funcs:
        for node in ast.walk(f):
            if isinstance(node, ast.BinOp):
                if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) and node.right.value == 2:
                    out["power"].append(node)
                if isinstance(node.op, ast.Mult) and isinstance(node.left, ast.Constant) and node.left.value == 2:
                    out["factor2"].append(node)
                single = not any(isinstance(x, ast.BinOp) and isinstance(x.op, (ast.Add, ast.Sub))
                                 for x in ast.walk(node.right))
                if isinstance(node.op, ast.Add) and not _uses_angles(node) and single:
                    out["missing"].append(node)      # b is one term (a product), not a sum
                    out["sign"].append(node)
                    if not _is_plain_mass(node.right):   # not into a sum of masses (m1 + m2)
                        out["extra"].append(node)
            if isinstance(node, ast.Call):
                fn = node.func
                if (isinstance(fn, ast.Name) and fn.id == "cos") or (isinstance(fn, ast.Attribute) and fn.attr == "cos"):
                    out["sincos"].append(node)
            if isinstance(node, ast.Name) and re.fullmatch(r"Lc\d", node.id) and isinstance(node.ctx, ast.Load):
                out["lc"].append(node)
            if isinstance(node, ast.Attribute) and re.fullmatch(r"Lc\d", node.attr) and not _assigned(f, node):
                out["lc"].append(node)
    if not out["lc"]:                # a file without Lc: the wrong link's length (l1 for l2) in one use
        for f in funcs:
            for node in ast.walk(f):
                if isinstance(node, ast.Name) and node.id in ("l2", "L2") and isinstance(node.ctx, ast.Load):
                    out["lc"].append(node)
    return out


def _replace(tree: ast.Module, target: ast.AST, category: str) -> ast.Module:
    class T(ast.NodeTransformer):
        def visit(self, node):
            if node is target:
                return _mutate(node, category)
            return super().visit(node)

    return ast.fix_missing_locations(T().visit(tree))


def _p(attr: str) -> ast.AST:
    return ast.Attribute(ast.Name("p", ast.Load()), attr, ast.Load())


def _mutate(node: ast.AST, category: str) -> ast.AST:
    if category == "power":
        return node.left
    if category == "factor2":
        return node.right
    if category == "missing":
        return node.left
    if category == "extra":
        # a term of the same kind as its neighbours: m1*L1*L2 in M, m1*g*L1 in G, without the mass inside a
        # bracket that a mass multiplies, without g inside one that g multiplies
        parts = [_p("L1"), _p("L2")] if not getattr(node, "_in_gravity", False) else [_p("L1")]
        if getattr(node, "_in_gravity", False) and not getattr(node, "_in_g_bracket", False):
            parts.insert(0, _p("g"))
        if not getattr(node, "_in_mass_bracket", False):
            parts.insert(0, _p("m1"))
        extra = parts[0]
        for x in parts[1:]:
            extra = ast.BinOp(extra, ast.Mult(), x)
        return ast.BinOp(node, ast.Add(), extra)
    if category == "sign":
        return ast.BinOp(node.left, ast.Sub(), node.right)
    if category == "sincos":
        fn = node.func
        new = ast.Name("sin", ast.Load()) if isinstance(fn, ast.Name) else ast.Attribute(fn.value, "sin", ast.Load())
        return ast.Call(new, node.args, node.keywords)
    if category == "lc":
        if isinstance(node, ast.Name):
            if node.id.startswith("Lc"):
                return _p("L" + node.id[2:])
            return ast.Name(node.id[0] + "1", ast.Load())
        if node.attr.startswith("Lc"):
            return ast.Attribute(node.value, "L" + node.attr[2:], ast.Load())
        return ast.Attribute(node.value, node.attr[0] + "1", ast.Load())
    raise ValueError(category)


def mutations(source: str, per_category: dict[str, int]) -> list[tuple[str, int, str]]:
    """(category, site number, mutated source): ``per_category[c]`` sites of each category, spread over the file."""
    base = ast.parse(source)
    sites = _sites(base)
    out = []
    for cat in CATEGORIES:
        k = per_category.get(cat, 0)
        found = sites[cat]
        if not found or k == 0:
            continue
        picks = sorted({round(i * (len(found) - 1) / max(k - 1, 1)) for i in range(k)}) if k > 1 else [0]
        for j in picks:
            tree = ast.parse(source)
            target = _sites(tree)[cat][j]
            out.append((cat, j, ast.unparse(_replace(tree, target, cat))))
    return out


# ----------------------------------------------------------------------------- sympy evaluation

def symbols(n: int):
    L = sp.symbols(f"L1:{n + 1}", positive=True)
    Lc = sp.symbols(f"Lc1:{n + 1}", positive=True)
    m = sp.symbols(f"m1:{n + 1}", positive=True)
    J = sp.symbols(f"J1:{n + 1}", positive=True)
    g = sp.Symbol("g", positive=True)
    return L, Lc, m, J, g


def _params(n: int):
    L, Lc, m, J, g = symbols(n)
    d = {"n": n, "g": g, "L": list(L), "l": list(L), "Lc": list(Lc), "lc": list(Lc), "m": list(m), "J": list(J),
         "I": list(J)}
    for i in range(n):
        for alias, seq in (("L", L), ("l", L), ("Lc", Lc), ("lc", Lc), ("m", m), ("J", J), ("I", J)):
            d[f"{alias}{i + 1}"] = seq[i]
    return SimpleNamespace(**d)


def symbolic(source: str, n: int) -> dict[str, dict[tuple, sp.Expr]]:
    """{"M": {(i, j): expr}, "G": {(i,): expr}} of the file's functions on symbols (M and G only)."""
    ns: dict = {}
    exec(compile(source, "<mutated>", "exec"), ns)
    ns.update(cos=sp.cos, sin=sp.sin, np=SimpleNamespace(cos=sp.cos, sin=sp.sin, array=lambda x: x))
    q = list(sp.symbols(f"q1:{n + 1}", real=True))
    p = _params(n)
    out = {}
    for role, names in ROLE_FUNCS.items():
        fn = next((ns[k] for k in names if callable(ns.get(k))), None)
        if fn is None:
            continue
        val = fn(q, p)
        if role == "M":
            out["M"] = {(i, j): sp.expand(val[i][j]) for i in range(n) for j in range(n)}
        else:
            out["G"] = {(i,): sp.expand(val[i]) for i in range(n)}
    return out


def _trig_name(atom) -> str:
    args = sorted(int(str(s)[1:]) for s in atom.args[0].free_symbols)
    return f"{atom.func.__name__}(" + "+".join(f"q{k}" for k in args) + ")"


def terms(expr: sp.Expr) -> dict[str, sp.Expr]:
    """The expression as {checker term name ("1", "cos(q2)", "sin(q1+q2)", ...): coefficient polynomial}."""
    expr = sp.expand(expr)
    atoms = sorted(expr.atoms(sp.cos, sp.sin), key=str)
    place = [sp.Symbol(f"__t{k}") for k in range(len(atoms))]
    e = expr.subs(dict(zip(atoms, place)), simultaneous=True)
    out: dict[str, sp.Expr] = {}
    if not place:
        return {"1": e} if e != 0 else {}
    poly = sp.Poly(e, *place)
    for monom, coef in poly.terms():
        assert sum(monom) <= 1, f"product of trigonometric functions in {expr}"
        name = "1" if sum(monom) == 0 else _trig_name(atoms[monom.index(1)])
        out[name] = sp.expand(out.get(name, 0) + coef)
    return {k: v for k, v in out.items() if v != 0}


def parse_polynomial(text: str, n: int) -> sp.Expr:
    """The checker's difference string ("m3*L1 - m3*L1^2", "(m2+m3)*L1", "g*m2*Lc2") as a sympy expression."""
    L, Lc, m, J, g = symbols(n)
    names = {str(s): s for s in itertools.chain(L, Lc, m, J, (g,))}
    return sp.expand(sp.sympify(text.replace("^", "**"), locals=names))
