"""The wheel, installed with its base dependencies alone, outside the repository (issue 24's first "Must hold").

Offline: the wheel is built with ``pip wheel --no-build-isolation --no-index`` (setuptools >= 77 from [dev]); the
fresh venv (``--without-pip``, no system site-packages) sees, through one ``.pth`` file, a folder holding links to
exactly the distributions the wheel's base ``Requires-Dist`` needs (their dependency closure, taken from this
interpreter's installed copies).  pip then installs the wheel *with* dependency resolution and ``--no-index``: it
succeeds only if that folder satisfies the base requirements.  No engine, pandas, pyarrow, JAX, Dask or cvxpy is in
it, so a missing-extra path is a real ImportError, not a mock.
"""
from __future__ import annotations

import importlib.metadata as md
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("crossdyn", "examples", "pyproject.toml", "setup.py", "README.md", "LICENSE")
OPTIONAL = ("mujoco", "pybullet", "pin", "dartpy", "drake", "mujoco-mjx", "jax", "pandas", "pyarrow", "dask",
            "distributed", "duckdb", "cvxpy")
"""Distributions that must not be in the base install."""


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _setuptools_ok() -> bool:
    try:
        major = int(md.version("setuptools").split(".")[0])
        md.version("wheel")
    except md.PackageNotFoundError:
        return False
    return major >= 77


def _run(cmd: list, cwd: Path, env: dict, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _base_requirements(wheel: Path) -> list[str]:
    """The wheel's Requires-Dist lines without an extra marker."""
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    reqs = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]
    return [r for r in reqs if "extra ==" not in r]


def _closure(requirements: list[str]) -> dict:
    """name → installed Distribution, for the requirements and (recursively) theirs (markers evaluated, no extras)."""
    from packaging.requirements import Requirement

    seen: dict = {}
    todo = list(requirements)
    while todo:
        req = Requirement(todo.pop())
        if req.marker and not req.marker.evaluate({"extra": ""}):
            continue
        if _norm(req.name) in seen:
            continue
        dist = md.distribution(req.name)
        assert dist.version in req.specifier or not req.specifier, f"{req}: installed {dist.version}"
        seen[_norm(req.name)] = dist
        todo += dist.requires or []
    return seen


def _link_site(dists: dict, site: Path) -> None:
    """Link each distribution's top-level files and folders (its code and its .dist-info) into ``site``."""
    site.mkdir()
    for dist in dists.values():
        root = Path(dist.locate_file(""))
        tops = {f.parts[0] for f in dist.files or [] if not f.parts[0].startswith("..")
                and f.parts[0] != "__pycache__" and not f.parts[0].endswith(".data")}
        for top in tops:
            if (root / top).exists() and not (site / top).exists():
                (site / top).symlink_to(root / top)


@pytest.fixture(scope="module")
def base_venv(tmp_path_factory):
    if not _setuptools_ok():
        pytest.skip("building the wheel offline needs setuptools >= 77 and wheel: pip install 'crossdyn[dev]'")
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SOURCES:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(ROOT / name, src / name, **(
            {"ignore": ignore} if (ROOT / name).is_dir() else {}))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_NO_INPUT"] = "1"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                  "--no-cache-dir", "-w", tmp / "dist", src], tmp, dict(os.environ))  # this env's setuptools
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next((tmp / "dist").glob("crossdyn-*.whl"))
    base = _base_requirements(wheel)
    dists = _closure(base)
    assert not set(dists) & set(OPTIONAL), f"base install pulls optional packages: {sorted(set(dists) & set(OPTIONAL))}"
    _link_site(dists, tmp / "base-site")
    venv = _venv_with(wheel, tmp / "base-site", tmp / "venv", env)
    return {"tmp": tmp, "venv": venv, "py": venv / "bin" / "python", "env": env, "base": base, "dists": dists}


