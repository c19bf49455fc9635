"""PyBullet reading a URDF: ``loadURDF(useFixedBase=True)`` in a DIRECT client of its own.

=====================================  ===========================  ================================================
PyBullet default                       here                         knob (``name@key=value``)
=====================================  ===========================  ================================================
inertia from the collision shapes      ``URDF_USE_INERTIA_FROM_FILE``  ``inertia_from_file=false`` (= pybullet-noflag)
link damping 0.04 (linear, angular)    0                            ``link_damping=0.04``
joint velocity clamp 100 rad/s         1e4 rad/s                    ``max_joint_velocity=100``
the URDF's revolute/prismatic          off: ±1e6 set by             ``limits=true``
``<limit>`` enforced in stepSimulation ``changeDynamics`` after
                                       ``loadURDF``
velocity motors on every joint         force 0                      —
time step 1/240 s, gravity 0           dt, the model's gravity      —
=====================================  ===========================  ================================================

``limits`` is this adapter's name on every arm it loads from a file: a user's robot file and a spatial preset (whose
URDF crossdyn writes with the joints' ``<limit>``, e.g. pan-tilt's tilt [-1.5, 1.5] rad; crossdyn's model has no limit
law there).  The planar adapter's ``native_limits`` means something else (PyBullet's limit in place of the spec's
compliant limit law, judged by ``compare --native``); either name given where the other applies exits 2 saying so
(:data:`crossdyn.engines.registry.KNOBS_OF_THE_OTHER_ARM_KIND`).

``pybullet-noflag`` is PyBullet's own default (no flag): its copy keeps the ``<collision>`` elements (mesh paths made
absolute) because that is where PyBullet takes the inertias from.  Queries: ``calculateMassMatrix``,
``calculateInverseDynamics`` (plain lists of floats: numpy arrays crash it); bias = ID at q̈ = 0; gravity = ID at
q̇ = q̈ = 0; FD = M⁻¹(τ − bias).  PyBullet has no armature: a file with armature (MJCF) is not read anyway.
URDF ``<dynamics damping>`` is PyBullet's jointDamping, applied in ``stepSimulation`` only (option ``damping``);
``calculateInverseDynamics`` ignores it.  MJCF is unsupported (:data:`MJCF_REASON`, measured).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from crossdyn.engines.file_engine import FileEngine, FileOptions
from crossdyn.errors import EngineError
from crossdyn.robots.model import Format, RobotModel
from crossdyn.robots.prepare import prepare

MJCF_REASON = ("PyBullet 3.2.7's loadMJCF applies no MJCF defaults (joints without an explicit type and axis are "
               "dropped: an iiwa MJCF written by MuJoCo loaded as one body with 0 joints), reads an <inertial>'s mass but "
               "not its inertia (local inertia diagonal 0 for diaginertia 0.1 0.09 0.02) and has no joint armature")


UNLIMITED = 1e6
"""The joint limits set after ``loadURDF`` when ``limits`` is off (rad or m): out of any motion's reach."""


@dataclass(frozen=True)
class PyBulletFileOptions(FileOptions):
    inertia_from_file: bool = True
    """``URDF_USE_INERTIA_FROM_FILE`` (False: PyBullet's default, inertia from the collision shapes)."""
    link_damping: float = 0.0
    """Links' linearDamping = angularDamping (PyBullet's default 0.04)."""
    max_joint_velocity: float = 1e4
    """maxJointVelocity, rad/s (PyBullet's default 100)."""
    limits: bool = False
    """Keep PyBullet's enforcement of the URDF's ``<limit lower upper>`` in ``stepSimulation`` (its default: a joint
    driven past its limit stops there).  False: ``changeDynamics(jointLowerLimit=-1e6, jointUpperLimit=1e6)`` on
    every joint after ``loadURDF``, so that a motion past a limit is integrated as crossdyn's limitless model is
    (measured on pybullet_data's kuka_iiwa: 5.84 rad from the reference with the limits on, 3.3e-12 rad from
    crossdyn's semi-implicit Euler off)."""


@dataclass(frozen=True)
class PyBulletNoFlagOptions(PyBulletFileOptions):
    inertia_from_file: bool = False


