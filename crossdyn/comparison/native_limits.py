"""The native-limit verdict (compare --native): every native limit contact judged against the law's, with a
tolerance built from measured numbers only.

For each quantity X of a contact (:data:`crossdyn.drive.limit_contacts.QUANTITIES`) the native run passes when

    |X_native − X_ref| ≤ integration + inference + sampling + softness

* **reference**: the event-exact continuous law (:func:`crossdyn.analytic.limits.simulate_limits`, the
  commanded torque held per step as the engines get it, the limit torque continuous as a native limit is) for
  an open-loop profile; the applied-mode reference (the law held per step) for a closed-loop one (stated);
* **integration**: the native run's own Richardson estimate, ``factor`` (10, the trajectory rule's) ×
  2ᵖ/(2ᵖ − 1) × |X(dt) − X(dt/2)|, the dt/2 run holding the torque for dt and sampled on the dt grid;
  p = 1, since a constraint that switches on inside a step makes any scheme first order;
* **inference** (peak torque and energy absorbed only): native limit torques are inferred by inverse
  dynamics from the motion; the same inference applied to the reference, whose torque is known, errs by
  |X_inferred − X_law|, and that much is allowed;
* **sampling** (time in contact only): entry and exit are found on the dt grid, each to within a sample, in
  both runs: 2 dt;
* **softness**: the engine's own constraint softness, measured in held-load side runs
  (:mod:`crossdyn.drive.limit_softness`): its give's configuration spread relative to the law's give, times
  |X_ref|.  The engine's mean departure from the law is what is judged, not allowed for.

A contact the reference has and the native run lacks (or the other way) is a ``count`` departure (tolerance 0).
"""
from __future__ import annotations

import numpy as np

from crossdyn.comparison.metrics import richardson_factor
from crossdyn.drive import limit_contacts as lc

TORQUE_QUANTITIES = ("peak_torque_nm", "energy_absorbed_j")
"""Quantities computed from the limit torque: for native runs it is inferred, so the inference error counts."""

NATIVE_ORDER = 1
"""Order assumed for the Richardson estimate of a native limit run (a constraint switching inside a step)."""


def _by_key(rows):
    d: dict = {}
    for r in rows or []:
        d.setdefault((r["joint"], r["side"]), []).append(r)
    return d


def judge(reference: list[dict], native: list[dict], half: list[dict] | None, inferred_reference: list[dict],
          softness: dict, dt: float, factor: float = 10.0, order: int = NATIVE_ORDER) -> dict:
    """The verdict (module docstring).  ``reference``: the law's contacts (law torque); ``native``: the native
    run's (inferred torque); ``half``: the native run at dt/2 sampled on the dt grid, or None (no integration
    estimate); ``inferred_reference``: the reference's contacts with the torque inferred as for native runs;
    ``softness``: :func:`crossdyn.drive.limit_softness.softness`.  Returns {"pass", "checked", "checks": every
    quantity with its tolerance and the three terms, "departures": the failing checks and count mismatches}."""
    ref, nat, hlf, inf = _by_key(reference), _by_key(native), _by_key(half), _by_key(inferred_reference)
    rf = richardson_factor(order)
    checks, departures = [], []
    for key in sorted(set(ref) | set(nat)):
        r_list, n_list, h_list, i_list = ref.get(key, []), nat.get(key, []), hlf.get(key, []), inf.get(key, [])
        soft = softness.get(f"{key[0]} {key[1]}", {}).get("softness_fraction") or 0.0
        if len(r_list) != len(n_list):
            departures.append({"joint": key[0], "side": key[1], "contact": None, "quantity": "count",
                               "reference": len(r_list), "native": len(n_list), "tolerance": 0,
                               "integration": None, "inference": None, "sampling": None, "softness": None,
                               "pass": False})
        for i, (r, n) in enumerate(zip(r_list, n_list)):
            h = h_list[i] if half is not None and len(h_list) == len(n_list) else None
            ir = i_list[i] if i < len(i_list) else None
            for qn in lc.QUANTITIES:
                xr, xn = r[qn], n[qn]
                if xr is None or xn is None:
                    continue
                integ = factor * rf * abs(xn - h[qn]) if h is not None and h[qn] is not None else None
                infer = abs(ir[qn] - xr) if qn in TORQUE_QUANTITIES and ir is not None and ir[qn] is not None \
                    else 0.0
                s = soft * abs(xr)
                sampling = 2 * dt if qn == "time_in_contact_s" else 0.0
                tol = (integ or 0.0) + infer + sampling + s
                row = {"joint": key[0], "side": key[1], "contact": i + 1, "quantity": qn, "reference": xr,
                       "native": xn, "tolerance": tol, "integration": integ, "inference": infer,
                       "sampling": sampling, "softness": s, "pass": bool(abs(xn - xr) <= tol)}
                checks.append(row)
                if not row["pass"]:
                    departures.append(row)
    return {"pass": not departures, "checked": len(checks) + len(set(ref) | set(nat)), "checks": checks,
            "departures": departures, "integration_factor": factor, "integration_order": order}


