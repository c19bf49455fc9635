"""The motion of a robot-file comparison, decided and checked before any engine runs: :func:`plan_motion`.

1. **The step.**  The explicit-stepping stability of the file's damping at the requested dt is predicted over the
   desired motion (:mod:`crossdyn.robotcompare.stability`).  Unstable and dt not given by the user
   (``RobotCompareOptions.choose_dt``): the largest dt₀/2ᵏ that is stable is used instead, and the duration is cut
   to at most :data:`MAX_STEPS_FACTOR` × the default's number of steps (a note names the joint, its M_jj, b, the
   dt chosen and the duration).  Unstable with the user's dt: it is kept, a warning is printed, and each engine's
   diverged run or failed trajectory/energy group becomes INCONCLUSIVE "unstable step" (:func:`unstable_step`),
   never an engine FAIL.
2. **The reference.**  The reference tracks the multi-sine by the tracking law (inverse-dynamics feedforward along
   q_d + inertia-scaled PD), the law every engine then runs on its own state too (:mod:`crossdyn.robotcompare.motion`); the run must stay
   :data:`~crossdyn.robotcompare.motion.LIMIT_MARGIN` of each joint's range inside the file's limits, else the
   amplitudes are halved and the reference rerun (at most
   :data:`~crossdyn.robotcompare.motion.AMPLITUDE_TRIES` runs).  The note says what the motion is and its closest
   approach to a limit.  Its torques must stay within :data:`~crossdyn.robotcompare.motion.EFFORT_FRACTION` of the
   file's effort limits likewise (unless holding the pose alone exceeds that); the note gives the largest fraction.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

import numpy as np

from crossdyn.comparison.result import EngineRun, MetricResult, judge
from crossdyn.robots.model import RobotModel
from crossdyn.robotcompare import motion, runs, stability
from crossdyn.robotcompare.effort import EffortLaw, effort_law
from crossdyn.status import RunStatus, Verdict

MAX_STEPS_FACTOR = 4
"""With a dt chosen for stability, the run keeps at most this many times the default's steps (cost)."""


@dataclass(frozen=True)
class MotionPlan:
    """What every engine is driven with: dt, duration, the desired motion, the reference run and its torques,
    how close it came to the limits, the stability prediction (at the dt first asked for) and the notes."""

    dt: float
    duration: float
    desired: motion.DesiredMotion
    law: motion.TrackingLaw
    reference: Any
    taus: np.ndarray
    approach: motion.Approach | None
    inside: bool
    prediction: stability.Prediction
    unstable: bool
    """The step kept is predicted unstable (the user's dt)."""
    notes: tuple[str, ...]
    effort: motion.EffortApproach | None = None
    """How close the reference's torques came to the file's effort limits (None: no joint has one)."""
    effort_law: EffortLaw | None = None
    """``--effort``: the law clipping every run's torque (None: unclipped)."""
    dt_choice: Any = None
    """The judgeable-step rule's :class:`~crossdyn.comparison.dt_choice.DtChoice` (dt not given), else None."""


def spatial_study(model: RobotModel, desired: motion.DesiredMotion, scheme: str, dt: float, duration: float):
    """:class:`~crossdyn.comparison.dt_choice.SchemeStudy` of ``scheme``: crossdyn's model stepped by it under the
    tracking law at dt, and at dt/2 with the law's torque held for dt (the engines' dt/2 reruns)."""
    from crossdyn.analytic.integrators import n_steps
    from crossdyn.comparison import dt_choice
    from crossdyn.comparison.dt_study import joint_range, study_of
    from crossdyn.comparison.groups.trajectory import ORDER

    steps = n_steps(duration, dt)
    q0, qd0, _ = (x[0] for x in desired.at(np.zeros(1)))
    law = motion.tracking_law(model, desired, dt, steps)
    full = runs.integrate_held(model, scheme, law, steps, q0, qd0, dt)
    half = runs.integrate_held(model, scheme, law, steps, q0, qd0, dt, substeps=2)
    order = ORDER.get(scheme, 1)
    if full.status != "ok" or half.status != "ok":
        return dt_choice.SchemeStudy(scheme, order, None, joint_range(full.q))
    return study_of(scheme, order, full.q, half.q[::2], duration)


