"""Applied contact: what a run with the tip contact law did, and how well an engine's tip kinematics agree.

A run of an arm with ``[contact]`` (:mod:`crossdyn.drive.runner`) records per step k, from the engine's own tip
kinematics at the step's start, the tip x_k, ẋ_k and per obstacle F_n, F_t, δ, δ̇ and the joint torque τ_c,k
held over the step (``Trajectory.info["contact"]``).  :func:`characterise` turns that into

* ``first_touch_s`` — t_k of the first step with δ > 0 (any obstacle; None: never touched);
* ``max_penetration_m``, ``peak_normal_force_n`` — max δ, max F_n over the steps;
* ``time_in_contact_s`` — dt × the steps with δ > 0; ``contacts`` — the number of such intervals;
* ``impulse_n_s`` — Σ F_n,k dt: the normal impulse of the held force (exact for a zero-order hold);
* ``dissipated_j`` — D = Σ dD/dt(δ_k, δ̇_k, F_t,k, v_t,k) dt with dD/dt of
  :meth:`crossdyn.analytic.laws.contact.ContactLaw.dissipation_rate` (c δ̇² unclipped, −k δ δ̇ clipped, −F_t v_t);
* ``contact_work_j`` — W_c = Σ τ_c,k·(q_{k+1} − q_k), the exact work of the held contact torque on the arm;
* ``balance_residual_j`` — max_t |W_c(t) + V(t) + D(t)| with V = ½ k δ²: the continuous law's balance
  E_arm + V + D = const says W_c = −(V + D); held over steps of dt it closes to O(dt) (shown, not judged).

:func:`tip_fk_errors` measures an engine's tip kinematics against crossdyn's analytic ones
(:mod:`crossdyn.analytic.kinematics`), at given states and along a run.
"""
from __future__ import annotations

import math

import numpy as np

from crossdyn.analytic.laws.contact import ContactLaw, effective_mass
from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian

FK_TOLERANCE_REL = 1e-9
"""Tip kinematics: allowed discrepancy relative to the arm's reach (m, m/s per rad/s, m/rad).  Forward
kinematics is a few products of exact geometry: measured ≤ 1.1e-14 m on every engine (rounding); 1e-9 is the
relative bound the dynamics metrics use (inverse dynamics, mass matrix)."""


def _intervals(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) index ranges where ``mask`` is true."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.nonzero(edges == 1)[0].tolist(), np.nonzero(edges == -1)[0].tolist()))


def characterise(law: ContactLaw, traj) -> dict | None:
    """The contact quantities of one run (see the module docstring), or None when it recorded no contact."""
    c = (traj.info or {}).get("contact")
    if c is None:
        return None
    K = len(c["normal_force"])
    dt = float(traj.dt)
    delta, ddot = c["penetration"], c["penetration_rate"]
    fn, ft = c["normal_force"], c["tangential_force"]
    touching = np.any(delta > 0.0, axis=1)
    # the contact point's slip velocity v_t = t·ẋ_tip − ω r (ω = Σ q̇), per obstacle
    omega = traj.qd[:K].sum(axis=1)
    vt = c["tip_velocity"] @ law.tangents.T - omega[:, None] * law.radius
    rate = np.array([law.dissipation_rate(delta[k], ddot[k], ft[k], vt[k]) for k in range(K)])
    D = np.concatenate([[0.0], np.cumsum(rate * dt)])
    dq = np.diff(traj.q[: K + 1], axis=0)
    Wc = np.concatenate([[0.0], np.cumsum(np.sum(c["torque"][: len(dq)] * dq, axis=1))])
    V = np.array([law.stored_energy(d) for d in delta] + [law.stored_energy(delta[-1]) if K else 0.0])
    n = min(len(Wc), len(V), len(D))
    first = int(np.argmax(touching)) if touching.any() else None
    return {
        "first_touch_s": None if first is None else float(traj.t[first]),
        "max_penetration_m": float(np.max(delta)) if K else None,
        "peak_normal_force_n": float(np.max(fn)) if K else None,
        "peak_tangential_force_n": float(np.max(np.abs(ft))) if K else None,
        "time_in_contact_s": float(np.count_nonzero(touching) * dt),
        "contacts": len(_intervals(touching)),
        "impulse_n_s": float(np.sum(fn) * dt),
        "dissipated_j": float(D[-1]),
        "contact_work_j": float(Wc[-1]),
        "balance_residual_j": float(np.max(np.abs(Wc[:n] + V[:n] + D[:n]))) if n else None,
    }


