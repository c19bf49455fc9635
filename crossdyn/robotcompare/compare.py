"""Compare every file engine against crossdyn's spatial reference on one robot file: :func:`compare_robot`.

The file is read once (:func:`crossdyn.robots.read_robot`); every engine reads the same file
(:func:`crossdyn.engines.files.make_file_engine`) with its traps neutralised and listed in its ``config``; every
engine runs the same tracking law on its own state (:mod:`crossdyn.robotcompare.motion`) and is measured on the
planar comparison's metric groups and tolerances (:mod:`crossdyn.robotcompare.measure`).  The reference is
crossdyn's own spatial model with the file's armature and damping, integrated by DOP853 restarted at every hold
interval (:mod:`crossdyn.robotcompare.runs`).

The file's viscous damping is in the reference and in every engine's stepping (each engine's ``damping`` option
switches it off); its Coulomb friction is in neither (set-valued stiction has no smooth reference; a note names it).
Verdicts, failures and exit statuses are the planar comparison's
(:func:`crossdyn.comparison.compare.engine_failures`, :func:`~crossdyn.comparison.compare.verdict_of`).
"""
from __future__ import annotations

import math

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from crossdyn.comparison.compare import engine_failures, engine_inconclusive, engine_not_exercised, verdict_of
from crossdyn.comparison.context import Outcome
from crossdyn.comparison.references import StaticStates
from crossdyn.comparison.result import EngineRun, check_totals
from crossdyn.robots.model import RobotModel
from crossdyn.robotcompare import motion, runs
from crossdyn.robotcompare.measure import RobotJob, measure_file_engine
from crossdyn.robotcompare.options import DEFAULT_LEFT_OUT, RobotCompareOptions
from crossdyn.robotcompare.plan import MotionPlan, plan_motion, unstable_step
from crossdyn.status import RunStatus, Verdict

SCHEMA = "crossdyn.robot-compare/1"


@dataclass(frozen=True)
class RobotComparison:
    """The result: the model, the job (reference, torques), each engine's run, and the ``summary.json`` document."""

    model: RobotModel
    job: RobotJob
    motion: motion.DesiredMotion
    runs: Mapping[str, EngineRun]
    summary: dict = field(default_factory=dict)

    @property
    def verdict(self) -> Verdict:
        return Verdict(self.summary["verdict"])


Files = Callable[[str], "RobotModel | str"]
"""Engine spec → the model whose file it loads, or why it cannot (a spatial arm spec's URDF or MJCF)."""


def select_engines(model: RobotModel, named: tuple[str, ...] | None,
                   files: Files | None = None) -> tuple[list[str], dict[str, str], list[str]]:
    """(engine specs to run, {spec: why it is not run}, notes).  Without ``named``: every engine in
    ``FILE_ENGINES`` that is installed and reads the format (of the file ``files`` gives it, if given), less
    :data:`DEFAULT_LEFT_OUT` (noted)."""
    from crossdyn.engines.files import FILE_ENGINES, file_engine_status

    wanted = list(named) if named else list(FILE_ENGINES)
    run, not_run, notes = [], {}, []
    for spec in wanted:
        loads = model if files is None else files(spec)
        status = loads if isinstance(loads, str) else file_engine_status(spec.split("@", 1)[0], loads.format)
        if status is not None:
            not_run[spec] = status
        elif not named and spec in DEFAULT_LEFT_OUT:
            notes.append(f"left out {spec}: {DEFAULT_LEFT_OUT[spec]}")
        else:
            run.append(spec)
    return run, not_run, notes


def _static_states(model: RobotModel, count: int, seed: int) -> StaticStates:
    from crossdyn.spatial.fast import aba, crba, rnea  # the compiled kernels (the NumPy path to rounding)

    st = motion.states_within_limits(model, count, seed)  # ID, FD and M are the rigid bodies + armature (no damping)
    return StaticStates(st.q, st.qd, st.qdd, st.tau, np.asarray(rnea(model, st.q, st.qd, st.qdd, armature=True)),
                        np.asarray(crba(model, st.q, armature=True)),
                        np.asarray(aba(model, st.q, st.qd, st.tau, armature=True)))


