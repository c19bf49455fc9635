"""crossdyn's MJCF reader (crossdyn.robots.mjcf) against MuJoCo itself, the independent reading of the same file.

For each file: MuJoCo compiles it (``mujoco.MjModel.from_xml_path``) and its kinematics at qpos = 0 and at random
qpos give each body's world pose, centre of mass and principal inertia; the test merges MuJoCo's jointless bodies
into their moving ancestor with the parallel-axis theorem (numpy, here) and compares with crossdyn's bodies, joint
by joint (axis, anchor, range, damping, armature, frictionloss) and by forward kinematics written here from the
model's docstring.  Tolerance 1e-12: both sides are float64 evaluations of the same few products of numbers of
order 1 (MuJoCo stores its inertia in principal axes, which costs an eigen-decomposition: ~1e-16 relative).
"""
from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from crossdyn.errors import InputError
from crossdyn.robots import read_robot
from crossdyn.robots.mjcf import read_mjcf
from crossdyn.robots.model import JointType, RobotModel, Severity

mujoco = pytest.importorskip("mujoco")

TOL = 1e-12


# ---------------------------------------------------------------------------------------------------- reference

def _rot(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues' formula (written here, not crossdyn's)."""
    k = np.asarray(axis, dtype=float)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def fk(model: RobotModel, q: np.ndarray) -> list[np.ndarray]:
    """World poses of the model's bodies at q, from the model docstring's X_i(q)."""
    out: list[np.ndarray] = []
    for i, (j, p) in enumerate(zip(model.joints, model.parents, strict=True)):
        X = np.eye(4)
        if j.type is JointType.PRISMATIC:
            X[:3, 3] = q[i] * j.axis
        else:
            R = _rot(j.axis, q[i])
            X[:3, :3] = R
            X[:3, 3] = j.anchor - R @ j.anchor
        out.append((np.eye(4) if p < 0 else out[p]) @ j.origin @ X)
    return out


def mujoco_bodies(m, qpos: np.ndarray) -> dict[str, tuple[np.ndarray, float, np.ndarray, np.ndarray]]:
    """Per MuJoCo body with a joint: (world pose, mass, world CoM, world inertia about the CoM) with the jointless
    bodies welded to it merged in (parallel-axis theorem)."""
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_kinematics(m, d)
    groups: dict[int, list[int]] = {}
    for b in range(1, m.nbody):
        a = b
        while a > 0 and m.body_jntnum[a] == 0:
            a = m.body_parentid[a]
        if a > 0:
            groups.setdefault(a, []).append(b)
    out = {}
    for a, members in groups.items():
        mass = sum(float(m.body_mass[b]) for b in members)
        com = sum(m.body_mass[b] * d.xipos[b] for b in members) / mass if mass > 0 else d.xpos[a]
        inertia = np.zeros((3, 3))
        for b in members:
            R = d.ximat[b].reshape(3, 3)
            r = d.xipos[b] - com
            inertia += R @ np.diag(m.body_inertia[b]) @ R.T + m.body_mass[b] * (r @ r * np.eye(3) - np.outer(r, r))
        X = np.eye(4)
        X[:3, :3] = d.xmat[a].reshape(3, 3)
        X[:3, 3] = d.xpos[a]
        out[mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, a)] = (X, mass, com, inertia)
    return out


def assert_same_as_mujoco(path: Path, model: RobotModel, states: int = 5) -> None:
    """The model and MuJoCo's compilation of ``path`` agree to TOL on every body and joint."""
    m = mujoco.MjModel.from_xml_path(str(path))
    assert m.njnt == model.n
    rng = np.random.default_rng(0)
    for k in range(states + 1):
        q = np.zeros(model.n) if k == 0 else rng.uniform(-2, 2, model.n)
        qpos = np.zeros(m.nq)
        for i, j in enumerate(model.joints):
            qpos[m.jnt_qposadr[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, j.name)]] = q[i]
        ref = mujoco_bodies(m, qpos)
        poses = fk(model, q)
        seen = 0
        for body, X in zip(model.bodies, poses, strict=True):
            if body.name not in ref:
                continue  # an intermediate body of a split
            seen += 1
            Xm, mass, com, inertia = ref[body.name]
            np.testing.assert_allclose(X, Xm, rtol=0, atol=TOL, err_msg=body.name)
            R = X[:3, :3]
            assert abs(body.inertial.mass - mass) <= TOL * max(1.0, mass)
            np.testing.assert_allclose(R @ body.inertial.com + X[:3, 3], com, rtol=0, atol=TOL)
            np.testing.assert_allclose(R @ body.inertial.inertia @ R.T, inertia, rtol=0,
                                       atol=TOL * max(1.0, float(np.abs(inertia).max())))
        assert seen == len(ref)
    for j in model.joints:
        jid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, j.name)
        dof = m.jnt_dofadr[jid]
        np.testing.assert_allclose(j.axis, m.jnt_axis[jid], rtol=0, atol=TOL)
        np.testing.assert_allclose(j.anchor, m.jnt_pos[jid], rtol=0, atol=TOL)
        assert (j.lower is not None) == bool(m.jnt_limited[jid])
        if j.lower is not None:
            np.testing.assert_allclose([j.lower, j.upper], m.jnt_range[jid], rtol=0, atol=TOL)
        for mine, theirs in ((j.damping, m.dof_damping[dof]), (j.armature, m.dof_armature[dof]),
                             (j.friction, m.dof_frictionloss[dof])):
            assert abs(mine - theirs) <= TOL
        limits = [np.abs(m.jnt_actfrcrange[jid]).max()] if m.jnt_actfrclimited[jid] else []
        limits += [abs(m.actuator_gear[a, 0]) * np.abs(m.actuator_forcerange[a]).max() for a in range(m.nu)
                   if m.actuator_trnid[a, 0] == jid and m.actuator_forcelimited[a]]
        assert j.effort == (pytest.approx(min(limits), abs=TOL) if limits else None)
    off = m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY
    np.testing.assert_allclose(model.gravity, 0.0 * m.opt.gravity if off else m.opt.gravity, rtol=0, atol=TOL)


