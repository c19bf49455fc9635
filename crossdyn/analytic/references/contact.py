"""The event-exact reference of the tip sphere's contact law (:class:`crossdyn.analytic.laws.contact.ContactLaw`).

Reference (:func:`simulate_contact`): the analytic dynamics M q̈ + C q̇ + G + B q̇ = τ + J_cᵀ F (+ τ_lim) integrated
by :func:`crossdyn.analytic.references.events.integrate_events` (DOP853, rtol = atol = 1e-11) with every switch of the law
located on the dense output and the integrator restarted there: touch and separation (δ = 0 per obstacle),
clip and re-engagement (k δ + c δ̇ = 0 while δ > 0), hold boundaries of the commanded torque, and the joint-limit
law's switches when the spec sets one.  The friction law is smooth in the state (no event).  The ledger (D and
the work W of the joint torques, joint damping and limit law) is integrated as extra states, so E_arm + V + D − W
is constant to the integration error (:class:`ContactRun`).  :func:`fixed_step_contact` is fixed-step RK4 of the
same dynamics (forces held per step or inside every stage), the independent check of convergence.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Unpack, cast

import numpy as np
from scipy.integrate import DOP853, Radau

from crossdyn.analytic.dynamics import as_params, forward_dynamics
from crossdyn.analytic.energy import total_energy
from crossdyn.analytic.integrators import rk4_step
from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian
from crossdyn.analytic.laws.limit import LimitLaw
from crossdyn.analytic.references.events import (SIMULTANEOUS, EventRun, HeldTorque, ReferenceKeywords,
                                                 ReferenceOptions, integrate_events)
from crossdyn.analytic.references.limits import _what
from crossdyn.analytic.laws.contact import (  # noqa: F401  (re-exported: the law of this reference)
    DEFAULT_SLIP_VELOCITY, FRICTION_STABILITY, ContactLaw, effective_mass, min_tangent_mass,
)

EVENT_KINDS = ("touch", "separate", "clip", "re-engage", "inside at start")
"""Contact events per obstacle: δ rising / falling through 0; k δ + c δ̇ falling / rising through 0 while δ > 0;
at t = 0, "touch" when δ = 0 exactly and δ̇ > 0, "inside at start" when δ > 0."""


@dataclass
class ContactRun:
    """Result of :func:`simulate_contact`: states, per-obstacle contact quantities and the energy ledger on the
    output grid, and every switch located.

    Energy ledger (J, all from t = 0; the module docstring): E_arm = T + U of the arm, V = Σ ½ k δ², the contact
    dissipation D = D_normal + D_friction with D_normal = ∫ c δ̇² dt (unclipped) − ∫ k δ δ̇ dt (clipped) and
    D_friction = −∫ Σ F_t v_t dt, and the work W = W_torque + W_damping + W_limits of the commanded joint
    torques (∫ τ·q̇ dt), of the joint damping (−∫ q̇ᵀ B q̇ dt) and of the joint-limit law (∫ τ_lim·q̇ dt).  D and
    W are integrated as extra states of the ODE (same DOP853 steps and tolerances, exact at every switch), so
    ``residual`` = E_arm + V + D − W − (E_arm + V)(0) is 0 up to the integration error.  So is the normal
    impulse ∫ F_n dt per obstacle.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    delta: np.ndarray
    """(len(t), m): penetration δ per obstacle (m; > 0 while touching)."""
    delta_dot: np.ndarray
    """(len(t), m): δ̇ (m/s)."""
    normal_force: np.ndarray
    """(len(t), m): F_n (N, ≥ 0)."""
    tangential_force: np.ndarray
    """(len(t), m): F_t (N; along t = (−n_y, n_x))."""
    E_arm: np.ndarray
    V: np.ndarray
    D_normal: np.ndarray
    D_friction: np.ndarray
    W_torque: np.ndarray
    W_damping: np.ndarray
    W_limits: np.ndarray
    impulse: np.ndarray
    """(len(t), m): ∫ F_n dt per obstacle from t = 0 (N s)."""
    events: list = field(default_factory=list)
    """(time s, kind, obstacle 1-based), kind one of :data:`EVENT_KINDS`."""
    event_q: np.ndarray | None = None
    """(len(events), n): q at each event."""
    event_qd: np.ndarray | None = None
    """(len(events), n): q̇ at each event."""
    event_delta_dot: np.ndarray | None = None
    """(len(events), m): δ̇ per obstacle at each event (m/s)."""
    event_ledger: np.ndarray | None = None
    """(len(events), 5 + m): D_normal, D_friction, W_torque, W_damping, W_limits, impulses at each event."""
    limit_events: list = field(default_factory=list)
    """(time s, joint 1-based, what) of the joint-limit law when the spec sets one (as :class:`LimitRun`)."""
    steps: int = 0
    law: "ContactLaw | None" = None

    @property
    def D(self) -> np.ndarray:
        return self.D_normal + self.D_friction

    @property
    def W(self) -> np.ndarray:
        return self.W_torque + self.W_damping + self.W_limits

    @property
    def residual(self) -> np.ndarray:
        """E_arm + V + D − W minus its value at t = 0 (J): the work–energy balance's error."""
        total = self.E_arm + self.V + self.D - self.W
        return total - total[0]

    def episodes(self) -> list[dict]:
        """One dict per contact (a touch to its separation, per obstacle), from the located events:

        ``obstacle``, ``touch``, ``clip`` (the first clip, or None), ``separate`` (None: still touching at the
        end) (s); ``duration`` = separate − touch and ``force_duration`` = clip − touch (the force is > 0 until
        the clip, 0 from there; = duration without a clip) (s); ``impact_speed`` = δ̇ at the touch and
        ``separation_speed`` = −δ̇ at the separation (m/s), ``restitution`` their ratio; ``impulse`` = ∫ F_n dt
        and ``dissipated`` = ΔD_normal + ΔD_friction over the contact (N s, J) — all exact (event states and
        integrated ledger); ``max_penetration`` (m) and ``peak_force`` (N) sampled on the output grid.
        ``inside_at_start``: the run began penetrating (``touch`` = 0, no restitution).
        """
        out: list = []
        open_: dict = {}
        for e, (t, kind, ob) in enumerate(self.events):
            if kind in ("touch", "inside at start"):
                open_[ob] = {"obstacle": ob, "touch": t, "clip": None, "separate": None, "_start": e, "_end": None,
                             "inside_at_start": kind == "inside at start"}
                out.append(open_[ob])
            elif ob in open_:
                if kind == "clip" and open_[ob]["clip"] is None:
                    open_[ob]["clip"] = t
                elif kind == "separate":
                    open_[ob]["separate"], open_[ob]["_end"] = t, e
                    del open_[ob]
        event_delta_dot, event_ledger = cast(np.ndarray, self.event_delta_dot), cast(np.ndarray, self.event_ledger)
        for ep in out:
            j, s, e = ep["obstacle"] - 1, ep.pop("_start"), ep.pop("_end")
            end_t = ep["separate"] if ep["separate"] is not None else self.t[-1]
            ep["duration"] = end_t - ep["touch"]
            ep["force_duration"] = (ep["clip"] if ep["clip"] is not None else end_t) - ep["touch"]
            ep["impact_speed"] = float(event_delta_dot[s, j])
            start = event_ledger[s]
            if e is not None:
                end = event_ledger[e]
                ep["separation_speed"] = float(-event_delta_dot[e, j])
                ok = ep["impact_speed"] > 0.0 and not ep["inside_at_start"]
                ep["restitution"] = ep["separation_speed"] / ep["impact_speed"] if ok else None
            else:
                end = np.concatenate([[self.D_normal[-1], self.D_friction[-1], self.W_torque[-1],
                                       self.W_damping[-1], self.W_limits[-1]], self.impulse[-1]])
                ep["separation_speed"] = ep["restitution"] = None
            ep["impulse"] = float(end[N_LEDGER + j] - start[N_LEDGER + j])
            ep["dissipated"] = float(end[0] + end[1] - start[0] - start[1])
            during = (self.t >= ep["touch"]) & (self.t <= end_t)
            ep["max_penetration"] = float(self.delta[during, j].max()) if during.any() else 0.0
            ep["peak_force"] = float(self.normal_force[during, j].max()) if during.any() else 0.0
        return out


