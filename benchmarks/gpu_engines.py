"""The GPU simulators per trajectory-step (issue 28): MuJoCo Warp (``nworld`` = N) and Newton (Featherstone, N
replicated worlds) beside MJX and crossdyn's JAX model, with each float32 run's error against float64.

    python benchmarks/gpu_engines.py [--n 1000,10000,100000,1000000] [--steps 100] [--max-seconds 540]

planar3r, dt = 1 ms, constant torque τ = (0.5, −0.2, 0.1) N m, N arms from random starts (the same arm: one model
for every world, as ``mujoco.rollout`` in benchmarks/batch.py).  Schemes: MuJoCo Warp and Newton semi-implicit
Euler (MuJoCo's ``Euler`` with ``eulerdamp`` off; Featherstone's only scheme); MJX and the JAX model RK4.  Float32
error: the largest |q| difference at the last step against a float64 run of the same scheme — C MuJoCo's Euler on
the same MJCF for MuJoCo Warp and Newton (``mujoco.rollout``; crossdyn's ``mujoco`` engine is the float64 path),
the JAX model at float64 for MJX and the JAX model at float32.

**Runtime cap** ``--max-seconds`` (default 540): each (engine, N) run is a child process killed when the cap is
reached (compilation included: Warp kernels at first use, XLA); before each run the script predicts its time from
the engine's last measured µs per trajectory-step and skips it, saying so, when it would end past the cap.  Not part of
``make test``.  Writes the figures with the device names (``jax.devices()``, Warp's device) under the key
``"gpu_engines"`` of benchmarks/results.json (other keys kept).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from crossdyn.models import get_preset  # noqa: E402
from crossdyn.models.mjcf import to_mjcf  # noqa: E402

ARM, DT = "planar3r", 1e-3
TAU = np.array([0.5, -0.2, 0.1])


def starts(spec, N: int) -> np.ndarray:
    from crossdyn.batch.sampling import random_starts

    return random_starts(spec, N, seed=0)[0]


def mujoco_c_euler(spec, q0: np.ndarray, K: int) -> np.ndarray:
    """The float64 reference of the Euler engines: C MuJoCo's Euler (eulerdamp off) on the same MJCF, q after K
    steps for every start (``mujoco.rollout``)."""
    import mujoco
    from mujoco import rollout

    m = mujoco.MjModel.from_xml_string(to_mjcf(spec, timestep=DT, integrator="Euler", eulerdamp=False))
    d = mujoco.MjData(m)
    bits = mujoco.mjtState.mjSTATE_FULLPHYSICS
    init = np.empty((len(q0), mujoco.mj_stateSize(m, bits)))
    for i, q in enumerate(q0):
        mujoco.mj_resetData(m, d)
        d.qpos[:] = q
        mujoco.mj_getState(m, d, init[i], bits)
    state, _ = rollout.rollout(m, [mujoco.MjData(m)], init, np.broadcast_to(TAU, (len(q0), K, len(TAU))).copy())
    return state[:, -1, 1:1 + m.nq]


def run_mujoco_warp(spec, q0: np.ndarray, K: int) -> dict:
    import mujoco
    import mujoco_warp as mjw
    import warp as wp

    from crossdyn.engines.warp_common import quiet_warp

    quiet_warp(wp)
    N, n = q0.shape
    m = mujoco.MjModel.from_xml_string(to_mjcf(spec, timestep=DT, integrator="Euler", eulerdamp=False))
    t = time.perf_counter()
    model, data = mjw.put_model(m), mjw.make_data(m, nworld=N)
    data.qpos.assign(q0.astype(np.float32))
    data.ctrl.assign(np.broadcast_to(TAU, (N, n)).astype(np.float32))
    mjw.step(model, data)  # compiles the kernels at first use (cached under Warp's kernel cache)
    wp.synchronize()
    setup = time.perf_counter() - t
    data.qpos.assign(q0.astype(np.float32))
    data.qvel.zero_()
    t = time.perf_counter()
    for _ in range(K):
        mjw.step(model, data)
    wp.synchronize()
    run = time.perf_counter() - t
    return {"run_s": run, "setup_s": setup, "q": data.qpos.numpy().astype(float), "device": str(wp.get_device())}


def run_newton(spec, q0: np.ndarray, K: int) -> dict:
    import newton
    import warp as wp
    from newton.solvers import SolverFeatherstone

    from crossdyn.engines.warp_common import quiet_warp

    quiet_warp(wp)
    N, n = q0.shape
    t = time.perf_counter()
    arm = newton.ModelBuilder()
    arm.add_mjcf(to_mjcf(spec, timestep=DT))
    builder = newton.ModelBuilder()
    builder.replicate(arm, N)
    model = builder.finalize(skip_validation_inertia=True)
    model.set_gravity([float(g) for g in spec.gravity])  # the adapter's fix: Newton ignores the MJCF's gravity
    solver = SolverFeatherstone(model, angular_damping=0.0)
    s0, s1, control = model.state(), model.state(), model.control()
    control.joint_f.assign(np.tile(TAU, N).astype(np.float32))

    def reset():
        s0.joint_q.assign(q0.reshape(-1).astype(np.float32))
        s0.joint_qd.zero_()
        newton.eval_fk(model, s0.joint_q, s0.joint_qd, s0)

    reset()
    solver.step(s0, s1, control, None, DT)  # compiles at first use
    wp.synchronize()
    setup = time.perf_counter() - t
    reset()
    t = time.perf_counter()
    for _ in range(K):
        solver.step(s0, s1, control, None, DT)
        s0, s1 = s1, s0
    wp.synchronize()
    run = time.perf_counter() - t
    return {"run_s": run, "setup_s": setup, "q": s0.joint_q.numpy().astype(float).reshape(N, n),
            "device": str(wp.get_device())}


def run_jax(spec, q0: np.ndarray, K: int) -> dict:
    """The JAX model at float64 and float32 (RK4), from benchmarks/batch.py's runner (best of two)."""
    import batch as b

    from crossdyn.batch.sampling import random_params

    p = random_params(spec, len(q0), seed=0, spread=0.0)
    t64, c64, end64 = b.run_jax(p, q0, K, "float64")
    t32, c32, end32 = b.run_jax(p, q0, K, "float32")
    return {"jax-f64": {"run_s": t64, "setup_s": c64, "err": 0.0},
            "jax-f32": {"run_s": t32, "setup_s": c32, "err": float(np.max(np.abs(end32 - end64)))}}


