"""The robot-file fixtures carry the published numbers, and issue 26's five findings hold at the engine level.

Published numbers are typed here from the sources named in each fixture's header (Menagerie's XML, Universal Robots'
YAML), not read back from the fixtures, so a typo in either shows.  Parsing decimal text to float64 is exact to half
an ulp: those comparisons use rtol 1e-12.  The findings' figures, metrics and bands live in tests/robot_findings.py
(shared with the audit tests); docs/_incoming/fixtures.md records how each was measured.
"""
from __future__ import annotations

import numpy as np
import pytest

import robot_files as rf
from robot_findings import (FIGURES, global_rel, max_abs, mujoco_dynamics, pinocchio_dynamics, pybullet_dynamics,
                            state_rel, states, urdf_without_geometry)

mujoco = pytest.importorskip("mujoco")

PARSE = 1e-12  # decimal text → float64: exact to half an ulp

PANDA_RANGES = [(-2.8973, 2.8973), (-1.7628, 1.7628), (-2.8973, 2.8973), (-3.0718, -0.0698), (-2.8973, 2.8973),
                (-0.0175, 3.7525), (-2.8973, 2.8973)]
PANDA_MASSES = {"link0": 0.629769, "link1": 4.970684, "link2": 0.646926, "link3": 3.228604, "link4": 3.587895,
                "link5": 1.225946, "link6": 1.666555, "link7": 0.735522}
UR5E_MASSES = {"base": 4.0, "shoulder_link": 3.7, "upper_arm_link": 8.393, "forearm_link": 2.275,
               "wrist_1_link": 1.219, "wrist_2_link": 1.219, "wrist_3_link": 0.1889}
UR5E_RANGES = [(-6.28319, 6.28319)] * 2 + [(-3.1415, 3.1415)] + [(-6.28319, 6.28319)] * 3
IIWA_MASSES = {"base": 5.0, "link1": 5.76, "link2": 6.35, "link3": 3.5, "link4": 3.5, "link5": 3.5, "link6": 1.8,
               "link7": 1.2}
IIWA_RANGES = [(-2.96706, 2.96706), (-2.0944, 2.0944)] * 3 + [(-3.05433, 3.05433)]
# Universal_Robots_ROS2_Description config/ur5e/physical_parameters.yaml (commit 2221ec0f)
UR_DESCRIPTION_MASSES = [3.761, 8.058, 2.846, 1.37, 1.3, 0.365]


def _load(path):
    return mujoco.MjModel.from_xml_path(str(path))


def _masses(model) -> dict[str, float]:
    return {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, i): float(model.body_mass[i])
            for i in range(1, model.nbody)}


def _check_common(model, nq: int, nu: int) -> None:
    """No mesh needed, nothing crossdyn refuses (tendon, equality); the servos and keyframe are there to remove."""
    assert (model.nmesh, model.ntendon, model.neq) == (0, 0, 0)
    assert model.nq == nq and model.nu == nu and model.nkey == 1


def test_menagerie_panda_numbers():
    model = _load(rf.menagerie_panda_xml())
    _check_common(model, nq=9, nu=7)
    masses = _masses(model)
    expected = PANDA_MASSES | {"hand": 0.73, "left_finger": 0.015, "right_finger": 0.015}
    np.testing.assert_allclose([masses[k] for k in expected], list(expected.values()), rtol=PARSE)
    np.testing.assert_allclose(model.dof_armature, 0.1, rtol=PARSE)
    np.testing.assert_allclose(model.dof_damping, 1.0, rtol=PARSE)
    np.testing.assert_array_equal(model.dof_frictionloss, 0.0)
    np.testing.assert_allclose(model.jnt_range, PANDA_RANGES + [(0.0, 0.04)] * 2, rtol=PARSE)
    assert list(model.jnt_type[7:]) == [mujoco.mjtJoint.mjJNT_SLIDE] * 2


