"""Estimators of the base parameters β from the stacked regression W β = y.

``ols``         β̂ = argmin ‖W β − y‖² (numpy.linalg.lstsq); residual variance σ̂² = ‖r‖²/(N − r);
                Cov β̂ = σ̂² (WᵀW)⁻¹; 95 % interval β̂ ± t_{0.975, N−r} · stderr.  Rows of the filtered path
                (parallel filtering, then decimation) carry correlated errors with a correlation ρ_l known from
                the filter (``rows.info["noise_correlation"]``): their covariance is the sandwich
                σ̂² (WᵀW)⁻¹ Wᵀ R W (WᵀW)⁻¹ with R that correlation within each joint's rows.
``wls``         per-joint noise: σ̂_j² from the OLS residuals of joint j's rows, then OLS on rows divided by
                σ̂_j; Cov β̂ = (Wᵀ Σ⁻¹ W)⁻¹ · s² with s² the weighted residual variance.
``consistent``  physically consistent least squares (convex; cvxpy, default solver — Clarabel): over the full
                parameters θ, minimise ‖W B θ − y‖² subject to m_i ≥ m_min, Izz_i ≥ mx_i²/m_i (i.e. J_i ≥ 0:
                inertia about the joint at least m·Lc²), b_i ≥ 0, f_ci ≥ 0, rotor armature
                I_ai ≥ 0 (when the base set has it); β̂ = B θ̂.  Standard errors are the
                OLS ones (reported for reference; the constraints make the estimator biased when active).
                Numerics: QR-compressed, column-scaled, Clarabel at 1e-12 with fallbacks (:func:`consistent`).
``rls``         recursive least squares with forgetting factor λ: K = P w/(λ + wᵀ P w), β ← β + K (y − wᵀβ),
                P ← (P − K wᵀ P)/λ, started at β = 0, P = 10⁶ I; the trace of β is kept for plotting.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from crossdyn.identification.parameters import BaseParameters

ESTIMATORS = ("ols", "wls", "consistent")

M_MIN = 1e-6
"""kg; the consistent estimator's lower bound on each mass (m > 0)."""


