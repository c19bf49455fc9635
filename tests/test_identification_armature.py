"""crossdyn identify on arms with rotor armature (planar3r-geared, a 2R with armature): the I_a columns in every
row model, noise-free recovery from the analytic model and the engines that carry armature, the trap of an engine
built with another armature named, engines without armature refused with their reason, the CLI."""
import json
from dataclasses import replace

import numpy as np
import pytest

from crossdyn.cli import main
from crossdyn.engines import available_engines
from crossdyn.identification import data as D
from crossdyn.identification.estimators import consistent, ols
from crossdyn.identification.excitation import default_bounds, random_fourier
from crossdyn.identification.identify import diagnose_engines, identify, relative_errors
from crossdyn.identification.parameters import closed_form_base
from crossdyn.models import get_preset

GEARED = get_preset("planar3r-geared")
ARM2R = replace(get_preset("planar2r"), name="planar2r-armature").with_link(0, armature=0.04).with_link(1, armature=0.02)


def _engines(*names):
    have = set(available_engines())
    return [n for n in names if n.split("@")[0] in have]


@pytest.mark.parametrize("spec", [GEARED, ARM2R], ids=lambda s: s.name)
def test_noise_free_recovery_from_the_analytic_inverse_dynamics(spec):
    res = identify(spec, engine=None, optimise=False, duration=2.5, rate=100.0)
    n = spec.n
    # I_a1 merges into ZZ1R, I_a2 … I_an are base parameters of their own
    assert res.base.symbols[-(n - 1):] == tuple(f"Ia{j}" for j in range(2, n + 1))
    assert res.base.names[0].endswith(" + Ia1")
    rel = relative_errors(res.est.beta, res.truth, res.scale)
    assert np.max(rel) <= 1e-6 and res.passed  # measured 3e-14 (planar3r-geared): rounding only
    for j in range(2, n + 1):
        k = res.base.symbols.index(f"Ia{j}")
        assert res.est.beta[k] == pytest.approx(spec.links[j - 1].armature, rel=1e-6)


@pytest.mark.parametrize("spec", [GEARED, ARM2R], ids=lambda s: s.name)
def test_noise_free_recovery_from_every_engine_that_carries_armature(spec):
    # step rows for the semi-implicit Euler engines (mujoco, drake-discrete), energy rows for the continuous ones
    engines = _engines("analytic", "mujoco", "mujoco-rk4", "pinocchio", "drake-discrete")
    base, diags = diagnose_engines(spec, engines, duration=2.0)
    truth = base.values()
    models = set()
    for d in diags:
        assert d.status == "ok", d.message
        # measured on planar3r-geared: step rows <= 1.8e-13, energy rows (RK4 integration error) <= 1.7e-8
        assert np.max(d.relative) <= 1e-6, (d.engine, d.model, d.relative)
        assert d.moved == []
        for j in range(2, spec.n + 1):
            k = base.symbols.index(f"Ia{j}")
            assert abs(d.beta[k] - truth[k]) <= 1e-6 * truth[k]
        models.add(d.model)
    assert models == {"step", "energy"}  # both discrete relations exercised with their armature columns


def test_an_engine_built_with_another_armature_is_named():
    """The trap: an MJCF whose joint-2 rotor is 20 % heavier moves exactly Ia2, by 0.006 kg m²; one whose
    joint-1 rotor is heavier moves exactly ZZ1R (I_a1 is part of it)."""
    ia2 = GEARED.with_link(1, armature=GEARED.links[1].armature * 1.2)
    ia1 = GEARED.with_link(0, armature=GEARED.links[0].armature + 0.01)
    base, (d2, d1) = diagnose_engines(GEARED, ["mujoco", "mujoco-rk4"], duration=2.0,
                                      engine_specs={"mujoco": ia2, "mujoco-rk4": ia1})
    assert [m["symbol"] for m in d2.moved] == ["Ia2"], d2.summary()
    assert d2.moved[0]["change"] == pytest.approx(0.2 * GEARED.links[1].armature, rel=1e-6)
    assert "Ia2 were 0.036 instead of 0.03" in d2.summary()
    assert [m["symbol"] for m in d1.moved] == ["ZZ1R"], d1.summary()
    assert d1.moved[0]["change"] == pytest.approx(0.01, rel=1e-6)  # RK4 energy rows: integration error only


