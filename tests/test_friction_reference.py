"""The set-valued stick–slip reference (crossdyn.analytic.references.stick_slip) against independent paths.

Closed forms on a 1R arm (the joint's inertia I = J + m Lc² about the joint): held on a slope it sticks iff
|G| ≤ f_c; spinning without gravity or damping it stops at t = q̇0 I / f_c and stays; and fixed-step RK4 of the
regularised law −f_c tanh(q̇/v_s) converges to the reference as v_s shrinks (2R with gravity, sticking and slipping).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from crossdyn.analytic.laws.friction import FrictionLaw
from crossdyn.analytic.references.stick_slip import rk4_regularised, simulate_stick_slip
from crossdyn.models.presets import planarNr
from crossdyn.models.spec import ArmSpec


def _one(friction, gravity=(0.0, -9.81, 0.0), damping=0.0):
    link = planarNr(1).links[0]
    from dataclasses import replace
    return ArmSpec((replace(link, friction=friction, damping=damping),), gravity=gravity, name="1r")


@pytest.mark.parametrize("ratio,sticks", [(1 + 1e-6, True), (1 - 1e-6, False)])
def test_single_joint_on_a_slope_sticks_exactly_when_gravity_is_within_fc(ratio, sticks):
    q0 = 0.0  # link along x, gravity −y: G = m g Lc cos q0, stationary in q there (dG/dq = 0)
    l = planarNr(1).links[0]
    G = l.mass * 9.81 * l.com * math.cos(q0)
    run = simulate_stick_slip(_one(ratio * G), [q0], [0.0], 0.2)
    if sticks:
        assert np.all(run.q[:, 0] == q0) and np.all(run.qd == 0.0) and run.sticking.all()
    else:  # slips downward from rest: q̈ = (−G + f_c)/I < 0, nearly constant over a displacement of ~3e-7 rad
        a = (-G + ratio * G) / (l.inertia + l.mass * l.com**2)
        assert not run.sticking.any() and run.q[-1, 0] < q0
        assert run.q[-1, 0] - q0 == pytest.approx(0.5 * a * 0.2**2, rel=1e-4)


def test_decelerating_joint_stops_at_the_closed_form_time():
    spec = _one(0.3, gravity=(0.0, 0.0, 0.0))
    l = spec.links[0]
    inertia = l.inertia + l.mass * l.com**2
    qd0 = 2.0
    t_stop = qd0 * inertia / 0.3
    run = simulate_stick_slip(spec, [0.0], [qd0], t_stop + 0.5)
    assert len(run.events) == 1 and run.events[0][1:] == (1, "stick")
    assert run.events[0][0] == pytest.approx(t_stop, abs=1e-9)  # Brent on the dense output, rtol 1e-11
    q_stop = qd0 * t_stop / 2  # uniform deceleration
    after = run.t > t_stop + 1e-9
    assert np.all(run.qd[after] == 0.0)
    assert run.q[-1, 0] == pytest.approx(q_stop, abs=1e-9)


@pytest.mark.slow  # 3-10 s: make test's 7-minute budget (the slow tier runs it in CI)
def test_regularised_law_converges_to_the_reference():
    from dataclasses import replace
    base = planarNr(2)
    spec = replace(base, links=tuple(replace(l, friction=f, damping=0.05) for l, f in zip(base.links, (2.0, 0.6))))
    tau = lambda t: np.array([6.0 * math.sin(4 * t), 0.0])  # drives joint 1 back and forth through rest
    q0, qd0, T = [-1.2, 0.4], [0.0, 0.0], 1.0
    ref = simulate_stick_slip(spec, q0, qd0, T, torque=tau)
    assert any(e[2] == "stick" for e in ref.events) and any(e[2].startswith("slip") for e in ref.events)
    errs = []
    for v_s in (1e-1, 1e-2, 1e-3):
        q, _ = rk4_regularised(spec, FrictionLaw(np.array([2.0, 0.6]), v_s), q0, qd0, T, 2e-4, torque=tau)
        errs.append(float(np.max(np.abs(q - ref.q[-1]))))
    assert errs[1] < errs[0] / 3 and errs[2] < errs[1] / 3, errs  # ~linear in v_s
    assert errs[2] < 2e-3


def test_law_picks_a_stable_v_s():
    from dataclasses import replace
    base = planarNr(4)
    spec = replace(base, links=tuple(replace(l, friction=0.2) for l in base.links))
    law = FrictionLaw.of(spec, 1e-3)
    assert law.v_s >= 1e-3
    assert FrictionLaw.of(base, 1e-3) is None
    assert law.torque([1.0, -1.0, 0.0, 1e9])[3] == pytest.approx(-0.2)


def test_the_chosen_v_s_keeps_the_held_law_from_chattering():
    """Held over a step, −f_c tanh(q̇/v_s) is monotone at the chosen v_s (q̇ decays without changing sign); at
    v_s/5 (dt·λ/v_s = 2.5 > 2) the same explicit step overshoots and q̇ flips sign every step (the chatter the
    choice avoids).  1R without gravity, analytic semi-implicit Euler through the runner."""
    from crossdyn.inputs.profiles import make_profile
    from crossdyn.drive.runner import run_engine
    from crossdyn.engines import make_engine

    spec = _one(0.3, gravity=(0.0, 0.0, 0.0))
    law = FrictionLaw.of(spec, 1e-3)
    flips = []
    for v_s in (law.v_s, law.v_s / 5):
        e = make_engine("analytic-euler", _one(0.0, gravity=(0.0, 0.0, 0.0)), 1e-3)
        e.applied_friction = FrictionLaw(law.fc, v_s)
        tr = run_engine(e, make_profile("zero", spec), [0.0], [0.5 * law.v_s], 0.2)
        flips.append(int(np.sum(np.diff(np.sign(tr.qd[:, 0])) != 0)))
        if v_s == law.v_s:
            assert np.all(np.diff(np.abs(tr.qd[:, 0])) <= 0) and tr.qd[-1, 0] < 0.01 * law.v_s
            assert "tanh" in tr.info["config"]["applied_friction"]
    assert flips[0] == 0 and flips[1] > 100
