"""The spatial presets' symbolic M, C, G (`make bench`): cold derivation time per preset, the time to read the
shipped file, and the first-use compile (lambdify with cse), each in a fresh process (median of 3 runs), beside
the CPU and its load.  The issue's plain-SymPy figures (RP 0.9 s, RPP 1.0 s, SCARA 3.7 s, RRR 15.6 s unsimplified)
are the comparison; this derivation works in SymPy's polynomial ring (crossdyn.analytic.spatial_symbolic).

    python benchmarks/spatial_symbolic.py [--runs 3]

Needs crossdyn.models.spatial_presets for the derivation (the shipped files are read without it).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
import sympy, numpy as np
from crossdyn.analytic import spatial_generated as sg, spatial_symbolic as ss
name = {name!r}
out = {{}}
try:
    from crossdyn.models.spatial_presets import SPATIAL_PRESETS
    from crossdyn.analytic.spatial_from_spec import sym_arm
    arm, _ = sym_arm(SPATIAL_PRESETS[name]())
    t = time.perf_counter(); ss.derive(arm); out["derive_s"] = time.perf_counter() - t
except ImportError:
    pass
t = time.perf_counter(); d, v = sg.shipped(name); out["read_s"] = time.perf_counter() - t
Q = np.zeros((4, d.n))
t = time.perf_counter(); d.mass_matrix(Q, v); d.coriolis_matrix(Q, Q, v); d.gravity(Q, v)
out["compile_s"] = time.perf_counter() - t
print(json.dumps(out))
"""


def one(name: str) -> dict:
    code = CHILD.format(root=str(ROOT), name=name)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from crossdyn.analytic.spatial_generated import shipped_names

    cpu = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    print(f"spatial symbolic M, C, G (median of {args.runs} fresh processes; seconds)  CPU: {cpu}")
    print(f"{'preset':18s} {'derive':>8s} {'read shipped':>13s} {'compile':>8s}")
    results = {}
    for name in shipped_names():
        runs = [one(name) for _ in range(args.runs)]
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        results[name] = med
        derive = f"{med['derive_s']:8.3f}" if "derive_s" in med else f"{'n/a':>8s}"
        print(f"{name:18s} {derive} {med['read_s']:13.3f} {med['compile_s']:8.3f}")
    if not any("derive_s" in r for r in results.values()):
        print("(derive: n/a — crossdyn.models.spatial_presets is not installed in this checkout)")
    (HERE / "spatial_symbolic.json").write_text(json.dumps({"cpu": cpu, "presets": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
