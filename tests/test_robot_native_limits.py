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
                                 "mujoco@limits=true", "mujoco-warp", "newton", "genesis"])
    assert list(got) == ["mujoco-rk4@limits=true", "pybullet@limits=true", "drake-discrete@limits=true",
                         "dart@enforce_limits=true", "newton@limits=true", "genesis@joint_limit=true"]
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
@pytest.mark.parametrize("engine", ["pybullet", "mujoco-rk4", "newton"])
def test_native_enforcement_matters_the_joint_stops_with_limits_on_and_passes_with_them_off(engine):
    """With the engine's own limits on, every joint stops within d/4 (0.025 rad) of its upper limit (measured: PyBullet
    6.5e-4 rad, MuJoCo's soft default solreflimit (0.02, 1) 0.013 rad, Newton's penalty ke = 1e4, kd = 10 in float32
    0.019 rad on the shoulder pan, 7.9e-4 rad on the light wrist 3); off (crossdyn's default), every joint passes its
    limit by more than d (0.1 rad) as the limit-free target does (measured 0.153 rad)."""
    pytest.importorskip({"pybullet": "pybullet", "mujoco-rk4": "mujoco", "newton": "newton"}[engine])
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
        assert c["peak_torque_nm"] > 0 and np.isfinite(c["max_penetration_rad"]) and c["max_penetration_rad"] > 0


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


def test_native_table_lists_an_engine_not_installed_with_its_install_command():
    """``--native`` with Pinocchio and Genesis named where Genesis is not installed: Genesis's native row
    (``genesis@joint_limit=true``) is in the section, skipped with the install command, as the comparison's own table
    lists a missing engine; the console table and the report show it."""
    pytest.importorskip("pinocchio")
    from crossdyn.engines.files import file_engine_status
    from crossdyn.reporting.blocks.robot import limits_blocks
    from crossdyn.robotcompare import RobotCompareOptions, compare_robot

    why = file_engine_status("genesis", None)
    if why is None:
        pytest.skip("genesis is installed here: its native row runs")
    s = compare_robot(_ur5(), RobotCompareOptions(engines=("pinocchio", "genesis"), duration=0.02, n_states=5,
                                                  native=True)).summary
    assert s["engines"]["genesis"]["status"] == "skipped"
    row = s["limits"]["engines"]["genesis@joint_limit=true"]
    assert row["status"] == "skipped" and row["reason"] == why and why.startswith("not installed: pip install")
    assert "Genesis's joint-limit constraint" in row["enforced_by"]
    assert "none of the engines run" in s["limits"]["because"]
    printed = limits.table(s["limits"])
    assert [line.split() for line in printed if "skipped" in line] == [["genesis@joint_limit=true", "skipped:",
                                                                        *why.split()]]
    assert not [line for line in printed if "reference" in line]  # no reference run: no engine ran
    table = [b for b in limits_blocks({**s, "dof": 6}) if b[0] == "table"][0]
    assert table[2] == [["genesis@joint_limit=true", *["–"] * 6, f"skipped: {why}"]]


def test_missing_engines_one_row_per_native_family():
    """The engines the comparison could not run, mapped to their native rows: a library not installed is skipped, an
    engine that does not read the format unsupported; families without native limits are not listed."""
    got = limits.missing_engines({"genesis": "not installed: pip install 'crossdyn[genesis]'",
                                  "pybullet": "pybullet does not read MJCF", "pinocchio": "not installed: x",
                                  "drake-rk4": "not installed: y", "drake": "not installed: y"})
    assert {k: v["status"] for k, v in got.items()} == {"genesis@joint_limit=true": "skipped",
                                                        "pybullet@limits=true": "unsupported",
                                                        "drake-discrete@limits=true": "skipped"}
    assert got["pybullet@limits=true"]["reason"] == "pybullet does not read MJCF"


def test_newton_says_which_limited_joint_it_cannot_hold():
    """Newton's knob refuses (unsupported, with the reason) a file whose limited joint its importer left without a
    penalty (ke <= 0) or a finite range, rather than running a pass-through as if enforced
    (:func:`crossdyn.engines.newton.file.unenforced_limits`; the UR5's imported values: ke = 1e4, its ranges)."""
    from crossdyn.engines.newton.file import unenforced_limits

    model = _ur5()
    lo, hi = model.lower(), model.upper()
    ke = np.full(6, 1e4)
    assert unenforced_limits(model, ke, lo, hi) == []
    ke[2] = 0.0
    hi_n = hi.copy()
    hi_n[4] = np.inf
    why = unenforced_limits(model, ke, lo, hi_n)
    assert why == ["joint 'elbow_joint': Newton's importer set joint_limit_ke = 0 (no penalty)",
                   f"joint 'wrist_2_joint': Newton holds no finite range ([{lo[4]:g}, inf]; the file's "
                   f"[{lo[4]:g}, {hi[4]:g}])"]


@pytest.mark.slow
def test_compare_native_with_newton_named_characterises_its_penalty():
    """``--native`` with Newton named (a GPU engine: run when named; here on the CPU): its own limits
    (``newton@limits=true``) characterised beside the reference, every joint's penetration measured, finite and
    within d/4 (measured 7.9e-4 to 0.019 rad), not judged; its config lists the penalty as imported (ke = 1e4)."""
    pytest.importorskip("newton")
    from crossdyn.robotcompare import RobotCompareOptions, compare_robot

    s = compare_robot(_ur5(), RobotCompareOptions(engines=("newton",), duration=LIMIT_RUN_S, n_states=5,
                                                  native=True)).summary
    assert not s["failures"] and s["limits"]["because"] == limits.NO_LAW
    run = s["limits"]["engines"]["newton@limits=true"]
    assert run["status"] == "ok" and run["joint_limits"].startswith("Newton's penalty")
    pen = {c["joint"]: c["max_penetration_rad"] for c in run["contacts"]}
    assert sorted(pen) == list(range(1, 7))
    assert all(np.isfinite(p) and 0 < p < 0.25 * limits.PUSH_DEPTH_RAD for p in pen.values()), pen
    assert s["engines"]["newton"]["config"]["limit_ke_imported"] == {j: 1e4 for j in _ur5().joint_names}
