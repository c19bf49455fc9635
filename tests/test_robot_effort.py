"""Issue 38: a robot file's effort limits.  The default motion's torques stay within 90 % of the file's effort limits
(the reference's amplitudes halved otherwise, :mod:`crossdyn.robotcompare.plan`), and every file engine applies the
torque crossdyn gives it unclamped (the stepping contract), measured on real files by
:func:`crossdyn.robotcompare.effort.file_effort_check`."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import robot_files

from crossdyn.robots import read_robot
from crossdyn.robotcompare import motion
from crossdyn.robotcompare.options import RobotCompareOptions
from crossdyn.robotcompare.plan import plan_motion


def _with_efforts(model, efforts):
    joints = tuple(replace(j, effort=e) for j, e in zip(model.joints, efforts, strict=True))
    return replace(model, joints=joints)


def test_effort_limits_none_and_the_writers_1e9_are_no_limit():
    model = read_robot(robot_files.ur5e_description_urdf())
    assert motion.effort_limits(model).tolist() == [150.0, 150.0, 150.0, 28.0, 28.0, 28.0]
    odd = _with_efforts(model, [None, 1e9, 0.0, 28.0, 2e9, None])
    assert motion.effort_limits(odd).tolist() == [np.inf, np.inf, np.inf, 28.0, np.inf, np.inf]
    taus = np.array([[1e3, 1e3, 1e3, -14.0, 1e3, 1e3], [0.0, 0.0, 0.0, 7.0, 0.0, 0.0]])
    peak = motion.peak_effort(odd, taus)
    assert peak is not None and peak.joint == model.joints[3].name and peak.fraction == pytest.approx(0.5)
    assert motion.peak_effort(_with_efforts(model, [None] * 6), taus) is None


def test_default_motion_halved_to_stay_within_the_effort_limits_menagerie_ur5e():
    """MuJoCo Menagerie's UR5e (actuator forcerange ±150, ±28 N m; armature 0.1 kg m²): the full-amplitude
    multi-sine needs 173 % of the shoulder's effort (measured over 2 s); halved once, 69 % (0.3 s)."""
    model = read_robot(robot_files.menagerie_ur5e_xml())
    plan = plan_motion(model, RobotCompareOptions(duration=0.3), lambda msg: None)
    assert plan.effort is not None and plan.effort.fraction <= motion.EFFORT_FRACTION
    base = motion.multisine_motion(model)
    assert np.allclose(plan.desired.amplitude, 0.5 * base.amplitude)  # halved once
    assert "halved 1 time(s) to keep the reference inside the effort limits" in plan.notes[0]
    assert "its torques stay within 90 % of the file's effort limits" in plan.notes[0]
    peak = np.max(np.abs(plan.taus), axis=0)
    assert np.all(peak <= motion.EFFORT_FRACTION * motion.effort_limits(model))


def test_effort_below_the_holding_torque_is_said_not_halved():
    """Efforts below what holding the mid-limit pose takes: no amplitude would do, so the motion is left as it is
    and the note says so (the engines and the reference apply the torque unclamped)."""
    model = read_robot(robot_files.ur5e_description_urdf())
    weak = _with_efforts(model, [150.0, 1.0, 150.0, 28.0, 28.0, 28.0])  # the shoulder lift holds the arm
    plan = plan_motion(weak, RobotCompareOptions(duration=0.1), lambda msg: None)
    assert np.allclose(plan.desired.amplitude, motion.multisine_motion(weak).amplitude)
    assert plan.effort is not None and plan.effort.fraction > 1.0 and plan.effort.joint == model.joints[1].name
    assert "NOT within 90 %" in plan.notes[0] and "no smaller amplitude would do" in plan.notes[0]
    assert "unclamped" in plan.notes[0]
    free = plan_motion(_with_efforts(model, [None] * 6), RobotCompareOptions(duration=0.1), lambda msg: None)
    assert free.effort is None and "no joint has an effort limit" in free.notes[0]


URDF_ENGINES = ["pinocchio", "mujoco", "mujoco-rk4", "pybullet", "drake", "drake@integrator=discrete",
                "drake@integrator=rk3", "dart", "dart@native_step=true"]
MJCF_ENGINES = ["pinocchio", "mujoco", "mujoco-rk4", "drake", "drake@integrator=discrete"]
LIBRARY = {"pinocchio": "pinocchio", "mujoco": "mujoco", "mujoco-rk4": "mujoco", "pybullet": "pybullet",
           "drake": "pydrake", "dart": "dartpy"}


