"""Drake reading a robot file: ``Parser(plant).AddModels`` (URDF and MJCF) into a continuous MultibodyPlant.

=====================================  ===========================  ================================================
Drake default                          here                         knob (``name@key=value``)
=====================================  ===========================  ================================================
discrete plant, time_step = 1 ms       continuous (time_step = 0)   —  (the queries are the continuous dynamics)
URDF root link floating (a free body)  welded to the world          —  (MJCF: bodies without joints are welded)
joint damping read from the file       kept as Drake's property,    ``damping=false``: stepping without it
                                       excluded from the queries
gravity (0, 0, −9.81)                  the model's gravity          —
MJCF armature                          JointActuator rotor inertia  ``armature=false``
=====================================  ===========================  ================================================

Queries reuse one context: M = ``CalcMassMatrix``; G = −``CalcGravityGeneralizedForces``; bias = ``CalcBiasTerm``
(C q̇) + G; ID = ``CalcInverseDynamics`` with no applied forces (M q̈ + C q̇, reflected rotor inertia included) + G;
FD = M⁻¹ (τ − bias).  Joint damping (``Joint.default_damping``) lives in the plant's force elements, which none of
these calls includes.  Drake's MJCF parser puts ``armature`` only on an ``<actuator>``'s rotor inertia, and the copy
has no actuators: the adapter adds one ``JointActuator`` per joint with armature, gear ratio 1 and rotor inertia =
the armature crossdyn read from the file (``model.joints[i].armature``), so that ρ² I_r = armature exactly.  Its MJCF parser aborts the whole process (not an exception) on a body of mass 0, so such
a file is refused before parsing (:class:`EngineUnsupported`, naming the body).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

import numpy as np

from crossdyn.engines.files.base import FileEngine, FileOptions
from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.robots.model import Format, RobotModel
from crossdyn.robots.prepare import prepare


@dataclass(frozen=True)
class DrakeFileOptions(FileOptions):
    armature: bool = True
    """The file's armature as each joint's reflected rotor inertia (False: none)."""


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
    library = "pydrake"
    extra = "drake"
    Options = DrakeFileOptions
    integrator = "rk4 (crossdyn's, on M⁻¹(τ − bias) from Drake's continuous plant)"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        from pydrake.multibody.parsing import Parser
        from pydrake.multibody.plant import MultibodyPlant

        self.prepared = prepare(model, self.folder, "drake")
        path = str(self.prepared.path)
        if model.format is Format.MJCF and (bad := massless_mjcf_bodies(path)):
            raise EngineUnsupported(f"drake: Drake's MJCF parser aborts the process on a body of mass 0 "
                                    f"({', '.join(bad)} in {model.source})")
        plant: Any = MultibodyPlant(0.0)
        parser: Any = Parser(plant)
        try:
            (instance, *_) = parser.AddModels(path)
        except (RuntimeError, ValueError) as e:
            raise EngineError(f"drake: could not load {model.source}: {e}") from None
        self.welded = None
        if model.format is Format.URDF:
            root = urdf_root_link(path)
            if root != "world":
                plant.WeldFrames(plant.world_frame(), plant.GetFrameByName(root, instance))
                self.welded = root
        joints: list[Any] = [plant.GetJointByName(j.name, instance) if plant.HasJointNamed(j.name, instance) else None
                  for j in model.joints]
        if any(j is None for j in joints):
            raise EngineError(f"drake: {model.source}: joints missing in Drake's model: "
                              f"{[j.name for j, d in zip(model.joints, joints) if d is None]}")
        self.file_damping = [float(j.default_damping()) for j in joints]
        self.rotor = [0.0] * self.n
        if self.options.armature:
            for mj, dj in zip(model.joints, joints):
                if mj.armature:
                    act = plant.AddJointActuator(f"crossdyn_armature_{mj.name}", dj)
                    act.set_default_gear_ratio(1.0)
                    act.set_default_rotor_inertia(float(mj.armature))
            self.rotor = [float(j.armature) for j in model.joints]
        plant.mutable_gravity_field().set_gravity_vector(np.array(model.gravity, dtype=float))
        plant.Finalize()
        if plant.num_positions() != self.n or plant.num_velocities() != self.n:
            raise EngineError(f"drake: {model.source}: {plant.num_positions()} positions, "
                              f"{plant.num_velocities()} velocities; expected {self.n}")
        self.plant: Any = plant
        self.ctx: Any = plant.CreateDefaultContext()
        starts = [j.velocity_start() for j in joints]
        names = [""] * self.n
        for mj, s in zip(model.joints, starts):
            names[s] = mj.name
        self.set_joint_order(names)
        from pydrake.multibody.tree import MultibodyForces

        self._forces: Any = MultibodyForces(plant)

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
                "plant": "continuous (time_step = 0; Drake's default: discrete, 1 ms)",
                "base": f"root link {self.welded!r} welded to the world" if self.welded else "as the file fixes it",
                "gravity_set": "the model's gravity",
                "armature": dict(zip(names, self.rotor)),
                "armature_model": "JointActuator per joint with armature: gear ratio 1, rotor inertia = armature",
                "joint_damping_in_file": dict(zip(names, self.file_damping)),
                "body_masses_read": self.body_masses(),
                "joint_axes_read": self.joint_axes(),
                "mjcf_default_classes": "Drake 1.51's MJCF parser ignores the parent classes' joint settings when a "
                                        "joint's own class has no <joint> element (see joint_axes_read)",
                "massless_bodies": "Drake's URDF parser gives a link of mass 0 with a non-zero inertia a mass of 1 kg "
                                   "(its warning: 'While re-expressing as central inertia ... mass > 0 failed')",
                "joint_damping": "Drake's Joint.default_damping: excluded from the queries (not in CalcMassMatrix, "
                                 "CalcBiasTerm, CalcInverseDynamics without force elements)"}


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("drake")
    except Exception:  # noqa: BLE001 - a source build without metadata
        return "?"
