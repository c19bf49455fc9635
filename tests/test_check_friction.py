"""`crossdyn check` and the user's friction function F(qd, p) (issue 25): found, compared entry by entry with
crossdyn's F_i = b_i qd_i + fc_i sign(qd_i) at random states and parameter sets whose b and fc are drawn anew, a wrong
entry read back as the law it follows; a friction arm checked against a file without F says friction was not
checked.  Real files, the real command (Python; MATLAB through GNU Octave when it is installed)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from crossdyn.cli import main
from crossdyn.equations.octave_session import find_octave

FILES = Path(__file__).parent / "check_files"
ARM = "planar3r-friction"      # damping 0.05 N m s/rad and Coulomb (1.5, 0.6, 0.15) N m
ARGS = ["--states", "30", "--random-params", "2"]

RIGHT_PY = """

def F(qd, p):
    return [p.b[i] * qd[i] + p.fc[i] * (1.0 if qd[i] > 0 else -1.0) for i in range(3)]
"""
VISCOUS_ONLY_PY = """

def friction(qd, p):
    return [p.b1 * qd[0], p.b2 * qd[1], p.b3 * qd[2]]
"""
NUMBERS_PY = """

def F(qd, p):     # this arm's own numbers written in: right for it, wrong for any other b and fc
    s = [1.0 if v > 0 else -1.0 for v in qd]
    return [0.05 * qd[0] + 1.5 * s[0], 0.05 * qd[1] + 0.6 * s[1], 0.05 * qd[2] + 0.15 * s[2]]