def test_menagerie_panda_coupled_keeps_menageries_finger_coupling():
    """The same bodies and joints as menagerie_panda.xml plus what crossdyn refuses: one fixed tendon (the fingers'
    mean, coefficients 0.5) and one joint equality, with the eighth servo acting on the tendon."""
    model = _load(rf.menagerie_panda_coupled_xml())
    plain = _load(rf.menagerie_panda_xml())
    assert (model.ntendon, model.neq, model.nu, model.nmesh) == (1, 1, 8, 0)
    np.testing.assert_allclose(model.wrap_prm[:2], 0.5, rtol=PARSE)
    assert model.eq_type[0] == mujoco.mjtEq.mjEQ_JOINT
    assert model.actuator_trntype[7] == mujoco.mjtTrn.mjTRN_TENDON
    np.testing.assert_array_equal(model.body_mass, plain.body_mass)
    np.testing.assert_array_equal(model.dof_armature, plain.dof_armature)


def test_menagerie_panda_nohand_numbers():
    model = _load(rf.menagerie_panda_nohand_xml())
    _check_common(model, nq=7, nu=7)
    masses = _masses(model)
    np.testing.assert_allclose([masses[k] for k in PANDA_MASSES], list(PANDA_MASSES.values()), rtol=PARSE)
    np.testing.assert_allclose(model.dof_armature, 0.1, rtol=PARSE)
    np.testing.assert_allclose(model.dof_damping, 1.0, rtol=PARSE)
    np.testing.assert_allclose(model.jnt_range, PANDA_RANGES, rtol=PARSE)


@pytest.mark.parametrize("version, damping, base_quat", [
    ("position", [200.0] * 3 + [15.0] * 3, [1.0, 0.0, 0.0, 1.0]),
    ("general", [0.0] * 6, [0.0, 0.0, 0.0, -1.0]),
])
def test_menagerie_ur5e_numbers(version, damping, base_quat):
    path = rf.menagerie_ur5e_xml() if version == "position" else rf.menagerie_ur5e_general_xml()
    model = _load(path)
    _check_common(model, nq=6, nu=6)
    masses = _masses(model)
    np.testing.assert_allclose([masses[k] for k in UR5E_MASSES], list(UR5E_MASSES.values()), rtol=PARSE)
    np.testing.assert_allclose(model.dof_armature, 0.1, rtol=PARSE)
    np.testing.assert_allclose(model.dof_damping, damping, rtol=PARSE)
    np.testing.assert_allclose(model.jnt_range, UR5E_RANGES, rtol=PARSE)
    quat = np.array(base_quat) / np.linalg.norm(base_quat)
    np.testing.assert_allclose(model.body_quat[1], quat, atol=1e-15)


def test_menagerie_iiwa14_numbers():
    model = _load(rf.menagerie_iiwa14_xml())
    _check_common(model, nq=7, nu=7)
    masses = _masses(model)
    np.testing.assert_allclose([masses[k] for k in IIWA_MASSES], list(IIWA_MASSES.values()), rtol=PARSE)
    np.testing.assert_array_equal(model.dof_armature, 0.0)
    np.testing.assert_array_equal(model.dof_damping, 0.0)
    np.testing.assert_allclose(model.jnt_range, IIWA_RANGES, rtol=PARSE)


def test_ur5e_description_urdf_numbers():
    """Both MuJoCo's importer and Pinocchio read the hand-written URDF with the YAML's masses; the xacro's inertia
    rotation rpy (0, π/2, 0) turns the upper arm's diag(0.13389, 0.13389, 0.0151074) into I_xx = 0.0151074."""
    pin = pytest.importorskip("pinocchio")
    path = rf.ur5e_description_urdf()
    model = _load(path)
    assert model.nq == 6 and model.nu == 0 and model.nmesh == 0
    np.testing.assert_allclose(model.body_mass[-6:], UR_DESCRIPTION_MASSES, rtol=PARSE)
    pm = pin.buildModelFromUrdf(str(path))
    assert [pm.names[i] for i in range(1, pm.njoints)] == [
        "shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"]
    np.testing.assert_allclose([pm.inertias[i].mass for i in range(1, 7)], UR_DESCRIPTION_MASSES, rtol=PARSE)
    upper_arm = pm.inertias[2].inertia
    np.testing.assert_allclose(np.diag(upper_arm), [0.0151074, 0.13388583541666665, 0.13388583541666665],
                               rtol=1e-12, atol=1e-16)
    np.testing.assert_allclose(pm.upperPositionLimit, [2 * np.pi] * 2 + [np.pi] + [2 * np.pi] * 3, rtol=PARSE)
    np.testing.assert_allclose(pm.effortLimit, [150.0] * 3 + [28.0] * 3, rtol=PARSE)


