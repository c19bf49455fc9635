"""The command line as a new user meets it: `info` poses from the gravity vector, profile parameters as
NAME@key=value with meaningful listed defaults, --q0/--qd0, trajectory files for the closed-loop profiles,
CSV conveniences.  (Bad inputs of all of these: tests/test_bad_input.py.)"""
import json

import numpy as np
import pytest

from crossdyn import analytic
from crossdyn.analytic.kinematics import end_effector
from crossdyn.cli import main
from crossdyn.cli.info import describe, gravity_poses
from crossdyn.inputs.profile_options import format_profile_list, parse_profile
from crossdyn.inputs.profiles import (
    PROFILE_PARAMS, ChirpProfile, CSVProfile, SineProfile, joint_gravity_scale, make_profile, profile_names,
)
from crossdyn.inputs.trajectory_file import load_trajectory
from crossdyn.models import get_preset

SPEC2, SPEC3 = get_preset("planar2r"), get_preset("planar3r-general")
T = np.arange(0, 2.0, 1e-3)


# ------------------------------------------------------------------------------------------ 1. info poses
@pytest.mark.parametrize("gravity", [(0.0, -9.81, 0.0), (9.81, 0.0, 0.0), (3.0, -4.0, 0.0), (-6.0, 8.0, 0.0)],
                         ids=["minus-y", "plus-x", "oblique", "oblique-up"])
@pytest.mark.parametrize("arm", ["planar2r", "planar3r-general"])
def test_info_poses_follow_the_gravity_vector(arm, gravity):
    from dataclasses import replace

    spec = replace(get_preset(arm), gravity=gravity)
    hanging, horizontal = gravity_poses(spec)
    scale = spec.torque_scale()
    # hanging: an equilibrium (G = 0) and a minimum of U (every small perturbation raises U)
    assert np.max(np.abs(analytic.gravity(spec, hanging))) < 1e-12 * scale
    rng = np.random.default_rng(1)
    dq = rng.normal(size=(200, spec.n)) * 0.05
    U0 = analytic.potential_energy(spec, hanging[None])[0]
    assert np.all(analytic.potential_energy(spec, hanging + dq) > U0)
    # horizontal: every link perpendicular to g, so each joint feels its largest gravity torque
    g_h = analytic.gravity(spec, horizontal)
    g_abs = np.hypot(gravity[0], gravity[1])
    assert np.allclose(np.abs(g_h), joint_gravity_scale(spec) * g_abs / max(g_abs, 9.81), rtol=1e-12)
    text = describe(spec)
    assert "G(horizontal, q = [" in text and "G(hanging, q = [" in text


def test_info_with_gravity_along_plus_x_calls_q0_hanging(tmp_path, capsys):
    path = tmp_path / "gx.toml"
    path.write_text('name = "gx"\ngravity = [9.81, 0.0, 0.0]\n[[links]]\nlength = 1.0\nmass = 1.0\ncom = 0.5\n'
                    "inertia = 0.08\n[[links]]\nlength = 0.8\nmass = 0.8\ncom = 0.4\ninertia = 0.04\n")
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "G(hanging, q = [0, 0])" in out and "G(horizontal, q = [pi/2, 0])" in out
    assert main(["info", "planar2r"]) == 0  # default gravity: as before, q = 0 is horizontal
    out = capsys.readouterr().out
    assert "G(horizontal, q = [0, 0])" in out and "G(hanging, q = [-pi/2, 0])" in out


def test_info_without_gravity_says_so(tmp_path):
    from dataclasses import replace

    assert "no gravity" in describe(replace(SPEC2, gravity=(0.0, 0.0, 0.0)))


# ------------------------------------------------------------------------------------------ 2. profile options
def test_profile_options_build_the_same_profile_as_python():
    p = parse_profile("sine@amplitude=1,0.5@frequency=0.5@phase=0.3", SPEC2)
    ref = SineProfile(2, amplitude=[1.0, 0.5], frequency=0.5, phase=0.3)
    assert np.array_equal(p.sample(T), ref.sample(T))
    p = parse_profile("chirp@amplitude=2@f0=0.2@f1=3@duration=1.5", SPEC2)
    assert np.array_equal(p.sample(T), ChirpProfile(2, 2.0, 0.2, 3.0, 1.5).sample(T))
    p = parse_profile("multisine@harmonics=1,3@base_frequency=0.25", SPEC2)
    assert p.harmonics.tolist() == [1, 3] and p.base_frequency == 0.25


