"""``compare --batch --engines NAME@key=value``: the batched engines' knobs (each neutralised default switched back
by name, as the single-arm ``mujoco@eulerdamp=true``).

Fast: the parsing and its exit-2 messages (no library imported, no engine run), the reference page's table against
the declaration.  Slow: the declaration against the single-arm adapters' options dataclasses, and for each batched
engine with a dynamics-changing default, switching it back moves the batch far beyond its tolerance (figures
stated in each test) against crossdyn's float64 JAX model with the same integrator (an independent path: the
analytic equations)."""
from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from crossdyn.batch.engines import ENGINES, KNOBS, BatchProblem, split_batch_engine
from crossdyn.errors import EngineError

DOCS = Path(__file__).resolve().parent.parent / "docs" / "reference" / "engines.md"


# ------------------------------------------------------------------------------------------------ parsing (fast)
def test_knobs_parse_as_the_single_arm_registry_parses_them():
    assert split_batch_engine("newton@angular_damping=0.05@newton_gravity=true") == (
        "newton", {"angular_damping": 0.05, "newton_gravity": True})
    assert split_batch_engine("mujoco-warp-rk4@eulerdamp=false@device=cpu") == (
        "mujoco-warp-rk4", {"eulerdamp": False, "device": "cpu"})
    assert split_batch_engine("mjx@precision=default") == ("mjx", {"precision": "default"})
    assert split_batch_engine("newton@angular_damping=1") == ("newton", {"angular_damping": 1})
    assert split_batch_engine("jax-rk4") == ("jax-rk4", {})


@pytest.mark.parametrize("name, message", [
    ("newton@nope=1", "engine 'newton': unknown option(s) nope=1; it takes: angular_damping, newton_gravity, "
                      "validate_inertia, device"),
    ("mujoco-warp@integrator=RK4", "engine 'mujoco-warp': unknown option(s) integrator=RK4; it takes: eulerdamp, "
                                   "device"),
    ("mujoco@eulerdamp=maybe", "engine 'mujoco': option eulerdamp=maybe: must be true or false; it takes: "
                               "eulerdamp, autoreset"),
    ("mjx-rk4@eulerdamp=1", "engine 'mjx-rk4': option eulerdamp=1: must be true or false; it takes: eulerdamp, "
                            "precision"),
    ("newton@angular_damping=abc", "engine 'newton': option angular_damping=abc: must be a finite number >= 0"),
    ("newton@angular_damping=-0.1", "engine 'newton': option angular_damping=-0.1: must be a finite number >= 0"),
    ("newton@angular_damping=nan", "option angular_damping=nan: must be a finite number"),
    ("newton@angular_damping=true", "option angular_damping=true: must be a finite number"),
    ("mjx@precision=tf32", "engine 'mjx': option precision=tf32: must be one of highest, high, default"),
    ("newton@device=gpu", "engine 'newton': option device=gpu: must be one of auto, cpu, cuda"),
    ("jax-rk4@dtype=float32", "engine 'jax-rk4': takes no options (crossdyn's own model: no engine default to "
                              "switch back); got dtype=float32"),
    ("numpy-euler@fast=false", "engine 'numpy-euler': takes no options"),
    ("pybullet@link_damping=0.04", "unknown batched engine 'pybullet'; the batched engines are: jax-rk4"),
    ("newton@gravity", "engine 'newton@gravity': option 'gravity' must look like key=value"),
])
def test_a_bad_knob_names_the_engine_the_key_and_the_value(name, message):
    with pytest.raises(EngineError) as e:
        split_batch_engine(name)
    assert message in str(e.value), str(e.value)


