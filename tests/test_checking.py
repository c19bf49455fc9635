"""`crossdyn check`: hand-derived equations against the analytic model, and the user:FILE engine.

The user files under tests/check_files/ are written out by hand, textbook style (p.m1, p.L1, …, p.g),
without calling crossdyn; broken files are those with one deliberate edit (shown in each test).
Expected coefficients are computed here from the arm's parameters, never taken from the checker.
"""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import edited_copy
from crossdyn.cli import main
from crossdyn.checking import diagnosis
from crossdyn.checking.checker import UserFileError, UserParams, check
from crossdyn.engines import EngineError, make_engine
from crossdyn.models import get_preset

FILES = Path(__file__).parent / "check_files"
FAST = {"states": 200, "random_params": 5}


def variant(tmp_path, base: str, old: str, new: str, name: str = "mine.py") -> str:
    """A copy of check_files/<base> with one edit (which must apply exactly once)."""
    return edited_copy(FILES, tmp_path, base, old, new, name)


def toml_arm(tmp_path, links, gravity=(0.0, -9.81, 0.0), name="arm") -> str:
    text = f'name = "{name}"\ngravity = {list(gravity)}\n'
    for L, m, Lc, J in links:
        text += f"[[links]]\nlength = {L}\nmass = {m}\ncom = {Lc}\ninertia = {J}\n"
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return str(path)


def term(finding, name):
    return next(t for t in finding.terms if t.term == name)


# ----------------------------------------------------------------------------- no false alarms

@pytest.mark.parametrize("arm, file, kw", [
    ("planar2r", "textbook_2r.py", FAST),
    ("planar3r", "textbook_3r.py", FAST),
    ("planar2r-pointmass", "pointmass_2r.py", FAST),
    ("planar3r-general", "textbook_3r.py", FAST),
    ("planar1r", "textbook_nr.py", FAST),
    ("planar4r", "textbook_nr.py", {"states": 120, "random_params": 3}),
])
def test_hand_written_reference_passes_every_preset(arm, file, kw):
    r = check(arm, FILES / file, **kw)
    assert r.verdict == "correct", [f.messages for f in r.findings]
    assert r.exit_code == 0
    assert r.findings == []
    assert {s.status for s in r.structure} <= {"ok", "skipped"}
    assert all(e["ok"] for e in r.entries)
    assert r.hints == []


def test_general_arm_with_tilted_gravity(tmp_path):
    arm = toml_arm(tmp_path, [(0.9, 1.3, 0.3, 0.05), (0.7, 0.6, 0.5, 0.01)], gravity=(3.0, -8.0, 0.0))
    # the Jacobian-method file uses p.gx, p.gy: right for any gravity
    assert check(arm, FILES / "textbook_nr.py", **FAST).verdict == "correct"
    # the textbook file assumes gravity along -y (p.g * cos): only G is wrong, and the checker says so
    r = check(arm, FILES / "textbook_2r.py", **FAST)
    assert {f.entry for f in r.wrong} == {"G1", "G2"}


def test_parameter_object():
    p = UserParams([1.0, 0.8], [2.0, 0.5], [0.4, 0.3], [0.1, 0.02], [0, 0], [0, 0], (0.0, -9.81, 0.0))
    assert (p.m1, p.L2, p.l2, p.Lc1, p.lc2, p.J1, p.I2) == (2.0, 0.8, 0.8, 0.4, 0.3, 0.1, 0.02)
    assert list(p.m) == [2.0, 0.5] and p.L[1] == 0.8 and p["m2"] == 0.5
    assert p.g == pytest.approx(9.81) and p.n == 2
    with pytest.raises(AttributeError, match="this arm has 2 links"):
        p.m3
    with pytest.raises(AttributeError, match="no parameter 'mass1'"):
        p.mass1
    with pytest.raises(AttributeError):
        p.m1 = 3.0
    with pytest.raises(ValueError):
        p.m[0] = 3.0


# ----------------------------------------------------------------------------- broken files are caught

