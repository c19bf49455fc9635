"""The analytic model on JAX (crossdyn.analytic.jax_model) against the NumPy model, physical laws and its own claims.

Small batches and few distinct shapes: every new shape is a JIT compilation."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from crossdyn import analytic  # noqa: E402
from crossdyn.analytic import jax_model as jm  # noqa: E402
from crossdyn.models import get_preset  # noqa: E402
from crossdyn.models.spec import params_from_arrays  # noqa: E402

N = 32


def random_batch(n, seed):
    rng = np.random.default_rng(seed)
    L = rng.uniform(0.3, 1.5, (N, n))
    p = params_from_arrays(L, rng.uniform(0.2, 3.0, (N, n)), L * rng.uniform(0.1, 0.9, (N, n)),
                           rng.uniform(1e-3, 0.2, (N, n)), gravity=rng.normal(size=(N, 2)) * 5,
                           b=rng.uniform(0, 0.5, (N, n)), fc=rng.uniform(0, 0.3, (N, n)))
    states = [rng.uniform(-3, 3, (N, n)) for _ in range(4)]
    return p, states


FUNCTIONS = [("mass_matrix", 1), ("coriolis", 2), ("coriolis_matrix", 2), ("gravity", 1), ("inverse_dynamics", 3),
             ("forward_dynamics", 3), ("kinetic_energy", 2), ("potential_energy", 1)]


@pytest.mark.parametrize("arm", ["planar2r", "planar3r-general", "planar5r"])
def test_float64_equals_numpy_model_at_random_states_and_parameter_sets(arm):
    # reference: the NumPy model (closed form 2R/3R, SymPy Euler–Lagrange 5R), an independent derivation;
    # 1e-12 relative to each quantity's largest magnitude in the batch = float64 rounding with margin
    n = get_preset(arm).n
    p, (q, qd, qdd, tau) = random_batch(n, seed=n)
    args = {1: (q,), 2: (q, qd), 3: None}
    for name, k in FUNCTIONS:
        a = args[k] if k < 3 else ((q, qd, tau) if name == "forward_dynamics" else (q, qd, qdd))
        ref = getattr(analytic, name)(p, *a)
        got = np.asarray(getattr(jm, name)(p, *a))
        assert got.dtype == np.float64
        assert got.shape == ref.shape, name
        scale = max(1.0, float(np.max(np.abs(ref))))
        assert np.max(np.abs(got - ref)) <= 1e-12 * scale, name


def test_batching_patterns_shared_params_shared_state():
    spec = get_preset("planar3r")
    p, (q, qd, _, tau) = random_batch(3, seed=1)
    # one arm, many states (params shared)
    ref = analytic.forward_dynamics(spec, q, qd, tau)
    assert np.allclose(np.asarray(jm.forward_dynamics(spec, q, qd, tau)), ref, rtol=0, atol=1e-12 * np.abs(ref).max())
    # many parameter sets, one state (state shared)
    ref = analytic.inverse_dynamics(p, q[0], qd[0], tau[0])
    got = np.asarray(jm.inverse_dynamics(p, q[0], qd[0], tau[0]))
    assert got.shape == (N, 3) and np.max(np.abs(got - ref)) <= 1e-12 * np.abs(ref).max()
    # unbatched: one arm, one state
    got1 = np.asarray(jm.inverse_dynamics(spec, q[0], qd[0], tau[0]))
    assert got1.shape == (3,)
    assert np.allclose(got1, analytic.inverse_dynamics(spec, q[0], qd[0], tau[0]), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("method", ["rk4", "semi-implicit-euler"])
def test_rollout_equals_numpy_simulate_over_parameter_sets(method):
    # the NumPy batch integrator (analytic.simulate, same step formulas, closed-form model) is the reference
    p, (q0, qd0, _, tau) = random_batch(3, seed=2)
    q0 = q0 / 3.0
    tau = tau[0] / 3.0
    Q, QD = jm.rollout(p, q0, qd0, tau, 1e-3, steps=100, method=method, save_every=50)
    Q, QD = np.asarray(Q), np.asarray(QD)
    ref = analytic.simulate(p, q0, qd0, lambda t, q, qd: tau, dt=1e-3, duration=0.1, method=method)
    assert Q.shape == (N, 3, 3)
    # 1e-12 rad: float64 rounding accumulated over 100 steps, with margin
    assert np.max(np.abs(Q[:, 1] - ref.q[50])) <= 1e-12 and np.max(np.abs(Q[:, 2] - ref.q[100])) <= 1e-12
    assert np.max(np.abs(QD[:, 2] - ref.qd[100])) <= 1e-10


def test_rollout_torque_sequence_per_arm_and_shared():
    spec = get_preset("planar2r")
    rng = np.random.default_rng(3)
    tau = rng.uniform(-1, 1, (40, 2))
    q0 = np.array([-1.0, 0.3])
    qd0 = np.zeros(2)
    Q, _ = jm.rollout(spec, q0, qd0, tau, 1e-3, save_every=20)  # shared everything: one trajectory
    ref = analytic.simulate(spec, q0, qd0, lambda t, q, qd: tau[int(round(t / 1e-3))], dt=1e-3, duration=0.04)
    assert np.asarray(Q).shape == (3, 2)
    assert np.max(np.abs(np.asarray(Q)[-1] - ref.q[-1])) <= 1e-13
    taus = np.stack([tau, -tau])  # per-arm sequences (2, K, n)
    Qb, _ = jm.rollout(spec, np.stack([q0, q0]), np.zeros((2, 2)), taus, 1e-3, save_every=20)
    assert np.max(np.abs(np.asarray(Qb)[0, -1] - ref.q[-1])) <= 1e-13
    assert np.max(np.abs(np.asarray(Qb)[1, -1] - ref.q[-1])) > 1e-6  # the second arm really got −τ


def test_free_swing_conserves_energy_in_float64():
    # physical law: no damping, no torque → E constant; what is left is RK4's truncation error, within the
    # comparison's RK4 energy tolerance (Tolerances.energy_rk4 = 1e-6 of the energy scale)
    spec = get_preset("planar3r")
    q0 = np.array([[0.3, 0.5, -0.4], [1.0, -1.0, 0.5]])
    Q, QD = jm.rollout(spec, q0, np.zeros_like(q0), np.zeros(3), 1e-3, steps=1000, save_every=500)
    Q, QD = np.asarray(Q), np.asarray(QD)
    E0 = analytic.total_energy(spec, Q[:, 0], QD[:, 0])
    E1 = analytic.total_energy(spec, Q[:, -1], QD[:, -1])
    assert np.max(np.abs(Q[:, -1] - Q[:, 0])) > 0.1  # it moved
    assert np.max(np.abs(E1 - E0)) <= 1e-6 * spec.energy_scale()


def test_float32_is_really_float32_and_x64_stays_scoped():
    spec = get_preset("planar3r")
    _, (q, qd, _, tau) = random_batch(3, seed=4)
    ref = analytic.forward_dynamics(spec, q, qd, tau)
    got = jm.forward_dynamics(spec, q, qd, tau, dtype="float32")
    assert got.dtype == jnp.float32
    err = np.max(np.abs(np.asarray(got, dtype=float) - ref)) / np.abs(ref).max()
    # float32 rounding: above float64's 1e-15 (a float64 run in disguise would fail), below 1e-4
    assert 1e-10 < err < 1e-4
    jm.mass_matrix(spec, q)  # a float64 call …
    assert jnp.zeros(1).dtype == jnp.float32  # … leaves JAX's global default (x64 off) untouched
    assert not jax.config.jax_enable_x64


def test_no_matrix_products_so_tf32_cannot_touch_the_model():
    # the module claims every product is elementwise: the lowered RK4 step has no dot ops for precision to act on
    spec = get_preset("planar3r")
    p = jm.params_to_jax(spec, "float32")
    step = jm._step_fn("rk4")
    with jm.scope("float32", "default"):
        text = jax.jit(lambda q, qd, u: step(p, q, qd, u, 1e-3)).lower(jnp.zeros(3), jnp.zeros(3), jnp.zeros(3)).as_text()
    assert "dot_general" not in text and "stablehlo.dot" not in text
    assert "sine" in text or "sin" in text  # it is the dynamics that was lowered


def test_bad_arguments_raise():
    spec = get_preset("planar2r")
    with pytest.raises(ValueError, match="dtype"):
        jm.mass_matrix(spec, np.zeros(2), dtype="float16")
    with pytest.raises(ValueError, match="precision"):
        jm.mass_matrix(spec, np.zeros(2), precision="tf32")
    with pytest.raises(ValueError, match="joints"):
        jm.mass_matrix(spec, np.zeros(3))
    with pytest.raises(ValueError, match="save_every"):
        jm.rollout(spec, np.zeros(2), np.zeros(2), np.zeros(2), 1e-3, steps=10, save_every=3)


def test_beyond_the_unrolled_solve_ten_links():
    # n > UNROLL_MAX_N solves A θ̈ = r with jnp.linalg.solve; the NumPy reference beyond 8 links is Newton–Euler
    spec = get_preset("planar10r")
    assert spec.n > jm.UNROLL_MAX_N
    rng = np.random.default_rng(6)
    q, qd, tau = (rng.uniform(-1, 1, (8, 10)) for _ in range(3))
    ref = analytic.forward_dynamics(spec, q, qd, tau)
    got = np.asarray(jm.forward_dynamics(spec, q, qd, tau))
    # 1e-12 as for 2R–5R; measured 3.4e-14 at these seeded states, whose M has condition numbers up to 3.5e4
    assert np.max(np.abs(got - ref)) <= 1e-12 * np.abs(ref).max()
    ref = analytic.inverse_dynamics(spec, q, qd, tau)
    assert np.max(np.abs(np.asarray(jm.inverse_dynamics(spec, q, qd, tau)) - ref)) <= 1e-12 * np.abs(ref).max()


def test_cpu_chunks_give_the_same_numbers(monkeypatch):
    # large CPU batches run in chunks of CPU_CHUNK arms (lax.map over vmap), padded to whole chunks: a batch of 30
    # arms in chunks of 8 (two padded) must give the NumPy model's numbers, for states and for rollouts
    monkeypatch.setattr(jm, "CPU_CHUNK", 8)
    p, (q, qd, _, tau) = random_batch(2, seed=8)
    p = p._replace(**{k: getattr(p, k)[:30] for k in ("L", "m", "Lc", "J", "b", "fc", "gravity")})
    q, qd, tau = q[:30], qd[:30], tau[:30]
    ref = analytic.forward_dynamics(p, q, qd, tau)
    got = np.asarray(jm.forward_dynamics(p, q, qd, tau))
    assert got.shape == (30, 2) and np.max(np.abs(got - ref)) <= 1e-12 * np.abs(ref).max()
    Q, _ = jm.rollout(p, q / 3, np.zeros_like(q), tau[0] / 3, 1e-3, steps=20)
    sim = analytic.simulate(p, q / 3, np.zeros_like(q), lambda t, a, b: tau[0] / 3, dt=1e-3, duration=0.02)
    assert np.asarray(Q).shape == (30, 2, 2) and np.max(np.abs(np.asarray(Q)[:, -1] - sim.q[-1])) <= 1e-13
