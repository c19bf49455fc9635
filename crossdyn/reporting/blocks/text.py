"""What the report's blocks are made of, and how numbers are written in them.

A report is a list of blocks: ``("h", level, text)``, ``("p", text)``, ``("table", header, rows)`` and
``("img", file, caption)`` (rendered by :mod:`crossdyn.pages`).  A level-2 heading
``("h", 2, text, FOLDED)`` opens a section the HTML report shows collapsed (``<details>``; open where it holds a
FAIL or an INCONCLUSIVE): the details a reader looks up, below the answer and the plots.
"""
from __future__ import annotations

from crossdyn.pages import FOLDED as FOLDED  # the shared page layout's (crossdyn.pages), re-exported
from crossdyn.pages import folded as folded


def fmt(x, unit: str = "") -> str:
    """``x`` to 3 significant digits (floats) with its ``unit``; "–" for None."""
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.3g}{unit}"
    return f"{x}{unit}"


def mark(ok) -> str:
    """A metric's result word: PASS, FAIL, or "–" where it was not judged (informational)."""
    return "–" if ok is None else ("PASS" if ok else "FAIL")


def result_cell(m: dict) -> str:
    """A judged group's cell: ``PASS (2001 checks)``, ``FAIL (…)``, ``INCONCLUSIVE (…)``, ``NOT EXERCISED (0
    checks)``; "–" if not judged."""
    verdict = m.get("verdict")
    if verdict is None:
        return mark(m.get("pass"))
    return f"{str(verdict).replace('_', ' ')} ({m.get('checks', 0)} checks)"


FIGURES = {"trajectory": (("max_abs_error_rad",), "rad"), "inverse_dynamics": (("max_abs_error_nm",), "N m"),
           "forward_dynamics": (("max_abs_error",), "rad/s²"), "mass_matrix": (("max_abs_error",), "kg m²"),
           "energy": (("max_rel_drift", "work_energy_residual_rel"), "rel."),
           "armature": (("max_abs_M_error_kgm2",), "kg m²")}
"""The figure a summary cell shows beside a group's verdict: the first of these entries that has a value, in
this unit (the largest error of the group; energy: the free-swing drift, else the work–energy residual)."""


def summary_cell(group: str, m: dict) -> str:
    """A summary table cell: :func:`result_cell` and the group's figure (:data:`FIGURES`), e.g.
    ``PASS (3001 checks), 9.58e-04 rad``."""
    keys, unit = FIGURES.get(group, ((), ""))
    value = next((m[k] for k in keys if m.get(k) is not None), None)
    return result_cell(m) + ("" if value is None else f", {fmt(value)} {unit}")


def checks_sentence(summary: dict) -> str:
    """``"The verdict rests on 2404 checks: trajectory 2002, …"`` (empty for a document without counts)."""
    checks = dict(summary.get("checks") or {})
    if not checks:
        return ""
    total = checks.pop("total", sum(checks.values()))
    return (f"The verdict rests on {total} checks (compared samples, states and events): "
            + ", ".join(f"{k} {v}" for k, v in checks.items()) + ".")


def vec(values) -> str:
    """``(a, b, …)`` to 4 significant digits."""
    return "(" + ", ".join(f"{v:.4g}" for v in values) + ")"


METRICS = ("trajectory", "inverse_dynamics", "forward_dynamics", "mass_matrix", "energy")


