"""Random parameter sets and starts of an arm's kind, for batched comparisons.

Arm i of a batch keeps the spec's joints, gravity, damping and friction; its link lengths, masses,
centre-of-mass ratios Lc/L and inertias are the spec's scaled by independent factors drawn uniformly
from [1 − spread, 1 + spread] (Lc kept within the link).  Its start is the hanging equilibrium plus a
uniform offset in [−start_spread, start_spread] rad per joint, at rest.
"""
from __future__ import annotations

import numpy as np

from crossdyn.models.spec import ArmParams, ArmSpec

MAX_SPREAD = 0.9


def random_params(spec: ArmSpec, N: int, seed: int = 0, spread: float = 0.2) -> ArmParams:
    """N parameter sets around ``spec`` (fields (N, n); gravity (2,), the spec's)."""
    if not 0 <= spread <= MAX_SPREAD:
        raise ValueError(f"spread must be in [0, {MAX_SPREAD}], got {spread!r}")
    rng = np.random.default_rng(seed)
    p = spec.params()
    n = spec.n

    def scale():
        return rng.uniform(1 - spread, 1 + spread, (N, n))

    L = p.L * scale()
    m = p.m * scale()
    Lc = np.clip(p.Lc / p.L * scale(), 0.0, 1.0) * L
    J = p.J * scale()
    return ArmParams(L=L, m=m, Lc=Lc, J=J, b=np.broadcast_to(p.b, (N, n)).copy(),
                     fc=np.broadcast_to(p.fc, (N, n)).copy(), gravity=p.gravity.copy())


def random_starts(spec: ArmSpec, N: int, seed: int = 0, start_spread: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """(q0, q̇0), each (N, n): uniform offsets about a centre, at rest.  The centre is the hanging configuration
    when the default start (:func:`crossdyn.inputs.start.default_start`, the one ``compare`` uses) is the hanging
    start, else that default start (the same valid pose ``compare`` and ``sweep`` start from)."""
    from crossdyn.inputs.profiles import hanging_configuration
    from crossdyn.inputs.start import default_start

    chosen = default_start(spec)
    center = hanging_configuration(spec) if chosen.rule == "hanging" else chosen.q
    rng = np.random.default_rng([seed, 1])
    q0 = center + rng.uniform(-start_spread, start_spread, (N, spec.n))
    return q0, np.zeros((N, spec.n))


def arm_dict(p: ArmParams, i: int) -> dict:
    """Parameters of arm ``i`` as plain lists (per link)."""
    return {k: [float(x) for x in np.asarray(getattr(p, k))[i]] for k in ("L", "m", "Lc", "J")}
