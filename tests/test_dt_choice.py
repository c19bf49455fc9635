"""The default step's rule (crossdyn.comparison.dt_choice.judgeable_dt, issue 39), as a pure function.

The figures are the ones a default ``compare planar2r-limits`` measured at dt = 1 ms (its semi-implicit Euler engines'
dt/2 reruns differed by 1.97e-3 rad over a reference range of 0.262 rad) and ``compare planar2r-floor``'s (0.0934
rad over 2.57 rad); the tolerances are the defaults (factor 10, floor 1e-9 rad, bound 5 % of max(range, 0.02 rad)).
"""
from __future__ import annotations

import math

import pytest

from crossdyn.comparison.dt_choice import (MAX_HALVINGS, MAX_STEPS_FACTOR, SAFETY, SchemeStudy, bound_of, fits,
                                           judgeable_dt, predicted_tolerance)
from crossdyn.comparison.tolerances import Tolerances

TOL = Tolerances()
EULER = "semi-implicit-euler"


def test_a_judgeable_step_is_kept_and_says_nothing():
    # RK4 on planar3r: 1e-9 rad between dt and dt/2, far inside the bound
    choice = judgeable_dt(1e-3, [SchemeStudy("rk4", 4, 1e-9, 0.5)])
    assert choice.dt == 1e-3 and not choice.changed and choice.judgeable
    assert choice.limiting is None and choice.line() == ""


def test_planar2r_limits_figures_give_a_quarter_millisecond():
    # tol(1 ms) = 10 * 1.97e-3 * 2 + 1e-9 = 0.0394 rad > bound 0.0131 rad; halving k times divides the estimate by
    # 2^k (order 1); the least k with tol_k <= bound / 1.25 = 0.0105 rad is 2 (0.0394 / 2 = 0.0197 > 0.0105 >=
    # 0.0394 / 4 = 0.0099): 4x the steps, the budget; the four Euler engines then measured a PASS at 0.25 ms
    choice = judgeable_dt(1e-3, [SchemeStudy(EULER, 1, 1.97e-3, 0.262)], duration=3.0)
    assert choice.judgeable and choice.halvings == 2 and choice.dt == pytest.approx(2.5e-4)
    assert choice.duration == 3.0 and choice.tolerance_rad == pytest.approx(0.0394, rel=1e-3)
    assert choice.bound_rad == pytest.approx(0.0131)
    assert choice.predicted_tolerance_rad <= choice.bound_rad / SAFETY
    assert "dt = 0.00025 s chosen" in choice.line() and "semi-implicit-euler" in choice.line()


def test_past_the_budget_over_the_whole_run_a_shorter_duration_is_taken():
    # planar2r-floor's drop: d = 0.0934 rad over 3 s (6 halvings: past the budget); over its first 1.5 s (the same
    # replica runs) d = 0.0193 rad over 1.67 rad: 3 halvings, 2^(3-1) = 4x the steps
    study = SchemeStudy(EULER, 1, 0.0934, 2.57, ((1.5, 0.0193, 1.67, True), (0.75, 0.0, 1.0, False)))
    choice = judgeable_dt(1e-3, [study], duration=3.0)
    assert choice.judgeable and choice.halvings == 3 and choice.dt == pytest.approx(1.25e-4)
    assert choice.duration == 1.5 and choice.asked_duration == 3.0
    assert choice.predicted_tolerance_rad <= choice.bound_rad / SAFETY
    assert "duration 1.5 s (of 3 s" in choice.line() and "dt = 0.000125 s" in choice.line()


def test_the_whole_duration_is_kept_where_a_step_fits():
    study = SchemeStudy(EULER, 1, 1.2e-3, 0.262, ((1.5, 1e-4, 0.262, True), (0.75, 1e-5, 0.2, True)))
    choice = judgeable_dt(1e-3, [study], duration=3.0)
    assert choice.duration == 3.0 and choice.halvings == 2  # 0.048 / 4 = 0.0048 <= 0.00655 < 0.048 / 2


@pytest.mark.parametrize("k,cut,ok", [(0, 0, True), (2, 0, True), (3, 0, False), (3, 1, True), (4, 2, True),
                                      (5, 2, False), (None, 0, False)])
