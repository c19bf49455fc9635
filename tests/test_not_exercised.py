"""Issue 39, "not exercised is not could not judge": a phenomenon the arm declares but the run never reached is
NOT_EXERCISED (0 checks, the suggestion kept), leaves the verdict to the rest, and is INCONCLUSIVE only when the
user asked about it (``--require``, ``--native``, ``--calibrate-*``, the friction options).  The physics of each
suggestion is tested in tests/test_coverage_verdicts.py; here the grammar, ``--require``, the pytest plugin, the
sweep rows and the report cells, with real engines where a run is needed (short ones)."""
from __future__ import annotations

import json

import pytest

from crossdyn.cli import main
from crossdyn.comparison.options import REQUIRABLE, CompareOptions, check_require
from crossdyn.comparison.result import MetricResult, judge, unexercised
from crossdyn.errors import InputError
from crossdyn.status import Exit, Verdict


def test_not_exercised_counts_for_nothing_in_the_combined_verdict_and_alone_judges_nothing():
    assert Verdict.combine(["PASS", "NOT_EXERCISED"]) == Verdict.PASS
    assert Verdict.combine(["NOT_EXERCISED", "INCONCLUSIVE"]) == Verdict.INCONCLUSIVE
    assert Verdict.combine(["NOT_EXERCISED", "FAIL", "PASS"]) == Verdict.FAIL
    assert Verdict.combine(["NOT_EXERCISED"]) == Verdict.INCONCLUSIVE      # nothing was judged
    assert Exit.of("NOT_EXERCISED") == Exit.INCONCLUSIVE and Exit.of("not exercised") == 3
    assert Verdict.NOT_EXERCISED.word == "NOT EXERCISED"
    assert Verdict.NOT_EXERCISED not in Verdict.outcomes() and len(Verdict.outcomes()) == 3


def test_a_not_exercised_group_makes_no_check_and_keeps_its_suggestion():
    m = MetricResult("effort", judge({"pass": True}, Verdict.NOT_EXERCISED, 7, "no joint saturated; try …"))
    assert m.verdict == Verdict.NOT_EXERCISED and m.checks == 0 and m.passed is None
    assert m.not_exercised_because == "no joint saturated; try …" and m.inconclusive_because is None
    asked = unexercised({}, True, "no joint saturated")
    assert asked["verdict"] == "INCONCLUSIVE" and asked["inconclusive_because"] == "no joint saturated"
    assert "not_exercised_because" not in asked
    # judging again replaces the reason of the earlier verdict
    again = judge(unexercised({}, False, "x"), Verdict.PASS, 3)
    assert again["verdict"] == "PASS" and "not_exercised_because" not in again


def test_require_takes_known_phenomena_and_the_options_that_study_one_ask_about_it():
    assert check_require("effort, limits") == ("effort", "limits") and check_require(()) == ()
    with pytest.raises(InputError, match="unknown phenomenon 'torque'; known: limits, effort"):
        check_require("effort,torque")
    assert set(REQUIRABLE) == {"limits", "effort", "contact", "friction", "armature"}
    opt = CompareOptions(require=("effort",))
    assert opt.asks_about("effort") and not opt.asks_about("limits")
    assert CompareOptions(native=True).asks_about("limits") and CompareOptions(native=True).asks_about("contact")
    assert CompareOptions(calibrate_limits=True).asks_about("limits")
    assert CompareOptions(calibrate_contact=True).asks_about("contact")
    assert CompareOptions(characterise_friction=True).asks_about("friction")
    assert CompareOptions(native_friction=True).asks_about("friction")
    assert not CompareOptions().asks_about("effort")


