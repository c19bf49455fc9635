"""Coulomb friction in native mode: each engine's own stick–slip mechanism against the set-valued reference.

Natively (no applied law, the spec's f_c given to the engine) MuJoCo has ``frictionloss``, a *soft* dry-friction
constraint (a joint that should stick creeps), PyBullet crossdyn's velocity motor of maximum force f_c, DART a
velocity constraint.  :func:`characterise_friction` runs the set-valued reference
(:func:`crossdyn.analytic.stick_slip.simulate_stick_slip`, the commanded torque held per step like the engines get
it) and each engine natively, and reports per joint with f_c > 0:

* the reference's stick intervals (exact: the sticking mode), their count and total time (samples × dt);
* the engine's own stick time, counted where |q̇_j| < ``v_stick`` (1e-4 rad/s: far below the profile's speeds,
  far above a stuck joint's round-off), and its intervals;
* **creep while stuck**: over the reference's stick intervals, the engine's largest displacement
  |q_j(t_end) − q_j(t_start)| (rad) and largest |q̇_j| (rad/s) — zero for an exact stick;
* the largest angle difference to the reference over the run.

For the verdict (:mod:`crossdyn.comparison.native_friction`) each engine is also run at dt/2 with the torque
still held for dt (its ``half`` rows: the same measures on the dt grid, for the Richardson estimate), and its
**creep floor** is measured in a side run (:func:`creep_floor`): the least creep its friction mechanism can have
at this dt, with its softness settings at their stiffest (MuJoCo: ``solreffriction`` timeconst 2 dt — MuJoCo's own
lower bound — dampratio 1, ``solimpfriction`` d = 0.9999; engines without such settings as they are).

Only open-loop profiles (the reference needs τ(t) without the state).
"""
from __future__ import annotations

import numpy as np

from crossdyn.analytic.stick_slip import simulate_stick_slip
from crossdyn.drive.runner import run_engine
from crossdyn.engines import make_engine
from crossdyn.inputs.profiles.base import held

V_STICK = 1e-4
"""rad/s: an engine's joint counts as stuck while |q̇| is below this."""

FLOOR_LOAD_FRACTION = 0.95
"""The creep-floor side run loads the joint with this fraction of f_c: the set-valued law still sticks (below
f_c), and the heaviest stick load a soft constraint creeps fastest under."""

FLOOR_RUN_S = 0.5
"""s: length of the creep-floor side run."""


def stiffest_friction(engine) -> str | None:
    """Set ``engine``'s dry-friction softness to the stiffest it allows and say what was set (None: it has no such
    setting).  MuJoCo's frictionloss constraint has reference a_ref = −b v with b = 2 / (d_max · timeconst) and
    impedance d; held below f_c it creeps at v = (1 − d) timeconst d_max a0 / (2 d) (a0: the unconstrained
    acceleration), least at timeconst = 2 dt (MuJoCo clamps lower values up to it) and d = 0.9999 (its maximum)."""
    model = getattr(engine, "model", None)
    if model is None or not hasattr(model, "dof_solref"):
        return None
    dt = float(model.opt.timestep)
    model.dof_solref[:] = (2 * dt, 1.0)
    model.dof_solimp[:, 0] = model.dof_solimp[:, 1] = 0.9999
    return f"solreffriction ({2 * dt:g}, 1), solimpfriction d = 0.9999"


class _HeldFrictionLoad:
    """τ = G(q) + 0.95 f_c,j e_j: the arm's gravity compensated, joint j loaded just below breakaway."""

    closed_loop = True
    name = "held-friction-load"

    def __init__(self, spec, joint: int, load: float):
        self.spec, self.joint, self.load, self.n = spec, joint, load, spec.n

    def __call__(self, t, q, qd):
        from crossdyn import analytic

        n = self.n
        tau = analytic.inverse_dynamics(self.spec, np.asarray(q, float)[None], np.zeros((1, n)),
                                        np.zeros((1, n)))[0]
        tau[self.joint] += self.load
        return tau

    def params(self):
        return {"name": self.name, "joint": self.joint + 1, "load_nm": self.load}


def creep_floor(engine, spec, q0, joint: int, duration: float = FLOOR_RUN_S) -> dict:
    """The engine's creep under a held load of 0.95 f_c on ``joint`` (index) from rest at ``q0``, gravity
    compensated: the set-valued law does not move.  {"rate_rad_s": |q_j(T) − q_j(T/2)| / (T/2) (after the
    constraint has taken up the load), "displacement_rad": |q_j(T) − q_j(0)|, "load_nm", "status"}."""
    from crossdyn.analytic.stick_slip import without_friction  # noqa: F401  (documents the law it departs from)

    load = FLOOR_LOAD_FRACTION * spec.links[joint].friction
    tr = run_engine(engine, _HeldFrictionLoad(spec, joint, load), np.asarray(q0, float), np.zeros(spec.n),
                    duration, saturate=False)
    if tr.status != "ok":
        return {"rate_rad_s": None, "displacement_rad": None, "load_nm": load, "status": f"{tr.status}: {tr.message}"}
    h = len(tr.q) // 2
    return {"rate_rad_s": float(abs(tr.q[-1, joint] - tr.q[h, joint]) / (tr.t[-1] - tr.t[h])),
            "displacement_rad": float(abs(tr.q[-1, joint] - tr.q[0, joint])), "load_nm": load, "status": "ok"}


