"""Calibration: the MuJoCo ``solreflimit``/``solimplimit`` — and PyBullet's ``jointLimitForce``/``erp``
(:func:`calibrate_pybullet_limits`) — that best reproduce the compliant limit law (issue 12).

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

Only the limits are native in a calibration run: it gets the experiment's applied Coulomb law (``exp.friction``),
the tip contact law and effort saturation as the reference does, so that the fit sees the limit alone (without the
friction law a joint that should stick slides, and the fit absorbs that into the limit settings).
"""
from __future__ import annotations

import numpy as np

from crossdyn.drive.runner import run_engine
from crossdyn.native.experiment import Experiment, experiment_form
from crossdyn.native.fitting import MUJOCO_DEFAULT_SOLIMP, MUJOCO_DEFAULT_SOLREF, fit, head, rms

__all__ = ["MUJOCO_DEFAULT_SOLIMP", "MUJOCO_DEFAULT_SOLREF", "PYBULLET_DEFAULT_ERP", "PYBULLET_INERT_SETTINGS",
           "calibrate_mujoco_limits", "calibrate_pybullet_limits", "fit", "mujoco_limit_options", "rms"]


def _solimp(d: float) -> tuple:
    return (d, d, 0.001, 0.5, 2.0)


def _reference(exp: Experiment, reference):
    """``reference``, or the analytic reference engine's run of the experiment."""
    if reference is not None:
        return reference
    with exp.engine("analytic-reference") as ref_eng:
        return run_engine(ref_eng, exp.profile, exp.q0, exp.qd0, exp.duration)


def mujoco_limit_options(engine: str, fitted) -> str:
    """The engine name that runs MuJoCo's native limits with the fitted ``(solref, solimp)`` of each limited joint
    (in joint order): ``ENGINE@native_limits=true@limit_solref=TC1,DR1,…@limit_solimp=D1,D1,W,M,P,…``, every
    number at full precision (``repr``: the residual is rugged, a rounded value is another fit)."""
    solref = ",".join(repr(float(v)) for r, _ in fitted for v in r)
    solimp = ",".join(repr(float(v)) for _, i in fitted for v in i)
    return f"{engine}@native_limits=true@limit_solref={solref}@limit_solimp={solimp}"


@experiment_form("engine", "reference", "max_evaluations", "warm_start_fraction")
def calibrate_mujoco_limits(exp: Experiment, engine: str = "mujoco-rk4", reference=None, max_evaluations: int = 400,
                            warm_start_fraction: float = 0.4) -> dict:
    """Fit MuJoCo's limit solref/solimp, per limited joint, to the law's reference (see the module docstring).

    ``reference``: a Trajectory of the law on the same grid (default: the analytic reference engine's run).
    Two Nelder–Mead starts (MuJoCo's default limit, and a slow lightly damped one: timeconst 0.1 s, dampratio
    0.3), and (``warm_start_fraction``) the fit of the run's first part; the best kept.  Returns {"solreflimit": per joint [timeconst, dampratio], "solimplimit": per joint,
    "residual_rms_rad", "default_residual_rms_rad", "direct_residual_rms_rad", "improvement_over_default",
    "evaluations", "options"} — ``options`` the engine name that reruns the fit (:func:`mujoco_limit_options`).
    """
    spec, profile, q0, qd0, duration, dt = exp.spec, exp.profile, exp.q0, exp.qd0, exp.duration, exp.dt
    reference = _reference(exp, reference)
    limited = [j for j, link in enumerate(spec.links) if link.limit_stiffness > 0]

    def unpack(x):
        x = np.asarray(x, dtype=float).reshape(len(limited), 3)
        # MuJoCo's own clamps (timeconst >= 2 dt: refsafe; 1e-4 <= d <= 0.9999), made explicit so that the fitted
        # values are the ones it runs and pass the limit_solref/limit_solimp checks
        return [((max(float(np.exp(a)), 2 * dt), float(np.exp(b))),
                 _solimp(min(max(float(1.0 / (1.0 + np.exp(-c))), 1e-4), 0.9999))) for a, b, c in x]

    with exp.engine(f"{engine}@native_limits=true") as eng:  # the applied Coulomb law, if any, as the reference
        def residual(settings) -> float:
            for j, (solref, solimp) in zip(limited, settings, strict=False):
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
            part = Experiment(spec, profile, q0, qd0, duration * warm_start_fraction, dt, exp.friction)
            short = calibrate_mujoco_limits(part, engine, reference=head(reference, part.duration, dt),
                                            max_evaluations=max_evaluations, warm_start_fraction=0.0)
            evals += short["evaluations"]
            starts.append(np.concatenate([[np.log(r[0]), np.log(r[1]), np.log(i[0] / (1 - i[0]))]
                                          for r, i in zip(short["solreflimit"], short["solimplimit"], strict=False)]))
        best, n = fit(lambda x: residual(unpack(x)), starts, max_evaluations)
        evals += n
    fitted = unpack(best.x)
    return {"engine": engine, "joints": [j + 1 for j in limited],
            "solreflimit": [list(f[0]) for f in fitted], "solimplimit": [list(f[1]) for f in fitted],
            "options": mujoco_limit_options(engine, fitted),
            "residual_rms_rad": float(best.fun), "default_residual_rms_rad": default,
            "direct_residual_rms_rad": direct,
            "improvement_over_default": float(default / best.fun) if best.fun > 0 else float("inf"),
            "evaluations": int(evals)}


