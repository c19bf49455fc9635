"""DART (dartpy 6.x) as an engine, built from the generated URDF through ``dart.utils.DartLoader``.

Why the URDF: it is the file every other URDF-based adapter loads (PyBullet, Pinocchio), DartLoader is
DART's most used loader, and it reads everything the spec needs (revolute joints about +z, inertial
origin and tensor about the centre of mass, ``<dynamics damping friction>``).  SKEL is DART's own format
but nothing else reads it (a second generator to keep in step); SDF needs a world/model wrapper and
reads the same fields.  The URDF may or may not have a ``world`` link: with one, its fixed joint welds
``base`` to the world; without, the loader's *root joint type* decides (see ``fixed_base``).

Equation stepped (``dart``, DART's ``World.step``: semi-implicit Euler, the only integrator dartpy 6.20
exposes — it has no ``integration`` module and ``World`` no integrator setting):

    q̈_k = M(q_k)⁻¹ (τ_k − b ⊙ q̇_k − C(q_k, q̇_k) q̇_k − G(q_k)),  q̇_{k+1} = q̇_k + dt q̈_k,
    q_{k+1} = q_k + dt q̇_{k+1}

(then DART's constraint solver, which only acts for Coulomb friction in ``"constraint"`` mode or with
limits/self-collision switched on).  ``dart-rk4`` puts DART's forward dynamics (``computeForwardDynamics``,
articulated-body algorithm) inside crossdyn's RK4 (:data:`crossdyn.analytic.integrators.STEPS`) — crossdyn's
integrator, not DART's, as for Pinocchio.

Every DART default that alters the dynamics, what this adapter does, and the keyword that restores it
(each shown by tests/test_dart_engine.py to change the result):

==========================================  ==========================================  ===========================
trap (DART default)                         this adapter                                keyword restoring it
==========================================  ==========================================  ===========================
root joint FLOATING (``DartLoader`` option) ``mDefaultRootJointType = FIXED``; a URDF    ``fixed_base=False``
when the URDF has no ``world`` link         ``world`` link welds the base either way
joint damping from ``<dynamics damping>``   DART's damping set to 0; −b q̇ applied as    ``implicit_damping=True``
treated *implicitly* (dt·b added to the     an explicit torque at the step start
articulated inertia in forward dynamics)    (plain semi-implicit Euler, like the others)
Coulomb friction from ``<dynamics           kept: DART's joint Coulomb friction          ``coulomb_friction="none"``
friction>`` as a velocity constraint        constraint (stick–slip, |impulse| ≤ f_c dt)  (ignored, "unsupported");
                                            — not f_c sign(q̇)                           ``"sign"``: f_c sign(q̇)
joint limits: loaded, not enforced          not enforced (crossdyn's convention)         ``enforce_limits=True``
                                                                                         (the spec's limits)
initial position moved into the limits      state set by ``reset`` (0 at construction)  —
(midpoint of [lower, upper] when 0 is out)  and initial positions set to 0
collision shapes from ``<collision>``;      collision aspects removed from every shape   ``self_collision=True``
self-collision check off                                                                 (shapes kept, check on)
actuator type FORCE                         checked FORCE (``PASSIVE`` drops τ)          ``actuator_type="PASSIVE"``
gravity (0, 0, −9.81); time step 0.001 s    spec's gravity; ``setTimeStep(dt)``          —
``World.step`` clears forces each step      forces set before every step                 —
==========================================  ==========================================  ===========================

Other facts relied on: the URDF inertia is about the centre of mass, at the inertial origin (DART's
``Inertia(mass, com, moment-about-com)``, checked through M against the analytic model); force limits
(±1e9 from the URDF ``effort``) are not applied by ``setForces``; velocity limits (±1e9) only with limits
enforced; spring stiffness and rest position are 0 (no URDF field sets them).  The loader's C++ warnings
(e.g. "zero mass set to BodyNode [base]" — the fixed base has none by design) are captured and logged
(logger ``crossdyn.engines.dart``) instead of written to stderr.

Queries (inverse/forward dynamics, mass matrix, energy) use a second skeleton loaded from the same URDF,
so they never disturb the simulated state: ``computeInverseDynamics`` (+ F(q̇) added by the adapter where
DART's damping is 0), ``computeForwardDynamics`` with τ − F(q̇), ``getMassMatrix``,
``computeKineticEnergy``/``computePotentialEnergy`` (−Σ m g·p_c, zero at base height).
"""
from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
from dataclasses import dataclass, replace