@pytest.mark.parametrize("engines, message", [
    ("mujoco@eulerdamp=maybe", "--engines mujoco@eulerdamp=maybe: engine 'mujoco': option eulerdamp=maybe: must be "
                               "true or false; it takes: eulerdamp, autoreset"),
    ("jax-euler,newton@angular_damping=x", "--engines newton@angular_damping=x: engine 'newton': option "
                                           "angular_damping=x: must be a finite number >= 0; it takes: "
                                           "angular_damping, newton_gravity, validate_inertia, device"),
    ("jax-rk4@precision=high", "--engines jax-rk4@precision=high: engine 'jax-rk4': takes no options"),
    ("mjx@bad=1", "--engines mjx@bad=1: engine 'mjx': unknown option(s) bad=1; it takes: eulerdamp, precision"),
])
def test_the_cli_exits_2_on_a_bad_knob_before_any_engine_runs(engines, message, tmp_path, capsys):
    pytest.importorskip("jax")
    from crossdyn.cli import main

    out = tmp_path / "o"
    assert main(["compare", "planar2r", "--batch", "4", "--engines", engines, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_the_reference_page_lists_exactly_each_batched_engine_s_knobs():
    """docs/reference/engines.md's batch table: one row per (library, knob) of :data:`KNOBS`, with the engine's own
    default as declared."""
    lines = DOCS.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| Batched engines"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip().strip("`") for c in line.strip().strip("|").split("|")])
    listed = {(r[0].rstrip("*"), r[1]) for r in rows}
    declared = {(lib, k.name) for lib, (_, knobs) in KNOBS.items() for k in knobs}
    assert listed == declared
    families = {r[0].rstrip("*") for r in rows}
    assert all(any(name == f or name.startswith(f + "-") for f in families) == (e.library in KNOBS)
               for name, e in ENGINES.items())


# ----------------------------------------------------------------------------------- the engines (slow)
def _damped_problem(N: int = 4, K: int = 100) -> BatchProblem:
    """planar3r with joint damping b = 0.5 N m s/rad (where Euler's implicit damping shows), N arms (seed 5), a
    constant torque for K steps of 1 ms, sampled every 10."""
    from crossdyn.batch.sampling import random_params, random_starts
    from crossdyn.models import get_preset

    spec = get_preset("planar3r").with_links(damping=0.5)
    tau = np.tile([0.5, -0.2, 0.1], (K, 1))
    return BatchProblem.of(spec, random_params(spec, N, seed=5), random_starts(spec, N, seed=5), tau, 1e-3, 10)


def _arms(preset: str, N: int) -> tuple:
    """N random arms of ``preset`` (seed 5) and their starts."""
    from crossdyn.batch.sampling import random_params, random_starts
    from crossdyn.models import get_preset

    spec = get_preset(preset)
    return random_params(spec, N, seed=5), random_starts(spec, N, seed=5)


@pytest.fixture(scope="module")
def damped():
    """The damped problem and its reference: jax-euler in float64."""
    pytest.importorskip("jax")
    from crossdyn.batch.engines import run_batch_engine

    pb = _damped_problem()
    return pb, run_batch_engine("jax-euler", pb).q


def _gap(run, ref) -> float:
    assert run.status.value == "ok", run.message
    return float(np.max(np.abs(run.q - ref)))


@pytest.mark.slow
def test_the_declared_knobs_are_fields_of_the_single_arm_options_with_crossdyn_s_setting():
    """Every batch knob is a field of its adapter's options dataclass; crossdyn's setting (the field's default)
    differs from the engine's own (a neutralised default), except ``device`` (no dynamics) and MJX's
    ``precision`` (highest, JAX's is default)."""
    import importlib

    for lib, (where, knobs) in KNOBS.items():
        module, cls = where.split(":")
        try:
            options = getattr(importlib.import_module(module), cls)
        except ImportError:
            continue  # the library is not installed here
        defaults = {f.name: f.default for f in fields(options)}
        for k in knobs:
            assert k.name in defaults, f"{lib}: {k.name} is not a field of {where}"
            kind = {"bool": bool, "number": float, "choice": str}[k.kind]
            assert isinstance(defaults[k.name], kind), (lib, k.name)
            if k.name != "device":
                assert defaults[k.name] != k.engine_default, (lib, k.name)


@pytest.mark.slow
def test_mujoco_eulerdamp_switched_back_fails_the_batch_by_name(tmp_path):
    """``compare ARM --batch 4 --engines mujoco,mujoco@eulerdamp=true`` on planar3r with b = 0.5 (0.1 s): the plain
    engine PASSes to float64 rounding, the knob's FAILs (measured 4.4e-4 rad > 1e-8 rad), judged under its full
    name against jax-euler, its config listing the knob switched back and the one left neutralised."""
    pytest.importorskip("mujoco")
    from crossdyn.cli import main

    arm = tmp_path / "planar3r-damped.toml"
    arm.write_text('name = "planar3r-damped"\ngravity = [0.0, -9.81, 0.0]\n' + "".join(
        f"[[links]]\nlength = {L}\nmass = {m}\ncom = {L / 2}\ninertia = {J}\ndamping = 0.5\n"
        for L, m, J in ((1.0, 1.0, 0.0833), (0.8, 0.8, 0.0427), (0.6, 0.5, 0.015))))
    out = tmp_path / "o"
    code = main(["compare", str(arm), "--batch", "4", "--duration", "0.1", "--engines", "mujoco,mujoco@eulerdamp=true",
                 "--quiet", "--out", str(out)])
    s = json.loads((out / "batch_summary.json").read_text())
    assert code == 1 and s["verdict"] == "FAIL" and list(s["engines"]) == ["jax-euler", "mujoco", "mujoco@eulerdamp=true"]
    plain, knob = s["engines"]["mujoco"], s["engines"]["mujoco@eulerdamp=true"]
    assert plain["verdict"] == "PASS" and plain["discrepancy_rad"]["max"] < 1e-12 and plain["knobs"] == {}
    assert knob["verdict"] == "FAIL" and knob["reference"] == "jax-euler" and knob["batched_engine"] == "mujoco"
    assert knob["discrepancy_rad"]["max"] > 1e3 * knob["tolerance_rad"] and knob["knobs"] == {"eulerdamp": True}
    cfg = knob["config"]["knobs"]
    assert cfg["eulerdamp"] == {"used": True, "crossdyn": False, "engine_default": True, "switched_back": True,
                                "what": cfg["eulerdamp"]["what"]}
    assert cfg["autoreset"]["used"] is False and cfg["autoreset"]["switched_back"] is False
    assert plain["config"]["knobs"]["eulerdamp"]["used"] is False
    assert any(re.match(r"mujoco@eulerdamp=true: discrepancy .* rad > 1e-08 rad", f) for f in s["failures"])


@pytest.mark.slow
def test_mjx_eulerdamp_switched_back_by_name_departs_beyond_float32(damped):
    """``mjx@eulerdamp=true``: MJX's implicit damping, measured 2.7e-4 rad from jax-euler at 0.1 s against the
    float32 term 3.07e-5 rad; neutralised (plain ``mjx``) 5.4e-7 rad."""
    pytest.importorskip("mujoco.mjx")
    from crossdyn.batch.engines import run_batch_engine
    from crossdyn.engines.precision import trajectory_roundoff

    pb, ref = damped
    tol = trajectory_roundoff("float32", 0.1)
    plain, knob = run_batch_engine("mjx", pb), run_batch_engine("mjx@eulerdamp=true", pb)
    assert _gap(plain, ref) < tol < _gap(knob, ref) / 3
    assert knob.name == "mjx@eulerdamp=true" and knob.config["eulerdamp"] is True
    assert knob.config["knobs"]["eulerdamp"]["switched_back"] and not plain.config["knobs"]["eulerdamp"]["used"]
    assert knob.config["knobs"]["precision"]["used"] == "highest"


@pytest.mark.slow
def test_mujoco_warp_eulerdamp_switched_back_by_name_departs_beyond_float32(damped):
    """``mujoco-warp@eulerdamp=true``: measured 2.7e-4 rad from jax-euler at 0.1 s against 3.07e-5 rad
    (plain: 5.4e-7 rad)."""
    pytest.importorskip("mujoco_warp", reason="not installed: pip install 'crossdyn[warp]'")
    from crossdyn.batch.engines import run_batch_engine
    from crossdyn.engines.precision import trajectory_roundoff

    pb, ref = damped
    tol = trajectory_roundoff("float32", 0.1)
    plain, knob = run_batch_engine("mujoco-warp", pb), run_batch_engine("mujoco-warp@eulerdamp=true@device=cpu", pb)
    assert _gap(plain, ref) < tol < _gap(knob, ref) / 3
    assert knob.config["eulerdamp"] is True and knob.config["knobs"]["eulerdamp"]["switched_back"]
    assert knob.config["device"] == "cpu" and plain.config["eulerdamp"] is False


@pytest.mark.slow
def test_newton_defaults_switched_back_by_name(damped):
    """``newton@newton_gravity=true``: Newton's −9.81 along +z, the joint axis: no gravity torque, far beyond
    float32 (measured 0.020 rad at 0.1 s; plain 5.4e-7 rad); ``newton@angular_damping=0.05``: bit-identical in Newton 1.8 (not
    applied to articulated joints; a release that applies it fails here); ``newton@validate_inertia=true``:
    ``finalize`` corrects the 12 point-mass bodies of 6 ``planar2r-pointmass`` arms; each in the config."""
    pytest.importorskip("newton", reason="not installed: pip install 'crossdyn[newton]'")
    from crossdyn.batch.engines import run_batch_engine
    from crossdyn.engines.precision import trajectory_roundoff
    from crossdyn.models import get_preset

    pb, ref = damped
    tol = trajectory_roundoff("float32", 0.1)
    plain = run_batch_engine("newton", pb)
    gravity = run_batch_engine("newton@newton_gravity=true", pb)
    damping = run_batch_engine("newton@angular_damping=0.05", pb)
    assert _gap(plain, ref) < tol < _gap(gravity, ref) / 100
    assert gravity.config["gravity"] == pytest.approx([0, 0, -9.81])
    assert gravity.config["knobs"]["newton_gravity"]["switched_back"]
    assert damping.config["angular_damping"] == pytest.approx(0.05)
    assert damping.config["knobs"]["angular_damping"]["switched_back"]
    assert np.array_equal(damping.q, plain.q)
    point = BatchProblem.of(get_preset("planar2r-pointmass"), *_arms("planar2r-pointmass", 6), np.zeros((10, 2)), 1e-3, 10)
    assert run_batch_engine("newton", point).config["finalize_warnings"] == []
    validated = run_batch_engine("newton@validate_inertia=true", point).config
    assert any("corrected 12 bodies" in w for w in validated["finalize_warnings"]), validated["finalize_warnings"]
    assert validated["knobs"]["validate_inertia"]["switched_back"]


@pytest.mark.slow
def test_mujoco_autoreset_switched_back_by_name_hides_a_blow_up():
    """``mujoco@autoreset=true``: 3 planar2r arms under τ = (1e6, −1e6) N m for 20 steps.  With crossdyn's setting
    MuJoCo's blow-up stays visible (non-finite q, the batch's FAIL for diverged arms); MuJoCo's own default resets
    the arms silently and returns finite angles (measured: up to 306 rad at the end), a result that looks like one."""
    pytest.importorskip("mujoco")
    from crossdyn.batch.engines import run_batch_engine
    from crossdyn.batch.sampling import random_params, random_starts
    from crossdyn.models import get_preset

    spec = get_preset("planar2r")
    pb = BatchProblem.of(spec, random_params(spec, 3, seed=5), random_starts(spec, 3, seed=5),
                         np.tile([1e6, -1e6], (20, 1)), 1e-3, 1)
    plain, reset = run_batch_engine("mujoco", pb), run_batch_engine("mujoco@autoreset=true", pb)
    assert plain.status.value == reset.status.value == "ok"
    assert not np.all(np.isfinite(plain.q)) and np.all(np.isfinite(reset.q))
    assert reset.config["autoreset"] is True and reset.config["knobs"]["autoreset"]["switched_back"]
