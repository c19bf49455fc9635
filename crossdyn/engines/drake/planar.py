"""Drake (``pydrake``, MultibodyPlant) as an engine, built from the generated URDF.

The plant comes from ``Parser(plant).AddModelsFromString(to_urdf(spec), "urdf")`` inside a diagram made
by ``AddMultibodyPlantSceneGraph`` (as Drake's users build it, so the visual geometry is registered with a
SceneGraph); one ``JointActuator`` per joint is added before ``Finalize`` and τ enters through the
**actuation input port**, held over each step (zero-order hold).  Each actuator carries the spec's joint:

* **rotor armature** I_a: Drake's reflected inertia ρ² I_r (gear ratio ρ, rotor inertia I_r) is added to
  M_ii by ``CalcMassMatrix``, forward dynamics, inverse dynamics and both plants; the adapter sets ρ = 1 and
  I_r = I_a (``set_default_gear_ratio``/``set_default_rotor_inertia``), so ρ² I_r = I_a exactly.  Drake's
  ``CalcKineticEnergy`` includes the rotors' ½ Σ I_a q̇² (tests/test_armature_engines.py).
* **effort limit**: the actuator's ``effort_limit`` is the spec's ``effort`` (∞ without one); Drake 1.51
  clamps the actuation input to it, in continuous and discrete plants alike (tests/test_effort_engines.py).

It integrates

    M(q) q̈ + C(q, q̇) q̇ + G(q) + B q̇ = τ        (B = diag(b), the URDF ``<dynamics damping>``;
                                                   M includes diag(I_a))

with one of Drake's own schemes (registry names):

=====================  ======================================================================
``drake``              continuous plant (time_step = 0), Drake's error-controlled RK3
                       (``runge_kutta3``) at target accuracy ``accuracy`` (1e-10 by default),
                       at most one step of dt (the torque changes every dt)
``drake-rk2``          continuous plant, ``runge_kutta2`` (second-order explicit RK), one step of dt
``drake-rk3``          … ``runge_kutta3`` in fixed-step mode (order 3)
``drake-rk4``          continuous plant, crossdyn's classical RK4 on its generalized acceleration
                       (Drake has no RK4); Drake's Simulator unused
``drake-rk5``          … ``runge_kutta5`` (5th order, embedded 4th) in fixed-step mode (order 5)
``drake-euler``        … ``semi_explicit_euler``: v ← v + dt·v̇, q ← q + dt·v (semi-implicit Euler)
``drake-implicit``     … ``implicit_euler`` in fixed-step mode (Newton iterations, order 1)
``drake-discrete``     discrete plant (time_step = dt), Drake's default discrete solver
                       (SAP, ``discrete_contact_approximation="lagged"``): semi-implicit Euler,
                       joint damping treated implicitly
=====================  ======================================================================

Drake has no RK4 integrator (``pydrake.systems.analysis.GetIntegrationSchemes()``): ``drake-rk4`` is crossdyn's, as on
a robot file.  Every name steps with the same scheme and settings on a robot file (:data:`crossdyn.engines.drake.SCHEMES`).

Traps, each neutralised or stated in :meth:`DrakeEngine.config` and switchable by a keyword
(``drake@key=value``; tests/test_drake.py shows each one matters):

* **time step** — ``AddMultibodyPlantSceneGraph``/``MultibodyPlantConfig`` default to a *discrete*
  plant with time_step = 1 ms whatever the simulator's integrator; this adapter sets it explicitly
  (0 for the continuous variants, dt for ``drake-discrete``). ``time_step="default"`` restores Drake's.
* **gravity** — Drake's default is (0, 0, −9.81): about the joint axes, i.e. no gravity for a planar
  arm. Set to the spec's vector; ``drake_gravity=True`` keeps Drake's.
* **base weld** — a URDF without a ``world`` link leaves ``base`` a free-floating body (7 more
  coordinates). The generated URDF welds it (``world`` link, fixed joint); ``world_link=False`` strips
  those two elements, and the adapter then refuses the floating model with that reason.
* **collision geometry** — the generated URDF has none; ``collision_geometry=True`` adds the links'
  cylinders as collision geometry: Drake then computes contact between the links of a folded arm.
* **joint damping** — read from the URDF by Drake (``Joint.default_damping()``, reported in ``config()`` and
  checked equal to the spec by the tests). Continuous plants apply it as a force; the discrete solver treats it implicitly,
  (M + dt·B) v⁺ = …, which is why ``drake-discrete`` on a damped arm is not plain semi-implicit Euler
  (stated; ``explicit_damping=True`` moves it out of the plant into an explicit −B q̇ at the step's
  start, making ``drake-discrete`` semi-implicit Euler exactly).
* **Coulomb joint friction** — MultibodyPlant has no joint Coulomb friction (its URDF parser ignores
  ``<dynamics friction>`` with a warning): a spec with f_c > 0 raises
  :class:`~crossdyn.engines.base.EngineUnsupported` instead of being simulated without it.
* **joint limits** — continuous plants ignore joint limits (silently: no warning in Drake 1.51); discrete
  plants enforce them by a constraint (tests/test_drake.py shows both on a URDF with limits). The generated URDF's limits are ±1e6 rad (never reached) and a spec's ``limits``
  are recorded but not simulated (stated).

Queries use a second, continuous (time_step = 0) diagram built the same way, so they never disturb the
simulated state and give the instantaneous dynamics for every variant:
τ = ``CalcInverseDynamics``(q, q̇, q̈, no external forces) − ``CalcGravityGeneralizedForces`` + B q̇;
M = ``CalcMassMatrix``; q̈ = the plant's generalized-acceleration output port under τ (Drake's
articulated-body forward dynamics, damping included); T, U = ``CalcKineticEnergy``,
``CalcPotentialEnergy`` (−Σ m g·p_c, zero at the base's height, like the analytic model).
"""
from __future__ import annotations

