"""The forward-dynamics tolerance of a robot comparison, propagated from the M and ID tolerances through M⁻¹
(:mod:`crossdyn.comparison.groups.fd_propagated`).

* The bound is a bound: random M and ID errors within their tolerances never move q̈ by more than
  ‖M⁻¹‖_∞ (ε_τ + ε_M ‖q̈‖₁) (first order; checked on ill-conditioned M with a light body).
* example-robot-data's Panda in PyBullet: M and ID inside their tolerances, FD off by 2.2e-8 rad/s², above the
  planar rule's 1e-8 (a FAIL before) but inside what M and ID allow (‖M⁻¹‖_∞ up to 273 kg⁻¹ through the 0.015 kg
  fingers): PASS, the error and both tolerances reported.
* A real fault still FAILs FD: 1 % more mass on one link (the 0.015 kg finger, where the propagated tolerance is
  loosest, and link 4), written into a copy of the file that the engine loads while the reference keeps the original.
"""
from __future__ import annotations


import numpy as np
import pytest

pytestmark = pytest.mark.slow  # the whole module: keeps make test within its 7-min budget (CI runs it)

from crossdyn.comparison.references import StaticStates
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.comparison.groups.fd_propagated import propagated, propagated_forward_dynamics_group
from robot_files import erd_panda_urdf

GROUPS = ("inverse_dynamics", "mass_matrix", "forward_dynamics")


def _spd(rng, n: int, light: float) -> np.ndarray:
    A = rng.normal(size=(n, n))
    M = A @ A.T + n * np.eye(n)
    M[-1, :] *= light  # a light last body: a small diagonal entry and coupling, cond(M) large
    M[:, -1] *= light
    return M


@pytest.mark.parametrize("light", [1.0, 0.05, 0.005])
def test_the_propagated_tolerance_bounds_fd_errors_that_m_and_id_errors_within_tolerance_make(light):
    rng = np.random.default_rng(int(1 / light))
    n, eps_tau, eps_M = 7, 1e-8, 1e-9
    worst = 0.0
    for _ in range(200):
        M = _spd(rng, n, light)
        qdd = rng.uniform(-10, 10, n)
        h = rng.normal(size=n)
        tau = M @ qdd + h
        dM = rng.uniform(-eps_M, eps_M, (n, n))
        dM = 0.5 * (dM + dM.T)
        dh = rng.uniform(-eps_tau, eps_tau, n)
        qdd_e = np.linalg.solve(M + dM, tau - h - dh)
        ratio = np.max(np.abs(qdd_e - qdd)) / propagated(M[None], qdd_e[None], eps_tau, eps_M)[0]
        worst = max(worst, float(ratio))
    assert worst <= 1.0 + 1e-6
    assert worst > 1e-3  # not vacuous: random errors reach a visible part of it


def _compare(engines, files=None, states=20):
    from crossdyn.robotcompare import RobotCompareOptions, compare_robot

    return compare_robot(erd_panda_urdf(), RobotCompareOptions(engines=engines, duration=0.005, n_states=states),
                         files)


def test_panda_in_pybullet_is_judged_consistently_with_its_m_and_id():
    pytest.importorskip("pybullet")
    pytest.importorskip("pinocchio")
    s = _compare(("pinocchio", "pybullet"), states=50).summary
    for engine in ("pinocchio", "pybullet"):
        for group in GROUPS:
            assert s["engines"][engine][group]["verdict"] == "PASS", (engine, group, s["engines"][engine][group])
    fd = s["engines"]["pybullet"]["forward_dynamics"]
    assert fd["max_abs_error"] > fd["tolerance_base"]  # the planar rule alone would FAIL it (measured 2.2e-8 > 1e-8)
    assert fd["max_abs_error"] < fd["tolerance_bound"]
    assert fd["max_inverse_mass_norm"] > 100  # the light fingers (measured 273 kg^-1)
    assert "M⁻¹" in fd["tolerance_origin"]
    assert s["engines"]["pinocchio"]["forward_dynamics"]["max_abs_error"] < fd["tolerance_base"]


@pytest.mark.parametrize("line_mass", ["0.015", "3.587895"])
def test_one_percent_more_mass_on_one_link_fails_forward_dynamics(tmp_path, line_mass):
    pytest.importorskip("pinocchio")
    from crossdyn.robots import read_robot

    text = erd_panda_urdf().read_text()
    assert f'<mass value="{line_mass}"/>' in text
    heavier = f"{float(line_mass) * 1.01!r}"
    path = tmp_path / "panda_heavier.urdf"
    path.write_text(text.replace(f'<mass value="{line_mass}"/>', f'<mass value="{heavier}"/>', 1))
    model = read_robot(path)
    s = _compare(("pinocchio",), files=lambda spec: model).summary
    fd = s["engines"]["pinocchio"]["forward_dynamics"]
    assert fd["verdict"] == "FAIL", fd
    assert fd["max_abs_error"] > 10 * fd["tolerance_max"]
    assert any(f.startswith("pinocchio: forward_dynamics") for f in s["failures"])


def test_past_the_bound_it_is_inconclusive_not_pass():
    """An error inside the propagated tolerance but above the physical bound (1e-6 of max(1, max|q̈|)) cannot be
    judged: INCONCLUSIVE, with the reason."""
    M = np.diag([1.0, 1e-6])[None]  # a body of 1e-6 kg: ‖M⁻¹‖ = 1e6
    qdd = np.array([[1.0, 1.0]])
    st = StaticStates(np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)), M,
                      qdd)
    tol = Tolerances()
    result = propagated_forward_dynamics_group(st, qdd + np.array([[0.0, 5e-6]]), tol, torque_scale=10.0)
    assert result.values["verdict"] == "INCONCLUSIVE" and "ill-conditioned" in result.values["inconclusive_because"]
    assert propagated_forward_dynamics_group(st, qdd + np.array([[0.0, 1.0]]), tol, 10.0).values["verdict"] == "FAIL"
    assert propagated_forward_dynamics_group(st, qdd + np.array([[0.0, 1e-9]]), tol, 10.0).values["verdict"] == "PASS"
