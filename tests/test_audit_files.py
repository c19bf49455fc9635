"""``crossdyn audit`` on pairs of real robot files (example-robot-data, pybullet_data, the Menagerie and UR fixtures):
issue 26's file findings reproduced through the command line, each named in words with its parameter, the figures
held to the bands tests/robot_findings.py measured with the engines directly (same files, same first file, same
q draw: ``numpy.random.default_rng(0)``, uniform within the first file's limits).  The file diff needs no engine
(``--engines none``): the light-install path."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import robot_files as rf
from robot_findings import FIGURES

from crossdyn.cli import main
from crossdyn.status import Exit


def audit(tmp_path: Path, *argv: str) -> tuple[int, dict]:
    out = tmp_path / "out"
    code = main(["audit", *argv, "--out", str(out), "--quiet", "--no-plots"])
    return code, json.loads((out / "summary.json").read_text())


def dyn(doc: dict, quantity: str, engine: str | None = None) -> dict:
    return next(c for c in doc["dynamics"] if c["quantity"] == quantity and c["engine"] == engine)


def rows(doc: dict, parameter: str, status: str | None = None) -> list[dict]:
    return [r for r in doc["file_diffs"][0]["rows"] if r["parameter"] == parameter
            and (status is None or r["status"] == status)]


def test_a_pybullet_panda_masses_and_placeholder_inertia(tmp_path):
    code, doc = audit(tmp_path, str(rf.erd_panda_urdf()), str(rf.pybullet_panda_urdf()), "--engines", "none")
    assert code == Exit.FAIL and doc["verdict"] == "FAIL"
    g = dyn(doc, "G")
    assert g["label"] == "the files differ"
    FIGURES["a_G_abs"].check(g["max_abs"])
    FIGURES["a_G_rel"].check(g["max_rel"])
    assert "masses and CoMs of all 9 links explain the whole G difference" in g["explanation"]
    link1 = next(r for r in rows(doc, "mass") if r["element"] == "panda_link1")
    assert link1["status"] == "differs" and link1["a"] == 4.970684 and link1["b"] == 2.7  # the 4.97 vs 2.70 kg
    placeholder = [f for f in doc["findings"] if "placeholder inertia diag(0.1)" in f]
    assert placeholder and "franka_panda/panda.urdf" in placeholder[0]
    inertia = {r["element"]: r for r in rows(doc, "inertia about CoM (world)")}
    assert np.allclose(inertia["panda_link3"]["b"], np.diag([0.1] * 3), rtol=0, atol=1e-12)


def test_b_pybullet_iiwa_six_of_seven_masses_explain_G(tmp_path):
    code, doc = audit(tmp_path, str(rf.menagerie_iiwa14_xml()), str(rf.pybullet_iiwa_urdf()), "--engines", "none")
    assert code == Exit.FAIL
    masses = rows(doc, "mass", "differs")
    FIGURES["b_masses_differ"].check(len(masses))
    assert {(r["a"], r["b"]) for r in masses} >= {(5.76, 4.0), (6.35, 4.0), (3.5, 3.0), (3.5, 2.7), (3.5, 1.7),
                                                   (1.2, 0.3)}
    g = dyn(doc, "G")
    FIGURES["b_G_abs"].check(g["max_abs"])
    FIGURES["b_G_rel"].check(g["max_rel"])
    assert g["explanation"] == "masses of 6 of 7 links explain the whole G difference"
    assert any(f.startswith("FAIL: the files differ: G of model.urdf against menagerie_iiwa14.xml") and
               "masses of 6 of 7 links explain the whole G difference" in f for f in doc["findings"])
    # the bodies are matched by tree position: the names differ (link1 / lbr_iiwa_link_1)
    pairs = doc["file_diffs"][0]["matching"]["pairs"]
    assert len(pairs) == 7 and {p["how"] for p in pairs} == {"position"}
    assert pairs[0]["a"] == "link1" and pairs[0]["b"] == "lbr_iiwa_link_1"


def test_c_menagerie_panda_armature_explains_M_and_damping_named(tmp_path):
    code, doc = audit(tmp_path, str(rf.erd_panda_urdf()), str(rf.menagerie_panda_xml()), "--engines", "none")
    assert code == Exit.FAIL
    m = dyn(doc, "M")
    FIGURES["c_M_rel"].check(m["max_rel"])
    assert m["explanation"] == "armature 0.1 on all 9 joints explains the whole M difference"
    for q in ("G", "C·q̇"):  # within the files' tolerance: only the armature differs in the dynamics
        assert dyn(doc, q)["status"] == "agree" and dyn(doc, q)["max_rel"] < 1e-8, q
    armature = rows(doc, "armature", "only in B")
    assert len(armature) == 9 and {r["b"] for r in armature} == {0.1}
    damping = {r["element"]: (r["a"], r["b"]) for r in rows(doc, "damping", "differs")}
    assert damping["joint panda_joint1 / joint1"] == (0.003, 1.0)
    assert any("armature of 9 joints" in f and "(only in B)" in f for f in doc["findings"])
    # an MJCF cannot state a velocity limit: called out, not failed
    velocity = rows(doc, "velocity")
    assert {r["status"] for r in velocity} == {"not in B's format"} and len(velocity) == 9
    assert not [r for r in doc["file_diffs"][0]["differing"] if r["parameter"] == "velocity"]
    # the URDF's effort on the 2 finger joints (URDF requires one; Menagerie's fingers have no actuator since the
    # finger coupling was removed): called out, not failed
    effort = rows(doc, "effort", "required by A's format")
    assert sorted(r["element"].split()[1] for r in effort) == ["panda_finger_joint1", "panda_finger_joint2"]
    assert len(doc["file_diffs"][0]["format_gaps"]) == 9 + 2


def test_c_e_menagerie_ur5e_against_the_ur_description(tmp_path):
    code, doc = audit(tmp_path, str(rf.ur5e_description_urdf()), str(rf.menagerie_ur5e_xml()), "--engines", "none")
    assert code == Exit.FAIL
    diff = doc["file_diffs"][0]
    assert diff["matching"]["turn_about_gravity_rad"] == pytest.approx(np.pi / 2, abs=1e-9)  # base turned π/2
    damping = {r["element"].removeprefix("joint "): r["b"] for r in rows(doc, "damping", "only in B")}
    assert damping == {"shoulder_pan_joint": 200, "shoulder_lift_joint": 200, "elbow_joint": 200,
                       "wrist_1_joint": 15, "wrist_2_joint": 15, "wrist_3_joint": 15}
    assert {r["b"] for r in rows(doc, "armature", "only in B")} == {0.1}
    wrist1 = next(r for r in rows(doc, "inertia about CoM (world)") if r["element"] == "wrist_1_link")
    FIGURES["e_wrist1_rel"].check(wrist1["relative"])
    assert wrist1["relative_to"] == "the largest principal moment"
    anchors = [r["difference"] for r in rows(doc, "joint anchor (world)")]
    FIGURES["e_offset_max_mm"].check(1e3 * max(anchors))
    assert any("wrist_1_link inertia about CoM (world)" in f and "14.3 % of the largest principal moment" in f
               for f in doc["findings"])
    m = dyn(doc, "M")
    assert m["explanation"].startswith("armature 0.1 on all 6 joints and masses and CoMs of all 6 links")


def test_the_same_file_twice_passes_with_its_count(tmp_path, capsys):
    code, doc = audit(tmp_path, str(rf.erd_ur5_urdf()), str(rf.erd_ur5_urdf()), "--engines", "none")
    assert code == Exit.PASS and doc["verdict"] == "PASS"
    assert doc["checks"]["parameters"] == len(doc["file_diffs"][0]["rows"]) > 50
    assert doc["checks"]["total"] == doc["checks"]["parameters"] + 3 * 100 * 6 + 100 * 36  # G, C·q̇, ID; M
    assert all(c["max_rel"] == 0.0 for c in doc["dynamics"])
    assert f"verdict: PASS ({doc['checks']['total']:,} checks" in capsys.readouterr().out


def test_one_file_and_no_engine_is_inconclusive(tmp_path, capsys):
    code, doc = audit(tmp_path, str(rf.erd_ur5_urdf()), "--engines", "none")
    assert code == Exit.INCONCLUSIVE and doc["verdict"] == "INCONCLUSIVE" and doc["checks"]["total"] == 0
    assert "nothing could be compared" in capsys.readouterr().out


def test_crossdyns_own_export_passes_its_own_audit(tmp_path):
    """The URDF and MJCF crossdyn writes for one arm agree: the effort 1e9 the URDF writer must write where the arm
    has none is "required by A's format" and the velocity limit MJCF cannot state "not in B's format" — called out,
    not failed (before, the placeholder effort failed the audit of crossdyn's own export: our bookkeeping)."""
    import json

    from crossdyn.cli import main

    out = tmp_path / "a"
    assert main(["export", "pan-tilt", "--urdf", str(tmp_path / "p.urdf"), "--mjcf", str(tmp_path / "p.xml")]) == 0
    code = main(["audit", str(tmp_path / "p.urdf"), str(tmp_path / "p.xml"), "--engines", "none", "--states", "20",
                 "--quiet", "--out", str(out)])
    s = json.loads((out / "summary.json").read_text())
    rows = s["file_diffs"][0]["rows"]
    assert code == 0 and s["verdict"] == "PASS", s["findings"]
    assert {r["status"] for r in rows if r["parameter"] == "effort"} == {"required by A's format"}
    assert {r["status"] for r in rows if r["parameter"] == "velocity"} == {"not in B's format"}
