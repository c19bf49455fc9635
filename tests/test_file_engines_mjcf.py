"""The file engines (crossdyn.engines.files) reading MJCF: MuJoCo natively, Pinocchio (buildModelFromMJCF) and Drake
(Parser) against it, Menagerie's published files, and where the readers differ.  Tolerance and helpers: as in
tests/test_file_engines.py (1e-10 relative to the largest entry)."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
import robot_files
from test_file_engines import (FILES, MENAGERIE_READ_ALIKE, TOL, installed, light_model, model_of, quantities, rel,
                               states)

from crossdyn.engines.files import make_file_engine
from crossdyn.errors import EngineUnsupported
from crossdyn.robots import Format
from crossdyn.robots.prepare import prepare

# ---- MJCF -----------------------------------------------------------------------------------------------------------
def mjcf_from_urdf(urdf: Path, out: Path, armature: float) -> Path:
    """A real robot's MJCF: the URDF as MuJoCo writes it (mj_saveLastXML), armature added to every joint, massless
    bodies (tool frames) removed, and an actuator, a keyframe and a collision geom added for the copy to remove."""
    mujoco = pytest.importorskip("mujoco")
    root = ET.parse(urdf).getroot()
    for link in root.iter("link"):
        for child in [c for c in link if c.tag in ("visual", "collision")]:
            link.remove(child)
    ET.SubElement(root, "mujoco").append(ET.Element("compiler", {"fusestatic": "false", "discardvisual": "true"}))
    m = mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))
    raw = out.with_suffix(".raw.xml")
    mujoco.mj_saveLastXML(str(raw), m)
    tree = ET.parse(raw)
    mj = tree.getroot()
    for parent in list(mj.iter()):
        for body in [b for b in parent if b.tag == "body"]:
            inertial = body.find("inertial")
            if inertial is not None and float(inertial.get("mass", "1")) == 0.0 and body.find("body") is None:
                parent.remove(body)
    first = None
    for joint in mj.iter("joint"):
        joint.set("armature", str(armature))
        first = first or joint.get("name")
    ET.SubElement(mj.find("worldbody"), "geom", {"type": "plane", "size": "1 1 0.1"})  # type: ignore[arg-type]
    ET.SubElement(ET.SubElement(mj, "actuator"), "position", {"joint": str(first), "kp": "100"})
    ET.SubElement(ET.SubElement(mj, "keyframe"), "key", {"name": "home"})
    tree.write(out, encoding="unicode")
    return out


def test_mjcf_read_by_mujoco_pinocchio_and_drake_agree(tmp_path):
    """The UR5 of example-robot-data written as MJCF with armature 0.1: MuJoCo, Pinocchio (buildModelFromMJCF,
    model.armature) and Drake (armature as rotor inertia) agree to 1e-10; armature=false moves M by 0.1 on the
    diagonal (each engine's knob shown to matter)."""
    path = mjcf_from_urdf(FILES["erd-ur5"](), tmp_path / "ur5.xml", 0.1)
    model = light_model(path, Format.MJCF)
    assert all(j.armature == 0.1 for j in model.joints)
    Q, QD, QDD = states(model)
    names = installed(Format.MJCF)
    assert "mujoco-rk4" in names and "pybullet" not in names and "dart-rk4" not in names
    ref = quantities(make_file_engine("mujoco", model), Q, QD, QDD)
    for name in names[1:]:
        got = quantities(make_file_engine(name, model), Q, QD, QDD)
        for key in ref:
            assert rel(got[key], ref[key]) <= TOL, (name, key, rel(got[key], ref[key]))
    for name in names:
        bare = make_file_engine(f"{name}@armature=false", model).mass_matrix(Q)
        np.testing.assert_allclose(ref["M"] - bare, np.broadcast_to(0.1 * np.eye(model.n), bare.shape), atol=1e-12)


def test_drake_refuses_an_mjcf_with_a_massless_body(tmp_path):
    """Drake's MJCF parser aborts the whole process on a body of mass 0: refused before parsing, naming it."""
    pytest.importorskip("pydrake")
    path = mjcf_from_urdf(FILES["erd-ur5"](), tmp_path / "ur5.xml", 0.0)
    text = path.read_text().replace("<worldbody>", '<worldbody><body name="frame"><inertial pos="0 0 0" mass="0" '
                                    'diaginertia="0 0 0"/></body>', 1)
    path.write_text(text)
    with pytest.raises(EngineUnsupported, match="mass 0 .*frame"):
        make_file_engine("drake", light_model(path, Format.MJCF))



@pytest.mark.parametrize("robot", MENAGERIE_READ_ALIKE)
def test_menagerie_mjcf_read_alike_by_mujoco_pinocchio_drake(robot):
    """Menagerie's published MJCFs (the fixtures, armature 0.1 and damping where Menagerie has them): every
    installed MJCF engine agrees with MuJoCo to 1e-10 (measured ≤ 2e-14)."""
    model = model_of(robot_files.ALL_FILES[robot]())
    Q, QD, QDD = states(model, 30)
    ref = quantities(make_file_engine("mujoco", model), Q, QD, QDD)
    names = [n for n in installed(Format.MJCF) if n != "mujoco"]
    assert names
    for name in names:
        got = quantities(make_file_engine(name, model), Q, QD, QDD)
        for key in ref:
            assert rel(got[key], ref[key]) <= TOL, (robot, name, key, rel(got[key], ref[key]))


def test_drake_reads_menagerie_ur5e_general_with_other_axes():
    """Menagerie's other UR5e (joints of class "size3" inside "ur5e"): Pinocchio agrees with MuJoCo, Drake reads
    every axis as (0, 0, 1) (test_drake_skips_a_default_class_without_its_own_joint_element): M off by > 50 %."""
    pytest.importorskip("pydrake")
    model = model_of(robot_files.menagerie_ur5e_general_xml())
    Q, _, _ = states(model, 20)
    mj = make_file_engine("mujoco", model)
    assert rel(make_file_engine("pinocchio", model).mass_matrix(Q), mj.mass_matrix(Q)) <= TOL
    drake = make_file_engine("drake", model)
    assert rel(drake.mass_matrix(Q), mj.mass_matrix(Q)) > 0.5
    assert set(map(tuple, drake.config()["joint_axes_read"].values())) == {(0.0, 0.0, 1.0)}


# ---- the copies -----------------------------------------------------------------------------------------------------
def test_prepared_copies_remove_and_list(tmp_path):
    urdf = FILES["pybullet-panda"]()
    model = light_model(urdf, Format.URDF)
    copy = prepare(model, tmp_path, "x")
    text = copy.path.read_text()
    assert "<visual" not in text and "<collision" not in text
    assert any("<visual>" in r for r in copy.removed)
    kept = prepare(model, tmp_path, "y", keep_collision=True)
    meshes = [m.get("filename") for m in ET.parse(kept.path).getroot().iter("mesh")]
    assert meshes and all(Path(str(f)).is_file() for f in meshes)  # package:// resolved next to the file
    mjcf = mjcf_from_urdf(FILES["erd-ur5"](), tmp_path / "ur5.xml", 0.0)
    mcopy = prepare(light_model(mjcf, Format.MJCF), tmp_path, "z")
    root = ET.parse(mcopy.path).getroot()
    assert root.find("actuator") is None and root.find("keyframe") is None
    assert all(g.get("contype") == "0" and g.get("conaffinity") == "0" for g in root.iter("geom"))
    assert any("collisions of" in r for r in mcopy.removed)
    assert any("<actuator>" in r for r in mcopy.removed) and any("<keyframe>" in r for r in mcopy.removed)
    engine = make_file_engine("mujoco", light_model(mjcf, Format.MJCF))
    assert engine.config()["copy_removed"] == list(mcopy.removed)


CHILDCLASS_ARM = """<mujoco model="two">
  <compiler angle="radian"/>
  <default>
    <default class="arm">
      <joint axis="0 1 0" armature="0.05"/>
      <default class="big"><default class="big_limited"><joint range="-2 2"/></default></default>
    </default>
  </default>
  <worldbody>
    <body name="link1" pos="0 0 0.1" childclass="arm">
      <inertial pos="0.2 0 0" mass="1.5" diaginertia="0.01 0.02 0.02"/>
      <joint name="j1" class="big"/>
      <body name="link2" pos="0.4 0 0">
        <inertial pos="0.15 0 0.01" mass="0.8" diaginertia="0.004 0.006 0.007"/>
        <joint name="j2" class="big"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_drake_skips_a_default_class_without_its_own_joint_element(tmp_path):
    """Joints of class "big", which has no <joint> element of its own (only a nested class does), inside class
    "arm" that sets axis="0 1 0" (as Menagerie's UR5e: class "size3" inside "ur5e"): MuJoCo and Pinocchio inherit
    the axis, Drake 1.51's MJCF parser does not (axes (0, 0, 1), named in config()), so its G differs.  With a
    <joint> element in "big" Drake inherits correctly (measured), and a file where every joint says its axis is
    read alike (test_mjcf_read_by_mujoco_pinocchio_and_drake_agree)."""
    path = tmp_path / "two.xml"
    path.write_text(CHILDCLASS_ARM)
    model = light_model(path, Format.MJCF)
    assert [j.armature for j in model.joints] == [0.05, 0.05]
    Q, _, _ = states(model, 10)
    mj = make_file_engine("mujoco", model)
    assert rel(make_file_engine("pinocchio", model).mass_matrix(Q), mj.mass_matrix(Q)) <= TOL
    if "drake" in installed(Format.MJCF):
        drake = make_file_engine("drake", model)
        assert drake.config()["joint_axes_read"] == {"j1": [0.0, 0.0, 1.0], "j2": [0.0, 0.0, 1.0]}
        assert rel(drake.gravity(Q), mj.gravity(Q)) > 0.5
GEOMETRY_ARM = """<mujoco model="g">
  <worldbody>
    <body name="link1" pos="0 0 0.1" euler="0 30 0">
      <joint name="j1" axis="0 1 0" range="-90 90"/>
      <geom type="box" size="0.2 0.03 0.02" pos="0.2 0 0" density="1000"{visual}/>
      <body name="link2" pos="0.4 0 0" euler="20 0 0">
        <inertial pos="0.15 0 0.01" mass="0.8" diaginertia="0.004 0.006 0.007"/>
        <joint name="j2" axis="0 1 0" range="-90 90" armature="0.02"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_mjcf_inertia_from_geometry_and_degrees(tmp_path):
    """link1's inertia comes from its box (MuJoCo's default inertiafromgeom="auto"), angles in degrees (MJCF's
    default): MuJoCo, Pinocchio and Drake agree to 1e-10, because the copy leaves that body's geoms as written.  A
    box the FILE marks contype=conaffinity=0 is visual to Pinocchio (mass left out: M differs by > 10 %) — that
    difference is the file's ambiguity, and the reason the copy does not switch collisions off there."""
    path = tmp_path / "g.xml"
    path.write_text(GEOMETRY_ARM.format(visual=""))
    model = light_model(path, Format.MJCF)
    Q, QD, QDD = states(model, 20)
    ref = quantities(make_file_engine("mujoco", model), Q, QD, QDD)
    for name in [n for n in installed(Format.MJCF) if n != "mujoco"]:
        got = quantities(make_file_engine(name, model), Q, QD, QDD)
        for key in ref:
            assert rel(got[key], ref[key]) <= TOL, (name, key)
    visual = tmp_path / "v.xml"
    visual.write_text(GEOMETRY_ARM.format(visual=' contype="0" conaffinity="0"'))
    vmodel = light_model(visual, Format.MJCF)
    mj, pin = make_file_engine("mujoco", vmodel), make_file_engine("pinocchio", vmodel)
    assert rel(mj.mass_matrix(Q), ref["M"]) <= TOL  # MuJoCo: contype does not enter the inertia
    assert rel(pin.mass_matrix(Q), ref["M"]) > 0.1
