"""Calibration of the native contact: the engine settings that best reproduce k and c on this arm (issue 13).

The same machinery as the limits' (:func:`crossdyn.native.fitting.fit`: Nelder–Mead on a run of the
native engine against the law's reference, RMS joint-angle difference over the run):

- **MuJoCo** (:func:`calibrate_mujoco_contact`): the direct ``solref = (−k', −c')`` (log k', log c') and the
  impedance d = dmin = dmax of ``solimp`` (logit d, width 0.001, midpoint 0.5, power 2), on the tip sphere and the
  obstacle planes.  Reported beside the residual of crossdyn's direct setting (−k A0, −c A0) with d = 1e-4
  (:mod:`crossdyn.models.mjcf`), of the literal (−k, −c) with MuJoCo's default solimp (0.9, 0.95, 0.001, 0.5, 2),
  and of MuJoCo's default contact (solref (0.02, 1), same solimp).
- **PyBullet** (:func:`calibrate_pybullet_contact`): ``contactStiffness`` and ``contactDamping`` (log each),
  beside the residual of the direct setting (k, c).

The improvement factor is the direct setting's residual over the fitted one (and over the default's).  Each result
carries ``options``: the engine name with the fitted values (``mujoco@contact_solref=-32620,-95.15@contact_solimp=
0.84,0.84,0.001,0.5,2``, ``pybullet@contact_stiffness=K@contact_damping=C``), every number at full precision
(``repr``), for ``compare ARM --native --engines NAME``: its native run (``NAME@native_contact=true``) reproduces
``residual_rms_rad`` — MuJoCo's compiled model holds exactly the fitted floats (tested) — while its applied-mode run
is the plain engine's (the values wait for the native contact).
"""
from __future__ import annotations

import numpy as np

from crossdyn.native.contact.reference import reference_run
from crossdyn.native.contact.runs import run_native
from crossdyn.native.experiment import Experiment, experiment_form
from crossdyn.native.fitting import MUJOCO_DEFAULT_SOLIMP, MUJOCO_DEFAULT_SOLREF, fit, rms


def _csv(values) -> str:
    """Numbers as an option value, each at full precision: "a,b,..."."""
    return ",".join(repr(float(v)) for v in values)


def _base(name: str) -> str:
    return name.replace("@native_contact=true", "")


def mujoco_contact_options(name: str, solref, solimp) -> str:
    """The engine name (``name`` without ``@native_contact=true``) with MuJoCo's native contact set to
    ``solref``/``solimp``: ``compare --native`` runs it natively with them (and in applied mode as it is)."""
    return f"{_base(name)}@contact_solref={_csv(solref)}@contact_solimp={_csv(solimp)}"


def pybullet_contact_options(name: str, stiffness: float, damping: float) -> str:
    """The engine name with PyBullet's native contact set to the tip's contactStiffness/contactDamping."""
    return f"{_base(name)}@contact_stiffness={float(stiffness)!r}@contact_damping={float(damping)!r}"


def _ratio(a: float, b: float) -> float:
    return float(a / b) if b > 0 else float("inf")


@experiment_form("engine", "reference", "max_evaluations")
def calibrate_mujoco_contact(exp: Experiment, engine: str = "mujoco", reference=None,
                             max_evaluations: int = 150) -> dict:
    """Fit MuJoCo's contact solref/solimp to the law's reference (module docstring).  Returns {"engine",
    "solref", "solimp", "options" (the engine name that runs them), "residual_rms_rad", "direct_residual_rms_rad"
    (crossdyn's setting), "literal_residual_rms_rad" ((−k, −c), default solimp), "default_residual_rms_rad", "improvement_over_direct", "improvement_over_literal",
    "improvement_over_default", "evaluations"}."""
    spec, profile, q0, qd0, duration = exp.spec, exp.profile, exp.q0, exp.qd0, exp.duration
    reference = reference if reference is not None else reference_run(exp)
    c = spec.contact
    name = engine if "native_contact" in engine else f"{engine}@native_contact=true"
    with exp.engine(name) as eng:  # the applied Coulomb law, if any, as the reference gets it
        direct_ref = tuple(float(x) for x in eng.model.geom_solref[eng.model.geom("tip_sphere").id])
        direct_imp = tuple(float(x) for x in eng.model.geom_solimp[eng.model.geom("tip_sphere").id])

        def residual_of(solref, solimp) -> float:
            eng.set_contact(solref, solimp)
            tr = run_native(eng, profile, q0, qd0, duration)
            return rms(tr.q, reference.q) if tr.status == "ok" else float("inf")

        def unpack(x):
            d = float(np.clip(1.0 / (1.0 + np.exp(-x[2])), 1e-4, 0.9999))
            return (-float(np.exp(x[0])), -float(np.exp(x[1]))), (d, d, 0.001, 0.5, 2.0)

        direct = residual_of(direct_ref, direct_imp)
        literal = residual_of((-c.stiffness, -c.damping), MUJOCO_DEFAULT_SOLIMP)
        default = residual_of(MUJOCO_DEFAULT_SOLREF, MUJOCO_DEFAULT_SOLIMP)
        logit = float(np.log(direct_imp[0] / (1 - direct_imp[0])))
        starts = [[np.log(-direct_ref[0]), np.log(-direct_ref[1]), logit],
                  [np.log(c.stiffness), np.log(c.damping), np.log(0.9 / 0.1)]]
        best, evals = fit(lambda x: residual_of(*unpack(x)), starts, max_evaluations)
        solref, solimp = unpack(best.x)
    return {"engine": name, "solref": list(solref), "solimp": list(solimp), "residual_rms_rad": float(best.fun),
            "options": mujoco_contact_options(name, solref, solimp),
            "direct_solref": list(direct_ref), "direct_solimp": list(direct_imp),
            "direct_residual_rms_rad": direct, "literal_residual_rms_rad": literal,
            "default_residual_rms_rad": default,
            "improvement_over_direct": _ratio(direct, best.fun), "improvement_over_literal": _ratio(literal, best.fun),
            "improvement_over_default": _ratio(default, best.fun), "evaluations": int(evals + 3)}