def _venv_with(wheel: Path, site: Path, venv: Path, env: dict) -> Path:
    """A fresh venv (no pip, no system site-packages) that sees only ``site`` (a .pth), with ``wheel`` installed
    by pip resolving offline: the install succeeds only if ``site`` holds every requirement."""
    made = _run([sys.executable, "-m", "venv", "--without-pip", venv], venv.parent, env)
    assert made.returncode == 0, made.stderr
    py = venv / "bin" / "python"
    purelib = _run([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], venv.parent, env).stdout.strip()
    Path(purelib, f"crossdyn_test_{site.name}.pth").write_text(str(site) + "\n")
    installed = _run([sys.executable, "-m", "pip", "--python", py, "install", "--no-index", "--no-cache-dir",
                      "--disable-pip-version-check", wheel], venv.parent, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return venv


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_base_requirements_are_the_light_ones(base_venv):
    names = {_norm(re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0]) for r in base_venv["base"]}
    assert names == {"numpy", "scipy", "sympy", "tomli-w", "matplotlib"}, names


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_version_examples_and_check_in_the_base_install(base_venv):
    tmp, env, exe = base_venv["tmp"], base_venv["env"], base_venv["venv"] / "bin" / "crossdyn"
    version = _run([exe, "--version"], tmp, env)
    assert version.returncode == 0 and version.stdout.startswith("crossdyn "), version.stdout + version.stderr
    where = _run([base_venv["py"], "-c", "import crossdyn; print(crossdyn.__file__)"], tmp, env)
    assert str(base_venv["venv"]) in where.stdout, where.stdout  # the installed copy, not the checkout
    copied = _run([exe, "examples", tmp / "ex"], tmp, env)
    assert copied.returncode == 0, copied.stdout + copied.stderr
    user_file = tmp / "ex" / "check" / "my_2r.py"
    assert user_file.is_file()
    check = _run([exe, "check", "planar2r", user_file], tmp, env)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "Traceback" not in check.stderr
    # a file that imports a helper module of its own folder (issue 36): sandboxed, the folder's read-only copy
    own = tmp / "own"
    own.mkdir()
    head, g = user_file.read_text().split("\ndef G(", 1)
    (own / "my_params.py").write_text("from math import cos\n\n\ndef gravity_torque(" + g)
    (own / "my_2r.py").write_text(head + "\nfrom my_params import *\n\n\ndef G(q, p):\n"
                                  "    return gravity_torque(q, p)\n")
    check = _run([exe, "check", "planar2r", own / "my_2r.py", "--out", tmp / "own-out"], tmp, env)
    assert check.returncode == 0 and "it sees your file's folder" in check.stdout, check.stdout + check.stderr


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_compare_without_engines_exits_2_naming_the_extras(base_venv):
    tmp, env, exe = base_venv["tmp"], base_venv["env"], base_venv["venv"] / "bin" / "crossdyn"
    cmp = _run([exe, "compare", "planar2r", "--out", tmp / "cmp"], tmp, env)
    assert cmp.returncode == 2, cmp.stdout + cmp.stderr
    assert "pip install 'crossdyn[mujoco]'" in cmp.stderr and "crossdyn[all]" in cmp.stderr, cmp.stderr
    assert "Traceback" not in cmp.stderr and not (tmp / "cmp").exists()
    one = _run([exe, "compare", "planar2r", "--engines", "drake", "--out", tmp / "cmp"], tmp, env)
    assert one.returncode == 2 and "pip install 'crossdyn[drake]'" in one.stderr, one.stdout + one.stderr
    for cmd, extra in ((["sweep", "x.toml", "--out", tmp / "sw"], "sweep"),
                       (["identify", "planar2r", "--estimator", "consistent", "--out", tmp / "id"], "identify"),
                       (["compare", "planar2r", "--batch", "4", "--out", tmp / "b"], "jax")):
        r = _run([exe, *cmd], tmp, env)
        assert r.returncode == 2 and f"pip install 'crossdyn[{extra}]'" in r.stderr, (cmd, r.stdout + r.stderr)
        assert "Traceback" not in r.stderr
    info = _run([exe, "info", "--engines"], tmp, env)
    assert info.returncode == 0 and "pip install 'crossdyn[dart]'" in info.stdout, info.stdout + info.stderr


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_pytest_plugin_imports_with_the_base_install(base_venv):
    """The auto-loaded plugin: pytest (and only its own closure) added beside the base packages."""
    tmp, env, py = base_venv["tmp"], base_venv["env"], base_venv["py"]
    extra = {k: v for k, v in _closure(["pytest"]).items() if k not in base_venv["dists"]}
    assert not set(extra) & set(OPTIONAL)
    _link_site(extra, tmp / "pytest-site")
    purelib = _run([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp, env).stdout.strip()
    Path(purelib, "crossdyn_test_pytest.pth").write_text(str(tmp / "pytest-site") + "\n")
    (tmp / "plug").mkdir()
    (tmp / "plug" / "test_one.py").write_text("def test_one():\n    assert True\n")
    r = _run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_one.py"], tmp / "plug", env)
    assert r.returncode == 0, r.stdout + r.stderr
    plugins = _run([py, "-c", "import crossdyn.pytest_plugin, sys; "
                               "print(sorted(m for m in ('mujoco', 'pybullet', 'pandas', 'jax') if m in sys.modules))"],
                   tmp, env)
    assert plugins.returncode == 0 and plugins.stdout.strip() == "[]", plugins.stdout + plugins.stderr


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_every_extra_and_alias_resolves_offline(base_venv):
    """pip resolves [all] and today's names ([engines], [jax], [sweep], [identify], [latex], [bench]) against this
    environment's installed packages (linked into a fresh venv, crossdyn itself left out), without the network; the
    same request against the base-only venv fails naming an engine, so the dry run does check the dependencies."""
    import sysconfig

    tmp, env = base_venv["tmp"], base_venv["env"]
    wheel_dir = tmp / "dist"
    site = Path(sysconfig.get_path("purelib"))
    full = tmp / "full-site"
    full.mkdir()
    for item in site.iterdir():
        if not item.name.startswith(("crossdyn", "__editable__", "pip")) and item.suffix != ".pth":
            (full / item.name).symlink_to(item)
    venv = tmp / "venv-full"
    assert _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp, env).returncode == 0
    purelib = _run([venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                   tmp, env).stdout.strip()
    Path(purelib, "full.pth").write_text(str(full) + "\n")
    wanted = "crossdyn[all,engines,jax,sweep,identify,latex,bench,mujoco,pybullet,pinocchio,dart,drake,mjx,parquet]"

    def dry_run(python: Path) -> subprocess.CompletedProcess:
        return _run([sys.executable, "-m", "pip", "--python", python, "install", "--dry-run", "--no-index",
                     "--no-cache-dir", "--disable-pip-version-check", "--find-links", wheel_dir, wanted], tmp, env)

    ok = dry_run(venv / "bin" / "python")
    assert ok.returncode == 0 and "Would install crossdyn-" in ok.stdout, ok.stdout + ok.stderr
    bare = dry_run(base_venv["py"])
    assert bare.returncode != 0 and "No matching distribution" in bare.stderr, bare.stdout + bare.stderr


def _extra_requirements(wheel: Path, extra: str) -> list[str]:
    """The wheel's Requires-Dist lines of ``extra``, without their marker."""
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    reqs = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]
    return [r.split(";", 1)[0].strip() for r in reqs if re.search(rf"extra\s*==\s*['\"]{extra}['\"]", r)]