def test_erd_panda_inertials_equal_menageries():
    """example-robot-data's Panda URDF and Menagerie's panda.xml publish the same inertials: Pinocchio reads both
    (URDF and MJCF readers) and every joint's body (link 7 with the hand merged) agrees in mass exactly and in CoM
    and inertia to 2e-10 — the hand's 7-digit quaternion in Menagerie (cos π/8 = 0.92387953…, written 0.9238795)
    moves the merged link-7 inertial by ~1e-10."""
    pin = pytest.importorskip("pinocchio")
    mjcf = pin.buildModelFromMJCF(str(rf.menagerie_panda_xml()))
    urdf = pin.buildModelFromUrdf(str(rf.erd_panda_urdf()))
    assert mjcf.nv == urdf.nv == 9
    for j in range(1, mjcf.njoints):
        a, b = mjcf.inertias[j], urdf.inertias[j]
        assert a.mass == pytest.approx(b.mass, rel=PARSE)
        np.testing.assert_allclose(a.lever, b.lever, atol=2e-10)
        np.testing.assert_allclose(a.inertia, b.inertia, atol=2e-10)
    differ = [j for j in range(1, 10) if abs(mjcf.inertias[j].mass - urdf.inertias[j].mass) > 0]
    assert differ == []


# ---- the findings (issue 26), engines called directly --------------------------------------------------------------

def _pinocchio_limits(path):
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromUrdf(str(path))
    return model.lowerPositionLimit.copy(), model.upperPositionLimit.copy()


def test_a_pybullet_panda_gravity_differs_from_example_robot_data():
    """pybullet_data's Panda (masses 2.7, 2.73, … kg, inertia diag(0.1)) against example-robot-data's (Franka's
    published inertials), both read by Pinocchio; PyBullet's own G on its file agrees with Pinocchio's, so the
    difference is the file's, not an engine's."""
    pytest.importorskip("pinocchio")
    q, qd = states(*_pinocchio_limits(rf.erd_panda_urdf()))
    _, g_pb, _ = pinocchio_dynamics(rf.pybullet_panda_urdf(), q, qd)
    _, g_erd, _ = pinocchio_dynamics(rf.erd_panda_urdf(), q, qd)
    FIGURES["a_G_abs"].check(max_abs(g_pb, g_erd))
    FIGURES["a_G_rel"].check(global_rel(g_pb, g_erd))
    pytest.importorskip("pybullet")
    _, g_bullet, _ = pybullet_dynamics(rf.pybullet_panda_urdf(), q, qd, inertia_from_file=True)
    assert global_rel(g_bullet, g_pb) < 1e-12  # float64 recursions, entries ≤ 55 N m


def test_b_pybullet_iiwa_against_menagerie_iiwa14():
    """Same joint frames (checked: joint-7 anchor and axis agree to 1e-12 at every state), 6 of 7 masses
    different: G differs by tens of N m at joint 2."""
    pin = pytest.importorskip("pinocchio")
    urdf = rf.pybullet_iiwa_urdf()
    mj = _load(rf.menagerie_iiwa14_xml())
    q, qd = states(mj.jnt_range[:, 0], mj.jnt_range[:, 1])
    pm = pin.buildModelFromUrdf(str(urdf))
    pd = pm.createData()
    data = mujoco.MjData(mj)
    for qi in q[:10]:
        data.qpos[:] = qi
        mujoco.mj_kinematics(mj, data)
        pin.forwardKinematics(pm, pd, qi)
        np.testing.assert_allclose(data.xanchor[-1], pd.oMi[7].translation, atol=1e-12)
        np.testing.assert_allclose(data.xaxis[-1], pd.oMi[7].rotation[:, 2], atol=1e-12)
    urdf_masses = np.array([pm.inertias[j].mass for j in range(1, 8)])
    differ = np.abs(urdf_masses - mj.body_mass[2:]) > 1e-12 * mj.body_mass[2:]
    FIGURES["b_masses_differ"].check(int(differ.sum()))
    _, g_pb, _ = pinocchio_dynamics(urdf, q, qd)
    _, g_men, _ = mujoco_dynamics(mj, q, qd)
    FIGURES["b_G_abs"].check(max_abs(g_pb, g_men))
    assert np.unravel_index(np.abs(g_pb - g_men).argmax(), g_pb.shape)[1] == 1  # joint 2
    FIGURES["b_G_rel"].check(global_rel(g_pb, g_men))
    FIGURES["b_G_rel_pb"].check(global_rel(g_men, g_pb))


