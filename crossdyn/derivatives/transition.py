"""Exact transition Jacobians of one step of the integrators crossdyn replicates (:mod:`crossdyn.steps`).

x = (q, q̇), u = τ held over the step, a(q, q̇, τ) the forward dynamics with blocks a_q, a_q̇, a_τ
(:class:`~crossdyn.derivatives.blocks.Derivatives`).  Two independent paths:

* :func:`chain_rule` — the step's own recursion differentiated stage by stage.  Every stage state (q_s, q̇_s) carries
  its Jacobian P_s = ∂(q_s, q̇_s)/∂(x_k, u_k) (2n × 3n); a stage's slope k_s = (q̇_s, a(q_s, q̇_s, τ)) has
  ∂k_s = (∂q̇_s, a_q ∂q_s + a_q̇ ∂q̇_s + a_τ E) with E = ∂τ/∂(x, u) = [0 0 1]:

      explicit Euler:        x⁺ = x + h k(x)                                  A = [[1, h], [h a_q, 1 + h a_q̇]]
      semi-implicit Euler:   q̇⁺ = q̇ + h a(x),  q⁺ = q + h q̇⁺                A = [[1 + h² a_q, h (1 + h a_q̇)],
                                                                                     [h a_q, 1 + h a_q̇]]
      RK4:                   x⁺ = x + h/6 (k1 + 2 k2 + 2 k3 + k4),  the stages of :func:`crossdyn.steps.rk4_step`

  exact to the round-off of the derivative blocks at each stage state.
* :func:`complex_step` — the complex step (:mod:`crossdyn.derivatives.reference`) through the step function of
  :mod:`crossdyn.steps` itself, on a complex-capable forward dynamics: exact to round-off, sharing with the chain rule
  only the forward dynamics' values.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from crossdyn.derivatives.blocks import Derivatives, Transition
from crossdyn.derivatives.reference import H
from crossdyn.steps import euler_step, rk4_step, semi_implicit_euler_step

STEP_FUNCTIONS = {"euler": euler_step, "semi-implicit-euler": semi_implicit_euler_step, "rk4": rk4_step}
"""The one-step functions whose Jacobians are exact here (crossdyn's replicas of the engines' integrators)."""

DerivativeFn = Callable[[np.ndarray, np.ndarray, np.ndarray], Derivatives]


def _method(method: str):
    if method not in STEP_FUNCTIONS:
        raise ValueError(f"method: one of {', '.join(STEP_FUNCTIONS)}, got {method!r}")
    return STEP_FUNCTIONS[method]


def _slope(deriv: DerivativeFn, q, v, Pq, Pv, tau, E):
    """(k_q, k_v, ∂k_q, ∂k_v) of a stage at (q, v) whose Jacobians are (Pq, Pv) (N, n, 3n)."""
    d = deriv(q, v, tau)
    return v, d.qdd, Pv, d.dqdd_dq @ Pq + d.dqdd_dqd @ Pv + d.dqdd_dtau @ E


def chain_rule(deriv: DerivativeFn, Q, QD, TAU, dt: float, method: str = "rk4") -> Transition:
    """A, B of one step by the chain rule (module docstring); ``deriv(Q, QD, TAU)`` gives the forward-dynamics
    blocks at (N, n) states (:func:`crossdyn.derivatives.reference.complex_step` bound to a model, or the symbolic
    path bound to an arm)."""
    _method(method)
    Q, QD, TAU = (np.atleast_2d(np.asarray(a, dtype=float)) for a in (Q, QD, TAU))
    N, n = Q.shape
    eye = np.eye(3 * n)
    Pq0, Pv0 = np.broadcast_to(eye[:n], (N, n, 3 * n)), np.broadcast_to(eye[n:2 * n], (N, n, 3 * n))
    E = eye[2 * n:]
    h = dt
    if method == "rk4":
        stages, state = [], (Q, QD, Pq0, Pv0)
        for c in (0.5, 0.5, 1.0, None):
            k = _slope(deriv, *state, TAU, E)
            stages.append(k)
            if c is not None:
                state = tuple(x0 + c * h * kx for x0, kx in zip((Q, QD, Pq0, Pv0), k))  # type: ignore[assignment]
        wsum = [stages[0][i] + 2 * stages[1][i] + 2 * stages[2][i] + stages[3][i] for i in range(4)]
        Pq, Pv = Pq0 + h / 6.0 * wsum[2], Pv0 + h / 6.0 * wsum[3]
    else:
        _, _, dkq, dkv = _slope(deriv, Q, QD, Pq0, Pv0, TAU, E)
        Pv = Pv0 + h * dkv
        Pq = Pq0 + h * (Pv if method == "semi-implicit-euler" else dkq)
    J = np.concatenate((Pq, Pv), axis=1)
    return Transition(f"chain rule ({method}) on {getattr(deriv, '__name__', 'the blocks')}", method, float(dt), Q, QD, TAU,
                      J[:, :, :2 * n], J[:, :, 2 * n:])


def complex_step(fd: Callable[..., np.ndarray], Q, QD, TAU, dt: float, method: str = "rk4",
                 h: float = H) -> Transition:
    """A, B of one step by the complex step through :data:`STEP_FUNCTIONS`[method] with the forward dynamics
    ``fd(Q, QD, TAU)`` (batched, complex-capable: :func:`crossdyn.derivatives.reference.forward`).  The 3n inputs
    (q, q̇, τ) of every state are perturbed in one batch of N·3n complex rows."""
    step = _method(method)
    Q, QD, TAU = (np.atleast_2d(np.asarray(a, dtype=float)) for a in (Q, QD, TAU))
    N, n = Q.shape
    X = np.repeat(np.concatenate((Q, QD, TAU), axis=1).astype(complex), 3 * n, axis=0)
    X = (X.reshape(N, 3 * n, 3 * n) + 1j * h * np.eye(3 * n)).reshape(N * 3 * n, 3 * n)
    qn, vn = step(fd, X[:, :n], X[:, n:2 * n], X[:, 2 * n:], dt)
    J = np.swapaxes((np.concatenate((qn, vn), axis=1).imag / h).reshape(N, 3 * n, 2 * n), 1, 2)
    return Transition(f"complex step through crossdyn.steps ({method})", method, float(dt), Q, QD, TAU,
                      J[:, :, :2 * n], J[:, :, 2 * n:])
