"""Torque profiles: the torque sources every engine is driven with, through one code path.

Sampling (zero-order hold)
--------------------------
A profile is evaluated once at the start of each step, τ_k = profile(t_k, q_k, q̇_k)
with t_k = k·dt and (q_k, q̇_k) the engine's *own* state, and that τ_k is held
constant over [t_k, t_k + dt) — by every engine and by the analytic reference
(see :mod:`crossdyn.conventions`).  Open-loop profiles ignore the state, and
their :meth:`Profile.sample` evaluates many times at once (vectorised; equal to
calling the profile at each time).  Closed-loop profiles compute τ from the
state with the *analytic* model, so every engine gets the same control law.

Open loop
---------
``zero``         τ = 0
``constant``     τ = value
``step``         τ_i = before_i for t < time_i, after_i from time_i on
``sine``         τ_i = offset_i + A_i sin(2π f_i t + φ_i)
``chirp``        τ_i = offset_i + A_i sin(φ(t)), instantaneous frequency f0 → f1 linearly over
                 ``duration`` seconds, f1 afterwards
``multisine``    Fourier excitation: τ_i = offset_i + (A_i / c) Σ_k sin(2π h_k f0 (t − i T0/n) + φ_k),
                 harmonics h_k of the base frequency f0 = 1/T0, Schroeder phases
                 φ_k = −π k (k − 1)/K (deterministic, low crest factor), joint i delayed by i/n of a
                 period; c normalises the peak of the sum to 1, so A_i is the peak amplitude
``multisine-motion``  the torques (sums of sinusoids) that move the arm, linearised about a configuration
                 (default: hanging), along a multi-sine joint motion of given amplitude in rad — the
                 :func:`default_profile` (see :class:`MotionMultiSineProfile`)
``csv``          a file of ``time`` and ``tau1 … tauN`` columns, **linearly interpolated** between
                 rows (``interpolation="zoh"``: the last row at or before t); see :class:`CSVProfile`

Closed loop
-----------
``pd-gravity``        τ = K_p (q_d − q) + K_d (q̇_d − q̇) + G(q)  (q_d fixed or from a trajectory; q̇_d = 0
                      for a fixed target, so τ = K_p (q_d − q) − K_d q̇ + G(q))
``computed-torque``   τ = M(q) (q̈_d + K_d ė + K_p e) + C(q, q̇) q̇ + G(q) + F(q̇),  e = q_d − q,
                      tracking a :class:`~crossdyn.drive.trajectories.JointTrajectory`
``press``             the computed-torque law towards a pose whose tip presses an obstacle, plus
                      J_cᵀ(−F_d n) while the tip touches it: the steady normal force is F_d

Contact scenarios (arms with ``[contact]``; each carries its start state, ``start``)
------------------------------------------------------------------------------------
``drop``         from a pose at rest (default: the straight arm turned up from hanging until its tip clears the
                 obstacles by 0.3 m), a constant torque (default 0): the arm falls onto the obstacle below it
``swing``        from a pose at rest (default: the straight arm ``angle`` to one side of hanging, the side that
                 makes it swing into an obstacle), a constant torque (default 0): it strikes the obstacle

Every profile's :meth:`Profile.params` is a JSON-able description, recorded with every result.
:func:`make_profile` builds one by name; :func:`default_profile` is the comparison default.
"""
from __future__ import annotations

import abc
import csv
import hashlib
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from crossdyn import analytic
from crossdyn.analytic.gravity_helpers import gravity_stiffness, hanging_configuration, joint_gravity_scale  # noqa: F401  (moved; re-exported)
from crossdyn.drive.trajectories import JointTrajectory, per_joint
from crossdyn.io import number_cell
from crossdyn.models.spec import ArmSpec


class ProfileError(ValueError):
    """A torque profile (or the file describing one) is invalid."""


def _vector(value, n: int, name: str) -> np.ndarray:
    """``value`` as n finite floats (a scalar applies to every joint), else :class:`ProfileError`."""
    return per_joint(value, n, name, ProfileError)


def _scalar(value, name: str, positive: bool = False) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ProfileError(f"{name}: must be a number, got {value!r}") from None
    if not math.isfinite(x) or (positive and x <= 0):
        raise ProfileError(f"{name}: must be {'> 0' if positive else 'finite'}, got {value!r}")
    return x


class Profile(abc.ABC):
    """A torque source τ(t, q, q̇) for an n-joint arm (zero-order hold; see the module docstring)."""

    name: str = "profile"
    closed_loop: bool = False

    def __init__(self, n: int):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ProfileError(f"n: number of joints must be an integer >= 1, got {n!r}")
        self.n = int(n)

    @abc.abstractmethod
    def __call__(self, t: float, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """τ at time t and state (q, q̇): shape (n,)."""

    @abc.abstractmethod
    def params(self) -> dict:
        """A JSON-able description (name and every parameter)."""

    def sample(self, times: np.ndarray) -> np.ndarray:
        """τ at each of ``times`` (shape (K,) → (K, n)); open-loop profiles only."""
        raise TypeError(f"profile {self.name!r} is closed loop: it needs the state at every step, "
                        "it cannot be sampled ahead")

    def validate(self, n: int, duration: float) -> None:
        """Raise :class:`ProfileError` if the profile cannot drive an n-joint arm for ``duration`` seconds."""
        if n != self.n:
            raise ProfileError(f"profile {self.name!r} has {self.n} joint(s), the arm has {n}")


class OpenLoopProfile(Profile):
    """A profile of time only: ``__call__`` evaluates :meth:`sample` at one time (so they agree)."""

    closed_loop = False

    @abc.abstractmethod
    def sample(self, times: np.ndarray) -> np.ndarray: ...

    def __call__(self, t, q=None, qd=None) -> np.ndarray:
        return self.sample(np.array([t], dtype=float))[0]


# ------------------------------------------------------------------------------------------ open loop
class ZeroProfile(OpenLoopProfile):
    name = "zero"

    def sample(self, times):
        return np.zeros((np.size(times), self.n))

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n}


