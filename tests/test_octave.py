"""MATLAB equations through GNU Octave: the same check, the same diagnosis, the same engine as Python files.

Every MATLAB file under tests/check_files/matlab/ is written out by hand (textbook style, or by the Jacobian
method), without calling crossdyn; broken files are those with one deliberate edit.  Octave runs for real
(``octave-cli``; ``make test`` installs it): these tests are skipped, with the reason, only where it is absent.
"""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import edited_copy
from crossdyn.cli import main
from crossdyn.checking.checker import UserFileError, check
from crossdyn.engines import make_engine
from crossdyn.models import get_preset
from crossdyn.equations.octave_model import OctaveModel
from crossdyn.equations.octave_session import find_octave

pytestmark = pytest.mark.skipif(find_octave() is None, reason="GNU Octave (octave-cli) is not installed; "
                                "'make test' installs it (apt-get install octave)")

ROOT = Path(__file__).parent.parent
FILES = Path(__file__).parent / "check_files"
MFILES = FILES / "matlab"
FAST = {"states": 200, "random_params": 5}


def variant(tmp_path, base: str, old: str, new: str, name: str = "mine.m") -> str:
    """A copy of check_files/matlab/<base> with one edit (which must apply exactly once)."""
    return edited_copy(MFILES, tmp_path, base, old, new, name)


def text_of(result) -> str:
    from crossdyn.checking.report import render_text
    out = render_text(result).splitlines()
    return "\n".join(ln for ln in out[1:] if not ln.startswith("checked in"))     # drop the file name and timing


def term(finding, name):
    return next(t for t in finding.terms if t.term == name)


# ----------------------------------------------------------------------------- same as Python

@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_worked_example_in_matlab_gives_the_same_diagnosis():
    # examples/check/my_3r_buggy.m is the Python example of docs/tutorial/first-check.md transcribed line by line
    py = check("planar3r", ROOT / "examples/check/my_3r_buggy.py")
    m = check("planar3r", ROOT / "examples/check/my_3r_buggy.m")
    assert m.language == "matlab" and py.language == "python"
    assert [f.entry for f in m.wrong] == ["M11", "M12"]
    assert text_of(m) == text_of(py)                          # every number and sentence
    assert "yours has m3*L1 where m3*L1^2 belongs" in text_of(m)
    assert "yours lacks m3*L2*Lc3" in text_of(m)


@pytest.mark.parametrize("arm, file", [
    ("planar2r", "textbook_2r.m"),
    ("planar2r-pointmass", "textbook_2r.m"),
    ("planar2r-pointmass", "pointmass_2r"),               # a folder of function files, C as a vector, G a row
    ("planar3r", "textbook_3r.m"),                        # zeros(3) then entries, C by loops over a cell
    ("planar2r", "generated_2r.m"),                       # matlabFunction style: in1(2,:), reshape([...], [2, 2])
    ("planar3r-general", "textbook_3r.m"),
])
def test_correct_matlab_files_pass_every_preset(arm, file):
    r = check(arm, MFILES / file, **FAST)
    assert r.verdict == "correct", [f.messages for f in r.findings]
    assert r.findings == [] and r.hints == []
    assert {s.status for s in r.structure} <= {"ok", "skipped"}
    assert all(e["ok"] for e in r.entries)


def test_jacobian_method_file_for_any_n_and_tilted_gravity(tmp_path):
    # loops over 3-D arrays: evaluated one state at a time (the batch value does not cover them)
    spec_path = tmp_path / "tilted.toml"
    spec_path.write_text('name = "tilted"\ngravity = [3.0, -8.0, 0.0]\n'
                         + "".join(f"[[links]]\nlength = {L}\nmass = {m}\ncom = {c}\ninertia = {J}\n"
                                   for L, m, c, J in [(0.9, 1.3, 0.3, 0.05), (0.7, 0.6, 0.5, 0.01)]))
    # (the energy check, 6,000 more calls of this slow path, is exercised by the other files)
    assert check(spec_path, MFILES / "textbook_nr.m", states=20, random_params=2, energy=False).verdict == "correct"
    assert check("planar4r", MFILES / "textbook_nr.m", states=12, random_params=1, energy=False).verdict == "correct"


