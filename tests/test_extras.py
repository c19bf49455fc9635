"""Extras by need, in this (full) environment: the left-out default engines, ``info --engines``, ``crossdyn
examples``, and the extras table against pyproject.toml.  An engine's library is made missing the way a missing
package is (``sys.modules[name] = None``: its import raises ImportError and find_spec finds nothing); the base-only
install itself is tests/test_wheel.py."""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from crossdyn.cli import main
from crossdyn.engines.registry import engine_names, entry
from crossdyn.extras import ENGINE_EXTRAS, EXTRAS, OUTSIDE_ALL

ROOT = Path(__file__).resolve().parent.parent


def test_compare_names_the_default_engines_it_leaves_out(monkeypatch):
    from crossdyn.cli.compare import check_installed
    from crossdyn.comparison.options import DEFAULT_ENGINES

    monkeypatch.setitem(sys.modules, "pydrake", None)
    monkeypatch.setitem(sys.modules, "dartpy", None)
    lines: list[str] = []
    check_installed(None, lines.append)
    gone = [e for e in DEFAULT_ENGINES if entry(e).library in ("pydrake", "dartpy")]
    assert len(lines) == len(gone) and gone, (lines, gone)
    for name, line in zip(gone, lines):
        assert f"left out default engine {name} (not installed: pip install 'crossdyn[{entry(name).extra}]')" in line


def test_a_named_engine_without_its_extra_exits_2_before_any_work(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "pydrake", None)
    out = tmp_path / "r"
    assert main(["compare", "planar2r", "--engines", "mujoco,drake-rk3", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "engine 'drake-rk3' is not installed: pip install 'crossdyn[drake]'" in err and not out.exists()


def test_info_engines_lists_every_engine_with_its_version_or_pip_command(monkeypatch, capsys):
    import mujoco

    monkeypatch.setitem(sys.modules, "dartpy", None)
    assert main(["info", "--engines"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:]}
    assert set(rows) == set(engine_names())
    assert f"installed (mujoco {mujoco.__version__})" in rows["mujoco-rk4"]
    assert rows["dart"].endswith("not installed: pip install 'crossdyn[dart]'")
    assert "base install" in rows["analytic"]


def test_every_engine_extra_is_a_pyproject_extra_and_in_all():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    in_all = extras["all"][0].split("[", 1)[1].rstrip("]").split(",")
    assert set(ENGINE_EXTRAS) - set(OUTSIDE_ALL) <= set(in_all) and set(in_all) <= set(extras)
    assert not set(OUTSIDE_ALL) & set(in_all) and set(OUTSIDE_ALL) <= set(extras)  # genesis: ~8.5 GB with torch
    assert {"sweep", "identify", "jax", "parquet"} <= set(in_all)
    for name in engine_names():
        e = entry(name)
        assert (e.library is None) == (e.extra is None), name
        assert e.extra is None or (e.extra in extras and e.extra in EXTRAS and e.library in EXTRAS[e.extra]), name
    for old in ("engines", "jax", "sweep", "identify", "latex", "dev", "bench"):  # the names before issue 24
        assert old in extras


def test_examples_copies_them_and_never_overwrites(tmp_path, capsys):
    dest = tmp_path / "ex"
    assert main(["examples", str(dest)]) == 0
    shipped = sorted(p.relative_to(ROOT / "examples") for p in (ROOT / "examples").rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts)
    assert sorted(p.relative_to(dest) for p in dest.rglob("*") if p.is_file()) == shipped
    assert main(["examples", str(dest)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["check", "planar2r", str(dest / "check" / "my_2r.py"), "--out", str(tmp_path / "ck")]) == 0


@pytest.mark.parametrize("argv,extra", [(["sweep", "x.toml", "--out", "OUT"], "sweep"),
                                        (["identify", "planar2r", "--estimator", "consistent", "--out", "OUT"],
                                         "identify")])
def test_feature_commands_without_their_extra_exit_2_before_any_work(monkeypatch, tmp_path, capsys, argv, extra):
    monkeypatch.setitem(sys.modules, EXTRAS[extra][0], None)
    out = tmp_path / "out"
    assert main([str(out) if a == "OUT" else a for a in argv]) == 2
    assert f"pip install 'crossdyn[{extra}]'" in capsys.readouterr().err and not out.exists()


def test_compare_with_an_engine_but_without_pandas_exits_2_naming_the_extra(monkeypatch, tmp_path, capsys):
    """An environment with MuJoCo but not pandas (installed by hand, not through an extra): the comparison would
    fail writing its time series after all its work, so it is refused first, naming the pip command."""
    monkeypatch.setitem(sys.modules, "pandas", None)
    out = tmp_path / "r"
    assert main(["compare", "planar2r", "--engines", "mujoco-rk4", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "compare (its time series) needs pandas (not installed): pip install 'crossdyn[mujoco]'" in err, err
    assert "Traceback" not in err and not out.exists()
