"""``compare`` on a robot file (:mod:`crossdyn.robotcompare`), on real files and real engines.

One comparison of example-robot-data's UR5 URDF is shared by the tests of this module (one reference run, four
engines: Pinocchio, MuJoCo, PyBullet, and PyBullet with its link damping switched back on): every engine that reads
the file as it is written PASSes every group with its checks counted; the seeded fault FAILs, named.  The figures
measured when this was written (0.1 s, dt = 1 ms): Pinocchio and MuJoCo 6e-13 rad from the reference (RK4, against
crossdyn's model stepped by RK4: ≤ 1e-15 rad), PyBullet 1.1e-16 rad from crossdyn's model stepped by semi-implicit
Euler; PyBullet with link_damping=0.04: 6.0e-4 rad from it.
"""
from __future__ import annotations

import numpy as np
import pytest

from robot_files import erd_ur5_urdf

pytest.importorskip("pinocchio")
pytest.importorskip("mujoco")
pytest.importorskip("pybullet")

DURATION, DT, STATES = 0.05, 1e-3, 20
FAULT = "pybullet@link_damping=0.04"
ENGINES = ("pinocchio", "mujoco-rk4", "pybullet", "mujoco", FAULT)  # mujoco: Euler, as on a planar arm
GROUPS = ("trajectory", "inverse_dynamics", "forward_dynamics", "mass_matrix", "energy")


@pytest.fixture(scope="module")
def ur5():
    from crossdyn.robotcompare import RobotCompareOptions, compare_robot

    return compare_robot(erd_ur5_urdf(), RobotCompareOptions(engines=ENGINES, duration=DURATION, dt=DT,
                                                            n_states=STATES))


@pytest.mark.parametrize("engine", ENGINES[:4])
def test_every_engine_reading_the_file_as_written_passes_each_group(ur5, engine):
    entry = ur5.summary["engines"][engine]
    assert entry["status"] == "ok", entry["reason"]
    steps = round(DURATION / DT)
    for group in GROUPS:
        assert entry[group]["verdict"] == "PASS", (group, entry[group])
    assert entry["checks"]["trajectory"] == steps + 1  # every sample compared with the reference
    assert entry["checks"]["inverse_dynamics"] == entry["checks"]["mass_matrix"] == STATES


def test_the_same_scheme_isolates_the_model(ur5):
    """Each engine against crossdyn's model stepped by the engine's own scheme: rounding, not integration error."""
    engines = ur5.summary["engines"]
    assert engines["pybullet"]["trajectory"]["same_integrator"] == "semi-implicit-euler"
    assert engines["mujoco-rk4"]["trajectory"]["same_integrator"] == "rk4"
    assert engines["mujoco"]["trajectory"]["same_integrator"] == "semi-implicit-euler"
    for name in ENGINES[:4]:
        assert engines[name]["trajectory"]["same_integrator_error_rad"] < 1e-12, name
    # the first-order engine's error against the DOP853 reference is its integration error: far above rounding
    assert engines["pybullet"]["trajectory"]["max_abs_error_rad"] > 1e-6


def test_the_seeded_fault_fails_naming_the_option(ur5):
    entry = ur5.summary["engines"][FAULT]
    assert entry["trajectory"]["verdict"] == "FAIL"
    assert entry["trajectory"]["same_integrator_error_rad"] > 1e-5  # measured 6.0e-4 rad
    assert entry["config"]["link_damping"] == 0.04  # its config says what it ran with
    assert entry["mass_matrix"]["verdict"] == "PASS"  # link damping is no inertia
    assert ur5.summary["verdict"] == "FAIL"
    lines = [f for f in ur5.summary["failures"] if f.startswith(FAULT)]
    assert lines and "link_damping=0.04" in lines[0] and "semi-implicit-euler" in lines[0]
    assert not [f for f in ur5.summary["failures"] if not f.startswith(FAULT)]


def test_every_engine_runs_the_same_law_on_its_own_state(ur5):
    """Closed loop (issue 38): τ_k = law(k, q_k, q̇_k), the reference's tracking law, on each engine's own state
    and held over each step; the reference's torques are ``job.taus``.  An RK4 engine that agrees with the model
    applies the reference's torques to within the gains × its error (1e-12 rad: ~1e-9 N m)."""
    taus = ur5.job.taus
    assert taus.shape == (round(DURATION / DT), 6) and np.all(np.isfinite(taus))
    for name in ENGINES:
        run = ur5.runs[name].driven
        for k in (0, 7, len(taus) - 1):
            np.testing.assert_allclose(run.tau[k], ur5.job.law(k, run.q[k], run.qd[k]), rtol=1e-12, atol=1e-12)
    assert np.max(np.abs(ur5.runs["mujoco-rk4"].driven.tau - taus)) < 1e-6
    assert np.max(np.abs(ur5.runs[FAULT].driven.tau - taus)) > 1e-3  # its own state: its own torques