def test_the_budget(k, cut, ok):
    assert fits(k, cut) is ok
    if ok and k is not None:
        assert 2 ** (k - cut) <= MAX_STEPS_FACTOR and k <= MAX_HALVINGS


@pytest.mark.parametrize("d,order,rng", [(1.2e-3, 1, 0.262), (8.8e-3, 1, 2.0), (1.5e-4, 1, 0.05), (2e-6, 4, 0.3),
                                         (5e-3, 2, 1.0)])
def test_the_chosen_step_is_the_largest_halving_that_meets_the_target(d, order, rng):
    choice = judgeable_dt(1e-3, [SchemeStudy(EULER if order == 1 else "rk4", order, d, rng)])
    e = d * 2**order / (2**order - 1)
    target = bound_of(rng, TOL) / SAFETY
    if predicted_tolerance(e, order, 0, TOL) <= bound_of(rng, TOL):
        assert choice.halvings == 0
        return
    k = choice.halvings
    assert choice.judgeable and 1 <= k <= MAX_HALVINGS and choice.dt == pytest.approx(1e-3 / 2**k)
    assert predicted_tolerance(e, order, k, TOL) <= target < predicted_tolerance(e, order, k - 1, TOL)


def test_past_the_budget_the_step_is_kept_and_the_need_stated():
    # planar2r-floor's drop: tol(1 ms) = 1.87 rad against 0.129 rad: 5 halvings (31 us), past the budget of 4
    choice = judgeable_dt(1e-3, [SchemeStudy(EULER, 1, 0.0934, 2.57)], duration=3.0)
    assert choice.dt == 1e-3 and not choice.judgeable and choice.needed_halvings == 5 > MAX_HALVINGS
    assert choice.duration == 3.0 and "kept" in choice.line() and "3.125e-05" in choice.line()


def test_a_replica_that_did_not_complete_keeps_the_step_and_says_so():
    choice = judgeable_dt(1e-3, [SchemeStudy("rk4", 4, 1e-10, 0.3), SchemeStudy(EULER, 1, None, 0.3)])
    assert choice.dt == 1e-3 and not choice.judgeable and choice.limiting == EULER
    assert "did not complete" in choice.line()


def test_the_scheme_needing_most_halvings_sets_the_step():
    choice = judgeable_dt(1e-3, [SchemeStudy("rk4", 4, 1e-4, 0.262), SchemeStudy(EULER, 1, 1.2e-3, 0.262)])
    assert choice.limiting == EULER and choice.halvings == 2


def test_higher_order_needs_fewer_halvings():
    # the same excess (tol 3x the bound) costs order 1 two halvings and order 4 one
    d1 = 3 * 0.0131 / (10 * 2)
    d4 = 3 * 0.0131 / (10 * 16 / 15)
    assert judgeable_dt(1e-3, [SchemeStudy(EULER, 1, d1, 0.262)]).halvings == 2
    assert judgeable_dt(1e-3, [SchemeStudy("rk4", 4, d4, 0.262)]).halvings == 1


def test_a_fixed_tolerance_is_not_bounded_so_nothing_is_chosen():
    choice = judgeable_dt(1e-3, [SchemeStudy(EULER, 1, 0.0934, 2.57)], Tolerances(trajectory_abs_rad=0.01))
    assert choice.dt == 1e-3 and choice.line() == ""


def test_the_record_states_the_rule():
    d = judgeable_dt(1e-3, [SchemeStudy(EULER, 1, 1.2e-3, 0.262)]).as_dict()
    assert d["asked"] == 1e-3 and math.isclose(d["dt"], 2.5e-4) and d["safety"] == SAFETY
    assert d["max_halvings"] == MAX_HALVINGS and "bound/safety" in d["rule"]


