"""``crossdyn export --native``: the files with the engines' own limits and contact, exactly as compare --native
runs them (the MuJoCo adapter's own MJCF), and a clear refusal where there is nothing native to add."""
import mujoco
import numpy as np

from crossdyn.cli import main
from crossdyn.engines import make_engine
from crossdyn.models import get_preset


def test_native_mjcf_is_what_the_native_engine_runs(tmp_path, capsys):
    path = tmp_path / "wall.xml"
    assert main(["export", "planar3r-wall", "--native", "--mjcf", str(path)]) == 0
    text = path.read_text()
    with make_engine("mujoco@native_contact=true", get_preset("planar3r-wall")) as eng:
        assert text == eng.mjcf  # byte for byte: A0 from the compiled model, solref (-k A0, -c A0)
    m = mujoco.MjModel.from_xml_string(text)
    names = {m.geom(i).name for i in range(m.ngeom)}
    assert {"obstacle1", "tip_sphere"} <= names and not (m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_CONTACT)
    # the sphere pressed into the wall feels it: a contact appears (and none in the applied-mode file)
    d = mujoco.MjData(m)
    d.qpos[:] = [0.0, 0.0, 0.0]  # straight arm: tip at x = 2.4 m, 0.8 m into the wall at x = 1.6 m
    mujoco.mj_forward(m, d)
    assert d.ncon == 1
    assert main(["export", "planar3r-wall", "--mjcf", str(path)]) == 0
    m0 = mujoco.MjModel.from_xml_string(path.read_text())
    d0 = mujoco.MjData(m0)
    mujoco.mj_forward(m0, d0)
    assert d0.ncon == 0


def test_native_urdf_limits_and_tip_sphere(capsys):
    assert main(["export", "planar2r-limits", "--native", "--urdf", "-"]) == 0
    out = capsys.readouterr().out
    assert 'lower="-1.65" upper="-1.4"' in out  # the spec's limits instead of ±1e6
    assert main(["export", "planar2r-floor", "--native", "--urdf", "-"]) == 0
    cap = capsys.readouterr()
    assert "<collision>" in cap.out and "<sphere radius=\"0.02\"/>" in cap.out
    assert "obstacles are not in it" in cap.err


def test_native_export_of_an_arm_without_native_parts_is_exit_2(capsys):
    assert main(["export", "planar2r", "--native", "--mjcf", "-"]) == 2
    err = capsys.readouterr().err
    assert "planar2r" in err and "--native" in err and "Traceback" not in err
