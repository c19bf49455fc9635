"""The compiled spatial kernels (crossdyn.spatial.kernels, through crossdyn.spatial.fast) against the NumPy path,
and the NumPy path's dtype-generic arithmetic (complex steps).

* Compiled and NumPy RNEA, CRBA and ABA agree to ≤ 1e-13 relative (to the largest entry of the NumPy result, or
  1) on real robot files — example-robot-data's UR5 and Panda, pybullet_data's kuka_iiwa, robosuite's Panda MJCF —
  a DH preset (``scara``) and random trees with prismatic joints, anchors and armature; single states and batches,
  with and without armature, with another gravity.  (Measured: ~1e-16.)
* The NumPy path is what ``crossdyn.spatial.fast`` calls without numba: the fallback functions are the NumPy ones,
  called directly here, and ``CROSSDYN_NUMBA=0`` switches the compiled kernels off in a fresh process.
* Complex step through the generic RNEA: Im τ(q, q̇, q̈ + i h e_j) / h = M e_j (CRBA) to ≤ 1e-12 relative on the UR5
  (h = 1e-30: no subtraction, so exact to round-off); and through the potential energy, Im U(q + i h e_j) / h =
  G_j (RNEA).  Complex inputs never reach the kernels (``fast`` hands them to the NumPy path).
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import crossdyn.spatial as sp
from crossdyn.models import get_preset
from crossdyn.robots import read_robot
from crossdyn.spatial import fast
from robot_files import erd_panda_urdf, erd_ur5_urdf, pybullet_iiwa_urdf, robosuite_xml
from spatial_models import random_model

ROBOTS = {
    "erd_ur5": lambda: read_robot(erd_ur5_urdf()),
    "pybullet_iiwa": lambda: read_robot(pybullet_iiwa_urdf()),
    "erd_panda": lambda: read_robot(erd_panda_urdf()),
    "robosuite_panda": lambda: read_robot(robosuite_xml("panda")),
    "scara": lambda: get_preset("scara", spatial=True).to_robot_model(),
    "random_tree": lambda: random_model(3, 7, tree=True),
    "random_chain": lambda: random_model(2, 6),
}
RTOL = 1e-13


def _states(n: int, count: int = 12, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-np.pi, np.pi, (count, n)), rng.uniform(-3, 3, (count, n)), rng.uniform(-20, 20, (count, n))


def _close(a, b) -> float:
    b = np.asarray(b)
    return float(np.max(np.abs(np.asarray(a) - b)) / max(1.0, float(np.max(np.abs(b)))))


needs_numba = pytest.mark.skipif(not fast.AVAILABLE, reason="numba is not installed (pip install 'crossdyn[numba]')")


@needs_numba
@pytest.mark.parametrize("name", sorted(ROBOTS))
@pytest.mark.parametrize("armature", [True, False])
def test_compiled_equals_numpy(name, armature):
    model = ROBOTS[name]()
    Q, QD, X = _states(model.n)
    checks = {
        "rnea": (fast.rnea(model, Q, QD, X, armature), sp.rnea(model, Q, QD, X, armature)),
        "crba": (fast.crba(model, Q, armature), sp.crba(model, Q, armature)),
        "aba": (fast.aba(model, Q, QD, X, armature), sp.aba(model, Q, QD, X, armature)),
        "G": (fast.gravity_torque(model, Q), sp.gravity_torque(model, Q)),
        "bias": (fast.bias(model, Q, QD), sp.bias(model, Q, QD)),
        "rnea g": (fast.rnea(model, Q, QD, X, armature, gravity=[1.0, -2.0, 3.0]),
                   sp.rnea(model, Q, QD, X, armature, gravity=[1.0, -2.0, 3.0])),
    }
    for k in range(len(Q)):  # single states: the one-state kernels
        checks[f"rnea {k}"] = (fast.rnea(model, Q[k], QD[k], X[k], armature), sp.rnea(model, Q, QD, X, armature)[k])
        checks[f"crba {k}"] = (fast.crba(model, Q[k], armature), sp.crba(model, Q, armature)[k])
        checks[f"aba {k}"] = (fast.aba(model, Q[k], QD[k], X[k], armature), sp.aba(model, Q, QD, X, armature)[k])
    for key, (compiled, numpy_path) in checks.items():
        assert np.shape(compiled) == np.shape(numpy_path), key
        assert _close(compiled, numpy_path) <= RTOL, (key, _close(compiled, numpy_path))


@needs_numba
def test_the_comparison_can_fail():
    """A kernel fed another model's constants differs by far more than the tolerance: the check above can fail."""
    model, other = ROBOTS["random_chain"](), random_model(7, 6)
    Q, QD, X = _states(model.n)
    assert _close(fast.aba(other, Q, QD, X), sp.aba(model, Q, QD, X)) > 1e-3


