"""Joint trajectories (cubic and quintic splines through via-points) and planar 2R/3R inverse kinematics.

Trajectories
------------
:func:`cubic` and :func:`quintic` build a :class:`JointTrajectory`: one spline per
joint through the via-points ``q_k`` at times ``t_k`` (strictly increasing).

* cubic — C² cubic spline; boundary conditions: start and end velocity
  (``v0``, ``vf``; default 0).
* quintic — C⁴ quintic spline; boundary conditions: start and end velocity and
  acceleration (``v0``, ``vf``, ``a0``, ``af``; default 0).  With two points it is
  the textbook rest-to-rest (or any boundary state) quintic polynomial
  (:func:`quintic_coefficients`).

Outside [t₀, t_f] the trajectory holds its end position with zero velocity and
acceleration (``hold``); boundary velocities/accelerations other than zero make
that hold a discontinuity, so choose the duration accordingly.

Inverse kinematics
------------------
:func:`ik_2r` (end-effector position) and :func:`ik_3r` (position and
orientation φ = q1 + q2 + q3) give joint angles for either elbow branch:
``elbow="positive"`` (q2 ≥ 0, the elbow bends counter-clockwise) or
``"negative"`` (q2 ≤ 0); ``+1``/``-1`` are accepted too.  Targets are batched
(shape (2,) or (N, 2)).  An unreachable target raises :class:`ValueError` naming
the target, its distance from the base and the reachable annulus.
:func:`inverse_kinematics` dispatches on an :class:`~crossdyn.models.spec.ArmSpec`;
:func:`joint_waypoints` turns Cartesian way-points into joint via-points (angles
unwrapped along the path) for :func:`cubic`/:func:`quintic`.
"""
from __future__ import annotations

import numpy as np
from scipy.interpolate import make_interp_spline  # type: ignore[import-untyped]

from crossdyn.models.spec import ArmSpec

REACH_TOL = 1e-12
"""Relative tolerance on the reach boundary (a target this close to the boundary is on it)."""


class JointTrajectory:
    """A joint-space reference q_d(t), q̇_d(t), q̈_d(t) (splines per joint; see the module docstring)."""

    def __init__(self, times, waypoints, degree: int, bc_start: dict, bc_end: dict, kind: str):
        self.times = np.asarray(times, dtype=float).copy()
        self.waypoints = np.asarray(waypoints, dtype=float).copy()
        self.degree = degree
        self.kind = kind
        self.bc_start = {k: np.asarray(v, float).copy() for k, v in bc_start.items()}
        self.bc_end = {k: np.asarray(v, float).copy() for k, v in bc_end.items()}
        orders = sorted(bc_start)
        bc = ([(o, self.bc_start[o]) for o in orders], [(o, self.bc_end[o]) for o in orders])
        self._spline = make_interp_spline(self.times, self.waypoints, k=degree, bc_type=bc, axis=0)
        self._d1 = self._spline.derivative(1)
        self._d2 = self._spline.derivative(2)
        self.n = self.waypoints.shape[1]
        self.t0 = float(self.times[0])
        self.tf = float(self.times[-1])
        self._q0 = self.waypoints[0].copy()
        self._qf = self.waypoints[-1].copy()
        self.source: dict | None = None
        """Where the way-points came from (a trajectory file: its path, joint or Cartesian points), if known."""

    @property
    def duration(self) -> float:
        return self.tf - self.t0

    def evaluate(self, times) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """q, q̇, q̈ at ``times`` (shape (K,) → three arrays (K, n))."""
        t = np.atleast_1d(np.asarray(times, dtype=float))
        tc = np.clip(t, self.t0, self.tf)
        q, qd, qdd = self._spline(tc), self._d1(tc), self._d2(tc)
        before, after = t < self.t0, t > self.tf
        if before.any() or after.any():
            q[before], q[after] = self._q0, self._qf
            qd[before | after] = 0.0
            qdd[before | after] = 0.0
        return q, qd, qdd

    def __call__(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """q, q̇, q̈ at one time (three arrays of shape (n,))."""
        q, qd, qdd = self.evaluate(np.array([t]))
        return q[0], qd[0], qdd[0]

    def params(self) -> dict:
        return {
            "kind": self.kind, "degree": self.degree, "times": self.times.tolist(),
            "waypoints": self.waypoints.tolist(),
            "bc_start": {_BC_NAMES[k]: v.tolist() for k, v in self.bc_start.items()},
            "bc_end": {_BC_NAMES[k]: v.tolist() for k, v in self.bc_end.items()},
            "outside": "hold end position, zero velocity and acceleration",
            **({"source": self.source} if self.source else {}),
        }


_BC_NAMES = {1: "velocity", 2: "acceleration"}


def _prepare(times, waypoints):
    t = np.asarray(times, dtype=float)
    w = np.asarray(waypoints, dtype=float)
    if w.ndim == 1:
        w = w[:, None]
    if t.ndim != 1 or len(t) < 2:
        raise ValueError(f"times: need at least 2 via-point times, got {times!r}")
    if w.ndim != 2 or w.shape[0] != len(t):
        raise ValueError(f"waypoints: need one row per time ({len(t)} rows of n joint angles), got shape {w.shape}")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(w))):
        raise ValueError("times and waypoints must be finite")
    bad = np.nonzero(np.diff(t) <= 0)[0]
    if len(bad):
        i = int(bad[0])
        raise ValueError(f"times: must be strictly increasing; t[{i}] = {float(t[i])!r} is followed by "
                         f"t[{i + 1}] = {float(t[i + 1])!r}")
    return t, w


