"""Reporting a comparison: one consumer of its result (the summary document and the runs).

- :mod:`~crossdyn.reporting.plots`: the figures, one module per subject (the arm, the motion, accuracy, joint
  limits, friction, contact); :mod:`~crossdyn.reporting.figures` what they share;
- :mod:`~crossdyn.reporting.blocks`: the report as blocks read from the summary document, one module per section
  family (the frame, the metrics, actuators, limits, friction, contact);
- :mod:`~crossdyn.reporting.render`: the blocks as Markdown and self-contained HTML;
- :mod:`~crossdyn.reporting.output`: the files (summary.json, time series, plots, report.md, report.html).

Imports nothing heavy: matplotlib and pandas are imported when a figure or a table is made.
"""
from __future__ import annotations

from crossdyn.reporting.blocks import (METRICS, PROFILE_UNITS, arm_blocks, armature_blocks, contact_blocks,
                                       contact_native_blocks, control_blocks, effort_blocks, engine_result,
                                       friction_blocks, limit_blocks, native_limit_blocks, profile_parameters,
                                       report_blocks)
from crossdyn.reporting.figures import COINCIDE_RAD, STYLES, coincidences, draw_obstacles, half_plane_polygon
from crossdyn.reporting.output import timeseries, write_outputs
from crossdyn.reporting.plots import (PLOTS, contact_plots, draw_arm, limit_plots, make_plots, native_contact_plots,
                                      stick_slip_plot, stick_slip_timelines)
from crossdyn.reporting.render import render_html, render_markdown

__all__ = ["write_outputs", "timeseries", "make_plots", "PLOTS", "draw_arm", "limit_plots", "stick_slip_plot",
           "stick_slip_timelines", "contact_plots", "native_contact_plots", "draw_obstacles", "half_plane_polygon",
           "coincidences", "STYLES", "COINCIDE_RAD", "report_blocks", "arm_blocks", "control_blocks",
           "armature_blocks", "effort_blocks", "limit_blocks", "native_limit_blocks", "friction_blocks",
           "contact_blocks", "contact_native_blocks", "engine_result", "profile_parameters", "METRICS",
           "PROFILE_UNITS", "render_markdown", "render_html"]