def test_engines_without_armature_are_refused_with_the_reason(tmp_path, capsys):
    if "pybullet" not in available_engines():
        pytest.skip("pybullet not installed")
    code = main(["identify", "planar3r-geared", "--engine", "pybullet", "--no-optimise", "--duration", "1",
                 "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "pybullet: cannot identify planar3r-geared from this engine: armature" in err
    assert "PyBullet has no joint armature" in err
    assert not (tmp_path / "identify.json").exists()  # nothing fitted
    _, (d,) = diagnose_engines(GEARED, ["pybullet"], duration=0.5)
    assert d.status == "unsupported" and "PyBullet has no joint armature" in d.message
    assert d.summary().startswith("pybullet: unsupported: ")
    assert d.as_dict(closed_form_base(GEARED, armature=True))["max_relative_error"] is None
    # the same engine on an arm without armature is fitted as before
    _, (plain,) = diagnose_engines(get_preset("planar2r"), ["pybullet"], duration=0.5)
    assert plain.status == "ok" and plain.moved == []


def test_energy_and_step_rows_have_the_armature_columns_and_arms_without_keep_theirs():
    spec = ARM2R
    traj = random_fourier(default_bounds(spec), seed=3)
    d = D.simulate(spec, "mujoco", traj, 0.5)
    base = closed_form_base(spec, armature=True)
    step, energy = D.build_rows(spec, base, d, "step"), D.build_rows(spec, base, d, "energy")
    k = base.symbols.index("Ia2")
    # step: I_a2's column is joint 2's difference quotient of q̇ (rows alternate joint 1, joint 2)
    dq = np.diff(d.qd[:, 1]) / np.diff(d.t)
    assert np.array_equal(step.W[1::2, k], dq) and np.all(step.W[0::2, k] == 0)
    # energy: ½ Δ(q̇_2²), the rotor's kinetic energy
    assert np.array_equal(energy.W[:, k], 0.5 * np.diff(d.qd[:, 1] ** 2))
    # the semi-implicit Euler record fits both exactly (energy rows only approximately: the step is not continuous)
    assert np.max(np.abs(step.W @ base.values() - step.y)) <= 1e-9 * np.max(np.abs(step.y))
    # an arm without armature: no new columns
    plain = get_preset("planar2r")
    pb = closed_form_base(plain, armature=plain.has_armature)
    assert pb.r == 8 and "Ia2" not in pb.symbols
    rows = D.build_rows(plain, pb, D.simulate(plain, "mujoco", traj, 0.2))
    assert rows.W.shape[1] == 8


def test_consistent_estimator_keeps_armature_nonnegative():
    pytest.importorskip("cvxpy")
    spec = GEARED
    base = closed_form_base(spec, armature=True)
    d = D.exact_data(spec, random_fourier(default_bounds(spec), seed=0), 2.5, 40.0)
    rows = D.build_rows(spec, base, d)
    # noise-free: the truth is feasible, so the constrained optimum is the truth
    est = consistent(rows.W, rows.y, base)
    # the interior-point solver stops short of the b, f_c >= 0 boundary the truth sits on: measured <= 1.0e-5 absolute
    # here, 2.2e-5 on planar3r without armature (the same solver tolerance, not the armature columns); I_a2 3e-7
    assert np.max(np.abs(est.beta - base.values())) <= 1e-4
    ia = [k for k, kind in enumerate(base.full.kinds) if kind == "Ia"]
    rng = np.random.default_rng(4)
    negative_ols = 0
    for _ in range(6):
        y = rows.y + rng.normal(0.0, 5.0, rows.y.shape)  # heavy noise
        est = consistent(rows.W, y, base)
        assert np.all(est.theta[ia] >= -1e-8), est.theta[ia]  # I_a >= 0 to the solver's tolerance
        negative_ols += np.any(ols(rows.W, y).beta[[base.symbols.index("Ia2"), base.symbols.index("Ia3")]] < 0)
    assert negative_ols > 0  # the constraint was needed


def test_cli_identifies_planar3r_geared(tmp_path, capsys):
    code = main(["identify", "planar3r-geared", "--engine", "mujoco", "--no-optimise", "--duration", "2.5",
                 "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    res = json.loads((tmp_path / "identify.json").read_text())
    by = {p["symbol"]: p for p in res["parameters"]}
    assert by["Ia2"]["true"] == 0.03 and by["Ia3"]["true"] == 0.01
    for s in ("Ia2", "Ia3"):
        assert by[s]["estimate"] == pytest.approx(by[s]["true"], rel=1e-6) and by[s]["inside_interval"]
    assert by["ZZ1R"]["name"].endswith("+ Ia1")
    # its effort limits saturate the tracking torque; the data hold the applied torque and the note says so
    assert any("effort limits saturated" in n for n in res["notes"])
    assert "note: the effort limits saturated the tracking torque" in out


def test_csv_from_a_simulated_run_identifies_the_armature(tmp_path):
    """The filtered path (a measured record: q̈ by filtered differentiation) with the diag(q̈) columns."""
    d = D.simulate(ARM2R, "mujoco-rk4", random_fourier(default_bounds(ARM2R), seed=0), 5.0, 1e-3)
    csv = tmp_path / "run.csv"
    D.write_csv(csv, D.resample(d, 1000.0))
    res = identify(ARM2R, csv=csv)
    assert res.rows.model == "filtered" and res.base.symbols[-1] == "Ia2"
    truth = closed_form_base(ARM2R, armature=True).values()
    keep = [k for k, s in enumerate(res.base.symbols) if s[:2] in ("ZZ", "MX")]
    # filtered differentiation of a 1-kHz record, as planar2r's CSV test (<= 1e-3 there; measured <= 7.1e-5 here)
    rel = np.abs(res.est.beta[keep] - truth[keep]) / truth[keep]
    assert np.max(rel) <= 1e-3, dict(zip(np.array(res.base.symbols)[keep], rel))
    # Ia2's column is ZZ2R's in joint 2's row (only joint 1's row tells them apart), so its error is of ZZ2R's
    # absolute size: the same 1e-3, of the joint-2 inertia ZZ2R + Ia2 that row sees (measured 1.3e-4 of it, 1.2e-3
    # of Ia2 itself)
    ia, zz = res.base.symbols.index("Ia2"), res.base.symbols.index("ZZ2R")
    assert abs(res.est.beta[ia] - truth[ia]) <= 1e-3 * (truth[ia] + truth[zz])


def test_compare_identify_on_an_arm_with_armature(tmp_path, capsys):
    """compare --identify: PyBullet is unsupported in the comparison (no armature) and so not identified; MuJoCo's
    own data give the spec's base parameters, Ia2 and Ia3 among them."""
    if "pybullet" not in available_engines():
        pytest.skip("pybullet not installed")
    main(["compare", "planar3r-geared", "--engines", "mujoco,pybullet", "--identify", "--duration", "0.2",
          "--states", "20", "--jobs", "1", "--no-plots", "--quiet", "--out", str(tmp_path)])
    data = json.loads((tmp_path / "identification.json").read_text())
    assert [p["symbol"] for p in data["base_parameters"]][-2:] == ["Ia2", "Ia3"]
    by = {e["engine"]: e for e in data["engines"]}
    assert set(by) == {"mujoco"} and by["mujoco"]["moved"] == [] and by["mujoco"]["max_relative_error"] <= 1e-6
