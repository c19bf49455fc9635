"""The native-friction verdict (compare --characterise-friction): each engine's own stick–slip judged against the
set-valued reference (:func:`crossdyn.analytic.references.stick_slip.simulate_stick_slip`), per joint with f_c > 0.

Measures (:mod:`crossdyn.native.friction.runs`, :mod:`crossdyn.native.friction.episodes`; an engine's joint counts as stuck while |q̇| < 1e-4 rad/s):
``stick_intervals`` (count), ``stick_time_s`` (total), ``stick_start_s`` / ``stick_end_s`` of every interval
(the transition times; only when the counts agree), and ``creep_while_stuck_rad`` (the engine's largest
displacement over a reference stick interval; the reference's is 0 exactly).  Each passes when
|X_engine − X_ref| ≤ integration + sampling + threshold + softness:

* **integration**: 10 × 2 × |X(dt) − X(dt/2)| (the trajectory rule's factor, Richardson at first order: a
  stick–slip switch inside a step makes any scheme first order), the dt/2 run holding the torque for dt;
* **sampling**: stick times are counted on the dt grid, each interval's ends to within a sample: dt per end
  (2 dt per interval of either run for the total);
* **threshold** (stick time and transitions): the stick criterion itself (|q̇| below 1e-4 rad/s at both ends of a
  step) applied to the reference's own motion moves its transitions (a joint breaking away is counted stuck
  until it has gained 1e-4 rad/s): |X_ref thresholded − X_ref exact| is allowed;
* **softness** (creep only): the engine's *creep floor* — the least creep its friction can have at this dt,
  measured in a side run with its softness settings at their stiffest (MuJoCo's ``solreffriction`` at its
  2 dt bound) under a held load of 0.95 f_c — times the longest reference stick interval.  The engine's creep
  as configured is what is judged: a floor measured at its stiffest setting does not grow with it.
"""
from __future__ import annotations

from typing import NamedTuple

FACTOR = 10.0
ORDER_FACTOR = 2.0  # Richardson 2^p/(2^p - 1) at p = 1


class Terms(NamedTuple):
    """The tolerance's terms for one check (module docstring); ``integration`` None without a dt/2 run."""

    integration: float | None
    sampling: float
    softness: float
    threshold: float = 0.0


def _row(engine: str, joint: int, quantity: str, ref, native, terms: Terms, index=None) -> dict:
    """One check: |native − ref| ≤ integration + sampling + threshold + softness (the grid times' round-off
    allowed)."""
    integration, sampling, softness, threshold = terms
    tol = (integration or 0.0) + sampling + threshold + softness
    return {"engine": engine, "joint": joint, "quantity": quantity, "interval": index, "reference": ref,
            "native": native, "integration": integration, "sampling": sampling, "threshold": threshold,
            "softness": softness, "tolerance": tol,
            "pass": bool(abs(native - ref) <= tol * (1 + 1e-9) + 1e-12)}  # round-off of grid times


def judge(native: dict, dt: float, factor: float = FACTOR) -> dict:
    """Per engine of ``native`` (:func:`crossdyn.native.friction.runs.characterise_friction`): {"pass",
    "checks", "departures"}; an engine that failed to run is one departure (``run``)."""
    ref = {r["joint"]: r for r in native["reference"]["joints"]}
    thr = {r["joint"]: r for r in native["reference"].get("thresholded", [])}
    out = {}
    for name, e in native["engines"].items():
        checks: list[dict] = []
        if e.get("status") != "ok":
            out[name] = {"pass": False, "checks": [], "departures": [
                {"engine": name, "joint": None, "quantity": "run", "reference": None, "native": None,
                 "tolerance": None, "reason": f"{e.get('status')}: {e.get('reason', '')}", "pass": False}]}
            continue
        half = {r["joint"]: r for r in (e.get("half") or [])}
        for r in e["joints"]:
            j, rr, h = r["joint"], ref[r["joint"]], half.get(r["joint"])
            th = thr.get(j)
            th_iv = th["intervals_s"] if th is not None and th["stick_intervals"] == rr["stick_intervals"] else None

            def integ(key, value, h=h):
                return None if h is None else factor * ORDER_FACTOR * abs(value - h[key])

            checks.append(_row(name, j, "stick_intervals", rr["stick_intervals"], r["stick_intervals"],
                               Terms(integ("stick_intervals", r["stick_intervals"]), 0.0, 0.0)))
            n_iv = max(rr["stick_intervals"], r["stick_intervals"])
            checks.append(_row(name, j, "stick_time_s", rr["stick_time_s"], r["stick_time_s"],
                               Terms(integ("stick_time_s", r["stick_time_s"]), 2 * dt * n_iv, 0.0,
                                     abs(th["stick_time_s"] - rr["stick_time_s"]) if th is not None else 0.0)))
            if rr["stick_intervals"] == r["stick_intervals"]:
                h_iv = h["intervals_s"] if h is not None and h["stick_intervals"] == r["stick_intervals"] else None
                for i, ((a_r, b_r), (a_n, b_n)) in enumerate(zip(rr["intervals_s"], r["intervals_s"], strict=False)):
                    for q, x_r, x_n, k in (("stick_start_s", a_r, a_n, 0), ("stick_end_s", b_r, b_n, 1)):
                        it = None if h_iv is None else factor * ORDER_FACTOR * abs(x_n - h_iv[i][k])
                        t_th = abs(th_iv[i][k] - x_r) if th_iv is not None else 0.0
                        checks.append(_row(name, j, q, x_r, x_n, Terms(it, dt, 0.0, t_th), i + 1))
            floor = (r.get("creep_floor") or {}).get("rate_rad_s")
            longest = max((b - a for a, b in rr["intervals_s"]), default=0.0)
            checks.append(_row(name, j, "creep_while_stuck_rad", 0.0, r["creep_while_stuck_rad"],
                               Terms(integ("creep_while_stuck_rad", r["creep_while_stuck_rad"]), 0.0,
                                     (floor or 0.0) * longest)))
        out[name] = {"pass": all(c["pass"] for c in checks), "checks": checks,
                     "departures": [c for c in checks if not c["pass"]]}
    return out


def failures(verdicts: dict) -> list[str]:
    """One line per departure, naming the engine, the joint and the quantity, with the tolerance's terms."""
    out = []
    for name, v in verdicts.items():
        for d in v["departures"]:
            if d["quantity"] == "run":
                out.append(f"{name}: native friction not measured: {d['reason']}")
                continue
            where = f"joint {d['joint']}" + (f", stick interval {d['interval']}" if d["interval"] else "")
            integ = "no dt/2 estimate" if d["integration"] is None else f"integration {d['integration']:.2g}"
            out.append(f"{name}: native friction departs at {where}: {d['quantity']} {d['native']:.4g} vs reference "
                       f"{d['reference']:.4g} (tolerance {d['tolerance']:.3g} = {integ} + sampling "
                       f"{d['sampling']:.2g} + threshold {d['threshold']:.2g} + softness {d['softness']:.2g})")
    return out