def judgeable_step(model: RobotModel, desired: motion.DesiredMotion, dt: float, duration: float, opt):
    """The :class:`~crossdyn.comparison.dt_choice.DtChoice` of a comparison whose step the user did not give: the
    replica studies of the schemes of the engines it runs (``opt.engines``, else every file engine), the planar
    arms' rule (:mod:`crossdyn.comparison.dt_choice`)."""
    from crossdyn.comparison import dt_choice
    from crossdyn.comparison.dt_study import engine_schemes
    from crossdyn.engines.files import FILE_ENGINES

    schemes = engine_schemes(tuple(opt.engines) if opt.engines else tuple(FILE_ENGINES))
    studies = [spatial_study(model, desired, s, dt, duration) for s in schemes]
    return dt_choice.judgeable_dt(dt, studies, opt.tolerances, duration)


def _step(model: RobotModel, desired: motion.DesiredMotion, dt: float, duration: float, choose: bool,
          say) -> tuple[float, float, stability.Prediction, bool, list[str]]:
    """(dt, duration, the prediction at the dt asked for, unstable kept, notes): point 1 of the module docstring."""
    from crossdyn.analytic.integrators import n_steps

    poses = desired.at(np.linspace(0.0, duration, stability.SAMPLES + 1))[0]
    pred = stability.predict(model, poses, dt)
    if pred.stable:
        return dt, duration, pred, False, []
    why = stability.explanation(pred)
    if not choose:
        say(f"[{model.name}] warning: {why}; --dt {dt:g} s kept as given: an engine that diverges or departs is "
            "INCONCLUSIVE (unstable step), not FAIL")
        return dt, duration, pred, True, [f"{why}; dt = {dt:g} s kept as given (--dt): a diverged or departing "
                                          "engine is INCONCLUSIVE (unstable step)"]
    new = stability.stable_dt(pred)
    steps = min(n_steps(duration, new), MAX_STEPS_FACTOR * n_steps(duration, dt))
    worst = pred.culprit()
    at_new = f"{worst.damping * new / worst.m_jj:.3g}" if worst is not None else "?"
    note = (f"{why}; dt = {new:g} s chosen instead (the largest {dt:g}/2^k with lambda_max*dt <= "
            f"{stability.STABLE_LIMIT:g}: {pred.rate_dt * new / dt:.3g}; b*dt/M_jj = {at_new})")
    if steps * new < duration:
        note += f", duration {steps * new:g} s (at most {MAX_STEPS_FACTOR}x the default's {n_steps(duration, dt)} steps)"
    say(f"[{model.name}] {note}")
    return new, steps * new, pred, False, [note]


def _track(model: RobotModel, desired: motion.DesiredMotion, dt: float, steps: int, effort: bool = False):
    """The reference tracking ``desired``, the torques it applied (padded with the feedforward past a reference
    that stopped), the law and, with ``effort``, its effort law (:func:`crossdyn.robotcompare.effort.effort_law`,
    chosen on this motion's feedforward; None without)."""
    q0, qd0, _ = (x[0] for x in desired.at(np.zeros(1)))
    law = motion.tracking_law(model, desired, dt, steps)
    clip = effort_law(model, law.feedforward) if effort else None
    if clip is not None:
        law = replace(law, limit=clip.limit)
    ref, taus = runs.track(model, law, steps, q0, qd0, dt)
    if len(taus) < steps:
        rest = law.feedforward[len(taus):]
        taus = np.concatenate([taus.reshape(-1, model.n), rest if clip is None else motion.clip_effort(rest, clip.limit)])
    return ref, taus, law, clip


def _fits(model: RobotModel, reference, taus: np.ndarray, hold: motion.EffortApproach | None):
    """(the run's approach to the limits, inside them with the margin, its approach to the effort limits, within
    :data:`~crossdyn.robotcompare.motion.EFFORT_FRACTION` of them; a run whose holding torque alone exceeds that
    counts as within: no amplitude would do)."""
    approach = motion.closest_approach(model, reference.q)
    inside = approach is None or approach.fraction >= motion.LIMIT_MARGIN
    effort = motion.peak_effort(model, taus)
    hopeless = hold is not None and hold.fraction > motion.EFFORT_FRACTION
    within = effort is None or effort.fraction <= motion.EFFORT_FRACTION or hopeless
    return approach, inside, effort, within


def _effort_note(effort: motion.EffortApproach | None, hold: motion.EffortApproach | None) -> str:
    """The motion note's effort part (:func:`plan_motion`)."""
    if effort is None:
        return "; no joint has an effort limit (none checked)"
    ok = effort.fraction <= motion.EFFORT_FRACTION
    note = (f"; its torques stay {'within' if ok else 'NOT within'} {100 * motion.EFFORT_FRACTION:g} % of the file's "
            f"effort limits: {effort.line()}")
    if not ok and hold is not None and hold.fraction > motion.EFFORT_FRACTION:
        note += (f" (holding the mid-limit pose alone takes {100 * hold.fraction:.3g} % on joint {hold.joint!r}: "
                 "no smaller amplitude would do)")
    if not ok:
        note += "; every engine and the reference apply the torques unclamped"
    return note