def _tip_and_jacobian(L, q):
    """x_tip(q) and J_tip(q) of one state (:mod:`crossdyn.analytic.kinematics`' formulas, fewer array calls:
    the reference's right-hand side evaluates them ~10⁴ times per simulated second)."""
    th = np.cumsum(q)
    lx, ly = L * np.cos(th), L * np.sin(th)
    J = np.empty((2, len(L)))
    J[0] = -np.cumsum(ly[::-1])[::-1]
    J[1] = np.cumsum(lx[::-1])[::-1]
    return np.array([lx.sum(), ly.sum()]), J


N_LEDGER = 5  # extra states: D_normal, D_friction, W_torque, W_damping, W_limits


@dataclass(frozen=True)
class ContactOptions(ReferenceOptions):
    """The keywords of :func:`simulate_contact`: :class:`ReferenceOptions` (with a budget of 2,000,000 steps), the
    friction's ``slip_velocity`` v_s (m/s) and the solver ``method`` ("DOP853" or "Radau")."""

    max_steps: int = 2_000_000
    slip_velocity: float = DEFAULT_SLIP_VELOCITY
    method: str = "DOP853"


class ContactKeywords(ReferenceKeywords, total=False):
    """The keywords of :func:`simulate_contact`: the fields of :class:`ContactOptions`."""

    slip_velocity: float
    method: str


