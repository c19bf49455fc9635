"""``compare ARM --batch N --derivatives``: the engines' own derivatives judged over arms of the batch (issue 41),
added to the batch's summary by :func:`add_to_batch` (the command calls it on the result of
:func:`crossdyn.batch.compare.batch_compare`, a peer package this one does not import).

For each batched engine of the run that offers derivatives (:func:`crossdyn.comparison.groups.derivatives.offers`:
MuJoCo's ``mjd_transitionFD``/``mjd_inverseFD``, Newton's tape through its step …), the single-arm
``derivatives`` group (:func:`~crossdyn.comparison.groups.derivatives.derivatives_group`: every block against
crossdyn's complex-step reference, with its method's tolerance) is run on each of the first :data:`ARMS` arms of
the batch — arm i's own parameters (:func:`crossdyn.models.spec.arm_spec`), compiled to the model the engine's file adapter reads — at
:data:`STATES` random states of that arm (:func:`crossdyn.comparison.references.static_states`, seed = batch seed + i).

The engine's ``derivatives`` entry: PASS when every arm's group PASSes, FAIL when one FAILs (the line names the arm,
the block, the entry and the state), INCONCLUSIVE otherwise; ``checks`` the entries judged over all arms; the worst
ratio to the tolerance and the arm that has it.  Engines that offer no derivatives get no entry.
"""
from __future__ import annotations

import tempfile
from typing import Callable

import numpy as np

from crossdyn.models.spec import ArmParams, ArmSpec
from crossdyn.status import Verdict

ARMS = 8
"""At most this many arms of the batch (the first ones) are differentiated: each is a model of its own."""
STATES = 5
"""Random states per arm."""
NOT_IN_BATCH = {name: ("its jax.jacfwd Jacobians compile for minutes per arm model on a CPU; judged on single arms: "
                       f"compare ARM --derivatives --engines {name}") for name in ("mjx", "mjx-euler", "mjx-rk4")}
"""Names that offer derivatives but are not judged over the batch's arms, and why."""


def batch_derivatives(spec: ArmSpec, params: ArmParams, engines, dt: float, seed: int,
                      say: Callable[[str], None] = lambda msg: None) -> dict[str, dict]:
    """Engine name → its ``derivatives`` entry (module docstring), for the names of ``engines`` that offer them."""
    from crossdyn.comparison.groups import derivatives as dg

    offered = [name for name in engines if dg.offers(name) and name not in NOT_IN_BATCH]
    if not offered:
        return {}
    N = int(np.asarray(params.m).shape[0])
    arms = min(ARMS, N)
    groups: dict[str, list] = {name: [] for name in offered}
    for i in range(arms):
        say(f"  derivatives: arm {i + 1} of {arms} ({', '.join(offered)})")
        _one_arm(spec, params, i, offered, dt, seed, groups)
    return {name: _entry(name, found, arms) for name, found in groups.items()}


def _one_arm(spec: ArmSpec, params: ArmParams, i: int, offered: list[str], dt: float, seed: int,
             groups: dict[str, list]) -> None:
    """Every offered engine's derivatives group on arm ``i``, appended to ``groups[name]`` as (arm, MetricResult)."""
    from crossdyn.comparison.groups import derivatives as dg
    from crossdyn.comparison.references import static_states
    from crossdyn.derivatives.engines import file_model
    from crossdyn.models.spec import arm_spec

    arm = arm_spec(spec, params, i)
    st = static_states(arm, STATES, seed + i)
    with tempfile.TemporaryDirectory() as folder:
        model = file_model(arm, folder, dt)
        for name in offered:
            groups[name].append((i, dg.derivatives_group(name, model, st.q, st.qd, st.tau, dt)))


def _entry(name: str, found: list, arms: int) -> dict:
    """The engine's entry from its per-arm groups (module docstring)."""
    verdicts = [m.verdict for _, m in found]
    ratios = [(m.values.get("worst_ratio"), i) for i, m in found]
    finite = [(r, i) for r, i in ratios if r is not None]
    failed = [(i, m) for i, m in found if m.verdict is Verdict.FAIL]
    verdict = (Verdict.FAIL if failed else Verdict.PASS if verdicts and all(v is Verdict.PASS for v in verdicts)
               else Verdict.INCONCLUSIVE)
    worst = max(finite) if finite else (None, None)
    out = {"verdict": verdict.value, "checks": int(sum(m.values.get("checks", 0) for _, m in found)),
           "arms": arms, "states_per_arm": STATES,
           "worst_ratio": None if len(finite) < len(ratios) else worst[0],
           "worst_arm": next((i for r, i in ratios if r is None), worst[1]),
           "per_arm": [{"arm": i, "verdict": m.verdict.value, "worst_ratio": m.values.get("worst_ratio")}
                       for i, m in found],
           "methods": sorted({b["method"] for _, m in found for b in m.values.get("blocks", {}).values()})}
    if failed:
        out["failed_because"] = "; ".join(f"arm {i}: {m.values['failed_because']}" for i, m in failed)
    elif verdict is Verdict.INCONCLUSIVE:
        out["inconclusive_because"] = "; ".join(f"arm {i}: {m.values.get('inconclusive_because')}" for i, m in found
                                                if m.verdict is Verdict.INCONCLUSIVE) or "no arm was judged"
    return out


def add_to_batch(spec: ArmSpec, result, engines, dt: float, seed: int, N: int,
                 say: Callable[[str], None] = lambda msg: None) -> None:
    """Each offering engine's ``derivatives`` entry (:func:`batch_derivatives`, over the engines that ran) into the
    batch ``result``'s summary: its checks counted, a FAIL among the failures, the batch's verdict recomputed."""
    s = result.summary
    found = batch_derivatives(spec, result.params, [n for n in engines if result.runs[n].status == "ok"], dt, seed, say)
    for name, entry in found.items():
        s["engines"][name]["derivatives"] = entry
        if entry["verdict"] == Verdict.FAIL.value:
            s["failures"].append(f"{name} derivatives: {entry['failed_because']}")
        elif entry["verdict"] == Verdict.INCONCLUSIVE.value:
            s["inconclusive"].append(f"{name} derivatives: {entry['inconclusive_because']}")
    s["derivatives"] = {"arms": min(ARMS, N), "states_per_arm": STATES, "offered_by": sorted(found),
                        "not_judged_here": {n: NOT_IN_BATCH[n] for n in engines if n in NOT_IN_BATCH},
                        "method": "the single-arm derivatives group on each arm's own model "
                                  "(crossdyn.comparison.batch_derivatives)"}
    if found:
        s["checks"]["derivatives"] = sum(e["checks"] for e in found.values())
        s["checks"]["total"] += s["checks"]["derivatives"]
    s["verdict"] = (Verdict.FAIL if s["failures"] else Verdict.INCONCLUSIVE if s["inconclusive"]
                    else Verdict.PASS).value
