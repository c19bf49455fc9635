"""Trajectory files: joint or Cartesian way-points with times, in TOML, for the closed-loop profiles.

Joint way-points (rad)::

    interpolation = "quintic"   # or "cubic" (default quintic; rest to rest: zero end velocities)
    [[points]]
    t = 0.0                     # s, strictly increasing
    q = [-1.5708, 0.0]          # rad, one angle per joint
    [[points]]
    t = 2.0
    q = [-1.0, 0.5]

Cartesian way-points (2R and 3R arms; each point through the inverse kinematics of
:mod:`crossdyn.inputs.trajectories`, angles unwrapped along the path)::

    interpolation = "cubic"
    elbow = "positive"          # or "negative": the sign of q2 (default positive)
    [[points]]
    t = 0.0
    xy = [0.3, -1.5]            # m, end-effector position
    phi = -1.5                  # rad, orientation q1 + q2 + q3 of the last link (3R only)

Every error is a :class:`TrajectoryFileError` naming the file, the line (where the key is found), the key and
the value: unknown keys, a wrong type, a non-finite number, times not increasing, a point out of reach.
"""
from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from crossdyn.io import InputError, read_toml
from crossdyn.models.spec import ArmSpec


class TrajectoryFileError(InputError):
    """A trajectory file is invalid (the message names the file, line, key and value)."""


TOP_KEYS = ("interpolation", "elbow", "points")
POINT_KEYS = ("t", "q", "xy", "phi")
_POINTS_HEADER = re.compile(r"^\s*\[\[\s*points\s*\]\]\s*(#.*)?$")


def _line(text: str, point: int | None, key: str | None) -> int | None:
    """Line (1-based) of ``key`` in the ``point``-th ``[[points]]`` table (1-based), or at top level."""
    lines = text.splitlines()
    headers = [i for i, line in enumerate(lines) if _POINTS_HEADER.match(line)]
    if point is None:
        lo, hi = 0, headers[0] if headers else len(lines)
    else:
        if not 1 <= point <= len(headers):
            return None
        lo, hi = headers[point - 1], headers[point] if point < len(headers) else len(lines)
        if key is None:
            return lo + 1
    if key is None:
        return None
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for i in range(lo, hi):
        if pattern.match(lines[i]):
            return i + 1
    return lo + 1 if point is not None else None


class _Fail:
    """Raise a :class:`TrajectoryFileError` naming the file, the line of ``key`` in point ``point``, and the value."""

    def __init__(self, path: Path, text: str):
        self.path, self.text = path, text

    def __call__(self, msg: str, point: int | None = None, key: str | None = None, value: Any = None) -> NoReturn:
        line = _line(self.text, point, key)
        where = f"{self.path}: line {line}" if line else f"{self.path}"
        raise TrajectoryFileError(f"{where}: {msg}", key, value)


def _top_level(data: dict, fail: _Fail) -> tuple[str, str, list[dict]]:
    """(interpolation, elbow, points) of a trajectory file, checked."""
    for key, value in data.items():
        if key not in TOP_KEYS:
            fail(f"unknown key {key!r}; a trajectory file has {', '.join(TOP_KEYS)}", key=key, value=value)
    interp = data.get("interpolation", "quintic")
    if interp not in ("cubic", "quintic"):
        fail(f"interpolation: must be \"cubic\" or \"quintic\", got {interp!r}", key="interpolation", value=interp)
    elbow = data.get("elbow", "positive")
    if elbow not in ("positive", "negative"):
        fail(f"elbow: must be \"positive\" (q2 >= 0) or \"negative\" (q2 <= 0), got {elbow!r}", key="elbow",
             value=elbow)
    points = data.get("points")
    if not isinstance(points, list) or not all(isinstance(p, dict) for p in points):
        fail(f"points: must be an array of tables ([[points]] with t and q, or t and xy), got {points!r}",
             key="points", value=points)
    if len(points) < 2:
        fail(f"points: need at least 2 way-points, got {len(points)}", key="points", value=len(points))
    return interp, elbow, points


