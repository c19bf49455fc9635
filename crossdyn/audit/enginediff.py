"""The dynamics side of the audit: random states within the file's limits, M(q), G(q), C(q, q̇)q̇ and inverse
dynamics from crossdyn's spatial reference and from each engine that reads the file, and their comparison.

States (:func:`sample_states`): q uniform within [lower, upper] (a joint without limits: [−π, π] rad or [−0.5,
0.5] m); q̇ uniform within ±v (v: the file's velocity limit, or :data:`DEFAULT_VELOCITY`: 2 rad/s, 0.5 m/s); q̈
uniform within ±v / (0.1 s) (reaching the velocity limit in a tenth of a second, :data:`ACCEL_TIME`).

A quantity's difference is judged relative to its scale, the largest |entry| of the reference over all states:
max |X_other − X_ref| / max |X_ref|; where the reference is 0 throughout, the scale is 0 and the difference is
judged (and said) in absolute terms.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.audit.result import AGREE, DIFFERS, DynamicsCheck
from crossdyn.robots.model import RobotModel

QUANTITIES = ("M", "G", "C·q̇", "ID")
"""M(q); G(q); C(q, q̇)q̇ = bias − G; inverse dynamics M q̈ + C q̇ + G (armature included)."""

DEFAULT_VELOCITY = {True: 2.0, False: 0.5}
"""Velocity scale (rad/s for rotating joints, m/s for sliding ones) where the file gives no velocity limit."""
UNLIMITED_RANGE = {True: np.pi, False: 0.5}
"""Half-range of q (rad, m) for a joint without position limits."""
ACCEL_TIME = 0.1
"""q̈ ranges within ±v / ACCEL_TIME (s)."""


@dataclass(frozen=True, eq=False)
class States:
    Q: np.ndarray
    QD: np.ndarray
    QDD: np.ndarray
    description: str


def sample_states(model: RobotModel, n_states: int, seed: int) -> States:
    """``n_states`` random states within the limits (see the module docstring), reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    lo, hi, v = [], [], []
    for j in model.joints:
        rot = j.type.rotates
        lo.append(-UNLIMITED_RANGE[rot] if j.lower is None else j.lower)
        hi.append(UNLIMITED_RANGE[rot] if j.upper is None else j.upper)
        v.append(j.velocity if j.velocity else DEFAULT_VELOCITY[rot])
    low, high, vel = np.array(lo), np.array(hi), np.array(v)
    Q = rng.uniform(low, high, size=(n_states, model.n))
    QD = rng.uniform(-vel, vel, size=(n_states, model.n))
    QDD = rng.uniform(-vel / ACCEL_TIME, vel / ACCEL_TIME, size=(n_states, model.n))
    given = sum(1 for j in model.joints if j.velocity)
    text = (f"{n_states} states, seed {seed}: q uniform within the limits of {model.source} (±π rad, ±0.5 m "
            f"without), q̇ within ± the velocity limit ({given} of {model.n} joints give one; else 2 rad/s, 0.5 "
            f"m/s), q̈ within ± that / {ACCEL_TIME} s")
    return States(Q, QD, QDD, text)


def reference(model: RobotModel, s: States, armature: bool = True) -> dict[str, np.ndarray]:
    """M, G, C·q̇ and ID from crossdyn's spatial reference (:mod:`crossdyn.spatial.fast`: the compiled kernels,
    equal to the NumPy path to rounding)."""
    from crossdyn.spatial import fast as spatial

    G = np.asarray(spatial.gravity_torque(model, s.Q))
    bias = np.asarray(spatial.bias(model, s.Q, s.QD))
    return {"M": np.asarray(spatial.crba(model, s.Q, armature=armature)), "G": G, "C·q̇": bias - G,
            "ID": np.asarray(spatial.rnea(model, s.Q, s.QD, s.QDD, armature=armature))}


