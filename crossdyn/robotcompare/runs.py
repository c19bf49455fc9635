"""The runs of a robot-file comparison: crossdyn's reference (its spatial ABA integrated by DOP853, restarted at
every hold interval, as the planar arms' analytic reference), the same model stepped by an engine's own scheme, and
an engine stepped under the torque sequence.

Every run is a :class:`crossdyn.analytic.integrators.Trajectory` (``t``, ``q``, ``qd``, ``tau``, ``status``,
``message``) so that the planar judging functions read it unchanged.

The reference's dynamics are the file's: M(q) q̈ + C(q, q̇) q̇ + G(q) = τ − b q̇, with M including the file's
armature (``aba(..., armature=True)``) and b its viscous joint damping.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from crossdyn.analytic.integrators import Trajectory, reference_step
from crossdyn.robots.model import RobotModel
from crossdyn.robotcompare.motion import damping
from crossdyn.steps import euler_step, rk4_step, semi_implicit_euler_step

REFERENCE_RTOL = 1e-12
REFERENCE_ATOL = 1e-12

SCHEME_STEPS = {"rk4": rk4_step, "semi-implicit-euler": semi_implicit_euler_step, "euler": euler_step}
"""The fixed-step schemes crossdyn can share with an engine (the engine's ``integrator``)."""


ROWS_ONE_BY_ONE = 8
"""Batches of at most this many states go through the single-state ABA row by row (its 6×6 form costs less per
state than the batched code's per-call overhead at small N; :mod:`crossdyn.spatial.compiled`)."""


def forward_dynamics(model: RobotModel) -> Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """q̈ = ABA_ref(q, q̇, τ − b q̇) with the file's armature: one state (n,), or rows (N, n).  With numba, the
    compiled ABA (:mod:`crossdyn.spatial.fast`, one kernel call for any N); without it the NumPy path, each row by
    the single-state ABA when N ≤ :data:`ROWS_ONE_BY_ONE` (the same arithmetic for every row)."""
    from crossdyn.spatial import aba, fast

    b = damping(model)
    if fast.AVAILABLE:
        def compiled(q, qd, tau):
            q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
            return fast.aba(model, q, qd, np.asarray(tau, dtype=float) - b * qd, armature=True)

        return compiled

    def fd(q, qd, tau):
        if q.ndim == 2 and len(q) <= ROWS_ONE_BY_ONE:
            return np.array([aba(model, q[k], qd[k], tau[k] - b * qd[k], armature=True) for k in range(len(q))],
                            dtype=float).reshape(q.shape)
        return np.asarray(aba(model, q, qd, tau - b * qd, armature=True), float).reshape(q.shape)

    return fd


def _trajectory(t, Q, QD, taus, method: str, dt: float, status: str = "ok", message: str = "") -> Trajectory:
    k = len(Q)
    return Trajectory(np.asarray(t[:k]), np.asarray(Q), np.asarray(QD), np.asarray(taus[: max(k - 1, 0)]), method, dt,
                      status, float(t[k - 1]) if status != "ok" and k else None, message)


def integrate(model: RobotModel, scheme: str, taus: np.ndarray, q0, qd0, dt: float) -> Trajectory:
    """crossdyn's model from (q0, q̇0) under ``taus`` (one per step, held): ``scheme`` is ``"reference"`` (DOP853,
    rtol = atol = 1e-12, restarted each step) or one of :data:`SCHEME_STEPS` at dt."""
    fd = forward_dynamics(model)
    steps = len(taus)
    t = np.arange(steps + 1) * dt
    Q, QD = [np.asarray(q0, float)], [np.asarray(qd0, float)]
    for k in range(steps):
        try:
            if scheme == "reference":
                q, qd = reference_step(fd, Q[-1], QD[-1], taus[k], dt, rtol=REFERENCE_RTOL, atol=REFERENCE_ATOL)
            else:
                q, qd = SCHEME_STEPS[scheme](fd, Q[-1], QD[-1], taus[k], dt)
        except FloatingPointError as e:
            return _trajectory(t, Q, QD, taus, scheme, dt, "failed", str(e))
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
            return _trajectory(t, Q, QD, taus, scheme, dt, "diverged", "non-finite state")
        Q.append(q)
        QD.append(qd)
    return _trajectory(t, Q, QD, taus, scheme, dt)


Law = Callable[[int, np.ndarray, np.ndarray], np.ndarray]
"""A feedback law τ_k = law(k, q_k, q̇_k) on a run's own state at the start of hold interval k."""


def integrate_batch(model: RobotModel, scheme: str, taus: np.ndarray, Q0: np.ndarray, QD0: np.ndarray,
                    dt: float, law: Law | None = None) -> list[Trajectory]:
    """:func:`integrate` with a fixed-step ``scheme`` from several starts at once (rows of ``Q0``, ``QD0``): the
    same arithmetic per row (:func:`forward_dynamics`: row by row for a few starts, else batched).  ``law``: each
    row's τ_k = law(k, q_k, q̇_k) on its own state instead of ``taus[k]`` (which then only sets the step count)."""
    fd = forward_dynamics(model)
    steps = len(taus)
    t = np.arange(steps + 1) * dt
    Q, QD = [np.asarray(Q0, float)], [np.asarray(QD0, float)]
    applied = []
    for k in range(steps):
        tau = (np.broadcast_to(taus[k], Q[-1].shape) if law is None else
               np.stack([law(k, Q[-1][r], QD[-1][r]) for r in range(len(Q[-1]))]))
        applied.append(tau)
        q, qd = SCHEME_STEPS[scheme](fd, Q[-1], QD[-1], tau, dt)
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
            break
        Q.append(q)
        QD.append(qd)
    QA, QDA = np.stack(Q), np.stack(QD)
    TA = np.stack(applied) if applied else np.zeros((0,) + QA.shape[1:])
    done = len(Q) == steps + 1
    return [_trajectory(t, QA[:, r], QDA[:, r], TA[:, r], scheme, dt, "ok" if done else "diverged",
                        "" if done else "non-finite state") for r in range(QA.shape[1])]


def step_engine(engine, taus: np.ndarray, q0, qd0, dt: float, substeps: int = 1, law: Law | None = None) -> Trajectory:
    """Step a file engine from (q0, q̇0) at its own dt = ``dt``/``substeps``, τ_k held over the ``substeps`` steps
    of interval k, every step recorded (a dt/2 rerun: ``substeps=2``, sampled at dt/2 as the planar judging reads
    it).  ``law``: τ_k = law(k, q, q̇) on the engine's own state at the start of interval k (held likewise, as the
    planar closed-loop profiles are) instead of ``taus[k]``.  The engine's own code raises through (the caller
    contains it)."""
    engine.reset(np.asarray(q0, float), np.asarray(qd0, float))
    h = dt / substeps
    t = np.arange(len(taus) * substeps + 1) * h
    Q, QD = [np.asarray(q0, float)], [np.asarray(qd0, float)]
    held: list[np.ndarray] = []
    for k in range(len(taus) * substeps):
        if k % substeps == 0:
            tau = np.asarray(taus[k // substeps] if law is None else law(k // substeps, Q[-1], QD[-1]), float)
        held.append(tau)
        engine.step(tau)
        q, qd = (np.asarray(x, float) for x in engine.state())
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
            return _trajectory(t, Q, QD, np.array(held), str(engine.integrator), h, "diverged",
                               f"non-finite state at t = {t[k + 1]:g} s")
        Q.append(q)
        QD.append(qd)
    return _trajectory(t, Q, QD, np.array(held), str(engine.integrator), h)


def integrate_held(model: RobotModel, scheme: str, law: Law, steps: int, q0, qd0, dt: float,
                   substeps: int = 1) -> Trajectory:
    """crossdyn's model stepped by the fixed-step ``scheme`` at dt/``substeps`` under the feedback ``law``, τ_k =
    law(k, q, q̇) on its own state at the start of interval k and held over its ``substeps`` steps (the engines'
    dt/2 reruns, :func:`step_engine`), every step recorded.  Stops at a non-finite state ("diverged")."""
    fd = forward_dynamics(model)
    h = dt / substeps
    t = np.arange(steps * substeps + 1) * h
    Q, QD = [np.asarray(q0, float)], [np.asarray(qd0, float)]
    held: list[np.ndarray] = []
    for k in range(steps * substeps):
        if k % substeps == 0:
            tau = np.asarray(law(k // substeps, Q[-1], QD[-1]), float)
        held.append(tau)
        q, qd = SCHEME_STEPS[scheme](fd, Q[-1], QD[-1], tau, h)
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
            return _trajectory(t, Q, QD, np.array(held), scheme, h, "diverged", f"non-finite state at t = {t[k + 1]:g} s")
        Q.append(q)
        QD.append(qd)
    return _trajectory(t, Q, QD, np.array(held), scheme, h)


def kinetic_potential(model: RobotModel, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
    """E = ½ q̇ᵀ M(q) q̇ + U(q) at every sample (J), M with the file's armature (its rotors' kinetic energy) and U
    from crossdyn's ``energy`` (gravity in the world frame)."""
    from crossdyn.spatial import energy
    from crossdyn.spatial.fast import crba

    Q, QD = np.atleast_2d(Q), np.atleast_2d(QD)
    if not len(Q):
        return np.zeros(0)
    M = np.asarray(crba(model, Q, armature=True))
    T = 0.5 * np.einsum("ki,kij,kj->k", QD, M, QD)
    _, U = energy(model, Q, QD)
    return T + np.asarray(U, float).reshape(len(Q))


def tip_positions(model: RobotModel, Q: np.ndarray) -> np.ndarray:
    """(N, 3): the world position of the last body's frame origin (the end effector) at each q."""
    from crossdyn.spatial import body_poses

    X = np.asarray(body_poses(model, np.atleast_2d(Q)))
    return X[:, -1, :3, 3]


def track(model: RobotModel, law: Law, steps: int, q0, qd0, dt: float) -> tuple[Trajectory, np.ndarray]:
    """The reference (as :func:`integrate`'s ``"reference"``) under a feedback ``law`` on its own state: τ_k =
    law(k, q_k, q̇_k), held over [t_k, t_k + dt).  Returns the run and the torques applied (steps, n)
    (:mod:`crossdyn.robotcompare.motion`)."""
    fd = forward_dynamics(model)
    t = np.arange(steps + 1) * dt
    Q, QD = [np.asarray(q0, float)], [np.asarray(qd0, float)]
    taus: list[np.ndarray] = []
    for k in range(steps):
        taus.append(np.asarray(law(k, Q[-1], QD[-1]), float))
        try:
            q, qd = reference_step(fd, Q[-1], QD[-1], taus[-1], dt, rtol=REFERENCE_RTOL, atol=REFERENCE_ATOL)
        except FloatingPointError as e:
            return _trajectory(t, Q, QD, np.array(taus), "reference", dt, "failed", str(e)), np.array(taus)
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
            return (_trajectory(t, Q, QD, np.array(taus), "reference", dt, "diverged", "non-finite state"),
                    np.array(taus))
        Q.append(q)
        QD.append(qd)
    return _trajectory(t, Q, QD, np.array(taus), "reference", dt), np.array(taus)
