"""Time integration of M q̈ + C q̇ + G + F = τ with one entry point, :func:`simulate`.

Torque is a **zero-order hold**: ``torque(t_k, q_k, q̇_k)`` is sampled once at the
start of step k and held constant over [t_k, t_k + dt), by every method —
including RK4's four stages and the adaptive reference — exactly as a physics
engine receives it.

Methods (one step from (q, q̇) with held torque τ, a(q, q̇) = forward dynamics):

* ``euler``               — explicit: q ← q + dt q̇,  q̇ ← q̇ + dt a(q, q̇)
* ``semi-implicit-euler`` — symplectic (PyBullet, MuJoCo ``Euler``): q̇ ← q̇ + dt a(q, q̇), q ← q + dt q̇(new)
* ``rk4``                 — classical 4-stage Runge–Kutta on x = (q, q̇)
* ``reference``           — SciPy's adaptive DOP853 (rtol = atol = 1e-12 by default),
  restarted at every hold interval so the torque discontinuities are never stepped across.

States may be batched (shape (N, n)) for the fixed-step methods.  A batch of an :class:`ArmSpec` with the default
forward dynamics steps with the generated model on one array per joint (:func:`crossdyn.analytic.codegen.compile_batch`:
the float model's operations on (N,) arrays, ~2.5× fewer NumPy calls than the (N, n) model; equal to it to 1e-14
relative, tested).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, TypedDict, Unpack

import numpy as np
from scipy.integrate import DOP853

from crossdyn.analytic import codegen
from crossdyn.analytic.dynamics import forward_dynamics
from crossdyn.models.spec import ArmSpec
from crossdyn.steps import ForwardDynamics, euler_step, rk4_step, semi_implicit_euler_step  # noqa: F401  (re-exported)

METHODS = ("euler", "semi-implicit-euler", "rk4", "reference")
ORDERS = {"euler": 1, "semi-implicit-euler": 1, "rk4": 4, "reference": 8}

TorqueFn = Callable[[float, np.ndarray, np.ndarray], np.ndarray]


MAX_REFERENCE_STEPS = 2000
"""Adaptive steps allowed in one hold interval before the reference gives up (see :func:`reference_step`)."""


class StiffnessError(FloatingPointError):
    """The adaptive reference could not get through a hold interval in a bounded number of steps."""


def reference_step(fd: ForwardDynamics, q, qd, tau, dt, rtol: float = 1e-12, atol: float = 1e-12,
                   max_steps: int = MAX_REFERENCE_STEPS):
    """Advance one hold interval with adaptive DOP853 (restarted here, so τ is constant throughout).

    Raises :class:`StiffnessError` after ``max_steps`` steps in one interval: with Coulomb friction
    F = f_c sign(q̇) a joint that should *stick* makes q̇ chatter about 0, which no explicit adaptive
    method gets through — the run is then reported as failed at that time rather than left to grind.
    """
    n = q.shape[-1]

    def rhs(_t, x):
        return np.concatenate([x[n:], fd(x[:n], x[n:], tau)])

    solver = DOP853(rhs, 0.0, np.concatenate([q, qd]), dt, rtol=rtol, atol=atol, first_step=dt)
    steps = 0
    while solver.status == "running":
        solver.step()
        steps += 1
        if steps > max_steps and solver.status == "running":
            raise StiffnessError(f"the adaptive reference (DOP853, rtol = {rtol:g}) needed more than {max_steps} "
                                 f"steps in one {dt:g}-s interval at q = {np.round(q, 6).tolist()}, "
                                 f"qd = {np.round(qd, 6).tolist()}: the motion is too stiff to resolve (a joint "
                                 "sticking under Coulomb friction f_c*sign(qd)?)")
    if solver.status != "finished":
        raise FloatingPointError(f"DOP853 failed: {solver.status}")
    return solver.y[:n].copy(), solver.y[n:].copy()


STEPS = {
    "euler": euler_step,
    "semi-implicit-euler": semi_implicit_euler_step,
    "rk4": rk4_step,
    "reference": reference_step,
}


@dataclass
class Trajectory:
    """Result of :func:`simulate` (cf. SciPy's ``OdeResult``).

    ``t`` has K+1 samples; ``q``/``qd`` the states at those times (shape (K+1, n) or
    (K+1, N, n) when batched); ``tau`` the torque held over each step (K rows).
    ``status`` is ``"ok"`` or ``"diverged"`` (then the arrays stop at the last
    finite state and ``diverged_at`` is the time the state became non-finite).
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    method: str
    dt: float
    status: str = "ok"
    diverged_at: float | None = None
    message: str = ""
    info: dict = field(default_factory=dict)

    @property
    def success(self) -> bool:
        return self.status == "ok"


def zero_torque(t, q, qd):
    return np.zeros_like(q)


def n_steps(duration: float, dt: float) -> int:
    """Number of steps of size dt covering ``duration`` (rounded, not truncated)."""
    k = int(round(duration / dt))
    if k < 1 or abs(k * dt - duration) > 1e-9 * max(1.0, duration):
        raise ValueError(f"duration {duration!r} s is not a whole number of steps of dt = {dt!r} s")
    return k


_GENERATED = {"rk4": "rk4", "semi-implicit-euler": "semi_implicit_euler", "euler": "euler"}


def batched_generated_step(spec: ArmSpec, method: str):
    """``step(fd, q, q̇, τ, dt)`` on (N, n) batches through the generated model of ``spec`` (one (N,) array per joint;
    ``fd`` is ignored: it is the analytic model's)."""
    gen = getattr(codegen.compile_batch(spec), _GENERATED[method])

    def step(_fd, q, qd, tau, dt):
        tau_cols = tuple(np.broadcast_to(tau, q.shape).T)
        qs, vs = gen(tuple(q.T), tuple(qd.T), tau_cols, dt)
        return np.column_stack(qs), np.column_stack(vs)
    return step


@dataclass(frozen=True)
class SimulateOptions:
    """The keywords of :func:`simulate` beyond the step: ``fd(q, q̇, τ)`` overrides the forward dynamics (default:
    the analytic model); a state that becomes non-finite or exceeds ``velocity_bound`` rad/s stops the run; ``rtol``
    and ``atol`` are the tolerances of the ``reference`` method."""

    fd: ForwardDynamics | None = None
    velocity_bound: float = 1e4
    rtol: float = 1e-12
    atol: float = 1e-12


class SimulateKeywords(TypedDict, total=False):
    """The keywords of :func:`simulate`: the fields of :class:`SimulateOptions`."""

    fd: ForwardDynamics | None
    velocity_bound: float
    rtol: float
    atol: float


def simulate(arm, q0, qd0, torque: TorqueFn | None = None, dt: float = 1e-3, duration: float = 1.0,
             method: str = "rk4", **options: Unpack[SimulateKeywords]) -> Trajectory:
    """Integrate the arm from (q0, q̇0) for ``duration`` seconds in steps of ``dt``.

    ``torque(t, q, q̇)`` gives τ (zero-order hold, sampled at each step's start).  Keywords
    (:class:`SimulateOptions`): ``fd(q, q̇, τ)`` overrides the forward dynamics (default: the analytic model);
    a state that becomes non-finite or exceeds ``velocity_bound`` rad/s (1e4) stops the run with status
    ``"diverged"``; ``rtol``, ``atol`` (1e-12) for ``method="reference"``.
    """
    opts = SimulateOptions(**options)
    fd, velocity_bound = opts.fd, opts.velocity_bound
    if method not in STEPS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if not dt > 0:
        raise ValueError(f"dt must be > 0, got {dt!r}")
    steps = n_steps(duration, dt)
    step = STEPS[method]
    if fd is None and isinstance(arm, ArmSpec) and method in _GENERATED and np.ndim(q0) == 2 \
            and arm.n <= codegen.MAX_N:
        step = batched_generated_step(arm, method)
    if fd is None:
        fd = lambda q, qd, tau: forward_dynamics(arm, q, qd, tau)  # noqa: E731
    torque = torque or zero_torque
    kwargs = {"rtol": opts.rtol, "atol": opts.atol} if method == "reference" else {}
    q = np.array(q0, dtype=float)
    qd = np.array(qd0, dtype=float)
    Q = np.empty((steps + 1,) + q.shape)
    QD = np.empty_like(Q)
    TAU = np.empty((steps,) + q.shape)
    Q[0], QD[0] = q, qd
    status, t_div, msg = "ok", None, ""
    k = 0
    for k in range(steps):
        t = k * dt
        tau = np.asarray(torque(t, q, qd), dtype=float)
        TAU[k] = tau
        try:
            with np.errstate(all="ignore"):
                q, qd = step(fd, q, qd, tau, dt, **kwargs)
        except (FloatingPointError, np.linalg.LinAlgError) as e:
            status, t_div, msg = "diverged", (k + 1) * dt, f"integration failed at t = {(k + 1) * dt:.6g} s: {e}"
            break
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd)) and np.max(np.abs(qd)) <= velocity_bound):
            status, t_div = "diverged", (k + 1) * dt
            msg = f"state non-finite or |q̇| > {velocity_bound:g} rad/s at t = {t_div:.6g} s"
            break
        Q[k + 1], QD[k + 1] = q, qd
    else:
        k = steps
    if status != "ok":
        Q, QD, TAU = Q[: k + 1], QD[: k + 1], TAU[: k + 1]
    times = np.arange(Q.shape[0]) * dt
    return Trajectory(times, Q, QD, TAU[: max(Q.shape[0] - 1, 0)], method, dt, status, t_div, msg)
