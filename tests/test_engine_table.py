"""One engine table (issue 37): every engine name resolves from :mod:`crossdyn.engines.registry`'s table, means the
same integrator on a planar arm, a textbook DH arm and a robot file (each engine's own ``integrator`` and config
say so), runs on every arm kind it has an adapter for or is refused naming why; the default lists, the extras and
``crossdyn info --engines`` derive from it."""
from __future__ import annotations

import sys
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest

from crossdyn.cli import main
from crossdyn.engines import registry
from crossdyn.engines.files import ALL_FILE_ENGINES, FILE_ENGINES, file_engine_status, make_file_engine
from crossdyn.errors import EngineError, EngineUnsupported
from crossdyn.models import get_preset
from crossdyn.comparison.groups.trajectory import scheme_of
from crossdyn.robots import read_robot
from crossdyn.robots.model import Format

ROOT = Path(__file__).resolve().parent.parent
GPU = ("mujoco-warp", "newton", "genesis")   # kernels compile for minutes on a CPU: tests/test_file_engines_gpu.py
JAX = ("mjx",)   # JAX runs in make test's JAX session (no fork after importing it): tests/test_mjx_files.py


def test_every_list_derives_from_the_table():
    from crossdyn.comparison.options import DEFAULT_ENGINES
    from crossdyn.extras import ENGINE_EXTRAS

    assert DEFAULT_ENGINES == registry.defaults("planar")   # a literal there: that module stays light to import
    assert tuple(FILE_ENGINES) == registry.defaults("files")
    assert list(ALL_FILE_ENGINES) == [*registry.defaults("files"),
                                      *(n for n in registry.file_entries() if n not in registry.defaults("files"))]
    table_extras = {row[5] for row in registry._TABLE} - {None}
    assert table_extras - {"jax"} <= set(ENGINE_EXTRAS) <= table_extras | {"jax"}
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert table_extras <= set(extras)
    for name in (row[0] for row in registry._TABLE):         # every name crossdyn ships, with its integrator stated
        e = registry.entry(name)
        assert e.integrator and e.name == name
        assert e.file is not None or "files" in e.refusals, name


