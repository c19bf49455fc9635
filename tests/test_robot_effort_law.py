"""Issue 38, "the file's joint limits and effort as phenomena": ``compare ROBOT --effort`` applies crossdyn's effort
law, τ = clip(τ_law, −limit, limit) per joint, in every run (the reference's and every engine's tracking law,
:class:`crossdyn.robotcompare.motion.TrackingLaw`) and judges the ``effort`` group
(:func:`crossdyn.robotcompare.effort.file_effort_group`, the planar arms' verdict
:func:`crossdyn.comparison.groups.effort.judged_saturation`).

Fast tier: the clip law, the choice of the limits, the group's verdicts, and the command's refusals.  Slow tier: real
engines (Pinocchio, MuJoCo RK4) on example-robot-data's UR5, whose effort limits the file states."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import robot_files
from crossdyn.robotcompare import motion
from crossdyn.robotcompare.effort import EFFORT_SATURATION, EffortLaw, effort_law, file_effort_group
from crossdyn.robots import read_robot

UR5E = Path(__file__).resolve().parent.parent / "examples" / "robots" / "menagerie_ur5e.xml"
"""Menagerie's UR5e (a file of the repository): effort 150/150/150/28/28/28 N m (actuatorfrcrange)."""


def _model():
    return read_robot(UR5E)


def test_clip_law_saturates_exactly_and_leaves_the_rest():
    limit = np.array([2.0, 1.0, np.inf])
    tau = np.array([[3.0, -0.5, 1e6], [-2.5, 1.0, -7.0], [1.999, -1.2, 0.0]])
    out = motion.clip_effort(tau, limit)
    assert out[0].tolist() == [2.0, -0.5, 1e6]       # above: exactly +limit; inside and unlimited: unchanged
    assert out[1].tolist() == [-2.0, 1.0, -7.0]      # below: exactly -limit; at the limit: itself
    assert out[2].tolist() == [1.999, -1.0, 0.0]


def test_tracking_law_clips_only_with_a_limit():
    n = 2
    law = motion.TrackingLaw(np.array([[5.0, -0.2]]), np.eye(n)[None], np.zeros((1, n)), np.zeros((1, n)))
    q, qd = np.array([0.01, 0.0]), np.zeros(n)
    free = law(0, q, qd)                              # 5 − 400·0.01 = 1, −0.2
    np.testing.assert_allclose(free, [1.0, -0.2], rtol=0, atol=1e-12)  # exact in binary up to the 0.01's rounding
    clipped = replace(law, limit=np.array([0.5, np.inf]))(0, q, qd)
    assert clipped[0] == 0.5 and clipped[1] == free[1]


def test_effort_law_scales_the_files_limits_so_that_one_joint_saturates():
    model = _model()
    effort = motion.effort_limits(model)
    ff = np.zeros((10, 6))
    ff[3] = 0.5 * effort                               # every joint at half its effort at one step
    ff[4, 3] = -0.6 * effort[3]                        # the wrist's demand the largest share: 60 %
    law = effort_law(model, ff)
    assert law is not None and law.joint == model.joints[3].name
    assert law.scale == pytest.approx(EFFORT_SATURATION * 0.6, rel=1e-12)
    assert law.limit[3] == pytest.approx(EFFORT_SATURATION * 0.6 * effort[3], rel=1e-12)  # 80 % of its peak
    assert "x s = 0.48" in law.line() and model.joints[3].name in law.line()
    ff[5, 1] = 2.0 * effort[1]                         # a demand past the file's own limit: the file's limits
    own = effort_law(model, ff)
    assert own is not None and own.scale == 1.0 and np.array_equal(own.limit, effort)
    assert "the file's own limits" in own.line()
    none = replace(model, joints=tuple(replace(j, effort=None) for j in model.joints))
    assert effort_law(none, ff) is None


def _law(model, scale=0.5):
    return EffortLaw(motion.effort_limits(model), scale, model.joints[1].name, 1.0)


