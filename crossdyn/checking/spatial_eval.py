"""A spatial arm's model for the check (issue 27): random states and crossdyn's spatial reference
(:mod:`crossdyn.spatial`).  The user's M, C, G are evaluated by the one
:func:`crossdyn.checking.evaluation.evaluate_user` (re-exported here), with the :class:`SpatialArm` as its
parameters view: ``p`` a :class:`~crossdyn.equations.params.NamedParams` (Python, sandboxed or not) or a named
Octave struct."""
from __future__ import annotations

import numpy as np

from crossdyn import spatial
from crossdyn.checking.evaluation import evaluate_user
from crossdyn.checking.spatial_arms import SpatialArm

__all__ = ["draw_states", "evaluate_user", "reference"]


def draw_states(arm: SpatialArm, count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    Q = rng.uniform(-np.pi, np.pi, (count, arm.n))
    lo, hi = arm.prismatic_range
    for i, t in enumerate(arm.types):
        if t == "P":
            Q[:, i] = rng.uniform(lo, hi, count)
    return Q, rng.uniform(-2.0, 2.0, (count, arm.n))


def reference(arm: SpatialArm, sets: list[dict], Q: np.ndarray, QD: np.ndarray) -> dict[str, np.ndarray]:
    """crossdyn.spatial's M (CRBA), C q̇ (RNEA bias − gravity) and G at every set × state."""
    out: dict[str, list] = {"M": [], "Cqd": [], "G": []}
    for values in sets:
        model = arm.model(values)
        G = spatial.gravity_torque(model, Q)
        out["M"].append(spatial.crba(model, Q))
        out["Cqd"].append(spatial.bias(model, Q, QD) - G)
        out["G"].append(G)
    return {k: np.stack(v) for k, v in out.items()}
