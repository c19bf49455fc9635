"""Dynamic parameters of a planar nR arm, the identification regressor, and its base (minimal) parameters.

Full parameter vector (the column order of :func:`full_regressor`), per link i = 1 … n

    θ_i = (m_i, mx_i = m_i Lc_i, Izz_i = J_i + m_i Lc_i²)          (inertia about joint i)

followed by the joint friction b_1 … b_n (viscous, N m s/rad) and f_c1 … f_cn (Coulomb, N m), so that

    τ = Y(q, q̇, q̈) θ,   Y = [Y_rigid | diag(q̇) | diag(sign q̇)]

with Y_rigid from :func:`crossdyn.analytic.rnea.regressor`.  With ``armature=True`` the rotor armature
I_a1 … I_an (τ_i += I_ai q̈_i) follows, with the columns diag(q̈): Y = [… | diag(q̈)].  Link 1's rotational
column is q̈_1 in row 1 too, so I_a1 merges into ZZ_1R; I_a2 … I_an are base parameters of their own.

Base parameters in closed form (planar nR, joints about +z, gravity g in the plane): a mass m_k sits at
joint k, a point fixed on link k−1 at distance L_{k−1} along it, so its column is that of a point mass
there: col(m_k) = col(m_{k−1}) + L_{k−1} col(mx_{k−1}) + L_{k−1}² col(Izz_{k−1}), and col(m_1) = 0 (a mass
on the fixed axis).  Grouping the masses into the links below them leaves, for i = 1 … n,

    ZZ_iR = Izz_i + L_i² Σ_{k>i} m_k          (= J_i + m_i Lc_i² + L_i² (m_{i+1} + … + m_n))
    MX_iR = mx_i  + L_i  Σ_{k>i} m_k          (= m_i Lc_i + L_i (m_{i+1} + … + m_n))

except MX_1R when the in-plane gravity is zero (link 1 turns about a fixed axis, so mx_1 acts only through
gravity), plus the friction parameters.  The textbook 2R constants are combinations of these:
a1 = ZZ_1R + ZZ_2R, a2 = L_1 MX_2R, a3 = ZZ_2R (M = [[a1 + 2 a2 c2, a3 + a2 c2], [a3 + a2 c2, a3]]), and the
gravity terms g MX_1R, g MX_2R.

Numerically (:func:`numerical_base`), the base set is read off a QR decomposition with column pivoting of
the regressor stacked at random states (Gautier 1991): the first r pivoted columns are independent, the
others are combinations of them, K = R11⁻¹ R12, and β = θ_independent + K θ_dependent.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from crossdyn.analytic.rnea import regressor as rigid_regressor
from crossdyn.analytic.rnea import rnea_theta
from crossdyn.models.spec import ArmParams, ArmSpec

ARMATURE_SUPPORTED = True
"""full_parameters / full_regressor / closed_form_base / numerical_base take ``armature=True`` (diag(q̈) columns)."""


@dataclass(frozen=True)
class ParameterSet:
    """Names and (when known) values of the full parameter vector θ."""

    names: tuple[str, ...]
    kinds: tuple[str, ...]          # "m", "mx", "Izz", "b", "fc", "Ia"
    joints: tuple[int, ...]         # 1-based joint/link index
    values: np.ndarray              # θ of the spec

    @property
    def p(self) -> int:
        return len(self.names)


def full_parameters(spec: ArmSpec, friction: bool = True, armature: bool = False) -> ParameterSet:
    """θ of ``spec`` in the column order of :func:`full_regressor` (``armature``: I_a1 … I_an last)."""
    n, p = spec.n, spec.params()
    names, kinds, joints, values = [], [], [], []
    for i in range(n):
        for kind, val in (("m", p.m[i]), ("mx", p.m[i] * p.Lc[i]), ("Izz", p.J[i] + p.m[i] * p.Lc[i] ** 2)):
            names.append(f"{kind}{i + 1}")
            kinds.append(kind)
            joints.append(i + 1)
            values.append(val)
    if friction:
        for kind, arr in (("b", p.b), ("fc", p.fc)):
            for i in range(n):
                names.append(f"{kind}{i + 1}")
                kinds.append(kind)
                joints.append(i + 1)
                values.append(arr[i])
    if armature:
        for i, link in enumerate(spec.links):
            names.append(f"Ia{i + 1}")
            kinds.append("Ia")
            joints.append(i + 1)
            values.append(link.armature)
    return ParameterSet(tuple(names), tuple(kinds), tuple(joints), np.array(values, dtype=float))


def full_regressor(p: ArmParams, q, qd, qdd, friction: bool = True, armature: bool = False) -> np.ndarray:
    """Y(q, q̇, q̈) with τ = Y θ (friction included): shape (..., n, 3n [+ 2n] [+ n armature])."""
    q, qd, qdd = (np.asarray(a, dtype=float) for a in (q, qd, qdd))
    Y = rigid_regressor(p, q, qd, qdd)
    n = q.shape[-1]
    eye = np.eye(n)
    blocks = [Y]
    if friction:
        blocks.append(qd[..., :, None] * eye)            # τ_i = b_i q̇_i
        blocks.append(np.sign(qd)[..., :, None] * eye)   # τ_i = f_ci sign(q̇_i)
    if armature:
        blocks.append(np.broadcast_to(qdd, Y.shape[:-1])[..., :, None] * eye)  # τ_i = I_ai q̈_i
    return blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=-1)


def energy_regressor(p: ArmParams, q, qd) -> np.ndarray:
    """e(q, q̇) with total energy E = T + U = e θ_rigid: shape (..., 3n).

    T = ½ q̇ᵀ M(q) q̇ and M(q) q̇ = Y_rigid(q, 0, q̇)|_{g=0} θ; U = −Σ (m_i g·p_Oi + mx_i g·e_i) with p_Oi the
    position of joint i and e_i the unit vector along link i (:mod:`crossdyn.analytic.energy`'s U).
    """
    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    n = q.shape[-1]
    p0 = p._replace(gravity=np.zeros_like(p.gravity))
    Mq = rigid_regressor(p0, q, np.zeros_like(qd), qd)               # (..., n, 3n)
    e = 0.5 * np.einsum("...i,...ik->...k", qd, Mq)
    th = np.cumsum(q, axis=-1)
    c, s = np.cos(th), np.sin(th)
    gx, gy = p.gravity[..., 0], p.gravity[..., 1]
    px = np.zeros(q.shape[:-1])
    py = np.zeros(q.shape[:-1])
    for i in range(n):
        e[..., 3 * i] += -(gx * px + gy * py)
        e[..., 3 * i + 1] += -(gx * c[..., i] + gy * s[..., i])
        px = px + p.L[..., i] * c[..., i]
        py = py + p.L[..., i] * s[..., i]
    return e


# ------------------------------------------------------------------------------------------ base parameters
@dataclass(frozen=True)
class BaseParameters:
    """β = B θ, a minimal set of identifiable combinations, and the columns of Y that regress on them.

    ``columns``: indices into θ whose regressor columns form Y_base (Y = Y_base B for every state).
    """

    symbols: tuple[str, ...]        # ZZ1R, MX1R, …, b1, fc1 …
    names: tuple[str, ...]          # readable formulas, e.g. "J2 + m2·Lc2² + m3·L2²"
    B: np.ndarray                   # (r, p)
    columns: tuple[int, ...]
    full: ParameterSet = field(repr=False)

    @property
    def r(self) -> int:
        return len(self.symbols)

    def values(self, theta=None) -> np.ndarray:
        """β for θ (default: the spec's)."""
        return self.B @ (self.full.values if theta is None else np.asarray(theta, dtype=float))

    def regressor(self, Y: np.ndarray) -> np.ndarray:
        """Y_base from a full regressor (columns picked, no arithmetic)."""
        return Y[..., list(self.columns)]

    def evaluate(self, p: ArmParams, q, qd, qdd) -> np.ndarray:
        """Y_base(q, q̇, q̈) directly: only the base columns are computed (shape (..., n, r))."""
        q, qd, qdd = (np.asarray(a, dtype=float) for a in (q, qd, qdd))
        n = q.shape[-1]
        cols = []
        for k in self.columns:
            kind = self.full.kinds[k]
            if k < 3 * n:
                unit = np.zeros((n, 3))
                unit[k // 3, k % 3] = 1.0
                cols.append(rnea_theta(p.L, p.gravity, unit, q, qd, qdd))
            else:
                j = self.full.joints[k] - 1
                col = np.zeros(np.broadcast_shapes(q.shape, qd.shape, qdd.shape))
                col[..., j] = {"b": qd, "fc": np.sign(qd), "Ia": qdd}[kind][..., j]
                cols.append(col)
        return np.stack(cols, axis=-1)


def _sum_names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else "(" + " + ".join(names) + ")"


def closed_form_base(spec: ArmSpec, friction: bool = True, armature: bool = False) -> BaseParameters:
    """The closed-form base parameters of a planar nR arm (see the module docstring); with ``armature``,
    ZZ_1R includes I_a1 and I_a2 … I_an are base parameters of their own."""
    full = full_parameters(spec, friction, armature)
    n = spec.n
    L = [link.length for link in spec.links]
    gravity = np.hypot(*spec.gravity[:2]) > 0
    idx = {name: k for k, name in enumerate(full.names)}
    rows, symbols, names, columns = [], [], [], []
    for i in range(n):
        j = i + 1
        beyond = [f"m{k}" for k in range(j + 1, n + 1)]
        for kind, power in (("Izz", 2), ("mx", 1)):
            if kind == "mx" and i == 0 and not gravity:
                continue  # mx1 acts only through gravity
            row = np.zeros(full.p)
            row[idx[f"{kind}{j}"]] = 1.0
            for k in range(j + 1, n + 1):
                row[idx[f"m{k}"]] = L[i] ** power
            if armature and kind == "Izz" and j == 1:
                row[idx["Ia1"]] = 1.0  # both columns are q̈_1 in row 1
            rows.append(row)
            columns.append(idx[f"{kind}{j}"])
            if kind == "Izz":
                symbols.append(f"ZZ{j}R")
                txt = f"J{j} + m{j}·Lc{j}²" + (f" + {_sum_names(beyond)}·L{j}²" if beyond else "") + \
                    (" + Ia1" if armature and j == 1 else "")
            else:
                symbols.append(f"MX{j}R")
                txt = f"m{j}·Lc{j}" + (f" + {_sum_names(beyond)}·L{j}" if beyond else "")
            names.append(txt)
    if friction:
        for kind in ("b", "fc"):
            for j in range(1, n + 1):
                row = np.zeros(full.p)
                row[idx[f"{kind}{j}"]] = 1.0
                rows.append(row)
                columns.append(idx[f"{kind}{j}"])
                symbols.append(f"{kind}{j}")
                names.append(f"{kind}{j}")
    if armature:
        for j in range(2, n + 1):
            row = np.zeros(full.p)
            row[idx[f"Ia{j}"]] = 1.0
            rows.append(row)
            columns.append(idx[f"Ia{j}"])
            symbols.append(f"Ia{j}")
            names.append(f"Ia{j}")
    return BaseParameters(tuple(symbols), tuple(names), np.array(rows), tuple(columns), full)


def random_states(n: int, count: int, rng: np.random.Generator, qd_max=3.0, qdd_max=10.0):
    """Random (q, q̇, q̈): q uniform in [−π, π], q̇, q̈ uniform within the bounds; shape (count, n) each."""
    q = rng.uniform(-np.pi, np.pi, (count, n))
    qd = rng.uniform(-qd_max, qd_max, (count, n))
    qdd = rng.uniform(-qdd_max, qdd_max, (count, n))
    return q, qd, qdd


@dataclass(frozen=True)
class NumericalBase:
    """Result of the QR-with-pivoting analysis of a stacked regressor."""

    rank: int
    independent: tuple[int, ...]     # indices into θ (pivot order)
    dependent: tuple[int, ...]
    K: np.ndarray                    # (rank, p − rank): col(dependent) = col(independent) K
    B: np.ndarray                    # (rank, p): β = B θ
    diag_R: np.ndarray               # |R_kk|, pivot order
    tolerance: float


def numerical_base(spec: ArmSpec, friction: bool = True, states: int = 200, seed: int = 0,
                   armature: bool = False) -> NumericalBase:
    """Base parameters from QR with column pivoting of Y stacked at ``states`` random states.

    Rank: |R_kk| > tol = max(rows, cols) · eps · |R_11| (numpy's matrix_rank rule).
    """
    import scipy.linalg  # type: ignore[import-untyped]

    rng = np.random.default_rng(seed)
    q, qd, qdd = random_states(spec.n, states, rng)
    W = full_regressor(spec.params(), q, qd, qdd, friction, armature)
    W = W.reshape(-1, W.shape[-1])
    _, R, P = scipy.linalg.qr(W, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    tol = max(W.shape) * np.finfo(float).eps * d[0]
    r = int(np.sum(d > tol))
    K = scipy.linalg.solve_triangular(R[:r, :r], R[:r, r:])
    B = np.zeros((r, W.shape[1]))
    B[:, P[:r]] = np.eye(r)
    B[:, P[r:]] = K
    return NumericalBase(r, tuple(int(i) for i in P[:r]), tuple(int(i) for i in P[r:]), K, B, d, float(tol))
