"""The per-phenomenon parts of a comparison, in the document's order, each a step of one loop.

:data:`NOTE_STEPS` give the notes that describe how the engines were run (friction mode, unsupported engines,
armature, effort, limit law, skipped convergence study); :data:`SECTION_STEPS` add each phenomenon's section of
``summary.json`` (``contact``, ``limits``, the engines' own contact, ``friction``) with its notes and failures.
Each step checks whether its phenomenon is present (a new phenomenon is one module and one entry here).
"""
from __future__ import annotations

from typing import Callable

from crossdyn.comparison import phenomenon_contact, phenomenon_friction, phenomenon_limits
from crossdyn.comparison.context import Context, Outcome
from crossdyn.comparison.groups.armature import armature_note
from crossdyn.comparison.groups.effort import effort_note


def _unsupported_notes(ctx: Context) -> list[str]:
    return [f"{name} was not compared: {run.reason}" for name, run in ctx.runs.items()
            if run.status == "unsupported"]


def _armature_notes(ctx: Context) -> list[str]:
    note = armature_note(ctx.runs)
    return [note] if note else []


def _effort_notes(ctx: Context) -> list[str]:
    note = effort_note(ctx.runs)
    return [note] if note else []


def _convergence_notes(ctx: Context) -> list[str]:
    """The convergence study was asked for on a smooth arm, but its dense reference could not be computed."""
    spec, opt = ctx.spec, ctx.opt
    if (not spec.has_limit_law and opt.convergence_dts and ctx.dense is None and ctx.friction is None
            and not spec.has_contact):
        return ["convergence study skipped: the free-motion reference (DOP853 over the whole run) could not "
                "be computed in a bounded number of steps (a joint sticking under Coulomb friction?)"]
    return []


NOTE_STEPS: tuple[Callable[[Context], list[str]], ...] = (
    phenomenon_friction.notes, _unsupported_notes, _armature_notes, _effort_notes, phenomenon_limits.notes,
    _convergence_notes, phenomenon_limits.absent_notes)

DECLARED: dict[str, tuple[str, str]] = {
    "limits": ("has_limit_law", "no joint-limit law (limits with limit_stiffness)"),
    "effort": ("has_effort", "no effort limit"), "contact": ("has_contact", "no contact ([contact] and [[obstacles]])"),
    "friction": ("has_friction", "no Coulomb friction (f_c > 0)"), "armature": ("has_armature", "no rotor armature")}
"""Per phenomenon ``--require`` names: the arm's property that declares it, and what the arm lacks without it."""


def required(ctx: Context, out: Outcome) -> None:
    """``--require``: a phenomenon the arm does not declare, or declares but no check was made of (say every engine
    that ran was unsupported for it), is an INCONCLUSIVE line (asked about, nothing judged); one the run did not
    reach is INCONCLUSIVE already (:func:`crossdyn.comparison.result.unexercised`)."""
    from crossdyn.comparison.result import check_totals

    totals = check_totals(ctx.runs, out.sections)
    for name in ctx.opt.require:
        said = any(line.startswith(f"{name}:") or f": {name}:" in line for line in out.inconclusive)
        attr, lacking = DECLARED[name]
        if not getattr(ctx.spec if name != "friction" else ctx.user_spec, attr):
            out.inconclusive.append(f"{name}: --require {name}, but {ctx.user_spec.name} declares {lacking}: "
                                    "nothing to check")
        elif not totals.get(name) and not said:
            out.inconclusive.append(f"{name}: --require {name}: no check was made of it (no engine that ran "
                                    "could be compared on it; reasons above)")


SECTION_STEPS: tuple[Callable[[Context, Outcome], None], ...] = (
    phenomenon_contact.section, phenomenon_limits.section, phenomenon_contact.absent_notes,
    phenomenon_contact.native_section, phenomenon_friction.section, required)


def refused_combination(spec, opt) -> str | None:
    """Why this comparison cannot give a native run of one phenomenon every other phenomenon exactly as the
    reference has it (None: it can).  A native run is of one phenomenon at a time: the others are the applied
    laws the reference has (:mod:`crossdyn.native`).  Refused (the command exits 2 with this reason):

    * ``native_friction`` (every engine's own friction, the reference's f_c sign(q̇)) with native limits or
      contact runs (``native``, ``calibrate_limits``, ``calibrate_contact``) on an arm with Coulomb friction and
      limits/contact: those runs would have two native mechanisms at once, judged against a law reference
      (event-exact limits, the contact law) that has the sign law instead of the engine's friction;
    * ``characterise_friction`` on an arm with a limit law or contact: the set-valued stick–slip reference
      (:func:`crossdyn.analytic.references.stick_slip.simulate_stick_slip`) has neither, while the native
      friction runs get both applied."""
    if not spec.has_friction:
        return None
    name = spec.name
    if opt.native_friction:
        wanted = [flag for flag, on, has in (("--native", opt.native, spec.has_limit_law or spec.has_contact),
                                             ("--calibrate-limits", opt.calibrate_limits, spec.has_limit_law),
                                             ("--calibrate-contact", opt.calibrate_contact, spec.has_contact))
                  if on and has]
        if wanted:
            return (f"{name}: {' and '.join(wanted)} with --native-friction: the arm has Coulomb friction, and a "
                    "native limit or contact run would move under the engine's own friction as well as its own "
                    "limit/contact, while the law's reference has f_c*sign(qd) instead; run them without "
                    "--native-friction (every native run then gets the applied friction law, as the reference "
                    "does), and --native-friction on its own")
    elif opt.characterise_friction and (spec.has_limit_law or spec.has_contact):
        what = " and ".join(w for w, has in (("a joint-limit law", spec.has_limit_law),
                                              ("tip contact", spec.has_contact)) if has)
        return (f"{name}: --characterise-friction: the arm has {what}, which the native friction runs get "
                "applied but the set-valued stick-slip reference (simulate_stick_slip) does not have; "
                "characterise the friction on the arm without them")
    return None


def conclude(ctx: Context, out: Outcome) -> None:
    """Every note step, then every section step, into ``out``."""
    for note_step in NOTE_STEPS:
        out.notes.extend(note_step(ctx))
    for section_step in SECTION_STEPS:
        section_step(ctx, out)
