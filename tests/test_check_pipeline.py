"""One check pipeline for every kind of arm (issue 37): planar and spatial arms go through the same driver
(:func:`crossdyn.checking.checker.run_check`), the same ``evaluate_user``, ``structure_checks`` and result type;
the arm kind only plugs in its model and its stages (:mod:`crossdyn.checking.plant`)."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from crossdyn import sandbox
from crossdyn.checking import checker
from crossdyn.checking.options import CheckOptions
from crossdyn.checking.planar import PlanarPlant
from crossdyn.checking.results import CheckResult
from crossdyn.equations.protocol import UserFileError
from crossdyn.checking.spatial_check import SpatialPlant, check_spatial

CHECKING = Path(checker.__file__).parent
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "check"
FAST = CheckOptions(states=20, random_params=2)
SHARED = {"evaluate_user", "structure_checks", "run_check", "evaluate_and_compare", "entry_summary"}
"""The pipeline's functions, defined once (evaluation, structure, checker, entries)."""
DRIVER_STEPS = {"load_model", "evaluate_and_compare", "entry_summary", "structure_checks"}
"""What only a driver calls: a module that calls these runs its own check loop."""


@pytest.fixture(autouse=True)
def _in_process(monkeypatch):
    monkeypatch.setenv(sandbox.ENVIRONMENT_VARIABLE, sandbox.Policy(sandbox.Mode.OFF).to_text())


def _spatial_modules() -> list[Path]:
    found = sorted(CHECKING.glob("spatial_*.py"))
    assert len(found) >= 6, found          # spatial_check, _eval, _structure, _terms, _naming, _arms
    return found


@pytest.mark.parametrize("path", _spatial_modules(), ids=lambda p: p.name)
def test_no_spatial_module_defines_its_own_pipeline(path):
    """No ``checking/spatial_*`` module defines the pipeline's functions or calls a driver's steps."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assert not defined & SHARED, f"{path.name} defines {sorted(defined & SHARED)}"
    called = {n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", "")
              for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert not called & DRIVER_STEPS, f"{path.name} calls {sorted(called & DRIVER_STEPS)}: its own driver loop"


def test_each_shared_function_is_defined_once_in_checking():
    where: dict[str, list[str]] = {}
    for path in sorted(CHECKING.glob("*.py")):
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, ast.FunctionDef) and n.name in SHARED:
                where.setdefault(n.name, []).append(path.name)
    assert {k: len(v) for k, v in where.items()} == dict.fromkeys(SHARED, 1), where


def test_the_command_line_calls_one_check_for_both_kinds():
    tree = ast.parse((CHECKING.parent / "cli" / "check.py").read_text(encoding="utf-8"))
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "crossdyn.checking.spatial_check" not in modules


def test_plants_of_both_kinds():
    assert isinstance(checker.plant_of("planar3r"), PlanarPlant)
    assert isinstance(checker.plant_of("scara"), SpatialPlant)
    assert set(checker.PLANTS) == {"planar", "spatial"}
    # the spatial plant leaves out the planar-only stages; both declare stages the driver runs
    planar, spatial = (checker.plant_of(a) for a in ("planar3r", "rp-polar"))
    assert {s.__name__ for s in planar.stages} >= {"explain", "wrong_arm", "diagnose", "friction"}
    assert [s.__name__ for s in spatial.stages] == ["name_terms"]


def test_both_kinds_go_through_the_same_driver(monkeypatch):
    """check() on a planar and a spatial arm, and check_spatial, all run checker.run_check once per check, and
    return the one result type."""
    seen: list[str] = []
    real = checker.run_check

    def counting(arm, file, options):
        seen.append(checker.plant_of(arm).kind)
        return real(arm, file, options)

    monkeypatch.setattr(checker, "run_check", counting)
    planar = checker.check("planar2r", EXAMPLES / "my_2r.py", FAST)
    spatial = checker.check("rp-polar", EXAMPLES / "my_rp_buggy.py", FAST)
    via_old_name = check_spatial("rp-polar", EXAMPLES / "my_rp_buggy.py", FAST)
    assert seen == ["planar", "spatial", "spatial"]
    assert all(type(r) is CheckResult for r in (planar, spatial, via_old_name))
    assert planar.passed and not spatial.passed
    a, b = spatial.to_dict(), via_old_name.to_dict()
    a.pop("runtime_s"), b.pop("runtime_s")
    assert a == b
    assert any("term:" in m for f in spatial.wrong for m in f.messages)   # the spatial stage ran


@pytest.mark.skipif(shutil.which("octave-cli") is None, reason="needs GNU Octave")
def test_a_spatial_matlab_file_that_returns_nan_is_unusable(tmp_path):
    """The one evaluate_user checks a batch for NaN for both kinds: a spatial MATLAB G with a NaN is named, not
    compared (NaN errors never exceed a tolerance, so before issue 37 such a G could pass)."""
    text = (EXAMPLES / "my_rp_buggy.m").read_text().replace("p.m2*p.g*sin(q(1))]", "NaN]")
    path = tmp_path / "nan_g.m"
    path.write_text(text)
    with pytest.raises(UserFileError, match=r"returned NaN \(in G2\)"):
        checker.check("rp-polar", path, FAST)
