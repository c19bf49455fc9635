"""Coulomb friction in a comparison: the mode's note, ``summary["friction"]`` in applied mode, and with
``characterise_friction`` MuJoCo's and PyBullet's own stick–slip against the set-valued reference, judged
(:mod:`crossdyn.native.friction.runs`, :mod:`crossdyn.native.friction.verdict`).

**Exercised** means kinetic friction acted: a joint with f_c > 0 slid in the reference's run, |q̇_j| above
:data:`KINETIC_VS` × v_s (where the regularised law −f_c tanh(q̇/v_s) is within 4 % of f_c sign(q̇)); for the
stick–slip claims of the native characterisation, also that such a joint stuck at least once in the set-valued
reference.  ``summary["friction"]`` carries ``verdict`` and ``checks`` (:func:`crossdyn.comparison.result.judge`).
A check is, in applied mode, a sample at which the reference slid on some friction joint, per engine that ran
(the trajectory group compared the engine there); with the native characterisation, each quantity of each joint
(stick intervals, stick time, every transition, creep) the native verdict compared.  A reference in which no
friction joint slid is INCONCLUSIVE, naming each one's largest |q̇| and a start that makes one slide
(:mod:`crossdyn.comparison.coverage`); one in which none stuck leaves the native stick–slip claims INCONCLUSIVE."""
from __future__ import annotations

import numpy as np

from crossdyn.comparison.context import Context, Outcome
from crossdyn.comparison.coverage import friction_reason
from crossdyn.comparison.result import judge, unexercised
from crossdyn.status import Verdict

KINETIC_VS = 2.0
"""|q̇| above this many v_s counts as sliding (tanh(2) = 0.964: the regularised law is the kinetic one to 4 %)."""

APPLIED_NOTE = ("step, held over the step, and to the reference the same way. v_s is chosen so that the held "
                "law's step is monotone (no chatter about qd = 0); the set-valued stick-slip law is its v_s -> 0 "
                "limit (crossdyn.analytic.references.stick_slip.simulate_stick_slip). Not measured with it: the free-swing "
                "energy drift, the convergence study. --native-friction compares the engines' own friction")
NATIVE_NOTE = ("Coulomb friction (f_c > 0) is modelled differently by each engine: F = f_c sign(qd) in the "
               "analytic model, stick-slip constraints in PyBullet (velocity motor), MuJoCo (frictionloss) "
               "and DART (joint Coulomb friction constraint); "
               "expect disagreement wherever a joint slows to rest, and a reference that cannot follow sticking")


def notes(ctx: Context) -> list[str]:
    """Which friction mode the engines ran in, and what that leaves out."""
    if ctx.friction is not None:
        return [f"Coulomb friction (applied mode): every engine is built with f_c = 0 (its own friction off: "
                f"MuJoCo frictionloss, PyBullet's velocity motor, DART's constraint; Drake, which has none, "
                f"then runs) and crossdyn applies {ctx.friction.describe()} from each engine's own state at every "
                + APPLIED_NOTE]
    if ctx.spec.has_friction:
        return [NATIVE_NOTE]
    return []


def section(ctx: Context, out: Outcome) -> None:
    """summary["friction"] in applied mode; with ``characterise_friction`` its native part."""
    friction = ctx.friction
    if friction is None:
        return
    out.sections["friction"] = section_ = {"mode": "applied", "law": "-fc*tanh(qd/v_s)",
                                           "fc_nm": friction.fc.tolist(), "v_s_rad_s": friction.v_s}
    _judge_applied(ctx, section_, out)
    if ctx.opt.characterise_friction:
        out.notes.extend(_native(ctx, out))


def _judge_applied(ctx: Context, section_: dict, out: Outcome) -> None:
    """Applied mode's verdict (module docstring): the reference's sliding samples, per engine that ran ok."""
    fc = np.asarray(ctx.friction.fc, dtype=float)
    threshold = KINETIC_VS * float(ctx.friction.v_s)
    qd = np.abs(np.asarray(ctx.reference.qd, dtype=float))[:, fc > 0]
    sliding = int(np.count_nonzero(np.any(qd > threshold, axis=1))) if qd.size else 0
    section_["kinetic_threshold_rad_s"] = threshold
    section_["sliding_samples"] = sliding
    if not sliding:  # NOT_EXERCISED, or INCONCLUSIVE when asked about (--characterise-friction, --require friction)
        because = friction_reason(ctx.user_spec, ctx.reference, ctx.q0, threshold, ctx.opt.dt)
        asked = ctx.opt.asks_about("friction")
        (out.inconclusive if asked else out.not_exercised).append(f"friction: {because}")
        unexercised(section_, asked, because)
        return
    engines = sum(1 for run in ctx.runs.values() if run.status == "ok")
    judge(section_, True, sliding * engines)


