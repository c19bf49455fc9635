"""Calibration: the MuJoCo ``solreflimit``/``solimplimit`` that best reproduce the compliant limit law (issue 12).

MuJoCo users ask how N m/rad and N m s/rad become ``solref``/``solimp`` (mujoco #732): the limit is a soft
constraint whose reference acceleration a_ref = −b v − k r (standard form: k, b from ``solref = (timeconst,
dampratio)`` and the impedance d from ``solimp``; direct form: ``solref = (−k, −c)``) is scaled into a force by the
constraint's effective mass and impedance, so no closed form maps the joint-space law onto it for a moving arm.
:func:`calibrate_mujoco_limits` answers it for *this* arm and motion by fitting: the native MuJoCo run
(``mujoco…@native_limits=true`` with ``jnt_solref``/``jnt_solimp`` of the limited joints set to the candidate)
against the event-exact reference of the law, minimising the RMS joint-angle difference over the run
(scipy.optimize Nelder–Mead, per limited joint, over log timeconst, log dampratio and the impedance
d = dmin = dmax; solimp's
width 0.001, midpoint 0.5, power 2 kept at MuJoCo's defaults).  Reported with the residual, beside the residual
of MuJoCo's default limit (solref (0.02, 1), solimp (0.9, 0.95, 0.001, 0.5, 2)) and of the direct form
(−k, −c) crossdyn writes today.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from crossdyn.drive.runner import run_engine
from crossdyn.engines import make_engine

MUJOCO_DEFAULT_SOLREF = (0.02, 1.0)
MUJOCO_DEFAULT_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)


def _solimp(d: float) -> tuple:
    return (d, d, 0.001, 0.5, 2.0)


def fit(residual, starts, max_evaluations: int = 400, xatol: float = 1e-4, fatol: float = 1e-9):
    """The machinery every calibration shares: Nelder–Mead (scipy) from each start in ``starts`` on
    ``residual(x)`` (a run of the native engine with the settings x, against the reference), the best kept.
    Returns (best OptimizeResult, total evaluations).  Used for the limits here and for the contact
    (:mod:`crossdyn.drive.contact_calibration`)."""
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


def _head(traj, duration: float, dt: float):
    """The first ``duration`` seconds of a Trajectory (same grid)."""
    from dataclasses import replace

    k = int(round(duration / dt))
    return replace(traj, t=traj.t[: k + 1], q=traj.q[: k + 1], qd=traj.qd[: k + 1], tau=traj.tau[:k])


def calibrate_mujoco_limits(spec, profile, q0, qd0, duration: float, dt: float = 1e-3, engine: str = "mujoco-rk4",
                            reference=None, max_evaluations: int = 400, warm_start_fraction: float = 0.4) -> dict:
    """Fit MuJoCo's limit solref/solimp, per limited joint, to the law's reference (see the module docstring).

    ``reference``: a Trajectory of the law on the same grid (default: the analytic reference engine's run).
    Two Nelder–Mead starts (MuJoCo's default limit, and a slow lightly damped one: timeconst 0.1 s, dampratio
    0.3), and (``warm_start_fraction``) the fit of the run's first part; the best kept.  Returns {"solreflimit": per joint [timeconst, dampratio], "solimplimit": per joint,
    "residual_rms_rad", "default_residual_rms_rad", "direct_residual_rms_rad", "improvement_over_default",
    "evaluations"}.
    """
    if reference is None:
        with make_engine("analytic-reference", spec, dt) as ref_eng:
            reference = run_engine(ref_eng, profile, q0, qd0, duration)
    limited = [j for j, l in enumerate(spec.links) if l.limit_stiffness > 0]

    def unpack(x):
        x = np.asarray(x, dtype=float).reshape(len(limited), 3)
        return [((float(np.exp(a)), float(np.exp(b))), _solimp(min(float(1.0 / (1.0 + np.exp(-c))), 0.9999)))
                for a, b, c in x]

    with make_engine(f"{engine}@native_limits=true", spec, dt) as eng:
        def residual(settings) -> float:
            for j, (solref, solimp) in zip(limited, settings):
                eng.model.jnt_solref[j] = solref
                eng.model.jnt_solimp[j] = solimp
            tr = run_engine(eng, profile, q0, qd0, duration, limit_law=False)
            if tr.status != "ok" or len(tr.q) < len(reference.q):
                return float("inf")
            return float(np.sqrt(np.mean((tr.q - reference.q[: len(tr.q)]) ** 2)))

        direct = residual([(tuple(eng.model.jnt_solref[j]), tuple(eng.model.jnt_solimp[j])) for j in limited])
        default = residual([(MUJOCO_DEFAULT_SOLREF, MUJOCO_DEFAULT_SOLIMP)] * len(limited))
        evals = 0
        starts = [np.tile([np.log(tc), np.log(dr), np.log(0.9 / 0.1)], len(limited))
                  for tc, dr in (MUJOCO_DEFAULT_SOLREF, (0.1, 0.3))]
        if warm_start_fraction and duration * warm_start_fraction >= 10 * dt:
            # a long run's residual is rugged (small changes early move every later contact): fit the first
            # part of the run first and start the full fit from there too
            short = calibrate_mujoco_limits(spec, profile, q0, qd0, duration * warm_start_fraction, dt, engine,
                                            reference=_head(reference, duration * warm_start_fraction, dt),
                                            max_evaluations=max_evaluations, warm_start_fraction=0.0)
            evals += short["evaluations"]
            starts.append(np.concatenate([[np.log(r[0]), np.log(r[1]), np.log(i[0] / (1 - i[0]))]
                                          for r, i in zip(short["solreflimit"], short["solimplimit"])]))
        best, n = fit(lambda x: residual(unpack(x)), starts, max_evaluations)
        evals += n
    fitted = unpack(best.x)
    return {"engine": engine, "joints": [j + 1 for j in limited],
            "solreflimit": [list(f[0]) for f in fitted], "solimplimit": [list(f[1]) for f in fitted],
            "residual_rms_rad": float(best.fun), "default_residual_rms_rad": default,
            "direct_residual_rms_rad": direct,
            "improvement_over_default": float(default / best.fun) if best.fun > 0 else float("inf"),
            "evaluations": int(evals)}
