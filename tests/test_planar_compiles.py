"""Every planar preset compiles to the same :class:`~crossdyn.robots.model.RobotModel` as a robot file
(:func:`crossdyn.models.compile.compile_arm`), checked on three independent paths:

* **The files read back.**  ``read_urdf(to_urdf(spec))`` equals the compiled model: names (base, bodies, joints,
  merged ``tip``), parents, joint types, origins, axes, anchors, limits, effort, velocity, damping, friction, gear,
  masses, centres of mass and inertias, to 1e-12 (the URDF writes ``repr`` floats, so this is rounding at most).
  What URDF cannot say differs as the compile module documents: armature (the file: 0; the model: the spec's) and
  gravity (the reader's (0, 0, −9.81); the model: the spec's).  ``read_mjcf(to_mjcf(spec))`` carries both: it
  equals the model's rigid bodies, frames, damping, friction, armature and gravity to 1e-12 (its tip is a site,
  not a body: nothing merged).
* **The closed form.**  crossdyn's spatial algorithms (:mod:`crossdyn.spatial`: CRBA, RNEA, ABA) on the compiled
  model against the planar analytic model that ``AnalyticEngine`` runs (:mod:`crossdyn.analytic.dynamics`,
  ``method="auto"``: the hand-written closed form for 2R/3R, the SymPy Euler–Lagrange derivation for planar1r and
  planar5r, the latter in the slow tier) at 20 random states per preset, q ∈ (−π, π), q̇ ∈ (−2, 2), q̈ ∈ (−5, 5),
  τ ∈ (−5, 5): M(q), G(q), C(q, q̇)q̇, inverse and forward dynamics, to 1e-10 relative to the largest |entry| of that
  quantity over the states
  (measured: ≤ 1.1e-15 on every preset but planar2r-pointmass, 1.0e-14 there).  Like with like: armature is in both
  M's (the analytic model's ``Ia``, the spatial ``armature=True``); joint damping and Coulomb friction are not — the
  spatial algorithms do not apply ``Joint.damping``/``friction``, the analytic model adds F(q̇) = b q̇ + f_c sign q̇
  to τ — so the analytic torque is compared with F(q̇) taken off (ID) or the spatial one is given τ − F(q̇) (FD).
  The point-mass preset's J = 0 is the inertia floor (≤ 1e-14 kg m²) in the model, as in every generated file:
  the 1e-14 measured there, far below the tolerance.
* **The writers are untouched**: the compiled model does not feed ``to_urdf``/``to_mjcf``, so their text is as
  before (checked once by hand against the main checkout; no golden file here).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from crossdyn import analytic, spatial
from crossdyn.models import get_preset, preset_names, to_mjcf, to_urdf
from crossdyn.models.compile import compile_arm
from crossdyn.models.spec import ArmSpec
from crossdyn.robots.mjcf import read_mjcf
from crossdyn.robots.urdf import read_urdf

TOL_MODEL = 1e-12
TOL_DYNAMICS = 1e-10
N_STATES = 20
PRESETS = [n for n in preset_names() if "<" not in n] + ["planar1r", "planar5r"]  # planar<N>r: two of them
SLOW = {"planar5r": "SymPy derives the 5R model (~6 s)"}


def _read(tmp_path, text: str, suffix: str, reader):
    path = tmp_path / f"arm{suffix}"
    path.write_text(text, encoding="utf-8")
    return reader(path)


def _close(a, b, tol=TOL_MODEL) -> bool:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return bool(np.abs(a - b).max(initial=0.0) <= tol * max(1.0, np.abs(b).max(initial=0.0)))


def _same_bodies(read, model) -> None:
    assert read.n == model.n and read.parents == model.parents and read.base == model.base
    assert read.body_names == model.body_names and read.joint_names == model.joint_names
    for a, b in zip(read.bodies, model.bodies, strict=True):
        assert _close(a.inertial.mass, b.inertial.mass) and _close(a.inertial.com, b.inertial.com), a.name
        assert _close(a.inertial.inertia, b.inertial.inertia), a.name
    for a, b in zip(read.joints, model.joints, strict=True):
        for key in ("origin", "axis", "anchor", "damping", "friction", "gear"):
            assert _close(getattr(a, key), getattr(b, key)), (a.name, key)


@pytest.mark.parametrize("name", PRESETS)
def test_compiled_model_is_the_urdf_read_back(tmp_path, name):
    spec = get_preset(name)
    model = compile_arm(spec)
    read = _read(tmp_path, to_urdf(spec), ".urdf", read_urdf)
    _same_bodies(read, model)
    assert read.name == model.name == spec.name
    assert [b.merged for b in read.bodies] == [b.merged for b in model.bodies]  # the contact arms' ``tip``
    for a, b, link in zip(read.joints, model.joints, spec.links, strict=True):
        assert a.type is b.type and (a.lower, a.upper, a.effort, a.velocity) == (b.lower, b.upper, b.effort, b.velocity)
        assert a.armature == 0.0 and b.armature == link.armature  # URDF has no armature; the model has the spec's
    assert read.gravity.tolist() == [0.0, 0.0, -9.81] and model.gravity.tolist() == list(spec.gravity)


@pytest.mark.parametrize("name", PRESETS)
def test_compiled_model_is_the_mjcf_read_back(tmp_path, name):
    spec = get_preset(name)
    model = compile_arm(spec)
    read = _read(tmp_path, to_mjcf(spec), ".xml", read_mjcf)
    _same_bodies(read, model)
    assert [j.armature for j in read.joints] == [j.armature for j in model.joints]
    assert _close(read.gravity, model.gravity)


def test_native_limits_are_the_spec_limits_as_the_urdf_writes_them(tmp_path):
    spec = get_preset("planar2r-limits")
    assert spec.has_limit_law
    model = compile_arm(spec, native_limits=True)
    read = _read(tmp_path, to_urdf(spec, native_limits=True), ".urdf", read_urdf)
    assert [(j.lower, j.upper) for j in read.joints] == [(j.lower, j.upper) for j in model.joints]
    assert [(j.lower, j.upper) for j in model.joints] == [
        link.limits if link.limit_stiffness > 0 else (-1e6, 1e6) for link in spec.links]


def _states(n: int, seed: int):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-math.pi, math.pi, (N_STATES, n)), rng.uniform(-2, 2, (N_STATES, n)),
            rng.uniform(-5, 5, (N_STATES, n)), rng.uniform(-5, 5, (N_STATES, n)))


def agreement(spec: ArmSpec, seed: int = 0) -> dict[str, float]:
    """max |spatial − analytic| / max |analytic| per quantity over :data:`N_STATES` random states (the absolute
    difference where the analytic quantity is 0 throughout: a 1R arm's C q̇)."""
    model = compile_arm(spec)
    Q, QD, QDD, TAU = _states(spec.n, seed)
    F = analytic.friction(spec, QD)
    pairs = {
        "M": (spatial.crba(model, Q, armature=True), analytic.mass_matrix(spec, Q)),
        "G": (spatial.gravity_torque(model, Q), analytic.gravity(spec, Q)),
        "Cqd": (spatial.coriolis(model, Q, QD), analytic.coriolis(spec, Q, QD)),
        "ID": (spatial.rnea(model, Q, QD, QDD, armature=True), analytic.inverse_dynamics(spec, Q, QD, QDD) - F),
        "FD": (spatial.aba(model, Q, QD, TAU - F, armature=True), analytic.forward_dynamics(spec, Q, QD, TAU)),
    }
    return {k: float(np.abs(a - b).max() / (np.abs(b).max() or 1.0)) for k, (a, b) in pairs.items()}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in PRESETS])
