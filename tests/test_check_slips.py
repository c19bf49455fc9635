"""A student's slip that breaks many entries is named as one root cause within the first lines of `check`
(issue 40): a Christoffel term's sign, a term left out, q1 measured from the vertical.  The files are written here
by SymPy from the planar 3R's Lagrangian (an independent path: crossdyn's model is not used to write them), in
Python and in MATLAB."""
import shutil

import pytest
import sympy as sp

from crossdyn.cli import main

q = sp.symbols("q1:4")
qd = sp.symbols("qd1:4")
NAMES = "m1 m2 m3 L1 L2 L3 Lc1 Lc2 Lc3 J1 J2 J3 g".split()
P = dict(zip(NAMES, sp.symbols(NAMES)))


def _lagrangian_3r(vertical: bool):
    """M, U of planar3r: relative angles, q1 from +x (or from the downward vertical), gravity along -y."""
    m, L, Lc, J = ([P[f"{k}{i}"] for i in (1, 2, 3)] for k in ("m", "L", "Lc", "J"))
    th0 = q[0] - sp.pi / 2 if vertical else q[0]
    th = [th0, th0 + q[1], th0 + q[1] + q[2]]
    thd = [qd[0], qd[0] + qd[1], qd[0] + qd[1] + qd[2]]
    T = U = 0
    x = y = 0
    for i in range(3):
        cx, cy = x + Lc[i] * sp.cos(th[i]), y + Lc[i] * sp.sin(th[i])
        vx = sum(sp.diff(cx, q[k]) * qd[k] for k in range(3))
        vy = sum(sp.diff(cy, q[k]) * qd[k] for k in range(3))
        T += (m[i] * (vx**2 + vy**2) + J[i] * thd[i] ** 2) / 2
        U += m[i] * P["g"] * cy
        x, y = x + L[i] * sp.cos(th[i]), y + L[i] * sp.sin(th[i])
    M = sp.Matrix(3, 3, lambda i, j: sp.expand(sp.diff(T, qd[i], qd[j])))  # unsimplified: a file is a file
    return M, U


def _equations(slip: str):
    """(M, C, G) with ``slip``: "" (correct), "plus" (Christoffel's third term +), "vertical" (q1 from the
    vertical)."""
    M, U = _lagrangian_3r(vertical=slip == "vertical")
    third = 1 if slip == "plus" else -1
    C = sp.Matrix(3, 3, lambda i, j: sp.expand(sum(
        (sp.diff(M[i, j], q[k]) + sp.diff(M[i, k], q[j]) + third * sp.diff(M[j, k], q[i])) * qd[k] / 2
        for k in range(3))))
    G = sp.Matrix([sp.diff(U, v) for v in q])
    return M, C, G


def _python(M, C, G) -> str:
    def fn(name, args, body):
        lines = [f"    {n} = p.{n}" for n in NAMES] + [f"    q{i + 1} = q[{i}]" for i in range(3)]
        lines += [f"    qd{i + 1} = qd[{i}]" for i in range(3)] if "qd" in args else []
        return f"def {name}({args}):\n" + "\n".join(lines) + f"\n    return {body}\n"

    row = lambda A, i: "[" + ", ".join(sp.pycode(A[i, j]) for j in range(3)) + "]"  # noqa: E731
    return "\n".join(["import math\n",
                      fn("M", "q, p", "[" + ", ".join(row(M, i) for i in range(3)) + "]"),
                      fn("C", "q, qd, p", "[" + ", ".join(row(C, i) for i in range(3)) + "]"),
                      fn("G", "q, p", "[" + ", ".join(sp.pycode(G[i]) for i in range(3)) + "]")])


