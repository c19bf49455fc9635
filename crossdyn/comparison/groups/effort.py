"""Metric group ``effort`` (arms with effort limits): the applied-mode saturation of the driven run, and whether
the engine honours the limit natively (:func:`crossdyn.native.effort.native_effort_check`).  The comparison itself
runs in applied mode, so every engine integrates the same saturated torque.

**Exercised** means some joint saturated: a step of the engine's driven run whose applied torque sat at the
effort limit.  A check is such a step (per joint): the trajectory group compared the engine's motion under the
saturated torque there.  A run in which no joint saturated is NOT_EXERCISED (0 checks; INCONCLUSIVE when the user
asked about effort: ``--require effort``), naming each joint's largest |τ| against its effort and a profile that
saturates one (:func:`crossdyn.comparison.coverage.effort_reason`).  Whether
an engine honours the limit natively is reported beside (``native``), not judged: no engine is driven natively."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from crossdyn.comparison.containment import engine_code
from crossdyn.comparison.coverage import effort_reason
from crossdyn.comparison.result import MetricResult, judge, unexercised


def effort_group(engine, driven, spec=None, q0=None, asked: bool = False) -> MetricResult:
    """The group (module docstring); ``spec`` and ``q0`` (the run's arm and start) give the unexercised line's
    suggestion; ``asked``: the user asked about effort (unexercised is then INCONCLUSIVE)."""
    from crossdyn.native.effort import native_effort_check

    with engine_code():
        native = native_effort_check(engine)
    info = (driven.info or {}).get("effort", {})
    saturated = [int(n) for n in info.get("saturated_steps") or []]
    tau = np.abs(np.asarray(driven.tau, dtype=float))
    max_tau = tau.max(axis=0) if tau.size else np.zeros(len(saturated))
    out = {"mode": "applied: crossdyn saturates the commanded torque to [-effort, effort] before every engine",
           "limit_nm": info.get("limit_nm"), "saturated_steps": info.get("saturated_steps"),
           "max_abs_torque_nm": [float(x) for x in max_tau],
           "native": native, "native_ignored_joints": [r["joint"] for r in native if not r["honoured"]]}
    spec = spec if spec is not None else engine.spec
    return judged_saturation(out, saturated, lambda: effort_reason(spec, max_tau, driven.q[0] if q0 is None else q0),
                             asked=asked)


def judged_saturation(out: dict, saturated: Sequence[int], unsaturated: Callable[[], str],
                      above: int = 0, asked: bool = False) -> MetricResult:
    """The ``effort`` group's verdict on ``out`` (the planar arms' and the robot files' alike): a check is a step at
    which a joint's applied torque sat at its limit (``saturated``: the count per joint); ``above`` applied torques
    beyond the limit (the clip not exact: |τ_j| > e_j) FAIL; no saturated step is NOT_EXERCISED (INCONCLUSIVE when
    ``asked``: the user asked about effort), ``unsaturated()`` saying why."""
    checks = int(sum(saturated))
    if above:
        return MetricResult("effort", judge(out, False, checks + int(above),
                                            f"{above} applied torque(s) beyond the effort limit: the clip "
                                            "tau = clip(tau_cmd, -effort, effort) was not applied exactly"))
    if checks:
        return MetricResult("effort", judge(out, True, checks))
    return MetricResult("effort", unexercised(out, asked, unsaturated()))


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
