"""The comparison report as blocks, read from the summary document (``summary.json``'s content): the frame
(title, arm, status, control, audit, plots), the metric sections, and one section per phenomenon present."""
from __future__ import annotations

from crossdyn.reporting.blocks.actuators import armature_blocks, effort_blocks
from crossdyn.reporting.blocks.contact import contact_blocks, contact_native_blocks
from crossdyn.reporting.blocks.friction import friction_blocks
from crossdyn.reporting.blocks.limits import limit_blocks, native_limit_blocks
from crossdyn.reporting.blocks.metrics import convergence_blocks, dynamics_blocks, energy_blocks, trajectory_blocks
from crossdyn.reporting.blocks.overview import (CAPTIONS, arm_blocks, audit_blocks, control_blocks, intro_blocks,
                                                plot_blocks, status_blocks)
from crossdyn.reporting.blocks.text import METRICS, PROFILE_UNITS, engine_result, fmt, mark, profile_parameters, vec

PHENOMENON_SECTIONS = (armature_blocks, effort_blocks, limit_blocks, friction_blocks, contact_blocks,
                       contact_native_blocks)
"""The sections of the phenomena an arm may have, in report order; each returns nothing for an arm without it."""


def report_blocks(summary: dict, images: list[str]) -> list[tuple]:
    """The report as blocks: ("h", level, text), ("p", text), ("table", header, rows), ("img", file, caption).

    Order: the introduction, the arm, the status, closed-loop control, the metric sections (trajectory,
    dynamics at random states, energy, convergence), the phenomena (:data:`PHENOMENON_SECTIONS`), the engine
    configuration audit, the plots (``images``: the figure files drawn, in order)."""
    b = intro_blocks(summary)
    b += arm_blocks(summary, images)
    b += status_blocks(summary)
    b += control_blocks(summary, images)
    for metric_section in (trajectory_blocks, dynamics_blocks, energy_blocks, convergence_blocks):
        b += metric_section(summary)
    for section in PHENOMENON_SECTIONS:
        b += section(summary)
    b += audit_blocks(summary)
    b += plot_blocks(summary, images)
    return b


__all__ = ["report_blocks", "PHENOMENON_SECTIONS", "CAPTIONS", "METRICS", "PROFILE_UNITS", "engine_result",
           "profile_parameters", "fmt", "mark", "vec", "intro_blocks", "arm_blocks", "status_blocks",
           "control_blocks", "trajectory_blocks", "dynamics_blocks", "energy_blocks", "convergence_blocks",
           "armature_blocks", "effort_blocks", "limit_blocks", "native_limit_blocks", "friction_blocks",
           "contact_blocks", "contact_native_blocks", "audit_blocks", "plot_blocks"]
