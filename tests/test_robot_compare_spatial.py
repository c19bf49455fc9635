"""``crossdyn compare NAME`` on the spatial presets and on a spatial TOML spec (:mod:`crossdyn.robotcompare.spatial`).

The arm's URDF and MJCF are written into the run's folder; every engine loads one of them (MuJoCo the MJCF, the
others the URDF unless the arm has armature, which a URDF cannot hold); the reference is the spec's own RobotModel.
Measured when written (0.05 s, 20 states, every installed engine): every preset PASSes every group in Pinocchio,
MuJoCo, PyBullet, Drake and DART, the RK4 engines ≤ 2.2e-12 rad from the reference, M ≤ 1.3e-15 kg m².
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from crossdyn.cli import main
from crossdyn.models.spatial_presets import SPATIAL_PRESETS

pytest.importorskip("pinocchio")
pytest.importorskip("mujoco")

GROUPS = ("trajectory", "inverse_dynamics", "forward_dynamics", "mass_matrix", "energy")
SHORT = ["--duration", "0.02", "--states", "10", "--quiet", "--no-plots"]

ARMATURE_TOML = """\
[arm]
kind = "spatial"
name = "geared-pan-tilt"
convention = "origin"

[[joints]]
type = "revolute"
xyz = [0.0, 0.0, 0.1]
axis = [0.0, 0.0, 1.0]
armature = 0.02
damping = 0.05

[[joints]]
type = "revolute"
xyz = [0.0, 0.0, 0.1]
axis = [0.0, 1.0, 0.0]
limits = [-1.5, 1.5]
armature = 0.01

[[links]]
mass = 0.5
com = [0.0, 0.0, 0.05]
inertia = [0.0005, 0.0, 0.0, 0.0005, 0.0, 0.0002]

