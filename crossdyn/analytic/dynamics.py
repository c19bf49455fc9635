"""The analytic model's public functions: M, C, Cq̇, G, friction, inverse and forward dynamics.

Each takes the arm (an :class:`~crossdyn.models.spec.ArmSpec` or
:class:`~crossdyn.models.spec.ArmParams`) and states of shape (n,) or (N, n).

``method`` chooses the derivation:

* ``"closed"`` — hand-written closed form (2R, 3R only; :mod:`.closed_form`);
* ``"symbolic"`` — SymPy Euler–Lagrange for any n (:mod:`.symbolic`);
* ``"rnea"`` — recursive Newton–Euler (:mod:`.rnea`; M by CRBA columns, no C matrix);
* ``"auto"`` (default) — closed form for 2R/3R, symbolic up to 8 links, RNEA beyond.

Equation (conventions in :mod:`crossdyn.conventions`):

    τ = M(q) q̈ + C(q, q̇) q̇ + G(q) + F(q̇),     F(q̇) = b ⊙ q̇ + f_c ⊙ sign(q̇)

with the rotor armature (``ArmParams.Ia``) on the diagonal of M in every derivation.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from crossdyn.analytic import closed_form, rnea as _rnea
from crossdyn.models.spec import ArmParams, ArmSpec

SYMBOLIC_MAX_N = 8


def _symbolic():
    """:mod:`crossdyn.analytic.symbolic`, imported when first used: it imports SymPy (~0.2-0.3 s), which the
    closed form (2R/3R) and Newton–Euler never need."""
    from crossdyn.analytic import symbolic

    return symbolic


METHODS = ("auto", "closed", "symbolic", "rnea")
CHUNK = 8192
"""Large batches are evaluated in chunks of this many states, so temporaries stay in cache (~1.7× faster)."""


def _chunked(fn):
    """Evaluate ``fn(p, *arrays, method)`` on (N, n) batches in chunks of :data:`CHUNK` states."""
    import functools

    @functools.wraps(fn)
    def wrapper(arm, *arrays, method: str = "auto"):
        if arrays and isinstance(arrays[-1], str):  # method given positionally
            arrays, method = arrays[:-1], arrays[-1]
        p = as_params(arm)
        states = [np.asarray(a, dtype=float) for a in arrays]
        N = states[0].shape[0] if states[0].ndim == 2 else 0
        if N <= CHUNK or any(a.shape[:-1] != (N,) for a in states) or p.L.ndim > 1:
            return fn(p, *states, method=method)
        out = np.empty(states[0].shape)
        for s in range(0, N, CHUNK):
            out[s:s + CHUNK] = fn(p, *(a[s:s + CHUNK] for a in states), method=method)
        return out

    return wrapper


@lru_cache(maxsize=256)
def _spec_params(spec: ArmSpec) -> ArmParams:
    p = spec.params()
    for field in p:  # shared by every later call for this spec: nobody may change it in place
        if field is not None:
            field.setflags(write=False)
    return p


def as_params(arm: ArmSpec | ArmParams) -> ArmParams:
    """ArmParams of an arm (cached per spec).

    For an :class:`ArmSpec` the result is shared by every later call for that spec, so its arrays are read-only
    (assigning into them raises ``ValueError``); copy a field (``p.L.copy()``) or build new parameters
    (``p._replace(L=...)``, :func:`~crossdyn.models.spec.params_from_arrays`) to change them.  An
    :class:`ArmParams` passed in is returned as it is.
    """
    if isinstance(arm, ArmSpec):
        return _spec_params(arm)
    if isinstance(arm, ArmParams):
        return arm
    raise TypeError(f"expected an ArmSpec or ArmParams, got {type(arm).__name__}")


def _resolve(n: int, method: str) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "auto":
        if n in closed_form.CLOSED_FORM:
            return "closed"
        return "symbolic" if n <= SYMBOLIC_MAX_N else "rnea"
    if method == "closed" and n not in closed_form.CLOSED_FORM:
        raise ValueError(f"method 'closed' exists for 2R and 3R only, not {n}R; use 'symbolic' or 'rnea'")
    return method


def mass_matrix(arm, q, method: str = "auto") -> np.ndarray:
    """M(q), symmetric positive definite: shape (..., n, n)."""
    p = as_params(arm)
    how = _resolve(p.n, method)
    if how == "closed":
        return closed_form.CLOSED_FORM[p.n][0](p, q)
    if how == "symbolic":
        return _symbolic().mass_matrix(p, q)
    return _rnea.crba(p, q)


def coriolis_matrix(arm, q, qd, method: str = "auto") -> np.ndarray:
    """C(q, q̇), the Christoffel-symbol matrix (Ṁ − 2C skew-symmetric): shape (..., n, n)."""
    p = as_params(arm)
    how = _resolve(p.n, method)
    if how == "closed":
        return closed_form.CLOSED_FORM[p.n][1](p, q, qd)
    if how == "rnea" and p.n > SYMBOLIC_MAX_N:
        raise ValueError(f"the C matrix is derived symbolically, up to {SYMBOLIC_MAX_N} links; "
                         f"this arm has {p.n} (C q̇ is available: coriolis())")
    return _symbolic().coriolis_matrix(p, q, qd)


def gravity(arm, q, method: str = "auto") -> np.ndarray:
    """G(q) = ∂U/∂q: shape (..., n)."""
    p = as_params(arm)
    how = _resolve(p.n, method)
    if how == "closed":
        return closed_form.CLOSED_FORM[p.n][2](p, q)
    if how == "symbolic":
        return _symbolic().gravity(p, q)
    q = np.asarray(q, float)
    z = np.zeros_like(q)
    return _rnea.rnea(p, q, z, z)


def coriolis(arm, q, qd, method: str = "auto") -> np.ndarray:
    """C(q, q̇) q̇, the Coriolis and centrifugal torques: shape (..., n)."""
    p = as_params(arm)
    how = _resolve(p.n, method)
    if how == "rnea":
        q = np.asarray(q, float)
        zero_g = p._replace(gravity=np.zeros_like(p.gravity))
        return _rnea.rnea(zero_g, q, qd, np.zeros_like(q))
    if how == "closed":
        return closed_form.CORIOLIS[p.n](p, np.asarray(q, float), np.asarray(qd, float))
    return np.einsum("...ij,...j->...i", coriolis_matrix(p, q, qd, how), np.asarray(qd, float))


def friction(arm, qd) -> np.ndarray:
    """F(q̇) = b ⊙ q̇ + f_c ⊙ sign(q̇): joint viscous damping and Coulomb friction."""
    p = as_params(arm)
    qd = np.asarray(qd, float)
    return p.b * qd + p.fc * np.sign(qd)


def bias(arm, q, qd, method: str = "auto") -> np.ndarray:
    """h(q, q̇) = C q̇ + G + F: the torque needed for zero acceleration."""
    p = as_params(arm)
    if _resolve(p.n, method) == "rnea":
        q = np.asarray(q, float)
        return _rnea.rnea(p, q, qd, np.zeros_like(q)) + friction(p, qd)
    return coriolis(p, q, qd, method) + gravity(p, q, method) + friction(p, qd)


@_chunked
def inverse_dynamics(arm, q, qd, qdd, method: str = "auto") -> np.ndarray:
    """τ = M q̈ + C q̇ + G + F: shape (..., n)."""
    p = as_params(arm)
    how = _resolve(p.n, method)
    if how == "rnea":
        return _rnea.rnea(p, q, qd, qdd) + friction(p, qd)
    if how == "closed":
        q, qd, qdd = (np.asarray(a, float) for a in (q, qd, qdd))
        return closed_form.inverse_dynamics_closed(p, q, qd, qdd) + friction(p, qd)
    M = mass_matrix(p, q, method)
    return np.einsum("...ij,...j->...i", M, np.asarray(qdd, float)) + bias(p, q, qd, method)


@_chunked
def forward_dynamics(arm, q, qd, tau, method: str = "auto") -> np.ndarray:
    """q̈ = M⁻¹ (τ − C q̇ − G − F): shape (..., n)."""
    p = as_params(arm)
    rhs = np.asarray(tau, float) - bias(p, q, qd, method)
    if _resolve(p.n, method) == "closed":
        q = np.asarray(q, float)
        shape = np.broadcast_shapes(q.shape, rhs.shape, p.L.shape)
        return closed_form.solve_closed(p, np.broadcast_to(q, shape), np.broadcast_to(rhs, shape))
    M = mass_matrix(p, q, method)
    rhs = np.broadcast_to(rhs, M.shape[:-1])
    return np.linalg.solve(M, rhs[..., None])[..., 0]


def regressor(arm, q, qd, qdd, armature: bool = False) -> np.ndarray:
    """Y(q, q̇, q̈) with τ_rigid = Y θ (see :func:`crossdyn.analytic.rnea.regressor`; ``armature=True``
    appends one column per joint for the rotor armature)."""
    return _rnea.regressor(as_params(arm), q, qd, qdd, armature)


def parameter_vector(arm, armature: bool = False) -> np.ndarray:
    """θ = (m1, m1 Lc1, J1 + m1 Lc1², …), the regressor's parameters (then I_a1, …, I_an with ``armature``)."""
    return _rnea.parameter_vector(as_params(arm), armature)
