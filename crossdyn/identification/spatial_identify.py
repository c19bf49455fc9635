"""``identify`` on a spatial arm (a :class:`~crossdyn.robots.model.RobotModel`: a spatial preset or spec, a URDF or
MJCF file): excitation → simulated data → estimate of the numeric base parameters → validation → verdict.

* Base parameters: :func:`crossdyn.identification.base_numeric.numeric_base` (rigid bodies, viscous and Coulomb
  friction per joint, rotor armature when the model has any), at random states (seed 0).
* Excitation: a random finite Fourier series per joint (:func:`~crossdyn.identification.excitation.random_fourier`,
  seeded) under :func:`spatial_bounds` — the planar path's condition-number optimiser is written for the planar
  regressor and is not run here (the JSON says so in ``notes``).
* Data, ``source="spatial"`` (default): crossdyn's own spatial reference integrated by semi-implicit Euler at ``dt``
  (q̇_{k+1} = q̇_k + dt q̈_k, q_{k+1} = q_k + dt q̇_{k+1}, q̈_k = ABA(q_k, q̇_k, τ_k − b q̇_k − f_c sign q̇_k) with the
  armature), τ_k from the tracking law of the planar path (feed-forward RNEA along the reference plus
  M(q_d)[K_p e + K_d ė], :class:`crossdyn.identification.data.TrackingProfile`'s gains).  Rows are the planar
  ``step`` rows: q̈_k = (q̇_{k+1} − q̇_k)/dt from the record, so τ_k = Y(q_k, q̇_k, q̈_k) θ holds to rounding.
  ``source="exact"``: τ = RNEA + friction along the reference itself at ``rate`` Hz, q̈ from the trajectory.
* Noise: Gaussian torque noise of standard deviation ``torque_noise`` N m on the recorded τ (seeded).
* Estimators: ``ols`` and ``wls`` (:mod:`~crossdyn.identification.estimators`), ``consistent``
  (:func:`consistent_spatial`: the pseudo-inertia LMI of Wensing, Kim and Slotine 2017).
* Verdict as the planar one (:mod:`crossdyn.identification.result`): FAIL when a joint's validation relative RMS
  torque error exceeds the tolerance or a true base parameter lies outside its family-wise interval (with the
  relative floor :data:`~crossdyn.identification.common.RELATIVE_FLOOR`), PASS otherwise.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from crossdyn.identification import data as D
from crossdyn.identification.base_numeric import NumericBase, full_regressor, numeric_base
from crossdyn.identification.common import RELATIVE_FLOOR, VALIDATION_TOLERANCE, parameter_scale, relative_errors
from crossdyn.identification.estimators import ConvexProblem, Estimate, ols, solve_consistent, wls
from crossdyn.identification.excitation import Bounds, FourierTrajectory, random_fourier
from crossdyn.robots.model import RobotModel
from crossdyn.status import Verdict

SOURCES = ("spatial", "exact")
REVOLUTE_HALF_RANGE, PRISMATIC_HALF_RANGE = 1.5, 0.3
"""rad, m: the position half-range about 0 of a joint without limits."""
QD_MAX, QDD_MAX = (2.5, 0.5), (10.0, 2.0)
"""(revolute rad/s, prismatic m/s) and (rad/s², m/s²): the excitation's velocity and acceleration bounds."""
KP, KD = 400.0, 40.0
"""The tracking law's gains (1/s², 1/s), as :class:`crossdyn.identification.data.TrackingProfile`'s."""
M_MAX, TRACE_MAX = 1e4, 1e4
"""kg, kg m²: the consistent estimator's bounds on each body's mass and on tr Σ (the parameters no torque sees are
otherwise free and the optimal set unbounded)."""


@dataclass(frozen=True)
class SpatialIdentifyOptions:
    """How :func:`identify_spatial` excites, simulates, fits and judges."""

    estimator: str = "ols"
    source: str = "spatial"
    seed: int = 0
    period: float = 4.0
    harmonics: int = 5
    duration: float | None = None      # None: one period
    dt: float = 2e-3                   # ABA once per step in Python (~3 ms): 2000 steps per 4 s run
    rate: float = 200.0                # sample rate of source="exact"
    torque_noise: float = 0.0
    friction: bool = True
    validation_tolerance: float = VALIDATION_TOLERANCE


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


