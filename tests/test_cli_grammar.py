"""One command-line grammar for the commands that judge (issue 25): every judging command's parser (from
:func:`crossdyn.cli.build_parser`) has ``--out``, ``--quiet`` and ``--json`` with the same help and the same
default scheme (``crossdyn-report/COMMAND/SUBJECT``), and its ``--help`` ends with the exit-status line; each
command run with ``--json`` prints its result document and nothing else on standard output (the real process:
file descriptor 1, engines' C-level writes included), the document equal to the file in the default ``--out`` and
valid under its published schema (jsonschema), with the exit status its verdict's; ``--quiet`` keeps the verdict
line and drops the progress lines.  Real engines, short runs (sweep and demo: the slow tier)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

from crossdyn.cli import build_parser, main  # noqa: E402
from crossdyn.cli import common  # noqa: E402
from crossdyn.status import Exit  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
PRODUCT_COMMANDS = ("derive", "export", "info", "examples")


def _subparsers() -> dict:
    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return dict(action.choices)


def _option(parser, flag: str):
    return next((a for a in parser._actions if flag in a.option_strings), None)


def test_every_judging_command_has_the_shared_options_with_one_meaning():
    subs = _subparsers()
    assert set(common.JUDGING_COMMANDS) <= set(subs)
    for name in common.JUDGING_COMMANDS:
        p = subs[name]
        out, quiet, js = _option(p, "--out"), _option(p, "--quiet"), _option(p, "--json")
        assert out is not None and quiet is not None and js is not None, name
        assert out.default is None and out.metavar == "DIR", name  # the default comes from the one scheme
        assert out.help == common.OUT_HELP.format(default=common.default_out_text(name)), name
        assert out.help.startswith("where the reports go (default: crossdyn-report/" + name), out.help
        assert quiet.help == common.QUIET_HELP and quiet.default is False, name
        assert js.default is False and js.help == common.JSON_HELP.format(
            document=common.DOCUMENTS[name], schema=common.SCHEMA_IDS[name], command=name) + common.JSON_ALSO.get(
            name, ""), name
        text = " ".join(p.format_help().split())  # the printed --help, however argparse wraps it
        for flag in ("--out DIR", "--quiet", "--json"):
            assert flag in text, (name, flag)
        assert text.endswith(common.EXIT_LINE), (name, text[-200:])


def test_the_exit_line_agrees_with_the_exit_table():
    line = common.EXIT_LINE
    for word in ("PASS", "FAIL", "INCONCLUSIVE"):
        assert f"{int(Exit[word])} {word}" in line
    assert f"{int(Exit.USAGE)} usage" in line and f"{int(Exit.INTERRUPTED)} interrupted" in line
    assert "crossdyn --help" in line
    top = " ".join(build_parser().format_help().split())
    assert "exit status (every command):" in top and "3 INCONCLUSIVE" in top
    assert " ".join(common.GRAMMAR.split()) in top  # the grammar, once, before the table


def test_the_default_out_scheme():
    assert common.default_out("compare", "planar2r") == Path("crossdyn-report/compare/planar2r")
    assert common.default_out("demo") == Path("crossdyn-report/demo")
    assert common.default_out("sweep", "a/../b c") == Path("crossdyn-report/sweep/a-..-b-c")  # one folder
    assert [common.default_out_text(c) for c in common.JUDGING_COMMANDS] == [
        "crossdyn-report/compare/ARM", "crossdyn-report/check/ARM", "crossdyn-report/identify/ARM",
        "crossdyn-report/sweep/NAME", "crossdyn-report/demo", "crossdyn-report/audit/ROBOT"]


def test_commands_whose_output_is_the_product_take_no_judging_options_and_say_where_it_goes():
    subs = _subparsers()
    for name in PRODUCT_COMMANDS:
        p = subs[name]
        assert _option(p, "--json") is None and _option(p, "--quiet") is None, name
        text = " ".join(p.format_help().split())
        assert "the output is the product" in text.lower(), name
        assert "standard output" in text or "into DIR" in text, name


def test_each_published_schema_is_valid_and_names_its_document():
    assert set(common.JUDGING_COMMANDS) <= set(common.SCHEMAS) == set(common.SCHEMA_IDS) == set(common.DOCUMENTS)
    for name in common.SCHEMAS:
        schema = json.loads(common.schema_text(name))
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$id"] == common.SCHEMA_IDS[name], name
    assert 'cli/schemas/*.json' in (ROOT / "pyproject.toml").read_text()  # shipped in the wheel


def test_info_prints_a_schema(capsys):
    assert main(["info", "--schema", "check"]) == 0
    assert json.loads(capsys.readouterr().out)["$id"] == "crossdyn.check/1"
    with pytest.raises(SystemExit) as e:
        main(["info", "--schema", "nope"])
    assert e.value.code == 2


def _run_json(tmp_path: Path, argv: list[str], timeout: int = 300):
    """``crossdyn ARGV --json`` in a fresh process in ``tmp_path`` (no --out: the default scheme); returns
    (exit status, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "crossdyn.cli", *argv, "--json"], cwd=tmp_path, env=ENV,
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def _check_document(command: str, code: int, stdout: str, stderr: str, written: Path) -> dict:
    doc = json.loads(stdout)  # the whole of standard output is the one document
    jsonschema.validate(doc, json.loads(common.schema_text(command)))
    assert doc["schema"] == common.SCHEMA_IDS[command]
    assert written.is_file() and stdout == written.read_text(encoding="utf-8")  # the file in the default --out
    assert "verdict: " in stderr, stderr  # the human lines went to standard error
    return doc


