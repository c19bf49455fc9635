"""Start states are valid or refused (issue 23, case 2: a floor arm started hanging 0.2–0.3 m inside its floor
passed with 27 rad errors).  Arms are TOML files written here, run as a user would (``crossdyn compare``)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from crossdyn.cli import main

FLOOR_ARM = """\
name = "floor2r"
gravity = [0.0, -9.81, 0.0]

[[links]]
length = 1.0
mass = 1.0
com = 0.5
inertia = 0.0833

[[links]]
length = 0.8
mass = 0.8
com = 0.4
inertia = 0.0427

[contact]
radius = 0.02
stiffness = 2.0e4
damping = 50.0

[[obstacles]]
point = [0.0, -1.5, 0.0]
normal = [0.0, 1.0, 0.0]
"""

LIMITS_ARM = """\
name = "limits2r"
gravity = [0.0, -9.81, 0.0]

[[links]]
length = 1.0
mass = 1.0
com = 0.5
inertia = 0.0833
limits = [-2.3, -0.85]
limit_stiffness = 2000.0
limit_damping = 5.0

[[links]]
length = 1.0
mass = 1.0
com = 0.5
inertia = 0.0833
"""

BASE_INSIDE = FLOOR_ARM.replace("point = [0.0, -1.5, 0.0]", "point = [0.0, 0.3, 0.0]")


def _arm(tmp_path, text, name="arm.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _tip_penetration(q, lengths=(1.0, 0.8), floor_y=-1.5, radius=0.02):
    """The tip sphere's depth below the floor (m; > 0 inside), written out here: y_tip = Σ L_k sin θ_k."""
    th = np.cumsum(q)
    return radius - (float(np.dot(lengths, np.sin(th))) - floor_y)


def test_floor_arm_default_profile_starts_clear_of_its_floor(tmp_path, capsys):
    """Case 2 rebuilt: the hanging start is 0.28 m inside the floor; compare starts from a valid pose, says which
    rule chose it, and its first contact is a fall onto the floor (a small penetration), not a start inside it."""
    arm, out = _arm(tmp_path, FLOOR_ARM), tmp_path / "out"
    assert _tip_penetration(np.array([-np.pi / 2 + 0.15, -0.075])) > 0.2  # the old start: deep in the floor
    rc = main(["compare", arm, "--profile", "multisine-motion", "--engines", "mujoco", "--duration", "0.6",
               "--no-native-contact", "--states", "20", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc in (0, 1, 3)  # it ran (not refused, exit 2); its verdict is not this test's subject (tests/test_bounds.py)
    summary = json.loads((out / "summary.json").read_text())
    q0 = np.array(summary["start"]["q0"])
    assert _tip_penetration(q0) <= 1e-9
    assert "start: the drop pose" in err and "clears every obstacle by 0.3 m" in err
    assert "drop pose" in summary["start"]["rule"]
    reference = summary["contact"]["reference"]
    assert reference["first_touch_s"] > 0.05  # it falls onto the floor ...
    assert reference["max_penetration_m"] < 0.01  # ... before: "max pen. 0.307 m" at t = 0


def test_q0_inside_the_floor_exits_2_naming_the_obstacle_and_depth(tmp_path, capsys):
    arm = _arm(tmp_path, FLOOR_ARM)
    rc = main(["compare", arm, "--engines", "mujoco", "--duration", "0.05", "--no-native-contact",
               "--q0=-1.5708,0", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2
    depth = _tip_penetration(np.array([-1.5708, 0.0]))
    assert "obstacle 1" in err and f"{depth:.3g} m inside" in err and "--allow-invalid-start" in err
    assert not (tmp_path / "out" / "summary.json").exists()


def test_allow_invalid_start_runs_from_inside_the_floor(tmp_path):
    arm, out = _arm(tmp_path, FLOOR_ARM), tmp_path / "out"
    rc = main(["compare", arm, "--engines", "mujoco", "--duration", "0.05", "--no-native-contact", "--states", "20",
               "--q0=-1.5708,0", "--allow-invalid-start", "--out", str(out)])
    assert rc in (0, 1, 3)  # it ran (not refused, exit 2); its verdict is not this test's subject (tests/test_bounds.py)
    start = json.loads((out / "summary.json").read_text())["start"]
    assert start["q0"] == pytest.approx([-1.5708, 0.0])
    assert "inside obstacle 1" in start["invalid"][0]


def test_q0_beyond_a_joint_limit_exits_2_naming_the_joint(tmp_path, capsys):
    arm = _arm(tmp_path, LIMITS_ARM)
    rc = main(["compare", arm, "--engines", "mujoco", "--duration", "0.05", "--q0=-0.5,0",
               "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2
    assert "q1 = -0.5 rad is 0.35 rad above its upper limit -0.85 rad" in err


def test_a_start_on_a_limit_within_the_tolerance_is_valid():
    from crossdyn.inputs.start import start_problems
    from crossdyn.models import load_arm

    spec = load_arm("planar2r-limits")
    lo, hi = spec.links[0].limits
    assert start_problems(spec, [hi + 5e-10, 0.0]) == []
    assert start_problems(spec, [hi + 1e-6, 0.0])


def test_base_inside_an_obstacle_exits_2_at_load(tmp_path, capsys):
    arm = _arm(tmp_path, BASE_INSIDE)
    assert main(["info", arm]) == 2
    err = capsys.readouterr().err
    assert "obstacles[1]" in err and "base (0, 0) is 0.3 m inside" in err


@pytest.mark.parametrize("preset", ["planar2r-floor", "planar2r-limits"])
def test_default_starts_agree(preset, monkeypatch):
    """compare (no profile start: multisine-motion; for the floor arm also its default profile, drop), a sweep's comparison (run_chunk) and the centre of
    ``compare --batch``'s random starts are the one default start, and it is valid."""
    import crossdyn.comparison.compare as cmp
    from crossdyn.batch.sampling import random_starts
    from crossdyn.comparison.compare import CompareOptions, compare
    from crossdyn.inputs.start import default_start, start_problems
    from crossdyn.models import load_arm
    from crossdyn.sweeps.plan import Chunk, Group, run_chunk

    spec = load_arm(preset)
    chosen = default_start(spec)
    assert start_problems(spec, chosen.q) == []
    res = compare(spec, CompareOptions(duration=0.02, dt=1e-3, engines=("mujoco",), profile="multisine-motion",
                                       n_states=2, convergence_dts=()))
    np.testing.assert_array_equal(res.q0, chosen.q)
    seen = []
    real = cmp.compare
    monkeypatch.setattr(cmp, "compare", lambda s, o: seen.append(real(s, o)) or seen[-1])
    run_chunk(Chunk("t", (Group(spec.to_dict(), "preset", "multisine-motion", 1e-3),), ("mujoco",), 0.02, 2, 0,
                    ()))
    np.testing.assert_array_equal(seen[-1].q0, chosen.q)
    if spec.has_contact:  # the default contact profile (drop) starts there too
        res = compare(spec, CompareOptions(duration=0.02, dt=1e-3, engines=("mujoco",), n_states=2,
                                           convergence_dts=()))
        np.testing.assert_array_equal(res.q0, chosen.q)
    q0, _ = random_starts(spec, 4000, seed=1, start_spread=0.2)
    centre = chosen.q if chosen.rule != "hanging" else chosen.q - np.array([0.15, -0.075])[: spec.n]
    np.testing.assert_allclose(q0.mean(axis=0), centre, atol=0.01)
