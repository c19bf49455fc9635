"""Per contact-episode characterisation of the tip's contact (issue 13): every run, reference or native, alike.

The law (:mod:`crossdyn.analytic.contact`): a sphere of radius r at the tip, penetration δ = r − (x_tip − a)·n
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
  so for the law this is ∫ c δ̇² dt plus the clipped and friction terms of :meth:`ContactLaw.dissipation_rate`);
- ``path_deviation_m``: max |x_tip − x_tip,ref| over the episode, when a reference run is given.

F_n (and F_t) is what the contact applied: for the law's runs the law itself at the sampled states; for native
runs the engine's contact force is not reported alike by every engine, so it is *inferred* from the motion: the
contact torque τ_c = M q̈ + C q̇ + G + F − τ (analytic inverse dynamics, q̈ = (q̇_{k+1} − q̇_k)/dt) solved for
(F_n, F_t) from τ_c = J_tipᵀ (F_n n + F_t t) − r F_t (least squares; F_t only when μ > 0) — the force held over
step k, exact for a semi-implicit Euler engine.

The reference (:func:`exact_run`): the event-exact ``simulate_contact`` of :mod:`crossdyn.analytic.contact` where
main has it and the profile is open loop; else :func:`law_run`, the analytic model with the law, RK4 at
dt/``substeps`` with every switch of the law (touch, release, clip) located inside its substep (Brent), the
profile's torque held over each dt.  Native episodes are judged by :func:`judge` (the law restarted at the
engine's own pre-contact state, :func:`restarted`), with the engine's measured softness (:func:`probe_softness`).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from crossdyn.analytic.contact import ContactLaw
from crossdyn.analytic.integrators import Trajectory, n_steps
from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian

QUANTITIES = ("max_penetration_m", "peak_normal_force_n", "duration_s", "restitution", "impulse_ns",
              "energy_dissipated_j")
SOFTNESS_ORDER = {"energy_dissipated_j": 2.0}
"""How many times the relative force departure ε a quantity's allowance takes: 1, but 2 for the energy dissipated
(a product of force and displacement, each moved by ~ε)."""
SOFTNESS_LIMIT = 0.05
"""A native contact whose force departs from the law by more than this (relative, at the probe states) is not the
law's contact: that departure itself fails, and it is not used as an allowance."""


# ---------------------------------------------------------------------------------------------- the law's runs
class _ScalarLaw:
    """The law's joint torque and switching functions on plain floats (the reference calls them ~10⁵ times):
    the same equations as :meth:`ContactLaw.torque` (checked against it in the tests)."""

    def __init__(self, spec, law: ContactLaw):
        self.L = [float(x) for x in spec.params().L]
        self.n = len(self.L)
        self.k, self.c, self.mu, self.r, self.vs = (law.stiffness, law.damping, law.friction, law.radius,
                                                    law.slip_velocity)
        self.obs = [(float(a[0]), float(a[1]), float(nv[0]), float(nv[1]))
                    for a, nv in zip(law.points, law.normals)]
        self.touched = False

    def _kin(self, q, qd):
        th, x, y, cols, w = 0.0, 0.0, 0.0, [], 0.0
        segs = []
        for i in range(self.n):
            th += q[i]
            segs.append((self.L[i] * math.cos(th), self.L[i] * math.sin(th)))
            x += segs[-1][0]
            y += segs[-1][1]
        rx = ry = 0.0
        for i in range(self.n - 1, -1, -1):  # column i = Σ_{j ≥ i} L_j (−sin θ_j, cos θ_j)
            rx -= segs[i][1]
            ry += segs[i][0]
            cols.append((rx, ry))
        cols.reverse()
        vx = sum(cx * v for (cx, _), v in zip(cols, qd))
        vy = sum(cy * v for (_, cy), v in zip(cols, qd))
        w = sum(qd)
        return x, y, vx, vy, w, cols

    def torque(self, q, qd):
        x, y, vx, vy, w, cols = self._kin(q, qd)
        fx = fy = mom = 0.0
        for ax, ay, nx, ny in self.obs:
            d = self.r - ((x - ax) * nx + (y - ay) * ny)
            if d <= 0.0:
                continue
            self.touched = True
            fn = self.k * d - self.c * (vx * nx + vy * ny)
            if fn <= 0.0:
                continue
            fx += fn * nx
            fy += fn * ny
            if self.mu > 0.0:
                tx, ty = -ny, nx
                ft = -self.mu * fn * math.tanh((vx * tx + vy * ty - w * self.r) / self.vs)
                fx += ft * tx
                fy += ft * ty
                mom -= self.r * ft
        return [cx * fx + cy * fy + mom for cx, cy in cols]

    def mode(self, q, qd) -> list:
        x, y, vx, vy, _, _ = self._kin(q, qd)
        g = []
        for ax, ay, nx, ny in self.obs:
            d = self.r - ((x - ax) * nx + (y - ay) * ny)
            g.append((d, self.k * d - self.c * (vx * nx + vy * ny)))
        return [a for a, _ in g] + [b for _, b in g]