def test_info_lists_every_name_with_its_integrator_and_arm_kinds(capsys):
    assert main(["info", "--engines"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["engine", "extra", "integrator", "arms", "status"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert set(rows) == set(registry.engine_names())
    assert rows["mujoco"][2] == "semi-implicit-euler" and rows["mujoco-rk4"][2] == "rk4"
    assert rows["drake-rk4"][3:5] == ["planar,", "files"] and rows["mjx"][3:6] == ["planar,", "files,", "batch"]
    for name in NEWLY_BOTH:                          # they ran on one arm kind only before
        assert rows[name][3:5] == ["planar,", "files"], rows[name]
    assert rows["mujoco"][3:6] == ["planar,", "files,", "batch"] and rows["jax-rk4"][3] == "batch"


def test_batched_names_are_rows_of_the_one_table():
    """``compare --batch``'s names, integrators, extras and defaults come from the table: a name with a batched runner
    steps with the same scheme there as on one arm, and a batched-only name is refused on one arm, naming why."""
    from crossdyn.batch import engines as batch

    assert list(batch.ENGINES) == list(registry.batched())
    assert batch.DEFAULT_ENGINES == registry.defaults("batch") == ("jax-rk4", "jax-rk4-f32", "mjx-rk4", "mujoco-rk4",
                                                                   "numpy-rk4")
    for name, b in batch.ENGINES.items():
        e = registry.entry(name)
        assert b.integrator == e.integrator and b.library == e.batch, name
        assert b.library in batch.EXTRAS or e.extra is None, name
    for name in ("mujoco", "mujoco-rk4", "mjx-rk4", "mujoco-warp", "newton"):   # the names that run on one arm too
        assert "planar" not in registry.entry(name).refusals
    with pytest.raises(EngineUnsupported, match="batched engine only"):
        registry.make_engine("jax-rk4", get_preset("planar2r"))
    with pytest.raises(EngineError, match="not a batched engine"):
        batch.batch_engine_list("pinocchio")


def _installed(name: str) -> bool:
    return registry.entry(name).available()


BOTH = [n for n, e in registry.file_entries().items() if "planar" not in e.refusals and not n.startswith(GPU + JAX)]
NEWLY_BOTH = ("pinocchio-euler", "drake-rk2", "drake-rk4", "drake-rk5", "drake-euler", "drake-implicit")
"""The names that ran on planar arms only (drake-rk4: on robot files only) before they got both adapters."""
# the names whose meaning changed or that are new on an arm kind (each < 1 s: measured 0.05-0.7 s); the rest: slow
FAST = {"mujoco", "mujoco-rk4", "dart", "drake", "drake-discrete", *NEWLY_BOTH}
NAMES = [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in BOTH]


@pytest.fixture(scope="module")
def robot():
    from robot_files import erd_ur5_urdf

    return read_robot(str(erd_ur5_urdf()))


@pytest.fixture(scope="module")
def scara_files(tmp_path_factory):
    from crossdyn.models import load_arm
    from crossdyn.robotcompare.spatial import arm_files

    return arm_files(load_arm("scara", spatial=True), tmp_path_factory.mktemp("scara"))


@pytest.mark.parametrize("name", NAMES)
def test_a_name_steps_with_the_same_scheme_on_every_arm_kind(name, robot, scara_files):
    """planar3r (the planar adapter), scara (the file crossdyn writes of the DH arm) and a robot file (the UR5 of
    example-robot-data): the engine's own integrator, in crossdyn's words, is the table's, and its config says it."""
    if not _installed(name):
        pytest.skip(registry.entry(name).install_hint())
    want = registry.entry(name).integrator
    word = {"implicit": "mujoco-implicit", "implicitfast": "mujoco-implicitfast"}.get(want, want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        planar = registry.make_engine(name, get_preset("planar3r"), 1e-3)
    try:
        assert scheme_of(str(planar.integrator)) == word, planar.integrator
    finally:
        planar.close()
    for model in (scara_files.model_for(name), robot):
        assert not isinstance(model, str), model
        engine = make_file_engine(name, model, 1e-3)
        assert scheme_of(str(engine.integrator)) == word, (model.source, engine.integrator)
        assert engine.config()["integrator"] == engine.integrator


def test_robot_file_integrators_are_those_of_the_planar_names(robot):
    """What changed for robot files (CHANGELOG): mujoco steps with MuJoCo's Euler, dart with World.step, drake with
    Drake's error-controlled RK3 — as on a planar arm; the old computations are mujoco-rk4, dart-rk4, drake-rk4."""
    for name, plain, rk4 in (("mujoco", "Euler", "RK4"), ("dart", "World.step", "crossdyn's"),
                             ("drake", "error-controlled", "crossdyn's")):
        if not _installed(name):
            continue
        assert plain in make_file_engine(name, robot).integrator
        assert rk4 in make_file_engine(f"{name}-rk4", robot).integrator


def test_names_without_an_adapter_are_refused_naming_why(robot):
    assert file_engine_status("mjx-rk4", Format.URDF) in (None, "not installed: pip install 'crossdyn[mjx]'")
    assert "closed-form planar model" in file_engine_status("analytic", Format.URDF)
    with pytest.raises(EngineError, match="does not read robot files: crossdyn's closed-form planar model"):
        make_file_engine("analytic-euler", robot)
    with pytest.raises(EngineError, match="unknown engine 'nosuch'"):
        make_file_engine("nosuch", robot)
    for name in NEWLY_BOTH:                          # every name whose library is installed runs on both kinds
        e = registry.entry(name)
        assert not e.refusals and e.file is not None, name
        assert (name in registry.available_engines()) == e.available(), name


def _steps(engine, taus, q0):
    """The states after each step of ``taus`` (held one step each) from (q0, 0)."""
    engine.reset(q0, np.zeros_like(q0))
    out = []
    for tau in taus:
        engine.step(tau)
        out.append(engine.state()[0])
    return np.array(out)


def test_the_new_adapters_do_the_arithmetic_of_their_scheme(robot):
    """Beyond the label: on the UR5, pinocchio-euler and drake-euler take the same semi-implicit Euler steps and
    drake-rk4 the RK4 steps of pinocchio-rk4, on the same dynamics; on planar3r with joint damping, drake-rk4 those of
    analytic-rk4 and pinocchio-euler those of analytic-euler.  Equal to round-off over 200 steps (measured
    6e-17-7e-16 rad); the bound, 1e-9 rad, is the query tolerance of tests/test_engines.py, far below the difference
    of two schemes (measured 1.7e-3 and 1.8e-3 rad: the last assertions)."""
    if not (_installed("drake-rk4") and _installed("pinocchio")):
        pytest.skip("needs drake and pinocchio")
    rng = np.random.default_rng(7)
    taus, q0 = rng.uniform(-5, 5, (200, robot.n)), rng.uniform(-1, 1, robot.n)
    runs = {}
    for name in ("pinocchio-euler", "drake-euler", "pinocchio-rk4", "drake-rk4"):
        engine = make_file_engine(name, robot, 1e-3)
        runs[name] = _steps(engine, taus, q0)
        engine.close()
    spec = get_preset("planar3r").with_links(damping=0.3)
    taus3, q3 = rng.uniform(-0.3, 0.3, (200, 3)) * spec.torque_scale(), np.array([0.3, -0.2, 0.1])
    for name in ("analytic-rk4", "drake-rk4", "analytic-euler", "pinocchio-euler"):
        with registry.make_engine(name, spec, 1e-3) as engine:
            runs["planar " + name] = _steps(engine, taus3, q3)
    for a, b in (("pinocchio-euler", "drake-euler"), ("pinocchio-rk4", "drake-rk4"),
                 ("planar analytic-rk4", "planar drake-rk4"), ("planar analytic-euler", "planar pinocchio-euler")):
        assert np.max(np.abs(runs[a] - runs[b])) <= 1e-9, (a, b, np.max(np.abs(runs[a] - runs[b])))
    assert np.max(np.abs(runs["pinocchio-euler"] - runs["pinocchio-rk4"])) > 1e-6                # the schemes differ
    assert np.max(np.abs(runs["planar drake-rk4"] - runs["planar analytic-euler"])) > 1e-6


def test_the_cli_runs_any_name_on_every_arm_kind_it_reads(tmp_path, capsys, robot):
    """compare scara --engines pinocchio,mujoco-rk4 and compare ROBOT.urdf --engines mujoco-rk4,pinocchio-rk4 run
    (both exited 2 before: 'not an engine that reads robot files'); a name without an adapter exits 2 naming why."""
    if not (_installed("mujoco") and _installed("pinocchio")):
        pytest.skip("needs mujoco and pinocchio")
    rc = main(["compare", "scara", "--engines", "pinocchio,mujoco-rk4", "--duration", "0.2", "--no-plots",
               "--out", str(tmp_path / "scara")])
    out = capsys.readouterr().out
    assert rc == 0 and "mujoco-rk4 loads scara.xml" in out, out
    rc = main(["compare", str(robot.source), "--engines", "mujoco-rk4,pinocchio-rk4", "--duration", "0.2",
               "--no-plots", "--out", str(tmp_path / "ur5")])
    assert rc == 0 and "verdict: PASS" in capsys.readouterr().out
    assert main(["compare", "scara", "--engines", "analytic", "--out", str(tmp_path / "x")]) == 2
    assert "'analytic' does not read robot files: crossdyn's closed-form planar model" in capsys.readouterr().err


@pytest.mark.slow   # three compare runs, 3-15 s each (measured 14.5 s, 3.3 s, 12.2 s)
@pytest.mark.parametrize("arm, engines", [("scara", "pinocchio-euler,drake-rk5"), ("UR5", "drake-euler,drake-rk4"),
                                          ("planar3r", "drake-rk4,pinocchio-euler,drake-implicit")])
def test_the_names_new_on_an_arm_kind_pass_there(arm, engines, tmp_path, capsys, robot):
    """compare scara --engines pinocchio-euler,drake-rk5, compare UR5.urdf --engines drake-euler,drake-rk4 and
    compare planar3r --engines drake-rk4,… (each exited 2 before: 'does not read robot files' / 'does not run on a
    planar arm') run and PASS, each engine's config naming its integrator as the table does."""
    import json

    if not (_installed("drake-rk4") and _installed("pinocchio")):
        pytest.skip("needs drake and pinocchio")
    target = str(robot.source) if arm == "UR5" else arm
    rc = main(["compare", target, "--engines", engines, "--duration", "0.2", "--states", "100", "--no-plots",
               "--quiet", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0 and "verdict: PASS" in out, out
    doc = json.loads((tmp_path / "summary.json").read_text())["engines"]
    for name in engines.split(","):
        assert scheme_of(str(doc[name]["config"]["integrator"])) == registry.entry(name).integrator, doc[name]["config"]


def test_worker_processes_rebuild_the_table():
    """registered()/restore(): a forkserver worker gets every field of every entry back."""
    rows = registry.registered()
    assert all(registry.EngineEntry(*row) == registry.entry(row[0]) for row in rows)
    assert sys.modules["crossdyn.engines.registry"] is registry


@pytest.mark.slow
def test_a_users_equations_run_as_an_engine_on_a_dh_arm(tmp_path, capsys, robot):
    """compare scara --engines user:FILE: the equations crossdyn derive writes PASS beside Pinocchio; the buggy
    example (its G off by 9.81 N m) FAILs inverse dynamics while its M passes; on a robot file user:FILE is
    unsupported, naming why (no parameter names)."""
    if not _installed("pinocchio"):
        pytest.skip("needs pinocchio")
    good = tmp_path / "scara_ok.py"
    assert main(["derive", "scara", "--format", "python", "--out", str(good)]) == 0
    args = ["--duration", "0.2", "--states", "50", "--no-plots", "--quiet"]
    assert main(["compare", "scara", "--engines", f"user:{good},pinocchio", *args, "--out", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "verdict: PASS" in out and f"user:{good}" in out
    buggy = ROOT / "examples" / "check" / "my_scara_buggy.py"
    assert main(["compare", "scara", "--engines", f"user:{buggy}", *args, "--out", str(tmp_path / "b")]) == 1
    import json

    doc = json.loads((tmp_path / "b" / "summary.json").read_text())["engines"][f"user:{buggy}"]
    assert doc["inverse_dynamics"]["verdict"] == "FAIL" and doc["mass_matrix"]["verdict"] == "PASS"
    assert doc["config"]["integrator"].startswith("rk4 (crossdyn's, on your M, C and G)")
    assert main(["compare", str(robot.source), "--engines", f"user:{good},pinocchio", *args,
                 "--out", str(tmp_path / "c")]) == 0
    doc = json.loads((tmp_path / "c" / "summary.json").read_text())["engines"][f"user:{good}"]
    assert doc["status"] == "unsupported" and "names none" in doc["reason"]


@pytest.mark.parametrize("kind", ["file", "batch", pytest.param("planar", marks=pytest.mark.slow)])  # planar: 22 s
def test_every_adapter_module_imports_first_on_its_own(kind):
    """Each library folder's modules (planar.py, file.py, batch.py) import as the first crossdyn module of a process
    (what ``registry.entry(name).file_adapter()`` does in a worker): no import circle through the robot-file table
    (crossdyn.engines.files imports every file adapter).  One interpreter; crossdyn's modules dropped between
    imports, the libraries (numpy, …) kept."""
    import subprocess

    shipped = [registry.entry(row[0]) for row in registry._TABLE]      # not the engines a test registered here
    modules = sorted({"planar": {e.module for e in shipped if e.module},
                      "file": {e.file.rpartition(".")[0] for e in registry.file_entries().values()},
                      "batch": {path.split(":")[0] for path in registry.BATCH_RUNNERS.values()}}[kind])
    script = ("import importlib, sys\nbad = []\nfor name in sys.argv[1:]:\n"
              "    for m in [m for m in sys.modules if m == 'crossdyn' or m.startswith('crossdyn.')]:\n"
              "        del sys.modules[m]\n"
              "    try:\n        importlib.import_module(name)\n"
              "    except ImportError as e:\n        bad.append(f'{name}: {e}')\n"
              "    except AttributeError as e:\n        bad.append(f'{name}: {e}')\n"
              "print('\\n'.join(bad))\n")
    out = subprocess.run([sys.executable, "-c", script, *modules], capture_output=True, text=True, timeout=300,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    failed = [line for line in out.stdout.splitlines() if line and "No module named" not in line]
    assert not failed, failed                      # a missing engine library is fine; a circle is not
    assert len(modules) == {"planar": 10, "file": 9, "batch": 6}[kind]