import dartpy as dart  # type: ignore[import-untyped,import-not-found,unused-ignore]
import numpy as np

from crossdyn.analytic.integrators import STEPS
from crossdyn.engines.base import Capabilities, Engine, EngineError
from crossdyn.models.inertia import engine_inertias
from crossdyn.models.spec import ArmSpec
from crossdyn.models.urdf import to_urdf

_log = logging.getLogger("crossdyn.engines.dart")

INTEGRATORS = ("semi-implicit-euler", "rk4")
FRICTION_MODES = ("constraint", "sign", "none")
ACTUATOR_TYPES = ("FORCE", "PASSIVE", "SERVO", "VELOCITY", "ACCELERATION", "LOCKED")
DART_DEFAULT_GRAVITY = (0.0, 0.0, -9.81)


@contextlib.contextmanager
def _captured_stderr():
    """Route C-level writes to fd 2 (DART's ``dtwarn``) to crossdyn's log instead of the terminal."""
    try:
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass
    with tempfile.TemporaryFile(mode="w+b") as sink:
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            try:
                import ctypes

                ctypes.CDLL(None).fflush(None)
            except (OSError, AttributeError):
                pass
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            for line in sink.read().decode("utf-8", "replace").splitlines():
                if line.strip():
                    _log.info("dart: %s", line.strip())


def load_skeleton(urdf: str, fixed_base: bool = True):
    """Parse URDF text into a DART skeleton: root joint FIXED (``fixed_base``) or FLOATING (DART's default)
    when the URDF has no ``world`` link; initial positions set to 0 (the loader moves them into the limits)."""
    loader = dart.utils.DartLoader()
    options = loader.getOptions()
    options.mDefaultRootJointType = (dart.utils.DartLoader.RootJointType.FIXED if fixed_base
                                     else dart.utils.DartLoader.RootJointType.FLOATING)
    loader.setOptions(options)
    with _captured_stderr():
        skel = loader.parseSkeletonString(urdf, dart.common.Uri(""))
    if skel is None:
        raise EngineError("dart: DartLoader could not parse the URDF")
    n = skel.getNumDofs()
    for i in range(n):
        skel.getDof(i).setInitialPosition(0.0)
    skel.setPositions(np.zeros(n))
    return skel


ARMATURE_WHY = (": DART 6 has no joint armature or rotor inertia (GenericJoint's properties are position, velocity, "
                "acceleration and force limits, spring stiffness, rest position, damping and Coulomb friction; dartpy "
                "6.20 binds no armature setter), and DART's own MJCF parser reads <joint armature> but drops it (its "
                "getMassMatrix is the same with and without), so its M would lack I_a on the diagonal")
"""Why DART cannot carry a spec's rotor armature (tests/test_armature_engines.py checks each claim)."""


@dataclass(frozen=True)
class DartOptions:
    """DART's knobs (``dart@key=value``; the module docstring's table says what each one restores)."""

    fixed_base: bool = True
    """The loader's root joint FIXED when the URDF has no ``world`` link (False: DART's FLOATING)."""
    implicit_damping: bool = False
    """DART's own (implicit) joint damping instead of the adapter's explicit −b q̇."""
    coulomb_friction: str | None = None
    """``constraint`` (DART's; the default under World.step), ``sign`` (f_c sign(q̇); the default under rk4) or
    ``none``."""
    enforce_limits: bool = False
    """DART's joint-limit constraint on the spec's limits (World.step only)."""
    self_collision: bool = False
    """Collision shapes kept and DART's self-collision check on (World.step only)."""
    actuator_type: str = "FORCE"
    """The joints' actuator type (one of :data:`ACTUATOR_TYPES`)."""
    urdf: str | None = None
    """URDF text to load instead of the generated one."""