def test_fallback_is_the_numpy_path():
    """What ``fast`` returns without numba (and for complex inputs) is the NumPy function's result itself."""
    model = ROBOTS["erd_ur5"]()
    Q, QD, X = _states(model.n)
    Qc = Q + 1e-30j
    assert np.array_equal(fast.rnea(model, Qc, QD, X), sp.rnea(model, Qc, QD, X))
    assert np.array_equal(fast.crba(model, Qc), sp.crba(model, Qc))
    assert np.array_equal(fast.aba(model, Qc, QD, X), sp.aba(model, Qc, QD, X))
    assert np.iscomplexobj(fast.aba(model, Qc[0], QD[0], X[0]))
    with pytest.raises(ValueError, match="expected shape"):
        fast.aba(model, Q[:, :3], QD, X)  # a misfit goes to the NumPy path, which names it


def test_without_numba_fast_runs_the_numpy_path():
    code = ("import numpy as np; from crossdyn.spatial import fast, kernels; import crossdyn.spatial as sp; "
            "from crossdyn.models import get_preset; m = get_preset('scara', spatial=True).to_robot_model(); "
            "q = np.linspace(-1, 1, m.n); assert not fast.AVAILABLE and kernels.numba is None; "
            "assert np.array_equal(fast.aba(m, q, q, q), sp.aba(m, q, q, q)); print('ok')")
    env = dict(os.environ, CROSSDYN_NUMBA="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_complex_step_through_rnea_gives_the_mass_matrix():
    """∂τ/∂q̈ by complex step (h = 1e-30) through the generic RNEA is M(q) from the CRBA to 1e-12 relative."""
    model = ROBOTS["erd_ur5"]()
    n, h = model.n, 1e-30
    Q, QD, X = _states(n, count=4, seed=3)
    for q, qd, qdd in zip(Q, QD, X, strict=True):
        J = np.array([np.imag(sp.rnea(model, q, qd, qdd + 1j * h * np.eye(n)[j])) / h for j in range(n)]).T
        M = sp.crba(model, q)
        assert np.max(np.abs(J - M)) <= 1e-12 * np.max(np.abs(M))
        assert np.max(np.abs(J - M - 1e-6)) > 1e-12 * np.max(np.abs(M))  # the check can fail


def test_complex_step_through_the_joint_angles():
    """q itself complex (sines, cosines, transforms, batched): Im U(q + i h e_j) / h = G_j(q), and the complex
    step of M(q) matches central differences to their own error."""
    model = ROBOTS["erd_ur5"]()
    n, h = model.n, 1e-30
    q = _states(n, count=1, seed=5)[0][0]
    steps = q + 1j * h * np.eye(n)  # row j: q + i h e_j, a batch
    G = np.imag(sp.potential_energy(model, steps)) / h
    assert _close(G, sp.gravity_torque(model, q)) <= 1e-12
    dM = np.imag(sp.crba(model, steps)) / h
    e = 1e-6
    central = np.array([(sp.crba(model, q + e * np.eye(n)[j]) - sp.crba(model, q - e * np.eye(n)[j])) / (2 * e)
                        for j in range(n)])
    assert np.max(np.abs(dM - central)) <= 1e-8 * max(1.0, np.max(np.abs(dM)))


@needs_numba
@pytest.mark.parametrize("name", ["erd_ur5", "pybullet_iiwa", "erd_panda", "robosuite_panda", "scara"])
def test_the_references_that_use_the_kernels_equal_the_numpy_path(name):
    """Where the kernels run: the robot-file comparison's DOP853 reference over 30 held intervals (its right-hand
    side, :func:`crossdyn.robotcompare.runs.forward_dynamics`) and audit's M, G, C·q̇, ID — against the same
    computations on the NumPy path, ≤ 1e-13 relative."""
    from crossdyn.analytic.integrators import reference_step
    from crossdyn.audit.enginediff import reference, sample_states
    from crossdyn.robotcompare import runs

    model = ROBOTS[name]()
    b = np.array([j.damping for j in model.joints])
    Q, QD, X = _states(model.n, count=30, seed=7)
    taus = 0.1 * X
    fd = runs.forward_dynamics(model)
    numpy_fd = lambda q, qd, tau: sp.aba(model, q, qd, tau - b * qd)  # noqa: E731
    assert _close(fd(Q[0], QD[0], X[0]), numpy_fd(Q[0], QD[0], X[0])) <= RTOL
    assert _close(fd(Q, QD, X), numpy_fd(Q, QD, X)) <= RTOL
    dt = 1e-3
    run = runs.integrate(model, "reference", taus, Q[0], 0.1 * QD[0], dt)
    q, qd = Q[0], 0.1 * QD[0]
    for k in range(len(taus)):
        q, qd = reference_step(numpy_fd, q, qd, taus[k], dt, rtol=runs.REFERENCE_RTOL, atol=runs.REFERENCE_ATOL)
    assert run.status == "ok" and _close(run.q[-1], q) <= RTOL and _close(run.qd[-1], qd) <= RTOL
    s = sample_states(model, 20, 0)
    fast_ref = reference(model, s)
    G = sp.gravity_torque(model, s.Q)
    numpy_ref = {"M": sp.crba(model, s.Q), "G": G, "C·q̇": sp.bias(model, s.Q, s.QD) - G,
                 "ID": sp.rnea(model, s.Q, s.QD, s.QDD)}
    for key, value in numpy_ref.items():
        assert _close(fast_ref[key], value) <= RTOL, key
