"""Issue 38: a robot file's joint limits as a phenomenon.  A default comparison switches every engine's own limit
enforcement off (listed in its config); ``compare ROBOT --native`` drives the joints into the file's limits with
each engine's own enforcement on and characterises every limit contact (:mod:`crossdyn.robotcompare.limits`), not
judged: a file states no stop stiffness, so crossdyn has no limit law to judge against (INCONCLUSIVE, saying so)."""
from __future__ import annotations

import json

import numpy as np
import pytest
import robot_files

from crossdyn.robots import read_robot
from crossdyn.robotcompare import limits, motion, runs

DT = 1e-3
LIMIT_RUN_S = 0.8
"""Long enough for the first limit contact of the limit motion to close: the limit-free reference leaves the limits
at 0.554 s on example-robot-data's UR5 (measured), a native stop at 0.46–0.48 s."""


def _ur5():
    return read_robot(robot_files.erd_ur5_urdf())


def test_limit_motion_starts_inside_and_passes_every_upper_limit():
    model = _ur5()
    desired = limits.limit_motion(model)
    assert desired is not None
    d = limits.push_depth(model)
    assert np.allclose(d, limits.PUSH_DEPTH_RAD)  # UR5: ranges of 2π and 4π, so d = 0.1 rad on every joint
    q, v, _ = desired.at(np.arange(0, 2.0, DT))
    hi, lo = model.upper(), model.lower()
    assert np.all(q[0] < hi) and np.allclose(q[0], hi - d) and np.all(v[0] > 0)  # inside, rising into the limit
    assert np.all(q.max(axis=0) > hi + d)       # the target passes every upper limit by more than d ...
    assert np.all(q.max(axis=0) <= hi + 2 * d + 1e-12) and np.all(q.min(axis=0) > lo)
    assert np.any(q[-1] < hi)                   # ... and comes back inside


def test_native_engines_one_per_family_and_plain_names_only():
    got = limits.native_engines(["pinocchio", "mujoco-rk4", "pybullet", "drake-rk4", "dart-rk4", "pybullet-noflag",
                                 "mujoco@limits=true", "mujoco-warp"])
    assert list(got) == ["mujoco-rk4@limits=true", "pybullet@limits=true", "drake-discrete@limits=true",
                         "dart@enforce_limits=true"]
    assert limits.native_engines(["pinocchio"]) == {}


def test_mujoco_limits_knob_turns_on_the_files_ranges_in_stepping_only():
    pytest.importorskip("mujoco")
    from crossdyn.engines.files import make_file_engine

    model = _ur5()
    off = make_file_engine("mujoco-rk4", model, DT)
    on = make_file_engine("mujoco-rk4@limits=true", model, DT)
    try:
        assert off.config()["joint_limits"].startswith("off (mjDSBL_CONSTRAINT")
        joints = on.config()["joint_limits"]["joints"]
        assert joints["elbow_joint"]["range"] == pytest.approx([-np.pi, np.pi], abs=1e-10)
        import mujoco

        D = mujoco.mjtDisableBit
        assert not on.ms.opt.disableflags & int(D.mjDSBL_CONSTRAINT)   # stepping: the solver on ...
        assert on.ms.opt.disableflags & int(D.mjDSBL_FRICTIONLOSS)      # ... for the limits alone
        assert on.m.opt.disableflags & int(D.mjDSBL_CONSTRAINT)         # queries: off
    finally:
        off.close()
        on.close()