def engine_result(e: dict) -> str:
    """An engine's result beside its run status: ``pass``, ``FAIL: trajectory, energy`` (the metrics out of
    tolerance), ``FAIL: run diverged`` / ``failed``, or ``skipped`` / ``unsupported`` (not failures); a group
    not exercised is named after the rest (``pass; not exercised: effort``)."""
    if e["status"] in ("skipped", "unsupported"):
        return e["status"]
    fails = [m for m in METRICS if isinstance(e.get(m), dict) and e[m].get("pass") is False]
    if e["status"] != "ok":
        return f"FAIL: run {e['status']}" + (f"; {', '.join(fails)}" if fails else "")
    if fails:
        return f"FAIL: {', '.join(fails)}"
    unjudged = [k for k, m in e.items() if isinstance(m, dict) and m.get("verdict") == "INCONCLUSIVE"]
    idle = [k for k, m in e.items() if isinstance(m, dict) and m.get("verdict") == "NOT_EXERCISED"]
    return ((f"INCONCLUSIVE: {', '.join(unjudged)}" if unjudged else "pass")
            + (f"; not exercised: {', '.join(idle)}" if idle else ""))


PROFILE_UNITS = {"value": "N m", "after": "N m", "before": "N m", "offset": "N m", "time": "s", "frequency": "Hz",
                 "f0": "Hz", "f1": "Hz", "duration": "s", "phase": "rad", "base_frequency": "Hz",
                 "amplitude_rad": "rad", "center": "rad"}


def profile_parameters(prof: dict) -> str:
    """`` (value = [3.14, 0.628] N m)``: the parameters a reader needs to rerun the profile (short ones only;
    closed-loop gains and targets have a section of their own)."""
    if not isinstance(prof, dict) or prof.get("closed_loop"):
        return ""
    skip = {"name", "closed_loop", "n", "arm", "formula", "sweep", "phase_rule", "phases", "joint_delays",
            "peak_normalisation", "mass_matrix_at_center", "gravity_stiffness_at_center", "gravity_at_center",
            "law", "sha256", "time_range"}
    parts = []
    for k, v in prof.items():
        if k in skip or isinstance(v, dict):
            continue
        if isinstance(v, list):
            v = "[" + ", ".join(f"{x:.4g}" if isinstance(x, float) else str(x) for x in v) + "]"
        elif isinstance(v, float):
            v = f"{v:.4g}"
        unit = PROFILE_UNITS.get(k, "N m" if k == "amplitude" else "")
        parts.append(f"{k} = {v}" + (f" {unit}" if unit else ""))
    return f" ({', '.join(parts)})" if parts else ""


def section_verdict(section: dict, what: str) -> str:
    """A phenomenon section's verdict sentence: ``Verdict: PASS, 12 checks (limit contacts …).`` with the reason
    of a FAIL, an INCONCLUSIVE or a NOT EXERCISED (what the run did not exercise, and how to exercise it); empty if
    not judged."""
    verdict = section.get("verdict")
    if verdict is None:
        return ""
    because = (section.get("failed_because") or section.get("inconclusive_because")
               or section.get("not_exercised_because"))
    return (f"Verdict: {str(verdict).replace('_', ' ')}, {section.get('checks', 0)} checks ({what})"
            + (f": {because}." if because else "."))


def checks_line(summary: dict) -> str:
    """``"1204 checks: trajectory 2002, inverse_dynamics 400, …"``: what the verdict rests on; then ``; not
    exercised: effort — try …`` for each declared phenomenon the run never reached (:func:`not_exercised_part`)."""
    checks = dict(summary.get("checks", {}))
    total = checks.pop("total", sum(checks.values()))
    line = f"{total} checks: " + ", ".join(f"{k} {v}" for k, v in checks.items()) if checks else "0 checks"
    return line + not_exercised_part(summary.get("not_exercised") or [])


def not_exercised_part(lines) -> str:
    """``"; not exercised: effort — try --profile …"``: the phenomena of the ``not_exercised`` lines (``effort:
    no joint saturated: …; try …``), each with its suggestion (the ``try …`` part; the reason where none)."""
    parts = []
    for line in lines:
        name, _, because = line.partition(": ")
        hint = because.rsplit("; try ", 1)
        parts.append(f"{name} — " + (f"try {hint[1]}" if len(hint) == 2 else because))
    return "; not exercised: " + "; ".join(parts) if parts else ""
