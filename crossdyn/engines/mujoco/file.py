"""MuJoCo reading a robot file: MJCF natively, URDF through MuJoCo's importer (``MjModel.from_xml_path``).

The URDF copy gets a ``<mujoco><compiler .../></mujoco>`` block stating the importer's options (each a knob):

=====================  ===================  ==============================================================
compiler option        set to               why
=====================  ===================  ==============================================================
``discardvisual``      true                 visuals are removed from the copy anyway
``fusestatic``         false (knob)         MuJoCo's default true merges fixed-joint bodies (kept apart)
``balanceinertia``     false (knob)         true silently changes inertias off the triangle inequality
``inertiafromgeom``    false                inertia from the file's ``<inertial>``, never from geometry
``boundmass``/-inertia 0                    no silent floor on masses and inertias
``strippath``          false                mesh paths kept as written (meshes are removed)
=====================  ===================  ==============================================================

Both formats: contact (``mjDSBL_CONTACT``) and the constraint solver (limits, ``frictionloss``: ``mjDSBL_CONSTRAINT``)
are off; gravity is the model's (``opt.gravity``); the file's armature is kept (knob ``armature``).  Queries run on an
``MjData`` with joint damping and springs disabled (``mjDSBL_DAMPER``, ``mjDSBL_SPRING``): M = ``mj_fullM`` after
``mj_fwdPosition``; bias = ``qfrc_bias`` after ``mj_fwdVelocity``; ID = ``mj_inverse`` (``qfrc_inverse``); FD =
``mj_forward``'s ``qacc``.  Stepping uses a second model with passive forces on (the file's damping; option
``damping``) and ``integrator`` (the engine name's: ``mujoco`` Euler with ``eulerdamp`` disabled, ``mujoco-rk4`` RK4,
as on a planar arm), τ in ``qfrc_applied``, MuJoCo's autoreset disabled (a divergence stays visible); ``eulerdamp``
and ``autoreset`` are knobs of the same names and meaning as the planar adapter's and the batched runner's.
``native_effort=true`` steps τ as ``ctrl`` of a plain motor per joint (gear 1, ``forcerange`` = ±the file's effort,
added with ``MjSpec``): MuJoCo then clamps it natively (off: τ in ``qfrc_applied``, unclamped, as every file engine).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

import numpy as np

from crossdyn.engines.file_engine import FileEngine, FileOptions
from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.robots.model import Format, RobotModel
from crossdyn.robots.prepare import prepare

INTEGRATORS = ("Euler", "RK4", "implicit", "implicitfast")


REFUSALS = ("must be larger than mjMINVAL", "inertia must satisfy A + B >= C")
"""MuJoCo's compiler errors that refuse what a file states (a moving body without mass or inertia; principal
moments off the triangle inequality, which no rigid body has): the engine cannot represent the file, so it is
unsupported (not counted), not failed."""


@dataclass(frozen=True)
class MuJoCoFileOptions(FileOptions):
    integrator: str = "RK4"
    fusestatic: bool = False
    """URDF importer: merge bodies attached by fixed joints into their parent (MuJoCo's default: true)."""
    balanceinertia: bool = False
    """URDF importer: MuJoCo's balanceinertia (changes inertias that violate the triangle inequality)."""
    armature: bool = True
    """Keep the file's joint armature (False: armature 0)."""
    contact: bool = False
    """MuJoCo's contact (off: mjDSBL_CONTACT)."""
    constraint: bool = False
    """MuJoCo's constraint solver: joint limits and frictionloss (off: mjDSBL_CONSTRAINT)."""
    limits: bool = False
    """MuJoCo's own joint limits in stepping (the file's ``range`` on every ``limited`` joint, its ``solreflimit``/
    ``solimplimit``): the constraint solver on for the stepping model only, with frictionloss and equality
    constraints off (mjDSBL_FRICTIONLOSS, mjDSBL_EQUALITY), so that limits are the only constraint acting
    (``compare ROBOT --native``; the queries keep the solver off)."""
    eulerdamp: bool = False
    """MuJoCo's implicit joint damping under Euler (True: MuJoCo's default; off: mjDSBL_EULERDAMP), as the planar
    adapter's and the batched runner's knob of the same name."""
    autoreset: bool = False
    """MuJoCo's silent reset of the state on a bad acceleration (True: MuJoCo's default; off: mjDSBL_AUTORESET, so
    that a divergence stays visible), as the planar adapter's knob."""
    native_effort: bool = False
    """Step τ through a motor per joint (gear 1, ``forcerange`` = ±the file's effort where it states one, added with
    ``MjSpec``), τ as ``ctrl``: MuJoCo clamps the actuator force to the file's effort itself (native mode).  Off
    (crossdyn's setting): τ in ``qfrc_applied``, unclamped, the stepping contract of every file engine."""


def urdf_block(opt: MuJoCoFileOptions) -> ET.Element:
    """The ``<mujoco><compiler/></mujoco>`` element injected into a URDF copy."""
    el = ET.Element("mujoco")
    ET.SubElement(el, "compiler", {
        "discardvisual": "true", "fusestatic": str(opt.fusestatic).lower(),
        "balanceinertia": str(opt.balanceinertia).lower(), "inertiafromgeom": "false",
        "boundmass": "0", "boundinertia": "0", "strippath": "false", "angle": "radian"})
    return el


class MuJoCoFileEngine(FileEngine):
    name = "mujoco"
    formats = frozenset({Format.URDF, Format.MJCF})
    Options = MuJoCoFileOptions

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        import mujoco

        self.mj = mujoco
        opt = self.options
        if opt.integrator not in INTEGRATORS:
            raise EngineError(f"mujoco integrator: one of {', '.join(INTEGRATORS)}, got {opt.integrator!r}")
        self.integrator = opt.integrator
        extra = urdf_block(opt) if model.format is Format.URDF else None
        self.prepared = prepare(model, self.folder, "mujoco", urdf_extra=extra)
        try:
            self.m = mujoco.MjModel.from_xml_path(str(self.prepared.path))
            self.ms = mujoco.MjModel.from_xml_path(str(self.prepared.path))
        except ValueError as e:
            if any(w in str(e) for w in REFUSALS):  # MuJoCo refuses what the file states: unsupported, not failed
                raise EngineUnsupported(f"mujoco: refuses {model.source}: {' '.join(str(e).split())}") from None
            raise EngineError(f"mujoco: could not load {model.source}: {e}") from None
        if opt.native_effort:
            self.ms = self._with_motors()
        m = self.m
        types = set(int(t) for t in m.jnt_type)
        if m.nv != m.njnt or not types <= {int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)}:
            raise EngineError(f"mujoco: {model.source}: joints other than hinge/slide (nv={m.nv}, njnt={m.njnt})")
        self.file_armature = m.dof_armature.copy()
        self.file_damping = m.dof_damping.copy()
        self.file_frictionloss = m.dof_frictionloss.copy()
        self.file_gravity = m.opt.gravity.copy()
        self.file_option = {"timestep": float(m.opt.timestep), "integrator": mujoco.mjtIntegrator(m.opt.integrator).name,
                            "disableflags": int(m.opt.disableflags), "enableflags": int(m.opt.enableflags)}
        D = mujoco.mjtDisableBit
        for mm in (self.m, self.ms):
            mm.opt.gravity[:] = model.gravity
            mm.opt.timestep = self.dt
            if not opt.armature:
                mm.dof_armature[:] = 0.0
            if not opt.contact:
                mm.opt.disableflags |= int(D.mjDSBL_CONTACT)
            if not opt.constraint and not (opt.limits and mm is self.ms):
                mm.opt.disableflags |= int(D.mjDSBL_CONSTRAINT)
        if opt.limits and not opt.constraint:  # the limits alone: no frictionloss, no equality constraints
            self.ms.opt.disableflags |= int(D.mjDSBL_FRICTIONLOSS) | int(D.mjDSBL_EQUALITY)
        m.opt.disableflags |= int(D.mjDSBL_DAMPER) | int(D.mjDSBL_SPRING)
        ms = self.ms
        if not opt.damping:
            ms.opt.disableflags |= int(D.mjDSBL_DAMPER)
        ms.opt.integrator = int(getattr(mujoco.mjtIntegrator, f"mjINT_{opt.integrator.upper()}"))
        if not opt.eulerdamp:
            ms.opt.disableflags |= int(D.mjDSBL_EULERDAMP)
        if not opt.autoreset:
            ms.opt.disableflags |= int(D.mjDSBL_AUTORESET)
        self.d = mujoco.MjData(m)
        self.ds = mujoco.MjData(ms)
        # dof order = joint order (hinge/slide only); joint i's dof is jnt_dofadr[i]
        names = [""] * m.nv
        for j in range(m.njnt):
            names[int(m.jnt_dofadr[j])] = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) or ""
        self.set_joint_order(names)
        self._qadr = np.array([int(m.jnt_qposadr[j]) for j in np.argsort(m.jnt_dofadr)])

    def _with_motors(self):
        """The stepping model with a motor on every joint (``native_effort``): gear 1, force-limited to ±the file's
        effort where the model states one in (0, 1e9) (crossdyn's writer's 1e9 is none)."""
        mj = self.mj
        spec = mj.MjSpec.from_file(str(self.prepared.path))
        effort = {j.name: j.effort for j in self.model.joints}
        for joint in spec.joints:
            act = spec.add_actuator()
            act.name, act.target, act.trntype = f"crossdyn_motor_{joint.name}", joint.name, mj.mjtTrn.mjTRN_JOINT
            act.gear[0] = 1.0  # a plain motor whatever the file's default class says (Menagerie's: a servo)
            act.dyntype, act.gaintype, act.biastype = mj.mjtDyn.mjDYN_NONE, mj.mjtGain.mjGAIN_FIXED, mj.mjtBias.mjBIAS_NONE
            act.gainprm[:] = 0.0
            act.gainprm[0] = 1.0
            act.biasprm[:] = 0.0
            act.ctrllimited = mj.mjtLimited.mjLIMITED_FALSE
            e = effort.get(joint.name)
            if e is not None and 0 < e < 1e9:
                act.forcelimited, act.forcerange = mj.mjtLimited.mjLIMITED_TRUE, [-e, e]
        return spec.compile()

    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray:
        mj, m, d = self.mj, self.m, self.d
        out = np.empty((Q.shape[0], self.n, self.n))
        for k in range(Q.shape[0]):
            d.qpos[self._qadr] = Q[k]
            mj.mj_fwdPosition(m, d)
            mj.mj_fullM(m, d, out[k])
        return out

    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
        mj, m, d = self.mj, self.m, self.d
        out = np.empty_like(Q)
        for k in range(Q.shape[0]):
            d.qpos[self._qadr] = Q[k]
            d.qvel[:] = QD[k]
            mj.mj_fwdPosition(m, d)
            mj.mj_fwdVelocity(m, d)
            out[k] = d.qfrc_bias
        return out

    def _inverse_dynamics(self, Q: np.ndarray, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:
        mj, m, d = self.mj, self.m, self.d
        out = np.empty_like(Q)
        for k in range(Q.shape[0]):
            d.qpos[self._qadr] = Q[k]
            d.qvel[:] = QD[k]
            d.qacc[:] = QDD[k]
            mj.mj_inverse(m, d)
            out[k] = d.qfrc_inverse
        return out

    def _forward_dynamics(self, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray) -> np.ndarray:
        mj, m, d = self.mj, self.m, self.d
        out = np.empty_like(Q)
        for k in range(Q.shape[0]):
            d.qpos[self._qadr] = Q[k]
            d.qvel[:] = QD[k]
            d.qfrc_applied[:] = TAU[k]
            mj.mj_forward(m, d)
            out[k] = d.qacc
        d.qfrc_applied[:] = 0.0
        return out

    def reset(self, q: np.ndarray, qd: np.ndarray) -> None:
        self.mj.mj_resetData(self.ms, self.ds)
        self.ds.qpos[self._qadr] = self.to_engine(np.reshape(np.asarray(q, dtype=float), (1, self.n)))[0]
        self.ds.qvel[:] = self.to_engine(np.reshape(np.asarray(qd, dtype=float), (1, self.n)))[0]

    def step(self, tau: np.ndarray) -> None:
        tau = self.to_engine(np.reshape(np.asarray(tau, dtype=float), (1, self.n)))[0]
        if self.options.native_effort:  # motor k drives joint trnid[k]: ctrl in the motors' order
            self.ds.ctrl[:] = tau[self.ms.jnt_dofadr[self.ms.actuator_trnid[:, 0]]]
        else:
            self.ds.qfrc_applied[:] = tau
        self.mj.mj_step(self.ms, self.ds)

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        q = self.to_model(self.ds.qpos[self._qadr][None])[0]
        return q.copy(), self.to_model(self.ds.qvel[None])[0].copy()

    def _limits_config(self) -> str | dict:
        """config()["joint_limits"]: off, or per limited joint its range, solreflimit and solimplimit."""
        opt, m = self.options, self.ms
        if not (opt.limits or opt.constraint):
            return "off (mjDSBL_CONSTRAINT; limits=true: the file's range enforced by MuJoCo's solver in stepping)"
        rows = {}
        for name, i in zip(self.model.joint_names, self._idx):
            j = int(m.dof_jntid[i])
            rows[name] = ({"range": m.jnt_range[j].tolist(), "solreflimit": m.jnt_solref[j].tolist(),
                           "solimplimit": m.jnt_solimp[j].tolist()} if m.jnt_limited[j] else "not limited")
        how = ("on in stepping (limits=true: constraint solver with frictionloss and equality off)" if opt.limits
               and not opt.constraint else "on (constraint=true)")
        return {"enforcement": how, "joints": rows}

    def config(self) -> dict:
        opt = self.options
        by = dict(zip(self.model.joint_names, self._idx))
        importer = {} if self.model.format is Format.MJCF else {
            "urdf_importer_compiler": dict(urdf_block(opt)[0].attrib)}
        return {**self.base_config(),
                "library": f"mujoco {self.mj.__version__}",
                "loader": f"MjModel.from_xml_path({self.prepared.path.name})",
                "copy_removed": list(self.prepared.removed),
                **importer,
                "gravity_in_file": self.file_gravity.tolist(),
                "option_in_file": self.file_option,
                "option_set": f"timestep = dt, integrator = {opt.integrator} (stepping); flags below",
                "gravity_set": "opt.gravity = the model's gravity",
                "contact": "on" if opt.contact else "off (mjDSBL_CONTACT)",
                "constraint": "on" if opt.constraint else "off (mjDSBL_CONSTRAINT: joint limits, frictionloss)",
                "joint_limits": self._limits_config(),
                "queries": "mjDSBL_DAMPER, mjDSBL_SPRING: no joint damping or springs; mj_fullM, qfrc_bias, "
                           "mj_inverse, mj_forward",
                "armature": {j: float(self.m.dof_armature[i]) for j, i in by.items()},
                "armature_in_file": {j: float(self.file_armature[i]) for j, i in by.items()},
                "damping_in_file": {j: float(self.file_damping[i]) for j, i in by.items()},
                "frictionloss_in_file": {j: float(self.file_frictionloss[i]) for j, i in by.items()},
                "eulerdamp": opt.eulerdamp, "autoreset": opt.autoreset,
                **({"effort_limits": "applied natively (native_effort=true): tau as ctrl of a motor per joint, gear 1, "
                                     "forcerange = +/-the file's effort: MuJoCo clamps it"} if opt.native_effort else {}),
                "stepping": f"mj_step, {opt.integrator} (eulerdamp {'on' if opt.eulerdamp else 'disabled'}, "
                            f"autoreset {'on' if opt.autoreset else 'disabled'}), tau in "
                            f"{'ctrl (motors, native_effort)' if opt.native_effort else 'qfrc_applied'}, the file's "
                            "springs " + ("and damping" if opt.damping else "(damping off: mjDSBL_DAMPER)")}
