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

SECTION_STEPS: tuple[Callable[[Context, Outcome], None], ...] = (
    phenomenon_contact.section, phenomenon_limits.section, phenomenon_contact.absent_notes,
    phenomenon_contact.native_section, phenomenon_friction.section)


def conclude(ctx: Context, out: Outcome) -> None:
    """Every note step, then every section step, into ``out``."""
    for note_step in NOTE_STEPS:
        out.notes.extend(note_step(ctx))
    for section_step in SECTION_STEPS:
        section_step(ctx, out)
