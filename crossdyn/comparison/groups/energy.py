"""Metric groups ``energy`` and ``speed``.

Energy: the free swing's drift max |E(t) − E(0)| / E_scale (judged on arms that conserve energy only: a damped
arm's free swing loses energy physically, a held law stores and dissipates it — there the drift is neither
reported as judged nor quoted), and the driven run's work–energy balance E(t) − E(0) − ∫τ·q̇ dt +
∫(b q̇² + f_c|q̇|) dt relative to E_scale, judged against the larger of the scheme's energy tolerance and
``trajectory_factor`` × its Richardson estimate from the dt/2 run (that run's own balance, on its dt/2 grid with
every torque it held, read on the dt grid; its laws held for dt like the driven run's).

**Held laws.**  The laws (contact, limits, applied friction) are part of τ and held over each step, so their work
τ·Δq is exact: they leave no first-order term in the balance, and no allowance is added for them (stated in
``work_energy_tolerance_origin``).  Measured before deciding: analytic-rk4 and mujoco-rk4 leave 4.0e-8, 1.8e-9 on
planar2r-floor at dt = 2, 1 ms, 4.5e-13, 3.5e-14, 1.6e-15 on planar2r-limits at dt = 2, 1, 0.5 ms — each equal to
its Richardson estimate.  Two first-order-looking terms were crossdyn's own bookkeeping, now fixed: the dt/2 run's
balance read with the dt grid's torques (τ[::2]) missed the limit torque of every other half step, an "estimate"
of 1.0e-4, 5.9e-5, 3.6e-5, 1.6e-5 at dt = 2, 1, 0.5, 0.25 ms (first order) that widened RK4's tolerance on
planar2r-limits to 1e-3; and the dissipation integral's trapezoid rule left 5.1e-6 on a damped contact arm under
RK4 (×4 per halving of dt, the same for analytic-rk4; the rule is now exact for a quadratic velocity within the
step, :func:`crossdyn.comparison.metrics.dissipated_energy`).

Precision: an engine computing in a narrower dtype than float64 (MJX's float32) gets its round-off added to both
the drift and the balance tolerance (:func:`crossdyn.engines.precision.energy_roundoff`, stated under
``precision``).

Upper bound: a balance tolerance above ``energy_bound_fraction`` (5 %) of E_scale judges nothing: the group is then
INCONCLUSIVE ("the balance is too sensitive to judge at dt = …"), never PASS.  A FAIL line quotes only the
quantities judged.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.comparison import metrics
from crossdyn.comparison.containment import engine_code
from crossdyn.comparison.groups.trajectory import SideRuns
from crossdyn.comparison.result import MetricResult, judge
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.engines import precision
from crossdyn.models.spec import ArmSpec
from crossdyn.status import Verdict


@dataclass(frozen=True)
class Energies:
    """E = T + V from the engine along the free swing, the driven run and the dt/2 run (every sample of it)."""

    free: np.ndarray
    driven: np.ndarray
    half: np.ndarray | None


def _energy(engine, q, qd) -> np.ndarray:
    """T + V at every sample: the engine's energy(), state by state; the analytic engine's, and a ``user:`` engine's
    whose equations run in another process (``batched_energies``), in one batched call."""
    from crossdyn.engines.analytic.planar import AnalyticEngine

    if type(engine).energy is AnalyticEngine.energy or getattr(engine, "batched_energies", False):
        return engine.energies(np.asarray(q, float), np.asarray(qd, float))   # energy()'s functions, batched
    return np.array([sum(engine.energy(a, v)) for a, v in zip(q, qd, strict=False)])


def evaluate(engine, free, driven, side: SideRuns, record) -> Energies:
    """The engine's energies (engine code, contained); the free swing's and the driven run's go into
    ``record`` as soon as they are known."""
    with engine_code():
        record.free = free
        record.free_energy = _energy(engine, free.q, free.qd)
        record.driven_energy = _energy(engine, driven.q, driven.qd)
        half = None
        if side.half.status == "ok" and len(side.half.q[::2]) == len(driven.q):
            half = _energy(engine, side.half.q, side.half.qd)
    return Energies(record.free_energy, record.driven_energy, half)


def energy_group(spec: ArmSpec, free, driven, side: SideRuns, energies: Energies, tol: Tolerances, dt: float,
                 conservative: bool) -> MetricResult:
    """Metric group ``energy``; ``conservative``: the arm has no damping, friction, limit law or contact (only
    then is the free-swing drift judged)."""
    escale = spec.energy_scale()
    drift = metrics.energy_drift(energies.free, escale)
    b = np.array([link.damping for link in spec.links])
    fc = np.array([link.friction for link in spec.links])
    residual = metrics.work_energy_residual(driven.q, driven.qd, driven.tau, energies.driven, dt, b, fc)
    duration = float(driven.t[-1] - driven.t[0]) if len(driven.t) else 0.0
    roundoff = precision.energy_roundoff(side.dtype, duration)  # a narrower dtype's round-off (0 for float64)
    energy_tol = tol.energy_for(side.scheme or str(side.integrator)) + roundoff
    wer = float(np.max(np.abs(residual))) / escale
    wer_estimate = _balance_estimate(residual, side, energies, dt, b, fc, escale)
    wer_tol = energy_tol if wer_estimate is None else max(energy_tol, tol.trajectory_factor * wer_estimate)
    incl = f" incl. {side.dtype} round-off {roundoff:.3g}" if roundoff else ""
    origin = (f"max(the {side.scheme or side.integrator} energy tolerance {energy_tol:g}{incl}, "
              f"{tol.trajectory_factor:g} × the balance's Richardson estimate "
              + ("(none: no dt/2 run)" if wer_estimate is None else f"{wer_estimate:.3g}") + ")"
              + (f"; {_held_laws(spec)} held over each step: their work τ·Δq is exact, no allowance"
                 if _held_laws(spec) else ""))
    bound = tol.energy_bound_fraction
    energy = {"max_rel_drift": drift if conservative else None,
              "work_energy_residual_rel": wer, "work_energy_richardson_estimate": wer_estimate,
              "work_energy_tolerance": wer_tol, "work_energy_tolerance_origin": origin,
              "work_energy_tolerance_bound": bound,
              "energy_scale_j": escale, "tolerance": energy_tol, "free_status": free.status}
    if roundoff:
        energy["precision"] = {"dtype": side.dtype, "roundoff_term": roundoff,
                               "origin": precision.energy_origin(side.dtype, duration)}
    if not conservative:
        energy["drift_not_judged"] = _why_not_conservative(spec, side)
    checks = len(residual) + (len(energies.free) if conservative else 0)  # balanced samples, drift samples
    failed = []
    if free.status != "ok":
        failed.append(f"free swing {free.status}")
    if conservative and drift > energy_tol:
        failed.append(f"free-swing drift {drift:.3g} > tolerance {energy_tol:.3g}{incl}")
    if wer_tol > bound:
        rerun = ("" if wer_estimate is None else f": its dt/2 rerun changes the residual by "
                 f"{wer_estimate / metrics.richardson_factor(side.order):.3g}")
        unjudged = (f"the balance is too sensitive to judge at dt = {dt:g} s{rerun}, so its tolerance {wer_tol:.3g} "
                    f"exceeds the bound {bound:g} (of E_scale); the work-energy residual {wer:.3g} is not judged")
        if not failed:
            return MetricResult("energy", judge(energy, Verdict.INCONCLUSIVE, checks, unjudged))
        failed.append(f"also not judged: {unjudged}")
    elif wer > wer_tol:
        failed.insert(0, f"work-energy residual {wer:.3g} > tolerance {wer_tol:.3g}{incl}")
    because = "; ".join(failed) + f" (relative to E_scale = {escale:.4g} J)" if failed else None
    return MetricResult("energy", judge(energy, not failed, checks, because))


def _balance_estimate(residual, side: SideRuns, energies: Energies, dt: float, b, fc, escale: float) -> float | None:
    """The balance's own O(dtᵖ) error (relative to E_scale), estimated like the trajectory's from the dt/2 run: its
    balance on its own dt/2 grid (every torque it held, the laws' included), read on the dt grid; None without it."""
    if energies.half is None:
        return None
    half = side.half
    res_half = metrics.work_energy_residual(half.q, half.qd, half.tau, energies.half, dt / 2, b, fc)[::2]
    k = min(len(residual), len(res_half))
    return float(np.max(np.abs(residual[:k] - res_half[:k]))) * metrics.richardson_factor(side.order) / escale


def _held_laws(spec: ArmSpec) -> str:
    """The laws held over each step on this arm ("" if none)."""
    return ", ".join(w for w, has in (("contact", spec.has_contact), ("limit law", spec.has_limit_law)) if has)


def _why_not_conservative(spec: ArmSpec, side: SideRuns) -> str:
    """Why the free swing's drift is not judged on this arm (it does not conserve energy)."""
    what = [w for w, has in (("joint damping", spec.has_damping), ("Coulomb friction", spec.has_friction),
                             ("a limit law", spec.has_limit_law), ("contact", spec.has_contact)) if has]
    return ("the arm has " + ", ".join(what or ["an applied friction law"]) + ": its free swing does not conserve "
            "energy, so the drift is not a check")


def speed_group(wall_s: float, steps: int) -> MetricResult:
    """Metric group ``speed``: µs per step through the adapter (driven run and free swing)."""
    return MetricResult("speed", {"us_per_step": wall_s / steps * 1e6, "steps": steps})