class ConstantProfile(OpenLoopProfile):
    name = "constant"

    def __init__(self, n: int, value=0.0):
        super().__init__(n)
        self.value = _vector(value, self.n, "value")

    def sample(self, times):
        return np.broadcast_to(self.value, (np.size(times), self.n)).copy()

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "value": self.value.tolist()}


class StepProfile(OpenLoopProfile):
    """τ_i = before_i for t < time_i, after_i for t ≥ time_i."""

    name = "step"

    def __init__(self, n: int, after=1.0, time=0.0, before=0.0):
        super().__init__(n)
        self.after = _vector(after, self.n, "after")
        self.before = _vector(before, self.n, "before")
        self.time = _vector(time, self.n, "time")

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1, 1)
        return np.where(t < self.time, self.before, self.after)

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "before": self.before.tolist(),
                "after": self.after.tolist(), "time": self.time.tolist()}


class SineProfile(OpenLoopProfile):
    """τ_i = offset_i + A_i sin(2π f_i t + φ_i)."""

    name = "sine"

    def __init__(self, n: int, amplitude=1.0, frequency=1.0, phase=0.0, offset=0.0):
        super().__init__(n)
        self.amplitude = _vector(amplitude, self.n, "amplitude")
        self.frequency = _vector(frequency, self.n, "frequency")
        self.phase = _vector(phase, self.n, "phase")
        self.offset = _vector(offset, self.n, "offset")
        self._omega = 2 * np.pi * self.frequency

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1, 1)
        return self.offset + self.amplitude * np.sin(self._omega * t + self.phase)

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "amplitude": self.amplitude.tolist(),
                "frequency": self.frequency.tolist(), "phase": self.phase.tolist(), "offset": self.offset.tolist(),
                "formula": "offset + amplitude*sin(2*pi*frequency*t + phase)"}


class ChirpProfile(OpenLoopProfile):
    """Linear chirp: instantaneous frequency f0 + (f1 − f0) t / T for t ≤ T, then f1.

    τ_i = offset_i + A_i sin(φ(t) + phase_i),  φ(t) = 2π (f0 t + (f1 − f0) t² / (2T)) for t ≤ T,
    φ(t) = φ(T) + 2π f1 (t − T) after.
    """

    name = "chirp"

    def __init__(self, n: int, amplitude=1.0, f0=0.1, f1=5.0, duration=1.0, phase=0.0, offset=0.0):
        super().__init__(n)
        self.amplitude = _vector(amplitude, self.n, "amplitude")
        self.f0 = _scalar(f0, "f0")
        self.f1 = _scalar(f1, "f1")
        self.duration = _scalar(duration, "duration", positive=True)
        self.phase = _vector(phase, self.n, "phase")
        self.offset = _vector(offset, self.n, "offset")

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1, 1)
        T, f0, f1 = self.duration, self.f0, self.f1
        tc = np.minimum(t, T)
        phi = 2 * np.pi * (f0 * tc + (f1 - f0) * tc * tc / (2 * T) + f1 * (t - tc))
        return self.offset + self.amplitude * np.sin(phi + self.phase)

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "amplitude": self.amplitude.tolist(),
                "f0": self.f0, "f1": self.f1, "duration": self.duration, "phase": self.phase.tolist(),
                "offset": self.offset.tolist(), "sweep": "linear, then constant f1"}


class MultiSineProfile(OpenLoopProfile):
    """Fourier (multi-sine) excitation with Schroeder phases (see the module docstring)."""

    name = "multisine"

    def __init__(self, n: int, amplitude=1.0, base_frequency=0.5, harmonics=(1, 2, 3, 4, 5), offset=0.0):
        super().__init__(n)
        self.amplitude = _vector(amplitude, self.n, "amplitude")
        self.base_frequency = _scalar(base_frequency, "base_frequency", positive=True)
        h = np.asarray(harmonics)
        if h.ndim != 1 or len(h) == 0 or not np.all(np.isfinite(h.astype(float))) or np.any(h <= 0) \
                or np.any(h != np.round(h)) or len(set(h.tolist())) != len(h):
            raise ProfileError(f"harmonics: must be distinct positive integers, got {harmonics!r}")
        self.harmonics = h.astype(int)
        self.offset = _vector(offset, self.n, "offset")
        K = len(self.harmonics)
        k = np.arange(1, K + 1)
        self.phases = -np.pi * k * (k - 1) / K  # Schroeder
        # time delay of joint i: i/n of the base period
        self.delays = np.arange(self.n) / (self.n * self.base_frequency)
        self._w = 2 * np.pi * self.base_frequency * self.harmonics  # (K,)
        grid = np.linspace(0.0, 1.0 / self.base_frequency, 4096, endpoint=False)
        self.peak = float(np.max(np.abs(np.sin(np.outer(grid, self._w) + self.phases).sum(axis=1))))

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1, 1, 1) - self.delays[:, None]  # (K, n, 1)
        s = np.sin(t * self._w + self.phases).sum(axis=-1)  # (K, n)
        return self.offset + (self.amplitude / self.peak) * s

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "amplitude": self.amplitude.tolist(),
                "base_frequency": self.base_frequency, "harmonics": self.harmonics.tolist(),
                "phases": self.phases.tolist(), "phase_rule": "Schroeder: -pi*k*(k-1)/K",
                "joint_delays": self.delays.tolist(), "peak_normalisation": self.peak, "offset": self.offset.tolist()}


