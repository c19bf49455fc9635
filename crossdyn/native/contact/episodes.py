"""Per contact-episode characterisation of the tip's contact (issue 13): every run, reference or native, alike.

The law (:mod:`crossdyn.analytic.laws.contact`): a sphere of radius r at the tip, penetration δ = r − (x_tip − a)·n
per obstacle, normal force F_n = max(0, k δ + c δ̇) while δ > 0.

An *episode* is a maximal interval with δ > 0 against one obstacle (gaps shorter than ``merge_s``, default
2 ms, merged: a contact chattering at the surface counts once).  Entry and exit times are where δ crosses 0,
interpolated linearly between samples.  Per episode:

- ``max_penetration_m``: max δ;
- ``peak_normal_force_n``: max F_n;
- ``duration_s``: t_exit − t_enter (an episode still open at the end is cut there, ``open`` true);
- ``restitution``: −δ̇(exit) / δ̇(entry), the normal separation speed over the normal impact speed, at the samples
  just outside the episode (None while open);
- ``impulse_ns``: ∫ F_n dt;
- ``energy_dissipated_j``: the energy the contact took out of the arm between the samples just before and just
  after the episode, by the work–energy balance (:func:`energy_lost`; the spring stores nothing at either end,
  so for the law this is ∫ c δ̇² dt plus the clipped and friction terms of
  :meth:`~crossdyn.analytic.laws.contact.ContactLaw.dissipation_rate`);
- ``path_deviation_m``: max |x_tip − x_tip,ref| over the episode, when a reference run is given.

F_n (and F_t) is what the contact applied: for the law's runs the law itself at the sampled states; for native
runs the engine's contact force is not reported alike by every engine, so it is *inferred* from the motion: the
contact torque τ_c = M q̈ + C q̇ + G + F − τ (analytic inverse dynamics, q̈ = (q̇_{k+1} − q̇_k)/dt) solved for
(F_n, F_t) from τ_c = J_tipᵀ (F_n n + F_t t) − r F_t (least squares; F_t only when μ > 0) — the force held over
step k, exact for a semi-implicit Euler engine.

The law's own runs (the reference and the integration-error estimate) are in :mod:`crossdyn.native.contact.reference`;
native episodes are judged by :func:`crossdyn.native.contact.verdict.judge` (the law restarted at the engine's
own pre-contact state), with the engine's measured softness (:func:`crossdyn.native.contact.softness.probe_softness`).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from crossdyn.analytic.laws.contact import ContactLaw
from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian
from crossdyn.native.experiment import legacy_form

QUANTITIES = ("max_penetration_m", "peak_normal_force_n", "duration_s", "restitution", "impulse_ns",
              "energy_dissipated_j")


class TipMotion(NamedTuple):
    """The tip's motion over a run: ``tips`` (K, 2), penetration ``delta`` and its rate ``dd`` (K, m), and the
    contact point's slip velocity ``vt`` (K, m), per obstacle."""

    tips: np.ndarray
    delta: np.ndarray
    dd: np.ndarray
    vt: np.ndarray


class Forces(NamedTuple):
    """The contact's normal and tangential forces ``fn``, ``ft`` per sample and obstacle (K, m)."""

    fn: np.ndarray
    ft: np.ndarray


def tip_motion(spec, law: ContactLaw, q, qd) -> TipMotion:
    """(tips (K, 2), δ (K, m), δ̇ (K, m), slip velocity v_t of the contact point (K, m)) from the analytic
    kinematics."""
    p = spec.params()
    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    tips = end_effector(p, q)
    v = np.einsum("kij,kj->ki", end_effector_jacobian(p, q), qd)
    delta = law.penetration(tips)
    dd = -v @ law.normals.T
    omega = qd.sum(axis=1)
    vt = v @ law.tangents.T - omega[:, None] * law.radius
    return TipMotion(tips, delta, dd, vt)


def law_forces(spec, law: ContactLaw, q, qd) -> Forces:
    """(F_n, F_t) per sample and obstacle from the law itself (shape (K, m) each)."""
    _, delta, dd, vt = tip_motion(spec, law, q, qd)
    fn = law.normal_force(delta, dd)
    ft = -law.friction * fn * np.tanh(vt / law.slip_velocity) if law.friction > 0 else np.zeros_like(fn)
    return Forces(fn, ft)