def prepare(model: RobotModel, opt: RobotCompareOptions, say,
            files: Files | None = None) -> tuple[RobotJob, MotionPlan]:
    """The step, the reference run and the torques it applied, the start and the static states (once, for every
    engine): :func:`crossdyn.robotcompare.plan.plan_motion`."""
    plan = plan_motion(model, opt, say)
    q0, qd0, _ = (x[0] for x in plan.desired.at(np.zeros(1)))
    static = _static_states(model, opt.n_states, opt.seed)
    scale = max(float(np.max(np.abs(static.tau_ref))), 1e-12)
    job = RobotJob(model, plan.dt, plan.duration, plan.taus, q0, qd0, plan.reference, static, scale,
                   motion.energy_scale(model), opt.tolerances, files, plan.law, plan.effort_law, opt.derivatives)
    return job, plan


def _friction_lines(model: RobotModel) -> list[str]:
    """A note naming the file's Coulomb friction, which neither the engines (their stepping contract,
    :mod:`crossdyn.engines.file_engine`) nor the reference simulate: set-valued stiction has no smooth reference."""
    rough = [(j.name, j.friction) for j in model.joints if j.friction]
    if not rough:
        return []
    which = ", ".join(f"{n} f_c = {f:g}" for n, f in rough)
    return [f"the file's Coulomb friction ({which}) is simulated by neither the engines nor the reference (set-valued "
            "stiction has no smooth reference; `crossdyn audit` compares it as a parameter)"]


def effort_lines(model: RobotModel, taus: np.ndarray) -> list[str]:
    """A note per joint whose torque in the sequence exceeds the file's effort limit (the engines apply it
    unclamped: the file's actuators are removed, the torque is applied directly)."""
    peak = np.max(np.abs(taus), axis=0) if len(taus) else np.zeros(model.n)
    return [f"joint {j.name!r}: the torque sequence reaches {p:.4g}, above the file's effort limit {j.effort:g}; "
            "every engine and the reference apply it unclamped (the file's actuators are removed)"
            for j, p in zip(model.joints, peak, strict=True) if j.effort and p > j.effort]


def switched_back(failure: str) -> str:
    """For a failure of an engine run with options (``pybullet@link_damping=0.04: …``): the options named, since
    each switches a setting crossdyn neutralises back to what the user asked ("" for an engine without options)."""
    spec = failure.split(":", 1)[0]
    if "@" not in spec:
        return ""
    from crossdyn.engines.registry import split_options

    _, options = split_options(spec)
    return (" [run with " + ", ".join(f"{k}={v}" for k, v in options.items()) + " switched from crossdyn's "
            "neutral setting on the command line; its config lists each setting]")


def _tracking(job: RobotJob, plan: MotionPlan) -> dict:
    q_d = plan.desired.at(job.reference.t)[0]
    k = len(job.reference.q)
    err = np.abs(job.reference.q - q_d[:k])
    inside, where = motion.within_limits(job.model, job.reference.q)
    approach = plan.approach
    return {"max_abs_error_rad": float(err.max()) if err.size else None, "within_limits": inside,
            "outside": where or None, "within_margin": plan.inside, "margin_fraction": motion.LIMIT_MARGIN,
            "closest_approach": None if approach is None else {
                "joint": approach.joint, "distance": approach.distance, "limit": approach.limit,
                "fraction_of_range": approach.fraction},
            "peak_effort_fraction": None if plan.effort is None else plan.effort.fraction,
            "peak_effort": None if plan.effort is None else plan.effort.as_dict(),
            "effort_margin_fraction": motion.EFFORT_FRACTION,
            "note": "|q_ref - q_d|: the reference's tracking of the multi-sine (every engine runs "
                    "the same law on its own state); reported, not judged"}


