"""A single check sees its own folder (issue 36): a user's file that imports a helper module beside it (``import
kinematics``, ``from my_params import *``), or a MATLAB file calling a function in another ``.m`` file of its folder,
gets its right verdict under ``--sandbox auto`` and ``strict`` — single check, ``--json``, ``compare --engines
user:FILE`` — from a read-only copy of the folder; the user's folder itself is never written.  (A class submission
still sees no other student's file: tests/test_grading.py.)"""
import json
import shutil
from pathlib import Path

import pytest

from crossdyn import sandbox
from crossdyn.cli import main
from crossdyn.equations.octave_session import find_octave
from crossdyn.equations.submission import ALONE, SUBMISSION_FOLDER, scope_of

FILES = Path(__file__).parent / "check_files"


def _needs(mode: str) -> None:
    if mode == "strict" and sandbox.isolation(sandbox.Policy(sandbox.Mode.AUTO)).mechanism != "bubblewrap":
        pytest.skip("--sandbox strict needs bubblewrap (make test installs it)")


def _split(folder: Path, source: Path, helper: str, style: str) -> Path:
    """``source``'s G moved into ``helper``.py, which the returned file imports (``import helper`` or
    ``from helper import *``)."""
    text = source.read_text()
    head, g = text.split("\ndef G(", 1)
    (folder / f"{helper}.py").write_text("from math import cos\n\n\ndef gravity_torque(" + g)
    use = (f"import {helper}\n\n\ndef G(q, p):\n    return {helper}.gravity_torque(q, p)\n" if style == "import"
           else f"from {helper} import *\n\n\ndef G(q, p):\n    return gravity_torque(q, p)\n")
    (folder / "dynamics.py").write_text(head + "\n" + use)
    return folder / "dynamics.py"


@pytest.fixture
def closed_folder(tmp_path):
    """A user's folder that the sandbox's own user cannot enter (mode 0700, as a `mktemp -d` folder)."""
    folder = tmp_path / "student"
    folder.mkdir(mode=0o700)
    return folder


@pytest.mark.parametrize("mode, arm, source, style, verdict", [
    ("auto", "planar2r", "textbook_2r.py", "import", "PASS"),
    ("strict", "planar2r", "textbook_2r.py", "import", "PASS"),
    ("auto", "planar3r", "textbook_3r.py", "from", "PASS"),
    ("strict", "planar3r", "textbook_3r.py", "buggy", "FAIL"),
])
def test_a_python_file_imports_its_helper_module(closed_folder, tmp_path, capsys, mode, arm, source, style,
                                                 verdict):
    _needs(mode)
    src = FILES / source
    if style == "buggy":              # the helper holds the slip: Lc3 where L3 … a wrong G3 term, found through it
        buggy = tmp_path / "buggy.py"
        buggy.write_text(src.read_text().replace("g3 = p.m3 * p.Lc3 * p.g * c123", "g3 = p.m3 * p.L3 * p.g * c123"))
        src = buggy
    f = _split(closed_folder, src, "kinematics" if style == "import" else "my_params", style)
    before = sorted(p.name for p in closed_folder.iterdir())
    rc = main(["check", arm, str(f), "--sandbox", mode, "--out", str(tmp_path / "out"), "--states", "50",
               "--random-params", "2"])
    out = capsys.readouterr().out
    assert f"verdict: {verdict}" in out, out
    assert rc == (0 if verdict == "PASS" else 1)
    assert "it sees your file's folder, read-only" in out
    if style == "buggy":
        assert "G3" in out
    assert sorted(p.name for p in closed_folder.iterdir()) == before      # nothing written into the user's folder
    doc = json.loads((tmp_path / "out" / "check.json").read_text())
    assert doc["verdict"] == ("correct" if verdict == "PASS" else "wrong") or doc.get("status") == verdict


def test_json_output(closed_folder, tmp_path, capsys):
    f = _split(closed_folder, FILES / "textbook_2r.py", "kinematics", "import")
    rc = main(["check", "planar2r", str(f), "--json", "--out", str(tmp_path / "out"), "--states", "50",
               "--random-params", "2"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["sandbox"].endswith("it sees your file's folder, read-only"), doc["sandbox"]


@pytest.mark.slow
def test_the_user_engine_imports_its_helper_module(closed_folder, tmp_path, capsys):
    f = _split(closed_folder, FILES / "textbook_2r.py", "kinematics", "import")
    rc = main(["compare", "planar2r", "--engines", f"user:{f},analytic-rk4", "--duration", "0.2",
               "--out", str(tmp_path / "cmp")])
    out = capsys.readouterr().out
    assert rc == 0 and "PASS" in out, out


def test_the_copy_is_read_only_and_the_folder_untouched(closed_folder, tmp_path, capsys):
    """A helper that writes beside itself at import fails (the copy is read-only): the file is unusable, exit 2, and
    the user's folder holds what it held."""
    _split(closed_folder, FILES / "textbook_2r.py", "kinematics", "import")
    k = closed_folder / "kinematics.py"
    k.write_text("open(__file__ + '.log', 'w').write('x')\n" + k.read_text())
    rc = main(["check", "planar2r", str(closed_folder / "dynamics.py"), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2 and ("Read-only file system" in err or "Permission denied" in err), err
    assert not (closed_folder / "kinematics.py.log").exists()


def test_what_is_copied(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("")
    monkeypatch.delenv(SUBMISSION_FOLDER, raising=False)
    assert scope_of(tmp_path / "a.py").folder == tmp_path.resolve()
    monkeypatch.setenv(SUBMISSION_FOLDER, ALONE)                          # a grader's lone file
    assert scope_of(tmp_path / "a.py").folder is None
    monkeypatch.setenv(SUBMISSION_FOLDER, str(tmp_path))                  # a grader's sub-folder submission
    assert scope_of(tmp_path / "a.py").folder == tmp_path.resolve()
    monkeypatch.delenv(SUBMISSION_FOLDER)
    monkeypatch.setattr("crossdyn.equations.submission.MAX_FILES", 3)      # a crowded folder: its sources only
    for k in range(5):
        (tmp_path / f"data{k}.csv").write_text("1")
    scope = scope_of(tmp_path / "a.py")
    assert scope.top_level_only and "top-level source files" in scope.words


@pytest.mark.parametrize("mode", ["auto", pytest.param("strict", marks=pytest.mark.slow)])
def test_a_matlab_file_calls_a_function_in_its_folder(closed_folder, tmp_path, capsys, mode):
    if find_octave() is None:
        pytest.skip("GNU Octave is not installed (make test installs it)")
    _needs(mode)
    text = (FILES / "matlab" / "textbook_2r.m").read_text()
    start = text.index("function out = G(q, p)")
    end = text.index("end", text.index("out = [", start)) + 3
    (closed_folder / "gravity_torque.m").write_text(text[start:end].replace("function out = G(q, p)",
                                                                            "function out = gravity_torque(q, p)")
                                                    + "\n")
    (closed_folder / "arm.m").write_text(text[:start] + "function out = G(q, p)\n  out = gravity_torque(q, p);\nend\n"
                                         + text[end:])
    rc = main(["check", "planar2r", str(closed_folder / "arm.m"), "--sandbox", mode, "--out", str(tmp_path / "o"),
               "--states", "50", "--random-params", "2"])
    out = capsys.readouterr().out
    assert rc == 0 and "verdict: PASS" in out and "it sees your file's folder, read-only" in out, out
    shutil.rmtree(tmp_path / "o")