@pytest.mark.parametrize("arm, file", [("planar3r-general", "textbook_3r.m"), ("planar2r", "generated_2r.m"),
                                       ("planar2r-pointmass", "pointmass_2r")])
def test_batch_evaluation_equals_one_call_at_a_time(arm, file):
    # the batch value runs each function once for all states; the loop is the plain path
    spec = get_preset(arm)
    n = spec.n
    model = OctaveModel(MFILES / file, n)
    rng = np.random.default_rng(1)
    Q, QD = rng.uniform(-3, 3, (100, n)), rng.uniform(-2, 2, (100, n))
    p = spec.params()
    P = np.tile(np.concatenate([p.L, p.m, p.Lc, p.J, p.b, p.fc, [0.0, -9.81, 0.0]]), (3, 1))
    P[1:, n:2 * n] *= rng.uniform(0.5, 2.0, (2, n))             # the masses differ between the sets
    fast = model.evaluate(Q, QD, P)
    assert model.last_paths == "vvv"
    model.vectorise = False
    slow = model.evaluate(Q, QD, P)
    assert model.last_paths == "lll"
    for role in ("M", "C", "G"):
        # the same floating-point operations in another order at most: 1e-14 relative (measured 1e-16)
        np.testing.assert_allclose(fast[role], slow[role], rtol=0, atol=1e-14 * np.max(np.abs(slow[role])))
    model.close()


# ----------------------------------------------------------------------------- broken files caught

def test_missing_factor_2_in_M12_named(tmp_path):
    f = variant(tmp_path, "textbook_3r.m", "m3*(L2^2 + Lc3^2 + L1*L2*c2 + L1*Lc3*c23 + 2*L2*Lc3*c3)",
                "m3*(L2^2 + Lc3^2 + L1*L2*c2 + L1*Lc3*c23 + L2*Lc3*c3)")
    spec = get_preset("planar3r-general")
    m3, L2, Lc3 = spec.links[2].mass, spec.links[1].length, spec.links[2].com
    r = check(spec, f, **FAST)
    assert [x.entry for x in r.wrong] == ["M12"]
    t = term(r.finding("M12"), "cos(q3)")
    assert t.found == pytest.approx(m3 * L2 * Lc3) and t.expected == pytest.approx(2 * m3 * L2 * Lc3)
    assert t.difference == "-m3*L2*Lc3"


def test_sin_for_cos_in_gravity_named(tmp_path):
    f = variant(tmp_path, "textbook_3r.m", "g3 = p.m3*p.Lc3*p.g*cos(q(1) + q(2) + q(3));",
                "g3 = p.m3*p.Lc3*p.g*sin(q(1) + q(2) + q(3));")
    r = check("planar3r-general", f, **FAST)
    assert {x.entry for x in r.wrong} == {"G1", "G2", "G3"}
    assert "G3: sin(q1+q2+q3) is used where cos(q1+q2+q3) belongs" in "\n".join(r.finding("G3").messages)


def test_flipped_sign_in_coriolis_matrix_named(tmp_path):
    f = variant(tmp_path, "textbook_2r.m", "-h*qd(1), 0];", "h*qd(1), 0];")
    spec = get_preset("planar2r")
    a = spec.links[1].mass * spec.links[1].com * spec.links[0].length
    r = check(spec, f, **FAST)
    assert {x.entry for x in r.wrong} == {"Cqd2", "C21"}
    t = term(r.finding("Cqd2"), "qd1^2*sin(q2)")
    assert t.expected == pytest.approx(a) and t.found == pytest.approx(-a)
    assert "sign is flipped" in t.reading
    assert {s.name: s.status for s in r.structure}["Mdot - 2C skew-symmetric"] == "failed"


def test_gravity_on_the_wrong_side_gets_the_hint(tmp_path):
    f = variant(tmp_path, "textbook_2r.m", "out = [g1; g2];", "out = -[g1; g2];")
    r = check("planar2r", f, **FAST)
    assert any("exactly the negative" in x["text"] and "left-hand side" in x["text"] for x in r.explanations)


# ----------------------------------------------------------------------------- functions without p (issue 11, 7)