class CSVProfile(OpenLoopProfile):
    """Torques from a CSV file: a ``time`` (or ``t``) column (s, strictly increasing, finite) and ``tau1 … tauN``
    (N m, finite), in any column order; other columns are errors.

    ``interpolation="linear"`` (default) interpolates linearly between rows; ``"zoh"`` holds each
    row's value until the next row's time.  The file must cover [0, duration] of the run
    (first time ≤ 0, last time ≥ duration), else :class:`ProfileError`.  Every error names the
    file, the row (file line number) and column, and the value.
    """

    name = "csv"
    INTERPOLATIONS = ("linear", "zoh")

    def __init__(self, n: int, path, interpolation: str = "linear"):
        super().__init__(n)
        if interpolation not in self.INTERPOLATIONS:
            raise ProfileError(f"interpolation: must be one of {', '.join(self.INTERPOLATIONS)}, got {interpolation!r}")
        self.path = Path(path)
        self.interpolation = interpolation
        self.times, self.values, self.sha256 = self._read()

    def _read(self):
        where = str(self.path)
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            raise ProfileError(f"{where}: no such file") from None
        except OSError as e:
            raise ProfileError(f"{where}: cannot read: {e}") from None
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ProfileError(f"{where}: not UTF-8 text: {e}") from None
        rows = list(csv.reader(text.splitlines()))
        lines = [(i, r) for i, r in enumerate(rows, start=1) if any(c.strip() for c in r)]
        if not lines:
            raise ProfileError(f"{where}: empty file; expected a header 'time,tau1,...,tau{self.n}' and rows")
        header_line, header = lines[0]
        header = [h.strip() for h in header]
        if "t" in header and "time" not in header:  # `t` is accepted for `time`
            header = ["time" if h == "t" else h for h in header]
        wanted = ["time"] + [f"tau{j}" for j in range(1, self.n + 1)]
        missing = [c for c in wanted if c not in header]
        if missing:
            raise ProfileError(f"{where}: line {header_line}: missing column(s) {', '.join(missing)}; "
                               f"the header must name {', '.join(wanted)} (found {', '.join(header) or 'nothing'})")
        extra = [c for c in header if c not in wanted]
        if extra:
            raise ProfileError(f"{where}: line {header_line}: unexpected column(s) {', '.join(extra)} for a "
                               f"{self.n}-joint arm; expected {', '.join(wanted)}")
        dup = sorted({c for c in header if header.count(c) > 1})
        if dup:
            raise ProfileError(f"{where}: line {header_line}: duplicate column(s) {', '.join(dup)}")
        cols = [header.index(c) for c in wanted]
        data = np.empty((len(lines) - 1, len(wanted)))
        for r, (line, row) in enumerate(lines[1:]):
            if len(row) != len(header):
                raise ProfileError(f"{where}: line {line}: expected {len(header)} cells, got {len(row)}: {row!r}")
            for c, col in enumerate(cols):
                data[r, c] = number_cell(row[col].strip(), f"{where}: line {line}, column {wanted[c]!r}", ProfileError)
        if len(data) == 0:
            raise ProfileError(f"{where}: no data rows after the header")
        t = data[:, 0]
        bad = np.nonzero(np.diff(t) <= 0)[0]
        if len(bad):
            i = int(bad[0]) + 1
            raise ProfileError(f"{where}: line {lines[i + 1][0]}, column 'time': times must be strictly increasing; "
                               f"{float(t[i])!r} follows {float(t[i - 1])!r}")
        return t.copy(), data[:, 1:].copy(), hashlib.sha256(raw).hexdigest()

    def validate(self, n: int, duration: float) -> None:
        super().validate(n, duration)
        if self.times[0] > 0.0:
            raise ProfileError(f"{self.path}: the profile starts at t = {float(self.times[0])!r} s; "
                               "it must start at or before 0 s")
        if self.times[-1] < duration - 1e-9 * max(1.0, duration):
            raise ProfileError(f"{self.path}: the profile ends at t = {float(self.times[-1])!r} s, "
                               f"shorter than the requested duration {duration!r} s: shorten --duration to "
                               f"{float(self.times[-1])!r} s or less, or add rows up to t = {duration!r} s")

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1)
        if t.size and (t.min() < self.times[0] or t.max() > self.times[-1]):
            bad = t[(t < self.times[0]) | (t > self.times[-1])][0]
            raise ProfileError(f"{self.path}: t = {float(bad)!r} s is outside the profile's time range "
                               f"[{float(self.times[0])!r}, {float(self.times[-1])!r}] s")
        if self.interpolation == "zoh":
            idx = np.searchsorted(self.times, t, side="right") - 1
            return self.values[idx]
        return np.stack([np.interp(t, self.times, self.values[:, j]) for j in range(self.n)], axis=-1)

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "path": os.fspath(self.path),
                "sha256": self.sha256, "rows": int(len(self.times)),
                "time_range": [float(self.times[0]), float(self.times[-1])], "interpolation": self.interpolation}


