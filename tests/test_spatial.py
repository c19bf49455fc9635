"""crossdyn.spatial against Pinocchio, built independently from the same RobotModel through Pinocchio's own API
(tests/spatial_models.py: JointModelRevoluteUnaligned / PrismaticUnaligned, the joint frame at origin · T(anchor),
the inertia given relative to it), on random chains and trees with revolute and prismatic joints, anchors ≠ 0,
random inertias, armature and gravity: 200 random states each.

Tolerance: 1e-12 of the reference's largest entry over the batch.  Both sides are float64 (ε = 2.2e-16) with a few
hundred operations per entry and the same equations in a different order: measured ≤ 1.2e-15 for τ, M, G, C q̇, Y,
T, U and ≤ 8e-15 for q̈ (the ABA's round-off grows with M's condition number); 1e-12 is ~4500 ε and leaves room
for that growth without hiding a wrong term (a missing anchor, armature or cross term is ≥ 1e-3 here).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spatial_models import anchor_map, joint_anchor, random_model, relative_error, to_pinocchio, translation

import crossdyn.spatial as sp

pin = pytest.importorskip("pinocchio")

TOL = 1e-12
N = 200

MODELS = {
    "chain7": dict(seed=1, n=7),
    "chain7-revolute": dict(seed=11, n=7, prismatic=0.0),
    "chain5-prismatic": dict(seed=12, n=5, prismatic=1.0),
    "chain6-no-anchor": dict(seed=13, n=6, anchors=False),
    "tree9": dict(seed=2, n=9, tree=True),
    "tree8": dict(seed=3, n=8, tree=True, prismatic=0.5),
    "one-body": dict(seed=4, n=1),
}


def states(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-np.pi, np.pi, (N, n)), rng.uniform(-5.0, 5.0, (N, n)), rng.uniform(-20.0, 20.0, (N, n))


SHAPES = {"rnea": "v", "crba": "vv", "computeGeneralizedGravity": "v", "nonLinearEffects": "v", "aba": "v",
          "computeJointTorqueRegressor": "vp", "computeKineticEnergy": "", "computePotentialEnergy": ""}
"""What each Pinocchio function returns per state (v: nv, p: 10 nv); eigenpy hands a 1-row matrix back as 1-D."""


def pinocchio_batch(pm, pd, fn, *arrays) -> np.ndarray:
    shape = tuple({"v": pm.nv, "p": 10 * pm.nv}[c] for c in SHAPES[fn.__name__])
    return np.array([np.array(fn(pm, pd, *(a[k] for a in arrays)), dtype=float).reshape(shape)
                     for k in range(arrays[0].shape[0])])


@pytest.fixture(scope="module", params=list(MODELS))
def case(request):
    model = random_model(**MODELS[request.param])
    pm, pd = to_pinocchio(model)
    Q, QD, QDD = states(model.n)
    return model, pm, pd, Q, QD, QDD


def test_the_pinocchio_model_has_our_joints(case):
    model, pm, pd, *_ = case
    assert pm.nq == pm.nv == model.n
    assert [pm.names[j] for j in range(1, pm.njoints)] == list(model.joint_names)
    assert [pm.parents[j] - 1 for j in range(1, pm.njoints)] == list(model.parents)


def test_rnea_matches_pinocchio(case):
    model, pm, pd, Q, QD, QDD = case
    ref = pinocchio_batch(pm, pd, pin.rnea, Q, QD, QDD)  # Pinocchio adds armature ⊙ q̈
    assert relative_error(sp.rnea(model, Q, QD, QDD), ref) <= TOL
    assert relative_error(sp.rnea(model, Q, QD, QDD, armature=False), ref - model.armature() * QDD) <= TOL


def test_crba_matches_pinocchio(case):
    model, pm, pd, Q, _, _ = case
    ref = pinocchio_batch(pm, pd, pin.crba, Q)
    ref = np.triu(ref) + np.swapaxes(np.triu(ref, 1), 1, 2)  # Pinocchio fills the upper triangle
    assert relative_error(sp.crba(model, Q), ref) <= TOL
    without = sp.crba(model, Q, armature=False)
    assert relative_error(without + np.diag(model.armature()), ref) <= TOL


def test_gravity_and_bias_match_pinocchio(case):
    model, pm, pd, Q, QD, _ = case
    G = pinocchio_batch(pm, pd, pin.computeGeneralizedGravity, Q)
    h = pinocchio_batch(pm, pd, pin.nonLinearEffects, Q, QD)
    assert relative_error(sp.gravity_torque(model, Q), G) <= TOL
    assert relative_error(sp.bias(model, Q, QD), h) <= TOL
    assert relative_error(sp.coriolis(model, Q, QD), h - G, scale=h) <= TOL  # one body about a fixed axis: C q̇ = 0


def test_aba_matches_pinocchio(case):
    model, pm, pd, Q, QD, QDD = case
    tau = np.random.default_rng(1).uniform(-50.0, 50.0, Q.shape)
    ref = pinocchio_batch(pm, pd, pin.aba, Q, QD, tau)  # with Pinocchio's armature on M's diagonal
    assert relative_error(sp.aba(model, Q, QD, tau), ref) <= TOL


def test_regressor_matches_pinocchio(case):
    """Pinocchio's parameters are about its joint frames (at the anchors): Y_crossdyn = Y_pin · A, with A the map
    from parameters about the body origins to parameters about the anchors (tests/spatial_models.anchor_map)."""
    model, pm, pd, Q, QD, QDD = case
    ref = pinocchio_batch(pm, pd, pin.computeJointTorqueRegressor, Q, QD, QDD)
    Y = sp.regressor(model, Q, QD, QDD)
    assert Y.shape == (N, model.n, 10 * model.n)
    assert relative_error(Y, ref @ anchor_map(model)) <= TOL
    pins = np.concatenate([pm.inertias[j].toDynamicParameters() for j in range(1, pm.njoints)])
    assert relative_error(anchor_map(model) @ sp.parameters(model), pins) <= TOL


def test_regressor_columns_are_pinocchios_without_anchors():
    """With every anchor at the body origin both parameter vectors are the same numbers, in the same order."""
    model = random_model(seed=13, n=6, anchors=False)
    pm, pd = to_pinocchio(model)
    Q, QD, QDD = states(model.n, seed=5)
    ref = pinocchio_batch(pm, pd, pin.computeJointTorqueRegressor, Q, QD, QDD)
    assert relative_error(sp.regressor(model, Q, QD, QDD), ref) <= TOL
    pins = np.concatenate([pm.inertias[j].toDynamicParameters() for j in range(1, pm.njoints)])
    assert relative_error(sp.parameters(model), pins) <= TOL


def test_energy_matches_pinocchio(case):
    """Rigid-body energy only: Pinocchio 4.1's computeKineticEnergy adds ½ I_a q̇² for prismatic joints but not
    for JointModelRevoluteUnaligned (measured: docs/_incoming/spatial.md), so its armature is zeroed here."""
    model, pm, pd, Q, QD, _ = case
    pm = pm.copy()
    pm.armature = np.zeros(model.n)
    pd = pm.createData()
    T, U = sp.energy(model, Q, QD, armature=False)
    assert relative_error(T, pinocchio_batch(pm, pd, pin.computeKineticEnergy, Q, QD)) <= TOL
    assert relative_error(U, pinocchio_batch(pm, pd, pin.computePotentialEnergy, Q)) <= TOL
    T_arm, _ = sp.energy(model, Q, QD)
    assert relative_error(T_arm - T, 0.5 * QD**2 @ model.armature()) <= TOL


def test_body_poses_match_pinocchio(case):
    """crossdyn's body frame is Pinocchio's joint frame moved back by the anchor: ⁰X_i = oMi · T(−anchor)."""
    model, pm, pd, Q, _, _ = case
    ref = np.zeros((N, model.n, 4, 4))
    for k in range(N):
        pin.forwardKinematics(pm, pd, Q[k])
        for i, joint in enumerate(model.joints):
            ref[k, i] = pd.oMi[i + 1].homogeneous @ translation(-joint_anchor(joint))
    assert relative_error(sp.body_poses(model, Q), ref) <= TOL


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 8), tree=st.booleans(),
       prismatic=st.sampled_from([0.0, 0.3, 1.0]), anchors=st.booleans())
def test_any_drawn_model_matches_pinocchio(seed, n, tree, prismatic, anchors):
    """hypothesis draws the model (depth-first trees: Pinocchio's CRBA needs every subtree's joints consecutive;
    crossdyn's any topological order, tests/test_spatial_physics.py relabels trees); 20 states each."""
    model = random_model(seed, n, tree=tree, prismatic=prismatic, anchors=anchors)
    pm, pd = to_pinocchio(model)
    rng = np.random.default_rng(seed)
    Q, QD, QDD = rng.uniform(-np.pi, np.pi, (20, n)), rng.uniform(-5.0, 5.0, (20, n)), rng.uniform(-20.0, 20.0, (20, n))
    M = pinocchio_batch(pm, pd, pin.crba, Q)
    assert relative_error(sp.crba(model, Q), np.triu(M) + np.swapaxes(np.triu(M, 1), 1, 2)) <= TOL
    tau = sp.rnea(model, Q, QD, QDD)
    assert relative_error(tau, pinocchio_batch(pm, pd, pin.rnea, Q, QD, QDD)) <= TOL
    assert relative_error(sp.aba(model, Q, QD, tau), pinocchio_batch(pm, pd, pin.aba, Q, QD, tau)) <= TOL
    Y = pinocchio_batch(pm, pd, pin.computeJointTorqueRegressor, Q, QD, QDD)
    assert relative_error(sp.regressor(model, Q, QD, QDD), Y @ anchor_map(model)) <= TOL