class PyBulletFileEngine(FileEngine):
    name = "pybullet"
    formats = frozenset({Format.URDF})
    unsupported_formats: ClassVar[dict[Format, str]] = {Format.MJCF: MJCF_REASON}
    Options = PyBulletFileOptions
    integrator = "semi-implicit Euler (PyBullet's only)"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        from crossdyn.engines.pybullet.library import p, quiet  # quietly: no build banner

        self.p = p
        opt = self.options
        self.prepared = prepare(model, self.folder, self.name.split("@")[0], keep_collision=not opt.inertia_from_file)
        self.cid = cid = p.connect(p.DIRECT)
        flags = p.URDF_USE_INERTIA_FROM_FILE if opt.inertia_from_file else 0
        try:
            with quiet(1, 2):  # the importer's b3Warning lines (a link without <inertial>: audit names that)
                self.body = body = p.loadURDF(str(self.prepared.path), useFixedBase=True, flags=flags,
                                              physicsClientId=cid)
        except p.error as e:
            p.disconnect(cid)
            raise EngineError(f"pybullet: could not load {model.source}: {e}") from None
        p.setGravity(*[float(g) for g in model.gravity], physicsClientId=cid)
        p.setTimeStep(self.dt, physicsClientId=cid)
        self._joints: list[int] = []
        names, damping = [], []
        for j in range(p.getNumJoints(body, physicsClientId=cid)):
            info = p.getJointInfo(body, j, physicsClientId=cid)
            p.changeDynamics(body, j, linearDamping=opt.link_damping, angularDamping=opt.link_damping,
                             maxJointVelocity=opt.max_joint_velocity, physicsClientId=cid)
            if info[2] in (p.JOINT_REVOLUTE, p.JOINT_PRISMATIC):
                if not opt.limits:
                    p.changeDynamics(body, j, jointLowerLimit=-UNLIMITED, jointUpperLimit=UNLIMITED,
                                     physicsClientId=cid)
                self._joints.append(j)
                names.append(info[1].decode())
                damping.append(float(info[6]))
                p.setJointMotorControl2(body, j, p.VELOCITY_CONTROL, force=0, physicsClientId=cid)
        p.changeDynamics(body, -1, linearDamping=opt.link_damping, angularDamping=opt.link_damping,
                         physicsClientId=cid)
        self.file_damping = damping
        self.set_joint_order(names)
        self._zero = [0.0] * len(self._joints)

    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray:
        p, body, cid = self.p, self.body, self.cid
        return np.array([p.calculateMassMatrix(body, q.tolist(), physicsClientId=cid) for q in Q], dtype=float)

    def _inverse_dynamics(self, Q: np.ndarray, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:
        p, body, cid = self.p, self.body, self.cid
        return np.array([p.calculateInverseDynamics(body, q.tolist(), v.tolist(), a.tolist(), physicsClientId=cid)
                         for q, v, a in zip(Q, QD, QDD)], dtype=float)

    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
        return self._inverse_dynamics(Q, QD, np.zeros_like(Q))

    def reset(self, q: np.ndarray, qd: np.ndarray) -> None:
        p = self.p
        qe = self.to_engine(np.reshape(np.asarray(q, dtype=float), (1, self.n)))[0]
        ve = self.to_engine(np.reshape(np.asarray(qd, dtype=float), (1, self.n)))[0]
        for j, qj, vj in zip(self._joints, qe, ve):
            p.resetJointState(self.body, j, float(qj), float(vj), physicsClientId=self.cid)

    def step(self, tau: np.ndarray) -> None:
        p = self.p
        te = self.to_engine(np.reshape(np.asarray(tau, dtype=float), (1, self.n)))[0]
        if not self.options.damping:  # PyBullet applies the URDF's jointDamping itself: cancel it explicitly
            _, qd = self._engine_state()
            te = te + np.array(self.file_damping) * qd
        p.setJointMotorControlArray(self.body, self._joints, p.TORQUE_CONTROL, forces=[float(t) for t in te],
                                    physicsClientId=self.cid)
        p.stepSimulation(physicsClientId=self.cid)

    def _engine_state(self) -> tuple[np.ndarray, np.ndarray]:
        states = self.p.getJointStates(self.body, self._joints, physicsClientId=self.cid)
        return np.array([s[0] for s in states]), np.array([s[1] for s in states])

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        q, qd = self._engine_state()
        return self.to_model(q[None])[0], self.to_model(qd[None])[0]

    def config(self) -> dict:
        opt = self.options
        return {**self.base_config(),
                "library": "pybullet " + str(self.p.getAPIVersion()),
                "loader": f"loadURDF({self.prepared.path.name}, useFixedBase=True, flags="
                          + ("URDF_USE_INERTIA_FROM_FILE)" if opt.inertia_from_file else "0)"),
                "copy_removed": list(self.prepared.removed),
                "inertia": ("from the file (URDF_USE_INERTIA_FROM_FILE)" if opt.inertia_from_file else
                            "PyBullet's default: computed from the collision shapes (the file's <inertial> ignored "
                            "except the mass)"),
                "link_damping": opt.link_damping, "link_damping_default": 0.04,
                "max_joint_velocity": opt.max_joint_velocity, "max_joint_velocity_default": 100.0,
                "velocity_motors": "disabled (VELOCITY_CONTROL force 0)",
                "joint_limits": ("PyBullet's default: the URDF's <limit> enforced in stepSimulation (limits=true)"
                                 if opt.limits else
                                 f"off: changeDynamics(jointLowerLimit=-{UNLIMITED:g}, jointUpperLimit={UNLIMITED:g}) "
                                 "after loadURDF (PyBullet's default enforces the URDF's <limit> in stepSimulation; "
                                 "limits=true)"),
                "joint_damping_in_file": dict(zip(self.model.joint_names,
                                                  [self.file_damping[i] for i in self._idx])),
                "joint_damping": "PyBullet's jointDamping, in stepSimulation only"
                                 + ("" if opt.damping else "; cancelled by an explicit +b*qd (damping=false)"),
                "armature": "none (PyBullet has no joint armature)"}

    def close(self) -> None:
        try:
            self.p.disconnect(self.cid)
        except self.p.error:
            pass
        super().close()


class PyBulletNoFlagFileEngine(PyBulletFileEngine):
    """PyBullet's default: ``loadURDF`` without ``URDF_USE_INERTIA_FROM_FILE``."""

    name = "pybullet-noflag"
    Options = PyBulletNoFlagOptions
