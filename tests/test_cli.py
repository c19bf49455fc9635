"""The command line: arms, export, info, errors with exit code 2, lazy imports."""
import subprocess
import sys

import pytest

from crossdyn.cli import main
from crossdyn.models import get_preset, load_spec


def test_arms_lists_presets(capsys):
    assert main(["arms"]) == 0
    out = capsys.readouterr().out
    for name in ("planar2r", "planar3r", "planar2r-pointmass", "planar3r-general", "planar<N>r"):
        assert name in out


def test_export_writes_loadable_files(tmp_path):
    urdf, mjcf, toml = tmp_path / "a.urdf", tmp_path / "a.xml", tmp_path / "a.toml"
    assert main(["export", "planar3r-general", "--urdf", str(urdf), "--mjcf", str(mjcf), "--toml", str(toml)]) == 0
    assert load_spec(toml) == get_preset("planar3r-general")
    import mujoco
    import pinocchio as pin
    assert mujoco.MjModel.from_xml_path(str(mjcf)).nv == 3
    assert pin.buildModelFromUrdf(str(urdf)).nv == 3


def test_bad_arm_exits_2_with_message(capsys, tmp_path):
    assert main(["info", "planar9x"]) == 2
    assert "unknown arm 'planar9x'" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[[links]]\nlength = 1.0\nmass = 0\ncom = 0.5\ninertia = 0.1\n")
    assert main(["info", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "links[1].mass" in err and "Traceback" not in err


def test_info_prints_summary(capsys):
    assert main(["info", "planar2r-pointmass"]) == 0
    out = capsys.readouterr().out
    assert "M(q = 0)" in out and "inertia substitutions: link 1" in out


def test_help_and_arms_do_not_import_engines_or_numpy():
    code = ("import sys; from crossdyn.cli import main; main(['arms']);"
            "bad = [m for m in ('numpy', 'mujoco', 'pybullet', 'pinocchio', 'dartpy', 'sympy') if m in sys.modules];"
            "sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def test_version(capsys):
    from crossdyn.version import __version__

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.strip() == f"crossdyn {__version__}"


@pytest.mark.parametrize("option", ["--urdf", "--mjcf", "--toml"])
def test_export_to_standard_output_is_the_file_alone(tmp_path, option):
    import subprocess
    import sys
    import tomllib
    import xml.etree.ElementTree as ET

    other = tmp_path / "side.urdf"
    extra = ["--urdf", str(other)] if option != "--urdf" else []
    proc = subprocess.run([sys.executable, "-m", "crossdyn", "export", "planar3r", option, "-", *extra],
                          capture_output=True, text=True, check=True)
    if option == "--toml":
        assert tomllib.loads(proc.stdout)["name"] == "planar3r"
    else:
        assert ET.fromstring(proc.stdout).tag == ("robot" if option == "--urdf" else "mujoco")
    if extra:
        assert other.is_file() and f"wrote {other}" in proc.stderr


def test_export_two_files_to_standard_output_is_exit_2(capsys):
    assert main(["export", "planar2r", "--urdf", "-", "--mjcf", "-"]) == 2
    assert "only one file can go to standard output" in capsys.readouterr().err
