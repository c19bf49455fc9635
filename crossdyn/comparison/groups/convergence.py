"""Metric group ``convergence``: free-motion error at several dt against a dense DOP853 solution, the empirical
order (slope of log error against log dt) and the compute time per simulated second; informational (reported, not
judged: it has no tolerance, hence no bound).  The group says what it measured (``study``: the start, the duration,
the reference).  It is not run on an arm with contact, a limit law or applied friction (the dense reference has
none of them): there the group is absent and the report draws no ``convergence.png``."""
from __future__ import annotations

import time

import numpy as np

from crossdyn.comparison import metrics
from crossdyn.comparison.containment import build_engine, engine_code
from crossdyn.comparison.result import MetricResult


def convergence_runs(name: str, job) -> tuple[list, list]:
    """(max |q − q_dense| or None per dt, compute s per simulated s per dt): the free swing from
    ``job.conv_q0`` at every ``convergence_dts`` (engine code, contained)."""
    from crossdyn.drive.runner import run_engine

    spec, opt = job.spec, job.opt
    errs, costs = [], []
    for cdt in opt.convergence_dts:
        with engine_code(), build_engine(name, spec, cdt, job.friction) as ce:
            t1 = time.perf_counter()
            ctraj = run_engine(ce, job.free_profile, job.conv_q0, np.zeros(spec.n), opt.convergence_duration)
            cost = (time.perf_counter() - t1) / opt.convergence_duration
        exact = job.dense.sol(ctraj.t)[: spec.n].T
        errs.append(metrics.max_abs(ctraj.q, exact) if ctraj.status == "ok" else None)
        costs.append(cost)
    return errs, costs


def study(job) -> str:
    """What the convergence study measures, in words (its start, duration and reference)."""
    q0 = ", ".join(f"{v:.4g}" for v in job.conv_q0)
    return (f"free swing from q0 = [{q0}] rad, q̇0 = 0, over {job.opt.convergence_duration:g} s at each dt: max |q − "
            f"q_dense| against DOP853 (rtol = atol = 1e-12); reported, not judged")


def convergence_group(dts, errs: list, costs: list, order: int, error_controlled: bool,
                      measured: str | None = None) -> MetricResult:
    """The group; an error-controlled integrator (Drake's ``drake``) meets its accuracy at any dt: order ~0."""
    return MetricResult("convergence", {
        **({"study": measured} if measured else {}),
        "dt_s": list(dts), "max_abs_error_rad": errs,
        "compute_s_per_sim_s": costs, "empirical_order": metrics.empirical_order(dts, errs),
        "expected_order": 0 if error_controlled else order,
    })
