"""Drake's adapter against the analytic model (an independent path), its integrators' orders, and every
Drake trap as a real knob (switching it back changes the result by the measured amount in the comments).

References: crossdyn's analytic model (closed form for 2R/3R, SymPy Lagrangian for 5R), its adaptive DOP853
reference, and other engines performing the same arithmetic (semi-implicit Euler: analytic-euler; Euler
with implicit damping: MuJoCo with ``eulerdamp``).
"""
import numpy as np
import pytest

pytest.importorskip("pydrake")

from crossdyn import analytic  # noqa: E402
from crossdyn.inputs.profiles import hanging_configuration, make_profile  # noqa: E402
from crossdyn.drive.runner import run_engine  # noqa: E402
from crossdyn.engines import EngineError, EngineUnsupported, available_engines, make_engine  # noqa: E402
from crossdyn.engines.drake.planar import ORDERS  # noqa: E402
from crossdyn.models import get_preset  # noqa: E402

from conftest import random_states  # noqa: E402

DT = 1e-3
TOL = 1e-9  # relative, as for the other engines: rounding is ~1e-14, a model error is far larger
VARIANTS = ["drake", "drake-rk2", "drake-rk3", "drake-rk4", "drake-rk5", "drake-euler", "drake-implicit",
            "drake-discrete"]
FOLDED = np.array([0.0, 2.97, 2.97])  # planar3r folded: link 3 lies across link 1


def _spec(arm, damping=0.0):
    spec = get_preset(arm)
    return spec.with_links(damping=damping) if damping else spec


def _sine(spec):
    n = spec.n
    return make_profile("sine", spec, amplitude=0.3 * spec.torque_scale() / n, frequency=1.5,
                        phase=np.arange(n, dtype=float))


def _run(name, spec, profile, q0, duration=1.0, dt=DT):
    with make_engine(name, spec, dt) as engine:
        run = run_engine(engine, profile, q0, np.zeros(spec.n), duration)
    assert run.status == "ok", run.message
    return run.q


def test_every_variant_is_registered_and_available():
    assert set(VARIANTS) <= set(available_engines())


# ------------------------------------------------------------------------------------------ queries
@pytest.mark.parametrize("damping", [0.0, 0.2])
@pytest.mark.parametrize("arm", ["planar2r", "planar3r-general", "planar2r-pointmass", "planar5r"])
def test_queries_agree_with_analytic(arm, damping):
    spec = _spec(arm, damping)
    n, scale = spec.n, spec.torque_scale()
    q, qd, qdd = random_states(n, 200, seed=21)
    tau = np.random.default_rng(22).uniform(-scale, scale, (200, n))
    with make_engine("drake-discrete", spec, DT) as engine:  # queries use the continuous plant for every variant
        ID = np.array([engine.inverse_dynamics(*x) for x in zip(q, qd, qdd)])
        M = np.array([engine.mass_matrix(x) for x in q])
        FD = np.array([engine.forward_dynamics(*x) for x in zip(q, qd, tau)])
        E = np.array([engine.energy(*x) for x in zip(q, qd)])
    # the engine is given the point-mass inertia floor (models/inertia.py): compare with that arm
    from dataclasses import replace

    from crossdyn.models import engine_inertias
    J, _ = engine_inertias(spec)
    given = replace(spec, links=tuple(replace(l, inertia=j) for l, j in zip(spec.links, J)))
    how = "auto" if n <= 3 else "rnea"  # closed form for 2R/3R; Newton–Euler (fast, no SymPy) beyond
    M_ref = analytic.mass_matrix(given, q, method=how)
    qdd_ref = analytic.forward_dynamics(given, q, qd, tau, method=how)
    assert np.max(np.abs(ID - analytic.inverse_dynamics(given, q, qd, qdd, method=how))) <= TOL * scale
    assert np.max(np.abs(M - M_ref)) <= TOL * np.max(np.abs(M_ref))
    resid = np.einsum("kij,kj->ki", M_ref, FD - qdd_ref)  # forward dynamics as a torque residual
    assert np.max(np.abs(resid)) <= TOL * scale
    T_ref, U_ref = 0.5 * np.einsum("ki,kij,kj->k", qd, M_ref, qd), analytic.potential_energy(given, q)
    e_scale = spec.energy_scale()
    assert np.max(np.abs(E[:, 0] - T_ref) / (e_scale + np.abs(T_ref))) <= TOL
    assert np.max(np.abs(E[:, 1] - U_ref)) <= TOL * e_scale


