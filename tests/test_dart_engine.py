"""The DART adapter (``dart``, ``dart-rk4``) against the analytic model, and each neutralised DART default as a
real knob (switching it back changes the result; the measured effect is in the comments and the README).

References: crossdyn's analytic model (closed form for 2R/3R, SymPy Lagrangian for 5R; no code shared with
DART) and, for trajectories, engines doing the same arithmetic (same integrator, same dt, same held torque):
PyBullet and MuJoCo Euler for ``dart`` (semi-implicit Euler), analytic RK4 for ``dart-rk4``.
"""
import json
from dataclasses import replace

import numpy as np
import pytest

dart = pytest.importorskip("dartpy")  # the `engines` extra; `make test` installs it

from crossdyn import analytic  # noqa: E402
from crossdyn.inputs.profiles import hanging_configuration, make_profile  # noqa: E402
from crossdyn.drive.runner import run_engine  # noqa: E402
from crossdyn.engines import EngineError, available_engines, make_engine  # noqa: E402
from crossdyn.engines.dart.planar import DART_DEFAULT_GRAVITY, load_skeleton  # noqa: E402
from crossdyn.models import get_preset, to_urdf  # noqa: E402

from conftest import random_states  # noqa: E402

TOL = 1e-9  # relative; rounding is ~1e-14 (measured: ID 8e-15 of the torque scale, M 1e-14, FD 8e-12 rad/s² on 5R)
DT = 1e-3
N_STATES = 300


def _run(name, spec, profile, q0, duration=1.0, dt=DT, **options):
    with make_engine(name, spec, dt, **options) as engine:
        return run_engine(engine, profile, q0, np.zeros(spec.n), duration)


def _sine3r(spec=None):
    spec = spec or get_preset("planar3r")
    return spec, make_profile("sine", spec, amplitude=[3.0, 1.0, 0.3], frequency=1.5, phase=[0.0, 1.0, 2.0]), \
        hanging_configuration(spec) + 0.2


def _err(a, b) -> float:
    assert len(a.q) == len(b.q), (a.status, a.message)
    return float(np.max(np.abs(a.q - b.q)))


def _with_world_link(urdf: str) -> str:
    """The generated URDF with a ``world`` link welded to ``base`` (what issue 11 item 18 adds)."""
    if '<link name="world"' in urdf:
        return urdf
    return urdf.replace('<link name="base">', '<link name="world"/>\n  <joint name="world_to_base" type="fixed">'
                        '<parent link="world"/><child link="base"/><origin xyz="0 0 0" rpy="0 0 0"/></joint>\n'
                        '  <link name="base">', 1)


def _without_world_link(urdf: str) -> str:
    import re

    urdf = re.sub(r'\s*<link name="world"\s*/>', "", urdf)
    urdf = re.sub(r'\s*<link name="world">.*?</link>', "", urdf, flags=re.S)
    return re.sub(r'\s*<joint name="[^"]*" type="fixed">\s*<parent link="world"/>.*?</joint>', "", urdf, flags=re.S)


def _with_collision_geometry(urdf: str) -> str:
    """The URDF with ``<collision>`` geometry on every link: as generated, or copied from its ``<visual>``."""
    import re

    if "<collision" in urdf:
        return urdf
    return re.sub(r"<visual>(.*?)</visual>", r"<visual>\1</visual><collision>\1</collision>", urdf, flags=re.S)


# ------------------------------------------------------------------------------------------ queries
def test_registered_and_available():
    assert {"dart", "dart-rk4"} <= set(available_engines())