# ------------------------------------------------------------------------------------------ closed loop
class PDGravityProfile(Profile):
    """τ = K_p (q_d − q) + K_d (q̇_d − q̇) + G(q), G from the analytic model of ``spec``.

    ``target`` is a fixed configuration (q̇_d = 0) or a :class:`JointTrajectory`.
    """

    name = "pd-gravity"
    closed_loop = True

    def __init__(self, spec: ArmSpec, target=None, kp=100.0, kd=20.0):
        super().__init__(spec.n)
        self.spec = spec
        self._p = spec.params()
        self.kp = _vector(kp, self.n, "kp")
        self.kd = _vector(kd, self.n, "kd")
        if isinstance(target, JointTrajectory):
            if target.n != self.n:
                raise ProfileError(f"target: trajectory has {target.n} joints, the arm has {self.n}")
            self.trajectory, self.target = target, None
        else:
            self.trajectory = None
            self.target = np.zeros(self.n) if target is None else _vector(target, self.n, "target")
            self._zero = np.zeros(self.n)

    def reference(self, t):
        if self.trajectory is None:
            return self.target, self._zero
        qd_, vd_, _ = self.trajectory(t)
        return qd_, vd_

    def __call__(self, t, q, qd):
        q_d, v_d = self.reference(t)
        return self.kp * (q_d - q) + self.kd * (v_d - qd) + analytic.gravity(self._p, q)

    def params(self):
        return {"name": self.name, "closed_loop": True, "n": self.n, "arm": self.spec.name,
                "kp": self.kp.tolist(), "kd": self.kd.tolist(),
                "target": self.target.tolist() if self.target is not None else self.trajectory.params(),
                "model": "analytic G(q)", "law": "kp*(q_d - q) + kd*(qd_d - qd) + G(q)"}


class ComputedTorqueProfile(Profile):
    """τ = M(q) (q̈_d + K_d ė + K_p e) + C(q, q̇) q̇ + G(q) + F(q̇), e = q_d − q, from the analytic model.

    ``friction=False`` leaves out F(q̇) (then an engine's joint friction shows as tracking error).
    """

    name = "computed-torque"
    closed_loop = True

    def __init__(self, spec: ArmSpec, trajectory: JointTrajectory, kp=400.0, kd=40.0, friction: bool = True):
        super().__init__(spec.n)
        if not isinstance(trajectory, JointTrajectory):
            raise ProfileError(f"trajectory: must be a JointTrajectory (see crossdyn.drive.trajectories), "
                               f"got {type(trajectory).__name__}")
        if trajectory.n != self.n:
            raise ProfileError(f"trajectory: has {trajectory.n} joints, the arm has {self.n}")
        self.spec = spec
        self._p = spec.params() if friction else spec.params()._replace(b=np.zeros(spec.n), fc=np.zeros(spec.n))
        self.trajectory = trajectory
        self.kp = _vector(kp, self.n, "kp")
        self.kd = _vector(kd, self.n, "kd")
        self.friction = bool(friction)

    def __call__(self, t, q, qd):
        q_d, v_d, a_d = self.trajectory(t)
        a = a_d + self.kd * (v_d - qd) + self.kp * (q_d - q)
        return analytic.mass_matrix(self._p, q) @ a + analytic.bias(self._p, q, qd)

    def params(self):
        return {"name": self.name, "closed_loop": True, "n": self.n, "arm": self.spec.name,
                "kp": self.kp.tolist(), "kd": self.kd.tolist(), "friction_compensation": self.friction,
                "trajectory": self.trajectory.params(), "model": "analytic M, C, G, F",
                "law": "M(q)(qdd_d + kd*(qd_d - qd) + kp*(q_d - q)) + C(q,qd)qd + G(q) + F(qd)"}


# ------------------------------------------------------------------------------------------ contact
def _tip_inside(spec: ArmSpec, q) -> list[int]:
    """The obstacles (1-based) the tip sphere touches at q (penetration > 0)."""
    from crossdyn.analytic.laws.contact import ContactLaw
    from crossdyn.analytic.kinematics import end_effector

    law = ContactLaw.of(spec)
    if law is None:
        return []
    return [i + 1 for i, d in enumerate(law.penetration(end_effector(spec.params(), np.asarray(q, float))))
            if d > 0]


def _straight(spec: ArmSpec, q1: float) -> np.ndarray:
    q = np.zeros(spec.n)
    q[0] = q1
    return q


class ContactScenarioProfile(OpenLoopProfile):
    """A constant torque from a start pose at rest (``start`` = (pose, q̇0)): :data:`PROFILES` ``drop`` and
    ``swing``, scenarios of the arm's tip meeting its obstacles (their default poses: :func:`drop_pose`,
    :func:`swing_pose`)."""

    def __init__(self, spec: ArmSpec, name: str, pose, torque=0.0, velocity=0.0, why: str = ""):
        super().__init__(spec.n)
        self.spec, self.name, self.why = spec, name, why
        self.pose = _vector(pose, self.n, "pose")
        self.velocity = _vector(velocity, self.n, "velocity")
        self.torque = _vector(torque, self.n, "torque")
        inside = _tip_inside(spec, self.pose)
        if inside:
            raise ProfileError(f"pose: the tip sphere at {self.pose.round(6).tolist()} rad is already inside "
                               f"obstacle(s) {', '.join(map(str, inside))}; give a pose clear of them")
        self.start = (self.pose.copy(), self.velocity.copy())

    def sample(self, times):
        return np.broadcast_to(self.torque, (len(np.atleast_1d(times)), self.n)).copy()

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "arm": self.spec.name,
                "pose_rad": self.pose.tolist(), "velocity_rad_s": self.velocity.tolist(),
                "torque_nm": self.torque.tolist(), "start": "pose, velocity (the run's q0, qd0 unless given)",
                **({"pose_rule": self.why} if self.why else {})}


def _clearance(spec: ArmSpec, q) -> float:
    """The tip sphere's smallest distance to the obstacles at q (m; < 0 while touching)."""
    from crossdyn.analytic.laws.contact import ContactLaw
    from crossdyn.analytic.kinematics import end_effector

    law = ContactLaw.of(spec)
    return math.inf if law is None else -float(np.max(law.penetration(end_effector(spec.params(), q))))


DROP_HEIGHT = 0.3
"""m: the default ``drop`` starts with the tip sphere this far from the nearest obstacle."""


