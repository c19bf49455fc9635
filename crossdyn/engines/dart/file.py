"""DART (dartpy 6.x) reading a URDF: ``dart.utils.DartLoader`` with the root joint FIXED.

=========================================  =========================  ============================================
DART default                               here                       knob (``name@key=value``)
=========================================  =========================  ============================================
root joint FLOATING (no ``world`` link)    FIXED                      —
joint damping from ``<dynamics damping>``  0 in DART; stepping adds   ``damping=false`` (stepping without it)
                                           −b q̇ itself (the model's);
                                           native_step: DART's own
Coulomb friction from ``<dynamics          0                          ``coulomb_friction=true`` (World.step)
friction>``
position-limit enforcement                 off                        ``enforce_limits=true``
own integrator (World.step)                crossdyn's RK4             ``native_step=true``
gravity (0, 0, −9.81)                      the model's gravity        —
initial positions moved into the limits    0 (set per query)          —
=========================================  =========================  ============================================

Queries: M = ``getMassMatrix``; G = ``getGravityForces``; bias = ``getCoriolisAndGravityForces``; ID =
``computeInverseDynamics(withExternalForces=False, withDampingForces=False, withSpringForces=False)`` → ``getForces``;
FD = M⁻¹ (τ − bias); none of them includes damping, friction or limits.  Stepping: crossdyn's RK4 on that forward
dynamics, or with ``native_step=true`` DART's ``World.step`` (semi-implicit Euler, the only one dartpy exposes).  MJCF: unsupported (:data:`MJCF_REASON`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from crossdyn.engines.file_engine import FileEngine, FileOptions
from crossdyn.errors import EngineError
from crossdyn.robots.model import Format, RobotModel
from crossdyn.robots.prepare import prepare

MJCF_REASON = ("DART 6.20's dart.utils.MjcfParser ignores <inertial>: every body gets mass 1 kg and inertia identity "
               "(measured on an iiwa MJCF), and it drops joint armature")


@dataclass(frozen=True)
class DartFileOptions(FileOptions):
    native_step: bool = False
    """Step with DART's own ``World.step`` (semi-implicit Euler; the file's damping as DART's damping coefficient
    when ``damping``) instead of crossdyn's RK4 on DART's forward dynamics."""
    enforce_limits: bool = False
    """DART's position-limit enforcement (``setLimitEnforcement``), in ``World.step`` only: the planar adapter's
    option of the same name (``dart@enforce_limits=true`` on every arm kind)."""
    coulomb_friction: bool = False
    """DART's joint Coulomb friction from the URDF's ``<dynamics friction>``, in ``World.step`` only."""


class DartFileEngine(FileEngine):
    name = "dart"
    formats = frozenset({Format.URDF})
    unsupported_formats: ClassVar[dict[Format, str]] = {Format.MJCF: MJCF_REASON}
    Options = DartFileOptions
    integrator = "rk4 (crossdyn's, on DART's M and Coriolis-and-gravity forces)"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        import dartpy as dart  # type: ignore[import-untyped,import-not-found,unused-ignore]

        from crossdyn.engines.dart.planar import _captured_stderr

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
            native = self.options.native_step
            dof.setDampingCoefficient(self.file_damping[-1] if native and self.options.damping else 0.0)
            dof.setCoulombFriction(self.file_friction[-1] if native and self.options.coulomb_friction else 0.0)
            dof.setSpringStiffness(0.0)
            dof.setInitialPosition(0.0)
        for j in range(skel.getNumJoints()):
            if skel.getJoint(j).getNumDofs():
                skel.getJoint(j).setLimitEnforcement(bool(self.options.enforce_limits))
        skel.setGravity(np.array(model.gravity, dtype=float))
        self.set_joint_order([skel.getDof(i).getName() for i in range(n)])
        if self.options.native_step:
            self.integrator = "semi-implicit Euler (DART's World.step)"
            self.world = dart.simulation.World()
            self.world.setTimeStep(self.dt)
            self.world.setGravity(np.array(model.gravity, dtype=float))
            self.world.addSkeleton(skel)

    def reset(self, q: np.ndarray, qd: np.ndarray) -> None:
        super().reset(q, qd)
        if self.options.native_step:
            skel = self.skel
            skel.setPositions(self.to_engine(self._q[None])[0])
            skel.setVelocities(self.to_engine(self._qd[None])[0])
            skel.resetAccelerations()
            skel.clearInternalForces()
            skel.clearExternalForces()
            self.world.setTime(0.0)

    def step(self, tau: np.ndarray) -> None:
        if not self.options.native_step:
            super().step(tau)
            return
        self.skel.setForces(self.to_engine(np.reshape(np.asarray(tau, dtype=float), (1, self.n)))[0])
        self.world.step()
        self._q = self.to_model(np.asarray(self.skel.getPositions())[None])[0]
        self._qd = self.to_model(np.asarray(self.skel.getVelocities())[None])[0]

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
                "neutralised": "spring stiffness 0; Coulomb friction 0 (coulomb_friction=true: the file's, World.step "
                               "only); damping coefficient 0 unless native_step (crossdyn's RK4 adds -b*qd itself); "
                               "position-limit enforcement off (enforce_limits=true: on, World.step only)",
                "stepping": ("DART's World.step (semi-implicit Euler)" if self.options.native_step
                             else "crossdyn's RK4 on DART's forward dynamics"),
                "armature": "none (DART 6 has no joint armature; a URDF has none)"}
