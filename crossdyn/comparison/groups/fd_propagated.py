"""The ``forward_dynamics`` group of a robot comparison (robot files, textbook arms), its tolerance propagated from
the M and ID tolerances through M⁻¹ at each state: :func:`propagated_forward_dynamics_group` (the planar presets keep
the fixed rule of :func:`crossdyn.comparison.groups.static.forward_dynamics_group`; both read q̈'s scale from
:func:`crossdyn.comparison.groups.static.qdd_scale`).

**Why.** An engine whose mass matrix and inverse dynamics pass their groups may still be off by up to those
tolerances: |δM_ij| ≤ ε_M = ``mass_matrix_rel`` · max|M| and |δτ_i| ≤ ε_τ = ``inverse_dynamics_rel`` · (torque
scale).  Its forward dynamics solves M_e q̈_e = τ − h_e, so with ID_e(q̈) = M_e q̈ + h_e = ID(q̈) + δτ(q̈),

    M_e (q̈_e − q̈) = −δτ(q̈),   δτ_i(q̈) = δh_i + Σ_j δM_ij q̈_j,

and to first order |q̈_e − q̈|_∞ ≤ ‖M⁻¹‖_∞ (ε_τ + ε_M ‖q̈‖₁)  (‖M⁻¹‖_∞: the largest row sum of |M⁻¹|).  That is
the FD error the M and ID tolerances already allow, at that state; on a well-conditioned arm it is below the planar
rule 1e-9 · max(1, max|q̈|), but a light body makes M ill-conditioned (example-robot-data's Panda: 0.015 kg fingers,
‖M⁻¹‖_∞ ≈ 70 kg⁻¹) and the planar rule then FAILs an engine for an error its passing M and ID explain (PyBullet
on that Panda: M off by 1.1e-10 kg m², ID by 1.1e-9 N m, both inside; FD off by 2.2e-8 rad/s² > 1e-8).

**The rule**, per state k: tolerance_k = max(planar rule, ‖M_k⁻¹‖_∞ (ε_τ + ε_M ‖q̈_k‖₁)), M and q̈ the reference's.

* error_k ≤ tolerance_k and ≤ the bound: PASS;
* error_k > tolerance_k: FAIL — no M and ID within their tolerances explain it (a 1 % mass change on one link moves
  q̈ by ~1e-3 of its scale, orders above);
* error_k ≤ tolerance_k but above the bound: INCONCLUSIVE — the state's M is too ill-conditioned to tell.

So a state PASSes under min(tolerance_k, bound): the group reports that figure at its worst state as ``tolerance``
(``tolerance_propagated``, ``tolerance_max``, ``tolerance_base``, ``tolerance_bound`` and ``max_inverse_mass_norm``
beside it).  The propagated figure is a worst case (every ID and M entry off by its whole tolerance, aligned with
M⁻¹'s largest row): on that Panda it is 5.8e-5 rad/s² at the worst state, above the bound 1e-5, so the bound judges.

The bound is a physical scale of q̈: ``FD_BOUND_REL`` (1e-6) · max(1, max|q̈|) (an FD error of 1e-6 of 10 rad/s²
moves a joint by ½ · 1e-5 · t² = 5e-6 rad in 1 s, above the trajectory's same-scheme tolerance of 1e-8 rad: a user
would see it).  The planar comparison keeps its fixed rule so that its outputs stay as they are, though it has the
same flaw in principle: its presets reach cond(M) = 364 and ‖M⁻¹‖_∞ = 93 kg⁻¹ m⁻² (planar3r, 500 random states),
and its engines' FD errors have stayed at ~1e-13, far inside 1e-9 · max(1, max|q̈|), so no verdict has depended
on it so far.
"""
from __future__ import annotations

import numpy as np

from crossdyn.comparison import metrics
from crossdyn.comparison.groups.static import qdd_scale
from crossdyn.comparison.references import StaticStates
from crossdyn.comparison.result import MetricResult, judge
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.status import Verdict

FD_BOUND_REL = 1e-6
"""The bound on the propagated FD tolerance, relative to max(1, max|q̈|) (module docstring)."""


def propagated(M: np.ndarray, qdd: np.ndarray, eps_tau: float, eps_M: float) -> np.ndarray:
    """‖M_k⁻¹‖_∞ (ε_τ + ε_M ‖q̈_k‖₁) per state: the FD error that M and ID errors within ε_M, ε_τ allow, (N,)."""
    Minv = np.linalg.inv(np.asarray(M, dtype=float))
    return np.abs(Minv).sum(axis=-1).max(axis=-1) * (eps_tau + eps_M * np.abs(qdd).sum(axis=-1))


def roundoff_qdd(st: StaticStates, torque_scale: float, dtype: str) -> np.ndarray:
    """Per state, the q̈ error a ``dtype`` engine's arithmetic alone leaves (0 for float64): its round-off of τ and
    of M (:func:`crossdyn.engines.precision.static_roundoff`: 100 eps × the torque scale, × max|M|, as the ID and M
    groups allow) through M⁻¹, ‖M⁻¹‖_∞ (r_τ + r_M ‖q̈‖₁) (:func:`propagated`).  The planar rule's 10 eps cond(M)
    max(1, |q̈|) misses the cancellation in τ − h: measured Newton float32 on Menagerie's Panda 17 eps cond(M)."""
    from crossdyn.engines import precision

    if precision.is_float64(dtype):
        return np.zeros(len(st.q))
    tau_scale = max(torque_scale, float(np.max(np.abs(st.tau_ref))))
    r_tau = precision.static_roundoff(dtype, tau_scale)
    r_M = precision.static_roundoff(dtype, float(np.max(np.abs(st.M_ref))))
    return propagated(st.M_ref, st.qdd_ref, r_tau, r_M)


