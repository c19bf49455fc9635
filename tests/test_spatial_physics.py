"""crossdyn.spatial checked by physics alone, no other library: the identities every rigid-body model satisfies,
on random chains and trees (hypothesis draws the model: seed, size, chain or tree, depth-first or not).

* M(q) symmetric positive definite; its columns are RNEA(q, 0, e_k) without gravity (CRBA and RNEA agree).
* Ṁ − 2C skew-symmetric, with C the Christoffel matrix: C q̇ is a quadratic form in q̇ whose symmetric matrix
  gives C = ½ ∂(C q̇)/∂q̇ (central differences in q̇ are exact for a quadratic), Ṁ by central differences along q̇.
* G = ∂U/∂q; dE/dt = q̇ · τ for τ = RNEA(q, q̇, q̈) (the work–energy theorem, at an instant).
* ABA inverts RNEA; Y π = RNEA (regressor); relabelling the bodies of a tree permutes M, τ and q̈ and nothing else.
* The total energy stays constant along a free motion (τ = 0) integrated by DOP853, to the integrator's tolerance.
"""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # the whole module: keeps make test within its 7-min budget (CI runs it)
from hypothesis import given, settings
from hypothesis import strategies as st
from spatial_models import random_model, relative_error

import crossdyn.spatial as sp
from crossdyn.robots.model import RobotModel

EPS = np.finfo(float).eps
TOL = 1e-12
"""Two float64 evaluations of the same quantity by different recursions: measured ≤ 1e-14, see test_spatial.py."""

models = st.builds(random_model, seed=st.integers(0, 2**32 - 1), n=st.integers(1, 7), tree=st.booleans(),
                   dfs=st.booleans(), prismatic=st.sampled_from([0.0, 0.3, 1.0]))
FEW = settings(max_examples=30, deadline=None)


def states(n: int, count: int = 20, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-np.pi, np.pi, (count, n)), rng.uniform(-3.0, 3.0, (count, n)), rng.uniform(-10.0, 10.0,
                                                                                                   (count, n))


@FEW
@given(models)
def test_mass_matrix_is_symmetric_positive_definite_and_matches_rnea_columns(model: RobotModel):
    Q, _, _ = states(model.n)
    M = sp.crba(model, Q, armature=False)
    assert np.array_equal(M, np.swapaxes(M, 1, 2))
    assert np.all(np.linalg.eigvalsh(M) > 0.0)
    zero = np.zeros_like(Q)
    for k in range(model.n):
        e = np.zeros_like(Q)
        e[:, k] = 1.0
        column = sp.rnea(model, Q, zero, e, armature=False, gravity=np.zeros(3))
        assert relative_error(M[:, :, k], column, scale=M) <= TOL
    assert relative_error(sp.crba(model, Q) - M, np.broadcast_to(np.diag(model.armature()), M.shape),
                          scale=M) <= TOL


