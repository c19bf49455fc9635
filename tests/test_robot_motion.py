"""Issue 38's default motion on robot files, in pieces (fast): PyBullet's URDF joint limits neutralised and switchable
back, the default motion staying inside a 7-dof file's limits, and the explicit-stepping stability prediction on
robosuite's Jaco (whose 1e-6 kg last link makes dt = 1 ms unstable).  The default ``compare`` on each corpus file is
in tests/test_robot_corpus_compare.py (slow)."""
from __future__ import annotations

import numpy as np
import pytest
import robot_files

from crossdyn.robots import read_robot
from crossdyn.robotcompare import runs


def _drive_past_limit(spec: str, model, steps: int = 150, dt: float = 1e-3):
    """Joint 4 of pybullet_data's kuka_iiwa started 0.05 rad below its upper limit (2.094 rad) at +3 rad/s, no torque:
    it crosses the limit after ~17 ms unless something stops it."""
    from crossdyn.engines.files import make_file_engine

    q0 = np.zeros(model.n)
    q0[3] = model.upper()[3] - 0.05
    qd0 = np.zeros(model.n)
    qd0[3] = 3.0
    taus = np.zeros((steps, model.n))
    engine = make_file_engine(spec, model, dt)
    try:
        run = runs.step_engine(engine, taus, q0, qd0, dt)
        config = engine.config()
    finally:
        engine.close()
    return run, runs.integrate(model, "semi-implicit-euler", taus, q0, qd0, dt), config


def test_pybullet_urdf_limits_off_by_default_and_back_with_the_knob():
    pytest.importorskip("pybullet")
    model = read_robot(robot_files.pybullet_iiwa_urdf())
    upper = model.upper()[3]
    off, replica, config = _drive_past_limit("pybullet", model)
    assert off.status == "ok" and off.q[:, 3].max() > upper + 0.2  # driven well past the file's limit
    assert np.max(np.abs(off.q - replica.q)) < 1e-9  # the same scheme on crossdyn's limitless model (measured 3e-12)
    assert config["joint_limits"].startswith("off")
    on, _, config_on = _drive_past_limit("pybullet@limits=true", model)
    assert on.q[:, 3].max() < upper + 0.01  # PyBullet's enforcement stops it at the limit
    assert np.max(np.abs(on.q - replica.q)) > 0.2  # and then it no longer agrees with the model
    assert "enforced" in config_on["joint_limits"]


def test_drake_discrete_plant_limits_off_by_default_and_back_with_the_knob():
    """Drake's discrete plant enforces the file's position limits while stepping (a continuous plant never does)."""
    pytest.importorskip("pydrake")
    model = read_robot(robot_files.pybullet_iiwa_urdf())
    upper = model.upper()[3]
    off, _, config = _drive_past_limit("drake@integrator=discrete", model)
    assert off.status == "ok" and off.q[:, 3].max() > upper + 0.2
    assert config["joint_limits"].startswith("off")
    on, _, _ = _drive_past_limit("drake@integrator=discrete@limits=true", model)
    assert on.q[:, 3].max() < upper + 0.01
