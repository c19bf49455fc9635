"""Drake reading a robot file: ``Parser(plant).AddModels`` (URDF and MJCF) into a continuous MultibodyPlant.

=====================================  ===========================  ================================================
Drake default                          here                         knob (``name@key=value``)
=====================================  ===========================  ================================================
discrete plant, time_step = 1 ms       continuous (time_step = 0)   ``native_step=true@time_step=0.001`` (stepping;
                                                                    the queries are always the continuous dynamics)
URDF root link floating (a free body)  welded to the world          —  (MJCF: bodies without joints are welded)
joint damping read from the file       kept as Drake's property,    ``damping=false``: stepping without it
                                       excluded from the queries
own integrator (Simulator)             crossdyn's RK4               ``native_step=true`` (Drake's RK3 at dt)
gravity (0, 0, −9.81)                  the model's gravity          —
MJCF armature                          JointActuator rotor inertia  ``armature=false``
joint position limits from the file    ±inf (set before Finalize)   ``limits=true`` (a discrete plant enforces them;
(enforced by a discrete plant only)                                 a continuous one never does)
URDF ``<transmission>`` → actuator     no actuators (the copy has   ``native_effort=true`` (Drake's own stepping:
with effort_limit = ``<limit effort>`` none); τ as a generalized    ``drake``, ``drake-rk3``, ``drake-discrete``)
                                       force, unclamped
=====================================  ===========================  ================================================

``native_effort=true`` gives the stepping plant one ``JointActuator`` per joint (gear ratio 1, rotor inertia the
armature, ``effort_limit`` = the file's effort where it states one in (0, 1e9), else ∞: what Drake's URDF parser makes
of a ``<transmission>``) and steps τ through the actuation input port: Drake 1.51 clamps u to ±effort_limit in its
continuous and discrete plants alike (measured on example-robot-data's UR5 and Menagerie's UR5e, given twice each
effort for one step from rest: the acceleration is the clamped torque's to ≤ 7e-16 of the clamped-unclamped gap on
the discrete plant, ≤ 5.4e-7 under RK3, whose first step averages over its stages; the net actuation is
clip(τ, −e, e) exactly, tests/test_robot_effort.py).  ``drake-rk4`` steps with crossdyn's RK4 on the queries, which
no actuation enters: the knob is refused there.

Queries reuse one context: M = ``CalcMassMatrix``; G = −``CalcGravityGeneralizedForces``; bias = ``CalcBiasTerm``
(C q̇) + G; ID = ``CalcInverseDynamics`` with no applied forces (M q̈ + C q̇, reflected rotor inertia included) + G;
FD = M⁻¹ (τ − bias).  Joint damping (``Joint.default_damping``) lives in the plant's force elements, which none of
these calls includes.  Drake's MJCF parser puts ``armature`` only on an ``<actuator>``'s rotor inertia, and the copy
has no actuators: the adapter adds one ``JointActuator`` per joint with armature, gear ratio 1 and rotor inertia =
the armature crossdyn read from the file (``model.joints[i].armature``), so that ρ² I_r = armature exactly.  Its MJCF parser aborts the whole process (not an exception) on a body of mass 0, so such
a file is refused before parsing (:class:`EngineUnsupported`, naming the body); a body whose inertia fails Drake's
``SpatialInertia::IsPhysicallyValid`` (moments off the triangle inequality, which its MJCF parser reads as written,
``balanceinertia`` ignored) is unsupported too: Drake refuses what the file states.
"""
from __future__ import annotations

import contextlib
import logging
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from crossdyn.engines.drake import SCHEMES
from crossdyn.engines.file_engine import FileEngine, FileOptions
from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.robots.model import Format, RobotModel
from crossdyn.robots.prepare import prepare


