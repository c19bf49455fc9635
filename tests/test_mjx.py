"""MuJoCo MJX adapters (mjx, mjx-rk4) and their batch path, against C MuJoCo in float64.

MJX compiles slowly on a CPU (seconds per function): the tests share few compiled functions (Euler
mostly; one RK4 batch, marked slow)."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
mjx_engine = pytest.importorskip("crossdyn.engines.mjx.planar")

import mujoco  # noqa: E402

from crossdyn.engines import make_engine  # noqa: E402
from crossdyn.models import get_preset  # noqa: E402
from crossdyn.models.spec import ArmSpec, LinkSpec, params_from_arrays  # noqa: E402

F32_REL = 2e-5
"""float32 queries against float64 C MuJoCo: a few ulps (1.2e-7) of the largest term, times the condition
of M for the forward dynamics (≈ 10–50 for these arms)."""


@pytest.fixture(scope="module")
def engines():
    spec = get_preset("planar3r").with_links(damping=0.3)
    return spec, make_engine("mjx", spec, 1e-3), make_engine("mujoco", spec, 1e-3)


def test_queries_match_c_mujoco_in_float32(engines):
    spec, e, c = engines
    rng = np.random.default_rng(0)
    for _ in range(3):
        q, qd, x = rng.uniform(-2, 2, 3), rng.uniform(-2, 2, 3), rng.uniform(-5, 5, 3)
        for f, a in [("inverse_dynamics", (q, qd, x)), ("mass_matrix", (q,)), ("forward_dynamics", (q, qd, x))]:
            got, ref = np.asarray(getattr(e, f)(*a)), np.asarray(getattr(c, f)(*a))
            assert np.max(np.abs(got - ref)) <= F32_REL * max(1.0, np.abs(ref).max()), f
            assert np.max(np.abs(got - ref)) > 0  # float32, not a float64 copy
        T, U = e.energy(q, qd)
        Tr, Ur = c.energy(q, qd)
        assert abs(T - Tr) <= F32_REL * spec.energy_scale() and abs(U - Ur) <= F32_REL * spec.energy_scale()


def test_steps_follow_c_mujoco_and_stay_float32_under_global_x64(engines):
    spec, e, c = engines
    q0, tau = np.array([-1.2, 0.3, -0.2]), np.array([0.5, -0.2, 0.1])
    with jax.enable_x64(True):  # as if the user had turned x64 on globally
        e.reset(q0, np.zeros(3))
        for _ in range(200):
            e.step(tau)
        assert e.data.qpos.dtype == np.float32
    c.reset(q0, np.zeros(3))
    for _ in range(200):
        c.step(tau)
    err = np.max(np.abs(e.state()[0] - c.state()[0]))
    assert 0 < err <= 1e-5  # float32 rounding over 200 steps (measured ~2e-7)


def test_mjx_under_global_x64_would_run_float64_which_the_adapter_prevents():
    # the trap the adapter's scoped x64 exists for: MJX 3.17 allocates data in JAX's default float type
    m = mjx_engine.build_mj_model(get_preset("planar2r"), 1e-3, "Euler")
    with jax.enable_x64(True):
        assert mjx_engine.mjx.make_data(mjx_engine.mjx.put_model(m)).qpos.dtype == np.float64
    with jax.enable_x64(False):
        assert mjx_engine.mjx.make_data(mjx_engine.mjx.put_model(m)).qpos.dtype == np.float32


def test_energy_flag_is_cleared_because_mjx_rejects_it_and_config_says_so(engines):
    spec, e, _ = engines
    m = mujoco.MjModel.from_xml_string(mjx_engine.to_mjcf(spec))
    assert m.opt.enableflags & int(mujoco.mjtEnableBit.mjENBL_ENERGY)  # the generated MJCF sets it
    with pytest.raises(NotImplementedError, match="ENERGY"):
        mjx_engine.mjx.put_model(m)
    cfg = e.config()
    assert "energy" in cfg["cleared_options"] and "mjENBL_ENERGY" not in cfg["enableflags"]
    assert cfg["dtype"] == "float32" and cfg["precision"] == "highest" and cfg["integrator"] == "semi-implicit-euler"


def test_precision_knob_reaches_the_matrix_products():
    # on a CPU TF32 does not exist, so the knob's effect is shown where it acts: the lowered MJX step's dot ops
    m = mjx_engine.build_mj_model(get_preset("planar2r"), 1e-3, "Euler")
    texts = {}
    for prec in ("highest", "default"):
        with mjx_engine._Scope("float32", prec):
            mx = mjx_engine.mjx.put_model(m)
            d = mjx_engine.mjx.make_data(mx)
            texts[prec] = jax.jit(mjx_engine.mjx.step).lower(mx, d).as_text()
    assert "HIGHEST" in texts["highest"]
    assert "HIGHEST" not in texts["default"]


def test_bad_options_are_errors():
    from crossdyn.engines import EngineError

    spec = get_preset("planar2r")
    with pytest.raises(EngineError, match="precision"):
        make_engine("mjx@precision=tf32", spec)
    with pytest.raises(EngineError, match="integrator"):
        make_engine("mjx@integrator=implicit", spec)


def _random_arms(n, N, seed):
    rng = np.random.default_rng(seed)
    L = rng.uniform(0.5, 1.5, (N, n))
    m = rng.uniform(0.5, 2.0, (N, n))
    return params_from_arrays(L, m, L * rng.uniform(0.3, 0.7, (N, n)), m * L**2 * rng.uniform(0.05, 0.1, (N, n)),
                              b=rng.uniform(0, 0.3, (N, n)))


def _c_mujoco(p, i, q0, tau, steps, integrator):
    """Arm i compiled by C MuJoCo from its own generated MJCF, stepped in float64 (independent of the batch path)."""
    n = p.L.shape[1]
    spec = ArmSpec(tuple(LinkSpec(p.L[i, k], p.m[i, k], p.Lc[i, k], p.J[i, k], p.b[i, k]) for k in range(n)))
    c = make_engine(integrator, spec, 1e-3)
    c.reset(q0, np.zeros(n))
    for _ in range(steps):
        c.step(tau)
    return c.state()[0]


def test_reported_mjx_float32_discrepancy_matches_independent_float64_c_mujoco():
    # `compare --batch` reports MJX's error against crossdyn's float64 JAX model; an independent float64 run of
    # the same arms in C MuJoCo (one model per arm, mj_step loop) must give the same per-arm figure, to the
    # float64 disagreement of the two references (~1e-14, far below the float32 error ~1e-7).  This also checks the
    # batch path's per-arm model fields (body_pos, body_ipos, body_mass, body_inertia, …, replaced per arm instead of
    # compiling N models): each arm follows its own C-MuJoCo-compiled model.
    from crossdyn.batch import BatchOptions, batch_compare
    from crossdyn.models.spec import arm_spec

    spec = get_preset("planar2r")
    opt = BatchOptions(N=6, duration=0.2, dt=1e-3, engines=("mjx", "mujoco"), seed=3)
    r = batch_compare(spec, opt)
    s = r.summary
    assert s["verdict"] == "PASS", s["failures"]
    reported = r.errors["mjx"]
    from crossdyn.batch.compare import default_profile

    T = default_profile(spec).sample(np.arange(200) * 1e-3)
    mjx_q = r.runs["mjx"].q
    sample = s["sample_every_steps"]
    for i in range(opt.N):
        c = make_engine("mujoco", arm_spec(spec, r.params, i), 1e-3)
        c.reset(r.q0[i], np.zeros(2))
        ref = [c.state()[0]]
        for k in range(200):
            c.step(T[k])
            if (k + 1) % sample == 0:
                ref.append(c.state()[0])
        independent = np.max(np.abs(mjx_q[i] - np.array(ref)))
        assert abs(independent - reported[i]) <= 1e-12, i
        assert reported[i] > 1e-9  # a float32 error, not zero
    assert np.max(np.abs(mjx_q[:, -1] - mjx_q[0, -1])) > 1e-3  # the arms really differ
    assert s["profile"]["name"] == "multisine"
    assert s["engines"]["mjx"]["vs_float64_mujoco"]["discrepancy_rad"]["max"] == pytest.approx(reported.max(), abs=1e-12)


@pytest.mark.slow
def test_mjx_rk4_batch_follows_c_mujoco_rk4():
    spec = get_preset("planar2r")
    N = 4
    p = _random_arms(2, N, seed=7)
    q0 = np.tile([-1.0, 0.4], (N, 1))
    tau = np.array([0.3, -0.1])
    Q, _ = mjx_engine.rollout_batch(spec, p, q0, np.zeros((N, 2)), tau, 1e-3, steps=100, integrator="RK4")
    errs = [np.max(np.abs(Q[i, -1] - _c_mujoco(p, i, q0[i], tau, 100, "mujoco-rk4"))) for i in range(N)]
    assert 0 < max(errs) <= 1e-5


def test_step_applied_goes_past_the_actuator_clamp():
    """The runner's law torques (limits, friction, contact) reach MJX through qfrc_applied, not the motors, whose
    forcerange clamps (as for C MuJoCo, tests/test_effort_engines.py): from rest one semi-implicit Euler step
    gives q̇(dt) = dt M⁻¹(τ + τ_extra − G) exactly, in float32 to F32_REL; the summed torque through the motors
    is clamped to the effort limit instead; and a plain step afterwards applies nothing extra."""
    from crossdyn import analytic

    spec = get_preset("planar2r-limits").with_link(1, effort=0.05)
    q, qd, tau, extra = np.array([-1.6, 0.1]), np.zeros(2), np.array([0.5, 0.05]), np.array([0.0, 1.0])
    eng = make_engine("mjx", spec, 1e-3)
    eng.reset(q, qd)
    eng.step_applied(tau, extra)
    split = eng.state()[1]
    want = analytic.forward_dynamics(spec, q, qd, tau + extra) * eng.dt
    assert np.max(np.abs(split - want)) <= F32_REL * np.abs(want).max()
    eng.reset(q, qd)
    eng.step(tau + extra)
    assert abs(eng.state()[1][1] - split[1]) > 1e-4  # through the motors joint 2 gets 0.05, not 1.05
    eng.reset(q, qd)
    eng.step_applied(tau, extra)
    assert not np.any(np.asarray(eng.data.qfrc_applied))  # nothing left behind for the next plain step


@pytest.mark.slow  # 3-10 s: make test's 7-minute budget (the slow tier runs it in CI)
def test_compare_with_mjx_options_starts_workers_from_a_forkserver_after_jax(tmp_path):
    """`compare --engines mjx@dtype=float64,…` builds an MJX engine in the CLI to check its options, so JAX's
    threads exist before compare would fork its engine workers: that deadlocked (a 5-minute timeout with no
    output).  compare now starts its engine workers from a forkserver when JAX's threads exist, and says so."""
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "crossdyn", "compare", "planar2r", "--engines", "mjx-rk4@dtype=float64,mujoco-rk4",
           "--jobs", "2", "--duration", "0.1", "--states", "10", "--no-plots", "--out", str(tmp_path / "o")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    # RK4 on both sides: 0.1 s of planar2r moves 0.03 rad, too little to judge semi-implicit Euler's error (its
    # tolerance, 10x its own dt/2 difference, would exceed 5 % of that range: INCONCLUSIVE, exit 3)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "start from a forkserver" in r.stderr and "verdict: PASS" in r.stdout


