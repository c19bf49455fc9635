"""The tip sphere's spring–damper contact with half-plane obstacles: the law, as forces and joint torques.

Geometry (see :class:`crossdyn.models.spec.ContactSpec` and :class:`~crossdyn.models.spec.Obstacle`): a
massless sphere of radius r is centred on the tip of the last link, x_tip(q).  Against an obstacle with
surface point a and outward unit normal n (both in the x–y plane) its penetration is

    δ = r − (x_tip − a)·n            (m; > 0 while touching)

and its rate δ̇ = −ẋ_tip·n.  The contact point is the sphere's deepest point, x_c = x_tip − r n, a point of
the last link at that instant.

Normal law (per obstacle, only while δ > 0):

    F_n = max(0, k δ + c δ̇)          (N; the damper acts only while penetrating and the force never pulls)

Tangential friction (when μ > 0), regularised and stated: with t = (−n_y, n_x) the in-plane tangent and
v_t = ẋ_c·t the slip velocity of the contact point,

    F_t = −μ F_n tanh(v_t / v_s)     (v_s: :attr:`ContactLaw.slip_velocity`, m/s)

The force F = F_n n + F_t t acts at x_c, so the joint torques are τ = J_c(q)ᵀ F with J_c the Jacobian of
the contact point (the tip Jacobian plus the term of the offset −r n carried by the last link's rotation);
the normal part passes through the sphere's centre and gives J_tipᵀ F_n n exactly.

Energy: the arm's energy changes by −∫ F_n δ̇ dt + ∫ F_t v_t dt.  Writing V = ½ k δ² for the spring's
stored energy, −F_n δ̇ = −dV/dt − c δ̇² while the law is unclipped (k δ + c δ̇ ≥ 0) and −F_n δ̇ = −dV/dt +
k δ δ̇ while clipped (F_n = 0, the spring is released without doing work), so the energy dissipated in
contact is D = ∫ c δ̇² dt (unclipped) − ∫ k δ δ̇ dt (clipped) − ∫ F_t v_t dt, and E_arm + V + D is
conserved apart from the work of the joint torques and friction (:func:`dissipation_rate`).

Reference (:func:`simulate_contact`): the analytic dynamics M q̈ + C q̇ + G + B q̇ = τ + J_cᵀ F (+ τ_lim) integrated
by :func:`crossdyn.analytic.events.integrate_events` (DOP853, rtol = atol = 1e-11) with every switch of the law
located on the dense output and the integrator restarted there: touch and separation (δ = 0 per obstacle),
clip and re-engagement (k δ + c δ̇ = 0 while δ > 0), hold boundaries of the commanded torque, and the joint-limit
law's switches when the spec sets one.  The friction law is smooth in the state (no event).  The ledger (D and
the work W of the joint torques, joint damping and limit law) is integrated as extra states, so E_arm + V + D − W
is constant to the integration error (:class:`ContactRun`).  :func:`fixed_step_contact` is fixed-step RK4 of the
same dynamics (forces held per step or inside every stage), the independent check of convergence.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.integrate import DOP853, Radau

from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian

DEFAULT_SLIP_VELOCITY = 1e-3
"""m/s: v_s of the regularised tangential friction law, μ F_n tanh(v_t / v_s) (stated in every report)."""


FRICTION_STABILITY = 0.5
"""dt μ F_n / (v_s m_t) that :meth:`ContactLaw.of` aims at with a step dt (≤ 1: the held friction is monotone)."""


def effective_mass(spec, q, direction) -> float:
    """m_eff = 1 / (uᵀ J M⁻¹ Jᵀ u): the arm's inertia felt at the tip along the unit vector u (kg)."""
    from crossdyn.analytic.dynamics import mass_matrix

    q = np.asarray(q, dtype=float)
    u = end_effector_jacobian(spec.params(), q).T @ np.asarray(direction, dtype=float)
    return 1.0 / float(u @ np.linalg.solve(mass_matrix(spec, q), u))


def min_tangent_mass(spec, normals, samples: int = 64) -> float:
    """min over ``samples`` configurations (fixed seed) and the obstacles' tangents t of
    :func:`effective_mass` along t (kg)."""
    rng = np.random.default_rng(0)
    tangents = np.stack([-np.asarray(normals)[:, 1], np.asarray(normals)[:, 0]], axis=-1)
    return min(effective_mass(spec, q, t) for q in rng.uniform(-np.pi, np.pi, size=(samples, spec.n))
               for t in tangents)


