"""`crossdyn derive`: the grouped (textbook a1…aK) M, C, G, and its five formats.

The groups are checked against crossdyn.analytic.symbolic's Euler–Lagrange derivation (an independent
path, compared numerically at random states and parameters); the MATLAB and Python outputs must pass
`crossdyn check` (round trip) for every preset and a random 4-link TOML arm; the LaTeX is read back with
SymPy's LaTeX parser and must mean the same; the SymPy script must rebuild the same matrices.
"""
import re

import numpy as np
import pytest
import sympy as sp

from crossdyn.analytic import derive as dv
from crossdyn.analytic import symbolic
from crossdyn.checking.checker import check
from crossdyn.cli import main
from crossdyn.models import load_arm
from crossdyn.equations.octave_session import find_octave

FAST = {"states": 150, "random_params": 3}
needs_octave = pytest.mark.skipif(find_octave() is None, reason="GNU Octave (octave-cli) is not installed")
PRESETS = ["planar1r", "planar2r", "planar3r", "planar2r-pointmass", "planar3r-general", "planar3r-geared",
           "planar3r-friction"]


def random_arm(tmp_path, n=4, seed=7, gravity=(0.0, -9.81, 0.0)):
    rng = np.random.default_rng(seed)
    text = f'name = "random{n}"\ngravity = {list(gravity)}\n'
    for _ in range(n):
        L, m = rng.uniform(0.3, 1.5), rng.uniform(0.2, 3.0)
        text += (f"[[links]]\nlength = {L!r}\nmass = {m!r}\ncom = {L * rng.uniform(0.1, 0.9)!r}\n"
                 f"inertia = {m * L * L * rng.uniform(0.01, 0.1)!r}\n")
    path = tmp_path / f"random{n}.toml"
    path.write_text(text)
    return str(path)


# ----------------------------------------------------------------------------- the maths

@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_grouped_form_equals_euler_lagrange(n):
    ref = symbolic.derive(n)                                   # M, C, G in L, m, Lc, J, gx, gy
    q, qd, pairs, a, b, M, C, G, (g, gx, gy) = dv._structure(n, "gxgy")
    adefs, bdefs = dv.group_definitions(n)
    m, L, Lc, J = dv._param_symbols(n)
    subs = dict(zip(a, adefs)) | dict(zip(b, bdefs))
    rng = np.random.default_rng(n)
    mine_syms = (*q, *qd, *m, *L, *Lc, *J, gx, gy)
    by_name = {str(s): k for k, s in enumerate(mine_syms)}
    order = [by_name[str(s)] for s in (*ref.q, *ref.qd, *ref.params)]     # the same symbols, by name
    for mine, theirs in ((M, ref.M), (C, ref.C), (G, ref.G)):
        f = sp.lambdify(mine_syms, mine.subs(subs), "numpy")
        h = sp.lambdify((*ref.q, *ref.qd, *ref.params), theirs, "numpy")
        for _ in range(5):
            x = np.concatenate([rng.uniform(-np.pi, np.pi, n), rng.uniform(-2, 2, n), rng.uniform(0.2, 2.0, 4 * n),
                                [rng.uniform(-3, 3), rng.uniform(-10, -5)]])
            np.testing.assert_allclose(np.array(f(*x), float), np.array(h(*x[order]), float),
                                       rtol=1e-12, atol=1e-12)      # exact up to rounding


def test_textbook_3r_groups_and_entries(capsys):
    assert main(["derive", "planar3r"]) == 0
    out = capsys.readouterr().out
    # the textbook a1..a6 (e.g. Spong, Hutchinson & Vidyasagar) and b1..b3 for gravity
    for line in ("a1 = J1 + L1**2*(m2 + m3) + Lc1**2*m1", "a4 = L1*(L2*m3 + Lc2*m2)", "a5 = L2*Lc3*m3",
                 "a6 = L1*Lc3*m3", "b1 = L1*(m2 + m3) + Lc1*m1",
                 "M11 = a1 + a2 + a3 + 2*a4*cos(q2) + 2*a5*cos(q3) + 2*a6*cos(q2 + q3)",
                 "M12 = a2 + a3 + a4*cos(q2) + 2*a5*cos(q3) + a6*cos(q2 + q3)",
                 "M33 = a3", "C33 = 0", "G3 = b3*g*cos(q1 + q2 + q3)"):
        assert line in out, line
    assert "(= 0.72)" in out                           # a4 = (0.8*0.4 + 0.5*0.8)*1.0 for planar3r


def test_numeric_form_and_gravity_direction(tmp_path, capsys):
    assert main(["derive", "planar2r", "--numeric"]) == 0
    out = capsys.readouterr().out
    assert "M11 = 0.64*cos(q2) + 1.304" in out and "G2 = 3.1392*cos(q1 + q2)" in out
    tilted = random_arm(tmp_path, n=2, gravity=(3.0, -8.0, 0.0))
    assert main(["derive", tilted]) == 0
    out = capsys.readouterr().out
    assert "gx*sin(q1)" in out and "gy*cos(q1)" in out


