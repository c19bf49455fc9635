"""Issue 22's moves and issue 37's removals: the old import paths are gone (no module of crossdyn warns with a
DeprecationWarning, no import circle between its modules), crossdyn's Octave code ships as package data, and every
options dataclass agrees with the keywords it backs."""
from __future__ import annotations

import ast
import dataclasses
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import get_type_hints

import pytest
from test_layout import find_cycle  # the layer test's cycle finder, on this module-level graph

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "crossdyn"

REMOVED = {
    # old path (issue 22's deprecated re-export, removed in issue 37) -> {new home: names it re-exported from there}
    "crossdyn.analytic.contact": {"crossdyn.analytic.laws.contact": ("ContactLaw", "effective_mass"),
                                  "crossdyn.analytic.references.contact": ("simulate_contact", "fixed_step_contact")},
    "crossdyn.analytic.limits": {"crossdyn.analytic.laws.limit": ("LimitLaw",),
                                 "crossdyn.analytic.references.limits": ("simulate_limits", "rk4_limits")},
    "crossdyn.analytic.stick_slip": {"crossdyn.analytic.laws.friction": ("FrictionLaw", "without_friction"),
                                     "crossdyn.analytic.references.stick_slip": ("simulate_stick_slip",
                                                                                 "rk4_regularised")},
    "crossdyn.analytic.events": {"crossdyn.analytic.references.events": ("integrate_events", "hold_bounds",
                                                                         "output_grid", "SIMULTANEOUS")},
    "crossdyn.models.user_equations": {"crossdyn.equations.python_file": ("UserModel",),
                                       "crossdyn.equations.protocol": ("UserFileError",),
                                       "crossdyn.equations.params": ("ParamSet", "UserParams", "own_params")},
    "crossdyn.models.octave_equations": {"crossdyn.equations.octave_model": ("OctaveModel", "is_matlab_path")},
    "crossdyn.models.octave_session": {"crossdyn.equations.octave_session": ("OctaveSession", "find_octave",
                                                                             "octave_string")},
    "crossdyn.models.equations": {"crossdyn.equations.loader": ("load_model",),
                                  "crossdyn.equations.params": ("param_rows",)},
    "crossdyn.drive.profiles": {"crossdyn.inputs.profiles": ("make_profile", "Profile", "PROFILES", "drop_pose")},
    "crossdyn.drive.profile_options": {"crossdyn.inputs.profile_options": ("parse_profile", "split_profile_option")},
    "crossdyn.drive.trajectories": {"crossdyn.inputs.trajectories": ("JointTrajectory", "quintic", "ik_2r")},
    "crossdyn.drive.trajectory_file": {"crossdyn.inputs.trajectory_file": ("load_trajectory", "TrajectoryFileError")},
    "crossdyn.drive.effort": {"crossdyn.native.effort": ("native_effort_check",)},
    "crossdyn.drive.limit_contacts": {"crossdyn.native.limits.episodes": ("contacts",)},
    "crossdyn.drive.limit_softness": {"crossdyn.native.limits.softness": ("held_load_give",)},
    "crossdyn.drive.limit_calibration": {"crossdyn.native.limits.calibration": ("calibrate_mujoco_limits",),
                                         "crossdyn.native.fitting": ("fit",)},
    "crossdyn.drive.limits_native": {"crossdyn.native.limits.runs": ("characterise_native",)},
    "crossdyn.drive.friction_native": {"crossdyn.native.friction.softness": ("creep_floor",)},
    "crossdyn.drive.contact_events": {"crossdyn.native.contact.verdict": ("judge",),
                                      "crossdyn.native.contact.reference": ("law_run",)},
    "crossdyn.drive.contact_native": {"crossdyn.native.contact.verdict": ("table",)},
    "crossdyn.drive.contact_calibration": {"crossdyn.native.contact.calibration": ("calibrate_mujoco_contact",)},
    "crossdyn.comparison.native_limits": {"crossdyn.native.limits.verdict": ("judge_native_run",)},
    "crossdyn.comparison.native_friction": {"crossdyn.native.friction.verdict": ("failures", "judge")},
    "crossdyn.comparison.report": {"crossdyn.reporting": ("render_markdown", "write_outputs"),
                                   "crossdyn.reporting.blocks": ("limit_blocks",)},
}
REGISTRY_NAMES = ("EngineEntry", "available_engines", "engine_names", "make_engine", "register", "split_options")
"""Once re-exported by ``crossdyn.engines.base`` (a module ``__getattr__``, with a DeprecationWarning)."""