def test_compare_json(tmp_path):
    code, out, err = _run_json(tmp_path, ["compare", "planar2r", "--engines", "mujoco", "--duration", "0.2",
                                          "--states", "20", "--no-plots"])
    doc = _check_document("compare", code, out, err, tmp_path / "crossdyn-report/compare/planar2r/summary.json")
    assert code == Exit.of(doc["verdict"]) == 0 and doc["engines"]["mujoco"]["status"] == "ok"


@pytest.mark.slow  # the fast tier's 7-minute budget (.ci/run runs the slow tier)
def test_check_json_pass_and_fail(tmp_path):
    code, out, err = _run_json(tmp_path, ["check", "planar2r", str(ROOT / "examples/check/my_2r.py"), "--states",
                                          "50", "--random-params", "2"])
    doc = _check_document("check", code, out, err, tmp_path / "crossdyn-report/check/planar2r/check.json")
    assert code == 0 and doc["status"] == "PASS" and doc["checks"]["total"] > 0
    code, out, err = _run_json(tmp_path, ["check", "planar3r", str(ROOT / "examples/check/my_3r_buggy.py"),
                                          "--states", "50", "--random-params", "2"])
    doc = _check_document("check", code, out, err, tmp_path / "crossdyn-report/check/planar3r/check.json")
    assert code == 1 and doc["status"] == "FAIL" and doc["wrong_entries"]


def test_identify_json(tmp_path):
    code, out, err = _run_json(tmp_path, ["identify", "planar2r", "--engine", "exact", "--duration", "1", "--no-optimise"])
    doc = _check_document("identify", code, out, err, tmp_path / "crossdyn-report/identify/planar2r/identify.json")
    assert code == Exit.of(doc["verdict"]) == 0 and doc["checks"]["parameters_compared_to_truth"] == 8


TINY_SWEEP = 'name = "tiny"\narms = ["planar2r"]\nengines = ["mujoco-rk4"]\ndt = [0.001]\nduration = 0.2\nstates = 20\n'


@pytest.mark.slow  # a local Dask cluster: about 10 s
def test_sweep_json(tmp_path):
    pytest.importorskip("distributed")
    pytest.importorskip("duckdb")
    (tmp_path / "tiny.toml").write_text(TINY_SWEEP)
    code, out, err = _run_json(tmp_path, ["sweep", "tiny.toml", "--workers", "1", "--quiet"])
    doc = _check_document("sweep", code, out, err, tmp_path / "crossdyn-report/sweep/tiny/sweep-report.json")
    assert code == Exit.of(doc["verdict"]) and doc["comparisons"] == doc["expected"] == 1
    assert sum(doc["counts"][v] for v in ("PASS", "FAIL", "INCONCLUSIVE")) == 1 and doc["counts"]["checks"] > 0
    assert "sweep: 1/1 comparisons" not in err  # --quiet: no progress line


@pytest.mark.slow  # two comparisons in two processes: about 10 s
def test_demo_json(tmp_path):
    code, out, err = _run_json(tmp_path, ["demo", "--engines", "mujoco", "--duration", "0.2", "--states", "20",
                                          "--no-plots"])
    doc = _check_document("demo", code, out, err, tmp_path / "crossdyn-report/demo/demo.json")
    compare_schema = json.loads(common.schema_text("compare"))
    for arm in ("planar2r", "planar3r"):
        jsonschema.validate(doc["arms"][arm]["summary"], compare_schema)  # each arm's summary.json, whole
    assert code == Exit.of(doc["verdict"]) and doc["exit_code"] == code
    assert err.strip().splitlines()[-1].startswith(f"verdict: {doc['verdict']} (planar2r ")


