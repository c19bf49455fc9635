"""The spatial reference's fast path: :func:`rnea`, :func:`crba`, :func:`aba` (and :func:`gravity_torque`,
:func:`bias`) with the signatures of :mod:`crossdyn.spatial`, on the compiled kernels of
:mod:`crossdyn.spatial.kernels` where they apply, else on the NumPy path.

The kernels apply to float64 states when numba is installed (:data:`AVAILABLE`); everything else — no numba
(``CROSSDYN_NUMBA=0``), complex or other non-float64 inputs (complex-step derivatives), another gravity — goes to
the dtype-generic NumPy functions of :mod:`crossdyn.spatial.rnea`, :mod:`~crossdyn.spatial.crba` and
:mod:`~crossdyn.spatial.aba`, which are the definition: the two agree to rounding (≤ 1e-13 relative,
``tests/test_spatial_kernels.py``).  Used where the reference runs many times (the robot-file comparison's DOP853
reference, its static groups, audit's reference).
"""
from __future__ import annotations

import numpy as np

from crossdyn.robots.model import RobotModel
from crossdyn.spatial import kernels
from crossdyn.spatial.aba import aba as numpy_aba
from crossdyn.spatial.crba import crba as numpy_crba
from crossdyn.spatial.rnea import rnea as numpy_rnea
from crossdyn.spatial.compiled import compile_model

AVAILABLE = kernels.AVAILABLE
_F8 = np.dtype(np.float64)


def _floats(model: RobotModel, *arrays) -> list[np.ndarray] | None:
    """The arrays as float64 ndarrays of one shape (n,) or (N, n) that fits the model, or None (then the NumPy
    path takes them, and raises where they do not fit)."""
    if not AVAILABLE:
        return None
    out = [a if isinstance(a, np.ndarray) else np.asarray(a) for a in arrays]
    shape = out[0].shape
    if any(a.dtype != _F8 or a.shape != shape for a in out) or len(shape) not in (1, 2) or shape[-1] != model.n:
        return None
    return out


def rnea(model: RobotModel, Q, QD, QDD, armature: bool = True, gravity=None) -> np.ndarray:
    """:func:`crossdyn.spatial.rnea.rnea`: τ = M q̈ + C q̇ + G (+ diag(I_a) q̈), (N, n) or (n,)."""
    arrays = _floats(model, Q, QD, QDD)
    if arrays is None:
        return numpy_rnea(model, Q, QD, QDD, armature, gravity)
    c = compile_model(model)
    g = c.gravity if gravity is None else np.asarray(gravity, dtype=float).reshape(3)
    q, qd, qdd = arrays
    out = np.empty(q.shape)
    if q.ndim == 1:
        kernels.rnea_one(c.flat, g, q, qd, qdd, armature, out)
    else:
        kernels.rnea_batch(c.flat, g, q, qd, qdd, armature, out)
    return out


def gravity_torque(model: RobotModel, Q) -> np.ndarray:
    """G(q) = RNEA(q, 0, 0): (N, n), or (n,) for one state."""
    Q = np.asarray(Q)
    return rnea(model, Q, np.zeros_like(Q), np.zeros_like(Q), armature=False)


def bias(model: RobotModel, Q, QD) -> np.ndarray:
    """C(q, q̇) q̇ + G(q) = RNEA(q, q̇, 0): (N, n), or (n,) for one state."""
    Q = np.asarray(Q)
    return rnea(model, Q, QD, np.zeros_like(Q), armature=False)


def crba(model: RobotModel, Q, armature: bool = True) -> np.ndarray:
    """:func:`crossdyn.spatial.crba.crba`: M(q) (+ diag(I_a)), (N, n, n) or (n, n)."""
    arrays = _floats(model, Q)
    if arrays is None:
        return numpy_crba(model, Q, armature)
    (q,) = arrays
    c = compile_model(model)
    out = np.zeros(q.shape + (model.n,))  # entries of two bodies on different branches stay 0
    if q.ndim == 1:
        kernels.crba_one(c.flat, q, armature, out)
    else:
        kernels.crba_batch(c.flat, q, armature, out)
    return out


def aba(model: RobotModel, Q, QD, TAU, armature: bool = True) -> np.ndarray:
    """:func:`crossdyn.spatial.aba.aba`: q̈ = (M + diag(I_a))⁻¹ (τ − C q̇ − G), (N, n) or (n,)."""
    arrays = _floats(model, Q, QD, TAU)
    if arrays is None:
        return numpy_aba(model, Q, QD, TAU, armature)
    c = compile_model(model)
    q, qd, tau = arrays
    out = np.empty(q.shape)
    if q.ndim == 1:
        kernels.aba_one(c.flat, c.gravity, q, qd, tau, armature, out)
    else:
        kernels.aba_batch(c.flat, c.gravity, q, qd, tau, armature, out)
    return out
