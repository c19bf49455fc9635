"""Metric group ``armature`` (arms with rotor armature I_a, added to M_ii): does the engine carry it, the I_a it
holds, and max |M_engine − M_analytic| over the static states; for an engine that cannot, the reason and, as a
check of it, the deficit I_a − (M_analytic − M_engine)_ii on the diagonal at q0 (0: it lacks all of I_a).

**Exercised** always, where the arm declares I_a > 0: the engine's M is read at the static states whatever the
motion.  Judged (:func:`with_mass_matrix_errors`): PASS when every diagonal entry of the engine's M is within the
mass-matrix tolerance of the analytic M, which carries I_a, at every static state (a check is a state); FAIL
otherwise, naming the joint, the departure and the I_a it would take to explain it.  An engine that cannot carry
I_a is unsupported (not compared, no verdict)."""
from __future__ import annotations

import numpy as np

from crossdyn.comparison import metrics
from crossdyn.comparison.containment import engine_code
from crossdyn.comparison.result import MetricResult, judge


def armature_group(spec, engine, q0) -> MetricResult:
    """The group before the static states are measured (see :func:`with_mass_matrix_errors`)."""
    from crossdyn import analytic

    Ia = [float(link.armature) for link in spec.links]
    with engine_code():
        supported = "armature" in engine.supports
        held = engine.config().get("armature")
        reasons = engine.unsupported()
    out = {"armature_kgm2": Ia, "supported": supported,
           "engine_armature_kgm2": [float(x) for x in held] if isinstance(held, (list, tuple)) else None,
           "reason": None if supported else next((r for r in reasons if r.startswith("armature")), None),
           "max_abs_M_error_kgm2": None, "max_abs_diag_error_kgm2": None, "missing_on_diagonal_kgm2": None}
    if not supported:
        q = np.asarray(q0, dtype=float)
        M_ref = analytic.mass_matrix(spec, q)
        try:
            M_engine = np.asarray(engine.mass_matrix(q), dtype=float)
        except Exception as e:  # noqa: BLE001 — the engine's code: one that cannot even say its M is reported
            out["missing_on_diagonal_kgm2"] = None
            out["reason"] = f"{out['reason']}; its mass matrix could not be read: {e}"
        else:
            out["missing_on_diagonal_kgm2"] = [float(x) for x in np.diag(M_ref - M_engine)]
    return MetricResult("armature", out)


def with_mass_matrix_errors(group: MetricResult, M_e, M_ref, tolerance: float | None = None) -> MetricResult:
    """The group with max |M_engine − M_analytic| over the static states, and per diagonal entry; judged against
    ``tolerance`` (the mass-matrix group's, kg m²) when given: a check per state (module docstring)."""
    signed = np.diagonal(M_ref, axis1=-2, axis2=-1) - np.diagonal(M_e, axis1=-2, axis2=-1)
    diag = np.abs(signed)
    values = {**group.values, "max_abs_M_error_kgm2": metrics.max_abs(M_e, M_ref),
              "max_abs_diag_error_kgm2": [float(x) for x in np.max(diag, axis=0)]}
    if tolerance is None:
        return MetricResult(group.name, values)
    values["tolerance_kgm2"] = float(tolerance)
    worst = np.unravel_index(int(np.argmax(diag)), diag.shape)
    j = int(worst[-1])
    ok = bool(diag.max() <= tolerance)
    Ia = float(group.values["armature_kgm2"][j])
    carried = Ia - float(signed[worst])
    carried = 0.0 if abs(carried) <= tolerance else carried  # within the tolerance of none
    because = None if ok else (f"M_{j + 1}{j + 1} departs from the analytic M (I_a = {Ia:g} kg m^2 on joint {j + 1}) "
                               f"by {float(signed[worst]):.3g} kg m^2 (analytic - engine; tolerance {tolerance:.3g}): "
                               f"the engine carries {carried:.3g} kg m^2 of it")
    return MetricResult(group.name, judge(values, ok, int(np.asarray(M_e).shape[0]), because))


def armature_note(runs) -> str | None:
    """One note line: which engines carry the armature (with their M error) and which cannot."""
    groups = {name: run.summary["armature"] for name, run in runs.items() if "armature" in run.summary}
    if not groups:
        return None
    first = next(iter(groups.values()))
    carried = [name for name, g in groups.items() if g["supported"]]
    errors = [g["max_abs_M_error_kgm2"] for g in groups.values() if g["max_abs_M_error_kgm2"] is not None]
    lacking = [name for name, g in groups.items() if not g["supported"]]
    return (f"rotor armature I_a = {first['armature_kgm2']} kg m^2 (added to M_ii): carried by "
            + (", ".join(carried) if carried else "no engine")
            + (f" (max |M - M_analytic| {max(errors):.2g} kg m^2 at most)" if errors else "")
            + (f"; unsupported by {', '.join(lacking)} (not compared, reason above)" if lacking else ""))
