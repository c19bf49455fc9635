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
  and the estimate's own error), k ≤ :data:`MAX_HALVINGS` (the time budget: every run's cost, the reference's
  included, grows as 1/dt);
* dt itself when no k ≤ :data:`MAX_HALVINGS` reaches it: the comparison then stays INCONCLUSIVE as measured, and the
  choice says what step it would have needed.

dt/2ᵏ keeps the duration a whole number of steps.  A scheme whose replica did not complete (a diverging Euler
step) counts as not judgeable at that dt and halves until the budget; a replica that cannot be judged at dt/2ᵏ
either is reported as such.  The limiting scheme is the one needing the most halvings.  The function is pure: the
replica runs are the caller's (:func:`crossdyn.comparison.compare`'s planar arms, the spatial arms' motion plan).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from crossdyn.comparison.metrics import richardson_factor
from crossdyn.comparison.tolerances import Tolerances

SAFETY = 2.0
"""A halved step must bring the predicted tolerance to half the bound (the engines' arithmetic is the replica's
only up to round-off and their implicit parts; e(dt) ∝ dtᵖ holds only asymptotically)."""
MAX_HALVINGS = 4
"""The time budget: dt is halved at most this many times (1 ms → 62.5 µs, 16× the steps of every run)."""


@dataclass(frozen=True)
class SchemeStudy:
    """One scheme's replica at dt and dt/2 (torque and laws held for dt): its order, self-consistency
    |q(dt) − q(dt/2)| (rad; None when a run did not complete) and the largest joint range of its motion (rad)."""

    scheme: str
    order: int
    self_consistency_rad: float | None
    range_rad: float


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

    @property
    def changed(self) -> bool:
        return self.dt != self.asked

    def as_dict(self) -> dict:
        return {**asdict(self), "safety": SAFETY, "max_halvings": MAX_HALVINGS,
                "rule": "least k with factor*e(dt)*2^(-k*p) + floor <= bound/safety (module "
                        "crossdyn.comparison.dt_choice)"}

    def line(self) -> str:
        """What the output says about the step (empty when nothing was needed)."""
        if self.limiting is None:
            return ""
        at = (f"at dt = {self.asked:g} s the {self.limiting} engines' own error (Richardson estimate "
              f"{self.estimate_rad:.3g} rad, from crossdyn's {self.limiting} replica at dt and dt/2) makes their "
              f"tolerance {self.tolerance_rad:.3g} rad exceed the bound {self.bound_rad:.3g} rad (5 % of the "
              f"motion's range)" if self.estimate_rad is not None else
              f"at dt = {self.asked:g} s crossdyn's {self.limiting} replica did not complete")
        if self.changed:
            return (f"dt = {self.dt:g} s chosen (--dt not given; default {self.asked:g} s): {at}; predicted "
                    f"tolerance at {self.dt:g} s: {self.predicted_tolerance_rad:.3g} rad (order-p scaling, "
                    f"safety {SAFETY:g}); give --dt to fix the step")
        need = (f"it would need dt = {self.asked / 2 ** self.needed_halvings:g} s, past the budget of "
                f"{MAX_HALVINGS} halvings ({2 ** MAX_HALVINGS}x the steps)" if self.needed_halvings
                else "no halving within the budget makes it judgeable")
        return f"dt = {self.asked:g} s kept: {at}; {need}"


def bound_of(range_rad: float, tol: Tolerances) -> float:
    """``trajectory_bound_fraction`` × max(range, ``trajectory_bound_floor_rad``) (rad), as the judging's."""
    return tol.trajectory_bound_fraction * max(range_rad, tol.trajectory_bound_floor_rad)


def predicted_tolerance(estimate: float, order: int, halvings: int, tol: Tolerances) -> float:
    """factor · e · 2^(−k·p) + floor (rad)."""
    return tol.trajectory_factor * estimate * 2.0 ** (-halvings * order) + tol.trajectory_floor_rad


def halvings_needed(study: SchemeStudy, tol: Tolerances) -> int | None:
    """0 when judgeable at dt; else the least k ≥ 1 with tol_k ≤ bound/:data:`SAFETY` (may exceed the budget);
    None when it has no estimate (its replica did not complete) or no k can do it (the floor alone is past it)."""
    bound = bound_of(study.range_rad, tol)
    if study.self_consistency_rad is None:
        return None
    e = study.self_consistency_rad * richardson_factor(study.order)
    if predicted_tolerance(e, study.order, 0, tol) <= bound:
        return 0
    target = bound / SAFETY - tol.trajectory_floor_rad
    if target <= 0:
        return None
    return max(1, math.ceil(math.log2(tol.trajectory_factor * e / target) / study.order))


def judgeable_dt(dt: float, studies: list[SchemeStudy] | tuple[SchemeStudy, ...],
                 tol: Tolerances | None = None) -> DtChoice:
    """The step to run at (module docstring), from each scheme's replica study at ``dt``.  Pure."""
    tol = tol or Tolerances()
    if tol.trajectory_abs_rad is not None or not studies:  # a fixed tolerance is not bounded: nothing to choose
        return DtChoice(dt, dt, 0, True, None, None, None, 0.0, None)
    needs = [(halvings_needed(s, tol), s) for s in studies]
    worst_k, worst = max(needs, key=lambda ks: math.inf if ks[0] is None else ks[0])
    bound = bound_of(worst.range_rad, tol)
    if worst_k == 0:
        return DtChoice(dt, dt, 0, True, None, None, None, bound, None)
    e = None if worst.self_consistency_rad is None else worst.self_consistency_rad * richardson_factor(worst.order)
    tol0 = None if e is None else predicted_tolerance(e, worst.order, 0, tol)
    if worst_k is None or worst_k > MAX_HALVINGS:
        return DtChoice(dt, dt, 0, False, worst.scheme, e, tol0, bound, tol0, needed_halvings=worst_k)
    assert e is not None
    return DtChoice(dt, dt / 2 ** worst_k, worst_k, True, worst.scheme, e, tol0, bound,
                    predicted_tolerance(e, worst.order, worst_k, tol))