def plan_motion(model: RobotModel, opt, say) -> MotionPlan:
    """The :class:`MotionPlan` for ``opt`` (a :class:`~crossdyn.robotcompare.options.RobotCompareOptions`)."""
    from crossdyn.analytic.integrators import n_steps

    base = motion.multisine_motion(model, opt.seed)
    dt, duration, pred, unstable, notes = _step(model, base, opt.dt, opt.duration, opt.choose_dt, say)
    choice = judgeable_step(model, base, dt, duration, opt) if opt.choose_dt and not unstable else None
    if choice is not None and choice.line():
        say(f"[{model.name}] {choice.line()}")
        notes.append(choice.line())
        dt, duration = choice.dt, choice.duration or duration
    steps = n_steps(duration, dt)
    hold = motion.holding_effort(model, base)
    why: list[str] = []
    for attempt in range(motion.AMPLITUDE_TRIES):
        desired = base.scaled(0.5 ** attempt)
        say(f"[{model.name}] reference: crossdyn's spatial model (ABA, armature and damping as the file states), "
            f"DOP853 (rtol = atol = {runs.REFERENCE_RTOL:g}) restarted each step, {duration:g} s at dt = {dt:g} s, "
            f"tracking the multi-sine (feedforward + PD)" + (f" (amplitudes x {0.5 ** attempt:g})" if attempt else ""))
        reference, taus, law, clip = _track(model, desired, dt, steps, opt.effort)
        approach, inside, effort, within = _fits(model, reference, taus, hold)
        within = within or clip is not None  # --effort: the law clips the torques, by design past the limits
        if inside and within and reference.status == "ok":
            break
        why.append("limits" if not inside else "effort limits" if not within else "limits (the reference stopped)")
    what = ("motion: a multi-sine about the mid-limit pose (amplitude per joint min(0.3 rad or 0.05 m, 1/4 of the "
            "half range)) tracked by the same law on each run's own state, the reference's and every engine's: "
            "tau = RNEA_ref(q_d, qd_d, qdd_d) + b qd_d + M_ref(q_d) (400 (q_d - q) + 40 (qd_d - qd))")
    if attempt:
        reasons = " and ".join(dict.fromkeys(why[:attempt]))
        what += f"; amplitudes halved {attempt} time(s) to keep the reference inside the {reasons}"
    if approach is None:
        what += "; no joint has limits"
    else:
        what += (f"; the reference stays {'inside' if inside else 'NOT inside'} the file's limits with a margin of "
                 f"{100 * motion.LIMIT_MARGIN:g} % of each range: {approach.line()}")
    what += _effort_note(effort, hold) if clip is None else ""
    notes = notes if clip is None else [clip.line(), *notes]
    return MotionPlan(dt, duration, desired, law, reference, taus, approach, inside, pred, unstable,
                      tuple([what, *notes]), effort, clip, choice)


def unstable_step(results: Mapping[str, EngineRun], plan: MotionPlan) -> tuple[dict[str, EngineRun], set[str]]:
    """With a step predicted unstable and kept (the user's dt): each engine's failed ``trajectory`` and ``energy``
    groups made INCONCLUSIVE "unstable step" (their figures kept), and the names of the engines whose run diverged
    (their "diverged" line is then an INCONCLUSIVE one, :func:`crossdyn.robotcompare.compare.compare_robot`)."""
    if not plan.unstable:
        return dict(results), set()
    why = f"unstable step (predicted before running: {stability.explanation(plan.prediction)})"
    out, diverged = {}, set()
    for name, run in results.items():
        metrics = dict(run.metrics)
        for group in ("trajectory", "energy"):
            m = metrics.get(group)
            if m is not None and m.verdict == Verdict.FAIL:
                values = dict(m.values)
                measured = values.get("failed_because", "")
                metrics[group] = MetricResult(group, judge(values, Verdict.INCONCLUSIVE, m.checks,
                                                           f"{why}; measured: {measured}"))
        out[name] = replace(run, metrics=metrics)
        if run.status == RunStatus.DIVERGED:
            diverged.add(name)
    return out, diverged