@pytest.mark.parametrize("old", sorted(REMOVED))
def test_the_old_paths_are_gone_and_their_names_live_at_the_new(old):
    sys.modules.pop(old, None)
    with pytest.raises(ModuleNotFoundError) as e:
        importlib.import_module(old)
    assert e.value.name == old
    for new, names in REMOVED[old].items():
        module = importlib.import_module(new)
        for name in names:
            assert getattr(module, name) is not None, f"{new}.{name}"


def test_engines_base_no_longer_re_exports_the_registry():
    import crossdyn.engines.base as base
    from crossdyn.engines import registry

    for name in REGISTRY_NAMES:
        assert getattr(registry, name) is not None
        assert not hasattr(base, name), f"crossdyn.engines.base.{name}"


IMPORT_EVERY_MODULE = r"""
import json, pkgutil, sys, warnings

# error: a DeprecationWarning attributed to a crossdyn module (stacklevel 1: the module that warns; a re-export's
# stacklevel 2: the module importing it, here the frame below, named inside crossdyn); others as they are
warnings.filterwarnings("error", category=DeprecationWarning, module=r"crossdyn(\..*)?$")
IMPORTER = {"__name__": "crossdyn.__import_check__"}
done, skipped, failed = [], {}, {}


def load(name):
    try:
        exec(f"import {name}", dict(IMPORTER))
    except ImportError as e:
        if e.name and e.name.split(".")[0] != "crossdyn":  # a third-party package an optional extra brings
            skipped[name] = f"{type(e).__name__}: {e}"
            return False
        failed[name] = f"{type(e).__name__}: {e}"
        return False
    except DeprecationWarning as e:
        failed[name] = f"DeprecationWarning: {e}"
        return False
    done.append(name)
    return True


if load("crossdyn"):
    import crossdyn

    # the body imports each module (a package before walk_packages does, to list its submodules)
    for info in pkgutil.walk_packages(crossdyn.__path__, "crossdyn.",
                                      onerror=lambda name: failed.setdefault(name, repr(sys.exc_info()[1]))):
        if info.name.rsplit(".", 1)[-1] != "__main__":  # __main__ runs the command line
            load(info.name)
print(json.dumps({"done": done, "skipped": skipped, "failed": failed}))
"""


@pytest.mark.slow  # imports every module in a fresh interpreter (~10 s); the source check below is the fast one
def test_no_crossdyn_module_warns_when_imported():
    """Every module of the package imported in a fresh interpreter (JAX and the GPU libraries among them, which this
    forking test session must not import), with crossdyn's DeprecationWarnings turned into errors."""
    env = dict(os.environ, MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p))
    proc = subprocess.run([sys.executable, "-c", IMPORT_EVERY_MODULE], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=400)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not out["failed"], out["failed"]
    assert "crossdyn.drive.runner" in out["done"] and "crossdyn.engines.registry" in out["done"]
    assert len(out["done"]) + len(out["skipped"]) >= len(module_files()) - 2  # the two __main__ modules
    assert not set(REMOVED) & set(out["done"])


def test_no_crossdyn_source_warns_deprecation():
    """Nothing in crossdyn/ calls ``warn(..., DeprecationWarning)`` — not at import (the test above) and not in a
    module ``__getattr__`` or a function either."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == "DeprecationWarning"
                                                  for a in [*node.args, *(k.value for k in node.keywords)]):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, bad


# ---------------------------------------------------------------------------------------------- no import circle
def module_files(root: Path = PACKAGE) -> dict[str, Path]:
    """Module name -> file, for every module of the package at ``root`` (``pkg/__init__.py`` is ``pkg``)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def module_level_imports(body: list[ast.stmt]):
    """The import statements a module runs when imported: not those inside a function, nor under
    ``if TYPE_CHECKING:`` (its ``else`` runs); those in a class body, ``try``, ``with`` or another ``if`` do."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        elif isinstance(node, ast.If) and _type_checking(node.test):
            yield from module_level_imports(node.orelse)
        else:
            for name in ("body", "orelse", "finalbody"):
                yield from module_level_imports([s for s in getattr(node, name, []) if isinstance(s, ast.stmt)])
            for handler in getattr(node, "handlers", []):
                yield from module_level_imports(handler.body)
            for case in getattr(node, "cases", []):
                yield from module_level_imports(case.body)


def import_graph(known: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of ``known`` its module-level imports name (relative imports resolved;
    ``from pkg import sub`` is an arrow to the submodule, ``from pkg import name`` one to the package)."""
    graph = {}
    for module, path in known.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        arrows = set()
        for node in module_level_imports(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body):
            if isinstance(node, ast.Import):
                arrows |= {a.name for a in node.names if a.name in known}
                continue
            target = node.module or ""
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:
                    arrows.add(sub)
                elif target in known:
                    arrows.add(target)
        graph[module] = arrows - {module}
    return graph


