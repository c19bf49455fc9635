"""Base parameters of a spatial arm (a :class:`~crossdyn.robots.model.RobotModel`), found numerically.

The planar arms have their base parameters in closed form (:mod:`crossdyn.identification.parameters`); a spatial
chain of revolute and prismatic joints with arbitrary axes does not, so they are read off the regressor
(Gautier 1991, "Numerical calculation of the base inertial parameters of robots"):

Full parameter vector θ (the column order of :func:`full_regressor`): per body i = 1 … n the ten
π_i = (m, mx, my, mz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz) of :func:`crossdyn.spatial.parameters` — Pinocchio's order,
first moments m·c and the inertia about the BODY FRAME ORIGIN — then, as for the planar arms, the viscous
friction b_1 … b_n (τ_i += b_i q̇_i), the Coulomb friction f_c1 … f_cn (τ_i += f_ci sign q̇_i) and, with
``armature``, the rotor armature I_a1 … I_an (τ_i += I_ai q̈_i):

    τ = Y(q, q̇, q̈) θ,   Y = [Y_rigid | diag(q̇) | diag(sign q̇) | diag(q̈)],   Y_rigid θ_rigid = RNEA(armature=False).

Reduction (:func:`reduce_columns`), on W = Y stacked at random states (:func:`stacked_regressor`):

1. every column scaled to unit norm (D = diag ‖W_k‖; rank and span do not depend on it, and it puts kg and
   kg m² columns on one footing); a column of norm 0 (a parameter that never acts, e.g. the mass of a body
   turning about a vertical axis through its origin) is dependent with K = 0: unidentifiable;
2. rank r = #{k : |R_kk| > tol} of the QR decomposition with column pivoting (``scipy.linalg.qr(pivoting=True)``)
   of the scaled W, with tol = :data:`RANK_FACTOR` · p · ε · |R_11| (ε = float64 round-off, p columns, |R_11| the
   largest diagonal entry — ‖W‖ up to √p); the gap |R_rr|/|R_(r+1)(r+1)| measured on the presets and the UR5 and
   Panda URDFs is ≥ 4.5e14 (``gap`` records it);
3. which r columns are kept: the first independent ones in :func:`priority` order (distal masses and first moments
   are grouped into proximal inertias and first moments, as in the planar closed form and Khalil's grouping
   rules): QR without pivoting of the scaled W in that order, a column kept when its |R_kk| > tol; the count
   must equal r (else the pivoted QR's own choice is used);
4. with W = [W_b  W_d] in that order and W = Q [R11 R12], K = R11⁻¹ R12 (so W_d = W_b K) and the base parameters

       β = θ_b + K θ_d,   Y_b β = Y θ = τ   (Y_b: the kept columns, unscaled).

Each β_k is named by its combination of standard parameters in words, e.g. ``"Izz1 + Iyy2 + 0.25·m3"``
(entries of the scaled K at or below :data:`NAME_CUTOFF` are round-off, set to 0).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from crossdyn.identification.parameters import ParameterSet
from crossdyn.robots.model import RobotModel

RIGID_KINDS = ("m", "mx", "my", "mz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz")
"""The ten parameters of a body in :func:`crossdyn.spatial.parameters`'s (Pinocchio's) order."""
KEEP_ORDER = ("Izz", "Ixx", "Ixy", "Ixz", "Iyz", "mx", "my", "Iyy", "mz", "m")
"""Within a body, the order in which parameters are preferred as base parameters (:func:`priority`)."""
RANK_FACTOR = 10.0
"""tol = RANK_FACTOR · p · ε · |R_11|: the round-off of a QR of p unit-norm columns is ~p ε |R_11| (Golub & Van
Loan §5.2); 10× margin.  Measured (the six spatial presets, the UR5 and Panda URDFs, with and without friction):
|R_kk|/|R_11| ≤ 1.0e-15 for every dependent column, ≥ 0.39 for every independent one."""
NAME_CUTOFF = 1e-9
"""Entries of the scaled K (unit-norm columns) at or below this are round-off (cos(π/2) = 6e-17 in a DH frame):
set to 0 in K, B and the names.  Real coefficients of the measured presets are ≥ 0.1 scaled."""
STATES = 100
"""Random states stacked for the reduction (each gives n rows)."""
PRISMATIC_RANGE = 1.0
"""m; a prismatic coordinate without limits is drawn in ±this for the reduction."""


def spatial_parameters(model: RobotModel, friction: bool = True, armature: bool = False) -> ParameterSet:
    """θ of ``model`` in :func:`full_regressor`'s column order (names ``m1``, ``mx1``, …, ``Izz1``, ``m2``, …,
    ``b1``, …, ``fc1``, …, ``Ia1``, …; values from the model, friction and armature from its joints)."""
    from crossdyn.spatial import parameters

    pi = parameters(model)
    names, kinds, joints, values = [], [], [], []
    for i in range(model.n):
        for k, kind in enumerate(RIGID_KINDS):
            names.append(f"{kind}{i + 1}")
            kinds.append(kind)
            joints.append(i + 1)
            values.append(float(pi[10 * i + k]))
    extra = ([("b", "damping"), ("fc", "friction")] if friction else []) + ([("Ia", "armature")] if armature else [])
    for kind, attr in extra:
        for i, joint in enumerate(model.joints):
            names.append(f"{kind}{i + 1}")
            kinds.append(kind)
            joints.append(i + 1)
            values.append(float(getattr(joint, attr)))
    return ParameterSet(tuple(names), tuple(kinds), tuple(joints), np.array(values, dtype=float))


def full_regressor(model: RobotModel, Q, QD, QDD, friction: bool = True, armature: bool = False) -> np.ndarray:
    """Y(q, q̇, q̈) with τ = Y θ: (N, n, 10 n [+ 2 n] [+ n]) (the module docstring's columns)."""
    from crossdyn.spatial import regressor

    Q, QD, QDD = (np.atleast_2d(np.asarray(a, dtype=float)) for a in (Q, QD, QDD))
    blocks = [regressor(model, Q, QD, QDD)]
    eye = np.eye(model.n)
    if friction:
        blocks += [QD[:, :, None] * eye, np.sign(QD)[:, :, None] * eye]
    if armature:
        blocks.append(QDD[:, :, None] * eye)
    return np.concatenate(blocks, axis=-1)


def random_states(model: RobotModel, count: int, rng: np.random.Generator, qd_max: float = 3.0,
                  qdd_max: float = 10.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, q̇, q̈), each (count, n): revolute q uniform in [−π, π], prismatic q within the joint's limits (else
    ±:data:`PRISMATIC_RANGE`), q̇ and q̈ uniform within ±``qd_max``, ±``qdd_max``."""
    n = model.n
    lo, hi = np.full(n, -np.pi), np.full(n, np.pi)
    for i, j in enumerate(model.joints):
        if not j.type.rotates:
            ok = j.lower is not None and j.upper is not None and np.isfinite([j.lower, j.upper]).all() \
                and j.upper > j.lower
            lo[i], hi[i] = (j.lower, j.upper) if ok else (-PRISMATIC_RANGE, PRISMATIC_RANGE)
    q = rng.uniform(lo, hi, (count, n))
    return q, rng.uniform(-qd_max, qd_max, (count, n)), rng.uniform(-qdd_max, qdd_max, (count, n))


def stacked_regressor(model: RobotModel, friction: bool = True, armature: bool = False, states: int = STATES,
                      seed: int = 0) -> np.ndarray:
    """W: Y stacked at ``states`` random states (:func:`random_states`, seeded), shape (states · n, p)."""
    q, qd, qdd = random_states(model, states, np.random.default_rng(seed))
    Y = full_regressor(model, q, qd, qdd, friction, armature)
    return Y.reshape(-1, Y.shape[-1])


def priority(full: ParameterSet) -> list[int]:
    """Column indices in the order base parameters are preferred: body by body from the base out, within a body
    :data:`KEEP_ORDER` (inertias, then the first moments across the joint, then Iyy, mz, m — the parameters the
    grouping rules move into the parent), then friction and armature in their order (I_a1 last among them: it
    merges into the first body's inertia when that turns about its own z through its origin)."""
    rank = {kind: k for k, kind in enumerate(KEEP_ORDER)}
    rigid = [k for k, kind in enumerate(full.kinds) if kind in rank]
    rigid.sort(key=lambda k: (full.joints[k], rank[full.kinds[k]]))
    return rigid + [k for k, kind in enumerate(full.kinds) if kind not in rank]


@dataclass(frozen=True)
class NumericBase:
    """β = B θ, a minimal set of identifiable combinations of θ, with the columns that regress on them."""

    symbols: tuple[str, ...]        # "Izz1R" (a group, named after its kept parameter) or "Izz1" (alone)
    names: tuple[str, ...]          # "Izz1 + Iyy2 + 0.25·m3"
    B: np.ndarray                   # (r, p)
    columns: tuple[int, ...]        # indices into θ of the kept columns: Y_b = Y[..., columns]
    dependent: tuple[int, ...]
    K: np.ndarray                   # (r, p − r): W_d = W_b K
    diag_R: np.ndarray              # |R_kk| of the pivoted QR of the scaled W, pivot order
    tolerance: float
    full: ParameterSet = field(repr=False)
    info: dict = field(default_factory=dict)

    @property
    def r(self) -> int:
        return len(self.columns)

    @property
    def rank(self) -> int:
        return self.r

    @property
    def gap(self) -> float:
        """|R_rr| / |R_(r+1)(r+1)| of the pivoted QR: how clearly the rank is decided (inf: no dependent column
        above 0)."""
        d = self.diag_R
        return float(d[self.r - 1] / d[self.r]) if self.r < len(d) and d[self.r] > 0 else float("inf")

    @property
    def unidentifiable(self) -> tuple[str, ...]:
        """Parameters that act on no torque at all (their column is 0): they appear in no β."""
        return tuple(self.full.names[k] for k in range(self.full.p) if not np.any(self.B[:, k]))

    def values(self, theta=None) -> np.ndarray:
        """β for θ (default: the model's)."""
        return self.B @ (self.full.values if theta is None else np.asarray(theta, dtype=float))

    def regressor(self, Y: np.ndarray) -> np.ndarray:
        """Y_b from a full regressor (columns picked)."""
        return Y[..., list(self.columns)]


def _coefficient(c: float) -> str:
    return f"{abs(c):.6g}·"


def combination_name(names: list[str], coefficients: list[float]) -> str:
    """``"Izz1 + 0.25·m2 − mx3"``: the terms in order, coefficient 1 written as nothing."""
    out = ""
    for k, (name, c) in enumerate(zip(names, coefficients, strict=True)):
        sign = "−" if c < 0 else "+"
        coef = "" if abs(abs(c) - 1.0) <= 1e-12 else _coefficient(c)
        out += (("−" if c < 0 else "") if k == 0 else f" {sign} ") + coef + name
    return out


def _tolerance(d: np.ndarray, p: int) -> float:
    return RANK_FACTOR * p * np.finfo(float).eps * float(d[0]) if len(d) else 0.0


def _kept(Wn: np.ndarray, order: list[int], tol: float) -> list[int]:
    """The columns (indices into Wn) of the first independent ones in ``order``: unpivoted QR, |R_kk| > tol."""
    import scipy.linalg  # type: ignore[import-untyped]

    R = scipy.linalg.qr(Wn[:, order], mode="r")[0]
    d = np.abs(np.diag(R))
    return [order[k] for k in range(len(d)) if d[k] > tol]


def reduce_columns(W: np.ndarray, full: ParameterSet, order: list[int] | None = None) -> NumericBase:
    """The base parameters of the stacked regression W θ = y (see the module docstring); ``order``: column
    preference (default :func:`priority`)."""
    import scipy.linalg

    W = np.asarray(W, dtype=float)
    p = W.shape[1]
    norms = np.linalg.norm(W, axis=0)
    live = norms > _tolerance(np.array([norms.max(initial=0.0)]), p)   # a column of round-off only is 0
    Wn = np.where(live, W / np.where(live, norms, 1.0), 0.0)
    _, R, P = scipy.linalg.qr(Wn, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    tol = _tolerance(d, p)
    r = int(np.sum(d > tol))
    order = [k for k in (priority(full) if order is None else order) if live[k]]
    kept = sorted(_kept(Wn, order, tol))
    how = "preference order (unpivoted QR)"
    if len(kept) != r:
        kept, how = sorted(int(k) for k in P[:r]), "pivoted QR (the preference order's count differed)"
    dep = [k for k in range(p) if k not in kept]
    _, Rk = scipy.linalg.qr(Wn[:, kept + dep], mode="economic")
    Kn = scipy.linalg.solve_triangular(Rk[:r, :r], Rk[:r, r:])                 # scaled: Wn_d = Wn_b Kn
    safe = np.where(live, norms, 1.0)
    Kn[np.abs(Kn) <= NAME_CUTOFF] = 0.0                                          # round-off (the gap is ~1e15)
    K = Kn * safe[dep][None, :] / safe[kept][:, None]                            # W_d = W_b K
    K[:, ~live[dep]] = 0.0
    B = np.zeros((r, p))
    B[:, kept] = np.eye(r)
    B[:, dep] = K
    symbols, names = [], []
    for a, k in enumerate(kept):
        terms = [(full.names[k], 1.0)] + [(full.names[j], float(K[a, b])) for b, j in enumerate(dep)
                                          if K[a, b] != 0.0]
        names.append(combination_name([t[0] for t in terms], [t[1] for t in terms]))
        symbols.append(full.names[k] + ("R" if len(terms) > 1 else ""))
    info = {"tolerance_rule": f"|R_kk| > {RANK_FACTOR:g}·p·eps·|R_11| on unit-norm columns", "choice": how,
            "rows": int(W.shape[0])}
    return NumericBase(tuple(symbols), tuple(names), B, tuple(kept), tuple(dep), K, d, tol, full, info)


def numeric_base(model: RobotModel, friction: bool = True, armature: bool = False, states: int = STATES,
                 seed: int = 0) -> NumericBase:
    """The base parameters of ``model`` (:func:`reduce_columns` on :func:`stacked_regressor`)."""
    full = spatial_parameters(model, friction, armature)
    base = reduce_columns(stacked_regressor(model, friction, armature, states, seed), full)
    base.info.update({"states": states, "seed": seed})
    return base
