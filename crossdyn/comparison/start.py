"""Where a comparison's runs start and what drives them: the start state and the profile (the profile held for
dt in the dt/2 self-consistency run is :func:`crossdyn.inputs.profiles.base.held`, re-exported here)."""
from __future__ import annotations

import numpy as np

from crossdyn.inputs.profiles.base import held
from crossdyn.inputs.start import check_start, default_start, hanging_start
from crossdyn.models.spec import ArmSpec

__all__ = ["hanging_start", "default_start", "check_start", "start_state", "resolve_profile", "desired_motion",
           "held"]


def start_state(spec: ArmSpec, profile, q0=None, qd0=None) -> tuple[np.ndarray, np.ndarray]:
    """(q0, q̇0) of a run: as given; else a trajectory-tracking profile's first point (and velocity there);
    else :func:`crossdyn.inputs.start.default_start` at rest (the hanging start when it is valid)."""
    from crossdyn.inputs.profile_options import profile_start

    start = profile_start(profile) if q0 is None or qd0 is None else None
    if q0 is None:
        q0 = start[0] if start is not None else default_start(spec).q
    if qd0 is None:
        qd0 = start[1] if start is not None and np.allclose(np.asarray(q0), start[0]) else np.zeros(spec.n)
    return np.array(q0, dtype=float).reshape(spec.n), np.array(qd0, dtype=float).reshape(spec.n)


def resolve_profile(profile, spec: ArmSpec):
    """A Profile from None (the default multi-sine), a Profile, a profile name or a CSV path."""
    from crossdyn.inputs.profiles import Profile, default_profile

    if profile is None:
        return default_profile(spec)
    if isinstance(profile, Profile):
        return profile
    from crossdyn.inputs.profile_options import parse_profile

    return parse_profile(str(profile), spec)


def desired_motion(profile, times) -> np.ndarray | None:
    """The desired joint motion q_d(t) of a closed-loop profile at ``times`` ((K, n)), or None (open loop)."""
    if not getattr(profile, "closed_loop", False):
        return None
    t = np.asarray(times, dtype=float)
    traj = getattr(profile, "trajectory", None)
    if traj is not None:
        return traj.evaluate(t)[0]
    target = getattr(profile, "target", None)
    if target is not None:
        return np.broadcast_to(np.asarray(target, float), (len(t), len(target))).copy()
    return None