@pytest.mark.parametrize("damping", [0.0, 0.3])
@pytest.mark.parametrize("arm", ["planar2r", "planar3r", "planar3r-general", "planar5r"])
def test_inverse_dynamics_mass_matrix_forward_dynamics_agree_with_analytic(arm, damping):
    spec = get_preset(arm).with_links(damping=damping) if damping else get_preset(arm)
    n, scale = spec.n, spec.torque_scale()
    q, qd, qdd = random_states(n, N_STATES, seed=21)
    tau = np.random.default_rng(22).uniform(-scale, scale, (N_STATES, n))
    with make_engine("dart", spec, DT) as engine:
        ID = np.array([engine.inverse_dynamics(*x) for x in zip(q, qd, qdd)])
        M = np.array([engine.mass_matrix(x) for x in q])
        FD = np.array([engine.forward_dynamics(*x) for x in zip(q, qd, tau)])
    M_ref = analytic.mass_matrix(spec, q)
    qdd_ref = analytic.forward_dynamics(spec, q, qd, tau)
    assert np.max(np.abs(ID - analytic.inverse_dynamics(spec, q, qd, qdd))) <= TOL * scale
    assert np.max(np.abs(M - M_ref)) <= TOL * np.max(np.abs(M_ref))
    assert np.array_equal(M, np.swapaxes(M, 1, 2))
    assert np.max(np.abs(FD - qdd_ref)) <= TOL * np.max(np.abs(qdd_ref))


@pytest.mark.parametrize("arm", ["planar2r", "planar3r-general", "planar5r"])
def test_energy_agrees_with_analytic(arm):
    spec = get_preset(arm)
    q, qd, _ = random_states(spec.n, 200, seed=5)
    with make_engine("dart", spec, DT) as engine:
        E = np.array([engine.energy(*x) for x in zip(q, qd)])
        U_hanging = engine.energy(hanging_configuration(spec), np.zeros(spec.n))[1]
    T_ref, U_ref = analytic.kinetic_energy(spec, q, qd), analytic.potential_energy(spec, q)
    scale = spec.energy_scale()
    assert np.max(np.abs(E[:, 0] - T_ref) / (scale + np.abs(T_ref))) <= TOL
    assert np.max(np.abs(E[:, 1] - U_ref)) <= TOL * scale
    assert U_hanging == pytest.approx(-scale, abs=TOL * scale)  # U = −Σ m|g|r hanging, 0 at base height


def test_queries_never_disturb_the_simulated_state():
    spec = get_preset("planar3r")
    q0, tau = hanging_configuration(spec) + 0.3, np.array([1.0, -0.5, 0.2])
    with make_engine("dart", spec, DT) as a, make_engine("dart", spec, DT) as b:
        for e in (a, b):
            e.reset(q0, np.zeros(3))
            for _ in range(10):
                e.step(tau)
        q, qd, qdd = random_states(3, 5, seed=3)
        for x in zip(q, qd, qdd):
            a.energy(x[0], x[1]), a.inverse_dynamics(*x), a.mass_matrix(x[0]), a.forward_dynamics(*x)
        for e in (a, b):
            for _ in range(10):
                e.step(tau)
        assert all(np.array_equal(u, v) for u, v in zip(a.state(), b.state()))


# ------------------------------------------------------------------------------------------ trajectories
@pytest.mark.parametrize("damping", [0.0, 0.3])
def test_same_integrator_same_trajectory(damping):
    spec, profile, q0 = _sine3r()
    spec = spec.with_links(damping=damping) if damping else spec
    runs = {name: _run(name, spec, profile, q0) for name in
            ["dart", "pybullet", "mujoco", "analytic-euler", "dart-rk4", "analytic-rk4"]}
    assert all(r.status == "ok" and len(r.t) == 1001 for r in runs.values())
    err = lambda a, b: _err(runs[a], runs[b])  # noqa: E731
    assert err("dart", "pybullet") <= TOL  # all semi-implicit Euler; measured 7.8e-16 rad
    assert err("dart", "mujoco") <= TOL
    assert err("dart", "analytic-euler") <= TOL
    assert err("dart-rk4", "analytic-rk4") <= TOL  # measured 2.2e-16 rad
    # the comparison has resolution: the arm moves, and the two schemes differ by far more than TOL
    assert np.max(np.abs(runs["dart-rk4"].q - q0)) > 0.1
    assert err("dart", "dart-rk4") > 1e-4


def test_time_step_is_set_not_dart_default():
    """DART's world time step defaults to 1 ms, crossdyn's default too: only another dt shows it is set."""
    assert dart.simulation.World().getTimeStep() == pytest.approx(1e-3)
    spec, profile, q0 = _sine3r()
    a = _run("dart", spec, profile, q0, 0.5, dt=2e-3)
    b = _run("analytic-euler", spec, profile, q0, 0.5, dt=2e-3)
    assert len(a.t) == 251 and _err(a, b) <= TOL
    with make_engine("dart", spec, 2e-3) as engine:
        assert engine.config()["world_time_step"] == 2e-3 == engine.config()["dt"]


