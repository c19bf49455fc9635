"""Tip contact in a comparison: the applied contact law's section and notes (:func:`section`), and the engines'
own contact (:func:`native_section`: characterised per episode, judged with ``native``; fitted with
``calibrate_contact``), :mod:`crossdyn.native.contact.runs`, :mod:`crossdyn.native.contact.calibration`.

**Exercised** means the tip touched an obstacle: the reference's run has a contact episode (δ > 0 over an
interval).  ``summary["contact"]`` carries ``verdict`` and ``checks`` (:func:`crossdyn.comparison.result.judge`).
A check is a contact episode: in applied mode each reference episode that an engine's run made too (the trajectory
and tip-kinematics groups judged the motion through it), with ``native`` each quantity of each native episode
the native verdict compared plus its contact-force probe.  A reference that never touched makes the section
INCONCLUSIVE, naming each obstacle's closest approach and a start that touches one
(:mod:`crossdyn.comparison.coverage`); no calibration is spent on it.  An engine whose run never touched while the
reference did is an INCONCLUSIVE line of its own."""
from __future__ import annotations

import math

from crossdyn.comparison.context import Context, Outcome
from crossdyn.comparison.coverage import contact_reason
from crossdyn.comparison.result import judge, unexercised
from crossdyn.status import Verdict

CONTACT_OMEGA_DT_NOTE = 0.1
"""sqrt(k / m_n) dt above which ``compare`` says the held contact law is far from the continuous one (the limit
law's heuristic: at dt = 1 ms on planar2r-floor's drop, 0.16, the semi-implicit Euler engines end 0.17 rad from
the reference while RK4 engines are 5e-6 rad from it)."""

APPLIED_NOTE = ("engine's own tip kinematics (MuJoCo, MuJoCo Warp and MJX site, PyBullet link, Pinocchio frame, "
                "Drake frame, DART body node, Newton site on its body pose, Genesis link; the analytic kinematics for "
                "the others) at every step, tau_c = J_c^T F held over the step, "
                "and to the reference the same way; the engines' own contact is off. Not measured with it: the "
                "free-swing energy drift (the law stores and dissipates energy; the work-energy residual, which "
                "includes the contact torque's work, is the balance E_arm + V + D), the convergence study (its "
                "dense reference has no contact)")
ENERGY = ("work-energy residual with the held contact torque among the applied torques: its work "
          "-sum tau_c.dq is the law's stored energy plus dissipation, so the residual is the balance "
          "E_arm + V + D; the free-swing drift is not measured (the arm strikes the obstacles)")
NATIVE_NOTE = ("each engine's own contact (MuJoCo: direct solref (-k A0, -c A0), solimp "
               "d = 1e-4; PyBullet: contactStiffness k, contactDamping c; drake-discrete: SAP with relaxation "
               "time c/k; an engine's contact_solref/contact_solimp or contact_stiffness/contact_damping options "
               "replace them: its config); each episode judged against the law restarted at the engine's own pre-contact state, "
               "tolerance = integration-error estimate (the law with the engine's scheme at dt) + the engine's "
               "measured contact-force departure from the law in that scheme + the dt grid's resolution; the "
               "whole run's tip path is compared with the reference, not judged")


def _engines(law, runs) -> dict:
    """Per engine that ran, its contact quantities and its tip-kinematics discrepancy."""
    from crossdyn.drive.contact_applied import characterise

    engines = {}
    for name, run in runs.items():
        if run.status not in ("ok", "diverged", "failed") or run.driven is None:
            continue
        entry = characterise(law, run.driven) or {}
        fk = run.summary.get("tip_kinematics", {})
        source = fk.get("source") or run.config.get("tip_kinematics")
        entry.update(tip_kinematics=source, max_tip_position_error_m=fk.get("max_tip_position_error_m"),
                     max_tip_velocity_error_m_s=fk.get("max_tip_velocity_error_m_s"),
                     max_jacobian_error_m=fk.get("max_jacobian_error_m"))
        engines[name] = entry
    return engines


def _coarseness_notes(law, coarse: dict) -> list[str]:
    out = []
    wdt = coarse["omega_dt"]
    if wdt is not None and wdt > CONTACT_OMEGA_DT_NOTE:
        out.append(f"contact: the law is held over each step, and sqrt(k / m_n) dt reaches {wdt:.2g} (> "
                   f"{CONTACT_OMEGA_DT_NOTE:g}; m_n the arm's effective mass along the normal at the contact): a "
                   f"contact lasts about {math.pi / max(wdt, 1e-300):.0f} steps, the held law is far from the "
                   "continuous one (first order in dt), and first-order engines depart from the reference by far "
                   "more than RK4 ones; lower dt to make the comparison mean the physical law")
    fs = coarse["friction_step"]
    if fs is not None and fs > 1.0:
        out.append(f"contact friction: held over a step, mu F_n tanh(v_t / v_s) is an explicit damper with dt mu "
                   f"F_n / (v_s m_t) up to {fs:.3g} (> 1): the held law overshoots v_t = 0 instead of sticking "
                   f"(v_s = {law.slip_velocity:g} m/s); every engine and the reference integrate the same held "
                   "law, so the comparison stands, but the sticking it shows is not the continuous law's")
    return out