PYBULLET_DEFAULT_ERP = 0.2
"""PyBullet's default ``erp`` (measured: erp = 0.2 given explicitly reproduces the default run bit for bit)."""

PYBULLET_INERT_SETTINGS = ("contactERP", "globalCFM", "jointFeedbackMode", "restitution")
"""Settings measured to leave PyBullet's native limit unchanged (planar2r-limits, 1.2 s: identical runs;
tests/test_limit_calibration_pybullet.py)."""


@experiment_form("engine", "reference", "max_evaluations")
def calibrate_pybullet_limits(exp: Experiment, engine: str = "pybullet", reference=None,
                              max_evaluations: int = 300) -> dict:
    """Fit the two settings that change PyBullet's native (hard) joint limit to the law's reference.

    Bullet's multibody limit is a velocity-level unilateral constraint with no stiffness or damping: it stops the
    joint within a step and pushes a penetration back by the fraction ``erp`` per step.  What changes it:
    ``jointLimitForce`` (``pybullet@limit_force``, N m, per limited joint: caps the limit's torque, so the stop
    gives way at that torque) and ``erp`` (``pybullet@limit_erp``: world-global, one value for every limit).
    Neither makes it a spring: the fit is of a torque-capped stop with first-order push-back to the law's
    spring–damper.  Fitted with the shared :func:`fit` (Nelder–Mead over log jointLimitForce per joint and
    logit erp) on the RMS joint-angle difference of ``pybullet@native_limits=true`` to the reference, from the
    best two points of a coarse grid (force 0.3, 1, 3, 10 N m per joint × erp 0.02, 0.05, 0.2, 0.8).

    Returns {"engine", "joints", "limit_force" (per joint, N m), "limit_erp", "world_global": ["limit_erp"],
    "options" (the engine name that reproduces it), "residual_rms_rad", "default_residual_rms_rad" (PyBullet's
    defaults: uncapped, erp 0.2), "improvement_over_default", "evaluations", "model" (what the fitted stop is)}.
    """
    spec, profile, q0, qd0, duration = exp.spec, exp.profile, exp.q0, exp.qd0, exp.duration
    reference = _reference(exp, reference)
    limited = [j for j, link in enumerate(spec.links) if link.limit_stiffness > 0 and link.limits is not None]
    name = engine if "native_limits" in engine else f"{engine}@native_limits=true"

    def unpack(x):
        x = np.asarray(x, dtype=float)
        return [float(np.exp(v)) for v in x[:-1]], float(1.0 / (1.0 + np.exp(-x[-1])))

    with exp.engine(name) as eng:  # the applied Coulomb law, if any, as the reference gets it
        def residual_of(forces, erp) -> float:
            eng.set_limit_settings(limit_force=forces, limit_erp=erp)
            tr = run_engine(eng, profile, q0, qd0, duration, limit_law=False)
            return rms(tr.q, reference.q) if tr.status == "ok" else float("inf")

        default_tr = run_engine(eng, profile, q0, qd0, duration, limit_law=False)  # nothing set yet
        default = rms(default_tr.q, reference.q) if default_tr.status == "ok" else float("inf")
        grid = []
        for forces in np.array(np.meshgrid(*[[0.3, 1.0, 3.0, 10.0]] * len(limited))).T.reshape(-1, len(limited)):
            for erp in (0.02, 0.05, 0.2, 0.8):
                grid.append((residual_of(list(forces), erp), list(forces), erp))
        grid.sort(key=lambda g: g[0])
        starts = [np.concatenate([np.log(f), [np.log(e / (1 - e))]]) for _, f, e in grid[:2]]
        best, evals = fit(lambda x: residual_of(*unpack(x)), starts, max_evaluations, xatol=1e-3)
        forces, erp = unpack(best.x)
    force_opt = ",".join(repr(f) for f in forces)  # full precision: a long run's residual is rugged
    return {"engine": engine, "joints": [j + 1 for j in limited], "limit_force": forces, "limit_erp": erp,
            "world_global": ["limit_erp"],
            "options": f"{name}@limit_force={force_opt}@limit_erp={erp!r}",
            "residual_rms_rad": float(best.fun), "default_residual_rms_rad": default,
            "improvement_over_default": float(default / best.fun) if best.fun > 0 else float("inf"),
            "evaluations": int(evals + len(grid) + 1),
            "model": "a torque-capped stop (jointLimitForce) pushing penetration back by erp per step, fitted to "
                     "the law's spring-damper; PyBullet's limit has no stiffness or damping",
            "inert_settings": list(PYBULLET_INERT_SETTINGS)}