def law_run(spec, profile, q0, qd0, duration: float, dt: float = 1e-3, scheme: str = "rk4", substeps: int = 10,
            locate: bool = True, law: ContactLaw | None = None) -> Trajectory:
    """The arm under ``profile`` with the contact law, sampled every ``dt``.

    ``scheme="rk4"`` with ``locate`` (the reference): RK4 on the continuous law, one step of dt wherever no stage
    touches an obstacle, else ``substeps`` substeps in each of which a switch of the law (touch, release, clip)
    is located (Brent, to 1e-13 s) and stepped to first.  Without ``locate`` (and
    ``substeps=1``): plain RK4 at dt with the law at every stage, as MuJoCo's RK4 does with its contacts.
    ``scheme="semi-implicit-euler"``: the law held over each dt, as an engine with semi-implicit Euler and its
    contact force computed at the step's start (MuJoCo's Euler) or crossdyn's applied mode do.
    ``scheme="implicit-contact"``: semi-implicit Euler with the normal force solved implicitly over the step
    (:func:`implicit_step_force`), as PyBullet's ERP/CFM and Drake's SAP do.  The profile's
    torque is held over each dt (open loop: sampled; closed loop: from the state at the step's start).
    """
    from crossdyn.analytic.codegen import compile_model

    law = law or ContactLaw.of(spec)
    fast = _ScalarLaw(spec, law)
    fd = compile_model(spec).fd
    n, m = spec.n, len(law.points)
    K = n_steps(duration, dt)
    t = np.arange(K + 1) * dt
    Q, QD = np.zeros((K + 1, n)), np.zeros((K + 1, n))
    Q[0], QD[0] = q0, qd0
    closed = getattr(profile, "closed_loop", False) or not hasattr(profile, "sample")
    TAU = np.zeros((K, n)) if closed else np.asarray(profile.sample(t[:K]), dtype=float).reshape(K, n)

    def acc(q, qd, tau):
        tc = fast.torque(q, qd)
        return fd(q, qd, [a + b for a, b in zip(tau, tc)])

    def rk4(q, qd, tau, h):
        k1v = acc(q, qd, tau)
        q2 = [a + 0.5 * h * b for a, b in zip(q, qd)]
        v2 = [a + 0.5 * h * b for a, b in zip(qd, k1v)]
        k2v = acc(q2, v2, tau)
        q3 = [a + 0.5 * h * b for a, b in zip(q, v2)]
        v3 = [a + 0.5 * h * b for a, b in zip(qd, k2v)]
        k3v = acc(q3, v3, tau)
        q4 = [a + h * b for a, b in zip(q, v3)]
        v4 = [a + h * b for a, b in zip(qd, k3v)]
        k4v = acc(q4, v4, tau)
        return ([a + h / 6 * (b + 2 * c + 2 * d + e) for a, b, c, d, e in zip(q, qd, v2, v3, v4)],
                [a + h / 6 * (b + 2 * c + 2 * d + e) for a, b, c, d, e in zip(qd, k1v, k2v, k3v, k4v)])

    status, msg = "ok", ""
    for k in range(K):
        q, qd = Q[k].tolist(), QD[k].tolist()
        if closed:
            TAU[k] = profile(t[k], Q[k], QD[k])
        tau = TAU[k].tolist()
        if scheme == "semi-implicit-euler":
            a = acc(q, qd, tau)
            qd = [v + dt * x for v, x in zip(qd, a)]
            q = [x + dt * v for x, v in zip(q, qd)]
        elif scheme == "implicit-contact":
            qa, qda = np.array(q), np.array(qd)
            f, G, Minv, a_free = implicit_step_force(spec, law, qa, qda, np.array(tau), dt, fd)
            qda = qda + dt * (a_free + Minv @ (G.T @ f))
            q, qd = (qa + dt * qda).tolist(), qda.tolist()
        elif scheme == "rk4":
            fast.touched = False
            q1, qd1 = rk4(q, qd, tau, dt)
            if locate and (fast.touched or max(fast.mode(q1, qd1)[:m]) > 0):
                h = dt / substeps
                for _ in range(substeps):
                    q, qd = _rk4_switched(rk4, q, qd, tau, h, fast.mode, m)
            else:
                q, qd = q1, qd1
        else:
            raise ValueError(f"scheme: rk4, semi-implicit-euler or implicit-contact, got {scheme!r}")
        if not all(math.isfinite(x) for x in q + qd):
            status, msg = "diverged", f"law run ({scheme}): non-finite state at t = {t[k + 1]:.6g} s"
            Q, QD, TAU, t = Q[:k + 1], QD[:k + 1], TAU[:k], t[:k + 1]
            break
        Q[k + 1], QD[k + 1] = q, qd
    label = f"{scheme}, {substeps} located substeps in contact" if scheme == "rk4" and locate else scheme
    return Trajectory(t, Q, QD, TAU, f"contact-law-{scheme}", dt, status, None, msg,
                      {"engine": f"contact law ({label})", "law": law.describe()})