def inferred_forces(spec, law: ContactLaw, traj) -> Forces:
    """(F_n, F_t) held over each step, inferred from a run by inverse dynamics (module docstring).  Shape (K+1, m):
    the last sample repeats the one before.  Per step only the obstacles the tip touches at the step's start or
    end share the force (least squares over their columns)."""
    from crossdyn import analytic

    p = spec.params()
    q, qd, tau = np.asarray(traj.q), np.asarray(traj.qd), np.asarray(traj.tau)
    k = min(len(q) - 1, len(tau))
    m = len(law.points)
    fn, ft = np.zeros((len(q), m)), np.zeros((len(q), m))
    if k == 0:
        return Forces(fn, ft)
    qdd = (qd[1:k + 1] - qd[:k]) / traj.dt
    tau_c = analytic.inverse_dynamics(spec, q[:k], qd[:k], qdd) - tau[:k]
    J = end_effector_jacobian(p, q[:k])
    _, delta, _, _ = tip_motion(spec, law, q, qd)
    touching = (delta[:k] > 0) | (delta[1:k + 1] > 0)
    for s in np.nonzero(touching.any(axis=1))[0]:
        obs = np.nonzero(touching[s])[0]
        cols = [J[s].T @ law.normals[i] for i in obs]
        if law.friction > 0:
            cols += [J[s].T @ law.tangents[i] - law.radius for i in obs]
        x, *_ = np.linalg.lstsq(np.stack(cols, axis=1), tau_c[s], rcond=None)
        fn[s, obs] = x[:len(obs)]
        if law.friction > 0:
            ft[s, obs] = x[len(obs):]
    fn[k:], ft[k:] = fn[k - 1], ft[k - 1]
    return Forces(fn, ft)


def _crossing(t, g, i):
    """Time where g crosses 0 between samples i and i + 1 (linear interpolation)."""
    if g[i] == g[i + 1]:
        return float(t[i])
    return float(t[i] + (t[i + 1] - t[i]) * g[i] / (g[i] - g[i + 1]))


def _episodes_pack(a: dict) -> tuple:
    motion = TipMotion(a.pop("tips"), a.pop("delta"), a.pop("dd"), a.pop("vt"))
    return (a.pop("law"), a.pop("t"), motion, Forces(a.pop("fn"), a.pop("ft"))), a


@legacy_form(("law", "t", "tips", "delta", "dd", "vt", "fn", "ft", "ref_tips", "merge_s", "loss"), 8, _episodes_pack,
             marker=TipMotion, at=2)