class DartEngine(Engine):
    name = "dart"
    capabilities = Capabilities(native_limits=True, native_friction=True, tip_frame=True)
    """DART's limits, friction constraint and self-collision run in World.step only: dart-rk4 narrows them."""
    Options = DartOptions
    _unsupported_why = {"armature": ARMATURE_WHY}

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, integrator: str = "semi-implicit-euler",
                 options: DartOptions | None = None, **knobs):
        """``integrator`` (semi-implicit-euler: World.step; rk4: crossdyn's RK4 on DART's forward dynamics),
        ``options`` (the defaults when None) with any keyword knob of :class:`DartOptions` replaced."""
        super().__init__(spec, dt)
        opt = self.options = self._options(options, knobs)
        coulomb_friction, enforce_limits, self_collision = opt.coulomb_friction, opt.enforce_limits, opt.self_collision
        actuator_type, urdf = opt.actuator_type, opt.urdf
        if integrator not in INTEGRATORS:
            raise EngineError(f"dart integrator: must be one of {', '.join(INTEGRATORS)}, got {integrator!r}")
        if coulomb_friction is None:
            coulomb_friction = "constraint" if integrator == "semi-implicit-euler" else "sign"
        if coulomb_friction not in FRICTION_MODES:
            raise EngineError(f"dart coulomb_friction: must be one of {', '.join(FRICTION_MODES)}, "
                              f"got {coulomb_friction!r}")
        if integrator != "semi-implicit-euler" and (coulomb_friction == "constraint" or enforce_limits
                                                     or self_collision):
            raise EngineError(f"dart {integrator}: DART's constraint solver (coulomb_friction='constraint', "
                              "enforce_limits, self_collision) only runs in World.step (integrator "
                              "semi-implicit-euler)")
        actuator_type = str(actuator_type).upper()
        if actuator_type not in ACTUATOR_TYPES:
            raise EngineError(f"dart actuator_type: must be one of {', '.join(ACTUATOR_TYPES)}, "
                              f"got {actuator_type!r}")
        self.integrator = integrator
        self.name = "dart" if integrator == "semi-implicit-euler" else "dart-rk4"
        self.fixed_base = bool(opt.fixed_base)
        self.implicit_damping = bool(opt.implicit_damping)
        self.coulomb_friction = coulomb_friction
        self.enforce_limits = self.native_limits = bool(enforce_limits)
        self.capabilities = replace(type(self).capabilities, native_limits=integrator == "semi-implicit-euler")
        self.self_collision = bool(self_collision)
        self.actuator_type = actuator_type
        self.urdf_source = "generated URDF" if urdf is None else "URDF text given to the adapter"
        params = spec.params()
        self._b = np.array(params.b, dtype=float)
        self._fc = np.array(params.fc, dtype=float)
        self._sign_fc = self._fc if coulomb_friction == "sign" else np.zeros(self.n)
        self._has_fc = bool(np.any(self._sign_fc))
        self._explicit_b = np.zeros(self.n) if self.implicit_damping else self._b
        self._has_b = bool(np.any(self._explicit_b))
        text = to_urdf(spec) if urdf is None else urdf
        try:
            self.skeleton = self._build(text)
            self._query = self._build(text)
        except (RuntimeError, ValueError) as e:
            raise EngineError(f"dart: could not build {spec.name!r}: {e}") from None
        self.world = dart.simulation.World()
        self.world.setTimeStep(self.dt)
        self.world.setGravity(np.array(spec.gravity, dtype=float))
        self.world.addSkeleton(self.skeleton)
        if self.self_collision:
            self.skeleton.enableSelfCollisionCheck()
        ndof = self.skeleton.getNumDofs()
        self._off = ndof - self.n  # 6 with a floating base, else 0
        self._arm = slice(self._off, ndof)
        self._forces = np.zeros(ndof)
        self._full = np.zeros(ndof)
        self._step_fn = STEPS[integrator] if integrator != "semi-implicit-euler" else None
        # bound methods, looked up once (this runs every step)
        self._direct = self._off == 0 and not (self._has_b or self._has_fc)
        self._set_forces, self._world_step = self.skeleton.setForces, self.world.step
        self._get_q, self._get_qd = self.skeleton.getPositions, self.skeleton.getVelocities
        self.reset(np.zeros(self.n), np.zeros(self.n))

    # ------------------------------------------------------------------ build
    def _build(self, urdf: str):
        skel = load_skeleton(urdf, self.fixed_base)
        ndof = skel.getNumDofs()
        off = ndof - self.n
        names = [skel.getDof(off + i).getName() for i in range(self.n)]
        if off not in (0, 6) or names != [f"joint{i}" for i in range(1, self.n + 1)]:
            raise EngineError(f"dart: unexpected degrees of freedom {[skel.getDof(i).getName() for i in range(ndof)]}")
        actuator = getattr(dart.dynamics.ActuatorType, self.actuator_type)
        for j in range(skel.getNumJoints()):
            joint = skel.getJoint(j)
            if joint.getNumDofs() and joint.getName().startswith("joint"):
                joint.setActuatorType(actuator)
        for i in range(self.n):
            dof = skel.getDof(off + i)
            if not self.implicit_damping:
                dof.setDampingCoefficient(0.0)  # applied explicitly by the adapter instead
            if self.coulomb_friction != "constraint":
                dof.setCoulombFriction(0.0)
            limits = self.spec.links[i].limits
            if self.enforce_limits and limits is not None:
                lo, hi = limits
                dof.setPositionLowerLimit(float(lo))
                dof.setPositionUpperLimit(float(hi))
            dof.setInitialPosition(0.0)
        for j in range(skel.getNumJoints()):
            joint = skel.getJoint(j)
            if joint.getNumDofs():
                joint.setLimitEnforcement(self.enforce_limits)
        if not self.self_collision:
            for k in range(skel.getNumShapeNodes()):
                node = skel.getShapeNode(k)
                if node.hasCollisionAspect():
                    node.removeCollisionAspect()
        skel.setGravity(np.array(self.spec.gravity, dtype=float))
        skel.setTimeStep(self.dt)
        return skel

    # ------------------------------------------------------------------ friction applied by the adapter
    def _adapter_friction(self, qd: np.ndarray) -> np.ndarray:
        """The part of F(q̇) this adapter applies itself: b ⊙ q̇ (DART's damping is 0 unless implicit_damping)
        and f_c ⊙ sign(q̇) in ``"sign"`` mode."""
        f = self._explicit_b * qd
        if self._has_fc:
            f = f + self._sign_fc * np.sign(qd)
        return f

    # ------------------------------------------------------------------ simulation
    def reset(self, q, qd) -> None:
        sk = self.skeleton
        full = np.zeros(sk.getNumDofs())
        full[self._arm] = np.asarray(q, dtype=float).reshape(self.n)
        sk.setPositions(full)
        full[self._arm] = np.asarray(qd, dtype=float).reshape(self.n)
        sk.setVelocities(full)
        sk.resetAccelerations()
        sk.clearInternalForces()
        sk.clearExternalForces()
        self.world.setTime(0.0)
        self._q = np.array(q, dtype=float).reshape(self.n)
        self._qd = np.array(qd, dtype=float).reshape(self.n)

    @property
    def time(self) -> float:
        return float(self.world.getTime())

    def step(self, tau) -> None:
        if self._step_fn is not None:
            self._q, self._qd = self._step_fn(self._fd, self._q, self._qd, np.asarray(tau, dtype=float), self.dt)
            return
        if self._direct:  # fixed base, no friction applied by the adapter: τ goes straight in
            self._set_forces(tau)
        else:
            forces = self._forces
            if self._has_b or self._has_fc:
                forces[self._arm] = tau - self._adapter_friction(self.skeleton.getVelocities()[self._arm])
            else:
                forces[self._arm] = tau
            self._set_forces(forces)
        self._world_step()

    def state(self):
        if self._step_fn is not None:
            return self._q.copy(), self._qd.copy()
        if self._off == 0:
            return self._get_q(), self._get_qd()  # fresh arrays
        return self._get_q()[self._arm], self._get_qd()[self._arm]

    def read_state_into(self, q_out: np.ndarray, qd_out: np.ndarray) -> None:
        """Write the current state into preallocated rows (the runner's fast path)."""
        if self._step_fn is not None:
            q_out[:], qd_out[:] = self._q, self._qd
        else:
            q_out[:] = self._get_q()[self._arm]
            qd_out[:] = self._get_qd()[self._arm]

    # ------------------------------------------------------------------ queries (second skeleton)
    def _set_query(self, q, qd=None):
        sk = self._query
        full = self._full
        full[:] = 0.0
        full[self._arm] = q
        sk.setPositions(full)
        full[:] = 0.0
        if qd is not None:
            full[self._arm] = qd
        sk.setVelocities(full)
        return sk

    def _fd(self, q, qd, tau):
        """q̈ = DART's forward dynamics (articulated-body algorithm) under τ − F(q̇) (the adapter's part of F)."""
        sk = self._query
        if self._has_b or self._has_fc:
            tau = tau - self._adapter_friction(qd)
        if self._off:  # floating root (fixed_base=False): the arm's coordinates follow the root's 6
            self._set_query(q, qd)
            full = np.zeros(sk.getNumDofs())
            full[self._arm] = tau
            sk.setForces(full)
            sk.computeForwardDynamics()
            return sk.getAccelerations()[self._arm]
        sk.setPositions(q)
        sk.setVelocities(qd)
        sk.setForces(tau)
        sk.computeForwardDynamics()
        return sk.getAccelerations()

    def inverse_dynamics(self, q, qd, qdd):
        qd = np.asarray(qd, dtype=float)
        sk = self._set_query(np.asarray(q, dtype=float), qd)
        full = np.zeros(sk.getNumDofs())
        full[self._arm] = qdd
        sk.setAccelerations(full)
        # with damping, spring forces: DART's damping is 0 unless implicit_damping (then it is b ⊙ q̇)
        sk.computeInverseDynamics(False, True, True)
        return sk.getForces()[self._arm] + self._adapter_friction(qd)

    def mass_matrix(self, q):
        sk = self._set_query(np.asarray(q, dtype=float))
        M = np.array(sk.getMassMatrix())[self._arm, self._arm]
        return 0.5 * (M + M.T)

    def forward_dynamics(self, q, qd, tau):
        return self._fd(np.asarray(q, float), np.asarray(qd, float), np.asarray(tau, float))

    def energy(self, q, qd):
        sk = self._set_query(np.asarray(q, dtype=float), np.asarray(qd, dtype=float))
        return float(sk.computeKineticEnergy()), float(sk.computePotentialEnergy())

    tip_source = ("DART body node 'tip' (the URDF's tip link): getWorldTransform().translation(), "
                  "getLinearVelocity(), getLinearJacobian() (world frame)")

    def tip_kinematics(self, q=None, qd=None):
        """The ``tip`` body node's world position, linear velocity and translational Jacobian (x–y rows), by
        DART: on the stepped skeleton (its current state) when ``q`` is None and World.step integrates, else on
        the query skeleton set to (q, q̇) (dart-rk4: the adapter's state)."""
        if q is None and self._step_fn is None:
            sk = self.skeleton
        else:
            if q is None:
                q, qd = self._q, self._qd
            sk = self._set_query(np.asarray(q, dtype=float), None if qd is None else np.asarray(qd, dtype=float))
        node = sk.getBodyNode("tip")
        if node is None:
            raise EngineError("dart: the skeleton has no 'tip' body node (the arm has no [contact])")
        x = node.getWorldTransform().translation()
        v = node.getLinearVelocity()
        J = np.asarray(node.getLinearJacobian())[:2, self._arm]
        return np.array(x[:2]), np.array(v[:2]), np.array(J)

    # ------------------------------------------------------------------ description
    def config(self) -> dict:
        sk = self.skeleton
        dofs = [sk.getDof(self._off + i) for i in range(self.n)]
        bodies = [sk.getJoint(f"joint{i}").getChildBodyNode() for i in range(1, self.n + 1)]
        _, subs = engine_inertias(self.spec)
        joints = [sk.getJoint(j) for j in range(sk.getNumJoints())]
        friction_model = {
            "constraint": "DART joint Coulomb friction constraint (setCoulombFriction = f_c): velocity-level "
                          "stick-slip constraint in the constraint solver, |impulse| <= f_c*dt; not f_c*sign(qd)",
            "sign": "F = f_c*sign(qd) applied by the adapter as an explicit torque (DART's Coulomb friction 0)",
            "none": "Coulomb friction unsupported in this mode: DART's Coulomb friction set to 0, f_c not applied",
        }[self.coulomb_friction]
        damping = ("implicit (DART: dt*b added to the articulated inertia; b from the URDF)"
                   if self.implicit_damping else
                   "explicit torque -b*qd at the step start, applied by the adapter (DART's damping 0)")
        return {
            "engine": "dart", "version": dart.__version__, "integrator": self.integrator, "dt": self.dt,
            "world_time_step": float(self.world.getTimeStep()),
            "stepper": ("World.step (semi-implicit Euler, DART's only integrator)" if self._step_fn is None
                        else "crossdyn rk4 on DART computeForwardDynamics (DART has no RK4)"),
            "model_source": f"{self.urdf_source} (dartpy.utils.DartLoader)",
            "root_joint": joints[0].getType(), "fixed_base": self.fixed_base,
            "gravity": [float(g) for g in self.world.getGravity()],
            "dart_default_gravity": list(DART_DEFAULT_GRAVITY),
            "torque_input": "Skeleton.setForces before every World.step (which clears them)",
            "torque_sampling": "zero-order hold at step start",
            "actuator_types": [str(j.getActuatorType()).split(".")[-1] for j in joints if j.getNumDofs()],
            "joint_damping": [float(b) for b in self._b],
            "dart_damping_coefficient": [float(d.getDampingCoefficient()) for d in dofs],
            "implicit_damping": self.implicit_damping, "damping_treatment": damping,
            "joint_friction": [float(f) for f in self._fc],
            "dart_coulomb_friction": [float(d.getCoulombFriction()) for d in dofs],
            "coulomb_friction": self.coulomb_friction, "coulomb_friction_model": friction_model,
            "spring_stiffness": [float(d.getSpringStiffness()) for d in dofs],
            "rest_position": [float(d.getRestPosition()) for d in dofs],
            "armature": ("unsupported" + ARMATURE_WHY + f"; this arm's armature {[lk.armature for lk in self.spec.links]} "
                         "kg m^2 is NOT simulated") if self.spec.has_armature else [0.0] * self.n,
            "limits_enforced": [bool(j.areLimitsEnforced()) for j in joints if j.getNumDofs()],
            "enforce_limits": self.enforce_limits,
            "position_limits": [[float(d.getPositionLowerLimit()), float(d.getPositionUpperLimit())] for d in dofs],
            "velocity_limits": [[float(d.getVelocityLowerLimit()), float(d.getVelocityUpperLimit())] for d in dofs],
            "force_limits": [[float(d.getForceLowerLimit()), float(d.getForceUpperLimit())] for d in dofs],
            "force_limits_note": "the URDF effort becomes DART's joint force limits, but setForces (the adapter's "
                                 "torque input) does not clamp to them: the effort limit is ignored natively "
                                 "(DART clamps only commands, setCommands with a FORCE actuator)",
            "initial_position": "set by reset(); DartLoader's initial positions (moved into the limits) reset to 0",
            "self_collision": self.self_collision,
            "collision": ("collision shapes kept, self-collision check on" if self.self_collision else
                          "collision aspects removed from every shape node (no contact possible)"),
            "masses": [float(b.getMass()) for b in bodies],
            "com_offsets": [[float(v) for v in b.getLocalCOM()] for b in bodies],
            "inertia_zz": [float(np.asarray(b.getInertia().getMoment())[2, 2]) for b in bodies],
            "inertia_substitutions": [s.as_dict() for s in subs],
            "inverse_dynamics": "computeInverseDynamics(withExternalForces=False, withDampingForces=True, "
                                "withSpringForces=True) + the adapter's friction",
            "query_skeleton": "second skeleton from the same URDF for queries",
        }