def section(ctx: Context, out: Outcome) -> None:
    """summary["contact"] (applied mode): the law, the held law's coarseness, and per run (reference and every
    engine that ran) the contact quantities of :func:`crossdyn.drive.contact_applied.characterise` and the
    engine's tip-kinematics discrepancy.  ``summary["contact"]["native"]`` is left to :func:`native_section`."""
    if not ctx.spec.has_contact:
        return
    from crossdyn.analytic.laws.contact import ContactLaw
    from crossdyn.drive.contact_applied import characterise, held_law_coarseness

    spec, reference = ctx.spec, ctx.reference
    law = ContactLaw.of(spec, dt=reference.dt)
    assert law is not None  # the arm has contact
    coarse = held_law_coarseness(spec, law, reference)
    engines = _engines(law, ctx.runs)
    out.sections["contact"] = {
        "mode": "applied", "law": law.describe(), "stiffness_n_m": law.stiffness, "damping_n_s_m": law.damping,
        "friction_mu": law.friction, "radius_m": law.radius, "slip_velocity_m_s": law.slip_velocity,
        "obstacles": [{"point": p.tolist(), "normal": n.tolist()} for p, n in zip(law.points, law.normals, strict=False)],
        "held_law": coarse, "reference": characterise(law, reference), "engines": engines, "energy": ENERGY}
    _judge_applied(ctx, out.sections["contact"], out)
    out.notes.append(f"contact (applied mode): crossdyn applies the tip contact law ({law.describe()}), computed "
                     "from each " + APPLIED_NOTE)
    out.notes.extend(_coarseness_notes(law, coarse))


def _judge_applied(ctx: Context, contact: dict, out: Outcome) -> None:
    """The section's verdict in applied mode (module docstring): checks = the reference's episodes each engine's
    run made too; NOT_EXERCISED when the reference never touched (INCONCLUSIVE when the user asked about contact:
    ``--native``, ``--calibrate-contact``, ``--require contact``)."""
    ref = (contact["reference"] or {}).get("contacts") or 0
    if not ref:
        because = contact_reason(ctx.spec, ctx.reference, ctx.q0)
        asked = ctx.opt.asks_about("contact")
        (out.inconclusive if asked else out.not_exercised).append(f"contact: {because}")
        unexercised(contact, asked, because)
        return
    checks = 0
    for name, e in contact["engines"].items():
        n = min(ref, e.get("contacts") or 0)
        if n == 0 and ctx.runs[name].status == "ok":
            out.inconclusive.append(f"contact: {name}: its tip never touched while the reference's made {ref} "
                                    "episode(s): its contact went unchecked")
        checks += n
    judge(contact, True, checks)


def _judge_native(contact: dict, native: dict) -> None:
    """Add the native verdicts' checks (with ``native``) to the section's; a departure makes it FAIL."""
    verdicts = [e["verdict"] for e in native["engines"].values() if "verdict" in e]
    failed = any(not v["pass"] for v in verdicts) or any(e["status"] != "ok" for e in native["engines"].values())
    checks = int(contact.get("checks") or 0) + sum(int(v.get("checked", 0)) for v in verdicts)
    if failed:
        judge(contact, Verdict.FAIL, checks, "a native contact departs from the law (failures above)")
    elif contact.get("verdict") == Verdict.INCONCLUSIVE:
        judge(contact, Verdict.INCONCLUSIVE, checks, contact.get("inconclusive_because"))
    else:
        judge(contact, True, checks)


def absent_notes(ctx: Context, out: Outcome) -> None:
    if ctx.opt.calibrate_contact and not ctx.spec.has_contact:
        out.notes.append("--calibrate-contact: this arm has no contact ([contact] and [[obstacles]]), nothing to "
                         "calibrate")


def _native_runs(ctx: Context, contact: dict, out: Outcome, ready: dict | None = None) -> None:
    """Each engine's own contact, characterised per episode (``ready``: already, by :func:`start_native`);
    judged (departures fail) with ``native``."""
    from crossdyn.native.contact import runs as cn
    from crossdyn.native.contact.verdict import describe_departure

    opt = ctx.opt
    native = ready if ready is not None else cn.characterise_native_contact(
        ctx.experiment(), list(ctx.engines), out.native_contact_reference, ctx.say, jobs=opt.jobs)
    out.native_contact_runs = {k: v["trajectory"] for k, v in native["engines"].items() if "trajectory" in v}
    native["judged"] = bool(opt.native)
    contact["native"] = cn.summary_of(native)
    if opt.native:
        _judge_native(contact, native)
    for name, e in native["engines"].items():
        if not opt.native:  # characterised and printed; the verdict stays the applied mode's
            continue
        if e["status"] != "ok":
            out.failures.append(f"{name}: native contact run {e['status']}: {e['reason']}")
        out.failures.extend(describe_departure(d) for d in e.get("verdict", {}).get("departures", []))
    out.notes.append(("native contact (characterised, NOT judged: the verdict above is the applied mode's; "
                      "compare --native makes each departure fail): " if not opt.native else "native contact: ")
                     + NATIVE_NOTE
                     + (f". Not native (reasons above): {', '.join(native['unsupported'])}" if native["unsupported"]
                        else ""))