def test_a_cut_that_loses_a_phenomenon_is_never_taken():
    # planar3r-wall's swing: over its first 0.75 s the arm has not reached the wall yet (d = 0): that cut would judge
    # a run without contact; over 1.5 s it has, and needs 4 halvings there (2^(4-1) = 8x the steps: past the budget)
    study = SchemeStudy(EULER, 1, 0.183, 2.0, ((1.5, 0.04, 1.8, True), (0.75, 0.0, 1.0, False)))
    choice = judgeable_dt(1e-3, [study], duration=3.0)
    assert choice.dt == 1e-3 and choice.duration == 3.0 and not choice.judgeable
    kept = SchemeStudy(EULER, 1, 0.183, 2.0, ((1.5, 0.04, 1.8, True), (0.75, 0.0, 1.0, True)))
    assert judgeable_dt(1e-3, [kept], duration=3.0).duration == 0.75


def test_the_energy_balance_can_set_the_step():
    # the wall's gentler motion: trajectory judgeable at 1 ms (6.4e-4 rad over 0.60 rad), but the work-energy
    # balance changes by 0.00697 E_scale at dt/2: 10 * 2 * 0.00697 = 0.139 > 0.05; 0.139 / 4 = 0.035 <= 0.04
    study = SchemeStudy(EULER, 1, 6.44e-4, 0.603, (), 0.00697)
    choice = judgeable_dt(1e-3, [study], duration=3.0)
    assert choice.halvings == 2 and choice.duration == 3.0
    assert judgeable_dt(1e-3, [SchemeStudy(EULER, 1, 6.44e-4, 0.603)], duration=3.0).halvings == 0


def test_a_cut_run_quotes_the_whole_runs_bound_beside_its_tolerance():
    study = SchemeStudy(EULER, 1, 0.0934, 2.57, ((1.5, 0.0193, 1.67, True), (0.75, 0.0, 1.0, False)))
    choice = judgeable_dt(1e-3, [study], duration=3.0)
    assert choice.asked_bound_rad == pytest.approx(0.05 * 2.57) and choice.bound_rad == pytest.approx(0.05 * 1.67)
    assert f"exceed the bound {0.05 * 2.57:.3g} rad" in choice.line()


def test_the_study_reads_its_prefixes_off_the_same_runs():
    import numpy as np

    from crossdyn.comparison.dt_study import study_of

    # 3 s at 1 ms: the dt/2 run departs by 1e-4 rad per second; a "phenomenon" is reached only after 2 s
    t = np.arange(3001) * 1e-3
    q = np.stack([np.sin(t), 0.1 * t], axis=1)
    qh = q + 1e-4 * t[:, None]
    study = study_of(EULER, 1, q, qh, 3.0, lambda x: (bool(np.any(x[:, 1] > 0.2)),), balance=1e-3 * t)
    assert study.self_consistency_rad == pytest.approx(3e-4) and study.balance_rel == pytest.approx(3e-3)
    (t1, d1, r1, ex1, b1), (t2, d2, r2, ex2, b2) = study.prefixes
    assert (t1, t2) == (1.5, 0.75) and d1 == pytest.approx(1.5e-4) and d2 == pytest.approx(0.75e-4)
    assert not ex1 and not ex2 and b1 == pytest.approx(1.5e-3)  # the phenomenon comes after 2 s: no cut usable
    assert study.over(1) is None and study.over(0) is study


def test_a_cut_is_never_shorter_than_whole_steps():
    # 2 ms of run at 1 ms: its half is one step (here unusable), its quarter half a step (not a run, though its
    # figures would fit): nothing is cut, the step is kept
    study = SchemeStudy(EULER, 1, 0.0934, 2.57, ((0.001, 0.0934, 1.0, False), (0.0005, 0.0, 0.5, True)))
    choice = judgeable_dt(1e-3, [study], duration=0.002)
    assert choice.duration == 0.002 and choice.dt == 1e-3 and not choice.judgeable


def test_the_gentler_contact_motion_runs_at_most_its_own_duration():
    # pd-gravity presses the tip onto the obstacle within ~0.5 s (planar3r-wall: 0.44 s) and holds it: 1.5 s of a
    # longer run; a shorter asked duration is kept, and so is one 1.5 s is not a whole number of steps of
    from crossdyn.comparison.dt_study import GENTLE_DURATION, gentle_duration

    assert GENTLE_DURATION == 1.5
    assert gentle_duration(3.0, 1e-3) == 1.5
    assert gentle_duration(1.0, 1e-3) == 1.0
    assert gentle_duration(3.0, 0.4) == 3.0
