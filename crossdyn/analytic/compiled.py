"""The generated model's RK4 / Euler steps compiled to machine code with numba (optional extra ``[numba]``).

The same equations as :mod:`crossdyn.analytic.codegen` (the planar chain's Lagrangian in absolute angles
θi = q1 + … + qi, A(θ) θ̈ = r factored by LDLᵀ, q̈_k = θ̈_k − θ̈_{k−1}), written once as loops over the joints
with the arm's constants in one packed vector (:func:`pack`), and evaluated **in the same order of floating
point operations** as the generated Python (same sums left to right, same folded constants, no fused
multiply–add: numba's default ``fastmath=False``).  So the two agree to the last bit or within rounding of the
libm sine/cosine (tested to 1e-14 relative per state).

One kernel serves every arm (the constants are data, not code), compiled once per machine
(``cache=True``, numba's on-disk cache).  Without numba :data:`AVAILABLE` is False and the analytic engine
steps with the generated Python (:mod:`crossdyn.analytic.codegen`); nothing else changes.  Setting the
environment variable ``CROSSDYN_NUMBA=0`` forces that fallback.

State layout: ``x`` = (q1 … qn, q̇1 … q̇n), updated in place; ``tau`` (n,) held over the step.  A step is
``STEPS[scheme](x, P, n, dt, W, tau)`` with the torque last, so that everything before it can be bound once
(``functools.partial``) and a step is one call.
"""
from __future__ import annotations

import os
from typing import Callable

import numpy as np

from crossdyn.models.spec import ArmSpec

try:  # the optional extra: crossdyn[numba]
    if os.environ.get("CROSSDYN_NUMBA", "1") == "0":
        raise ImportError("disabled by CROSSDYN_NUMBA=0")
    import numba
except ImportError:
    numba = None  # type: ignore[assignment]  # the fallback: generated Python

AVAILABLE = numba is not None


def pack(spec: ArmSpec) -> np.ndarray:
    """The arm's constants as the kernel reads them, computed exactly as codegen folds them:
    K (n·n, row-major), A's constant diagonal K_kk + J_k (+ I_a,k + I_a,k+1), the armature subtracted from
    A_k,k+1, gx·h_k, −gy·h_k, damping b_k, Coulomb f_c,k."""
    from crossdyn.analytic.codegen import _coefficients

    n = spec.n
    K, J, h = _coefficients(spec)
    gx, gy = float(spec.gravity[0]), float(spec.gravity[1])
    Ia = [link.armature for link in spec.links] + [0.0]
    diag = []
    for k in range(n):
        d = K[k][k] + J[k]
        if Ia[k] or Ia[k + 1]:
            d += Ia[k] + Ia[k + 1]
        diag.append(d)
    off = [Ia[k + 1] for k in range(n)]
    vals = [x for row in K for x in row] + diag + off + [gx * hk for hk in h] + [-gy * hk for hk in h]
    vals += [link.damping for link in spec.links] + [link.friction for link in spec.links]
    return np.array(vals, dtype=float)


def workspace(n: int) -> np.ndarray:
    """Scratch space of one kernel call (c, s, A, L: n·n each; 15 vectors of n)."""
    return np.zeros(4 * n * n + 15 * n)


def _fd(q, v, tau, P, n, W, out):
    """q̈ into ``out``: the generated ``fd`` of codegen, operation for operation (right-hand side r here)."""
    nn = n * n
    K = P[:nn]
    diag = P[nn:nn + n]
    off = P[nn + n:nn + 2 * n]
    gxh = P[nn + 2 * n:nn + 3 * n]
    mgyh = P[nn + 3 * n:nn + 4 * n]
    b = P[nn + 4 * n:nn + 5 * n]
    fc = P[nn + 5 * n:nn + 6 * n]
    c = W[:nn]
    s = W[nn:2 * nn]
    base = 4 * nn
    t = W[base:base + n]
    w = W[base + n:base + 2 * n]
    u = W[base + 2 * n:base + 3 * n]
    r = W[base + 3 * n:base + 4 * n]
    t[0] = q[0]
    w[0] = v[0]
    for i in range(1, n):
        t[i] = t[i - 1] + q[i]
        w[i] = w[i - 1] + v[i]
    for k in range(n):
        for o in range(k + 1, n):
            d = q[k + 1]
            for j in range(k + 2, o + 1):
                d = d + q[j]
            c[k * n + o] = np.cos(d)
            s[k * n + o] = np.sin(d)
    for i in range(n):
        ui = tau[i]
        if b[i] != 0.0:
            ui = ui - b[i] * v[i]
        if fc[i] != 0.0:
            sg = 1.0 if v[i] > 0.0 else (-1.0 if v[i] < 0.0 else 0.0)
            ui = ui - fc[i] * sg
        u[i] = ui
    for k in range(n):
        rk = u[k]
        if k + 1 < n:
            rk = rk - u[k + 1]
        if gxh[k] != 0.0 and mgyh[k] != 0.0:
            rk = rk - (gxh[k] * np.sin(t[k]) + mgyh[k] * np.cos(t[k]))
        elif gxh[k] != 0.0:
            rk = rk - (gxh[k] * np.sin(t[k]))
        elif mgyh[k] != 0.0:
            rk = rk - (mgyh[k] * np.cos(t[k]))
        for o in range(n):
            Kko = K[k * n + o]
            if o == k or Kko == 0.0:
                continue
            if k < o:
                rk = rk + Kko * s[k * n + o] * w[o] * w[o]
            else:
                rk = rk - Kko * s[o * n + k] * w[o] * w[o]
        r[k] = rk
    _solve(c, r, K, diag, off, n, W, out)