def episodes(law: ContactLaw, t, motion: TipMotion, forces: Forces, ref_tips=None, merge_s: float = 0.002,
             loss=None) -> list[dict]:
    """Every contact episode of a run (see the module docstring), ordered by obstacle, then entry time:
    ``motion`` (:func:`tip_motion`) and ``forces`` (the law's or inferred) on the samples ``t``; ``ref_tips``
    the reference's tip path, ``loss`` the energy lost by each sample (:func:`energy_lost`)."""
    tips, delta, dd, vt = motion
    fn, ft = forces
    t = np.asarray(t, dtype=float)
    K = min(len(t), len(delta), len(fn))
    out = []
    for j in range(delta.shape[1]):
        d = delta[:K, j]
        inside = np.nonzero(d > 0)[0]
        if not len(inside):
            continue
        dt = float(t[1] - t[0]) if K > 1 else 1.0
        breaks = np.nonzero(np.diff(inside) * dt > merge_s)[0]
        starts = np.concatenate([[inside[0]], inside[breaks + 1]])
        ends = np.concatenate([inside[breaks], [inside[-1]]])
        for n_ep, (a, b) in enumerate(zip(starts, ends, strict=False), start=1):
            i0, i1 = max(a - 1, 0), min(b + 1, K - 1)
            open_ = b + 1 >= K
            t_in = _crossing(t, d, i0) if a > 0 else float(t[0])
            t_out = float(t[K - 1]) if open_ else _crossing(t, d, b)
            sl = slice(i0, i1 + 1)
            v_in = dd[i0, j]
            row: dict[str, Any] = {"obstacle": j + 1, "episode": n_ep, "start_sample": int(i0), "t_enter_s": t_in, "t_exit_s": t_out,
                   "open": bool(open_),
                   "max_penetration_m": float(d[a:b + 1].max()),
                   "peak_normal_force_n": float(fn[a:b + 1, j].max()),
                   "duration_s": t_out - t_in,
                   "restitution": (float(-dd[i1, j] / v_in) if not open_ and v_in > 0 else None),
                   "impulse_ns": float(np.trapezoid(fn[sl, j], t[sl])),
                   "energy_dissipated_j": float(loss[i1] - loss[i0]) if loss is not None else
                   float(np.trapezoid(fn[sl, j] * dd[sl, j] - ft[sl, j] * vt[sl, j], t[sl])),
                   "impact_speed_m_s": float(v_in)}
            # what one sample interval can hide (the judge's resolution floor): entry and exit each within a
            # step, the impulse's force over one step, the speeds one step either side of the touch and release
            dv_in = abs(dd[i0, j] - dd[i0 - 1, j]) if i0 > 0 else 0.0
            dv_out = abs(dd[min(i1 + 1, K - 1), j] - dd[i1, j])
            row["resolution"] = {"duration_s": dt, "impulse_ns": row["peak_normal_force_n"] * dt,
                                 "restitution": ((dv_out + dv_in * abs(row["restitution"])) / v_in
                                                 if row["restitution"] is not None else 0.0)}
            if ref_tips is not None:
                m = min(len(ref_tips), i1 + 1)
                diff = np.linalg.norm(tips[i0:m] - ref_tips[i0:m], axis=1) if m > i0 else np.array([np.nan])
                row["path_deviation_m"] = float(np.max(diff))
            out.append(row)
    return out


def characterise(spec, law: ContactLaw, traj, native: bool, reference=None) -> list[dict]:
    """The episodes of one run (``native``: forces inferred, else the law's at the samples); ``reference``: a
    run on the same grid whose tip path the deviation is measured against."""
    motion = tip_motion(spec, law, traj.q, traj.qd)
    forces = inferred_forces(spec, law, traj) if native else law_forces(spec, law, traj.q, traj.qd)
    ref_tips = None if reference is None else end_effector(spec.params(), np.asarray(reference.q))
    return episodes(law, traj.t, motion, forces, ref_tips, loss=energy_lost(spec, traj))


def energy_lost(spec, traj) -> np.ndarray:
    """L_k = W_τ(0 → t_k) − (E(t_k) − E(0)) − ∫ b q̇² dt: the energy the contact has taken out of the arm by
    sample k (work–energy balance; E = T + U analytic, W_τ = Σ τ_k·(q_{k+1} − q_k) for the torque held over each
    step, joint damping by the trapezoid).  Between two samples outside contact (no stored spring energy) its
    increase is the energy the contact dissipated, independent of how the force is sampled or inferred."""
    from crossdyn.analytic.energy import total_energy

    q, qd, tau = np.asarray(traj.q), np.asarray(traj.qd), np.asarray(traj.tau)
    E = total_energy(spec, q, qd)
    k = min(len(q) - 1, len(tau))
    work = np.concatenate([[0.0], np.cumsum(np.einsum("ki,ki->k", tau[:k], np.diff(q[:k + 1], axis=0)))])
    b = spec.params().b
    pd = np.einsum("ki,i,ki->k", qd, b, qd)
    damp = np.concatenate([[0.0], np.cumsum(0.5 * (pd[1:] + pd[:-1]) * np.diff(np.asarray(traj.t[:len(q)])))])
    out = np.full(len(q), np.nan)
    out[:k + 1] = work - (E[:k + 1] - E[0]) - damp[:k + 1]
    return out


def path_deviation(spec, traj, reference) -> float:
    """max |x_tip − x_tip,ref| over the common samples (m)."""
    p = spec.params()
    m = min(len(traj.q), len(reference.q))
    tips, ref_tips = end_effector(p, np.asarray(traj.q[:m])), end_effector(p, np.asarray(reference.q[:m]))
    return float(np.max(np.linalg.norm(tips - ref_tips, axis=1)))


