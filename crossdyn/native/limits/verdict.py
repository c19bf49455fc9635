"""The native-limit verdict (compare --native): every native limit contact judged against the law's, with a
tolerance built from measured numbers only.

For each quantity X of a contact (:data:`crossdyn.native.limits.episodes.QUANTITIES`) the native run passes when

    |X_native − X_ref| ≤ integration + inference + sampling + softness

* **reference**: the event-exact continuous law (:func:`crossdyn.analytic.references.limits.simulate_limits`, the
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
  (:mod:`crossdyn.native.limits.softness`): its give's configuration spread relative to the law's give, times
  |X_ref|.  The engine's mean departure from the law is what is judged, not allowed for.

A contact the reference has and the native run lacks (or the other way) is a ``count`` departure (tolerance 0).
"""
from __future__ import annotations


from typing import NamedTuple

from crossdyn.native.experiment import Experiment, NativeRun, legacy_form
from crossdyn.native.fitting import richardson_factor
from crossdyn.native.limits import episodes as lc

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
    ``softness``: :func:`crossdyn.native.limits.softness.softness`.  Returns {"pass", "checked", "checks": every
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
        for i, (r, n) in enumerate(zip(r_list, n_list, strict=False)):
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


class LimitReference(NamedTuple):
    """The law's reference a native run is judged against: its ``contacts`` (law torque) and its ``traj``."""

    contacts: list
    traj: object


def _run_pack(a: dict) -> tuple:
    exp = Experiment(a.pop("spec"), a.pop("half_profile"), a.pop("q0"), a.pop("qd0"), a.pop("duration"),
                     a.pop("dt"))
    run = NativeRun(a.pop("name"), a.pop("traj"), a.pop("make"))
    return (exp, a.pop("law"), run, LimitReference(a.pop("reference_contacts"), a.pop("reference_traj"))), a


@legacy_form(("spec", "law", "name", "traj", "make", "half_profile", "q0", "qd0", "duration", "dt",
              "reference_contacts", "reference_traj", "factor"), 12, _run_pack)
def judge_native_run(exp: Experiment, law, run: NativeRun, reference: LimitReference, factor: float = 10.0) -> dict:
    """Measure and judge one native run ``run.traj`` of engine ``run.name``: its dt/2 run (driven by
    ``exp.profile``, the run's profile still held for dt: :func:`crossdyn.comparison.compare.held`) and its
    held-load side runs with ``run.make(name, dt)`` (a context-managed engine, configured as the run's), then
    :func:`judge` against ``reference`` (the law's contacts and trajectory)."""
    from dataclasses import replace

    from crossdyn.drive.runner import run_engine
    from crossdyn.native.limits.softness import softness as measure_softness

    spec, dt, traj = exp.spec, exp.dt, run.traj
    contacts = lc.characterise(spec, law, traj, native=True)
    half_contacts = None
    with run.make(run.name, dt / 2) as eng:
        half = run_engine(eng, exp.profile, exp.q0, exp.qd0, exp.duration, limit_law=False)
    if half.status == "ok" and len(half.q) >= 2 * (len(traj.q) - 1) + 1:
        k = len(traj.q)
        on_grid = replace(half, t=half.t[: 2 * k - 1: 2], q=half.q[: 2 * k - 1: 2], qd=half.qd[: 2 * k - 1: 2],
                          tau=half.tau[: 2 * (k - 1): 2], dt=dt)
        half_contacts = lc.characterise(spec, law, on_grid, native=True)
    with run.make(run.name, dt) as eng:
        soft = measure_softness(eng, spec, law, reference.contacts, reference.traj)
    inferred = lc.characterise(spec, law, reference.traj, native=True)
    verdict = judge(reference.contacts, contacts, half_contacts, inferred, soft, dt, factor)
    verdict["softness"] = soft
    verdict["half_status"] = half.status
    # shown, not judged: ~0 when the run has every other law the reference has (issue 23: ±f_c without friction)
    verdict["torque_away_from_limits_nm"] = lc.torque_away_from_limits(spec, law, traj, exp.friction)
    return verdict


def failures(verdicts: dict) -> list[str]:
    """One line per departure of every native run in ``verdicts`` (run label → :func:`judge`'s verdict), naming
    the engine, the joint, the limit, the contact and the quantity, with the tolerance and where it comes from."""
    return [line for label, verdict in verdicts.items() for line in departure_lines(label, verdict)]


def departure_lines(label: str, verdict: dict) -> list[str]:
    """One failure line per departure of one native run (``label``): engine, joint, limit, contact, quantity,
    with the tolerance and its terms."""
    out = []
    for d in verdict["departures"]:
        where = f"joint {d['joint']} {d['side']} limit" + (f", contact {d['contact']}" if d["contact"] else "")
        if d["quantity"] == "count":
            why = "tolerance 0"
        else:
            integ = "no dt/2 estimate" if d["integration"] is None else f"integration {d['integration']:.2g}"
            why = (f"tolerance {d['tolerance']:.3g} = {integ} + inference {d['inference']:.2g} + sampling "
                   f"{d['sampling']:.2g} + softness {d['softness']:.2g}")
        out.append(f"{label}: native limit departs at {where}: {d['quantity']} {d['native']:.4g} vs reference "
                   f"{d['reference']:.4g} ({why})")
    return out
