"""Straight-line Python over floats, generated per arm, for per-step speed.

NumPy costs ~1 µs per call on 3-element arrays, so a step of RK4 written with
NumPy spends most of its time in overhead.  This module writes, for one arm,
plain Python over floats with the arm's parameters folded into constants:

* ``fd(q, qd, tau) -> tuple``: q̈ from the Lagrangian written in **absolute**
  angles θi = q1 + … + qi, where a planar chain's equations are compact.  With
  ωi = θ̇i, the kinetic energy is T = ½ Σ_kl A_kl(θ) ωk ωl with

      A_kl = K_kl cos(θk − θl) + J_k δ_kl,
      K_kl = Σ_{i ≥ max(k,l)} m_i r_ik r_il,   r_ik = L_k (k < i), Lc_i (k = i),

  and Euler–Lagrange gives, for every link k,

      Σ_l A_kl θ̈_l + Σ_l K_kl sin(θk − θl) ω_l² + h_k γ(θk) = u_k − u_{k+1},

  with h_k = m_k Lc_k + L_k Σ_{i>k} m_i, γ(θ) = gx sin θ − gy cos θ, and
  u = τ − F(q̇) the net joint torques (u_{n+1} = 0: τ·q̇ = Σ θ̇_k (u_k − u_{k+1})).
  Rotor armature I_a (kinetic energy ½ I_ai q̇i², q̇i = ωi − ω_{i−1}) adds the constant
  tridiagonal I_ai (e_i − e_{i−1})(e_i − e_{i−1})ᵀ to A: A_ii += I_ai, A_{i−1,i−1} += I_ai,
  A_{i−1,i} −= I_ai (nothing is generated for an arm without armature).
  A is factored by an unrolled LDLᵀ (no square roots), and q̈_k = θ̈_k − θ̈_{k−1}.
  n(n−1)/2 relative-angle sines and cosines and n gravity cosines per call.
* ``rk4(q, qd, tau, dt) -> (q, qd)``, ``semi_implicit_euler(...)`` and
  ``euler(...)``: one step of each integrator with the torque held (zero-order
  hold), unrolled over the joints, on tuples of floats.

This derivation is independent of the joint-space closed form, the SymPy model
and Newton–Euler; it equals them to rounding (tested to ≤ 1e-12).  Generated once
per spec and cached; the source is kept on the result (``.source``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from crossdyn.conventions import MAX_LINKS
from crossdyn.models.spec import ArmSpec

MAX_N = MAX_LINKS


@dataclass(frozen=True)
class CompiledModel:
    n: int
    fd: Callable
    rk4: Callable
    semi_implicit_euler: Callable
    euler: Callable
    source: str


def _coefficients(spec: ArmSpec):
    """K (n×n), J, h of the absolute-angle form (see the module docstring)."""
    n = spec.n
    L = [link.length for link in spec.links]
    m = [link.mass for link in spec.links]
    Lc = [link.com for link in spec.links]

    def r(i, k):
        return L[k] if k < i else Lc[i]

    K = [[sum(m[i] * r(i, k) * r(i, j) for i in range(max(k, j), n)) for j in range(n)] for k in range(n)]
    h = [m[k] * Lc[k] + L[k] * sum(m[k + 1:]) for k in range(n)]
    return K, [link.inertia for link in spec.links], h


def _fd_source(spec: ArmSpec, arrays: bool = False) -> list[str]:
    n = spec.n
    K, J, h = _coefficients(spec)
    gx, gy = float(spec.gravity[0]), float(spec.gravity[1])
    f = repr
    idx = range(n)
    lines = ["def fd(q, qd, tau):",
             f"    {', '.join(f'q{i}' for i in idx)}{',' if n == 1 else ''} = q",
             f"    {', '.join(f'v{i}' for i in idx)}{',' if n == 1 else ''} = qd"]
    # absolute angles (for gravity) and rates
    lines.append("    t0 = q0")
    lines.append("    w0 = v0")
    for i in range(1, n):
        lines.append(f"    t{i} = t{i - 1} + q{i}")
        lines.append(f"    w{i} = w{i - 1} + v{i}")
    # relative angles θl − θk = q_{k+1} + … + q_l for k < l (loop variable o = l)
    for k in range(n):
        for o in range(k + 1, n):
            d = " + ".join(f"q{j}" for j in range(k + 1, o + 1))
            lines.append(f"    d = {d}")
            lines.append(f"    c{k}_{o} = cos(d)")
            lines.append(f"    s{k}_{o} = sin(d)")
    # net joint torques u = τ − F(q̇), and generalized forces on θ
    for i, link in enumerate(spec.links):
        b, fc = link.damping, link.friction
        expr = f"tau[{i}]"
        if b:
            expr += f" - {f(b)} * v{i}"
        if fc:
            sign = f"sign(v{i})" if arrays else f"(1.0 if v{i} > 0.0 else (-1.0 if v{i} < 0.0 else 0.0))"
            expr += f" - {f(fc)} * {sign}"  # sign(q̇): np.sign on arrays, branches on any float type
        lines.append(f"    u{i} = {expr}")
    for k in range(n):
        rhs = f"u{k}" + (f" - u{k + 1}" if k + 1 < n else "")
        grav = []
        if gx:
            grav.append(f"{f(gx * h[k])} * sin(t{k})")
        if gy:
            grav.append(f"{f(-gy * h[k])} * cos(t{k})")
        if grav:
            rhs += " - (" + " + ".join(grav) + ")"
        for o in range(n):
            if o == k or K[k][o] == 0.0:
                continue
            # sin(θk − θl) = −s_k_l for k < l, +s_l_k for k > l
            sgn, sname = ("+", f"s{k}_{o}") if k < o else ("-", f"s{o}_{k}")
            rhs += f" {sgn} {f(K[k][o])} * {sname} * w{o} * w{o}"
        lines.append(f"    r{k} = {rhs}")
    # A and its LDLᵀ factorisation: D_j = A_jj − Σ L_jk² D_k ; L_ij = (A_ij − Σ L_ik L_jk D_k) / D_j
    Ia = [link.armature for link in spec.links] + [0.0]
    for k in range(n):
        diag = K[k][k] + J[k]
        if Ia[k] or Ia[k + 1]:  # armature of joint k (rotor k) and of joint k + 1 (ω_{k+1} − ω_k)
            diag += Ia[k] + Ia[k + 1]
        lines.append(f"    A{k}_{k} = {f(diag)}")
        for o in range(k + 1, n):
            off = f" - {f(Ia[o])}" if o == k + 1 and Ia[o] else ""
            lines.append(f"    A{k}_{o} = {f(K[k][o])} * c{k}_{o}{off}")
    for j in range(n):
        acc = "".join(f" - L{j}_{k} * L{j}_{k} * D{k}" for k in range(j))
        lines.append(f"    D{j} = A{j}_{j}{acc}")
        for i in range(j + 1, n):
            acc = "".join(f" - L{i}_{k} * L{j}_{k} * D{k}" for k in range(j))
            lines.append(f"    L{i}_{j} = (A{j}_{i}{acc}) / D{j}")
    for i in range(n):
        acc = "".join(f" - L{i}_{k} * y{k}" for k in range(i))
        lines.append(f"    y{i} = r{i}{acc}")
    for i in range(n - 1, -1, -1):
        acc = "".join(f" - L{k}_{i} * x{k}" for k in range(i + 1, n))
        lines.append(f"    x{i} = y{i} / D{i}{acc}")
    out = ["x0"] + [f"x{i} - x{i - 1}" for i in range(1, n)]
    lines.append(f"    return ({', '.join(out)}{',' if n == 1 else ''})")
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
    source = "\n".join(_fd_source(spec) + [""] + _step_sources(spec.n)) + "\n"
    namespace: dict = {"math": math, "sin": math.sin, "cos": math.cos}
    exec(compile(source, f"<crossdyn generated model {spec.name}>", "exec"), namespace)  # noqa: S102
    return CompiledModel(spec.n, namespace["fd"], namespace["rk4"], namespace["semi_implicit_euler"],
                         namespace["euler"], source)


@lru_cache(maxsize=64)
def compile_batch(spec: ArmSpec) -> CompiledModel:
    """The same generated model for **batches**: every q_i, q̇_i, τ_i an (N,) array (the tuples hold one array per
    joint), NumPy's elementwise sin/cos/sign in place of math's.  The same operations in the same order, so each
    column equals the float model's result to the rounding of NumPy's vectorised sin/cos (tested to 1e-14
    relative); :func:`crossdyn.analytic.integrators.simulate` steps batches of an ArmSpec with it."""
    import numpy as np

    source = "\n".join(_fd_source(spec, arrays=True) + [""] + _step_sources(spec.n)) + "\n"
    namespace: dict = {"sin": np.sin, "cos": np.cos, "sign": np.sign}
    exec(compile(source, f"<crossdyn generated batch model {spec.name}>", "exec"), namespace)  # noqa: S102
    return CompiledModel(spec.n, namespace["fd"], namespace["rk4"], namespace["semi_implicit_euler"],
                         namespace["euler"], source)