def _estimate(name: str, rows: D.Rows, base: NumericBase) -> Estimate:
    if name == "ols":
        return ols(rows.W, rows.y, rows.joint)
    if name == "wls":
        return wls(rows.W, rows.y, rows.joint)
    if name == "consistent":
        return consistent_spatial(rows.W, rows.y, base, rows.joint)
    raise D.DataError(f"estimator: must be one of ols, wls, consistent, got {name!r}", "estimator", name)


def _collect(model: RobotModel, traj: FourierTrajectory, o: SpatialIdentifyOptions, rng) -> D.JointData:
    duration = o.period if o.duration is None else o.duration
    data = (simulate_spatial(model, traj, duration, o.dt) if o.source == "spatial"
            else exact_spatial(model, traj, duration, o.rate))
    if o.torque_noise > 0:
        data.tau = data.tau + rng.normal(0.0, o.torque_noise, data.tau.shape)
        data.info["noise"] = {"torque_std_Nm": o.torque_noise}
    return data


def identify_spatial(model: RobotModel, options: SpatialIdentifyOptions | None = None) -> SpatialIdentification:
    """Identify ``model``'s numeric base parameters from simulated data (see the module docstring)."""
    o = options or SpatialIdentifyOptions()
    if o.source not in SOURCES:
        raise D.DataError(f"source: must be one of {', '.join(SOURCES)}, got {o.source!r}", "source", o.source)
    start = time.perf_counter()
    armature = any(j.armature != 0 for j in model.joints)
    base = numeric_base(model, o.friction, armature)
    rng = np.random.default_rng(o.seed)
    bounds = spatial_bounds(model)
    traj = random_fourier(bounds, o.harmonics, o.period, o.seed)
    data = _collect(model, traj, o, rng)
    rows = spatial_rows(model, base, data)
    est = _estimate(o.estimator, rows, base)
    vtraj = random_fourier(bounds, o.harmonics, o.period, o.seed + 1000)
    vrows = spatial_rows(model, base, _collect(model, vtraj, o, rng))
    pred = vrows.W @ est.beta
    vrms = np.array([np.sqrt(np.mean((pred - vrows.y)[vrows.joint == j] ** 2))
                     / max(float(np.sqrt(np.mean(vrows.y[vrows.joint == j] ** 2))), 1e-300) for j in range(model.n)])
    notes = ["excitation: a random Fourier series under the bounds (the planar condition-number optimiser is not "
             "run on spatial arms)"]
    validation = {"source": f"a random Fourier trajectory (seed {o.seed + 1000}) under the same bounds, same source",
                  "torque_values": int(len(vrows.y))}
    info = {"bounds": bounds.as_dict(), "trajectory": traj.params(), "seconds": time.perf_counter() - start,
            "armature_columns": armature}
    return SpatialIdentification(model, base, o, data, rows, est, base.values(),
                                 parameter_scale(cast(Any, base), rows), vrms, validation, notes, info)


