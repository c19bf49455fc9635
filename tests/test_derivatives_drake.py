"""Drake's derivatives in the ``derivatives`` group (issue 41): AutoDiffXd on the Drake adapters' own continuous plants
(:mod:`crossdyn.derivatives.drake`, judged by the group's :class:`~crossdyn.comparison.groups.derivatives.DrakeDerivatives`)
against crossdyn's complex step, with the analytical tolerance.

* fast: the planar adapter's plant of a damped arm and the file adapter's plant of its URDF PASS, the damping
  mattering (an undamped plant FAILs the blocks b enters); ``drake-rk4`` follows the model's damping and ``drake``
  Drake's reading of the file (a model whose b differs from the file's tells them apart); seeded faults (a
  transposed block) and a NaN FAIL naming the block; ``drake-discrete`` is not offered;
* slow: the must-hold commands ``compare planar3r --derivatives --engines drake`` and the example-robot-data UR5 URDF.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from crossdyn.comparison.groups import derivatives as dg
from crossdyn.models.presets import PRESETS
from crossdyn.status import Verdict

pytest.importorskip("pydrake")

DAMPING = (0.4, 0.25, 0.1)
"""Viscous damping (N m s/rad) given to planar3r's joints: large enough that dropping it moves ∂q̈/∂q̇ by ~b/M_ii,
far above the analytical tolerance (~1e-13 of the block)."""
DAMPED_BLOCKS = ("∂q̈/∂q", "∂q̈/∂q̇", "∂τ/∂q̇")
"""The blocks a change of b moves: ∂τ/∂q̇ and ∂q̈/∂q̇ by diag(b) and −M⁻¹ diag(b); ∂q̈/∂q through q̈ itself
(−M⁻¹ (∂M/∂q q̈ + …) at a q̈ that depends on b).  ∂τ/∂q and ∂τ/∂q̈ are taken at the reference's q̈, ∂q̈/∂τ = M⁻¹."""


def _damped_spec():
    spec = PRESETS["planar3r"]()
    return replace(spec, links=tuple(replace(lk, damping=b) for lk, b in zip(spec.links, DAMPING, strict=True)))


def _states(n: int, N: int = 4):
    rng = np.random.default_rng(7)
    return rng.uniform(-2, 2, (N, n)), rng.uniform(-2, 2, (N, n)), rng.uniform(-5, 5, (N, n))


def _urdf_model(spec, folder: Path):
    """The RobotModel crossdyn reads of the planar adapter's URDF of ``spec`` (a robot file with damping)."""
    from crossdyn.models.urdf import to_urdf
    from crossdyn.robots import read_robot

    path = folder / "arm.urdf"
    path.write_text(to_urdf(spec))
    return read_robot(path)


def _failed(m) -> list[str]:
    return [b["label"] for b in m.values["blocks"].values() if b["verdict"] == "FAIL"]


def test_planar_adapter_plant_of_a_damped_arm_passes_and_damping_matters(tmp_path):
    from crossdyn.derivatives.engines import file_model

    spec = _damped_spec()
    model = file_model(spec, tmp_path)
    assert [j.damping for j in model.joints] == list(DAMPING)
    states = _states(3)
    m = dg.derivatives_group("drake", model, *states, 1e-3, source=dg.DrakeDerivatives("drake", spec))
    assert m.verdict is Verdict.PASS, m.values.get("failed_because")
    assert m.values["worst_ratio"] < 1.0 and m.checks == 6 * 3 * 3 * 4
    assert "planar adapter" in m.values["blocks"]["dqdd_dq"]["method"]
    undamped = dg.derivatives_group("drake", model, *states, 1e-3,
                                    source=dg.DrakeDerivatives("drake", PRESETS["planar3r"]()))
    assert _failed(undamped) == list(DAMPED_BLOCKS)


def test_torque_past_the_effort_limits_is_not_clamped(tmp_path):
    """planar3r-geared's actuators clamp τ to (2, 0.8, 0.16) N m and carry its armature: at |τ| = 3–5 N m every block
    still PASSes (τ enters on the applied generalized force port; on the actuation port Drake clamps it and ∂q̈/∂τ
    comes out 0, measured)."""
    from crossdyn.derivatives.engines import file_model

    spec = PRESETS["planar3r-geared"]()
    model = file_model(spec, tmp_path)
    Q, QD, _ = _states(3)
    TAU = np.where(np.arange(len(Q))[:, None] % 2 == 0, 1.0, -1.0) * np.array([5.0, 4.0, 3.0])
    m = dg.derivatives_group("drake", model, Q, QD, TAU, 1e-3, source=dg.DrakeDerivatives("drake", spec))
    assert m.verdict is Verdict.PASS, m.values.get("failed_because")


