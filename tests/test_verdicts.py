"""The verdict's grammar (issue 23): three outcomes, check counts, one exit-status table, FAIL > INCONCLUSIVE > PASS.

The physics of each INCONCLUSIVE (unexercised limits, a tolerance above its physical bound, …) is tested beside
the phenomenon; here: the rules every command shares."""
from __future__ import annotations

import subprocess
import sys

import pytest

from crossdyn.comparison.result import MetricResult, judge
from crossdyn.status import EXIT_TABLE, Exit, Verdict


def test_the_exit_table_is_one_table_and_precedence_is_fail_inconclusive_pass():
    assert [int(e) for e in Exit] == [0, 1, 2, 3, 130, 141]
    assert Exit.of(Verdict.PASS) == 0 and Exit.of("FAIL") == 1 and Exit.of("inconclusive") == 3
    assert Verdict.combine(["PASS", "INCONCLUSIVE", "FAIL"]) == Verdict.FAIL
    assert Verdict.combine(["PASS", "INCONCLUSIVE"]) == Verdict.INCONCLUSIVE
    assert Verdict.combine(["PASS", "PASS"]) == Verdict.PASS
    for code in ("0 ", "1 ", "2 ", "3 ", "130", "141"):
        assert f"\n  {code}" in EXIT_TABLE


def test_crossdyn_help_prints_the_exit_table():
    out = subprocess.run([sys.executable, "-m", "crossdyn", "--help"], capture_output=True, text=True, check=True).stdout
    assert "exit status (every command):" in out and "3    INCONCLUSIVE" in out and "141  broken pipe" in out


def test_a_pass_with_no_check_made_is_inconclusive():
    v = judge({}, True, 0)
    assert v["verdict"] == "INCONCLUSIVE" and v["pass"] is None and "no check was made" in v["inconclusive_because"]
    m = MetricResult("x", judge({}, True, 12))
    assert m.verdict is Verdict.PASS and m.checks == 12 and m.passed is True
    m = MetricResult("x", judge({}, False, 3, "max error 2 > tolerance 1"))
    assert m.verdict is Verdict.FAIL and m.failed_because == "max error 2 > tolerance 1" and m.passed is False
    m = MetricResult("x", judge({"pass": True}, Verdict.INCONCLUSIVE, 5, "no joint reached a limit"))
    assert m.passed is None and m.inconclusive_because == "no joint reached a limit"


def test_every_judged_group_states_its_checks_and_the_document_totals_them():
    from crossdyn import compare

    s = compare("planar2r", engines=["pinocchio"], duration=0.2, n_states=20, convergence_dts=()).summary
    assert s["schema"] == "crossdyn.compare/2" and s["verdict"] == "PASS" and s["inconclusive"] == []
    e = s["engines"]["pinocchio"]
    judged = {k: v for k, v in e.items() if isinstance(v, dict) and "verdict" in v}
    assert set(judged) >= {"trajectory", "inverse_dynamics", "forward_dynamics", "mass_matrix", "energy"}
    assert judged["trajectory"]["checks"] == 201                       # samples 0, dt, …, 0.2 s
    assert judged["inverse_dynamics"]["checks"] == judged["mass_matrix"]["checks"] == 20   # the states
    assert e["checks"] == {k: v["checks"] for k, v in judged.items()}
    assert s["checks"]["total"] == sum(v for k, v in s["checks"].items() if k != "total") > 0


def test_a_comparison_that_checked_nothing_is_inconclusive_and_the_plugin_fails_it():
    """PyBullet cannot represent rotor armature: it is unsupported, so nothing was compared."""
    from crossdyn import compare
    from crossdyn.pytest_plugin import assert_engines_agree

    c = compare("planar3r-geared", engines=["pybullet"], duration=0.1, n_states=5, convergence_dts=())
    assert c.verdict is Verdict.INCONCLUSIVE and not c.passed
    assert any("no engine made a check" in line and "pybullet unsupported" in line for line in c.summary["inconclusive"])
    with pytest.raises(AssertionError, match="INCONCLUSIVE"):
        assert_engines_agree("planar3r-geared", engines=["pybullet"], duration=0.1, states=5)


def test_compare_exits_3_on_an_inconclusive_comparison(tmp_path, capsys):
    from crossdyn.cli import main

    code = main(["compare", "planar3r-geared", "--engines", "pybullet", "--duration", "0.1", "--states", "5",
                 "--no-plots", "--out", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert code == 3 and "verdict: INCONCLUSIVE" in out and "  INCONCLUSIVE no engine made a check" in out
