"""The analytic model against independent paths: closed form vs symbolic vs Newton–Euler, and physical laws."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy.integrate import solve_ivp

from crossdyn import analytic
from crossdyn.analytic import closed_form, symbolic
from crossdyn.analytic.integrators import simulate
from crossdyn.models import ArmSpec, LinkSpec, get_preset, planarNr

from conftest import random_states

TOL = 1e-10


def _agree(spec, count=1000, seed=0):
    n = spec.n
    q, qd, qdd = random_states(n, count, seed)
    methods = ["closed", "symbolic", "rnea"] if n in closed_form.CLOSED_FORM else ["symbolic", "rnea"]
    scale = spec.torque_scale()
    taus = {m: analytic.inverse_dynamics(spec, q, qd, qdd, method=m) for m in methods}
    Ms = {m: analytic.mass_matrix(spec, q, method=m) for m in methods}
    Gs = {m: analytic.gravity(spec, q, method=m) for m in methods}
    Cq = {m: analytic.coriolis(spec, q, qd, method=m) for m in methods}
    ref = methods[-1]  # Newton–Euler: shares no code with the Lagrangian paths
    for m in methods[:-1]:
        assert np.max(np.abs(taus[m] - taus[ref])) <= TOL * scale, m
        assert np.max(np.abs(Ms[m] - Ms[ref])) <= TOL, m
        assert np.max(np.abs(Gs[m] - Gs[ref])) <= TOL * scale, m
        assert np.max(np.abs(Cq[m] - Cq[ref])) <= TOL * scale, m
    if "closed" in methods:  # the C *matrix* itself: closed form vs Christoffel symbols derived by SymPy
        C1 = analytic.coriolis_matrix(spec, q, qd, method="closed")
        C2 = analytic.coriolis_matrix(spec, q, qd, method="symbolic")
        assert np.max(np.abs(C1 - C2)) <= TOL * scale


def test_closed_form_symbolic_and_newton_euler_agree_on_presets(preset):
    _agree(preset)


@pytest.mark.slow  # fast tier's 7-minute budget; covered in the slow tier, which .ci/run runs
@pytest.mark.parametrize("n", [1, 4, 5])
def test_symbolic_and_newton_euler_agree_for_nr(n):
    _agree(planarNr(n), count=1000, seed=n)


links_st = st.builds(
    lambda L, m, frac, jfrac, : LinkSpec(L, m, frac * L, jfrac * m * L**2),
    st.floats(0.1, 2.0), st.floats(0.05, 5.0), st.floats(0.0, 1.0), st.floats(0.0, 0.3),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(links=st.lists(links_st, min_size=2, max_size=3),
       gx=st.floats(-10, 10), gy=st.floats(-10, 10))
def test_random_valid_specs_agree(links, gx, gy):
    _agree(ArmSpec(tuple(links), gravity=(gx, gy, 0.0)), count=200)


def test_batched_parameters_match_one_at_a_time():
    rng = np.random.default_rng(3)
    base = get_preset("planar3r").params()
    N = 50
    scale = rng.uniform(0.5, 2.0, (N, 3))
    batch = base._replace(m=base.m * scale, J=base.J * scale, gravity=np.tile(base.gravity, (N, 1)))
    q, qd, qdd = random_states(3, N, seed=4)
    tau = analytic.inverse_dynamics(batch, q, qd, qdd)
    for k in range(0, N, 7):
        one = base._replace(m=base.m * scale[k], J=base.J * scale[k])
        assert np.allclose(tau[k], analytic.inverse_dynamics(one, q[k], qd[k], qdd[k], method="rnea"), atol=1e-12)


def test_mass_matrix_symmetric_positive_definite(preset):
    q, _, _ = random_states(preset.n, 1000, seed=1)
    M = analytic.mass_matrix(preset, q)
    assert np.allclose(M, np.swapaxes(M, -1, -2), atol=0, rtol=0)
    assert np.all(np.linalg.eigvalsh(M) > 0)


def test_mdot_minus_2c_is_skew_symmetric(preset):
    """Ṁ by central differences along q̇ (an independent path to ∂M/∂q)."""
    q, qd, _ = random_states(preset.n, 200, seed=2)
    h = 1e-6
    Mdot = (analytic.mass_matrix(preset, q + h * qd) - analytic.mass_matrix(preset, q - h * qd)) / (2 * h)
    N = Mdot - 2 * analytic.coriolis_matrix(preset, q, qd)
    assert np.max(np.abs(N + np.swapaxes(N, -1, -2))) < 1e-6 * np.max(np.abs(Mdot)) + 1e-8
    # and the skew part is really exercised (it is not identically zero)
    assert np.max(np.abs(N)) > 1e-3


def test_regressor_times_parameters_is_inverse_dynamics(preset):
    q, qd, qdd = random_states(preset.n, 1000, seed=5)
    Y = analytic.regressor(preset, q, qd, qdd)
    theta = analytic.parameter_vector(preset)
    tau = analytic.inverse_dynamics(preset, q, qd, qdd, method="closed")
    assert Y.shape == (1000, preset.n, 3 * preset.n)
    assert np.max(np.abs(Y @ theta - tau)) <= TOL * preset.torque_scale()


def test_forward_dynamics_inverts_inverse_dynamics_with_friction():
    spec = get_preset("planar3r").with_links(damping=0.3, friction=0.2)
    q, qd, qdd = random_states(3, 500, seed=6)
    tau = analytic.inverse_dynamics(spec, q, qd, qdd, method="rnea")
    assert np.max(np.abs(analytic.forward_dynamics(spec, q, qd, tau) - qdd)) < 1e-9


def test_gravity_is_gradient_of_potential(preset):
    q, _, _ = random_states(preset.n, 100, seed=7)
    h = 1e-6
    eye = np.eye(preset.n)
    grad = np.stack([(analytic.potential_energy(preset, q + h * eye[i]) - analytic.potential_energy(preset, q - h * eye[i]))
                     / (2 * h) for i in range(preset.n)], axis=-1)
    assert np.max(np.abs(grad - analytic.gravity(preset, q))) < 1e-6 * preset.torque_scale()


def test_hanging_arm_is_an_equilibrium(preset):
    q = np.zeros(preset.n)
    q[0] = -np.pi / 2
    assert np.max(np.abs(analytic.gravity(preset, q))) < 1e-12 * preset.torque_scale()


@pytest.mark.parametrize("name", ["planar2r", "planar3r"])
def test_rk4_free_swing_conserves_energy_for_10_s(name):
    spec = get_preset(name)
    rng = np.random.default_rng(8)
    q0 = rng.uniform(-1, 1, (4, spec.n))
    traj = simulate(spec, q0, np.zeros_like(q0), dt=1e-3, duration=10.0, method="rk4")
    assert traj.success
    E = analytic.total_energy(spec, traj.q, traj.qd)
    drift = np.max(np.abs(E - E[0]))
    assert drift < 1e-6 * spec.energy_scale(), drift
    # the motion is real: kinetic energy reached a sizeable fraction of the scale
    assert np.max(analytic.kinetic_energy(spec, traj.q, traj.qd)) > 0.05 * spec.energy_scale()


def _error_at(spec, method, dt, q0, duration, exact):
    traj = simulate(spec, q0, np.zeros_like(q0), dt=dt, duration=duration, method=method)
    return np.max(np.abs(traj.q[-1] - exact))


@pytest.mark.parametrize("method,order,dts", [("rk4", 4, (1e-2, 5e-3, 2.5e-3)),
                                              ("semi-implicit-euler", 1, (2e-3, 1e-3, 5e-4)),
                                              ("euler", 1, (2e-3, 1e-3, 5e-4))])
def test_integrator_convergence_order(method, order, dts):
    """Error against SciPy's DOP853 on the whole horizon (τ = 0, so no hold intervals to restart at)."""
    spec = get_preset("planar2r")
    q0 = np.array([0.4, -0.3])
    duration = 0.5
    fd = lambda t, x: np.concatenate([x[2:], analytic.forward_dynamics(spec, x[:2], x[2:], np.zeros(2))])  # noqa
    sol = solve_ivp(fd, (0, duration), np.concatenate([q0, [0, 0]]), method="DOP853", rtol=1e-13, atol=1e-13)
    exact = sol.y[:2, -1]
    errs = [_error_at(spec, method, dt, q0, duration, exact) for dt in dts]
    ratios = [errs[i] / errs[i + 1] for i in range(len(errs) - 1)]
    expected = 2.0**order
    for r in ratios:
        assert 0.75 * expected < r < 1.3 * expected, (errs, ratios)


