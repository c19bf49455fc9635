"""The GPU engines on the limits, friction and contact presets (applied mode) with starts that exercise each law
within a short run (issue 28's must-hold; docs/_incoming/gpu-phenomena.md).

At the default 0.1 s from the default start no joint reaches a limit, no joint slides and the tip touches nothing,
so those runs check nothing about the law (INCONCLUSIVE).  Each start here is the one crossdyn's coverage rule
prints for the preset (``try --profile zero --q0 … --qd0 …``, :mod:`crossdyn.comparison.coverage`): a joint 0.02 rad
inside a limit moving into it, a joint with Coulomb friction sliding, the tip sphere 1 cm off the obstacle moving
into it.  dt is the largest of 1, 0.5, 0.25, 0.125 ms at which semi-implicit Euler (the engines' scheme) is judged
at all: at larger dt the run's own dt/2 rerun differs by more than the trajectory bound allows (5 % of the joint
range), and the trajectory is INCONCLUSIVE for C MuJoCo, Newton and MuJoCo Warp alike.  Tolerances are compare's
own; nothing is widened here.

Every test runs ``crossdyn compare`` as a user would and asserts PASS, checks > 0 for the law, and that the engine's
own run (not only the reference) exercised it.  Slow tier: 30–60 s each on a loaded 2-core CPU with the Warp
kernel cache warm (``~/.cache/warp``), 165–200 s for MuJoCo Warp's friction and contact runs at load average ~9;
the first run compiles kernels for minutes.
"""
from __future__ import annotations

import csv
import importlib.util
import json

import pytest

from crossdyn.cli import main

LIMITS = ["--profile", "zero", "--q0", "-1.42,-0.075", "--qd0", "0.7,0"]
"""planar2r-limits: joint 1 0.02 rad inside its upper limit -1.40 rad, moving into it (enters at t = 0.03 s)."""
FRICTION = ["--profile", "zero", "--q0", "-1.4208,-0.075,0.05", "--qd0", "0.3,0,0"]
"""planar3r-friction: joint 1 (f_c = 1.5 N m) sliding at 0.3 rad/s, joints 2 and 3 at rest: within 0.05 s joint 2
(f_c = 0.6 N m) breaks away and slides (0.25 rad/s), joint 3 (f_c = 0.15 N m) stays below the kinetic threshold."""
WALL = ["--profile", "zero", "--q0", "-1.3147,0.8554,0.4232", "--qd0", "0.414,0.1159,0.0067"]
"""planar3r-wall: the tip sphere 1 cm off the wall x = 1.6 m, moving into it (touches at t = 0.018 s)."""
FLOOR = ["--profile", "zero", "--q0", "-0.9167,-0.0908", "--qd0", "-0.4126,-0.1702"]
"""planar2r-floor: the tip sphere 1 cm above the floor y = -1.5 m, moving into it (touches at t = 0.019 s)."""


def _installed(module: str, extra: str):
    return pytest.mark.skipif(importlib.util.find_spec(module) is None,
                              reason=f"not installed: pip install 'crossdyn[{extra}]'")


NEWTON = _installed("newton", "newton")
MUJOCO_WARP = _installed("mujoco_warp", "warp")


def _compare(tmp_path, capsys, preset: str, engine: str, dt: float, duration: float, start: list[str]) -> dict:
    out = tmp_path / preset
    code = main(["compare", preset, "--engines", engine, "--dt", str(dt), "--duration", str(duration),
                 "--states", "20", "--jobs", "1", "--no-plots", "--quiet", "--no-native-contact", "--out", str(out)]
                + start)
    printed = capsys.readouterr().out
    s = json.loads((out / "summary.json").read_text())
    assert code == 0 and s["verdict"] == "PASS", printed
    assert s["engines"][engine]["trajectory"]["verdict"] == "PASS" and s["checks"]["trajectory"] > 0, printed
    return s


def _limits_exercised(s: dict, engine: str) -> None:
    lim = s["limits"]
    assert lim["verdict"] == "PASS" and lim["checks"] >= 1 and s["checks"]["limits"] == lim["checks"]
    for who in ("reference", engine):
        assert [c["joint"] for c in lim["contacts"][who]] == [1], lim["contacts"]
        assert lim["contacts"][who][0]["side"] == "upper" and lim["contacts"][who][0]["max_penetration_rad"] > 0.01


def _contact_exercised(s: dict, engine: str) -> None:
    con = s["contact"]
    assert con["verdict"] == "PASS" and con["checks"] >= 1 and s["checks"]["contact"] == con["checks"]
    assert con["reference"]["contacts"] == 1 and con["engines"][engine]["contacts"] == 1


@pytest.mark.slow
@NEWTON
def test_newton_enters_a_joint_limit_and_follows_the_limit_law(tmp_path, capsys):
    _limits_exercised(_compare(tmp_path, capsys, "planar2r-limits", "newton", 5e-4, 0.05, LIMITS), "newton")


