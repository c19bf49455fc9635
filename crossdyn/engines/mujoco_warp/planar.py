"""MuJoCo Warp (``mujoco-warp``, Warp kernels on a CUDA GPU or the CPU) as an engine, built from the generated MJCF.

Registry names: ``mujoco-warp`` (= ``mujoco-warp-euler``, semi-implicit Euler, ``eulerdamp`` disabled as for C
MuJoCo), ``mujoco-warp-rk4``, ``mujoco-warp-implicit``, ``mujoco-warp-implicitfast``.  The model is the generated
MJCF compiled by C MuJoCo and copied to the Warp device (``mujoco_warp.put_model``); MuJoCo Warp reads MuJoCo's
own ``mjOption``, so every option of the file means what it means to C MuJoCo (contacts disabled, energy on,
``eulerdamp`` disabled, armature, damping and ``frictionloss`` from the spec, gear-1 motors without limits).

What differs from C MuJoCo, each in :meth:`MuJoCoWarpEngine.config`:

* **float32 only**: MuJoCo Warp's arrays are Warp ``float`` (float32) whatever the host's type; there is no
  float64 build.  :attr:`dtype` is ``"float32"`` and widens every tolerance as MJX's does
  (:mod:`crossdyn.engines.precision`).
* **Kernels compile at first use** (≈ 30 s for ``forward`` on a 2-core CPU, more for ``inverse`` and the
  integrators) into Warp's kernel cache (``~/.cache/warp/<version>``; ``WARP_CACHE_PATH`` moves it); a later
  process loads them in milliseconds.  The adapter sets ``warp.config.quiet`` so that the compiler's per-module
  lines do not reach crossdyn's output.
* **No auto-reset** (as MJX): a divergence turns non-finite and stays visible.
* **Device**: ``device=auto`` is Warp's preferred device (the first CUDA GPU, else the CPU); ``device=cpu``
  forces the CPU.  The arithmetic is float32 on both; the device is in ``config()``.

Queries (inverse and forward dynamics, M, energy) use a second ``Data`` (one world), so a query never disturbs the
simulated state: ``mujoco_warp.inverse`` with ``qacc`` set (``qfrc_inverse`` includes damping·q̇, as C MuJoCo's),
``mujoco_warp.forward`` → ``qacc``, M from ``mujoco_warp.mul_m`` on the unit vectors after
``fwd_position`` (MuJoCo Warp keeps M sparse), energy from ``Data.energy`` (the MJCF's energy flag, which MuJoCo
Warp supports, unlike MJX).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import mujoco  # type: ignore[import-untyped,import-not-found,unused-ignore]
import mujoco_warp as mjw  # type: ignore[import-untyped,import-not-found,unused-ignore]
import numpy as np
import warp as wp  # type: ignore[import-untyped,import-not-found,unused-ignore]

from crossdyn.engines.base import Capabilities, Engine, EngineError
from crossdyn.engines.warp_common import quiet_warp, warp_device
from crossdyn.models.inertia import engine_inertias
from crossdyn.models.mjcf import to_mjcf
from crossdyn.models.spec import ArmSpec

quiet_warp(wp)

INTEGRATORS = {"euler": "Euler", "rk4": "RK4", "implicit": "implicit", "implicitfast": "implicitfast"}
SCHEMES = {"Euler": "semi-implicit-euler", "RK4": "rk4", "implicit": "implicit", "implicitfast": "implicitfast"}


@dataclass(frozen=True)
class MuJoCoWarpOptions:
    """The knobs of ``mujoco-warp`` (``mujoco-warp@key=value``)."""

    integrator: str = "Euler"
    """MuJoCo's integrator (set by the registry name): ``Euler``, ``RK4``, ``implicit``, ``implicitfast``."""
    eulerdamp: bool = False
    """MuJoCo's implicit joint damping under Euler (MuJoCo's default: on; crossdyn: off, as for C MuJoCo)."""
    device: str = "auto"
    """``auto`` (Warp's preferred device: a CUDA GPU when present, else the CPU), ``cpu`` or ``cuda``."""


def build_mj_model(spec: ArmSpec, dt: float, integrator: str, eulerdamp: bool) -> mujoco.MjModel:
    """The generated MJCF compiled by C MuJoCo (MuJoCo Warp supports every option crossdyn's MJCF sets)."""
    xml = to_mjcf(spec, timestep=dt, integrator=integrator, eulerdamp=eulerdamp)
    try:
        return mujoco.MjModel.from_xml_string(xml)
    except ValueError as e:
        raise EngineError(f"mujoco-warp: could not build {spec.name!r}: {e}") from None