def test_engine_settings_are_listed(ur5):
    for name in ENGINES:
        config = ur5.summary["engines"][name]["config"]
        assert config["file"] == str(erd_ur5_urdf()) and config["integrator"], name
    assert ur5.summary["engines"]["pybullet"]["config"]["link_damping"] == 0.0  # neutralised (PyBullet's: 0.04)


def test_reference_stays_inside_the_limits_and_near_the_motion(ur5):
    tracking = ur5.summary["reference"]["tracking"]
    assert ur5.summary["reference"]["status"] == "ok"
    assert tracking["within_limits"] is True
    assert tracking["max_abs_error_rad"] < 0.05  # measured 3.6e-4 rad over 0.2 s


def test_the_multisine_is_inside_the_limits_and_its_derivatives_are_right():
    from crossdyn.robotcompare import motion
    from crossdyn.robots import read_robot

    model = read_robot(erd_ur5_urdf())
    desired = motion.multisine_motion(model, seed=3)
    t = np.linspace(0, 20, 20001)
    q, qd, qdd = desired.at(t)
    assert np.all(q > model.lower()) and np.all(q < model.upper())
    assert np.all(np.abs(q - motion.pose(model)) <= motion.amplitudes(model) + 1e-12)
    h = t[1] - t[0]
    np.testing.assert_allclose(np.gradient(q, h, axis=0)[1:-1], qd[1:-1], atol=1e-4)  # O(h²): 6e-6 here
    np.testing.assert_allclose(np.gradient(qd, h, axis=0)[1:-1], qdd[1:-1], atol=1e-3)


def test_energy_scale_is_the_sum_of_weights_times_distances():
    from crossdyn.robotcompare.motion import energy_scale
    from crossdyn.robots import read_robot
    from crossdyn.spatial import com_positions

    model = read_robot(erd_ur5_urdf())
    com = np.asarray(com_positions(model, np.zeros(model.n)))  # crossdyn.spatial's kinematics: another path
    expected = sum(b.inertial.mass * np.linalg.norm(model.gravity) * np.linalg.norm(c) for b, c in zip(model.bodies, com, strict=True))
    assert energy_scale(model) == pytest.approx(expected, rel=1e-12)


@pytest.mark.slow
def test_every_installed_engine_passes_on_the_ur5():
    """The default engine set (every installed engine that reads URDF: Drake and DART too, PyBullet without its
    inertia flag left out and noted): PASS, every engine measured."""
    from crossdyn.engines.files import FILE_ENGINES, file_engine_status
    from crossdyn.robotcompare import RobotCompareOptions, compare_robot
    from crossdyn.robots import Format

    result = compare_robot(erd_ur5_urdf(), RobotCompareOptions(duration=DURATION, dt=DT, n_states=STATES))
    installed = [n for n in FILE_ENGINES if file_engine_status(n, Format.URDF) is None and n != "pybullet-noflag"]
    assert sorted(result.summary["engines"]) == sorted(installed) and len(installed) >= 3
    assert result.summary["verdict"] == "PASS", result.summary["failures"] + result.summary["inconclusive"]
    assert any(n.startswith("left out pybullet-noflag") for n in result.summary["notes"])


def test_a_torque_above_the_files_effort_limit_is_noted():
    from crossdyn.robotcompare.compare import effort_lines
    from crossdyn.robots import read_robot

    model = read_robot(erd_ur5_urdf())
    efforts = np.array([j.effort for j in model.joints], float)
    assert not effort_lines(model, 0.9 * efforts[None, :])
    over = 0.9 * efforts
    over[2] = 1.5 * efforts[2]
    (line,) = effort_lines(model, np.stack([0.5 * efforts, over]))
    assert model.joints[2].name in line and f"{efforts[2]:g}" in line


def test_a_dt2_rerun_that_repeats_the_run_bit_for_bit_estimates_nothing():
    """An engine whose step ignores dt (drake@native_step=true@time_step=0.001: its discrete plant keeps 1 ms) gives a
    dt/2 rerun equal to the run: a zero Richardson estimate would make a 1e-9 rad tolerance and a false FAIL (measured:
    2.6e-4 rad "> 1e-9"); it is turned into a failed rerun, so the group says INCONCLUSIVE with the reason."""
    from crossdyn.analytic.integrators import Trajectory
    from crossdyn.robotcompare.measure import _not_refined

    t = np.arange(4) * 1e-3
    q = np.linspace(0, 1, 8).reshape(4, 2)
    driven = Trajectory(t, q, q, np.zeros((3, 2)), "x", 1e-3)
    repeated = Trajectory(np.arange(7) * 5e-4, np.repeat(q, 2, axis=0)[:7], np.repeat(q, 2, axis=0)[:7],
                          np.zeros((6, 2)), "x", 5e-4)
    judged = _not_refined(driven, repeated)
    assert judged.status == "failed" and "does not follow dt" in judged.message
    refined = Trajectory(repeated.t, repeated.q + 1e-12, repeated.qd, repeated.tau, "x", 5e-4)
    assert _not_refined(driven, refined) is refined