@dataclass(frozen=True)
class DrakeFileOptions(FileOptions):
    armature: bool = True
    """The file's armature as each joint's reflected rotor inertia (False: none)."""
    native_step: bool = False
    """Step with Drake's Simulator (RK3 at a fixed step dt on the continuous plant, or the discrete solver when
    time_step > 0) instead of crossdyn's RK4 on Drake's forward dynamics."""
    time_step: float = 0.0
    """The stepping plant's time_step (0: continuous; Drake's default is a discrete plant at 0.001 s)."""
    integrator: str = "rk4"
    """What steps, as the planar adapter's names say it (:data:`crossdyn.engines.drake.SCHEMES`, the same scheme and
    settings on both): ``rk4`` crossdyn's RK4 on Drake's forward dynamics (``drake-rk4``); ``rk3-adaptive`` Drake's
    error-controlled RK3 at target accuracy ``accuracy`` (``drake``); ``rk2``, ``rk3``, ``rk5``, ``euler``
    (``semi_explicit_euler``: semi-implicit Euler), ``implicit`` (``implicit_euler``) Drake's integrator in
    fixed-step mode at dt (``drake-rk2`` … ``drake-implicit``; ``rk3`` is ``native_step`` with time_step 0);
    ``discrete`` Drake's discrete plant at time_step dt (``drake-discrete``)."""
    accuracy: float = 1e-10
    """Target accuracy of the error-controlled RK3 (the planar ``drake``'s; Drake's own default is 1e-4)."""
    limits: bool = False
    """Keep the file's joint position limits (``Joint.position_lower_limits`` …), which Drake's discrete plant
    enforces while stepping (``integrator=discrete``; measured on pybullet_data's kuka_iiwa: joint 4 driven past
    2.094 rad stops at 2.0944).  False: every joint's limits set to ±inf before ``Finalize``."""
    native_effort: bool = False
    """Step τ through a ``JointActuator`` per joint whose ``effort_limit`` is the file's effort (Drake clamps the
    actuation to it, native mode; Drake's own stepping only).  Off (crossdyn's setting): τ into the applied
    generalized force port (or crossdyn's RK4), unclamped, the stepping contract of every file engine."""


INTEGRATORS = tuple(SCHEMES)

FIXED_STEP_TEXT = {"rk3": "Drake's RK3, fixed step dt (continuous plant)"}
"""The config's words for Drake's fixed-step schemes (the others: "<scheme> (Drake's <its name>, fixed step dt,
continuous plant)")."""


def massless_mjcf_bodies(path: str) -> list[str]:
    """Bodies of an MJCF whose ``<inertial mass>`` is 0 (Drake's parser aborts the process on them)."""
    root = ET.parse(path).getroot()
    return [b.get("name", "?") for b in root.iter("body")
            if (i := b.find("inertial")) is not None and float(i.get("mass", "1")) <= 0.0]


def urdf_root_link(path: str) -> str:
    """The URDF's root link: the one link that is no joint's child."""
    root = ET.parse(path).getroot()
    children = {c.get("link") for j in root.iter("joint") if (c := j.find("child")) is not None}
    roots = [lk.get("name", "") for lk in root.iter("link") if lk.get("name") not in children]
    if len(roots) != 1:
        raise EngineError(f"drake: {path}: expected one root link, found {roots}")
    return roots[0]