def test_reference_integrator_matches_whole_horizon_solution():
    spec = get_preset("planar3r")
    q0 = np.array([-1.2, 0.3, -0.2])
    fd = lambda t, x: np.concatenate([x[3:], analytic.forward_dynamics(spec, x[:3], x[3:], np.zeros(3))])  # noqa
    sol = solve_ivp(fd, (0, 0.2), np.concatenate([q0, np.zeros(3)]), method="DOP853", rtol=1e-13, atol=1e-13)
    traj = simulate(spec, q0, np.zeros(3), dt=1e-3, duration=0.2, method="reference")
    assert np.max(np.abs(traj.q[-1] - sol.y[:3, -1])) < 1e-9


def test_divergence_is_reported_not_raised():
    spec = get_preset("planar2r")
    traj = simulate(spec, [0.0, 0.0], [0.0, 0.0], torque=lambda t, q, qd: np.array([1e9, -1e9]),
                    dt=1e-3, duration=1.0, method="rk4", velocity_bound=1e3)
    assert traj.status == "diverged" and traj.diverged_at is not None and traj.diverged_at < 1.0
    assert np.all(np.isfinite(traj.q))


def test_kinematics_end_effector():
    spec = get_preset("planar3r")
    q = np.array([0.3, -0.5, 0.9])
    th = np.cumsum(q)
    L = np.array([l.length for l in spec.links])
    expected = [np.sum(L * np.cos(th)), np.sum(L * np.sin(th))]
    assert np.allclose(analytic.end_effector(spec.params(), q), expected, atol=1e-15)


