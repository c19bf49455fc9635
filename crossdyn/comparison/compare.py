"""Run a comparison of engines against the analytic reference: one entry point, :func:`compare`.

For one arm and one torque profile, every engine is measured against the
analytic model on six things (each with its tolerance, see
:mod:`crossdyn.comparison.tolerances`):

1. **trajectory** under the profile from a start near the hanging equilibrium:
   error against the reference (analytic model, adaptive DOP853 restarted at each
   hold interval), divergence time, self-consistency (same engine at dt/2 with the
   torque still held for dt) and its Richardson error estimate, and the error
   against the analytic model run with the *same* integrator (isolates model error);
2. **inverse dynamics**, 3. **forward dynamics** and **mass matrix** at
   ``n_states`` random states;
4. **energy** in free motion from the same start (drift relative to the energy
   scale) and the work–energy balance of the driven run;
5. **convergence**: free-motion error at several dt against a dense DOP853
   solution, the empirical order, and compute time per simulated second;
6. **speed**: µs per step through the adapter (the driven run).

An engine that cannot be built, raises, or diverges is recorded with its status
and reason; the others go on.  Ctrl-C stops the run and returns what finished.
An error in crossdyn's own code is raised, never reported as a failed engine.

The parts: :mod:`~crossdyn.comparison.options` (what to run), :mod:`~crossdyn.comparison.references` (what
every engine is measured against), :mod:`~crossdyn.comparison.measure` and
:mod:`crossdyn.comparison.groups` (one engine, one metric group each), :mod:`~crossdyn.comparison.pool` (the
worker processes), :mod:`~crossdyn.comparison.phenomena` (limits, friction, contact), and
:mod:`~crossdyn.comparison.result` (the typed result and its ``summary.json`` document).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from crossdyn.comparison.context import Context, Outcome
from crossdyn.comparison.groups.trajectory import ORDER, integration_order, same_integrator
from crossdyn.comparison.options import DEFAULT_ENGINES, CompareOptions, left_out_note
from crossdyn.comparison.phenomena import conclude, refused_combination
from crossdyn.comparison.phenomenon_contact import CONTACT_OMEGA_DT_NOTE, start_native
from crossdyn.comparison.phenomenon_limits import native_limit_failures, native_limit_variant
from crossdyn.comparison.pool import run_parallel, run_sequential
from crossdyn.comparison.references import (EngineJob, StaticStates, convergence_start, dense_free_reference,
                                            needs_dense_reference, prepared_runs, shared_schemes,
                                            static_states, versions)
from crossdyn.comparison.result import SCHEMA, Comparison, EngineRun, MetricResult, skipped as skipped_run
from crossdyn.comparison.start import (check_start, default_start, desired_motion, hanging_start, held,
                                      resolve_profile, start_state)
from crossdyn.inputs.profile_options import profile_start
from crossdyn.inputs.start import start_problems
from crossdyn.errors import InputError
from crossdyn.models.spec import ArmSpec
from crossdyn.status import RunStatus, Verdict

_profile = resolve_profile  # the name tests and scripts import
_versions = versions

__all__ = ["compare", "CompareOptions", "Comparison", "EngineRun", "MetricResult", "DEFAULT_ENGINES", "ORDER",
           "StaticStates", "EngineJob", "hanging_start", "start_state", "desired_motion", "held",
           "same_integrator", "integration_order", "native_limit_variant", "native_limit_failures",
           "CONTACT_OMEGA_DT_NOTE"]


def _options(options: CompareOptions | None, kwargs: dict) -> CompareOptions:
    if options is not None and kwargs:
        raise TypeError("compare: give either options or keyword options, not both")
    if options is not None and not isinstance(options, CompareOptions):
        raise TypeError(f"compare: options must be a CompareOptions, got {type(options).__name__}")
    return options or CompareOptions(**kwargs)


def _prepare(user_spec: ArmSpec, opt: CompareOptions, say, parallel: tuple[str, ...] = ()) -> tuple[EngineJob, Any, Any]:
    """The job every engine is measured with, the reference's free swing and the step's choice (or None).  Applied friction mode: the
    engines (and the job's spec) have f_c = 0, the runner applies the regularised law to all of them.
    ``parallel``: the engines to be measured in worker processes (none: one after the other here); then the two
    reference runs and the same-scheme runs two or more of them share (computed once, in the job) run up to
    ``jobs`` at a time (:func:`~crossdyn.comparison.references.prepared_runs`)."""
    from crossdyn.inputs.profiles import make_profile

    spec, friction = user_spec, None
    refused = refused_combination(spec, opt)
    if refused is not None:
        raise InputError(refused)
    profile = resolve_profile(opt.profile, spec)
    q0, qd0 = start_state(spec, profile, opt.q0, opt.qd0)
    if not opt.allow_invalid_start:
        check_start(spec, q0, "q0" if opt.q0 is not None else "q0 (the profile's start)")
    if opt.q0 is None and profile_start(profile) is None:
        chosen = default_start(spec)
        if chosen.rule != "hanging":
            say(f"[{spec.name}] start: {chosen.why}: q0 = {np.round(chosen.q, 4).tolist()} rad")
    opt, profile, q0, qd0, choice = _scenario(spec, opt, profile, q0, qd0, say)
    free_profile = make_profile("zero", spec)
    if spec.has_friction and not opt.native_friction:
        from crossdyn.analytic.laws.friction import FrictionLaw, without_friction

        friction = FrictionLaw.of(spec, opt.dt, q0)
        spec = without_friction(spec)
    say(f"[{spec.name}] reference: analytic model, DOP853 (rtol = atol = 1e-12), {opt.duration:g} s at "
        f"dt = {opt.dt:g} s")
    reference, reference_free, same = prepared_runs(spec, profile, free_profile, (q0, qd0), opt, friction,
                                                    shared_schemes(parallel), opt.jobs if parallel else 1)
    static = static_states(spec, opt.n_states, opt.seed)
    conv_q0 = convergence_start(spec, q0)
    dense = dense_free_reference(spec, conv_q0, opt.convergence_duration) \
        if needs_dense_reference(spec, opt, friction) else None
    job = EngineJob(spec, opt, profile, free_profile, q0, qd0, reference, static, conv_q0, dense, friction,
                    same or None)
    return job, reference_free, choice


INTERRUPTED = object()
"""_prepare's choice when Ctrl-C came while the step was being chosen."""


def _scenario(spec: ArmSpec, opt: CompareOptions, profile, q0, qd0, say):
    """(options, profile, q0, q̇0, the step's choice or None) with ``opt.choose_dt``: the step (and duration) the
    rule chooses (:mod:`crossdyn.comparison.dt_choice`); where none within the budget makes an arm with contact
    judgeable under its default scenario (no profile or start given), the gentler motion of
    :func:`crossdyn.comparison.dt_study.gentle_contact_profile`, with its own choice."""
    choice = _choose_dt(spec, opt, profile, q0, qd0, say)
    if choice is not None and not choice.judgeable and opt.profile is None and opt.q0 is None and opt.qd0 is None:
        from crossdyn.comparison.dt_study import gentle_contact_profile, gentle_duration

        gentle = gentle_contact_profile(spec, profile)
        if gentle is not None:
            g0, gd0 = start_state(spec, gentle, None, None)
            short = replace(opt, duration=gentle_duration(opt.duration, opt.dt))
            again = _choose_dt(spec, short, gentle, g0, gd0, say)
            if again is not None and again.judgeable and not start_problems(spec, g0):
                target = np.round(np.asarray(gentle.params().get("target", []), float), 4).tolist()
                cut = (f" for {short.duration:g} s (of {opt.duration:g} s: the press is reached within it and held; "
                       "the rest would be more of it)" if short.duration != opt.duration else "")
                what = (f"default motion: {profile.params()['name']} not judgeable within the step budget "
                        f"({choice.line()}); pd-gravity towards q_d = {target} rad instead (the tip pressed onto "
                        f"the obstacle it would strike), from {np.round(g0, 4).tolist()} rad at rest{cut}")
                say(f"[{spec.name}] {what}")
                choice = replace(again, gentler=what)
                opt, profile, q0, qd0 = short, gentle, g0, gd0
    if choice is not None and choice.changed:
        opt = replace(opt, dt=choice.dt, duration=choice.duration or opt.duration)
    return opt, profile, q0, qd0, choice


def _choose_dt(spec: ArmSpec, opt: CompareOptions, profile, q0, qd0, say):
    """With ``opt.choose_dt``: the :class:`~crossdyn.comparison.dt_choice.DtChoice` from the replica studies of the
    compared engines' schemes (:mod:`crossdyn.comparison.dt_study`), said when it matters; else None."""
    if not opt.choose_dt:
        return None
    from crossdyn.comparison.dt_study import choose_planar_dt
    from crossdyn.engines import available_engines

    engines = tuple(opt.engines) if opt.engines else tuple(e for e in DEFAULT_ENGINES if e in available_engines())
    plant, applied = spec, spec.has_friction and not opt.native_friction
    if applied:
        from crossdyn.analytic.laws.friction import without_friction

        plant = without_friction(spec)

    def friction_at(dt: float):
        from crossdyn.analytic.laws.friction import FrictionLaw

        return FrictionLaw.of(spec, dt, q0) if applied else None

    choice = choose_planar_dt(plant, profile, (q0, qd0), (opt.dt, opt.duration), engines, opt.tolerances,
                              friction_at, opt.jobs)
    if choice.line():
        say(f"[{spec.name}] {choice.line()}")
    return choice


def _start_record(user_spec: ArmSpec, job: EngineJob) -> dict:
    """``start`` of the summary: q0, q̇0, plus ``rule`` when the default start is not the hanging start, and
    ``invalid`` (the problems) when an invalid start ran under ``allow_invalid_start``."""
    out: dict[str, Any] = {"q0": job.q0.tolist(), "qd0": job.qd0.tolist()}
    if job.opt.q0 is None and profile_start(job.profile) is None:
        chosen = default_start(user_spec)
        if chosen.rule != "hanging":
            out["rule"] = chosen.why
    problems = start_problems(user_spec, job.q0)
    if problems:
        out["invalid"] = problems
    return out


def _header(user_spec: ArmSpec, job: EngineJob, reference_free, choice=None) -> dict:
    """The document's keys before ``engines``; ``dt_choice`` (the rule's figures and its line,
    :mod:`crossdyn.comparison.dt_choice`) where the step was the comparison's to choose and a scheme needed it."""
    from crossdyn.models.inertia import engine_inertias

    spec, opt, reference = job.spec, job.opt, job.reference
    _, subs = engine_inertias(spec)
    extra = {}
    if opt.derivatives:
        from crossdyn.comparison.groups.derivatives import summary_entry
        extra["derivatives"] = summary_entry(opt.n_states)
    return {
        "schema": SCHEMA, "arm": spec.name, "dof": spec.n, "spec": user_spec.to_dict(),
        "dt": opt.dt, "duration": opt.duration, "profile": job.profile.params(),
        "start": _start_record(user_spec, job),
        "reference": {"model": "analytic (closed form / symbolic)", "integrator": "DOP853", "rtol": 1e-12,
                      "atol": 1e-12, "restarted_each_step": True, "status": reference.status,
                      "reason": reference.message, "free_status": reference_free.status,
                      "free_reason": reference_free.message},
        "energy_scale_j": user_spec.energy_scale(), "torque_scale_nm": user_spec.torque_scale(),
        "inertia_substitutions": [s.as_dict() for s in subs],
        "versions": versions(), "tolerances": opt.tolerances.as_dict(), **extra,
    } | ({"dt_choice": {**choice.as_dict(), "line": choice.line()}} if choice is not None and choice.line() else {})


def engine_failures(runs: dict, interrupted: bool, reference) -> list[str]:
    """One line per engine that failed or diverged and per metric out of tolerance; an interrupted run and a
    failed reference also fail (a partial run never passes)."""
    failures = []
    for name, run in runs.items():
        if run.status != RunStatus.OK:
            if run.status not in (RunStatus.SKIPPED, RunStatus.UNSUPPORTED):
                failures.append(f"{name}: {run.status}: {run.reason}")
            continue
        for metric, values in run.summary.items():
            if isinstance(values, dict) and values.get("pass") is False:
                failures.append(f"{name}: {metric}: {values.get('failed_because', 'out of tolerance')}")
    if interrupted:
        skipped = [name for name, run in runs.items() if run.status == RunStatus.SKIPPED]
        failures.append(f"interrupted (Ctrl-C): not measured: {', '.join(skipped)}")
    if reference.status != "ok":
        failures.insert(0, f"reference: {reference.status}: {reference.message} (trajectory errors are measured "
                           "only up to that time)")
    return failures


def engine_inconclusive(runs: dict) -> list[str]:
    """One line per metric group that could not be judged (its ``inconclusive_because``), per failed group with a
    part that could not be judged (its ``also_inconclusive_because``), and one when no engine made a single check (every engine unsupported, skipped or failed before measuring)."""
    lines = [f"{name}: {metric}: {values.get('inconclusive_because', 'not judged')}"
             for name, run in runs.items() if run.status == RunStatus.OK
             for metric, values in run.summary.items()
             if isinstance(values, dict) and values.get("verdict") == Verdict.INCONCLUSIVE]
    lines += [f"{name}: {metric}: {values['also_inconclusive_because']} (beside its FAIL)"
              for name, run in runs.items() if run.status == RunStatus.OK
              for metric, values in run.summary.items()
              if isinstance(values, dict) and values.get("also_inconclusive_because")]
    if runs and not any(sum(run.checks.values()) for run in runs.values()):
        lines.append("no engine made a check: " + ", ".join(f"{n} {r.status}" for n, r in runs.items()))
    return lines  # no applied-mode run at all: every engine given is a native run, judged in its native section


def engine_not_exercised(runs: dict) -> list[str]:
    """One line per metric group that was NOT_EXERCISED (its ``not_exercised_because``), once for every engine
    that gives the same reason (``effort: no joint saturated: …``), else naming the engines (``effort (mujoco):
    …``)."""
    ok = [name for name, run in runs.items() if run.status == RunStatus.OK]
    seen: dict[tuple[str, str], list[str]] = {}
    for name in ok:
        for metric, values in runs[name].summary.items():
            if isinstance(values, dict) and values.get("verdict") == Verdict.NOT_EXERCISED:
                seen.setdefault((metric, values.get("not_exercised_because") or "not reached"), []).append(name)
    return [f"{metric}: {because}" if names == ok else f"{metric} ({', '.join(names)}): {because}"
            for (metric, because), names in seen.items()]


def verdict_of(out: Outcome) -> Verdict:
    """FAIL if anything failed, else INCONCLUSIVE if anything could not be judged, else PASS (what was not
    exercised changes nothing)."""
    return Verdict.FAIL if out.failures else Verdict.INCONCLUSIVE if out.inconclusive else Verdict.PASS


def split_native_runs(engines: tuple[str, ...], native: bool, label: str = "engines",
                      switch: str = "native=True") -> tuple[tuple[str, ...], list[str]]:
    """(the engines given an applied-mode run, notes): a name whose options switch on the engine's own limits or
    contact (:func:`crossdyn.engines.registry.native_mechanisms`, e.g. a calibration's rerun string) is a native
    run only: an applied-mode run would add crossdyn's law on top of the engine's own mechanism and count the
    phenomenon twice, a FAIL of our bookkeeping, not of the engine.  With ``native`` it is judged in the native
    section alone (a note says so); without, :class:`InputError` names it and the option to add."""
    from crossdyn.engines.registry import native_mechanisms

    native_only = {name: native_mechanisms(name) for name in engines if native_mechanisms(name)}
    if native_only and not native:
        name, phenomena = next(iter(native_only.items()))
        raise InputError(f"{label}: {name} runs the engine's own {' and '.join(phenomena)}; an applied-mode run "
                         f"would add crossdyn's law on top of it and count it twice: add {switch} to judge it "
                         f"against the law, or drop its native option", label, name)
    notes = [f"{name}: runs its own {' and '.join(ph)}, so it is judged in the native {' and '.join(ph)} "
             f"section only (no applied-mode row, where crossdyn's law would act on top of it)"
             for name, ph in native_only.items()]
    return tuple(e for e in engines if e not in native_only), notes


def compare(arm, options: CompareOptions | None = None, **kwargs) -> Comparison:
    """Compare every requested engine against the analytic reference (see the module docstring).

    ``arm`` is an :class:`ArmSpec`, a preset name or a TOML path; ``options`` a :class:`CompareOptions`, or
    its fields as keywords (``compare("planar2r", duration=1.0, engines=["mujoco-rk4"])``).  Returns the typed
    :class:`Comparison`; its ``summary`` is the ``summary.json`` document.
    """
    from crossdyn.engines import available_engines
    from crossdyn.models import load_arm

    user_spec = arm if isinstance(arm, ArmSpec) else load_arm(arm)
    opt = _options(options, kwargs)
    say = opt.progress or (lambda msg: None)
    installed = available_engines()
    engines = tuple(opt.engines) if opt.engines else tuple(e for e in DEFAULT_ENGINES if e in installed)
    applied, native_notes = split_native_runs(engines, opt.native)
    try:
        job, reference_free, choice = _prepare(user_spec, opt, say,
                                               applied if opt.jobs > 1 and len(applied) > 1 else ())
    except KeyboardInterrupt:  # Ctrl-C before any engine ran (the step's choice, the reference): the asked step's
        # reference again, quickly, for the summary, and no engine is run (a second Ctrl-C stops at once)
        job, reference_free, _ = _prepare(user_spec, replace(opt, choose_dt=False), say)
        choice = INTERRUPTED
    opt = job.opt  # its dt the one chosen (opt.choose_dt)
    ctx = Context(job.spec, user_spec, opt, job.profile, job.q0, job.qd0, job.reference, {}, engines,
                  job.friction, job.dense, say)
    # the native contact work needs no engine's applied run: it runs beside them (jobs > 1)
    native = None if choice is INTERRUPTED else start_native(ctx)
    try:
        if choice is INTERRUPTED:  # Ctrl-C before any engine ran: each is reported not measured (a partial run fails)
            runs, interrupted, choice = {e: skipped_run(e, "before this engine ran") for e in applied}, True, None
        elif opt.jobs > 1 and len(applied) > 1:
            runs, interrupted = run_parallel(applied, job, opt.jobs, say)
        else:
            runs, interrupted = run_sequential(applied, job, say)
        out = Outcome(failures=engine_failures(runs, interrupted, job.reference),
                      inconclusive=engine_inconclusive(runs), not_exercised=engine_not_exercised(runs))
        ctx = replace(ctx, runs=runs, native_contact=native)
        conclude(ctx, out)
    finally:
        if native is not None:
            native.close()
    out.notes.extend(native_notes)
    if choice is not None and choice.line():
        out.notes.append(choice.line())
    note = None if opt.engines else left_out_note(installed)
    if note is not None:
        out.notes.append(note)
    return Comparison(user_spec, opt, job.profile, job.q0, job.reference, reference_free, runs,
                      _header(user_spec, job, reference_free, choice), out.sections, tuple(out.notes), tuple(out.failures),
                      verdict_of(out), tuple(out.inconclusive), interrupted, out.native_limit_runs,
                      out.stick_slip_timelines, out.native_contact_runs, out.native_contact_reference,
                      tuple(out.not_exercised))
