"""Joint trajectories and inverse kinematics, against independent paths (textbook quintic, forward kinematics)."""
import numpy as np
import pytest

from crossdyn.analytic.kinematics import end_effector
from crossdyn.inputs.trajectories import (
    cubic, ik_2r, ik_3r, inverse_kinematics, joint_waypoints, quintic, quintic_coefficients,
)
from crossdyn.models import get_preset


def _poly(c, t):
    """Σ c_k t^k and its first two derivatives (c of shape (6, n))."""
    k = np.arange(len(c))
    tt = np.asarray(t, float)[:, None, None]
    powers = lambda p: np.where(k[:, None] >= p, tt ** np.maximum(k[:, None] - p, 0), 0.0)  # noqa: E731
    fac1 = k[:, None]
    fac2 = (k * (k - 1))[:, None]
    return ((powers(0) * c).sum(1), (powers(1) * fac1 * c).sum(1), (powers(2) * fac2 * c).sum(1))


# ------------------------------------------------------------------------------------------ quintic / cubic
def test_quintic_boundary_conditions_hold():
    q0, qf = np.array([-1.5, 0.2, 0.3]), np.array([-0.4, 1.1, -0.6])
    v0, vf, a0, af = np.array([0.5, 0, -1]), np.array([0, 0.3, 0.2]), np.array([1, -2, 0]), np.array([0, 0.5, -1])
    tr = quintic([0.2, 1.7], [q0, qf], v0=v0, vf=vf, a0=a0, af=af)
    for t, (q, v, a) in [(0.2, (q0, v0, a0)), (1.7, (qf, vf, af))]:
        qq, vv, aa = tr(t)
        assert np.allclose(qq, q, atol=1e-12, rtol=0)
        assert np.allclose(vv, v, atol=1e-11, rtol=0)
        assert np.allclose(aa, a, atol=1e-10, rtol=0)


def test_two_point_quintic_equals_textbook_polynomial():
    """The spline path (scipy B-spline) against the closed-form quintic coefficients."""
    q0, qf, T = np.array([0.1, -0.3]), np.array([1.2, 0.8]), 1.3
    bc = dict(v0=[0.4, -0.1], vf=[0.0, 0.6], a0=[1.0, 0.0], af=[-0.5, 2.0])
    tr = quintic([0.0, T], [q0, qf], **bc)
    c = quintic_coefficients(q0, qf, T, **{k: np.array(v) for k, v in bc.items()})
    t = np.linspace(0, T, 101)
    q, v, a = tr.evaluate(t)
    qe, ve, ae = _poly(c, t)
    assert np.max(np.abs(q - qe)) < 1e-12
    assert np.max(np.abs(v - ve)) < 1e-11
    assert np.max(np.abs(a - ae)) < 1e-10
    # the textbook polynomial itself meets its boundary conditions
    assert np.allclose(_poly(c, [T])[0][0], qf, atol=1e-13)


def test_quintic_through_via_points_is_smooth():
    times = [0.0, 0.4, 1.0, 1.5]
    w = np.array([[0.0, 0.0], [0.5, -0.3], [0.2, 0.4], [1.0, 1.0]])
    tr = quintic(times, w, v0=0.1, af=-0.2)
    q, _, _ = tr.evaluate(times)
    assert np.allclose(q, w, atol=1e-12)
    eps = 1e-7
    for t in times[1:-1]:
        (ql, vl, al), (qr, vr, ar) = tr(t - eps), tr(t + eps)
        assert np.allclose(vl, vr, atol=1e-5) and np.allclose(al, ar, atol=1e-4)
    assert np.allclose(tr(0.0)[1], 0.1) and np.allclose(tr(1.5)[2], -0.2, atol=1e-9)
    # derivatives are derivatives: central differences of q and q̇
    t = np.linspace(0.05, 1.45, 29)
    h = 1e-5
    assert np.allclose((tr.evaluate(t + h)[0] - tr.evaluate(t - h)[0]) / (2 * h), tr.evaluate(t)[1], atol=1e-7)
    assert np.allclose((tr.evaluate(t + h)[1] - tr.evaluate(t - h)[1]) / (2 * h), tr.evaluate(t)[2], atol=1e-6)


def test_cubic_via_points_and_velocity_conditions():
    times = [0.0, 0.5, 1.2]
    w = np.array([[0.0], [1.0], [0.5]])
    tr = cubic(times, w, v0=0.3, vf=-0.2)
    q, v, _ = tr.evaluate(times)
    assert np.allclose(q, w, atol=1e-12)
    assert np.isclose(v[0, 0], 0.3) and np.isclose(v[-1, 0], -0.2)
    (_, vl, al), (_, vr, ar) = tr(0.5 - 1e-8), tr(0.5 + 1e-8)
    assert np.allclose(vl, vr, atol=1e-6) and np.allclose(al, ar, atol=1e-5)
    assert tr.degree == 3 and quintic(times, w).degree == 5


def test_outside_the_time_range_holds_the_end_positions():
    tr = quintic([0.0, 1.0], [[0.0, 1.0], [2.0, -1.0]])
    q, v, a = tr.evaluate([-0.5, 1.5])
    assert np.array_equal(q, [[0.0, 1.0], [2.0, -1.0]])
    assert not v.any() and not a.any()
    p = tr.params()
    assert p["kind"] == "quintic" and p["bc_end"]["acceleration"] == [0.0, 0.0]