def test_spatial_dynamics_of_the_compiled_model_match_the_closed_form(name):
    spec = get_preset(name)
    worst = agreement(spec, seed=sum(map(ord, name)))
    assert max(worst.values()) <= TOL_DYNAMICS, worst


def test_gravity_off_the_default_and_armature_on_a_new_arm():
    """Not a preset: tilted in-plane gravity, armature, damping and friction together (each side's own handling)."""
    base = get_preset("planar3r-general")
    spec = base.with_links(armature=0.02, damping=0.1, friction=0.3)
    spec = ArmSpec(spec.links, gravity=(3.0, -8.0, 0.0), name="tilted")
    assert max(agreement(spec, seed=7).values()) <= TOL_DYNAMICS


def test_a_wrong_model_fails():
    """The comparison can fail: a compiled model with one com off by 1 mm disagrees far beyond the tolerance."""
    spec = get_preset("planar3r")
    wrong = spec.with_link(1, com=spec.links[1].com + 1e-3)
    model = compile_arm(wrong)
    Q = _states(spec.n, 1)[0]
    M, ref = spatial.crba(model, Q), analytic.mass_matrix(spec, Q)
    assert np.abs(M - ref).max() / np.abs(ref).max() > 1e-5


def test_info_says_what_the_arm_compiles_to():
    from crossdyn.cli.info import describe

    assert ("compiles to: RobotModel, 3 revolute joints about +z (joint1, joint2, joint3), a chain on 'world'"
            in describe(get_preset("planar3r")))
