"""MuJoCo Warp reading a robot file: loaded exactly as the ``mujoco`` file engine loads it (C MuJoCo's compiler;
a URDF through MuJoCo's importer with the same ``<mujoco><compiler/></mujoco>`` block, knobs ``fusestatic``,
``balanceinertia``, ``armature``), then copied to the Warp device (``mujoco_warp.put_model``).

Everything the ``mujoco`` file engine neutralises holds here, because MuJoCo Warp reads C MuJoCo's ``mjOption``:
gravity = the model's, contact and the constraint solver off, joint damping and springs off in the queries
(``mjDSBL_DAMPER``, ``mjDSBL_SPRING``), ``eulerdamp`` disabled for stepping.  What differs, in :meth:`config`:

* **float32**: MuJoCo Warp computes in Warp ``float`` (float32) only; :attr:`dtype` is ``"float32"`` and the audit
  and ``compare ROBOT`` add a float32 round-off term to their tolerances (:mod:`crossdyn.engines.precision`).
* **batched**: a query over N states is one ``Data`` with ``nworld = N`` (one world per state, cached per N); M from
  ``mul_m`` on the unit vectors after ``fwd_position`` (MuJoCo Warp keeps M sparse); bias = ``qfrc_bias`` after
  ``fwd_position`` + ``fwd_velocity``; ID = ``mujoco_warp.inverse`` (``qfrc_inverse``); FD = ``forward``'s ``qacc``.
* **device**: ``device=auto`` (a CUDA GPU when present, else the CPU), ``cpu`` or ``cuda``.
* Stepping: one world, ``mujoco_warp.step`` on the stepping model (integrator the name's, as the ``mujoco`` file
  engine), τ in ``qfrc_applied``.

What MuJoCo Warp cannot represent (``put_model`` raises ``NotImplementedError``) makes the engine unsupported with
MuJoCo Warp's reason.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from crossdyn.engines.mujoco.file import MuJoCoFileEngine, MuJoCoFileOptions
from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.robots.model import RobotModel


@dataclass(frozen=True)
class MuJoCoWarpFileOptions(MuJoCoFileOptions):
    device: str = "auto"
    """``auto`` (Warp's preferred device: a CUDA GPU when present, else the CPU), ``cpu`` or ``cuda``."""


class MuJoCoWarpFileEngine(MuJoCoFileEngine):
    name = "mujoco-warp"
    Options = MuJoCoWarpFileOptions
    dtype = "float32"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        if self.options.native_effort:
            raise EngineError("mujoco-warp: option native_effort=true: the Warp adapter steps tau in qfrc_applied only "
                              "(it takes: " + ", ".join(self.option_names()) + ")")
        if self.options.autoreset:
            raise EngineError("mujoco-warp: option autoreset=true: MuJoCo Warp has no autoreset (it never resets a "
                              "world; it takes: " + ", ".join(self.option_names()) + ")")
        import mujoco_warp as mjw  # type: ignore[import-untyped,import-not-found,unused-ignore]
        import warp as wp  # type: ignore[import-untyped,import-not-found,unused-ignore]

        from crossdyn.engines.warp_common import quiet_warp, warp_device

        quiet_warp(wp)
        self.mjw, self.wp = mjw, wp
        self.device = warp_device(self.options.device, "mujoco-warp")
        with wp.ScopedDevice(self.device):
            # MuJoCo Warp has no autoreset (put_model refuses its disable bit): nothing to neutralise there
            self.ms.opt.disableflags &= ~int(self.mj.mjtDisableBit.mjDSBL_AUTORESET)
            try:
                self.wm = mjw.put_model(self.m)
                self.wms = mjw.put_model(self.ms)
            except NotImplementedError as e:
                raise EngineUnsupported(f"mujoco-warp: {model.source} uses what MuJoCo Warp does not support: "
                                        f"{e}") from None
            self.wds = mjw.make_data(self.ms, nworld=1)
        self._worlds: dict[int, Any] = {}
        self._nq = int(self.m.nq)

    # ---- batched queries: one world per state -----------------------------------------------------------------
    def _world(self, N: int) -> Any:
        if N not in self._worlds:
            self._worlds = {N: self.mjw.make_data(self.m, nworld=N)}  # keep one size: memory stays O(N)
        return self._worlds[N]

    def _rows(self, X: np.ndarray, width: int, where: np.ndarray | None = None) -> np.ndarray:
        out = np.zeros((X.shape[0], width), dtype=np.float32)
        out[:, self._qadr if where is None else where] = X
        return out

    def _set(self, Q: np.ndarray, QD: np.ndarray | None = None, QDD: np.ndarray | None = None,
             TAU: np.ndarray | None = None) -> Any:
        d = self._world(Q.shape[0])
        z = np.zeros_like(Q)
        d.qpos.assign(self._rows(Q, self._nq))
        d.qvel.assign(np.asarray(z if QD is None else QD, dtype=np.float32))
        d.qacc.assign(np.asarray(z if QDD is None else QDD, dtype=np.float32))
        d.qfrc_applied.assign(np.asarray(z if TAU is None else TAU, dtype=np.float32))
        d.ctrl.zero_()
        return d

    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray:
        wp, mjw = self.wp, self.mjw
        N, n = Q.shape[0], self.n
        M = np.empty((N, n, n))
        with wp.ScopedDevice(self.device):
            d = self._set(Q)
            mjw.fwd_position(self.wm, d)
            vec, res = wp.zeros((N, n), dtype=float), wp.zeros((N, n), dtype=float)
            for j in range(n):
                e = np.zeros((N, n), np.float32)
                e[:, j] = 1.0
                vec.assign(e)
                mjw.mul_m(self.wm, d, res, vec)
                M[:, :, j] = res.numpy()
        return 0.5 * (M + np.swapaxes(M, 1, 2))

    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
        with self.wp.ScopedDevice(self.device):
            d = self._set(Q, QD)
            self.mjw.fwd_position(self.wm, d)
            self.mjw.fwd_velocity(self.wm, d)
            return d.qfrc_bias.numpy().astype(float)

    def _inverse_dynamics(self, Q: np.ndarray, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:
        with self.wp.ScopedDevice(self.device):
            d = self._set(Q, QD, QDD)
            self.mjw.inverse(self.wm, d)
            return d.qfrc_inverse.numpy().astype(float)

    def _forward_dynamics(self, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray) -> np.ndarray:
        with self.wp.ScopedDevice(self.device):
            d = self._set(Q, QD, TAU=TAU)
            self.mjw.forward(self.wm, d)
            return d.qacc.numpy().astype(float)

    # ---- stepping: one world ----------------------------------------------------------------------------------
    def reset(self, q: np.ndarray, qd: np.ndarray) -> None:
        q_e = self.to_engine(np.reshape(np.asarray(q, dtype=float), (1, self.n)))
        qd_e = self.to_engine(np.reshape(np.asarray(qd, dtype=float), (1, self.n)))
        d = self.wds
        with self.wp.ScopedDevice(self.device):
            self.mjw.reset_data(self.wms, d)
            d.qpos.assign(self._rows(q_e, self._nq))
            d.qvel.assign(qd_e.astype(np.float32))

    def step(self, tau: np.ndarray) -> None:
        tau = np.asarray(tau, dtype=float)
        if not np.all(np.isfinite(tau)):
            raise EngineError(f"mujoco-warp: torque {tau.tolist()} is not finite")
        with self.wp.ScopedDevice(self.device):
            self.wds.qfrc_applied.assign(self.to_engine(tau.reshape(1, self.n)).astype(np.float32))
            self.mjw.step(self.wms, self.wds)

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        q = self.wds.qpos.numpy()[:, self._qadr].astype(float)
        qd = self.wds.qvel.numpy().astype(float)
        return self.to_model(q)[0], self.to_model(qd)[0]

    def config(self) -> dict:
        mjw, wp = self.mjw, self.wp
        return {**super().config(),
                "library": f"mujoco_warp {mjw.__version__} (warp {wp.__version__}) on C MuJoCo's compiled model",
                "loader": f"MjModel.from_xml_path({self.prepared.path.name}) -> mujoco_warp.put_model",
                "device": self.device, "dtype": "float32",
                "dtype_note": "MuJoCo Warp computes in float32 only (Warp float); no float64 build",
                "kernel_cache": str(wp.config.kernel_cache_dir),
                "queries": "mjDSBL_DAMPER, mjDSBL_SPRING: no joint damping or springs; nworld = N (one world per "
                           "state): mul_m on unit vectors after fwd_position, qfrc_bias after fwd_velocity, "
                           "mujoco_warp.inverse, mujoco_warp.forward",
                "autoreset": "none in MuJoCo Warp (a world is never reset)",
                "stepping": f"mujoco_warp.step, {self.options.integrator} (eulerdamp "
                            f"{'on' if self.options.eulerdamp else 'disabled'}), tau in qfrc_applied, "
                            "the file's springs " + ("and damping" if self.options.damping
                                                     else "(damping off: mjDSBL_DAMPER)")}