def test_effort_group_counts_saturated_steps_and_fails_an_inexact_clip():
    model = _model()
    law = _law(model)
    limit = law.limit
    tau = np.tile(0.1 * limit, (20, 1))
    tau[5:9, 1] = limit[1]
    tau[12, 1] = -limit[1]                             # 5 steps at the limit on joint 2
    g = file_effort_group(model, law, tau, tau).values
    assert g["verdict"] == "PASS" and g["checks"] == 5
    assert g["saturated_steps"] == [0, 5, 0, 0, 0, 0] == g["reference_saturated_steps"]
    assert g["max_abs_error_by_unit"] == {"N m": 0.0} and g["clip_tolerance"] == 0.0
    assert g["native"].startswith("not run") and file_effort_group(
        model, law, tau, tau, "not applied: unclamped").values["native"].startswith("not applied: unclamped; crossdyn")
    bad = tau.copy()
    bad[13, 4] = limit[4] * (1 + 1e-12)                # one torque past the limit: not the clip
    f = file_effort_group(model, law, bad, tau).values
    assert f["verdict"] == "FAIL" and f["above_limit_steps"][4] == 1 and "not applied exactly" in f["failed_because"]
    assert f["max_abs_error_by_unit"]["N m"] > 0
    quiet = file_effort_group(model, law, np.tile(0.1 * limit, (20, 1)), tau).values
    assert quiet["verdict"] == "INCONCLUSIVE" and "no joint saturated" in quiet["inconclusive_because"]
    assert model.joints[0].name in quiet["inconclusive_because"]


