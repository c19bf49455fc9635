"""The seeded faults of the verdicts benchmark on the GPU simulators (issue 28): MuJoCo Warp and Newton, each with
one real defect in its own model arrays or input path (tests/seeded_faults_gpu.py), judged by the public
``crossdyn.compare`` as benchmarks/verdicts.py does.  A fault declared "must detect" FAILs; the unfaulted engine
PASSes (or is INCONCLUSIVE, with the reason); the Coriolis fault, which these engines cannot carry, is UNSUPPORTED
with the reason.  Slow tier: the engines step at ~4 ms (Newton) and ~40 ms (MuJoCo Warp) per step on a CPU."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import seeded_faults_gpu  # noqa: E402
import verdicts  # noqa: E402


def _need(module: str, extra: str) -> None:
    pytest.importorskip(module, reason=f"not installed: pip install 'crossdyn[{extra}]'")


def _assert_cells(measured, base: str, faults, clean: str = "PASS") -> None:
    cells = measured["cells"]
    for fault in faults:
        for scenario, cell in cells[fault].items():
            declared = verdicts.EXPOSURE[fault][scenario][0]
            assert declared == verdicts.DETECT, (fault, scenario)
            assert cell.verdict == "FAIL", (base, fault, scenario, cell)
    for scenario, cell in cells[base].items():
        assert cell.verdict == clean, (base, scenario, cell)


@pytest.mark.slow
def test_newton_driven_run_fails_four_seeded_faults_and_passes_the_unfaulted():
    _need("newton", "newton")
    faults = ["mass", "gravity", "delay", "float32", "coriolis"]
    measured = verdicts.measure(["driven"], faults, [], duration=0.5, say=lambda m: None, base="newton",
                                n_states=200)
    assert measured["cells"]["coriolis"]["driven"].verdict == "UNSUPPORTED"
    assert "user file" in measured["cells"]["coriolis"]["driven"].detail
    _assert_cells(measured, "newton", [f for f in faults if f != "coriolis"])
    cells = measured["cells"]
    assert "mass_matrix" in cells["mass"]["driven"].detail          # M itself is found wrong, not only the motion
    assert "trajectory" in cells["delay"]["driven"].detail          # the delay is seen only in the motion


@pytest.mark.slow
def test_mujoco_warp_driven_run_fails_three_seeded_faults_and_cannot_judge_the_unfaulted_motion():
    # 0.3 s (MuJoCo Warp steps at ~40 ms on a CPU): the arm moves 0.07 rad, less than the scheme's own dt error
    # allows to judge, so the unfaulted engine's trajectory is INCONCLUSIVE with that reason while its static checks
    # pass; the faults FAIL in their static checks (mass, damping, the false float64 claim)
    _need("mujoco_warp", "warp")
    faults = ["mass", "damping", "float32"]
    measured = verdicts.measure(["driven"], faults, [], duration=0.3, say=lambda m: None, base="mujoco-warp",
                                n_states=100)
    _assert_cells(measured, "mujoco-warp", faults, clean="INCONCLUSIVE")
    cells = measured["cells"]
    assert "too sensitive to judge" in cells["mujoco-warp"]["driven"].detail
    assert "inverse_dynamics" not in cells["mujoco-warp"]["driven"].detail   # no static group failed or was unsure
    for fault in faults:
        assert "inverse_dynamics" in cells[fault]["driven"].detail, fault


@pytest.mark.slow
def test_a_gpu_fault_claims_the_unfaulted_config_but_its_model_differs():
    _need("newton", "newton")
    from crossdyn import make_engine
    from crossdyn.models import load_arm

    seeded_faults_gpu.register()
    spec = load_arm("planar2r")
    clean = make_engine("newton", spec)
    q = np.array([-1.2, 0.7])
    for fault, differs in (("mass", 1e-3), ("armature", 0.05)):
        eng = make_engine(seeded_faults_gpu.engine_name("newton", fault), spec)
        assert eng.config() == clean.config() and eng.dtype == "float32"
        assert np.max(np.abs(eng.mass_matrix(q) - clean.mass_matrix(q))) > differs, fault
    f32 = make_engine(seeded_faults_gpu.engine_name("newton", "float32"), spec)
    assert f32.dtype == "float64" and np.array_equal(f32.mass_matrix(q), clean.mass_matrix(q))