@dataclass(frozen=True)
class ContactLaw:
    """The contact law of one arm: its tip sphere and obstacles as arrays (see the module docstring).

    ``points`` and ``normals`` have shape (m, 2) for m obstacles (the in-plane components).
    """

    radius: float
    stiffness: float
    damping: float
    friction: float
    points: np.ndarray
    normals: np.ndarray
    slip_velocity: float = DEFAULT_SLIP_VELOCITY
    force_slip: float = 0.0

    def __post_init__(self) -> None:
        # per obstacle (n_x, n_y, a·n) as Python floats: the per-step law (force) runs on scalars, several
        # times faster than NumPy on arrays of one or two obstacles (the runner calls it every step)
        geom = tuple((float(n[0]), float(n[1]), float(a @ n)) for a, n in zip(np.asarray(self.points, dtype=float),
                                                                          np.asarray(self.normals, dtype=float)))
        object.__setattr__(self, "_geom", geom)

    @classmethod
    def of(cls, spec, slip_velocity: float = DEFAULT_SLIP_VELOCITY, dt: float | None = None) -> "ContactLaw | None":
        """The law the spec sets (``[contact]`` and ``[[obstacles]]``), or None when it has none.

        ``dt`` (s, the period over which the runner holds the force) sets the friction's :attr:`force_slip`:
        held over a step the regularised friction is an explicit damper of slope μ F_n / v_s along the tangent,
        and it overshoots v_t = 0 (chatters instead of sticking) when dt μ F_n / (v_s m_t) > 1, m_t the arm's
        inertia felt at the tip along the tangent.  With ``dt`` the law uses v_s = max(slip_velocity,
        force_slip F_n), force_slip = μ dt / (0.5 m_t,min), m_t,min the smallest m_t over 64 configurations
        (fixed seed) and the obstacles' tangents, so that this number is ≤ 0.5 at every normal force (the joint
        friction's rule, :class:`crossdyn.analytic.stick_slip.FrictionLaw`); as dt → 0 it tends to the law with
        v_s = slip_velocity.  Without ``dt`` (the event-exact reference): v_s = slip_velocity.
        """
        if not spec.has_contact:
            return None
        c = spec.contact
        points = np.array([o.point[:2] for o in spec.obstacles], dtype=float)
        normals = np.array([o.normal[:2] for o in spec.obstacles], dtype=float)
        force_slip = 0.0
        if dt is not None and c.friction > 0.0:
            force_slip = c.friction * float(dt) / (FRICTION_STABILITY * min_tangent_mass(spec, normals))
        return cls(c.radius, c.stiffness, c.damping, c.friction, points, normals, float(slip_velocity), force_slip)

    @property
    def tangents(self) -> np.ndarray:
        """t = (−n_y, n_x) per obstacle, shape (m, 2)."""
        return np.stack([-self.normals[:, 1], self.normals[:, 0]], axis=-1)

    def penetration(self, tip) -> np.ndarray:
        """δ = r − (x_tip − a)·n per obstacle (m), shape (..., m); > 0 while touching."""
        tip = np.asarray(tip, dtype=float)
        return self.radius - np.einsum("...d,md->...m", tip, self.normals) + np.einsum("md,md->m", self.points,
                                                                                      self.normals)

    def normal_force(self, delta, delta_dot) -> np.ndarray:
        """F_n = max(0, k δ + c δ̇) where δ > 0, else 0 (N), per obstacle."""
        delta, delta_dot = np.asarray(delta, dtype=float), np.asarray(delta_dot, dtype=float)
        f = np.maximum(0.0, self.stiffness * delta + self.damping * delta_dot)
        return np.where(delta > 0.0, f, 0.0)

    def force(self, tip, tip_velocity, omega: float = 0.0):
        """The contact force on the tip sphere from its centre's position and velocity (world frame).

        ``omega`` is the last link's angular velocity (rad/s, about +z), which moves the contact point x_c =
        x_tip − r n relative to the centre (it matters only to the friction's slip velocity).  Returns
        (F, F_n, F_t, δ, δ̇): F the total force (2,), and per obstacle the normal and tangential magnitudes, the
        penetration and its rate.
        """
        x, y = float(tip[0]), float(tip[1])
        vx, vy = float(tip_velocity[0]), float(tip_velocity[1])
        r, k, c, mu, vs, fs = (self.radius, self.stiffness, self.damping, self.friction, self.slip_velocity,
                               self.force_slip)
        Fx = Fy = 0.0
        fns, fts, deltas, rates = [], [], [], []
        for nx, ny, off in self._geom:
            d = r - (nx * x + ny * y) + off  # δ = r − (x_tip − a)·n
            dd = -(nx * vx + ny * vy)  # δ̇ = −ẋ_tip·n
            fn = k * d + c * dd if d > 0.0 else 0.0
            fn = fn if fn > 0.0 else 0.0  # max(0, k δ + c δ̇): never pulls
            ft = 0.0
            if mu > 0.0 and fn > 0.0:
                # ẋ_c = ẋ_tip + ω × (−r n) = ẋ_tip − ω r t, t = (−n_y, n_x)
                vt = (-ny * vx + nx * vy) - omega * r
                v_s = fs * fn if fs * fn > vs else vs  # v_s = max(slip_velocity, force_slip F_n)
                ft = -mu * fn * math.tanh(vt / v_s)
            Fx += fn * nx - ft * ny
            Fy += fn * ny + ft * nx
            fns.append(fn), fts.append(ft), deltas.append(d), rates.append(dd)
        return (np.array((Fx, Fy)), np.array(fns), np.array(fts), np.array(deltas), np.array(rates))

    def torque(self, p, q, qd) -> np.ndarray:
        """τ = J_c(q)ᵀ F: the joint torques of the contact force, from the analytic kinematics (N m), shape (n,).

        Engines in applied mode compute the same from their own kinematics (:mod:`crossdyn.drive.runner`).
        """
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        tip = end_effector(p, q)
        J = end_effector_jacobian(p, q)
        omega = float(np.sum(qd))
        F, fn, ft, _, _ = self.force(tip, J @ qd, omega)
        return self.torque_from_force(J, fn, ft)

    def torque_from_force(self, J, fn, ft) -> np.ndarray:
        """τ = J_tipᵀ (Σ F_n n + Σ F_t t) + (Σ F_t)·r·(−1) on every joint (the friction's moment about the tip).

        The tangential force acts at x_c = x_tip − r n, offset from the centre: its moment about the tip is
        (x_c − x_tip) × F_t t = −r F_t (n × t)_z = −r F_t, and every joint carries the last link's rotation.
        """
        Fx = Fy = ftsum = 0.0
        for (nx, ny, _), fn_i, ft_i in zip(self._geom, fn, ft):
            Fx += fn_i * nx - ft_i * ny  # F_n n + F_t t, t = (−n_y, n_x)
            Fy += fn_i * ny + ft_i * nx
            ftsum += ft_i
        tau = J[0] * Fx + J[1] * Fy  # J_tipᵀ F
        if ftsum:
            tau = tau - self.radius * ftsum
        return tau

    def dissipation_rate(self, delta, delta_dot, ft=None, vt=None) -> float:
        """dD/dt, W: c δ̇² where the law is unclipped, −k δ δ̇ where clipped, 0 outside; minus F_t v_t.

        With V = ½ k δ² (for δ > 0): d(E_arm + V + D)/dt = power of the joint torques (module docstring).
        """
        delta, delta_dot = np.asarray(delta, dtype=float), np.asarray(delta_dot, dtype=float)
        inside = delta > 0.0
        unclipped = self.stiffness * delta + self.damping * delta_dot >= 0.0
        rate = np.where(inside & unclipped, self.damping * delta_dot**2,
                        np.where(inside, -self.stiffness * delta * delta_dot, 0.0))
        out = float(np.sum(rate))
        if ft is not None and vt is not None:
            out -= float(np.sum(np.asarray(ft) * np.asarray(vt)))
        return out

    def stored_energy(self, delta) -> float:
        """V = Σ ½ k δ² over the touching obstacles (J)."""
        delta = np.asarray(delta, dtype=float)
        return float(0.5 * self.stiffness * np.sum(np.where(delta > 0.0, delta, 0.0) ** 2))

    def describe(self) -> str:
        """One line stating the law (for reports and ``config()``)."""
        s = (f"F_n = max(0, k d + c d') with k = {self.stiffness:g} N/m, c = {self.damping:g} N s/m on a sphere of "
             f"r = {self.radius:g} m at the tip, {len(self.points)} obstacle(s)")
        if self.friction > 0:
            s += f"; F_t = -mu F_n tanh(v_t / v_s), mu = {self.friction:g}, v_s = {self.slip_velocity:g} m/s"
            if self.force_slip:
                s += (f" or {self.force_slip:.3g} (m/s)/N x F_n if larger (the held law's step stays monotone: "
                      f"dt mu F_n / (v_s m_t) <= {FRICTION_STABILITY})")
        return s