def test_effort_flag_on_a_file_without_effort_limits_exits_2(tmp_path, capsys):
    from crossdyn.cli import main

    urdf = tmp_path / "noeffort.urdf"
    urdf.write_text('<robot name="r"><link name="base"/><link name="l1"><inertial><mass value="1"/>'
                    '<inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>'
                    '<joint name="j1" type="continuous"><parent link="base"/><child link="l1"/>'
                    '<axis xyz="0 0 1"/></joint></robot>')
    assert main(["compare", str(urdf), "--effort", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "--effort" in err and "noeffort.urdf" in err and "no effort limit" in err
    assert main(["compare", "planar2r", "--effort", "--out", str(tmp_path / "p")]) == 2
    assert "planar2r states no effort limit" in capsys.readouterr().err


@pytest.mark.slow
def test_compare_ur5_with_effort_saturates_in_every_run_alike():
    """example-robot-data's UR5 (effort 150/150/150/28/28/28 N m), Pinocchio and MuJoCo RK4, 0.5 s: the default
    motion's feedforward peaks at 52 % of the shoulder lift's effort (measured over 2 s; less over 0.5 s), so the
    limits are scaled to saturate it; every engine saturates on the steps the reference does (measured: the same
    counts) and agrees with it on the trajectory as without the clip.  Without --effort: no effort group."""
    pytest.importorskip("pinocchio")
    pytest.importorskip("mujoco")
    from crossdyn.robotcompare import RobotCompareOptions, compare_robot

    model = read_robot(robot_files.erd_ur5_urdf())
    opt = RobotCompareOptions(engines=("pinocchio", "mujoco-rk4"), duration=0.5, n_states=20, effort=True)
    result = compare_robot(model, opt)
    s = result.summary
    assert s["verdict"] == "PASS", (s["failures"], s["inconclusive"])
    law = s["effort_law"]
    assert law["applied"] and law["scale"] < 1 and law["scaled_on_joint"] == "shoulder_lift_joint"
    assert any(n.startswith("effort law (--effort)") for n in s["notes"])
    ref = np.abs(result.job.taus)
    assert np.all(ref <= np.array(law["limit"]))       # the reference's own torques clipped
    for name in ("pinocchio", "mujoco-rk4"):
        e = s["engines"][name]["effort"]
        assert e["verdict"] == "PASS" and e["checks"] > 0 and e["saturated_steps"][1] > 0
        assert e["above_limit_steps"] == [0] * 6
        assert e["native"].startswith("not applied")  # the engine's config: it steps tau unclamped
        # the engine saturates where the reference does, up to a few steps at the clip's kink
        assert abs(e["saturated_steps"][1] - e["reference_saturated_steps"][1]) <= 2
        assert s["engines"][name]["trajectory"]["verdict"] == "PASS"
    native = s["effort_law"]["native"]          # MuJoCo's own enforcement characterised, reported beside
    assert list(native) == ["mujoco-rk4@damping=false@native_effort=true"] and all(native[list(native)[0]]["clamps"])
    assert any(n.startswith("effort natively (reported, not judged)") for n in s["notes"])
    assert s["checks"]["effort"] == sum(s["engines"][n]["effort"]["checks"] for n in ("pinocchio", "mujoco-rk4"))


@pytest.mark.slow
def test_the_clip_changes_the_reference():
    """The law is applied in the reference: with --effort the UR5's reference leaves the unclipped one (shoulder lift
    held at 80 % of its peak demand), by far more than the reference's own 1e-12 tolerance."""
    from crossdyn.robotcompare.options import RobotCompareOptions
    from crossdyn.robotcompare.plan import plan_motion

    model = read_robot(robot_files.erd_ur5_urdf())
    free = plan_motion(model, RobotCompareOptions(duration=0.3), lambda msg: None)
    clipped = plan_motion(model, RobotCompareOptions(duration=0.3, effort=True), lambda msg: None)
    assert free.effort_law is None and free.law.limit is None
    assert clipped.effort_law is not None and clipped.law.limit is not None
    assert np.max(np.abs(clipped.reference.q - free.reference.q)) > 1e-4
    assert np.max(np.abs(clipped.taus[:, 1])) == pytest.approx(clipped.effort_law.limit[1], rel=0, abs=0)


@pytest.mark.slow
def test_compare_dh_arm_with_effort(tmp_path):
    """A DH arm (the Puma 560 spec, each joint given effort = 100 N m) through the same path: its MJCF loaded by
    Pinocchio and MuJoCo RK4, the reference the spec's own model; the law scaled (joint2 demands 43 % over 0.3 s,
    measured) and the effort group PASSes on both."""
    pytest.importorskip("pinocchio")
    pytest.importorskip("mujoco")
    import json

    from crossdyn.cli import main

    src = (Path(__file__).resolve().parent.parent / "examples" / "robots" / "puma560_rtb.toml").read_text()
    spec = tmp_path / "puma_effort.toml"
    spec.write_text(src.replace('name = "joint', 'effort = 100.0\nname = "joint'))
    out = tmp_path / "out"
    code = main(["compare", str(spec), "--effort", "--engines", "pinocchio,mujoco-rk4", "--duration", "0.2",
                 "--states", "10", "--no-plots", "--quiet", "--out", str(out)])
    s = json.loads((out / "summary.json").read_text())
    assert code == 0, (s["failures"], s["inconclusive"])
    assert s["effort_law"]["file_effort"] == [100.0] * 6 and s["effort_law"]["scale"] < 1
    for name in ("pinocchio", "mujoco-rk4"):
        assert s["engines"][name]["effort"]["verdict"] == "PASS"


@pytest.mark.slow
def test_effort_flag_on_a_planar_arm_with_effort_limits_is_what_runs_anyway(tmp_path):
    """A planar arm with ``effort`` keys: --effort is accepted and changes nothing (the applied mode runs on every
    arm with effort limits); the effort group is there either way."""
    import json

    from crossdyn.cli import main
    from crossdyn.models.presets import planar2r
    from crossdyn.models.spec_io import dumps_spec

    arm = tmp_path / "arm.toml"
    arm.write_text(dumps_spec(planar2r().with_link(0, effort=2.0).with_link(1, effort=1.0)))
    runs = {}
    for flag in ([], ["--effort"]):
        out = tmp_path / f"out{len(flag)}"
        main(["compare", str(arm), *flag, "--engines", "analytic", "--duration", "0.1", "--states", "10",
              "--no-plots", "--quiet", "--out", str(out)])
        runs[len(flag)] = json.loads((out / "summary.json").read_text())
    assert runs[0]["engines"]["analytic"]["effort"] == runs[1]["engines"]["analytic"]["effort"]
    assert runs[0]["checks"] == runs[1]["checks"]
