"""Rollout sensitivities (issue 41, :mod:`crossdyn.derivatives.rollout`): ∂q(t)/∂(torque offset) and ∂q(t)/∂(a link's
mass) over a horizon.  The reference (complex step through crossdyn's replica of the scheme) is checked against a
second path that shares only the forward dynamics' values (tangent-linear integration on the complex-step blocks)
and against central differences of whole rollouts; Pinocchio's (its analytical blocks and its joint-torque
regressor, chained through its RK4) and MuJoCo's (its mjd_transitionFD Jacobians chained) against the reference; a
wrong block is seen as a departure."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from crossdyn.derivatives import rollout as ro
from crossdyn.derivatives.reference import forward
from crossdyn.derivatives.transition import STEP_FUNCTIONS
from crossdyn.robots.model import Body, Inertial

STEPS, DT = 40, 1e-3


def _planar(name, tmp_path):
    from crossdyn.derivatives.engines import file_model
    from crossdyn.models.presets import get_preset

    return file_model(get_preset(name), tmp_path)


def _with_mass(model, body, dm):
    b = model.bodies[body]
    bodies = list(model.bodies)
    bodies[body] = Body(b.name, Inertial(b.inertial.mass + dm, b.inertial.com, b.inertial.inertia), b.merged)
    return replace(model, bodies=tuple(bodies))


def _final_q(model, method, q0, tau, offset=0.0):
    step, fd = STEP_FUNCTIONS[method], forward(model)
    q, v = q0[None].copy(), np.zeros((1, len(q0)))
    for k in range(len(tau)):
        q, v = step(fd, q, v, tau[k][None] + offset, DT)
    return q[0]


@pytest.mark.parametrize("method", [pytest.param("rk4", marks=pytest.mark.slow), "semi-implicit-euler", "euler"])
def test_the_reference_agrees_with_its_tangent_linear_path_and_with_central_differences(tmp_path, method):
    model = _planar("planar3r-friction", tmp_path)  # damped joints: the damping term is in the derivatives too
    q0, tau = np.array([0.3, -0.5, 0.8]), np.tile([0.4, -0.2, 0.1], (STEPS, 1))
    ref = ro.reference(model, q0, np.zeros(3), tau, DT, method)
    tangent = ro.tangent_rollout(ro.reference_blocks(model), q0, np.zeros(3), tau, DT, method)
    for mine, theirs in ((tangent.dq_dtau, ref.dq_dtau), (tangent.dq_dmass, ref.dq_dmass)):
        assert np.max(np.abs(mine - theirs)) <= 1e-12 * np.max(np.abs(theirs))
    assert np.allclose(tangent.q, ref.q, rtol=0, atol=1e-14)
    # central differences of whole rollouts: truncation O(eps^2) relative, plus round-off
    # eps_mach |q| / eps ~ 1e-10 rad per unit of the input (allowed 10x: 1e-9)
    eps = 1e-6
    fd_tau = (_final_q(model, method, q0, tau, eps) - _final_q(model, method, q0, tau, -eps)) / (2 * eps)
    fd_m = (_final_q(_with_mass(model, 2, eps), method, q0, tau)
            - _final_q(_with_mass(model, 2, -eps), method, q0, tau)) / (2 * eps)
    assert np.max(np.abs(fd_tau - ref.dq_dtau[-1])) <= 1e-7 * np.max(np.abs(ref.dq_dtau[-1])) + 1e-9
    assert np.max(np.abs(fd_m - ref.dq_dmass[-1])) <= 1e-7 * np.max(np.abs(ref.dq_dmass[-1])) + 1e-9
    assert ref.body == model.bodies[-1].name and np.all(ref.dq_dtau[0] == 0)


def test_pinocchios_sensitivities_agree_with_the_reference_on_a_robot_file():
    pytest.importorskip("pinocchio")
    from robot_files import erd_ur5_urdf

    from crossdyn.robots import read_robot

    model = read_robot(erd_ur5_urdf())
    q0, tau = np.linspace(-0.6, 0.6, model.n), np.zeros((STEPS, model.n))
    ref = ro.reference(model, q0, np.zeros(model.n), tau, DT, "rk4")
    pin = ro.pinocchio(model, q0, np.zeros(model.n), tau, DT)
    a = ro.agreement(pin, ref)
    for key in ("torque_offset", f"mass of {model.bodies[-1].name}"):
        assert a[key]["max_relative"] <= 1e-10 and a[key]["agrees_until_s"] == pytest.approx(STEPS * DT), (key, a[key])
    assert a[f"mass of {model.bodies[-1].name}"]["final_norm"] > 0  # the payload moves the arm


def test_mujocos_chained_jacobians_agree_to_their_finite_difference_error(tmp_path):
    pytest.importorskip("mujoco")
    model = _planar("planar3r-friction", tmp_path)
    q0, tau = np.array([0.3, -0.5, 0.8]), np.zeros((STEPS, 3))
    mj = ro.mujoco(model, q0, np.zeros(3), tau, DT)
    a = ro.agreement(mj, ro.reference(model, q0, np.zeros(3), tau, DT, mj.method))
    assert mj.dq_dmass is None and list(k for k in a if isinstance(a[k], dict)) == ["torque_offset"]
    # centred differences at eps = 1e-6 of one step: ~1e-6 relative at worst, far from 0 and within 1e-3
    assert 1e-12 < a["torque_offset"]["max_relative"] <= 1e-4


def test_a_wrong_block_is_seen_as_a_departure(tmp_path):
    """The reference's own blocks with ∂q̈/∂q transposed: the sensitivities leave three correct digits."""
    model = _planar("planar3r", tmp_path)
    blocks = ro.reference_blocks(model)

    def transposed(q, qd, tau):
        a, a_q, a_v, a_t, y = blocks(q, qd, tau)
        return a, a_q.T, a_v, a_t, y
    q0, tau = np.array([0.3, -0.5, 0.8]), np.zeros((STEPS, 3))
    method = "semi-implicit-euler"
    ref = ro.reference(model, q0, np.zeros(3), tau, DT, method)
    a = ro.agreement(ro.tangent_rollout(transposed, q0, np.zeros(3), tau, DT, method), ref)
    assert a["torque_offset"]["max_relative"] > ro.TRUSTED
    assert a["torque_offset"]["agrees_until_s"] < STEPS * DT


