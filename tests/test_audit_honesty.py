"""Issue 38's audit honesty on the real files: an engine's refusal is "unsupported" (listed with why, not counted),
missing mesh files are notes where the file states the inertials, an unreadable value that enters no compared
quantity is a note, a reversed joint axis is a finding of its own, a singular M(q) exits 2 naming the file and the
cause (the engines' default inertials named), and files with different joint counts are compared on their common
chain."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import robot_files as rf

pytest.importorskip("crossdyn.engines.files", reason="the file engines are not merged")

from crossdyn.cli import main  # noqa: E402
from crossdyn.status import Exit  # noqa: E402

FAST = "pinocchio,mujoco-rk4"


def audit(tmp_path: Path, *argv: str, name: str = "out") -> tuple[int, dict]:
    out = tmp_path / name
    code = main(["audit", *argv, "--out", str(out), "--quiet", "--no-plots"])
    return code, json.loads((out / "summary.json").read_text())


def without_meshes(tmp_path: Path, robot: str) -> Path:
    """robosuite's ``robot.xml`` copied alone (no meshes/ folder beside it)."""
    folder = tmp_path / robot
    folder.mkdir()
    return Path(shutil.copy(rf.robosuite_xml(robot), folder / "robot.xml"))


# --- 1. a refusal is "unsupported", not "failed" -------------------------------------------------------------------
@pytest.mark.parametrize("robot", ["panda", "iiwa", "ur5e", "sawyer", "jaco"])
def test_drakes_refusal_of_the_massless_base_is_unsupported_not_failed(tmp_path, robot):
    """Drake refuses the fixed base body of mass 0: listed as unsupported with why, not counted: PASS."""
    code, doc = audit(tmp_path, str(rf.robosuite_xml(robot)), "--engines", "pinocchio,drake-rk4", "--states", "5")
    (drake,) = [r for r in doc["engines"] if r["engine"] == "drake-rk4"]
    assert drake["status"] == "unsupported" and "body of mass 0" in drake["reason"] and "base" in drake["reason"]
    assert code == Exit.PASS and doc["verdict"] == "PASS"
    assert any(f.startswith("unsupported (not counted): drake-rk4 on robot.xml: ") and "mass 0" in f
               for f in doc["findings"])


def test_default_audit_of_robosuite_panda_passes_with_drake_unsupported(tmp_path):
    code, doc = audit(tmp_path, str(rf.robosuite_xml("panda")), "--states", "10")
    status = {r["engine"]: r["status"] for r in doc["engines"]}
    assert status["drake-rk4"] == "unsupported" and "failed" not in status.values()
    assert code == Exit.PASS and doc["verdict"] == "PASS"


# --- 2. missing mesh files: notes where the file states the inertials ------------------------------------------------
def test_an_mjcf_without_its_meshes_folder_is_read_by_every_engine(tmp_path):
    """robosuite's Panda copied without meshes/: MuJoCo loads the copy without the mesh geoms and assets (every body
    states its inertial), PASS, and one note names the missing files."""
    path = without_meshes(tmp_path, "panda")
    code, doc = audit(tmp_path, str(path), "--engines", "pinocchio,mujoco", "--states", "5")
    assert code == Exit.PASS and doc["verdict"] == "PASS"
    assert all(r["status"] == "ok" for r in doc["engines"])
    (note,) = [f for f in doc["findings"] if "mesh files not found" in f]
    assert "58 of 58 mesh files not found: meshes/link0.stl" in note and "not needed" in note
    (mj,) = [r for r in doc["engines"] if r["engine"] == "mujoco"]
    assert any("<mesh> asset(s) no geom left in the copy uses (58 of them name a file that does not exist)" in x
               for x in mj["config"]["copy_removed"])


def test_compare_of_an_mjcf_without_its_meshes_passes(tmp_path, capsys):
    path = without_meshes(tmp_path, "iiwa")
    code = main(["compare", str(path), "--engines", FAST + ",mujoco", "--duration", "0.05", "--states", "20",
                 "--no-plots", "--out", str(tmp_path / "c")])
    out = capsys.readouterr().out
    assert code == Exit.PASS, out
    assert "mesh files not found" in out and "failed" not in out


def test_a_mesh_that_gives_a_body_its_inertia_is_named_when_missing(tmp_path, capsys):
    """Where a body states no inertial its mass comes from its geoms: a mesh there is needed, and the message names
    the body and the file (exit 2)."""
    path = without_meshes(tmp_path, "panda")
    text = path.read_text()
    start = text.index('<inertial pos="0 0 -0.07" mass="3"')
    path.write_text(text[:start] + text[text.index("/>", start) + 2:])  # link1 without its <inertial>
    code = main(["audit", str(path), "--engines", "none", "--out", str(tmp_path / "o"), "--quiet"])
    assert code == Exit.USAGE
    err = capsys.readouterr().err
    assert f"{path}:" in err and "link1_vis.obj does not exist" in err and "body 'link1' needs its inertia" in err


