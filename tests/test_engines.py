"""Engine adapters against the analytic model (an independent path), and each neutralised engine trap as a real knob.

Reference values come from crossdyn's analytic model (closed form for 2R/3R, SymPy Lagrangian for 5R),
which shares no code with PyBullet, MuJoCo or Pinocchio.  Trajectory comparisons pair engines that
perform the same arithmetic (same integrator, same dt, same zero-order-hold torque).
"""
import json
import sys

import numpy as np
import pytest

from crossdyn import analytic
from crossdyn.analytic.integrators import Trajectory
from crossdyn.inputs.profiles import hanging_configuration, make_profile
from crossdyn.drive.runner import run_engine
from crossdyn.inputs.trajectories import quintic
from crossdyn.engines import Engine, EngineError, available_engines, engine_names, make_engine, register
from crossdyn.models import get_preset

from conftest import random_states

ARMS = ["planar2r", "planar3r", "planar3r-general", "planar5r"]
QUERY_ENGINES = ["pybullet", "mujoco", "mujoco-rk4", "mujoco-implicit", "mujoco-implicitfast", "pinocchio",
                 "pinocchio-euler"]
N_STATES = 500
TOL = 1e-9
DT = 1e-3


def _spec(arm: str, damping: float):
    spec = get_preset(arm)
    return spec.with_links(damping=damping) if damping else spec


def _sine(spec):
    """A sine per joint that moves the arm by tenths of a radian to ~1 rad in 1 s (not chaotic)."""
    n = spec.n
    return make_profile("sine", spec, amplitude=0.3 * spec.torque_scale() / n, frequency=1.5,
                        phase=np.arange(n, dtype=float))


def _run(name, spec, profile, q0, duration=1.0, **options):
    with make_engine(name, spec, DT, **options) as engine:
        return run_engine(engine, profile, q0, np.zeros(spec.n), duration)


# ------------------------------------------------------------------------------------------ queries
@pytest.mark.parametrize("damping", [0.0, 0.1])
@pytest.mark.parametrize("arm", ARMS)
@pytest.mark.parametrize("name", QUERY_ENGINES)
def test_inverse_dynamics_mass_matrix_forward_dynamics_agree_with_analytic(name, arm, damping):
    spec = _spec(arm, damping)
    n, scale = spec.n, spec.torque_scale()
    q, qd, qdd = random_states(n, N_STATES, seed=11)
    tau = np.random.default_rng(12).uniform(-scale, scale, (N_STATES, n))
    with make_engine(name, spec, DT) as engine:
        ID = np.array([engine.inverse_dynamics(*x) for x in zip(q, qd, qdd)])
        M = np.array([engine.mass_matrix(x) for x in q])
        FD = np.array([engine.forward_dynamics(*x) for x in zip(q, qd, tau)])
    M_ref = analytic.mass_matrix(spec, q)
    qdd_ref = analytic.forward_dynamics(spec, q, qd, tau)
    assert np.max(np.abs(ID - analytic.inverse_dynamics(spec, q, qd, qdd))) <= TOL * scale
    assert np.max(np.abs(M - M_ref)) <= TOL * np.max(np.abs(M_ref))
    assert np.array_equal(M, np.swapaxes(M, 1, 2))
    # forward dynamics: as a torque residual (M_ref (q̈ − q̈_ref)) and as accelerations
    resid = np.einsum("kij,kj->ki", M_ref, FD - qdd_ref)
    assert np.max(np.abs(resid)) <= TOL * scale
    assert np.max(np.abs(FD - qdd_ref)) <= TOL * np.max(np.abs(qdd_ref))


@pytest.mark.parametrize("arm", ["planar2r", "planar3r-general", "planar5r"])
@pytest.mark.parametrize("name", ["pybullet", "mujoco", "pinocchio"])
def test_energy_agrees_with_analytic(name, arm):
    spec = get_preset(arm)
    q, qd, _ = random_states(spec.n, 200, seed=5)
    with make_engine(name, spec, DT) as engine:
        E = np.array([engine.energy(*x) for x in zip(q, qd)])
    T_ref, U_ref = analytic.kinetic_energy(spec, q, qd), analytic.potential_energy(spec, q)
    scale = spec.energy_scale()
    assert np.max(np.abs(E[:, 0] - T_ref) / (scale + np.abs(T_ref))) <= TOL
    assert np.max(np.abs(E[:, 1] - U_ref)) <= TOL * scale
    # U is zero with every centre of mass at base height (arm horizontal), −Σ m |g| r hanging
    with make_engine(name, spec, DT) as engine:
        assert abs(engine.energy(np.zeros(spec.n), np.zeros(spec.n))[1]) <= TOL * scale
        assert engine.energy(hanging_configuration(spec), np.zeros(spec.n))[1] == pytest.approx(-scale, abs=TOL * scale)