def test_symbolic_derivation_is_cached():
    a = symbolic.derive(3)
    b = symbolic.derive(3)
    assert a is b


@pytest.mark.parametrize("name", ["planar1r", "planar2r", "planar3r-general", "planar5r",
                                  pytest.param("planar9r", marks=pytest.mark.slow)])  # 9R: 7 s
def test_generated_float_code_matches_numpy_model(name):
    """The fast path (generated straight-line code, absolute-angle Lagrangian) against the NumPy path
    (closed form / symbolic / Newton–Euler), with friction, damping and a tilted gravity vector."""
    from crossdyn.analytic.codegen import compile_model
    from crossdyn.analytic.integrators import STEPS

    base = get_preset(name).with_links(damping=0.2, friction=0.1)
    spec = ArmSpec(base.links, gravity=(2.0, -9.0, 0.5), name=name)
    cm = compile_model(spec)
    q, qd, tau = random_states(spec.n, 200, seed=9, qdd_max=20.0)
    fd = lambda a, b, c: analytic.forward_dynamics(spec, a, b, c)  # noqa: E731
    # NumPy scalars in (as SciPy's integrators pass them) give the same numbers as plain floats
    assert np.array_equal(np.array(cm.fd(q[0], qd[0], tau[0])),
                          np.array(cm.fd(tuple(q[0].tolist()), tuple(qd[0].tolist()), tuple(tau[0].tolist()))))
    for k in range(len(q)):
        args = (tuple(q[k].tolist()), tuple(qd[k].tolist()), tuple(tau[k].tolist()))
        assert np.max(np.abs(np.array(cm.fd(*args)) - fd(q[k], qd[k], tau[k]))) <= 1e-12 * max(1.0, np.max(np.abs(fd(q[k], qd[k], tau[k]))))
        for method, fast in (("rk4", cm.rk4), ("semi-implicit-euler", cm.semi_implicit_euler), ("euler", cm.euler)):
            q1, v1 = STEPS[method](fd, q[k], qd[k], tau[k], 1e-3)
            q2, v2 = fast(*args, 1e-3)
            assert np.max(np.abs(q1 - q2)) <= 1e-12 and np.max(np.abs(v1 - v2)) <= 1e-12


@pytest.mark.parametrize("name", ["planar2r", "planar3r", "planar3r-geared", "planar3r-general", "planar5r"])
def test_analytic_engine_batched_energies_equal_state_by_state(name):
    """The comparison's energy group takes the analytic engine's E = T + V in one batched call (energies()):
    the same functions as energy(), state by state, to rounding (1e-14 of the energy scale; measured ≤ 3e-16)."""
    from crossdyn.comparison.groups.energy import _energy
    from crossdyn.engines import make_engine

    spec = get_preset(name)
    q, qd, _ = random_states(spec.n, 200, seed=4)
    with make_engine("analytic", spec, 1e-3) as engine:
        one_by_one = np.array([sum(engine.energy(a, v)) for a, v in zip(q, qd, strict=True)])
        batched = engine.energies(q, qd)
        assert batched.shape == (200,)
        np.testing.assert_allclose(batched, one_by_one, rtol=0, atol=1e-14 * spec.energy_scale())
        assert np.array_equal(_energy(engine, q, qd), batched)  # the energy group uses the batch
    assert np.ptp(one_by_one) > 1e-3 * spec.energy_scale()  # the states differ: the comparison means something