def _calibrate(ctx: Context, contact: dict, reference) -> None:
    """MuJoCo's contact solref/solimp and PyBullet's contactStiffness/contactDamping fitted to the law
    (``reference``: the law's run with located switches)."""
    from crossdyn.native.contact.calibration import calibrate_mujoco_contact, calibrate_pybullet_contact

    spec = ctx.spec
    cal: dict = {}
    for name in ctx.engines:
        base = name.split("@", 1)[0]
        if base in ("mujoco", "mujoco-euler", "mujoco-rk4") and "mujoco" not in cal:
            ctx.say(f"[{spec.name}] calibrating {base}'s contact solref/solimp to the law")
            cal["mujoco"] = calibrate_mujoco_contact(ctx.experiment(), base, reference)
        elif base == "pybullet" and "pybullet" not in cal:
            ctx.say(f"[{spec.name}] calibrating PyBullet's contactStiffness/contactDamping to the law")
            cal["pybullet"] = calibrate_pybullet_contact(ctx.experiment(), base, reference)
    contact["calibration"] = cal


NATIVE_FRICTION_NOT_RUN = ("with --native-friction every engine runs its own Coulomb friction, so a native contact "
                           "run would have two native mechanisms while the contact law's reference has "
                           "f_c*sign(qd); without --native-friction the native contact runs get the applied "
                           "friction law, as the reference does")


def runs_native(ctx: Context) -> bool:
    """Whether :func:`native_section` runs the engines' own contact (:func:`_native_runs`)."""
    opt, spec = ctx.opt, ctx.spec
    return (spec.has_contact and (opt.native or opt.contact_characterise)
            and not (ctx.friction is None and spec.has_friction))


def start_native(ctx: Context):
    """The native contact work of :func:`native_section` (the law's reference run, then each engine's native run
    characterised, up to ``jobs`` at a time) started in a forked child beside the engines' runs, where it will be
    run and ``jobs`` > 1: a :class:`crossdyn.processes.Forked` whose result is (reference run, characterisation),
    the same values as computed here (:func:`native_section` takes them through ``ctx.native_contact``); None
    otherwise.  Its progress lines are said here, at its start."""
    if ctx.opt.jobs <= 1 or not runs_native(ctx):
        return None
    from crossdyn.native.contact import runs as cn
    from crossdyn.processes import fork_call

    exp, engines, jobs = ctx.experiment(), list(ctx.engines), ctx.opt.jobs

    def work():
        reference = cn.reference_run(exp)
        return reference, cn.characterise_native_contact(exp, engines, reference, None, jobs=jobs)

    started = fork_call(work)
    if started is not None:
        ctx.say(f"[{ctx.spec.name}] native contact: the law's reference and each engine's own contact, beside "
                "the engines' runs")
    return started


def native_section(ctx: Context, out: Outcome) -> None:
    """summary["contact"]["native"] (the engines' own contact, characterised per episode; judged with
    ``native``) and summary["contact"]["calibration"] (``calibrate_contact``); departures become failures
    naming engine, obstacle, quantity.  Keeps the native runs' trajectories and their reference run."""
    opt = ctx.opt
    if not (ctx.spec.has_contact and (opt.native or opt.contact_characterise or opt.calibrate_contact)):
        return
    from crossdyn.native.contact import runs as cn

    spec = ctx.spec
    contact = out.sections.setdefault("contact", {})
    if ctx.friction is None and spec.has_friction:  # --native-friction (--native itself is refused there)
        contact["native"] = {"not_run": NATIVE_FRICTION_NOT_RUN}
        out.notes.append("native contact: not run: " + NATIVE_FRICTION_NOT_RUN)
        return
    ready = ctx.native_contact.result() if ctx.native_contact is not None else None  # start_native's
    if ready is None:
        ctx.say(f"[{spec.name}] native contact: reference (the law, RK4 with located switches)")
    out.native_contact_reference = ready[0] if ready is not None else cn.reference_run(ctx.experiment())
    if opt.native or opt.contact_characterise:
        _native_runs(ctx, contact, out, None if ready is None else ready[1])
    if opt.calibrate_contact and contact.get("verdict") == Verdict.INCONCLUSIVE:
        line = "calibration skipped: no contact episode to calibrate against"
        contact["calibration_skipped"] = line
        out.notes.append(f"contact: {line}")
        ctx.say(f"[{spec.name}] {line}")
    elif opt.calibrate_contact:
        _calibrate(ctx, contact, out.native_contact_reference)