class MuJoCoWarpEngine(Engine):
    name = "mujoco-warp"
    Options = MuJoCoWarpOptions
    capabilities = Capabilities(native_friction=True, armature=True, effort=True, tip_frame=True, step_applied=True)
    """MuJoCo Warp's contacts stay disabled; armature, damping, ``frictionloss`` and ``forcerange`` as C MuJoCo's; the
    tip is MuJoCo Warp's own ``tip`` site (:meth:`MuJoCoWarpEngine.tip_kinematics`)."""
    dtype = "float32"

    def __init__(self, spec: ArmSpec, dt: float = 1e-3, options: MuJoCoWarpOptions | None = None, **knobs):
        super().__init__(spec, dt)
        self.options = opt = self._options(options, knobs)
        key = str(opt.integrator).lower()
        if key not in INTEGRATORS:
            raise EngineError(f"mujoco-warp integrator: must be one of {', '.join(INTEGRATORS.values())}, "
                              f"got {opt.integrator!r}")
        self.mujoco_integrator = INTEGRATORS[key]
        self.integrator = SCHEMES[self.mujoco_integrator]
        self.device = warp_device(opt.device, "mujoco-warp")
        self.mj_model = m = build_mj_model(spec, self.dt, self.mujoco_integrator, bool(opt.eulerdamp))
        if m.nq != self.n or m.nv != self.n or m.nu != self.n:
            raise EngineError(f"mujoco-warp: model has nq={m.nq}, nv={m.nv}, nu={m.nu}; expected {self.n} each")
        with wp.ScopedDevice(self.device):
            try:
                self.model = mjw.put_model(m)
            except NotImplementedError as e:
                raise EngineError(f"mujoco-warp: {spec.name!r} uses what MuJoCo Warp does not support: {e}") from None
            self.data = mjw.make_data(m, nworld=1)
            self._qdata = mjw.make_data(m, nworld=1)
            self._vec = wp.zeros((1, self.n), dtype=float)
            self._res = wp.zeros((1, self.n), dtype=float)
        self.reset(np.zeros(self.n), np.zeros(self.n))

    # ------------------------------------------------------------------ simulation
    @staticmethod
    def _row(x, n: int) -> np.ndarray:
        return np.asarray(x, dtype=np.float32).reshape(1, n)

    def reset(self, q, qd) -> None:
        d = self.data
        d.qpos.assign(self._row(q, self.n))
        d.qvel.assign(self._row(qd, self.n))
        d.qacc_warmstart.zero_()
        d.ctrl.zero_()
        d.qfrc_applied.zero_()
        d.time.zero_()

    def step(self, tau) -> None:
        tau = np.asarray(tau, dtype=float)
        if not np.all(np.isfinite(tau)):
            raise EngineError(f"mujoco-warp: control {tau.tolist()} is not finite")
        with wp.ScopedDevice(self.device):
            self.data.ctrl.assign(self._row(tau, self.n))
            mjw.step(self.model, self.data)

    def step_applied(self, tau, extra) -> None:
        """One step with the actuators given τ (clamped by their ``forcerange``, if any) and ``extra`` applied as a
        generalized force around them (``qfrc_applied``), as :meth:`MuJoCoEngine.step_applied`; the next plain
        step applies none."""
        tau, extra = np.asarray(tau, dtype=float), np.asarray(extra, dtype=float)
        if not (np.all(np.isfinite(tau)) and np.all(np.isfinite(extra))):
            raise EngineError(f"mujoco-warp: control {tau.tolist()} or applied force {extra.tolist()} is not finite")
        self.data.qfrc_applied.assign(self._row(extra, self.n))
        self.step(tau)
        self.data.qfrc_applied.zero_()

    def state(self):
        return (self.data.qpos.numpy()[0].astype(float), self.data.qvel.numpy()[0].astype(float))

    # ------------------------------------------------------------------ queries
    def _set_query(self, q, qd=None, tau=None, qacc=None):
        d, z = self._qdata, np.zeros(self.n)
        d.qpos.assign(self._row(q, self.n))
        d.qvel.assign(self._row(z if qd is None else qd, self.n))
        d.ctrl.assign(self._row(z if tau is None else tau, self.n))
        d.qacc.assign(self._row(z if qacc is None else qacc, self.n))
        d.qfrc_applied.zero_()
        return d

    def inverse_dynamics(self, q, qd, qdd):
        with wp.ScopedDevice(self.device):
            d = self._set_query(q, qd, qacc=qdd)
            mjw.inverse(self.model, d)
            return d.qfrc_inverse.numpy()[0].astype(float)

    def mass_matrix(self, q):
        M = np.empty((self.n, self.n))
        with wp.ScopedDevice(self.device):
            d = self._set_query(q)
            mjw.fwd_position(self.model, d)
            for j in range(self.n):
                e = np.zeros((1, self.n), np.float32)
                e[0, j] = 1.0
                self._vec.assign(e)
                mjw.mul_m(self.model, d, self._res, self._vec)
                M[:, j] = self._res.numpy()[0]
        return 0.5 * (M + M.T)

    def forward_dynamics(self, q, qd, tau):
        with wp.ScopedDevice(self.device):
            d = self._set_query(q, qd, tau)
            mjw.forward(self.model, d)
            return d.qacc.numpy()[0].astype(float)

    def energy(self, q, qd):
        """MuJoCo Warp's own ``Data.energy`` after ``forward`` (the MJCF's energy flag): T, U = −Σ m g·p_c."""
        with wp.ScopedDevice(self.device):
            d = self._set_query(q, qd)
            mjw.forward(self.model, d)
            U, T = (float(x) for x in d.energy.numpy()[0])
        return T, U

    tip_source = ("MuJoCo Warp site 'tip' on the query Data at the state (float32): kinematics, com_pos, com_vel; "
                  "site_xpos, the site body's cvel moved to the site, mujoco_warp.jac at the site")

    def tip_kinematics(self, q=None, qd=None):
        """The ``tip`` site's world position, linear velocity and translational Jacobian (x–y rows), by MuJoCo Warp
        at (q, q̇) or the simulated state: ``site_xpos`` after ``kinematics``; ẋ = v + ω × (x − c) from the site
        body's ``cvel`` (rot:lin about c, the subtree centre of mass of its root) after ``com_pos``/``com_vel``;
        J from ``mujoco_warp.jac`` at the site."""
        m = self.mj_model
        sid = self.__dict__.get("_tip_site")
        if sid is None:
            sid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, "tip")
            if sid < 0:
                raise EngineError("mujoco-warp: the model has no 'tip' site (the arm has no [contact])")
            self._tip_site, body = sid, int(m.site_bodyid[sid])
            with wp.ScopedDevice(self.device):
                self._tip_body = wp.array([body], dtype=int)
                self._tip_point = wp.zeros(1, dtype=wp.vec3)
                self._tip_jacp = wp.zeros((1, 3, self.n), dtype=float)
        if q is None:
            q, qd = self.state()
        body = int(m.site_bodyid[sid])
        with wp.ScopedDevice(self.device):
            d = self._set_query(q, qd)
            mjw.kinematics(self.model, d)
            mjw.com_pos(self.model, d)
            mjw.com_vel(self.model, d)
            x = d.site_xpos.numpy()[0, sid].astype(float)
            self._tip_point.assign(x.reshape(1, 3).astype(np.float32))
            mjw.jac(self.model, d, self._tip_jacp, None, self._tip_point, self._tip_body)
            J = self._tip_jacp.numpy()[0, :2].astype(float)
            cvel = d.cvel.numpy()[0, body].astype(float)  # [angular, linear] about the root's subtree com
            com = d.subtree_com.numpy()[0, int(m.body_rootid[body])].astype(float)
        v = cvel[3:] + np.cross(cvel[:3], x - com)
        return x[:2], v[:2], J

    # ------------------------------------------------------------------ description
    def _damping_treatment(self) -> str:
        if self.mujoco_integrator in ("implicit", "implicitfast"):
            return "implicit (the integrator)"
        if self.mujoco_integrator == "Euler" and self.options.eulerdamp:
            return "implicit (eulerdamp enabled)"
        return "explicit"

    def config(self) -> dict:
        m = self.mj_model
        _, subs = engine_inertias(self.spec)
        return {
            "engine": "mujoco-warp", "version": mjw.__version__, "warp_version": wp.__version__,
            "mujoco_version": mujoco.__version__, "device": self.device, "options": asdict(self.options),
            "integrator": self.integrator, "mujoco_integrator": self.mujoco_integrator, "dt": float(m.opt.timestep),
            "model_source": "generated MJCF (C MuJoCo compiler) -> mujoco_warp.put_model",
            "dtype": "float32", "dtype_note": "MuJoCo Warp computes in float32 only (Warp float); no float64 build",
            "kernel_cache": str(wp.config.kernel_cache_dir),
            "eulerdamp": bool(self.options.eulerdamp),
            "enableflags": [k for k, v in mujoco.mjtEnableBit.__members__.items()
                            if not k.endswith("NENABLE") and int(m.opt.enableflags) & int(v)],
            "gravity": [float(g) for g in m.opt.gravity],
            "torque_input": "Data.ctrl -> motor actuators (gear 1, no ctrl limits)",
            "torque_sampling": "zero-order hold at step start",
            "joint_damping": [float(x) for x in m.dof_damping],
            "damping_treatment": self._damping_treatment(),
            "joint_frictionloss": [float(x) for x in m.dof_frictionloss],
            "coulomb_friction_model": "frictionloss: soft dry-friction constraint, not f_c*sign(qd)",
            "armature": [float(x) for x in m.dof_armature],
            "contacts": "disabled (flag contact=disable, contype=conaffinity=0)",
            "autoreset": "none: MuJoCo Warp has no auto-reset, a divergence stays visible",
            "masses": [float(x) for x in m.body_mass[1:]],
            "inertia_substitutions": [s.as_dict() for s in subs],
            "energy": "MuJoCo Warp's Data.energy after forward (energy flag enabled)",
            "inverse_dynamics": "mujoco_warp.inverse (qacc set first); qfrc_inverse includes damping*qd",
            "mass_matrix": "mujoco_warp.mul_m on unit vectors after fwd_position (M is sparse in MuJoCo Warp)",
        }
