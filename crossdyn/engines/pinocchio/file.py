"""Pinocchio reading a robot file: ``buildModelFromUrdf`` (URDF) or ``buildModelFromMJCF`` (MJCF, Pinocchio ≥ 3).

* The root is fixed (no root joint given): the file's base is welded to the world.
* Gravity: Pinocchio's default (0, 0, −9.81) is replaced by the model's (``model.gravity.linear``).
* Armature: ``model.armature`` — the MJCF parser fills it from the joints' ``armature``; the URDF has none (0).
  ``crba``/``rnea``/``aba`` add it on M's diagonal.
* Joint damping and friction: Pinocchio stores them (``model.damping``, ``model.friction``) and its algorithms ignore
  them, so the queries exclude them as the interface asks; stepping adds −b q̇ explicitly (option ``damping``).
* A ``continuous`` joint is two coordinates (cos q, sin q) in Pinocchio: the adapter converts q ↔ (cos, sin).
* Stepping: crossdyn's integrator of the engine name on ``aba`` with −b q̇, τ held over dt — classical RK4
  (``pinocchio``, ``pinocchio-rk4``) or semi-implicit Euler q̇ ← q̇ + dt q̈, q ← q + dt q̇⁺ (``pinocchio-euler``), as
  the planar adapter steps each name.
* Batched paths: ``computeAllTerms`` per state gives M (crba, symmetrised) and the bias (nle); ID is ``rnea``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from crossdyn.engines.file_engine import FileEngine, FileOptions
from crossdyn.errors import EngineError
from crossdyn.robots.model import Format, RobotModel
from crossdyn.robots.prepare import prepare
from crossdyn.steps import semi_implicit_euler_step


@dataclass(frozen=True)
class PinocchioFileOptions(FileOptions):
    armature: bool = True
    """Keep the armature Pinocchio read from the file (False: model.armature = 0)."""
    integrator: str = "rk4"
    """crossdyn's scheme on Pinocchio's ``aba`` (:data:`INTEGRATORS`): ``rk4`` (``pinocchio``, ``pinocchio-rk4``) or
    ``semi-implicit-euler`` (``pinocchio-euler``), as the planar adapter names them."""


INTEGRATORS = {"rk4": "rk4 (crossdyn's, on Pinocchio's aba)",
               "semi-implicit-euler": "semi-implicit Euler (crossdyn's, on Pinocchio's aba)"}
"""Each scheme the adapter steps with → its ``integrator`` text (the config's)."""


class PinocchioFileEngine(FileEngine):
    name = "pinocchio"
    loaders: ClassVar[dict[Format, str]] = {Format.URDF: "buildModelFromUrdf", Format.MJCF: "buildModelFromMJCF"}
    """Per format read natively, Pinocchio's loader."""
    formats = frozenset(loaders)
    Options = PinocchioFileOptions
    integrator = "rk4 (crossdyn's, on Pinocchio's aba)"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        if self.options.integrator not in INTEGRATORS:
            raise EngineError(f"pinocchio integrator: one of {', '.join(INTEGRATORS)}, got {self.options.integrator!r}")
        self.integrator = INTEGRATORS[self.options.integrator]
        import pinocchio as pin  # type: ignore[import-untyped,import-not-found,unused-ignore]

        self.pin = pin
        self.prepared = prepare(model, self.folder, "pinocchio")
        path = str(self.prepared.path)
        try:
            self.pmodel = getattr(pin, self.loaders[model.format])(path)
        except (RuntimeError, ValueError, IndexError) as e:
            raise EngineError(f"pinocchio: could not load {model.source}: {e}") from None
        m = self.pmodel
        self.file_armature = np.array(m.armature, dtype=float).copy()
        if not self.options.armature:
            m.armature = np.zeros(m.nv)
        m.gravity.linear = np.array(model.gravity, dtype=float)
        self.data = m.createData()
        joints = list(m.joints)[1:]
        names = list(m.names)[1:]
        if any(j.nv != 1 for j in joints) or m.nv != len(names):
            raise EngineError(f"pinocchio: {model.source}: joints with other than one degree of freedom "
                              f"({[j.shortname() for j in joints]})")
        self.set_joint_order(names)
        self._vidx = np.array([j.idx_v for j in joints])
        self._qidx = np.array([j.idx_q for j in joints])
        self._circle = np.array([j.nq == 2 for j in joints])  # continuous: (cos, sin)

    def step(self, tau: np.ndarray) -> None:
        """One step of dt, τ held: the base class's RK4, or semi-implicit Euler on the same q̈ (damping explicit)."""
        if self.options.integrator == "rk4":
            super().step(tau)
            return
        tau = np.asarray(tau, dtype=float).reshape(self.n)
        self._q, self._qd = semi_implicit_euler_step(self._qdd, self._q, self._qd, tau, self.dt)

    def _to_pin_q(self, Q: np.ndarray) -> np.ndarray:
        """Engine-order angles (N, n) → Pinocchio configurations (N, nq)."""
        out = np.zeros((Q.shape[0], self.pmodel.nq))
        for k, (iq, circ) in enumerate(zip(self._qidx, self._circle)):
            col = Q[:, k]
            if circ:
                out[:, iq], out[:, iq + 1] = np.cos(col), np.sin(col)
            else:
                out[:, iq] = col
        return out

    def _v(self, X: np.ndarray) -> np.ndarray:
        out = np.empty_like(X)
        out[:, self._vidx] = X
        return out

    def _unv(self, X: np.ndarray) -> np.ndarray:
        return X[:, self._vidx]

    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray:
        pin, m, d = self.pin, self.pmodel, self.data
        P = self._to_pin_q(Q)
        out = np.empty((Q.shape[0], self.n, self.n))
        for k in range(Q.shape[0]):
            M = pin.crba(m, d, P[k])
            M = np.triu(M) + np.triu(M, 1).T
            out[k] = M[np.ix_(self._vidx, self._vidx)]
        return out

    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
        pin, m, d = self.pin, self.pmodel, self.data
        P, V = self._to_pin_q(Q), self._v(QD)
        return self._unv(np.array([pin.nonLinearEffects(m, d, P[k], V[k]) for k in range(Q.shape[0])]))

    def _gravity(self, Q: np.ndarray) -> np.ndarray:
        pin, m, d = self.pin, self.pmodel, self.data
        P = self._to_pin_q(Q)
        return self._unv(np.array([pin.computeGeneralizedGravity(m, d, P[k]) for k in range(Q.shape[0])]))

    def _inverse_dynamics(self, Q: np.ndarray, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:
        pin, m, d = self.pin, self.pmodel, self.data
        P, V, A = self._to_pin_q(Q), self._v(QD), self._v(QDD)
        return self._unv(np.array([pin.rnea(m, d, P[k], V[k], A[k]) for k in range(Q.shape[0])]))

    def _forward_dynamics(self, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray) -> np.ndarray:
        pin, m, d = self.pin, self.pmodel, self.data
        P, V, T = self._to_pin_q(Q), self._v(QD), self._v(TAU)
        return self._unv(np.array([pin.aba(m, d, P[k], V[k], T[k]) for k in range(Q.shape[0])]))

    def config(self) -> dict:
        m = self.pmodel
        loader = self.loaders[self.model.format]
        return {**self.base_config(),
                "library": f"pinocchio {self.pin.__version__}",
                "loader": f"pinocchio.{loader}({self.prepared.path.name}), fixed base (no root joint)",
                "copy_removed": list(self.prepared.removed),
                "gravity_set": "model.gravity.linear = the model's gravity (Pinocchio's default (0, 0, -9.81))",
                "armature": self._by_joint(np.array(m.armature)),
                "armature_read_from_file": self._by_joint(self.file_armature),
                "joint_damping_read": self._by_joint(np.array(m.damping)),
                "joint_friction_read": self._by_joint(np.array(m.friction)),
                "damping_friction": "stored by Pinocchio, ignored by crba/rnea/aba; stepping adds -b*qd (b: model)",
                "continuous_joints": [n for n, c in zip(list(m.names)[1:], self._circle) if c]}

    def _by_joint(self, v: np.ndarray) -> dict:
        names = list(self.pmodel.names)[1:]
        return {name: float(v[iv]) for name, iv in zip(names, self._vidx)}
