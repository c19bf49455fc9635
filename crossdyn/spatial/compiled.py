"""What the recursions need from a model, computed once per model: :func:`compile_model`, and a single-state ABA
on it, :func:`aba_one`.

**The cache.** Everything that depends on the model alone — the stacked per-body constants
(:class:`~crossdyn.spatial.kinematics.Bodies`: m, h = m c, Ī, S, parents, armature), each body's 6×6 spatial inertia
(Featherstone eq. 2.63), each joint's origin (R_o, p_o), the Rodrigues factors K = a× and K K of its axis, and the
constant parts of X_i(q) (p_o + R_o anchor, R_o a) — is built once per :class:`~crossdyn.robots.model.RobotModel`
object and kept (``functools.lru_cache`` on the model's identity: RobotModel is a frozen dataclass compared by
identity, ``eq=False``; its arrays are never mutated in place by crossdyn).  The cached values are the numbers the
per-call code computed, by the same operations, so every batched result is bit for bit what it was
(``tests/test_spatial_compiled.py``: cache on and off compared with ``array_equal``).  :func:`caching` switches the
cache off (each call compiles afresh) for that test.

**The single-state ABA.** The batched functions cost a few NumPy calls per body whatever N is; at N = 1 (a reference
integrated by DOP853 calls ABA 13 times per step on one state) that per-call overhead is the whole cost.
:func:`aba_one` is Featherstone's Table 7.1 on 6-vectors and 6×6 matrices of one state, on the compiled constants:
the same algorithm and equations as :mod:`crossdyn.spatial.aba`, its floating-point operations in another order, so
it agrees with the batched ABA to rounding (≤ 1e-13 relative to max(|q̈|, 1) on the test models; measured ~1e-15),
not bit for bit.
"""
from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from crossdyn.robots.model import Joint, RobotModel
from crossdyn.spatial.transforms import skew


def motion_subspace(joint: Joint) -> np.ndarray:
    """S = [a; anchor × a] (revolute, continuous) or [0; a] (prismatic), in the body's frame: shape (6,)."""
    a = np.asarray(joint.axis, dtype=float)
    if joint.type.rotates:
        return np.concatenate((a, np.cross(joint.anchor, a)))
    return np.concatenate((np.zeros(3), a))


@dataclass(frozen=True)
class Bodies:
    """The per-body constants the recursions use, stacked: m (n,), h = m c (n, 3), Ī about the body origin
    (n, 3, 3), S = [S_ω; S_v] (n, 6), parents and armature (n,)."""

    mass: np.ndarray
    h: np.ndarray
    inertia: np.ndarray
    S: np.ndarray
    parents: tuple[int, ...]
    armature: np.ndarray


def bodies_of(model: RobotModel) -> Bodies:
    """The model's :class:`Bodies`, computed now (what :func:`bodies` caches); read-only arrays."""
    mass = np.array([b.inertial.mass for b in model.bodies])
    h = np.array([b.inertial.mass * b.inertial.com for b in model.bodies]).reshape(-1, 3)
    inertia = np.array([b.inertial.about_origin() for b in model.bodies]).reshape(-1, 3, 3)
    S = np.array([motion_subspace(j) for j in model.joints]).reshape(-1, 6)
    out = Bodies(mass, h, inertia, S, tuple(model.parents), model.armature())
    for a in (mass, h, inertia, S, out.armature):
        a.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class Compiled:
    """A model's constants (module docstring); arrays stacked over the n bodies."""

    bodies: Bodies
    inertia6: np.ndarray
    """(n, 6, 6): [[Ī, h×], [−h×, m 1]] about each body's origin."""
    rotates: tuple[bool, ...]
    Ro: np.ndarray
    """(n, 3, 3) origin rotations."""
    po: np.ndarray
    """(n, 3) origin translations."""
    K: np.ndarray
    """(n, 3, 3): a× of each axis."""
    KK: np.ndarray
    """(n, 3, 3): (a×)(a×)."""
    anchor: np.ndarray
    """(n, 3) joint anchors."""
    fixed_p: np.ndarray
    """(n, 3): p_o + anchor R_oᵀ (revolute: p(q) = this − R(q) anchor)."""
    Ra: np.ndarray
    """(n, 3): R_o a (prismatic: p(q) = p_o + q R_o a)."""
    flat: np.ndarray
    """(n, :data:`STRIDE`): all of the above, one row per body, as the compiled kernels of
    :mod:`crossdyn.spatial.kernels` read it (:func:`flatten`)."""
    gravity: np.ndarray
    """(3,): the model's world gravity, float64."""


