"""Per limit contact characterisation (issue 12): every run with a limit law, applied or native, measured alike.

A *contact* is a maximal interval in which joint j is at or beyond one of its limits (q_j > hi_j − 1e-5 or
q_j < lo_j + 1e-5, :data:`TOUCH_RAD`);
gaps shorter than ``merge_s`` (default 10 ms) are merged, so a hard stop chattering at the boundary counts
once.  Per contact:

- ``max_penetration_rad``: max |q_j − limit| inside the contact;
- ``peak_torque_nm``: max |τ_lim,j|;
- ``time_in_contact_s``: t_exit − t_enter (a contact still open at the end is cut there, ``open`` true);
- ``rebound_ratio``: |q̇_j(exit)| / |q̇_j(entry)| (the coefficient of restitution; None while open);
- ``energy_absorbed_j``: −∫ τ_lim,j q̇_j dt over the contact (the work the stop takes out of the joint;
  > 0 dissipated, 0 for a lossless spring that lets go where it caught).

τ_lim is what the limit applied: in applied mode and for the reference the law's own torque
(:meth:`LimitLaw.torque`) at the sampled states; in native mode the engine's constraint torque is not
reported alike by every engine, so it is *inferred* from the motion by the equation of motion,
τ_lim = M q̈ + C q̇ + G + F − τ (analytic inverse dynamics, q̈ = (q̇_{k+1} − q̇_k)/dt over step k).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from crossdyn.analytic.laws.limit import LimitLaw

QUANTITIES = ("max_penetration_rad", "peak_torque_nm", "time_in_contact_s", "rebound_ratio", "energy_absorbed_j")


def law_torque(law: LimitLaw, q, qd) -> np.ndarray:
    """τ_lim on every sample of (q, q̇) from the law itself (applied mode and reference)."""
    return law.torque(q, qd)


def inferred_torque(spec, traj, inverse=None) -> np.ndarray:
    """τ_lim inferred from a run by inverse dynamics: M q̈ + C q̇ + G + F − τ at each step's start (K rows;
    the last sample repeats the one before).  ``inverse(q, q̇, q̈)``: the model's M q̈ + C q̇ + G + F on rows
    (default the planar arm's analytic inverse dynamics of ``spec``; a robot file's: crossdyn's spatial RNEA plus
    its damping, :func:`crossdyn.robotcompare.limits.inferred_limit_torque`)."""
    q, qd, tau = np.asarray(traj.q), np.asarray(traj.qd), np.asarray(traj.tau)
    k = min(len(q) - 1, len(tau))
    if not k:
        return np.zeros_like(q)
    if inverse is None:
        from crossdyn import analytic

        def inverse(q, qd, qdd):
            return analytic.inverse_dynamics(spec, q, qd, qdd)
    qdd = (qd[1:k + 1] - qd[:k]) / traj.dt
    lim = np.asarray(inverse(q[:k], qd[:k], qdd), dtype=float).reshape(k, q.shape[1]) - tau[:k]
    return np.vstack([lim, lim[-1:]])


TOUCH_RAD = 1e-5
"""A joint within this of a limit counts as at it: a rigid stop never goes beyond it (Drake's discrete plant
stops planar2r-limits' joints 2.5e-7 and 1.8e-6 rad short of their limits)."""


def contacts(law: LimitLaw, t, q, qd, tau_lim, merge_s: float = 0.01, touch: float = TOUCH_RAD) -> list[dict]:
    """Every limit contact of a run (see the module docstring), ordered by joint, side, entry time."""
    t, q, qd, tau_lim = (np.asarray(a, dtype=float) for a in (t, q, qd, tau_lim))
    m = min(len(t), len(q), len(qd), len(tau_lim))
    t, q, qd, tau_lim = t[:m], q[:m], qd[:m], tau_lim[:m]
    dt = float(t[1] - t[0]) if m > 1 else 1.0
    out: list[dict[str, Any]] = []
    for j in range(q.shape[1]):
        for side, bound in (("upper", law.upper[j]), ("lower", law.lower[j])):
            if not np.isfinite(bound):
                continue
            pen = (q[:, j] - bound) if side == "upper" else (bound - q[:, j])
            beyond = np.nonzero(pen > -touch)[0]
            if not len(beyond):
                continue
            breaks = np.nonzero(np.diff(beyond) * dt > merge_s)[0]
            starts = np.concatenate([[beyond[0]], beyond[breaks + 1]])
            ends = np.concatenate([beyond[breaks], [beyond[-1]]])
            for a, b in zip(starts, ends, strict=False):
                i0 = max(a - 1, 0)              # last sample inside: the entry state
                i1 = min(b + 1, m - 1)          # first sample back inside: the exit state
                open_ = b + 1 >= m
                sl = slice(i0, i1 + 1)
                power = tau_lim[sl, j] * qd[sl, j]
                v_in = abs(qd[i0, j])
                out.append({"joint": j + 1, "side": side, "t_enter_s": float(t[i0]), "t_exit_s": float(t[i1]),
                            "open": bool(open_),
                            "max_penetration_rad": max(float(pen[a:b + 1].max()), 0.0),
                            "peak_torque_nm": float(np.abs(tau_lim[a:b + 1, j]).max()),
                            "time_in_contact_s": float(t[i1] - t[i0]),
                            "rebound_ratio": (float(abs(qd[i1, j]) / v_in) if not open_ and v_in > 0 else None),
                            "energy_absorbed_j": float(-np.trapezoid(power, t[sl]))})
                c = out[-1]  # the stop's measured softness: peak torque over the penetration it took
                c["effective_stiffness_nm_per_rad"] = (c["peak_torque_nm"] / c["max_penetration_rad"]
                                                       if c["max_penetration_rad"] > TOUCH_RAD else None)
    return out


def reference_law_torque(spec, traj, friction=None) -> np.ndarray:
    """Per step k (K rows), the torque of the laws other than the limit as the reference has them, from the run's
    own state at the step's start: the applied Coulomb law ``friction`` (φ(q̇_k), or none) plus the spec's tip
    contact law (J_cᵀ F from the analytic kinematics, :meth:`ContactLaw.torque`, its force held for ``traj.dt``)."""
    from crossdyn.analytic.laws.contact import ContactLaw

    q, qd = np.asarray(traj.q, dtype=float), np.asarray(traj.qd, dtype=float)
    k = min(len(q) - 1, len(traj.tau))
    out = np.zeros((k, q.shape[1]))
    if friction is not None:
        out += friction.torque(qd[:k])
    contact = ContactLaw.of(spec, dt=traj.dt) if getattr(spec, "has_contact", False) else None
    if contact is not None:
        p = spec.params()
        for i in range(k):
            out[i] += contact.torque(p, q[i], qd[i])
    return out


def torque_away_from_limits(spec, law: LimitLaw, traj, friction=None) -> list[float | None]:
    """Per joint, max |τ_lim| over the steps k whose both ends q_k, q_{k+1} lie inside the joint's limits by more
    than :data:`TOUCH_RAD` (None: no such step, or no limit on that joint), with τ_lim inferred against the
    reference's physics: M q̈ + C q̇ + G + B q̇ − τ_cmd − (the other laws' torque from the state,
    :func:`reference_law_torque`), τ_cmd the commanded torque (the run's ``tau`` less the ``law_torque`` the
    runner recorded).

    The law acts only at or beyond its bound, so away from it this is the inference's own error — round-off for a
    semi-implicit Euler step, whose q̈ is what the finite difference recovers — plus whatever departs from the
    reference's physics there: a native limit run without the applied Coulomb law shows ±f_c (issue 23), and a
    native stop that acts before its bound shows its torque (Drake's discrete SAP limit brakes a joint over the
    last few 1e-4 rad: tens of N m on issue 23's case-3 arm)."""
    q, qd = np.asarray(traj.q, dtype=float), np.asarray(traj.qd, dtype=float)
    k = min(len(q) - 1, len(traj.tau))
    if k < 1:
        return [None] * q.shape[1]
    from crossdyn import analytic

    commanded = np.asarray(traj.tau, dtype=float)[:k]
    recorded = (traj.info or {}).get("law_torque")
    if recorded is not None:
        commanded = commanded - np.asarray(recorded, dtype=float)[:k]
    qdd = (qd[1:k + 1] - qd[:k]) / traj.dt
    tau_lim = (analytic.inverse_dynamics(spec, q[:k], qd[:k], qdd) - commanded
               - reference_law_torque(spec, traj, friction))
    out: list[float | None] = []
    for j in range(q.shape[1]):
        lo, hi = law.lower[j], law.upper[j]
        if not (np.isfinite(lo) or np.isfinite(hi)):
            out.append(None)
            continue
        inside = (q[:k + 1, j] > lo + TOUCH_RAD) & (q[:k + 1, j] < hi - TOUCH_RAD)
        steps = inside[:-1] & inside[1:]
        out.append(float(np.max(np.abs(tau_lim[steps, j]))) if steps.any() else None)
    return out


def characterise(spec, law: LimitLaw, traj, native: bool) -> list[dict]:
    """The contacts of one engine run (``native``: τ_lim inferred, else the law's torque at the samples)."""
    tau_lim = inferred_torque(spec, traj) if native else law_torque(law, traj.q, traj.qd)
    return contacts(law, traj.t, traj.q, traj.qd, tau_lim)
