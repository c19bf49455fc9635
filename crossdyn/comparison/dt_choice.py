"""The default step of a comparison, chosen so that every engine's trajectory can be judged: :func:`judgeable_dt`.

A fixed-step engine's trajectory is judged against the reference with the tolerance ``trajectory_factor`` × its
Richardson estimate e(dt) = |q(dt) − q(dt/2)| · 2ᵖ/(2ᵖ − 1) + ``trajectory_floor_rad``, and not judged at all when
that exceeds the bound ``trajectory_bound_fraction`` × max(the motion's largest joint range,
``trajectory_bound_floor_rad``) (:mod:`crossdyn.comparison.groups.trajectory`).  On a stiff or fast motion a
first-order scheme (semi-implicit Euler: PyBullet, MuJoCo ``Euler``, DART, Drake's discrete plant) is past that bound
at 1 ms, and the default question gets no answer.

**The rule.**  When the user fixed no step (no ``--dt``), crossdyn first runs its own replica of each scheme the
engines share (the analytic model stepped by that scheme, the cheap part: no engine is built) at dt and at dt/2
with the torque and every applied law held for dt, exactly as the engines' dt/2 reruns are, and takes its
self-consistency d = max |q(dt) − q(dt/2)| and the range R of its motion.  A scheme of order p has e(dt/2ᵏ) =
e(dt) / 2ᵏᵖ in its asymptotic regime, so the tolerance at dt/2ᵏ is predicted as

    tol_k = factor · e(dt) · 2^(−k·p) + floor,

and the step chosen is

* dt itself when tol_0 ≤ bound (judgeable as asked: nothing changes);
* else dt/2ᵏ with the least k ≥ 1 for which tol_k ≤ bound / :data:`SAFETY` (margin for the engines' arithmetic
  and the estimate's own error), within the time budget: every run's cost, the reference's included, grows as the
  number of steps, which may grow at most :data:`MAX_STEPS_FACTOR`-fold (k ≤ 2 over the whole duration T);
* where no such k fits the budget over T, the same over the first T/2ʲ of the run (j ≤ :data:`MAX_CUTS`; the
  replica's d and R over that prefix, read off the same two runs: a shorter run accumulates less error), with
  2ᵏ⁻ʲ ≤ :data:`MAX_STEPS_FACTOR`: the longest such duration, then the largest such step;
* dt and T themselves when nothing fits: the comparison then stays INCONCLUSIVE as measured, and the choice says
  what step it would have needed.

dt/2ᵏ and T/2ʲ keep the duration a whole number of steps where T is a whole number of 2ʲ·dt.  A scheme whose replica did not complete (a diverging Euler
step) counts as not judgeable at that dt and halves until the budget; a replica that cannot be judged at dt/2ᵏ
either is reported as such.  The limiting scheme is the one needing the most halvings.  The function is pure: the
replica runs are the caller's (:func:`crossdyn.comparison.compare`'s planar arms, the spatial arms' motion plan).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from crossdyn.comparison.metrics import richardson_factor
from crossdyn.comparison.tolerances import Tolerances

SAFETY = 1.25
"""A halved step must bring the predicted tolerance to 1/1.25 of the bound.  The engines sharing a scheme do the
replica's arithmetic to round-off (their same-scheme error is ~1e-15 rad), so the margin covers the departure from
the asymptotic e(dt) ∝ dtᵖ: on planar2r-limits the prediction at 0.25 ms was 0.00987 rad against the bound
0.0131 rad, and the four Euler engines then measured 0.00784 rad (they pass, docs/howto/limits.md)."""
MAX_STEPS_FACTOR = 4
"""The time budget: the chosen (dt, duration) takes at most this many times the steps asked for (the spatial arms'
stability rule's :data:`crossdyn.robotcompare.plan.MAX_STEPS_FACTOR` too)."""
MAX_CUTS = 2
"""The duration is cut to T/2ʲ at most with j ≤ this (3 s → 0.75 s), and only where the step alone does not fit."""
MAX_HALVINGS = 4
"""dt is halved at most this many times (1 ms → 62.5 µs; with the duration cut to T/4, 4× the steps)."""


@dataclass(frozen=True)
class SchemeStudy:
    """One scheme's replica at dt and dt/2 (torque and laws held for dt): its order, self-consistency
    |q(dt) − q(dt/2)| (rad; None when a run did not complete) and the largest joint range of its motion (rad)."""

    scheme: str
    order: int
    self_consistency_rad: float | None
    range_rad: float
    prefixes: tuple[tuple, ...] = ()
    """(T/2ʲ, d, R, exercised[, balance]) over the first T/2ʲ of the runs, j = 1 … :data:`MAX_CUTS` (empty: no
    cut considered); ``exercised``: the prefix reaches every phenomenon the arm declares that the whole run reaches
    (a limit, an obstacle): a cut that loses one is never taken."""
    balance_rel: float | None = None
    """max |r(dt) − r(dt/2)| / E_scale of the ``energy`` group's work–energy residual r (None: not studied): its
    tolerance, ``trajectory_factor`` × the Richardson estimate, has the bound ``energy_bound_fraction``."""

    def over(self, cut: int) -> "SchemeStudy | None":
        """The study of the first T/2^``cut`` of the run (``cut`` 0: itself); None where that prefix loses a
        phenomenon the whole run exercised."""
        if cut == 0 or self.self_consistency_rad is None:
            return self
        _, d, r, exercised, *balance = self.prefixes[cut - 1]
        return SchemeStudy(self.scheme, self.order, d, r, (), balance[0] if balance else None) if exercised else None


@dataclass(frozen=True)
class DtChoice:
    """The step chosen (s) from the step asked for, and why (:func:`judgeable_dt`)."""

    asked: float
    dt: float
    halvings: int
    judgeable: bool
    """Every studied scheme predicted judgeable at ``dt``."""
    limiting: str | None
    """The scheme that needed the most halvings (None: none needed any)."""
    estimate_rad: float | None
    """The limiting scheme's Richardson estimate at ``asked`` (rad)."""
    tolerance_rad: float | None
    """Its tolerance at ``asked``: factor × estimate + floor (rad)."""
    bound_rad: float
    """The bound on a derived tolerance over its motion (rad)."""
    predicted_tolerance_rad: float | None
    """Its tolerance predicted at ``dt`` (rad)."""
    needed_halvings: int | None = None
    """Where the budget was not enough: the halvings the prediction asks for (None: within the budget, or no
    estimate)."""
    asked_duration: float | None = None
    duration: float | None = None
    """The duration to run (s): ``asked_duration``, or its first half or quarter where only that fits the budget."""
    asked_bound_rad: float | None = None
    """The bound over the whole run asked for (rad), where the run was cut (``bound_rad`` is then the cut's)."""
    gentler: str = ""
    """Where the default motion was replaced by a gentler one for the step to fit (the caller's), what and why."""

    @property
    def changed(self) -> bool:
        return self.dt != self.asked or self.duration != self.asked_duration

    def as_dict(self) -> dict:
        return {**asdict(self), "safety": SAFETY, "max_halvings": MAX_HALVINGS, "max_steps_factor": MAX_STEPS_FACTOR,
                "rule": "least k with factor*e(dt)*2^(-k*p) + floor <= bound/safety within max_steps_factor x the "
                        "steps, over the longest duration T/2^j that allows one (crossdyn.comparison.dt_choice)"}

    def line(self) -> str:
        """What the output says about the step (empty when nothing was needed)."""
        if self.gentler:
            return self.gentler + ("; " + self._step_line() if self._step_line() else "")
        return self._step_line()

    def _step_line(self) -> str:
        if self.limiting is None:
            return ""
        at = (f"at dt = {self.asked:g} s the {self.limiting} engines' own error (Richardson estimate "
              f"{self.estimate_rad:.3g} rad, from crossdyn's {self.limiting} replica at dt and dt/2) makes their "
              f"tolerance {self.tolerance_rad:.3g} rad exceed the bound "
              f"{self.asked_bound_rad if self.asked_bound_rad is not None else self.bound_rad:.3g} rad (a fraction "
              f"of the motion's range: trajectory_bound_fraction)" if self.estimate_rad is not None else
              f"at dt = {self.asked:g} s crossdyn's {self.limiting} replica did not complete")
        if self.changed:
            cut = (f", duration {self.duration:g} s (of {self.asked_duration:g} s: the whole run at a step judgeable "
                   f"over it would take more than {MAX_STEPS_FACTOR}x the steps)"
                   if self.duration != self.asked_duration else "")
            return (f"dt = {self.dt:g} s{cut} chosen (--dt not given; default {self.asked:g} s): {at}; predicted "
                    f"tolerance at {self.dt:g} s: {self.predicted_tolerance_rad:.3g} rad (order-p scaling, "
                    f"safety {SAFETY:g}); give --dt to fix the step")
        need = (f"it would need dt = {self.asked / 2 ** self.needed_halvings:g} s, past the budget of "
                f"{MAX_STEPS_FACTOR}x the steps (and no shorter duration down to 1/{2 ** MAX_CUTS} fits it)"
                if self.needed_halvings else "no halving within the budget makes it judgeable")
        return f"dt = {self.asked:g} s kept: {at}; {need}"


def bound_of(range_rad: float, tol: Tolerances) -> float:
    """``trajectory_bound_fraction`` × max(range, ``trajectory_bound_floor_rad``) (rad), as the judging's."""
    return tol.trajectory_bound_fraction * max(range_rad, tol.trajectory_bound_floor_rad)


def predicted_tolerance(estimate: float, order: int, halvings: int, tol: Tolerances) -> float:
    """factor · e · 2^(−k·p) + floor (rad)."""
    return tol.trajectory_factor * estimate * 2.0 ** (-halvings * order) + tol.trajectory_floor_rad


def halvings_needed(study: SchemeStudy, tol: Tolerances) -> int | None:
    """0 when judgeable at dt; else the least k ≥ 1 with tol_k ≤ bound/:data:`SAFETY` (may exceed the budget), the
    same for the energy balance where studied (factor × its Richardson estimate against ``energy_bound_fraction``),
    the larger of the two; None when it has no estimate (its replica did not complete) or no k can do it (the floor
    alone is past it)."""
    bound = bound_of(study.range_rad, tol)
    if study.self_consistency_rad is None:
        return None
    e = study.self_consistency_rad * richardson_factor(study.order)
    k_traj = _halvings(tol.trajectory_factor * e, tol.trajectory_floor_rad, bound, study.order)
    if study.balance_rel is None or k_traj is None:
        return k_traj
    k_bal = _halvings(tol.trajectory_factor * study.balance_rel * richardson_factor(study.order), 0.0,
                      tol.energy_bound_fraction, study.order)
    return None if k_bal is None else max(k_traj, k_bal)


def _halvings(scaled: float, floor: float, bound: float, order: int) -> int | None:
    """0 when scaled + floor ≤ bound; else the least k ≥ 1 with scaled·2^(−k·p) + floor ≤ bound/:data:`SAFETY`
    (None: the floor alone is past it)."""
    if scaled + floor <= bound:
        return 0
    target = bound / SAFETY - floor
    if target <= 0:
        return None
    return max(1, math.ceil(math.log2(scaled / target) / order))


def _needs(studies, tol: Tolerances, cut: int) -> tuple[int | None, SchemeStudy]:
    """(halvings, study) of the scheme needing the most over the first T/2^``cut`` (None: no k can do it)."""
    parts = [(s.over(cut), s) for s in studies]
    needs = [(None if part is None else halvings_needed(part, tol), part or whole) for part, whole in parts]
    return max(needs, key=lambda ks: math.inf if ks[0] is None else ks[0])


def whole_steps(duration: float, dt: float) -> bool:
    """``duration`` is a whole number ≥ 1 of ``dt`` steps (a cut duration must be, as every run's)."""
    k = round(duration / dt)
    return k >= 1 and abs(k * dt - duration) <= 1e-9 * max(1.0, duration)


def fits(halvings: int | None, cut: int) -> bool:
    """The budget: 2ᵏ⁻ʲ ≤ :data:`MAX_STEPS_FACTOR`, k ≤ :data:`MAX_HALVINGS`."""
    return halvings is not None and halvings <= MAX_HALVINGS and 2 ** (halvings - cut) <= MAX_STEPS_FACTOR


def judgeable_dt(dt: float, studies: list[SchemeStudy] | tuple[SchemeStudy, ...],
                 tol: Tolerances | None = None, duration: float | None = None) -> DtChoice:
    """The step (and duration) to run at (module docstring), from each scheme's replica study at ``dt`` over
    ``duration``.  Pure."""
    tol = tol or Tolerances()
    if tol.trajectory_abs_rad is not None or not studies:  # a fixed tolerance is not bounded: nothing to choose
        return DtChoice(dt, dt, 0, True, None, None, None, 0.0, None, None, duration, duration)
    worst_k, worst = _needs(studies, tol, 0)
    first = worst
    bound = bound_of(worst.range_rad, tol)
    if worst_k == 0:
        return DtChoice(dt, dt, 0, True, None, None, None, bound, None, None, duration, duration)
    cuts = min((len(s.prefixes) for s in studies), default=0) if duration is not None else 0
    cuts = max((j for j in range(cuts + 1) if duration is None or whole_steps(duration / 2 ** j, dt)), default=0)
    cut = next((j for j in range(cuts + 1) if fits(_needs(studies, tol, j)[0], j)), None)
    e0 = None if first.self_consistency_rad is None else first.self_consistency_rad * richardson_factor(first.order)
    tol0 = None if e0 is None else predicted_tolerance(e0, first.order, 0, tol)
    if cut is None:
        return DtChoice(dt, dt, 0, False, first.scheme, e0, tol0, bound, tol0, worst_k, duration, duration)
    k, study = _needs(studies, tol, cut)
    assert k is not None and study.self_consistency_rad is not None
    e = study.self_consistency_rad * richardson_factor(study.order)
    return DtChoice(dt, dt / 2 ** k, k, True, first.scheme, e0, tol0, bound_of(study.range_rad, tol),
                    predicted_tolerance(e, study.order, k, tol), None, duration,
                    None if duration is None else duration / 2 ** cut, bound if cut else None)