def test_crossdyn_has_no_import_circle():
    graph = import_graph(module_files())
    assert len(graph) > 100 and graph["crossdyn.drive.runner"] >= {"crossdyn.engines.base"}
    cycle = find_cycle(graph)
    assert cycle is None, "import circle at module level: " + " -> ".join(cycle)


def test_the_circle_check_can_fail(tmp_path):
    """The graph reads what runs at import (relative imports resolved; function bodies and ``if TYPE_CHECKING:``
    skipped), and a circle in it is found."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import b\n")
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\n"
                              "def f():\n    import pkg.c\nclass K:\n    from .sub import b\n")
    (pkg / "sub" / "b.py").write_text("try:\n    from ..c import x\nexcept ImportError:\n    pass\n")
    (pkg / "c.py").write_text("import pkg.a\nx = 1\n")
    graph = import_graph(module_files(pkg))
    assert graph == {"pkg": set(), "pkg.a": {"pkg.sub.b"}, "pkg.sub": {"pkg.sub.b"}, "pkg.sub.b": {"pkg.c"},
                     "pkg.c": {"pkg.a"}}
    assert find_cycle(graph) == ["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]
    (pkg / "c.py").write_text("x = 1\n")
    assert find_cycle(import_graph(module_files(pkg))) is None


def test_the_octave_helpers_ship_as_package_data():
    from crossdyn.equations.octave_model import M_FILES, m_file

    texts = {name: m_file(name) for name in M_FILES}
    assert "function [O, ckind, ok] = crossdyn_loop__(" in texts["crossdyn_helpers__.m"]
    assert texts["crossdyn_helpers__.m"].lstrip("% \n").find("1;") >= 0
    assert "classdef crossdyn_value__" in texts["crossdyn_value__.m"]
    assert "function z = zeros(varargin)" in texts["zeros.m"]


def test_both_languages_answer_the_equations_protocol(tmp_path):
    from crossdyn.equations import Equations, load_model

    f = tmp_path / "eq.py"
    f.write_text("import numpy as np\ndef M(q, p):\n    return np.eye(2)\n")
    assert isinstance(load_model(f, 2), Equations)


def _pairs():
    from crossdyn.analytic import integrators
    from crossdyn.analytic.references import contact, events

    return [(events.EventOptions, events.EventKeywords), (events.ReferenceOptions, events.ReferenceKeywords),
            (contact.ContactOptions, contact.ContactKeywords), (integrators.SimulateOptions, integrators.SimulateKeywords)]


def test_every_options_dataclass_matches_its_keywords():
    for options, keywords in _pairs():
        assert {f.name for f in dataclasses.fields(options)} == set(get_type_hints(keywords)), options.__name__
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(options(), dataclasses.fields(options)[0].name, None)


def test_rollout_options_match_their_keywords_read_from_the_source():
    """jax_model imports JAX, which this test session must not (the comparison tests fork): read it with ast."""
    import ast
    from pathlib import Path

    import crossdyn

    tree = ast.parse((Path(crossdyn.__file__).parent / "analytic" / "jax_model.py").read_text(encoding="utf-8"))
    fields = {node.name: {s.target.id for s in node.body if isinstance(s, ast.AnnAssign)}
              for node in tree.body if isinstance(node, ast.ClassDef)}
    assert fields["RolloutOptions"] == fields["RolloutKeywords"] == {"save_every", "dtype", "precision", "timing"}


def test_an_unknown_keyword_is_refused():
    from crossdyn.analytic.references import simulate_limits
    from crossdyn.analytic.laws import LimitLaw
    from crossdyn.models.presets import get_preset

    spec = get_preset("planar2r")
    with pytest.raises(TypeError, match="output_step"):
        simulate_limits(spec, LimitLaw.from_spec(spec, 1e3, 1.0), [0.0, 0.0], [0.0, 0.0], 0.01, output_step=1e-3)