def compare_robot(robot: str | Path | RobotModel, options: RobotCompareOptions | None = None,
                  files: Files | None = None) -> RobotComparison:
    """Read ``robot`` (a URDF or MJCF path, or a model already read), run every selected engine, judge each (module
    docstring).  ``files``: which model (file) each engine loads, where that is not ``robot``'s own file (a spatial
    arm spec: :func:`crossdyn.robotcompare.spatial.compare_spatial`); ``robot`` stays the reference."""
    from crossdyn.robots import read_robot

    opt = options or RobotCompareOptions()
    say = opt.progress or (lambda msg: None)
    model = robot if isinstance(robot, RobotModel) else read_robot(robot)
    specs, not_run, notes = select_engines(model, opt.engines, files)
    job, plan = prepare(model, opt, say, files)
    friction = _friction_lines(model)
    results: dict[str, EngineRun] = {}
    same_cache: dict = {}
    interrupted = False
    for spec in specs:
        if interrupted:  # Ctrl-C: the engines after the interrupted one are not run
            results[spec] = EngineRun(spec, RunStatus.SKIPPED, "interrupted (Ctrl-C) before it ran")
            continue
        results[spec] = measure_file_engine(spec, job, same_cache, say)
        interrupted = results[spec].status == RunStatus.SKIPPED
    for spec, why in not_run.items():
        results[spec] = EngineRun(spec, RunStatus.UNSUPPORTED if "install" not in why else RunStatus.SKIPPED, why)
    results, diverged = unstable_step(results, plan)
    out = _outcome(results, interrupted, job, diverged)
    tracking = _tracking(job, plan)
    if not tracking["within_limits"]:
        out.inconclusive.append(f"the reference run leaves the file's joint limits ({tracking['outside']}) after "
                                f"{motion.AMPLITUDE_TRIES} tries with the amplitudes halved: an engine that enforces "
                                "them would differ; shorten --duration")
    limits = _native_limits(job, specs, opt, out, say, not_run) if opt.native else None
    named: set[str] = set()
    for k, line in enumerate(out.failures):  # an engine's first failure names the options it was run with
        spec = line.split(":", 1)[0]
        if spec not in named:
            named.add(spec)
            out.failures[k] = line + switched_back(line)
    notes = (list(plan.notes) + friction + effort_lines(model, job.taus) + notes
             + [f"{n.where}: {n.message}" for n in model.notes])
    summary = document(model, opt, job, plan.desired, results, out, notes, tracking)
    summary["interrupted"] = interrupted
    summary["stability"] = _stability(plan)
    if limits is not None:
        summary["limits"] = limits
    if opt.effort:
        summary["effort_law"] = _effort_law(plan)
        if plan.effort_law is not None:
            _native_effort(summary, job, specs)
    if plan.dt_choice is not None and plan.dt_choice.line():  # the judgeable-step rule said something
        summary["dt_choice"] = {**plan.dt_choice.as_dict(), "line": plan.dt_choice.line()}
    return RobotComparison(model, job, plan.desired, results, summary)


def _native_limits(job: RobotJob, specs: list[str], opt: RobotCompareOptions, out: Outcome, say,
                   not_run: dict[str, str]) -> dict:
    """``--native``: every engine's own limit enforcement on a motion driven into the file's limits, characterised
    (:func:`crossdyn.robotcompare.limits.native_limits`; the engines not run listed with why); its INCONCLUSIVE and
    failure lines go into ``out``."""
    from crossdyn.robotcompare.limits import native_limits

    section, inconclusive, failures = native_limits(job, specs, opt.seed, say, not_run)
    out.inconclusive.extend(inconclusive)
    out.failures.extend(failures)
    return section


def _native_effort(summary: dict, job: RobotJob, specs: list[str]) -> None:
    """``--effort``: each MuJoCo and Drake engine of the run characterised in native mode (``@native_effort=true``;
    ``drake-rk4`` by ``drake-discrete``), into ``effort_law.native`` and a note
    (:func:`crossdyn.robotcompare.effort.native_modes`)."""
    from crossdyn.robotcompare.effort import native_line, native_modes
    from crossdyn.robotcompare.measure import build_file_engine

    native = native_modes(job.model, specs, lambda spec, dt: build_file_engine(spec, job.file_model(spec), dt))
    summary["effort_law"]["native"] = native
    line = native_line(native)
    if line is not None:
        summary["notes"].append(line)


def _effort_law(plan: MotionPlan) -> dict:
    """The summary's ``effort_law`` entry (``--effort``): tau = clip(tau_law, -limit, limit) per joint, the limits
    (None: the joint has none), the file's, the factor s and the joint it was chosen on
    (:func:`crossdyn.robotcompare.effort.effort_law`)."""
    law = plan.effort_law
    if law is None:
        return {"applied": False, "reason": "no joint of the file states an effort limit"}
    from crossdyn.robotcompare.effort import EFFORT_SATURATION

    def listed(x):
        return [float(v) if np.isfinite(v) else None for v in x]

    return {"applied": True, "law": "tau = clip(tau_law, -limit, limit) per joint, in every run",
            "limit": listed(law.limit), "file_effort": listed(law.file_effort), "scale": law.scale,
            "scaled_on_joint": law.joint, "demand_fraction": law.demand, "saturation_fraction": EFFORT_SATURATION}