def test_gravity_is_the_specs_not_darts_minus_z():
    assert tuple(dart.simulation.World().getGravity()) == DART_DEFAULT_GRAVITY
    spec = replace(get_preset("planar2r"), gravity=(3.0, -4.0, 2.0))
    q = np.array([0.4, -1.1])
    with make_engine("dart", spec, DT) as engine:
        assert engine.config()["gravity"] == [3.0, -4.0, 2.0]
        G = engine.inverse_dynamics(q, np.zeros(2), np.zeros(2))
    assert np.max(np.abs(G - analytic.gravity(spec, q))) <= TOL * spec.torque_scale()


# ------------------------------------------------------------------------------------------ knobs
def test_implicit_damping_knob():
    spec, profile, q0 = _sine3r(get_preset("planar3r").with_links(damping=0.5))
    ref = _run("analytic-euler", spec, profile, q0)
    default = _run("dart", spec, profile, q0)
    implicit = _run("dart", spec, profile, q0, implicit_damping=True)
    assert _err(default, ref) <= TOL
    assert _err(implicit, ref) > 1e-4  # measured 8.6e-4 rad (as MuJoCo's eulerdamp)
    cfg, icfg = default.info["config"], implicit.info["config"]
    assert cfg["dart_damping_coefficient"] == [0.0] * 3 and icfg["dart_damping_coefficient"] == [0.5] * 3
    assert "implicit" in icfg["damping_treatment"] and "explicit" in cfg["damping_treatment"]
    # what DART does with it: q̈ = (M + dt·B)⁻¹ (τ − B q̇ − C q̇ − G) (the damping taken at the new velocity)
    q, qd, tau = np.array([0.3, -0.5, 1.0]), np.array([1.0, -2.0, 3.0]), np.array([1.0, 0.5, -0.2])
    dt, B = 2e-3, 0.5 * np.eye(3)
    with make_engine("dart", spec, dt, implicit_damping=True) as engine:
        qdd = engine.forward_dynamics(q, qd, tau)
    expected = np.linalg.solve(analytic.mass_matrix(spec, q) + dt * B,
                               tau - analytic.inverse_dynamics(spec, q, qd, np.zeros(3)))  # ID includes B q̇
    assert np.max(np.abs(qdd - expected)) <= TOL * np.max(np.abs(expected))  # measured 4e-14 rad/s²
    # the loader really does read <dynamics damping> (what the knob restores)
    skel = load_skeleton(to_urdf(spec))
    assert [skel.getDof(i).getDampingCoefficient() for i in range(3)] == [0.5] * 3


def test_floating_root_joint_knob():
    """DartLoader's default root joint is FLOATING: the arm's massless base then flies off (the solve diverges)."""
    spec, profile, q0 = _sine3r()
    urdf = _without_world_link(to_urdf(spec))
    ref = _run("dart", spec, profile, q0, urdf=urdf)
    floating = _run("dart", spec, profile, q0, urdf=urdf, fixed_base=False)
    assert ref.status == "ok" and ref.info["config"]["root_joint"] == "WeldJoint"
    assert floating.info["config"]["root_joint"] == "FreeJoint"
    assert floating.status == "diverged"  # measured: at t = 0.024 s
    # with a world link in the URDF the base is welded whatever the option says
    welded = _run("dart", spec, profile, q0, urdf=_with_world_link(urdf), fixed_base=False)
    assert welded.info["config"]["root_joint"] == "WeldJoint" and np.array_equal(welded.q, ref.q)


@pytest.mark.parametrize("world_link", [False, True])
def test_urdf_with_or_without_world_link_gives_the_same_arm(world_link):
    spec, profile, q0 = _sine3r()
    urdf = (_with_world_link if world_link else _without_world_link)(to_urdf(spec))
    assert ('<link name="world"' in urdf) == world_link
    run = _run("dart", spec, profile, q0, urdf=urdf)
    assert run.info["config"]["root_joint"] == "WeldJoint"
    assert _err(run, _run("analytic-euler", spec, profile, q0)) <= TOL