def test_every_profile_default_is_meaningful_and_listed():
    listing = format_profile_list()
    for name in profile_names():
        assert f"\n{name}:" in listing
        for param in PROFILE_PARAMS[name]:
            assert f"    {param.key}" in listing and f"default {param.default}" in listing
            if param.unit != "-":
                assert f"{param.key} [{param.unit}]" in listing
    # the torque scale the defaults use is each joint's largest gravity torque, computed independently as G at
    # the horizontal pose (every link perpendicular to g)
    _, horizontal = gravity_poses(SPEC2)
    assert np.allclose(joint_gravity_scale(SPEC2), np.abs(analytic.gravity(SPEC2, horizontal)), rtol=1e-12)
    tau = make_profile("constant", SPEC2).sample(T[:1])[0]
    assert np.allclose(tau, 0.2 * joint_gravity_scale(SPEC2)) and np.all(tau > 0)
    for name in ("constant", "step", "sine", "chirp", "multisine", "multisine-motion"):
        assert np.max(np.abs(make_profile(name, SPEC2).sample(T))) > 0.05 * SPEC2.torque_scale() * 0.2, name


def test_constant_default_moves_the_arm_without_flipping_it(tmp_path):
    """--profile constant moves the arm (it used to apply zero torque) to a new swing about a tilted pose."""
    out = tmp_path / "c"
    assert main(["compare", "planar2r", "--profile", "constant", "--engines", "mujoco-rk4", "--duration", "2",
                 "--states", "10", "--jobs", "1", "--no-plots", "--quiet", "--out", str(out)]) in (0, 1)
    s = json.loads((out / "summary.json").read_text())
    assert s["profile"]["value"] == pytest.approx((0.2 * joint_gravity_scale(SPEC2)).tolist())
    import pandas as pd

    df = pd.read_csv(out / "timeseries.csv")
    q = df[(df.engine == "mujoco-rk4") & (df.run == "driven")][["q1", "q2"]].to_numpy()
    moved = np.max(np.abs(q - q[0]))
    assert 0.1 < moved < np.pi, moved


def test_q0_and_qd0_set_the_start(tmp_path):
    out = tmp_path / "q"
    assert main(["compare", "planar2r", "--profile", "zero", "--q0", "-1.2,0.3", "--qd0", "0.5,-0.5",
                 "--engines", "mujoco-rk4", "--duration", "0.1", "--states", "10", "--jobs", "1", "--no-plots",
                 "--quiet", "--out", str(out)]) in (0, 1)
    s = json.loads((out / "summary.json").read_text())
    assert s["start"] == {"q0": [-1.2, 0.3], "qd0": [0.5, -0.5]}


# ------------------------------------------------------------------------------------------ 3. trajectory files
JOINT_TOML = """interpolation = "cubic"
[[points]]
t = 0.0
q = [-1.2, 0.4]
[[points]]
t = 0.5
q = [-1.0, 0.6]
[[points]]
t = 1.0
q = [-0.9, 0.2]
"""


def test_joint_trajectory_file_passes_through_its_points(tmp_path):
    path = tmp_path / "move.toml"
    path.write_text(JOINT_TOML)
    traj = load_trajectory(path, SPEC2)
    assert traj.degree == 3
    for t, q in [(0.0, [-1.2, 0.4]), (0.5, [-1.0, 0.6]), (1.0, [-0.9, 0.2])]:
        assert np.allclose(traj(t)[0], q, atol=1e-14)
    assert np.allclose(traj(0.0)[1], 0.0) and np.allclose(traj(1.0)[1], 0.0)  # rest to rest


@pytest.mark.parametrize("spec,points", [
    (SPEC2, [((0.3, -1.5), None), ((1.0, -0.8), None), ((1.2, 0.3), None)]),
    (SPEC3, [((0.6, -1.2), -1.2), ((1.1, -0.6), -0.6), ((0.8, 0.5), 0.3)]),
], ids=["2R", "3R"])
def test_cartesian_trajectory_file_reaches_each_point(tmp_path, spec, points):
    text = 'interpolation = "quintic"\n'
    for k, (xy, phi) in enumerate(points):
        text += f"[[points]]\nt = {0.6 * k}\nxy = [{xy[0]}, {xy[1]}]\n" + (f"phi = {phi}\n" if phi is not None else "")
    path = tmp_path / "cart.toml"
    path.write_text(text)
    traj = load_trajectory(path, spec)
    for k, (xy, phi) in enumerate(points):
        q = traj(0.6 * k)[0]
        assert np.allclose(end_effector(spec.params(), q[None])[0], xy, atol=1e-12)  # forward kinematics
        if phi is not None:
            assert np.isclose(np.angle(np.exp(1j * (q.sum() - phi))), 0.0, atol=1e-12)
    assert traj.params()["source"]["space"] == "cartesian"