class DrakeFileEngine(FileEngine):
    name = "drake"
    formats = frozenset({Format.URDF, Format.MJCF})
    Options = DrakeFileOptions
    integrator = "rk4 (crossdyn's, on M⁻¹(τ − bias) from Drake's continuous plant)"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        opt = self.options
        self.prepared = prepare(model, self.folder, "drake")
        path = str(self.prepared.path)
        if model.format is Format.MJCF and (bad := massless_mjcf_bodies(path)):
            raise EngineUnsupported(f"drake: Drake's MJCF parser aborts the process on a body of mass 0 "
                                    f"({', '.join(bad)} in {model.source})")
        if not (isinstance(opt.time_step, (int, float)) and opt.time_step >= 0):
            raise EngineError(f"drake time_step: a number >= 0 s, got {opt.time_step!r}")
        if opt.integrator not in INTEGRATORS:
            raise EngineError(f"drake integrator: one of {', '.join(INTEGRATORS)}, got {opt.integrator!r}")
        if not 0 < opt.accuracy < 1:
            raise EngineError(f"drake accuracy: a number in (0, 1), got {opt.accuracy!r}")
        self.native = bool(opt.native_step) or opt.integrator != "rk4"
        if opt.native_effort and not self.native:
            raise EngineError("drake native_effort=true: Drake clamps the actuation only in its own stepping (drake, "
                              "drake-rk3, drake-discrete, or native_step=true); drake-rk4 steps with crossdyn's RK4 "
                              "on Drake's forward dynamics, which no effort limit enters")
        self.time_step = self.dt if opt.integrator == "discrete" else float(opt.time_step)
        self.plant: Any = self._build(path, 0.0)
        self.ctx: Any = self.plant.CreateDefaultContext()
        joints = [self.plant.GetJointByName(j.name) for j in model.joints]
        self.file_damping = [float(j.default_damping()) for j in joints]
        self.rotor = [float(j.armature) if opt.armature else 0.0 for j in model.joints]
        names = [""] * self.n
        for mj, joint in zip(model.joints, joints):
            names[joint.velocity_start()] = mj.name
        self.set_joint_order(names)
        from pydrake.multibody.tree import MultibodyForces

        self._forces: Any = MultibodyForces(self.plant)
        if self.native:
            self._native(path)

    def _build(self, path: str, time_step: float, damping: bool = True, actuated: bool = False) -> Any:
        """The plant of the file: root welded (URDF), armature as rotor inertia, the model's gravity; ``actuated``:
        an actuator on every joint (gear 1, rotor inertia the armature), its ``effort_limit`` the file's effort."""
        from pydrake.multibody.parsing import Parser
        from pydrake.multibody.plant import MultibodyPlant

        model = self.model
        plant: Any = MultibodyPlant(time_step)
        parser: Any = Parser(plant)
        with _drake_log() as messages:
            try:
                (instance, *_) = parser.AddModels(path)
            except (RuntimeError, ValueError) as e:
                if "IsPhysicallyValid" in str(e):  # it refuses what the file states: unsupported, not failed
                    raise EngineUnsupported(f"drake: refuses {model.source}: {' '.join(str(e).split())}") from None
                raise EngineError(f"drake: could not load {model.source}: {e}") from None
        self.parser_warnings = _counted(messages)
        self.welded = None
        if model.format is Format.URDF and (root := urdf_root_link(path)) != "world":
            plant.WeldFrames(plant.world_frame(), plant.GetFrameByName(root, instance))
            self.welded = root
        missing = [j.name for j in model.joints if not plant.HasJointNamed(j.name, instance)]
        if missing:
            raise EngineError(f"drake: {model.source}: joints missing in Drake's model: {missing}")
        for mj in model.joints:
            joint = plant.GetJointByName(mj.name, instance)
            if not damping:
                joint.set_default_damping(0.0)
            if not self.options.limits:
                joint.set_position_limits(np.full(1, -np.inf), np.full(1, np.inf))
            if actuated or (mj.armature and self.options.armature):
                effort = float(mj.effort) if actuated and mj.effort is not None and 0 < mj.effort < 1e9 else np.inf
                act = plant.AddJointActuator(f"crossdyn_{'motor' if actuated else 'armature'}_{mj.name}", joint, effort)
                act.set_default_gear_ratio(1.0)
                act.set_default_rotor_inertia(float(mj.armature) if self.options.armature else 0.0)
        plant.mutable_gravity_field().set_gravity_vector(np.array(model.gravity, dtype=float))
        plant.Finalize()
        if plant.num_positions() != self.n or plant.num_velocities() != self.n:
            raise EngineError(f"drake: {model.source}: {plant.num_positions()} positions, "
                              f"{plant.num_velocities()} velocities; expected {self.n}")
        return plant

    def _native(self, path: str) -> None:
        """Drake's own stepping: a Simulator on a plant of time_step (0: continuous, Drake's integrator of the name,
        error-controlled or at a fixed step dt, at most dt per step; > 0: Drake's discrete solver), τ through the
        applied generalized force port, held over dt."""
        from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator

        ts = self.time_step
        plant = self._build(path, ts, damping=bool(self.options.damping), actuated=bool(self.options.native_effort))
        self._splant: Any = plant
        self._sim: Any = Simulator(plant)
        self._sctx: Any = self._sim.get_mutable_context()
        if ts == 0.0 and self.options.integrator == "rk3-adaptive":
            integ = ResetIntegratorFromFlags(self._sim, "runge_kutta3", self.dt)
            integ.set_target_accuracy(float(self.options.accuracy))
            self.integrator = (f"Drake's error-controlled RK3 (rk3-adaptive), target accuracy "
                               f"{self.options.accuracy:g} (continuous plant)")
        elif ts == 0.0:  # native_step=true under rk4 steps with Drake's RK3
            name = "rk3" if self.options.integrator == "rk4" else self.options.integrator
            scheme, _, word, _ = SCHEMES[name]
            integ = ResetIntegratorFromFlags(self._sim, str(scheme), self.dt)
            integ.set_fixed_step_mode(True)
            self.integrator = FIXED_STEP_TEXT.get(name, f"{word} (Drake's {scheme}, fixed step dt, continuous plant)")
        else:
            # Drake's discrete solver: v then q with the new v (the planar drake-discrete says so too)
            self.integrator = f"semi-implicit Euler (Drake's discrete plant, time_step {ts} s)"
        self._port: Any = plant.get_applied_generalized_force_input_port()
        self._port.FixValue(self._sctx, np.zeros(self.n))
        if self.options.native_effort:  # u[k] drives actuator k's joint: its velocity index in Drake's order
            acts = [plant.get_joint_actuator(i) for i in plant.GetJointActuatorIndices()]
            self._u_dof = np.array([a.joint().velocity_start() for a in sorted(acts, key=lambda a: a.input_start())])
            self.effort_limits = {a.joint().name(): float(a.effort_limit()) for a in acts}
            self._port = plant.get_actuation_input_port()
            self._port.FixValue(self._sctx, np.zeros(len(acts)))
        self._sim.Initialize()
        self._k = 0

    def reset(self, q: np.ndarray, qd: np.ndarray) -> None:
        super().reset(q, qd)
        if self.native:
            self._sctx.SetTime(0.0)
            self._splant.SetPositions(self._sctx, self.to_engine(self._q[None])[0])
            self._splant.SetVelocities(self._sctx, self.to_engine(self._qd[None])[0])
            self._sim.Initialize()
            self._k = 0

    def step(self, tau: np.ndarray) -> None:
        if not self.native:
            super().step(tau)
            return
        te = self.to_engine(np.reshape(np.asarray(tau, dtype=float), (1, self.n)))[0]
        self._port.FixValue(self._sctx, te[self._u_dof] if self.options.native_effort else te)
        self._k += 1
        self._sim.AdvanceTo(self._k * self.dt)
        self._q = self.to_model(np.asarray(self._splant.GetPositions(self._sctx))[None])[0]
        self._qd = self.to_model(np.asarray(self._splant.GetVelocities(self._sctx))[None])[0]

    def net_actuation(self) -> np.ndarray:
        """The actuation Drake applied over the last step (model order; ``native_effort`` only): its net actuation
        output port, τ after Drake's clamp to ±effort_limit."""
        if not self.options.native_effort:
            raise EngineError("drake: net_actuation needs native_effort=true (no actuators otherwise)")
        u = np.asarray(self._splant.get_net_actuation_output_port().Eval(self._sctx), float)
        te = np.zeros(self.n)
        te[self._u_dof] = u
        return self.to_model(te[None])[0]

    def _at(self, q: np.ndarray, v: np.ndarray | None = None) -> None:
        self.plant.SetPositions(self.ctx, q)
        self.plant.SetVelocities(self.ctx, np.zeros(self.n) if v is None else v)

    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray:
        out = np.empty((Q.shape[0], self.n, self.n))
        for k in range(Q.shape[0]):
            self._at(Q[k])
            out[k] = self.plant.CalcMassMatrix(self.ctx)
        return out

    def _gravity(self, Q: np.ndarray) -> np.ndarray:
        out = np.empty_like(Q)
        for k in range(Q.shape[0]):
            self._at(Q[k])
            out[k] = -self.plant.CalcGravityGeneralizedForces(self.ctx)
        return out

    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
        plant, ctx = self.plant, self.ctx
        out = np.empty_like(Q)
        for k in range(Q.shape[0]):
            self._at(Q[k], QD[k])
            out[k] = plant.CalcBiasTerm(ctx) - plant.CalcGravityGeneralizedForces(ctx)
        return out

    def _inverse_dynamics(self, Q: np.ndarray, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:
        plant, ctx, forces = self.plant, self.ctx, self._forces
        out = np.empty_like(Q)
        for k in range(Q.shape[0]):
            self._at(Q[k], QD[k])
            forces.SetZero()
            out[k] = plant.CalcInverseDynamics(ctx, QDD[k], forces) - plant.CalcGravityGeneralizedForces(ctx)
        return out

    def body_masses(self) -> dict[str, float]:
        """Each body's mass as Drake holds it (the world excluded)."""
        from pydrake.multibody.tree import BodyIndex

        plant = self.plant
        return {plant.get_body(BodyIndex(i)).name(): float(plant.get_body(BodyIndex(i)).default_mass())
                for i in range(1, plant.num_bodies())}

    def joint_axes(self) -> dict[str, list[float]]:
        """Each model joint's axis as Drake holds it.  Drake 1.51's MJCF parser gives a joint whose default class has
        no ``<joint>`` element of its own none of the parent classes' joint settings: Menagerie's UR5e (joints of
        class "size3", which holds only a nested class, inside "ur5e" which sets axis="0 1 0") reads as axes
        (0, 0, 1)."""
        plant = self.plant
        out = {}
        for j in self.model.joints:
            joint = plant.GetJointByName(j.name)
            axis = joint.revolute_axis() if hasattr(joint, "revolute_axis") else joint.translation_axis()
            out[j.name] = [float(a) for a in axis]
        return out

    def config(self) -> dict:
        names = list(self.model.joint_names)
        return {**self.base_config(),
                "library": "drake " + _version(),
                "loader": f"Parser(plant).AddModels({self.prepared.path.name})",
                "copy_removed": list(self.prepared.removed),
                "plant": "queries: continuous (time_step = 0; Drake's default: discrete, 1 ms)",
                "stepping": self.integrator,
                # the discrete solver integrates joint damping implicitly: no explicit scheme shares its arithmetic
                "implicit_damping": bool(self.native and self.time_step > 0),
                "base": f"root link {self.welded!r} welded to the world" if self.welded else "as the file fixes it",
                "gravity_set": "the model's gravity",
                "joint_limits": ("the file's, enforced by Drake's discrete plant only (limits=true)" if self.options.limits
                                 else "off: ±inf before Finalize (Drake's discrete plant enforces the file's limits; "
                                      "limits=true)"),
                **self._effort_config(),
                "armature": dict(zip(names, self.rotor)),
                "armature_model": "JointActuator per joint with armature: gear ratio 1, rotor inertia = armature",
                "joint_damping_in_file": dict(zip(names, self.file_damping)),
                "body_masses_read": self.body_masses(),
                "joint_axes_read": self.joint_axes(),
                "mjcf_default_classes": "Drake 1.51's MJCF parser ignores the parent classes' joint settings when a "
                                        "joint's own class has no <joint> element (see joint_axes_read)",
                "parser_warnings": self.parser_warnings,
                "massless_bodies": "Drake's URDF parser gives a link of mass 0 with a non-zero inertia a mass of 1 kg "
                                   "(its warning: 'While re-expressing as central inertia ... mass > 0 failed')",
                "joint_damping": "Drake's Joint.default_damping: excluded from the queries (not in CalcMassMatrix, "
                                 "CalcBiasTerm, CalcInverseDynamics without force elements)"}

    def _effort_config(self) -> dict:
        """config()["effort_limits"] where ``native_effort`` is on (else the base config's: unclamped)."""
        if not self.options.native_effort:
            return {}
        limits = {j: (lim if np.isfinite(lim) else "inf") for j, lim in self.effort_limits.items()}
        return {"effort_limits": "applied natively (native_effort=true): tau as the actuation of a JointActuator per "
                                 "joint, gear 1, effort_limit = the file's effort: Drake clamps it",
                "actuator_effort_limits": limits}


@contextlib.contextmanager
def _drake_log() -> Iterator[list[str]]:
    """Drake's parser warnings (the Python logger ``drake``) collected for :meth:`DrakeFileEngine.config` instead of
    printed on the user's terminal."""
    messages: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    log = logging.getLogger("drake")
    handler, propagate = _Collect(), log.propagate
    log.addHandler(handler)
    log.propagate = False
    try:
        yield messages
    finally:
        log.removeHandler(handler)
        log.propagate = propagate


def _counted(messages: list[str]) -> dict[str, int]:
    """Warnings by their text after the file and line (``panda.urdf:32: warning: The tag ...``), with their count."""
    out: dict[str, int] = {}
    for m in messages:
        key = m.split("warning: ", 1)[-1]
        out[key] = out.get(key, 0) + 1
    return out


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("drake")
    except Exception:  # noqa: BLE001 - a source build without metadata
        return "?"
