"""The profile protocol: a torque source τ(t, q, q̇) sampled with a zero-order hold, and :func:`held`.

A profile is evaluated once at the start of each step, τ_k = profile(t_k, q_k, q̇_k) with t_k = k·dt and
(q_k, q̇_k) the engine's *own* state, and τ_k is held over [t_k, t_k + dt) (:mod:`crossdyn.conventions`).
Open-loop profiles ignore the state; their :meth:`Profile.sample` evaluates many times at once.
:func:`held` re-samples a profile only every ``period`` seconds: a run at dt/2 that keeps the dt hold.
"""
from __future__ import annotations

import abc
import math
from typing import Any

import numpy as np

from crossdyn.errors import InputError
from crossdyn.inputs.trajectories import per_joint


class ProfileError(InputError):
    """A torque profile (or the file describing one) is invalid: an input error (a ``ValueError``; the command
    line exits 2 with its message)."""


def _vector(value, n: int, name: str) -> np.ndarray:
    """``value`` as n finite floats (a scalar applies to every joint), else :class:`ProfileError`."""
    return per_joint(value, n, name, ProfileError)


def _scalar(value, name: str, positive: bool = False) -> float:
    """``value`` as one finite float (> 0 with ``positive``), else :class:`ProfileError`."""
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
    def params(self) -> dict[str, Any]:
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


class HeldOpenLoop(OpenLoopProfile):
    """An open-loop ``profile`` re-sampled every ``period`` s: τ(t) = profile(⌊t/period⌋·period)."""

    def __init__(self, profile: Profile, period: float):
        super().__init__(profile.n)
        self.profile, self.period, self.name = profile, period, profile.name

    def sample(self, times):
        grid = np.floor(np.asarray(times) / self.period + 1e-9) * self.period
        return self.profile.sample(grid)

    def params(self):
        return {**self.profile.params(), "held_for_s": self.period}

    def validate(self, n: int, duration: float) -> None:
        self.profile.validate(n, duration)


class HeldClosedLoop(Profile):
    """A closed-loop ``profile`` whose torque, computed at the start of each ``period`` (from the state then), is
    held for the whole period."""

    closed_loop = True

    def __init__(self, profile: Profile, period: float):
        super().__init__(profile.n)
        self.profile, self.period, self.name = profile, period, profile.name
        self._next, self._tau = -math.inf, np.zeros(profile.n)

    def __call__(self, t, q, qd):
        if t >= self._next - 1e-9 * self.period:
            self._tau = np.array(self.profile(t, q, qd), dtype=float)
            self._next = (math.floor(t / self.period + 1e-9) + 1) * self.period
        return self._tau

    def params(self):
        return {**self.profile.params(), "held_for_s": self.period}


def held(profile: Profile, period: float) -> Profile:
    """``profile`` re-sampled only every ``period`` s: runs at dt/2 that keep the dt zero-order hold.

    Open loop: τ(t) = profile(⌊t/period⌋·period) (:class:`HeldOpenLoop`).  Closed loop: the torque computed at
    the start of each period (from the state then) is held for the whole period (:class:`HeldClosedLoop`).
    """
    if not profile.closed_loop:
        return HeldOpenLoop(profile, period)
    return HeldClosedLoop(profile, period)
