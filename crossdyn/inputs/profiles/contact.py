"""Contact scenarios (arms with ``[contact]``; each carries its start state, ``start``).

``drop``         from a pose at rest (default: the straight arm turned up from hanging until its tip clears the
                 obstacles by 0.3 m), a constant torque (default 0): the arm falls onto the obstacle below it
``swing``        from a pose at rest (default: the straight arm ``angle`` to one side of hanging, the side that
                 makes it swing into an obstacle), a constant torque (default 0): it strikes the obstacle
``press``        the computed-torque law towards a pose whose tip presses an obstacle, plus J_cᵀ(−F_d n) while
                 the tip touches it: the steady normal force is F_d
"""
from __future__ import annotations

import math

import numpy as np

from crossdyn.analytic.contact import ContactLaw
from crossdyn.analytic.gravity_helpers import hanging_configuration
from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian
from crossdyn.inputs.profiles.base import OpenLoopProfile, ProfileError, _scalar, _vector
from crossdyn.inputs.profiles.closed_loop import ComputedTorqueProfile
from crossdyn.inputs.trajectories import per_joint, quintic
from crossdyn.models.spec import ArmSpec


def _tip_inside(spec: ArmSpec, q) -> list[int]:
    """The obstacles (1-based) the tip sphere touches at q (penetration > 0)."""
    law = ContactLaw.of(spec)
    if law is None:
        return []
    return [i + 1 for i, d in enumerate(law.penetration(end_effector(spec.params(), np.asarray(q, float))))
            if d > 0]


def _straight(spec: ArmSpec, q1: float) -> np.ndarray:
    q = np.zeros(spec.n)
    q[0] = q1
    return q


class ContactScenarioProfile(OpenLoopProfile):
    """A constant torque from a start pose at rest (``start`` = (pose, q̇0)): :data:`PROFILES` ``drop`` and
    ``swing``, scenarios of the arm's tip meeting its obstacles (their default poses: :func:`drop_pose`,
    :func:`swing_pose`)."""
    def __init__(self, spec: ArmSpec, name: str, pose, torque=0.0, velocity=0.0, why: str = ""):
        super().__init__(spec.n)
        self.spec, self.name, self.why = spec, name, why
        self.pose = _vector(pose, self.n, "pose")
        self.velocity = _vector(velocity, self.n, "velocity")
        self.torque = _vector(torque, self.n, "torque")
        inside = _tip_inside(spec, self.pose)
        if inside:
            raise ProfileError(f"pose: the tip sphere at {self.pose.round(6).tolist()} rad is already inside "
                               f"obstacle(s) {', '.join(map(str, inside))}; give a pose clear of them")
        self.start = (self.pose.copy(), self.velocity.copy())

    def sample(self, times):
        return np.broadcast_to(self.torque, (len(np.atleast_1d(times)), self.n)).copy()

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "arm": self.spec.name,
                "pose_rad": self.pose.tolist(), "velocity_rad_s": self.velocity.tolist(),
                "torque_nm": self.torque.tolist(), "start": "pose, velocity (the run's q0, qd0 unless given)",
                **({"pose_rule": self.why} if self.why else {})}


def _clearance(spec: ArmSpec, q) -> float:
    """The tip sphere's smallest distance to the obstacles at q (m; < 0 while touching)."""
    law = ContactLaw.of(spec)
    return math.inf if law is None else -float(np.max(law.penetration(end_effector(spec.params(), q))))


DROP_HEIGHT = 0.3
"""m: the default ``drop`` starts with the tip sphere this far from the nearest obstacle."""


