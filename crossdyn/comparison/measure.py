"""Measure one engine against the references (:func:`measure_engine`): every metric group in turn.

The engine's own code runs inside :func:`~crossdyn.comparison.containment.engine_code`: what it raises makes
the engine ``failed`` (its reason kept) and the comparison goes on; an engine that cannot represent the arm
is ``unsupported``; Ctrl-C makes it ``skipped``.  crossdyn's own errors propagate.
"""
from __future__ import annotations

import time
from typing import Callable

from crossdyn.comparison.containment import build_engine, call, engine_code, failure_reason
from crossdyn.comparison.groups import convergence, derivatives, energy, static, trajectory
from crossdyn.comparison.groups.armature import armature_group, with_mass_matrix_errors
from crossdyn.comparison.groups.effort import effort_group
from crossdyn.comparison.groups.tip_kinematics import tip_kinematics_group
from crossdyn.comparison.references import EngineJob
from crossdyn.comparison.result import EngineRun, MetricResult, RunRecord
from crossdyn.engines.base import EngineUnsupported
from crossdyn.errors import EngineError
from crossdyn.status import RunStatus

Say = Callable[[str], None]


def measure_engine(name: str, job: EngineJob, same_cache: dict, say: Say) -> EngineRun:
    """Measure one planar engine (:func:`contained_measurement` of :func:`_measure`)."""
    record = RunRecord(name)
    return contained_measurement(record, lambda: _measure(record, job, same_cache, say), say, job.spec.name)


def contained_measurement(record: RunRecord, measure: Callable[[], None], say: Say, arm: str) -> EngineRun:
    """Run ``measure`` (it fills ``record``) and freeze the record; what the engine does becomes its status (every
    arm: the planar presets and the robot files, :func:`crossdyn.robotcompare.measure.measure_file_engine`).

    Ctrl-C: ``skipped`` (what was measured kept); :class:`EngineUnsupported` (the engine cannot represent the arm,
    e.g. Drake and Coulomb friction): ``unsupported``, its metrics dropped (it measured nothing of the arm); an
    :class:`EngineError` (its library, or the user's file, raised): ``failed``, the reason kept and what was
    measured before kept.  crossdyn's own errors propagate."""
    try:
        measure()
    except KeyboardInterrupt:
        record.status, record.reason = RunStatus.SKIPPED, "interrupted (Ctrl-C) while this engine ran"
        return record.freeze()
    except EngineUnsupported as e:
        record.status, record.reason = RunStatus.UNSUPPORTED, str(e)
        record.metrics.clear()
        say(f"[{arm}] {record.name}: unsupported: {record.reason}")
    except EngineError as e:
        record.status, record.reason = RunStatus.FAILED, failure_reason(e)
        say(f"[{arm}] {record.name}: failed: {record.reason}")
    return record.freeze()


def _friction_config(engine, job: EngineJob) -> dict:
    """Coulomb friction: which mode (CompareOptions.native_friction), and the applied law."""
    if job.friction is None and not job.spec.has_friction:
        return {}
    out: dict = {"native_friction": job.friction is None}
    if job.friction is not None:
        out["applied_friction"] = job.friction.describe()
    return out


def _contact_config(engine, job: EngineJob) -> dict:
    """Applied contact: the law, and where this engine's tip kinematics come from."""
    if not job.spec.has_contact:
        return {}
    from crossdyn.analytic.laws.contact import ContactLaw

    law = ContactLaw.of(job.spec, dt=engine.dt)
    assert law is not None  # the arm has contact
    with engine_code():
        source = engine.tip_source
    return {"applied_contact": law.describe(), "tip_kinematics": source}


def _tip_kinematics(engine, job: EngineJob, driven) -> MetricResult | None:
    """The tip group only where the engine has a tip frame of its own (``capabilities.tip_frame``): without one its
    tip is crossdyn's analytic kinematics, and comparing those with themselves would be a PASS that checked
    nothing (the engine's config still says where its tip comes from)."""
    if not (job.spec.has_contact and engine.capabilities.tip_frame):
        return None
    return tip_kinematics_group(engine, job.spec, driven, job.static)


def _effort(engine, job: EngineJob, driven) -> MetricResult | None:
    return (effort_group(engine, driven, job.spec, job.q0, job.opt.asks_about("effort")) if job.spec.has_effort
            else None)


CONFIG_STEPS = (_friction_config, _contact_config)
"""What each phenomenon adds to an engine's ``config`` in the document."""
PHENOMENON_GROUPS = (_tip_kinematics, _effort)
"""The per-phenomenon metric groups measured after the driven run (None where the arm lacks it)."""


def engine_config(engine, job: EngineJob) -> dict:
    """The engine's ``config()`` with what the phenomena add: the friction mode and the applied laws."""
    config = call(engine.config)
    for step in CONFIG_STEPS:
        config.update(step(engine, job))
    return config


