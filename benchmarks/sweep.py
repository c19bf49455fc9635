"""Sweep benchmarks (`make bench` runs this after run.py): costs and ratios measured side by side in one run.

1. Per-comparison cost without plots: planar3r × one engine (mujoco) × 1 s at dt = 1 ms, i.e. one
   ``run_chunk`` of one comparison in this process (median of 3, warm); also per comparison when the
   analytic reference is shared by 5 engines.
2. The same chunks (6 random 3-link arms × mujoco × 1 s at 1 ms) run (a) directly in this process,
   (b) through ``run_sweep`` on a local Dask cluster of 1 worker process, (c) of 2 worker processes — in
   the order a b c c b a, so that a change of machine load affects all three alike.  Dask overhead per
   comparison = b / a − 1 (it includes writing the Parquet files), in wall time and in CPU time (this
   process's — client, scheduler — plus the workers'; CPU time barely depends on other jobs' load, wall time
   does); speedup = b / c in wall time (meaningful only on an otherwise idle machine).
3. ``--big``: a 1,000-comparison sweep (50 random arms of 2–4 links × 5 engines × 4 dt × 1 s) run end to
   end with its report by the ``crossdyn sweep`` command; its wall time.

    python benchmarks/sweep.py [--quick] [--big]

Writes benchmarks/sweep_results.json.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import logging  # noqa: E402

from crossdyn.sweeps.execute import _start_client, run_sweep  # noqa: E402

logging.getLogger("distributed").setLevel(logging.ERROR)
from crossdyn.sweeps.plan import plan_chunks, run_chunk  # noqa: E402
from crossdyn.sweeps.rows import to_parquet_bytes  # noqa: E402
from crossdyn.sweeps.sweepfile import load_sweep  # noqa: E402

ONE = 'arms = ["planar3r"]\nengines = [{engines}]\ndt = [0.001]\nduration = 1.0\n'
SAME = ('random_arms = {{ count = {n}, links = [3, 3], seed = 5, length = [0.9, 1.0], mass = [0.9, 1.0] }}\n'
        'engines = ["mujoco"]\ndt = [0.001]\nduration = 1.0\n')
BIG = ('name = "big"\nrandom_arms = { count = 50, links = [2, 4], seed = 1 }\n'
       'engines = ["analytic", "pybullet", "mujoco", "mujoco-rk4", "pinocchio"]\n'
       'dt = [0.004, 0.002, 0.001, 0.0005]\nprofiles = ["multisine-motion"]\nduration = 1.0\n')


def sweep_of(text: str, tmp: Path, name: str):
    path = tmp / f"{name}.toml"
    path.write_text(text)
    return load_sweep(path)


def per_comparison(tmp: Path, reps: int) -> dict:
    out = {}
    for label, engines in (("one_engine", '"mujoco"'),
                           ("five_engines", '"analytic", "pybullet", "mujoco", "mujoco-rk4", "pinocchio"')):
        chunk = plan_chunks(sweep_of(ONE.format(engines=engines), tmp, label))[0]
        run_chunk(chunk)  # warm: imports, code generation, first-call costs
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            rows = run_chunk(chunk)
            times.append(time.perf_counter() - t)
        assert all(r["status"] == "ok" for r in rows)
        out[label] = statistics.median(times) / chunk.comparisons
    return out


def cpu_s(pids) -> float:
    """CPU seconds (user + system) used so far by this process (all its threads) and the processes ``pids``."""
    import psutil

    total = 0.0
    for pid in [os.getpid(), *pids]:
        t = psutil.Process(pid).cpu_times()
        total += t.user + t.system
    return total


def direct(chunks) -> tuple[float, float]:
    """Wall and CPU seconds (this process, all threads: MuJoCo's rollout uses two) of running ``chunks`` here,
    one after the other (no cluster is running meanwhile)."""
    t, c = time.perf_counter(), time.process_time()
    for chunk in chunks:
        run_chunk(chunk)
    return time.perf_counter() - t, time.process_time() - c


def on_dask(sweep, client, tmp: Path, tag: str) -> tuple[float, float]:
    """Wall and CPU seconds of the sweep through ``run_sweep`` (CPU of the client process — scheduler, client,
    both clusters' idle loops — and of the worker processes; Parquet writing included)."""
    out = tmp / f"dask-{tag}-{time.monotonic_ns()}"
    pids = list(client.run(os.getpid).values())
    c = cpu_s(pids)
    run = run_sweep(sweep, out, client=client, quiet=True)
    cpu = cpu_s(pids) - c
    assert run.complete and run.failed_comparisons == 0
    return run.wall_s, cpu


def _noop(x):
    return x


def task_round_trip_s(client, n: int = 30) -> float:
    """Median seconds from submitting one tiny task to having its result, one at a time (Dask's fixed cost per
    chunk: client → scheduler → worker → scheduler → client)."""
    times = []
    for i in range(n):
        t = time.perf_counter()
        client.submit(_noop, i, pure=False).result()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def write_s(rows, tmp: Path, n: int = 20) -> float:
    """Median seconds to write one chunk's Parquet file atomically (what the client does per chunk)."""
    from crossdyn.io import write_bytes_atomic

    times = []
    for i in range(n):
        t = time.perf_counter()
        write_bytes_atomic(tmp / f"w{i}.parquet", to_parquet_bytes(rows))
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer and shorter runs (a smoke run)")
    ap.add_argument("--big", action="store_true", help="also run the 1,000-comparison sweep end to end")
    args = ap.parse_args()
    results: dict = {"cpus": os.cpu_count(), "load_avg_at_start": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        results["s_per_comparison"] = per_comparison(tmp, 1 if args.quick else 3)

        n = 4 if args.quick else 6
        sweep = sweep_of(SAME.format(n=n), tmp, "same")
        chunks = plan_chunks(sweep)
        warm = plan_chunks(sweep_of(SAME.format(n=1).replace("seed = 5", "seed = 99"), tmp, "warm"))[0]
        warm_rows = run_chunk(warm)
        results["chunk_write_s"] = write_s(warm_rows, tmp)  # also warms pyarrow.parquet here, as in the client
        times: dict = {"direct": [], "dask1": [], "dask2": []}
        cpus: dict = {"direct": [], "dask1": [], "dask2": []}
        order = ["direct", "dask1", "dask2", "dask2", "dask1", "direct"]
        for which in order[: 3 if args.quick else 6]:
            if which == "direct":
                wall, cpu = direct(chunks)
            else:  # a cluster of its own for each run, started and warmed before the clock starts, so
                # that no other cluster's background work is counted
                client, cluster = _start_client(None, int(which[-1]), [])
                client.run(run_chunk, warm)  # every worker process warm, as this one is
                if which == "dask1" and "task_round_trip_s" not in results:
                    results["task_round_trip_s"] = task_round_trip_s(client)
                wall, cpu = on_dask(sweep, client, tmp, which)
                logging.getLogger("distributed").setLevel(logging.ERROR)
                client.close()
                cluster.close()
            times[which].append(wall)
            cpus[which].append(cpu)
        med = {k: statistics.median(v) for k, v in times.items()}
        cmed = {k: statistics.median(v) for k, v in cpus.items()}
        results.update(comparisons=len(chunks), wall_s=times, cpu_s=cpus,
                       direct_s_per_comparison=med["direct"] / len(chunks),
                       dask_overhead_per_comparison=med["dask1"] / med["direct"] - 1,
                       dask_cpu_overhead_per_comparison=cmed["dask1"] / cmed["direct"] - 1,
                       fixed_cost_per_chunk_rel=(results["task_round_trip_s"] + results["chunk_write_s"])
                       / (med["direct"] / len(chunks)),
                       speedup_2_workers_over_1=med["dask1"] / med["dask2"])

        if args.big:
            path = tmp / "big.toml"
            path.write_text(BIG)
            t = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "crossdyn.cli", "sweep", str(path), "--out",
                                   str(tmp / "big"), "--quiet"], capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
            results["big_sweep"] = {"comparisons": load_sweep(path).comparisons, "wall_s": time.perf_counter() - t,
                                    "exit_code": proc.returncode, "output": proc.stdout.splitlines(),
                                    "report": (tmp / "big" / "sweep.md").read_text()
                                    if (tmp / "big" / "sweep.md").exists() else None}
    results["load_avg_at_end"] = os.getloadavg()
    (HERE / "sweep_results.json").write_text(json.dumps(results, indent=2) + "\n")

    pc = results["s_per_comparison"]
    print(f"sweep benchmarks ({os.cpu_count()} CPUs; load average at start "
          f"{results['load_avg_at_start'][0]:.1f}, at end {results['load_avg_at_end'][0]:.1f})")
    print(f"one comparison, planar3r x mujoco x 1 s at dt = 1 ms, metrics only: {pc['one_engine'] * 1e3:.0f} ms "
          f"({pc['five_engines'] * 1e3:.0f} ms each when 5 engines share the reference)")
    print(f"{results['comparisons']} such comparisons: direct {med['direct']:.2f} s, Dask 1 worker {med['dask1']:.2f} s,"
          f" 2 workers {med['dask2']:.2f} s (medians of {', '.join(f'{k} {len(v)}' for k, v in times.items())})")
    print(f"Dask overhead per comparison (1 worker vs direct), wall: {100 * results['dask_overhead_per_comparison']:+.1f}"
          f" %; CPU (client + scheduler + worker vs direct): {100 * results['dask_cpu_overhead_per_comparison']:+.1f} %"
          " (target <= 5 %)")
    print(f"fixed Dask cost per chunk: task round trip {results['task_round_trip_s'] * 1e3:.1f} ms + Parquet write "
          f"{results['chunk_write_s'] * 1e3:.1f} ms = {100 * results['fixed_cost_per_chunk_rel']:.2f} % of one "
          "comparison's wall time here")
    print(f"speedup of 2 workers over 1: {results['speedup_2_workers_over_1']:.2f} x (target >= 1.7 x on an idle "
          "2-core machine)")
    if "big_sweep" in results:
        b = results["big_sweep"]
        print(f"1,000-comparison sweep end to end with its report: {b['comparisons']} comparisons, "
              f"{b['wall_s']:.0f} s, exit {b['exit_code']}")
        print("\n".join("  " + line for line in b["output"]))
    print(f"wrote {HERE / 'sweep_results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