def _solve(c, r, K, diag, off, n, W, out):
    """A θ̈ = r by the unrolled LDLᵀ of codegen, then q̈_k = θ̈_k − θ̈_{k−1} into ``out``."""
    nn = n * n
    A = W[2 * nn:3 * nn]
    L = W[3 * nn:4 * nn]
    base = 4 * nn
    D = W[base + 4 * n:base + 5 * n]
    y = W[base + 5 * n:base + 6 * n]
    x = W[base + 6 * n:base + 7 * n]
    for k in range(n):
        A[k * n + k] = diag[k]
        for o in range(k + 1, n):
            a = K[k * n + o] * c[k * n + o]
            if o == k + 1 and off[k] != 0.0:
                a = a - off[k]
            A[k * n + o] = a
    for j in range(n):
        dj = A[j * n + j]
        for k in range(j):
            dj = dj - L[j * n + k] * L[j * n + k] * D[k]
        D[j] = dj
        for i in range(j + 1, n):
            a = A[j * n + i]
            for k in range(j):
                a = a - L[i * n + k] * L[j * n + k] * D[k]
            L[i * n + j] = a / dj
    for i in range(n):
        yi = r[i]
        for k in range(i):
            yi = yi - L[i * n + k] * y[k]
        y[i] = yi
    for i in range(n - 1, -1, -1):
        xi = y[i] / D[i]
        for k in range(i + 1, n):
            xi = xi - L[k * n + i] * x[k]
        x[i] = xi
    out[0] = x[0]
    for i in range(1, n):
        out[i] = x[i] - x[i - 1]


def _rk4(x, P, n, dt, W, tau):
    """One RK4 step of x = (q, q̇) in place: the generated ``rk4`` of codegen, operation for operation."""
    if tau.shape[0] != n or x.shape[0] != 2 * n:  # the loops below do not check bounds
        raise ValueError("tau must have n values and x 2n")
    base = 4 * n * n + 7 * n
    a1 = W[base:base + n]
    a2 = W[base + n:base + 2 * n]
    a3 = W[base + 2 * n:base + 3 * n]
    a4 = W[base + 3 * n:base + 4 * n]
    qs = W[base + 4 * n:base + 5 * n]
    s2v = W[base + 5 * n:base + 6 * n]
    s3v = W[base + 6 * n:base + 7 * n]
    s4v = W[base + 7 * n:base + 8 * n]
    q = x[:n]
    v = x[n:]
    h = 0.5 * dt
    _fd(q, v, tau, P, n, W, a1)
    for i in range(n):
        s2v[i] = v[i] + h * a1[i]
        qs[i] = q[i] + h * v[i]
    _fd(qs, s2v, tau, P, n, W, a2)
    for i in range(n):
        s3v[i] = v[i] + h * a2[i]
        qs[i] = q[i] + h * s2v[i]
    _fd(qs, s3v, tau, P, n, W, a3)
    for i in range(n):
        s4v[i] = v[i] + dt * a3[i]
        qs[i] = q[i] + dt * s3v[i]
    _fd(qs, s4v, tau, P, n, W, a4)
    k = dt / 6.0
    for i in range(n):
        q[i] = q[i] + k * (v[i] + 2.0 * s2v[i] + 2.0 * s3v[i] + s4v[i])
        v[i] = v[i] + k * (a1[i] + 2.0 * a2[i] + 2.0 * a3[i] + a4[i])


def _semi_implicit_euler(x, P, n, dt, W, tau):
    """q̇' = q̇ + dt q̈(q, q̇), q' = q + dt q̇' (codegen's ``semi_implicit_euler``)."""
    if tau.shape[0] != n or x.shape[0] != 2 * n:  # the loops below do not check bounds
        raise ValueError("tau must have n values and x 2n")
    a = W[4 * n * n + 7 * n:4 * n * n + 8 * n]
    _fd(x[:n], x[n:], tau, P, n, W, a)
    for i in range(n):
        x[n + i] = x[n + i] + dt * a[i]
        x[i] = x[i] + dt * x[n + i]


def _euler(x, P, n, dt, W, tau):
    """q' = q + dt q̇, q̇' = q̇ + dt q̈(q, q̇) (codegen's ``euler``)."""
    if tau.shape[0] != n or x.shape[0] != 2 * n:  # the loops below do not check bounds
        raise ValueError("tau must have n values and x 2n")
    a = W[4 * n * n + 7 * n:4 * n * n + 8 * n]
    _fd(x[:n], x[n:], tau, P, n, W, a)
    for i in range(n):
        x[i] = x[i] + dt * x[n + i]
        x[n + i] = x[n + i] + dt * a[i]


def _rk4_batch(X, T, P, n, dt, W):
    """RK4 on every row of X (N, 2n) in place, torques T (N, n)."""
    for j in range(X.shape[0]):
        _rk4(X[j], P, n, dt, W, T[j])


if numba is not None:  # compiled once per machine (numba's on-disk cache); the plain functions above otherwise
    _solve = numba.njit(cache=True)(_solve)
    _fd = numba.njit(cache=True)(_fd)
    _rk4 = numba.njit(cache=True)(_rk4)
    _semi_implicit_euler = numba.njit(cache=True)(_semi_implicit_euler)
    _euler = numba.njit(cache=True)(_euler)
    _rk4_batch = numba.njit(cache=True)(_rk4_batch)

STEPS: dict[str, Callable] = {"rk4": _rk4, "semi-implicit-euler": _semi_implicit_euler, "euler": _euler}
