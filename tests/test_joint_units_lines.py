"""Per-joint units in the trajectory group's FAIL / INCONCLUSIVE lines (:class:`crossdyn.conventions.JointUnits`):
a prismatic joint's figures in m, a revolute joint's in rad, an arm of both kinds naming the joint; the planar
arms' words (no joints given) unchanged.  The fast tests build the group from runs written here (the group is
pure: its lines are a function of the runs); the slow ones run a real engine on the prismatic DH presets with a
tolerance of 1e-300 (a tolerances file), so that the line is forced to FAIL."""
from __future__ import annotations

import json
import re
from types import SimpleNamespace

import numpy as np
import pytest

from crossdyn.comparison.groups import trajectory
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.conventions import JointUnits


def _run(q, status="ok"):
    q = np.asarray(q, float)
    return SimpleNamespace(t=np.arange(len(q)) * 1e-3, q=q, status=status, message=None)


def _group(units: JointUnits | None, err=(1e-6, 3e-4), tol: Tolerances | None = None, same_err=(2e-5, 0.0)):
    """The trajectory group of a 2-joint run over 1 (rad or m) whose error against the reference is ``err`` per
    joint at the end, and against its same-scheme run ``same_err`` (dt/2 run: the engine's own)."""
    n = 11
    ramp = np.linspace(0.0, 1.0, n)[:, None] * np.ones((1, 2))
    engine = ramp + np.linspace(0.0, 1.0, n)[:, None] * np.asarray(err)[None, :]
    half = np.repeat(engine, 2, axis=0)[: 2 * n - 1]
    same = engine - np.linspace(0.0, 1.0, n)[:, None] * np.asarray(same_err)[None, :]
    side = trajectory.SideRuns(1, "semi-implicit-euler", _run(half), None, "semi-implicit-euler", _run(same),
                               "float64", _run(same + 1e-15), 2.2e-13, 1e-3)
    args = (_run(engine), _run(ramp), side, tol or Tolerances(), lambda q: np.zeros((len(q), 3)))
    group = trajectory.trajectory_group(*args) if units is None else trajectory.trajectory_group(*args, units)
    return group.values


def test_a_prismatic_arms_fail_line_says_m_and_a_revolute_ones_rad():
    prismatic = _group(JointUnits((False, False), ("d1", "d2")))
    revolute = _group(JointUnits((True, True), ("q1", "q2")))
    planar = _group(None)
    for v in (prismatic, revolute, planar):
        assert v["verdict"] == "FAIL"
    assert re.search(r"max error vs reference \S+ m > tolerance \S+ m\b", prismatic["failed_because"])
    assert re.search(r"error vs crossdyn's replica of its scheme \(analytic semi-implicit-euler: same scheme, so "
                     r"model error alone\) \S+ m > \S+ m\b", prismatic["failed_because"])
    assert not re.search(r"\brad\b", prismatic["failed_because"])
    assert not re.search(r"\d m\b", revolute["failed_because"])
    assert re.search(r"max error vs reference \S+ rad > tolerance \S+ rad\b", revolute["failed_because"])
    assert planar["failed_because"] == revolute["failed_because"]  # no joints given: the planar words, rad


def test_an_arm_of_both_kinds_names_the_joint_of_each_error():
    mixed = JointUnits((True, False), ("shoulder", "slide"))
    v = _group(mixed)
    # the largest error vs the reference is the slide's (3e-4 m); vs the same scheme, the shoulder's (2e-5 rad)
    assert re.search(r"max error vs reference \S+ m \(joint 'slide'\) > tolerance", v["failed_because"])
    assert re.search(r"model error alone\) \S+ rad \(joint 'shoulder'\) >", v["failed_because"])
    assert re.search(r"tolerance \S+ rad or m\b", v["failed_because"])


def test_a_not_judged_line_takes_the_joints_unit():
    # a run too sensitive to judge: its dt/2 rerun differs by more than 5 % of the motion's range
    n = 11
    ramp = np.linspace(0.0, 1.0, n)[:, None] * np.ones((1, 2))
    half = np.repeat(ramp, 2, axis=0)[: 2 * n - 1] + 0.2
    side = trajectory.SideRuns(1, "rk4", _run(half), None, None, None, "float64", None, 2.2e-13, 1e-3)
    words = {}
    for name, units in (("m", JointUnits((False, False), ("d1", "d2"))),
                        ("rad", JointUnits((True, True), ("q1", "q2")))):
        v = trajectory.trajectory_group(_run(ramp + 1e-3), _run(ramp), side, Tolerances(),
                                        lambda q: np.zeros((len(q), 3)), units).values
        assert v["verdict"] == "INCONCLUSIVE"
        words[name] = v["inconclusive_because"]
    assert re.search(r"its own dt/2 rerun differs by \S+ m,", words["m"])
    assert re.search(r"the error vs reference \S+ m is not judged", words["m"])
    assert re.search(r"range over the run, \S+ m, taken as at least \S+ m", words["m"])
    assert not re.search(r"\brad\b", words["m"])
    assert re.search(r"its own dt/2 rerun differs by \S+ rad,", words["rad"])
    assert words["rad"].replace(" rad", " m") == words["m"]


def test_joint_units_words():
    assert JointUnits().word() == "rad" and JointUnits().at([1.0, 2.0]) == "rad"
    assert JointUnits((False,), ("d",)).word("acceleration") == "m/s²"
    both = JointUnits((True, False, True), ("a", "b", "c"))
    assert both.word() == "rad or m" and both.word("acceleration") == "rad/s² or m/s²"
    assert both.at([1.0, None, 3.0]) == "rad (joint 'c')" and both.at([1.0, 5.0, float("nan")]) == "m (joint 'b')"
    assert both.at(None) == "rad or m"


def _compare(tmp_path, capsys, name: str) -> dict:
    from crossdyn.cli import main

    tol = tmp_path / "tiny.toml"
    tol.write_text("trajectory_abs_rad = 1e-300\n")
    try:
        code = main(["compare", name, "--engines", "mujoco", "--duration", "0.02", "--states", "5", "--quiet",
                     "--no-plots", "--out", str(tmp_path / name), "--tolerances", str(tol), "--json"])
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr().out
    assert code == 1, out
    return json.loads(out[out.index("{"):])


@pytest.mark.slow
@pytest.mark.parametrize("name, said", [("ppp-cartesian", r"reference \S+ m > tolerance 1e-300 m$"),
                                        ("rp-polar", r"reference \S+ (rad \(joint 'joint1'\)|m \(joint 'joint2'\)) "
                                                     r"> tolerance 1e-300 rad or m$"),
                                        ("elbow-rrr", r"reference \S+ rad > tolerance 1e-300 rad$")])
def test_a_real_runs_forced_fail_line_in_the_joints_unit(tmp_path, capsys, name, said):
    pytest.importorskip("mujoco")
    s = _compare(tmp_path, capsys, name)
    line = s["engines"]["mujoco"]["trajectory"]["failed_because"]
    assert re.search(said, line), line