def drop_pose(spec: ArmSpec, height: float = DROP_HEIGHT) -> np.ndarray:
    """The default pose of ``drop``: the straight arm turned counter-clockwise from hanging by the smallest angle
    (0.005-rad steps) at which its tip sphere clears every obstacle by ``height`` m: released there, it falls back
    onto the obstacle it hangs into.  The hanging arm must touch an obstacle (else nothing is below it)."""
    hang = hanging_configuration(spec)[0]
    if _clearance(spec, _straight(spec, hang)) > 0:
        raise ProfileError("drop: the hanging straight arm touches no obstacle, there is nothing below it to fall "
                           "onto; give pose=")
    for a in np.arange(0.005, math.pi, 0.005):
        q = _straight(spec, hang + a)
        if _clearance(spec, q) >= height:
            return q
    raise ProfileError(f"drop: no straight pose clears the obstacles by {height:g} m; give pose=")


SWING_ANGLE = 0.8
"""rad: the default ``swing`` starts the straight arm this far from hanging."""


def swing_pose(spec: ArmSpec, angle: float = SWING_ANGLE) -> np.ndarray:
    """The default pose of ``swing``: the straight arm ``angle`` rad to one side of hanging, the side s for which
    the straight arm at hanging + s·angle (where an undamped swing from rest turns back) is inside an obstacle
    and the start is clear of all: a swing from rest there strikes it."""
    hang = hanging_configuration(spec)[0]
    for side in (1.0, -1.0):
        start, far = _straight(spec, hang - side * angle), _straight(spec, hang + side * angle)
        if _tip_inside(spec, far) and not _tip_inside(spec, start):
            return start
    raise ProfileError(f"swing: no obstacle is struck by the straight arm swinging {angle:g} rad either side of "
                       "hanging; give pose= (and angle=)")


def _make_drop(spec, pose=None, torque=0.0, velocity=0.0):
    why = "" if pose is not None else (f"the straight arm turned from hanging until its tip clears the obstacles by "
                                       f"{DROP_HEIGHT:g} m (crossdyn.drive.profiles.drop_pose)")
    return ContactScenarioProfile(spec, "drop", drop_pose(spec) if pose is None else pose, torque, velocity, why)


def _make_swing(spec, pose=None, torque=0.0, velocity=0.0, angle=SWING_ANGLE):
    angle = _scalar(angle, "angle", positive=True)
    why = "" if pose is not None else (f"the straight arm {angle:g} rad from hanging on the side that swings into an "
                                       "obstacle (crossdyn.drive.profiles.swing_pose)")
    return ContactScenarioProfile(spec, "swing", swing_pose(spec, angle) if pose is None else pose, torque,
                                  velocity, why)


def _damped_ik(spec: ArmSpec, target, q_start, iterations: int = 200) -> np.ndarray:
    """A configuration near ``q_start`` whose tip is at ``target`` (damped least squares, λ = 1e-3); raises
    :class:`ProfileError` when the target is out of reach (residual > 1e-9 m)."""
    from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian

    p = spec.params()
    q = np.array(q_start, dtype=float)
    target = np.asarray(target, dtype=float)
    for _ in range(iterations):
        e = target - end_effector(p, q)
        if np.linalg.norm(e) < 1e-13:
            break
        J = end_effector_jacobian(p, q)
        q = q + J.T @ np.linalg.solve(J @ J.T + 1e-6 * np.eye(2), e)
    q = np.angle(np.exp(1j * q))  # each angle in (−π, π]
    if np.linalg.norm(target - end_effector(p, q)) > 1e-9:
        raise ProfileError(f"press: the tip cannot reach ({target[0]:.4g}, {target[1]:.4g}) m (reach "
                           f"{spec.reach():.4g} m); give point=")
    return q


