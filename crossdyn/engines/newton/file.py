"""NVIDIA Newton reading a robot file with its own importers: ``ModelBuilder.add_urdf`` (URDF) or ``add_mjcf``
(MJCF), root fixed (URDF: ``floating=False``; MJCF: the root body's own joint, ``floating=None``), ``finalize``
on the Warp device, its Featherstone solver (float32).

Newton's defaults that change the dynamics, each switched off, listed in :meth:`NewtonFileEngine.config` and
switchable back by ``newton@key=value`` (each shown to matter by ``tests/test_file_engines_gpu.py``):

=====================  ==========================  ==================================================================
knob                   crossdyn (Newton's default)  what Newton's default does
=====================  ==========================  ==================================================================
``newton_gravity``     false (true)                 −9.81 along the builder's up axis (+z) whatever the file says;
                                                    crossdyn sets the model's gravity (``Model.set_gravity``)
``validate_inertia``   false (true)                 ``finalize`` "corrects" inertias: an eigenvalue floor, the
                                                    triangle inequality, tiny inertias (1e-14) raised to ~1e-6 kg m²
``limits``             false (true)                 a joint past its file limit gets Newton's penalty spring
                                                    (ke = 1e4, kd = 10) while stepping; crossdyn's stepping contract
                                                    has no limits (ke = kd = 0)
``angular_damping``    0 (0.05)                     ``SolverFeatherstone``'s default (unused on joints in Newton 1.8)
``armature``           true (true)                  keep the file's armature (MJCF ``armature``; a URDF has none)
``mimic``              false (true)                 a URDF ``<mimic>`` joint follows its leader (Featherstone reduces
                                                    the pair) while stepping; crossdyn reads it independent
=====================  ==========================  ==================================================================

With ``limits=true`` (what ``compare ROBOT --native`` runs) a file with a limited joint that Newton's penalty would
not hold (its importer left ``joint_limit_ke`` ≤ 0 or no finite range: :func:`unenforced_limits`) is refused
(:class:`EngineUnsupported`, naming the joint), so that the native table says why rather than showing a pass-through.

Left as Newton does them, stated in ``config``: fixed joints stay joints (``collapse_fixed_joints=False``, the
bodies kept apart as in the file); the file's ``<inertial>`` is used (``ignore_inertial_definitions=False``); the
builder's up axis is +z (the file's frames are used unrotated); the copy the importer reads is
:func:`crossdyn.robots.prepare.prepare`'s (URDF without collisions: no shape adds mass; MJCF geoms as that
function leaves them).  Measured: Newton's MJCF importer follows MuJoCo, a body's ``<inertial>`` wins over its
geoms and a body without one gets its geoms' mass and inertia (Menagerie's UR5e with ``upper_arm_link``'s
``<inertial>`` removed: 5.927 kg, as crossdyn's reader and MuJoCo; setting Newton's shape density to 0 would make
that body massless).

Queries (rigid bodies + armature, no damping, limits or friction): N states at once on a model of N copies
(``ModelBuilder.replicate``, one world per state; cached per N): ``eval_fk`` then
``eval_inverse_dynamics_passive`` (M with armature, C q̇, g) and ``eval_inverse_dynamics_force`` (ID); FD is
``SolverFeatherstone.joint_qdd`` after one step from the state on that model with joint damping and stiffness 0.
Stepping: one copy, ``SolverFeatherstone.step`` (semi-implicit Euler) with τ in ``Control.joint_f``, the file's
damping (``joint_damping``; option ``damping``) and stiffness; Newton has no Coulomb joint friction in
Featherstone (the stepping contract has none).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from crossdyn.engines.file_engine import FileEngine, FileOptions
from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.robots.model import Format, RobotModel
from crossdyn.robots.prepare import prepare

NEWTON_ANGULAR_DAMPING = 0.05
"""``SolverFeatherstone``'s default ``angular_damping`` (Newton 1.8)."""