def implicit_step_force(spec, law: ContactLaw, q, qd, tau, h: float, fd=None):
    """The normal forces of one step with the law solved implicitly (backward Euler on the spring–damper, the
    penetration linearised over the step): for the obstacles the tip is inside at the step's start,

        f = max(0, k δ⁺ + c δ̇⁺),  δ⁺ = δ + h δ̇⁺,  δ̇⁺ = −G v⁺,  v⁺ = v + h (a_free + M⁻¹ Gᵀ f)

    (G the rows n·J_tip), i.e. (1 + h (k h + c) G M⁻¹ Gᵀ) f = k δ + (k h + c) δ̇_free — Catto's soft constraint,
    which is what ERP = h k/(h k + c), CFM = 1/(h k + c) (PyBullet) and SAP's f = (k (φ + τ v))₊ with τ = c/k
    (Drake) implement.  Several touching obstacles: the linear system with the negative ones dropped until none
    is.  Friction (μ > 0) is left explicit: the law's regularised friction at the step's start is in ``tau``'s
    free acceleration.  Returns (f (m_active,), G (m_active, n), M⁻¹, a_free)."""
    from crossdyn import analytic
    from crossdyn.analytic.codegen import compile_model

    fd = fd or compile_model(spec).fd
    p = spec.params()
    tip = end_effector(p, q)
    J = end_effector_jacobian(p, q)
    delta = law.penetration(tip)
    tau_f = np.asarray(tau, dtype=float)
    if law.friction > 0:  # explicit friction: the law's tangential part only
        _, fn, ft, _, _ = law.force(tip, J @ qd, float(np.sum(qd)))
        tau_f = tau_f + law.torque_from_force(J, np.zeros_like(fn), ft)
    a_free = np.asarray(fd(list(q), list(qd), tau_f.tolist()))
    active = list(np.nonzero(delta > 0)[0])
    M = analytic.mass_matrix(spec, q)
    Minv = np.linalg.inv(M)
    if not active:
        return np.zeros(0), np.zeros((0, spec.n)), Minv, a_free
    v_free = qd + h * a_free
    k, c = law.stiffness, law.damping
    while active:
        G = np.stack([law.normals[i] @ J for i in active])
        W = G @ Minv @ G.T
        rhs = k * delta[active] + (k * h + c) * (-(G @ v_free))
        f = np.linalg.solve(np.eye(len(active)) + h * (k * h + c) * W, rhs)
        if np.all(f >= 0):
            return f, G, Minv, a_free
        active = [i for i, x in zip(active, f) if x >= 0]
    return np.zeros(0), np.zeros((0, spec.n)), Minv, a_free


