"""crossdyn's spatial reference per call against Pinocchio's C++ (`make bench`): µs per single-state call of
crossdyn's compiled ABA, RNEA and CRBA (:mod:`crossdyn.spatial.fast`, numba), its NumPy path
(:mod:`crossdyn.spatial`) and Pinocchio's ``pin.aba``, ``pin.rnea``, ``pin.crba`` (Python bindings: the figure a
Python caller gets), side by side in one process on example-robot-data's UR5 (6 dof) and pybullet_data's kuka_iiwa
(7 dof), with the ratios and the machine's load; then the wall time of a default ``crossdyn compare <UR5 URDF>`` in a
fresh process.  Issue 38's targets: compiled ABA within 3× Pinocchio per call; the UR5 compare ≤ 10 s on an idle
2-core machine (the load printed says how idle it was).

    python benchmarks/spatial_kernels.py [--calls 200] [--repeats 25] [--no-compare]

Each figure is the best of ``--repeats`` timings of ``--calls`` calls on the same state (the least disturbed by
other processes on a shared machine).  The compiled kernels are compiled (or read from numba's cache) before timing.
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def per_call_us(fn, args, calls: int, repeats: int) -> float:
    """Best of ``repeats`` timings of ``calls`` calls of fn(*args), in µs per call."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        best = min(best, (time.perf_counter() - t) / calls)
    return best * 1e6


def robot_rows(name: str, path: Path, calls: int, repeats: int) -> list[str]:
    """The table's rows for one robot file (numbers checked equal before timing)."""
    import numpy as np
    import pinocchio as pin

    import crossdyn.spatial as sp
    from crossdyn.robots import read_robot
    from crossdyn.spatial import fast

    model = read_robot(path)
    pm = pin.buildModelFromUrdf(str(path))
    pd = pm.createData()
    rng = np.random.default_rng(0)
    q, qd, tau = (rng.uniform(-1.0, 1.0, model.n) for _ in range(3))
    ours = fast.aba(model, q, qd, tau)
    theirs = pin.aba(pm, pd, q, qd, tau)
    assert np.allclose(ours, theirs, rtol=1e-9, atol=1e-9), f"{name}: ABA differs from Pinocchio's"
    fast.rnea(model, q, qd, tau)
    fast.crba(model, q)
    rows = []
    for algo, mine, numpy_fn, pin_fn, args, pargs in (
            ("ABA", fast.aba, sp.aba, pin.aba, (model, q, qd, tau), (pm, pd, q, qd, tau)),
            ("RNEA", fast.rnea, sp.rnea, pin.rnea, (model, q, qd, tau), (pm, pd, q, qd, tau)),
            ("CRBA", fast.crba, sp.crba, pin.crba, (model, q), (pm, pd, q))):
        c = per_call_us(mine, args, calls, repeats)
        npy = per_call_us(numpy_fn, args, max(calls // 20, 20), repeats)
        p = per_call_us(pin_fn, pargs, calls, repeats)
        rows.append(f"{name:10s} {model.n:3d}  {algo:5s} {c:10.2f} {npy:10.1f} {p:10.2f} {c / p:9.2f}x {npy / p:9.0f}x")
    return rows


def compare_wall(path: Path) -> tuple[float, int, float, float]:
    """(seconds, exit status, load before, load after) of a default ``crossdyn compare PATH`` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as out:
        before = os.getloadavg()[0]
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "crossdyn", "compare", str(path), "--out", out, "--quiet"],
                              env=env, capture_output=True, text=True, timeout=900)
        return time.perf_counter() - t, done.returncode, before, os.getloadavg()[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=25)
    ap.add_argument("--no-compare", action="store_true", help="skip the default compare's wall time")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tests"))
    from robot_files import erd_ur5_urdf, pybullet_iiwa_urdf

    from crossdyn.spatial import fast

    cpu = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    print(f"spatial reference per call (µs, best of {args.repeats} × {args.calls} calls)  CPU: {cpu}, "
          f"load {os.getloadavg()[0]:.2f}; compiled kernels: {'numba' if fast.AVAILABLE else 'NOT AVAILABLE (NumPy)'}")
    print(f"{'robot':10s} dof  algo  {'compiled':>10s} {'NumPy':>10s} {'Pinocchio':>10s} {'comp/pin':>10s} "
          f"{'numpy/pin':>10s}")
    urdfs = (("UR5", erd_ur5_urdf()), ("kuka_iiwa", pybullet_iiwa_urdf()))
    for name, path in urdfs:
        for row in robot_rows(name, path, args.calls, args.repeats):
            print(row)
    print(f"load after the table: {os.getloadavg()[0]:.2f} (1-min average)")
    if not args.no_compare:
        seconds, rc, before, after = compare_wall(urdfs[0][1])
        print(f"crossdyn compare {urdfs[0][1].name} (defaults, fresh process): {seconds:.1f} s, exit {rc}; "
              f"load {before:.2f} before, {after:.2f} after (target: <= 10 s on an idle 2-core machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