def per_joint(value, n: int, name: str, error: type[Exception] = ValueError) -> np.ndarray:
    """``value`` as n finite floats (a scalar applies to every joint); ``error`` names ``name`` otherwise."""
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise error(f"{name}: must be a number or {n} numbers, got {value!r}") from None
    if v.ndim == 0:
        v = np.full(n, float(v))
    if v.shape != (n,):
        raise error(f"{name}: must be a number or {n} numbers (one per joint), got {value!r}")
    if not np.all(np.isfinite(v)):
        raise error(f"{name}: must be finite, got {value!r}")
    return v


def cubic(times, waypoints, v0=0.0, vf=0.0) -> JointTrajectory:
    """C² cubic spline through ``waypoints`` (K, n) at ``times`` (K,) with end velocities v0, vf."""
    t, w = _prepare(times, waypoints)
    n = w.shape[1]
    return JointTrajectory(t, w, 3, {1: per_joint(v0, n, "v0")}, {1: per_joint(vf, n, "vf")}, "cubic")


def quintic(times, waypoints, v0=0.0, vf=0.0, a0=0.0, af=0.0) -> JointTrajectory:
    """C⁴ quintic spline through ``waypoints`` (K, n) at ``times`` (K,) with end velocities and accelerations."""
    t, w = _prepare(times, waypoints)
    n = w.shape[1]
    return JointTrajectory(t, w, 5, {1: per_joint(v0, n, "v0"), 2: per_joint(a0, n, "a0")},
                           {1: per_joint(vf, n, "vf"), 2: per_joint(af, n, "af")}, "quintic")


def quintic_coefficients(q0, qf, T, v0=0.0, vf=0.0, a0=0.0, af=0.0) -> np.ndarray:
    """Coefficients c0…c5 (rows) of q(τ) = Σ c_k τᵏ, τ ∈ [0, T], meeting position, velocity and
    acceleration at both ends (the closed-form textbook solution; shape (6,) + shape of q0)."""
    q0, qf, v0, vf, a0, af = (np.asarray(x, dtype=float) for x in (q0, qf, v0, vf, a0, af))
    h = qf - q0
    c3 = (20 * h - (8 * vf + 12 * v0) * T - (3 * a0 - af) * T**2) / (2 * T**3)
    c4 = (-30 * h + (14 * vf + 16 * v0) * T + (3 * a0 - 2 * af) * T**2) / (2 * T**4)
    c5 = (12 * h - 6 * (vf + v0) * T - (a0 - af) * T**2) / (2 * T**5)
    return np.stack(np.broadcast_arrays(q0, v0, a0 / 2, c3, c4, c5))


# ---------------------------------------------------------------------------------------------- IK
def _elbow_sign(elbow) -> float:
    if elbow in ("positive", "+", 1, +1.0):
        return 1.0
    if elbow in ("negative", "-", -1, -1.0):
        return -1.0
    raise ValueError(f"elbow: must be 'positive' (q2 >= 0) or 'negative' (q2 <= 0) (or +1/-1), got {elbow!r}")


def _fmt_point(p) -> str:
    return "(" + ", ".join(f"{float(v):.6g}" for v in p) + ")"


def _ik_2r_core(L1: float, L2: float, x, y, elbow, describe) -> tuple[np.ndarray, np.ndarray]:
    s = _elbow_sign(elbow)
    r2 = x * x + y * y
    r = np.sqrt(r2)
    lo, hi = abs(L1 - L2), L1 + L2
    tol = REACH_TOL * hi
    bad = (r > hi + tol) | (r < lo - tol) | ~np.isfinite(r)
    if np.any(bad):
        i = int(np.flatnonzero(np.atleast_1d(bad))[0])
        raise ValueError(describe(i, float(np.atleast_1d(r)[i]), lo, hi))
    c2 = np.clip((r2 - L1 * L1 - L2 * L2) / (2 * L1 * L2), -1.0, 1.0)
    q2 = s * np.arccos(c2)
    q1 = np.arctan2(y, x) - np.arctan2(L2 * np.sin(q2), L1 + L2 * np.cos(q2))
    q1 = (q1 + np.pi) % (2 * np.pi) - np.pi
    return q1, q2