[[links]]
mass = 0.8
com = [0.04, 0.0, 0.02]
inertia = [0.0003, 0.0001, 0.0, 0.0012, 0.0, 0.0012]
"""


def _run(argv, capsys) -> tuple[int, dict, str]:
    """(exit status, the --json document, stderr)."""
    try:
        code = main(argv)
    except SystemExit as e:
        code = int(e.code or 0)
    captured = capsys.readouterr()
    out = captured.out
    return code, json.loads(out[out.index("{"):]) if "--json" in argv and code in (0, 1, 3) else {}, captured.err


def _passes(summary: dict, engine: str, states: int) -> None:
    entry = summary["engines"][engine]
    assert entry["status"] == "ok", entry["reason"]
    for group in GROUPS:
        assert entry[group]["verdict"] == "PASS", (engine, group, entry[group])
    assert entry["checks"]["inverse_dynamics"] == entry["checks"]["mass_matrix"] == states


@pytest.mark.parametrize("name", list(SPATIAL_PRESETS))
def test_each_preset_passes_in_pinocchio_and_mujoco(tmp_path, capsys, name):
    out = tmp_path / name
    code, s, _ = _run(["compare", name, "--engines", "pinocchio,mujoco", "--out", str(out), "--json", *SHORT],
                      capsys)
    assert code == 0, s["failures"]
    assert s["format"] == "spatial-spec" and s["file"] == f"preset {name}"
    for engine in ("pinocchio", "mujoco"):
        _passes(s, engine, 10)
    files = s["arm"]["engine_files"]
    assert files == {"pinocchio": str(out / f"{name}.urdf"), "mujoco": str(out / f"{name}.xml")}
    assert (out / f"{name}.urdf").is_file() and (out / f"{name}.xml").is_file()
    # each engine's config names the file it loaded, and the traps it neutralised
    assert s["engines"]["mujoco"]["config"]["file"] == files["mujoco"]
    assert s["engines"]["pinocchio"]["config"]["file"] == files["pinocchio"]


def test_a_seeded_fault_fails_naming_it(tmp_path, capsys):
    pytest.importorskip("pybullet")
    fault = "pybullet@link_damping=0.04"
    code, s, out = _run(["compare", "elbow-rrr", "--engines", f"pybullet,{fault}", "--duration", "0.05",
                         "--states", "10", "--quiet", "--no-plots", "--out", str(tmp_path), "--json"], capsys)
    assert code == 1
    _passes(s, "pybullet", 10)
    assert s["engines"][fault]["trajectory"]["verdict"] == "FAIL"
    assert s["engines"][fault]["config"]["link_damping"] == 0.04
    lines = [f for f in s["failures"] if f.startswith(fault)]
    assert lines and "link_damping=0.04" in lines[0]
    assert not [f for f in s["failures"] if not f.startswith(fault)]


def test_a_spatial_toml_with_armature_loads_the_mjcf_and_names_what_urdf_cannot_hold(tmp_path, capsys):
    """A URDF has no armature: Pinocchio and MuJoCo load the MJCF, PyBullet (URDF only) is unsupported, naming the
    joints; MuJoCo with its armature switched off FAILs M by the armature (0.02 kg m² on pan)."""
    spec = tmp_path / "geared.toml"
    spec.write_text(ARMATURE_TOML)
    engines = "pinocchio,mujoco,pybullet,mujoco@armature=false"
    code, s, _ = _run(["compare", str(spec), "--engines", engines, "--out", str(tmp_path / "out"), "--json",
                       *SHORT], capsys)
    assert code == 1
    assert s["file"] == str(spec) and s["file_parameters"]["armature"] == [0.02, 0.01]
    for engine in ("pinocchio", "mujoco"):
        _passes(s, engine, 10)
        assert s["arm"]["engine_files"][engine].endswith("geared-pan-tilt.xml")
    pyb = s["engines"]["pybullet"]
    assert pyb["status"] == "unsupported" and "armature" in pyb["reason"] and "joint1" in pyb["reason"]
    off = s["engines"]["mujoco@armature=false"]
    assert off["mass_matrix"]["verdict"] == "FAIL"
    assert off["mass_matrix"]["max_abs_error"] == pytest.approx(0.02, rel=1e-9)
    assert any("URDF has none" in n for n in s["notes"])


def test_the_reference_is_the_specs_model_and_the_files_read_back_to_it(tmp_path):
    """The run's reference is ``to_robot_model()`` itself; the files written read back to it (no round-trip
    note), and a file that differs from the spec is named in a note."""
    from dataclasses import replace

    from crossdyn.models import get_preset
    from crossdyn.robotcompare.spatial import arm_files, round_trip_differences
    from crossdyn.robots.model import Format

    spec = get_preset("scara", spatial=True)
    files = arm_files(spec, tmp_path)
    assert files.notes == ()
    ref = spec.to_robot_model()
    for model in files.models.values():
        assert round_trip_differences(ref, model, "x") == []
    heavier = files.models[Format.URDF]
    body = heavier.bodies[1]
    moved = replace(body, inertial=replace(body.inertial, mass=body.inertial.mass * 1.01))
    heavier = replace(heavier, bodies=(heavier.bodies[0], moved, heavier.bodies[2]))
    lines = round_trip_differences(ref, heavier, "scara.urdf")
    assert len(lines) == 1 and "joint2" in lines[0] and "mass" in lines[0]
    np.testing.assert_array_equal(files.reference.gravity, ref.gravity)


def test_planar_only_options_exit_2_on_a_spatial_arm(tmp_path, capsys):
    code, _, err = _run(["compare", "scara", "--q0", "0,0,0", "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert "--q0" in err and "scara" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SPATIAL_PRESETS))
def test_each_preset_passes_in_every_installed_engine(tmp_path, capsys, name):
    code, s, _ = _run(["compare", name, "--duration", "0.05", "--states", "20", "--quiet", "--no-plots", "--out",
                       str(tmp_path), "--json"], capsys)
    assert code == 0, s["failures"]
    ran = [e for e, entry in s["engines"].items() if entry["status"] == "ok"]
    assert {"pinocchio", "mujoco-rk4"} <= set(ran)
    for engine in ran:
        _passes(s, engine, 20)
    skipped = {e: entry["reason"] for e, entry in s["engines"].items() if entry["status"] != "ok"}
    assert all("not installed" in why for why in skipped.values()), skipped
