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
conserved apart from the work of the joint torques and friction (:meth:`ContactLaw.dissipation_rate`).

The event-exact reference that integrates the arm with this law is
:func:`crossdyn.analytic.references.contact.simulate_contact`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

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
    _geom: tuple = field(init=False, repr=False, compare=False)
    """(n_x, n_y, a·n) as Python floats per obstacle (set in ``__post_init__``)."""

    def __post_init__(self) -> None:
        # per obstacle (n_x, n_y, a·n) as Python floats: the per-step law (force) runs on scalars, several
        # times faster than NumPy on arrays of one or two obstacles (the runner calls it every step)
        points, normals = np.asarray(self.points, dtype=float), np.asarray(self.normals, dtype=float)
        geom = tuple((float(n[0]), float(n[1]), float(a @ n)) for a, n in zip(points, normals, strict=False))
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
        friction's rule, :class:`crossdyn.analytic.laws.friction.FrictionLaw`); as dt → 0 it tends to the law with
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
            fns.append(fn)
            fts.append(ft)
            deltas.append(d)
            rates.append(dd)
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
        for (nx, ny, _), fn_i, ft_i in zip(self._geom, fn, ft, strict=False):
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
