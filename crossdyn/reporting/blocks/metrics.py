"""The metric sections every comparison has: the driven trajectory, inverse and forward dynamics and the mass
matrix at random states, energy, convergence and speed — each says what it measures and where its tolerance
comes from, then one row per engine."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from crossdyn.reporting.blocks.text import fmt, result_cell

Column = tuple[str, Callable[[dict], str]]
"""A table column: its header and how a metric's entry writes the cell."""


def metric_table(summary: dict, metric: str, cols: Sequence[Column]) -> tuple:
    """The table of ``metric``: per engine that has it, one cell per column, then its result with its check count
    (PASS/FAIL/INCONCLUSIVE, or – for an informational group)."""
    rows = []
    for k, v in summary["engines"].items():
        m = v.get(metric)
        if not m:
            continue
        rows.append([k] + [f(m) for _, f in cols] + [result_cell(m)])
    return ("table", ["engine"] + [c for c, _ in cols] + ["result"], rows)


def precision_blocks(summary: dict, metrics: Sequence[str]) -> list[tuple]:
    """One paragraph per engine computing in a narrower type than float64: the round-off term each of ``metrics``
    adds to its tolerance and where it comes from (the ``precision`` entries; none for float64 engines)."""
    out = []
    for name, v in summary["engines"].items():
        parts, dtype = [], None
        for metric in metrics:
            p = (v.get(metric) or {}).get("precision")
            if p:
                dtype = p["dtype"]
                term = p.get("roundoff_term_rad", p.get("roundoff_term"))
                parts.append(f"{metric} + {fmt(term)} ({p['origin']})")
        if parts:
            out.append(("p", f"{name} computes in {dtype}; its tolerances include {dtype} round-off: "
                             + "; ".join(parts) + "."))
    return out


def trajectory_blocks(summary: dict) -> list[tuple]:
    """Section "Trajectory (driven run)": the error against the reference, the Richardson self-consistency
    tolerance and the same-integrator comparison."""
    tols = summary.get("tolerances", {})
    b: list[tuple] = [("h", 2, "Trajectory (driven run)")]
    b.append(("p", "What it measures: each engine's joint angles under the profile against the reference (the "
                   "analytic model integrated by DOP853 to 1e-12). Where the tolerance comes from: an engine with "
                   "a fixed step has an integration error of its own, so the tolerance is "
                   f"{tols.get('trajectory_factor', 10):g} × its *self-consistency* estimate — the same engine "
                   "rerun at dt/2 (torque still held for dt), |q(dt) − q(dt/2)| scaled by Richardson's "
                   "2ᵖ/(2ᵖ − 1) for an order-p integrator — plus "
                   f"{tols.get('trajectory_floor_rad', 1e-9):g} rad: integration error of the expected size "
                   "passes, a model error does not. *Same integrator*: the engine is also run against the analytic "
                   "model stepped by the same scheme (semi-implicit Euler for PyBullet and MuJoCo Euler, RK4 for "
                   "MuJoCo RK4 and Pinocchio) at the same dt, where integration error cancels and only model "
                   f"differences remain; that must be below {tols.get('trajectory_same_integrator_rad', 1e-8):g} rad."))
    cols: list[Column] = [
        ("max |e| [rad]", lambda m: fmt(m["max_abs_error_rad"])), ("RMS [rad]", lambda m: fmt(m["rms_error_rad"])),
        ("EE max [m]", lambda m: fmt(m["ee_max_error_m"])),
        ("diverged at [s]", lambda m: fmt(m["divergence_time_s"])),
        ("self-consistency [rad]", lambda m: fmt(m["self_consistency_rad"])),
        ("tolerance [rad]", lambda m: fmt(m["tolerance_rad"])),
        ("same integrator", lambda m: m.get("same_integrator") or "–"),
        ("vs same integrator [rad]", lambda m: fmt(m.get("same_integrator_error_rad")))]
    b.append(metric_table(summary, "trajectory", cols))
    return b + precision_blocks(summary, ["trajectory"])


