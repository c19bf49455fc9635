"""What ``crossdyn audit`` costs (issue 26's target: a 7-joint robot from two files across every installed engine at
1,000 states in <= 10 s on an idle 2-core machine, imports included).

Runs ``crossdyn audit menagerie_iiwa14.xml kuka_iiwa/model.urdf --states 1000`` (the Menagerie iiwa14 fixture and
pybullet_data's iiwa, 7 revolute joints each; every file engine by default: each reads the formats it can) in a
fresh process ``--repeats`` times and prints the median wall time with its spread [min - max], the CPU time of the
child (user + system) and the CPU with its load average: on a loaded machine the wall time is the load's, and the
CPU time is what the audit itself spent.  Also ``--no-plots`` (the figures' share).

    python benchmarks/audit.py [--repeats 3] [--states 1000]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import robot_files as rf  # noqa: E402

TARGET_S = 10.0


def cpu_name() -> str:
    name = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"


def timed(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall s, child CPU s, exit status) of ``python -m crossdyn ARGV`` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "crossdyn", *argv], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--states", type=int, default=1000)
    args = ap.parse_args()
    files = [str(rf.menagerie_iiwa14_xml()), str(rf.pybullet_iiwa_urdf())]
    print(f"crossdyn audit: iiwa14 (Menagerie MJCF) + iiwa (pybullet_data URDF), 7 joints, every installed engine, "
          f"{args.states} states; median of {args.repeats} fresh processes  CPU: {cpu_name()}")
    with tempfile.TemporaryDirectory() as work:
        for label, extra in (("with plots", []), ("--no-plots", ["--no-plots"])):
            runs = [timed(["audit", *files, "--states", str(args.states), "--quiet", "--out", f"{work}/o", *extra],
                          Path(work)) for _ in range(args.repeats)]
            walls = [w for w, _, _ in runs]
            cpus = [c for _, c, _ in runs]
            codes = {c for _, _, c in runs}
            print(f"  {label:11s} wall {statistics.median(walls):6.2f} s [{min(walls):.2f} - {max(walls):.2f}]  "
                  f"CPU {statistics.median(cpus):6.2f} s  exit {sorted(codes)}  "
                  f"(target <= {TARGET_S:g} s wall on an idle 2-core machine)")
    print(f"  load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