def _limit_run(name: str, model):
    from crossdyn.engines.files import make_file_engine

    desired = limits.limit_motion(model)
    steps = round(LIMIT_RUN_S / DT)
    law = motion.tracking_law(model, desired, DT, steps)
    q0, qd0, _ = (x[0] for x in desired.at(np.zeros(1)))
    engine = make_file_engine(name, model, DT)
    try:
        return runs.step_engine(engine, law.feedforward, q0, qd0, DT, law=law)
    finally:
        engine.close()


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["pybullet", "mujoco-rk4"])
def test_native_enforcement_matters_the_joint_stops_with_limits_on_and_passes_with_them_off(engine):
    """With the engine's own limits on, every joint stops within d/4 (0.025 rad) of its upper limit (measured: PyBullet
    6.5e-4 rad, MuJoCo's soft default solreflimit (0.02, 1) 0.013 rad); off (crossdyn's default), every joint passes
    its limit by more than d (0.1 rad) as the limit-free target does (measured 0.153 rad)."""
    pytest.importorskip("pybullet" if engine == "pybullet" else "mujoco")
    model = _ur5()
    on, off = _limit_run(f"{engine}@limits=true", model), _limit_run(engine, model)
    assert on.status == off.status == "ok"
    beyond_on = np.max(on.q - model.upper(), axis=0)
    beyond_off = np.max(off.q - model.upper(), axis=0)
    assert np.all(beyond_on < 0.25 * limits.PUSH_DEPTH_RAD), beyond_on
    assert np.all(beyond_off > limits.PUSH_DEPTH_RAD), beyond_off
    contacts = limits.characterise(model, on, native=True)
    assert sorted(c["joint"] for c in contacts) == list(range(1, 7))     # one contact per joint, closed
    for c in contacts:
        assert not c["open"] and c["exit_speed"] < 0.5 * c["entry_speed"]  # stopped, not passed through
        assert c["peak_torque_nm"] > 0


@pytest.mark.slow
def test_compare_native_on_a_robot_file_characterises_without_judging(tmp_path, capsys):
    """``compare UR5 --native``: the default comparison as without --native, plus summary limits: the reference
    passes the limits, each engine with its own limits on stops near them; INCONCLUSIVE naming why (exit 3)."""
    pytest.importorskip("pybullet")
    pytest.importorskip("mujoco")
    from crossdyn.cli import main

    out = tmp_path / "out"
    code = main(["compare", str(robot_files.erd_ur5_urdf()), "--engines", "mujoco-rk4,pybullet", "--native",
                 "--duration", str(LIMIT_RUN_S), "--states", "5", "--quiet", "--no-plots", "--out", str(out)])
    printed = capsys.readouterr().out
    s = json.loads((out / "summary.json").read_text())
    jsonschema = pytest.importorskip("jsonschema")
    from crossdyn.cli.common import schema_text

    jsonschema.validate(s, json.loads(schema_text("compare-robot")))
    assert code == 3 and s["verdict"] == "INCONCLUSIVE" and not s["failures"]
    assert [line for line in s["inconclusive"] if "no limit law to judge" in line]
    assert all(e["status"] == "ok" for e in s["engines"].values())   # the default comparison ran as ever
    lim = s["limits"]
    assert lim["verdict"] == "INCONCLUSIVE" and lim["applied_law"] is None
    ref = {c["joint"]: c["max_penetration_rad"] for c in lim["reference"]["contacts"]}
    assert sorted(ref) == list(range(1, 7)) and min(ref.values()) > limits.PUSH_DEPTH_RAD
    assert set(lim["engines"]) == {"mujoco-rk4@limits=true", "pybullet@limits=true"}
    for name, run in lim["engines"].items():
        assert run["status"] == "ok" and run["joint_limits"] and run["enforced_by"]
        pen = {c["joint"]: c["max_penetration_rad"] for c in run["contacts"]}
        assert sorted(pen) == list(range(1, 7)) and max(pen.values()) < 0.25 * limits.PUSH_DEPTH_RAD, name
    assert "native limits: each engine's own enforcement" in printed and "pybullet@limits=true" in printed
    report = (out / "report.md").read_text()
    assert "## Joint limits, each engine's own" in report and "| pybullet@limits=true | shoulder_pan_joint |" in report


def test_native_without_an_engine_that_enforces_limits_says_so():
    """``--native`` with Pinocchio alone (no limit enforcement in its dynamics): INCONCLUSIVE naming the engines that
    have one; the default comparison is judged as ever."""
    pytest.importorskip("pinocchio")
    from crossdyn.robotcompare import RobotCompareOptions, compare_robot

    result = compare_robot(_ur5(), RobotCompareOptions(engines=("pinocchio",), duration=0.02, n_states=5,
                                                       native=True))
    s = result.summary
    assert s["engines"]["pinocchio"]["status"] == "ok" and not s["failures"]
    assert s["limits"]["verdict"] == "INCONCLUSIVE" and "none of the engines run" in s["limits"]["because"]
    assert s["verdict"] == "INCONCLUSIVE" and any("mujoco-rk4, pybullet" in line for line in s["inconclusive"])
    plain = compare_robot(_ur5(), RobotCompareOptions(engines=("pinocchio",), duration=0.02, n_states=5))
    assert "limits" not in plain.summary and plain.summary["verdict"] == "PASS"
