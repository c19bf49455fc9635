"""PyBullet as an engine: the generated URDF loaded into a private ``DIRECT`` client.

Every PyBullet default that alters the dynamics is neutralised here, and each
can be switched back on by a keyword argument (so a test can prove it matters):

=============================  ==================================  =====================================
trap (PyBullet default)        what this adapter does by default   keyword to restore the default
=============================  ==================================  =====================================
inertia from collision shapes  ``URDF_USE_INERTIA_FROM_FILE``      ``inertia_from_file=False``
velocity motor on every joint  ``VELOCITY_CONTROL`` with force 0   ``disable_velocity_motors=False``
                               once, ``TORQUE_CONTROL`` each step
link damping 0.04 / 0.04       ``linearDamping = angularDamping    ``link_damping=0.04``
                               = 0``
joint velocity clamp 100 rad/s ``maxJointVelocity = 1e4`` and the  ``max_joint_velocity=100``
                               clamp is detected (``clamped_at``)
time step 1/240 s, gravity 0   ``setTimeStep(dt)``,                —
                               ``setGravity(spec.gravity)``
=============================  ==================================  =====================================

**Native contact** (``native_contact=True``, ``pybullet@native_contact=true``; arms with ``[contact]`` and
``[[obstacles]]``): the URDF's ``tip`` link carries the contact sphere as its collision shape
(:func:`crossdyn.models.urdf.to_urdf`), and the adapter creates one static body per obstacle with a
``GEOM_PLANE`` collision shape (normal = the obstacle's, through its point).  Collision filters: the tip link in
group 1 with mask 2, each obstacle in group 2 with mask 1, every other link of the arm 0/0 (none has a collision
shape anyway).  ``changeDynamics`` on the tip: ``contactStiffness = k``, ``contactDamping = c``, ``restitution =
0``, ``lateralFriction = μ``, rolling and spinning friction 0; on each obstacle ``restitution = 0``,
``contactStiffness = 1e18``.  Bullet combines two bodies' stiffnesses in series, adds their dampings and
multiplies their frictions, then turns the pair's k, c into the contact's ERP = h k/(h k + c) and
CFM = 1/(h k + c) (a spring–damper solved implicitly over the step: measured, not assumed, in
:mod:`crossdyn.native.contact`).  Defaults that change the contact, each switched and a knob:

=================================  =================================  ==========================================
PyBullet default                   this adapter                        knob to restore it
=================================  =================================  ==========================================
obstacle contactDamping 0.1 N s/m  0 (the pair's damping is c)          ``obstacle_contact_damping=0.1``
(added to the tip's c)
obstacle lateralFriction 0.5       1 (the pair's friction is μ)         ``obstacle_lateral_friction=0.5``
(multiplied with the tip's μ)
=================================  =================================  ==========================================

**Native limits** (``native_limits=True``, ``pybullet@native_limits=true``): the URDF's ``<limit lower upper>``,
enforced by Bullet's multibody limit constraint — a velocity-level unilateral constraint with no stiffness or
damping: it stops the joint within a step and pushes a penetration back by the fraction ``erp`` per step.  Two
settings change it, both left at PyBullet's defaults unless given (for :mod:`crossdyn.native.limits.calibration`):
``limit_force`` (``changeDynamics(jointLimitForce)``, N m, per joint: caps the limit's torque, so the stop gives
way) and ``limit_erp`` (``setPhysicsEngineParameter(erp)``, default 0.2: **world-global**, one value shared by
every non-contact constraint of the client, i.e. all joints' limits).  ``contactERP``, ``globalCFM``,
``jointFeedbackMode`` and the link's ``restitution`` were measured to leave the limit unchanged;
``numSolverIterations`` / ``solverResidualThreshold`` change it only by stopping the solver early.  Off: the URDF's
limits are ±1e6 rad.  A robot file's or spatial preset's limits: :mod:`crossdyn.engines.pybullet.file`'s ``limits``.

Left at its default, and said so in ``config()``: ``contactBreakingThreshold`` (0.02 m: contact points are kept and
solved from that distance before touching).  It is *process-global* in Bullet (``gContactBreakingThreshold``):
set from one client it changes every PyBullet client in the process — set to 0 here it made a later, unrelated
self-collision check find no contact at all — so no adapter may change it.  On planar2r-floor's drop 0 and
0.02 m give identical runs; on planar3r-wall (μ = 0.3) they differ by 6e-3 rad.

Other facts this adapter relies on (see ``/work/shared/engine-notes.md``):

* PyBullet has no joint armature (reflected rotor inertia): for an arm with armature > 0 the
  adapter builds the arm without it and reports itself unsupported (:meth:`unsupported`,
  ``config()["armature"]``); ``compare`` then marks it "unsupported" with that reason.
* PyBullet integrates with semi-implicit Euler only (``integrator`` is fixed).
* Joint damping b comes from the URDF ``<dynamics damping>`` (= the spec) and is
  applied by PyBullet as an explicit torque −b q̇ at the start of each step.
  ``calculateInverseDynamics`` does **not** include it, so :meth:`inverse_dynamics`
  adds b ⊙ q̇ (and f_c ⊙ sign(q̇)) itself; :meth:`forward_dynamics` subtracts them.
* PyBullet ignores the URDF ``<dynamics friction>`` value.  Coulomb friction f_c is
  emulated (``coulomb_friction="velocity-motor"``, the default) by the joint's
  velocity motor with target velocity 0 and maximum force f_c — a constraint
  (stick–slip) friction, not F = f_c sign(q̇): expect disagreement near q̇ = 0.
  ``coulomb_friction="none"`` ignores it (reported as unsupported in ``config()``).
* ``calculateInverseDynamics`` / ``calculateMassMatrix`` are only ever given plain
  lists of Python floats (numpy arrays have crashed the process).
* Their results are cached by PyBullet after ``changeDynamics(mass=...)``; this
  adapter never changes masses after loading — build a new engine instead.
* PyBullet has no forward-dynamics call: q̈ = M⁻¹(τ − h), h = ``calculateInverseDynamics``(q, q̇, 0) + F(q̇).
* Potential energy uses a second, never-stepped client (so a query never disturbs
  the simulated state): U = −Σ m g·p_c with ``getLinkState`` centres of mass and
  ``getDynamicsInfo`` masses; T = ½ q̇ᵀ M q̇ from ``calculateMassMatrix``.
"""
from __future__ import annotations

