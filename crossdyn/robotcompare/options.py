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
    reads the format (less :data:`DEFAULT_LEFT_OUT`); ``duration``/``dt`` in s (dt: see ``choose_dt``); ``n_states`` random states of the
    static metrics from ``seed`` (which also draws the multi-sine's phases)."""

    engines: tuple[str, ...] | None = None
    duration: float = 2.0
    dt: float = 1e-3
    n_states: int = 100
    seed: int = 0
    choose_dt: bool = True
    """Where explicit stepping at ``dt`` is predicted unstable on the file's damping (a light body behind a damped
    joint), use the largest stable dt/2ᵏ instead (:mod:`crossdyn.robotcompare.plan`); False (the user gave --dt):
    keep ``dt``, warn, and call a diverging engine INCONCLUSIVE (unstable step)."""
    effort: bool = False
    """``--effort``: every run's tracking torque clipped to the file's effort limits (scaled so that the motion
    saturates a joint; :mod:`crossdyn.robotcompare.effort`) and the ``effort`` group judged; False: unclipped, as
    the engines step the file (the default motion kept within 90 % of the limits)."""
    tolerances: Tolerances = field(default_factory=Tolerances)
    derivatives: bool = False
    """``--derivatives``: every engine that offers derivatives gets the ``derivatives`` group
    (:mod:`crossdyn.comparison.groups.derivatives`); False: no such group, the run otherwise unchanged."""
    native: bool = False
    """``compare ROBOT --native``: after the comparison, every engine family that enforces joint limits by itself
    runs a motion driven into the file's limits with its enforcement on, characterised per limit contact, not judged
    (:mod:`crossdyn.robotcompare.limits`)."""
    progress: Callable[[str], None] | None = None