SOLVERS = {"DOP853": DOP853, "Radau": Radau}
"""The solvers :func:`simulate_contact` takes (``method``)."""


def simulate_contact(spec, q0, qd0, duration: float, torque: Callable | None = None, hold: float | None = None,
                     **options: Unpack[ContactKeywords]) -> ContactRun:
    """Integrate M q̈ + C q̇ + G + B q̇ = τ(t) + J_cᵀ F(q, q̇) (+ τ_lim(q, q̇)) from (q0, q̇0), exact at every switch.

    The analytic dynamics (:func:`crossdyn.analytic.dynamics.forward_dynamics`) with the contact law of
    :class:`ContactLaw` (module docstring) and, when the spec sets one, the compliant joint-limit law
    (:class:`crossdyn.analytic.laws.limit.LimitLaw`, another switched torque).  Integrated by
    :func:`crossdyn.analytic.references.events.integrate_events` (DOP853, ``rtol``/``atol``): the events per
    obstacle are δ = 0 (touch, separate) and k δ + c δ̇ = 0 while δ > 0 (clip: the damper would pull, so F_n is 0
    from there; re-engage), plus the limit law's (as :func:`~crossdyn.analytic.references.limits.simulate_limits`).
    Tip friction (μ > 0) is the regularised law −μ F_n tanh(v_t / v_s), smooth in the state: no event (its only
    switch, F_n's, is located already).  ``torque(t)`` is the commanded torque (default 0), sampled at the start of
    every hold interval of ``hold`` s and held, as the engines get it (None: evaluated continuously).  Joint
    Coulomb friction (f_c > 0) is refused (its stick–slip switches are
    :func:`~crossdyn.analytic.references.stick_slip.simulate_stick_slip`'s).

    Keywords (:class:`ContactOptions`): ``output_dt`` (1e-3 s), ``rtol``, ``atol`` (1e-11), ``max_steps``
    (2,000,000), ``slip_velocity`` (:data:`DEFAULT_SLIP_VELOCITY`) and ``method``: "DOP853" (default) or "Radau"
    (implicit): while the tip *sticks* (|v_t| ≲ v_s) the friction law's slope μ F_n / v_s makes the equations
    stiff and DOP853's steps tiny (~5,000 per simulated second for a planar3r-wall press at F_n ≈ 20 N); Radau
    takes about half as many, each cheaper in that regime (4× faster there, same result to ~1e-13 rad).
    """
    opts = ContactOptions(**options)
    if opts.method not in SOLVERS:
        raise ValueError(f"simulate_contact: method must be one of {', '.join(SOLVERS)}, got {opts.method!r}")
    law = ContactLaw.of(spec, opts.slip_velocity)
    if law is None:
        raise ValueError("simulate_contact: the arm has no contact (a [contact] table and at least one obstacle)")
    if spec.has_friction:
        raise ValueError("simulate_contact: joint Coulomb friction (f_c > 0) is not supported here (use "
                         "simulate_stick_slip without contact, or set the links' friction to 0)")
    problem = _ContactProblem(spec, law, HeldTorque(torque, hold, spec.n))
    x = np.concatenate([np.asarray(q0, float), np.asarray(qd0, float), np.zeros(N_LEDGER + problem.m)])
    if x.shape != (2 * problem.n + N_LEDGER + problem.m,):
        raise ValueError(f"simulate_contact: q0 and qd0 must have {problem.n} entries each")
    problem.initial_events(x)
    run = integrate_events(problem.rhs, problem.g, x, duration, hold=hold, on_hold=problem.tau.on_hold,
                           on_event=problem.on_event, accept=problem.accept, direction=0, min_separation=SIMULTANEOUS,
                           name="contact reference", method=SOLVERS[opts.method], **opts.event_options())
    return problem.result(run, len(x))