def test_compare_require_with_an_unknown_name_exits_2_naming_it(capsys, tmp_path):
    code = main(["compare", "planar2r", "--require", "limits,effrot", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "--require: unknown phenomenon 'effrot'" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()                                  # refused before any work


@pytest.mark.slow  # a comparison (5-10 s here under load): make test's 7-minute budget
def test_require_of_a_phenomenon_the_arm_does_not_declare_is_inconclusive(tmp_path, capsys):
    """planar2r declares no armature and no effort: asked about, they cannot be checked (exit 3); the rest PASSes."""
    out = tmp_path / "o"
    code = main(["compare", "planar2r", "--engines", "mujoco-rk4", "--duration", "0.1", "--states", "10",
                 "--no-plots", "--quiet", "--require", "armature,effort", "--out", str(out)])
    s = json.loads((out / "summary.json").read_text())
    assert code == 3 and s["verdict"] == "INCONCLUSIVE" and s["failures"] == [], capsys.readouterr().out
    assert s["inconclusive"] == ["armature: --require armature, but planar2r declares no rotor armature: nothing to "
                                 "check", "effort: --require effort, but planar2r declares no effort limit: nothing "
                                 "to check"]
    assert s["not_exercised"] == []


@pytest.mark.slow  # a comparison (5-10 s here under load): make test's 7-minute budget
def test_the_pytest_plugin_passes_with_a_warning_and_fails_when_required(tmp_path):
    from crossdyn.pytest_plugin import NotExercisedWarning, assert_engines_agree

    arm = tmp_path / "held.toml"
    arm.write_text('name = "held"\ngravity = [0.0, -9.81, 0.0]\n\n[[links]]\nlength = 1.0\nmass = 1.0\ncom = 0.5\n'
                   'inertia = 0.08333333333333333\neffort = 40.0\n')
    with pytest.warns(NotExercisedWarning, match="effort: no joint saturated"):
        s = assert_engines_agree(arm, engines=["mujoco-rk4"], duration=0.1, states=10)
    assert s["verdict"] == "PASS" and s["engines"]["mujoco-rk4"]["effort"]["verdict"] == "NOT_EXERCISED"
    with pytest.raises(AssertionError, match="INCONCLUSIVE"):
        assert_engines_agree(arm, engines=["mujoco-rk4"], duration=0.1, states=10, require=("effort",))


def _summary(effort_verdict: str, sections: dict) -> dict:
    effort = judge({"limit_nm": [2.0]}, effort_verdict, 0, "no joint saturated: …; try --profile constant@value=3")
    engine = {"status": "ok", "trajectory": judge({}, True, 11), "effort": effort,
              "checks": {"trajectory": 11, "effort": 0}}
    return {"engines": {"pinocchio": engine}, "failures": [], "reference": {"status": "ok"},
            "inconclusive": [], "not_exercised": [f"{k}: {v}" for k, v in sections.items()] + ["effort: x"]}


def test_sweep_rows_carry_not_exercised_apart_from_the_verdict():
    from crossdyn.sweeps.rows import judgement

    summary = _summary("NOT_EXERCISED", {"limits": "no joint reached a limit"})
    row = judgement("pinocchio", summary["engines"]["pinocchio"], summary, ["pinocchio"])
    assert row["verdict"] == "PASS" and row["effort_verdict"] == "NOT_EXERCISED" and row["effort_checks"] == 0
    assert row["inconclusive"] == "" and row["checks"] == 11
    assert row["not_exercised"] == ("effort: no joint saturated: …; try --profile constant@value=3; "
                                    "limits: no joint reached a limit")
    asked = _summary("INCONCLUSIVE", {})
    asked["inconclusive"], asked["not_exercised"] = ["pinocchio: effort: no joint saturated"], []
    row = judgement("pinocchio", asked["engines"]["pinocchio"], asked, ["pinocchio"])
    assert row["verdict"] == "INCONCLUSIVE" and row["not_exercised"] == ""


def test_report_cells_say_not_exercised_in_their_own_colour():
    from crossdyn.pages import cell
    from crossdyn.reporting.blocks.text import engine_result, result_cell

    m = judge({}, Verdict.NOT_EXERCISED, 0, "no joint saturated")
    assert result_cell(m) == "NOT EXERCISED (0 checks)"
    assert cell(result_cell(m)) == '<td class="NOT_EXERCISED">NOT EXERCISED (0 checks)</td>'
    assert engine_result({"status": "ok", "trajectory": judge({}, True, 3), "effort": m}) == \
        "pass; not exercised: effort"
