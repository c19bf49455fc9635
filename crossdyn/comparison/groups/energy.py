"""Metric groups ``energy`` and ``speed``.

Energy: the free swing's drift max |E(t) − E(0)| / E_scale (arms that conserve energy only), and the driven
run's work–energy balance E(t) − E(0) − ∫τ·q̇ dt + ∫(b q̇² + f_c|q̇|) dt relative to E_scale, judged against the
larger of the scheme's energy tolerance and ``trajectory_factor`` × its Richardson estimate from the dt/2 run.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crossdyn.comparison import metrics
from crossdyn.comparison.containment import engine_code
from crossdyn.comparison.groups.trajectory import SideRuns
from crossdyn.comparison.result import MetricResult, judge
from crossdyn.comparison.tolerances import Tolerances
from crossdyn.models.spec import ArmSpec


@dataclass(frozen=True)
class Energies:
    """E = T + V from the engine along the free swing, the driven run and the dt/2 run (on the dt grid)."""

    free: np.ndarray
    driven: np.ndarray
    half: np.ndarray | None


def _energy(engine, q, qd) -> np.ndarray:
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
            half = _energy(engine, side.half.q[::2], side.half.qd[::2])
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
    energy_tol = tol.energy_for(side.scheme or str(side.integrator))
    wer = float(np.max(np.abs(residual))) / escale
    # the balance is only as good as the integrator: its own O(dtᵖ) error, estimated (like the trajectory's)
    # from the dt/2 run sampled on the dt grid, where the held torques are the same intervals
    wer_estimate = None
    if energies.half is not None:
        half = side.half
        res_half = metrics.work_energy_residual(half.q[::2], half.qd[::2], half.tau[::2], energies.half, dt, b, fc)
        wer_estimate = float(np.max(np.abs(residual - res_half))) * metrics.richardson_factor(side.order) / escale
    wer_tol = energy_tol if wer_estimate is None else max(energy_tol, tol.trajectory_factor * wer_estimate)
    energy = {"max_rel_drift": drift if conservative else None,
              "work_energy_residual_rel": wer, "work_energy_richardson_estimate": wer_estimate,
              "work_energy_tolerance": wer_tol, "energy_scale_j": escale, "tolerance": energy_tol,
              "free_status": free.status}
    ok = bool(free.status == "ok" and wer <= wer_tol and (energy["max_rel_drift"] is None or drift <= energy_tol))
    because = None if ok else (f"free-swing drift {drift:.3g} (tolerance {energy_tol:g}), work-energy "
                               f"residual {wer:.3g} (tolerance {wer_tol:.3g}), relative to {escale:.4g} J")
    checks = len(residual) + (len(energies.free) if conservative else 0)  # balanced samples, drift samples
    return MetricResult("energy", judge(energy, ok, checks, because))


def speed_group(wall_s: float, steps: int) -> MetricResult:
    """Metric group ``speed``: µs per step through the adapter (driven run and free swing)."""
    return MetricResult("speed", {"us_per_step": wall_s / steps * 1e6, "steps": steps})