@pytest.mark.parametrize("name", ["mjx", "mjx-euler", "mjx-rk4"])
def test_mjx_capabilities_match_the_hooks_it_overrides(name):
    from test_engine_capabilities import check_capabilities_match_hooks

    check_capabilities_match_hooks(name)


def test_engines_registered_at_run_time_reach_forkserver_workers():
    """JAX is imported here, so compare's workers start from a forkserver (a fresh interpreter): the engines this
    process registered at run time are sent with each job and registered there again."""
    from crossdyn import compare
    from crossdyn.comparison.pool import start_method
    from crossdyn.engines import register

    assert start_method() == "forkserver"
    register("mujoco-rk4-registered-here", "crossdyn.engines.mujoco.planar", "MuJoCoEngine", integrator="RK4")
    result = compare("planar2r", duration=0.1, engines=["mujoco-rk4-registered-here", "mujoco-rk4"],
                     convergence_dts=(), jobs=2)
    runs = result.summary["engines"]
    assert runs["mujoco-rk4-registered-here"]["status"] == "ok"
    assert runs["mujoco-rk4-registered-here"]["trajectory"]["max_abs_error_rad"] == \
        runs["mujoco-rk4"]["trajectory"]["max_abs_error_rad"]


def test_mjx_float32_passes_within_its_round_off_and_fails_a_one_percent_mass_error():
    # issue 23 case 4: MJX's float32 is part of its tolerance, and a real model difference still fails
    from crossdyn.comparison.groups import static
    from crossdyn.comparison.references import static_states
    from crossdyn.comparison.tolerances import Tolerances

    spec = get_preset("planar3r")
    st, tol = static_states(spec, 10, 0), Tolerances()

    def groups(engine):
        assert engine.dtype == "float32"
        ev = static.evaluate(engine, st)
        return {m.name: m.values for m in (static.inverse_dynamics_group(spec, st, ev, tol, engine.dtype),
                                           static.forward_dynamics_group(st, ev, tol, engine.dtype),
                                           static.mass_matrix_group(st, ev, tol, engine.dtype))}

    same = groups(make_engine("mjx", spec, 1e-3))
    for name, v in same.items():
        assert v["pass"], (name, v)
        assert v["precision"]["origin"].startswith("float32 round-off")
    assert same["mass_matrix"]["max_abs_error"] > 1e-9 * np.abs(st.M_ref).max()  # beyond float64's tolerance
    heavy = spec.with_link(1, mass=spec.links[1].mass * 1.01)  # an engine built from a spec with link 2 +1 %
    wrong = groups(make_engine("mjx", heavy, 1e-3))
    assert not wrong["mass_matrix"]["pass"] and not wrong["inverse_dynamics"]["pass"]
    assert "float32 round-off" in wrong["mass_matrix"]["failed_because"]


@pytest.mark.slow
def test_mjx_tip_site_agrees_with_crossdyn_kinematics_within_the_float32_term():
    """MJX's own ``tip`` site (site_xpos, cvel, jax.jacfwd through mjx.kinematics), as tests/test_gpu_tip.py checks
    MuJoCo Warp's and Newton's: within the float32 term of crossdyn.engines.precision.tip_roundoff, not within the
    float64 tolerance alone."""
    from test_gpu_tip import check_tip_within_float32_term

    check_tip_within_float32_term(make_engine("mjx", get_preset("planar3r-wall"), 1e-3))
