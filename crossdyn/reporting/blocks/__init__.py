"""The comparison report as blocks, read from the summary document (``summary.json``'s content): the answer
(the verdict, the summary table, the notes), the plots, then the details, collapsed in HTML: the arm, control,
the metric sections with their tolerances' derivations, one section per phenomenon present, the engine
configuration audit, the run's settings and versions."""
from __future__ import annotations

from crossdyn.reporting.blocks.actuators import armature_blocks, effort_blocks
from crossdyn.reporting.blocks.contact import contact_blocks, contact_native_blocks
from crossdyn.reporting.blocks.derivatives import derivatives_blocks
from crossdyn.reporting.blocks.friction import friction_blocks
from crossdyn.reporting.blocks.limits import limit_blocks, native_limit_blocks
from crossdyn.reporting.blocks.metrics import convergence_blocks, dynamics_blocks, energy_blocks, trajectory_blocks
from crossdyn.reporting.blocks.overview import CAPTIONS, arm_blocks, audit_blocks, control_blocks, plot_blocks
from crossdyn.reporting.blocks.summary import judged_groups, notes_blocks, run_blocks, summary_blocks, verdict_blocks
from crossdyn.reporting.blocks.text import (FOLDED, METRICS, PROFILE_UNITS, engine_result, fmt, folded, mark,
                                            profile_parameters, vec)

PHENOMENON_SECTIONS = (armature_blocks, effort_blocks, limit_blocks, friction_blocks, contact_blocks,
                       contact_native_blocks)
"""The sections of the phenomena an arm may have, in report order; each returns nothing for an arm without it."""


def report_blocks(summary: dict, images: list[str]) -> list[tuple]:
    """The report as blocks: ("h", level, text[, FOLDED]), ("p", text), ("table", header, rows), ("img", file,
    caption).

    Order: the verdict, the summary table, the notes, the plots (``images``: the figure files drawn, in order);
    then, :func:`~crossdyn.reporting.blocks.text.folded`: the arm, closed-loop control, the metric sections
    (trajectory, dynamics at random states, energy, convergence), the phenomena (:data:`PHENOMENON_SECTIONS`),
    the engine configuration audit, the run's settings and versions."""
    b = verdict_blocks(summary) + summary_blocks(summary) + notes_blocks(summary) + plot_blocks(summary, images)
    details = arm_blocks(summary, images) + control_blocks(summary, images)
    for section in (trajectory_blocks, dynamics_blocks, energy_blocks, convergence_blocks, derivatives_blocks,
                    *PHENOMENON_SECTIONS):
        details += section(summary)
    return b + folded(details + audit_blocks(summary) + run_blocks(summary))


__all__ = ["report_blocks", "PHENOMENON_SECTIONS", "CAPTIONS", "METRICS", "PROFILE_UNITS", "engine_result",
           "profile_parameters", "fmt", "mark", "vec", "verdict_blocks", "summary_blocks", "notes_blocks",
           "run_blocks", "judged_groups", "FOLDED", "folded", "arm_blocks",
           "control_blocks", "trajectory_blocks", "dynamics_blocks", "energy_blocks", "convergence_blocks",
           "armature_blocks", "effort_blocks", "limit_blocks", "native_limit_blocks", "friction_blocks",
           "contact_blocks", "contact_native_blocks", "audit_blocks", "plot_blocks"]
