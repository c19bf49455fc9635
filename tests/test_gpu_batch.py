"""``compare --batch`` on MuJoCo Warp and Newton (issue 28): N random arms, one world each with per-world model
fields, against crossdyn's JAX model at float64 (an independent path: the analytic equations, not MuJoCo's or
Newton's).  A missing library is a skipped engine naming its extra (``sys.modules[name] = None``: its import raises
ImportError, as a missing package's does)."""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest

pytest.importorskip("jax", reason="not installed: pip install 'crossdyn[jax]'")

from crossdyn.batch.engines import BatchProblem, run_batch_engine  # noqa: E402
from crossdyn.batch.sampling import random_params, random_starts  # noqa: E402
from crossdyn.engines.precision import trajectory_roundoff  # noqa: E402
from crossdyn.models import get_preset  # noqa: E402


def _problem(name: str, N: int, K: int, spread: float = 0.2) -> BatchProblem:
    """N arms of preset ``name`` (seed 3), a constant torque for K steps of 1 ms, q kept at the start and the end."""
    spec = get_preset(name)
    tau = np.tile(np.linspace(0.5, -0.2, spec.n), (K, 1))
    return BatchProblem.of(spec, random_params(spec, N, seed=3, spread=spread), random_starts(spec, N, seed=3), tau,
                           1e-3, K)


@pytest.mark.slow
def test_mujoco_warp_batch_gives_every_world_its_own_arm():
    pytest.importorskip("mujoco_warp", reason="not installed: pip install 'crossdyn[warp]'")
    spec = get_preset("planar2r")
    N, K = 6, 40
    p = random_params(spec, N, seed=3, spread=0.2)
    starts = random_starts(spec, N, seed=3)
    tau = np.tile([0.5, -0.2], (K, 1))
    pb = BatchProblem.of(spec, p, starts, tau, 1e-3, K)
    warp, ref = run_batch_engine("mujoco-warp", pb), run_batch_engine("jax-euler", pb)
    assert warp.status.value == "ok", warp.message
    err = np.max(np.abs(warp.q[:, -1] - ref.q[:, -1]))
    tol = trajectory_roundoff("float32", K * 1e-3)          # the batch comparison's float32 term, 3.07e-5 rad
    assert err < tol, (err, tol)                            # measured ~3e-7 rad
    # the arms differ (spread 20 %): one shared model could not match them all
    one = BatchProblem.of(spec, random_params(spec, N, seed=3, spread=0.0), starts, tau, 1e-3, K)
    shared = run_batch_engine("jax-euler", one)
    assert np.max(np.abs(shared.q[:, -1] - ref.q[:, -1])) > 10 * tol
    assert warp.config["dtype"] == "float32" and "body_mass" in warp.config["batched_fields"]


@pytest.mark.slow
@pytest.mark.parametrize("arm", ["planar2r", "planar3r", "planar2r-pointmass"])
def test_newton_batch_gives_every_world_its_own_arm(arm):
    """Arm i of the batch (its own lengths, masses, centres, inertias and start) in world i of one Newton model,
    within the float32 trajectory term of crossdyn's float64 semi-implicit Euler of that arm; one shared model
    (the spec's values in every world) would be > 10x that away, so the test can fail."""
    pytest.importorskip("newton", reason="not installed: pip install 'crossdyn[newton]'")
    K = 40
    pb = _problem(arm, 6, K)
    newton, ref = run_batch_engine("newton", pb), run_batch_engine("jax-euler", pb)
    assert newton.status.value == "ok", newton.message
    assert newton.q.shape == ref.q.shape == (6, 2, pb.spec.n) and np.all(newton.q[:, 0] == pb.q0)
    err = np.max(np.abs(newton.q[:, -1] - ref.q[:, -1]))
    tol = trajectory_roundoff("float32", K * 1e-3)          # the batch comparison's float32 term, 3.07e-5 rad
    assert err < tol, (err, tol)                            # measured 2.4e-7 to 4.4e-7 rad
    shared = run_batch_engine("jax-euler", _problem(arm, 6, K, spread=0.0))
    assert np.max(np.abs(shared.q[:, -1] - ref.q[:, -1])) > 10 * tol
    cfg = newton.config
    assert cfg["dtype"] == "float32" and cfg["worlds"] == 6 and cfg["integrator"] == "semi-implicit-euler"
    assert cfg["gravity"] == pytest.approx(list(pb.spec.gravity)) and cfg["angular_damping"] == 0.0
    assert cfg["finalize_warnings"] == []  # pointmass: Newton's inertia correction would warn "corrected 2 bodies"