def test_missing_factor_on_M13_of_3r(tmp_path):
    # M13 of a 3R: the cos(q2+q3) term is m3 L1 Lc3; this file forgot Lc3
    f = variant(tmp_path, "textbook_3r.py", "m13 = p.J3 + m3 * (Lc3**2 + L1 * Lc3 * c23",
                "m13 = p.J3 + m3 * (Lc3**2 + L1 * c23")
    spec = get_preset("planar3r-general")
    m3, L1, Lc3 = spec.links[2].mass, spec.links[0].length, spec.links[2].com
    r = check(spec, f, **FAST)
    assert r.exit_code == 1
    assert [x.entry for x in r.wrong] == ["M13"]
    m13 = r.finding("M13")
    assert m13.mirror == "M31" and not m13.hidden_by_own_params
    assert [t.term for t in m13.terms] == ["cos(q2+q3)"]
    t = term(m13, "cos(q2+q3)")
    assert t.found == pytest.approx(m3 * L1, rel=1e-9)
    assert t.expected == pytest.approx(m3 * L1 * Lc3, rel=1e-9)
    assert t.difference == "m3*L1 - m3*L1*Lc3"
    assert "M13: the cos(q2+q3) term has coefficient 0.5000, expected 0.1250" in "\n".join(m13.messages)
    assert any("involves L1, m3 and Lc3" in d for d in m13.dependence)


def test_swapped_sign_in_coriolis_vector(tmp_path):
    # C qd of the point-mass 2R, first entry: -k (2 qd1 qd2 + qd2^2); the qd2^2 sign is flipped
    f = variant(tmp_path, "pointmass_2r.py", "-k * (2 * qd[0] * qd[1] + qd[1]**2)",
                "-k * (2 * qd[0] * qd[1] - qd[1]**2)")
    spec = get_preset("planar2r-pointmass")
    k = spec.links[1].mass * spec.links[0].length * spec.links[1].length
    r = check(spec, f, **FAST)
    assert r.exit_code == 1 and r.c_form == "vector"
    assert [x.entry for x in r.wrong] == ["Cqd1"]
    t = term(r.finding("Cqd1"), "qd2^2*sin(q2)")
    assert [x.term for x in r.finding("Cqd1").terms] == ["qd2^2*sin(q2)"]
    assert t.expected == pytest.approx(-k) and t.found == pytest.approx(k)
    assert "sign is flipped" in t.reading
    assert {s.name: s.status for s in r.structure}["energy conserved in free motion"] == "failed"


def test_swapped_sign_in_coriolis_matrix(tmp_path):
    f = variant(tmp_path, "textbook_2r.py", "[-h * qd[0], 0.0]", "[h * qd[0], 0.0]")
    spec = get_preset("planar2r")
    a = spec.links[1].mass * spec.links[1].com * spec.links[0].length
    r = check(spec, f, **FAST)
    assert {x.entry for x in r.wrong} == {"Cqd2", "C21"}
    t = term(r.finding("Cqd2"), "qd1^2*sin(q2)")
    assert t.expected == pytest.approx(a) and t.found == pytest.approx(-a)
    assert term(r.finding("C21"), "qd1*sin(q2)").expected == pytest.approx(a)
    assert {s.name: s.status for s in r.structure}["Mdot - 2C skew-symmetric"] == "failed"


def test_gravity_with_sin_where_cos_belongs(tmp_path):
    f = variant(tmp_path, "textbook_3r.py", "g3 = p.m3 * p.Lc3 * p.g * c123",
                "g3 = p.m3 * p.Lc3 * p.g * sin(q[0] + q[1] + q[2])")
    spec = get_preset("planar3r-general")
    coef = 9.81 * spec.links[2].mass * spec.links[2].com
    r = check(spec, f, **FAST)
    assert r.exit_code == 1
    # G3 is wrong, and so are G1 and G2, which contain it
    assert {x.entry for x in r.wrong} == {"G1", "G2", "G3"}
    g3 = r.finding("G3")
    assert term(g3, "cos(q1+q2+q3)").expected == pytest.approx(coef)
    assert term(g3, "cos(q1+q2+q3)").found == pytest.approx(0, abs=1e-9)
    assert term(g3, "sin(q1+q2+q3)").found == pytest.approx(coef)
    assert "G3: sin(q1+q2+q3) is used where cos(q1+q2+q3) belongs" in "\n".join(g3.messages)