def _judge_native(section_: dict, native: dict, verdicts: dict, out: Outcome) -> None:
    """Add the native verdicts' checks to the section's; a departure makes it FAIL; a set-valued reference in which
    no friction joint stuck leaves the stick–slip claims INCONCLUSIVE."""
    checks = int(section_.get("checks") or 0) + sum(len(v["checks"]) for v in verdicts.values())
    stuck = [r for r in native["reference"]["joints"] if r["stick_intervals"] > 0]
    if any(not v["pass"] for v in verdicts.values()):
        judge(section_, Verdict.FAIL, checks, "a native friction departs (failures above)")
        return
    if not stuck:
        because = ("native stick-slip: no joint with Coulomb friction stuck in the set-valued reference ("
                   + ", ".join(f"joint {r['joint']} stick time {r['stick_time_s']:.3g} s"
                               for r in native["reference"]["joints"])
                   + "): the engines' sticking was not exercised; try a profile whose torque on a friction joint "
                     "stays below its f_c for a while (e.g. --profile zero from rest near the hanging pose)")
        out.inconclusive.append(f"friction: {because}")
        judge(section_, Verdict.INCONCLUSIVE, checks, because)
        return
    judge(section_, section_.get("verdict", Verdict.PASS), checks, section_.get("inconclusive_because"))


def _native_note(name: str, e: dict, ref: dict, v: dict, v_stick: float) -> str:
    parts = [f"joint {r['joint']}: stuck {r['stick_time_s']:.3g} s (reference {ref[r['joint']]['stick_time_s']:.3g} "
             f"s), creep while stuck {r['creep_while_stuck_rad']:.2g} rad (floor "
             f"{(r['creep_floor'].get('rate_rad_s') or 0):.2g} rad/s)" for r in e["joints"]]
    return (f"friction, native {name} ({e['friction_model']}; stuck = |qd| < {v_stick:g} "
            f"rad/s): " + "; ".join(parts) + f" -> {'PASS' if v['pass'] else 'FAIL'} "
            f"({len(v['departures'])} of {len(v['checks'])} checks beyond tolerance = 10 x Richardson "
            f"(dt vs dt/2) + sampling (dt per interval end) + threshold (the stick criterion on the reference) + "
            f"creep floor ({e['creep_floor_setting']}) x longest reference stick)")


def _native(ctx: Context, out: Outcome) -> list[str]:
    """Native stick–slip of MuJoCo and PyBullet against the set-valued reference, judged: into the friction
    section and the failures, the stick timelines kept for plots; the notes returned."""
    from crossdyn.native.friction import verdict as native_friction
    from crossdyn.native.friction.runs import characterise_friction
    from crossdyn.engines import available_engines

    spec, opt = ctx.user_spec, ctx.opt
    names = [e for e in ("mujoco", "pybullet") if e in available_engines()]
    ctx.say(f"[{spec.name}] friction: native {', '.join(names)} against the set-valued stick-slip reference")
    try:
        native = characterise_friction(ctx.experiment(spec), names)
    except (ValueError, FloatingPointError) as e:
        return [f"friction: native characterisation not run: {e}"]
    for key, part in [("reference", native["reference"])] + list(native["engines"].items()):
        line = part.pop("timeline", None)
        if line is not None:
            out.stick_slip_timelines[key] = line
    verdicts = native_friction.judge(native, opt.dt)
    native["verdict"] = verdicts
    out.sections["friction"]["native"] = native
    out.failures.extend(native_friction.failures(verdicts))
    _judge_native(out.sections["friction"], native, verdicts, out)
    ref = {r["joint"]: r for r in native["reference"]["joints"]}
    notes = []
    for name, entry in native["engines"].items():
        if entry["status"] != "ok":
            notes.append(f"friction, native {name}: {entry['status']} {entry.get('reason', '')}")
            continue
        notes.append(_native_note(name, entry, ref, verdicts[name], native["v_stick_rad_s"]))
    return notes