def dynamics_blocks(summary: dict) -> list[tuple]:
    """Section "Inverse dynamics, forward dynamics, mass matrix (random states)": rounding-level tolerances."""
    eng = summary["engines"]
    tols = summary.get("tolerances", {})
    states = next((v["inverse_dynamics"]["states"] for v in eng.values() if v.get("inverse_dynamics")), "random")
    b: list[tuple] = [("h", 2, "Inverse dynamics, forward dynamics, mass matrix (random states)")]
    b.append(("p", f"What it measures: τ(q, q̇, q̈), q̈(q, q̇, τ) and M(q) from each engine's own query functions at "
                   f"the same {states} "
                   "random states, against the analytic model. No integration is involved, so the tolerances are "
                   f"rounding-level: {tols.get('inverse_dynamics_rel', 1e-9):g} × the torque scale Σ mᵢ|g|rᵢ "
                   f"({summary.get('torque_scale_nm', float('nan')):.4g} N m) for τ, "
                   f"{tols.get('forward_dynamics_rel', 1e-9):g} × max(1, max|q̈|) for q̈ and "
                   f"{tols.get('mass_matrix_rel', 1e-9):g} × max|M| for M."))
    b.append(metric_table(summary, "inverse_dynamics", [("τ max |e| [N m]", lambda m: fmt(m["max_abs_error_nm"])),
                                                        ("tolerance [N m]", lambda m: fmt(m["tolerance_nm"]))]))
    b.append(metric_table(summary, "forward_dynamics", [("q̈ max |e| [rad/s²]", lambda m: fmt(m["max_abs_error"])),
                                                        ("tolerance [rad/s²]", lambda m: fmt(m["tolerance"]))]))
    b.append(metric_table(summary, "mass_matrix", [("M max |e| [kg m²]", lambda m: fmt(m["max_abs_error"])),
                                                   ("tolerance [kg m²]", lambda m: fmt(m["tolerance"]))]))
    return b + precision_blocks(summary, ["inverse_dynamics", "forward_dynamics", "mass_matrix"])


def energy_blocks(summary: dict) -> list[tuple]:
    """Section "Energy": free-swing drift and the driven work–energy residual, relative to the energy scale."""
    tols = summary.get("tolerances", {})
    b: list[tuple] = [("h", 2, "Energy")]
    b.append(("p", "What it measures: the drift of total energy T + U in free motion (no torque, no damping) and, "
                   "for the driven run, the work–energy balance E(t) − E(0) − ∫τ·q̇ dt + ∫(b q̇² + f_c|q̇|) dt, both "
                   f"relative to the energy scale Σ mᵢ|g|rᵢ ({summary.get('energy_scale_j', float('nan')):.4g} J). "
                   "Where the tolerance comes from: what each integrator family is known to leave "
                   f"(RK4 {tols.get('energy_rk4', 1e-6):g}, semi-implicit Euler {tols.get('energy_symplectic', 2e-3):g}, "
                   f"explicit Euler and implicit schemes {tols.get('energy_explicit', 1e-2):g}); the balance may "
                   "also use 10 × its own dt/2 (Richardson) estimate when that is larger."))
    b.append(metric_table(summary, "energy", [
        ("free-swing drift [rel.]", lambda m: fmt(m["max_rel_drift"])),
        ("work–energy residual [rel.]", lambda m: fmt(m["work_energy_residual_rel"])),
        ("tolerance [rel.]", lambda m: fmt(m["tolerance"]))]))
    return b


def convergence_blocks(summary: dict) -> list[tuple]:
    """Section "Convergence and speed": the free-motion error per dt, the empirical and expected order, µs per
    step (reported, not judged)."""
    eng = summary["engines"]
    b: list[tuple] = [("h", 2, "Convergence and speed")]
    b.append(("p", "What it measures: the free-motion error at several time steps against a dense DOP853 "
                   "solution, the empirical order of accuracy (slope of log error against log dt; expected: the "
                   "integrator's order) and the cost in µs per step through the adapter. Reported, not judged: "
                   "it has no tolerance."))
    conv_rows = []
    for k, v in eng.items():
        c, s = v.get("convergence"), v.get("speed")
        if not c:
            continue
        conv_rows.append([k, " / ".join(fmt(e) for e in c["max_abs_error_rad"]), fmt(c["empirical_order"]),
                          str(c["expected_order"]), fmt(s["us_per_step"] if s else None)])
    dt_s: list[float] = next((v["convergence"]["dt_s"] for v in eng.values() if v.get("convergence")), [])
    dts = " / ".join(f"{d * 1e3:g}" for d in dt_s)
    b.append(("table", ["engine", f"error at dt = {dts} ms [rad]", "order", "expected", "µs/step"], conv_rows))
    return b