@pytest.mark.slow
def test_newton_batch_model_is_each_arm_s_own_mjcf_array_for_array():
    """The replicated builder with per-world values equals, array for array, the model made of each arm's own
    generated MJCF (``add_mjcf`` then ``add_world``): every float and integer array of the Model but the collision
    shapes' (the capsules keep the spec's lengths; contacts never run), joint_X_p within a float32 rounding."""
    newton = pytest.importorskip("newton", reason="not installed: pip install 'crossdyn[newton]'")
    import warp as wp

    from crossdyn.engines.newton import batch as newton_batch
    from crossdyn.models.spec import arm_spec
    from crossdyn.models.mjcf import to_mjcf

    spec = get_preset("planar3r")
    p = random_params(spec, 3, seed=2)
    ours, _ = newton_batch.build_model(newton, wp, spec, p, 1e-3, "cpu")
    scene = newton.ModelBuilder()
    for i in range(3):
        arm = newton.ModelBuilder()
        arm.add_mjcf(to_mjcf(arm_spec(spec, p, i), timestep=1e-3))
        scene.add_world(arm)
    theirs = scene.finalize(device="cpu", skip_validation_inertia=True)
    theirs.set_gravity(list(spec.gravity))
    compared = []
    for name, a in vars(theirs).items():
        b = vars(ours).get(name)
        if not isinstance(a, wp.array) or name.startswith(("shape_", "bvh_")):
            continue
        x, y = a.numpy(), b.numpy()
        assert x.shape == y.shape, name
        if name == "joint_X_p":
            np.testing.assert_allclose(y, x, rtol=0, atol=2 * np.finfo(np.float32).eps)  # the MJCF's decimal text
        elif x.dtype.kind in "fiub":
            np.testing.assert_array_equal(y, x, err_msg=name)
        compared.append(name)
    assert {"body_mass", "body_inertia", "body_inv_inertia", "body_com", "body_q", "joint_damping"} <= set(compared)
    assert not np.array_equal(ours.body_mass.numpy()[:3], ours.body_mass.numpy()[3:6])  # the arms do differ


@pytest.mark.slow
def test_newton_solver_keeps_the_inertias_it_was_built_with():
    """Why the batch builds SolverFeatherstone after the model is final: the solver bakes body_I_m and body_X_com
    at construction, so masses assigned afterwards change nothing (bit for bit) until notify_model_changed; the
    change itself moves the arm far beyond float32."""
    newton = pytest.importorskip("newton", reason="not installed: pip install 'crossdyn[newton]'")
    import warp as wp
    from newton.solvers import SolverFeatherstone

    from crossdyn.engines.newton import batch as newton_batch

    spec = get_preset("planar2r")

    def final_q(change: bool, notify: bool) -> np.ndarray:
        model, _ = newton_batch.build_model(newton, wp, spec, random_params(spec, 2, seed=1), 1e-3, "cpu")
        solver = SolverFeatherstone(model, angular_damping=0.0)
        if change:
            model.body_mass.assign(2 * model.body_mass.numpy())
            if notify:
                solver.notify_model_changed(newton.ModelFlags.BODY_INERTIAL_PROPERTIES)
        s0, s1, control = model.state(), model.state(), model.control()
        newton.eval_fk(model, s0.joint_q, s0.joint_qd, s0)
        control.joint_f.assign(np.float32([0.5, -0.2] * 2))
        for _ in range(200):
            solver.step(s0, s1, control, None, 1e-3)
            s0, s1 = s1, s0
        return s0.joint_q.numpy()

    built = final_q(False, False)
    assert np.array_equal(final_q(True, False), built)
    assert np.max(np.abs(final_q(True, True) - built)) > 10 * trajectory_roundoff("float32", 0.2)


@pytest.mark.slow
def test_newton_batch_skips_coulomb_friction_as_unsupported():
    pytest.importorskip("newton", reason="not installed: pip install 'crossdyn[newton]'")
    run = run_batch_engine("newton", _problem("planar3r-friction", 2, 4))
    assert run.status.value == "skipped" and run.q is None
    assert run.message.startswith("unsupported: Coulomb joint friction"), run.message