PARENT, ROTATES, RO, K, KK, FIXED_P, ANCHOR, PO, RA, S, INERTIA, ARMATURE = 0, 1, 2, 11, 20, 29, 32, 35, 38, 41, 47, 83
STRIDE = 84
"""The length of one body's row in the flat array (the offsets above)."""


def flatten(b: Bodies, rotates: tuple[bool, ...], geometry: tuple[np.ndarray, ...], inertia6: np.ndarray) -> np.ndarray:
    """The compiled kernels' constants (n, :data:`STRIDE`), one row per body (:mod:`crossdyn.spatial.kernels`
    names the fields), from the stacked arrays of :class:`Compiled`."""
    Ro, K_, KK_, fixed_p, anchor, po, Ra = geometry
    n = len(b.parents)
    P = np.zeros((n, STRIDE))
    P[:, PARENT] = b.parents
    P[:, ROTATES] = [1.0 if r else 0.0 for r in rotates]
    for off, block, width in ((RO, Ro, 9), (K, K_, 9), (KK, KK_, 9), (FIXED_P, fixed_p, 3), (ANCHOR, anchor, 3),
                              (PO, po, 3), (RA, Ra, 3), (S, b.S, 6), (INERTIA, inertia6, 36)):
        P[:, off:off + width] = np.asarray(block, dtype=float).reshape(n, width)
    P[:, ARMATURE] = b.armature
    return P


def _inertia6(b: Bodies, i: int) -> np.ndarray:
    out = np.zeros((6, 6))
    H = skew(b.h[i])
    out[:3, :3], out[:3, 3:], out[3:, :3], out[3:, 3:] = b.inertia[i], H, -H, b.mass[i] * np.eye(3)
    return out


def _compile(model: RobotModel) -> Compiled:
    b = bodies_of(model)
    n = model.n
    Ro = np.array([j.origin[:3, :3] for j in model.joints]).reshape(n, 3, 3)
    po = np.array([j.origin[:3, 3] for j in model.joints]).reshape(n, 3)
    axes = np.array([np.asarray(j.axis, dtype=float) for j in model.joints]).reshape(n, 3)
    K = np.array([skew(a) for a in axes]).reshape(n, 3, 3)
    anchor = np.array([np.asarray(j.anchor, dtype=float) for j in model.joints]).reshape(n, 3)
    inertia6 = np.array([_inertia6(b, i) for i in range(n)]).reshape(n, 6, 6)
    rotates = tuple(bool(j.type.rotates) for j in model.joints)
    fixed_p = np.array([po[i] + anchor[i] @ Ro[i].T for i in range(n)]).reshape(n, 3)
    Ra = np.array([Ro[i] @ axes[i] for i in range(n)]).reshape(n, 3)
    flat = flatten(b, rotates, (Ro, K, K @ K, fixed_p, anchor, po, Ra), inertia6)
    out = Compiled(b, inertia6, rotates, Ro, po, K, K @ K, anchor, fixed_p, Ra, flat,
                   np.array(model.gravity, dtype=float).reshape(3))
    for a in (out.inertia6, out.Ro, out.po, out.K, out.KK, out.anchor, out.fixed_p, out.Ra, out.flat, out.gravity):
        a.setflags(write=False)
    return out


_cached = functools.lru_cache(maxsize=64)(_compile)
_CACHE = [True]


def compile_model(model: RobotModel) -> Compiled:
    """The model's :class:`Compiled` constants, cached per model object (module docstring)."""
    return _cached(model) if _CACHE[0] else _compile(model)


