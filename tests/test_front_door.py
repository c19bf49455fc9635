"""The front door (issue 40): what `crossdyn --help` and `crossdyn info` say, suggestions for typed names, and no
engine banner in crossdyn's output."""
import subprocess
import sys
from pathlib import Path

import pytest

from crossdyn.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_help_describes_what_crossdyn_does_today(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for word in ("URDF/MJCF", "DH arm", "audit", "Drake", "DART", "Newton", "identify", "crossdyn info"):
        assert word in out, word
    assert "planar robot-arm dynamics" not in out


def test_info_without_an_arm_lists_the_presets_and_the_engines(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    arms, _, engines = out.partition("Engines")
    for preset in ("planar2r", "planar3r-geared", "planar<N>r", "scara", "pan-tilt"):  # planar and spatial
        assert preset in arms, preset
    for engine in ("mujoco-rk4", "pinocchio", "drake-discrete", "dart"):
        assert engine in engines, engine


@pytest.mark.parametrize("argv, fragment", [
    (["info", "planar3"], "did you mean 'planar3r'"),
    (["info", "scarra"], "did you mean 'scara'"),
    (["compare", "planar2r", "--engines", "mujoko", "--duration", "0.1"], "did you mean 'mujoco'"),
    (["compare", str(ROOT / "examples/robots/ur5e_description.urdf"), "--engines", "pinochio"],
     "did you mean 'pinocchio'"),
    (["audit", str(ROOT / "examples/robots/ur5e_description.urdf"), "--engines", "drak"], "did you mean 'drake'"),
])
def test_a_typed_name_gets_a_suggestion(argv, fragment, capsys, tmp_path):
    assert main([*argv, "--out", str(tmp_path / "out")] if argv[0] != "info" else argv) == 2
    assert fragment in capsys.readouterr().err


def test_a_far_name_gets_no_suggestion(capsys):
    assert main(["info", "zzzz"]) == 2
    err = capsys.readouterr().err
    assert "unknown arm 'zzzz'" in err and "did you mean" not in err and ".urdf" in err


def test_no_pybullet_banner_or_importer_warning_in_crossdyn_output():
    """PyBullet prints "pybullet build time: …" on import and b3Warning lines for a link without <inertial> (the
    UR5e's base_link here); both adapters silence them (crossdyn.engines.pybullet.library)."""
    code = (
        "from crossdyn.engines.pybullet.file import PyBulletFileEngine\n"
        "from crossdyn.engines.pybullet.planar import PyBulletEngine\n"
        "from crossdyn.models import get_preset\n"
        "from crossdyn.robots import read_robot\n"
        f"e = PyBulletFileEngine(read_robot({str(ROOT / 'examples/robots/ur5e_description.urdf')!r}))\n"
        "print('M', e.mass_matrix([0.1] * 6).shape); e.close()\n"
        "print('planar', PyBulletEngine(get_preset('planar2r')).mass_matrix([0.1, 0.2]).shape)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "M (6, 6)" in done.stdout and "planar (2, 2)" in done.stdout  # both adapters ran
    both = done.stdout + done.stderr
    assert "pybullet build time" not in both and "b3Warning" not in both, both
