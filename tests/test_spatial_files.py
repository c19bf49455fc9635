"""crossdyn.spatial on real robot files: example-robot-data's Panda and UR5 URDFs, pybullet_data's Panda and iiwa
and the UR5e URDF fixture, read by crossdyn's reader (crossdyn.robots.read_robot), against
pinocchio.buildModelFromUrdf on the same file, 100 random states within the joint limits; the Menagerie MJCF
fixtures against MuJoCo's compilation of the same file.  Joints are matched by
name (Pinocchio's idx_q/idx_v), a continuous joint's (cos q, sin q) included.

Tolerance 1e-12 of Pinocchio's largest entry: both float64, the same rigid bodies (fixed links merged by both
readers); measured ≤ 7.3e-16 for M, G, C q̇ + G and τ on these files, q̈ ≤ 1.2e-13 (the UR5e's M is the worst
conditioned: the ABA's round-off grows with it).
"""
from __future__ import annotations

import numpy as np
import pytest
import robot_files
from spatial_models import relative_error

import crossdyn.spatial as sp
from crossdyn.robots import read_robot

pin = pytest.importorskip("pinocchio")

TOL = 1e-12
N = 100
FILES = {"erd-panda": robot_files.erd_panda_urdf, "erd-ur5": robot_files.erd_ur5_urdf,
         "pybullet-panda": robot_files.pybullet_panda_urdf, "pybullet-iiwa": robot_files.pybullet_iiwa_urdf,
         "ur5e-description": robot_files.ur5e_description_urdf}