# ----------------------------------------------------------------------------- round trips through check

def _write(tmp_path, arm, fmt, numeric, capsys):
    ext = {"matlab": "m", "python": "py"}[fmt]
    path = tmp_path / f"derived_{abs(hash((str(arm), numeric)))}.{ext}"
    args = ["derive", str(arm), "--format", fmt, "--out", str(path)] + (["--numeric"] if numeric else [])
    assert main(args) == 0
    capsys.readouterr()
    return path


@pytest.mark.parametrize("arm", PRESETS + ["random"])
def test_python_output_passes_check(tmp_path, capsys, arm):
    arm = random_arm(tmp_path) if arm == "random" else arm
    for numeric in (False, True):
        r = check(arm, _write(tmp_path, arm, "python", numeric, capsys), **FAST)
        assert r.verdict == "correct", [f.messages for f in r.findings]
        assert (r.random_params == 0) == numeric          # numbers written in: the arm's own parameters only
        assert {s.status for s in r.structure} <= {"ok", "skipped"}   # C is the Christoffel matrix
        _friction_checked(r, arm)


@needs_octave
@pytest.mark.parametrize("arm", [pytest.param(a, marks=pytest.mark.slow)  # the fast tier's 7-min budget
                                 for a in PRESETS + ["random"]])
def test_matlab_output_passes_check_through_octave(tmp_path, capsys, arm):
    arm = random_arm(tmp_path) if arm == "random" else arm
    for numeric in (False, True):
        r = check(arm, _write(tmp_path, arm, "matlab", numeric, capsys), **FAST)
        assert r.verdict == "correct", [f.messages for f in r.findings]
        assert r.language == "matlab" and (r.random_params == 0) == numeric
        _friction_checked(r, arm)


def _friction_checked(r, arm) -> None:
    """An arm with friction: the derived F was found and compared (n entries at every state and set), else none."""
    n = load_arm(arm).n
    if arm == "planar3r-friction":
        assert r.functions["F"] in ("F(qd, p)", "F(qd)") and r.friction["checked"], r.friction
        assert r.checks["F"] == n * FAST["states"] * (r.random_params + 1)
        assert [e["entry"] for e in r.entries if e["quantity"] == "F"] == [f"F{i + 1}" for i in range(n)]
    else:
        assert "F" not in r.functions and not r.friction["checked"]


# ----------------------------------------------------------------------------- LaTeX and SymPy outputs

