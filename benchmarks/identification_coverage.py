"""Identification's intervals measured: coverage and z-scores over seeded datasets (issue 23).

Each dataset is made without crossdyn (tests/identification_truth.py: a 2R arm's M, C, G written out by hand,
inverse dynamics of a prescribed Fourier trajectory plus b·q̇ + f_c·sgn(q̇), Gaussian torque noise), written as a
CSV with only time, q and τ — the filtered path — and identified by ``crossdyn.identification.identify`` with the
arm file's values as the truth.  Printed per base parameter: the mean and standard deviation of the z-scores
z = (β̂ − β)/s.e. (calibrated: mean 0, SD 1) and the fraction of 95 % intervals that hold the truth; pooled
coverage last.  Issue 23's bar: pooled coverage 90–98 %, every |mean z| ≤ 0.3, every SD in [0.8, 1.25].

    python benchmarks/identification_coverage.py [--datasets 50] [--torque-std 0.05] [--estimator ols]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from identification_truth import Arm2R, write_dataset  # noqa: E402

from crossdyn.identification import identify  # noqa: E402
from crossdyn.models import load_arm  # noqa: E402


def coverage(datasets: int, torque_std: float = 0.05, estimator: str = "ols", first_seed: int = 0,
             folder: str | Path | None = None) -> dict:
    """Identify ``datasets`` seeded datasets; returns names, z-scores (datasets × r) and inside flags."""
    arm = Arm2R()
    truth_by_name = arm.base_parameters()
    zs, inside, worst_rel = [], [], 0.0
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(folder or tmp)
        for seed in range(first_seed, first_seed + datasets):
            arm_path, csv_path = write_dataset(out, seed, arm, torque_std=torque_std)
            res = identify(load_arm(str(arm_path)), csv=csv_path, estimator=estimator, truth="spec")
            truth = np.array([truth_by_name[s] for s in res.base.symbols])
            lo, hi = res.est.interval(0.95)
            zs.append((res.est.beta - truth) / res.est.stderr)
            inside.append((lo <= truth) & (truth <= hi))
            worst_rel = max(worst_rel, float(np.max(np.abs(res.est.beta - truth) / np.abs(truth))))
            symbols = list(res.base.symbols)
    z, ins = np.array(zs), np.array(inside)
    return {"symbols": symbols, "z": z, "inside": ins, "pooled": float(ins.mean()),
            "z_mean": z.mean(axis=0), "z_sd": z.std(axis=0, ddof=1), "worst_relative_error": worst_rel}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=int, default=50)
    ap.add_argument("--torque-std", type=float, default=0.05)
    ap.add_argument("--estimator", default="ols")
    a = ap.parse_args()
    t0 = time.perf_counter()
    c = coverage(a.datasets, a.torque_std, a.estimator)
    print(f"identification coverage: {a.datasets} datasets (seeds 0..{a.datasets - 1}), hand-written 2R arm with "
          f"viscous + Coulomb friction, 1 kHz, 10 s, τ noise σ = {a.torque_std} N m, estimator {a.estimator}, "
          f"CSV with q and τ only ({time.perf_counter() - t0:.0f} s)")
    print(f"{'parameter':10} {'mean z':>8} {'SD z':>7} {'coverage 95 %':>14}")
    for k, s in enumerate(c["symbols"]):
        print(f"{s:10} {c['z_mean'][k]:8.3f} {c['z_sd'][k]:7.3f} {100 * c['inside'][:, k].mean():13.1f}%")
    print(f"pooled coverage {100 * c['pooled']:.1f} % (bar 90–98 %); |mean z| max {np.max(np.abs(c['z_mean'])):.3f} "
          f"(bar 0.3); SD z in [{c['z_sd'].min():.3f}, {c['z_sd'].max():.3f}] (bar [0.8, 1.25])")
    ok = (0.90 <= c["pooled"] <= 0.98 and np.all(np.abs(c["z_mean"]) <= 0.3)
          and np.all((0.8 <= c["z_sd"]) & (c["z_sd"] <= 1.25)))
    print("within the bar" if ok else "OUTSIDE the bar")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