def test_queries_never_disturb_the_simulated_state():
    spec = get_preset("planar3r")
    q0, tau = hanging_configuration(spec) + 0.3, np.array([1.0, -0.5, 0.2])
    with make_engine("drake", spec, DT) as a, make_engine("drake", spec, DT) as b:
        for e in (a, b):
            e.reset(q0, np.zeros(3))
            for _ in range(10):
                e.step(tau)
        for x in zip(*random_states(3, 5, seed=3)):
            a.energy(x[0], x[1]), a.inverse_dynamics(*x), a.mass_matrix(x[0]), a.forward_dynamics(*x)
        for e in (a, b):
            for _ in range(10):
                e.step(tau)
        assert all(np.array_equal(u, v) for u, v in zip(a.state(), b.state()))


def test_reset_restarts_identically():
    spec = get_preset("planar3r")
    profile = _sine(spec)
    with make_engine("drake", spec, DT) as engine:
        q0 = hanging_configuration(spec) + 0.2
        first = run_engine(engine, profile, q0, np.zeros(3), 0.2).q
        second = run_engine(engine, profile, q0, np.zeros(3), 0.2).q
    assert np.array_equal(first, second)


# ------------------------------------------------------------------------------------------ trajectories
@pytest.mark.parametrize("damping", [0.0, 0.3])
def test_semi_implicit_euler_variants_equal_analytic_euler(damping):
    """drake-euler (continuous, semi_explicit_euler) and drake-discrete do the arithmetic of crossdyn's
    semi-implicit Euler (drake-discrete only without damping, see the damping knob): rounding apart."""
    spec = _spec("planar3r", damping)
    profile, q0 = _sine(spec), hanging_configuration(spec) + 0.2
    ref = _run("analytic-euler", spec, profile, q0)
    assert np.max(np.abs(_run("drake-euler", spec, profile, q0) - ref)) <= TOL  # measured 9e-15
    if not damping:
        assert np.max(np.abs(_run("drake-discrete", spec, profile, q0) - ref)) <= TOL  # measured 2.7e-14
    assert np.max(np.abs(ref - q0)) > 0.1  # the arm moves


@pytest.mark.parametrize("damping", [0.0, 0.3])
def test_drake_rk4_is_crossdyns_rk4_on_drakes_dynamics(damping):
    """drake-rk4 on a planar arm (as on a robot file): crossdyn's RK4 on the continuous plant's forward dynamics, the
    arithmetic of analytic-rk4 rounding apart; the run under step_applied's extra torque too."""
    spec = _spec("planar3r", damping)
    profile, q0 = _sine(spec), hanging_configuration(spec) + 0.2
    ref = _run("analytic-rk4", spec, profile, q0)
    assert np.max(np.abs(_run("drake-rk4", spec, profile, q0) - ref)) <= TOL
    assert np.max(np.abs(ref - q0)) > 0.1  # the arm moves
    with make_engine("drake-rk4", spec, DT) as drake, make_engine("analytic-rk4", spec, DT) as analytic:
        extra = np.array([0.5, -0.5, 0.2])  # planar3r has no effort limit: τ + extra is what the arm gets
        drake.reset(q0, np.zeros(3))
        analytic.reset(q0, np.zeros(3))
        for _ in range(100):
            drake.step_applied(np.ones(3), extra)
            analytic.step(np.ones(3) + extra)
        assert np.max(np.abs(drake.state()[0] - analytic.state()[0])) <= TOL
        assert "crossdyn's RK4" in drake.config()["drake_integrator"] and drake.config()["integrator"] == "rk4"


