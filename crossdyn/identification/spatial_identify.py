"""The spatial arm kind of ``identify`` (:class:`SpatialPlant`): what a :class:`~crossdyn.robots.model.RobotModel`
(a spatial preset or spec, a URDF or MJCF file) supplies to the one driver
:func:`crossdyn.identification.identify.identify` (excitation → data → estimate → validation → the one result and
verdict of :mod:`crossdyn.identification.result`).

* Base parameters: :func:`crossdyn.identification.base_numeric.numeric_base` (rigid bodies, viscous and Coulomb
  friction per joint, rotor armature when the model has any), at random states (seed 0).
* Excitation: a random finite Fourier series per joint (:func:`~crossdyn.identification.excitation.random_fourier`,
  seeded) under :func:`spatial_bounds` — the planar path's condition-number optimiser is written for the planar
  regressor and is not run here (the JSON says so in ``notes``).
* Data, engine ``spatial`` (the CLI's default): crossdyn's own spatial reference integrated by semi-implicit Euler
  at ``dt`` (q̇_{k+1} = q̇_k + dt q̈_k, q_{k+1} = q_k + dt q̇_{k+1}, q̈_k = ABA(q_k, q̇_k, τ_k − b q̇_k − f_c sign q̇_k)
  with the armature), τ_k from the tracking law of the planar path (feed-forward RNEA along the reference plus
  M(q_d)[K_p e + K_d ė], :class:`crossdyn.identification.data.TrackingProfile`'s gains).  Rows are the planar
  ``step`` rows: q̈_k = (q̇_{k+1} − q̇_k)/dt from the record, so τ_k = Y(q_k, q̇_k, q̈_k) θ holds to rounding.
  Engine None (``--engine exact``): τ = RNEA + friction along the reference itself at ``rate`` Hz, q̈ from the
  trajectory.
* Noise: Gaussian torque noise of standard deviation ``noise.torque`` N m on the recorded τ (seeded).
* Estimators: ``ols`` and ``wls`` (:mod:`~crossdyn.identification.estimators`), ``consistent``
  (:func:`consistent_spatial`: the pseudo-inertia LMI of Wensing, Kim and Slotine 2017).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from crossdyn.identification import data as D
from crossdyn.identification.base_numeric import NumericBase, full_regressor, numeric_base
from crossdyn.identification.estimators import ConvexProblem, Estimate, ols, solve_consistent
from crossdyn.identification.excitation import Bounds, FourierTrajectory, random_fourier
from crossdyn.robots.model import RobotModel

REVOLUTE_HALF_RANGE, PRISMATIC_HALF_RANGE = 1.5, 0.3
"""rad, m: the position half-range about 0 of a joint without limits."""
QD_MAX, QDD_MAX = (2.5, 0.5), (10.0, 2.0)
"""(revolute rad/s, prismatic m/s) and (rad/s², m/s²): the excitation's velocity and acceleration bounds."""
KP, KD = 400.0, 40.0
"""The tracking law's gains (1/s², 1/s), as :class:`crossdyn.identification.data.TrackingProfile`'s."""
M_MAX, TRACE_MAX = 1e4, 1e4
"""kg, kg m²: the consistent estimator's bounds on each body's mass and on tr Σ (the parameters no torque sees are
otherwise free and the optimal set unbounded)."""


def spatial_bounds(model: RobotModel) -> Bounds:
    """Per joint: its limits (95 % of the range about the middle) where finite, else ±:data:`REVOLUTE_HALF_RANGE`
    rad / ±:data:`PRISMATIC_HALF_RANGE` m about 0; |q̇|, |q̈| within :data:`QD_MAX`, :data:`QDD_MAX`."""
    n = model.n
    center, half, qd, qdd, said = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n), []
    for i, j in enumerate(model.joints):
        k = 0 if j.type.rotates else 1
        qd[i], qdd[i] = QD_MAX[k], QDD_MAX[k]
        half[i] = (REVOLUTE_HALF_RANGE, PRISMATIC_HALF_RANGE)[k]
        lo, hi = j.lower, j.upper
        if lo is not None and hi is not None and np.isfinite([lo, hi]).all() and hi > lo:
            center[i], half[i] = 0.5 * (lo + hi), 0.475 * (hi - lo)
            said.append(f"q{i + 1}: limits")
    return Bounds(center, half, qd, qdd, "; ".join(said) if said else "no limits: defaults about 0")


