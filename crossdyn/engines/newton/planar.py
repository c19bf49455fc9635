"""NVIDIA Newton (Warp kernels on a CUDA GPU or the CPU) as an engine: its Featherstone solver, from the
generated MJCF.

Registry name: ``newton`` (``SolverFeatherstone``: CRBA + Cholesky, semi-implicit Euler in generalized
coordinates, float32).  No other variant: Newton's ``SolverMuJoCo`` is MuJoCo Warp (the ``mujoco-warp`` engine),
and ``SolverSemiImplicit``/``SolverXPBD`` simulate maximal coordinates with penalty or positional joints, not the
rigid chain crossdyn's reference solves.

The model is ``ModelBuilder.add_mjcf`` of the generated MJCF, ``finalize`` on the Warp device.  Defaults found
that change the dynamics, each switched off or matched, listed in :meth:`NewtonEngine.config` and switchable back
by ``newton@key=value``:

* **gravity** (``newton_gravity``): Newton's builder gravity is −9.81 along its up axis (+z) and the MJCF's
  ``<option gravity>`` is not applied: the planar arms (joint axes +z) would feel no gravity at all.  The adapter
  sets the spec's vector with ``Model.set_gravity``; ``newton_gravity=true`` keeps Newton's.
* **inertia validation** (``validate_inertia``): ``finalize`` by default corrects inertia tensors it finds
  invalid (``balance_inertia``: triangle inequality, an eigenvalue floor of max(1e-6 × the largest, 1e-10)
  kg m², plus a 1e-6 kg m² shift).  The adapter passes ``skip_validation_inertia=True`` (the file's values are
  used as they are); ``validate_inertia=true`` restores Newton's correction.
* **angular damping** (``angular_damping``): ``SolverFeatherstone(angular_damping=0.05)`` by default; the
  adapter passes 0.  Measured with Newton 1.8: the value is stored but ``SolverFeatherstone.step`` does not use it
  on articulated joints (trajectories bit-identical for 0 and 0.05; it damps free bodies in Newton's other
  solvers).  It stays a knob and in ``config()`` so that a Newton release that applies it is caught by the test.
* **joint limits**: crossdyn's MJCF declares ``limited="false"`` unless native limits are asked for (not offered
  here); Newton then gives every joint limits ±1e10 rad with its penalty ke = 1e4, kd = 10 (never reached).
* **contacts**: the solver is stepped with ``contacts=None`` (Newton's collision pipeline is never run).

What Featherstone cannot represent is reported unsupported (:meth:`NewtonEngine.unsupported`): Coulomb joint
friction (``joint_friction`` is not supported by ``SolverFeatherstone``; crossdyn's applied law can stand in),
effort limits (``joint_effort_limit`` is not applied; the runner saturates τ itself).  Joint damping
(``joint_damping``) and armature (``joint_armature``) are applied by the solver.

Queries use Newton's own inverse-dynamics functions on a separate state (``eval_fk``,
``eval_inverse_dynamics_passive`` for M (armature included), C q̇, g, and ``eval_inverse_dynamics_force``); they do
not include joint damping, which the adapter adds (b q̇ with Newton's ``joint_damping``) as the interface asks.
Forward dynamics is the solver's own q̈ (``SolverFeatherstone.joint_qdd`` after one step from the queried state).
Energy: T = ½ q̇ᵀ M q̇ and U = −Σ m g·p_c from Newton's M and body poses.
"""
from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import newton  # type: ignore[import-untyped,import-not-found,unused-ignore]
import numpy as np
import warp as wp  # type: ignore[import-untyped,import-not-found,unused-ignore]
from newton.solvers import SolverFeatherstone  # type: ignore[import-untyped,import-not-found,unused-ignore]

from crossdyn.engines.base import Capabilities, Engine, EngineError
from crossdyn.engines.warp_common import quiet_warp, warp_device
from crossdyn.models.inertia import engine_inertias
from crossdyn.models.mjcf import to_mjcf
from crossdyn.models.spec import ArmSpec

quiet_warp(wp)

NEWTON_ANGULAR_DAMPING = 0.05
"""``SolverFeatherstone``'s default ``angular_damping`` (Newton 1.8)."""


