"""Warp engines' derivatives in the ``derivatives`` group (issue 41): Newton's ``SolverFeatherstone.step`` by
``wp.Tape`` in float32 (:mod:`crossdyn.derivatives.warp`), MuJoCo Warp not offered (its step has no adjoints).

* fast: which engines are offered, the measured reason MuJoCo Warp is not and the report line that shows it; the
  float32 step tolerance (pure) against the exact Jacobian rounded to float32 and against a perturbed one;
* slow (Warp compiles the adjoint kernels at their first use, and every run builds a Newton model): Newton PASSes
  on planar3r and on two real robot files (UR5 URDF from example-robot-data, Menagerie's UR5e MJCF); a transposed
  ∂q̇⁺/∂q FAILs naming the block; a NaN gradient FAILs, never raises; MuJoCo Warp's tape gives zero gradients (the
  measurement behind "not offered": should a release add adjoints, this test fails and the engine can be offered);
  Newton's file adapter keeps an MJCF root body's own hinge (the planar arms' generated MJCF).
"""
from __future__ import annotations

import functools
import importlib.util

import numpy as np
import pytest

import robot_files as rf
from crossdyn.comparison.groups import derivatives as dg
from crossdyn.models.presets import PRESETS
from crossdyn.status import Verdict


def _planar(name: str, folder) -> object:
    from crossdyn.derivatives.engines import file_model
    return file_model(PRESETS[name](), folder)


def _states(n: int, N: int = 5, seed: int = 1):
    rng = np.random.default_rng(seed)
    return rng.uniform(-2, 2, (N, n)), rng.uniform(-2, 2, (N, n)), rng.uniform(-5, 5, (N, n))


def test_newton_offered_mujoco_warp_not_with_its_measured_reason():
    assert dg.offers("newton") and dg.OFFERED["newton"] == "newton" and "newton" in dg.SOURCES
    for name in ("mujoco-warp", "mujoco-warp-euler", "mujoco-warp-rk4", "mujoco-warp-implicitfast"):
        assert not dg.offers(name)
        assert "enable_backward=False" in (dg.not_offered_because(name) or "")
    assert dg.not_offered_because("newton") is None and dg.not_offered_because("analytic") is None
    assert dg.not_offered_because("mujoco") is None  # offered: no reason
    assert "newton" in dg.summary_entry(10)["offered_by"]


def test_report_lists_mujoco_warp_as_not_offered_with_the_reason():
    from crossdyn.reporting.blocks.derivatives import derivatives_blocks

    summary = {"derivatives": {"states": 3, "method": "m"},
               "engines": {"analytic": {}, "mujoco-warp": {},
                           "newton": {"derivatives": {"verdict": "PASS", "checks": 54, "blocks": {}}}}}
    line = next(b[1] for b in derivatives_blocks(summary) if b[0] == "p" and b[1].startswith("Not offered"))
    assert line.startswith("Not offered: analytic, mujoco-warp (MuJoCo Warp's step is not differentiable")
    assert "newton" not in line


def test_float32_step_tolerance_holds_float32_rounding_and_catches_a_model_error(tmp_path):
    from crossdyn.derivatives import reference, transition
    from crossdyn.derivatives import tolerance as tol

    model, dt = _planar("planar3r-friction", tmp_path), 1e-3
    X = _states(3)
    ref = reference.complex_step(model, *X)
    exact = transition.chain_rule(lambda *_: ref, *X, dt, "semi-implicit-euler")
    G = np.concatenate((exact.A, exact.B), 2)
    limit = tol.float32_step(model, ref, dt)
    assert set(limit) == {k for k, _, _ in dg.TRANSITION_KEYS}
    rounded = G.astype(np.float32).astype(float)  # each entry within its half-ulp of float32: must pass
    for k, r, c in dg.TRANSITION_KEYS:
        part = functools.partial(dg.transition_part, r=r, c=c)
        assert dg.check_block(k, part(rounded), part(G), limit[k], "m").verdict is Verdict.PASS, k
    # a 1e-3 relative error in the dynamics' derivatives (a link mass 0.1 % off reaches them about so): FAIL
    off = G.copy()
    dg.transition_part(off, 1, 0)[:] *= 1.001
    assert dg.check_block("dqdnext_dq", dg.transition_part(off, 1, 0), dg.transition_part(G, 1, 0),
                          limit["dqdnext_dq"], "m").verdict is Verdict.FAIL


def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


newton = pytest.mark.skipif(not _importable("newton"), reason="newton not installed: pip install 'crossdyn[newton]'")