def exact_run(spec, profile, q0, qd0, duration: float, dt: float, law: ContactLaw | None = None) -> Trajectory:
    """The law's reference on the dt grid: the event-exact ``simulate_contact`` of
    :mod:`crossdyn.analytic.contact` (DOP853, every touch, clip and release located) for an open-loop profile
    when main has it, else :func:`law_run` (RK4 at dt/20 in contact, switches located).  ``info["engine"]`` says
    which."""
    closed = getattr(profile, "closed_loop", False) or not hasattr(profile, "sample")
    try:
        from crossdyn.analytic.contact import simulate_contact
    except ImportError:
        simulate_contact = None
    default = law is None or law.slip_velocity == ContactLaw.of(spec).slip_velocity
    if simulate_contact is not None and not closed and default:
        K = n_steps(duration, dt)
        taus = np.asarray(profile.sample(np.arange(K) * dt), dtype=float).reshape(K, spec.n)

        def torque(t):
            return taus[min(int(t / dt + 1e-9), K - 1)]

        constant = bool(np.all(taus == taus[:1]))  # one torque throughout: no hold boundaries to restart at
        run = simulate_contact(spec, np.asarray(q0, float), np.asarray(qd0, float), K * dt,
                               torque=(lambda t: taus[0]) if constant else torque, hold=None if constant else dt,
                               output_dt=dt)
        q, qd = np.asarray(run.q), np.asarray(run.qd)
        if q.shape == (K + 1, spec.n) and qd.shape == q.shape:
            return Trajectory(np.asarray(run.t), q, qd, taus, "simulate_contact", dt, "ok", None, "",
                              {"engine": "simulate_contact (event-exact DOP853)",
                               "law": (law or ContactLaw.of(spec)).describe()})
    return law_run(spec, profile, q0, qd0, duration, dt, "rk4", substeps=20, locate=True, law=law)


def _rk4_switched(rk4, q, qd, tau, h, mode, m):
    """One RK4 substep of h; if the law's mode switches inside it, step to the switch first (the
    switching function that changed sign, located by Brent's method), then the rest (at most 3 switches per substep)."""
    for _ in range(3):
        g0 = mode(q, qd)
        q1, qd1 = rk4(q, qd, tau, h)
        g1 = mode(q1, qd1)
        if _signs(g0, m) == _signs(g1, m):
            return q1, qd1
        # the first switching function that changed sign: its root in the substep (Brent, to 1e-13 s)
        i = next(i for i in range(2 * m) if (g0[i] > 0) != (g1[i] > 0))
        hi = brentq(lambda s: mode(*rk4(q, qd, tau, s))[i], 0.0, h, xtol=1e-13)
        if (mode(*rk4(q, qd, tau, hi))[i] > 0) == (g0[i] > 0):
            hi = min(h, hi + 1e-13)
        q, qd = rk4(q, qd, tau, hi)  # just past the switch: the rest of the substep starts in the new mode
        h -= hi
        if h <= 1e-15:
            return q, qd
    return rk4(q, qd, tau, h)


def _signs(g, m: int) -> tuple:
    inside = [x > 0 for x in g[:m]]
    return tuple(inside) + tuple((x > 0) and i for x, i in zip(g[m:], inside))