def friction_torque(model: RobotModel, QD: np.ndarray) -> np.ndarray:
    """b q̇ + f_c sign q̇ per joint (the joints' damping and Coulomb friction)."""
    b = np.array([j.damping for j in model.joints])
    fc = np.array([j.friction for j in model.joints])
    return b * QD + fc * np.sign(QD)


def simulate_spatial(model: RobotModel, traj: FourierTrajectory, duration: float, dt: float) -> D.JointData:
    """The tracking run integrated by semi-implicit Euler on crossdyn's spatial ABA (the module docstring)."""
    from crossdyn.spatial import aba, crba, rnea

    steps = int(round(duration / dt))
    t = np.arange(steps + 1) * dt
    qr, vr, ar = traj.evaluate(t)
    ff = rnea(model, qr, vr, ar, armature=True) + friction_torque(model, vr)
    M = crba(model, qr, armature=True)
    q, qd = np.zeros((steps + 1, model.n)), np.zeros((steps + 1, model.n))
    q[0], qd[0] = qr[0], vr[0]
    tau = np.zeros((steps, model.n))
    for k in range(steps):
        tau[k] = ff[k] + M[k] @ (KP * (qr[k] - q[k]) + KD * (vr[k] - qd[k]))
        qdd = aba(model, q[k], qd[k], tau[k] - friction_torque(model, qd[k]), armature=True)
        qd[k + 1] = qd[k] + dt * qdd
        q[k + 1] = q[k] + dt * qd[k + 1]
    info = {"engine": "spatial", "dt": dt, "duration": duration,
            "config": {"integrator": "semi-implicit Euler", "dynamics": "crossdyn.spatial.aba with armature",
                       "friction": "b q̇ + f_c sign q̇ of the model's joints", "kp": KP, "kd": KD}}
    return D.JointData(t, q, qd, None, tau, "crossdyn spatial ABA, semi-implicit Euler", True,
                       "semi-implicit Euler", info)


def exact_spatial(model: RobotModel, traj: FourierTrajectory, duration: float, rate: float) -> D.JointData:
    """τ = RNEA (with armature) + friction along the reference, sampled at ``rate`` Hz (no integration)."""
    from crossdyn.spatial import rnea

    t = np.arange(int(round(duration * rate)) + 1) / rate
    q, qd, qdd = traj.evaluate(t)
    tau = rnea(model, q, qd, qdd, armature=True) + friction_torque(model, qd)
    return D.JointData(t, q, qd, qdd, tau, "exact: crossdyn spatial RNEA along the trajectory")


def spatial_rows(model: RobotModel, base: NumericBase, data: D.JointData) -> D.Rows:
    """``step`` rows for a step record (q̈ by the difference quotient of q̇), ``exact`` rows otherwise."""
    columns = {"friction": "b1" in base.full.names, "armature": "Ia1" in base.full.names}
    if data.step_record:
        assert data.qd is not None
        qdd = np.diff(data.qd, axis=0) / np.diff(data.t)[:, None]
        Y, tau, model_name = full_regressor(model, data.q[:-1], data.qd[:-1], qdd, **columns), data.tau, "step"
    else:
        assert data.qd is not None and data.qdd is not None
        Y, tau, model_name = full_regressor(model, data.q, data.qd, data.qdd, **columns), data.tau, "exact"
    Yb = base.regressor(Y)
    K, n, r = Yb.shape
    return D.Rows(Yb.reshape(K * n, r), tau.reshape(K * n), np.tile(np.arange(n), K), model_name)


def _pseudo_inertia_theta(cp, P) -> list:
    """θ_i = (m, h, Ixx, Ixy, Iyy, Ixz, Iyz, Izz) of the pseudo-inertia P = [[Σ, h], [hᵀ, m]], Ī = tr(Σ) 1 − Σ."""
    S = P[:3, :3]
    return [P[3, 3], P[0, 3], P[1, 3], P[2, 3], S[1, 1] + S[2, 2], -S[0, 1], S[0, 0] + S[2, 2], -S[0, 2],
            -S[1, 2], S[0, 0] + S[1, 1]]