def _matlab(M, C, G) -> str:
    def fn(name, args, value):
        lines = [f"  {n} = p.{n};" for n in NAMES] + [f"  q{i + 1} = q({i + 1});" for i in range(3)]
        lines += [f"  qd{i + 1} = qd({i + 1});" for i in range(3)] if "qd" in args else []
        return f"function out = {name}({args})\n" + "\n".join(lines) + f"\n  out = {value};\nend\n"

    mat = lambda A: "[" + "; ".join(" ".join(f"({sp.octave_code(A[i, j])})" for j in range(3))  # noqa: E731
                                    for i in range(3)) + "]"
    return "\n".join(["1;\n", fn("M", "q, p", mat(M)), fn("C", "q, qd, p", mat(C)),
                      fn("G", "q, p", "[" + "; ".join(f"({sp.octave_code(G[i])})" for i in range(3)) + "]")])


def _check(tmp_path, capsys, slip: str, suffix: str) -> tuple[int, list[str]]:
    """``check planar3r`` on the file with ``slip`` written in Python (``py``) or MATLAB (``m``, needs Octave)."""
    if suffix == "m" and shutil.which("octave-cli") is None and shutil.which("octave") is None:
        pytest.skip("GNU Octave is not installed")
    writer = _python if suffix == "py" else _matlab
    path = tmp_path / f"my_3r_{slip or 'ok'}.{suffix}"
    path.write_text(writer(*_equations(slip)))
    code = main(["check", "planar3r", str(path), "--out", str(tmp_path / "out"), "--states", "200",
                 "--random-params", "6"])
    return code, capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("suffix", ["py", pytest.param("m", marks=pytest.mark.slow)])
def test_the_christoffel_sign_slip_is_one_root_cause_in_the_first_lines(tmp_path, capsys, suffix):
    code, lines = _check(tmp_path, capsys, "plus", suffix)
    assert code == 1
    head = "\n".join(lines[:6])             # the command line, 2 header lines, a blank, the verdict, the cause
    assert "One mistake explains" in head and "third (∂M_jk/∂q_i) term of Christoffel's formula has the wrong " \
        "sign" in head, "\n".join(lines[:10])
    verdict = next(line for line in lines if line.startswith("WRONG"))
    wrong = verdict.split("wrong: ")[1].split(";")[0].split(", ")
    explained = next(line for line in lines if line.startswith("One mistake explains"))
    assert all(entry in explained for entry in wrong)         # every wrong entry is accounted for
    assert "energy conserved in free motion (follows from the wrong C)" in verdict
    assert not any(line.strip().startswith(("Cqd2: max error", "C21: max error")) for line in lines)  # no term list


@pytest.mark.parametrize("suffix", ["py", pytest.param("m", marks=pytest.mark.slow)])
def test_angles_from_the_vertical_are_a_convention_finding_with_the_gravity_suggestion(tmp_path, capsys, suffix):
    code, lines = _check(tmp_path, capsys, "vertical", suffix)
    assert code == 1
    head = "\n".join(lines[:6])
    assert "q1 appears to be measured from the downward vertical" in head
    assert "gravity = [9.81, 0.0, 0.0]" in head
    assert "energy conserved in free motion (follows from the wrong G)" in head


@pytest.mark.slow
def test_the_suggested_spec_with_gravity_along_x_passes_the_vertical_file(tmp_path, capsys):
    """The fix the finding suggests works: the same arm with gravity along +x accepts the file."""
    path = tmp_path / "my_3r_vertical.py"
    path.write_text(_python(*_equations("vertical")))
    spec = tmp_path / "planar3r_x.toml"
    assert main(["export", "planar3r", "--toml", str(spec)]) == 0
    text = spec.read_text()
    assert "gravity = [0.0, -9.81, 0.0]" in text
    spec.write_text(text.replace("gravity = [0.0, -9.81, 0.0]", "gravity = [9.81, 0.0, 0.0]"))
    capsys.readouterr()
    assert main(["check", str(spec), str(path), "--out", str(tmp_path / "out"), "--states", "200",
                 "--random-params", "6"]) == 0, capsys.readouterr().out


@pytest.mark.slow
def test_a_correct_file_gets_no_root_cause(tmp_path, capsys):
    code, lines = _check(tmp_path, capsys, "", "py")
    assert code == 0 and not any("One mistake" in line for line in lines)