def tip_fk_errors(engine, params, q, qd) -> dict:
    """Max |x − x_analytic|, |ẋ − ẋ_analytic|, |J − J_analytic| of ``engine.tip_kinematics(q_i, q̇_i)`` over the
    states (q, q̇ of shape (N, n))."""
    ex = ev = eJ = 0.0
    for qi, vi in zip(np.atleast_2d(q), np.atleast_2d(qd)):
        x, v, J = engine.tip_kinematics(qi, vi)
        Ja = end_effector_jacobian(params, qi)
        ex = max(ex, float(np.max(np.abs(x - end_effector(params, qi)))))
        ev = max(ev, float(np.max(np.abs(v - Ja @ vi))))
        eJ = max(eJ, float(np.max(np.abs(J - Ja))))
    return {"position_m": ex, "velocity_m_s": ev, "jacobian_m": eJ}


def run_fk_errors(params, traj) -> dict | None:
    """Along a run: the tip the engine reported each step against the analytic tip of its own state."""
    c = (traj.info or {}).get("contact")
    if c is None or not len(c["tip"]):
        return None
    K = len(c["tip"])
    q, qd = traj.q[:K], traj.qd[:K]
    x = end_effector(params, q)
    v = np.einsum("kij,kj->ki", end_effector_jacobian(params, q), qd)
    return {"position_m": float(np.max(np.abs(c["tip"] - x))),
            "velocity_m_s": float(np.max(np.abs(c["tip_velocity"] - v)))}



def held_law_coarseness(spec, law: ContactLaw, reference) -> dict:
    """How coarse the held law is at this dt, over the reference run's contact steps:

    * ``omega_dt`` = max sqrt(k / m_n) dt, m_n the effective mass along the obstacle's normal (the undamped
      contact frequency times the step; the limit law's heuristic: > 0.1 means far from the continuous law);
    * ``friction_step`` = max dt μ F_n / (v_s m_t), m_t along the tangent (v_s = max(slip_velocity,
      force_slip F_n), :meth:`ContactLaw.of`): the held regularised friction is an
      explicit damper of slope μ F_n / v_s, monotone (no overshoot of v_t = 0) only while this is ≤ 1.
    """
    c = (reference.info or {}).get("contact")
    out: dict[str, float | int | None] = {"omega_dt": None, "friction_step": None, "contact_steps": 0}
    if c is None:
        return out
    dt = float(reference.dt)
    ks, js = np.nonzero(c["penetration"] > 0.0)
    out["contact_steps"] = int(len(np.unique(ks)))
    if not len(ks):
        return out
    wdt, fstep = 0.0, 0.0
    # every contact step would be exact but costly on long runs; 400 evenly spread suffice for a heuristic
    pick = np.unique(np.linspace(0, len(ks) - 1, min(len(ks), 400)).astype(int))
    for k, j in zip(ks[pick], js[pick]):
        q = reference.q[k]
        wdt = max(wdt, math.sqrt(law.stiffness / effective_mass(spec, q, law.normals[j])) * dt)
        if law.friction > 0:
            mt = effective_mass(spec, q, law.tangents[j])
            fn = float(c["normal_force"][k, j])
            fstep = max(fstep, dt * law.friction * fn / (max(law.slip_velocity, law.force_slip * fn) * mt))
    out["omega_dt"] = wdt
    out["friction_step"] = fstep if law.friction > 0 else None
    return out
