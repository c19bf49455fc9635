"""The planar nR Lagrangian model derived symbolically (SymPy), for any n.

Derivation (Euler–Lagrange): with θi = q1 + … + qi and link i's centre of mass

    p_ci = Σ_{k<i} Lk (cos θk, sin θk) + Lci (cos θi, sin θi),

the kinetic and potential energies are

    T = ½ Σ_i ( mi |ṗ_ci|² + Ji θ̇i² ) [+ ½ Σ_i I_ai q̇i²],      U = −Σ_i mi g·p_ci,

(the bracket: rotor armature I_a, reflected rotor inertia, derived only with ``armature=True``,
used for arms that have some, so the derivation of an arm without armature is unchanged),

and   M_jk = ∂²T/∂q̇j∂q̇k,   G_i = ∂U/∂qi,
      C_ij = Σ_k Γ_ijk q̇k,  Γ_ijk = ½ (∂M_ij/∂qk + ∂M_ik/∂qj − ∂M_jk/∂qi)   (Christoffel symbols).

The parameters stay symbolic, so one derivation per n serves every arm; it is
compiled with ``sympy.lambdify`` (common subexpressions eliminated) to NumPy
functions and cached per n (in memory), so a derivation happens once per process.
This path shares no code with :mod:`crossdyn.analytic.closed_form` or
:mod:`crossdyn.analytic.rnea`; it is their independent check.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
import sympy as sp

from crossdyn.models.spec import ArmParams, armature_of


@dataclass(frozen=True)
class SymbolicModel:
    """Symbols and expressions of the derived nR model, plus compiled NumPy functions."""

    n: int
    q: tuple
    qd: tuple
    params: tuple  # L1..Ln, m1..mn, Lc1..Lcn, J1..Jn, gx, gy (then Ia1..Ian with armature=True)
    M: sp.Matrix
    C: sp.Matrix
    G: sp.Matrix
    T: sp.Expr
    U: sp.Expr
    _M: Callable
    _C: Callable
    _G: Callable


def _symbols(n: int):
    q = sp.symbols(f"q1:{n + 1}", real=True)
    qd = sp.symbols(f"qd1:{n + 1}", real=True)
    L = sp.symbols(f"L1:{n + 1}", positive=True)
    m = sp.symbols(f"m1:{n + 1}", positive=True)
    Lc = sp.symbols(f"Lc1:{n + 1}", real=True)
    J = sp.symbols(f"J1:{n + 1}", nonnegative=True)
    gx, gy = sp.symbols("gx gy", real=True)
    return q, qd, L, m, Lc, J, gx, gy


@lru_cache(maxsize=None)
def derive(n: int, armature: bool = False) -> SymbolicModel:
    """Derive (once per n and process) the planar nR model by Euler–Lagrange.

    ``armature=True`` adds the rotor kinetic energy ½ Σ I_ai q̇i² to T (symbols ``Ia1..Ian``
    appended to ``params``).
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    q, qd, L, m, Lc, J, gx, gy = _symbols(n)
    Ia = sp.symbols(f"Ia1:{n + 1}", nonnegative=True) if armature else ()
    theta = [sum(q[: i + 1]) for i in range(n)]
    T = sp.Integer(0)
    U = sp.Integer(0)
    base_x, base_y = sp.Integer(0), sp.Integer(0)
    for i in range(n):
        px = base_x + Lc[i] * sp.cos(theta[i])
        py = base_y + Lc[i] * sp.sin(theta[i])
        vx = sum(sp.diff(px, q[j]) * qd[j] for j in range(n))
        vy = sum(sp.diff(py, q[j]) * qd[j] for j in range(n))
        omega = sum(qd[: i + 1])
        T += sp.Rational(1, 2) * (m[i] * (vx**2 + vy**2) + J[i] * omega**2)
        U += -m[i] * (gx * px + gy * py)
        base_x += L[i] * sp.cos(theta[i])
        base_y += L[i] * sp.sin(theta[i])
    for i, Ii in enumerate(Ia):  # rotor i spins with joint i: its kinetic energy is ½ I_ai q̇i²
        T += sp.Rational(1, 2) * Ii * qd[i] ** 2
    M = sp.Matrix(n, n, lambda j, k: sp.diff(T, qd[j], qd[k]))
    G = sp.Matrix(n, 1, lambda i, _: sp.diff(U, q[i]))
    dM = [M.diff(q[k]) for k in range(n)]
    C = sp.Matrix(n, n, lambda i, j: sum(
        sp.Rational(1, 2) * (dM[k][i, j] + dM[j][i, k] - dM[i][j, k]) * qd[k] for k in range(n)))
    params = (*L, *m, *Lc, *J, gx, gy, *Ia)
    upper = [M[i, j] for i in range(n) for j in range(i, n)]
    fM = sp.lambdify((q, params), upper, modules="numpy", cse=True)
    fC = sp.lambdify((q, qd, params), list(C), modules="numpy", cse=True)
    fG = sp.lambdify((q, params), list(G), modules="numpy", cse=True)
    return SymbolicModel(n, q, qd, params, M, C, G, T, U, fM, fC, fG)


def _model(p: ArmParams) -> SymbolicModel:
    """The derivation for this arm: with the armature terms only if it has armature."""
    return derive(p.n, armature_of(p) is not None)


def _param_args(p: ArmParams) -> tuple:
    n = p.n
    cols = [p.L[..., i] for i in range(n)] + [p.m[..., i] for i in range(n)] + \
           [p.Lc[..., i] for i in range(n)] + [p.J[..., i] for i in range(n)]
    Ia = armature_of(p)
    extra = [] if Ia is None else [np.broadcast_to(Ia, p.L.shape)[..., i] for i in range(n)]
    return (*cols, p.gravity[..., 0], p.gravity[..., 1], *extra)


def _batch_shape(p: ArmParams, *arrays) -> tuple:
    return np.broadcast_shapes(*(np.shape(a)[:-1] for a in arrays), p.L.shape[:-1])


def mass_matrix(p: ArmParams, q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, float)
    n = p.n
    model = _model(p)
    shape = _batch_shape(p, q)
    vals = model._M(tuple(q[..., i] for i in range(n)), _param_args(p))
    M = np.empty(shape + (n, n))
    k = 0
    for i in range(n):
        for j in range(i, n):
            M[..., i, j] = M[..., j, i] = vals[k]
            k += 1
    return M


def coriolis_matrix(p: ArmParams, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
    q, qd = np.asarray(q, float), np.asarray(qd, float)
    n = p.n
    model = _model(p)
    shape = _batch_shape(p, q, qd)
    vals = model._C(tuple(q[..., i] for i in range(n)), tuple(qd[..., i] for i in range(n)), _param_args(p))
    C = np.empty(shape + (n * n,))
    for k, v in enumerate(vals):
        C[..., k] = v
    return C.reshape(shape + (n, n))


def gravity(p: ArmParams, q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, float)
    n = p.n
    model = _model(p)
    shape = _batch_shape(p, q)
    vals = model._G(tuple(q[..., i] for i in range(n)), _param_args(p))
    G = np.empty(shape + (n,))
    for k, v in enumerate(vals):
        G[..., k] = v
    return G
