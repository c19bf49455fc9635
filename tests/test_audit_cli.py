"""``crossdyn audit`` at the command line: bad robot files exit 2 with the reader's message naming the file, the
element and the value (no traceback, no report folder); bad options exit 2; ``--json`` prints summary.json alone,
valid under its schema, in a real process."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import robot_files as rf

from crossdyn.cli import main
from crossdyn.cli.common import schema_text
from crossdyn.status import Exit

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}

LINK = '<link name="{n}"><inertial><mass value="{m}"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>'
JOINT = ('<joint name="j1" type="{t}"><parent link="{p}"/><child link="l1"/><axis xyz="{axis}"/>'
         '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>')


def urdf(m: str = "1", axis: str = "0 0 1", parent: str = "base", joint_type: str = "revolute") -> str:
    return (f'<robot name="r">{LINK.format(n="base", m="1")}{LINK.format(n="l1", m=m)}'
            f'{JOINT.format(t=joint_type, p=parent, axis=axis)}</robot>')


BAD = {
    "broken XML": ("<robot name='r'><link name='a'>", ["broken.urdf"]),
    "negative mass": (urdf(m="-2"), ["negative_mass.urdf", "-2", "l1"]),
    "zero axis": (urdf(axis="0 0 0"), ["zero_axis.urdf", "0 0 0", "j1"]),
    "missing parent link": (urdf(parent="nowhere"), ["missing_parent_link.urdf", "nowhere"]),
    "floating base": (urdf(joint_type="floating"), ["floating_base.urdf", "floating"]),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_robot_files_exit_2_naming_file_element_value(tmp_path, capsys, case):
    text, words = BAD[case]
    path = tmp_path / (case.replace(" ", "_").replace("broken_XML", "broken") + ".urdf")
    path.write_text(text)
    out = tmp_path / "out"
    code = main(["audit", str(rf.erd_ur5_urdf()) if case == "floating base" else str(path), str(path),
                 "--engines", "none", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == Exit.USAGE, err
    assert err.startswith("crossdyn: error: ") and "Traceback" not in err
    for w in words:
        assert w in err, (case, w, err)
    assert not (out / "summary.json").exists()


def test_bad_options_exit_2(tmp_path, capsys):
    good = str(rf.erd_ur5_urdf())
    for argv, word in ((["--states", "0"], "--states"), (["--seed", "-1"], "--seed")):
        assert main(["audit", good, *argv, "--out", str(tmp_path / "o")]) == Exit.USAGE
        assert word in capsys.readouterr().err
    assert main(["audit", str(tmp_path / "missing.urdf"), "--engines", "none"]) == Exit.USAGE
    assert "missing.urdf" in capsys.readouterr().err


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_audit_json_prints_the_document_alone(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    proc = subprocess.run([sys.executable, "-m", "crossdyn", "audit", str(rf.erd_panda_urdf()),
                           str(rf.menagerie_panda_xml()), "--engines", "none", "--states", "10", "--json"],
                          cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=300)
    doc = json.loads(proc.stdout)
    jsonschema.validate(doc, json.loads(schema_text("audit")))
    written = tmp_path / "crossdyn-report/audit/panda/summary.json"
    assert proc.stdout == written.read_text(encoding="utf-8")
    assert proc.returncode == Exit.of(doc["verdict"]) == Exit.FAIL
    assert "verdict: FAIL" in proc.stderr
    assert (written.parent / "audit.html").is_file() and (written.parent / "audit-differences-1.png").is_file()


def test_the_report_opens_with_the_verdict_and_summary_then_per_link_tables_and_plots(tmp_path):
    out = tmp_path / "out"
    code = main(["audit", str(rf.menagerie_iiwa14_xml()), str(rf.pybullet_iiwa_urdf()), "--engines", "none",
                 "--states", "20", "--out", str(out), "--quiet"])
    assert code == Exit.FAIL
    md = (out / "audit.md").read_text(encoding="utf-8")
    html = (out / "audit.html").read_text(encoding="utf-8")
    assert md.startswith("# crossdyn audit: menagerie_iiwa14.xml, model.urdf — FAIL")
    order = [md.index(h) for h in ("**verdict: FAIL (", "## Summary", "## Findings", "## Body matching",
                                   "## Parameters per link", "## Differences over the states", "## Tolerances")]
    assert order == sorted(order)
    assert md.count("| element | parameter | A | B |") == 8  # 7 links (each with its joint) and the robot
    assert "masses of 6 of 7 links explain the whole G difference" in md
    assert html.count('<img alt="') == 1 and "data:image/png;base64," in html
    assert (out / "audit-differences-1.png").stat().st_size > 10_000
