"""The generated URDF/MJCF carry no geometry that can produce contact: a folded planar3r, whose link 3 lies
across link 1 at q = (0, 2.97, 2.97), collides with itself in no engine — even with the engines' collision
detection switched on.  Each test also shows that it could fail: the same check on a model *with* collision
geometry finds the contact.
"""
import os
import tempfile

import mujoco
import numpy as np
import pybullet as p
import pytest

from crossdyn import analytic
from crossdyn.models import get_preset, to_mjcf, to_urdf

FOLDED = np.array([0.0, 2.97, 2.97])


def _pybullet_contacts(urdf: str) -> int:
    """Contact points PyBullet finds between the arm's own links at FOLDED, self-collision switched on."""
    cid = p.connect(p.DIRECT)
    fd, path = tempfile.mkstemp(suffix=".urdf")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(urdf)
        body = p.loadURDF(path, useFixedBase=True, physicsClientId=cid,
                          flags=p.URDF_USE_INERTIA_FROM_FILE | p.URDF_USE_SELF_COLLISION)
        joints = [j for j in range(p.getNumJoints(body, physicsClientId=cid))
                  if p.getJointInfo(body, j, physicsClientId=cid)[2] == p.JOINT_REVOLUTE]
        for j, q in zip(joints, FOLDED):
            p.resetJointState(body, j, float(q), 0.0, physicsClientId=cid)
        p.performCollisionDetection(physicsClientId=cid)
        return len(p.getContactPoints(body, body, physicsClientId=cid))
    finally:
        os.unlink(path)
        p.disconnect(cid)


def test_pybullet_folded_arm_has_no_self_contact():
    spec = get_preset("planar3r")
    assert "<collision" not in to_urdf(spec)
    assert _pybullet_contacts(to_urdf(spec)) == 0
    assert _pybullet_contacts(to_urdf(spec, collision=True)) > 0  # the cylinders would touch


def _mujoco_contacts(mjcf: str) -> int:
    """Contacts MuJoCo finds at FOLDED with its contact flag switched back on."""
    m = mujoco.MjModel.from_xml_string(mjcf)
    m.opt.disableflags &= ~int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    d = mujoco.MjData(m)
    d.qpos[:] = FOLDED
    mujoco.mj_forward(m, d)
    return int(d.ncon)


def test_mujoco_folded_arm_has_no_self_contact_even_with_contacts_enabled():
    spec = get_preset("planar3r")
    mjcf = to_mjcf(spec)
    assert _mujoco_contacts(mjcf) == 0
    colliding = mjcf.replace('contype="0" conaffinity="0"', 'contype="1" conaffinity="1"')
    assert colliding != mjcf and _mujoco_contacts(colliding) > 0


@pytest.mark.parametrize("name", ["drake", "drake-discrete"])
def test_drake_folded_arm_has_no_contact_force(name):
    pytest.importorskip("pydrake")
    from crossdyn.engines import make_engine

    spec = get_preset("planar3r")
    with make_engine(name, spec, 1e-3) as engine:
        assert np.array_equal(engine.contact_forces(FOLDED), np.zeros(3))
        qdd = engine.forward_dynamics(FOLDED, np.zeros(3), np.zeros(3))
    # the free arm's acceleration, nothing else (rounding: 1e-9 relative)
    ref = analytic.forward_dynamics(spec, FOLDED, np.zeros(3), np.zeros(3))
    assert np.max(np.abs(qdd - ref)) <= 1e-9 * np.max(np.abs(ref))
    with make_engine(name + "@collision_geometry=true", spec, 1e-3) as engine:
        assert np.max(np.abs(engine.contact_forces(FOLDED))) > 1e3  # measured 2.3e4 N m