# ---------------------------------------------------------------------------------------------------- files

MENAGERIE_STYLE = """\
<mujoco model="menagerie_style">
  <compiler angle="radian" meshdir="assets" autolimits="true"/>
  <option integrator="implicitfast" gravity="0 0 -9.8"/>
  <default>
    <default class="arm">
      <joint armature="0.1" damping="1" axis="0 0 1" range="-2.8973 2.8973"/>
      <general dyntype="none" biastype="affine" ctrlrange="-2.8973 2.8973" forcerange="-87 87"/>
      <default class="visual">
        <geom type="mesh" contype="0" conaffinity="0" group="2"/>
      </default>
      <default class="collision">
        <geom type="capsule" group="3" size="0.03 0.05"/>
      </default>
      <default class="wrist">
        <joint damping="0.5" frictionloss="0.2" armature="0.05" actuatorfrcrange="-12 12"/>
      </default>
    </default>
  </default>
  <asset>
    <mesh name="link0" file="link0.obj"/>
    <mesh file="link1.obj"/>
  </asset>
  <worldbody>
    <light name="top" pos="0 0 2"/>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="link0" childclass="arm">
      <inertial mass="0.629769" pos="-0.041018 -0.00014 0.049974"
        fullinertia="0.00315 0.00388 0.004285 8.2904e-07 0.00015 8.2299e-06"/>
      <geom mesh="link0" class="visual"/>
      <body name="link1" pos="0 0 0.333">
        <inertial mass="4.970684" pos="0.003875 0.002081 -0.04762"
          fullinertia="0.70337 0.70661 0.0091170 -0.00013900 0.0067720 0.019169"/>
        <joint name="joint1"/>
        <geom mesh="link1" class="visual"/>
        <geom class="collision" pos="0 0 -0.1"/>
        <body name="link2" quat="1 -1 0 0">
          <inertial mass="0.646926" pos="-0.003141 -0.02872 0.003495" quat="0.9 0.1 -0.2 0.3"
            diaginertia="0.0079620 0.028110 0.025995"/>
          <joint name="joint2" range="-1.7628 1.7628"/>
          <body name="link3" pos="0 -0.316 0" quat="1 1 0 0">
            <joint name="joint3" class="wrist" pos="0.01 0 0.02"/>
            <geom type="box" size="0.05 0.04 0.03" pos="0.01 0 0.02" quat="0.8 0.2 0.1 0.3"/>
            <geom type="capsule" fromto="0 0 0 0.08 0.02 -0.1" size="0.02"/>
            <geom type="cylinder" size="0.03 0.06" pos="0 0.05 0" mass="0.4" xyaxes="0 1 0 -1 0 0"/>
            <geom type="sphere" size="0.02" pos="0.1 0 0" density="500"/>
            <geom class="visual" mesh="link0" density="0"/>
            <body name="flange" pos="0.088 0 0" quat="0.7071068 0 0 0.7071068">
              <inertial mass="0.3" pos="0 0 0.01" diaginertia="0.001 0.001 0.0015"/>
              <site name="attachment" pos="0 0 0.02"/>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <contact>
    <exclude body1="link0" body2="link1"/>
    <pair geom1="floor" geom2="floor"/>
  </contact>
  <actuator>
    <general class="arm" name="actuator1" joint="joint1" gainprm="4500" biasprm="0 -4500 -450"/>
    <position name="actuator2" joint="joint2" kp="2000" kv="100"/>
    <motor name="actuator3" joint="joint3" gear="50"/>
  </actuator>
  <sensor>
    <jointpos name="q1" joint="joint1"/>
  </sensor>
  <keyframe>
    <key name="home" qpos="0 0 0"/>
    <key name="up" qpos="0 0.5 0"/>
  </keyframe>
</mujoco>
"""