def test_c_menagerie_panda_armature_explains_the_whole_M_difference():
    """Menagerie's Panda (MuJoCo) against example-robot-data's (Pinocchio): M differs by armature 0.1 on the
    diagonal of all 9 joints and nothing else; with it zeroed M, G and C·q̇ agree to the hand quaternion's precision,
    and to float64 rounding once that quaternion is written exactly."""
    pytest.importorskip("pinocchio")
    q, qd = states(*_pinocchio_limits(rf.erd_panda_urdf()))
    m_ref, g_ref, c_ref = pinocchio_dynamics(rf.erd_panda_urdf(), q, qd)
    model = _load(rf.menagerie_panda_xml())
    m_men, _, _ = mujoco_dynamics(model, q, qd)
    FIGURES["c_M_rel"].check(global_rel(m_men, m_ref))
    np.testing.assert_allclose(m_men - m_ref, np.broadcast_to(0.1 * np.eye(9), m_ref.shape), atol=1e-8)
    model.dof_armature[:] = 0.0
    m0, g0, c0 = mujoco_dynamics(model, q, qd)
    FIGURES["c_zeroed_rel"].check(max(global_rel(m0, m_ref), global_rel(g0, g_ref), global_rel(c0, c_ref)))
    text = rf.menagerie_panda_xml().read_text()
    exact = f'quat="{np.cos(np.pi / 8)!r} 0 0 {-np.sin(np.pi / 8)!r}"'.replace("np.float64(", "").replace(")", "")
    exact_model = mujoco.MjModel.from_xml_string(text.replace('quat="0.9238795 0 0 -0.3826834"', exact))
    exact_model.dof_armature[:] = 0.0
    m1, g1, c1 = mujoco_dynamics(exact_model, q, qd)
    FIGURES["c_exact_quat_rel"].check(max(global_rel(m1, m_ref), global_rel(g1, g_ref), global_rel(c1, c_ref)))


def test_c_menagerie_ur5e_against_the_ur_description():
    """The UR5e pair does not reduce to armature: Menagerie has the UR description's pre-2024 masses (wrist_3
    0.1889 against 0.1879) and cylinder-centred CoMs, so even with armature zeroed G differs by several N m.  Base frames: Menagerie's world
    is the URDF's base_link turned by π/2 about z (π for the other Menagerie version) — every joint axis agrees
    under that rotation and under no other multiple of π/2; joint-space M, G, C do not depend on it (the rotation
    is about gravity)."""
    pin = pytest.importorskip("pinocchio")
    urdf = rf.ur5e_description_urdf()
    pm = pin.buildModelFromUrdf(str(urdf))
    pd = pm.createData()
    q, qd = states(pm.lowerPositionLimit, pm.upperPositionLimit)
    for path, turn in ((rf.menagerie_ur5e_xml(), 1), (rf.menagerie_ur5e_general_xml(), 2)):
        mj = _load(path)
        data = mujoco.MjData(mj)
        errors = []
        for k in range(4):
            c, s = np.cos(k * np.pi / 2), np.sin(k * np.pi / 2)
            rz = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
            worst = 0.0
            for qi in q[:10]:
                data.qpos[:] = qi
                mujoco.mj_kinematics(mj, data)
                pin.forwardKinematics(pm, pd, qi)
                axes_urdf = np.array([rz @ pd.oMi[j + 1].rotation[:, 2] for j in range(6)])
                worst = max(worst, float(np.abs(data.xaxis - axes_urdf).max()))
            errors.append(worst)
        # 1e-9: default_kinematics.yaml writes π/2 as 1.570796327 (3.2e-10 off)
        assert [k for k, e in enumerate(errors) if e < 1e-9] == [turn]
    mj = _load(rf.menagerie_ur5e_xml())
    mj.dof_armature[:] = 0.0
    _, g_men, _ = mujoco_dynamics(mj, q, qd)
    _, g_urdf, _ = pinocchio_dynamics(urdf, q, qd)
    assert max_abs(g_men, g_urdf) > 1.0  # measured 7.45 N m (12.5 %); masses differ by up to 93 % (wrist 3)


