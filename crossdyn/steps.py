"""One fixed step of the three explicit integrators, for any forward dynamics ``fd(q, q̇, τ) → q̈``.

NumPy only (no SciPy, no model), so that the sandboxed worker that steps a user's equations
(:mod:`crossdyn.equations.python_worker`) and the analytic model (:mod:`crossdyn.analytic.integrators`) run the
same operations in the same order.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

ForwardDynamics = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def euler_step(fd: ForwardDynamics, q, qd, tau, dt):
    """Explicit Euler: q⁺ = q + h q̇, q̇⁺ = q̇ + h q̈(q, q̇, τ)."""
    a = fd(q, qd, tau)
    return q + dt * qd, qd + dt * a


def semi_implicit_euler_step(fd: ForwardDynamics, q, qd, tau, dt):
    """Semi-implicit (symplectic) Euler: q̇⁺ = q̇ + h q̈(q, q̇, τ), q⁺ = q + h q̇⁺."""
    qd_new = qd + dt * fd(q, qd, tau)
    return q + dt * qd_new, qd_new


def rk4_step(fd: ForwardDynamics, q, qd, tau, dt):
    """Classical fourth-order Runge–Kutta on x = (q, q̇), ẋ = (q̇, q̈), τ held over the step:
    x⁺ = x + h/6 (k1 + 2 k2 + 2 k3 + k4)."""
    k1q, k1v = qd, fd(q, qd, tau)
    k2q = qd + 0.5 * dt * k1v
    k2v = fd(q + 0.5 * dt * k1q, k2q, tau)
    k3q = qd + 0.5 * dt * k2v
    k3v = fd(q + 0.5 * dt * k2q, k3q, tau)
    k4q = qd + dt * k3v
    k4v = fd(q + dt * k3q, k4q, tau)
    return (q + dt / 6.0 * (k1q + 2 * k2q + 2 * k3q + k4q),
            qd + dt / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v))