def _measure(record: RunRecord, job: EngineJob, same_cache: dict, say: Say) -> None:
    spec, name = job.spec, record.name
    engine = build_engine(name, spec, job.opt.dt, job.friction)
    try:
        record.config = engine_config(engine, job)
        reasons = call(engine.unsupported)
        if spec.has_armature:
            record.add(armature_group(spec, engine, job.q0))
        if reasons:  # the engine cannot represent this arm (e.g. PyBullet and armature): say so, measure nothing
            record.status, record.reason = RunStatus.UNSUPPORTED, "; ".join(reasons)
            say(f"[{spec.name}] {name}: unsupported: {record.reason}")
            return
        _measure_runs(record, engine, job, same_cache, say)
    finally:
        call(engine.close)


def _driven_and_free(record: RunRecord, engine, job: EngineJob):
    """The driven run and the free swing (one library call for both where the engine can: MuJoCo's rollout),
    the wall time and the step count."""
    from crossdyn.drive.runner import run_engine_many

    t0 = time.perf_counter()
    with engine_code():
        driven, free = run_engine_many(engine, [(job.profile, job.q0, job.qd0), (job.free_profile, job.q0, job.qd0)],
                                       job.opt.duration)
    wall = time.perf_counter() - t0
    record.driven = driven
    if driven.status != "ok":
        record.status = RunStatus(driven.status)
        record.reason = driven.message or f"{driven.status} at t = {driven.diverged_at} s"
    return driven, free, wall, max(len(driven.t) - 1, 1) + max(len(free.t) - 1, 1)


def _derivatives(record: RunRecord, job: EngineJob, say: Say) -> None:
    """The ``derivatives`` group on the model the engine's file adapter reads of the arm (its MJCF, written in a
    temporary folder: :func:`crossdyn.derivatives.engines.file_model`) at the static states; Drake's derivatives on
    the planar adapter's own plant of the spec (:meth:`~crossdyn.comparison.groups.derivatives.DrakeDerivatives.for_planar`)."""
    import tempfile

    from crossdyn.derivatives.engines import file_model

    st, name = job.static, record.name
    say(f"[{job.spec.name}] {name}: derivatives at {min(len(st.q), derivatives.MAX_STATES)} states")
    with tempfile.TemporaryDirectory() as folder:  # the engines load the file: kept while they are built
        model = file_model(job.spec, folder, job.opt.dt)
        source = derivatives.DrakeDerivatives.for_planar(name, job.spec)  # Drake: the planar adapter's own plant
        record.add(derivatives.derivatives_group(name, model, st.q, st.qd, st.tau, job.opt.dt, source,
                                                 rollout=True))


def _measure_runs(record: RunRecord, engine, job: EngineJob, same_cache: dict, say: Say) -> None:
    spec, opt, name, tol = job.spec, job.opt, record.name, job.opt.tolerances
    say(f"[{spec.name}] {name}: driven run ({job.profile.name}) and free swing")
    driven, free, wall, steps = _driven_and_free(record, engine, job)
    side = trajectory.side_runs(name, engine, job, same_cache)
    record.add(trajectory.trajectory_group(driven, job.reference, side, tol, trajectory.planar_tip(spec.params())))
    tracking = trajectory.tracking_group(job.profile, driven)
    if tracking is not None:
        record.add(tracking)

    st = job.static
    say(f"[{spec.name}] {name}: inverse/forward dynamics and mass matrix at {len(st.q)} states")
    values = static.evaluate(engine, st)
    record.id_errors = values.tau - st.tau_ref
    dtype = side.dtype  # the engine's floating-point type: its round-off is part of each tolerance
    record.add(static.inverse_dynamics_group(spec, st, values, tol, dtype))
    record.add(static.forward_dynamics_group(st, values, tol, dtype))
    record.add(static.mass_matrix_group(st, values, tol, dtype))
    if "armature" in record.metrics:
        record.add(with_mass_matrix_errors(record.metrics["armature"], values.M, st.M_ref,
                                           record.metrics["mass_matrix"].values["tolerance"]))

    if opt.derivatives and derivatives.offers(name):
        _derivatives(record, job, say)
    energies = energy.evaluate(engine, free, driven, side, record)
    conservative = not (spec.has_damping or spec.has_friction or spec.has_limit_law or spec.has_contact
                        or job.friction is not None)
    record.add(energy.energy_group(spec, free, driven, side, energies, tol, opt.dt, conservative))
    record.add(energy.speed_group(wall, steps))
    for group in PHENOMENON_GROUPS:
        metric = group(engine, job, driven)
        if metric is not None:
            record.add(metric)
    if job.dense is not None:
        say(f"[{spec.name}] {name}: convergence at dt = {', '.join(f'{d:g}' for d in opt.convergence_dts)} s")
        errs, costs = convergence.convergence_runs(name, job)
        record.convergence = {"dt": list(opt.convergence_dts), "max_abs_error_rad": errs,
                              "compute_s_per_sim_s": costs}
        with engine_code():
            error_controlled = bool(engine.error_controlled)
        record.add(convergence.convergence_group(opt.convergence_dts, errs, costs, side.order, error_controlled,
                                                 convergence.study(job)))