def test_error_controlled_drake_matches_the_reference():
    """``drake`` (RK3, accuracy 1e-10) against the analytic DOP853 reference (rtol = atol = 1e-12):
    measured 4.5e-11 rad over 1 s; RK3 at a fixed 1 ms step is 7.5e-7 rad, so the error control is real."""
    spec = get_preset("planar3r")
    profile, q0 = _sine(spec), hanging_configuration(spec) + 0.2
    ref = _run("analytic-reference", spec, profile, q0)
    assert np.max(np.abs(_run("drake", spec, profile, q0) - ref)) <= 1e-9
    assert np.max(np.abs(_run("drake-rk3", spec, profile, q0) - ref)) > 1e-9


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_error_controlled_drake_convergence_group():
    """``drake`` is not a default engine (slow): named, its convergence group says what an error-controlled
    integrator does, an error set by its accuracy at every dt (expected order 0, measured 3.7-4.0e-11 rad)."""
    from crossdyn.comparison.compare import compare

    s = compare("planar3r", duration=0.1, engines=("drake",), n_states=10).summary
    conv = s["engines"]["drake"]["convergence"]
    assert s["verdict"] == "PASS" and len(conv["max_abs_error_rad"]) == 4
    assert conv["expected_order"] == 0 and max(conv["max_abs_error_rad"]) < 1e-9
    assert not any(n.startswith("left out of the default engines") for n in s["notes"])  # named: nothing left out


@pytest.mark.parametrize("name, dts, slack", [
    ("drake-rk2", (4e-3, 2e-3), 0.1), ("drake-rk3", (4e-3, 2e-3), 0.1), ("drake-euler", (4e-3, 2e-3), 0.1),
    ("drake-implicit", (4e-3, 2e-3), 0.1), ("drake-discrete", (4e-3, 2e-3), 0.1), ("drake-rk4", (4e-3, 2e-3), 0.1),
    # RK5: measured orders 4.71, 4.88, 4.49 at 4/2, 2/1, 1/0.5 ms — higher-order terms still show at 2 ms and
    # at 0.5 ms the error (4.5e-14 rad) meets the reference's own (rtol = atol = 1e-12)
    ("drake-rk5", (2e-3, 1e-3), 0.3),
])
def test_integrator_convergence_order(name, dts, slack):
    """Error against the analytic DOP853 reference at dt and dt/2: log2 of the ratio is the order
    (measured 2.00, 3.01, 1.01, 1.02, 1.01 and 4.88)."""
    spec = get_preset("planar3r")
    profile, q0 = _sine(spec), hanging_configuration(spec) + 0.2
    errs = []
    for dt in dts:
        ref = _run("analytic-reference", spec, profile, q0, dt=dt)
        errs.append(np.max(np.abs(_run(name, spec, profile, q0, dt=dt) - ref)))
    order = np.log2(errs[0] / errs[1])
    with make_engine(name, spec, DT) as engine:
        expected = ORDERS[engine.integrator]
    assert abs(order - expected) <= slack, (errs, order)


# ------------------------------------------------------------------------------------------ knobs
def _sine3r():
    spec = get_preset("planar3r")
    return spec, make_profile("sine", spec, amplitude=[3.0, 1.0, 0.3], frequency=1.5, phase=[0.0, 1.0, 2.0]), \
        hanging_configuration(spec) + 0.2


def test_time_step_knob_drakes_default_discrete_plant_changes_the_result():
    spec, profile, q0 = _sine3r()
    dt = 2e-3
    with make_engine("drake@time_step=default", spec, dt) as engine:
        assert engine.config()["time_step"] == 1e-3 and engine.config()["error_control"] is False
    with make_engine("drake", spec, dt) as engine:
        assert engine.config()["time_step"] == 0.0 and engine.config()["target_accuracy"] == 1e-10
    diff = np.max(np.abs(_run("drake@time_step=default", spec, profile, q0, dt=dt) - _run("drake", spec, profile, q0, dt=dt)))
    assert diff > 1e-3  # measured 1.8e-3 rad in 1 s: a 1-ms semi-implicit Euler plant, not RK3