class _Points:
    """The way-points of a file, read and checked one by one: times, and joint angles or Cartesian xy (and φ)."""

    def __init__(self, spec: ArmSpec, fail: _Fail):
        self.spec, self.fail = spec, fail
        self.kinds: set[str] = set()
        self.times: list[float] = []
        self.qs: list[list[float]] = []
        self.xys: list[list[float]] = []
        self.phis: list[float] = []

    def number(self, value, i: int, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(f"points[{i}].{key}: must be a number, got {value!r}", i, key, value)
        if not math.isfinite(value):
            self.fail(f"points[{i}].{key}: must be finite, got {value!r}", i, key, value)
        return float(value)

    def numbers(self, value, i: int, key: str, count: int, what: str) -> list[float]:
        if not isinstance(value, list) or len(value) != count:
            self.fail(f"points[{i}].{key}: must be a list of {count} numbers ({what}), got {value!r}", i, key, value)
        return [self.number(v, i, key) for v in value]

    def add(self, i: int, p: dict) -> None:
        """Point ``i`` (1-based), the table ``p``."""
        fail, n, spec = self.fail, self.spec.n, self.spec
        for key, value in p.items():
            if key not in POINT_KEYS:
                fail(f"points[{i}]: unknown key {key!r}; a point has t and q (joint) or t, xy and phi (Cartesian)",
                     i, key, value)
        if "t" not in p:
            fail(f"points[{i}]: missing the time t (s)", i)
        self.times.append(self.number(p["t"], i, "t"))
        if ("q" in p) == ("xy" in p):
            fail(f"points[{i}]: give either q (joint angles, rad) or xy (end-effector position, m), not "
                 f"{'both' if 'q' in p else 'neither'}", i)
        kind = "joint" if "q" in p else "cartesian"
        self.kinds.add(kind)
        if len(self.kinds) > 1:
            fail(f"points[{i}]: mixes joint (q) and Cartesian (xy) way-points; use one kind per file", i,
                 "q" if kind == "joint" else "xy")
        if kind == "joint":
            if "phi" in p:
                fail(f"points[{i}]: phi belongs to Cartesian way-points (with xy), not to q", i, "phi", p["phi"])
            self.qs.append(self.numbers(p["q"], i, "q", n, f"one angle per joint of the {n}R arm {spec.name!r}, rad"))
            return
        if n not in (2, 3):
            fail(f"points[{i}].xy: Cartesian way-points need a 2R or 3R arm (inverse kinematics); "
                 f"{spec.name!r} has {n} links: give joint angles q", i, "xy", p["xy"])
        self.xys.append(self.numbers(p["xy"], i, "xy", 2, "x, y in m"))
        if n == 3:
            if "phi" not in p:
                fail(f"points[{i}]: a 3R way-point needs phi, the orientation q1 + q2 + q3 of the last "
                     "link (rad)", i)
            self.phis.append(self.number(p["phi"], i, "phi"))
        elif "phi" in p:
            fail(f"points[{i}].phi: a 2R arm cannot choose its orientation; leave phi out (got {p['phi']!r})", i,
                 "phi", p["phi"])

    def joint_angles(self, elbow: str) -> np.ndarray:
        """The joint via-points: as given, or by inverse kinematics of the Cartesian ones (each checked for reach,
        then unwrapped along the path)."""
        from crossdyn.inputs.trajectories import inverse_kinematics, joint_waypoints

        if self.kinds == {"joint"}:
            return np.array(self.qs)
        n = self.spec.n
        for i, xy in enumerate(self.xys):
            try:
                inverse_kinematics(self.spec, np.array(xy), elbow, self.phis[i] if n == 3 else None)
            except ValueError as e:
                self.fail(f"points[{i + 1}]: {e}", i + 1, "xy", xy)
        return joint_waypoints(self.spec, np.array(self.xys), elbow, np.array(self.phis) if n == 3 else None)


def load_trajectory(path: str | os.PathLike, spec: ArmSpec):
    """The :class:`~crossdyn.inputs.trajectories.JointTrajectory` described by the TOML file ``path`` for ``spec``."""
    from crossdyn.inputs.trajectories import cubic, quintic

    path = Path(path)
    text, data = read_toml(path, "trajectory file", missing="no such trajectory file", error=TrajectoryFileError)
    fail = _Fail(path, text)
    interp, elbow, points = _top_level(data, fail)
    way = _Points(spec, fail)
    for i, p in enumerate(points, start=1):
        way.add(i, p)
    times, xys, phis = way.times, way.xys, way.phis
    for i in range(1, len(times)):
        if times[i] <= times[i - 1]:
            fail(f"points[{i + 1}].t: times must be strictly increasing; {times[i]!r} follows {times[i - 1]!r}",
                 i + 1, "t", times[i])
    q = way.joint_angles(elbow)
    build = cubic if interp == "cubic" else quintic
    traj = build(times, q)
    traj.source = {"file": os.fspath(path), "space": way.kinds.pop(),
                   **({"elbow": elbow} if xys else {}),
                   **({"cartesian_points": xys} if xys else {}), **({"orientations": phis} if phis else {})}
    return traj