@dataclass(frozen=True)
class NewtonFileOptions(FileOptions):
    newton_gravity: bool = False
    """Keep Newton's builder gravity (−9.81 along +z) instead of the model's."""
    validate_inertia: bool = False
    """Let ``finalize`` validate and correct the inertias (Newton's default)."""
    limits: bool = False
    """Keep Newton's joint-limit penalty (ke = 1e4, kd = 10 past the file's limits) while stepping."""
    angular_damping: float = 0.0
    """``SolverFeatherstone(angular_damping=…)``; Newton's default 0.05."""
    armature: bool = True
    """Keep the file's armature (False: 0)."""
    mimic: bool = False
    """Keep the joint-owned mimic relation Newton's URDF importer makes of ``<mimic>`` (Featherstone then moves the
    follower with its leader); crossdyn's reader: independent joints, as Pinocchio and PyBullet."""
    device: str = "auto"
    """``auto`` (a CUDA GPU when present, else the CPU), ``cpu`` or ``cuda``."""


def unenforced_limits(model: RobotModel, ke: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> list[str]:
    """Why Newton's penalty τ = −ke (q − hi) − kd q̇ (past a limit) cannot hold a joint at the file's limits, per joint
    of ``model`` with both limits: its importer left the stiffness ``ke`` ≤ 0, or no finite range (``lower``,
    ``upper`` as Newton holds them; model order).  Empty: every limited joint is enforced."""
    out = []
    for j, lo, hi, k, nlo, nhi in zip(model.joints, model.lower(), model.upper(), ke, lower, upper, strict=True):
        if not (np.isfinite(lo) and np.isfinite(hi)):
            continue
        if not k > 0:
            out.append(f"joint {j.name!r}: Newton's importer set joint_limit_ke = {k:g} (no penalty)")
        elif not (np.isfinite(nlo) and np.isfinite(nhi) and nlo < nhi):
            out.append(f"joint {j.name!r}: Newton holds no finite range ([{nlo:g}, {nhi:g}]; the file's "
                       f"[{lo:g}, {hi:g}])")
    return out


def _joint_name(label: str, names: tuple[str, ...]) -> str:
    """The file's joint name in Newton's label (``robot/joint`` from a URDF, ``worldbody/link0/…/joint`` from an
    MJCF): the longest model joint name the label ends with after a "/", else the label's last part."""
    hits = [n for n in names if label == n or label.endswith("/" + n)]
    return max(hits, key=len) if hits else label.rsplit("/", 1)[-1]


class NewtonFileEngine(FileEngine):
    name = "newton"
    loaders: ClassVar[dict[Format, tuple[str, dict]]] = {
        Format.URDF: ("add_urdf", {"floating": False}),
        Format.MJCF: ("add_mjcf", {"floating": None, "parse_visuals": False})}
    """Per format read natively, the ModelBuilder method and its own keywords.  URDF: the root fixed
    (``floating=False``).  MJCF: ``floating=None``, the file's own joint of its root body kept (Newton 1.8's
    ``add_mjcf`` with ``floating=False`` replaces a root body's joint by a FIXED one: a planar arm whose first link
    hangs from the world by its hinge lost that joint); a root body without a joint is fixed either way."""
    formats = frozenset(loaders)
    Options = NewtonFileOptions
    integrator = "semi-implicit-euler"
    dtype = "float32"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        import newton  # type: ignore[import-untyped,import-not-found,unused-ignore]
        import warp as wp  # type: ignore[import-untyped,import-not-found,unused-ignore]
        from newton.solvers import SolverFeatherstone  # type: ignore[import-untyped,import-not-found,unused-ignore]

        from crossdyn.engines.warp_common import quiet_warp, warp_device

        quiet_warp(wp)
        self.newton, self.wp, self.Solver = newton, wp, SolverFeatherstone
        self.device = warp_device(self.options.device, "newton")
        self.prepared = prepare(model, self.folder, "newton")
        self.builder = self._import()
        with wp.ScopedDevice(self.device):
            self.sim, self.finalize_warnings = self._finalize(1, stepping=True)
        m = self.sim
        self._dof_names = self._names()
        if m.joint_dof_count != len(self._dof_names) or m.joint_coord_count != m.joint_dof_count:
            raise EngineUnsupported(f"newton: {model.source}: joints other than revolute/prismatic/fixed "
                                    f"({m.joint_coord_count} coordinates, {m.joint_dof_count} dofs)")
        self.set_joint_order(self._dof_names)
        self.file_armature = np.array(self.builder.joint_armature, dtype=float)
        if self.options.limits and (why := unenforced_limits(model, self.to_model(self.file_limit_ke[None])[0],
                                                            *self.to_model(self._limit_range))):
            raise EngineUnsupported(f"newton: cannot enforce the limits of {model.source}: {'; '.join(why)}")
        with wp.ScopedDevice(self.device):
            self.solver = SolverFeatherstone(m, angular_damping=float(self.options.angular_damping))
            self._s0, self._s1, self._control = m.state(), m.state(), m.control()
        self._batch: dict[int, tuple] = {}

    # ---- building ---------------------------------------------------------------------------------------------
    def _import(self) -> Any:
        """The file through Newton's importer into a ModelBuilder (one copy), shapes without density."""
        builder = self.newton.ModelBuilder()
        path = str(self.prepared.path)
        try:
            loader, own = self.loaders[self.model.format]
            getattr(builder, loader)(path, collapse_fixed_joints=False,
                                     ignore_inertial_definitions=False, **own)
        except (ValueError, KeyError, RuntimeError, NotImplementedError, IndexError) as e:
            if "must satisfy A + B >= C" in str(e):  # it refuses what the file states: unsupported, not failed
                raise EngineUnsupported(f"newton: refuses {self.model.source}: {e}") from None
            raise EngineError(f"newton: could not load {self.model.source}: {e}") from None
        leaders = list(getattr(builder, "joint_mimic_joint", []))
        self.file_mimic = {_joint_name(str(builder.joint_label[k]), self.model.joint_names):
                           _joint_name(str(builder.joint_label[r]), self.model.joint_names)
                           for k, r in enumerate(leaders) if r >= 0}
        if not self.options.mimic and leaders:
            builder.joint_mimic_joint = [-1] * len(leaders)
            builder.joint_mimic_coeffs = [(0.0, 1.0)] * len(leaders)
        if not self.options.armature:
            builder.joint_armature = [0.0] * len(builder.joint_armature)
        self.file_limit_ke = np.array(builder.joint_limit_ke, dtype=float)  # as imported, before the knob
        self._limit_range = np.array([builder.joint_limit_lower, builder.joint_limit_upper], dtype=float)
        if not self.options.limits:
            builder.joint_limit_ke = [0.0] * len(builder.joint_limit_ke)
            builder.joint_limit_kd = [0.0] * len(builder.joint_limit_kd)
        return builder

    def _finalize(self, copies: int, stepping: bool, requires_grad: bool = False) -> tuple[Any, list[str]]:
        """A model of ``copies`` copies (one world each); for queries (``stepping`` False) without joint damping
        and stiffness, so that FD is the rigid bodies + armature; ``requires_grad``: arrays with gradients, for
        ``wp.Tape`` (:mod:`crossdyn.derivatives.warp`)."""
        builder = self.builder
        if copies > 1 or not stepping:
            builder = self.newton.ModelBuilder()
            builder.replicate(self.builder, copies)
        if not stepping:
            builder.joint_damping = [0.0] * len(builder.joint_damping)
            builder.joint_target_ke = [0.0] * len(builder.joint_target_ke)
            builder.joint_target_kd = [0.0] * len(builder.joint_target_kd)
            if hasattr(builder, "joint_stiffness"):
                builder.joint_stiffness = [0.0] * len(builder.joint_stiffness)
        if stepping and not self.options.damping:
            builder.joint_damping = [0.0] * len(builder.joint_damping)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = builder.finalize(device=self.device, skip_validation_inertia=not self.options.validate_inertia,
                                 requires_grad=requires_grad)
        if not self.options.newton_gravity:
            m.set_gravity([float(g) for g in self.model.gravity])
        return m, [str(w.message) for w in caught]

    def _names(self) -> list[str]:
        """The name of each degree of freedom, in Newton's order (the importer's labels less the robot's prefix)."""
        b, J = self.builder, self.newton.JointType
        names = []
        for label, jtype in zip(b.joint_label, b.joint_type):
            if int(jtype) == int(J.FIXED):
                continue
            if int(jtype) not in (int(J.REVOLUTE), int(J.PRISMATIC)):
                raise EngineUnsupported(f"newton: {self.model.source}: joint {label!r} of type {J(jtype).name}")
            names.append(_joint_name(str(label), self.model.joint_names))
        return names

    # ---- batched queries: one copy (world) per state -------------------------------------------------------------
    def _queries(self, N: int) -> tuple:
        if N not in self._batch:
            wp = self.wp
            with wp.ScopedDevice(self.device):
                m, _ = self._finalize(N, stepping=False)
                n = self.n
                self._batch = {N: (m, m.state(), m.state(), m.control(),
                                   self.Solver(m, angular_damping=float(self.options.angular_damping)),
                                   wp.zeros((N, n, n), dtype=wp.float32),
                                   *(wp.zeros(N * n, dtype=wp.float32) for _ in range(4)))}
        return self._batch[N]

    def _passive(self, Q: np.ndarray, QD: np.ndarray) -> tuple:
        b = self._queries(Q.shape[0])
        m, s0, H, g, c = b[0], b[1], b[5], b[6], b[7]
        s0.joint_q.assign(Q.astype(np.float32).ravel())
        s0.joint_qd.assign(QD.astype(np.float32).ravel())
        self.newton.eval_fk(m, s0.joint_q, s0.joint_qd, s0)
        self.newton.eval_inverse_dynamics_passive(m, s0, mass_matrix=H, gravity_force=g, coriolis_force=c)
        return b

    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray:
        with self.wp.ScopedDevice(self.device):
            M = self._passive(Q, np.zeros_like(Q))[5].numpy().astype(float)
        return 0.5 * (M + np.swapaxes(M, 1, 2))

    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
        with self.wp.ScopedDevice(self.device):
            b = self._passive(Q, QD)
            return (b[6].numpy().astype(float) + b[7].numpy().astype(float)).reshape(Q.shape)

    def _gravity(self, Q: np.ndarray) -> np.ndarray:
        with self.wp.ScopedDevice(self.device):
            return self._passive(Q, np.zeros_like(Q))[6].numpy().astype(float).reshape(Q.shape)

    def _inverse_dynamics(self, Q: np.ndarray, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:
        with self.wp.ScopedDevice(self.device):
            m, s0, _, _, _, H, g, c, qdd, f = self._passive(Q, QD)
            qdd.assign(QDD.astype(np.float32).ravel())
            self.newton.eval_inverse_dynamics_force(m, s0, mass_matrix=H, joint_qdd=qdd, coriolis_force=c,
                                                    gravity_force=g, joint_f=f)
            return f.numpy().astype(float).reshape(Q.shape)

    def _forward_dynamics(self, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray) -> np.ndarray:
        with self.wp.ScopedDevice(self.device):
            m, s0, s1, control, solver = self._queries(Q.shape[0])[:5]
            s0.joint_q.assign(Q.astype(np.float32).ravel())
            s0.joint_qd.assign(QD.astype(np.float32).ravel())
            self.newton.eval_fk(m, s0.joint_q, s0.joint_qd, s0)
            control.joint_f.assign(TAU.astype(np.float32).ravel())
            solver.step(s0, s1, control, None, self.dt)  # type: ignore[arg-type,unused-ignore]
            return solver.joint_qdd.numpy().astype(float).reshape(Q.shape)

    # ---- stepping: one copy ---------------------------------------------------------------------------------------
    def reset(self, q: np.ndarray, qd: np.ndarray) -> None:
        q_e = self.to_engine(np.reshape(np.asarray(q, dtype=float), (1, self.n)))[0]
        qd_e = self.to_engine(np.reshape(np.asarray(qd, dtype=float), (1, self.n)))[0]
        with self.wp.ScopedDevice(self.device):
            self._s0.joint_q.assign(q_e.astype(np.float32))
            self._s0.joint_qd.assign(qd_e.astype(np.float32))
            self.newton.eval_fk(self.sim, self._s0.joint_q, self._s0.joint_qd, self._s0)
            self._control.joint_f.zero_()

    def step(self, tau: np.ndarray) -> None:
        tau = np.asarray(tau, dtype=float)
        if not np.all(np.isfinite(tau)):
            raise EngineError(f"newton: torque {tau.tolist()} is not finite")
        with self.wp.ScopedDevice(self.device):
            self._control.joint_f.assign(self.to_engine(tau.reshape(1, self.n))[0].astype(np.float32))
            self.solver.step(self._s0, self._s1, self._control, None, self.dt)  # type: ignore[arg-type,unused-ignore]
        self._s0, self._s1 = self._s1, self._s0

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        q = self._s0.joint_q.numpy().astype(float)[None]
        qd = self._s0.joint_qd.numpy().astype(float)[None]
        return self.to_model(q)[0], self.to_model(qd)[0]

    # ---- description ------------------------------------------------------------------------------------------
    def config(self) -> dict:
        m, opt, wp = self.sim, self.options, self.wp
        by = dict(zip(self.model.joint_names, (int(i) for i in self._idx)))

        def per_joint(values: Any) -> dict:
            v = np.asarray(values, dtype=float)
            return {j: float(v[i]) for j, i in by.items()}

        loader, own = self.loaders[self.model.format]
        return {**self.base_config(),
                "library": f"newton {self.newton.__version__} (warp {wp.__version__})", "device": self.device,
                "loader": f"ModelBuilder.{loader}({self.prepared.path.name}, floating={own['floating']}, "
                          "collapse_fixed_joints=False, ignore_inertial_definitions=False) -> finalize",
                "copy_removed": list(self.prepared.removed), "solver": "SolverFeatherstone", "dtype": "float32",
                "dtype_note": "Newton's model, state and solver arrays are float32; no float64 path",
                "gravity_set": ("Newton's builder default (-9.81 along +z; the file's gravity ignored)"
                                if opt.newton_gravity else "Model.set_gravity(the model's gravity) (Newton's default: "
                                "-9.81 along the builder's up axis +z, whatever the file says)"),
                "gravity_used": [float(x) for x in m.gravity.numpy()[0]],
                "inertia_validation": ("Newton's finalize validation and correction" if opt.validate_inertia else
                                       "skipped (finalize(skip_validation_inertia=True)): the file's inertias as "
                                       "they are"),
                "finalize_warnings": list(self.finalize_warnings),
                "joint_limits": ("Newton's penalty past the file's limits (ke, kd as imported)" if opt.limits else
                                 "off: joint_limit_ke = joint_limit_kd = 0 (Newton's default penalty ke = 1e4, "
                                 "kd = 10 past the file's limits)"),
                "limit_ke_imported": per_joint(self.file_limit_ke),
                "angular_damping": float(opt.angular_damping), "angular_damping_default": NEWTON_ANGULAR_DAMPING,
                "armature": per_joint(m.joint_armature.numpy()),
                "armature_read_from_file": per_joint(self.file_armature),
                "damping_read": per_joint(m.joint_damping.numpy()) if opt.damping else "off (damping=false)",
                "friction_read": per_joint(m.joint_friction.numpy()),
                "friction": "not applied by SolverFeatherstone (queries and stepping exclude it, as the contract asks)",
                "geom_inertia": "Newton's MJCF importer as MuJoCo: a body's <inertial> wins over its geoms; a body "
                                "without one gets its geoms' (measured equal to crossdyn's reference)",
                "mimic_in_file": self.file_mimic,
                "mimic": ("Newton's joint mimic on (the follower moves with its leader)" if opt.mimic else
                          "off: joint_mimic_joint = -1 (the joints independent, as crossdyn reads them)"),
                "fixed_joints": "kept as fixed joints (collapse_fixed_joints=False)", "up_axis": "+z (Newton's default)",
                "contacts": "none: solver.step(..., contacts=None)",
                "masses": [float(x) for x in m.body_mass.numpy()],
                "queries": "N copies (ModelBuilder.replicate, one world per state): eval_fk, "
                           "eval_inverse_dynamics_passive (M with armature, C qd, g), eval_inverse_dynamics_force "
                           "(ID); FD = SolverFeatherstone.joint_qdd after one step with damping and stiffness 0",
                "stepping": "SolverFeatherstone.step (semi-implicit Euler), tau in Control.joint_f, the file's "
                            + ("damping" if opt.damping else "damping off (damping=false)")}