import importlib.metadata
import re
from dataclasses import dataclass, replace

import numpy as np
from pydrake.multibody.parsing import Parser
from pydrake.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlantConfig
from pydrake.multibody.tree import MultibodyForces
from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator
from pydrake.systems.framework import DiagramBuilder

from crossdyn.engines.base import Capabilities, Engine, EngineError, EngineUnsupported
from crossdyn.engines.drake import SCHEMES
from crossdyn.models.inertia import engine_inertias
from crossdyn.models.spec import ArmSpec
from crossdyn.models.urdf import to_urdf
from crossdyn.steps import rk4_step

ORDERS = {scheme: order for _, _, scheme, order in SCHEMES.values()}
"""Order of accuracy of each scheme name an adapter reports (``engine.integrator``)."""

DEFAULT_ACCURACY = 1e-10
"""Target accuracy of ``drake``'s error-controlled RK3 (Drake's own default is 1e-4)."""

_NAMES = {"rk3-adaptive": "drake", "discrete": "drake-discrete"}
MODEL_NAME = "crossdyn_arm"
"""The model instance name Drake is given (the URDF's robot name), whatever the arm is called."""


def drake_version() -> str:
    return importlib.metadata.version("drake")


def _plant_time_step(time_step: float | str | None, dt: float, integrator: str, opt: DrakeOptions) -> float:
    """The simulated plant's time step: ``time_step`` as the option says it (None: dt for ``drake-discrete``, else 0;
    ``"default"``: MultibodyPlantConfig's), refused where the name cannot use it — ``drake-discrete`` needs a discrete
    plant; ``drake-rk4`` steps the continuous plant's dynamics, whose joint damping is already an explicit force at
    each RK4 stage (no ``explicit_damping`` either)."""
    if time_step is None:
        out = dt if integrator == "discrete" else 0.0
    elif isinstance(time_step, str) and time_step.lower() == "default":
        out = float(MultibodyPlantConfig().time_step)
    elif isinstance(time_step, (int, float)) and time_step >= 0:
        out = float(time_step)
    else:
        raise EngineError(f"drake time_step: must be a number >= 0 s or 'default', got {time_step!r}")
    if integrator == "discrete" and out == 0:
        raise EngineError("drake-discrete: time_step must be > 0 (a discrete plant)")
    if integrator == "rk4" and out != 0:
        raise EngineError(f"drake-rk4: crossdyn's RK4 steps the continuous plant (time_step 0), got time_step {out}")
    if integrator == "rk4" and opt.explicit_damping:
        raise EngineError("drake-rk4: explicit_damping is for Drake's discrete solver; drake-rk4 applies the joint "
                          "damping -B qd explicitly at each RK4 stage already")
    return out