"""


def _check(tmp_path, name: str, text: str, arm: str = ARM, *extra: str) -> tuple[int, dict, str]:
    f = tmp_path / name
    f.write_text(text)
    out = tmp_path / (name + ".out")
    code = main(["check", arm, str(f), "--out", str(out), *ARGS, *extra])
    return code, json.loads((out / "check.json").read_text()), (out / "check.md").read_text()


def _py(extra: str) -> str:
    return (FILES / "textbook_3r.py").read_text() + extra


def test_a_right_friction_function_is_compared_and_passes(tmp_path, capsys):
    code, data, _ = _check(tmp_path, "right.py", _py(RIGHT_PY))
    assert code == 0 and data["verdict"] == "correct", data["wrong_entries"]
    assert data["functions"]["F"] == "F(qd, p)"
    assert data["friction"]["checked"] is True and data["friction"]["wrong_entries"] == []
    rows = {e["entry"]: e for e in data["entries"] if e["quantity"] == "F"}
    assert list(rows) == ["F1", "F2", "F3"] and all(r["ok"] for r in rows.values())
    assert all(r["max_abs_error"] <= 1e-12 for r in rows.values())    # the same law, to rounding
    assert data["checks"]["F"] == 3 * 30 * 3                          # entries x states x parameter sets
    out = capsys.readouterr().out
    assert "F(qd, p) -> 3-vector" in out and "F 270" in out


def test_a_friction_function_without_coulomb_is_wrong_and_says_which_law_it_follows(tmp_path, capsys):
    code, data, md = _check(tmp_path, "viscous.py", _py(VISCOUS_ONLY_PY))
    assert code == 1 and data["verdict"] == "wrong"
    assert data["functions"]["F"] == "friction(qd, p)"
    assert data["wrong_entries"] == data["friction"]["wrong_entries"] == ["F1", "F2", "F3"]
    for f in (f for f in data["findings"] if f["quantity"] == "F"):
        j = f["index"][0]
        msg = f["messages"][0]
        assert msg.startswith(f"your F{j} = ") and f"*qd{j} + 0*sign(qd{j})" in msg, msg   # no Coulomb term
        assert f"expected b{j}*qd{j} + fc{j}*sign(qd{j})" in msg
        # the error is the Coulomb level f_c at that set (|sign| = 1): the expected fc the message prints (4
        # significant digits, so to 5e-4 relative)
        fc = float(msg.rsplit("+ ", 1)[1].split("*")[0])
        assert f["max_abs_error"] == pytest.approx(fc, rel=5e-4) and fc > 0.04
        assert f["wrong_param_sets"] == [0, 1, 2]
    assert "your F1 = " in md
    assert "WRONG: 3 entries wrong: F1, F2, F3" in capsys.readouterr().out


def test_the_arms_numbers_written_in_are_right_only_at_its_own_parameters(tmp_path):
    code, data, _ = _check(tmp_path, "numbers.py", _py(NUMBERS_PY))
    assert code == 1
    found = {f["entry"]: f for f in data["findings"] if f["quantity"] == "F"}
    assert set(found) == {"F1", "F2", "F3"}
    for f in found.values():
        assert f["wrong_param_sets"] == [1, 2] and f["hidden_by_own_params"] is True
    j3 = found["F3"]["messages"][0]
    assert j3.startswith("your F3 = 0.05*qd3 + 0.15*sign(qd3); expected"), j3


def test_a_friction_arm_and_a_file_without_friction_says_it_is_not_checked(tmp_path):
    code, data, _ = _check(tmp_path, "plain.py", _py(""))
    assert code == 0 and "F" not in data["functions"] and data["friction"]["checked"] is False
    assert any("defines no friction function (looked for F / friction)" in n and "not checked" in n
               for n in data["notes"])
    # an arm without friction: nothing to say
    code, data, _ = _check(tmp_path, "plain3r.py", _py(""), "planar3r")
    assert code == 0 and not any("friction" in n for n in data["notes"])


def test_a_frictionless_arm_still_checks_a_friction_function_against_random_b_and_fc(tmp_path):
    """planar3r has b = fc = 0: F = 0 is right at its own set; F(qd) with p.b/p.fc is right at every set."""
    code, data, _ = _check(tmp_path, "zero.py", _py("\n\ndef F(qd, p):\n    return [0.0, 0.0, 0.0]\n"), "planar3r")
    assert code == 1 and all(f["wrong_param_sets"] == [1, 2] for f in data["findings"] if f["quantity"] == "F")
    code, data, _ = _check(tmp_path, "right3r.py", _py(RIGHT_PY), "planar3r")
    assert code == 0 and data["friction"]["checked"] is True


def test_a_friction_function_of_the_wrong_shape_makes_the_file_unusable(tmp_path, capsys):
    f = tmp_path / "shape.py"
    f.write_text(_py("\n\ndef F(qd, p):\n    return [1.0, 2.0]\n"))
    assert main(["check", ARM, str(f), "--out", str(tmp_path / "o"), *ARGS]) == 2
    err = capsys.readouterr().err
    assert "F(qd, p) returned shape (2,); expected (3,) for this 3-link arm" in err and "Traceback" not in err


def test_names_maps_the_friction_function(tmp_path):
    code, data, _ = _check(tmp_path, "named.py", _py(RIGHT_PY.replace("def F(", "def joint_friction(")), ARM,
                           "--names", "F=joint_friction")
    assert code == 0 and data["functions"]["F"] == "joint_friction(qd, p)" and data["friction"]["checked"]


@pytest.mark.slow  # fast tier's 7-minute budget; covered in the slow tier, which .ci/run runs
@pytest.mark.skipif(find_octave() is None, reason="GNU Octave (octave-cli) is not installed")
def test_matlab_friction_functions_right_and_wrong(tmp_path):
    base = (FILES / "matlab" / "textbook_3r.m").read_text()
    right = base + "\nfunction out = F(qd, p)\n  out = p.b .* qd + p.fc .* sign(qd);\nend\n"
    wrong = base + "\nfunction out = friction(qd, p)\n  out = p.b .* qd;\nend\n"
    code, data, _ = _check(tmp_path, "right.m", right)
    assert code == 0 and data["functions"]["F"] == "F(qd, p)" and data["checks"]["F"] == 270
    assert all(e["ok"] and e["max_abs_error"] <= 1e-12 for e in data["entries"] if e["quantity"] == "F")
    code, data, _ = _check(tmp_path, "wrong.m", wrong)
    assert code == 1 and data["wrong_entries"] == ["F1", "F2", "F3"]
    assert all("+ 0*sign(qd" in f["messages"][0] for f in data["findings"] if f["quantity"] == "F")


def test_a_friction_function_that_raises_names_the_call_and_the_users_line_in_the_sandbox(tmp_path, capsys):
    """The sandboxed worker calls F (default --sandbox auto): an exception names the call, the state and the
    user's own line, as in-process (--sandbox off) does."""
    f = tmp_path / "raises.py"
    f.write_text(_py("\n\ndef F(qd, p):\n    return 1 / 0\n"))
    for sandbox in ("auto", "off"):
        assert main(["check", ARM, str(f), "--out", str(tmp_path / sandbox), *ARGS, "--sandbox", sandbox]) == 2
        err = capsys.readouterr().err
        assert "F(qd, p) raised ZeroDivisionError: division by zero" in err and "at q = [" in err, err
        assert "raises.py\", line" in err and "return 1 / 0" in err and "crossdyn-python-" not in err, err
