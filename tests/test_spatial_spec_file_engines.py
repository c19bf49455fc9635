"""The spatial presets in every file engine (crossdyn.engines.files), against crossdyn's spatial reference.

Each preset is written to URDF and MJCF (crossdyn's writers), read back with ``read_robot`` and loaded by every
installed engine that reads that format (Pinocchio, MuJoCo, PyBullet with ``URDF_USE_INERTIA_FROM_FILE``, Drake,
DART; the adapters' own traps neutralised as their config() lists).  M(q), G(q) and C(q, q̇)q̇ = bias − G agree with
:mod:`crossdyn.spatial` (Featherstone's CRBA/RNEA, written in crossdyn) at 1,000 random states per preset:
|engine − reference| ≤ 1e-12 × the largest |entry| of the reference over the states (measured worst 1.4e-14, MuJoCo:
float64 rounding of ≤ 3-body recursions; any wrong frame, sign or inertia entry is ≥ 1e-3).
PyBullet without the flag (its default, ``pybullet-noflag``) recomputes the inertia from geometry: it must differ
(≥ 1e-2 on M), which shows the neutralised default matters for these arms too.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # the whole module: keeps make test within its 7-min budget (CI runs it)

from crossdyn.engines.files import FILE_ENGINES, file_engine_status, make_file_engine
from crossdyn.models import get_preset
from crossdyn.models.spatial_presets import SPATIAL_PRESETS
from crossdyn.robots import read_robot
from crossdyn.robots.model import Format

spatial = pytest.importorskip("crossdyn.spatial")

TOL = 1e-12
N_STATES = 1000
CASES = [(name, fmt, engine) for name in SPATIAL_PRESETS for fmt in (Format.URDF, Format.MJCF)
         for engine in FILE_ENGINES if engine != "pybullet-noflag"
         and fmt in FILE_ENGINES[engine].formats]


def _states(spec, seed):
    rng = np.random.default_rng(seed)
    lo = np.array([j.limits[0] if j.limits else -math.pi for j in spec.joints])
    hi = np.array([j.limits[1] if j.limits else math.pi for j in spec.joints])
    return rng.uniform(lo, hi, (N_STATES, spec.n)), rng.uniform(-2.0, 2.0, (N_STATES, spec.n))


def _model(tmp_path, name, fmt):
    spec = get_preset(name, spatial=True)
    path = tmp_path / (f"{name}.urdf" if fmt is Format.URDF else f"{name}.xml")
    path.write_text(spec.to_urdf() if fmt is Format.URDF else spec.to_mjcf())
    return spec, read_robot(path)


def _relative(a, ref) -> float:
    return float(np.abs(a - ref).max() / max(np.abs(ref).max(), 1e-300))


@pytest.mark.parametrize("name,fmt,engine", CASES, ids=[f"{n}-{f.value}-{e}" for n, f, e in CASES])
def test_preset_in_file_engine_matches_the_spatial_reference(tmp_path, name, fmt, engine):
    why = file_engine_status(engine, fmt)
    if why is not None:
        pytest.skip(why)
    spec, model = _model(tmp_path, name, fmt)
    Q, QD = _states(spec, sum(map(ord, name)))
    eng = make_file_engine(engine, model)
    G_ref = spatial.gravity_torque(model, Q)
    got = {"M": eng.mass_matrix(Q), "G": eng.gravity(Q), "C qd": eng.bias(Q, QD) - eng.gravity(Q)}
    ref = {"M": spatial.crba(model, Q), "G": G_ref, "C qd": spatial.bias(model, Q, QD) - G_ref}
    for what in ref:
        assert _relative(got[what], ref[what]) <= TOL, (what, _relative(got[what], ref[what]))


def test_pybullet_default_inertia_differs(tmp_path):
    if file_engine_status("pybullet-noflag", Format.URDF) is not None:
        pytest.skip(file_engine_status("pybullet-noflag", Format.URDF))
    spec, model = _model(tmp_path, "pan-tilt", Format.URDF)
    Q, _ = _states(spec, 1)
    M = make_file_engine("pybullet-noflag", model).mass_matrix(Q[:50])
    assert _relative(M, spatial.crba(model, Q[:50])) >= 1e-2