def drop_pose(spec: ArmSpec, height: float = DROP_HEIGHT) -> np.ndarray:
    """The default pose of ``drop``: the straight arm turned counter-clockwise from hanging by the smallest angle
    (0.005-rad steps) at which its tip sphere clears every obstacle by ``height`` m: released there, it falls back
    onto the obstacle it hangs into.  The hanging arm must touch an obstacle (else nothing is below it)."""
    hang = hanging_configuration(spec)[0]
    if _clearance(spec, _straight(spec, hang)) > 0:
        raise ProfileError("drop: the hanging straight arm touches no obstacle, there is nothing below it to fall "
                           "onto; give pose=")
    for a in np.arange(0.005, math.pi, 0.005):
        q = _straight(spec, hang + a)
        if _clearance(spec, q) >= height:
            return q
    raise ProfileError(f"drop: no straight pose clears the obstacles by {height:g} m; give pose=")


SWING_ANGLE = 0.8
"""rad: the default ``swing`` starts the straight arm this far from hanging."""


def swing_pose(spec: ArmSpec, angle: float = SWING_ANGLE) -> np.ndarray:
    """The default pose of ``swing``: the straight arm ``angle`` rad to one side of hanging, the side s for which
    the straight arm at hanging + s·angle (where an undamped swing from rest turns back) is inside an obstacle
    and the start is clear of all: a swing from rest there strikes it."""
    hang = hanging_configuration(spec)[0]
    for side in (1.0, -1.0):
        start, far = _straight(spec, hang - side * angle), _straight(spec, hang + side * angle)
        if _tip_inside(spec, far) and not _tip_inside(spec, start):
            return start
    raise ProfileError(f"swing: no obstacle is struck by the straight arm swinging {angle:g} rad either side of "
                       "hanging; give pose= (and angle=)")


def make_drop(spec: ArmSpec, pose=None, torque=0.0, velocity=0.0) -> ContactScenarioProfile:
    """``drop`` for ``spec``: from ``pose`` (default :func:`drop_pose`) with ``velocity``, ``torque`` held.

    The ``pose_rule`` recorded in :meth:`ContactScenarioProfile.params` keeps the old module path, so that
    ``summary.json`` reads as before."""
    why = "" if pose is not None else (f"the straight arm turned from hanging until its tip clears the obstacles by "
                                       f"{DROP_HEIGHT:g} m (crossdyn.drive.profiles.drop_pose)")
    return ContactScenarioProfile(spec, "drop", drop_pose(spec) if pose is None else pose, torque, velocity, why)


def make_swing(spec: ArmSpec, pose=None, torque=0.0, velocity=0.0, angle=SWING_ANGLE) -> ContactScenarioProfile:
    """``swing`` for ``spec``: from ``pose`` (default :func:`swing_pose` with ``angle``) with ``velocity``,
    ``torque`` held (``pose_rule`` as in :func:`make_drop`)."""
    angle = _scalar(angle, "angle", positive=True)
    why = "" if pose is not None else (f"the straight arm {angle:g} rad from hanging on the side that swings into an "
                                       "obstacle (crossdyn.drive.profiles.swing_pose)")
    return ContactScenarioProfile(spec, "swing", swing_pose(spec, angle) if pose is None else pose, torque,
                                  velocity, why)


def _damped_ik(spec: ArmSpec, target, q_start, iterations: int = 200) -> np.ndarray:
    """A configuration near ``q_start`` whose tip is at ``target`` (damped least squares, λ = 1e-3); raises
    :class:`ProfileError` when the target is out of reach (residual > 1e-9 m)."""
    p = spec.params()
    q = np.array(q_start, dtype=float)
    target = np.asarray(target, dtype=float)
    for _ in range(iterations):
        e = target - end_effector(p, q)
        if np.linalg.norm(e) < 1e-13:
            break
        J = end_effector_jacobian(p, q)
        q = q + J.T @ np.linalg.solve(J @ J.T + 1e-6 * np.eye(2), e)
    q = np.angle(np.exp(1j * q))  # each angle in (−π, π]
    if np.linalg.norm(target - end_effector(p, q)) > 1e-9:
        raise ProfileError(f"press: the tip cannot reach ({target[0]:.4g}, {target[1]:.4g}) m (reach "
                           f"{spec.reach():.4g} m); give point=")
    return q


