"""``crossdyn derive ARM`` then ``crossdyn check ARM`` (issue 39): crossdyn's own equations pass its own check on
every arm kind — with the arm's numbers written in (``--numeric``: functions without p, checked at the arm's own
parameters on planar and spatial arms alike, one rule) and in symbols; term naming has a time budget and says so
when it runs out ("term naming unavailable (budget N s)"), on any arm; a spatial arm with rotor armature is
checked at random parameter sets too (its ``Ia{i}`` drawn like a length)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from crossdyn import sandbox
from crossdyn.checking.options import CheckOptions
from crossdyn.checking.spatial_arms import SPATIAL_PRESETS
from crossdyn.checking.spatial_check import check_spatial
from crossdyn.cli import main
from crossdyn.models import PRESETS
from spatial_check_files import every_entry_wrong

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "check"
PUMA = ROOT / "examples" / "robots" / "puma560_rtb.toml"
OCTAVE = shutil.which("octave-cli") is not None
FAST = CheckOptions(states=20, random_params=2)
OWN_ONLY = "everything is checked at the arm's own parameters only"


@pytest.fixture(autouse=True)
def _in_process(monkeypatch):
    """The user's code runs in this process (the sandbox's worker is tested elsewhere)."""
    monkeypatch.setenv(sandbox.ENVIRONMENT_VARIABLE, sandbox.Policy(sandbox.Mode.OFF).to_text())


def _derive_then_check(tmp_path, arm: str, fmt: str, *extra: str) -> dict:
    """``derive ARM --format FMT [extra] --out F`` (exit 0), then ``check ARM F``: its check.json, exit code added."""
    path = tmp_path / ("derived" + (".m" if fmt == "matlab" else ".py"))
    assert main(["derive", arm, "--format", fmt, *extra, "--out", str(path)]) == 0
    out = tmp_path / "out"
    code = main(["check", arm, str(path), "--out", str(out)])
    return json.loads((out / "check.json").read_text()) | {"exit": code}


def test_numeric_spatial_file_passes_at_own_parameters(tmp_path):
    """The issue's reproduction: scara's derived --numeric file FAILed with 10 wrong entries (its functions, without
    p, were evaluated at random parameter sets); now it PASSes, checked at the arm's own parameters, and says so."""
    data = _derive_then_check(tmp_path, "scara", "python", "--numeric")
    assert data["exit"] == 0 and data["verdict"] == "correct"
    assert data["random_params"] == 0 and OWN_ONLY in data["params_note"]
    assert data["entries"] and all(row["ok"] for row in data["entries"])


@pytest.mark.slow
@pytest.mark.parametrize("arm", sorted(SPATIAL_PRESETS) + sorted(PRESETS))
@pytest.mark.parametrize("fmt", ["python", pytest.param("matlab", marks=pytest.mark.skipif(
    not OCTAVE, reason="needs GNU Octave"))])
@pytest.mark.parametrize("numeric", [True, False], ids=["numeric", "symbols"])
def test_derived_file_passes_check(tmp_path, arm, fmt, numeric):
    """Every preset, spatial and planar: its derived file (numbers or symbols, Python or MATLAB) PASSes check; the
    numeric one at the arm's own parameters only, the symbolic one at random parameter sets too."""
    data = _derive_then_check(tmp_path, arm, fmt, *(["--numeric"] if numeric else []))
    assert data["exit"] == 0 and data["verdict"] == "correct", [row["entry"] for row in data["entries"]
                                                                if not row["ok"]]
    assert (OWN_ONLY in data["params_note"]) == numeric
    assert (data["random_params"] == 0) == numeric


def test_naming_budget_spent_lists_entries_without_terms(monkeypatch):
    """With no time left for naming (budget 0 s), the wrong entry is still reported, its term line says "term
    naming unavailable (budget 0 s)", and a note counts the entries left unnamed; the verdict is unchanged."""
    from crossdyn.checking import spatial_naming

    monkeypatch.setattr(spatial_naming, "NAMING_BUDGET_S", 0.0)
    r = check_spatial("scara", EXAMPLES / "my_scara_buggy.py", FAST)
    assert [f.entry for f in r.wrong] == ["G3"] and not r.passed
    assert "term: term naming unavailable (budget 0 s)" in r.finding("G3").messages
    assert not any("is missing" in m for m in r.finding("G3").messages)
    assert any("term naming stopped at its budget of 0 s" in n and "1 of 1 wrong entries" in n for n in r.notes)


def test_naming_within_budget_names_the_term():
    """The same file with the default budget: the term is named (the budget is not spent on a 3-joint arm)."""
    r = check_spatial("scara", EXAMPLES / "my_scara_buggy.py", FAST)
    assert any("the term -g*m3 is missing" in m for m in r.finding("G3").messages)
    assert not any("term naming unavailable" in m for m in r.finding("G3").messages)


