"""Effort limits natively in Drake and DART, checked the way tests/test_effort.py checks the other engines.

:func:`crossdyn.native.effort.native_effort_check` commands 3× the limit on one joint for one step without
crossdyn's saturation and compares the acceleration reached with the analytic model's for the saturated and
the unsaturated torque.  Drake's actuators carry the spec's effort limit and Drake clamps the actuation input
(continuous and discrete plants); DART reads the URDF ``effort`` as its joint force limits but the adapter's
``setForces`` bypasses them (only ``setCommands`` clamps), so DART is flagged by name in ``compare``.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pydrake")
dart = pytest.importorskip("dartpy")

from crossdyn import analytic  # noqa: E402
from crossdyn.native.effort import native_effort_check  # noqa: E402
from crossdyn.engines import make_engine  # noqa: E402
from crossdyn.models.presets import planar2r  # noqa: E402

# 1e-6 rad/s²: a one-step velocity difference of an integrator at dt = 1 ms (measured ≤ 1.3e-7 for the RK
# schemes, ~1e-14 for the Euler ones); the saturated and unsaturated accelerations differ by > 20 rad/s²
ACCEL_TOL = 1e-6


def limited():
    return planar2r().with_link(0, effort=2.0).with_link(1, effort=1.0)


@pytest.mark.parametrize("name, honoured", [("drake", True), ("drake-discrete", True), ("drake-rk5", True),
                                            ("dart", False), ("dart-rk4", False)])
def test_native_effort_check_names_what_drake_and_dart_do(name, honoured):
    with make_engine(name, limited()) as eng:
        rows = native_effort_check(eng)
    assert {r["joint"]: r["honoured"] for r in rows} == {1: honoured, 2: honoured}
    for r in rows:   # and clearly so: the engine reached one of the two accelerations, not something between
        near = r["accel_error_saturated"] if honoured else r["accel_error_unsaturated"]
        far = r["accel_error_unsaturated"] if honoured else r["accel_error_saturated"]
        assert near <= ACCEL_TOL and far > 20.0, r


def test_drake_actuators_carry_the_spec_effort_and_none_without_it():
    with make_engine("drake", limited()) as eng:
        assert eng.config()["actuator_effort_limits"] == [2.0, 1.0]
        # the clamp is Drake's own: its forward dynamics under 3x the limit is that of the limit
        q, qd = np.zeros(2), np.zeros(2)
        np.testing.assert_allclose(eng.forward_dynamics(q, qd, [6.0, -3.0]),
                                   analytic.forward_dynamics(limited(), q, qd, np.array([2.0, -1.0])), atol=1e-10)
    with make_engine("drake", planar2r()) as eng:
        assert eng.config()["actuator_effort_limits"] == ["inf", "inf"]
        assert native_effort_check(eng) == []


def test_dart_has_the_limits_but_set_forces_bypasses_them():
    """The reason DART is flagged: the URDF effort is DART's force limit, honoured by ``setCommands`` (FORCE
    actuator) but not by ``setForces``, the input the adapter (like DART's own examples for torque control) uses."""
    spec = limited()
    with make_engine("dart", spec) as eng:
        cfg = eng.config()
        assert cfg["force_limits"] == [[-2.0, 2.0], [-1.0, 1.0]] and "setForces" in cfg["force_limits_note"]
        sk = eng.skeleton
        sat = analytic.forward_dynamics(spec, np.zeros(2), np.zeros(2), np.array([2.0, 0.0]))
        raw = analytic.forward_dynamics(spec, np.zeros(2), np.zeros(2), np.array([6.0, 0.0]))
        for setter, expected in ((sk.setCommands, sat), (sk.setForces, raw)):
            eng.reset(np.zeros(2), np.zeros(2))
            setter(np.array([6.0, 0.0]))
            eng.world.step()
            # semi-implicit Euler from rest: q̇(dt)/dt is q̈ exactly, up to rounding (measured 3.6e-15)
            np.testing.assert_allclose(sk.getVelocities() / eng.dt, expected, atol=1e-9)


def test_compare_flags_dart_and_not_drake():
    from crossdyn.comparison.compare import compare

    # 1.5 x each effort, so that both joints saturate (the default profile's 0.2 s saturates none: INCONCLUSIVE)
    s = compare(limited(), duration=0.2, engines=("drake", "dart"), n_states=10, convergence_dts=(),
                profile="constant@value=3,1.5").summary
    assert s["verdict"] == "PASS", s["failures"] + s["inconclusive"]
    assert s["engines"]["dart"]["effort"]["checks"] == s["engines"]["drake"]["effort"]["checks"] == 400
    assert s["engines"]["dart"]["effort"]["native_ignored_joints"] == [1, 2]
    assert s["engines"]["drake"]["effort"]["native_ignored_joints"] == []
    (note,) = [n for n in s["notes"] if n.startswith("effort limit")]
    assert "ignored natively by dart (joint 1, 2)" in note and "honoured natively by drake" in note


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_limit_law_torque_goes_past_a_native_effort_clamp():
    """An arm with an effort limit AND a compliant limit law: the runner saturates the commanded torque and adds
    the limit torque, which is no actuator's.  MuJoCo's motors (forcerange) and Drake's actuators (effort_limit)
    clamp natively, so the sum given to them would lose the limit torque: ``step_applied`` hands it around the
    actuators (MuJoCo qfrc_applied, Drake's applied generalized force port) and every engine passes."""
    from crossdyn.comparison.compare import compare
    from crossdyn.models import get_preset

    spec = get_preset("planar2r-limits").with_link(0, effort=1.0).with_link(1, effort=0.05)
    s = compare(spec, duration=1.5, engines=("mujoco-rk4", "drake"), n_states=10, convergence_dts=()).summary
    assert s["verdict"] == "PASS", s["failures"]   # before: mujoco-rk4 and drake 0.18 rad off the reference
    assert s["engines"]["drake"]["effort"]["saturated_steps"][1] > 500     # joint 2 sits at its effort limit
    assert any(c["joint"] == 2 for c in s["limits"]["contacts"]["reference"])  # and meets its stop meanwhile
    # the clamp is real: the sum through the actuators is not what step_applied applies
    q, qd, tau, lim = np.array([-1.6, 0.1]), np.zeros(2), np.array([0.5, 0.05]), np.array([0.0, 1.0])
    for name in ("mujoco", "drake-discrete"):   # semi-implicit Euler: from rest q̇(dt) = dt q̈ exactly
        with make_engine(name, spec) as eng:
            eng.reset(q, qd)
            eng.step(tau + lim)
            summed = eng.state()[1]
            eng.reset(q, qd)
            eng.step_applied(tau, lim)
            split = eng.state()[1]
            eng.reset(q, qd)
            eng.step(tau)     # and step_applied leaves nothing behind for a plain step
            plain = eng.state()[1]
        want = analytic.forward_dynamics(spec, q, qd, tau + lim) * eng.dt   # no law here: τ_lim is `lim`
        np.testing.assert_allclose(split, want, atol=1e-12)         # rounding (measured 1.1e-17 rad/s)
        assert abs(summed[1] - split[1]) > 1e-3                      # the summed torque was clamped to 0.05
        np.testing.assert_allclose(plain, analytic.forward_dynamics(spec, q, qd, tau) * eng.dt, atol=1e-12)