DEGREES = """\
<mujoco model="degrees">
  <compiler eulerseq="zXy"/>
  <default>
    <joint damping="0.2"/>
    <default class="slider">
      <joint type="slide" range="-0.3 0.4" armature="2"/>
    </default>
  </default>
  <worldbody>
    <body name="base" pos="0.1 0.2 0.3" euler="10 20 30">
      <body name="a" pos="0 0 0.4" axisangle="1 1 0 35">
        <joint name="ja" axis="1 2 3" range="-90 120" ref="15"/>
        <inertial mass="1.5" pos="0.01 0.02 0.1" diaginertia="0.02 0.03 0.04" euler="5 -10 40"/>
        <body name="b" pos="0.2 0 0" zaxis="0 1 1">
          <joint name="jb" class="slider" axis="0 0 -1" ref="0.05"/>
          <inertial mass="0.8" pos="0 0 0.05" diaginertia="0.004 0.005 0.006" xyaxes="0 1 0 -1 0 0.5"/>
          <frame pos="0 0.1 0" euler="0 0 90">
            <body name="c" pos="0.1 0 0">
              <joint name="jc1" axis="0 1 0" pos="0 0 0.02"/>
              <joint name="jc2" axis="1 0 0" ref="-20"/>
              <inertial mass="0.5" pos="0.05 0 0" diaginertia="0.001 0.002 0.002"/>
              <body name="tool" pos="0.1 0 0" euler="90 0 0">
                <inertial mass="0.2" pos="0 0 0.03" diaginertia="0.0002 0.0002 0.0001"/>
              </body>
            </body>
          </frame>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


CUBE_OBJ = "".join(f"v {x} {y} {z}\n" for x in (0, 0.1) for y in (0, 0.1) for z in (0, 0.1)) + \
    "f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n"


def _write(tmp_path: Path, text: str, name: str = "robot.xml", meshes: tuple[str, ...] = ()) -> Path:
    """The MJCF text as a file, with small cube meshes of the given names under assets/."""
    p = tmp_path / name
    p.write_text(text)
    for mesh in meshes:
        (tmp_path / "assets").mkdir(exist_ok=True)
        (tmp_path / "assets" / mesh).write_text(CUBE_OBJ)
    return p


# ---------------------------------------------------------------------------------------------------- tests

def test_menagerie_style_file_agrees_with_mujoco(tmp_path):
    path = _write(tmp_path, MENAGERIE_STYLE, meshes=("link0.obj", "link1.obj"))
    model = read_mjcf(path)
    assert model.joint_names == ("joint1", "joint2", "joint3")
    assert model.body_names == ("link1", "link2", "link3")
    assert model.base == "link0"
    assert model.bodies[2].merged == ("flange",)
    assert [j.type for j in model.joints] == [JointType.REVOLUTE] * 3
    assert model.joints[2].gear == 50.0 and model.joints[0].gear == 1.0
    assert [j.effort for j in model.joints] == [87.0, None, 12.0]  # the servo's forcerange, actuatorfrcrange
    assert_same_as_mujoco(path, model)


def test_menagerie_style_removed_and_notes(tmp_path):
    model = read_mjcf(_write(tmp_path, MENAGERIE_STYLE))
    removed = "\n".join(model.removed)
    assert "3 actuators removed" in removed
    assert "actuator1 (general on joint 'joint1', gear" not in removed  # no gear written: none listed
    assert "actuator1 (general on joint 'joint1', gainprm 4500, biasprm 0 -4500 -450" in removed
    assert "actuator2 (position on joint 'joint2', kp 2000, kv 100)" in removed
    assert "actuator3 (motor on joint 'joint3', gear 50)" in removed
    assert "1 pair and 1 exclude removed" in removed
    assert "2 keys removed (home, up)" in removed
    assert "1 sensor removed (jointpos q1)" in removed
    assert "collisions of 6 geoms" in removed  # the floor, link1's capsule, link3's 4 primitives (visuals: 0)
    (missing,) = [n for n in model.notes if "not found" in n.message]  # one note for both files
    assert missing.severity is Severity.INFO and missing.message.startswith("2 of 2 mesh files not found: ")
    assert "link1.obj" in missing.message and "not needed" in missing.message


def test_degrees_eulerseq_ref_slide_split_frame_agree_with_mujoco(tmp_path):
    path = _write(tmp_path, DEGREES)
    model = read_mjcf(path)
    assert model.joint_names == ("ja", "jb", "jc1", "jc2")
    assert model.body_names == ("a", "b", "c:jc1", "c")
    assert model.bodies[2].inertial.mass == 0.0 and model.parents == (-1, 0, 1, 2)
    assert model.joints[1].type is JointType.PRISMATIC
    assert [j.type for j in model.joints if j.name != "jb"] == [JointType.REVOLUTE, JointType.CONTINUOUS,
                                                                JointType.CONTINUOUS]
    assert model.joints[0].lower == pytest.approx(-math.pi / 2, abs=1e-15)
    assert model.bodies[3].merged == ("tool",)
    assert model.base == "base"
    assert any("split" in n.message for n in model.notes)
    assert_same_as_mujoco(path, model)


@pytest.mark.parametrize("preset", ["planar2r", "planar3r-general", "planar3r-geared", "planar2r-limits",
                                    "planar3r-friction", "planar2r-floor", "planar6r"])
def test_crossdyn_generated_arms_agree_with_mujoco(tmp_path, preset):
    """The MJCF crossdyn writes for its own arms (crossdyn.models.mjcf), read back and compiled by MuJoCo."""
    from crossdyn.models.mjcf import to_mjcf
    from crossdyn.models.presets import get_preset

    spec = get_preset(preset)
    path = _write(tmp_path, to_mjcf(spec, native_limits=True))
    model = read_mjcf(path)
    assert model.n == spec.n and model.name == spec.name
    assert_same_as_mujoco(path, model)
    assert [j.armature for j in model.joints] == [link.armature for link in spec.links]
    assert [j.effort for j in model.joints] == [link.effort for link in spec.links]
    assert model.removed[0].startswith(f"<actuator>: {spec.n} actuator")


def test_includes_relative_to_the_including_file_and_geom_inertia_options(tmp_path):
    """``<include>`` nested in a sub-folder, ``inertiafromgeom="true"`` (the geoms win over an <inertial>),
    ``inertiagrouprange`` (group 4 left out), ``boundinertia``, gravity switched off by a flag."""
    (tmp_path / "parts" / "more").mkdir(parents=True)
    (tmp_path / "parts" / "arm.xml").write_text("""<mujoco><worldbody>
      <body name="upper" pos="0 0 0.1"><joint name="j1" axis="0 1 0" range="-1 1"/>
        <inertial mass="9" pos="0 0 0" diaginertia="1 1 1"/>
        <geom type="ellipsoid" size="0.03 0.04 0.05" pos="0 0 0.1" euler="0.1 0.2 0.3"/>
        <geom type="box" fromto="0 0 0 0 0.1 0.2" size="0.01 0.02"/>
        <geom type="sphere" size="0.5" group="4"/>
        <include file="more/lower.xml"/>
      </body></worldbody></mujoco>""")
    (tmp_path / "parts" / "more" / "lower.xml").write_text("""<mujoco>
      <body name="lower" pos="0 0 0.3"><joint name="j2" type="slide" axis="1 0 0"/>
        <geom type="cylinder" fromto="0 0 0 0.1 0.1 0.1" size="0.01" mass="0.25"/>
        <geom type="sphere" size="0.001" mass="1e-9"/>
      </body></mujoco>""")
    path = _write(tmp_path, """<mujoco model="inc">
      <compiler angle="radian" inertiafromgeom="true" inertiagrouprange="0 3" boundinertia="1e-7"/>
      <option><flag gravity="disable"/></option>
      <include file="parts/arm.xml"/>
    </mujoco>""")
    model = read_mjcf(path)
    assert model.joint_names == ("j1", "j2") and model.name == "inc"
    assert np.all(model.gravity == 0.0)
    assert model.joints[1].type is JointType.PRISMATIC and model.joints[1].lower is None
    assert model.bodies[0].inertial.mass != 9.0
    assert not [n for n in model.notes if n.severity is Severity.AMBIGUOUS]
    assert_same_as_mujoco(path, model)
    path.write_text(path.read_text().replace('<flag gravity="disable"/>',
                                             '<flag gravity="disable" passive="disable" frictionloss="disable"/>'))
    flagged = [n for n in read_mjcf(path).notes if n.severity is Severity.AMBIGUOUS]
    assert [n.where.split()[-1] for n in flagged] == ['passive="disable">', 'frictionloss="disable">']
    assert "joint damping (and springs) are not applied" in flagged[0].message


def test_frames_move_joints_inertials_and_geoms(tmp_path):
    """A ``<frame>`` inside a body moves the joint, the inertial and the geoms it holds (MuJoCo 4.0 accepts all
    three), its ``childclass`` applying to them."""
    path = _write(tmp_path, """<mujoco><compiler angle="radian"/>
      <default><default class="k"><joint damping="3" axis="1 0 0"/><geom type="box" size="0.01 0.02 0.03"/>
      </default></default>
      <worldbody><body name="a" pos="0 0 0.2">
        <frame pos="0 0.1 0.2" euler="0.3 0.2 0.1" childclass="k">
          <joint name="j1" pos="0.01 0 0"/>
          <frame pos="0.05 0 0" quat="0.5 0.5 0.5 0.5"><geom pos="0 0 0.1"/></frame>
        </frame>
        <geom type="sphere" size="0.03"/>
        <body name="b" pos="0.3 0 0"><joint name="j2" axis="0 1 0"/>
          <frame quat="0 1 0 0" pos="0.1 0 0"><inertial mass="2" pos="0 0 0.1" diaginertia="0.1 0.2 0.3"/></frame>
        </body>
      </body></worldbody></mujoco>""")
    model = read_mjcf(path)
    assert model.joints[0].damping == 3.0 and model.joints[0].anchor[1] != 0.0
    assert model.bodies[1].inertial.mass == 2.0
    assert_same_as_mujoco(path, model)


def test_read_robot_dispatches_on_mujoco_root(tmp_path):
    path = _write(tmp_path, DEGREES, name="robot.mjcf")
    assert read_robot(path).joint_names == ("ja", "jb", "jc1", "jc2")


# ---------------------------------------------------------------------------------------------------- bad files

ARM = """<mujoco><compiler angle="radian"/>{top}<worldbody>
  <body name="b1"><joint name="j1" axis="0 0 1"/><inertial mass="1" pos="0 0 0" diaginertia="1 1 1"/>
    {inner}
  </body></worldbody>{after}</mujoco>"""


def _bad(tmp_path: Path, inner: str = "", top: str = "", after: str = "", meshes: tuple[str, ...] = ()) -> str:
    path = _write(tmp_path, ARM.format(inner=inner, top=top, after=after), meshes=meshes)
    with pytest.raises(InputError) as e:
        read_mjcf(path)
    message = str(e.value)
    assert str(path) in message
    return message


@pytest.mark.parametrize("inner, words", [
    ('<body name="b2"><freejoint name="f"/><geom size="0.1"/></body>', ["<freejoint name='f'>", "floating base",
                                                                       ":3:"]),
    ('<body name="b2"><joint name="f" type="free"/><geom size="0.1"/></body>', ['type="free"', "floating base"]),
    ('<body name="b2"><joint name="s" type="ball"/><geom size="0.1"/></body>', ['type="ball"', "hinge and slide"]),
    ('<body name="b2"><joint name="z" axis="0 0 0"/><geom size="0.1"/></body>', ["<joint name='z'>",
                                                                                 'axis="0 0 0"', "zero axis"]),
    ('<body name="b2"><joint name="n"/><inertial mass="-1" pos="0 0 0" diaginertia="1 1 1"/></body>',
     ['<inertial> mass="-1"', "negative mass"]),
    ('<body name="b2"><joint name="n"/><geom size="0.1" mass="-2"/></body>', ['<geom> mass="-2"', "negative mass"]),
    ('<body><joint name="n"/><geom size="0.1"/></body>', ["<body>", "needs a name"]),
    ('<body name="b2"><joint/><geom size="0.1"/></body>', ["<joint>", "needs a name"]),
    ('<body name="b2"><joint name="k" stiffness="3"/><geom size="0.1"/></body>', ['stiffness="3"', "spring"]),
    ('<body name="b2"><joint name="c" class="nope"/><geom size="0.1"/></body>', ['class="nope"', "no <default>"]),
    ('<body name="b2" childclass="nope"><joint name="c"/></body>', ['childclass="nope"', "no <default>"]),
    ('<body name="b2" class="main"><joint name="c"/></body>', ['<body name=\'b2\'> class="main"', "childclass"]),
    ('<body name="b2"><joint name="c"/><inertial mass="1" pos="0 0 0" diaginertia="1 1 1"/>'
     '<frame><inertial mass="1" pos="0 0 0" diaginertia="1 1 1"/></frame></body>', ["a second <inertial>"]),
    ('<body name="b2"><joint name="r" range="0 1" limited="true" axis="1 0"/></body>', ['axis="1 0"',
                                                                                      "3 numbers"]),
    ('<body name="b2"><joint name="r" range="1 0"/><geom size="0.1"/></body>', ['range="1 0"', "lower < upper"]),
    ('<body name="b2"><joint name="c"/><composite type="cable" count="3"/></body>', ["<composite>",
                                                                                    "unsupported"]),
    ('<body name="b2"><joint name="q" quat="1 0 0 0"/><geom size="0.1" quat="1 0 0 0" euler="0 0 1"/></body>',
     ["<geom>", "more than one orientation"]),
    ('<body name="b2"><joint name="f"/><inertial mass="1" pos="0 0 0" quat="0 1 0 0" fullinertia="1 1 1 0 0 0"/>'
     '</body>', ['fullinertia="1 1 1 0 0 0"', "orientation"]),
    ('<body name="b2"><joint name="j1"/><geom size="0.1"/></body>', ["joint name 'j1' used more than once"]),
    ('<body name="b1"><joint name="j9"/><geom size="0.1"/></body>', ["body name 'b1' used more than once"]),
    ('<body name="b2"><joint name="p"/><geom type="plane" size="1 1 1"/></body>', ['type="plane"',
                                                                                 "unsupported"]),
])
def test_bad_bodies_and_joints_exit_2_naming_file_element_value(tmp_path, inner, words):
    message = _bad(tmp_path, inner=inner)
    for w in words:
        assert w in message, (w, message)


@pytest.mark.parametrize("after, words", [
    ('<equality><connect body1="b1" anchor="0 0 0"/></equality>', ["<connect body1='b1'>: in <equality>",
                                                                   "equality constraints", "closed loops"]),
    ('<tendon><fixed name="t"><joint joint="j1" coef="1"/></fixed></tendon>', ["<fixed name='t'>", "tendons"]),
    ('<actuator><motor name="m" joint="nojoint"/></actuator>', ["<motor name='m'>", 'joint="nojoint"']),
])
def test_bad_sections_exit_2(tmp_path, after, words):
    message = _bad(tmp_path, after=after)
    for w in words:
        assert w in message, (w, message)


def test_broken_xml_names_the_line(tmp_path):
    path = _write(tmp_path, '<mujoco>\n<worldbody>\n<body name="a">\n</worldbody></mujoco>\n')
    with pytest.raises(InputError, match=rf"{path}:4: not well-formed XML \(mismatched tag, line 4"):
        read_mjcf(path)
    with pytest.raises(Exception, match="XML"):  # MuJoCo refuses it too
        mujoco.MjModel.from_xml_path(str(path))


def test_inertia_from_a_mesh_is_refused_and_a_missing_mesh_file_named(tmp_path):
    inner = '<body name="hand"><joint name="j2"/><geom type="mesh" mesh="palm"/></body>'
    top = '<compiler meshdir="assets"/><asset><mesh name="palm" file="palm.obj"/></asset>'
    message = _bad(tmp_path, inner=inner, top=top, meshes=("palm.obj",))
    assert "inertia from mesh geometry unsupported" in message and "'hand'" in message and "'palm'" in message
    sized = '<body name="hand"><joint name="j2"/><geom type="box" mesh="palm"/></body>'  # a box fitted to it
    assert "inertia from mesh geometry unsupported" in _bad(tmp_path, inner=sized, top=top, meshes=("palm.obj",))
    shutil.rmtree(tmp_path / "assets")
    message = _bad(tmp_path, inner=inner, top=top)
    assert "<mesh name='palm'>" in message and 'file="palm.obj"' in message and "does not exist" in message
    assert str(tmp_path / "assets" / "palm.obj") in message


def test_autolimits_false_range_without_limited_is_refused_like_mujoco(tmp_path):
    inner = '<body name="b2"><joint name="r" range="0 1"/><geom size="0.1"/></body>'
    message = _bad(tmp_path, inner=inner, top='<compiler autolimits="false"/>')
    assert 'range="0 1"' in message and "autolimits" in message
    with pytest.raises(Exception, match="autolimits"):
        mujoco.MjModel.from_xml_path(str(tmp_path / "robot.xml"))


def test_missing_include_and_nothing_moving(tmp_path):
    message = _bad(tmp_path, after='<include file="gone.xml"/>')
    assert '<include> file="gone.xml"' in message and "not found" in message
    path = _write(tmp_path, '<mujoco><worldbody><body name="a"><geom size="1"/></body></worldbody></mujoco>')
    with pytest.raises(InputError, match="no body with a joint"):
        read_mjcf(path)


@pytest.mark.parametrize("inner, top, words", [
    ('<body name="b2"><joint name="g"/><geom size="0.1" group="two"/></body>', "", ['group="two"', "1 numbers"]),
    ('<body name="b2"><joint name="g"/><geom size="0.1" mass="heavy"/></body>', "", ['mass="heavy"']),
    ("", '<compiler boundmass="x"/>', ['<compiler> boundmass="x"']),
    ("", '<compiler settotalmass="3"/>', ['settotalmass="3"', "unsupported"]),
    ('<body name="b2"><joint name="g" range="0 nan"/></body>', "", ['range="0 nan"', "2 numbers"]),
])
def test_bad_numbers_exit_2(tmp_path, inner, top, words):
    message = _bad(tmp_path, inner=inner, top=top)
    for w in words:
        assert w in message, (w, message)


# ---------------------------------------------------------------------------------------------------- random files

def _orientation(rng: np.random.Generator, degrees: bool) -> str:
    unit = 180 / math.pi if degrees else 1.0
    v = lambda n: " ".join(f"{x:.6g}" for x in rng.normal(size=n))  # noqa: E731
    kind = rng.integers(6)
    if kind == 0:
        return f' quat="{v(4)}"'
    if kind == 1:
        return f' axisangle="{v(3)} {rng.uniform(-3, 3) * unit:.6g}"'
    if kind == 2:
        return f' euler="{" ".join(f"{x * unit:.6g}" for x in rng.uniform(-3, 3, 3))}"'
    if kind == 3:
        return f' xyaxes="{v(6)}"'
    return f' zaxis="{v(3)}"' if kind == 4 else ""


def _geom(rng: np.random.Generator, degrees: bool) -> str:
    kind = ["sphere", "box", "capsule", "cylinder", "ellipsoid"][rng.integers(5)]
    size = " ".join(f"{x:.4g}" for x in rng.uniform(0.01, 0.1, 3))
    amount = f' mass="{rng.uniform(0.1, 2):.4g}"' if rng.random() < 0.5 else f' density="{rng.uniform(100, 3000):.5g}"'
    if kind != "sphere" and rng.random() < 0.3:
        ends = " ".join(f"{x:.4g}" for x in rng.uniform(-0.2, 0.2, 6))
        return f'<geom type="{kind}" size="{size}" fromto="{ends}"{amount}/>'
    pos = " ".join(f"{x:.4g}" for x in rng.uniform(-0.1, 0.1, 3))
    return f'<geom type="{kind}" size="{size}" pos="{pos}"{_orientation(rng, degrees)}{amount}/>'


def _body(rng: np.random.Generator, name: str, depth: int, degrees: bool, counter: list[int]) -> str:
    pos = " ".join(f"{x:.4g}" for x in rng.uniform(-0.3, 0.3, 3))
    out = [f'<body name="{name}" pos="{pos}"{_orientation(rng, degrees)}>']
    for _ in range(rng.choice([1, 1, 1, 2]) if name == "b" else rng.choice([0, 1, 1, 1, 2])):
        counter[0] += 1
        kind = "slide" if rng.random() < 0.25 else "hinge"
        unit = 180 / math.pi if degrees and kind == "hinge" else 1.0
        lo, hi = sorted(rng.uniform(-2, 2, 2))
        rng_attr = f' range="{lo * unit:.6g} {hi * unit:.6g}"' if rng.random() < 0.7 else ""
        out.append(f'<joint name="j{counter[0]}" type="{kind}" axis="{" ".join(f"{x:.4g}" for x in rng.normal(size=3))}"'
                   f' pos="{" ".join(f"{x:.4g}" for x in rng.uniform(-0.1, 0.1, 3))}" ref="{rng.uniform(-1, 1) * unit:.6g}"'
                   f' damping="{rng.uniform(0, 2):.4g}" armature="{rng.uniform(0, 0.2):.4g}"{rng_attr}/>')
    if rng.random() < 0.5:
        sx, sy, sz = rng.uniform(0.005, 0.05, 3)  # second moments: the principal moments obey A + B >= C
        d = np.array([sy + sz, sx + sz, sx + sy])
        Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        F = Q @ np.diag(d) @ Q.T
        inertia = f'fullinertia="{" ".join(repr(float(x)) for x in F[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]])}"' \
            if rng.random() < 0.5 else f'diaginertia="{float(d[0])!r} {float(d[1])!r} {float(d[2])!r}"{_orientation(rng, degrees)}'
        out.append(f'<inertial mass="{rng.uniform(0.5, 3):.4g}" pos="{" ".join(f"{x:.4g}" for x in rng.uniform(-0.1, 0.1, 3))}" {inertia}/>')
    else:
        out += [_geom(rng, degrees) for _ in range(rng.integers(1, 4))]
    if depth > 0:
        out += [_body(rng, f"{name}{k}", depth - 1, degrees, counter) for k in range(rng.choice([1, 1, 2]))]
    return "\n".join(out + ["</body>"])


@pytest.mark.parametrize("seed", range(12))  # 300 seeds pass too (14.7 s)
def test_random_trees_agree_with_mujoco(tmp_path, seed):
    """Random trees: every orientation kind, 0–2 hinge/slide joints per body with ref, welded bodies, inertials or
    primitive geoms (pos, orientation, fromto, mass or density), degrees or radians, a random eulerseq."""
    rng = np.random.default_rng(seed)
    degrees = bool(rng.random() < 0.5)
    seq = "".join(c.upper() if rng.random() < 0.5 else c for c in rng.permutation(list("xyz")))
    text = (f'<mujoco><compiler angle="{"degree" if degrees else "radian"}" eulerseq="{seq}"/><worldbody>'
            + _body(rng, "b", 3, degrees, [0]) + "</worldbody></mujoco>")
    path = _write(tmp_path, text)
    model = read_mjcf(path)
    assert model.n > 0
    assert_same_as_mujoco(path, model, states=3)


# ---------------------------------------------------------------------------------------------------- notes

def test_physics_notes_on_bodies_as_the_file_writes_them(tmp_path):
    """crossdyn.robots.checks on each body (welded ones too, before merging): massless with an inertia, off the
    triangle inequality, a placeholder diag(a) on three bodies, a massless body; the world-welded base said."""
    inertial = '<inertial mass="{m}" pos="0 0 0" diaginertia="{d}"/>'
    bodies = [("b1", "1", "0.1 0.1 0.1"), ("b2", "2", "0.1 0.1 0.1"), ("b3", "0", "0.01 0.02 0.02"),
              ("b4", "1", "0.1 0.1 0.1"), ("b5", "1", "0.01 0.01 0.05")]
    inner = "".join(f'<body name="{n}" pos="0.1 0 0"><joint name="j{n}"/>{inertial.format(m=m, d=d)}'
                    for n, m, d in bodies)
    path = _write(tmp_path, f"""<mujoco><compiler angle="radian"/><worldbody><body name="stand">{inner}
      <body name="empty"/>{"</body>" * len(bodies)}</body></worldbody></mujoco>""")
    notes = {(n.where, n.severity): n.message for n in read_mjcf(path).notes}
    assert "mass 0 with inertia" in notes["body 'b3'", Severity.AMBIGUOUS]
    assert "triangle inequality" in notes["body 'b5'", Severity.AMBIGUOUS]
    assert "b1, b2, b4" in notes["<inertia> of 3 bodies", Severity.SUSPECT]
    assert "massless" in notes["body 'empty' (welded to 'b5')", Severity.INFO]
    assert "welded to the world" in notes["body 'stand'", Severity.INFO]


# ---------------------------------------------------------------------------------------------------- fixtures

def _fixture_files():
    import robot_files as rf
    return {"panda": rf.menagerie_panda_xml, "panda_nohand": rf.menagerie_panda_nohand_xml,
            "ur5e": rf.menagerie_ur5e_xml, "ur5e_general": rf.menagerie_ur5e_general_xml,
            "iiwa14": rf.menagerie_iiwa14_xml}


@pytest.mark.parametrize("name", ["panda", "panda_nohand", "ur5e", "ur5e_general", "iiwa14"])
def test_menagerie_fixtures_agree_with_mujoco(name):
    path = _fixture_files()[name]()
    model = read_mjcf(path)
    assert_same_as_mujoco(path, model, states=10)
    assert not [n for n in model.notes if n.severity is not Severity.INFO]
    assert model.removed[0].startswith(f"<actuator>: {7 if 'panda' in name or name == 'iiwa14' else 6} actuators")
    assert any(r.startswith("<keyframe>: 1 key removed (home)") for r in model.removed)


def test_menagerie_published_armature_damping_effort():
    """Issue 26's figures as crossdyn reads them: armature 0.1 on every Panda and UR5e joint, damping 1 (Panda),
    200 on the UR5e's shoulder and elbow and 15 on its wrists, none on the iiwa14 or the general-servo UR5e; the
    servos' forcerange as the effort (Panda 87/12 N m, UR5e 150/28 N m)."""
    files = _fixture_files()
    panda, ur5e, general, iiwa = (read_mjcf(files[k]()) for k in ("panda_nohand", "ur5e", "ur5e_general", "iiwa14"))
    assert [j.armature for j in panda.joints] == [0.1] * 7 and [j.damping for j in panda.joints] == [1.0] * 7
    assert [j.effort for j in panda.joints] == [87.0] * 4 + [12.0] * 3
    assert [j.armature for j in ur5e.joints] == [0.1] * 6
    assert [j.damping for j in ur5e.joints] == [200.0] * 3 + [15.0] * 3
    assert [j.effort for j in ur5e.joints] == [150.0] * 3 + [28.0] * 3
    assert [j.damping for j in general.joints] == [0.0] * 6
    assert [j.armature for j in iiwa.joints] == [0.0] * 7 and [j.damping for j in iiwa.joints] == [0.0] * 7
    assert panda.base == "link0" and panda.joint_names == tuple(f"joint{i}" for i in range(1, 8))


def test_menagerie_panda_with_its_finger_coupling_is_refused():
    import robot_files as rf
    path = rf.menagerie_panda_coupled_xml()
    with pytest.raises(InputError) as e:
        read_mjcf(path)
    message = str(e.value)
    assert str(path) in message and "in <equality>" in message and "joint1='finger_joint1'" in message