@pytest.mark.slow  # JAX compiles its reference: about 10 s
def test_compare_batch_json(tmp_path):
    pytest.importorskip("jax")
    code, out, err = _run_json(tmp_path, ["compare", "planar2r", "--batch", "4", "--engines", "numpy-rk4",
                                          "--duration", "0.2"])
    doc = _check_document("compare-batch", code, out, err,
                          tmp_path / "crossdyn-report/compare/planar2r-batch/batch_summary.json")
    assert code == Exit.of(doc["verdict"]) == 0 and doc["checks"]["numpy-rk4"] == doc["checks"]["total"] > 0


def test_json_refuses_what_has_no_document(tmp_path, capsys):
    d = str(tmp_path / "o")
    assert main(["compare", "--list-profiles", "--json"]) == 2
    assert "--list-profiles" in capsys.readouterr().err
    assert not Path(d).exists()


@pytest.mark.slow  # moved to the slow tier: keeps make test within its 7-min budget
def test_check_summary_json_is_the_class_document(tmp_path):
    """``check ARM FOLDER --summary grades.csv --json``: grades.json (beside the CSV) alone on standard output,
    valid against crossdyn.grades/1, one object per submission with the whole diagnosis; the class's verdict is
    the rows' combined and sets the exit status."""
    import shutil

    cls = tmp_path / "class"
    cls.mkdir()
    shutil.copy(ROOT / "examples/check/my_2r.py", cls / "alice.py")
    (cls / "bob.py").write_text("def M(q, p):\n    return [[1.0, 0.0], [0.0, 1.0]\n")  # a syntax error
    code, out, err = _run_json(tmp_path, ["check", "planar2r", "class", "--summary", "grades.csv", "--jobs", "1",
                                          "--states", "50", "--random-params", "2"])
    doc = _check_document("check-summary", code, out, err, tmp_path / "grades.json")
    rows = {r["submission"]: r for r in doc["submissions"]}
    assert rows["alice.py"]["verdict"] == "correct" and rows["alice.py"]["checks"] > 0
    assert rows["bob.py"]["verdict"] == "unusable" and rows["bob.py"]["status"] == "FAIL"
    assert "bob.py" in rows["bob.py"]["diagnosis_full"] or "syntax" in rows["bob.py"]["diagnosis_full"].lower()
    assert doc["verdict"] == "FAIL" and code == doc["exit_code"] == 1
    assert doc["counts"]["correct"] == doc["counts"]["unusable"] == 1 and doc["sandbox"]
    assert doc["checks"]["total"] == sum(r["checks"] for r in doc["submissions"])


QUICK = {
    "compare": ["compare", "planar2r", "--engines", "mujoco", "--duration", "0.2", "--states", "20", "--no-plots"],
    "check": ["check", "planar2r", str(ROOT / "examples/check/my_2r.py"), "--states", "50", "--random-params", "2"],
    "identify": ["identify", "planar2r", "--engine", "exact", "--duration", "1", "--no-optimise"],
}


@pytest.mark.parametrize("command", sorted(QUICK))
def test_quiet_keeps_the_verdict_line_and_drops_progress(command, tmp_path, capsys):
    argv = QUICK[command] + ["--out", str(tmp_path / "loud")]
    assert main(argv) == 0
    loud = capsys.readouterr()
    assert main(QUICK[command] + ["--out", str(tmp_path / "quiet"), "--quiet"]) == 0
    quiet = capsys.readouterr()
    verdicts = [line for line in quiet.out.splitlines() if line.startswith("verdict: PASS (")]
    assert len(verdicts) == 1 and " checks" in verdicts[0], quiet.out
    assert quiet.err == "", quiet.err  # no progress line (nor anything else) on standard error
    assert len(quiet.out.splitlines()) < len(loud.out.splitlines()) or loud.err != "", command
    if command == "compare":  # the progress it drops: one line per stage of each engine
        assert "[planar2r] mujoco: done (ok)" in loud.err
    else:  # check and identify: the verdict line alone
        assert quiet.out.strip() == verdicts[0]


def test_bad_input_leaves_no_default_folder_behind(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "class").mkdir()
    assert main(["identify", "planar2r", "--noise", "bogus=1"]) == 2
    assert main(["check", "planar2r", "class", "--summary", "g.csv"]) == 2  # a folder without submissions
    assert "no submissions" in capsys.readouterr().err
    assert main(["compare", "planar2r", "--engines", "mujoco", "--dt", "0"]) == 2
    assert main(["demo", "--jobs", "0"]) == 2
    assert not (tmp_path / "crossdyn-report").exists()


def test_check_quiet_names_what_failed(tmp_path, capsys):
    assert main(["check", "planar3r", str(ROOT / "examples/check/my_3r_buggy.py"), "--states", "50",
                 "--random-params", "2", "--quiet", "--out", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("WRONG: 2 entries wrong: M11, M12") and \
        lines[1].startswith("verdict: FAIL ("), lines
