"""The fast paths give the same numbers as the reference paths (issue: performance).

- mujoco.rollout for open-loop profiles vs the mj_step loop: bit-identical;
- the batched analytic integrator (N initial states or N parameter sets at once) vs one trajectory at a time;
- batched inverse/forward dynamics in chunks vs unchunked and vs Newton–Euler.
(The generated float-only code is checked against the NumPy model in test_analytic.py.)
"""
import numpy as np
import pytest

from crossdyn import analytic
from crossdyn.analytic import dynamics
from crossdyn.analytic.integrators import simulate
from crossdyn.inputs.profiles import default_profile, make_profile
from crossdyn.drive.runner import run_engine
from crossdyn.engines import make_engine
from crossdyn.models import get_preset


@pytest.mark.parametrize("engine", ["mujoco", "mujoco-rk4", "mujoco-implicit", "mujoco-implicitfast"])
@pytest.mark.parametrize("profile", ["default", "chirp"])
def test_rollout_is_bit_identical_to_the_step_loop(engine, profile):
    spec = get_preset("planar3r").with_links(damping=0.1)
    prof = default_profile(spec) if profile == "default" else make_profile(
        "chirp", spec, amplitude=2.0, f0=0.1, f1=5.0, duration=1.0)
    e = make_engine(engine, spec, 1e-3)
    fast = run_engine(e, prof, [-1.4, 0.1, 0.1], [0.0, 0.2, 0.0], 1.0)
    after_fast = e.state()
    slow = run_engine(e, prof, [-1.4, 0.1, 0.1], [0.0, 0.2, 0.0], 1.0, use_rollout=False)
    assert fast.status == slow.status == "ok"
    assert np.array_equal(fast.q, slow.q) and np.array_equal(fast.qd, slow.qd)
    assert np.array_equal(after_fast[0], slow.q[-1])  # the engine is left at the last state
    assert np.max(np.abs(fast.q[-1] - fast.q[0])) > 1e-3  # the arm really moved


def test_rollout_reports_divergence_like_the_step_loop():
    spec = get_preset("planar2r")
    prof = make_profile("constant", spec, value=[5e4, -5e4])
    e = make_engine("mujoco", spec, 1e-3)
    fast = run_engine(e, prof, [0.0, 0.0], [0.0, 0.0], 1.0, velocity_bound=200.0)
    slow = run_engine(e, prof, [0.0, 0.0], [0.0, 0.0], 1.0, velocity_bound=200.0, use_rollout=False)
    assert fast.status == slow.status == "diverged"
    assert fast.diverged_at == slow.diverged_at and fast.diverged_at < 1.0
    assert np.array_equal(fast.q, slow.q) and len(fast.q) == len(slow.q)


@pytest.mark.parametrize("method", ["rk4", "semi-implicit-euler"])
def test_batched_initial_states_match_one_at_a_time(method):
    spec = get_preset("planar3r")
    rng = np.random.default_rng(0)
    q0 = rng.uniform(-1.0, 1.0, (16, 3))
    qd0 = rng.uniform(-1.0, 1.0, (16, 3))
    tau = lambda t, q, qd: np.sin(3 * t) * np.ones_like(q)  # noqa: E731
    batch = simulate(spec, q0, qd0, tau, dt=1e-3, duration=0.3, method=method)
    for i in range(0, 16, 5):
        one = simulate(spec, q0[i], qd0[i], tau, dt=1e-3, duration=0.3, method=method)
        assert np.max(np.abs(batch.q[:, i] - one.q)) <= 1e-12
        assert np.max(np.abs(batch.qd[:, i] - one.qd)) <= 1e-12