def engine_values(engine, s: States) -> dict[str, np.ndarray]:
    """The same four quantities as ``engine`` (a :class:`crossdyn.engines.files.FileEngine`) reads the file."""
    G = np.asarray(engine.gravity(s.Q))
    return {"M": np.asarray(engine.mass_matrix(s.Q)), "G": G, "C·q̇": np.asarray(engine.bias(s.Q, s.QD)) - G,
            "ID": np.asarray(engine.inverse_dynamics(s.Q, s.QD, s.QDD))}


def relative(ref: np.ndarray, other: np.ndarray) -> tuple[float, float, float, np.ndarray]:
    """(max relative, max absolute, scale, per-state relative) of ``other`` against ``ref``; the scale is the
    largest |entry| of ``ref``.  Where every entry of ``ref`` is 0 (G of a horizontal robot, M of a file whose links
    carry no mass) the scale is 0 and the figures are absolute: no relative figure against a zero scale."""
    diff = np.abs(np.asarray(other, dtype=float) - ref).reshape(len(ref), -1)
    scale = float(np.abs(ref).max()) if ref.size else 0.0
    per_state = diff.max(axis=1) / (scale or 1.0) if diff.size else np.zeros(len(ref))
    return float(per_state.max(initial=0.0)), float(diff.max(initial=0.0)), scale, per_state


def roundoff(ref: dict[str, np.ndarray], dtype: str | None) -> dict[str, tuple[float, str | None]]:
    """Per quantity, the relative round-off term of an engine computing in ``dtype`` and its origin ((0, None) for
    float64): :func:`crossdyn.engines.precision.static_roundoff` (100 · eps · the physical scale) over the
    quantity's scale.  The physical scale of M is max|M|; of G, C·q̇ and ID the torque scale, the largest |entry|
    of the three at the states (float32 rounds each joint torque relative to the largest torque term it sums: C·q̇
    is bias − G in every engine, G a sum of m g r over the links).  A link's mass off by 1 % moves M or ID by
    ~1e-2 of that link's share, far above 100 eps32 = 1.2e-5."""
    from crossdyn.engines import precision

    if precision.is_float64(dtype):
        return {q: (0.0, None) for q in QUANTITIES}
    assert dtype is not None
    torque = max(float(np.abs(ref[q]).max(initial=0.0)) for q in ("G", "C·q̇", "ID")) or 1.0
    out: dict[str, tuple[float, str | None]] = {}
    for q in QUANTITIES:
        own = float(np.abs(ref[q]).max(initial=0.0)) or 1.0
        phys = own if q == "M" else torque
        term = precision.static_roundoff(dtype, phys) / own
        out[q] = (term, f"{precision.static_origin(dtype)}; scale {phys:.4g} ("
                        + ("max|M|" if q == "M" else "the largest |G|, |C·q̇|, |ID| at the states")
                        + f"), {term:.3g} of max|{q}|")
    return out


def compare(file: str, ref: dict[str, np.ndarray], other: dict[str, np.ndarray], tolerance: float,
            engine: str | None = None, other_file: str | None = None,
            dtype: str | None = None) -> list[DynamicsCheck]:
    """One :class:`DynamicsCheck` per quantity; status ``agree`` or ``differs`` (explanations come later).  An
    engine computing in ``dtype`` narrower than float64 gets its round-off term (:func:`roundoff`) added to
    ``tolerance``, stated in the check's ``tolerance_origin``."""
    out = []
    terms = roundoff(ref, dtype)
    for q in QUANTITIES:
        if not np.all(np.isfinite(other[q])):
            rel, absolute, scale, per = float("inf"), float("inf"), 1.0, np.full(len(ref[q]), np.inf)
        else:
            rel, absolute, scale, per = relative(ref[q], other[q])
        term, origin = terms[q]
        limit = tolerance + term
        out.append(DynamicsCheck(file, q, engine, other_file, rel, absolute, scale, limit, int(ref[q].size),
                                 per, AGREE if rel <= limit else DIFFERS,
                                 tolerance_origin=None if origin is None else f"{tolerance:g} + {origin}"))
    return out