@dataclass(frozen=True)
class NewtonOptions:
    """The knobs of ``newton`` (``newton@key=value``)."""

    angular_damping: float = 0.0
    """``SolverFeatherstone(angular_damping=…)``; Newton's default 0.05 (unused on joints in Newton 1.8)."""
    newton_gravity: bool = False
    """Keep Newton's builder gravity (−9.81 along +z, the MJCF's gravity ignored) instead of the spec's."""
    validate_inertia: bool = False
    """Let ``finalize`` validate and correct the inertia tensors (Newton's default) instead of keeping the file's."""
    device: str = "auto"
    """``auto`` (Warp's preferred device: a CUDA GPU when present, else the CPU), ``cpu`` or ``cuda``."""


def build_model(spec: ArmSpec, dt: float, options: NewtonOptions, device: str):
    """The generated MJCF through ``ModelBuilder.add_mjcf`` and ``finalize`` on ``device``, with the spec's gravity
    unless ``options.newton_gravity``.  Returns (model, the NewtonWarning messages ``finalize`` gave)."""
    builder = newton.ModelBuilder()
    builder.add_mjcf(to_mjcf(spec, timestep=dt))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = builder.finalize(device=device, skip_validation_inertia=not options.validate_inertia)
    if not options.newton_gravity:
        model.set_gravity([float(g) for g in spec.gravity])
    return model, [str(w.message) for w in caught]