import importlib.metadata
import os
import tempfile

from dataclasses import dataclass
from typing import Any

import numpy as np

from crossdyn.engines.base import Capabilities, Engine, EngineError
from crossdyn.engines.contact_options import tip_contact
from crossdyn.models.inertia import engine_inertias
from crossdyn.models.spec import ArmSpec
from crossdyn.models.urdf import to_urdf


from crossdyn.engines.pybullet.library import p, quiet as _quiet  # noqa: E402  (quietly: no banner)

PYBULLET_LINK_DAMPING_DEFAULT = 0.04
PYBULLET_MAX_JOINT_VELOCITY_DEFAULT = 100.0
FRICTION_MODES = ("velocity-motor", "none")


def _floats(x) -> list[float]:
    """A plain list of Python floats (what PyBullet's dynamics queries accept safely)."""
    return [float(v) for v in np.asarray(x, dtype=float).reshape(-1)]


def _file_safe(name: str) -> str:
    """``name`` as a short file-name fragment (an arm may be named "/" or "it's")."""
    import re

    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40]

@dataclass(frozen=True)
class PyBulletOptions:
    """PyBullet's knobs (``pybullet@key=value``; the module docstring says what each one restores or sets)."""

    inertia_from_file: bool = True
    """``URDF_USE_INERTIA_FROM_FILE`` (False: PyBullet's inertia from the collision shapes)."""
    disable_velocity_motors: bool = True
    """Velocity motors off once (False: PyBullet's default velocity motor on every joint)."""
    link_damping: float = 0.0
    """Links' linearDamping = angularDamping (PyBullet's default 0.04)."""
    max_joint_velocity: float = 1e4
    """maxJointVelocity, rad/s (PyBullet's default 100); reaching it is detected (``clamped_at``)."""
    coulomb_friction: str = "velocity-motor"
    """f_c by each joint's velocity motor (``"velocity-motor"``) or ignored (``"none"``)."""
    native_limits: bool = False
    """The URDF's ``<limit lower upper>``, enforced by Bullet's limit constraint."""
    native_contact: bool = False
    """The tip link's collision sphere against one static plane per obstacle."""
    obstacle_contact_damping: float = 0.0
    """The obstacles' contactDamping (PyBullet's default 0.1 N s/m)."""
    obstacle_lateral_friction: float = 1.0
    """The obstacles' lateralFriction (PyBullet's default 0.5)."""
    limit_force: Any = None
    """jointLimitForce, N m: one for every limited joint or one each ("F1,F2"); None: PyBullet's (uncapped)."""
    limit_erp: float | None = None
    """The world's erp for the limit constraints (world-global; None: PyBullet's 0.2)."""
    contact_stiffness: float | None = None
    """The tip's contactStiffness, N/m (> 0; None: the spec's k), e.g. a calibrated one; used with native_contact."""
    contact_damping: float | None = None
    """The tip's contactDamping, N s/m (>= 0; None: the spec's c); used with native_contact."""