@pytest.mark.parametrize("name", ["pybullet", "mujoco", "pinocchio"])
def test_queries_never_disturb_the_simulated_state(name):
    spec = get_preset("planar3r")
    q0 = hanging_configuration(spec) + 0.3
    tau = np.array([1.0, -0.5, 0.2])
    with make_engine(name, spec, DT) as a, make_engine(name, spec, DT) as b:
        for e in (a, b):
            e.reset(q0, np.zeros(3))
            for _ in range(10):
                e.step(tau)
        q, qd, qdd = random_states(3, 5, seed=3)
        for x in zip(q, qd, qdd):  # queries on a only
            a.energy(x[0], x[1]), a.inverse_dynamics(*x), a.mass_matrix(x[0]), a.forward_dynamics(*x)
        assert all(np.array_equal(u, v) for u, v in zip(a.state(), b.state()))
        for e in (a, b):
            for _ in range(10):
                e.step(tau)
        assert all(np.array_equal(u, v) for u, v in zip(a.state(), b.state()))


# ------------------------------------------------------------------------------------------ trajectories
@pytest.mark.parametrize("damping", [0.0, 0.3])
@pytest.mark.parametrize("arm", ["planar3r", "planar5r"])
@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_same_integrator_same_trajectory(arm, damping):
    spec = _spec(arm, damping)
    profile = _sine(spec)
    q0 = hanging_configuration(spec) + 0.2
    runs = {name: _run(name, spec, profile, q0) for name in
            ["pybullet", "mujoco", "analytic-euler", "pinocchio-euler", "mujoco-rk4", "analytic-rk4", "pinocchio"]}
    assert all(r.status == "ok" and len(r.t) == 1001 for r in runs.values())
    err = lambda a, b: np.max(np.abs(runs[a].q - runs[b].q))  # noqa: E731
    assert err("pybullet", "mujoco") <= TOL  # both semi-implicit Euler
    assert err("pybullet", "analytic-euler") <= TOL
    assert err("pinocchio-euler", "analytic-euler") <= TOL
    assert err("mujoco-rk4", "analytic-rk4") <= TOL
    assert err("pinocchio", "analytic-rk4") <= TOL
    # the comparison has resolution: the arm moves, and the two schemes differ by far more than TOL
    assert np.max(np.abs(runs["analytic-rk4"].q - q0)) > 0.1
    assert err("mujoco", "mujoco-rk4") > 1e-4


# ------------------------------------------------------------------------------------------ knobs
def _sine3r():
    spec = get_preset("planar3r")
    return spec, make_profile("sine", spec, amplitude=[3.0, 1.0, 0.3], frequency=1.5, phase=[0.0, 1.0, 2.0]), \
        hanging_configuration(spec) + 0.2


@pytest.mark.parametrize("knob, key, minimum", [
    ({"link_damping": 0.04}, "link_angular_damping", 1e-3),            # measured 0.024 rad
    ({"disable_velocity_motors": False}, "disable_velocity_motors", 0.1),  # measured 0.49 rad: barely moves
    ({"inertia_from_file": False}, "inertia_from_file", 1e-3),         # measured 0.012 rad
])
def test_pybullet_knobs_are_real(knob, key, minimum):
    spec, profile, q0 = _sine3r()
    reference = _run("mujoco", spec, profile, q0)
    default = _run("pybullet", spec, profile, q0)
    trap = _run("pybullet", spec, profile, q0, **knob)
    assert np.max(np.abs(default.q - reference.q)) <= TOL
    assert np.max(np.abs(trap.q - reference.q)) > minimum
    assert trap.info["config"][key] == next(iter(knob.values())) != default.info["config"][key]


