"""The compliant joint-limit law and an event-exact reference for it (first part of limits, issue 12).

Law, per joint with limits [lo, hi], stiffness k (N m/rad) and damping c (N m s/rad):

    τ_lim = min(0, −k (q − hi) − c q̇)    for q > hi     (pushes back, never pulls)
    τ_lim = max(0, −k (q − lo) − c q̇)    for q < lo
    τ_lim = 0                            for lo ≤ q ≤ hi

so the arm obeys M q̈ + C q̇ + G + F = τ + τ_lim.  τ_lim is discontinuous where a joint enters a limit with
c q̇ ≠ 0 and has a kink where the clipped force −k(q − hi) − c q̇ reaches 0 (the stop *releases* the joint
before it is back inside: the damper would pull).  :func:`simulate_limits` integrates this exactly at those
switches: adaptive DOP853 with dense output, every sign change of an event function located by Brent's method
on the dense output and the integrator restarted there, so no step ever straddles a switch (the loop of
:func:`crossdyn.analytic.events.integrate_events`).  Event functions
per joint: q − hi, q − lo (entry/exit) and the clipped forces (release/re-engage).  The commanded torque is a
zero-order hold of period ``hold`` (the integrator restarts at each hold boundary too), as the engines get it.

The spec keys ``limit_stiffness``/``limit_damping`` give the law (:meth:`LimitLaw.of`); the runner applies
it (applied mode, :mod:`crossdyn.drive.runner`); native runs are characterised per contact in
:mod:`crossdyn.drive.limit_contacts` and MuJoCo's limit calibrated in :mod:`crossdyn.drive.limit_calibration`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from crossdyn.analytic.dynamics import as_params, forward_dynamics
from crossdyn.analytic.events import SIMULTANEOUS, integrate_events
from crossdyn.analytic.integrators import rk4_step


@dataclass(frozen=True)
class LimitLaw:
    """Limits and the compliant law's coefficients, one entry per joint (±inf: no limit on that side)."""

    lower: np.ndarray
    upper: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray

    @classmethod
    def from_spec(cls, spec, stiffness, damping) -> "LimitLaw":
        """The spec's ``limits`` (joints without limits: ±inf) with stiffness k and damping c (scalars or per joint)."""
        n = spec.n
        lo = np.array([-np.inf if l.limits is None else l.limits[0] for l in spec.links])
        hi = np.array([np.inf if l.limits is None else l.limits[1] for l in spec.links])
        k = np.broadcast_to(np.asarray(stiffness, dtype=float), (n,)).copy()
        c = np.broadcast_to(np.asarray(damping, dtype=float), (n,)).copy()
        if np.any(k <= 0) or np.any(c < 0) or not np.all(np.isfinite(k)) or not np.all(np.isfinite(c)):
            raise ValueError(f"limit law: stiffness must be > 0 and damping >= 0 (finite), got k = {k}, c = {c}")
        return cls(lo, hi, k, c)

    @classmethod
    def of(cls, spec) -> "LimitLaw | None":
        """The law the spec sets (``limit_stiffness``/``limit_damping`` per link; links without: no limit), or None."""
        if not spec.has_limit_law:
            return None
        on = [l.limit_stiffness > 0 for l in spec.links]
        return cls(np.array([l.limits[0] if o else -np.inf for l, o in zip(spec.links, on)]),
                   np.array([l.limits[1] if o else np.inf for l, o in zip(spec.links, on)]),
                   np.array([l.limit_stiffness for l in spec.links]), np.array([l.limit_damping for l in spec.links]))

    def __post_init__(self) -> None:
        # per joint with a finite side: (index, lo, hi, k, c) as Python floats, for the one-state path of
        # torque() (the runner calls it every step; NumPy on arrays of a few joints costs several µs)
        rows = tuple((i, float(lo), float(hi), float(k), float(c)) for i, (lo, hi, k, c) in
                     enumerate(zip(self.lower, self.upper, self.stiffness, self.damping))
                     if np.isfinite(lo) or np.isfinite(hi))
        object.__setattr__(self, "_rows", rows)

    def torque(self, q, qd) -> np.ndarray:
        """τ_lim(q, q̇) (see the module docstring); batched over leading axes."""
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        if q.ndim == 1:  # one state: scalar arithmetic per limited joint (same law, same numbers)
            out = np.zeros(q.shape[0])
            for i, lo, hi, k, c in self._rows:
                qi = q[i]
                if qi > hi:
                    f = -k * (qi - hi) - c * qd[i]
                    out[i] = f if f < 0.0 else 0.0  # pushes back, never pulls
                elif qi < lo:
                    f = -k * (qi - lo) - c * qd[i]
                    out[i] = f if f > 0.0 else 0.0
            return out
        with np.errstate(invalid="ignore"):  # inf − inf where a side has no limit: masked out below
            up = np.minimum(0.0, -self.stiffness * (q - self.upper) - self.damping * qd)
            down = np.maximum(0.0, -self.stiffness * (q - self.lower) - self.damping * qd)
        return np.where(q > self.upper, up, 0.0) + np.where(q < self.lower, down, 0.0)

    def events(self, q, qd) -> np.ndarray:
        """The event functions (4n): q − hi, q − lo, and the unclipped forces at hi and at lo."""
        f_up = -self.stiffness * (q - self.upper) - self.damping * qd
        f_down = -self.stiffness * (q - self.lower) - self.damping * qd
        return np.concatenate([q - self.upper, q - self.lower, f_up, f_down])