def judge_native_run(spec, law, name: str, traj, make, half_profile, q0, qd0, duration: float, dt: float,
                     reference_contacts: list[dict], reference_traj, factor: float = 10.0) -> dict:
    """Measure and judge one native run ``traj`` of engine ``name``: its dt/2 run (driven by ``half_profile``,
    the run's profile still held for dt: :func:`crossdyn.comparison.compare.held`) and its held-load side runs
    with ``make(name, dt)`` (a context-managed engine, configured as the run's), then :func:`judge`."""
    from dataclasses import replace

    from crossdyn.drive.limit_softness import softness as measure_softness
    from crossdyn.drive.runner import run_engine

    contacts = lc.characterise(spec, law, traj, native=True)
    half_contacts = None
    with make(name, dt / 2) as eng:
        half = run_engine(eng, half_profile, q0, qd0, duration, limit_law=False)
    if half.status == "ok" and len(half.q) >= 2 * (len(traj.q) - 1) + 1:
        k = len(traj.q)
        on_grid = replace(half, t=half.t[: 2 * k - 1: 2], q=half.q[: 2 * k - 1: 2], qd=half.qd[: 2 * k - 1: 2],
                          tau=half.tau[: 2 * (k - 1): 2], dt=dt)
        half_contacts = lc.characterise(spec, law, on_grid, native=True)
    with make(name, dt) as eng:
        soft = measure_softness(eng, spec, law, reference_contacts, reference_traj)
    inferred = lc.characterise(spec, law, reference_traj, native=True)
    verdict = judge(reference_contacts, contacts, half_contacts, inferred, soft, dt, factor)
    verdict["softness"] = soft
    verdict["half_status"] = half.status
    return verdict


def continuous_reference(spec, law, profile, q0, qd0, duration: float, dt: float, fallback, friction=None):
    """(trajectory, method): the event-exact continuous law with the commanded torque held per step, as a
    Trajectory on the dt grid (open-loop profiles, no applied friction law), else ``fallback`` (the applied-mode
    reference, its ``tau`` reduced to the commanded torque by taking off the law's, and ``friction``'s, torque
    at each step's start, as the runner added them), so that torques inferred from it are comparable."""
    from dataclasses import replace

    from crossdyn.analytic.integrators import Trajectory
    from crossdyn.analytic.references.limits import simulate_limits

    if getattr(profile, "closed_loop", True) or friction is not None:
        k = len(fallback.tau)
        tau = fallback.tau - law.torque(fallback.q[:k], fallback.qd[:k])
        if friction is not None:
            tau = tau - friction.torque(fallback.qd[:k])
        why = "closed-loop profile" if getattr(profile, "closed_loop", True) else "applied Coulomb friction law"
        return replace(fallback, tau=tau), f"applied-mode reference (the law held per step; {why})"
    limit = spec.effort_limits() if spec.has_effort else None  # saturated as the runner saturates it

    def torque(t):
        tau = profile.sample(np.array([t]))[0]
        return np.clip(tau, -limit, limit) if limit is not None else tau

    run = simulate_limits(spec, law, q0, qd0, duration, torque=torque, hold=dt, output_dt=dt)
    tau = np.array([torque(t) for t in run.t[:-1]])
    return (Trajectory(run.t, run.q, run.qd, tau, "event-exact DOP853", dt),
            "event-exact continuous law (simulate_limits, DOP853 restarted at every switch; torque held per step)")
