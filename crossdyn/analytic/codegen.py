"""Straight-line Python over floats, generated from the symbolic model, for per-step speed.

NumPy costs ~1 µs per call on 3-element arrays, so a step of RK4 written with
NumPy spends most of its time in overhead.  This module takes the SymPy
Euler–Lagrange model (:mod:`crossdyn.analytic.symbolic`), substitutes one arm's
numeric parameters, eliminates common subexpressions, and emits plain Python:

* ``fd(q, qd, tau) -> tuple``: q̈ = M⁻¹(τ − C q̇ − G − F), with M factored by an
  unrolled LDLᵀ decomposition (no square roots, no NumPy);
* ``rk4(q, qd, tau, dt) -> (q, qd)``, ``semi_implicit_euler(...)`` and
  ``euler(...)``: one step of each integrator with the torque held (zero-order
  hold), unrolled over the n joints, on tuples of floats.

Generated once per (n, parameters) and cached; the source is kept on the result
(``.source``) so it can be read.  Results equal the NumPy path to rounding
(tested to ≤ 1e-12).  Used for n ≤ :data:`MAX_N`; beyond, NumPy is used.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from crossdyn.analytic import symbolic
from crossdyn.models.spec import ArmSpec

MAX_N = 6


@dataclass(frozen=True)
class CompiledModel:
    n: int
    fd: Callable
    rk4: Callable
    semi_implicit_euler: Callable
    euler: Callable
    source: str


class _Printer(PythonCodePrinter):
    def _print_Float(self, expr):  # full precision, no mpmath wrappers
        return repr(float(expr))


def _sign_term(fc: float, qd: str) -> str:
    return f" - {fc!r} * ((({qd}) > 0) - (({qd}) < 0))" if fc else ""


def _fd_source(spec: ArmSpec) -> list[str]:
    n = spec.n
    model = symbolic.derive(n)
    p = spec.params()
    values = [*p.L, *p.m, *p.Lc, *p.J, p.gravity[0], p.gravity[1]]
    subs = {s: sp.Float(float(v), 17) for s, v in zip(model.params, values)}
    upper = [(i, j) for i in range(n) for j in range(i, n)]
    M = [model.M[i, j].xreplace(subs) for i, j in upper]
    h = [(model.C * sp.Matrix(model.qd))[i].xreplace(subs) + model.G[i].xreplace(subs) for i in range(n)]
    rename = {**{model.q[i]: sp.Symbol(f"q{i}") for i in range(n)},
              **{model.qd[i]: sp.Symbol(f"v{i}") for i in range(n)}}
    exprs = [e.xreplace(rename) for e in M + h]
    repl, reduced = sp.cse(exprs, symbols=sp.numbered_symbols("x"))
    pr = _Printer({"fully_qualified_modules": False, "standard": "python3"})
    lines = ["def fd(q, qd, tau):",
             f"    {', '.join(f'q{i}' for i in range(n))}{',' if n == 1 else ''} = q",
             f"    {', '.join(f'v{i}' for i in range(n))}{',' if n == 1 else ''} = qd"]
    for sym, expr in repl:
        lines.append(f"    {sym} = {pr.doprint(expr)}")
    for (i, j), expr in zip(upper, reduced[: len(upper)]):
        lines.append(f"    M{i}{j} = {pr.doprint(expr)}")
    for i, expr in enumerate(reduced[len(upper):]):
        b, fc = spec.links[i].damping, spec.links[i].friction
        damp = f" - {b!r} * v{i}" if b else ""
        lines.append(f"    r{i} = tau[{i}] - ({pr.doprint(expr)}){damp}{_sign_term(fc, f'v{i}')}")
    # LDLᵀ: D_j = M_jj − Σ_k L_jk² D_k ;  L_ij = (M_ij − Σ_k L_ik L_jk D_k) / D_j   (k < j < i)
    for j in range(n):
        acc = "".join(f" - L{j}{k} * L{j}{k} * D{k}" for k in range(j))
        lines.append(f"    D{j} = M{j}{j}{acc}")
        for i in range(j + 1, n):
            acc = "".join(f" - L{i}{k} * L{j}{k} * D{k}" for k in range(j))
            lines.append(f"    L{i}{j} = (M{j}{i}{acc}) / D{j}")
    for i in range(n):  # L y = r
        acc = "".join(f" - L{i}{k} * y{k}" for k in range(i))
        lines.append(f"    y{i} = r{i}{acc}")
    for i in range(n - 1, -1, -1):  # Lᵀ a = D⁻¹ y
        acc = "".join(f" - L{k}{i} * a{k}" for k in range(i + 1, n))
        lines.append(f"    a{i} = y{i} / D{i}{acc}")
    lines.append(f"    return ({', '.join(f'a{i}' for i in range(n))}{',' if n == 1 else ''})")
    return lines


def _step_sources(n: int) -> list[str]:
    idx = range(n)
    tup = lambda fmt: "(" + ", ".join(fmt.format(i=i) for i in idx) + ("," if n == 1 else "") + ")"  # noqa: E731
    unpack = lambda names: ", ".join(names) + ("," if n == 1 else "")  # noqa: E731
    qs = [f"q{i}" for i in idx]
    vs = [f"v{i}" for i in idx]
    lines = [
        "def rk4(q, qd, tau, dt):",
        f"    {unpack(qs)} = q",
        f"    {unpack(vs)} = qd",
        "    h = 0.5 * dt",
        "    a1 = fd(q, qd, tau)",
        f"    s2v = {tup('v{i} + h * a1[{i}]')}",
        f"    a2 = fd({tup('q{i} + h * v{i}')}, s2v, tau)",
        f"    s3v = {tup('v{i} + h * a2[{i}]')}",
        f"    a3 = fd({tup('q{i} + h * s2v[{i}]')}, s3v, tau)",
        f"    s4v = {tup('v{i} + dt * a3[{i}]')}",
        "    a4 = fd(" + tup("q{i} + dt * s3v[{i}]") + ", s4v, tau)",
        "    k = dt / 6.0",
        f"    return ({tup('q{i} + k * (v{i} + 2.0 * s2v[{i}] + 2.0 * s3v[{i}] + s4v[{i}])')}, "
        f"{tup('v{i} + k * (a1[{i}] + 2.0 * a2[{i}] + 2.0 * a3[{i}] + a4[{i}])')})",
        "",
        "def semi_implicit_euler(q, qd, tau, dt):",
        "    a = fd(q, qd, tau)",
        f"    v = {tup('qd[{i}] + dt * a[{i}]')}",
        f"    return ({tup('q[{i}] + dt * v[{i}]')}, v)",
        "",
        "def euler(q, qd, tau, dt):",
        "    a = fd(q, qd, tau)",
        f"    return ({tup('q[{i}] + dt * qd[{i}]')}, {tup('qd[{i}] + dt * a[{i}]')})",
    ]
    return lines


@lru_cache(maxsize=64)
def compile_model(spec: ArmSpec) -> CompiledModel:
    """Generate and compile the float-only model of ``spec`` (cached per spec)."""
    if spec.n > MAX_N:
        raise ValueError(f"code generation is limited to {MAX_N} links, got {spec.n}")
    source = "\n".join(_fd_source(spec) + [""] + _step_sources(spec.n)) + "\n"
    namespace: dict = {"math": math, "sin": math.sin, "cos": math.cos}
    exec(compile(source, f"<crossdyn generated model {spec.name}>", "exec"), namespace)  # noqa: S102
    return CompiledModel(spec.n, namespace["fd"], namespace["rk4"], namespace["semi_implicit_euler"],
                         namespace["euler"], source)
