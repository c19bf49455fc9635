"""The machinery every native calibration shares (limits, contact): Nelder–Mead on the residual of a native run
against the law's reference, the RMS joint-angle difference, and MuJoCo's default constraint settings.

The residual of a candidate setting x is r(x) = sqrt(mean((q_native(x) − q_ref)²)) over the run's common
samples (inf when the native run stopped early); :func:`fit` minimises it from several starts and keeps the
best.  The Richardson factor 2ᵖ/(2ᵖ − 1) the native verdicts use is here too (:func:`richardson_factor`).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.optimize import minimize  # type: ignore[import-untyped]

MUJOCO_DEFAULT_SOLREF = (0.02, 1.0)
MUJOCO_DEFAULT_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)


def richardson_factor(order: int) -> float:
    """2ᵖ/(2ᵖ − 1): turns |x(dt) − x(dt/2)| into the estimated error of x(dt) for a method of order p."""
    return 2**order / (2**order - 1)


def fit(residual, starts, max_evaluations: int = 400, xatol: float = 1e-4, fatol: float = 1e-9):
    """The machinery every calibration shares: Nelder–Mead (scipy) from each start in ``starts`` on
    ``residual(x)`` (a run of the native engine with the settings x, against the reference), the best kept.
    Returns (best OptimizeResult, total evaluations).  Used for the limits
    (:mod:`crossdyn.native.limits.calibration`) and for the contact (:mod:`crossdyn.native.contact.calibration`)."""
    best, evals = None, 0
    for x0 in starts:
        r = minimize(residual, np.asarray(x0, dtype=float), method="Nelder-Mead",
                     options={"maxfev": max_evaluations, "xatol": xatol, "fatol": fatol})
        evals += r.nfev
        if best is None or r.fun < best.fun:
            best = r
    return best, evals


def rms(a, b) -> float:
    """RMS of a − b over the common rows (inf when ``a`` is shorter: the run stopped early)."""
    a, b = np.asarray(a), np.asarray(b)
    if len(a) < len(b):
        return float("inf")
    return float(np.sqrt(np.mean((a[: len(b)] - b) ** 2)))


def head(traj, duration: float, dt: float):
    """The first ``duration`` seconds of a Trajectory (same grid)."""
    k = int(round(duration / dt))
    return replace(traj, t=traj.t[: k + 1], q=traj.q[: k + 1], qd=traj.qd[: k + 1], tau=traj.tau[:k])
