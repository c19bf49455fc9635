"""The event-exact reference for the compliant joint-limit law (:class:`crossdyn.analytic.laws.limit.LimitLaw`).

:func:`simulate_limits` integrates M q̈ + C q̇ + G + F = τ + τ_lim exactly at the law's switches: adaptive
DOP853 with dense output, every sign change of an event function located by Brent's method on the dense output
and the integrator restarted there, so no step ever straddles a switch (the loop of
:func:`crossdyn.analytic.references.events.integrate_events`).  Event functions per joint: q − hi, q − lo
(entry/exit) and the clipped forces (release/re-engage).  The commanded torque is a zero-order hold of period
``hold`` (the integrator restarts at each hold boundary too), as the engines get it.  :func:`rk4_limits` is
fixed-step RK4 of the same dynamics, the independent check of convergence.

Native runs are characterised per contact in :mod:`crossdyn.native.limits.episodes` and MuJoCo's limit calibrated
in :mod:`crossdyn.native.limits.calibration`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Unpack

import numpy as np

from crossdyn.analytic.dynamics import as_params, forward_dynamics
from crossdyn.analytic.integrators import rk4_step
from crossdyn.analytic.laws.limit import LimitLaw
from crossdyn.analytic.references.events import (SIMULTANEOUS, HeldTorque, ReferenceKeywords, ReferenceOptions,
                                                 integrate_events)


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
                    hold: float | None = None, **options: Unpack[ReferenceKeywords]) -> LimitRun:
    """Integrate M q̈ + C q̇ + G + F = τ(t) + τ_lim(q, q̇) from (q0, q̇0), exact at every switch.

    ``torque(t)`` is the commanded torque (default 0), sampled at the start of each hold interval of length
    ``hold`` and held (``hold=None``: evaluated continuously).  Keywords (:class:`ReferenceOptions`): states are
    returned every ``output_dt`` (1e-3 s); ``rtol``, ``atol`` (1e-11); ``max_steps`` (1,000,000).
    """
    opts = ReferenceOptions(**options)
    p = as_params(arm)
    n = p.n
    x = np.concatenate([np.asarray(q0, float), np.asarray(qd0, float)])
    tau = HeldTorque(torque, hold, n)

    def rhs(t, y):
        q, qd = y[:n], y[n:]
        return np.concatenate([qd, forward_dynamics(p, q, qd, tau.at(t) + law.torque(q, qd))])

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

    run = integrate_events(rhs, lambda t, y: law.events(y[:n], y[n:]), x, duration, hold=hold, on_hold=tau.on_hold,
                           on_event=on_event, accept=accept, direction=0, min_separation=SIMULTANEOUS,
                           name="limit reference", **opts.event_options())
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