class PyBulletEngine(Engine):
    name = "pybullet"
    integrator = "semi-implicit-euler"
    capabilities = Capabilities(native_limits=True, native_contact=True, native_friction=True, tip_frame=True)
    Options = PyBulletOptions
    _unsupported_why = {"armature": ": PyBullet has no joint armature (no URDF field, no changeDynamics "
                                    "argument), so its M would lack I_a on the diagonal"}

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, options: PyBulletOptions | None = None, **knobs):
        """``options`` (the defaults when None) with any keyword knob of :class:`PyBulletOptions` replaced."""
        super().__init__(spec, dt)
        opt = self.options = self._options(options, knobs)
        limit_force, limit_erp, max_joint_velocity = opt.limit_force, opt.limit_erp, opt.max_joint_velocity
        coulomb_friction = opt.coulomb_friction
        self.native_limits = bool(opt.native_limits)
        self._limited = [j for j, lk in enumerate(spec.links) if lk.limit_stiffness > 0 and lk.limits is not None]
        self.limit_force = self._limit_forces(limit_force)
        if limit_erp is not None and not (self.native_limits and 0.0 <= float(limit_erp) <= 1.0):
            raise EngineError(f"pybullet limit_erp: needs native_limits=true and a value in [0, 1], got {limit_erp!r}")
        self.limit_erp = None if limit_erp is None else float(limit_erp)
        self.native_contact = bool(opt.native_contact)
        if self.native_contact and not spec.has_contact:
            raise EngineError(f"pybullet native_contact: arm {spec.name!r} has no [contact] and [[obstacles]]")
        self.tip_contact = tip_contact(spec, self.native_contact, opt.contact_stiffness, opt.contact_damping)
        self.obstacle_contact_damping = float(opt.obstacle_contact_damping)
        self.obstacle_lateral_friction = float(opt.obstacle_lateral_friction)
        self._obstacles: list[int] = []
        self.contact_implicit = self.native_contact
        """Bullet solves the contact's spring–damper implicitly over the step (ERP/CFM)."""
        if coulomb_friction not in FRICTION_MODES:
            raise EngineError(f"pybullet coulomb_friction: must be one of {', '.join(FRICTION_MODES)}, "
                              f"got {coulomb_friction!r}")
        if not max_joint_velocity > 0:
            raise EngineError(f"pybullet max_joint_velocity: must be > 0 rad/s, got {max_joint_velocity!r}")
        self.inertia_from_file = bool(opt.inertia_from_file)
        self.disable_velocity_motors = bool(opt.disable_velocity_motors)
        self.link_damping = float(opt.link_damping)
        self.max_joint_velocity = float(max_joint_velocity)
        self.velocity_clamp = self.max_joint_velocity
        """|q̇| at which PyBullet clamps joint velocities (the runner reports reaching it)."""
        self._clamp_threshold = self.max_joint_velocity * (1 - 1e-12)
        self.coulomb_friction = coulomb_friction
        self.clamped_at = None
        """Time at which a joint speed first reached the clamp (None: never)."""
        self._k = 0
        self._params = spec.params()
        self._b = self._params.b
        self._fc = self._params.fc
        self._joints: list[int] = []  # PyBullet joint indices of joint1 … jointN, set by _load
        self._zeros = [0.0] * self.n
        self._cid = -1
        self._qcid = -1
        urdf = to_urdf(spec, native_limits=self.native_limits, native_contact=self.native_contact)
        fd, path = tempfile.mkstemp(prefix=f"crossdyn-{_file_safe(spec.name)}-", suffix=".urdf")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(urdf)
            self._cid = p.connect(p.DIRECT)
            if self._cid < 0:
                raise EngineError("pybullet: could not open a DIRECT physics client")
            self._body = self._load(self._cid, path)
            self._configure(self._cid, self._body)
            self._apply_limit_settings(self._cid, self._body)
            if self.native_contact:
                self._add_contact(self._cid, self._body)
            # a second client, never stepped, for queries that need the state set (energy)
            self._qcid = p.connect(p.DIRECT)
            if self._qcid < 0:
                raise EngineError("pybullet: could not open a DIRECT physics client for queries")
            self._qbody = self._load(self._qcid, path)
            self._configure(self._qcid, self._qbody)
        except p.error as e:
            self.close()
            raise EngineError(f"pybullet: could not build {spec.name!r}: {e}") from None
        except BaseException:
            self.close()
            raise
        finally:
            os.unlink(path)
        self._masses = [p.getDynamicsInfo(self._qbody, j, physicsClientId=self._qcid)[0] for j in self._joints]
        self._library_config = self._read_library_config()
        self.reset(np.zeros(self.n), np.zeros(self.n))

    # ------------------------------------------------------------------ build
    def _load(self, cid: int, path: str) -> int:
        flags = p.URDF_USE_INERTIA_FROM_FILE if self.inertia_from_file else 0
        with _quiet(1):  # "No inertial data for link world" (the world link has none, by design)
            body = p.loadURDF(path, useFixedBase=True, flags=flags, physicsClientId=cid)
        # the URDF's fixed joint world_to_base is PyBullet joint 0; joint1 … jointN follow it
        infos = [p.getJointInfo(body, j, physicsClientId=cid) for j in range(p.getNumJoints(body, physicsClientId=cid))]
        revolute = [(i[0], i[1].decode()) for i in infos if i[2] == p.JOINT_REVOLUTE]
        expected = [f"joint{k}" for k in range(1, self.n + 1)]
        if [name for _, name in revolute] != expected:
            raise EngineError(f"pybullet: loaded revolute joints {[name for _, name in revolute]}, expected {expected}")
        joints = [j for j, _ in revolute]
        if not self._joints:
            self._joints = joints
        elif joints != self._joints:
            raise EngineError(f"pybullet: joint indices {joints} differ from the first client's {self._joints}")
        return body

    def _configure(self, cid: int, body: int) -> None:
        p.setTimeStep(self.dt, physicsClientId=cid)
        p.setGravity(*(float(g) for g in self.spec.gravity), physicsClientId=cid)
        p.changeDynamics(body, -1, linearDamping=self.link_damping, angularDamping=self.link_damping,
                         physicsClientId=cid)
        for j in self._joints:
            p.changeDynamics(body, j, maxJointVelocity=self.max_joint_velocity, linearDamping=self.link_damping,
                             angularDamping=self.link_damping, physicsClientId=cid)

    def _limit_forces(self, value) -> list[float] | None:
        """``limit_force``: None (PyBullet's own cap), one number for every joint with a limit law, or one per such
        joint (a sequence, or a string "F1,F2" from ``pybullet@limit_force=F1,F2``), N m, each > 0."""
        if value is None:
            return None
        if not self.native_limits or not self._limited:
            raise EngineError("pybullet limit_force: needs native_limits=true on an arm with a limit law")
        raw = value.split(",") if isinstance(value, str) else (list(value) if np.ndim(value) else [value])
        try:
            forces = [float(v) for v in raw]
        except (TypeError, ValueError):
            raise EngineError(f"pybullet limit_force: must be numbers (N m), got {value!r}") from None
        if len(forces) == 1:
            forces = forces * len(self._limited)
        if len(forces) != len(self._limited) or not all(f > 0 and np.isfinite(f) for f in forces):
            raise EngineError(f"pybullet limit_force: one value > 0 or {len(self._limited)} (one per joint with a "
                              f"limit law), got {value!r}")
        return forces

    def _apply_limit_settings(self, cid: int, body: int) -> None:
        """``changeDynamics(jointLimitForce)`` per limited joint and the world's ``erp`` (module docstring)."""
        if self.limit_force is not None:
            for j, f in zip(self._limited, self.limit_force, strict=True):
                p.changeDynamics(body, self._joints[j], jointLimitForce=float(f), physicsClientId=cid)
        if self.limit_erp is not None:
            p.setPhysicsEngineParameter(erp=float(self.limit_erp), physicsClientId=cid)

    def set_limit_settings(self, limit_force=None, limit_erp=None) -> None:
        """Set the native limit's jointLimitForce (per limited joint, N m) and the world's erp — for calibration.
        None leaves a setting as it is."""
        if limit_force is not None:
            self.limit_force = self._limit_forces(limit_force)
        if limit_erp is not None:
            self.limit_erp = float(limit_erp)
        self._apply_limit_settings(self._cid, self._body)

    def _add_contact(self, cid: int, body: int) -> None:
        """The obstacles as static planes, the collision filters and the contact dynamics (module docstring)."""
        c = self._contact_spec()
        self._tip = self._tip_link()  # the same link index on both clients (the same URDF)
        for j in range(-1, p.getNumJoints(body, physicsClientId=cid)):
            p.setCollisionFilterGroupMask(body, j, 1 if j == self._tip else 0, 2 if j == self._tip else 0,
                                          physicsClientId=cid)
        k, b, _ = self.tip_contact
        p.changeDynamics(body, self._tip, contactStiffness=k, contactDamping=b, restitution=0.0,
                         lateralFriction=c.friction, rollingFriction=0.0, spinningFriction=0.0, physicsClientId=cid)
        for ob in self.spec.obstacles:
            shape = p.createCollisionShape(p.GEOM_PLANE, planeNormal=[ob.normal[0], ob.normal[1], 0.0],
                                           physicsClientId=cid)
            oid = p.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=shape,
                                    basePosition=[ob.point[0], ob.point[1], 0.0], physicsClientId=cid)
            p.setCollisionFilterGroupMask(oid, -1, 2, 1, physicsClientId=cid)
            p.changeDynamics(oid, -1, lateralFriction=self.obstacle_lateral_friction, restitution=0.0,
                             rollingFriction=0.0, spinningFriction=0.0, contactStiffness=1e18,
                             contactDamping=self.obstacle_contact_damping, physicsClientId=cid)
            self._obstacles.append(oid)

    def _contact_config(self) -> dict:
        c = self._contact_spec()
        dyn = p.getDynamicsInfo(self._body, self._tip, physicsClientId=self._cid)
        obs = [p.getDynamicsInfo(o, -1, physicsClientId=self._cid) for o in self._obstacles]
        return {
            "contacts": "native: PyBullet's contact between the tip link's collision sphere and one static GEOM_PLANE "
                        "body per obstacle (collision filters: tip group 1 mask 2, obstacles group 2 mask 1, other "
                        "links 0/0); crossdyn's applied contact law off",
            "contact_law": f"k = {c.stiffness:g} N/m, c = {c.damping:g} N s/m, mu = {c.friction:g}, r = {c.radius:g} m",
            # getDynamicsInfo: (mass, lateral friction, inertia, pos, orn, restitution, rolling, spinning,
            #                   contact damping, contact stiffness, body type, collision margin)
            "contact_tip": {"lateral_friction": dyn[1], "restitution": dyn[5], "rolling_friction": dyn[6],
                            "spinning_friction": dyn[7], "contact_damping": dyn[8], "contact_stiffness": dyn[9]},
            "contact_obstacles": [{"lateral_friction": o[1], "restitution": o[5], "contact_damping": o[8],
                                   "contact_stiffness": o[9]} for o in obs],
            "contact_pair": "stiffness 1/(1/k_tip + 1/k_obstacle), damping c_tip + c_obstacle, friction mu_tip * "
                            "mu_obstacle; ERP = h k/(h k + c), CFM = 1/(h k + c) per contact",
            "contact_tip_source": self.tip_contact[2],
            "contact_erp": self.dt * dyn[9] / (self.dt * dyn[9] + dyn[8] + self.obstacle_contact_damping),
            "contact_cfm": 1.0 / (self.dt * dyn[9] + dyn[8] + self.obstacle_contact_damping),
            "contact_breaking_threshold": "0.02 m, Bullet's default, left alone: process-global "
                                          "(gContactBreakingThreshold), so changing it would change every client",
            "obstacle_contact_damping": self.obstacle_contact_damping,
            "obstacle_lateral_friction": self.obstacle_lateral_friction,
        }

    def set_contact(self, stiffness: float, damping: float) -> None:
        """Set the tip's contactStiffness/contactDamping (N/m, N s/m) — for calibration."""
        p.changeDynamics(self._body, self._tip, contactStiffness=float(stiffness), contactDamping=float(damping),
                         physicsClientId=self._cid)

    def contact_points(self) -> list:
        """PyBullet's contact points between the tip and the obstacles now (after the last step)."""
        return [cp for oid in self._obstacles
                for cp in p.getContactPoints(self._body, oid, physicsClientId=self._cid)]

    def _set_motors(self) -> None:
        """Velocity motors: force 0 (off), or f_c (Coulomb friction emulation), or PyBullet's default."""
        if not self.disable_velocity_motors:
            return
        forces = _floats(self._fc) if self.coulomb_friction == "velocity-motor" else self._zeros
        p.setJointMotorControlArray(self._body, self._joints, p.VELOCITY_CONTROL, targetVelocities=self._zeros,
                                    forces=forces, physicsClientId=self._cid)

    # ------------------------------------------------------------------ simulation
    def reset(self, q, qd) -> None:
        q, qd = _floats(q), _floats(qd)
        if len(q) != self.n or len(qd) != self.n:
            raise EngineError(f"pybullet reset: q and qd must have {self.n} values")
        for k, j in enumerate(self._joints):
            p.resetJointState(self._body, j, q[k], qd[k], physicsClientId=self._cid)
        self._set_motors()
        self._k = 0
        self.clamped_at = None

    @property
    def time(self) -> float:
        return self._k * self.dt

    # PyBullet's functions bound as defaults: the per-step path does no module attribute lookups
    def step(self, tau, _set=p.setJointMotorControlArray, _step=p.stepSimulation, _torque=p.TORQUE_CONTROL,
             _ndarray=np.ndarray) -> None:
        forces = tau.tolist() if isinstance(tau, _ndarray) else [float(x) for x in tau]  # plain floats only
        cid = self._cid
        _set(self._body, self._joints, _torque, forces=forces, physicsClientId=cid)
        _step(physicsClientId=cid)
        self._k += 1

    def state(self, _get=p.getJointStates, _array=np.array):
        states = _get(self._body, self._joints, physicsClientId=self._cid)
        qd = [s[1] for s in states]
        if self.clamped_at is None and max(map(abs, qd)) >= self._clamp_threshold:  # inline: runs every step
            self.clamped_at = self.time
        return _array([s[0] for s in states]), _array(qd)

    def read_state_into(self, q_out: np.ndarray, qd_out: np.ndarray) -> None:
        """Write the current state into preallocated rows (the runner's fast path)."""
        states = p.getJointStates(self._body, self._joints, physicsClientId=self._cid)
        q_out[:] = [s[0] for s in states]
        qd = [s[1] for s in states]
        qd_out[:] = qd
        if self.clamped_at is None and max(map(abs, qd)) >= self._clamp_threshold:
            self.clamped_at = self.time

    def _check_clamp(self, qd) -> None:
        """Record the first time any |q̇| reaches PyBullet's clamp (plain floats: this runs every step)."""
        if self.clamped_at is None and max(map(abs, qd)) >= self._clamp_threshold:
            self.clamped_at = self.time

    # ------------------------------------------------------------------ queries
    def _friction(self, qd: np.ndarray) -> np.ndarray:
        f = self._b * qd
        if self.coulomb_friction == "velocity-motor":
            f = f + self._fc * np.sign(qd)
        return f

    def _id_raw(self, q, qd, qdd) -> np.ndarray:
        """PyBullet's inverse dynamics (rigid body + gravity; no joint damping/friction)."""
        return np.array(p.calculateInverseDynamics(self._qbody, _floats(q), _floats(qd), _floats(qdd),
                                                   physicsClientId=self._qcid))

    def inverse_dynamics(self, q, qd, qdd):
        qd = np.asarray(qd, dtype=float)
        return self._id_raw(q, qd, qdd) + self._friction(qd)

    def mass_matrix(self, q):
        M = np.array(p.calculateMassMatrix(self._qbody, _floats(q), physicsClientId=self._qcid))
        return 0.5 * (M + M.T)

    def forward_dynamics(self, q, qd, tau):
        qd = np.asarray(qd, dtype=float)
        h = self._id_raw(q, qd, self._zeros) + self._friction(qd)
        return np.linalg.solve(self.mass_matrix(q), np.asarray(tau, dtype=float) - h)

    def energy(self, q, qd):
        q = _floats(q)
        qd_arr = np.asarray(qd, dtype=float)
        T = 0.5 * float(qd_arr @ self.mass_matrix(q) @ qd_arr)
        for k, j in enumerate(self._joints):
            p.resetJointState(self._qbody, j, q[k], 0.0, physicsClientId=self._qcid)
        g = self.spec.gravity
        U = 0.0
        for j, s in enumerate(p.getLinkStates(self._qbody, self._joints, computeForwardKinematics=True,
                                              physicsClientId=self._qcid)):
            c = s[0]  # link centre of mass, world frame
            U -= self._masses[j] * (g[0] * c[0] + g[1] * c[1] + g[2] * c[2])
        return T, U

    tip_source = ("PyBullet link 'tip' (fixed joint tip_joint): getLinkState(computeLinkVelocity=1, "
                  "computeForwardKinematics=1) world position (inertial frame = link frame; the link-frame field is float32) and "
                  "linear velocity; calculateJacobian")

    def _tip_link(self) -> int:
        idx = self.__dict__.get("_tip_index")
        if idx is None:
            names = {p.getJointInfo(self._body, j, physicsClientId=self._cid)[1].decode(): j
                     for j in range(p.getNumJoints(self._body, physicsClientId=self._cid))}
            if "tip_joint" not in names:
                raise EngineError("pybullet: the URDF has no 'tip' link (the arm has no [contact])")
            idx = self._tip_index = names["tip_joint"]  # a link's index is its parent joint's
        return idx

    def tip_kinematics(self, q=None, qd=None):
        """The ``tip`` link's world position, linear velocity and translational Jacobian (x–y rows), by
        PyBullet: at the stepping client's current state when ``q`` is None, else on the query client set to
        (q, q̇)."""
        link = self._tip_link()
        if q is None:
            cid, body = self._cid, self._body
            states = p.getJointStates(body, self._joints, physicsClientId=cid)
            qs, qds = [s[0] for s in states], [s[1] for s in states]
        else:
            cid, body = self._qcid, self._qbody
            qs, qds = _floats(q), (self._zeros if qd is None else _floats(qd))
            for k, j in enumerate(self._joints):
                p.resetJointState(body, j, qs[k], qds[k], physicsClientId=cid)
        s = p.getLinkState(body, link, computeLinkVelocity=1, computeForwardKinematics=1, physicsClientId=cid)
        # s[0]: the link's inertial frame's world position — the link frame itself, the tip link's inertial origin
        # being 0 (s[4], worldLinkFramePosition, comes back rounded to float32: 6e-8 m off, measured); s[6]: its
        # world linear velocity
        lin, _ = p.calculateJacobian(body, link, [0.0, 0.0, 0.0], qs, qds, self._zeros, physicsClientId=cid)
        return np.array(s[0][:2]), np.array(s[6][:2]), np.array(lin)[:2]

    # ------------------------------------------------------------------ description
    def _read_library_config(self) -> dict:
        """Settings read back from PyBullet after configuration (what the library actually holds)."""
        cid, body = self._cid, self._body
        joints = [p.getJointInfo(body, j, physicsClientId=cid) for j in self._joints]
        dyn = [p.getDynamicsInfo(body, j, physicsClientId=cid) for j in self._joints]
        return {
            "api_version": p.getAPIVersion(physicsClientId=cid),
            "physics_engine_parameters": p.getPhysicsEngineParameters(physicsClientId=cid),
            "joint_damping": [j[6] for j in joints],
            "masses": [d[0] for d in dyn], "local_inertia_diagonal": [list(d[2]) for d in dyn],
            "com_offsets": [list(d[3]) for d in dyn],
        }

    def config(self) -> dict:
        _, subs = engine_inertias(self.spec)
        lib = self._library_config
        friction = {
            "velocity-motor": "Coulomb friction f_c emulated by each joint's velocity motor (target velocity 0, "
                              "max force f_c): constraint stick-slip friction, not f_c*sign(qd)",
            "none": "Coulomb friction unsupported: PyBullet ignores URDF <dynamics friction>; f_c is not applied",
        }[self.coulomb_friction]
        return {
            "engine": "pybullet", "version": importlib.metadata.version("pybullet"),
            "api_version": lib["api_version"],
            "integrator": self.integrator, "dt": self.dt, "model_source": "generated URDF",
            "torque_input": "setJointMotorControlArray TORQUE_CONTROL before every stepSimulation",
            "torque_sampling": "zero-order hold at step start",
            "gravity": list(self.spec.gravity),
            "physics_engine_parameters": lib["physics_engine_parameters"],
            "use_fixed_base": True,
            "inertia_from_file": self.inertia_from_file,
            "disable_velocity_motors": self.disable_velocity_motors,
            "link_linear_damping": self.link_damping, "link_angular_damping": self.link_damping,
            "max_joint_velocity": self.max_joint_velocity,
            "velocity_clamp_detection": "state() records clamped_at when |qd| reaches max_joint_velocity",
            "joint_damping": lib["joint_damping"],
            "joint_damping_model": "explicit torque -b*qd at step start (PyBullet); calculateInverseDynamics "
                                   "excludes it, the adapter adds b*qd",
            "joint_friction": [lk.friction for lk in self.spec.links],
            "coulomb_friction": self.coulomb_friction, "coulomb_friction_model": friction,
            "masses": lib["masses"], "local_inertia_diagonal": lib["local_inertia_diagonal"],
            "com_offsets": lib["com_offsets"],
            "inertia_substitutions": [s.as_dict() for s in subs],
            **({"armature": "unsupported: PyBullet has no joint armature; this arm's armature "
                            f"{[lk.armature for lk in self.spec.links]} kg m^2 is NOT simulated"}
               if self.spec.has_armature else {}),
            **({"native_limits": "URDF <limit lower upper> of the links with a limit law, enforced by PyBullet's "
                                 "own (hard) limit solver; it has no stiffness/damping for them",
                "limit_force": ("PyBullet's default (uncapped)" if self.limit_force is None else
                                {f"joint{j + 1}": f for j, f in zip(self._limited, self.limit_force, strict=True)}),
                "limit_force_model": "changeDynamics(jointLimitForce), N m, per joint: caps the torque of that "
                                     "joint's limit constraint (beyond it the stop gives way)",
                "limit_erp": "PyBullet's default (0.2)" if self.limit_erp is None else self.limit_erp,
                "limit_erp_model": "setPhysicsEngineParameter(erp): WORLD-GLOBAL, one value for every non-contact "
                                   "constraint of this client (every joint's limit alike); the fraction "
                                   "of a limit's penetration pushed back per step (contacts use contactERP, "
                                   "left alone)"}
               if self.native_limits else {}),
            "self_collision": False,
            **(self._contact_config() if self.native_contact else {"contacts": "none (no other bodies)",
                                                                   "contact_tip_source": self.tip_contact[2]}),
            "query_args": "plain lists of Python floats",
        }

    def close(self) -> None:
        for attr in ("_cid", "_qcid"):
            cid = getattr(self, attr, -1)
            if cid >= 0:
                try:
                    p.disconnect(physicsClientId=cid)
                except p.error:
                    pass
                setattr(self, attr, -1)

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 — interpreter shutdown may have torn pybullet down already
            pass
