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


def _fits(a) -> bool:
    """Whether ``a`` is a float64 ndarray of shape (n,) or (N, n) (n checked by the caller against the model): a
    kernel's input.  Anything else (lists, complex, other shapes) goes to the NumPy path, which converts it or
    raises naming the misfit.  ``dtype is`` float64: an unusual float64 dtype object (byte-swapped) takes the
    NumPy path too, which is only slower."""
    return AVAILABLE and type(a) is np.ndarray and a.dtype is _F8 and 1 <= a.ndim <= 2


def _fit3(a, b, c) -> bool:
    """:func:`_fits` for three arrays of one shape."""
    return (_fits(a) and type(b) is np.ndarray and type(c) is np.ndarray and b.dtype is _F8 and c.dtype is _F8
            and a.shape == b.shape == c.shape)


def rnea(model: RobotModel, Q, QD, QDD, armature: bool = True, gravity=None) -> np.ndarray:
    """:func:`crossdyn.spatial.rnea.rnea`: τ = M q̈ + C q̇ + G (+ diag(I_a) q̈), (N, n) or (n,)."""
    if _fit3(Q, QD, QDD):
        c = compile_model(model)
        if Q.shape[-1] == len(c.flat):
            g = c.gravity if gravity is None else np.asarray(gravity, dtype=float).reshape(3)
            out = np.empty(Q.shape)
            (kernels.rnea_one if Q.ndim == 1 else kernels.rnea_batch)(c.flat, g, Q, QD, QDD, armature, out)
            return out
    return numpy_rnea(model, Q, QD, QDD, armature, gravity)


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
    if _fits(Q):
        c = compile_model(model)
        n = len(c.flat)
        if Q.shape[-1] == n:
            out = np.zeros(Q.shape + (n,))  # entries of two bodies on different branches stay 0
            (kernels.crba_one if Q.ndim == 1 else kernels.crba_batch)(c.flat, Q, armature, out)
            return out
    return numpy_crba(model, Q, armature)


def aba(model: RobotModel, Q, QD, TAU, armature: bool = True) -> np.ndarray:
    """:func:`crossdyn.spatial.aba.aba`: q̈ = (M + diag(I_a))⁻¹ (τ − C q̇ − G), (N, n) or (n,)."""
    if _fit3(Q, QD, TAU):
        c = compile_model(model)
        if Q.shape[-1] == len(c.flat):
            out = np.empty(Q.shape)
            (kernels.aba_one if Q.ndim == 1 else kernels.aba_batch)(c.flat, c.gravity, Q, QD, TAU, armature, out)
            return out
    return numpy_aba(model, Q, QD, TAU, armature)