# ---------------------------------------------------------------------------------------------- forces
def tip_motion(spec, law: ContactLaw, q, qd):
    """(tips (K, 2), δ (K, m), δ̇ (K, m), slip velocity v_t of the contact point (K, m)) from the analytic kinematics."""
    p = spec.params()
    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    tips = end_effector(p, q)
    v = np.einsum("kij,kj->ki", end_effector_jacobian(p, q), qd)
    delta = law.penetration(tips)
    dd = -v @ law.normals.T
    omega = qd.sum(axis=1)
    vt = v @ law.tangents.T - omega[:, None] * law.radius
    return tips, delta, dd, vt


def law_forces(spec, law: ContactLaw, q, qd):
    """(F_n, F_t) per sample and obstacle from the law itself (shape (K, m) each)."""
    _, delta, dd, vt = tip_motion(spec, law, q, qd)
    fn = law.normal_force(delta, dd)
    ft = -law.friction * fn * np.tanh(vt / law.slip_velocity) if law.friction > 0 else np.zeros_like(fn)
    return fn, ft


def inferred_forces(spec, law: ContactLaw, traj):
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
        return fn, ft
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
    return fn, ft


# ---------------------------------------------------------------------------------------------- episodes
def _crossing(t, g, i):
    """Time where g crosses 0 between samples i and i + 1 (linear interpolation)."""
    if g[i] == g[i + 1]:
        return float(t[i])
    return float(t[i] + (t[i + 1] - t[i]) * g[i] / (g[i] - g[i + 1]))


