"""crossdyn.spatial against crossdyn's planar analytic model (crossdyn.analytic) where the chain is planar.

The RobotModel is the preset's compiled model (:func:`crossdyn.models.compile.compile_arm`, the model of the URDF
crossdyn.models.urdf writes): joint i about +z at x = L_{i−1} of the previous link, link i along its x axis with
its centre of mass at (Lc, 0, 0) and the isotropic inertia diag(J, J, J) (planar dynamics see only J_zz; a point
mass's J = 0 is the ≤ 1e-14 kg m² floor of every generated file), the armature on the joint, gravity the spec's
world vector (in the plane).  The analytic side is the closed form (2R, 3R) or the symbolic Euler–Lagrange model (n ≤ 8):
derived from the energies, sharing no code with the spatial recursions.  The whole arm may be turned in space by
a rotation B of its base (the first joint's origin), with gravity turned with it: nothing may change.

Tolerance 1e-12 of the analytic value's largest entry: float64 both sides, measured ≤ 1e-15.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from spatial_models import random_rotation, relative_error

import crossdyn.analytic as an
import crossdyn.spatial as sp
from crossdyn.models.compile import compile_arm
from crossdyn.models.presets import get_preset, planarNr
from crossdyn.models.spec import ArmSpec
from crossdyn.robots.model import RobotModel

TOL = 1e-12
N = 200


def planar_model(spec: ArmSpec, base: np.ndarray | None = None) -> RobotModel:
    """The ArmSpec's compiled RobotModel (see the module docstring); ``base``: a rotation of the whole arm (the first
    joint's origin and gravity turned by it)."""
    model = compile_arm(spec)
    if base is None:
        return model
    first = model.joints[0]
    origin = first.origin.copy()
    origin[:3, :3] = base @ origin[:3, :3]
    return replace(model, joints=(replace(first, origin=origin), *model.joints[1:]), gravity=base @ model.gravity)


def states(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-np.pi, np.pi, (N, n)), rng.uniform(-5.0, 5.0, (N, n)), rng.uniform(-20.0, 20.0, (N, n))


CASES = [("planar2r", "closed"), ("planar3r", "closed"), ("planar3r-general", "closed"),
         ("planar3r-geared", "closed"), ("planar2r-pointmass", "closed")]


@pytest.mark.parametrize("turned", [False, True], ids=["in-xy", "turned"])
@pytest.mark.parametrize(("preset", "method"), CASES)
def test_planar_presets_match_the_analytic_model(preset, method, turned):
    spec = get_preset(preset)
    base = random_rotation(np.random.default_rng(7)) if turned else None
    model = planar_model(spec, base)
    Q, QD, QDD = states(model.n)
    M = an.mass_matrix(spec, Q, method=method)  # armature on the diagonal, as crossdyn's planar model has it
    G = an.gravity(spec, Q, method=method)
    Cqd = an.coriolis(spec, Q, QD, method=method)
    assert relative_error(sp.crba(model, Q), M) <= TOL
    assert relative_error(sp.gravity_torque(model, Q), G) <= TOL
    assert relative_error(sp.coriolis(model, Q, QD), Cqd) <= TOL
    assert relative_error(sp.bias(model, Q, QD), Cqd + G) <= TOL
    tau = np.einsum("nij,nj->ni", M, QDD) + Cqd + G
    assert relative_error(sp.rnea(model, Q, QD, QDD), tau) <= TOL
    assert relative_error(sp.aba(model, Q, QD, tau), QDD) <= TOL


@pytest.mark.slow  # SymPy derives the 5R model (~8 s)
def test_a_planar_5r_matches_the_symbolic_model():
    spec = planarNr(5)
    model = planar_model(spec)
    Q, QD, _ = states(model.n, seed=3)
    Q, QD = Q[:40], QD[:40]  # the symbolic model evaluates per state; 40 keep it quick
    assert relative_error(sp.crba(model, Q), an.mass_matrix(spec, Q, method="symbolic")) <= TOL
    assert relative_error(sp.gravity_torque(model, Q), an.gravity(spec, Q, method="symbolic")) <= TOL
    assert relative_error(sp.coriolis(model, Q, QD), an.coriolis(spec, Q, QD, method="symbolic")) <= TOL


def test_a_planar_9r_matches_the_planar_newton_euler():
    """Beyond the symbolic model's reach: crossdyn.analytic's planar RNEA (scalar angles, its own code)."""
    spec = planarNr(9)
    model = planar_model(spec, random_rotation(np.random.default_rng(9)))
    Q, QD, QDD = states(model.n, seed=5)
    assert relative_error(sp.crba(model, Q), an.mass_matrix(spec, Q, method="rnea")) <= TOL
    assert relative_error(sp.bias(model, Q, QD), an.bias(spec, Q, QD, method="rnea")) <= TOL
    assert relative_error(sp.rnea(model, Q, QD, QDD), an.inverse_dynamics(spec, Q, QD, QDD, method="rnea")) <= TOL


def test_planar_energy_matches_the_analytic_model():
    spec = get_preset("planar3r-general")
    model = planar_model(spec)
    Q, QD, _ = states(model.n, seed=4)
    T, U = sp.energy(model, Q, QD)
    assert relative_error(T, an.kinetic_energy(spec, Q, QD)) <= TOL
    # potentials may differ by a constant (the zero level): compare their differences from the first state
    Ua = an.potential_energy(spec, Q)
    assert relative_error(U - U[0], Ua - Ua[0]) <= TOL