class PressProfile(ComputedTorqueProfile):
    """A computed-torque press of the tip against obstacle ``obstacle`` with a desired normal force F_d:

        τ = M(q)(q̈_d + K_d ė + K_p e) + C(q, q̇) q̇ + G(q) + F(q̇) + [δ(q) > 0] J_tip(q)ᵀ(−F_d n)

    (analytic model; δ the tip sphere's penetration of the obstacle, n its normal).  The desired motion is a
    quintic, rest to rest in ``time`` s, from the approach pose (tip ``approach`` m out from the contact) to the
    press pose q_p, whose tip sphere penetrates by δ* = F_d / k at ``point`` (default: the obstacle's surface
    point nearest the base).  At rest at q_p the contact law gives F_n = k δ* = F_d and the two force terms
    cancel; the equilibrium of M K_p (q_p − q) + J_tipᵀ n (F_n − F_d) = 0 is q = q_p, so the steady normal
    force is F_d exactly (with friction μ > 0 the tangential force vanishes at rest).  Starts at rest at the
    approach pose (``start``).
    """
    name = "press"

    def __init__(self, spec: ArmSpec, force=20.0, obstacle=1, point=None, approach=0.05, time=0.5, **control):
        """``control``: ``kp`` (400), ``kd`` (40) and ``friction`` (True) of :class:`ComputedTorqueProfile`."""
        law = ContactLaw.of(spec)
        if law is None:
            raise ProfileError("press: the arm has no [contact] and [[obstacles]] to press against")
        self.force = _scalar(force, "force", positive=True)
        if isinstance(obstacle, bool) or not float(obstacle).is_integer() or not 1 <= int(obstacle) <= len(law.points):
            raise ProfileError(f"obstacle: must be 1 … {len(law.points)}, got {obstacle!r}")
        self.obstacle = int(obstacle)
        a, nrm = law.points[self.obstacle - 1], law.normals[self.obstacle - 1]
        if point is None:
            surface = (a @ nrm) * nrm  # the surface point nearest the base (the origin's projection)
        else:
            pt = np.asarray(per_joint(point, 2, "point", ProfileError), dtype=float)
            surface = pt - ((pt - a) @ nrm) * nrm
        self.approach = _scalar(approach, "approach", positive=True)
        self.delta_star = self.force / law.stiffness
        self.contact_tip = surface + (law.radius - self.delta_star) * nrm
        self.approach_tip = self.contact_tip + (self.delta_star + self.approach) * nrm
        self.normal, self._law = nrm, law
        hang = hanging_configuration(spec)
        guess = hang + np.array([0.3 * (-1) ** i for i in range(spec.n)])  # away from the straight (singular) arm
        q_far = _damped_ik(spec, self.approach_tip, guess)
        q_press = _damped_ik(spec, self.contact_tip, q_far)
        inside = _tip_inside(spec, q_far)
        if inside:
            raise ProfileError(f"press: the approach pose touches obstacle(s) {', '.join(map(str, inside))}")
        self.move_time = _scalar(time, "time", positive=True)
        super().__init__(spec, quintic([0.0, self.move_time], [q_far, q_press]), **control)
        self.q_press = q_press
        self.start = (q_far.copy(), np.zeros(spec.n))

    def __call__(self, t, q, qd):

        tau = super().__call__(t, q, qd)
        tip = end_effector(self._p, q)
        if self._law.penetration(tip)[self.obstacle - 1] > 0.0:
            tau = tau + end_effector_jacobian(self._p, q).T @ (-self.force * self.normal)
        return tau

    def params(self):
        return {**super().params(), "name": self.name, "force_n": self.force, "obstacle": self.obstacle,
                "normal": self.normal.tolist(), "press_tip_m": self.contact_tip.tolist(),
                "approach_tip_m": self.approach_tip.tolist(), "press_pose_rad": self.q_press.tolist(),
                "penetration_at_press_m": self.delta_star,
                "law": "M(q)(qdd_d + kd*(qd_d - qd) + kp*(q_d - q)) + C(q,qd)qd + G(q) + F(qd) "
                       "+ [d > 0] J_tip^T (-F_d n)"}