@pytest.mark.slow  # fast tier's 7-minute budget; covered in the slow tier, which .ci/run runs
def test_the_wheel_with_its_mujoco_extra_compares(base_venv):
    """The same wheel in a fresh venv that sees the base packages plus the [mujoco] extra's (and nothing else):
    ``compare`` with MuJoCo runs and passes (issue 24: ``--version``, ``check`` and, with [mujoco], ``compare``)."""
    tmp, env = base_venv["tmp"], base_venv["env"]
    wheel = next((tmp / "dist").glob("crossdyn-*.whl"))
    extra = _extra_requirements(wheel, "mujoco")
    assert any(_norm(r).startswith("mujoco") for r in extra), extra
    dists = _closure(base_venv["base"] + extra)
    assert "pybullet" not in dists and "pin" not in dists and "jax" not in dists
    _link_site(dists, tmp / "mujoco-site")
    venv = _venv_with(wheel, tmp / "mujoco-site", tmp / "venv-mujoco", env)
    out = tmp / "cmp-mujoco"
    cmp = _run([venv / "bin" / "crossdyn", "compare", "planar2r", "--engines", "mujoco-rk4", "--duration", "0.5",
                "--states", "20", "--no-plots", "--out", out], tmp, env, timeout=300)
    assert cmp.returncode == 0, cmp.stdout + cmp.stderr
    assert "verdict: PASS (" in cmp.stdout and (out / "summary.json").exists()


@pytest.mark.slow  # the fast tier's 7-minute budget (measured this session); .ci/run runs the slow tier
def test_an_install_without_its_examples_says_what_to_do(base_venv):
    """A wheel whose package data lost ``crossdyn/examples`` (a repackaging that dropped it): exit 2 with the
    advice, no traceback.  Run on a copy of the installed package, so the other tests keep theirs."""
    tmp, py, env = base_venv["tmp"], base_venv["py"], base_venv["env"]
    where = _run([py, "-c", "import crossdyn, os; print(os.path.dirname(crossdyn.__file__))"], tmp, env).stdout.strip()
    stripped = tmp / "stripped"
    shutil.copytree(where, stripped / "crossdyn", ignore=shutil.ignore_patterns("examples", "__pycache__"))
    run = _run([py, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from crossdyn.cli import main; "
                "sys.exit(main(['examples', sys.argv[2]]))", stripped, tmp / "ex-none"], tmp, env)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "has no example files" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp / "ex-none").exists()
