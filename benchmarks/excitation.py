"""Excitation optimisers compared (issue 14: optimised cond(Y_base) ≥ 5× lower than a random Fourier trajectory's
under the same bounds).

For each arm and seed: the shipped optimiser (crossdyn.identification.excitation.optimise_excitation: L-BFGS-B on
log cond, 5 harmonics of 0.2 Hz, from the seeded random trajectory) against the random Fourier trajectory it reports
(5 harmonics, 5 s, same seed, same bounds).  Then, on planar2r, the alternatives evaluated for that bullet: Powell,
dual annealing (same 5 × 5 s parametrisation), and 10 harmonics over 10 s (same top frequency, 1 Hz) with L-BFGS-B
run longer.  Each line prints cond optimised, cond random (today's kind: 5 harmonics, 5 s) and the ratio, and for
the 10 × 10 s variant also a random trajectory of its own kind.  Minutes on an idle machine.

    python benchmarks/excitation.py [--seeds 0,1,2,3,4] [--quick]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.optimize as so

from crossdyn.identification.excitation import (FourierTrajectory, condition_number, default_bounds,
                                                optimise_excitation, random_fourier)
from crossdyn.identification.parameters import closed_form_base
from crossdyn.models import get_preset


def alternative(spec, base, bounds, method, harmonics, period, seed, budget):
    """Same unknowns and scaling as optimise_excitation, another scipy optimiser; returns (trajectory, nfev)."""
    n, H = spec.n, harmonics
    samples = int(20 * period)            # the shipped optimiser's density: 100 points per 5 s

    def unpack(x):
        a, b = x[: n * H].reshape(n, H), x[n * H: 2 * n * H].reshape(n, H)
        q0 = bounds.center + 0.5 * bounds.half_range * np.tanh(x[2 * n * H:])
        return FourierTrajectory(q0, a, b, period).scale(bounds)

    def cost(x):
        c = condition_number(spec, base, unpack(x), samples)
        return np.log(c) if np.isfinite(c) else 1e3

    r0 = random_fourier(bounds, H, period, seed)
    x0 = np.concatenate([r0.a.ravel(), r0.b.ravel(), np.zeros(n)])
    if method == "powell":
        res = so.minimize(cost, x0, method="Powell", options={"maxfev": budget})
    elif method == "dual_annealing":
        res = so.dual_annealing(cost, [(-3.0, 3.0)] * len(x0), x0=np.clip(x0, -3, 3), maxfun=budget, seed=seed)
    else:
        res = so.minimize(cost, x0, method="L-BFGS-B", options={"maxiter": budget})
    return unpack(res.x), int(res.nfev)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--quick", action="store_true", help="shipped optimiser only")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    print("shipped optimiser (L-BFGS-B, 5 harmonics, 5 s, maxiter 60) vs random Fourier (5 harmonics, 5 s, same seed)")
    for arm in ("planar2r", "planar3r"):
        spec = get_preset(arm)
        base = closed_form_base(spec)
        for seed in seeds:
            t = time.perf_counter()
            ex = optimise_excitation(spec, base, seed=seed)
            print(f"  {arm} seed {seed}: cond {ex.cond:6.2f} vs random {ex.cond_random:6.1f}: {ex.ratio:5.2f}x "
                  f"({time.perf_counter() - t:.1f} s)", flush=True)
    if args.quick:
        return
    spec = get_preset("planar2r")
    base, bounds = closed_form_base(spec), default_bounds(spec)
    print("planar2r, alternatives (ratio against the same random Fourier trajectory, 5 harmonics, 5 s)")
    for method, H, P, budget in (("powell", 5, 5.0, 4000), ("dual_annealing", 5, 5.0, 6000),
                                 ("L-BFGS-B", 10, 10.0, 150)):
        for seed in seeds:
            t = time.perf_counter()
            traj, nfev = alternative(spec, base, bounds, method, H, P, seed, budget)
            c = condition_number(spec, base, traj, int(80 * P))
            cr = condition_number(spec, base, random_fourier(bounds, 5, 5.0, seed), 400)
            own = ""
            if (H, P) != (5, 5.0):
                co = condition_number(spec, base, random_fourier(bounds, H, P, seed), int(80 * P))
                own = f"; random of its own kind ({H} harmonics, {P:g} s) {co:.1f}: {co / c:.2f}x"
            print(f"  {method}, {H} harmonics, {P:g} s, seed {seed}: cond {c:6.2f} vs random {cr:6.1f}: "
                  f"{cr / c:5.2f}x{own} ({nfev} evaluations, {time.perf_counter() - t:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
