"""The compliant joint-limit law and its event-exact reference (crossdyn.analytic.laws.limit, crossdyn.analytic.references.limits).

Independent references: a 1R arm without gravity, whose contact is a linear spring–damper with a closed-form
solution (entry time, release time found by bisection on the closed form, exit time and velocity); and
fixed-step RK4 with the law inside every stage converging to the reference as dt → 0 on a 2R arm with gravity.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import bisect

from crossdyn.analytic.laws.limit import LimitLaw
from crossdyn.analytic.references.limits import rk4_limits, simulate_limits
from crossdyn.models.presets import planar2r, planarNr


def test_law_pushes_back_and_never_pulls():
    law = LimitLaw(np.array([-1.0]), np.array([0.5]), np.array([100.0]), np.array([2.0]))
    assert law.torque([0.0], [5.0])[0] == 0.0                               # inside: nothing
    assert law.torque([0.6], [1.0])[0] == pytest.approx(-100 * 0.1 - 2.0)  # beyond hi, moving out
    assert law.torque([0.6], [-10.0])[0] == 0.0                             # −k x − c q̇ = +10: would pull
    assert law.torque([-1.1], [-1.0])[0] == pytest.approx(100 * 0.1 + 2.0)  # symmetric below lo
    assert law.torque([-1.1], [10.0])[0] == 0.0


def test_one_joint_contact_matches_the_closed_form():
    spec = planarNr(1)
    spec = spec.with_link(0, limits=(-1.0, 0.5)).__class__(spec.with_link(0, limits=(-1.0, 0.5)).links,
                                                           gravity=(0.0, 0.0, 0.0), name="1r")
    link = spec.links[0]
    I = link.inertia + link.mass * link.com**2                 # 1/3 kg m² about the joint
    k, c, v0 = 100.0, 2.0, 2.0
    law = LimitLaw.from_spec(spec, k, c)
    w = math.sqrt(k / I)
    z = c / (2 * math.sqrt(k * I))
    wd = w * math.sqrt(1 - z * z)
    x = lambda s: v0 / wd * math.exp(-z * w * s) * math.sin(wd * s)  # noqa: E731 — penetration after entry
    v = lambda s: v0 * math.exp(-z * w * s) * (math.cos(wd * s) - z * w / wd * math.sin(wd * s))  # noqa: E731
    force = lambda s: -k * x(s) - c * v(s)  # noqa: E731
    t_in = 0.5 / v0
    s_rel = bisect(force, 1e-9, math.pi / wd, xtol=1e-15)       # the damper would start to pull here
    x_r, v_r = x(s_rel), v(s_rel)
    t_out = t_in + s_rel + x_r / -v_r                          # free again: straight back to hi
    run = simulate_limits(spec, law, [0.0], [v0], t_out + 0.05, output_dt=1e-3)
    kinds = [(j, what) for _, j, what in run.events]
    assert kinds == [(1, "enter upper"), (1, "release upper"), (1, "exit upper")]
    times = [t for t, _, _ in run.events]
    # event times located on the dense output to ~1e-12 s; rtol = atol = 1e-11 integration
    assert times == pytest.approx([t_in, t_in + s_rel, t_out], abs=1e-9)
    assert run.qd[-1, 0] == pytest.approx(v_r, abs=1e-9)
    assert run.q[-1, 0] == pytest.approx(0.5 + v_r * (run.t[-1] - t_out), abs=1e-9)
    inside = (run.t > t_in) & (run.t < t_in + s_rel)       # in contact: the damped oscillator's closed form
    assert inside.sum() > 20
    np.testing.assert_allclose(run.q[inside, 0], [0.5 + x(t - t_in) for t in run.t[inside]], atol=1e-9)


def test_fixed_step_rk4_converges_to_the_reference_with_gravity():
    spec = planar2r().with_link(0, limits=(-2.2, -1.2)).with_link(1, limits=(-0.4, 0.4))
    law = LimitLaw.from_spec(spec, 200.0, 3.0)
    q0, qd0, T = [-1.3, 0.0], [0.0, 2.0], 0.6
    ref = simulate_limits(spec, law, q0, qd0, T, output_dt=T / 6)
    assert {what for _, _, what in ref.events} >= {"enter upper", "exit upper"}  # the limit is really reached
    errs = []
    for dt in (4e-3, 2e-3, 1e-3, 5e-4):
        q, qd = rk4_limits(spec, law, q0, qd0, T, dt)
        errs.append(float(np.max(np.abs(q - ref.q[-1]))))
    # errors fall as dt falls, at least first order (steps straddle the switches), and reach < 1e-5 rad
    assert all(b < a for a, b in zip(errs, errs[1:])), errs
    assert errs[-1] < 1e-5 and errs[0] / errs[-1] > 8, errs


def test_held_torque_and_no_limits_equal_the_plain_model():
    from crossdyn.analytic.integrators import simulate

    spec = planar2r()
    law = LimitLaw.from_spec(spec, 100.0, 1.0)  # no limits in the spec: ±inf, the law never acts
    tau = np.array([0.3, -0.1])
    run = simulate_limits(spec, law, [-1.4, 0.1], [0.0, 0.0], 0.2, torque=lambda t: tau, hold=1e-3, output_dt=1e-3)
    plain = simulate(spec, np.array([-1.4, 0.1]), np.zeros(2), torque=lambda t, q, qd: tau, dt=1e-3, duration=0.2,
                     method="reference")
    assert run.events == []
    np.testing.assert_allclose(run.q, plain.q, atol=1e-9)  # both DOP853 restarted each ms, rtol 1e-11 vs 1e-12


# ------------------------------------------------------------------------------------------ spec and applied mode
def test_spec_keys_validated_and_round_trip(tmp_path):
    from crossdyn.models import get_preset
    from crossdyn.models.spec import SpecError
    from crossdyn.models.spec_io import dumps_spec, load_spec, spec_from_dict

    spec = get_preset("planar2r-limits")
    assert spec.has_limit_law and not planar2r().has_limit_law
    path = tmp_path / "l.toml"
    path.write_text(dumps_spec(spec))
    assert load_spec(path) == spec and "limit_stiffness = 50.0  # N m/rad" in path.read_text()
    base = {"length": 1, "mass": 1, "com": 0.5, "inertia": 0.1}
    for extra, msg in (({"limit_stiffness": 10.0}, r"limit_stiffness: needs limits"),
                       ({"limits": [-1, 1], "limit_damping": 1.0}, r"limit_damping: needs limit_stiffness > 0"),
                       ({"limits": [-1, 1], "limit_stiffness": -1.0}, r"limit_stiffness: must be >= 0 N m/rad")):
        with pytest.raises(SpecError, match=rf"links\[1\]\.{msg}"):
            spec_from_dict({"links": [{**base, **extra}]})


def test_applied_mode_converges_to_the_event_exact_reference():
    """The runner's zero-order-hold limit torque (from the engine's state each step) tends to the continuous
    law as dt → 0: about first order, the hold being first order."""
    from crossdyn.inputs.profiles import make_profile
    from crossdyn.drive.runner import run_engine
    from crossdyn.engines import make_engine
    from crossdyn.models import get_preset

    spec = get_preset("planar2r-limits")
    law = LimitLaw.of(spec)
    q0, qd0, T = np.array([-1.5, 0.0]), np.array([0.0, 2.0]), 0.4
    ref = simulate_limits(spec, law, q0, qd0, T, output_dt=T / 4)
    assert any(what == "enter upper" for _, j, what in ref.events if j == 2)
    zero = make_profile("zero", spec)
    errs = []
    for dt in (2e-3, 1e-3, 5e-4):
        with make_engine("analytic", spec, dt) as eng:
            run = run_engine(eng, zero, q0, qd0, T)
        errs.append(float(np.max(np.abs(run.q[-1] - ref.q[-1]))))
        if dt == 1e-3:
            assert np.any(run.tau != 0)  # the recorded (applied) torque is the limit torque
            with make_engine("analytic", spec, dt) as eng:
                free = run_engine(eng, zero, q0, qd0, T, limit_law=False)
            assert free.q[:, 1].max() > run.q[:, 1].max() + 0.05  # without the law joint 2 runs through
    assert errs[0] > errs[1] > errs[2] and 1.5 < errs[0] / errs[1] < 3 and errs[2] < 2e-3, errs


def test_compare_passes_in_applied_mode_and_says_how():
    from crossdyn.comparison.compare import compare
    from crossdyn.models import get_preset

    s = compare("planar2r-limits", duration=1.0, engines=("pybullet", "mujoco-rk4", "pinocchio"), n_states=20,
                convergence_dts=(4e-3, 2e-3)).summary
    assert s["verdict"] == "PASS", s["failures"]
    assert any(n.startswith("joint limits: crossdyn applies the compliant limit law") for n in s["notes"])
    assert s["engines"]["mujoco-rk4"]["energy"]["max_rel_drift"] is None
    assert "convergence" not in s["engines"]["pinocchio"]  # skipped (its dense reference has no limits)
    assert not any("sqrt(k / M_jj) dt" in n for n in s["notes"])  # k = 50: omega dt = 0.029
    stiff = compare(get_preset("planar2r-limits").with_links(limit_stiffness=5000.0), duration=0.05,
                    engines=("analytic",), n_states=5, convergence_dts=()).summary
    assert any("sqrt(k / M_jj) dt reaches 0.17" in n for n in stiff["notes"]), stiff["notes"]


def test_effort_counts_only_the_commanded_torque_with_a_limit_law():
    from crossdyn.inputs.profiles import make_profile
    from crossdyn.drive.runner import run_engine
    from crossdyn.engines import make_engine
    from crossdyn.models import get_preset

    spec = get_preset("planar2r-limits").with_links(effort=0.05)
    with make_engine("analytic", spec) as eng:
        run = run_engine(eng, make_profile("zero", spec), [-1.5, 0.0], [0.0, 2.0], 0.3)
    assert np.max(np.abs(run.tau)) > 0.05                # the limit torque exceeds the effort limit …
    assert run.info["effort"]["saturated_steps"] == [0, 0]  # … but it is not the actuator's, nothing saturated


def test_native_mujoco_limits_are_real_and_characterised():
    """mujoco@native_limits=true: range + direct solreflimit (−k, −c).  That is a reference *acceleration* in
    constraint space (mujoco #732), not the N m/rad law: the constraint pushes only where the free motion falls
    short of it.  Measured over 3 s of planar2r-limits' default profile (k = 50, c = 0.5): joint 1 goes 0.039 rad
    beyond its limit natively (0.054 rad with no limit at all, 0.033 rad with the applied law); joint 2 goes
    0.062 rad beyond natively, exactly as far as with no limit (the limit never pushed), 0.017 rad applied."""
    from crossdyn.comparison.compare import hanging_start
    from crossdyn.native.limits.runs import characterise_native
    from crossdyn.inputs.profiles import default_profile
    from crossdyn.drive.runner import run_engine
    from crossdyn.engines import make_engine
    from crossdyn.models import get_preset
    from crossdyn.models.mjcf import to_mjcf

    spec = get_preset("planar2r-limits")
    assert 'limited="true" range="-0.1 0.12" solreflimit="-50.0 -0.5"' in to_mjcf(spec, native_limits=True)
    assert 'limited="true"' not in to_mjcf(spec)  # off unless asked for
    prof, q0 = default_profile(spec), hanging_start(spec)
    r = characterise_native(spec, prof, q0, np.zeros(2), 3.0)
    assert r["applied_status"] == r["native_status"] == "ok"
    j1, j2 = r["joints"]
    with make_engine("mujoco-rk4", spec) as eng:
        free = run_engine(eng, prof, q0, np.zeros(2), 3.0, limit_law=False)  # no limit anywhere
    free1 = float(max(free.q[:, 0].max() + 1.40, -1.65 - free.q[:, 0].min()))
    free2 = float(max(free.q[:, 1].max() - 0.12, -0.10 - free.q[:, 1].min()))
    assert j1["penetration_native_rad"] < 0.8 * free1                     # the native limit acted on joint 1
    assert j2["penetration_native_rad"] == pytest.approx(free2, rel=1e-9)  # and never on joint 2
    assert j2["penetration_native_rad"] > 3 * j2["penetration_applied_rad"]
    assert j2["max_angle_difference_rad"] > 0.05  # native and applied are different physics here, and say so
    with make_engine("mujoco-rk4@native_limits=true", spec) as eng:
        cfg = eng.config()
    assert cfg["jnt_solref"][1] == [-50.0, -0.5] and "native_limits" in cfg


def test_native_pybullet_limits_are_hard_stops():
    """pybullet@native_limits=true: URDF limits, PyBullet's hard limit solver; k and c cannot be given to it.
    Measured (3 s, planar2r-limits' default profile): penetration 2.0e-4 / 6.4e-4 rad natively against
    0.032 / 0.017 rad with the applied compliant law."""
    from crossdyn.comparison.compare import hanging_start
    from crossdyn.native.limits.runs import characterise_native
    from crossdyn.inputs.profiles import default_profile
    from crossdyn.engines import make_engine
    from crossdyn.models import get_preset
    from crossdyn.models.urdf import to_urdf

    spec = get_preset("planar2r-limits")
    assert '<limit lower="-0.1" upper="0.12"' in to_urdf(spec, native_limits=True)
    assert '<limit lower="-0.1"' not in to_urdf(spec)
    r = characterise_native(spec, default_profile(spec), hanging_start(spec), np.zeros(2), 3.0, engine="pybullet")
    for j in r["joints"]:
        assert j["penetration_native_rad"] < 2e-3 < 1e-2 < j["penetration_applied_rad"]
    with make_engine("pybullet@native_limits=true", spec) as eng:
        assert "(hard) limit solver" in eng.config()["native_limits"]


def test_one_state_limit_torque_equals_the_batched_law():
    """The runner's per-step path (scalar arithmetic per limited joint) gives exactly the batched law's numbers,
    on both sides of every limit, with joints without limits and with one-sided limits."""
    import numpy as np

    from crossdyn.analytic.laws.limit import LimitLaw
    from crossdyn.models import get_preset

    spec = get_preset("planar3r").with_links(limits=(-1.0, 1.0), limit_stiffness=50.0, limit_damping=0.5)
    law = LimitLaw.of(spec.with_link(1, limits=None, limit_stiffness=0.0, limit_damping=0.0))
    one_sided = LimitLaw(np.array([-np.inf, -0.5, -np.inf]), np.array([0.5, np.inf, np.inf]), np.full(3, 80.0),
                         np.full(3, 2.0))
    rng = np.random.default_rng(0)
    Q, QD = rng.uniform(-2, 2, (2000, 3)), rng.uniform(-3, 3, (2000, 3))
    for lw in (law, one_sided):
        batch = lw.torque(Q, QD)
        assert np.count_nonzero(batch) > 500  # the states reach the limits
        assert np.array_equal(batch, np.array([lw.torque(q, qd) for q, qd in zip(Q, QD)]))