def episodes(law: ContactLaw, t, tips, delta, dd, vt, fn, ft, ref_tips=None, merge_s: float = 0.002,
             loss=None) -> list[dict]:
    """Every contact episode of a run (see the module docstring), ordered by obstacle, then entry time."""
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
        for n_ep, (a, b) in enumerate(zip(starts, ends), start=1):
            i0, i1 = max(a - 1, 0), min(b + 1, K - 1)
            open_ = b + 1 >= K
            t_in = _crossing(t, d, i0) if a > 0 else float(t[0])
            t_out = float(t[K - 1]) if open_ else _crossing(t, d, b)
            sl = slice(i0, i1 + 1)
            v_in = dd[i0, j]
            row = {"obstacle": j + 1, "episode": n_ep, "start_sample": int(i0), "t_enter_s": t_in, "t_exit_s": t_out, "open": bool(open_),
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
    tips, delta, dd, vt = tip_motion(spec, law, traj.q, traj.qd)
    fn, ft = inferred_forces(spec, law, traj) if native else law_forces(spec, law, traj.q, traj.qd)
    ref_tips = None if reference is None else end_effector(spec.params(), np.asarray(reference.q))
    return episodes(law, traj.t, tips, delta, dd, vt, fn, ft, ref_tips, loss=energy_lost(spec, traj))


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
    return float(np.max(np.linalg.norm(end_effector(p, np.asarray(traj.q[:m])) - end_effector(p, np.asarray(reference.q[:m])),
                                       axis=1)))


# ---------------------------------------------------------------------------------------------- softness probe
def probe_softness(engine, spec, law: ContactLaw, count: int = 12, seed: int = 0, max_penetration: float = 0.01,
                   implicit: bool = False):
    """The engine's own contact against the law, measured: from ``count`` random states with the tip 0.5–10 mm
    into an obstacle (joint speeds ±0.3 rad/s, τ = 0), the engine's acceleration — its forward dynamics where that
    includes its contact (MuJoCo's ``mj_forward``), else one step of dt (PyBullet: the force its solver holds over
    the step) — gives its contact force by inverse dynamics, compared with the law at the same state (``implicit``:
    with the law's force over one step solved implicitly, :func:`implicit_step_force`, what an engine whose
    contact is an implicit spring–damper should give).

    Returns {"relative_force_error_median", "relative_force_error_max", "states"}: |F_n,engine − F_n,law| / F_n,law
    over the probes (the engine's contact softness, in the tolerance of :func:`judge`).
    """
    from crossdyn import analytic

    p = spec.params()
    rng = np.random.default_rng(seed)
    qs = rng.uniform(-np.pi, np.pi, (200_000, spec.n))
    delta = law.penetration(end_effector(p, qs))
    good = np.nonzero((delta.max(axis=1) > 5e-4) & (delta.max(axis=1) < max_penetration)
                      & ((delta > 0).sum(axis=1) == 1))[0][:4 * count]
    errors = []
    for i in good:
        q, qd = qs[i], rng.uniform(-0.3, 0.3, spec.n)
        f_law, _ = law_forces(spec, law, q[None], qd[None])
        j = int(np.argmax(delta[i]))
        if implicit:
            f_imp, *_ = implicit_step_force(spec, law, q, qd, np.zeros(spec.n), engine.dt)
            f_law = np.zeros_like(f_law)
            f_law[0, j] = f_imp[0] if len(f_imp) else 0.0
        if f_law[0, j] < 1.0:  # clipped or nearly: no force to compare
            continue
        if engine.contact_in_forward_dynamics:  # MuJoCo: mj_forward computes its contacts
            qdd = np.asarray(engine.forward_dynamics(q, qd, np.zeros(spec.n)))
        else:  # PyBullet computes its contact only inside stepSimulation: the force held over one step
            engine.reset(q, qd)
            engine.step(np.zeros(spec.n))
            qdd = (engine.state()[1] - qd) / engine.dt
        tau_c = analytic.inverse_dynamics(spec, q[None], qd[None], qdd[None])[0]
        J = end_effector_jacobian(p, q)
        cols = [J.T @ law.normals[j]] + ([J.T @ law.tangents[j] - law.radius] if law.friction > 0 else [])
        x, *_ = np.linalg.lstsq(np.stack(cols, axis=1), tau_c, rcond=None)
        errors.append(abs(x[0] - f_law[0, j]) / f_law[0, j])
        if len(errors) >= count:
            break
    if not errors:
        return {"relative_force_error_median": None, "relative_force_error_max": None, "states": 0}
    return {"relative_force_error_median": float(np.median(errors)), "relative_force_error_max": float(np.max(errors)),
            "states": len(errors)}


# ---------------------------------------------------------------------------------------------- judging
class _Shifted:
    """``profile`` seen from time ``t0`` on (a run restarted at t0 gets the torque the original run got)."""

    def __init__(self, profile, t0: float):
        self.profile, self.t0 = profile, float(t0)
        self.closed_loop = getattr(profile, "closed_loop", False) or not hasattr(profile, "sample")
        self.name = getattr(profile, "name", "profile")

    def sample(self, times):
        return self.profile.sample(np.asarray(times) + self.t0)

    def __call__(self, t, q, qd):
        return self.profile(t + self.t0, q, qd)


def restarted(spec, law: ContactLaw, profile, traj, episode: dict, scheme: str, dt: float,
              substeps: int = 1, locate: bool = False, margin_s: float = 0.02, inferred: bool = False):
    """The law's run restarted at the state the run ``traj`` had just before ``episode`` (its ``start_sample``),
    long enough to close the episode (twice its duration plus ``margin_s``, within the run), characterised; returns
    its first episode against the same obstacle (or None).  ``inferred``: its forces inferred from the motion
    like a native run's (:func:`inferred_forces`), so that an estimate is measured the way the engine is."""
    i0 = episode["start_sample"]
    t0 = float(traj.t[i0])
    T = min(float(traj.t[-1]) - t0, 2 * episode["duration_s"] + margin_s)
    if T < dt:
        return None
    shifted, T = _Shifted(profile, t0), round(T / dt) * dt
    run = (exact_run(spec, shifted, traj.q[i0], traj.qd[i0], T, dt, law) if scheme == "exact" else
           law_run(spec, shifted, traj.q[i0], traj.qd[i0], T, dt, scheme, substeps, locate, law))
    eps = [e for e in characterise(spec, law, run, native=inferred) if e["obstacle"] == episode["obstacle"]]
    return eps[0] if eps else None


def judge(engine: str, spec, law: ContactLaw, profile, traj, native: list[dict], scheme: str, softness: float,
          substeps: int = 1, locate: bool = False) -> dict:
    """Each native episode against the law restarted at the engine's own state just before it.

    The reference for episode i is the law's exact run (:func:`exact_run`) started at the native run's state at the sample before the touch, so what is judged is the engine's contact itself, not the
    trajectory's accumulated departure before it (the order and timing of later contacts is sensitive to small
    differences: the tip path's deviation from the global reference is reported beside, not judged).  Tolerance
    per quantity: the integration-error estimate |X_est − X_ref| (the law integrated from the same state with the
    engine's scheme at its dt: ``scheme``, ``substeps``, ``locate``; its forces inferred from its motion as the
    engine's are, so the estimate includes what that inference does to an RK4 step's average force) plus ``softness`` · |X_ref| (the engine's
    measured relative contact-force departure, :func:`probe_softness`, times :data:`SOFTNESS_ORDER`; a softness
    beyond :data:`SOFTNESS_LIMIT` is itself a departure, ``contact_force_vs_law``, and allows no more than the limit),
    plus the quantity's resolution on the dt grid (the native episode's ``resolution``: dt for the duration, the
    peak force times dt for the impulse, one step's change of the normal speed at touch and release for the
    restitution; 0 for the others).
    Returns {"pass", "checked", "softness", "episodes": [{"reference", "estimate"} per native episode],
    "departures": [{"engine", "obstacle", "episode", "quantity", "reference", "native", "tolerance"}]}.
    """
    departures, checked, rows = [], 1, []
    if softness > SOFTNESS_LIMIT:
        departures.append({"engine": engine, "obstacle": None, "episode": None, "quantity": "contact_force_vs_law",
                           "reference": 0.0, "native": softness, "tolerance": SOFTNESS_LIMIT})
    for e in native:
        if e["open"]:
            rows.append(None)
            continue
        ref = restarted(spec, law, profile, traj, e, "exact", traj.dt)
        est = restarted(spec, law, profile, traj, e, scheme, traj.dt, substeps, locate, inferred=True)
        rows.append({"reference": ref, "estimate": est})
        if ref is None:
            departures.append({"engine": engine, "obstacle": e["obstacle"], "episode": e["episode"],
                               "quantity": "count", "reference": 0, "native": 1, "tolerance": 0})
            continue
        for qn in QUANTITIES:
            xr, xn = ref[qn], e[qn]
            if xr is None or xn is None:
                continue
            xe = est[qn] if est is not None and est[qn] is not None else None
            err = abs(xe - xr) if xe is not None else abs(xr)
            scale = max(abs(xr), abs(xe)) if xe is not None else abs(xr)
            tol = (err + SOFTNESS_ORDER.get(qn, 1.0) * min(softness, SOFTNESS_LIMIT) * scale
                   + e.get("resolution", {}).get(qn, 0.0))
            checked += 1
            if not abs(xn - xr) <= tol:
                departures.append({"engine": engine, "obstacle": e["obstacle"], "episode": e["episode"],
                                   "quantity": qn, "reference": xr, "native": xn, "tolerance": tol})
    return {"pass": not departures, "checked": checked, "softness": softness, "episodes": rows,
            "departures": departures}


def describe_departure(d: dict) -> str:
    """One line naming the engine, the obstacle and the quantity."""
    if d["quantity"] == "contact_force_vs_law":
        return (f"{d['engine']}: native contact force departs from the law by {100 * d['native']:.3g} % at the probe "
                f"states (limit {100 * d['tolerance']:.3g} %)")
    where = f"obstacle {d['obstacle']}" + (f", episode {d['episode']}" if d["episode"] else "")
    return (f"{d['engine']}: native contact departs at {where}: {d['quantity']} {d['native']:.4g} against "
            f"{d['reference']:.4g} (tolerance {d['tolerance']:.2g})")