@dataclass(frozen=True)
class SpatialIdentification:
    """One identification of a spatial arm: the base set, data, rows, estimate, truth, validation."""

    model: RobotModel
    base: NumericBase
    options: SpatialIdentifyOptions
    data: D.JointData
    rows: D.Rows
    est: Estimate
    truth: np.ndarray
    scale: np.ndarray
    validation_rms: np.ndarray
    validation: dict
    notes: list[str] = field(default_factory=list)
    info: dict = field(default_factory=dict)

    def inside(self, familywise: bool = False) -> np.ndarray:
        """Each true β inside its 95 % (``familywise``: Bonferroni 1 − 0.05/r) interval, floored at
        RELATIVE_FLOOR · max(|β|, scale) (the noise-free recovery tolerance)."""
        lo, hi = self.est.interval(1 - 0.05 / self.base.r if familywise else 0.95)
        half = np.maximum(hi - self.est.beta, RELATIVE_FLOOR * np.maximum(np.abs(self.truth), self.scale))
        return np.abs(self.est.beta - self.truth) <= half

    def relative_errors(self) -> np.ndarray:
        return relative_errors(self.est.beta, self.truth, self.scale)

    def judgement(self) -> tuple[Verdict, str]:
        tol = self.options.validation_tolerance
        bad = [f"joint {j + 1} {v:.3g}" for j, v in enumerate(self.validation_rms) if not v <= tol]
        out = [s for s, ok in zip(self.base.symbols, self.inside(True), strict=True) if not ok]
        reasons = ([f"validation relative RMS torque error above {tol:g}: {', '.join(bad)}"] if bad else []) + \
            ([f"true value outside its family-wise interval: {', '.join(out)}"] if out else [])
        unjudged = self.est.uncertified()
        if unjudged is not None:
            return Verdict.INCONCLUSIVE, unjudged + "".join(f"; also {r}" for r in reasons)
        if reasons:
            return Verdict.FAIL, "; ".join(reasons)
        return Verdict.PASS, (f"all {self.base.r} true values inside their family-wise intervals; validation within "
                              f"{tol:g} on all {self.model.n} joints")

    def checks(self) -> dict:
        values = int(self.validation["torque_values"])
        return {"parameters_compared_to_truth": self.base.r, "intervals_checked": self.base.r,
                "validation_joints_checked": self.model.n, "validation_torque_values": values,
                "total": self.base.r + values, "truth": "spec"}

    def parameters(self) -> list[dict]:
        lo, hi = self.est.interval()
        flo, fhi = self.est.interval(1 - 0.05 / self.base.r)
        rel, ins, insf = self.relative_errors(), self.inside(), self.inside(True)
        return [{"symbol": self.base.symbols[k], "name": self.base.names[k], "true": float(self.truth[k]),
                 "estimate": float(self.est.beta[k]), "stderr": float(self.est.stderr[k]),
                 "ci95": [float(lo[k]), float(hi[k])], "ci_familywise": [float(flo[k]), float(fhi[k])],
                 "relative_error": float(rel[k]), "inside_interval": bool(ins[k]),
                 "inside_familywise_interval": bool(insf[k])} for k in range(self.base.r)]

    def to_summary(self) -> dict:
        """``identify.json`` (schema crossdyn.identify/1, with the spatial base set's own fields added)."""
        verdict, reason = self.judgement()
        o = self.options
        return {"schema": "crossdyn.identify/1", "arm": self.model.name, "dof": self.model.n, "kind": "spatial",
                "source": self.data.source, "estimator": self.est.method, "model": self.rows.model, "seed": o.seed,
                "noise": {"torque_std_Nm": o.torque_noise}, "samples": int(len(self.rows.y)),
                "base_parameters": self.base.r, "numerical_rank": self.base.r,
                "base_reduction": {"tolerance": self.base.tolerance, "gap": self.base.gap, **self.base.info,
                                   "unidentifiable": list(self.base.unidentifiable),
                                   "full_parameters": self.base.full.p},
                "parameters": self.parameters(), "condition_number": float(np.linalg.cond(self.rows.W)),
                "residual_rms": self.est.residual_rms,
                "validation_rms": {f"joint{j + 1}": float(v) for j, v in enumerate(self.validation_rms)},
                "validation_tolerance": o.validation_tolerance, "validation": self.validation,
                "estimator_info": self.est.info, "passed": verdict == Verdict.PASS, "verdict": verdict.value,
                "verdict_reason": reason, "checks": self.checks(), "notes": list(self.notes),
                "familywise_level": 1 - 0.05 / self.base.r,
                "run": {"seconds": self.info["seconds"], "bounds": self.info["bounds"],
                        "trajectory": self.info["trajectory"], "data": self.data.info}}


def table_lines(res: SpatialIdentification) -> list[str]:
    """The parameter table as the planar one prints it (symbol, combination, true, estimate, stderr, intervals)."""
    fw = f"{100 * (1 - 0.05 / res.base.r):.2f} % (family-wise)"
    width = max(9, *(len(s) for s in res.base.symbols))
    lines = [f"{'symbol':{width}} {'true':>12} {'estimate':>12} {'stderr':>9} {'95 % interval':>27} {fw:>29} "
             f"{'rel. err':>9}  parameter"]
    for p in res.parameters():
        flag = "" if p["inside_interval"] else ("  outside 95 %" if p["inside_familywise_interval"]
                                                  else "  OUTSIDE family-wise")
        ci = f"[{p['ci95'][0]:.6g}, {p['ci95'][1]:.6g}]"
        cf = f"[{p['ci_familywise'][0]:.6g}, {p['ci_familywise'][1]:.6g}]"
        lines.append(f"{p['symbol']:{width}} {p['true']:>12.6g} {p['estimate']:>12.6g} {p['stderr']:>9.2e} "
                     f"{ci:>27} {cf:>29} {p['relative_error']:>9.1e}  {p['name']}{flag}")
    return lines