def test_error_hidden_by_unit_length_needs_random_parameters(tmp_path, capsys):
    # planar2r-pointmass has L1 = 1 m: writing m2*l1 for m2*l1**2 in M11 changes nothing there
    f = variant(tmp_path, "pointmass_2r.py", "[(m1 + m2) * l1**2 + m2", "[m1 * l1**2 + m2 * l1 + m2")
    r = check("planar2r-pointmass", f, **FAST)
    assert r.exit_code == 1 and [x.entry for x in r.wrong] == ["M11"]
    m11 = r.finding("M11")
    assert m11.hidden_by_own_params and 0 not in m11.wrong_param_sets
    assert term(m11, "1").difference == "m2*L1 - m2*L1^2"
    text = "\n".join(m11.messages)
    assert "the default parameters hide this error" in text and "L1 = 1 m" in text

    quiet = check("planar2r-pointmass", f, states=200, random_params=0)
    assert quiet.exit_code == 0 and quiet.findings == []
    assert any("--random-params 0" in n and "L1 = 1 m" in n for n in quiet.notes)

    out = tmp_path / "out"
    assert main(["check", "planar2r-pointmass", f, "--states", "200", "--random-params", "5", "--out", str(out)]) == 1
    assert "the default parameters hide this error" in capsys.readouterr().out
    assert main(["check", "planar2r-pointmass", f, "--states", "200", "--random-params", "0", "--out", str(out)]) == 0


def test_error_hidden_when_both_links_are_1m(tmp_path):
    arm = toml_arm(tmp_path, [(1.0, 1.0, 1.0, 0.0), (1.0, 0.7, 1.0, 0.0)], name="unit-links")
    src = (FILES / "pointmass_2r.py").read_text()
    assert src.count("l2**2") == 4
    f = tmp_path / "l2.py"
    f.write_text(src.replace("l2**2", "l2"))     # L2 where L2^2 belongs, everywhere in M
    assert check(arm, f, states=200, random_params=0).exit_code == 0
    r = check(arm, f, **FAST)
    assert r.exit_code == 1
    assert {x.entry for x in r.wrong} == {"M11", "M12", "M22"}
    for x in r.wrong:
        assert x.hidden_by_own_params
        assert term(x, "1").difference == "m2*L2 - m2*L2^2"


