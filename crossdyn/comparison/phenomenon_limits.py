"""Joint limits in a comparison: the applied limit law's notes, every run's limit contacts characterised
(:mod:`crossdyn.native.limits.episodes`), the calibrations (``calibrate_limits``) and, with ``native``, each engine
run with its own limits and judged per contact (:mod:`crossdyn.native.limits.verdict`).

**Exercised** means the limit law acted: the reference's run entered a limit (a limit contact, q_j within
1e-5 rad of a limit or beyond it).  ``summary["limits"]`` carries ``verdict`` and ``checks``
(:func:`crossdyn.comparison.result.judge`).  A check is a limit contact: in applied mode each reference contact
that an engine's run made too (per joint and side; the trajectory group judged the motion through it), with
``native`` each quantity of each native contact the native verdict compared (and each joint/side whose contact
count it compared).  A reference that entered no limit makes the section NOT_EXERCISED (0 checks; INCONCLUSIVE
when the user asked about limits: ``--native``, ``--calibrate-limits``, ``--require limits``), naming each joint's
range against its limits and a start that enters one (:mod:`crossdyn.comparison.coverage`); no calibration and no
native run is spent on it.  An engine whose run entered no limit while the reference did is an INCONCLUSIVE line
of its own (its limits went unchecked)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from crossdyn.native.limits.runs import native_variant as native_limit_variant
from crossdyn.native.limits.verdict import departure_lines as native_limit_failures
from crossdyn.comparison.containment import engine_code, failure_reason
from crossdyn.comparison.context import Context, Outcome
from crossdyn.comparison.coverage import limit_reason
from crossdyn.comparison.result import judge, unexercised
from crossdyn.inputs.profiles.base import held
from crossdyn.errors import EngineError
from crossdyn.models.spec import ArmSpec
from crossdyn.native.experiment import NativeRun, engine_failure

LAW_NOTE = ("joint limits: crossdyn applies the compliant limit law (limit_stiffness, limit_damping) from "
            "each engine's own state at every step, held over the step (applied mode), and the reference "
            "gets it the same way; the engines' own limits are off. Not measured with it: the free-swing "
            "energy drift (the law stores and dissipates energy), the convergence study (its dense "
            "reference has no limits), the native limit behaviour (compare --native measures it)")
NATIVE_NOTE = ("; tolerance per quantity = 10 x "
               "the native run's own Richardson estimate (dt vs dt/2) + the inference error (torque quantities: "
               "the inverse-dynamics inference applied to the reference) + sampling (time in contact: 2 dt) + the "
               "engine's measured softness (the configuration spread of its static give under a held load, side "
               "runs, relative to the law's) x |reference value|; each term in summary limits.native and the report")


def limit_law_omega_dt(spec: ArmSpec, q0, dt: float) -> float:
    """max over joints with a limit law of sqrt(k_j / M_jj(q0)) · dt: how coarse the held law is."""
    from crossdyn import analytic

    M = analytic.mass_matrix(spec, np.asarray(q0, dtype=float))
    return max((math.sqrt(link.limit_stiffness / M[j, j]) * dt for j, link in enumerate(spec.links)
                if link.limit_stiffness > 0), default=0.0)


def notes(ctx: Context) -> list[str]:
    """The applied law's note, and a warning when sqrt(k / M_jj) dt > 0.1 (heuristic: at k = 5000 on
    planar2r-limits, 0.17, the held law ran away by 3 rad)."""
    spec = ctx.spec
    if not spec.has_limit_law:
        return []
    out = [LAW_NOTE]
    wdt = limit_law_omega_dt(spec, ctx.q0, ctx.opt.dt)
    if wdt > 0.1:
        out.append(f"joint limits: the law is held over each step, and with these stiffnesses "
                   f"sqrt(k / M_jj) dt reaches {wdt:.2g} (> 0.1): the held law is far from the continuous "
                   "one (first order in dt, and it can pump energy); lower dt to make the comparison mean "
                   "the physical law")
    return out


def absent_notes(ctx: Context) -> list[str]:
    """--native / --calibrate-limits asked of an arm without a limit law."""
    opt, spec = ctx.opt, ctx.spec
    if (opt.native and not spec.has_contact or opt.calibrate_limits) and not spec.has_limit_law:
        return ["--native / --calibrate-limits: this arm has no joint-limit law (limit_stiffness), nothing to "
                "run natively or calibrate"]
    return []


def section(ctx: Context, out: Outcome) -> None:
    """summary["limits"]: per limit contact the characterisation of the reference and every applied run, the
    calibrations, and with ``native`` the engines' own limits, judged (a departure fails naming engine, joint,
    quantity)."""
    if not ctx.spec.has_limit_law:
        return
    from crossdyn.analytic.laws.limit import LimitLaw
    from crossdyn.native.limits import episodes as lc

    spec = ctx.spec
    law = LimitLaw.of(spec)
    assert law is not None  # the arm has a limit law
    limits: dict[str, Any] = {"contacts": {"reference": lc.characterise(spec, law, ctx.reference, native=False)},
                              "native": {}}
    for name, run in ctx.runs.items():
        if run.status == "ok" and run.driven is not None:
            limits["contacts"][name] = lc.characterise(spec, law, run.driven, native=False)
    out.sections["limits"] = limits
    if not limits["contacts"]["reference"]:
        _unexercised(ctx, limits, out)
        return
    checks = _applied_checks(limits["contacts"], out)
    if ctx.opt.calibrate_limits:
        _calibrate(ctx, limits, out)
    if ctx.opt.native:
        _native(ctx, law, limits, out)
    checks += sum(int(v.get("checked", 0)) for v in limits["native"].values())
    failed = any(not v.get("pass", True) for v in limits["native"].values())
    judge(limits, not failed, checks, "a native limit departs (failures above)" if failed else None)


def _applied_checks(contacts: dict, out: Outcome) -> int:
    """Reference contacts each engine's applied run made too (per joint and side), summed over the engines; an
    engine that made none of them is an INCONCLUSIVE line."""
    def by_key(rows):
        keys: dict = {}
        for r in rows:
            keys[(r["joint"], r["side"])] = keys.get((r["joint"], r["side"]), 0) + 1
        return keys

    ref = by_key(contacts["reference"])
    total = 0
    for name, rows in contacts.items():
        if name == "reference":
            continue
        mine = by_key(rows)
        n = sum(min(k, mine.get(key, 0)) for key, k in ref.items())
        if n == 0:
            out.inconclusive.append(f"limits: {name}: its run entered no limit while the reference entered "
                                    f"{sum(ref.values())} contact(s): its limits went unchecked")
        total += n
    return total


def _unexercised(ctx: Context, limits: dict, out: Outcome) -> None:
    """The reference entered no limit: NOT_EXERCISED (INCONCLUSIVE when asked about) with the ranges and a start
    that enters one; no calibration, no native run."""
    because = limit_reason(ctx.spec, ctx.reference, ctx.q0)
    asked = ctx.opt.asks_about("limits")
    unexercised(limits, asked, because)
    (out.inconclusive if asked else out.not_exercised).append(f"limits: {because}")
    skipped = [what for what, asked in (("calibration", ctx.opt.calibrate_limits), ("native limits", ctx.opt.native))
               if asked]
    if skipped:
        line = f"{' and '.join(skipped)} skipped: no limit contact to " + \
               ("calibrate against" if ctx.opt.calibrate_limits else "judge against")
        limits["skipped"] = line
        out.notes.append(f"limits: {line}")
        ctx.say(f"[{ctx.spec.name}] {line}")


def _calibrate(ctx: Context, limits: dict, out: Outcome) -> None:
    from crossdyn.native.limits.calibration import calibrate_mujoco_limits

    spec = ctx.spec
    ctx.say(f"[{spec.name}] calibrating MuJoCo's solreflimit/solimplimit to the limit law")
    limits["calibration"] = calibrate_mujoco_limits(ctx.experiment(), reference=ctx.reference)
    if "pybullet" in ctx.runs:
        from crossdyn.native.limits.calibration import calibrate_pybullet_limits

        ctx.say(f"[{spec.name}] calibrating PyBullet's jointLimitForce/erp to the limit law")
        try:
            limits["calibration_pybullet"] = calibrate_pybullet_limits(ctx.experiment(), reference=ctx.reference)
        except Exception as e:  # noqa: BLE001 - PyBullet's own failure is reported (engine_failure); crossdyn's raised
            if not engine_failure(e):
                raise
            out.failures.append(f"pybullet limit calibration: error: {type(e).__name__}: {e}")


def _natives(ctx: Context, limits: dict) -> list[tuple]:
    """(engine name with its own limits, base name, label) of every native run."""
    runs = ctx.runs
    natives: list[tuple] = [(native_limit_variant(n), n, native_limit_variant(n)) for n in runs
                            if runs[n].status == "ok" and native_limit_variant(n) is not None]
    from crossdyn.engines.registry import native_mechanisms

    # a name given with its own limits switched on (a calibration's rerun string) is a native run only
    natives += [(n, n.split("@", 1)[0], n) for n in ctx.engines if n not in runs and "limits" in native_mechanisms(n)]
    cal = limits.get("calibration")
    if cal:  # the calibrated MuJoCo limit, judged like the others: its engine string, so side runs get it too
        natives.append((cal["options"], cal["engine"], f"{cal['engine']}@native_limits=true (calibrated)"))
    pcal = limits.get("calibration_pybullet")
    if pcal:  # the calibrated PyBullet limit: its settings are engine options, so every side run gets them too
        natives.append((pcal["options"], pcal["engine"], f"{pcal['engine']}@native_limits=true (calibrated)"))
    return natives


def _maker(ctx: Context):
    """``make(engine_name, dt)``: the engine (applied friction, if any, as the others); a calibration's settings
    are options of its engine name."""
    from crossdyn.comparison.containment import build_engine

    def make(engine_name, step):
        return build_engine(engine_name, ctx.spec, step, ctx.friction)
    return make


def _native(ctx: Context, law, limits: dict, out: Outcome) -> None:
    from crossdyn.native.limits.reference import continuous_reference
    from crossdyn.native.limits import episodes as lc

    spec = ctx.spec
    cont, method = continuous_reference(ctx.experiment(), law, ctx.reference, ctx.friction)
    limits["native_reference"] = method
    limits["contacts"]["reference (continuous law)"] = cont_contacts = lc.characterise(spec, law, cont,
                                                                                      native=False)
    for native_name, _, label in _natives(ctx, limits):
        ctx.say(f"[{spec.name}] {label}: native limits")
        verdict = _judge_native(ctx, law, (native_name, label), (cont, cont_contacts), limits, out)
        if verdict is not None:
            limits["native"][label] = verdict
            out.failures.extend(native_limit_failures(label, verdict))
    out.notes.append("native limits: judged per contact against the " + method + NATIVE_NOTE)


def _judge_native(ctx: Context, law, which: tuple, continuous: tuple, limits: dict, out: Outcome) -> dict | None:
    """Run one engine with its own limits and judge it; None (a failure line) if the engine's code raised."""
    from crossdyn.native.limits.verdict import LimitReference, judge_native_run
    from crossdyn.native.limits import episodes as lc
    from crossdyn.drive.runner import run_engine

    spec, opt = ctx.spec, ctx.opt
    native_name, label = which
    cont, cont_contacts = continuous
    make = _maker(ctx)
    try:
        with engine_code(), make(native_name, opt.dt) as eng:
            traj = run_engine(eng, ctx.profile, ctx.q0, ctx.qd0, opt.duration, limit_law=False)
    except EngineError as e:  # the engine's own code raised: reported, the others go on
        out.failures.append(f"{label}: error: {failure_reason(e)}")
        return None
    if traj.status != "ok":
        out.failures.append(f"{label}: {traj.status}: {traj.message}")
    out.native_limit_runs[label] = traj
    limits["contacts"][label] = lc.characterise(spec, law, traj, native=True)
    try:
        return judge_native_run(ctx.experiment(profile=held(ctx.profile, opt.dt)), law,
                                NativeRun(native_name, traj, make), LimitReference(cont_contacts, cont),
                                opt.tolerances.trajectory_factor)
    except Exception as e:  # noqa: BLE001 - its side runs (held loads, dt/2) are the engine's: reported if theirs
        if not engine_failure(e):
            raise
        out.failures.append(f"{label}: error: {type(e).__name__}: {e}")
        return None