def test_gravity_knob_drakes_default_is_along_z():
    spec, profile, q0 = _sine3r()
    with make_engine("drake@drake_gravity=true", spec, DT) as engine:
        assert engine.config()["gravity"] == [0.0, 0.0, -9.81]
        # gravity along the joint axes does no work: G = 0, only M q̈ + C q̇ remains
        q = hanging_configuration(spec) + 0.4
        assert np.allclose(engine.inverse_dynamics(q, np.zeros(3), np.zeros(3)), 0.0, atol=1e-12)
    with make_engine("drake", spec, DT) as engine:
        assert engine.config()["gravity"] == [0.0, -9.81, 0.0]
    diff = np.max(np.abs(_run("drake@drake_gravity=true", spec, profile, q0) - _run("drake", spec, profile, q0)))
    assert diff > 0.1  # measured 1.1 rad in 1 s


def test_world_link_knob_base_floats_without_it():
    spec = get_preset("planar3r")
    with pytest.raises(EngineError, match="not welded"):
        make_engine("drake@world_link=false", spec, DT)
    with make_engine("drake", spec, DT) as engine:
        assert engine.plant.num_positions() == 3 and engine.config()["base"].startswith("welded")


def test_collision_geometry_knob_folded_arm_collides_with_itself():
    spec = get_preset("planar3r")
    with make_engine("drake", spec, DT) as engine:
        assert np.array_equal(engine.contact_forces(FOLDED), np.zeros(3))
        qdd = engine.forward_dynamics(FOLDED, np.zeros(3), np.zeros(3))
    assert np.max(np.abs(qdd - analytic.forward_dynamics(spec, FOLDED, np.zeros(3), np.zeros(3)))) <= 1e-9 * np.max(np.abs(qdd))
    for name in ("drake@collision_geometry=true", "drake-discrete@collision_geometry=true"):
        with make_engine(name, spec, DT) as engine:
            assert np.max(np.abs(engine.contact_forces(FOLDED))) > 1e3  # measured 2.3e4 N m
    # and in simulation (discrete plant, SAP contact): released folded, the colliding arm moves differently
    profile = make_profile("zero", spec)
    free = _run("drake-discrete", spec, profile, FOLDED, duration=0.05)
    assert np.max(np.abs(free - _run("analytic-euler", spec, profile, FOLDED, duration=0.05))) <= TOL
    with make_engine("drake-discrete@collision_geometry=true", spec, DT) as engine:
        touching = run_engine(engine, profile, FOLDED, np.zeros(3), 0.05)
    assert touching.status != "ok" or np.max(np.abs(touching.q - free)) > 1e-3  # measured 6.3e-3 rad in 0.05 s


def test_damping_is_parsed_and_the_discrete_solver_treats_it_implicitly():
    spec, profile, q0 = _sine3r()
    spec = spec.with_links(damping=0.5)
    with make_engine("drake-discrete", spec, DT) as engine:
        cfg = engine.config()
        assert cfg["joint_damping_read"] == [0.5, 0.5, 0.5] and cfg["implicit_damping"] is True
    discrete = _run("drake-discrete", spec, profile, q0)
    euler = _run("analytic-euler", spec, profile, q0)
    # implicit damping is MuJoCo's eulerdamp arithmetic: the two agree to rounding
    assert np.max(np.abs(discrete - _run("mujoco@eulerdamp=true", spec, profile, q0))) <= TOL  # measured 2.8e-16
    assert np.max(np.abs(discrete - euler)) > 1e-5  # measured 8.6e-4 rad in 1 s (as MuJoCo's eulerdamp)
    explicit = _run("drake-discrete@explicit_damping=true", spec, profile, q0)
    assert np.max(np.abs(explicit - euler)) <= TOL  # measured 2e-16: plain semi-implicit Euler


def test_coulomb_friction_is_unsupported_not_dropped():
    spec = get_preset("planar2r").with_links(friction=0.1)
    with pytest.raises(EngineUnsupported, match="unsupported"):
        make_engine("drake", spec, DT)
    with make_engine("drake", get_preset("planar2r"), DT) as engine:
        assert engine.config()["friction_model"].startswith("unsupported")


def test_joint_limits_are_stated():
    with make_engine("drake", get_preset("planar2r"), DT) as engine:
        assert "ignores joint limits in continuous plants" in engine.config()["joint_limits"]