@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_computed_torque_from_a_file_starts_on_its_first_point_and_tracks(tmp_path):
    path = tmp_path / "move.toml"
    path.write_text(JOINT_TOML)
    out = tmp_path / "ct"
    assert main(["compare", "planar2r", "--profile", f"computed-torque@trajectory={path}@kp=900@kd=60",
                 "--engines", "mujoco-rk4,pinocchio", "--duration", "1.2", "--states", "10", "--jobs", "1",
                 "--no-plots", "--quiet", "--out", str(out)]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["start"]["q0"] == pytest.approx([-1.2, 0.4], abs=1e-15) and s["start"]["qd0"] == pytest.approx([0, 0])
    assert s["profile"]["kp"] == [900.0, 900.0] and s["profile"]["trajectory"]["source"]["file"] == str(path)
    for e in s["engines"].values():
        # RK4 with the torque held over each 1-ms step: the loop's tracking error stays small (measured 9.7e-5)
        assert e["tracking"]["max_abs_error_rad"] < 1e-3
    # with --q0 the run starts there, off the trajectory, and the controller pulls it on
    assert main(["compare", "planar2r", "--profile", f"pd-gravity@trajectory={path}", "--q0", "-1.0,0.0",
                 "--engines", "mujoco-rk4", "--duration", "0.2", "--states", "10", "--jobs", "1", "--no-plots",
                 "--quiet", "--out", str(out)]) in (0, 1)
    s = json.loads((out / "summary.json").read_text())
    assert s["start"]["q0"] == [-1.0, 0.0] and s["engines"]["mujoco-rk4"]["tracking"]["max_abs_error_rad"] >= 0.39


def test_computed_torque_from_options_alone():
    p = parse_profile("computed-torque@to=-1,0.5@time=1.5@kind=cubic", SPEC2, q0=(-1.5, 0.0))
    assert np.allclose(p.trajectory(0.0)[0], [-1.5, 0.0]) and np.allclose(p.trajectory(1.5)[0], [-1.0, 0.5])
    assert p.trajectory.degree == 3
    p = parse_profile("computed-torque", SPEC2)  # default move: hanging -> +0.5 rad, quintic, 2 s
    assert np.allclose(p.trajectory(0.0)[0], [-np.pi / 2, 0.0]) and np.allclose(p.trajectory(2.0)[0],
                                                                                  [-np.pi / 2 + 0.5, 0.5])


# ------------------------------------------------------------------------------------------ 16. CSV
def test_csv_header_t_is_accepted_for_time(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("time,tau1,tau2\n0,1,2\n1,3,4\n")
    b.write_text("t,tau1,tau2\n0,1,2\n1,3,4\n")
    assert np.array_equal(CSVProfile(2, a).sample(T[:1000]), CSVProfile(2, b).sample(T[:1000]))


def test_csv_profile_takes_its_interpolation_after_at(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("t,tau1,tau2\n0,1,2\n1,3,4\n")
    p = parse_profile(f"{a}@interpolation=zoh", SPEC2)
    assert np.array_equal(p.sample(T[:1000]), CSVProfile(2, a, "zoh").sample(T[:1000]))
    assert np.all(p.sample(T[:1000]) == [1.0, 2.0])  # held, not interpolated


def test_report_states_the_open_loop_profile_parameters():
    from crossdyn.reporting import profile_parameters

    text = profile_parameters(parse_profile("constant", SPEC2).params())
    expected = 0.2 * joint_gravity_scale(SPEC2)
    assert text == f" (value = [{expected[0]:.4g}, {expected[1]:.4g}] N m)"
    assert "frequency = [0.5, 0.5] Hz" in profile_parameters(parse_profile("sine@frequency=0.5", SPEC2).params())


@pytest.mark.parametrize("option, words", [
    ("sine@frequency=fast", ["sine", "frequency", "fast"]),
    ("sine@freq=1", ["no key 'freq'", "valid keys"]),
    ("drop", ["nothing below"]),
])
def test_a_bad_profile_option_exits_2_with_a_message_and_no_traceback(tmp_path, capsys, option, words):
    """ProfileError is an InputError: the command line turns it into exit 2 and one message, from wherever it comes."""
    code = main(["compare", "planar2r", "--profile", option, "--engines", "analytic", "--duration", "0.1",
                 "--no-plots", "--quiet", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("crossdyn: error:") and "Traceback" not in err
    assert all(w in err for w in words), err


def test_a_profile_error_escaping_the_option_check_still_exits_2(monkeypatch, capsys):
    """Not only --profile's own check: any ProfileError reaching the command line is exit 2 with its message."""
    import argparse

    import crossdyn.cli as cli
    from crossdyn.inputs.profiles import ProfileError

    def boom(args):
        raise ProfileError("profile 'x': bad")

    class Parser:
        def parse_args(self, argv):
            return argparse.Namespace(func=boom, debug=False)

    monkeypatch.setattr(cli, "build_parser", Parser)
    assert main(["compare", "planar2r"]) == 2
    assert capsys.readouterr().err.strip() == "crossdyn: error: profile 'x': bad"
