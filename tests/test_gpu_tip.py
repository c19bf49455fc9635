"""The tip-kinematics group for the float32 engines with a tip frame of their own (MuJoCo Warp's ``tip`` site,
Newton's ``tip`` site on its body pose; MJX's ``tip`` site in tests/test_mjx.py (JAX stays out of this forking
session), Genesis's in tests/test_genesis.py), judged with the
float32 term of :func:`crossdyn.engines.precision.tip_roundoff`.

Each engine's tip agrees with crossdyn's analytic forward kinematics within that term, and not within the float64
tolerance alone (its own float32 arithmetic is what is compared); a tip site moved 1 mm, or a link 1 mm too long,
FAILs the group; ``compare`` counts the group for MuJoCo Warp and Newton and still omits it for engines without a
tip frame of their own (analytic, a user's equations).  Slow tier: each engine's first build loads its compiled
kernels (seconds; minutes on a cold Warp cache).
"""
from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian
from crossdyn.cli import main
from crossdyn.comparison.groups.tip_kinematics import tip_kinematics_group
from crossdyn.comparison.references import static_states
from crossdyn.drive.contact_applied import FK_TOLERANCE_REL
from crossdyn.drive.runner import run_engine
from crossdyn.engines import make_engine, precision
from crossdyn.inputs.profiles import make_profile
from crossdyn.models import load_arm

pytestmark = pytest.mark.slow


def _installed(module: str, extra: str):
    return pytest.mark.skipif(importlib.util.find_spec(module) is None,
                              reason=f"not installed: pip install 'crossdyn[{extra}]'")


WARP = pytest.param("mujoco-warp", marks=_installed("mujoco_warp", "warp"))
NEWTON = pytest.param("newton", marks=_installed("newton", "newton"))
WALL_START = (np.array([-1.3147, 0.8554, 0.4232]), np.array([0.414, 0.1159, 0.0067]))
"""planar3r-wall: the tip sphere 1 cm off the wall, moving into it (tests/test_gpu_phenomena.py's WALL)."""
SHIFT_M = 1e-3
"""The seeded fault: the tip 1 mm off where the model puts it."""


def _engine(name: str, spec):
    return make_engine(f"{name}@device=cpu", spec, 1e-3)


def _group(engine, spec):
    """The group as compare builds it: 20 random static states and a 0.03 s run into the wall (it touches at
    0.018 s), each tip from the engine's own kinematics."""
    driven = run_engine(engine, make_profile("zero", spec), *WALL_START, 0.03)  # 31 samples
    assert driven.info["contact"]["normal_force"].max() > 0  # the run struck the wall through the engine's tip
    return tip_kinematics_group(engine, spec, driven, static_states(spec, 20, 3)).values


@pytest.mark.parametrize("name", [WARP, NEWTON])
def test_own_tip_agrees_with_crossdyn_kinematics_within_the_float32_term(name):
    check_tip_within_float32_term(_engine(name, load_arm("planar3r-wall")))


@pytest.mark.parametrize("name", [WARP, NEWTON])
def test_an_arm_without_contact_has_no_tip_to_read(name):
    """planar2r's generated MJCF has no ``tip`` site: said, not guessed."""
    from crossdyn.engines.base import EngineError

    with pytest.raises(EngineError, match="no 'tip' site"):
        _engine(name, load_arm("planar2r")).tip_kinematics()


def check_tip_within_float32_term(e) -> None:
    """20 random states: x, J and ẋ of the engine's own tip within the float32 term, and beyond the float64 one."""
    spec = e.spec
    p, rng = spec.params(), np.random.default_rng(11)
    assert e.capabilities.tip_frame and e.dtype == "float32" and "crossdyn.analytic" not in e.tip_source
    worst = 0.0
    for _ in range(20):
        q, qd = rng.uniform(-np.pi, np.pi, spec.n), rng.uniform(-10, 10, spec.n)
        term = precision.tip_roundoff("float32", spec.reach(), spec.n, float(np.max(np.abs(q))))
        J_ref = end_effector_jacobian(p, q)
        x, v, J = e.tip_kinematics(q, qd)
        e.reset(q, qd)
        x2, _, _ = e.tip_kinematics()  # at the engine's own state: the same point
        assert np.max(np.abs(x2 - x)) <= term
        ex, eJ = np.max(np.abs(x - end_effector(p, q))), np.max(np.abs(J - J_ref))
        ev = np.max(np.abs(v - J_ref @ qd))
        assert ex <= term and eJ <= term and ev <= term * max(1.0, float(np.max(np.abs(qd))))
        worst = max(worst, ex, eJ)
    # its own float32 arithmetic: beyond the float64 tolerance alone, so the float32 term is what lets it pass
    assert worst > FK_TOLERANCE_REL * spec.reach()


def _move_tip_site(engine, name: str, dx: float) -> None:
    """Move the engine's own tip site ``dx`` m along the last link, in the engine's loaded model."""
    if name == "mujoco-warp":
        sid = engine._tip_site
        pos = engine.model.site_pos.numpy()
        pos[..., sid, 0] += dx
        engine.model.site_pos.assign(pos)
    else:  # newton: the site Newton's MJCF importer kept, as a shape on the last body
        i = engine._tip[0]
        xf = engine.model.shape_transform.numpy()
        xf[i, 0] += dx
        engine.model.shape_transform.assign(xf)
        engine._tip = engine._tip_shape()