def test_valid_but_not_christoffel_C_is_a_note(tmp_path, capsys):
    # C' = [[2h qd2, h qd2], [-h qd1, 0]] gives the same C qd as the Christoffel matrix
    f = variant(tmp_path, "textbook_2r.py", "return [[h * qd[1], h * (qd[0] + qd[1])],",
                "return [[2 * h * qd[1], h * qd[1]],")
    r = check("planar2r", f, **FAST)
    assert r.exit_code == 0 and r.verdict == "correct"
    assert r.wrong == [] and {x.entry for x in r.findings} == {"C11", "C12"}
    assert all(x.status == "note" for x in r.findings)
    status = {s.name: s.status for s in r.structure}
    assert status["C is the Christoffel matrix"] == "note"
    assert status["Mdot - 2C skew-symmetric"] == "note"
    assert main(["check", "planar2r", f, "--states", "200", "--random-params", "5", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "CORRECT" in out and "not an error" in out


def test_common_whole_quantity_mistakes_get_explanations(tmp_path):
    # issue 11 item 11: these come first, as one explanation (tests/test_check_diagnosis.py tests the rest)
    f = variant(tmp_path, "textbook_2r.py", "return [g1, g2]", "return [-g1, -g2]")
    r = check("planar2r", f, **FAST)
    assert any("negative of the expected one" in x["text"] and "left-hand side" in x["text"] for x in r.explanations)
    f = variant(tmp_path, "pointmass_2r.py", "return np.array([-k * (2 * qd[0] * qd[1] + qd[1]**2), k * qd[0]**2])",
                "return np.array([-k * (2 * qd[0] * qd[1] + qd[1]**2), k * qd[0]**2]) + gravity(q, p)",
                name="bias.py")
    r = check("planar2r-pointmass", f, **FAST)
    assert any("C qd + G" in x["text"] for x in r.explanations)


def test_missing_function_is_skipped_and_said(tmp_path):
    src = (FILES / "textbook_2r.py").read_text()
    f = tmp_path / "noC.py"
    f.write_text(src.split("def C(")[0] + "def G(" + src.split("def G(")[1])
    r = check("planar2r", f, **FAST)
    assert r.exit_code == 0 and r.functions["C"] is None
    assert any("defines no C" in n for n in r.notes)


def test_names_mapping(tmp_path, capsys):
    src = (FILES / "textbook_2r.py").read_text()
    f = tmp_path / "renamed.py"
    f.write_text(src.replace("def M(", "def inertia(").replace("def C(", "def cor(").replace("def G(", "def grav("))
    out = str(tmp_path / "o")
    assert main(["check", "planar2r", str(f), "--names", "M=inertia,C=cor,G=grav", "--states", "200",
                 "--random-params", "2", "--out", out]) == 0
    assert main(["check", "planar2r", str(f), "--names", "M=mass", "--out", out]) == 2
    assert "'mass'" in capsys.readouterr().err
    assert main(["check", "planar2r", str(f), "--names", "X=foo", "--out", out]) == 2
    assert "unknown role" in capsys.readouterr().err


# ----------------------------------------------------------------------------- unusable files: exit 2

UNUSABLE = {
    "raises": ("textbook_2r.py", "def G(q, p):\n",
               "def G(q, p):\n    if q[0] > 2.5:\n        raise ValueError('no gravity here')\n", "G"),
    "wrong shape": ("textbook_2r.py", "return [[m11, m12], [m12, m22]]", "return [m11, m12, m22]", "M"),
    "NaN": ("textbook_2r.py", "h = -p.m2 * p.L1 * p.Lc2 * sin(q[1])",
            "h = -p.m2 * p.L1 * p.Lc2 * sin(q[1]) * (float('nan') if q[1] > 3 else 1.0)", "C"),
    "bad parameter name": ("textbook_2r.py", "c2 = cos(q[1])", "c2 = cos(q[1]) + 0 * p.mass1", "M"),
    "wrong arity": ("textbook_2r.py", "def G(q, p):", "def G(q, p, extra):", "G"),
}


@pytest.mark.parametrize("case", list(UNUSABLE))
def test_unusable_file_exits_2_naming_the_function(tmp_path, capsys, case):
    base, old, new, fn = UNUSABLE[case]
    f = variant(tmp_path, base, old, new)
    out = tmp_path / "out"
    assert main(["check", "planar2r", f, "--states", "200", "--random-params", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{fn}(" in err
    assert "crossdyn/" not in err and "checker.py" not in err        # never crossdyn's own traceback
    if case in ("raises", "bad parameter name"):
        assert "frames in your file only" in err and f'File "{Path(f).resolve()}"' in err
    if case != "wrong arity":
        assert "at q = [" in err                                     # the state that triggered it
    data = json.loads((out / "check.json").read_text())
    assert data["verdict"] == "unusable" and data["exit_code"] == 2 and data["function"] == fn


def test_unimportable_or_empty_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy as np\nfrom math import cos, tan2\n")
    assert main(["check", "planar2r", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "tan2" in err and "line 2" in err and "checker.py" not in err
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    assert main(["check", "planar2r", str(empty), "--out", str(tmp_path / "o")]) == 2
    assert "defines none of M" in capsys.readouterr().err
    assert main(["check", "planar2r", str(tmp_path / "nope.py"), "--out", str(tmp_path / "o")]) == 2
    with pytest.raises(UserFileError, match="inconsistent|a vector here but a matrix elsewhere|matrix here"):
        flip = variant(tmp_path, "textbook_2r.py", "    h = -p.m2 * p.L1 * p.Lc2 * sin(q[1])\n",
                       "    h = -p.m2 * p.L1 * p.Lc2 * sin(q[1])\n    if q[0] > 2:\n        return [0.0, 0.0]\n",
                       name="flip.py")
        check("planar2r", flip, states=200, random_params=0)


def test_user_prints_are_swallowed_and_counted(tmp_path):
    f = variant(tmp_path, "textbook_2r.py", "def G(q, p):\n", "def G(q, p):\n    print('G called', q)\n")
    r = check("planar2r", f, states=50, random_params=1)
    assert r.verdict == "correct" and any("your file printed" in n and "G called" in n for n in r.notes)


# ----------------------------------------------------------------------------- command line and reports

def test_cli_reports(tmp_path, capsys):
    f = variant(tmp_path, "textbook_3r.py", "m13 = p.J3 + m3 * (Lc3**2 + L1 * Lc3 * c23",
                "m13 = p.J3 + m3 * (Lc3**2 + L1 * c23")
    out = tmp_path / "rep"
    assert main(["check", "planar3r-general", f, "--states", "200", "--random-params", "5", "--seed", "3",
                 "--out", str(out)]) == 1
    text = capsys.readouterr().out
    assert "WRONG: 1 entry wrong: M13" in text
    data = json.loads((out / "check.json").read_text())
    assert data["verdict"] == "wrong" and data["exit_code"] == 1 and data["wrong_entries"] == ["M13"]
    assert data["seed"] == 3 and data["states"] == 200 and len(data["param_sets"]) == 6
    assert data["findings"][0]["terms"][0]["term"] == "cos(q2+q3)"
    assert "## Wrong entries" in (out / "check.md").read_text()
    html = (out / "check.html").read_text()
    assert html.lower().startswith("<!doctype html>") and "M13" in html and "cos(q2+q3)" in html
    assert not list(out.glob(".*.tmp"))


def test_cli_defaults_and_lazy_registration():
    from crossdyn.cli import build_parser

    args = build_parser().parse_args(["check", "planar2r", "f.py"])
    assert args.states >= 1000 and args.random_params >= 20
    code = ("import sys; from crossdyn.cli import build_parser; build_parser();"
            "sys.exit(1 if any(m in sys.modules for m in ('numpy', 'sympy', 'scipy')) else 0)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def test_bad_arguments_exit_2(tmp_path, capsys):
    f = str(FILES / "textbook_2r.py")
    assert main(["check", "planar9x", f]) == 2
    assert main(["check", "planar2r", f, "--states", "0"]) == 2
    assert main(["check", "planar2r", f, "--random-params", "-1"]) == 2
    assert "Traceback" not in capsys.readouterr().err


# ----------------------------------------------------------------------------- diagnosis, in isolation

def test_basis_fit_recovers_coefficients_exactly():
    rng = np.random.default_rng(1)
    q = rng.uniform(-np.pi, np.pi, (300, 3))
    values = 1.5 + 0.25 * np.cos(q[:, 1] + q[:, 2]) - 2.0 * np.sin(q[:, 0])
    basis = diagnosis.make_basis("M", q)
    coef, resid = diagnosis.fit(basis, values[:, None])
    got = dict(zip(basis.names, coef[:, 0]))
    assert got["1"] == pytest.approx(1.5) and got["cos(q2+q3)"] == pytest.approx(0.25)
    assert got["sin(q1)"] == pytest.approx(-2.0) and abs(got["cos(q2)"]) < 1e-12
    assert resid[0] < 1e-10
    # a product outside the basis is not explained
    _, resid = diagnosis.fit(basis, (np.cos(q[:, 1]) * np.cos(q[:, 2]))[:, None])
    assert resid[0] > 0.1


def test_difference_polynomial_and_dependence_statements():
    rng = np.random.default_rng(2)
    S, n = 8, 2
    L, m = rng.uniform(0.4, 1.6, (S, n)), rng.uniform(0.5, 2.5, (S, n))
    Lc, J = L / 2, m * L**2 / 12
    cands = diagnosis.monomials(L, m, Lc, J, ["rod", "rod"])
    delta = m[:, 1] * L[:, 0] - m[:, 1] * L[:, 0] ** 2
    coefs, names = diagnosis.explain_difference(delta, cands)
    assert diagnosis.format_polynomial(coefs, names) == "m2*L1 - m2*L1^2"
    assert diagnosis.reading(coefs, names) == "yours has m2*L1 where m2*L1^2 belongs"
    coefs, names = diagnosis.explain_difference(-m[:, 1] * L[:, 0] * Lc[:, 1], cands)
    assert diagnosis.format_polynomial(coefs, names) == "-m2*L1*Lc2"
    assert diagnosis.explain_difference(np.sin(L[:, 0] * 7), cands) is None
    msgs = diagnosis.classify_dependence("M11", ["L1", "m1", "m3"], [1.0, 0.0, 0.5], [1.0, 2.0, 0.0],
                                         [0.2, 2.0, 0.5], 1e-9)
    assert "M11 depends on m3, which it should not" in msgs
    assert "M11 does not depend on m1, but it should" in msgs


# ----------------------------------------------------------------------------- the user's model as an engine

@pytest.mark.parametrize("arm, file", [("planar2r", "textbook_2r.py"), ("planar2r-pointmass", "pointmass_2r.py"),
                                       ("planar3r-general", "textbook_3r.py")])
def test_user_engine_steps_like_the_analytic_engine(arm, file):
    spec = get_preset(arm).with_links(damping=0.05, friction=0.02)
    user = make_engine(f"user:{FILES / file}", spec, 1e-3)
    ref = make_engine("analytic", spec, 1e-3)
    assert user.integrator == "rk4" and user.name.startswith("user:")
    q0 = np.linspace(0.4, -0.7, spec.n)
    qd0 = np.linspace(-1.0, 1.5, spec.n)
    user.reset(q0, qd0)
    ref.reset(q0, qd0)
    worst = 0.0
    for k in range(1000):                        # 1 s
        tau = 2.0 * np.sin(3.0 * k * 1e-3 + np.arange(spec.n))
        user.step(tau)
        ref.step(tau)
        worst = max(worst, float(np.max(np.abs(user.state()[0] - ref.state()[0]))))
    assert worst <= 1e-9
    q, qd = user.state()
    qdd = np.arange(1.0, spec.n + 1)
    np.testing.assert_allclose(user.inverse_dynamics(q, qd, qdd), ref.inverse_dynamics(q, qd, qdd), atol=1e-10)
    np.testing.assert_allclose(user.mass_matrix(q), ref.mass_matrix(q), atol=1e-12)
    np.testing.assert_allclose(user.forward_dynamics(q, qd, qdd), ref.forward_dynamics(q, qd, qdd), atol=1e-9)
    np.testing.assert_allclose(user.energy(q, qd), ref.energy(q, qd), atol=1e-10)
    assert user.config()["engine"] == "user" and user.config()["c_form"] in ("matrix", "vector")


def test_user_engine_errors(tmp_path):
    src = (FILES / "textbook_2r.py").read_text()
    f = tmp_path / "noG.py"
    f.write_text(src.split("def G(")[0])
    with pytest.raises(EngineError, match="must define M, C and G"):
        make_engine(f"user:{f}", get_preset("planar2r"))
    with pytest.raises(EngineError, match="no such file"):
        make_engine(f"user:{tmp_path / 'missing.py'}", get_preset("planar2r"))
    with pytest.raises(EngineError, match="user:FILE"):
        make_engine("no-such-engine", get_preset("planar2r"))
    with pytest.raises(EngineError, match=r"returned shape \(2, 2\); expected \(3, 3\)"):
        make_engine(f"user:{FILES / 'textbook_2r.py'}", get_preset("planar3r"))


def test_constant_named_like_a_role_does_not_hide_the_function(tmp_path):
    f = variant(tmp_path, "pointmass_2r.py", "import numpy as np\n", "import numpy as np\n\nG = 9.81\nM = 'my arm'\n")
    r = check("planar2r-pointmass", f, states=100, random_params=2)
    assert r.verdict == "correct" and r.functions["G"] == "gravity(q, p)" and r.functions["M"] == "mass_matrix(q, p)"
    f = tmp_path / "const.py"
    f.write_text("G = 9.81\n")
    with pytest.raises(UserFileError, match="G is a float, not a function"):
        check("planar2r", f, states=10, random_params=0)
