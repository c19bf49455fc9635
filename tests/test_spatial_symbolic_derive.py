"""`crossdyn derive` for the spatial presets: every format written from the shipped derivation, and the Python
and MATLAB outputs evaluate (Python; GNU Octave) to the same M, C, G as crossdyn's compiled derivation at random
states and parameters.

Tolerance 1e-12 relative to the largest entry: the outputs are the same expressions evaluated in a different
order (Octave parses the printed decimal numbers; repr round-trips them exactly)."""
from __future__ import annotations

import subprocess
import types

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # the whole module: keeps make test within its 7-min budget (CI runs it)
import sympy as sp

from crossdyn.analytic import spatial_generated as sg
from crossdyn.cli import main
from crossdyn.equations.octave_session import find_octave
from crossdyn.models import load_arm
from spatial_symbolic_arms import relative_error

PRESETS = ("rp-polar", "rpp-cylindrical", "scara", "elbow-rrr", "ppp-cartesian", "pan-tilt")
TOL = 1e-12
needs_octave = pytest.mark.skipif(find_octave() is None, reason="GNU Octave (octave-cli) is not installed")


def _derive(capsys, *argv) -> str:
    assert main(["derive", *argv]) == 0
    return capsys.readouterr().out


def _states(d, values, k=25, seed=3):
    """Random states and a random parameter set (the preset's numbers scaled by 0.5–1.5 each, g kept)."""
    rng = np.random.default_rng(seed)
    params = {key: v * (1.0 if key == "g" else rng.uniform(0.5, 1.5)) for key, v in values.items()}
    return rng.uniform(-2.0, 2.0, (k, d.n)), rng.uniform(-2.0, 2.0, (k, d.n)), params


def _reference(d, Q, QD, params):
    return d.mass_matrix(Q, params), d.coriolis_matrix(Q, QD, params), d.gravity(Q, params)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("numeric", [False, True])
def test_python_output_evaluates_to_the_derivation(capsys, name, numeric):
    d, values = sg.shipped(name)
    src = _derive(capsys, name, "--format", "python", *(["--numeric"] if numeric else []))
    ns: dict = {}
    exec(compile(src, f"<derive {name}>", "exec"), ns)  # noqa: S102 — our own generated file
    Q, QD, params = _states(d, values)
    params = values if numeric else params
    p = types.SimpleNamespace(**{str(s): params.get(str(s), 0.0) for s in d.params})
    args = () if numeric else (p,)
    M = np.array([ns["M"](q, *args) for q in Q], float)
    C = np.array([ns["C"](q, v, *args) for q, v in zip(Q, QD, strict=True)], float)
    G = np.array([ns["G"](q, *args) for q in Q], float)
    Mr, Cr, Gr = _reference(d, Q, QD, params)
    assert relative_error(M, Mr) <= TOL and relative_error(C, Cr) <= TOL and relative_error(G, Gr) <= TOL


