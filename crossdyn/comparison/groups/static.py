"""Metric groups ``inverse_dynamics``, ``forward_dynamics`` and ``mass_matrix``: the engine against the analytic
model at the same random states (:class:`~crossdyn.comparison.references.StaticStates`).

A correct model agrees to rounding; each tolerance is relative: 1e-9 of the torque scale Σ mᵢ|g|rᵢ for τ,
of max|M| for M, of max(1, max|q̈|) for q̈ (:mod:`crossdyn.comparison.tolerances`).  An engine computing in a
narrower dtype than float64 (MJX's float32) gets its round-off added: 100·eps(dtype)·scale, 10·eps·cond(M)·scale for q̈
(:mod:`crossdyn.engines.precision`); the summary states it under ``precision``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.comparison import metrics
from crossdyn.comparison.containment import engine_code
from crossdyn.comparison.references import StaticStates
from crossdyn.comparison.result import MetricResult, judge
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.engines import precision
from crossdyn.models.spec import ArmSpec


@dataclass(frozen=True)
class StaticValues:
    """The engine's τ, M and q̈ at the static states."""

    tau: np.ndarray
    M: np.ndarray
    qdd: np.ndarray


def evaluate(engine, st: StaticStates, batched: bool = False) -> StaticValues:
    """τ = ID(q, q̇, q̈), M(q) and q̈ = FD(q, q̇, τ) from the engine at every state (engine code, contained):
    state by state (a planar :class:`~crossdyn.engines.base.Engine`), or ``batched``: one call each with every
    state (a :class:`~crossdyn.engines.files.base.FileEngine`, whose queries take (N, n) rows)."""
    qs, qds, qdds, taus = st.q, st.qd, st.qdd, st.tau
    if batched:
        with engine_code():
            return StaticValues(np.asarray(engine.inverse_dynamics(qs, qds, qdds), float),
                                np.asarray(engine.mass_matrix(qs), float),
                                np.asarray(engine.forward_dynamics(qs, qds, taus), float))
    with engine_code():
        tau_e = np.array([engine.inverse_dynamics(qs[k], qds[k], qdds[k]) for k in range(len(qs))])
        M_e = np.array([engine.mass_matrix(qs[k]) for k in range(len(qs))])
        qdd_e = np.array([engine.forward_dynamics(qs[k], qds[k], taus[k]) for k in range(len(qs))])
    return StaticValues(tau_e, M_e, qdd_e)


def _failed_because(values: dict, err_key: str, tol_key: str, states: int) -> dict:
    """Judge the group: one check per state; a FAIL quotes the measured error and the tolerance."""
    ok = bool(values.pop("pass"))
    origin = values.get("precision", {}).get("origin")
    because = None if ok else (f"max error {values[err_key]:.3g} > tolerance {values[tol_key]:.3g}"
                               + (f" (incl. {origin})" if origin else ""))
    return judge(values, ok, states, because)


def _limit(base: float, dtype: str, scale: float, condition: float | None = None) -> tuple[float, dict]:
    """The base tolerance plus the dtype's round-off term; the ``precision`` entry stating it ({} for float64)."""
    term = precision.static_roundoff(dtype, scale, condition)
    if precision.is_float64(dtype):
        return base, {}
    return base + term, {"precision": {"dtype": dtype, "base_tolerance": base, "roundoff_term": term,
                                       "origin": precision.static_origin(dtype, condition)}}


def condition_number(M: np.ndarray) -> float:
    """max over the states of cond₂(M(q))."""
    return float(np.max(np.linalg.cond(np.asarray(M))))


def inverse_dynamics_group(spec: ArmSpec, st: StaticStates, ev: StaticValues, tol: Tolerances,
                           dtype: str = "float64") -> MetricResult:
    """max |τ_engine − τ_analytic| ≤ inverse_dynamics_rel · torque scale (+ the dtype's round-off)."""
    return inverse_dynamics_scaled(spec.torque_scale(), st, ev, tol, dtype)


def inverse_dynamics_scaled(scale: float, st: StaticStates, ev: StaticValues, tol: Tolerances,
                            dtype: str = "float64") -> MetricResult:
    """:func:`inverse_dynamics_group` with the torque scale given (N m): the planar arm's Σ mᵢ|g|rᵢ, or a robot
    file's largest reference torque at the states.  The dtype's round-off term scales with the torque's magnitude
    at the states, max(scale, max|τ|): at q̇ up to 10 rad/s and q̈ up to 50 rad/s² the inertial terms dominate,
    e.g. 924 N m against a torque scale of 45 N m on a 4R arm, and float32 rounds τ relative to that (measured
    there: MuJoCo Warp 3.9, Newton 5.7 eps of max|τ|)."""
    tau_e, tau_ref = ev.tau, st.tau_ref
    roundoff_scale = max(scale, float(np.max(np.abs(tau_ref)))) if len(tau_ref) else scale
    limit, extra = _limit(tol.inverse_dynamics_rel * scale, dtype, roundoff_scale)
    err = metrics.max_abs(tau_e, tau_ref)
    return MetricResult("inverse_dynamics", _failed_because({
        "max_abs_error_nm": err, "max_abs_error_per_joint_nm": metrics.per_entry_max(tau_e, tau_ref),
        "rms_error_per_joint_nm": np.sqrt(np.mean((tau_e - tau_ref) ** 2, axis=0)).tolist(),
        "states": len(st.q), "tolerance_nm": limit, "pass": err <= limit, **extra,
    }, "max_abs_error_nm", "tolerance_nm", len(st.q)))


def qdd_scale(st: StaticStates) -> float:
    """q̈'s scale at the static states, max(1, max|q̈_ref|) (rad/s²): what ``forward_dynamics_rel`` is relative to,
    on every arm (this fixed rule's and the robot comparison's propagated one,
    :mod:`crossdyn.comparison.groups.fd_propagated`)."""
    return max(1.0, float(np.max(np.abs(st.qdd_ref))))


def forward_dynamics_group(st: StaticStates, ev: StaticValues, tol: Tolerances,
                           dtype: str = "float64") -> MetricResult:
    """max |q̈_engine − q̈_analytic| ≤ forward_dynamics_rel · max(1, max|q̈|) (+ the dtype's round-off × cond(M))."""
    scale = qdd_scale(st)
    cond = None if precision.is_float64(dtype) else condition_number(st.M_ref)
    limit, extra = _limit(tol.forward_dynamics_rel * scale, dtype, scale, cond)
    err = metrics.max_abs(ev.qdd, st.qdd_ref)
    return MetricResult("forward_dynamics", _failed_because({
        "max_abs_error": err, "max_abs_error_per_joint": metrics.per_entry_max(ev.qdd, st.qdd_ref),
        "unit": "rad/s^2", "tolerance": limit, "pass": err <= limit, **extra,
    }, "max_abs_error", "tolerance", len(st.q)))


def mass_matrix_group(st: StaticStates, ev: StaticValues, tol: Tolerances, dtype: str = "float64") -> MetricResult:
    """max |M_engine − M_analytic| ≤ mass_matrix_rel · max|M| (+ the dtype's round-off)."""
    scale = float(np.max(np.abs(st.M_ref)))
    limit, extra = _limit(tol.mass_matrix_rel * scale, dtype, scale)
    err = metrics.max_abs(ev.M, st.M_ref)
    return MetricResult("mass_matrix", _failed_because({
        "max_abs_error": err, "max_abs_error_per_entry": metrics.per_entry_max(ev.M, st.M_ref),
        "unit": "kg m^2", "tolerance": limit, "pass": err <= limit, **extra,
    }, "max_abs_error", "tolerance", len(st.q)))
