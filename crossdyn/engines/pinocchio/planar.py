"""Pinocchio as an engine: its rigid-body algorithms on the generated URDF, crossdyn's integrators.

* Model: ``pin.buildModelFromXML(to_urdf(spec))`` — ``revolute`` joints, so one
  coordinate per joint (nq = nv = n); the joint order is checked.
* Gravity: Pinocchio's default is −z; it is set to the spec's vector
  (``model.gravity.linear``).
* Mass matrix: ``crba``, symmetrised (older releases fill only the upper triangle).
* Inverse dynamics: ``rnea`` + F(q̇); forward dynamics: ``aba`` with τ − F(q̇).
  Pinocchio's ``aba``/``rnea`` ignore the URDF ``<dynamics>`` damping and friction
  (it stores them in ``model.damping``/``model.friction``), so the spec's joint
  friction F(q̇) = b ⊙ q̇ + f_c ⊙ sign(q̇) is added/subtracted explicitly — exactly
  the analytic model's friction law.
* Armature (reflected rotor inertia): the URDF has no field for it; the adapter sets
  ``model.armature`` from the spec, which ``crba``, ``rnea``, ``aba`` and
  ``computeKineticEnergy`` add on the diagonal of M (Pinocchio 4; tested against the analytic model).
* Energy: ``computeKineticEnergy`` and ``computePotentialEnergy`` (−Σ m g·p_c).
* Time stepping: ABA as the forward dynamics inside crossdyn's integrators
  (:data:`crossdyn.analytic.integrators.STEPS`; ``rk4`` by default, ``semi-implicit-euler``
  for ``pinocchio-euler``), zero-order hold torque.
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin  # type: ignore[import-untyped,import-not-found,unused-ignore]

from crossdyn.analytic.integrators import STEPS
from crossdyn.engines.base import Capabilities, Engine, EngineError
from crossdyn.models.inertia import engine_inertias
from crossdyn.models.spec import ArmSpec
from crossdyn.models.urdf import to_urdf


class PinocchioEngine(Engine):
    name = "pinocchio"
    capabilities = Capabilities(native_friction=True, armature=True, tip_frame=True)

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, integrator: str = "rk4"):
        super().__init__(spec, dt)
        if integrator not in STEPS:
            raise EngineError(f"pinocchio integrator: must be one of {', '.join(STEPS)}, got {integrator!r}")
        self.integrator = integrator
        self.name = "pinocchio" if integrator == "rk4" else f"pinocchio-{integrator}"
        self._step = STEPS[integrator]
        try:
            self.model = pin.buildModelFromXML(to_urdf(spec))
        except (RuntimeError, ValueError) as e:
            raise EngineError(f"pinocchio: could not build {spec.name!r}: {e}") from None
        m = self.model
        if m.nq != self.n or m.nv != self.n:
            raise EngineError(f"pinocchio: model has nq={m.nq}, nv={m.nv}; expected {self.n} (revolute joints)")
        names = list(m.names)[1:]
        if names != [f"joint{i}" for i in range(1, self.n + 1)] or \
                [j.idx_q for j in m.joints][1:] != list(range(self.n)):
            raise EngineError(f"pinocchio: unexpected joint order {names}")
        m.gravity.linear = np.array(spec.gravity, dtype=float)
        if spec.has_armature:  # the URDF cannot carry it
            m.armature = np.array([lk.armature for lk in spec.links], dtype=float)
        self.data = m.createData()
        params = spec.params()
        self._b = params.b
        self._fc = params.fc
        self._has_fc = bool(np.any(self._fc))
        if not self._has_fc and not np.any(self._b):
            self._fd = self._aba_frictionless()  # type: ignore[method-assign]
        self._q = np.zeros(self.n)
        self._qd = np.zeros(self.n)

    def _friction(self, qd):
        if self._has_fc:
            return self._b * qd + self._fc * np.sign(qd)
        return self._b * qd

    def _fd(self, q, qd, tau):
        return pin.aba(self.model, self.data, q, qd, tau - self._friction(qd))

    def _aba_frictionless(self):
        """q̈ = ABA(q, q̇, τ) for an arm without joint friction (τ − 0·q̇ is τ): a closure over pin.aba, the model
        and its data, so a step spends no Python on the friction (4 calls per RK4 step)."""
        aba, model, data = pin.aba, self.model, self.data
        return lambda q, qd, tau: aba(model, data, q, qd, tau)

    # ------------------------------------------------------------------ simulation
    def reset(self, q, qd) -> None:
        self._q = np.array(q, dtype=float).reshape(self.n)
        self._qd = np.array(qd, dtype=float).reshape(self.n)

    def step(self, tau) -> None:
        self._q, self._qd = self._step(self._fd, self._q, self._qd, np.asarray(tau, dtype=float), self.dt)

    def state(self):
        return self._q.copy(), self._qd.copy()

    def read_state_into(self, q_out: np.ndarray, qd_out: np.ndarray) -> None:
        q_out[:] = self._q
        qd_out[:] = self._qd

    # ------------------------------------------------------------------ queries
    def inverse_dynamics(self, q, qd, qdd):
        qd = np.asarray(qd, dtype=float)
        return pin.rnea(self.model, self.data, np.asarray(q, float), qd, np.asarray(qdd, float)) + self._friction(qd)

    def mass_matrix(self, q):
        M = pin.crba(self.model, self.data, np.asarray(q, dtype=float))
        return np.triu(M) + np.triu(M, 1).T

    def forward_dynamics(self, q, qd, tau):
        return self._fd(np.asarray(q, float), np.asarray(qd, float), np.asarray(tau, float))

    def energy(self, q, qd):
        q = np.asarray(q, dtype=float)
        T = pin.computeKineticEnergy(self.model, self.data, q, np.asarray(qd, dtype=float))
        U = pin.computePotentialEnergy(self.model, self.data, q)
        return float(T), float(U)

    tip_source = ("Pinocchio frame 'tip': forwardKinematics, updateFramePlacement, getFrameVelocity and "
                  "computeFrameJacobian in LOCAL_WORLD_ALIGNED")

    def tip_kinematics(self, q=None, qd=None):
        """The ``tip`` frame's world position, linear velocity and translational Jacobian (x–y rows), by
        Pinocchio, at (q, q̇) or the engine's current state."""
        m, d = self.model, self.data
        fid = self.__dict__.get("_tip_frame")
        if fid is None:
            if not m.existFrame("tip"):
                raise EngineError("pinocchio: the model has no 'tip' frame (the arm has no [contact])")
            fid = self._tip_frame = m.getFrameId("tip")
        q = self._q if q is None else np.asarray(q, dtype=float)
        qd = (self._qd if q is self._q else np.zeros(self.n)) if qd is None else np.asarray(qd, dtype=float)
        pin.forwardKinematics(m, d, q, qd)
        placement = pin.updateFramePlacement(m, d, fid)
        v = pin.getFrameVelocity(m, d, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED).linear
        J = pin.computeFrameJacobian(m, d, q, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        return placement.translation[:2].copy(), np.array(v[:2]), np.array(J[:2])

    # ------------------------------------------------------------------ description
    def config(self) -> dict:
        m = self.model
        _, subs = engine_inertias(self.spec)
        return {
            "engine": "pinocchio", "version": pin.__version__, "integrator": self.integrator, "dt": self.dt,
            "model_source": "generated URDF (buildModelFromXML)", "forward_dynamics": "aba",
            "inverse_dynamics": "rnea", "mass_matrix": "crba, symmetrised",
            "torque_sampling": "zero-order hold at step start",
            "gravity": [float(g) for g in m.gravity.linear],
            "joint_damping": [lk.damping for lk in self.spec.links],
            "joint_friction": [lk.friction for lk in self.spec.links],
            "friction_model": "F = b*qd + fc*sign(qd), applied by the adapter (aba/rnea ignore URDF dynamics)",
            "urdf_damping_read": [float(x) for x in m.damping],
            "urdf_friction_read": [float(x) for x in m.friction],
            "armature": [float(x) for x in m.armature],
            **({"armature_source": "model.armature set from the spec (the URDF has no armature field)"}
               if self.spec.has_armature else {}),
            "masses": [float(m.inertias[i].mass) for i in range(1, self.n + 1)],
            "com_offsets": [[float(v) for v in m.inertias[i].lever] for i in range(1, self.n + 1)],
            "inertia_zz": [float(m.inertias[i].inertia[2, 2]) for i in range(1, self.n + 1)],
            "inertia_substitutions": [s.as_dict() for s in subs],
        }