def test_d_same_urdf_two_readers_link8_inertia(tmp_path):
    """pybullet_data's Panda: panda_link8 and panda_grasptarget (both fixed to link 7) have mass 0 and inertia
    diag(0.1).  MuJoCo's URDF importer drops those inertias (link 7's composite: 0.2 kg m² where Pinocchio has
    0.4), Pinocchio and PyBullet keep them: G agrees (no mass moved), M and C·q̇ do not."""
    pytest.importorskip("pinocchio")
    urdf = rf.pybullet_panda_urdf()
    q, qd = states(*_pinocchio_limits(urdf))
    m_pin, g_pin, c_pin = pinocchio_dynamics(urdf, q, qd)
    model = _load(urdf_without_geometry(urdf, tmp_path))
    m_mj, g_mj, c_mj = mujoco_dynamics(model, q, qd)
    assert global_rel(g_mj, g_pin) < 1e-12
    assert global_rel(m_mj, m_pin) > 0.02  # measured 0.046: link 7's composite lacks 0.2 kg m²
    FIGURES["d_C_rel"].check(global_rel(c_mj, c_pin))


def test_d_pybullet_without_inertia_flag():
    """PyBullet's default (no URDF_USE_INERTIA_FROM_FILE) computes every inertia from the collision shapes: M moves
    by tens of per cent on the pybullet_data Panda, G does not; with the flag PyBullet agrees with Pinocchio."""
    pytest.importorskip("pybullet")
    pytest.importorskip("pinocchio")
    urdf = rf.pybullet_panda_urdf()
    q, qd = states(*_pinocchio_limits(urdf))
    m_pin, g_pin, c_pin = pinocchio_dynamics(urdf, q, qd)
    m_on, g_on, c_on = pybullet_dynamics(urdf, q, qd, inertia_from_file=True)
    m_off, g_off, _ = pybullet_dynamics(urdf, q, qd, inertia_from_file=False)
    assert max(global_rel(m_on, m_pin), global_rel(g_on, g_pin), global_rel(c_on, c_pin)) < 1e-12
    assert global_rel(g_off, g_on) < 1e-12
    per_state = state_rel(m_off, m_on)
    FIGURES["d_noflag_M_min"].check(float(per_state.min()))
    FIGURES["d_noflag_M_max"].check(float(per_state.max()))


def test_e_ur5e_wrist1_inertia_rotated_and_offsets():
    """In a common frame (the URDF turned by Menagerie's π/2 base rotation), at q = 0: wrist_1's inertia is the same
    diagonal turned by 90°; every other link's rotational inertia agrees to 0.2 %; joint-axis lines are ≤ 1 mm
    apart."""
    pin = pytest.importorskip("pinocchio")
    pm = pin.buildModelFromUrdf(str(rf.ur5e_description_urdf()))
    pd = pm.createData()
    pin.forwardKinematics(pm, pd, np.zeros(6))
    mj = _load(rf.menagerie_ur5e_xml())
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    rz = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    rel = {}
    for j in range(6):
        body = j + 2  # world, base, shoulder_link, …
        r_mj = data.ximat[body].reshape(3, 3)
        i_mj = r_mj @ np.diag(mj.body_inertia[body]) @ r_mj.T
        r_urdf = rz @ pd.oMi[j + 1].rotation
        i_urdf = r_urdf @ pm.inertias[j + 1].inertia @ r_urdf.T
        rel[mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_BODY, body)] = np.abs(i_mj - i_urdf).max() / np.abs(i_mj).max()
    FIGURES["e_wrist1_rel"].check(float(rel.pop("wrist_1_link")))
    assert max(rel.values()) < 2e-3  # forearm 0.1 % (0.0311796 vs 0.0312094), wrist_3 0.14 %
    distances = []
    for j in range(6):
        axis = data.xaxis[j]
        delta = data.xanchor[j] - rz @ pd.oMi[j + 1].translation
        distances.append(np.linalg.norm(delta - axis * (axis @ delta)) * 1000.0)
    FIGURES["e_offset_max_mm"].check(max(distances))
    assert distances[0] == pytest.approx(0.0, abs=1e-9)  # the base axis: both on z through the origin