def stuck_mask(qd) -> np.ndarray:
    """Sample k counts as stuck when |q̇| < :data:`V_STICK` at its start and its end (at rest over the step
    after it, as the reference's mode "in force just after t_k"; the last sample by itself): a run starting
    from rest is not stuck at t = 0 unless it stays."""
    slow = np.abs(np.asarray(qd, float)) < V_STICK
    out = slow.copy()
    out[:-1] &= slow[1:]
    return out


def measure_joint(run_t, run_q, run_qd, m: int, j: int, ref_iv, dt: float) -> dict:
    """The per-joint measures of one engine run (first ``m`` samples) against the reference's stick intervals."""
    stuck = stuck_mask(run_qd[:m, j])
    creep, vmax = 0.0, 0.0
    for a, b in ref_iv:
        i0, i1 = int(round(a / dt)), int(round(b / dt))
        if i1 >= m or i1 <= i0:
            continue
        creep = max(creep, abs(float(run_q[i1, j] - run_q[i0, j])))
        vmax = max(vmax, float(np.max(np.abs(run_qd[i0:i1 + 1, j]))))
    iv = intervals(stuck, run_t[:m])
    return {"joint": j + 1, "stick_intervals": len(iv), "stick_time_s": float(stuck.sum() * dt),
            "intervals_s": iv[:20], "creep_while_stuck_rad": creep, "max_speed_while_stuck_rad_s": vmax}


def intervals(mask: np.ndarray, t: np.ndarray) -> list[tuple[float, float]]:
    """Maximal runs of True in ``mask`` as (t_start, t_end) on the grid ``t`` (a run of one sample: zero length)."""
    out, start = [], None
    for i, m in enumerate(mask):
        if m and start is None:
            start = i
        elif not m and start is not None:
            out.append((float(t[start]), float(t[i - 1])))
            start = None
    if start is not None:
        out.append((float(t[start]), float(t[len(mask) - 1])))
    return out


def characterise_friction(spec, profile, q0, qd0, duration: float, dt: float = 1e-3,
                          engines=("mujoco", "pybullet"), reference=None, configure=None) -> dict:
    """Native stick–slip of each engine (names as for ``make_engine``) against the set-valued reference.
    ``configure(name, engine)``, if given, is applied to the engine of the run and of its dt/2 run (e.g.
    :func:`stiffest_friction`), and its return value, if any, recorded as ``configured``."""
    if getattr(profile, "closed_loop", True):
        raise ValueError(f"friction characterisation needs an open-loop profile, got {getattr(profile, 'name', profile)!r}")
    if reference is None:
        reference = simulate_stick_slip(spec, q0, qd0, duration, torque=lambda t: profile.sample(np.array([t]))[0],
                                        hold=dt, output_dt=dt)
    t = reference.t
    joints = [j for j, l in enumerate(spec.links) if l.friction > 0]
    ref_iv = {j: intervals(reference.sticking[:, j], t) for j in joints}
    out = {"reference": {"method": "set-valued Coulomb law, event-exact (simulate_stick_slip), torque held per step",
                         "joints": [{"joint": j + 1, "fc_nm": spec.links[j].friction,
                                     "stick_intervals": len(ref_iv[j]),
                                     "stick_time_s": float(reference.sticking[:, j].sum() * dt),
                                     "intervals_s": ref_iv[j][:20]} for j in joints],
                         "events": [list(e) for e in reference.events][:200]},
           "v_stick_rad_s": V_STICK, "engines": {}}
    for name in engines:
        try:
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
            floors, stiffest = {}, None
            with make_engine(name, spec, dt) as eng:
                stiffest = stiffest_friction(eng)
                for j in joints:
                    floors[j] = creep_floor(eng, spec, q0, j)
        except Exception as e:  # noqa: BLE001 — an engine that cannot run is reported, not raised
            out["engines"][name] = {"status": "failed", "reason": f"{type(e).__name__}: {e}"}
            continue
        m = min(len(run.q), len(t))
        rows, half_rows = [], []
        hq, hqd = half.q[::2], half.qd[::2]
        mh = min(len(hq), len(t))
        for j in joints:
            row = measure_joint(t, run.q, run.qd, m, j, ref_iv[j], dt)
            row["max_angle_difference_rad"] = float(np.max(np.abs(run.q[:m, j] - reference.q[:m, j])))
            row["creep_floor"] = floors[j]
            rows.append(row)
            if half.status == "ok":
                half_rows.append(measure_joint(t, hq, hqd, mh, j, ref_iv[j], dt))
        out["engines"][name] = {"status": run.status, "friction_model": model, "joints": rows, "configured": configured,
                                "half": half_rows if half.status == "ok" else None, "half_status": half.status,
                                "creep_floor_setting": stiffest or "as built (no softness setting)",
                                "timeline": {"t": t[:m], "stuck": stuck_mask(run.qd[:m][:, joints])}}
    out["reference"]["timeline"] = {"t": t, "stuck": reference.sticking[:, joints]}
    # the reference measured like an engine (|q̇| < V_STICK): how far the criterion alone moves its transitions
    out["reference"]["thresholded"] = [measure_joint(t, reference.q, reference.qd, len(t), j, ref_iv[j], dt)
                                       for j in joints]
    return out
