"""crossdyn.analytic.spatial_symbolic: the symbolic Lagrangian of spatial arms against Pinocchio (spatial algebra
on a RobotModel built from the same arm with numbers) and its own identities.

Tolerance 1e-12 relative to the reference's largest entry: both sides are double-precision evaluations of the
same dynamics by different operation orders (products of ≤ 3 rotations, sums of ≤ ~100 terms), whose rounding
stays below ~1e-14 relative for these well-scaled arms (lengths 0.2–1.2 m, masses 0.5–3 kg).
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from crossdyn.analytic import spatial_symbolic as ss
from crossdyn.analytic.spatial_arm import robot_model
from spatial_symbolic_arms import ARMS, random_values, relative_error, to_pinocchio

pin = pytest.importorskip("pinocchio")
TOL = 1e-12
N_STATES = 100


@pytest.fixture(scope="module", params=sorted(ARMS))
def case(request):
    arm = ARMS[request.param]()
    d = ss.derive(arm)
    rng = np.random.default_rng(sum(map(ord, request.param)))
    vals = random_values(arm, rng)
    Q = rng.uniform(-np.pi, np.pi, (N_STATES, arm.n))
    QD = rng.uniform(-2.0, 2.0, (N_STATES, arm.n))
    return arm, d, vals, Q, QD


def _pin(model, fn, *arrays):
    pm, pd = to_pinocchio(model)
    out = [np.array(fn(pm, pd, *(a[k] for a in arrays))) for k in range(len(arrays[0]))]
    return np.array(out)


def test_mass_matrix_matches_pinocchio(case):
    arm, d, vals, Q, _ = case
    ref = _pin(robot_model(arm, vals), pin.crba, Q)
    ref = np.triu(ref) + np.triu(ref, 1).transpose(0, 2, 1)   # Pinocchio fills the upper triangle
    assert relative_error(d.mass_matrix(Q, vals), ref) <= TOL


def test_gravity_and_bias_match_pinocchio(case):
    arm, d, vals, Q, QD = case
    model = robot_model(arm, vals)
    G = _pin(model, pin.computeGeneralizedGravity, Q)
    h = _pin(model, pin.nonLinearEffects, Q, QD)
    mine_G = d.gravity(Q, vals)
    assert relative_error(mine_G, G) <= TOL
    Cqd = np.einsum("kij,kj->ki", d.coriolis_matrix(Q, QD, vals), QD)
    assert relative_error(Cqd + mine_G, h) <= TOL


def test_mass_matrix_is_symmetric_positive_definite(case):
    arm, d, vals, Q, _ = case
    M = d.mass_matrix(Q, vals)
    assert d.M == d.M.T
    assert np.all(np.linalg.eigvalsh(M) > 0)


def test_mdot_minus_2c_is_skew(case):
    """Ṁ = Σ_k ∂M/∂q_k q̇_k from the symbolic M (SymPy's diff of the expressions, not the ring's chain rule)."""
    arm, d, vals, Q, QD = case
    Mdot = sum((d.M.diff(qk) * qdk for qk, qdk in zip(d.q, d.qd, strict=True)), sp.zeros(arm.n, arm.n))
    f = sp.lambdify((d.q, d.qd, d.params), Mdot, modules="numpy", cse=True)
    S = np.array([f(Q[k], QD[k], d.param_values(vals)) for k in range(20)]) - 2 * d.coriolis_matrix(Q[:20], QD[:20], vals)
    assert relative_error(S + S.transpose(0, 2, 1), np.zeros_like(S)) <= 1e-12 * max(1.0, float(np.max(np.abs(S))))


def test_collected_form_equals_the_entry(case):
    """Σ π_k Y_k rebuilt from the pairs equals the entry, and every π_k is a monomial of one link's inertial
    symbols (no geometry, no q) while no Y_k holds an inertial symbol."""
    arm, d, _, _, _ = case
    inertial = set(d.inertial)
    for (name, i, j), pairs in d.collected.items():
        X = {"M": d.M, "C": d.C, "G": d.G}[name]
        assert sp.expand(sum((pi * Y for pi, Y in pairs), sp.Integer(0)) - X[i, j]) == 0
        for pi, Y in pairs:
            assert pi.free_symbols <= inertial
            assert not (Y.free_symbols & inertial)
            assert len({str(s).lstrip("mcxyzI")[-1:] for s in pi.free_symbols}) <= 1


def test_rp_arm_names_the_prismatic_term():
    """The RP arm's M11 has the term m2*q2**2 (the student's m2*d2**2: the extension squared) as one named term of
    the coefficient of m2, and joint 2's gravity term −g*m2*cos(q1) (the slide points down, −y, at q1 = 0)."""
    d = ss.derive(ARMS["rp"]())
    q1, q2 = d.q
    m2, g = sp.Symbol("m2", real=True), sp.Symbol("g", positive=True)
    pairs = dict(d.collected[("M", 0, 0)])
    assert q2**2 in sp.Add.make_args(pairs[m2])
    assert sp.expand(d.M[0, 0]).coeff(q2, 2) == m2
    assert sp.expand(d.G[1] - (-g * m2 * sp.cos(q1))) == 0


def test_derivation_times_are_seconds():
    """The ring derivation of the spatial RRR (the issue's 15.6 s with plain SymPy) stays within 5 s here."""
    d = ss.derive(ARMS["elbow"]())
    assert d.seconds < 5.0


def test_agrees_with_crossdyn_spatial(case):
    """crossdyn.spatial (RNEA/CRBA on the same RobotModel): M, G and C q̇ + G (skipped until it is merged)."""
    spatial = pytest.importorskip("crossdyn.spatial")
    arm, d, vals, Q, QD = case
    model = robot_model(arm, vals)
    assert relative_error(d.mass_matrix(Q, vals), spatial.crba(model, Q)) <= TOL
    G = d.gravity(Q, vals)
    assert relative_error(G, spatial.gravity_torque(model, Q)) <= TOL
    Cqd = np.einsum("kij,kj->ki", d.coriolis_matrix(Q, QD, vals), QD)
    assert relative_error(Cqd + G, spatial.bias(model, Q, QD)) <= TOL


def test_elbow_terms_are_the_textbooks():
    """The elbow's parallel shoulder and elbow joints give Spong's form: M11's m3 coefficient has
    2 L2 L3 c2 c23 and L3² c23², M22's has 2 L2 L3 c3, G3 = m3 g L3 c23 (+ the centre-of-mass terms)."""
    d = ss.derive(ARMS["elbow"]())
    q1, q2, q3 = d.q
    m3, L2, L3 = (sp.Symbol(s, real=True) for s in ("m3", "L2", "L3"))
    g = sp.Symbol("g", positive=True)
    m11 = sp.Add.make_args(dict(d.collected[("M", 0, 0)])[m3])
    assert 2 * L2 * L3 * sp.cos(q2) * sp.cos(q2 + q3) in m11 and L3**2 * sp.cos(q2 + q3) ** 2 in m11
    assert 2 * L2 * L3 * sp.cos(q3) in sp.Add.make_args(dict(d.collected[("M", 1, 1)])[m3])
    assert dict(d.collected[("G", 2, 0)])[m3] == g * L3 * sp.cos(q2 + q3)