def run_mjx(spec, q0: np.ndarray, K: int) -> dict:
    """MJX (RK4, float32), from benchmarks/batch.py's runner, against the JAX model at float64."""
    import batch as b

    from crossdyn.batch.sampling import random_params

    p = random_params(spec, len(q0), seed=0, spread=0.0)
    _, _, end64 = b.run_jax(p, q0, K, "float64")
    tm, cm, endm = b.run_mjx(spec, p, q0, K)
    return {"mjx": {"run_s": tm, "setup_s": cm, "err": float(np.max(np.abs(endm - end64)))}}


ENGINES = ("mujoco-warp", "newton", "jax", "mjx")


def devices() -> dict:
    out: dict = {}
    try:
        import jax

        out["jax"] = [f"{d.platform}: {getattr(d, 'device_kind', str(d))}" for d in jax.devices()]
    except Exception as e:  # noqa: BLE001 — a missing backend is a recorded fact, not a crash
        out["jax"] = f"unavailable: {e}"
    try:
        import warp as wp

        from crossdyn.engines.warp_common import quiet_warp

        quiet_warp(wp)
        d = wp.get_preferred_device()
        out["warp"] = {"device": str(d), "name": getattr(d, "name", str(d)), "is_cuda": bool(d.is_cuda),
                       "warp_version": wp.__version__}
    except Exception as e:  # noqa: BLE001
        out["warp"] = f"unavailable: {e}"
    return out


