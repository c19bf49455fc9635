"""``compare ARM --derivatives`` (issue 41, second slice): the ``derivatives`` metric group
(:mod:`crossdyn.comparison.groups.derivatives`) in the comparison of every arm kind.

* fast: a short planar2r run through the CLI (table column, summary fields against the schema, checks counted,
  report section, engines without derivatives "not offered"); the pure block check (NaN → FAIL naming the entry);
  a NaN derivative injected by an engine subclass is a FAIL, not a crash; without --derivatives no field appears.
* seeded derivative faults (a transposed block, a dropped damping term) injected into the engines' results by
  subclasses of the group's engine sources FAIL naming the block, the unfaulted engines PASS;
* slow: the two must-hold commands (planar3r, the UR5e URDF) PASS with Pinocchio and MuJoCo.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from crossdyn.comparison.groups import derivatives as dg
from crossdyn.models.presets import PRESETS
from crossdyn.status import Verdict
import seeded_derivative_faults as sdf

ROOT = Path(__file__).resolve().parent.parent
PLANAR_SCHEMA = ROOT / "crossdyn" / "comparison" / "summary.schema.json"
ROBOT_SCHEMA = ROOT / "crossdyn" / "cli" / "schemas" / "robot-compare.schema.json"


def _run(args: list[str], out: Path, capsys) -> tuple[dict, str]:
    from crossdyn.cli import main

    main(["compare", *args, "--out", str(out), "--no-plots", "--quiet"])
    return json.loads((out / "summary.json").read_text()), capsys.readouterr().out


def _validate(summary: dict, schema: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(summary, json.loads(schema.read_text()))


def test_check_block_nan_fails_naming_the_entry():
    got, ref = np.zeros((3, 2, 2)), np.zeros((3, 2, 2))
    got[1, 0, 1] = np.nan
    b = dg.check_block("dqdd_dqd", got, ref, 1e-9, "m")
    assert b.verdict is Verdict.FAIL and np.isnan(b.max_ratio) and b.checks == 12
    assert (b.worst["state"], b.worst["row"], b.worst["column"]) == (1, 1, 2)
    ok = dg.check_block("dqdd_dqd", ref + 5e-10, ref, 1e-9, "m")
    assert ok.verdict is Verdict.PASS and ok.max_ratio == pytest.approx(0.5)
    zeros = dg.check_block("dqdd_dq", ref, ref, 0.0, "m")  # a block of zeros (a prismatic arm's ∂q̈/∂q): tolerance 0
    assert zeros.verdict is Verdict.PASS and zeros.max_ratio == 0.0
    assert dg.check_block("dqdd_dq", ref + 1e-300, ref, 0.0, "m").verdict is Verdict.FAIL


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_planar2r_short_run(tmp_path, capsys):
    pytest.importorskip("pinocchio")
    pytest.importorskip("mujoco")
    s, table = _run(["planar2r", "--derivatives", "--duration", "0.1", "--states", "10",
                     "--engines", "analytic,pinocchio,mujoco"], tmp_path, capsys)
    _validate(s, PLANAR_SCHEMA)
    assert s["derivatives"]["states"] == 10
    e = s["engines"]
    assert "derivatives" not in e["analytic"]
    assert e["pinocchio"]["derivatives"]["verdict"] == "PASS"
    assert e["pinocchio"]["derivatives"]["checks"] == 6 * 2 * 2 * 10  # six blocks, 2 x 2 entries, 10 states
    assert e["mujoco"]["derivatives"]["verdict"] == "PASS"
    assert e["mujoco"]["derivatives"]["checks"] == 9 * 2 * 2 * 10  # A, B in six blocks and three inverse blocks
    assert s["checks"]["derivatives"] == 600
    head = next(line for line in table.splitlines() if line.startswith("engine"))
    assert head.split()[-1] == "derivatives"
    assert "not offered" in next(line for line in table.splitlines() if line.startswith("analytic"))
    report = (tmp_path / "report.md").read_text()
    assert "Derivatives" in report and "∂q̈/∂q̇" in report
    # gradients through time (crossdyn.derivatives.rollout): Pinocchio both directions, MuJoCo the torque offset
    pin, mj = e["pinocchio"]["derivatives"]["rollout"], e["mujoco"]["derivatives"]["rollout"]
    assert pin["torque_offset"]["max_relative"] < 1e-10 and pin["mass of link2"]["max_relative"] < 1e-10
    assert "mass of link2" not in mj and mj["torque_offset"]["max_relative"] < 1e-3
    assert mj["method"] == "semi-implicit-euler" and pin["method"] == "rk4"
    assert "### Gradients through time" in report and "| pinocchio | mass of link2 |" in report


def test_no_derivatives_without_the_option(tmp_path, capsys):
    s, table = _run(["planar2r", "--duration", "0.05", "--states", "5", "--engines", "analytic"], tmp_path, capsys)
    assert "derivatives" not in s and "derivatives" not in s["engines"]["analytic"]
    assert "derivatives" not in next(line for line in table.splitlines() if line.startswith("engine"))


def test_a_failing_arm_fails_the_batch_entry_naming_the_arm(tmp_path):
    pytest.importorskip("pinocchio")
    from crossdyn.comparison.batch_derivatives import _entry

    model = _planar("planar3r-friction", tmp_path)
    states = _states(3)
    good = dg.derivatives_group("pinocchio", model, *states, 1e-3)
    bad = dg.derivatives_group("pinocchio", model, *states, 1e-3, source=sdf.TransposedPinocchio())
    e = _entry("pinocchio", [(0, good), (1, bad)], 2)
    assert e["verdict"] == "FAIL" and e["failed_because"].startswith("arm 1: pinocchio ∂τ/∂q entry")
    assert e["checks"] == good.values["checks"] + bad.values["checks"]
    assert _entry("pinocchio", [(0, good)], 1)["verdict"] == "PASS"


class NaNPinocchio(dg.PinocchioDerivatives):
    """Pinocchio with one NaN written into ∂τ/∂q̈ at state 2 (an engine returning a NaN gradient)."""

    def blocks(self, model, Q, QD, TAU, QDD):
        d = super().blocks(model, Q, QD, TAU, QDD)
        d.dtau_dqdd[2, 0, 1] = np.nan
        return d


def _planar(name: str, folder) -> object:
    from crossdyn.derivatives.engines import file_model
    return file_model(PRESETS[name](), folder)


def _states(n: int, N: int = 5):
    rng = np.random.default_rng(1)
    return rng.uniform(-2, 2, (N, n)), rng.uniform(-2, 2, (N, n)), rng.uniform(-5, 5, (N, n))


def test_nan_derivative_is_a_fail_not_a_crash(tmp_path):
    pytest.importorskip("pinocchio")
    model = _planar("planar2r", tmp_path)
    m = dg.derivatives_group("pinocchio", model, *_states(2), 1e-3, source=NaNPinocchio())
    assert m.verdict is Verdict.FAIL
    assert "pinocchio ∂τ/∂q̈ entry (1, 2) at state 2: not finite" in m.values["failed_because"]
    assert m.values["worst_ratio"] is None


@pytest.mark.slow  # two comparisons, ~10 s
def test_must_hold_planar3r_and_the_ur5e_urdf(tmp_path, capsys):
    pytest.importorskip("pinocchio")
    pytest.importorskip("mujoco")
    s, _ = _run(["planar3r", "--derivatives", "--engines", "pinocchio,mujoco"], tmp_path / "p", capsys)
    _validate(s, PLANAR_SCHEMA)
    assert s["derivatives"]["states"] == dg.MAX_STATES
    assert {n: e["derivatives"]["verdict"] for n, e in s["engines"].items()} == {"pinocchio": "PASS", "mujoco": "PASS"}
    s, table = _run([str(ROOT / "examples" / "robots" / "ur5e_description.urdf"), "--derivatives",
                     "--engines", "pinocchio,mujoco-rk4"], tmp_path / "u", capsys)
    _validate(s, ROBOT_SCHEMA)
    got = {n: e["derivatives"]["verdict"] for n, e in s["engines"].items()}
    assert got == {"pinocchio": "PASS", "mujoco-rk4": "PASS"}, [e["derivatives"].get("failed_because")
                                                               for e in s["engines"].values()]
    assert "RK4 refused" in s["engines"]["mujoco-rk4"]["derivatives"]["blocks"]["dqnext_dq"]["method"]
    assert table.splitlines()[1].split()[-1] == "derivatives"


class UndampedMuJoCoInverse(dg.MuJoCoDerivatives):
    """Seeded fault: mjd_inverseFD's ∂τ/∂q̇ without the damping term diag(b)."""

    def inverse(self, model, Q, QD, QDD, engine):
        dq, dv, da = super().inverse(model, Q, QD, QDD, engine)
        return dq, dv - np.diag([j.damping for j in model.joints]), da


@pytest.mark.parametrize("engine, source, block", [
    ("pinocchio", sdf.TransposedPinocchio(), "∂τ/∂q"),
    ("pinocchio", sdf.UndampedPinocchio(), "∂q̈/∂q̇"),
    ("mujoco", UndampedMuJoCoInverse(), "∂τ/∂q̇"),
])
def test_seeded_derivative_faults_fail_naming_the_block(tmp_path, engine, source, block):
    pytest.importorskip("pinocchio")
    pytest.importorskip("mujoco")
    model = _planar("planar3r-friction", tmp_path)
    assert all(j.damping > 0 for j in model.joints)
    states = _states(3)
    clean = dg.derivatives_group(engine, model, *states, 1e-3)
    assert clean.verdict is Verdict.PASS
    m = dg.derivatives_group(engine, model, *states, 1e-3, source=source)
    assert m.verdict is Verdict.FAIL
    failed = [b["label"] for b in m.values["blocks"].values() if b["verdict"] == "FAIL"]
    assert failed == [block], failed
    assert m.values["failed_because"].startswith(f"{engine} {block} entry (")
