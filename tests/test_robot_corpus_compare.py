"""Issue 38: the default ``compare`` on the robot files a user tries first (slow: each runs every installed engine
for the default 2 s).  Each file's verdict is asserted, and the reason for any non-PASS stated here.

What made these files FAIL or INCONCLUSIVE before, and is asserted gone: crossdyn's own open-loop motion leaving the
file's limits (robosuite's Panda, iiwa, Sawyer), PyBullet enforcing the URDF's limits (pybullet_data's kuka_iiwa,
example-robot-data's Panda: "model differs"), the Jaco's 1e-6 kg link making dt = 1 ms unstable ("pinocchio:
diverged at t = 0.007 s"), a missing meshes folder beside an MJCF ("mujoco: failed: could not load …"), a traceback
on a URDF without <inertial> (rtb-data's Puma: exit 2 now, named).  pybullet_data's franka_panda and xarm6 are
ambiguous files (massless links carrying inertia; inertias no rigid body has): INCONCLUSIVE naming the ambiguity.
A Puma 560 written from the Robotics Toolbox's numbers (``examples/robots/puma560_rtb.toml``) PASSes."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import robot_files

from crossdyn.cli import main
from crossdyn.robotcompare import compare_robot
from crossdyn.status import Exit

pytestmark = pytest.mark.slow

PASSING = ["erd_ur5", "erd_panda", "pybullet_iiwa", "robosuite_panda", "robosuite_iiwa", "robosuite_ur5e",
           "robosuite_sawyer", "robosuite_jaco"]


def _compare(name: str):
    return compare_robot(robot_files.CORPUS[name]()).summary


@pytest.mark.parametrize("name", PASSING)
def test_default_compare_passes(name):
    s = _compare(name)
    assert s["verdict"] == "PASS", (s["failures"], s["inconclusive"])
    tracking = s["reference"]["tracking"]
    assert tracking["within_limits"] and tracking["within_margin"]
    assert any(n.startswith("motion:") and "closest approach" in n for n in s["notes"])


def test_jaco_runs_at_a_stable_step_named_in_a_note():
    """robosuite's Jaco: joint 7 (1e-6 kg m², damping 0.01) is unstable at 1 ms; the comparison runs at 6.25e-5 s
    (0.5 s: at most 4x the default's 2000 steps) and says so."""
    s = _compare("robosuite_jaco")
    assert s["dt"] == pytest.approx(6.25e-5) and s["duration"] == pytest.approx(0.5)
    assert s["stability"]["dt_asked"] == 1e-3 and not s["stability"]["stable"]
    assert any("j2s7s300_joint_7" in n and "6.25e-05 s chosen" in n for n in s["notes"])


ROBOSUITE = {"robosuite_panda": "panda", "robosuite_iiwa": "iiwa", "robosuite_ur5e": "ur5e",
             "robosuite_sawyer": "sawyer", "robosuite_jaco": "jaco"}
NEVER_THE_REASON = ("joint limits", "diverged", "mesh", "failed", "Traceback")


@pytest.mark.parametrize("name", sorted(ROBOSUITE))
def test_default_compare_passes_without_the_meshes_folder(tmp_path, name):
    """robosuite's robot.xml copied alone: every body states its inertial, so the meshes are not needed (a note)."""
    folder = tmp_path / ROBOSUITE[name]
    folder.mkdir()
    path = shutil.copy(robot_files.robosuite_xml(ROBOSUITE[name]), folder / "robot.xml")
    s = compare_robot(path).summary
    assert s["verdict"] == "PASS", (s["failures"], s["inconclusive"])
    assert s["engines"]["mujoco-rk4"]["status"] == "ok"
    assert any("mesh files not found" in n for n in s["notes"])


def test_pybullet_panda_is_inconclusive_naming_its_massless_links_with_inertia():
    """panda_link8 and panda_grasptarget: mass 0 with inertia diag(0.1): engines read them differently (today
    drake-rk4 FAILs "model differs")."""
    s = _compare("pybullet_panda")
    assert s["verdict"] == "INCONCLUSIVE" and not s["failures"], s["failures"]
    assert any("ambiguous" in line and "panda_link8" in line for line in s["inconclusive"]), s["inconclusive"]
    assert not [line for line in s["inconclusive"] if any(w in line for w in NEVER_THE_REASON)]


def test_pybullet_xarm6_is_inconclusive_naming_its_impossible_inertias():
    """link2 and link3's principal moments violate the triangle inequality: PyBullet zeroes them ("Bad inertia tensor
    properties"), MuJoCo refuses the file (unsupported), Drake reads them otherwise (today pybullet and drake-rk4
    FAIL "model differs"); the unexpanded <mechanicalReduction> is a note; joint damping 1 on joint 6
    (M_jj = 8e-5) makes 1 ms unstable: a smaller dt is chosen and named, never a FAIL."""
    s = _compare("pybullet_xarm6")
    assert s["verdict"] == "INCONCLUSIVE" and not s["failures"], s["failures"]
    assert any("link2" in line or "link3" in line for line in s["inconclusive"]), s["inconclusive"]
    assert not [line for line in s["inconclusive"] if any(w in line for w in NEVER_THE_REASON)]


def test_rtb_puma560_urdf_without_inertials_exits_2_naming_the_links(tmp_path, capsys):
    """No <inertial> on any link: M(q) is singular; exit 2 naming the file and the links (was a LinAlgError)."""
    path = robot_files.CORPUS["rtb_puma560"]()
    code = main(["compare", str(path), "--no-plots", "--quiet", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == Exit.USAGE and "Traceback" not in err
    assert f"compare: {path}: " in err and "M(q) is singular" in err and "links without <inertial>" in err, err


def test_puma560_from_the_robotics_toolbox_passes(tmp_path):
    """examples/robots/puma560_rtb.toml (Corke's RTB Puma560, Armstrong et al. 1986: armature Jm G^2, damping B G^2)
    with the default engines and motion: PASS, the reference run inside the limits (it left them before)."""
    out = tmp_path / "o"
    code = main(["compare", str(robot_files.puma560_rtb_toml()), "--no-plots", "--quiet", "--out", str(out)])
    (summary,) = out.rglob("summary.json")
    s = json.loads(Path(summary).read_text())
    assert (code, s["verdict"]) == (Exit.PASS, "PASS"), (s["failures"], s["inconclusive"])
    assert s["reference"]["tracking"]["within_limits"] and s["reference"]["tracking"]["within_margin"]
    ok = [e for e, run in s["engines"].items() if run["status"] == "ok"]
    assert len(ok) >= 2, s["engines"]  # judged by engines (PyBullet cannot load armature: unsupported, listed)