def test_pybullet_inertia_from_geometry_changes_the_mass_matrix():
    spec = get_preset("planar3r")
    q = np.array([0.3, -0.2, 0.5])
    with make_engine("pybullet", spec) as good, make_engine("pybullet", spec, inertia_from_file=False) as bad:
        M_ref = analytic.mass_matrix(spec, q)
        assert np.max(np.abs(good.mass_matrix(q) - M_ref)) <= TOL
        assert np.max(np.abs(bad.mass_matrix(q) - M_ref)) > 1e-3
        assert bad.config()["local_inertia_diagonal"] != good.config()["local_inertia_diagonal"]


def test_pybullet_velocity_clamp_is_detected_and_reported():
    spec, profile, q0 = _sine3r()
    ok = _run("pybullet", spec, profile, q0)
    assert ok.status == "ok" and np.max(np.abs(ok.qd)) > 2.0
    with make_engine("pybullet", spec, DT, max_joint_velocity=2.0) as engine:
        clamped = run_engine(engine, profile, q0, np.zeros(3), 1.0)
        assert engine.clamped_at is not None
    assert clamped.status == "failed" and "clamp" in clamped.message
    # identical arithmetic until the clamp: it is reported at the first step the free run exceeds 2 rad/s
    first = ok.t[np.argmax(np.max(np.abs(ok.qd), axis=1) >= 2.0)]
    assert clamped.diverged_at == pytest.approx(first) and clamped.t[-1] == pytest.approx(first - DT)
    assert np.array_equal(clamped.q, ok.q[: len(clamped.q)])


def test_pybullet_coulomb_friction_emulation_knob():
    spec = get_preset("planar3r").with_links(friction=0.3)
    _, profile, q0 = _sine3r()
    ref = _run("analytic-euler", spec, profile, q0)
    motor = _run("pybullet", spec, profile, q0)
    ignored = _run("pybullet", spec, profile, q0, coulomb_friction="none")
    e_motor, e_ignored = np.max(np.abs(motor.q - ref.q)), np.max(np.abs(ignored.q - ref.q))
    assert e_ignored > 0.1 and e_motor < e_ignored / 10  # measured 0.50 vs 0.003 rad
    assert "unsupported" in ignored.info["config"]["coulomb_friction_model"]


def test_mujoco_eulerdamp_knob_with_a_damped_arm():
    spec = get_preset("planar3r").with_links(damping=0.5)
    _, profile, q0 = _sine3r()
    ref = _run("analytic-euler", spec, profile, q0)
    default = _run("mujoco", spec, profile, q0)
    implicit = _run("mujoco", spec, profile, q0, eulerdamp=True)
    assert np.max(np.abs(default.q - ref.q)) <= TOL
    assert np.max(np.abs(implicit.q - ref.q)) > 1e-4  # measured 8.6e-4 rad
    assert default.info["config"]["eulerdamp"] is False and implicit.info["config"]["eulerdamp"] is True
    assert "implicit" in implicit.info["config"]["damping_treatment"]