class _ContactProblem:
    """The switched ODE of :func:`simulate_contact`: y = (q, q̇, ledger, impulses), its right-hand side, event
    functions and the events located so far."""

    def __init__(self, spec, law: ContactLaw, tau: HeldTorque):
        self.law, self.tau = law, tau
        self.limit = LimitLaw.of(spec)
        self.p = p = as_params(spec)
        self.n, self.m = p.n, len(law.points)
        self.L = np.asarray(p.L, dtype=float)
        self.b = np.asarray(p.b, dtype=float)
        self.has_damper = law.damping > 0.0
        self.events: list = []
        self.limit_events: list = []
        self.ev_y: list = []

    def contact_parts(self, q, qd):
        law = self.law
        tip, J = _tip_and_jacobian(self.L, q)
        v = J @ qd
        omega = float(np.sum(qd))
        _, fn, ft, delta, delta_dot = law.force(tip, v, omega)
        vt = law.tangents @ v - omega * law.radius
        return J, fn, ft, delta, delta_dot, vt

    def rhs(self, t, y):
        n, law, limit = self.n, self.law, self.limit
        q, qd = y[:n], y[n:2 * n]
        tau = self.tau.at(t)
        J, fn, ft, delta, delta_dot, vt = self.contact_parts(q, qd)
        tau_c = law.torque_from_force(J, fn, ft)
        tau_l = limit.torque(q, qd) if limit is not None else np.zeros(n)
        qdd = forward_dynamics(self.p, q, qd, tau + tau_c + tau_l)
        d_normal = law.dissipation_rate(delta, delta_dot)
        d_fric = -float(np.sum(ft * vt))
        return np.concatenate([qd, qdd, [d_normal, d_fric, float(tau @ qd), -float(self.b @ (qd * qd)),
                                         float(tau_l @ qd)], fn])

    def g(self, t, y):
        n, law = self.n, self.law
        q, qd = y[:n], y[n:2 * n]
        tip, J = _tip_and_jacobian(self.L, q)
        delta = law.penetration(tip)
        delta_dot = -law.normals @ (J @ qd)
        f = law.stiffness * delta + law.damping * delta_dot if self.has_damper else np.full(self.m, np.inf)
        parts = [delta, f]
        if self.limit is not None:
            with np.errstate(invalid="ignore"):  # 0·inf on a joint without a limit law: nan, an inactive event
                parts.append(self.limit.events(q, qd))
        return np.concatenate(parts)

    def accept(self, i, t_i, dense):
        n, m = self.n, self.m
        if i < m:
            return True
        y = dense(t_i)
        if i < 2 * m:  # a force switch matters only while that obstacle is penetrated
            return bool(self.law.penetration(end_effector(self.p, y[:n]))[i - m] > 0.0)
        kind, joint = divmod(i - 2 * m, n)
        if kind < 2:
            return True
        q_i = y[joint]
        limit = cast(LimitLaw, self.limit)  # limit events exist only with a limit law
        return bool(q_i > limit.upper[joint] if kind == 2 else q_i < limit.lower[joint])

    def initial_events(self, x) -> None:
        """A contact under way at t = 0 (no sign change to locate)."""
        n, law = self.n, self.law
        tip0, J0 = _tip_and_jacobian(self.L, x[:n])
        d0, dd0 = law.penetration(tip0), -law.normals @ (J0 @ x[n:2 * n])
        for j in range(self.m):
            if d0[j] > 0.0 or (d0[j] == 0.0 and dd0[j] > 0.0):
                self.events.append((0.0, "touch" if d0[j] == 0.0 else "inside at start", j + 1))
                self.ev_y.append(x.copy())

    def on_event(self, t, y, hits):
        n, m = self.n, self.m
        for t_i, i, rising in hits:
            if i < 2 * m:
                kind = ("touch" if rising else "separate") if i < m else ("re-engage" if rising else "clip")
                self.events.append((float(t_i), kind, i % m + 1))
                self.ev_y.append(y.copy())
            else:
                kind_i, joint = divmod(i - 2 * m, n)
                self.limit_events.append((float(t_i), joint + 1, _what(kind_i, rising)))

    def result(self, run: EventRun, width: int) -> ContactRun:
        """The :class:`ContactRun` of an integration: the contact quantities recomputed on the output grid."""
        n, m, p, law, L = self.n, self.m, self.p, self.law, self.L
        q, qd, ledger = run.y[:, :n].copy(), run.y[:, n:2 * n].copy(), run.y[:, 2 * n:]
        tips = end_effector(p, q)
        vel = np.einsum("kdn,kn->kd", end_effector_jacobian(p, q), qd)
        omega = qd.sum(axis=1)
        rows = [law.force(tips[k], vel[k], float(omega[k])) for k in range(len(run.t))]
        fn = np.array([r[1] for r in rows]).reshape(len(run.t), m)
        ft = np.array([r[2] for r in rows]).reshape(len(run.t), m)
        delta = np.array([r[3] for r in rows]).reshape(len(run.t), m)
        delta_dot = np.array([r[4] for r in rows]).reshape(len(run.t), m)
        V = 0.5 * law.stiffness * np.sum(np.where(delta > 0.0, delta, 0.0) ** 2, axis=1)
        ev = np.array(self.ev_y).reshape(-1, width)
        ev_dd = np.array([-law.normals @ (_tip_and_jacobian(L, y[:n])[1] @ y[n:2 * n]) for y in ev]).reshape(-1, m)
        return ContactRun(run.t, q, qd, delta, delta_dot, fn, ft, total_energy(p, q, qd), V,
                          ledger[:, 0].copy(), ledger[:, 1].copy(), ledger[:, 2].copy(), ledger[:, 3].copy(),
                          ledger[:, 4].copy(), ledger[:, N_LEDGER:].copy(), self.events, ev[:, :n].copy(),
                          ev[:, n:2 * n].copy(), ev_dd, ev[:, 2 * n:].copy(), self.limit_events, run.steps, law)