def test_file_adapter_damping_drake_reads_the_file_rk4_the_model(tmp_path):
    spec = _damped_spec()
    model = _urdf_model(spec, tmp_path)
    states = _states(3)
    for engine in ("drake", "drake-rk3", "drake-rk4"):  # the model's b equals the file's: all three PASS
        m = dg.derivatives_group(engine, model, *states, 1e-3)
        assert m.verdict is Verdict.PASS, (engine, m.values.get("failed_because"))
    # a model whose b is twice the file's: crossdyn's RK4 applies the model's b, Drake's integrators the file's
    doubled = replace(model, joints=tuple(replace(j, damping=2 * j.damping) for j in model.joints))
    assert dg.derivatives_group("drake-rk4", doubled, *states, 1e-3).verdict is Verdict.PASS
    m = dg.derivatives_group("drake", doubled, *states, 1e-3)
    assert _failed(m) == list(DAMPED_BLOCKS)
    assert m.values["failed_because"].startswith("drake ∂q̈/∂q entry (")


class TransposedDrake(dg.DrakeDerivatives):
    """Seeded fault: ∂q̈/∂q returned transposed."""

    def blocks(self, model, Q, QD, TAU, QDD):
        d = super().blocks(model, Q, QD, TAU, QDD)
        d.dqdd_dq[:] = np.swapaxes(d.dqdd_dq, 1, 2).copy()
        return d


class NaNDrake(dg.DrakeDerivatives):
    """A NaN written into ∂τ/∂q̇ at state 1 (an engine returning a NaN gradient)."""

    def blocks(self, model, Q, QD, TAU, QDD):
        d = super().blocks(model, Q, QD, TAU, QDD)
        d.dtau_dqd[1, 2, 0] = np.nan
        return d


def test_seeded_fault_and_nan_fail_naming_the_block(tmp_path):
    spec = _damped_spec()
    model = _urdf_model(spec, tmp_path)
    states = _states(3)
    m = dg.derivatives_group("drake", model, *states, 1e-3, source=TransposedDrake())
    assert m.verdict is Verdict.FAIL and _failed(m) == ["∂q̈/∂q"]
    assert m.values["failed_because"].startswith("drake ∂q̈/∂q entry (")
    m = dg.derivatives_group("drake", model, *states, 1e-3, source=NaNDrake())
    assert m.verdict is Verdict.FAIL and _failed(m) == ["∂τ/∂q̇"]
    assert "drake ∂τ/∂q̇ entry (3, 1) at state 1: not finite" in m.values["failed_because"]


def test_offered_variants_are_the_continuous_plants():
    assert {e for e in dg.OFFERED if e.startswith("drake")} == {
        "drake", "drake-rk2", "drake-rk3", "drake-rk4", "drake-rk5", "drake-euler", "drake-implicit"}
    assert not dg.offers("drake-discrete")
    assert dg.DrakeDerivatives.for_planar("pinocchio", PRESETS["planar2r"]()) is None
    assert dg.DrakeDerivatives.for_planar("drake-rk5", PRESETS["planar2r"]()).spec is not None


@pytest.mark.slow  # two comparisons, ~35 s on 2 cores
def test_must_hold_planar3r_and_the_erd_ur5_urdf(tmp_path):
    import robot_files as rf

    from crossdyn.cli import main

    for key, arm, n in (("p", "planar3r", 3), ("u", str(rf.erd_ur5_urdf()), 6)):
        main(["compare", arm, "--derivatives", "--engines", "drake", "--out", str(tmp_path / key), "--no-plots",
              "--quiet"])
        d = json.loads((tmp_path / key / "summary.json").read_text())["engines"]["drake"]["derivatives"]
        assert d["verdict"] == "PASS", d.get("failed_because")
        assert d["checks"] == 6 * n * n * dg.MAX_STATES and d["worst_ratio"] < 1.0