def _strip_world_link(urdf: str) -> str:
    """The generated URDF without its ``world`` link and ``world_to_base`` joint (the ``world_link=False`` trap)."""
    out = re.sub(r'\s*<link name="world"/>', "", urdf)
    return re.sub(r'\s*<joint name="world_to_base" type="fixed">.*?</joint>', "", out, flags=re.S)


@dataclass(frozen=True)
class DrakeOptions:
    """Drake's knobs (``drake@key=value``; the module docstring says what each trap is and what it restores)."""

    accuracy: float = DEFAULT_ACCURACY
    """Target accuracy of ``drake``'s error-controlled RK3, in (0, 1)."""
    time_step: float | str | None = None
    """The plant's time step: None (0 for the continuous variants, dt for ``drake-discrete``), a number of s,
    or ``"default"`` (MultibodyPlantConfig's)."""
    drake_gravity: bool = False
    """Keep Drake's default gravity (0, 0, −9.81) instead of the spec's."""
    world_link: bool = True
    """The generated URDF's ``world`` link and weld (False: stripped, the base floats and is refused)."""
    collision_geometry: bool = False
    """The links' cylinders as collision geometry (Drake then computes link–link contact)."""
    explicit_damping: bool = False
    """Joint damping as an explicit −B q̇ at the step's start instead of Drake's (implicit in the discrete plant)."""
    native_limits: bool = False
    """The URDF's joint limits, enforced by the discrete plant's limit constraint (``drake-discrete`` only)."""
    native_contact: bool = False
    """SAP point contact between the tip sphere and the obstacles (``drake-discrete`` only)."""
    contact_relaxation_split: float = 0.5
    """The tip sphere's share of the contact's relaxation time c/k (the obstacles get the rest)."""


