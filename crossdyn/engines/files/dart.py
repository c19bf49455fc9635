"""DART (dartpy 6.x) reading a URDF: ``dart.utils.DartLoader`` with the root joint FIXED.

=========================================  =========================  ============================================
DART default                               here                       knob (``name@key=value``)
=========================================  =========================  ============================================
root joint FLOATING (no ``world`` link)    FIXED                      —
joint damping from ``<dynamics damping>``  0 in DART; stepping adds   ``damping=false`` (stepping without it)
                                           −b q̇ itself (the model's)
Coulomb friction from ``<dynamics          0                          —  (compared as a parameter)
friction>``
position-limit enforcement                 off                        —  (queries; limits are not simulated)
gravity (0, 0, −9.81)                      the model's gravity        —
initial positions moved into the limits    0 (set per query)          —
=========================================  =========================  ============================================

Queries: M = ``getMassMatrix``; G = ``getGravityForces``; bias = ``getCoriolisAndGravityForces``; ID =
``computeInverseDynamics(withExternalForces=False, withDampingForces=False, withSpringForces=False)`` → ``getForces``;
FD = M⁻¹ (τ − bias).  Stepping: crossdyn's RK4 on that forward dynamics (DART's ``World.step`` is semi-implicit Euler
with its own limit handling).  MJCF: unsupported (:data:`MJCF_REASON`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from crossdyn.engines.files.base import FileEngine, FileOptions
from crossdyn.errors import EngineError
from crossdyn.robots.model import Format, RobotModel
from crossdyn.robots.prepare import prepare

MJCF_REASON = ("DART 6.20's dart.utils.MjcfParser ignores <inertial>: every body gets mass 1 kg and inertia identity "
               "(measured on an iiwa MJCF), and it drops joint armature")


@dataclass(frozen=True)
class DartFileOptions(FileOptions):
    pass


class DartFileEngine(FileEngine):
    name = "dart"
    formats = frozenset({Format.URDF})
    unsupported_formats: ClassVar[dict[Format, str]] = {Format.MJCF: MJCF_REASON}
    library = "dartpy"
    extra = "dart"
    Options = DartFileOptions
    integrator = "rk4 (crossdyn's, on DART's M and Coriolis-and-gravity forces)"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        import dartpy as dart  # type: ignore[import-untyped,import-not-found,unused-ignore]

        from crossdyn.engines.dart_engine import _captured_stderr

        self.dart = dart
        self.prepared = prepare(model, self.folder, "dart")
        loader = dart.utils.DartLoader()
        opts = loader.getOptions()
        opts.mDefaultRootJointType = dart.utils.DartLoader.RootJointType.FIXED
        loader.setOptions(opts)
        with _captured_stderr():
            skel = loader.parseSkeleton(dart.common.Uri(str(self.prepared.path)))
        if skel is None:
            raise EngineError(f"dart: DartLoader could not parse {model.source}")
        self.skel = skel
        n = skel.getNumDofs()
        if n != self.n:
            raise EngineError(f"dart: {model.source}: {n} degrees of freedom, expected {self.n}")
        self.file_damping, self.file_friction, self.file_spring = [], [], []
        for i in range(n):
            dof = skel.getDof(i)
            self.file_damping.append(float(dof.getDampingCoefficient()))
            self.file_friction.append(float(dof.getCoulombFriction()))
            self.file_spring.append(float(dof.getSpringStiffness()))
            dof.setDampingCoefficient(0.0)
            dof.setCoulombFriction(0.0)
            dof.setSpringStiffness(0.0)
            dof.setInitialPosition(0.0)
        for j in range(skel.getNumJoints()):
            if skel.getJoint(j).getNumDofs():
                skel.getJoint(j).setLimitEnforcement(False)
        skel.setGravity(np.array(model.gravity, dtype=float))
        self.set_joint_order([skel.getDof(i).getName() for i in range(n)])

    def _at(self, q: np.ndarray, v: np.ndarray | None = None) -> None:
        self.skel.setPositions(q)
        self.skel.setVelocities(np.zeros(self.n) if v is None else v)

    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray:
        out = np.empty((Q.shape[0], self.n, self.n))
        for k in range(Q.shape[0]):
            self._at(Q[k])
            out[k] = self.skel.getMassMatrix()
        return out

    def _gravity(self, Q: np.ndarray) -> np.ndarray:
        out = np.empty_like(Q)
        for k in range(Q.shape[0]):
            self._at(Q[k])
            out[k] = self.skel.getGravityForces()
        return out

    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
        out = np.empty_like(Q)
        for k in range(Q.shape[0]):
            self._at(Q[k], QD[k])
            out[k] = self.skel.getCoriolisAndGravityForces()
        return out

    def _inverse_dynamics(self, Q: np.ndarray, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:
        skel = self.skel
        out = np.empty_like(Q)
        for k in range(Q.shape[0]):
            self._at(Q[k], QD[k])
            skel.setAccelerations(QDD[k])
            skel.computeInverseDynamics(False, False, False)
            out[k] = skel.getForces()
        return out

    def config(self) -> dict:
        names = list(self.model.joint_names)
        by = [int(i) for i in self._idx]
        return {**self.base_config(),
                "library": "dartpy " + str(getattr(self.dart, "__version__", "?")),
                "loader": f"dart.utils.DartLoader.parseSkeleton({self.prepared.path.name}), root joint FIXED "
                          "(DART's default FLOATING)",
                "copy_removed": list(self.prepared.removed),
                "gravity_set": "skeleton.setGravity(the model's gravity)",
                "dart_damping_read": dict(zip(names, [self.file_damping[i] for i in by])),
                "dart_coulomb_friction_read": dict(zip(names, [self.file_friction[i] for i in by])),
                "dart_spring_stiffness_read": dict(zip(names, [self.file_spring[i] for i in by])),
                "neutralised": "damping coefficient, Coulomb friction and spring stiffness set to 0 in DART "
                               "(stepping adds the model's -b*qd itself); position-limit enforcement off",
                "armature": "none (DART 6 has no joint armature; a URDF has none)"}