@pytest.mark.parametrize("name", [WARP, NEWTON])
def test_a_tip_site_moved_1mm_fails_the_group(name):
    spec = load_arm("planar3r-wall")
    e = _engine(name, spec)
    honest = _group(e, spec)
    assert honest["verdict"] == "PASS" and honest["precision"]["dtype"] == "float32"
    assert honest["max_tip_position_error_m"] <= honest["tolerance_m"] < SHIFT_M / 10
    _move_tip_site(e, name, SHIFT_M)
    moved = _group(e, spec)
    assert moved["verdict"] == "FAIL" and "float32 round-off" in moved["failed_because"]
    assert moved["max_tip_position_error_m"] == pytest.approx(SHIFT_M, rel=0.01)


@pytest.mark.parametrize("name", [NEWTON])
def test_a_link_1mm_too_long_fails_the_group(name):
    """The engine built from an arm whose last link is 1 mm longer (its dynamics and its tip site with it), judged
    against the arm crossdyn was given."""
    spec = load_arm("planar3r-wall")
    links = list(spec.links)
    links[-1] = dataclasses.replace(links[-1], length=links[-1].length + SHIFT_M)
    wrong = _group(_engine(name, dataclasses.replace(spec, links=tuple(links))), spec)
    assert wrong["verdict"] == "FAIL" and wrong["max_tip_position_error_m"] > SHIFT_M / 2


def _summary(tmp_path, capsys, arm: str, engines: str) -> tuple[dict, str]:
    out = tmp_path / arm
    main(["compare", arm, "--engines", engines, "--profile", "zero", "--q0", ",".join(map(str, WALL_START[0])),
          "--qd0", ",".join(map(str, WALL_START[1])), "--duration", "0.03", "--dt", "0.001", "--states", "20", "--jobs", "1",
          "--no-plots", "--no-animation", "--no-native-contact", "--out", str(out)])
    return json.loads((out / "summary.json").read_text()), capsys.readouterr().out


@pytest.mark.skipif(importlib.util.find_spec("mujoco_warp") is None or importlib.util.find_spec("newton") is None,
                    reason="needs the [warp] and [newton] extras")
def test_compare_counts_the_tip_group_for_mujoco_warp_and_newton(tmp_path, capsys):
    s, printed = _summary(tmp_path, capsys, "planar3r-wall", "analytic,mujoco-warp,newton")
    assert "tip_kinematics" not in s["engines"]["analytic"]
    counted = 0
    for name in ("mujoco-warp", "newton"):
        fk = s["engines"][name]["tip_kinematics"]
        assert fk["verdict"] == "PASS" and fk["checks"] == 20 + 31 and "crossdyn.analytic" not in fk["source"]
        assert fk["precision"]["roundoff_term"] > 0 and fk["tolerance_m"] > FK_TOLERANCE_REL * 2.4
        counted += fk["checks"]
    assert s["checks"]["tip_kinematics"] == counted
    assert f"tip_kinematics {counted}" in printed
    report = (tmp_path / "planar3r-wall" / "report.md").read_text()
    assert "tip_kinematics + " in report and "composed transforms" in report


def test_no_tip_group_without_a_tip_frame_of_its_own(tmp_path, capsys):
    """The analytic engine and a user's equations take their tip from crossdyn's kinematics: no group, no count."""
    user = Path(__file__).resolve().parents[1] / "examples" / "check" / "my_2r.py"
    out = tmp_path / "floor"
    main(["compare", "planar2r-floor", "--engines", f"analytic,user:{user}", "--duration", "0.02", "--states", "5",
          "--jobs", "1", "--no-plots", "--no-animation", "--no-native-contact", "--out", str(out)])
    s = json.loads((out / "summary.json").read_text())
    assert set(s["engines"]) == {"analytic", f"user:{user}"}
    for e in s["engines"].values():
        assert e["status"] == "ok" and "tip_kinematics" not in e
        assert "no tip frame of its own" in e["config"]["tip_kinematics"]
    assert "tip_kinematics" not in s["checks"] and "tip_kinematics" not in capsys.readouterr().out


@pytest.mark.skipif(importlib.util.find_spec("genesis") is None,
                    reason="not installed: pip install 'crossdyn[genesis]' (run in /work/genesis-venv)")
def test_genesis_tip_link_agrees_within_the_float32_term_and_a_link_1mm_too_long_fails():
    """Genesis keeps no MJCF sites: its tip is the last link's pose composed with the tip's offset in that link.
    The pose, velocity and Jacobian are Genesis's; a last link 1 mm longer than crossdyn's arm FAILs the group."""
    spec = load_arm("planar3r-wall")
    e = make_engine("genesis", spec, 1e-3)
    check_tip_within_float32_term(e)
    assert _group(e, spec)["verdict"] == "PASS"
    links = list(spec.links)
    links[-1] = dataclasses.replace(links[-1], length=links[-1].length + SHIFT_M)
    wrong = _group(make_engine("genesis", dataclasses.replace(spec, links=tuple(links)), 1e-3), spec)
    assert wrong["verdict"] == "FAIL" and wrong["max_tip_position_error_m"] > SHIFT_M / 2