class TransposedNewton(dg.NewtonDerivatives):
    """Newton's ∂q̇⁺/∂q returned transposed (a row/column-major mix-up; seen where a_q is not symmetric)."""

    def transition(self, model, Q, QD, TAU, dt):
        t = super().transition(model, Q, QD, TAU, dt)
        n = t.q.shape[1]
        t.A[:, n:, :n] = np.swapaxes(t.A[:, n:, :n], 1, 2).copy()
        return t


class NaNNewton(dg.NewtonDerivatives):
    """Newton with one NaN written into ∂q⁺/∂τ at state 1."""

    def transition(self, model, Q, QD, TAU, dt):
        t = super().transition(model, Q, QD, TAU, dt)
        t.B[1, 0, 2] = np.nan
        return t


@pytest.mark.slow  # Newton models and the tape's adjoint kernels (compiled at first use), ~10 s
@newton
def test_newton_passes_on_planar3r_and_faults_fail_naming_the_block(tmp_path):
    model, X = _planar("planar3r-friction", tmp_path), _states(3, N=8)
    m = dg.derivatives_group("newton", model, *X, 1e-3)
    assert m.verdict is Verdict.PASS, m.values.get("failed_because")
    assert m.values["checks"] == 6 * 3 * 3 * 8
    assert "wp.Tape" in m.values["blocks"]["dqdnext_dq"]["method"]
    assert 1e-3 < m.values["worst_ratio"] <= 1.0  # float32 round-off is seen, within its bound
    bad = dg.derivatives_group("newton", model, *X, 1e-3, source=TransposedNewton())
    assert bad.verdict is Verdict.FAIL and "newton ∂q̇⁺/∂q entry" in bad.values["failed_because"]
    assert {k for k, b in bad.values["blocks"].items() if b["verdict"] == "FAIL"} == {"dqdnext_dq"}
    nan = dg.derivatives_group("newton", model, *X, 1e-3, source=NaNNewton())
    assert nan.verdict is Verdict.FAIL and nan.values["worst_ratio"] is None
    assert "newton ∂q⁺/∂τ entry (1, 3) at state 1: not finite" in nan.values["failed_because"]


@pytest.mark.slow  # two robot files through Newton's importers, ~15 s
@newton
@pytest.mark.parametrize("path", [rf.erd_ur5_urdf, rf.menagerie_ur5e_xml], ids=["ur5-urdf", "ur5e-mjcf"])
def test_newton_passes_on_real_robot_files(path):
    from crossdyn.robots import read_robot

    model = read_robot(path())
    m = dg.derivatives_group("newton", model, *_states(model.n, N=6), 1e-3)
    assert m.verdict is Verdict.PASS, m.values.get("failed_because")
    assert m.values["checks"] == 6 * model.n * model.n * 6


@pytest.mark.slow  # MuJoCo Warp's step kernels compile at first use
@pytest.mark.skipif(not _importable("mujoco_warp"), reason="mujoco_warp not installed")
def test_mujoco_warp_tape_gives_zero_gradients(tmp_path):
    import mujoco
    import mujoco_warp as mjw
    import warp as wp

    from crossdyn.models.mjcf import to_mjcf

    m = mujoco.MjModel.from_xml_string(to_mjcf(PRESETS["planar3r"](), timestep=1e-3))
    with wp.ScopedDevice("cpu"):
        wm, d = mjw.put_model(m), mjw.make_data(m, nworld=1)
        d.qpos = wp.array([[0.3, -0.5, 0.8]], dtype=wp.float32, requires_grad=True)
        d.qvel = wp.array([[0.5, -1.0, 0.7]], dtype=wp.float32, requires_grad=True)
        d.ctrl = wp.array([[1.0, 0.5, -0.2]], dtype=wp.float32, requires_grad=True)
        before = d.qvel.numpy().copy()
        tape = wp.Tape()
        with tape:
            mjw.step(wm, d)
        assert not np.allclose(d.qvel.numpy(), before)  # the step ran (gravity and τ moved q̇)
        kernels = [launch[0] for launch in tape.launches if isinstance(launch, list)]
        assert kernels and any(not k.module.options.get("enable_backward", True) for k in kernels)
        tape.backward(grads={d.qvel: wp.array([[1.0, 0.0, 0.0]], dtype=wp.float32)})
        # exact ∂q̇⁺_1/∂τ = h (M⁻¹)_1· is not zero; the tape's is
        assert not np.any(d.ctrl.grad.numpy()) and not np.any(d.qpos.grad.numpy())


@pytest.mark.slow
@newton
def test_newton_file_adapter_keeps_the_mjcf_root_bodys_hinge(tmp_path):
    from crossdyn.engines.newton.file import NewtonFileEngine

    eng = NewtonFileEngine(_planar("planar3r", tmp_path), 1e-3)  # before: joint1 replaced by a fixed base
    assert eng.n == 3 and eng.sim.joint_dof_count == 3
    assert "floating=None" in eng.config()["loader"]
