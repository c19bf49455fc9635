"""Rotor armature in MATLAB files, through real GNU Octave: the ``p`` struct's armature fields, the derived
MATLAB file's round trip, the diagnosis of a file that forgets the rotors, and the user:FILE engine.

References: the analytic model with armature (crossdyn.analytic, itself checked against MuJoCo and Pinocchio in
tests/test_armature.py) and the Python side's names and diagnosis (tests/check_files/textbook_3r*.py).
"""
from pathlib import Path

import numpy as np
import pytest

from conftest import edited_copy
from crossdyn import analytic
from crossdyn.checking.checker import check
from crossdyn.cli import main
from crossdyn.engines import make_engine
from crossdyn.models import get_preset
from crossdyn.equations.octave_session import find_octave
from crossdyn.models.presets import GEARED_ARMATURE

pytestmark = pytest.mark.skipif(find_octave() is None, reason="GNU Octave (octave-cli) is not installed; "
                                "'make test' installs it (apt-get install octave)")

FILES = Path(__file__).parent / "check_files"
MFILES = FILES / "matlab"
FAST = {"states": 150, "random_params": 3, "energy": False}   # the energy check: tests/test_octave.py
SCALARS = """  out(1,1) = out(1,1) + p.Ia1;
  out(2,2) = out(2,2) + p.Ia2;
  out(3,3) = out(3,3) + p.Ia3;"""


def _findings(r):
    return {f.entry: f for f in r.wrong}


def test_armature_file_passes_and_the_forgetful_one_is_diagnosed_like_python():
    good = check("planar3r-geared", MFILES / "textbook_3r_armature.m", **FAST)
    assert good.verdict == "correct" and good.language == "matlab", [f.messages for f in good.findings]
    # on an arm without rotors p.Ia1 … are 0, and the same file is right
    assert check("planar3r", MFILES / "textbook_3r_armature.m", **FAST).verdict == "correct"
    bad = check("planar3r-geared", MFILES / "textbook_3r.m", **FAST)          # M without the rotors
    py = check("planar3r-geared", FILES / "textbook_3r.py", **FAST)
    assert set(_findings(bad)) == set(_findings(py)) == {"M11", "M22", "M33"}
    for entry, missing in (("M11", "1/20"), ("M22", "0.03"), ("M33", "0.01")):   # I_a1, I_a2, I_a3
        text = "\n".join(_findings(bad)[entry].messages)
        assert f"yours lacks {missing} = p.Ia{entry[1]}, the rotor armature of joint {entry[1]}" in text, text
        assert _findings(bad)[entry].messages == _findings(py)[entry].messages     # the same words as Python


@pytest.mark.parametrize("form", [
    "  out = out + diag(p.armature);",                                        # 1-based column vector
    "  out = out + diag([p.armature1, p.armature2, p.armature3]);",          # 1-based scalars, long name
    "  for i = 1:p.n\n    out(i,i) = out(i,i) + p.Ia(i);\n  end",             # p.Ia(i) in a loop
])
def test_every_armature_name_of_the_p_struct(tmp_path, form):
    f = edited_copy(MFILES, tmp_path, "textbook_3r_armature.m", SCALARS, form, "mine.m")
    r = check("planar3r-geared", f, **FAST)
    assert r.verdict == "correct", [f.messages for f in r.findings]


def test_a_wrong_rotor_is_named(tmp_path):
    f = edited_copy(MFILES, tmp_path, "textbook_3r_armature.m", "out(2,2) + p.Ia2", "out(2,2) + p.Ia3", "mine.m")
    r = check("planar3r-geared", f, **FAST)
    assert [x.entry for x in r.wrong] == ["M22"]
    assert "yours lacks 0.02" in "\n".join(r.wrong[0].messages)              # I_a2 − I_a3 = 0.02


def test_derived_matlab_uses_the_p_struct_and_round_trips(tmp_path, capsys):
    out = tmp_path / "derived.m"
    assert main(["derive", "planar3r-geared", "--format", "matlab", "--out", str(out)]) == 0
    capsys.readouterr()
    src = out.read_text()
    assert "Ia1 = p.Ia1;" in src and "Ia3 = p.Ia3;" in src and "0.05" not in src     # parameters, not numbers
    r = check("planar3r-geared", out, **{**FAST, "energy": True})     # as the CLI: the free swing in Octave too
    assert r.verdict == "correct" and r.random_params == 3, [f.messages for f in r.findings]
    # the same file without its rotors: wrong exactly on the diagonal entries
    stripped = tmp_path / "stripped.m"
    stripped.write_text(src.replace("out(1, 1) = Ia1 + ", "out(1, 1) = ").replace("out(2, 2) = Ia2 + ", "out(2, 2) = ")
                        .replace("out(3, 3) = Ia3 + ", "out(3, 3) = "))
    assert stripped.read_text().count("Ia") == src.count("Ia") - 3
    assert {f.entry for f in check("planar3r-geared", stripped, **FAST).wrong} == {"M11", "M22", "M33"}


def test_user_engine_runs_the_matlab_file_with_armature():
    spec = get_preset("planar3r-geared")
    q, qd = np.array([0.3, -0.2, 0.5]), np.array([1.0, -2.0, 0.5])
    with make_engine(f"user:{MFILES / 'textbook_3r_armature.m'}", spec) as eng:
        assert eng.unsupported() == []
        # 1e-12 kg m²: rounding (Octave prints 17 significant digits)
        np.testing.assert_allclose(eng.mass_matrix(q), analytic.mass_matrix(spec, q), atol=1e-12)
        tau = np.array([0.5, -0.2, 0.05])
        np.testing.assert_allclose(eng.forward_dynamics(q, qd, tau), analytic.forward_dynamics(spec, q, qd, tau),
                                   atol=1e-10)
        eng.reset(q, qd)
        eng.step(tau)   # RK4 inside Octave with p.Ia from the spec
        with make_engine("analytic-rk4", spec) as ref:
            ref.reset(q, qd)
            ref.step(tau)
            # one RK4 step of the same equations: rounding apart (1e-12 rad)
            np.testing.assert_allclose(eng.state()[0], ref.state()[0], atol=1e-12)
    assert list(GEARED_ARMATURE) == [l.armature for l in spec.links]


def test_a_rotor_counted_twice_is_named(tmp_path):
    f = edited_copy(MFILES, tmp_path, "textbook_3r_armature.m", "out(1,1) + p.Ia1", "out(1,1) + 2*p.Ia1", "mine.m")
    r = check("planar3r-geared", f, **FAST)
    assert [x.entry for x in r.wrong] == ["M11"]
    assert "yours has 1/20 too much = p.Ia1, the rotor armature of joint 1, counted twice" in "\n".join(r.wrong[0].messages)
