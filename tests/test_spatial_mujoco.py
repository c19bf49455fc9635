"""crossdyn.spatial against MuJoCo, a second independent engine, on random RobotModels written as MJCF by the test
(nested bodies with pos/quat from the joint origin, a hinge or slide joint with the model's axis and its ``pos`` =
the anchor, the inertial's pos/mass/fullinertia, the armature, the gravity; contacts, limits and damping off).  The
anchor convention of crossdyn.robots.model comes from MJCF's joint ``pos``: MuJoCo checks it.

Tolerance 1e-12 of MuJoCo's largest entry: float64 both sides; MuJoCo diagonalises each inertia into principal
axes when it compiles the model (an eigen-decomposition, ~1e-15 relative); measured ≤ 4.7e-15 for M, C q̇ + G, q̈,
T and U here.
"""
from __future__ import annotations

import numpy as np
import pytest
from spatial_models import random_model, relative_error

import crossdyn.spatial as sp
from crossdyn.robots.model import RobotModel

mujoco = pytest.importorskip("mujoco")

TOL = 1e-12
N = 100


def _v(x) -> str:
    return " ".join(repr(float(a)) for a in np.ravel(x))


def to_mjcf(model: RobotModel) -> str:
    """The model as an MJCF document (bodies nested by ``parents``)."""
    children: dict[int, list[int]] = {}
    for i, p in enumerate(model.parents):
        children.setdefault(p, []).append(i)

    def body(i: int, indent: str) -> list[str]:
        joint, inertial = model.joints[i], model.bodies[i].inertial
        quat = np.zeros(4)
        mujoco.mju_mat2Quat(quat, np.ascontiguousarray(joint.origin[:3, :3]).ravel())
        I = inertial.inertia
        kind = "hinge" if joint.type.rotates else "slide"
        lines = [f'{indent}<body name="{model.bodies[i].name}" pos="{_v(joint.origin[:3, 3])}" quat="{_v(quat)}">',
                 f'{indent}  <joint name="{joint.name}" type="{kind}" axis="{_v(joint.axis)}" pos="{_v(joint.anchor)}"'
                 f' armature="{joint.armature!r}" limited="false"/>',
                 f'{indent}  <inertial pos="{_v(inertial.com)}" mass="{inertial.mass!r}" fullinertia="'
                 f'{_v([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]])}"/>']
        for c in children.get(i, []):
            lines += body(c, indent + "  ")
        return lines + [f"{indent}</body>"]

    out = ['<mujoco model="spatial-test">', '  <compiler angle="radian"/>',
           f'  <option gravity="{_v(model.gravity)}"><flag contact="disable" energy="enable"/></option>',
           "  <worldbody>"]
    for root in children.get(-1, []):
        out += body(root, "    ")
    return "\n".join(out + ["  </worldbody>", "</mujoco>"]) + "\n"


MODELS = {"chain7": dict(seed=31, n=7), "tree8": dict(seed=32, n=8, tree=True, dfs=False),
          "chain6-prismatic": dict(seed=33, n=6, prismatic=0.7)}


@pytest.fixture(scope="module", params=list(MODELS))
def case(request):
    model = random_model(**MODELS[request.param])
    m = mujoco.MjModel.from_xml_string(to_mjcf(model))
    assert m.nv == model.n
    rng = np.random.default_rng(2)
    n = model.n
    states = rng.uniform(-np.pi, np.pi, (N, n)), rng.uniform(-5.0, 5.0, (N, n)), rng.uniform(-50.0, 50.0, (N, n))
    return model, m, *states


def dof_order(m, model: RobotModel) -> list[int]:
    """MuJoCo's dof index of each of crossdyn's joints, by name (MuJoCo numbers a tree's bodies depth-first)."""
    return [int(m.jnt_dofadr[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)]) for name in model.joint_names]


def mujoco_batch(m, model: RobotModel, Q, QD, TAU):
    """Per state, in crossdyn's joint order: M (mj_fullM, armature included), qfrc_bias (C q̇ + G), qacc for τ,
    and the energies."""
    d = mujoco.MjData(m)
    k = dof_order(m, model)
    out: dict[str, list] = {"M": [], "bias": [], "qacc": [], "T": [], "U": []}
    for q, qd, tau in zip(Q, QD, TAU, strict=True):
        d.qpos[k], d.qvel[k], d.qfrc_applied[k] = q, qd, tau  # one coordinate per joint: qpos index = dof index
        mujoco.mj_forward(m, d)
        M = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, M)
        out["M"].append(M[np.ix_(k, k)])
        out["bias"].append(d.qfrc_bias[k])
        out["qacc"].append(d.qacc[k])
        out["U"].append(d.energy[0])
        out["T"].append(d.energy[1])
    return {key: np.array(v) for key, v in out.items()}


def test_dynamics_match_mujoco(case):
    model, m, Q, QD, TAU = case
    ref = mujoco_batch(m, model, Q, QD, TAU)
    assert relative_error(sp.crba(model, Q), ref["M"]) <= TOL
    assert relative_error(sp.bias(model, Q, QD), ref["bias"]) <= TOL
    assert relative_error(sp.aba(model, Q, QD, TAU), ref["qacc"]) <= TOL


def test_energy_matches_mujoco(case):
    """MuJoCo's kinetic energy is ½ q̇ᵀ M q̇ with its M (armature included); its potential −Σ m g·c, as crossdyn's."""
    model, m, Q, QD, TAU = case
    ref = mujoco_batch(m, model, Q, QD, TAU)
    T, U = sp.energy(model, Q, QD)
    assert relative_error(T, ref["T"]) <= TOL
    assert relative_error(U, ref["U"]) <= TOL