@pytest.mark.parametrize("engine, module, extra", [("newton", "newton", "newton"),
                                                   ("mujoco-warp", "mujoco_warp", "warp")])
def test_a_missing_gpu_library_is_a_skipped_batch_engine_naming_its_extra(monkeypatch, engine, module, extra):
    monkeypatch.setitem(sys.modules, module, None)
    run = run_batch_engine(engine, _problem("planar2r", 2, 4))
    assert run.status.value == "skipped" and f"pip install 'crossdyn[{extra}]'" in run.message, run.message


@pytest.mark.parametrize("engine, module, extra", [("newton", "newton", "newton"),
                                                   ("mujoco-warp", "mujoco_warp", "warp")])
def test_batch_cli_without_the_gpu_library_exits_2_naming_the_extra(monkeypatch, tmp_path, capsys, engine, module,
                                                                    extra):
    from crossdyn.cli import main

    monkeypatch.setitem(sys.modules, module, None)
    out = tmp_path / "o"
    assert main(["compare", "planar2r", "--batch", "4", "--engines", engine, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--batch engine {engine} needs {module} (not installed): pip install 'crossdyn[{extra}]'" in err, err
    assert not out.exists()


@pytest.mark.slow
def test_batch_cli_judges_newton_with_the_float32_term_and_counts_its_checks(tmp_path):
    """``crossdyn compare planar2r --batch 8 --engines newton,mujoco --duration 0.1``: Newton judged against
    jax-euler within float32 round-off and beside C MuJoCo's float64 Euler; 8 arms x 11 samples each."""
    pytest.importorskip("newton", reason="not installed: pip install 'crossdyn[newton]'")
    from crossdyn.cli import main

    out = tmp_path / "o"
    code = main(["compare", "planar2r", "--batch", "8", "--engines", "newton,mujoco", "--duration", "0.1", "--quiet",
                 "--out", str(out)])
    s = json.loads((out / "batch_summary.json").read_text())
    assert code == 0 and s["verdict"] == "PASS" and s["checks"] == {"newton": 88, "mujoco": 88, "total": 176}
    e = s["engines"]["newton"]
    assert e["verdict"] == "PASS" and e["reference"] == "jax-euler" and e["dtype"] == "float32"
    assert e["tolerance_rad"] == pytest.approx(trajectory_roundoff("float32", 0.1) + 1e-8, rel=1e-3)
    assert "float32 round-off" in e["tolerance_origin"] and e["discrepancy_rad"]["max"] < 1e-5
    assert "PASS (88 checks)" in (out / "batch_report.md").read_text()


@pytest.mark.slow
def test_newton_batch_defaults_switched_back_matter():
    """Each neutralised default through the single-arm engine's knobs: Newton's gravity (−9.81 along +z, the
    planar arms' joint axis) leaves the arms without gravity, far beyond float32; Newton's inertia validation
    corrects every point-mass link of planar2r-pointmass (2 per arm); its angular damping 0.05 is not applied to
    articulated joints in Newton 1.8 (bit-identical: a release that applies it fails here)."""
    pytest.importorskip("newton", reason="not installed: pip install 'crossdyn[newton]'")
    from crossdyn.engines.newton import batch as newton_batch
    from crossdyn.engines.newton.planar import NewtonOptions

    K = 40
    tol = trajectory_roundoff("float32", K * 1e-3)
    pb = _problem("planar2r", 6, K)
    ref = run_batch_engine("jax-euler", pb).q
    ours = newton_batch.run(pb)
    theirs = newton_batch.run(pb, NewtonOptions(newton_gravity=True))
    assert np.max(np.abs(ours[0] - ref)) < tol < np.max(np.abs(theirs[0] - ref)) / 10
    assert theirs[4]["gravity"] == pytest.approx([0, 0, -9.81]) and "builder default" in theirs[4]["gravity_source"]
    assert np.array_equal(newton_batch.run(pb, NewtonOptions(angular_damping=0.05))[0], ours[0])
    point = _problem("planar2r-pointmass", 6, K)
    assert newton_batch.run(point)[4]["finalize_warnings"] == []
    validated = newton_batch.run(point, NewtonOptions(validate_inertia=True))[4]
    assert any("corrected 12 bodies" in w for w in validated["finalize_warnings"]), validated["finalize_warnings"]