def pinocchio_states(pm, model, Q: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Q, V (crossdyn's joint order) as Pinocchio's q (N, nq) and v (N, nv), and crossdyn's joints' idx_v."""
    q = np.zeros((Q.shape[0], pm.nq))
    v = np.zeros((Q.shape[0], pm.nv))
    order = []
    for k, name in enumerate(model.joint_names):
        joint = pm.joints[pm.getJointId(name)]
        assert joint.nv == 1, f"{name}: {joint.nv} velocities in Pinocchio"
        if joint.nq == 2:  # continuous: (cos q, sin q)
            q[:, joint.idx_q], q[:, joint.idx_q + 1] = np.cos(Q[:, k]), np.sin(Q[:, k])
        else:
            q[:, joint.idx_q] = Q[:, k]
        v[:, joint.idx_v] = V[:, k]
        order.append(joint.idx_v)
    return q, v, order


@pytest.fixture(scope="module", params=list(FILES))
def robot(request):
    path = FILES[request.param]()
    model = read_robot(path)
    pm = pin.buildModelFromUrdf(str(path))
    assert sorted(model.joint_names) == sorted(pm.names[j] for j in range(1, pm.njoints))
    rng = np.random.default_rng(0)
    lo = np.where(np.isfinite(model.lower()), model.lower(), -np.pi)
    hi = np.where(np.isfinite(model.upper()), model.upper(), np.pi)
    Q = rng.uniform(lo, hi, (N, model.n))
    QD, QDD = rng.uniform(-2.0, 2.0, (N, model.n)), rng.uniform(-10.0, 10.0, (N, model.n))
    return model, pm, pm.createData(), Q, QD, QDD


def per_state(pm, pd, fn, *arrays):
    return np.array([np.array(fn(pm, pd, *(a[k] for a in arrays)), dtype=float) for k in range(arrays[0].shape[0])])


def test_dynamics_match_pinocchio_reading_the_same_file(robot):
    model, pm, pd, Q, QD, QDD = robot
    assert np.allclose(model.gravity, pm.gravity.linear, rtol=0, atol=0)
    q, v, order = pinocchio_states(pm, model, Q, QD)
    _, a, _ = pinocchio_states(pm, model, Q, QDD)
    M = per_state(pm, pd, pin.crba, q)
    M = (np.triu(M) + np.swapaxes(np.triu(M, 1), 1, 2))[:, order][:, :, order]
    assert relative_error(sp.crba(model, Q), M) <= TOL
    assert relative_error(sp.gravity_torque(model, Q), per_state(pm, pd, pin.computeGeneralizedGravity, q)[:, order]) <= TOL
    assert relative_error(sp.bias(model, Q, QD), per_state(pm, pd, pin.nonLinearEffects, q, v)[:, order]) <= TOL
    tau = sp.rnea(model, Q, QD, QDD)
    assert relative_error(tau, per_state(pm, pd, pin.rnea, q, v, a)[:, order]) <= TOL
    t_pin = np.zeros_like(v)
    t_pin[:, order] = tau
    assert relative_error(sp.aba(model, Q, QD, tau), per_state(pm, pd, pin.aba, q, v, t_pin)[:, order]) <= TOL


def test_regressor_energy_and_poses_match_pinocchio(robot):
    model, pm, pd, Q, QD, QDD = robot
    q, v, order = pinocchio_states(pm, model, Q, QD)
    _, a, _ = pinocchio_states(pm, model, Q, QDD)
    Y = per_state(pm, pd, pin.computeJointTorqueRegressor, q, v, a)
    Y = Y[:, order].reshape(N, model.n, -1, 10)[:, :, order].reshape(N, model.n, -1)
    assert relative_error(sp.regressor(model, Q, QD, QDD), Y) <= TOL
    T, U = sp.energy(model, Q, QD)
    assert relative_error(T, per_state(pm, pd, pin.computeKineticEnergy, q, v)) <= TOL
    assert relative_error(U, per_state(pm, pd, pin.computePotentialEnergy, q)) <= TOL
    poses = np.zeros((N, model.n, 4, 4))
    for k in range(N):
        pin.forwardKinematics(pm, pd, q[k])
        for i, name in enumerate(model.joint_names):
            poses[k, i] = pd.oMi[pm.getJointId(name)].homogeneous
    assert relative_error(sp.body_poses(model, Q), poses) <= TOL


MJCF_FILES = {"menagerie-panda": robot_files.menagerie_panda_xml,
              "menagerie-panda-nohand": robot_files.menagerie_panda_nohand_xml,
              "menagerie-ur5e": robot_files.menagerie_ur5e_xml, "menagerie-iiwa14": robot_files.menagerie_iiwa14_xml}


@pytest.mark.parametrize("name", list(MJCF_FILES))
def test_mjcf_fixtures_match_mujoco_reading_the_same_file(name):
    """The Menagerie fixtures (armature 0.1 on the Panda's and UR5e's joints) read by crossdyn's MJCF reader against
    MuJoCo's own compilation of the file: M (armature included), C q̇ + G (qfrc_bias: rigid body only, the file's
    servos and damping are not in it) and MuJoCo's energies (U up to the constant of the base), joints by name,
    100 states within the limits."""
    mujoco = pytest.importorskip("mujoco")
    path = MJCF_FILES[name]()
    model = read_robot(path)
    m = mujoco.MjModel.from_xml_path(str(path))
    m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    d = mujoco.MjData(m)
    k = [int(m.jnt_dofadr[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, j)]) for j in model.joint_names]
    assert m.nq == m.nv == model.n
    rng = np.random.default_rng(1)
    lo = np.where(np.isfinite(model.lower()), model.lower(), -np.pi)
    hi = np.where(np.isfinite(model.upper()), model.upper(), np.pi)
    Q, QD = rng.uniform(lo, hi, (N, model.n)), rng.uniform(-2.0, 2.0, (N, model.n))
    M, bias, T, U = np.zeros((N, model.n, model.n)), np.zeros((N, model.n)), np.zeros(N), np.zeros(N)
    full = np.zeros((m.nv, m.nv))
    for s in range(N):
        d.qpos[k], d.qvel[k] = Q[s], QD[s]
        mujoco.mj_forward(m, d)
        mujoco.mj_fullM(m, d, full)
        M[s], bias[s], U[s], T[s] = full[np.ix_(k, k)], d.qfrc_bias[k], d.energy[0], d.energy[1]
    assert np.any(model.armature() > 0) == (name != "menagerie-iiwa14")
    assert relative_error(sp.crba(model, Q), M) <= TOL
    assert relative_error(sp.bias(model, Q, QD), bias) <= TOL
    T_mine, U_mine = sp.energy(model, Q, QD)
    assert relative_error(T_mine, T) <= TOL
    # MuJoCo's U also counts the bodies welded to the world (the base link0: a constant); compare changes of U
    assert relative_error(U_mine - U_mine[0], U - U[0]) <= TOL