def test_batched_parameter_sets_match_one_at_a_time():
    base = get_preset("planar2r").params()
    rng = np.random.default_rng(1)
    N = 12
    s = rng.uniform(0.5, 1.5, (N, 2))
    batch_params = base._replace(L=base.L * s, m=base.m * s[:, ::-1], Lc=base.Lc * s, J=base.J * s,
                                 b=np.zeros((N, 2)), fc=np.zeros((N, 2)), gravity=np.tile(base.gravity, (N, 1)))
    q0 = np.tile([-1.2, 0.3], (N, 1))
    batch = simulate(batch_params, q0, np.zeros((N, 2)), dt=1e-3, duration=0.5, method="rk4")
    for i in (0, 5, 11):
        one_params = base._replace(L=base.L * s[i], m=base.m * s[i, ::-1], Lc=base.Lc * s[i], J=base.J * s[i])
        one = simulate(one_params, q0[i], np.zeros(2), dt=1e-3, duration=0.5, method="rk4")
        assert np.max(np.abs(batch.q[:, i] - one.q)) <= 1e-12
    # different parameters really give different motion
    assert np.max(np.abs(batch.q[-1, 0] - batch.q[-1, 5])) > 1e-3


@pytest.mark.parametrize("name", ["planar2r", "planar3r"])
def test_chunked_batches_equal_unchunked_and_newton_euler(name, monkeypatch):
    spec = get_preset(name)
    rng = np.random.default_rng(2)
    N = 3 * dynamics.CHUNK + 17
    q, qd, qdd = (rng.uniform(-3, 3, (N, spec.n)) for _ in range(3))
    chunked_id = analytic.inverse_dynamics(spec, q, qd, qdd)
    chunked_fd = analytic.forward_dynamics(spec, q, qd, qdd)
    monkeypatch.setattr(dynamics, "CHUNK", 10 * N)
    assert np.array_equal(chunked_id, analytic.inverse_dynamics(spec, q, qd, qdd))
    assert np.array_equal(chunked_fd, analytic.forward_dynamics(spec, q, qd, qdd))
    rnea = analytic.inverse_dynamics(spec, q, qd, qdd, method="rnea")
    assert np.max(np.abs(chunked_id - rnea)) <= 1e-12 * spec.torque_scale()


def test_many_runs_in_one_rollout_equal_separate_step_loops():
    """Several open-loop runs of one MuJoCo model go through one mujoco.rollout call (2 threads)."""
    from crossdyn.drive.runner import run_engine_many

    spec = get_preset("planar3r")
    e = make_engine("mujoco-rk4", spec, 1e-3)
    runs = [(default_profile(spec), [-1.4, 0.1, 0.1], [0.0, 0.0, 0.0]),
            (make_profile("zero", spec), [-1.2, 0.3, 0.1], [0.0, 0.5, 0.0]),
            (make_profile("constant", spec, value=[5e4, 0.0, 0.0]), [0.0, 0.0, 0.0], [0.0, 0.0, 0.0])]
    many = run_engine_many(e, runs, 1.0, velocity_bound=300.0)
    for (profile, q0, qd0), fast in zip(runs, many):
        slow = run_engine(e, profile, q0, qd0, 1.0, velocity_bound=300.0, use_rollout=False)
        assert fast.status == slow.status and fast.diverged_at == slow.diverged_at
        assert np.array_equal(fast.q, slow.q) and np.array_equal(fast.qd, slow.qd)
    assert [t.status for t in many] == ["ok", "ok", "diverged"]


def test_run_options_and_their_keywords_drive_alike():
    """``run_engine(..., RunOptions(...))`` and the same fields as keywords give the same run; the laws are built
    from the spec by :func:`applied_laws`; an unknown option is a TypeError naming it."""
    from crossdyn.drive.runner import RunOptions, applied_laws

    spec = get_preset("planar2r-limits")
    prof = make_profile("constant", spec)
    e = make_engine("analytic", spec, 1e-3)
    a = run_engine(e, prof, [0.0, 0.0], [0.0, 0.0], 0.2, RunOptions(limit_law=False, velocity_bound=300.0))
    b = run_engine(e, prof, [0.0, 0.0], [0.0, 0.0], 0.2, limit_law=False, velocity_bound=300.0)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.tau, b.tau)
    laws = applied_laws(e)
    assert laws.limit is not None and laws.adds_torque and laws.contact is None and laws.contact_every == 1
    assert applied_laws(e, RunOptions(limit_law=False)).limit is None
    with pytest.raises(TypeError, match="limit_laws"):
        run_engine(e, prof, [0.0, 0.0], [0.0, 0.0], 0.2, limit_laws=False)
