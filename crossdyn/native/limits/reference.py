"""The law's reference a native limit is judged against (compare --native): the event-exact continuous law.

A native limit acts inside the engine's step, continuously in the state, so its reference is the law with the
limit torque continuous too — :func:`crossdyn.analytic.references.limits.simulate_limits` (DOP853 restarted at every
switch), the commanded torque held per step as the engines get it — where the profile is open loop and no other
law (an applied Coulomb friction law, a tip contact law) runs beside it; else the applied-mode reference (every
law held per step, as the native run gets the others), its torque reduced to the commanded one.
"""
from __future__ import annotations

import numpy as np

from crossdyn.native.experiment import Experiment, experiment_of, legacy_form


def _pack(a: dict) -> tuple:
    law = a.pop("law")
    return (experiment_of(a), law), a


@legacy_form(("spec", "law", "profile", "q0", "qd0", "duration", "dt", "fallback", "friction"), 8, _pack)
def continuous_reference(exp: Experiment, law, fallback, friction=None):
    """(trajectory, method): the event-exact continuous law with the commanded torque held per step, as a
    Trajectory on the dt grid (open-loop profiles, no applied friction law (``friction``, default
    ``exp.friction``), no contact), else ``fallback`` (the applied-mode reference, the limit law's torque at each
    step's start taken off its ``tau``: what is left is the commanded torque plus the other laws' (friction,
    contact), exactly what a native limit run's ``tau`` holds), so that limit torques inferred from either are
    comparable (M q̈ + C q̇ + G + B q̇ − τ is the limit torque alone in both)."""
    from dataclasses import replace

    from crossdyn.analytic.integrators import Trajectory
    from crossdyn.analytic.references.limits import simulate_limits

    spec, profile, q0, qd0, duration, dt = exp.spec, exp.profile, exp.q0, exp.qd0, exp.duration, exp.dt
    friction = friction if friction is not None else exp.friction
    contact = bool(getattr(spec, "has_contact", False))
    if getattr(profile, "closed_loop", True) or friction is not None or contact:
        k = len(fallback.tau)
        # the limit law's torque off; the other laws' (friction, contact) stay in tau, as in a native limit run's
        tau = fallback.tau - law.torque(fallback.q[:k], fallback.qd[:k])
        why = ("closed-loop profile" if getattr(profile, "closed_loop", True) else
               "applied Coulomb friction law" if friction is not None else "applied tip contact law")
        return replace(fallback, tau=tau), f"applied-mode reference (the law held per step; {why})"
    limit = spec.effort_limits() if spec.has_effort else None  # saturated as the runner saturates it

    def torque(t):
        tau = profile.sample(np.array([t]))[0]
        return np.clip(tau, -limit, limit) if limit is not None else tau

    run = simulate_limits(spec, law, q0, qd0, duration, torque=torque, hold=dt, output_dt=dt)
    tau = np.array([torque(t) for t in run.t[:-1]])
    return (Trajectory(run.t, run.q, run.qd, tau, "event-exact DOP853", dt),
            "event-exact continuous law (simulate_limits, DOP853 restarted at every switch; torque held per step)")