def test_mujoco_autoreset_knob(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo appends its warnings to MUJOCO_LOG.TXT in the working directory
    spec = get_preset("planar3r")
    huge = make_profile("constant", spec, value=[0.0, 0.0, 5e9])  # q̈ beyond MuJoCo's 1e10 limit
    q0 = hanging_configuration(spec)
    visible = _run("mujoco", spec, huge, q0, 0.05)
    assert visible.status == "diverged" and visible.diverged_at == pytest.approx(0.001)
    silent = _run("mujoco", spec, huge, q0, 0.05, autoreset=True)
    assert silent.status == "ok"  # MuJoCo reset the arm to q = 0 and carried on …
    assert np.max(np.abs(silent.q[-1] - q0)) > 1.0  # … far from where it hung


def test_mujoco_bad_control_fails_instead_of_being_zeroed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = get_preset("planar2r")
    run = _run("mujoco", spec, make_profile("constant", spec, value=1e11), hanging_configuration(spec), 0.01)
    assert run.status == "failed" and "mjWARN_BADCTRL" in run.message


# ------------------------------------------------------------------------------------------ closed loop
# the registry's own engines (fixed here: other tests may register deliberately broken set-ups)
ENGINES = ["analytic", "analytic-rk4", "analytic-euler", "analytic-explicit-euler", "analytic-reference",
           "pybullet", "mujoco", "mujoco-euler", "mujoco-rk4", "mujoco-implicit", "mujoco-implicitfast",
           "pinocchio", "pinocchio-rk4", "pinocchio-euler"]
TRACKING_ENGINES = ENGINES


@pytest.fixture(scope="module")
def tracking_setup():
    spec = get_preset("planar3r").with_links(damping=0.05)
    q0 = hanging_configuration(spec)
    tr = quintic([0.0, 0.4, 1.0], [q0, q0 + [0.4, 0.6, -0.5], q0 + [1.0, 0.3, 0.5]])
    return spec, q0, tr, make_profile("computed-torque", spec, trajectory=tr)


@pytest.mark.parametrize("name", TRACKING_ENGINES)
def test_computed_torque_tracks_a_quintic_on_every_engine(name, tracking_setup):
    spec, q0, tr, profile = tracking_setup
    run = _run(name, spec, profile, q0)
    assert run.status == "ok", run.message
    error = np.max(np.abs(run.q - tr.evaluate(run.t)[0]))
    assert error <= 1e-3
    assert run.info["profile"]["name"] == "computed-torque" and run.info["profile"]["trajectory"]["kind"] == "quintic"


# ------------------------------------------------------------------------------------------ registry, config
def test_unknown_engine_names_the_available_ones():
    with pytest.raises(EngineError) as e:
        make_engine("bullet", get_preset("planar2r"))
    msg = str(e.value)
    assert "'bullet'" in msg and all(name in msg for name in ["pybullet", "mujoco-rk4", "pinocchio", "analytic"])


def test_engine_not_installed_names_the_available_ones(monkeypatch):
    monkeypatch.setitem(sys.modules, "pybullet", None)  # as if PyBullet were not installed
    monkeypatch.delitem(sys.modules, "crossdyn.engines.pybullet.planar", raising=False)
    assert "pybullet" not in available_engines() and "mujoco" in available_engines()
    with pytest.raises(EngineError) as e:
        make_engine("pybullet", get_preset("planar2r"))
    msg = str(e.value)
    assert "not installed" in msg and "mujoco" in msg and "pinocchio" in msg and "pybullet," not in msg


def test_registered_names():
    assert set(ENGINES) <= set(available_engines()) <= set(engine_names())


@pytest.mark.parametrize("name", [n for n in ENGINES if not n.startswith("analytic")])
def test_config_states_every_physics_setting(name):
    spec = get_preset("planar2r-pointmass").with_links(damping=0.1)
    with make_engine(name, spec, 2e-3) as engine:
        cfg = engine.config()
        assert isinstance(engine, Engine)
    json.dumps(cfg, allow_nan=False)
    assert cfg["dt"] == 2e-3 and cfg["version"] and cfg["integrator"]
    assert len(cfg["inertia_substitutions"]) == 2  # point masses need a positive inertia
    assert cfg["joint_damping"] == [0.1, 0.1]
    if name == "pybullet":
        assert cfg["inertia_from_file"] is True and cfg["disable_velocity_motors"] is True
        assert cfg["link_linear_damping"] == cfg["link_angular_damping"] == 0.0
        assert cfg["max_joint_velocity"] >= 1e4 and cfg["physics_engine_parameters"]["fixedTimeStep"] == 2e-3
        assert cfg["physics_engine_parameters"]["gravityAccelerationY"] == -9.81
        assert "excludes" in cfg["joint_damping_model"]
    elif name.startswith("mujoco"):
        assert cfg["version"].startswith("4.") and cfg["eulerdamp"] is False and cfg["autoreset"] is False
        assert {"mjDSBL_EULERDAMP", "mjDSBL_AUTORESET", "mjDSBL_CONTACT"} <= set(cfg["disableflags"])
        assert "mjENBL_ENERGY" in cfg["enableflags"] and cfg["armature"] == [0.0, 0.0]
        assert cfg["mujoco_integrator"] == {"mujoco": "Euler", "mujoco-euler": "Euler", "mujoco-rk4": "RK4",
                                            "mujoco-implicit": "implicit",
                                            "mujoco-implicitfast": "implicitfast"}[name]
    else:
        assert cfg["gravity"] == [0.0, -9.81, 0.0] and cfg["armature"] == [0.0, 0.0]
        assert cfg["integrator"] == ("semi-implicit-euler" if name == "pinocchio-euler" else "rk4")


# ------------------------------------------------------------------------------------------ runner
class _Exploding(Engine):
    """An engine whose library raises on the 6th step."""

    name = "exploding"
    integrator = "none"

    def __init__(self, spec, dt=1e-3):
        super().__init__(spec, dt)
        self.k, self.q = 0, np.zeros(self.n)

    def reset(self, q, qd):
        self.k, self.q = 0, np.array(q, float)

    def step(self, tau):
        self.k += 1
        if self.k == 6:
            raise RuntimeError("solver exploded")

    def state(self):
        return self.q.copy(), np.zeros(self.n)

    def inverse_dynamics(self, q, qd, qdd): ...
    def mass_matrix(self, q): ...
    def forward_dynamics(self, q, qd, tau): ...
    def energy(self, q, qd): ...

    def config(self):
        return {"engine": "exploding"}


def test_runner_reports_a_library_exception_as_failed():
    spec = get_preset("planar2r")
    run = run_engine(_Exploding(spec), make_profile("zero", spec), np.zeros(2), np.zeros(2), 0.1)
    assert isinstance(run, Trajectory)
    assert run.status == "failed" and run.diverged_at == pytest.approx(0.006) and "solver exploded" in run.message
    assert len(run.q) == 6 and len(run.tau) == 5


@pytest.mark.parametrize("name", ["analytic-euler", "pybullet", "mujoco", "pinocchio"])
def test_runner_reports_divergence_without_raising(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = get_preset("planar2r")
    run = _run(name, spec, make_profile("constant", spec, value=[0.0, 2000.0]), np.zeros(2), 0.5)
    assert run.status == "diverged" and "exceeded the bound" in run.message
    assert 0 < run.diverged_at < 0.5 and len(run.q) == round(run.diverged_at / DT)
    assert np.all(np.abs(run.qd) <= 1e3)  # arrays stop at the last good state


def test_runner_closed_loop_non_finite_torque_fails():
    spec = get_preset("planar2r")

    class NaNAfter:
        name, closed_loop = "nan-after", True

        def __call__(self, t, q, qd):
            return np.full(2, np.nan) if t >= 0.01 - 1e-12 else np.zeros(2)

    run = _run("analytic-euler", spec, NaNAfter(), np.zeros(2), 0.1)
    assert run.status == "failed" and "non-finite torque" in run.message and run.diverged_at == pytest.approx(0.01)


def test_runner_open_loop_batch_equals_per_step_path_and_records_the_profile():
    """The vectorised open-loop path gives exactly what calling the profile every step gives."""
    spec, profile, q0 = _sine3r()

    class PerStep:  # the same profile, without sample(): the runner must call it every step
        name, closed_loop = profile.name, False

        def __call__(self, t, q, qd):
            return profile(t, q, qd)

    for name in ("pybullet", "mujoco-rk4"):
        a, b = _run(name, spec, profile, q0), _run(name, spec, PerStep(), q0)
        assert np.array_equal(a.q, b.q) and np.array_equal(a.tau, b.tau)
        assert a.info["profile"] == profile.params() and a.info["config"]["dt"] == DT
        assert a.method == ("semi-implicit-euler" if name == "pybullet" else "rk4")


def test_engine_options_after_at_switch_a_knob_back_on():
    """`pybullet@link_damping=0.04` is PyBullet with its default link damping put back on purpose."""
    from crossdyn.engines.registry import EngineError, split_options

    assert split_options("mujoco-rk4@eulerdamp=true@autoreset=false") == (
        "mujoco-rk4", {"eulerdamp": True, "autoreset": False})
    spec = get_preset("planar2r")
    damped = make_engine("pybullet@link_damping=0.04", spec, 1e-3)
    assert damped.name == "pybullet@link_damping=0.04" and damped.config()["link_linear_damping"] == 0.04
    with pytest.raises(EngineError, match="unknown option.*dampng.*link_damping"):
        make_engine("pybullet@dampng=1", spec, 1e-3)
    with pytest.raises(EngineError, match="key=value"):
        make_engine("pybullet@0.04", spec, 1e-3)
