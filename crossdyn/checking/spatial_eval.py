"""Evaluating a spatial arm's equations (issue 27): random states, the user's M, C, G through
:class:`~crossdyn.equations.params.NamedParams` (Python, sandboxed or not) or a named Octave struct, and crossdyn's
spatial reference (:mod:`crossdyn.spatial`)."""
from __future__ import annotations

import io

import numpy as np

from crossdyn import spatial
from crossdyn.checking.spatial_arms import SpatialArm
from crossdyn.equations.params import NamedParams
from crossdyn.equations.python_file import UserModel, quiet


def draw_states(arm: SpatialArm, count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    Q = rng.uniform(-np.pi, np.pi, (count, arm.n))
    lo, hi = arm.prismatic_range
    for i, t in enumerate(arm.types):
        if t == "P":
            Q[:, i] = rng.uniform(lo, hi, count)
    return Q, rng.uniform(-2.0, 2.0, (count, arm.n))


def evaluate_user(model, arm: SpatialArm, sets: list[dict], Q: np.ndarray, QD: np.ndarray,
                  sink: io.StringIO, roles=("M", "C", "G")) -> dict[str, np.ndarray]:
    """The user's functions at every set × state: "M" (S, N, n, n), "C" or "Cqd", "G" (S, N, n)."""
    labels = ["the arm's own parameters" if k == 0 else f"random parameter set {k}" for k in range(len(sets))]
    P = np.array([arm.row(v) for v in sets])
    if isinstance(model, UserModel):
        raw = _loop(model, arm, P, Q, QD, sink, labels, roles)
    else:
        raw = model.evaluate(Q, QD, P, roles=roles, labels=labels, layout=arm.layout)
        printed = getattr(model, "printed", None)
        if printed:
            sink.write("".join(line + "\n" for line in printed))
            printed.clear()
    out: dict[str, np.ndarray] = {k: np.asarray(raw[k], float) for k in ("M", "G") if k in raw}
    if "C" in raw:
        C = np.asarray(raw["C"], float)
        if model.c_kind == "matrix":
            out["C"] = C
            out["Cqd"] = np.einsum("skij,kj->ski", C, QD)
        else:
            out["Cqd"] = C
    return out


def _loop(model: UserModel, arm: SpatialArm, P, Q, QD, sink, labels, roles) -> dict[str, np.ndarray]:
    n, S, N = arm.n, len(P), len(Q)
    out: dict[str, np.ndarray] = {}
    with quiet(sink):
        for k in range(S):
            p = NamedParams(arm.layout, P[k], n)
            for i in range(N):
                if model.has("M") and "M" in roles:
                    out.setdefault("M", np.empty((S, N, n, n)))[k, i] = model.M(Q[i], p, labels[k])
                if model.has("C") and "C" in roles:
                    _, c = model.C(Q[i], QD[i], p, labels[k])
                    out.setdefault("C", np.empty((S, N) + c.shape))[k, i] = c
                if model.has("G") and "G" in roles:
                    out.setdefault("G", np.empty((S, N, n)))[k, i] = model.G(Q[i], p, labels[k])
    return out


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