# ---------------------------------------------------------------------------------------------- the reference

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
        for ep in out:
            j, s, e = ep["obstacle"] - 1, ep.pop("_start"), ep.pop("_end")
            end_t = ep["separate"] if ep["separate"] is not None else self.t[-1]
            ep["duration"] = end_t - ep["touch"]
            ep["force_duration"] = (ep["clip"] if ep["clip"] is not None else end_t) - ep["touch"]
            ep["impact_speed"] = float(self.event_delta_dot[s, j])
            start = self.event_ledger[s]
            if e is not None:
                end = self.event_ledger[e]
                ep["separation_speed"] = float(-self.event_delta_dot[e, j])
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


def simulate_contact(spec, q0, qd0, duration: float, torque: Callable | None = None, hold: float | None = None,
                     output_dt: float = 1e-3, rtol: float = 1e-11, atol: float = 1e-11,
                     slip_velocity: float = DEFAULT_SLIP_VELOCITY, max_steps: int = 2_000_000,
                     method: str = "DOP853") -> ContactRun:
    """Integrate M q̈ + C q̇ + G + B q̇ = τ(t) + J_cᵀ F(q, q̇) (+ τ_lim(q, q̇)) from (q0, q̇0), exact at every switch.

    The analytic dynamics (:func:`crossdyn.analytic.dynamics.forward_dynamics`) with the contact law of
    :class:`ContactLaw` (module docstring) and, when the spec sets one, the compliant joint-limit law
    (:class:`crossdyn.analytic.limits.LimitLaw`, another switched torque).  Integrated by
    :func:`crossdyn.analytic.events.integrate_events` (DOP853, ``rtol``/``atol``): the events per obstacle are
    δ = 0 (touch, separate) and k δ + c δ̇ = 0 while δ > 0 (clip: the damper would pull, so F_n is 0 from there;
    re-engage), plus the limit law's (as :func:`~crossdyn.analytic.limits.simulate_limits`).  Tip friction (μ > 0)
    is the regularised law −μ F_n tanh(v_t / v_s), smooth in the state: no event (its only switch, F_n's, is
    located already).  ``torque(t)`` is the commanded torque (default 0), sampled at the start of every hold
    interval of ``hold`` s and held, as the engines get it (None: evaluated continuously).  Joint Coulomb
    friction (f_c > 0) is refused (its stick–slip switches are :func:`~crossdyn.analytic.stick_slip.simulate_stick_slip`'s).

    ``method``: "DOP853" (default) or "Radau" (implicit): while the tip *sticks* (|v_t| ≲ v_s) the friction law's
    slope μ F_n / v_s makes the equations stiff and DOP853's steps tiny (~5,000 per simulated second for a
    planar3r-wall press at F_n ≈ 20 N); Radau takes about half as many, each cheaper in that regime (4× faster
    there, same result to ~1e-13 rad).
    """
    from crossdyn.analytic.dynamics import as_params, forward_dynamics
    from crossdyn.analytic.energy import total_energy
    from crossdyn.analytic.events import SIMULTANEOUS, integrate_events
    from crossdyn.analytic.limits import LimitLaw, _what

    solvers = {"DOP853": DOP853, "Radau": Radau}
    if method not in solvers:
        raise ValueError(f"simulate_contact: method must be one of {', '.join(solvers)}, got {method!r}")
    law = ContactLaw.of(spec, slip_velocity)
    if law is None:
        raise ValueError("simulate_contact: the arm has no contact (a [contact] table and at least one obstacle)")
    if spec.has_friction:
        raise ValueError("simulate_contact: joint Coulomb friction (f_c > 0) is not supported here (use "
                         "simulate_stick_slip without contact, or set the links' friction to 0)")
    limit = LimitLaw.of(spec)
    p = as_params(spec)
    n, m = p.n, len(law.points)
    L = np.asarray(p.L, dtype=float)
    b = np.asarray(p.b, dtype=float)
    x = np.concatenate([np.asarray(q0, float), np.asarray(qd0, float), np.zeros(N_LEDGER + m)])
    if x.shape != (2 * n + N_LEDGER + m,):
        raise ValueError(f"simulate_contact: q0 and qd0 must have {n} entries each")
    tau_fn = torque if torque is not None else (lambda t: np.zeros(n))
    held = {"tau": np.asarray(tau_fn(0.0), float)}

    def tau_at(t):
        return held["tau"] if hold is not None else np.asarray(tau_fn(t), float)

    def contact_parts(q, qd):
        tip, J = _tip_and_jacobian(L, q)
        v = J @ qd
        omega = float(np.sum(qd))
        _, fn, ft, delta, delta_dot = law.force(tip, v, omega)
        vt = law.tangents @ v - omega * law.radius
        return J, fn, ft, delta, delta_dot, vt

    def rhs(t, y):
        q, qd = y[:n], y[n:2 * n]
        tau = tau_at(t)
        J, fn, ft, delta, delta_dot, vt = contact_parts(q, qd)
        tau_c = law.torque_from_force(J, fn, ft)
        tau_l = limit.torque(q, qd) if limit is not None else np.zeros(n)
        qdd = forward_dynamics(p, q, qd, tau + tau_c + tau_l)
        d_normal = law.dissipation_rate(delta, delta_dot)
        d_fric = -float(np.sum(ft * vt))
        return np.concatenate([qd, qdd, [d_normal, d_fric, float(tau @ qd), -float(b @ (qd * qd)),
                                         float(tau_l @ qd)], fn])

    has_damper = law.damping > 0.0

    def g(t, y):
        q, qd = y[:n], y[n:2 * n]
        tip, J = _tip_and_jacobian(L, q)
        delta = law.penetration(tip)
        delta_dot = -law.normals @ (J @ qd)
        f = law.stiffness * delta + law.damping * delta_dot if has_damper else np.full(m, np.inf)
        parts = [delta, f]
        if limit is not None:
            with np.errstate(invalid="ignore"):  # 0·inf on a joint without a limit law: nan, an inactive event
                parts.append(limit.events(q, qd))
        return np.concatenate(parts)

    def accept(i, t_i, dense):
        if i < m:
            return True
        y = dense(t_i)
        if i < 2 * m:  # a force switch matters only while that obstacle is penetrated
            return bool(law.penetration(end_effector(p, y[:n]))[i - m] > 0.0)
        kind, joint = divmod(i - 2 * m, n)
        if kind < 2:
            return True
        q_i = y[joint]
        return bool(q_i > limit.upper[joint] if kind == 2 else q_i < limit.lower[joint])

    events: list = []
    limit_events: list = []
    ev_y: list = []
    tip0, J0 = _tip_and_jacobian(L, x[:n])
    d0, dd0 = law.penetration(tip0), -law.normals @ (J0 @ x[n:2 * n])
    for j in range(m):  # a contact under way at t = 0 (no sign change to locate)
        if d0[j] > 0.0 or (d0[j] == 0.0 and dd0[j] > 0.0):
            events.append((0.0, "touch" if d0[j] == 0.0 else "inside at start", j + 1))
            ev_y.append(x.copy())

    def on_event(t, y, hits):
        for t_i, i, rising in hits:
            if i < 2 * m:
                kind = ("touch" if rising else "separate") if i < m else ("re-engage" if rising else "clip")
                events.append((float(t_i), kind, i % m + 1))
                ev_y.append(y.copy())
            else:
                kind, joint = divmod(i - 2 * m, n)
                limit_events.append((float(t_i), joint + 1, _what(kind, rising)))

    def on_hold(t, y):
        if hold is not None:
            held["tau"] = np.asarray(tau_fn(t), float)

    run = integrate_events(rhs, g, x, duration, hold=hold, on_hold=on_hold, on_event=on_event, accept=accept,
                           direction=0, min_separation=SIMULTANEOUS, output_dt=output_dt, rtol=rtol, atol=atol,
                           max_steps=max_steps, name="contact reference", method=solvers[method])
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
    ev = np.array(ev_y).reshape(-1, len(x))
    ev_dd = np.array([-law.normals @ (_tip_and_jacobian(L, y[:n])[1] @ y[n:2 * n]) for y in ev]).reshape(-1, m)
    return ContactRun(run.t, q, qd, delta, delta_dot, fn, ft, total_energy(p, q, qd), V,
                      ledger[:, 0].copy(), ledger[:, 1].copy(), ledger[:, 2].copy(), ledger[:, 3].copy(),
                      ledger[:, 4].copy(), ledger[:, N_LEDGER:].copy(), events, ev[:, :n].copy(),
                      ev[:, n:2 * n].copy(), ev_dd, ev[:, 2 * n:].copy(), limit_events, run.steps, law)


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
    from crossdyn.analytic.dynamics import as_params, forward_dynamics
    from crossdyn.analytic.integrators import rk4_step
    from crossdyn.analytic.limits import LimitLaw

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