@contextlib.contextmanager
def caching(on: bool) -> Iterator[None]:
    """Within the block, :func:`compile_model` caches (``on``) or compiles afresh at every call."""
    before = _CACHE[0]
    _CACHE[0] = on
    try:
        yield
    finally:
        _CACHE[0] = before


_I3 = np.eye(3)
_I3.setflags(write=False)


def _cross6(v: np.ndarray) -> np.ndarray:
    """The 6×6 motion cross-product matrix v× = [[ω×, 0], [v×, ω×]] (Featherstone eq. 2.31)."""
    wx, wy, wz, vx, vy, vz = v
    out = np.zeros((6, 6))
    W = np.array(((0.0, -wz, wy), (wz, 0.0, -wx), (-wy, wx, 0.0)))
    out[:3, :3] = W
    out[3:, 3:] = W
    out[3:, :3] = ((0.0, -vz, vy), (vz, 0.0, -vx), (-vy, vx, 0.0))
    return out


def _transform(c: Compiled, i: int, q: float) -> np.ndarray:
    """ⁱX_λ(q), 6×6 = [[Rᵀ, 0], [−Rᵀ p×, Rᵀ]] with (R, p) of :func:`crossdyn.spatial.kinematics.joint_transform`."""
    if c.rotates[i]:
        R = c.Ro[i] @ (_I3 + math.sin(q) * c.K[i] + (1.0 - math.cos(q)) * c.KK[i])
        p = c.fixed_p[i] - R @ c.anchor[i]
    else:
        R = c.Ro[i]
        p = c.po[i] + q * c.Ra[i]
    E = R.T
    X = np.zeros((6, 6))
    X[:3, :3] = E
    X[3:, 3:] = E
    X[3:, :3] = -E @ np.array(((0.0, -p[2], p[1]), (p[2], 0.0, -p[0]), (-p[1], p[0], 0.0)))
    return X


def aba_one(model: RobotModel, q: np.ndarray, qd: np.ndarray, tau: np.ndarray, armature: bool) -> np.ndarray:
    """q̈ = (M + diag(I_a))⁻¹ (τ − C q̇ − G) at one state (n,), by Featherstone's Table 7.1 on 6×6 matrices
    (:mod:`crossdyn.spatial.aba` for the equations)."""
    c = compile_model(model)
    S, parents, n = c.bodies.S, c.bodies.parents, model.n
    arm = c.bodies.armature if armature else np.zeros(n)
    X: list[np.ndarray] = []
    v: list[np.ndarray] = []
    cc: list[np.ndarray] = []
    IA: list[np.ndarray] = []
    pA: list[np.ndarray] = []
    for i in range(n):
        Xi = _transform(c, i, float(q[i]))
        vJ = S[i] * qd[i]
        vi = vJ if parents[i] < 0 else Xi @ v[parents[i]] + vJ
        X.append(Xi)
        v.append(vi)
        vx = _cross6(vi)
        cc.append(vx @ vJ)
        IA.append(c.inertia6[i].copy())
        pA.append(-(vx.T @ (c.inertia6[i] @ vi)))  # v ×* I v, ×* = −(v×)ᵀ
    U, D, u = [np.empty(0)] * n, np.empty(n), np.empty(n)
    for i in range(n - 1, -1, -1):
        U[i] = IA[i] @ S[i]
        D[i] = U[i] @ S[i] + arm[i]
        u[i] = tau[i] - S[i] @ pA[i]
        lam = parents[i]
        if lam >= 0:
            Ia = IA[i] - np.outer(U[i], U[i] / D[i])
            pa = pA[i] + Ia @ cc[i] + U[i] * (u[i] / D[i])
            IA[lam] += X[i].T @ Ia @ X[i]
            pA[lam] += X[i].T @ pa
    qdd = np.empty(n)
    acc: list[np.ndarray] = []
    root = np.concatenate((np.zeros(3), -np.asarray(model.gravity, dtype=float)))
    for i in range(n):
        a = X[i] @ (root if parents[i] < 0 else acc[parents[i]]) + cc[i]
        qdd[i] = (u[i] - U[i] @ a) / D[i]
        acc.append(a + qdd[i] * S[i])
    return qdd
