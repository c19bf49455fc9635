"""The layout rule, read from the source with ``ast``: one package per stage, every import pointing down.

Levels (a module may import its own package and any package of a lower level; packages of the same level
are peers and must not import each other; nothing imports ``cli`` but ``__main__``)::

    0  errors, status                    the one error hierarchy; the run-status and verdict enums
    1  version, conventions, io, processes  units, signs, file I/O, ending the processes crossdyn starts;
       pages                             the page layout every report renders through (Markdown, HTML)
    2  models                            specs, presets, TOML, URDF/MJCF, inertia
    3  analytic, equations               the model under test (laws, references); the user's M, C, G (Python, Octave)
    4  engines                           adapters, their capabilities, the registry
    5  inputs                            profiles, trajectories, their option syntax (what feeds an engine)
    6  drive                             the driving loop only
    7  native                            each engine's own limits, friction, contact: episodes, softness, calibration
    8  comparison, checking, …           judging engines; judging a user's equations; later capabilities
    9  reporting                         plots and the comparison report: one consumer of the typed result
    9.5 robotcompare                     the comparison on a robot file: reuses comparison's groups and tolerances,
                                         and renders its report with reporting's page blocks
    10 sweeps                            many comparisons at once
    11 cli, pytest_plugin, crossdyn      the faces: command line, pytest plugin, the lazy public API
    12 __main__                          ``python -m crossdyn``

A package that is not in :data:`LEVELS` fails the test: a new one must be placed on purpose.
Both kinds of import count, module-level and inside functions (a lazy import is still an arrow).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "crossdyn"

LEVELS = {
    "crossdyn.errors": 0, "crossdyn.status": 0,
    "crossdyn.version": 1, "crossdyn.conventions": 1, "crossdyn.io": 1, "crossdyn.processes": 1,
    "crossdyn.extras": 1, "crossdyn.pages": 1, "crossdyn.sandbox": 1, "crossdyn.steps": 1,
    "crossdyn.robots": 2, "crossdyn.models": 2.5,  # models above robots: a spec becomes a RobotModel (issue 27)
    "crossdyn.analytic": 3, "crossdyn.equations": 3, "crossdyn.spatial": 3,
    "crossdyn.engines": 4, "crossdyn.derivatives": 4.5,  # above spatial, analytic and the engines it builds (issue 41)
    "crossdyn.inputs": 5,
    "crossdyn.drive": 6,
    "crossdyn.native": 7,
    "crossdyn.comparison": 8, "crossdyn.checking": 8, "crossdyn.identification": 8, "crossdyn.batch": 8,
    "crossdyn.audit": 8,
    "crossdyn.reporting": 9, "crossdyn.robotcompare": 9.5,  # its report is reporting's blocks (issue 37)
    "crossdyn.sweeps": 10,
    "crossdyn.cli": 11, "crossdyn.pytest_plugin": 11, "crossdyn": 11,
    "crossdyn.__main__": 12,
}


def module_name(path: Path) -> str:
    parts = ["crossdyn", *path.relative_to(ROOT).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def unit(module: str) -> str:
    """The layout unit of a module: its top-level package or module under crossdyn (``crossdyn`` for the
    package's own ``__init__``)."""
    parts = module.split(".")
    return ".".join(parts[:2])


def imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every crossdyn module that ``module`` imports (``from pkg import sub`` resolved to the submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "crossdyn":
                    out.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import
                base = module.split(".") if is_pkg else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "crossdyn":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in known else target)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {m: imports(m, p, known) for m, p in known.items()}


def test_every_package_has_a_level():
    missing = sorted({unit(m) for m in modules()} - set(LEVELS))
    assert not missing, f"place these in LEVELS (tests/test_layout.py) and the layout in docs/howto/scripting.md: {missing}"


def test_imports_point_down():
    bad = []
    for m, targets in graph().items():
        mu = unit(m)
        for t in targets:
            tu = unit(t)
            if tu == mu or tu not in LEVELS or mu not in LEVELS:
                continue
            if LEVELS[tu] >= LEVELS[mu]:
                kind = "a peer" if LEVELS[tu] == LEVELS[mu] else "a higher level"
                bad.append(f"{m} (level {LEVELS[mu]}) imports {t} (level {LEVELS[tu]}, {kind})")
    assert not bad, "imports that point up or sideways:\n  " + "\n  ".join(sorted(bad))


def test_nothing_imports_the_command_line():
    bad = [f"{m} imports {t}" for m, ts in graph().items() for t in ts
           if unit(t) == "crossdyn.cli" and unit(m) not in ("crossdyn.cli", "crossdyn.__main__")]
    assert not bad, bad


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    """One import cycle among modules (a list that starts and ends with the same module), or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for t in sorted(g.get(m, ())):
            if t not in g:
                continue
            if state.get(t) == 1:
                return stack[stack.index(t):] + [t]
            if t not in state:
                found = visit(t)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(g):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_no_import_cycles():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_rules_can_fail():
    """The checks above are real: a made-up cycle is found, and so is an upward import."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    assert LEVELS[unit("crossdyn.comparison.compare")] > LEVELS[unit("crossdyn.engines.base")]
    assert unit("crossdyn.cli.compare") == "crossdyn.cli"


@pytest.mark.parametrize("concept, path", [
    ("the user-equations loader", "equations/loader.py"),
    ("torque profiles", "inputs/profiles/registry.py"), ("the runner", "drive/runner.py"),
    ("metrics", "comparison/metrics.py"), ("tolerances", "comparison/tolerances.py"),
    ("baselines", "comparison/baseline.py"), ("reports", "reporting/output.py"),
    ("report blocks", "reporting/blocks/__init__.py"), ("report plots", "reporting/plots/__init__.py"),
    ("the checker", "checking/checker.py"), ("its diagnosis", "checking/diagnosis.py"),
    ("crossdyn compare", "cli/compare.py"), ("crossdyn check", "cli/check.py"),
    ("crossdyn export", "cli/export.py"), ("crossdyn info", "cli/info.py"), ("crossdyn demo", "cli/demo.py"),
])
def test_each_concept_lives_in_the_file_named_after_it(concept, path):
    assert (ROOT / path).is_file(), f"{concept}: expected crossdyn/{path}"


def test_no_submodule_shadows_a_name_its_package_exports():
    """``crossdyn.analytic.friction`` (a function) was once shadowed by a module ``analytic/friction.py``: importing
    the module rebinds the package attribute, and ``analytic.friction(...)`` then calls a module."""
    clashes = []
    for init in sorted(ROOT.rglob("__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        exported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    for alias in node.names}
        exported |= {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        for name in exported:
            sub = init.parent / f"{name}.py"
            if sub.exists() and not any(isinstance(n, ast.ImportFrom) and n.module and n.module.endswith(f".{name}")
                                        and any(a.name == "*" for a in n.names) for n in ast.walk(tree)):
                target = {alias.asname or alias.name: node.module for node in ast.walk(tree)
                          if isinstance(node, ast.ImportFrom) for alias in node.names}.get(name)
                if target not in (module_name(init), f"{module_name(init)}.{name}"):  # own submodule: no clash
                    clashes.append(f"{module_name(init)}.{name}: exported from {target}, shadowed by {sub.name}")
    assert not clashes, clashes