class DrakeEngine(Engine):
    name = "drake"
    # JointActuator reflected inertia (gear ratio² × rotor inertia) and effort limit; an instance narrows the
    # native limits and contact to the discrete plant and error control to ``drake``
    capabilities = Capabilities(native_limits=True, native_contact=True, armature=True, effort=True, tip_frame=True,
                                error_control=True, step_applied=True)
    Options = DrakeOptions

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, integrator: str = "rk3-adaptive",
                 options: DrakeOptions | None = None, **knobs):
        """``integrator`` (a key of :data:`SCHEMES`: the registry name's), ``options`` (the defaults when None)
        with any keyword knob of :class:`DrakeOptions` replaced."""
        super().__init__(spec, dt)
        opt = self.options = self._options(options, knobs)
        accuracy, time_step = opt.accuracy, opt.time_step
        self.native_limits = bool(opt.native_limits)
        self.native_contact = bool(opt.native_contact)
        self.contact_relaxation_split = float(opt.contact_relaxation_split)
        self.contact_implicit = self.native_contact
        """SAP solves the contact's linear spring–damper implicitly over the step."""
        if self.native_contact and not spec.has_contact:
            raise EngineError(f"drake native_contact: arm {spec.name!r} has no [contact] and [[obstacles]]")
        if self.native_contact and integrator != "discrete":
            raise EngineUnsupported("drake: native_contact is configured for the discrete plant only "
                                    "(drake-discrete: SAP's linear model f = k (x + tau x'), tau = c/k); the "
                                    "continuous plant's point contact is Hunt-Crossley, f = k x (1 + d x'), which "
                                    "is not the spring-damper law")
        if integrator not in SCHEMES:
            raise EngineError(f"drake integrator: must be one of {', '.join(SCHEMES)}, got {integrator!r}")
        if not (isinstance(accuracy, (int, float)) and 0 < accuracy < 1):
            raise EngineError(f"drake accuracy: must be a number in (0, 1), got {accuracy!r}")
        if any(lk.friction > 0 for lk in spec.links):
            raise EngineUnsupported(
                "drake: Coulomb joint friction (f_c > 0 on joint(s) "
                f"{', '.join(str(i) for i, lk in enumerate(spec.links, 1) if lk.friction > 0)}) is unsupported: "
                "MultibodyPlant has no joint Coulomb friction model (its URDF parser ignores <dynamics friction>), "
                "so the arm would be simulated without it")
        self.variant = integrator
        self.drake_scheme, self.error_control, self.integrator, self.order = SCHEMES[integrator]
        self.name = _NAMES.get(integrator, f"drake-{integrator}")
        self.accuracy = self._accuracy = float(accuracy)
        self.discrete = integrator == "discrete"
        if self.native_limits and not self.discrete:
            raise EngineUnsupported("drake: native_limits needs the discrete plant (drake-discrete): continuous "
                                    "plants ignore joint limits")
        self.crossdyn_rk4 = integrator == "rk4"
        """``drake-rk4``: crossdyn's RK4 on the continuous query plant's forward dynamics (Drake's Simulator unused)."""
        self.time_step = _plant_time_step(time_step, self.dt, integrator, opt)
        self.drake_gravity = bool(opt.drake_gravity)
        self.world_link = bool(opt.world_link)
        self.collision_geometry = bool(opt.collision_geometry)
        self.explicit_damping = bool(opt.explicit_damping)
        self.capabilities = replace(type(self).capabilities, native_limits=self.discrete,
                                    native_contact=self.discrete, error_control=self.error_control)

        self._diagram, self.plant = self._build(self.time_step, damping=not self.explicit_damping,
                                                contact=self.native_contact)
        self._qdiagram, self.qplant = self._build(0.0, damping=True)
        self._b = np.array([lk.damping for lk in spec.links], dtype=float)

        self.simulator = Simulator(self._diagram)
        self._root = self.simulator.get_mutable_context()
        self._ctx = self.plant.GetMyMutableContextFromRoot(self._root)
        self._u = self.plant.get_actuation_input_port().FixValue(self._ctx, np.zeros(self.n))
        # the applied generalized force port: explicit damping, and step_applied's torques (0 otherwise)
        self._applied = self.plant.get_applied_generalized_force_input_port().FixValue(self._ctx, np.zeros(self.n))
        self._extra = np.zeros(self.n)
        self._continuous = self.drake_scheme is not None and self.time_step == 0.0
        if self._continuous:
            self._integ = ResetIntegratorFromFlags(self.simulator, str(self.drake_scheme), self.dt)
        else:  # discrete plant: the simulator only runs its periodic update (no continuous state)
            self._integ = self.simulator.get_integrator()

        self._qroot = self._qdiagram.CreateDefaultContext()
        self._qctx = self.qplant.GetMyMutableContextFromRoot(self._qroot)
        self._qu = self.qplant.get_actuation_input_port().FixValue(self._qctx, np.zeros(self.n))
        self._qapplied = self.qplant.get_applied_generalized_force_input_port().FixValue(self._qctx, np.zeros(self.n))
        self._forces = MultibodyForces(self.qplant)
        self._acc_port = self.qplant.get_generalized_acceleration_output_port()
        self._contact_port = self.qplant.get_generalized_contact_forces_output_port(self._instance)
        self.reset(np.zeros(self.n), np.zeros(self.n))

    @property
    def error_controlled(self) -> bool:
        """True when the step error, not dt, sets the accuracy (``drake``: its error is ~independent of dt)."""
        return bool(self.error_control and self._continuous)

    # ------------------------------------------------------------------ build
    def _add_contact(self, plant, instance) -> None:
        """The tip sphere and the obstacles (half spaces) as collision geometry with point-contact properties:
        SAP's linear model f_n = (k (x + tau x'))+ with tau = c/k.  Drake combines two geometries' point stiffness
        in series and adds their relaxation times, so each side gets 2k and a share of tau
        (``contact_relaxation_split``, 0.5)."""
        from pydrake.geometry import AddContactMaterial, HalfSpace, ProximityProperties, Sphere
        from pydrake.math import RigidTransform
        from pydrake.multibody.plant import CoulombFriction

        c = self._contact_spec()
        tau = c.damping / c.stiffness

        def props(share):
            pp = ProximityProperties()
            AddContactMaterial(dissipation=None, point_stiffness=2.0 * c.stiffness,
                               friction=CoulombFriction(c.friction, c.friction), properties=pp)
            pp.AddProperty("material", "relaxation_time", tau * share)
            return pp

        tip = plant.GetBodyByName("tip", instance)
        plant.RegisterCollisionGeometry(tip, RigidTransform(), Sphere(c.radius), "tip_sphere",
                                        props(self.contact_relaxation_split))
        for j, ob in enumerate(self.spec.obstacles, start=1):
            normal, point = np.array(ob.normal, dtype=float), np.array(ob.point, dtype=float)
            pose = HalfSpace.MakePose(normal, point)  # type: ignore[arg-type]  # pydrake's stub: ndarray[float64]
            plant.RegisterCollisionGeometry(plant.world_body(), pose, HalfSpace(), f"obstacle{j}",
                                            props(1.0 - self.contact_relaxation_split))

    def _build(self, time_step: float, damping: bool, contact: bool = False):
        builder = DiagramBuilder()
        plant, _scene = AddMultibodyPlantSceneGraph(builder, time_step)
        # the arm's own name is not passed on: Drake reads "::" in a model name as a scope separator and aborts
        # the whole process (not an exception) on an empty one, e.g. an arm named "::"
        urdf = to_urdf(replace(self.spec, name=MODEL_NAME), collision=self.collision_geometry,
                       native_limits=self.native_limits)  # the spec's limits for links with a law
        if not self.world_link:
            urdf = _strip_world_link(urdf)
        try:
            (instance,) = Parser(plant).AddModelsFromString(urdf, "urdf")
        except (RuntimeError, ValueError) as e:
            raise EngineError(f"drake: could not parse the URDF of {self.spec.name!r}: {e}") from None
        self._instance = instance
        joints = [plant.GetJointByName(f"joint{i}", instance) for i in range(1, self.n + 1)]
        for i, (joint, link) in enumerate(zip(joints, self.spec.links, strict=True), start=1):
            effort = float("inf") if link.effort is None else float(link.effort)
            actuator = plant.AddJointActuator(f"tau{i}", joint, effort)  # Drake clamps u to ±effort
            # reflected rotor inertia ρ² I_r = I_a (ρ = 1: exact); 0 keeps Drake's default, no rotor
            actuator.set_default_gear_ratio(1.0)
            actuator.set_default_rotor_inertia(float(link.armature))
            if not damping:
                joint.set_default_damping(0.0)
        if contact:
            from pydrake.multibody.plant import ContactModel, DiscreteContactApproximation

            self._add_contact(plant, instance)
            plant.set_contact_model(ContactModel.kPoint)
            plant.set_discrete_contact_approximation(DiscreteContactApproximation.kSap)
        plant.Finalize()
        if plant.num_positions() != self.n or plant.num_velocities() != self.n:
            floating = " — the base is not welded to the world (no `world` link in the URDF): a free body" \
                if plant.num_positions() == self.n + 7 else ""
            raise EngineError(f"drake: model of {self.spec.name!r} has {plant.num_positions()} positions and "
                              f"{plant.num_velocities()} velocities, expected {self.n}{floating}")
        if [j.position_start() for j in joints] != list(range(self.n)):
            raise EngineError(f"drake: unexpected joint order {[j.position_start() for j in joints]}")
        if not self.drake_gravity:
            plant.mutable_gravity_field().set_gravity_vector(np.array(self.spec.gravity, dtype=float))
        return builder.Build(), plant

    # ------------------------------------------------------------------ simulation
    def reset(self, q, qd) -> None:
        q = np.array(q, dtype=float).reshape(self.n)
        qd = np.array(qd, dtype=float).reshape(self.n)
        self._root.SetTime(0.0)
        self.plant.SetPositions(self._ctx, q)
        self.plant.SetVelocities(self._ctx, qd)
        self._u.GetMutableData().set_value(np.zeros(self.n))
        self._k = 0
        if self._continuous:
            # forget the step-size history, so that a run from reset() equals a fresh engine's; Reset() also
            # clears the settings, which are therefore (re)applied here
            integ = self._integ
            integ.Reset()
            integ.set_maximum_step_size(self.dt)  # the torque changes every dt
            if self.error_control:
                integ.set_target_accuracy(self._accuracy)
            else:
                integ.set_fixed_step_mode(True)
        self.simulator.Initialize()

    @property
    def time(self) -> float:
        return self._k * self.dt

    def step(self, tau) -> None:
        if self.crossdyn_rk4:
            self._rk4_step(np.asarray(tau, dtype=float))
            return
        # GetMutableData() each time: it is the call that invalidates Drake's caches depending on the input
        # (a kept reference would be written without invalidation: stale torque, measured 0.1 rad in 1 s)
        self._u.GetMutableData().set_value(np.asarray(tau, dtype=float))
        if self.explicit_damping:  # explicit damping: −B q̇ at the step's start, held over the step
            self._applied.GetMutableData().set_value(self._extra - self._b * self.plant.GetVelocities(self._ctx))
        elif self._extra_any or self._extra_set:  # a Python flag: no NumPy call per plain step
            self._applied.GetMutableData().set_value(self._extra)
            self._extra_set = self._extra_any
        self._k += 1
        self.simulator.AdvanceTo(self._k * self.dt)

    def _rk4_step(self, tau: np.ndarray) -> None:
        """``drake-rk4``: one classical RK4 step of dt on q̈ = the continuous query plant's generalized acceleration
        (Drake's forward dynamics: τ through the actuators, clamped to their effort limits, ``step_applied``'s torques
        through the applied generalized force port, both held over the step; joint damping −B q̇ as Drake's force at
        each stage), as the robot-file adapter steps ``drake-rk4``; the state is written back to the simulated plant."""
        q, qd = self.state()
        self._qapplied.GetMutableData().set_value(self._extra)
        try:
            q, qd = rk4_step(self.forward_dynamics, q, qd, tau, self.dt)
        finally:
            self._qapplied.GetMutableData().set_value(np.zeros(self.n))
        self.plant.SetPositions(self._ctx, q)
        self.plant.SetVelocities(self._ctx, qd)
        self._k += 1

    _extra_set = False  # the applied port holds a non-zero torque (zeroed at the next plain step)
    _extra_any = False  # the torque step_applied is applying now is non-zero

    def step_applied(self, tau, extra) -> None:
        """One step with the actuators given τ (clamped to their effort limits by Drake) and ``extra`` applied
        around them through the applied generalized force port (the runner's limit and friction torques)."""
        self._extra = np.asarray(extra, dtype=float)
        self._extra_any = bool(self._extra.any())
        try:
            self.step(tau)
        finally:
            self._extra = np.zeros(self.n)
            self._extra_any = False

    def state(self):
        x = self.plant.GetPositionsAndVelocities(self._ctx)
        return x[: self.n].copy(), x[self.n:].copy()

    def read_state_into(self, q_out: np.ndarray, qd_out: np.ndarray) -> None:
        x = self.plant.GetPositionsAndVelocities(self._ctx)
        q_out[:] = x[: self.n]
        qd_out[:] = x[self.n:]

    # ------------------------------------------------------------------ queries (separate continuous diagram)
    def _set_query(self, q, qd=None):
        self.qplant.SetPositions(self._qctx, np.asarray(q, dtype=float))
        self.qplant.SetVelocities(self._qctx, np.zeros(self.n) if qd is None else np.asarray(qd, dtype=float))

    def inverse_dynamics(self, q, qd, qdd):
        """τ = M q̈ + C q̇ (``CalcInverseDynamics``, no applied forces) − τ_g (``CalcGravityGeneralizedForces``,
        Drake's right-hand-side gravity) + B q̇ (B read back from Drake's joints)."""
        self._set_query(q, qd)
        self._forces.SetZero()
        tau = self.qplant.CalcInverseDynamics(self._qctx, np.asarray(qdd, dtype=float), self._forces)
        tau = tau - self.qplant.CalcGravityGeneralizedForces(self._qctx)
        return tau + self.damping_read() * np.asarray(qd, dtype=float)

    def mass_matrix(self, q):
        self._set_query(q)
        M = self.qplant.CalcMassMatrix(self._qctx)
        return 0.5 * (M + M.T)

    def forward_dynamics(self, q, qd, tau):
        self._set_query(q, qd)
        self._qu.GetMutableData().set_value(np.asarray(tau, dtype=float))
        return np.array(self._acc_port.Eval(self._qctx), dtype=float)

    def energy(self, q, qd):
        """T = ``CalcKineticEnergy`` (bodies and rotors' reflected inertia), U = ``CalcPotentialEnergy``."""
        self._set_query(q, qd)
        return float(self.qplant.CalcKineticEnergy(self._qctx)), float(self.qplant.CalcPotentialEnergy(self._qctx))

    def reflected_inertia(self) -> np.ndarray:
        """ρ² I_r of each joint's actuator as Drake holds it in the query plant (``default_reflected_inertia``)."""
        return np.array([self.qplant.GetJointActuatorByName(f"tau{i}", self._instance).default_reflected_inertia()
                         for i in range(1, self.n + 1)])

    def contact_forces(self, q, qd=None) -> np.ndarray:
        """Generalized contact forces Drake computes at (q, q̇) (zero unless ``collision_geometry=True``)."""
        self._set_query(q, qd)
        self._qu.GetMutableData().set_value(np.zeros(self.n))
        return np.array(self._contact_port.Eval(self._qctx), dtype=float)

    tip_source = ("Drake frame 'tip' (the URDF's tip link): CalcPointsPositions, the body's "
                  "EvalSpatialVelocityInWorld, CalcJacobianTranslationalVelocity (kV, world frame)")

    def tip_kinematics(self, q=None, qd=None):
        """The ``tip`` frame's world position, linear velocity and translational Jacobian (x–y rows), by Drake:
        on the simulated plant's context (its current state) when ``q`` is None, else on the query plant."""
        from pydrake.multibody.tree import JacobianWrtVariable

        if q is None:
            plant, ctx = self.plant, self._ctx
        else:
            self._set_query(q, qd)
            plant, ctx = self.qplant, self._qctx
        try:
            body = plant.GetBodyByName("tip", self._instance)
        except RuntimeError:
            raise EngineError("drake: the model has no 'tip' link (the arm has no [contact])") from None
        frame, world = body.body_frame(), plant.world_frame()
        origin = np.zeros(3)
        x = plant.CalcPointsPositions(ctx, frame, origin.reshape(3, 1), world)[:, 0]
        v = body.EvalSpatialVelocityInWorld(ctx).translational()
        J = plant.CalcJacobianTranslationalVelocity(ctx, JacobianWrtVariable.kV, frame, origin, world, world)
        return np.array(x[:2]), np.array(v[:2]), np.array(J[:2])

    def damping_read(self) -> np.ndarray:
        """Joint damping as Drake holds it in the query plant (parsed from the URDF's ``<dynamics damping>``)."""
        return np.array([self.qplant.GetJointByName(f"joint{i}", self._instance).default_damping()
                         for i in range(1, self.n + 1)])

    # ------------------------------------------------------------------ description
    def _contact_config(self) -> dict:
        c = self._contact_spec()
        return {
            "contacts": "native: point contact between a sphere on the tip body and one HalfSpace per obstacle "
                        "(registered on the discrete plant only); crossdyn's applied contact law off",
            "contact_law": f"k = {c.stiffness:g} N/m, c = {c.damping:g} N s/m, mu = {c.friction:g}, r = {c.radius:g} m",
            "contact_model": str(self.plant.get_contact_model()),
            "discrete_contact_approximation": str(self.plant.get_discrete_contact_approximation()),
            "contact_point_stiffness_each": 2.0 * c.stiffness,
            "contact_relaxation_time_s": c.damping / c.stiffness,
            "contact_relaxation_split": self.contact_relaxation_split,
            "contact_combination": "Drake combines two geometries' point stiffness in series (2k and 2k: k) and adds "
                                   "their relaxation times (split between them: c/k); SAP: f = (k (phi + tau v))+, the "
                                   "spring-damper solved implicitly over the step",
            "contact_friction": [c.friction, c.friction],
        }

    def _drake_integrator(self) -> str:
        """What steps, in Drake's words (the config's ``drake_integrator``)."""
        if self.time_step > 0:
            approx = "SAP 'sap' (native contact)" if self.native_contact else "SAP 'lagged'"
            return (f"discrete plant update every {self.time_step} s (Drake's discrete solver, "
                    f"{approx}): semi-implicit Euler, joint damping implicit")
        if self.crossdyn_rk4:
            return ("crossdyn's RK4 on the continuous plant's generalized acceleration output (Drake's forward "
                    f"dynamics, joint damping included), fixed step {self.dt} s; Drake's Simulator unused")
        if self.error_control:
            return f"{self.drake_scheme}, error-controlled, target accuracy {self._integ.get_target_accuracy()}"
        return f"{self.drake_scheme}, fixed step {self.dt} s"

    def config(self) -> dict:
        _, subs = engine_inertias(self.spec)
        plant = self.plant
        bodies = [plant.GetBodyByName(f"link{i}", self._instance) for i in range(1, self.n + 1)]
        actuators = [plant.GetJointActuatorByName(f"tau{i}", self._instance) for i in range(1, self.n + 1)]
        integ = self._integ
        gravity = [float(g) for g in plant.gravity_field().gravity_vector()]
        return {
            "engine": "drake", "version": drake_version(), "integrator": self.integrator,
            "drake_integrator": self._drake_integrator(), "dt": self.dt,
            "error_control": self.error_controlled,
            "target_accuracy": self.accuracy if self.error_controlled else None,
            "max_step_size": (self.dt if self.crossdyn_rk4 else integ.get_maximum_step_size())
            if self.time_step == 0 else None,
            "time_step": self.time_step,
            "time_step_note": ("continuous plant (time_step = 0) set explicitly; MultibodyPlantConfig's default "
                               f"would be a discrete plant with time_step = {MultibodyPlantConfig().time_step} s"
                               if self.time_step == 0 else
                               "discrete plant (time_step > 0): the simulator integrator is unused"),
            "discrete_contact_approximation": plant.get_discrete_contact_approximation().name
            if self.time_step > 0 else None,
            "model_source": f"generated URDF (Parser.AddModelsFromString) in AddMultibodyPlantSceneGraph, robot "
                            f"name {MODEL_NAME!r} (Drake aborts on some names, e.g. '::')"
                            + ("; world link stripped: base floats" if not self.world_link else ""),
            "base": "welded to the world by the URDF's world link and fixed joint world_to_base"
            if self.world_link else "not welded (world_link=False)",
            "torque_input": "actuation input port, one JointActuator per joint (gear ratio 1, rotor inertia = "
                            "the spec's armature, effort limit = the spec's effort or inf)",
            "torque_sampling": "zero-order hold at step start",
            "actuator_effort_limits": [float(a.effort_limit()) if np.isfinite(a.effort_limit()) else "inf"
                                       for a in actuators],
            "actuator_rotor_inertia": [float(a.default_rotor_inertia()) for a in actuators],
            "actuator_gear_ratio": [float(a.default_gear_ratio()) for a in actuators],
            "armature": [float(a.default_reflected_inertia()) for a in actuators],
            "armature_model": "JointActuator reflected inertia gear_ratio^2 * rotor_inertia (1 * I_a), added to M_ii "
                              "by Drake (mass matrix, forward/inverse dynamics, kinetic energy, continuous and discrete "
                              "plants)",
            "effort_limit_model": "JointActuator effort_limit = the spec's effort: Drake clamps the actuation "
                                  "input to +-effort (honoured natively)",
            "gravity": gravity,
            "gravity_note": "Drake's default (0, 0, -9.81) kept (drake_gravity=True)" if self.drake_gravity
            else "set to the spec's vector (Drake's default is (0, 0, -9.81))",
            "joint_damping": [lk.damping for lk in self.spec.links],
            "joint_damping_read": [float(b) for b in self.damping_read()],
            "joint_damping_model": (
                "explicit -b*qd at step start through the applied generalized force port (explicit_damping=True); "
                "the simulated plant's joint damping set to 0" if self.explicit_damping else
                "Drake's joint damping from the URDF: implicit in the discrete solver, (M + dt*B) v+ = ..."
                if self.time_step > 0 else "Drake's joint damping from the URDF, a force in the continuous dynamics"),
            "implicit_damping": bool(self.time_step > 0 and not self.explicit_damping),
            "joint_friction": [lk.friction for lk in self.spec.links],
            "friction_model": "unsupported: MultibodyPlant has no joint Coulomb friction; a spec with f_c > 0 "
                              "is refused (EngineUnsupported)",
            "joint_limits": ("URDF <limit lower upper> of the links with a limit law (native_limits=True), "
                             "enforced by the discrete plant's limit constraint (no k or c)" if self.native_limits
                             else "URDF limits +-1e6 rad (never reached); spec limits are recorded, not simulated; "
                             "Drake ignores joint limits in continuous plants and enforces them by a constraint "
                             "in discrete plants"),
            "collision_geometry": self.collision_geometry,
            **(self._contact_config() if self.native_contact else {
                "contacts": "links' cylinders registered as collision geometry (collision_geometry=True)"
                if self.collision_geometry else "none: the URDF has visual geometry only"}),
            "masses": [float(b.default_mass()) for b in bodies],
            "com_offsets": [[float(v) for v in b.default_com()] for b in bodies],
            "inertia_zz": [float(b.default_spatial_inertia().Shift(b.default_com()).CalcRotationalInertia()
                                 .CopyToFullMatrix3()[2, 2]) for b in bodies],  # about the centre of mass
            "inertia_substitutions": [s.as_dict() for s in subs],
            "queries": "second continuous diagram: CalcInverseDynamics - CalcGravityGeneralizedForces + B qd, "
                       "CalcMassMatrix, generalized acceleration output port, CalcKineticEnergy/CalcPotentialEnergy",
        }