def test_coulomb_friction_modes():
    spec, profile, q0 = _sine3r(get_preset("planar3r").with_links(friction=0.3))
    ref = _run("analytic-euler", spec, profile, q0)
    constraint = _run("dart", spec, profile, q0)
    sign = _run("dart", spec, profile, q0, coulomb_friction="sign")
    none = _run("dart", spec, profile, q0, coulomb_friction="none")
    assert _err(sign, ref) <= TOL  # f_c sign(q̇) applied explicitly: the analytic friction law
    # DART's constraint friction: stick-slip, close to but not f_c sign(q̇); measured 3.0e-3 rad (PyBullet 3.0e-3)
    assert 1e-5 < _err(constraint, ref) < 0.02
    assert _err(none, ref) > 0.1  # measured 0.50 rad
    assert constraint.info["config"]["dart_coulomb_friction"] == [0.3] * 3
    assert none.info["config"]["dart_coulomb_friction"] == [0.0] * 3
    assert "unsupported" in none.info["config"]["coulomb_friction_model"]
    assert "constraint" in constraint.info["config"]["coulomb_friction_model"]
    rk4 = _run("dart-rk4", spec, profile, q0)  # dart-rk4 uses f_c sign(q̇) (no constraint solver)
    assert rk4.info["config"]["coulomb_friction"] == "sign"
    assert _err(rk4, _run("analytic-rk4", spec, profile, q0)) <= TOL


def test_enforce_limits_knob():
    spec, profile, q0 = _sine3r()
    spec = spec.with_link(0, limits=(-1.5, -1.0))  # the free swing reaches q1 = -1.85
    free = _run("dart", spec, profile, q0)
    limited = _run("dart", spec, profile, q0, enforce_limits=True)
    assert _err(free, _run("analytic-euler", spec, profile, q0)) <= TOL  # limits off by default
    assert free.info["config"]["limits_enforced"] == [False] * 3
    assert limited.info["config"]["limits_enforced"] == [True] * 3
    assert np.min(free.q[:, 0]) < -1.8
    assert np.min(limited.q[:, 0]) >= -1.5 - 1e-6  # held at the lower limit
    assert _err(limited, free) > 0.1  # measured 0.72 rad


def test_loader_moves_the_initial_position_into_the_limits_and_the_adapter_does_not():
    spec = get_preset("planar2r")
    urdf = to_urdf(spec).replace('lower="-1000000.0" upper="1000000.0"', 'lower="0.5" upper="1.0"', 1)
    loader = dart.utils.DartLoader()
    options = loader.getOptions()
    options.mDefaultRootJointType = dart.utils.DartLoader.RootJointType.FIXED
    loader.setOptions(options)
    raw = loader.parseSkeletonString(urdf, dart.common.Uri(""))
    assert raw.getPositions()[0] == pytest.approx(0.75)  # DART's default: 0 outside [0.5, 1] -> the midpoint
    assert load_skeleton(urdf).getPositions().tolist() == [0.0, 0.0]
    with make_engine("dart", spec, DT, urdf=urdf) as engine:
        assert engine.state()[0].tolist() == [0.0, 0.0]
        engine.reset([1.7, -0.3], [0.1, 0.2])
        assert engine.state()[0].tolist() == [1.7, -0.3] and engine.state()[1].tolist() == [0.1, 0.2]
        engine.step([0.0, 0.0])
        assert engine.state()[0][0] > 1.0  # the (unenforced) limit does not hold it


def test_self_collision_knob():
    """Folded 3R in zero gravity: link 3 sweeps across link 1.  Collision shapes are removed by default."""
    spec = replace(get_preset("planar3r"), gravity=(0.0, 0.0, 0.0))
    profile, q0 = make_profile("constant", spec, value=[0.0, 0.0, -2.0]), np.array([0.0, 3.0, 0.3])
    urdf = _with_collision_geometry(to_urdf(spec))  # the generated URDF's cylinders (or its visuals, if it has none)
    ref = _run("analytic-euler", spec, profile, q0, 0.5)
    default = _run("dart", spec, profile, q0, 0.5, urdf=urdf)
    colliding = _run("dart", spec, profile, q0, 0.5, urdf=urdf, self_collision=True)
    assert _err(default, ref) <= TOL
    assert _err(colliding, ref) > 0.1  # measured 4.5 rad: link 3 bounces off link 1
    assert default.info["config"]["self_collision"] is False and "removed" in default.info["config"]["collision"]


