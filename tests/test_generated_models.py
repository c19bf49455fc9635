"""The generated URDF and MJCF carry the spec's physics: raw Pinocchio and MuJoCo APIs vs the analytic model."""
import xml.etree.ElementTree as ET

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from crossdyn import analytic
from crossdyn.models import engine_inertias, get_preset, planarNr, to_mjcf, to_urdf

from conftest import PRESET_NAMES, random_states

TOL = 1e-10
ARMS = PRESET_NAMES + ["planar5r"]


def _pinocchio(spec):
    model = pin.buildModelFromXML(to_urdf(spec))
    model.gravity.linear = np.array(spec.gravity)
    return model, model.createData()


@pytest.mark.parametrize("name", ARMS)
def test_pinocchio_from_urdf_matches_analytic(name):
    spec = get_preset(name)
    model, data = _pinocchio(spec)
    assert model.nq == model.nv == spec.n
    q, qd, qdd = random_states(spec.n, 1000, seed=11)
    tau = analytic.inverse_dynamics(spec, q, qd, qdd)
    M = analytic.mass_matrix(spec, q)
    G = analytic.gravity(spec, q)
    scale = spec.torque_scale()
    e_tau = e_M = e_G = 0.0
    for k in range(len(q)):
        e_tau = max(e_tau, np.max(np.abs(pin.rnea(model, data, q[k], qd[k], qdd[k]) - tau[k])))
        Mp = pin.crba(model, data, q[k])
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        e_M = max(e_M, np.max(np.abs(Mp - M[k])))
        e_G = max(e_G, np.max(np.abs(pin.computeGeneralizedGravity(model, data, q[k]) - G[k])))
    assert e_tau <= TOL * scale and e_G <= TOL * scale and e_M <= TOL


def _full_m(m, d):
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, M, d.qM) if hasattr(d, "qM") else mujoco.mj_fullM(m, d, M)
    return M


@pytest.mark.parametrize("name", ARMS)
def test_mujoco_from_mjcf_matches_analytic(name):
    spec = get_preset(name)
    m = mujoco.MjModel.from_xml_string(to_mjcf(spec))
    d = mujoco.MjData(m)
    assert m.nv == spec.n
    q, qd, qdd = random_states(spec.n, 1000, seed=12)
    tau = analytic.inverse_dynamics(spec, q, qd, qdd)
    M = analytic.mass_matrix(spec, q)
    e_tau = e_M = 0.0
    for k in range(len(q)):
        d.qpos[:], d.qvel[:], d.qacc[:] = q[k], qd[k], qdd[k]
        mujoco.mj_inverse(m, d)
        e_tau = max(e_tau, np.max(np.abs(d.qfrc_inverse - tau[k])))
        e_M = max(e_M, np.max(np.abs(_full_m(m, d) - M[k])))
    assert e_tau <= TOL * spec.torque_scale() and e_M <= TOL


def test_mjcf_damping_included_in_mj_inverse_and_urdf_carries_it():
    spec = get_preset("planar2r").with_links(damping=0.25)
    m = mujoco.MjModel.from_xml_string(to_mjcf(spec))
    d = mujoco.MjData(m)
    q, qd, qdd = np.array([0.3, -0.2]), np.array([1.0, -2.0]), np.array([0.5, 0.1])
    d.qpos[:], d.qvel[:], d.qacc[:] = q, qd, qdd
    mujoco.mj_inverse(m, d)
    assert np.allclose(d.qfrc_inverse, analytic.inverse_dynamics(spec, q, qd, qdd), atol=1e-12)
    joints = ET.fromstring(to_urdf(spec)).findall("joint[@type='revolute']")
    assert [float(j.find("dynamics").get("damping")) for j in joints] == [0.25, 0.25]


def test_generated_files_default_to_no_damping_and_explicit_inertia():
    spec = get_preset("planar3r")
    urdf = ET.fromstring(to_urdf(spec))
    joints = urdf.findall("joint")
    assert [j.get("type") for j in joints] == ["fixed"] + ["revolute"] * spec.n
    for j in joints[1:]:
        assert float(j.find("dynamics").get("damping")) == 0.0
        assert j.find("axis").get("xyz") == "0 0 1"
    links = urdf.findall("link")
    assert [l.get("name") for l in links] == ["world", "base"] + [f"link{i}" for i in range(1, spec.n + 1)]
    for link, spec_link in zip(links[2:], spec.links):
        inertial = link.find("inertial")
        assert float(inertial.find("mass").get("value")) == spec_link.mass
        assert float(inertial.find("inertia").get("izz")) == spec_link.inertia
    mj = ET.fromstring(to_mjcf(spec))
    assert mj.find("compiler").get("inertiafromgeom") == "false"
    assert mj.find("compiler").get("balanceinertia") == "false"
    for geom in mj.iter("geom"):
        assert geom.get("contype") == "0" and geom.get("conaffinity") == "0"


def test_point_mass_substitution_is_recorded_and_loads_everywhere():
    spec = get_preset("planar2r-pointmass")
    values, subs = engine_inertias(spec)
    assert [s.link for s in subs] == [1, 2] and all(s.spec_inertia == 0.0 for s in subs)
    assert all(0 < v <= 1e-13 for v in values)
    mujoco.MjModel.from_xml_string(to_mjcf(spec))  # raises if MuJoCo rejects the inertia
    _pinocchio(spec)


def test_generated_model_for_many_links_loads():
    spec = planarNr(12)
    m = mujoco.MjModel.from_xml_string(to_mjcf(spec, integrator="RK4"))
    model, _ = _pinocchio(spec)
    assert m.nv == model.nv == 12
