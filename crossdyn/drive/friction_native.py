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

Only open-loop profiles (the reference needs τ(t) without the state).
"""
from __future__ import annotations

import numpy as np

from crossdyn.analytic.stick_slip import simulate_stick_slip
from crossdyn.drive.runner import run_engine
from crossdyn.engines import make_engine

V_STICK = 1e-4
"""rad/s: an engine's joint counts as stuck while |q̇| is below this."""


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
                          engines=("mujoco", "pybullet"), reference=None) -> dict:
    """Native stick–slip of each engine (names as for ``make_engine``) against the set-valued reference."""
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
                                     "intervals_s": ref_iv[j][:20]} for j in joints]},
           "v_stick_rad_s": V_STICK, "engines": {}}
    for name in engines:
        try:
            with make_engine(name, spec, dt) as eng:
                run = run_engine(eng, profile, q0, qd0, duration)
                model = eng.config().get("coulomb_friction_model", eng.config().get("friction_model", ""))
        except Exception as e:  # noqa: BLE001 — an engine that cannot run is reported, not raised
            out["engines"][name] = {"status": "failed", "reason": f"{type(e).__name__}: {e}"}
            continue
        m = min(len(run.q), len(t))
        rows = []
        for j in joints:
            stuck = np.abs(run.qd[:m, j]) < V_STICK
            creep, vmax = 0.0, 0.0
            for a, b in ref_iv[j]:
                i0, i1 = int(round(a / dt)), int(round(b / dt))
                if i1 >= m or i1 <= i0:
                    continue
                creep = max(creep, abs(float(run.q[i1, j] - run.q[i0, j])))
                vmax = max(vmax, float(np.max(np.abs(run.qd[i0:i1 + 1, j]))))
            rows.append({"joint": j + 1, "stick_intervals": len(intervals(stuck, t[:m])),
                         "stick_time_s": float(stuck.sum() * dt),
                         "creep_while_stuck_rad": creep, "max_speed_while_stuck_rad_s": vmax,
                         "max_angle_difference_rad": float(np.max(np.abs(run.q[:m, j] - reference.q[:m, j])))})
        out["engines"][name] = {"status": run.status, "friction_model": model, "joints": rows}
    return out