def fixed_step_contact(spec, q0, qd0, duration: float, dt: float, torque: Callable | None = None,
                       held: bool = True, slip_velocity: float = DEFAULT_SLIP_VELOCITY):
    """Fixed-step RK4 of the same dynamics, no event handling: the independent check that :func:`simulate_contact`
    is what fixed steps converge to as dt → 0.  Returns (t, q, q̇) at every step (arrays of len(t) = steps + 1).

    ``held=True``: the commanded torque and the contact (and joint-limit) torques are evaluated at the start of
    each step and held over it, as an engine in applied mode gets them — first order in dt (the held force is
    off by O(dt) over every step of a contact).  ``held=False``: the laws are evaluated inside every RK4 stage
    (the commanded torque still held per step): fourth order where the laws are smooth, first order across a
    touch (F_n jumps by c δ̇ there).
    """
    law = ContactLaw.of(spec, slip_velocity)
    limit = LimitLaw.of(spec)
    p = as_params(spec)
    n = p.n
    tau_fn = torque if torque is not None else (lambda t: np.zeros(n))

    def switched(q, qd):
        tau = law.torque(p, q, qd) if law is not None else np.zeros(n)
        return tau + (limit.torque(q, qd) if limit is not None else 0.0)

    steps = int(round(duration / dt))
    t = np.arange(steps + 1) * dt
    Q, QD = np.empty((steps + 1, n)), np.empty((steps + 1, n))
    q, qd = np.asarray(q0, float).copy(), np.asarray(qd0, float).copy()
    Q[0], QD[0] = q, qd
    def held_fd(q_, qd_, tau):  # the laws' torque is already in the held τ
        return forward_dynamics(p, q_, qd_, tau)

    def staged_fd(q_, qd_, tau):  # the laws inside every stage, the commanded τ held
        return forward_dynamics(p, q_, qd_, tau + switched(q_, qd_))

    for k in range(steps):
        tau = np.asarray(tau_fn(t[k]), float)
        if held:
            q, qd = rk4_step(held_fd, q, qd, tau + switched(q, qd), dt)
        else:
            q, qd = rk4_step(staged_fd, q, qd, tau, dt)
        Q[k + 1], QD[k + 1] = q, qd
    return t, Q, QD