class PressProfile(ComputedTorqueProfile):
    """A computed-torque press of the tip against obstacle ``obstacle`` with a desired normal force F_d:

        τ = M(q)(q̈_d + K_d ė + K_p e) + C(q, q̇) q̇ + G(q) + F(q̇) + [δ(q) > 0] J_tip(q)ᵀ(−F_d n)

    (analytic model; δ the tip sphere's penetration of the obstacle, n its normal).  The desired motion is a
    quintic, rest to rest in ``time`` s, from the approach pose (tip ``approach`` m out from the contact) to the
    press pose q_p, whose tip sphere penetrates by δ* = F_d / k at ``point`` (default: the obstacle's surface
    point nearest the base).  At rest at q_p the contact law gives F_n = k δ* = F_d and the two force terms
    cancel; the equilibrium of M K_p (q_p − q) + J_tipᵀ n (F_n − F_d) = 0 is q = q_p, so the steady normal
    force is F_d exactly (with friction μ > 0 the tangential force vanishes at rest).  Starts at rest at the
    approach pose (``start``).
    """

    name = "press"

    def __init__(self, spec: ArmSpec, force=20.0, obstacle=1, point=None, approach=0.05, time=0.5, kp=400.0,
                 kd=40.0, friction: bool = True):
        from crossdyn.analytic.laws.contact import ContactLaw
        from crossdyn.drive.trajectories import quintic

        law = ContactLaw.of(spec)
        if law is None:
            raise ProfileError("press: the arm has no [contact] and [[obstacles]] to press against")
        self.force = _scalar(force, "force", positive=True)
        if isinstance(obstacle, bool) or not float(obstacle).is_integer() or not 1 <= int(obstacle) <= len(law.points):
            raise ProfileError(f"obstacle: must be 1 … {len(law.points)}, got {obstacle!r}")
        self.obstacle = int(obstacle)
        a, nrm = law.points[self.obstacle - 1], law.normals[self.obstacle - 1]
        if point is None:
            surface = (a @ nrm) * nrm  # the surface point nearest the base (the origin's projection)
        else:
            pt = np.asarray(per_joint(point, 2, "point", ProfileError), dtype=float)
            surface = pt - ((pt - a) @ nrm) * nrm
        self.approach = _scalar(approach, "approach", positive=True)
        self.delta_star = self.force / law.stiffness
        self.contact_tip = surface + (law.radius - self.delta_star) * nrm
        self.approach_tip = self.contact_tip + (self.delta_star + self.approach) * nrm
        self.normal, self._law = nrm, law
        hang = hanging_configuration(spec)
        guess = hang + np.array([0.3 * (-1) ** i for i in range(spec.n)])  # away from the straight (singular) arm
        q_far = _damped_ik(spec, self.approach_tip, guess)
        q_press = _damped_ik(spec, self.contact_tip, q_far)
        inside = _tip_inside(spec, q_far)
        if inside:
            raise ProfileError(f"press: the approach pose touches obstacle(s) {', '.join(map(str, inside))}")
        self.move_time = _scalar(time, "time", positive=True)
        super().__init__(spec, quintic([0.0, self.move_time], [q_far, q_press]), kp, kd, friction)
        self.q_press = q_press
        self.start = (q_far.copy(), np.zeros(spec.n))

    def __call__(self, t, q, qd):
        from crossdyn.analytic.kinematics import end_effector, end_effector_jacobian

        tau = super().__call__(t, q, qd)
        tip = end_effector(self._p, q)
        if self._law.penetration(tip)[self.obstacle - 1] > 0.0:
            tau = tau + end_effector_jacobian(self._p, q).T @ (-self.force * self.normal)
        return tau

    def params(self):
        return {**super().params(), "name": self.name, "force_n": self.force, "obstacle": self.obstacle,
                "normal": self.normal.tolist(), "press_tip_m": self.contact_tip.tolist(),
                "approach_tip_m": self.approach_tip.tolist(), "press_pose_rad": self.q_press.tolist(),
                "penetration_at_press_m": self.delta_star,
                "law": "M(q)(qdd_d + kd*(qd_d - qd) + kp*(q_d - q)) + C(q,qd)qd + G(q) + F(qd) "
                       "+ [d > 0] J_tip^T (-F_d n)"}


# ------------------------------------------------------------------------------------------ registry
DEFAULT_TORQUE_FRACTION = 0.2
"""Open-loop profiles built by name without torques apply this fraction of each joint's gravity torque scale
(:func:`joint_gravity_scale`): enough to move the arm visibly, too little to flip it over."""

DEFAULT_STEP_RAD = 0.5
"""Closed-loop profiles built by name without a target move every joint this far from hanging."""

DEFAULT_MOVE_S = 2.0
"""Duration of the default computed-torque / pd-gravity trajectory (quintic, rest to rest)."""


def default_move(spec: ArmSpec, kind: str = "quintic", time: float = DEFAULT_MOVE_S, start=None, to=None):
    """A rest-to-rest move from ``start`` (default: hanging) to ``to`` (default: start + 0.5 rad per joint)
    in ``time`` seconds, ``kind`` cubic or quintic."""
    from crossdyn.drive.trajectories import cubic, quintic

    q_a = hanging_configuration(spec) if start is None else _vector(start, spec.n, "from")
    q_b = q_a + DEFAULT_STEP_RAD if to is None else _vector(to, spec.n, "to")
    time = _scalar(time, "time", positive=True)
    if kind not in ("cubic", "quintic"):
        raise ProfileError(f"kind: must be cubic or quintic, got {kind!r}")
    return (cubic if kind == "cubic" else quintic)([0.0, time], [q_a, q_b])


def _torque_default(spec):
    return DEFAULT_TORQUE_FRACTION * joint_gravity_scale(spec)


def _make_constant(spec, **kw):
    kw.setdefault("value", _torque_default(spec))
    return ConstantProfile(spec.n, **kw)


def _make_step(spec, **kw):
    kw.setdefault("after", _torque_default(spec))
    kw.setdefault("time", 0.5)
    return StepProfile(spec.n, **kw)


def _make_sine(spec, **kw):
    kw.setdefault("amplitude", _torque_default(spec))
    kw.setdefault("frequency", 0.5)
    return SineProfile(spec.n, **kw)


def _make_chirp(spec, **kw):
    kw.setdefault("amplitude", _torque_default(spec))
    return ChirpProfile(spec.n, **kw)


def _make_multisine(spec, **kw):
    kw.setdefault("amplitude", _torque_default(spec))
    return MultiSineProfile(spec.n, **kw)


def _make_pd(spec, **kw):
    if kw.get("target") is None:
        kw["target"] = hanging_configuration(spec) + DEFAULT_STEP_RAD
    return PDGravityProfile(spec, **kw)


def _make_ct(spec, **kw):
    if kw.get("trajectory") is None:
        kw["trajectory"] = default_move(spec)
    return ComputedTorqueProfile(spec, **kw)


PROFILES = {
    "zero": lambda spec, **kw: ZeroProfile(spec.n, **kw),
    "constant": _make_constant,
    "step": _make_step,
    "sine": _make_sine,
    "chirp": _make_chirp,
    "multisine": _make_multisine,
    "multisine-motion": lambda spec, **kw: MotionMultiSineProfile(spec, **kw),
    "csv": lambda spec, **kw: CSVProfile(spec.n, **kw),
    "pd-gravity": _make_pd,
    "computed-torque": _make_ct,
    "drop": _make_drop,
    "swing": _make_swing,
    "press": lambda spec, **kw: PressProfile(spec, **kw),
}
"""Builders by name; parameters left out get the defaults of :data:`PROFILE_PARAMS` (spec-dependent ones:
torques scale with :func:`joint_gravity_scale`, targets start from :func:`hanging_configuration`)."""