class NewtonEngine(Engine):
    name = "newton"
    integrator = "semi-implicit-euler"
    Options = NewtonOptions
    capabilities = Capabilities(armature=True, tip_frame=True)
    """Armature from the file; the tip is Newton's own: its ``tip`` site on the last body's pose
    (:meth:`NewtonEngine.tip_kinematics`)."""
    dtype = "float32"

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, options: NewtonOptions | None = None, **knobs):
        super().__init__(spec, dt)
        self.options = opt = self._options(options, knobs)
        self.device = warp_device(opt.device, "newton")
        with wp.ScopedDevice(self.device):
            self.model, self.finalize_warnings = build_model(spec, self.dt, opt, self.device)
            m = self.model
            if m.joint_dof_count != self.n or m.joint_coord_count != self.n:
                raise EngineError(f"newton: model has {m.joint_coord_count} coordinates, {m.joint_dof_count} dofs; "
                                  f"expected {self.n} each")
            self.solver = SolverFeatherstone(m, angular_damping=float(opt.angular_damping))
            self._s0, self._s1, self.control = m.state(), m.state(), m.control()
            # queries: their own states, control and solver, so that a query never disturbs the simulated state
            self._q0, self._q1, self._qc = m.state(), m.state(), m.control()
            self._qsolver = SolverFeatherstone(m, angular_damping=float(opt.angular_damping))
            self._H = wp.zeros((1, self.n, self.n), dtype=wp.float32)
            self._g, self._c, self._f, self._qdd = (wp.zeros(self.n, dtype=wp.float32) for _ in range(4))
        self._damping = m.joint_damping.numpy().astype(float)
        self.reset(np.zeros(self.n), np.zeros(self.n))

    def unsupported(self) -> list[str]:
        out = super().unsupported()
        if any(lk.friction > 0 for lk in self.spec.links):
            out.append("Coulomb joint friction: Newton's SolverFeatherstone does not apply Model.joint_friction")
        return out

    # ------------------------------------------------------------------ simulation
    @staticmethod
    def _f32(x, n: int) -> np.ndarray:
        return np.asarray(x, dtype=np.float32).reshape(n)

    def _set(self, state, q, qd) -> None:
        state.joint_q.assign(self._f32(q, self.n))
        state.joint_qd.assign(self._f32(qd, self.n))
        newton.eval_fk(self.model, state.joint_q, state.joint_qd, state)

    def reset(self, q, qd) -> None:
        with wp.ScopedDevice(self.device):
            self._set(self._s0, q, qd)
            self.control.joint_f.zero_()

    def step(self, tau) -> None:
        tau = np.asarray(tau, dtype=float)
        if not np.all(np.isfinite(tau)):
            raise EngineError(f"newton: control {tau.tolist()} is not finite")
        with wp.ScopedDevice(self.device):
            self.control.joint_f.assign(self._f32(tau, self.n))
            self.solver.step(self._s0, self._s1, self.control, None, self.dt)  # type: ignore[arg-type]
        self._s0, self._s1 = self._s1, self._s0

    def state(self):
        return self._s0.joint_q.numpy().astype(float), self._s0.joint_qd.numpy().astype(float)

    # ------------------------------------------------------------------ queries
    def _passive(self, q, qd):
        """Newton's M (armature included), C q̇ and g at (q, q̇), as float64 copies."""
        self._set(self._q0, q, qd)
        newton.eval_inverse_dynamics_passive(self.model, self._q0, mass_matrix=self._H, gravity_force=self._g,
                                             coriolis_force=self._c)

    def inverse_dynamics(self, q, qd, qdd):
        """τ = M q̈ + C q̇ + g (Newton's ``eval_inverse_dynamics_force``) + b q̇ (Newton's ``joint_damping``)."""
        with wp.ScopedDevice(self.device):
            self._passive(q, qd)
            self._qdd.assign(self._f32(qdd, self.n))
            newton.eval_inverse_dynamics_force(self.model, self._q0, mass_matrix=self._H, joint_qdd=self._qdd,
                                               coriolis_force=self._c, gravity_force=self._g, joint_f=self._f)
            tau = self._f.numpy().astype(float)
        return tau + self._damping * np.asarray(qd, dtype=float)

    def mass_matrix(self, q):
        with wp.ScopedDevice(self.device):
            self._passive(q, np.zeros(self.n))
            M = self._H.numpy()[0].astype(float)
        return 0.5 * (M + M.T)

    def forward_dynamics(self, q, qd, tau):
        """The solver's own q̈: ``SolverFeatherstone.joint_qdd`` after one step from (q, q̇) under τ."""
        with wp.ScopedDevice(self.device):
            self._set(self._q0, q, qd)
            self._qc.joint_f.assign(self._f32(tau, self.n))
            self._qsolver.step(self._q0, self._q1, self._qc, None, self.dt)  # type: ignore[arg-type]
            return self._qsolver.joint_qdd.numpy().astype(float)

    def energy(self, q, qd):
        """T = ½ q̇ᵀ M q̇ (Newton's M), U = −Σ m g·p_c (Newton's body poses and centres of mass)."""
        qd = np.asarray(qd, dtype=float)
        M = self.mass_matrix(q)
        body_q = self._q0.body_q.numpy().astype(float)  # (bodies, 7): position, quaternion (x, y, z, w)
        com = self.model.body_com.numpy().astype(float)
        mass = self.model.body_mass.numpy().astype(float)
        g = self.model.gravity.numpy()[0].astype(float)
        centres = np.array([p[:3] + _rotate(p[3:], c) for p, c in zip(body_q, com, strict=True)])
        return 0.5 * float(qd @ M @ qd), float(-np.sum(mass * (centres @ g)))

    tip_source = ("Newton site 'tip' (add_mjcf keeps MJCF sites as shapes: shape_body, shape_transform) on its body's "
                  "pose body_q after eval_fk (float32); velocity from body_qd (COM twist, world frame) moved to the "
                  "site; Jacobian from eval_jacobian moved to the site")

    def _tip_shape(self) -> tuple[int, int, np.ndarray]:
        """(shape index, body index, offset in the body frame) of the ``tip`` site Newton's MJCF importer kept."""
        labels = list(self.model.shape_label)
        hits = [i for i, lab in enumerate(labels) if str(lab).rsplit("/", 1)[-1] == "tip"]
        if not hits:
            raise EngineError("newton: the model has no 'tip' site (the arm has no [contact])")
        i = hits[0]
        body = int(self.model.shape_body.numpy()[i])
        return i, body, self.model.shape_transform.numpy()[i, :3].astype(float)

    def tip_kinematics(self, q=None, qd=None):
        """The ``tip`` site's world position, linear velocity and translational Jacobian (x–y rows), by Newton at
        (q, q̇) or the simulated state: x = p_b + R_b s (``body_q`` after ``eval_fk``, s the site's offset in
        ``shape_transform``); with r = x − c (c the body's centre of mass in the world), ẋ = v_c + ω × r from
        ``body_qd`` (linear velocity of the COM, angular velocity; world frame) and J = J_v − [r]× J_ω from
        ``eval_jacobian`` (which maps q̇ to ``body_qd``)."""
        tip = self.__dict__.get("_tip")
        if tip is None:
            tip = self._tip = self._tip_shape()
            with wp.ScopedDevice(self.device):
                self._tip_J = wp.zeros((1, 6 * self.model.body_count, self.n), dtype=wp.float32)
        _, b, offset = tip
        if q is None:
            q, qd = self.state()
        with wp.ScopedDevice(self.device):
            self._set(self._q0, q, np.zeros(self.n) if qd is None else qd)
            newton.eval_jacobian(self.model, self._q0, self._tip_J)
            pose = self._q0.body_q.numpy()[b].astype(float)
            twist = self._q0.body_qd.numpy()[b].astype(float)
            Jb = self._tip_J.numpy()[0, 6 * b:6 * b + 6].astype(float)
            com = self.model.body_com.numpy()[b].astype(float)
        x = pose[:3] + _rotate(pose[3:], offset)
        r = x - (pose[:3] + _rotate(pose[3:], com))
        v = twist[:3] + np.cross(twist[3:], r)
        J = Jb[:3] - np.cross(r, Jb[3:].T).T  # ω × r = −r × ω, column by column
        return x[:2], v[:2], J[:2]

    # ------------------------------------------------------------------ description
    def config(self) -> dict:
        m, opt = self.model, self.options
        _, subs = engine_inertias(self.spec)
        return {
            "engine": "newton", "version": newton.__version__, "warp_version": wp.__version__, "device": self.device,
            "options": asdict(opt), "solver": "SolverFeatherstone", "integrator": self.integrator, "dt": self.dt,
            "model_source": "generated MJCF -> newton.ModelBuilder.add_mjcf -> finalize", "dtype": "float32",
            "dtype_note": "Newton's model, state and solver arrays are float32 (Warp float32); no float64 path",
            "kernel_cache": str(wp.config.kernel_cache_dir),
            "gravity": [float(x) for x in m.gravity.numpy()[0]],
            "gravity_source": ("Newton's builder default (-9.81 along +z; the MJCF's gravity ignored)"
                               if opt.newton_gravity else "the spec's, set by Model.set_gravity (Newton's builder "
                               "default: -9.81 along +z, the MJCF's <option gravity> not applied)"),
            "angular_damping": float(opt.angular_damping),
            "angular_damping_default": NEWTON_ANGULAR_DAMPING,
            "angular_damping_note": "stored by SolverFeatherstone but not applied to articulated joints in Newton 1.8 "
                                    "(measured: bit-identical trajectories for 0 and 0.05)",
            "inertia_validation": ("Newton's finalize validation and correction (balance_inertia, eigenvalue floor, "
                                   "+1e-6 shift)" if opt.validate_inertia else
                                   "skipped (finalize(skip_validation_inertia=True)): the file's inertias as they are"),
            "finalize_warnings": list(self.finalize_warnings),
            "update_mass_matrix_interval": int(self.solver.update_mass_matrix_interval),
            "torque_input": "Control.joint_f (generalized joint force)", "torque_sampling": "zero-order hold",
            "joint_damping": [float(x) for x in self._damping],
            "damping_treatment": "explicit, in SolverFeatherstone's joint torque (eval_rigid_tau)",
            "armature": [float(x) for x in m.joint_armature.numpy()],
            "joint_friction": "not supported by SolverFeatherstone (an arm with f_c > 0 is reported unsupported)",
            "effort_limit": "not applied by SolverFeatherstone (crossdyn's runner saturates τ)",
            "joint_limits": {"lower": [float(x) for x in m.joint_limit_lower.numpy()],
                             "upper": [float(x) for x in m.joint_limit_upper.numpy()],
                             "ke": [float(x) for x in m.joint_limit_ke.numpy()],
                             "kd": [float(x) for x in m.joint_limit_kd.numpy()]},
            "contacts": "none: solver.step(..., contacts=None), Newton's collision pipeline not run",
            "masses": [float(x) for x in m.body_mass.numpy()],
            "inertia_substitutions": [s.as_dict() for s in subs],
            "inverse_dynamics": "eval_inverse_dynamics_passive + eval_inverse_dynamics_force, + b*qd added by "
                                "the adapter (Newton's inverse dynamics has no joint damping)",
            "forward_dynamics": "SolverFeatherstone.joint_qdd after one step from the queried state",
            "energy": "computed by the adapter from Newton's M, body poses and centres of mass",
        }


def _rotate(quat_xyzw: np.ndarray, v: np.ndarray) -> np.ndarray:
    """v rotated by the unit quaternion (x, y, z, w) (Warp's order)."""
    u, w = np.asarray(quat_xyzw[:3]), float(quat_xyzw[3])
    return v + 2.0 * np.cross(u, np.cross(u, v) + w * v)
