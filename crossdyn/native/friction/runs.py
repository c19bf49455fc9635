"""Coulomb friction in native mode: each engine's own stick–slip mechanism against the set-valued reference.

Natively (no applied law, the spec's f_c given to the engine) MuJoCo has ``frictionloss``, a *soft* dry-friction
constraint (a joint that should stick creeps), PyBullet crossdyn's velocity motor of maximum force f_c, DART a
velocity constraint.  :func:`characterise_friction` runs the set-valued reference
(:func:`crossdyn.analytic.references.stick_slip.simulate_stick_slip`, the commanded torque held per step like the engines get
it) and each engine natively, and reports per joint with f_c > 0:

* the reference's stick intervals (exact: the sticking mode), their count and total time (samples × dt);
* the engine's own stick time, counted where |q̇_j| < ``v_stick`` (1e-4 rad/s: far below the profile's speeds,
  far above a stuck joint's round-off), and its intervals;
* **creep while stuck**: over the reference's stick intervals, the engine's largest displacement
  |q_j(t_end) − q_j(t_start)| (rad) and largest |q̇_j| (rad/s) — zero for an exact stick;
* the largest angle difference to the reference over the run.

For the verdict (:mod:`crossdyn.native.friction.verdict`) each engine is also run at dt/2 with the torque
still held for dt (its ``half`` rows: the same measures on the dt grid, for the Richardson estimate), and its
**creep floor** is measured in a side run (:func:`crossdyn.native.friction.softness.creep_floor`): the least
creep its friction mechanism can have at this dt, with its softness settings at their stiffest (MuJoCo: ``solreffriction`` timeconst 2 dt — MuJoCo's own
lower bound — dampratio 1, ``solimpfriction`` d = 0.9999; engines without such settings as they are).

Only open-loop profiles (the reference needs τ(t) without the state), and only arms without a joint-limit law or tip
contact: the native friction runs would get those applied (:func:`crossdyn.drive.runner.run_engine`'s defaults)
while the set-valued reference has neither, so such an arm is refused (:class:`~crossdyn.errors.InputError`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from crossdyn.inputs.profiles import held
from crossdyn.analytic.references.stick_slip import simulate_stick_slip
from crossdyn.drive.runner import run_engine
from crossdyn.engines import make_engine
from crossdyn.errors import InputError
from crossdyn.native.experiment import Experiment, engine_failure, experiment_form
from crossdyn.native.friction.episodes import V_STICK, intervals, measure_joint, stuck_mask
from crossdyn.native.friction.softness import creep_floor, stiffest_friction
from crossdyn.status import RunStatus

__all__ = ["V_STICK", "characterise_friction", "creep_floor", "intervals", "measure_joint", "stiffest_friction",
           "stuck_mask"]


@experiment_form("engines", "reference", "configure")
def characterise_friction(exp: Experiment, engines=("mujoco", "pybullet"), reference=None, configure=None) -> dict:
    """Native stick–slip of each engine (names as for ``make_engine``) against the set-valued reference.
    ``configure(name, engine)``, if given, is applied to the engine of the run and of its dt/2 run (e.g.
    :func:`stiffest_friction`), and its return value, if any, recorded as ``configured``."""
    spec, profile, q0, qd0, duration, dt = exp.spec, exp.profile, exp.q0, exp.qd0, exp.duration, exp.dt
    if getattr(profile, "closed_loop", True):
        raise ValueError(f"friction characterisation needs an open-loop profile, got "
                         f"{getattr(profile, 'name', profile)!r}")
    if spec.has_limit_law or spec.has_contact:  # the native runs would get them applied, the reference not
        raise InputError(f"{spec.name}: native friction characterisation: the set-valued stick-slip reference has "
                         "no joint-limit law or tip contact, which the native friction runs would get applied; "
                         "characterise the friction on the arm without them")
    if reference is None:
        effort = spec.effort_limits()  # the commanded torque saturated as the runner saturates the engines'

        def commanded(t):
            tau = profile.sample(np.array([t]))[0]
            return tau if effort is None else np.clip(tau, -effort, effort)

        reference = simulate_stick_slip(spec, q0, qd0, duration, torque=commanded,
                                        hold=dt, output_dt=dt)
    t = reference.t
    joints = [j for j, link in enumerate(spec.links) if link.friction > 0]
    ref_iv = {j: intervals(reference.sticking[:, j], t) for j in joints}
    out: dict[str, Any] = {"reference": {"method": "set-valued Coulomb law, event-exact (simulate_stick_slip), torque held per step",
                         "joints": [{"joint": j + 1, "fc_nm": spec.links[j].friction,
                                     "stick_intervals": len(ref_iv[j]),
                                     "stick_time_s": float(reference.sticking[:, j].sum() * dt),
                                     "intervals_s": ref_iv[j][:20]} for j in joints],
                         "events": [list(e) for e in reference.events][:200]},
           "v_stick_rad_s": V_STICK, "engines": {}}
    for name in engines:
        try:
            runs = _native_runs(exp, name, joints, configure)
        except Exception as e:  # noqa: BLE001 — an engine that cannot run is reported (engine_failure), not raised
            if not engine_failure(e):
                raise
            out["engines"][name] = {"status": RunStatus.FAILED, "reason": f"{type(e).__name__}: {e}"}
            continue
        out["engines"][name] = _engine_entry(runs, reference, ref_iv, joints, dt)
    out["reference"]["timeline"] = {"t": t, "stuck": reference.sticking[:, joints]}
    # the reference measured like an engine (|q̇| < V_STICK): how far the criterion alone moves its transitions
    out["reference"]["thresholded"] = [measure_joint(t, reference.q, reference.qd, len(t), j, ref_iv[j], dt)
                                       for j in joints]
    return out


def _native_runs(exp: Experiment, name: str, joints: list, configure) -> dict:
    """The runs of engine ``name`` that the characterisation measures: the run at dt, the run at dt/2 (the
    torque still held for dt), and the creep-floor side run of every joint with friction (stiffest settings)."""
    spec, profile, q0, qd0, duration, dt = exp.spec, exp.profile, exp.q0, exp.qd0, exp.duration, exp.dt
    configured = None
    with make_engine(name, spec, dt) as eng:
        if configure is not None:
            configured = configure(name, eng)
        run = run_engine(eng, profile, q0, qd0, duration)
        model = eng.config().get("coulomb_friction_model", eng.config().get("friction_model", ""))
    with make_engine(name, spec, dt / 2) as eng:
        if configure is not None:
            configure(name, eng)
        half = run_engine(eng, held(profile, dt), q0, qd0, duration)
    floors = {}
    with make_engine(name, spec, dt) as eng:
        stiffest = stiffest_friction(eng)
        for j in joints:
            floors[j] = creep_floor(eng, spec, q0, j)
    return {"run": run, "half": half, "model": model, "configured": configured, "floors": floors,
            "stiffest": stiffest}


def _engine_entry(runs: dict, reference, ref_iv: dict, joints: list, dt: float) -> dict:
    """One engine's measures (per joint, and of its dt/2 run) against the reference's stick intervals."""
    run, half, t = runs["run"], runs["half"], reference.t
    m = min(len(run.q), len(t))
    rows, half_rows = [], []
    hq, hqd = half.q[::2], half.qd[::2]
    mh = min(len(hq), len(t))
    for j in joints:
        row = measure_joint(t, run.q, run.qd, m, j, ref_iv[j], dt)
        row["max_angle_difference_rad"] = float(np.max(np.abs(run.q[:m, j] - reference.q[:m, j])))
        row["creep_floor"] = runs["floors"][j]
        rows.append(row)
        if half.status == "ok":
            half_rows.append(measure_joint(t, hq, hqd, mh, j, ref_iv[j], dt))
    return {"status": run.status, "friction_model": runs["model"], "joints": rows, "configured": runs["configured"],
            "half": half_rows if half.status == "ok" else None, "half_status": half.status,
            "creep_floor_setting": runs["stiffest"] or "as built (no softness setting)",
            "timeline": {"t": t[:m], "stuck": stuck_mask(run.qd[:m][:, joints])}}