@pytest.mark.parametrize("times, waypoints, match", [
    ([0.0, 1.0, 1.0], [[0], [1], [2]], "strictly increasing"),
    ([0.0], [[0]], "at least 2"),
    ([0.0, 1.0], [[0], [1], [2]], "one row per time"),
    ([0.0, np.nan], [[0], [1]], "finite"),
])
def test_bad_trajectory_input_is_rejected(times, waypoints, match):
    with pytest.raises(ValueError, match=match):
        quintic(times, waypoints)


def test_bad_boundary_condition_shape_is_rejected():
    with pytest.raises(ValueError, match="v0"):
        quintic([0, 1], [[0, 0], [1, 1]], v0=[1, 2, 3])


# ------------------------------------------------------------------------------------------ IK
@pytest.mark.parametrize("elbow, sign", [("positive", 1), ("negative", -1), (1, 1), (-1, -1)])
def test_2r_ik_round_trips_through_forward_kinematics(elbow, sign):
    spec = get_preset("planar2r")
    p = spec.params()
    rng = np.random.default_rng(1)
    q_true = rng.uniform(-np.pi, np.pi, (400, 2))
    targets = end_effector(p, q_true)  # reachable by construction (independent path: FK)
    q = ik_2r(1.0, 0.8, targets, elbow)
    assert np.max(np.abs(end_effector(p, q) - targets)) < 1e-12
    assert np.all(sign * q[:, 1] >= 0)
    # the branch matching the original elbow sign recovers the original angles (mod 2π)
    same = np.sign(q_true[:, 1]) == sign
    d = (q[same] - q_true[same] + np.pi) % (2 * np.pi) - np.pi
    assert np.max(np.abs(d)) < 1e-7


def test_both_2r_branches_differ_and_reach_the_same_point():
    target = np.array([1.1, -0.7])
    qa, qb = ik_2r(1.0, 0.8, target, "positive"), ik_2r(1.0, 0.8, target, "negative")
    p = get_preset("planar2r").params()
    assert np.allclose(end_effector(p, qa), target, atol=1e-13)
    assert np.allclose(end_effector(p, qb), target, atol=1e-13)
    assert np.isclose(qa[1], -qb[1]) and qa[1] > 0.1


@pytest.mark.parametrize("elbow", ["positive", "negative"])
def test_3r_ik_round_trips_position_and_orientation(elbow):
    spec = get_preset("planar3r")
    p = spec.params()
    rng = np.random.default_rng(2)
    q_true = rng.uniform(-np.pi, np.pi, (400, 3))
    targets, phi = end_effector(p, q_true), q_true.sum(1)
    q = ik_3r(1.0, 0.8, 0.6, targets, phi, elbow)
    assert np.max(np.abs(end_effector(p, q) - targets)) < 1e-12
    dphi = (q.sum(1) - phi + np.pi) % (2 * np.pi) - np.pi
    assert np.max(np.abs(dphi)) < 1e-12
    assert np.all((1 if elbow == "positive" else -1) * q[:, 1] >= 0)
    q_spec = inverse_kinematics(spec, targets[0], elbow, orientation=phi[0])
    assert np.allclose(q_spec, q[0])


def test_full_reach_is_reachable():
    q = ik_2r(1.0, 0.8, [1.8, 0.0])
    assert np.allclose(q, [0.0, 0.0], atol=1e-6)


def test_unreachable_targets_raise_a_clear_error():
    with pytest.raises(ValueError) as e:
        ik_2r(1.0, 0.8, [[1.0, 0.0], [2.0, 1.0]])
    msg = str(e.value)
    assert "(2, 1)" in msg and "2.23607" in msg and "[0.2, 1.8]" in msg
    with pytest.raises(ValueError, match=r"\(0.05, 0\).*\[0.2, 1.8\]"):
        ik_2r(1.0, 0.8, [0.05, 0.0])  # inside the inner hole
    with pytest.raises(ValueError, match=r"target \(x, y\) = \(2.3, 0\) m with orientation phi = 3.14159.*wrist"):
        ik_3r(1.0, 0.8, 0.6, [2.3, 0.0], np.pi)


def test_inverse_kinematics_dispatch_errors():
    with pytest.raises(ValueError, match="orientation"):
        inverse_kinematics(get_preset("planar3r"), [1.0, 0.5])
    with pytest.raises(ValueError, match="orientation"):
        inverse_kinematics(get_preset("planar2r"), [1.0, 0.5], orientation=0.3)
    with pytest.raises(ValueError, match="2R and 3R"):
        inverse_kinematics(get_preset("planar5r"), [1.0, 0.5])
    with pytest.raises(ValueError, match="elbow"):
        ik_2r(1.0, 0.8, [1.0, 0.5], elbow="up")


def test_cartesian_waypoints_become_a_trackable_joint_trajectory():
    spec = get_preset("planar2r")
    p = spec.params()
    # a circle around the base crosses the ±π seam of q1: via-points must be unwrapped
    ang = np.linspace(0, 2 * np.pi, 9)
    pts = 1.2 * np.stack([np.cos(ang), np.sin(ang)], axis=1)
    w = joint_waypoints(spec, pts, "negative")
    assert np.max(np.abs(np.diff(w, axis=0))) < np.pi
    tr = quintic(np.linspace(0, 2, len(pts)), w)
    q, _, _ = tr.evaluate(np.linspace(0, 2, len(pts)))
    assert np.max(np.abs(end_effector(p, q) - pts)) < 1e-12
