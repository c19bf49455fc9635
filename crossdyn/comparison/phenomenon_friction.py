"""Coulomb friction in a comparison: the mode's note, ``summary["friction"]`` in applied mode, and with
``characterise_friction`` MuJoCo's and PyBullet's own stick–slip against the set-valued reference, judged
(:mod:`crossdyn.native.friction.runs`, :mod:`crossdyn.native.friction.verdict`)."""
from __future__ import annotations

from crossdyn.comparison.context import Context, Outcome

APPLIED_NOTE = ("step, held over the step, and to the reference the same way. v_s is chosen so that the held "
                "law's step is monotone (no chatter about qd = 0); the set-valued stick-slip law is its v_s -> 0 "
                "limit (crossdyn.analytic.stick_slip.simulate_stick_slip). Not measured with it: the free-swing "
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
    out.sections["friction"] = {"mode": "applied", "law": "-fc*tanh(qd/v_s)", "fc_nm": friction.fc.tolist(),
                                "v_s_rad_s": friction.v_s}
    if ctx.opt.characterise_friction:
        out.notes.extend(_native(ctx, out))


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
    ref = {r["joint"]: r for r in native["reference"]["joints"]}
    notes = []
    for name, entry in native["engines"].items():
        if entry["status"] != "ok":
            notes.append(f"friction, native {name}: {entry['status']} {entry.get('reason', '')}")
            continue
        notes.append(_native_note(name, entry, ref, verdicts[name], native["v_stick_rad_s"]))
    return notes