def _octave_eval(tmp_path, src, params, Q, QD, numeric):
    (tmp_path / "arm.m").write_text(src)
    p = ", ".join(f"'{k}', {float(v)!r}" for k, v in params.items())
    rows = ";".join(" ".join(repr(float(x)) for x in r) for r in Q)
    vrows = ";".join(" ".join(repr(float(x)) for x in r) for r in QD)
    pa = "" if numeric else ", p"
    driver = (f"source('arm.m'); p = struct({p}); Q = [{rows}]; QD = [{vrows}];\n"
              "for k = 1:rows(Q)\n q = Q(k, :)'; qd = QD(k, :)';\n"
              f" printf('%.17g ', M(q{pa})', C(q, qd{pa})', G(q{pa})); printf('\\n');\nend\n")
    (tmp_path / "driver.m").write_text(driver)
    out = subprocess.run([find_octave(), "--no-gui", "--quiet", "--norc", "driver.m"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return np.array([[float(x) for x in line.split()] for line in out.stdout.strip().splitlines()])


@needs_octave
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("numeric", [False, True])
def test_matlab_output_runs_in_octave_to_the_same_m_c_g(tmp_path, capsys, name, numeric):
    d, values = sg.shipped(name)
    src = _derive(capsys, name, "--format", "matlab", *(["--numeric"] if numeric else []))
    Q, QD, params = _states(d, values, k=12)
    params = values if numeric else params
    out = _octave_eval(tmp_path, src, params, Q, QD, numeric)
    n = d.n
    Mr, Cr, Gr = _reference(d, Q, QD, params)
    # Octave prints M(q)' and C' column-major, which is M and C row by row
    M = out[:, :n * n].reshape(-1, n, n)
    C = out[:, n * n:2 * n * n].reshape(-1, n, n)
    assert relative_error(M, Mr) <= TOL and relative_error(C, Cr) <= TOL
    assert relative_error(out[:, 2 * n * n:], Gr) <= TOL


@pytest.mark.parametrize("name", ["rp-polar", "elbow-rrr"])
def test_sympy_output_rebuilds_the_matrices(capsys, name):
    d, _ = sg.shipped(name)
    ns: dict = {}
    exec(_derive(capsys, name, "--format", "sympy"), ns)  # noqa: S102
    back = {sp.Symbol(str(s), real=True): s for s in (*d.q, *d.qd, *d.params)}
    for key, X in (("M", d.M), ("C", d.C), ("G", d.G)):
        assert sp.expand(ns[key].xreplace(back) - X) == sp.zeros(*X.shape)


def test_text_and_latex_name_every_entry(capsys):
    text = _derive(capsys, "rp-polar")
    assert "M11 = Iyy1 + Iyy2 + cz1**2*m1 + m2*q2**2" in text and "G2 = g*m2*sin(q1)" in text
    tex = _derive(capsys, "elbow-rrr", "--format", "latex")
    assert tex.startswith(r"\documentclass") and tex.rstrip().endswith(r"\end{document}")
    assert all(f"M_{{{i}{j}}} &=" in tex for i in range(1, 4) for j in range(i, 4))
    assert all(f"C_{{{i}{j}}} &=" in tex for i in range(1, 4) for j in range(1, 4))


SPEC = """
[arm]
kind = "spatial"
name = "student-rp"
convention = "dh-standard"

[[joints]]
type = "revolute"
dh = [0.3, 1.5707963267948966, 0.2, 0.0]
armature = 0.05

[[joints]]
type = "prismatic"
dh = [0.0, 0.0, 0.1, 0.0]

[[links]]
mass = 2.0
com = [-0.15, 0.0, 0.05]
inertia = [0.01, 0.001, 0.0, 0.02, 0.0, 0.015]

[[links]]
mass = 1.0
com = [0.0, 0.0, -0.2]
inertia = [0.02, 0.0, 0.0, 0.02, 0.0, 0.001]
"""


@pytest.mark.parametrize("fmt", ["python", "matlab"])
def test_a_spatial_spec_file_is_derived_within_the_budget(tmp_path, capsys, fmt):
    """A user's spatial TOML (an armature, a full inertia, a prismatic offset o2) through `crossdyn derive FILE
    --numeric`: its M, C q̇ + G equal crossdyn.spatial's on the spec's own RobotModel (armature included)."""
    spatial = pytest.importorskip("crossdyn.spatial")
    if fmt == "matlab" and find_octave() is None:
        pytest.skip("GNU Octave (octave-cli) is not installed")
    path = tmp_path / "student.toml"
    path.write_text(SPEC)
    model = load_arm(str(path), spatial=True).to_robot_model()
    src = _derive(capsys, str(path), "--format", fmt, "--numeric")
    rng = np.random.default_rng(5)
    Q, QD = rng.uniform(-1.0, 1.0, (10, 2)), rng.uniform(-2.0, 2.0, (10, 2))
    if fmt == "python":
        ns: dict = {}
        exec(src, ns)  # noqa: S102
        M = np.array([ns["M"](q) for q in Q], float)
        h = np.array([np.array(ns["C"](q, v), float) @ v + np.array(ns["G"](q), float)
                      for q, v in zip(Q, QD, strict=True)])
    else:
        out = _octave_eval(tmp_path, src, {}, Q, QD, True)
        M = out[:, :4].reshape(-1, 2, 2)
        h = np.einsum("kij,kj->ki", out[:, 4:8].reshape(-1, 2, 2), QD) + out[:, 8:]
    assert relative_error(M, spatial.crba(model, Q)) <= TOL
    assert relative_error(h, spatial.bias(model, Q, QD)) <= TOL
    assert "Ia1" in _derive(capsys, str(path))


def test_a_spec_file_past_the_budget_exits_2_saying_naming_is_unavailable(tmp_path, capsys, monkeypatch):
    path = tmp_path / "student.toml"
    path.write_text(SPEC)
    monkeypatch.setattr(sg, "BUDGET_S", 0.001)
    assert main(["derive", str(path)]) == 2
    err = capsys.readouterr().err
    assert "term naming is unavailable" in err and "student-rp" in err and "Traceback" not in err
