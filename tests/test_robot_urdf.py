"""The URDF reader on real robot files (example-robot-data, pybullet_data), checked against the files' own numbers
and against Pinocchio's URDF parser (urdfdom) as an independent reading; bad files give InputError naming the file,
the element and the value."""
from __future__ import annotations

import math
from importlib.metadata import distribution
from pathlib import Path

import numpy as np
import pytest

from crossdyn.errors import InputError
from crossdyn.robots import JointType, Severity, read_robot
from crossdyn.robots.checks import inertial_notes, model_notes, placeholder_notes
from crossdyn.robots.model import Body, Format, Inertial, Joint, RobotModel
from crossdyn.robots.urdf import read_urdf, rpy_matrix

ERD = Path(str(distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots")))


def _pybullet_data() -> Path:
    import pybullet_data
    return Path(pybullet_data.getDataPath())


ERD_PANDA = ERD / "panda_description/urdf/panda.urdf"
ERD_UR5 = ERD / "ur_description/urdf/ur5_robot.urdf"
PB_PANDA = _pybullet_data() / "franka_panda/panda.urdf"
PB_IIWA = _pybullet_data() / "kuka_iiwa/model.urdf"
REAL = {"erd-panda": ERD_PANDA, "erd-ur5": ERD_UR5, "pb-panda": PB_PANDA, "pb-iiwa": PB_IIWA}

PANDA_JOINTS = tuple(f"panda_joint{i}" for i in range(1, 8)) + ("panda_finger_joint1", "panda_finger_joint2")


def notes_of(model: RobotModel, severity: Severity | None = None):
    return [n for n in model.notes if severity is None or n.severity is severity]


# --- real files: what they say --------------------------------------------------------------------------------

def test_erd_panda_read_as_the_file_writes_it():
    m = read_urdf(ERD_PANDA)
    assert (m.name, m.format, m.base, m.n) == ("panda", Format.URDF, "panda_link0", 9)
    assert m.joint_names == PANDA_JOINTS
    assert [j.type for j in m.joints] == [JointType.REVOLUTE] * 7 + [JointType.PRISMATIC] * 2
    assert m.parents == (-1, 0, 1, 2, 3, 4, 5, 6, 6)  # both fingers hang from the hand, welded to link 7
    j4 = m.joints[3]  # <limit effort="87.0" lower="-3.0718" upper="-0.0698" velocity="2.175"/>, damping 0.003
    assert (j4.lower, j4.upper, j4.effort, j4.velocity, j4.damping, j4.friction) == (
        -3.0718, -0.0698, 87.0, 2.175, 0.003, 0.0)
    assert m.joints[7].effort == 100.0 and m.joints[7].damping == 0.3
    masses = [4.970684, 0.646926, 3.228604, 3.587895, 1.225946, 1.666555]
    assert [b.inertial.mass for b in m.bodies[:6]] == masses
    # link 7 (0.735522 kg) with the hand (0.73 kg) welded to it; link8 and the TCP are massless
    assert m.bodies[6].inertial.mass == pytest.approx(0.735522 + 0.73, rel=1e-15)
    assert m.bodies[6].merged == ("panda_link8", "panda_hand", "panda_hand_tcp")
    assert np.array_equal(m.gravity, [0.0, 0.0, -9.81])
    assert any("no gravity" in n.message for n in notes_of(m, Severity.INFO))


def test_erd_ur5_base_links_and_transmissions():
    m = read_urdf(ERD_UR5)
    assert m.n == 6 and m.is_chain and m.base == "world"
    assert m.joint_names == ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
                             "wrist_2_joint", "wrist_3_joint")
    assert [b.inertial.mass for b in m.bodies] == [3.7, 8.393, 2.275, 1.219, 1.219, 0.1879]
    assert [j.effort for j in m.joints] == [150.0] * 3 + [28.0] * 3
    assert m.joints[2].lower == -3.14159265359 and m.joints[0].upper == 6.28318530718
    base = [n for n in m.notes if n.where == "link 'world'"]
    assert len(base) == 1 and "base_link, base" in base[0].message and "4 kg" in base[0].message
    assert m.bodies[5].merged == ("ee_link", "tool0")
    assert [j.gear for j in m.joints] == [1.0] * 6  # its transmissions say mechanicalReduction 1
    assert not [n for n in m.notes if "mesh" in n.where]  # package://example-robot-data/... found above the file
    # wrist_2: origin xyz 0 0.093 0, no rotation
    assert np.array_equal(m.joints[4].origin[:3, 3], [0.0, 0.093, 0.0])


def test_pybullet_panda_placeholders_and_massless_link8():
    m = read_urdf(PB_PANDA)
    assert m.n == 9 and m.joint_names == PANDA_JOINTS
    assert [b.inertial.mass for b in m.bodies[:6]] == [2.7, 2.73, 2.04, 2.08, 3.0, 1.3]
    ambiguous = {n.where: n.message for n in notes_of(m, Severity.AMBIGUOUS)}
    link8 = ambiguous["link 'panda_link8' (welded to 'panda_link7')"]
    assert "mass 0 with inertia diag(0.1, 0.1, 0.1)" in link8 and "MuJoCo" in link8
    suspect = [n.message for n in notes_of(m, Severity.SUSPECT)]
    assert len(suspect) == 1 and suspect[0].startswith("placeholder inertia diag(0.1) on 13 links (panda_link0,")
    # Pinocchio keeps link8's inertia: link 7 carries 0.2 + 0 + 0.81 + 0 kg and the massless links' 0.1 each
    assert m.bodies[6].inertial.mass == pytest.approx(1.01, rel=1e-15)
    assert "panda_link8" in m.bodies[6].merged and "panda_grasptarget" in m.bodies[6].merged
    assert any("PyBullet <contact> of link 'panda_leftfinger'" in r for r in m.removed)


def test_pybullet_iiwa_masses_damping_and_limits():
    m = read_urdf(PB_IIWA)
    assert m.n == 7 and m.is_chain and m.base == "lbr_iiwa_link_0"
    assert [b.inertial.mass for b in m.bodies] == [4.0, 4.0, 3.0, 2.7, 1.7, 1.8, 0.3]
    assert all(j.damping == 0.5 and j.effort == 300.0 and j.velocity == 10.0 for j in m.joints)
    assert m.joints[1].upper == 2.09439510239
    assert notes_of(m, Severity.SUSPECT) == [] and notes_of(m, Severity.AMBIGUOUS) == []


def test_mimic_is_read_as_an_independent_joint_with_an_ambiguous_note():
    m = read_urdf(ERD_PANDA)
    (note,) = [n for n in m.notes if "<mimic>" in n.where]
    assert note.severity is Severity.AMBIGUOUS and "panda_finger_joint1" in note.message
    assert any(r.startswith("mimic constraint q(panda_finger_joint2) = 1·q(panda_finger_joint1)") for r in m.removed)


# --- an independent reading: Pinocchio (urdfdom) ---------------------------------------------------------------

def assert_same_as_pinocchio(path: Path, tol: float = 1e-12) -> float:
    """Per joint: mass, centre of mass, inertia about it, joint placement and parent equal Pinocchio's to ``tol``
    (absolute; the files' numbers are O(1), and both sides do a handful of float64 products)."""
    pin = pytest.importorskip("pinocchio")
    m, pm = read_urdf(path), pin.buildModelFromUrdf(str(path))
    assert pm.nv == m.n
    data = pm.createData()
    pin.forwardKinematics(pm, data, pin.neutral(pm))
    worst = 0.0
    for i, (body, joint) in enumerate(zip(m.bodies, m.joints, strict=True)):
        k = pm.getJointId(joint.name)
        Y = pm.inertias[k]
        assert pm.parents[k] - 1 == m.parents[i] and pm.names[k] == joint.name
        for a, b in ((Y.mass, body.inertial.mass), (Y.lever, body.inertial.com), (Y.inertia, body.inertial.inertia),
                     (pm.jointPlacements[k].homogeneous, joint.origin)):
            worst = max(worst, float(np.max(np.abs(np.asarray(a) - b))))
        S = np.asarray(data.joints[k].S)
        axis = np.r_[np.zeros(3), joint.axis] if joint.type.rotates else np.r_[joint.axis, np.zeros(3)]
        worst = max(worst, float(np.max(np.abs(S.ravel() - axis))))  # motion subspace: (linear, angular)
    assert worst <= tol, f"{path.name}: differs from Pinocchio by {worst:.3g}"
    return worst


@pytest.mark.parametrize("key", list(REAL))
def test_real_files_agree_with_pinocchio(key):
    assert_same_as_pinocchio(REAL[key])


SYNTHETIC = """<?xml version="1.0"?>
<robot name="tree">
  <link name="world"/>
  <joint name="to_base" type="fixed"><parent link="world"/><child link="base"/>
    <origin xyz="0.1 0 0.2" rpy="0 0 0.3"/></joint>
  <link name="base"><inertial><mass value="3"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>
    </inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/>
    <origin xyz="0.01 -0.02 0.3" rpy="0.3 -0.7 1.1"/><axis xyz="0.2 0.5 -0.9"/>
    <limit lower="-1" upper="2" effort="40" velocity="3"/></joint>
  <link name="a"><inertial><origin xyz="0.05 0.02 -0.1" rpy="0.4 1.2 -2.0"/><mass value="2.5"/>
    <inertia ixx="0.03" ixy="0.002" ixz="-0.001" iyy="0.025" iyz="0.0015" izz="0.02"/></inertial></link>
  <joint name="weld" type="fixed"><parent link="a"/><child link="a_tool"/>
    <origin xyz="0.2 0.1 0" rpy="-0.5 0.25 0.8"/></joint>
  <link name="a_tool"><inertial><origin xyz="0 0.03 0.01" rpy="1.0 0 0.5"/><mass value="0.7"/>
    <inertia ixx="0.004" ixy="0" ixz="0.0003" iyy="0.005" iyz="0" izz="0.006"/></inertial></link>
  <joint name="weld2" type="fixed"><parent link="a_tool"/><child link="marker"/>
    <origin xyz="0 0 0.05" rpy="0.1 0.2 0.3"/></joint>
  <link name="marker"><inertial><mass value="0"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="slide" type="prismatic"><parent link="marker"/><child link="b"/>
    <origin xyz="0.3 0 0" rpy="0 1.5707963267948966 0"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0.4" effort="100" velocity="0.5"/><dynamics damping="2" friction="0.5"/></joint>
  <link name="b"><inertial><origin xyz="0 0 0.1"/><mass value="1.2"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.002"/></inertial></link>
  <joint name="spin" type="continuous"><parent link="a"/><child link="c"/>
    <origin xyz="-0.1 0.2 0.05" rpy="2.0 -0.3 0.6"/><axis xyz="0 1 0"/></joint>
  <link name="c"><inertial><origin xyz="0.02 0 0" rpy="0 0 0"/><mass value="0.9"/>
    <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.003" iyz="0" izz="0.004"/></inertial></link>
  <joint name="spin_tip" type="fixed"><parent link="c"/><child link="c_tip"/><origin xyz="0 0 0.1"/></joint>
  <link name="c_tip"/>
  <transmission name="t_spin"><type>transmission_interface/SimpleTransmission</type>
    <joint name="spin"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="m_spin"><mechanicalReduction>50</mechanicalReduction></actuator></transmission>
</robot>
"""


def test_synthetic_tree_with_rotated_origins_agrees_with_pinocchio(tmp_path):
    """A branching tree with general roll-pitch-yaw on joints and inertials, a rotated inertia with products,
    two levels of welded links (one massless with an inertia), an unaligned axis of length 1.05 (both readers
    normalise it), a prismatic and a continuous joint.  Bodies are in the file's depth-first order (Pinocchio's
    urdfdom visits a link's joints sorted by name: j1, spin, slide); the comparison goes by joint name."""
    path = tmp_path / "tree.urdf"
    path.write_text(SYNTHETIC)
    assert_same_as_pinocchio(path)
    m = read_urdf(path)
    assert m.joint_names == ("j1", "slide", "spin") and m.parents == (-1, 0, 0)
    assert [j.type for j in m.joints] == [JointType.REVOLUTE, JointType.PRISMATIC, JointType.CONTINUOUS]
    assert m.bodies[0].merged == ("a_tool", "marker") and m.bodies[2].merged == ("c_tip",)
    assert np.linalg.norm(m.joints[0].axis) == pytest.approx(1.0, abs=1e-15)
    assert (m.joints[1].damping, m.joints[1].friction, m.joints[2].gear, m.joints[0].gear) == (2.0, 0.5, 50.0, 1.0)
    assert m.joints[2].lower is None and m.joints[2].effort is None
    wheres = {n.where: n for n in m.notes}
    assert wheres["link 'marker' (welded to 'a')"].severity is Severity.AMBIGUOUS
    assert wheres["link 'c_tip' (welded to 'c')"].message == "no <inertial>: massless"
    assert "base" in wheres["link 'world'"].message
    assert wheres["joint 'j1' <axis>"].message == "axis (0.2 0.5 -0.9) has length 1.04881: normalised"


def test_rpy_is_fixed_axis_roll_pitch_yaw():
    """R = Rz(y) Ry(p) Rx(r): rotating by roll about x first, then pitch about the fixed y, then yaw about the
    fixed z (the URDF specification), checked on basis vectors one angle at a time and against the product."""
    r, p, y = 0.3, -0.7, 1.1
    assert np.allclose(rpy_matrix(math.pi / 2, 0, 0) @ [0, 1, 0], [0, 0, 1], atol=1e-15)
    assert np.allclose(rpy_matrix(0, math.pi / 2, 0) @ [0, 0, 1], [1, 0, 0], atol=1e-15)
    assert np.allclose(rpy_matrix(0, 0, math.pi / 2) @ [1, 0, 0], [0, 1, 0], atol=1e-15)
    R = rpy_matrix(0, 0, y) @ rpy_matrix(0, p, 0) @ rpy_matrix(r, 0, 0)
    assert np.allclose(rpy_matrix(r, p, y), R, atol=1e-15, rtol=0)


def test_missing_meshes_are_an_info_note(tmp_path):
    """The pybullet Panda's package://meshes/... paths resolve next to the file; copied elsewhere they do not,
    and the file is still read, with one INFO note naming them."""
    assert not [n for n in read_urdf(PB_PANDA).notes if "mesh" in n.where]
    copy = tmp_path / "panda.urdf"
    copy.write_text(PB_PANDA.read_text())
    m = read_urdf(copy)
    (note,) = [n for n in m.notes if n.where == "<mesh filename>"]
    assert note.severity is Severity.INFO
    assert note.message.startswith("22 of 22 mesh files not found: 'package://meshes/collision/link0.obj'")
    assert m.n == 9


# --- bad files: InputError naming the file, the element and the value -------------------------------------------

MINI = """<?xml version="1.0"?>
<robot name="mini">
  <link name="base"/>
  <joint name="j1" type="revolute">
    <parent link="base"/>
    <child link="l1"/>
    <origin xyz="0 0 0.1" rpy="0 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="10" velocity="2"/>
    <dynamics damping="0.1"/>
  </joint>
  <link name="l1">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
  </link>
</robot>
"""

LOOP = """  <joint name="j2" type="revolute"><parent link="base"/><child link="l1"/>
    <limit lower="-1" upper="1" effort="10" velocity="2"/></joint>
</robot>"""

BAD = {  # name: (replace this, by this, what the message must say besides the file)
    "broken XML": ("</joint>", "</joint", ["line 12", "not well-formed XML"]),
    "zero axis": ('<axis xyz="0 0 1"/>', '<axis xyz="0 0 0"/>',
                  ["line 8", "joint 'j1' <axis>", 'xyz="0 0 0"', "zero axis"]),
    "negative mass": ('<mass value="1"/>', '<mass value="-1"/>', ["link 'l1' <inertial>", '"-1"', "negative mass"]),
    "nan mass": ('<mass value="1"/>', '<mass value="nan"/>', ["link 'l1' <inertial>", '"nan"', "not a finite"]),
    "missing parent": ('<parent link="base"/>', "", ["line 4", "joint 'j1'", "no <parent link"]),
    "unknown link": ('<parent link="base"/>', '<parent link="nowhere"/>',
                     ["line 5", "joint 'j1' <parent>", '"nowhere"', "no such link"]),
    "floating": ('type="revolute"', 'type="floating"', ["joint 'j1'", '"floating"', "floating base unsupported"]),
    "planar": ('type="revolute"', 'type="planar"', ["joint 'j1'", '"planar"', "planar joints"]),
    "unknown type": ('type="revolute"', 'type="ball"', ["joint 'j1'", '"ball"', "unknown joint type"]),
    "closed loop": ("</robot>", LOOP, ["joint 'j2'", "closed loop", "'l1'", "joint 'j1' (line 4)"]),
    "two roots": ("</robot>", '<link name="extra"/></robot>', ["link 'extra'", "2 root links ('base', 'extra')"]),
    "not a number": ('effort="10"', 'effort="ten"', ["line 9", "joint 'j1' <limit>", 'effort="ten"', "not a number"]),
    "short vector": ('xyz="0 0 0.1"', 'xyz="0 0.1"', ["joint 'j1' <origin>", 'xyz="0 0.1"', "2 numbers, expected 3"]),
    "no limit": ('<limit lower="-1" upper="1" effort="10" velocity="2"/>', "",
                 ["joint 'j1'", "revolute joint needs <limit"]),
    "no effort": ('effort="10" ', "", ["joint 'j1' <limit>", "no effort="]),
    "lower above upper": ('lower="-1" upper="1"', 'lower="1" upper="-1"', ["joint 'j1' <limit>", 'lower="1" > upper="-1"']),
    "missing izz": ('izz="0.1"', "", ["link 'l1' <inertial>", "no izz="]),
    "no mass": ('<mass value="1"/>', "", ["link 'l1' <inertial>", "no <mass"]),
    "duplicate link": ('<link name="base"/>', '<link name="base"/><link name="base"/>',
                       ["link 'base'", "'base' used twice"]),
    "unknown mimic": ("<dynamics", '<mimic joint="j9"/><dynamics', ["joint 'j1' <mimic>", '"j9"']),
    "negative damping": ('damping="0.1"', 'damping="-0.1"', ["joint 'j1' <dynamics>", 'damping="-0.1"', "negative"]),
    "nothing moves": ('type="revolute"', 'type="fixed"', ["<robot name=\"mini\">", "nothing moves"]),
}


def test_an_unreadable_reduction_is_a_note_not_a_refusal(tmp_path):
    """A transmission's reduction scales the actuator's command only (it enters none of M, G, C·q̇, ID): text that is
    no number is a SUSPECT note naming it, the gear stays 1, the file is read."""
    path = tmp_path / "mini.urdf"
    path.write_text(MINI.replace("</robot>", '<transmission name="t"><joint name="j1"/><actuator name="m">'
                                 "<mechanicalReduction>lots</mechanicalReduction></actuator></transmission></robot>"))
    m = read_urdf(path)
    (note,) = [n for n in m.notes if "mechanicalReduction" in n.where]
    assert note.severity is Severity.SUSPECT
    assert '"lots"' in note.message and "'t'" in note.message and "not read" in note.message
    assert m.joints[0].gear == 1.0


def test_mini_is_valid(tmp_path):
    path = tmp_path / "mini.urdf"
    path.write_text(MINI)
    m = read_robot(path)
    assert m.n == 1 and m.joints[0].damping == 0.1 and m.bodies[0].inertial.mass == 1.0


@pytest.mark.parametrize("case", list(BAD))
def test_bad_file_names_file_element_and_value(tmp_path, case):
    old, new, said = BAD[case]
    assert old in MINI or old == "</robot>"
    path = tmp_path / "bad.urdf"
    path.write_text(MINI.replace(old, new, 1))
    with pytest.raises(InputError) as e:
        read_urdf(path)
    message = str(e.value)
    assert message.startswith(f"{path}: "), message
    for part in said:
        assert part in message, f"{part!r} not in {message!r}"
    assert "\n" not in message


def test_read_robot_raises_input_error_for_bad_urdf(tmp_path):
    """``read_robot`` (the dispatch every command uses) lets the reader's InputError through: the command line
    turns it into exit status 2 with the one-line message."""
    path = tmp_path / "bad.urdf"
    path.write_text(MINI.replace('<axis xyz="0 0 1"/>', '<axis xyz="0 0 0"/>'))
    with pytest.raises(InputError, match=r"bad\.urdf: line 8: joint 'j1' <axis>: xyz=\"0 0 0\": zero axis"):
        read_robot(path)
    with pytest.raises(InputError, match="no such robot file"):
        read_robot(tmp_path / "absent.urdf")


def test_limits_default_to_zero_with_a_note(tmp_path):
    path = tmp_path / "ok.urdf"
    path.write_text(MINI.replace('lower="-1" ', ""))
    m = read_urdf(path)
    assert (m.joints[0].lower, m.joints[0].upper) == (0.0, 1.0)
    (note,) = [n for n in m.notes if n.where == "joint 'j1' <limit>"]
    assert note.message == "no lower=: 0, URDF's default (the joint moves within [0, 1])"


def test_transmissions_read_and_not_read(tmp_path):
    """One joint: its reduction is the gear (old ROS format: directly under <transmission>); a coupled one, or one
    naming a joint not in the file, is an INFO note and changes no gear."""
    trans = ('<transmission name="old" type="pr2_mechanism_model/SimpleTransmission"><joint name="j1"/>'
             '<actuator name="m"/><mechanicalReduction>-12.5</mechanicalReduction></transmission>'
             '<transmission name="diff"><joint name="j1"/><joint name="w"/><actuator name="m2">'
             "<mechanicalReduction>3</mechanicalReduction></actuator></transmission>"
             '<transmission name="gone"><joint name="j7"/><actuator name="m3">'
             "<mechanicalReduction>3</mechanicalReduction></actuator></transmission></robot>")
    path = tmp_path / "t.urdf"
    path.write_text(MINI.replace("</robot>", trans))
    m = read_urdf(path)
    assert m.joints[0].gear == -12.5
    notes = {n.where: n.message for n in m.notes}
    assert notes["transmission 'diff'"].startswith("drives 2 joints (j1, w)")
    assert notes["transmission 'gone'"] == "names joint 'j7', which is not in the file: ignored"


def test_fixed_joint_axis_is_not_read(tmp_path):
    """URDF ignores the axis of a fixed joint (the pybullet Panda writes <axis xyz="0 0 0"/> on panda_joint8)."""
    path = tmp_path / "ok.urdf"
    path.write_text(MINI.replace("</robot>", '<joint name="w" type="fixed"><parent link="l1"/><child link="t"/>'
                                             '<axis xyz="0 0 0"/></joint><link name="t"/></robot>'))
    assert read_urdf(path).bodies[0].merged == ("t",)


# --- the inertial checks ------------------------------------------------------------------------------------------

def inertial(diag, mass=1.0, R=None):
    I = np.diag(diag).astype(float)
    if R is not None:
        I = R @ I @ R.T
    return Inertial(mass, np.zeros(3), I)


def severities(notes):
    return [n.severity for n in notes]


def test_triangle_inequality_and_its_tolerance():
    R = rpy_matrix(0.4, -1.1, 2.3)
    off = inertial_notes("b", inertial((0.1, 0.1, 0.3), R=R))  # rotated: the check is on principal moments
    assert severities(off) == [Severity.AMBIGUOUS] and "triangle inequality" in off[0].message
    assert inertial_notes("disc", inertial((0.25, 0.25, 0.5))) == []  # a flat body: equality holds
    assert inertial_notes("disc, 7 digits", inertial((0.2499999, 0.2499999, 0.5))) == []  # 4e-7 relative: printing
    assert severities(inertial_notes("b", inertial((0.2499, 0.2499, 0.5)))) == [Severity.AMBIGUOUS]  # 4e-4 relative


def test_non_positive_moments_and_massless_inertia():
    neg = inertial_notes("b", inertial((-0.1, 0.2, 0.2)))
    assert severities(neg) == [Severity.SUSPECT] and "negative principal moment (-0.1)" in neg[0].message
    rod = inertial_notes("rod", inertial((0.0, 0.1, 0.1)))
    assert severities(rod) == [Severity.SUSPECT] and "principal moment 0" in rod[0].message
    ghost = inertial_notes("link 'x'", inertial((0.1, 0.1, 0.1), mass=0.0))
    assert severities(ghost) == [Severity.AMBIGUOUS] and "diag(0.1, 0.1, 0.1)" in ghost[0].message
    assert inertial_notes("frame", Inertial.zero()) == []


def test_placeholder_needs_three_identical_isotropic_inertias():
    two = [("a", inertial((0.1,) * 3)), ("b", inertial((0.1,) * 3, mass=2.0))]
    assert placeholder_notes(two) == []
    three = two + [("c", inertial((0.1,) * 3, mass=0.5))]
    (note,) = placeholder_notes(three)
    assert note.severity is Severity.SUSPECT and note.message.startswith("placeholder inertia diag(0.1) on 3 links")
    same_part = [(n, inertial((0.11, 0.11, 0.22))) for n in "abcd"]  # identical wrists: not a placeholder
    assert placeholder_notes(same_part) == []


def test_model_notes_name_a_joint_that_moves_nothing():
    z = np.eye(4)
    bodies = (Body("a", inertial((0.1, 0.1, 0.1))), Body("b", Inertial.zero()), Body("c", Inertial.zero()))
    joints = tuple(Joint(n, JointType.REVOLUTE, z, (0, 0, 1)) for n in ("ja", "jb", "jc"))
    chain = RobotModel("m", "m.urdf", Format.URDF, "base", bodies, joints, (-1, 0, 1))
    assert [n.where for n in model_notes(chain)] == ["joint 'jb'", "joint 'jc'"]
    heavy_tip = RobotModel("m", "m.urdf", Format.URDF, "base", bodies[:2] + (Body("c", inertial((1, 1, 1))),),
                           joints, (-1, 0, 1))
    assert model_notes(heavy_tip) == []


def test_the_ambiguous_notes_say_what_mujoco_does(tmp_path):
    """The notes' claims about MuJoCo's URDF importer, measured: on the pybullet Panda it drops the inertia of the
    two massless links welded to panda_link7 (diag(0.1) each: link 7's inertia is 0.2 smaller on the diagonal
    than crossdyn's and Pinocchio's), agrees on every other body to 1e-12, and turns the mimic into an equality."""
    mujoco = pytest.importorskip("mujoco")
    import re
    text = re.sub(r"<(visual|collision)>.*?</\1>", "", PB_PANDA.read_text(), flags=re.S)  # no mesh files needed
    mj = mujoco.MjModel.from_xml_string(text)
    assert mj.neq == 1 and mj.eq_type[0] == mujoco.mjtEq.mjEQ_JOINT
    ours = read_urdf(PB_PANDA)
    for body in ours.bodies:
        b = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, body.name)
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, mj.body_iquat[b])
        R = R.reshape(3, 3)
        I = R @ np.diag(mj.body_inertia[b]) @ R.T
        assert mj.body_mass[b] == pytest.approx(body.inertial.mass, abs=1e-12)
        assert np.allclose(mj.body_ipos[b], body.inertial.com, atol=1e-12, rtol=0)
        dropped = 0.2 * np.eye(3) if body.name == "panda_link7" else np.zeros((3, 3))
        assert np.allclose(body.inertial.inertia - I, dropped, atol=1e-12, rtol=0), body.name
