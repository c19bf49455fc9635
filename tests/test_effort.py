"""Actuator effort limits (TOML key ``effort``, N m, symmetric): saturation before the torque is applied.

Applied mode: the runner saturates for every engine (reference: the same run driven by the saturated torque
itself, bit for bit).  Native mode: each engine's own limit from the generated model, judged by the analytic
model's accelerations for the saturated and the unsaturated torque (MuJoCo's motor ``forcerange`` honours it;
PyBullet's TORQUE_CONTROL ignores the URDF ``effort``; Pinocchio has no actuator model).
"""
from __future__ import annotations

import numpy as np
import pytest

from crossdyn.native.effort import native_effort_check
from crossdyn.inputs.profiles import make_profile
from crossdyn.drive.runner import run_engine
from crossdyn.engines import make_engine
from crossdyn.models.mjcf import to_mjcf
from crossdyn.models.presets import planar2r
from crossdyn.models.spec import SpecError
from crossdyn.models.spec_io import dumps_spec, load_spec, spec_from_dict
from crossdyn.models.urdf import to_urdf


def limited():
    return planar2r().with_link(0, effort=2.0).with_link(1, effort=1.0)


def test_spec_key_validation_and_models(tmp_path):
    spec = limited()
    assert spec.has_effort and list(spec.effort_limits()) == [2.0, 1.0] and planar2r().effort_limits() is None
    path = tmp_path / "a.toml"
    path.write_text(dumps_spec(spec))
    assert load_spec(path) == spec and "effort = 2.0  # N m" in path.read_text()
    for bad, msg in (("0", "must be > 0 N m"), ("-1.5", "must be > 0 N m"), ('"x"', "must be a number")):
        with pytest.raises(SpecError, match=rf"links\[1\]\.effort: {msg}"):
            spec_from_dict({"links": [{"length": 1, "mass": 1, "com": 0.5, "inertia": 0.1,
                                       "effort": eval(bad)}]})  # noqa: S307 — literal values only
    assert 'effort="2.0"' in to_urdf(spec) and 'effort="1e9"' in to_urdf(planar2r())
    assert 'forcelimited="true" forcerange="-1.0 1.0"' in to_mjcf(spec) and "forcerange" not in to_mjcf(planar2r())


@pytest.mark.parametrize("profile", ["constant", "pd"])
def test_applied_mode_saturates_before_the_engine(profile):
    spec = limited()
    if profile == "constant":
        big, clipped = make_profile("constant", spec, value=[10.0, -10.0]), make_profile("constant", spec, value=[2.0, -1.0])
        with make_engine("analytic", spec) as eng:
            a = run_engine(eng, big, [0.3, 0.2], [0, 0], 0.2)
            b = run_engine(eng, clipped, [0.3, 0.2], [0, 0], 0.2)
        np.testing.assert_array_equal(a.q, b.q)             # the same torque reached the engine, bit for bit
        assert a.info["effort"]["saturated_steps"] == [200, 200]
        with make_engine("analytic", spec) as eng:           # native mode: the analytic engine has no limit
            c = run_engine(eng, big, [0.3, 0.2], [0, 0], 0.2, saturate=False)
        assert np.max(np.abs(c.q - a.q)) > 0.1
    else:  # closed loop: called every step, saturated every step
        pd = make_profile("pd-gravity", spec, target=[1.5, -1.0])
        with make_engine("analytic", spec) as eng:
            run = run_engine(eng, pd, [0.0, 0.0], [0, 0], 0.3)
        assert np.all(np.abs(run.tau) <= [2.0, 1.0]) and min(run.info["effort"]["saturated_steps"]) > 0


def test_native_mode_names_the_engines_that_ignore_the_limit():
    spec = limited()
    found = {}
    for name in ("mujoco", "mujoco-rk4", "pybullet", "pinocchio"):
        with make_engine(name, spec) as eng:
            found[name] = {r["joint"]: r["honoured"] for r in native_effort_check(eng)}
    assert found["mujoco"] == found["mujoco-rk4"] == {1: True, 2: True}   # motor forcerange clamps
    assert found["pybullet"] == {1: False, 2: False}   # TORQUE_CONTROL ignores the URDF effort
    assert found["pinocchio"] == {1: False, 2: False}  # no actuator model


def test_compare_reports_the_effort_group_and_flags_pybullet():
    import json
    from importlib.resources import files

    import jsonschema

    from crossdyn.comparison.compare import compare

    spec = limited()
    # 1.5 x each effort: both joints saturate (the default profile's 0.3 s does not: INCONCLUSIVE, see
    # tests/test_coverage_verdicts.py)
    s = compare(spec, duration=0.3, engines=("pybullet", "mujoco-rk4"), n_states=20, convergence_dts=(),
                profile="constant@value=3,1.5").summary
    assert s["verdict"] == "PASS", s["failures"] + s["inconclusive"]
    pb, mj = s["engines"]["pybullet"]["effort"], s["engines"]["mujoco-rk4"]["effort"]
    assert pb["verdict"] == mj["verdict"] == "PASS" and mj["checks"] == sum(mj["saturated_steps"]) == 600
    assert pb["native_ignored_joints"] == [1, 2] and mj["native_ignored_joints"] == []
    (note,) = [n for n in s["notes"] if n.startswith("effort limit")]
    assert "ignored natively by pybullet (joint 1, 2)" in note and "honoured natively by mujoco-rk4" in note
    jsonschema.validate(s, json.loads(files("crossdyn.comparison").joinpath("summary.schema.json").read_text()))
    from crossdyn.reporting import render_markdown, report_blocks

    md = render_markdown(report_blocks(s, []))
    assert "## Effort limits" in md and "| pybullet | 2 | 1 |" in md and "**ignored**" in md
    assert "Effort limits" not in render_markdown(report_blocks(compare(planar2r(), duration=0.05, engines=(
        "mujoco",), n_states=5, convergence_dts=()).summary, []))
