"""Stick intervals of one run (native Coulomb friction): when a joint counts as stuck, and the per-joint measures
of an engine's run against the set-valued reference's stick intervals.

An engine's joint counts as stuck over step k while |q̇_j| < :data:`V_STICK` (1e-4 rad/s: far below the
profile's speeds, far above a stuck joint's round-off) at the step's start and end.  Per joint with f_c > 0
(:func:`measure_joint`): the stick intervals (count, total time = samples × dt, their ends), and the **creep
while stuck**: over the reference's stick intervals, the largest displacement |q_j(t_end) − q_j(t_start)| (rad)
and the largest |q̇_j| (rad/s) — zero for an exact stick.
"""
from __future__ import annotations

import numpy as np

V_STICK = 1e-4
"""rad/s: an engine's joint counts as stuck while |q̇| is below this."""

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




def stuck_intervals(spec, law, traj, native: bool = True) -> list[dict]:
    """The stick intervals of one run, per joint with f_c > 0, measured by the threshold (:func:`stuck_mask`):
    {"joint", "stick_intervals", "stick_time_s", "intervals_s"}.  ``law`` and ``native`` are not used (the
    per-run signature every phenomenon shares: an engine's run and a reference are measured alike here)."""
    t, qd = np.asarray(traj.t), np.asarray(traj.qd)
    dt = float(traj.dt)
    out = []
    for j, link in enumerate(spec.links):
        if link.friction <= 0:
            continue
        stuck = stuck_mask(qd[:, j])
        iv = intervals(stuck, t[:len(stuck)])
        out.append({"joint": j + 1, "stick_intervals": len(iv), "stick_time_s": float(stuck.sum() * dt),
                    "intervals_s": iv[:20]})
    return out