_G = f"{DEFAULT_TORQUE_FRACTION:g} x each joint's gravity torque scale"


@dataclass(frozen=True)
class ProfileParam:
    """One parameter of a profile as the command line takes it (``--profile NAME@key=value``)."""

    key: str
    kind: str
    """``vector`` (one number, or n comma-separated: one per joint), ``number``, ``integers`` (comma-separated),
    ``choice``, ``bool``, ``file``."""
    unit: str
    default: str
    doc: str
    choices: tuple = ()


PROFILE_PARAMS: dict[str, tuple[ProfileParam, ...]] = {
    "zero": (),
    "constant": (ProfileParam("value", "vector", "N m", _G, "torque held at every joint"),),
    "step": (ProfileParam("after", "vector", "N m", _G, "torque from `time` on"),
             ProfileParam("time", "vector", "s", "0.5", "switching time"),
             ProfileParam("before", "vector", "N m", "0", "torque before `time`")),
    "sine": (ProfileParam("amplitude", "vector", "N m", _G, "A in offset + A sin(2 pi f t + phase)"),
             ProfileParam("frequency", "vector", "Hz", "0.5", "f"),
             ProfileParam("phase", "vector", "rad", "0", "phase"),
             ProfileParam("offset", "vector", "N m", "0", "offset")),
    "chirp": (ProfileParam("amplitude", "vector", "N m", _G, "amplitude"),
              ProfileParam("f0", "number", "Hz", "0.1", "start frequency"),
              ProfileParam("f1", "number", "Hz", "5", "end frequency (held after `duration`)"),
              ProfileParam("duration", "number", "s", "1", "sweep time"),
              ProfileParam("phase", "vector", "rad", "0", "phase"),
              ProfileParam("offset", "vector", "N m", "0", "offset")),
    "multisine": (ProfileParam("amplitude", "vector", "N m", _G, "peak torque"),
                  ProfileParam("base_frequency", "number", "Hz", "0.5", "f0 (harmonics are multiples)"),
                  ProfileParam("harmonics", "integers", "-", "1,2,3,4,5", "harmonic numbers"),
                  ProfileParam("offset", "vector", "N m", "0", "offset")),
    "multisine-motion": (ProfileParam("amplitude", "vector", "rad", "0.05", "joint motion amplitude"),
                         ProfileParam("base_frequency", "number", "Hz", "0.25", "f0"),
                         ProfileParam("harmonics", "integers", "-", "1,2,3", "harmonic numbers"),
                         ProfileParam("center", "vector", "rad", "hanging", "configuration linearised about")),
    "csv": (ProfileParam("interpolation", "choice", "-", "linear", "between rows", CSVProfile.INTERPOLATIONS),),
    "pd-gravity": (ProfileParam("target", "vector", "rad", f"hanging + {DEFAULT_STEP_RAD:g} per joint",
                                "fixed set-point (q_d' = 0)"),
                   ProfileParam("trajectory", "file", "-", "none", "trajectory TOML file to track instead of target"),
                   ProfileParam("kp", "vector", "N m/rad", "100", "K_p"),
                   ProfileParam("kd", "vector", "N m s/rad", "20", "K_d")),
    "computed-torque": (
        ProfileParam("trajectory", "file", "-", f"quintic, hanging -> +{DEFAULT_STEP_RAD:g} rad in "
                     f"{DEFAULT_MOVE_S:g} s", "trajectory TOML file (joint or Cartesian way-points)"),
        ProfileParam("to", "vector", "rad", f"start + {DEFAULT_STEP_RAD:g}", "end of the default move"),
        ProfileParam("from", "vector", "rad", "--q0, else hanging", "start of the default move"),
        ProfileParam("time", "number", "s", f"{DEFAULT_MOVE_S:g}", "duration of the default move"),
        ProfileParam("kind", "choice", "-", "quintic", "spline of the default move", ("cubic", "quintic")),
        ProfileParam("kp", "vector", "1/s^2", "400", "K_p (e'' + K_d e' + K_p e = 0)"),
        ProfileParam("kd", "vector", "1/s", "40", "K_d"),
        ProfileParam("friction", "bool", "-", "true", "compensate joint friction F(q')")),
    "drop": (ProfileParam("pose", "vector", "rad", f"straight arm, tip {DROP_HEIGHT:g} m clear of the obstacles",
                          "start pose (at rest)"),
             ProfileParam("torque", "vector", "N m", "0", "torque held throughout"),
             ProfileParam("velocity", "vector", "rad/s", "0", "start velocity")),
    "swing": (ProfileParam("pose", "vector", "rad", "straight arm `angle` from hanging, towards an obstacle",
                           "start pose (at rest)"),
              ProfileParam("angle", "number", "rad", f"{SWING_ANGLE:g}", "swing amplitude of the default pose"),
              ProfileParam("torque", "vector", "N m", "0", "torque held throughout"),
              ProfileParam("velocity", "vector", "rad/s", "0", "start velocity")),
    "press": (ProfileParam("force", "number", "N", "20", "desired normal force F_d"),
              ProfileParam("obstacle", "number", "-", "1", "which [[obstacles]] entry (1-based)"),
              ProfileParam("approach", "number", "m", "0.05", "start: the tip this far out from the contact"),
              ProfileParam("time", "number", "s", "0.5", "duration of the quintic approach"),
              ProfileParam("kp", "vector", "1/s^2", "400", "K_p"),
              ProfileParam("kd", "vector", "1/s", "40", "K_d")),
}
"""The command-line parameters of every profile, with unit and default (``crossdyn compare --list-profiles``)."""


