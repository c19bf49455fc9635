"""Batched cost per trajectory-step (`make bench`): crossdyn's model on JAX (float64, float32) beside MuJoCo MJX,
mujoco.rollout and the NumPy batch, for planar3r, dt = 1 ms, RK4, constant torque, N random arms.

    python benchmarks/batch.py [--quick] [--sizes 1000,10000] [--no-mjx]

On a CPU: N = 1e3, 1e4, 1e5 (MJX to 1e4: it compiles slowly and steps at ~10 µs); on a GPU (when JAX sees one):
N up to 1e6 with 1,000 steps, the CPU engines to 1e4.  ``--precision default`` runs MJX with JAX's default
matmul precision (TF32 on NVIDIA GPUs) to measure what ``highest`` costs.  Times exclude compilation (reported apart): JAX/MJX through an
ahead-of-time compiled executable, best of two runs; mujoco.rollout with one model for every arm (the per-arm
model compilation that `compare --batch` does is not stepping).  Writes the figures under the key "batch" of
benchmarks/results.json (other keys kept) and prints ratios measured in this one run.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import jax  # noqa: E402

from crossdyn.analytic import jax_model as jm  # noqa: E402
from crossdyn.batch.sampling import random_params, random_starts  # noqa: E402
from crossdyn.models import get_preset  # noqa: E402

ARM = "planar3r"
DT = 1e-3
TAU = np.array([0.5, -0.2, 0.1])
BUDGET = 2_000_000
"""Trajectory-steps per timed run on a CPU (K = BUDGET / N, at least 10 steps)."""


def steps_for(N: int, gpu: bool) -> int:
    if gpu:
        return 1000
    return max(10, min(1000, BUDGET // N))


def run_jax(p, q0, K, dtype):
    best, compile_s, Q = None, None, None
    for _ in range(2):
        t: dict = {}
        Q, _ = jm.rollout(p, q0, np.zeros_like(q0), TAU, DT, steps=K, dtype=dtype, timing=t)
        compile_s = t["compile_s"] if compile_s is None else compile_s
        best = t["run_s"] if best is None else min(best, t["run_s"])
    return best, compile_s, np.asarray(Q, dtype=float)[:, -1]


PRECISION = "highest"


def run_mjx(spec, p, q0, K):
    from crossdyn.engines.mjx.planar import rollout_batch

    best, compile_s, Q = None, None, None
    for _ in range(2):
        t: dict = {}
        Q, _ = rollout_batch(spec, p, q0, np.zeros_like(q0), TAU, DT, steps=K, integrator="RK4", timing=t,
                             precision=PRECISION)
        compile_s = t["compile_s"] if compile_s is None else compile_s
        best = t["run_s"] if best is None else min(best, t["run_s"])
    return best, compile_s, Q[:, -1]


def run_numpy(p, q0, K):
    from crossdyn.analytic.dynamics import forward_dynamics
    from crossdyn.analytic.integrators import rk4_step

    q, qd = q0.copy(), np.zeros_like(q0)
    t = time.perf_counter()
    for _ in range(K):
        q, qd = rk4_step(lambda a, b, u: forward_dynamics(p, a, b, u), q, qd, TAU, DT)
    return time.perf_counter() - t, q


def run_rollout(spec, q0, K):
    import mujoco
    from mujoco import rollout

    from crossdyn.engines.mujoco.planar import MuJoCoEngine

    eng = MuJoCoEngine(spec, DT, integrator="RK4")
    m = eng.model
    bits = mujoco.mjtState.mjSTATE_FULLPHYSICS
    nstate = mujoco.mj_stateSize(m, bits)
    d = mujoco.MjData(m)
    init = np.empty((len(q0), nstate))
    for i, q in enumerate(q0):
        mujoco.mj_resetData(m, d)
        d.qpos[:] = q
        mujoco.mj_getState(m, d, init[i], bits)
    datas = [mujoco.MjData(m) for _ in range(min(os.cpu_count() or 1, 16))]
    ctrl = np.broadcast_to(TAU, (len(q0), K, 3)).copy()
    t = time.perf_counter()
    rollout.rollout(m, datas, init, ctrl)
    return time.perf_counter() - t, len(datas)


def id_rate(p, N, dtype):
    rng = np.random.default_rng(1)
    q, qd, qdd = (rng.uniform(-2, 2, (N, 3)) for _ in range(3))
    jm.inverse_dynamics(p, q, qd, qdd, dtype=dtype).block_until_ready()  # compile
    best = None
    for _ in range(3):
        t = time.perf_counter()
        jm.inverse_dynamics(p, q, qd, qdd, dtype=dtype).block_until_ready()
        best = min(best or 1e9, time.perf_counter() - t)
    return N / best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N = 1e3 and 1e4 only, no MJX (a smoke run)")
    ap.add_argument("--sizes", help="comma-separated N values (overrides the defaults)")
    ap.add_argument("--no-mjx", action="store_true", help="skip MJX (it compiles for tens of seconds on a CPU)")
    ap.add_argument("--precision", default="highest", choices=("highest", "high", "default"),
                    help="MJX matmul precision (default highest; 'default' is TF32 for float32 on NVIDIA GPUs)")
    ap.add_argument("--out", default=str(HERE / "results.json"))
    a = ap.parse_args()
    global PRECISION
    PRECISION = a.precision
    dev = jax.devices()[0]
    gpu = dev.platform == "gpu"
    sizes = [1000, 10_000, 100_000, 1_000_000] if gpu else [1000, 10_000, 100_000]
    if a.quick:
        sizes = [1000, 10_000]
    if a.sizes:
        sizes = [int(float(x)) for x in a.sizes.split(",")]
    mjx_max = 1_000_000 if gpu else 10_000
    cpu_max = 10_000 if gpu else 100_000  # on a GPU the CPU engines run 1,000 steps: kept to minutes
    spec = get_preset(ARM)
    print(f"crossdyn batch benchmark: {ARM}, dt = 1 ms, RK4, constant torque; JAX {jax.__version__} on "
          f"{jm.device_kind()}; times exclude compilation (best of 2)")
    rows, results = [], {"device": jm.device_kind(), "jax_version": jax.__version__, "arm": ARM,
                         "mjx_precision": a.precision, "sizes": {}}
    for N in sizes:
        K = steps_for(N, gpu)
        p = random_params(spec, N, seed=0, spread=0.2)
        q0, _ = random_starts(spec, N, seed=0)
        r: dict = {"N": N, "steps": K}
        t64, c64, end64 = run_jax(p, q0, K, "float64")
        t32, c32, end32 = run_jax(p, q0, K, "float32")
        ts = N * K
        r.update(jax_f64_us=t64 / ts * 1e6, jax_f64_compile_s=c64, jax_f32_us=t32 / ts * 1e6, jax_f32_compile_s=c32,
                 jax_f32_vs_f64_end_rad=float(np.max(np.abs(end32 - end64))))
        if N <= cpu_max:
            tn, endn = run_numpy(p, q0, K)
            r.update(numpy_us=tn / ts * 1e6, numpy_vs_jax_f64_end_rad=float(np.max(np.abs(endn - end64))))
            tr, threads = run_rollout(spec, q0, K)  # one model for every arm
            r.update(rollout_us=tr / ts * 1e6, rollout_threads=threads)
        if not a.no_mjx and not a.quick and N <= mjx_max:
            tm, cm, endm = run_mjx(spec, p, q0, K)
            r.update(mjx_us=tm / ts * 1e6, mjx_compile_s=cm, mjx_vs_jax_f64_end_rad=float(np.max(np.abs(endm - end64))))
        results["sizes"][str(N)] = r
        rows.append(r)
        print(f"N = {N:>9,} K = {K:>5}: " + ", ".join(
            f"{k} {v:.4f}" for k, v in r.items() if k.endswith("_us")) + " µs/trajectory-step", flush=True)
    print("\nratios (per trajectory-step, same run):")
    for r in rows:
        parts = []
        for other in ("numpy_us", "rollout_us", "mjx_us"):
            if other in r:
                parts.append(f"{other[:-3]}/jax-f64 = {r[other] / r['jax_f64_us']:.2f}")
                parts.append(f"{other[:-3]}/jax-f32 = {r[other] / r['jax_f32_us']:.2f}")
        print(f"  N = {r['N']:>9,}: " + ", ".join(parts))
    for r in rows:
        print(f"  N = {r['N']:>9,}: float32 end error vs float64 after {r['steps']} steps: JAX "
              f"{r['jax_f32_vs_f64_end_rad']:.2e} rad" +
              (f", MJX {r['mjx_vs_jax_f64_end_rad']:.2e} rad" if "mjx_vs_jax_f64_end_rad" in r else ""))
    Nid = 100_000 if not gpu else 1_000_000
    p = random_params(spec, Nid, seed=0)
    results["inverse_dynamics_states_per_s"] = {"N": Nid, "float64": id_rate(p, Nid, "float64"),
                                                "float32": id_rate(p, Nid, "float32")}
    print(f"JAX inverse dynamics (N = {Nid:,}): {results['inverse_dynamics_states_per_s']['float64'] / 1e6:.1f} M "
          f"states/s float64, {results['inverse_dynamics_states_per_s']['float32'] / 1e6:.1f} M float32")
    out = Path(a.out)
    data = json.loads(out.read_text()) if out.exists() else {}
    data["batch"] = results
    from crossdyn.io import write_json_atomic

    write_json_atomic(out, data)
    print(f"wrote {out} (key 'batch')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