@dataclass
class LimitRun:
    """Result of :func:`simulate_limits`: states on the output grid and every switch located."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    events: list = field(default_factory=list)
    """(time s, joint 1-based, what) with what one of "enter upper", "exit upper", "enter lower", "exit lower",
    "release upper", "engage upper", "release lower", "engage lower"."""
    steps: int = 0


_KINDS = ("upper", "lower", "force upper", "force lower")


def _what(kind: int, rising: bool) -> str:
    side = "upper" if kind in (0, 2) else "lower"
    if kind < 2:  # position: rising through hi enters upper, rising through lo exits lower
        entering = rising if side == "upper" else not rising
        return ("enter " if entering else "exit ") + side
    # force: at the upper stop the clipped force min(0, f) releases when f rises through 0
    releasing = rising if side == "upper" else not rising
    return ("release " if releasing else "engage ") + side


def simulate_limits(arm, law: LimitLaw, q0, qd0, duration: float, torque: Callable | None = None,
                    hold: float | None = None, output_dt: float = 1e-3, rtol: float = 1e-11, atol: float = 1e-11,
                    max_steps: int = 1_000_000) -> LimitRun:
    """Integrate M q̈ + C q̇ + G + F = τ(t) + τ_lim(q, q̇) from (q0, q̇0), exact at every switch.

    ``torque(t)`` is the commanded torque (default 0), sampled at the start of each hold interval of length
    ``hold`` and held (``hold=None``: evaluated continuously).  States are returned every ``output_dt``.
    """
    p = as_params(arm)
    n = p.n
    x = np.concatenate([np.asarray(q0, float), np.asarray(qd0, float)])
    tau_fn = torque if torque is not None else (lambda t: np.zeros(n))
    held = {"tau": np.asarray(tau_fn(0.0), float)}

    def rhs(t, y):
        tau = held["tau"] if hold is not None else np.asarray(tau_fn(t), float)
        q, qd = y[:n], y[n:]
        return np.concatenate([qd, forward_dynamics(p, q, qd, tau + law.torque(q, qd))])

    def on_hold(t, y):
        if hold is not None:
            held["tau"] = np.asarray(tau_fn(t), float)

    def accept(i, t_i, dense):
        kind, joint = divmod(i, n)
        if kind < 2:
            return True
        q_i = dense(t_i)[joint]  # a force switch matters only while the joint is beyond that limit
        return bool(q_i > law.upper[joint] if kind == 2 else q_i < law.lower[joint])

    events: list = []

    def on_event(t, y, hits):
        for t_i, i, rising in hits:
            kind, joint = divmod(i, n)
            events.append((float(t_i), joint + 1, _what(kind, rising)))

    run = integrate_events(rhs, lambda t, y: law.events(y[:n], y[n:]), x, duration, hold=hold, on_hold=on_hold,
                           on_event=on_event, accept=accept, direction=0, min_separation=SIMULTANEOUS,
                           output_dt=output_dt, rtol=rtol, atol=atol, max_steps=max_steps, name="limit reference")
    return LimitRun(run.t, run.y[:, :n].copy(), run.y[:, n:].copy(), events, run.steps)


def rk4_limits(arm, law: LimitLaw, q0, qd0, duration: float, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-step RK4 of the same dynamics with the law evaluated inside every stage (no event handling):
    the independent check that :func:`simulate_limits` is what fixed steps converge to as dt → 0."""
    p = as_params(arm)

    def fd(q, qd, tau):  # no commanded torque: the law, inside every stage
        return forward_dynamics(p, q, qd, law.torque(q, qd))

    q, qd = np.asarray(q0, float).copy(), np.asarray(qd0, float).copy()
    zero = np.zeros(len(q))
    for _ in range(int(round(duration / dt))):
        q, qd = rk4_step(fd, q, qd, zero, dt)
    return q, qd