@dataclass
class Estimate:
    beta: np.ndarray
    stderr: np.ndarray
    cov: np.ndarray
    dof: int
    residual_rms: float
    method: str
    theta: np.ndarray | None = None         # a full physical parameter vector (consistent estimator)
    info: dict = field(default_factory=dict)

    def interval(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        import scipy.stats  # type: ignore[import-untyped]

        k = scipy.stats.t.ppf(0.5 + level / 2, max(self.dof, 1))
        return self.beta - k * self.stderr, self.beta + k * self.stderr

    def uncertified(self) -> str | None:
        """Why the estimate cannot be judged (a convex estimator whose solvers certified no optimum,
        :func:`solve_consistent`), or None."""
        if self.info.get("certified", True):
            return None
        return f"the {self.method} estimator's answer is not certified optimal: {self.info.get('certificate')}"


M_MAX = 1e4
"""kg; the consistent estimator's upper bound on each mass.  A mass no base parameter holds (m1 of a planar arm:
only m1·Lc1 and J1 + m1·Lc1² are identifiable) is otherwise free, the optimal set is unbounded, and the
interior-point solver chases m1 → ∞ (which relaxes Izz1 ≥ mx1²/m1) instead of converging ("optimal_inaccurate")."""


def correlated_meat(W: np.ndarray, joint: np.ndarray, rho) -> np.ndarray:
    """Wᵀ R W for rows whose errors are correlated ρ_l between rows of the same joint l samples apart (rows in
    time order within each joint; R the correlation matrix, unit diagonal, no correlation across joints)."""
    meat = W.T @ W
    for j in np.unique(joint):
        Wj = W[joint == j]
        for lag in range(1, min(len(rho), len(Wj))):
            A = Wj[:-lag].T @ Wj[lag:]
            meat = meat + rho[lag] * (A + A.T)
    return meat


def _ols(W: np.ndarray, y: np.ndarray, method: str = "ols", joint: np.ndarray | None = None,
         rho=None) -> Estimate:
    N, r = W.shape
    if N <= r:
        raise ValueError(f"{N} equations for {r} parameters: too few samples")
    beta, *_ = np.linalg.lstsq(W, y, rcond=None)
    res = y - W @ beta
    dof = N - r
    s2 = float(res @ res) / dof
    bread = np.linalg.pinv(W.T @ W)
    info: dict = {}
    if rho is not None and len(rho) > 1 and joint is not None:
        # sandwich with the filter's known noise correlation: Cov = s² (WᵀW)⁻¹ Wᵀ R W (WᵀW)⁻¹
        cov = s2 * bread @ correlated_meat(W, joint, rho) @ bread
        info["covariance"] = (f"sandwich s²(WᵀW)⁻¹WᵀRW(WᵀW)⁻¹ with R the parallel filter's noise correlation at the "
                              f"kept samples (ρ_1..ρ_{len(rho) - 1} = {', '.join(f'{x:.3g}' for x in rho[1:4])}"
                              f"{', …' if len(rho) > 4 else ''})")
    else:
        cov = s2 * bread
        info["covariance"] = "s²(WᵀW)⁻¹ (independent rows)"
    return Estimate(beta, np.sqrt(np.clip(np.diag(cov), 0, None)), cov, dof, float(np.sqrt(np.mean(res ** 2))), method,
                    info=info)


def ols(W, y, joint=None, rho=None) -> Estimate:
    """OLS; with ``joint`` and ``rho`` (the rows' known error correlation, :func:`correlated_meat`) the sandwich
    covariance, else s²(WᵀW)⁻¹."""
    return _ols(np.asarray(W, float), np.asarray(y, float), "ols", None if joint is None else np.asarray(joint), rho)


def wls(W, y, joint, rho=None) -> Estimate:
    """Per-joint weighting (rows with joint −1, energy rows, form one group); ``rho`` as for :func:`ols`."""
    W, y, joint = np.asarray(W, float), np.asarray(y, float), np.asarray(joint)
    first = _ols(W, y)
    res = y - W @ first.beta
    sig = np.ones(len(y))
    sigmas = {}
    for j in np.unique(joint):
        sel = joint == j
        s = float(np.sqrt(np.mean(res[sel] ** 2)))
        sigmas[int(j)] = s
        sig[sel] = s if s > 0 else 1.0
    est = _ols(W / sig[:, None], y / sig, "wls", joint, rho)
    est.residual_rms = float(np.sqrt(np.mean((y - W @ est.beta) ** 2)))
    est.info["joint_sigma"] = {str(j + 1): s for j, s in sigmas.items()}
    return est


CLARABEL_TIGHT = {"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12, "tol_ktratio": 1e-10,
                  "max_iter": 400}
"""Clarabel's settings for the consistent estimator's first attempt (its defaults are 1e-8: friction estimates
of ~1e-7 with the noise-free data's standard errors of ~1e-12 read as OUTSIDE before these)."""


def _consistent_problem(R: np.ndarray, z: np.ndarray, scale: np.ndarray, base: BaseParameters, m_min: float):
    """The convex problem in the scaled full parameters θ_s = θ·scale/‖z‖: min ‖R θ_s − z/‖z‖‖ subject to the
    physical constraints on θ = ‖z‖·θ_s/scale (R, z: the QR-compressed, column-scaled regression).  The
    constraints are positively homogeneous (m ≥ m_min aside), so the ‖z‖ factor is applied inside them."""
    import cvxpy as cp

    full = base.full
    theta_s = cp.Variable(full.p)
    zs = float(np.linalg.norm(z)) or 1.0
    theta = cp.multiply(zs / scale, theta_s)
    cons = []
    kinds = np.array(full.kinds)
    for j in sorted(set(full.joints)):
        idx = {k: full.names.index(f"{k}{j}") for k in ("m", "mx", "Izz")}
        cons += [theta[idx["m"]] >= m_min, theta[idx["m"]] <= M_MAX,
                 cp.quad_over_lin(theta[idx["mx"]], theta[idx["m"]]) <= theta[idx["Izz"]]]
    for k in ("b", "fc", "Ia"):
        sel = np.nonzero(kinds == k)[0]
        if len(sel):
            cons.append(theta[sel] >= 0)
    # the norm, not its square: the same minimiser, but a solver's tolerance ε on the objective then bounds the
    # parameters' error by ~ε rather than ~√ε (squared, friction estimates of 5e-7 at tolerance 1e-12)
    objective = cp.norm(R @ theta_s - z / zs, 2)
    return cp.Problem(cp.Minimize(objective), cons), theta_s, zs


AGREEMENT = 1e-3
"""The consistent estimator's acceptance of answers no solver reported ``optimal`` (:func:`solve_consistent`): two
solvers' feasible answers whose fitted torques differ by at most √AGREEMENT ≈ 0.03 noise standard deviations (the
squared difference summed over all rows at most AGREEMENT·σ̂²) — a difference the data cannot see."""
PRECISION_FLOOR = 1e-12
"""… or by at most this fraction of ‖y‖² (noise-free data: σ̂² is round-off)."""

SOLVER_PLAN: tuple[tuple[str, dict[str, Any]], ...] = (("CLARABEL", CLARABEL_TIGHT), ("CLARABEL", {}), ("SCS", {"eps_abs": 1e-10, "eps_rel": 1e-10}))
"""The solvers the consistent estimators try, in order: Clarabel at 1e-12, Clarabel's defaults, SCS (a first-order
method: independent of the interior-point path)."""


@dataclass(frozen=True)
class ConvexProblem:
    """One consistent-estimator problem, as :func:`solve_consistent` needs it: ``build()`` → (a fresh
    ``cvxpy.Problem``, a function giving θ in physical units from its solution, or None); ``feasible(θ)`` → the
    nearest point of the constraint set found in closed form (the answer of a solver that stopped short made
    feasible); ``W``, ``y``, ``B``: the regression W B θ ≈ y."""

    build: Callable[[], tuple[Any, Callable[[], np.ndarray | None]]]
    feasible: Callable[[np.ndarray], np.ndarray]
    W: np.ndarray
    y: np.ndarray
    B: np.ndarray


def _objective(P: ConvexProblem, theta: np.ndarray) -> float:
    return float(np.sum((P.W @ (P.B @ theta) - P.y) ** 2))


def solve_consistent(P: ConvexProblem, sigma2: float, ols_objective: float) -> tuple[np.ndarray, dict]:
    """θ̂ of a consistent estimator and how it was certified (``info``: ``attempts``, ``certified``,
    ``certificate``, ``solver``, ``status``).

    The solvers of :data:`SOLVER_PLAN` run in order until one reports ``optimal``.  An answer that is not
    (``optimal_inaccurate``: the interior point stopped at reduced tolerances, as it does on noisy data with
    several constraints binding, depending on the BLAS kernel) is made feasible by ``P.feasible`` and kept when
    one of two tests holds, both of which hold at a binding constraint:

    * its objective f(θ) = ‖W B θ − y‖² is within 1e-9 (relative) of the OLS minimum, a lower bound of the
      constrained one: it is optimal;
    * two different solvers' (algorithms') feasible answers agree: ‖W B (θ_a − θ_b)‖² ≤ max(:data:`AGREEMENT`·σ̂²,
      :data:`PRECISION_FLOOR`·‖y‖²) and so do their objectives; the best feasible answer found is kept.  (At a constrained optimum
      θ*, f(θ) − f(θ*) ≥ ‖W B (θ − θ*)‖² for every feasible θ, so an answer with a near-optimal objective is
      near θ* in the metric of the estimate's own covariance σ̂² (WᵀW)⁻¹.)

    Otherwise the best feasible answer is returned with ``certified`` False and the statuses named; the caller's
    verdict is then INCONCLUSIVE.  Never raises for a solver's status."""
    import cvxpy as cp

    attempts: list[dict[str, Any]] = []
    answers: list[tuple[float, np.ndarray, dict[str, Any]]] = []
    floor = max(AGREEMENT * sigma2, PRECISION_FLOOR * float(P.y @ P.y))
    for solver, settings in SOLVER_PLAN:
        prob, to_theta = P.build()
        attempt: dict[str, Any] = {"solver": solver, "settings": settings}
        attempts.append(attempt)
        try:
            with warnings.catch_warnings():  # cvxpy's "Solution may be inaccurate": the status says it
                warnings.simplefilter("ignore", UserWarning)
                prob.solve(solver=solver, **settings)
        except cp.error.SolverError as e:  # a solver that gives up raises; the next one is tried
            attempt["status"] = f"error: {e}"
            continue
        attempt["status"] = prob.status
        theta = to_theta()
        if theta is None or not np.all(np.isfinite(theta)):
            continue
        if prob.status == cp.OPTIMAL:
            attempt["objective"] = _objective(P, theta)
            return theta, _info(attempts, attempt, True, f"{solver} reported optimal")
        fixed = np.asarray(P.feasible(theta), float)
        f = _objective(P, fixed)
        attempt.update(objective=f, moved_to_feasible=float(np.max(np.abs(fixed - theta))))
        if f <= ols_objective * (1 + 1e-9) + 1e-300:
            return fixed, _info(attempts, attempt, True, f"{solver} {prob.status}; its feasible answer's objective "
                                f"equals the unconstrained minimum (a lower bound): optimal")
        for g, other, a in answers:
            if a["solver"] == solver:       # the same algorithm again (other settings) is no second opinion
                continue
            d = float(np.sum((P.W @ (P.B @ (fixed - other))) ** 2))
            if d <= floor and abs(f - g) <= floor:   # kept: the best feasible answer of all (a lower objective)
                _, best, keep = min([*answers, (f, fixed, attempt)], key=lambda t: t[0])
                return best, _info(attempts, keep, True,
                                   f"{a['solver']} and {solver} ({a['status']}, {prob.status}) agree: fitted torques "
                                   f"differ by {d:.3g} (sum of squares) <= {floor:.3g} "
                                   f"(max({AGREEMENT:g} sigma^2, {PRECISION_FLOOR:g} |y|^2))")
        answers.append((f, fixed, attempt))
    statuses = ", ".join(f"{a['solver']} {a['status']}" for a in attempts)
    if not answers:                   # the minimum-norm least-squares θ, made feasible: a defined, physical answer
        theta0 = np.linalg.lstsq(P.W @ P.B, P.y, rcond=None)[0]
        return np.asarray(P.feasible(theta0), float), _info(
            attempts, {"solver": "least squares made feasible", "status": "no solver answer"}, False,
            f"no solver returned an answer ({statuses}): the least-squares answer made feasible is kept")
    f, best, a = min(answers, key=lambda t: t[0])
    return best, _info(attempts, a, False, f"no solver certified an optimum ({statuses}) and no two feasible "
                                           f"answers agreed within {floor:.3g}: the best feasible answer is kept")


def _info(attempts: list[dict], chosen: dict, certified: bool, how: str) -> dict:
    return {"solver": chosen["solver"], "status": chosen.get("status"), "attempts": attempts,
            "certified": certified, "certificate": how}


def consistent(W, y, base: BaseParameters, m_min: float = M_MIN, joint=None, rho=None) -> Estimate:
    """Physically consistent estimate (see the module docstring); needs cvxpy.

    Numerics (issue 23: planar2r's noise-free fit was "Solution may be inaccurate"): the regression on the full
    parameters A = W B is compressed by QR (A = Q R, ‖A θ − y‖² = ‖R θ − Qᵀy‖² + const: p rows instead of N),
    its columns scaled to unit norm (θ_s = θ·‖A_k‖) and the right-hand side to unit norm; Clarabel then runs with
    tolerances 1e-12 (:data:`CLARABEL_TIGHT`), with the fallbacks and the acceptance of
    :func:`solve_consistent` (``info`` records the attempts and the certificate).
    """
    W, y = np.asarray(W, float), np.asarray(y, float)
    ref = _ols(W, y, "ols", None if joint is None else np.asarray(joint), rho)   # its standard errors are reported
    A = W @ base.B                       # regression on θ directly
    scale = np.linalg.norm(A, axis=0)
    scale[scale == 0] = 1.0
    Q, R = np.linalg.qr(A / scale)
    z = Q.T @ y

    def build():
        prob, theta_s, zs = _consistent_problem(R, z, scale, base, m_min)
        return prob, lambda: None if theta_s.value is None else np.asarray(theta_s.value, float) * zs / scale

    problem = ConvexProblem(build, lambda th: planar_feasible(th, base, m_min), W, y, base.B)
    ols_obj = float(np.sum((W @ ref.beta - y) ** 2))
    th, info = solve_consistent(problem, ols_obj / max(ref.dof, 1), ols_obj)
    beta = base.B @ th
    res = y - W @ beta
    return Estimate(beta, ref.stderr, ref.cov, ref.dof, float(np.sqrt(np.mean(res ** 2))), "consistent", th,
                    {"covariance": ref.info["covariance"], **info,
                     "numerics": "QR-compressed regression, columns scaled to unit norm, Clarabel tolerances 1e-12; "
                                 "fallback: Clarabel defaults, then SCS"})


def planar_feasible(theta: np.ndarray, base: BaseParameters, m_min: float = M_MIN) -> np.ndarray:
    """θ moved onto the planar constraint set: m clipped to [m_min, M_MAX], Izz raised to mx²/m where below it,
    b, f_c, I_a clipped at 0."""
    full = base.full
    th = np.array(theta, float)
    for j in sorted(set(full.joints)):
        im, ix, iz = (full.names.index(f"{k}{j}") for k in ("m", "mx", "Izz"))
        th[im] = min(max(th[im], m_min), M_MAX)
        th[iz] = max(th[iz], th[ix] ** 2 / th[im])
    kinds = np.array(full.kinds)
    sel = np.isin(kinds, ("b", "fc", "Ia"))
    th[sel] = np.maximum(th[sel], 0.0)
    return th


def estimate(name: str, rows, base: BaseParameters, project=None) -> Estimate:
    """The estimator ``name`` (:data:`ESTIMATORS`) on ``rows``; ``project``: the arm kind's consistent estimator
    (its feasible set: ``project(W, y, base, joint=, rho=)``), default the planar :func:`consistent`."""
    rho = rows.info.get("noise_correlation")
    if name == "ols":
        return ols(rows.W, rows.y, rows.joint, rho)
    if name == "wls":
        return wls(rows.W, rows.y, rows.joint, rho)
    if name == "consistent":
        return (project or consistent)(rows.W, rows.y, base, joint=rows.joint, rho=rho)
    raise ValueError(f"estimator: must be one of {', '.join(ESTIMATORS)}, got {name!r}")


def rls(W, y, forgetting: float = 1.0, p0: float = 1e6, every: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Recursive least squares; returns (β at the end, trace of β every ``every`` rows: (K, r))."""
    W, y = np.asarray(W, float), np.asarray(y, float)
    r = W.shape[1]
    beta = np.zeros(r)
    P = np.eye(r) * p0
    trace = []
    lam = float(forgetting)
    for k in range(len(y)):
        w = W[k]
        Pw = P @ w
        g = Pw / (lam + w @ Pw)
        beta = beta + g * (y[k] - w @ beta)
        P = (P - np.outer(g, Pw)) / lam
        P = 0.5 * (P + P.T)
        if k % every == 0:
            trace.append(beta.copy())
    return beta, np.array(trace)
