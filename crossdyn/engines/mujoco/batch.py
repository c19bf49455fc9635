"""C MuJoCo as a batched engine (``mujoco``, ``mujoco-rk4`` in ``compare --batch``): ``mujoco.rollout`` over one
compiled model per arm (each from that arm's own generated MJCF, as the single-arm ``mujoco`` engine), float64.
The knobs are the single-arm engine's (:class:`crossdyn.engines.mujoco.planar.MuJoCoOptions`).
"""
from __future__ import annotations

import time

import numpy as np

from crossdyn.engines.batching import EULERDAMP, BatchProblem, BatchSkip, Knob

MUJOCO_MAX_ARMS = 20_000
"""``mujoco`` / ``mujoco-rk4`` compile one C MuJoCo model per arm (≈ 1 ms each): beyond this many arms they are
skipped."""
OPTIONS = "crossdyn.engines.mujoco.planar:MuJoCoOptions"
KNOBS = (EULERDAMP, Knob("autoreset", "bool", True, "MuJoCo's silent reset of an arm on a bad acceleration"))


def mujoco_models(spec, p, dt: float, integrator: str, options=None) -> list:
    """One C MuJoCo model per arm, each compiled from that arm's own generated MJCF (as the ``mujoco`` engine,
    with ``options``, a :class:`~crossdyn.engines.mujoco.planar.MuJoCoOptions`; None: its defaults)."""
    from crossdyn.models.spec import arm_spec
    from crossdyn.engines.mujoco.planar import MuJoCoEngine

    return [MuJoCoEngine(arm_spec(spec, p, i), dt, integrator=integrator, options=options).model
            for i in range(p.L.shape[0])]


def _start_states(mujoco, models, datas, pb: BatchProblem, spec_bits) -> np.ndarray:
    """Each arm's full physics state at its start (q0_i, q̇0_i), as ``mujoco.rollout`` takes it."""
    state = np.empty((pb.q0.shape[0], mujoco.mj_stateSize(models[0], spec_bits)))
    for i in range(pb.q0.shape[0]):
        d = datas[0]
        mujoco.mj_resetData(models[i], d)
        d.qpos[:], d.qvel[:] = pb.q0[i], pb.qd0[i]
        mujoco.mj_getState(models[i], d, state[i], spec_bits)
    return state


def batched(engine, pb: BatchProblem, opt) -> tuple:
    """N arms under C MuJoCo's ``mujoco.rollout``, one compiled model per arm, chunks of ``save_every`` steps."""
    import mujoco  # type: ignore[import-untyped]
    from mujoco import rollout as _rollout

    N, n = pb.q0.shape
    s = pb.save_every
    if N > MUJOCO_MAX_ARMS:
        raise BatchSkip(f"{N:,} arms: C MuJoCo needs one compiled model per arm (limit {MUJOCO_MAX_ARMS:,})")
    t = time.perf_counter()
    integ = "RK4" if engine.integrator == "rk4" else "Euler"
    models = mujoco_models(pb.spec, pb.p, pb.dt, integ, opt)
    compile_s = time.perf_counter() - t
    spec_bits = mujoco.mjtState.mjSTATE_FULLPHYSICS
    iq = mujoco.mj_stateSize(models[0], mujoco.mjtState.mjSTATE_TIME)
    iv = iq + n
    datas = [mujoco.MjData(models[0]) for _ in range(2)]
    state = _start_states(mujoco, models, datas, pb, spec_bits)
    K = pb.tau.shape[0]
    Q = np.empty((N, K // s + 1, n))
    QD = np.empty_like(Q)
    Q[:, 0], QD[:, 0] = pb.q0, pb.qd0
    t = time.perf_counter()
    for c in range(K // s):  # chunks of s steps: memory N × s × nstate
        ctrl = np.ascontiguousarray(np.broadcast_to(pb.tau[c * s:(c + 1) * s], (N, s, n)))
        states, _ = _rollout.rollout(models, datas, state, ctrl)
        state = np.ascontiguousarray(states[:, -1])
        Q[:, c + 1], QD[:, c + 1] = state[:, iq:iq + n], state[:, iv:iv + n]
    return Q, QD, compile_s, time.perf_counter() - t, {
        "dtype": "float64", "version": mujoco.__version__, "threads": len(datas), "models": "one per arm",
        "eulerdamp": opt.eulerdamp, "autoreset": opt.autoreset}
