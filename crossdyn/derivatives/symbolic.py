"""Reference derivatives of a planar arm by symbolic differentiation of its Euler–Lagrange model.

:func:`crossdyn.analytic.symbolic.derive` gives M(q), C(q, q̇) and G(q) as SymPy expressions in the joint symbols
and the arm's parameters; here

    τ(q, q̇, q̈) = M(q) q̈ + C(q, q̇) q̇ + G(q) + b ⊙ q̇

is differentiated by SymPy: ∂τ/∂q = ∂(M q̈ + C q̇ + G)/∂q, ∂τ/∂q̇ = ∂(C q̇)/∂q̇ + diag(b), ∂τ/∂q̈ = M, compiled once
per (n, armature) with ``sympy.lambdify`` (common subexpressions eliminated) and cached.  The forward-dynamics
blocks follow from the implicit-function identity at q̈ = M⁻¹ (τ − C q̇ − G − b ⊙ q̇):

    ∂q̈/∂q = −M⁻¹ ∂τ/∂q,     ∂q̈/∂q̇ = −M⁻¹ ∂τ/∂q̇,     ∂q̈/∂τ = M⁻¹.

This path shares no code with :mod:`crossdyn.derivatives.reference` (complex step of the spatial RNEA/ABA): the
two are each other's check.  It is evaluated with the inertias the arm's engines and its compiled
:class:`~crossdyn.robots.model.RobotModel` carry (:func:`crossdyn.models.inertia.engine_inertias`: a point mass's
J raised to the inertia floor), so both paths differentiate the same model.  Coulomb friction, the limit law and
contact are excluded, as in :mod:`crossdyn.derivatives.reference`.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np

from crossdyn.derivatives.blocks import Derivatives
from crossdyn.models.inertia import engine_inertias
from crossdyn.models.spec import ArmParams, ArmSpec, armature_of


@lru_cache(maxsize=None)
def compiled(n: int, armature: bool) -> tuple[Callable, Callable, Callable, Callable]:
    """(M, h, ∂τ/∂q, ∂(Cq̇)/∂q̇) as NumPy functions of (q, q̇, q̈, params) lists, entries row-major; h = C q̇ + G."""
    import sympy as sp

    from crossdyn.analytic.symbolic import derive

    model = derive(n, armature)
    q, qd = sp.Matrix(model.q), sp.Matrix(model.qd)
    qdd = sp.Matrix(sp.symbols(f"qdd1:{n + 1}", real=True))
    h = model.C * qd + model.G
    tau = model.M * qdd + h
    args = (tuple(model.q), tuple(model.qd), tuple(qdd), model.params)

    def fn(expr):
        return sp.lambdify(args, list(expr), modules="numpy", cse=True)
    return fn(model.M), fn(h), fn(tau.jacobian(q)), fn((model.C * qd).jacobian(qd))


def _params(spec: ArmSpec) -> ArmParams:
    p = spec.params()
    return p._replace(J=np.array(engine_inertias(spec)[0], dtype=float))


def _fill(vals: list, N: int) -> np.ndarray:
    """Lambdify's list of entries (arrays (N,) or constants) as an (N, len(vals)) array."""
    out = np.empty((N, len(vals)))
    for k, v in enumerate(vals):
        out[:, k] = v
    return out


def symbolic(spec: ArmSpec, Q, QD, TAU) -> Derivatives:
    """The six blocks of the planar ``spec`` at the states (N, n) or one (n,) state (module docstring); the armature
    is in the derivation's M (``derive(n, armature=True)``)."""
    Q, QD, TAU = (np.atleast_2d(np.asarray(a, dtype=float)) for a in (Q, QD, TAU))
    n = Q.shape[1]
    p = _params(spec)
    Ia = armature_of(p)
    params = (*p.L, *p.m, *p.Lc, *p.J, *p.gravity, *(() if Ia is None else np.broadcast_to(Ia, (n,))))
    return _blocks("SymPy differentiation of the planar Euler–Lagrange model", compiled(n, Ia is not None), params,
                   np.asarray(p.b, dtype=float), np.zeros(n), Q, QD, TAU)


@lru_cache(maxsize=None)
def compiled_spatial(spec) -> tuple[Callable, Callable, Callable, Callable]:
    """The four functions of :func:`compiled` for a spatial preset (:class:`~crossdyn.models.spatial_spec.SpatialArmSpec`),
    from :func:`crossdyn.analytic.spatial_symbolic.derive`'s M, C, G with the preset's numbers put in; functions of
    (q, q̇, q̈) lists only."""
    import sympy as sp

    from crossdyn.analytic.spatial_derive import matrices
    from crossdyn.analytic.spatial_from_spec import sym_arm
    from crossdyn.analytic.spatial_symbolic import derive

    arm, values = sym_arm(spec)
    d = derive(arm)
    M, C, G = matrices(d, values)
    n = d.n
    qd = sp.Matrix(d.qd)
    qdd = sp.Matrix(sp.symbols(f"qdd1:{n + 1}", real=True))
    h = C * qd + G
    args = (tuple(d.q), tuple(d.qd), tuple(qdd))

    def fn(expr):
        return sp.lambdify(args, list(expr), modules="numpy", cse=True)
    return fn(M), fn(h), fn((M * qdd + h).jacobian(sp.Matrix(d.q))), fn((C * qd).jacobian(qd))


def spatial_symbolic(spec, Q, QD, TAU) -> Derivatives:
    """The six blocks of a spatial preset at the states (N, n) or one (n,) state: the module's equations on the
    spatial derivation (:mod:`crossdyn.analytic.spatial_symbolic`), plus the armature diag(I_a) on M and the viscous
    damping b of the preset's :class:`~crossdyn.robots.model.RobotModel` (``spec.to_robot_model()``)."""
    Q, QD, TAU = (np.atleast_2d(np.asarray(a, dtype=float)) for a in (Q, QD, TAU))
    model = spec.to_robot_model()
    b = np.array([j.damping for j in model.joints], dtype=float)
    Ia = np.array([j.armature for j in model.joints], dtype=float)
    return _blocks("SymPy differentiation of the spatial Lagrangian model", compiled_spatial(spec), (), b, Ia,
                   Q, QD, TAU)


def _blocks(source: str, fns, params: tuple, b: np.ndarray, Ia: np.ndarray, Q, QD, TAU) -> Derivatives:
    """The six blocks from the compiled (M, h, ∂τ/∂q, ∂(Cq̇)/∂q̇) (module docstring); M gains diag(I_a) and ∂τ/∂q̇
    gains diag(b) here (both constant)."""
    N, n = Q.shape
    fM, fh, fdq, fdv = fns
    extra = (params,) if params else ()
    cols = (tuple(Q.T), tuple(QD.T))
    zero = tuple(np.zeros((n, N)))
    M = _fill(fM(*cols, zero, *extra), N).reshape(N, n, n) + np.diag(Ia)
    rhs = TAU - _fill(fh(*cols, zero, *extra), N) - b * QD
    Minv = np.linalg.inv(M)
    QDD = np.einsum("nij,nj->ni", Minv, rhs)
    dtau_dq = _fill(fdq(*cols, tuple(QDD.T), *extra), N).reshape(N, n, n)
    dtau_dqd = _fill(fdv(*cols, tuple(QDD.T), *extra), N).reshape(N, n, n) + np.diag(b)
    return Derivatives(source, Q, QD, TAU, QDD, -Minv @ dtau_dq, -Minv @ dtau_dqd, Minv, dtau_dq, dtau_dqd, M)