def test_actuator_type_knob():
    spec, profile, q0 = _sine3r()
    ref = _run("analytic-euler", spec, profile, q0)
    default = _run("dart", spec, profile, q0)
    passive = _run("dart", spec, profile, q0, actuator_type="PASSIVE")
    assert default.info["config"]["actuator_types"] == ["FORCE"] * 3
    assert passive.info["config"]["actuator_types"] == ["PASSIVE"] * 3
    assert _err(default, ref) <= TOL
    # a PASSIVE joint ignores setForces: the arm swings freely
    assert _err(passive, _run("analytic-euler", spec, make_profile("zero", spec), q0)) <= TOL
    assert _err(passive, ref) > 0.1  # measured 0.48 rad


def test_engine_options_after_at_and_bad_values():
    spec, profile, q0 = _sine3r(get_preset("planar3r").with_links(damping=0.5))
    with make_engine("dart@implicit_damping=true", spec, DT) as engine:
        assert engine.config()["implicit_damping"] is True and engine.name == "dart@implicit_damping=true"
    for bad, word in [({"coulomb_friction": "viscous"}, "coulomb_friction"), ({"actuator_type": "MOTOR"}, "actuator"),
                      ({"integrator": "rk45"}, "integrator")]:
        with pytest.raises(EngineError, match=word):
            make_engine("dart", spec, DT, **bad)
    with pytest.raises(EngineError, match="constraint solver"):
        make_engine("dart-rk4", spec, DT, coulomb_friction="constraint")


def test_config_states_every_physics_setting():
    spec = get_preset("planar2r-pointmass").with_links(damping=0.1)
    for name in ("dart", "dart-rk4"):
        with make_engine(name, spec, 2e-3) as engine:
            cfg = engine.config()
        json.dumps(cfg, allow_nan=False)
        assert cfg["dt"] == 2e-3 and cfg["version"].startswith("6.") and cfg["engine"] == "dart"
        assert cfg["integrator"] == {"dart": "semi-implicit-euler", "dart-rk4": "rk4"}[name]
        assert len(cfg["inertia_substitutions"]) == 2 and cfg["joint_damping"] == [0.1, 0.1]
        assert cfg["gravity"] == [0.0, -9.81, 0.0] and cfg["armature"] == [0.0, 0.0]
        assert cfg["spring_stiffness"] == [0.0, 0.0] and cfg["root_joint"] == "WeldJoint"
        assert cfg["actuator_types"] == ["FORCE", "FORCE"] and cfg["limits_enforced"] == [False, False]
        assert cfg["masses"] == [1.0, 0.8] and cfg["com_offsets"] == [[1.0, 0.0, 0.0], [0.8, 0.0, 0.0]]


def test_loader_warnings_are_logged_not_printed(capfd, caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="crossdyn.engines.dart"):
        make_engine("dart", get_preset("planar2r"), DT).close()
    assert "zero mass" in caplog.text  # the fixed, massless base (by design)
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("name", ["dart", "dart-rk4"])
def test_computed_torque_tracks_a_quintic(name):
    from crossdyn.inputs.trajectories import quintic

    spec = get_preset("planar3r").with_links(damping=0.05)
    q0 = hanging_configuration(spec)
    tr = quintic([0.0, 0.4, 1.0], [q0, q0 + [0.4, 0.6, -0.5], q0 + [1.0, 0.3, 0.5]])
    run = _run(name, spec, make_profile("computed-torque", spec, trajectory=tr), q0)
    assert run.status == "ok", run.message
    assert np.max(np.abs(run.q - tr.evaluate(run.t)[0])) <= 1e-3  # as every other engine (tests/test_engines.py)


def test_not_installed_is_reported_with_the_available_engines(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "dartpy", None)  # as if the `engines` extra were not installed
    monkeypatch.delitem(sys.modules, "crossdyn.engines.dart.planar", raising=False)
    assert "dart" not in available_engines() and "mujoco" in available_engines()
    with pytest.raises(EngineError, match="not installed"):
        make_engine("dart", get_preset("planar2r"))