def ik_2r(L1: float, L2: float, target, elbow="positive") -> np.ndarray:
    """Joint angles (q1, q2) placing a 2R end effector at ``target`` (x, y); shape (2,) or (N, 2).

    Raises ValueError if a target is outside the annulus |L1 − L2| ≤ r ≤ L1 + L2.
    """
    p = np.asarray(target, dtype=float)
    if p.shape[-1:] != (2,):
        raise ValueError(f"target: must be (x, y) or an (N, 2) array, got shape {p.shape}")
    pts = p.reshape(-1, 2)

    def describe(i, r, lo, hi):
        return (f"target (x, y) = {_fmt_point(pts[i])} m is out of reach: it is {r:.6g} m from the base, "
                f"the 2R arm (L1 = {L1:g}, L2 = {L2:g}) reaches [{lo:.6g}, {hi:.6g}] m")

    q1, q2 = _ik_2r_core(float(L1), float(L2), p[..., 0], p[..., 1], elbow, describe)
    return np.stack([q1, q2], axis=-1)


def ik_3r(L1: float, L2: float, L3: float, target, phi, elbow="positive") -> np.ndarray:
    """Joint angles (q1, q2, q3) placing a 3R end effector at ``target`` (x, y) with orientation
    ``phi`` = q1 + q2 + q3 (rad); ``target`` (2,) or (N, 2), ``phi`` scalar or (N,).

    The wrist (joint 3) must lie in the 2R annulus of links 1–2; otherwise ValueError.
    """
    p = np.asarray(target, dtype=float)
    if p.shape[-1:] != (2,):
        raise ValueError(f"target: must be (x, y) or an (N, 2) array, got shape {p.shape}")
    phi = np.broadcast_to(np.asarray(phi, dtype=float), p.shape[:-1])
    wx = p[..., 0] - L3 * np.cos(phi)
    wy = p[..., 1] - L3 * np.sin(phi)
    pts, phis = p.reshape(-1, 2), phi.reshape(-1)
    wpts = np.stack([np.atleast_1d(wx), np.atleast_1d(wy)], axis=-1).reshape(-1, 2)

    def describe(i, r, lo, hi):
        return (f"target (x, y) = {_fmt_point(pts[i])} m with orientation phi = {float(phis[i]):.6g} rad is out of "
                f"reach: its wrist point {_fmt_point(wpts[i])} m is {r:.6g} m from the base, links 1-2 "
                f"(L1 = {L1:g}, L2 = {L2:g}) reach [{lo:.6g}, {hi:.6g}] m (whole arm reach {L1 + L2 + L3:.6g} m)")

    q1, q2 = _ik_2r_core(float(L1), float(L2), wx, wy, elbow, describe)
    q3 = phi - q1 - q2
    q3 = (q3 + np.pi) % (2 * np.pi) - np.pi
    return np.stack([q1, q2, q3], axis=-1)


def inverse_kinematics(spec: ArmSpec, target, elbow="positive", orientation=None) -> np.ndarray:
    """IK for a 2R or 3R ``spec`` (3R needs ``orientation`` φ of the last link, rad)."""
    L = [link.length for link in spec.links]
    if spec.n == 2:
        if orientation is not None:
            raise ValueError("orientation: a 2R arm cannot choose its end-effector orientation; pass None")
        return ik_2r(L[0], L[1], target, elbow)
    if spec.n == 3:
        if orientation is None:
            raise ValueError("orientation: a 3R arm needs the end-effector orientation phi (rad)")
        return ik_3r(L[0], L[1], L[2], target, orientation, elbow)
    raise ValueError(f"inverse kinematics exists for 2R and 3R arms only, not {spec.n}R ({spec.name!r})")


def joint_waypoints(spec: ArmSpec, points, elbow="positive", orientations=None) -> np.ndarray:
    """Joint via-points (K, n) for Cartesian way-points (K, 2), one elbow branch, angles unwrapped
    along the path so consecutive via-points never jump by 2π."""
    q = inverse_kinematics(spec, np.asarray(points, dtype=float).reshape(-1, 2), elbow, orientations)
    return np.unwrap(q, axis=0)
