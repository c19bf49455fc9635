"""The numba-compiled analytic steps (crossdyn.analytic.compiled) against the generated Python model.

Exactness: every state of the compiled RK4 / semi-implicit / explicit Euler step equals codegen's generated
step to 1e-14 relative (‖Δx‖∞ ≤ 1e-14 ‖x‖∞), at random states (hypothesis), on arms exercising every
term (gravity with both components, damping, Coulomb friction, armature, 1 to 5 links).  Without numba the
same kernel functions run as plain Python, so the algorithm is checked either way; the engine and fallback
tests check which path the engine takes.  No timings here (benchmarks/run.py measures them).
"""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from crossdyn.analytic import codegen, compiled
from crossdyn.engines import make_engine
from crossdyn.models import get_preset
from crossdyn.models.presets import rod
from crossdyn.models.spec import ArmSpec

ROOT = Path(__file__).resolve().parent.parent
FIVE = ArmSpec(links=tuple(rod(0.3 + 0.1 * i, 1.0 + 0.2 * i, damping=0.05 * i, friction=0.02 * (i % 2))
                           for i in range(5)), name="five")
ARMS = [get_preset("planar2r"), get_preset("planar3r"), get_preset("planar3r-general"),
        get_preset("planar3r-geared"), get_preset("planar3r-friction"),
        dataclasses.replace(get_preset("planar3r"), gravity=(3.0, -9.81, 0.0)),
        ArmSpec(links=(rod(0.5, 2.0, damping=0.1),), name="one"), FIVE]
GENERATED = {"rk4": "rk4", "semi-implicit-euler": "semi_implicit_euler", "euler": "euler"}
angle = st.floats(-3.2, 3.2)
rate = st.floats(-20.0, 20.0)


def _both(spec: ArmSpec, scheme: str, q, qd, tau, dt=1e-3):
    n = spec.n
    x = np.array(list(q) + list(qd), dtype=float)
    compiled.STEPS[scheme](x, compiled.pack(spec), n, dt, compiled.workspace(n), np.array(tau, dtype=float))
    q2, qd2 = getattr(codegen.compile_model(spec), GENERATED[scheme])(tuple(q), tuple(qd), list(tau), dt)
    return x, np.array(list(q2) + list(qd2))


@pytest.mark.parametrize("scheme", list(GENERATED))
@pytest.mark.parametrize("spec", ARMS, ids=lambda s: s.name)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_compiled_step_equals_the_generated_step(spec, scheme, data):
    n = spec.n
    q = data.draw(st.lists(angle, min_size=n, max_size=n))
    qd = data.draw(st.lists(rate, min_size=n, max_size=n))
    tau = data.draw(st.lists(st.floats(-50.0, 50.0), min_size=n, max_size=n))
    got, want = _both(spec, scheme, q, qd, tau)
    assert np.max(np.abs(got - want)) <= 1e-14 * np.max(np.abs(want))


def test_compiled_batch_equals_row_by_row():
    spec = get_preset("planar3r-friction")
    rng = np.random.default_rng(3)
    X = np.hstack([rng.uniform(-3, 3, (20, 3)), rng.uniform(-5, 5, (20, 3))])
    T = rng.uniform(-2, 2, (20, 3))
    rows = X.copy()
    compiled._rk4_batch(X, T, compiled.pack(spec), 3, 1e-3, compiled.workspace(3))
    for j in range(20):
        _, want = _both(spec, "rk4", rows[j, :3], rows[j, 3:], T[j])
        assert np.max(np.abs(X[j] - want)) <= 1e-14 * np.max(np.abs(want))


@pytest.mark.parametrize("name", ["analytic", "analytic-euler", "analytic-explicit-euler"])
def test_engine_trajectory_equals_the_generated_model(name):
    """200 steps through the engine (compiled path where numba is installed) against codegen's steps."""
    spec = get_preset("planar3r-friction")
    scheme = {"analytic": "rk4", "analytic-euler": "semi_implicit_euler", "analytic-explicit-euler": "euler"}[name]
    step = getattr(codegen.compile_model(spec), scheme)
    q, qd = (-1.3, 0.2, -0.1), (0.5, 0.0, -0.4)
    with make_engine(name, spec, 1e-3) as eng:
        eng.reset(np.array(q), np.array(qd))
        for k in range(200):
            tau = np.array([0.5 * np.sin(0.01 * k), -0.2, 0.1])
            eng.step(tau)
            q, qd = step(q, qd, tau.tolist(), 1e-3)
            got_q, got_qd = eng.state()
            want = np.array(q + qd)
            assert np.max(np.abs(np.concatenate([got_q, got_qd]) - want)) <= 1e-14 * np.max(np.abs(want))
        assert eng.config()["compiled_numba"] is compiled.AVAILABLE


