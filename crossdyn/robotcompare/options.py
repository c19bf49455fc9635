"""What a robot-file comparison runs: :class:`RobotCompareOptions`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from crossdyn.comparison.tolerances import Tolerances

DEFAULT_LEFT_OUT = {"pybullet-noflag": "PyBullet's default loading, which replaces every inertia of the file by "
                                       "one computed from the collision shapes (name it in --engines to see it)"}
"""File engines not run unless named, and why: a trap, not a reading of the file."""


@dataclass(frozen=True)
class RobotCompareOptions:
    """``engines``: file-engine specs (``name`` or ``name@key=value,…``), None for every installed engine that
    reads the format (less :data:`DEFAULT_LEFT_OUT`); ``duration``/``dt`` in s; ``n_states`` random states of the
    static metrics from ``seed`` (which also draws the multi-sine's phases)."""

    engines: tuple[str, ...] | None = None
    duration: float = 0.5
    dt: float = 1e-3
    n_states: int = 100
    seed: int = 0
    tolerances: Tolerances = field(default_factory=Tolerances)
    progress: Callable[[str], None] | None = None
