"""Metric group ``effort`` (arms with effort limits): the applied-mode saturation of the driven run, and whether
the engine honours the limit natively (:func:`crossdyn.native.effort.native_effort_check`).  Informational: the
comparison itself runs in applied mode, so every engine integrates the same saturated torque."""
from __future__ import annotations

from crossdyn.comparison.containment import engine_code
from crossdyn.comparison.result import MetricResult


def effort_group(engine, driven) -> MetricResult:
    from crossdyn.native.effort import native_effort_check

    with engine_code():
        native = native_effort_check(engine)
    info = (driven.info or {}).get("effort", {})
    return MetricResult("effort", {
        "mode": "applied: crossdyn saturates the commanded torque to [-effort, effort] before every engine",
        "limit_nm": info.get("limit_nm"), "saturated_steps": info.get("saturated_steps"),
        "native": native, "native_ignored_joints": [r["joint"] for r in native if not r["honoured"]]})


def effort_note(runs) -> str | None:
    """One note line naming the engines that ignore the effort limit natively (None if none does)."""
    efforts = {name: run.summary["effort"] for name, run in runs.items() if "effort" in run.summary}
    ignoring = [f"{name} (joint {', '.join(map(str, e['native_ignored_joints']))})"
                for name, e in efforts.items() if e["native_ignored_joints"]]
    if not ignoring:
        return None
    honouring = [name for name, e in efforts.items() if not e["native_ignored_joints"]]
    return ("effort limit: ignored natively by " + ", ".join(ignoring) + " (given 3x the limit for one "
            "step they applied all of it)" + (f"; honoured natively by {', '.join(honouring)}"
                                              if honouring else "")
            + ". crossdyn saturates the torque itself before every engine (applied mode), so the runs "
              "above are comparable; an engine driven directly would exceed the limit")
