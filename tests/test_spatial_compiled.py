"""The model constants cached once per model (:mod:`crossdyn.spatial.compiled`) and the single-state ABA.

* Cached and uncached give the same numbers bit for bit (``array_equal``): the batched RNEA, CRBA, ABA, regressor
  and energy with the cache on and off (``caching(False)`` compiles afresh at every call), and the cached joint
  transforms against the per-joint :func:`~crossdyn.spatial.kinematics.joint_transform`, which computes everything
  from the joint each call.
* The cache follows the model object: a model built with one mass changed gives the changed answer.
* The single-state ABA (6×6 form) equals the batched ABA's rows to rounding: ≤ 1e-13 × max(1, |q̈|) (measured
  ≤ 1e-15 on these models: chains and trees with prismatic joints, anchors, armature, random gravity).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import crossdyn.spatial as sp
from crossdyn.spatial.compiled import caching, compile_model
from crossdyn.spatial.kinematics import bodies, bodies_of, joint_transform, joint_transforms
from spatial_models import random_model

MODELS = [(1, 3, False), (2, 6, False), (3, 7, True), (4, 5, True)]


def _states(n: int, count: int = 20, seed: int = 0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-np.pi, np.pi, (count, n)), rng.uniform(-2, 2, (count, n)), rng.uniform(-10, 10, (count, n)))


@pytest.mark.parametrize("seed,n,tree", MODELS)
def test_cached_and_uncached_give_identical_numbers(seed, n, tree):
    model = random_model(seed, n, tree=tree)
    Q, QD, QDD = _states(n)

    def everything():
        return [sp.rnea(model, Q, QD, QDD), sp.crba(model, Q), sp.aba(model, Q, QD, QDD), sp.bias(model, Q, QD),
                sp.regressor(model, Q, QD, QDD), *sp.energy(model, Q, QD), sp.aba(model, Q[0], QD[0], QDD[0]),
                sp.rnea(model, Q[0], QD[0], QDD[0])]

    with caching(False):
        fresh = everything()
    with caching(True):
        cached = everything()
        again = everything()
    for a, b, c in zip(fresh, cached, again, strict=True):
        assert np.array_equal(a, b) and np.array_equal(b, c)


@pytest.mark.parametrize("seed,n,tree", MODELS)
def test_cached_transforms_are_the_per_joint_ones(seed, n, tree):
    model = random_model(seed, n, tree=tree)
    Q, _, _ = _states(n)
    for i, (R, p) in enumerate(joint_transforms(model, Q)):
        R0, p0 = joint_transform(model.joints[i], Q[:, i])
        assert np.array_equal(R, R0) and np.array_equal(p, p0), i
    b, b0 = bodies(model), bodies_of(model)
    for key in ("mass", "h", "inertia", "S", "armature"):
        assert np.array_equal(getattr(b, key), getattr(b0, key)), key
    assert bodies(model) is compile_model(model).bodies  # computed once


def test_the_cache_follows_the_model_object():
    model = random_model(5, 4)
    Q, QD, TAU = _states(4, 5)
    before = sp.aba(model, Q, QD, TAU)
    body = model.bodies[2]
    heavier = replace(model, bodies=model.bodies[:2] + (replace(body, inertial=replace(
        body.inertial, mass=body.inertial.mass * 1.01)),) + model.bodies[3:])
    assert not np.allclose(sp.aba(heavier, Q, QD, TAU), before, rtol=1e-6, atol=0)
    assert np.array_equal(sp.aba(model, Q, QD, TAU), before)


@pytest.mark.parametrize("seed,n,tree", MODELS)
@pytest.mark.parametrize("armature", [True, False])
def test_single_state_aba_equals_the_batched_rows(seed, n, tree, armature):
    model = random_model(seed, n, tree=tree)
    Q, QD, TAU = _states(n, 50, seed)
    batched = sp.aba(model, Q, QD, TAU, armature=armature)
    single = np.array([sp.aba(model, q, qd, tau, armature=armature) for q, qd, tau in zip(Q, QD, TAU, strict=True)])
    scale = np.maximum(1.0, np.abs(batched).max(axis=1, keepdims=True))
    assert np.max(np.abs(single - batched) / scale) <= 1e-13
    # and it is the dynamics: M q̈ + C q̇ + G = τ (RNEA, an independent recursion)
    tau_back = sp.rnea(model, Q, QD, single, armature=armature)
    assert np.max(np.abs(tau_back - TAU)) <= 1e-9 * max(1.0, float(np.abs(TAU).max()))