# --- 3. an unreadable value entering no compared quantity: a note -----------------------------------------------------
def test_xarm6s_unexpanded_reduction_is_a_note(tmp_path):
    code, doc = audit(tmp_path, str(rf.pybullet_xarm6_urdf()), "--engines", FAST, "--states", "5")
    assert code == Exit.PASS and doc["verdict"] == "PASS"
    (mj,) = [r for r in doc["engines"] if r["engine"] == "mujoco-rk4"]  # it refuses link2's inertia: not counted
    assert mj["status"] == "unsupported" and "A + B >= C" in mj["reason"]
    (note,) = [f for f in doc["findings"] if "<mechanicalReduction>" in f]
    assert '"reduction"' in note and "'tran2'" in note and "not read" in note
    assert "enters none of M, G, C·q̇ or inverse dynamics" in note


# --- 5. a singular M(q): exit 2 naming the file and the cause; the engines' default inertials named -----------------
PUMA_CAUSE = ("M(q) is singular", "j1, j2, j3, j4, j5, j6", "links without <inertial> (link2, link3, link4, link5, "
              "link6, link7) carry no mass", "PyBullet and DART read each such link as 1 kg with unit inertia")


@pytest.mark.parametrize("command", ["compare", "audit"])
def test_puma_without_inertials_exits_2_naming_the_file_and_the_cause(tmp_path, capsys, command):
    """rtb-data's Puma 560 URDF has no <inertial>: compare tracebacked (LinAlgError, exit 1); both exit 2 now."""
    path = rf.rtb_puma560_urdf()
    code = main([command, str(path), "--no-plots", "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err
    assert code == Exit.USAGE and "Traceback" not in err
    assert f"{command}: {path}: " in err and all(words in err for words in PUMA_CAUSE), err


def test_engines_default_inertials_are_the_explanation_and_no_figure_is_relative_to_zero(tmp_path):
    """Where the audit runs on the Puma (a pair: its file diff is meaningful), PyBullet's and DART's readings are
    explained by their default 1 kg / unit inertia, and every figure is absolute (crossdyn's M, G … are 0)."""
    path = rf.rtb_puma560_urdf()
    copy = Path(shutil.copy(path, tmp_path / "puma_copy.urdf"))
    code, doc = audit(tmp_path, str(path), str(copy), "--engines", "pinocchio,pybullet,mujoco", "--states", "5")
    pb = [c for c in doc["dynamics"] if c["engine"] == "pybullet"]
    assert len(pb) == 8 and all(c["status"] == "by design" for c in pb)
    assert all("links without <inertial> (link2, link3, link4, link5, link6, link7) as 1 kg with unit inertia"
               in c["explanation"] for c in pb)
    lines = [f for f in doc["findings"] if "engine pybullet" in f]
    assert lines and all("in absolute terms" in f and "the scale is 0" in f and "of its largest entry" not in f
                         for f in lines)
    mj = [r for r in doc["engines"] if r["engine"] == "mujoco"]
    assert all(r["status"] == "unsupported" and "mjMINVAL" in r["reason"] for r in mj)  # a refusal, not counted
    assert code == Exit.PASS  # the two files agree; the engines' defaults are shown, not judged


# --- 4. a reversed joint axis is a finding of its own --------------------------------------------------------------
def edited_panda(tmp_path: Path, old: str, new: str) -> Path:
    """robosuite's Panda with one joint line edited (the copy beside the original's meshes is not needed)."""
    text = rf.robosuite_xml("panda").read_text()
    assert text.count(old) == 1
    path = tmp_path / "panda_edited.xml"
    path.write_text(text.replace(old, new))
    return path


JOINT3 = 'name="joint3" pos="0 0 0" axis="0 0 1" limited="true" range="-2.8973 2.8973"'
JOINT4 = 'name="joint4" pos="0 0 0" axis="0 0 1" limited="true" range="-3.0718 -0.0698"'


def test_a_reversed_axis_fails_naming_the_joint(tmp_path):
    """joint3's axis flipped (its limits are symmetric, so they still match): it passed as '0 of N parameters
    differ' because the matching relabelled q → −q silently; now it FAILs naming the joint."""
    a = rf.robosuite_xml("panda")
    b = edited_panda(tmp_path, JOINT3, JOINT3.replace('axis="0 0 1"', 'axis="0 0 -1"'))
    code, doc = audit(tmp_path, str(a), str(b), "--engines", "none", "--states", "5")
    assert code == Exit.FAIL and doc["verdict"] == "FAIL" and doc["match_sign"] is False
    (row,) = doc["file_diffs"][0]["differing"]
    assert row["element"] == "joint joint3" and row["parameter"] == "axis direction" and row["status"] == "differs"
    assert any(f.startswith("the files differ: joint joint3: axis reversed; q maps to −q") for f in doc["findings"])
    assert all(c["status"] == "agree" for c in doc["dynamics"])  # through q_B = −q_A the dynamics agree


def test_a_reversed_axis_with_mirrored_limits_fails_unless_matched_by_sign(tmp_path):
    """joint4's axis flipped and its limits [−3.0718, −0.0698] mirrored to [0.0698, 3.0718]: the same joint written
    the other way round; FAIL by default, PASS with --match-sign, the reversal called out."""
    a = rf.robosuite_xml("panda")
    mirrored = JOINT4.replace('axis="0 0 1"', 'axis="0 0 -1"').replace('range="-3.0718 -0.0698"',
                                                                       'range="0.0698 3.0718"')
    b = edited_panda(tmp_path, JOINT4, mirrored)
    code, doc = audit(tmp_path, str(a), str(b), "--engines", "none", "--states", "5")
    assert code == Exit.FAIL
    assert [(r["element"], r["parameter"]) for r in doc["file_diffs"][0]["differing"]] == [
        ("joint joint4", "axis direction")]
    code, doc = audit(tmp_path, str(a), str(b), "--engines", "none", "--states", "5", "--match-sign", name="signed")
    assert code == Exit.PASS and doc["verdict"] == "PASS" and doc["match_sign"] is True
    assert not doc["file_diffs"][0]["differing"]
    assert any(f.startswith("called out: joint joint4: axis reversed; q maps to −q (matched by sign")
               for f in doc["findings"])
    unmirrored = edited_panda(tmp_path, JOINT4, JOINT4.replace('axis="0 0 1"', 'axis="0 0 -1"'))
    code, doc = audit(tmp_path, str(a), str(unmirrored), "--engines", "none", "--match-sign", name="limits")
    assert code == Exit.FAIL  # matched by sign, the limits then differ
    assert {r["parameter"] for r in doc["file_diffs"][0]["differing"]} == {"lower limit", "upper limit"}


# --- 6. files with different joints: compared on their common chain -------------------------------------------------
def test_locking_joints_at_zero_keeps_the_dynamics_of_the_other_joints():
    """example-robot-data's 9-joint Panda with its two finger joints fixed at 0 (bodies welded to the hand): M, G
    and ID of the 7 arm joints equal the full model's at the same states with the fingers at rest at 0."""
    import numpy as np

    import crossdyn.spatial as spatial
    from crossdyn.audit.common import lock_joints
    from crossdyn.robots import read_robot

    full = read_robot(rf.erd_panda_urdf())
    assert full.n == 9
    arm = lock_joints(full, set(range(7)))
    assert arm.n == 7 and arm.joint_names == full.joint_names[:7]
    rng = np.random.default_rng(1)
    q7, qd7, qdd7 = (rng.uniform(-1, 1, (5, 7)) for _ in range(3))
    pad = np.zeros((5, 2))
    q, qd, qdd = (np.hstack([x, pad]) for x in (q7, qd7, qdd7))
    scale = float(np.abs(spatial.crba(full, q)).max())
    assert np.abs(spatial.crba(arm, q7) - spatial.crba(full, q)[:, :7, :7]).max() <= 1e-14 * scale
    assert np.allclose(spatial.gravity_torque(arm, q7), spatial.gravity_torque(full, q)[:, :7], rtol=0, atol=1e-12)
    assert np.allclose(spatial.rnea(arm, q7, qd7, qdd7), spatial.rnea(full, q, qd, qdd)[:, :7], rtol=0, atol=1e-12)


def test_different_joint_counts_are_compared_on_their_common_chain(tmp_path):
    """robosuite's 7-joint Panda against Menagerie's 9-joint Panda (fingers): the parameter table printed and the
    M/G/ID comparison silently skipped before; now compared on the 7 joints both have, with the note."""
    a, b = rf.robosuite_xml("panda"), rf.menagerie_panda_xml()
    code, doc = audit(tmp_path, str(a), str(b), "--engines", "none", "--states", "10")
    assert code == Exit.FAIL and doc["verdict"] == "FAIL"
    (d,) = doc["file_diffs"]
    assert d["matching"]["only_b"] == ["left_finger", "right_finger"]
    assert "compared on the 7 joints both files have" in d["common_chain"]
    assert "finger_joint1, finger_joint2 of menagerie_panda.xml fixed at 0" in d["common_chain"]
    pair = {c["quantity"]: c for c in doc["dynamics"] if c["engine"] is None}
    assert set(pair) == {"M", "G", "C·q̇", "ID"} and all(c["status"] == "differs" for c in pair.values())
    assert pair["G"]["explanation"] == "masses and CoMs of all 7 links explain the whole G difference"
    assert any(f.startswith("the files differ in their joints: M, G, C·q̇, ID compared on the 7 joints")
               for f in doc["findings"])


def test_compare_reads_xarm6_with_its_unexpanded_reduction(tmp_path, capsys):
    """compare exited 2 on the same value; it reads the file now and names the value in a note."""
    code = main(["compare", str(rf.pybullet_xarm6_urdf()), "--engines", FAST, "--duration", "0.05", "--states", "20",
                 "--no-plots", "--out", str(tmp_path / "c")])
    out = capsys.readouterr().out
    assert code != Exit.USAGE and "verdict:" in out, out
    assert "<mechanicalReduction> of 5 transmission(s)" in out and '"reduction"' in out