def test_numeric_file_with_a_wrong_entry_is_not_named(tmp_path):
    """A --numeric file (functions without p) with one entry wrong: the entry is named, its terms are not (they
    cannot be told apart in the parameters), and a note says why."""
    path = tmp_path / "s.py"
    assert main(["derive", "scara", "--numeric", "--format", "python", "--out", str(path)]) == 0
    path.write_text(path.read_text().replace("return [0, 0, -9.81]", "return [0, 0, -9.0]"))
    r = check_spatial("scara", path, FAST)
    assert [f.entry for f in r.wrong] == ["G3"]
    assert not any(m.startswith("term:") for m in r.finding("G3").messages)
    assert any(n.startswith("terms are not named for G(q)") for n in r.notes)


def _with_armature(tmp_path) -> Path:
    """rp-polar's spec written out under another name with a rotor armature on joint 1 (0.05 kg m^2)."""
    from crossdyn.models.spatial_presets import SPATIAL_PRESETS as SPECS
    from crossdyn.models.spatial_spec_io import dumps_spatial_spec

    text = dumps_spatial_spec(SPECS["rp-polar"]()).replace('name = "rp-polar"', 'name = "my-rp-geared"')
    head, sep, rest = text.partition("[[joints]]\n")
    path = tmp_path / "my_rp_geared.toml"
    path.write_text(head + sep + "armature = 0.05\n" + rest)
    return path


def test_spatial_arm_with_armature_is_checked_at_random_sets(tmp_path):
    """A spatial arm with armature (p.Ia1): its derived file PASSes at random parameter sets (Ia1 drawn too; the
    check stopped with a KeyError 'Ia1' before), and a file that forgets Ia1 is named to that term."""
    arm = str(_with_armature(tmp_path))
    path = tmp_path / "rp.py"
    assert main(["derive", arm, "--format", "python", "--out", str(path)]) == 0
    assert "Ia1" in path.read_text()
    r = check_spatial(arm, path, FAST)
    assert r.passed and r.random_params == 2 and not r.params_note
    assert len({s["values"]["Ia1"] for s in r.param_sets}) == 3          # the own set's and two drawn
    path.write_text(path.read_text().replace("Ia1 + ", "", 1))
    r = check_spatial(arm, path, FAST)
    assert [f.entry for f in r.wrong] == ["M11"]
    assert any("the term Ia1 is missing" in m for m in r.finding("M11").messages)


@pytest.mark.slow
def test_six_dof_arm_every_entry_wrong_is_bounded(tmp_path):
    """The Puma 560 (6 joints, standard DH) with every entry of M, C, G wrong (each x1.1 + 0.05): every wrong entry
    is listed, each with one term line (named, not one term, or "term naming unavailable (budget 20 s)"), or, when
    the derivation itself ran past its budget, a note saying term naming is unavailable.  (Its time is measured in
    benchmarks/check_spatial.py, not here.)"""
    sym = tmp_path / "puma.py"
    assert main(["derive", str(PUMA), "--format", "python", "--out", str(sym)]) in (0, 2)
    if not sym.exists():
        pytest.skip("the Puma's derivation ran past derive's budget on this machine")
    wrong = tmp_path / "puma_wrong.py"
    wrong.write_text(every_entry_wrong(sym.read_text()))
    r = check_spatial(str(PUMA), wrong, CheckOptions(states=30, random_params=2))
    assert not r.passed
    expected = {f"M{i}{j}" for i in range(1, 7) for j in range(i, 7)} | {f"G{i}" for i in range(1, 7)} | {
        f"Cqd{i}" for i in range(1, 7)}
    assert expected <= {f.entry for f in r.wrong}
    derivation_over = any("term naming is unavailable (the symbolic derivation" in n for n in r.notes)
    for f in r.wrong:
        lines = [m for m in f.messages if m.startswith("term:")]
        assert len(lines) == (0 if derivation_over else 1), (f.entry, f.messages)
    unnamed = [f for f in r.wrong if "term: term naming unavailable (budget 20 s)" in f.messages]
    assert bool(unnamed) == any(n.startswith("term naming stopped at its budget of 20 s") for n in r.notes)


def test_help_states_the_naming_budget(capsys):
    """`check --help` says what the checker does: the own-parameters rule on both arm kinds and naming's budget
    (the number :data:`~crossdyn.checking.spatial_naming.NAMING_BUDGET_S`)."""
    from crossdyn.checking.spatial_naming import NAMING_BUDGET_S

    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "checked at the arm's own parameters only, on planar and spatial arms alike" in text
    assert f"within a time budget ({NAMING_BUDGET_S:g} s after the derivation)" in text