@pytest.mark.slow
@MUJOCO_WARP
def test_mujoco_warp_enters_a_joint_limit_and_follows_the_limit_law(tmp_path, capsys):
    _limits_exercised(_compare(tmp_path, capsys, "planar2r-limits", "mujoco-warp", 5e-4, 0.05, LIMITS),
                      "mujoco-warp")


def _slides(tmp_path, capsys, engine: str) -> None:
    s = _compare(tmp_path, capsys, "planar3r-friction", engine, 5e-4, 0.05, FRICTION)
    fr = s["friction"]
    assert fr["mode"] == "applied" and fr["verdict"] == "PASS"
    assert fr["checks"] == fr["sliding_samples"] > 0 and s["checks"]["friction"] == fr["checks"]
    # the engine's own run: joint 2 starts at rest and slides, joint 3 stays stuck (below the kinetic threshold)
    with open(tmp_path / "planar3r-friction" / "timeseries.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["engine"] == engine and r["run"] == "driven"]
    assert rows, engine
    qd2, qd3 = ([abs(float(r[k])) for r in rows] for k in ("qd2", "qd3"))
    threshold = fr["kinetic_threshold_rad_s"]
    assert qd2[0] == 0.0 and qd2[-1] > 2 * threshold and max(qd3) < threshold, (qd2[-1], max(qd3), threshold)


@pytest.mark.slow
@NEWTON
def test_newton_slides_a_joint_against_coulomb_friction_and_follows_the_law(tmp_path, capsys):
    _slides(tmp_path, capsys, "newton")


@pytest.mark.slow
@MUJOCO_WARP
def test_mujoco_warp_slides_a_joint_against_coulomb_friction_and_follows_the_law(tmp_path, capsys):
    # measured 165 s (warm kernel cache, load average ~9 on the 2 cores)
    _slides(tmp_path, capsys, "mujoco-warp")


@pytest.mark.slow
@NEWTON
def test_newton_strikes_the_wall_and_follows_the_contact_law(tmp_path, capsys):
    _contact_exercised(_compare(tmp_path, capsys, "planar3r-wall", "newton", 1.25e-4, 0.03, WALL), "newton")


@pytest.mark.slow
@NEWTON
def test_newton_strikes_the_floor_and_follows_the_contact_law(tmp_path, capsys):
    _contact_exercised(_compare(tmp_path, capsys, "planar2r-floor", "newton", 1.25e-4, 0.05, FLOOR), "newton")


@pytest.mark.slow
@MUJOCO_WARP
def test_mujoco_warp_strikes_the_wall_and_follows_the_contact_law(tmp_path, capsys):
    # measured 184 s (warm kernel cache, load average ~9 on the 2 cores)
    _contact_exercised(_compare(tmp_path, capsys, "planar3r-wall", "mujoco-warp", 1.25e-4, 0.03, WALL),
                       "mujoco-warp")


@pytest.mark.slow
@MUJOCO_WARP
def test_mujoco_warp_strikes_the_floor_and_follows_the_contact_law(tmp_path, capsys):
    # measured 198 s (warm kernel cache, load average ~9 on the 2 cores)
    _contact_exercised(_compare(tmp_path, capsys, "planar2r-floor", "mujoco-warp", 1.25e-4, 0.05, FLOOR),
                       "mujoco-warp")


@pytest.mark.slow
@NEWTON
def test_the_limit_run_fails_newton_with_its_own_gravity_default_switched_back(tmp_path, capsys):
    """The same limit run is not a PASS whatever the engine does: with ``newton_gravity=true`` (Newton's default,
    which ignores the MJCF's gravity) the arm still enters the limit, so the limits section counts its contact,
    but the motion through the law departs (measured 8.0e-3 rad against a tolerance of 2.6e-4 rad): FAIL, exit 1."""
    limit_run_fails(tmp_path, capsys, "newton@newton_gravity=true")


def limit_run_fails(tmp_path, capsys, engine: str) -> None:
    """The limit run with ``engine`` (a neutralised default switched back) enters joint 1's limit, so the limits
    section counts the contact, but its motion departs by more than 10x the tolerance: FAIL, exit 1."""
    out = tmp_path / "fault"
    code = main(["compare", "planar2r-limits", "--engines", engine, "--dt", "5e-4", "--duration", "0.05",
                 "--states", "20", "--jobs", "1", "--no-plots", "--quiet", "--out", str(out)] + LIMITS)
    printed = capsys.readouterr().out
    s = json.loads((out / "summary.json").read_text())
    tr = s["engines"][engine]["trajectory"]
    assert code == 1 and s["verdict"] == "FAIL", printed
    assert tr["verdict"] == "FAIL" and tr["max_abs_error_rad"] > 10 * tr["tolerance_rad"]
    assert s["limits"]["checks"] == 1 and [c["joint"] for c in s["limits"]["contacts"][engine]] == [1]