def propagated_forward_dynamics_group(st: StaticStates, qdd_engine: np.ndarray, tol: Tolerances,
                                      torque_scale: float, dtype: str = "float64") -> MetricResult:
    """The engine's q̈ = FD(q, q̇, τ) against the reference's at the static states (module docstring).  An engine
    computing in float32 (``dtype``) has its round-off in ε_τ and ε_M (100 eps × the torque scale, × max|M|, as
    the ID and M groups) and, per state, that round-off through M⁻¹ added to the bound (:func:`roundoff_qdd`)."""
    from crossdyn.engines import precision

    scale = qdd_scale(st)
    base = tol.forward_dynamics_rel * scale
    tau_scale = max(torque_scale, float(np.max(np.abs(st.tau_ref))))
    m_scale = float(np.max(np.abs(st.M_ref)))
    eps_tau = tol.inverse_dynamics_rel * torque_scale + precision.static_roundoff(dtype, tau_scale)
    eps_M = tol.mass_matrix_rel * m_scale + precision.static_roundoff(dtype, m_scale)
    limits = np.maximum(base, propagated(st.M_ref, st.qdd_ref, eps_tau, eps_M))
    bound = FD_BOUND_REL * scale + roundoff_qdd(st, torque_scale, dtype)
    err_k = np.max(np.abs(np.asarray(qdd_engine, float) - st.qdd_ref), axis=-1)
    fail = (err_k > limits) | ~np.isfinite(err_k)  # a NaN q̈ (an engine's singular M) fails, never passes
    unsure = ~fail & (err_k > bound)
    passing = np.minimum(limits, bound)  # what a state's error must stay under to PASS
    worst = int(np.argmax(err_k / passing))
    err = metrics.max_abs(qdd_engine, st.qdd_ref)
    values = {"max_abs_error": err, "max_abs_error_per_joint": metrics.per_entry_max(qdd_engine, st.qdd_ref),
              "unit": "rad/s^2", "tolerance": float(passing[worst]), "tolerance_propagated": float(limits[worst]),
              "tolerance_max": float(limits.max()),
              "tolerance_base": base, "tolerance_bound": float(bound[worst]),
              "tolerance_origin": f"per state: max({tol.forward_dynamics_rel:g} × max(1, max|q̈|), ‖M⁻¹‖_∞ (ε_τ + "
                                  f"ε_M ‖q̈‖₁)) with ε_τ = {eps_tau:.3g} N m and ε_M = {eps_M:.3g} kg m² (the ID "
                                  "and M tolerances); bounded by "
                                  f"{FD_BOUND_REL:g} × max(1, max|q̈|)"
                                  + ("" if precision.is_float64(dtype) else
                                     f" + ‖M⁻¹‖_∞ ({dtype} round-off of τ + that of M × ‖q̈‖₁)"),
              "max_inverse_mass_norm": float(np.abs(np.linalg.inv(st.M_ref)).sum(axis=-1).max()),
              "worst_state": worst, "states_failing": int(fail.sum()), "states_unjudged": int(unsure.sum())}
    if not precision.is_float64(dtype):
        values["precision"] = {"dtype": dtype, "roundoff_tau_nm": precision.static_roundoff(dtype, tau_scale),
                               "roundoff_M": precision.static_roundoff(dtype, m_scale),
                               "origin": precision.static_origin(dtype) + "; ε_τ, ε_M and the bound: + ‖M⁻¹‖_∞ "
                                         "(that round-off of τ + that of M × ‖q̈‖₁), what the arithmetic alone "
                                         "leaves through M⁻¹"}
    checks = len(st.q)
    if fail.any():
        k = int(np.argmax(np.where(fail, err_k / limits, -1.0)))
        return MetricResult("forward_dynamics", judge(values, False, checks, (
            f"max error {err:.3g} > tolerance {limits[k]:.3g} at state {k} (its error {err_k[k]:.3g}; the tolerance "
            f"is what the M and ID tolerances allow through M⁻¹ there, at least {base:.3g})")))
    if unsure.any():
        k = int(np.argmax(np.where(unsure, err_k, -1.0)))
        return MetricResult("forward_dynamics", judge(values, Verdict.INCONCLUSIVE, checks, (
            f"at {int(unsure.sum())} state(s) M is too ill-conditioned to judge: at state {k} the error "
            f"{err_k[k]:.3g} is inside what the M and ID tolerances allow ({limits[k]:.3g}) but above the bound "
            f"{bound[k]:.3g} (1e-6 of max(1, max|q̈|)"
            + ("" if precision.is_float64(dtype) else f" + the {dtype} round-off") + ")")))
    return MetricResult("forward_dynamics", judge(values, True, checks, None))
