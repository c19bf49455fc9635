"""Closed-loop profiles: τ from the engine's own state through the *analytic* model, the same law for every
engine.

``pd-gravity``        τ = K_p (q_d − q) + K_d (q̇_d − q̇) + G(q)  (q_d fixed or from a trajectory; q̇_d = 0
                      for a fixed target, so τ = K_p (q_d − q) − K_d q̇ + G(q))
``computed-torque``   τ = M(q) (q̈_d + K_d ė + K_p e) + C(q, q̇) q̇ + G(q) + F(q̇),  e = q_d − q,
                      tracking a :class:`~crossdyn.inputs.trajectories.JointTrajectory`
"""
from __future__ import annotations

import numpy as np

from crossdyn import analytic
from crossdyn.inputs.profiles.base import Profile, ProfileError, _vector
from crossdyn.inputs.trajectories import JointTrajectory
from crossdyn.models.spec import ArmSpec


class PDGravityProfile(Profile):
    """τ = K_p (q_d − q) + K_d (q̇_d − q̇) + G(q), G from the analytic model of ``spec``.

    ``target`` is a fixed configuration (q̇_d = 0) or a :class:`JointTrajectory`.
    """

    name = "pd-gravity"
    closed_loop = True

    def __init__(self, spec: ArmSpec, target=None, kp=100.0, kd=20.0):
        super().__init__(spec.n)
        self.spec = spec
        self._p = spec.params()
        self.kp = _vector(kp, self.n, "kp")
        self.kd = _vector(kd, self.n, "kd")
        self.trajectory: JointTrajectory | None
        self.target: np.ndarray | None
        if isinstance(target, JointTrajectory):
            if target.n != self.n:
                raise ProfileError(f"target: trajectory has {target.n} joints, the arm has {self.n}")
            self.trajectory, self.target = target, None
        else:
            self.trajectory = None
            self.target = np.zeros(self.n) if target is None else _vector(target, self.n, "target")
            self._zero = np.zeros(self.n)

    def reference(self, t):
        if self.trajectory is None:
            return self.target, self._zero
        qd_, vd_, _ = self.trajectory(t)
        return qd_, vd_

    def __call__(self, t, q, qd):
        q_d, v_d = self.reference(t)
        return self.kp * (q_d - q) + self.kd * (v_d - qd) + analytic.gravity(self._p, q)

    def params(self):
        return {"name": self.name, "closed_loop": True, "n": self.n, "arm": self.spec.name,
                "kp": self.kp.tolist(), "kd": self.kd.tolist(),
                "target": self.target.tolist() if self.target is not None else self.trajectory.params(),
                "model": "analytic G(q)", "law": "kp*(q_d - q) + kd*(qd_d - qd) + G(q)"}


class ComputedTorqueProfile(Profile):
    """τ = M(q) (q̈_d + K_d ė + K_p e) + C(q, q̇) q̇ + G(q) + F(q̇), e = q_d − q, from the analytic model.

    ``friction=False`` leaves out F(q̇) (then an engine's joint friction shows as tracking error).
    """

    name = "computed-torque"
    closed_loop = True

    def __init__(self, spec: ArmSpec, trajectory: JointTrajectory, kp=400.0, kd=40.0, friction: bool = True):
        super().__init__(spec.n)
        if not isinstance(trajectory, JointTrajectory):
            raise ProfileError(f"trajectory: must be a JointTrajectory (see crossdyn.inputs.trajectories), "
                               f"got {type(trajectory).__name__}")
        if trajectory.n != self.n:
            raise ProfileError(f"trajectory: has {trajectory.n} joints, the arm has {self.n}")
        self.spec = spec
        self._p = spec.params() if friction else spec.params()._replace(b=np.zeros(spec.n), fc=np.zeros(spec.n))
        self.trajectory = trajectory
        self.kp = _vector(kp, self.n, "kp")
        self.kd = _vector(kd, self.n, "kd")
        self.friction = bool(friction)

    def __call__(self, t, q, qd):
        q_d, v_d, a_d = self.trajectory(t)
        a = a_d + self.kd * (v_d - qd) + self.kp * (q_d - q)
        return analytic.mass_matrix(self._p, q) @ a + analytic.bias(self._p, q, qd)

    def params(self):
        return {"name": self.name, "closed_loop": True, "n": self.n, "arm": self.spec.name,
                "kp": self.kp.tolist(), "kd": self.kd.tolist(), "friction_compensation": self.friction,
                "trajectory": self.trajectory.params(), "model": "analytic M, C, G, F",
                "law": "M(q)(qdd_d + kd*(qd_d - qd) + kp*(q_d - q)) + C(q,qd)qd + G(q) + F(qd)"}

