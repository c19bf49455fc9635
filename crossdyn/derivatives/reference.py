"""Reference derivatives of any :class:`~crossdyn.robots.model.RobotModel` by complex-step differentiation of
crossdyn's dtype-generic spatial reference (:mod:`crossdyn.spatial`: RNEA, ABA in NumPy).

For a real-analytic f evaluated in complex arithmetic,

    f(x + i h e_j) = f(x) + i h ∂f/∂x_j − h²/2 ∂²f/∂x_j² − i h³/6 ∂³f/∂x_j³ + …,   so   ∂f/∂x_j = Im f(x + i h e_j) / h + O(h²)

with no subtraction, hence no cancellation: with h = 1e-30 the O(h²) term is ~1e-60 relative and the derivative is
exact to the round-off of evaluating f itself (Squire & Trapp 1998; Martins, Sturdza & Alonso 2003).  The spatial
reference's NumPy path keeps the complex dtype throughout (:func:`crossdyn.spatial.kinematics.as_states`; sin, cos,
products and sums only: no abs, comparison or float cast on the differentiated values — the compiled float64
kernels of :mod:`crossdyn.spatial.kernels` are not used: ``aba`` routes complex states to the batched NumPy path).

The dynamics differentiated are the arm's rigid bodies, its armature and its viscous joint damping b (``Joint.damping``):

    ID(q, q̇, q̈) = RNEA(q, q̇, q̈) + b ⊙ q̇,          FD(q, q̇, τ) = ABA(q, q̇, τ − b ⊙ q̇).

Coulomb friction f_c sign(q̇) (``Joint.friction``) is excluded: it is not differentiable at q̇ = 0 (and sign is a
comparison, which the complex step cannot carry); the engines compared here exclude it too (Pinocchio's algorithms
ignore it, MuJoCo's ``frictionloss`` is a constraint, off).  Joint limits and contact laws are not part of these
dynamics either.  All N states and n directions go through one batched call of N·n complex states.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from crossdyn.derivatives.blocks import Derivatives
from crossdyn.robots.model import RobotModel
from crossdyn.spatial.aba import aba
from crossdyn.spatial.rnea import rnea

H = 1e-30
"""The complex step h: the O(h²) truncation is far below float64 round-off, and h·|x| stays a normal number."""


def damping(model: RobotModel) -> np.ndarray:
    """b (n,), the joints' viscous damping in N m s/rad (N s/m for a prismatic joint)."""
    return np.array([j.damping for j in model.joints], dtype=float)


def forward(model: RobotModel) -> Callable[..., np.ndarray]:
    """FD(q, q̇, τ) = ABA(q, q̇, τ − b ⊙ q̇), batched (N, n), in the inputs' dtype (complex allowed)."""
    b = damping(model)
    return lambda Q, QD, TAU: aba(model, Q, QD, TAU - b * QD)


def inverse(model: RobotModel) -> Callable[..., np.ndarray]:
    """ID(q, q̇, q̈) = RNEA(q, q̇, q̈) + b ⊙ q̇, batched (N, n), in the inputs' dtype (complex allowed)."""
    b = damping(model)
    return lambda Q, QD, QDD: rnea(model, Q, QD, QDD) + b * QD


def complex_jacobian(f: Callable[..., np.ndarray], args: tuple[np.ndarray, ...], which: int,
                     h: float = H) -> np.ndarray:
    """∂f/∂args[which] at N states, (N, m, n), by the complex step: every state repeated n times (row k·n + j
    perturbed by i h along e_j), one call of f on the N·n complex rows, column j = Im f / h."""
    X = np.asarray(args[which], dtype=float)
    N, n = X.shape
    rep = [np.repeat(np.asarray(a, dtype=complex), n, axis=0) for a in args]
    rep[which] = (rep[which].reshape(N, n, n) + 1j * h * np.eye(n)).reshape(N * n, n)
    out = f(*rep)
    return np.swapaxes(out.imag.reshape(N, n, -1) / h, 1, 2)


def _batch(*arrays) -> tuple[np.ndarray, ...]:
    out = tuple(np.atleast_2d(np.asarray(a, dtype=float)) for a in arrays)
    if len({a.shape for a in out}) != 1:
        raise ValueError(f"states of different shapes: {[a.shape for a in out]}")
    return out


def complex_step(model: RobotModel, Q, QD, TAU) -> Derivatives:
    """The six blocks at the states (N, n) or one (n,) state (then N = 1), by the complex step (module docstring):
    the forward-dynamics blocks at (q, q̇, τ), the inverse-dynamics blocks at (q, q̇, q̈ = FD(q, q̇, τ))."""
    Q, QD, TAU = _batch(Q, QD, TAU)
    fd, inv = forward(model), inverse(model)
    QDD = np.asarray(fd(Q, QD, TAU), dtype=float).reshape(Q.shape)
    f_args, i_args = (Q, QD, TAU), (Q, QD, QDD)
    return Derivatives(
        "complex step of crossdyn.spatial (RNEA, ABA)", Q, QD, TAU, QDD,
        *(complex_jacobian(fd, f_args, k) for k in range(3)),
        *(complex_jacobian(inv, i_args, k) for k in range(3)))