def _check(spec: str, path):
    from crossdyn.engines.files import make_file_engine
    from crossdyn.robotcompare.effort import file_effort_check

    pytest.importorskip(LIBRARY[spec.split("@")[0].split("-")[0]])
    model = read_robot(path)
    engine = make_file_engine(spec + "@damping=false", model, 1e-4)
    try:
        return file_effort_check(engine, model), engine.config()
    finally:
        engine.close()


@pytest.mark.parametrize("spec, path", [*((s, robot_files.erd_ur5_urdf) for s in URDF_ENGINES),
                                        *((s, robot_files.menagerie_ur5e_xml) for s in MJCF_ENGINES)])
def test_file_engines_apply_twice_the_effort_unclamped(spec, path):
    """Given τ = G + 2 × effort on one joint at a time, every engine's acceleration is the reference's for the
    unclamped torque (measured ≤ 2e-3 rad/s² against ≥ 36 rad/s² between the two readings), never the clamped one."""
    rows, config = _check(spec, path())
    assert config["effort_limits"].startswith("not applied")  # and the engine's config says so
    assert len(rows) == 6  # example-robot-data's UR5 and Menagerie's UR5e: six joints with effort limits
    for r in rows:
        assert not r["clamps"], r
        assert r["accel_error_unclamped"] <= 1e-4 * r["separation"], r
        assert r["accel_error_clamped"] >= 0.5 * r["separation"], r


def test_the_check_sees_an_engine_that_clamps():
    """The check's other side: MuJoCo stepped with τ clipped to the file's efforts before ``step`` (what an adapter
    that kept the file's actuator ``forcerange`` would do) is found clamping on every joint."""
    from crossdyn.engines.files import make_file_engine
    from crossdyn.robotcompare.effort import file_effort_check

    pytest.importorskip("mujoco")
    model = read_robot(robot_files.erd_ur5_urdf())
    engine = make_file_engine("mujoco@damping=false", model, 1e-4)
    limit = motion.effort_limits(model)
    step = engine.step
    engine.step = lambda tau: step(np.clip(tau, -limit, limit))  # type: ignore[method-assign]
    try:
        rows = file_effort_check(engine, model)
    finally:
        engine.close()
    assert len(rows) == 6 and all(r["clamps"] and r["accel_error_clamped"] <= 1e-9 * r["separation"] for r in rows)


@pytest.mark.slow
@pytest.mark.parametrize("spec, library", [("mujoco-warp", "mujoco_warp"), ("newton", "newton")])
def test_float32_file_engines_apply_twice_the_effort_unclamped(spec, library):
    """MuJoCo Warp (``qfrc_applied``) and Newton (``Control.joint_f``; SolverFeatherstone does not support
    ``joint_effort_limit``, its docs say) on a CPU: unclamped (measured ≤ 2.7e-3 rad/s² against ≥ 36 rad/s²)."""
    pytest.importorskip(library)
    from crossdyn.engines.files import make_file_engine
    from crossdyn.robotcompare.effort import file_effort_check

    model = read_robot(robot_files.erd_ur5_urdf())
    engine = make_file_engine(spec + "@damping=false", model, 1e-3)
    try:
        rows = file_effort_check(engine, model)
    finally:
        engine.close()
    assert len(rows) == 6
    assert all(not r["clamps"] and r["accel_error_unclamped"] <= 1e-4 * r["separation"] for r in rows), rows


@pytest.mark.parametrize("spec", ["mujoco", "mujoco-rk4"])
@pytest.mark.parametrize("path", [robot_files.erd_ur5_urdf, robot_files.menagerie_ur5e_xml])
def test_mujoco_native_effort_clamps_to_the_files_effort(spec, path):
    """The knob that switches MuJoCo's own effort enforcement on (``native_effort=true``: a plain motor per joint,
    ``forcerange`` = ±effort, τ as ``ctrl``; Menagerie's default class, a servo, overridden): given twice each
    joint's effort, the acceleration is the clamped torque's (measured ≤ 5e-15 of the clamped–unclamped gap under
    Euler, ≤ 5.4e-7 under RK4, whose first step from rest averages the acceleration over its stages; bound 1e-4,
    the unclamped check's above), where the default applies it unclamped (test above): the knob matters."""
    rows, config = _check(spec + "@native_effort=true", path())
    assert config["effort_limits"].startswith("applied natively")
    assert len(rows) == 6
    for r in rows:
        assert r["clamps"], r
        assert r["accel_error_clamped"] <= 1e-4 * r["separation"], r