def measure(engine: str, N: int, K: int) -> dict:
    """One (engine, N) run: {row: {run_s, setup_s, us_per_step, err}}."""
    sys.path.insert(0, str(HERE))
    spec = get_preset(ARM)
    q0 = starts(spec, N)
    if engine in ("jax", "mjx"):
        got = (run_jax if engine == "jax" else run_mjx)(spec, q0, K)
        return {k: {**v, "us_per_step": v["run_s"] / (N * K) * 1e6} for k, v in got.items()}
    r = (run_mujoco_warp if engine == "mujoco-warp" else run_newton)(spec, q0, K)
    ref = mujoco_c_euler(spec, q0, K)
    return {engine: {"run_s": r["run_s"], "setup_s": r["setup_s"], "us_per_step": r["run_s"] / (N * K) * 1e6,
                     "err": float(np.max(np.abs(r["q"] - ref))), "device": r["device"]}}


def _child(engine: str, N: int, K: int, queue) -> None:
    try:
        queue.put(("ok", measure(engine, N, K)))
    except Exception as e:  # noqa: BLE001 — a library's failure is a recorded result
        queue.put(("failed", f"{type(e).__name__}: {e}"))


def capped(engine: str, N: int, K: int, seconds: float) -> tuple[str, object]:
    """``measure`` in a child process killed after ``seconds`` (the cap is enforced, compilation included)."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(engine, N, K, queue))
    proc.start()
    try:
        return queue.get(timeout=max(1.0, seconds))
    except Exception:  # noqa: BLE001 — queue.Empty: the child ran past the cap
        return "killed", f"still running at the cap ({seconds:.0f} s left): killed"
    finally:
        proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="1000,10000,100000,1000000", help="comma-separated N (arms)")
    ap.add_argument("--steps", type=int, default=100, help="trajectory steps per timed run")
    ap.add_argument("--engines", default=",".join(ENGINES), help=f"comma-separated, of {', '.join(ENGINES)}")
    ap.add_argument("--max-seconds", type=float, default=540.0, help="runtime cap (s), compilation included")
    ap.add_argument("--out", default=str(HERE / "results.json"))
    a = ap.parse_args(argv)
    sizes = sorted(int(float(x)) for x in a.n.split(","))
    engines = [e for e in a.engines.split(",") if e]
    bad = [e for e in engines if e not in ENGINES]
    if bad or a.steps < 1 or a.max_seconds <= 0:
        ap.error(f"engines must be of {', '.join(ENGINES)} (got {', '.join(bad) or '-'}); --steps >= 1; "
                 f"--max-seconds > 0")
    t_start = time.perf_counter()
    res: dict = {"arm": ARM, "dt": DT, "steps": a.steps, "max_seconds": a.max_seconds, "devices": devices(),
                 "sizes": {}, "skipped": []}
    print(f"gpu_engines: {ARM}, dt = 1 ms, {a.steps} steps, constant torque; devices {res['devices']}", flush=True)
    last_us: dict[str, float] = {}
    for N in sizes:
        row: dict = {}
        for eng in engines:
            left = a.max_seconds - (time.perf_counter() - t_start)
            guess = last_us.get(eng, 0.0) * 1e-6 * N * a.steps * 2
            if eng in last_us and guess > left or left <= 1:
                why = f"{eng} at N = {N}: predicted {guess:.0f} s > {left:.0f} s left of the cap"
                res["skipped"].append(why)
                print("skipped:", why, flush=True)
                continue
            status, got = capped(eng, N, a.steps, left)
            if status != "ok":
                last_us[eng] = float("inf")
                res["skipped"].append(f"{eng} at N = {N}: {got}")
                print(f"{eng} at N = {N}: {status}: {got}", flush=True)
                continue
            assert isinstance(got, dict)
            row.update(got)
            last_us[eng] = max(v["us_per_step"] for v in got.values())
            for k, v in got.items():
                print(f"N = {N:>9,} {k:12s} {v['us_per_step']:10.3f} µs/trajectory-step (setup/compile "
                      f"{v['setup_s']:.1f} s), float32 end error vs float64 {v['err']:.2e} rad", flush=True)
        res["sizes"][str(N)] = row
    res["seconds"] = time.perf_counter() - t_start
    out = Path(a.out)
    data = json.loads(out.read_text()) if out.exists() else {}
    data["gpu_engines"] = res
    from crossdyn.io import write_json_atomic

    write_json_atomic(out, data)
    print(f"{res['seconds']:.0f} s; wrote {out} (key 'gpu_engines')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
