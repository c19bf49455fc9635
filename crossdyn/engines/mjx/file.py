"""MuJoCo MJX reading a robot file (``mjx``, ``mjx-euler``, ``mjx-rk4`` on a URDF, an MJCF or a textbook DH arm's
generated MJCF): loaded exactly as the ``mujoco`` file engine loads it (the same prepared copy and C MuJoCo compiler;
a URDF through MuJoCo's importer with the same ``<mujoco><compiler/></mujoco>`` block; knobs ``fusestatic``,
``balanceinertia``, ``armature``, ``damping``, ``eulerdamp``), then put on the JAX device (``mjx.put_model``).

Everything the ``mujoco`` file engine neutralises holds here, because MJX reads C MuJoCo's ``mjOption``: gravity =
the model's, contact and the constraint solver off, joint damping and springs off in the queries (``mjDSBL_DAMPER``,
``mjDSBL_SPRING``), ``eulerdamp`` disabled for stepping (MJX's Euler honours ``mjDSBL_EULERDAMP``).  What differs,
each in :meth:`MJXFileEngine.config`:

* **float32** by default, as MJX runs and as the planar MJX adapter (:mod:`crossdyn.engines.mjx.planar`): the model
  is put and every MJX function runs inside the scoped ``jax.enable_x64(dtype == "float64")`` and
  ``jax.default_matmul_precision(precision)`` (option ``dtype=float64`` for diagnosis; ``precision=default`` for
  JAX's default, TF32 on NVIDIA GPUs).  :attr:`dtype` is the option's, so the audit and ``compare ROBOT`` add the
  float32 round-off term of :mod:`crossdyn.engines.precision` to their tolerances.
* the ``energy`` enable flag is cleared (MJX rejects ``mjENBL_ENERGY``; it changes no dynamics) and ``autoreset``
  does not exist in MJX (a divergence turns non-finite and stays visible): ``autoreset=true`` and
  ``native_effort=true`` are refused.
* **queries**, one jitted and ``vmap``-ed function over the N states (compiled once per N): M = ``mjx.full_m`` and
  bias = ``qfrc_bias`` after ``mjx.forward`` (τ = 0), ID = ``mjx.inverse`` (``qfrc_inverse``), FD = ``mjx.forward``'s
  ``qacc`` with τ in ``qfrc_applied``.
* **stepping**: one jitted ``mjx.step`` on the stepping model per step (integrator the name's: ``mjx``/``mjx-euler``
  Euler, semi-implicit with eulerdamp disabled, ``mjx-rk4`` RK4, as on a planar arm), τ in ``qfrc_applied``.

What MJX cannot represent (``put_model`` raises ``NotImplementedError``) makes the engine unsupported with MJX's
reason.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from crossdyn.engines.mujoco.file import MuJoCoFileEngine, MuJoCoFileOptions
from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.robots.model import RobotModel

MJX_INTEGRATORS = {"Euler": "semi-implicit-euler", "RK4": "rk4"}
"""The integrators the MJX names step with (crossdyn's words), as :class:`crossdyn.engines.mjx.planar.MJXEngine`."""


@dataclass(frozen=True)
class MJXFileOptions(MuJoCoFileOptions):
    integrator: str = "Euler"
    dtype: str = "float32"
    """``float32`` (MJX's own) or ``float64`` (MJX under the scoped ``jax.enable_x64(True)``, for diagnosis)."""
    precision: str = "highest"
    """``jax.default_matmul_precision`` around every MJX call (``default``: TF32 for float32 products on NVIDIA
    GPUs; no effect on a CPU)."""


class MJXFileEngine(MuJoCoFileEngine):
    name = "mjx"
    Options = MJXFileOptions
    dtype = "float32"

    def __init__(self, model: RobotModel, dt: float = 1e-3, options: Any = None, **kw: Any):
        super().__init__(model, dt, options, **kw)
        from crossdyn.engines.mjx.planar import _check

        opt = self.options
        refused = [k for k in ("native_effort", "autoreset") if getattr(opt, k)]
        if refused:
            raise EngineError(f"mjx: option {refused[0]}=true: MJX " + (
                "steps tau in qfrc_applied only" if refused[0] == "native_effort" else "has no autoreset")
                + " (it takes: " + ", ".join(self.option_names()) + ")")
        if opt.integrator not in MJX_INTEGRATORS:
            raise EngineError(f"mjx integrator: must be one of {', '.join(MJX_INTEGRATORS)}, got {opt.integrator!r}")
        _check(opt.integrator, opt.dtype, opt.precision)
        self.dtype = opt.dtype  # type: ignore[misc]
        self._float = np.dtype(opt.dtype)
        energy = int(self.mj.mjtEnableBit.mjENBL_ENERGY)
        for mm in (self.m, self.ms):
            mm.opt.enableflags &= ~energy  # MJX rejects it; no dynamics change
            mm.opt.disableflags &= ~int(self.mj.mjtDisableBit.mjDSBL_AUTORESET)  # none in MJX
        self._build()

    def _build(self) -> None:
        """The two MJX models (queries, stepping) and the jitted functions, in the adapter's dtype scope."""
        import jax

        from crossdyn.engines.mjx.planar import mjx

        with self.scope():
            try:
                self.mx, self.mxs = mjx.put_model(self.m), mjx.put_model(self.ms)
            except NotImplementedError as e:
                raise EngineUnsupported(f"mjx: {self.model.source} uses what MJX does not support: {e}") from None
            self._d0, self._ds0 = mjx.make_data(self.mx), mjx.make_data(self.mxs)
            self._queries = jax.jit(jax.vmap(_queries, in_axes=(None, None, 0, 0, 0, 0)))
            self._step = jax.jit(lambda mx, d, tau: mjx.step(mx, d.replace(qfrc_applied=tau)))
            self._set = jax.jit(lambda d, q, qd: d.replace(qpos=q, qvel=qd))
        self.ds_x = self._ds0

    def scope(self) -> Any:
        """The scoped x64 switch and matmul precision every MJX call of this engine runs in."""
        from crossdyn.engines.mjx.planar import _Scope

        return _Scope(self.options.dtype, self.options.precision)

    # ---- batched queries: one vmapped call --------------------------------------------------------------------
    def _query(self, Q: np.ndarray, QD: np.ndarray | None = None, QDD: np.ndarray | None = None,
               TAU: np.ndarray | None = None) -> list[np.ndarray]:
        f = self._float
        P = np.tile(np.asarray(self.m.qpos0, dtype=f), (Q.shape[0], 1))
        P[:, self._qadr] = Q
        z = np.zeros(Q.shape, f)
        args = [np.asarray(z if X is None else X, f) for X in (QD, TAU, QDD)]
        with self.scope():
            out = self._queries(self.mx, self._d0, P, *args)
        return [np.asarray(x, dtype=float) for x in out]

    def _mass_matrix(self, Q: np.ndarray) -> np.ndarray:
        M = self._query(Q)[2]
        return 0.5 * (M + np.swapaxes(M, 1, 2))

    def _bias(self, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
        return self._query(Q, QD)[3]

    def _inverse_dynamics(self, Q: np.ndarray, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:
        return self._query(Q, QD, QDD=QDD)[1]

    def _forward_dynamics(self, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray) -> np.ndarray:
        return self._query(Q, QD, TAU=TAU)[0]

    # ---- stepping ---------------------------------------------------------------------------------------------
    def reset(self, q: np.ndarray, qd: np.ndarray) -> None:
        f = self._float
        P = np.asarray(self.ms.qpos0, dtype=f).copy()
        P[self._qadr] = self.to_engine(np.reshape(np.asarray(q, dtype=float), (1, self.n)))[0]
        V = self.to_engine(np.reshape(np.asarray(qd, dtype=float), (1, self.n)))[0].astype(f)
        with self.scope():
            self.ds_x = self._set(self._ds0, P, V)

    def step(self, tau: np.ndarray) -> None:
        tau = np.asarray(tau, dtype=float)
        if not np.all(np.isfinite(tau)):
            raise EngineError(f"mjx: torque {tau.tolist()} is not finite")
        with self.scope():
            self.ds_x = self._step(self.mxs, self.ds_x, self.to_engine(tau.reshape(1, self.n))[0].astype(self._float))

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        q = np.asarray(self.ds_x.qpos, dtype=float)[self._qadr][None]
        qd = np.asarray(self.ds_x.qvel, dtype=float)[None]
        return self.to_model(q)[0], self.to_model(qd)[0]

    def config(self) -> dict:
        import jax

        opt = self.options
        return {**super().config(),
                "library": f"mujoco.mjx {self.mj.__version__} (jax {jax.__version__}) on C MuJoCo's compiled model",
                "loader": f"MjModel.from_xml_path({self.prepared.path.name}) -> mjx.put_model",
                "device": str(jax.devices()[0]), "dtype": opt.dtype,
                "x64": f"MJX put and run under the scoped jax.enable_x64({opt.dtype == 'float64'})",
                "precision": opt.precision,
                "precision_note": "jax.default_matmul_precision around every MJX call; 'default' is TF32 for float32 "
                                  "matrix products on NVIDIA GPUs, true float32 on a CPU",
                "cleared_options": {"energy": "enable flag cleared: MJX rejects mjENBL_ENERGY (no dynamics change)",
                                    "autoreset": "MJX has no auto-reset: a divergence turns non-finite and stays "
                                                 "visible"},
                "queries": "mjDSBL_DAMPER, mjDSBL_SPRING: no joint damping or springs; one jitted vmap over the "
                           "states: mjx.full_m and qfrc_bias after mjx.forward, mjx.inverse, mjx.forward's qacc",
                "stepping": f"jitted mjx.step, {opt.integrator} (eulerdamp "
                            f"{'on' if opt.eulerdamp else 'disabled'}), tau in qfrc_applied, the file's springs "
                            + ("and damping" if opt.damping else "(damping off: mjDSBL_DAMPER)")}


def _queries(mx: Any, d0: Any, qpos: Any, qvel: Any, tau: Any, qacc: Any) -> tuple:
    """(q̈ = ``mjx.forward``'s qacc under τ in ``qfrc_applied``, ``qfrc_inverse`` for ``qacc``, M = ``mjx.full_m``,
    ``qfrc_bias``) at one state (vmapped by the adapter)."""
    from crossdyn.engines.mjx.planar import mjx

    fwd = mjx.forward(mx, d0.replace(qpos=qpos, qvel=qvel, qfrc_applied=tau))
    inv = mjx.inverse(mx, fwd.replace(qacc=qacc, qfrc_applied=tau * 0))
    return fwd.qacc, inv.qfrc_inverse, mjx.full_m(mx, fwd), fwd.qfrc_bias