_FALLBACK = """
import sys, json
sys.modules["numba"] = None  # numba missing for real: `import numba` raises ImportError
import numpy as np
from crossdyn.analytic import compiled
from crossdyn.engines import make_engine
from crossdyn.models import get_preset
eng = make_engine("analytic", get_preset("planar3r"), 1e-3)
eng.reset(np.array([-1.3, 0.2, -0.1]), np.zeros(3))
for _ in range(50):
    eng.step(np.array([0.5, -0.2, 0.1]))
q, qd = eng.state()
print(json.dumps({"available": compiled.AVAILABLE, "numba": eng.config()["compiled_numba"],
                  "x": q.tolist() + qd.tolist()}))
"""


def test_without_numba_the_engine_steps_with_the_generated_python():
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", _FALLBACK], capture_output=True, text=True, env=env, check=True,
                         cwd=ROOT)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["available"] is False and got["numba"] is False
    q, qd = (-1.3, 0.2, -0.1), (0.0, 0.0, 0.0)
    step = codegen.compile_model(get_preset("planar3r")).rk4
    for _ in range(50):
        q, qd = step(q, qd, [0.5, -0.2, 0.1], 1e-3)
    assert got["x"] == list(q + qd)  # the generated Python itself: the same floats


@pytest.mark.parametrize("method", list(GENERATED))
@pytest.mark.parametrize("spec", [get_preset("planar3r"), get_preset("planar3r-friction"), FIVE],
                         ids=lambda s: s.name)
def test_batched_generated_step_equals_the_numpy_model_and_the_float_model(spec, method):
    """simulate() on an (N, n) batch of an ArmSpec (the generated model on (N,) arrays) against the (N, n) NumPy
    model (simulate with an explicit fd: another formulation, equal to rounding; one step from each state) and against the float model column
    by column: 1e-14 relative per state (‖Δx‖∞ ≤ 1e-14 ‖x‖∞ per state and step)."""
    from crossdyn.analytic import forward_dynamics
    from crossdyn.analytic.integrators import simulate

    rng = np.random.default_rng(7)
    N, n = 200, spec.n
    q0, qd0 = rng.uniform(-3, 3, (N, n)), rng.uniform(-4, 4, (N, n))
    tau = lambda t, q, qd: np.sin(5 * t) * np.ones_like(q) - 0.3 * qd  # noqa: E731
    fast = simulate(spec, q0, qd0, tau, dt=1e-3, duration=0.05, method=method)
    # one step from each state (over many steps two formulations' rounding differences grow with the motion)
    one = simulate(spec, q0, qd0, tau, dt=1e-3, duration=1e-3, method=method)
    numpy = simulate(spec, q0, qd0, tau, dt=1e-3, duration=1e-3, method=method,
                     fd=lambda q, qd, t: forward_dynamics(spec, q, qd, t))
    assert np.array_equal(one.q, fast.q[:2]) and np.array_equal(one.qd, fast.qd[:2])
    for got, want in ((one.q, numpy.q), (one.qd, numpy.qd)):
        scale = np.max(np.abs(want), axis=-1, keepdims=True)
        assert np.all(np.abs(got - want) <= 1e-14 * scale)
    step = getattr(codegen.compile_model(spec), GENERATED[method])
    for i in (0, 11, 23):
        q, qd = tuple(q0[i]), tuple(qd0[i])
        for k in range(50):
            q, qd = step(q, qd, list(tau(k * 1e-3, np.array(q), np.array(qd))), 1e-3)
            x, want = np.concatenate([fast.q[k + 1, i], fast.qd[k + 1, i]]), np.array(q + qd)
            assert np.max(np.abs(x - want)) <= 1e-14 * np.max(np.abs(want))


def test_engine_rejects_a_torque_of_the_wrong_length():
    """The compiled kernel's loops do not check bounds: it checks len(tau) = n first (ValueError; the generated
    Python raises IndexError by itself)."""
    with make_engine("analytic", get_preset("planar3r"), 1e-3) as eng:
        eng.reset(np.zeros(3), np.zeros(3))
        with pytest.raises((ValueError, IndexError)):
            eng.step(np.zeros(2))
