"""``crossdyn compare ROBOT.urdf|ROBOT.xml`` on the command line: the dispatch by suffix, its document and schema,
exit statuses (0 PASS, 1 FAIL, 2 bad input naming the file, element and value), and a file with armature on an engine
that cannot represent it (unsupported, with the reason)."""
from __future__ import annotations

import json

import pytest

from crossdyn.cli import main
from robot_files import erd_ur5_urdf, menagerie_panda_nohand_xml

jsonschema = pytest.importorskip("jsonschema")

SHORT = ["--duration", "0.02", "--states", "5", "--quiet", "--no-plots"]


def _code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as e:  # argparse's own usage errors
        return int(e.code or 0)


def test_a_broken_robot_file_exits_2_naming_it(tmp_path, capsys):
    bad = tmp_path / "arm.urdf"
    bad.write_text('<robot name="arm"><link name="a"></robot>')
    assert _code(["compare", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "XML" in err and "Traceback" not in err


def test_a_negative_mass_exits_2_naming_the_element_and_value(tmp_path, capsys):
    bad = tmp_path / "arm.urdf"
    bad.write_text('<robot name="arm"><link name="base"/><link name="l1"><inertial><mass value="-1"/>'
                   '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>'
                   '<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>'
                   '<limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>')
    assert _code(["compare", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "l1" in err and "-1" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing written, no engine run


def test_a_missing_robot_file_exits_2(tmp_path, capsys):
    assert _code(["compare", str(tmp_path / "nothing.xml")]) == 2
    assert "nothing.xml" in capsys.readouterr().err


def test_an_engine_that_reads_no_robot_file_exits_2(tmp_path, capsys):
    assert _code(["compare", str(erd_ur5_urdf()), "--engines", "analytic-rk4", "--out", str(tmp_path)]) == 2
    assert "analytic-rk4" in capsys.readouterr().err


def test_an_option_the_engine_lacks_exits_2(tmp_path, capsys):
    assert _code(["compare", str(erd_ur5_urdf()), "--engines", "pybullet@no_such_knob=1", "--out",
                  str(tmp_path)]) == 2
    assert "no_such_knob" in capsys.readouterr().err


def test_a_planar_only_option_on_a_robot_file_exits_2(tmp_path, capsys):
    assert _code(["compare", str(erd_ur5_urdf()), "--profile", "zero", "--out", str(tmp_path)]) == 2
    assert "--profile" in capsys.readouterr().err


def test_json_document_follows_its_schema_and_passes(tmp_path, capsys):
    pytest.importorskip("pinocchio")
    from crossdyn.cli.common import SCHEMA_IDS, schema_text

    out = tmp_path / "ur5"
    code = _code(["compare", str(erd_ur5_urdf()), "--engines", "pinocchio", "--out", str(out), "--json"] + SHORT)
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, json.loads(schema_text("compare-robot")))
    assert doc["schema"] == SCHEMA_IDS["compare-robot"]
    assert code == 0 and doc["verdict"] == "PASS", doc["failures"] + doc["inconclusive"]
    assert doc["checks"]["total"] == doc["checks"]["trajectory"] + 5 * 3 + doc["checks"]["energy"]
    assert (out / "report.html").is_file() and (out / "report.md").is_file()
    assert json.loads((out / "summary.json").read_text()) == doc


def test_armature_on_an_engine_without_armature_is_unsupported_with_the_reason(tmp_path, capsys):
    """Menagerie's Panda MJCF (armature 0.1, damping 1 on every joint): PyBullet has no armature (and its loadMJCF
    ignores the file's inertials); MuJoCo keeps the armature and passes; switched off, it fails M by 0.1 kg m²."""
    pytest.importorskip("mujoco")
    pytest.importorskip("pybullet")
    out = tmp_path / "panda"
    code = _code(["compare", str(menagerie_panda_nohand_xml()), "--engines", "mujoco,pybullet,mujoco@armature=false",
                  "--out", str(out)] + SHORT)
    doc = json.loads((out / "summary.json").read_text())
    pyb = doc["engines"]["pybullet"]
    assert pyb["status"] == "unsupported" and "armature" in pyb["reason"]
    assert pyb["checks"] == {}
    assert doc["engines"]["mujoco"]["mass_matrix"]["verdict"] == "PASS"
    assert doc["engines"]["mujoco"]["trajectory"]["verdict"] == "PASS"
    off = doc["engines"]["mujoco@armature=false"]["mass_matrix"]
    assert off["verdict"] == "FAIL" and off["max_abs_error"] == pytest.approx(0.1, rel=1e-9)
    assert code == 1 and any(f.startswith("mujoco@armature=false") for f in doc["failures"])
    assert "pybullet: unsupported" in capsys.readouterr().out
