"""MuJoCo Warp as a batched engine (``mujoco-warp``, ``mujoco-warp-rk4`` in ``compare --batch``): one world per arm.

The model is the spec's generated MJCF compiled by C MuJoCo and copied to the Warp device with
``mujoco_warp.put_model(m, batch_sizes={field: N})`` for :data:`crossdyn.engines.mjx.planar.BATCHED_FIELDS`, whose
per-arm values (:func:`crossdyn.engines.mjx.planar.batched_fields`, the same MJX uses) are then assigned world by
world; ``Data`` has ``nworld = N``.  The torque is held over each step (``Data.ctrl``); q and q̇ are read every
``save_every`` steps.  float32 only (MuJoCo Warp has no float64 build); ``eulerdamp`` off, as for C MuJoCo.

The knobs are the single-arm engine's (:class:`crossdyn.engines.mujoco_warp.planar.MuJoCoWarpOptions`, given as
``--engines mujoco-warp@eulerdamp=true`` through :mod:`crossdyn.batch.engines`): ``eulerdamp`` (MuJoCo's implicit
joint damping under Euler, its default) and ``device``; the integrator is the engine name's.
"""
from __future__ import annotations

import time

import numpy as np

from crossdyn.engines.batching import DEVICE, EULERDAMP

INTEGRATORS = {"semi-implicit-euler": "Euler", "rk4": "RK4"}


def _model(mjw, wp, spec, p, dt: float, integrator: str, eulerdamp: bool = False):
    """The MuJoCo Warp model with one value per world of every batched field; the C model beside it."""
    from crossdyn.engines.mjx import planar as mjx_engine

    m = mjx_engine.build_mj_model(spec, dt, INTEGRATORS[integrator], eulerdamp)
    fields = mjx_engine.batched_fields(spec, p)
    N = len(np.asarray(p[0]))
    model = mjw.put_model(m, batch_sizes={k: N for k in fields})
    for name, values in fields.items():
        arr = getattr(model, name)
        arr.assign(np.asarray(values, dtype=np.float32).reshape(arr.shape + ((3,) if arr.dtype == wp.vec3 else ())))
    return m, model


def run(integrator: str, pb, options=None) -> tuple:
    """``pb`` (a :class:`crossdyn.batch.engines.BatchProblem`) on MuJoCo Warp: (Q, QD, setup_s, run_s, config).
    ``options``: a :class:`crossdyn.engines.mujoco_warp.planar.MuJoCoWarpOptions` (its ``integrator`` ignored:
    ``integrator`` says); None: its defaults."""
    import mujoco_warp as mjw  # type: ignore[import-untyped,import-not-found,unused-ignore]
    import warp as wp  # type: ignore[import-untyped,import-not-found,unused-ignore]

    from crossdyn.engines.mujoco_warp.planar import MuJoCoWarpOptions
    from crossdyn.engines.warp_common import quiet_warp, warp_device

    quiet_warp(wp)
    opt = options if options is not None else MuJoCoWarpOptions()
    with wp.ScopedDevice(warp_device(opt.device, "mujoco-warp")):
        return _run(mjw, wp, integrator, pb, bool(opt.eulerdamp))


def _run(mjw, wp, integrator: str, pb, eulerdamp: bool) -> tuple:
    from crossdyn.engines.mjx.planar import BATCHED_FIELDS

    t0 = time.perf_counter()
    N, n = pb.q0.shape
    m, model = _model(mjw, wp, pb.spec, pb.p, pb.dt, integrator, eulerdamp)
    d = mjw.make_data(m, nworld=N)
    d.qpos.assign(pb.q0.astype(np.float32))
    d.qvel.assign(pb.qd0.astype(np.float32))
    setup = time.perf_counter() - t0
    K = len(pb.tau)
    Q, QD = [pb.q0.copy()], [pb.qd0.copy()]
    t0 = time.perf_counter()
    for k in range(K):
        d.ctrl.assign(np.broadcast_to(pb.tau[k], (N, n)).astype(np.float32))
        mjw.step(model, d)
        if (k + 1) % pb.save_every == 0:
            Q.append(d.qpos.numpy().astype(float))
            QD.append(d.qvel.numpy().astype(float))
    wp.synchronize()
    run_s = time.perf_counter() - t0
    cfg = {"dtype": "float32", "device": str(wp.get_device()), "mujoco_warp_version": mjw.__version__,
           "warp_version": wp.__version__, "mujoco_integrator": INTEGRATORS[integrator], "eulerdamp": eulerdamp,
           "batched_fields": list(BATCHED_FIELDS), "run_s_includes": "host reads of the saved states"}
    return np.stack(Q, axis=1), np.stack(QD, axis=1), setup, run_s, cfg


OPTIONS = "crossdyn.engines.mujoco_warp.planar:MuJoCoWarpOptions"
KNOBS = (EULERDAMP, DEVICE)


def batched(engine, pb, opt) -> tuple:
    """The batched-runner entry (:mod:`crossdyn.engines.batching`): :func:`run` with the name's integrator."""
    return run(engine.integrator, pb, opt)