def test_matlab_functions_without_p_are_checked_at_the_arms_parameters(capsys, tmp_path):
    out = tmp_path / "o"
    assert main(["check", "planar2r", str(MFILES / "numbers_2r.m"), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[1].strip().startswith("your functions: M(q) -> 2x2 matrix; C(q, qd)")
    assert "x the arm's own parameters" in lines[2]
    assert "do not read p (parameters written as numbers), so random parameter sets cannot apply" in lines[3]
    assert text.count("random parameter sets cannot apply") == 1          # said once, at the top
    data = json.loads((out / "check.json").read_text())
    assert data["random_params"] == 0 and len(data["param_sets"]) == 1 and data["params_note"]


def test_wrong_number_in_a_p_less_file_never_blames_the_default_parameters(tmp_path):
    # planar2r has L1 = 1 m; a wrong number is wrong at the arm's parameters and said so, without the
    # "the default parameters hide this error" note (no random sets were possible)
    f = variant(tmp_path, "numbers_2r.m", "out = [1.304 + 0.64*c2,", "out = [1.404 + 0.64*c2,")
    r = check("planar2r", f)
    assert [x.entry for x in r.wrong] == ["M11"]
    text = text_of(r)
    assert "hide this error" not in text and "--random-params 0" not in text
    assert "random parameter sets cannot apply" in text


def test_python_functions_without_p_or_ignoring_it(tmp_path):
    src = (MFILES / "numbers_2r.m").read_text()
    nums = re.findall(r"\d+\.\d+", src)
    assert nums                                                  # same numbers as the MATLAB file
    py = tmp_path / "numbers.py"
    py.write_text("from math import cos, sin\n\n"
                  "def M(q):\n    c2 = cos(q[1])\n"
                  "    return [[1.304 + 0.64*c2, 0.17066666666666667 + 0.32*c2],\n"
                  "            [0.17066666666666667 + 0.32*c2, 0.17066666666666667]]\n\n"
                  "def C(q, qd, p):\n    h = -0.32*sin(q[1])\n"            # takes p, never reads it
                  "    return [[h*qd[1], h*(qd[0] + qd[1])], [-h*qd[0], 0.0]]\n\n"
                  "def G(q):\n    return [12.753*cos(q[0]) + 3.1392*cos(q[0] + q[1]), 3.1392*cos(q[0] + q[1])]\n")
    r = check("planar2r", py)
    assert r.verdict == "correct" and r.random_params == 0
    assert r.functions == {"M": "M(q)", "C": "C(q, qd, p)", "G": "G(q)"}
    assert r.params_note.startswith("M(q), C(q, qd, p), G(q) do not read p")


# ----------------------------------------------------------------------------- unusable files: exit 2

UNUSABLE = {
    "syntax error": ("textbook_2r.m", "  out = [m11 m12; m12 m22];", "  out = [m11 m12; m12 m22;", "line 10", None),
    "undefined name": ("textbook_2r.m", "  g2 = p.m2*p.g*p.Lc2*cos(q(1) + q(2));",
                       "  g2 = p.m2*p.g*p.Lc2*cos(q(1) + q(2)) + undefined_thing;", "line 19", "G(q, p)"),
    "no such field": ("textbook_2r.m", "  c2 = cos(q(2));", "  c2 = cos(q(2)) + p.mass1;", "line 5", "M(q, p)"),
    "wrong shape": ("textbook_2r.m", "  out = [m11 m12; m12 m22];", "  out = [m11 m12 m22];", "size [1 3]",
                    "M(q, p)"),
    "error()": ("textbook_2r.m", "  h = -p.m2*p.L1*p.Lc2*sin(q(2));",
                "  h = -p.m2*p.L1*p.Lc2*sin(q(2));\n  if q(1) > 2.5, error('no Coriolis here'); end", "line 14",
                "C(q, qd, p)"),
}


@pytest.mark.parametrize("case", list(UNUSABLE))
def test_octave_errors_exit_2_with_file_line_and_message(tmp_path, capsys, case):
    base, old, new, place, fn = UNUSABLE[case]
    f = variant(tmp_path, base, old, new)
    out = tmp_path / "out"
    assert main(["check", "planar2r", f, "--states", "100", "--random-params", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"cannot use {f}" in err and place in err
    if fn:
        assert fn in err and "at q = [" in err
    assert "octave_equations.py" not in err and "Traceback" not in err        # never crossdyn's own traceback
    data = json.loads((out / "check.json").read_text())
    assert data["verdict"] == "unusable" and data["exit_code"] == 2


@pytest.mark.slow  # 3-10 s: make test's 7-minute budget (the slow tier runs it in CI)
def test_endless_loop_is_stopped_after_the_timeout(tmp_path, capsys):
    f = variant(tmp_path, "textbook_2r.m", "  c2 = cos(q(2));", "  c2 = cos(q(2));\n  while true\n  end")
    out = tmp_path / "out"
    assert main(["check", "planar2r", f, "--timeout", "3", "--out", str(out)]) == 3   # INCONCLUSIVE: nothing judged
    err = capsys.readouterr().err
    assert "did not return within 3 s and was stopped" in err and "verdict: INCONCLUSIVE (0 checks" in err
    assert f"{f}: M(q, p) did not return within 3 s" in err  # issue 25: the function the batch was in
    data = json.loads((out / "check.json").read_text())
    assert data["timeout"] is True and data["status"] == "INCONCLUSIVE" and data["exit_code"] == 3


def test_without_octave_a_matlab_check_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CROSSDYN_OCTAVE", str(tmp_path / "no-octave-here"))
    assert main(["check", "planar2r", str(MFILES / "textbook_2r.m"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "GNU Octave is needed" in err and "apt-get install" in err and "octave-cli" in err


def test_function_file_without_leading_1_and_names_mapping(tmp_path):
    # a file starting with `function` is read as a script of local functions, line numbers kept
    src = (MFILES / "textbook_2r.m").read_text().split("\n", 2)[2]
    src = src.replace("function out = M(", "function out = inertia(").replace("function out = G(", "function out = grav(")
    f = tmp_path / "fn.m"
    f.write_text(src)
    r = check("planar2r", f, names="M=inertia,G=grav", **FAST)
    assert r.verdict == "correct" and r.functions["M"] == "inertia(q, p)"
    with pytest.raises(UserFileError, match="--names maps M to 'mass'"):
        check("planar2r", f, names="M=mass", **FAST)


# ----------------------------------------------------------------------------- as an engine

def test_matlab_engine_steps_like_the_python_one():
    spec = get_preset("planar2r").with_links(damping=0.05, friction=0.02)
    m = make_engine(f"user:{MFILES / 'textbook_2r.m'}", spec, 1e-3)
    py = make_engine(f"user:{FILES / 'textbook_2r.py'}", spec, 1e-3)
    q0, qd0 = np.array([0.4, -0.7]), np.array([-1.0, 1.5])
    m.reset(q0, qd0)
    py.reset(q0, qd0)
    for k in range(200):
        tau = 2.0 * np.sin(3.0 * k * 1e-3 + np.arange(2))
        m.step(tau)
        py.step(tau)
    # the same RK4 in Octave and NumPy: rounding only (measured 1e-16)
    np.testing.assert_allclose(m.state()[0], py.state()[0], atol=1e-12)
    q, qd = m.state()
    Q = np.stack([q, q + 0.1])
    np.testing.assert_allclose(m.inverse_dynamics(Q, Q, Q), py.inverse_dynamics(Q, Q, Q), atol=1e-12)
    np.testing.assert_allclose(m.mass_matrix(Q), py.mass_matrix(Q), atol=1e-13)
    np.testing.assert_allclose(m.forward_dynamics(Q, Q, Q), py.forward_dynamics(Q, Q, Q), atol=1e-11)
    assert m.config()["language"] == "matlab"


def test_default_time_limit_grows_with_a_slow_file_an_explicit_one_does_not():
    spec = get_preset("planar4r")
    Q = np.zeros((1000, 4))
    P = np.tile(np.concatenate([[0.5] * 4, [1.0] * 4, [0.25] * 4, [0.02] * 4, [0.0] * 8, [0.0, -9.81, 0.0]]), (21, 1))
    slow = OctaveModel(MFILES / "textbook_nr.m", spec.n)                # loops over 3-D arrays: ~1-6 ms a state
    limit = slow._batch_timeout(Q, Q, P, ["M", "C", "G"], 21_000)
    assert slow._state_cost > 0 and limit == pytest.approx(max(60.0, 10 * slow._state_cost * 21_000))
    hard = OctaveModel(MFILES / "textbook_nr.m", spec.n, timeout=5)
    assert hard._batch_timeout(Q, Q, P, ["M", "C", "G"], 21_000) == 5
    slow.close()
    hard.close()