@experiment_form("engine", "reference", "max_evaluations")
def calibrate_pybullet_contact(exp: Experiment, engine: str = "pybullet", reference=None,
                               max_evaluations: int = 80) -> dict:
    """Fit PyBullet's contactStiffness/contactDamping to the law's reference (module docstring).  Returns
    {"engine", "contact_stiffness", "contact_damping", "options", "residual_rms_rad", "direct_residual_rms_rad",
    "improvement_over_direct", "evaluations"}."""
    spec, profile, q0, qd0, duration = exp.spec, exp.profile, exp.q0, exp.qd0, exp.duration
    reference = reference if reference is not None else reference_run(exp)
    c = spec.contact
    name = engine if "native_contact" in engine else f"{engine}@native_contact=true"
    with exp.engine(name) as eng:  # the applied Coulomb law, if any, as the reference gets it
        def residual_of(k, b) -> float:
            eng.set_contact(k, b)
            tr = run_native(eng, profile, q0, qd0, duration)
            return rms(tr.q, reference.q) if tr.status == "ok" else float("inf")

        direct = residual_of(c.stiffness, c.damping)
        starts = [[np.log(c.stiffness), np.log(max(c.damping, 1e-3))]]
        best, evals = fit(lambda x: residual_of(float(np.exp(x[0])), float(np.exp(x[1]))), starts, max_evaluations,
                          xatol=1e-3)
    k, b = float(np.exp(best.x[0])), float(np.exp(best.x[1]))
    return {"engine": name, "contact_stiffness": k, "contact_damping": b, "options": pybullet_contact_options(name, k, b),
            "residual_rms_rad": float(best.fun), "direct_residual_rms_rad": direct,
            "improvement_over_direct": _ratio(direct, best.fun), "evaluations": int(evals + 1)}


def calibrated_engines(path, spec, dt: float, limits: bool = False) -> dict[str, str]:
    """The engine names that run the contact calibration in ``path`` (a ``compare --calibrate-contact`` output
    folder or its ``summary.json``): {"mujoco": …, "pybullet": …}, those that were calibrated; with ``limits`` also
    the limit calibration's (``compare --calibrate-limits``) as {"mujoco limits": …, "pybullet limits": …}.
    :class:`InputError` naming the file and the value when it cannot be read, holds no such calibration, was fitted
    on another arm (``spec`` differs from the summary's) or at another time step than ``dt`` (the fit is for
    that step)."""
    import json
    from pathlib import Path

    from crossdyn.errors import InputError

    file = Path(path)
    file = file / "summary.json" if file.is_dir() else file
    try:
        summary = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InputError(f"--calibrated {path}: cannot read a compare summary.json from {file} ({e})", "--calibrated",
                         str(path)) from None
    summary = summary if isinstance(summary, dict) else {}
    cal = dict((summary.get("contact") or {}).get("calibration") or {})
    if limits:
        lim = summary.get("limits") or {}
        cal.update({"mujoco limits": lim.get("calibration"), "pybullet limits": lim.get("calibration_pybullet")})
    engines = {k: v["options"] for k, v in cal.items() if isinstance(v, dict) and isinstance(v.get("options"), str)}
    if not engines:
        what, how = ("contact calibration and no limit", "--calibrate-contact or --calibrate-limits") if limits else \
            ("contact", "--calibrate-contact")
        raise InputError(f"--calibrated {path}: {file} holds no {what} calibration with its engine string (run "
                         f"crossdyn compare ARM {how} first)", "--calibrated", str(path))
    if summary.get("spec") != json.loads(json.dumps(spec.to_dict())):
        raise InputError(f"--calibrated {path}: the calibration was fitted on arm {summary.get('arm')!r} as written "
                         f"in {file}, which differs from {spec.name!r} as given", "--calibrated", str(path))
    if summary.get("dt") != dt:
        raise InputError(f"--calibrated {path}: the calibration was fitted at dt = {summary.get('dt')!r} s, not "
                         f"{dt!r} s: give --dt {summary.get('dt')!r}", "--calibrated", str(path))
    return engines
