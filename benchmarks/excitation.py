"""Optimised vs random excitation, per preset x seed (issue 14: the optimised cond(Y_base) at least 5x lower than a
random Fourier trajectory's under the same bounds).

For each preset `crossdyn identify` accepts (not planar3r-geared: armature is refused) and each seed, the command's
default excitation (crossdyn.identification.excitation.optimise_excitation: 20 harmonics of 0.1 Hz, SLSQP with the
bounds as linear constraints, 2 starts) against the random Fourier trajectory it reports (same harmonics, period,
bounds and seed: standard normal coefficients scaled onto the bounds).  Printed side by side:

- cond(Y_base) optimised, cond random, the ratio, and the optimisation time (the command's definition: columns as
  they are, 800 samples of the 10 s period);
- the ratio against the random trajectory of the first default family (5 harmonics of 0.2 Hz, same seed): the
  random cond depends on the family (more harmonics: larger accelerations from the top ones, scaled down further),
  so this shows how much of the ratio the family gives;
- the same two numbers with unit-norm columns (cond of Y_base D, D = diag(1/|column|), the scale-free variant).

Then (unless --quick) the earlier families optimised with the same optimiser, each against its own random
trajectory: 5 and 10 harmonics of 0.2 Hz (5 s).  The regressor depends only on link lengths and gravity, so presets
of the same geometry (planar2r, planar2r-pointmass, planar2r-floor; planar3r, planar3r-general, -friction, -wall)
print the same numbers.  Times: wall clock and the process's CPU time (the machine is shared; the CPU time counts
both cores where BLAS uses them).

    python benchmarks/excitation.py [--seeds 0,1,2,3,4] [--presets a,b] [--quick]
"""
from __future__ import annotations

import argparse
import time

from crossdyn.identification.excitation import condition_number, optimise_excitation, random_fourier
from crossdyn.identification.parameters import closed_form_base
from crossdyn.models import get_preset
from crossdyn.models.presets import PRESETS

IDENTIFIABLE = [name for name in PRESETS if name != "planarNr" and not get_preset(name).has_armature]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--presets", default=",".join(IDENTIFIABLE))
    ap.add_argument("--quick", action="store_true", help="planar2r and planar3r, default family only")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    presets = ["planar2r", "planar3r"] if args.quick else args.presets.split(",")
    print("default excitation (20 harmonics of 0.1 Hz, SLSQP, 2 starts) vs the random Fourier trajectory it reports")
    print(f"{'preset':20s} seed  cond opt  random  ratio | random 5h  ratio | unit-norm cols: opt  random  ratio"
          "   wall (CPU) s")
    worst = {}
    for arm in presets:
        spec = get_preset(arm)
        base = closed_form_base(spec)
        for seed in seeds:
            t, c = time.perf_counter(), time.process_time()
            ex = optimise_excitation(spec, base, seed=seed)
            dt, dc = time.perf_counter() - t, time.process_time() - c
            r5 = condition_number(spec, base, random_fourier(ex.bounds, 5, 5.0, seed), 400)
            k = 80 * int(ex.trajectory.period)   # the command's sample count
            eo = condition_number(spec, base, ex.trajectory, k, equilibrate=True)
            er = condition_number(spec, base, ex.random, k, equilibrate=True)
            worst[arm] = min(worst.get(arm, float("inf")), ex.ratio)
            print(f"{arm:20s} {seed:4d}  {ex.cond:8.2f} {ex.cond_random:7.1f} {ex.ratio:5.2f}x | {r5:9.1f} "
                  f"{r5 / ex.cond:5.2f}x | {eo:19.2f} {er:7.2f} {er / eo:5.2f}x  {dt:5.1f} ({dc:.1f})", flush=True)
    print("smallest ratio per preset: " + ", ".join(f"{k} {v:.2f}x" for k, v in worst.items()))
    if args.quick:
        return
    for H in (5, 10):
        print(f"earlier family: {H} harmonics of 0.2 Hz (5 s), same optimiser, vs its own random trajectory")
        for arm in ("planar2r", "planar3r", "planar2r-limits"):
            spec = get_preset(arm)
            base = closed_form_base(spec)
            for seed in seeds:
                t = time.perf_counter()
                ex = optimise_excitation(spec, base, harmonics=H, period=5.0, seed=seed)
                print(f"{arm:20s} {seed:4d}  {ex.cond:8.2f} {ex.cond_random:7.1f} {ex.ratio:5.2f}x  "
                      f"{time.perf_counter() - t:5.1f} s", flush=True)

if __name__ == "__main__":
    main()