def test_accuracy_knob_changes_the_error():
    spec = get_preset("planar3r")
    profile, q0 = _sine(spec), hanging_configuration(spec) + 0.2
    ref = _run("analytic-reference", spec, profile, q0, duration=0.5)
    loose = np.max(np.abs(_run("drake@accuracy=1e-4", spec, profile, q0, duration=0.5) - ref))
    tight = np.max(np.abs(_run("drake", spec, profile, q0, duration=0.5) - ref))
    assert tight < 1e-9 < loose  # measured 1.5e-11 vs 2.5e-7 rad


def test_bad_options_are_engine_errors():
    spec = get_preset("planar2r")
    for bad in ("drake@accuracy=2", "drake@time_step=-1", "drake@time_step=fast",
                "drake-rk4@time_step=0.001", "drake-rk4@explicit_damping=true"):  # drake-rk4 steps the continuous plant
        with pytest.raises(EngineError):
            make_engine(bad, spec, DT)


@pytest.mark.slow  # ~10-25 s: moved to the slow tier to keep make test within its 7-min budget
def test_compare_reports_drake_unsupported_for_native_coulomb_friction(tmp_path):
    """With the engines' own friction (--native-friction), a spec with f_c > 0 makes Drake 'unsupported' with the
    reason (status, notes), never a silent run without friction; by default (applied mode: crossdyn applies the
    friction law to every engine, each built with f_c = 0) Drake runs and is judged like the others."""
    import json

    from crossdyn.cli import main

    spec_file = tmp_path / "arm.toml"
    spec_file.write_text('name = "fric"\n[[links]]\nlength = 1.0\nmass = 1.0\ncom = 0.5\ninertia = 0.0833\n'
                         'friction = 0.05\n')
    args = ["compare", str(spec_file), "--engines", "mujoco-rk4,drake", "--duration", "0.2", "--states", "50",
            "--quiet", "--no-plots"]
    code = main(args + ["--native-friction", "--out", str(tmp_path / "native")])
    summary = json.loads((tmp_path / "native" / "summary.json").read_text())
    drake = summary["engines"]["drake"]
    assert drake["status"] == "unsupported" and "Coulomb joint friction" in drake["reason"]
    assert any(note.startswith("drake was not compared") for note in summary["notes"])
    assert not any(f.startswith("drake") for f in summary["failures"])
    assert summary["engines"]["mujoco-rk4"]["status"] == "ok" and code in (0, 1)

    assert main(args + ["--out", str(tmp_path / "applied")]) == 0
    summary = json.loads((tmp_path / "applied" / "summary.json").read_text())
    assert summary["engines"]["drake"]["status"] == "ok" and summary["verdict"] == "PASS"


def test_continuous_plants_ignore_joint_limits_discrete_plants_enforce_them():
    """What config()["joint_limits"] states, shown with Drake itself on the generated URDF given limits of
    ±0.5 rad: a 1R released horizontal falls through the lower limit in a continuous plant (measured −3.13 rad
    after 1 s) and stops at it in a discrete one (−0.50000001)."""
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.analysis import Simulator
    from pydrake.systems.framework import DiagramBuilder

    from crossdyn.models import to_urdf
    from crossdyn.models.presets import planarNr

    urdf = to_urdf(planarNr(1))
    limited = urdf.replace('lower="-1000000.0" upper="1000000.0"', 'lower="-0.5" upper="0.5"')
    assert limited != urdf
    final = {}
    for time_step in (0.0, 1e-3):
        builder = DiagramBuilder()
        plant, _ = AddMultibodyPlantSceneGraph(builder, time_step)
        Parser(plant).AddModelsFromString(limited, "urdf")
        plant.Finalize()
        plant.mutable_gravity_field().set_gravity_vector([0.0, -9.81, 0.0])
        simulator = Simulator(builder.Build())
        context = plant.GetMyContextFromRoot(simulator.get_mutable_context())
        plant.SetPositions(context, [0.0])
        simulator.AdvanceTo(1.0)
        final[time_step] = plant.GetPositions(context)[0]
    assert final[0.0] < -1.0  # through the limit
    assert final[1e-3] == pytest.approx(-0.5, abs=1e-3)  # held at it