def _outcome(results: dict[str, EngineRun], interrupted: bool, job: RobotJob, diverged: set[str]) -> Outcome:
    """The failures and inconclusive lines; an engine's "diverged" line becomes INCONCLUSIVE where the step was
    predicted unstable (:func:`crossdyn.robotcompare.plan.unstable_step`) or where the engine holds another reading
    of the file's ambiguity (its config's ``ambiguity_reading``: the run follows from the model it holds, e.g. a
    body read massless that leaves its M(q) singular)."""
    failures = engine_failures(results, interrupted, job.reference)

    def diverged_line(f: str) -> bool:
        return f.split(": ", 2)[1:2] == ["diverged"]

    reading = {name for name, run in results.items() if run.config.get("ambiguity_reading")}
    moved = [f for f in failures if f.split(":", 1)[0] in diverged and diverged_line(f)]
    held = [f for f in failures if f.split(":", 1)[0] in reading - diverged and diverged_line(f)]
    out = Outcome(failures=[f for f in failures if f not in moved and f not in held],
                  inconclusive=engine_inconclusive(results), not_exercised=engine_not_exercised(results))
    out.inconclusive.extend(f"{line} (unstable step: predicted before running, see the notes)" for line in moved)
    out.inconclusive.extend(f"{line} (it holds another reading of the file's ambiguity, see inverse_dynamics: its "
                            "run follows from the model it holds)" for line in held)
    return out


def _stability(plan: MotionPlan) -> dict:
    """The summary's ``stability`` entry: the prediction at the dt asked for and the dt used."""
    from crossdyn.robotcompare.stability import STABLE_LIMIT

    p = plan.prediction
    return {"dt_asked": p.dt, "dt_used": plan.dt, "lambda_max_dt": p.rate_dt, "limit": STABLE_LIMIT,
            "stable": p.stable, "kept_unstable": plan.unstable,
            "joints": [{"joint": r.name, "m_jj": r.m_jj, "m_effective": r.m_effective, "damping": r.damping,
                        "b_dt_over_m_jj": r.ratio, "b_dt_minv_jj": r.ratio_effective} for r in p.joints]}


def document(model: RobotModel, opt: RobotCompareOptions, job: RobotJob, desired, results, out: Outcome,
             notes: list[str], tracking: dict) -> dict:
    """The ``summary.json`` document (schema ``crossdyn.robot-compare/1``)."""
    from crossdyn.comparison.references import versions
    from crossdyn.robotcompare.units import joint_fields, rotates, with_units

    rot = rotates(model)  # each joint's errors in its own unit: rad or m (crossdyn.robotcompare.units)
    return {
        "schema": SCHEMA, "robot": model.name, "file": str(model.source), "format": model.format.value,
        "dof": model.n, "joints": list(model.joint_names), **joint_fields(model), "dt": job.dt,
        "duration": job.duration,
        "states": opt.n_states, "seed": opt.seed, "profile": desired.params(),
        "start": {"q0": job.q0.tolist(), "qd0": job.qd0.tolist()},
        "reference": {"model": "crossdyn.spatial (ABA; armature and damping as the file states)",
                      "integrator": "DOP853", "rtol": runs.REFERENCE_RTOL, "atol": runs.REFERENCE_ATOL,
                      "restarted_each_step": True, "status": job.reference.status, "reason": job.reference.message,
                      "tracking": tracking},
        "file_parameters": {"armature": model.armature().tolist(), "damping": motion.damping(model).tolist(),
                            "friction": [j.friction for j in model.joints]},
        "removed": list(model.removed),
        "torque_scale_nm": job.torque_scale, "energy_scale_j": job.energy_scale,
        "versions": versions(), "tolerances": opt.tolerances.as_dict(),
        "engines": {name: with_units(run.to_summary(), rot) for name, run in results.items()},
        "notes": notes, "failures": list(out.failures), "inconclusive": list(out.inconclusive),
        "not_exercised": list(out.not_exercised), "checks": check_totals(results, {}), "verdict": verdict_of(out).value,
        **_derivatives_entry(opt),
    }


def _derivatives_entry(opt: RobotCompareOptions) -> dict:
    """``{"derivatives": …}`` under ``--derivatives`` (:func:`crossdyn.comparison.groups.derivatives.summary_entry`),
    else nothing: the document unchanged."""
    if not opt.derivatives:
        return {}
    from crossdyn.comparison.groups.derivatives import summary_entry
    return {"derivatives": summary_entry(opt.n_states)}


def as_json_safe(value: Any) -> Any:
    """NumPy scalars and arrays in a document as plain JSON values; a NaN or infinite number as None (JSON has
    none: an engine holding a singular M(q), e.g. a massless last body, gives NaN accelerations)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: as_json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return as_json_safe(value.tolist())
    if isinstance(value, np.generic):
        return as_json_safe(value.item())
    return value