def _pseudo_inertia(t: np.ndarray) -> np.ndarray:
    """The inverse of :func:`_pseudo_inertia_theta`: P of θ_i = (m, hx, hy, hz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz)."""
    m, hx, hy, hz, ixx, ixy, iyy, ixz, iyz, izz = t
    S = np.array([[(iyy + izz - ixx) / 2, -ixy, -ixz], [-ixy, (ixx + izz - iyy) / 2, -iyz],
                  [-ixz, -iyz, (ixx + iyy - izz) / 2]])
    return np.block([[S, np.array([[hx], [hy], [hz]])], [np.array([[hx, hy, hz, m]])]])


def spatial_feasible(theta: np.ndarray, bodies: int) -> np.ndarray:
    """θ moved onto the spatial constraint set: each infeasible body's pseudo-inertia's negative eigenvalues set to 0, then the
    matrix scaled down to m ≤ :data:`M_MAX` and tr Σ ≤ :data:`TRACE_MAX` (a PSD matrix scaled stays PSD); friction
    and armature clipped at 0."""
    th = np.array(theta, float)
    for i in range(bodies):
        P = _pseudo_inertia(th[10 * i:10 * i + 10])
        w, V = np.linalg.eigh(P)
        if w[0] >= 0 and P[3, 3] <= M_MAX and np.trace(P[:3, :3]) <= TRACE_MAX:
            continue                      # feasible: left as it is (no round-off of a decomposition added)
        P = (V * np.maximum(w, 0.0)) @ V.T
        shrink = min(1.0, M_MAX / max(P[3, 3], 1e-300), TRACE_MAX / max(np.trace(P[:3, :3]), 1e-300))
        th[10 * i:10 * i + 10] = _pseudo_inertia_theta(None, shrink * P)
    th[10 * bodies:] = np.maximum(th[10 * bodies:], 0.0)
    return th


def consistent_spatial(W: np.ndarray, y: np.ndarray, base: NumericBase, joint=None) -> Estimate:
    """Physically consistent least squares (cvxpy, Clarabel): over the full parameters θ, minimise ‖W B θ − y‖
    subject to each body's pseudo-inertia J_i = [[½ tr(Ī) 1 − Ī, h], [hᵀ, m]] ⪰ 0 (Wensing, Kim and Slotine
    2017: exactly the inertial parameters of some mass distribution), m_i ≤ :data:`M_MAX`, tr Σ_i ≤
    :data:`TRACE_MAX`, b, f_c, I_a ≥ 0; β̂ = B θ̂.  Standard errors are the OLS ones (biased where active).
    Numerics as the planar estimator's: QR-compressed, columns scaled to unit norm; solvers, fallbacks and the
    acceptance of an answer no solver reported optimal: :func:`~crossdyn.identification.estimators.solve_consistent`."""
    import cvxpy as cp

    W, y = np.asarray(W, float), np.asarray(y, float)
    ref = ols(W, y, joint)
    full = base.full
    A = W @ base.B
    scale = np.linalg.norm(A, axis=0)
    scale[scale == 0] = 1.0
    Q, R = np.linalg.qr(A / scale)
    z = Q.T @ y
    zs = float(np.linalg.norm(z)) or 1.0
    n = sum(1 for k in full.kinds if k == "m")

    def build():
        Ps = [cp.Variable((4, 4), PSD=True) for _ in range(n)]
        extra = cp.Variable(full.p - 10 * n) if full.p > 10 * n else None
        entries = [e for P in Ps for e in _pseudo_inertia_theta(cp, P)]
        theta = cp.hstack(entries + ([extra] if extra is not None else []))
        cons = [c for P in Ps for c in (P[3, 3] <= M_MAX, cp.trace(P[:3, :3]) <= TRACE_MAX)]
        if extra is not None:
            cons.append(extra >= 0)
        prob = cp.Problem(cp.Minimize(cp.norm(R @ cp.multiply(scale / zs, theta) - z / zs, 2)), cons)
        return prob, lambda: None if theta.value is None else np.asarray(theta.value, float)

    ols_obj = float(np.sum((W @ ref.beta - y) ** 2))
    problem = ConvexProblem(build, lambda th: spatial_feasible(th, n), W, y, base.B)
    th, info = solve_consistent(problem, ols_obj / max(ref.dof, 1), ols_obj)
    beta = base.B @ th
    res = y - W @ beta
    return Estimate(beta, ref.stderr, ref.cov, ref.dof, float(np.sqrt(np.mean(res ** 2))), "consistent", th,
                    {"covariance": ref.info["covariance"], **info,
                     "constraints": "pseudo-inertia J_i >= 0 (Wensing et al. 2017), m_i <= 1e4 kg, tr(Sigma_i) "
                                    "<= 1e4 kg m^2, friction and armature >= 0"})


