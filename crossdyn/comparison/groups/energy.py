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


@dataclass(frozen=True)
class Balance:
    """The work–energy balance of a driven run, r(t) = E(t) − E(0) − ∫τ·q̇ dt + ∫b q̇² dt + ∫f_c|q̇| dt per sample
    (J), and what its tolerance is built from; any arm (the planar presets' energies from the engine, a robot
    file's from crossdyn's model on the engine's states)."""

    residual: np.ndarray
    half_residual: np.ndarray | None
    """The dt/2 run's balance on its own grid, read on the dt grid (``[::2]``); None without a usable dt/2 run."""
    escale: float
    order: int
    """The scheme's order p (the Richardson factor 2ᵖ/(2ᵖ − 1))."""
    scheme: str
    """The word the scheme's energy tolerance is looked up by (:meth:`Tolerances.energy_for`)."""
    dtype: str
    duration: float
    dt: float

    @property
    def roundoff(self) -> float:
        """The dtype's energy round-off term (0 for float64, :func:`crossdyn.engines.precision.energy_roundoff`)."""
        return precision.energy_roundoff(self.dtype, self.duration)

    def base(self, tol: Tolerances) -> float:
        """The scheme's energy tolerance plus the dtype's round-off (relative to E_scale)."""
        return tol.energy_for(self.scheme) + self.roundoff

    @property
    def incl(self) -> str:
        """What a tolerance's wording adds for a narrower dtype ("" for float64)."""
        return f" incl. {self.dtype} round-off {self.roundoff:.3g}" if self.roundoff else ""


def balance_estimate(residual, half_residual, order: int, escale: float) -> float | None:
    """The balance's own O(dtᵖ) error relative to E_scale, estimated like the trajectory's from the dt/2 run:
    max |r_dt − r_dt/2| · 2ᵖ/(2ᵖ − 1) / E_scale over the common prefix; None without a dt/2 balance."""
    if half_residual is None:
        return None
    k = min(len(residual), len(half_residual))
    return float(np.max(np.abs(residual[:k] - half_residual[:k]))) * metrics.richardson_factor(order) / escale


def balance_group(bal: Balance, tol: Tolerances, checks: int, failed: list[str], head: dict, tail: dict,
                  origin_tail: str = "") -> MetricResult:
    """Metric group ``energy`` from the balance (one formula, one verdict wording for every arm): residual
    max|r| / E_scale ≤ max(the scheme's energy tolerance (+ round-off), ``trajectory_factor`` × the balance's
    Richardson estimate); a tolerance above ``energy_bound_fraction`` judges nothing (INCONCLUSIVE).  ``failed``:
    what the caller already found failing (the free swing's drift); ``head``, ``tail``: the caller's own values
    (before and after the balance's); ``checks``: the samples judged."""
    energy_tol, incl, escale, dt = bal.base(tol), bal.incl, bal.escale, bal.dt
    wer = float(np.max(np.abs(bal.residual))) / escale
    wer_estimate = balance_estimate(bal.residual, bal.half_residual, bal.order, escale)
    wer_tol = energy_tol if wer_estimate is None else max(energy_tol, tol.trajectory_factor * wer_estimate)
    origin = (f"max(the {bal.scheme} energy tolerance {energy_tol:g}{incl}, "
              f"{tol.trajectory_factor:g} × the balance's Richardson estimate "
              + ("(none: no dt/2 run)" if wer_estimate is None else f"{wer_estimate:.3g}") + ")" + origin_tail)
    bound = tol.energy_bound_fraction
    energy = {**head, "work_energy_residual_rel": wer, "work_energy_richardson_estimate": wer_estimate,
              "work_energy_tolerance": wer_tol, "work_energy_tolerance_origin": origin,
              "work_energy_tolerance_bound": bound, "energy_scale_j": escale, "tolerance": energy_tol, **tail}
    if bal.roundoff:
        energy["precision"] = {"dtype": bal.dtype, "roundoff_term": bal.roundoff,
                               "origin": precision.energy_origin(bal.dtype, bal.duration)}
    failed = list(failed)
    if wer_tol > bound:
        rerun = ("" if wer_estimate is None else f": its dt/2 rerun changes the residual by "
                 f"{wer_estimate / metrics.richardson_factor(bal.order):.3g}")
        unjudged = (f"the balance is too sensitive to judge at dt = {dt:g} s{rerun}, so its tolerance {wer_tol:.3g} "
                    f"exceeds the bound {bound:g} (of E_scale); the work-energy residual {wer:.3g} is not judged")
        if not failed:
            return MetricResult("energy", judge(energy, Verdict.INCONCLUSIVE, checks, unjudged))
        energy["also_inconclusive_because"] = unjudged  # a line of its own beside the FAIL
    elif wer > wer_tol:
        failed.insert(0, f"work-energy residual {wer:.3g} > tolerance {wer_tol:.3g}{incl}")
    because = "; ".join(failed) + f" (relative to E_scale = {escale:.4g} J)" if failed else None
    return MetricResult("energy", judge(energy, not failed, checks, because))


def energy_group(spec: ArmSpec, free, driven, side: SideRuns, energies: Energies, tol: Tolerances, dt: float,
                 conservative: bool) -> MetricResult:
    """Metric group ``energy`` of a planar arm: its balance (:func:`balance_group`, E from the engine) and, where
    ``conservative`` (no damping, friction, limit law or contact), the free swing's drift."""
    escale = spec.energy_scale()
    b = np.array([link.damping for link in spec.links])
    fc = np.array([link.friction for link in spec.links])
    residual = metrics.work_energy_residual(driven.q, driven.qd, driven.tau, energies.driven, dt, b, fc)
    half_residual = None
    if energies.half is not None:
        half = side.half
        half_residual = metrics.work_energy_residual(half.q, half.qd, half.tau, energies.half, dt / 2, b, fc)[::2]
    duration = float(driven.t[-1] - driven.t[0]) if len(driven.t) else 0.0
    bal = Balance(residual, half_residual, escale, side.order, side.scheme or str(side.integrator), side.dtype,
                  duration, dt)
    energy_tol = bal.base(tol)
    drift = metrics.energy_drift(energies.free, escale)
    failed = []
    if free.status != "ok":
        failed.append(f"free swing {free.status}")
    if conservative and drift > energy_tol:
        failed.append(f"free-swing drift {drift:.3g} > tolerance {energy_tol:.3g}{bal.incl}")
    tail: dict = {"free_status": free.status}
    if not conservative:
        tail["drift_not_judged"] = _why_not_conservative(spec, side)
    laws = _held_laws(spec)
    checks = len(residual) + (len(energies.free) if conservative else 0)  # balanced samples, drift samples
    return balance_group(bal, tol, checks, failed, {"max_rel_drift": drift if conservative else None}, tail,
                         f"; {laws} held over each step: their work τ·Δq is exact, no allowance" if laws else "")


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