def test_summary_is_json_safe_and_subsampled(tmp_path):
    import json

    model = _planar("planar2r", tmp_path)
    entry = ro.free_fall(model, "pinocchio", np.array([0.2, 0.4]), 5e-3) if _has("pinocchio") else None
    ref = ro.reference(model, np.array([0.2, 0.4]), np.zeros(2), np.zeros((100, 2)), DT, "rk4")
    s = ro.summary(ro.agreement(ref, ref), points=11)
    assert len(s["t_s"]) == 11 and s["t_s"][-1] == pytest.approx(0.1)
    assert s["torque_offset"]["max_relative"] == 0.0 and len(s["torque_offset"]["relative"]) == 11
    json.dumps(s, allow_nan=False)
    if entry is not None:
        assert entry["steps"] == 100 and "free motion" in entry["scenario"]  # 0.5 s at 5 ms
        json.dumps(entry, allow_nan=False)


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


@pytest.mark.slow  # Newton's kernels load in a few seconds
def test_newtons_taped_steps_chained_agree_to_float32(tmp_path):
    pytest.importorskip("newton")
    model = _planar("planar3r-friction", tmp_path)
    q0, tau = np.array([0.3, -0.5, 0.8]), np.zeros((200, 3))
    nt = ro.newton(model, q0, np.zeros(3), tau, DT)
    a = ro.agreement(nt, ro.reference(model, q0, np.zeros(3), tau, DT, nt.method))
    assert nt.method == "semi-implicit-euler" and nt.dq_dmass is None
    # float32 steps (eps32 = 1.2e-7) along its own float32 trajectory: far from 0, within three digits
    assert 1e-9 < a["torque_offset"]["max_relative"] <= ro.TRUSTED