SPATIAL_DEFAULTS = {"harmonics": 5, "period": 4.0, "dt": 2e-3}
"""The spatial kind's excitation and simulation defaults (ABA once per step in Python, ~3 ms: 2000 steps per 4 s
run)."""
SPATIAL_ENGINES = ("analytic", "spatial")
"""The engine names a spatial arm's data take (crossdyn's spatial ABA); None is the exact inverse dynamics."""
EXCITATION_NOTE = ("excitation: a random Fourier series under the bounds (the planar condition-number optimiser is "
                   "not run on spatial arms)")


@dataclass(frozen=True)
class SpatialPlant:
    """The spatial kind (:class:`crossdyn.identification.identify.Plant`): the spatial regressor
    (:func:`~crossdyn.identification.base_numeric.full_regressor`) and its numeric base set, a random Fourier
    excitation under :func:`spatial_bounds`, data from :func:`simulate_spatial` or :func:`exact_spatial` with
    torque noise only, the pseudo-inertia estimator :func:`consistent_spatial`."""

    arm: RobotModel
    kind: str = "spatial"
    defaults: dict = field(default_factory=lambda: dict(SPATIAL_DEFAULTS))
    notes: tuple[str, ...] = (EXCITATION_NOTE,)
    rls: bool = False

    @property
    def armature(self) -> bool:
        return any(j.armature != 0 for j in self.arm.joints)

    def base_set(self, o) -> tuple[NumericBase, int]:
        """The numeric base set (rigid bodies, friction, armature columns when the model has any)."""
        base = numeric_base(self.arm, o.friction, self.armature)
        return base, base.r

    def excite(self, base, o, given):
        """A random Fourier series (seed ``o.seed``) under :func:`spatial_bounds`; no optimised excitation."""
        if given is not None:
            raise D.DataError("excitation: a spatial arm takes no given excitation (a random Fourier series only)")
        bounds = spatial_bounds(self.arm)
        return bounds, None, random_fourier(bounds, o.harmonics, o.period, o.seed)

    def collect(self, engine: str | None, traj, o, rng) -> D.JointData:
        """:func:`simulate_spatial` (``engine`` in :data:`SPATIAL_ENGINES`) or :func:`exact_spatial` (None), plus
        Gaussian torque noise of ``o.noise.torque`` N m."""
        noise = o.noise
        if noise.encoder or noise.velocity != "measured" or noise.velocity_std or o.model != "auto":
            raise D.DataError("noise: a spatial arm takes torque noise only, rows model auto")
        if engine is not None and engine not in SPATIAL_ENGINES:
            raise D.DataError(f"engine: a spatial arm is simulated by crossdyn's spatial ABA ({', '.join(SPATIAL_ENGINES)}) "
                              f"or taken exact (None), got {engine!r}", "engine", engine)
        data = (simulate_spatial(self.arm, traj, o.duration, o.dt) if engine is not None
                else exact_spatial(self.arm, traj, o.duration, o.rate))
        if noise.torque > 0:
            data.tau = data.tau + rng.normal(0.0, noise.torque, data.tau.shape)
            data.info["noise"] = {"torque_std_Nm": noise.torque}
        return data

    def rows(self, base, data: D.JointData, model: str) -> D.Rows:
        return spatial_rows(self.arm, base, data)

    def validation_rows(self, base, vdata: D.JointData, model: str) -> D.Rows:
        return spatial_rows(self.arm, base, vdata)

    def consistent(self, W, y, base, joint=None, rho=None) -> Estimate:
        return consistent_spatial(W, y, base, joint)

    def run_notes(self, engine: str | None, data: D.JointData) -> list[str]:
        return []

    def run_info(self, bounds: Bounds, traj: FourierTrajectory) -> dict:
        return {"bounds": bounds.as_dict(), "trajectory": traj.params(), "armature_columns": self.armature}