def profile_names() -> list[str]:
    return list(PROFILES)


def make_profile(name: str, spec: ArmSpec, **params) -> Profile:
    """Build the profile ``name`` for ``spec`` (parameters as the profile class takes them; defaults:
    :data:`PROFILE_PARAMS`)."""
    if name not in PROFILES:
        raise ProfileError(f"unknown profile {name!r}; valid profiles: {', '.join(profile_names())}")
    try:
        return PROFILES[name](spec, **params)
    except TypeError as e:
        raise ProfileError(f"profile {name!r}: {e}") from None


class MotionMultiSineProfile(OpenLoopProfile):
    """A multi-sine whose torques would move the *linearised* arm along a chosen small joint motion.

    The reference motion is q_r,i(t) = c_i + a_i s(t − d_i), s(t) = Σ_k sin(ω_k t + φ_k) / peak (harmonics
    ω_k = 2π h_k f0, Schroeder phases, joint delays d_i = i/(n f0), peak-normalised, so |q_r − c| ≤ a);
    the torque is its inverse dynamics linearised about c (default: the hanging configuration):

        τ(t) = G(c) + K(c) (q_r − c) + M(c) q̈_r,   K = ∂G/∂q

    i.e. per joint a fixed sum of sinusoids.  Because the torque follows the arm's own modes, the arm stays
    within a few ``amplitude`` of c for any harmonic content, even near a natural frequency (an arm started
    at rest at c also oscillates freely by about ``amplitude``).  M(c), K(c) come from the analytic model
    and are recorded in :meth:`params`.
    """

    name = "multisine-motion"

    def __init__(self, spec: ArmSpec, amplitude=0.05, base_frequency=0.25, harmonics=(1, 2, 3), center=None):
        super().__init__(spec.n)
        self.spec = spec
        self.amplitude = _vector(amplitude, self.n, "amplitude")
        self.center = hanging_configuration(spec) if center is None else _vector(center, self.n, "center")
        base = MultiSineProfile(self.n, 1.0, base_frequency, harmonics)
        self.base_frequency, self.harmonics = base.base_frequency, base.harmonics
        self.phases, self.delays, self.peak, self._w = base.phases, base.delays, base.peak, base._w
        self.M = analytic.mass_matrix(spec, self.center)
        self.K = gravity_stiffness(spec, self.center)
        self.offset = analytic.gravity(spec, self.center)
        # C[j, i, k] = a_i (K_ji − ω_k² M_ji) / peak
        self._C = (self.K[:, :, None] - self._w**2 * self.M[:, :, None]) * (self.amplitude / self.peak)[None, :, None]

    def sample(self, times):
        t = np.asarray(times, dtype=float).reshape(-1, 1, 1) - self.delays[:, None]  # (T, n, 1)
        S = np.sin(t * self._w + self.phases)  # (T, n, K)
        return self.offset + np.einsum("tik,jik->tj", S, self._C)

    def reference(self, times) -> np.ndarray:
        """The joint motion q_r(t) the torque is designed for (shape (K, n))."""
        t = np.asarray(times, dtype=float).reshape(-1, 1, 1) - self.delays[:, None]
        return self.center + (self.amplitude / self.peak) * np.sin(t * self._w + self.phases).sum(axis=-1)

    def params(self):
        return {"name": self.name, "closed_loop": False, "n": self.n, "arm": self.spec.name,
                "amplitude_rad": self.amplitude.tolist(), "center": self.center.tolist(),
                "base_frequency": self.base_frequency, "harmonics": self.harmonics.tolist(),
                "phases": self.phases.tolist(), "phase_rule": "Schroeder: -pi*k*(k-1)/K",
                "joint_delays": self.delays.tolist(), "peak_normalisation": self.peak,
                "mass_matrix_at_center": self.M.tolist(), "gravity_stiffness_at_center": self.K.tolist(),
                "gravity_at_center": self.offset.tolist(),
                "law": "G(c) + K(c)(q_r - c) + M(c) qdd_r, q_r = c + a*s(t - d)"}


def default_profile(spec: ArmSpec, amplitude: float = 0.05) -> Profile:
    """The comparison default: a gentle multi-sine about the hanging equilibrium (start there:
    :func:`hanging_configuration`, at rest); for an arm with contact, the scenario its obstacles call for
    (:func:`contact_default_profile`).

    :class:`MotionMultiSineProfile` with ``amplitude`` rad per joint and harmonics 1, 2, 3 of 0.25 Hz (one
    period in 4 s), which lie around the first natural frequencies of the presets (≈ 0.2–0.5 Hz): peak
    torques ≈ 4–16 % of ``spec.torque_scale()`` (2.6 N m at joint 1 of ``planar3r``), the arm swings by
    about 0.1 rad and neighbouring trajectories stay neighbours (a 1e-9 rad perturbation grows < 10× in
    5 s for 2R…8R presets) — not chaotic.
    """
    if spec.has_contact:
        return contact_default_profile(spec)
    return MotionMultiSineProfile(spec, amplitude=amplitude, base_frequency=0.25, harmonics=(1, 2, 3))


def contact_default_profile(spec: ArmSpec) -> Profile:
    """``drop`` (from :func:`drop_pose`) when an obstacle faces against gravity (a floor: n·g < 0), else ``swing``
    (from :func:`swing_pose`): planar2r-floor drops onto its floor, planar3r-wall swings into its wall."""
    g = np.asarray(spec.gravity[:2], dtype=float)
    floors = [o for o in spec.obstacles if float(np.dot(o.normal[:2], g)) < 0.0]
    return make_profile("drop" if floors else "swing", spec)