@pytest.mark.parametrize("spec", ["drake-discrete", "drake-rk3"])
@pytest.mark.parametrize("path", [robot_files.erd_ur5_urdf, robot_files.menagerie_ur5e_xml])
def test_drake_native_effort_clamps_to_the_files_effort(spec, path):
    """Drake's own effort enforcement switched back on (``native_effort=true``: a ``JointActuator`` per joint with
    ``effort_limit`` = the file's effort, what Drake's URDF parser makes of a ``<transmission>``; τ through the
    actuation port): given twice each joint's effort, the acceleration is the clamped torque's (measured ≤ 7e-16 of
    the clamped-unclamped gap on the discrete plant, ≤ 5.4e-7 under the continuous plant's RK3, whose first step from
    rest averages over its stages; bound 1e-4, the unclamped check's), where off (crossdyn's default) the same
    engines apply it unclamped (``drake@integrator=discrete``/``rk3`` in the test above): the knob changes the
    motion.  The actuation Drake applied is clip(τ, −effort, effort) exactly (its net actuation port)."""
    from crossdyn.engines.files import make_file_engine

    rows, config = _check(spec + "@native_effort=true", path())
    assert config["effort_limits"].startswith("applied natively")
    assert config["actuator_effort_limits"] == dict(zip(read_robot(path()).joint_names, [150.0] * 3 + [28.0] * 3))
    assert len(rows) == 6
    for r in rows:
        assert r["clamps"], r
        assert r["accel_error_clamped"] <= 1e-4 * r["separation"], r
    model = read_robot(path())
    engine = make_file_engine(spec + "@native_effort=true", model, 1e-3)
    try:
        tau = np.array([400.0, -300.0, 10.0, 50.0, -60.0, 1.0])
        engine.reset(motion.pose(model), np.zeros(6))
        engine.step(tau)
        assert engine.net_actuation().tolist() == [150.0, -150.0, 10.0, 28.0, -28.0, 1.0]
    finally:
        engine.close()


def test_drake_rk4_refuses_native_effort_it_cannot_apply():
    """``drake-rk4`` steps with crossdyn's RK4 on Drake's forward dynamics, which no actuation enters: the knob is
    refused with the names that have it, not silently ignored."""
    pytest.importorskip("pydrake")
    from crossdyn.engines.files import make_file_engine
    from crossdyn.errors import EngineError

    with pytest.raises(EngineError, match="drake-rk3, drake-discrete"):
        make_file_engine("drake-rk4@native_effort=true", read_robot(robot_files.erd_ur5_urdf()), 1e-3)


def test_effort_native_modes_characterise_mujoco_and_drake_drake_rk4_by_drake_discrete():
    """``--effort``'s native characterisation (:func:`crossdyn.robotcompare.effort.native_modes`) on the default
    engines: MuJoCo RK4 and, for ``drake-rk4`` (crossdyn's stepping), Drake's discrete plant; both clamp on every
    joint, Drake's discrete plant at rounding (measured ≤ 5.5e-16 of the gap; bound 1e-9), MuJoCo RK4 within its
    first step's stage averaging (≤ 5.4e-7; bound 1e-4)."""
    pytest.importorskip("mujoco")
    pytest.importorskip("pydrake")
    from crossdyn.engines.files import make_file_engine
    from crossdyn.robotcompare.effort import native_line, native_modes

    model = read_robot(robot_files.erd_ur5_urdf())
    got = native_modes(model, ["pinocchio", "mujoco-rk4", "pybullet", "drake-rk4", "drake-discrete", "dart-rk4"],
                       lambda spec, dt: make_file_engine(spec, model, dt))
    assert list(got) == ["mujoco-rk4@damping=false@native_effort=true",
                         "drake-discrete@damping=false@native_effort=true"]
    for spec, bound in zip(got, (1e-4, 1e-9)):
        assert got[spec]["clamps"] == [True] * 6 and got[spec]["accel_error_clamped_fraction"] <= bound, got[spec]
    line = native_line(got)
    assert line is not None and "drake-discrete@damping=false@native_effort=true clamps on 6 of 6 joints" in line
