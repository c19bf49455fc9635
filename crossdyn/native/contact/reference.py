"""The contact law's own runs: the reference a native contact is judged against, and the law integrated with an
engine's scheme (the integration-error estimate).

The law (:mod:`crossdyn.analytic.laws.contact`): a sphere of radius r at the tip, penetration δ = r − (x_tip − a)·n
per obstacle, normal force F_n = max(0, k δ + c δ̇) while δ > 0.  The reference (:func:`exact_run`): the
event-exact ``simulate_contact`` of :mod:`crossdyn.analytic.references.contact` where main has it and the profile is open
loop; else :func:`law_run`, the analytic model with the law, RK4 at dt/``substeps`` with every switch of the law
(touch, release, clip) located inside its substep (Brent), the profile's torque held over each dt.  An arm with a
joint-limit law or an applied Coulomb law (``Experiment.friction``) takes :func:`law_run`, those laws held over
each dt as the runner applies them to the native runs.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq  # type: ignore[import-untyped]

from crossdyn.analytic.laws.contact import ContactLaw
from crossdyn.analytic.integrators import Trajectory, n_steps
from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian
from crossdyn.errors import InputError
from crossdyn.native.experiment import Experiment, experiment_form


def spec_law(spec) -> ContactLaw:
    """The contact law ``spec`` sets (:meth:`ContactLaw.of`); an arm without one (no ``[contact]`` or no
    obstacle) is an :class:`~crossdyn.errors.InputError`: there is no contact to run or characterise."""
    law = ContactLaw.of(spec)
    if law is None:
        raise InputError(f"{spec.name}: the arm has no tip contact ([contact] and [[obstacles]]): nothing to run "
                         "with the contact law")
    return law


class _ScalarLaw:
    """The law's joint torque and switching functions on plain floats (the reference calls them ~10⁵ times):
    the same equations as :meth:`ContactLaw.torque` (checked against it in the tests)."""

    def __init__(self, spec, law: ContactLaw):
        self.L = [float(x) for x in spec.params().L]
        self.n = len(self.L)
        self.k, self.c, self.mu, self.r, self.vs = (law.stiffness, law.damping, law.friction, law.radius,
                                                    law.slip_velocity)
        self.obs = [(float(a[0]), float(a[1]), float(nv[0]), float(nv[1]))
                    for a, nv in zip(law.points, law.normals, strict=False)]
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
        vx = sum(cx * v for (cx, _), v in zip(cols, qd, strict=False))
        vy = sum(cy * v for (_, cy), v in zip(cols, qd, strict=False))
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


@experiment_form("scheme", "substeps", "locate", "law")
def law_run(exp: Experiment, scheme: str = "rk4", substeps: int = 10, locate: bool = True,
            law: ContactLaw | None = None) -> Trajectory:
    """The arm under ``exp.profile`` with the contact law, sampled every ``exp.dt``.

    ``scheme="rk4"`` with ``locate`` (the reference): RK4 on the continuous law, one step of dt wherever no stage
    touches an obstacle, else ``substeps`` substeps in each of which a switch of the law (touch, release, clip)
    is located (Brent, to 1e-13 s) and stepped to first.  Without ``locate`` (and
    ``substeps=1``): plain RK4 at dt with the law at every stage, as MuJoCo's RK4 does with its contacts.
    ``scheme="semi-implicit-euler"``: the law held over each dt, as an engine with semi-implicit Euler and its
    contact force computed at the step's start (MuJoCo's Euler) or crossdyn's applied mode do.
    ``scheme="implicit-contact"``: semi-implicit Euler with the normal force solved implicitly over the step
    (:func:`implicit_step_force`), as PyBullet's ERP/CFM and Drake's SAP do.  The profile's
    torque (saturated to the spec's effort limits, as the runner saturates it) is held over each dt (open loop:
    sampled; closed loop: from the state at the step's start), and so are
    the other laws a native contact run gets from the runner (:meth:`Experiment.held_laws`: the spec's limit law,
    ``exp.friction``), evaluated at the step's start and added to it (the returned ``tau`` is the sum).
    """
    from crossdyn.analytic.codegen import compile_model

    spec, profile, q0, qd0, duration, dt = exp.spec, exp.profile, exp.q0, exp.qd0, exp.duration, exp.dt
    law = law or spec_law(spec)
    fast = _ScalarLaw(spec, law)
    fd = compile_model(spec).fd
    n, m = spec.n, len(law.points)
    K = n_steps(duration, dt)
    t = np.arange(K + 1) * dt
    Q, QD = np.zeros((K + 1, n)), np.zeros((K + 1, n))
    Q[0], QD[0] = q0, qd0
    closed = getattr(profile, "closed_loop", False) or not hasattr(profile, "sample")
    TAU = np.zeros((K, n)) if closed else np.array(profile.sample(t[:K]), dtype=float).reshape(K, n)
    effort = spec.effort_limits()  # the commanded torque saturated as the runner saturates it (None: no limits)
    if effort is not None and not closed:
        np.clip(TAU, -effort, effort, out=TAU)
    held = exp.held_laws()  # the limit law and applied friction, held over each step as the runner applies them

    def acc(q, qd, tau):
        tc = fast.torque(q, qd)
        return fd(q, qd, [a + b for a, b in zip(tau, tc, strict=False)])

    rk4 = _rk4_of(acc)

    status, msg = "ok", ""
    for k in range(K):
        q, qd = Q[k].tolist(), QD[k].tolist()
        if closed:
            TAU[k] = profile(t[k], Q[k], QD[k])
            if effort is not None:
                np.clip(TAU[k], -effort, effort, out=TAU[k])
        if held is not None:  # TAU holds the sum, like a runner's Trajectory.tau
            TAU[k] += held(Q[k], QD[k])
        tau = TAU[k].tolist()
        if scheme == "semi-implicit-euler":
            a = acc(q, qd, tau)
            qd = [v + dt * x for v, x in zip(qd, a, strict=False)]
            q = [x + dt * v for x, v in zip(q, qd, strict=False)]
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


def _rk4_of(acc):
    """The classical RK4 step of (q, q̇) under the acceleration ``acc(q, q̇, τ)``, τ held over the step h."""

    def rk4(q, qd, tau, h):
        k1v = acc(q, qd, tau)
        q2 = [a + 0.5 * h * b for a, b in zip(q, qd, strict=False)]
        v2 = [a + 0.5 * h * b for a, b in zip(qd, k1v, strict=False)]
        k2v = acc(q2, v2, tau)
        q3 = [a + 0.5 * h * b for a, b in zip(q, v2, strict=False)]
        v3 = [a + 0.5 * h * b for a, b in zip(qd, k2v, strict=False)]
        k3v = acc(q3, v3, tau)
        q4 = [a + h * b for a, b in zip(q, v3, strict=False)]
        v4 = [a + h * b for a, b in zip(qd, k3v, strict=False)]
        k4v = acc(q4, v4, tau)
        return ([a + h / 6 * (b + 2 * c + 2 * d + e) for a, b, c, d, e in zip(q, qd, v2, v3, v4, strict=False)],
                [a + h / 6 * (b + 2 * c + 2 * d + e) for a, b, c, d, e in zip(qd, k1v, k2v, k3v, k4v, strict=False)])

    return rk4


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
        active = [i for i, x in zip(active, f, strict=False) if x >= 0]
    return np.zeros(0), np.zeros((0, spec.n)), Minv, a_free


@experiment_form("law")
def exact_run(exp: Experiment, law: ContactLaw | None = None) -> Trajectory:
    """The law's reference on the dt grid: the event-exact ``simulate_contact`` of
    :mod:`crossdyn.analytic.references.contact` (DOP853, every touch, clip and release located) for an open-loop profile
    on an arm with no other law (limit law, applied friction), else :func:`law_run` (RK4 at dt/20 in contact,
    switches located; the other laws held per step as the engines get them).  ``info["engine"]`` says which."""
    spec, profile, q0, qd0, duration, dt = exp.spec, exp.profile, exp.q0, exp.qd0, exp.duration, exp.dt
    closed = getattr(profile, "closed_loop", False) or not hasattr(profile, "sample")
    try:
        from crossdyn.analytic.references.contact import simulate_contact
    except ImportError:
        simulate_contact = None  # type: ignore[assignment]
    default = law is None or law.slip_velocity == spec_law(spec).slip_velocity
    if simulate_contact is not None and not closed and default and exp.held_laws() is None:
        K = n_steps(duration, dt)
        taus = np.asarray(profile.sample(np.arange(K) * dt), dtype=float).reshape(K, spec.n)
        if spec.has_effort:  # saturated as the runner saturates the engines' commanded torque
            taus = np.clip(taus, -spec.effort_limits(), spec.effort_limits())

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
                               "law": (law or spec_law(spec)).describe()})
    return law_run(exp, "rk4", substeps=20, locate=True, law=law)


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
        hi = brentq(lambda s, q=q, qd=qd, i=i: mode(*rk4(q, qd, tau, s))[i], 0.0, h, xtol=1e-13)
        if (mode(*rk4(q, qd, tau, hi))[i] > 0) == (g0[i] > 0):
            hi = min(h, hi + 1e-13)
        q, qd = rk4(q, qd, tau, hi)  # just past the switch: the rest of the substep starts in the new mode
        h -= hi
        if h <= 1e-15:
            return q, qd
    return rk4(q, qd, tau, h)


def _signs(g, m: int) -> tuple:
    inside = [x > 0 for x in g[:m]]
    return tuple(inside) + tuple((x > 0) and i for x, i in zip(g[m:], inside, strict=False))


@experiment_form()
def reference_run(exp: Experiment) -> Trajectory:
    """The law's reference run on the dt grid (:func:`exact_run`)."""
    return exact_run(exp)