def test_latex_is_a_complete_document(capsys):
    # no LaTeX compiler here, and SymPy's LaTeX readers are ambiguous on \cos{\left(..\right)} + ...:
    # the structure is checked, and every expression is SymPy's own printing of the derivation
    d = dv.derive(load_arm("planar3r"))
    assert main(["derive", "planar3r", "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert tex.startswith(r"\documentclass{article}") and tex.rstrip().endswith(r"\end{document}")
    assert tex.count(r"\begin{align*}") == tex.count(r"\end{align*}") == 4
    assert tex.count("{") == tex.count("}") and tex.count(r"\left(") == tex.count(r"\right)")
    names = dv._latex_names(d)
    rows = dict(re.findall(r"^(\S+) &= (.+?)(?: \\\\)?$", tex, flags=re.M))
    assert len(rows) == len(d.groups) + 6 + 9 + 3          # groups, M's upper triangle, C, G
    assert rows["a_{4}"] == "L_{1} \\left(L_{2} m_{3} + L_{c2} m_{2}\\right)"
    assert rows["M_{33}"] == "a_{3}"
    for i in range(3):
        assert rows[f"G_{{{i + 1}}}"] == sp.latex(d.G[i], symbol_names=names)
        for j in range(3):
            assert rows[f"C_{{{i + 1}{j + 1}}}"] == sp.latex(d.C[i, j], symbol_names=names)
    assert r"\dot{q}_{1}" in tex and "L_{c3}" in tex


@pytest.mark.parametrize("arm", ["planar3r", "planar2r-pointmass"])
def test_latex_reads_back_as_the_same_expressions(capsys, arm):
    # SymPy's LaTeX reader (ANTLR 4.11, the 'latex' extra) has no \dot and reads "x \left(" as a call:
    # those two are rewritten, everything else is read as printed and must evaluate to the derivation
    pytest.importorskip("antlr4")
    from sympy.parsing.latex import parse_latex

    d = dv.derive(load_arm(arm))
    assert main(["derive", arm, "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    rng = np.random.default_rng(0)
    values = {str(s): rng.uniform(0.3, 2.0) for s in (*d.q, *d.qd, *d.params, *(s for s, _, _ in d.groups))}
    rows = re.findall(r"^(\S+) &= (.+?)(?: \\\\)?$", tex, flags=re.M)
    n = d.spec.n
    assert len(rows) == len(d.groups) + n * (n + 1) // 2 + n * n + n
    for lhs, rhs in rows:
        rhs = re.sub(r"\\dot\{q\}_\{(\d+)\}", r"v_{\1}", rhs)
        rhs = re.sub(r"\} \\left\(", r"} \\cdot \\left(", rhs)
        parsed = parse_latex(rhs)
        got = float(parsed.subs({s: values[re.sub(r"[_{}*]", "", str(s)).replace("v", "qd")]
                                 for s in parsed.free_symbols}))
        key = re.sub(r"[_{}]", "", lhs)
        if key[0] in "MCG" and key[1:].isdigit():
            idx = [int(c) - 1 for c in key[1:]]
            want = {"M": d.M, "C": d.C, "G": d.G}[key[0]][idx[0], idx[1] if len(idx) > 1 else 0]
        else:
            want = next(defn for s, defn, _ in d.groups if str(s) == key)
        want = float(want.subs({s: values[str(s)] for s in want.free_symbols}))
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), (lhs, rhs)


def test_sympy_output_rebuilds_the_matrices(capsys):
    d = dv.derive(load_arm("planar3r-general"))
    assert main(["derive", "planar3r-general", "--format", "sympy"]) == 0
    ns = {}
    exec(capsys.readouterr().out, ns)                     # a plain script: it must run as printed
    for name, X in (("M", d.M), ("C", d.C), ("G", d.G)):
        Y = ns[name]
        assert Y.shape == X.shape
        diff = (Y - X.subs({s: ns[str(s)] for s in X.free_symbols})).applyfunc(sp.expand)
        assert diff == sp.zeros(*X.shape), name


def test_bad_input_exits_2(tmp_path, capsys):
    assert main(["derive", "planar9r"]) == 2
    assert "up to 8 links" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["derive", "planar2r", "--format", "word"])
    assert e.value.code == 2
    with pytest.raises(SystemExit):
        main(["derive", "planar2r", "--symbols", "--numeric"])
    assert main(["derive", "planar2r", "--out", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


# ----------------------------------------------------------------------------- friction F(qd)

def test_every_format_has_friction_for_an_arm_with_friction_and_none_without(capsys):
    """Issue 25: planar3r-friction's F_i = d_i qd_i + fc_i sign(qd_i) (d = damping, p.b_i) in all five formats;
    planar3r (no friction) has none."""
    outs = {}
    for arm in ("planar3r-friction", "planar3r"):
        for fmt in dv.FORMATS:
            assert main(["derive", arm, "--format", fmt]) == 0
            outs[arm, fmt] = capsys.readouterr().out
    text = outs["planar3r-friction", "text"]
    assert [ln for ln in text.splitlines() if ln.startswith("F")] == [
        f"F{i} = d{i}*qd{i} + fc{i}*sign(qd{i})" for i in (1, 2, 3)]
    tex = outs["planar3r-friction", "latex"]
    assert r"\subsection*{Joint friction}" in tex and tex.count(r"\begin{align*}") == 5
    assert r"F_{3} &= d_{3} \dot{q}_{3} + f_{c3} \operatorname{sign}{\left(\dot{q}_{3} \right)}" in tex
    assert "function out = F(qd, p)" in outs["planar3r-friction", "matlab"]
    assert "  d2 = p.b2;" in outs["planar3r-friction", "matlab"]
    assert "def F(qd, p):" in outs["planar3r-friction", "python"]
    assert "F = Matrix([d1*qd1 + fc1*sign(qd1), " in outs["planar3r-friction", "sympy"]
    for fmt in dv.FORMATS:
        assert "friction" not in outs["planar3r", fmt] and "F1" not in outs["planar3r", fmt], fmt


@pytest.mark.parametrize("numeric", [False, True])
def test_derived_python_friction_is_crossdyns_friction(tmp_path, capsys, numeric):
    """The derived F(qd[, p]) evaluated at random velocities and parameters equals
    crossdyn.analytic.dynamics.friction to rounding (1e-12 relative); the SymPy script's F is the derivation's."""
    from crossdyn.analytic.dynamics import friction
    from crossdyn.equations.params import ParamSet

    spec = load_arm("planar3r-friction")
    ns: dict = {}
    exec(_write(tmp_path, "planar3r-friction", "python", numeric, capsys).read_text(), ns)
    rng = np.random.default_rng(3)
    own = spec.params()
    for _ in range(20):
        qd = rng.uniform(-2, 2, 3)
        if numeric:
            ps, got = None, ns["F"](qd)
        else:
            ps = ParamSet(1, own.L, own.m, own.Lc, own.J, rng.uniform(0, 1, 3), rng.uniform(0, 2, 3), spec.gravity)
            got = ns["F"](qd, ps.user)
        want = friction(spec if ps is None else ps.arm, qd)
        assert np.allclose(got, want, rtol=1e-12, atol=1e-14), (got, want)
    if not numeric:
        d = dv.derive(spec)
        assert main(["derive", "planar3r-friction", "--format", "sympy"]) == 0
        sym: dict = {}
        exec(capsys.readouterr().out, sym)
        assert (sym["F"] - d.F.subs({s: sym[str(s)] for s in d.F.free_symbols})).applyfunc(sp.expand) == sp.zeros(3, 1)