def christoffel_matrix(model: RobotModel, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
    """C = ½ ∂(C q̇)/∂q̇ column by column; a step of 1 is exact for the quadratic form C q̇."""
    C = np.zeros(Q.shape + (model.n,))
    for k in range(model.n):
        e = np.zeros_like(QD)
        e[:, k] = 1.0
        C[:, :, k] = 0.25 * (sp.coriolis(model, Q, QD + e) - sp.coriolis(model, Q, QD - e))
    return C


@FEW
@given(models)
def test_mdot_minus_2c_is_skew_symmetric(model: RobotModel):
    """Ṁ by central differences (h = 1e-5: truncation ~h² |∂³M| q̇³ ≈ 1e-9, round-off ε|M|/h ≈ 2e-11, relative);
    the skew test allows 1e-7 of max |M| · max |q̇| (the size of Ṁ and C), and C q̇ must come back from C (1e-12)."""
    Q, QD, _ = states(model.n, seed=1)
    h = 1e-5
    Mdot = (sp.crba(model, Q + h * QD) - sp.crba(model, Q - h * QD)) / (2 * h)
    C = christoffel_matrix(model, Q, QD)
    assert relative_error(np.einsum("nij,nj->ni", C, QD), sp.coriolis(model, Q, QD),
                          scale=sp.bias(model, Q, QD)) <= TOL
    N = Mdot - 2 * C
    scale = np.max(np.abs(sp.crba(model, Q))) * np.max(np.abs(QD))
    assert np.max(np.abs(N + np.swapaxes(N, 1, 2))) / scale <= 1e-7
    wrong = Mdot - 3 * C  # the test can tell a wrong C: Ṁ − 3C is not skew where C ≠ 0
    if np.max(np.abs(C)) > 1e-6 * scale:
        assert np.max(np.abs(wrong + np.swapaxes(wrong, 1, 2))) / scale > 1e-3


@FEW
@given(models)
def test_gravity_is_the_gradient_of_the_potential_and_power_is_qdot_tau(model: RobotModel):
    """Central differences with h = 1e-5 (truncation ≈ h²/6 |∂³|, round-off ≈ ε|U|/h): 1e-7 of the largest entry."""
    Q, QD, QDD = states(model.n, seed=2)
    h = 1e-5
    G = np.zeros_like(Q)
    for k in range(model.n):
        e = np.zeros_like(Q)
        e[:, k] = h
        G[:, k] = (sp.potential_energy(model, Q + e) - sp.potential_energy(model, Q - e)) / (2 * h)
    assert relative_error(sp.gravity_torque(model, Q), G, scale=np.abs(G) + 1.0) <= 1e-7

    def E(q, qd):
        return np.add(*sp.energy(model, q, qd))

    dE = (E(Q + h * QD, QD + h * QDD) - E(Q - h * QD, QD - h * QDD)) / (2 * h)
    power = np.einsum("ni,ni->n", QD, sp.rnea(model, Q, QD, QDD))
    assert relative_error(power, dE, scale=np.abs(dE) + np.abs(power)) <= 1e-7


@FEW
@given(models)
def test_aba_inverts_rnea(model: RobotModel):
    """Round-off of a solve grows with cond(M): allowed 100 ε cond(M) of the largest |q̈|."""
    Q, QD, QDD = states(model.n, seed=3)
    for armature in (True, False):
        tau = sp.rnea(model, Q, QD, QDD, armature=armature)
        cond = np.max(np.linalg.cond(sp.crba(model, Q, armature=armature)))
        assert relative_error(sp.aba(model, Q, QD, tau, armature=armature), QDD) <= 100 * EPS * cond


@FEW
@given(models)
def test_regressor_times_parameters_is_rnea(model: RobotModel):
    Q, QD, QDD = states(model.n, seed=4)
    Y = sp.regressor(model, Q, QD, QDD)
    assert relative_error(Y @ sp.parameters(model), sp.rnea(model, Q, QD, QDD, armature=False)) <= TOL


def depth_first(model: RobotModel) -> list[int]:
    """The bodies in depth-first order (children in index order)."""
    order: list[int] = []

    def visit(parent: int) -> None:
        for i, p in enumerate(model.parents):
            if p == parent:
                order.append(i)
                visit(i)

    visit(-1)
    return order


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_relabelling_a_tree_permutes_everything(seed):
    model = random_model(seed, 8, tree=True, dfs=False)
    order = depth_first(model)
    assert order != list(range(model.n))  # a tree whose order actually changes
    new = {old: k for k, old in enumerate(order)}
    relabelled = RobotModel(model.name, model.source, model.format, model.base,
                            tuple(model.bodies[i] for i in order), tuple(model.joints[i] for i in order),
                            tuple(-1 if model.parents[i] < 0 else new[model.parents[i]] for i in order),
                            gravity=model.gravity)
    Q, QD, QDD = states(model.n, seed=6)
    P = np.eye(model.n)[order]  # x_relabelled = P x
    q, qd, qdd = Q @ P.T, QD @ P.T, QDD @ P.T
    assert relative_error(sp.crba(relabelled, q), P @ sp.crba(model, Q) @ P.T) <= TOL
    assert relative_error(sp.rnea(relabelled, q, qd, qdd), sp.rnea(model, Q, QD, QDD) @ P.T) <= TOL
    tau = sp.rnea(model, Q, QD, QDD)
    assert relative_error(sp.aba(relabelled, q, qd, tau @ P.T), QDD @ P.T) <= 1e-10


def test_energy_is_conserved_along_a_free_motion():
    """τ = 0 from 8 random states of a 6-body tree with armature, 1 s, DOP853 at rtol = atol = 1e-11: the drift of
    T + U stays at the integrator's level (≤ 1e-8 of the energy's scale, the kinetic energy's largest value), and
    a model that forgets the armature in q̈ but keeps it in T drifts visibly (the check can fail)."""
    from scipy.integrate import solve_ivp

    model = random_model(21, 6, tree=True, prismatic=0.3)
    n, count = model.n, 8
    Q0, QD0, _ = states(n, count, seed=8)

    def drift(armature_in_aba: bool) -> float:
        def rhs(_t, y):
            Y = y.reshape(count, 2 * n)
            Q, QD = Y[:, :n], Y[:, n:]
            QDD = sp.aba(model, Q, QD, np.zeros_like(Q), armature=armature_in_aba)
            return np.concatenate((QD, QDD), axis=1).ravel()

        y0 = np.concatenate((Q0, QD0), axis=1).ravel()
        sol = solve_ivp(rhs, (0.0, 1.0), y0, method="DOP853", rtol=1e-11, atol=1e-11, dense_output=False,
                        t_eval=np.linspace(0.0, 1.0, 11))
        assert sol.success
        Ys = sol.y.T.reshape(-1, count, 2 * n)
        T, U = sp.energy(model, Ys[..., :n].reshape(-1, n), Ys[..., n:].reshape(-1, n))
        E = (T + U).reshape(-1, count)
        return float(np.max(np.abs(E - E[0])) / np.max(T))

    assert drift(True) <= 1e-8
    assert drift(False) > 1e-4


def test_single_states_give_unbatched_shapes_and_bad_shapes_are_refused():
    model = random_model(3, 4, tree=True)
    Q, QD, QDD = states(model.n, count=3)
    assert sp.rnea(model, Q[0], QD[0], QDD[0]).shape == (4,)
    assert np.allclose(sp.rnea(model, Q[0], QD[0], QDD[0]), sp.rnea(model, Q, QD, QDD)[0], rtol=0, atol=0)
    assert sp.crba(model, Q[0]).shape == (4, 4)
    assert sp.aba(model, Q[0], QD[0], QDD[0]).shape == (4,)
    assert sp.regressor(model, Q[0], QD[0], QDD[0]).shape == (4, 40)
    assert sp.body_poses(model, Q[0]).shape == (4, 4, 4)
    assert sp.body_poses(model, Q).shape == (3, 4, 4, 4)
    T, U = sp.energy(model, Q[0], QD[0])
    assert np.shape(T) == np.shape(U) == ()
    with pytest.raises(ValueError, match=r"expected shape \(N, 4\).*got \(3, 5\)"):
        sp.crba(model, np.zeros((3, 5)))
    with pytest.raises(ValueError, match="argument 2"):
        sp.rnea(model, Q, QD[:2], QDD)
